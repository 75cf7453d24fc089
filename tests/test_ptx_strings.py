"""CUDA a Python program compiles from strings (cupy, pycuda) through nvcc's PTX
(smemsim.frontends.ptx.strings_frontend), and the text host_python reads for it."""
from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from smemsim.frontends.ptx import host_python as hp

CORPUS = pathlib.Path(__file__).parent / "corpus_ptx" / "pycuda" / "examples" / "from-wiki"


def scope_of(source: str) -> hp.Scope:
    scope = hp.Scope()
    scope.run(ast.parse(textwrap.dedent(source)).body)
    return scope


def test_text_is_formatted_as_python_formats_it_and_keeps_its_line():
    s = scope_of('''
        import string
        B = 16
        code = """
        #define B %(b)d
        """ % {"b": B}
        fmt = "x{0}y{n:3d}".format(1, n=B)
        fs = f"a{B}b{B * 2:4d}"
        tmpl = string.Template("s $B t").substitute(B=B)
        joined = "one\\n" + "two"
        spliced = "#define X %s\\nint y;" % "a\\nb"
        ''')
    names = s.names
    assert names["code"] == "\n#define B 16\n" and names["code"].line == 4
    assert names["fmt"] == "x1y 16" and names["fs"] == "a16b  32"
    assert names["tmpl"] == "s 16 t"
    assert names["joined"] == "one\ntwo" and names["joined"].line is None   # not one literal
    assert names["spliced"].line is None   # a value of two lines spliced into it


def test_text_formatting_reads_no_attribute_and_no_huge_width():
    s = scope_of('''
        N = 3
        attr = "{0.__class__}".format(N)
        item = "{0[0]}".format(N)
        wide = "%999999999d" % N
        star = "%*d" % (5, N)
        many = "x" * 10 ** 9
        fwide = f"{N:99999999}"
        ''')
    assert [s.names[k] for k in ("attr", "item", "wide", "star", "many", "fwide")] == \
        [None] * 6


def analyze_json(path: pathlib.Path, *options: str, cwd=None) -> dict:
    done = subprocess.run([sys.executable, "-m", "smemsim", "analyze", str(path), "--json",
                           "--frontend", "ptx", *options], capture_output=True, text=True,
                          timeout=600, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def totals(kernel: dict) -> tuple:
    return kernel["load"]["requests"], kernel["load"]["wavefronts"], \
        kernel["store"]["requests"], kernel["store"]["wavefronts"]


def test_pycudas_tiled_matmul_formatted_with_a_dict(nvcc):
    """pycuda's wiki example as written: `kernel_code_template % {"MATRIX_SIZE": 4,
    "BLOCK_SIZE": 2}`, launched on a 2 x 2 grid of 2 x 2 blocks (one warp of 4 lanes). Per
    block, two tiles (nvcc unrolls the loop over them): As and Bs stored once each (stores
    16); the k loop of 2 reads Bs[0][tx] and Bs[1][tx] (8 bytes apart: two LDS) and
    As[ty][0], As[ty][1], which ptxas reads with one LDS.64: loads 4 blocks x 2 tiles x 3 =
    24, the H200's count (docs/validation.md; the same offsets twice on one line, once a
    tile, were once counted as the PTX's 32). Every request one wavefront. The sites are at
    the lines of the Python file, inside the string."""
    path = CORPUS / "matrixmul_tiled.py"
    (kernel,) = analyze_json(path)["results"]
    assert kernel["kernel"] == "MatrixMulKernel"
    assert kernel["grid"] == [2, 2, 1] and kernel["block"] == [2, 2, 1]
    assert totals(kernel) == (24, 24, 16, 16)
    assert any("ptxas merged 4 ld.shared.f32 into 2 LDS.64" in n
               for n in kernel["compiler_notes"])
    lines = path.read_text().splitlines()
    for site in kernel["sites"]:
        text = lines[site["line"] - 1]
        assert ("Csub += As[ty][k] * Bs[k][tx];" in text) == (site["op"] == "load"), text


def test_pycudas_transpose_asks_for_its_launch_then_counts_the_padding(nvcc):
    """The transpose example compiles two modules with a kernel `transpose` each: they are
    `transpose@26` and `transpose@69`, by their SourceModule's line (the later one was once
    analyzed silently). It launches through a Record and `prepared_call`, which a reader
    cannot follow: the launch is asked for. Given 16 x 16 blocks, BLOCK_SIZE is 16 (`%
    {"block_size": 16}`), A_shared[16][17]: a warp (2 rows of 16 lanes) meets one bank twice
    (row 1 starts at word 17, its 16th lane at word 32), so every access is 2 wavefronts: 16
    blocks x 8 warps = 128 requests each way, 256 wavefronts."""
    path = CORPUS / "matrix_transpose.py"
    done = subprocess.run([sys.executable, "-m", "smemsim", "analyze", str(path),
                           "--frontend", "ptx"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert "kernel 'transpose@26': the program never launches it: give its launch with " \
           "--launch-grid and --launch-block" in done.stderr
    (kernel,) = analyze_json(path, "--kernel", "transpose@26", "--launch-grid", "4,4",
                             "--launch-block", "16,16", "-p", "a_width=64",
                             "-p", "a_height=64")["results"]
    assert totals(kernel) == (128, 256, 128, 256)
    assert {p for p in kernel["params"]} == {"a_width", "a_height"}


# the program (three lines of comment, then the code): its lines below are the file's
CUPY_PROGRAM = (pathlib.Path(__file__).parent / "data" / "cupy_scale.py").read_text()


def test_a_cupy_program_is_read_not_run_and_counted_at_its_lines(nvcc, tmp_path):
    """An f-string source in a RawModule, fetched with get_function, launched with cupy's
    (grid, block, args): 8 blocks of 128 threads (4 warps). Stores: tile[tid], 32 requests, 1
    wavefront each. Loads where i < n, which every warp has a lane of (the last block's warp
    3 starts at 992): tile[127 - tid], 1 wavefront a warp, and tile[(2 tid) % 128], a warp's
    32 lanes on 64 words, two to a bank: 2 wavefronts, but for that last warp, whose 8 live
    lanes read words 64, 66, ..., 78: 1. 64 requests, 32 + 31 x 2 + 1 = 95 wavefronts. The
    arrays are 1,000 floats (cp.arange), n and k the numbers passed."""
    app = tmp_path / "app.py"
    app.write_text(CUPY_PROGRAM)
    (kernel,) = analyze_json(app, cwd=tmp_path)["results"]
    assert not (tmp_path / "RAN").exists()
    assert kernel["kernel"] == "scale"
    assert kernel["params"] == {"n": 1000, "k": 2.0}
    assert totals(kernel) == (64, 95, 32, 32)
    lines = {s["line"] for s in kernel["sites"] if s["op"] == "load"}
    assert lines == {18}                        # the load line of the file, in the f-string
    assert {s["line"] for s in kernel["sites"] if s["op"] == "store"} == {15}


def test_a_source_made_in_a_loop_is_named_as_computed_at_run_time(nvcc, tmp_path):
    """convolution.py (pycuda's wiki) appends its unrolled loop in a Python `for`: what the
    loop binds is unknown, so the source is, and the error says where it is compiled."""
    app = tmp_path / "app.py"
    app.write_text(CUPY_PROGRAM.replace('module = cp.RawModule(code=body)',
                                        'for i in range(2):\n    body += "//"\n'
                                        'module = cp.RawModule(code=body)'))
    done = subprocess.run([sys.executable, "-m", "smemsim", "analyze", str(app),
                           "--frontend", "ptx"], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path)
    assert done.returncode == 2
    assert "app.py:23:10:" in done.stderr and "kernel 'scale': its source is computed at run " \
           "time" in done.stderr, done.stderr
    assert not (tmp_path / "RAN").exists()


PYCUDA_OPTIONS = '''\
import numpy as np
import pycuda.driver as drv
from pycuda.compiler import SourceModule
src = """
extern "C" __global__ void twice(float *out)
{
    __shared__ float s[WIDTH];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * STRIDE) % WIDTH];
}
"""
mod = SourceModule(src, "nvcc", ["-DWIDTH=64", "-DSTRIDE=2", "-lineinfo"], False, True)
f = mod.get_function("twice")
out = np.zeros(64, dtype=np.float32)
f(drv.Out(out), block=(64, 1, 1), grid=(1, 1))
'''


def test_pycudas_positional_options_reach_nvcc(nvcc, tmp_path):
    """`SourceModule(src, "nvcc", options, keep, no_extern_c)` positionally: the -D options
    build the kernel (without them WIDTH is undefined) and no_extern_c=True leaves the
    source's own `extern "C"` unwrapped; an option nvcc is not given is named. Stride 2 over
    64 words: each warp's 32 lanes on 32 even words, two to a bank: 2 wavefronts a read."""
    app = tmp_path / "app.py"
    app.write_text(PYCUDA_OPTIONS)
    (kernel,) = analyze_json(app, cwd=tmp_path)["results"]
    assert totals(kernel) == (2, 4, 2, 2)
    assert any("not given to nvcc: -lineinfo" in n for n in kernel["compiler_notes"])

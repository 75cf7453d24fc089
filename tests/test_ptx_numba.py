"""numba.cuda kernels through numba's own PTX (smemsim.frontends.ptx.numba_frontend), and the host
reading that gives their launches (smemsim.frontends.ptx.host_python)."""
from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from smemsim.frontends.ptx import host_python as hp

CORPUS = pathlib.Path(__file__).parent / "corpus_ptx" / "numba" / "numba" / "cuda" / "tests" / \
    "doc_examples"


def scope_of(source: str) -> hp.Scope:
    scope = hp.Scope()
    scope.run(ast.parse(textwrap.dedent(source)).body)
    return scope


def test_host_values_follow_straight_line_code():
    s = scope_of("""
        import math
        import numpy as np
        from numba import cuda
        TPB = 16
        x = np.arange(16).reshape([4, 4])
        y = cuda.to_device(np.ones((23, 7), dtype=np.float32))
        z = np.zeros(5 * 7, np.int32).reshape(5, -1)
        tpb = (TPB, TPB)
        bpg = math.ceil(x.shape[0] / tpb[0]), max(3, len(x)) // 2
        n = len(np.arange(2, 11, 3))
        s = np.float32(1.5)
        if n > 1:
            TPB = 32
    """)
    assert s.names["x"] == hp.Array("int64", (4, 4))
    assert s.names["y"] == hp.Array("float32", (23, 7))
    assert s.names["z"] == hp.Array("int32", (5, 7))
    assert s.names["tpb"] == (16, 16)
    assert s.names["bpg"] == (1, 2)
    assert s.names["n"] == 3                     # 2, 5, 8
    assert s.names["s"] == hp.Scalar("float32", 1.5)
    assert s.names["TPB"] is None                # bound in a branch: not known after it


def test_host_values_refuse_what_they_do_not_know():
    s = scope_of("""
        import numpy as np
        a = np.load("x.npy")
        b = a.reshape(4, 4)
        c = np.arange(10).reshape(3, 4)
        d = 1
        for i in range(3):
            d = d * 2
        e = eval("1 + 1")
        f = 2 ** 1000
    """)
    assert [s.names[k] for k in "abcdef"] == [None] * 6


def analyze_json(path: pathlib.Path, *options: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "smemsim", "analyze", str(path), "--json",
                           *options], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def totals(kernel: dict) -> tuple:
    return kernel["load"]["requests"], kernel["load"]["wavefronts"], \
        kernel["store"]["requests"]


@pytest.fixture(scope="module")
def numba_ptx(nvcc):
    pytest.importorskip("numba.cuda")
    return nvcc


def test_reduction_doc_example_as_written(numba_ptx):
    """numba's reduction example: `array_sum[1, nelem](a)` with a = np.arange(1024), so one
    block of 1,024 threads (32 warps). Stores: shr[tid] once a warp (32), then the tree's
    `shr[tid] += shr[tid + s]` for s = 1..512 by the warps with an active thread: 32 warps
    for s <= 16 (5 steps), then 16, 8, 4, 2, 1: 191; loads: those 191 twice, plus shr[0]
    read by thread 0: 383; no bank conflicts (the active lanes' words are 2s apart)."""
    out = analyze_json(CORPUS / "test_reduction.py")
    (kernel,) = out["results"]
    assert kernel["kernel"] == "array_sum"
    assert totals(kernel) == (383, 383, 223)
    lines = sorted({s["line"] for s in kernel["sites"]})
    assert lines == [50, 60, 66]                     # lines of the Python file


def test_matmul_doc_example_as_written(numba_ptx):
    """fast_matmul at its first launch: x = arange(16).reshape(4, 4) (int64), 16x16 blocks,
    grid ceil(4/16) = 1, so one pass of the tile loop over 8 warps. Stores: sA and sB zeroed
    (8 + 8), loaded where ty < 4 and tx < 4 (warps 0-1: 2 + 2) = 20. Loads: the 16-step
    dot product, sB[j, tx] 16 x 8 warps = 128, sA[ty, j] merged by ptxas into 4 LDS.128 a
    warp = 32: 160 requests."""
    out = analyze_json(CORPUS / "test_matmul.py", "--kernel", "fast_matmul")
    (kernel,) = out["results"]
    assert totals(kernel)[0] == 160 and totals(kernel)[2] == 20
    assert any("ptxas merged 16 ld.shared.f32 into 4 LDS.128" in n
               for n in kernel["compiler_notes"])


KERNEL = """\
from numba import cuda, float32
import numpy as np
import pathlib
pathlib.Path("RAN").write_text("the file was run")
N = 128

@cuda.jit
def column(a, out, k):
    tile = cuda.shared.array(shape=(N, 32), dtype=float32)
    t = cuda.threadIdx.x
    tile[t, 0] = a[t] * k
    cuda.syncthreads()
    out[t] = tile[0, t % 32]

def main(size):
    a = cuda.to_device(np.ones(size, dtype=np.float32))
    out = cuda.device_array(size, dtype=np.float32)
    column[1, N](a, out, np.float32(2.0))
"""


def test_a_numba_file_is_read_never_run_and_asks_for_run_time_values(numba_ptx, tmp_path):
    f = tmp_path / "col.py"
    f.write_text(KERNEL)
    done = subprocess.run([sys.executable, "-m", "smemsim", "analyze", str(f)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 2
    assert "its argument a is a, which the file computes at run time" in done.stderr
    assert "--host 'a=DTYPE[D0,D1,...]'" in done.stderr
    assert not (tmp_path / "RAN").exists()
    # given: 128 threads store tile[t, 0]: rows of 32 words, so every lane hits bank 0
    # (32-way: 32 wavefronts a request, 4 warps); the load tile[0, t % 32] is conflict-free
    out = analyze_json(f, "--host", "a=float32[128]", "--host", "out=float32[128]")
    (kernel,) = out["results"]
    assert totals(kernel) == (4, 4, 4)
    assert kernel["store"]["wavefronts"] == 4 * 32
    assert not (tmp_path / "RAN").exists()


def test_a_name_the_file_computes_at_run_time_is_asked_for(numba_ptx, tmp_path):
    f = tmp_path / "free.py"
    f.write_text(KERNEL.replace("N = 128", "N = int(input())"))
    done = subprocess.run([sys.executable, "-m", "smemsim", "analyze", str(f), "--host",
                           "a=float32[128]", "--host", "out=float32[128]",
                           "--launch-grid", "1", "--launch-block", "128"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert "reads N, which the file computes at run time: give its value with --host N=" \
        in done.stderr
    out = analyze_json(f, "--host", "a=float32[128]", "--host", "out=float32[128]",
                       "--host", "N=128", "--launch-grid", "1", "--launch-block", "128")
    assert totals(out["results"][0]) == (4, 4, 4)


# numba's docs' fast_matmul as numba/cuda/tests/doc_examples/test_matmul.py has it (BSD-2-Clause,
# its guarded loads), with the early return of the docs' older version (`if x >= C.shape[0] and
# y >= C.shape[1]: return`), launched at 256 x 256 on 16 x 16 blocks
FAST_MATMUL = """\
import numpy as np
from numba import cuda, float32

TPB = 16

@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    if x >= C.shape[0] and y >= C.shape[1]:
        return
    tmp = 0.
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp

n = 256
A = np.ones((n, n), dtype=np.float32)
B = np.ones((n, n), dtype=np.float32)
C = np.zeros((n, n), dtype=np.float32)
fast_matmul[(n // TPB, n // TPB), (TPB, TPB)](A, B, C)
"""


def test_numbas_grid_indices_are_affine_so_check_stands_at_the_grid_ends(numba_ptx, tmp_path):
    """numba wraps every index for Python's negative ones (`i + ((i >> 63) & shape)`);
    cuda.grid's indices are never negative within CUDA's limits, so the wrap is 0
    (smemsim.frontends.ptx.decided) and the index the affine function of the block it is.
    check's other run then takes the grid's ends: 9 of the 256 blocks (the early return's
    `x >= n and y >= n` is a union of two boxes, the whole grid here) where it walked all."""
    f = tmp_path / "mm.py"
    f.write_text(FAST_MATMUL)
    done = subprocess.run([sys.executable, "-m", "smemsim", "check", str(f), "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["results"]
    assert result["clean"] and result["blocks_total"] == 256
    assert result["runs"] == [
        {"what": "shared accesses, one block of each class", "blocks": 1},
        {"what": "global accesses and bounds, at the grid's ends", "blocks": 9}]


def test_import_writes_a_numba_kernels_build_as_a_kernels_file(numba_ptx, tmp_path):
    """`smemsim import` of a numba program built its file with nvcc as if it were CUDA
    ("identifier from is undefined"); it now writes numba's build, which analyzes as the
    program does (the column kernel above: 4 stores of 32 wavefronts), and runs nothing of
    the program."""
    f = tmp_path / "col.py"
    f.write_text(KERNEL)
    out = tmp_path / "col_ir.py"
    hosts = ["--host", "a=float32[128]", "--host", "out=float32[128]"]
    done = subprocess.run([sys.executable, "-m", "smemsim", "import", str(f), *hosts, "-o",
                           str(out)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("# Kernels read from numba's build of col.py")
    (kernel,) = analyze_json(out, "--kernel", "column")["results"]
    assert kernel["store"]["wavefronts"] == 4 * 32
    assert not (tmp_path / "RAN").exists()

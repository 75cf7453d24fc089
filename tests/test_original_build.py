"""The user's own nvcc build: kernels read from it (smemsim.frontends.ptx) against counts derived by
hand and, on the GPU, ncu's counters of the same file built -O3; the validation harness
tools/gpu_original.py writes; NVRTC's build of a kernels file (`--as-compiled`), cached.
The nvcc tests are skipped, with the reason, where the toolkit is not installed."""
from __future__ import annotations

import json
import pathlib
import subprocess

import numpy as np
import pytest

from gpu_backend.compile import ToolMissing, find_tool
from smemsim.frontends.ptx.symbols import demangle
from tests.test_cli import cli, cli_streams

ROOT = pathlib.Path(__file__).resolve().parent


@pytest.fixture
def nvcc():
    """nvcc and nvdisasm, or a skip saying what is missing."""
    try:
        return find_tool("nvcc"), find_tool("nvdisasm")
    except ToolMissing as err:
        pytest.skip(f"the user's own build needs the CUDA toolkit's nvcc: {err}")


@pytest.fixture
def no_cache(monkeypatch):
    """Every build made afresh (the cache's own test turns it back on)."""
    monkeypatch.setenv("SMEMSIM_CACHE", "")


def test_demangle_reads_kernel_names_and_template_arguments():
    assert demangle("_Z18sgemm2DBlocktilingILi128ELi128ELi8ELi8ELi8EEviiifPKfS1_fPf") == (
        "sgemm2DBlocktiling", (("i32", 128),) * 2 + (("i32", 8),) * 3)
    assert demangle("_Z6kerneli") == ("kernel", None)
    assert demangle("reduce_sum") == ("reduce_sum", None)  # extern "C"
    assert demangle("_ZN2ns1kIfLj4ELin3EEEvPf") == ("k", (("type", "f32"), ("u32", 4),
                                                          ("i32", -3)))
    assert demangle("_Z1kI6__halfEvPS0_") == ("k", (("type", "f16"),))
    assert demangle("$x") is None


def test_flags_that_change_what_is_built_are_refused():
    from kernels_ir import KernelError
    from smemsim.frontends.ptx.build import check_flags
    assert check_flags(["-use_fast_math", "-maxrregcount=64", "-include", "cstdint"]) == (
        "-use_fast_math", "-maxrregcount=64", "-include", "cstdint")
    for bad in ("-o", "-arch=sm_80", "--gpu-architecture=sm_80", "-gencode=arch=compute_80",
                "-E", "-ptx", "-MF"):
        with pytest.raises(KernelError, match="smemsim chooses this itself"):
            check_flags([bad])


def test_nvcc_flags_are_only_for_a_cuda_file():
    code, out = cli("analyze", "transpose", "--nvcc-flag=-use_fast_math")
    assert code == 2 and "--nvcc-flag: only for a CUDA file" in out


TRANSPOSE_CU = ROOT.parent / "examples" / "transpose.cu"


@pytest.mark.parametrize("pad, smem", [("0", 32 * 32 * 4), ("1", 32 * 33 * 4)])
def test_compile_of_a_cu_reports_its_own_builds_resources(nvcc, tmp_path, pad, smem):
    """`compile FILE.cu` gives ptxas's report of the very build the kernel was read from:
    the tile's static shared memory (32 x (32 + PAD) floats, as the driver reports it, no
    1 KiB reservation), one barrier, and the registers nvcc's own -cubin build of the file
    allocates (its `ptxas -v`); `--regs compile` counts warps per SM with them."""
    import re
    code, out = cli("compile", str(TRANSPOSE_CU), "-D", f"PAD={pad}", "-p", "n=64", "--json")
    assert code == 0, out
    doc = json.loads(out)["results"][0]
    log = subprocess.run([nvcc[0], "-cubin", "-arch=sm_90", f"-DPAD={pad}", "-Xptxas", "-v",
                          "-o", str(tmp_path / "t.cubin"), str(TRANSPOSE_CU)],
                         capture_output=True, text=True).stderr
    used = int(re.search(r"Used (\d+) registers", log).group(1))
    assert (doc["registers"], doc["static_smem"], doc["barriers"]) == (used, smem, 1)
    assert (doc["stack_bytes"], doc["spill_store_bytes"]) == (0, 0)
    assert doc["symbol"] == "_Z9transposePKfPfi"
    code, out = cli("occupancy", str(TRANSPOSE_CU), "-D", f"PAD={pad}", "-p", "n=64",
                    "--regs", "compile", "--json")
    assert code == 0, out
    assert json.loads(out)["results"][0]["registers_per_thread"] == used


def test_each_function_keeps_its_own_resources():
    """cuobjdump lists every function of a cubin in turn: a kernel's registers are those on
    its own line (shfl_scan.cu's uniform_add has 10, the last function listed 32)."""
    from gpu_backend.compile import parse_resources
    text = """
Resource usage:
 Common:
  GLOBAL:0
 Function _Z11uniform_addPiS_i:
  REG:10 STACK:0 SHARED:1040 LOCAL:0 CONSTANT[0]:548 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _Z18shfl_intimage_rowsPK5uint4PS_:
  REG:32 STACK:0 SHARED:1536 LOCAL:0 CONSTANT[0]:544 TEXTURE:0 SURFACE:0 SAMPLER:0
"""
    got = parse_resources(text)
    assert got["_Z11uniform_addPiS_i"]["REG"] == 10
    assert got["_Z11uniform_addPiS_i"]["SHARED"] == 1040
    assert got["_Z18shfl_intimage_rowsPK5uint4PS_"]["REG"] == 32


def _fake_ncu(monkeypatch, values: dict):
    """gpu_backend.measure against a stand-in ncu that knows every metric and prints
    `values` (metric -> text) for the profiled launch."""
    import types

    import gpu_backend.measure as measure
    monkeypatch.setattr(measure.shutil, "which", lambda name: "/fake/ncu")
    monkeypatch.setattr(measure, "_KNOWN", {})
    names = [n for v in measure.METRICS.values() for n in ((v,) if isinstance(v, str) else v)]

    def run(cmd, **kw):
        if "--query-metrics" in cmd:
            return types.SimpleNamespace(stdout="\n".join(n.rsplit(".", 1)[0] + " x"
                                                          for n in names), stderr="")
        rows = ['"Kernel Name","Metric Name","Metric Value"'] + [
            f'"k","{n}","{values.get(n, "7")}"' for n in cmd[cmd.index("--metrics") + 1]
            .split(",")]
        return types.SimpleNamespace(stdout="\n".join(rows), stderr="", returncode=0)
    monkeypatch.setattr(measure.subprocess, "run", run)
    return measure


def test_a_counter_ncu_could_not_collect_is_unmeasured_or_an_error(monkeypatch):
    """Rodinia's srad_cuda_2 got "nan" and "n/a" from ncu for counters: an optional counter
    is then unmeasured (None), a required one a MeasureError naming it, never a
    ValueError."""
    measure = _fake_ncu(monkeypatch, {
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": "nan",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum": "n/a",
        "launch__registers_per_thread": "32"})
    m = measure.measure_command(["./a.out"], "k")
    assert m.atom_wavefronts is None and m.misc_wavefronts is None
    assert m.registers == 32 and m.load_requests == 7
    measure = _fake_ncu(monkeypatch, {"smsp__sass_inst_executed_op_shared_ld.sum": "nan"})
    with pytest.raises(measure.MeasureError, match="no value \\(nan\\) for smsp__sass_inst"):
        measure.measure_command(["./a.out"], "k")


def test_codegen_of_a_file_is_one_file_nvcc_compiles(tmp_path, nvcc):
    """examples/histogram.py has three kernels, two named `histogram`: codegen names them
    by their keys (histogram_uniform, histogram_text), and nvcc compiles the output."""
    code, out, _ = cli_streams("codegen", str(ROOT.parent / "examples" / "histogram.py"),
                               width=200)
    assert code == 0
    names = [line.split("void ")[1].split("(")[0] for line in out.splitlines()
             if "__global__" in line]
    assert names == ["histogram_uniform", "histogram_text", "histogram_weighted"]
    cu = tmp_path / "all.cu"
    cu.write_text(out)
    subprocess.run([nvcc[0], "-cubin", "-arch=sm_90", "-o", str(tmp_path / "a.cubin"),
                    str(cu)], check=True, capture_output=True)


def test_a_warm_as_compiled_run_imports_no_cuda_python(tmp_path, monkeypatch):
    """NVRTC's build of a kernels file is kept as data ($SMEMSIM_CACHE/compiled: cubin,
    resources and SASS); a second run imports no cuda-python and starts no tool (#28: it
    imported cuda.core and ran the disassembler twice); a damaged entry is built again."""
    import sys

    from tests.conftest import require_nvrtc
    require_nvrtc()
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path))
    argv = ["analyze", "transpose", "--kernel", "naive", "--as-compiled", "--json"]
    first = cli(*argv)
    probe = ("import sys; sys.argv = ['smemsim'] + %r\nfrom smemsim.cli import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('CUDA', sorted(m for m in sys.modules if m.split('.')[0] == 'cuda'))"
             % argv)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT.parent)
    assert done.stdout.strip().endswith("CUDA []"), done.stdout[-300:] + done.stderr[-300:]
    for entry in (tmp_path / "compiled").glob("*.json"):
        entry.write_text('{"cubin": "not base64!", "resources": {}, "sass": ""}')
    assert cli(*argv) == first


def test_a_header_named_through_the_toolkits_bin_folder_is_not_the_users():
    """nvcc 13 names its headers `.../cuda-13.0/bin/../targets/x86_64-linux/include/...`:
    atomicAdd(float*) on shared memory (a CAS loop inlined from sm_20_atomic_functions.hpp)
    belongs to the user's line that called it, not to the header (it was "no shared
    instruction" there and 8 LDS + 8 ATOMS "belonging to no site" on llm.c's
    matmul_backward_bias kernel 7)."""
    from gpu_backend.compile import _innermost_user_lines
    sass = "\n".join([
        '\t//## File "/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/'
        'sm_20_atomic_functions.hpp", line 84 inlined at "/tmp/at/a.cu", line 6',
        '\t//## File "/tmp/at/a.cu", line 6',
        '        /*00d0*/                   LDS R6, [R4] ;'])
    assert _innermost_user_lines(sass).splitlines()[0] == '\t//## File "/tmp/at/a.cu", line 6'


ATOMIC_FLOAT = """
__global__ void k(float* out, const float* in) {
    extern __shared__ float shared[];
    shared[threadIdx.x] = 0.0f;
    __syncthreads();
    for (int k = 0; k < 8; k++) {
        atomicAdd(shared + threadIdx.x + (k * 32), in[k * 32 + threadIdx.x]);
    }
    __syncthreads();
    out[threadIdx.x] = shared[threadIdx.x];
}
void host(float* out, const float* in) { k<<<1, 32, 1024>>>(out, in); }
"""


REDUCE_HEADER = """
template <int WARPS>
__device__ float block_sum(float v) {
    __shared__ float partial[WARPS];
    if (threadIdx.x % 32 == 0) { partial[threadIdx.x / 32] = v; }
    __syncthreads();
    return threadIdx.x < WARPS ? partial[threadIdx.x] : 0.0f;
}
"""

REDUCE_KERNEL = """#include "reduce.h"
__global__ void total(float* out) {
    out[threadIdx.x] = block_sum<32>((float)threadIdx.x);
}
void host(float* out) { total<<<1, 1024>>>(out); }
"""


def test_a_kernels_file_keeps_the_header_lines_its_sites_come_from(tmp_path, nvcc, no_cache):
    """A site inlined from a template in the user's header keeps the header's line in the
    kernels file `import` writes (`# reduce.h:5 via total.cu:3`: the build's `.loc` and its
    inlined_at chain), so the written kernel's sites are at the header's lines: llm.c's
    blockReduce (common.h) once matched no instruction of the build this way (0 of 4,096
    loads and stores predicted for fused_classifier_kernel5; ncu measured them)."""
    from smemsim import analyze
    from smemsim.frontends.loader import load_kernels
    from smemsim.frontends.ptx.frontend import write_kernels_file
    (tmp_path / "reduce.h").write_text(REDUCE_HEADER)
    cu = tmp_path / "total.cu"
    cu.write_text(REDUCE_KERNEL)
    text, keys = write_kernels_file(str(cu), None, "total", str(tmp_path))
    assert "# reduce.h:5 via total.cu:3" in text, text
    written = tmp_path / "total_kernels.py"
    written.write_text(text)
    kernel = load_kernels(str(written))["total"]()
    report = analyze(kernel)
    lines = {(pathlib.Path(s.loc.file).name, s.loc.line) for s in report.sites}
    assert lines == {("reduce.h", 5), ("reduce.h", 7)}
    assert {s.loc.calls for s in kernel.sites()} == {((str(cu), 3),)}
    assert report.uncounted == 0
    assert (report.load.requests, report.store.requests) == (1, 32), report.compiler



REMAINDERS = ROOT / "cuda" / "loop_remainders.cu"
# per kernel of loop_remainders.cu: (load instructions, load wavefronts) of nvcc's build
def _wide(n: int) -> int:
    """LDS.128 of a loop of n iterations from s[1]: one per four."""
    return n // 4


def _narrow(n: int) -> int:
    """LDS of a loop of n iterations from s[1]: one per block (16 iterations, then at
    most one block of 8 and one of 4), and one per iteration left past the fours."""
    fours = n // 4
    return fours // 4 + bin(fours % 4).count("1") + n % 4


REMAINDER_COUNTS = {
    # block b sums s[0..b]: floor((b+1)/4) LDS.128 (a broadcast: 2 wavefronts) and
    # (b+1) mod 4 LDS, for 8 warps: 8 x (8,128 + 384) and 8 x (2 x 8,128 + 384)
    "tail_sum": (68_096, 133_120),
    # the first t2i loop runs t+1 times in block (t, h) (the other never runs at T = 256):
    # ceil((t+1)/4) LDS.128, 8 warps, 24 heads: 8 x 24 x 8,320, 2 wavefronts each
    "softmax_autoregressive_backward_kernel6<256>": (1_597_440, 3_194_880),
    # two loads on one line, each four iterations per LDS.128 (k loop of 128 in 32 groups),
    # 8 warps, 256 blocks: a[tx % 8][k..k+3] puts 8 rows 512 bytes apart in each quarter
    # warp (no pair or quad of lanes on one address: 4 quarters of 8 wavefronts);
    # b[tx / 8][k..k+3] has lanes 8 apart on one address (merged: 2 halves of 2 rows)
    "row_dot": (256 * 8 * 32 * 2, 256 * 8 * 32 * (32 + 4)),
    # the j loop of 64: row[w][j..j+3] one LDS.128 per 4 iterations (one address for the
    # warp: 2 wavefronts), col[j][lane] one LDS each (1 wavefront); 8 warps, 256 blocks
    "row_times_column": (256 * 8 * (16 + 64), 256 * 8 * (16 * 2 + 64)),
    # block b: b iterations from s[1]; their multiple of 4 in blocks of 16, 8, 4 (each
    # 4 iterations one LDS.128, a broadcast of 2 wavefronts, and the block one LDS), the
    # rest one LDS each; 8 warps
    "tail_sum_from_one": (sum(8 * (_wide(b) + _narrow(b)) for b in range(256)),
                          sum(8 * (2 * _wide(b) + _narrow(b)) for b in range(256))),
}


# What llm.c's common.h declares from cuBLAS for its host code (setup_main, cublasCheck):
# a stand-in with those names only, so that nvcc builds the file without the library's
# headers (its kernels use none of it; CI has no cuBLAS)
CUBLAS_STANDIN = {
    "cublas_v2.h": """typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0 };
typedef void *cublasHandle_t;
typedef int cublasComputeType_t;
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 };
typedef int cublasMath_t;
enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
inline cublasStatus_t cublasCreate(cublasHandle_t *) { return 0; }
inline cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) { return 0; }
""",
    "cublasLt.h": """typedef void *cublasLtHandle_t;
inline int cublasLtCreate(cublasLtHandle_t *) { return 0; }
"""}


C_IDIOMS = ROOT / "cuda" / "c_idioms.cu"


def _idiom_inputs(key: str) -> dict:
    """The global arrays c_idioms.cu's main() writes before launching `key` (64 blocks of
    64 threads): the analysis gets the same launch the GPU runs."""
    n = 64 * 64
    t = np.arange(n)
    if key == "edge_sums":
        nodes = np.stack([8 * t, (t // 32) % 5], axis=1).astype(np.int32).ravel()
        return {"nodes": nodes, "edges": (np.arange(8 * n) % 8 + 1).astype(np.int32),
                "out": np.zeros(n, np.int32)}
    if key == "branch_pointers":
        return {"all": ((t // 64) % 8 + 1).astype(np.float32), "out": np.zeros(n, np.float32)}
    j = np.arange(2 * n)
    data = np.stack([(j // 64) % 8 + 1, np.ones(2 * n)], axis=1).astype(np.float32).ravel()
    return {"data": data, "out": np.zeros(n, np.float32)}


# per kernel of c_idioms.cu: (load instructions, load wavefronts) of nvcc's build, by hand.
# A warp reading s[l * m % 64] (floats, lane l) costs 1 wavefront for odd m and 2 for
# m = 2, 4, 6, 8 (two distinct words in each bank it uses).
# edge_sums: warp W (of 128) runs W % 5 iterations (its node's no_of_edges), iteration j
# with m = edges[8t + j] = j + 1: 0, 1, 3, 4 or 6 wavefronts a warp, 25 warps each and
# warps 125-127 with 0, 1, 2 iterations: 253 loads, 25 x 14 + 4 = 354 wavefronts.
# branch_pointers: data[0] is block b's value (b mod 32) % 8 + 1 whichever branch set it
# (all + 64 b, or other = all + 64 (b - 32)): m = 1..8 for 8 blocks of 2 warps each.
# pairs: v[0].x = ((128 b + l) // 64) % 8 + 1 = 2b % 8 + 1, odd: one wavefront a warp (a
# pointer moved by 64 float2, or 128 floats, would give m = b % 8 + 1: 192).
C_IDIOM_COUNTS = {
    "edge_sums": (253, 354),
    "branch_pointers": (128, 16 * (1 + 2 + 1 + 2 + 1 + 2 + 1 + 2)),
    "pairs": (128, 128),
}


def test_c_idioms_count_by_hand(nvcc, no_cache):
    """c_idioms.cu's kernels, as nvcc builds them, with the inputs its main() writes: the
    counts derived by hand (C_IDIOM_COUNTS) hold only where the struct array's fields, the
    loop bound read from memory, the branch-assigned pointers and the moved float2 pointer
    are read as C reads them."""
    from smemsim import analyze
    from tests.built import import_kernels
    for key, counts in C_IDIOM_COUNTS.items():
        kernel = import_kernels(str(C_IDIOMS), None)[key]()
        arrays = {name: np.ascontiguousarray(a).view(np.uint8)
                  for name, a in _idiom_inputs(key).items()}
        r = analyze(kernel, arrays=arrays)
        assert (r.load.requests, r.load.wavefronts) == counts, key


def _equal_ncu(tmp_path, cu: pathlib.Path, keys, inputs=None) -> None:
    """ncu's counters of nvcc's -O3 build of `cu` (its own main) for each kernel `keys`
    names equal the counts of the kernel read from that build (load instructions exactly,
    wavefronts not below them), given the inputs main() writes where `inputs(key)` says
    them (typed arrays go in as their bytes)."""
    import numpy as np

    from gpu_backend.measure import compare_counts, measure_command
    from smemsim import analyze
    from tests.built import import_kernels
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    exe = tmp_path / cu.stem
    subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-lineinfo", "-o", str(exe), str(cu)],
                   check=True, capture_output=True)
    for key in keys:
        kernel = import_kernels(str(cu), None)[key]()
        given = inputs(key) if inputs is not None else None
        arrays = {name: np.ascontiguousarray(a).view(np.uint8)
                  for name, a in (given or {}).items()} if given else None
        report = analyze(kernel, arrays=arrays)
        agreement = compare_counts(report, measure_command([str(exe)], kernel.name))
        assert agreement.ok, (key, agreement.checks)


@pytest.mark.gpu
def test_c_idioms_equal_ncu(tmp_path, nvcc):
    """On the GPU: ncu's counters of c_idioms.cu as its own main() launches it equal the
    --as-compiled prediction with the same inputs."""
    _equal_ncu(tmp_path, C_IDIOMS, C_IDIOM_COUNTS, _idiom_inputs)


@pytest.mark.gpu
def test_loop_remainders_equal_ncu(tmp_path, nvcc):
    """On the GPU: ncu's load instructions of nvcc's -O3 build of loop_remainders.cu equal
    the --as-compiled prediction exactly, wavefronts not below it."""
    _equal_ncu(tmp_path, REMAINDERS, REMAINDER_COUNTS)


def test_the_validation_harness_launches_a_grid_sync_kernel_cooperatively(tmp_path, nvcc):
    """tools/gpu_original.py's harness for a kernel with grid.sync(): the arguments held in
    locals, cudaLaunchCooperativeKernel given their addresses (a `<<<...>>>` launch would
    leave grid.sync() undefined); nvcc compiles it."""
    from kernels_ir import resolve_launch
    from smemsim.frontends.cuda import Options
    from tests.built import import_kernels
    from tools.gpu_original import harness
    cu = pathlib.Path(__file__).resolve().parent / "cuda" / "grid_sync.cu"
    kernel = import_kernels(str(cu), Options())["sumAll"]()
    text = harness(cu, "sumAll", kernel, resolve_launch(kernel), tmp_path, rename_main=True)
    assert "void* args[] = {&arg0, &arg1, &arg2, &arg3};" in text
    assert "cudaLaunchCooperativeKernel((void*)sumAll, dim3(64, 1, 1), dim3(128, 1, 1), " \
           "args, 0, 0);" in text and "<<<" not in text
    src = tmp_path / "harness.cu"
    src.write_text(text)
    done = subprocess.run([nvcc[0], "-arch=sm_90", "-c", "-o", str(tmp_path / "h.o"), str(src)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_validation_harness_makes_texture_objects_and_guarded_arrays(tmp_path, nvcc):
    """tools/gpu_original.py's harness for a kernel with a cudaTextureObject_t parameter
    (dct8x8's CUDAkernel1DCT form: tex2D into a shared tile): the texture object made over a
    cudaArray of the --texture extent, the global arrays with zeroed margins on both sides;
    nvcc compiles it."""
    from kernels_ir import resolve_launch
    from smemsim.frontends.cuda import Options
    from tests.built import import_kernels
    from tools.gpu_original import GUARD, harness
    cu = tmp_path / "tile.cu"
    cu.write_text("""#include <cuda_runtime.h>
__global__ void tile(float* dst, int width, cudaTextureObject_t src)
{
    __shared__ float t[8][8];
    int x = blockIdx.x * 8 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    t[threadIdx.y][threadIdx.x] = tex2D<float>(src, x + 0.5f, y + 0.5f);
    __syncthreads();
    dst[y * width + x] = t[threadIdx.x][threadIdx.y];
}
""")
    options = Options(grid="4, 2", block="8, 8", params={"width": 32},
                      lengths={"dst": "32 * 16"}, textures={"src": "32, 16"})
    kernel = import_kernels(str(cu), options)["tile"]()
    text = harness(cu, "tile", kernel, resolve_launch(kernel), tmp_path, options=options)
    assert "cudaMallocArray(&src_a, &src_f, 32, 16);" in text
    assert f"dst_d = (unsigned char*)((char*)dst_d + {GUARD});" in text   # (its bytes)
    assert "tile<<<dim3(4, 2, 1), dim3(8, 8, 1), 0>>>(SmemsimPtr{dst_d}, 32, src_t);" in text
    src = tmp_path / "harness.cu"
    src.write_text(text)
    done = subprocess.run([nvcc[0], "-arch=sm_90", "-c", "-o", str(tmp_path / "h.o"),
                           str(src)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


PROMOTED = ROOT / "cuda" / "register_promoted.cu"
LUD = ROOT / "corpus" / "rodinia" / "lud_kernel.cu"


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 12, 13])
def test_an_element_kept_in_a_register_is_loaded_once_per_part_of_the_loop(n, nvcc):
    """register_promoted.cu's `forwarded`: `s[tx][k] -= s[tx][j] * s[j][k]` over a run-time
    n. nvcc keeps s[tx][k] in a register and stores it every iteration; it runs the whole
    groups of 4 iterations, then the n mod 4 left, and loads the element once before each
    part that runs: [n >= 4] + [n mod 4 != 0] loads, not n. The two other loads and the store
    stay one an iteration; the 32 loads of the copy-out and the 32 stores of the copy-in are
    the kernel's others (one warp), read from nvcc's build."""
    from smemsim import analyze
    from tests.built import import_kernels
    kernel = import_kernels(str(PROMOTED), None)["forwarded"]()
    r = analyze(kernel, {"n": n, "k": 20})
    element = (n >= 4) + (n % 4 != 0)
    assert (r.load.requests, r.store.requests) == (2 * n + element + 32, n + 32)


@pytest.mark.gpu
def test_register_promoted_elements_equal_ncu(tmp_path, nvcc):
    """On the GPU: ncu's counters of register_promoted.cu's own build (zeros, main's
    launches) equal the --as-compiled prediction."""
    zeros = {"forwarded": {"m": np.zeros(32 * 32, np.float32)},
             "sunk": {"in": np.zeros(256, np.int32)}}
    _equal_ncu(tmp_path, PROMOTED, ("forwarded", "sunk"), zeros.get)




def test_static_shared_memory_is_read_where_the_build_has_a_stack():
    """ptxas -v of a kernel that calls printf (R100001's PMPP stencil, 32x32 floats of
    shared memory) puts its stack between the barriers and the shared bytes: `Used 38
    registers, used 1 barriers, 8 bytes cumulative stack size, 4096 bytes smem`. The
    occupancy of that build was computed with 0 B of static shared memory (45 blocks an SM
    by shared memory, not 228)."""
    from smemsim.frontends.ptx.sass import _resources
    log = """ptxas info    : 4 bytes gmem
ptxas info    : Compiling entry function '_Z7stencilPfS_iii' for 'sm_90'
ptxas info    : Function properties for _Z7stencilPfS_iii
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 38 registers, used 1 barriers, 8 bytes cumulative stack size, 4096 bytes smem
"""
    # (registers, static smem, stack frame, spill stores, spill loads, barriers)
    assert _resources(log)["_Z7stencilPfS_iii"] == (38, 4096, 8, 0, 0, 1)

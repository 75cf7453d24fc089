"""`smemsim import`: CUDA kernels as the seeds write them, turned into the IR; each compared
with the hand-written example it corresponds to (the same counts), and every construct the
IR cannot express refused with its .cu line."""
from __future__ import annotations

import json
import pathlib

import numpy as np

import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import resolve_launch  # noqa: E402
from smemsim import analyze  # noqa: E402
from kernels_ir import KernelError
from smemsim.frontends.cuda import Options  # noqa: E402
from smemsim.frontends.ptx.frontend import write_kernels_file  # noqa: E402
from smemsim.frontends.loader import load_kernels as _load_kernels  # noqa: E402
from tests.conftest import require_nvrtc  # noqa: E402
from tests.built import by_line, run  # noqa: E402
from tests.test_cli import cli, cli_streams  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED004 = str(ROOT / "tests" / "cuda" / "seed004.cu")
TILED = Options(defines={"TILE_SIZE": "32"}, grid="(colsB + 31) // 32, (rowsA + 31) // 32",
                block="32, 32", params={"rowsA": 256, "colsB": 256, "commonDim": 256})


def load_kernels(path, options=None):
    """A .cu through nvcc's build (tests/built.py); a kernels file as every verb loads it."""
    from smemsim.frontends.loader import is_cuda
    from tests.built import import_kernels
    if is_cuda(str(path)) and not str(path).endswith(".py"):
        return import_kernels(str(path), options)
    return _load_kernels(str(path), options)


def counts(r):
    return (r.load.requests, r.load.wavefronts, r.store.requests, r.store.wavefronts)


def imported(path, key, options=None):
    return load_kernels(path, options or Options())[key]()


def build_all(path, options=None):
    """Every kernel of a CUDA file built (what `smemsim import` does before writing)."""
    return {key: make() for key, make in load_kernels(str(path), options or Options()).items()}


def written(path, options=None, kernel=None, folder=None):
    """The kernels file `smemsim import` writes."""
    return write_kernels_file(str(path), options or Options(), kernel, folder)[0]


def test_seed004_multiply_as_written_equals_the_example():
    """The seed's defines (BLOCK_SIZE 16, MATRIX_DIM 256) and its host launch
    (dim3 Block_dim(BLOCK_SIZE, BLOCK_SIZE), ...) are read from the file. Counts as built:
    the example's (examples/matmul_double16.py) stores; its 1,048,576 loads as source
    accesses are 786,432 in the build (ptxas pairs a thread's A_shared reads: LDS.64),
    as the old reader's --as-compiled alignment of the same SASS counted too."""
    kernel = imported(SEED004, "multiply", Options(defines={"TILE_SIZE": "32"}))
    assert (kernel.grid, kernel.block) != ((), ())
    r = analyze(kernel)
    assert counts(r) == (786_432, 1_572_864, 65_536, 131_072)
    # the report points at the CUDA: A_shared[threadIdx.y][k] * B_shared[k][threadIdx.x]
    assert any(s.loc.file.endswith("tests/cuda/seed004.cu") and s.loc.line == 44
               for s in r.sites)


def test_seed004_tiled_kernel_with_its_if_else_stores():
    """The compiled kernel stores a selected value once per tile and array (the example's
    form: examples/matmul_float_tiled.py, whose stores it equals) and reads tileA[ty][i..]
    four at a time (LDS.128): 655,360 load requests where the source has 1,048,576."""
    kernel = imported(SEED004, "matrixMultiplySharedKernel", TILED)
    r = analyze(kernel)
    from examples.matmul_float_tiled import KERNELS
    assert counts(r) == (655_360, 786_432) + counts(analyze(KERNELS["tiled"]()))[2:]


def test_seed004_tiled_as_compiled_at_a_ragged_size():
    """At 100 x 100 x 100 (16 blocks of 32 warps, 4 tiles) both branches run in the edge
    tiles. As written: two store sites per tile. Compiled (no pragma on
    `for (i = 0; i < TILE_SIZE; i++)`: nvcc unrolls it, "auto"): one STS of a selected
    value per tile and array, as the example states it, and tileA[ty][i..i+3] read as one
    LDS.128 (one row per warp: broadcast, 2 wavefronts), tileB one LDS per i: per warp and
    tile 8 + 32 requests and 8 x 2 + 32 wavefronts."""
    from examples.matmul_float_tiled import KERNELS
    size = {"rowsA": 100, "colsB": 100, "commonDim": 100}
    kernel = imported(SEED004, "matrixMultiplySharedKernel", TILED)
    example = analyze(KERNELS["tiled"](), size)
    r = analyze(kernel, size)
    assert counts(r)[2:] == counts(example)[2:] == (4096, 4096)
    assert counts(r)[:2] == (512 * 4 * 40, 512 * 4 * 48)


def test_template_parameters_and_defines_from_the_command_line(tmp_path):
    cu = tmp_path / "t.cu"
    cu.write_text("""template <typename T, int N>
__global__ void scale(T* out, const T* in)
{
    __shared__ T tile[N][N + 1];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * N + threadIdx.x];
    __syncthreads();
    #pragma unroll
    for (int s = 1; s < N; s <<= 1)
        out[threadIdx.x * N + threadIdx.y] = tile[threadIdx.x][threadIdx.y] * (T)s;
}
""")
    opts = Options(grid="1", block="32, 32", kernel="scale<float, 32>")
    text = written(cu, opts)
    assert "4224" in text   # (the shared window: 32 x 33 floats, the build's bytes)
    kernel = load_kernels(str(cu), opts)["scale<float, 32>"]()
    r = analyze(kernel)
    # the padded transpose read: conflict-free; nvcc reads it once, outside the unrolled
    # loop of s (1, 2, 4, 8, 16), whose five stores rewrite one place (the last is kept)
    assert counts(r) == (32, 32, 32, 32)
    with pytest.raises(KernelError, match=r"t\.cu has no kernel"):
        build_all(cu, Options(grid="1", block="32"))   # (no instance named or launched)


def test_an_unnamed_template_parameter_is_no_crash(tmp_path):
    """`template <typename>` names nothing: the kernel still asks for its arguments (a
    mutated corpus file found the crash)."""
    cu = tmp_path / "t.cu"
    cu.write_text("template <typename, int N> __global__ void k(float* out)\n"
                  "{\n    out[threadIdx.x] = N;\n}\n")
    with pytest.raises(KernelError, match=r"t\.cu has no kernel 'k' \(it has: none\)"):
        build_all(cu, Options(grid="1", block="32"))


def test_a_kernel_with_no_launch_asks_for_one(tmp_path):
    cu = tmp_path / "t.cu"
    cu.write_text("__global__ void k(float* out)\n{\n    out[threadIdx.x] = 1.0f;\n}\n")
    with pytest.raises(KernelError, match="no launch of 'k' in the file: give"):
        build_all(cu)


TORCH_STYLE = """
namespace torch { struct Tensor { long size(int) const; template <typename T> T* data_ptr(); }; }
__global__ void row_sum(const float* x, float* y, int n)
{
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int k = 0; k < 128; k++) t += s[k];
        y[blockIdx.x] = t;
    }
}

void row_sums(torch::Tensor x, torch::Tensor y)
{
    const int S = x.size(0);
    dim3 block(128), grid(S);
    row_sum<<<grid, block>>>(x.data_ptr<float>(), y.data_ptr<float>(), S * 128);
}
"""


def test_host_values_the_file_cannot_say_are_given_by_host(tmp_path):
    """A torch binding sizes its launch by `x.size(0)`: the error names the expression and
    the option; `--host 'x.size(0)=64'` gives it, and the argument computed from it (`S *
    128`) becomes the parameter's default. A --host naming an expression the file does not
    have is an error, not ignored."""
    cu = tmp_path / "t.cu"
    cu.write_text(TORCH_STYLE)
    with pytest.raises(KernelError, match=r"uses `x\.size\(0\)`: give its value "
                                              r"\(--host 'x\.size\(0\)=VALUE'\)"):
        build_all(cu, Options(lengths={"x": "8192", "y": "64"}))
    built = build_all(cu, Options(lengths={"x": "8192", "y": "64"},
                                  hosts={"x.size( 0 )": "64"}))
    (k,) = built.values()
    launch = resolve_launch(k, {})
    assert (launch.grid, launch.block, dict(k.defaults)) == ((64, 1, 1), (128, 1, 1),
                                                             {"n": 8192})
    code, out_, err = cli_streams("analyze", str(cu), "--host", "x.size(1)=64")
    assert code == 2 and "no host expression `x.size(1)`" in err


FIELDS_LAUNCH = """
__global__ void k(float *out)
{
    out[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y +
        threadIdx.y * blockDim.x + threadIdx.x] = 1.0f;
}
void h(float *out)
{
    dim3 gridDim;
    dim3 blockDim;
    blockDim.x = 128;
    blockDim.y = 4;
    gridDim.x = (4096 + (16 * blockDim.x / 32 - 1)) / (16 * blockDim.x / 32);
    gridDim.y = 3 * blockDim.z;
    k<<<gridDim, blockDim>>>(out);
}
"""


def test_a_launch_whose_dim3_fields_the_host_assigns(tmp_path):
    """`dim3 gridDim; gridDim.x = ...;` (CUDA's cudaTensorCoreGemm sample sizes its simple
    kernel this way, with host variables named like the built-ins): each field is the last
    value assigned before the launch, 1 where none is; a field reads another dim3's (its
    unassigned z: 1)."""
    cu = tmp_path / "t.cu"
    cu.write_text(FIELDS_LAUNCH)
    k = build_all(cu, Options(lengths={"out": str(64 * 3 * 512)}))["k"]
    from kernels_ir import resolve_launch
    launch = resolve_launch(k)
    assert (launch.grid, launch.block) == ((64, 3, 1), (128, 4, 1))


def test_a_launch_reads_the_fields_of_a_constructed_dim3(tmp_path):
    """`dim3 threads(B, B); dim3 grid(n / threads.x, m / threads.y);` (NVIDIA's
    globalToShmemAsyncCopy sample): a field of a dim3 made from arguments is that argument,
    1 past them."""
    cu = tmp_path / "t.cu"
    cu.write_text("""
constexpr int B = 16;
__global__ void k(float *out)
{
    out[(blockIdx.y * gridDim.x + blockIdx.x) * 256 * blockDim.z +
        threadIdx.y * blockDim.x + threadIdx.x] = 1.0f;
}
void h(float *out, int n)
{
    dim3 threads(B, B);
    dim3 grid(320 / threads.x, 64 / threads.y, threads.z);
    k<<<grid, threads>>>(out);
}
""")
    k = build_all(cu, Options(lengths={"out": str(20 * 4 * 256)}))["k"]
    from kernels_ir import resolve_launch
    launch = resolve_launch(k)
    assert (launch.grid, launch.block) == ((20, 4, 1), (16, 16, 1))


def test_auto_pointers_are_pointers(tmp_path):
    """`auto p = &a[i]`, `auto q = p + k`, `auto g = in + n` (NVIDIA's dmma sample declares
    its copy pointers so): pointers of the type they are given, read and written through as
    if declared `T *`."""
    cu = tmp_path / "t.cu"
    cu.write_text("""
__global__ void k(const float *in, float *out)
{
    __shared__ float s[256];
    auto p = &s[0];
    auto q = p + threadIdx.x;
    auto g = in + blockIdx.x * 256;
    *q = g[255 - threadIdx.x];
    __syncthreads();
    auto t = threadIdx.x + 0;
    out[blockIdx.x * 256 + t] = s[(threadIdx.x + 1) % 256];
}
void h(const float *in, float *out) { k<<<2, 256>>>(in, out); }
""")
    k = build_all(cu, Options(lengths={"in": "512", "out": "512"}))["k"]
    x = np.arange(512, dtype=np.float32)
    out = run(k, arrays={"in": x})["out"].reshape(2, 256)
    t = np.arange(256)
    np.testing.assert_array_equal(out, x.reshape(2, 256)[:, ::-1][:, (t + 1) % 256])


def test_c_style_copies_and_views_of_the_tensor_core_samples(tmp_path):
    """What CUDA's cudaTensorCoreGemm writes around its fragments: a scalar parameter
    assigned (`beta /= alpha`, the kernel's own copy), a persistent loop with no condition
    left by a break, a float pointer over a 2-D half tile (`(float *)&shmem[0][0]`), and
    int4 copies through a local typedef (`*((copy_t *)p + lane) = *((copy_t *)q + lane)`)."""
    cu = tmp_path / "t.cu"
    cu.write_text("""#include <cuda_fp16.h>
__global__ void k(const float *C, float *D, float scale, float beta, int tiles)
{
    __shared__ half shm[8][16];
    float *f = (float *)&shm[0][0];
    beta *= scale;
    for (unsigned t = blockIdx.x;; t += gridDim.x) {
        if (t >= tiles)
            break;
        typedef int4 copy_t;
        *((copy_t *)(f + 0) + threadIdx.x) = *((copy_t *)(C + t * 64) + threadIdx.x);
        __syncwarp();
        D[t * 64 + threadIdx.x] = f[threadIdx.x] * beta;
        __syncwarp();
    }
}
void h(const float *C, float *D) { k<<<2, 16>>>(C, D, 2.0f, 0.25f, 5); }
""")
    k = build_all(cu, Options(lengths={"C": "320", "D": "320"}))["k"]
    c = np.arange(320, dtype=np.float32)
    d = run(k, arrays={"C": c})["D"].reshape(5, 64)
    # each tile's first 16 floats are written, scaled by 0.5; the rest stay as made
    np.testing.assert_array_equal(d[:, :16], c.reshape(5, 64)[:, :16] * 0.5)
    site = analyze(k).sites[0]   # one STS.128 a warp a tile: 16 lanes x 16 bytes, 2 wavefronts
    assert (site.op, site.width, site.requests, site.wavefronts) == ("store", 16, 5, 10)


def test_import_command_writes_a_kernels_file_the_other_verbs_take(tmp_path):
    out = tmp_path / "seed004.py"
    # (the file's other kernel needs -D TILE_SIZE to build; ptxas reads A_shared[ty][k] and
    # [k + 1] with one LDS.128)
    code, text = cli("import", SEED004, "--kernel", "multiply", "-o", str(out), "-D",
                     "TILE_SIZE=16")
    assert code == 0 and f"wrote {out}: multiply" in text
    code, text = cli("analyze", str(out), "--json")
    lines = {(x["file"].endswith("seed004.cu"), x["line"])
             for x in json.loads(text)["results"][0]["sites"]}
    assert (True, 44) in lines
    code, text = cli("analyze", str(out))
    assert code == 0 and "loads: 786,432 requests, 1,572,864 wavefronts" in text
    code, text = cli("analyze", SEED004, "--kernel", "multiply", "--frontend", "ptx")
    assert code == 2 and 'seed004.cu:58: error: identifier "TILE_SIZE" is undefined' in text
    code, text = cli("analyze", SEED004, "--kernel", "multiply", "--frontend", "ptx", "-D",
                     "TILE_SIZE=16")
    assert code == 0 and "loads: 786,432 requests, 1,572,864 wavefronts" in text
    code, text = cli("import", SEED004, "--kernel", "multiply", "--json", "-D", "TILE_SIZE=16")
    from tests.json_schema import validate
    validate(json.loads(text))
    assert json.loads(text)["results"][0]["kernels"] == ["multiply"]
    # (no launch, and a file nvcc cannot build without -D: nvcc's error first, as a launch
    # would not mend it; then the question)
    code, out_, err = cli_streams("analyze", SEED004, "--kernel", "matrixMultiplySharedKernel")
    assert code == 2 and 'seed004.cu:58: error: identifier "TILE_SIZE" is undefined' in err
    code, out_, err = cli_streams("analyze", SEED004, "--kernel", "matrixMultiplySharedKernel",
                                  "-D", "TILE_SIZE=16")
    assert code == 2 and "seed004.cu:53:1: no launch of 'matrixMultiplySharedKernel'" in err
    # the CUDA file's options on a kernels file are an error, not ignored
    code, out_, err = cli_streams("analyze", str(out), "-D", "TILE=8", "--length", "A=64")
    assert code == 2 and "-D, --length: only for a CUDA file (.cu)" in err


def test_seed000_square_tiling_as_written_equals_the_example():
    """Seed 000's unsigned char square tiling: a do-while grid-stride loop over B's columns,
    ceil((float) A_width / TILE_SIZE) tiles, min(A_width, TILE_SIZE) and strided inner
    loops; at the example's size (TILE_SIZE 16, 8 blocks over 512 columns)."""
    from examples.reed_solomon import KERNELS
    opts = Options(defines={"TILE_SIZE": "16"}, grid="8, 1", block="16, 16",
                   params={"A_height": 16, "A_width": 16, "B_width": 512})
    kernel = imported(str(ROOT / "tests" / "cuda" / "seed000_square.cu"), "matrix_mul", opts)
    assert counts(analyze(kernel)) == counts(analyze(KERNELS["square"]()))
    assert counts(analyze(kernel)) == (8192, 8192, 512, 512)


def test_seed004_ilp2_as_written_and_as_compiled():
    """The ILP-2 kernel (`float value[2] = {0.0f}`, two rows per thread): as written it reads
    tileB[j][tx] twice per j (4 loads); the example states the compiled form, with the
    repeated read removed (3 loads: 786,432). As nvcc builds the seed (the j loop has no
    pragma: unrolled), tileA[ty][j..j+3] and tileA[ty+16][j..j+3] are LDS.128 and the second
    tileB read is gone. At 256^3 (64 blocks of 16 warps, 8 tiles): per warp and tile 8 + 8
    LDS.128 (a broadcast of one row: 2 wavefronts each) and 32 LDS (1 wavefront)."""
    from examples.matmul_float_tiled import KERNELS
    cu, key, opts = IMPORTED["imported_ilp2.py"]
    kernel = imported(str(ROOT / "tests" / "cuda" / cu), key, opts)
    example = counts(analyze(KERNELS["ilp2"]()))
    warps_tiles = 64 * 16 * 8
    assert counts(analyze(kernel)) == (warps_tiles * 48, warps_tiles * 64) + example[2:]


# the commands that made tests/cuda/imported_*.py (the GPU validation's inputs)
IMPORTED = {
    # (nvcc builds the whole file: the other kernel's TILE_SIZE is needed too)
    "imported_multiply.py": ("seed004.cu", "multiply", Options(
        defines={"TILE_SIZE": "32"}, lengths={"A_mat": "MATRIX_DIM*MATRIX_DIM",
                                            "B_mat": "MATRIX_DIM*MATRIX_DIM",
                                            "C_mat": "MATRIX_DIM*MATRIX_DIM"})),
    "imported_tiled.py": ("seed004.cu", "matrixMultiplySharedKernel", Options(
        defines={"TILE_SIZE": "32"}, grid="(colsB + 31) // 32, (rowsA + 31) // 32",
        block="32, 32", params={"rowsA": 100, "colsB": 100, "commonDim": 100},
        lengths={"matrixA": "rowsA*commonDim", "matrixB": "commonDim*colsB",
                 "matrixC": "rowsA*colsB"})),
    "imported_ilp2.py": ("seed004_ilp2.cu", "matrixMultiplySharedILPkernel", Options(
        defines={"BLOCK_SIZE": "32"}, grid="colsB // 32, rowsA // 32", block="32, 16",
        params={"rowsA": 256, "colsB": 256, "commonDim": 256},
        lengths={"matrixA": "rowsA*commonDim", "matrixB": "commonDim*colsB",
                 "matrixC": "rowsA*colsB"})),
    "imported_persistent_gemm.py": ("persistent_gemm.cu", "persistent_gemm", Options(
        params={"M": 512, "N": 512, "K": 512},
        lengths={"A": "M * K", "B": "K * N", "C": "M * N"})),
    "imported_cp_async_gemm.py": ("cp_async_gemm.cu", "cp_async_gemm", Options(
        params={"M": 512, "N": 512, "K": 512},
        lengths={"A": "M * K", "B": "K * N", "C": "M * N"})),
    "imported_ldmatrix_tile.py": ("ldmatrix_tile.cu", "ldmatrix_tile", Options(
        params={"tiles": 132},
        lengths={"src": "tiles * 4096", "frags": "tiles * 2048", "out": "tiles * 4096"})),
    "imported_square.py": ("seed000_square.cu", "matrix_mul", Options(
        defines={"TILE_SIZE": "16"}, grid="8, 1", block="16, 16",
        params={"A_height": 16, "A_width": 16, "B_width": 512},
        lengths={"A": "A_height*A_width", "B": "A_width*B_width", "C": "A_height*B_width"})),
}


@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_the_imported_fixtures_are_what_the_importer_writes(name):
    cu, key, opts = IMPORTED[name]
    folder = ROOT / "tests" / "cuda"
    assert written(folder / cu, opts, key, str(folder)) == (folder / name).read_text()


def test_seed001_with_file_scope_constants_equals_the_example():
    """Seed 001 states its sizes as `const int Nmat = 1000; const int NT = 32; const int NB
    = (Nmat + NT - 1)/NT;` and launches `glo_matmatMul<<<NB, dimThreads>>>`: constants like
    #defines (NB's / between ints as Python's //), the launch from the file."""
    from examples.int_matmul_nt32 import KERNELS
    kernel = imported(str(ROOT / "tests" / "cuda" / "seed001.cu"), "glo_matmatMul")
    from kernels_ir import resolve_launch
    # glo_matmatMul<<<NB, dimThreads>>> with NB = (1000 + 32 - 1) / 32, dim3 (NT, NT, 1)
    assert (resolve_launch(kernel).grid, resolve_launch(kernel).block) == ((32, 1, 1),
                                                                           (32, 32, 1))
    # as built: the example's stores; its loads merged by ptxas (the old reader's
    # --as-compiled of the same SASS counted these too)
    r = analyze(kernel)
    assert counts(r)[3] == counts(analyze(KERNELS["as_written"]()))[3]
    assert counts(r) == (41_943_040, 301_989_888, 2_097_152, 67_108_864)


def test_seed000_general_tiling_with_dynamic_shared_memory_equals_the_example():
    """Seed 000's generalized tiling: `extern __shared__ unsigned char sMem[]` sized at the
    launch, run-time tile shapes (tileDepth = A_width, as the example notes)."""
    from examples.reed_solomon import KERNELS
    opts = Options(grid="8, (A_height + tileWidthRow - 1) // tileWidthRow",
                   block="tileWidthCol, tileWidthRow",
                   smem="tileWidthRow * tileDepth + tileDepth * tileWidthCol",
                   params={"A_height": 8, "A_width": 16, "B_width": 512,
                           "tileWidthRow": 8, "tileWidthCol": 32, "tileDepth": 16})
    kernel = imported(str(ROOT / "tests" / "cuda" / "seed000_general.cu"), "matrix_mul", opts)
    assert counts(analyze(kernel)) == counts(analyze(KERNELS["general"]())) == \
        (4096, 4096, 384, 384)


def test_atomics_and_shuffles_import():
    """`atomicAdd(&local[data[i]], 1)` as a statement (its old value unused: aggregated per
    address, as NVRTC compiles it) and `__shfl_down_sync(0xffffffff, v, 16)` in an
    expression. 1,048,576 bytes over 64 x 8 warps: 32,768 atomic instructions."""
    path = str(ROOT / "tests" / "cuda" / "histogram.cu")
    opts = Options(grid="64", block="256", params={"n": 1048576})
    text = written(path, opts)
    assert "kb.atomic(" in text and "kb.shfl(" in text
    r = analyze(imported(path, "histogram", opts))
    assert r.classes["atom"].requests == 32_768 and r.site(1).op == "atomic_aggregated"
    assert counts(r) == (512, 512, 512, 512)


def test_vector_types_through_reinterpret_cast_equal_the_example():
    """persistent_gemm.cu is examples/persistent_gemm.py in CUDA with float4 global loads and
    stores (reinterpret_cast), a float4 __shared__ array, float4 registers and .x ... .w: as
    built, the same loads (LDS.128) and load counts as the example; nvcc stores the As
    column as one STS.128 of a thread's four floats where the example has four 4-byte
    stores (the old reader's --as-compiled of this SASS counted the same)."""
    from examples.persistent_gemm import KERNELS
    cu, key, opts = IMPORTED["imported_persistent_gemm.py"]
    kernel = imported(str(ROOT / "tests" / "cuda" / cu), key, opts)
    r = analyze(kernel)
    assert counts(r)[:2] == counts(analyze(KERNELS["gemm"](n=512)))[:2]
    assert by_line(r) == [(22, "store", 16, 8 * 32 * 64, 524_288),
                          (24, "store", 16, 8 * 32 * 64, 65_536),
                          (27, "load", 16, 16 * 8 * 32 * 64, 524_288),
                          (28, "load", 16, 16 * 8 * 32 * 64, 1_048_576)]   # (B: 4 a request)


def test_vector_forms(tmp_path):
    """Component stores into a float4 __shared__ array, (float2*) casts, pointer arithmetic
    and an index on the cast pointer, register vectors initialized with make_float4. As
    built: the four component stores are one STS.128 (at the first's line), the float2 one
    STS.64, and only the lanes the sum reads are loaded (s[..].x and .w, u.y)."""
    cu = tmp_path / "v.cu"
    cu.write_text("""__global__ void v(float* out, const float* in)
{
    __shared__ float4 s[32];
    __shared__ float t[64];
    float4 r[2] = {{make_float4(0.f, 0.f, 0.f, 0.f)}};
    s[threadIdx.x].x = in[threadIdx.x];
    s[threadIdx.x].y = 1.0f; s[threadIdx.x].z = 2.0f; s[threadIdx.x].w = 3.0f;
    *(float2*)&t[threadIdx.x * 2] = make_float2(4.0f, 5.0f);
    __syncthreads();
    r[1] = s[31 - threadIdx.x];
    float2 u = reinterpret_cast<float2*>(t + 0)[threadIdx.x];
    out[threadIdx.x] = r[1].x + r[1].w + u.y + r[0].z;
}
""")
    text = written(cu, Options(grid="1", block="32", lengths={"out": "32", "in": "32"}))
    assert "kb.shared(" in text
    kernel = load_kernels(str(cu), Options(grid="1", block="32",
                                           lengths={"out": "32", "in": "32"}))["v"]()
    r = analyze(kernel)
    widths = [(line, op, width) for line, op, width, _, _ in by_line(r)]
    assert widths == VECTOR_FORM_WIDTHS
    out = run(kernel, arrays={"in": np.arange(32, dtype=np.float32)})["out"]
    np.testing.assert_array_equal(out, (31 - np.arange(32)) + 3.0 + 5.0 + 0.0)


VECTOR_FORM_WIDTHS = [(7, "store", 16), (8, "store", 8), (10, "load", 4), (11, "load", 4)]


@pytest.mark.parametrize("pad,key", [(0, "gemm"), (4, "padded")])
def test_cp_async_in_inline_ptx_and_pipeline_intrinsics_equals_the_example(pad, key):
    """cp_async_gemm.cu copies A with `asm volatile("cp.async.ca.shared.global [%0], [%1],
    16;" :: "r"(__cvta_generic_to_shared(&As[..])), "l"(&A[..]))` and B with
    `__pipeline_memcpy_async(&Bs[..], &B[..], 16)`, which cuda_pipeline_helpers.h emits as
    cp.async.cg: the example's copy sites and counts, B's copies as .cg (no wavefronts in
    these counters) where the example has .ca."""
    from examples.cp_async_gemm import KERNELS
    cu, name, opts = IMPORTED["imported_cp_async_gemm.py"]
    opts = Options(defines={"PAD": str(pad)}, params=opts.params, lengths=opts.lengths)
    r = analyze(imported(str(ROOT / "tests" / "cuda" / cu), name, opts))
    ex = analyze(KERNELS[key]())
    copies = [requests for _, op, _, requests, _ in by_line(r) if op.startswith("cp")]
    assert copies == [s.requests for s in ex.sites if s.op.startswith("cp")]   # (B's: .cg)
    # PAD 4 doubles the A copies' cost (80-byte rows): 8 wavefronts a request, not 4
    first = by_line(r)[0]
    assert first[4] // first[3] == (8 if pad else 4)
    # the reads as built: ptxas merges a thread's Bs reads four at a time (LDS.128): 5.2M
    # requests where the example's source-level reads are 8.4M (the old reader's
    # --as-compiled of the same SASS counted these too)
    assert counts(ex) == (8_388_608, 8_388_608, 0, 0)
    assert counts(r) == (5_242_880, 6_291_456, 0, 0)


@pytest.mark.parametrize("swizzle,key,per_request", [(1, "roundtrip", 4), (0, "rowmajor", 32)])
def test_ldmatrix_and_stmatrix_in_inline_ptx_equal_the_example(swizzle, key, per_request):
    """ldmatrix_tile.cu: `asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1,
    %2, %3}, [%4];" : "=r"(f0), ... : "r"(addr))` on a __cvta_generic_to_shared address and
    stmatrix.x4 of the four registers: the example's ldmatrix (and stmatrix) counts, swizzled
    (4 wavefronts a request, the ideal) and row-major (32: 8 rows in the same 4 banks)."""
    from examples.ldmatrix_tile import KERNELS
    cu, name, opts = IMPORTED["imported_ldmatrix_tile.py"]
    opts = Options(defines={"SWIZZLE": str(swizzle)}, params=opts.params, lengths=opts.lengths)
    r = analyze(imported(str(ROOT / "tests" / "cuda" / cu), name, opts))
    ex = analyze(KERNELS[key]())
    # (the build unrolls the loop of tiles: sites summed by line)
    mine = [(op, requests, wavefronts) for _, op, _, requests, wavefronts in by_line(r)
            if op in ("ldmatrix", "stmatrix")]
    theirs = [(s.op, s.requests, s.wavefronts) for s in ex.sites
              if s.op in ("ldmatrix", "stmatrix")]
    assert mine[:len(theirs)] == theirs and mine[0] == ("ldmatrix", 2112, 2112 * per_request)
    text = written(ROOT / "tests" / "cuda" / cu, opts, name)
    assert "kb.ldmatrix(" in text and "matrices=4" in text


def test_the_imported_ldmatrix_fragments_are_the_tile_elements():
    """The interpreter runs the imported kernel: each lane's registers hold the elements
    ldmatrix gives it (two 16-bit elements per register, the lower first), and stmatrix
    rebuilds the tile."""
    cu, name, opts = IMPORTED["imported_ldmatrix_tile.py"]
    opts = Options(defines={"SWIZZLE": "1"}, params={"tiles": 1}, lengths=opts.lengths)
    kernel = imported(str(ROOT / "tests" / "cuda" / cu), name, opts)
    src = (np.arange(4096, dtype=np.uint32) * 40503 % 65536).astype(np.uint16)
    out = run(kernel, {"tiles": 1}, {"src": src})
    e = np.arange(4096)
    r, c = e // 64, e % 64 // 8
    swizzled = np.empty_like(src)
    swizzled[r * 64 + (c ^ r % 8) * 8 + e % 8] = src  # the staged tile, copied out linearly
    assert np.array_equal(out["out"], swizzled)
    frags = out["frags"].reshape(4, 4, 32, 4)   # warp, kk, lane, register
    lane, kk, warp = 5, 2, 1                     # matrix 0: rows 16w..16w+7, chunk 2kk
    row, col = 16 * warp + lane // 4, 2 * kk * 8 + 2 * (lane % 4)  # of the logical tile
    word = frags[warp, kk, lane, 0]
    assert (word & 0xFFFF, word >> 16) == (src[row * 64 + col], src[row * 64 + col + 1])


def test_a_loop_variable_named_as_a_parameter_leaves_the_parameter_alone(tmp_path):
    """cuda-samples' bitonic merge: `uint stride` is a parameter the grid reads, and an
    inner `for (uint stride = ...; ...; stride >>= 1)` assigns its own variable: the
    parameter stays a parameter (it was made a local, and the launch refused)."""
    cu = tmp_path / "t.cu"
    cu.write_text("""__global__ void k(float* out, unsigned stride) {
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    for (unsigned stride = 32; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    out[blockIdx.x * stride + threadIdx.x] = s[0];
}
void h(float* out) {
    unsigned s = 2;
    k<<<8 / s, 64>>>(out, s);
}
""")
    k = load_kernels(str(cu))["k"]()
    r = analyze(k)
    assert r.grid == (4, 1, 1) and dict(r.params) == {"stride": 2}
    # 6 halvings, each a warp's loads and store where threadIdx.x < stride
    assert r.store.requests == 4 * (2 + 1 + 1 + 1 + 1 + 1 + 1)

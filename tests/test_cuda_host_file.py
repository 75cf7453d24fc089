"""Kernels launched from another file of the program (`nvcc kernels.cu main.cu`): with
--host-file main.cu, main.cu's launches are read in main.cu's own terms (its constants,
macros, helpers and cudaMalloc sizes), and a kernel its own file launches keeps that
launch."""
from __future__ import annotations

import json
import pathlib

import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import KernelRuntimeError  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import CudaImportError, Options  # noqa: E402
from tests.built import import_kernels  # noqa: E402
from tests.test_cli import cli, cli_streams  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
KERNELS = HERE / "cuda" / "host_file" / "kernels.cu"
MAIN = HERE / "cuda" / "host_file" / "main.cu"
LECTURE = HERE / "corpus" / "gpu_mode"


def kernels(**options):
    return import_kernels(str(KERNELS), Options(host_files=[str(MAIN)], **options))


def test_a_template_kernel_is_launched_as_the_host_file_instantiates_it():
    """main.cu: transposeRows<8><<<dim3(WIDTH / 32, HEIGHT / 8), dim3(32, 8)>>> with
    WIDTH = 1 << 10, HEIGHT = WIDTH / 2 (constants in terms of each other, main.cu's). By
    hand: 32 x 64 blocks of 8 warps; each warp stores one row of the tile (1 wavefront) and
    reads tile[tx % 8][r]: 8 rows 32 words apart, one bank, 8 wavefronts."""
    found = kernels()
    assert list(found) == ["transposeRows<8>", "scale", "fill"]
    k = found["transposeRows<8>"]()
    r = analyze(k)
    assert (r.grid, r.block, dict(r.params)) == ((32, 64, 1), (32, 8, 1), {"width": 1024})
    warps = 32 * 64 * 8
    assert (r.store.requests, r.store.wavefronts) == (warps, warps)
    assert (r.load.requests, r.load.wavefronts) == (warps, 8 * warps)
    # cudaMalloc(&in, WIDTH * HEIGHT * sizeof(float)) in main.cu, WIDTH passed as width and
    # HEIGHT main.cu's constant (512): 524,288 floats here (the build's arrays are bytes)
    from kernels_ir import resolve_launch
    launch = resolve_launch(k, {})
    assert {g.name: launch.lengths[g.name] for g in k.globals if g.base is None} == {
        "in": 1024 * 512 * 4, "out": 1024 * 512 * 4}


def test_host_values_are_the_host_files_own():
    """scale's factor is 1.0f / sqrtf(static_cast<float>(TILE)) with main.cu's TILE (16),
    not kernels.cu's (32); its grid a host helper's value (blocks_for)."""
    r = analyze(kernels()["scale"]())
    assert (r.grid, r.block) == ((2048, 1, 1), (256, 1, 1))
    assert dict(r.params) == {"factor": 0.25, "n": 524288}


def test_a_kernel_its_own_file_launches_keeps_that_launch():
    """fill is launched in kernels.cu (4 x 64) and in main.cu (1 x 32): kernels.cu's is
    read."""
    r = analyze(kernels()["fill"]())
    assert (r.grid, r.block, dict(r.params)) == ((4, 1, 1), (64, 1, 1), {"n": 256})


def test_without_the_host_file_the_question_names_it(tmp_path):
    code, _, err = cli_streams("analyze", str(KERNELS), "--kernel", "scale")
    assert code == 2 and "no launch of 'scale' in the file" in err and \
        "--host-file FILE" in err and "Traceback" not in err
    code, _, err = cli_streams("analyze", str(KERNELS), "--host-file",
                               str(tmp_path / "absent.cu"))
    assert code == 2 and f"--host-file {tmp_path / 'absent.cu'}: no such file" in err


def test_host_values_given_may_be_in_either_file():
    """--host names an expression of any file of the program; one in none is an error
    naming them all."""
    found = kernels(hosts={"blocks_for(WIDTH*HEIGHT, 256)": "8"})
    assert analyze(found["scale"]()).grid == (8, 1, 1)
    with pytest.raises(CudaImportError, match=r"--host nowhere\(\): no host expression "
                                              r"`nowhere\(\)` in kernels\.cu, main\.cu"):
        kernels(hosts={"nowhere()": "8"})


def test_the_cli_reads_the_host_file():
    code, text = cli("analyze", str(KERNELS), "--host-file", str(MAIN), "--kernel", "scale",
                     "--json")
    assert code == 0, text
    res = json.loads(text)["results"][0]
    assert (res["grid"], res["params"]) == ([2048, 1, 1], {"factor": 0.25, "n": 524288})


def test_a_lecture_kernel_run_as_its_main_launches_it_reads_past_its_tile():
    """gpu-mode's lecture 12: main.cu launches flash_attention_k with threads(32, 16), while
    flash_attention.cu sizes its tiles for blockDim (128, 8): S[ii * bdy + tid_y] with
    bdy = 16 reads row 8 of the 8-row S (thread y = 8). With the block the kernel expects,
    the next mistake: main.cu allocates K for 128 x 64 floats, the kernel reads T_c = 8
    tiles of 32 rows of 128 (index 8192 at j = 2). main.cu's scaling (1 / sqrtf(64)) and
    T_c (cdiv(128, 16)) are read from it."""
    path = str(LECTURE / "lecture_012_flash_attention.cu")
    host = [str(LECTURE / "lecture_012_main.cu")]
    k = import_kernels(path, Options(host_files=host))["flash_attention_k"]()
    # (nvcc's build reads four of S's floats at once: its row 8 begins at its float 256,
    # past its 8 rows of 32, at byte 37888, the end of the block's window)
    with pytest.raises(KernelRuntimeError, match=r"flash_attention\.cu:85:29, .*out of "
                                                 r"bounds: 4 elements at index 256 of 'S' "
                                                 r"\(valid 0\.\.255; byte 37888 of the "
                                                 r"block's 37888-byte shared window\) "
                                                 r"\[block \(0, 0, 0\); thread \(0, 8, 0\)"):
        analyze(k)
    k = import_kernels(path, Options(host_files=host, block="128, 8"))["flash_attention_k"]()
    assert dict(k.defaults) == {"scaling": 0.125, "n": 128, "T_r": 8, "T_c": 8}
    from kernels_ir import run   # (a run: the analysis leaves out a load no count reads)
    with pytest.raises(KernelRuntimeError, match=r"index 8192 of 'K' in f32 elements "
                                                 r"\(valid 0\.\.8191\)"):
        run(k)


LAUNCHES = """
__global__ void k(float *x, int n) {
    __shared__ float s[256];
    s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    x[blockIdx.x] = s[0];
}
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    float *x;
    cudaMalloc(&x, n * sizeof(float));
    dim3 threads(256);
    dim3 grid(ceil((float)n / threads.x), ceil(n / 512.0f));
    k<<<grid, threads>>>(x, n);
    int temp = n;
    dim3 blocks;
    do {
        blocks = dim3((temp + threads.x - 1) / threads.x);
        k<<<blocks, threads>>>(x, temp);
        temp = blocks.x;
    } while (temp > 1);
}
"""


def test_dim3_members_are_unsigned_and_assigned_whole(tmp_path):
    """PMPP's `dim3 gridDim(ceil((float)n / blockDim.x), ...)`: dim3's members are unsigned,
    so the floats convert toward zero (the grid was a float expression, refused at the
    kernel's line); and a dim3 assigned whole before the launch (`blocks = dim3(...)` in
    the PMPP NvBench reduction's loop) is that value (it was read as dim3's default, a
    grid of 1, silently). The loop's launch passes `temp` as n: the grid is in terms of n."""
    cu = tmp_path / "launches.cu"
    cu.write_text(LAUNCHES)
    first = import_kernels(str(cu), Options(params={"n": 1000}))["k"]()
    assert analyze(first).grid == (4, 2, 1)     # ceil(1000 / 256.0), ceil(1000 / 512.0)
    main = cu.read_text().replace("    k<<<grid, threads>>>(x, n);\n", "")
    cu.write_text(main)
    looped = import_kernels(str(cu), Options(params={"n": 1 << 20}))["k"]()
    assert analyze(looped).grid == (4096, 1, 1)


def test_a_headers_template_takes_the_instances_main_launches(tmp_path):
    """PMPP's NvBench scan: the header defines the kernel and a launcher template that
    nothing instantiates there; the test's main includes the header and launches
    `scan<int><<<1, 1024>>>` itself. The instance is main's, with main's launch."""
    (tmp_path / "kernels.cuh").write_text("""
template <typename T> __global__ void scan(T *x, int n) {
    __shared__ T s[1024];
    s[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0;
    __syncthreads();
    x[threadIdx.x] = s[1023 - threadIdx.x];
}
template <typename T> void run_scan(T *x, int n, int t) { scan<T><<<1, t>>>(x, n); }
""")
    (tmp_path / "main.cu").write_text("""
#include "kernels.cuh"
int main() { int *x; cudaMalloc(&x, 4096 * sizeof(int)); scan<int><<<1, 1024>>>(x, 1000); }
""")
    found = import_kernels(str(tmp_path / "kernels.cuh"),
                           Options(host_files=[str(tmp_path / "main.cu")]))
    assert list(found) == ["scan<int>"]
    r = analyze(found["scan<int>"]())
    assert (r.grid, r.block, dict(r.params)) == ((1, 1, 1), (1024, 1, 1), {"n": 1000})
    assert (r.load.requests, r.store.requests) == (32, 32)


HELPER = """
#include <algorithm>
#include <cstdio>
#include <cuda_fp16.h>
#define ROWS 64
__global__ void k(float *x) {
    extern __shared__ float s[];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = s[ROWS - 1 - threadIdx.x % ROWS];
}
size_t init_k() {
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, dev);
    size_t bytes = std::max(ROWS * 2 * sizeof(float), 100 * sizeof(half));
    printf("%zu\\n", bytes);
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    return bytes;
}
void run(float *x) {
    static size_t smem = init_k();
    k<<<1, 128, smem>>>(x);
}
"""


def test_a_host_helper_of_several_statements_gives_its_return(tmp_path):
    """cuda_hgemm's `static size_t smem_max_size = initMmaBase();`: a helper whose one
    return ends it is read in its own terms (a local set once, std::max of two sizes),
    its device queries and checks beside it changing nothing the return reads: 512 bytes
    of dynamic shared memory (it was a question naming `init_k()`)."""
    cu = tmp_path / "helper.cu"
    cu.write_text(HELPER)
    r = analyze(import_kernels(str(cu), Options(lengths={"x": "128"}))["k"]())
    assert r.dynamic_smem == max(64 * 2 * 4, 100 * 2) == 512
    cu.write_text(HELPER.replace("    return bytes;\n", "    if (dev) return 0;\n"
                                                      "    return bytes;\n"))
    with pytest.raises(CudaImportError, match=r"helper\.cu:25:5: the launch of 'k' uses "
                                              r"`init_k\(\)`"):
        import_kernels(str(cu), Options(lengths={"x": "128"}))["k"]()

"""Pointers that select between two arrays (`p = c ? &A[i] : &B[j]`, cudaTensorCoreGemm's
warp_ptr), read from tests/cuda/choice_pointers.cu: values, counts, refusals, and on the
GPU the user's build against ncu."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                    "(pip install -e '.[cuda]')")

from kernels_ir import resolve_launch  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import import_kernels, run  # noqa: E402

CHOICES = pathlib.Path(__file__).resolve().parent / "cuda" / "choice_pointers.cu"
LENGTHS = {"A": "4096", "B": "4096", "out": "4096", "back": "4096", "even": "1024",
           "odd": "1024"}


def kernel(name: str):
    lengths = {k: v for k, v in LENGTHS.items()
               if (k in ("A", "B", "out")) == (name == "stage_two") or k == "out"}
    return import_kernels(str(CHOICES), Options(lengths=lengths))[name]()


def test_warps_stage_two_tiles_through_one_pointer():
    """Warps 0-3 copy A's rows and warps 4-7 B's, 16 bytes a lane through an int4 pointer
    chosen by the warp: every output is A + B of its element."""
    rng = np.random.default_rng(1)
    a = rng.integers(-8, 8, 4096).astype(np.float16)
    b = rng.integers(-8, 8, 4096).astype(np.float16)
    out = run(kernel("stage_two"), arrays={"A": a, "B": b})
    np.testing.assert_array_equal(out["out"], a.astype(np.float32) + b.astype(np.float32))


def test_the_staging_store_is_one_site_as_one_instruction():
    """The shared store of `*(int4 *)&tile[..] = *lane_ptr` is one site (the GPU's one
    STS.128 serves both sides' warps): 8 warps x 4 blocks requests, 4 wavefronts each."""
    report = analyze(kernel("stage_two"))
    stores = [s for s in report.sites if s.op == "store"]
    assert [(s.loc.line, s.requests, s.wavefronts) for s in stores] == [(19, 32, 128)]


def test_a_scalar_pointer_that_selects_by_block_moves_and_is_written_through():
    """parity: p selects even or odd by the block's parity and steps 128 a trip; w writes
    back for threads < 64 and out for the others."""
    rng = np.random.default_rng(2)
    even = rng.integers(-50, 50, 1024).astype(np.float32)
    odd = rng.integers(-50, 50, 1024).astype(np.float32)
    out = run(kernel("parity"), arrays={"even": even, "odd": odd,
                                        "out": np.zeros(4096, np.float32),
                                        "back": np.zeros(4096, np.float32)})
    t = np.arange(128)
    for blk in range(4):
        src = (even if blk % 2 == 0 else odd)[blk * 256:]
        p0, p1 = src[:128], src[128:256]
        want = p0[(2 * t) % 128] + p0[t ^ 1] + p1[(2 * t) % 128] + p1[t ^ 1] + p1[t]
        got = np.where(t < 64, out["back"][blk * 128 + t], out["out"][blk * 128 + t])
        np.testing.assert_array_equal(got, want)
    # each writes only its own threads' elements
    assert not out["back"][64:128].any() and not out["out"][0:64].any()


def test_the_shared_accesses_beside_a_selecting_pointer_are_counted_once():
    """`s[t] = p[t]` stores once and `w[i] += s[t]` loads once: one site each, every warp."""
    report = analyze(kernel("parity"))
    by_line = {}
    for x in report.sites:   # (nvcc may build each side of the choice apart)
        by_line[x.loc.line, x.op] = by_line.get((x.loc.line, x.op), 0) + x.requests
    assert by_line == {(36, "store"): 32, (39, "load"): 32, (44, "load"): 16}


def test_both_arrays_a_pointer_selects_are_written(tmp_path):
    """The parameters a selecting pointer writes through are outputs (both of them: only
    written, `out`)."""
    k = kernel("parity")
    intents = {g.name: g.intent for g in k.globals}
    assert (intents["out"], intents["back"], intents["even"], intents["odd"]) == \
        ("out", "out", "in", "in")


def one(tmp_path, body: str, params: str = "const float *A, const float *B, float *out"):
    cu = tmp_path / "k.cu"
    cu.write_text(f"__global__ void k({params}) {{\n{body}\n}}\n"
                  "int main() { float *a, *b, *o; k<<<2, 64>>>(a, b, o); }\n")
    return import_kernels(str(cu), Options(lengths={"A": "256", "B": "256",
                                                    "out": "256"}))["k"]()


def test_one_array_on_both_sides_is_a_plain_pointer(tmp_path):
    """`c ? A + 1 : A + 2` chooses an offset only: one site, values from the side taken."""
    k = one(tmp_path, """    __shared__ float s[64];
    const float *p = (threadIdx.x % 2) ? A + 1 : A + 2;
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];""")
    a = np.arange(256, dtype=np.float32)
    got = run(k, arrays={"A": a, "B": a})["out"][:64]
    t = np.arange(64)
    np.testing.assert_array_equal(got, a[t + np.where(t % 2 == 1, 1, 2)])


def test_an_int4_pointer_over_halves_steps_eight_halves(tmp_path):
    """`*((int4 *)&s[0] + t)` and `*((const int4 *)A + t)` over halves: vector t is halves
    8t to 8t + 7 (this read 4t before)."""
    cu = tmp_path / "k.cu"
    cu.write_text("""#include <cuda_fp16.h>
__global__ void k(const half *A, half *out) {
    __shared__ half s[64 * 8];
    *((int4 *)&s[0] + threadIdx.x) = *((const int4 *)A + threadIdx.x);
    __syncthreads();
    int4 *p = (int4 *)(out + 0) + threadIdx.x;
    *p = *((int4 *)&s[0] + threadIdx.x);
}
int main() { half *a, *o; k<<<1, 64>>>(a, o); }
""")
    k = import_kernels(str(cu), Options(lengths={"A": "512", "out": "512"}))["k"]()
    a = np.arange(512).astype(np.float16)
    out = run(k, arrays={"A": a, "out": np.zeros(512, np.float16)})["out"]
    np.testing.assert_array_equal(out, a)


def test_a_launch_sized_by_an_enum_of_the_host_function_and_helper_cudas_max(tmp_path):
    """cudaTensorCoreGemm sizes its dynamic shared memory with `enum { SHMEM_SZ =
    MAX(...) }` in main (MAX from helper_cuda.h): the value, with no question."""
    cu = tmp_path / "k.cu"
    cu.write_text("""#include <helper_cuda.h>
__global__ void k(float *out) {
    extern __shared__ float s[];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
int main() {
    enum { FIRST = 3, SHMEM_SZ = MAX(sizeof(float) * 64, 128), AFTER };
    float *o;
    k<<<1, 64, SHMEM_SZ + 4 * (AFTER - SHMEM_SZ)>>>(o);
}
""")
    common = str(pathlib.Path(__file__).resolve().parent / "corpus" / "cuda_samples" /
                 "Common")   # (cuda-samples' helper_cuda.h, verbatim)
    k = import_kernels(str(cu), Options(lengths={"out": "64"},
                                        include_dirs=[common]))["k"]()
    assert resolve_launch(k).dynamic_smem == 256 + 4   # AFTER: SHMEM_SZ + 1


@pytest.mark.gpu
def test_the_users_build_equals_ncu(tmp_path):
    """On the GPU: ncu's counters of nvcc's -O3 build of choice_pointers.cu (its own main,
    one kernel a run) equal the counts of each kernel read from that build; the generated
    CUDA gives the interpreter's outputs."""
    import shutil
    import subprocess

    from gpu_backend.device import run_on_gpu
    from gpu_backend.measure import compare_counts, measure_command
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    exe = tmp_path / "choices"
    subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-lineinfo", "-o", str(exe), str(CHOICES)],
                   check=True, capture_output=True)
    rng = np.random.default_rng(3)
    arrays = {"A": rng.integers(-8, 8, 4096).astype(np.float16).view(np.uint8),
              "B": rng.integers(-8, 8, 4096).astype(np.float16).view(np.uint8),
              "even": rng.integers(-50, 50, 1024).astype(np.float32).view(np.uint8),
              "odd": rng.integers(-50, 50, 1024).astype(np.float32).view(np.uint8)}
    for number, key in enumerate(["stage_two", "parity"]):
        k = kernel(key)
        report = analyze(k)   # (read from nvcc's build: its counts are the build's)
        agreement = compare_counts(report, measure_command([str(exe), str(number)], k.name))
        assert agreement.ok, (key, agreement.checks)
        result = run_on_gpu(k, arrays={g.name: arrays[g.name] for g in k.globals
                                       if g.name in arrays})
        assert result.matches, (key, result.mismatches)


NULL_FIRST = """
__global__ void copy4(const int *A, int *out) {
    __shared__ int4 tile[64];
    int4 *lane_ptr = nullptr;
    lane_ptr = (int4 *)(A + 4 * threadIdx.x);
    tile[threadIdx.x] = *lane_ptr;
    __syncthreads();
    lane_ptr = (int4 *)((const int *)lane_ptr + 256);
    out[threadIdx.x] = tile[63 - threadIdx.x].x + ((const int *)lane_ptr)[0];
}
int main() { int *a, *o; cudaMalloc(&a, 4096 * 4); cudaMalloc(&o, 4096 * 4);
             copy4<<<1, 64>>>(a, o); }
"""


def test_a_pointer_declared_null_points_where_it_is_first_assigned(tmp_path):
    """cuda_hgemm's `int4 *A_lane_ptr = nullptr;` then `A_lane_ptr = (int4 *)(A_warp_ptr +
    ...)`: the pointer points at nothing until assigned in straight-line code (it was
    refused at the declaration), then moves as any pointer local. By hand: 2 warps store 16
    bytes a lane (4 quarter-warps, 1 wavefront each) and read the .x of the int4s
    backwards, 16 bytes apart: 32 words in 8 banks, 4 to a bank: 4 wavefronts."""
    cu = tmp_path / "null_first.cu"
    cu.write_text(NULL_FIRST)
    k = import_kernels(str(cu), None)["copy4"]()
    r = analyze(k)
    assert (r.store.requests, r.store.wavefronts) == (2, 8)
    assert (r.load.requests, r.load.wavefronts) == (2, 8)
    a = np.arange(4096, dtype=np.int32)
    out = run(k, arrays={"A": a})["out"][:64]
    t = np.arange(64)
    assert out.tolist() == (4 * (63 - t) + 4 * t + 256).tolist()

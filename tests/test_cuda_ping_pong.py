"""Ping-pong buffers: shared-memory pointers swapped inside a loop (tests/cuda/ping_pong.cu)
select between the two arrays by a variable each carries, so the kernels compute what CUDA
computes and each access is counted on the array it reaches."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import run  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.cuda import CudaImportError, Options, import_kernels  # noqa: E402

PING_PONG = pathlib.Path(__file__).resolve().parent / "cuda" / "ping_pong.cu"


def kernel(name):
    return import_kernels(str(PING_PONG), Options(kernel=name))[name]()


def by_array(r, line):
    """{(array, kind): requests} of the sites at a line."""
    out = {}
    for s in r.sites:
        if s.loc.line == line and s.requests:
            key = (s.array, s.op)
            out[key] = out.get(key, 0) + s.requests
    return out


def test_jacobi_through_a_temporary_computes_and_counts_per_array():
    k = kernel("smooth")
    x = np.random.default_rng(1).uniform(-1, 1, 64 * 256).astype(np.float32)
    out = run(k, arrays={"in": x})["out"]
    want = x.reshape(64, 256).astype(np.float64)
    for _ in range(10):
        padded = np.pad(want, ((0, 0), (1, 1)))
        want = 0.5 * want + 0.25 * (padded[:, :-2] + padded[:, 2:])
    assert np.allclose(out.reshape(64, 256), want, atol=1e-5)
    r = analyze(k)
    # 64 blocks of 8 warps, 10 steps: the step reads three times and writes once, on the
    # array `cur` holds (a on even steps, b on odd: 5 each); the end reads a (10 swaps)
    steps = 64 * 8 * 5
    assert by_array(r, 18) == {("b", "load"): steps, ("a", "load"): steps,
                               ("a", "store"): steps, ("b", "store"): steps}
    assert by_array(r, 24) == {("a", "load"): 64 * 8}
    assert (r.load.requests, r.load.wavefronts) == (64 * 8 * (3 * 10 + 1),) * 2


def test_a_scan_through_cuda_std_swap():
    k = kernel("scan")
    x = np.random.default_rng(2).integers(-100, 100, 16 * 512).astype(np.int32)
    out = run(k, arrays={"in": x})["out"]
    assert (out.reshape(16, 512) == np.cumsum(x.reshape(16, 512), axis=1)).all()
    r = analyze(k)
    # nine steps (d = 1 ... 256) swap src and dst nine times: the end reads y
    assert by_array(r, 40) == {("y", "load"): 16 * 16}
    assert r.store.requests == 16 * 16 * 10


def test_as_compiled_reports_the_swapped_sites_without_recounting_them():
    """nvcc unrolls the scan's nine steps and resolves src and dst in each copy: matching
    its instructions by line to the two sites of each access undercounted (784 loads of
    the 4,624 an H100 measures); those sites are now reported, counted as the IR states."""
    from gpu_backend.compile import ToolMissing, find_tool
    try:
        find_tool("nvcc"), find_tool("nvdisasm"), find_tool("cuobjdump")
    except ToolMissing as err:
        pytest.skip(f"the user's own build needs the CUDA toolkit's nvcc: {err}")
    from tests.test_cli import cli
    code, out = cli("analyze", str(PING_PONG), "--kernel", "scan", "--as-compiled",
                    "--frontend", "cpp")   # (the C++ reading's --as-compiled)
    assert code == 0, out
    assert "loads: 4,704 requests" in out and "stores: 2,560 requests" in out
    assert "through a pointer swapped between two arrays" in out


def test_three_buffers_rotated_are_refused_at_the_line():
    with pytest.raises(CudaImportError, match=r"ping_pong\.cu:45:5: `float\* p = a;`: "
                                              r"pointers swapped between a, b, c"):
        kernel("rotate")


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["smooth", "scan"])
def test_on_the_gpu(name):
    """The generated CUDA (each access once per side, under the pointer's selector) on the
    GPU: its outputs equal the interpreter's."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(kernel(name))
    assert result.matches, result.mismatches


def test_check_finds_the_race_when_the_steps_barrier_is_missing(tmp_path):
    """Without the barrier before the swap, the next step writes the array the previous
    one still reads: `check` names the race on the arrays the pointers reach."""
    from smemsim.hazards import check
    lines = PING_PONG.read_text().splitlines()
    assert lines[18].strip() == "__syncthreads();"      # smooth's barrier in the loop
    racy = tmp_path / "racy.cu"
    racy.write_text("\n".join(lines[:18] + [""] + lines[19:]) + "\n")
    k = import_kernels(str(racy), Options(kernel="smooth"))["smooth"]()
    assert check(kernel("smooth")).clean
    racy_report = check(k)
    assert {r.kind for r in racy_report.races} == {"read-write"}
    assert {r.array for r in racy_report.races} == {"a", "b"}


def test_a_pointer_pointed_at_another_array_in_a_branch_is_refused(tmp_path):
    """Not a swap between pointers: `p = b` of an array under a condition is refused at
    its line (the IR's pointers point into one array)."""
    cu = tmp_path / "branch.cu"
    cu.write_text("""__global__ void k(float* out) {
    __shared__ float a[32], b[32];
    float* p = a;
    if (threadIdx.x > 3) p = b;
    p[threadIdx.x] = 1.0f;
    out[threadIdx.x] = a[threadIdx.x];
}
int main() { float* o; cudaMalloc(&o, 128); k<<<1, 32>>>(o); }
""")
    with pytest.raises(CudaImportError, match=r"branch\.cu:4:26: `p = b`: a pointer pointed "
                                              r"at another array inside a loop or branch"):
        import_kernels(str(cu), Options())["k"]()

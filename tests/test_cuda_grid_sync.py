"""A grid-wide barrier (cooperative groups' `grid.sync()`) and the cooperative launch that
needs it (`cudaLaunchCooperativeKernel` with its `void *args[]`), as cuda-samples'
reductionMultiBlockCG writes them: tests/cuda/grid_sync.cu sums 65,536 floats in one launch
of 64 blocks, block 0 reducing the others' partial sums after the barrier."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from gpu_backend.codegen import generate  # noqa: E402
from kernels_ir import KernelRuntimeError, format_kernel, resolve_launch  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import import_kernels, run  # noqa: E402

GRID_SYNC = pathlib.Path(__file__).resolve().parent / "cuda" / "grid_sync.cu"


def sum_all(path=GRID_SYNC):
    return import_kernels(str(path), Options())["sumAll"]()


def test_the_cooperative_launch_is_read_from_its_arguments_array():
    """cudaLaunchCooperativeKernel((void *)sumAll, dimGrid, dimBlock, kernelArgs, 0, NULL):
    grid 64 and block 128 from the dim3s, n = 65,536 from `(void *)&size`, the arrays'
    lengths from their cudaMalloc (through the args array's `&d_in`)."""
    k = sum_all()
    assert k.cooperative
    assert [int(e.arg) for e in (*k.grid, *k.block)] == [64, 1, 1, 128, 1, 1]
    assert k.defaults == {"n": 65536}
    # (the arrays of nvcc's build are bytes)
    lengths = resolve_launch(k, {}).lengths
    assert {g.name: lengths[g.name] for g in k.globals if g.base is None} == \
        {"in": 4 * 65536, "partial": 4 * 64, "out": 4}


def test_block_zero_reads_every_blocks_partial_sum_after_the_barrier():
    x = np.random.default_rng(1).random(1 << 16, dtype=np.float32)
    got = run(sum_all(), arrays={"in": x})
    assert got["out"][0] == pytest.approx(float(x.sum(dtype=np.float64)), rel=1e-6)
    # block b's threads b * 128 + t take elements 8192 j + b * 128 + t
    assert np.allclose(got["partial"], x.reshape(8, 64, 128).sum(axis=(0, 2)), rtol=1e-5)


def test_counts_by_hand():
    """64 blocks of 4 warps: s[tid] stored once (4 requests a block); each reduction halves
    k from 64 (2 warps, then 1 for 32 ... 1: 8 requests a block for each of its two loads and
    its store); s[0] read by thread 0. After the barrier block 0 alone: 4 stores, one more
    reduction (8 + 8 loads, 8 stores) and the last read. Every request one wavefront."""
    r = analyze(sum_all())
    assert (r.load.requests, r.store.requests) == (64 * (16 + 1) + 16 + 1, 64 * (4 + 8) + 12)
    assert r.load.wavefronts == r.load.requests and r.store.wavefronts == r.store.requests


def test_a_block_that_returns_before_the_barrier_is_found(tmp_path):
    """A grid barrier waits for every block: one that returned never arrives (the GPU would
    hang)."""
    cu = tmp_path / "grid_sync.cu"
    cu.write_text(GRID_SYNC.read_text().replace(
        "    grid.sync();", "    if (blockIdx.x == 5) return;\n    grid.sync();"))
    # (nvcc's build jumps to the kernel's end: block 5's threads exit there, and never
    # reach the barrier)
    with pytest.raises(KernelRuntimeError, match=r"grid_sync\.cu:36:.*grid\.sync\(\).*"
                                                 r"every thread of block \(5, 0, 0\) has "
                                                 r"returned, and a grid barrier waits"):
        run(sum_all(cu))


def test_the_barrier_prints_and_generates():
    k = sum_all()
    assert "grid.sync()" in format_kernel(k)
    source = generate(k).source
    assert "smemsim_grid_sync();" in source and "atomicAdd(&smemsim_grid_arrived" in source


@pytest.mark.gpu
def test_on_the_gpu():
    """The generated CUDA, launched cooperatively: its outputs equal the interpreter's."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    x = np.random.default_rng(1).random(1 << 16, dtype=np.float32)
    result = run_on_gpu(sum_all(), arrays={"in": x.view(np.uint8)})   # (the build's bytes)
    assert result.matches, result.mismatches

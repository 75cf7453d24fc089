"""Vectors of 8- and 16-bit integers (uchar4, char4, ushort2, ...) imported as the IR's
vectors of u8/i8/u16/i16 lanes, and an extern __shared__ array of a vector type:
tests/cuda/vector_types.cu computed as CUDA does."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import run  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.cuda import Options, import_kernels  # noqa: E402
from smemsim.cuda.symbols import fold  # noqa: E402

TYPES = pathlib.Path(__file__).resolve().parent / "cuda" / "vector_types.cu"


def kernel(name):
    return import_kernels(str(TYPES), Options(kernel=name))[name]()


def test_uchar4_pixels_through_a_shared_tile():
    k = kernel("invert")
    # cudaMalloc's bytes over 4-byte uchar4 elements: 4096 pixels, held as 16384 lanes
    assert {g.name: (g.dtype.name, fold(g.length)) for g in k.globals} == {
        "in": ("u8", 16384), "out": ("u8", 16384), "d": ("i8", 16384)}
    x = np.random.default_rng(7).integers(0, 256, 4 * 4096).astype(np.uint8)
    got = run(k, arrays={"in": x})
    p = x.reshape(16, 256, 4)[:, ::-1].reshape(-1, 4)
    want = np.stack([255 - p[:, 0], 255 - p[:, 1], p[:, 2] // 2, p[:, 3]], 1)
    assert (got["out"].reshape(-1, 4) == want).all()
    d = got["d"].reshape(-1, 4)
    assert (d[:, 0] == (p[:, 0].astype(np.int16) - 128).astype(np.int8)).all()
    assert (d[:, 1:] == [-3, 0, 127]).all()
    # a warp's 32 pixels are 128 consecutive bytes: one wavefront a request
    r = analyze(k)
    assert (r.load.requests, r.load.wavefronts, r.store.requests, r.store.wavefronts) == \
        (128, 128, 128, 128)


def test_an_extern_shared_array_of_float4():
    k = kernel("neighbours")
    x = np.random.default_rng(8).standard_normal(4096 * 4).astype(np.float32)
    got = run(k, arrays={"in": x})["out"].reshape(16, 256, 4)
    p = x.reshape(16, 256, 4)
    want = np.roll(p, -1, axis=1)
    want[..., 0] += p[..., 0]
    assert np.allclose(got, want)
    r = analyze(k)
    # per warp: the 16-byte store and load, 4 wavefronts each (512 bytes, ideal 4);
    # `s[t].x` reads one word of each 16-byte element, a stride of 4 words: 4 wavefronts
    # where its 128 bytes would ideally take 1
    assert r.dynamic_smem == 4096
    assert (r.store.requests, r.store.wavefronts) == (128, 512)
    assert (r.load.requests, r.load.wavefronts, r.load.ideal) == (256, 1024, 640)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["invert", "neighbours"])
def test_on_the_gpu(name):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(kernel(name))
    assert result.matches, result.mismatches

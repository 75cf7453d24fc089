"""Vectors of 8- and 16-bit integers (uchar4, char4, ushort2, ...) imported as the IR's
vectors of u8/i8/u16/i16 lanes, and an extern __shared__ array of a vector type:
tests/cuda/vector_types.cu computed as CUDA does."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import KernelRuntimeError  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import import_kernels, run  # noqa: E402
from smemsim.frontends.cuda.symbols import fold  # noqa: E402

TYPES = pathlib.Path(__file__).resolve().parent / "cuda" / "vector_types.cu"


def kernel(name):
    return import_kernels(str(TYPES), Options(kernel=name))[name]()


def test_uchar4_pixels_through_a_shared_tile():
    k = kernel("invert")
    # cudaMalloc's bytes: 4096 uchar4 pixels, 16384 bytes
    assert {g.name: fold(g.length) for g in k.globals if g.base is None} == {
        "in": 16384, "out": 16384, "d": 16384}
    x = np.random.default_rng(7).integers(0, 256, 4 * 4096).astype(np.uint8)
    got = run(k, arrays={"in": x, "d": np.zeros(16384, np.int8)})
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


def test_vector_parameters_by_value():
    """`uint3 size, float3 scale`: a parameter per lane (size_x, ...), their values read
    from the launch's make_uint3(16, 16, 4) and make_float3(2.0f, 0.5f, 1.0f)."""
    k = kernel("volume")
    x = np.random.default_rng(9).standard_normal(16 * 16 * 4).astype(np.float32)
    r = analyze(k)
    assert dict(r.params) == {"size_x": 16, "size_y": 16, "size_z": 4, "scale_x": 2.0,
                              "scale_y": 0.5, "scale_z": 1.0}
    got = run(k, arrays={"in": x})["out"].reshape(4, 16, 16)
    # the plane transposed in, transposed out: each element scaled where it was
    z = np.arange(4, dtype=np.float32)[:, None, None]
    np.testing.assert_allclose(got, 2 * x.reshape(4, 16, 16) + 0.5 * z + 1, rtol=1e-6)
    # 4 planes of 8 warps; rows of 17: lanes 0 and 31 of a warp (x = 0 of row y, x = 15
    # of row y + 1) share a bank, for the store and the transposed load alike
    assert (r.load.requests, r.load.wavefronts, r.store.requests, r.store.wavefronts) == \
        (32, 64, 32, 64)
    # given on the command line, a lane's value replaces the launch's
    again = import_kernels(str(TYPES), Options(kernel="volume", params={"size_z": 2}))
    assert analyze(again["volume"]()).load.requests == 16


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["invert", "neighbours", "volume"])
def test_on_the_gpu(name):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(kernel(name))
    assert result.matches, result.mismatches


def test_a_whole_array_of_vectors_given_to_a_pointer_parameter(tmp_path):
    """`half2 *v` given a __shared__ half2 array is that array (cuda-samples'
    fp16ScalarProduct); moved, it reads past the array's end."""
    cu = tmp_path / "whole.cu"
    source = """#include <cuda_fp16.h>
__device__ void halve(half2 *v) { MOVE v[threadIdx.x] = v[threadIdx.x] * v[threadIdx.x + 32]; }
__global__ void k(float* y) {
    __shared__ half2 s[64];
    s[threadIdx.x] = __float2half2_rn(0.5f * threadIdx.x);
    s[threadIdx.x + 32] = __float2half2_rn(2.0f);
    __syncthreads();
    halve(s);
    y[threadIdx.x] = __low2float(s[threadIdx.x]) + __high2float(s[threadIdx.x]);
}
int main() { float* y; cudaMalloc(&y, 32 * sizeof(float)); k<<<1, 32>>>(y); }
"""
    cu.write_text(source.replace("MOVE ", ""))
    got = run(import_kernels(str(cu), Options())["k"]())["y"]
    assert (got == 2 * np.arange(32, dtype=np.float32)).all()
    # moved, v[t + 32] is s[t + 33]: thread 31 reads past the array, at the helper's line
    cu.write_text(source.replace("MOVE ", "v++;"))
    with pytest.raises(KernelRuntimeError, match=r"whole\.cu:2:\d+ \(halve\) via .*whole\.cu:8"
                                                 r", .*out of bounds: index 64 of 's'"):
        run(import_kernels(str(cu), Options())["k"]())

"""Textures read as the global arrays they are (#24): a `cudaTextureObject_t` parameter and
a file-scope texture reference, tex1Dfetch (zeros out of range) and tex2D (point sampling,
unnormalized coordinates, clamped: the zero-initialized cudaTextureDesc); initialized
`__constant__` tables hold their values; file-scope `__shared__` arrays. cuda-samples'
dct8x8 and Rodinia's kmeans (verbatim, in the corpus) import with them."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA frontend needs tree-sitter-cuda")


from smemsim import analyze  # noqa: E402
from kernels_ir import KernelError
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import import_kernels, run
from tools.corpus_status import options  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
SAMPLE = str(HERE / "cuda" / "textures.cu")
CORPUS = HERE / "corpus"
ENTRIES = json.loads((CORPUS / "corpus.json").read_text())["entries"]


def sample(**textures):
    opts = Options(lengths={"out": "64", "ramp": "n"},
                   textures=textures or {"img": "8, 4"})
    return import_kernels(SAMPLE, opts)["sample"]()


def test_fetches_follow_the_texture_rules():
    img = np.arange(32, dtype=np.float32).reshape(4, 8)
    ramp = np.arange(40, dtype=np.float32) * 10
    out = run(sample(), arrays={"img": img.ravel(), "ramp": ramp})["out"]
    t = np.arange(64)
    x = np.clip(np.floor(t % 16 - 4 + 0.5), 0, 7).astype(int)
    y = np.clip(t // 16, 0, 3)
    staged = img[y, x]
    fetched = np.where((t - 2 >= 0) & (t - 2 < 40), (t - 2) * 10.0, 0.0)
    want = staged[63 - t] * np.array([0.5, 1.0, 2.0])[t % 3] + fetched
    assert out.tolist() == want.astype(np.float32).tolist()


def test_a_texture_object_passed_to_a_device_function_is_the_same_texture(tmp_path):
    """`__device__ float at(cudaTextureObject_t tex, ...)` given the kernel's texture
    (marchingCubes' sampleVolume): its fetches read that texture, as when written inline."""
    source = pathlib.Path(SAMPLE).read_text().replace(
        "__global__ void sample(", "__device__ float at(cudaTextureObject_t tex, float x, "
        "float y) { return tex2D<float>(tex, x, y); }\n\n__global__ void sample(").replace(
        "tex2D<float>(img, (float)(t % 16)", "at(img, (float)(t % 16)")
    assert "at(img" in source
    cu = tmp_path / "textures.cu"
    cu.write_text(source)
    opts = Options(lengths={"out": "64", "ramp": "n"}, textures={"img": "8, 4"})
    via = import_kernels(str(cu), opts)["sample"]()
    img = np.arange(32, dtype=np.float32).reshape(4, 8)
    ramp = np.arange(40, dtype=np.float32) * 10
    arrays = {"img": img.ravel(), "ramp": ramp}
    assert run(via, arrays=arrays)["out"].tolist() == \
        run(sample(), arrays=arrays)["out"].tolist()


VECTOR_TEXELS = """
__global__ void rgba(float *out, cudaTextureObject_t img, cudaTextureObject_t line)
{
    int t = threadIdx.x;
    float4 p = tex2D<float4>(img, (float)(t % 8) + 0.5f, (float)(t / 8) + 0.5f);
    float2 q = tex1Dfetch<float2>(line, t - 30);
    out[t] = p.x + 10.0f * p.y + 100.0f * p.z + 1000.0f * p.w + q.x - q.y;
}
void host(float *out, cudaTextureObject_t img, cudaTextureObject_t line)
{
    rgba<<<1, 32>>>(out, img, line);
}
"""


def test_a_texel_of_a_vector_type_is_its_lanes(tmp_path):
    """`tex2D<float4>` (cuda-samples' postProcessGL) reads one texel's four lanes, as one
    16-byte load of the texture's array (texel i at elements 4i..4i+3); `tex1Dfetch<float2>`
    two lanes, zeros outside the texture (PTX's tex is always v4: a texel's lanes are the
    results the code reads)."""
    cu = tmp_path / "rgba.cu"
    cu.write_text(VECTOR_TEXELS)
    k = import_kernels(str(cu), Options(lengths={"out": "32", "line": "4"},
                                        textures={"img": "8, 4"}))["rgba"]()
    img = np.arange(32 * 4, dtype=np.float32).reshape(32, 4) / 8
    line = np.array([[1, 2], [3, 5], [7, 11], [13, 17]], np.float32)
    out = run(k, arrays={"img": img.ravel(), "line": line.ravel()})["out"]
    t = np.arange(32)
    inside = (t - 30 >= 0) & (t - 30 < 4)
    q = np.where(inside, line[np.clip(t - 30, 0, 3), 0] - line[np.clip(t - 30, 0, 3), 1], 0)
    want = img @ np.array([1, 10, 100, 1000], np.float32) + q
    assert np.allclose(out, want)
    from smemsim.frontends.cuda.symbols import fold
    # (out is the bytes of 32 floats; a texture, its texels' elements)
    assert {g.name: fold(g.length) for g in k.globals} == {"out": 128, "img": 128, "line": 8}


@pytest.mark.gpu
def test_vector_texels_on_the_gpu(tmp_path):
    """The regenerated CUDA of the float4/float2 texel kernel (16- and 8-byte loads of the
    texture arrays) against the interpreter."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    cu = tmp_path / "rgba.cu"
    cu.write_text(VECTOR_TEXELS)
    k = import_kernels(str(cu), Options(lengths={"out": "32", "line": "4"},
                                        textures={"img": "8, 4"}))["rgba"]()
    result = run_on_gpu(k)
    assert result.matches, result.mismatches


def test_a_constant_table_holds_its_values_and_the_shared_array_is_the_kernels():
    kernel = sample()
    weights = next(g for g in kernel.globals if g.name == "weights")   # (its bytes)
    assert np.array(weights.initial, np.uint8).view(np.float32).tolist() == [0.5, 1.0, 2.0]
    assert weights.intent == "in"
    r = analyze(kernel)
    assert [(s.array, s.op, s.requests, s.wavefronts) for s in r.sites] == \
        [("staged", "store", 2, 2), ("staged", "load", 2, 2)]


def test_what_the_file_does_not_say_is_asked():
    with pytest.raises(KernelError, match=r"the extent of 2-D texture 'img' is what the "
                                              r"host allocated: give --texture "
                                              r"img=WIDTH,HEIGHT"):
        import_kernels(SAMPLE, Options(lengths={"out": "64", "ramp": "n"}))["sample"]()
    with pytest.raises(KernelError, match=r"--texture im: no such texture"):
        import_kernels(SAMPLE, Options(textures={"im": "8, 4"}))
    with pytest.raises(KernelError, match=r"--texture img=8: a 2-D texture takes "
                                              r"WIDTH,HEIGHT"):
        sample(img="8")


def test_dct8x8_transforms_each_block_and_counts_by_hand():
    """cuda-samples' CUDAkernel1DCT at 512 x 512: each 8 x 8 block is D^T A D with D the
    file's DCTv8matrix table. 4,096 blocks of 2 warps: three stores (one request per warp)
    and, as built, 8 + 2 + 1 loads per warp: ptxas merges the 8 4-byte loads of line 140
    into 2 LDS.128 (2 wavefronts each), the others one wavefront (a row of 8 words,
    broadcast to the warp's 4 rows). The H200 measured 90,112 load requests
    (docs/validation/ptx-recount-2026-11-30.json)."""
    entry = next(e for e in ENTRIES if e["kernel"] == "CUDAkernel1DCT")
    kernel = import_kernels(str(CORPUS / entry["file"]), options(entry))["CUDAkernel1DCT"]()
    img = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    dst = run(kernel, arrays={"TexSrc": img.ravel()}, types={"Dst": np.float32})["Dst"]
    dst = dst.reshape(512, 512)
    table = next(g for g in kernel.globals if g.name == "DCTv8matrix").initial   # (bytes)
    d = np.array(table, np.uint8).view(np.float32).reshape(8, 8)
    for by, bx in ((0, 0), (5, 17), (63, 63)):
        a = img[8 * by:8 * by + 8, 8 * bx:8 * bx + 8]
        got = dst[8 * by:8 * by + 8, 8 * bx:8 * bx + 8]
        assert np.allclose(got, d.T @ a @ d, atol=1e-5)
    r = analyze(kernel)
    assert (r.store.requests, r.store.wavefronts) == (3 * 2 * 4096,) * 2
    assert (r.load.requests, r.load.wavefronts) == ((8 + 2 + 1) * 2 * 4096,
                                                    (8 + 2 * 2 + 1) * 2 * 4096)


@pytest.mark.gpu
def test_the_regenerated_cuda_fetches_the_same_on_the_gpu():
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(sample())
    assert result.matches, result.mismatches


def test_the_generated_cuda_compiles():
    from tests.conftest import require_nvrtc
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    c = compile_kernel(sample(), "sm_90")
    assert c.widths_ok, [s.describe() for s in c.sites if not s.ok]



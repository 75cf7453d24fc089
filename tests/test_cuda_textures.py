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
from smemsim.cuda import CudaImportError, Options  # noqa: E402
from tests.built import import_kernels, run  # noqa: E402
from tests.test_cli import cli  # noqa: E402
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
    two lanes, zeros outside the texture."""
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
    from smemsim.cuda.symbols import fold
    assert {g.name: fold(g.length) for g in k.globals} == {"out": 32, "img": 128, "line": 8}
    # one texture read as texels of two shapes is refused at the second fetch
    cu.write_text(VECTOR_TEXELS.replace("out[t] = p.x",
                                        "out[t] = tex1Dfetch<float>(line, t) + p.x"))
    with pytest.raises(CudaImportError, match=r"rgba\.cu:7:.*a texture of f32 x 2 fetched as "
                                              r"f32 x 1"):
        import_kernels(str(cu), Options(lengths={"out": "32", "line": "4"},
                                        textures={"img": "8, 4"}))["rgba"]()


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
    weights = next(g for g in kernel.globals if g.name == "weights")
    assert weights.initial == (0.5, 1.0, 2.0) and weights.intent == "in"
    r = analyze(kernel)
    assert [(s.array, s.op, s.requests, s.wavefronts) for s in r.sites] == \
        [("staged", "store", 2, 2), ("staged", "load", 2, 2)]


def test_what_the_file_does_not_say_is_asked():
    with pytest.raises(CudaImportError, match=r"the extent of 2-D texture 'img' is what the "
                                              r"host allocated: give --texture "
                                              r"img=WIDTH,HEIGHT"):
        import_kernels(SAMPLE, Options(lengths={"out": "64", "ramp": "n"}))["sample"]()
    with pytest.raises(CudaImportError, match=r"--texture im: no such texture"):
        import_kernels(SAMPLE, Options(textures={"im": "8, 4"}))
    with pytest.raises(CudaImportError, match=r"--texture img=8: a 2-D texture takes "
                                              r"WIDTH,HEIGHT"):
        sample(img="8")


def test_the_kernels_file_keeps_the_table(tmp_path):
    code, out = cli("import", SAMPLE, "--length", "out=64", "--length", "ramp=n",
                    "--texture", "img=8,4", "-o", str(tmp_path / "sample.py"))
    assert code == 0, out
    text = (tmp_path / "sample.py").read_text()
    assert 'kb.global_array("weights", "f32", 3, intent="in", initial=(0.5, 1.0, 2.0,))' in text


def test_dct8x8_transforms_each_block_and_counts_by_hand():
    """cuda-samples' CUDAkernel1DCT at 512 x 512: each 8 x 8 block is D^T A D with D the
    file's DCTv8matrix table. 4,096 blocks of 2 warps: three stores (one request per warp)
    and 8 + 8 + 1 loads per warp, each one wavefront (a row of 8 words, broadcast to the
    warp's 4 rows)."""
    entry = next(e for e in ENTRIES if e["kernel"] == "CUDAkernel1DCT")
    kernel = import_kernels(str(CORPUS / entry["file"]), options(entry))["CUDAkernel1DCT"]()
    img = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    dst = run(kernel, arrays={"TexSrc": img.ravel()})["Dst"].reshape(512, 512)
    table = next(g for g in kernel.globals if g.name == "DCTv8matrix").initial
    d = np.array(table, np.float32).reshape(8, 8)
    for by, bx in ((0, 0), (5, 17), (63, 63)):
        a = img[8 * by:8 * by + 8, 8 * bx:8 * bx + 8]
        got = dst[8 * by:8 * by + 8, 8 * bx:8 * bx + 8]
        assert np.allclose(got, d.T @ a @ d, atol=1e-5)
    r = analyze(kernel)
    assert (r.store.requests, r.store.wavefronts) == (3 * 2 * 4096,) * 2
    assert (r.load.requests, r.load.wavefronts) == ((8 + 8 + 1) * 2 * 4096,) * 2


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


def test_validate_profiles_the_kernel_it_predicted(monkeypatch):
    """`validate FILE.cu` profiles a separate process: it imports the file with the same
    options (-D, --length, --texture, ...) and runs on the same inputs as the prediction
    (the process used to re-import the .cu bare: SGEMM_CUDA kernel 12's template could not
    be bound and dct8x8's texture had no extent)."""
    import sys

    import gpu_backend.measure as measure_mod
    import gpu_backend.target as target
    seen = {}

    def fake_command(argv, kernel_name, timeout=300):
        # the profiled process, run here without ncu: its kernel and inputs are captured
        def fake_run(kernel, params, arrays, check=False):
            seen.update(kernel=kernel, arrays=arrays, params=params)
        monkeypatch.setattr(target, "run_on_gpu", fake_run)
        monkeypatch.setattr(sys, "argv", ["target", *argv[3:]])
        target.main()
        return "measured"

    monkeypatch.setattr(measure_mod, "measure_command", fake_command)
    opts = Options(lengths={"out": "64", "ramp": "n"}, textures={"img": "8, 4"})
    ramp = np.arange(40, dtype=np.float32)
    got = measure_mod.measure(SAMPLE, "sample", {"n": 40}, "sample", options=opts,
                              arrays={"ramp": ramp})
    assert got == "measured"
    assert seen["kernel"].name == "sample" and seen["params"] == {"n": 40}
    assert {g.name for g in seen["kernel"].globals} == {"out", "img", "weights", "ramp"}
    assert list(seen["arrays"]) == ["ramp"] and (seen["arrays"]["ramp"] == ramp).all()


def test_validate_as_compiled_predicts_the_build_it_profiles(monkeypatch):
    """dct8x8 under `validate` on the H100 (docs/validation.md): NVRTC's build of the
    generated CUDA merges a loop's loads into LDS.128, so the source's counts (139,264 loads)
    disagree with ncu's 90,112; `--as-compiled` predicts that build (90,112 loads, 106,496
    wavefronts; measured 106,498) and agrees. The measured figures are the H100's; the GPU is
    replaced here."""
    from tests.conftest import require_nvrtc
    require_nvrtc()
    import gpu_backend.measure as measure_mod
    import smemsim.cli.verbs.validate as validate
    from gpu_backend.measure import Measured
    monkeypatch.setattr(validate, "require_gpu", lambda verb: None)
    measured = Measured(load_requests=90112, store_requests=24576, load_wavefronts=106498,
                        store_wavefronts=24576, load_conflicts=0, store_conflicts=0,
                        ldsm_requests=None, stsm_requests=None, ldgsts_requests=None,
                        atom_requests=None, atom_wavefronts=None, shared_wavefronts=None,
                        misc_wavefronts=None)
    monkeypatch.setattr(measure_mod, "measure", lambda *a, **k: measured)
    entry = next(e for e in ENTRIES if e["kernel"] == "CUDAkernel1DCT")
    args = [str(CORPUS / entry["file"]), "--kernel", "CUDAkernel1DCT", "--texture",
            "TexSrc=512,512", "--launch-grid", "64,64", "--launch-block", "8,8", "-p",
            "ImgWidth=512", "-p", "OffsetXBlocks=0", "-p", "OffsetYBlocks=0", "--length",
            "Dst=512*512", "--frontend", "cpp"]   # (validate profiles the generated CUDA)
    code, out = cli("validate", *args)
    assert code == 1 and "DISAGREES" in out and "139,264" in out
    code, out = cli("validate", *args, "--as-compiled")
    assert code == 0 and "agrees" in out, out
    assert "iterations merged into LDS.128" in out

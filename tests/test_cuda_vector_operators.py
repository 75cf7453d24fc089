"""Vector code as helper_math.h (cuda-samples' Common) writes it, read through the file's own
overloads: operators and functions of float3 chosen by their arguments' types (lerp of
floats and of float3s; max of floats stays CUDA's own), a float3 array in shared memory
given to reference and array parameters, a pointer to a local scalar, a __constant__
float3, and a tile of 16 threads synchronizing where only its half of the warp runs."""
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

HERE = pathlib.Path(__file__).resolve().parent / "cuda"
OPERATORS = HERE / "vector_operators.cu"
LENGTHS = {"out": "64", "codes": "64", "flags": "64"}


def shade(path=OPERATORS):
    return import_kernels(str(path), Options(lengths=LENGTHS))["shade"]()


def expected():
    """The kernel's outputs, computed here from its text."""
    t = np.arange(64, dtype=np.float32)
    sums = np.stack([np.arange(16), 2 * np.arange(16), np.ones(16)], axis=1).astype(np.float32)
    for step in (8, 4):   # lockstep: every lane reads its partner before any lane writes
        sums = sums + sums[np.arange(16) ^ step]
    p = np.stack([t, np.ones(64), 2 * np.ones(64)], axis=1).astype(np.float32)
    q = 2 * p + np.array([0.5, 0, 0], np.float32)
    pts = p + (q - p) * np.float32(0.25)             # lerp(p, q, 0.25)
    r = -pts[63 - np.arange(64)]
    dot = r @ np.array([1.0, 2.0, 0.5], np.float32)  # kWeight
    codes = np.rint(np.clip(t / 64, 0, 1) * 31)      # rintf(__saturatef(x) * 31)
    flags = (codes > 15) + np.maximum(dot, 2.0)      # lerp(1, 3, 0.5) = 2
    out = np.concatenate([sums[np.arange(64) % 16], np.ones((64, 1), np.float32)], axis=1)
    return out.ravel(), codes, flags


def test_helper_math_overloads_give_the_values_the_cuda_computes():
    got = run(shade())
    out, codes, flags = expected()
    assert np.array_equal(got["out"], out)
    assert got["codes"].tolist() == codes.astype(int).tolist()
    assert np.allclose(got["flags"], flags, rtol=1e-6)
    assert got["kWeight"].tolist() == [1.0, 2.0, 0.5]   # the __constant__ float3's values


def test_float3_in_shared_memory_is_three_accesses_12_bytes_apart():
    """pts[t] = lerp(...) through `float3 &p`: three 4-byte stores per warp, lanes 12 bytes
    apart (words 3k: 32 different banks), one wavefront each; the accesses of -pts[...] and
    of += are counted at helper_math.h's lines, where its operators make them."""
    r = analyze(shade())
    # (nvcc stores the constant y and z as their bits: through pts's u32 view, pts_u32)
    stores = [s for s in r.sites if s.array in ("pts", "pts_u32") and s.op == "store"]
    assert [(s.width, s.requests, s.wavefronts) for s in stores] == [(4, 2, 2)] * 3
    assert stores[0].worst.offsets[:3] == (0, 12, 24)
    added = [s for s in r.sites if s.loc.file.endswith("helper_math.h")]
    # operator-(float3 &a), and operator+=(float3 &a, float3 b)'s three lines
    assert {s.loc.line for s in added} == {279, 374, 375, 376}


def test_a_tile_of_16_names_its_own_lanes(tmp_path):
    """`cg::sync(tile)` of tiled_partition(cta, 16) inside `if (t < 16)`: __syncwarp of the
    tile's lanes (0x0000ffff), so lanes 16-31 need not come; a tile of 32 there names
    lanes that do not run it (undefined in CUDA), found at its line."""
    shade()   # the tile of 16: no fault (the values above)
    whole = tmp_path / "vector_operators.cu"
    (tmp_path / "helper_math.h").write_bytes((HERE / "helper_math.h").read_bytes())
    whole.write_text(OPERATORS.read_text().replace("tiled_partition(cta, 16)",
                                                   "tiled_partition(cta, 32)"))
    with pytest.raises(KernelRuntimeError, match=r"vector_operators\.cu:26:.*lane 16 is named "
                                                 r"in the mask 0xffffffff but does not "
                                                 r"execute"):
        run(shade(whole))


@pytest.mark.gpu
def test_on_the_gpu():
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(shade())
    assert result.matches, result.mismatches

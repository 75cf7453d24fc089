"""Triton kernels through Triton's own PTX (smemsim.frontends.ptx.triton_frontend). Skipped where
Triton is not installed (the `triton` extra); the counts asserted are those an H200
measured of the same builds (docs/history/validation-log.md, thirty-first session;
docs/validation/h200-2026-11-29-dsl.json)."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOFTMAX = ROOT / "tests" / "corpus_ptx" / "triton" / "python" / "tutorials" / "02-fused-softmax.py"
TRANSPOSE = ROOT / "tools" / "probes" / "triton" / "transpose.py"
MATMUL = ROOT / "tests" / "corpus_ptx" / "triton" / "python" / "tutorials" / \
    "03-matrix-multiplication.py"


@pytest.fixture(scope="module")
def triton_ptx(nvcc):
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    return nvcc


def analyze(path: pathlib.Path, *options: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "smemsim", "analyze", str(path), "--json",
                           *options], capture_output=True, text=True, timeout=900, cwd=cwd)


def counts(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    (r,) = json.loads(done.stdout)["results"]
    return {c: (v["requests"], v["wavefronts"]) for c, v in r["classes"].items()}


def test_the_fused_softmax_tutorial_asks_for_what_its_host_computes_then_counts_as_the_h200(
        triton_ptx):
    """The tutorial's softmax() takes its tensor as a parameter and sizes its grid from the
    device's properties: each is asked for, by the name the file gives it. Given, the
    counts are those the H200 measured of Triton's build: 29,168 LDS and STS, 14,584
    LDSM.x4 (4 wavefronts each) reading the masked 781-column rows back, 71,008 LDGSTS."""
    done = analyze(SOFTMAX)
    assert done.returncode == 2
    assert "its argument output_ptr is y, which the file computes at run time" in done.stderr
    done = analyze(SOFTMAX, "--host", "x=float32[1823,781]")
    assert "give it with --host num_stages=VALUE" in done.stderr
    done = analyze(SOFTMAX, "--host", "x=float32[1823,781]", "--host", "num_stages=4")
    assert "give its grid with --launch-grid" in done.stderr
    got = counts(analyze(SOFTMAX, "--host", "x=float32[1823,781]", "--host", "num_stages=4",
                         "--launch-grid", "132"))
    assert got["ld"] == (29_168, 29_168) and got["st"] == (29_168, 29_168)
    assert got["ldsm"] == (14_584, 58_336) and got["ldgsts"][0] == 71_008


def test_the_matmul_tutorial_on_hopper_counts_its_wgmma_as_the_h200(triton_ptx):
    """The tutorial's matmul at 512^3 with its autotuner's first config (128 x 256 x 64, 8
    warps, 3 stages), f16: Triton's build stages A and B with cp.async and multiplies with
    wgmma.m64n256k16 through descriptors it makes of the tiles' shared addresses (bfe of the
    address). By hand: 8 programs x 8 K steps x 2 warpgroups x 4 wgmma of 4 warps = 2,048
    gmma requests, each (64 + 256) x 16 halves / 128 bytes = 80 wavefronts; the H200
    measured 2,048 and 40,960, and the epilogue's 1,024 STS, 1,024 LDSM.x4 and 7,680 LDGSTS
    as counted (docs/validation/h200-2026-11-29-triton-matmul.json)."""
    host = ["--host", "a=float16[512,512]", "--host", "b=float16[512,512]",
            "--host", "BLOCK_SIZE_M=128", "--host", "BLOCK_SIZE_N=256",
            "--host", "BLOCK_SIZE_K=64", "--host", "GROUP_SIZE_M=8",
            "--host", 'activation=""', "--host", "num_warps=8", "--host", "num_stages=3"]
    got = counts(analyze(MATMUL, *host))
    assert got["gmma"] == (2_048, 40_960)
    assert got["st"] == (1_024, 4_096) and got["ldsm"] == (1_024, 4_096)
    assert got["ldgsts"][0] == 7_680


def test_a_layout_conversion_through_shared_memory_counts_as_the_h200(triton_ptx, tmp_path):
    """tl.trans of a 64 x 64 f32 tile, 16 x 16 programs of 4 warps: Triton converts the
    layout through shared memory, 32 stores and 32 loads a warp, conflict-free (as
    measured: 32,768 each, 32,768 wavefronts); the file is read, never run (it would need
    torch and a GPU)."""
    got = counts(analyze(TRANSPOSE, cwd=tmp_path))
    assert got["ld"] == (32_768, 32_768) and got["st"] == (32_768, 32_768)


def test_a_triton_file_is_never_run(triton_ptx, tmp_path):
    f = tmp_path / "k.py"
    f.write_text(TRANSPOSE.read_text().replace(
        "import torch\n", "import torch\nimport pathlib\npathlib.Path('RAN').touch()\n"))
    got = counts(analyze(f, cwd=tmp_path))
    assert got["st"] == (32_768, 32_768)
    assert not (tmp_path / "RAN").exists()

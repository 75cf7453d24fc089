"""Ping-pong buffers: shared-memory pointers swapped inside a loop (tests/cuda/ping_pong.cu)
select between the two arrays by a variable each carries, so the kernels compute what CUDA
computes and each access is counted on the array it reaches."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import import_kernels, run  # noqa: E402

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


def by_line(r, line):
    """{kind: requests} of the sites at a line."""
    out = {}
    for s in r.sites:
        if s.loc.line == line and s.requests:
            out[s.op] = out.get(s.op, 0) + s.requests
    return out


def test_jacobi_through_a_temporary_computes_and_counts():
    k = kernel("smooth")
    x = np.random.default_rng(1).uniform(-1, 1, 64 * 256).astype(np.float32)
    out = run(k, arrays={"in": x})["out"]
    want = x.reshape(64, 256).astype(np.float64)
    for _ in range(10):
        padded = np.pad(want, ((0, 0), (1, 1)))
        want = 0.5 * want + 0.25 * (padded[:, :-2] + padded[:, 2:])
    assert np.allclose(out.reshape(64, 256), want, atol=1e-5)
    r = analyze(k)
    # 64 blocks of 8 warps, 10 steps: each reads cur[t] and writes nxt[t] at line 18 (the
    # arrays alternate; nvcc unrolls the loop and keeps each copy's arrays apart); the end
    # reads cur once
    steps = 64 * 8 * 10
    assert by_line(r, 18) == {"load": steps, "store": steps}
    assert by_line(r, 24) == {"load": 64 * 8}
    assert (r.load.requests, r.load.wavefronts) == (64 * 8 * (3 * 10 + 1),) * 2


def test_a_scan_through_cuda_std_swap():
    k = kernel("scan")
    x = np.random.default_rng(2).integers(-100, 100, 16 * 512).astype(np.int32)
    out = run(k, arrays={"in": x, "out": np.zeros(16 * 512, np.int32)})["out"]
    assert (out.reshape(16, 512) == np.cumsum(x.reshape(16, 512), axis=1)).all()
    r = analyze(k)
    # nine steps (d = 1 ... 256) swap src and dst nine times: the end reads y; the step's
    # src[t - d] is read by the warps whose lanes have t >= d (4,624 loads in all, as an
    # H100 measured the user's build, docs/validation.md)
    assert by_line(r, 40) == {"load": 16 * 16}
    assert r.store.requests == 16 * 16 * 10 and r.load.requests == 4624


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
    """Without the barrier before the swap, a step reads what the other threads of the
    previous one have not written yet: `check` finds it, at the line of the read."""
    from smemsim.launch.hazards import check
    lines = PING_PONG.read_text().splitlines()
    assert lines[18].strip() == "__syncthreads();"      # smooth's barrier in the loop
    racy = tmp_path / "racy.cu"
    racy.write_text("\n".join(lines[:18] + [""] + lines[19:]) + "\n")
    k = import_kernels(str(racy), Options(kernel="smooth"))["smooth"]()
    assert check(kernel("smooth")).clean
    racy_report = check(k)
    assert not racy_report.clean
    found = [*racy_report.races, *racy_report.faults]
    assert any(x.loc.line in (16, 17, 18) for x in found), found

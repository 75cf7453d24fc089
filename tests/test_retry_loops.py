"""Loops that retry until a store to shared memory survives (smemsim/launch/retry_loops.py): the
tag-and-retry histograms of the GPUs before shared atomics, counted as the fewest passes
the GPU can take where only one warp's lanes contend for a word."""
from __future__ import annotations

import dataclasses
import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA frontend needs tree-sitter-cuda "
                    "(pip install -e '.[test]')")

from smemsim import analyze  # noqa: E402
from tests.built import import_kernels  # noqa: E402
from smemsim.launch.retry_loops import retry_loops  # noqa: E402
from tests.test_cli import cli  # noqa: E402

HISTOGRAM = pathlib.Path(__file__).resolve().parent / "cuda" / "retry_histogram.cu"
N = 8 * 128 * 16          # main's n: 16 calls a thread, 8 blocks of 4 warps
ZEROS = {"data": np.zeros(N, np.uint8)}


# the loop's line: nvcc's PTX marks the do-while of add_tagged with its first statement's
# line, 14 (no instruction is on the `do {` line, 13)
LOOP = 14


def test_the_retry_loop_is_found_and_no_other():
    """The do-while of add_tagged re-reads the word it stores; the zeroing, data and merge
    loops store nothing they re-read to decide."""
    kernel = import_kernels(str(HISTOGRAM))["one_bin"]()
    loops = retry_loops(kernel)
    assert [(r.line, sorted(r.sites), sorted(r.stores)) for r in loops] == \
        [(LOOP, [1, 2, 3], [2])]


@pytest.mark.parametrize("key, passes", [("one_bin", 32), ("lane_bins", 1)])
def test_passes_are_one_landing_store_per_word(key, passes):
    """On zeros: `one_bin` puts a warp's 32 lanes on one bin, so 32 passes a call, each one
    load, one store and one load for the warp; `lane_bins` one pass. 32 warps x 16 calls;
    besides, 64 zeroing stores and the merge's loads (lanes 0-63: 2 warps x 8 blocks, one
    load of each of the 4 sub-histograms, nvcc's unrolled loop). Every site of the loop is
    a lower bound (only one warp's lanes contend)."""
    r = analyze(import_kernels(str(HISTOGRAM))[key](), arrays=ZEROS)
    loop = 32 * 16 * passes
    assert [(s.site, s.requests) for s in r.sites] == \
        [(0, 64), (1, loop), (2, loop), (3, loop)] + [(n, 16) for n in range(4, 8)]
    assert [(s.retry_loop, s.at_least) for s in r.sites] == \
        [(None, False)] + [(LOOP, True)] * 3 + [(None, False)] * 4


def test_warps_contending_for_one_word_make_it_an_estimate(tmp_path):
    """The same loop over one histogram for the whole block (64 threads, all on bin 0):
    lanes of two warps store to one word, so lock-step's passes are no lower bound."""
    f = tmp_path / "shared_bins.cu"
    f.write_text(HISTOGRAM.read_text().replace(
        "volatile unsigned *mine = s + (threadIdx.x >> 5) * BINS;", "volatile unsigned *mine = s;"))
    r = analyze(import_kernels(str(f))["one_bin"](), arrays=ZEROS)
    assert [(s.retry_loop, s.at_least) for s in r.sites if s.retry_loop] == [(LOOP, False)] * 3
    code, out = cli("analyze", str(f), "--kernel", "one_bin")
    assert code == 0, out
    assert f"estimate: site(s) 1, 2, 3 run in the loop of line {LOOP}" in " ".join(out.split())


def test_the_report_says_at_least_and_why():
    code, out = cli("analyze", str(HISTOGRAM), "--kernel", "one_bin")
    assert code == 0, out
    text = " ".join(out.split())
    assert f"at least: site(s) 1, 2, 3 run in the loop of line {LOOP}, which retries until a " \
           "store to shared memory survives" in text


def test_validate_takes_a_lower_bound_as_one():
    """compare_counts: the load and store instructions of a class with an at-least site may
    be above the prediction, never below it; a kernel without one still needs equality."""
    from gpu_backend.measure import Measured, compare_counts
    r = analyze(import_kernels(str(HISTOGRAM))["one_bin"](), arrays=ZEROS)
    nothing = {f.name: None for f in dataclasses.fields(Measured)}

    def measured(loads, stores):
        return Measured(**(nothing | {"load_requests": loads, "store_requests": stores,
                                      "load_wavefronts": loads, "store_wavefronts": stores}))
    ld, st = r.load.requests, r.store.requests
    assert compare_counts(r, measured(ld, st)).ok
    assert compare_counts(r, measured(ld * 3 // 2, st)).ok      # more passes: fine
    assert not compare_counts(r, measured(ld - 1, st)).ok       # fewer: impossible
    exact = dataclasses.replace(r, sites=tuple(dataclasses.replace(s, at_least=False)
                                               for s in r.sites))
    assert not compare_counts(exact, measured(ld * 3 // 2, st)).ok


@pytest.mark.gpu
def test_on_the_gpu_the_bound_holds_and_is_met_without_contention(tmp_path):
    """ncu on nvcc's -O3 build of retry_histogram.cu (its main: zeros): `lane_bins`, whose
    lanes never contend, issues exactly the predicted instructions; `one_bin`, every lane of
    a warp on one bin, issues at least them."""
    import subprocess

    from gpu_backend.measure import measure_command
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    exe = tmp_path / "retry_histogram"
    subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-lineinfo", "-o", str(exe), str(HISTOGRAM)],
                   check=True, capture_output=True)
    for key in ("lane_bins", "one_bin"):
        kernel = import_kernels(str(HISTOGRAM))[key]()
        r = analyze(kernel, arrays=ZEROS)
        m = measure_command([str(exe)], key)
        print(key, "loads", r.load.requests, m.load_requests, "stores", r.store.requests,
              m.store_requests)
        got = (m.load_requests, m.store_requests)
        if key == "lane_bins":
            assert got == (r.load.requests, r.store.requests), key
        else:
            assert got[0] >= r.load.requests and got[1] >= r.store.requests, key

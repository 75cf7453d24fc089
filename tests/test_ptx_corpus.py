"""Issue #57: the PTX corpus (tests/corpus_ptx: other projects' kernels, verbatim) through
`--frontend ptx` with each entry's own build flags, as tools/ptx_corpus_status.py reads the
whole of it. A few entries that build in seconds: each analyzes, or asks only for what its
host computes at run time (a launch, a value), never an error or a refusal."""
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))




def _entry(file: str) -> dict:
    entries = json.loads((ROOT / "tests" / "corpus_ptx" / "corpus.json").read_text())["entries"]
    return next(e for e in entries if e["file"] == file)


FAST = ["candle/candle-kernels/src/sort.cu",
        "fastertransformer/src/fastertransformer/kernels/matrix_transpose_kernels.cu",
        "transformer_engine/transformer_engine/common/transpose/rtc/transpose.cu",
        "accelerated_computing_hub/events/gtc_spring_2025/talks/"
        "cuda_techniques_compute_and_instruction_S72685/snippets/work_queue.cu"]


@pytest.mark.toolkit
@pytest.mark.parametrize("file", FAST, ids=lambda f: f.split("/")[0])
def test_corpus_entries_analyze_or_ask_for_run_time_values(file, nvcc, tmp_path,
                                                           monkeypatch):
    from ptx_corpus_status import status
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    entry = _entry(file)
    outcome, detail, _ = status(entry, entry["kernels_using_shared"][0])
    assert outcome in ("ok", "asks/lowers"), detail


@pytest.mark.toolkit
def test_cupys_sgemm_with_its_own_macros_counts_every_tile(nvcc, tmp_path, monkeypatch):
    """cupy's examples/gemm/sgemm.cu, built with the -D values of its own launcher
    (64 x 64 blocks of 16 x 16 threads, BLK_K 4, 4 x 4 results a thread), at 256^3: 16
    blocks of 8 warps, 64 k-tiles; a tile's step reads 4 of sA and 4 of sB for each of its 4
    k (32 loads a warp) and stores one float of each (2): 262,144 loads, 16,384 stores."""
    import dataclasses

    from ptx_corpus_status import options_of
    from smemsim import analyze
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    entry = _entry("cupy/examples/gemm/sgemm.cu")
    opts, flags = options_of(entry)
    opts = dataclasses.replace(opts, grid="4, 4", block="16, 16",
                               params={"M": 256, "N": 256, "K": 256},
                               lengths={"A": "M * K", "B": "K * N", "C": "M * N"})
    kernel = import_cu(str(ROOT / "tests" / "corpus_ptx" / entry["file"]), opts, "sgemm",
                       flags=flags)["sgemm"]()
    r = analyze(kernel, {"M": 256, "N": 256, "K": 256})
    assert (r.load.requests, r.store.requests) == (16 * 8 * 64 * 32, 16 * 8 * 64 * 2)

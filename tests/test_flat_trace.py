"""Flat traces: loops summed per block and loops whose iterations repeat, against brute force.

The trace runs one block for blocks that differ only in how many times a collapsible loop
runs (causal attention's key loop, a persistent kernel's tile loop), and counts the repeats
of a loop whose iterations come back to the same carried state (a double-buffer stage) with
the same guard outcomes instead of running them. Both must give the brute-force counts.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from examples import causal_attention, matmul_128x128, persistent_gemm
from kernels_ir import KernelBuilder, PartialRun, SharedAccess, blockIdx, cast, f32, i32, \
    resolve_launch, run, threadIdx
from kernels_ir.periodic import plan
from kernels_ir.stmt import Loop, walk
from smemsim.launch.analysis import analyze
from smemsim.launch.slicing import slice_kernel
from tests.test_analysis import assert_matches_reference


@pytest.mark.slow
@pytest.mark.parametrize("kernel, params, traced", [
    (causal_attention.attention(), {"seq": 96, "heads": 2}, 1),
    (causal_attention.attention(pad=1), {"seq": 64, "heads": 1}, 1),
    # 4 tiles over 3 blocks: trips 2, 1, 1; over 6 blocks: 1, 1, 1, 1, 0, 0
    (persistent_gemm.gemm(sms=3), {"M": 128, "N": 128, "K": 32}, 1),
    (persistent_gemm.gemm(sms=6), {"M": 128, "N": 128, "K": 32}, 2),
    (matmul_128x128.matmul(), {"M": 128, "N": 128, "K": 160}, 1),
], ids=["attention", "attention-pad", "persistent-3", "persistent-6", "matmul-K160"])
def test_flat_traces_match_brute_force(kernel, params, traced):
    report = assert_matches_reference(kernel, params)
    assert report.blocks_traced == traced


def test_causal_attention_counts_grow_with_the_square_of_the_sequence():
    # block b runs b + 1 key tiles; the Ks reads of S = Q K^T: per tile, 8 columns x 64 k x
    # 4 warps = 2,048 requests, so seq 256 (8 blocks, 36 tiles) x 4 heads = 294,912
    r = analyze(causal_attention.attention(), {"seq": 256, "heads": 4})
    ks_reads = next(s for s in r.sites if s.array == "Ks" and s.op == "load")
    assert ks_reads.requests == 2048 * 36 * 4
    assert r.blocks_traced == 1


def test_persistent_blocks_weigh_by_their_own_tiles():
    # 64 tiles of 64 x 64 at n = 512 over 132 blocks: 64 blocks run one tile, 68 run none;
    # per tile and 16-deep K step, 16 kk x 8 warps x 2 loads; K = 512: 32 steps
    r = analyze(persistent_gemm.gemm(), {"M": 512, "N": 512, "K": 512})
    assert r.load.requests == 64 * 32 * 16 * 8 * 2
    assert r.blocks_traced == 2   # one with a tile, one without


def _stages(period: int, trips: int, flip: int, every: int):
    """A loop carrying a stage index of the given period, a guard that changes once (at
    iteration `flip`) and one that recurs every `every` iterations."""
    k = KernelBuilder("stages")
    n = k.param("n")
    s = k.shared("s", f32, (period, 64))
    stage = k.let("stage", 0, i32)
    with k.range("i", 0, n) as i:
        with k.if_(i < flip):
            s[stage, threadIdx.x] = 1.0
        with k.else_():
            s[stage, (threadIdx.x * 2) % 64] = 2.0
        with k.if_((i + threadIdx.x // 32) % every == 0):
            s[(stage + 1) % period, threadIdx.x * period % 64] = 3.0
        stage.set((stage + 1) % period)
    k.launch(1, 64)
    k.defaults(n=trips)
    return k.build()


def _count_events(kernel):
    """(shared access events the interpreter reports, the requests they stand for)."""
    sl = slice_kernel(kernel)
    events, weight = [], []

    def observe(a):
        if isinstance(a, SharedAccess):
            events.append(a)
            weight.append(a.weight * (a.threads.size // 32))

    run(kernel, observer=observe,
        partial=PartialRun(statements=sl.statements, collapse=sl.collapsible))
    return len(events), sum(weight)


def test_a_repeating_loop_is_counted_not_run():
    kernel = _stages(period=3, trips=1000, flip=500, every=4)
    loop = next(s for s in walk(kernel.body) if isinstance(s, Loop))
    p = plan(loop, slice_kernel(kernel).statements)
    assert [v.name for v in p.carried] == ["stage"] and len(p.watched) == 2
    events, requests = _count_events(kernel)
    # 1,000 stores by 2 warps, and the every-4th stores: warp 0 at i % 4 == 0, warp 1 at
    # i % 4 == 3: 250 each
    assert requests == 1000 * 2 + 250 * 2
    # the period is lcm(3, 4) = 12 on either side of the flip: a few periods run, no more
    assert events < 200
    assert_matches_reference(kernel)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 5), st.integers(0, 40), st.integers(0, 45), st.integers(1, 6))
def test_repeating_loops_match_brute_force(period, trips, flip, every):
    assert_matches_reference(_stages(period, trips, flip, every))


def test_the_loop_variable_in_an_address_repeats_with_the_address():
    # (threadIdx.x + i) % 64 takes the same values every 64 iterations
    k = KernelBuilder("rotating")
    s = k.shared("s", f32, 64)
    with k.range("i", 0, 1000) as i:
        s[(threadIdx.x + i) % 64] = 1.0
    k.launch(1, 32)
    kernel = k.build()
    events, requests = _count_events(kernel)
    assert requests == 1000 and events == 64 + 64  # 64 run, then each once again, weighted
    assert_matches_reference(kernel)


def test_a_loop_that_never_repeats_runs_as_written():
    # i itself is watched (acc + i mixes it with carried state): no two iterations alike
    k = KernelBuilder("mixed")
    s = k.shared("s", f32, 64)
    acc = k.let("acc", 0, i32)
    with k.range("i", 0, 200) as i:
        s[(acc + i) % 64] = 1.0
        acc += threadIdx.x
    k.launch(1, 32)
    kernel = k.build()
    loop = next(x for x in walk(kernel.body) if isinstance(x, Loop))
    p = plan(loop, slice_kernel(kernel).statements)
    assert [v.name for v in p.carried] == ["acc"] and [e.arg.name for e in p.watched] == ["i"]
    assert _count_events(kernel) == (200, 200)
    assert_matches_reference(kernel)


def test_blocks_run_in_chunks_give_the_same_counts(monkeypatch):
    # blocks run a few at a time, their requests merged as they come: 40 blocks whose addresses read blockIdx.x, 64 threads each, 3 blocks per chunk; and a
    # data-dependent kernel (every block runs on its data) likewise
    import smemsim.launch.trace as trace
    from examples import histogram

    k = KernelBuilder("per_block")
    s = k.shared("s", f32, 128)
    s[(threadIdx.x * (blockIdx.x % 5 + 1)) % 128] = 1.0
    k.launch(40, 64)
    per_block = k.build()
    data = histogram.KERNELS["text"]()
    whole = [analyze(per_block), analyze(data)]
    monkeypatch.setattr(trace, "CHUNK_THREADS", 200)
    monkeypatch.setattr(trace._Collector, "COMPACT_ROWS", 10)  # and merge as they come
    chunked = [analyze(per_block), analyze(data)]
    for a, b in zip(whole, chunked):
        # (the worst request is one of equally bad ones; which depends on the run order)
        assert [(x.requests, x.wavefronts, x.histogram, x.worst.wavefronts) for x in a.sites] \
            == [(x.requests, x.wavefronts, x.histogram, x.worst.wavefronts) for x in b.sites]
    assert chunked[1].mode == "full"
    assert_matches_reference(per_block)


@pytest.mark.parametrize("key", ["text", "weighted"])
def test_a_run_on_data_folded_by_cost_reports_what_the_unfolded_run_does(monkeypatch, key):
    """A run on data keeps one request per distinct cost (trace_launch's `fold`) once more
    than FOLD_ROWS are held: every count, the histogram of costs and the worst request with
    where it was first issued are those of the requests kept whole (#28)."""
    import smemsim.launch.trace as trace
    from examples import histogram
    from smemsim.frontends.loader import input_arrays

    kernel = histogram.KERNELS[key]()
    params = {"n": 1 << 17}
    arrays = lambda: input_arrays("examples/histogram.py", key,
                                  __import__("kernels_ir").resolve_launch(kernel, params))
    monkeypatch.setattr(trace._Collector, "FOLD_ROWS", 1 << 30)
    whole = analyze(kernel, params, arrays=arrays())
    monkeypatch.setattr(trace._Collector, "FOLD_ROWS", 100)
    folded = analyze(kernel, params, arrays=arrays())
    assert folded.mode == "full" and whole.sites == folded.sites
    atomic = folded.site(1)
    assert atomic.requests == (1 << 17) // 32 and atomic.data_dependent


def _scan_like(n_blocks: int):
    """A scan's epilogue (djhshih/quist's prescan, its shape): each thread's element j =
    tid + blockIdx.x * 256 - 1 is written back where j >= 0, and the block's last element
    once more where (j + 1) % 256 == 0 (then j is 255 past the block's start). Both guards
    read blockIdx.x, the second through a remainder no range of blocks decides: every block
    was its own class. By the decisions they take, block 0 (whose thread 0 has j = -1) and
    all the others are two."""
    k = KernelBuilder("scan_tail")
    out = k.global_array("out", f32, n_blocks * 256, intent="out")
    s = k.shared("s", f32, 512)
    t = cast(threadIdx.x, i32)
    s[t] = 1.0
    s[t + 256] = 2.0
    k.syncthreads()
    j = k.let("j", t + cast(blockIdx.x, i32) * 256 - 1, i32)
    with k.if_(j >= 0):
        out[j] = s[t * 2]
        with k.if_((j + 1) % 256 == 0):
            out[j] = s[t + 256]
    k.launch(n_blocks, 256)
    return k.build()


def test_blocks_a_guards_remainder_reads_are_classed_by_the_decisions_they_take(monkeypatch):
    from smemsim.launch import trace
    kernel = _scan_like(300)
    report = assert_matches_reference(kernel)
    # two stores a warp in every block; block 0's thread 0 skips both loads, its other
    # warps load s[2t] (8 requests), as every other block's 8 warps do, and each other
    # block's thread 255 loads s[511] (j + 1 = 256 bx): 8 + 299 * 8 and 299 requests
    assert [s.requests for s in report.sites] == [2400, 2400, 8 + 299 * 8, 299]
    tr = trace.trace_launch(kernel, resolve_launch(kernel, {}))
    assert tr.blocks_run == 2
    # with the classing off, every block runs (the counts the same)
    monkeypatch.setattr(trace, "CONTROL_CLASSES", 10 ** 9)
    assert trace.trace_launch(kernel, resolve_launch(kernel, {})).blocks_run == 300

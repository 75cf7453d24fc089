"""Hazards: each found on a minimal kernel and not reported on its corrected twin; fuzzing."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from examples import reed_solomon
from kernels_ir import (
    KernelBuilder, KernelError, KernelRuntimeError, blockIdx, f32, i32, run, threadIdx, u8, u16,
    u32,
)
from smemsim.launch.hazards import check, launch_limits, sweep
from smemsim.launch.races import concurrent_site_pairs


def exchange(barrier: bool):
    """Each thread writes s[t] and reads s[63 - t]: a race unless a barrier separates them."""
    k = KernelBuilder("exchange_sync" if barrier else "exchange")
    out = k.global_array("out", f32, 64, intent="out")
    s = k.shared("s", f32, 64)
    s[threadIdx.x] = 1.0
    if barrier:
        k.syncthreads()
    out[threadIdx.x] = s[63 - threadIdx.x]
    k.launch(1, 64)
    return k.build()


def test_read_write_race_and_its_barrier_fix():
    racy = check(exchange(False))
    (race,) = racy.races
    assert race.kind == "read-write" and race.array == "s" and race.element == (0,)
    assert (race.first, race.second) == (0, 1)
    assert race.threads == ((0, 0, 0), (63, 0, 0))
    assert race.interval == "before the first barrier"
    assert "test_hazards.py" in str(race.first_loc)
    fixed = check(exchange(True))
    assert fixed.clean and (0, 1) not in fixed.concurrent_sites


def test_write_write_race_and_a_single_writer():
    def kernel(one_writer):
        k = KernelBuilder("flag")
        out = k.global_array("out", i32, 32, intent="out")
        s = k.shared("s", i32, 4)
        if one_writer:
            with k.if_(threadIdx.x == 0):
                s[0] = threadIdx.x
        else:
            s[0] = threadIdx.x
        k.syncthreads()
        out[threadIdx.x] = s[0]
        k.launch(1, 32)
        return k.build()
    (race,) = check(kernel(False)).races
    assert race.kind == "write-write" and race.first == race.second == 0
    assert check(kernel(True)).clean


def test_a_barrier_inside_a_loop_separates_iterations():
    k = KernelBuilder("ping_pong")
    out = k.global_array("out", f32, 32, intent="out")
    s = k.shared("s", f32, 32)
    acc = k.let("acc", 0.0)
    with k.range("i", 0, 4) as i:
        s[threadIdx.x] = acc + 1.0
        k.syncthreads()
        acc += s[31 - threadIdx.x]
        k.syncthreads()  # without it the next iteration's store races with this read
    out[threadIdx.x] = acc
    k.launch(1, 32)
    assert check(k.build()).clean
    # the same loop without the second barrier: read of iteration i vs store of i + 1
    k2 = KernelBuilder("ping_pong_racy")
    out2 = k2.global_array("out", f32, 32, intent="out")
    s2 = k2.shared("s", f32, 32)
    acc2 = k2.let("acc", 0.0)
    with k2.range("i", 0, 4):
        s2[threadIdx.x] = acc2 + 1.0
        k2.syncthreads()
        acc2 += s2[31 - threadIdx.x]
    out2[threadIdx.x] = acc2
    k2.launch(1, 32)
    r = check(k2.build())
    assert [(x.first, x.second, x.kind) for x in r.races] == [(0, 1, "read-write")]
    assert "after the barrier at line" in r.races[0].interval


def test_divergent_barrier_and_hoisted_twin():
    def kernel(hoisted):
        k = KernelBuilder("guarded_sync")
        out = k.global_array("out", f32, 64, intent="out")
        if hoisted:
            k.syncthreads()
            with k.if_(threadIdx.x < 40):
                out[threadIdx.x] = 1.0
        else:
            with k.if_(threadIdx.x < 40):
                k.syncthreads()
                out[threadIdx.x] = 1.0
        k.launch(1, 64)
        return k.build()
    (fault,) = check(kernel(False)).faults
    assert fault.kind == "divergent_barrier" and "40 of 64 threads" in fault.message
    assert check(kernel(True)).clean


def test_seed000_square_tiling_bites_at_sizes_that_are_not_multiples_of_16():
    results = sweep(reed_solomon.square(), "B_width", [240, 250, 256, 260, 320])
    bites = [w for w, r in results.items() if any(f.kind == "divergent_barrier"
                                                   for f in r.faults)]
    assert bites == [250, 260]


def test_out_of_bounds_names_the_first_block_thread_and_iteration():
    def kernel(stop):
        k = KernelBuilder("oob")
        out = k.global_array("out", f32, 64, intent="out")
        s = k.shared("s", f32, (2, 32))
        with k.range("r", 0, stop) as r:
            s[r, threadIdx.x] = 0.0
        out[threadIdx.x] = 1.0
        k.launch(2, 32)
        return k.build()
    (fault,) = check(kernel(3)).faults
    assert fault.kind == "out_of_bounds"
    assert "index 2 of dimension 0 of 's' (valid 0..1)" in fault.message
    assert "block (0, 0, 0); thread (0, 0, 0); iteration r=2" in fault.message
    assert check(kernel(2)).clean


def test_out_of_bounds_global():
    k = KernelBuilder("oob_global")
    n = k.param("n")
    src = k.global_array("src", f32, n)
    out = k.global_array("out", f32, n, intent="out")
    out[threadIdx.x] = src[threadIdx.x + 1]
    k.launch(1, 32)
    k.defaults(n=32)
    (fault,) = check(k.build()).faults
    assert "index 32 of 'src' (valid 0..31)" in fault.message
    assert "thread (31, 0, 0)" in fault.message


def test_misaligned_vector_access_and_aligned_twin():
    def kernel(scale):
        k = KernelBuilder("vec")
        out = k.global_array("out", f32, 64, intent="out")
        s = k.shared("s", f32, 256)
        with k.range("e", threadIdx.x, 256, 32) as e:
            s[e] = 0.0
        k.syncthreads()
        v = s.load(threadIdx.x * scale, width=4)
        out[threadIdx.x] = v[0]
        k.launch(1, 32)
        return k.build()
    (fault,) = check(kernel(2)).faults
    assert fault.kind == "misaligned" and "misaligned 16-byte access to 's'" in fault.message
    assert check(kernel(4)).clean


def test_limits_name_the_limit_and_the_value():
    k = KernelBuilder("big")
    k.shared("a", f32, 8192)  # 32 KiB static: fine
    with pytest.raises(KernelError, match="'b' brings static shared memory to 65536 bytes; "
                                          r"CUDA allows at most 49152 \(48 KiB\)"):
        k.shared("b", f32, 8192)  # 64 KiB static: ptxas refuses it on every architecture
    k = KernelBuilder("dyn")
    d = k.param("bytes")
    k.dynamic_shared("d", f32)
    k.launch(1, 32, dynamic_smem=d)
    dyn = k.build()
    assert "exceeds sm_90's 232448 B per block" in launch_limits(dyn, "sm_90", {"bytes": 240000})[0]
    assert "exceeds sm_86's 101376 B" in launch_limits(dyn, "sm_86", {"bytes": 120000})[0]
    assert launch_limits(dyn, "sm_90", {"bytes": 1024}) == ()
    assert "300 registers per thread exceed the limit of 255" in \
        launch_limits(dyn, "sm_90", {"bytes": 0}, registers=300)[0]
    k = KernelBuilder("wide")
    k.launch(1, (64, 32))
    with pytest.raises(KernelError, match="has 2048 threads; the limit is 1024"):
        check(k.build())


def test_concurrent_pairs_come_from_the_barrier_graph():
    assert concurrent_site_pairs(exchange(False)) == ((0, 0), (0, 1))
    assert concurrent_site_pairs(exchange(True)) == ((0, 0),)


def test_the_check_records_only_sites_of_pairs_that_may_race():
    """Seed 003's tiled GEMM: the tile loads (sites 2, 3: line 58) come after the barrier
    that follows the stores and before the next one, so they share an interval with no
    write; the recorder keeps none of their rows (the full check's 11 s -> 1.3 s,
    docs/performance.md), only the stores' (sites 0, 1)."""
    import numpy as np

    from examples.matmul_float_tiled import KERNELS
    from kernels_ir import PartialRun, resolve_launch, run
    from smemsim.launch.races import Recorder
    kernel = KERNELS["tiled"]()
    pairs = concurrent_site_pairs(kernel)
    assert pairs == ((0, 0), (0, 1), (1, 1))
    launch = resolve_launch(kernel, {})
    scanned = []
    rec = Recorder(launch, np.array([0]), lambda r, rows: scanned.append(rows), pairs)
    run(kernel, dict(launch.params), observer=rec, partial=PartialRun(blocks=np.array([0])))
    rows = np.concatenate(scanned + [rec.take()])
    assert sorted(set(rows[:, 4].tolist())) == [0, 1]


# ---------------------------------------------------------------- fuzzing

@st.composite
def kernels(draw, allow_out_of_range=False):
    """Random small kernels: loops, guards, strides, widths, paddings, barriers."""
    dtype = draw(st.sampled_from([u8, u16, f32, i32]))
    width = draw(st.sampled_from([w for w in (1, 2, 4) if w * dtype.size <= 16]))
    rows = draw(st.sampled_from([2, 4, 8]))
    cols = draw(st.sampled_from([8, 16, 32])) * width
    pad = draw(st.sampled_from([0, width]))
    bx = draw(st.sampled_from([16, 32, 64]))
    a, b, c = (draw(st.integers(0, 7)) for _ in range(3))
    extra = draw(st.integers(0, 40)) if allow_out_of_range else 0
    trip = draw(st.integers(0, 3))
    guard = draw(st.integers(0, bx))
    barrier = draw(st.booleans())
    k = KernelBuilder("fuzz")
    out = k.global_array("out", i32, bx, intent="out")
    s = k.shared("s", dtype, (rows, cols), pad=pad)
    with k.range("e", threadIdx.x, rows * cols, bx) as e:  # shared memory starts undefined
        s[e // cols, e % cols] = 0
    k.syncthreads()
    acc = k.let("acc", 0, i32)
    with k.range("i", 0, trip) as i:
        r = (a * threadIdx.x + i) % rows
        col = ((b * threadIdx.x + c * i) % (cols // width)) * width + extra
        with k.if_(threadIdx.x < guard):
            s.store((r, col), [threadIdx.x] * width, width=width)
        if barrier:
            k.syncthreads()
        v = s.load(((r + 1) % rows, col), width=width)
        acc += v[0] if width > 1 else v
        if barrier:
            k.syncthreads()
    out[threadIdx.x] = acc
    k.launch(1, bx)
    return k.build()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_the_interpreter_never_crashes_on_valid_kernels(kernel):
    run(kernel)
    report = check(kernel)
    assert not report.faults and not report.limits


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(allow_out_of_range=True))
def test_bad_kernels_get_located_errors_not_numpy_exceptions(kernel):
    try:
        run(kernel)
    except KernelRuntimeError as err:
        assert err.loc is not None and err.block is not None and err.thread is not None
    report = check(kernel)
    for f in report.faults:
        assert f.kind in ("out_of_bounds", "misaligned", "uninitialized_read"), f.message


def test_reading_shared_memory_no_thread_wrote_and_the_filled_twin():
    def kernel(fill):
        k = KernelBuilder("uninit")
        out = k.global_array("out", f32, 32, intent="out")
        s = k.shared("s", f32, 64)
        s[threadIdx.x] = 1.0
        if fill:
            s[threadIdx.x + 32] = 2.0
        k.syncthreads()
        out[threadIdx.x] = s[threadIdx.x + 32]
        k.launch(1, 32)
        return k.build()
    (fault,) = check(kernel(False)).faults
    assert fault.kind == "uninitialized_read"
    assert "reads shared memory no thread has written ('s', byte 128" in fault.message
    assert check(kernel(True)).clean


def _flag(value_of):
    k = KernelBuilder("flag")
    s = k.shared("flag", u32, 4)
    out = k.global_array("out", u32, 32, intent="out")
    s[0] = value_of(threadIdx.x)   # every thread of the block writes flag[0]
    k.syncthreads()
    out[threadIdx.x] = s[0]
    k.launch(1, 32)
    return k.build()


def test_same_value_writes_are_a_separate_lower_severity_finding():
    h = check(_flag(lambda t: 1))
    assert h.clean and h.races == ()
    (r,) = h.same_value
    assert r.kind == "same-value write-write" and r.element == (0,) and r.benign
    # 0, 1, 2, ...: byte 0 differs (bytes 1-3 are all 0): one order-dependent race, no warning
    h = check(_flag(lambda t: t))
    assert not h.clean and [r.kind for r in h.races] == ["write-write"] and h.same_value == ()


def test_the_check_verb_warns_about_same_value_writes_and_exits_0(tmp_path):
    from tests.test_cli import cli
    f = tmp_path / "flag.py"
    f.write_text("from tests.test_hazards import _flag\n"
                 "KERNELS = {'flag': lambda: _flag(lambda t: 1)}\n")
    code, out = cli("check", str(f), width=300)
    assert code == 0
    assert "flag (no parameters): no hazard that changes a result; warnings:" in out
    assert "warning: same-value write-write race on flag[0]" in out


def _race_in_block(target):
    from kernels_ir import blockIdx
    k = KernelBuilder("late_race")
    s = k.shared("s", f32, 64)
    out = k.global_array("out", f32, 8 * 64, intent="out")
    s[threadIdx.x] = 1.0
    with k.if_(blockIdx.x == target):
        s[(threadIdx.x + 1) % 64] = 2.0   # a neighbour's word, no barrier: write-write
    k.syncthreads()
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x]
    k.launch(8, 64)
    return k.build()


def test_check_runs_in_block_chunks_in_bounded_memory(monkeypatch):
    """Past the memory bound a chunk reruns in smaller pieces; races keep their grid block."""
    import smemsim.launch.races as hz
    whole = check(_race_in_block(5))
    monkeypatch.setattr(hz, "MAX_OPEN_ROWS", 600)   # one block's interval: 64 x 4 x 2 bytes
    monkeypatch.setattr(hz, "FLUSH_ROWS", 100)
    chunked = check(_race_in_block(5))
    assert [(r.kind, r.block, r.threads) for r in chunked.races] == \
        [(r.kind, r.block, r.threads) for r in whole.races]
    assert chunked.races[0].block == (5, 0, 0)


def test_a_loop_without_end_stops_the_check_with_its_location(monkeypatch):
    import smemsim.launch.races as hz
    monkeypatch.setattr(hz, "MAX_OPEN_ROWS", 20000)
    k = KernelBuilder("endless")
    s = k.shared("s", f32, 64)
    s[threadIdx.x] = 1.0
    k.syncthreads()
    with k.loop("i", 0, lambda i: i >= 0, update=lambda i: i + 1) as i:
        s[threadIdx.x] = s[threadIdx.x] + 1.0
    k.launch(2, 64)
    h = check(k.build())
    (fault,) = h.faults
    assert fault.kind == "incomplete" and not h.clean
    assert "check stopped at" in fault.message and "i=" in fault.message
    assert "A loop that never ends, or never reaches a __syncthreads()?" in fault.message


def test_a_loop_with_no_closed_form_end_is_endless_after_the_loop_limit():
    """Only reads in the loop (no pair may race, so nothing is recorded and no memory bound
    stops it): the loop limit reports it, at its line, in every block, for check and
    analyze alike."""
    from smemsim import analyze
    k = KernelBuilder("endless_reads")
    s = k.shared("s", f32, 64)
    out = k.global_array("out", f32, 64, intent="out")
    s[threadIdx.x] = 1.0
    k.syncthreads()
    with k.loop("i", 0, lambda i: i >= 0, update=lambda i: i + 1):
        out[threadIdx.x] = s[threadIdx.x] + 1.0
    k.launch(2, 64)
    kernel = k.build()
    h = check(kernel, loop_limit=100)
    (fault,) = h.faults
    assert (fault.kind, fault.blocks) == ("endless_loop", 2) and not h.clean
    assert "loop 'i' ran 101 iterations without ending" in fault.message
    with pytest.raises(KernelRuntimeError, match="ran 101 iterations without ending"):
        analyze(kernel, loop_limit=100)


def _two_faults():
    """Even blocks >= 2 store past the end of t at one line, odd blocks at another."""
    k = KernelBuilder("two_faults")
    t = k.shared("t", f32, 64)
    with k.if_(blockIdx.x % 2 == 0):
        t[threadIdx.x + blockIdx.x] = 1.0
    with k.else_():
        t[threadIdx.x * 2] = 2.0
    k.launch(8, 64)
    return k.build()


def test_every_distinct_fault_is_reported_once_with_its_block_count():
    h = check(_two_faults())
    assert sorted((f.kind, f.blocks) for f in h.faults) == [("out_of_bounds", 3),
                                                            ("out_of_bounds", 4)]
    lines = {f.message.split("line ")[1].split(":")[1].split()[0] for f in h.faults}
    assert len(lines) == 2  # two statements
    assert (h.blocks_checked, h.blocks_total, h.unchecked) == (8, 8, None)


def test_the_fault_search_stops_at_its_cap_and_says_how_much_is_left(monkeypatch):
    """The full run stops looking once MAX_FAULT_BLOCKS blocks have faulted, and says so;
    the address-only shared run counts each fault by its class, running one block of each,
    so it needs no cap (here every faulting block: 3 + 4). The full run counts the blocks a
    fault names together: the first fault (`t[threadIdx.x + blockIdx.x]`) is blocks 2, 4
    and 6's, run apart and counted at once, past the cap of 2; blocks 0, 1, 3, 5 and 7 are
    left."""
    import smemsim.launch.faults as faults
    monkeypatch.setattr(faults, "MAX_FAULT_BLOCKS", 2)
    assert sum(f.blocks for f in check(_two_faults()).faults) == 7
    h = check(_two_faults(), sliced=False)
    assert sum(f.blocks for f in h.faults) == 3
    assert h.unchecked.startswith("stopped after 3 faulting blocks: 5 block(s) not checked")
    assert h.blocks_checked < 8


def test_chosen_blocks_are_checked_alone():
    h = check(_two_faults(), blocks=[0, 2])
    assert (h.blocks_checked, [f.blocks for f in h.faults]) == (2, [1])
    assert "block (2, 0, 0)" in h.faults[0].message
    assert check(_two_faults(), blocks=[0]).clean
    with pytest.raises(KernelError, match=r"block 8 is outside the grid \(8, 1, 1\)"):
        check(_two_faults(), blocks=[8])


def test_blocks_a_fault_names_are_counted_from_one_run(monkeypatch):
    """A fault names every block whose lanes fault at its statement (each block's first
    fault: the blocks of a run go in step): the full run counts them from the run that met
    it instead of running its range again in quarters down to each block (a new user's
    numba GEMM reading past B in every block: 140 s -> 25 s). 16 blocks that all read past
    the end: one run, 16 blocks; the first block's fault is the one said."""
    import smemsim.launch.hazards as hazards
    k = KernelBuilder("all_past")
    a = k.global_array("a", f32, 64)
    out = k.global_array("out", f32, 16 * 64, intent="out")
    out[blockIdx.x * 64 + threadIdx.x] = a[threadIdx.x + 1]
    k.launch(16, 64)
    kernel = k.build()
    runs = []
    real = hazards.run
    monkeypatch.setattr(hazards, "run", lambda *a, **kw: runs.append(1) or real(*a, **kw))
    h = check(kernel, sliced=False)
    (fault,) = h.faults
    assert (fault.kind, fault.blocks, len(runs)) == ("out_of_bounds", 16, 1)
    assert "block (0, 0, 0); thread (63, 0, 0)" in fault.message

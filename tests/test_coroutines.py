"""Warp specialization: the branches of an `if` that wait on mbarriers run as coroutines
(kernels_ir.coroutines), so a producer warp and a consumer warp that wait on each other make
progress as on the GPU, and only a wait nothing can satisfy is reported as a hang."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from kernels_ir import KernelBuilder, KernelRuntimeError, cast, f32, i32, run, threadIdx


def pipeline(stages: int = 2, chunks: int = 6, producer_arrives: bool = True,
             consumer_column: int = 32):
    """Warp 0 produces chunks of 32 floats into a ring of `stages` slots, warp 1 consumes
    them (out = 2 src): `full[s]` counts the producer's 32 arrivals, `empty[s]` the
    consumer's; each side waits on the other's barrier by phase parity."""
    k = KernelBuilder("pipeline")
    src = k.global_array("src", f32, chunks * 32)
    out = k.global_array("out", f32, chunks * 32, intent="out")
    buf = k.shared("buf", f32, (stages, 32))
    full = k.shared("full", "u64", stages)
    empty = k.shared("empty", "u64", stages)
    t = cast(threadIdx.x, i32)
    with k.if_(t == 0):
        with k.range("s", 0, stages) as s:
            k.mbarrier_init(full, s, 32)
            k.mbarrier_init(empty, s, 32)
    k.syncthreads()
    with k.if_(t < 32):                                   # the producer warp
        with k.range("c", 0, chunks) as c:
            with k.if_(c >= stages):                      # its slot's previous use consumed
                k.mbarrier_wait(empty, c % stages, (c // stages - 1) % 2)
            buf[c % stages, t] = src[c * 32 + t]
            if producer_arrives:
                k.mbarrier_arrive(full, c % stages)
    with k.else_():                                       # the consumer warp
        with k.range("c", 0, chunks) as c:
            k.mbarrier_wait(full, c % stages, (c // stages) % 2)
            out[c * 32 + t - 32] = buf[c % stages, t - consumer_column] * 2
            k.mbarrier_arrive(empty, c % stages)
    k.launch(grid=1, block=64)
    return k.build()


def test_a_producer_and_a_consumer_warp_run_side_by_side():
    """Six chunks through two slots: the producer waits for slots the consumer frees; in
    lockstep (one branch, then the other) its first such wait could never complete."""
    src = np.arange(6 * 32, dtype=np.float32)
    assert np.array_equal(run(pipeline(), {}, {"src": src})["out"], 2 * src)


def test_a_wait_nothing_can_satisfy_is_still_a_hang():
    """The producer never arrives on `full`: the consumer's first wait can never complete
    (the producer finishes, or waits on `empty` forever), which is the GPU's hang."""
    before = threading.active_count()
    with pytest.raises(KernelRuntimeError, match=r"mbarrier 'full', which never completes: 0 "
                                                 r"of its 32 arrivals came\. The GPU would "
                                                 r"hang here"):
        run(pipeline(producer_arrives=False), {}, {})
    assert threading.active_count() == before    # no branch left behind


def test_a_fault_in_one_branch_abandons_the_other():
    """The consumer indexes past its slot (column t - 0 for t >= 32) while the producer is
    suspended in a wait: the fault names the consumer's lane, and the producer's branch is
    unwound, not left waiting."""
    before = threading.active_count()
    with pytest.raises(KernelRuntimeError, match=r"index 32 of dimension 1 .*'buf'.*thread "
                                                 r"\(32, 0, 0\)"):
        run(pipeline(consumer_column=0), {}, {})
    assert threading.active_count() == before


def test_a_run_leaves_no_cycle_holding_its_per_thread_arrays():
    """A run's machine is freed when the run returns, not when Python's cycle collector
    next runs (which counts objects, not bytes): a check of a 65,536-block grid-stride
    reduction held 51 runs' arrays at once, 312 MB, through a recursive closure over the
    machine and the scheduler's reference back to it. Both are exercised here: a
    grid-stride loop's launch constant and a warp-specialized pipeline."""
    import gc
    from kernels_ir import blockDim, gridDim
    from kernels_ir.interpreter import Machine
    k = KernelBuilder("stride")
    a = k.global_array("a", f32, 4096, intent="inout")
    i = k.let("i", cast(threadIdx.x, i32), i32)
    with k.loop("j", i, lambda j: j < 4096, step=cast(blockDim.x * gridDim.x, i32)) as j:
        a[j] = a[j] * 2
    k.launch(grid=2, block=64)
    stride = k.build()
    live = lambda: sum(isinstance(o, Machine) for o in gc.get_objects())  # noqa: E731
    gc.collect()
    gc.disable()
    try:
        before = live()
        run(stride, {}, {"a": np.ones(4096, np.float32)})
        run(pipeline(), {}, {"src": np.arange(6 * 32, dtype=np.float32)})
        after = live()
    finally:
        gc.enable()
    assert (before, after) == (0, 0)

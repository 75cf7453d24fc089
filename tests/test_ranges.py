"""Per-block intervals (smemsim.launch.ranges) and the block classes built on them
(smemsim.launch.trace).

The property: whatever the interpreter computes for an expression in a block, over all of the
block's threads and loop iterations, lies in the interval the ranges give that block, and a
comparison the ranges decide has that one value on every lane.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kernels_ir import (
    KernelBuilder, KernelRuntimeError, blockIdx, cast, f64, i32, resolve_launch, run, select,
    smax, smin, threadIdx, u32,
)
from kernels_ir.expr import COMPARE_OPS
from smemsim.launch.ranges import UNDECIDED, BlockRanges
from smemsim.launch.slicing import slice_kernel
from smemsim.launch.trace import _block_classes

GRID, BLOCK, TRIPS = 4, 16, 5


def _leaves(i, n):
    return [threadIdx.x, blockIdx.x, i, n, cast(threadIdx.x, i32), cast(blockIdx.x, i32)]


@st.composite
def expressions(draw, i, n, depth=3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            return draw(st.sampled_from(_leaves(i, n)))
        return draw(st.integers(-20, 40))
    a = draw(expressions(i, n, depth - 1))
    b = draw(expressions(i, n, depth - 1))
    op = draw(st.sampled_from(["+", "-", "*", "//", "%", "<<", ">>", "&", "min", "max",
                               "select", "<", "<=", ">", ">=", "==", "!=", "u32"]))
    if not hasattr(a, "op") and not hasattr(b, "op"):
        a = threadIdx.x  # at least one side is an expression
    if op in ("<<", ">>"):
        b = draw(st.integers(0, 4))
    table = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "//": lambda: a // b,
        "%": lambda: a % b, "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
        "min": lambda: smin(a, b), "max": lambda: smax(a, b),
        "select": lambda: select(threadIdx.x & 1, a, b), "<": lambda: a < b,
        "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b, "==": lambda: a == b,
        "!=": lambda: a != b, "u32": lambda: cast(a, u32),
    }
    try:
        return table[op]()
    except Exception:
        assume(False)


@st.composite
def probes(draw):
    """A kernel storing one expression's value per (block, thread, iteration), and the
    expression as it stands in the kernel."""
    k = KernelBuilder("probe")
    n = k.param("n")
    out = k.global_array("out", f64, GRID * BLOCK * TRIPS, intent="out")
    stop = draw(st.sampled_from([TRIPS, blockIdx.x + 2, threadIdx.x % 4 + 1]))
    box = {}
    with k.range("i", 0, stop) as i:
        e = draw(expressions(i, n))
        if not hasattr(e, "op"):
            e = i + e
        box["e"] = e
        x = k.let("x", e)
        out[(blockIdx.x * BLOCK + threadIdx.x) * TRIPS + i] = cast(x, f64)
    k.launch(GRID, BLOCK)
    k.defaults(n=draw(st.integers(-5, 50)))
    return k.build(), box["e"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(probes())
def test_intervals_contain_every_value_the_interpreter_computes(probe):
    kernel, e = probe
    try:
        values = run(kernel)["out"].reshape(GRID, BLOCK * TRIPS)
    except KernelRuntimeError:
        assume(False)  # undefined behaviour somewhere (division by zero, ...)
    launch = resolve_launch(kernel)
    ranges = BlockRanges(kernel, launch, np.arange(GRID))
    lo, hi = ranges.expr(e)
    for b in range(GRID):
        got = values[b][~np.isnan(values[b])]
        if got.size:
            assert lo[b] <= got.min() and got.max() <= hi[b], (b, lo[b], hi[b], got)
    if e.op in COMPARE_OPS:
        decided = ranges.decide(e)
        for b in range(GRID):
            got = values[b][~np.isnan(values[b])]
            if got.size and decided[b] != UNDECIDED:
                assert (got == decided[b]).all(), (b, decided[b], np.unique(got))


def test_a_select_converts_both_sides_to_its_type():
    """Found by the property above: `tid & 1 ? tid : -1` is unsigned (tid is), so its -1
    side is 4294967295 and the interval may not end at 15."""
    k = KernelBuilder("sel")
    out = k.global_array("out", f64, BLOCK, intent="out")
    e = select(threadIdx.x & 1, threadIdx.x, -1)
    out[threadIdx.x] = cast(e, f64)
    k.launch(1, BLOCK)
    kernel = k.build()
    assert run(kernel)["out"].max() == 2**32 - 1
    lo, hi = BlockRanges(kernel, resolve_launch(kernel), np.arange(1)).expr(e)
    assert hi[0] >= 2**32 - 1


def test_block_classes_cover_every_block_once_and_split_where_guards_differ():
    k = KernelBuilder("classes")
    s = k.shared("s", i32, 64)
    with k.if_(blockIdx.x < 3):
        s[threadIdx.x] = 1
    with k.else_():
        s[(threadIdx.x * 2) % 64] = 2
    k.launch((8, 5), 32)
    kernel = k.build()
    launch = resolve_launch(kernel)
    classes = list(_block_classes(kernel, launch, slice_kernel(kernel)))
    # blockIdx.x < 3 and >= 3 resolve the guard differently: two classes; within each, the
    # variant no longer reads blockIdx at all, so one block stands for all of its class
    assert len(classes) == 2
    assert sorted(int(w.sum()) for _, _, _, w, _ in classes) == [15, 25]
    for variant, vs, blocks, weights, totals in classes:
        assert totals == {}
        assert blocks.size == 1 and vs.block_axes == frozenset()


def test_block_classes_keep_the_axes_the_addresses_still_read():
    k = KernelBuilder("axes")
    s = k.shared("s", i32, 64)
    s[(threadIdx.x + blockIdx.y) % 64] = 1
    k.launch((8, 5), 32)
    kernel = k.build()
    ((_, vs, blocks, weights, _),) = _block_classes(kernel, resolve_launch(kernel),
                                                 slice_kernel(kernel))
    assert vs.block_axes == frozenset({"y"})
    assert blocks.size == 5 and (weights == 8).all()   # one block per y, standing for 8 x's


@pytest.mark.parametrize("guard, expected", [(lambda: blockIdx.x * 32 + threadIdx.x < 100,
                                              [1, 1, 1, UNDECIDED]),
                                             (lambda: blockIdx.x > 1, [0, 0, 1, 1])])
def test_decide_per_block(guard, expected):
    k = KernelBuilder("decide")
    s = k.shared("s", i32, 32)
    g = guard()
    with k.if_(g):
        s[threadIdx.x] = 1
    k.launch(4, 32)
    kernel = k.build()
    ranges = BlockRanges(kernel, resolve_launch(kernel), np.arange(4))
    assert ranges.decide(g).tolist() == expected

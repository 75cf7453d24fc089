"""Whole-launch analysis against a brute-force walk of every block, warp and iteration."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from examples import (
    int_matmul_nt32, matmul_128x128, matmul_double16, matmul_float_tiled, reed_solomon, transpose,
)
from kernels_ir import (
    KernelBuilder, blockIdx, cast, f32, f64, resolve_launch, threadIdx, u8, u16,
)
from smemsim import warp_request
from smemsim.launch.analysis import analyze
from smemsim.launch.trace import reference_requests


def reference(kernel, params=None):
    """Per site (requests, wavefronts, ideal), one scalar warp_request per request."""
    launch = resolve_launch(kernel, params)
    rows = reference_requests(kernel, launch)
    out = {}
    for stmt in kernel.sites():
        costs = [warp_request(r, stmt.access_bytes, stmt.op, window=launch.smem_window,
                              matrices=stmt.matrices) for r in rows[stmt.site]]
        out[stmt.site] = (len(costs), sum(c.wavefronts for c in costs),
                          sum(c.ideal for c in costs))
    return out


def assert_matches_reference(kernel, params=None):
    report = analyze(kernel, params)
    ref = reference(kernel, params)
    got = {s.site: (s.requests, s.wavefronts, s.ideal) for s in report.sites}
    assert got == ref, f"{kernel.name} {params}: {got} != {ref}"
    return report


EXAMPLES = [
    (transpose.transpose(pad=0), {"n": 64}),
    (transpose.transpose(pad=1), {"n": 64}),
    (transpose.transpose(swizzle=True), {"n": 64}),
    (matmul_double16.multiply(), {"MATRIX_DIM": 48}),
    (reed_solomon.square(), {"B_width": 96, "grid_x": 2}),
    (reed_solomon.general(), {"B_width": 160, "grid_x": 2}),
    (reed_solomon.words(), {"B_width": 96, "grid_x": 2}),
    (int_matmul_nt32.matmul(False), {"Nmat": 40}),
    (int_matmul_nt32.matmul(True), {"Nmat": 40}),
    (matmul_float_tiled.tiled(32), {"rowsA": 40, "commonDim": 50, "colsB": 70}),
    (matmul_float_tiled.tiled(16), {"rowsA": 33, "commonDim": 47, "colsB": 20}),
    (matmul_float_tiled.ilp2(), {"rowsA": 64, "commonDim": 64, "colsB": 64}),
    (matmul_128x128.matmul(), {"M": 128, "N": 256, "K": 48}),
]


@pytest.mark.slow
@pytest.mark.parametrize("kernel, params", EXAMPLES, ids=[k.name for k, _ in EXAMPLES])
def test_examples_match_brute_force(kernel, params):
    assert_matches_reference(kernel, params)


def test_transpose_conflicts_and_padding():
    naive = analyze(transpose.transpose(pad=0), {"n": 256})
    padded = analyze(transpose.transpose(pad=1), {"n": 256})
    load = lambda r: next(s for s in r.sites if s.op == "load")
    assert load(naive).wavefronts_per_request == 32
    assert load(padded).wavefronts_per_request == 1
    assert naive.load.requests == 64 * 32  # 64 blocks x 32 warps
    assert naive.mode == "sliced" and naive.blocks_traced == 1


def test_seed001_a_reads_conflict_32_ways():
    r = analyze(int_matmul_nt32.matmul(False))
    a_reads = next(s for s in r.sites if s.op == "load" and s.array == "a")
    assert a_reads.histogram == ((32, a_reads.requests),)
    assert a_reads.worst.offsets == tuple(128 * lane for lane in range(32))
    fixed = analyze(int_matmul_nt32.matmul(True))
    assert fixed.excess == 0


def test_no_shared_memory_reports_no_sites():
    r = analyze(reed_solomon.naive())
    assert r.sites == () and r.wavefronts == 0


def test_data_dependent_addresses_use_the_data():
    k = KernelBuilder("lookup")
    table = k.global_array("table", u8, 32)
    lut = k.shared("lut", f32, 256)
    out = k.global_array("out", f32, 32, intent="out")
    with k.range("e", threadIdx.x, 256, 32) as e:
        lut[e] = cast(e, f32)
    k.syncthreads()
    out[threadIdx.x] = lut[table[threadIdx.x]]
    k.launch(1, 32)
    kernel = k.build()
    same = analyze(kernel, arrays={"table": np.zeros(32, np.uint8)})
    column = analyze(kernel, arrays={"table": (np.arange(32) * 32 % 256).astype(np.uint8)})
    lookup = lambda r: r.site(1)
    assert lookup(same).data_dependent and same.mode == "full"
    assert not same.site(0).data_dependent
    assert lookup(same).wavefronts == 1                 # all lanes read one word
    assert lookup(column).wavefronts == 8  # words 0, 32, ..., 224: 8 distinct words in bank 0


@st.composite
def random_kernels(draw):
    """Small kernels with loops, guards, strides, widths, paddings and block-dependent bounds."""
    dtype = draw(st.sampled_from([u8, u16, f32, f64]))
    width = draw(st.sampled_from([w for w in (1, 2, 4) if w * dtype.size <= 16]))
    cols = draw(st.sampled_from([8, 16, 32])) * width
    pad = draw(st.sampled_from([0, width, 2 * width]))
    rows = draw(st.sampled_from([4, 8, 16]))
    bx = draw(st.sampled_from([8, 16, 32, 48]))
    by = draw(st.integers(1, 3))
    gx = draw(st.integers(1, 3))
    ax, ay, ai = (draw(st.integers(0, 5)) for _ in range(3))
    guard = draw(st.integers(1, bx * by))
    trip = draw(st.sampled_from(["const", "thread", "block"]))
    store_first = draw(st.booleans())

    k = KernelBuilder("fuzz")
    lim = k.param("lim")
    s = k.shared("s", dtype, (rows, cols), pad=pad)
    tx, ty = threadIdx.x, threadIdx.y
    tid = ty * bx + tx
    with k.range("e", tid, rows * cols, bx * by) as e:  # fill: shared memory starts undefined
        s[e // cols, e % cols] = 0
    k.syncthreads()
    stop = {"const": 3, "thread": tx % 4, "block": blockIdx.x + 1}[trip]
    with k.if_(tid < guard):
        with k.range("i", 0, stop) as i:
            r = (ay * ty + ai * i + tx // 8) % rows
            c = ((ax * tx + i) * width) % cols
            if store_first:
                s.store((r, c), [0] * width, width=width)
            with k.if_(blockIdx.x * 7 + tx < lim):
                v = s.load((r, c), width=width)
    k.launch(grid=gx, block=(bx, by))
    k.defaults(lim=draw(st.integers(0, 40)))
    return k.build()


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_kernels())
def test_random_kernels_match_brute_force(kernel):
    assert_matches_reference(kernel)

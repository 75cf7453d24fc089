"""The bank engine against the H100 measurements and the rules' consequences."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smemsim import ArchError, RequestError, warp_request, warp_requests
from smemsim.engine import batch as batched

ENGINES = ["numpy", "numba"]


def batch(offsets_rows, width, op, engine):
    rows = [[-1 if o is None else o for o in (list(r) + [None] * (32 - len(r)))]
            for r in offsets_rows]
    return warp_requests(np.array(rows, dtype=np.int64), width, op, engine=engine)


# ---------------------------------------------------------------- calibration

def test_calibration_scalar(calibration):
    for p in calibration:
        got = warp_request(p["lane_byte_offsets"], p["width_bytes"], p["op"]).wavefronts
        assert got == p["wavefronts"], f"{p['name']} {p['op']}: {got} != {p['wavefronts']}"


@pytest.mark.parametrize("engine", ENGINES)
def test_calibration_batch(calibration, engine):
    for width in (1, 2, 4, 8, 16):
        pats = [p for p in calibration if p["width_bytes"] == width]
        ops = np.array([p["op"] for p in pats])
        res = batch([p["lane_byte_offsets"] for p in pats], width, ops, engine)
        expected = [p["wavefronts"] for p in pats]
        assert res.wavefronts.tolist() == expected, [p["name"] for p in pats]


# ---------------------------------------------------------------- consequences

def test_broadcast_any_subset_and_bytes_of_one_word():
    assert warp_request([64] * 32, 4).wavefronts == 1
    assert warp_request([64, None, 64, None, 64], 4).wavefronts == 1
    # bytes and halves of one word are one word: no conflict
    assert warp_request([64 + (i % 4) for i in range(32)], 1).wavefronts == 1
    assert warp_request([64 + 2 * (i % 2) for i in range(32)], 2).wavefronts == 1


@pytest.mark.parametrize("stride", range(1, 65))
def test_word_stride_costs_gcd(stride):
    r = warp_request([4 * stride * i for i in range(32)], 4, window=1 << 17)
    assert r.wavefronts == math.gcd(stride, 32)
    assert r.ideal == 1


def test_byte_lanes_share_words():
    # 32 consecutive bytes are 8 words in 8 banks
    r = warp_request(list(range(32)), 1)
    assert (r.wavefronts, r.ideal) == (1, 1)
    # bytes 128 apart: 32 words in bank 0
    assert warp_request([128 * i for i in range(32)], 1).wavefronts == 32


def test_merge_c1_and_c2_for_8_and_16_bytes():
    c1_8 = [8 * (i // 2) for i in range(32)]           # lanes i, i^1 equal
    assert warp_request(c1_8, 8).merge.condition == "C1"
    assert warp_request(c1_8, 8).wavefronts == 1
    c2_16 = [16 * ((i // 4) * 2 + i % 2) for i in range(32)]  # lanes i, i^2 equal
    r = warp_request(c2_16, 16)
    assert r.merge.condition == "C2" and [g.name for g in r.groups] == ["half-warp 0",
                                                                         "half-warp 1"]
    assert r.wavefronts == 2
    # conflict-free without merge: 8-byte loads cost 2, 16-byte loads 4
    assert warp_request([8 * i for i in range(32)], 8).wavefronts == 2
    assert warp_request([16 * i for i in range(32)], 16, window=4096).wavefronts == 4


def test_c1_in_one_half_c2_in_the_other_does_not_merge():
    half0 = [8 * (i // 2) for i in range(16)]                       # C1 holds, C2 fails
    half1 = [64 + 8 * ((j // 4) * 2 + j % 2) for j in range(16)]    # C2 holds, C1 fails
    r = warp_request(half0 + half1, 8)
    assert not r.merge.applies
    assert "C1 holds in half-warp 0 and C2 in half-warp 1" in r.merge.reason
    # merged it would be 32 distinct words in 32 banks = 1; as two half-warps it is 2
    assert r.wavefronts == 2


def test_stores_never_merge():
    assert warp_request([0] * 32, 8, "store").wavefronts == 2
    assert warp_request([0] * 32, 16, "store").wavefronts == 4
    r = warp_request([8 * (i // 2) for i in range(32)], 8, "store")
    assert not r.merge.applies and "stores never merge" in r.merge.reason


def test_inactive_lanes_empty_groups_and_partial_warps():
    # only quarter-warp 0 active: the empty quarters cost nothing
    r = warp_request([16 * i for i in range(8)], 16, "store")
    assert (r.wavefronts, r.ideal) == (1, 1)
    assert [g.wavefronts for g in r.groups] == [1, 0, 0, 0]
    # a partial warp of 20 lanes: the missing lanes are inactive
    r = warp_request([4 * i for i in range(20)], 4)
    assert r.active_lanes == tuple(range(20)) and r.wavefronts == 1
    # no active lane at all
    assert warp_request([], 4).wavefronts == 0


def test_ideal_and_excess():
    r = warp_request([8 * i for i in range(32)], 4)
    assert (r.wavefronts, r.ideal, r.excess) == (2, 1, 1)
    r = warp_request([8 * i for i in range(32)], 8)  # 256 bytes in two half-warps
    assert (r.wavefronts, r.ideal, r.excess) == (2, 2, 0)


def test_explanation_of_a_column_read():
    r = warp_request([128 * i for i in range(32)], 4)
    (g,) = r.groups
    assert g.name == "warp" and len(g.banks) == 1
    bank0 = g.banks[0]
    assert bank0.bank == 0 and [w.word for w in bank0.words] == [32 * i for i in range(32)]
    assert [w.lanes for w in bank0.words] == [(i,) for i in range(32)]
    assert r.lane_wavefronts == tuple((i,) for i in range(32))
    # a 16-byte lane is served by the wavefronts of its four words
    r = warp_request([0, 16], 16)
    assert r.lane_wavefronts[0] == (0,) and r.lane_wavefronts[1] == (0,)


# ---------------------------------------------------------------- errors

def test_errors_name_lane_and_offset():
    with pytest.raises(RequestError, match=r"lane 2: offset 6 is not aligned to the 4-byte"):
        warp_request([0, 4, 6], 4)
    with pytest.raises(RequestError, match=r"lane 1: offset 232448 .* outside the 232448"):
        warp_request([0, 232448], 4)
    with pytest.raises(RequestError, match="lane 0: offset -4"):
        warp_request([-4], 4)
    with pytest.raises(RequestError, match="width must be one of"):
        warp_request([0], 3)
    with pytest.raises(RequestError, match="op must be"):
        warp_request([0], 4, "gather")
    with pytest.raises(RequestError, match="32 lanes"):
        warp_request([0] * 33, 4)
    with pytest.raises(ArchError, match="sm_50 has no bank rule set"):
        warp_request([0], 4, arch="sm_50")


@pytest.mark.parametrize("engine", ENGINES)
def test_batch_errors_name_request_lane_and_offset(engine):
    rows = [[0, 4, 8], [0, 4, 10]]
    with pytest.raises(RequestError, match=r"request 1, lane 2: offset 10 is not aligned"):
        batch(rows, 4, "load", engine)
    with pytest.raises(RequestError, match=r"request 0, lane 1: offset -7 is negative"):
        warp_requests(np.array([[0, -7]]), 4, engine=engine)


def test_pure_python_kernel_matches(calibration):
    # the compiled kernel's source, run as plain Python, on the calibration set
    pats = [p for p in calibration if p["width_bytes"] == 16]
    off = np.array([[-1 if o is None else o for o in p["lane_byte_offsets"]] for p in pats])
    wf, ideal, bad = np.empty(len(pats), np.int64), np.empty(len(pats), np.int64), np.full(2, -1)
    store = np.array([p["op"] == "store" for p in pats])
    batched._batch_costs(off, np.full(len(pats), 16), store, 232448, wf, ideal, bad)
    assert wf.tolist() == [p["wavefronts"] for p in pats]


# ---------------------------------------------------------------- properties

@st.composite
def requests(draw, widths=(1, 2, 4, 8, 16)):
    width = draw(st.sampled_from(widths))
    slots = draw(st.sampled_from([8, 64, 512]))
    lanes = draw(st.lists(st.one_of(st.none(), st.integers(0, slots - 1)), min_size=32,
                          max_size=32))
    if draw(st.booleans()):  # make pair structure likely, to exercise the merge
        mask = draw(st.sampled_from([1, 2]))
        lanes = [lanes[i & ~mask] for i in range(32)]
    op = draw(st.sampled_from(["load", "store"]))
    return [None if s is None else s * width for s in lanes], width, op


@settings(max_examples=300, deadline=None)
@given(requests())
def test_wavefronts_at_least_ideal_at_least_one(req):
    offs, width, op = req
    r = warp_request(offs, width, op)
    if r.active_lanes:
        assert r.wavefronts >= r.ideal >= 1
    else:
        assert r.wavefronts == r.ideal == 0


@settings(max_examples=200, deadline=None)
@given(requests(widths=(1, 2, 4)), st.randoms(use_true_random=False))
def test_permuting_lanes_never_changes_small_requests(req, rnd):
    offs, width, op = req
    perm = list(offs)
    rnd.shuffle(perm)
    assert warp_request(perm, width, op).wavefronts == warp_request(offs, width, op).wavefronts


@settings(max_examples=300, deadline=None)
@given(requests(), st.integers(0, 31))
def test_deactivating_a_lane_never_increases_cost(req, lane):
    offs, width, op = req
    fewer = list(offs)
    fewer[lane] = None
    assert warp_request(fewer, width, op).wavefronts <= warp_request(offs, width, op).wavefronts


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(requests(), min_size=1, max_size=12))
def test_scalar_numpy_and_numba_agree(reqs):
    off = np.array([[-1 if o is None else o for o in r[0]] for r in reqs])
    widths = np.array([r[1] for r in reqs])
    ops = np.array([r[2] for r in reqs])
    scalar = [warp_request(*r) for r in reqs]
    for engine in ENGINES:
        res = warp_requests(off, widths, ops, engine=engine)
        assert res.wavefronts.tolist() == [s.wavefronts for s in scalar], engine
        assert res.ideal.tolist() == [s.ideal for s in scalar], engine


@pytest.mark.parametrize("engine", ENGINES)
def test_offsets_past_16_mib_keep_their_groups(engine):
    """The numpy path keys a lane by its group above its offset, at bit 24 for the windows
    of real GPUs; a caller's larger window moves the group to bit 40, so offsets past 2**24
    still fall in their own group. 16-byte loads at 16 MiB + 128*(i % 8) for lanes 0-15:
    each quarter-warp reads 8 distinct addresses of banks 0-3, 8 wavefronts each, 16 in all
    (with the two quarter-warps taken as one group, 8)."""
    base = 1 << 24
    row = [base + 128 * (i % 8) for i in range(16)] + [-1] * 16
    res = warp_requests(np.array([row]), 16, "load", engine=engine, window=base + 4096)
    scalar = warp_request([None if o < 0 else o for o in row], 16, "load",
                          window=base + 4096)
    assert res.wavefronts.tolist() == [scalar.wavefronts] == [16]
    assert res.ideal.tolist() == [scalar.ideal]


def test_numba_is_loaded_when_the_measured_work_pays_for_it(monkeypatch):
    """Rent or buy (#28): numpy runs until the time it has spent in this process, with the
    batch at hand, would pass numba's loading cost; then numba, for every later batched."""
    pytest.importorskip("numba")
    monkeypatch.setattr(batched, "_NUMBA_STATE", {})
    monkeypatch.setattr(batched, "_NUMPY_WORK", {"seconds": 0.0, "requests": 0})
    monkeypatch.setattr(batched, "NUMBA_LOAD_S", 0.65)
    monkeypatch.setattr(batched, "NUMPY_S_PER_REQUEST", 17e-6)
    assert not batched._auto_numba(2048)      # 2,048 x 17 us: 35 ms of numpy, keep numpy
    assert "kernel" not in batched._NUMBA_STATE  # and numba was not even imported
    batched._NUMPY_WORK.update(seconds=0.64, requests=40_000)  # measured: 16 us a request
    assert not batched._auto_numba(500)       # 0.648 s: still under the loading cost
    assert batched._auto_numba(1000)          # 0.656 s: numba pays from here
    assert batched._auto_numba(1)             # loaded: every later batch takes it


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_word_requests_in_few_bank_rows_cost_as_sorted(monkeypatch, dtype):
    """4-byte requests whose words span fewer than DENSE_BANK_ROWS rows of banks are costed
    on a table of those words (#28); the sort every other batch takes gives the same
    wavefronts and ideals, with inactive lanes, empty requests and int32 offsets (the
    trace's)."""
    rng = np.random.default_rng(11)
    for trial in range(60):
        n, span = int(rng.integers(1, 200)), int(rng.integers(1, 16 * 32))
        off = ((int(rng.integers(0, 3000)) + rng.integers(0, span, (n, 32))) * 4).astype(dtype)
        off[rng.random((n, 32)) < rng.random() * 0.6] = -1
        off[0] = -1 if trial % 5 == 0 else off[0]
        width, store = np.full(n, 4, np.int64), np.zeros(n, bool)
        dense = batched._numpy_costs(off, width, store)
        monkeypatch.setattr(batched, "DENSE_BANK_ROWS", 0)   # every batch sorted
        ref = batched._numpy_costs(off, width, store)
        monkeypatch.undo()
        assert dense.wavefronts.tolist() == ref.wavefronts.tolist(), trial
        assert dense.ideal.tolist() == ref.ideal.tolist(), trial
    # a worked case: lanes at words 0, 32, 64 (bank 0, three rows) and 1 (bank 1), the rest
    # inactive: 3 wavefronts, 4 distinct words = 16 bytes: ideal 1
    row = np.array([[0, 128, 256, 4] + [-1] * 28], dtype)
    r = batched._numpy_costs(row, np.array([4]), np.array([False]))
    assert (r.wavefronts.tolist(), r.ideal.tolist()) == ([3], [1])


def test_other_ops_leave_the_callers_offsets_and_time_numpy_once(monkeypatch):
    """ldmatrix.x1 ignores lanes 8-31 on a copy (the caller's rows are the trace's), and
    an atomic batch's numpy time counts once toward the rent-or-buy rule (its plain
    requests' share was added twice, loading numba twice as early)."""
    monkeypatch.setattr(batched, "_NUMPY_WORK", {"seconds": 0.0, "requests": 0})
    rows = np.tile(np.arange(32, dtype=np.int64) * 16, (4, 1))
    before = rows.copy()
    warp_requests(rows, 16, "ldmatrix", engine="numpy", matrices=1)
    assert (rows == before).all()
    off = np.tile(np.arange(32, dtype=np.int64) * 4, (5000, 1))
    warp_requests(off, 4, "atomic_aggregated", engine="numpy")
    assert batched._NUMPY_WORK["requests"] == 4 + 5000

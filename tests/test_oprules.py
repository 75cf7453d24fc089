"""ldmatrix/stmatrix, cp.async and shared atomics against the 119 patterns an H200 measured
(tests/data/sm90_newer_patterns.json, copied from shared/calibration), on every engine path."""
import json
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smemsim import RequestError, warp_request, warp_requests

DATA = pathlib.Path(__file__).resolve().parent / "data" / "sm90_newer_patterns.json"
PATTERNS = json.loads(DATA.read_text())["patterns"]
ENGINES = ["numpy", "numba"]


def op_of(kind: str) -> tuple[str, int | None]:
    """The engine's op (and matrix count) for a measured kind."""
    if kind.startswith(("ldsm", "stsm")):
        return ("ldmatrix" if kind.startswith("ldsm") else "stmatrix"), int(kind[6])
    if kind.startswith("cp_async_cg"):
        return "cp_async_bypass", None
    if kind.startswith("cp_async_ca"):
        return "cp_async", None
    if kind == "atom_cas_b32":
        return "atomic_cas", None
    if kind == "red_inc_u32":
        return "atomic_aggregated", None      # red.add 1 on one address: aggregated
    if kind in ("atom_add_f32", "atom_add_u64"):
        return "atomic_cas_loop", None
    return "atomic", None                      # add, exch, red.add, inc (ATOMS.POPC.INC)


def measured(p) -> dict:
    """{category: (instructions, wavefronts)} and the bank conflicts, as Nsight counted them
    (per instruction: the probe issued each pattern 64 times and divided)."""
    m = p["measured"]
    ins, wf = m["instructions"], m["wavefronts"]
    out = {}
    if "ldsm" in ins:
        out["ldsm"] = (ins["ldsm"], wf["op_ld"])
    if "stsm" in ins:
        out["stsm"] = (ins["stsm"], wf["op_st"])
    if "ldgsts" in ins:
        # only the unsuffixed total shows them, beside 3 _op_misc per instruction (and a
        # residue of 0.016 from the launch itself)
        assert round(wf["op_misc"] - 3 * ins["ldgsts"], 3) == 0.016
        out["ldgsts"] = (ins["ldgsts"], round(wf["all"] - wf["op_misc"], 3))
    if "atom" in ins:
        out["atom"] = (ins["atom"], wf["op_atom"])
    if "ld" in ins:
        out["ld"] = (ins["ld"], wf["op_ld"])
    return out, m["bank_conflicts"].get("all", 0.0)


def ids(p):
    return f"{p['kind']}-{p['name']}"


def offsets(p):
    return [None if a < 0 else a for a in p["addrs"]]


@pytest.mark.parametrize("p", PATTERNS, ids=ids)
def test_every_measured_pattern_scalar(p):
    op, matrices = op_of(p["kind"])
    want, conflicts = measured(p)
    r = warp_request(offsets(p), p["width"], op, matrices=matrices)
    got = {part.category: (part.instructions, part.wavefronts) for part in r.parts}
    assert got == want, f"{ids(p)}: {got} != measured {want}"
    assert r.wavefronts - r.ideal == conflicts, f"{ids(p)}: conflicts"
    assert r.wavefronts == sum(part.wavefronts for part in r.parts)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_measured_pattern_batched(engine):
    for p in PATTERNS:
        op, matrices = op_of(p["kind"])
        want, conflicts = measured(p)
        r = warp_requests(np.array([p["addrs"]]), p["width"], op, engine=engine,
                          matrices=matrices)
        got = {part.category: (int(part.instructions[0]), int(part.wavefronts[0]))
               for part in r.parts}
        assert got == want, f"{ids(p)} ({engine}): {got} != measured {want}"
        assert int(r.wavefronts[0] - r.ideal[0]) == conflicts, f"{ids(p)} ({engine})"


def test_the_rules_in_words():
    # ldmatrix.x4, four 8x16-byte matrices stored row after row: conflict-free, 1 per matrix
    rows = [128 * j + 16 * i for j in range(4) for i in range(8)]
    assert warp_request(rows, 16, "ldmatrix", matrices=4).wavefronts == 4
    # the same rows 128 bytes apart within a matrix: every row in banks 0-3, 8 ways
    rows = [1024 * j + 128 * i for j in range(4) for i in range(8)]
    assert warp_request(rows, 16, "ldmatrix", matrices=4).wavefronts == 32
    # .x1 ignores lanes 8-31, whatever they hold
    assert warp_request(list(range(0, 128, 16)) + [7] * 24, 16, "ldmatrix",
                        matrices=1).wavefronts == 1
    # atomics serialize lanes at one address; a load would broadcast
    assert warp_request([0] * 32, 4, "atomic").wavefronts == 32
    assert warp_request([0] * 32, 4, "load").wavefronts == 1
    assert warp_request([0] * 32, 4, "atomic_aggregated").wavefronts == 1
    cas = warp_request([0] * 32, 4, "atomic_cas")
    assert (cas.wavefronts, cas.ideal) == (64, 33)  # Nsight: 31 conflicts
    # cp.async does not merge lanes at one address either
    assert warp_request([0] * 32, 4, "cp_async").wavefronts == 32
    assert warp_request([0] * 32, 16, "cp_async_bypass").wavefronts == 0
    # a float atomicAdd on one address: 32 passes of LDS (1 wavefront) + CAS (2)
    loop = warp_request([0] * 32, 4, "atomic_cas_loop")
    assert [(p.category, p.instructions, p.wavefronts) for p in loop.parts] == [
        ("ld", 32, 32), ("atom", 32, 64)]


def test_cas_loop_half_warp_1_waits_for_half_warp_0():
    # 8 bytes: half-warp 0 puts 12 lanes on address 0 (passes 0-11) and 2 on 8; half-warp 1
    # has 9 lanes on 0, stale while half 0 writes 0 (passes 12-20), and 4 on 8, of which
    # the first waits one pass (half 0 writes 8 in passes 0 and 1): 21 passes, CAS 2 x (12
    # + 21). The loads are half-warp loads (2 a pass) until pass 5, when the last pair of
    # two addresses (lanes 24 and 25) has one lane done, and one warp-wide load after.
    row = [-1, -1, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0,
           -1, 0, 0, 8, 0, 0, 0, 8, 8, 0, 0, 0, -1, 8, 0, -1]
    want = {"ld": (21, 5 * 2 + 16, 26), "atom": (21, 66, 66)}
    one = warp_request([None if o < 0 else o for o in row], 8, "atomic_cas_loop")
    assert {p.category: (p.instructions, p.wavefronts, p.ideal) for p in one.parts} == want
    for engine in ENGINES:
        many = warp_requests(np.array([row]), 8, "atomic_cas_loop", engine=engine)
        assert {p.category: (int(p.instructions[0]), int(p.wavefronts[0]), int(p.ideal[0]))
                for p in many.parts} == want


@pytest.mark.parametrize("width", [4, 8])
def test_cas_loop_engines_equal_the_rule_pass_by_pass(width):
    # smemsim.engine.cas_loop's closed forms (numpy, numba) against its pass-by-pass rule, on
    # rows that make every case happen: few addresses (long queues, half-warp 1 waiting),
    # pairs and quads of lanes on one address (warp-wide loads), idle lanes
    rng = np.random.default_rng(width)
    rows = []
    for span in (16, 64, 256, 4096):
        for idle in (0.0, 0.3):
            off = rng.integers(0, span // width, (60, 32)) * width
            if span == 64:
                off[:, 1::2] = off[:, 0::2]
            if span == 256:
                off[:, 2::4], off[:, 3::4] = off[:, 0::4], off[:, 1::4]
            off[rng.random(off.shape) < idle] = -1
            rows.append(off)
    off = np.concatenate(rows + [np.full((1, 32), -1)])
    want = [warp_request([None if o < 0 else int(o) for o in row], width, "atomic_cas_loop")
            for row in off]
    want = {p: [(q.instructions, q.wavefronts, q.ideal) for r in want for q in r.parts
                if q.category == p] for p in ("ld", "atom")}
    for engine in ENGINES:
        many = warp_requests(off, width, "atomic_cas_loop", engine=engine)
        got = {p.category: list(zip(p.instructions.tolist(), p.wavefronts.tolist(),
                                    p.ideal.tolist())) for p in many.parts}
        assert got == want, engine


def test_cas_loop_sixteen_units_pending_in_one_slot():
    # 8 bytes, each pair of lanes on one address, 16 addresses 128 bytes apart: every lane
    # in one pair of banks. Pairs agree, so the loads are warp-wide from pass 0; each half
    # queues 16 lanes (passes 0-15), a unit lives 2p + 2 passes, and at pass q each half
    # has 8 - q // 2 units pending in that slot: sum over q of 2 (8 - q // 2) = 144. Sixteen
    # units in one slot is the most numpy's per-slot counters (nibbles) cannot hold.
    row = [p * 128 for p in range(16) for _ in range(2)]
    want = {"ld": (16, 144, 16), "atom": (16, 64, 64)}
    one = warp_request(row, 8, "atomic_cas_loop")
    assert {p.category: (p.instructions, p.wavefronts, p.ideal) for p in one.parts} == want
    for engine in ENGINES:
        many = warp_requests(np.array([row]), 8, "atomic_cas_loop", engine=engine)
        assert {p.category: (int(p.instructions[0]), int(p.wavefronts[0]), int(p.ideal[0]))
                for p in many.parts} == want


def test_cas_loop_8_bytes_over_chunks_and_far_offsets():
    # numpy's 8-byte engine (smemsim.engine.cas_loop_wide) takes 4,096 requests a chunk, and units
    # past 16 bits (offsets from 512 KiB) in 64-bit arrays: 4,100 requests, the last chunk
    # of 4, offsets up to 1 MiB, few addresses in some rows (waits), against the rule
    rng = np.random.default_rng(8)
    n = 4100
    span = np.where(rng.random(n) < 0.5, 1 << 20, 256)
    off = rng.integers(0, span[:, None] // 8, (n, 32)) * 8
    off[rng.random(off.shape) < 0.2] = -1
    many = warp_requests(off, 8, "atomic_cas_loop", engine="numpy", window=1 << 20)
    got = {p.category: list(zip(p.instructions.tolist(), p.wavefronts.tolist(),
                                p.ideal.tolist())) for p in many.parts}
    for r in list(range(0, n, 41)) + list(range(n - 4, n)):
        one = warp_request([None if o < 0 else int(o) for o in off[r]], 8, "atomic_cas_loop",
                           window=1 << 20)
        assert {p.category: got[p.category][r] for p in one.parts} == {
            p.category: (p.instructions, p.wavefronts, p.ideal) for p in one.parts}, r


def test_bad_requests_name_the_instruction():
    with pytest.raises(RequestError, match="ldmatrix needs matrices 1, 2 or 4"):
        warp_request([0], 16, "ldmatrix")
    with pytest.raises(RequestError, match="ldmatrix moves 16 bytes per lane, not 8"):
        warp_request([0], 8, "ldmatrix", matrices=1)
    with pytest.raises(RequestError, match="matrices applies to ldmatrix and stmatrix"):
        warp_request([0], 4, "atomic", matrices=2)
    with pytest.raises(RequestError, match="64-bit shared atomics other than the add loop"):
        warp_request([0], 8, "atomic")
    with pytest.raises(RequestError, match="lane 3: offset 6 is not aligned to the 4-byte"):
        warp_request([0, 4, 8, 6], 4, "atomic")
    with pytest.raises(RequestError, match="request 0, lane 1: offset 3 is not aligned"):
        warp_requests(np.array([[0, 3]]), 4, "cp_async")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("op, width", [
    ("ldmatrix", 16), ("stmatrix", 16), ("cp_async", 16), ("cp_async_bypass", 16),
    ("atomic", 4), ("atomic_cas", 4), ("atomic_aggregated", 4), ("atomic_cas_loop", 4),
    ("atomic_cas_loop", 8)])
@pytest.mark.parametrize("bad, why", [
    (-2, "is negative"), (6, "is not aligned"),
    (1 << 20, r"\(\+\d+ bytes\) is outside the 232448")])
def test_a_bad_lane_is_named_on_every_engine(engine, op, width, bad, why):
    """numba's loops check each offset as they read it (no pass of its own over the batch);
    the error is the one numpy's checks give: the request, the lane, the offset."""
    off = np.zeros((5, 32), np.int64)
    off[3, 7] = bad
    with pytest.raises(RequestError, match=f"request 3, lane 7: offset {bad} {why}"):
        warp_requests(off, width, op, engine=engine,
                      matrices=4 if op in ("ldmatrix", "stmatrix") else None)


@st.composite
def requests(draw, op):
    width = {"cp_async": draw(st.sampled_from([4, 8, 16])),
             "atomic_cas_loop": draw(st.sampled_from([4, 8]))}.get(
        op, 16 if op in ("ldmatrix", "stmatrix", "cp_async_bypass") else 4)
    span = draw(st.sampled_from([128, 512, 4096]))
    lane = st.one_of(st.none(), st.integers(0, span // width - 1).map(lambda k: k * width))
    return width, draw(st.lists(lane, min_size=32, max_size=32))


OPS = ["ldmatrix", "stmatrix", "cp_async", "cp_async_bypass", "atomic", "atomic_cas",
       "atomic_aggregated", "atomic_cas_loop"]


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_batch_equals_scalar_on_random_requests(op, data):
    width, offs = data.draw(requests(op))
    matrices = data.draw(st.sampled_from([1, 2, 4])) if op in ("ldmatrix", "stmatrix") else None
    one = warp_request(offs, width, op, matrices=matrices)
    row = np.array([[-1 if o is None else o for o in offs]])
    for engine in ENGINES:
        many = warp_requests(row, width, op, engine=engine, matrices=matrices)
        assert (int(many.wavefronts[0]), int(many.ideal[0])) == (one.wavefronts, one.ideal)
        assert {p.category: (int(p.instructions[0]), int(p.wavefronts[0]), int(p.ideal[0]))
                for p in many.parts} == {p.category: (p.instructions, p.wavefronts, p.ideal)
                                         for p in one.parts}

"""TMA tile loads and mbarriers: the layout TMA writes, the interpreter's semantics and
faults, and the analysis's counters, against the H100's measurements
(tests/data/sm90_hopper_patterns.json, ../docs/hopper-rules.md; docs/tma.md)."""
import json
import pathlib

import numpy as np
import pytest

from kernels_ir import KernelBuilder, KernelError, KernelRuntimeError, run, threadIdx
from kernels_ir.tma import swizzle_bytes
from smemsim import analyze
from smemsim.engine.banks import warp_request
from smemsim.launch.hazards import check

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "sm90_hopper_patterns.json")
                  .read_text())
CASES = DATA["cases"]
MODES = {0: None, 1: "SWIZZLE_32B", 2: "SWIZZLE_64B", 3: "SWIZZLE_128B"}
SPANS = {0: 16, 1: 32, 2: 64, 3: 128}


def _tma_kernel(box0, box1, esize, swz, iters=1, tile_layout=None, soff=0, wait=True,
                expect=None, n_rows=None, coords=(0, 0), n_cols=None):
    """Thread 0 loads a box1 x box0 box `iters` times (each waited for), as the calibration
    cases do, from a tensor of n_rows (2 * box1) x n_cols (box0) at `coords` (row, column);
    then every thread copies the tile's bytes out as they lie."""
    dtype = {2: "u16", 4: "u32"}[esize]
    k = KernelBuilder("tma_case")
    rows = n_rows or 2 * box1
    cols = n_cols or box0
    src = k.global_array("src", dtype, rows * cols)
    tmap = k.tensor_map("tmap", src, (rows, cols), (box1, box0), swizzle=MODES[swz])
    pitch = max(box0 * esize, SPANS[swz]) if swz else box0 * esize
    span = (soff + box1 * pitch) // esize
    tile = k.shared("tile", dtype, span, align=1024, layout=tile_layout)
    out = k.global_array("out", dtype, span, intent="out")
    bar = k.shared("bar", "u64", 1)
    t = threadIdx.x
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.range("it", 0, iters) as it:
        with k.if_(t == 0):
            k.mbarrier_arrive(bar, 0, expect_tx=tmap.box_bytes if expect is None else expect)
            k.tma_load(tmap, tile, soff // esize, coords, bar, 0)
        if wait:
            k.mbarrier_wait(bar, 0, it % 2)
    k.syncthreads()
    with k.range("i", soff // esize + t, span, 128) as i:
        out[i] = tile[i]
    k.launch(grid=1, block=128)
    return k.build()


def _source(rows, cols, esize):
    n = rows * cols
    dtype = np.uint16 if esize == 2 else np.uint32
    return (np.arange(n, dtype=np.uint64) * 40503 % 65521 + 1).astype(dtype)


# ---------------------------------------------------------------- the layout TMA writes

def test_the_swizzle_is_cute_swizzle_343_of_absolute_addresses():
    a = np.arange(4096, dtype=np.int64)
    assert (swizzle_bytes(a, "SWIZZLE_128B") == a ^ (((a >> 7) & 7) << 4)).all()
    assert (swizzle_bytes(a, "SWIZZLE_32B") == a ^ (((a >> 7) & 1) << 4)).all()
    assert (swizzle_bytes(a, None) == a).all()
    # a box at 1024 + 128 takes its address's pattern, not one restarted at the box
    assert swizzle_bytes(np.array([1024 + 128]), "SWIZZLE_128B")[0] == 1024 + 128 + 16


@pytest.mark.parametrize("case", [c for c in CASES if c["group"] == "tma_ld"
                                  and c["params"]["kind"] == 1], ids=lambda c: c["name"])
def test_every_public_tma_load_lands_where_the_rule_says(case):
    """The interpreter's tile, byte by byte, against the measured rule: box row r, byte b at
    swz(dst + r * pitch + b), rows of at least the swizzle's span; zeros elsewhere unwritten
    (the calibration's dumps agreed with this rule on every element)."""
    p = case["params"]
    box0, box1, esize, swz, soff = p["box0"], p["box1"], p["esize"], p["swz"], p.get("soff", 0)
    kernel = _tma_kernel(box0, box1, esize, swz, soff=soff)
    src = _source(2 * box1, box0, esize)
    if soff == 0 and (swz == 0 or box0 * esize == SPANS[swz]):
        out = run(kernel, {}, {"src": src})["out"]
        # the tile holds the box's rows in order, chunks permuted by the swizzle
        pitch = box0 * esize
        box = src.reshape(2 * box1, box0)[:box1].view(np.uint8).reshape(box1, pitch)
        got = out.view(np.uint8).reshape(box1, pitch)
        rel = np.arange(box1)[:, None] * pitch + np.arange(pitch)[None, :]
        want = np.empty_like(box)
        want.reshape(-1)[swizzle_bytes(1024 + rel, MODES[swz]).ravel() - 1024] = box.ravel()
        assert np.array_equal(got, want)
    else:
        # a box narrower than the span leaves the rest of each row unwritten (reading it is a
        # fault), and a box 128 bytes into a 1024-aligned tile takes the absolute pattern
        with pytest.raises(KernelRuntimeError, match="no thread has written") if \
                box0 * esize < SPANS[swz] else _nothing():
            out = run(kernel, {}, {"src": src})["out"]
            pitch = max(box0 * esize, SPANS[swz])
            raw = out.view(np.uint8)[soff:]
            first = src.view(np.uint8)[:16]
            at = int(swizzle_bytes(np.array([1024 + soff]), MODES[swz])[0]) - 1024 - soff
            assert np.array_equal(raw[at:at + 16], first) and pitch == 128


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


READS = {16: ("load", 16), 2: ("load", 2), 4: ("load", 4), 8: ("load", 8),
         100: ("ldmatrix", 16), 101: ("ldmatrix", 16)}


def _logical(case, pitch: int) -> list[tuple[int, int]]:
    """(row, byte in row) each lane reads, per the case's name (8 rows x the row's 16-byte
    chunks, repeated when a row has fewer than 4)."""
    name, rop = case["name"], case["params"]["rop"]
    if rop in (100, 101):
        return [(lane % 16, 16 * (lane // 16)) for lane in range(32)]
    if "q8rows" in name:
        return [(lane % 8, 16 * (lane // 8 % (pitch // 16))) for lane in range(32)]
    return [(lane, 0) for lane in range(32)]


@pytest.mark.parametrize("case", [c for c in CASES if c["group"] == "tma_read"],
                         ids=lambda c: c["name"])
def test_every_public_read_of_a_tma_tile(case):
    """The lanes' offsets are the layout's (XORed reads) or the row-major ones (raw reads),
    and the bank rules give the measured wavefronts per instruction."""
    p = case["params"]
    swz, pitch = p["swz"], max(p["box0"] * p["esize"], SPANS[p["swz"]])
    rel = np.array([r * pitch + b for r, b in _logical(case, pitch)])
    want = swizzle_bytes(rel, MODES[swz]) if case["name"].endswith("_xor") else rel
    lanes = [int(x) for x in p["lanes"].split(",")]
    assert lanes == want.tolist()
    op, width = READS[p["rop"]]
    r = warp_request(lanes, width, op, matrices=4 if op == "ldmatrix" else None)
    measured = case["measured_per_instruction"]
    assert (r.wavefronts, r.wavefronts - r.ideal) == (measured["wavefronts"],
                                                    measured["conflicts"])


# ---------------------------------------------------------------- counters

@pytest.mark.parametrize("case", [c for c in CASES if c["group"] == "tma_ld"
                                  and c["params"]["kind"] == 1], ids=lambda c: c["name"])
def test_the_analysis_counts_what_nsight_counted(case):
    p = case["params"]
    kernel = _tma_kernel(p["box0"], p["box1"], p["esize"], p["swz"], iters=p["iters"],
                         soff=p.get("soff", 0), coords=(p.get("c1", 0), p.get("c0", 0)),
                         n_cols=2 * p["box0"])
    report = analyze(kernel, {})
    site = next(s for s in report.sites if s.is_bulk)
    m = case["metrics"]
    got = site.tma.as_metrics()
    for name in ("sm__sass_inst_executed_op_tma_ld", "l1tex__data_bank_writes"):
        assert got[name] == m[name], name
    assert site.wavefronts == 0 and report.classes["tma_ld"].requests == p["iters"]
    # global bytes: the sectors each box row touches, in 128-byte pieces from where the row
    # starts (case 20: rows 16 bytes off the grid read 5 sectors per 128 bytes)
    assert site.tma.global_bytes_exact
    assert got["l1tex__m_xbar2l1tex_read_bytes_pipe_tma"] == \
        m["l1tex__m_xbar2l1tex_read_bytes_pipe_tma"]


# ---------------------------------------------------------------- semantics and faults

def test_a_reader_that_declares_the_swizzle_reads_the_box_and_one_that_does_not_reads_wrong():
    from examples.tma_tile import KERNELS, distinct
    from kernels_ir import resolve_launch
    outs = {}
    for key in ("swizzled", "unswizzled_reader", "plain"):
        kernel = KERNELS[key]()
        launch = resolve_launch(kernel, {"tiles": 2})
        outs[key] = run(kernel, {"tiles": 2}, distinct(launch))["out"]
    assert np.array_equal(outs["swizzled"], outs["plain"])       # the same fragments
    wrong = outs["unswizzled_reader"] != outs["plain"]
    assert wrong.sum() == 2 * 4096 * 7 // 8    # every row but r % 8 == 0, in both tiles


def test_the_examples_costs():
    from examples.tma_tile import KERNELS
    costs = {}
    for key in ("swizzled", "unswizzled_reader", "plain"):
        build = KERNELS[key]
        r = analyze(build(), {"tiles": 132})
        tma, ldsm = r.sites
        assert (tma.tma.instructions, tma.tma.bytes, tma.tma.bank_words) == \
            (132, 132 * 8192, 132 * 2048) and tma.tma.global_bytes_exact
        costs[key] = ldsm.wavefronts // ldsm.requests
    assert costs == {"swizzled": 4, "unswizzled_reader": 32, "plain": 32}


def test_zeros_outside_the_tensor():
    kernel = _tma_kernel(8, 8, 4, 0, n_rows=12, coords=(8, 0))   # rows 8..15 of 12
    src = _source(12, 8, 4)
    out = run(kernel, {}, {"src": src})["out"].reshape(8, 8)
    assert np.array_equal(out[:4], src.reshape(12, 8)[8:]) and not out[4:].any()


def test_reading_before_the_wait_is_a_located_fault():
    kernel = _tma_kernel(64, 8, 2, 3, wait=False)
    with pytest.raises(KernelRuntimeError, match="TMA load of line .* still in flight"):
        run(kernel, {}, {"src": _source(16, 64, 2)})
    faults = check(kernel, {}).faults
    assert len(faults) == 1 and "still in flight" in faults[0].message
    assert not check(_tma_kernel(64, 8, 2, 0), {}).faults
    # this harness copies a swizzled tile out as its bytes lie, by a plain index: check
    # calls that a reader that forgets the swizzle (as it is, in a kernel)
    faults = check(_tma_kernel(64, 8, 2, 3), {}).faults
    assert [f.kind for f in faults] == ["layout"]
    assert "reads tile[64], which holds src(1, 8) where 'tile' as declared (without a " \
        "layout) expects src(1, 0)" in faults[0].message


@pytest.mark.parametrize("expect, why", [(512, "deliver 512 bytes more"),
                                         (2048, "1024 expected transaction bytes never")])
def test_an_expect_tx_that_differs_from_the_box_hangs_and_is_named(expect, why):
    kernel = _tma_kernel(64, 8, 2, 3, expect=expect)      # the box is 1024 bytes
    with pytest.raises(KernelRuntimeError, match=why) as err:
        run(kernel, {}, {"src": _source(16, 64, 2)})
    assert "mbarrier.wait" in str(err.value) and "hang" in str(err.value)


def test_a_destination_off_the_128_byte_grid_faults_as_on_the_gpu():
    kernel = _tma_kernel(64, 8, 2, 0, soff=16)     # calibration case 137 faulted the same way
    with pytest.raises(KernelRuntimeError, match="misaligned address.*byte 16"):
        run(kernel, {}, {"src": _source(16, 64, 2)})


def test_analyze_refuses_the_copy_the_gpu_faults_on_at_its_line():
    """Issue #52: `analyze` counted 4 TMA instructions for a copy the H100 faults on
    (`misaligned address`); it now refuses it as `run` and `check` do."""
    kernel = _tma_kernel(64, 8, 2, 0, soff=16)
    with pytest.raises(KernelError, match=r"test_tma.py:\d+.*site 0: misaligned address: "
                                          r"the TMA copy's shared side starts at byte 16"):
        analyze(kernel)


def test_a_barrier_used_before_init_is_a_fault():
    k = KernelBuilder("no_init")
    src = k.global_array("src", "u16", 64 * 8)
    tmap = k.tensor_map("tmap", src, (8, 64), (8, 64))
    tile = k.shared("tile", "u16", 512, align=128)
    bar = k.shared("bar", "u64", 1)
    k.tma_load(tmap, tile, 0, (0, 0), bar, 0)
    k.launch(1, 32)
    with pytest.raises(KernelRuntimeError, match="before any mbarrier.init"):
        run(k.build(), {})


@pytest.mark.parametrize("box, swizzle, why", [
    ((8, 4), None, "multiple of 16"),
    ((8, 128), "SWIZZLE_128B", "within its 128-byte span"),
    ((1, 1, 1, 2, 8, 64), None, "TMA maps have 1 to 5 dimensions"),
    ((8, 64), "SWIZZLE_256B", "swizzle must be"),
    ((8, 512), None, "1..256"),
])
def test_tensor_maps_the_hardware_refuses_are_refused_at_their_line(box, swizzle, why):
    k = KernelBuilder("bad_map")
    src = k.global_array("src", "u16", 4096)
    shape = (64,) * len(box)
    with pytest.raises(KernelError, match=why) as err:
        k.tensor_map("tmap", src, shape, box, swizzle=swizzle)
    assert "test_tma.py" in str(err.value)


def test_an_expect_tx_past_what_ptx_allows_is_a_fault():
    kernel = _tma_kernel(64, 8, 2, 3, expect=1 << 20)
    with pytest.raises(KernelRuntimeError, match=r"expect_tx of \(bytes\) 1048576 \(PTX allows"):
        run(kernel, {}, {"src": _source(16, 64, 2)})


# ---------------------------------------------------------------- stores and 1-D bulk copies

def _store_kernel(box0, box1, esize, swz, iters=1, fence=True, wait=True):
    """As the calibration's store cases: every thread fills the tile with STS (row-major
    bytes, the layout the store reads), then thread 0 stores the box `iters` times."""
    dtype = {2: "u16", 4: "u32"}[esize]
    k = KernelBuilder("tma_store_case")
    out = k.global_array("out", dtype, box1 * box0, intent="out")
    src = k.global_array("src", dtype, box1 * box0)
    tmap = k.tensor_map("tmap", out, (box1, box0), (box1, box0), swizzle=MODES[swz])
    tile = k.shared("tile", dtype, box1 * box0, align=1024, layout=None)
    t = threadIdx.x
    with k.range("i", t, box1 * box0, 128) as i:
        tile[i] = src[i]
    if fence:
        k.fence_proxy_async()
    k.syncthreads()
    with k.range("it", 0, iters):
        with k.if_(t == 0):
            k.tma_store(tmap, tile, 0, (0, 0))
            k.bulk_commit()
            if wait:
                k.bulk_wait(0)
    if not wait:
        with k.range("j", t, box1 * box0, 128) as j:
            tile[j] = src[j]
    k.launch(grid=1, block=128)
    return k.build()


@pytest.mark.parametrize("case", [c for c in CASES if c["group"] == "tma_st"],
                         ids=lambda c: c["name"])
def test_every_public_tma_store_reads_the_layout_and_counts_as_measured(case):
    """The global tensor comes back from the tile by the same rule (the H100 rebuilt it
    exactly, 8/8), and the store counters equal Nsight's."""
    p = case["params"]
    box0, box1, esize, swz = p["box0"], p["box1"], p["esize"], p["swz"]
    kernel = _store_kernel(box0, box1, esize, swz, iters=p["iters"])
    src = _source(box1, box0, esize)
    out = run(kernel, {}, {"src": src})["out"]
    rel = (np.arange(box1)[:, None] * box0 * esize + np.arange(box0 * esize)[None, :]).ravel()
    want = src.view(np.uint8)[swizzle_bytes(1024 + rel, MODES[swz]) - 1024]
    assert np.array_equal(out.view(np.uint8), want)
    site = next(s for s in analyze(kernel, {}).sites if s.is_bulk)
    got, m = site.tma.as_metrics(), case["metrics"]
    assert got["sm__sass_inst_executed_op_tma_st"] == m["sm__sass_inst_executed_op_tma_st"]
    assert got["l1tex__m_l1tex2xbar_write_bytes_pipe_tma"] == \
        m["l1tex__m_l1tex2xbar_write_bytes_pipe_tma"]
    assert got["l1tex__data_bank_reads"] == p["iters"] * box0 * box1 * esize // 4


def test_a_store_of_unfenced_writes_is_a_located_hazard():
    kernel = _store_kernel(64, 8, 2, 0, fence=False)
    with pytest.raises(KernelRuntimeError, match="without a fence.proxy.async"):
        run(kernel, {}, {"src": _source(8, 64, 2)})
    faults = check(kernel, {}).faults
    assert len(faults) == 1 and "fence.proxy.async" in faults[0].message
    assert not check(_store_kernel(64, 8, 2, 0), {}).faults


def test_rewriting_a_tile_before_the_bulk_wait_is_a_located_fault():
    kernel = _store_kernel(64, 8, 2, 0, wait=False)
    with pytest.raises(KernelRuntimeError, match="TMA store of line .* still reads it"):
        run(kernel, {}, {"src": _source(8, 64, 2)})


@pytest.mark.parametrize("case", [c for c in CASES if c["group"] == "bulk"],
                         ids=lambda c: c["name"])
def test_every_public_bulk_copy_counts_as_measured(case):
    p = case["params"]
    nbytes, soff, iters = p["bytes"], p.get("soff", 0), p["iters"]
    load = p["kind"] == 5
    k = KernelBuilder("bulk_case")
    n = (nbytes + soff) // 4
    src = k.global_array("src", "u32", n)
    out = k.global_array("out", "u32", n, intent="out")
    tile = k.shared("tile", "u32", n, align=128)
    bar = k.shared("bar", "u64", 1)
    t = threadIdx.x
    if load:
        with k.if_(t == 0):
            k.mbarrier_init(bar, 0, 1)
        k.syncthreads()
        with k.range("it", 0, iters) as it:
            with k.if_(t == 0):
                k.mbarrier_arrive(bar, 0, expect_tx=nbytes)
                k.bulk_load(tile, 0, src, soff // 4, nbytes, bar, 0)
            k.mbarrier_wait(bar, 0, it % 2)
    else:
        with k.range("i", t, n, 128) as i:
            tile[i] = src[i]
        k.fence_proxy_async()
        k.syncthreads()
        with k.range("it", 0, iters):
            with k.if_(t == 0):
                k.bulk_store(out, 0, tile, 0, nbytes)
                k.bulk_commit()
                k.bulk_wait(0)
    k.launch(1, 128)
    kernel = k.build()
    data = _source(1, n, 4)
    if not load:
        assert np.array_equal(run(kernel, {}, {"src": data})["out"][:nbytes // 4],
                              data[:nbytes // 4])
    site = next(s for s in analyze(kernel, {}).sites if s.is_bulk)
    got, m = site.tma.as_metrics(), case["metrics"]
    kind = "ld" if load else "st"
    assert got[f"sm__sass_inst_executed_op_tma_{kind}"] == \
        m[f"sm__sass_inst_executed_op_tma_{kind}"]
    moved = "l1tex__m_xbar2l1tex_read_bytes_pipe_tma" if load else \
        "l1tex__m_l1tex2xbar_write_bytes_pipe_tma"
    # a 16-byte copy reads a whole sector; 128-byte pieces 16 bytes off read 5 (case 94)
    assert got[moved] == m[moved]
    if load:
        assert got["l1tex__data_bank_writes"] == m["l1tex__data_bank_writes"]


def test_the_roundtrip_and_bulk_examples_compute_what_they_say():
    from examples.tma_tile import KERNELS, distinct
    from kernels_ir import resolve_launch
    for key, plus in (("roundtrip", 1), ("bulk_copy", 0)):
        kernel = KERNELS[key]()
        arrays = distinct(resolve_launch(kernel, {"tiles": 3}))
        out = run(kernel, {"tiles": 3}, arrays)["out"]
        assert np.array_equal(out, (arrays["src"] + plus).astype(np.uint16)), key
        assert not check(kernel, {"tiles": 3}).faults


def test_check_names_a_reader_that_forgets_the_maps_swizzle():
    """unswizzled_reader: the map swizzles, 'tile' is declared row-major, ldmatrix reads by
    index: row 1's first chunk holds what TMA put there, row 1's second chunk."""
    from examples.tma_tile import KERNELS
    faults = check(KERNELS["unswizzled_reader"](), {"tiles": 2}).faults
    assert [f.kind for f in faults] == ["layout"]
    assert ("reads tile[1][0], which holds src(1, 8) where 'tile' as declared (without a "
            "layout) expects src(1, 0): tensor map 'src_map' writes SWIZZLE_128B") \
        in faults[0].message
    for key in ("swizzled", "plain", "roundtrip"):
        assert not check(KERNELS[key](), {"tiles": 2}).faults, key


def test_fix_swizzles_a_tma_tile_together_with_its_map():
    """fix may not pad a TMA tile, and swizzles it only together with its tensor map, so
    the proposal keeps the data right: the fixed `plain` reads the same fragments at 4
    wavefronts per ldmatrix.x4, and check finds nothing in it."""
    from examples.tma_tile import KERNELS, distinct
    from kernels_ir import resolve_launch
    from smemsim.search.fix import apply, search
    kernel = KERNELS["plain"]()
    found = search(kernel, {"tiles": 2}, jobs=1)
    (best,) = found.best
    assert (best.label, best.tma, best.maps) == ("Swizzle<3,3,3>", "SWIZZLE_128B",
                                                 ("src_map",))
    assert all(c.kind == "swizzle" for c in found.candidates)
    fixed = apply(kernel, best)
    arrays = distinct(resolve_launch(kernel, {"tiles": 2}))
    assert np.array_equal(run(fixed, {"tiles": 2}, arrays)["out"],
                          run(kernel, {"tiles": 2}, arrays)["out"])
    site = analyze(fixed, {"tiles": 2}).sites[1]
    assert site.wavefronts // site.requests == 4
    assert not check(fixed, {"tiles": 2}).faults


def test_copies_that_land_at_different_waits_keep_their_own_bytes():
    """Two boxes on two barriers: the first wait lands only its copy (the second's bytes,
    and what the layout check knows of them, stay with it until its own wait)."""
    k = KernelBuilder("two_barriers")
    src = k.global_array("src", "u16", 16 * 64)
    out = k.global_array("out", "u16", 16 * 64, intent="out")
    tmap = k.tensor_map("tmap", src, (16, 64), (8, 64), swizzle="SWIZZLE_128B")
    tile = k.shared("tile", "u16", (16, 64), layout="SWIZZLE_128B")
    bars = k.shared("bars", "u64", 2)
    t = threadIdx.x
    with k.if_(t < 2):
        k.mbarrier_init(bars, t, 1)
    k.syncthreads()
    with k.if_(t < 2):
        k.mbarrier_arrive(bars, t, expect_tx=1024)
        k.tma_load(tmap, tile, (t * 8, 0), (t * 8, 0), bars, t)
    k.mbarrier_wait(bars, 0, 0)
    with k.range("i", t, 512, 128) as i:          # rows 0..7 only
        out[i] = tile[i // 64, i % 64]
    k.mbarrier_wait(bars, 1, 0)
    with k.range("j", 512 + t, 1024, 128) as j:
        out[j] = tile[j // 64, j % 64]
    k.launch(1, 128)
    kernel = k.build()
    data = _source(16, 64, 2)
    assert np.array_equal(run(kernel, {}, {"src": data})["out"], data)
    assert not check(kernel, {}).faults


def test_a_tma_load_into_a_tile_a_store_still_reads_is_a_located_fault():
    """The same rule as for a thread's store: the bulk wait (.read) comes before anything,
    a TMA load included, writes the store's source again."""
    k = KernelBuilder("reload")
    src = k.global_array("src", "u16", 8 * 64)
    out = k.global_array("out", "u16", 8 * 64, intent="out")
    in_map = k.tensor_map("in_map", src, (8, 64), (8, 64))
    out_map = k.tensor_map("out_map", out, (8, 64), (8, 64))
    tile = k.shared("tile", "u16", 512, align=128)
    bar = k.shared("bar", "u64", 1)
    t = threadIdx.x
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
        k.mbarrier_arrive(bar, 0, expect_tx=1024)
        k.tma_load(in_map, tile, 0, (0, 0), bar, 0)
    k.mbarrier_wait(bar, 0, 0)
    with k.if_(t == 0):
        k.tma_store(out_map, tile, 0, (0, 0))
        k.bulk_commit()
        k.mbarrier_arrive(bar, 0, expect_tx=1024)
        k.tma_load(in_map, tile, 0, (0, 0), bar, 0)     # before the store's wait
        k.bulk_wait(0)
    k.mbarrier_wait(bar, 0, 1)
    k.launch(1, 32)
    with pytest.raises(KernelRuntimeError, match="the TMA load writes 'tile' .* while the TMA "
                                                 "store of line .* still reads it"):
        run(k.build(), {}, {"src": _source(8, 64, 2)})


# ---------------------------------------------------------------- maps of 3 to 5 dimensions

def _planes_kernel(swizzle="SWIZZLE_128B"):
    """A 3-D map over planes of 32 rows x 64 u16 that lie 40 rows apart (a stride, not the
    row-major 32): thread 0 loads the box [2][16][64] at (plane 1, row 8, col 0), every
    thread copies the tile's bytes out as they lie."""
    k = KernelBuilder("planes")
    src = k.global_array("src", "u16", 3 * 40 * 64)
    tmap = k.tensor_map("tmap", src, (3, 32, 64), (2, 16, 64), swizzle=swizzle,
                        strides=(40 * 64, 64))
    tile = k.shared("tile", "u16", 2 * 16 * 64, align=1024)
    out = k.global_array("out", "u16", 2 * 16 * 64, intent="out")
    bar = k.shared("bar", "u64", 1)
    t = threadIdx.x
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.if_(t == 0):
        k.mbarrier_arrive(bar, 0, expect_tx=tmap.box_bytes)
        k.tma_load(tmap, tile, 0, (1, 8, 0), bar, 0)
    k.mbarrier_wait(bar, 0, 0)
    with k.range("i", t, 2 * 16 * 64, 128) as i:
        out[i] = tile[i]
    k.launch(grid=1, block=128)
    return k.build()


def test_a_3d_box_lays_its_rows_in_row_major_order_of_the_outer_dimensions():
    """Box row r = plane * 16 + row goes to r * 128 bytes, swizzled by its absolute address
    (the 2-D rule), and holds global row (1 + plane) * 40 + 8 + row (the strides); planes
    1 and 2 both lie inside the tensor's 3."""
    src = (np.arange(3 * 40 * 64) * 7 % 65521).astype(np.uint16)
    got = run(_planes_kernel(), {}, {"src": src})["out"].view(np.uint8)
    want = np.zeros(2 * 16 * 128, np.uint8)
    rows = src.reshape(3, 40, 64)[1:3, 8:24].reshape(32, 64).view(np.uint8)   # (32, 128)
    at = swizzle_bytes(np.arange(32)[:, None] * 128 + np.arange(128)[None, :], "SWIZZLE_128B")
    want[at] = rows
    assert np.array_equal(got, want)
    r = analyze(_planes_kernel(), {})
    (site,) = [s for s in r.sites if s.tma is not None]
    assert (site.tma.instructions, site.tma.bytes) == (1, 4096)


def test_an_outer_dimension_of_one_may_have_stride_zero():
    """fast.cu's kernel 7 encodes its unit dimensions with stride 0, which CUDA accepts:
    the map reads the same box as the row-major one."""
    k = KernelBuilder("unit_dim")
    src = k.global_array("src", "u16", 16 * 64)
    tmap = k.tensor_map("tmap", src, (1, 16, 64), (1, 16, 64), strides=(0, 64))
    tile = k.shared("tile", "u16", 16 * 64, align=1024)
    out = k.global_array("out", "u16", 16 * 64, intent="out")
    bar = k.shared("bar", "u64", 1)
    t = threadIdx.x
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.if_(t == 0):
        k.mbarrier_arrive(bar, 0, expect_tx=tmap.box_bytes)
        k.tma_load(tmap, tile, 0, (0, 0, 0), bar, 0)
    k.mbarrier_wait(bar, 0, 0)
    with k.range("i", t, 16 * 64, 128) as i:
        out[i] = tile[i]
    k.launch(grid=1, block=128)
    src = np.arange(16 * 64, dtype=np.uint16)
    assert np.array_equal(run(k.build(), {}, {"src": src})["out"], src)


def test_a_map_refuses_what_cuda_refuses():
    k = KernelBuilder("bad")
    src = k.global_array("src", "u16", 4096)
    with pytest.raises(KernelError, match="a 3-D tensor takes 2 stride"):
        k.tensor_map("m", src, (2, 32, 64), (1, 16, 64), strides=(64,))
    with pytest.raises(KernelError, match="a 6-D box: TMA maps have 1 to 5 dimensions"):
        k.tensor_map("m", src, (1,) * 5 + (64,), (1,) * 5 + (64,))


@pytest.mark.gpu
def test_a_3d_box_on_the_gpu():
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    src = (np.arange(3 * 40 * 64) * 7 % 65521).astype(np.uint16)
    result = run_on_gpu(_planes_kernel(), {}, {"src": src})
    assert result.matches, result.mismatches


def test_a_bulk_copys_global_end_needs_16_bytes_not_its_size():
    """PTX asks both ends of cp.async.bulk for 16-byte alignment: 1,024 bytes from global
    byte 16 runs (the interpreter once asked a vector's natural alignment); 8 bytes off,
    or past the array's end, is a fault at the copy."""
    from tests.kernels.tma_sectors import bulk_load
    out = run(bulk_load("b", 1024, 16, 1, 1), {}, {"src": np.arange(1536, dtype=np.uint16)})
    assert out["out"].tolist() == list(range(8, 8 + 512))
    with pytest.raises(KernelRuntimeError, match="byte 8 is not 16-byte aligned"):
        run(bulk_load("b", 1024, 8, 1, 1), {})
    with pytest.raises(KernelRuntimeError, match="out of bounds: a bulk copy of 1040 bytes "
                                                 "at index 1024 of 'src'"):
        run(bulk_load("b", 1040, 2048, 1, 1), {})

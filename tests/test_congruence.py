"""The congruence analysis (smemsim/launch/congruence.py): which low bits of an integer expression
every execution of a launch agrees on, and the global sectors of TMA / bulk copies it
decides (smemsim/launch/bulk.py; docs/tma.md)."""
import numpy as np
import pytest

from kernels_ir import KernelBuilder, blockIdx, cast, i32, resolve_launch, threadIdx, u8
from smemsim import analyze
from smemsim.launch.bulk import piece_sectors, site_sectors
from smemsim.launch.congruence import Congruences, Residue, exact, join


def _known(kernel_body, params=None):
    """(low 5 bits, how many known) of the value kernel_body(k) returns, in a 4-block launch
    of 64 threads."""
    k = KernelBuilder("c")
    n = k.param("n")
    out = k.global_array("out", i32, 4096, intent="out")
    value = kernel_body(k, n)
    out[cast(threadIdx.x, i32)] = value
    k.launch(grid=4, block=64)
    k.defaults(n=100)
    kernel = k.build()
    c = Congruences(kernel, resolve_launch(kernel, params or {}))
    return c.expr(value).low(5)


def test_constants_and_parameters_are_exact_and_thread_indices_unknown():
    assert _known(lambda k, n: n * 3 + 7) == (307 % 32, 5)
    assert _known(lambda k, n: cast(threadIdx.x, i32)) == (0, 0)
    assert _known(lambda k, n: cast(blockIdx.x, i32) * 64 + 8) == (8, 5)
    assert _known(lambda k, n: cast(threadIdx.x, i32) * 16 + 4) == (4, 4)
    assert _known(lambda k, n: (cast(threadIdx.x, i32) & ~15) + 2) == (2, 4)
    assert _known(lambda k, n: (cast(blockIdx.x, i32) << 7) >> 2) == (0, 5)
    assert _known(lambda k, n: (cast(blockIdx.x, i32) << 7) >> 4) == (0, 3)
    # C's remainder differs from the dividend by a multiple of the divisor, sign or not
    assert _known(lambda k, n: (cast(blockIdx.x, i32) * 32 - 24) % 64) == (8, 5)
    # a conversion wraps as C's does: 300 as u8 is 44
    assert _known(lambda k, n: cast(cast(n * 3, u8), i32)) == (44 % 32, 5)


def test_variables_join_what_is_assigned_to_them():
    def two_values(k, n):
        x = k.let("x", 0)
        with k.if_(cast(threadIdx.x, i32) < 32):
            k.assign(x, 16)
        return x
    assert _known(two_values) == (0, 4)    # 0 or 16: known mod 16, not mod 32

    def stepped(k, n):
        y = k.let("y", 8)
        with k.range("i", 0, n):
            k.assign(y, y + 64)
        return y
    assert _known(stepped) == (8, 5)

    def loop_var(k, n):
        acc = k.let("acc", 40)
        with k.range("kk", 8, n, 32) as kk:
            k.assign(acc, kk)
        return acc
    assert _known(loop_var) == (8, 5)     # 40, then 8, 40, 72, ...

    def loaded(k, n):
        src = k.global_array("src", i32, 64)
        return src[cast(threadIdx.x, i32)] * 2
    assert _known(loaded) == (0, 1)     # even, whatever was loaded


def test_join_keeps_the_bits_both_agree_on():
    assert join(exact(4), exact(4)) == exact(4)
    assert join(exact(0), exact(48)).low(5) == (0, 4)
    assert join(exact(3), Residue(1, 1)).low(5) == (1, 1)
    assert join(None, exact(5)) == exact(5)


def test_sectors_per_piece_as_the_h100_counts_them():
    """Copies are cut at the 128-byte lines of their shared side; each piece touches whole
    global sectors (tests/kernels/tma_sectors.py, measured on an H100; docs/tma.md)."""
    def one(shared, glob, n):
        return int(piece_sectors(np.array(shared), np.array(glob), n))
    assert one(0, 0, 128) == 4 and one(0, 16, 128) == 5       # ../docs/hopper-rules.md 1
    assert one(0, 0, 16) == 1 and one(0, 16, 16) == 1          # a 16-byte copy reads 32
    assert one(0, 16, 1024) == 40                             # case 94: 5 per 128 bytes
    assert one(0, 0, 144) == 4 + 1 and one(0, 16, 144) == 5 + 1
    assert one(0, 16, 160) == 5 + 2 and one(0, 0, 1040) == 32 + 1
    # 144 bytes from global 16 into shared 144: pieces of 112 (global 16..127: 4 sectors)
    # and 32 (global 128..159: 1 sector)
    assert one(144, 16, 144) == 4 + 1


def test_a_start_known_only_mod_16_is_exact_only_where_both_phases_agree():
    half = Residue(0, 4)
    zero = np.zeros(1, np.int64)
    assert site_sectors(half, zero, np.array([3]), zero, zero, 16) == (3, True)
    assert site_sectors(half, zero, np.array([1]), zero, zero, 128) == (4, False)  # 4 or 5
    # rows 16 bytes apart in phase, each in its own 128-byte line: 4 + 5 sectors per pair
    rows = np.array([0, 144])
    assert site_sectors(half, zero, np.array([2]), rows, np.array([0, 128]), 128) == \
        (18, True)
    # rows of 144 bytes laid 144 apart in shared memory: eight phases of the line, 5.5 a row
    # on average from global byte 16 (tests/kernels/tma_sectors.py's wide_col8: 176 a row)
    shared = np.arange(8) * 144
    assert site_sectors(exact(16), zero, np.array([1]), np.zeros(8, np.int64), shared,
                        144) == (44, True)


def _tma_site(column):
    """A 64 x 64 box of u16 (128-byte rows) per block at column `column(k, b)` of a
    4096-element-wide tensor: the site's TMA figures."""
    k = KernelBuilder("cols")
    src = k.global_array("src", "u16", 128 * 4096)
    tmap = k.tensor_map("m", src, (128, 4096), (64, 64))
    tile = k.shared("tile", "u16", 4096, align=1024)
    bar = k.shared("bar", "u64", 1)
    t, b = cast(threadIdx.x, i32), cast(blockIdx.x, i32)
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.range("it", 0, 2) as it:
        with k.if_(t == 0):
            k.mbarrier_arrive(bar, 0, expect_tx=8192)
            k.tma_load(tmap, tile, 0, (0, column(it, b)), bar, 0)
        k.mbarrier_wait(bar, 0, it % 2)
    k.launch(grid=8, block=128)
    report = analyze(k.build(), {})
    return next(s for s in report.sites if s.is_bulk).tma


@pytest.mark.parametrize("column, per_row, exact_", [
    (lambda it, b: b * 64, 4, True),             # on the grid
    (lambda it, b: b * 64 + it * 128 + 8, 5, True),  # 16 bytes off, every copy
    (lambda it, b: b * 8, 4, False),             # 0 or 16 bytes off: at least 4
    (lambda it, b: b * 64 + it * 8, 4, False),   # 0 or 16 bytes off by copy: at least
])
def test_a_tma_sites_global_bytes_follow_where_its_rows_start(column, per_row, exact_):
    tma = _tma_site(column)
    assert tma.copies == 16
    assert tma.global_bytes == 16 * 64 * per_row * 32
    assert tma.global_bytes_exact is exact_


def test_a_box_off_the_16_byte_grid_is_the_gpus_illegal_instruction():
    """An H100 stopped with an illegal instruction for boxes of 2-byte elements 1 and 4
    columns off (tests/kernels/tma_sectors.py col1, col4): analyze says so where the
    arithmetic proves it, and a run (and check) at the copy that does it."""
    from kernels_ir import KernelError, KernelRuntimeError, run
    from smemsim.launch.hazards import check
    with pytest.raises(KernelError, match="illegal instruction: every box of tensor map 'm' "
                                          "starts 2 bytes"):
        _tma_site(lambda it, b: b * 64 + 1)
    from tests.kernels.tma_sectors import KERNELS
    with pytest.raises(KernelRuntimeError, match=r"illegal instruction \(a misaligned TMA "
                                                 r"box\): the box of tensor map 'm' at column 4 "
                                                 r"starts 8 bytes past"):
        run(KERNELS["col4"](), {})
    faults = check(KERNELS["col4"](), {}).faults
    import pathlib
    text = (pathlib.Path(__file__).parent / "kernels" / "tma_sectors.py").read_text()
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "k.tma_load(" in t)
    assert [(f.kind, f.blocks, f.loc.line) for f in faults] == [("misaligned", 8, line)]
    assert check(KERNELS["col8"](), {}).clean


# What an H100 counted for tests/kernels/tma_sectors.py (2026-11-25, docs/validation.md):
# l1tex__m_xbar2l1tex_read_bytes_pipe_tma (loads) / _l1tex2xbar_write_bytes_pipe_tma
# (stores) per launch. The second group was predicted and written down before it ran.
H100_GLOBAL_BYTES = {
    "col0": 131072, "col8": 163840, "wide_col8": 180224, "odd_stride": 147456,
    "col_by_block": 147456, "left_edge": 163840, "bulk_1024_off16": 20480,
    "bulk_144_off16": 2816, "bulk_144": 2816, "one_144_at_0": 160, "one_144_at_16": 192,
    "one_144_at_1024": 160, "one_144_at_2048": 160, "one_160_at_0": 160, "one_160_at_16": 224,
    "one_176_at_0": 192, "one_272_at_0": 288, "one_48_at_0": 64, "one_48_at_16": 64,
    "one_400_at_0": 416, "one_1040_at_0": 1056, "one_16_at_16": 32, "store_col8": 163840,
    "store_col0": 131072, "bulk_store_off16": 20480, "bulk_store_144": 2560,
    # predicted first
    "bulk_dst16": 20480, "bulk_dst48_off16": 4608, "bulk_dst96_144": 160,
    "rows48_col8": 69632, "u32_col4": 163840, "sw64_col8": 98304, "store_src16": 20480,
    "store_src112_off16": 2560,
}


@pytest.mark.parametrize("key", sorted(H100_GLOBAL_BYTES))
def test_the_global_bytes_the_h100_counted(key):
    from tests.kernels.tma_sectors import KERNELS
    sites = [s.tma for s in analyze(KERNELS[key](), {}).sites if s.tma is not None]
    got = sum(t.global_bytes for t in sites)
    if key == "col_by_block":   # columns 0 or 16 bytes off by block: at least
        assert not sites[0].global_bytes_exact and got == 131072
    else:
        assert all(t.global_bytes_exact for t in sites) and got == H100_GLOBAL_BYTES[key]


def test_a_bulk_copy_proven_off_the_16_byte_grid_is_refused_and_unknown_ones_run_on_it():
    """A bulk copy's global end must be 16-byte aligned (PTX ISA; the interpreter faults
    there): a source index that is 8 bytes off in every execution is refused at the site;
    one the arithmetic cannot place is costed as the copies that run are, on 16 bytes: a
    16-byte copy then reads one sector wherever it starts (exact), a 144-byte one 5 or 6
    (at least 5)."""
    from tests.kernels.tma_sectors import bulk_load
    from kernels_ir import KernelError
    with pytest.raises(KernelError,
                       match="site 0: misaligned address: every bulk copy starts 8 bytes"):
        analyze(bulk_load("off8", 1024, 8, 1, 1), {})
    def copy_from_loaded_index(nbytes):
        k = KernelBuilder("unknown_start")
        src = k.global_array("src", "u16", 4096)
        where = k.global_array("where", "i32", 1)
        tile = k.shared("tile", "u16", 72, align=128)
        bar = k.shared("bar", "u64", 1)
        t = cast(threadIdx.x, i32)
        with k.if_(t == 0):
            k.mbarrier_init(bar, 0, 1)
        k.syncthreads()
        with k.if_(t == 0):
            k.mbarrier_arrive(bar, 0, expect_tx=nbytes)
            k.bulk_load(tile, 0, src, where[0], nbytes, bar, 0)   # 2 x a loaded value
        k.mbarrier_wait(bar, 0, 0)
        k.launch(1, 32)
        tma = next(s.tma for s in analyze(k.build(), {}).sites if s.tma is not None)
        return tma.global_bytes, tma.global_bytes_exact
    assert copy_from_loaded_index(16) == (32, True)
    assert copy_from_loaded_index(144) == (5 * 32, False)

"""TMA and bulk copies whose global side starts off the 32-byte sector grid: what
`l1tex__m_xbar2l1tex_read_bytes_pipe_tma` (loads) and `..._l1tex2xbar_write_bytes_pipe_tma`
(stores) count, against smemsim.launch.bulk's rule (each row reads the sectors it touches, in
128-byte pieces from where it starts) and smemsim.launch.congruence (where it starts).

Eight blocks; in each, thread 0 issues two copies (a TMA box of 64 rows, or a 1-D bulk
copy), waited for on an mbarrier, then every thread copies the tile to `out` (loads), or
the tile is filled from `src` and copied out by TMA / bulk stores. Run on the GPU by
`python3 tools/gpu_validate.py OUT tests/kernels/tma_sectors.py::KEY ...`
(docs/validation.md).
"""
from kernels_ir import KernelBuilder, blockIdx, cast, i32, threadIdx, u16, u32

BLOCKS = 8
ROWS = 64
COPIES = 2


def tile_load(name: str, box0: int, column, stride: int = 4096, dtype=u16,
              swizzle: str | None = None):
    """TMA loads of a ROWS x box0 box of `dtype` at row 64 * copy, column `column(b, copy)`,
    from a 128 x 4096 tensor whose rows are `stride` elements apart."""
    k = KernelBuilder(name)
    size = dtype.size
    span = {None: 0, "SWIZZLE_32B": 32, "SWIZZLE_64B": 64, "SWIZZLE_128B": 128}[swizzle]
    pitch = max(box0 * size, span) // size           # elements between the tile's rows
    src = k.global_array("src", dtype, 128 * stride)
    out = k.global_array("out", dtype, BLOCKS * COPIES * ROWS * pitch, intent="out")
    tmap = k.tensor_map("m", src, (128, 4096), (ROWS, box0), row_stride=stride,
                        swizzle=swizzle)
    tile = k.shared("tile", dtype, COPIES * ROWS * pitch, align=1024)
    bar = k.shared("bar", "u64", 1)
    t, b = cast(threadIdx.x, i32), cast(blockIdx.x, i32)
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.if_(t == 0):
        k.mbarrier_arrive(bar, 0, expect_tx=COPIES * ROWS * box0 * size)
        for c in range(COPIES):
            k.tma_load(tmap, tile, c * ROWS * pitch, (c * ROWS, column(b, c)), bar, 0)
    k.mbarrier_wait(bar, 0, 0)
    n = COPIES * ROWS * pitch
    with k.range("i", t, n, 128) as i:
        out[b * n + i] = tile[i]
    k.launch(grid=BLOCKS, block=128)
    return k.build()


def tile_store(name: str, column):
    """The mirror: each block fills a 64 x 64 tile from `src` and TMA-stores it twice, at
    rows 64 * copy, column `column(b, copy)` of a 128 x 4096 `out`."""
    k = KernelBuilder(name)
    src = k.global_array("src", u16, ROWS * 64)
    out = k.global_array("out", u16, 128 * 4096, intent="out")
    tmap = k.tensor_map("m", out, (128, 4096), (ROWS, 64))
    tile = k.shared("tile", u16, ROWS * 64, align=1024)
    t, b = cast(threadIdx.x, i32), cast(blockIdx.x, i32)
    with k.range("i", t, ROWS * 64, 128) as i:
        tile[i] = src[i]
    k.fence_proxy_async()
    k.syncthreads()
    with k.if_(t == 0):
        for c in range(COPIES):
            k.tma_store(tmap, tile, 0, (c * ROWS, column(b, c)))
        k.bulk_commit()
        k.bulk_wait(0)
    k.launch(grid=BLOCKS, block=128)
    return k.build()


def bulk_load(name: str, nbytes: int, offset: int, blocks: int = BLOCKS, copies: int = COPIES,
              dst: int = 0):
    """`copies` 1-D bulk loads per block of `nbytes` from byte 1024 * (2 * b + copy) + `offset`
    of `src`, to shared byte `dst` + copy * nbytes of the tile."""
    k = KernelBuilder(name)
    per, at = nbytes // 2, dst // 2
    src = k.global_array("src", u16, blocks * copies * 512 + 1024)
    out = k.global_array("out", u16, blocks * copies * per, intent="out")
    tile = k.shared("tile", u16, at + copies * per, align=128)
    bar = k.shared("bar", "u64", 1)
    t, b = cast(threadIdx.x, i32), cast(blockIdx.x, i32)
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.if_(t == 0):
        k.mbarrier_arrive(bar, 0, expect_tx=copies * nbytes)
        for c in range(copies):
            k.bulk_load(tile, at + c * per, src, (2 * b + c) * 512 + offset // 2, nbytes,
                        bar, 0)
    k.mbarrier_wait(bar, 0, 0)
    with k.range("i", t, copies * per, 128) as i:
        out[b * copies * per + i] = tile[at + i]
    k.launch(grid=blocks, block=128)
    return k.build()


def bulk_store(name: str, nbytes: int, offset: int, src_at: int = 0):
    """1-D bulk stores of `nbytes` of a tile filled from `src`, from its byte `src_at`, to
    byte 1024 * (2 * b + copy) + `offset` of `out`."""
    k = KernelBuilder(name)
    per, at = nbytes // 2, src_at // 2
    src = k.global_array("src", u16, per)
    out = k.global_array("out", u16, BLOCKS * COPIES * 512 + 1024, intent="out")
    tile = k.shared("tile", u16, at + per, align=128)
    t, b = cast(threadIdx.x, i32), cast(blockIdx.x, i32)
    with k.range("i", t, per, 128) as i:
        tile[at + i] = src[i]
    k.fence_proxy_async()
    k.syncthreads()
    with k.if_(t == 0):
        for c in range(COPIES):
            k.bulk_store(out, (2 * b + c) * 512 + offset // 2, tile, at, nbytes)
        k.bulk_commit()
        k.bulk_wait(0)
    k.launch(grid=BLOCKS, block=128)
    return k.build()


KERNELS = {
    # loads: 128-byte rows on the grid, 16 bytes off (case 20's rule), 2 bytes off, rows of
    # 144 bytes (a 128-byte piece and a 16-byte one) 16 bytes off, rows 8,208 bytes apart
    # (every other row 16 bytes off), columns 0 or 16 bytes off by block (at least), and a
    # box 16 bytes left of the tensor (its first 8 columns outside: zeros)
    "col0": lambda: tile_load("col0", 64, lambda b, c: b * 64),
    "col8": lambda: tile_load("col8", 64, lambda b, c: b * 64 + 8),
    "col1": lambda: tile_load("col1", 64, lambda b, c: b * 64 + 1),
    "wide_col8": lambda: tile_load("wide_col8", 72, lambda b, c: b * 128 + 8),
    "odd_stride": lambda: tile_load("odd_stride", 64, lambda b, c: b * 64, stride=4104),
    "col_by_block": lambda: tile_load("col_by_block", 64, lambda b, c: b * 8),
    "left_edge": lambda: tile_load("left_edge", 64, lambda b, c: b * 0 - 8),
    # 1-D bulk loads: 1,024 bytes 16 off (case 94's rule), 144 bytes 16 off and on the grid
    "bulk_1024_off16": lambda: bulk_load("bulk_1024_off16", 1024, 16),
    "bulk_144_off16": lambda: bulk_load("bulk_144_off16", 144, 16),
    "bulk_144": lambda: bulk_load("bulk_144", 144, 0),
    **{f"one_{n}_at_{at}": (lambda n=n, at=at: bulk_load(f"one_{n}_at_{at}", n, at, 1, 1))
       for n, at in ((144, 0), (144, 16), (144, 1024), (144, 2048), (160, 0), (160, 16),
                     (176, 0), (272, 0), (48, 0), (48, 16), (400, 0), (1040, 0), (16, 16))},
    "col4": lambda: tile_load("col4", 64, lambda b, c: b * 64 + 4),
    # the shared side's 128-byte lines cut the copies (measured after the rule was fitted
    # to wide_col8 and bulk_144, its predictions written down first: docs/validation.md)
    "bulk_dst16": lambda: bulk_load("bulk_dst16", 1024, 0, dst=16),
    "bulk_dst48_off16": lambda: bulk_load("bulk_dst48_off16", 256, 16, dst=48),
    "bulk_dst96_144": lambda: bulk_load("bulk_dst96_144", 144, 0, 1, 1, dst=96),
    "rows48_col8": lambda: tile_load("rows48_col8", 24, lambda b, c: b * 64 + 8),
    "u32_col4": lambda: tile_load("u32_col4", 32, lambda b, c: b * 64 + 4, dtype=u32),
    "sw64_col8": lambda: tile_load("sw64_col8", 32, lambda b, c: b * 64 + 8,
                                   swizzle="SWIZZLE_64B"),
    "store_src16": lambda: bulk_store("store_src16", 1024, 0, src_at=16),
    "store_src112_off16": lambda: bulk_store("store_src112_off16", 144, 16, src_at=112),
    # stores off the grid: a TMA box 16 bytes off, bulk stores 16 bytes off
    "store_col8": lambda: tile_store("store_col8", lambda b, c: b * 64 + 8),
    "store_col0": lambda: tile_store("store_col0", lambda b, c: b * 64),
    "bulk_store_off16": lambda: bulk_store("bulk_store_off16", 1024, 16),
    "bulk_store_144": lambda: bulk_store("bulk_store_144", 144, 0),
}

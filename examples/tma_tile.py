"""A Hopper TMA tile load: one 64 x 64 tile of 16-bit elements per block, brought in by TMA
with an mbarrier, then read by ldmatrix.x4 as tensor-core fragments.

    __shared__ __align__(1024) uint16_t tile[64 * 64];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) { mbarrier_init(&bar, 1); fence_mbarrier_init(); }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbarrier_arrive_expect_tx(&bar, 8192);
        tma_load_2d(tile, &tensor_map, /*col*/ 0, /*row*/ 64 * blockIdx.x, &bar);
    }
    mbarrier_wait_parity(&bar, 0);
    // warp w reads rows 16w..16w+15, 16 columns at a time
    ldmatrix_x4(frag, &tile[r * 64 + chunk * 8]);   // + the XOR, or not

With SWIZZLE_128B in the tensor map, TMA writes 16-byte chunk c of row r at chunk c ^ (r % 8)
(the swizzle of the absolute shared address; the tile is 1024-byte aligned). A reader that
declares the same layout reads the intended elements with 4 wavefronts per ldmatrix.x4;
`unswizzled_reader` is the classic mistake: the map swizzles, the reader indexes row-major
and gets wrong fragments (7 of every 8 rows), silently, and 8-way conflicts besides (32
wavefronts per ldmatrix.x4: the row-major addresses of 8 rows share 4 banks). `plain` loads
without a swizzle: right fragments, the same 8-way conflicts. `roundtrip` adds 1 to the
tile in place and writes it back with a TMA store (fence.proxy.async first); `bulk_copy`
moves 8 KiB per block each way with 1-D bulk copies.
"""
import numpy as np

from kernels_ir import KernelBuilder, blockIdx, cast, i32, threadIdx, u16

ROWS = COLS = 64
WARPS = 4


def tma_tile(map_swizzle: str | None, tile_layout: str | None):
    """Each block TMA-loads its tile and writes its ldmatrix fragments to `out`."""
    name = "tma_" + ("plain" if map_swizzle is None else
                     "swizzled" if tile_layout else "unswizzled_reader")
    k = KernelBuilder(name)
    tiles = k.param("tiles")
    src = k.global_array("src", u16, tiles * ROWS * COLS)
    out = k.global_array("out", u16, tiles * ROWS * COLS, intent="out")
    tmap = k.tensor_map("src_map", src, (tiles * ROWS, COLS), (ROWS, COLS),
                        swizzle=map_swizzle)
    tile = k.shared("tile", u16, (ROWS, COLS), layout=tile_layout, align=1024)
    bar = k.shared("bar", "u64", 1)
    t = cast(threadIdx.x, i32)
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.if_(t == 0):
        k.mbarrier_arrive(bar, 0, expect_tx=tmap.box_bytes)
        k.tma_load(tmap, tile, (0, 0), (cast(blockIdx.x, i32) * ROWS, 0), bar, 0)
    k.mbarrier_wait(bar, 0, 0)
    warp, lane = t // 32, t % 32
    base = cast(blockIdx.x, i32) * (ROWS * COLS)
    with k.range("kk", 0, COLS // 16) as kk:
        r = 16 * warp + lane % 16
        c = 2 * kk + lane // 16
        frag = k.ldmatrix(tile, (r, c * 8), matrices=4)
        at = base + ((warp * 4 + kk) * 32 + lane) * 8
        for e in range(8):
            out[at + e] = frag[e]
    k.launch(grid=tiles, block=WARPS * 32)
    k.defaults(tiles=132)
    return k.build()


def tma_roundtrip():
    """Load the tile by TMA (128B swizzle), add 1 to every element in place through the
    swizzled layout, publish the stores to the async proxy and TMA-store the tile to `out`:
    out = src + 1. Without the fence the store may read stale bytes (`check` says so)."""
    k = KernelBuilder("tma_roundtrip")
    tiles = k.param("tiles")
    src = k.global_array("src", u16, tiles * ROWS * COLS)
    out = k.global_array("out", u16, tiles * ROWS * COLS, intent="out")
    src_map = k.tensor_map("src_map", src, (tiles * ROWS, COLS), (ROWS, COLS),
                           swizzle="SWIZZLE_128B")
    out_map = k.tensor_map("out_map", out, (tiles * ROWS, COLS), (ROWS, COLS),
                           swizzle="SWIZZLE_128B")
    tile = k.shared("tile", u16, (ROWS, COLS), layout="SWIZZLE_128B", align=1024)
    bar = k.shared("bar", "u64", 1)
    t = cast(threadIdx.x, i32)
    row0 = cast(blockIdx.x, i32) * ROWS
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.if_(t == 0):
        k.mbarrier_arrive(bar, 0, expect_tx=src_map.box_bytes)
        k.tma_load(src_map, tile, (0, 0), (row0, 0), bar, 0)
    k.mbarrier_wait(bar, 0, 0)
    with k.range("i", 0, ROWS * COLS // (WARPS * 32)) as i:
        r = k.let("r", i * 2 + t // 64)
        c = k.let("c", t % 64)
        tile[r, c] = cast(tile[r, c] + 1, u16)
    k.fence_proxy_async()
    k.syncthreads()
    with k.if_(t == 0):
        k.tma_store(out_map, tile, (0, 0), (row0, 0))
        k.bulk_commit()
        k.bulk_wait(0)
    k.launch(grid=tiles, block=WARPS * 32)
    k.defaults(tiles=132)
    return k.build()


def bulk_copy():
    """A 1-D bulk copy each way: 8 KiB per block into shared memory on an mbarrier, then
    back out to `out` (out = src), in a bulk group waited for before the block ends."""
    k = KernelBuilder("bulk_copy")
    tiles = k.param("tiles")
    src = k.global_array("src", u16, tiles * ROWS * COLS)
    out = k.global_array("out", u16, tiles * ROWS * COLS, intent="out")
    tile = k.shared("tile", u16, ROWS * COLS, align=128)
    bar = k.shared("bar", "u64", 1)
    t = cast(threadIdx.x, i32)
    at = cast(blockIdx.x, i32) * (ROWS * COLS)
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.if_(t == 0):
        k.mbarrier_arrive(bar, 0, expect_tx=ROWS * COLS * 2)
        k.bulk_load(tile, 0, src, at, ROWS * COLS * 2, bar, 0)
    k.mbarrier_wait(bar, 0, 0)
    with k.if_(t == 0):
        k.bulk_store(out, at, tile, 0, ROWS * COLS * 2)
        k.bulk_commit()
        k.bulk_wait(0)
    k.launch(grid=tiles, block=WARPS * 32)
    k.defaults(tiles=132)
    return k.build()


def distinct(launch) -> dict:
    """Distinct 16-bit values (so every misplaced element shows)."""
    n = launch.lengths["src"]
    return {"src": (np.arange(n, dtype=np.uint32) * 40503 % 65536).astype(np.uint16)}


KERNELS = {
    "swizzled": lambda: tma_tile("SWIZZLE_128B", "SWIZZLE_128B"),
    "unswizzled_reader": lambda: tma_tile("SWIZZLE_128B", None),
    "plain": lambda: tma_tile(None, None),
    "roundtrip": tma_roundtrip,
    "bulk_copy": bulk_copy,
}
ARRAYS = {key: distinct for key in KERNELS}

"""A tensor-core style tile load: a 64x64 tile of 16-bit elements staged in shared memory,
then read by ldmatrix.x4 as 16x16 fragments, row-major or with CuTe's Swizzle<3,4,3>.

    __shared__ __align__(128) half tile[64 * 64];
    // stage: 16-byte chunks, chunk c of row r stored at chunk c ^ (r % 8) when swizzled
    for (int q = threadIdx.x; q < 512; q += 128) {
        int r = q / 8, c = q % 8;
        *(uint4*)&tile[r * 64 + (c ^ (SWIZZLE ? r % 8 : 0)) * 8] = ((const uint4*)src)[q];
    }
    __syncthreads();
    // warp w reads rows 16w..16w+15, 16 columns at a time
    for (int kk = 0; kk < 4; ++kk) {
        int r = 16 * w + lane % 16, c = 2 * kk + lane / 16;       // lane's row and chunk
        ldmatrix_x4(frag, &tile[r * 64 + (c ^ (SWIZZLE ? r % 8 : 0)) * 8]);
        ...
    }

Rows are 128 bytes apart, so the 8 rows of one matrix sit in the same 4 banks: row-major,
each matrix costs 8 wavefronts, 32 per ldmatrix.x4. Swizzle<3,4,3> (on byte addresses: bits
4-6 ^= bits 7-9; on element indices Swizzle<3,3,3>) moves row r's chunk to c ^ (r % 8), so
the 8 rows of a matrix fall in 8 different bank quads: 4 wavefronts, the ideal. The
`roundtrip` kernel stores each fragment back with stmatrix.x4 into a second tile (same
layout) and copies it out, so stmatrix's cost and semantics are exercised too. The
`declared` kernel writes the row-major indices and declares the layout instead:
`k.shared("tile", u16, 4096, layout="SWIZZLE_128B")` (TMA's name for the same swizzle),
with its u32 view declared `Swizzle(3, 2, 3)`, the same permutation of bytes.
"""
import numpy as np

from kernels_ir import KernelBuilder, Swizzle, blockIdx, cast, i32, threadIdx, u16, u32

ROWS = COLS = 64
CHUNK = 8                      # 16-byte chunks of 8 elements
WARPS = 4


def _place(r, c, swizzle: bool):
    """Element index of chunk c of row r."""
    return r * COLS + ((c ^ (r % 8)) if swizzle else c) * CHUNK


def tile_load(swizzle: bool = False, roundtrip: bool = False, declared: bool = False):
    """Each block stages one tile and writes its ldmatrix fragments (or, with `roundtrip`,
    the tile rebuilt by stmatrix from them) to `out`; `declared` swizzles by declaration."""
    name = "ldmatrix_" + ("declared" if declared else "swizzled" if swizzle else "rowmajor") \
        + ("_rt" if roundtrip else "")
    k = KernelBuilder(name)
    tiles = k.param("tiles")
    src = k.global_array("src", u32, tiles * ROWS * COLS // 2)   # element pairs, packed
    out = k.global_array("out", u32, tiles * ROWS * COLS // 2, intent="out") if roundtrip \
        else k.global_array("out", u16, tiles * ROWS * COLS, intent="out")
    if declared:
        tile = k.shared("tile", u16, ROWS * COLS, layout="SWIZZLE_128B")
        words = k.view(tile, "tile_words", u32, layout=Swizzle(3, 2, 3))
    else:
        tile = k.shared("tile", u16, ROWS * COLS, align=128)
        words = k.view(tile, "tile_words", u32)    # the same bytes, for 16-byte stores
    if roundtrip:
        back = k.shared("back", u16, ROWS * COLS, align=128)
        back_words = k.view(back, "back_words", u32)
    t = cast(threadIdx.x, i32)
    base = cast(blockIdx.x, i32) * (ROWS * COLS)
    with k.range("q", t, ROWS * COLS // CHUNK, WARPS * 32) as q:
        # one 16-byte chunk: four 32-bit words (eight 16-bit elements)
        to = _place(q // CHUNK, q % CHUNK, swizzle) // 2
        words.store(to, src.load((base + q * CHUNK) // 2, width=4), width=4)
    k.syncthreads()
    warp, lane = t // 32, t % 32
    with k.range("kk", 0, COLS // 16) as kk:
        r = 16 * warp + lane % 16
        c = 2 * kk + lane // 16
        frag = k.ldmatrix(tile, _place(r, c, swizzle), matrices=4)
        if roundtrip:
            k.stmatrix(back, _place(r, c, swizzle), frag, matrices=4)
        else:
            at = base + ((warp * 4 + kk) * 32 + lane) * 8
            for e in range(8):
                out[at + e] = frag[e]
    if roundtrip:
        k.syncthreads()
        with k.range("q", t, ROWS * COLS // CHUNK, WARPS * 32) as q:
            at = _place(q // CHUNK, q % CHUNK, swizzle) // 2
            out.store((base + q * CHUNK) // 2, back_words.load(at, width=4), width=4)
    k.launch(grid=tiles, block=WARPS * 32)
    k.defaults(tiles=132)
    return k.build()


def packed(launch) -> dict:
    """Distinct 16-bit values, two per 32-bit word (so every misplaced element shows)."""
    n = launch.lengths["src"]
    values = np.arange(2 * n, dtype=np.uint32) * 40503 % 65536
    return {"src": values.astype(np.uint16).view(np.uint32)}


KERNELS = {
    "rowmajor": lambda: tile_load(False),
    "swizzled": lambda: tile_load(True),
    "roundtrip": lambda: tile_load(True, roundtrip=True),
    "declared": lambda: tile_load(declared=True),
}
ARRAYS = {key: packed for key in KERNELS}

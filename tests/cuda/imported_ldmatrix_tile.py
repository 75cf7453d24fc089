"""Kernels imported from ldmatrix_tile.cu by `smemsim import` (edit freely: each line ending in
`# ldmatrix_tile.cu:N` reports CUDA line N in smemsim's output)."""
from kernels_ir import (
    KernelBuilder, bf16, blockDim, blockIdx, call, cast, f16, f32, f64, gridDim, i8, i16, i32,
    lnot, logical_and, logical_or, select, smax, smin, source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)

COLS = 64  # #define COLS
ROWS = 64  # #define ROWS
SWIZZLE = 1  # #define SWIZZLE


def ldmatrix_tile():
    """`ldmatrix_tile` of ldmatrix_tile.cu, line 11."""
    kb = KernelBuilder("ldmatrix_tile")  # ldmatrix_tile.cu:11
    tiles = kb.param("tiles", "i32")  # ldmatrix_tile.cu:12
    src = kb.global_array("src", "u16", tiles * 4096, intent="in")  # ldmatrix_tile.cu:11
    frags = kb.global_array("frags", "u32", tiles * 2048, intent="out")  # ldmatrix_tile.cu:11
    out = kb.global_array("out", "u16", tiles * 4096, intent="out")  # ldmatrix_tile.cu:12
    tile = kb.shared("tile", "u16", ROWS * COLS, align=128)  # ldmatrix_tile.cu:13
    back = kb.shared("back", "u16", ROWS * COLS, align=128)  # ldmatrix_tile.cu:14
    t = kb.let("t", threadIdx.x, "i32")  # ldmatrix_tile.cu:15
    base = kb.let("base", blockIdx.x * (ROWS * COLS), "i32")  # ldmatrix_tile.cu:16
    with kb.loop("e", t, lambda e: e < ROWS * COLS, step=128, unroll="auto", dtype="i32") as e:  # ldmatrix_tile.cu:17
        r = kb.let("r", e // COLS, "i32")  # ldmatrix_tile.cu:18
        c = kb.let("c", e % COLS // 8, "i32")  # ldmatrix_tile.cu:18
        tile[r * COLS + (c ^ (select(SWIZZLE, r % 8, 0))) * 8 + e % 8] = src[base + e]  # ldmatrix_tile.cu:19
    kb.syncthreads()  # ldmatrix_tile.cu:21
    warp = kb.let("warp", t // 32, "i32")  # ldmatrix_tile.cu:22
    lane = kb.let("lane", t % 32, "i32")  # ldmatrix_tile.cu:22
    with kb.loop("kk", 0, lambda kk: kk < COLS // 16, step=1, unroll="auto", dtype="i32") as kk:  # ldmatrix_tile.cu:23
        r = kb.let("r", 16 * warp + lane % 16, "i32")  # ldmatrix_tile.cu:24
        c = kb.let("c", 2 * kk + lane // 16, "i32")  # ldmatrix_tile.cu:24
        place = kb.let("place", r * COLS + (c ^ (select(SWIZZLE, r % 8, 0))) * 8, "i32")  # ldmatrix_tile.cu:25
        f0 = kb.let("f0", 0, "u32")  # declared without a value  # ldmatrix_tile.cu:27
        f1 = kb.let("f1", 0, "u32")  # declared without a value  # ldmatrix_tile.cu:27
        f2 = kb.let("f2", 0, "u32")  # declared without a value  # ldmatrix_tile.cu:27
        f3 = kb.let("f3", 0, "u32")  # declared without a value  # ldmatrix_tile.cu:27
        _frag0 = kb.ldmatrix(tile, place, matrices=4)  # ldmatrix_tile.cu:28
        f0.set(cast(_frag0[0], u32) | (cast(_frag0[1], u32) << 16))  # ldmatrix_tile.cu:28
        f1.set(cast(_frag0[2], u32) | (cast(_frag0[3], u32) << 16))  # ldmatrix_tile.cu:28
        f2.set(cast(_frag0[4], u32) | (cast(_frag0[5], u32) << 16))  # ldmatrix_tile.cu:28
        f3.set(cast(_frag0[6], u32) | (cast(_frag0[7], u32) << 16))  # ldmatrix_tile.cu:28
        kb.stmatrix(back, place, [cast((f0) & 0xFFFF, u16), cast((f0) >> 16, u16), cast((f1) & 0xFFFF, u16), cast((f1) >> 16, u16), cast((f2) & 0xFFFF, u16), cast((f2) >> 16, u16), cast((f3) & 0xFFFF, u16), cast((f3) >> 16, u16)], matrices=4)  # ldmatrix_tile.cu:30
        at = kb.let("at", (((blockIdx.x * 4 + warp) * 4 + kk) * 32 + lane) * 4, "i32")  # ldmatrix_tile.cu:33
        frags[at] = f0  # ldmatrix_tile.cu:34
        frags[at + 1] = f1  # ldmatrix_tile.cu:35
        frags[at + 2] = f2  # ldmatrix_tile.cu:36
        frags[at + 3] = f3  # ldmatrix_tile.cu:37
    kb.syncthreads()  # ldmatrix_tile.cu:39
    with kb.loop("e", t, lambda e: e < ROWS * COLS, step=128, unroll="auto", dtype="i32") as e:  # ldmatrix_tile.cu:40
        out[base + e] = back[e]  # ldmatrix_tile.cu:41
    kb.launch(grid=(tiles,), block=(128,))  # ldmatrix_tile.cu:11
    kb.defaults(tiles=132)  # ldmatrix_tile.cu:11
    return kb.build()

KERNELS = {"ldmatrix_tile": ldmatrix_tile}

# Kernels imported from ldmatrix_tile.cu by `smemsim import` (edit freely).
# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.
from kernels_ir import (
    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, f16, f32,
    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, smin,
    source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)


def ldmatrix_tile():
    """`ldmatrix_tile`."""
    kb = KernelBuilder("ldmatrix_tile")  # ldmatrix_tile.cu:11
    tiles = kb.param("tiles", "i32")  # ldmatrix_tile.cu:11
    src = kb.global_array("src", "u16", tiles * 4096, intent="in")  # ldmatrix_tile.cu:11
    frags = kb.global_array("frags", "u32", tiles * 2048, intent="out")  # ldmatrix_tile.cu:11
    out = kb.global_array("out", "u16", tiles * 4096, intent="out")  # ldmatrix_tile.cu:11
    tile = kb.shared("tile", "u16", (4096,), align=128)
    back = kb.shared("back", "u16", (4096,), align=128)
    t = kb.let("t", cast(threadIdx.x, i32), "i32")  # ldmatrix_tile.cu:15
    base = kb.let("base", cast(blockIdx.x * (const(64, i32) * 64), i32), "i32")  # ldmatrix_tile.cu:16
    with kb.loop("e", t, lambda e: e < const(64, i32) * 64, step=128, unroll="auto", dtype="i32") as e:  # ldmatrix_tile.cu:17
        r = kb.let("r", e // 64, "i32")  # ldmatrix_tile.cu:18
        c = kb.let("c", e % 64 // 8, "i32")  # ldmatrix_tile.cu:18
        src_v = src.load((base + e,), width=1, name="src_v")  # ldmatrix_tile.cu:19
        tile[r * 64 + (c ^ select(1, r % 8, 0)) * 8 + e % 8] = src_v  # ldmatrix_tile.cu:19
    kb.syncthreads()  # ldmatrix_tile.cu:21
    warp = kb.let("warp", t // 32, "i32")  # ldmatrix_tile.cu:22
    lane = kb.let("lane", t % 32, "i32")  # ldmatrix_tile.cu:22
    with kb.loop("kk", 0, lambda kk: kk < const(64, i32) // 16, step=1, unroll="auto", dtype="i32") as kk:  # ldmatrix_tile.cu:23
        r_2 = kb.let("r_2", 16 * warp + lane % 16, "i32")  # ldmatrix_tile.cu:24
        c_2 = kb.let("c_2", 2 * kk + lane // 16, "i32")  # ldmatrix_tile.cu:24
        place = kb.let("place", r_2 * 64 + (c_2 ^ select(1, r_2 % 8, 0)) * 8, "i32")  # ldmatrix_tile.cu:25
        f0 = kb.let("f0", 0, "u32")  # ldmatrix_tile.cu:27
        f1 = kb.let("f1", 0, "u32")  # ldmatrix_tile.cu:27
        f2 = kb.let("f2", 0, "u32")  # ldmatrix_tile.cu:27
        f3 = kb.let("f3", 0, "u32")  # ldmatrix_tile.cu:27
        tile_frag = kb.ldmatrix(tile, place, matrices=4, trans=False, name="tile_frag")  # ldmatrix_tile.cu:28
        f0.set(cast(tile_frag[0], u32) | cast(tile_frag[1], u32) << 16)  # ldmatrix_tile.cu:28
        f1.set(cast(tile_frag[2], u32) | cast(tile_frag[3], u32) << 16)  # ldmatrix_tile.cu:28
        f2.set(cast(tile_frag[4], u32) | cast(tile_frag[5], u32) << 16)  # ldmatrix_tile.cu:28
        f3.set(cast(tile_frag[6], u32) | cast(tile_frag[7], u32) << 16)  # ldmatrix_tile.cu:28
        kb.stmatrix(back, place, [cast(f0 & 65535, u16), cast(f0 >> 16, u16), cast(f1 & 65535, u16), cast(f1 >> 16, u16), cast(f2 & 65535, u16), cast(f2 >> 16, u16), cast(f3 & 65535, u16), cast(f3 >> 16, u16)], matrices=4, trans=False)  # ldmatrix_tile.cu:30
        at = kb.let("at", cast((((blockIdx.x * 4 + warp) * 4 + kk) * 32 + lane) * 4, i32), "i32")  # ldmatrix_tile.cu:33
        frags[at] = f0  # ldmatrix_tile.cu:34
        frags[at + 1] = f1  # ldmatrix_tile.cu:35
        frags[at + 2] = f2  # ldmatrix_tile.cu:36
        frags[at + 3] = f3  # ldmatrix_tile.cu:37
    kb.syncthreads()  # ldmatrix_tile.cu:39
    with kb.loop("e_2", t, lambda e_2: e_2 < const(64, i32) * 64, step=128, unroll="auto", dtype="i32") as e_2:  # ldmatrix_tile.cu:40
        back_v = back.load((e_2,), width=1, name="back_v")  # ldmatrix_tile.cu:41
        out[base + e_2] = back_v  # ldmatrix_tile.cu:41
    kb.launch(grid=(tiles, 1, 1), block=(128, 1, 1), dynamic_smem=0)  # ldmatrix_tile.cu:11
    kb.defaults(**{"tiles": 132})  # ldmatrix_tile.cu:11
    return kb.build()

KERNELS = {'ldmatrix_tile': ldmatrix_tile}

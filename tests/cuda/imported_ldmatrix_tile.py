# Kernels read from nvcc's build of ldmatrix_tile.cu by `smemsim import` (edit freely).
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
    src = kb.global_array("src", "u8", cast(tiles * 4096, i64) * 2, intent="in")  # ldmatrix_tile.cu:11
    frags = kb.global_array("frags", "u8", cast(tiles * 2048, i64) * 4, intent="out")  # ldmatrix_tile.cu:11
    out = kb.global_array("out", "u8", cast(tiles * 4096, i64) * 2, intent="out")  # ldmatrix_tile.cu:11
    src_u16 = kb.global_view(src, "src_u16", "u16")  # ldmatrix_tile.cu:11
    frags_u32 = kb.global_view(frags, "frags_u32", "u32")  # ldmatrix_tile.cu:11
    out_u16 = kb.global_view(out, "out_u16", "u16")  # ldmatrix_tile.cu:11
    smem = kb.shared("smem", "u8", (16384,), align=128)
    tile = kb.view(smem, "tile", "u16", (8192,))
    back = kb.view(smem, "back", "u16", (8192,))
    loop_0 = kb.let("loop_0", 0, "i32")  # ldmatrix_tile.cu:11
    loop_1 = kb.let("loop_1", 0, "i32")  # ldmatrix_tile.cu:11
    loop_2 = kb.let("loop_2", 0, "i32")  # ldmatrix_tile.cu:11
    loop_3 = kb.let("loop_3", 0, "i32")  # ldmatrix_tile.cu:11
    p1 = kb.let("p1", 0, "i32")  # ldmatrix_tile.cu:11
    r1 = kb.let("r1", 0, "u32")  # ldmatrix_tile.cu:11
    r12 = kb.let("r12", 0, "i32")  # ldmatrix_tile.cu:11
    r234 = kb.let("r234", 0, "u32")  # ldmatrix_tile.cu:11
    r265 = kb.let("r265", 0, "u32")  # ldmatrix_tile.cu:11
    r266 = kb.let("r266", 0, "u32")  # ldmatrix_tile.cu:11
    r268 = kb.let("r268", 0, "u32")  # ldmatrix_tile.cu:11
    r270 = kb.let("r270", 0, "u32")  # ldmatrix_tile.cu:11
    r271 = kb.let("r271", 0, "u32")  # ldmatrix_tile.cu:11
    r272 = kb.let("r272", 0, "u32")  # ldmatrix_tile.cu:11
    r273 = kb.let("r273", 0, "i32")  # ldmatrix_tile.cu:11
    r28 = kb.let("r28", 0, "u32")  # ldmatrix_tile.cu:11
    r3 = kb.let("r3", 0, "i32")  # ldmatrix_tile.cu:11
    r85 = kb.let("r85", 0, "u32")  # ldmatrix_tile.cu:11
    rd1 = kb.let("rd1", 0, "i64")  # ldmatrix_tile.cu:11
    rd15 = kb.let("rd15", 0, "i64")  # ldmatrix_tile.cu:11
    rd2 = kb.let("rd2", 0, "i64")  # ldmatrix_tile.cu:11
    rd27 = kb.let("rd27", 0, "i64")  # ldmatrix_tile.cu:11
    rd28 = kb.let("rd28", 0, "i64")  # ldmatrix_tile.cu:11
    rd29 = kb.let("rd29", 0, "i64")  # ldmatrix_tile.cu:11
    rd30 = kb.let("rd30", 0, "i64")  # ldmatrix_tile.cu:11
    r271.set(threadIdx.x)  # ldmatrix_tile.cu:15
    p1.set(cast(r271, i32) > 4095)  # ldmatrix_tile.cu:17
    with kb.if_(p1 == 0):  # ldmatrix_tile.cu:17
        r29 = kb.let("r29", smax(cast(r271, i32), 3968), "i32")  # ldmatrix_tile.cu:17
        r3.set(r29 + 127 - cast(r271, i32))  # ldmatrix_tile.cu:17
        r31 = kb.let("r31", cast(r3, u32) >> const(7, u32), "u32")  # ldmatrix_tile.cu:17
        r265.set(cast(cast(r31, i32) + 1, u32) & const(3, u32))  # ldmatrix_tile.cu:17
        p2 = kb.let("p2", cast(r265, i32) == 0, "i32")  # ldmatrix_tile.cu:17
        r266.set(r271)  # ldmatrix_tile.cu:17
        with kb.if_(p2 == 0):  # ldmatrix_tile.cu:17
            r33 = kb.let("r33", cast(r271, i32) + cast(blockIdx.x << const(12, u32), i32), "i32")  # ldmatrix_tile.cu:17
            rd27.set(cast(r33, i64) * const(2, i64))  # ldmatrix_tile.cu:17
            r266.set(r271)  # ldmatrix_tile.cu:17
            r266_0 = kb.let("r266_0", r266, "u32")  # ldmatrix_tile.cu:17
            rd27_0 = kb.let("rd27_0", rd27, "i64")  # ldmatrix_tile.cu:17
            r265_0 = kb.let("r265_0", r265, "u32")  # ldmatrix_tile.cu:17
            kb.assert_((const(-1, i64) != const(0, i64)) & ((cast(0, i64) - (cast(cast(r265_0, i32), i64) + const(0, i64) * const(-1, i64))) % select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)) == const(0, i64)) & ((cast(0, i64) - (cast(cast(r265_0, i32), i64) + const(0, i64) * const(-1, i64))) // select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)) >= const(1, i64)), "the loop's counter %r265 meets its end 0 (otherwise the GPU loops until it wraps)")  # ldmatrix_tile.cu:17
            trips = kb.let("trips", select((const(-1, i64) != const(0, i64)) & ((cast(0, i64) - (cast(cast(r265_0, i32), i64) + const(0, i64) * const(-1, i64))) % select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)) == const(0, i64)) & ((cast(0, i64) - (cast(cast(r265_0, i32), i64) + const(0, i64) * const(-1, i64))) // select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)) >= const(1, i64)), (cast(0, i64) - (cast(cast(r265_0, i32), i64) + const(0, i64) * const(-1, i64))) // select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)), const(1, i64)), "i64")  # ldmatrix_tile.cu:17
            with kb.loop("iter_l17", cast(0, i64), lambda iter_l17: iter_l17 < trips, step=cast(1, i64), do_while=True, unroll=False, dtype="i64") as iter_l17:  # ldmatrix_tile.cu:17
                kb.assert_((rd27_0 + iter_l17 * const(256, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:19
                src_u16_v = src_u16.load(((rd27_0 + iter_l17 * const(256, i64)) // 2,), width=1, name="src_u16_v")  # ldmatrix_tile.cu:19
                tile[cast(cast(cast(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) + (cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) - cast(cast(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(2147483640, u32), i32)) + cast((cast(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) - cast(cast(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) - cast(cast(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) >> const(3, u32) ^ cast((cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) - cast(cast((cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) + cast(cast(select(cast(r266_0 + cast(iter_l17 * const(128, i64), u32), i32) < 0, -1, 0), u32) >> const(26, u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(268435448, u32), i32), u32)) << const(3, u32), i32), u32)] = src_u16_v  # ldmatrix_tile.cu:19
            r266.set(r266_0 + cast(trips * const(128, i64), u32))  # ldmatrix_tile.cu:17
            rd27.set(rd27_0 + trips * const(256, i64))  # ldmatrix_tile.cu:17
            r265.set(r265_0 + cast(trips * const(-1, i64), u32))  # ldmatrix_tile.cu:17
        p4 = kb.let("p4", cast(r3, u32) < const(384, u32), "i32")  # ldmatrix_tile.cu:17
        with kb.if_(p4 == 0):  # ldmatrix_tile.cu:17
            r60 = kb.let("r60", cast(r266, i32) + cast(blockIdx.x << const(12, u32), i32), "i32")  # ldmatrix_tile.cu:17
            rd28.set(cast(r60, i64) * const(2, i64))  # ldmatrix_tile.cu:17
            loop_1.set(0)  # ldmatrix_tile.cu:17
            with kb.loop("iter_l17_2", 0, lambda iter_l17_2: loop_1 > 0, step=1, do_while=True, unroll=False, dtype="i32") as iter_l17_2:  # ldmatrix_tile.cu:17
                r61 = kb.let("r61", select(cast(r266, i32) < 0, -1, 0), "i32")  # ldmatrix_tile.cu:18
                r63 = kb.let("r63", cast(r266, i32) + cast(cast(r61, u32) >> const(26, u32), i32), "i32")  # ldmatrix_tile.cu:18
                r65 = kb.let("r65", cast(r266, i32) - cast(cast(r63, u32) & const(4294967232, u32), i32), "i32")  # ldmatrix_tile.cu:18
                kb.assert_(rd28 % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:19
                src_u16_v_2 = src_u16.load((rd28 // 2,), width=1, name="src_u16_v_2")  # ldmatrix_tile.cu:19
                r79 = kb.let("r79", cast(r266, i32) + cast(cast(r61, u32) >> const(29, u32), i32), "i32")  # ldmatrix_tile.cu:19
                r81 = kb.let("r81", cast(r266, i32) - cast(cast(r79, u32) & const(2147483640, u32), i32), "i32")  # ldmatrix_tile.cu:19
                tile[cast(cast(cast(r63, u32) & const(4294967232, u32), i32) + r81 + cast((cast(r65 + cast(cast(select(r65 < 0, -1, 0), u32) >> const(29, u32), i32), u32) >> const(3, u32) ^ cast((r63 >> 6) - cast(cast((r63 >> 6) + cast(cast(select(r63 < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(268435448, u32), i32), u32)) << const(3, u32), i32), u32)] = src_u16_v_2  # ldmatrix_tile.cu:19
                r87 = kb.let("r87", cast(r266, i32) + 128, "i32")  # ldmatrix_tile.cu:18
                kb.assert_((rd28 + const(256, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:19
                src_u16_v_3 = src_u16.load(((rd28 + const(256, i64)) // 2,), width=1, name="src_u16_v_3")  # ldmatrix_tile.cu:19
                tile[cast(cast(cast(r87 + cast(cast(select(r87 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) + (r87 - cast(cast(r87 + cast(cast(select(r87 < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(2147483640, u32), i32)) + cast((cast(r87 - cast(cast(r87 + cast(cast(select(r87 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) + cast(cast(select(r87 - cast(cast(r87 + cast(cast(select(r87 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) >> const(3, u32) ^ cast((r87 + cast(cast(select(r87 < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) - cast(cast((r87 + cast(cast(select(r87 < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) + cast(cast(select(r87 + cast(cast(select(r87 < 0, -1, 0), u32) >> const(26, u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(268435448, u32), i32), u32)) << const(3, u32), i32), u32)] = src_u16_v_3  # ldmatrix_tile.cu:19
                r113 = kb.let("r113", cast(r266, i32) + 256, "i32")  # ldmatrix_tile.cu:18
                kb.assert_((rd28 + const(512, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:19
                src_u16_v_4 = src_u16.load(((rd28 + const(512, i64)) // 2,), width=1, name="src_u16_v_4")  # ldmatrix_tile.cu:19
                tile[cast(cast(cast(r113 + cast(cast(select(r113 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) + (r113 - cast(cast(r113 + cast(cast(select(r113 < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(2147483640, u32), i32)) + cast((cast(r113 - cast(cast(r113 + cast(cast(select(r113 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) + cast(cast(select(r113 - cast(cast(r113 + cast(cast(select(r113 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) >> const(3, u32) ^ cast((r113 + cast(cast(select(r113 < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) - cast(cast((r113 + cast(cast(select(r113 < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) + cast(cast(select(r113 + cast(cast(select(r113 < 0, -1, 0), u32) >> const(26, u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(268435448, u32), i32), u32)) << const(3, u32), i32), u32)] = src_u16_v_4  # ldmatrix_tile.cu:19
                r139 = kb.let("r139", cast(r266, i32) + 384, "i32")  # ldmatrix_tile.cu:18
                kb.assert_((rd28 + const(768, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:19
                src_u16_v_5 = src_u16.load(((rd28 + const(768, i64)) // 2,), width=1, name="src_u16_v_5")  # ldmatrix_tile.cu:19
                tile[cast(cast(cast(r139 + cast(cast(select(r139 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) + (r139 - cast(cast(r139 + cast(cast(select(r139 < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(2147483640, u32), i32)) + cast((cast(r139 - cast(cast(r139 + cast(cast(select(r139 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) + cast(cast(select(r139 - cast(cast(r139 + cast(cast(select(r139 < 0, -1, 0), u32) >> const(26, u32), i32), u32) & const(4294967232, u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) >> const(3, u32) ^ cast((r139 + cast(cast(select(r139 < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) - cast(cast((r139 + cast(cast(select(r139 < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) + cast(cast(select(r139 + cast(cast(select(r139 < 0, -1, 0), u32) >> const(26, u32), i32) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(268435448, u32), i32), u32)) << const(3, u32), i32), u32)] = src_u16_v_5  # ldmatrix_tile.cu:19
                rd28.set(rd28 + const(1024, i64))  # ldmatrix_tile.cu:17
                r11 = kb.let("r11", cast(r266, i32) + 512, "i32")  # ldmatrix_tile.cu:17
                p5 = kb.let("p5", cast(r266, i32) < 3584, "i32")  # ldmatrix_tile.cu:17
                r266.set(cast(r11, u32))  # ldmatrix_tile.cu:17
                with kb.if_(p5 != 0):  # ldmatrix_tile.cu:17
                    loop_1.set(1)  # ldmatrix_tile.cu:17
                with kb.else_():  # ldmatrix_tile.cu:17
                    loop_1.set(0)  # ldmatrix_tile.cu:17
    kb.syncthreads()  # ldmatrix_tile.cu:21
    r205 = kb.let("r205", select(cast(r271, i32) < 0, -1, 0), "i32")  # ldmatrix_tile.cu:22
    r207 = kb.let("r207", cast(r271, i32) + cast(cast(r205, u32) >> const(27, u32), i32), "i32")  # ldmatrix_tile.cu:22
    r211 = kb.let("r211", cast(r271, i32) - cast(cast(r207, u32) & const(4294967264, u32), i32), "i32")  # ldmatrix_tile.cu:22
    tile_frag = kb.ldmatrix(tile, cast(cast((cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32) >> 4, u32) ^ cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) - cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + cast(cast(select(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(4294967288, u32), i32), u32)) << const(3, u32), i32) + cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)), u32) << const(6, u32), i32), u32), matrices=4, trans=False, name="tile_frag")  # ldmatrix_tile.cu:29
    kb.stmatrix(back, const(4096, u32) + cast(cast((cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32) >> 4, u32) ^ cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) - cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + cast(cast(select(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(4294967288, u32), i32), u32)) << const(3, u32), i32) + cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)), u32) << const(6, u32), i32), u32), [cast((cast(tile_frag[0], u32) | cast(tile_frag[1], u32) << 16) & 65535, u16), cast((cast(tile_frag[0], u32) | cast(tile_frag[1], u32) << 16) >> 16, u16), cast((cast(tile_frag[2], u32) | cast(tile_frag[3], u32) << 16) & 65535, u16), cast((cast(tile_frag[2], u32) | cast(tile_frag[3], u32) << 16) >> 16, u16), cast((cast(tile_frag[4], u32) | cast(tile_frag[5], u32) << 16) & 65535, u16), cast((cast(tile_frag[4], u32) | cast(tile_frag[5], u32) << 16) >> 16, u16), cast((cast(tile_frag[6], u32) | cast(tile_frag[7], u32) << 16) & 65535, u16), cast((cast(tile_frag[6], u32) | cast(tile_frag[7], u32) << 16) >> 16, u16)], matrices=4, trans=False)  # ldmatrix_tile.cu:32
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32), i64)] = cast(tile_frag[0], u32) | cast(tile_frag[1], u32) << 16  # ldmatrix_tile.cu:34
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32), i64) + const(1, i64)] = cast(tile_frag[2], u32) | cast(tile_frag[3], u32) << 16  # ldmatrix_tile.cu:35
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32), i64) + const(2, i64)] = cast(tile_frag[4], u32) | cast(tile_frag[5], u32) << 16  # ldmatrix_tile.cu:36
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32), i64) + const(3, i64)] = cast(tile_frag[6], u32) | cast(tile_frag[7], u32) << 16  # ldmatrix_tile.cu:37
    tile_frag_2 = kb.ldmatrix(tile, cast(cast((cast((r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32) >> 4) + 2, u32) ^ cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) - cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + cast(cast(select(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(4294967288, u32), i32), u32)) << const(3, u32), i32) + cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)), u32) << const(6, u32), i32), u32), matrices=4, trans=False, name="tile_frag_2")  # ldmatrix_tile.cu:29
    kb.stmatrix(back, const(4096, u32) + cast(cast((cast((r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32) >> 4) + 2, u32) ^ cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) - cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + cast(cast(select(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(4294967288, u32), i32), u32)) << const(3, u32), i32) + cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)), u32) << const(6, u32), i32), u32), [cast((cast(tile_frag_2[0], u32) | cast(tile_frag_2[1], u32) << 16) & 65535, u16), cast((cast(tile_frag_2[0], u32) | cast(tile_frag_2[1], u32) << 16) >> 16, u16), cast((cast(tile_frag_2[2], u32) | cast(tile_frag_2[3], u32) << 16) & 65535, u16), cast((cast(tile_frag_2[2], u32) | cast(tile_frag_2[3], u32) << 16) >> 16, u16), cast((cast(tile_frag_2[4], u32) | cast(tile_frag_2[5], u32) << 16) & 65535, u16), cast((cast(tile_frag_2[4], u32) | cast(tile_frag_2[5], u32) << 16) >> 16, u16), cast((cast(tile_frag_2[6], u32) | cast(tile_frag_2[7], u32) << 16) & 65535, u16), cast((cast(tile_frag_2[6], u32) | cast(tile_frag_2[7], u32) << 16) >> 16, u16)], matrices=4, trans=False)  # ldmatrix_tile.cu:32
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64)] = cast(tile_frag_2[0], u32) | cast(tile_frag_2[1], u32) << 16  # ldmatrix_tile.cu:34
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(1, i64)] = cast(tile_frag_2[2], u32) | cast(tile_frag_2[3], u32) << 16  # ldmatrix_tile.cu:35
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(2, i64)] = cast(tile_frag_2[4], u32) | cast(tile_frag_2[5], u32) << 16  # ldmatrix_tile.cu:36
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(3, i64)] = cast(tile_frag_2[6], u32) | cast(tile_frag_2[7], u32) << 16  # ldmatrix_tile.cu:37
    tile_frag_3 = kb.ldmatrix(tile, cast(cast((cast((r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32) >> 4) + 4, u32) ^ cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) - cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + cast(cast(select(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(4294967288, u32), i32), u32)) << const(3, u32), i32) + cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)), u32) << const(6, u32), i32), u32), matrices=4, trans=False, name="tile_frag_3")  # ldmatrix_tile.cu:29
    kb.stmatrix(back, const(4096, u32) + cast(cast((cast((r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32) >> 4) + 4, u32) ^ cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) - cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + cast(cast(select(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(4294967288, u32), i32), u32)) << const(3, u32), i32) + cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)), u32) << const(6, u32), i32), u32), [cast((cast(tile_frag_3[0], u32) | cast(tile_frag_3[1], u32) << 16) & 65535, u16), cast((cast(tile_frag_3[0], u32) | cast(tile_frag_3[1], u32) << 16) >> 16, u16), cast((cast(tile_frag_3[2], u32) | cast(tile_frag_3[3], u32) << 16) & 65535, u16), cast((cast(tile_frag_3[2], u32) | cast(tile_frag_3[3], u32) << 16) >> 16, u16), cast((cast(tile_frag_3[4], u32) | cast(tile_frag_3[5], u32) << 16) & 65535, u16), cast((cast(tile_frag_3[4], u32) | cast(tile_frag_3[5], u32) << 16) >> 16, u16), cast((cast(tile_frag_3[6], u32) | cast(tile_frag_3[7], u32) << 16) & 65535, u16), cast((cast(tile_frag_3[6], u32) | cast(tile_frag_3[7], u32) << 16) >> 16, u16)], matrices=4, trans=False)  # ldmatrix_tile.cu:32
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(128, i64)] = cast(tile_frag_3[0], u32) | cast(tile_frag_3[1], u32) << 16  # ldmatrix_tile.cu:34
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(129, i64)] = cast(tile_frag_3[2], u32) | cast(tile_frag_3[3], u32) << 16  # ldmatrix_tile.cu:35
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(130, i64)] = cast(tile_frag_3[4], u32) | cast(tile_frag_3[5], u32) << 16  # ldmatrix_tile.cu:36
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(131, i64)] = cast(tile_frag_3[6], u32) | cast(tile_frag_3[7], u32) << 16  # ldmatrix_tile.cu:37
    tile_frag_4 = kb.ldmatrix(tile, cast(cast((cast((r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32) >> 4) + 6, u32) ^ cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) - cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + cast(cast(select(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(4294967288, u32), i32), u32)) << const(3, u32), i32) + cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)), u32) << const(6, u32), i32), u32), matrices=4, trans=False, name="tile_frag_4")  # ldmatrix_tile.cu:29
    kb.stmatrix(back, const(4096, u32) + cast(cast((cast((r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32) >> 4) + 6, u32) ^ cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) - cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + cast(cast(select(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) < 0, -1, 0), u32) >> const(29, u32), i32), u32) & const(4294967288, u32), i32), u32)) << const(3, u32), i32) + cast(cast(cast(cast(r207 >> 5, u32) << const(4, u32), i32) + (r211 - cast(cast(r211 + cast(cast(select(r211 < 0, -1, 0), u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)), u32) << const(6, u32), i32), u32), [cast((cast(tile_frag_4[0], u32) | cast(tile_frag_4[1], u32) << 16) & 65535, u16), cast((cast(tile_frag_4[0], u32) | cast(tile_frag_4[1], u32) << 16) >> 16, u16), cast((cast(tile_frag_4[2], u32) | cast(tile_frag_4[3], u32) << 16) & 65535, u16), cast((cast(tile_frag_4[2], u32) | cast(tile_frag_4[3], u32) << 16) >> 16, u16), cast((cast(tile_frag_4[4], u32) | cast(tile_frag_4[5], u32) << 16) & 65535, u16), cast((cast(tile_frag_4[4], u32) | cast(tile_frag_4[5], u32) << 16) >> 16, u16), cast((cast(tile_frag_4[6], u32) | cast(tile_frag_4[7], u32) << 16) & 65535, u16), cast((cast(tile_frag_4[6], u32) | cast(tile_frag_4[7], u32) << 16) >> 16, u16)], matrices=4, trans=False)  # ldmatrix_tile.cu:32
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(256, i64)] = cast(tile_frag_4[0], u32) | cast(tile_frag_4[1], u32) << 16  # ldmatrix_tile.cu:34
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(257, i64)] = cast(tile_frag_4[2], u32) | cast(tile_frag_4[3], u32) << 16  # ldmatrix_tile.cu:35
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(258, i64)] = cast(tile_frag_4[4], u32) | cast(tile_frag_4[5], u32) << 16  # ldmatrix_tile.cu:36
    frags_u32[cast(cast(cast(cast(cast(cast(blockIdx.x << const(2, u32), i32) + (r207 >> 5), u32) << const(7, u32), i32) + r211, u32) << const(2, u32), i32) + 128, i64) + const(259, i64)] = cast(tile_frag_4[6], u32) | cast(tile_frag_4[7], u32) << 16  # ldmatrix_tile.cu:37
    kb.syncthreads()  # ldmatrix_tile.cu:39
    with kb.if_(p1 != 0):  # ldmatrix_tile.cu:40
        kb.return_()  # ldmatrix_tile.cu:40
    r253 = kb.let("r253", smax(cast(r271, i32), 3968), "i32")  # ldmatrix_tile.cu:40
    r12.set(r253 + 127 - cast(r271, i32))  # ldmatrix_tile.cu:40
    r255 = kb.let("r255", cast(r12, u32) >> const(7, u32), "u32")  # ldmatrix_tile.cu:40
    r270.set(cast(cast(r255, i32) + 1, u32) & const(3, u32))  # ldmatrix_tile.cu:40
    p7 = kb.let("p7", cast(r270, i32) == 0, "i32")  # ldmatrix_tile.cu:40
    with kb.if_(p7 == 0):  # ldmatrix_tile.cu:40
        r257 = kb.let("r257", cast(r271, i32) + cast(blockIdx.x << const(12, u32), i32), "i32")  # ldmatrix_tile.cu:40
        rd29.set(cast(r257, i64) * const(2, i64))  # ldmatrix_tile.cu:40
        r258 = kb.let("r258", r271 << const(1, u32), "u32")  # ldmatrix_tile.cu:40
        r268.set(const(8192, u32) + r258)  # ldmatrix_tile.cu:40
        r271_0 = kb.let("r271_0", r271, "u32")  # ldmatrix_tile.cu:40
        rd29_0 = kb.let("rd29_0", rd29, "i64")  # ldmatrix_tile.cu:40
        r268_0 = kb.let("r268_0", r268, "u32")  # ldmatrix_tile.cu:40
        r270_0 = kb.let("r270_0", r270, "u32")  # ldmatrix_tile.cu:40
        kb.assert_((const(-1, i64) != const(0, i64)) & ((cast(0, i64) - (cast(cast(r270_0, i32), i64) + const(0, i64) * const(-1, i64))) % select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)) == const(0, i64)) & ((cast(0, i64) - (cast(cast(r270_0, i32), i64) + const(0, i64) * const(-1, i64))) // select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)) >= const(1, i64)), "the loop's counter %r270 meets its end 0 (otherwise the GPU loops until it wraps)")  # ldmatrix_tile.cu:40
        trips_2 = kb.let("trips_2", select((const(-1, i64) != const(0, i64)) & ((cast(0, i64) - (cast(cast(r270_0, i32), i64) + const(0, i64) * const(-1, i64))) % select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)) == const(0, i64)) & ((cast(0, i64) - (cast(cast(r270_0, i32), i64) + const(0, i64) * const(-1, i64))) // select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)) >= const(1, i64)), (cast(0, i64) - (cast(cast(r270_0, i32), i64) + const(0, i64) * const(-1, i64))) // select(const(-1, i64) == const(0, i64), const(1, i64), const(-1, i64)), const(1, i64)), "i64")  # ldmatrix_tile.cu:40
        with kb.loop("iter_l40", cast(0, i64), lambda iter_l40: iter_l40 < trips_2, step=cast(1, i64), do_while=True, unroll=False, dtype="i64") as iter_l40:  # ldmatrix_tile.cu:40
            kb.assert_((r268_0 + cast(iter_l40 * const(256, i64), u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
            back_v = back.load(((r268_0 + cast(iter_l40 * const(256, i64), u32)) // 2,), width=1, name="back_v")  # ldmatrix_tile.cu:41
            kb.assert_((rd29_0 + iter_l40 * const(256, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
            out_u16[(rd29_0 + iter_l40 * const(256, i64)) // 2] = back_v  # ldmatrix_tile.cu:41
        r271.set(r271_0 + cast(trips_2 * const(128, i64), u32))  # ldmatrix_tile.cu:40
        rd29.set(rd29_0 + trips_2 * const(256, i64))  # ldmatrix_tile.cu:40
        r268.set(r268_0 + cast(trips_2 * const(256, i64), u32))  # ldmatrix_tile.cu:40
        r270.set(r270_0 + cast(trips_2 * const(-1, i64), u32))  # ldmatrix_tile.cu:40
    p9 = kb.let("p9", cast(r12, u32) < const(384, u32), "i32")  # ldmatrix_tile.cu:40
    with kb.if_(p9 != 0):  # ldmatrix_tile.cu:40
        kb.return_()  # ldmatrix_tile.cu:40
    r273.set(cast(r271, i32) + -512)  # ldmatrix_tile.cu:40
    r260 = kb.let("r260", cast(r271, i32) + cast(blockIdx.x << const(12, u32), i32), "i32")  # ldmatrix_tile.cu:40
    rd30.set(cast(r260, i64) * const(2, i64))  # ldmatrix_tile.cu:40
    r261 = kb.let("r261", r271 << const(1, u32), "u32")  # ldmatrix_tile.cu:40
    r272.set(const(8192, u32) + r261 + const(512, u32))  # ldmatrix_tile.cu:40
    rd30_0 = kb.let("rd30_0", rd30, "i64")  # ldmatrix_tile.cu:40
    r272_0 = kb.let("r272_0", r272, "u32")  # ldmatrix_tile.cu:40
    r273_0 = kb.let("r273_0", r273, "i32")  # ldmatrix_tile.cu:40
    trips_3 = kb.let("trips_3", select(cast(3584, i64) - (cast(r273_0, i64) + const(0, i64) * const(512, i64)) > select(const(512, i64) > const(0, i64), const(512, i64), const(1, i64)), (cast(3584, i64) - (cast(r273_0, i64) + const(0, i64) * const(512, i64)) + select(const(512, i64) > const(0, i64), const(512, i64), const(1, i64)) - const(1, i64)) // select(const(512, i64) > const(0, i64), const(512, i64), const(1, i64)), const(1, i64)), "i64")  # ldmatrix_tile.cu:40
    blocked = kb.let("blocked", trips_3 - trips_3 % 4, "i64")  # ldmatrix_tile.cu:40
    with kb.loop("iter_l40_2", cast(0, i64), lambda iter_l40_2: iter_l40_2 < blocked, step=cast(1, i64), unroll=False, dtype="i64") as iter_l40_2:  # ldmatrix_tile.cu:40
        kb.assert_((r272_0 + cast(iter_l40_2 * const(1024, i64), u32) + const(4294966784, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_2 = back.load(((r272_0 + cast(iter_l40_2 * const(1024, i64), u32) + const(4294966784, u32)) // 2,), width=1, name="back_v_2")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2 * const(1024, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2 * const(1024, i64)) // 2] = back_v_2  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2 * const(1024, i64), u32) + const(4294967040, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_3 = back.load(((r272_0 + cast(iter_l40_2 * const(1024, i64), u32) + const(4294967040, u32)) // 2,), width=1, name="back_v_3")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2 * const(1024, i64) + const(256, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2 * const(1024, i64) + const(256, i64)) // 2] = back_v_3  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2 * const(1024, i64), u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_4 = back.load(((r272_0 + cast(iter_l40_2 * const(1024, i64), u32)) // 2,), width=1, name="back_v_4")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2 * const(1024, i64) + const(512, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2 * const(1024, i64) + const(512, i64)) // 2] = back_v_4  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2 * const(1024, i64), u32) + const(256, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_5 = back.load(((r272_0 + cast(iter_l40_2 * const(1024, i64), u32) + const(256, u32)) // 2,), width=1, name="back_v_5")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2 * const(1024, i64) + const(768, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2 * const(1024, i64) + const(768, i64)) // 2] = back_v_5  # ldmatrix_tile.cu:41
    with kb.if_(trips_3 - blocked & 2 != 0):  # ldmatrix_tile.cu:40
        iter_l40_2_k = kb.let("iter_l40_2_k", blocked + (trips_3 - blocked & -4) + 0, "i64")  # ldmatrix_tile.cu:40
        kb.assert_((r272_0 + cast(iter_l40_2_k * const(1024, i64), u32) + const(4294966784, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_6 = back.load(((r272_0 + cast(iter_l40_2_k * const(1024, i64), u32) + const(4294966784, u32)) // 2,), width=1, name="back_v_6")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k * const(1024, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k * const(1024, i64)) // 2] = back_v_6  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k * const(1024, i64), u32) + const(4294967040, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_7 = back.load(((r272_0 + cast(iter_l40_2_k * const(1024, i64), u32) + const(4294967040, u32)) // 2,), width=1, name="back_v_7")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k * const(1024, i64) + const(256, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k * const(1024, i64) + const(256, i64)) // 2] = back_v_7  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k * const(1024, i64), u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_8 = back.load(((r272_0 + cast(iter_l40_2_k * const(1024, i64), u32)) // 2,), width=1, name="back_v_8")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k * const(1024, i64) + const(512, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k * const(1024, i64) + const(512, i64)) // 2] = back_v_8  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k * const(1024, i64), u32) + const(256, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_9 = back.load(((r272_0 + cast(iter_l40_2_k * const(1024, i64), u32) + const(256, u32)) // 2,), width=1, name="back_v_9")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k * const(1024, i64) + const(768, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k * const(1024, i64) + const(768, i64)) // 2] = back_v_9  # ldmatrix_tile.cu:41
        iter_l40_2_k_2 = kb.let("iter_l40_2_k_2", blocked + (trips_3 - blocked & -4) + 1, "i64")  # ldmatrix_tile.cu:40
        kb.assert_((r272_0 + cast(iter_l40_2_k_2 * const(1024, i64), u32) + const(4294966784, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_10 = back.load(((r272_0 + cast(iter_l40_2_k_2 * const(1024, i64), u32) + const(4294966784, u32)) // 2,), width=1, name="back_v_10")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k_2 * const(1024, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k_2 * const(1024, i64)) // 2] = back_v_10  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k_2 * const(1024, i64), u32) + const(4294967040, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_11 = back.load(((r272_0 + cast(iter_l40_2_k_2 * const(1024, i64), u32) + const(4294967040, u32)) // 2,), width=1, name="back_v_11")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k_2 * const(1024, i64) + const(256, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k_2 * const(1024, i64) + const(256, i64)) // 2] = back_v_11  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k_2 * const(1024, i64), u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_12 = back.load(((r272_0 + cast(iter_l40_2_k_2 * const(1024, i64), u32)) // 2,), width=1, name="back_v_12")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k_2 * const(1024, i64) + const(512, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k_2 * const(1024, i64) + const(512, i64)) // 2] = back_v_12  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k_2 * const(1024, i64), u32) + const(256, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_13 = back.load(((r272_0 + cast(iter_l40_2_k_2 * const(1024, i64), u32) + const(256, u32)) // 2,), width=1, name="back_v_13")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k_2 * const(1024, i64) + const(768, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k_2 * const(1024, i64) + const(768, i64)) // 2] = back_v_13  # ldmatrix_tile.cu:41
    with kb.if_(trips_3 - blocked & 1 != 0):  # ldmatrix_tile.cu:40
        iter_l40_2_k_3 = kb.let("iter_l40_2_k_3", blocked + (trips_3 - blocked & -2) + 0, "i64")  # ldmatrix_tile.cu:40
        kb.assert_((r272_0 + cast(iter_l40_2_k_3 * const(1024, i64), u32) + const(4294966784, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_14 = back.load(((r272_0 + cast(iter_l40_2_k_3 * const(1024, i64), u32) + const(4294966784, u32)) // 2,), width=1, name="back_v_14")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k_3 * const(1024, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k_3 * const(1024, i64)) // 2] = back_v_14  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k_3 * const(1024, i64), u32) + const(4294967040, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_15 = back.load(((r272_0 + cast(iter_l40_2_k_3 * const(1024, i64), u32) + const(4294967040, u32)) // 2,), width=1, name="back_v_15")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k_3 * const(1024, i64) + const(256, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k_3 * const(1024, i64) + const(256, i64)) // 2] = back_v_15  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k_3 * const(1024, i64), u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_16 = back.load(((r272_0 + cast(iter_l40_2_k_3 * const(1024, i64), u32)) // 2,), width=1, name="back_v_16")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k_3 * const(1024, i64) + const(512, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k_3 * const(1024, i64) + const(512, i64)) // 2] = back_v_16  # ldmatrix_tile.cu:41
        kb.assert_((r272_0 + cast(iter_l40_2_k_3 * const(1024, i64), u32) + const(256, u32)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        back_v_17 = back.load(((r272_0 + cast(iter_l40_2_k_3 * const(1024, i64), u32) + const(256, u32)) // 2,), width=1, name="back_v_17")  # ldmatrix_tile.cu:41
        kb.assert_((rd30_0 + iter_l40_2_k_3 * const(1024, i64) + const(768, i64)) % 2 == 0, 'misaligned address: a 2-byte element at a byte offset that is not a multiple of 2')  # ldmatrix_tile.cu:41
        out_u16[(rd30_0 + iter_l40_2_k_3 * const(1024, i64) + const(768, i64)) // 2] = back_v_17  # ldmatrix_tile.cu:41
    rd30.set(rd30_0 + trips_3 * const(1024, i64))  # ldmatrix_tile.cu:40
    r272.set(r272_0 + cast(trips_3 * const(1024, i64), u32))  # ldmatrix_tile.cu:40
    r273.set(r273_0 + cast(trips_3 * const(512, i64), i32))  # ldmatrix_tile.cu:40
    kb.launch(grid=(tiles, 1, 1), block=(128, 1, 1), dynamic_smem=0)  # ldmatrix_tile.cu:11
    kb.defaults(**{"tiles": 132})  # ldmatrix_tile.cu:11
    return kb.build()

KERNELS = {'ldmatrix_tile': ldmatrix_tile}

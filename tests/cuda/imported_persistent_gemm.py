# Kernels read from nvcc's build of persistent_gemm.cu by `smemsim import` (edit freely).
# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.
from kernels_ir import (
    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, f16, f32,
    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, smin,
    source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)


def persistent_gemm():
    """`persistent_gemm`."""
    kb = KernelBuilder("persistent_gemm")  # persistent_gemm.cu:7
    M = kb.param("M", "i32")  # persistent_gemm.cu:7
    N = kb.param("N", "i32")  # persistent_gemm.cu:7
    K = kb.param("K", "i32")  # persistent_gemm.cu:7
    A = kb.global_array("A", "u8", cast(M * K, i64) * 4, intent="in")  # persistent_gemm.cu:7
    B = kb.global_array("B", "u8", cast(K * N, i64) * 4, intent="in")  # persistent_gemm.cu:7
    C = kb.global_array("C", "u8", cast(M * N, i64) * 4, intent="out")  # persistent_gemm.cu:7
    A_f32 = kb.global_view(A, "A_f32", "f32")  # persistent_gemm.cu:7
    B_u32 = kb.global_view(B, "B_u32", "u32")  # persistent_gemm.cu:7
    C_f32 = kb.global_view(C, "C_f32", "f32")  # persistent_gemm.cu:7
    smem = kb.shared("smem", "u8", (8192,))
    As = kb.view(smem, "As", "f32", (2048,))
    Bs = kb.view(smem, "Bs", "u32", (2048,))
    Bs_f32 = kb.view(smem, "Bs_f32", "f32", (2048,))
    loop_0 = kb.let("loop_0", 0, "i32")  # persistent_gemm.cu:7
    loop_1 = kb.let("loop_1", 0, "i32")  # persistent_gemm.cu:7
    loop_2 = kb.let("loop_2", 0, "i32")  # persistent_gemm.cu:7
    f229 = kb.let("f229", 0.0, "f32")  # persistent_gemm.cu:7
    f230 = kb.let("f230", 0.0, "f32")  # persistent_gemm.cu:7
    f231 = kb.let("f231", 0.0, "f32")  # persistent_gemm.cu:7
    f232 = kb.let("f232", 0.0, "f32")  # persistent_gemm.cu:7
    f233 = kb.let("f233", 0.0, "f32")  # persistent_gemm.cu:7
    f234 = kb.let("f234", 0.0, "f32")  # persistent_gemm.cu:7
    f235 = kb.let("f235", 0.0, "f32")  # persistent_gemm.cu:7
    f236 = kb.let("f236", 0.0, "f32")  # persistent_gemm.cu:7
    f237 = kb.let("f237", 0.0, "f32")  # persistent_gemm.cu:7
    f238 = kb.let("f238", 0.0, "f32")  # persistent_gemm.cu:7
    f239 = kb.let("f239", 0.0, "f32")  # persistent_gemm.cu:7
    f240 = kb.let("f240", 0.0, "f32")  # persistent_gemm.cu:7
    f241 = kb.let("f241", 0.0, "f32")  # persistent_gemm.cu:7
    f242 = kb.let("f242", 0.0, "f32")  # persistent_gemm.cu:7
    f243 = kb.let("f243", 0.0, "f32")  # persistent_gemm.cu:7
    f244 = kb.let("f244", 0.0, "f32")  # persistent_gemm.cu:7
    r1 = kb.let("r1", 0, "i32")  # persistent_gemm.cu:7
    r10 = kb.let("r10", 0, "u32")  # persistent_gemm.cu:7
    r11 = kb.let("r11", 0, "u32")  # persistent_gemm.cu:7
    r13 = kb.let("r13", 0, "u32")  # persistent_gemm.cu:7
    r14 = kb.let("r14", 0, "u32")  # persistent_gemm.cu:7
    r16 = kb.let("r16", 0, "u32")  # persistent_gemm.cu:7
    r17 = kb.let("r17", 0, "u32")  # persistent_gemm.cu:7
    r18 = kb.let("r18", 0, "i32")  # persistent_gemm.cu:7
    r19 = kb.let("r19", 0, "i32")  # persistent_gemm.cu:7
    r2 = kb.let("r2", 0, "i32")  # persistent_gemm.cu:7
    r31 = kb.let("r31", 0, "u32")  # persistent_gemm.cu:7
    r32 = kb.let("r32", 0, "u32")  # persistent_gemm.cu:7
    r6 = kb.let("r6", 0, "i32")  # persistent_gemm.cu:7
    r7 = kb.let("r7", 0, "u32")  # persistent_gemm.cu:7
    r8 = kb.let("r8", 0, "i32")  # persistent_gemm.cu:7
    r85 = kb.let("r85", 0, "u32")  # persistent_gemm.cu:7
    r86 = kb.let("r86", 0, "u32")  # persistent_gemm.cu:7
    r87 = kb.let("r87", 0, "u32")  # persistent_gemm.cu:7
    r88 = kb.let("r88", 0, "u32")  # persistent_gemm.cu:7
    r89 = kb.let("r89", 0, "u32")  # persistent_gemm.cu:7
    r9 = kb.let("r9", 0, "u32")  # persistent_gemm.cu:7
    rd1 = kb.let("rd1", 0, "i32")  # persistent_gemm.cu:7
    rd2 = kb.let("rd2", 0, "i32")  # persistent_gemm.cu:7
    rd3 = kb.let("rd3", 0, "i64")  # persistent_gemm.cu:7
    rd4 = kb.let("rd4", 0, "i64")  # persistent_gemm.cu:7
    rd5 = kb.let("rd5", 0, "i64")  # persistent_gemm.cu:7
    rd6 = kb.let("rd6", 0, "i64")  # persistent_gemm.cu:7
    rd7 = kb.let("rd7", 0, "i64")  # persistent_gemm.cu:7
    rd8 = kb.let("rd8", 0, "i64")  # persistent_gemm.cu:7
    r85.set(blockIdx.x)  # persistent_gemm.cu:14
    p1 = kb.let("p1", cast(r85, i32) >= (N + cast(cast(select(N < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) * (M + cast(cast(select(M < 0, -1, 0), u32) >> const(26, u32), i32) >> 6), "i32")  # persistent_gemm.cu:14
    with kb.if_(p1 != 0):  # persistent_gemm.cu:14
        kb.return_()  # persistent_gemm.cu:14
    loop_2.set(0)  # persistent_gemm.cu:14
    with kb.loop("iter_l14", 0, lambda iter_l14: loop_2 > 0, step=1, do_while=True, unroll=False, dtype="i32") as iter_l14:  # persistent_gemm.cu:14
        r59 = kb.let("r59", cast(r85, i32) // (N + cast(cast(select(N < 0, -1, 0), u32) >> const(26, u32), i32) >> 6), "i32")  # persistent_gemm.cu:15
        r16.set(cast(r59, u32) << const(6, u32))  # persistent_gemm.cu:15
        r61 = kb.let("r61", cast(r85, i32) - r59 * (N + cast(cast(select(N < 0, -1, 0), u32) >> const(26, u32), i32) >> 6), "i32")  # persistent_gemm.cu:16
        r17.set(cast(r61, u32) << const(6, u32))  # persistent_gemm.cu:16
        f229.set(0.0)  # persistent_gemm.cu:16
        f230.set(f229)  # persistent_gemm.cu:20
        f231.set(f229)  # persistent_gemm.cu:20
        f232.set(f229)  # persistent_gemm.cu:20
        f233.set(f229)  # persistent_gemm.cu:20
        f234.set(f229)  # persistent_gemm.cu:20
        f235.set(f229)  # persistent_gemm.cu:20
        f236.set(f229)  # persistent_gemm.cu:20
        f237.set(f229)  # persistent_gemm.cu:20
        f238.set(f229)  # persistent_gemm.cu:20
        f239.set(f229)  # persistent_gemm.cu:20
        f240.set(f229)  # persistent_gemm.cu:20
        f241.set(f229)  # persistent_gemm.cu:20
        f242.set(f229)  # persistent_gemm.cu:20
        f243.set(f229)  # persistent_gemm.cu:20
        f244.set(f229)  # persistent_gemm.cu:20
        with kb.if_(K >= 1):  # persistent_gemm.cu:20
            r63 = kb.let("r63", cast(r16, i32) + cast(cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) + cast(const(0, u32) >> const(28, u32), i32) >> 4, u32) << const(2, u32), i32), "i32")  # persistent_gemm.cu:20
            r18.set(cast(r17, i32) + cast(cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) - cast(cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) + cast(const(0, u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32), u32) << const(2, u32), i32))  # persistent_gemm.cu:20
            r19.set(r63 * K)  # persistent_gemm.cu:20
            r86.set(const(0, u32))  # persistent_gemm.cu:20
            f229.set(0.0)  # persistent_gemm.cu:20
            r86_0 = kb.let("r86_0", r86, "u32")  # persistent_gemm.cu:20
            trips = kb.let("trips", select(cast(K, i64) - (cast(cast(r86_0, i32), i64) + const(0, i64) * const(16, i64)) > select(const(16, i64) > const(0, i64), const(16, i64), const(1, i64)), (cast(K, i64) - (cast(cast(r86_0, i32), i64) + const(0, i64) * const(16, i64)) + select(const(16, i64) > const(0, i64), const(16, i64), const(1, i64)) - const(1, i64)) // select(const(16, i64) > const(0, i64), const(16, i64), const(1, i64)), const(1, i64)), "i64")  # persistent_gemm.cu:20
            with kb.loop("iter_l20", cast(0, i64), lambda iter_l20: iter_l20 < trips, step=cast(1, i64), do_while=True, unroll=False, dtype="i64") as iter_l20:  # persistent_gemm.cu:20
                r66 = kb.let("r66", cast(r86_0 + cast(iter_l20 * const(16, i64), u32), i32) + (cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) - cast(cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) + cast(const(0, u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32)) + r19, "i32")  # persistent_gemm.cu:22
                A_f32_v = A_f32.load((cast(r66, i64),), width=1, name="A_f32_v")  # persistent_gemm.cu:22
                A_f32_v_2 = A_f32.load((cast(r66, i64) + cast(K, i64),), width=1, name="A_f32_v_2")  # persistent_gemm.cu:22
                A_f32_v_3 = A_f32.load((cast(r66, i64) + cast(K, i64) + cast(K, i64),), width=1, name="A_f32_v_3")  # persistent_gemm.cu:22
                A_f32_v_4 = A_f32.load((cast(r66, i64) + cast(K, i64) + cast(K, i64) + cast(K, i64),), width=1, name="A_f32_v_4")  # persistent_gemm.cu:22
                As.store((cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) - cast(cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) + cast(const(0, u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32), u32) * 64 + (cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) + cast(const(0, u32) >> const(28, u32), i32), u32) >> const(2, u32) & const(1073741820, u32)),), [A_f32_v, A_f32_v_2, A_f32_v_3, A_f32_v_4], width=4)  # persistent_gemm.cu:22
                r68 = kb.let("r68", (cast(r86_0 + cast(iter_l20 * const(16, i64), u32), i32) + (cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) + cast(const(0, u32) >> const(28, u32), i32) >> 4)) * N + r18, "i32")  # persistent_gemm.cu:23
                B_u32_v = B_u32.load((cast(r68, i64),), width=4, name="B_u32_v")  # persistent_gemm.cu:24
                Bs.store((const(1024, u32) + cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) + cast(const(0, u32) >> const(28, u32), i32) >> 4, u32) * 64 + cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) - cast(cast(cast(threadIdx.y << const(4, u32), i32) + cast(threadIdx.x, i32) + cast(const(0, u32) >> const(28, u32), i32), u32) & const(4294967280, u32), i32), u32) * 4,), [B_u32_v[0], B_u32_v[1], B_u32_v[2], B_u32_v[3]], width=4)  # persistent_gemm.cu:24
                kb.syncthreads()  # persistent_gemm.cu:25
                r88.set(const(512, u32))  # persistent_gemm.cu:25
                r87.set(const(4096, u32) + (threadIdx.x << const(4, u32)) + const(512, u32))  # persistent_gemm.cu:25
                r89.set((threadIdx.y << const(4, u32)) + const(512, u32))  # persistent_gemm.cu:25
                r89_0 = kb.let("r89_0", r89, "u32")  # persistent_gemm.cu:26
                r87_0 = kb.let("r87_0", r87, "u32")  # persistent_gemm.cu:26
                r88_0 = kb.let("r88_0", r88, "u32")  # persistent_gemm.cu:26
                kb.assert_((const(1024, i64) != const(0, i64)) & ((cast(4608, i64) - (cast(cast(r88_0, i32), i64) + const(0, i64) * const(1024, i64))) % select(const(1024, i64) == const(0, i64), const(1, i64), const(1024, i64)) == const(0, i64)) & ((cast(4608, i64) - (cast(cast(r88_0, i32), i64) + const(0, i64) * const(1024, i64))) // select(const(1024, i64) == const(0, i64), const(1, i64), const(1024, i64)) >= const(1, i64)), "the loop's counter %r88 meets its end 4608 (otherwise the GPU loops until it wraps)")  # persistent_gemm.cu:26
                trips_2 = kb.let("trips_2", select((const(1024, i64) != const(0, i64)) & ((cast(4608, i64) - (cast(cast(r88_0, i32), i64) + const(0, i64) * const(1024, i64))) % select(const(1024, i64) == const(0, i64), const(1, i64), const(1024, i64)) == const(0, i64)) & ((cast(4608, i64) - (cast(cast(r88_0, i32), i64) + const(0, i64) * const(1024, i64))) // select(const(1024, i64) == const(0, i64), const(1, i64), const(1024, i64)) >= const(1, i64)), (cast(4608, i64) - (cast(cast(r88_0, i32), i64) + const(0, i64) * const(1024, i64))) // select(const(1024, i64) == const(0, i64), const(1, i64), const(1024, i64)), const(1, i64)), "i64")  # persistent_gemm.cu:26
                with kb.loop("iter_l26", cast(0, i64), lambda iter_l26: iter_l26 < trips_2, step=cast(1, i64), do_while=True, unroll=False, dtype="i64") as iter_l26:  # persistent_gemm.cu:26
                    kb.assert_((r89_0 + cast(iter_l26 * const(1024, i64), u32) + const(4294966784, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # persistent_gemm.cu:27
                    As_v = As.load(((r89_0 + cast(iter_l26 * const(1024, i64), u32) + const(4294966784, u32)) // 4,), width=4, name="As_v")  # persistent_gemm.cu:27
                    kb.assert_((r87_0 + cast(iter_l26 * const(1024, i64), u32) + const(4294966784, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # persistent_gemm.cu:28
                    Bs_f32_v = Bs_f32.load(((r87_0 + cast(iter_l26 * const(1024, i64), u32) + const(4294966784, u32)) // 4,), width=4, name="Bs_f32_v")  # persistent_gemm.cu:28
                    f117 = kb.let("f117", call("fma", As_v[0], Bs_f32_v[0], f244), "f32")  # persistent_gemm.cu:29
                    f118 = kb.let("f118", call("fma", As_v[0], Bs_f32_v[1], f243), "f32")  # persistent_gemm.cu:29
                    f119 = kb.let("f119", call("fma", As_v[0], Bs_f32_v[2], f242), "f32")  # persistent_gemm.cu:29
                    f120 = kb.let("f120", call("fma", As_v[0], Bs_f32_v[3], f241), "f32")  # persistent_gemm.cu:29
                    f121 = kb.let("f121", call("fma", As_v[1], Bs_f32_v[0], f240), "f32")  # persistent_gemm.cu:30
                    f122 = kb.let("f122", call("fma", As_v[1], Bs_f32_v[1], f239), "f32")  # persistent_gemm.cu:30
                    f123 = kb.let("f123", call("fma", As_v[1], Bs_f32_v[2], f238), "f32")  # persistent_gemm.cu:30
                    f124 = kb.let("f124", call("fma", As_v[1], Bs_f32_v[3], f237), "f32")  # persistent_gemm.cu:30
                    f125 = kb.let("f125", call("fma", As_v[2], Bs_f32_v[0], f236), "f32")  # persistent_gemm.cu:31
                    f126 = kb.let("f126", call("fma", As_v[2], Bs_f32_v[1], f235), "f32")  # persistent_gemm.cu:31
                    f127 = kb.let("f127", call("fma", As_v[2], Bs_f32_v[2], f234), "f32")  # persistent_gemm.cu:31
                    f128 = kb.let("f128", call("fma", As_v[2], Bs_f32_v[3], f233), "f32")  # persistent_gemm.cu:31
                    f129 = kb.let("f129", call("fma", As_v[3], Bs_f32_v[0], f232), "f32")  # persistent_gemm.cu:32
                    f130 = kb.let("f130", call("fma", As_v[3], Bs_f32_v[1], f231), "f32")  # persistent_gemm.cu:32
                    f131 = kb.let("f131", call("fma", As_v[3], Bs_f32_v[2], f230), "f32")  # persistent_gemm.cu:32
                    f132 = kb.let("f132", call("fma", As_v[3], Bs_f32_v[3], f229), "f32")  # persistent_gemm.cu:32
                    kb.assert_((r89_0 + cast(iter_l26 * const(1024, i64), u32) + const(4294967040, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # persistent_gemm.cu:27
                    As_v_2 = As.load(((r89_0 + cast(iter_l26 * const(1024, i64), u32) + const(4294967040, u32)) // 4,), width=4, name="As_v_2")  # persistent_gemm.cu:27
                    kb.assert_((r87_0 + cast(iter_l26 * const(1024, i64), u32) + const(4294967040, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # persistent_gemm.cu:28
                    Bs_f32_v_2 = Bs_f32.load(((r87_0 + cast(iter_l26 * const(1024, i64), u32) + const(4294967040, u32)) // 4,), width=4, name="Bs_f32_v_2")  # persistent_gemm.cu:28
                    kb.assert_((r89_0 + cast(iter_l26 * const(1024, i64), u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # persistent_gemm.cu:27
                    As_v_3 = As.load(((r89_0 + cast(iter_l26 * const(1024, i64), u32)) // 4,), width=4, name="As_v_3")  # persistent_gemm.cu:27
                    kb.assert_((r87_0 + cast(iter_l26 * const(1024, i64), u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # persistent_gemm.cu:28
                    Bs_f32_v_3 = Bs_f32.load(((r87_0 + cast(iter_l26 * const(1024, i64), u32)) // 4,), width=4, name="Bs_f32_v_3")  # persistent_gemm.cu:28
                    kb.assert_((r89_0 + cast(iter_l26 * const(1024, i64), u32) + const(256, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # persistent_gemm.cu:27
                    As_v_4 = As.load(((r89_0 + cast(iter_l26 * const(1024, i64), u32) + const(256, u32)) // 4,), width=4, name="As_v_4")  # persistent_gemm.cu:27
                    kb.assert_((r87_0 + cast(iter_l26 * const(1024, i64), u32) + const(256, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # persistent_gemm.cu:28
                    Bs_f32_v_4 = Bs_f32.load(((r87_0 + cast(iter_l26 * const(1024, i64), u32) + const(256, u32)) // 4,), width=4, name="Bs_f32_v_4")  # persistent_gemm.cu:28
                    f244.set(call("fma", As_v_4[0], Bs_f32_v_4[0], call("fma", As_v_3[0], Bs_f32_v_3[0], call("fma", As_v_2[0], Bs_f32_v_2[0], f117))))  # persistent_gemm.cu:29
                    f243.set(call("fma", As_v_4[0], Bs_f32_v_4[1], call("fma", As_v_3[0], Bs_f32_v_3[1], call("fma", As_v_2[0], Bs_f32_v_2[1], f118))))  # persistent_gemm.cu:29
                    f242.set(call("fma", As_v_4[0], Bs_f32_v_4[2], call("fma", As_v_3[0], Bs_f32_v_3[2], call("fma", As_v_2[0], Bs_f32_v_2[2], f119))))  # persistent_gemm.cu:29
                    f241.set(call("fma", As_v_4[0], Bs_f32_v_4[3], call("fma", As_v_3[0], Bs_f32_v_3[3], call("fma", As_v_2[0], Bs_f32_v_2[3], f120))))  # persistent_gemm.cu:29
                    f240.set(call("fma", As_v_4[1], Bs_f32_v_4[0], call("fma", As_v_3[1], Bs_f32_v_3[0], call("fma", As_v_2[1], Bs_f32_v_2[0], f121))))  # persistent_gemm.cu:30
                    f239.set(call("fma", As_v_4[1], Bs_f32_v_4[1], call("fma", As_v_3[1], Bs_f32_v_3[1], call("fma", As_v_2[1], Bs_f32_v_2[1], f122))))  # persistent_gemm.cu:30
                    f238.set(call("fma", As_v_4[1], Bs_f32_v_4[2], call("fma", As_v_3[1], Bs_f32_v_3[2], call("fma", As_v_2[1], Bs_f32_v_2[2], f123))))  # persistent_gemm.cu:30
                    f237.set(call("fma", As_v_4[1], Bs_f32_v_4[3], call("fma", As_v_3[1], Bs_f32_v_3[3], call("fma", As_v_2[1], Bs_f32_v_2[3], f124))))  # persistent_gemm.cu:30
                    f236.set(call("fma", As_v_4[2], Bs_f32_v_4[0], call("fma", As_v_3[2], Bs_f32_v_3[0], call("fma", As_v_2[2], Bs_f32_v_2[0], f125))))  # persistent_gemm.cu:31
                    f235.set(call("fma", As_v_4[2], Bs_f32_v_4[1], call("fma", As_v_3[2], Bs_f32_v_3[1], call("fma", As_v_2[2], Bs_f32_v_2[1], f126))))  # persistent_gemm.cu:31
                    f234.set(call("fma", As_v_4[2], Bs_f32_v_4[2], call("fma", As_v_3[2], Bs_f32_v_3[2], call("fma", As_v_2[2], Bs_f32_v_2[2], f127))))  # persistent_gemm.cu:31
                    f233.set(call("fma", As_v_4[2], Bs_f32_v_4[3], call("fma", As_v_3[2], Bs_f32_v_3[3], call("fma", As_v_2[2], Bs_f32_v_2[3], f128))))  # persistent_gemm.cu:31
                    f232.set(call("fma", As_v_4[3], Bs_f32_v_4[0], call("fma", As_v_3[3], Bs_f32_v_3[0], call("fma", As_v_2[3], Bs_f32_v_2[0], f129))))  # persistent_gemm.cu:32
                    f231.set(call("fma", As_v_4[3], Bs_f32_v_4[1], call("fma", As_v_3[3], Bs_f32_v_3[1], call("fma", As_v_2[3], Bs_f32_v_2[1], f130))))  # persistent_gemm.cu:32
                    f230.set(call("fma", As_v_4[3], Bs_f32_v_4[2], call("fma", As_v_3[3], Bs_f32_v_3[2], call("fma", As_v_2[3], Bs_f32_v_2[2], f131))))  # persistent_gemm.cu:32
                    f229.set(call("fma", As_v_4[3], Bs_f32_v_4[3], call("fma", As_v_3[3], Bs_f32_v_3[3], call("fma", As_v_2[3], Bs_f32_v_2[3], f132))))  # persistent_gemm.cu:32
                r89.set(r89_0 + cast(trips_2 * const(1024, i64), u32))  # persistent_gemm.cu:26
                r87.set(r87_0 + cast(trips_2 * const(1024, i64), u32))  # persistent_gemm.cu:26
                r88.set(r88_0 + cast(trips_2 * const(1024, i64), u32))  # persistent_gemm.cu:26
                kb.syncthreads()  # persistent_gemm.cu:34
            r86.set(r86_0 + cast(trips * const(16, i64), u32))  # persistent_gemm.cu:20
        r77 = kb.let("r77", cast(r16, i32) + cast(threadIdx.y << const(2, u32), i32), "i32")  # persistent_gemm.cu:11
        r78 = kb.let("r78", cast(r17, i32) + cast(threadIdx.x << const(2, u32), i32), "i32")  # persistent_gemm.cu:11
        C_f32.store((cast(r77 * N + r78, i64),), [f244, f243, f242, f241], width=4)  # persistent_gemm.cu:37
        C_f32.store((cast(r77 * N + r78, i64) + cast(N, i64),), [f240, f239, f238, f237], width=4)  # persistent_gemm.cu:37
        C_f32.store((cast(r77 * N + r78, i64) + cast(N, i64) + cast(N, i64),), [f236, f235, f234, f233], width=4)  # persistent_gemm.cu:37
        C_f32.store((cast(r77 * N + r78, i64) + cast(N, i64) + cast(N, i64) + cast(N, i64),), [f232, f231, f230, f229], width=4)  # persistent_gemm.cu:37
        r85.set(cast(cast(r85, i32) + cast(gridDim.x, i32), u32))  # persistent_gemm.cu:14
        p5 = kb.let("p5", cast(r85, i32) < (N + cast(cast(select(N < 0, -1, 0), u32) >> const(26, u32), i32) >> 6) * (M + cast(cast(select(M < 0, -1, 0), u32) >> const(26, u32), i32) >> 6), "i32")  # persistent_gemm.cu:14
        with kb.if_(p5 != 0):  # persistent_gemm.cu:14
            loop_2.set(1)  # persistent_gemm.cu:14
        with kb.else_():  # persistent_gemm.cu:14
            loop_2.set(0)  # persistent_gemm.cu:14
    kb.launch(grid=(132, 1, 1), block=(16, 16, 1), dynamic_smem=0)  # persistent_gemm.cu:7
    kb.defaults(**{"M": 512, "N": 512, "K": 512})  # persistent_gemm.cu:7
    return kb.build()

KERNELS = {'persistent_gemm': persistent_gemm}

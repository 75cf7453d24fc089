# Kernels read from nvcc's build of seed004.cu by `smemsim import` (edit freely).
# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.
from kernels_ir import (
    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, f16, f32,
    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, smin,
    source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)


def matrixMultiplySharedKernel():
    """`matrixMultiplySharedKernel`."""
    kb = KernelBuilder("matrixMultiplySharedKernel")  # seed004.cu:53
    rowsA = kb.param("rowsA", "i32")  # seed004.cu:53
    colsB = kb.param("colsB", "i32")  # seed004.cu:53
    commonDim = kb.param("commonDim", "i32")  # seed004.cu:53
    matrixA = kb.global_array("matrixA", "u8", cast(rowsA * commonDim, i64) * 4, intent="in")  # seed004.cu:53
    matrixB = kb.global_array("matrixB", "u8", cast(commonDim * colsB, i64) * 4, intent="in")  # seed004.cu:53
    matrixC = kb.global_array("matrixC", "u8", cast(rowsA * colsB, i64) * 4, intent="out")  # seed004.cu:53
    matrixA_f32 = kb.global_view(matrixA, "matrixA_f32", "f32")  # seed004.cu:53
    matrixB_f32 = kb.global_view(matrixB, "matrixB_f32", "f32")  # seed004.cu:53
    matrixC_f32 = kb.global_view(matrixC, "matrixC_f32", "f32")  # seed004.cu:53
    smem = kb.shared("smem", "u8", (8192,))
    tileA = kb.view(smem, "tileA", "f32", (2048,))
    tileB = kb.view(smem, "tileB", "f32", (2048,))
    loop_0 = kb.let("loop_0", 0, "i32")  # seed004.cu:53
    f108 = kb.let("f108", 0.0, "f32")  # seed004.cu:53
    f109 = kb.let("f109", 0.0, "f32")  # seed004.cu:53
    f110 = kb.let("f110", 0.0, "f32")  # seed004.cu:53
    f9 = kb.let("f9", 0.0, "f32")  # seed004.cu:53
    r11 = kb.let("r11", 0, "i32")  # seed004.cu:53
    r2 = kb.let("r2", 0, "i32")  # seed004.cu:53
    r22 = kb.let("r22", 0, "u32")  # seed004.cu:53
    r23 = kb.let("r23", 0, "u32")  # seed004.cu:53
    r24 = kb.let("r24", 0, "u32")  # seed004.cu:53
    r4 = kb.let("r4", 0, "i32")  # seed004.cu:53
    r41 = kb.let("r41", 0, "u32")  # seed004.cu:53
    r42 = kb.let("r42", 0, "i32")  # seed004.cu:53
    r43 = kb.let("r43", 0, "u32")  # seed004.cu:53
    r44 = kb.let("r44", 0, "i32")  # seed004.cu:53
    r45 = kb.let("r45", 0, "u32")  # seed004.cu:53
    r5 = kb.let("r5", 0, "u32")  # seed004.cu:53
    r6 = kb.let("r6", 0, "u32")  # seed004.cu:53
    r7 = kb.let("r7", 0, "u32")  # seed004.cu:53
    r8 = kb.let("r8", 0, "u32")  # seed004.cu:53
    rd1 = kb.let("rd1", 0, "i64")  # seed004.cu:53
    rd2 = kb.let("rd2", 0, "i64")  # seed004.cu:53
    rd3 = kb.let("rd3", 0, "i64")  # seed004.cu:53
    rd4 = kb.let("rd4", 0, "i64")  # seed004.cu:53
    rd7 = kb.let("rd7", 0, "i64")  # seed004.cu:53
    r43.set(threadIdx.y)  # seed004.cu:54
    r2.set(cast(blockIdx.y, i32) * cast(blockDim.y, i32) + cast(r43, i32))  # seed004.cu:54
    r41.set(threadIdx.x)  # seed004.cu:55
    r4.set(cast(blockIdx.x, i32) * cast(blockDim.x, i32) + cast(r41, i32))  # seed004.cu:55
    f110.set(0.0)  # seed004.cu:63
    with kb.if_(commonDim >= 1):  # seed004.cu:63
        r30 = kb.let("r30", r43 << const(7, u32), "u32")  # seed004.cu:63
        r7.set(r30)  # seed004.cu:63
        r32 = kb.let("r32", r41 << const(2, u32), "u32")  # seed004.cu:63
        r5.set(r7 + r32)  # seed004.cu:63
        r6.set(const(4096, u32) + r30 + r32)  # seed004.cu:63
        r8.set(const(4096, u32) + r32)  # seed004.cu:63
        r44.set(cast(r43, i32) * colsB + r4)  # seed004.cu:65
        r42.set(commonDim * r2 + cast(r41, i32))  # seed004.cu:65
        r45.set(const(0, u32))  # seed004.cu:61
        f110.set(0.0)  # seed004.cu:61
        r43_0 = kb.let("r43_0", r43, "u32")  # seed004.cu:63
        r42_0 = kb.let("r42_0", r42, "i32")  # seed004.cu:63
        r41_0 = kb.let("r41_0", r41, "u32")  # seed004.cu:63
        r45_0 = kb.let("r45_0", r45, "u32")  # seed004.cu:63
        trips = kb.let("trips", select(cast(commonDim + 31 + cast(cast(select(commonDim + 31 < 0, -1, 0), u32) >> const(27, u32), i32) >> 5, i64) - (cast(cast(r45_0, i32), i64) + const(0, i64) * const(1, i64)) > select(const(1, i64) > const(0, i64), const(1, i64), const(1, i64)), (cast(commonDim + 31 + cast(cast(select(commonDim + 31 < 0, -1, 0), u32) >> const(27, u32), i32) >> 5, i64) - (cast(cast(r45_0, i32), i64) + const(0, i64) * const(1, i64)) + select(const(1, i64) > const(0, i64), const(1, i64), const(1, i64)) - const(1, i64)) // select(const(1, i64) > const(0, i64), const(1, i64), const(1, i64)), const(1, i64)), "i64")  # seed004.cu:63
        with kb.loop("iter_l63", cast(0, i64), lambda iter_l63: iter_l63 < trips, step=cast(1, i64), do_while=True, unroll=False, dtype="i64") as iter_l63:  # seed004.cu:63
            p3 = kb.let("p3", r2 >= rowsA, "i32")  # seed004.cu:65
            f108.set(0.0)  # seed004.cu:65
            with kb.if_(logical_and(p3 == 0, r41_0 + cast(iter_l63 * const(32, i64), u32) < cast(commonDim, u32))):  # seed004.cu:65
                matrixA_f32_v = matrixA_f32.load((cast(cast(cast(r42_0 + cast(iter_l63 * const(32, i64), i32), u32), u64), i64),), width=1, name="matrixA_f32_v")  # seed004.cu:66
                f108.set(matrixA_f32_v)  # seed004.cu:66
            kb.assert_(r5 % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:66
            tileA[r5 // 4] = f108  # seed004.cu:66
            p6 = kb.let("p6", r4 >= colsB, "i32")  # seed004.cu:70
            f109.set(0.0)  # seed004.cu:70
            with kb.if_(logical_and(p6 == 0, r43_0 + cast(iter_l63 * const(32, i64), u32) < cast(commonDim, u32))):  # seed004.cu:70
                rd8 = kb.let("rd8", cast(cast(r44, u32), u64) * const(4, u64), "u64")  # seed004.cu:71
                kb.assert_(cast(rd8, i64) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:71
                matrixB_f32_v = matrixB_f32.load((cast(rd8, i64) // 4,), width=1, name="matrixB_f32_v")  # seed004.cu:71
                f109.set(matrixB_f32_v)  # seed004.cu:71
            kb.assert_(r6 % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:71
            tileB[r6 // 4] = f109  # seed004.cu:71
            kb.syncthreads()  # seed004.cu:75
            kb.assert_(r8 % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v = tileB.load((r8 // 4,), width=1, name="tileB_v")  # seed004.cu:78
            kb.assert_(r7 % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileA_v = tileA.load((r7 // 4,), width=4, name="tileA_v")  # seed004.cu:78
            f14 = kb.let("f14", call("fma", tileA_v[0], tileB_v, f110), "f32")  # seed004.cu:78
            kb.assert_((r8 + const(128, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_2 = tileB.load(((r8 + const(128, u32)) // 4,), width=1, name="tileB_v_2")  # seed004.cu:78
            kb.assert_((r8 + const(256, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_3 = tileB.load(((r8 + const(256, u32)) // 4,), width=1, name="tileB_v_3")  # seed004.cu:78
            kb.assert_((r8 + const(384, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_4 = tileB.load(((r8 + const(384, u32)) // 4,), width=1, name="tileB_v_4")  # seed004.cu:78
            kb.assert_((r8 + const(512, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_5 = tileB.load(((r8 + const(512, u32)) // 4,), width=1, name="tileB_v_5")  # seed004.cu:78
            kb.assert_((r7 + const(16, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileA_v_2 = tileA.load(((r7 + const(16, u32)) // 4,), width=4, name="tileA_v_2")  # seed004.cu:78
            kb.assert_((r8 + const(640, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_6 = tileB.load(((r8 + const(640, u32)) // 4,), width=1, name="tileB_v_6")  # seed004.cu:78
            kb.assert_((r8 + const(768, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_7 = tileB.load(((r8 + const(768, u32)) // 4,), width=1, name="tileB_v_7")  # seed004.cu:78
            kb.assert_((r8 + const(896, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_8 = tileB.load(((r8 + const(896, u32)) // 4,), width=1, name="tileB_v_8")  # seed004.cu:78
            kb.assert_((r8 + const(1024, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_9 = tileB.load(((r8 + const(1024, u32)) // 4,), width=1, name="tileB_v_9")  # seed004.cu:78
            kb.assert_((r7 + const(32, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileA_v_3 = tileA.load(((r7 + const(32, u32)) // 4,), width=4, name="tileA_v_3")  # seed004.cu:78
            kb.assert_((r8 + const(1152, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_10 = tileB.load(((r8 + const(1152, u32)) // 4,), width=1, name="tileB_v_10")  # seed004.cu:78
            kb.assert_((r8 + const(1280, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_11 = tileB.load(((r8 + const(1280, u32)) // 4,), width=1, name="tileB_v_11")  # seed004.cu:78
            kb.assert_((r8 + const(1408, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_12 = tileB.load(((r8 + const(1408, u32)) // 4,), width=1, name="tileB_v_12")  # seed004.cu:78
            kb.assert_((r8 + const(1536, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_13 = tileB.load(((r8 + const(1536, u32)) // 4,), width=1, name="tileB_v_13")  # seed004.cu:78
            kb.assert_((r7 + const(48, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileA_v_4 = tileA.load(((r7 + const(48, u32)) // 4,), width=4, name="tileA_v_4")  # seed004.cu:78
            kb.assert_((r8 + const(1664, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_14 = tileB.load(((r8 + const(1664, u32)) // 4,), width=1, name="tileB_v_14")  # seed004.cu:78
            kb.assert_((r8 + const(1792, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_15 = tileB.load(((r8 + const(1792, u32)) // 4,), width=1, name="tileB_v_15")  # seed004.cu:78
            kb.assert_((r8 + const(1920, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_16 = tileB.load(((r8 + const(1920, u32)) // 4,), width=1, name="tileB_v_16")  # seed004.cu:78
            kb.assert_((r8 + const(2048, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_17 = tileB.load(((r8 + const(2048, u32)) // 4,), width=1, name="tileB_v_17")  # seed004.cu:78
            kb.assert_((r7 + const(64, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileA_v_5 = tileA.load(((r7 + const(64, u32)) // 4,), width=4, name="tileA_v_5")  # seed004.cu:78
            kb.assert_((r8 + const(2176, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_18 = tileB.load(((r8 + const(2176, u32)) // 4,), width=1, name="tileB_v_18")  # seed004.cu:78
            kb.assert_((r8 + const(2304, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_19 = tileB.load(((r8 + const(2304, u32)) // 4,), width=1, name="tileB_v_19")  # seed004.cu:78
            kb.assert_((r8 + const(2432, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_20 = tileB.load(((r8 + const(2432, u32)) // 4,), width=1, name="tileB_v_20")  # seed004.cu:78
            kb.assert_((r8 + const(2560, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_21 = tileB.load(((r8 + const(2560, u32)) // 4,), width=1, name="tileB_v_21")  # seed004.cu:78
            kb.assert_((r7 + const(80, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileA_v_6 = tileA.load(((r7 + const(80, u32)) // 4,), width=4, name="tileA_v_6")  # seed004.cu:78
            kb.assert_((r8 + const(2688, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_22 = tileB.load(((r8 + const(2688, u32)) // 4,), width=1, name="tileB_v_22")  # seed004.cu:78
            kb.assert_((r8 + const(2816, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_23 = tileB.load(((r8 + const(2816, u32)) // 4,), width=1, name="tileB_v_23")  # seed004.cu:78
            kb.assert_((r8 + const(2944, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_24 = tileB.load(((r8 + const(2944, u32)) // 4,), width=1, name="tileB_v_24")  # seed004.cu:78
            kb.assert_((r8 + const(3072, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_25 = tileB.load(((r8 + const(3072, u32)) // 4,), width=1, name="tileB_v_25")  # seed004.cu:78
            kb.assert_((r7 + const(96, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileA_v_7 = tileA.load(((r7 + const(96, u32)) // 4,), width=4, name="tileA_v_7")  # seed004.cu:78
            kb.assert_((r8 + const(3200, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_26 = tileB.load(((r8 + const(3200, u32)) // 4,), width=1, name="tileB_v_26")  # seed004.cu:78
            kb.assert_((r8 + const(3328, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_27 = tileB.load(((r8 + const(3328, u32)) // 4,), width=1, name="tileB_v_27")  # seed004.cu:78
            kb.assert_((r8 + const(3456, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_28 = tileB.load(((r8 + const(3456, u32)) // 4,), width=1, name="tileB_v_28")  # seed004.cu:78
            kb.assert_((r8 + const(3584, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_29 = tileB.load(((r8 + const(3584, u32)) // 4,), width=1, name="tileB_v_29")  # seed004.cu:78
            kb.assert_((r7 + const(112, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileA_v_8 = tileA.load(((r7 + const(112, u32)) // 4,), width=4, name="tileA_v_8")  # seed004.cu:78
            kb.assert_((r8 + const(3712, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_30 = tileB.load(((r8 + const(3712, u32)) // 4,), width=1, name="tileB_v_30")  # seed004.cu:78
            kb.assert_((r8 + const(3840, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_31 = tileB.load(((r8 + const(3840, u32)) // 4,), width=1, name="tileB_v_31")  # seed004.cu:78
            kb.assert_((r8 + const(3968, u32)) % 4 == 0, 'misaligned address: a 4-byte element at a byte offset that is not a multiple of 4')  # seed004.cu:78
            tileB_v_32 = tileB.load(((r8 + const(3968, u32)) // 4,), width=1, name="tileB_v_32")  # seed004.cu:78
            f110.set(call("fma", tileA_v_8[3], tileB_v_32, call("fma", tileA_v_8[2], tileB_v_31, call("fma", tileA_v_8[1], tileB_v_30, call("fma", tileA_v_8[0], tileB_v_29, call("fma", tileA_v_7[3], tileB_v_28, call("fma", tileA_v_7[2], tileB_v_27, call("fma", tileA_v_7[1], tileB_v_26, call("fma", tileA_v_7[0], tileB_v_25, call("fma", tileA_v_6[3], tileB_v_24, call("fma", tileA_v_6[2], tileB_v_23, call("fma", tileA_v_6[1], tileB_v_22, call("fma", tileA_v_6[0], tileB_v_21, call("fma", tileA_v_5[3], tileB_v_20, call("fma", tileA_v_5[2], tileB_v_19, call("fma", tileA_v_5[1], tileB_v_18, call("fma", tileA_v_5[0], tileB_v_17, call("fma", tileA_v_4[3], tileB_v_16, call("fma", tileA_v_4[2], tileB_v_15, call("fma", tileA_v_4[1], tileB_v_14, call("fma", tileA_v_4[0], tileB_v_13, call("fma", tileA_v_3[3], tileB_v_12, call("fma", tileA_v_3[2], tileB_v_11, call("fma", tileA_v_3[1], tileB_v_10, call("fma", tileA_v_3[0], tileB_v_9, call("fma", tileA_v_2[3], tileB_v_8, call("fma", tileA_v_2[2], tileB_v_7, call("fma", tileA_v_2[1], tileB_v_6, call("fma", tileA_v_2[0], tileB_v_5, call("fma", tileA_v[3], tileB_v_4, call("fma", tileA_v[2], tileB_v_3, call("fma", tileA_v[1], tileB_v_2, f14))))))))))))))))))))))))))))))))  # seed004.cu:78
            kb.syncthreads()  # seed004.cu:81
            r44.set(r44 + cast(cast(colsB, u32) << const(5, u32), i32))  # seed004.cu:63
        r43.set(r43_0 + cast(trips * const(32, i64), u32))  # seed004.cu:63
        r42.set(r42_0 + cast(trips * const(32, i64), i32))  # seed004.cu:63
        r41.set(r41_0 + cast(trips * const(32, i64), u32))  # seed004.cu:63
        r45.set(r45_0 + cast(trips * const(1, i64), u32))  # seed004.cu:63
    p9 = kb.let("p9", r4 >= colsB, "i32")  # seed004.cu:84
    p10 = kb.let("p10", r2 >= rowsA, "i32")  # seed004.cu:84
    with kb.if_(logical_or(p10 != 0, p9 != 0)):  # seed004.cu:84
        kb.return_()  # seed004.cu:84
    r40 = kb.let("r40", r2 * colsB + r4, "i32")  # seed004.cu:85
    matrixC_f32[cast(r40, i64)] = f110  # seed004.cu:85
    kb.launch(grid=((colsB + 31) // 32, (rowsA + 31) // 32, 1), block=(32, 32, 1), dynamic_smem=0)  # seed004.cu:53
    kb.defaults(**{"rowsA": 100, "colsB": 100, "commonDim": 100})  # seed004.cu:53
    return kb.build()

KERNELS = {'matrixMultiplySharedKernel': matrixMultiplySharedKernel}

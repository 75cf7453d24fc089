# Kernels read from nvcc's build of seed004_ilp2.cu by `smemsim import` (edit freely).
# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.
from kernels_ir import (
    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, f16, f32,
    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, smin,
    source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)


def matrixMultiplySharedILPkernel():
    """`matrixMultiplySharedILPkernel`."""
    kb = KernelBuilder("matrixMultiplySharedILPkernel")  # seed004_ilp2.cu:2
    rowsA = kb.param("rowsA", "i32")  # seed004_ilp2.cu:2
    colsB = kb.param("colsB", "i32")  # seed004_ilp2.cu:2
    commonDim = kb.param("commonDim", "i32")  # seed004_ilp2.cu:2
    matrixA = kb.global_array("matrixA", "u8", cast(rowsA * commonDim, i64) * 4, intent="in")  # seed004_ilp2.cu:2
    matrixB = kb.global_array("matrixB", "u8", cast(commonDim * colsB, i64) * 4, intent="in")  # seed004_ilp2.cu:2
    matrixC = kb.global_array("matrixC", "u8", cast(rowsA * colsB, i64) * 4, intent="out")  # seed004_ilp2.cu:2
    matrixA_f32 = kb.global_view(matrixA, "matrixA_f32", "f32")  # seed004_ilp2.cu:2
    matrixB_f32 = kb.global_view(matrixB, "matrixB_f32", "f32")  # seed004_ilp2.cu:2
    matrixC_f32 = kb.global_view(matrixC, "matrixC_f32", "f32")  # seed004_ilp2.cu:2
    smem = kb.shared("smem", "u8", (8192,))
    tileA = kb.view(smem, "tileA", "f32", (2048,))
    tileB = kb.view(smem, "tileB", "f32", (2048,))
    loop_0 = kb.let("loop_0", 0, "i32")  # seed004_ilp2.cu:2
    f175 = kb.let("f175", 0.0, "f32")  # seed004_ilp2.cu:2
    f176 = kb.let("f176", 0.0, "f32")  # seed004_ilp2.cu:2
    r1 = kb.let("r1", 0, "u32")  # seed004_ilp2.cu:2
    r12 = kb.let("r12", 0, "u32")  # seed004_ilp2.cu:2
    r14 = kb.let("r14", 0, "i32")  # seed004_ilp2.cu:2
    r2 = kb.let("r2", 0, "i32")  # seed004_ilp2.cu:2
    r25 = kb.let("r25", 0, "u32")  # seed004_ilp2.cu:2
    r26 = kb.let("r26", 0, "u32")  # seed004_ilp2.cu:2
    r3 = kb.let("r3", 0, "u32")  # seed004_ilp2.cu:2
    r4 = kb.let("r4", 0, "i32")  # seed004_ilp2.cu:2
    r47 = kb.let("r47", 0, "i32")  # seed004_ilp2.cu:2
    r48 = kb.let("r48", 0, "i32")  # seed004_ilp2.cu:2
    r49 = kb.let("r49", 0, "i32")  # seed004_ilp2.cu:2
    r5 = kb.let("r5", 0, "u32")  # seed004_ilp2.cu:2
    r50 = kb.let("r50", 0, "i32")  # seed004_ilp2.cu:2
    r51 = kb.let("r51", 0, "u32")  # seed004_ilp2.cu:2
    r6 = kb.let("r6", 0, "u32")  # seed004_ilp2.cu:2
    r7 = kb.let("r7", 0, "u32")  # seed004_ilp2.cu:2
    r8 = kb.let("r8", 0, "u32")  # seed004_ilp2.cu:2
    rd1 = kb.let("rd1", 0, "i64")  # seed004_ilp2.cu:2
    rd2 = kb.let("rd2", 0, "i64")  # seed004_ilp2.cu:2
    rd3 = kb.let("rd3", 0, "i64")  # seed004_ilp2.cu:2
    rd4 = kb.let("rd4", 0, "i64")  # seed004_ilp2.cu:2
    rd5 = kb.let("rd5", 0, "i64")  # seed004_ilp2.cu:2
    f175.set(0.0)  # seed004_ilp2.cu:13
    f176.set(f175)  # seed004_ilp2.cu:13
    with kb.if_(commonDim >= 1):  # seed004_ilp2.cu:13
        r50.set(commonDim * (cast(blockDim.y << const(1, u32), i32) * cast(blockIdx.y, i32) + cast(threadIdx.y, i32) + 16) + cast(threadIdx.x, i32))  # seed004_ilp2.cu:25
        r49.set(commonDim * (cast(blockDim.y << const(1, u32), i32) * cast(blockIdx.y, i32) + cast(threadIdx.y, i32)) + cast(threadIdx.x, i32))  # seed004_ilp2.cu:25
        r48.set(colsB * (cast(threadIdx.y, i32) + 16) + (cast(blockIdx.x, i32) * cast(blockDim.x, i32) + cast(threadIdx.x, i32)))  # seed004_ilp2.cu:25
        r47.set(cast(threadIdx.y, i32) * colsB + (cast(blockIdx.x, i32) * cast(blockDim.x, i32) + cast(threadIdx.x, i32)))  # seed004_ilp2.cu:25
        f176.set(0.0)  # seed004_ilp2.cu:12
        r51.set(const(0, u32))  # seed004_ilp2.cu:12
        f175.set(f176)  # seed004_ilp2.cu:12
        r50_0 = kb.let("r50_0", r50, "i32")  # seed004_ilp2.cu:13
        r49_0 = kb.let("r49_0", r49, "i32")  # seed004_ilp2.cu:13
        r48_0 = kb.let("r48_0", r48, "i32")  # seed004_ilp2.cu:13
        r12_step = kb.let("r12_step", cast(cast(cast(colsB, u32) << const(5, u32), i32), i64), "i64")  # seed004_ilp2.cu:13
        r47_0 = kb.let("r47_0", r47, "i32")  # seed004_ilp2.cu:13
        r12_step_2 = kb.let("r12_step_2", cast(cast(cast(colsB, u32) << const(5, u32), i32), i64), "i64")  # seed004_ilp2.cu:13
        r51_0 = kb.let("r51_0", r51, "u32")  # seed004_ilp2.cu:13
        trips = kb.let("trips", select(cast(commonDim + 31 + cast(cast(select(commonDim + 31 < 0, -1, 0), u32) >> const(27, u32), i32) >> 5, i64) - (cast(cast(r51_0, i32), i64) + const(0, i64) * const(1, i64)) > select(const(1, i64) > const(0, i64), const(1, i64), const(1, i64)), (cast(commonDim + 31 + cast(cast(select(commonDim + 31 < 0, -1, 0), u32) >> const(27, u32), i32) >> 5, i64) - (cast(cast(r51_0, i32), i64) + const(0, i64) * const(1, i64)) + select(const(1, i64) > const(0, i64), const(1, i64), const(1, i64)) - const(1, i64)) // select(const(1, i64) > const(0, i64), const(1, i64), const(1, i64)), const(1, i64)), "i64")  # seed004_ilp2.cu:13
        with kb.loop("iter_l13", cast(0, i64), lambda iter_l13: iter_l13 < trips, step=cast(1, i64), do_while=True, unroll=False, dtype="i64") as iter_l13:  # seed004_ilp2.cu:13
            matrixA_f32_v = matrixA_f32.load((cast(cast(cast(r49_0 + cast(iter_l13 * const(32, i64), i32), u32), u64), i64),), width=1, name="matrixA_f32_v")  # seed004_ilp2.cu:16
            tileA[threadIdx.y * 32 + threadIdx.x] = matrixA_f32_v  # seed004_ilp2.cu:16
            matrixA_f32_v_2 = matrixA_f32.load((cast(cast(cast(r50_0 + cast(iter_l13 * const(32, i64), i32), u32), u64), i64),), width=1, name="matrixA_f32_v_2")  # seed004_ilp2.cu:17
            tileA[threadIdx.y * 32 + threadIdx.x + const(512, u32)] = matrixA_f32_v_2  # seed004_ilp2.cu:17
            matrixB_f32_v = matrixB_f32.load((cast(cast(cast(r47_0 + cast(iter_l13 * r12_step_2, i32), u32), u64), i64),), width=1, name="matrixB_f32_v")  # seed004_ilp2.cu:19
            tileB[const(1024, u32) + threadIdx.y * 32 + threadIdx.x] = matrixB_f32_v  # seed004_ilp2.cu:19
            matrixB_f32_v_2 = matrixB_f32.load((cast(cast(cast(r48_0 + cast(iter_l13 * r12_step, i32), u32), u64), i64),), width=1, name="matrixB_f32_v_2")  # seed004_ilp2.cu:20
            tileB[const(1024, u32) + threadIdx.y * 32 + threadIdx.x + const(512, u32)] = matrixB_f32_v_2  # seed004_ilp2.cu:20
            kb.syncthreads()  # seed004_ilp2.cu:22
            tileB_v = tileB.load((const(1024, u32) + threadIdx.x,), width=1, name="tileB_v")  # seed004_ilp2.cu:27
            tileA_v = tileA.load((threadIdx.y * 32,), width=4, name="tileA_v")  # seed004_ilp2.cu:27
            f17 = kb.let("f17", call("fma", tileA_v[0], tileB_v, f176), "f32")  # seed004_ilp2.cu:27
            tileA_v_2 = tileA.load((threadIdx.y * 32 + const(512, u32),), width=4, name="tileA_v_2")  # seed004_ilp2.cu:28
            f19 = kb.let("f19", call("fma", tileB_v, tileA_v_2[0], f175), "f32")  # seed004_ilp2.cu:28
            tileB_v_2 = tileB.load((const(1024, u32) + threadIdx.x + const(32, u32),), width=1, name="tileB_v_2")  # seed004_ilp2.cu:27
            tileB_v_3 = tileB.load((const(1024, u32) + threadIdx.x + const(64, u32),), width=1, name="tileB_v_3")  # seed004_ilp2.cu:27
            tileB_v_4 = tileB.load((const(1024, u32) + threadIdx.x + const(96, u32),), width=1, name="tileB_v_4")  # seed004_ilp2.cu:27
            tileB_v_5 = tileB.load((const(1024, u32) + threadIdx.x + const(128, u32),), width=1, name="tileB_v_5")  # seed004_ilp2.cu:27
            tileA_v_3 = tileA.load((threadIdx.y * 32 + const(4, u32),), width=4, name="tileA_v_3")  # seed004_ilp2.cu:27
            tileA_v_4 = tileA.load((threadIdx.y * 32 + const(516, u32),), width=4, name="tileA_v_4")  # seed004_ilp2.cu:28
            tileB_v_6 = tileB.load((const(1024, u32) + threadIdx.x + const(160, u32),), width=1, name="tileB_v_6")  # seed004_ilp2.cu:27
            tileB_v_7 = tileB.load((const(1024, u32) + threadIdx.x + const(192, u32),), width=1, name="tileB_v_7")  # seed004_ilp2.cu:27
            tileB_v_8 = tileB.load((const(1024, u32) + threadIdx.x + const(224, u32),), width=1, name="tileB_v_8")  # seed004_ilp2.cu:27
            tileB_v_9 = tileB.load((const(1024, u32) + threadIdx.x + const(256, u32),), width=1, name="tileB_v_9")  # seed004_ilp2.cu:27
            tileA_v_5 = tileA.load((threadIdx.y * 32 + const(8, u32),), width=4, name="tileA_v_5")  # seed004_ilp2.cu:27
            tileA_v_6 = tileA.load((threadIdx.y * 32 + const(520, u32),), width=4, name="tileA_v_6")  # seed004_ilp2.cu:28
            tileB_v_10 = tileB.load((const(1024, u32) + threadIdx.x + const(288, u32),), width=1, name="tileB_v_10")  # seed004_ilp2.cu:27
            tileB_v_11 = tileB.load((const(1024, u32) + threadIdx.x + const(320, u32),), width=1, name="tileB_v_11")  # seed004_ilp2.cu:27
            tileB_v_12 = tileB.load((const(1024, u32) + threadIdx.x + const(352, u32),), width=1, name="tileB_v_12")  # seed004_ilp2.cu:27
            tileB_v_13 = tileB.load((const(1024, u32) + threadIdx.x + const(384, u32),), width=1, name="tileB_v_13")  # seed004_ilp2.cu:27
            tileA_v_7 = tileA.load((threadIdx.y * 32 + const(12, u32),), width=4, name="tileA_v_7")  # seed004_ilp2.cu:27
            tileA_v_8 = tileA.load((threadIdx.y * 32 + const(524, u32),), width=4, name="tileA_v_8")  # seed004_ilp2.cu:28
            tileB_v_14 = tileB.load((const(1024, u32) + threadIdx.x + const(416, u32),), width=1, name="tileB_v_14")  # seed004_ilp2.cu:27
            tileB_v_15 = tileB.load((const(1024, u32) + threadIdx.x + const(448, u32),), width=1, name="tileB_v_15")  # seed004_ilp2.cu:27
            tileB_v_16 = tileB.load((const(1024, u32) + threadIdx.x + const(480, u32),), width=1, name="tileB_v_16")  # seed004_ilp2.cu:27
            tileB_v_17 = tileB.load((const(1024, u32) + threadIdx.x + const(512, u32),), width=1, name="tileB_v_17")  # seed004_ilp2.cu:27
            tileA_v_9 = tileA.load((threadIdx.y * 32 + const(16, u32),), width=4, name="tileA_v_9")  # seed004_ilp2.cu:27
            tileA_v_10 = tileA.load((threadIdx.y * 32 + const(528, u32),), width=4, name="tileA_v_10")  # seed004_ilp2.cu:28
            tileB_v_18 = tileB.load((const(1024, u32) + threadIdx.x + const(544, u32),), width=1, name="tileB_v_18")  # seed004_ilp2.cu:27
            tileB_v_19 = tileB.load((const(1024, u32) + threadIdx.x + const(576, u32),), width=1, name="tileB_v_19")  # seed004_ilp2.cu:27
            tileB_v_20 = tileB.load((const(1024, u32) + threadIdx.x + const(608, u32),), width=1, name="tileB_v_20")  # seed004_ilp2.cu:27
            tileB_v_21 = tileB.load((const(1024, u32) + threadIdx.x + const(640, u32),), width=1, name="tileB_v_21")  # seed004_ilp2.cu:27
            tileA_v_11 = tileA.load((threadIdx.y * 32 + const(20, u32),), width=4, name="tileA_v_11")  # seed004_ilp2.cu:27
            tileA_v_12 = tileA.load((threadIdx.y * 32 + const(532, u32),), width=4, name="tileA_v_12")  # seed004_ilp2.cu:28
            tileB_v_22 = tileB.load((const(1024, u32) + threadIdx.x + const(672, u32),), width=1, name="tileB_v_22")  # seed004_ilp2.cu:27
            tileB_v_23 = tileB.load((const(1024, u32) + threadIdx.x + const(704, u32),), width=1, name="tileB_v_23")  # seed004_ilp2.cu:27
            tileB_v_24 = tileB.load((const(1024, u32) + threadIdx.x + const(736, u32),), width=1, name="tileB_v_24")  # seed004_ilp2.cu:27
            tileB_v_25 = tileB.load((const(1024, u32) + threadIdx.x + const(768, u32),), width=1, name="tileB_v_25")  # seed004_ilp2.cu:27
            tileA_v_13 = tileA.load((threadIdx.y * 32 + const(24, u32),), width=4, name="tileA_v_13")  # seed004_ilp2.cu:27
            tileA_v_14 = tileA.load((threadIdx.y * 32 + const(536, u32),), width=4, name="tileA_v_14")  # seed004_ilp2.cu:28
            tileB_v_26 = tileB.load((const(1024, u32) + threadIdx.x + const(800, u32),), width=1, name="tileB_v_26")  # seed004_ilp2.cu:27
            tileB_v_27 = tileB.load((const(1024, u32) + threadIdx.x + const(832, u32),), width=1, name="tileB_v_27")  # seed004_ilp2.cu:27
            tileB_v_28 = tileB.load((const(1024, u32) + threadIdx.x + const(864, u32),), width=1, name="tileB_v_28")  # seed004_ilp2.cu:27
            tileB_v_29 = tileB.load((const(1024, u32) + threadIdx.x + const(896, u32),), width=1, name="tileB_v_29")  # seed004_ilp2.cu:27
            tileA_v_15 = tileA.load((threadIdx.y * 32 + const(28, u32),), width=4, name="tileA_v_15")  # seed004_ilp2.cu:27
            tileA_v_16 = tileA.load((threadIdx.y * 32 + const(540, u32),), width=4, name="tileA_v_16")  # seed004_ilp2.cu:28
            tileB_v_30 = tileB.load((const(1024, u32) + threadIdx.x + const(928, u32),), width=1, name="tileB_v_30")  # seed004_ilp2.cu:27
            tileB_v_31 = tileB.load((const(1024, u32) + threadIdx.x + const(960, u32),), width=1, name="tileB_v_31")  # seed004_ilp2.cu:27
            tileB_v_32 = tileB.load((const(1024, u32) + threadIdx.x + const(992, u32),), width=1, name="tileB_v_32")  # seed004_ilp2.cu:27
            f176.set(call("fma", tileA_v_15[3], tileB_v_32, call("fma", tileA_v_15[2], tileB_v_31, call("fma", tileA_v_15[1], tileB_v_30, call("fma", tileA_v_15[0], tileB_v_29, call("fma", tileA_v_13[3], tileB_v_28, call("fma", tileA_v_13[2], tileB_v_27, call("fma", tileA_v_13[1], tileB_v_26, call("fma", tileA_v_13[0], tileB_v_25, call("fma", tileA_v_11[3], tileB_v_24, call("fma", tileA_v_11[2], tileB_v_23, call("fma", tileA_v_11[1], tileB_v_22, call("fma", tileA_v_11[0], tileB_v_21, call("fma", tileA_v_9[3], tileB_v_20, call("fma", tileA_v_9[2], tileB_v_19, call("fma", tileA_v_9[1], tileB_v_18, call("fma", tileA_v_9[0], tileB_v_17, call("fma", tileA_v_7[3], tileB_v_16, call("fma", tileA_v_7[2], tileB_v_15, call("fma", tileA_v_7[1], tileB_v_14, call("fma", tileA_v_7[0], tileB_v_13, call("fma", tileA_v_5[3], tileB_v_12, call("fma", tileA_v_5[2], tileB_v_11, call("fma", tileA_v_5[1], tileB_v_10, call("fma", tileA_v_5[0], tileB_v_9, call("fma", tileA_v_3[3], tileB_v_8, call("fma", tileA_v_3[2], tileB_v_7, call("fma", tileA_v_3[1], tileB_v_6, call("fma", tileA_v_3[0], tileB_v_5, call("fma", tileA_v[3], tileB_v_4, call("fma", tileA_v[2], tileB_v_3, call("fma", tileA_v[1], tileB_v_2, f17))))))))))))))))))))))))))))))))  # seed004_ilp2.cu:27
            f175.set(call("fma", tileB_v_32, tileA_v_16[3], call("fma", tileB_v_31, tileA_v_16[2], call("fma", tileB_v_30, tileA_v_16[1], call("fma", tileB_v_29, tileA_v_16[0], call("fma", tileB_v_28, tileA_v_14[3], call("fma", tileB_v_27, tileA_v_14[2], call("fma", tileB_v_26, tileA_v_14[1], call("fma", tileB_v_25, tileA_v_14[0], call("fma", tileB_v_24, tileA_v_12[3], call("fma", tileB_v_23, tileA_v_12[2], call("fma", tileB_v_22, tileA_v_12[1], call("fma", tileB_v_21, tileA_v_12[0], call("fma", tileB_v_20, tileA_v_10[3], call("fma", tileB_v_19, tileA_v_10[2], call("fma", tileB_v_18, tileA_v_10[1], call("fma", tileB_v_17, tileA_v_10[0], call("fma", tileB_v_16, tileA_v_8[3], call("fma", tileB_v_15, tileA_v_8[2], call("fma", tileB_v_14, tileA_v_8[1], call("fma", tileB_v_13, tileA_v_8[0], call("fma", tileB_v_12, tileA_v_6[3], call("fma", tileB_v_11, tileA_v_6[2], call("fma", tileB_v_10, tileA_v_6[1], call("fma", tileB_v_9, tileA_v_6[0], call("fma", tileB_v_8, tileA_v_4[3], call("fma", tileB_v_7, tileA_v_4[2], call("fma", tileB_v_6, tileA_v_4[1], call("fma", tileB_v_5, tileA_v_4[0], call("fma", tileB_v_4, tileA_v_2[3], call("fma", tileB_v_3, tileA_v_2[2], call("fma", tileB_v_2, tileA_v_2[1], f19))))))))))))))))))))))))))))))))  # seed004_ilp2.cu:28
            kb.syncthreads()  # seed004_ilp2.cu:31
        r50.set(r50_0 + cast(trips * const(32, i64), i32))  # seed004_ilp2.cu:13
        r49.set(r49_0 + cast(trips * const(32, i64), i32))  # seed004_ilp2.cu:13
        r48.set(r48_0 + cast(trips * r12_step, i32))  # seed004_ilp2.cu:13
        r47.set(r47_0 + cast(trips * r12_step_2, i32))  # seed004_ilp2.cu:13
        r51.set(r51_0 + cast(trips * const(1, i64), u32))  # seed004_ilp2.cu:13
    matrixC_f32[cast((cast(blockDim.y << const(1, u32), i32) * cast(blockIdx.y, i32) + cast(threadIdx.y, i32)) * colsB + (cast(blockIdx.x, i32) * cast(blockDim.x, i32) + cast(threadIdx.x, i32)), i64)] = f176  # seed004_ilp2.cu:35
    matrixC_f32[cast((cast(blockDim.y << const(1, u32), i32) * cast(blockIdx.y, i32) + cast(threadIdx.y, i32)) * colsB + (cast(blockIdx.x, i32) * cast(blockDim.x, i32) + cast(threadIdx.x, i32)) + cast(cast(colsB, u32) << const(4, u32), i32), i64)] = f175  # seed004_ilp2.cu:36
    kb.launch(grid=(colsB // 32, rowsA // 32, 1), block=(32, 16, 1), dynamic_smem=0)  # seed004_ilp2.cu:2
    kb.defaults(**{"rowsA": 256, "colsB": 256, "commonDim": 256})  # seed004_ilp2.cu:2
    return kb.build()

KERNELS = {'matrixMultiplySharedILPkernel': matrixMultiplySharedILPkernel}

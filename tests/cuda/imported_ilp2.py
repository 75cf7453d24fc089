# Kernels imported from seed004_ilp2.cu by `smemsim import` (edit freely).
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
    matrixA = kb.global_array("matrixA", "f32", rowsA * commonDim, intent="in")  # seed004_ilp2.cu:2
    matrixB = kb.global_array("matrixB", "f32", commonDim * colsB, intent="in")  # seed004_ilp2.cu:2
    matrixC = kb.global_array("matrixC", "f32", rowsA * colsB, intent="out")  # seed004_ilp2.cu:2
    tileA = kb.shared("tileA", "f32", (32, 32,))
    tileB = kb.shared("tileB", "f32", (32, 32,))
    row = kb.let("row", cast(blockIdx.y * blockDim.y * 2 + threadIdx.y, i32), "i32")  # seed004_ilp2.cu:5
    col = kb.let("col", cast(blockIdx.x * blockDim.x + threadIdx.x, i32), "i32")  # seed004_ilp2.cu:6
    value = kb.local_array("value", "f32", (2,))  # seed004_ilp2.cu:7
    numTiles = kb.let("numTiles", (commonDim + 32 - 1) // 32, "i32")  # seed004_ilp2.cu:12
    with kb.loop("t", 0, lambda t: t < numTiles, step=1, unroll="auto", dtype="i32") as t:  # seed004_ilp2.cu:13
        matrixA_v = matrixA.load((row * commonDim + t * 32 + threadIdx.x,), width=1, name="matrixA_v")  # seed004_ilp2.cu:16
        tileA[threadIdx.y, threadIdx.x] = matrixA_v  # seed004_ilp2.cu:16
        matrixA_v_2 = matrixA.load(((row + 16) * commonDim + t * 32 + threadIdx.x,), width=1, name="matrixA_v_2")  # seed004_ilp2.cu:17
        tileA[threadIdx.y + 16, threadIdx.x] = matrixA_v_2  # seed004_ilp2.cu:17
        matrixB_v = matrixB.load(((t * 32 + threadIdx.y) * colsB + col,), width=1, name="matrixB_v")  # seed004_ilp2.cu:19
        tileB[threadIdx.y, threadIdx.x] = matrixB_v  # seed004_ilp2.cu:19
        matrixB_v_2 = matrixB.load(((t * 32 + threadIdx.y + 16) * colsB + col,), width=1, name="matrixB_v_2")  # seed004_ilp2.cu:20
        tileB[threadIdx.y + 16, threadIdx.x] = matrixB_v_2  # seed004_ilp2.cu:20
        kb.syncthreads()  # seed004_ilp2.cu:22
        with kb.loop("j", 0, lambda j: j < 32, step=1, unroll="auto", dtype="i32") as j:  # seed004_ilp2.cu:25
            tileA_v = tileA.load((threadIdx.y, j,), width=1, name="tileA_v")  # seed004_ilp2.cu:27
            tileB_v = tileB.load((j, threadIdx.x,), width=1, name="tileB_v")  # seed004_ilp2.cu:27
            value[0] = value[0] + tileA_v * tileB_v  # seed004_ilp2.cu:27
            tileA_v_2 = tileA.load((threadIdx.y + 16, j,), width=1, name="tileA_v_2")  # seed004_ilp2.cu:28
            tileB_v_2 = tileB.load((j, threadIdx.x,), width=1, name="tileB_v_2")  # seed004_ilp2.cu:28
            value[1] = value[1] + tileA_v_2 * tileB_v_2  # seed004_ilp2.cu:28
        kb.syncthreads()  # seed004_ilp2.cu:31
    matrixC[row * colsB + col] = value[0]  # seed004_ilp2.cu:35
    matrixC[(row + 16) * colsB + col] = value[1]  # seed004_ilp2.cu:36
    kb.launch(grid=(colsB // 32, rowsA // 32, 1), block=(32, 16, 1), dynamic_smem=0)  # seed004_ilp2.cu:2
    kb.defaults(**{"rowsA": 256, "colsB": 256, "commonDim": 256})  # seed004_ilp2.cu:2
    return kb.build()

KERNELS = {'matrixMultiplySharedILPkernel': matrixMultiplySharedILPkernel}

# Kernels imported from seed004.cu by `smemsim import` (edit freely).
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
    matrixA = kb.global_array("matrixA", "f32", rowsA * commonDim, intent="in")  # seed004.cu:53
    matrixB = kb.global_array("matrixB", "f32", commonDim * colsB, intent="in")  # seed004.cu:53
    matrixC = kb.global_array("matrixC", "f32", rowsA * colsB, intent="out")  # seed004.cu:53
    tileA = kb.shared("tileA", "f32", (32, 32,))
    tileB = kb.shared("tileB", "f32", (32, 32,))
    row = kb.let("row", cast(blockIdx.y * blockDim.y + threadIdx.y, i32), "i32")  # seed004.cu:54
    col = kb.let("col", cast(blockIdx.x * blockDim.x + threadIdx.x, i32), "i32")  # seed004.cu:55
    value = kb.let("value", 0.0, "f32")  # seed004.cu:56
    numTiles = kb.let("numTiles", (commonDim + 32 - 1) // 32, "i32")  # seed004.cu:61
    with kb.loop("t", 0, lambda t: t < numTiles, step=1, unroll="auto", dtype="i32") as t:  # seed004.cu:63
        with kb.if_(logical_and(row < rowsA, t * 32 + threadIdx.x < commonDim)):  # seed004.cu:65
            matrixA_v = matrixA.load((row * commonDim + t * 32 + threadIdx.x,), width=1, name="matrixA_v")  # seed004.cu:66
            tileA[threadIdx.y, threadIdx.x] = matrixA_v  # seed004.cu:66
        with kb.else_():  # seed004.cu:65
            tileA[threadIdx.y, threadIdx.x] = 0.0  # seed004.cu:68
        with kb.if_(logical_and(t * 32 + threadIdx.y < commonDim, col < colsB)):  # seed004.cu:70
            matrixB_v = matrixB.load(((t * 32 + threadIdx.y) * colsB + col,), width=1, name="matrixB_v")  # seed004.cu:71
            tileB[threadIdx.y, threadIdx.x] = matrixB_v  # seed004.cu:71
        with kb.else_():  # seed004.cu:70
            tileB[threadIdx.y, threadIdx.x] = 0.0  # seed004.cu:73
        kb.syncthreads()  # seed004.cu:75
        with kb.loop("i", 0, lambda i: i < 32, step=1, unroll="auto", dtype="i32") as i:  # seed004.cu:77
            tileA_v = tileA.load((threadIdx.y, i,), width=1, name="tileA_v")  # seed004.cu:78
            tileB_v = tileB.load((i, threadIdx.x,), width=1, name="tileB_v")  # seed004.cu:78
            value.set(value + tileA_v * tileB_v)  # seed004.cu:78
        kb.syncthreads()  # seed004.cu:81
    with kb.if_(logical_and(row < rowsA, col < colsB)):  # seed004.cu:84
        matrixC[row * colsB + col] = value  # seed004.cu:85
    kb.launch(grid=((colsB + 31) // 32, (rowsA + 31) // 32, 1), block=(32, 32, 1), dynamic_smem=0)  # seed004.cu:53
    kb.defaults(**{"rowsA": 100, "colsB": 100, "commonDim": 100})  # seed004.cu:53
    return kb.build()

KERNELS = {'matrixMultiplySharedKernel': matrixMultiplySharedKernel}

"""Kernels imported from seed004.cu by `smemsim import` (edit freely: each line ending in
`# seed004.cu:N` reports CUDA line N in smemsim's output)."""
from kernels_ir import (
    KernelBuilder, bf16, blockDim, blockIdx, call, cast, f16, f32, f64, gridDim, i8, i16, i32,
    lnot, logical_and, logical_or, select, smax, smin, source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)

TILE_SIZE = 32  # -D TILE_SIZE


def matrixMultiplySharedKernel():
    """`matrixMultiplySharedKernel` of seed004.cu, line 53."""
    kb = KernelBuilder("matrixMultiplySharedKernel")  # seed004.cu:53
    rowsA = kb.param("rowsA", "i32")  # seed004.cu:53
    colsB = kb.param("colsB", "i32")  # seed004.cu:53
    commonDim = kb.param("commonDim", "i32")  # seed004.cu:53
    matrixA = kb.global_array("matrixA", "f32", rowsA*commonDim, intent="in")  # seed004.cu:53
    matrixB = kb.global_array("matrixB", "f32", commonDim*colsB, intent="in")  # seed004.cu:53
    matrixC = kb.global_array("matrixC", "f32", rowsA*colsB, intent="out")  # seed004.cu:53
    row = kb.let("row", blockIdx.y * blockDim.y + threadIdx.y, "i32")  # seed004.cu:54
    col = kb.let("col", blockIdx.x * blockDim.x + threadIdx.x, "i32")  # seed004.cu:55
    value = kb.let("value", 0.0, "f32")  # seed004.cu:56
    tileA = kb.shared("tileA", "f32", (TILE_SIZE, TILE_SIZE))  # seed004.cu:58
    tileB = kb.shared("tileB", "f32", (TILE_SIZE, TILE_SIZE))  # seed004.cu:59
    numTiles = kb.let("numTiles", (commonDim + TILE_SIZE - 1) // TILE_SIZE, "i32")  # seed004.cu:61
    with kb.loop("t", 0, lambda t: t < numTiles, step=1, unroll="auto", dtype="i32") as t:  # seed004.cu:63
        with kb.if_(logical_and(row < rowsA, t * TILE_SIZE + threadIdx.x < commonDim)):  # seed004.cu:65
            tileA[threadIdx.y, threadIdx.x] = matrixA[row * commonDim + t * TILE_SIZE + threadIdx.x]  # seed004.cu:66
        with kb.else_():  # seed004.cu:67
            tileA[threadIdx.y, threadIdx.x] = 0.0  # seed004.cu:68
        with kb.if_(logical_and(t * TILE_SIZE + threadIdx.y < commonDim, col < colsB)):  # seed004.cu:70
            tileB[threadIdx.y, threadIdx.x] = matrixB[(t * TILE_SIZE + threadIdx.y) * colsB + col]  # seed004.cu:71
        with kb.else_():  # seed004.cu:72
            tileB[threadIdx.y, threadIdx.x] = 0.0  # seed004.cu:73
        kb.syncthreads()  # seed004.cu:75
        with kb.loop("i", 0, lambda i: i < TILE_SIZE, step=1, unroll="auto", dtype="i32") as i:  # seed004.cu:77
            value.set(value + (tileA[threadIdx.y, i] * tileB[i, threadIdx.x]))  # seed004.cu:78
        kb.syncthreads()  # seed004.cu:81
    with kb.if_(logical_and(row < rowsA, col < colsB)):  # seed004.cu:84
        matrixC[row * colsB + col] = value  # seed004.cu:85
    kb.launch(grid=((colsB + 31) // 32, (rowsA + 31) // 32), block=(32, 32))  # seed004.cu:53
    kb.defaults(rowsA=100, colsB=100, commonDim=100)  # seed004.cu:53
    return kb.build()

KERNELS = {"matrixMultiplySharedKernel": matrixMultiplySharedKernel}

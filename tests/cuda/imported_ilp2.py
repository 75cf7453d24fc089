"""Kernels imported from seed004_ilp2.cu by `smemsim import` (edit freely: each line ending in
`# seed004_ilp2.cu:N` reports CUDA line N in smemsim's output)."""
from kernels_ir import (
    KernelBuilder, bf16, blockDim, blockIdx, call, cast, f16, f32, f64, gridDim, i8, i16, i32,
    lnot, logical_and, logical_or, select, smax, smin, source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)

BLOCK_SIZE = 32  # -D BLOCK_SIZE


def matrixMultiplySharedILPkernel():
    """`matrixMultiplySharedILPkernel` of seed004_ilp2.cu, line 2."""
    kb = KernelBuilder("matrixMultiplySharedILPkernel")  # seed004_ilp2.cu:2
    rowsA = kb.param("rowsA", "i32")  # seed004_ilp2.cu:3
    colsB = kb.param("colsB", "i32")  # seed004_ilp2.cu:3
    commonDim = kb.param("commonDim", "i32")  # seed004_ilp2.cu:3
    matrixA = kb.global_array("matrixA", "f32", rowsA*commonDim, intent="in")  # seed004_ilp2.cu:2
    matrixB = kb.global_array("matrixB", "f32", commonDim*colsB, intent="in")  # seed004_ilp2.cu:2
    matrixC = kb.global_array("matrixC", "f32", rowsA*colsB, intent="out")  # seed004_ilp2.cu:3
    row = kb.let("row", blockIdx.y * blockDim.y * 2 + threadIdx.y, "i32")  # seed004_ilp2.cu:5
    col = kb.let("col", blockIdx.x * blockDim.x + threadIdx.x, "i32")  # seed004_ilp2.cu:6
    value = kb.local_array("value", "f32", 2)  # seed004_ilp2.cu:7
    tileA = kb.shared("tileA", "f32", (BLOCK_SIZE, BLOCK_SIZE))  # seed004_ilp2.cu:9
    tileB = kb.shared("tileB", "f32", (BLOCK_SIZE, BLOCK_SIZE))  # seed004_ilp2.cu:10
    numTiles = kb.let("numTiles", (commonDim + BLOCK_SIZE - 1) // BLOCK_SIZE, "i32")  # seed004_ilp2.cu:12
    with kb.loop("t", 0, lambda t: t < numTiles, step=1, unroll="auto", dtype="i32") as t:  # seed004_ilp2.cu:13
        tileA[threadIdx.y, threadIdx.x] = matrixA[row * commonDim + t * BLOCK_SIZE + threadIdx.x]  # seed004_ilp2.cu:16
        tileA[threadIdx.y + 16, threadIdx.x] = matrixA[(row + 16) * commonDim + t * BLOCK_SIZE + threadIdx.x]  # seed004_ilp2.cu:17
        tileB[threadIdx.y, threadIdx.x] = matrixB[(t * BLOCK_SIZE + threadIdx.y) * colsB + col]  # seed004_ilp2.cu:19
        tileB[threadIdx.y + 16, threadIdx.x] = matrixB[(t * BLOCK_SIZE + threadIdx.y + 16) * colsB + col]  # seed004_ilp2.cu:20
        kb.syncthreads()  # seed004_ilp2.cu:22
        with kb.loop("j", 0, lambda j: j < BLOCK_SIZE, step=1, unroll="auto", dtype="i32") as j:  # seed004_ilp2.cu:25
            value[0] = value[0] + (tileA[threadIdx.y, j] * tileB[j, threadIdx.x])  # seed004_ilp2.cu:27
            value[1] = value[1] + (tileA[threadIdx.y + 16, j] * tileB[j, threadIdx.x])  # seed004_ilp2.cu:28
        kb.syncthreads()  # seed004_ilp2.cu:31
    matrixC[row * colsB + col] = value[0]  # seed004_ilp2.cu:35
    matrixC[(row + 16) * colsB + col] = value[1]  # seed004_ilp2.cu:36
    kb.launch(grid=(colsB // 32, rowsA // 32), block=(32, 16))  # seed004_ilp2.cu:2
    kb.defaults(rowsA=256, colsB=256, commonDim=256)  # seed004_ilp2.cu:2
    return kb.build()

KERNELS = {"matrixMultiplySharedILPkernel": matrixMultiplySharedILPkernel}

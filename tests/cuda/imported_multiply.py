"""Kernels imported from seed004.cu by `smemsim import` (edit freely: each line ending in
`# seed004.cu:N` reports CUDA line N in smemsim's output)."""
from kernels_ir import (
    KernelBuilder, bf16, blockDim, blockIdx, call, cast, f16, f32, f64, gridDim, i8, i16, i32,
    lnot, logical_and, logical_or, select, smax, smin, source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)

BLOCK_SIZE = 16  # #define BLOCK_SIZE
MATRIX_DIM = 256  # #define MATRIX_DIM


def multiply():
    """`multiply` of seed004.cu, line 16."""
    kb = KernelBuilder("multiply")  # seed004.cu:16
    A_mat = kb.global_array("A_mat", "f64", MATRIX_DIM*MATRIX_DIM, intent="in")  # seed004.cu:16
    B_mat = kb.global_array("B_mat", "f64", MATRIX_DIM*MATRIX_DIM, intent="in")  # seed004.cu:16
    C_mat = kb.global_array("C_mat", "f64", MATRIX_DIM*MATRIX_DIM, intent="out")  # seed004.cu:16
    i = kb.let("i", 0, "i32")  # declared without a value  # seed004.cu:18
    j = kb.let("j", 0, "i32")  # declared without a value  # seed004.cu:18
    temp = kb.let("temp", 0, "f64")  # seed004.cu:19
    A_shared = kb.shared("A_shared", "f64", (BLOCK_SIZE, BLOCK_SIZE))  # seed004.cu:22
    B_shared = kb.shared("B_shared", "f64", (BLOCK_SIZE, BLOCK_SIZE))  # seed004.cu:23
    row = kb.let("row", blockIdx.y * blockDim.y + threadIdx.y, "i32")  # seed004.cu:26
    col = kb.let("col", blockIdx.x * blockDim.x + threadIdx.x, "i32")  # seed004.cu:27
    with kb.loop("tileNUM", 0, lambda tileNUM: tileNUM < MATRIX_DIM // BLOCK_SIZE, step=1, unroll="auto", dtype="i32") as tileNUM:  # seed004.cu:30
        j.set(tileNUM * BLOCK_SIZE + threadIdx.x)  # seed004.cu:33
        i.set(tileNUM * BLOCK_SIZE + threadIdx.y)  # seed004.cu:34
        A_shared[threadIdx.y, threadIdx.x] = A_mat[row * MATRIX_DIM + j]  # seed004.cu:37
        B_shared[threadIdx.y, threadIdx.x] = B_mat[i * MATRIX_DIM + col]  # seed004.cu:38
        kb.syncthreads()  # seed004.cu:39
        with kb.loop("k", 0, lambda k: k < BLOCK_SIZE, step=1, unroll="auto", dtype="i32") as k:  # seed004.cu:42
            temp.set(temp + (A_shared[threadIdx.y, k] * B_shared[k, threadIdx.x]))  # seed004.cu:44
        kb.syncthreads()  # seed004.cu:46
    C_mat[row * MATRIX_DIM + col] = temp  # seed004.cu:50
    kb.launch(grid=(MATRIX_DIM // BLOCK_SIZE, MATRIX_DIM // BLOCK_SIZE), block=(BLOCK_SIZE, BLOCK_SIZE))  # seed004.cu:16
    return kb.build()

KERNELS = {"multiply": multiply}

"""Seed 002: the naive float products matMul1 and matMul2 (no shared memory).

    __global__ void matMul1(float* d_C, float* d_A, float* d_B, int m, int n, int r) {
        int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;   // row of C
        int k = blockIdx.y * BLOCK_SIZE + threadIdx.y;   // column of C
        int cIdx = i*m + k;
        d_C[cIdx] = 0;
        for (int j = 0; j < n; j++)
            d_C[cIdx] += d_A[i*n + j] * d_B[j*r + k];    // a global read and write each step
    }

matMul2 accumulates in a register and writes d_C once. The seed's article uses square
matrices (m = n = r), where `cIdx = i*m + k` is row-major; the loop body, cut off in the
seed's text, is the textbook product it describes. Neither touches shared memory, so the
bank analysis has nothing to report; code generation, the GPU run and the interpreter
comparison still apply.
"""
from kernels_ir import KernelBuilder, blockIdx, f32, i32, threadIdx

BLOCK_SIZE = 16


def _signature(k):
    m, n, r = k.param("m"), k.param("n"), k.param("r")
    d_C = k.global_array("d_C", f32, m * r, intent="out")
    d_A = k.global_array("d_A", f32, m * n)
    d_B = k.global_array("d_B", f32, n * r)
    return m, n, r, d_C, d_A, d_B


def mat_mul1(size: int = 128):
    """Accumulates in global memory: d_C[cIdx] += ... at every step."""
    k = KernelBuilder("matMul1")
    m, n, r, d_C, d_A, d_B = _signature(k)
    i = k.let("i", blockIdx.x * BLOCK_SIZE + threadIdx.x, i32)
    kk = k.let("k", blockIdx.y * BLOCK_SIZE + threadIdx.y, i32)
    c_idx = k.let("cIdx", i * m + kk, i32)
    d_C[c_idx] = 0.0
    with k.range("j", 0, n) as j:
        d_C[c_idx] = d_C[c_idx] + d_A[i * n + j] * d_B[j * r + kk]
    k.launch(grid=(m // BLOCK_SIZE, r // BLOCK_SIZE), block=(BLOCK_SIZE, BLOCK_SIZE))
    k.defaults(m=size, n=size, r=size)
    return k.build()


def mat_mul2(size: int = 128):
    """Accumulates in a register, one write of d_C."""
    k = KernelBuilder("matMul2")
    m, n, r, d_C, d_A, d_B = _signature(k)
    i = k.let("i", blockIdx.x * BLOCK_SIZE + threadIdx.x, i32)
    kk = k.let("k", blockIdx.y * BLOCK_SIZE + threadIdx.y, i32)
    c_idx = k.let("cIdx", i * m + kk, i32)
    val = k.let("val", 0.0)
    with k.range("j", 0, n) as j:
        val += d_A[i * n + j] * d_B[j * r + kk]
    d_C[c_idx] = val
    k.launch(grid=(m // BLOCK_SIZE, r // BLOCK_SIZE), block=(BLOCK_SIZE, BLOCK_SIZE))
    k.defaults(m=size, n=size, r=size)
    return k.build()


KERNELS = {"matMul1": mat_mul1, "matMul2": mat_mul2}

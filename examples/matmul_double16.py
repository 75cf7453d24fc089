"""Seed 004's `double` 16x16 shared-tile matrix product (MATRIX_DIM 256).

    __global__ void multiply(const double *A_mat, const double *B_mat, double *C_mat) {
        __shared__ double A_shared[BLOCK_SIZE][BLOCK_SIZE], B_shared[BLOCK_SIZE][BLOCK_SIZE];
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        double temp = 0;
        for (int tileNUM = 0; tileNUM < MATRIX_DIM / BLOCK_SIZE; tileNUM++) {
            j = tileNUM * BLOCK_SIZE + threadIdx.x;
            i = tileNUM * BLOCK_SIZE + threadIdx.y;
            A_shared[threadIdx.y][threadIdx.x] = A_mat[row * MATRIX_DIM + j];
            B_shared[threadIdx.y][threadIdx.x] = B_mat[i * MATRIX_DIM + col];
            __syncthreads();
            for (int k = 0; k < BLOCK_SIZE; k++)
                temp += A_shared[threadIdx.y][k] * B_shared[k][threadIdx.x];
            __syncthreads();
        }
        C_mat[row * MATRIX_DIM + col] = temp;
    }

The seed claims the A_shared reads broadcast and the B_shared reads are consecutive, with no
bank conflict: each half-warp of 16 threads reads 16 doubles = 128 bytes.
"""
from kernels_ir import KernelBuilder, blockDim, blockIdx, f64, threadIdx

BLOCK_SIZE = 16


def multiply(dim: int = 256):
    """C = A x B for dim x dim doubles (dim a multiple of 16), one 16x16 tile per block."""
    k = KernelBuilder("multiply_double16")
    n = k.param("MATRIX_DIM")
    A = k.global_array("A_mat", f64, n * n)
    B = k.global_array("B_mat", f64, n * n)
    C = k.global_array("C_mat", f64, n * n, intent="out")
    A_shared = k.shared("A_shared", f64, (BLOCK_SIZE, BLOCK_SIZE))
    B_shared = k.shared("B_shared", f64, (BLOCK_SIZE, BLOCK_SIZE))
    tx, ty = threadIdx.x, threadIdx.y

    row = k.let("row", blockIdx.y * blockDim.y + ty, "i32")
    col = k.let("col", blockIdx.x * blockDim.x + tx, "i32")
    temp = k.let("temp", 0.0, f64)
    with k.range("tileNUM", 0, n // BLOCK_SIZE) as t:
        j = k.let("j", t * BLOCK_SIZE + tx, "i32")
        i = k.let("i", t * BLOCK_SIZE + ty, "i32")
        A_shared[ty, tx] = A[row * n + j]
        B_shared[ty, tx] = B[i * n + col]
        k.syncthreads()
        with k.range("k", 0, BLOCK_SIZE) as kk:
            temp += A_shared[ty, kk] * B_shared[kk, tx]
        k.syncthreads()
    C[row * n + col] = temp

    k.launch(grid=(n // BLOCK_SIZE, n // BLOCK_SIZE), block=(BLOCK_SIZE, BLOCK_SIZE))
    k.defaults(MATRIX_DIM=dim)
    return k.build()


KERNELS = {"multiply": multiply}

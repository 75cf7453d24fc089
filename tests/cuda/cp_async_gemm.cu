// A double-buffered SGEMM that copies its tiles with cp.async, written the two ways CUDA code
// does: inline PTX for A (cp.async.ca, 16 bytes), the __pipeline_* intrinsics for B (16
// bytes: cuda_pipeline_helpers.h emits cp.async.cg). The same kernel as
// examples/cp_async_gemm.py, except that B's copies bypass L1 (.cg) there.
#define TILE 16
#ifndef PAD
#define PAD 0
#endif
#include <cuda_pipeline.h>

__global__ void cp_async_gemm(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ __align__(16) float As[2][TILE][TILE + PAD];
    __shared__ __align__(16) float Bs[2][TILE][TILE + PAD];
    int tx = threadIdx.x, ty = threadIdx.y, bx = blockIdx.x, by = blockIdx.y;
    int t = ty * TILE + tx;
    int tiles = K / TILE;
    float acc = 0.0f;
    if (t < 64) {
        unsigned dst = __cvta_generic_to_shared(&As[0][t / 4][t % 4 * 4]);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n"
                     :: "r"(dst), "l"(&A[(by * TILE + t / 4) * K + t % 4 * 4]));
    } else if (t < 128) {
        int u = t - 64;
        __pipeline_memcpy_async(&Bs[0][u / 4][u % 4 * 4],
                                &B[(u / 4) * N + bx * TILE + u % 4 * 4], 16);
    }
    asm volatile("cp.async.commit_group;\n" ::);
    for (int kt = 0; kt < tiles; ++kt) {
        if (kt + 1 < tiles) {
            int s = (kt + 1) % 2;
            if (t < 64) {
                unsigned dst = __cvta_generic_to_shared(&As[s][t / 4][t % 4 * 4]);
                asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n"
                             :: "r"(dst), "l"(&A[(by * TILE + t / 4) * K + (kt + 1) * TILE + t % 4 * 4]),
                                "n"(16));
            } else if (t < 128) {
                int u = t - 64;
                __pipeline_memcpy_async(&Bs[s][u / 4][u % 4 * 4],
                                        &B[((kt + 1) * TILE + u / 4) * N + bx * TILE + u % 4 * 4], 16);
            }
            __pipeline_commit();
            asm volatile("cp.async.wait_group 1;\n" ::);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[kt % 2][ty][k] * Bs[kt % 2][k][tx];
        __syncthreads();
    }
    C[(by * TILE + ty) * N + bx * TILE + tx] = acc;
}

void run_gemm(const float *A, const float *B, float *C, int M, int N, int K) {
    cp_async_gemm<<<dim3(N / TILE, M / TILE), dim3(TILE, TILE)>>>(A, B, C, M, N, K);
}

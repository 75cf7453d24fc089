// The classic 32 x 32-tile shared-memory transpose, as CUDA code writes it (the README's
// first example: `smemsim analyze examples/transpose.cu`). PAD 0 reads a column of the
// tile: 32 lanes in one bank. Build with -DPAD=1 for the padded tile.
#include <cuda_runtime.h>

#define TILE 32
#ifndef PAD
#define PAD 0
#endif

__global__ void transpose(const float *src, float *dst, int n)
{
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = src[y * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    dst[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

void transpose_on_gpu(const float *src, float *dst)
{
    const int n = 256;
    dim3 grid(n / TILE, n / TILE), block(TILE, TILE);
    transpose<<<grid, block>>>(src, dst, n);
}

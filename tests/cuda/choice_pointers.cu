// smemsim test fixture, written for smemsim: pointers that select between two arrays, as
// NVIDIA's cudaTensorCoreGemm sample stages its tiles (`warp_ptr = (warpId < 4) ? &A[..] :
// &B[..]`: half the warps copy A, the others B, through one pointer; none of its code is
// copied here), and the smaller forms of the same idea.
#include <cuda_fp16.h>
#include <cstdlib>

// Eight warps: warps 0-3 stage 16 rows of A, warps 4-7 16 rows of B (halves, 64 a row),
// 16 bytes a lane through an int4 pointer chosen once and moved down the rows; then every
// thread writes the sum of one element of each tile.
__global__ void stage_two(const half *A, const half *B, float *out)
{
    __shared__ half tile[32][64 + 8];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const half *warp_ptr = (warp < 4) ? (&A[blockIdx.x * 64 * 16] + 64 * 4 * (warp % 4))
                                      : (&B[blockIdx.x * 64 * 16] + 64 * 4 * (warp % 4));
    int row = (warp < 4 ? 0 : 16) + 4 * (warp % 4) + lane / 8;
    int4 *lane_ptr = (int4 *)(warp_ptr + (lane / 8) * 64) + (lane % 8);
    *((int4 *)&tile[row][0] + (lane % 8)) = *lane_ptr;
    lane_ptr = (int4 *)((half *)lane_ptr + 64 * 4 * 0);
    __syncthreads();
    for (int i = threadIdx.x; i < 16 * 64; i += blockDim.x)
        out[blockIdx.x * 16 * 64 + i] = __half2float(tile[i / 64][i % 64]) +
                                        __half2float(tile[16 + i / 64][i % 64]);
}

// Scalars: a float pointer that selects by the block's parity, moved in a loop, read into
// shared memory and into a local, and written through.
__global__ void parity(const float *even, const float *odd, float *out, float *back)
{
    __shared__ float s[128];
    const float *p = (blockIdx.x % 2 == 0) ? even + blockIdx.x * 256 : odd + blockIdx.x * 256;
    float *w = (threadIdx.x < 64) ? back : out;
    float sum = 0.0f;
    for (int k = 0; k < 2; k++) {
        s[threadIdx.x] = p[threadIdx.x];
        float v = p[threadIdx.x ^ 1];
        __syncthreads();
        sum += s[(threadIdx.x * 2) % 128] + v;
        p += 128;
        __syncthreads();
    }
    w[blockIdx.x * 128 + threadIdx.x] = sum;
    w[blockIdx.x * 128 + threadIdx.x] += s[threadIdx.x];
}

// Each kernel once (or the one named by its number, for a profiler), inputs zeroed.
int main(int argc, char **argv)
{
    int only = argc > 1 ? atoi(argv[1]) : -1;
    half *A, *B;
    float *E, *O, *out, *back;
    cudaMalloc(&A, 4 * 1024 * sizeof(half));
    cudaMalloc(&B, 4 * 1024 * sizeof(half));
    cudaMalloc(&E, 4 * 256 * sizeof(float));
    cudaMalloc(&O, 4 * 256 * sizeof(float));
    cudaMalloc(&out, 4 * 1024 * sizeof(float));
    cudaMalloc(&back, 4 * 1024 * sizeof(float));
    cudaMemset(A, 0, 4 * 1024 * sizeof(half));
    cudaMemset(B, 0, 4 * 1024 * sizeof(half));
    cudaMemset(E, 0, 4 * 256 * sizeof(float));
    cudaMemset(O, 0, 4 * 256 * sizeof(float));
    if (only < 0 || only == 0)
        stage_two<<<4, 256>>>(A, B, out);
    if (only < 0 || only == 1)
        parity<<<4, 128>>>(E, O, out, back);
    cudaDeviceSynchronize();
    return 0;
}

// smemsim test fixture (written here): a whole-grid sum in one cooperative launch, as
// cuda-samples' reductionMultiBlockCG writes it: each block reduces its grid-stride share in
// shared memory, grid.sync(), then block 0 reduces the blocks' partial sums. Launched with
// cudaLaunchCooperativeKernel and its void *args[].
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 128

__device__ void reduceBlock(float *s, cg::thread_block cta)
{
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        cg::sync(cta);
    }
}

__global__ void sumAll(const float *in, float *partial, float *out, int n)
{
    cg::thread_block cta  = cg::this_thread_block();
    cg::grid_group   grid = cg::this_grid();
    __shared__ float s[THREADS];

    float v = 0.0f;
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        v += in[i];
    s[threadIdx.x] = v;
    cg::sync(cta);
    reduceBlock(s, cta);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s[0];

    grid.sync();

    if (blockIdx.x == 0) {
        s[threadIdx.x] = threadIdx.x < gridDim.x ? partial[threadIdx.x] : 0.0f;
        cg::sync(cta);
        reduceBlock(s, cta);
        if (threadIdx.x == 0)
            out[0] = s[0];
    }
}

int main()
{
    const int n = 1 << 16, blocks = 64;
    float *d_in, *d_partial, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMalloc(&d_out, sizeof(float));
    int size = n;
    void *kernelArgs[] = {(void *)&d_in, (void *)&d_partial, (void *)&d_out, (void *)&size};
    dim3 dimGrid(blocks), dimBlock(THREADS);
    cudaLaunchCooperativeKernel((void *)sumAll, dimGrid, dimBlock, kernelArgs, 0, NULL);
    cudaDeviceSynchronize();
    return 0;
}

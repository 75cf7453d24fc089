// A shared-memory histogram with a warp shuffle: atomics and shuffles through the importer.
#define BINS 256
__global__ void histogram(const unsigned char* data, unsigned int* hist, int n)
{
    __shared__ unsigned int local[BINS];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    unsigned int v = local[threadIdx.x];
    unsigned int total = v + __shfl_down_sync(0xffffffff, v, 16);
    atomicAdd(&hist[threadIdx.x], total);
}

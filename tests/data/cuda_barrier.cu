// smemsim test: libcu++'s cuda::barrier with memcpy_async of 4- and 16-byte pieces
#include <cuda/barrier>
__global__ void stage(const float *a, const float4 *b, float *out)
{
    __shared__ float sa[128];
    __shared__ float4 sb[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    int i = blockIdx.x * 128 + threadIdx.x;
    cuda::memcpy_async(&sa[threadIdx.x], &a[i], cuda::aligned_size_t<4>(4), bar);
    cuda::memcpy_async(&sb[threadIdx.x], &b[i], cuda::aligned_size_t<16>(16), bar);
    bar.arrive_and_wait();
    float4 v = sb[127 - threadIdx.x];
    out[i] = sa[127 - threadIdx.x] + v.x + v.w;
    auto t = bar.arrive();
    bar.wait(std::move(t));
}
void go(const float *a, const float4 *b, float *out) { stage<<<2, 128>>>(a, b, out); }

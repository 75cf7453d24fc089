// smemsim test: texture fetches as global reads (two texture objects: CUDA 12 removed the
// file-scope texture references), an initialized __constant__ table and a file-scope
// __shared__ array.
#include <cuda_runtime.h>

__constant__ float weights[] = {0.5f, 1.0f, 2.0f};
__shared__ float staged[64];

__global__ void sample(float* out, int n, cudaTextureObject_t img, cudaTextureObject_t ramp)
{
    int t = threadIdx.x;
    // 2-D: texel (floor(x), floor(y)), clamped to the 8 x 4 texels the host allocated
    staged[t] = tex2D<float>(img, (float)(t % 16) - 4.0f + 0.5f, (float)(t / 16) + 0.5f);
    __syncthreads();
    // 1-D: texel i, 0 outside 0..n-1
    out[t] = staged[63 - t] * weights[t % 3] + tex1Dfetch<float>(ramp, t - 2);
}

void host(float* out, cudaTextureObject_t img, cudaTextureObject_t ramp)
{
    sample<<<1, 64>>>(out, 40, img, ramp);
}

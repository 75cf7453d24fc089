// smemsim test kernel (written for smemsim): a tensor map over an array the kernel also
// takes as a pointer, passed by value before it; tokens from arrive and arrive_tx.
#include <cuda.h>
#include <cuda/barrier>
using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;
__global__ void k(const __grid_constant__ CUtensorMap map, float* A, float* out) {
    __shared__ alignas(128) float tile[32 * 32];
    __shared__ barrier bar;
    if (threadIdx.x == 0) { init(&bar, blockDim.x); cde::fence_proxy_async_shared_cta(); }
    __syncthreads();
    barrier::arrival_token t;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(tile, &map, 0, blockIdx.x * 32, bar);
        t = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        t = bar.arrive();
    }
    bar.wait(std::move(t));
    out[blockIdx.x * 1024 + threadIdx.x] = tile[threadIdx.x] + A[threadIdx.x];
}

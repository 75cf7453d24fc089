// smemsim test: libcu++'s cuda::memcpy_async completing on a cuda::barrier, as
// siboehm's SGEMM kernel 12 uses it: 4-byte pieces (cp.async + cp.async.mbarrier.arrive) and
// 16-byte pieces (sm_90: cp.async.bulk + mbarrier.expect_tx), two barriers a pointer swaps.
// -DEARLY reads the tile before waiting; -DCOPY16_PLAIN copies 16 bytes promising only 4.
#include <cooperative_groups.h>
#include <cuda/barrier>

__global__ void stage(const float* in, float* out, int tiles)
{
    auto block = cooperative_groups::this_thread_block();
    __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> front;
    __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> back;
    __shared__ float tile[2][256];
    auto frontPtr = &front;
    auto backPtr = &back;
    if (block.thread_rank() == 0) {
        init(&front, block.size());
        init(&back, block.size());
    }
    __syncthreads();
    int t = threadIdx.x;
    int cur = 0;
    cuda::memcpy_async(&tile[cur][t], &in[t], cuda::aligned_size_t<4>(sizeof(float)), *frontPtr);
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles && t < 64) {
#ifdef COPY16_PLAIN
            cuda::memcpy_async(&tile[1 - cur][4 * t], &in[(k + 1) * 256 + 4 * t],
                               4 * sizeof(float), *backPtr);
#else
            cuda::memcpy_async(&tile[1 - cur][4 * t], &in[(k + 1) * 256 + 4 * t],
                               cuda::aligned_size_t<16>(4 * sizeof(float)), *backPtr);
#endif
        }
#ifdef EARLY
        out[(blockIdx.x * tiles + k) * 256 + t] = tile[cur][(t + 1) % 256];
        (*frontPtr).arrive_and_wait();
#else
        (*frontPtr).arrive_and_wait();
        out[(blockIdx.x * tiles + k) * 256 + t] = tile[cur][(t + 1) % 256];
#endif
        cur = 1 - cur;
        auto tmp = frontPtr;
        frontPtr = backPtr;
        backPtr = tmp;
        __syncthreads();
    }
}

void host(const float* in, float* out) { stage<<<2, 256>>>(in, out, 4); }

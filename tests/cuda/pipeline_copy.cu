// smemsim test fixture, written for smemsim: a thread's own cuda::pipeline double-buffering
// tiles into shared memory, as NVIDIA's bf16/tf32TensorCoreGemm samples stage theirs
// (producer_acquire, memcpy_async of an aligned_size_t<16>, producer_commit,
// pipeline_consumer_wait_prior<N>, consumer_release). -D WAIT_PRIOR=2 waits for too little:
// a tile is read while its copy may still be in flight. ring_sum keeps AHEAD tiles in flight
// through a ring of STAGES buffers and takes the oldest with consumer_wait(), as NVIDIA's
// globalToShmemAsyncCopy sample does; -D AHEAD=4 (one more than the buffers) copies into a
// buffer whose copy is still in flight, the sample's own mistake. shared_ring_sum: a block's
// pipeline (pipeline_shared_state), one producer warp filling the ring for eight consumer
// warps, as the sample's MultiStageSharedState kernel partitions its block.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cstdlib>
#ifndef WAIT_PRIOR
#define WAIT_PRIOR 1
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef AHEAD
#define AHEAD STAGES
#endif

// Each block sums `tiles` tiles of 1024 floats, one element of another thread's piece a
// tile per thread; tile t + 1 is in flight while tile t is read.
__global__ void piped_sum(const float *in, float *out, int tiles)
{
    __shared__ float buf[2][1024];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const auto piece = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));
    const float *src = in + blockIdx.x * tiles * 1024;
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[0][threadIdx.x * 4], src + threadIdx.x * 4, piece, pipe);
    pipe.producer_commit();
    float sum = 0.0f;
    for (int t = 0; t < tiles; t++) {
        if (t + 1 < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[(t + 1) % 2][threadIdx.x * 4],
                               src + (t + 1) * 1024 + threadIdx.x * 4, piece, pipe);
            pipe.producer_commit();
            cuda::pipeline_consumer_wait_prior<WAIT_PRIOR>(pipe);
        } else {
            cuda::pipeline_consumer_wait_prior<0>(pipe);
        }
        __syncthreads();
        sum += buf[t % 2][(threadIdx.x * 5) % 1024];
        pipe.consumer_release();
        __syncthreads();
    }
    out[blockIdx.x * 256 + threadIdx.x] = sum;
}

// The same sums through a ring: tile t is read from buffer t % STAGES once consumer_wait()
// has waited for its stage, the oldest not yet waited for.
__global__ void ring_sum(const float *in, float *out, int tiles)
{
    __shared__ float ring[STAGES][1024];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const auto piece = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));
    const float *src = in + blockIdx.x * tiles * 1024;
    float sum = 0.0f;
    int next = 0;
    for (int t = 0; t < tiles; t++) {
        for (; next < tiles && next < t + AHEAD; next++) {
            pipe.producer_acquire();
            cuda::memcpy_async(&ring[next % STAGES][threadIdx.x * 4],
                               src + next * 1024 + threadIdx.x * 4, piece, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        __syncthreads();
        sum += ring[t % STAGES][(threadIdx.x * 5) % 1024];
        pipe.consumer_release();
        __syncthreads();
    }
    out[blockIdx.x * 256 + threadIdx.x] = sum;
}

// The same sums, the ring filled by warp 8 for warps 0-7 through a block's pipeline: the
// producer acquires a stage (its consumers released it), copies and commits; the consumers
// wait for the stage, read and release it.
__global__ void shared_ring_sum(const float *in, float *out, int tiles)
{
    __shared__ float ring[STAGES][1024];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cooperative_groups::this_thread_block();
    const auto role = threadIdx.x >= 256 ? cuda::pipeline_role::producer
                                         : cuda::pipeline_role::consumer;
    auto pipe = cuda::make_pipeline(block, &state, role);
    const float *src = in + blockIdx.x * tiles * 1024;
    float sum = 0.0f;
    for (int t = 0; t < tiles; t++) {
        if (threadIdx.x >= 256) {
            pipe.producer_acquire();
            for (int i = threadIdx.x - 256; i < 256; i += 32)
                cuda::memcpy_async(&ring[t % STAGES][i * 4], src + t * 1024 + i * 4,
                                   cuda::aligned_size_t<16>(16), pipe);
            pipe.producer_commit();
        } else {
            pipe.consumer_wait();
            sum += ring[t % STAGES][(threadIdx.x * 5) % 1024];
            pipe.consumer_release();
        }
    }
    if (threadIdx.x < 256)
        out[blockIdx.x * 256 + threadIdx.x] = sum;
}

int main(int argc, char **argv)
{
    const int blocks = 4, tiles = 3, ring_tiles = 7;
    float *in, *out;
    cudaMalloc(&in, blocks * ring_tiles * 1024 * sizeof(float));
    cudaMalloc(&out, blocks * 256 * sizeof(float));
    cudaMemset(in, 0, blocks * ring_tiles * 1024 * sizeof(float));
    piped_sum<<<blocks, 256>>>(in, out, tiles);
    ring_sum<<<blocks, 256>>>(in, out, ring_tiles);
    shared_ring_sum<<<blocks, 288>>>(in, out, ring_tiles);
    cudaDeviceSynchronize();
    return 0;
}

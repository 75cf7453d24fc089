// smemsim test fixture, written for smemsim: cooperative groups' memcpy_async, as the CUDA
// C++ Programming Guide introduces asynchronous copies (a block copies a batch into shared
// memory, cg::wait(block), then reads it), and by warp tiles with cuda::aligned_size_t<16>
// (each warp copies a 40-float row: ten 16-byte pieces, so lanes 9-31 all copy the tenth),
// double-buffered with cg::wait_prior<1>. -D NO_WAIT reads the block's batch without waiting.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

// Each block copies `batches` batches of blockDim.x floats and sums one of another thread's
// elements of each.
__global__ void block_batches(const float *in, float *out, int batches)
{
    __shared__ float batch[256];
    auto block = cg::this_thread_block();
    float sum = 0.0f;
    for (int b = 0; b < batches; b++) {
        const float *src = in + (blockIdx.x * batches + b) * block.size();
        cg::memcpy_async(block, batch, src, sizeof(float) * block.size());
#ifndef NO_WAIT
        cg::wait(block);
#endif
        sum += batch[(block.thread_rank() * 7) % block.size()];
        block.sync();
    }
    out[blockIdx.x * block.size() + block.thread_rank()] = sum;
}

// Each warp copies rows of 40 floats into its own two buffers, one row ahead.
__global__ void warp_rows(const float *in, float *out, int rows)
{
    __shared__ alignas(16) float row[8][2][40];
    auto block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    const int w = warp.meta_group_rank();
    const float *src = in + (blockIdx.x * 8 + w) * rows * 40;
    cg::memcpy_async(warp, &row[w][0][0], src, cuda::aligned_size_t<16>(sizeof(float) * 40));
    float sum = 0.0f;
    for (int r = 0; r < rows; r++) {
        if (r + 1 < rows) {
            cg::memcpy_async(warp, &row[w][(r + 1) % 2][0], src + (r + 1) * 40,
                             cuda::aligned_size_t<16>(sizeof(float) * 40));
            cg::wait_prior<1>(warp);
        } else {
            cg::wait(warp);
        }
        sum += row[w][r % 2][warp.thread_rank()] + row[w][r % 2][39 - warp.thread_rank() % 8];
        warp.sync();
    }
    out[(blockIdx.x * 8 + w) * 32 + warp.thread_rank()] = sum;
}

int main(int argc, char **argv)
{
    const int blocks = 4, batches = 3, rows = 5;
    float *in, *out;
    cudaMalloc(&in, blocks * 8 * rows * 40 * sizeof(float));
    cudaMalloc(&out, blocks * 256 * sizeof(float));
    cudaMemset(in, 0, blocks * 8 * rows * 40 * sizeof(float));
    block_batches<<<blocks, 256>>>(in, out, batches);
    warp_rows<<<blocks, 256>>>(in, out, rows);
    cudaDeviceSynchronize();
    return 0;
}

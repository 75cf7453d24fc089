// smemsim test fixture, written for smemsim: CUDA's integer bit intrinsics (a histogram of
// population counts in shared memory, indexed by __popc of the data), a double atomicAdd
// on shared memory (the CAS loop nvcc emits for it on sm_90: LDS.64 + ATOMS.CAST.SPIN.64),
// a device function whose name starts with two underscores, and the warp votes (a
// stream compaction by __ballot_sync and __popc, a tile of 16's any and ballot).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ unsigned __lowest_bit(unsigned x) {
    if (x == 0) return 0;
    unsigned minus = ~x + 1u;
    return x & minus;
}

__global__ void bits(const unsigned* in, int* out, unsigned* rev) {
    __shared__ int hist[33];
    int t = threadIdx.x;
    if (t < 33) hist[t] = 0;
    __syncthreads();
    unsigned x = in[blockIdx.x * blockDim.x + t];
    atomicAdd(&hist[__popc(x)], 1);
    out[blockIdx.x * blockDim.x + t] = __clz(x) * 100 + __ffs(x) +
                                       __popcll((unsigned long long)x << 7) * 10000;
    rev[blockIdx.x * blockDim.x + t] = __brev(x) ^ __lowest_bit(x);
    __syncthreads();
    if (t < 33) out[4096 + blockIdx.x * 33 + t] = hist[t];
}

__global__ void sum_rows(const double* in, double* out) {
    __shared__ double row[8];
    if (threadIdx.x < 8) row[threadIdx.x] = 0.0;
    __syncthreads();
    atomicAdd(&row[threadIdx.x % 8], in[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x < 8) atomicAdd(&out[threadIdx.x], row[threadIdx.x]);
}

__global__ void compact(const int* in, int* out, int* count) {
    __shared__ int warp_base[8];
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int v = in[blockIdx.x * 256 + t];
    bool keep = v > 0;
    unsigned kept = __ballot_sync(0xffffffffu, keep);
    int rank = __popc(kept & ((1u << lane) - 1));
    if (lane == 0) warp_base[warp] = __popc(kept);
    __syncthreads();
    if (t == 0) {
        int sum = 0;
        for (int w = 0; w < 8; w++) {
            int c = warp_base[w];
            warp_base[w] = sum;
            sum += c;
        }
        count[blockIdx.x] = sum;
    }
    __syncthreads();
    if (keep) out[blockIdx.x * 256 + warp_base[warp] + rank] = v;
    cg::thread_block_tile<16> half = cg::tiled_partition<16>(cg::this_thread_block());
    int big = half.any(v > 90);
    int all = __all_sync(0xffffffffu, v > -100);
    out[4096 + blockIdx.x * 256 + t] = big * 2 + all + (int)(half.ballot(keep) & 0xff) * 4;
}

int main() {
    unsigned *a, *c;
    int* b;
    double *d, *e;
    cudaMalloc(&a, 4096 * sizeof(unsigned));
    cudaMalloc(&b, 8192 * sizeof(int));
    cudaMalloc(&c, 4096 * sizeof(unsigned));
    cudaMalloc(&d, 4096 * sizeof(double));
    cudaMalloc(&e, 8 * sizeof(double));
    // inputs every byte of which is set (a CAS loop adding 0 changes no word, and then
    // takes fewer passes than one adding a value: docs/hardware-rules.md)
    cudaMemset(a, 0x5A, 4096 * sizeof(unsigned));
    cudaMemset(d, 0x3F, 4096 * sizeof(double));
    cudaMemset(b, 0, 8192 * sizeof(int));
    cudaMemset(e, 0, 8 * sizeof(double));
    bits<<<16, 256>>>(a, b, c);
    sum_rows<<<16, 256>>>(d, e);
    compact<<<16, 256>>>((const int*)a, b, (int*)c);
    return 0;
}

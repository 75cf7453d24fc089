// smemsim test fixture, written for smemsim: the 16-bit float idioms of tensor-core teaching
// code (LeetCUDA's hgemm, block_all_reduce and mma kernels write them this way; that
// repository is GPL-3.0, so none of its code is copied here): vector copies of halves
// through float4/half2 casts (of inputs that are not const: nvcc refuses the cast of a const
// pointer), register packs, half arithmetic intrinsics, a zero initializer of halves, C++
// functional casts, and ldmatrix of a half tile with its qualifiers in LeetCUDA's order.
#include <cuda_fp16.h>
#include <cstdint>

#define HALF2(value) (reinterpret_cast<half2 *>(&(value))[0])
#define LDST128BITS(value) (reinterpret_cast<float4 *>(&(value))[0])
#define LDMATRIX_X4(R0, R1, R2, R3, addr)                                      \
  asm volatile(                                                                \
      "ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n"     \
      : "=r"(R0), "=r"(R1), "=r"(R2), "=r"(R3)                                 \
      : "r"(addr))

// Each block stages a 16 x 64 tile of halves (8 per lane, one 16-byte copy each) and a
// 16 x 64 copy of it by half2, then writes each row's pairwise sums back.
__global__ void stage_tile(half *a, half *out)
{
    __shared__ half s_a[16][64];
    __shared__ half s_b[16][64];
    int tid = threadIdx.x;                  // 128 threads
    int row = tid / 8, col = (tid % 8) * 8;
    int g = blockIdx.x * 16 * 64 + row * 64 + col;
    LDST128BITS(s_a[row][col]) = LDST128BITS(a[g]);
    for (int k = 0; k < 8; k += 2)
        HALF2(s_b[row][col + k]) = HALF2(a[g + k]);
    __syncthreads();
    half pack[8];
    LDST128BITS(pack[0]) = LDST128BITS(s_a[row][col]);
    for (int k = 0; k < 8; k++)
        pack[k] = __hadd(pack[k], s_b[row][int(col + k)]);
    LDST128BITS(out[g]) = LDST128BITS(pack[0]);
}

template <const int kWarpSize = 32>
__device__ __forceinline__ half warp_sum(half val)
{
#pragma unroll
    for (int mask = kWarpSize >> 1; mask >= 1; mask >>= 1)
        val = __hadd(val, __shfl_xor_sync(0xffffffff, val, mask));
    return val;
}

// A block's sum of its 256 halves, in half arithmetic as the GPU does it.
__global__ void block_sum(half *x, half *y)
{
    __shared__ half partial[8];
    half acc[2][2] = {__float2half(0.0f)};
    int tid = threadIdx.x;
    acc[0][0] = __hfma(x[blockIdx.x * 256 + tid], __float2half(2.0f), acc[0][0]);
    half sum = warp_sum<32>(acc[0][0]);
    if (tid % 32 == 0)
        partial[tid / 32] = sum;
    __syncthreads();
    if (tid < 32) {
        half v = tid < 8 ? partial[tid] : __int2half_rn(0);
        v = warp_sum<8>(v);
        if (tid == 0)
            y[blockIdx.x] = __hmax(v, __hneg(v));
    }
}

// ldmatrix.x4 of a 16 x 16 half tile: each lane's four 32-bit registers, written out.
__global__ void tile_fragments(half *a, uint32_t *frag)
{
    __shared__ half s_t[16][16];
    int lane = threadIdx.x;                 // one warp
    for (int i = lane; i < 256; i += 32)
        s_t[i / 16][i % 16] = a[i];
    __syncwarp();
    uint32_t r[4];
    uint32_t addr = __cvta_generic_to_shared(&s_t[lane % 16][(lane / 16) * 8]);
    LDMATRIX_X4(r[0], r[1], r[2], r[3], addr);
    for (int j = 0; j < 4; j++)
        frag[lane * 4 + j] = r[j];
}

// Eight halves of a shared row read as the bits of a uint4 (one LDS.128), written out.
__global__ void half_bits(half *a, uint32_t *frag)
{
    __shared__ half s_h[256];
    for (int i = threadIdx.x; i < 256; i += 32)
        s_h[i] = a[i];
    __syncwarp();
    uint4 v = *reinterpret_cast<uint4 *>(&s_h[threadIdx.x * 8]);
    frag[threadIdx.x * 4 + 0] = v.x;
    frag[threadIdx.x * 4 + 1] = v.y;
    frag[threadIdx.x * 4 + 2] = v.z;
    frag[threadIdx.x * 4 + 3] = v.w;
}

// One m16n8k16 tile on the tensor cores: A (16 x 16, row-major) by ldmatrix.x4, B (16 x 8,
// k-major rows) by ldmatrix.x2.trans, D = A x B into floats and into halves.
__global__ void mma_tile(half *a, half *b, float *c32, half *c16)
{
    __shared__ half s_a[16][16];
    __shared__ half s_b[16][8];
    int lane = threadIdx.x;                 // one warp
    for (int i = lane; i < 256; i += 32)
        s_a[i / 16][i % 16] = a[i];
    for (int i = lane; i < 128; i += 32)
        s_b[i / 8][i % 8] = b[i];
    __syncwarp();
    uint32_t ra[4], rb[2];
    uint32_t pa = __cvta_generic_to_shared(&s_a[lane % 16][(lane / 16) * 8]);
    LDMATRIX_X4(ra[0], ra[1], ra[2], ra[3], pa);
    uint32_t pb = __cvta_generic_to_shared(&s_b[lane % 16][0]);
    asm volatile("ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(rb[0]), "=r"(rb[1]) : "r"(pb));
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]));
    int g = lane / 4, t = lane % 4;
    c32[g * 8 + 2 * t] = d[0];
    c32[g * 8 + 2 * t + 1] = d[1];
    c32[(g + 8) * 8 + 2 * t] = d[2];
    c32[(g + 8) * 8 + 2 * t + 1] = d[3];
    uint32_t h[2] = {0, 0};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, "
                 "{%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n"
                 : "=r"(h[0]), "=r"(h[1])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "r"(h[0]), "r"(h[1]));
    HALF2(c16[g * 8 + 2 * t]) = HALF2(h[0]);
    HALF2(c16[(g + 8) * 8 + 2 * t]) = HALF2(h[1]);
}

// Pairs of halves: a dot product by __hmul2 and __half22float2, and a pair rounded back.
__global__ void pair_dot(half *a, half *b, float *c32, half *out)
{
    __shared__ float part[32];
    int i = threadIdx.x * 2;
    half2 v = __hmul2(HALF2(a[i]), HALF2(b[i]));
    float2 f = __half22float2(v);
    part[threadIdx.x] = f.x + f.y;
    HALF2(out[i]) = __floats2half2_rn(__low2float(v) + 1.0f, __high2float(v) * 2.0f);
    __syncwarp();
    if (threadIdx.x == 0) {
        float s = 0.f;
        for (int k = 0; k < 32; k++)
            s += part[k];
        c32[0] = s;
    }
}

int main()
{
    half *a, *out, *y;
    uint32_t *frag;
    cudaMalloc(&a, 4 * 16 * 64 * sizeof(half));
    cudaMalloc(&out, 4 * 16 * 64 * sizeof(half));
    cudaMalloc(&y, 4 * sizeof(half));
    cudaMalloc(&frag, 128 * sizeof(uint32_t));
    stage_tile<<<4, 128>>>(a, out);
    block_sum<<<4, 256>>>(a, y);
    tile_fragments<<<1, 32>>>(a, frag);
    half_bits<<<1, 32>>>(a, frag);
    float *c32;
    cudaMalloc(&c32, 128 * sizeof(float));
    mma_tile<<<1, 32>>>(a, out, c32, y);
    pair_dot<<<1, 32>>>(a, out, c32, y);
    return 0;
}

// smemsim test kernel (written for smemsim, not copied): one 64 x 64 tile of C = A B^T per
// block, K in chunks of 64. TMA brings A and B (f16, K-major) through 128B-swizzling tensor
// maps passed by value (__grid_constant__), a cuda::barrier counts the bytes, one warpgroup
// runs wgmma.m64n64k16 with descriptors its helper builds, scale-d as CUTLASS passes it (a
// predicate set from a register). -D FORGET_SWIZZLE leaves the swizzle out of the
// descriptors; -D BASE_OFFSET=1 sets A's base offset: check names both.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_fp16.h>

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

#ifndef BASE_OFFSET
#define BASE_OFFSET 0
#endif

__device__ uint64_t tile_desc(half* tile, int base_offset) {
    uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    uint64_t desc = (addr & 0x3FFFF) >> 4;      // start address
    desc |= (uint64_t)(16 >> 4) << 16;          // LBO (unused when swizzled)
    desc |= (uint64_t)(1024 >> 4) << 32;        // SBO: eight 128-byte rows
    desc |= (uint64_t)base_offset << 49;
#ifndef FORGET_SWIZZLE
    desc |= 1ull << 62;                         // SWIZZLE_128B
#endif
    return desc;
}

__device__ void mma_m64n64k16(float acc[32], uint64_t da, uint64_t db, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]),
          "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]),
          "+f"(acc[11]), "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]),
          "+f"(acc[16]), "+f"(acc[17]), "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]),
          "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]), "+f"(acc[24]), "+f"(acc[25]),
          "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]), "+f"(acc[30]),
          "+f"(acc[31])
        : "l"(da), "l"(db), "r"(accumulate));
}

__global__ void wgmma_tile(int M, int N, int K, float* C,
                           const __grid_constant__ CUtensorMap mapA,
                           const __grid_constant__ CUtensorMap mapB) {
    __shared__ alignas(1024) half sA[64 * 64];
    __shared__ alignas(1024) half sB[64 * 64];
    __shared__ barrier bar;
    float acc[32];
    int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    for (int kc = 0; kc < K / 64; ++kc) {
        barrier::arrival_token token;
        if (threadIdx.x == 0) {
            cde::cp_async_bulk_tensor_2d_global_to_shared(sA, &mapA, kc * 64, m0, bar);
            cde::cp_async_bulk_tensor_2d_global_to_shared(sB, &mapB, kc * 64, n0, bar);
            token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(sA) + sizeof(sB));
        } else {
            token = bar.arrive();
        }
        bar.wait(std::move(token));
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        for (int kk = 0; kk < 4; ++kk)
            mma_m64n64k16(acc, tile_desc(&sA[kk * 16], BASE_OFFSET), tile_desc(&sB[kk * 16], 0),
                          kc + kk > 0);
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(0) : "memory");
        __syncthreads();   // every warp is done with the tiles before the next copy
    }
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int i = 0; i < 32; ++i) {
        int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
        int col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        C[(m0 + row) * N + n0 + col] = acc[i];
    }
}

void launch(int M, int N, int K, float* C, CUtensorMap mapA, CUtensorMap mapB) {
    wgmma_tile<<<dim3(N / 64, M / 64), 128>>>(M, N, K, C, mapA, mapB);
}

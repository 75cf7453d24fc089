// smemsim test kernel (written for smemsim, not copied): wgmma_tile.cu with raw PTX for the
// barrier and the copies, as hand-written Hopper kernels have it: mbarrier.init,
// arrive.expect_tx, arrive, the try_wait.parity loop, cp.async.bulk.tensor.2d with the map's
// generic address. One barrier, count 1 (thread 0's arrive.expect_tx); every thread waits on
// the K chunk's parity. -D FORGET_SWIZZLE and -D BASE_OFFSET=1 as in wgmma_tile.cu;
// -D SHORT_EXPECT announces A's bytes only (the phase never completes as expected).
#include <cuda.h>
#include <cuda_fp16.h>
#include <cstdint>

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


__device__ void bar_init(uint64_t* bar, int count) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(a), "r"(count));
}

__device__ void bar_expect(uint64_t* bar, uint32_t bytes) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n"
                 :: "r"(a), "r"(bytes) : "memory");
}

__device__ void bar_wait(uint64_t* bar, int parity) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
    asm volatile("{\n"
                 ".reg .pred P1;\n"
                 "LAB_WAIT:\n"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 P1, [%0], %1;\n"
                 "@P1 bra.uni DONE;\n"
                 "bra.uni LAB_WAIT;\n"
                 "DONE:\n"
                 "}\n" :: "r"(a), "r"(parity));
}

__device__ void tma_load(half* dst, const CUtensorMap* map, uint64_t* bar, int col, int row) {
    uint64_t m = reinterpret_cast<uint64_t>(map);
    uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
    uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];"
                 :: "r"(d), "l"(m), "r"(b), "r"(col), "r"(row) : "memory");
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

__global__ void wgmma_tile_ptx(int M, int N, int K, float* C,
                           const __grid_constant__ CUtensorMap mapA,
                           const __grid_constant__ CUtensorMap mapB) {
    __shared__ alignas(1024) half sA[64 * 64];
    __shared__ alignas(1024) half sB[64 * 64];
    __shared__ uint64_t bar;
    float acc[32];
    int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    if (threadIdx.x == 0) {
        bar_init(&bar, 1);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    for (int kc = 0; kc < K / 64; ++kc) {
        if (threadIdx.x == 0) {
#ifdef SHORT_EXPECT
            bar_expect(&bar, sizeof(sA));   // the mistake: B's bytes not announced
#else
            bar_expect(&bar, sizeof(sA) + sizeof(sB));
#endif
            tma_load(sA, &mapA, &bar, kc * 64, m0);
            tma_load(sB, &mapB, &bar, kc * 64, n0);
        }
        bar_wait(&bar, kc % 2);
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
    wgmma_tile_ptx<<<dim3(N / 64, M / 64), 128>>>(M, N, K, C, mapA, mapB);
}

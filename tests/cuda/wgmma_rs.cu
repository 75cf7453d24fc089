// smemsim test kernel (written for smemsim, not copied): wgmma with A from registers, as
// attention kernels issue their second product. One warpgroup: each thread packs its
// fragment of A (64 x 16 halves, row-major in global memory) into four 32-bit registers,
// B (64 x 16, K-major) is stored to shared memory in 8 x 16-byte core matrices (no
// swizzle: LBO 128 bytes between the two core matrices along K, SBO 256 bytes between
// groups of 8 rows), and C = A B^T is written out from the accumulators.
#include <cuda_fp16.h>
#include <cstdint>

__device__ uint64_t core_matrix_desc(half* tile) {
    uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    uint64_t desc = (addr & 0x3FFFF) >> 4;      // start address
    desc |= (uint64_t)(128 >> 4) << 16;         // LBO: the next 8 columns of K
    desc |= (uint64_t)(256 >> 4) << 32;         // SBO: the next 8 rows
    return desc;                                // no swizzle
}

__device__ void mma_rs_m64n64k16(float acc[32], uint32_t a[4], uint64_t db, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]),
          "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]),
          "+f"(acc[11]), "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]), "+f"(acc[15]),
          "+f"(acc[16]), "+f"(acc[17]), "+f"(acc[18]), "+f"(acc[19]), "+f"(acc[20]),
          "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]), "+f"(acc[24]), "+f"(acc[25]),
          "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]), "+f"(acc[30]),
          "+f"(acc[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
}

__global__ void wgmma_rs(const half* A, const half* B, float* C) {
    __shared__ alignas(128) half sB[64 * 16];
    int t = threadIdx.x;
    for (int i = t; i < 64 * 16; i += 128) {
        int r = i / 16, k = i % 16;
        sB[(r / 8) * 128 + (k / 8) * 64 + (r % 8) * 8 + k % 8] = B[i];
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    uint32_t a[4];
    for (int r = 0; r < 4; ++r) {
        int row = 16 * (t / 32) + (t % 32) / 4 + 8 * (r % 2);
        int col = 2 * (t % 4) + 8 * (r / 2);
        a[r] = *reinterpret_cast<const uint32_t*>(&A[row * 16 + col]);
    }
    float acc[32];
    for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    mma_rs_m64n64k16(acc, a, core_matrix_desc(sB), 0);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(0) : "memory");
    int warp = t / 32, lane = t % 32;
    for (int i = 0; i < 32; ++i) {
        int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
        int col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        C[row * 64 + col] = acc[i];
    }
}

int main() {
    half *A, *B;
    float* C;
    cudaMalloc(&A, 64 * 16 * sizeof(half));
    cudaMalloc(&B, 64 * 16 * sizeof(half));
    cudaMalloc(&C, 64 * 64 * sizeof(float));
    cudaMemset(A, 0x3C, 64 * 16 * sizeof(half));   // 0x3C3C: 1.0586 in every element
    cudaMemset(B, 0x3C, 64 * 16 * sizeof(half));
    wgmma_rs<<<1, 128>>>(A, B, C);
    return 0;
}

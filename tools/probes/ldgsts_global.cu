// A probe, not part of the library: build with nvcc -arch=sm_90 -O3 and profile with ncu
// (the metrics and results: docs/validation/h100-2026-11-24-memcpy-async-ldgsts.json).
// LDGSTS wavefronts vs the global source's pattern: one warp, 64 cp.async.ca 4-byte copies
// per launch; shared destination `dst(lane)`, global source `src(lane)` in floats.
#include <cstdio>
#include <cuda_runtime.h>
template <int CASE>
__device__ __forceinline__ int src_of(int lane) {
    if (CASE == 0) return lane;                   // contiguous
    if (CASE == 1) return lane * 2;               // 8 B apart
    if (CASE == 2) return lane * 8;               // 32 B apart: a sector each
    if (CASE == 3) return lane * 32;              // 128 B apart: a line each
    if (CASE == 4) return lane * 1024;            // 4 KB apart
    if (CASE == 5) return (lane / 4) * 1024 + (lane % 4) * 4;   // SGEMM 12: 8 rows x 4 cols
    if (CASE == 6) return (lane / 8) * 1024 + (lane % 8);       // 4 rows of 8 contiguous
    if (CASE == 7) return (lane / 16) * 1024 + (lane % 16);     // 2 rows of 16 contiguous
    if (CASE == 8) return (lane % 4) * 1024 + (lane / 4);       // 4 rows, 8 words each
    return 0;
}
template <int CASE, int DST>
__global__ void probe(const float* in, float* out) {
    __shared__ float s[4096];
    int lane = threadIdx.x;
    // DST 0: contiguous words (1 wf by banks); DST 1: SGEMM 12's destination (4 wf)
    int d = DST == 0 ? lane : ((lane % 4) * 4) * 128 + lane / 4;
    for (int it = 0; it < 64; ++it) {
        unsigned sa = (unsigned)__cvta_generic_to_shared(&s[d]);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa), "l"(in + src_of<CASE>(lane) + it * 8192) : "memory");
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncwarp();
    out[lane] = s[d];
}
int main() {
    float *in, *out;
    cudaMalloc(&in, 64 * 8192 * 4 + 40 * 1024 * 4);
    cudaMalloc(&out, 32 * 4);
    cudaMemset(in, 0, 64 * 8192 * 4 + 40 * 1024 * 4);
#define RUN(C) probe<C, 0><<<1, 32>>>(in, out); probe<C, 1><<<1, 32>>>(in, out);
    RUN(0) RUN(1) RUN(2) RUN(3) RUN(4) RUN(5) RUN(6) RUN(7) RUN(8)
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(e));
    return 0;
}

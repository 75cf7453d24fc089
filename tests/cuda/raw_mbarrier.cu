// smemsim test kernel (written for smemsim): raw-PTX mbarrier helpers as hand-written kernels
// have them (an arrive whose count defaults to 1), a producer warp and a consumer warp.
#include <cstdint>
__device__ void arrive(uint64_t* bar, uint32_t count = 1) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], %1;\n" :: "r"(a), "r"(count) : "memory");
}
__device__ void init(uint64_t* bar, int n) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(a), "r"(n));
}
__device__ void wait(uint64_t* bar, int parity) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
    asm volatile("{\n.reg .pred P1;\nLAB_WAIT:\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n@P1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n" :: "r"(a), "r"(parity));
}
__global__ void k(float* out) {
    __shared__ uint64_t bars[2];
    __shared__ float v[64];
    if (threadIdx.x == 0) { init(&bars[0], 32); init(&bars[1], 32); }
    __syncthreads();
    if (threadIdx.x < 32) {
        v[threadIdx.x] = threadIdx.x;
        arrive(&bars[0]);
    } else {
        wait(&bars[0], 0);
        out[threadIdx.x - 32] = v[threadIdx.x - 32] * 2;
    }
}

// smemsim test fixture, written for smemsim: every 8-bit float code decoded by cuda_fp8.h
// (E4M3 and E5M2) to a half, through shared memory, to compare the interpreter with the GPU.
#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <cstdio>

__global__ void fp8_decode(const __nv_fp8_storage_t *codes, half *out)
{
    __shared__ half s[2][256];
    int i = threadIdx.x;                    // 256 threads: one code each
    __nv_fp8_storage_t zero = __nv_cvt_float_to_fp8(0.0f, __NV_SATFINITE, __NV_E4M3);
    s[0][i] = __nv_cvt_fp8_to_halfraw(codes[i], __NV_E4M3);
    s[1][i] = __nv_cvt_fp8_to_halfraw(codes[i] | zero, __NV_E5M2);
    __syncthreads();
    out[i] = s[0][i];
    out[256 + i] = s[1][255 - (255 - i)];
}

#define LDST128BITS(value) (reinterpret_cast<float4 *>(&(value))[0])

// A pack of 16 codes per lane loaded as one float4 (LeetCUDA's fp8 reductions), each
// decoded (E4M3) and summed in float, the lanes' sums through shared memory.
__global__ void fp8_pack_sum(__nv_fp8_storage_t *codes, float *sums)
{
    __shared__ float s[32];
    int idx = threadIdx.x * 16;             // 32 lanes x 16 codes
    __nv_fp8_storage_t pack[16];
    LDST128BITS(pack[0]) = LDST128BITS(codes[idx]);
    float sum = 0.0f;
    for (int i = 0; i < 16; i++)
        sum += __half2float(__nv_cvt_fp8_to_halfraw(pack[i], __NV_E4M3));
    s[threadIdx.x] = sum;
    __syncwarp();
    sums[threadIdx.x] = s[threadIdx.x ^ 1];
}

int main(int argc, char **argv)
{
    unsigned char codes[256];
    unsigned short got[512];
    for (int i = 0; i < 256; i++)
        codes[i] = (unsigned char)i;
    __nv_fp8_storage_t *c;
    half *out;
    cudaMalloc(&c, 512);                   // 256 codes, then 256 zeros for the packs
    cudaMemset(c, 0, 512);
    cudaMalloc(&out, 512 * sizeof(half));
    cudaMemcpy(c, codes, 256, cudaMemcpyHostToDevice);
    fp8_decode<<<1, 256>>>(c, out);
    float *sums;
    cudaMalloc(&sums, 32 * sizeof(float));
    fp8_pack_sum<<<1, 32>>>(c, sums);
    cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        fwrite(got, sizeof(unsigned short), 512, f);
        fclose(f);
    }
    return cudaGetLastError() != cudaSuccess;
}

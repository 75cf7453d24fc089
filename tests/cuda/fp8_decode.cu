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

int main(int argc, char **argv)
{
    unsigned char codes[256];
    unsigned short got[512];
    for (int i = 0; i < 256; i++)
        codes[i] = (unsigned char)i;
    __nv_fp8_storage_t *c;
    half *out;
    cudaMalloc(&c, 256);
    cudaMalloc(&out, 512 * sizeof(half));
    cudaMemcpy(c, codes, 256, cudaMemcpyHostToDevice);
    fp8_decode<<<1, 256>>>(c, out);
    cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        fwrite(got, sizeof(unsigned short), 512, f);
        fclose(f);
    }
    return cudaGetLastError() != cudaSuccess;
}

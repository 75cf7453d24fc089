// smemsim test fixture, written for smemsim: cuda_fp16.h's math functions of every half,
// to compare the interpreter's (the float function rounded once to half) with the GPU's.
#include <cuda_fp16.h>

#define ALL 65536

__global__ void half_math(const half *x, half *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    half v = x[i];
    out[0 * ALL + i] = hexp(v);
    out[1 * ALL + i] = hexp2(v);
    out[2 * ALL + i] = hexp10(v);
    out[3 * ALL + i] = hlog(v);
    out[4 * ALL + i] = hlog2(v);
    out[5 * ALL + i] = hlog10(v);
    out[6 * ALL + i] = hsqrt(v);
    out[7 * ALL + i] = hrsqrt(v);
    out[8 * ALL + i] = hrcp(v);
    out[9 * ALL + i] = hsin(v);
    out[10 * ALL + i] = hcos(v);
    out[11 * ALL + i] = hfloor(v);
    out[12 * ALL + i] = hceil(v);
    out[13 * ALL + i] = v * v / __float2half(3.0f) + __float2half(1e-5f);  // operators
}

// Every half through every function on the GPU, written to the file argv[1] (14 x 65,536
// halves' bits): the GPU test compares them with the interpreter's.
#include <cstdio>
#include <vector>
int main(int argc, char **argv)
{
    std::vector<unsigned short> bits(ALL), got(14 * ALL);
    for (int i = 0; i < ALL; i++)
        bits[i] = (unsigned short)i;
    half *x, *out;
    cudaMalloc(&x, ALL * sizeof(half));
    cudaMalloc(&out, 14 * ALL * sizeof(half));
    cudaMemcpy(x, bits.data(), ALL * sizeof(half), cudaMemcpyHostToDevice);
    half_math<<<ALL / 256, 256>>>(x, out);
    cudaMemcpy(got.data(), out, 14 * ALL * sizeof(half), cudaMemcpyDeviceToHost);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        fwrite(got.data(), sizeof(unsigned short), got.size(), f);
        fclose(f);
    }
    return cudaGetLastError() != cudaSuccess;
}

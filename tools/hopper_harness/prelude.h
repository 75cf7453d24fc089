// What fast.cu's matmul.cu provides before it includes its kernels (examples/matmul/*.cuh):
// the headers, the bf16 name and its cudaCheck. tools/gpu_hopper_import.py passes it with
// -include ahead of the kernel file, then builds fast.cu.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_bf16.h>
#include <cassert>
#include <cstdio>
#include <cstdlib>
typedef __nv_bfloat16 bf16;
void cudaCheck(cudaError_t error, const char* file, int line) {
    if (error != cudaSuccess) { printf("%s:%d %s\n", file, line, cudaGetErrorString(error)); exit(1); }
}
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))
#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

// Runs fast.cu's kernel 5 (tests/corpus/fast_cu/matmul_5.cuh, verbatim) through its own
// host code (runKernel5: its tensor maps, its function-pointer launch, its 147,456 dynamic
// shared bytes), with what its matmul.cu defines and includes first.
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
#include "../../tests/corpus/fast_cu/matmul_5.cuh"
#include "common.h"

int main(int argc, char** argv) {
    int S = atoi(argv[1]);
    size_t n = (size_t)S * S;
    std::vector<unsigned short> a = read16(argv[2], n), b = read16(argv[3], n);
    bf16 *dA, *dB, *dC;
    check(cudaMalloc(&dA, n * 2), "malloc"); check(cudaMalloc(&dB, n * 2), "malloc");
    check(cudaMalloc(&dC, n * 2), "malloc");
    check(cudaMemcpy(dA, a.data(), n * 2, cudaMemcpyHostToDevice), "copy");
    check(cudaMemcpy(dB, b.data(), n * 2, cudaMemcpyHostToDevice), "copy");
    runKernel5(S, S, S, dA, dB, dC, nullptr);
    check(cudaDeviceSynchronize(), "kernel");
    std::vector<unsigned short> c(n);
    check(cudaMemcpy(c.data(), dC, n * 2, cudaMemcpyDeviceToHost), "copy back");
    write_bytes(argv[4], c.data(), n * 2);
    return 0;
}

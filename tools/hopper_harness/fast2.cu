// Runs fast.cu's kernel 2 (tests/corpus/fast_cu/matmul_2.cuh, verbatim) through its own
// host code (runKernel2 encodes the tensor maps), with what its matmul.cu includes first.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_bf16.h>
#include <cassert>
typedef __nv_bfloat16 bf16;
#include "../../tests/corpus/fast_cu/matmul_2.cuh"
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
    runKernel2(S, S, S, dA, dB, dC);
    check(cudaDeviceSynchronize(), "kernel");
    std::vector<unsigned short> c(n);
    check(cudaMemcpy(c.data(), dC, n * 2, cudaMemcpyDeviceToHost), "copy back");
    write_bytes(argv[4], c.data(), n * 2);
    return 0;
}

// Runs one of fast.cu's kernels (tests/corpus/fast_cu/matmul_N.cuh, verbatim, given with
// -include after prelude.h) through its own host function RUN_KERNEL (runKernelN: its tensor
// maps, its launch, its dynamic shared size); -DWITH_DB for the ones that take a debug
// buffer (kernel 3 on), passed none.
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
#ifdef WITH_DB
    RUN_KERNEL(S, S, S, dA, dB, dC, nullptr);
#else
    RUN_KERNEL(S, S, S, dA, dB, dC);
#endif
    check(cudaDeviceSynchronize(), "kernel");
    std::vector<unsigned short> c(n);
    check(cudaMemcpy(c.data(), dC, n * 2, cudaMemcpyDeviceToHost), "copy back");
    write_bytes(argv[4], c.data(), n * 2);
    return 0;
}

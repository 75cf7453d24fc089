#include "../seed004.cu"
#include <cstdio>
int main()
{
    float* matrixA_d;
    cudaMalloc(&matrixA_d, 10000ull * sizeof(float));
    cudaMemset(matrixA_d, 0, 10000ull * sizeof(float));
    float* matrixB_d;
    cudaMalloc(&matrixB_d, 10000ull * sizeof(float));
    cudaMemset(matrixB_d, 0, 10000ull * sizeof(float));
    float* matrixC_d;
    cudaMalloc(&matrixC_d, 10000ull * sizeof(float));
    cudaMemset(matrixC_d, 0, 10000ull * sizeof(float));
    matrixMultiplySharedKernel<<<dim3(4, 4, 1), dim3(32, 32, 1), 0>>>(matrixA_d, matrixB_d, matrixC_d, 100, 100, 100);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}

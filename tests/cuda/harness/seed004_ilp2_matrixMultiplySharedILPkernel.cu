#include "../seed004_ilp2.cu"
#include <cstdio>
int main()
{
    float* matrixA_d;
    cudaMalloc(&matrixA_d, 65536ull * sizeof(float));
    cudaMemset(matrixA_d, 0, 65536ull * sizeof(float));
    float* matrixB_d;
    cudaMalloc(&matrixB_d, 65536ull * sizeof(float));
    cudaMemset(matrixB_d, 0, 65536ull * sizeof(float));
    float* matrixC_d;
    cudaMalloc(&matrixC_d, 65536ull * sizeof(float));
    cudaMemset(matrixC_d, 0, 65536ull * sizeof(float));
    matrixMultiplySharedILPkernel<<<dim3(8, 8, 1), dim3(32, 16, 1), 0>>>(matrixA_d, matrixB_d, matrixC_d, 256, 256, 256);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}

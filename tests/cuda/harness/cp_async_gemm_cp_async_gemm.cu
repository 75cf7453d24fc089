#include "../cp_async_gemm.cu"
#include <cstdio>
int main()
{
    float* A_d;
    cudaMalloc(&A_d, 262144ull * sizeof(float));
    cudaMemset(A_d, 0, 262144ull * sizeof(float));
    float* B_d;
    cudaMalloc(&B_d, 262144ull * sizeof(float));
    cudaMemset(B_d, 0, 262144ull * sizeof(float));
    float* C_d;
    cudaMalloc(&C_d, 262144ull * sizeof(float));
    cudaMemset(C_d, 0, 262144ull * sizeof(float));
    cp_async_gemm<<<dim3(32, 32, 1), dim3(16, 16, 1), 0>>>(A_d, B_d, C_d, 512, 512, 512);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}

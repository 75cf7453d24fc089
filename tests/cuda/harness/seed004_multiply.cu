#include "../seed004.cu"
#include <cstdio>
int main()
{
    double* A_mat_d;
    cudaMalloc(&A_mat_d, 65536ull * sizeof(double));
    cudaMemset(A_mat_d, 0, 65536ull * sizeof(double));
    double* B_mat_d;
    cudaMalloc(&B_mat_d, 65536ull * sizeof(double));
    cudaMemset(B_mat_d, 0, 65536ull * sizeof(double));
    double* C_mat_d;
    cudaMalloc(&C_mat_d, 65536ull * sizeof(double));
    cudaMemset(C_mat_d, 0, 65536ull * sizeof(double));
    multiply<<<dim3(16, 16, 1), dim3(16, 16, 1), 0>>>(A_mat_d, B_mat_d, C_mat_d);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}

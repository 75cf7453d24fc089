#include "../seed000_square.cu"
#include <cstdio>
int main()
{
    unsigned char* A_d;
    cudaMalloc(&A_d, 256ull * sizeof(unsigned char));
    cudaMemset(A_d, 0, 256ull * sizeof(unsigned char));
    unsigned char* B_d;
    cudaMalloc(&B_d, 8192ull * sizeof(unsigned char));
    cudaMemset(B_d, 0, 8192ull * sizeof(unsigned char));
    unsigned char* C_d;
    cudaMalloc(&C_d, 8192ull * sizeof(unsigned char));
    cudaMemset(C_d, 0, 8192ull * sizeof(unsigned char));
    matrix_mul<<<dim3(8, 1, 1), dim3(16, 16, 1), 0>>>(A_d, B_d, C_d, 16, 16, 512);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}

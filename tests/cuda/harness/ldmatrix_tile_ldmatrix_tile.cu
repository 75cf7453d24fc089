#include "../ldmatrix_tile.cu"
#include <cstdio>
int main()
{
    unsigned short* src_d;
    cudaMalloc(&src_d, 540672ull * sizeof(unsigned short));
    cudaMemset(src_d, 0, 540672ull * sizeof(unsigned short));
    unsigned int* frags_d;
    cudaMalloc(&frags_d, 270336ull * sizeof(unsigned int));
    cudaMemset(frags_d, 0, 270336ull * sizeof(unsigned int));
    unsigned short* out_d;
    cudaMalloc(&out_d, 540672ull * sizeof(unsigned short));
    cudaMemset(out_d, 0, 540672ull * sizeof(unsigned short));
    ldmatrix_tile<<<dim3(132, 1, 1), dim3(128, 1, 1), 0>>>(src_d, frags_d, out_d, 132);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}

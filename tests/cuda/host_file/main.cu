// The host half of kernels.cu's program: its names, macros and constants are its own.
#include <cmath>
#include <cuda_runtime.h>

template <int ROWS>
__global__ void transposeRows(const float *in, float *out, int width);
__global__ void scale(float *data, float factor, int n);
__global__ void fill(float *data, int n);

const int WIDTH = 1 << 10;
const int HEIGHT = WIDTH / 2;
#define TILE 16   // not kernels.cu's TILE: only this file's host code sees it

static int blocks_for(int n, int per) { return (n + per - 1) / per; }

int main() {
    float *in, *out;
    cudaMalloc(&in, WIDTH * HEIGHT * sizeof(float));
    cudaMalloc(&out, WIDTH * HEIGHT * sizeof(float));
    dim3 threads(32, 8);
    dim3 grid(WIDTH / 32, HEIGHT / 8);
    transposeRows<8><<<grid, threads>>>(in, out, WIDTH);
    float factor = 1.0f / sqrtf(static_cast<float>(TILE));
    scale<<<blocks_for(WIDTH * HEIGHT, 256), 256>>>(out, factor, WIDTH * HEIGHT);
    fill<<<1, 32>>>(out, 32);
    cudaFree(in);
    cudaFree(out);
    return 0;
}

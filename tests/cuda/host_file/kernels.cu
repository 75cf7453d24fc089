// Kernels of a program whose host code is in another file (main.cu), as `nvcc kernels.cu
// main.cu` builds it: smemsim reads main.cu's launches with --host-file main.cu.
#define TILE 32

template <int ROWS>
__global__ void transposeRows(const float *in, float *out, int width) {
    __shared__ float tile[ROWS][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int r = threadIdx.y; r < ROWS; r += blockDim.y)
        tile[r][threadIdx.x] = in[(blockIdx.y * ROWS + r) * width + x];
    __syncthreads();
    for (int r = threadIdx.y; r < ROWS; r += blockDim.y)
        out[(blockIdx.y * ROWS + r) * width + x] = tile[threadIdx.x % ROWS][r];
}

__global__ void scale(float *data, float factor, int n) {
    __shared__ float staged[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    staged[threadIdx.x] = i < n ? data[i] : 0.0f;
    __syncthreads();
    if (i < n)
        data[i] = staged[threadIdx.x] * factor;
}

// launched here too: this file's own launch is the one read
__global__ void fill(float *data, int n) {
    __shared__ float one[32];
    one[threadIdx.x % 32] = 1.0f;
    __syncthreads();
    data[blockIdx.x * blockDim.x + threadIdx.x] = one[threadIdx.x % 32];
}

void fill_on_device(float *data) {
    fill<<<4, 64>>>(data, 256);
}

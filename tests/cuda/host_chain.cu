// smemsim test fixture (written for the tests): a kernel that carves its dynamic shared
// memory at an offset known only at the launch, launched the way llm.c's dev/cuda files
// launch theirs: main -> a dispatcher -> a launcher, the sizes passed down as arguments.
#include <cuda_fp16.h>

template <class T>
struct Packed {
    static constexpr const int size = 16 / sizeof(T);
};

__global__ void carve(float* out, const half* in, int n) {
    extern __shared__ char smem[];
    half* tile = reinterpret_cast<half*>(smem);
    // n halves, then the floats: 4-byte aligned only when n is even
    float* sums = reinterpret_cast<float*>(smem + n * sizeof(half));
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        tile[i] = in[blockIdx.x * n + i];
    }
    __syncthreads();
    sums[threadIdx.x] = __half2float(tile[threadIdx.x % n]);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = sums[(threadIdx.x + 1) % blockDim.x];
}

void launch_carve(float* out, const half* in, int rows, int n, int block_size) {
    int per_thread = Packed<half>::size;
    size_t smem = n * sizeof(half) + block_size * sizeof(float);
    carve<<<rows, block_size * per_thread / 8, smem>>>(out, in, n);
}

void run(int kernel_num, float* out, const half* in, int rows, int n) {
    switch (kernel_num) {
        case 1:
            launch_carve(out, in, rows, n, 128);
            break;
    }
}

int main() {
    int B = 4;
    int T = 16;
    int n = 64;
    float* d_out;
    half* d_in;
    cudaMalloc(&d_out, B * T * 128 * sizeof(float));
    cudaMalloc(&d_in, B * T * n * sizeof(half));
    run(1, d_out, d_in, B * T, n);
    return 0;
}

// Template kernels launched without naming their arguments: C++ deduces them from the
// arguments' types (smemsim/frontends/cuda/deduce.py). Written for smemsim's tests.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>

// a row of 256 per block; each thread reads the element two past its own (2-way for
// 4-byte T: lanes i and i + 16 share a bank; 8-byte T: every 16 lanes a wavefront pair)
template <typename T>
__global__ void scale_rows(const T *__restrict__ in, T *out, T factor, int n) {
    __shared__ T row[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    row[threadIdx.x] = in[i];
    __syncthreads();
    if (i < n) out[i] = row[(threadIdx.x * 2) % 256] * factor;
}

// the block size named, the element type deduced: k<128><<<...>>>(float *) is k<128, float>
template <int BLOCK, typename T>
__global__ void block_sum(const T *in, T *out) {
    __shared__ T part[BLOCK];
    part[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

// two parameters that must agree: with SHOW_CONFLICT defined, launched with a float and a
// double pointer, which nvcc refuses; nothing is deduced (the question stays)
template <typename T>
__global__ void copy_pair(const T *a, T *b) {
    __shared__ T t[32];
    t[threadIdx.x] = a[threadIdx.x];
    b[threadIdx.x] = t[31 - threadIdx.x];
}

template <typename T>
void run_block_sum(T *in, T *out, int blocks) {
    block_sum<64><<<blocks, 64>>>(in, out);   // T of the host template: k<64, T> per instance
}

template void run_block_sum<double>(double *, double *, int);

int main() {
    const int n = 1 << 16;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    scale_rows<<<n / 256, 256>>>(x, y, 2.0f, n);
    thrust::device_vector<double> dx(n), dy(n);
    scale_rows<<<n / 256, 256>>>(thrust::raw_pointer_cast(dx.data()),
                                 thrust::raw_pointer_cast(dy.data()), 0.5, n);
    block_sum<128><<<n / 128, 128>>>((const float *)x, y + 0);
#ifdef SHOW_CONFLICT
    double *p;
    copy_pair<<<1, 32>>>(x, p);     // nvcc: no instance of copy_pair matches
#endif
    return 0;
}

// smemsim test fixture, written for smemsim: ping-pong buffers in shared memory, the two
// pointers swapped at the end of each step (a 1-D Jacobi smoothing through a temporary, a
// Hillis-Steele scan through cuda::std::swap), and three buffers rotated (which the importer
// refuses: it follows two).
#include <cuda/std/utility>

__global__ void smooth(const float* in, float* out, int steps) {
    __shared__ float a[256];
    __shared__ float b[256];
    float* cur = a;
    float* nxt = b;
    int t = threadIdx.x;
    cur[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        float left = t > 0 ? cur[t - 1] : 0.0f;
        float right = t < 255 ? cur[t + 1] : 0.0f;
        nxt[t] = 0.5f * cur[t] + 0.25f * (left + right);
        __syncthreads();
        float* tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    out[blockIdx.x * 256 + t] = cur[t];
}

__global__ void scan(const int* in, int* out) {
    __shared__ int x[512];
    __shared__ int y[512];
    int* src = x;
    int* dst = y;
    int t = threadIdx.x;
    src[t] = in[blockIdx.x * 512 + t];
    __syncthreads();
    for (int d = 1; d < 512; d *= 2) {
        dst[t] = t >= d ? src[t] + src[t - d] : src[t];
        __syncthreads();
        cuda::std::swap(src, dst);
    }
    out[blockIdx.x * 512 + t] = src[t];
}

__global__ void rotate(float* out) {
    __shared__ float a[32], b[32], c[32];
    float* p = a;
    float* q = b;
    float* r = c;
    for (int k = 0; k < 3; k++) {
        p[threadIdx.x] = k;
        float* t = p;
        p = q;
        q = r;
        r = t;
    }
    out[threadIdx.x] = a[threadIdx.x];
}

int main() {
    float *d_in, *d_out;
    int *i_in, *i_out;
    cudaMalloc(&d_in, 64 * 256 * sizeof(float));
    cudaMalloc(&d_out, 64 * 256 * sizeof(float));
    cudaMalloc(&i_in, 16 * 512 * sizeof(int));
    cudaMalloc(&i_out, 16 * 512 * sizeof(int));
    smooth<<<64, 256>>>(d_in, d_out, 10);
    scan<<<16, 512>>>(i_in, i_out);
    rotate<<<1, 32>>>(d_out);
    return 0;
}

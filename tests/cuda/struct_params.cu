// A kernel whose parameters come as one struct of pointers and scalars (a parameter pack),
// passed on by value to a device function (tests/test_cuda_structs.py).
struct Params {
    const float* in;
    float* out;
    int n;
    float scale;
};

__device__ void apply(Params q, int i, float v) { q.out[i] = v * q.scale; }

__global__ void reverse_rows(Params p) {
    __shared__ float s[256];
    int t = threadIdx.x;
    const float* row = p.in + blockIdx.x * p.n;
    s[t] = row[t];
    __syncthreads();
    apply(p, blockIdx.x * p.n + t, s[p.n - 1 - t]);
}

void host(Params p) { reverse_rows<<<4, 256>>>(p); }

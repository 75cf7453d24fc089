// An argmax over a __shared__ array of structs of two field types (tests/test_cuda_structs.py):
// each field read through a view of its own type, a whole struct copied field by field.
struct Pair {
    float v;
    int i;
};

__global__ void argmax(const float* in, int* out) {
    __shared__ Pair best[256];
    int t = threadIdx.x;
    best[t].v = in[blockIdx.x * 256 + t];
    best[t].i = t;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s && best[t + s].v > best[t].v) best[t] = best[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = best[0].i;
}

void host(const float* in, int* out) { argmax<<<4, 256>>>(in, out); }

// memcpy between a struct of floats and an int2, and CUDA's bit-cast intrinsics
// (tests/test_cuda_structs.py).
struct alignas(8) Pair { float v[2]; };
__device__ int2 bits_of(Pair p) { int2 b; memcpy(&b, &p, sizeof(b)); return b; }
__global__ void k(const float* in, int* out, float* back) {
    __shared__ Pair tile[32];
    Pair* p = reinterpret_cast<Pair*>(tile);
    Pair x;
    x.v[0] = in[2 * threadIdx.x];
    x.v[1] = in[2 * threadIdx.x + 1];
    p[threadIdx.x] = x;
    __syncthreads();
    Pair y = p[(threadIdx.x + 1) % 32];
    int2 b = bits_of(y);
    out[2 * threadIdx.x] = b.x;
    out[2 * threadIdx.x + 1] = __float_as_int(y.v[1]);
    back[threadIdx.x] = __int_as_float(b.x);
}

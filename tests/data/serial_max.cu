// smemsim test: a serial reduction from index 1 (as llm.c's softmax_forward kernel 4 reduces
// its warps' partial maxima), whose trip count differs from block to block: nvcc unrolls it
// by four, ptxas again in blocks of 4, 2 and 1 iterations, each read from the element before
__global__ void serial_max(const float *in, float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        int n = blockIdx.x + 1;
        float val = s[0];
        for (int i = 1; i < n; i++) {
            val = fmaxf(val, s[i]);
        }
        out[blockIdx.x] = val;
    }
}
void go(const float *in, float *out) { serial_max<<<48, 64>>>(in, out); }

// smemsim test: a loop of a run-time trip count nvcc unrolls by four and ptxas again, reading each four floats with one LDS.128
__global__ void rowsum(const float *in, float *out, int end)
{
    __shared__ float s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    float acc = 0.f;
    for (int i = 0; i < end; i++)
        acc += s[i] * (float)threadIdx.x;
    out[blockIdx.x * 256 + threadIdx.x] = acc;
}
void go(const float *in, float *out) { rowsum<<<4, 256>>>(in, out, 27); }

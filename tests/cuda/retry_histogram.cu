// A histogram as written before shared atomics (written for smemsim's tests, #24), after
// cuda-samples' old histogram256 and Rodinia's histogram1024: each warp has a sub-histogram
// of its own, and each lane tags its increment with its lane number and stores it again until
// the word holds its own tag. `one_bin` puts every lane of a warp on one bin (the input is
// zeros): 32 passes a call when one store lands per pass. `lane_bins` puts each lane on a bin
// of its own: one pass.
#define BINS 64
#define WARPS 4

__device__ void add_tagged(volatile unsigned *h, unsigned bin, unsigned tag)
{
    unsigned count;
    do {
        count = h[bin] & 0x07FFFFFFU;
        count = tag | (count + 1);
        h[bin] = count;
    } while (h[bin] != count);
}

__global__ void one_bin(const unsigned char *data, unsigned *out, int n)
{
    volatile __shared__ unsigned s[WARPS * BINS];
    for (int i = threadIdx.x; i < WARPS * BINS; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    unsigned tag = threadIdx.x << 27;
    volatile unsigned *mine = s + (threadIdx.x >> 5) * BINS;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        add_tagged(mine, data[i] % BINS, tag);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < WARPS; w++)
            sum += s[w * BINS + b] & 0x07FFFFFFU;
        atomicAdd(out + b, sum);
    }
}

__global__ void lane_bins(const unsigned char *data, unsigned *out, int n)
{
    volatile __shared__ unsigned s[WARPS * BINS];
    for (int i = threadIdx.x; i < WARPS * BINS; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    unsigned tag = threadIdx.x << 27;
    volatile unsigned *mine = s + (threadIdx.x >> 5) * BINS;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        add_tagged(mine, (data[i] + threadIdx.x) % BINS, tag);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < WARPS; w++)
            sum += s[w * BINS + b] & 0x07FFFFFFU;
        atomicAdd(out + b, sum);
    }
}

int main()
{
    const int n = 8 * 128 * 16;
    unsigned char *data;
    unsigned *out;
    cudaMalloc(&data, n);
    cudaMalloc(&out, BINS * sizeof(unsigned));
    cudaMemset(data, 0, n);
    cudaMemset(out, 0, BINS * sizeof(unsigned));
    one_bin<<<8, 128>>>(data, out, n);
    lane_bins<<<8, 128>>>(data, out, n);
    cudaDeviceSynchronize();
    return 0;
}

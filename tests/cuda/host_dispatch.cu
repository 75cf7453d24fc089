// smemsim test fixture (written here): launches chosen at run time, as cuda-samples'
// transpose and reduction choose them: a kernel pointer the host assigns before one launch,
// and a host template instantiated explicitly, switching on its block size.
#define TILE 32

__global__ void rowCopy(float *out, const float *in, int n)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * n + x];
    __syncthreads();
    out[threadIdx.y * n + x] = tile[threadIdx.y][threadIdx.x];
}

__global__ void colCopy(float *out, const float *in, int n)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * n + x];
    __syncthreads();
    out[threadIdx.y * n + x] = tile[threadIdx.x][threadIdx.y];
}

void runAll(float *d_out, const float *d_in, int n)
{
    void (*kernel)(float *, const float *, int);
    dim3 grid(n / TILE), threads(TILE, TILE);
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            kernel = &rowCopy;
        else
            kernel = colCopy;
        kernel<<<grid, threads>>>(d_out, d_in, n);
    }
}

template <class Elem, unsigned int blockSize> __global__ void sum(Elem *g_in, Elem *g_out)
{
    extern __shared__ unsigned char smem_bytes[];
    Elem *sdata = reinterpret_cast<Elem *>(smem_bytes);
    unsigned int tid = threadIdx.x;
    sdata[tid] = g_in[blockIdx.x * blockSize + tid];
    __syncthreads();
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = sdata[0];
}

template <class T> void reduce(int threads, int blocks, int which, T *d_in, T *d_out)
{
    int smemSize = threads * sizeof(T);
    switch (which) {
    case 0:
        smemSize = 2 * threads * sizeof(T);   // another kernel's: not this launch's
        break;
    case 1:
        switch (threads) {
        case 128:
            sum<T, 128><<<blocks, threads, smemSize>>>(d_in, d_out);
            break;
        case 64:
            sum<T, 64><<<blocks, threads, smemSize>>>(d_in, d_out);
            break;
        }
        break;
    }
}

template void reduce<float>(int threads, int blocks, int which, float *d_in, float *d_out);
template void reduce<double>(int threads, int blocks, int which, double *d_in,
                             double *d_out);

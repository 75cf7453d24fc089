// Read-modify-write elements of shared memory that nvcc keeps in a register over a loop with a
// run-time trip count (written for smemsim's tests, #24), after Rodinia lud's `shadow[tx][i]
// -= shadow[tx][j] * shadow[j][i]`. In `forwarded` a load of the loop may be the element
// itself as far as nvcc knows (s[j][k] is s[threadIdx.x][k] when j == threadIdx.x), so the
// store stays in every iteration and the element's load is forwarded from it: loaded once
// before the loop's whole groups of 4 iterations and once before the rest. In `sunk` nothing
// aliases: one load before the loop, one store after it.
#define N 32

__global__ void forwarded(float *m, int n, int k)
{
    __shared__ float s[N][N + 1];
    for (int i = 0; i < N; i++)
        s[i][threadIdx.x] = m[i * N + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < n; j++)
        s[threadIdx.x][k] -= s[threadIdx.x][j] * s[j][k];
    __syncthreads();
    for (int i = 0; i < N; i++)
        m[i * N + threadIdx.x] = s[i][threadIdx.x];
}

__global__ void sunk(int *out, const int *in, int lo, int hi)
{
    __shared__ int t[256];
    __shared__ int acc[64];
    t[threadIdx.x] = in[threadIdx.x];
    if (threadIdx.x < 64)
        acc[threadIdx.x] = 0;
    __syncthreads();
    if (threadIdx.x < 64)
        for (int j = lo; j < hi; j += 2)
            acc[threadIdx.x] += t[j];
    __syncthreads();
    out[threadIdx.x] = acc[threadIdx.x % 64];
}

int main()
{
    float *m;
    int *out, *in;
    cudaMalloc(&m, N * N * sizeof(float));
    cudaMalloc(&out, 256 * sizeof(int));
    cudaMalloc(&in, 256 * sizeof(int));
    cudaMemset(m, 0, N * N * sizeof(float));
    cudaMemset(in, 0, 256 * sizeof(int));
    forwarded<<<1, N>>>(m, 13, 20);
    sunk<<<1, 256>>>(out, in, 3, 40);
    cudaDeviceSynchronize();
    return 0;
}

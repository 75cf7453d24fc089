// examples/persistent_gemm.py written as CUDA with vector types: float4 global and shared
// accesses through reinterpret_cast, a float4 shared array, float4 registers and .x/.y/.z/.w.
#define BM 64
#define BN 64
#define BK 16

__global__ void persistent_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[BK][BM];
    __shared__ float4 Bs[BK][BN / 4];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * 16 + tx;
    int tiles_n = N / BN;
    for (int tile = blockIdx.x; tile < (M / BM) * tiles_n; tile += gridDim.x) {
        int m0 = tile / tiles_n * BM;
        int n0 = tile % tiles_n * BN;
        float4 acc[4];
        for (int r = 0; r < 4; r++)
            acc[r] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int k0 = 0; k0 < K; k0 += BK) {
            for (int e = 0; e < 4; e++)
                As[tid % 16][tid / 16 * 4 + e] = A[(m0 + tid / 16 * 4 + e) * K + k0 + tid % 16];
            float4 gb = *reinterpret_cast<const float4*>(&B[(k0 + tid / 16) * N + n0 + tid % 16 * 4]);
            Bs[tid / 16][tid % 16] = gb;
            __syncthreads();
            for (int kk = 0; kk < BK; kk++) {
                float4 a = reinterpret_cast<float4*>(&As[kk][ty * 4])[0];
                float4 b = Bs[kk][tx];
                acc[0].x += a.x * b.x; acc[0].y += a.x * b.y; acc[0].z += a.x * b.z; acc[0].w += a.x * b.w;
                acc[1].x += a.y * b.x; acc[1].y += a.y * b.y; acc[1].z += a.y * b.z; acc[1].w += a.y * b.w;
                acc[2].x += a.z * b.x; acc[2].y += a.z * b.y; acc[2].z += a.z * b.z; acc[2].w += a.z * b.w;
                acc[3].x += a.w * b.x; acc[3].y += a.w * b.y; acc[3].z += a.w * b.z; acc[3].w += a.w * b.w;
            }
            __syncthreads();
        }
        for (int r = 0; r < 4; r++)
            *reinterpret_cast<float4*>(&C[(m0 + ty * 4 + r) * N + n0 + tx * 4]) = acc[r];
    }
}

void run_gemm(int n)   // no main(): a harness #includes this file
{
    float *A, *B, *C;
    cudaMalloc(&A, n * n * sizeof(float));
    cudaMalloc(&B, n * n * sizeof(float));
    cudaMalloc(&C, n * n * sizeof(float));
    persistent_gemm<<<132, dim3(16, 16)>>>(A, B, C, n, n, n);
    cudaDeviceSynchronize();
}

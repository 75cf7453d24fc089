// smemsim test fixture, written for smemsim: vectors of 8-bit integers (uchar4 pixels
// through a shared tile, a char4 built lane by lane), as image kernels write them, and an
// extern __shared__ array of float4, and vector parameters by value (uint3 sizes, a
// float3 scale, as marchingCubes passes its grid).
__global__ void invert(const uchar4* in, uchar4* out, char4* d) {
    __shared__ uchar4 tile[256];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    uchar4 p = tile[255 - t];
    out[blockIdx.x * 256 + t] = make_uchar4(255 - p.x, 255 - p.y, p.z / 2, p.w);
    char4 q;
    q.x = (char)(p.x - 128);
    q.y = -3;
    q.z = 0;
    q.w = 127;
    d[blockIdx.x * 256 + t] = q;
}

__global__ void neighbours(const float4* in, float4* out) {
    extern __shared__ float4 s[];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    float4 a = s[(t + 1) % blockDim.x];
    out[blockIdx.x * blockDim.x + t] = make_float4(a.x + s[t].x, a.y, a.z, a.w);
}

__global__ void volume(const float* in, float* out, uint3 size, float3 scale) {
    __shared__ float plane[16][17];
    uint x = threadIdx.x, y = threadIdx.y;
    for (uint z = 0; z < size.z; z++) {
        plane[y][x] = in[(z * size.y + y) * size.x + x] * scale.x;
        __syncthreads();
        out[(z * size.y + x) * size.x + y] = plane[x][y] + scale.y * z + scale.z;
        __syncthreads();
    }
}

int main() {
    uchar4 *a, *b;
    char4* c;
    cudaMalloc(&a, 4096 * sizeof(uchar4));
    cudaMalloc(&b, 4096 * sizeof(uchar4));
    cudaMalloc(&c, 4096 * sizeof(char4));
    cudaMemset(a, 0x7B, 4096 * sizeof(uchar4));
    invert<<<16, 256>>>(a, b, c);
    float4 *f, *g;
    cudaMalloc(&f, 4096 * sizeof(float4));
    cudaMalloc(&g, 4096 * sizeof(float4));
    neighbours<<<16, 256, 256 * sizeof(float4)>>>(f, g);
    float *v, *w;
    cudaMalloc(&v, 16 * 16 * 4 * sizeof(float));
    cudaMalloc(&w, 16 * 16 * 4 * sizeof(float));
    volume<<<1, dim3(16, 16)>>>(v, w, make_uint3(16, 16, 4), make_float3(2.0f, 0.5f, 1.0f));
    return 0;
}

// Arrays of structs with fields of several types in global memory (written for smemsim's
// tests, #24): a kernel parameter `Particle*` is the structs' bytes, each field read and
// written through a view of its own type at its offset, as C++ lays the struct out
// (24 bytes: x, y, z, kind at 0..12, mass at 16).
struct Particle { float x, y, z; int kind; double mass; };

__global__ void gather(const Particle* p, float* out) {
    __shared__ Particle tile[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    tile[threadIdx.x] = p[i];
    __syncthreads();
    float acc = 0.0f;
    for (int j = 0; j < 128; ++j) {
        if (tile[j].kind == p[i].kind) acc += tile[j].x * (float)tile[j].mass;
    }
    out[i] = acc + p[i].y;
}

__global__ void reverse_tiles(const Particle* in, Particle* out, int* counts) {
    __shared__ Particle tile[64];
    __shared__ int hist[4];
    int t = threadIdx.x;
    int i = blockIdx.x * 64 + t;
    if (t < 4) hist[t] = 0;
    tile[t] = in[i];
    __syncthreads();
    atomicAdd(&hist[tile[t].kind & 3], 1);
    __syncthreads();
    Particle q = tile[63 - t];
    q.mass *= 2.0;
    out[i] = q;
    if (t < 4) counts[blockIdx.x * 4 + t] = hist[t];
}

int main() {
    int n = 4096;
    Particle *p, *q;
    float* out;
    int* counts;
    cudaMalloc(&p, n * sizeof(Particle));
    cudaMalloc(&q, n * sizeof(Particle));
    cudaMalloc(&out, n * sizeof(float));
    cudaMalloc(&counts, n / 64 * 4 * sizeof(int));
    cudaMemset(p, 0, n * sizeof(Particle));
    gather<<<n / 128, 128>>>(p, out);
    reverse_tiles<<<n / 64, 64>>>(p, q, counts);
    cudaDeviceSynchronize();
    return 0;
}

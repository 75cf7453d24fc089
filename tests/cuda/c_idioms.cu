// C and C++ as older public benchmarks write it (Parboil, Rodinia): each kernel leans on one
// idiom the importer reads since the twenty-second session, and the shared-memory counts
// depend on reading it right (which element a pointer reaches decides a shared index).
// Written for smemsim's tests; built as it is by nvcc on the GPU machine, with the inputs
// its main() writes (tests/test_original_build.py gives the analysis the same).
#include <cuda_runtime.h>

enum { TILE = 64, SETS = 32 };

struct Node { int starting; int no_of_edges; };

// an array of structs of one field type; a loop whose bounds are read from memory: each
// iteration reads the shared tile at a stride the edge gives
__global__ void edge_sums(const Node *nodes, const int *edges, int *out) {
    __shared__ int s[TILE];
    int t = blockIdx.x * TILE + threadIdx.x;
    s[threadIdx.x] = t;
    __syncthreads();
    int sum = 0;
    for (int i = nodes[t].starting; i < nodes[t].starting + nodes[t].no_of_edges; i++)
        sum += s[(threadIdx.x * edges[i]) % TILE];
    out[t] = sum;
}

// pointers declared without a value, pointed in the branches of an if (into one array):
// the value the pointer reaches is the stride of the shared read
__global__ void branch_pointers(const float *all, float *out) {
    __shared__ float s[TILE];
    const float *data;
    const float *other;
    if (blockIdx.x < SETS) {
        data = all + blockIdx.x * TILE;
        other = all;
    } else {
        other = all + (blockIdx.x - SETS) * TILE;
        data = other;
    }
    s[threadIdx.x] = other[threadIdx.x];
    __syncthreads();
    out[blockIdx.x * TILE + threadIdx.x] = s[(threadIdx.x * (int)data[0]) % TILE];
}

// a moved float2 pointer parameter read whole into a register array: its x is the stride
__global__ void pairs(float2 *data, float *out) {
    __shared__ float s[TILE];
    float2 v[2];
    data += blockIdx.x * 2 * TILE;
    for (int r = 0; r < 2; r++) v[r] = data[threadIdx.x + r * TILE];
    s[threadIdx.x] = v[1].y;
    __syncthreads();
    out[blockIdx.x * TILE + threadIdx.x] = s[(threadIdx.x * (int)v[0].x) % TILE];
}

int main() {
    const int blocks = 64, n = blocks * TILE;
    static Node h_nodes[n]; static int h_edges[8 * n]; static float h_all[n];
    static float2 h_pts[2 * n];
    for (int t = 0; t < n; t++) {
        h_nodes[t].starting = 8 * t;
        h_nodes[t].no_of_edges = (t / 32) % 5;
        h_all[t] = (float)((t / TILE) % 8 + 1);
    }
    for (int i = 0; i < 8 * n; i++) h_edges[i] = i % 8 + 1;
    for (int j = 0; j < 2 * n; j++) h_pts[j] = make_float2((float)((j / 64) % 8 + 1), 1.0f);
    Node *nodes; int *edges, *iout; float *all, *fout; float2 *pts;
    cudaMalloc(&nodes, n * sizeof(Node));
    cudaMalloc(&edges, 8 * n * sizeof(int));
    cudaMalloc(&iout, n * sizeof(int));
    cudaMalloc(&all, n * sizeof(float));
    cudaMalloc(&fout, n * sizeof(float));
    cudaMalloc(&pts, 2 * n * sizeof(float2));
    cudaMemcpy(nodes, h_nodes, sizeof(h_nodes), cudaMemcpyHostToDevice);
    cudaMemcpy(edges, h_edges, sizeof(h_edges), cudaMemcpyHostToDevice);
    cudaMemcpy(all, h_all, sizeof(h_all), cudaMemcpyHostToDevice);
    cudaMemcpy(pts, h_pts, sizeof(h_pts), cudaMemcpyHostToDevice);
    edge_sums<<<blocks, TILE>>>(nodes, edges, iout);
    branch_pointers<<<blocks, TILE>>>(all, fout);
    pairs<<<blocks, TILE>>>(pts, fout);
    cudaDeviceSynchronize();
    return 0;
}

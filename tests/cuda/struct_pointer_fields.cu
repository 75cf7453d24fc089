// A struct with a pointer field in global memory (written for smemsim's tests, #24), after
// Rodinia streamcluster's Point (`float weight; float* coord; long assign; float cost;`,
// 32 bytes as C++ lays it out): the kernel reads its other fields, never the pointer.
typedef struct {
    float weight;
    float* coord;
    long assign;
    float cost;
} Point;

__global__ void point_costs(int num, Point* p, const float* x, float* lower, int* table) {
    __shared__ float partial[64];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float mine = 0.0f;
    if (tid < num) {
        float x_cost = x[tid] * p[tid].weight;
        if (x_cost < p[tid].cost)
            mine = x_cost - p[tid].cost;
        else
            mine = p[tid].cost - x_cost + table[p[tid].assign];
    }
    partial[threadIdx.x] = mine;
    __syncthreads();
    if (tid < num)
        lower[tid] = partial[threadIdx.x] + partial[(threadIdx.x + 1) % 64];
}

int main() {
    Point* p; float *x, *l; int* t;
    cudaMalloc(&p, 256 * sizeof(Point)); cudaMalloc(&x, 256 * sizeof(float));
    cudaMalloc(&l, 256 * sizeof(float)); cudaMalloc(&t, 256 * sizeof(int));
    cudaMemset(p, 0, 256 * sizeof(Point)); cudaMemset(x, 0, 256 * sizeof(float));
    cudaMemset(t, 0, 256 * sizeof(int));
    point_costs<<<4, 64>>>(250, p, x, l, t);
    cudaDeviceSynchronize();
    return 0;
}

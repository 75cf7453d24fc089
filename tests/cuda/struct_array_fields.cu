// Array fields of structs in global memory (written for smemsim's tests, #24), after
// Rodinia b+tree's findK (`knodesD[currKnodeD[bid]].keys[thid]`, a knode holding int arrays
// and a bool: several field types, C++'s layout of 84 bytes), a struct of one type with
// a 2-D array field, and Rodinia lavaMD's boxes (`d_box_gpu[bx].nei[k - 1].number`: an
// array of structs as a field, 656 bytes a box).
#define ORDER 8
typedef struct knode {
    int location;
    int indices[ORDER + 1];
    int keys[ORDER + 1];
    bool is_leaf;
    int num_keys;
} knode;
struct Same { int id; int keys[4][2]; };

__global__ void find(const knode* nodes, const long* cur, const int* want, int* out) {
    __shared__ int hits[ORDER];
    int t = threadIdx.x;
    int b = blockIdx.x;
    hits[t] = (nodes[cur[b]].keys[t] <= want[b]) && (nodes[cur[b]].keys[t + 1] > want[b]);
    __syncthreads();
    if (hits[ORDER - 1 - t]) out[b] = nodes[cur[b]].indices[t] + nodes->num_keys;
}

__global__ void same(const Same* s, int* out) {
    __shared__ int tile[64];
    int t = threadIdx.x;
    tile[t] = s[t / 8].keys[t % 4][t % 2] + s[t / 8].id;
    __syncthreads();
    out[t] = tile[63 - t];
}

typedef struct nei_str { int x, y, z; int number; long offset; } nei_str;
typedef struct box_str { int x, y, z; int number; long offset; int nn; nei_str nei[26]; } box_str;
typedef struct { double v, x, y, z; } FOUR_VECTOR;

__global__ void boxes(const box_str* box, const FOUR_VECTOR* rv, double* out) {
    __shared__ FOUR_VECTOR rB[64];
    int bx = blockIdx.x, tx = threadIdx.x;
    double acc = 0.0;
    for (int k = 0; k < 1 + box[bx].nn; k++) {
        int pointer = k == 0 ? bx : box[bx].nei[k - 1].number;
        long first = box[pointer].offset;
        rB[tx] = rv[first + tx];
        __syncthreads();
        for (int j = 0; j < 64; j++)
            acc += rB[j].v * rB[(tx + j) % 64].x;
        __syncthreads();
    }
    out[bx * 64 + tx] = acc;
}

int main() {
    knode* n; long* c; int *w, *o; Same* s;
    box_str* b; FOUR_VECTOR* r; double* d;
    cudaMalloc(&b, 8 * sizeof(box_str)); cudaMalloc(&r, 512 * sizeof(FOUR_VECTOR));
    cudaMalloc(&d, 512 * sizeof(double));
    cudaMemset(b, 0, 8 * sizeof(box_str)); cudaMemset(r, 0, 512 * sizeof(FOUR_VECTOR));
    cudaMalloc(&n, 64 * sizeof(knode)); cudaMalloc(&c, 16 * sizeof(long));
    cudaMalloc(&w, 16 * sizeof(int)); cudaMalloc(&o, 64 * sizeof(int));
    cudaMalloc(&s, 8 * sizeof(Same));
    cudaMemset(n, 0, 64 * sizeof(knode)); cudaMemset(c, 0, 16 * sizeof(long));
    cudaMemset(w, 0, 16 * sizeof(int)); cudaMemset(s, 0, 8 * sizeof(Same));
    find<<<16, ORDER>>>(n, c, w, o);
    same<<<1, 64>>>(s, o);
    boxes<<<8, 64>>>(b, r, d);
    cudaDeviceSynchronize();
    return 0;
}

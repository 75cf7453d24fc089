// Struct pointers declared without a value, then pointed into an array of structs
// (written for smemsim's tests, #24), after Rodinia lavaMD's kernel_gpu_cuda: `FOUR_VECTOR*
// rA;` then `rA = &d_rv_gpu[first_i];` in straight-line code, `rB = &d_rv_gpu[first_j];`
// inside the loop over neighbour boxes, and `fA[wtx].v += ...` through such a pointer.
typedef struct box_str { int number; long offset; int nn; int nei[4]; } box_str;
typedef struct { double v, x, y, z; } FOUR_VECTOR;

__global__ void unset_pointers(box_str* box, FOUR_VECTOR* rv, double* qv, FOUR_VECTOR* fv) {
    __shared__ FOUR_VECTOR rA_shared[64];
    __shared__ FOUR_VECTOR rB_shared[64];
    __shared__ double qB_shared[64];
    int bx = blockIdx.x, tx = threadIdx.x;
    FOUR_VECTOR* rA;
    FOUR_VECTOR* fA;
    FOUR_VECTOR* rB;
    double* qB;
    int first_i = box[bx].offset;
    rA = &rv[first_i];
    fA = &fv[first_i];
    rA_shared[tx] = rA[tx];
    __syncthreads();
    for (int k = 0; k < 1 + box[bx].nn; k++) {
        int pointer = k == 0 ? bx : box[bx].nei[k - 1];
        int first_j = box[pointer].offset;
        rB = &rv[first_j];
        qB = &qv[first_j];
        rB_shared[tx] = rB[tx];
        qB_shared[tx] = qB[tx];
        __syncthreads();
        double q = qB_shared[(tx + k) % 64];
        double x = rA_shared[tx].x;
        double y = rB_shared[(tx + 1) % 64].y;
        fA[tx].v += q * x * y;
        __syncthreads();
    }
}

int main() {
    box_str* b; FOUR_VECTOR *r, *f; double* q;
    cudaMalloc(&b, 8 * sizeof(box_str)); cudaMalloc(&r, 512 * sizeof(FOUR_VECTOR));
    cudaMalloc(&f, 512 * sizeof(FOUR_VECTOR)); cudaMalloc(&q, 512 * sizeof(double));
    cudaMemset(b, 0, 8 * sizeof(box_str)); cudaMemset(r, 0, 512 * sizeof(FOUR_VECTOR));
    cudaMemset(f, 0, 512 * sizeof(FOUR_VECTOR)); cudaMemset(q, 0, 512 * sizeof(double));
    unset_pointers<<<8, 64>>>(b, r, q, f);
    cudaDeviceSynchronize();
    return 0;
}

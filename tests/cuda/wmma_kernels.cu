// smemsim test fixture, written for smemsim: the nvcuda::wmma API as tensor-core teaching
// code uses it (LeetCUDA's hgemm_wmma kernels and CUDA's own samples call it this way;
// LeetCUDA is GPL-3.0, so none of its code is copied here). m16n16k16 fragments of halves,
// loaded from shared tiles (ldmatrix on sm_75+) and from global memory, accumulated in
// floats or halves, stored row- or column-major, single and in arrays.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <cstdlib>
using namespace nvcuda;

// One warp per block, one 16 x 16 tile of C per block: A and B staged in shared tiles of
// LDS halves per row (16: ldmatrix's rows 32 bytes apart, two rows a bank set; 24: none
// share), the product stored to a float tile and copied out.
template <const int LDS = 24>
__global__ void wmma_tile(const half *A, const half *B, float *C, int M, int N, int K)
{
    __shared__ half s_a[16 * LDS];
    __shared__ half s_b[16 * LDS];
    __shared__ float s_c[16 * 20];
    int lane = threadIdx.x;
    int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) {
            int r = i / 16, c = i % 16;
            s_a[r * LDS + c] = A[(m0 + r) * K + k0 + c];
            s_b[r * LDS + c] = B[(k0 + r) * N + n0 + c];
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
        wmma::load_matrix_sync(a, s_a, LDS);
        wmma::load_matrix_sync(b, s_b, LDS);
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(s_c, acc, 20, wmma::mem_row_major);
    __syncthreads();
    for (int i = lane; i < 256; i += 32)
        C[(m0 + i / 16) * N + n0 + i % 16] = s_c[(i / 16) * 20 + i % 16];
}

// Column-major operands (A as its transpose, B as its transpose) and a half accumulator,
// doubled element by element and stored column-major: the other ldmatrix form of each
// operand and 16-bit stores.
__global__ void wmma_colmajor_half(const half *At, const half *Bt, half *Ct)
{
    __shared__ half s_at[16][16];
    __shared__ half s_bt[16][16];
    __shared__ half s_ct[16][16];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) {
        s_at[i / 16][i % 16] = At[blockIdx.x * 256 + i];
        s_bt[i / 16][i % 16] = Bt[blockIdx.x * 256 + i];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> c;
    wmma::fill_fragment(c, __float2half(1.0f));
    wmma::load_matrix_sync(a, &s_at[0][0], 16);
    wmma::load_matrix_sync(b, &s_bt[0][0], 16);
    wmma::mma_sync(c, a, b, c);
    for (int e = 0; e < c.num_elements; e++)
        c.x[e] = __hadd(c.x[e], c.x[e]);
    wmma::store_matrix_sync(&s_ct[0][0], c, 16, wmma::mem_col_major);
    __syncthreads();
    for (int i = lane; i < 256; i += 32)
        Ct[blockIdx.x * 256 + i] = s_ct[i / 16][i % 16];
}

// Four warps per block, each a 32 x 32 tile of C as a 2 x 2 array of accumulators: the
// fragments of A and B straight from global memory (no shared tile), C written to global.
__global__ void wmma_global_2x2(const half *A, const half *B, float *C, int M, int N, int K)
{
    int warp = threadIdx.x / 32;
    int m0 = blockIdx.y * 64 + (warp / 2) * 32, n0 = blockIdx.x * 64 + (warp % 2) * 32;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[2];
        for (int i = 0; i < 2; i++) {
            wmma::load_matrix_sync(a[i], A + (m0 + i * 16) * K + k0, K);
            wmma::load_matrix_sync(b[i], B + k0 * N + n0 + i * 16, N);
        }
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(C + (m0 + i * 16) * N + n0 + j * 16, acc[i][j], N,
                                    wmma::mem_row_major);
}

// A float accumulator loaded from a shared tile (C += A B on a tile read back), stored
// column-major to shared: LDS.64 by rows and 32-bit stores by columns.
__global__ void wmma_accumulate(const half *A, const half *B, float *C)
{
    __shared__ half s_a[16][16];
    __shared__ half s_b[16][16];
    __shared__ float s_c[16][16];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) {
        s_a[i / 16][i % 16] = A[i];
        s_b[i / 16][i % 16] = B[i];
        s_c[i / 16][i % 16] = C[i];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(a, &s_a[0][0], 16);
    wmma::load_matrix_sync(b, &s_b[0][0], 16);
    wmma::load_matrix_sync(c, &s_c[0][0], 16, wmma::mem_row_major);
    wmma::mma_sync(c, a, b, c);
    __syncthreads();
    wmma::store_matrix_sync(&s_c[0][0], c, 16, wmma::mem_col_major);
    __syncthreads();
    for (int i = lane; i < 256; i += 32)
        C[i] = s_c[i / 16][i % 16];
}

// D = alpha A B + beta C over 16 x 16 tiles, one warp a block walking the tiles until none
// is left (the shape of CUDA's cudaTensorCoreGemm sample, written for smemsim: K = 16, A
// row-major M x 16, B column-major 16 x N): a scalar parameter assigned, a loop ended by a
// break, a float tile over the bytes of a 2-D half tile, int4 copies through a typedef,
// and the accumulator's elements scaled by x[e].
__global__ void wmma_persistent(const half *A, const half *B, const float *C, float *D,
                                float alpha, float beta, int tiles_n, int tiles)
{
    extern __shared__ half shm[][16 + 8];
    float *c_tile = (float *)&shm[0][0];
    const unsigned lane = threadIdx.x % 32;
    const int N = tiles_n * 16;
    beta /= alpha;
    for (unsigned t = blockIdx.x;; t += gridDim.x) {
        if (t >= tiles)
            break;
        int m0 = (t / tiles_n) * 16, n0 = (t % tiles_n) * 16;
        for (int i = lane; i < 64; i += 32) {
            typedef int4 copy_t;
            *((copy_t *)(c_tile + (i / 4) * 16) + i % 4) =
                *((copy_t *)(C + (m0 + i / 4) * N + n0) + i % 4);
        }
        __syncthreads();
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
        wmma::load_matrix_sync(c, c_tile, 16, wmma::mem_row_major);
        for (int e = 0; e < c.num_elements; e++)
            c.x[e] *= beta;
        __syncthreads();
        for (int i = lane; i < 256; i += 32) {
            shm[i / 16][i % 16] = A[(m0 + i / 16) * 16 + i % 16];
            shm[16 + i / 16][i % 16] = B[(n0 + i / 16) * 16 + i % 16];
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
        wmma::load_matrix_sync(a, &shm[0][0], 24);
        wmma::load_matrix_sync(b, &shm[16][0], 24);
        wmma::mma_sync(c, a, b, c);
        for (int e = 0; e < c.num_elements; e++)
            c.x[e] *= alpha;
        __syncthreads();
        wmma::store_matrix_sync(c_tile, c, 16, wmma::mem_row_major);
        __syncthreads();
        for (int i = lane; i < 256; i += 32)
            D[(m0 + i / 16) * N + n0 + i % 16] = c_tile[i];
        __syncthreads();
    }
}

// bf16 operands from shared tiles in all four layouts (nvcc 13 on sm_90 loads them with
// four 4-byte generic loads each, transposing the column-major A and row-major B in
// registers): C = A B^T + A^T B of the two 16 x 16 tiles as stored.
__global__ void wmma_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C)
{
    __shared__ __nv_bfloat16 sa[16 * 24], sb[16 * 24];
    for (int i = threadIdx.x; i < 256; i += 32) {
        sa[(i / 16) * 24 + i % 16] = A[i];
        sb[(i / 16) * 24 + i % 16] = B[i];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> ar;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> bc;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> ac;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> br;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    wmma::load_matrix_sync(ar, sa, 24);
    wmma::load_matrix_sync(bc, sb, 24);
    wmma::mma_sync(c, ar, bc, c);
    wmma::load_matrix_sync(ac, sa, 24);
    wmma::load_matrix_sync(br, sb, 24);
    wmma::mma_sync(c, ac, br, c);
    wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
}

// tf32 operands (m16n16k8, nvcc 13 on sm_90: generic 4-byte loads, the accumulator stored
// by generic 8-byte stores): A and B 16 x 16 float tiles, k in two steps of 8, each operand
// rounded by __float_to_tf32; B read column-major and row-major: C = A B^T + A B.
__global__ void wmma_tf32(const float *A, const float *B, float *C)
{
    __shared__ float sa[16 * 20], sb[16 * 20], sc[16 * 16];
    for (int i = threadIdx.x; i < 256; i += 32) {
        sa[(i / 16) * 20 + i % 16] = A[i];
        sb[(i / 16) * 20 + i % 16] = B[i];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> bc;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> br;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int kk = 0; kk < 16; kk += 8) {
        wmma::load_matrix_sync(a, sa + kk, 20);
        wmma::load_matrix_sync(bc, sb + kk, 20);
        wmma::load_matrix_sync(br, sb + kk * 20, 20);
        for (int t = 0; t < a.num_elements; t++)
            a.x[t] = wmma::__float_to_tf32(a.x[t]);
        for (int t = 0; t < bc.num_elements; t++) {
            bc.x[t] = wmma::__float_to_tf32(bc.x[t]);
            br.x[t] = wmma::__float_to_tf32(br.x[t]);
        }
        wmma::mma_sync(c, a, bc, c);
        wmma::mma_sync(c, a, br, c);
    }
    wmma::store_matrix_sync(sc, c, 16, wmma::mem_row_major);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += 32)
        C[i] = sc[i];
}

// 8-bit integer operands (nvcc 13 on sm_90: a row-major A or column-major B by one
// ldmatrix.x2, the other layouts byte by byte) into an int accumulator: C = A B^T + A^T B
// of two 16 x 16 signed-char tiles, 32 bytes a row.
__global__ void wmma_s8(const signed char *A, const signed char *B, int *C)
{
    __shared__ signed char sa[16 * 32], sb[16 * 32];
    __shared__ int sc[16 * 16];
    for (int i = threadIdx.x; i < 256; i += 32) {
        sa[(i / 16) * 32 + i % 16] = A[i];
        sb[(i / 16) * 32 + i % 16] = B[i];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> ar;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> bc;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::col_major> ac;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> br;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> c;
    wmma::fill_fragment(c, 0);
    wmma::load_matrix_sync(ar, sa, 32);
    wmma::load_matrix_sync(bc, sb, 32);
    wmma::mma_sync(c, ar, bc, c);
    wmma::load_matrix_sync(ac, sa, 32);
    wmma::load_matrix_sync(br, sb, 32);
    wmma::mma_sync(c, ac, br, c);
    wmma::store_matrix_sync(sc, c, 16, wmma::mem_row_major);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += 32)
        C[i] = sc[i] + 1;
}

// Doubles (m8n8k4; nvcc 13 on sm_90: one generic 8-byte load an operand, DMMA.8x8x4, the
// accumulator's two doubles one 16-byte store): C = A B + A^T B^T over k in two steps of 4,
// A and B 8 x 8 tiles, the accumulator stored column-major once and row-major once.
__global__ void wmma_f64(const double *A, const double *B, double *C)
{
    __shared__ double sa[8 * 8], sb[8 * 8], sc[2 * 8 * 8];
    for (int i = threadIdx.x; i < 64; i += 32) {
        sa[i] = A[i];
        sb[i] = B[i];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> ar;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> br;
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> ac;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> bc;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> c;
    wmma::fill_fragment(c, 0.0);
    for (int kk = 0; kk < 8; kk += 4) {
        wmma::load_matrix_sync(ar, sa + kk, 8);
        wmma::load_matrix_sync(br, sb + kk * 8, 8);
        wmma::mma_sync(c, ar, br, c);
        wmma::load_matrix_sync(ac, sa + kk * 8, 8);
        wmma::load_matrix_sync(bc, sb + kk, 8);
        wmma::mma_sync(c, ac, bc, c);
    }
    wmma::store_matrix_sync(sc, c, 8, wmma::mem_row_major);
    wmma::store_matrix_sync(sc + 64, c, 8, wmma::mem_col_major);
    __syncthreads();
    for (int i = threadIdx.x; i < 128; i += 32)
        C[i] = sc[i];
}

// Each kernel once (or the one named by its number, for a profiler): 64^3, inputs zeroed.
int main(int argc, char **argv)
{
    const int M = 64, N = 64, K = 64;
    int only = argc > 1 ? atoi(argv[1]) : -1;
    half *A, *B, *Ct;
    float *C, *D;
    cudaMalloc(&D, M * N * sizeof(float));
    cudaMalloc(&A, M * K * sizeof(half));
    cudaMalloc(&B, K * N * sizeof(half));
    cudaMalloc(&C, M * N * sizeof(float));
    cudaMalloc(&Ct, 1024 * sizeof(half));
    cudaMemset(A, 0, M * K * sizeof(half));
    cudaMemset(B, 0, K * N * sizeof(half));
    cudaMemset(C, 0, M * N * sizeof(float));
    if (only < 0 || only == 0)
        wmma_tile<24><<<dim3(N / 16, M / 16), 32>>>(A, B, C, M, N, K);
    if (only < 0 || only == 1)
        wmma_tile<16><<<dim3(N / 16, M / 16), 32>>>(A, B, C, M, N, K);
    if (only < 0 || only == 2)
        wmma_colmajor_half<<<4, 32>>>(A, B, Ct);
    if (only < 0 || only == 3)
        wmma_global_2x2<<<dim3(N / 64, M / 64), 128>>>(A, B, C, M, N, K);
    if (only < 0 || only == 4)
        wmma_accumulate<<<1, 32>>>(A, B, C);
    if (only < 0 || only == 5)
        wmma_persistent<<<3, 32, 32 * 24 * sizeof(half)>>>(A, B, C, D, 2.0f, 0.5f, N / 16,
                                                          (M / 16) * (N / 16));
    if (only < 0 || only == 6)
        wmma_bf16<<<1, 32>>>((const __nv_bfloat16 *)A, (const __nv_bfloat16 *)B, C);
    if (only < 0 || only == 7)
        wmma_tf32<<<1, 32>>>(C, C, D);
    if (only < 0 || only == 8)
        wmma_s8<<<1, 32>>>((const signed char *)A, (const signed char *)B, (int *)D);
    if (only < 0 || only == 9)
        wmma_f64<<<1, 32>>>((const double *)C, (const double *)C, (double *)D);
    cudaDeviceSynchronize();
    return 0;
}

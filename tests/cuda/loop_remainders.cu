// smemsim test fixture: loops with a run-time trip count that nvcc unrolls by 4 into LDS.128,
// with the two remainders nvcc emits, a loop of two such loads on one line (row_dot), and one
// whose other line stays narrow (row_times_column). `tail_sum` and `tail_sum_from_one` are written for
// smemsim (the remainder loop issues one LDS per leftover iteration; the second loop starts
// at s[1]); `softmax_autoregressive_backward_kernel6` is copied verbatim from
// github:karpathy/llm.c (MIT license), dev/cuda/attention_backward.cu (lines 579-631 of
// tests/corpus/llm_c/attention_backward.cu), with common.h's ceil_div above it and a launch
// below (its leftover iterations are one more LDS.128 of the aligned four).
#include <cooperative_groups.h>

template<class T>
__host__ __device__ T ceil_div(T dividend, T divisor) {
    return (dividend + divisor-1) / divisor;
}

__global__ void tail_sum(float *out)
{
    __shared__ float s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    float acc = 0.f;
    int end = blockIdx.x + 1;
    for (int i = 0; i < end; i++)
        acc += s[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void tail_sum_from_one(float *out)
{
    __shared__ float s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    float acc = 0.f;
    int end = blockIdx.x + 1;
    for (int i = 1; i < end; i++)
        acc += s[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// written for smemsim: two loads on one line of a loop nvcc still loops, each read four
// iterations per LDS.128 (gpu-mode's lecture 12 flash attention: S_ij += Q_i[ii][dd] *
// K_j[jj][dd])
__global__ void row_dot(float *out)
{
    __shared__ float a[8][128];
    __shared__ float b[32][128];
    for (int i = threadIdx.x; i < 8 * 128; i += blockDim.x)
        a[i / 128][i % 128] = i;
    for (int i = threadIdx.x; i < 32 * 128; i += blockDim.x)
        b[i / 128][i % 128] = i;
    __syncthreads();
    float s = 0.f;
    for (int k = 0; k < 128; k++)
        s += a[threadIdx.x % 8][k] * b[threadIdx.x / 8][k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// written for smemsim: a loop nvcc still loops, one of whose two lines it reads four
// iterations per LDS.128 (the row, one address for the warp) while the other stays LDS (the
// column): gpu-mode's flash attention's `P_ij = expf(S[..][jj] - m); ... O_i += P_ij *
// V_j[jj][..]`
__global__ void row_times_column(float *out)
{
    __shared__ float row[8][64];
    __shared__ float col[64][32];
    for (int i = threadIdx.x; i < 8 * 64; i += blockDim.x)
        row[i / 64][i % 64] = i;
    for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x)
        col[i / 32][i % 32] = i;
    __syncthreads();
    float acc = 0.f;
    for (int j = 0; j < 64; j++) {
        float p = __expf(row[threadIdx.x / 32][j]);
        acc += p * col[j][threadIdx.x % 32];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template<int BlockSize>
__global__ void __launch_bounds__(BlockSize) softmax_autoregressive_backward_kernel6(float* dpreatt, const float* datt, const float* att,
                                                        int B, int T, int C, int NH) {
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    __shared__ float att_bth_s[BlockSize];

    int idx = blockIdx.y;
    int t = blockIdx.x;

    att += idx * T * T;
    datt += idx * T * T;
    dpreatt += idx * T * T;

    int hs = C / NH; // head size
    float scale = 1.0f / sqrtf(hs);
    const float* att_bth = att + t * T;
    const float* datt_bth = datt + t * T;
    float* dpreatt_bth = dpreatt + t * T;

    int block_steps = ceil_div(t+1, BlockSize);
    // very important: This loop condition needs to be the same for all threads.
    // even if a thread later on is not going to do any work, it needs to participate in the
    // data loading process!
    for (int t3f = 0; t3f < block_steps; ++t3f) {
        int t3 = t3f * BlockSize + block.thread_rank();
        float acc = 0.f;
        float at3 = att_bth[t3];
        for (int t2b = 0; t2b <= t; t2b += BlockSize) {
            int end = min(t + 1 - t2b, BlockSize);
            block.sync();
            {
                int t2i = block.thread_rank();
                int t2 = min(t, t2b + t2i);
                att_bth_s[t2i] = att_bth[t2] * datt_bth[t2];
            }

            block.sync();
            if(t3f * BlockSize == t2b) {
                for (int t2i = 0; t2i < end; t2i++) {
                    int t2 = t2b + t2i;
                    float indicator = t2 == t3 ? 1.0f : 0.0f;
                    acc += att_bth_s[t2i] * (indicator - at3);
                }
            } else {
                for (int t2i = 0; t2i < end; t2i++) {
                    acc +=  att_bth_s[t2i] * (0.f - at3);
                }
            }
        }
        dpreatt_bth[t3] = scale * acc;
    }
}

int main()
{
    const int B = 2, T = 256, C = 768, NH = 12;
    float *out, *dpreatt, *datt, *att;
    cudaMalloc(&out, 256 * 256 * sizeof(float));
    cudaMalloc(&dpreatt, B * NH * T * T * sizeof(float));
    cudaMalloc(&datt, B * NH * T * T * sizeof(float));
    cudaMalloc(&att, B * NH * T * T * sizeof(float));
    tail_sum<<<256, 256>>>(out);
    tail_sum_from_one<<<256, 256>>>(out);
    row_dot<<<256, 256>>>(out);
    row_times_column<<<256, 256>>>(out);
    softmax_autoregressive_backward_kernel6<256><<<dim3(T, B * NH), 256>>>(dpreatt, datt, att,
                                                                         B, T, C, NH);
    return 0;
}

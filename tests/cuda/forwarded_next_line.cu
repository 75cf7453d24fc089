// A loop whose next line reads what the line before it stored (written for smemsim's tests,
// #24), after flash-attention-minimal's `S[..] = __expf(S[..] - row_m); row_l += S[..];`: nvcc
// reads the stored value from its register, so the second line has no instruction, and the
// first line's copies (the loop partly unrolled, its trip count known at run time) are all
// its own.
__global__ void exp_rows(float *out, int bc)
{
    extern __shared__ float s[];
    int tx = threadIdx.x;
    for (int y = 0; y < bc; y++)
        s[bc * tx + y] = out[bc * tx + y];
    float row_l = 0;
    for (int y = 0; y < bc; y++) {
        s[bc * tx + y] = __expf(s[bc * tx + y] - 1.0f);
        row_l += s[bc * tx + y];
    }
    out[tx] = row_l;
}

int main()
{
    float *out;
    cudaMalloc(&out, 32 * 13 * sizeof(float));
    cudaMemset(out, 0, 32 * 13 * sizeof(float));
    exp_rows<<<1, 32, 32 * 13 * sizeof(float)>>>(out, 13);
    cudaDeviceSynchronize();
    return 0;
}

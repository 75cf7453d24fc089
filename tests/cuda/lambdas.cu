// smemsim test: lambdas a kernel defines and calls ([&] captures the enclosing locals by
// reference; [] nothing), inlined at each call.
__global__ void lam(const float* in, float* out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    float acc = 0.0f;
    auto step = [&](int i) {
        acc += s[i] * 2.0f;
    };
    auto twice = [](float x) -> float { return 2.0f * x; };
    s[t] = in[t];
    s[t + 32] = in[t + 32];
    __syncthreads();
    for (int i = t; i < n; i += 32) { step(i); }
    step((t + 1) % 64);
    out[t] = twice(acc);
}
void h(const float* in, float* out) { lam<<<1, 32>>>(in, out, 64); }

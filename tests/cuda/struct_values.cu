// Structs in registers as kernels use them (tests/test_cuda_structs.py): a struct passed and
// returned by value and chosen by ?: (llm.c's SumMax), a template struct's partial
// specializations with a constructor and a member function (fast.cu's Schedule), and a
// struct with static members, static member functions and operator[] (llm.c's Packed128).
struct __align__(8) SumMax { float maxval; float sum; };

__device__ __forceinline__ SumMax combine(SumMax a, SumMax b) {
    bool a_bigger = (a.maxval > b.maxval);
    SumMax bigger_m = a_bigger ? a : b;
    SumMax smaller_m = a_bigger ? b : a;
    SumMax res;
    res.maxval = bigger_m.maxval;
    res.sum = bigger_m.sum + smaller_m.sum * expf(smaller_m.maxval - bigger_m.maxval);
    return res;
}

template<int VERSION, int STEP> struct Walk;

template<int STEP> struct Walk<0, STEP> {
    int at;
    __device__ Walk(int start) { at = start * 1000; }
    __device__ int next() { return -1; }
};

template<int STEP> struct Walk<1, STEP> {
    int at, end;
    __device__ Walk(int start, int stop) { at = start; end = stop; }
    __device__ int next() {
        if (at >= end) return -1;
        int here = at;
        at += STEP;
        return here;
    }
};

template<class T> struct Pack {
    static constexpr const int size = 16 / sizeof(T);
    T payload[size];
    __device__ static Pack constant(T v) {
        Pack r;
        for (int k = 0; k < size; ++k) r.payload[k] = v;
        return r;
    }
    __device__ static Pack zeros() { return constant(0); }
    __device__ T& operator[](int i) { return payload[i]; }
};
typedef Pack<float> f128;

__global__ void k(const float* in, float* out) {
    __shared__ float s[256];
    int t = threadIdx.x;
    SumMax acc;
    acc.maxval = -INFINITY;
    acc.sum = 0.0f;
    for (int i = t; i < 256; i += blockDim.x) {
        s[i] = in[i];
        acc = combine(acc, {in[i], 1.0f});
    }
    __syncthreads();
    Walk<1, 32> w(t, 256);
    float total = 0.0f;
    for (int i = w.next(); i >= 0; i = w.next()) total += s[i];
    f128 v = f128::zeros();
    for (int k = 0; k < f128::size; ++k) v[k] = s[(t * f128::size + k) % 256];
    out[t] = total + acc.sum + acc.maxval + v[0] + v[3];
}

void host(const float* in, float* out) { k<<<1, 32>>>(in, out); }

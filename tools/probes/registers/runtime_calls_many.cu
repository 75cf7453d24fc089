#include <cstdio>
template <int N> __global__ void big(float *x) { float v[N]; for (int i = 0; i < N; ++i) v[i] = x[threadIdx.x + i * 32]; float s = 0; for (int i = 0; i < N; ++i) s += v[i] * v[(i * 7) % N] + v[(i * 3) % N] * s; if (s == 1.f) printf("%f\n", s); x[threadIdx.x] = s; }
template <int N> __global__ void nop(float *x) { float v[N]; for (int i = 0; i < N; ++i) v[i] = x[threadIdx.x + i * 32]; float s = 0; for (int i = 0; i < N; ++i) s += v[i] * v[(i * 7) % N] + v[(i * 3) % N] * s; x[threadIdx.x] = s; }
int main() {
  float *x; cudaMalloc(&x, 1 << 20); cudaMemset(x, 0, 1 << 20);
  big<36><<<1, 32>>>(x); big<60><<<1, 32>>>(x); nop<36><<<1, 32>>>(x); nop<60><<<1, 32>>>(x);
  int n; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, big<60>, 256, 0); printf("occ big60 %d\n", n);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, nop<60>, 256, 0); printf("occ nop60 %d\n", n);
  cudaDeviceSynchronize(); return 0;
}

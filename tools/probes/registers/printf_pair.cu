#include <cstdio>
__global__ void p2(float *x) { float v[24]; for (int i = 0; i < 24; ++i) v[i] = x[threadIdx.x + i * 32]; float s = 0; for (int i = 0; i < 24; ++i) s += v[i] * v[(i * 7) % 24]; if (s == 1.f) printf("%f %f %f\n", v[0], v[5], s); x[threadIdx.x] = s; }
__global__ void q2(float *x) { float v[24]; for (int i = 0; i < 24; ++i) v[i] = x[threadIdx.x + i * 32]; float s = 0; for (int i = 0; i < 24; ++i) s += v[i] * v[(i * 7) % 24]; x[threadIdx.x] = s; }
int main() {
  float *x; cudaMalloc(&x, 4096 * 4); cudaMemset(x, 0, 4096 * 4);
  cudaFuncAttributes a; cudaFuncGetAttributes(&a, p2); printf("p2 numRegs %d\n", a.numRegs);
  cudaFuncGetAttributes(&a, q2); printf("q2 numRegs %d\n", a.numRegs);
  p2<<<1, 32>>>(x); q2<<<1, 32>>>(x); cudaDeviceSynchronize(); return 0;
}

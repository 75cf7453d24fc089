#include <cstdio>
__global__ void p0(int *x) { if (x[threadIdx.x] == 7) printf("hi %d\n", x[0]); }
__global__ void p1(float *x) { float a = x[threadIdx.x]; for (int i = 0; i < 40; ++i) a = a * x[i] + x[i + 40]; x[threadIdx.x] = a; if (a == 3.f) printf("a %f\n", a); }
__global__ void m0(int *x) { int *p = (int *)malloc(16); if (p) { p[0] = x[0]; x[1] = p[0]; free(p); } }
__global__ void e0(int *x) { if (x[threadIdx.x] == 7) printf("hi\n"); }
__global__ void big(float *x) { float v[40]; for (int i = 0; i < 40; ++i) v[i] = x[threadIdx.x + i * 32]; float s = 0; for (int i = 0; i < 40; ++i) s += v[i] * v[(i * 7) % 40]; if (s == 1.f) printf("%f\n", s); x[threadIdx.x] = s; }
int main() {
  int *x; cudaMalloc(&x, 1 << 16); cudaMemset(x, 0, 1 << 16);
  p0<<<1, 32>>>(x); p1<<<1, 32>>>((float *)x); m0<<<1, 32>>>(x); e0<<<1, 32>>>(x); big<<<1, 32>>>((float *)x);
  cudaDeviceSynchronize(); return 0;
}

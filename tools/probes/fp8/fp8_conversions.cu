// A probe of smemsim's PTX lowering of 8-bit float conversions (cvt.rn.satfinite.e4m3x2.f32,
// cvt.rn.f16x2.e4m3x2 and their e5m2 forms): the kernel converts every input as the GPU does;
// main() runs it on the GPU and prints the results as JSON (tests/data/fp8_h200.json), which
// tests/test_ptx.py compares with what smemsim's interpreter computes of the same kernel.
#include <cuda_fp8.h>
#include <cstdio>
#include <cstring>
#include <cmath>

__global__ void conv(const float* x, unsigned short* enc4, unsigned short* enc5,
                     unsigned* dec4, unsigned* dec5, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {   // two floats to a pair of 8-bit floats (x[2t] the upper byte)
    float2 v = make_float2(x[2 * t + 1], x[2 * t]);
    enc4[t] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
    enc5[t] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
  }
  if (t < 256) {   // every code, as both bytes of a pair, to halves
    unsigned short pair = (unsigned short)(t | (t << 8));
    __half2_raw h4 = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E4M3);
    __half2_raw h5 = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E5M2);
    dec4[t] = h4.x | ((unsigned)h4.y << 16);
    dec5[t] = h5.x | ((unsigned)h5.y << 16);
  }
}

#ifndef SMEMSIM_KERNEL_ONLY
int main() {
  const int n = 4096;
  static float x[2 * n];
  unsigned seed = 12345;
  for (int i = 0; i < 2 * n; i++) {   // edges first, then spread over every binade
    static const float edge[] = {0.f, -0.f, 448.f, 464.f, 465.f, 480.f, 1e9f, INFINITY,
                                 -INFINITY, NAN, 57344.f, 61440.f, 61441.f, 0.001953125f,
                                 0.0009765625f, 0.00146484375f, 0.0029296875f, 1.0625f,
                                 1.1875f, -1.0625f, 6.103515625e-05f, 1.52587890625e-05f};
    if (i < (int)(sizeof edge / sizeof edge[0])) { x[i] = edge[i]; continue; }
    seed = seed * 1664525u + 1013904223u;
    float m = 1.0f + (seed >> 8) / 16777216.0f;
    int e = (int)((seed >> 3) % 40) - 24;
    x[i] = ((seed & 1) ? -1.f : 1.f) * ldexpf(m, e);
  }
  float *dx; unsigned short *e4, *e5; unsigned *d4, *d5;
  cudaMalloc(&dx, sizeof x); cudaMalloc(&e4, 2 * n); cudaMalloc(&e5, 2 * n);
  cudaMalloc(&d4, 4 * 256); cudaMalloc(&d5, 4 * 256);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  conv<<<n / 256, 256>>>(dx, e4, e5, d4, d5, n);
  static unsigned short he4[n], he5[n]; static unsigned hd4[256], hd5[256];
  cudaMemcpy(he4, e4, 2 * n, cudaMemcpyDeviceToHost); cudaMemcpy(he5, e5, 2 * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(hd4, d4, 4 * 256, cudaMemcpyDeviceToHost); cudaMemcpy(hd5, d5, 4 * 256, cudaMemcpyDeviceToHost);
  printf("{\"x_bits\": [");
  for (int i = 0; i < 2 * n; i++) { unsigned b; memcpy(&b, &x[i], 4); printf("%s%u", i ? "," : "", b); }
  printf("], \"enc4\": [");
  for (int i = 0; i < n; i++) printf("%s%u", i ? "," : "", he4[i]);
  printf("], \"enc5\": [");
  for (int i = 0; i < n; i++) printf("%s%u", i ? "," : "", he5[i]);
  printf("], \"dec4\": [");
  for (int i = 0; i < 256; i++) printf("%s%u", i ? "," : "", hd4[i]);
  printf("], \"dec5\": [");
  for (int i = 0; i < 256; i++) printf("%s%u", i ? "," : "", hd5[i]);
  printf("]}\n");
  return 0;
}
#endif

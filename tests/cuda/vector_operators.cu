// smemsim test fixture (written here): the helper_math.h way of writing vector code, as
// cuda-samples' dxtc and marchingCubes do: its overloaded operators and functions of
// float3, a float3 array in shared memory given to reference and array parameters, a
// pointer to a local scalar, a __constant__ float3, and a tile of 16 threads synchronizing
// inside a branch that only one tile takes.
#include <cooperative_groups.h>
#include "helper_math.h"

namespace cg = cooperative_groups;

__constant__ float3 kWeight = {1.0f, 2.0f, 0.5f};

__device__ void interp(float3 p0, float3 p1, float t, float3 &p) { p = lerp(p0, p1, t); }

__device__ float3 quantize(float3 v, ushort *w)
{
    v.x = rintf(__saturatef(v.x) * 31.0f);
    *w  = (ushort)v.x;
    return v;
}

__device__ void sumHalf(float3 sums[16], cg::thread_group tile)
{
    const int i = threadIdx.x;
    sums[i] += sums[i ^ 8];
    cg::sync(tile);
    sums[i] += sums[i ^ 4];
    cg::sync(tile);
}

__global__ void shade(float4 *out, ushort *codes, float *flags)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float3 pts[64];
    __shared__ float3 sums[16];
    const unsigned t = threadIdx.x;

    float3 p = make_float3(t, 1.0f, 2.0f);
    float3 q = p + make_float3(0.5f, 0, 0);
    q += p;
    interp(p, q, 0.25f, pts[t]);
    if (t < 16)
        sums[t] = make_float3(t, 2 * t, 1.0f);
    cg::sync(cta);

    cg::thread_group tile = cg::tiled_partition(cta, 16);
    if (t < 16)
        sumHalf(sums, tile);
    cg::sync(cta);

    float3 r = -pts[63 - t];
    ushort code;
    float3 v = quantize(make_float3(t / 64.0f, 0, 0), &code);
    codes[t] = code;
    flags[t] = uint(v.x > 15.0f) + max(dot(r, kWeight), lerp(1.0f, 3.0f, 0.5f));
    out[t] = make_float4(sums[t % 16], 1.0f);
}

int main()
{
    float4 *out;
    ushort *codes;
    float *flags;
    shade<<<1, 64>>>(out, codes, flags);
}

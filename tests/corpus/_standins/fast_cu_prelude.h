// smemsim test corpus: a stand-in, not a copy. fast.cu's kernels (fast_cu/matmul_N.cuh) are
// included by its benchmark's main file after the headers and helpers below; nvcc builds
// each .cuh alone with this prelude (`-include fast_cu_prelude.h`). Written for smemsim.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda/barrier>
typedef __nv_bfloat16 bf16;
#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))
#define cudaCheck(err) (err)

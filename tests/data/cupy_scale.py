# A cupy program written for smemsim's tests (tests/test_ptx_strings.py): an f-string source
# in a RawModule, launched with cupy's (grid, block, args). Never run by smemsim;
# tools/gpu_dsl.py ran its kernel on an H200 as --frontend ptx builds it (docs/validation.md).
import pathlib
pathlib.Path("RAN").write_text("the program was run")
import cupy as cp
import numpy as np

TPB = 128
body = f"""
extern "C" __global__ void scale(const float *x, float *y, int n, float k)
{{
    __shared__ float tile[{TPB}];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] * k : 0.0f;
    __syncthreads();
    if (i < n)
        y[i] = tile[({TPB} - 1) - threadIdx.x] + tile[(threadIdx.x * 2) % {TPB}];
}}
"""
module = cp.RawModule(code=body)
scale = module.get_function("scale")
n = 1000
x = cp.arange(n, dtype=cp.float32)
y = cp.empty_like(x)
scale(((n + TPB - 1) // TPB,), (TPB,), (x, y, np.int32(n), np.float32(2.0)))

"""Kernels written the way their CUDA reads, which nvcc/NVRTC compiles into something else
(fixtures for `--as-compiled`; docs/as-compiled.md gives the SASS of each).

- `matrix_mul`: cuda-samples' matrixMul, `Csub += As[ty][k] * Bs[k][tx]` in a k-loop marked
  unrolled: the compiler reads As four k at a time (LDS.128) and Bs one k at a time.
- `invariant`: a loop that reads the same shared word every iteration: the load is hoisted
  out of the loop and runs once per thread, not n times.
- `swap`: a predicated swap, `if (t[2i] > t[2i+1]) { t[2i] = b; t[2i+1] = a; }`: the two loads
  become one LDS.64, the two stores one STS.64 predicated on the comparison, which every warp
  issues, whether or not one of its lanes swaps.
- `nested`: two nested unrolled loops: w[r][q..q+3] merged into LDS.128, and x[tid][q]
  loaded for r = 0 only (the compiler reuses the values for r = 1..3).
- `guarded_tile`: seed 004's `if (..) tile[..] = A[..]; else tile[..] = 0;`: one STS of a
  selected value after the if, issued once for the lanes of both branches.
"""
import numpy as np

from kernels_ir import KernelBuilder, blockIdx, f32, i32, threadIdx

BS = 16


def matrix_mul(n: int = 320):
    """cuda-samples matrixMul (BLOCK_SIZE 16), C = A x B for n x n matrices."""
    k = KernelBuilder("matrix_mul")
    N = k.param("n")
    A = k.global_array("A", f32, N * N)
    B = k.global_array("B", f32, N * N)
    C = k.global_array("C", f32, N * N, intent="out")
    As = k.shared("As", f32, (BS, BS))
    Bs = k.shared("Bs", f32, (BS, BS))
    tx, ty = threadIdx.x, threadIdx.y
    row = k.let("row", blockIdx.y * BS + ty, i32)
    col = k.let("col", blockIdx.x * BS + tx, i32)
    acc = k.let("Csub", 0.0, f32)
    with k.range("t", 0, N, BS) as t:
        As[ty, tx] = A[row * N + t + tx]
        Bs[ty, tx] = B[(t + ty) * N + col]
        k.syncthreads()
        with k.range("kk", 0, BS, unroll=True) as kk:
            acc.set(acc + As[ty, kk] * Bs[kk, tx])
        k.syncthreads()
    C[row * N + col] = acc
    k.launch(grid=(N // BS, N // BS), block=(BS, BS))
    k.defaults(n=n)
    return k.build()


def invariant(n: int = 40):
    """acc = acc / 2 + s[(tid + 1) % 128] + i for i < n: the load does not depend on i."""
    k = KernelBuilder("invariant")
    N = k.param("n")
    out = k.global_array("out", f32, 64 * 128, intent="out")
    s = k.shared("s", f32, 128)
    s[threadIdx.x] = threadIdx.x * 1.0
    k.syncthreads()
    acc = k.let("acc", 0.0, f32)
    with k.range("i", 0, N) as i:
        acc.set(acc * 0.5 + s[(threadIdx.x + 1) % 128] + i)
    out[blockIdx.x * 128 + threadIdx.x] = acc
    k.launch(grid=(64,), block=(128,))
    k.defaults(n=n)
    return k.build()


def swap():
    """Each thread orders the pair t[2i], t[2i+1] in place."""
    k = KernelBuilder("swap")
    inp = k.global_array("inp", f32, 64 * 256)
    out = k.global_array("out", f32, 64 * 256, intent="out")
    t = k.shared("t", f32, 256)
    tid = threadIdx.x
    t[tid] = inp[blockIdx.x * 256 + tid]
    t[tid + 128] = inp[blockIdx.x * 256 + tid + 128]
    k.syncthreads()
    a = t[2 * tid]
    b = t[2 * tid + 1]
    with k.if_(a > b):
        t[2 * tid] = b
        t[2 * tid + 1] = a
    k.syncthreads()
    out[blockIdx.x * 256 + tid] = t[tid]
    out[blockIdx.x * 256 + tid + 128] = t[tid + 128]
    k.launch(grid=(64,), block=(128,))
    return k.build()


def swap_inputs(launch) -> dict:
    """Blocks 0-31 already ordered (no lane swaps), blocks 32-63 random: half the warps issue
    the predicated store with no active lane."""
    rng = np.random.default_rng(3)
    data = rng.random(64 * 256).astype(np.float32)
    data[:32 * 256] = np.sort(data[:32 * 256])
    return {"inp": data}


def nested(n: int = 8):
    """out = sum over r < 4, q < 8 of w[r][q] * x[q]: two nested unrolled loops."""
    k = KernelBuilder("nested")
    out = k.global_array("out", f32, 256 * n, intent="out")
    w = k.shared("w", f32, (4, 8))
    x = k.shared("x", f32, (256, 9))
    tid = threadIdx.x
    with k.if_(tid < 32):
        w[tid // 8, tid % 8] = tid * 0.25
    with k.range("c", 0, 9, unroll=True) as c:
        x[tid, c] = tid + c * 1.0
    k.syncthreads()
    acc = k.let("acc", 0.0, f32)
    with k.range("r", 0, 4, unroll=True) as r:
        with k.range("q", 0, 8, unroll=True) as q:
            acc.set(acc + w[r, q] * x[tid, q])
    out[blockIdx.x * 256 + tid] = acc
    k.launch(grid=(n,), block=(256,))
    return k.build()


def guarded_tile(n: int = 80):
    """Sum of a zero-padded row read through a 32 x 32 tile, seed 004's guarded load."""
    k = KernelBuilder("guarded_tile")
    N = k.param("n")
    a = k.global_array("a", f32, N)
    out = k.global_array("out", f32, 32, intent="out")
    tile = k.shared("tile", f32, (32, 32))
    acc = k.let("acc", 0.0, f32)
    with k.range("t", 0, (N + 31) // 32) as t:
        with k.if_(t * 32 + threadIdx.x < N):
            tile[threadIdx.y, threadIdx.x] = a[t * 32 + threadIdx.x]
        with k.else_():
            tile[threadIdx.y, threadIdx.x] = 0.0
        k.syncthreads()
        acc.set(acc + tile[threadIdx.x, threadIdx.y])
        k.syncthreads()
    with k.if_(threadIdx.y == 0):
        out[threadIdx.x] = acc
    k.launch(1, (32, 32))
    k.defaults(n=n)
    return k.build()


KERNELS = {"matrix_mul": matrix_mul, "invariant": invariant, "swap": swap, "nested": nested,
           "guarded_tile": guarded_tile}
ARRAYS = {"swap": swap_inputs}

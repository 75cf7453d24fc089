"""The classic 32x32-tile shared-memory matrix transpose: naive, padded and swizzled.

    __global__ void transpose(const float *src, float *dst, int n) {
        __shared__ float tile[32][32 + PAD];
        int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
        tile[threadIdx.y][threadIdx.x] = src[y * n + x];
        __syncthreads();
        x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
        dst[y * n + x] = tile[threadIdx.x][threadIdx.y];   // a column: 32-way conflict if PAD=0
    }

The swizzled variant stores element (r, c) at column c ^ r (CuTe's Swizzle<5,0,5>), which
spreads a column over all 32 banks without extra memory.
"""
from kernels_ir import KernelBuilder, blockIdx, f32, threadIdx

TILE = 32


def transpose(pad: int = 0, swizzle: bool = False, n: int = 256):
    """The transpose of an n x n float matrix (n a multiple of 32), one 32x32 tile per block."""
    name = "transpose_swizzled" if swizzle else f"transpose_pad{pad}"
    k = KernelBuilder(name)
    n_ = k.param("n")
    src = k.global_array("src", f32, n_ * n_)
    dst = k.global_array("dst", f32, n_ * n_, intent="out")
    tile = k.shared("tile", f32, (TILE, TILE), pad=pad)
    tx, ty = threadIdx.x, threadIdx.y
    col = (lambda r, c: c ^ r) if swizzle else (lambda r, c: c)

    x = blockIdx.x * TILE + tx
    y = blockIdx.y * TILE + ty
    tile[ty, col(ty, tx)] = src[y * n_ + x]
    k.syncthreads()
    x = blockIdx.y * TILE + tx
    y = blockIdx.x * TILE + ty
    dst[y * n_ + x] = tile[tx, col(tx, ty)]

    k.launch(grid=(n_ // TILE, n_ // TILE), block=(TILE, TILE))
    k.defaults(n=n)
    return k.build()


KERNELS = {
    "naive": lambda: transpose(pad=0),
    "padded": lambda: transpose(pad=1),
    "swizzled": lambda: transpose(swizzle=True),
}

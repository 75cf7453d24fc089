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
from kernels_ir import KernelBuilder, Swizzle, blockIdx, f32, threadIdx

TILE = 32


def transpose(pad: int = 0, swizzle: bool = False, n: int = 256, layout=None):
    """The transpose of an n x n float matrix (n a multiple of 32), one 32x32 tile per block."""
    name = _name(pad, swizzle, layout)
    k = KernelBuilder(name)
    n_ = k.param("n")
    src = k.global_array("src", f32, n_ * n_)
    dst = k.global_array("dst", f32, n_ * n_, intent="out")
    tile = k.shared("tile", f32, (TILE, TILE), pad=pad, layout=layout)
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


def _name(pad: int, swizzle: bool, layout) -> str:
    if layout is not None:  # the tile's layout is declared; its indices stay row-major
        return "transpose_" + (layout.lower() if isinstance(layout, str) else "declared")
    return "transpose_swizzled" if swizzle else f"transpose_pad{pad}"


# `declared` gets the swizzled layout from its declaration instead of its indices;
# `tma_128b` shows TMA's SWIZZLE_128B on 4-byte columns: it permutes 16-byte chunks, so a
# column still meets each bank 4 times.
KERNELS = {
    "naive": lambda: transpose(pad=0),
    "padded": lambda: transpose(pad=1),
    "swizzled": lambda: transpose(swizzle=True),
    "declared": lambda: transpose(layout=Swizzle(5, 0, 5)),
    "tma_128b": lambda: transpose(layout="SWIZZLE_128B"),
}

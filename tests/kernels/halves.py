"""f16 and bf16 arrays: each thread loads `width` 16-bit floats from global memory, stores
them scaled into a shared tile, and after a barrier reads them back reversed and writes them
out plus one. Loads widen to f32 exactly; stores round to nearest even.

    __shared__ half tile[N];
    v = src[t*W .. t*W+W-1];                     // LDG of W halves
    tile[t*W .. ] = v * 3;                       // STS.U16 / STS / STS.64 / STS.128
    __syncthreads();
    u = tile[N - W - t*W .. ];                   // LDS of the same width
    dst[t*W .. ] = u + 1;
"""
from kernels_ir import KernelBuilder, bf16, f16, threadIdx

N = 1024


def scaled(dtype, width: int):
    """The kernel for one element type and vector width (1, 2, 4 or 8 elements)."""
    k = KernelBuilder(f"halves_{dtype.name}_x{width}")
    src = k.global_array("src", dtype, N)
    dst = k.global_array("dst", dtype, N, intent="out")
    tile = k.shared("tile", dtype, N)
    i = threadIdx.x * width
    v = src.load(i, width=width)
    tile.store(i, [v[j] * 3.0 for j in range(width)] if width > 1 else v * 3.0, width=width)
    k.syncthreads()
    u = tile.load(N - width - i, width=width)
    dst.store(i, [u[j] + 1.0 for j in range(width)] if width > 1 else u + 1.0, width=width)
    k.launch(1, N // width)
    return k.build()


KERNELS = {f"{t.name}_x{w}": (lambda t=t, w=w: scaled(t, w))
           for t in (f16, bf16) for w in (1, 2, 4, 8)}

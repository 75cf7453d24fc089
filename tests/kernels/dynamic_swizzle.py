"""A 32x32 float transpose through a dynamic shared tile declared with a layout:

    extern __shared__ float tile[];          // the launch gives `bytes` of it
    tile[swz(ty * 32 + tx)] = src[ty * 32 + tx];
    __syncthreads();
    dst[ty * 32 + tx] = tile[swz(tx * 32 + ty)];    // swz: Swizzle<5,0,5> when declared
"""
from kernels_ir import KernelBuilder, Swizzle, f32, threadIdx


def transpose(layout=None):
    """The kernel, with `layout` on its dynamic tile."""
    k = KernelBuilder("dyn")
    src = k.global_array("src", f32, 1024)
    dst = k.global_array("dst", f32, 1024, intent="out")
    tile = k.dynamic_shared("tile", f32, (None, 32), layout=layout)
    tx, ty = threadIdx.x, threadIdx.y
    tile[ty, tx] = src[ty * 32 + tx]
    k.syncthreads()
    dst[ty * 32 + tx] = tile[tx, ty]
    k.launch(1, (32, 32), dynamic_smem=k.param("bytes"))
    k.defaults(bytes=4096)
    return k.build()


KERNELS = {"plain": transpose, "swizzled": lambda: transpose(Swizzle(5, 0, 5))}

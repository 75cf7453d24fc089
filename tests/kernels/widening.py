"""A kernel whose four scalar shared loads NVRTC merges into one LDS.128 (a test fixture:
the SASS check must report it, and the analysis re-run with the compiled widths must match
the GPU)."""
from kernels_ir import KernelBuilder, f32, threadIdx


def widening():
    """acc = tile[tx][0] + tile[tx][1] + tile[tx][2] + tile[tx][3]: 16-byte aligned rows."""
    k = KernelBuilder("widening")
    out = k.global_array("out", f32, 1024, intent="out")
    tile = k.shared("tile", f32, (32, 32))
    tile[threadIdx.y, threadIdx.x] = 1.0
    k.syncthreads()
    a0, a1 = tile[threadIdx.x, 0], tile[threadIdx.x, 1]
    a2, a3 = tile[threadIdx.x, 2], tile[threadIdx.x, 3]
    out[threadIdx.y * 32 + threadIdx.x] = a0 + a1 + a2 + a3
    k.launch(1, (32, 32))
    return k.build()


KERNELS = {"widening": widening}

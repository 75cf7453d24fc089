"""Two adjacent 4-byte stores, `t[2i]` and `t[2i+1]`, as GPU Gems 3's scan writes them:
NVRTC merges them into one STS.64 and its line information gives the STS.64 to the second.
"""
from kernels_ir import KernelBuilder, f32, threadIdx
def pair():
    k = KernelBuilder("pair")
    src = k.global_array("src", f32, 512)
    out = k.global_array("out", f32, 512, intent="out")
    t = k.shared("t", f32, 512)
    i = threadIdx.x
    t[2 * i] = src[2 * i]
    t[2 * i + 1] = src[2 * i + 1]
    k.syncthreads()
    out[i] = t[i] + t[i + 256]
    k.launch(1, 256)
    return k.build()
KERNELS = {"pair": pair}

# Kernels imported from seed004.cu by `smemsim import` (edit freely).
# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.
from kernels_ir import (
    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, f16, f32,
    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, smin,
    source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)


def multiply():
    """`multiply`."""
    kb = KernelBuilder("multiply")  # seed004.cu:16
    A_mat = kb.global_array("A_mat", "f64", const(256, i32) * 256, intent="in")  # seed004.cu:16
    B_mat = kb.global_array("B_mat", "f64", const(256, i32) * 256, intent="in")  # seed004.cu:16
    C_mat = kb.global_array("C_mat", "f64", const(256, i32) * 256, intent="out")  # seed004.cu:16
    A_shared = kb.shared("A_shared", "f64", (16, 16,))
    B_shared = kb.shared("B_shared", "f64", (16, 16,))
    i = kb.let("i", 0, "i32")  # seed004.cu:18
    j = kb.let("j", 0, "i32")  # seed004.cu:18
    temp = kb.let("temp", 0.0, "f64")  # seed004.cu:19
    row = kb.let("row", cast(blockIdx.y * blockDim.y + threadIdx.y, i32), "i32")  # seed004.cu:26
    col = kb.let("col", cast(blockIdx.x * blockDim.x + threadIdx.x, i32), "i32")  # seed004.cu:27
    with kb.loop("tileNUM", 0, lambda tileNUM: tileNUM < const(256, i32) // 16, step=1, unroll="auto", dtype="i32") as tileNUM:  # seed004.cu:30
        j.set(cast(tileNUM * 16 + threadIdx.x, i32))  # seed004.cu:33
        i.set(cast(tileNUM * 16 + threadIdx.y, i32))  # seed004.cu:34
        A_mat_v = A_mat.load((row * 256 + j,), width=1, name="A_mat_v")  # seed004.cu:37
        A_shared[threadIdx.y, threadIdx.x] = A_mat_v  # seed004.cu:37
        B_mat_v = B_mat.load((i * 256 + col,), width=1, name="B_mat_v")  # seed004.cu:38
        B_shared[threadIdx.y, threadIdx.x] = B_mat_v  # seed004.cu:38
        kb.syncthreads()  # seed004.cu:39
        with kb.loop("k", 0, lambda k: k < 16, step=1, unroll="auto", dtype="i32") as k:  # seed004.cu:42
            A_shared_v = A_shared.load((threadIdx.y, k,), width=1, name="A_shared_v")  # seed004.cu:44
            B_shared_v = B_shared.load((k, threadIdx.x,), width=1, name="B_shared_v")  # seed004.cu:44
            temp.set(temp + A_shared_v * B_shared_v)  # seed004.cu:44
        kb.syncthreads()  # seed004.cu:46
    C_mat[row * 256 + col] = temp  # seed004.cu:50
    kb.launch(grid=(const(256, i32) // 16, const(256, i32) // 16, 1), block=(16, 16, 1), dynamic_smem=0)  # seed004.cu:16
    return kb.build()

KERNELS = {'multiply': multiply}

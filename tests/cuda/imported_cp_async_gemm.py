# Kernels imported from cp_async_gemm.cu by `smemsim import` (edit freely).
# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.
from kernels_ir import (
    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, f16, f32,
    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, smin,
    source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)


def cp_async_gemm():
    """`cp_async_gemm`."""
    kb = KernelBuilder("cp_async_gemm")  # cp_async_gemm.cu:11
    M = kb.param("M", "i32")  # cp_async_gemm.cu:11
    N = kb.param("N", "i32")  # cp_async_gemm.cu:11
    K = kb.param("K", "i32")  # cp_async_gemm.cu:11
    A = kb.global_array("A", "f32", M * K, intent="in")  # cp_async_gemm.cu:11
    B = kb.global_array("B", "f32", K * N, intent="in")  # cp_async_gemm.cu:11
    C = kb.global_array("C", "f32", M * N, intent="out")  # cp_async_gemm.cu:11
    As = kb.shared("As", "f32", (2, 16, 16,))
    Bs = kb.shared("Bs", "f32", (2, 16, 16,))
    tx = kb.let("tx", cast(threadIdx.x, i32), "i32")  # cp_async_gemm.cu:14
    ty = kb.let("ty", cast(threadIdx.y, i32), "i32")  # cp_async_gemm.cu:14
    bx = kb.let("bx", cast(blockIdx.x, i32), "i32")  # cp_async_gemm.cu:14
    by = kb.let("by", cast(blockIdx.y, i32), "i32")  # cp_async_gemm.cu:14
    t = kb.let("t", ty * 16 + tx, "i32")  # cp_async_gemm.cu:15
    tiles = kb.let("tiles", K // 16, "i32")  # cp_async_gemm.cu:16
    acc = kb.let("acc", 0.0, "f32")  # cp_async_gemm.cu:17
    with kb.if_(t < 64):  # cp_async_gemm.cu:18
        kb.cp_async(As, (0, t // 4, t % 4 * 4), A, (by * 16 + t // 4) * K + t % 4 * 4, width=4, bypass=False)  # cp_async_gemm.cu:20
    with kb.else_():  # cp_async_gemm.cu:18
        with kb.if_(t < 128):  # cp_async_gemm.cu:22
            u = kb.let("u", t - 64, "i32")  # cp_async_gemm.cu:23
            kb.cp_async(Bs, (0, u // 4, u % 4 * 4), B, u // 4 * N + bx * 16 + u % 4 * 4, width=4, bypass=True)  # cp_async_gemm.cu:24
    kb.cp_async_commit()  # cp_async_gemm.cu:27
    with kb.loop("kt", 0, lambda kt: kt < tiles, step=1, unroll="auto", dtype="i32") as kt:  # cp_async_gemm.cu:28
        with kb.if_(kt + 1 < tiles):  # cp_async_gemm.cu:29
            s = kb.let("s", (kt + 1) % 2, "i32")  # cp_async_gemm.cu:30
            with kb.if_(t < 64):  # cp_async_gemm.cu:31
                kb.cp_async(As, (s, t // 4, t % 4 * 4), A, (by * 16 + t // 4) * K + (kt + 1) * 16 + t % 4 * 4, width=4, bypass=False)  # cp_async_gemm.cu:33
            with kb.else_():  # cp_async_gemm.cu:31
                with kb.if_(t < 128):  # cp_async_gemm.cu:36
                    u_2 = kb.let("u_2", t - 64, "i32")  # cp_async_gemm.cu:37
                    kb.cp_async(Bs, (s, u_2 // 4, u_2 % 4 * 4), B, ((kt + 1) * 16 + u_2 // 4) * N + bx * 16 + u_2 % 4 * 4, width=4, bypass=True)  # cp_async_gemm.cu:38
            kb.cp_async_commit()  # cp_async_gemm.cu:41
            kb.cp_async_wait(1)  # cp_async_gemm.cu:42
        with kb.else_():  # cp_async_gemm.cu:29
            kb.cp_async_wait(0)  # cp_async_gemm.cu:44
        kb.syncthreads()  # cp_async_gemm.cu:46
        with kb.loop("k", 0, lambda k: k < 16, step=1, unroll="auto", dtype="i32") as k:  # cp_async_gemm.cu:47
            As_v = As.load((kt % 2, ty, k,), width=1, name="As_v")  # cp_async_gemm.cu:48
            Bs_v = Bs.load((kt % 2, k, tx,), width=1, name="Bs_v")  # cp_async_gemm.cu:48
            acc.set(acc + As_v * Bs_v)  # cp_async_gemm.cu:48
        kb.syncthreads()  # cp_async_gemm.cu:49
    C[(by * 16 + ty) * N + bx * 16 + tx] = acc  # cp_async_gemm.cu:51
    kb.launch(grid=(N // 16, M // 16, 1), block=(16, 16, 1), dynamic_smem=0)  # cp_async_gemm.cu:11
    kb.defaults(**{"M": 512, "N": 512, "K": 512})  # cp_async_gemm.cu:11
    return kb.build()

KERNELS = {'cp_async_gemm': cp_async_gemm}

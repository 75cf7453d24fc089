# Kernels imported from persistent_gemm.cu by `smemsim import` (edit freely).
# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.
from kernels_ir import (
    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, f16, f32,
    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, smin,
    source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)


def persistent_gemm():
    """`persistent_gemm`."""
    kb = KernelBuilder("persistent_gemm")  # persistent_gemm.cu:7
    M = kb.param("M", "i32")  # persistent_gemm.cu:7
    N = kb.param("N", "i32")  # persistent_gemm.cu:7
    K = kb.param("K", "i32")  # persistent_gemm.cu:7
    A = kb.global_array("A", "f32", M * K, intent="in")  # persistent_gemm.cu:7
    B = kb.global_array("B", "f32", K * N, intent="in")  # persistent_gemm.cu:7
    C = kb.global_array("C", "f32", M * N, intent="inout")  # persistent_gemm.cu:7
    As = kb.shared("As", "f32", (16, 64,))
    Bs = kb.shared("Bs", "f32", (16, 16, 4,))
    tx = kb.let("tx", cast(threadIdx.x, i32), "i32")  # persistent_gemm.cu:11
    ty = kb.let("ty", cast(threadIdx.y, i32), "i32")  # persistent_gemm.cu:11
    tid = kb.let("tid", ty * 16 + tx, "i32")  # persistent_gemm.cu:12
    tiles_n = kb.let("tiles_n", N // 64, "i32")  # persistent_gemm.cu:13
    with kb.loop("tile", cast(blockIdx.x, i32), lambda tile: tile < M // 64 * tiles_n, step=cast(gridDim.x, i32), unroll="auto", dtype="i32") as tile:  # persistent_gemm.cu:14
        m0 = kb.let("m0", tile // tiles_n * 64, "i32")  # persistent_gemm.cu:15
        n0 = kb.let("n0", tile % tiles_n * 64, "i32")  # persistent_gemm.cu:16
        acc = kb.local_array("acc", "f32", (4, 4,))  # persistent_gemm.cu:17
        with kb.loop("r", 0, lambda r: r < 4, step=1, unroll="auto", dtype="i32") as r:  # persistent_gemm.cu:18
            acc[r, 0] = 0.0  # persistent_gemm.cu:19
            acc[r, 1] = 0.0  # persistent_gemm.cu:19
            acc[r, 2] = 0.0  # persistent_gemm.cu:19
            acc[r, 3] = 0.0  # persistent_gemm.cu:19
        with kb.loop("k0", 0, lambda k0: k0 < K, step=16, unroll="auto", dtype="i32") as k0:  # persistent_gemm.cu:20
            with kb.loop("e", 0, lambda e: e < 4, step=1, unroll="auto", dtype="i32") as e:  # persistent_gemm.cu:21
                A_v = A.load(((m0 + tid // 16 * 4 + e) * K + k0 + tid % 16,), width=1, name="A_v")  # persistent_gemm.cu:22
                As[tid % 16, tid // 16 * 4 + e] = A_v  # persistent_gemm.cu:22
            gb = kb.local_array("gb", "f32", (4,))  # persistent_gemm.cu:23
            B_v = B.load(((k0 + tid // 16) * N + n0 + tid % 16 * 4,), width=4, name="B_v")  # persistent_gemm.cu:23
            gb[0] = B_v[0]  # persistent_gemm.cu:23
            gb[1] = B_v[1]  # persistent_gemm.cu:23
            gb[2] = B_v[2]  # persistent_gemm.cu:23
            gb[3] = B_v[3]  # persistent_gemm.cu:23
            Bs.store((tid // 16, tid % 16, 0,), [gb[0], gb[1], gb[2], gb[3]], width=4)  # persistent_gemm.cu:24
            kb.syncthreads()  # persistent_gemm.cu:25
            with kb.loop("kk", 0, lambda kk: kk < 16, step=1, unroll="auto", dtype="i32") as kk:  # persistent_gemm.cu:26
                a = kb.local_array("a", "f32", (4,))  # persistent_gemm.cu:27
                As_v = As.load((kk, ty * 4,), width=4, name="As_v")  # persistent_gemm.cu:27
                a[0] = As_v[0]  # persistent_gemm.cu:27
                a[1] = As_v[1]  # persistent_gemm.cu:27
                a[2] = As_v[2]  # persistent_gemm.cu:27
                a[3] = As_v[3]  # persistent_gemm.cu:27
                b = kb.local_array("b", "f32", (4,))  # persistent_gemm.cu:28
                Bs_v = Bs.load((kk, tx, 0,), width=4, name="Bs_v")  # persistent_gemm.cu:28
                b[0] = Bs_v[0]  # persistent_gemm.cu:28
                b[1] = Bs_v[1]  # persistent_gemm.cu:28
                b[2] = Bs_v[2]  # persistent_gemm.cu:28
                b[3] = Bs_v[3]  # persistent_gemm.cu:28
                acc[0, 0] = acc[0, 0] + a[0] * b[0]  # persistent_gemm.cu:29
                acc[0, 1] = acc[0, 1] + a[0] * b[1]  # persistent_gemm.cu:29
                acc[0, 2] = acc[0, 2] + a[0] * b[2]  # persistent_gemm.cu:29
                acc[0, 3] = acc[0, 3] + a[0] * b[3]  # persistent_gemm.cu:29
                acc[1, 0] = acc[1, 0] + a[1] * b[0]  # persistent_gemm.cu:30
                acc[1, 1] = acc[1, 1] + a[1] * b[1]  # persistent_gemm.cu:30
                acc[1, 2] = acc[1, 2] + a[1] * b[2]  # persistent_gemm.cu:30
                acc[1, 3] = acc[1, 3] + a[1] * b[3]  # persistent_gemm.cu:30
                acc[2, 0] = acc[2, 0] + a[2] * b[0]  # persistent_gemm.cu:31
                acc[2, 1] = acc[2, 1] + a[2] * b[1]  # persistent_gemm.cu:31
                acc[2, 2] = acc[2, 2] + a[2] * b[2]  # persistent_gemm.cu:31
                acc[2, 3] = acc[2, 3] + a[2] * b[3]  # persistent_gemm.cu:31
                acc[3, 0] = acc[3, 0] + a[3] * b[0]  # persistent_gemm.cu:32
                acc[3, 1] = acc[3, 1] + a[3] * b[1]  # persistent_gemm.cu:32
                acc[3, 2] = acc[3, 2] + a[3] * b[2]  # persistent_gemm.cu:32
                acc[3, 3] = acc[3, 3] + a[3] * b[3]  # persistent_gemm.cu:32
            kb.syncthreads()  # persistent_gemm.cu:34
        with kb.loop("r_2", 0, lambda r_2: r_2 < 4, step=1, unroll="auto", dtype="i32") as r_2:  # persistent_gemm.cu:36
            C.store(((m0 + ty * 4 + r_2) * N + n0 + tx * 4,), [acc[r_2, 0], acc[r_2, 1], acc[r_2, 2], acc[r_2, 3]], width=4)  # persistent_gemm.cu:37
    kb.launch(grid=(132, 1, 1), block=(16, 16, 1), dynamic_smem=0)  # persistent_gemm.cu:7
    kb.defaults(**{"M": 512, "N": 512, "K": 512})  # persistent_gemm.cu:7
    return kb.build()

KERNELS = {'persistent_gemm': persistent_gemm}

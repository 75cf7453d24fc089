# Kernels imported from seed000_square.cu by `smemsim import` (edit freely).
# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.
from kernels_ir import (
    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, f16, f32,
    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, smin,
    source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)


def matrix_mul():
    """`matrix_mul`."""
    kb = KernelBuilder("matrix_mul")  # seed000_square.cu:2
    A_height = kb.param("A_height", "i32")  # seed000_square.cu:2
    A_width = kb.param("A_width", "i32")  # seed000_square.cu:2
    B_width = kb.param("B_width", "i32")  # seed000_square.cu:2
    A = kb.global_array("A", "u8", A_height * A_width, intent="in")  # seed000_square.cu:2
    B = kb.global_array("B", "u8", A_width * B_width, intent="in")  # seed000_square.cu:2
    C = kb.global_array("C", "u8", A_height * B_width, intent="out")  # seed000_square.cu:2
    rowVector = kb.shared("rowVector", "u8", (16, 16,))
    colVector = kb.shared("colVector", "u8", (16, 16,))
    bx = kb.let("bx", cast(blockIdx.x, i32), "i32")  # seed000_square.cu:7
    by = kb.let("by", cast(blockIdx.y, i32), "i32")  # seed000_square.cu:8
    tx = kb.let("tx", cast(threadIdx.x, i32), "i32")  # seed000_square.cu:9
    ty = kb.let("ty", cast(threadIdx.y, i32), "i32")  # seed000_square.cu:10
    row = kb.let("row", 0, "i32")  # seed000_square.cu:11
    col = kb.let("col", 0, "i32")  # seed000_square.cu:11
    with kb.loop("_loop13", 0, lambda _loop13: col < B_width, step=1, do_while=True, unroll="auto", dtype="i32") as _loop13:  # seed000_square.cu:13
        product = kb.let("product", 0, "u8")  # seed000_square.cu:14
        row.set(by * 16 + ty)  # seed000_square.cu:15
        col.set(bx * 16 + tx)  # seed000_square.cu:16
        kb.syncthreads()  # seed000_square.cu:17
        with kb.if_(logical_and(row < A_height, col < B_width)):  # seed000_square.cu:19
            with kb.loop("i", 0, lambda i: i < cast(call("ceil", cast(A_width, f32) / 16), i32), step=1, unroll="auto", dtype="i32") as i:  # seed000_square.cu:21
                bound = kb.let("bound", smin(A_width, 16), "i32")  # seed000_square.cu:22
                with kb.loop("j", tx, lambda j: j < bound, step=cast(blockDim.x, i32), unroll="auto", dtype="i32") as j:  # seed000_square.cu:23
                    A_v = A.load((row * A_width + i * bound + j,), width=1, name="A_v")  # seed000_square.cu:24
                    rowVector[ty, j] = A_v  # seed000_square.cu:24
                with kb.loop("j_2", ty, lambda j_2: j_2 < bound, step=cast(blockDim.y, i32), unroll="auto", dtype="i32") as j_2:  # seed000_square.cu:26
                    B_v = B.load((col + (i * bound + j_2) * B_width,), width=1, name="B_v")  # seed000_square.cu:27
                    colVector[j_2, tx] = B_v  # seed000_square.cu:27
                kb.syncthreads()  # seed000_square.cu:29
                with kb.loop("j_3", 0, lambda j_3: j_3 < bound, step=1, unroll="auto", dtype="i32") as j_3:  # seed000_square.cu:30
                    rowVector_v = rowVector.load((ty, j_3,), width=1, name="rowVector_v")  # seed000_square.cu:32
                    colVector_v = colVector.load((j_3, tx,), width=1, name="colVector_v")  # seed000_square.cu:32
                    product.set(cast(product + rowVector_v * colVector_v, u8))  # seed000_square.cu:32
            C[row * B_width + col] = product  # seed000_square.cu:35
        bx.set(cast(bx + gridDim.x, i32))  # seed000_square.cu:37
        col.set(cast(bx * blockDim.x + tx, i32))  # seed000_square.cu:38
    kb.launch(grid=(8, 1, 1), block=(16, 16, 1), dynamic_smem=0)  # seed000_square.cu:2
    kb.defaults(**{"A_height": 16, "A_width": 16, "B_width": 512})  # seed000_square.cu:2
    return kb.build()

KERNELS = {'matrix_mul': matrix_mul}

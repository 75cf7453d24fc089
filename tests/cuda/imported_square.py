"""Kernels imported from seed000_square.cu by `smemsim import` (edit freely: each line ending in
`# seed000_square.cu:N` reports CUDA line N in smemsim's output)."""
from kernels_ir import (
    KernelBuilder, bf16, blockDim, blockIdx, call, cast, f16, f32, f64, gridDim, i8, i16, i32,
    lnot, logical_and, logical_or, select, smax, smin, source_lines, threadIdx, u8, u16, u32, u64,
)

source_lines(__file__)

TILE_SIZE = 16  # -D TILE_SIZE


def matrix_mul():
    """`matrix_mul` of seed000_square.cu, line 2."""
    kb = KernelBuilder("matrix_mul")  # seed000_square.cu:2
    A_height = kb.param("A_height", "i32")  # seed000_square.cu:2
    A_width = kb.param("A_width", "i32")  # seed000_square.cu:2
    B_width = kb.param("B_width", "i32")  # seed000_square.cu:2
    A = kb.global_array("A", "u8", A_height*A_width, intent="in")  # seed000_square.cu:2
    B = kb.global_array("B", "u8", A_width*B_width, intent="in")  # seed000_square.cu:2
    C = kb.global_array("C", "u8", A_height*B_width, intent="out")  # seed000_square.cu:2
    rowVector = kb.shared("rowVector", "u8", (TILE_SIZE, TILE_SIZE))  # seed000_square.cu:5
    colVector = kb.shared("colVector", "u8", (TILE_SIZE, TILE_SIZE))  # seed000_square.cu:6
    bx = kb.let("bx", blockIdx.x, "i32")  # seed000_square.cu:7
    by = kb.let("by", blockIdx.y, "i32")  # seed000_square.cu:8
    tx = kb.let("tx", threadIdx.x, "i32")  # seed000_square.cu:9
    ty = kb.let("ty", threadIdx.y, "i32")  # seed000_square.cu:10
    row = kb.let("row", 0, "i32")  # declared without a value  # seed000_square.cu:11
    col = kb.let("col", 0, "i32")  # declared without a value  # seed000_square.cu:11
    with kb.loop("_loop0", 0, lambda _loop0: col < B_width, 1, do_while=True, unroll="auto"):  # seed000_square.cu:13
        product = kb.let("product", 0, "u8")  # seed000_square.cu:14
        row.set(by * TILE_SIZE + ty)  # seed000_square.cu:15
        col.set(bx * TILE_SIZE + tx)  # seed000_square.cu:16
        kb.syncthreads()  # seed000_square.cu:17
        with kb.if_(logical_and(row < A_height, col < B_width)):  # seed000_square.cu:19
            with kb.loop("i", 0, lambda i: i < cast((call("ceil", cast(A_width, f32) / TILE_SIZE)), i32), step=1, unroll="auto", dtype="i32") as i:  # seed000_square.cu:21
                bound = kb.let("bound", smin(A_width, TILE_SIZE), "i32")  # seed000_square.cu:22
                with kb.loop("j", tx, lambda j: j < bound, step=blockDim.x, unroll="auto", dtype="i32") as j:  # seed000_square.cu:23
                    rowVector[ty, j] = A[row * A_width + i * bound + j]  # seed000_square.cu:24
                with kb.loop("j", ty, lambda j: j < bound, step=blockDim.y, unroll="auto", dtype="i32") as j:  # seed000_square.cu:26
                    colVector[j, tx] = B[col + (i * bound + j) * B_width]  # seed000_square.cu:27
                kb.syncthreads()  # seed000_square.cu:29
                with kb.loop("j", 0, lambda j: j < bound, step=1, unroll="auto", dtype="i32") as j:  # seed000_square.cu:30
                    product.set(product + (rowVector[ty, j] * colVector[j, tx]))  # seed000_square.cu:32
            C[row * B_width + col] = product  # seed000_square.cu:35
        bx.set(bx + (gridDim.x))  # seed000_square.cu:37
        col.set(bx * blockDim.x + tx)  # seed000_square.cu:38
    kb.launch(grid=(8, 1), block=(16, 16))  # seed000_square.cu:2
    kb.defaults(A_height=16, A_width=16, B_width=512)  # seed000_square.cu:2
    return kb.build()

KERNELS = {"matrix_mul": matrix_mul}

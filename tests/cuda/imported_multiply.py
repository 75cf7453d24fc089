# Kernels read from nvcc's build of seed004.cu by `smemsim import` (edit freely).
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
    A_mat = kb.global_array("A_mat", "u8", cast(const(256, i32) * 256, i64) * 8, intent="in")  # seed004.cu:16
    B_mat = kb.global_array("B_mat", "u8", cast(const(256, i32) * 256, i64) * 8, intent="in")  # seed004.cu:16
    C_mat = kb.global_array("C_mat", "u8", cast(const(256, i32) * 256, i64) * 8, intent="out")  # seed004.cu:16
    A_mat_f64 = kb.global_view(A_mat, "A_mat_f64", "f64")  # seed004.cu:16
    B_mat_f64 = kb.global_view(B_mat, "B_mat_f64", "f64")  # seed004.cu:16
    C_mat_f64 = kb.global_view(C_mat, "C_mat_f64", "f64")  # seed004.cu:16
    smem = kb.shared("smem", "u8", (4096,))
    A_shared = kb.view(smem, "A_shared", "f64", (512,))
    B_shared = kb.view(smem, "B_shared", "f64", (512,))
    loop_0 = kb.let("loop_0", 0, "i32")  # seed004.cu:16
    fd53 = kb.let("fd53", 0.0, "f64")  # seed004.cu:16
    r1 = kb.let("r1", 0, "i32")  # seed004.cu:16
    r2 = kb.let("r2", 0, "u32")  # seed004.cu:16
    r28 = kb.let("r28", 0, "i32")  # seed004.cu:16
    r29 = kb.let("r29", 0, "u32")  # seed004.cu:16
    r3 = kb.let("r3", 0, "u32")  # seed004.cu:16
    r4 = kb.let("r4", 0, "u32")  # seed004.cu:16
    r5 = kb.let("r5", 0, "u32")  # seed004.cu:16
    r6 = kb.let("r6", 0, "u32")  # seed004.cu:16
    rd1 = kb.let("rd1", 0, "i64")  # seed004.cu:16
    rd15 = kb.let("rd15", 0, "i64")  # seed004.cu:16
    rd5 = kb.let("rd5", 0, "i64")  # seed004.cu:16
    rd15.set(cast(cast(threadIdx.x, i32) + cast(cast(cast(blockIdx.y, i32) * cast(blockDim.y, i32) + cast(threadIdx.y, i32), u32) << const(8, u32), i32), i64) * const(8, i64))  # seed004.cu:30
    r28.set(cast(blockIdx.x, i32) * cast(blockDim.x, i32) + cast(threadIdx.x, i32) + cast(threadIdx.y << const(8, u32), i32))  # seed004.cu:30
    fd53.set(const(0.0, f64))  # seed004.cu:30
    r29.set(const(0, u32))  # seed004.cu:30
    rd15_0 = kb.let("rd15_0", rd15, "i64")  # seed004.cu:30
    r28_0 = kb.let("r28_0", r28, "i32")  # seed004.cu:30
    r29_0 = kb.let("r29_0", r29, "u32")  # seed004.cu:30
    kb.assert_((const(1, i64) != const(0, i64)) & ((cast(16, i64) - (cast(cast(r29_0, i32), i64) + const(0, i64) * const(1, i64))) % select(const(1, i64) == const(0, i64), const(1, i64), const(1, i64)) == const(0, i64)) & ((cast(16, i64) - (cast(cast(r29_0, i32), i64) + const(0, i64) * const(1, i64))) // select(const(1, i64) == const(0, i64), const(1, i64), const(1, i64)) >= const(1, i64)), "the loop's counter %r29 meets its end 16 (otherwise the GPU loops until it wraps)")  # seed004.cu:30
    trips = kb.let("trips", select((const(1, i64) != const(0, i64)) & ((cast(16, i64) - (cast(cast(r29_0, i32), i64) + const(0, i64) * const(1, i64))) % select(const(1, i64) == const(0, i64), const(1, i64), const(1, i64)) == const(0, i64)) & ((cast(16, i64) - (cast(cast(r29_0, i32), i64) + const(0, i64) * const(1, i64))) // select(const(1, i64) == const(0, i64), const(1, i64), const(1, i64)) >= const(1, i64)), (cast(16, i64) - (cast(cast(r29_0, i32), i64) + const(0, i64) * const(1, i64))) // select(const(1, i64) == const(0, i64), const(1, i64), const(1, i64)), const(1, i64)), "i64")  # seed004.cu:30
    with kb.loop("iter_l30", cast(0, i64), lambda iter_l30: iter_l30 < trips, step=cast(1, i64), do_while=True, unroll=False, dtype="i64") as iter_l30:  # seed004.cu:30
        kb.assert_((rd15_0 + iter_l30 * const(128, i64)) % 8 == 0, 'misaligned address: a 8-byte element at a byte offset that is not a multiple of 8')  # seed004.cu:37
        A_mat_f64_v = A_mat_f64.load(((rd15_0 + iter_l30 * const(128, i64)) // 8,), width=1, name="A_mat_f64_v")  # seed004.cu:37
        A_shared[threadIdx.y * 16 + threadIdx.x] = A_mat_f64_v  # seed004.cu:37
        B_mat_f64_v = B_mat_f64.load((cast(r28_0 + cast(iter_l30 * const(4096, i64), i32), i64),), width=1, name="B_mat_f64_v")  # seed004.cu:38
        B_shared[const(256, u32) + threadIdx.y * 16 + threadIdx.x] = B_mat_f64_v  # seed004.cu:38
        kb.syncthreads()  # seed004.cu:39
        B_shared_v = B_shared.load((const(256, u32) + threadIdx.x,), width=1, name="B_shared_v")  # seed004.cu:44
        A_shared_v = A_shared.load((threadIdx.y * 16,), width=2, name="A_shared_v")  # seed004.cu:44
        fd8 = kb.let("fd8", call("fma", A_shared_v[0], B_shared_v, fd53), "f64")  # seed004.cu:44
        B_shared_v_2 = B_shared.load((const(256, u32) + threadIdx.x + const(16, u32),), width=1, name="B_shared_v_2")  # seed004.cu:44
        B_shared_v_3 = B_shared.load((const(256, u32) + threadIdx.x + const(32, u32),), width=1, name="B_shared_v_3")  # seed004.cu:44
        A_shared_v_2 = A_shared.load((threadIdx.y * 16 + const(2, u32),), width=2, name="A_shared_v_2")  # seed004.cu:44
        B_shared_v_4 = B_shared.load((const(256, u32) + threadIdx.x + const(48, u32),), width=1, name="B_shared_v_4")  # seed004.cu:44
        B_shared_v_5 = B_shared.load((const(256, u32) + threadIdx.x + const(64, u32),), width=1, name="B_shared_v_5")  # seed004.cu:44
        A_shared_v_3 = A_shared.load((threadIdx.y * 16 + const(4, u32),), width=2, name="A_shared_v_3")  # seed004.cu:44
        B_shared_v_6 = B_shared.load((const(256, u32) + threadIdx.x + const(80, u32),), width=1, name="B_shared_v_6")  # seed004.cu:44
        B_shared_v_7 = B_shared.load((const(256, u32) + threadIdx.x + const(96, u32),), width=1, name="B_shared_v_7")  # seed004.cu:44
        A_shared_v_4 = A_shared.load((threadIdx.y * 16 + const(6, u32),), width=2, name="A_shared_v_4")  # seed004.cu:44
        B_shared_v_8 = B_shared.load((const(256, u32) + threadIdx.x + const(112, u32),), width=1, name="B_shared_v_8")  # seed004.cu:44
        B_shared_v_9 = B_shared.load((const(256, u32) + threadIdx.x + const(128, u32),), width=1, name="B_shared_v_9")  # seed004.cu:44
        A_shared_v_5 = A_shared.load((threadIdx.y * 16 + const(8, u32),), width=2, name="A_shared_v_5")  # seed004.cu:44
        B_shared_v_10 = B_shared.load((const(256, u32) + threadIdx.x + const(144, u32),), width=1, name="B_shared_v_10")  # seed004.cu:44
        B_shared_v_11 = B_shared.load((const(256, u32) + threadIdx.x + const(160, u32),), width=1, name="B_shared_v_11")  # seed004.cu:44
        A_shared_v_6 = A_shared.load((threadIdx.y * 16 + const(10, u32),), width=2, name="A_shared_v_6")  # seed004.cu:44
        B_shared_v_12 = B_shared.load((const(256, u32) + threadIdx.x + const(176, u32),), width=1, name="B_shared_v_12")  # seed004.cu:44
        B_shared_v_13 = B_shared.load((const(256, u32) + threadIdx.x + const(192, u32),), width=1, name="B_shared_v_13")  # seed004.cu:44
        A_shared_v_7 = A_shared.load((threadIdx.y * 16 + const(12, u32),), width=2, name="A_shared_v_7")  # seed004.cu:44
        B_shared_v_14 = B_shared.load((const(256, u32) + threadIdx.x + const(208, u32),), width=1, name="B_shared_v_14")  # seed004.cu:44
        B_shared_v_15 = B_shared.load((const(256, u32) + threadIdx.x + const(224, u32),), width=1, name="B_shared_v_15")  # seed004.cu:44
        A_shared_v_8 = A_shared.load((threadIdx.y * 16 + const(14, u32),), width=2, name="A_shared_v_8")  # seed004.cu:44
        B_shared_v_16 = B_shared.load((const(256, u32) + threadIdx.x + const(240, u32),), width=1, name="B_shared_v_16")  # seed004.cu:44
        fd53.set(call("fma", A_shared_v_8[1], B_shared_v_16, call("fma", A_shared_v_8[0], B_shared_v_15, call("fma", A_shared_v_7[1], B_shared_v_14, call("fma", A_shared_v_7[0], B_shared_v_13, call("fma", A_shared_v_6[1], B_shared_v_12, call("fma", A_shared_v_6[0], B_shared_v_11, call("fma", A_shared_v_5[1], B_shared_v_10, call("fma", A_shared_v_5[0], B_shared_v_9, call("fma", A_shared_v_4[1], B_shared_v_8, call("fma", A_shared_v_4[0], B_shared_v_7, call("fma", A_shared_v_3[1], B_shared_v_6, call("fma", A_shared_v_3[0], B_shared_v_5, call("fma", A_shared_v_2[1], B_shared_v_4, call("fma", A_shared_v_2[0], B_shared_v_3, call("fma", A_shared_v[1], B_shared_v_2, fd8))))))))))))))))  # seed004.cu:44
        kb.syncthreads()  # seed004.cu:46
    rd15.set(rd15_0 + trips * const(128, i64))  # seed004.cu:30
    r28.set(r28_0 + cast(trips * const(4096, i64), i32))  # seed004.cu:30
    r29.set(r29_0 + cast(trips * const(1, i64), u32))  # seed004.cu:30
    C_mat_f64[cast(cast(cast(cast(blockIdx.y, i32) * cast(blockDim.y, i32) + cast(threadIdx.y, i32), u32) << const(8, u32), i32) + (cast(blockIdx.x, i32) * cast(blockDim.x, i32) + cast(threadIdx.x, i32)), i64)] = fd53  # seed004.cu:50
    kb.launch(grid=(const(256, i32) // 16, const(256, i32) // 16, 1), block=(16, 16, 1), dynamic_smem=0)  # seed004.cu:16
    return kb.build()

KERNELS = {'multiply': multiply}

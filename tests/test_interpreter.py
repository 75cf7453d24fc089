"""The numpy interpreter: C semantics, faults with locations, and the examples against numpy."""
import numpy as np
import pytest

from examples import (
    matmul_128x128, matmul_double16, matmul_float_tiled, matmul_naive, reed_solomon, transpose,
)
from kernels_ir import (
    KernelBuilder, KernelError, KernelRuntimeError, blockIdx, cast, f32, i32, make_arrays,
    resolve_launch, run, select, smax, smin, threadIdx, u8, u32,
)


def lanes_kernel(name, value_of, dtype=i32, threads=8):
    """out[t] = value_of(k, t) for t in one block of `threads` threads."""
    k = KernelBuilder(name)
    out = k.global_array("out", dtype, threads, intent="out")
    out[threadIdx.x] = value_of(k, threadIdx.x)
    k.launch(1, threads)
    return run(k.build())["out"]


def test_c_division_and_remainder_truncate_toward_zero():
    t = lambda k, x: cast(x, i32) - 7           # -7 .. 0
    q = lanes_kernel("div", lambda k, x: t(k, x) // 2)
    r = lanes_kernel("mod", lambda k, x: t(k, x) % 2)
    a = np.arange(8) - 7
    assert q.tolist() == [int(v / 2) for v in a]
    assert r.tolist() == [v - int(v / 2) * 2 for v in a]
    assert q[0] == -3 and r[0] == -1


def test_integer_wraparound_in_declared_types():
    def body(k, x):
        b = k.let("b", 250, u8)
        b += x * 2              # computed in int, wrapped on assignment to u8
        return b
    assert lanes_kernel("wrap8", body, u8).tolist() == [(250 + 2 * t) % 256 for t in range(8)]
    big = lanes_kernel("wrap32", lambda k, x: cast(x, i32) + 2147483647)
    assert big[1] == -2147483648
    assert lanes_kernel("wrap", lambda k, x: x - 1, u32)[0] == 2**32 - 1


def test_select_min_max_shifts_and_casts():
    assert lanes_kernel("sel", lambda k, x: select(x & 1, 10, 20)).tolist() == [20, 10] * 4
    assert lanes_kernel("mn", lambda k, x: smin(x, 3) + smax(x, 5)).tolist() == \
        [min(t, 3) + max(t, 5) for t in range(8)]
    assert lanes_kernel("sh", lambda k, x: (cast(x, i32) - 4) >> 1).tolist() == \
        [(t - 4) >> 1 for t in range(8)]  # arithmetic shift on signed
    assert lanes_kernel("cv", lambda k, x: cast(cast(x, f32) * -0.75, i32)).tolist() == \
        [int(t * -0.75) for t in range(8)]  # float to int truncates toward zero


def test_faults_name_block_thread_and_iteration():
    k = KernelBuilder("oob")
    s = k.shared("s", f32, (4, 8))
    out = k.global_array("out", f32, 64, intent="out")
    s[threadIdx.x // 8 % 4, threadIdx.x % 8] = 0.0
    k.syncthreads()
    with k.range("i", 0, 4) as i:
        out[blockIdx.x * 32 + threadIdx.x] = s[i + threadIdx.x // 30, threadIdx.x % 8]
    k.launch(2, 32)
    with pytest.raises(KernelRuntimeError) as err:
        run(k.build())
    e = err.value
    assert "out of bounds: index 4 of dimension 0 of 's' (valid 0..3)" in str(e)
    assert e.block == (0, 0, 0) and e.thread == (30, 0, 0) and e.iterations == {"i": 3}
    assert "test_interpreter.py" in str(e)


def test_division_by_zero_and_bad_shift_are_faults():
    with pytest.raises(KernelRuntimeError, match=r"integer division by zero.*thread \(3, 0, 0\)"):
        lanes_kernel("dz", lambda k, x: 12 // (cast(x, i32) - 3))
    with pytest.raises(KernelRuntimeError, match="shift by 32 on a 32-bit value"):
        lanes_kernel("sh32", lambda k, x: cast(x, u32) << (x + 25))


def test_misaligned_vector_access_is_a_fault():
    k = KernelBuilder("mis")
    s = k.shared("s", f32, 64)
    out = k.global_array("out", f32, 32, intent="out")
    v = s.load(threadIdx.x * 1, width=2)  # odd lanes are misaligned
    out[threadIdx.x] = v[0]
    k.launch(1, 32)
    with pytest.raises(KernelRuntimeError, match=r"misaligned 8-byte access.*thread \(1, 0, 0\)"):
        run(k.build())


def test_vector_loads_and_stores_move_consecutive_elements():
    k = KernelBuilder("vec")
    src = k.global_array("src", f32, 128)
    out = k.global_array("out", f32, 128, intent="out")
    s = k.shared("s", f32, (32, 4))
    v = src.load(threadIdx.x * 4, width=4)
    s.store((threadIdx.x, 0), v, width=4)
    k.syncthreads()
    w = s.load((31 - threadIdx.x, 0), width=4)
    out.store(threadIdx.x * 4, (w[3], w[2], w[1], w[0]), width=4)
    k.launch(1, 32)
    res = run(k.build())
    assert np.array_equal(res["out"], res["src"].reshape(32, 4)[::-1, ::-1].reshape(-1))


def test_loops_do_while_negative_step_and_per_lane_bounds():
    k = KernelBuilder("loops")
    out = k.global_array("out", i32, 8, intent="out")
    total = k.let("total", 0)
    with k.do_while("d", 100, 1, lambda d: d < 0):   # runs once though the test fails
        total += 1
    with k.range("i", 10, 0, -3) as i:               # 10, 7, 4, 1
        total += i
    with k.range("j", 0, threadIdx.x) as j:          # per-lane trip count
        total += 1000
    out[threadIdx.x] = total
    k.launch(1, 8)
    assert run(k.build())["out"].tolist() == [1 + 22 + 1000 * t for t in range(8)]


def test_loop_limit_holds_loops_with_no_closed_form_end_only():
    """loop_limit=50: a counted for-loop of 100 trips per lane (plus the lane) runs out; a
    loop doubling its variable (no closed form) that needs 7 trips runs; one counting up
    while d >= 1 (2^31 trips, to the wrap) faults as endless after 51 iterations."""
    def kernel(endless):
        k = KernelBuilder("limits")
        out = k.global_array("out", i32, 8, intent="out")
        total = k.let("total", 0)
        with k.range("i", 0, 100 + threadIdx.x):
            total += 1
        with k.loop("d", 1, (lambda d: d >= 1) if endless else (lambda d: d < 100),
                    update=(lambda d: d + 1) if endless else (lambda d: d + d)):
            total += 1000
        out[threadIdx.x] = total
        k.launch(1, 8)
        return k.build()
    assert run(kernel(False), loop_limit=50)["out"].tolist() == [7100 + t for t in range(8)]
    with pytest.raises(KernelRuntimeError, match=r"loop 'd' ran 51 iterations without ending "
                       r"\(the limit .* is 50\)"):
        run(kernel(True), loop_limit=50)
    with pytest.raises(KernelError, match="loop_limit must be 1 to 4,194,304, got 0"):
        run(kernel(False), loop_limit=0)


def test_register_arrays():
    k = KernelBuilder("regs")
    out = k.global_array("out", i32, 8, intent="out")
    acc = k.local_array("acc", i32, (2, 3))
    with k.range("a", 0, 2) as a:
        with k.range("b", 0, 3) as b:
            acc[a, b] = a * 10 + b + cast(threadIdx.x, i32)
    out[threadIdx.x] = acc[1, 2] + acc[0, 0]
    k.launch(1, 8)
    assert run(k.build())["out"].tolist() == [12 + 2 * t for t in range(8)]


def test_divergent_barrier_is_an_error():
    k = KernelBuilder("div_sync")
    with k.if_(threadIdx.x < 16):
        k.syncthreads()
    k.launch(2, 32)
    with pytest.raises(KernelRuntimeError, match=r"divergent __syncthreads\(\): 16 of 32"):
        run(k.build())


def test_seed000_square_tiling_barrier_diverges_at_ragged_sizes():
    k = reed_solomon.square()
    with pytest.raises(KernelRuntimeError, match="divergent __syncthreads"):
        run(k, {"B_width": 500})


def test_arrays_in_and_out():
    launch = resolve_launch(transpose.transpose(), {"n": 32})
    arrays = make_arrays(launch, seed=3)
    assert np.isnan(arrays["dst"]).all() and arrays["src"].min() >= -1.0
    with pytest.raises(KernelError, match="needs 1024 elements"):
        run(launch.kernel, {"n": 32}, {"src": np.zeros(10, np.float32)})
    with pytest.raises(KernelError, match=r"'src' is f32 \(float32\) but float64"):
        run(launch.kernel, {"n": 32}, {"src": np.zeros(1024)})
    with pytest.raises(KernelError, match="unknown parameter 'm'"):
        run(launch.kernel, {"m": 3})


# ---------------------------------------------------------------- examples against numpy

@pytest.mark.parametrize("variant", sorted(transpose.KERNELS))
def test_transpose_examples(variant):
    out = run(transpose.KERNELS[variant](), {"n": 64})
    assert np.array_equal(out["dst"].reshape(64, 64), out["src"].reshape(64, 64).T)


def test_double_tile_product():
    out = run(matmul_double16.multiply(), {"MATRIX_DIM": 64}, seed=5)
    A, B, C = (out[n].reshape(64, 64) for n in ("A_mat", "B_mat", "C_mat"))
    ref = A @ B
    assert np.linalg.norm(C - ref) / np.linalg.norm(ref) < 1e-6


@pytest.mark.parametrize("variant", sorted(reed_solomon.KERNELS))
def test_reed_solomon_kernels_grid_stride_and_views(variant):
    kernel = reed_solomon.KERNELS[variant]()
    launch = resolve_launch(kernel)
    # the grid-stride loop must really iterate: fewer blocks than column tiles
    assert launch.grid[0] * launch.block[0] < launch.params["B_width"]
    arrays = reed_solomon.table_arrays(launch, seed=11) if variant == "tables" else None
    out = run(kernel, arrays=arrays, seed=11)
    ref = reed_solomon.reference(out, launch.params, word_packed=(variant == "words"))
    assert np.array_equal(out["C"], ref)


@pytest.mark.parametrize("make, params, dims", [
    (matmul_float_tiled.tiled, {"rowsA": 40, "commonDim": 50, "colsB": 70}, (40, 50, 70)),
    (matmul_float_tiled.ilp2, {"rowsA": 64, "commonDim": 64, "colsB": 64}, (64, 64, 64)),
    (matmul_128x128.matmul, {"M": 128, "N": 256, "K": 64}, (128, 64, 256)),
    (matmul_naive.mat_mul1, {"m": 48, "n": 48, "r": 48}, (48, 48, 48)),
    (matmul_naive.mat_mul2, {"m": 48, "n": 48, "r": 48}, (48, 48, 48)),
], ids=["tiled_ragged", "ilp2", "128x128", "matMul1", "matMul2"])
def test_float_products(make, params, dims):
    m, kk, n = dims
    out = run(make(), params, seed=2)
    names = {g.intent: g.name for g in make().globals}
    ins = [g.name for g in make().globals if g.intent == "in"]
    A, B, C = out[ins[0]], out[ins[1]], out[names["out"]]
    ref = A.reshape(m, kk).astype(np.float64) @ B.reshape(kk, n).astype(np.float64)
    assert np.linalg.norm(C.reshape(m, n) - ref) / np.linalg.norm(ref) < 1e-6


@pytest.mark.parametrize("fixed", [False, True], ids=["as_written", "fixed"])
def test_seed001_int_product_including_a_ragged_edge(fixed):
    from examples import int_matmul_nt32
    n = 70  # not a multiple of NT = 32: the guards matter
    out = run(int_matmul_nt32.matmul(fixed), {"Nmat": n}, seed=8)
    A = out["a_dev"].reshape(n, n).astype(np.int64)
    B = out["b_dev"].reshape(n, n).astype(np.int64)
    assert np.array_equal(out["c_dev"].reshape(n, n), (A @ B).astype(np.int32))


def test_a_loop_that_steps_by_zero_faults_at_its_first_lane():
    """A step of launch constants (evaluated once per run, #28) and a per-lane step are both
    checked: 0 never ends, and the fault names the loop and a thread that steps by 0."""
    def kernel(step_of):
        k = KernelBuilder("zero_step")
        out = k.global_array("out", i32, 64, intent="out")
        s = k.param("s")
        with k.range("i", threadIdx.x, 64, step_of(s)) as i:
            out[i] = 1
        k.launch(1, 32)
        k.defaults(s=0)
        return k.build()
    with pytest.raises(KernelRuntimeError, match=r"loop 'i' steps by 0.*thread \(0, 0, 0\)"):
        run(kernel(lambda s: s * 32))
    with pytest.raises(KernelRuntimeError, match=r"loop 'i' steps by 0.*thread \(1, 0, 0\)"):
        run(kernel(lambda s: cast((threadIdx.x + 1) % 2, i32) * 32 + s))
    # the grid-stride form with a launch-constant step writes every element once
    assert run(kernel(lambda s: s + 32), {"s": 0})["out"].tolist() == [1] * 64


def test_a_fault_says_the_loop_variables_value_where_it_is_not_the_iteration():
    """`for (j = -4; ...)` faulting in its first iteration: `j=0 (j is -4)`; the bare j=0
    read as the variable's value."""
    k = KernelBuilder("k")
    s = k.shared("s", f32, 32)
    with k.loop("j", -4, lambda j: j < 4) as j:
        s[cast(threadIdx.x, i32) + j] = 1.0
    k.launch(1, 32)
    with pytest.raises(KernelRuntimeError, match=r"iteration j=0 \(j is -4\)") as err:
        run(k.build())
    assert err.value.iterations == {"j": 0} and err.value.values == {"j": -4}

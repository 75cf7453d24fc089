"""The IR: types, expressions, builder constructs, printer and static checks."""
import subprocess
import sys

import pytest

from kernels_ir import (
    KernelBuilder, KernelError, blockIdx, cast, f32, f64, i8, i32, select, smax, smin,
    threadIdx, u8, u16, u32, u64,
)
from kernels_ir.dtypes import promote
from kernels_ir.expr import const


def test_usual_arithmetic_conversions():
    assert promote(u8, u8) == i32            # integer promotion
    assert promote(i32, u32) == u32
    assert promote(u16, i8) == i32
    assert promote(u64, i32) == u64
    assert promote(i32, f32) == f32 and promote(f32, f64) == f64
    assert (threadIdx.x - 1).dtype == u32    # unsigned, as in CUDA
    assert (const(1, u8) << 3).dtype == i32  # a shift has its promoted left operand's type
    assert (threadIdx.x < 3).dtype == i32
    assert (const(2.0, f32) * 3).dtype == f32  # an int literal joins a float as in C
    assert const(2**31).dtype == u32 and const(2**32).dtype == u64


def test_expression_errors_say_what_to_do():
    x = const(1.5)
    with pytest.raises(KernelError, match="`//` is C integer division"):
        x // 2
    with pytest.raises(KernelError, match="`/` is floating-point division"):
        threadIdx.x / 2
    with pytest.raises(KernelError, match="operator & needs integer operands"):
        x & 1
    with pytest.raises(KernelError, match="no Python truth value"):
        if threadIdx.x < 3:
            pass
    with pytest.raises(KernelError, match="does not fit u8"):
        const(300, u8)
    with pytest.raises(KernelError, match="division by the constant 0"):
        threadIdx.x % 0


def small_kernel():
    k = KernelBuilder("small")
    n = k.param("n")
    out = k.global_array("out", f32, n, intent="out")
    tile = k.shared("tile", f32, (4, 8), pad=1)
    acc = k.let("acc", 0.0)
    with k.range("i", 0, 4, unroll=True) as i:
        tile[i, threadIdx.x] = cast(i * 8 + threadIdx.x, f32)
    k.syncthreads()
    with k.if_(threadIdx.x < n):
        acc += tile[threadIdx.x % 4, threadIdx.x]
    with k.else_():
        acc.set(-1.0)
    out[threadIdx.x] = acc
    k.launch(grid=1, block=8)
    k.defaults(n=8)
    return k.build()


def test_printer_reads_like_cuda():
    text = str(small_kernel())
    assert "kernel small(i32 n, out f32* out[n])" in text
    assert "shared f32 tile[4][8] pad 1, align 16" in text
    assert "for unroll (i32 i = 0; i < 4; i += 1) {" in text
    assert "tile[i][threadIdx.x] = (float)(i * 8 + threadIdx.x)  // site 0 (st, 4 B)" in text
    assert "f32 tile_v = tile[threadIdx.x % 4][threadIdx.x]  // site 1 (ld, 4 B)" in text
    assert "} else {" in text and "acc = -1.0f" in text


def test_padding_strides_and_layout():
    k = small_kernel()
    (tile,) = k.shared
    assert tile.strides == (9, 1) and tile.static_bytes == 4 * 9 * 4
    assert k.static_smem == 144


def test_sites_are_numbered_in_program_order():
    k = small_kernel()
    assert [(s.site, type(s).__name__) for s in k.sites()] == [(0, "Store"), (1, "Load")]
    assert k.site(1).loc.line > k.site(0).loc.line


def test_walk_is_program_order_every_time():
    # walk keeps the order of bodies it walked lately: a body walked again, the same
    # statements as a list, and a nested body all read program order (a plain recursion)
    from kernels_ir.stmt import Loop, walk

    def order(stmts):
        out = []
        for x in stmts:
            out.append(x)
            for body in x.bodies():
                out += order(body)
        return out

    k = KernelBuilder("walked")
    out = k.global_array("out", i32, 64, intent="out")
    s = k.shared("s", i32, 64)
    with k.range("i", 0, 2) as i:
        with k.if_(threadIdx.x < 16):
            s[threadIdx.x + i * 32] = i
        with k.range("j", 0, 2) as j:
            out[threadIdx.x + j * 32] = s[threadIdx.x + j * 32]
    k.launch(grid=1, block=32)
    kernel = k.build()
    want = order(kernel.body)
    assert [type(x).__name__ for x in want] == ["Loop", "If", "Store", "Loop", "Load", "Store"]
    for _ in range(2):
        assert list(walk(kernel.body)) == want
    assert list(walk(list(kernel.body))) == want
    inner = next(x for x in want if isinstance(x, Loop) and x.var.name == "j")
    assert list(walk(inner.body)) == order(inner.body) == want[-2:]


def test_local_names_are_made_unique():
    k = KernelBuilder("names")
    out = k.global_array("out", i32, 32, intent="out")
    a = k.let("x", 1)
    b = k.let("x", 2)
    out[threadIdx.x] = a + b
    k.launch(1, 32)
    assert "i32 x_2 = 2" in str(k.build())


def test_a_name_ending_in_an_underscore_is_made_unique_without_a_reserved_one():
    """`_` twice (fast.cu names its unused barrier tokens `_`) gives `_` and `_2`, not `__2`
    (reserved in C++; a kernels file written back could not declare it)."""
    k = KernelBuilder("names")
    out = k.global_array("out", i32, 32, intent="out")
    a = k.let("_", 1)
    b = k.let("_", 2)
    out[threadIdx.x] = a + b
    k.launch(1, 32)
    text = str(k.build())
    assert "i32 _2 = 2" in text and "__2" not in text


def test_readonly_and_vector_rules():
    k = KernelBuilder("ro")
    s = k.shared("s", f32, 64)
    with pytest.raises(KernelError, match="'i' is a loop variable and cannot be assigned"):
        with k.range("i", 0, 4) as i:
            i += 1
    v = s.load(threadIdx.x * 2, width=2)
    with pytest.raises(KernelError, match="has elements 0..1"):
        v[2]
    k.let("bad", v + 1.0)  # a whole vector in arithmetic: rejected by the checks
    k.launch(1, 32)
    with pytest.raises(KernelError, match="is a 2-element vector; use its elements"):
        k.build()


def test_check_errors_name_kernel_statement_and_line():
    k = KernelBuilder("scoped")
    out = k.global_array("out", i32, 32, intent="out")
    with k.if_(threadIdx.x < 4):
        inner = k.let("inner", 5)
    out[threadIdx.x] = inner  # used outside its block
    k.launch(1, 32)
    with pytest.raises(KernelError) as err:
        k.build()
    msg = str(err.value)
    assert "kernel 'scoped'" in msg and "test_ir.py" in msg
    assert "`out[threadIdx.x] = inner`" in msg and "outside the block that defines it" in msg


@pytest.mark.parametrize("make, match", [
    (lambda k: k.shared("s", f32, (0, 4)), "extents must be positive"),
    (lambda k: k.shared("s", f32, 16, pad=1), "pad applies to rows"),
    (lambda k: k.shared("s", f32, 16).load(0, width=3), "width must be 1, 2 or 4"),
    (lambda k: k.shared("s", f64, 16).load(0, width=4), "the widest access is 16 bytes"),
    (lambda k: k.shared("s", f32, (4, 4)).load(0), "2 dimension"),
    (lambda k: k.shared("s", f32, 16)[const(1.0)], "indices must be integers"),
    (lambda k: k.shared("s", f32, (4, 6), pad=1).load((0, 0), width=2), "cannot stay aligned"),
    (lambda k: k.view(k.shared("s", u8, 6), "w", u32), "not a whole number"),
    (lambda k: k.view(k.shared("s", u8, 16, align=2), "w", u32), "aligned to 2"),
    (lambda k: k.param("dup") + k.param("dup"), "already used"),
    (lambda k: k.else_().__enter__(), "must directly follow an if_"),
    (lambda k: k.range("i", 0, 4, step=0).__enter__(), "step 0"),
])
def test_builder_rejects(make, match):
    k = KernelBuilder("bad")
    with pytest.raises(KernelError, match=match):
        make(k)


def test_loads_are_not_allowed_in_loop_conditions():
    k = KernelBuilder("cond")
    s = k.shared("s", i32, 8)
    with pytest.raises(KernelError, match="inside a loop condition"):
        with k.loop("i", 0, lambda i: i < s[0]):
            pass


def test_launch_expressions_use_parameters_only():
    k = KernelBuilder("launch")
    k.launch(grid=threadIdx.x, block=32)
    with pytest.raises(KernelError, match="grid may use only parameters"):
        k.build()
    k2 = KernelBuilder("nolaunch")
    with pytest.raises(KernelError, match="no launch configuration"):
        k2.build()


def test_min_max_select_print_as_cuda():
    from kernels_ir import format_expr
    e = select(threadIdx.x > 3, smin(threadIdx.x, 7), smax(blockIdx.x, 2))
    assert format_expr(e) == "threadIdx.x > 3 ? min(threadIdx.x, 7) : max(blockIdx.x, 2)"
    assert format_expr((threadIdx.x & 3) == 1) == "(threadIdx.x & 3) == 1"


def test_kernels_ir_imports_neither_smemsim_nor_gpu_backend():
    code = ("import sys, kernels_ir; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('smemsim', 'gpu_backend')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
    import pathlib
    import re
    for path in pathlib.Path(__import__("kernels_ir").__file__).parent.glob("*.py"):
        assert not re.search(r"^\s*(from|import)\s+(smemsim|gpu_backend)", path.read_text(),
                             re.M), path


def test_structural_equality_is_same_not_double_equals():
    a = threadIdx.x * 4 + 1
    b = threadIdx.x * 4 + 1
    assert a.same(b) and not a.same(threadIdx.x * 4 + 2)
    assert (a == b).op.value == "=="  # == builds a comparison node, as in C


def test_an_expression_reaching_a_part_twice_evaluates_it_once():
    """numba's LLVM build of a padded GEMM counts its unrolled loop down through selects
    that each read the one before twice: evaluated as a tree, 2^n leaves (its analysis
    took 7.9 s for 1.4 s unpadded; 3.1 s now). Here a chain of 12 such selects over
    threadIdx.x: one read of the thread index (as a tree: 2^12), each lane's tx + 12."""
    import numpy as np

    from kernels_ir import select, threadIdx
    from kernels_ir.evaluate import Evaluator
    from kernels_ir.expr import Op

    class Lanes(Evaluator):
        reads = 0

        def leaf(self, e, idx):
            assert e.op is Op.SPECIAL
            self.reads += 1
            return idx.astype(np.uint32)
    e = threadIdx.x + 0
    for _ in range(12):
        e = select(e >= 0, e + 1, e - 1)
    ev = Lanes()
    assert ev.eval(e, np.arange(4)).tolist() == [12, 13, 14, 15]
    assert ev.reads == 1

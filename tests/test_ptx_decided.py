"""Comparisons every launch decides (smemsim.frontends.ptx.decided): the ranges CUDA's limits
give the indices, carried through arithmetic, fold a numba index wrap to 0."""
from kernels_ir.dtypes import i32, i64, u32, u64
from kernels_ir.expr import Expr, Op, cast, const

from smemsim.frontends.ptx.decided import chosen, decided, folded, value_range


def special(name: str, axis: str) -> Expr:
    return Expr(Op.SPECIAL, u32, (), (name, axis))


def wide(e: Expr) -> Expr:
    """numba's `(long long)(int)x`."""
    return cast(cast(e, i32), i64)


# numba's cuda.grid(1): blockDim.x * blockIdx.x + threadIdx.x, each read as a 64-bit int
GRID_X = wide(special("blockDim", "x")) * wide(special("blockIdx", "x")) + \
    wide(special("threadIdx", "x"))


def test_ranges_of_the_indices_follow_cudas_limits():
    assert value_range(special("threadIdx", "x")) == (0, 1023)
    assert value_range(special("threadIdx", "z")) == (0, 63)
    assert value_range(special("blockIdx", "y")) == (0, 65534)
    # 1,024 threads a block at most, 2^31 - 2 the last block along x
    assert value_range(GRID_X) == (0, 1024 * (2 ** 31 - 2) + 1023)
    # a 32-bit product that may wrap: the type's whole range
    assert value_range(special("blockDim", "x") * special("blockIdx", "x")) == (0, 2 ** 32 - 1)
    assert value_range(special("threadIdx", "x") & 31) == (0, 31)
    assert value_range(special("threadIdx", "x") >> 5) == (0, 31)
    assert value_range(special("threadIdx", "x") % 32) == (0, 31)
    assert value_range(cast(GRID_X, u64) * 4) == (0, 4 * (1024 * (2 ** 31 - 2) + 1023))
    assert value_range(Expr(Op.PARAM, i64, (), "n")) == (-2 ** 63, 2 ** 63 - 1)


def test_a_comparison_is_folded_only_where_every_launch_decides_it():
    assert decided(GRID_X < 0) is False
    assert decided(GRID_X >= 0) is True
    assert decided(special("threadIdx", "x") < 1024) is True
    assert decided(special("threadIdx", "x") < 512) is None
    assert decided(special("threadIdx", "x") == 2000) is False
    assert decided(GRID_X < Expr(Op.PARAM, i64, (), "n")) is None
    # an unsigned difference wraps below 0: not decided
    assert decided(special("threadIdx", "x") - const(1, u32) < 5000) is None
    # operands of different types, as C converts them: -1 read as unsigned is not below 0u
    assert decided(cast(special("threadIdx", "x"), i32) < const(0, u32)) is False
    assert decided(cast(special("threadIdx", "x"), i32) - 1 < const(0, u32)) is None
    assert decided(cast(special("threadIdx", "x"), i32) - 1 < 0) is None
    assert folded(GRID_X < 0).op is Op.CONST and folded(GRID_X < 0).arg == 0
    cond = special("threadIdx", "x") < 512
    assert folded(cond) is cond


def test_numbas_index_wrap_is_the_index():
    # numba's `i + ((i < 0 ? -1 : 0) & shape)` of a non-negative index: i + (0 & shape)
    shape = Expr(Op.PARAM, i64, (), "A_shape_0")
    wrap = chosen(GRID_X < 0, const(-1, i64), const(0, i64))
    assert wrap.op is Op.CONST and wrap.arg == 0
    # a loop's variable may be negative for all this knows: the select stays
    k = Expr(Op.PARAM, i64, (), "k")
    kept = chosen(k < 0, const(-1, i64), const(0, i64))
    assert kept.op is Op.SELECT
    assert (wrap & shape).op is Op.AND

"""Comparisons every launch decides: the value ranges CUDA's limits give the thread and block
indices, carried through integer arithmetic, fold a comparison they settle to a constant.

A compiler that knows less than nvcc leaves such tests in its PTX: numba wraps every array
index `i` as `i + ((i >> 63) & shape)` (Python's negative indices), and `cuda.grid(1)` is
never negative, so the wrap is the constant 0 in every launch. Folded, the index is the
affine function of the block it is, which the analyses read as such (check's other run at
the grid's ends); left as a select, it is a comparison of the block they must run. The fold
is exact: a comparison is replaced only where every value its operands can take in any
launch gives it the same answer.
"""
from __future__ import annotations

from kernels_ir.dtypes import i32, promote
from kernels_ir.expr import COMPARE_OPS, Expr, Op, const, select

# CUDA's limits (CUDA C++ Programming Guide, compute capabilities 5.0 to 12.x): a block
# of at most 1,024 threads, 64 along z; a grid of at most 2^31 - 1 blocks along x and
# 65,535 along y and z
_LIMITS = {("threadIdx", "x"): (0, 1023), ("threadIdx", "y"): (0, 1023),
           ("threadIdx", "z"): (0, 63),
           ("blockDim", "x"): (1, 1024), ("blockDim", "y"): (1, 1024), ("blockDim", "z"): (1, 64),
           ("blockIdx", "x"): (0, 2 ** 31 - 2), ("blockIdx", "y"): (0, 65534),
           ("blockIdx", "z"): (0, 65534),
           ("gridDim", "x"): (1, 2 ** 31 - 1), ("gridDim", "y"): (1, 65535),
           ("gridDim", "z"): (1, 65535)}
# nodes one question follows before it answers "any value of the type"
_BUDGET = 4096


def value_range(e: Expr, memo: dict | None = None) -> tuple[int, int] | None:
    """(lowest, highest) value an integer expression takes in any launch, as its type reads
    its bits (the type's whole range where nothing narrower is known); None for a float."""
    if e.dtype.is_float:
        return None
    memo = {} if memo is None else memo
    return _range(e, memo)


def _whole(e: Expr) -> tuple[int, int]:
    return e.dtype.min, e.dtype.max


def _as(r: tuple[int, int], e: Expr) -> tuple[int, int]:
    """A range converted to e's type: itself where it fits, else the type's whole range."""
    return r if e.dtype.min <= r[0] and r[1] <= e.dtype.max else _whole(e)


def _const_value(e: Expr) -> int:
    v = int(e.arg)
    bits = e.dtype.bits
    if e.dtype.signed and v > e.dtype.max:
        v -= 1 << bits
    elif not e.dtype.signed and v < 0:
        v += 1 << bits
    return v


def _range(e: Expr, memo: dict) -> tuple[int, int]:
    key = id(e)
    if key in memo:
        return memo[key][1]
    if len(memo) >= _BUDGET:
        return _whole(e)
    out = _compute(e, memo)
    memo[key] = (e, out)   # (the node kept with its answer: its id stays its own)
    return out


def _compute(e: Expr, memo: dict) -> tuple[int, int]:
    op = e.op
    if op is Op.CONST:
        v = _const_value(e)
        return v, v
    if op is Op.SPECIAL:
        return _as(_LIMITS.get(tuple(e.arg), _whole(e)), e)
    if op in COMPARE_OPS or op in (Op.LAND, Op.LOR, Op.LNOT):
        return 0, 1
    if op is Op.CAST:
        if e.src[0].dtype.is_float:
            return _whole(e)
        return _as(_range(e.src[0], memo), e)
    if op is Op.SELECT:
        a, b = (_as(_range(x, memo), e) for x in e.src[1:])
        return min(a[0], b[0]), max(a[1], b[1])
    if op not in (Op.ADD, Op.SUB, Op.MUL, Op.SHL, Op.SHR, Op.AND, Op.OR, Op.DIV, Op.MOD,
                  Op.MIN, Op.MAX) or any(x.dtype.is_float for x in e.src):
        return _whole(e)
    # (each operand as C converts it to the result's type; a shift's count is its own)
    a = _as(_range(e.src[0], memo), e)
    b = _range(e.src[1], memo)
    if op not in (Op.SHL, Op.SHR):
        b = _as(b, e)
    if op is Op.ADD:
        r = (a[0] + b[0], a[1] + b[1])
    elif op is Op.SUB:
        r = (a[0] - b[1], a[1] - b[0])
    elif op is Op.MUL:
        corners = [x * y for x in a for y in b]
        r = (min(corners), max(corners))
    elif op in (Op.SHL, Op.SHR):
        if b[0] != b[1] or not 0 <= b[0] < e.dtype.bits:
            return _whole(e)
        k = b[0]
        r = (a[0] << k, a[1] << k) if op is Op.SHL else (a[0] >> k, a[1] >> k)
    elif op is Op.AND:
        his = [x[1] for x in (a, b) if x[0] >= 0]
        if not his:
            return _whole(e)
        r = (0, min(his))
    elif op is Op.OR:
        if a[0] < 0 or b[0] < 0:
            return _whole(e)
        r = (max(a[0], b[0]), (1 << max(a[1], b[1]).bit_length()) - 1)
    elif op in (Op.DIV, Op.MOD):
        if a[0] < 0 or b[0] != b[1] or b[0] <= 0:
            return _whole(e)
        c = b[0]
        r = (a[0] // c, a[1] // c) if op is Op.DIV else \
            (a if a[1] < c else (0, c - 1))
    elif op is Op.MIN:
        r = (min(a[0], b[0]), min(a[1], b[1]))
    else:
        r = (max(a[0], b[0]), max(a[1], b[1]))
    return _as(r, e)


def decided(cond: Expr) -> bool | None:
    """True or False where an integer comparison holds, or fails, in every launch (each
    side's value_range settles it); None where it may go either way or is not one."""
    if cond.op not in COMPARE_OPS:
        return None
    a_e, b_e = cond.src
    if a_e.dtype.is_float or b_e.dtype.is_float:
        return None
    # (both sides as C converts them to their common type; a value that type does not
    # hold, a negative one compared as unsigned, is left undecided)
    common = promote(a_e.dtype, b_e.dtype)
    memo: dict = {}
    ranges = [_range(a_e, memo), _range(b_e, memo)]
    if not all(common.min <= lo and hi <= common.max for lo, hi in ranges):
        return None
    (a0, a1), (b0, b1) = ranges
    op = cond.op
    if op in (Op.GT, Op.GE):   # as b < a, b <= a
        (a0, a1), (b0, b1) = (b0, b1), (a0, a1)
        op = Op.LT if op is Op.GT else Op.LE
    if op is Op.LT:
        return True if a1 < b0 else False if a0 >= b1 else None
    if op is Op.LE:
        return True if a1 <= b0 else False if a0 > b1 else None
    if a1 < b0 or b1 < a0:
        return op is Op.NE
    if a0 == a1 == b0 == b1:
        return op is Op.EQ
    return None


def folded(cond: Expr) -> Expr:
    """`cond` as the constant 1 or 0 where every launch decides it, else itself."""
    answer = decided(cond)
    return cond if answer is None else const(int(answer), i32)


def chosen(cond: Expr, a: Expr, b: Expr) -> Expr:
    """`cond ? a : b`, as one side where every launch decides `cond`."""
    answer = decided(cond)
    if answer is None and cond.op is Op.CONST:
        answer = bool(cond.arg)
    if answer is None or a.dtype != b.dtype:
        return select(cond, a, b)
    return a if answer else b

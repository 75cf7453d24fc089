"""The one expression evaluator: C semantics over numpy arrays of lanes.

The interpreter evaluates expressions over the threads active at a statement; launch
resolution evaluates grid, block and sizes over a single lane of parameter values. Both use
this class and differ only in `leaf`: where the values of parameters, thread indices,
variables and register arrays come from. An op with no rule raises instead of guessing.
"""
from __future__ import annotations

import numpy as np

from .dtypes import integer_promote, promote
from .errors import KernelError
from .expr import BINARY_OPS, COMPARE_OPS, Expr, Op
from .semantics import binary, convert, math_call, unary

# ops whose values come from state outside the expression
LEAF_OPS = frozenset({Op.PARAM, Op.SPECIAL, Op.VAR, Op.COMPONENT, Op.LOCAL_READ})


class Evaluator:
    """Evaluates expressions lane-wise; subclasses say what the leaves hold."""

    def leaf(self, e: Expr, idx: np.ndarray) -> np.ndarray:
        """Values of a leaf node (an op in LEAF_OPS) at lanes `idx`."""
        raise NotImplementedError

    def eval(self, e: Expr, idx: np.ndarray) -> np.ndarray:
        """Values of `e` at lanes `idx` (raises semantics.LaneFault on undefined behaviour)."""
        rule = _RULES.get(e.op)
        if rule is None:
            if e.op in LEAF_OPS:
                return self.leaf(e, idx)
            raise KernelError(f"the evaluator has no rule for the expression op "
                              f"'{e.op.value}'")
        return rule(self, e, idx)


def _const(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    return np.full(idx.size, e.arg, e.dtype.np)


def _binary(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    op = e.op
    a = ev.eval(e.src[0], idx)
    b = ev.eval(e.src[1], idx)
    if op in (Op.SHL, Op.SHR):
        # a shift has the promoted type of its left operand; the count keeps its own
        return binary(op, e.dtype, convert(a, e.dtype),
                      convert(b, integer_promote(e.src[1].dtype)), e.dtype)
    operand = promote(e.src[0].dtype, e.src[1].dtype)
    return binary(op, e.dtype, convert(a, operand), convert(b, operand), operand)


def _logical(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    a = ev.eval(e.src[0], idx) != 0
    b = ev.eval(e.src[1], idx) != 0
    return ((a & b) if e.op is Op.LAND else (a | b)).astype(np.int32)


def _cast(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    return convert(ev.eval(e.src[0], idx), e.dtype)


def _select(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    c = ev.eval(e.src[0], idx)
    a = convert(ev.eval(e.src[1], idx), e.dtype)
    b = convert(ev.eval(e.src[2], idx), e.dtype)
    return np.where(c != 0, a, b)


def _negate(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    return unary(e.op, e.dtype, convert(ev.eval(e.src[0], idx), e.dtype))


def _lnot(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    return unary(e.op, e.dtype, ev.eval(e.src[0], idx))


def _call(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    return math_call(e.arg, [ev.eval(s, idx) for s in e.src])


def _bitcast(ev: Evaluator, e: Expr, idx: np.ndarray) -> np.ndarray:
    source = e.src[0].dtype.np
    return np.ascontiguousarray(ev.eval(e.src[0], idx), dtype=source).view(e.dtype.np)


_RULES = {Op.CONST: _const, Op.LAND: _logical, Op.LOR: _logical, Op.CAST: _cast,
          Op.SELECT: _select, Op.NEG: _negate, Op.INVERT: _negate, Op.LNOT: _lnot,
          Op.CALL: _call, Op.BITCAST: _bitcast}
_RULES.update({op: _binary for op in BINARY_OPS | COMPARE_OPS})

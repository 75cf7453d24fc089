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

    _memo: dict | None = None       # one top-level evaluation's shared parts' values
    _shared: frozenset = frozenset()

    def eval(self, e: Expr, idx: np.ndarray) -> np.ndarray:
        """Values of `e` at lanes `idx` (raises semantics.LaneFault on undefined behaviour).
        A part the expression reaches more than once (a compiler's chain of selects, each
        reading the one before twice) is evaluated once per evaluation of the whole: as a
        tree, such a chain costs 2^n."""
        rule = _RULES.get(e.op)
        memo = self._memo
        if memo is None:
            shared = _shared_parts(e)
            if not shared:
                return self._apply(rule, e, idx)
            self._memo, self._shared = {}, shared
            try:
                return self._apply(rule, e, idx)
            finally:
                self._memo, self._shared = None, frozenset()
        if id(e) not in self._shared:
            return self._apply(rule, e, idx)
        # (idx kept with its value: its id is not reused while the memo holds it)
        key = (id(e), id(idx))
        found = memo.get(key)
        if found is None:
            found = memo[key] = (idx, self._apply(rule, e, idx))
        return found[1]

    def _apply(self, rule, e: Expr, idx: np.ndarray) -> np.ndarray:
        if rule is None:
            if e.op in LEAF_OPS:
                return self.leaf(e, idx)
            raise KernelError(f"the evaluator has no rule for the expression op "
                              f"'{e.op.value}'")
        return rule(self, e, idx)


_SHARED: dict = {}      # id(root) -> (root, the ids of its parts reached more than once)
_SHARED_KEEP = 1 << 16  # roots remembered (each held, so that its id is not reused)


def _shared_parts(e: Expr) -> frozenset:
    """The ids of the parts of `e` (constants aside) that the expression reaches more than
    once, as a DAG."""
    if not e.src:
        return frozenset()
    found = _SHARED.get(id(e))
    if found is not None:
        return found[1]
    seen, again = set(), set()
    stack = [e]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            if n.op is not Op.CONST:
                again.add(id(n))
            continue
        seen.add(id(n))
        stack.extend(x for x in n.src if isinstance(x, Expr))
    if len(_SHARED) >= _SHARED_KEEP:
        _SHARED.clear()
    out = frozenset(again)
    _SHARED[id(e)] = (e, out)
    return out


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

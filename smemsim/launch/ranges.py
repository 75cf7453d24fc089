"""Value ranges of kernel expressions, per block, for deciding guards without running them.

For every block at once (numpy arrays over blocks), each integer expression gets a sound
interval [lo, hi] over all of the block's threads and loop iterations: threadIdx spans the
block, blockIdx is the block's own, loop variables span their loop, locals the value they are
given. A comparison whose interval is a single value is decided for the whole block.
Anything that may wrap in its C type, any float, any variable assigned more than once
becomes unknown (-inf, inf): the ranges only ever over-approximate.
"""
from __future__ import annotations

import numpy as np

from kernels_ir import Kernel, Launch, Probe
from kernels_ir.dtypes import DType, integer_promote, promote
from kernels_ir.expr import COMPARE_OPS, Expr, Op, Var
from kernels_ir.semantics import convert, trip_count
from kernels_ir.stmt import Let, Loop, walk

EXACT = 2.0 ** 52  # float64 holds integers exactly below this; beyond it, unknown

DECIDED_FALSE, DECIDED_TRUE, UNDECIDED = 0, 1, 2


class BlockRanges:
    """Intervals of expressions for a set of blocks of one launch (None: the whole grid as
    one entry)."""

    def __init__(self, kernel: Kernel, launch: Launch, blocks: np.ndarray | None):
        self.kernel, self.launch = kernel, launch
        gx, gy, _ = launch.grid
        if blocks is None:
            # one entry for the whole grid: blockIdx spans every block (a grid too large for
            # an entry per block still gets sound, if looser, intervals)
            self.n = 1
            self.block = {a: np.zeros(1) for a in "xyz"}
            self.block_hi = {a: np.array([float(g - 1)]) for a, g in zip("xyz", launch.grid)}
        else:
            b = blocks.astype(np.float64)
            self.n = blocks.size
            self.block = {"x": b % gx, "y": np.floor(b / gx) % gy,
                          "z": np.floor(b / (gx * gy))}
            self.block_hi = self.block
        self.defs: dict[Var, list] = {}
        self.loops: dict[Var, Loop] = {}
        for s in walk(kernel.body):
            if isinstance(s, Loop):
                self.loops[s.var] = s
            for target in s.declares() + s.updates():
                self.defs.setdefault(target, []).append(s)
        self._var_cache: dict[Var, tuple] = {}
        self._busy: set = set()

    # ------------------------------------------------------------ helpers
    def _full(self, value: float) -> np.ndarray:
        return np.full(self.n, value, np.float64)

    def _top(self) -> tuple[np.ndarray, np.ndarray]:
        return self._full(-np.inf), self._full(np.inf)

    @staticmethod
    def _fit(lo, hi, dtype: DType):
        """Unknown where the interval leaves the type (C would wrap)."""
        bad = (lo < float(dtype.min)) | (hi > float(dtype.max)) | np.isnan(lo) | np.isnan(hi) \
            | (np.abs(lo) > EXACT) | (np.abs(hi) > EXACT)
        if bad.any():
            lo, hi = lo.copy(), hi.copy()
            lo[bad], hi[bad] = -np.inf, np.inf
        return lo, hi

    # ------------------------------------------------------------ variables
    def var(self, v: Var):
        if v in self._var_cache:
            return self._var_cache[v]
        if v in self._busy or v.dtype.is_float or v.lanes > 1:
            return self._top()
        self._busy.add(v)
        try:
            if v in self.loops:
                result = self._loop_var(self.loops[v])
            else:
                defs = self.defs.get(v, [])
                if len(defs) == 1 and isinstance(defs[0], Let):
                    result = self._fit(*self.expr(defs[0].value), v.dtype)
                else:
                    result = self._top()  # loaded, or assigned more than once
        finally:
            self._busy.discard(v)
        self._var_cache[v] = result
        return result

    def _loop_var(self, loop: Loop):
        v = loop.var
        cond = loop.cond
        if loop.update is not None:
            return self._top()  # any update: no interval without iterating
        start_lo, start_hi = self.expr(loop.start)
        step_lo, step_hi = self.expr(loop.step)
        if cond.op not in (Op.LT, Op.LE, Op.GT, Op.GE) or cond.src[0].op is not Op.VAR \
                or cond.src[0].arg is not v or _reads(cond.src[1], v):
            return self._top()
        stop_lo, stop_hi = self.expr(cond.src[1])
        if cond.op in (Op.LT, Op.LE):
            up = stop_hi - (1 if cond.op is Op.LT else 0)
            ok = step_lo >= 1
            lo, hi = start_lo, np.maximum(up, start_hi) if loop.do_while else up
        else:
            down = stop_lo + (1 if cond.op is Op.GT else 0)
            ok = step_hi <= -1
            lo, hi = np.minimum(down, start_lo) if loop.do_while else down, start_hi
        hi = np.maximum(hi, lo)  # an empty loop: the body never runs, any range will do
        lo = np.where(ok, lo, -np.inf)
        hi = np.where(ok, hi, np.inf)
        return self._fit(lo, hi, v.dtype)

    # ------------------------------------------------------------ expressions
    def expr(self, e: Expr):
        """(lo, hi) arrays over blocks; (-inf, inf) where unknown."""
        op = e.op
        if e.dtype.is_float and op not in COMPARE_OPS:
            return self._top()
        if op is Op.CONST:
            return self._full(float(e.arg)), self._full(float(e.arg))
        if op is Op.PARAM:
            v = float(self.launch.params[e.arg])
            return self._full(v), self._full(v)
        if op is Op.SPECIAL:
            name, axis = e.arg
            i = "xyz".index(axis)
            if name == "threadIdx":
                return self._full(0.0), self._full(float(self.launch.block[i] - 1))
            if name == "blockIdx":
                return self.block[axis], self.block_hi[axis]
            n = float((self.launch.block if name == "blockDim" else self.launch.grid)[i])
            return self._full(n), self._full(n)
        if op is Op.VAR:
            return self.var(e.arg)
        if op is Op.CAST:
            return self._fit(*self._converted(e.src[0], e.src[0].dtype), e.dtype)
        if op in COMPARE_OPS:
            return self._compare(e)
        if op in (Op.LAND, Op.LOR):
            (alo, ahi), (blo, bhi) = (self.expr(s) for s in e.src)
            a_true, a_false = (alo > 0) | (ahi < 0), (alo == 0) & (ahi == 0)
            b_true, b_false = (blo > 0) | (bhi < 0), (blo == 0) & (bhi == 0)
            if op is Op.LAND:
                true, false = a_true & b_true, a_false | b_false
            else:
                true, false = a_true | b_true, a_false & b_false
            return np.where(true, 1.0, 0.0), np.where(false, 0.0, 1.0)
        if op is Op.SELECT:
            # each side converts to the result type first (C: `c ? x : -1` with x unsigned
            # yields 4294967295, not -1)
            (alo, ahi), (blo, bhi) = (self._converted(s, e.dtype) for s in e.src[1:])
            # where the condition is decided (`N < 0 ? -1 : 0`, nvcc's rounding of a
            # signed division, at a parameter's value), its one side
            clo, chi = self.expr(e.src[0])
            true, false = (clo > 0) | (chi < 0), (clo == 0) & (chi == 0)
            lo = np.where(true, alo, np.where(false, blo, np.minimum(alo, blo)))
            hi = np.where(true, ahi, np.where(false, bhi, np.maximum(ahi, bhi)))
            return lo, hi
        if op in (Op.NEG,):
            lo, hi = self._converted(e.src[0], e.dtype)
            return self._fit(-hi, -lo, e.dtype)
        if op in (Op.ADD, Op.SUB, Op.MUL, Op.MIN, Op.MAX, Op.DIV, Op.MOD, Op.SHL, Op.SHR,
                  Op.AND):
            return self._arith(e)
        return self._top()  # XOR, OR, INVERT, LNOT, vector and register reads

    def _converted(self, e: Expr, dtype: DType):
        lo, hi = self.expr(e)
        return self._fit(lo, hi, dtype) if dtype != e.dtype else (lo, hi)

    def _arith(self, e: Expr):
        op = e.op
        t = e.dtype
        a_lo, a_hi = self._converted(e.src[0], t)
        b_type = integer_promote(e.src[1].dtype) if op in (Op.SHL, Op.SHR) else t
        b_lo, b_hi = self._converted(e.src[1], b_type)
        with np.errstate(invalid="ignore", over="ignore"):
            if op is Op.ADD:
                lo, hi = a_lo + b_lo, a_hi + b_hi
            elif op is Op.SUB:
                lo, hi = a_lo - b_hi, a_hi - b_lo
            elif op is Op.MUL:
                p = np.stack([a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi])
                p = np.where(np.isnan(p), 0.0, p)  # 0 x unbounded: the product is 0
                lo, hi = p.min(axis=0), p.max(axis=0)
            elif op is Op.MIN:
                lo, hi = np.minimum(a_lo, b_lo), np.minimum(a_hi, b_hi)
            elif op is Op.MAX:
                lo, hi = np.maximum(a_lo, b_lo), np.maximum(a_hi, b_hi)
            elif op is Op.DIV:  # C truncation; exact only for non-negative / positive
                ok = (a_lo >= 0) & (b_lo >= 1)
                lo = np.where(ok, np.floor(a_lo / np.where(ok, b_hi, 1)), -np.inf)
                hi = np.where(ok, np.floor(a_hi / np.where(ok, b_lo, 1)), np.inf)
            elif op is Op.MOD:
                ok = (a_lo >= 0) & (b_lo >= 1)
                small = ok & (a_hi < b_lo)  # the dividend never reaches the divisor
                lo = np.where(small, a_lo, np.where(ok, 0.0, -np.inf))
                hi = np.where(small, a_hi, np.where(ok, b_hi - 1, np.inf))
            elif op in (Op.SHL, Op.SHR):
                ok = (a_lo >= 0) & (b_lo >= 0) & (b_hi < t.bits)
                f_lo, f_hi = 2.0 ** np.where(ok, b_lo, 0), 2.0 ** np.where(ok, b_hi, 0)
                if op is Op.SHL:
                    lo, hi = a_lo * f_lo, a_hi * f_hi
                else:
                    lo, hi = np.floor(a_lo / f_hi), np.floor(a_hi / f_lo)
                lo, hi = np.where(ok, lo, -np.inf), np.where(ok, hi, np.inf)
            else:  # AND of non-negative values is at most the smaller
                ok = (a_lo >= 0) & (b_lo >= 0)
                lo = np.where(ok, 0.0, -np.inf)
                hi = np.where(ok, np.minimum(a_hi, b_hi), np.inf)
        return self._fit(lo, hi, t)

    def _compare(self, e: Expr):
        t = promote(e.src[0].dtype, e.src[1].dtype)
        if t.is_float:
            return self._full(0.0), self._full(1.0)
        a_lo, a_hi = self._converted(e.src[0], t)
        b_lo, b_hi = self._converted(e.src[1], t)
        op = e.op
        if op is Op.LT:
            true, false = a_hi < b_lo, a_lo >= b_hi
        elif op is Op.LE:
            true, false = a_hi <= b_lo, a_lo > b_hi
        elif op is Op.GT:
            true, false = a_lo > b_hi, a_hi <= b_lo
        elif op is Op.GE:
            true, false = a_lo >= b_hi, a_hi < b_lo
        else:
            same = (a_lo == a_hi) & (b_lo == b_hi) & (a_lo == b_lo)
            apart = (a_hi < b_lo) | (b_hi < a_lo)
            true, false = (same, apart) if op is Op.EQ else (apart, same)
        lo = np.where(true, 1.0, 0.0)
        hi = np.where(false, 0.0, 1.0)
        return lo, hi

    def decide(self, comparison: Expr) -> np.ndarray:
        """Per block: DECIDED_FALSE, DECIDED_TRUE or UNDECIDED."""
        lo, hi = self.expr(comparison)
        return np.where(lo == hi, lo, UNDECIDED).astype(np.int8)


def _reads(e: Expr, v: Var) -> bool:
    return any(n.op is Op.VAR and n.arg is v for n in e.walk())


def trip_counts(ranges: BlockRanges, loop: Loop) -> np.ndarray | None:
    """Per block, the trip count of `for (v = a; v < b; v += c)` (or <=, >, >=) whose start,
    bound and step are each one number for the whole block; None otherwise."""
    if not loop.counted:
        return None
    ends = [ranges.expr(e) for e in (loop.start, loop.cond.src[1], loop.step)]
    if any(not (np.isfinite(lo).all() and (lo == hi).all()) for lo, hi in ends):
        return None
    start, stop, step = (lo.astype(np.int64) for lo, _ in ends)  # exact: below 2^52
    compared = promote(loop.var.dtype, loop.cond.src[1].dtype)
    return trip_count(loop.cond.op, start, convert(stop, compared).astype(np.int64), step,
                      loop.do_while, loop.var.dtype, compared)


def probe_settled(ranges: BlockRanges, p: Probe) -> bool:
    """Whether intervals show that a hazard probe (slicing.fault_probes) cannot fault in any
    of the blocks: a register-array index within its extent, a divisor that excludes 0, a
    shift count within the operand's bits (float-to-integer conversions stay unknown)."""
    def within(e: Expr, lo_ok: int, hi_ok: int) -> bool:
        lo, hi = ranges.expr(e)
        return bool(((lo >= lo_ok) & (hi <= hi_ok)).all())
    if p.array is not None:
        return all(within(i, 0, n - 1) for i, n in zip(p.index, p.array.shape))
    e = p.expr
    if e.op in (Op.DIV, Op.MOD):
        lo, hi = ranges.expr(e.src[1])
        return bool(((lo > 0) | (hi < 0)).all())
    if e.op in (Op.SHL, Op.SHR):
        return within(e.src[1], 0, e.dtype.bits - 1)
    return False

"""Which low bits of an integer expression are known over a whole launch: a congruence
analysis (`x = r mod 2**bits`, or the exact value), without running the kernel.

What TMA and bulk copies read from global memory depends on where each copy starts within
a 32-byte sector (smemsim.launch.bulk), and that start is an expression of coordinates computed
from blockIdx, loop variables and parameters. Tracing those expressions would run every
block and every iteration; their low five bits are usually decided by the arithmetic
alone (`64 * blockIdx.x` is 0 mod 32, `8 + 64 * k` of 2-byte elements is 16 mod 32 bytes).

Every variable's value is the join of everything assigned to it (a Let, an Assign, a
loop's start and its step or update), iterated to a fixed point; threadIdx, blockIdx,
loaded values, floats and register arrays are unknown. The result only ever
under-approximates what is known: two assignments that differ in a bit leave it unknown.
Parameters and the launch's dimensions are exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from kernels_ir import Kernel, Launch
from kernels_ir.dtypes import DType
from kernels_ir.expr import COMPARE_OPS, Expr, Op, Var, binary
from kernels_ir.stmt import Assign, Let, Loop, walk

BITS = 32  # low bits tracked of a value not known exactly


@dataclass(frozen=True)
class Residue:
    """`value` mod 2**bits where `exact` is False (bits 0: nothing known); else the value."""

    value: int
    bits: int
    exact: bool = False

    def low(self, bits: int) -> tuple[int, int]:
        """(value mod 2**k, k): what is known of the low `bits` bits (k <= bits)."""
        k = bits if self.exact else min(bits, self.bits)
        return self.value % (1 << k), k


UNKNOWN = Residue(0, 0)


def exact(value: int) -> Residue:
    """A value known exactly."""
    return Residue(int(value), BITS, True)


def _mod(value: int, bits: int) -> Residue:
    bits = max(0, min(bits, BITS))
    return Residue(value % (1 << bits), bits)


def _known(r: Residue) -> int:
    return BITS if r.exact else r.bits


def _trailing_zeros(r: Residue) -> int:
    """Low bits known to be 0."""
    v, k = r.low(BITS)
    if v == 0:
        return k
    return (v & -v).bit_length() - 1


def join(a: Residue | None, b: Residue | None) -> Residue | None:
    """What both `a` and `b` agree on (None: no value yet)."""
    if a is None:
        return b
    if b is None:
        return a
    if a.exact and b.exact and a.value == b.value:
        return a
    k = min(_known(a), _known(b))
    differ = (a.value ^ b.value) % (1 << k)
    if differ:
        k = (differ & -differ).bit_length() - 1
    return _mod(a.value, k)


def _wrap(value: int, dtype: DType) -> int:
    """C's conversion of an integer to `dtype` (two's complement)."""
    bits = dtype.bits
    value &= (1 << bits) - 1
    return value - (1 << bits) if dtype.signed and value >> (bits - 1) else value


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class Congruences:
    """The known low bits of a kernel's integer expressions for one launch."""

    def __init__(self, kernel: Kernel, launch: Launch):
        self.launch = launch
        self.env: dict[Var, Residue | None] = {}
        defs: list[tuple[Var, Expr | None]] = []
        for s in walk(kernel.body):
            if isinstance(s, (Let, Assign)):
                defs.append((s.var, s.value))
            elif isinstance(s, Loop):
                defs.append((s.var, s.start))
                defs.append((s.var, s.update if s.step is None else
                             binary(Op.ADD, Expr(Op.VAR, s.var.dtype, arg=s.var), s.step)))
            else:
                for target in s.declares() + s.updates():
                    if isinstance(target, Var):
                        defs.append((target, None))   # loaded or computed: unknown
        for var, _ in defs:
            self.env[var] = None
        # iterate to the fixed point: every change lowers a variable in a lattice of
        # height BITS + 2, so this ends
        changed = True
        while changed:
            changed = False
            for var, value in defs:
                got = UNKNOWN if value is None or var.dtype.is_float or var.lanes > 1 \
                    else self._converted(value, var.dtype)
                if got is None:
                    continue    # reads a variable not reached yet
                new = join(self.env[var], got)
                if new != self.env[var]:
                    self.env[var] = new
                    changed = True

    def expr(self, e: Expr) -> Residue:
        """What is known of `e`'s value over the launch (UNKNOWN if nothing)."""
        r = self._expr(e)
        return UNKNOWN if r is None else r

    def _converted(self, e: Expr, dtype: DType) -> Residue | None:
        r = self._expr(e)
        if r is None or e.dtype.is_float or dtype.is_float:
            return None if r is None else UNKNOWN
        if r.exact:
            return exact(_wrap(r.value, dtype))
        return _mod(r.value, min(r.bits, dtype.bits))

    def _expr(self, e: Expr) -> Residue | None:
        op = e.op
        if e.dtype.is_float and op not in COMPARE_OPS:
            return UNKNOWN
        if op is Op.CONST:
            return exact(int(e.arg))
        if op is Op.PARAM:
            value = self.launch.params[e.arg]
            return exact(value) if float(value).is_integer() else UNKNOWN
        if op is Op.SPECIAL:
            name, axis = e.arg
            i = "xyz".index(axis)
            if name == "blockDim":
                return exact(self.launch.block[i])
            if name == "gridDim":
                return exact(self.launch.grid[i])
            return UNKNOWN
        if op is Op.VAR:
            if e.arg.lanes > 1:
                return UNKNOWN
            return self.env.get(e.arg, UNKNOWN)
        if op is Op.CAST:
            return self._converted(e.src[0], e.dtype)
        if op is Op.SELECT:
            a, b = (self._converted(s, e.dtype) for s in e.src[1:])
            if a is None or b is None:
                return None
            c = self._expr(e.src[0])
            if c is not None and c.exact:
                return a if c.value else b
            return join(a, b)
        if op in (Op.NEG, Op.INVERT):
            a = self._converted(e.src[0], e.dtype)
            if a is None or not (a.exact or a.bits):
                return a
            value = -a.value if op is Op.NEG else ~a.value
            return exact(_wrap(value, e.dtype)) if a.exact else _mod(value, a.bits)
        if op in COMPARE_OPS or op in (Op.LAND, Op.LOR, Op.LNOT):
            parts = [self._expr(s) for s in e.src]
            if any(p is None for p in parts):
                return None
            if all(p.exact for p in parts) and not any(s.dtype.is_float for s in e.src):
                return exact(_truth(op, [p.value for p in parts]))
            return UNKNOWN
        if op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MOD, Op.SHL, Op.SHR, Op.AND, Op.OR,
                  Op.XOR, Op.MIN, Op.MAX):
            return self._binary(e)
        return UNKNOWN   # calls, bitcasts, vector components, register arrays

    def _binary(self, e: Expr) -> Residue | None:
        op, t = e.op, e.dtype
        a = self._converted(e.src[0], t)
        b = self._converted(e.src[1], e.src[1].dtype if op in (Op.SHL, Op.SHR) else t)
        if a is None or b is None:
            return None
        if a.exact and b.exact:
            value = _exact_binary(op, a.value, b.value, t)
            return UNKNOWN if value is None else exact(_wrap(value, t))
        ka, kb = _known(a), _known(b)
        if op in (Op.ADD, Op.SUB):
            k = min(ka, kb)
            return _mod(a.value + b.value if op is Op.ADD else a.value - b.value, k)
        if op is Op.MUL:
            # (ra + 2^ka x)(rb + 2^kb y) = ra rb + ra 2^kb y + rb 2^ka x + 2^(ka + kb) x y
            k = min(ka + _trailing_zeros(b), kb + _trailing_zeros(a), ka + kb)
            return _mod(a.value * b.value, k)
        if op is Op.MOD:
            # C's remainder differs from the dividend by a multiple of the divisor
            if b.exact and b.value:
                k = min(ka, _trailing_zeros(b))
                return _mod(a.value, k)
            return UNKNOWN
        if op is Op.SHL and b.exact and 0 <= b.value < t.bits:
            return _mod(a.value << b.value, ka + b.value)
        if op is Op.SHR and b.exact and 0 <= b.value < t.bits:
            return _mod(a.value >> b.value, ka - b.value)
        if op in (Op.AND, Op.OR, Op.XOR):
            if op is Op.XOR:
                return _mod(a.value ^ b.value, min(ka, kb))
            # a bit of the result is known where both are, or where one side decides it
            # (a 0 in an AND, a 1 in an OR)
            k = 0
            while k < BITS:
                bit = 1 << k
                decided = any(_known(s) > k and bool(s.value & bit) == (op is Op.OR)
                              for s in (a, b))
                if not (decided or (ka > k and kb > k)):
                    break
                k += 1
            value = a.value & b.value if op is Op.AND else a.value | b.value
            return _mod(value, k)
        if op in (Op.MIN, Op.MAX):
            return join(a, b)
        return UNKNOWN   # a division or a shift by an unknown amount


def _truth(op: Op, v: list[int]) -> int:
    if op is Op.LNOT:
        return int(not v[0])
    a, b = v
    return int({Op.LT: a < b, Op.LE: a <= b, Op.GT: a > b, Op.GE: a >= b, Op.EQ: a == b,
                Op.NE: a != b, Op.LAND: bool(a) and bool(b), Op.LOR: bool(a) or bool(b)}[op])


def _exact_binary(op: Op, a: int, b: int, t: DType) -> int | None:
    if op in (Op.DIV, Op.MOD):
        if b == 0:
            return None
        q = _c_div(a, b)
        return q if op is Op.DIV else a - q * b
    if op in (Op.SHL, Op.SHR):
        if not 0 <= b < t.bits:
            return None
        return a << b if op is Op.SHL else a >> b
    return {Op.ADD: a + b, Op.SUB: a - b, Op.MUL: a * b, Op.AND: a & b, Op.OR: a | b,
            Op.XOR: a ^ b, Op.MIN: min(a, b), Op.MAX: max(a, b)}[op]

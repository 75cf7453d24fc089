"""What each operation computes, in C semantics, over numpy arrays of lanes.

Integer results wrap in their C type, `/` and `%` truncate toward zero, shifts arithmetic on
signed values. Undefined behaviour in C (division by zero, shifting by the width or more,
converting an out-of-range float to an integer) raises `LaneFault` naming the lanes, never
returns a made-up value.
"""
from __future__ import annotations

import math

import numpy as np

from .dtypes import BY_NAME, DType, from_storage, to_storage
from .expr import BIT_FUNCTIONS, EXACT_DIV, Op


class LaneFault(Exception):
    """Undefined behaviour on some lanes; `lanes` are positions in the evaluated arrays, the
    first the one the message names (the others, where given, meet it there too: the
    blocks they are in are counted together, Machine.lane_fault)."""

    def __init__(self, message: str, lanes: np.ndarray):
        super().__init__(message)
        self.message = message
        self.lanes = lanes


def convert(values: np.ndarray, dtype: DType) -> np.ndarray:
    """C conversion to `dtype`: integers wrap, floats truncate toward zero."""
    target = dtype.np
    if values.dtype == target:
        return values
    if values.dtype.kind == "f" and not dtype.is_float:
        bad = ~np.isfinite(values) | (np.trunc(values) < dtype.min) | (np.trunc(values) > dtype.max)
        if bad.any():
            lanes = np.flatnonzero(bad)
            raise LaneFault(f"converting {values[lanes[0]]} to {dtype} is out of range "
                            "(undefined in C)", lanes)
        return np.trunc(values).astype(target)
    with np.errstate(over="ignore", invalid="ignore"):
        if values.dtype.kind in "iu" and dtype.is_float:
            return values.astype(target)
        return values.astype(target, casting="unsafe")


def trip_count(op: Op, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
               do_while: bool, var: DType, compared: DType) -> np.ndarray | None:
    """Trip counts of `for (v = start; v op stop; v += step)` (op one of <, <=, >, >=; int64
    arrays, `stop` already in the type the comparison uses), or None when C would compare a
    negative start as unsigned, the step goes the wrong way, or the variable would wrap."""
    if not compared.signed and (start < 0).any():
        return None  # C compares a negative start as a huge unsigned value
    if op in (Op.LT, Op.LE):
        if (step <= 0).any():
            return None
        trips = np.maximum(0, -(-(stop + (op is Op.LE) - start) // step))
    else:
        if (step >= 0).any():
            return None
        trips = np.maximum(0, -(-(start - stop + (op is Op.GE)) // -step))
    if do_while:
        trips = np.maximum(trips, 1)
    last = start + trips * step  # the value that ends the loop must not wrap either
    if (last > var.max).any() or (last < var.min).any():
        return None
    return trips


def _int_division(a: np.ndarray, b: np.ndarray, want_quotient: bool) -> np.ndarray:
    zero = b == 0
    if zero.any():
        raise LaneFault("integer division by zero", np.flatnonzero(zero))
    if a.dtype.kind == "u" or (a.min(initial=0) >= 0 and b.min(initial=1) > 0):
        # numpy floors and C truncates: they agree where neither operand is negative
        # (an index's `e / D` and `e % D`, nearly always)
        return a // b if want_quotient else a % b
    # C truncates; numpy floors. Work in int64 (exact for 32-bit operands) then wrap.
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = np.abs(a64) // np.abs(b64) * np.sign(a64) * np.sign(b64)
    out = q if want_quotient else a64 - q * b64
    return out.astype(a.dtype, casting="unsafe")


_COMPARE = {Op.LT: np.less, Op.LE: np.less_equal, Op.GT: np.greater,
            Op.GE: np.greater_equal, Op.EQ: np.equal, Op.NE: np.not_equal}
# integer ops numpy computes on arrays without a warning (they wrap as C's unsigned do)
_QUIET = {Op.ADD: np.add, Op.SUB: np.subtract, Op.MUL: np.multiply, Op.AND: np.bitwise_and,
          Op.OR: np.bitwise_or, Op.XOR: np.bitwise_xor, Op.MIN: np.minimum,
          Op.MAX: np.maximum}


def binary(op: Op, dtype: DType, a: np.ndarray, b: np.ndarray, operand: DType) -> np.ndarray:
    """`a op b`: operands already converted to `operand`; the result has type `dtype`."""
    if not operand.is_float:   # (no floating-point state to silence: the common case, fast)
        quiet = _QUIET.get(op)
        if quiet is not None:
            return quiet(a, b)
        compare = _COMPARE.get(op)
        if compare is not None:
            return compare(a, b).astype(dtype.np)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if op is Op.ADD:
            return a + b
        if op is Op.SUB:
            return a - b
        if op is Op.MUL:
            return a * b
        if op is Op.DIV:
            return a / b if operand.is_float else _int_division(a, b, True)
        if op is Op.MOD:
            return _int_division(a, b, False)
        if op in (Op.SHL, Op.SHR):
            bad = (b < 0) | (b >= operand.bits) if b.dtype.kind == "i" else b >= operand.bits
            if bad.any():
                lanes = np.flatnonzero(bad)
                raise LaneFault(f"shift by {b[lanes[0]]} on a {operand.bits}-bit value "
                                "(undefined in C)", lanes)
            shift = b.astype(a.dtype, casting="unsafe")
            return np.left_shift(a, shift) if op is Op.SHL else np.right_shift(a, shift)
        if op is Op.AND:
            return a & b
        if op is Op.OR:
            return a | b
        if op is Op.XOR:
            return a ^ b
        if op is Op.MIN:
            return np.minimum(a, b)
        if op is Op.MAX:
            return np.maximum(a, b)
        return _COMPARE[op](a, b).astype(dtype.np)


def unary(op: Op, dtype: DType, a: np.ndarray) -> np.ndarray:
    """`-a`, `~a` or `!a` with `a` already converted to `dtype` (LNOT: any type)."""
    with np.errstate(over="ignore"):
        if op is Op.NEG:
            return -a if dtype.is_float else (np.zeros_like(a) - a)
        if op is Op.INVERT:
            return ~a
        return (a == 0).astype(dtype.np)


_F16, _BF16 = BY_NAME["f16"], BY_NAME["bf16"]
_MATH = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "fabs": np.abs, "floor": np.floor, "ceil": np.ceil, "fmin": np.fmin, "fmax": np.fmax,
    "pow": np.power, "cosh": np.cosh, "sinh": np.sinh, "tan": np.tan, "atan": np.arctan,
    "asin": np.arcsin, "acos": np.arccos, "atan2": np.arctan2, "log10": np.log10,
    "log1p": np.log1p, "expm1": np.expm1, "cbrt": np.cbrt, "hypot": np.hypot,
    "exp10": lambda x: np.power(x.dtype.type(10), x),
    # rintf: to the nearest integer, ties to even (the default rounding mode); truncf: to 0
    "rint": np.rint, "trunc": np.trunc,
    # numpy has no erf: the C library's, element by element (in double, then rounded)
    "erf": lambda x: np.vectorize(math.erf, otypes=[np.float64])(x),
    "erfc": lambda x: np.vectorize(math.erfc, otypes=[np.float64])(x),
    # rounded as a store rounds (cvt.rn), widened back exactly as a load widens; a double
    # first to float rounded to odd, so that the one rounding to 16 bits is the double's own
    "round_f16": lambda x: from_storage(to_storage(_float_rounded_to_odd(x), _F16), _F16),
    "round_bf16": lambda x: from_storage(to_storage(_float_rounded_to_odd(x), _BF16), _BF16),
    "f16_bits": lambda x: to_storage(x.astype(np.float32), _F16).view(np.uint16)
    .astype(np.uint32),
    "f16_from_bits": lambda x: (x & 0xFFFF).astype(np.uint16).view(np.float16)
    .astype(np.float32),
}


def _float_rounded_to_odd(x: np.ndarray) -> np.ndarray:
    """Doubles as floats rounded toward zero with the last bit set where inexact (round to
    odd): a float keeps 13 or more bits beyond a 16-bit float's, so rounding this to f16 or
    bf16 to nearest even rounds the double itself once (as cvt.rn.bf16.f64 does). Floats
    pass as they are."""
    if x.dtype != np.float64:
        return x
    f = x.astype(np.float32)
    wide = np.abs(f.astype(np.float64)) > np.abs(x)
    f = np.where(wide, np.nextafter(f, np.float32(0)), f)     # toward zero
    inexact = (f.astype(np.float64) != x) & ~np.isnan(x)
    return (f.view(np.uint32) | inexact.astype(np.uint32)).view(np.float32)


# each byte's bits reversed
_REVERSED = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], np.uint8)


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):          # numpy 2
        return np.bitwise_count(x).astype(np.int32)
    return np.unpackbits(x.view(np.uint8).reshape(x.size, -1), axis=1).sum(
        axis=1, dtype=np.int32).reshape(x.shape)


def _bits(name: str, x: np.ndarray) -> np.ndarray:
    """CUDA's __popc, __clz, __ffs and __brev (their ll forms for a 64-bit operand) of an
    unsigned 32- or 64-bit array."""
    bits = 8 * x.dtype.itemsize
    if name == "popc":
        return _popcount(x)
    if name == "ffs":        # the lowest set bit, from 1; 0 for 0
        low = x & (~x + np.array(1, x.dtype))          # x & -x, unsigned
        return np.where(x == 0, 0, _popcount(low - np.array(1, x.dtype)) + 1).astype(np.int32)
    if name == "clz":        # the leading zeros: bits less the bits the value spans
        smear = x.copy()
        shift = 1
        while shift < bits:
            smear |= smear >> np.array(shift, x.dtype)
            shift *= 2
        return (bits - _popcount(smear)).astype(np.int32)
    # brev: the bytes in reverse order, each byte's bits reversed
    flat = np.ascontiguousarray(x).view(np.uint8).reshape(-1, bits // 8)
    return _REVERSED[flat[:, ::-1]].copy().view(x.dtype).reshape(x.shape)


def math_call(name: str, args: list[np.ndarray]) -> np.ndarray:
    """A math function in the arguments' float type (IEEE: log(-1) is NaN, as on the GPU);
    the integer functions: exact_div (LaneFault where a remainder is left) and CUDA's bit
    intrinsics (BIT_FUNCTIONS).

    fma rounds once, as the GPU does: its product and sum are formed in float64 (exact for
    float32 operands' product) before the one rounding to the result type.
    """
    if name == EXACT_DIV:
        a, n = args
        bad = a % n != 0
        if bad.any():
            lanes = np.flatnonzero(bad)
            raise LaneFault(f"a view of {int(n[lanes[0]])}-byte elements starts at byte offset "
                            f"{int(a[lanes[0]])}, not a multiple of {int(n[lanes[0]])} (a "
                            "misaligned view: the GPU faults on its accesses)", lanes)
        return _int_division(a, n, True)
    if name in BIT_FUNCTIONS:
        return _bits(name, args[0])
    with np.errstate(all="ignore"):
        if name == "fma":
            a, b, c = args
            if a.dtype == np.float32:
                return (a.astype(np.float64) * b + c).astype(np.float32)
            return a * b + c   # double: numpy has no fused multiply-add; one extra rounding
        out = _MATH[name](*args)
        if name in ("f16_bits", "f16_from_bits"):
            return out
        # a rounding to 16 bits is a float whatever it rounded (a double, too)
        return out.astype(np.float32 if name.startswith("round_") else args[0].dtype)


def atomic_result(kind: str, cur: np.ndarray, v: np.ndarray, compare) -> np.ndarray:
    """The value an atomic leaves in memory (CUDA's definitions; integers wrap)."""
    if kind == "add":
        return cur + v
    if kind == "sub":
        return cur - v
    if kind == "min":
        return np.minimum(cur, v)
    if kind == "max":
        return np.maximum(cur, v)
    if kind == "and":
        return cur & v
    if kind == "or":
        return cur | v
    if kind == "xor":
        return cur ^ v
    if kind == "inc":   # atomicInc: ((old >= v) ? 0 : old + 1)
        return np.where(cur >= v, 0, cur + 1).astype(cur.dtype)
    if kind == "dec":   # atomicDec: ((old == 0) || (old > v)) ? v : old - 1
        return np.where((cur == 0) | (cur > v), v, cur - 1).astype(cur.dtype)
    if kind == "exch":
        return v
    return np.where(cur == compare, v, cur)  # cas

"""What a PTX register holds while an entry is lowered (an address into one array, a choice of
arrays) and the expression helpers the instruction handlers share."""
from __future__ import annotations

import re
from dataclasses import dataclass

from kernels_ir import (blockDim, blockIdx, gridDim, threadIdx)
from kernels_ir.dtypes import f32, f64, i8, i16, i32, i64, u8, u16, u32, u64
from kernels_ir.expr import (COMPARE_OPS, Expr, Op, as_expr, bitcast, call, cast, const, lnot,
                             logical_and, logical_or, select, smax, smin)

from .parse import PtxError


_DEEP = 48    # expression depth past which a register's value is held in a local
_BROAD = 2048  # nodes as a tree past which too (an unrolled chain whose steps each read the
#               one before twice doubles at each step: a walk of it would never end)


_TYPES = {"s8": i8, "u8": u8, "b8": u8, "s16": i16, "u16": u16, "b16": u16, "s32": i32,
          "u32": u32, "b32": u32, "s64": i64, "u64": u64, "b64": u64, "f32": f32, "f64": f64}


_WIDE = {"i16": i32, "u16": u32, "i32": i64, "u32": u64}   # what .wide makes of a type


_IMMEDIATE = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+)")


_INT_STEP_TYPES = ("s32", "u32", "b32", "s64", "u64", "b64")


# a comparison with its operands swapped, and negated (setp's integer comparisons)
_FLIPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne",
            "lo": "hi", "hi": "lo", "ls": "hs", "hs": "ls"}


_NEGATED = {"lt": "ge", "ge": "lt", "le": "gt", "gt": "le", "eq": "ne", "ne": "eq",
            "lo": "hs", "hs": "lo", "ls": "hi", "hi": "ls"}


_HALF_TYPES = ("f16", "bf16", "f16x2", "bf16x2")


_HALF_OPS = {"add": (lambda a, b: a + b, 2), "sub": (lambda a, b: a - b, 2),
             "mul": (lambda a, b: a * b, 2), "fma": (lambda a, b, c: a * b + c, 3),
             "neg": (lambda a: -a, 1), "abs": (lambda a: select(a < 0, -a, a), 1),
             "min": (lambda a, b: smin(a, b), 2), "max": (lambda a, b: smax(a, b), 2),
             "setp": (None, 2)}


_SPECIAL = {"tid": threadIdx, "ntid": blockDim, "ctaid": blockIdx, "nctaid": gridDim}


@dataclass(frozen=True)
class Address:
    """A pointer register: `space` ('global', 'shared' or 'param'), `base` (a parameter's
    index for global and param; None for the shared window) and a byte `offset`."""

    space: str
    base: int | None
    offset: Expr
    origin: str | None = None    # the shared variable it was made from (names the view)

    def plus(self, delta: Expr) -> "Address":
        delta = retype(delta, self.offset.dtype)
        at_start = self.offset.op is Op.CONST and self.offset.arg == 0
        return Address(self.space, self.base, delta if at_start else self.offset + delta,
                       self.origin)


@dataclass(frozen=True)
class Choice:
    """A pointer register holding one of several arrays' addresses (`selp.b64 %rd5, %rd1,
    %rd2, %p1`, or a register each branch points into another array: moderngpu's merge
    reads a_keys or b_keys through one pointer; `mask ? mask + i : nullptr`). `index` says
    which of `sides` (a side of space 'null': a null pointer). Offsets move every side
    alike; an access through it is lowered once per side, under `index == side` (on the
    GPU one instruction; here one site a side at its line, each run by the threads that
    chose it: the same where a warp's threads agree)."""

    index: Expr
    sides: tuple

    def plus(self, delta: Expr) -> "Choice":
        return Choice(self.index, tuple(x.plus(delta) for x in self.sides))


def _either(cond: Expr, a: Address, b: Address) -> Choice:
    """`cond ? a : b` of two arrays' addresses."""
    return Choice(select(cond, const(0, i32), const(1, i32)), (a, b))


# the instructions that take a Choice: offsets and moves keep it one, loads and stores read
# through it, a comparison with null tests it; any other reading of one is refused
_CHOICE_OPS = frozenset({"add", "sub", "mad", "mov", "cvta", "cvt", "ld", "st", "selp",
                         "setp"})


@dataclass(frozen=True)
class TensorMapRef:
    """A register holding the address of a CUtensorMap parameter (what a TMA copy names)."""

    tensor_map: object   # kernels_ir.TensorMap


def _as_bits(value, dtype):
    """A parameter's value as the IR's type holds it: a negative integer given for one that
    PTX passes as unsigned bits (nvcc's `.u32` of an `int`, a lambda's `int` capture read
    with `ld.param.u32`) is its two's complement, as the host's bytes are."""
    if dtype is not None and isinstance(value, int) and not isinstance(value, bool) and \
            value < 0 and not dtype.is_float and not dtype.signed and \
            value >= -(1 << (dtype.bits - 1)):
        return value + (1 << dtype.bits)
    return value


def _mul_hi(a: Expr, b: Expr, dtype) -> Expr:
    """The high half of a * b's double-width product (`mul.hi`): through the wider type for
    16 and 32 bits; from 32-bit halves for 64 bits (a signed operand's product is the
    unsigned one less the other operand where it is negative: two's complement)."""
    if dtype.size < 8:
        wide = _WIDE[dtype.name]
        return retype(retype(a, wide) * retype(b, wide) >> (dtype.size * 8), dtype)
    ua, ub = retype(a, u64), retype(b, u64)
    low = const(0xFFFFFFFF, u64)
    al, ah, bl, bh = ua & low, ua >> 32, ub & low, ub >> 32
    t = ah * bl + ((al * bl) >> 32)
    w = (t & low) + al * bh
    hi = ah * bh + (t >> 32) + (w >> 32)
    if dtype is i64:
        hi = hi - select(a < 0, ub, const(0, u64)) - select(b < 0, ua, const(0, u64))
    return retype(hi, dtype)


_BITS = {t: int(t.lstrip("bfsu"))
         for t in ("b8", "u8", "s8", "b16", "u16", "s16", "f16", "bf16", "b32", "u32", "s32",
                   "f32", "b64", "u64", "s64", "f64")}


def _c_name(register: str) -> str:
    """A register's name as a C identifier (`%rd4` -> `rd4`)."""
    return register.lstrip("%")


def _const_bytes(c) -> tuple | None:
    """A `.const` array's initial bytes (None: the host fills it)."""
    if c.initial is None:
        return None
    import struct
    codes = {"b8": "B", "u8": "B", "s8": "b", "b16": "H", "u16": "H", "s16": "h", "b32": "I",
             "u32": "I", "s32": "i", "b64": "Q", "u64": "Q", "s64": "q", "f32": "f",
             "f64": "d"}
    code = codes.get(c.ptype)
    if code is None:
        raise PtxError(f"__constant__ {c.name}: initial values of type .{c.ptype} are not "
                       "read yet")
    out = bytearray()
    for v in c.initial:
        if v.startswith(("0f", "0F")):
            out += bytes.fromhex(v[2:])[::-1] if code == "f" else b""
            continue
        if v.startswith(("0d", "0D")):
            out += bytes.fromhex(v[2:])[::-1]
            continue
        try:
            number = int(v, 0)
        except ValueError:   # an address (`generic(table)`) or an expression
            raise PtxError(f"{c.name}: the initial value {v!r} is not read yet") from None
        if code in "fd":
            out += struct.pack("<" + code, float(number))
        else:
            out += (number % (1 << (8 * struct.calcsize(code)))).to_bytes(
                struct.calcsize(code), "little")
    out += bytes(c.nbytes - len(out))
    return tuple(out)


_LOGIC = COMPARE_OPS | {Op.LAND, Op.LOR, Op.LNOT}


# an integer comparison's negation (a float one's is not: NaN compares false both ways)
_NOT = {Op.LT: Op.GE, Op.GE: Op.LT, Op.LE: Op.GT, Op.GT: Op.LE, Op.EQ: Op.NE, Op.NE: Op.EQ}


def _condition(e: Expr) -> Expr:
    """A predicate as the condition it states: `c != 0` of a comparison is the comparison,
    `c == 0` its negation, `&`, `|` and `^` of conditions (PTX's and.pred, or.pred,
    xor.pred) are `&&`, `||` and `!=` (`x < W && y < H`: the form the analyses class the
    grid by, axis by axis)."""
    if e.op in (Op.NE, Op.EQ) and _zero(e.src[1]) and e.src[0].op in _LOGIC | {
            Op.AND, Op.OR, Op.XOR}:
        inner = _condition(e.src[0])
        if inner.op in _LOGIC:
            return inner if e.op is Op.NE else _negated(inner)
    if e.op in (Op.AND, Op.OR, Op.XOR):
        a, b = (_condition(x) for x in e.src)
        if a.op in _LOGIC and b.op in _LOGIC:
            return logical_and(a, b) if e.op is Op.AND else \
                logical_or(a, b) if e.op is Op.OR else a != b
    return e


def _negated(e: Expr) -> Expr:
    """The negation of a condition, pushed into its comparisons (De Morgan)."""
    if e.op in _NOT and not e.src[0].dtype.is_float and not e.src[1].dtype.is_float:
        return Expr(_NOT[e.op], e.dtype, e.src, e.arg)
    if e.op is Op.LAND:
        return logical_or(*(_negated(x) for x in e.src))
    if e.op is Op.LOR:
        return logical_and(*(_negated(x) for x in e.src))
    if e.op is Op.LNOT:
        return e.src[0] if e.src[0].op in _LOGIC else e.src[0] != 0
    return lnot(e)


def _zero(e: Expr) -> bool:
    return e.op is Op.CONST and e.arg == 0


def _long(e: Expr) -> bool:
    """Whether an expression is too deep or too wide (as a tree) to read in place."""
    return e.depth > _DEEP or e.tree > _BROAD


def _pure(value) -> bool:
    """Whether a register's value reads no variable (only parameters, indices, constants)."""
    if isinstance(value, Address):
        value = value.offset
    if not isinstance(value, Expr) or _long(value):
        return False
    seen, stack = set(), [value]
    while stack:   # (each shared node once: an expression is a graph)
        e = stack.pop()
        if e.op is Op.VAR:
            return False
        seen.add(id(e))
        stack.extend(x for x in e.src if id(x) not in seen)
    return True


def _element_index(offset: Expr, size: int) -> Expr:
    """The element index of a byte offset: the offset's terms each divided by the element
    size where each is a multiple of it (`(i << 2) / 4` is i: an index the analyses read as
    affine in the thread and block), else the offset / size."""
    if size == 1:
        return offset
    exact = _quotient(offset, size)
    return exact if exact is not None else offset // size


def _quotient(e: Expr, d: int) -> Expr | None:
    """`e / d` where every term of `e` is a multiple of `d` (a constant of an unsigned type
    read as its signed value: `i + 0xFFFFFFFC` steps back one 4-byte element); None where
    that is not seen. Equal to `e / d` while the byte offset does not wrap its type, as no
    address does."""
    if e.op is Op.CONST and not e.dtype.is_float:
        v = int(e.arg)
        if not e.dtype.signed and v >= 1 << (e.dtype.bits - 1):
            v -= 1 << e.dtype.bits
        return _wrapped(v // d, e.dtype) if v % d == 0 else None
    if e.op in (Op.ADD, Op.SUB):
        a, b = (_quotient(x, d) for x in e.src)
        if a is None or b is None:
            return None
        if a.op is Op.CONST and b.op is Op.CONST and a.dtype == b.dtype:
            return _wrapped(int(a.arg) + int(b.arg) if e.op is Op.ADD else
                            int(a.arg) - int(b.arg), a.dtype)
        return a + b if e.op is Op.ADD else a - b
    if e.op is Op.SHL and e.src[1].op is Op.CONST and (1 << int(e.src[1].arg)) % d == 0:
        return e.src[0] * ((1 << int(e.src[1].arg)) // d) if (1 << int(e.src[1].arg)) != d \
            else e.src[0]
    if e.op is Op.MUL:
        for x, y in (e.src, e.src[::-1]):
            if y.op is Op.CONST and not y.dtype.is_float and int(y.arg) % d == 0:
                return x * _wrapped(int(y.arg) // d, y.dtype) if int(y.arg) != d else x
        return None
    if e.op is Op.CAST and not e.dtype.is_float and not e.src[0].dtype.is_float and \
            e.dtype.size >= e.src[0].dtype.size:
        inner = _quotient(e.src[0], d)
        return None if inner is None else cast(inner, e.dtype)
    if e.op is Op.AND and d & (d - 1) == 0:
        # `x & c` with c's low bits clear (a mask that aligns: cub's and cuda_fp16's
        # `(tid >> 3) & ~3`): (x >> k) & (c >> k), k = log2 d
        k = d.bit_length() - 1
        for x, c in (e.src, e.src[::-1]):
            if c.op is Op.CONST and not c.dtype.is_float and int(c.arg) % d == 0:
                return (x >> const(k, x.dtype)) & _wrapped(int(c.arg) >> k, c.dtype)
    return None


def _odd_f32(x: Expr) -> Expr:
    """An f64 rounded to f32 to odd (toward zero, the last bit set where that was inexact):
    rounding that to a 16-bit float to nearest even equals rounding the f64 once, as
    `cvt.rn.f16.f64` does (f32 keeps more than two bits beyond a half's mantissa)."""
    near = cast(x, f32)
    bits = bitcast(near, u32)
    # (a magnitude rounded up: one step back toward zero; NaN and infinities as they are)
    finite = (bits & 0x7F800000) != 0x7F800000
    up = finite & (call("fabs", cast(near, f64)) > call("fabs", x))
    bits = select(up, bits - 1, bits)
    inexact = finite & (cast(bitcast(bits, f32), f64) != x)
    return bitcast(select(inexact, bits | 1, bits), f32)


def _compared(cmp: str, a: Expr, b: Expr, is_float: bool) -> Expr | None:
    """A PTX comparison (setp, set) of two values; None for an operator not known."""
    # the unordered forms of a float comparison (`leu`) hold also where either is NaN
    unordered = lambda: (a != a) | (b != b)   # noqa: E731
    ops = {"eq": lambda: a == b, "lt": lambda: a < b,
           # ordered: false where either is NaN, as every comparison but the `u` forms
           "ne": (lambda: (a != b) & (a == a) & (b == b)) if is_float else (lambda: a != b),
           "le": lambda: a <= b, "gt": lambda: a > b, "ge": lambda: a >= b,
           "lo": lambda: a < b, "ls": lambda: a <= b, "hi": lambda: a > b,
           "hs": lambda: a >= b,
           "equ": lambda: (a == b) | unordered(), "neu": lambda: (a != b) | unordered(),
           "ltu": lambda: (a < b) | unordered(), "leu": lambda: (a <= b) | unordered(),
           "gtu": lambda: (a > b) | unordered(), "geu": lambda: (a >= b) | unordered(),
           "num": lambda: (a == a) & (b == b), "nan": unordered}
    return ops[cmp]() if cmp in ops else None


def retype(value, dtype) -> Expr:
    """A register's value read as `dtype`: registers hold bits, so between a float and an
    integer type of one size it is the same bits (`mov.b32 %r1, %f1`); between integers a
    C conversion (the low bits, extended as the source's sign says). Only `cvt` converts a
    number's value between float and integer."""
    value = as_expr(value)
    if value.op is Op.CONST and not value.dtype.is_float and not dtype.is_float:
        return _wrapped(int(value.arg), dtype)   # (a constant stays one: masks, widths)
    if value.dtype.is_float != dtype.is_float and value.dtype.size == dtype.size:
        return bitcast(value, dtype)
    return cast(value, dtype)


def _wrapped(number: int, dtype) -> Expr:
    """An integer as the bits of `dtype` hold it (two's complement)."""
    bits = 8 * dtype.size
    number %= 1 << bits
    if dtype.signed and number >= 1 << (bits - 1):
        number -= 1 << bits
    return const(number, dtype)

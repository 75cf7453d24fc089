"""Conversions: `cvt` between integer, float, half, bfloat16 and fp8 values, and the half-
precision arithmetic."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kernels_ir.dtypes import f32, i32, u16, u32
from kernels_ir.expr import (Expr, bitcast, call, cast, const, select, smax, smin)

from .parse import Inst
from .values import Address, Choice, _compared, _HALF_OPS, _odd_f32, retype, _TYPES

if TYPE_CHECKING:
    from .lower import Lowering


def op_cvt(lw: Lowering, inst: Inst) -> None:
    fp8 = next((p for p in inst.opcode[1:] if p in ("e4m3x2", "e5m2x2")), None)
    if fp8 is not None:
        _fp8_cvt(lw, inst, fp8)
        return
    pair = next((p for p in inst.opcode[1:] if p in ("f16x2", "bf16x2")), None)
    if pair is not None:
        # `cvt.rn.f16x2.f32 d, a, b`: two f32 rounded to halves, a's in the upper half
        if inst.opcode[1:] != ("rn", pair, "f32") or len(inst.operands) != 3:
            raise lw._refuse(inst, "this conversion to a pair of halves is not "
                                   "lowered yet")
        hi, lo = (half_bits(retype(lw.value(t, f32), f32), pair == "bf16x2")
                  for t in inst.operands[1:3])
        lw._dest(inst, retype((hi << 16) | lo, u32))
        return
    halves = [p for p in inst.opcode[1:] if p in ("f16", "bf16")]
    if halves:
        _half_cvt(lw, inst)
        return
    if inst.opcode[1:] in (("rna", "tf32", "f32"), ("rna", "satfinite", "tf32", "f32")):
        # `cvt.rna.tf32.f32` (wmma::__float_to_tf32): the float's bits rounded to 10
        # mantissa bits, to nearest with ties away from zero (half a tf32 ulp added to
        # the magnitude, the 13 low bits cleared); infinities and NaNs kept (PTX ISA)
        bits = lw.integer(inst.operands[1], u32)
        finite = (bits & 0x7F800000) != 0x7F800000
        rounded = select(finite, (bits + 0x1000) & 0xFFFFE000, bits)
        if "satfinite" in inst.opcode:   # a finite value rounded past the largest: it
            rounded = select(finite & ((rounded & 0x7F800000) == 0x7F800000),
                             (bits & 0x80000000) | 0x7F7FE000, rounded)
        lw._dest(inst, rounded)
        return
    types = [p for p in inst.opcode[1:] if p in _TYPES]
    if len(types) != 2:
        raise lw._refuse(inst, "a conversion smemsim cannot read")
    v = lw.value(inst.operands[1], _TYPES[types[1]])
    narrow = _TYPES[types[0]].size < 8
    if isinstance(v, Address) and narrow and v.space in ("global", "param"):
        # a global pointer's low bits as a number (a union of a value and a pointer,
        # cub's InputValue: its fictional address, see _numbers)
        lw._dest(inst, retype(lw._flat(v), _TYPES[types[0]]))
        return
    if isinstance(v, (Address, Choice)):
        lw._dest(inst, v)
        return
    src, dst = _TYPES[types[1]], _TYPES[types[0]]
    x = retype(v, src)
    if src.is_float:   # the rounding to an integer the instruction names
        mode = next((m for m in ("rni", "rmi", "rpi", "rzi") if m in inst.opcode), None)
        if mode is not None and (mode != "rzi" or dst.is_float):
            x = call({"rni": "rint", "rmi": "floor", "rpi": "ceil", "rzi": "trunc"}[mode],
                     x)
        if not dst.is_float:
            # a float out of the integer's range saturates to it, NaN is 0 (PTX ISA)
            # (the cast itself reads only numbers in range: the interpreter refuses a
            # conversion C leaves undefined, on every lane of a select)
            lo, top = float(dst.min), float(dst.max + 1)    # (exact: 0 or -2^k, 2^k)
            inside = select((x >= lo) & (x < top), x, const(0, src))
            lw._dest(inst, select(x != x, const(0, dst), select(
                x >= top, const(dst.max, dst), select(x < lo, const(dst.min, dst),
                                                      cast(inside, dst)))))
            return
    lw._dest(inst, cast(x, dst))


def _fp8_cvt(lw: Lowering, inst: Inst, fp8: str) -> None:
    """Pairs of 8-bit floats (PTX ISA, cvt): `cvt.rn.satfinite.e4m3x2.f32 d, a, b` (a's
    byte the upper one; nearest, ties to even; beyond the largest finite value and
    infinities: the largest, NaN: NaN) and `cvt.rn.f16x2.e4m3x2 d, a` (exact)."""
    e4m3 = fp8 == "e4m3x2"
    parts = inst.opcode[1:]
    if parts == ("rn", "satfinite", fp8, "f32") and len(inst.operands) == 3:
        hi, lo = (_fp8_bits(retype(lw.value(t, f32), f32), e4m3)
                  for t in inst.operands[1:3])
        lw._dest(inst, retype((hi << 8) | lo, u16))
        return
    if parts == ("rn", "f16x2", fp8) and len(inst.operands) == 2:
        pair = retype(lw.integer(inst.operands[1], u16), u32)
        hi, lo = (_fp8_half(lw, pair >> 8 & 0xFF, e4m3), _fp8_half(lw, pair & 0xFF, e4m3))
        lw._dest(inst, retype((hi << 16) | lo, u32))
        return
    raise lw._refuse(inst, "this conversion of 8-bit floats is not lowered yet")


def _fp8_half(lw: Lowering, byte: Expr, e4m3: bool) -> Expr:
    """An 8-bit float's value as a half's 16 bits (u32), exactly: e5m2 is a half's upper
    byte; e4m3 (bias 7, no infinities, S.1111.111 NaN) through its f32 value; a NaN is
    the canonical 0x7FFF (as an H200 converts: tests/data/fp8_h200.json)."""
    if not e4m3:
        return select((byte & 0x7F) > 0x7C, const(0x7FFF, u32), byte << 8)
    sign, exp, man = byte >> 7, byte >> 3 & 0xF, byte & 7
    normal = bitcast((sign << 31) | ((exp + 120) << 23) | (man << 20), f32)
    tiny = cast(man, f32) * (1.0 / 512)   # exp 0: man x 2^-9
    tiny = select(sign != 0, -tiny, tiny)
    half = half_bits(select(exp == 0, tiny, normal), False)
    return select((byte & 0x7F) == 0x7F, const(0x7FFF, u32), half)


def _fp8_bits(x: Expr, e4m3: bool) -> Expr:
    """An f32's nearest 8-bit float (ties to even, finite values saturated) as a byte
    (u32). Its codes are in order of value within a sign, so the code is the binade's
    first plus the value in quanta of that binade: q = rint(|x| / 2^(E - m)) from
    2^m, E the binade's exponent (the smallest normal one for subnormals)."""
    mant, bias, top, nan = (3, 7, 0x7E, 0x7F) if e4m3 else (2, 15, 0x7B, 0x7F)
    word = bitcast(x, u32)
    sign = (word >> 31) << 7
    is_nan = (word & 0x7FFFFFFF) > 0x7F800000
    # (a NaN's magnitude 0 and an infinity's 1e30: neither reaches rint)
    mag = select(is_nan, const(0.0, f32),
                 smin(bitcast(word & 0x7FFFFFFF, f32), const(1e30, f32)))
    e = smax(retype(word >> 23 & 0xFF, i32) - 127, const(1 - bias, i32))
    scale = bitcast(retype(mant - e + 127, u32) << 23, f32)    # 2^(m - E)
    q = cast(call("rint", mag * scale), i32)
    code = (e + bias) * (1 << mant) + q - (1 << mant)
    code = retype(smin(code, const(top, i32)), u32)
    return select(is_nan, const(nan, u32), sign | code)


def _half_cvt(lw: Lowering, inst: Inst) -> None:
    """A 16-bit float from or to f32 (registers hold its bits): f16 through the IR's
    f16 functions, bf16 as the high half of an f32 (rounded to nearest even)."""
    parts = [p for p in inst.opcode[1:] if p in _TYPES or p in ("f16", "bf16")]
    if len(parts) != 2 or not {"f16", "bf16"} & set(parts):
        raise lw._refuse(inst, "this conversion of a 16-bit float is not lowered yet")
    dst, src = parts
    if {dst, src} <= {"f16", "bf16"}:
        # to an integral value (`cvt.rmi.f16.f16`: hfloor, hceil, hrint, htrunc: exact
        # in the type), or between the two types (rounded to nearest even)
        value = half_value(retype(lw.integer(inst.operands[1], u16), u32),
                                 src == "bf16")
        mode = next((m for m in ("rni", "rmi", "rpi", "rzi") if m in inst.opcode), None)
        if mode is not None:
            value = call({"rni": "rint", "rmi": "floor", "rpi": "ceil",
                          "rzi": "trunc"}[mode], value)
        elif dst == src or "rn" not in inst.opcode:
            raise lw._refuse(inst, "this conversion of a 16-bit float is not lowered "
                                   "yet")
        lw._dest(inst, retype(half_bits(value, dst == "bf16"), u16))
        return
    if dst not in ("f16", "bf16"):   # to f32, then (cvt) to the type asked for
        value = half_value(retype(lw.integer(inst.operands[1], u16), u32),
                                 src == "bf16")
        lw._dest(inst, value if dst == "f32" else cast(value, _TYPES[dst]))
        return
    if "rn" not in inst.opcode:
        raise lw._refuse(inst, "a 16-bit float conversion that does not round to "
                               "nearest is not lowered yet")
    # from f64 or an integer through f32: a value, never an address
    x = retype(lw.value(inst.operands[1], _TYPES[src]), _TYPES[src])
    x = x if src == "f32" else _odd_f32(x) if src == "f64" else cast(x, f32)
    lw._dest(inst, retype(half_bits(x, dst == "bf16"), u16))


def half_arith(lw: Lowering, inst: Inst) -> None:
    """Arithmetic of 16-bit floats (`.f16`, `.bf16`) and of pairs of them in one register
    (`.f16x2`, `.bf16x2`): each half through f32, rounded back to nearest even (a fused
    `fma` so rounds twice, which no address depends on)."""
    ty = inst.opcode[-1]
    if any(m in inst.opcode for m in ("sat", "relu", "rm", "rp", "rz")):
        raise lw._refuse(inst, "this form of 16-bit float arithmetic is not lowered yet")
    fn, arity = _HALF_OPS[inst.name]
    if inst.name == "setp" and ty.endswith("x2"):
        raise lw._refuse(inst, "a comparison of two pairs of halves is not lowered yet")
    pairs = ty.endswith("x2")
    word = u32 if pairs else u16
    brain = ty.startswith("bf")
    xs = [retype(lw.integer(t, word), u32) for t in inst.operands[1:1 + arity]]
    if inst.name == "setp":
        cmp = inst.opcode[1]
        a, b = (half_value(x, brain) for x in xs)
        held = _compared(cmp, a, b, True)
        if held is None:
            raise lw._refuse(inst, f"setp.{cmp} of 16-bit floats is not lowered yet")
        lw._dest(inst, held)
        return
    out = const(0, u32)
    for h in range(2 if pairs else 1):
        halves = [half_value((x >> (16 * h)) & 0xFFFF, brain) for x in xs]
        out = out | (half_bits(fn(*halves), brain) << (16 * h))
    lw._dest(inst, retype(out, word))


def half_value(bits: Expr, brain: bool) -> Expr:
    """The f32 value of a half's 16 bits (u32)."""
    return bitcast(bits << 16, f32) if brain else call("f16_from_bits", bits)


def half_bits(x: Expr, brain: bool) -> Expr:
    """An f32's nearest half (ties to even) as 16 bits in a u32."""
    if not brain:
        return retype(call("f16_bits", x), u32) & 0xFFFF
    word = bitcast(x, u32)
    return ((word + 0x7FFF + (word >> 16 & 1)) >> 16) & 0xFFFF

"""Integer, float and bit arithmetic, comparisons and selects (`add` ... `prmt`), each an IR
expression."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kernels_ir.dtypes import f32, f64, i16, i32, i64, u8, u16, u32, u64
from kernels_ir.expr import (Expr, Op, bitcast, call, const, select, smax, smin)

from . import ops_convert
from .decided import chosen, folded
from .parse import Inst
from .values import (Address, Choice, _compared, _either, _HALF_TYPES, _IMMEDIATE, _mul_hi,
                     retype, TensorMapRef, _TYPES, _WIDE, _wrapped)

if TYPE_CHECKING:
    from .lower import Lowering


def op_mov(lw: Lowering, inst: Inst) -> None:
    dtype = _TYPES.get(inst.opcode[-1], u32)
    dest, src = inst.operands[0], inst.operands[1]
    if dest.startswith("{") or src.startswith("{"):   # halves of a register
        parts = (dest if dest.startswith("{") else src).strip("{}").split(",")
        half = {2: u8, 4: u16, 8: u32}.get(dtype.size) if len(parts) == 2 else None
        if half is None:
            raise lw._refuse(inst, "this packing of registers is not lowered yet")
        bits = 8 * half.size
        if dest.startswith("{"):
            word = lw.integer(src, dtype)
            for n, r in enumerate(parts):
                if r != "_":
                    lw._dest(inst, retype(word >> (bits * n), half), r)
        else:
            lo, hi = (retype(lw.integer(r, half), dtype) for r in parts)
            lw._dest(inst, lo | hi << bits)
        return
    v = lw.value(inst.operands[1], dtype)
    lw._dest(inst, v if isinstance(v, (Address, Choice, TensorMapRef)) else
             retype(v, dtype))


def _binary(lw: Lowering, inst: Inst, fn) -> None:
    dtype = _TYPES.get(inst.opcode[-1])
    if dtype is None:
        raise lw._refuse(inst, "an operand type smemsim cannot read")
    a = lw.value(inst.operands[1], dtype)
    b = lw.value(inst.operands[2], dtype)
    if isinstance(a, Choice) or isinstance(b, Choice):
        if inst.name != "add" or (isinstance(a, (Address, Choice)) and
                                  isinstance(b, (Address, Choice))):
            raise lw._refuse(inst, "an address that is one of two arrays' (selp), "
                                   "in arithmetic other than an offset")
        ptr, delta = (a, b) if isinstance(a, Choice) else (b, a)
        lw._dest(inst, ptr.plus(delta))
        return
    if isinstance(a, Address) or isinstance(b, Address):
        if inst.name == "add" and not (isinstance(a, Address) and isinstance(b, Address)):
            ptr, delta = (a, b) if isinstance(a, Address) else (b, a)
            lw._dest(inst, ptr.plus(delta))
            return
        shared = [x for x in (a, b) if isinstance(x, Address) and x.space == "shared"]
        if inst.name == "sub" and len(shared) == 2:
            # the distance between two shared addresses: a number of bytes (of two
            # arrays, their distance in the window, as the GPU computes it)
            lw._dest(inst, retype(retype(a.offset, dtype) - retype(b.offset, dtype),
                                  dtype))
            return
        if shared and all(x.space == "shared" for x in (a, b) if isinstance(x, Address)):
            # a shared address is a number in the window (a swizzle XORs its bits)
            # (64 bits kept in a 64-bit instruction: a wgmma descriptor ORs its fields
            # above the address's bits; an access reads the low 32)
            num = lambda x: x.offset if isinstance(x, Address) else x
            lw._dest(inst, Address("shared", None, retype(fn(
                retype(num(a), dtype), retype(num(b), dtype)), u64 if dtype.size == 8
                else u32), shared[0].origin))
            return
        a, b = lw._numbers(inst, a, b)   # a pointer's bits as a number
    lw._dest(inst, retype(fn(retype(a, dtype), retype(b, dtype)), dtype))


def op_add(lw: Lowering, inst):
    _binary(lw, inst, lambda a, b: a + b)


def op_sub(lw: Lowering, inst):
    if isinstance(lw.value(inst.operands[1], u64), (Address, Choice)) and \
            not isinstance(lw.value(inst.operands[2], u64), (Address, Choice)):
        ptr = lw.value(inst.operands[1], u64)
        lw._dest(inst, ptr.plus(-retype(lw.value(inst.operands[2], i64), i64)))
        return
    _binary(lw, inst, lambda a, b: a - b)


def op_shl(lw: Lowering, inst):
    _shift(lw, inst, left=True)


def op_shr(lw: Lowering, inst):
    _shift(lw, inst, left=False)


def _shift(lw: Lowering, inst: Inst, left: bool) -> None:
    """`shl`/`shr`: the amount (a u32) clamped to the register's width N (PTX ISA): N
    or more shifts every bit out (`shr.s`: the sign fills), where C leaves it undefined."""
    dtype = _TYPES.get(inst.opcode[-1])
    a = lw.value(inst.operands[1], dtype or u32)
    b = lw.value(inst.operands[2], u32)
    fn = (lambda x, y: x << y) if left else (lambda x, y: x >> y)
    if not left and dtype is not None and dtype.signed and isinstance(a, Expr) and \
            isinstance(b, Expr) and b.op is Op.CONST and int(b.arg) == dtype.size * 8 - 1:
        # `shr.s32 m, x, 31`: the sign as a mask, all ones or 0 (nvcc's branch-free
        # `x < 0 ? -x : 0` is `(x >> 31) & -x`): a comparison, which the analysis
        # decides per block (hotspot's border offsets), where a shift it could not
        lw._dest(inst, chosen(retype(a, dtype) < 0, const(-1, dtype), const(0, dtype)))
        return
    if dtype is None or dtype.is_float or isinstance(a, (Address, Choice)) or \
            isinstance(b, (Address, Choice)) or \
            (isinstance(b, Expr) and b.op is Op.CONST and 0 <= int(b.arg) < dtype.size * 8):
        _binary(lw, inst, fn)
        return
    bits = dtype.size * 8
    a, b = retype(a, dtype), retype(b, u32)
    shifted = fn(a, retype(smin(b, const(bits - 1, u32)), dtype))
    if left or dtype.signed:
        out = shifted if not left else select(b >= bits, const(0, dtype), shifted)
    else:
        out = select(b >= bits, const(0, dtype), shifted)
    lw._dest(inst, retype(out, dtype))


def op_and(lw: Lowering, inst):
    if inst.opcode[-1] == "pred":
        a = lw._predicate(inst.operands[1], inst)
        b = lw._predicate(inst.operands[2], inst)
        lw._dest(inst, (a != 0) & (b != 0))
        return
    _binary(lw, inst, lambda a, b: a & b)


def op_or(lw: Lowering, inst):
    if inst.opcode[-1] == "pred":
        a = lw._predicate(inst.operands[1], inst)
        b = lw._predicate(inst.operands[2], inst)
        lw._dest(inst, (a != 0) | (b != 0))
        return
    _binary(lw, inst, lambda a, b: a | b)


def op_xor(lw: Lowering, inst):
    if inst.opcode[-1] == "pred":
        a = lw._predicate(inst.operands[1], inst)
        b = lw._predicate(inst.operands[2], inst)
        lw._dest(inst, (a != 0) ^ (b != 0))
        return
    _binary(lw, inst, lambda a, b: a ^ b)


def op_mul(lw: Lowering, inst: Inst) -> None:
    if "wide" in inst.opcode:   # 16 x 16 -> 32 bits, 32 x 32 -> 64 bits
        src = _TYPES[inst.opcode[-1]]
        wide = _WIDE[src.name]
        a = lw.integer(inst.operands[1], src)
        b = lw.integer(inst.operands[2], src)
        lw._dest(inst, retype(a, wide) * retype(b, wide))
        return
    if "hi" in inst.opcode:   # the high half of the whole product
        src = _TYPES.get(inst.opcode[-1])
        if src not in (i16, u16, i32, u32, i64, u64):
            raise lw._refuse(inst, "this form of mul.hi is not lowered yet")
        a = lw.integer(inst.operands[1], src)
        b = lw.integer(inst.operands[2], src)
        lw._dest(inst, _mul_hi(a, b, src))
        return
    _binary(lw, inst, lambda a, b: a * b)


def op_mad(lw: Lowering, inst: Inst) -> None:
    if "wide" in inst.opcode:   # 32 x 32 -> 64 bits, plus a 64-bit addend
        src = _TYPES[inst.opcode[-1]]
        wide = _WIDE[src.name]
        a, b = (retype(lw.integer(t, src), wide) for t in inst.operands[1:3])
        c = lw.value(inst.operands[3], wide)
        if isinstance(c, (Address, Choice)):
            lw._dest(inst, c.plus(a * b))
        else:
            lw._dest(inst, a * b + retype(c, wide))
        return
    if "lo" not in inst.opcode and not inst.opcode[-1].startswith("f"):
        raise lw._refuse(inst, "this form of mad is not lowered yet")
    dtype = _TYPES[inst.opcode[-1]]
    a, b, c = (lw.value(t, dtype) for t in inst.operands[1:4])
    if isinstance(c, Choice) and not isinstance(a, (Address, Choice)) and \
            not isinstance(b, (Address, Choice)):
        lw._dest(inst, c.plus(retype(a, dtype) * retype(b, dtype)))
        return
    if isinstance(c, Address) and not isinstance(a, Address) and \
            not isinstance(b, Address):
        if c.space == "shared":   # base + i * stride in the window
            lw._dest(inst, Address("shared", None, retype(
                retype(a, dtype) * retype(b, dtype) + retype(c.offset, dtype), u32), c.origin))
        else:
            lw._dest(inst, c.plus(retype(a, dtype) * retype(b, dtype)))
        return
    a, b, c = lw._numbers(inst, a, b, c)
    if dtype.is_float:
        # `fma.rn` and a float `mad` (fused on sm_20 and newer): one rounding, which a
        # range reduction (cuda_fp16's hsin: x - k pi/2 in three fmas) depends on
        lw._dest(inst, retype(call("fma", retype(a, dtype), retype(b, dtype),
                                   retype(c, dtype)), dtype))
        return
    lw._dest(inst, retype(retype(a, dtype) * retype(b, dtype) + retype(c, dtype), dtype))


def _choice_is_null(lw: Lowering, inst: Inst, cmp: str, a, b) -> Expr:
    """`setp.eq/ne %p, ptr, 0` of a Choice (`if (row_mask)`): null where its null side
    is taken, never where both sides are arrays."""
    ptr, other = (a, b) if isinstance(a, Choice) else (b, a)
    if cmp not in ("eq", "ne") or not (isinstance(other, Expr) and
                                       other.op is Op.CONST and other.arg == 0):
        raise lw._refuse(inst, "an address that is one of two arrays' (selp), "
                               "compared other than with null")
    null = const(0, i32)
    for n, side in enumerate(ptr.sides):
        if side.space == "null":
            null = null | (ptr.index == n)
    return null if cmp == "eq" else null == 0


def op_setp(lw: Lowering, inst: Inst) -> None:
    cmp = inst.opcode[1]
    dtype = _TYPES.get(inst.opcode[-1])
    # (.ftz flushes subnormal inputs to zero: a value's last bits, which no address
    # or count here depends on)
    parts = [p for p in inst.opcode if p != "ftz"]
    if dtype is None or len(parts) > 3 or "|" in inst.operands[0]:
        raise lw._refuse(inst, "this form of setp is not lowered yet")
    a = lw.value(inst.operands[1], dtype)
    b = lw.value(inst.operands[2], dtype)
    if isinstance(a, Choice) or isinstance(b, Choice):
        lw._dest(inst, _choice_is_null(lw, inst, cmp, a, b))
        return
    a, b = lw._numbers(inst, a, b)
    held = _compared(cmp, retype(a, dtype), retype(b, dtype), dtype.is_float)
    if held is None:
        raise lw._refuse(inst, f"setp.{cmp} is not lowered yet")
    # (a test every launch decides, numba's `i < 0` of a grid index: the constant)
    lw._dest(inst, held if dtype.is_float else folded(held))


def op_set(lw: Lowering, inst: Inst) -> None:
    """`set.CmpOp.dtype.stype d, a, b`: the comparison as a number of dtype, 1.0 or 0.0
    for a float, all ones or 0 for an integer; of halves (`.f16`, `.f16x2`, `.bf16`..)
    each half's comparison, 1.0 or 0.0 as a half, all ones or 0 in a 16-bit half of an
    integer (PTX ISA, set)."""
    parts = [p for p in inst.opcode[1:] if p != "ftz"]
    if len(parts) != 3 or len(inst.operands) != 3:
        raise lw._refuse(inst, "this form of set is not lowered yet (set.CmpOp.dtype."
                               "stype d, a, b is)")
    cmp, dname, sname = parts
    dtype = _TYPES.get(dname)
    if sname in _HALF_TYPES:
        pairs, brain = sname.endswith("x2"), sname.startswith("bf")
        xs = [retype(lw.integer(t, u32 if pairs else u16), u32)
              for t in inst.operands[1:3]]
        true = 0x3F80 if dname.startswith("bf") else 0x3C00 \
            if dname in _HALF_TYPES else 0xFFFF
        out = const(0, u32)
        for h in range(2 if pairs else 1):
            a, b = (ops_convert.half_value((x >> (16 * h)) & 0xFFFF, brain) for x in xs)
            held = _compared(cmp, a, b, True)
            if held is None:
                raise lw._refuse(inst, f"set.{cmp} of 16-bit floats is not lowered yet")
            out = out | select(held, const(true << (16 * h), u32), const(0, u32))
        if not pairs and dname not in _HALF_TYPES:   # (a 32-bit integer: all ones)
            out = select(out != 0, const(0xFFFFFFFF, u32), const(0, u32))
        word = u16 if dname in ("f16", "bf16") else u32
        lw._dest(inst, retype(out, word))
        return
    stype = _TYPES.get(sname)
    if dtype is None or stype is None:
        raise lw._refuse(inst, "this form of set is not lowered yet")
    a, b = lw._numbers(inst, lw.value(inst.operands[1], stype),
                       lw.value(inst.operands[2], stype))
    held = _compared(cmp, retype(a, stype), retype(b, stype), stype.is_float)
    if held is None:
        raise lw._refuse(inst, f"set.{cmp} is not lowered yet")
    yes = const(1.0, dtype) if dtype.is_float else _wrapped(-1, dtype)
    lw._dest(inst, select(held, yes, const(0, dtype)))


def op_selp(lw: Lowering, inst: Inst) -> None:
    dtype = _TYPES[inst.opcode[-1]]
    a, b = (lw.value(t, dtype) for t in inst.operands[1:3])
    p = lw._predicate(inst.operands[3], inst)
    if isinstance(a, (Address, Choice)) or isinstance(b, (Address, Choice)):
        null = lambda x: isinstance(x, Expr) and x.op is Op.CONST and x.arg == 0  # noqa
        if isinstance(a, Address) and null(b) or isinstance(b, Address) and null(a):
            # `p = mask ? mask + i : nullptr`: a choice whose other side is no array
            ptr = a if isinstance(a, Address) else b
            side = Address("null", None, const(0, i64))
            lw._dest(inst, _either(p, ptr, side) if ptr is a else _either(p, side, ptr))
            return
        if not (isinstance(a, Address) and isinstance(b, Address)):
            raise lw._refuse(inst, "a choice between an address and a number, or "
                                   "among more than two arrays")
        if a.base == b.base and a.space == b.space:
            lw._dest(inst, Address(a.space, a.base, select(p, a.offset, b.offset),
                                   a.origin if a.origin == b.origin else None))
        else:
            lw._dest(inst, _either(p, a, b))
        return
    lw._dest(inst, chosen(p, retype(a, dtype), retype(b, dtype)))


def _unary(lw: Lowering, inst: Inst, fn) -> None:
    ty = inst.opcode[-1]
    if ty == "pred":
        lw._dest(inst, fn(lw._predicate(inst.operands[1], inst), True))
        return
    dtype = _TYPES.get(ty)
    if dtype is None:
        raise lw._refuse(inst, "an operand type smemsim cannot read")
    lw._dest(inst, retype(fn(lw.integer(inst.operands[1], dtype) if not dtype.is_float
                             else retype(lw.value(inst.operands[1], dtype), dtype), False),
                          dtype))


def op_not(lw: Lowering, inst):
    _unary(lw, inst, lambda a, pred: (a == 0) if pred else ~a)


def op_neg(lw: Lowering, inst):
    _unary(lw, inst, lambda a, pred: -a)


def op_abs(lw: Lowering, inst):
    _unary(lw, inst, lambda a, pred: select(a < 0, -a, a))


def op_min(lw: Lowering, inst):
    _binary(lw, inst, smin)


def op_max(lw: Lowering, inst):
    _binary(lw, inst, smax)


def op_div(lw: Lowering, inst):
    ty = _TYPES.get(inst.opcode[-1])
    _binary(lw, inst, (lambda a, b: a / b) if ty is not None and ty.is_float
                else (lambda a, b: a // b))


def op_rem(lw: Lowering, inst):
    _binary(lw, inst, lambda a, b: a % b)


def op_fma(lw: Lowering, inst: Inst) -> None:
    op_mad(lw, inst)


def _math(lw: Lowering, inst: Inst, name: str, arity: int = 1) -> None:
    dtype = _TYPES.get(inst.opcode[-1])
    if dtype is None or not dtype.is_float:
        raise lw._refuse(inst, "this form is not lowered yet")
    args = [retype(lw.value(t, dtype), dtype) for t in inst.operands[1:1 + arity]]
    lw._dest(inst, retype(call(name, *args), dtype))


def op_copysign(lw: Lowering, inst: Inst) -> None:
    """`copysign.{f32,f64} d, a, b`: b's magnitude with a's sign (PTX ISA: the sign of
    the first operand copied into the second)."""
    dtype = _TYPES.get(inst.opcode[-1])
    if dtype not in (f32, f64):
        raise lw._refuse(inst, "this form of copysign is not lowered yet")
    word = u32 if dtype is f32 else u64
    sign = 1 << (dtype.size * 8 - 1)
    a, b = (bitcast(retype(lw.value(t, dtype), dtype), word) for t in inst.operands[1:3])
    lw._dest(inst, bitcast((b & (sign - 1)) | (a & sign), dtype))


def op_sqrt(lw: Lowering, inst):
    _math(lw, inst, "sqrt")


def op_rsqrt(lw: Lowering, inst):
    _math(lw, inst, "rsqrt")


def op_ex2(lw: Lowering, inst):
    _math(lw, inst, "exp2")


def op_lg2(lw: Lowering, inst):
    _math(lw, inst, "log2")


def op_sin(lw: Lowering, inst):
    _math(lw, inst, "sin")


def op_cos(lw: Lowering, inst):
    _math(lw, inst, "cos")


def op_tanh(lw: Lowering, inst):
    _math(lw, inst, "tanh")


def op_rcp(lw: Lowering, inst):
    dtype = _TYPES.get(inst.opcode[-1])
    if dtype is None or not dtype.is_float:
        raise lw._refuse(inst, "this form of rcp is not lowered yet")
    lw._dest(inst, const(1.0, dtype) / retype(lw.value(inst.operands[1], dtype), dtype))


def _bit_call(lw: Lowering, inst: Inst, name: str) -> None:
    dtype = _TYPES.get(inst.opcode[-1])
    if dtype is None or dtype.is_float:
        raise lw._refuse(inst, "this form is not lowered yet")
    x = lw.integer(inst.operands[1], dtype)
    lw._dest(inst, retype(call(name, x), u32 if name != "brev" else dtype))


def op_popc(lw: Lowering, inst):
    _bit_call(lw, inst, "popc")


def op_bfind(lw: Lowering, inst: Inst) -> None:
    """`bfind{.shiftamt}.{u,s}{32,64} d, a`: the position of a's most significant bit
    (of a non-sign bit for .s: that of ~a where a < 0), or with .shiftamt the left shift
    that brings it to the top; 0xffffffff where there is none (PTX ISA, bfind)."""
    dtype = _TYPES.get(inst.opcode[-1])
    if dtype not in (u32, i32, u64, i64):
        raise lw._refuse(inst, "this form of bfind is not lowered yet")
    unsigned = u32 if dtype.size == 4 else u64
    a = lw.integer(inst.operands[1], dtype)
    if dtype in (i32, i64):
        a = select(a < 0, ~a, a)
    a = retype(a, unsigned)
    zeros = retype(call("clz", a), u32)
    found = zeros if "shiftamt" in inst.opcode else \
        const(dtype.size * 8 - 1, u32) - zeros
    lw._dest(inst, select(a == 0, const(0xFFFFFFFF, u32), found))


def op_clz(lw: Lowering, inst):
    _bit_call(lw, inst, "clz")


def op_brev(lw: Lowering, inst):
    _bit_call(lw, inst, "brev")


def op_bfe(lw: Lowering, inst: Inst) -> None:
    """`bfe.{u,s}32 d, a, pos, len`: len bits of a from pos (sign-extended for .s32)."""
    dtype = _TYPES.get(inst.opcode[-1])
    if dtype not in (u32, i32):
        raise lw._refuse(inst, "this form of bfe is not lowered yet")
    held = lw.value(inst.operands[1], dtype)
    shared = held if isinstance(held, Address) and held.space == "shared" else None
    # (a shared address is a number in the window: Triton takes a wgmma descriptor's
    # start field from it with bfe)
    a = retype(shared.offset if shared else lw.integer(inst.operands[1], dtype), u32)
    pos = smin(retype(lw.integer(inst.operands[2], u32), u32) & 0xFF, const(32, u32))
    length = smin(retype(lw.integer(inst.operands[3], u32), u32) & 0xFF, const(32, u32))
    mask = retype((const(1, u64) << retype(length, u64)) - 1, u32)
    field = retype(retype(a, u64) >> retype(pos, u64), u32) & mask
    if dtype is i32:   # the field's top bit fills the rest
        top = select(length == 0, const(0, u32),
                     (field >> retype(select(length == 0, const(0, u32), length - 1), u32))
                     & 1)
        field = field | select(top != 0, ~mask, const(0, u32))
    lw._dest(inst, retype(field, dtype) if shared is None else
             Address("shared", None, retype(field, u32), shared.origin))


def op_bfi(lw: Lowering, inst: Inst) -> None:
    """`bfi.b32 d, a, b, pos, len`: b with its bits pos..pos+len-1 the low bits of a
    (pos and len read as bytes; nothing changes from bit 32 on)."""
    bits = {"b32": 32, "b64": 64}.get(inst.opcode[-1])
    if bits is None:
        raise lw._refuse(inst, "this form of bfi is not lowered yet")
    dtype = u32 if bits == 32 else u64
    at, size = (_IMMEDIATE.fullmatch(t) and int(t, 0) & 0xFF for t in inst.operands[3:5])
    if at is not None and size is not None and 0 < at < bits and at + size >= bits:
        # the field reaches the word's top (`bfi.b32 d, ctaid.y, tid & 31, 5, 27`: nvcc's
        # `blockIdx.y * 32 + (threadIdx.x % 32)`): b's low bits plus a shifted, which the
        # analyses read as affine in a
        a, b = (lw.integer(t, dtype) for t in inst.operands[1:3])
        lw._dest(inst, (b & const((1 << at) - 1, dtype)) + (a << const(at, dtype)))
        return
    a, b = (retype(lw.integer(t, dtype), u64) for t in inst.operands[1:3])
    pos = retype(smin(retype(lw.integer(inst.operands[3], u32), u32) & 0xFF,
                      const(bits, u32)), u64)
    length = retype(smin(retype(lw.integer(inst.operands[4], u32), u32) & 0xFF,
                         const(bits, u32)), u64)
    # len ones from bit pos, within the word (no shift by the word's width or more)
    ones = select(length >= 64, const((1 << 64) - 1, u64),
                  (const(1, u64) << smin(length, const(63, u64))) - 1)
    mask = select(pos >= bits, const(0, u64), ones << smin(pos, const(63, u64)))
    if bits == 32:
        mask = mask & 0xFFFFFFFF
    full = (1 << bits) - 1
    lw._dest(inst, retype((b & ~mask & full) | ((a << smin(pos, const(63, u64))) & mask),
                          dtype))


def op_prmt(lw: Lowering, inst: Inst) -> None:
    """`prmt.b32 d, a, b, c`: each byte of d one of the eight bytes of b:a (a the low
    four), as c's nibble for it says (its bit 3: the chosen byte's sign, repeated)."""
    if inst.opcode[1:] != ("b32",):
        raise lw._refuse(inst, "this mode of prmt is not lowered yet")
    a, b = (retype(lw.integer(t, u32), u64) for t in inst.operands[1:3])
    c = retype(lw.integer(inst.operands[3], u32), u32)
    both = a | (b << 32)
    out = const(0, u64)
    for i in range(4):
        nibble = (c >> (4 * i)) & 0xF
        if c.op is Op.CONST:   # the usual case: a constant selector, bytes known
            n = (int(c.arg) >> (4 * i)) & 0xF
            byte = (both >> (8 * (n & 7))) & 0xFF
            if n & 8:
                byte = select((byte & 0x80) != 0, const(0xFF, u64), const(0, u64))
        else:
            byte = (both >> retype((nibble & 7) * 8, u64)) & 0xFF
            byte = select((nibble & 8) != 0,
                          select((byte & 0x80) != 0, const(0xFF, u64), const(0, u64)),
                          byte)
        out = out | (byte << (8 * i))
    lw._dest(inst, retype(out, u32))


def op_dp4a(lw: Lowering, inst: Inst) -> None:
    """`dp4a.atype.btype d, a, b, c`: c plus the products of a's and b's four bytes
    (each signed where its type is .s32), modulo 2^32."""
    types = inst.opcode[1:]
    if len(types) != 2 or any(t not in ("u32", "s32") for t in types):
        raise lw._refuse(inst, "this form of dp4a is not lowered yet")
    a, b = (retype(lw.integer(t, u32), i64) for t in inst.operands[1:3])
    total = retype(lw.integer(inst.operands[3], u32), i64)
    for i in range(4):
        x, y = ((v >> (8 * i)) & 0xFF for v in (a, b))
        if types[0] == "s32":
            x = x - select(x >= 128, const(256, i64), const(0, i64))
        if types[1] == "s32":
            y = y - select(y >= 128, const(256, i64), const(0, i64))
        total = total + x * y
    lw._dest(inst, retype(total & 0xFFFFFFFF, u32))


def op_bmsk(lw: Lowering, inst: Inst) -> None:
    """`bmsk.{clamp,wrap}.b32 d, a, b`: b one bits from bit a."""
    wrap = "wrap" in inst.opcode
    a = retype(lw.integer(inst.operands[1], u32), u32)
    b = retype(lw.integer(inst.operands[2], u32), u32)
    a, b = (a & 31, b & 31) if wrap else (smin(a, const(32, u32)), smin(b, const(32, u32)))
    mask = ((const(1, u64) << retype(b, u64)) - 1) << retype(a, u64)
    lw._dest(inst, retype(mask & 0xFFFFFFFF, u32))

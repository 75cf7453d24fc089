"""PTX's `wmma` instructions as sm_90's SASS of them moves memory and multiplies.

Measured with nvdisasm on nvcc 13's build for sm_90 (tests/cuda/wmma_kernels.cu has every
form below):
- An m16n16k16 operand of halves named `.shared` is one LDSM.x4 (`.MT88`, transposed, for
  a column-major A or a row-major B), each lane giving one 16-byte row's address.
- Of halves or bf16 elsewhere (global, or a generic address: nvcc's bf16 loads have no
  state space), four 4-byte loads (an 8x8 quarter of the fragment each, lane 4g + t its
  row g, columns 2t, 2t + 1), then a register transpose (MOVM.16.MT88) of each word for a
  column-major A or a row-major B.
- 8-bit integer operands: a row-major A or column-major B named `.shared` is one LDSM.x2
  (rows of 16 bytes); other layouts and spaces byte by byte (four 1-byte loads a word).
- tf32 (m16n16k8): four 4-byte loads; double (m8n8k4): one 8-byte load.
- An accumulator (`load.c`, `store.d`): a float or int one row-major as four 8-byte rows
  of two elements, column-major as eight 4-byte elements; a half one as four 4-byte pairs
  (column-major through MOVM); a double one row-major as one 16-byte access, column-major
  as two 8-byte ones.
- `wmma.mma` is two m16n8 mma.sync (n 0-7 and 8-15: HMMA.16816, IMMA.16816, four
  HMMA.1684 of tf32), or one DMMA.8x8x4.

Fragment registers hold what those instructions leave in them, the layout of mma.sync's
fragments (lane 4g + t: rows g and g + 8, columns 2t, 2t + 1 (+ 8)), whatever the memory
layout was: so `wmma.mma` reads every layout alike, and element-wise code (`c.x[i] *=
alpha`) sees the element the GPU holds there. An A or B of halves is eight registers in
PTX, of which sm_80 and newer use four: the second four are copies of the first.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernels_ir import KernelError
from kernels_ir.dtypes import f32, f64, i32, i64, u8, u16, u32
from kernels_ir.expr import Expr, cast

from .parse import Inst

if TYPE_CHECKING:
    from .lower import Lowering


# (use, element type, shape) -> registers a lane of the PTX fragment
_REGISTERS = {("ab", "f16", "m16n16k16"): 8, ("ab", "bf16", "m16n16k16"): 4,
              ("ab", "s8", "m16n16k16"): 2, ("ab", "u8", "m16n16k16"): 2,
              ("ab", "tf32", "m16n16k8"): 4, ("ab", "f64", "m8n8k4"): 1,
              ("c", "f32", "m16n16k16"): 8, ("c", "f16", "m16n16k16"): 4,
              ("c", "s32", "m16n16k16"): 8, ("c", "f32", "m16n16k8"): 8,
              ("c", "f64", "m8n8k4"): 2}
_SIZES = {"f16": 2, "bf16": 2, "s8": 1, "u8": 1, "tf32": 4, "f32": 4, "s32": 4, "f64": 8}


@dataclass(frozen=True)
class WmmaForm:
    """What one wmma load or store names: its matrix (a, b, c or d), memory layout, shape,
    element type and the space its opcode names (None: a generic address)."""

    matrix: str
    layout: str
    shape: str
    element: str
    space: str | None

    @property
    def use(self) -> str:
        return "ab" if self.matrix in ("a", "b") else "c"

    @property
    def element_size(self) -> int:
        """Bytes of one element in memory."""
        return _SIZES[self.element]

    @property
    def transposed(self) -> bool:
        """Whether the memory's rows run along the fragment's columns (a column-major A,
        a row-major B): ldmatrix `.trans`, or MOVM after word loads."""
        return (self.matrix == "a") != (self.layout == "row")

    def shared_accesses(self) -> list[tuple[str, int]]:
        """(kind, bytes a lane) of each shared-memory instruction SASS makes of it, where
        the opcode names `.shared` (the alignment of smemsim.frontends.ptx.as_built)."""
        if self.space != "shared":
            return []
        kind = "load" if self.matrix in ("a", "b", "c") else "store"
        if self.use == "ab":
            if self.element in ("f16", "bf16"):
                return [("ldmatrix", 16)]
            if self.element in ("s8", "u8"):
                return [("ldmatrix", 16)] if not self.transposed else [("load", 1)] * 8
            return [("load", _SIZES[self.element])] * (4 if self.element == "tf32" else 1)
        if self.element == "f16":
            return [(kind, 4)] * 4
        if self.element == "f64":
            return [(kind, 16)] if self.layout == "row" else [(kind, 8)] * 2
        return [(kind, 8)] * 4 if self.layout == "row" else [(kind, 4)] * 8


def form_of(inst: Inst) -> WmmaForm | None:
    """The form of a `wmma.load`/`wmma.store` instruction (None for `wmma.mma`)."""
    parts = inst.opcode[1:]
    if not parts or parts[0] not in ("load", "store"):
        return None
    shape = next((p for p in parts if p.startswith("m") and "n" in p and "k" in p), "")
    space = next((p for p in parts if p in ("shared", "global", "local", "param")), None)
    return WmmaForm(parts[1], "row" if "row" in parts else "col", shape, parts[-1], space)


def op_wmma(lw: Lowering, inst: Inst) -> None:
    form = form_of(inst)
    if form is None and inst.opcode[1:2] == ("mma",):
        _wmma_mma(lw, inst)
        return
    if form is None or (form.matrix, inst.opcode[1]) not in (
            ("a", "load"), ("b", "load"), ("c", "load"), ("d", "store")):
        raise lw._refuse(inst, "this wmma instruction is not lowered yet")
    key = (form.use, form.element, form.shape)
    if key not in _REGISTERS:
        raise lw._refuse(inst, f"wmma {form.shape} of {form.element} "
                               f"({'operand' if form.use == 'ab' else 'accumulator'}) "
                               "is not lowered yet (m16n16k16 of f16, bf16, s8, u8 "
                               "into f32, f16, s32; m16n16k8 of tf32; m8n8k4 of f64 "
                               "are)")
    regs = inst.operands[0 if form.matrix != "d" else 1].strip("{}").split(",")
    if len(regs) != _REGISTERS[key]:
        raise lw._refuse(inst, f"{len(regs)} registers where this fragment has "
                               f"{_REGISTERS[key]}")
    if len(inst.operands) < 3:
        raise lw._refuse(inst, "a wmma load or store without a stride is not lowered "
                               "yet")
    addr = lw.address(inst.operands[1 if form.matrix != "d" else 0], inst)
    ldm = lw.integer(inst.operands[2], u32)
    if form.matrix == "d":
        if addr.space in ("global", "param"):
            lw.stored.add(addr.base)
        _wmma_accumulator(lw, inst, form, addr, ldm, regs, load=False)
        return
    if form.use == "c":
        words = _wmma_accumulator(lw, inst, form, addr, ldm, regs, load=True)
    else:
        words = _wmma_operand(lw, inst, form, addr, ldm)
    for j, r in enumerate(regs):
        lw._dest(inst, words[j % len(words)], r)


def op_smemsim_wmma_from(lw: Lowering, inst: Inst) -> None:
    """`smemsim_wmma_from.FROM.TO.M {dest}, {source}` (as_built): an operand of halves
    or bf16 made from the words of an earlier load of the same tile in layout FROM (no
    memory read): word w of a layout holds the tile's 8x8 quarter `_quarter(w)`, moved
    by MOVM where the layout runs across the fragment (a column-major A, a row-major
    B); MOVM undoes itself."""
    _, before, after, matrix = inst.opcode
    dest = inst.operands[0].strip("{}").split(",")
    source = [lw.value(r.strip(), u32)
              for r in inst.operands[1].strip("{}").split(",")[:4]]
    moved = WmmaForm(matrix, before, "", "", None).transposed != \
        WmmaForm(matrix, after, "", "", None).transposed
    _, g, t = _wmma_lane(lw) if moved else (None, None, None)
    words = []
    for w in range(4):
        word = source[[_quarter(before, v) for v in range(4)].index(_quarter(after, w))]
        words.append(_wmma_transpose(lw, word, g, t) if moved else word)
    for j, r in enumerate(dest):
        lw._dest(inst, words[j % len(words)], r.strip())


def _wmma_lane(lw: Lowering) -> tuple[Expr, Expr, Expr]:
    """(lane, g, t): the thread's lane, its row group (lane / 4) and column pair."""
    # (%laneid as the walk reads it; one name in the addresses reported)
    lane = lw.k.let("wmma_lane", lw.value("%laneid", u32))
    return lane, lane >> 2, lane & 3


def _wmma_at(lw: Lowering, inst: Inst, addr, element_offset, dtype, size: int):
    """(view, index) of the element `element_offset` elements of `size` bytes past
    `addr`, read as `dtype`."""
    return lw._element(addr.plus(cast(element_offset * size, i64)), dtype, inst)


def _wmma_load(lw: Lowering, inst: Inst, addr, offset, dtype, size: int, width: int = 1):
    view, index = _wmma_at(lw, inst, addr, offset, dtype, size)
    return lw.k.load(view, index, width=width)


def _wmma_operand(lw: Lowering, inst: Inst, form: WmmaForm, addr, ldm) -> list:
    lane, g, t = _wmma_lane(lw)
    e = form.element
    if e in ("f16", "bf16") and form.space == "shared":
        i, j = lane & 7, lane >> 3
        offset = (lane & 15) * ldm + (lane >> 4) * 8 if form.layout == "row" else \
            (i + (j >> 1) * 8) * ldm + (j & 1) * 8
        view, index = _wmma_at(lw, inst, addr, offset, u16, 2)
        frag = lw.k.ldmatrix(view, index, matrices=4, trans=form.transposed)
        return [_pair(frag[2 * k], frag[2 * k + 1]) for k in range(4)]
    if e in ("f16", "bf16"):
        words = []
        for w in range(4):
            first, second = _quarter(form.layout, w)
            v = _wmma_load(lw, inst, addr, (g + 8 * first) * ldm + 8 * second + 2 * t,
                               u16, 2, width=2)
            word = _pair(v[0], v[1])
            words.append(_wmma_transpose(lw, word, g, t) if form.transposed else word)
        return words
    if e in ("s8", "u8"):
        if form.space == "shared" and not form.transposed:
            # LDSM.16.M88.2: lane l gives row l % 16 (A's m, B's n) of 16 bytes of k
            view, index = _wmma_at(lw, inst, addr, (lane & 15) * ldm, u16, 1)
            frag = lw.k.ldmatrix(view, index, matrices=2, trans=False)
            return [_pair(frag[2 * k], frag[2 * k + 1]) for k in range(2)]
        words = []
        for r in range(2):   # row (m or n) g + 8r, bytes 4t .. 4t + 3 of k
            at = [((g + 8 * r) * ldm + 4 * t + i) if not form.transposed else
                  ((4 * t + i) * ldm + g + 8 * r) for i in range(4)]
            parts = [cast(_wmma_load(lw, inst, addr, a, u8, 1), u32) for a in at]
            words.append(lw.k.let("wmma_bytes", parts[0] | parts[1] << 8 |
                                  parts[2] << 16 | parts[3] << 24))
        return words
    if e == "tf32":
        # word r: A(g + 8 (r % 2), t + 4 (r // 2)); B(k = t + 4 (r % 2), n = g + 8 (r // 2))
        words = []
        for r in range(4):
            row, col = (g + 8 * (r % 2), t + 4 * (r // 2)) if form.matrix == "a" else \
                (t + 4 * (r % 2), g + 8 * (r // 2))
            offset = row * ldm + col if form.layout == "row" else col * ldm + row
            words.append(_wmma_load(lw, inst, addr, offset, f32, 4))
        return words
    # f64, m8n8k4: A(g, t), B(t, g)
    row, col = (g, t) if form.matrix == "a" else (t, g)
    offset = row * ldm + col if form.layout == "row" else col * ldm + row
    return [_wmma_load(lw, inst, addr, offset, f64, 8)]


def _wmma_transpose(lw: Lowering, word: Expr, g, t) -> Expr:
    """MOVM.16.MT88 of one 8x8 quarter of halves: lane 4g + t gets elements (2t, g) and
    (2t + 1, g), held by lanes 8t + g/2 and 8t + 4 + g/2 as their half g % 2."""
    shift = (g & 1) * 16
    low = lw.k.shfl(word, t * 8 + (g >> 1))
    high = lw.k.shfl(word, t * 8 + 4 + (g >> 1))
    return lw.k.let("wmma_movm", ((cast(low, u32) >> shift) & 0xFFFF) |
                    ((cast(high, u32) >> shift) & 0xFFFF) << 16)


def _wmma_accumulator(lw: Lowering, inst: Inst, form: WmmaForm, addr, ldm, regs: list,
                      load: bool) -> list:
    """A `load.c` (the words loaded, in register order) or `store.d` (of `regs`)."""
    _, g, t = _wmma_lane(lw)
    e = form.element
    dtype = {"f32": f32, "s32": i32, "f64": f64, "f16": u32}[e]
    words = [] if load else [lw.integer(r, dtype) if not dtype.is_float else
                             _float(lw.value(r, dtype), dtype) for r in regs]
    out: list = [None] * len(regs)
    if e == "f64":   # row g, columns 2t and 2t + 1
        if form.layout == "row":
            view, index = _wmma_at(lw, inst, addr, g * ldm + 2 * t, f64, 8)
            if load:
                v = lw.k.load(view, index, width=2)
                return [v[0], v[1]]
            lw.k.store(view, index, words, width=2)
            return []
        for j in range(2):
            view, index = _wmma_at(lw, inst, addr, (2 * t + j) * ldm + g, f64, 8)
            if load:
                out[j] = lw.k.load(view, index)
            else:
                lw.k.store(view, index, words[j])
        return out
    if e == "f16":   # word 2p + q: row g + 8q, columns 8p + 2t, + 1
        for w in range(4):
            p, q = w >> 1, w & 1
            at = (g + 8 * p) * ldm + 8 * q + 2 * t if form.layout == "col" else \
                (g + 8 * q) * ldm + 8 * p + 2 * t
            view, index = _wmma_at(lw, inst, addr, at, u32, 2)
            if load:
                word = lw.k.load(view, index)
                out[w] = _wmma_transpose(lw, word, g, t) if form.layout == "col" \
                    else word
            else:
                word = _wmma_transpose(lw, words[w], g, t) if form.layout == "col" \
                    else words[w]
                lw.k.store(view, index, word)
        return out
    # f32 or s32: element 4p + 2q + h is row g + 8q, column 8p + 2t + h
    if form.layout == "row":
        for w in range(4):
            p, q = w >> 1, w & 1
            view, index = _wmma_at(lw, inst, addr, (g + 8 * q) * ldm + 8 * p + 2 * t,
                                       dtype, 4)
            if load:
                v = lw.k.load(view, index, width=2)
                out[2 * w], out[2 * w + 1] = v[0], v[1]
            else:
                lw.k.store(view, index, [words[2 * w], words[2 * w + 1]], width=2)
        return out
    for n in range(8):
        p, q, h = n >> 2, (n >> 1) & 1, n & 1
        view, index = _wmma_at(lw, inst, addr, (8 * p + 2 * t + h) * ldm + g + 8 * q,
                                   dtype, 4)
        if load:
            out[n] = lw.k.load(view, index)
        else:
            lw.k.store(view, index, words[n])
    return out


def _wmma_mma(lw: Lowering, inst: Inst) -> None:
    """`wmma.mma.sync.aligned.alayout.blayout.shape.types d, a, b, c`: whatever the
    layouts, the registers hold mma.sync's fragments (see the module's docstring)."""
    parts = inst.opcode[1:]
    shape = next((p for p in parts if p.startswith("m") and "n" in p and "k" in p), "")
    types = [p for p in parts[parts.index(shape) + 1:] if p in _SIZES] if shape else []
    if len(types) == 2:   # `.dtype.ctype` of half operands
        dtype, atype, ctype = types[0], "f16", types[1]
    elif len(types) == 4:
        dtype, atype, ctype = types[0], types[1], types[3]
    else:
        raise lw._refuse(inst, "this wmma.mma is not lowered yet")
    if dtype != ctype:
        raise lw._refuse(inst, "a wmma.mma whose D and C types differ is not lowered "
                               "yet")
    if ("ab", atype, shape) not in _REGISTERS or ("c", ctype, shape) not in _REGISTERS:
        raise lw._refuse(inst, f"wmma.mma {shape} of {atype} into {ctype} is not "
                               "lowered yet")
    regs = [o.strip("{}").split(",") for o in inst.operands]
    used = 4 if atype in ("f16", "bf16", "tf32") else 2 if atype in ("s8", "u8") else 1
    a = [lw.integer(r, u32) for r in regs[1][:used]] if atype != "f64" else \
        [_float(lw.value(regs[1][0], f64), f64)]
    b = [lw.integer(r, u32) for r in regs[2][:used]] if atype != "f64" else \
        [_float(lw.value(regs[2][0], f64), f64)]
    cty = {"f32": f32, "f16": u32, "s32": i32, "f64": f64}[ctype]
    c = [lw.integer(r, cty) if not cty.is_float else _float(lw.value(r, cty), cty)
         for r in regs[3]]
    try:
        if atype == "f64":   # m8n8k4: one mma.sync for the whole tile
            product = lw.k.mma_sync(a, b, c, shape="m8n8k4", atype="f64", ctype="f64")
            results = [product[0], product[1]]
        else:
            half, per = len(c) // 2, len(b) // 2   # C's words and B's of each n half
            k = shape.split("k")[1]
            results = []
            for h in range(2):
                product = lw.k.mma_sync(a, b[per * h:per * (h + 1)],
                                           c[half * h:half * (h + 1)], shape=f"m16n8k{k}",
                                           atype=atype, ctype=ctype)
                results += [product[n] for n in range(half)]
    except KernelError as err:
        raise lw._refuse(inst, err.message) from None
    for j, r in enumerate(regs[0]):
        lw._dest(inst, results[j], r)


def _quarter(layout: str, w: int) -> tuple[int, int]:
    """The 8x8 quarter of the tile in memory that word `w` of an operand of halves holds:
    (first, second), its rows (A's m or B's k along a row-major tile's rows) 8 * first on,
    its columns 8 * second on."""
    return (w & 1, w >> 1) if layout == "row" else (w >> 1, w & 1)


def _pair(low, high) -> Expr:
    """Two 16-bit elements as one 32-bit register, the first in its low half."""
    return cast(low, u32) | cast(high, u32) << 16


def _float(value, dtype) -> Expr:
    from .values import retype
    return retype(value, dtype)

"""Loads, stores and atomics: `ld`, `st`, `atom`, `red`, `tex`, `cvta` and a thread's stack
(`.local`), each at its byte offset and width."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kernels_ir.dtypes import f32, i32, i64, u8, u16, u32, u64
from kernels_ir.expr import bitcast, call, cast, const, select, smax, smin

from . import declarations, ops_convert
from .operands import _ATOMIC_KINDS, _lanes, _TEXTURE_OPERAND
from .parse import Inst
from .values import Address, _c_name, Choice, retype, TensorMapRef, _TYPES

if TYPE_CHECKING:
    from .lower import Lowering


def _call_memory(lw: Lowering, inst: Inst, operand: str) -> bool:
    """Whether an access is one smemsim leaves out, as nothing it counts reads it: a
    call sequence's parameters (the one call lowered is printf's, which prints), and a
    stack array (`.local`) that no instruction of the entry reads (printf's arguments).
    A stack array the entry reads is lowered (each a per-thread array of bytes)."""
    base = re.split(r"[+-]", operand.strip("[]"))[0]
    if "param" in inst.opcode and base in lw.entry.call_params:
        return True
    if "local" not in inst.opcode:
        return False
    return not declarations.reads_stack(lw)   # (a stack the kernel reads: lowered, _local_array)


def op_tex(lw: Lowering, inst: Inst) -> None:
    """`tex.{1d,2d}.v4.T.C d, [t, {x(, y)}]`: a fetch of a texture object parameter, read
    as the CUDA frontend reads one (smemsim/frontends/cuda/lower_textures.py): texel i of a 1-D
    texture, 0 outside it; of a 2-D one the texel at (floor x, floor y), each clamped to
    the extent: point sampling of unnormalized coordinates, clamp addressing (the
    zero-initialized cudaTextureDesc). The results past the texel's lanes are 0."""
    m = _TEXTURE_OPERAND.fullmatch(inst.operands[1]) if len(inst.operands) > 1 else None
    fetched = lw.textures.get(lw.texture_handles.get(m.group(1))) if m else None
    if fetched is None or len(fetched) < 7:
        raise lw._refuse(inst, "a texture fetch that is not of a texture object "
                               "parameter, in one or two dimensions, is not lowered yet")
    rank, dtype, lanes, _, array, width, height = fetched
    ctype = _TYPES.get(inst.opcode[4])
    coords = [lw.value(c, ctype) for c in m.group(2).split(",")]
    if len(coords) != rank or ctype is None:
        raise lw._refuse(inst, f"a {rank}-D fetch with {len(coords)} coordinates")
    results = inst.operands[0].strip("{}").split(",")
    if rank == 1:
        i = cast(retype(coords[0], ctype), i32)
        inside = (i >= 0) & (i < width)
        got = array.load((select(inside, i, const(0, i32)) * lanes,), width=lanes)
        got = [select(inside, g, const(0, dtype))
               for g in ([got[n] for n in range(lanes)] if lanes > 1 else [got])]
    else:
        x, y = (smin(smax(cast(call("floor", cast(retype(c, ctype), f32)), i32),
                          const(0, i32)), extent - 1)
                for c, extent in zip(coords, (width, height)))
        got = array.load(((y * width + x) * lanes,), width=lanes)
        got = [got[n] for n in range(lanes)] if lanes > 1 else [got]
    for n, reg in enumerate(results):
        if reg != "_":
            lw._dest(inst, got[n] if n < lanes else const(0, dtype), reg)


def op_ld(lw: Lowering, inst: Inst) -> None:
    if _call_memory(lw, inst, inst.operands[1]):
        # printf's return value, which the analysis does not model: 0
        lw._dest(inst, const(0, _TYPES.get(inst.opcode[-1], u32)))
        return
    space, dtype, lanes = _access_type(lw, inst)
    if space == "param":
        for target, key in declarations.param_fields(lw, inst):
            if key in lw.map_pointers:
                lw._dest(inst, TensorMapRef(lw.tensor_maps[key]), target)
            elif key in lw.globals and lw.globals[key].name in lw.launch.nulls:
                # a null pointer: `p != NULL` is false, an access through it a fault
                lw._dest(inst, Choice(const(0, i32), (Address("null", None,
                                                              const(0, i64)),)), target)
            elif key in lw.globals:
                lw._dest(inst, Address("param", key, const(0, i64)), target)
            elif key in lw.params:
                lw._dest(inst, lw.params[key], target)
            elif key in lw.textures:   # a texture object: only fetches read it
                lw._dest(inst, const(0, u64), target)
            else:
                raise lw._refuse(inst, f"parameter {inst.operands[1]} is not lowered "
                                       "yet")
        return
    addr = lw.address(inst.operands[1], inst)
    if isinstance(addr, Choice):
        _load_either(lw, inst, addr, dtype, lanes)
        return
    if addr.space == "local":
        targets = inst.operands[0].strip("{}").split(",")
        for t, v in zip(targets, _local_load(lw, inst, addr, dtype, lanes)):
            if t != "_":
                lw._dest(inst, v, t)
        return
    view, index = lw._element(addr, dtype, inst)
    value = lw.k.load(view, index, width=lanes)
    targets = inst.operands[0].strip("{}").split(",")
    if lanes == 1:
        lw._dest(inst, value, targets[0])
    else:
        for n, t in enumerate(targets):
            if t != "_":
                lw._dest(inst, value[n], t)


def _load_either(lw: Lowering, inst: Inst, addr: Choice, dtype, lanes: int) -> None:
    """A load through a Choice: each side's load under its condition, into a local the
    destination registers then read."""
    targets = [t for t in inst.operands[0].strip("{}").split(",")]
    held = [lw.k.let(lw._fresh_name(_c_name(t)), const(0, dtype))
            if t != "_" else None for t in targets]
    for n, side in enumerate(addr.sides):
        with lw.k.if_(addr.index == n):
            if side.space == "null":
                lw.k.assert_(const(0, i32), "a load through a null pointer")
                continue
            if side.space == "local":
                got = _local_load(lw, inst, side, dtype, lanes)
                for h, v in zip(held, got):
                    if h is not None:
                        lw.k.assign(h, v)
                continue
            view, index = lw._element(side, dtype, inst)
            value = lw.k.load(view, index, width=lanes)
            for n, h in enumerate(held):
                if h is not None:
                    lw.k.assign(h, value if lanes == 1 else value[n])
    for t, h in zip(targets, held):
        if h is not None:
            lw._dest(inst, h, t)


def op_st(lw: Lowering, inst: Inst) -> None:
    if _call_memory(lw, inst, inst.operands[0]):
        if "param" in inst.opcode and len(inst.operands) == 2 and \
                inst.operands[1] in lw.regs:
            # a call's argument: an assert's message, read at the call (ops_sync.op_call)
            lw.call_args[inst.operands[0].strip("[]").split("+")[0]] = \
                lw.regs[inst.operands[1]]
        return
    space, dtype, lanes = _access_type(lw, inst)
    addr = lw.address(inst.operands[0], inst)
    if isinstance(addr, Choice):
        for n, side in enumerate(addr.sides):
            with lw.k.if_(addr.index == n):
                if side.space == "null":
                    lw.k.assert_(const(0, i32), "a store through a null pointer")
                else:
                    _store_at(lw, inst, side, dtype, lanes)
        return
    _store_at(lw, inst, addr, dtype, lanes)


def _store_at(lw: Lowering, inst: Inst, addr: Address, dtype, lanes: int) -> None:
    values = [lw.integer(t, dtype) if not dtype.is_float else
              retype(lw.value(t, dtype), dtype)
              for t in inst.operands[1].strip("{}").split(",")]
    if addr.space == "local":
        _local_store(lw, inst, addr, dtype, values)
        return
    view, index = lw._element(addr, dtype, inst)
    if addr.space in ("global", "param"):   # (a parameter's pointer used as it is)
        lw.stored.add(addr.base)
    lw.k.store(view, index, values if lanes > 1 else values[0], width=lanes)


def _access_type(lw: Lowering, inst: Inst):
    parts = inst.opcode[1:]
    space = next((p for p in parts if p in ("shared", "global", "param", "local",
                                            "const")), "generic")
    if space == "generic":
        space = "global"   # checked again against the address's own space (_element)
    lanes = _lanes(parts)
    dtype = _TYPES.get(parts[-1])
    if dtype is None:
        raise lw._refuse(inst, f"element type .{parts[-1]} is not lowered yet")
    if space == "const":
        space = "global"    # a __constant__ array: a global array the host fills
    if space not in ("shared", "global", "param", "local"):
        raise lw._refuse(inst, f"{space} memory accesses are not lowered yet")
    return space, dtype, lanes


def _local_array(lw: Lowering, addr: Address, inst: Inst):
    """The per-thread byte array of a `.local` array (the stack depot)."""
    array = lw.stacks.get(addr.base)
    if array is None:
        raise lw._refuse(inst, f"a local array of unknown size ({addr.base})")
    return array


def _local_load(lw: Lowering, inst: Inst, addr: Address, dtype, lanes: int) -> list:
    """A load from the stack: each element assembled from its bytes (little-endian),
    held at once (a later store must not change what was read)."""
    array = _local_array(lw, addr, inst)
    bits = {1: u8, 2: u16, 4: u32, 8: u64}[dtype.size]
    out = []
    for lane in range(lanes):
        start = retype(addr.offset, i64) + lane * dtype.size
        word = const(0, bits)
        for j in range(dtype.size):
            byte = retype(lw.k.read_local(array, start + j), bits)
            word = word | (byte << (8 * j)) if j else byte
        value = bitcast(word, dtype) if dtype.is_float else retype(word, dtype)
        out.append(lw.k.let(lw._fresh_name("stack_v"), value))
    return out


def _local_store(lw: Lowering, inst: Inst, addr: Address, dtype, values: list) -> None:
    """A store to the stack: each element's bytes (little-endian)."""
    array = _local_array(lw, addr, inst)
    bits = {1: u8, 2: u16, 4: u32, 8: u64}[dtype.size]
    for lane, v in enumerate(values):
        word = bitcast(retype(v, dtype), bits) if dtype.is_float else retype(v, bits)
        start = retype(addr.offset, i64) + lane * dtype.size
        for j in range(dtype.size):
            lw.k.write_local(array, start + j, retype(word >> (8 * j), u8))


def op_cvta(lw: Lowering, inst: Inst) -> None:
    """A conversion between a space's address and a generic one keeps what the address
    points to (a generic access then reads the space the address came from)."""
    v = lw.value(inst.operands[1], u64)
    if isinstance(v, TensorMapRef):
        lw._dest(inst, v)
        return
    if isinstance(v, Choice):
        lw._dest(inst, Choice(v.index, tuple(Address(
            "global" if x.space == "param" else x.space, x.base, x.offset, x.origin)
            for x in v.sides)))
        return
    if not isinstance(v, Address):
        raise lw._refuse(inst, "a conversion of a number smemsim cannot follow")
    lw._dest(inst, Address("global" if v.space == "param" else v.space, v.base,
                           v.offset, v.origin))


def op_atom(lw: Lowering, inst: Inst) -> None:
    _atomic(lw, inst, inst.operands[1], inst.operands[2:], inst.operands[0])


def op_red(lw: Lowering, inst: Inst) -> None:
    _atomic(lw, inst, inst.operands[0], inst.operands[1:], None)


def _atomic(lw: Lowering, inst: Inst, where: str, values, dest) -> None:
    """`atom`/`red` on shared or global memory as the IR's atomic (which costs what nvcc
    makes of it: a CAS loop for a float add to shared memory, as measured)."""
    parts = inst.opcode[1:]
    kind = next((p for p in parts if p in _ATOMIC_KINDS), None)
    ptype = parts[-1]
    if kind == "add" and ptype in ("f16x2", "bf16x2"):
        _half_pair_add(lw, inst, where, values, dest, ptype == "bf16x2")
        return
    dtype = _TYPES.get("u32" if ptype == "b32" else "u64" if ptype == "b64" else ptype)
    if kind is None or dtype is None or any(p in ("noftz",) for p in parts):
        raise lw._refuse(inst, "this atomic is not lowered yet")
    addr = lw.address(where, inst)
    view, index = lw._element(addr, dtype, inst)
    if addr.space != "shared":
        lw.stored.add(addr.base)
    operands = [retype(lw.value(v, dtype), dtype) if dtype.is_float else
                lw.integer(v, dtype) for v in values]
    if kind == "cas":
        old = lw.k.atomic(view, index, "cas", operands[1], compare=operands[0])
    else:
        old = lw.k.atomic(view, index, _ATOMIC_KINDS[kind], operands[0])
    if dest is not None:
        lw._dest(inst, old)


def _half_pair_add(lw: Lowering, inst: Inst, where: str, values, dest, brain: bool) -> None:
    """`atom`/`red` `.global.add.noftz.{f16x2,bf16x2}`: each half of the word added, as
    the hardware does it in one atomic, here as the compare-and-swap loop that makes the
    same word (the IR has no 16-bit float atomics): a thread reads the word, adds, and
    swaps it in where no other thread changed it meanwhile, else again. Global memory
    only: what it costs on shared memory is not measured."""
    addr = lw.address(where, inst)
    if addr.space == "shared":
        raise lw._refuse(inst, "an atomic add of 16-bit float pairs to shared memory "
                               "is not lowered yet")
    view, index = lw._element(addr, u32, inst)
    lw.stored.add(addr.base)
    add = retype(lw.integer(values[0], u32), u32)
    again = lw.k.let(lw._fresh_name("cas_again"), const(1, i32))
    old = lw.k.let(lw._fresh_name("cas_old"), const(0, u32))
    with lw.k.loop(lw._fresh_name("cas"), 0, lambda _: again > 0):
        seen = lw.k.let(lw._fresh_name("cas_seen"), retype(view[index], u32))
        new = const(0, u32)
        for h in range(2):
            a, b = (ops_convert.half_value((x >> (16 * h)) & 0xFFFF, brain) for x in (seen, add))
            new = new | (ops_convert.half_bits(a + b, brain) << (16 * h))
        swapped = lw.k.atomic(view, index, "cas", retype(new, u32), compare=seen)
        lw.k.assign(old, seen)
        lw.k.assign(again, select(swapped == seen, const(0, i32), const(1, i32)))
    if dest is not None:
        lw._dest(inst, old)

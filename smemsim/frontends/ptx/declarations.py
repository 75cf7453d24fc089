"""The declarations at the top of a lowered kernel: parameters (pointers, scalars, struct fields,
tensor maps, textures), the `.shared` window and the registers held in locals."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kernels_ir import KernelError
from kernels_ir.builder_shared import STATIC_SMEM_LIMIT
from kernels_ir.dtypes import f32, i32, i64, u8, u32
from kernels_ir.expr import (Expr, as_expr, cast, const)

from .operands import (_aggregate, entry_shared, eval_names, _gmma_n, _join_kinds, _lanes,
                       _members, _param_place, _reads, _REG_TYPES, _TEXTURE_OPERAND,
                       window_offsets, _writes)
from .parse import Inst, PtxError
from .symbols import local_name

# bytes of a pointer's array where the launch does not say how long it is (said so)
ASSUMED_BYTES = 1 << 22
from .values import Address, _BITS, _c_name, Choice, _const_bytes, _TYPES

if TYPE_CHECKING:
    from .lower import Lowering


def declare(lw: Lowering) -> None:
    """Parameters (pointers become byte arrays), and the shared window."""
    names = lw.launch.names or tuple(f"param_{n}" for n in range(len(lw.entry.params)))
    if len(names) != len(lw.entry.params):
        raise PtxError(f"{lw.entry.name}: {len(lw.entry.params)} parameters in the "
                       f"PTX, {len(names)} names given")
    lw.textures = _texture_fetches(lw)
    # a pointer to a CUtensorMap the host copied to device memory (`const CUtensorMap*
    # tensorMapA`, fast.cu), named by --tensor-map: the map, not an array
    lw.map_pointers = {key: name for key, name, ptype in param_slots(lw)
                       if isinstance(key, int) and ptype in ("u64", "b64", "s64")
                       and name in (lw.launch.tensor_maps or {})}
    pointers = pointer_params(lw) - set(lw.map_pointers)
    _name_fields(lw, pointers)
    for key, name, ptype in param_slots(lw):   # scalars first: lengths read them
        if key in pointers or key in lw.textures or key in lw.map_pointers:
            continue
        if ptype not in _TYPES:
            raise PtxError(f"{lw.entry.name}: parameter {name} of PTX type .{ptype} "
                           "is not lowered yet")
        lw.names_used.add(name)
        lw.params[key] = lw.k.param(
            name, (lw.launch.types or {}).get(name, _TYPES[ptype]))
    for key, name, _ in param_slots(lw):
        if key in lw.textures:
            _texture_array(lw, key, name)
        elif key in pointers:
            length = (lw.launch.lengths or {}).get(name)
            if length is None:   # (said: Kernel.assumed_lengths)
                length = ASSUMED_BYTES
                lw.assumed_lengths.append(name)
            lw.names_used.add(name)
            lw.globals[key] = lw.k.global_array(
                name, u8, _length(lw, length),
                intent="in" if lw.stored_into is not None and key not in lw.stored_into
                else "out" if lw.loaded_from is not None and key not in lw.loaded_from
                else "inout")
            lw.globals[key].declared = (lw.launch.elements or {}).get(name)
    _tensor_maps(lw, names)
    variables = entry_shared(lw.module, lw.entry)
    # (static variables in the window, `extern` ones where the dynamic memory begins)
    lw.shared_at.update(window_offsets(variables))
    lw.shared_bytes.update({v.name: v.nbytes for v in variables})
    offset = max((lw.shared_at[v.name] + v.nbytes for v in variables
                  if v.nbytes is not None), default=0)
    align = max([16] + [v.align for v in variables if v.nbytes is not None])
    if offset > STATIC_SMEM_LIMIT:
        # (ptxas refuses such a build, "uses too much shared data": said in the source's
        # terms, the variables named as it names them)
        sizes = ", ".join(f"'{local_name(v.name)}' {v.nbytes:,}" for v in variables
                          if v.nbytes)
        raise PtxError(f"static __shared__ variables of {offset:,} bytes "
                       f"({sizes}); CUDA allows {STATIC_SMEM_LIMIT:,} (48 KiB) a kernel, and "
                       "ptxas refuses the build: declare the larger ones `extern __shared__` "
                       "and give their bytes as the launch's third <<<>>> argument (above 48 "
                       "KiB with cudaFuncSetAttribute(kernel, "
                       "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))",
                       kernel=lw.name or lw.entry.name, loc=lw.launch.declared)
    if offset:
        lw.window = lw.k.shared(lw._fresh_name("smem"), u8, offset, align=align,
                                volatile=_volatile_window(lw))
    if reads_stack(lw):   # each stack array a per-thread array of bytes
        for name, size in lw.entry.local_arrays.items():
            if size:
                lw.stacks[name] = lw.k.local_array(
                    lw._fresh_name(local_name(name)), u8, size)
    externs = [v for v in variables if v.nbytes is None]
    lw.externs = {v.name for v in externs}
    if externs:
        # `extern __shared__` arrays all begin where the dynamic shared memory does: after
        # the static arrays, at the largest alignment any declares (kernels_ir's rule)
        dyn_align = max([16] + [v.align for v in externs])
        lw.dynamic_base = lw.shared_at[externs[0].name]
        # (the bytes' own view is not the variable's: its typed views, made at the
        # accesses, take the declaration's name)
        lw.dynamic = lw.k.dynamic_shared(lw._fresh_name("dynamic_smem"), u8,
                                         align=dyn_align)
    # (the module's variables this entry names: a library's others, libcu++'s
    # `cuda::std::ranges::begin` objects, are not the kernel's arrays)
    named = {t for i in lw.entry.body if isinstance(i, Inst) for o in i.operands
             for t in re.findall(r"[\w$.]+", o)}
    for c in lw.module.consts.values():
        if c.name not in named:
            continue
        # a __constant__ array is an input the kernel cannot write; a __device__
        # variable may be written, and starts as zeros where it states no values; another
        # unit's (`.extern`) holds what the host put there (seeded, as an input)
        initial = _const_bytes(c) if c.initial is not None else \
            (0,) * c.nbytes if c.space == "global" else None
        name = re.sub(r"\W", "_", local_name(c.name)).strip("_") or "variable"
        lw.globals[("const", c.name)] = lw.k.global_array(
            lw._fresh_name(name), u8, c.nbytes, initial=initial,
            intent="in" if c.space == "const" else "inout")


def _volatile_window(lw: Lowering) -> bool:
    """Whether the static window is volatile in the IR: where the kernel's shared
    accesses are `ld.volatile`/`st.volatile` (a tag-and-retry histogram's re-read), so
    that the CUDA generated from the IR (codegen, validate's profiled program) keeps
    them; not where it also has vector accesses, which CUDA cannot make through a
    volatile pointer (the analysis is the same either way)."""
    shared = [i.opcode for i in lw.entry.body if isinstance(i, Inst) and
              i.name in ("ld", "st") and "shared" in i.opcode]
    return any("volatile" in o for o in shared) and \
        not any(x in o for o in shared for x in ("v2", "v4", "v8"))


def declare_locals(lw: Lowering) -> None:
    """A local for each register that is not one value of one block (see the module's
    docstring), declared at the top; an address register's local holds its offset."""
    kinds = _kinds(lw)
    defs, home, used_elsewhere = {}, {}, set()
    for name, block in lw.blocks.items():
        for inst in block.insts:
            for r in _reads(inst, lw.entry.names):
                if r in home and home[r] != name or r not in home and r in kinds:
                    used_elsewhere.add(r)
            for r in _writes(inst, lw.entry.names):
                defs[r] = defs.get(r, 0) + 1
                home[r] = name
                if inst.guard is not None:
                    used_elsewhere.add(r)
        if block.cond is not None:
            r = block.cond.lstrip("!")
            if home.get(r) != name:
                used_elsewhere.add(r)
    lw.flags = {h: lw.k.let(lw._fresh_name(f"loop_{n}"), 0)
                for n, h in enumerate(lw.loops)}
    # wgmma's operands in registers, as the IR's wgmma takes them: an accumulator array
    # per instruction width N, and A's four registers (copied in and out around it)
    lw.gmma_acc, lw.gmma_a = {}, None
    for block in lw.blocks.values():
        for inst in block.insts:
            if inst.opcode[:2] != ("wgmma", "mma_async"):
                continue
            n = _gmma_n(inst)
            if n is not None and n not in lw.gmma_acc:
                lw.gmma_acc[n] = lw.k.local_array(lw._fresh_name(f"wgmma_d{n}"),
                                                  f32, n // 2)
            if len(inst.operands) > 1 and inst.operands[1].startswith("{") and \
                    lw.gmma_a is None:
                lw.gmma_a = lw.k.local_array(lw._fresh_name("wgmma_a"), u32, 4)
    lw.merges = {}
    lw.local_regs = set()
    lw.written_once = {r for r, n in defs.items() if n == 1}
    for r in sorted(set(defs)):
        if defs[r] == 1 and r not in used_elsewhere:
            continue
        kind = kinds.get(r)
        lw.local_regs.add(r)
        if isinstance(kind, tuple) and kind[0] == "either":
            # an address into one of several arrays: which one, and its offset
            members = sorted(kind[1], key=repr)
            if len({m[0] == "shared" for m in members}) > 1:
                raise PtxError(f"{r} holds addresses of shared and global memory (a "
                               "generic pointer to either): not lowered yet")
            dtype = u32 if members[0][0] == "shared" else i64
            which = lw.k.let(lw._fresh_name(_c_name(r) + "_array"), const(0, i32))
            ref = lw.k.let(lw._fresh_name(_c_name(r)), const(0, dtype), dtype)
            lw.regs[r] = Choice(which, tuple(Address(space, base, ref)
                                             for space, base in members))
            lw.local_vars.update((which.arg, ref.arg))
            continue
        if isinstance(kind, tuple):   # an address: its base is fixed, its offset varies
            space, base = kind
            dtype = u32 if space == "shared" else i64
            ref = lw.k.let(lw._fresh_name(_c_name(r)), const(0, dtype), dtype)
            lw.regs[r] = Address(space, base, ref)
        else:
            dtype = _REG_TYPES.get(kind, u32)
            ref = lw.k.let(lw._fresh_name(_c_name(r)), const(0, dtype), dtype)
            lw.regs[r] = ref
        lw.local_vars.add(ref.arg)


def _kinds(lw: Lowering) -> dict:
    """Each register's kind, to a fixed point over every instruction: an address
    (space, base), or a PTX type name (pred, f32, u32, ...). A kind only ever grows
    (none, then the type of the first instruction that writes it, then an address), so
    the passes end: a register written as .b32 and as .s32 keeps the first (its bits
    are the same; each instruction reads them as its own type)."""
    kinds: dict[str, object] = {}
    insts = [(i, _writes(i, lw.entry.names))
             for b in lw.blocks.values() for i in b.insts]
    insts = [(i, w) for i, w in insts if w]
    for _ in range(len(insts) + 1):
        changed = False
        for inst, written in insts:
            k = _kind_of(lw, inst, kinds)
            if k is None:
                continue
            for r in written:
                old = kinds.get(r)
                if old == k or (old is not None and not isinstance(k, tuple)):
                    continue
                if isinstance(old, tuple):   # addresses of several arrays
                    k = _join_kinds(old, k)
                    if k == old:
                        continue
                kinds[r] = k
                changed = True
        if not changed:
            break
    return kinds


def _kind_of(lw: Lowering, inst: Inst, kinds: dict):
    op, ty = inst.name, inst.opcode[-1]
    srcs = [kinds.get(o) for o in inst.operands[1:]]
    if op == "ld" and inst.opcode[1] == "param":
        key = _slot_of(lw, inst.operands[1]) if len(inst.operands) > 1 else None
        return ("param", key) if key in lw.globals else ty
    if op == "cvta":
        base = next((s for s in srcs if isinstance(s, tuple)), None)
        if base is None:
            return None
        return _join_kinds(*(("global", m[1]) if m[0] == "param" else m
                             for m in _members(base)))
    if op == "selp" and any(isinstance(s, tuple) for s in srcs[:2]):
        return _join_kinds(*(s for s in srcs[:2] if isinstance(s, tuple)))
    if op == "mov" and inst.operands[1] in lw.shared_at:
        return ("shared", None)
    if op == "mov" and ("const", inst.operands[1]) in lw.globals:
        return ("global", ("const", inst.operands[1]))
    if op == "mov" and inst.operands[1] in lw.entry.local_arrays:
        return ("local", inst.operands[1])
    if op == "cvt" and len(inst.opcode) > 2 and inst.opcode[1] in _TYPES and \
            _TYPES[inst.opcode[1]].size < 8 and any(
                isinstance(s, tuple) and s[0] in ("global", "param") for s in srcs):
        return inst.opcode[1]   # a global pointer's low bits: a number (ops_convert.op_cvt)
    if op in ("mov", "add", "sub", "cvt") and any(isinstance(s, tuple) for s in srcs):
        return next(s for s in srcs if isinstance(s, tuple))
    if op == "mad" and len(srcs) == 3 and isinstance(srcs[2], tuple):
        return srcs[2]   # base + i * stride
    if op == "setp":
        return "pred"
    if op == "wgmma" and inst.opcode[1] == "mma_async":
        return inst.opcode[-3]   # the accumulators' type (`.f32.bf16.bf16`)
    return ty if ty in _TYPES else None


def _length(lw: Lowering, length):
    if isinstance(length, (int, Expr)):
        return length
    return as_expr(eval_names(length, params_by_name(lw)))


def params_by_name(lw: Lowering) -> dict:
    return {name: lw.params[key] for key, name, _ in param_slots(lw) if key in lw.params}


def _tensor_maps(lw: Lowering, names) -> None:
    """Each CUtensorMap parameter (`.param .align 64 .b8 p[128]`, named by --tensor-map)
    as the IR's tensor map over its tensor: the pointer parameter of that name, or else
    an array of its own (the host passed only the map)."""
    from ..cuda.symbols import TYPES, fold
    from ..tensor_maps import missing, parse_spec, tensor_length
    from kernels_ir.dtypes import BY_NAME
    given = lw.launch.tensor_maps or {}
    scalars = {names[k]: v for k, v in lw.params.items() if isinstance(k, int)}
    for n, p in enumerate(lw.entry.params):
        # a map passed by value, its address taken; or a pointer to one (ld.param of it
        # is the map: ops_memory.op_ld)
        if n not in lw.map_pointers and not (
                _aggregate(p) and p.nbytes == 128 and _address_taken(lw, p.name)):
            continue
        name = names[n]
        if name not in given:
            if any(isinstance(i, Inst) and i.opcode[:4] == ("cp", "async", "bulk", "tensor")
                   for i in lw.entry.body):
                raise PtxError(missing(name))
            continue   # (a 128-byte struct passed by value, its address used otherwise)
        spec = parse_spec(name, given[name])
        dtype = BY_NAME.get(TYPES.get(spec.ctype, spec.ctype))
        if dtype is None:
            raise PtxError(f"--tensor-map {name}: element type '{spec.ctype}' is not one "
                           "the IR has")
        what = f"--tensor-map {name}"
        shape = [eval_names(e, scalars) for e in spec.extents]
        box = [fold(eval_names(b, {})) for b in spec.box]
        if None in box:
            raise PtxError(f"{what}: each box extent must be a number")
        strides = None
        if any(s is not None for s in spec.strides):
            from kernels_ir.tma import tensor_strides
            strides = tensor_strides(shape, [eval_names(s, scalars) if s is not None
                                             else None for s in spec.strides[:-1]])
        tensor = next((k for k, g in lw.globals.items() if isinstance(k, int) and
                       names[k] == spec.tensor), None)
        if tensor is not None:
            arr = lw.k.global_view(lw.globals[tensor], lw._fresh_name(
                f"{spec.tensor}_{dtype.name}"), dtype)
        else:   # the tensor is not a parameter: the host passed only the map
            arr = lw.k.global_array(lw._fresh_name(spec.tensor), dtype,
                                    tensor_length(shape, strides), intent="inout")
        try:
            lw.tensor_maps[n if n in lw.map_pointers else p.name] = lw.k.tensor_map(
                lw._fresh_name(name), arr, tuple(shape), tuple(box), spec.swizzle,
                strides=strides)
        except KernelError as err:
            raise PtxError(f"{what}: {err.message}") from None


def _address_taken(lw: Lowering, param: str) -> bool:
    """Whether the body takes a parameter's own address (`mov.b64 %rd, p`)."""
    return any(isinstance(i, Inst) and i.name == "mov" and len(i.operands) == 2 and
               i.operands[1] == param for i in lw.entry.body)


def param_slots(lw: Lowering) -> list[tuple]:
    """(key, name, PTX type) of each value the parameters pass: a parameter of a scalar
    type is one (key: its position); a by-value struct (`.param .b8 p[16]`: a functor, a
    lambda's captures, a kernel-traits object) is one per field the kernel reads
    (`ld.param.u64 %rd1, [p+8]`; key: (position, byte offset), named `p_8`)."""
    if hasattr(lw, "_slots_memo"):
        return lw._slots_memo
    names = lw.launch.names or tuple(f"param_{n}" for n in range(len(lw.entry.params)))
    fields: dict[int, dict[int, str]] = {}
    for i in lw.entry.body:
        if isinstance(i, Inst) and i.opcode[:2] == ("ld", "param") and len(i.operands) > 1:
            n, off = _param_place(i.operands[1], lw._param_index)
            if n is not None and _aggregate(lw.entry.params[n]):
                size = _BITS.get(i.opcode[-1], 32) // 8
                for lane in range(_lanes(i.opcode)):   # (`ld.param.v2.u32`: two fields)
                    fields.setdefault(n, {}).setdefault(off + lane * size, i.opcode[-1])
    out = []
    for n, (p, name) in enumerate(zip(lw.entry.params, names)):
        if not _aggregate(p):
            out.append((n, name, p.ptype))
        # (a vector type's, `uint3 size`: its lanes as the host reading names them,
        # size_x, size_y, size_z; any other struct's fields by their byte offset)
        types = lw.launch.types or {}
        lanes = [f"{name}_{c}" for c in "xyzw" if f"{name}_{c}" in types]
        for off, ptype in sorted(fields.get(n, {}).items()):
            step = types[lanes[0]].size if lanes else 0
            label = lanes[off // step] if lanes and off % step == 0 and \
                off // step < len(lanes) else f"{name}_{off}"
            out.append(((n, off), label, ptype))
    lw._slots_memo = out
    return out


def _name_fields(lw: Lowering, pointers: set) -> None:
    """A by-value struct's fields named as the host's reading names them (`p_in`,
    `p_n` of `Params p`), where that is certain: the reading gives its pointer fields
    and its scalar fields each in declaration order, and the build reads exactly as
    many of each (offsets grow in declaration order); else by byte offset (`p_8`)."""
    slots = param_slots(lw)
    host_pointers = list(lw.launch.elements or {})
    host_scalars = list(lw.launch.types or {})
    renamed: dict = {}
    for n, name in enumerate(lw.launch.names or ()):
        fields = [(key, label) for key, label, _ in slots
                  if isinstance(key, tuple) and key[0] == n]
        # where the host reading laid the struct out (C++'s layout): each field by its
        # offset, `N_4` the `N_height` of `Matrix N`
        at = {off: host for host, (param, off) in (lw.launch.fields or {}).items()
              if param == name}
        if fields and all(key[1] in at for key, _ in fields):
            renamed.update({key: at[key[1]] for key, _ in fields})
            continue
        if not fields or any(label in host_pointers or label in host_scalars
                             for _, label in fields):
            continue   # (no fields, or named by the host already: a vector's lanes)
        prefix = f"{name}_"
        mine = [k for k in fields if k[0] in pointers], \
            [k for k in fields if k[0] not in pointers]
        theirs = [h for h in host_pointers if h.startswith(prefix)], \
            [h for h in host_scalars if h.startswith(prefix)]
        if all(len(a) == len(b) for a, b in zip(mine, theirs)):
            for ours, host in zip(mine, theirs):
                renamed.update({key: label for (key, _), label in zip(ours, host)})
    if renamed:
        lw._slots_memo = [(key, renamed.get(key, label), ptype)
                          for key, label, ptype in slots]


def param_fields(lw: Lowering, inst: Inst) -> list[tuple]:
    """(register, slot key) of each value an `ld.param` reads: one, or one a lane of a
    vector load of a struct's fields (`ld.param.v2.u32 {%r1, %r2}, [p+8]`: the fields at
    8 and 12); a lane written to `_` is left out."""
    targets = inst.operands[0].strip("{}").split(",")
    if len(targets) == 1:
        return [(targets[0], _slot_of(lw, inst.operands[1]))]
    n, off = _param_place(inst.operands[1], lw._param_index)
    if n is None or not _aggregate(lw.entry.params[n]):
        return [(t, None) for t in targets if t != "_"]
    size = _BITS.get(inst.opcode[-1], 32) // 8
    return [(t, (n, off + lane * size)) for lane, t in enumerate(targets) if t != "_"]


def _slot_of(lw: Lowering, operand: str):
    """The slot key an `ld.param` operand reads (`[k_param_2+8]` -> (2, 8)), or None."""
    n, off = _param_place(operand, lw._param_index)
    if n is None:
        return None
    return (n, off) if _aggregate(lw.entry.params[n]) else n


def pointer_params(lw: Lowering) -> set:
    """The slots that are pointers: where the host side says which parameters are
    scalars (`Launch.types`), the others of 64 bits; else those the command line gives a
    length, and 64-bit values an address is made from (a `cvta` of the value, or an
    address operand built from it by `add`/`mov`): a `size_t` scalar is neither."""
    wide = ("u64", "b64", "s64")
    if lw.launch.types is not None:
        return {key for key, name, ptype in param_slots(lw)
                if name not in lw.launch.types and ptype in wide and
                not isinstance(key, tuple)} | \
            _used_as_addresses(lw, {key for key, _, t in param_slots(lw)
                                    if isinstance(key, tuple) and t in wide})
    out = {key for key, name, _ in param_slots(lw) if name in (lw.launch.lengths or {})}
    return out | _used_as_addresses(lw, {key for key, _, t in param_slots(lw) if t in wide})


def _used_as_addresses(lw: Lowering, keys: set) -> set:
    """Of the 64-bit slots `keys`, those whose value some address is made from."""
    out = set()
    derived: dict[str, object] = {}   # register -> the slot it holds (plus numbers)
    insts = [i for i in lw.entry.body if isinstance(i, Inst)]
    for i in insts:
        if i.opcode[:2] == ("ld", "param") and len(i.operands) > 1:
            for target, key in param_fields(lw, i):
                if key in keys:
                    derived[target] = key
    # registers that hold an address already (a `cvta` of a pointer, moved or offset):
    # a slot added to one is an offset (a `size_t` stride), not a pointer
    addressed = {i.operands[0] for i in insts if i.name == "cvta" and i.operands}
    for _ in range(4):   # (a pointer moved or offset before its use: a few steps)
        for i in insts:
            if i.name not in ("mov", "add", "sub") or len(i.operands) < 2:
                continue
            if any(o in addressed for o in i.operands[1:]):
                addressed.add(i.operands[0])
                derived.pop(i.operands[0], None)
            elif i.operands[0] not in derived and i.operands[0] not in addressed:
                source = next((derived[o] for o in i.operands[1:] if o in derived), None)
                if source is not None:
                    derived[i.operands[0]] = source
    for i in insts:
        if i.name == "cvta" and len(i.operands) > 1 and i.operands[1] in derived:
            out.add(derived[i.operands[1]])
        for o in i.operands:
            if o.startswith("["):
                base = re.split(r"[+-]", o.strip("[]"))[0]
                if base in derived:
                    out.add(derived[base])
    return out


def _texture_fetches(lw: Lowering) -> dict:
    """slot key -> [rank, element type, lanes, the first fetch] of each texture object
    parameter the entry fetches through (`tex.2d.v4.f32.f32 {..}, [%rd2, {x, y}]`, %rd2
    loaded from the parameter); lanes: the texel's, as many as the fetches' results are
    read (a float texture's fetch has four results, of which its code reads one)."""
    insts = [i for i in lw.entry.body if isinstance(i, Inst)]
    loaded = lw.texture_handles = {}   # register -> the parameter slot it holds
    for i in insts:
        if i.opcode[:2] == ("ld", "param") and len(i.operands) > 1:
            for target, key in param_fields(lw, i):
                loaded[target] = key
    read = {r for i in insts for r in _reads(i, lw.entry.names)}
    out: dict = {}
    for i in insts:
        if i.name != "tex":
            continue
        m = _TEXTURE_OPERAND.fullmatch(i.operands[1]) if len(i.operands) > 1 else None
        key = loaded.get(m.group(1)) if m else None
        if key is None or len(i.opcode) != 5 or i.opcode[1] not in ("1d", "2d") or \
                i.opcode[2] != "v4" or i.opcode[3] not in _TYPES:
            continue   # (refused where it is lowered)
        results = i.operands[0].strip("{}").split(",")
        lanes = 1 + max((n for n, r in enumerate(results) if r in read), default=0)
        rank = 1 if i.opcode[1] == "1d" else 2
        have = out.setdefault(key, [rank, _TYPES[i.opcode[3]], lanes, i])
        if have[:2] != [rank, _TYPES[i.opcode[3]]]:
            raise lw._refuse(i, "a texture fetched as two kinds of texel")
        have[2] = max(have[2], lanes)
    return out


def _texture_array(lw: Lowering, key, name: str) -> None:
    """The texture's texels as a read-only global array of its parameter's name, row by
    row, its extent what `--texture NAME=WIDTH[,HEIGHT]` says (a 1-D texture without it:
    its --length or the default length, as any array)."""
    rank, dtype, lanes, first = lw.textures[key]
    given = (lw.launch.textures or {}).get(name)
    if given is not None:
        parts = [p.strip() for p in str(given).split(",")]
        if len(parts) != rank:
            raise lw._refuse(first, f"--texture {name}={given}: a {rank}-D texture "
                                    f"takes {'WIDTH' if rank == 1 else 'WIDTH,HEIGHT'}")
        extents = [cast(as_expr(_length(lw, int(p) if p.isdigit() else p)), i32)
                   for p in parts]
    elif rank == 1:
        length = (lw.launch.lengths or {}).get(name, 1 << 22)
        extents = [cast(as_expr(_length(lw, length)), i32)]
    else:
        raise lw._refuse(first, f"the extent of 2-D texture '{name}' is what the host "
                                f"allocated: give --texture {name}=WIDTH,HEIGHT (texels)")
    width = extents[0]
    height = extents[1] if rank == 2 else const(1, i32)
    lw.names_used.add(name)
    array = lw.k.global_array(name, dtype, width * height * lanes, intent="in")
    array.texture = (
        "a texture read by tex.1d: texel i, 0 outside the texture" if rank == 1 else
        "a texture read by tex.2d with point sampling of unnormalized coordinates, "
        "clamped to its extent (the zero-initialized cudaTextureDesc: the host's own is "
        "not read)")
    lw.textures[key] = [rank, dtype, lanes, first, array, width, height]


def reads_stack(lw: Lowering) -> bool:
    """Whether the entry reads its stack (`ld.local`, or a generic address made from it:
    `cvta.local`), so that its stack is lowered (else its stores are printf's arguments,
    left out)."""
    if lw.local_read is None:
        lw.local_read = any(isinstance(i, Inst) and "local" in i.opcode and
                            i.name in ("ld", "cvta") for i in lw.entry.body)
    return lw.local_read

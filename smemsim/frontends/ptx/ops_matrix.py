"""Tensor-core and asynchronous copies: `ldmatrix`, `stmatrix`, `cp.async` (and its bulk and
tensor forms), `mbarrier`, `mma` and `wgmma`."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kernels_ir import KernelError
from kernels_ir.dtypes import bf16, f16, f32, f64, i32, u8, u16, u32, u64
from kernels_ir.wgmma import GmmaDescriptor
from kernels_ir.expr import (Expr, Op, const)

from .operands import _gmma_n
from .parse import Inst, PtxError
from .values import Address, _c_name, retype, TensorMapRef

if TYPE_CHECKING:
    from .lower import Lowering


def op_ldmatrix(lw: Lowering, inst: Inst) -> None:
    """`ldmatrix...x{1,2,4}[.trans].shared.b16 {d..}, [a]`: each d register is two
    16-bit elements of the fragment, the first in its low half."""
    matrices, trans = _matrix_shape(lw, inst)
    addr = lw.address(inst.operands[1], inst)
    view, index = lw._element(addr, u16, inst)
    frag = lw.k.ldmatrix(view, index, matrices=matrices, trans=trans)
    for j, r in enumerate(inst.operands[0].strip("{}").split(",")):
        lw._dest(inst, retype(frag[2 * j], u32) | retype(frag[2 * j + 1], u32) << 16, r)


def op_stmatrix(lw: Lowering, inst: Inst) -> None:
    matrices, trans = _matrix_shape(lw, inst)
    addr = lw.address(inst.operands[0], inst)
    view, index = lw._element(addr, u16, inst)
    values = []
    for r in inst.operands[1].strip("{}").split(","):
        word = lw.integer(r, u32)
        values += [retype(word & 0xFFFF, u16), retype(word >> 16, u16)]
    lw.k.stmatrix(view, index, values, matrices=matrices, trans=trans)


def _matrix_shape(lw: Lowering, inst: Inst) -> tuple[int, bool]:
    parts = inst.opcode[1:]
    count = next((int(p[1:]) for p in parts if p in ("x1", "x2", "x4")), None)
    if count is None or "m8n8" not in parts or "b16" not in parts:
        raise lw._refuse(inst, "this ldmatrix/stmatrix shape is not lowered yet")
    return count, "trans" in parts


def op_cp(lw: Lowering, inst: Inst) -> None:
    """`cp.async.{ca,cg}.shared.global [dst], [src], size` and its groups; the arrival of
    a thread's copies on an mbarrier; 1-D bulk copies from global memory."""
    parts = inst.opcode[1:]
    if parts[:2] == ("async", "bulk"):
        _bulk_copy(lw, inst)
        return
    if parts[:1] != ("async",):
        raise lw._refuse(inst, "this copy is not lowered yet")
    if parts[1:3] == ("mbarrier", "arrive"):
        # `cp.async.mbarrier.arrive.shared.b64 [bar]`: one more pending arrival now, made
        # when the thread's copies have landed (.noinc counts it among the expected
        # arrivals instead: not modelled)
        if "noinc" in parts or "shared::cluster" in parts:
            raise lw._refuse(inst, "this form of cp.async.mbarrier.arrive is not "
                                   "lowered yet")
        view, index = _barrier_element(lw, inst.operands[0], inst)
        lw.k.cp_async_arrive(view, index)
        return
    if "commit_group" in parts:
        lw.k.cp_async_commit()
        return
    if "wait_group" in parts or "wait_all" in parts:
        pending = 0 if "wait_all" in parts else int(inst.operands[0], 0)
        lw.k.cp_async_wait(pending)
        return
    if "mbarrier" in parts or len(inst.operands) not in (3, 4):
        raise lw._refuse(inst, "this form of cp.async is not lowered yet")
    size = int(inst.operands[2], 0)
    src_bytes = None
    if len(inst.operands) == 4:   # a source size: fewer bytes read, the rest zeroed
        src_bytes = lw.integer(inst.operands[3], u32)
        if src_bytes.op is Op.CONST and int(src_bytes.arg) == size:
            src_bytes = None
    dst = lw.address(inst.operands[0], inst)
    src = lw.address(inst.operands[1], inst)
    dtype = {4: u32, 8: u32, 16: u32}.get(size)
    if dtype is None or dst.space != "shared" or src.space == "shared":
        raise lw._refuse(inst, f"a {size}-byte cp.async from {src.space} to {dst.space}")
    dview, dindex = lw._element(dst, dtype, inst)
    sview, sindex = lw._element(src, dtype, inst)
    lw.k.cp_async(dview, dindex, sview, sindex, width=size // 4, bypass="cg" in parts,
                  src_bytes=src_bytes)


def _bulk_copy(lw: Lowering, inst: Inst) -> None:
    """`cp.async.bulk.shared::{cluster,cta}.global.mbarrier::complete_tx::bytes [dst],
    [src], size, [bar]`: the thread's copy of `size` bytes (a constant) completing on the
    mbarrier (libcu++'s `cuda::memcpy_async` of 16-byte aligned pieces on sm_90)."""
    parts = inst.opcode[1:]
    if "tensor" in parts:
        _tensor_copy(lw, inst)
        return
    if parts[2:3] in (("commit_group",), ("wait_group",)):
        if parts[2] == "commit_group":
            lw.k.bulk_commit()
        else:
            lw.k.bulk_wait(int(inst.operands[0], 0), read="read" in parts)
        return
    if "global" not in parts or not any(p.startswith("shared") for p in parts) or \
            "mbarrier::complete_tx::bytes" not in parts or \
            any(p.startswith(("multicast", "L2")) for p in parts) or \
            len(inst.operands) != 4 or parts.index("global") < 2:
        raise lw._refuse(inst, "this form of cp.async.bulk is not lowered yet")
    size = lw.integer(inst.operands[2], u32)
    if size.op is not Op.CONST:
        raise lw._refuse(inst, f"a bulk copy of {inst.operands[2]} bytes, a number known "
                               "only at run time (the IR's bulk copies have a fixed size)")
    dst = lw.address(inst.operands[0], inst)
    src = lw.address(inst.operands[1], inst)
    if dst.space != "shared" or src.space == "shared":
        raise lw._refuse(inst, f"a bulk copy from {src.space} to {dst.space}")
    dview, dindex = lw._element(dst, u8, inst)
    sview, sindex = lw._element(src, u8, inst)
    bview, bindex = _barrier_element(lw, inst.operands[3], inst)
    try:
        lw.k.bulk_load(dview, dindex, sview, sindex, int(size.arg), bview, bindex)
    except KernelError as err:
        raise lw._refuse(inst, err.message) from None


def _tensor_copy(lw: Lowering, inst: Inst) -> None:
    """`cp.async.bulk.tensor.Nd` of tile mode: a TMA load (`.shared::cluster.global
    .mbarrier::complete_tx::bytes [dst], [map, {c0, c1, ...}], [bar]`) or store
    (`.global.shared::cta.bulk_group [map, {...}], [src]`), the map one of the kernel's
    CUtensorMap parameters (--tensor-map), its coordinates innermost first."""
    parts = inst.opcode[1:]
    if "im2col" in parts or any(p.startswith(("multicast", "L2")) for p in parts):
        raise lw._refuse(inst, "this form of cp.async.bulk.tensor is not lowered yet")
    load = parts.index("global") > next(n for n, p in enumerate(parts)
                                        if p.startswith("shared"))
    where = inst.operands[1] if load else inst.operands[0]
    m = re.fullmatch(r"\[([^,\]]+),\{([^}]*)\}\]", where)
    if m is None:
        raise lw._refuse(inst, "a tensor copy's map and coordinates not read")
    tmap = lw.value(m.group(1), u64)
    if not isinstance(tmap, TensorMapRef):
        raise lw._refuse(inst, f"{m.group(1)} is not the address of a CUtensorMap "
                               "parameter (--tensor-map describes one)")
    tm = tmap.tensor_map
    coords = [lw.integer(c, i32) for c in m.group(2).split(",")][::-1]
    tile = lw.address(inst.operands[0] if load else inst.operands[1], inst)
    if tile.space != "shared":
        raise lw._refuse(inst, f"a tensor copy to {tile.space} memory")
    view, index = lw._element(tile, tm.array.dtype, inst)
    try:
        if load:
            bview, bindex = _barrier_element(lw, inst.operands[2], inst)
            lw.k.tma_load(tm, view, index, coords, bview, bindex)
        else:
            lw.k.tma_store(tm, view, index, coords)
    except KernelError as err:
        raise lw._refuse(inst, err.message) from None


def _barrier_element(lw: Lowering, where: str, inst: Inst):
    """The mbarrier at `[addr]`: a 64-bit element of the shared window."""
    addr = lw.address(where, inst)
    if addr.space != "shared":
        raise lw._refuse(inst, f"an mbarrier in {addr.space} memory")
    return lw._element(addr, u64, inst)


def op_mbarrier(lw: Lowering, inst: Inst) -> None:
    """`mbarrier.init`, `.arrive` (its state kept: the phase arrived on), `.expect_tx`,
    and `.try_wait`/`.test_wait` (by state or `.parity`) as the wait they stand for: a
    thread reaching one waits until the phase completes (nvcc puts them in a loop that
    spins until they succeed), then its result is true."""
    parts = inst.opcode[1:]
    op = parts[0] if parts else ""
    if "shared::cluster" in parts:
        raise lw._refuse(inst, "an mbarrier of another block of the cluster is not "
                               "lowered yet")
    if op == "init":
        view, index = _barrier_element(lw, inst.operands[0], inst)
        lw.k.mbarrier_init(view, index, lw.integer(inst.operands[1], u32))
    elif op == "expect_tx":
        view, index = _barrier_element(lw, inst.operands[0], inst)
        lw.k.mbarrier_expect_tx(view, index, lw.integer(inst.operands[1], u32))
    elif op == "arrive" and "noComplete" not in parts:
        view, index = _barrier_element(lw, inst.operands[1], inst)
        expect = "expect_tx" in parts
        if not expect and len(inst.operands) == 3:
            count = lw.integer(inst.operands[2], u32)
            if count.op is not Op.CONST or int(count.arg) != 1:
                raise lw._refuse(inst, f"an arrival counted {inst.operands[2]} times "
                                       "(one thread's arrival counts once here)")
        tx = lw.integer(inst.operands[2], u32) if expect else None
        keep = inst.operands[0] != "_"
        token = lw.k.mbarrier_arrive(view, index, expect_tx=tx,
                                     token="mbar_state" if keep else None)
        if keep:
            lw._dest(inst, token)
    elif op in ("try_wait", "test_wait"):
        view, index = _barrier_element(lw, inst.operands[1], inst)
        if "parity" in parts:
            parity = lw.integer(inst.operands[2], u32)
        else:
            parity = retype(lw.integer(inst.operands[2], u64) & const(1, u64), u32)
        lw.k.mbarrier_wait(view, index, parity)
        lw._dest(inst, const(1, i32) != const(0, i32))
    elif op == "inval":
        # the barrier's word is free for other data again (libcu++'s pipeline
        # destructor): no operation of the model's barriers reads it after
        _barrier_element(lw, inst.operands[0], inst)
    else:
        raise lw._refuse(inst, "this mbarrier operation is not lowered yet")


def op_wgmma(lw: Lowering, inst: Inst) -> None:
    """`wgmma.fence`, `.commit_group`, `.wait_group N`, and `wgmma.mma_async.sync.aligned
    .m64nNk16.f32.{f16,bf16}.{f16,bf16} {d..}, descA | {a0..a3}, descB, scale-d, 1, 1,
    [tnspA,] tnspB`: the descriptors are the 64-bit numbers the program computed (the
    IR decodes them as the hardware does); the accumulators are copied into the IR's
    wgmma array and back (the IR's model runs in order: the result is there at once)."""
    kind = inst.opcode[1]
    if kind == "fence":
        lw.k.wgmma_fence()
        return
    if kind == "commit_group":
        lw.k.wgmma_commit()
        return
    if kind == "wait_group":
        try:
            lw.k.wgmma_wait(int(inst.operands[0], 0))
        except (ValueError, IndexError, KernelError):
            raise lw._refuse(inst, "wgmma.wait_group of a number smemsim cannot "
                                   "read") from None
        return
    if kind != "mma_async":
        raise lw._refuse(inst, "this wgmma instruction is not lowered yet")
    n = _gmma_n(inst)
    types = inst.opcode[-3:]
    if n is None or types[0] != "f32" or types[1] != types[2] or \
            types[1] not in ("f16", "bf16") or "sp" in inst.opcode:
        raise lw._refuse(inst, "wgmma of this shape or these types is not lowered yet "
                               "(m64nNk16 with f16 or bf16 inputs into f32 is)")
    dtype = {"f16": f16, "bf16": bf16}[types[1]]
    regs = [r.strip() for r in inst.operands[0].strip("{}").split(",")]
    a_regs = inst.operands[1].startswith("{")
    rest = inst.operands[2:]
    if len(regs) != n // 2 or len(rest) != (5 if a_regs else 6):
        raise lw._refuse(inst, f"wgmma m64n{n}k16: {n // 2} accumulators, A's descriptor "
                               "(or four registers), B's, scale-d, the two scales and "
                               "the transposes expected")
    imm = lambda t: lw.integer(t, i32)   # noqa: E731
    number = lambda t: int(imm(t).arg) if imm(t).op is Op.CONST else None  # noqa: E731
    scales = [number(t) for t in rest[2:4]]
    if scales != [1, 1]:
        raise lw._refuse(inst, "wgmma with a negated A or B (imm-scale-a/b -1) is not "
                               "lowered yet")
    trans = [number(t) for t in rest[4:]]
    if any(t not in (0, 1) for t in trans):
        raise lw._refuse(inst, "wgmma's transposes are immediates 0 or 1")
    majors = ["MN" if t else "K" for t in trans]
    scale_d = lw._predicate(rest[1], inst) if rest[1] in lw.entry.names or \
        rest[1].startswith("%p") else imm(rest[1])
    acc = lw.gmma_acc[n]
    for j, r in enumerate(regs):   # what the accumulators hold before
        lw.k.write_local(acc, j, _accumulator(lw, r))
    if a_regs:
        words = [w.strip() for w in inst.operands[1].strip("{}").split(",")]
        if len(words) != 4:
            raise lw._refuse(inst, "wgmma's A from registers is four 32-bit registers")
        for j, r in enumerate(words):
            lw.k.write_local(lw.gmma_a, j, lw.integer(r, u32))
        a = lw.gmma_a
    else:
        a = _gmma_operand(lw, inst, inst.operands[1], dtype, majors[0])
    b = _gmma_operand(lw, inst, rest[0], dtype, majors[-1])
    try:
        lw.k.wgmma(acc, a, b, n, scale_d)
    except KernelError as err:
        raise lw._refuse(inst, err.message) from None
    for j, r in enumerate(regs):
        value = lw.k.read_local(acc, j)
        if r not in lw.local_regs:   # held now: the next wgmma overwrites the array
            value = lw.k.let(lw._fresh_name(_c_name(r)), value)
        lw._dest(inst, value, r)


def _accumulator(lw: Lowering, reg: str) -> Expr:
    """An accumulator register's value (0 where nothing wrote it yet: scale-d 0 reads
    none of them)."""
    if reg not in lw.regs:
        return const(0.0, f32)
    v = lw.value(reg, f32)
    if not isinstance(v, Expr):
        raise PtxError(f"wgmma accumulator {reg} holds an address")
    return retype(v, f32)


def _gmma_operand(lw: Lowering, inst: Inst, text: str, dtype, major: str) -> tuple:
    """(a view of the shared memory it reads, GmmaDescriptor) of a descriptor operand."""
    v = lw.value(text, u64)
    if isinstance(v, Address):
        if v.space != "shared":
            raise lw._refuse(inst, f"wgmma's descriptor {text} is made from a "
                                   f"{v.space} address")
        value, origin = retype(v.offset, u64), v.origin
    elif isinstance(v, Expr):
        value, origin = retype(v, u64), None
    else:
        raise lw._refuse(inst, f"wgmma's descriptor {text}: a 64-bit number expected")
    view, _ = lw._element(Address("shared", None, const(0, u32), origin), dtype, inst)
    return view, GmmaDescriptor(value, major)


def op_mma(lw: Lowering, inst: Inst) -> None:
    """`mma.sync.aligned.SHAPE.row.col.D.A.B.C {d}, {a}, {b}, {c}`."""
    parts = inst.opcode[1:]
    shape = next((p for p in parts if p.startswith("m") and "n" in p and "k" in p), None)
    types = [p for p in parts if p in ("f16", "bf16", "tf32", "f32", "s8", "u8", "s32",
                                       "f64")]
    if shape is None or len(types) != 4 or "row" not in parts or "col" not in parts:
        raise lw._refuse(inst, "this form of mma is not lowered yet")
    ctype, atype = types[0], types[1]
    regs = [o.strip("{}").split(",") for o in inst.operands]
    words = lambda rs: [lw.integer(r, u32) for r in rs]   # noqa: E731
    cty = {"f32": f32, "f16": u32, "s32": i32, "f64": f64}[ctype]
    c = [retype(lw.value(r, cty), cty) for r in regs[3]]
    try:
        d = lw.k.mma_sync(words(regs[1]), words(regs[2]), c, shape=shape, atype=atype,
                          ctype=ctype)
    except KernelError as err:
        raise lw._refuse(inst, err.message) from None
    for j, r in enumerate(regs[0]):
        lw._dest(inst, d[j], r)

"""Warps and barriers: `shfl`, `vote`, `match`, `redux`, `bar`/`barrier`, fences, calls, and the
markers the frontend adds (iterations, grid syncs)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kernels_ir.dtypes import i32, u32, u64
from kernels_ir.expr import (Op, cast, const, smax, smin)

from .parse import Inst, PtxError
from .structure import COUNTED_ONLY
from .values import Address, retype, _TYPES

if TYPE_CHECKING:
    from .lower import Lowering


def op_smemsim_iteration(lw: Lowering, inst: Inst) -> None:
    """`smemsim_iteration.s32 %r` (as_built's cascades): the iteration of the innermost
    counted loop, from 0."""
    lw._dest(inst, cast(_counting(lw, inst)[0], i32))


def op_smemsim_trips(lw: Lowering, inst: Inst) -> None:
    """`smemsim_trips.s32 %r` (as_built's cascades): the innermost counted loop's trip
    count."""
    lw._dest(inst, cast(_counting(lw, inst)[1], i32))


def op_smemsim_unrolled(lw: Lowering, inst: Inst) -> None:
    """`smemsim_unrolled.b32 U` (as_built): the loop's blocks of iterations, which
    _counted_loop reads; nothing to do where it stands."""


def _counting(lw: Lowering, inst: Inst):
    if not lw.counting:
        raise PtxError(f"{COUNTED_ONLY}: PTX line {inst.line}")
    return lw.counting[-1]


def op_smemsim_grid_sync(lw: Lowering, inst: Inst) -> None:
    """Cooperative groups' grid barrier (_grid_syncs): the IR's, for every thread of the
    launch (which a cooperative launch keeps resident at once)."""
    lw.k.grid_sync()


def op_setmaxnreg(lw: Lowering, inst: Inst) -> None:
    """`setmaxnreg.{inc,dec}.sync.aligned.u32 N` (warp-specialized kernels hand registers
    between warpgroups): no shared-memory request, no value; occupancy follows the
    build's register count, not this."""


def op_nanosleep(lw: Lowering, inst: Inst) -> None:
    """`__nanosleep(ns)`: time only (a spin-wait's back-off); nothing counted here
    depends on it."""


def op_call(lw: Lowering, inst: Inst) -> None:
    """`call vprintf`: printing, which nothing counted depends on; any other call (a
    function ptxas calls rather than inlines) is refused."""
    callee = next((o for o in inst.operands if not o.startswith("(")), "")
    if callee == "__assertfail":   # a failed assert(): the launch fails here
        args = [o.strip("(), ") for o in inst.operands if o.startswith("(")]
        first = (args[0].split(",")[0].strip() if args else "") or "param0"
        text = _string(lw, lw.call_args.get(first))
        lw.k.assert_(const(0, i32), text if text else
                     "assert() (a thread's condition was false)")
        return
    if callee != "vprintf":
        raise lw._refuse(inst, f"a call of {callee or 'a function'} is not lowered yet")


def _string(lw: Lowering, value) -> str | None:
    """The text of a NUL-terminated string the module initializes (an assert's
    condition, as nvcc writes it into `$str`), where `value` is its address."""
    if not isinstance(value, Address) or not isinstance(value.base, tuple) or \
            value.offset.op.name != "CONST":
        return None
    var = lw.module.consts.get(value.base[1])
    if var is None or not var.initial or var.ptype not in ("b8", "u8", "s8"):
        return None
    try:
        data = bytes(int(str(b), 0) & 0xFF for b in var.initial)[int(value.offset.arg):]
    except ValueError:
        return None
    text = data.split(b"\0")[0].decode("utf-8", "replace")
    return text if text.isprintable() else None


def op_redux(lw: Lowering, inst: Inst) -> None:
    """`redux.sync.OP.type d, a, membermask` over a full warp: a butterfly of shuffles,
    which every lane ends with the same result of."""
    op = next((p for p in inst.opcode[1:] if p in ("add", "min", "max", "and", "or",
                                                   "xor")), None)
    dtype = _TYPES.get(inst.opcode[-1])
    mask = _mask(lw, inst.operands[2], inst)
    if op is None or dtype is None or dtype.is_float or mask != 0xFFFFFFFF:
        raise lw._refuse(inst, "this form of redux is not lowered yet (a full warp's "
                               "integer add, min, max, and, or, xor is)")
    fn = {"add": lambda x, y: x + y, "min": smin, "max": smax, "and": lambda x, y: x & y,
          "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y}[op]
    v = retype(lw.integer(inst.operands[1], dtype), dtype)
    for offset in (16, 8, 4, 2, 1):
        v = retype(fn(v, retype(lw.k.shfl(v, offset, "xor"), dtype)), dtype)
    lw._dest(inst, v)


def op_shfl(lw: Lowering, inst: Inst) -> None:
    """`shfl.sync.MODE.b32 d[|p], a, b, c, mask`: c holds the segment mask and clamp
    that CUDA's width makes (`((32 - width) << 8) | clamp`); p, where the PTX keeps it,
    says whether the source lane was in range (PTX ISA's rule)."""
    mode = next((p for p in inst.opcode[1:] if p in ("up", "down", "bfly", "idx")), None)
    if mode is None or len(inst.operands) != 5:
        raise lw._refuse(inst, "this form of shfl is not lowered yet")
    dest, a, b, c, mask = inst.operands
    d, _, p = dest.partition("|")
    cv = lw.value(c, u32)
    if isinstance(cv, Address):
        raise lw._refuse(inst, "a shuffle's width is an address")
    if cv.op is Op.CONST:
        segmask, clamp = int(cv.arg) >> 8 & 0x1F, int(cv.arg) & 0x1F
        width = 32 - segmask
        if width not in (1, 2, 4, 8, 16, 32) or clamp not in (0, 31) or \
                (clamp == 0) != (mode == "up"):
            raise lw._refuse(inst, f"a shuffle with c = {int(cv.arg):#x} (not a CUDA "
                                   "width) is not lowered yet")
    else:
        # a width the kernel computes (`__shfl_up_sync(m, v, i, width)`): CUDA's
        # intrinsics make c as above; the IR checks at run time that it is a power of 2
        width = const(32, i32) - retype((retype(cv, u32) >> 8) & 0x1F, i32)
    value = lw.value(a, u32)
    if isinstance(value, Address):
        raise lw._refuse(inst, "a shuffled address is not followed yet")
    lane_arg = lw.integer(b, i32)
    out = lw.k.shfl(value, lane_arg, {"bfly": "xor"}.get(mode, mode),
                    width=width, mask=_mask(lw, mask, inst))
    lw._dest(inst, out, d)
    if p:
        lane = retype(lw.value("%laneid", u32), i32)
        w = const(width, i32) if isinstance(width, int) else width
        low = lane & ~(w - 1)   # (0 for a whole warp: lanes are < 32)
        high = low | (w - 1) if mode != "up" else low
        j = {"up": lambda: lane - lane_arg, "down": lambda: lane + lane_arg,
             "bfly": lambda: lane ^ lane_arg,
             "idx": lambda: low | (lane_arg & (width - 1))}[mode]()
        lw._dest(inst, (j >= high) if mode == "up" else (j <= high), p)


def _mask(lw: Lowering, text: str, inst: Inst):
    v = lw.value(text, u32)
    if isinstance(v, Address):
        raise lw._refuse(inst, "a lane mask that is an address")
    return int(v.arg) & 0xFFFFFFFF if v.op.name == "CONST" else retype(v, u32)


def op_vote(lw: Lowering, inst: Inst) -> None:
    mode = next((p for p in inst.opcode[1:] if p in ("ballot", "any", "all", "uni")),
                None)
    if mode not in ("ballot", "any", "all") or len(inst.operands) != 3:
        raise lw._refuse(inst, "this form of vote is not lowered yet")
    pred = lw._predicate(inst.operands[1], inst)
    out = lw.k.vote(pred, mode, mask=_mask(lw, inst.operands[2], inst))
    lw._dest(inst, out if mode == "ballot" else out != 0)


def op_match(lw: Lowering, inst: Inst) -> None:
    """`match.any.sync.b32/b64 d, a, membermask`: the lanes of the mask whose `a` equals
    this lane's (the IR's match_any vote)."""
    parts = inst.opcode[1:]
    if parts[:2] != ("any", "sync") or parts[-1] not in ("b32", "b64") or \
            len(inst.operands) != 3:
        raise lw._refuse(inst, "this form of match is not lowered yet (match.any is)")
    dtype = u64 if parts[-1] == "b64" else u32
    # (an address as a number: libcu++ matches the lanes of one pipeline by its state's)
    (value,) = lw._numbers(inst, lw.value(inst.operands[1], dtype))
    lw._dest(inst, lw.k.vote(retype(value, dtype), "match_any",
                             mask=_mask(lw, inst.operands[2], inst)))


def op_activemask(lw: Lowering, inst: Inst) -> None:
    """`activemask.b32 d`: the lanes executing it, a ballot of 1 over them (the IR's
    ACTIVE_MASK, 0)."""
    lw._dest(inst, retype(lw.k.vote(const(1, i32), "ballot", mask=0), u32))


def op_trap(lw: Lowering, inst: Inst) -> None:
    """`trap`: the kernel stops with an error, where a thread reaches it (the IR's
    `__trap()`, an assert of 0 with TRAP_TEXT)."""
    from kernels_ir.stmt import TRAP_TEXT
    lw.k.assert_(const(0, i32), TRAP_TEXT)


def op_membar(lw: Lowering, inst: Inst) -> None:
    """A fence orders memory; it makes no shared-memory request."""


def op_fence(lw: Lowering, inst: Inst) -> None:
    """As membar; `fence.proxy.async(.shared::cta)` publishes the thread's shared writes
    to TMA (the IR's fence_proxy_async); `fence.mbarrier_init` orders nothing counted."""
    parts = inst.opcode[1:]
    if parts[:2] == ("proxy", "async"):
        lw.k.fence_proxy_async()
    elif "proxy" in parts and "mbarrier_init" not in parts:
        raise lw._refuse(inst, "this proxy fence is not lowered yet")


def op_bar(lw: Lowering, inst: Inst) -> None:
    if inst.opcode[1:2] == ("warp",):       # bar.warp.sync mask: __syncwarp
        lw.k.syncwarp(_mask(lw, inst.operands[0], inst))
        return
    if inst.opcode[1:2] == ("red",):        # __syncthreads_or / _and / _count
        op = {("or", "pred"): "or", ("and", "pred"): "and",
              ("popc", "u32"): "count"}.get(tuple(inst.opcode[2:4]))
        if op is None or len(inst.operands) != 3 or inst.operands[1] != "0":
            raise lw._refuse(inst, "a named or counted reducing barrier is not "
                                   "lowered yet")
        pred = inst.operands[2]
        value = lw._predicate(pred, inst)
        got = lw.k.syncthreads_reduce(value, op)
        lw._dest(inst, got if op == "count" else got != 0)
        return
    if inst.opcode[1:2] not in (("sync",), ()) or inst.operands[:1] not in (("0",), ()):
        raise lw._refuse(inst, "a named or counted barrier is not lowered yet")
    lw.k.syncthreads()


def op_barrier(lw: Lowering, inst: Inst) -> None:
    if inst.opcode[1:2] == ("cluster",):
        _cluster_barrier(lw, inst)
        return
    op_bar(lw, inst)


def _cluster_barrier(lw: Lowering, inst: Inst) -> None:
    """`barrier.cluster.arrive` then `barrier.cluster.wait` (cooperative_groups' sync of a
    type-erased thread_group that may be a cluster group): in a launch without clusters each
    block is a cluster of one, so the pair is the block's barrier. It is taken only as nvcc
    emits it, the wait the very next instruction: between them a thread's accesses would be
    neither before nor after the barrier."""
    if lw.entry.cluster is not None:
        raise lw._refuse(inst, "a cluster barrier of a kernel launched in clusters: clusters "
                               "are not modeled (each block is analyzed alone)")
    if inst.opcode[2:3] == ("wait",):
        return   # (the barrier is its arrive's, below)
    if inst.opcode[2:3] != ("arrive",):
        raise lw._refuse(inst, "this cluster barrier is not lowered yet")
    after = next((b.insts[i + 1] if i + 1 < len(b.insts) else None
                  for b in lw.blocks.values() for i, x in enumerate(b.insts) if x is inst),
                 None)
    if after is None or after.opcode[:3] != ("barrier", "cluster", "wait"):
        raise lw._refuse(inst, "a cluster barrier's arrive not followed at once by its wait "
                               "is not lowered yet")
    lw.k.syncthreads()

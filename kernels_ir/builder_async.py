"""The builder's asynchronous copies and Hopper statements: cp.async (sm_80), TMA tensor maps
and copies, bulk copies, mbarriers and wgmma (sm_90). Each function is a method of
KernelBuilder (`k`: the builder), bound in its class body, so users call `k.tma_load(...)`.
"""
from __future__ import annotations

import math

from .dtypes import BY_NAME, f32, u32, u64
from .errors import KernelError, SourceLoc, caller_loc
from .expr import Expr, ExprLike, Op, Var, as_expr, cast
from .printer import format_expr
from .arrays import GlobalArray, LocalArray, SharedArray
from .stmt_async import (CommitGroup, CopyAsync, WaitGroup, MbarrierArrive, MbarrierInit,
                         MbarrierWait, TmaLoad, TmaStore, BulkLoad, BulkStore, BulkCommit,
                         BulkWait, FenceProxyAsync, Wgmma, WgmmaFence, WgmmaCommit, WgmmaWait)
from .wgmma import N_VALUES, GmmaDescriptor, GmmaLayout
from .tma import TensorMap, check_box, tensor_strides
from .tma import refuse as tma_refuse


def cp_async(k, dst, dst_index, src, src_index, width: int = 1,
             bypass: bool = False, src_bytes: ExprLike | None = None) -> None:
    """`cp.async.ca.shared.global` of `width` elements (4, 8 or 16 bytes) from global
    `src[src_index]` to shared `dst[dst_index]`; `bypass` is .cg (16 bytes only). The copy
    lands at a later `cp_async_wait` of this thread (after `cp_async_commit`).
    `src_bytes`: the bytes read (a whole number of elements, a thread's own), the rest
    zeroed (`cp.async ..., 16, src_size`: 0 reads nothing)."""
    loc = caller_loc()
    k._guard_condition("cp.async")
    if not isinstance(dst, SharedArray) or not isinstance(src, GlobalArray):
        raise KernelError("cp.async copies from a global array to a shared array",
                          kernel=k.name, loc=loc)
    if src.dtype != dst.dtype:
        raise KernelError(f"cp.async copies bytes: '{src.name}' is {src.dtype}, "
                          f"'{dst.name}' is {dst.dtype}", kernel=k.name, loc=loc)
    nbytes = width * dst.dtype.size if isinstance(width, int) else None
    if nbytes not in (4, 8, 16) or (bypass and nbytes != 16):
        raise KernelError(f"cp.async moves 4, 8 or 16 bytes (.cg: 16), got {width!r} x "
                          f"{dst.dtype}", kernel=k.name, loc=loc)
    k._check_layout_span(dst, nbytes, loc)
    k._emit(CopyAsync(dst, k._index(dst, dst_index, loc), src,
                      k._index(src, src_index, loc), width, bool(bypass), loc,
                      k._next_site(dst),
                      None if src_bytes is None else cast(as_expr(src_bytes), u32)))


def cp_async_commit(k) -> None:
    """`cp.async.commit_group;`"""
    k._emit(CommitGroup(caller_loc()))


def cp_async_wait(k, pending: int = 0) -> None:
    """`cp.async.wait_group pending;` (0: every committed copy has landed; libcu++'s
    pipelines wait with up to 8 pending)."""
    loc = caller_loc()
    k._emit(WaitGroup(_pending(k, "cp.async.wait_group", pending, 8, loc), loc))

# ------------------------------------------------------------ TMA and mbarriers (sm_90)


def tensor_map(k, name: str, array: GlobalArray, shape, box, swizzle: str | None = None,
               row_stride: ExprLike | None = None, strides=None) -> TensorMap:
    """A TMA tensor map over global `array` (a `const __grid_constant__ CUtensorMap`
    parameter of the generated kernel): `shape` outermost first, in elements
    (expressions of parameters), `box` the extents one copy moves, `swizzle` None or
    "SWIZZLE_32B" / "SWIZZLE_64B" / "SWIZZLE_128B", `row_stride` the elements between
    rows of a 2-D tensor (default: its inner extent), `strides` those of every dimension
    but the innermost, outermost first (the host's globalStrides, in elements; default:
    row-major). kernels_ir.tma says where a copy puts each element."""
    loc = caller_loc()
    if not isinstance(array, GlobalArray):
        raise KernelError(f"tensor map '{name}': TMA reads a global array, got {array!r}",
                          kernel=k.name, loc=loc)
    shape = (shape,) if not isinstance(shape, (tuple, list)) else tuple(shape)
    box = (box,) if not isinstance(box, (tuple, list)) else tuple(box)
    why = check_box(name, array.dtype, box, swizzle)
    if why is None and len(shape) != len(box):
        why = f"the tensor has {len(shape)} dimension(s) but the box {len(box)}"
    if why is None and row_stride is not None and len(shape) != 2:
        why = "row_stride applies to a 2-D tensor (give strides for more)"
    if why is None and strides is not None and len(strides) != len(shape) - 1:
        why = (f"a {len(shape)}-D tensor takes {len(shape) - 1} stride(s) (every "
               f"dimension but the innermost), got {len(strides)}")
    if why is not None:
        raise tma_refuse(name, why, k.name, loc)
    shape = tuple(as_expr(e) for e in shape)
    if strides is None and row_stride is not None:
        strides = [row_stride]
    strides = tuple(as_expr(e) for e in tensor_strides(shape, strides))
    for e in shape + strides:
        if e.dtype.is_float:
            raise tma_refuse(name, "extents and strides must be integers", k.name, loc)
    from .builder import _check_c_name   # (builder binds these functions: no cycle here)
    _check_c_name(name, "tensor map name", k.name)
    return TensorMap(k._unique_decl(name), array, shape, strides, box, swizzle)


def _barrier(k, barrier, index, loc: SourceLoc) -> tuple[Expr, ...]:
    if not isinstance(barrier, SharedArray) or barrier.dtype.size != 8 \
            or barrier.dtype.is_float or barrier.layout is not None:
        raise KernelError("an mbarrier is a 64-bit integer element of a shared array "
                          f"without a layout (`__shared__ uint64_t bar[n];`), got "
                          f"{barrier!r}", kernel=k.name, loc=loc)
    return k._index(barrier, index, loc)


def tma_load(k, tensor_map: TensorMap, dst: SharedArray, dst_index, coords,
             barrier: SharedArray, barrier_index=0) -> None:
    """Each executing thread copies the box of `tensor_map` at `coords` (outermost first,
    elements) to shared memory from `dst[dst_index]` (128-byte aligned); the bytes count
    toward `barrier[barrier_index]`'s transactions and may be read once a wait has seen
    that barrier's phase complete."""
    loc = caller_loc()
    k._guard_condition("a TMA copy")
    coords = _tma_operands(k, "tma_load", tensor_map, dst, coords, loc)
    k._emit(TmaLoad(dst, k._index(dst, dst_index, loc), tensor_map, coords, barrier,
                    _barrier(k, barrier, barrier_index, loc), 1, loc,
                    k._next_site(dst)))


def _tma_operands(k, what: str, tensor_map, tile, coords, loc: SourceLoc):
    if not isinstance(tensor_map, TensorMap):
        raise KernelError(f"{what} needs a tensor map (k.tensor_map), got {tensor_map!r}",
                          kernel=k.name, loc=loc)
    if not isinstance(tile, SharedArray):
        raise KernelError(f"{what}'s tile is a shared array", kernel=k.name, loc=loc)
    if tile.dtype.size != tensor_map.dtype.size:
        raise KernelError(f"{what} moves {tensor_map.dtype} elements, '{tile.name}' holds "
                          f"{tile.dtype}: declare the tile with the tensor's element size",
                          kernel=k.name, loc=loc)
    coords = coords if isinstance(coords, (tuple, list)) else (coords,)
    if len(coords) != tensor_map.rank:
        raise KernelError(f"tensor map '{tensor_map.name}' has {tensor_map.rank} "
                          f"dimension(s) but the copy gives {len(coords)} coordinate(s)",
                          kernel=k.name, loc=loc)
    coords = tuple(as_expr(c) for c in coords)
    if any(c.dtype.is_float for c in coords):
        raise KernelError("TMA coordinates must be integers", kernel=k.name, loc=loc)
    return coords


def tma_store(k, tensor_map: TensorMap, src: SharedArray, src_index, coords) -> None:
    """Each executing thread copies the box at `src[src_index]` (128-byte aligned, laid
    out as a TMA load would write it) to the tensor at `coords`. Shared writes must be
    published first (`fence_proxy_async`, then a barrier for other threads' writes);
    the tile may be written again after `bulk_commit` and `bulk_wait(read=True)`."""
    loc = caller_loc()
    k._guard_condition("a TMA copy")
    coords = _tma_operands(k, "tma_store", tensor_map, src, coords, loc)
    k._emit(TmaStore(src, k._index(src, src_index, loc), tensor_map, coords, 1, loc,
                     k._next_site(src)))


def _bulk_bytes(k, nbytes, loc: SourceLoc) -> int:
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 16 \
            or nbytes % 16:
        raise KernelError(f"a bulk copy moves a positive multiple of 16 bytes, got "
                          f"{nbytes!r}", kernel=k.name, loc=loc)
    return nbytes


def bulk_load(k, dst: SharedArray, dst_index, src: GlobalArray, src_index, nbytes: int,
              barrier: SharedArray, barrier_index=0) -> None:
    """`cp.async.bulk` of `nbytes` (a multiple of 16; both ends 16-byte aligned) from
    global `src[src_index]` to `dst[dst_index]`, completing on the mbarrier."""
    loc = caller_loc()
    k._guard_condition("a bulk copy")
    if not isinstance(dst, SharedArray) or not isinstance(src, GlobalArray):
        raise KernelError("bulk_load copies from a global array to a shared array",
                          kernel=k.name, loc=loc)
    k._emit(BulkLoad(dst, k._index(dst, dst_index, loc), src,
                     k._index(src, src_index, loc), _bulk_bytes(k, nbytes, loc),
                     barrier, _barrier(k, barrier, barrier_index, loc), 1, loc,
                     k._next_site(dst)))


def bulk_store(k, dst: GlobalArray, dst_index, src: SharedArray, src_index,
               nbytes: int) -> None:
    """`cp.async.bulk` of `nbytes` from `src[src_index]` to global `dst[dst_index]`, in
    the thread's bulk group (as tma_store)."""
    loc = caller_loc()
    k._guard_condition("a bulk copy")
    if not isinstance(src, SharedArray) or not isinstance(dst, GlobalArray):
        raise KernelError("bulk_store copies from a shared array to a global array",
                          kernel=k.name, loc=loc)
    if dst.intent == "in":
        raise KernelError(f"'{dst.name}' is an input (intent 'in'): bulk_store writes it",
                          kernel=k.name, loc=loc)
    k._emit(BulkStore(src, k._index(src, src_index, loc), dst,
                      k._index(dst, dst_index, loc), _bulk_bytes(k, nbytes, loc),
                      1, loc, k._next_site(src)))


def bulk_commit(k) -> None:
    """`cp.async.bulk.commit_group;`"""
    k._emit(BulkCommit(caller_loc()))


def bulk_wait(k, pending: int = 0, read: bool = True) -> None:
    """`cp.async.bulk.wait_group.read pending;` (`read=False`: `wait_group`, the copies
    complete, not only their reads of shared memory)."""
    loc = caller_loc()
    k._emit(BulkWait(_pending(k, "cp.async.bulk.wait_group", pending, 63, loc),
                     bool(read), loc))


def fence_proxy_async(k) -> None:
    """`fence.proxy.async.shared::cta;`: publish this thread's shared writes to TMA."""
    k._emit(FenceProxyAsync(caller_loc()))


def wgmma(k, acc: LocalArray, a, b, n: int, scale_d: ExprLike = 1,
          acc_index=()) -> None:
    """`wgmma.mma_async.m64n{n}k16` with f32 accumulators `acc` (a register array of
    n / 2) and A, B in shared memory: `a` and `b` are (array, start index, GmmaLayout),
    what each descriptor says; `a` may instead be a register array of 4 u32 holding A's
    fragment two 16-bit elements (B's type) each, the lower in the low half (element j
    of thread t is A(16 (t / 32) + t % 32 / 4 + 8 (j / 2 % 2), 2 (t % 4) + j % 2 + 8 (j /
    4))). acc = acc * scale_d + A (64 x 16) B (n x 16)^T; every
    thread of each executing warpgroup must execute it. `acc_index` (leading indices)
    picks a sub-array of acc of n / 2 elements as the accumulators. An operand may
    instead be (array, GmmaDescriptor(value, major)): the descriptor the kernel computes
    at run time (a u64 expression, as compiled programs hold it), the array giving the
    element type (a view of the shared memory the descriptor points into)."""
    loc = caller_loc()
    k._guard_condition("wgmma")
    if isinstance(n, bool) or n not in N_VALUES:
        raise KernelError(f"wgmma's n is a multiple of 8 in 8..256, got {n!r}",
                          kernel=k.name, loc=loc)
    acc_index = tuple(acc_index) if isinstance(acc_index, (tuple, list)) else (acc_index,)
    if not isinstance(acc, LocalArray) or acc.dtype != f32 \
            or len(acc_index) >= len(acc.shape) \
            or math.prod(acc.shape[len(acc_index):]) != n // 2:
        raise KernelError(f"wgmma m64n{n}k16 accumulates into a float register array of "
                          f"{n // 2} elements (k.local_array(..., 'f32', {n // 2})), got "
                          f"{acc!r}", kernel=k.name, loc=loc)
    operands = []
    descriptors = []
    regs = None
    if isinstance(a, LocalArray):
        if a.dtype.name != "u32" or math.prod(a.shape) != 4:
            raise KernelError(f"wgmma's A from registers is a register array of 4 u32, "
                              f"each two 16-bit elements of wgmma's A fragment (the lower "
                              f"in the low half), got {a!r}", kernel=k.name, loc=loc)
        regs, a = a, None
    for name, operand in (("a", a), ("b", b)):
        if operand is None:
            operands.append((None, (), None))
            descriptors.append(None)
            continue
        if isinstance(operand, tuple) and len(operand) == 2 and \
                isinstance(operand[1], GmmaDescriptor):
            array, d = operand
            if not isinstance(array, SharedArray) or array.dtype.name not in ("f16", "bf16"):
                raise KernelError(f"wgmma's {name} is read as a shared array of f16 or "
                                  f"bf16, got {array!r}", kernel=k.name, loc=loc)
            if d.major not in ("K", "MN"):
                raise KernelError(f"wgmma's {name}: major must be 'K' or 'MN', got "
                                  f"{d.major!r}", kernel=k.name, loc=loc)
            value = as_expr(d.value)
            if value.dtype.is_float:
                raise KernelError(f"wgmma's {name} descriptor is a 64-bit integer, got "
                                  f"{format_expr(value)}", kernel=k.name, loc=loc)
            operands.append((array, (), GmmaLayout(d.major, None, 0, 0)))
            descriptors.append(cast(value, u64))
            continue
        descriptors.append(None)
        if not isinstance(operand, tuple) or len(operand) != 3:
            raise KernelError(f"wgmma's {name} is (shared array, start index, GmmaLayout), "
                              f"got {operand!r}", kernel=k.name, loc=loc)
        array, index, layout = operand
        if not isinstance(array, SharedArray) or array.dtype.name not in ("f16", "bf16"):
            raise KernelError(f"wgmma's {name} is a shared array of f16 or bf16, got "
                              f"{array!r}", kernel=k.name, loc=loc)
        why = layout.why_not() if isinstance(layout, GmmaLayout) else \
            f"a GmmaLayout(major, swizzle, lbo, sbo), got {layout!r}"
        if why is not None:
            raise KernelError(f"wgmma's {name}: {why}", kernel=k.name, loc=loc)
        operands.append((array, k._index(array, index, loc), layout))
    (a_array, a_index, a_layout), (b_array, b_index, b_layout) = operands
    if regs is None and a_array.dtype != b_array.dtype:
        raise KernelError(f"wgmma multiplies one input type: A is {a_array.dtype}, B is "
                          f"{b_array.dtype}", kernel=k.name, loc=loc)
    lead = tuple(as_expr(e) for e in acc_index)
    for e, extent in zip(lead, acc.shape):
        if e.op is Op.CONST and not 0 <= e.arg < extent:
            raise KernelError(f"wgmma's accumulators {acc.name}{list(acc_index)}: index "
                              f"{e.arg} is outside 0..{extent - 1}",
                              kernel=k.name, loc=loc)
    k._emit(Wgmma(b_array, b_index, b_layout, a_array, a_index, a_layout, acc, regs, n,
                  as_expr(scale_d), 1, loc, k._next_site(b_array), lead,
                  descriptors[1], descriptors[0]))


def wgmma_fence(k) -> None:
    """`wgmma.fence.sync.aligned;` (before the first wgmma, and after writing its
    accumulators or operands)."""
    k._emit(WgmmaFence(caller_loc()))


def wgmma_commit(k) -> None:
    """`wgmma.commit_group.sync.aligned;`"""
    k._emit(WgmmaCommit(caller_loc()))


def wgmma_wait(k, pending: int = 0) -> None:
    """`wgmma.wait_group.sync.aligned pending;`"""
    loc = caller_loc()
    k._emit(WgmmaWait(_pending(k, "wgmma.wait_group", pending, 7, loc), loc))


def mbarrier_init(k, barrier: SharedArray, index, count: ExprLike) -> None:
    """`mbarrier.init`: the barrier's phases complete after `count` arrivals (and their
    expected transaction bytes)."""
    loc = caller_loc()
    k._emit(MbarrierInit(barrier, _barrier(k, barrier, index, loc), as_expr(count), loc))


def mbarrier_arrive(k, barrier: SharedArray, index=0,
                    expect_tx: ExprLike | None = None, token: str | None = None):
    """`mbarrier.arrive` (with `expect_tx`: `.expect_tx`, raising the bytes the phase waits
    for before arriving); with `token` (a name), returns a u64 local holding the phase
    arrived on (`mbarrier_wait(..., parity=token & 1)` waits for it), else None."""
    loc = caller_loc()
    var = None if token is None else Var(k._fresh(token), BY_NAME["u64"], "load")
    k._emit(MbarrierArrive(barrier, _barrier(k, barrier, index, loc),
                           None if expect_tx is None else as_expr(expect_tx), loc,
                           token=var))
    from .builder import ReadOnlyRef   # (as in tensor_map)
    return None if var is None else ReadOnlyRef(Op.VAR, var.dtype, (), var)


def mbarrier_expect_tx(k, barrier: SharedArray, index, nbytes: ExprLike) -> None:
    """`mbarrier.expect_tx`: raise the bytes the barrier's phase waits for, without
    arriving (libcu++'s `cuda::device::barrier_expect_tx`)."""
    loc = caller_loc()
    k._emit(MbarrierArrive(barrier, _barrier(k, barrier, index, loc),
                           as_expr(nbytes), loc, "expect_tx"))


def cp_async_arrive(k, barrier: SharedArray, index=0) -> None:
    """`cp.async.mbarrier.arrive.shared::cta.b64`: the thread's cp.async copies issued so
    far complete on the barrier's current phase (which then waits for them too)."""
    loc = caller_loc()
    k._emit(MbarrierArrive(barrier, _barrier(k, barrier, index, loc), None, loc,
                           "cp_async"))


def mbarrier_wait(k, barrier: SharedArray, index=0, parity: ExprLike = 0) -> None:
    """Wait (`mbarrier.try_wait.parity` in a loop) until the phase of `parity` completed."""
    loc = caller_loc()
    k._guard_condition("an mbarrier wait")
    k._emit(MbarrierWait(barrier, _barrier(k, barrier, index, loc), as_expr(parity),
                         loc))


def _pending(k, what: str, pending, most: int, loc: SourceLoc) -> int:
    """A wait_group's count of groups left pending: an int 0..most."""
    if isinstance(pending, bool) or not isinstance(pending, int) or \
            not 0 <= pending <= most:
        raise KernelError(f"{what} takes 0..{most}, got {pending!r}", kernel=k.name,
                          loc=loc)
    return pending

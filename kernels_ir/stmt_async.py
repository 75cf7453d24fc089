"""The asynchronous statements: cp.async and its groups, TMA and bulk copies, mbarriers, and wgmma
with its fence, commit and wait (Hopper's tensor cores read shared memory asynchronously too)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from .arrays import LocalArray, MemArray
from .errors import SourceLoc
from .expr import Expr, Var
from .stmt import Access, Stmt, walk

if TYPE_CHECKING:  # annotations only
    from .kernel import Kernel
    from .tma import TensorMap
    from .wgmma import GmmaLayout


@dataclass(frozen=True, eq=False)
class CopyAsync(Access):
    """`cp.async.ca/cg.shared.global [array + index], [src + src_index], bytes`: a copy from
    global to shared memory that lands later. The bytes may be read only after the issuing
    thread's `cp.async.wait_group` has covered the copy's group (and, for other threads, a
    barrier after that). `bypass` is .cg (16 bytes, not cached in L1). `src_bytes` (the
    PTX's src-size): the bytes read from `src`, the rest of the copy zeros (None: all; 0:
    none, and `src` is not read: a masked load of Triton's, whose address may be outside
    the array)."""
    array: MemArray
    index: tuple[Expr, ...]
    src: MemArray
    src_index: tuple[Expr, ...]
    width: int
    bypass: bool
    loc: SourceLoc
    site: int | None
    src_bytes: Expr | None = None
    EXPRS: ClassVar = ("index", "src_index", "src_bytes")
    WRITES: ClassVar = True
    MIN_SM: ClassVar = 80

    @property
    def op(self) -> str:
        """cp_async, or cp_async_bypass for .cg."""
        return "cp_async_bypass" if self.bypass else "cp_async"


@dataclass(frozen=True, eq=False)
class CommitGroup(Stmt):
    """`cp.async.commit_group`: the thread's copies issued since the last commit form a group."""
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class WaitGroup(Stmt):
    """`cp.async.wait_group n`: the thread's committed groups but the newest `n` complete."""
    pending: int
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class TmaLoad(Access):
    """`cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes`: each
    executing thread copies the box of `tensor_map` at `coords` (outermost first, elements;
    outside the tensor reads zeros) to shared memory from `array[index]`, laid out as
    kernels_ir.tma describes; the copy's bytes count toward the transactions of the mbarrier
    at `barrier[barrier_index]` and land when that barrier's phase completes and is waited
    for. Counted by Nsight as TMA work, never as LSU wavefronts."""
    array: MemArray
    index: tuple[Expr, ...]
    tensor_map: TensorMap
    coords: tuple[Expr, ...]
    barrier: MemArray
    barrier_index: tuple[Expr, ...]
    width: int
    loc: SourceLoc
    site: int | None
    EXPRS: ClassVar = ("index", "coords", "barrier_index")
    WRITES: ClassVar = True
    MIN_SM: ClassVar = 90
    OP: ClassVar = "tma_load"
    BULK: ClassVar = True

    @property
    def access_bytes(self) -> int:
        """Bytes one copy delivers (the box)."""
        return self.tensor_map.box_bytes

    def address_exprs(self) -> tuple[Expr, ...]:
        """The destination and the barrier decide which shared bytes the copy touches."""
        return self.index + self.barrier_index


@dataclass(frozen=True, eq=False)
class TmaStore(Access):
    """`cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group`: each executing thread copies
    the box at `array[index]` (laid out as kernels_ir.tma describes) to `tensor_map`'s tensor
    at `coords` (elements outside the tensor are not written). The async proxy reads the
    shared bytes until the thread's `bulk_wait(read=True)` covers the copy's bulk group, and
    sees only what a `fence_proxy_async` published."""
    array: MemArray
    index: tuple[Expr, ...]
    tensor_map: TensorMap
    coords: tuple[Expr, ...]
    width: int
    loc: SourceLoc
    site: int | None
    EXPRS: ClassVar = ("index", "coords")
    WRITES: ClassVar = False
    MIN_SM: ClassVar = 90
    OP: ClassVar = "tma_store"
    BULK: ClassVar = True

    @property
    def access_bytes(self) -> int:
        """Bytes one copy moves (the box)."""
        return self.tensor_map.box_bytes


@dataclass(frozen=True, eq=False)
class BulkLoad(Access):
    """`cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`: each executing
    thread copies `nbytes` contiguous bytes from global `src[src_index]` to `array[index]`;
    they count toward the mbarrier's transactions and land as a TMA load's do."""
    array: MemArray
    index: tuple[Expr, ...]
    src: MemArray
    src_index: tuple[Expr, ...]
    nbytes: int
    barrier: MemArray
    barrier_index: tuple[Expr, ...]
    width: int
    loc: SourceLoc
    site: int | None
    EXPRS: ClassVar = ("index", "src_index", "barrier_index")
    WRITES: ClassVar = True
    MIN_SM: ClassVar = 90
    OP: ClassVar = "bulk_load"
    BULK: ClassVar = True

    @property
    def access_bytes(self) -> int:
        """Bytes one copy delivers."""
        return self.nbytes

    def address_exprs(self) -> tuple[Expr, ...]:
        """The destination and the barrier decide which shared bytes the copy touches."""
        return self.index + self.barrier_index


@dataclass(frozen=True, eq=False)
class BulkStore(Access):
    """`cp.async.bulk.global.shared::cta.bulk_group`: each executing thread copies `nbytes`
    contiguous bytes from `array[index]` to global `dst[dst_index]`; read as a TMA store's
    source is."""
    array: MemArray
    index: tuple[Expr, ...]
    dst: MemArray
    dst_index: tuple[Expr, ...]
    nbytes: int
    width: int
    loc: SourceLoc
    site: int | None
    EXPRS: ClassVar = ("index", "dst_index")
    WRITES: ClassVar = False
    MIN_SM: ClassVar = 90
    OP: ClassVar = "bulk_store"
    BULK: ClassVar = True

    @property
    def access_bytes(self) -> int:
        """Bytes one copy moves."""
        return self.nbytes


@dataclass(frozen=True, eq=False)
class BulkCommit(Stmt):
    """`cp.async.bulk.commit_group`: the thread's bulk stores since the last commit form a
    group."""
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class BulkWait(Stmt):
    """`cp.async.bulk.wait_group[.read] n`: the thread's committed bulk groups but the newest
    `n` have read their shared source (`read`) or completed."""
    pending: int
    read: bool
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class FenceProxyAsync(Stmt):
    """`fence.proxy.async.shared::cta`: the executing thread's earlier shared writes become
    visible to the async proxy (a TMA store's reads)."""
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class Wgmma(Access):
    """`wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}` with A and B in shared memory:
    a warpgroup (4 consecutive warps, all of them executing) multiplies A (64 x 16, from
    `a_array[a_index]` laid out as `a_layout`) by B (N x 16, from `array[index]` laid out
    as `layout`) into its f32 accumulators `acc` (n / 2 per thread, in wgmma's D fragment),
    `acc = acc * scale_d + A B^T`. Both operands are read through descriptors
    (kernels_ir.wgmma); the site is B's, and counts the operands' bytes / 128 wavefronts.
    `acc_index` selects a sub-array of `acc` by its leading indices (`d[m]` of `float
    d[2][8][8]`: the accumulators are its trailing n / 2 elements). Where `desc` (B's) or
    `a_desc` (A's) is set, that operand is read through the 64-bit descriptor the kernel
    computes at run time (kernels_ir.wgmma.GmmaDescriptor): its start address, LBO, SBO,
    base offset and swizzle are the value's bits, read per warpgroup, the array is only the
    element type and the name (its index is empty), and of the layout only `major` holds."""
    array: MemArray
    index: tuple[Expr, ...]
    layout: GmmaLayout
    a_array: MemArray
    a_index: tuple[Expr, ...]
    a_layout: GmmaLayout
    acc: LocalArray
    a_regs: LocalArray | None    # A from registers (8 elements a thread): a_array is None
    n: int
    scale_d: Expr
    width: int
    loc: SourceLoc
    site: int | None
    acc_index: tuple[Expr, ...] = ()
    desc: Expr | None = None      # B's run-time descriptor (u64), or None
    a_desc: Expr | None = None    # A's
    EXPRS: ClassVar = ("index", "a_index", "scale_d", "acc_index", "desc", "a_desc")
    WRITES: ClassVar = False
    MIN_SM: ClassVar = 90
    OP: ClassVar = "wgmma"
    GMMA: ClassVar = True

    @property
    def access_bytes(self) -> int:
        """Bytes of A (when in shared memory) and B one instruction reads (a warpgroup's)."""
        size = self.array.dtype.size
        return ((0 if self.a_regs is not None else 64) + self.n) * 16 * size

    def address_exprs(self) -> tuple[Expr, ...]:
        """Both operands' start elements (or run-time descriptors) decide what is read."""
        return self.index + self.a_index + tuple(
            d for d in (self.desc, self.a_desc) if d is not None)

    def updates(self) -> tuple:
        return (self.acc,)


@dataclass(frozen=True, eq=False)
class WgmmaFence(Stmt):
    """`wgmma.fence.sync.aligned`: order register and shared accesses before the warpgroup's
    next wgmma."""
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class WgmmaCommit(Stmt):
    """`wgmma.commit_group.sync.aligned`: the warpgroup's wgmmas since the last commit form a
    group."""
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class WgmmaWait(Stmt):
    """`wgmma.wait_group.sync.aligned n`: the warpgroup's groups but the newest `n` are done
    (their accumulators may be read, their shared operands written)."""
    pending: int
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class MbarrierInit(Stmt):
    """`mbarrier.init.shared::cta.b64 [barrier + index], count`: a barrier whose phase
    completes when `count` arrivals have come and its transaction count is back to 0."""
    array: MemArray
    index: tuple[Expr, ...]
    count: Expr
    loc: SourceLoc
    EXPRS: ClassVar = ("index", "count")


@dataclass(frozen=True, eq=False)
class MbarrierArrive(Stmt):
    """An operation of each executing thread on an mbarrier's current phase, by `kind`:
    "arrive", `mbarrier.arrive[.expect_tx].shared::cta.b64` (arrives once, first raising the
    expected transaction bytes by `expect_tx`; None: a plain arrive); "expect_tx",
    `mbarrier.expect_tx` (raises them without arriving); "cp_async",
    `cp.async.mbarrier.arrive.shared::cta.b64` (the thread's cp.async copies issued so far
    complete on the barrier: it counts one more pending arrival now and makes it when they
    have landed, so the phase completes only after them; how libcu++'s
    `cuda::memcpy_async(..., barrier)` of 4- or 8-byte aligned pieces completes).

    `token` (an "arrive" only): a u64 variable that receives the number of the phase the
    thread arrived on (PTX's opaque `state`, `cuda::barrier::arrive()`'s token): a wait for
    that phase is a wait of parity `token & 1`."""
    array: MemArray
    index: tuple[Expr, ...]
    expect_tx: Expr | None
    loc: SourceLoc
    kind: str = "arrive"
    token: Var | None = None
    EXPRS: ClassVar = ("index", "expect_tx")

    def declares(self) -> tuple:
        return (self.token,) if self.token is not None else ()


@dataclass(frozen=True, eq=False)
class MbarrierWait(Stmt):
    """`mbarrier.try_wait.parity.shared::cta.b64` in a loop: each executing thread waits until
    the barrier's phase of parity `parity` (0 or 1) has completed."""
    array: MemArray
    index: tuple[Expr, ...]
    parity: Expr
    loc: SourceLoc
    EXPRS: ClassVar = ("index", "parity")


MBARRIER_ARRIVALS = ("arrive", "expect_tx", "cp_async")   # MbarrierArrive's kinds


MBARRIER_OPS = (MbarrierInit, MbarrierArrive, MbarrierWait)


# statements that order asynchronous bulk copies (the check's shared run keeps them)
BULK_ORDER_OPS = MBARRIER_OPS + (BulkCommit, BulkWait, FenceProxyAsync, WgmmaFence,
                                  WgmmaCommit, WgmmaWait)


def tensor_maps(kernel: Kernel) -> tuple[TensorMap, ...]:
    """The tensor maps a kernel's TMA copies use, in order of first use (each is a kernel
    parameter of the generated CUDA, after the scalars and arrays)."""
    out: dict[int, TensorMap] = {}
    for s in walk(kernel.body):
        if isinstance(s, (TmaLoad, TmaStore)):
            out.setdefault(id(s.tensor_map), s.tensor_map)
    return tuple(out.values())

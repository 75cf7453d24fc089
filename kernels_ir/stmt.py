"""Statements, array declarations and the Kernel: what a kernel is made of.

Arrays are declarations with identity (two arrays may share a name only by mistake, which the
checks reject). Statements are frozen nodes that remember the Python line that made them.
Loads and stores of shared memory are *access sites*: each has a `site` number, stable for
the kernel, that the analyses and reports use.
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, ClassVar, Iterator, Union

from .dtypes import DType
from .errors import KernelError, SourceLoc
from .expr import Expr, Op, Var, as_expr

if TYPE_CHECKING:  # annotations only
    from .tma import TensorMap
    from .wgmma import GmmaLayout

_uids = itertools.count(1)


class ScalarParam:
    """A scalar launch parameter (an `int n` or `float alpha` in the kernel's signature)."""

    def __init__(self, name: str, dtype: DType):
        self.name, self.dtype, self.uid = name, dtype, next(_uids)
        self.expr = Expr(Op.PARAM, dtype, (), name)

    def __repr__(self) -> str:
        return f"ScalarParam({self.name}: {self.dtype})"


class _Indexable:
    """`a[i, j]` loads (emitting a statement into the kernel being built); `a[i, j] = v` stores."""

    _builder = None  # set by the KernelBuilder that declared the array
    name: str

    def __getitem__(self, index):
        return self._require_builder().load(self, index)

    def __setitem__(self, index, value):
        self._require_builder().store(self, index, value)

    def load(self, index, width: int = 1, name: str | None = None):
        """Load `width` consecutive elements starting at `index` (a vector access if > 1)."""
        return self._require_builder().load(self, index, width=width, name=name)

    def store(self, index, value, width: int = 1) -> None:
        """Store `width` consecutive elements starting at `index`."""
        self._require_builder().store(self, index, value, width=width)

    def _require_builder(self):
        if self._builder is None or self._builder._built:
            raise KernelError(f"array '{self.name}' belongs to a kernel that is already built; "
                              "loads and stores can only be added while building")
        return self._builder


class GlobalArray(_Indexable):
    """A global-memory array parameter (a pointer), indexed flat like C: `A[row * n + col]`.
    `initial`: the values it holds unless the caller gives it (a CUDA file's initialized
    `__constant__` table), else None (seeded random inputs). `base`: for a view (the same
    bytes read as another element type, `(unsigned*)scratch` over a float array), the array
    it views; a view is no parameter of the kernel (not in Kernel.globals)."""

    INTENTS = ("in", "out", "inout")

    def __init__(self, name: str, dtype: DType, length: Expr, intent: str,
                 initial: tuple | None = None, base: "GlobalArray | None" = None):
        if intent not in self.INTENTS:
            raise KernelError(f"global array '{name}': intent must be one of {self.INTENTS}, "
                              f"got {intent!r}")
        self.name, self.dtype, self.length, self.intent = name, dtype, length, intent
        self.initial, self.base = initial, base
        # what a CUDA file read through a texture says of the reads (a note for people)
        self.texture: str | None = None
        # the element type the source declares its pointer with, where the array is its
        # bytes (a kernel read from PTX): how people read its values
        self.declared: DType | None = None
        self.uid = next(_uids)
        self.shape = (length,)

    @property
    def rank(self) -> int:
        """Number of index dimensions (always 1: global arrays are flat)."""
        return 1

    def __repr__(self) -> str:
        return f"GlobalArray({self.name}: {self.dtype}[{self.length!r}], {self.intent})"


class SharedBuffer:
    """A block of shared memory: static (`__shared__ T a[..]`) or the launch's dynamic one.

    A `volatile` buffer's every access stays in the generated CUDA (warp-synchronous code
    that reads what other lanes wrote needs that: the compiler would keep values in
    registers otherwise)."""

    def __init__(self, name: str, nbytes: int | None, align: int, dynamic: bool,
                 volatile: bool = False):
        self.name, self.nbytes, self.align, self.dynamic = name, nbytes, align, dynamic
        self.volatile = volatile
        self.uid = next(_uids)
        self.views: list[SharedArray] = []


class SharedArray(_Indexable):
    """A typed view of a shared buffer with a shape and optional padding of its rows.

    Element (i0, ..., ik) lives at byte `sum(i * stride) * dtype.size` from the buffer's start;
    the innermost row holds `shape[-1] + pad` elements, so `pad` shifts successive rows across
    banks. A dynamic view's leading extent may be None: it spans the launch's dynamic memory.
    A `layout` (kernels_ir.layout.Swizzle) places the element at flat offset f at
    `layout.apply(f)` instead; indices stay logical.
    """

    def __init__(self, name: str, buffer: SharedBuffer, dtype: DType,
                 shape: tuple[int | None, ...], pad: int, layout=None):
        self.name, self.buffer, self.dtype, self.shape, self.pad = name, buffer, dtype, shape, pad
        self.layout = layout
        self.uid = next(_uids)
        # the source's `__shared__` variable this view reads, where a frontend knows it (a
        # view of nvcc's build of a `.cu`: the declaration `fix` edits); None otherwise
        self.variable: str | None = None
        self.variable_at: int | None = None   # that variable's first byte in the buffer
        self.variable_bytes: int | None = None   # and its size (None: to the buffer's end)
        buffer.views.append(self)

    @property
    def rank(self) -> int:
        """Number of index dimensions."""
        return len(self.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        """Element strides of each dimension, padding included."""
        out, acc = [], 1
        for dim in reversed(range(self.rank)):
            out.append(acc)
            extent = self.shape[dim]
            if dim == self.rank - 1 and extent is not None:
                extent += self.pad
            acc *= extent if extent is not None else 1
        return tuple(reversed(out))

    def flat_index(self, index) -> Expr:
        """The element offset of `index` from the view's start (padding included): what a
        layout swizzles, and how a swizzled view is indexed in CUDA."""
        flat = None
        for i, stride in zip(index, self.strides):
            term = i if stride == 1 else i * stride
            flat = term if flat is None else flat + term
        return as_expr(flat)

    @property
    def static_bytes(self) -> int | None:
        """Bytes the view spans including padding, None for an unbounded dynamic view."""
        if any(e is None for e in self.shape):
            return None
        padded = list(self.shape)
        padded[-1] += self.pad
        return math.prod(padded) * self.dtype.size

    def __repr__(self) -> str:
        dims = "".join(f"[{'' if e is None else e}]" for e in self.shape)
        pad = f" pad {self.pad}" if self.pad else ""
        layout = f" {self.layout.label}" if self.layout else ""
        return f"SharedArray({self.name}: {self.dtype}{dims}{pad}{layout})"


class LocalArray:
    """A per-thread register array (`float acc[8][8];`), zero-initialized where declared."""

    def __init__(self, name: str, dtype: DType, shape: tuple[int, ...]):
        self.name, self.dtype, self.shape = name, dtype, shape
        self.uid = next(_uids)
        self._builder = None

    @property
    def rank(self) -> int:
        """Number of index dimensions."""
        return len(self.shape)

    def __getitem__(self, index) -> Expr:
        return self._builder.read_local(self, index)

    def __setitem__(self, index, value) -> None:
        self._builder.write_local(self, index, value)

    def __repr__(self) -> str:
        return f"LocalArray({self.name}: {self.dtype}{list(self.shape)})"


MemArray = Union[GlobalArray, SharedArray]


# ------------------------------------------------------------------ statements
#
# Every statement describes itself through the small protocol of `Stmt`: the expressions it
# evaluates, the statement lists nested in it, what it declares or updates, and (for memory
# accesses) its array, index and site. Walkers, rewriters, scope checks and the analyses'
# slicing are written once against that protocol; the printer, the interpreter and the code
# generator dispatch on the class through tables that raise `unsupported()` for a class they
# do not know. docs/extending.md lists what a new statement kind touches.


class Stmt:
    """The protocol every statement follows (subclasses are frozen dataclasses with `loc`).

    `EXPRS` names the fields that hold an expression or a tuple of expressions, in the order
    they are evaluated (a field that may instead hold a compile-time int, a shuffle's
    width or mask, is skipped while it does); `BODIES` the fields that hold nested statement
    tuples.
    """

    EXPRS: ClassVar[tuple[str, ...]] = ()
    BODIES: ClassVar[tuple[str, ...]] = ()
    # the values it defines come from memory (a load), not from expressions
    FROM_MEMORY: ClassVar[bool] = False
    loc: SourceLoc

    def exprs(self) -> tuple[Expr, ...]:
        """The expressions this statement evaluates (not those of nested statements)."""
        out: list[Expr] = []
        for name in self.EXPRS:
            value = getattr(self, name)
            if value is not None and not isinstance(value, int):  # absent, or an int
                out.extend(value if isinstance(value, tuple) else (value,))
        return tuple(out)

    def bodies(self) -> tuple[tuple["Stmt", ...], ...]:
        """The statement lists nested in this one (a loop's body, an if's two branches)."""
        return tuple(getattr(self, name) for name in self.BODIES)

    def rebuild(self, expr: Callable[[Expr], Expr] | None = None,
                body: Callable[[tuple], tuple] | None = None) -> "Stmt":
        """A copy with every expression through `expr` and every body through `body`.

        Returns `self` when nothing changes, so identity-keyed tables stay valid.
        """
        changes = {}
        if expr is not None:
            for name in self.EXPRS:
                value = getattr(self, name)
                if value is None or isinstance(value, int):
                    continue
                new = tuple(expr(e) for e in value) if isinstance(value, tuple) else expr(value)
                same = all(a is b for a, b in zip(new, value)) if isinstance(value, tuple) \
                    else new is value
                if not same:
                    changes[name] = new
        if body is not None:
            for name in self.BODIES:
                value = getattr(self, name)
                new = tuple(body(value))
                if len(new) != len(value) or any(a is not b for a, b in zip(new, value)):
                    changes[name] = new
        return replace(self, **changes) if changes else self

    def declares(self) -> tuple:
        """Variables or register arrays that come into scope after this statement."""
        return ()

    def updates(self) -> tuple:
        """Variables or register arrays, already in scope, whose value this statement changes."""
        return ()

    def scoped(self) -> tuple:
        """Variables visible only to this statement's own expressions and bodies (a loop's)."""
        return ()

    def defines(self) -> tuple:
        """Everything this statement gives a value to."""
        return self.declares() + self.updates() + self.scoped()


@dataclass(frozen=True, eq=False)
class Let(Stmt):
    """Declare a local variable with its initial value (`int x = value;`)."""
    var: Var
    value: Expr
    loc: SourceLoc
    EXPRS: ClassVar = ("value",)

    def declares(self) -> tuple:
        return (self.var,)


@dataclass(frozen=True, eq=False)
class Assign(Stmt):
    """Assign to a local variable; the value converts to the variable's type as in C."""
    var: Var
    value: Expr
    loc: SourceLoc
    EXPRS: ClassVar = ("value",)

    def updates(self) -> tuple:
        return (self.var,)


class Access(Stmt):
    """A memory access: its array, index, width and (for shared memory) site number.

    `OP` is the access kind the bank engine costs ("load", "store"); a shared access is an
    *access site* of the analyses, numbered in program order.
    """

    OP: ClassVar[str]
    WRITES: ClassVar[bool]       # whether it changes memory (what races are made of)
    ATOMIC: ClassVar[bool] = False  # atomics never race with each other
    # an asynchronous bulk copy (TMA): written by the async proxy, synchronized through an
    # mbarrier, costed as TMA work rather than by the bank engine
    BULK: ClassVar[bool] = False
    # a wgmma operand read (async proxy, Nsight's gmma class: bytes / 128 wavefronts)
    GMMA: ClassVar[bool] = False
    MIN_SM: ClassVar[int] = 0    # the first architecture (major * 10 + minor) that has it
    array: MemArray
    index: tuple[Expr, ...]
    width: int
    site: int | None

    @property
    def op(self) -> str:
        """The access kind, in the bank engine's terms."""
        return self.OP

    @property
    def matrices(self) -> int | None:
        """Matrices per instruction (ldmatrix / stmatrix only)."""
        return None

    @property
    def is_shared(self) -> bool:
        """Whether this is a shared-memory access site."""
        return isinstance(self.array, SharedArray)

    @property
    def access_bytes(self) -> int:
        """Bytes one lane moves."""
        return self.width * self.array.dtype.size

    def address_exprs(self) -> tuple[Expr, ...]:
        """The expressions that decide which bytes are accessed."""
        return self.index

    def retarget(self, array: MemArray, index: tuple[Expr, ...]) -> "Access":
        """The same access to another array (fix's paddings and swizzles)."""
        return replace(self, array=array, index=index)


@dataclass(frozen=True, eq=False)
class Load(Access):
    """`dst = array[index]` reading `width` consecutive elements (a vector if width > 1)."""
    dst: Var
    array: MemArray
    index: tuple[Expr, ...]
    width: int
    loc: SourceLoc
    site: int | None
    EXPRS: ClassVar = ("index",)
    FROM_MEMORY: ClassVar = True
    OP: ClassVar = "load"
    WRITES: ClassVar = False

    def declares(self) -> tuple:
        return (self.dst,)


@dataclass(frozen=True, eq=False)
class Store(Access):
    """`array[index] = values` writing `width` consecutive elements."""
    array: MemArray
    index: tuple[Expr, ...]
    values: tuple[Expr, ...]
    width: int
    loc: SourceLoc
    site: int | None
    EXPRS: ClassVar = ("index", "values")
    OP: ClassVar = "store"
    WRITES: ClassVar = True


# Atomic read-modify-write functions: CUDA's name and the element types it exists for.
ATOMIC_OPS = {
    "add": ("atomicAdd", ("i32", "u32", "u64", "f32", "f64")),
    "sub": ("atomicSub", ("i32", "u32")),
    "min": ("atomicMin", ("i32", "u32", "u64")),
    "max": ("atomicMax", ("i32", "u32", "u64")),
    "and": ("atomicAnd", ("i32", "u32", "u64")),
    "or": ("atomicOr", ("i32", "u32", "u64")),
    "xor": ("atomicXor", ("i32", "u32", "u64")),
    "inc": ("atomicInc", ("u32",)),
    "dec": ("atomicDec", ("u32",)),
    "exch": ("atomicExch", ("i32", "u32", "u64", "f32")),
    "cas": ("atomicCAS", ("i32", "u32", "u64")),
}


@dataclass(frozen=True, eq=False)
class Atomic(Access):
    """`dst = atomicOp(&array[index], value[, compare])`: one read-modify-write per lane.

    `dst` is None when the result is unused (build() drops results nothing reads, as the
    compiler does: that decides which instruction it emits). `compare` is CAS's expected
    value. Lanes at one address are serialized; the interpreter applies them in thread order.
    """
    dst: Var | None
    array: MemArray
    index: tuple[Expr, ...]
    kind: str
    value: Expr
    compare: Expr | None
    loc: SourceLoc
    site: int | None
    width: ClassVar[int] = 1
    EXPRS: ClassVar = ("index", "value", "compare")
    FROM_MEMORY: ClassVar = True
    OP: ClassVar = "atomic"
    WRITES: ClassVar = True
    ATOMIC: ClassVar = True

    def declares(self) -> tuple:
        return (self.dst,) if self.dst is not None else ()

    @property
    def op(self) -> str:
        """The bank engine's op for the instruction sm_90 compilers emit (measured).

        f32 add and every 64-bit read-modify-write are a CAS loop (LDS + ATOMS.CAST.SPIN);
        an add of the constant 1 whose result is unused is aggregated per address
        (ATOMS.POPC.INC); so is a 32-bit add/min/max/and/or/xor whose result is unused at an
        address that does not depend on the thread (REDUX across the warp, then one lane's
        ATOMS); CAS is ATOMS.CAS; the rest are one ATOMS per lane.
        """
        t = self.array.dtype
        if (self.kind == "add" and t.is_float) or (t.size == 8 and self.kind not in
                                                   ("exch", "cas")):
            return "atomic_cas_loop"
        if self.kind == "cas":
            return "atomic_cas"
        if self.kind == "add" and self.dst is None and self.value.op is Op.CONST \
                and self.value.arg == 1:
            return "atomic_aggregated"
        if self.dst is None and self.kind in ("add", "min", "max", "and", "or", "xor") \
                and not any(_per_thread(e) for e in self.index):
            return "atomic_aggregated"
        return "atomic"


def _per_thread(e: Expr) -> bool:
    """Whether an expression may differ between the threads of a warp, as a compiler sees
    it: it reads threadIdx or a variable (a variable may hold a per-thread value), outside
    the terms any compiler folds to a constant (`x % 1`, `x * 0`, `x & 0`)."""
    if e.op is Op.MOD and e.src[1].op is Op.CONST and e.src[1].arg == 1:
        return False
    if e.op in (Op.MUL, Op.AND) and any(s.op is Op.CONST and s.arg == 0 for s in e.src):
        return False
    if e.op is Op.SPECIAL:
        return e.arg[0] == "threadIdx"
    if e.op in (Op.VAR, Op.LOCAL_READ, Op.COMPONENT):
        return True
    return any(_per_thread(s) for s in e.src)


class _Matrix(Access):
    """What ldmatrix and stmatrix share: 8x8 matrices of 16-bit elements, one 16-byte row
    per address; lane 8j+i gives the address of row i of matrix j (lanes past 8 x matrices
    give none), and register j of lane 4r+c holds elements 2c and 2c+1 of row r of matrix j
    (with `trans`, of column r: the elements of rows 2c and 2c+1)."""

    width: ClassVar[int] = 8      # elements per row (16 bytes of 16-bit elements)
    count: int                    # matrices per instruction

    @property
    def matrices(self) -> int:
        """Matrices per instruction (1, 2 or 4)."""
        return self.count

    def address_lanes(self) -> int:
        """Lanes of a warp whose addresses the instruction uses."""
        return 8 * self.count


@dataclass(frozen=True, eq=False)
class LoadMatrix(_Matrix):
    """`ldmatrix.sync.aligned.m8n8.x{matrices}[.trans].shared.b16`: `dst` gets 2 x matrices
    elements per lane."""
    dst: Var
    array: MemArray
    index: tuple[Expr, ...]
    count: int
    trans: bool
    loc: SourceLoc
    site: int | None
    EXPRS: ClassVar = ("index",)
    FROM_MEMORY: ClassVar = True
    OP: ClassVar = "ldmatrix"
    WRITES: ClassVar = False
    MIN_SM: ClassVar = 75

    def declares(self) -> tuple:
        return (self.dst,)


@dataclass(frozen=True, eq=False)
class StoreMatrix(_Matrix):
    """`stmatrix.sync.aligned.m8n8.x{matrices}[.trans].shared.b16` of 2 x matrices elements
    per lane (sm_90 and newer)."""
    array: MemArray
    index: tuple[Expr, ...]
    values: tuple[Expr, ...]
    count: int
    trans: bool
    loc: SourceLoc
    site: int | None
    EXPRS: ClassVar = ("index", "values")
    OP: ClassVar = "stmatrix"
    WRITES: ClassVar = True
    MIN_SM: ClassVar = 90


@dataclass(frozen=True, eq=False)
class DeclareLocal(Stmt):
    """Declare a zero-initialized register array."""
    array: LocalArray
    loc: SourceLoc

    def declares(self) -> tuple:
        return (self.array,)


@dataclass(frozen=True, eq=False)
class LocalStore(Stmt):
    """`array[index] = value` on a register array."""
    array: LocalArray
    index: tuple[Expr, ...]
    value: Expr
    loc: SourceLoc
    EXPRS: ClassVar = ("index", "value")

    def updates(self) -> tuple:
        return (self.array,)


@dataclass(frozen=True, eq=False)
class Loop(Stmt):
    """A loop over `var`: `for (var = start; cond; var += step)`, or a do-while if `do_while`.

    `cond` is an expression of `var` (and anything else in scope); `step` is evaluated at the
    end of each iteration. With `update` instead of a step (`step` is then None), the
    variable becomes `update` at the end of each iteration (`for (s = 16; s > 0; s >>= 1)`).
    `unroll` is the loop's pragma in the generated CUDA: False `#pragma unroll 1`, True
    `#pragma unroll`, "auto" none (nvcc decides), N `#pragma unroll N`.
    """
    var: Var
    start: Expr
    step: Expr | None
    cond: Expr
    do_while: bool
    unroll: bool | str | int
    body: tuple
    loc: SourceLoc
    update: Expr | None = None
    EXPRS: ClassVar = ("start", "step", "cond", "update")
    BODIES: ClassVar = ("body",)

    def scoped(self) -> tuple:
        return (self.var,)

    @property
    def counted(self) -> bool:
        """Whether the loop is `for (v = a; v < b; v += c)` (or <=, >, >=) over an integer v,
        with a bound and a step that do not read v: its trip count has a closed form
        (semantics.trip_count)."""
        cond, v = self.cond, self.var
        return self.update is None and not v.dtype.is_float and \
            cond.op in (Op.LT, Op.LE, Op.GT, Op.GE) and cond.src[0].op is Op.VAR and \
            cond.src[0].arg is v and not any(n.op is Op.VAR and n.arg is v for n in (
                *cond.src[1].walk(), *self.step.walk()))


@dataclass(frozen=True, eq=False)
class If(Stmt):
    """`if (cond) { then } else { orelse }`."""
    cond: Expr
    then: tuple
    orelse: tuple
    loc: SourceLoc
    EXPRS: ClassVar = ("cond",)
    BODIES: ClassVar = ("then", "orelse")


@dataclass(frozen=True, eq=False)
class Sync(Stmt):
    """`__syncthreads()`: a barrier for all threads of the block; with `grid` true,
    cooperative groups' `this_grid().sync()`: for all threads of the launch (a cooperative
    launch, every block resident at once), and so for each block's too."""
    loc: SourceLoc
    grid: bool = False


# the reductions a block barrier can make of a predicate: __syncthreads_or, _and, _count
SYNC_REDUCTIONS = {"or": "__syncthreads_or", "and": "__syncthreads_and",
                   "count": "__syncthreads_count"}


@dataclass(frozen=True, eq=False)
class SyncReduce(Sync):
    """`dst = __syncthreads_or(pred)` (`op` "and", "count" for the other two): a block
    barrier that also gives every thread the OR, AND or count of the block's predicates
    (each thread's `pred` nonzero or not; `bar.red.{or,and}.pred`, `bar.red.popc.u32`)."""
    dst: Var = None
    op: str = "or"
    pred: Expr = None
    EXPRS: ClassVar = ("pred",)

    def declares(self) -> tuple:
        return (self.dst,)


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


def tensor_maps(kernel: "Kernel") -> tuple[TensorMap, ...]:
    """The tensor maps a kernel's TMA copies use, in order of first use (each is a kernel
    parameter of the generated CUDA, after the scalars and arrays)."""
    out: dict[int, TensorMap] = {}
    for s in walk(kernel.body):
        if isinstance(s, (TmaLoad, TmaStore)):
            out.setdefault(id(s.tensor_map), s.tensor_map)
    return tuple(out.values())


@dataclass(frozen=True, eq=False)
class Return(Stmt):
    """`return;`: the threads that execute it leave the kernel (barriers then wait only for
    the threads that have not exited, as on Volta and newer)."""
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class Assert(Stmt):
    """`assert(cond);` in device code: a thread whose `cond` is 0 stops the kernel (the
    launch fails with cudaErrorAssert). `text` is the condition as the source writes it,
    for the message only."""
    EXPRS: ClassVar[tuple[str, ...]] = ("cond",)
    cond: Expr
    text: str
    loc: SourceLoc

    @property
    def traps(self) -> bool:
        """Whether this is `__trap()` (TRAP_TEXT, condition 0): every thread that reaches it
        stops the kernel."""
        return self.text == TRAP_TEXT and self.cond.op is Op.CONST and self.cond.arg == 0

    @property
    def misaligned(self) -> bool:
        """Whether this stands for the hardware's alignment check of an access (its text
        begins with MISALIGNED_TEXT): a failure is a misaligned address, not an assert."""
        return self.text.startswith(MISALIGNED_TEXT)


TRAP_TEXT = "__trap()"
# the start of an Assert's text that is an access's alignment (a frontend reading compiled
# code states it where an address may not be a multiple of the access's size)
MISALIGNED_TEXT = "misaligned address"


SHUFFLE_MODES = {"idx": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync",
                 "xor": "__shfl_xor_sync"}
# the warp votes, held as Shuffles whose lane is 0 and width 32: `__ballot_sync(mask, p)` is
# a u32 of the executing lanes' predicates, `__any_sync` / `__all_sync` an i32 0 or 1,
# `__match_any_sync(mask, v)` a u32 of the executing lanes whose v (a u64) equals this one's
VOTE_MODES = {"ballot": "__ballot_sync", "any": "__any_sync", "all": "__all_sync",
              "match_any": "__match_any_sync"}
FULL_MASK = 0xFFFFFFFF
# a lane mask of 0 stands for `__activemask()`: the lanes that execute the operation (a
# mask of no lane is not one CUDA allows, so the value is free to mean this)
ACTIVE_MASK = 0


def mask_text(mask: int) -> str:
    """A lane mask as C writes it (`__activemask()` for ACTIVE_MASK)."""
    return "__activemask()" if mask == ACTIVE_MASK else f"0x{mask:08x}"


@dataclass(frozen=True, eq=False)
class Shuffle(Stmt):
    """`dst = __shfl[_up|_down|_xor]_sync(mask, value, lane, width)`: `value` as another lane
    of the warp holds it (or, for a mode of VOTE_MODES, the warp's vote on `value`). `lane`
    is the source lane (idx), the distance (up/down) or the lane mask (xor), within
    segments of `width` lanes. `width` and `mask` are ints where
    they are compile-time constants, else i32 / u32 expressions evaluated at run time
    (`__shfl_up_sync(mask, v, i, width)` with `width` a kernel parameter)."""
    dst: Var
    mode: str
    value: Expr
    lane: Expr
    width: int | Expr
    mask: int | Expr
    loc: SourceLoc
    EXPRS: ClassVar = ("value", "lane", "width", "mask")

    def declares(self) -> tuple:
        return (self.dst,)


# mma.sync shapes: (m, n, k) -> 32-bit registers per lane of A and of B (16-bit inputs)
MMA_SHAPES = {"m16n8k16": (4, 2), "m16n8k8": (2, 1)}
# of tf32 inputs (one element a register): m16n8k8 only
MMA_TF32_SHAPES = {"m16n8k8": (4, 2)}
# of 8-bit integer inputs (s8, u8: four a register) into s32: m16n8k16
MMA_INT8_SHAPES = {"m16n8k16": (2, 1)}
# of doubles (one a register, C and D two): m8n8k4
MMA_F64_SHAPES = {"m8n8k4": (1, 1)}


@dataclass(frozen=True, eq=False)
class MmaSync(Stmt):
    """`mma.sync.aligned.{shape}.row.col.{ctype}.{atype}.{atype}.{ctype}`: the warp's
    16 x k A (row-major) times k x 8 B (column-major) plus C, D to `dst`, each operand
    spread over the lanes' registers as the PTX ISA lays the fragments out (lane l: group
    l // 4, thread l % 4). A and B are 32-bit words of two `atype` elements (f16 or bf16,
    the lower-indexed in the low half), of one tf32 (a float's bits, of which the
    hardware reads the top 19), of four s8 or u8 (into s32: C and D four int32, as
    f32's), or one f64 (m8n8k4: A's row l // 4 column l % 4, B's the transpose, C and D two
    f64 of row l // 4, columns 2 (l % 4) and the next); C and D are two words of two f16
    each (`ctype` f16) or four f32 (`ctype` f32). It touches no memory: all 32 lanes
    execute it."""
    dst: Var
    shape: str
    atype: str
    ctype: str
    a: tuple[Expr, ...]
    b: tuple[Expr, ...]
    c: tuple[Expr, ...]
    loc: SourceLoc
    EXPRS: ClassVar = ("a", "b", "c")
    MIN_SM: ClassVar = 80

    def declares(self) -> tuple:
        return (self.dst,)


@dataclass(frozen=True, eq=False)
class SyncWarp(Stmt):
    """`__syncwarp(mask)`: a barrier for the lanes of one warp named in `mask` (an int, or
    a u32 expression each lane evaluates: a cooperative-groups tile's own lanes)."""
    mask: int | Expr
    loc: SourceLoc


def walk(stmts) -> Iterator[Stmt]:
    """Every statement in program order, descending into nested bodies.

    A body is a tuple of frozen statements, so the order of the few tuples walked last is
    kept (`_WALKED`): an analysis walks one kernel's body many times (`--as-compiled` of
    matmul_128x128's unrolled kernel: about 30 walks of 7,900 statements, 0.15 s as
    recursive generators)."""
    whole = type(stmts) is tuple
    if whole:
        kept = _WALKED.pop(id(stmts), None)
        if kept is not None and kept[0] is stmts:   # (held here, so its id is not reused)
            _WALKED[id(stmts)] = kept               # the latest again: a kernel's own body
            return iter(kept[1])                    # stays while its loops' bodies come and go
    out: list[Stmt] = []
    _flatten(stmts, out)
    if whole:
        if len(_WALKED) >= _WALKED_MOST:
            del _WALKED[next(iter(_WALKED))]        # the least recently walked
        _WALKED[id(stmts)] = (stmts, tuple(out))
    return iter(out)


_WALKED: dict[int, tuple[tuple, tuple]] = {}      # id(body) -> (body, walk(body))
_WALKED_MOST = 8


def _flatten(stmts, out: list) -> None:
    for s in stmts:
        out.append(s)
        for name in s.BODIES:
            _flatten(getattr(s, name), out)


def map_statements(stmts, fn: Callable[[Stmt], Stmt]) -> tuple[Stmt, ...]:
    """Rewrite a statement list bottom-up: nested bodies first, then `fn` on each statement."""
    return tuple(fn(s.rebuild(body=lambda b: map_statements(b, fn))) for s in stmts)


def unsupported(layer: str, stmt, kernel: str | None = None) -> KernelError:
    """The error a layer raises for a statement class it has no rule for."""
    return KernelError(f"{layer} does not support {type(stmt).__name__} statements (see "
                       "docs/extending.md)", kernel=kernel, loc=getattr(stmt, "loc", None))


# ------------------------------------------------------------------ the kernel

def static_layout(buffers) -> tuple[dict[int, int], int]:
    """Byte offset of each static buffer (by uid), in order, each at its alignment, and the
    total (Kernel.static_layout; the builder's 48 KiB check while declaring)."""
    offsets, end = {}, 0
    for buf in buffers:
        if buf.dynamic:
            continue
        end = -(-end // buf.align) * buf.align
        offsets[buf.uid] = end
        end += buf.nbytes
    return offsets, end


DYNAMIC_ALIGN = 16  # the dynamic region starts 16-byte aligned after the static arrays


@dataclass(frozen=True)
class BuildResources:
    """What a compiler's build of a kernel allocates, where the kernel was read from that
    build (ptxas's own report of it): per thread, registers, stack frame and spilled bytes;
    per block, static shared memory as the driver reports it (the 1 KiB the driver reserves
    per block on sm_90 left out) and named barriers."""

    arch: str
    symbol: str            # the kernel's symbol in the build
    registers: int
    static_smem: int
    stack: int             # bytes of stack frame a thread
    spill_stores: int      # bytes a thread spills, and reads back
    spill_loads: int
    barriers: int
    max_threads: int | None = None   # a block's most threads (`__launch_bounds__`), if bound


@dataclass(frozen=True, eq=False)
class Kernel:
    """A complete kernel: signature, shared declarations, launch configuration and body."""

    name: str
    params: tuple[ScalarParam, ...]
    globals: tuple[GlobalArray, ...]
    buffers: tuple[SharedBuffer, ...]
    shared: tuple[SharedArray, ...]
    grid: tuple[Expr, Expr, Expr]
    block: tuple[Expr, Expr, Expr]
    dynamic_smem: Expr
    body: tuple
    loc: SourceLoc
    defaults: dict = field(default_factory=dict)
    launch_loc: SourceLoc | None = None  # the k.launch(...) call, for launch errors
    # what the frontend that built the kernel says of it (a compiler's merges, a count that
    # is a bound): shown with every analysis
    notes: tuple[str, ...] = ()
    # where the kernel was read from a compiler's build (a .cu through nvcc's): what that
    # build allocates (None: a kernel written in Python, or a build ptxas could not read)
    built: BuildResources | None = None
    # the source's name of the instance where the kernel is a template's (`colsum<64,
    # float>`; `name` stays a C identifier): what reports call it
    instance: str | None = None
    # the parameters whose values the host code chose the launch's grid or block by (a
    # host if/else chain on a value it also passes): a value given for one alone leaves
    # the launch as the host's value chose it
    launch_inputs: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """The kernel as reports name it: its instance's source name, else its name."""
        return self.instance or self.name

    def statements(self) -> Iterator:
        """Every statement in program order."""
        return walk(self.body)

    @functools.cached_property
    def cooperative(self) -> bool:
        """Whether the kernel synchronizes its whole grid (`grid.sync()`): it then needs a
        cooperative launch, every block resident at once, and its blocks run together."""
        return any(isinstance(s, Sync) and s.grid for s in self.statements())

    @functools.cached_property
    def global_views(self) -> tuple["GlobalArray", ...]:
        """The views of global arrays the statements use (each once, in order of use); read
        once per kernel (every run and launch asks)."""
        from .tma import TensorMap   # (tma imports this module)
        seen: dict[int, GlobalArray] = {}
        for s in self.statements():
            for value in vars(s).values():
                if isinstance(value, TensorMap):   # a tensor map over a view
                    value = value.array
                if isinstance(value, GlobalArray) and value.base is not None:
                    seen.setdefault(id(value), value)
        return tuple(seen.values())

    def sites(self) -> list[Access]:
        """The shared-memory access sites, in program order."""
        return [s for s in self.statements() if isinstance(s, Access) and s.is_shared]

    def site(self, number: int):
        """The shared access site with this number."""
        for s in self.sites():
            if s.site == number:
                return s
        raise KernelError(f"kernel '{self.name}' has no shared access site {number}; sites are "
                          f"{[s.site for s in self.sites()]}")

    def static_layout(self) -> tuple[dict[int, int], int]:
        """Byte offset of each static buffer (by uid) in the block's window, and their total.

        Static buffers are laid out in declaration order, each at its alignment; the
        generated CUDA declares them with the same alignment, so every offset agrees with
        the compiled kernel modulo the alignment, which is all bank mapping depends on.
        """
        return static_layout(self.buffers)

    @property
    def static_smem(self) -> int:
        """Bytes of static shared memory the declarations need."""
        return self.static_layout()[1]

    def dynamic_base(self) -> int:
        """Window offset where the dynamic shared memory begins (at its declared alignment,
        at least 16 bytes, after the static arrays)."""
        end = self.static_smem
        align = max([DYNAMIC_ALIGN] + [b.align for b in self.buffers if b.dynamic])
        return -(-end // align) * align

    def buffer_base(self, buf: SharedBuffer) -> int:
        """Window offset of a buffer."""
        if buf.dynamic:
            return self.dynamic_base()
        return self.static_layout()[0][buf.uid]

    def param(self, name: str) -> ScalarParam:
        """The scalar parameter with this name."""
        for p in self.params:
            if p.name == name:
                return p
        raise KernelError(f"kernel '{self.name}' has no parameter '{name}'")

    def array(self, name: str) -> MemArray:
        """The global or shared array with this name."""
        for a in (*self.globals, *self.shared):
            if a.name == name:
                return a
        raise KernelError(f"kernel '{self.name}' has no array '{name}'")

    def __str__(self) -> str:
        from .printer import format_kernel
        return format_kernel(self)




"""Statements: what a kernel's body is made of.

Statements are frozen nodes that remember the Python line that made them. Loads and stores
of shared memory are *access sites*: each has a `site` number, stable for the kernel, that
the analyses and reports use. Here: the protocol every statement follows (`Stmt`), the plain
statements (assignments, loads, stores, atomics, loops, ifs, barriers, shuffles, ldmatrix,
mma.sync) and the walkers. The arrays they read are declared in arrays.py, the asynchronous
statements (cp.async, TMA, bulk copies, mbarriers, wgmma) are in stmt_async.py, and the
Kernel that holds them is in kernel.py.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, ClassVar, Iterator

from .arrays import LocalArray, MemArray, SharedArray
from .errors import KernelError, SourceLoc
from .expr import Expr, Op, Var


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
    """`dst = array[index]` reading `width` consecutive elements (a vector if width > 1).
    `used_where`: where a compiler made a guarded read unconditional, the condition under
    which the loaded value is used (a hazard check tracks only those lanes); None: where
    the load runs."""
    dst: Var
    array: MemArray
    index: tuple[Expr, ...]
    width: int
    loc: SourceLoc
    site: int | None
    used_where: Expr | None = None
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



"""The numpy interpreter: executes a whole launch on the CPU with CUDA semantics.

This is the executable definition of what the IR means. Every thread of every block runs in
lockstep, statement by statement, as numpy arrays over the threads that are active there;
ifs and loops narrow the active set per lane. Barriers are phase boundaries: a
`__syncthreads()` must be reached by all threads of a block or none (anything else raises).
For race-free kernels this order gives what any legal GPU schedule gives.

Faults never produce a made-up value: out-of-bounds and misaligned accesses, division by
zero and out-of-range shifts raise `KernelRuntimeError` naming the array, the index, the
block, the thread and the iteration of every enclosing loop.
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping

import numpy as np

from .coroutines import Scheduler
from .dtypes import BY_NAME, from_storage, promote, to_storage
from .errors import KernelError, KernelRuntimeError, loop_label
from .evaluate import Evaluator
from .expr import Expr, Op, Var
from .launch import Launch, resolve_launch
from .periodic import Plan, iteration_classes, plan
from .printer import format_stmt
from .semantics import LaneFault, convert, trip_count
from .stmt import (
    ACTIVE_MASK, Access, Assert, Assign, Atomic, CommitGroup, CopyAsync, DeclareLocal,
    GlobalArray, If,
    Kernel, Let,
    Load, LoadMatrix, LocalArray, LocalStore, Loop, Return, SharedArray, Shuffle, Store,
    StoreMatrix, Sync, SyncWarp, unsupported, WaitGroup, MbarrierArrive, MbarrierInit,
    MbarrierWait, TmaLoad, TmaStore, BulkLoad, BulkStore, BulkCommit, BulkWait,
    FenceProxyAsync, Wgmma, WgmmaFence, WgmmaCommit, WgmmaWait, MmaSync, walk, VOTE_MODES, SyncReduce,
)
from .wgmma import a_fragment_positions, accumulator_positions, decode
from .tma import (
    BULK_ALIGN, DESTINATION_ALIGN, GLOBAL_ALIGN, MBARRIER_MAX_COUNT, MBARRIER_MAX_TX,
    swizzle_bytes,
)

MAX_THREADS = 1 << 24          # beyond this a launch is too large to interpret here
MAX_LOOP_ITERATIONS = 1 << 22  # a loop still running after this many iterations is a bug
# a run for addresses watches a loop of at least this many trips for repetition (kernels_ir.
# periodic), remembering at most this many iterations' states
PERIODIC_MIN_TRIPS = 4
PERIODIC_HISTORY = 64


@dataclass(frozen=True)
class SharedAccess:
    """One execution of a shared access site by a set of threads (reported to observers)."""

    stmt: Access
    threads: np.ndarray   # flat thread ids: block_linear * threads_per_block + thread_linear
    offsets: np.ndarray   # byte offsets of each thread's access in its block's window
    weight: int = 1       # how many executions this one stands for (collapsed loops)
    iterations: tuple[tuple[str, int], ...] = ()  # enclosing loops' iteration, first thread
    stored: np.ndarray | None = None  # plain stores: the bytes each thread writes (uint8)
    scale: int | None = None  # id of the enclosing `summed` loop of a PartialRun, if any


@dataclass(frozen=True)
class PartialRun:
    """Run only part of a launch, for analyses that need addresses but not values.

    `statements`: ids of the statements to execute (others are skipped; shared stores then
    evaluate their addresses, not their values, and no global memory is touched).
    `collapse`: ids of loops that run one iteration standing for all of them when every
    active lane has the same trip count (the analysis vouches that iterations look alike).
    `blocks`: linear ids of the blocks to run (None: all).
    `summed`: ids of collapsed loops whose trip count differs between blocks but not within
    one: the body runs once for every block with at least one trip, its accesses carry the
    loop (`SharedAccess.scale`) and no trip weight; the observer knows what each block's
    trips stand for.
    """

    statements: frozenset[int] | None = None
    collapse: frozenset[int] = frozenset()
    blocks: np.ndarray | None = None
    summed: frozenset[int] = frozenset()
    # -- the hazard check's address-only runs (smemsim.launch.slicing.HazardSlices); they never
    #    replay repeating iterations (kernels_ir.periodic): a check sees every barrier
    # `track`: shared stores mark the bytes they write, shared reads check them, cp.async
    # follows its bytes in flight (the faults a full run finds in shared memory)
    track: bool = False
    # `sources`: cp.async and bulk copies also evaluate (and check) their global end, TMA
    # copies where their box starts
    sources: bool = False
    # `truncate`: ids of loops whose iterations look alike: when the lanes of each block
    # agree on the trip count, each block's first two iterations stand for all of its
    # iterations (what one can race with, the next can)
    truncate: frozenset[int] = frozenset()
    # `probes`: per statement id not executed, what to evaluate there for its faults
    probes: Mapping[int, tuple["Probe", ...]] | None = None
    # `endpoints`: ids of counted loops whose executed body only addresses global memory at
    # indices affine in the loop variable (the analysis vouches): each lane runs its first,
    # second and last iteration; where those indices are not one affine progression (an
    # integer wrapped between them) or one of them faults, the loop runs whole instead, so
    # that the fault is reported at its first iteration
    endpoints: frozenset[int] = frozenset()
    # `lanes_only`: ids of shuffles and mma.sync whose results the run does not read: the
    # lanes they read are checked (a lane that does not execute one, a warp not whole: a
    # fault), their values are not evaluated (the run does not compute them) and their
    # results are 0
    lanes_only: frozenset[int] = frozenset()
    # `guards`: the Ifs inside those loops whose condition is a conjunction of comparisons
    # affine in the loop variable at one width (If id -> the comparisons, locals written
    # out): each holds on an interval of a lane's iterations, whose first, second and last
    # iterations run too, and the accesses under it are one progression over that interval
    guards: Mapping[int, tuple] = field(default_factory=dict)
    # `signature`: every if and loop condition folds its decision into the deciding lanes'
    # signatures (control_signatures); no loop shortcuts, every iteration decides
    signature: bool = False
    # `origin` (with `track`, and an observer): TMA copies record which global element each
    # byte holds, and wgmma operands and readers by index are compared with it, as a run
    # on values does (LayoutMismatch events: check's layout agreement without the values)
    origin: bool = False


@dataclass(frozen=True)
class Probe:
    """What a hazard run evaluates at a statement it does not execute: an expression whose
    evaluation can fault (`expr`), or only the bounds of a register-array index (`array`,
    `index`), without the values the statement computes."""

    expr: Expr | None = None
    array: LocalArray | None = None
    index: tuple[Expr, ...] = ()

    def roots(self) -> tuple[Expr, ...]:
        """The expressions the probe evaluates."""
        return (self.expr,) if self.expr is not None else self.index


@dataclass(frozen=True)
class BarrierReached:
    """A `__syncthreads()` executed by whole blocks (reported to observers)."""

    stmt: Sync
    blocks: np.ndarray    # dense indices of the blocks that passed it


@dataclass(frozen=True)
class LayoutMismatch:
    """An element of a tile TMA wrote, read (through a wgmma descriptor, or by index) from
    other bytes than the map and the reader agree on (reported to observers; the GPU reads
    the same wrong element silently)."""

    stmt: Access
    message: str
    thread: int           # flat id of the reading thread (a warpgroup's first, for wgmma)


@dataclass(frozen=True)
class WarpBarrierReached:
    """A `__syncwarp()` executed by the lanes of some warps (reported to observers)."""

    stmt: SyncWarp
    warps: np.ndarray     # dense block index * warps per block + warp in the block


@dataclass(frozen=True)
class GlobalAccess:
    """One execution of a global load, store or atomic by a set of threads (reported to
    observers)."""

    stmt: Load | Store | Atomic
    threads: np.ndarray
    elements: np.ndarray  # element offsets into the array


Observer = Callable[[object], None]


def make_arrays(launch: Launch, seed: int = 0,
                blank: frozenset[str] = frozenset()) -> dict[str, np.ndarray]:
    """Global arrays for a launch: seeded random inputs, poisoned outputs.

    Inputs hold integers in [0, 255] (or the type's max if smaller) and floats in [-1, 1);
    "out" arrays hold all-ones bits (NaN for floats) so that an unwritten element shows. A
    byte array whose source declares another element type (GlobalArray.declared: a kernel
    read from PTX) holds that type's values, as its bytes. Arrays named in `blank` (whose
    values nothing needs) are zeros, their memory taken only where touched; the others
    hold the values they hold without it.
    """
    rng = np.random.default_rng(seed)
    arrays = {}
    for g in launch.kernel.globals:
        n = launch.lengths[g.name]
        t = g.dtype
        declared = getattr(g, "declared", None)
        if g.initial is not None:   # the values the kernel's source gives it
            arrays[g.name] = to_storage(np.asarray(g.initial, t.np), t)
        elif t.size == 1 and declared is not None and declared.size > 1 and \
                n % declared.size == 0:
            if g.name in blank:
                _skipped(g.intent, declared, n // declared.size, rng)
                arrays[g.name] = np.zeros(n, np.uint8)
                continue
            values = _made(g.intent, declared, n // declared.size, rng)
            arrays[g.name] = np.ascontiguousarray(values).view(np.uint8)
        elif g.name in blank:
            _skipped(g.intent, t, n, rng)
            arrays[g.name] = np.zeros(n, t.storage)   # (calloc: pages come as touched)
        else:
            arrays[g.name] = _made(g.intent, t, n, rng)
    return arrays


# values drawn at once by make_arrays: the draws are the same in pieces (the generator's
# stream is sequential), and an array of 400 M floats no longer needs its 3.2 GB of doubles
_DRAWN_AT_ONCE = 1 << 22


def _skipped(intent: str, t, n: int, rng) -> None:
    """The generator moved past the values _made would draw, none kept (a float's draw is
    one 64-bit step of PCG64; a bounded integer's varies, so those are drawn in pieces)."""
    if intent == "out":
        return
    if t.is_float:
        rng.bit_generator.advance(n)
        return
    for at in range(0, n, _DRAWN_AT_ONCE):
        rng.integers(0, min(int(t.max), 255), min(_DRAWN_AT_ONCE, n - at), endpoint=True)


def _made(intent: str, t, n: int, rng) -> np.ndarray:
    """make_arrays' values of one array of n elements of type t."""
    if intent == "out":
        return (to_storage(np.full(n, np.nan, t.np), t) if t.is_float
                else np.full(n, 0xFF, np.uint8).repeat(t.size).view(t.np))
    if t.is_float:
        draw = lambda m: to_storage(rng.uniform(-1.0, 1.0, m).astype(t.np), t)  # noqa: E731
    else:
        draw = lambda m: rng.integers(0, min(int(t.max), 255), m,  # noqa: E731
                                      endpoint=True).astype(t.np)
    first = draw(min(n, _DRAWN_AT_ONCE))
    if first.size == n:
        return first
    out = np.empty(n, first.dtype)
    out[:first.size] = first
    for at in range(first.size, n, _DRAWN_AT_ONCE):
        out[at:at + _DRAWN_AT_ONCE] = draw(min(_DRAWN_AT_ONCE, n - at))
    return out


# two 64-bit polynomial hashes of a lane's decisions (odd multipliers, wrapping): blocks
# are told apart by both, so two that decide differently share a signature only when 128
# bits of hash collide
_SIGNATURE_MULTIPLIERS = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))


def control_signatures(kernel: Kernel, params: Mapping[str, int | float] | None,
                       statements: frozenset[int], blocks: np.ndarray, *,
                       loop_limit: int = MAX_LOOP_ITERATIONS) -> np.ndarray:
    """Per block of `blocks`, two 64-bit hashes (a (blocks, 2) uint64 array) of the
    decisions its threads take at every if and loop condition of a run of `statements`
    (thread by thread, in program order): blocks whose rows are equal took the same
    branches and as many iterations of every loop."""
    launch = resolve_launch(kernel, params)
    machine = _Machine(launch, {}, 0, None, PartialRun(
        statements=statements, blocks=blocks, signature=True), loop_limit)
    machine.execute()
    tpb = machine.tpb
    # fold each block's threads into one pair, weighting thread t by an odd 2t + 1
    weight = (np.arange(tpb, dtype=np.uint64) * np.uint64(2) + np.uint64(1))
    return np.stack([(h.reshape(-1, tpb) * weight).sum(axis=1, dtype=np.uint64)
                     for h in machine.signature], axis=1)


def run(kernel: Kernel, params: Mapping[str, int | float] | None = None,
        arrays: Mapping[str, np.ndarray] | None = None, *, seed: int = 0,
        observer: Observer | None = None, partial: PartialRun | None = None,
        loop_limit: int = MAX_LOOP_ITERATIONS,
        blank: frozenset[str] = frozenset()) -> dict[str, np.ndarray]:
    """Execute one launch; return every global array after it (inputs copied, never changed).

    Arrays not given are made by `make_arrays(launch, seed, blank)`: those named in `blank`,
    whose values the caller needs nothing of, are zeros taken as touched (and one given
    is not copied). With `partial`, only part of
    the launch runs (see PartialRun) and no global arrays are made or returned. A loop that
    runs `loop_limit` iterations in one entry faults as endless, unless it is counted
    (Loop.counted) and its closed form says when it ends: it may then run up to
    MAX_LOOP_ITERATIONS.
    """
    if not 1 <= loop_limit <= MAX_LOOP_ITERATIONS:
        raise KernelError(f"loop_limit must be 1 to {MAX_LOOP_ITERATIONS:,}, got {loop_limit}",
                          kernel=kernel.name)
    launch = resolve_launch(kernel, params)
    machine = _Machine(launch, arrays or {}, seed, observer, partial, loop_limit, blank)
    machine.execute()
    views = {v.name for v in kernel.global_views}
    return {name: a for name, a in machine.globals.items() if name not in views}


F16 = BY_NAME["f16"]


class _Machine(Evaluator):
    def __init__(self, launch: Launch, arrays: Mapping[str, np.ndarray], seed: int,
                 observer: Observer | None, partial: PartialRun | None = None,
                 loop_limit: int = MAX_LOOP_ITERATIONS, blank: frozenset[str] = frozenset()):
        self.launch, self.kernel, self.observer = launch, launch.kernel, observer
        self.blank = blank
        self.partial = partial
        self.loop_limit = loop_limit
        k = self.kernel
        self.tpb = launch.threads_per_block
        blocks = np.arange(launch.num_blocks, dtype=np.int64) if partial is None or \
            partial.blocks is None else np.asarray(partial.blocks, dtype=np.int64)
        # Threads are numbered densely over the blocks that run; `block_ids` maps the dense
        # block index back to the block's linear id in the grid.
        self.block_ids = blocks
        self.nblocks = blocks.size
        total = self.tpb * self.nblocks
        if total > MAX_THREADS:
            raise KernelError(f"the launch has {total} threads; the interpreter runs at most "
                              f"{MAX_THREADS}: use smaller parameters", kernel=k.name)
        self.globals = self._bind_globals(arrays, seed) if partial is None or \
            partial.statements is None else {}
        self.weight = 1
        self._recorded: dict | None = None  # offsets by access and phase (_endpoint_loop)
        self._phase = 0
        self.scale: int | None = None   # the summed loop being run (PartialRun.summed)
        self.plans: dict[int, Plan | None] = {}   # periodic.plan per loop id
        self.recorders: list[list] = []  # per periodic loop being run: [iteration, events]
        gid = np.arange(total, dtype=np.int64)
        dense_block, thread_lin = gid // self.tpb, gid % self.tpb
        self.block_lin = dense_block
        grid_block = blocks[dense_block]
        bx, by, _ = launch.block
        gx, gy, _ = launch.grid
        u = np.uint32
        self.special = {
            ("threadIdx", "x"): (thread_lin % bx).astype(u),
            ("threadIdx", "y"): (thread_lin // bx % by).astype(u),
            ("threadIdx", "z"): (thread_lin // (bx * by)).astype(u),
            ("blockIdx", "x"): (grid_block % gx).astype(u),
            ("blockIdx", "y"): (grid_block // gx % gy).astype(u),
            ("blockIdx", "z"): (grid_block // (gx * gy)).astype(u),
        }
        self.dims = {("blockDim", a): n for a, n in zip("xyz", launch.block)}
        self.dims.update({("gridDim", a): n for a, n in zip("xyz", launch.grid)})
        self.total = total
        self._constants: dict[int, tuple] = {}   # _launch_constant's values (and their exprs)
        self.vars: dict[Var, np.ndarray] = {}
        self.local_arrays: dict[LocalArray, np.ndarray] = {}
        self.iterations: dict[Var, np.ndarray] = {}
        self._loop_stack: list[Var] = []
        # branches that wait on each other run as coroutines (kernels_ir.coroutines), made
        # on the first such `if`; `steps` counts statements run, so a waiting branch can
        # tell whether anything happened since it last looked
        self.coroutines: Scheduler | None = None
        self.steps = 0
        self._waiting_ifs: dict[int, bool] = {}
        # One flat byte buffer, blocks back to back, each window rounded up to 16 bytes so
        # that typed views of it (every access is naturally aligned) index it exactly.
        self.window = -(-launch.smem_window // 16) * 16
        self.shared = np.zeros(self.nblocks * self.window, np.uint8)
        # CUDA leaves shared memory uninitialized: track what was written, so that a read
        # of anything else is a fault instead of a made-up zero
        self.written = np.zeros(self.nblocks * self.window, bool)
        self._all_written = False   # every flag of `written` set (_check_written)
        # cp.async: copies in flight per byte, the copies themselves, each thread's group
        self.in_flight = np.zeros(self.nblocks * self.window, np.int32)
        self.copies: list[dict] = []
        self.copy_group = np.zeros(total, np.int64)
        # TMA: copies in flight (landing at a wait that sees their mbarrier phase complete)
        # and the mbarriers' state, one slot per 8 window bytes (allocated at first use)
        self.bulk_copies: list[dict] = []
        self.mbarriers: dict[str, np.ndarray] | None = None
        # TMA / bulk stores: their shared sources being read (until the issuing thread's
        # bulk wait), each thread's bulk group, and, where a kernel has such stores, the
        # thread whose plain store last wrote each byte and has not fenced it since (+1)
        self.bulk_reads: list[dict] = []
        self.reading = np.zeros(0, np.int32)
        self.bulk_group = np.zeros(total, np.int64)
        self.unfenced = np.zeros(self.nblocks * self.window, np.int64) if any(
            isinstance(st, (TmaStore, BulkStore, Wgmma)) for st in k.statements()) else None
        # where a tile's bytes came from: per byte, the TMA map (its index in `origin_maps`,
        # + 1) and global element (flat) that wrote it, 0 where unknown (runs on values,
        # with an observer, of kernels with TMA loads: check's layout agreement)
        self.origin = np.zeros(self.nblocks * self.window, np.int64) if (
            partial is None or partial.statements is None or partial.origin) and \
            observer is not None and any(isinstance(st, TmaLoad) for st in k.statements()) \
            else None
        # and per byte, the TMA element the array's declaration expects there (the box's
        # rows laid in its logical index, then its layout): a reader by index compares
        self.intent = None if self.origin is None else np.zeros_like(self.origin)
        self.origin_maps: list = []
        # PartialRun.signature: per hash, per thread, the decisions it took so far
        self.signature = None if partial is None or not partial.signature else \
            np.zeros((len(_SIGNATURE_MULTIPLIERS), total), np.uint64)
        self._numbers = {id(x): n for n, x in enumerate(k.statements())} \
            if self.signature is not None else {}
        self.exited = np.zeros(total, bool)    # threads that executed `return`
        self.returns = 0    # `return`s executed: a block's lanes are filtered again after one
        self._returning: dict[int, bool] = {}   # loop id -> a `return` inside it
        self.params = launch.params

    def _bind_globals(self, arrays: Mapping[str, np.ndarray], seed: int) -> dict:
        k, launch = self.kernel, self.launch
        known = {g.name for g in k.globals}
        for name in arrays:
            if name not in known:
                raise KernelError(f"unknown array '{name}'; the kernel's global arrays are "
                                  f"{sorted(known)}", kernel=k.name)
        made = make_arrays(launch, seed, self.blank) if len(arrays) < len(k.globals) else {}
        out = {}
        for g in k.globals:
            if g.name not in arrays:
                out[g.name] = made[g.name]
                continue
            a = np.asarray(arrays[g.name])
            n = launch.lengths[g.name]
            if a.dtype != g.dtype.storage:
                raise KernelError(f"array '{g.name}' is {g.dtype} ({g.dtype.storage}) but "
                                  f"{a.dtype} was given", kernel=k.name)
            if a.size != n:
                raise KernelError(f"array '{g.name}' needs {n} elements at these parameters, "
                                  f"{a.size} were given", kernel=k.name)
            if g.name in self.blank:
                out[g.name] = a.reshape(-1)   # (its values matter to no one: not copied)
            elif g.intent == "in":
                # the IR never writes an input (the builder refuses stores and atomics to
                # one): a read-only view, not a copy the size of the input (#28)
                view = a.reshape(-1).view()
                view.flags.writeable = False
                out[g.name] = view
            else:
                out[g.name] = a.reshape(-1).copy()
        for v in k.global_views:   # the same bytes as another type (writes go through)
            nbytes = launch.lengths[v.name] * v.dtype.storage.itemsize
            out[v.name] = out[v.base.name].view(np.uint8)[:nbytes].view(v.dtype.storage)
        return out

    # ------------------------------------------------------------ faults
    def _where(self, gid: int) -> dict:
        tl = int(gid % self.tpb)
        bl = int(self.block_ids[gid // self.tpb])
        bx, by, _ = self.launch.block
        gx, gy, _ = self.launch.grid
        return dict(block=(bl % gx, bl // gx % gy, bl // (gx * gy)),
                    thread=(tl % bx, tl // bx % by, tl // (bx * by)),
                    iterations={v.name: int(self.iterations[v][gid]) for v in self.loop_stack},
                    values={v.name: self.vars[v][gid].item() for v in self.loop_stack
                            if v in self.vars})

    def _fault(self, stmt, message: str, gid: int) -> KernelRuntimeError:
        return KernelRuntimeError(message, kernel=self.kernel.title, stmt=format_stmt(stmt),
                                  loc=stmt.loc, **self._where(gid))

    # ------------------------------------------------------------ expressions
    def leaf(self, e: Expr, idx: np.ndarray) -> np.ndarray:
        op = e.op
        if op is Op.VAR:
            # every lane (idx is then 0..total-1 in order): a copy, cheaper than a gather
            return self.vars[e.arg].copy() if idx.size == self.total else self.vars[e.arg][idx]
        if op is Op.SPECIAL:
            if e.arg in self.special:
                return self.special[e.arg][idx]
            return np.full(idx.size, self.dims[e.arg], e.dtype.np)
        if op is Op.PARAM:
            return np.full(idx.size, self.params[e.arg], e.dtype.np)
        if op is Op.COMPONENT:
            return self.vars[e.src[0].arg][idx, e.arg]
        # Op.LOCAL_READ
        arr = e.arg
        flat = self._local_offsets(arr, e.src, idx)
        return self.local_arrays[arr].reshape(self.total, -1)[self._local_cells(idx, flat)]

    def _local_cells(self, idx: np.ndarray, flat: np.ndarray):
        """The (lane, element) cells of a register array that `idx`'s lanes address at
        `flat`: where every lane addresses one element (`v[2]`, the common case), a column,
        and for every thread of the launch a slice, rather than pairs of index arrays
        (cuda-samples' dxtc spends its time in register arrays)."""
        if flat.size and flat[0] == flat[-1] and (flat == flat[0]).all():
            col = int(flat[0])
            return (slice(None), col) if idx.size == self.total else (idx, col)
        return idx, flat

    def _local_offsets(self, arr: LocalArray, index, idx: np.ndarray) -> np.ndarray:
        flat = np.zeros(idx.size, np.int64)
        for dim, (i_expr, extent) in enumerate(zip(index, arr.shape)):
            i = self.eval(i_expr, idx).astype(np.int64)
            bad = (i < 0) | (i >= extent)
            if bad.any():
                lane = int(np.flatnonzero(bad)[0])
                raise LaneFault(f"index {i[lane]} of dimension {dim} of register array "
                                f"'{arr.name}' is outside 0..{extent - 1}", np.array([lane]))
            flat = flat * extent + i
        return flat

    @property
    def loop_stack(self) -> list[Var]:
        """The loops the running code is inside, innermost last (each branch coroutine has
        its own)."""
        return self.coroutines.current.loop_stack if self.coroutines is not None \
            else self._loop_stack

    @property
    def _in_branch(self) -> bool:
        return self.coroutines is not None and self.coroutines.inside

    # ------------------------------------------------------------ statements
    def execute(self) -> None:
        self.exec_block(self.kernel.body, np.arange(self.total, dtype=np.int64))

    def exec_block(self, stmts, idx: np.ndarray) -> None:
        only = None if self.partial is None else self.partial.statements
        probes = None if self.partial is None else self.partial.probes
        returns = 0
        for s in stmts:
            if self.returns != returns:  # threads that returned take no further part
                returns = self.returns
                idx = idx[~self.exited[idx]]
            if idx.size == 0:
                return
            try:
                if probes is not None and id(s) in probes:
                    for p in probes[id(s)]:
                        if p.array is not None:
                            self._local_offsets(p.array, p.index, idx)
                        else:
                            self.eval(p.expr, idx)
                if only is not None and id(s) not in only:
                    continue
                handler = _EXECUTE.get(type(s))
                if handler is None:
                    raise unsupported("the interpreter", s, self.kernel.name)
                self.steps += 1
                handler(self, s, idx)
            except LaneFault as fault:
                raise self._fault(s, fault.message, int(idx[fault.lanes[0]])) from None

    def _assign(self, s: Let | Assign, idx: np.ndarray) -> None:
        var = s.var
        if var not in self.vars:
            self.vars[var] = np.zeros(self.total, var.dtype.np)
        self.vars[var][idx] = convert(self.eval(s.value, idx), var.dtype)

    def _assert(self, s: Assert, idx: np.ndarray) -> None:
        failed = self.eval(s.cond, idx) == 0
        if failed.any():
            raise LaneFault("__trap() stops the kernel here (the launch fails)" if s.traps else
                            f"{s.text}: the GPU stops the kernel here (the launch fails with "
                            "cudaErrorMisalignedAddress)" if s.misaligned else
                            f"assertion `{s.text}` failed: the GPU stops the kernel here (the "
                            "launch fails with cudaErrorAssert)", np.flatnonzero(failed)[:1])

    def _decide(self, s: If | Loop, lanes: np.ndarray, taken: np.ndarray) -> None:
        """Fold a condition's outcome on these lanes into their signatures (PartialRun.
        signature): the statement's place in the kernel, and whether the lane took it."""
        code = np.uint64(2 * self._numbers[id(s)] + 1) + taken.astype(np.uint64)
        for h, m in zip(self.signature, _SIGNATURE_MULTIPLIERS):   # (1-D: 10x a 2-D gather)
            if lanes.size == self.total:     # every thread (in order): no gather
                h *= m
                h += code
            else:
                h[lanes] = h[lanes] * m + code

    def _if(self, s: If, idx: np.ndarray) -> None:
        c = self.eval(s.cond, idx) != 0
        if self.signature is not None:
            self._decide(s, idx, c)
        if c.any() and not c.all() and self._waits_inside(s):
            # both sides have lanes and one waits on an mbarrier: the other side may be what
            # it waits for (a producer and its consumers), so they run as coroutines
            if self.coroutines is None:
                self.coroutines = Scheduler(self, self._loop_stack)
            self.coroutines.together([(s.then, idx[c]), (s.orelse, idx[~c])])
            return
        self.exec_block(s.then, idx[c])
        self.exec_block(s.orelse, idx[~c])

    def _waits_inside(self, s: If) -> bool:
        if id(s) not in self._waiting_ifs:
            # (a wait this run does not execute cannot hold a side back)
            only = None if self.partial is None else self.partial.statements
            self._waiting_ifs[id(s)] = any(isinstance(x, MbarrierWait) and (
                only is None or id(x) in only) for x in walk(s.then + s.orelse))
        return self._waiting_ifs[id(s)]

    def _declare_local(self, s: DeclareLocal, idx: np.ndarray) -> None:
        arr = s.array
        if arr not in self.local_arrays:   # made zeroed
            self.local_arrays[arr] = np.zeros((self.total, *arr.shape), arr.dtype.np)
        elif idx.size == self.total:       # every thread: one fill, no index array
            self.local_arrays[arr].fill(0)
        else:
            self.local_arrays[arr].reshape(self.total, -1)[idx] = 0

    def _local_store(self, s: LocalStore, idx: np.ndarray) -> None:
        flat = self._local_offsets(s.array, s.index, idx)
        value = convert(self.eval(s.value, idx), s.array.dtype)
        self.local_arrays[s.array].reshape(self.total, -1)[self._local_cells(idx, flat)] = value

    def _loop(self, s: Loop, idx: np.ndarray) -> None:
        var = s.var
        if var not in self.vars:
            self.vars[var] = np.zeros(self.total, var.dtype.np)
            self.iterations[var] = np.zeros(self.total, np.int64)
        self.vars[var][idx] = convert(self.eval(s.start, idx), var.dtype)
        self.iterations[var][idx] = 0
        # inside a branch coroutine every iteration runs (the shortcuts below keep state of
        # their own that another branch could see half made)
        p = self.partial if not self._in_branch and self.signature is None else None
        if p is not None and id(s) in p.collapse:
            if id(s) in p.summed:
                return self._summed_loop(s, idx)
            if self._collapsed_loop(s, idx):
                return
        if p is not None and id(s) in p.endpoints and self._endpoint_loop(s, idx):
            return
        if p is not None and p.statements is not None and not (p.track or p.sources) and \
                self._periodic_loop(s, idx):
            return
        limit = None
        if p is not None and id(s) in p.truncate and not self._returns_inside(s):
            trips = self._closed_form_trips(s, idx)
            if trips is not None:
                # the lanes of each block agree (idx is in thread order, blocks contiguous)
                block = idx // self.tpb
                starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
                if (np.minimum.reduceat(trips, starts) ==
                        np.maximum.reduceat(trips, starts)).all():
                    limit = 2
        self.loop_stack.append(var)
        try:
            active, first, count, ceiling = idx, True, 0, self.loop_limit
            while active.size:
                if self.returns:
                    active = active[~self.exited[active]]
                if limit is not None:  # lanes that have run their two iterations stop
                    active = active[self.iterations[var][active] < limit]
                    if not active.size:
                        break
                if not (first and s.do_while):
                    going = self.eval(s.cond, active) != 0
                    if self.signature is not None:
                        self._decide(s, active, going)
                    active = active[going]
                    if not active.size:
                        break
                first = False
                self.exec_block(s.body, active)
                if not self._advance(s, active):
                    raise LaneFault(f"{loop_label(var.name)} steps by 0 and never ends",
                                    np.flatnonzero(self.eval(s.step, active) == 0)[:1])
                if active.size == self.total:
                    self.iterations[var] += 1
                else:
                    self.iterations[var][active] += 1
                count += 1
                if count > ceiling:
                    left = self._closed_form_trips(s, active, start=self.vars[var][active]) \
                        if ceiling < MAX_LOOP_ITERATIONS else None
                    if left is None:
                        raise LaneFault(f"{loop_label(var.name)} ran {count:,} iterations without "
                                        f"ending{self._limit_note(ceiling)}",
                                        np.zeros(1, np.int64))
                    # a counted loop that ends: run it out, where the interpreter's limit
                    # allows (past it, refused now rather than after millions of iterations)
                    if count + int(left.max()) > MAX_LOOP_ITERATIONS:
                        raise LaneFault(self._too_many(var, count + int(left.max())),
                                        np.argmax(left)[None])
                    ceiling = count + int(left.max())
        except LaneFault as fault:
            lanes = fault.lanes
            where = active if active.size else idx
            raise self._fault(s, fault.message, int(where[lanes[0]])) from None
        finally:
            self.loop_stack.pop()

    def _returns_inside(self, s: Loop) -> bool:
        """Whether a lane may return inside the loop (then no iteration stands for others;
        lanes that returned before it are not among its lanes: exec_block leaves them out)."""
        known = self._returning.get(id(s))
        if known is None:
            known = self._returning[id(s)] = any(isinstance(x, Return) for x in walk(s.body))
        return known

    def _endpoint_loop(self, s: Loop, idx: np.ndarray) -> bool:
        """Run each lane's first, second and last iteration (PartialRun.endpoints), and the
        same three of the interval each guard holds on (PartialRun.guards); False, with the
        loop variable as it was, where the loop must run whole instead."""
        trips = self._closed_form_trips(s, idx)
        if trips is None or self._returns_inside(s) or self._recorded is not None:
            return False
        var = s.var
        start = self.vars[var][idx].astype(np.int64)
        step = self.eval(s.step, idx).astype(np.int64)
        statements = self.partial.statements
        contexts = {key: ctx for key, ctx in _guard_contexts(s.body, self.partial.guards).items()
                    if statements is None or key in statements}   # the accesses this run makes
        self.loop_stack.append(var)
        try:
            at = lambda k, lanes: convert(start[lanes] + k * step[lanes], var.dtype)
            # per guard context (the guards around an access): each lane's interval [lo, hi]
            spans = {(): (np.zeros_like(trips), trips - 1)}
            for ctx in {ctx for ctx, _ in contexts.values()} - {()}:
                spans[ctx] = self._guard_span(ctx, var, idx, trips, at)
                if spans[ctx] is None:
                    return self._whole_loop(s, idx, start)
            # phases: (lanes that run, their k); each span takes three, its first, second
            # and last iteration
            phases, of_span = [], {}
            for ctx, (lo, hi) in spans.items():
                of_span[ctx] = len(phases)
                for run, k in ((hi >= lo, lo), (hi >= lo + 1, lo + 1), (hi >= lo + 2, hi)):
                    phases.append((run, k))
            self._recorded = {}
            for phase, (run, k) in enumerate(phases):
                if not run.any():
                    continue
                lanes = idx[run]
                self.vars[var][lanes] = at(k[run], run)
                self.iterations[var][lanes] = k[run]
                self._phase = phase
                self.exec_block(s.body, lanes)
            held = self._progressions(idx, phases, of_span, spans, contexts)
        except (KernelRuntimeError, LaneFault):
            held = False  # the whole loop names the first faulting iteration
        finally:
            self.loop_stack.pop()
            self._recorded = None
        if not held:
            return self._whole_loop(s, idx, start)
        self.vars[var][idx] = convert(start + trips * step, var.dtype)  # as C leaves it
        self.iterations[var][idx] = trips
        return True

    def _whole_loop(self, s: Loop, idx: np.ndarray, start: np.ndarray) -> bool:
        """The loop variable as the loop found it (and False: run the loop whole)."""
        self.vars[s.var][idx] = convert(start, s.var.dtype)
        self.iterations[s.var][idx] = 0
        return False

    def _guard_span(self, ctx: tuple, var: Var, idx: np.ndarray, trips: np.ndarray, at):
        """Each lane's interval [lo, hi] of iterations k in [0, trips) on which every guard
        of `ctx` holds (lo > hi: none), or None where a side of a comparison is not one
        progression over the lane's iterations (an integer wrapped)."""
        lo, hi = np.zeros_like(trips), trips - 1
        some = trips >= 1
        lanes = idx[some]
        ends = (np.zeros(lanes.size, np.int64), np.minimum(trips[some] - 1, 1),
                trips[some] - 1)
        for compare in (c for g in ctx for c in self.partial.guards[g]):
            operand = promote(compare.src[0].dtype, compare.src[1].dtype)
            values = []   # per side: its value at k = 0, 1 (or 0) and trips - 1
            for k in ends:
                self.vars[var][lanes] = at(k, some)
                values.append([convert(self.eval(e, lanes), operand).astype(np.int64)
                               for e in compare.src])
            (a0, b0), (a1, b1), (aL, bL) = values
            slope_a, slope_b = a1 - a0, b1 - b0
            n = ends[2]
            if not (np.array_equal(a0 + n * slope_a, aL) and np.array_equal(b0 + n * slope_b,
                                                                            bL)):
                return None
            first, last = affine_interval(compare.op, a0 - b0, slope_a - slope_b, n)
            lo[some] = np.maximum(lo[some], first)
            hi[some] = np.minimum(hi[some], last)
        return lo, hi

    def _progressions(self, idx: np.ndarray, phases: list, of_span: dict, spans: dict,
                      contexts: dict) -> bool:
        """Whether each access's element offsets at a lane's last iteration of its span are
        its first plus (length - 1) times the step between its first two: one progression,
        so no integer wrapped in between and every iteration's offset lies between the
        ends. An access of the loop's own body must have run in its span's phases on
        exactly the lanes whose span has those iterations (else a guard held elsewhere than
        its interval says); one inside a loop within it runs once per iteration of that
        loop, the same iterations in every phase, and is compared execution by execution."""
        pos = np.full(self.total, -1, np.int64)
        pos[idx] = np.arange(idx.size)
        for key, (ctx, inner) in contexts.items():
            recorded = self._recorded.get(key, {})
            at = of_span[ctx]
            lo, hi = spans[ctx]
            execs = [recorded.get(at + j, []) for j in range(3)]
            runs = [idx[phases[at + j][0]] for j in range(3)]
            if not inner and any(len(e) != (1 if r.size else 0) or (e and not np.array_equal(
                    e[0][0], r)) for e, r in zip(execs, runs)):
                return False
            if len(execs[2]) > min(len(execs[0]), len(execs[1])):
                return False
            for (l0, o0), (l1, o1), (lanes, last) in zip(*execs):
                first = np.full(self.total, -1, np.int64)
                second = np.full(self.total, -1, np.int64)
                seen = np.zeros(self.total, np.int8)
                first[l0], second[l1] = o0, o1
                seen[l0] += 1
                seen[l1] += 1
                if (seen[lanes] != 2).any():
                    return False  # the loops inside ran other iterations in other phases
                step = second[lanes] - first[lanes]
                n = (hi - lo)[pos[lanes]]
                if (np.abs(step) > 2 ** 31).any() or (n > 2 ** 31).any():
                    return False
                if not np.array_equal(first[lanes] + n * step, last):
                    return False
        return True

    def _collapsed_loop(self, s: Loop, idx: np.ndarray) -> bool:
        """Count each lane's iterations without the body; if all agree, run the body once.

        Returns False (run the loop normally) when the lanes' trip counts differ.
        """
        var = s.var
        trips = self._closed_form_trips(s, idx)
        active = np.arange(idx.size) if trips is None else np.zeros(0, np.int64)
        if trips is None:
            trips = np.zeros(idx.size, np.int64)
        first = True
        while active.size:
            lanes = idx[active]
            if not (first and s.do_while):
                keep = self.eval(s.cond, lanes) != 0
                active, lanes = active[keep], lanes[keep]
                if not active.size:
                    break
            first = False
            trips[active] += 1
            if not self._advance(s, lanes):
                return False  # the normal path reports the endless loop
            if trips.max() > self.loop_limit:
                return False  # the normal path reports it
        if trips.min() != trips.max():
            return False
        self.vars[var][idx] = convert(self.eval(s.start, idx), var.dtype)
        if trips[0] == 0:
            return True
        self.loop_stack.append(var)
        outer, self.weight = self.weight, self.weight * int(trips[0])
        try:
            self.exec_block(s.body, idx)
        finally:
            self.weight = outer
            self.loop_stack.pop()
        return True

    def _periodic_loop(self, s: Loop, idx: np.ndarray) -> bool:
        """Run a loop watching for repeated iterations (kernels_ir.periodic); False (nothing
        run) when it does not apply: no plan, trip counts or loop variable that differ
        between lanes, few trips, or watched expressions that cannot be evaluated ahead."""
        key = id(s)
        if key not in self.plans:
            self.plans[key] = plan(s, self.partial.statements)
        p = self.plans[key]
        if p is None or self._returns_inside(s) or any(e.op is Op.VAR and e.arg is s.var
                                               for e in p.watched):
            return False  # the variable itself watched: no two iterations alike
        trips = self._closed_form_trips(s, idx)
        if trips is None or trips.min() != trips.max() or trips[0] < PERIODIC_MIN_TRIPS:
            return False
        start = self.eval(s.start, idx).astype(np.int64)
        step = self.eval(s.step, idx).astype(np.int64)
        if start.min() != start.max() or step.min() != step.max():
            return False
        var, count = s.var, int(trips[0])
        if count > MAX_LOOP_ITERATIONS:  # each iteration is evaluated ahead: refuse at once
            raise self._fault(s, self._too_many(var, count), int(idx[0]))
        values = convert(start[0] + step[0] * np.arange(count + 1, dtype=np.int64), var.dtype)
        try:
            classes = iteration_classes(self, p, s, idx, values[:count])
        except (LaneFault, KernelError, KeyError):
            return False
        if classes.max() == count - 1:
            return False  # every iteration differs: nothing can repeat
        self.loop_stack.append(var)
        recorder = [0, []]
        self.recorders.append(recorder)
        seen: dict[tuple, list] = {}   # (iteration class, carried state) -> iterations
        states: dict[int, list] = {}
        t = 0
        try:
            while t < count:
                if seen is not None:
                    state = [self._carried(c)[idx].copy() for c in p.carried]
                    fingerprint = (int(classes[t]), b"".join(a.tobytes() for a in state))
                    jump = self._repeat(classes, seen.get(fingerprint, ()), t)
                    if jump is not None:
                        before, run = jump
                        self._replay(recorder, before, t, run)
                        for c, a in zip(p.carried, states[before + run % (t - before)]):
                            self._carried(c)[idx] = a
                        t += run
                        self.vars[var][idx] = values[t]
                        self.iterations[var][idx] = t
                        seen, states = {}, {}
                        recorder[1] = []
                        continue
                    seen.setdefault(fingerprint, []).append(t)
                    states[t] = state
                    if len(states) > PERIODIC_HISTORY:  # no repetition soon: stop watching
                        seen, states = None, None
                        self.recorders.remove(recorder)
                recorder[0] = t
                self.exec_block(s.body, idx)
                self._advance(s, idx)
                self.iterations[var][idx] += 1
                t += 1
        except LaneFault as fault:
            raise self._fault(s, fault.message, int(idx[fault.lanes[0]])) from None
        finally:
            if seen is not None:
                self.recorders.remove(recorder)
            self.loop_stack.pop()
        return True

    @staticmethod
    def _repeat(classes: np.ndarray, earlier, t: int):
        """(before, run): the latest earlier iteration, in the same state as iteration t,
        from which at least one whole period repeats (iterations t, t+1, ... repeat before,
        before+1, ... for `run` iterations, as far as the watched values do); else None."""
        count = classes.size
        for before in reversed(earlier):
            same = classes[t:] == classes[before:before + count - t]
            run = count - t if same.all() else int(np.argmin(same))
            if run >= t - before:
                return before, run
        return None

    def _carried(self, target) -> np.ndarray:
        """The per-thread storage of a variable or register array (one row per thread)."""
        if isinstance(target, LocalArray):
            if target not in self.local_arrays:
                self.local_arrays[target] = np.zeros((self.total, *target.shape),
                                                     target.dtype.np)
            return self.local_arrays[target].reshape(self.total, -1)
        if target not in self.vars:
            self.vars[target] = np.zeros(self.total, target.dtype.np)
        return self.vars[target]

    def _replay(self, recorder: list, before: int, now: int, run: int) -> None:
        """Report the shared accesses of `run` iterations from `now` on, which repeat those
        of iterations before..now-1 in turn: each recorded access once, weighted by how many
        of them it stands for."""
        period = now - before
        full, rest = divmod(run, period)
        outer = self.recorders[:-1]
        for t, access in recorder[1]:
            times = full + (t - before < rest)
            if t < before or not times:
                continue
            again = replace(access, weight=access.weight * times)
            self.observer(again)
            for r in outer:
                r[1].append((r[0], again))

    def _summed_loop(self, s: Loop, idx: np.ndarray) -> None:
        """Run the body once for the lanes with at least one trip (PartialRun.summed)."""
        var = s.var
        trips = self._closed_form_trips(s, idx)
        if trips is None:
            raise KernelError(f"{loop_label(var.name)} was to be summed per block but has no "
                              "closed-form trip count (an analysis bug)", kernel=self.kernel.name)
        per_block = np.zeros(self.nblocks, np.int64)
        per_block[self.block_lin[idx]] = trips
        if (per_block[self.block_lin[idx]] != trips).any():
            raise KernelError(f"{loop_label(var.name)} was to be summed per block but its trip "
                              "count differs within a block (an analysis bug)",
                              kernel=self.kernel.name)
        self.vars[var][idx] = convert(self.eval(s.start, idx), var.dtype)
        running = idx[trips > 0]
        if not running.size:
            return
        self.loop_stack.append(var)
        outer, self.scale = self.scale, id(s)
        try:
            self.exec_block(s.body, running)
        finally:
            self.scale = outer
            self.loop_stack.pop()

    def _advance(self, s: Loop, lanes: np.ndarray) -> bool:
        """Move the loop variable to its next value; False for a step of 0 (endless)."""
        var = s.var
        if s.update is not None:
            self.vars[var][lanes] = convert(self.eval(s.update, lanes), var.dtype)
            return True
        step = self._launch_constant(s.step)
        if step is None:
            step = self.eval(s.step, lanes)
            if (step == 0).any():
                return False
        elif step == 0:
            return False
        values = self.vars[var]
        with np.errstate(over="ignore"):
            if lanes.size == self.total:   # every lane: in place (a grid-stride loop's step)
                np.add(values, step, out=values, casting="unsafe")
            else:
                values[lanes] = values[lanes] + step
        return True

    def _launch_constant(self, e: Expr):
        """The value of an expression of launch constants alone (literals, parameters,
        blockDim, gridDim), computed once per run, or None for one that reads anything
        else (a grid-stride loop's `blockDim.x * gridDim.x` is evaluated once, not per
        iteration)."""
        key = id(e)
        if key not in self._constants:
            def constant(x: Expr) -> bool:
                if x.op in (Op.VAR, Op.COMPONENT, Op.LOCAL_READ):
                    return False
                if x.op is Op.SPECIAL and x.arg in self.special:
                    return False
                return all(constant(c) for c in x.src)
            self._constants[key] = (e, self.eval(e, np.zeros(1, np.int64))[0]) \
                if constant(e) else (e, None)
        return self._constants[key][1]

    def _closed_form_trips(self, s: Loop, idx: np.ndarray, start: np.ndarray | None = None
                           ) -> np.ndarray | None:
        """Trip counts of `for (v = a; v < b; v += c)` (or <=, >, >=) without iterating
        (from `start`, the variable's values now, instead of a: the trips left).

        None when the loop has another shape, or when its variable could wrap around.
        """
        if not s.counted:
            return None
        compared = promote(s.var.dtype, s.cond.src[1].dtype)
        stop = convert(self.eval(s.cond.src[1], idx), compared).astype(np.int64)
        begin = self.eval(s.start, idx) if start is None else start
        return trip_count(s.cond.op, begin.astype(np.int64), stop,
                          self.eval(s.step, idx).astype(np.int64), s.do_while, s.var.dtype,
                          compared)

    @staticmethod
    def _too_many(var: Var, count: int) -> str:
        """Why a counted loop is not run: more iterations than the interpreter runs."""
        return (f"{loop_label(var.name)} runs {count:,} iterations in one entry, more than the "
                f"{MAX_LOOP_ITERATIONS:,} the interpreter runs one by one")

    @staticmethod
    def _limit_note(ceiling: int) -> str:
        """Why a loop stopped at `ceiling` iterations, when that is run()'s loop_limit."""
        if ceiling == MAX_LOOP_ITERATIONS:
            return ""
        return (f" (the limit for one entry of a loop whose end has no closed form, "
                f"loop_limit or `--loop-limit`, is {ceiling:,})")

    def _return(self, s: Return, idx: np.ndarray) -> None:
        self.exited[idx] = True
        self.returns += 1

    def _sync(self, s: Sync, idx: np.ndarray) -> None:
        counts = np.bincount(self.block_lin[idx], minlength=self.nblocks)
        # threads that returned are not waited for (Volta and newer)
        live = self.tpb - np.bincount(self.block_lin[self.exited], minlength=self.nblocks) \
            if self.returns else self.tpb
        # a grid barrier waits for every live thread of every block (of the blocks run)
        partial = np.flatnonzero((counts != live) | (counts == 0)) if s.grid else \
            np.flatnonzero((counts != 0) & (counts != live))
        if partial.size:
            b = int(partial[0])
            if s.grid and counts[b] == 0 and not np.any(self.block_lin[~self.exited] == b):
                raise self._fault(s, f"grid.sync(): every thread of block "
                                     f"{self._where(b * self.tpb)['block']} has returned, and "
                                     "a grid barrier waits for every block of the launch",
                                  int(idx[0]))
            members = idx[self.block_lin[idx] == b]
            missing = np.setdiff1d(np.arange(b * self.tpb, (b + 1) * self.tpb), members)
            missing = missing[~self.exited[missing]]
            where = self._where(int(missing[0]))
            if s.grid:
                raise self._fault(s, f"divergent grid.sync(): {int(counts[b])} of the live "
                                     f"threads of block {where['block']} reach it (thread "
                                     f"{where['thread']} does not; every thread of the "
                                     "launch must)", int(missing[0]))
            raise self._fault(s, f"divergent __syncthreads(): {counts[b]} of {self.tpb} threads "
                                 f"of the block reach it (thread {where['thread']} does not)",
                              int(members[0]))
        if self.observer is not None:
            self.observer(BarrierReached(s, np.flatnonzero(counts)))

    def _sync_reduce(self, s, idx: np.ndarray) -> None:
        """A barrier (`_sync`'s checks), then each block's OR, AND or count of its threads'
        predicates, to each of its threads."""
        self._sync(s, idx)
        pred = (self.eval(s.pred, idx) != 0).astype(np.int64)
        blocks = self.block_lin[idx]
        true = np.bincount(blocks, weights=pred, minlength=self.nblocks).astype(np.int64)
        seen = np.bincount(blocks, minlength=self.nblocks)
        value = true if s.op == "count" else (true > 0) if s.op == "or" else (true == seen)
        if s.dst not in self.vars:
            self.vars[s.dst] = np.zeros(self.total, s.dst.dtype.np)
        self.vars[s.dst][idx] = value[blocks].astype(s.dst.dtype.np)

    # ------------------------------------------------------------ memory
    def _offsets(self, s, idx: np.ndarray) -> np.ndarray:
        """Element offsets of each lane's access, after bounds and alignment checks."""
        offsets = self._element_offsets(s.array, s.index, s.width, idx) \
            if not isinstance(s, Wgmma) or s.desc is None else self._descriptor_offsets(s, idx)
        if self._recorded is not None:  # an endpoint loop's iteration (_endpoint_loop)
            self._recorded.setdefault(id(s), {}).setdefault(self._phase, []).append(
                (idx.copy(), offsets.astype(np.int64)))
        return offsets

    def _descriptors(self, desc: Expr, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each lane's run-time descriptor and the shared byte its start field says."""
        value = self.eval(desc, idx).astype(np.uint64)
        return value, ((value & np.uint64(0x3FFF)) << np.uint64(4)).astype(np.int64)

    def _descriptor_offsets(self, s: Wgmma, idx: np.ndarray) -> np.ndarray:
        """Element offsets in B's array of the start a run-time descriptor says."""
        _, start = self._descriptors(s.desc, idx)
        base = self.kernel.buffer_base(s.array.buffer)
        size = s.array.dtype.size
        extent = math.prod(self.launch.extent(s.array)) * size
        outside = (start < base) | (start >= base + extent)
        if outside.any():
            lane = int(np.flatnonzero(outside)[0])
            raise LaneFault(f"wgmma's B descriptor starts at shared byte {int(start[lane])}, "
                            f"outside '{s.array.name}' (bytes {base}..{base + extent - 1})",
                            np.array([lane]))
        return (start - base) // size

    def _element_offsets(self, array, index, width: int, idx: np.ndarray) -> np.ndarray:
        """Element offsets of `width` elements at `array[index]` per lane, checked."""
        nbytes = width * array.dtype.size
        if isinstance(array, GlobalArray):
            extents, strides = (self.launch.lengths[array.name],), (1,)
        else:
            extents, strides = self.launch.extent(array), array.strides
        offset = None
        last = len(extents) - 1
        for dim, (i_expr, extent, stride) in enumerate(zip(index, extents, strides)):
            i = self.eval(i_expr, idx)
            limit = extent - (width - 1 if dim == last else 0)
            # reductions first: the per-lane mask is only built for a fault
            if i.size and (int(i.min()) < 0 or int(i.max()) >= limit):
                i = i.astype(np.int64)
                lane = int(np.flatnonzero((i < 0) | (i >= limit))[0])
                span = f"{width} elements at " if width > 1 else ""
                dim_text = f" of dimension {dim}" if len(extents) > 1 else ""
                # (a view of a source's variable is named as the source names it, its
                # index in the elements the access reads: `s`'s u32 words)
                variable = getattr(array, "variable", None) or \
                    getattr(getattr(array, "base", None), "name", None)
                named = f"'{array.name}'" if not variable or variable == array.name else \
                    f"'{variable}' in {array.dtype} elements"
                raise LaneFault(f"out of bounds: {span}index {i[lane]}{dim_text} of "
                                f"{named} (valid 0..{extent - 1})", np.array([lane]))
            term = i.astype(np.int64, copy=False)
            if stride != 1:
                term = term * stride
            offset = term if offset is None else offset + term
        if getattr(array, "layout", None) is not None:
            offset = array.layout.apply(offset)  # logical -> physical (bounds checked above)
        if width > 1:
            if isinstance(array, SharedArray):
                base = self.kernel.buffer_base(array.buffer)
                misaligned = (base + offset * array.dtype.size) % nbytes != 0
            else:
                misaligned = offset % width != 0
            if misaligned.any():
                lane = int(np.flatnonzero(misaligned)[0])
                raise LaneFault(f"misaligned {nbytes}-byte access to '{array.name}' at "
                                f"element offset {offset[lane]} (byte "
                                f"{offset[lane] * array.dtype.size}); vector accesses must be "
                                "naturally aligned", np.array([lane]))
        return offset

    def _addresses_only(self, s, idx: np.ndarray, offset: np.ndarray) -> bool:
        """In a run for addresses only (a PartialRun's slice), report the access (a shared
        one, or a global one to an observer) and say so: its values are not needed."""
        if self.partial is None or self.partial.statements is None:
            return False
        if isinstance(s.array, SharedArray):
            _, first = self._shared_elements(s, idx, offset)
            if self.partial.track:
                self._track(s, idx, first, offset)
        elif self.observer is not None:
            self.observer(GlobalAccess(s, idx, offset))
        return True

    def _track(self, s: Access, idx: np.ndarray, first: np.ndarray,
               offset: np.ndarray) -> None:
        """What a full run checks of a shared access's bytes, without their values."""
        if isinstance(s, CopyAsync):
            self._issue_copy(s, idx, first, None)
        elif isinstance(s, TmaLoad):
            origin = self._tma_origin(s, idx)
            self._issue_tma(s, idx, first, None, origin,
                            self._tma_intent(s, idx, offset, origin))
        elif isinstance(s, BulkLoad):
            self._issue_tma(s, idx, first, None)
        elif isinstance(s, (TmaStore, BulkStore)):
            self._issue_bulk_read(s, idx, first)
        elif isinstance(s, Wgmma):
            operands = self._gmma_operands(s, idx)
            if self.origin is not None:
                self._check_operands(s, *operands)
        elif isinstance(s, Store):
            self._check_settled(s, first, s.width, reading=False)
            self._plain_write(self._bytes(s, first, s.width), idx, s.width * s.array.dtype.size)
        else:  # a load or an atomic reads the bytes
            self._check_written(s, first, s.width)
            if isinstance(s, Load) and self.intent is not None:
                self._check_reader(s, offset, self._bytes(s, first, s.width), idx)

    def _plain_write(self, nbytes: np.ndarray, idx: np.ndarray, per_lane: int) -> None:
        """Bytes a thread's store wrote (`per_lane` bytes per lane of `idx`, in order): written,
        unpublished to the async proxy until that thread's fence (kernels with TMA or bulk
        stores or wgmma), and no longer what TMA put there."""
        self.written[nbytes] = True
        if self.unfenced is not None:
            self.unfenced[nbytes] = np.repeat(idx + 1, per_lane)
        if self.origin is not None:
            self.origin[nbytes] = 0
            self.intent[nbytes] = 0

    @staticmethod
    def _bytes(s, first: np.ndarray, elements: int) -> np.ndarray:
        """Byte indices (into the blocks' windows) of `elements` elements of `s`'s array
        from each lane's `first` element."""
        size = s.array.dtype.size
        return (first[:, None] * size + np.arange(elements * size)).ravel()

    def _shared_elements(self, s, idx: np.ndarray, offset: np.ndarray, values=None):
        """The typed view of shared memory and each lane's element indices into it (a store
        passes its values, so that observers see the bytes written)."""
        array = s.array
        size = array.dtype.size
        base = self.kernel.buffer_base(array.buffer)
        addr = base + offset * size
        if self.observer is not None:
            first_gid = int(idx[0])
            its = tuple((v.name, int(self.iterations[v][first_gid])) for v in self.loop_stack)
            stored = None if values is None else np.ascontiguousarray(
                np.stack(values, axis=1)).view(np.uint8).reshape(idx.size, -1)
            access = SharedAccess(s, idx, addr, self.weight, its, stored, self.scale)
            self.observer(access)
            for r in self.recorders:
                r[1].append((r[0], access))
        # the window is a multiple of 16, so the division is exact per element (and a
        # buffer starts at a multiple of its element's size: no division per lane)
        within = base // size + offset if base % size == 0 else addr // size
        block = self.block_lin if idx.size == self.total else self.block_lin[idx]
        first = block * (self.window // size) + within
        return self.shared.view(array.dtype.storage), first

    def _check_settled(self, s, first: np.ndarray, width: int, reading: bool) -> None:
        """No byte of the access may still be the target of an asynchronous copy in flight
        (nor, written, the source of a bulk store not yet waited for)."""
        if not (self.copies or self.bulk_copies or self.bulk_reads):
            return   # nothing in flight: no byte to look up (a grid-stride loop's every access)
        size = s.array.dtype.size
        self._check_bytes_settled(s.array, first[:, None] * size + np.arange(width * size),
                                  reading)

    def _check_bytes_settled(self, array, nbytes: np.ndarray, reading: bool,
                             lanes: np.ndarray | None = None, who: str = "") -> None:
        """`_check_settled` of explicit bytes: one row of `nbytes` per lane (`lanes`: the
        rows' lanes, when not in order), read or written by `who` (a thread by default)."""
        def fault(message: str, row: int):
            byte = int(nbytes[row, 0] % self.window)
            raise LaneFault(f"{who}{'reads' if reading else 'writes'} '{array.name}' (byte "
                            f"{byte} of the block's window) while {message}",
                            np.array([row]) if lanes is None else lanes[row:row + 1])
        if self.bulk_reads and not reading:
            busy = self.reading[nbytes].any(axis=1)
            if busy.any():
                row = int(np.flatnonzero(busy)[0])
                store = next(c["stmt"] for c in self.bulk_reads
                             if np.isin(nbytes[row], c["bytes"]).any())
                fault(f"the {_BULK_NAMES[type(store)]} of line {store.loc.line} still reads "
                      "it: the issuing thread's cp.async.bulk.wait_group.read (and a "
                      "__syncthreads() for other threads) must come first", row)
        if not self.copies and not self.bulk_copies:
            return
        busy = self.in_flight[nbytes].any(axis=1)
        if busy.any():
            row = int(np.flatnonzero(busy)[0])
            tma = next((c for c in self.bulk_copies
                        if np.isin(nbytes[row], c["bytes"]).any()), None)
            if tma is not None:
                copy = tma["stmt"]
                fault(f"the {_BULK_NAMES[type(copy)]} of line {copy.loc.line} to it is still "
                      f"in flight: wait on its mbarrier '{copy.barrier.name}' first (a wait "
                      "that sees the phase of the copy complete)", row)
            copy = next((c for c in self.copies if np.isin(
                nbytes[row], self._bytes(c["stmt"], c["first"], c["stmt"].width)).any()), None)
            if copy is not None and (copy["slot"] >= 0).any():
                fault(f"the cp.async of line {copy['stmt'].loc.line} to it is still in flight: "
                      "it completes on an mbarrier (cp.async.mbarrier.arrive; "
                      "cuda::memcpy_async on a cuda::barrier): wait on that barrier first",
                      row)
            fault("a cp.async to it is still in flight: the issuing thread's "
                  "cp.async.wait_group must come first (and a __syncthreads() for other "
                  "threads)", row)

    def _check_written(self, s: Load, first: np.ndarray, width: int) -> None:
        self._check_settled(s, first, width, reading=True)
        if self._all_written:
            return
        if self.written.size <= 4 * first.size:
            # a window no larger than the access's lanes (a histogram's bins, read every
            # iteration of a grid-stride loop): look at the whole of it once it is all
            # written (flags are only ever set), instead of at each lane's bytes
            self._all_written = bool(self.written.all())
            if self._all_written:
                return
        size = s.array.dtype.size
        nbytes = width * size
        # Accesses are naturally aligned, so an access's written-flags are one unsigned word
        # of the flag bytes (two for 16 bytes): all written iff every byte of it is 1.
        unit = min(nbytes, 8)
        words = self.written.view(np.uint8).view(f"u{unit}")
        at = first * size // unit
        ones = int.from_bytes(b"\x01" * unit, "little")
        ok = words[at] == ones
        if nbytes == 16:
            ok &= words[at + 1] == ones
        if not ok.all():
            lane = int(np.flatnonzero(~ok)[0])
            byte = int(first[lane] * size % self.window)
            raise LaneFault(f"reads shared memory no thread has written ('{s.array.name}', byte "
                            f"{byte} of the block's window): uninitialized in CUDA",
                            np.array([lane]))

    def _load(self, s: Load, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        array, dst, w = s.array, s.dst, s.width
        if self._addresses_only(s, idx, offset):
            return
        if isinstance(array, SharedArray):
            memory, first = self._shared_elements(s, idx, offset)
            self._check_written(s, first, w)
            if self.intent is not None:
                self._check_reader(s, offset, self._bytes(s, first, w), idx)
        else:
            memory, first = self.globals[array.name], offset
            if self.observer is not None:
                self.observer(GlobalAccess(s, idx, offset))
        if dst not in self.vars:
            shape = (self.total, w) if w > 1 else (self.total,)
            self.vars[dst] = np.zeros(shape, dst.dtype.np)
        stored = memory[first[:, None] + np.arange(w)] if w > 1 else memory[first]
        if idx.size == self.total:
            self.vars[dst][...] = from_storage(stored, array.dtype)
        else:
            self.vars[dst][idx] = from_storage(stored, array.dtype)  # f16/bf16 widen to f32

    def _atomic(self, s: Atomic, idx: np.ndarray) -> None:
        """Lanes at one address apply one after another, in thread order (the GPU's order is
        unspecified: only results that do not depend on it compare with a GPU run)."""
        offset = self._offsets(s, idx)
        array = s.array
        if self._addresses_only(s, idx, offset):
            return
        value = convert(self.eval(s.value, idx), array.dtype)
        compare = None if s.compare is None else convert(self.eval(s.compare, idx),
                                                         array.dtype)
        if isinstance(array, SharedArray):
            memory, first = self._shared_elements(s, idx, offset)
            self._check_written(s, first, 1)
        else:
            memory, first = self.globals[array.name], offset
            if self.observer is not None:
                self.observer(GlobalAccess(s, idx, offset))
        at_once = _UFUNC_AT.get(s.kind)
        if s.dst is None and at_once is not None and memory.dtype == value.dtype:
            # the result is unused: one unbuffered ufunc.at applies every lane, in thread
            # order per address as below (it applies its indices in order), without a pass
            # per rank (a histogram's 256 lanes at one bin took 256 passes)
            with np.errstate(over="ignore", invalid="ignore"):   # (inf - inf: NaN, as the GPU)
                at_once.at(memory, first, value)
            return
        old = np.empty(idx.size, array.dtype.np)
        # rank of each lane among the lanes at its address, in thread order
        order = np.lexsort((idx, first))
        at = first[order]
        starts = np.flatnonzero(np.r_[True, at[1:] != at[:-1]])
        rank = np.arange(at.size) - np.repeat(starts, np.diff(np.r_[starts, at.size]))
        with np.errstate(over="ignore", invalid="ignore"):
            for r in range(int(rank.max()) + 1 if rank.size else 0):
                lanes = order[rank == r]
                where = first[lanes]
                cur = memory[where]
                old[lanes] = cur
                memory[where] = _atomic_result(s.kind, cur, value[lanes],
                                               None if compare is None else compare[lanes])
        if s.dst is not None:
            if s.dst not in self.vars:
                self.vars[s.dst] = np.zeros(self.total, s.dst.dtype.np)
            self.vars[s.dst][idx] = old

    # ------------------------------------------------------------ cp.async
    def _copy_async(self, s: CopyAsync, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        if self._addresses_only(s, idx, offset):
            if self.partial.sources:
                self._element_offsets(s.src, s.src_index, s.width, idx)
            return
        values = self._copied(s, idx)
        # observers see the bytes the copy will write (two lanes copying the same bytes to
        # one place, as cooperative groups' memcpy_async has a tile's last lanes do, are
        # no order-dependent race)
        _, first = self._shared_elements(s, idx, offset,
                                         tuple(values[:, j] for j in range(s.width)))
        self._issue_copy(s, idx, first, values)

    def _copied(self, s: CopyAsync, idx: np.ndarray) -> np.ndarray:
        """The elements a copy writes, per lane: read from its source, or zeros past its
        `src_bytes` (a lane that reads none never touches its source address)."""
        if s.src_bytes is None:
            src_offset = self._element_offsets(s.src, s.src_index, s.width, idx)
            if self.observer is not None:
                self.observer(GlobalAccess(s, idx, src_offset))
            return self.globals[s.src.name][src_offset[:, None] + np.arange(s.width)]
        size = s.src.dtype.size
        got = self.eval(s.src_bytes, idx).astype(np.int64)
        bad = (got % size != 0) | (got > s.width * size)
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            raise LaneFault(f"cp.async reads {int(got[lane])} of its {s.width * size} bytes: "
                            f"not a whole number of {size}-byte elements of "
                            f"'{s.src.name}' (or more than it copies)", np.array([lane]))
        values = np.zeros((idx.size, s.width), s.src.dtype.np)
        reading = got > 0
        if reading.any():
            src_offset = self._element_offsets(s.src, s.src_index, s.width, idx[reading])
            if self.observer is not None:
                self.observer(GlobalAccess(s, idx[reading], src_offset))
            read = self.globals[s.src.name][src_offset[:, None] + np.arange(s.width)]
            keep = np.arange(s.width)[None, :] < (got[reading] // size)[:, None]
            values[reading] = np.where(keep, read, 0)
        return values

    def _issue_copy(self, s: CopyAsync, idx: np.ndarray, first: np.ndarray, values) -> None:
        """Put a copy in flight until its group is waited for (`values` None: a check's run
        follows the bytes, not what they hold)."""
        self._check_settled(s, first, s.width, reading=False)
        self.in_flight[self._bytes(s, first, s.width)] += 1
        # slot: the mbarrier a cp.async.mbarrier.arrive tied the copy to (-1: none yet), and
        # phase: that barrier's phase then (the copy lands when it has completed)
        self.copies.append(dict(stmt=s, threads=idx.copy(), group=self.copy_group[idx].copy(),
                                first=first, values=values, slot=np.full(idx.size, -1),
                                phase=np.zeros(idx.size, np.int64)))

    def _commit_group(self, s: CommitGroup, idx: np.ndarray) -> None:
        self.copy_group[idx] += 1

    def _wait_group(self, s: WaitGroup, idx: np.ndarray) -> None:
        """Copies of these threads in committed groups older than the newest `pending` land."""
        waiting = np.zeros(self.total, bool)
        waiting[idx] = True
        self._land_copies(lambda c: waiting[c["threads"]] &
                          (c["group"] < self.copy_group[c["threads"]] - s.pending))

    def _land_copies(self, landed) -> None:
        """The cp.async copies (rows of each issued copy) that `landed(copy)` selects land."""
        kept = []
        for c in self.copies:
            done = landed(c)
            if done.any():
                stmt = c["stmt"]
                memory = self.shared.view(stmt.array.dtype.storage)
                first = c["first"][done]
                if c["values"] is not None:  # None: a check's run tracks bytes, not values
                    memory[first[:, None] + np.arange(stmt.width)] = c["values"][done]
                nbytes = self._bytes(stmt, first, stmt.width)
                self.written[nbytes] = True
                self.in_flight[nbytes] -= 1
            if not done.any():
                kept.append(c)     # untouched: no copy of its rows
            elif not done.all():
                kept.append({k: (v[~done] if isinstance(v, np.ndarray) else v)
                             for k, v in c.items()})
        self.copies = kept

    # ------------------------------------------------------------ TMA and mbarriers
    def _mbarrier_slots(self, array, index, idx: np.ndarray) -> np.ndarray:
        """Each lane's mbarrier as a slot (its flat window byte / 8) of its block."""
        offset = self._element_offsets(array, index, 1, idx)
        base = self.kernel.buffer_base(array.buffer)
        return (self.block_lin[idx] * self.window + base + offset * 8) // 8

    def _mbarrier_state(self) -> dict[str, np.ndarray]:
        if self.mbarriers is None:
            n = self.nblocks * self.window // 8
            self.mbarriers = {k: np.zeros(n, np.int64)
                              for k in ("count", "pending", "tx", "phase", "ready")}
        return self.mbarriers

    def _require_init(self, array, slots: np.ndarray) -> dict[str, np.ndarray]:
        state = self._mbarrier_state()
        missing = state["ready"][slots] == 0
        if missing.any():
            lane = int(np.flatnonzero(missing)[0])
            raise LaneFault(f"uses mbarrier '{array.name}' (byte "
                            f"{int(slots[lane] * 8 % self.window)} of the block's window) "
                            "before any mbarrier.init of it", np.array([lane]))
        return state

    def _complete_phases(self, slots: np.ndarray) -> None:
        """Barriers whose arrivals and transaction bytes are all in complete their phase."""
        st = self.mbarriers
        slots = np.unique(slots)
        done = slots[(st["pending"][slots] == 0) & (st["tx"][slots] == 0)]
        st["phase"][done] += 1
        st["pending"][done] = st["count"][done]

    def _within(self, e: Expr, idx: np.ndarray, low: int, high: int, what: str) -> np.ndarray:
        """Each lane's value of `e`, which PTX allows only in low..high."""
        values = self.eval(e, idx).astype(np.int64)
        bad = (values < low) | (values > high)
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            raise LaneFault(f"{what} {int(values[lane])} (PTX allows {low}..{high})",
                            np.array([lane]))
        return values

    def _mbarrier_init(self, s: MbarrierInit, idx: np.ndarray) -> None:
        slots = self._mbarrier_slots(s.array, s.index, idx)
        count = self._within(s.count, idx, 1, MBARRIER_MAX_COUNT, "mbarrier.init with count")
        st = self._mbarrier_state()
        st["count"][slots] = st["pending"][slots] = count
        st["tx"][slots] = st["phase"][slots] = 0
        st["ready"][slots] = 1

    def _mbarrier_arrive(self, s: MbarrierArrive, idx: np.ndarray) -> None:
        slots = self._mbarrier_slots(s.array, s.index, idx)
        st = self._require_init(s.array, slots)
        if s.kind == "cp_async":
            # one more pending arrival now, made when the copies have landed: the phase
            # cannot complete before them, so they are tied to it (and land with it)
            self._tie_copies(idx, slots, st["phase"][slots])
            return
        if s.expect_tx is not None:
            tx = self._within(s.expect_tx, idx, 0, MBARRIER_MAX_TX, "expect_tx of (bytes)")
            np.add.at(st["tx"], slots, tx)
        if s.kind == "expect_tx":
            return
        if s.token is not None:   # the phase arrived on, before this arrival completes it
            if s.token not in self.vars:
                self.vars[s.token] = np.zeros(self.total, s.token.dtype.np)
            self.vars[s.token][idx] = st["phase"][slots].astype(s.token.dtype.np)
        np.subtract.at(st["pending"], slots, 1)
        over = st["pending"][slots] < 0
        if over.any():
            # the extra arrivals would belong to the next phase, an order this lockstep
            # model cannot tell: refused rather than guessed
            lane = int(np.flatnonzero(over)[0])
            raise LaneFault(f"more threads arrive on mbarrier '{s.array.name}' at once than "
                            f"its count ({int(st['count'][slots[lane]])}): arrivals that "
                            "spill into the next phase are not modelled", np.array([lane]))
        self._complete_phases(slots)

    def _tie_copies(self, idx: np.ndarray, slots: np.ndarray, phases: np.ndarray) -> None:
        """The cp.async copies these threads issued and no barrier has yet tracked complete on
        each thread's barrier slot, in its current phase."""
        where = np.full(self.total, -1, np.int64)
        where[idx] = np.arange(idx.size)
        for c in self.copies:
            at = where[c["threads"]]
            free = (at >= 0) & (c["slot"] < 0)
            c["slot"][free] = slots[at[free]]
            c["phase"][free] = phases[at[free]]

    def _mbarrier_wait(self, s: MbarrierWait, idx: np.ndarray) -> None:
        """Lanes wait for the phase of their parity: it must already be complete (in this
        lockstep model nothing else can happen while they wait: a phase still open here
        never completes on the GPU either), and its copies land."""
        slots = self._mbarrier_slots(s.array, s.index, idx)
        st = self._require_init(s.array, slots)
        parity = self.eval(s.parity, idx).astype(np.int64)
        if ((parity != 0) & (parity != 1)).any():
            lane = int(np.flatnonzero((parity != 0) & (parity != 1))[0])
            raise LaneFault(f"mbarrier wait parity must be 0 or 1, got {int(parity[lane])}",
                            np.array([lane]))
        open_ = st["phase"][slots] % 2 == parity
        while open_.any() and self.coroutines is not None and \
                self.coroutines.wait_for_others():
            open_ = st["phase"][slots] % 2 == parity   # another branch ran: look again
        if open_.any():
            lane = int(np.flatnonzero(open_)[0])
            slot = slots[lane]
            count, pending, tx = (int(st[k][slot]) for k in ("count", "pending", "tx"))
            why = [f"{count - pending} of its {count} arrivals came"] if pending else []
            if tx > 0:
                why.append(f"{tx} expected transaction bytes never arrive (the phase's "
                           f"expect_tx exceeds what its copies deliver by {tx})")
            elif tx < 0:
                why.append(f"its copies deliver {-tx} bytes more than the phase's expect_tx "
                           "announced")
            raise LaneFault(f"waits for phase {int(st['phase'][slot])} (parity "
                            f"{int(parity[lane])}) of mbarrier '{s.array.name}', which never "
                            f"completes: {'; '.join(why)}. The GPU would hang here",
                            np.array([lane]))
        self._land_bulk(np.unique(slots))

    def _land_bulk(self, slots: np.ndarray) -> None:
        """TMA copies on these barriers whose phase has completed land (and the cp.async
        copies tied to them)."""
        phase = self.mbarriers["phase"]
        if self.copies:
            self._land_copies(lambda c: (c["slot"] >= 0) & np.isin(c["slot"], slots) &
                              (c["phase"] < phase[np.maximum(c["slot"], 0)]))
        kept = []
        for c in self.bulk_copies:
            done = np.isin(c["slot"], slots) & (c["phase"] < phase[c["slot"]])
            if done.any():
                nbytes = c["bytes"][done].ravel()
                if c["values"] is not None:
                    self.shared[nbytes] = c["values"][done].ravel()
                self.written[nbytes] = True
                if self.unfenced is not None:
                    self.unfenced[nbytes] = 0      # the async proxy wrote them
                if self.origin is not None:
                    self.origin[nbytes] = c["origin"][done].ravel() \
                        if c.get("origin") is not None else 0
                    if c.get("intent") is not None:
                        at, code = c["intent"][0][done], c["intent"][1][done]
                        known = code != 0      # elements past the array expect nothing
                        self.intent[at[known]] = code[known]
                self.in_flight[nbytes] -= 1
            if not done.any():
                kept.append(c)     # untouched: no copy of its rows
            elif not done.all():
                kept.append({k: _rows(v, ~done) for k, v in c.items()})
        self.bulk_copies = kept

    def _tma_load(self, s: TmaLoad, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        if self._addresses_only(s, idx, offset):
            if self.partial.sources:    # where the box starts in global memory, checked
                self._tma_elements(s.tensor_map, s.coords, idx)
            return
        values = self._tma_box(s, idx)
        _, first = self._shared_elements(s, idx, offset)
        origin = self._tma_origin(s, idx)
        self._issue_tma(s, idx, first, values, origin, self._tma_intent(s, idx, offset, origin))

    def _tma_origin(self, s: TmaLoad, idx: np.ndarray) -> np.ndarray | None:
        """Per lane and box byte: (map number + 1) << 40 | (global element + 1), 0 outside
        the tensor (what the layout-agreement check compares wgmma's reads with)."""
        if self.origin is None:
            return None
        m = s.tensor_map
        if m not in self.origin_maps:
            self.origin_maps.append(m)
        number = self.origin_maps.index(m) + 1
        inside, flat = self._tma_elements(m, s.coords, idx)
        code = np.where(inside, (number << 40) | (flat + 1), 0)
        return np.repeat(code, m.dtype.size, axis=1)

    def _tma_intent(self, s: TmaLoad, idx: np.ndarray, offset: np.ndarray, origin):
        """(flat byte indices, codes): where the destination array's declaration puts each
        box element (its rows laid one after another in the array's logical index from the
        destination, through the array's layout), and the element's origin code there;
        elements past the array get code 0 (landing skips them)."""
        if origin is None:
            return None
        array, m = s.array, s.tensor_map
        size = array.dtype.size
        layout = array.layout
        dst = layout.apply(offset) if layout is not None else offset    # logical (involution)
        row = array.strides[-2] if array.rank >= 2 else m.box[-1]
        r = np.arange(m.rows)[:, None]
        c = np.arange(m.box[-1])[None, :]
        logical = dst[:, None] + (r * row + c).ravel()[None, :]           # (lanes, elements)
        extent = math.prod(self.launch.extent(array)[:-1]) * (
            self.launch.extent(array)[-1] + array.pad)
        inside = logical < extent
        physical = layout.apply(np.where(inside, logical, 0)) if layout is not None \
            else np.where(inside, logical, 0)
        base = self.kernel.buffer_base(array.buffer)
        at = (self.block_lin[idx] * self.window + base)[:, None, None] \
            + (physical * size)[:, :, None] + np.arange(size)
        code = np.where(inside[:, :, None], origin.reshape(idx.size, -1, size), 0)
        return at.reshape(idx.size, -1), code.reshape(idx.size, -1)

    def _check_reader(self, s, offset: np.ndarray, nbytes: np.ndarray, idx: np.ndarray,
                      lanes: np.ndarray | None = None) -> None:
        """A read by index of bytes TMA wrote must find the element the array's declaration
        expects there (else a kernels_ir.LayoutMismatch for this execution's first wrong
        element)."""
        nbytes = nbytes.reshape(offset.size, -1)
        want, got = self.intent[nbytes], self.origin[nbytes]
        wrong = (want != 0) & (got != want)
        if not wrong.any():
            return
        lane, byte = (int(x) for x in np.argwhere(wrong)[0])
        array = s.array
        m = self.origin_maps[int(want[lane, byte] >> 40) - 1]
        stride = int(self.eval(m.row_stride, idx[:1])[0]) if m.row_stride is not None else 0
        def element(code):
            flat = int(code & ((1 << 40) - 1)) - 1
            return f"{m.array.name}({flat // stride}, {flat % stride})" if stride \
                else f"{m.array.name}({flat})"
        at = int(offset[lane]) + byte // array.dtype.size
        logical = int(array.layout.apply(np.array([at]))[0]) if array.layout is not None \
            else at
        ext = self.launch.extent(array)
        index = "".join(f"[{int(i)}]" for i in np.unravel_index(
            logical, tuple(ext[:-1]) + (ext[-1] + array.pad,)))
        declared = array.layout.label if array.layout is not None else "without a layout"
        what = "holds nothing TMA wrote" if got[lane, byte] == 0 else \
            f"holds {element(got[lane, byte])}"
        self.observer(LayoutMismatch(
            s, f"reads {array.name}{index}, which {what} where '{array.name}' as declared "
               f"({declared}) expects {element(want[lane, byte])}: tensor map '{m.name}' "
               f"writes {m.swizzle or 'no swizzle'}; declare '{array.name}' with that "
               "layout, or index it through the same swizzle",
            int(idx[lane if lanes is None else lanes[lane]])))

    def _tma_box(self, s: TmaLoad, idx: np.ndarray) -> np.ndarray:
        """The box each lane copies, as bytes (zeros outside the tensor)."""
        glob = self.globals[s.tensor_map.array.name]
        inside, flat = self._tma_elements(s.tensor_map, s.coords, idx)
        values = np.where(inside, glob[np.where(inside, flat, 0)], 0).astype(glob.dtype)
        return values.view(np.uint8).reshape(idx.size, -1)

    def _tma_elements(self, m, coords, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per lane and box element (box order): whether it lies inside the tensor, and its
        element index in the global array; the map is checked against the array first."""
        length = self.launch.lengths[m.array.name]   # (address-only runs hold no data)
        shape = [int(self.eval(e, idx[:1])[0]) for e in m.shape]
        strides = [int(self.eval(e, idx[:1])[0]) for e in m.strides] + [1]
        size = m.dtype.size
        span = sum((n - 1) * s for n, s in zip(shape, strides)) + 1
        if min(shape) < 1 or span > length or any(   # (an extent of 1 may have stride 0)
                s < (1 if n > 1 else 0) or s * size % GLOBAL_ALIGN
                for n, s in zip(shape, strides[:-1])) or (
                m.rank == 2 and strides[0] < shape[1]):
            raise LaneFault(f"tensor map '{m.name}' ({m.describe()}) at shape {shape}"
                            + (f", strides {strides[:-1]}" if m.rank > 1 else "")
                            + f": it must lie inside '{m.array.name}' ({length} elements)"
                            + (f", with strides that are multiples of {GLOBAL_ALIGN} bytes"
                               + (f" and rows of at least {shape[1]} elements"
                                  if m.rank == 2 else "") if m.rank > 1 else ""),
                            np.zeros(1, np.int64))
        inside = np.ones((idx.size, 1), bool)
        flat = np.zeros((idx.size, 1), np.int64)
        for dim, (c, extent) in enumerate(zip(coords, m.box)):
            at = self.eval(c, idx).astype(np.int64)[:, None] + np.arange(extent)
            ok = (at >= 0) & (at < shape[dim])
            step = strides[dim]
            inside = (inside[:, :, None] & ok[:, None, :]).reshape(idx.size, -1)
            flat = (flat[:, :, None] + (at * step)[:, None, :]).reshape(idx.size, -1)
        # the box must start on 16 global bytes (its strides and the tensor's address are
        # multiples of 16, so its innermost coordinate decides): an H100 stopped with an
        # illegal instruction for a box of 2-byte elements 1 and 4 columns off (docs/tma.md)
        off = flat[:, 0] * size % GLOBAL_ALIGN
        if off.any():
            lane = int(np.flatnonzero(off)[0])
            raise LaneFault(f"illegal instruction (a misaligned TMA box): the box of tensor "
                            f"map '{m.name}' at column "
                            f"{int(self.eval(coords[-1], idx[lane:lane + 1])[0])} starts "
                            f"{int(off[lane])} bytes past a {GLOBAL_ALIGN}-byte boundary of "
                            f"'{m.array.name}' (TMA boxes start on {GLOBAL_ALIGN} bytes: the "
                            f"innermost coordinate times {size} bytes must be a multiple of "
                            f"{GLOBAL_ALIGN})", np.array([lane]))
        return inside, flat

    def _issue_tma(self, s, idx: np.ndarray, first: np.ndarray, values, origin=None,
                   intent=None) -> None:
        """Put each lane's TMA box or bulk copy in flight on its mbarrier, its bytes counted
        toward the barrier's transactions (`values` None: a check's run follows the bytes,
        not what they hold)."""
        nbytes = self._bulk_source(s, idx, first)
        slots = self._mbarrier_slots(s.barrier, s.barrier_index, idx)
        st = self._require_init(s.barrier, slots)
        self._check_bytes_settled(s.array, nbytes, reading=False,
                                  who=f"the {_BULK_NAMES[type(s)]} ")
        self.in_flight[nbytes.ravel()] += 1
        self.bulk_copies.append(dict(stmt=s, slot=slots, phase=st["phase"][slots].copy(),
                                     bytes=nbytes, values=values, origin=origin,
                                     intent=intent))
        np.subtract.at(st["tx"], slots, s.access_bytes)
        self._complete_phases(slots)

    # ------------------------------------------------------------ TMA and bulk stores
    def _bulk_source(self, s, idx: np.ndarray, first: np.ndarray) -> np.ndarray:
        """Flat shared byte indices each lane's copy writes or reads (TMA: the box by the
        layout rule; bulk: contiguous), after the alignment and bounds checks."""
        size = s.array.dtype.size
        within = first * size % self.window
        tma = isinstance(s, (TmaLoad, TmaStore))
        align = DESTINATION_ALIGN if tma else BULK_ALIGN
        bad = within % align != 0
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            raise LaneFault(f"misaligned address: the {_BULK_NAMES[type(s)]}'s tile "
                            f"'{s.array.name}' at byte {int(within[lane])} of the block's "
                            f"window is not {align}-byte aligned", np.array([lane]))
        extent = self.launch.extent(s.array)
        end = self.kernel.buffer_base(s.array.buffer) + size * math.prod(extent[:-1]) * (
            extent[-1] + s.array.pad)
        span = s.tensor_map.footprint if tma else s.nbytes
        over = within + span > end
        if over.any():
            lane = int(np.flatnonzero(over)[0])
            raise LaneFault(f"the {_BULK_NAMES[type(s)]} spans {span} bytes from byte "
                            f"{int(within[lane])} of the block's window, past the end of "
                            f"'{s.array.name}' (byte {end})", np.array([lane]))
        rel = s.tensor_map.destinations(within) if tma else \
            within[:, None] + np.arange(s.nbytes)
        return (first * size - within)[:, None] + rel

    def _issue_bulk_read(self, s, idx: np.ndarray, first: np.ndarray) -> np.ndarray:
        """Check the source bytes of a TMA / bulk store (written, not in flight, published to
        the async proxy) and hold them as read until the thread's bulk wait."""
        nbytes = self._bulk_source(s, idx, first)
        self._check_async_source(f"the {_BULK_NAMES[type(s)]}", s.array, nbytes,
                                 np.arange(idx.size))
        if self.reading.size == 0:
            self.reading = np.zeros(self.shared.size, np.int32)
        np.add.at(self.reading, nbytes.ravel(), 1)
        self.bulk_reads.append(dict(stmt=s, threads=idx.copy(),
                                    group=self.bulk_group[idx].copy(), bytes=nbytes))
        return nbytes

    def _check_async_source(self, who: str, array, nbytes: np.ndarray,
                            lanes: np.ndarray) -> None:
        """Bytes the async proxy reads (a row of `nbytes` per copy or warpgroup, `lanes`
        their lanes) must be written, landed, and published by their writer's fence."""
        missing = ~self.written[nbytes].all(axis=1)
        if missing.any():
            raise LaneFault(f"{who} reads shared memory no thread has written "
                            f"('{array.name}'): uninitialized in CUDA",
                            lanes[np.flatnonzero(missing)[:1]])
        self._check_bytes_settled(array, nbytes, reading=True, lanes=lanes, who=f"{who} ")
        if self.unfenced is not None:
            writer = self.unfenced[nbytes]
            stale = writer.any(axis=1)
            if stale.any():
                row = int(np.flatnonzero(stale)[0])
                w = int(writer[row][writer[row] > 0][0]) - 1
                raise LaneFault(f"{who} reads '{array.name}', which thread "
                                f"{self._where(w)['thread']} stored without a "
                                "fence.proxy.async.shared::cta since: it reads through the "
                                "async proxy, which may see stale bytes (fence, then "
                                "__syncthreads(), first)", lanes[row:row + 1])

    def _tma_store(self, s: TmaStore, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        if self._addresses_only(s, idx, offset):
            if self.partial.sources:
                self._tma_elements(s.tensor_map, s.coords, idx)
            return
        _, first = self._shared_elements(s, idx, offset)
        nbytes = self._issue_bulk_read(s, idx, first)
        m = s.tensor_map
        glob = self.globals[m.array.name]
        values = self.shared[nbytes].reshape(idx.size, -1).copy().view(glob.dtype)
        inside, flat = self._tma_elements(m, s.coords, idx)
        glob[flat[inside]] = values[inside]

    def _bulk_store(self, s: BulkStore, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        if self._addresses_only(s, idx, offset):
            self._bulk_global(s.dst, s.dst_index, s.nbytes, idx)
            return
        _, first = self._shared_elements(s, idx, offset)
        nbytes = self._issue_bulk_read(s, idx, first)
        glob = self.globals[s.dst.name]
        at = self._bulk_global(s.dst, s.dst_index, s.nbytes, idx)
        glob.view(np.uint8)[at] = self.shared[nbytes]

    def _bulk_global(self, array, index, nbytes: int, idx: np.ndarray) -> np.ndarray:
        """Byte indices of each lane's `nbytes` at global `array[index]`, checked."""
        size = array.dtype.size
        # its ends need 16-byte alignment, not the natural alignment of a vector of its size
        offset = self._element_offsets(array, index, 1, idx)
        elements, length = -(-nbytes // size), self.launch.lengths[array.name]
        over = offset + elements > length
        if over.any():
            lane = int(np.flatnonzero(over)[0])
            raise LaneFault(f"out of bounds: a bulk copy of {nbytes} bytes at index "
                            f"{int(offset[lane])} of '{array.name}' ends past its last element "
                            f"(valid 0..{length - 1})", np.array([lane]))
        start = offset * size
        bad = start % BULK_ALIGN != 0
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            raise LaneFault(f"misaligned address: a bulk copy's global end '{array.name}' at "
                            f"byte {int(start[lane])} is not {BULK_ALIGN}-byte aligned",
                            np.array([lane]))
        return start[:, None] + np.arange(nbytes)

    def _bulk_load(self, s: BulkLoad, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        if self._addresses_only(s, idx, offset):
            if self.partial.sources:
                self._bulk_global(s.src, s.src_index, s.nbytes, idx)
            return
        at = self._bulk_global(s.src, s.src_index, s.nbytes, idx)
        values = self.globals[s.src.name].view(np.uint8)[at]
        _, first = self._shared_elements(s, idx, offset)
        self._issue_tma(s, idx, first, values)

    def _bulk_commit(self, s: BulkCommit, idx: np.ndarray) -> None:
        self.bulk_group[idx] += 1

    def _bulk_wait(self, s: BulkWait, idx: np.ndarray) -> None:
        """These threads' stores in committed groups older than the newest `pending` have
        read their source (the model writes global memory at issue: `read` or not, the
        shared bytes are free again)."""
        waiting = np.zeros(self.total, bool)
        waiting[idx] = True
        kept = []
        for c in self.bulk_reads:
            threads = c["threads"]
            done = waiting[threads] & (c["group"] < self.bulk_group[threads] - s.pending)
            if done.any():
                np.subtract.at(self.reading, c["bytes"][done].ravel(), 1)
            if not done.any():
                kept.append(c)
            elif not done.all():
                kept.append({k: (v[~done] if isinstance(v, np.ndarray) else v)
                             for k, v in c.items()})
        self.bulk_reads = kept

    def _fence_proxy_async(self, s: FenceProxyAsync, idx: np.ndarray) -> None:
        if self.unfenced is not None:
            self.unfenced[np.isin(self.unfenced, idx + 1)] = 0

    # ------------------------------------------------------------ wgmma
    def _gmma_operands(self, s: Wgmma, idx: np.ndarray):
        """Per executing warpgroup: the flat shared indices of A's (64 x 16) and B's (n x 16)
        first bytes, read through the descriptors, after the checks a GPU would need to
        read the intended bytes; the warpgroups' first threads; each operand's start (flat)
        and the layout each warpgroup's descriptor says."""
        tpb = self.tpb
        key = idx // tpb * (tpb // 128 + 1) + idx % tpb // 128
        heads, first_lane, counts = np.unique(key, return_index=True, return_counts=True)
        partial = counts != 128
        if partial.any():
            lane = int(first_lane[np.flatnonzero(partial)[0]])
            raise LaneFault(f"wgmma is executed by {int(counts[partial][0])} threads of a "
                            "warpgroup: all 128 threads of 4 consecutive warps must execute it "
                            "(.sync.aligned)", np.array([lane]))
        out = []
        for array, index, layout, desc, rows in (
                (s.a_array, s.a_index, s.a_layout, s.a_desc, 64),
                (s.array, s.index, s.layout, s.desc, s.n)):
            if array is None:      # A from registers
                out.append((None, None, None))
                continue
            size = array.dtype.size
            if desc is None:
                offset = self._element_offsets(array, index, 1, idx)
                start = self.kernel.buffer_base(array.buffer) + offset * size
                what = f"starts of '{array.name}' (byte"
            else:   # the descriptor's bits, as the hardware reads them
                value, start = self._descriptors(desc, idx)
                what = f"descriptors for '{array.name}' (start byte"
            lead = start[first_lane]
            uneven = start != np.repeat(lead, counts)
            if desc is not None:
                uneven |= value != np.repeat(value[first_lane], counts)
            if uneven.any():
                lane = int(np.flatnonzero(uneven)[0])
                raise LaneFault(f"the threads of a warpgroup give wgmma different {what} "
                                f"{int(start[lane])}, not {int(np.repeat(lead, counts)[lane])}"
                                "): the descriptor is the warpgroup's", np.array([lane]))
            bad = lead % 16 != 0
            if bad.any():
                lane = int(first_lane[np.flatnonzero(bad)[0]])
                raise LaneFault(f"a wgmma descriptor's start address must be 16-byte aligned, "
                                f"'{array.name}' starts at byte {int(start[lane])}",
                                np.array([lane]))
            if desc is None:
                kinds, which = [layout], np.zeros(lead.size, np.int64)
            else:   # the fields besides the start: usually one layout for every warpgroup
                rest, which = np.unique(value[first_lane] & ~np.uint64(0x3FFF),
                                        return_inverse=True)
                kinds = [decode(int(v), layout.major)[1] for v in rest]
            layouts = [kinds[i] for i in which]
            addr = np.empty((lead.size, rows, 16), np.int64)
            for i, one in enumerate(kinds):
                groups = np.flatnonzero(which == i)
                addr[groups] = one.addresses(lead[groups], rows, size)
            outside = (addr < 0) | (addr + size > self.window)
            if outside.any():
                g = int(np.flatnonzero(outside.any(axis=(1, 2)))[0])
                one = layouts[g]
                raise LaneFault(f"wgmma reads '{array.name}' through its descriptor "
                                f"({one.major}-major, {one.swizzle or 'no swizzle'}, LBO "
                                f"{one.lbo}, SBO {one.sbo}) at byte "
                                f"{int(addr[g][outside[g]][0])}, outside the block's "
                                f"{self.window}-byte shared window", np.array([first_lane[g]]))
            block = self.block_lin[idx[first_lane]]
            flat = block[:, None, None] * self.window + addr
            nbytes = (flat[..., None] + np.arange(size)).reshape(flat.shape[0], -1)
            self._check_async_source("wgmma", array, nbytes, first_lane)
            out.append((flat, block * self.window + lead, layouts))
        (a_flat, a_start, a_layouts), (b_flat, b_start, b_layouts) = out
        return a_flat, b_flat, idx[first_lane], a_start, b_start, a_layouts, b_layouts

    def _wgmma(self, s: Wgmma, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        if self._addresses_only(s, idx, offset):
            return
        a_flat, b_flat, heads, a_start, b_start, a_layouts, b_layouts = \
            self._gmma_operands(s, idx)
        dtype = s.array.dtype
        halves = self.shared.view(dtype.storage)
        if s.a_regs is not None:    # A from the warpgroup's registers, by its fragment
            words = self.local_arrays[s.a_regs].reshape(self.total, -1).astype(np.uint32)
            bits = np.stack([words & 0xFFFF, words >> 16], axis=-1).reshape(self.total, 8)
            frag = from_storage(bits.astype(np.uint16).view(dtype.storage), dtype)
            rows_a, cols_a = a_fragment_positions()
            a = np.zeros((heads.size, 64, 16), np.float32)
            a[:, rows_a, cols_a] = frag[heads[:, None] + np.arange(128)]
        else:
            a = from_storage(halves[a_flat // 2], dtype).astype(np.float32)  # (G, 64, 16)
        b = from_storage(halves[b_flat // 2], dtype).astype(np.float32)     # (G, n, 16)
        product = np.matmul(a, b.transpose(0, 2, 1))                          # (G, 64, n)
        if self.origin is not None and self.observer is not None:
            self._check_operands(s, a_flat, b_flat, heads, a_start, b_start, a_layouts,
                                 b_layouts)
        rows, cols = accumulator_positions(s.n)
        threads = heads[:, None] + np.arange(128)                             # (G, 128)
        acc = self.local_arrays[s.acc].reshape(self.total, -1)
        keep = self.eval(s.scale_d, heads) != 0
        columns = np.arange(s.n // 2)[None, None, :]
        if s.acc_index:   # a sub-array `d[m]`: its leading indices, the same in a warpgroup
            base = np.zeros(threads.size, np.int64)
            for e, extent in zip(s.acc_index, s.acc.shape):
                i = self.eval(e, threads.ravel()).astype(np.int64)
                if ((i < 0) | (i >= extent)).any():
                    lane = int(np.flatnonzero((i < 0) | (i >= extent))[0])
                    raise LaneFault(f"wgmma's accumulators: index {i[lane]} of '{s.acc.name}' "
                                    f"is outside 0..{extent - 1}",
                                    np.flatnonzero(idx == threads.ravel()[lane])[:1])
                base = base * extent + i
            base = base.reshape(threads.shape) * (s.n // 2)
            if (base != base[:, :1]).any():
                g = int(np.flatnonzero((base != base[:, :1]).any(axis=1))[0])
                raise LaneFault(f"wgmma's accumulators '{s.acc.name}' differ within a "
                                "warpgroup (each thread names another sub-array)",
                                np.flatnonzero(idx == threads[g, 0])[:1])
            columns = base[:, :, None] + columns
        old = acc[threads[:, :, None], columns]                               # (G, 128, n/2)
        new = product[:, rows, cols]
        acc[threads[:, :, None], columns] = \
            np.where(keep[:, None, None], old + new, new).astype(np.float32)

    def _check_operands(self, s: Wgmma, a_flat, b_flat, heads, a_start, b_start, a_layouts,
                        b_layouts) -> None:
        """Both operands that shared memory holds against what TMA wrote there."""
        for name, flat, start, layouts, array in (
                ("A", a_flat, a_start, a_layouts, s.a_array),
                ("B", b_flat, b_start, b_layouts, s.array)):
            if array is not None:
                self._check_agreement(s, name, flat, start, layouts, array, heads)

    def _check_agreement(self, s: Wgmma, name: str, flat: np.ndarray, start: np.ndarray,
                         layouts, array, heads: np.ndarray) -> None:
        """Where TMA wrote an operand, element (mn, k) must hold the global element at the
        operand's first element's plus (mn, k) in the tensor's rows and columns (K-major:
        rows are mn; MN-major: rows are k), the first being the element TMA laid at the
        descriptor's start; else report the first that does not."""
        origin = self.origin[flat]                                  # (G, rows, 16)
        maps = origin >> 40
        for g in range(origin.shape[0]):
            if not maps[g].all() or (maps[g] != maps[g, 0, 0]).any():
                continue    # not (only) one TMA map's elements: nothing to compare with
            m = self.origin_maps[int(maps[g, 0, 0]) - 1]
            layout = layouts[g]
            stride = int(self.eval(m.row_stride, heads[:1])[0]) if m.row_stride is not None \
                else 1 << 30
            window_start = int(start[g]) - int(start[g]) % self.window
            first = self.origin[window_start + int(swizzle_bytes(
                np.array([int(start[g]) % self.window]), m.swizzle)[0])]
            if first >> 40 != maps[g, 0, 0]:
                continue
            got = (origin[g] & ((1 << 40) - 1)) - 1
            anchor = int(first & ((1 << 40) - 1)) - 1
            mn = np.arange(origin.shape[1])[:, None]
            k = np.arange(16)[None, :]
            want = anchor + (mn * stride + k if layout.major == "K" else k * stride + mn)
            wrong = got != want
            if not wrong.any():
                continue
            i, j = (int(x) for x in np.argwhere(wrong)[0])
            row, col = divmod(int(got[i, j] - anchor), stride)
            seen = (row, col) if layout.major == "K" else (col, row)
            fix = (f"the descriptor says {layout.swizzle or 'no swizzle'} where tensor map "
                   f"'{m.name}' wrote {m.swizzle or 'no swizzle'}: make them agree"
                   if layout.swizzle != m.swizzle else
                   f"the descriptor's base offset {layout.base_offset} takes that much off "
                   "the swizzle's row phase, where TMA swizzled the absolute address: make "
                   "it 0" if layout.base_offset else
                   f"the descriptor's LBO {layout.lbo} / SBO {layout.sbo} (or its start) do "
                   f"not match how '{m.name}''s boxes lie in '{array.name}'")
            self.observer(LayoutMismatch(s, f"wgmma reads {name}({i}, {j}) from the bytes of "
                                            f"{name}({seen[0]}, {seen[1]}) ('{array.name}', "
                                            f"{layout.major}-major): {fix}",
                                         int(heads[g])))
            return

    # ------------------------------------------------------------ warp-level operations
    def _warp_lanes(self, s, idx: np.ndarray, mask: int | np.ndarray):
        """(dense warp of each lane, its lane number, the warps, lane presence table), after
        CUDA's rules: every executing lane is in `mask` (an int, or each lane's value of a
        run-time mask), every existing lane of `mask` executes it (with the same mask)."""
        thread = idx % self.tpb
        key = (idx // self.tpb) * self.launch.warps_per_block + thread // 32
        lane = thread % 32
        if isinstance(mask, int) and mask == ACTIVE_MASK:  # exactly the lanes executing it
            warps, dense = np.unique(key, return_inverse=True)
            present = np.zeros((warps.size, 32), bool)
            present[dense, lane] = True
            return dense, lane, warps, present
        outside = ((mask >> lane) & 1) == 0
        if outside.any():
            first = int(np.flatnonzero(outside)[0])
            value = mask if isinstance(mask, int) else int(mask[first])
            raise LaneFault(f"lane {int(lane[first])} executes a warp operation whose "
                            f"mask 0x{value:08x} does not name it (undefined in CUDA)",
                            np.array([first]))
        warps, dense = np.unique(key, return_inverse=True)
        present = np.zeros((warps.size, 32), bool)
        present[dense, lane] = True
        # lanes that exist in each warp (the last warp of a block may be partial)
        exists = (warps % self.launch.warps_per_block)[:, None] * 32 + np.arange(32) \
            < self.tpb
        if self.returns:  # lanes that returned are not waited for
            lanes = (warps // self.launch.warps_per_block)[:, None] * self.tpb + \
                (warps % self.launch.warps_per_block)[:, None] * 32 + np.arange(32)
            exists &= ~self.exited[np.minimum(lanes, self.total - 1)]
        if not isinstance(mask, int):
            # each lane's own mask (a tile of 16 of cooperative groups names its half of
            # the warp): every existing lane it names executes the operation with the same
            # mask (two tiles of one warp may each run theirs)
            table = np.full(present.shape, -1, np.int64)
            table[dense, lane] = mask
            for b in range(32):
                named = ((mask >> b) & 1).astype(bool) & exists[dense, b]
                other = table[dense, b]
                missing = np.flatnonzero(named & (other < 0))
                if missing.size:
                    at = int(missing[0])
                    raise LaneFault(f"lane {b} is named in the mask 0x{int(mask[at]):08x} but "
                                    "does not execute this warp operation (undefined in "
                                    "CUDA)", np.array([at]))
                differs = np.flatnonzero(named & (other >= 0) & (other != mask))
                if differs.size:
                    at = int(differs[0])
                    raise LaneFault(f"lanes of one warp execute a warp operation with "
                                    f"different masks (0x{int(mask[at]):08x} and 0x"
                                    f"{int(other[at]):08x}; undefined in CUDA)",
                                    np.array([at]))
            return dense, lane, warps, present
        named = exists & ((mask >> np.arange(32)) & 1).astype(bool)
        missing = named & ~present
        if missing.any():
            w, missing_lane = (int(x) for x in np.argwhere(missing)[0])
            raise LaneFault(f"lane {missing_lane} is named in the mask 0x{mask:08x} but does "
                            "not execute this warp operation (undefined in CUDA)",
                            np.flatnonzero(dense == w)[:1])
        return dense, lane, warps, present

    def _shuffle(self, s: Shuffle, idx: np.ndarray) -> None:
        mask = s.mask if isinstance(s.mask, int) else \
            self.eval(s.mask, idx).astype(np.uint32).astype(np.int64)
        dense, lane, _, present = self._warp_lanes(s, idx, mask)
        blind = self.partial is not None and id(s) in self.partial.lanes_only
        if s.mode in VOTE_MODES and not blind:
            self._vote(s, idx, dense, lane, present, mask)
            return
        value = np.zeros(idx.size, s.dst.dtype.np) if blind else \
            convert(self.eval(s.value, idx), s.dst.dtype)
        if s.mode in VOTE_MODES:
            if s.dst not in self.vars:
                self.vars[s.dst] = np.zeros(self.total, s.dst.dtype.np)
            self.vars[s.dst][idx] = value
            return
        arg = self.eval(s.lane, idx).astype(np.int64)
        width = s.width
        if not isinstance(width, int):  # a run-time width: each lane's own
            width = self.eval(width, idx).astype(np.int64)
            bad = np.flatnonzero((width < 1) | (width > 32) | ((width & (width - 1)) != 0))
            if bad.size:
                raise LaneFault(f"a shuffle width must be a power of two up to 32, this "
                                f"lane's is {int(width[bad[0]])} (undefined in CUDA)",
                                bad[:1])
        segment = lane & ~(width - 1)
        if s.mode == "idx":
            src = segment + (arg & (width - 1))
        elif s.mode == "up":
            src = np.where(lane - segment - arg >= 0, lane - arg, lane)
        elif s.mode == "down":
            src = np.where(lane - segment + arg < width, lane + arg, lane)
        else:  # xor: a later segment (or beyond the warp) gives the lane its own value
            src = lane ^ arg
            src = np.where((src >= segment + width) | (src < 0) | (src > 31), lane, src)
        absent = ~present[dense, src]
        if absent.any():
            raise LaneFault(f"a shuffle reads lane {int(src[absent][0])}, which does not "
                            "execute it (undefined in CUDA)", np.flatnonzero(absent)[:1])
        table = np.zeros(present.shape, value.dtype)
        table[dense, lane] = value
        if s.dst not in self.vars:
            self.vars[s.dst] = np.zeros(self.total, s.dst.dtype.np)
        self.vars[s.dst][idx] = table[dense, src]

    def _vote(self, s: Shuffle, idx: np.ndarray, dense, lane, present, mask) -> None:
        """A warp vote: the predicates of the lanes executing it that the lane's mask names
        (every one of them executes it, _warp_lanes made sure), as a ballot's bits, or
        whether any or all are nonzero. Two tiles of 16 of one warp vote together, each
        lane seeing its own tile's bits (the hardware's vote.sync with two member masks)."""
        if s.mode == "match_any":
            self._match_any(s, idx, dense, lane, present, mask)
            return
        yes = self.eval(s.value, idx) != 0
        bits = np.zeros(present.shape[0], np.uint64)
        np.bitwise_or.at(bits, dense[yes], np.left_shift(np.uint64(1), lane[yes].astype(
            np.uint64)))
        executing = (present * (np.uint64(1) << np.arange(32, dtype=np.uint64))).sum(
            axis=1, dtype=np.uint64)
        mine, voters = bits[dense], executing[dense]
        if not (isinstance(mask, int) and mask == ACTIVE_MASK):
            named = np.asarray(mask, np.int64).astype(np.uint64) & np.uint64(0xFFFFFFFF)
            mine, voters = mine & named, voters & named
        if s.mode == "ballot":
            value = mine.astype(np.uint32)
        elif s.mode == "any":
            value = (mine != 0).astype(np.int32)
        else:   # all: every voting lane's bit
            value = (mine == voters).astype(np.int32)
        if s.dst not in self.vars:
            self.vars[s.dst] = np.zeros(self.total, s.dst.dtype.np)
        self.vars[s.dst][idx] = value

    def _match_any(self, s: Shuffle, idx: np.ndarray, dense, lane, present, mask) -> None:
        """`__match_any_sync`: each lane's mask of the executing lanes (of `mask`) of its warp
        whose value equals its own."""
        value = self.eval(s.value, idx).astype(np.uint64)
        table = np.zeros(present.shape, np.uint64)
        table[dense, lane] = value
        same = (table[dense] == value[:, None]) & present[dense]
        bits = (same * (np.uint64(1) << np.arange(32, dtype=np.uint64))).sum(
            axis=1, dtype=np.uint64)
        if not (isinstance(mask, int) and mask == ACTIVE_MASK):
            bits &= np.asarray(mask, np.int64).astype(np.uint64) & np.uint64(0xFFFFFFFF)
        if s.dst not in self.vars:
            self.vars[s.dst] = np.zeros(self.total, s.dst.dtype.np)
        self.vars[s.dst][idx] = bits.astype(np.uint32)

    def _mma_sync(self, s: MmaSync, idx: np.ndarray) -> None:
        """D = A x B + C per warp, the fragments laid out over the lanes as the PTX ISA
        gives them for mma.m16n8k16 / m16n8k8 (lane l: group g = l // 4, thread t = l % 4):
        A word r holds row g + 8 (r % 2), columns 2t + 8 (r // 2) and the next; B word r
        rows 2t + 8r and the next of column g; C and D row g (+ 8 for the second half) and
        columns 2t, 2t + 1 (tf32 and 8-bit integers: see MmaSync). Products are exact in
        double, the sum rounded once to f32 (or to f16 for an f16 accumulator; wrapped to
        32 bits for s32)."""
        keys, dense, lane = self._whole_warps("mma.sync", idx)
        if self.partial is not None and id(s) in self.partial.lanes_only:
            # (a run that reads none of its products: its warps checked whole, its
            # operands, which that run does not compute, not read)
            if s.dst not in self.vars:
                self.vars[s.dst] = np.zeros((self.total, len(s.c)), s.dst.dtype.np)
            return
        if s.atype == "f64":
            self._mma_f64(s, idx, dense, lane, keys.size)
            return
        k = 16 if s.shape == "m16n8k16" else 8
        g, t, n = lane // 4, lane % 4, keys.size

        def halves(word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            bits = [(word & 0xFFFF).astype(np.uint16), (word >> 16).astype(np.uint16)]
            if s.atype == "f16":
                return tuple(b.view(np.float16).astype(np.float64) for b in bits)
            return tuple((b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
                         for b in bits)
        a = np.zeros((n, 16, k))
        b = np.zeros((n, k, 8))
        if s.atype == "tf32":
            # one element a word: A word r at row g + 8 (r % 2), column t + 4 (r // 2); B
            # word r at row t + 4r of column g; the hardware reads a float's top 19 bits
            def tf32(e) -> np.ndarray:
                bits = self.eval(e, idx).astype(np.uint32) & np.uint32(0xFFFFE000)
                return bits.view(np.float32).astype(np.float64)
            for r, e in enumerate(s.a):
                a[dense, g + 8 * (r % 2), t + 4 * (r // 2)] = tf32(e)
            for r, e in enumerate(s.b):
                b[dense, t + 4 * r, g] = tf32(e)
        if s.atype in ("s8", "u8"):
            # four bytes a word, the lowest first: A word r at row g + 8r, columns 4t to
            # 4t + 3; B's word at rows 4t to 4t + 3 of column g
            def quads(e) -> list[np.ndarray]:
                word = self.eval(e, idx).astype(np.uint32)
                parts = [((word >> np.uint32(8 * i)) & np.uint32(0xFF)).astype(np.uint8)
                         for i in range(4)]
                return [p.view(np.int8) if s.atype == "s8" else p for p in parts]
            for r, e in enumerate(s.a):
                for i, byte in enumerate(quads(e)):
                    a[dense, g + 8 * r, 4 * t + i] = byte
            for r, e in enumerate(s.b):
                for i, byte in enumerate(quads(e)):
                    b[dense, 4 * t + i, g] = byte
        for r, e in enumerate(s.a if s.atype in ("f16", "bf16") else ()):
            lo, hi = halves(self.eval(e, idx).astype(np.uint32))
            row, col = g + 8 * (r % 2), 2 * t + 8 * (r // 2)
            a[dense, row, col], a[dense, row, col + 1] = lo, hi
        for r, e in enumerate(s.b if s.atype in ("f16", "bf16") else ()):
            lo, hi = halves(self.eval(e, idx).astype(np.uint32))
            b[dense, 2 * t + 8 * r, g], b[dense, 2 * t + 8 * r + 1, g] = lo, hi
        c = np.zeros((n, 16, 8))
        if s.ctype in ("f32", "s32"):
            for j, e in enumerate(s.c):
                c[dense, g + 8 * (j // 2), 2 * t + j % 2] = self.eval(e, idx)
        else:
            for j, e in enumerate(s.c):
                word = self.eval(e, idx).astype(np.uint32)
                lo, hi = [(x & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
                          for x in (word, word >> 16)]
                c[dense, g + 8 * j, 2 * t], c[dense, g + 8 * j, 2 * t + 1] = lo, hi
        d = a @ b + c
        if s.dst not in self.vars:
            self.vars[s.dst] = np.zeros((self.total, len(s.c)), s.dst.dtype.np)
        if s.ctype in ("f32", "s32"):
            out = np.stack([d[dense, g + 8 * (j // 2), 2 * t + j % 2] for j in range(4)], 1)
            if s.ctype == "s32":   # exact in double; the sum wraps to 32 bits
                out = (out.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
            self.vars[s.dst][idx] = out.astype(np.float32) if s.ctype == "f32" else out
            return
        words = []
        for j in range(2):
            pair = [to_storage(d[dense, g + 8 * j, 2 * t + x].astype(np.float32),
                               F16).view(np.uint16).astype(np.uint32) for x in (0, 1)]
            words.append(pair[0] | (pair[1] << 16))
        self.vars[s.dst][idx] = np.stack(words, 1)

    def _mma_f64(self, s: MmaSync, idx: np.ndarray, dense, lane, n: int) -> None:
        """mma.m8n8k4 of f64 (MmaSync): lane l holds A(l // 4, l % 4), B(l % 4, l // 4) and
        D's row l // 4, columns 2 (l % 4) and the next; the sums are numpy's in double."""
        g, t = lane // 4, lane % 4
        a, b, c = np.zeros((n, 8, 4)), np.zeros((n, 4, 8)), np.zeros((n, 8, 8))
        a[dense, g, t] = self.eval(s.a[0], idx)
        b[dense, t, g] = self.eval(s.b[0], idx)
        for j, e in enumerate(s.c):
            c[dense, g, 2 * t + j] = self.eval(e, idx)
        d = a @ b + c
        if s.dst not in self.vars:
            self.vars[s.dst] = np.zeros((self.total, 2), np.float64)
        self.vars[s.dst][idx] = np.stack([d[dense, g, 2 * t + j] for j in range(2)], 1)

    def _syncwarp(self, s: SyncWarp, idx: np.ndarray) -> None:
        mask = s.mask if isinstance(s.mask, int) else \
            self.eval(s.mask, idx).astype(np.uint32).astype(np.int64)
        _, _, warps, _ = self._warp_lanes(s, idx, mask)
        if self.observer is not None:
            self.observer(WarpBarrierReached(s, warps))

    # ------------------------------------------------------------ warp-collective matrices
    def _whole_warps(self, what: str, idx: np.ndarray):
        """(the warps' keys, each lane's dense warp number, each lane's lane) of a
        warp-collective instruction, after checking that all 32 lanes of every warp execute
        it (.sync.aligned)."""
        thread = idx % self.tpb
        warp_key = (idx // self.tpb) * self.launch.warps_per_block + thread // 32
        keys, dense, sizes = np.unique(warp_key, return_inverse=True, return_counts=True)
        short = np.flatnonzero(sizes != 32)
        if short.size:
            at = int(np.flatnonzero(dense == short[0])[0])
            raise LaneFault(f"{what} is warp-collective (.sync.aligned): all 32 lanes of a "
                            f"warp must execute it, {int(sizes[short[0]])} did",
                            np.array([at]))
        return keys, dense, thread % 32

    def _matrix_rows(self, s, idx: np.ndarray):
        """(row starts per warp, matrix and row; each lane's dense warp and lane number),
        after checking that every lane of each warp executes the instruction."""
        keys, dense, lane = self._whole_warps(s.op, idx)
        used = lane < s.address_lanes()
        try:
            offset = self._offsets(s, idx[used])
        except LaneFault as fault:  # positions within the used lanes -> within idx
            raise LaneFault(fault.message, np.flatnonzero(used)[fault.lanes]) from None
        memory, first = self._shared_elements(s, idx[used], offset)
        rows = np.zeros((keys.size, s.count, 8), np.int64)
        rows[dense[used], lane[used] // 8, lane[used] % 8] = first
        return memory, first, rows, dense, lane

    def _matrix_elements(self, s, rows, dense, lane) -> np.ndarray:
        """(lanes, 2 x matrices) element indices each lane's fragment holds."""
        out = np.empty((lane.size, 2 * s.count), np.int64)
        pair = 2 * (lane % 4)
        for j in range(s.count):
            for k in range(2):
                if s.trans:   # column lane // 4 of rows 2c and 2c + 1
                    out[:, 2 * j + k] = rows[dense, j, pair + k] + lane // 4
                else:         # elements 2c and 2c + 1 of row lane // 4
                    out[:, 2 * j + k] = rows[dense, j, lane // 4] + pair + k
        return out

    def _load_matrix(self, s: LoadMatrix, idx: np.ndarray) -> None:
        memory, first, rows, dense, lane = self._matrix_rows(s, idx)
        addresses_only = self.partial is not None and self.partial.statements is not None
        if not addresses_only or self.partial.track:
            self._check_written(s, first, 8)
        if self.intent is not None:
            size = s.array.dtype.size      # the used lanes' element offsets in the array
            offset = first % (self.window // size) - self.kernel.buffer_base(s.array.buffer) \
                // size
            used = np.flatnonzero(idx % self.tpb % 32 < s.address_lanes())
            self._check_reader(s, offset, self._bytes(s, first, 8), idx, lanes=used)
        if addresses_only:
            return
        if s.dst not in self.vars:
            self.vars[s.dst] = np.zeros((self.total, 2 * s.count), s.dst.dtype.np)
        self.vars[s.dst][idx] = memory[self._matrix_elements(s, rows, dense, lane)]

    def _store_matrix(self, s: StoreMatrix, idx: np.ndarray) -> None:
        memory, first, rows, dense, lane = self._matrix_rows(s, idx)
        if self.partial is not None and self.partial.statements is not None:
            if self.partial.track:
                self.written[self._bytes(s, first, 8)] = True
            return
        values = np.stack([convert(self.eval(v, idx), s.array.dtype) for v in s.values], 1)
        memory[self._matrix_elements(s, rows, dense, lane)] = values
        self.written[self._bytes(s, first, 8)] = True

    def _store(self, s: Store, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        array = s.array
        if self._addresses_only(s, idx, offset):
            return
        # what memory receives: f16/bf16 round to nearest even here, as cvt.rn does
        values = [to_storage(convert(self.eval(v, idx), array.dtype), array.dtype)
                  for v in s.values]
        if isinstance(array, SharedArray):
            memory, first = self._shared_elements(s, idx, offset, values)
            self._check_settled(s, first, s.width, reading=False)
            self._plain_write(self._bytes(s, first, s.width), idx, s.width * array.dtype.size)
        else:
            memory, first = self.globals[array.name], offset
            if self.observer is not None:
                self.observer(GlobalAccess(s, idx, offset))
        for element, value in enumerate(values):
            memory[first + element] = value





def _guard_contexts(body: tuple, guards: Mapping[int, tuple], ctx: tuple = (),
                    inner: bool = False) -> dict:
    """{id of each access in `body`: (the ids of the guards (PartialRun.guards) around it,
    whether a loop inside the body holds it)}."""
    out = {}
    for x in body:
        if isinstance(x, If) and id(x) in guards:
            out.update(_guard_contexts(x.then, guards, ctx + (id(x),), inner))
        elif isinstance(x, (Load, Store)):
            out[id(x)] = (ctx, inner)
        else:
            for field_name in getattr(x, "BODIES", ()):
                out.update(_guard_contexts(getattr(x, field_name), guards, ctx,
                                           inner or isinstance(x, Loop)))
    return out


def affine_interval(op: Op, d0: np.ndarray, slope: np.ndarray, last: np.ndarray):
    """The iterations k in [0, last] where `d0 + k * slope op 0` holds, as (first, last)
    arrays (first > last: none); op one of <, <=, >, >=, ==."""
    if op is Op.EQ:
        a_first, a_last = affine_interval(Op.LE, d0, slope, last)
        b_first, b_last = affine_interval(Op.GE, d0, slope, last)
        return np.maximum(a_first, b_first), np.minimum(a_last, b_last)
    if op is Op.LT:     # integers: d < 0 is d + 1 <= 0
        return affine_interval(Op.LE, d0 + 1, slope, last)
    if op is Op.GT:     # d > 0 is -d + 1 <= 0
        return affine_interval(Op.LE, 1 - d0, -slope, last)
    if op is Op.GE:     # d >= 0 is -d <= 0
        return affine_interval(Op.LE, -d0, -slope, last)
    # d0 + k * slope <= 0
    first, end = np.zeros_like(d0), last.copy()
    flat = slope == 0
    end[flat & (d0 > 0)] = -1
    up, down = slope > 0, slope < 0
    end[up] = np.minimum(end[up], (-d0[up]) // slope[up])            # k <= -d0 / slope
    first[down] = np.maximum(0, -((-d0[down]) // (-slope[down])))    # k >= d0 / -slope
    return first, end


# atomics whose memory update is a ufunc of (old, value): applied at once by ufunc.at when
# the old value is not wanted (inc, dec, exch and cas depend on more than one operand order)
_UFUNC_AT = {"add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum,
             "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _atomic_result(kind: str, cur: np.ndarray, v: np.ndarray, compare) -> np.ndarray:
    """The value an atomic leaves in memory (CUDA's definitions; integers wrap)."""
    if kind == "add":
        return cur + v
    if kind == "sub":
        return cur - v
    if kind == "min":
        return np.minimum(cur, v)
    if kind == "max":
        return np.maximum(cur, v)
    if kind == "and":
        return cur & v
    if kind == "or":
        return cur | v
    if kind == "xor":
        return cur ^ v
    if kind == "inc":   # atomicInc: ((old >= v) ? 0 : old + 1)
        return np.where(cur >= v, 0, cur + 1).astype(cur.dtype)
    if kind == "dec":   # atomicDec: ((old == 0) || (old > v)) ? v : old - 1
        return np.where((cur == 0) | (cur > v), v, cur - 1).astype(cur.dtype)
    if kind == "exch":
        return v
    return np.where(cur == compare, v, cur)  # cas


def _rows(value, keep: np.ndarray):
    """A copy record's per-lane field (an array, or a tuple of arrays) at the lanes kept."""
    if isinstance(value, np.ndarray):
        return value[keep]
    if isinstance(value, tuple):
        return tuple(_rows(v, keep) for v in value)
    return value


# How each statement class executes; a class missing here is an error, never skipped.
_EXECUTE = {
    Let: _Machine._assign, Assign: _Machine._assign, Load: _Machine._load,
    Store: _Machine._store, Loop: _Machine._loop, If: _Machine._if, Sync: _Machine._sync,
    SyncReduce: _Machine._sync_reduce,
    DeclareLocal: _Machine._declare_local, LocalStore: _Machine._local_store,
    Atomic: _Machine._atomic, LoadMatrix: _Machine._load_matrix,
    StoreMatrix: _Machine._store_matrix, Shuffle: _Machine._shuffle,
    MmaSync: _Machine._mma_sync,
    SyncWarp: _Machine._syncwarp, CopyAsync: _Machine._copy_async, Assert: _Machine._assert,
    CommitGroup: _Machine._commit_group, WaitGroup: _Machine._wait_group,
    Return: _Machine._return, TmaLoad: _Machine._tma_load,
    MbarrierInit: _Machine._mbarrier_init, MbarrierArrive: _Machine._mbarrier_arrive,
    MbarrierWait: _Machine._mbarrier_wait, TmaStore: _Machine._tma_store,
    BulkLoad: _Machine._bulk_load, BulkStore: _Machine._bulk_store,
    BulkCommit: _Machine._bulk_commit, BulkWait: _Machine._bulk_wait,
    FenceProxyAsync: _Machine._fence_proxy_async, Wgmma: _Machine._wgmma,
    WgmmaFence: lambda self, s, idx: None,      # ordering only: the model is in order
    WgmmaCommit: lambda self, s, idx: None,
    WgmmaWait: lambda self, s, idx: None,
}
_BULK_NAMES = {TmaLoad: "TMA load", TmaStore: "TMA store", BulkLoad: "bulk load",
               BulkStore: "bulk store"}

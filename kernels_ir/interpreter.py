"""The numpy interpreter: executes a whole launch on the CPU with CUDA semantics.

This is the executable definition of what the IR means. Every thread of every block runs in
lockstep, statement by statement, as numpy arrays over the threads that are active there;
ifs and loops narrow the active set per lane. Barriers are phase boundaries: a
`__syncthreads()` must be reached by all threads of a block or none (anything else raises).
For race-free kernels this order gives what any legal GPU schedule gives.

Faults never produce a made-up value: out-of-bounds and misaligned accesses, division by
zero and out-of-range shifts raise `KernelRuntimeError` naming the array, the index, the
block, the thread and the iteration of every enclosing loop.

The Machine here runs the plain statements (assignments, ifs, loads, stores, atomics,
barriers) and holds a run's state; the rest lives by concept, as functions of the machine:
loops in interpret_loops, asynchronous copies (cp.async, mbarriers, TMA, bulk) in
interpret_async, warp collectives and tensor cores in interpret_warps, where each lane's
access lands (bounds, alignment, layouts) in interpret_addresses. What a run takes and
reports (observers' records, address-only runs, limits) is in run_types.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from . import interpret_addresses, interpret_async, interpret_loops, interpret_warps
from .coroutines import Scheduler
from .dtypes import from_storage, to_storage
from .errors import KernelError, KernelRuntimeError
from .evaluate import Evaluator
from .expr import Expr, Op, Var
from .interpret_async import _BULK_NAMES
from .inputs import make_arrays
from .launch import Launch, resolve_launch
from .periodic import Plan
from .printer import format_stmt
from .run_types import (MAX_LOOP_ITERATIONS, MAX_THREADS, BarrierReached, GlobalAccess,
                        Observer, PartialRun, SharedAccess, Unwritten)
from .semantics import LaneFault, atomic_result, convert
from .arrays import LocalArray, SharedArray, source_name
from .kernel import Kernel
from .stmt import (Access, Assert, Assign, Atomic, DeclareLocal, If, Let, Load, LoadMatrix,
                   LocalStore, Loop, MmaSync, Return, Shuffle, Store, StoreMatrix, Sync,
                   SyncReduce, SyncWarp, unsupported, walk)
from .stmt_async import (BulkCommit, BulkLoad, BulkStore, BulkWait, CommitGroup, CopyAsync,
                         FenceProxyAsync, MbarrierArrive, MbarrierInit, MbarrierWait, TmaLoad,
                         TmaStore, WaitGroup, Wgmma, WgmmaCommit, WgmmaFence, WgmmaWait)


# two 64-bit polynomial hashes of a lane's decisions (odd multipliers, wrapping): blocks
# are told apart by both, so two that decide differently share a signature only when 128
# bits of hash collide
_SIGNATURE_MULTIPLIERS = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))


def control_signatures(kernel: Kernel, params: Mapping[str, int | float] | None,
                       statements: frozenset[int], blocks: np.ndarray, *,
                       loop_limit: int = MAX_LOOP_ITERATIONS,
                       truncate: frozenset[int] = frozenset(),
                       truncate_pairs: frozenset[int] = frozenset()) -> np.ndarray:
    """Per block of `blocks`, two 64-bit hashes (a (blocks, 2) uint64 array) of the
    decisions its threads take at every if and loop condition of a run of `statements`
    (thread by thread, in program order): blocks whose rows are equal took the same
    branches and as many iterations of every loop (of the loops of `truncate`, whose
    iterations look alike, as a run that truncates them takes: PartialRun.truncate and
    truncate_pairs)."""
    launch = resolve_launch(kernel, params)
    machine = Machine(launch, {}, 0, None, PartialRun(
        statements=statements, blocks=blocks, signature=True, truncate=truncate,
        truncate_pairs=truncate_pairs),
        loop_limit)
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
        blank: frozenset[str] = frozenset(),
        unwritten: Unwritten | None = None) -> dict[str, np.ndarray]:
    """Execute one launch; return every global array after it (inputs copied, never changed).

    Arrays not given are made by `make_arrays(launch, seed, blank)`: those named in `blank`,
    whose values the caller needs nothing of, are zeros taken as touched (and one given
    is not copied). With `partial`, only part of
    the launch runs (see PartialRun) and no global arrays are made or returned. A loop that
    runs `loop_limit` iterations in one entry faults as endless, unless it is counted
    (Loop.counted) and its closed form says when it ends: it may then run up to
    MAX_LOOP_ITERATIONS. A load of shared bytes no thread has written faults, unless
    `unwritten` allows it (see Unwritten).
    """
    if not 1 <= loop_limit <= MAX_LOOP_ITERATIONS:
        raise KernelError(f"loop_limit must be 1 to {MAX_LOOP_ITERATIONS:,}, got {loop_limit}",
                          kernel=kernel.name)
    launch = resolve_launch(kernel, params)
    machine = Machine(launch, arrays or {}, seed, observer, partial, loop_limit, blank,
                      unwritten)
    machine.execute()
    views = {v.name for v in kernel.global_views}
    return {name: a for name, a in machine.globals.items() if name not in views}


class Machine(Evaluator):
    def __init__(self, launch: Launch, arrays: Mapping[str, np.ndarray], seed: int,
                 observer: Observer | None, partial: PartialRun | None = None,
                 loop_limit: int = MAX_LOOP_ITERATIONS, blank: frozenset[str] = frozenset(),
                 unwritten: Unwritten | None = None):
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
        # global arrays (and views of them) whose length the source does not say
        # (Kernel.assumed_lengths): no end is checked, their stand-in storage wraps
        assumed = set(k.assumed_lengths)
        self.unbounded = frozenset(
            {g.name for g in k.globals if g.name in assumed} |
            {v.name for v in k.global_views if v.base is not None and v.base.name in assumed})
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
        # CUDA leaves shared memory uninitialized: track what was written, so that a read
        # of anything else is a fault instead of a made-up zero (or, where the caller allows
        # such reads, Unwritten, the window starts as its fill bytes and the read is told)
        self.unwritten = unwritten
        self.shared = np.full(self.nblocks * self.window,
                              0 if unwritten is None else unwritten.fill, np.uint8)
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
                                  loc=stmt.loc, site=getattr(stmt, "site", None),
                                  **self._where(gid))

    def lane_fault(self, stmt, fault: LaneFault, where: np.ndarray) -> KernelRuntimeError:
        """The located fault of `fault`'s lanes (positions in `where`, the first one's said),
        with `fault_blocks`: the grid's ids of the run's blocks those lanes are in. This is
        each such block's first fault (the blocks of a run go through their statements in
        step, each in its own order), so a search for the blocks that fault can count them
        all from one run (smemsim.launch.faults.run_in_ranges)."""
        lanes = where[fault.lanes]
        err = self._fault(stmt, fault.message, int(lanes[0]))
        err.fault_blocks = np.unique(self.block_ids[lanes // self.tpb])
        return err

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
                raise self.lane_fault(s, fault, idx) from None

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
    # (where each lane's access lands: interpret_addresses)
    _offsets = interpret_addresses.offsets
    _descriptors = interpret_addresses.descriptors
    _descriptor_offsets = interpret_addresses.descriptor_offsets
    _element_offsets = interpret_addresses.element_offsets
    _stored_at = interpret_addresses.stored_at

    def _addresses_only(self, s, idx: np.ndarray, offset: np.ndarray) -> bool:
        """In a run for addresses only (a PartialRun's slice), report the access (a shared
        one, or a global one to an observer) and say so: its values are not needed."""
        if self.partial is None or self.partial.statements is None:
            return False
        if isinstance(s.array, SharedArray):
            if self.partial.track and getattr(s, "used_where", None) is not None:
                # (a load the compiler made unconditional: its lanes that throw the value
                # away read nothing the program uses, no hazard to track)
                used = self.eval(s.used_where, idx) != 0
                if not used.all():
                    idx, offset = idx[used], offset[used]
                    if not idx.size:
                        return True
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
            interpret_async.issue_copy(self, s, idx, first, None)
        elif isinstance(s, TmaLoad):
            origin = interpret_async.tma_origin(self, s, idx)
            interpret_async.issue_tma(self, s, idx, first, None, origin,
                            interpret_async.tma_intent(self, s, idx, offset, origin))
        elif isinstance(s, BulkLoad):
            interpret_async.issue_tma(self, s, idx, first, None)
        elif isinstance(s, (TmaStore, BulkStore)):
            interpret_async.issue_bulk_read(self, s, idx, first)
        elif isinstance(s, Wgmma):
            operands = interpret_warps.gmma_operands(self, s, idx)
            if self.origin is not None:
                interpret_warps.check_operands(self, s, *operands)
        elif isinstance(s, Store):
            self._check_settled(s, first, s.width, reading=False)
            self._plain_write(self._bytes(s, first, s.width), idx, s.width * s.array.dtype.size)
        else:  # a load or an atomic reads the bytes
            self._check_written(s, first, s.width, idx)
            if isinstance(s, Load) and self.intent is not None:
                interpret_async.check_reader(self, s, offset, self._bytes(s, first, s.width), idx)

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
            raise LaneFault(f"{who}{'reads' if reading else 'writes'} '{source_name(array)}' "
                            f"(byte {byte} of the block's window) while {message}",
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

    def _check_written(self, s: Load, first: np.ndarray, width: int, idx: np.ndarray) -> None:
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
            message = (f"reads shared memory no thread has written "
                       f"('{source_name(s.array)}', byte "
                       f"{byte} of the block's window): uninitialized in CUDA")
            if self.unwritten is None:
                raise LaneFault(message, np.array([lane]))
            if self.unwritten.first is None:   # allowed: the bytes read are the fill
                self.unwritten.first = self._fault(s, message, int(idx[min(lane, idx.size - 1)]))

    def _load(self, s: Load, idx: np.ndarray) -> None:
        offset = self._offsets(s, idx)
        array, dst, w = s.array, s.dst, s.width
        if self._addresses_only(s, idx, offset):
            return
        if isinstance(array, SharedArray):
            memory, first = self._shared_elements(s, idx, offset)
            self._check_written(s, first, w, idx)
            if self.intent is not None:
                interpret_async.check_reader(self, s, offset, self._bytes(s, first, w), idx)
        else:
            memory, first = self.globals[array.name], self._stored_at(array, offset)
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
            self._check_written(s, first, 1, idx)
        else:
            memory, first = self.globals[array.name], self._stored_at(array, offset)
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
                memory[where] = atomic_result(s.kind, cur, value[lanes],
                                              None if compare is None else compare[lanes])
        if s.dst is not None:
            if s.dst not in self.vars:
                self.vars[s.dst] = np.zeros(self.total, s.dst.dtype.np)
            self.vars[s.dst][idx] = old

    # ------------------------------------------------------------ cp.async

    # ------------------------------------------------------------ TMA and mbarriers

    # ------------------------------------------------------------ TMA and bulk stores

    # ------------------------------------------------------------ wgmma

    # ------------------------------------------------------------ warp-level operations

    # ------------------------------------------------------------ warp-collective matrices

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
            memory, first = self.globals[array.name], self._stored_at(array, offset)
            if self.observer is not None:
                self.observer(GlobalAccess(s, idx, offset))
        for element, value in enumerate(values):
            memory[first + element] = value


# atomics whose memory update is a ufunc of (old, value): applied at once by ufunc.at when
# the old value is not wanted (inc, dec, exch and cas depend on more than one operand order)
_UFUNC_AT = {"add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum,
             "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


# How each statement class executes; a class missing here is an error, never skipped.
_EXECUTE = {
    Let: Machine._assign, Assign: Machine._assign, Load: Machine._load, Store: Machine._store,
    If: Machine._if, Sync: Machine._sync, SyncReduce: Machine._sync_reduce,
    DeclareLocal: Machine._declare_local, LocalStore: Machine._local_store,
    Atomic: Machine._atomic, Assert: Machine._assert, Return: Machine._return,
    Loop: interpret_loops.loop,
    LoadMatrix: interpret_warps.load_matrix, StoreMatrix: interpret_warps.store_matrix,
    Shuffle: interpret_warps.shuffle, MmaSync: interpret_warps.mma_sync,
    SyncWarp: interpret_warps.syncwarp, Wgmma: interpret_warps.wgmma,
    CopyAsync: interpret_async.copy_async, CommitGroup: interpret_async.commit_group,
    WaitGroup: interpret_async.wait_group, TmaLoad: interpret_async.tma_load,
    MbarrierInit: interpret_async.mbarrier_init, MbarrierArrive: interpret_async.mbarrier_arrive,
    MbarrierWait: interpret_async.mbarrier_wait, TmaStore: interpret_async.tma_store,
    BulkLoad: interpret_async.bulk_load, BulkStore: interpret_async.bulk_store,
    BulkCommit: interpret_async.bulk_commit, BulkWait: interpret_async.bulk_wait,
    FenceProxyAsync: interpret_async.fence_proxy_async,
    WgmmaFence: lambda machine, s, idx: None,      # ordering only: the model is in order
    WgmmaCommit: lambda machine, s, idx: None,
    WgmmaWait: lambda machine, s, idx: None,
}

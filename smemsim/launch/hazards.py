"""Hazards: shared-memory races, divergent barriers, out-of-bounds and misaligned accesses,
and launches over an architecture's limits, each named precisely enough to fix.

Races: two accesses to the same byte by different threads of a block, at least one a store,
with no barrier between them. A static pass builds the kernel's control-flow graph
(networkx) and, for every shared access site, the barriers that can come last before it:
two sites that share such a barrier can run in the same barrier interval. A dynamic pass
runs the launch on the interpreter and confirms: per block, accesses between the same two
barriers (an epoch) that touch the same byte from different threads, one of them a store.

The other faults come from running the launch: the interpreter stops at the first
out-of-bounds or misaligned access and at a barrier that only part of a block reaches,
naming the block, thread and loop iteration.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

from kernels_ir import (
    BarrierReached, Kernel, KernelError, KernelRuntimeError, LayoutMismatch, PartialRun,
    SharedAccess, SourceLoc, WarpBarrierReached, control_signatures, format_stmt,
    make_arrays, resolve_launch, run,
)
from kernels_ir.stmt import If, Loop, Return, Sync, unsupported
from kernels_ir.stmt_async import CommitGroup, CopyAsync, MbarrierArrive, TmaLoad, WaitGroup

from ..engine.arch import get_arch
from .block_ends import block_ends, check_other_run_at_ends
from .bulk import box_start
from .congruence import Congruences
from .ranges import BlockRanges, probe_settled, trip_counts
from .slicing import blind_arrays, control_run, hazard_slices, layout_run
from .trace import (
    LOOP_LIMIT, _blocks_on_read_axes, _decidable_comparisons,
    separable_products,
)

if TYPE_CHECKING:  # annotations only
    import networkx as nx

ENTRY, EXIT = "entry", "exit"


@dataclass(frozen=True)
class Race:
    """Two accesses to one byte from different threads with no barrier between them."""

    first: int                   # site numbers (first <= second)
    second: int
    first_loc: SourceLoc
    second_loc: SourceLoc
    kind: str                    # "write-write", "read-write" or "same-value write-write"
    block: tuple[int, int, int]
    threads: tuple[tuple[int, int, int], tuple[int, int, int]]
    array: str
    element: tuple[int, ...]     # the array element both touch
    byte: int                    # byte offset in the block's window
    interval: str                # between which barriers
    same_warp: bool = False      # one warp of the block runs both sites in the interval
    #                              (warp-synchronous code; else a block barrier is missing)

    @property
    def benign(self) -> bool:
        """A race that is a warning, not a failure: both threads store the same bytes (the
        result is the same in either order; compute-sanitizer's racecheck does not report
        these, but it is still a race in the C++ memory model and costs a store), or a plain
        read of a word other threads compare-and-swap (a CAS loop's first read, which its
        atomicCAS checks)."""
        return self.kind in ("same-value write-write", "read-atomic")

    @property
    def warning(self) -> str:
        """Why a benign race is only a warning."""
        if self.kind == "read-atomic":
            return ("a plain read of a word other threads compare-and-swap: a CAS loop's "
                    "first read, which its atomicCAS checks, is the usual case; elsewhere "
                    "the read may see the word before or after the swap")
        return ("both store the same value: the result does not depend on the order; "
                "compute-sanitizer does not report it")

    @property
    def places(self) -> tuple:
        """The race's kind and its two source places, whichever site is first: the races
        of one place pair are one bug (nvcc's unrolled copies of the lines)."""
        where = sorted((loc.file, loc.line, loc.column, loc.calls)
                       for loc in (self.first_loc, self.second_loc))
        return (self.kind, *where)

    def describe(self, copies: int = 1) -> str:
        """One line for people (`copies`: the site pairs of its places it stands for)."""
        idx = "".join(f"[{i}]" for i in self.element)
        more = f" (and {copies - 1} more site pair(s) of these lines: the build's copies " \
            "of them)" if copies > 1 else ""
        return (f"{self.kind} race on {self.array}{idx} (byte {self.byte}) in block "
                f"{self.block}: site {self.first} ({self.first_loc.chain()}) by thread "
                f"{self.threads[0]} and site {self.second} ({self.second_loc.chain()}) by "
                f"thread {self.threads[1]}, {self.interval}{more}")


@dataclass(frozen=True)
class Fault:
    """A launch that cannot run as written: the interpreter's located error."""

    kind: str  # out_of_bounds, misaligned, divergent_barrier, uninitialized_read,
    #            copy_in_flight (a cp.async not yet waited for), incomplete (too large to
    #            check in bounded memory), layout (a wgmma descriptor or a reader by index
    #            that selects other elements of a TMA tile than its map wrote there), other
    message: str                 # the first block's fault, located
    blocks: int = 1              # blocks that hit a fault of this kind at this statement
    loc: SourceLoc | None = None  # the statement's source line, where known


@dataclass(frozen=True)
class HazardReport:
    """Everything `check` found for one launch."""

    kernel: str
    params: dict
    races: tuple[Race, ...]      # races whose outcome depends on the order
    faults: tuple[Fault, ...]
    limits: tuple[str, ...]      # launch limits exceeded, each naming the limit and value
    concurrent_sites: tuple[tuple[int, int], ...]  # site pairs that share a barrier interval
    same_value: tuple[Race, ...] = ()  # write-write races that store equal bytes (warnings)
    blocks_checked: int = 0      # blocks run to the end or to their fault
    blocks_total: int = 0        # blocks of the launch
    unchecked: str | None = None  # why some blocks were not run (the fault cap), if any
    method: str = "full"         # "full": every block run with its values; "sliced": the
    #                              address-only runs of slicing.HazardSlices stood for that
    runs: tuple[tuple[str, int], ...] = ()  # (what ran, how many blocks it ran), in order

    @property
    def clean(self) -> bool:
        """No hazard that can change a result (same-value writes are only warnings)."""
        return not (self.races or self.faults or self.limits)

    def by_place(self, races=None) -> list[tuple[Race, int]]:
        """(the first race, how many) of each kind and pair of source places among
        `races` (default: the order-dependent ones), in their order."""
        groups: dict = {}
        for r in self.races if races is None else races:
            groups.setdefault(r.places, []).append(r)
        return [(rs[0], len(rs)) for rs in groups.values()]


# ---------------------------------------------------------------- the static barrier graph

def control_flow_graph(kernel: Kernel) -> nx.DiGraph:
    """Statements as nodes (by id), control flow as edges, plus 'entry' and 'exit'."""
    import networkx as nx  # here, not at import: `smemsim analyze` starts without it
    g = nx.DiGraph()
    g.add_node(ENTRY)
    g.add_node(EXIT)
    stmts: dict[int, object] = {}

    def block(body, preds: list) -> list:
        for s in body:
            preds = stmt(s, preds)
        return preds

    def stmt(s, preds: list) -> list:
        node = id(s)
        stmts[node] = s
        g.add_node(node, stmt=s)
        if isinstance(s, Loop):
            # the node is the loop's test; a do-while runs its body once before it
            if s.do_while and s.body:
                for e in block(s.body, preds):
                    g.add_edge(e, node)
                g.add_edge(node, id(s.body[0]))
                return [node]
            for p in preds:
                g.add_edge(p, node)
            for e in block(s.body, [node]):
                g.add_edge(e, node)
            return [node]
        for p in preds:
            g.add_edge(p, node)
        if isinstance(s, If):
            then = block(s.then, [node])
            orelse = block(s.orelse, [node])
            return then + orelse
        if isinstance(s, Return):
            g.add_edge(node, EXIT)
            return []  # nothing follows a return on this path
        if s.bodies():
            # nested statements with control flow this graph has no rule for
            raise unsupported("the hazard analysis's control-flow graph", s, kernel.name)
        return [node]

    ends = block(kernel.body, [ENTRY])
    for e in ends:
        g.add_edge(e, EXIT)
    g.graph["stmts"] = stmts
    return g


def last_barriers(g: nx.DiGraph, node) -> frozenset:
    """The barriers (or 'entry') that can come last before `node` on some path."""
    found, seen, work = set(), set(), list(g.predecessors(node))
    while work:
        n = work.pop()
        if n in seen:
            continue
        seen.add(n)
        if n == ENTRY or isinstance(g.nodes[n].get("stmt"), Sync):
            found.add(n)
            continue
        work.extend(g.predecessors(n))
    return frozenset(found)


def barrier_tracked_copies(g: nx.DiGraph) -> frozenset:
    """The cp.async sites whose copies complete on an mbarrier: on every path from them a
    `cp.async.mbarrier.arrive` comes before any commit, wait or the kernel's end
    (libcu++'s memcpy_async on a cuda::barrier). Their bytes land when the barrier's phase
    completes: a read before that is the interpreter's in-flight fault, as for TMA."""
    found = set()
    for node, data in g.nodes(data=True):
        s = data.get("stmt")
        if not isinstance(s, CopyAsync):
            continue
        seen, work, tracked = set(), list(g.successors(node)), True
        while work and tracked:
            n = work.pop()
            if n in seen:
                continue
            seen.add(n)
            t = g.nodes[n].get("stmt")
            if isinstance(t, MbarrierArrive) and t.kind == "cp_async":
                continue
            if n == EXIT or isinstance(t, (CommitGroup, WaitGroup)):
                tracked = False
            work.extend(g.successors(n))
        if tracked:
            found.add(s.site)
    return frozenset(found)


def concurrent_site_pairs(kernel: Kernel) -> tuple[tuple[int, int], ...]:
    """Pairs of shared sites (a <= b) that some barrier interval can hold together."""
    g = control_flow_graph(kernel)
    sites = kernel.sites()
    lasts = {s.site: last_barriers(g, id(s)) for s in sites}
    tracked = barrier_tracked_copies(g)
    pairs = []
    for i, a in enumerate(sites):
        for b in sites[i:]:
            if not (a.WRITES or b.WRITES):
                continue  # two reads never race
            if a.ATOMIC and b.ATOMIC:
                continue  # nor two atomics (so a histogram's atomics are not even recorded)
            if a.BULK or b.BULK or a.site in tracked or b.site in tracked:
                # a TMA copy is written by the async proxy and ordered by its mbarrier (so
                # is a cp.async that completes on one): a read before the wait that lands
                # it is the interpreter's in-flight fault
                continue
            if lasts[a.site] & lasts[b.site]:
                pairs.append((a.site, b.site))
    return tuple(pairs)


# ---------------------------------------------------------------- the dynamic pass

class _Recorder:
    def __init__(self, launch, blocks: np.ndarray, scan, pairs):
        self.scan = scan  # scan(recorder, records) of completed barrier intervals
        # only the sites of some pair the barrier graph says may race are recorded: a race
        # is reported only for such a pair (the reads of a GEMM's inner loop are in none)
        self.sites = frozenset(site for pair in pairs for site in pair)
        self.blocks = blocks  # the grid's linear block ids this run has, by dense index
        self.rows = 0
        self.tpb = launch.threads_per_block
        self.wpb = launch.warps_per_block
        # per block of this run (dense index; `blocks` is sorted), its barrier epoch: no
        # array the size of the grid (a 65535 x 65535 grid has 4.3 G blocks)
        self.epoch = np.zeros(blocks.size, np.int64)
        # __syncwarp orders the lanes of one warp only: an epoch per warp
        self.warp_epoch = np.zeros(blocks.size * self.wpb, np.int64)
        self.barrier_lines: dict[tuple[int, int], int] = {}
        self.parts: list = []

    def __call__(self, event) -> None:
        if isinstance(event, WarpBarrierReached):
            self.warp_epoch[event.warps] += 1
            return
        if isinstance(event, BarrierReached):
            for d in event.blocks.tolist():
                self.epoch[d] += 1
                self.barrier_lines[(int(self.blocks[d]), int(self.epoch[d]))] = \
                    event.stmt.loc.line
            if self.rows > FLUSH_ROWS:
                self._flush()
            return
        if not isinstance(event, SharedAccess):
            return
        s = event.stmt
        if s.site not in self.sites:
            return
        nbytes = s.access_bytes
        dense = event.threads // self.tpb
        lanes = event.threads.size
        # one row per 4-byte word a lane touches, with the mask of its bytes (a word, not a
        # byte, per row: a 16-byte access makes 4 rows, not 16); the rows are filled in
        # place, a lane's columns broadcast over its words (a check runs this per access)
        per = max(nbytes // 4, 1)
        rows = np.empty((lanes, per, 10), np.int64)
        lane_warp = event.threads % self.tpb // 32
        # columns: block, epoch, word, thread, site, writes (2: an atomic write), warp (the
        # grid-wide warp), the warp's __syncwarp epoch, stored bytes, byte mask
        block = self.blocks[dense]
        rows[:, :, 0] = block[:, None]
        rows[:, :, 1] = self.epoch[dense][:, None]
        rows[:, :, 2] = event.offsets[:, None] // 4 + np.arange(per)
        rows[:, :, 3] = event.threads[:, None]
        rows[:, :, 4] = s.site
        rows[:, :, 5] = 2 if s.ATOMIC else int(s.WRITES)
        rows[:, :, 6] = (block * self.wpb + lane_warp)[:, None]
        rows[:, :, 7] = self.warp_epoch[dense * self.wpb + lane_warp][:, None]
        # the bytes a store or a cp.async writes, at their place in the word (-1: unknown)
        if event.stored is None:
            rows[:, :, 8] = -1
        elif nbytes >= 4:
            rows[:, :, 8] = np.ascontiguousarray(event.stored).reshape(-1).view(np.uint32) \
                .reshape(lanes, per)
        else:
            shift = 8 * (event.offsets % 4)[:, None] + 8 * np.arange(nbytes)
            rows[:, 0, 8] = (event.stored.reshape(-1, nbytes).astype(np.int64) << shift) \
                .sum(axis=1)
        if nbytes >= 4:
            rows[:, :, 9] = 0xF
        else:
            rows[:, 0, 9] = ((1 << nbytes) - 1) << (event.offsets % 4)
        rows = rows.reshape(-1, 10)
        self.parts.append(rows)
        self.rows += len(rows)
        if self.rows > MAX_OPEN_ROWS:
            self._flush()
            if self.rows > MAX_OPEN_ROWS:
                its = ", ".join(f"{k}={v}" for k, v in event.iterations)
                raise _IntervalTooLarge(
                    f"check stopped at {s.loc}{f' ({its})' if its else ''}: barrier intervals "
                    f"still open hold {self.rows:,} shared word accesses (the limit is "
                    f"{MAX_OPEN_ROWS:,}, about {MAX_OPEN_ROWS * 80 >> 20} MiB); races were "
                    "checked up to here. A loop that never ends, or never reaches a "
                    "__syncthreads()? Check a smaller launch with --param")

    def _flush(self) -> None:
        """Scan the intervals every block has left behind, and forget them (memory stays
        bounded by the open intervals)."""
        a = self.take()
        done = a[:, 1] < self.epoch[np.searchsorted(self.blocks, a[:, 0])]
        if done.any():
            self.scan(self, a[done])
        self.parts = [a[~done]]
        self.rows = int((~done).sum())

    def take(self) -> np.ndarray:
        """Every record held, as one array (and no longer held)."""
        a = np.concatenate(self.parts) if self.parts else np.zeros((0, 10), np.int64)
        self.parts, self.rows = [], 0
        return a


class _IntervalTooLarge(Exception):
    """A barrier interval too big to check in bounded memory."""


# a grid of more blocks than LARGE_GRID is first checked without an array of its block ids;
# one of more than HUGE_GRID never is held as one (8 bytes a block)
LARGE_GRID = 1 << 22
MAX_RACES = 20    # races a check lists at most (one a pair of sites)
HUGE_GRID = 1 << 26

# Records are 10 int64 columns (80 bytes) per word accessed: scan completed intervals once
# this many are held, and stop (a located fault) past the larger number in open intervals.
FLUSH_ROWS = 1 << 21
MAX_OPEN_ROWS = 1 << 22


def _races(kernel: Kernel, launch, rec: _Recorder, a: np.ndarray, pairs, limit: int,
           found: list, seen: dict) -> list[Race]:
    """Add the races among records `a` (whole barrier intervals) to `found`: one per site
    pair (`seen`), an order-dependent one replacing a same-value one, at most `limit`."""
    if not a.size or len(found) >= limit:
        return found
    # group rows by (block, epoch, word) with one sort of a packed key; a word can race
    # only if some row writes it and two threads touch it: that leaves few groups for the
    # exact (Python) look below, none in most kernels
    key = _group_key(a)
    order = np.argsort(key, kind="stable")
    key = key[order]
    new_group = np.ones(len(a), bool)
    new_group[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(new_group)
    ends = np.append(starts[1:], len(a))
    thread = a[order, 3]
    writes = np.logical_or.reduceat(a[order, 5] != 0, starts)
    keep = writes & (np.minimum.reduceat(thread, starts) != np.maximum.reduceat(thread, starts))
    starts, ends = starts[keep], ends[keep]
    allowed = set(pairs)
    sites = {s.site: s for s in kernel.sites()}
    gx, gy, _ = launch.grid
    bx, by, _ = launch.block
    settled = lambda: all(seen.get(p) in ("write-write", "read-write") for p in allowed)
    for n, (s0, e0) in enumerate(zip(starts, ends)):
        if n % 256 == 0 and settled():
            break  # every pair that can race has its report: nothing more to find
        group = a[order[s0:e0]]
        group = group[np.argsort(group[:, 3], kind="stable")]  # by thread
        stores = group[group[:, 5] != 0]
        # one store per (site, warp) stands for the others: every other thread's rows are
        # compared with it, and lanes of one warp share their __syncwarp ordering
        _, firsts = np.unique(stores[:, 4] * (1 << 32) + stores[:, 6], return_index=True)
        for w in stores[np.sort(firsts)]:
            others = group[(group[:, 3] != w[3]) & ((group[:, 9] & w[9]) != 0)]
            # lanes of one warp with a __syncwarp between them are ordered
            others = others[(others[:, 6] != w[6]) | (others[:, 7] == w[7])]
            if w[5] == 2:
                others = others[others[:, 5] != 2]  # atomics never race with atomics
            if not others.size:
                continue
            # an order-dependent conflict if there is one; else both store the same byte
            same = (w[8] >= 0) & (others[:, 8] == w[8]) & (others[:, 9] == w[9])
            o = others[~same][0] if (~same).any() else others[0]
            pair = tuple(sorted((int(w[4]), int(o[4]))))
            kind = "write-write" if o[5] else "read-write"
            if same.all():
                kind = "same-value write-write"
            elif w[5] == 2 and not o[5] and getattr(sites[int(w[4])], "kind", None) == "cas":
                # a plain read against a compare-and-swap, which checks what was read (a
                # CAS loop's first read); against an atomicAdd it is a race: the read sees
                # a count partway
                kind = "read-atomic"
            if pair not in allowed or seen.get(pair) in (kind, "write-write", "read-write"):
                continue  # one report per site pair; an order-dependent one replaces a benign
            if kind == "read-atomic" and seen.get(pair) == "same-value write-write":
                continue
            if pair in seen:
                found[:] = [r for r in found if (r.first, r.second) != pair]
            seen[pair] = kind
            first, second = (w, o) if int(w[4]) <= int(o[4]) else (o, w)
            overlap = int(w[9] & o[9])
            byte = int(w[2]) * 4 + (overlap & -overlap).bit_length() - 1  # the first shared
            stmt = sites[int(first[4])]
            array = stmt.array
            # (from the source's variable where the view is of one: `wmax[0]`, not the
            # window's word 2056)
            base = kernel.buffer_base(array.buffer) + (getattr(array, "variable_at", None) or 0)
            elem = (byte - base) // array.dtype.size
            if array.layout is not None:
                elem = int(array.layout.apply(elem))  # physical -> logical (an involution)
            index = tuple(int(x) for x in np.unravel_index(elem, tuple(
                (array.shape[d] + (array.pad if d == array.rank - 1 else 0))
                if array.shape[d] is not None else 1 << 30 for d in range(array.rank))))
            b, ep = int(first[0]), int(first[1])
            # warp-synchronous code: one warp of the block runs both sites in the interval
            # (a reduction's tail under `if (tid < 32)`); where more do, a block barrier is
            # missing, whichever threads the data made conflict first
            both = a[(a[:, 0] == b) & (a[:, 1] == ep) & np.isin(a[:, 4], pair)]
            one_warp = np.unique(both[:, 6]).size == 1
            start = rec.barrier_lines.get((b, ep))
            end = rec.barrier_lines.get((b, ep + 1))
            interval = ("before the first barrier" if start is None else
                        f"after the barrier at line {start}") + \
                       ("" if end is None else " and before its next pass (a loop's)"
                        if end == start else f" and before the one at line {end}")
            thread = lambda t: (int(t % launch.threads_per_block) % bx,
                                int(t % launch.threads_per_block) // bx % by,
                                int(t % launch.threads_per_block) // (bx * by))
            found.append(Race(int(first[4]), int(second[4]), sites[int(first[4])].loc,
                              sites[int(second[4])].loc, kind,
                              (b % gx, b // gx % gy, b // (gx * gy)),
                              (thread(first[3]), thread(second[3])),
                              # (a view of a source's variable: the variable, by its byte)
                              array.variable or array.name,
                              index if not array.variable or array.variable == array.name
                              else (), byte, interval, one_warp))
            if len(found) >= limit:
                return found
        if len(found) >= limit:
            break
    return found


def _group_key(a: np.ndarray) -> np.ndarray:
    """One int64 per record that orders by (block, epoch, word), as a lexsort would."""
    spans = [int(a[:, c].max()) + 1 for c in (0, 1, 2)]
    if spans[0] * spans[1] * spans[2] >= 1 << 62:  # would overflow: rank the triples instead
        order = np.lexsort((a[:, 2], a[:, 1], a[:, 0]))
        triples = a[order, :3]
        change = np.ones(len(a), np.int64)
        change[1:] = (triples[1:] != triples[:-1]).any(axis=1)
        out = np.empty(len(a), np.int64)
        out[order] = np.cumsum(change)
        return out
    return (a[:, 0] * spans[1] + a[:, 1]) * spans[2] + a[:, 2]


def _classify(err: KernelRuntimeError) -> str:
    text = str(err)
    if "out of bounds" in text:
        return "out_of_bounds"
    if "misaligned" in text:
        return "misaligned"
    if "divergent __syncthreads" in text:
        return "divergent_barrier"
    if "no thread has written" in text:
        return "uninitialized_read"
    if "cp.async to it is still in flight" in text:
        return "copy_in_flight"
    if "iterations without ending" in text:
        return "endless_loop"
    if "assertion `" in text or "__trap() stops the kernel" in text:
        return "assert"
    return "other"


def layout_agreement(kernel: Kernel, launch, arrays=None, seed: int = 0,
                     loop_limit: int = LOOP_LIMIT) -> tuple[Fault, ...]:
    """Tiles TMA wrote, read through a wgmma descriptor or by index (a load, ldmatrix) that
    select other elements than the ones the TMA map and the array's declaration agree on
    (kernels_ir.LayoutMismatch), one fault per source line; checked on the launch's first
    block with its values (a layout disagrees alike in every block; the other hazards are
    the rest of `check`'s)."""
    if not any(isinstance(s, TmaLoad) for s in kernel.statements()):
        return ()
    found: dict[tuple, LayoutMismatch] = {}

    def observe(event) -> None:
        # one per source line (a Python loop that builds four wgmmas is one line; an inline
        # helper's four calls, one asm statement)
        if isinstance(event, LayoutMismatch):
            loc = event.stmt.loc
            found.setdefault((loc.file, loc.line, loc.column), event)
    # without values where they decide nothing the run follows (no global arrays made, no
    # products computed: fast.cu's kernel 6 at 8192^3, 45 s on values, 20 s without)
    hs = hazard_slices(kernel)
    statements = None if hs.unusable else layout_run(kernel, hs)
    first = np.zeros(1, np.int64)
    try:
        run(kernel, dict(launch.params), arrays, seed=seed, observer=observe,
            partial=PartialRun(blocks=first) if statements is None else PartialRun(
                statements=statements, blocks=first, track=True, origin=True),
            loop_limit=loop_limit)
    except KernelRuntimeError:
        pass   # the run's faults are reported by the rest of check, for every block
    out = []
    for event in found.values():
        where = _thread_where(launch, event.thread)
        err = KernelRuntimeError(event.message, kernel=kernel.name,
                                 stmt=format_stmt(event.stmt), loc=event.stmt.loc, **where)
        out.append(Fault("layout", str(err), loc=event.stmt.loc))
    return tuple(out)


def _thread_where(launch, gid: int) -> dict:
    """Block and thread of a flat thread id of a run of the grid's first blocks."""
    tpb = launch.threads_per_block
    bx, by, _ = launch.block
    gx, gy, _ = launch.grid
    b, t = gid // tpb, gid % tpb
    return dict(block=(b % gx, b // gx % gy, b // (gx * gy)),
                thread=(t % bx, t // bx % by, t // (bx * by)))


def launch_limits(kernel: Kernel, arch: str, params: dict | None = None,
                  registers: int | None = None) -> tuple[str, ...]:
    """Limits the launch exceeds on `arch`, each with the limit and the value."""
    a = get_arch(arch)
    out = []
    try:
        launch = resolve_launch(kernel, params)
    except KernelError as err:
        return (err.message,)
    static, dyn = kernel.static_smem, launch.dynamic_smem
    if static > a.smem_per_block_default:
        out.append(f"static shared memory {static} B exceeds the {a.smem_per_block_default} B "
                   "a kernel may declare statically")
    if static + dyn > a.smem_per_block_optin:
        out.append(f"shared memory {static + dyn} B per block (static {static} + dynamic "
                   f"{dyn}) exceeds {a.name}'s {a.smem_per_block_optin} B per block")
    elif dyn and static + dyn > a.smem_per_block_default:
        out.append(f"note: {static + dyn} B per block needs cudaFuncSetAttribute("
                   f"MaxDynamicSharedMemorySize) above the {a.smem_per_block_default} B "
                   "default")
    if registers is not None and registers > a.max_regs_per_thread:
        out.append(f"{registers} registers per thread exceed the limit of "
                   f"{a.max_regs_per_thread}")
    return tuple(out)


MAX_FAULTS = 20       # distinct faults (kind and statement) a check reports
MAX_FAULT_BLOCKS = 64  # faulting blocks it runs before it stops looking for more


def check(kernel: Kernel, params: Mapping[str, int | float] | None = None, *,
          arch: str = "sm_90", arrays=None, seed: int = 0, registers: int | None = None,
          max_races: int = MAX_RACES, blocks=None,
          progress: Callable[[int, int], None] | None = None,
          sliced: bool = True, loop_limit: int = LOOP_LIMIT) -> HazardReport:
    """Run one launch looking for every hazard; return them all (the CLI exits non-zero).

    `blocks` limits the run to those linear block ids (x + gx * (y + gy * z)). Blocks share
    no shared memory, so they are run in chunks: all at once first, a chunk again in
    quarters when its open barrier intervals outgrow the memory bound or it faults, down to
    single blocks; so every faulting block is found, each distinct fault (kind and
    statement) is reported once with the number of blocks that hit it (at most MAX_FAULTS
    of them; the search stops after MAX_FAULT_BLOCKS faulting blocks, and says so).
    `progress(blocks done, blocks)` follows the chunks. A loop whose end has no closed form
    faults after `loop_limit` iterations of one entry (trace.LOOP_LIMIT).

    First (unless `sliced` is False) it tries the address-only runs of slicing.HazardSlices,
    which find the same hazards without computing values; it runs every block with its
    values (as above) only where they cannot tell: a loaded value decides an address, the
    control flow or a fault, some run faults (the full run then locates every fault), or a
    write-write race needs the stored bytes to tell whether it is benign.
    """
    limits = launch_limits(kernel, arch, params, registers)
    launch = resolve_launch(kernel, params)
    pairs = concurrent_site_pairs(kernel)
    # a large grid is first checked without an array of its block ids: the sliced runs,
    # the other run at the grid's ends (smemsim.launch.block_ends); a grid too large for such an
    # array is checked that way or not at all
    agreement = layout_agreement(kernel, launch, arrays, seed, loop_limit)
    report = lambda result, checked: HazardReport(
        kernel.title, dict(launch.params), tuple(r for r in result[0] if not r.benign),
        tuple(result[2]) + agreement, tuple(x for x in limits if not x.startswith("note:")),
        pairs, tuple(r for r in result[0] if r.benign), checked, launch.num_blocks,
        result[3], "sliced", result[1])
    if blocks is None and launch.num_blocks > LARGE_GRID:
        found = _check_by_slices(kernel, launch, None, pairs, max_races, progress,
                                 loop_limit) if sliced else None
        if found is not None:
            return report(found, launch.num_blocks)
        if launch.num_blocks > HUGE_GRID:
            raise KernelError(
                f"check: the launch has {launch.num_blocks:,} blocks, too many to run one by "
                "one, and the address-only runs cannot stand for them (a loaded value decides "
                "an address, the shared run reads two block axes other than through guards of "
                "one axis each, the other run reads blockIdx otherwise than through affine "
                "indices and guards, or a run faults: "
                "docs/hazards.md). Check a smaller launch with --param (a fault shows there "
                "with its block and thread)", kernel=kernel.name)
    chosen = _chosen_blocks(kernel, launch, blocks)
    if sliced:
        found = _check_by_slices(kernel, launch, chosen, pairs, max_races, progress,
                                 loop_limit)
        if found is not None:
            return report(found, int(chosen.size))
    found, seen = [], {}
    faults: dict[tuple, Fault] = {}
    faulted = 0
    # the arrays made once, not for every range of blocks (each range still starts from
    # them); those whose values decide nothing are zeros, taken as touched: llm.c's
    # crossentropy reads one float of each 50,257-float row of its 1.6 GB input
    blank = frozenset()
    if arrays is None:
        blank = blind_arrays(kernel, hazard_slices(kernel))
        arrays = make_arrays(launch, seed, blank)

    def scan(rec, records):
        _races(kernel, launch, rec, records, pairs, max_races, found, seen)
    # ranges of `chosen`, in order, each at most the interpreter's threads at once (a fault
    # splits its range in quarters to find its blocks)
    step = max(1, CHECK_THREADS // launch.threads_per_block)
    pending = [(at, min(step, chosen.size - at)) for at in range(0, chosen.size, step)]
    done, unchecked = 0, None
    while pending:
        lo, size = pending.pop(0)
        part = chosen[lo:lo + size]
        rec = _Recorder(launch, part, scan, pairs)
        partial = None if part.size == launch.num_blocks else PartialRun(blocks=part)
        try:
            run(kernel, dict(launch.params), arrays, seed=seed, observer=rec, partial=partial,
                loop_limit=loop_limit, blank=blank)
        except (KernelRuntimeError, _IntervalTooLarge) as err:
            if size > 1:  # find the blocks that fault (or overflow) among these
                pending[:0] = _quarters(lo, size)
                continue
            faulted += 1
            _count_fault(faults, err)
            if faulted >= MAX_FAULT_BLOCKS and pending:
                unchecked = _stopped(faulted, pending)
                pending = []
        scan(rec, rec.take())
        done += size
        if progress:
            progress(done, chosen.size)
    races = found
    return HazardReport(kernel.title, dict(launch.params),
                        tuple(r for r in races if not r.benign),
                        tuple(faults.values()) + agreement,
                        tuple(x for x in limits if not x.startswith("note:")), pairs,
                        tuple(r for r in races if r.benign), done, launch.num_blocks,
                        unchecked, "full", (("every block with its values", done),))


# threads the check runs at once: a kernel read from PTX keeps some 4 KB a thread (its
# registers, and the run's temporaries), so 2^16 of them stay near 300 MB where the
# analysis's 2^20 took 1.8-2.9 GB (llm.c's add_bias, cuda-samples' cg_reduce), in the same
# time
CHECK_THREADS = 1 << 16


def _check_by_slices(kernel: Kernel, launch, chosen: np.ndarray | None, pairs,
                     max_races: int, progress, loop_limit: int
                     ) -> tuple[list[Race], tuple[tuple[str, int], ...], list[Fault],
                                str | None] | None:
    """The races of the launch from the two address-only runs, what each ran (its blocks),
    their faults, and what was left unchecked (the fault cap), or None where they cannot
    stand for a full run (see `check`). `chosen` None: the whole of a grid too large for an array of its block ids,
    whose other run must then be taken at the grid's ends.

    A fault of the shared run is its class's: the run computes every value that decides a
    shared address, the control flow and the bounds, so each block it cannot tell from the
    one that faulted faults alike (learn_cuda's n_body: its last, partial block reads tile
    elements its idle threads never wrote; the full run of its 235 blocks took 189 s)."""
    ranges = BlockRanges(kernel, launch, chosen)
    settled = lambda p: probe_settled(ranges, p)  # noqa: E731 (the variants' slices too)
    @functools.cache
    def congruences() -> Congruences:   # built only for a kernel with TMA copies
        return Congruences(kernel, launch)

    box_aligned = lambda s: box_start(s, launch, congruences()).low(4) == (0, 4)  # noqa: E731
    slices_of = lambda k: hazard_slices(k, settled, box_aligned)  # noqa: E731
    hs = slices_of(kernel)
    if hs.unusable:
        return None
    params = dict(launch.params)
    per_run = max(1, CHECK_THREADS // launch.threads_per_block)
    sizes = None   # each representative's class: how many blocks, where known
    if chosen is None:
        # the blocks at 0 on every axis the shared run does not read stand for the rest
        reps = _class_representatives(kernel, launch, None, hs, slices_of)
        if reps is None:
            reps, _ = _blocks_on_read_axes(launch, hs.block_axes)
        if reps.size > HUGE_GRID:
            return None
    else:
        reps = _class_representatives(kernel, launch, chosen, hs, slices_of)
        if reps is None:
            reps, sizes = _representatives(kernel, ranges, chosen, hs)
        if 4 * reps.size > chosen.size > 1:
            # the classes above save little: try classing by the decisions blocks take
            by_control = _control_representatives(kernel, launch, chosen, hs, per_run,
                                                  loop_limit)
            if by_control is not None and by_control[0].size < reps.size:
                reps, sizes = by_control
    class_of = None if sizes is None else dict(zip(reps.tolist(), sizes.tolist()))
    blocks_total = launch.num_blocks if chosen is None else chosen.size
    total = blocks_total + reps.size
    found, seen = [], {}
    faults: dict[tuple, Fault] = {}

    def scan(rec, records):
        _races(kernel, launch, rec, records, pairs, max_races, found, seen)
    # first (a loop that never ends shows here soonest), one block per class of blocks the
    # shared run cannot tell apart
    pending = [(at, min(per_run, reps.size - at)) for at in range(0, reps.size, per_run)]
    while pending:
        lo, size = pending.pop(0)
        part = reps[lo:lo + size]
        rec = _Recorder(launch, part, scan, pairs)
        try:
            run(kernel, params, None, observer=rec, partial=PartialRun(
                statements=hs.shared, blocks=part, track=True, truncate=hs.truncate),
                loop_limit=loop_limit)
        except KernelRuntimeError as err:
            if class_of is None:
                return None   # (how many blocks its class holds is not known: the full run)
            if size > 1:   # (which of these classes faults)
                pending[:0] = _quarters(lo, size)
                continue
            # the fault is its class's: as many blocks hit it as the full run would find
            _count_fault(faults, err, class_of[int(part[0])])
        except _IntervalTooLarge:
            if size == 1:
                return None
            pending[:0] = _quarters(lo, size)
            continue
        scan(rec, rec.take())
        if progress:
            progress(lo + size, total)
    if any(r.kind == "write-write" for r in found):
        return None  # benign or not: only the stored bytes can tell
    # the other run on a few blocks at the grid's ends, where they stand for all of them
    ends = block_ends(kernel, hs.other, hs.probes, hs.lanes_only) \
        if blocks_total == launch.num_blocks else None
    shared_run = ("shared accesses, one block of each class", int(reps.size))
    at_ends = None if ends is None else \
        check_other_run_at_ends(kernel, launch, hs, ends, loop_limit)
    if at_ends is not None:
        if progress:
            progress(total, total)
        return found, (shared_run, ("global accesses and bounds, at the grid's ends",
                                    at_ends)), list(faults.values()), None
    if chosen is None:
        return None
    # every block: global accesses, loop bounds, shuffles and probes; a fault here is as
    # real as the full run's (the run computes every value a bound or a probe reads), and
    # its blocks are found as the full run finds them: a faulting range again in quarters
    # (a 1-D stencil's halo read before `in` in block 0: 4,096 blocks, 35 s -> a few)
    pending = [(at, min(per_run, chosen.size - at)) for at in range(0, chosen.size, per_run)]
    faulted, unchecked = 0, None
    counted = set(faults)   # the shared run's
    while pending:
        lo, size = pending.pop(0)
        part = chosen[lo:lo + size]
        try:
            run(kernel, params, None, partial=PartialRun(
                statements=hs.other, collapse=hs.counted, blocks=part, sources=True,
                lanes_only=hs.lanes_only,
                probes=hs.probes, endpoints=hs.endpoints, guards=hs.guards),
                loop_limit=loop_limit)
        except KernelRuntimeError as err:
            if counted:
                # both runs fault: which comes first in a block (an assert before the
                # uninitialized read it guards) only the full run can tell
                return None
            if size > 1:
                pending[:0] = _quarters(lo, size)
                continue
            faulted += 1
            _count_fault(faults, err)
            if faulted >= MAX_FAULT_BLOCKS and pending:
                unchecked = _stopped(faulted, pending)
                pending = []
        if progress:
            progress(reps.size + lo + size, total)
    return found, (shared_run, ("global accesses and bounds, every block",
                                int(chosen.size))), list(faults.values()), unchecked


def _count_fault(faults: dict, err, blocks: int = 1) -> None:
    """Count `blocks` more blocks at the fault `err` (a KernelRuntimeError, or an interval
    too large to check: "incomplete"), one entry per kind and statement, at most
    MAX_FAULTS of them."""
    kind = _classify(err) if isinstance(err, KernelRuntimeError) else "incomplete"
    key = (kind, str(getattr(err, "loc", "")))
    if key in faults:
        faults[key] = replace(faults[key], blocks=faults[key].blocks + blocks)
    elif len(faults) < MAX_FAULTS:
        faults[key] = Fault(kind, str(err), blocks=blocks, loc=getattr(err, "loc", None))


def _stopped(faulted: int, pending: list) -> str:
    """Why the blocks of `pending` ((start, size) ranges) were not checked."""
    left = sum(n for _, n in pending)
    return (f"stopped after {faulted} faulting blocks: {left} block(s) not checked (use "
            "--blocks to check others)")


def _quarters(lo: int, size: int) -> list[tuple[int, int]]:
    """The range (lo, size) of blocks in four (lo, size) parts, to run again apart."""
    step = -(-size // 4)
    return [(x, min(step, lo + size - x)) for x in range(lo, lo + size, step)]


# Past this many blocks the check classes its shared run axis by axis where it can: a run
# of the shared slice per block costs some 50 us, a class's variant and slice some 10 ms
CHECK_SEPARABLE_BLOCKS = 4096


def _class_representatives(kernel: Kernel, launch, chosen: np.ndarray, hs,
                           slices_of) -> np.ndarray | None:
    """One block of each class the shared run cannot tell apart, made axis by axis where
    its guards each read one block axis (trace.separable_products, as the analysis classes
    a 2-D image kernel's grid): for every block of a large grid (`chosen` all of them, or
    None) whose shared run reads two or more axes; None otherwise (then block by block)."""
    whole = chosen is None or chosen.size == launch.num_blocks   # None: the whole grid
    if not whole or launch.num_blocks <= CHECK_SEPARABLE_BLOCKS or len(hs.block_axes) < 2:
        return None
    comparisons = _decidable_comparisons(kernel, hs.shared)
    if not comparisons:
        return None

    def reads(variant, decided):
        vhs = slices_of(variant) if decided else hs
        return None if vhs.unusable or vhs.trip_loops else (vhs, vhs.block_axes)
    products = separable_products(kernel, launch, hs.block_axes, comparisons, reads)
    if products is None:
        return None
    return np.unique(np.concatenate([linear for _, _, linear, _ in products]))


def _control_representatives(kernel: Kernel, launch, chosen: np.ndarray, hs, per_run: int,
                             loop_limit: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The first of the chosen blocks of each class (and each class's size) that agrees on
    the blockIdx axes the
    shared run reads other than through its control, and on every decision of that
    control (slicing.control_run; a persistent kernel whose blocks take tiles from a
    schedule is one class per number of tiles): None where every axis it reads is read
    otherwise too, or where the run of its control faults (the shared run then finds it)."""
    statements, axes = control_run(kernel, hs)
    if axes >= hs.block_axes:
        return None
    gx, gy, _ = launch.grid
    coords = {"x": chosen % gx, "y": chosen // gx % gy, "z": chosen // (gx * gy)}
    try:
        signature = np.concatenate([
            control_signatures(kernel, dict(launch.params), statements,
                               chosen[at:at + per_run], loop_limit=loop_limit)
            for at in range(0, chosen.size, per_run)])
    except KernelRuntimeError:
        return None
    key = np.column_stack([coords[a].astype(np.uint64) for a in sorted(axes)] + [signature])
    return _firsts(chosen, key)


def _firsts(chosen: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the first block of each distinct key row, in order; how many blocks share it)."""
    _, first, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first)
    return chosen[first[order]], counts[order]


def _representatives(kernel: Kernel, ranges: BlockRanges, chosen: np.ndarray,
                     hs) -> tuple[np.ndarray, np.ndarray]:
    """The first of the chosen blocks of each class the shared run cannot tell apart (and
    each class's size): blocks
    that agree on the blockIdx axes it reads, or, where some are read only by the trip
    counts of loops it runs two iterations of, on the other axes and on each such loop's
    trips counted 0, 1, or 2 and more."""
    gx, gy, _ = ranges.launch.grid
    coords = {"x": chosen % gx, "y": chosen // gx % gy, "z": chosen // (gx * gy)}
    axes, extra = hs.block_axes, []
    if hs.trip_loops and hs.address_axes != hs.block_axes:
        trips = [trip_counts(ranges, s) for s in kernel.statements() if id(s) in hs.trip_loops]
        if all(t is not None for t in trips):
            axes, extra = hs.address_axes, [np.minimum(t, 2) for t in trips]
    if not axes and not extra:
        # every block alike (a 16.7 M-block reduction's sort took 2 s)
        return chosen[:1], np.array([chosen.size])
    return _firsts(chosen, np.stack([coords[a] for a in sorted(axes)] + extra, axis=1))


def _chosen_blocks(kernel: Kernel, launch, blocks) -> np.ndarray:
    """The linear block ids to run, checked against the grid."""
    if blocks is None:
        return np.arange(launch.num_blocks, dtype=np.int64)
    out = sorted({int(b) for b in blocks})
    bad = [b for b in out if not 0 <= b < launch.num_blocks]
    if bad:
        raise KernelError(f"block {bad[0]} is outside the grid {launch.grid} (linear ids "
                          f"0..{launch.num_blocks - 1})", kernel=kernel.name)
    if not out:
        raise KernelError("no blocks to check", kernel=kernel.name)
    return np.asarray(out, dtype=np.int64)


def sweep(kernel: Kernel, param: str, values, params: Mapping[str, int | float] | None = None,
          *, arch: str = "sm_90") -> dict:
    """`check` at each value of one parameter: which sizes a hazard bites at."""
    return {v: check(kernel, {**(params or {}), param: v}, arch=arch) for v in values}

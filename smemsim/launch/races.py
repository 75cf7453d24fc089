"""Races: which access sites can run concurrently (barrier intervals over the kernel's control-
flow graph, copies tracked to the barrier that lands them), and the recorder that finds two
threads touching one word in one interval, in bounded memory."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from kernels_ir import BarrierReached, Kernel, SharedAccess, SourceLoc, WarpBarrierReached
from kernels_ir.stmt import If, Loop, Return, Sync, unsupported
from kernels_ir.stmt_async import CommitGroup, CopyAsync, MbarrierArrive, WaitGroup

if TYPE_CHECKING:
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
        warp = "; lanes of one warp: a __syncwarp() between them orders them" \
            if self.same_warp and not self.benign else ""
        return (f"{self.kind} race on {self.array}{idx} (byte {self.byte}) in block "
                f"{self.block}: site {self.first} ({self.first_loc.chain()}) by thread "
                f"{self.threads[0]} and site {self.second} ({self.second_loc.chain()}) by "
                f"thread {self.threads[1]}, {self.interval}{warp}{more}")


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


class Recorder:
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
                raise IntervalTooLarge(
                    f"check stopped at {s.loc}{f' ({its})' if its else ''}: barrier intervals "
                    f"still open hold {self.rows:,} shared word accesses (the limit is "
                    f"{MAX_OPEN_ROWS:,}, about {MAX_OPEN_ROWS * 80 >> 20} MiB); races were "
                    "checked up to here. A loop that never ends, or never reaches a "
                    "__syncthreads()? Check a smaller launch with --param")

    def _flush(self) -> None:
        """Scan the intervals every block has left behind, and forget them (memory stays
        bounded by the open intervals)."""
        done_parts, open_parts = [], []
        for part in self.parts:   # (part by part: one copy of the done records, not three)
            done = part[:, 1] < self.epoch[np.searchsorted(self.blocks, part[:, 0])]
            if done.all():
                done_parts.append(part)
            elif done.any():
                done_parts.append(part[done])
                open_parts.append(part[~done])
            else:
                open_parts.append(part)
        self.parts = open_parts
        self.rows = sum(len(x) for x in open_parts)
        if done_parts:
            a = np.concatenate(done_parts)
            done_parts.clear()
            self.scan(self, a)

    def take(self) -> np.ndarray:
        """Every record held, as one array (and no longer held)."""
        a = np.concatenate(self.parts) if self.parts else np.zeros((0, 10), np.int64)
        self.parts, self.rows = [], 0
        return a


class IntervalTooLarge(Exception):
    """A barrier interval too big to check in bounded memory."""


# Records are 10 int64 columns (80 bytes) per word accessed: scan completed intervals once
# this many are held (20 MiB; at 2^21, 160 MiB copied three times a flush, SHOC's
# radixSortBlocks check peaked at 693 MB, 196 MB now in the same CPU time), and stop (a
# located fault) past the larger number in open intervals.
FLUSH_ROWS = 1 << 18

# records a race scan takes at a time (whole blocks: a block's own may be more)
SCAN_ROWS = 1 << 17


MAX_OPEN_ROWS = 1 << 22


def _across_warps(rows: np.ndarray) -> bool:
    """Whether some word of the records `rows` is touched by threads of two warps, one of
    them storing."""
    pairs = np.unique(rows[:, [2, 6]], axis=0)       # (word, warp)
    words, warps = np.unique(pairs[:, 0], return_counts=True)
    return np.intersect1d(words[warps > 1], rows[rows[:, 5] != 0, 2]).size > 0


def _across_warp_instance(rows: np.ndarray, pair: tuple, w, o) -> tuple:
    """Of the records `rows` of the two sites of `pair` in one interval, a store and an
    access of the other site by a thread of another warp on the same bytes, of the kind of
    (w, o) (a store against a read, or two stores): (w, o) where there is none."""
    for s in rows[rows[:, 5] != 0]:
        other = pair[1] if s[4] == pair[0] else pair[0]
        c = rows[(rows[:, 2] == s[2]) & (rows[:, 6] != s[6]) & ((rows[:, 9] & s[9]) != 0) &
                 (rows[:, 4] == other) & ((rows[:, 5] != 0) == (o[5] != 0))]
        if s[5] == 2:
            c = c[c[:, 5] != 2]   # (atomics never race with atomics)
        if c.size:
            return s, c[0]
    return w, o


def _source_index(kernel: Kernel, array, index: tuple) -> tuple:
    """The element's index as the source declares the variable (`tile[0][1]` of a `float
    tile[32][33]` the build reads as a flat window), where the frontend says its shape
    and its elements are the view's size; else `index` as it is."""
    variable = getattr(array, "variable", None)
    shape = next((s for s in kernel.shared_shapes if s[0] == variable), None)
    if shape is None or len(index) != 1 or shape[2] != array.dtype.size:
        return index
    _, extents, _ = shape
    element = index[0]
    if not 0 <= element < math.prod(extents):
        return index
    return tuple(int(x) for x in np.unravel_index(element, extents))


def _one_element_size(kernel: Kernel, array) -> bool:
    """Whether an element index of `array` names the element as the source does: an array
    of its own, or a view of a variable every view of which reads elements of one size (a
    kernel read from PTX reads `vals` as u32 and f32: index 1 is the same 4 bytes)."""
    if not getattr(array, "variable", None):
        return True
    sizes = {v.dtype.size for v in kernel.shared if getattr(v, "variable", None) ==
             array.variable}
    return sizes == {array.dtype.size}


def find_races(kernel: Kernel, launch, rec: Recorder, a: np.ndarray, pairs, limit: int,
           found: list, seen: dict) -> list[Race]:
    """Add the races among records `a` (whole barrier intervals) to `found`: one per site
    pair (`seen`), an order-dependent one replacing a same-value one, at most `limit`."""
    if not a.size or len(found) >= limit:
        return found
    if len(a) > SCAN_ROWS:
        # records of different blocks never race: a few blocks' at a time, in block order
        # (the scan's temporaries are several copies of what it is given: 40 blocks of
        # YHs's SGEMM hold 820,000 records an interval, 364 MB at the scan's peak)
        order = np.argsort(a[:, 0], kind="stable")
        blocks = a[order, 0]
        cuts = np.flatnonzero(np.r_[True, blocks[1:] != blocks[:-1]])
        if cuts.size > 1:
            bounds = np.r_[cuts, len(a)]   # where each block's rows start, and the end
            at = 0
            while at < cuts.size and len(found) < limit:
                # whole blocks, up to SCAN_ROWS rows (at least one block)
                to = max(at + 1, int(np.searchsorted(bounds, bounds[at] + SCAN_ROWS,
                                                     side="right")) - 1)
                part = order[bounds[at]:bounds[to]]
                find_races(kernel, launch, rec, a[part], pairs, limit, found, seen)
                at = to
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
            b, ep = int(w[0]), int(w[1])
            # warp-synchronous code: one warp of the block runs both sites in the interval
            # (a reduction's tail under `if (tid < 32)`); where more do, a block barrier is
            # missing, whichever threads the data made conflict first
            both = a[(a[:, 0] == b) & (a[:, 1] == ep) & np.isin(a[:, 4], pair)]
            # (or no word the two sites touch in the interval is touched by two warps with a
            # store among them: each warp works on its own slots of a buffer, CSR SpMV's
            # `vals[threadIdx.x + 16]` tree)
            one_warp = np.unique(both[:, 6]).size == 1 or not _across_warps(both)
            if not one_warp and w[6] == o[6]:
                # (shown by two warps' threads, the race a barrier mends: two lanes of one
                # warp would read as warp-synchronous code)
                w, o = _across_warp_instance(both, pair, w, o)
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
                              _source_index(kernel, array, index)
                              if _one_element_size(kernel, array) else (), byte,
                              interval, one_warp))
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

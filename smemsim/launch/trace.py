"""The trace: every warp request each shared access site issues over a whole launch.

Lanes map to warps by linear thread id (x + y*Dx + z*Dx*Dy); a warp issues a request at a site
when at least one of its lanes executes it. The launch is executed by the kernels_ir
interpreter, restricted to the slice that decides addresses (no values, no global memory),
over one representative block per class of blocks the slice cannot tell apart, with
loops whose iterations look alike collapsed to one weighted iteration. Kernels whose
addresses depend on loaded data run in full on their input data.

Requests come out deduplicated: each distinct lane pattern once, with the number of times the
launch issues it; a run on data, given a cost per request (`fold`), keeps each distinct cost
once instead, so its memory does not grow with the input.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import numpy as np

from kernels_ir import (Kernel, KernelRuntimeError, Launch, PartialRun, SharedAccess,
                        control_signatures, i32, run)
from kernels_ir.expr import COMPARE_OPS, Expr, Op, cast, const
from kernels_ir.run_types import MAX_LOOP_ITERATIONS
from kernels_ir.stmt import Loop, map_statements, walk

from .ranges import UNDECIDED, BlockRanges, trip_counts
from .retry_loops import retry_loops
from .slicing import Slice, control_of, expr_block_axes, needed_exprs, slice_kernel

WARP = 32
# the trace runs at most this many threads at a time (blocks in chunks), so no launch is too
# large for it and memory stays bounded
CHUNK_THREADS = 1 << 20
# and at most about this many bytes of per-thread state (each variable and register array a
# value per thread, and the temporaries its expressions make): a kernel read from PTX holds
# a variable per register that lives across blocks, 90 of them in a CSR SpMV, whose run
# over 1 M threads at once peaked at 5.7 GB
CHUNK_BYTES = 128 << 20
# Iterations of one entry of a loop whose end has no closed form (a while loop, `i >= 0`)
# after which an analysis (the trace, the check) calls it endless: the interpreter runs a
# few thousand iterations a second, so an endless loop is reported in seconds, not after the
# ~15 minutes of the interpreter's own limit (kernels_ir MAX_LOOP_ITERATIONS). Counted loops
# are not held to it (kernels_ir.run's loop_limit).
LOOP_LIMIT = 1 << 14
# the most `--loop-limit` may ask for: an endless loop of one warp then ends in about half a
# minute of `check` (two runs) on a 2-core machine, not the ~25 minutes of the interpreter's own
# limit (counted loops, which end, may run up to that)
MAX_LOOP_LIMIT = 1 << 15


@dataclass(frozen=True)
class Where:
    """Where a request was first issued: block, warp in the block, enclosing loop iterations."""

    block: tuple[int, int, int]
    warp: int
    iterations: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class SiteTrace:
    """The distinct requests of one site and how often the launch issues each."""

    site: int
    patterns: np.ndarray        # (n, 32) int32 byte offsets, -1 for inactive lanes
    counts: np.ndarray          # (n,) int64 requests issued with that pattern
    blocks: np.ndarray          # (n,) grid-linear block of each pattern's first issue
    warps: np.ndarray           # (n,) warp within that block
    events: np.ndarray          # (n,) index into `iterations` of that issue
    iterations: tuple           # per recorded event: enclosing loops' iterations
    grid: tuple[int, int, int]

    @property
    def requests(self) -> int:
        """Warp requests the site issues over the launch."""
        return int(self.counts.sum())

    def where(self, i: int) -> Where:
        """Where pattern i was first issued."""
        gx, gy, _ = self.grid
        b = int(self.blocks[i])
        return Where((b % gx, b // gx % gy, b // (gx * gy)), int(self.warps[i]),
                     self.iterations[int(self.events[i])])


@dataclass(frozen=True)
class Trace:
    """The trace of a launch: per-site requests and how they were obtained."""

    launch: Launch
    sites: dict
    slice: Slice
    mode: str                   # "sliced" or "full" (data-dependent: run on data)
    blocks_run: int             # blocks the interpreter executed
    # the kernel's retry loops (smemsim.launch.retry_loops), and their stores where lanes of two
    # warps of one block stored the same element in one execution: no lower bound there
    retries: tuple = ()
    crossed: frozenset = frozenset()


class _Collector:
    """Turns the interpreter's shared accesses into warp requests, per site.

    With `deduplicate`, a site's requests are merged into distinct patterns whenever more
    than COMPACT_ROWS of them are held, so memory follows the distinct patterns, not the
    launch. With `fold` instead (a run on data, whose patterns rarely repeat), they are
    merged by what `fold(site, rows)` says each costs: memory follows the distinct costs,
    not the input (#28).
    """

    COMPACT_ROWS = 1 << 18
    # a fold costs its rows, whose temporaries are some ten times the rows: fold sooner
    FOLD_ROWS = 1 << 16

    def __init__(self, launch: Launch, deduplicate: bool, fold=None):
        self.launch = launch
        self.deduplicate = deduplicate
        self.fold = fold
        self._limit = self.COMPACT_ROWS if deduplicate else self.FOLD_ROWS
        self.wpb = launch.warps_per_block
        # per site: its rows in one growing buffer (filled in place: a list of chunks cost
        # a copy per chunk and another to join them, 0.11 s of the histogram's 2 s at 64 M
        # input bytes), chunks of (weights, blocks, warps, event ids), and the rows held
        self.buffers: dict[int, np.ndarray] = {}
        self.chunks: dict[int, list] = {}
        self.held: dict[int, int] = {}
        self.iterations: list[tuple] = []            # per event: enclosing loops' iterations
        self._frozen: tuple = ()
        self.blocks = np.zeros(0, np.int64)          # grid ids of the run's blocks
        self.block_weights = np.zeros(0, np.int64)   # blocks each one stands for
        self.trip_totals: dict[int, np.ndarray] = {}  # per trip loop: trips it stands for
        self.watch: frozenset = frozenset()   # retry loops' stores: is a word shared by warps?
        self.crossed: set = set()

    def start_run(self, blocks: np.ndarray, weights: np.ndarray,
                  trip_totals: dict | None = None) -> None:
        self.blocks, self.block_weights = blocks, weights
        self.trip_totals = trip_totals or {}

    def __call__(self, access) -> None:
        if not isinstance(access, SharedAccess):
            return  # barriers and global accesses do not make shared requests
        tpb = self.launch.threads_per_block
        threads = access.threads
        heads = threads[::WARP]
        site = access.stmt.site
        if tpb % WARP == 0 and threads.size % WARP == 0 and not (heads % WARP).any() \
                and (threads[WARP - 1::WARP] - heads == WARP - 1).all():
            # whole warps, every lane active (the common case): the rows are a reshape
            warps = heads // WARP   # = dense block * warps per block + warp in block
            rows = self._room(site, warps.size)
            np.copyto(rows, access.offsets.reshape(-1, WARP), casting="unsafe")
        else:
            dense_block = threads // tpb
            thread = threads % tpb
            key = dense_block * self.wpb + thread // WARP
            # threads arrive in increasing order, so each warp's lanes are contiguous
            starts = np.flatnonzero(np.diff(key, prepend=-1))
            inverse = np.cumsum(np.diff(key, prepend=key[0]) != 0)
            warps = key[starts]
            rows = self._room(site, warps.size)
            rows.fill(-1)
            rows[inverse, thread % WARP] = access.offsets
        dense = warps // self.wpb
        if site in self.watch and site not in self.crossed and \
                _warps_share_an_element(rows, dense, warps):
            self.crossed.add(site)
        # inside a trip loop, a block stands for the summed trips of the blocks it represents
        factor = self.block_weights if access.scale is None else self.trip_totals[access.scale]
        self.iterations.append(access.iterations)
        self.chunks.setdefault(site, []).append(
            (access.weight * factor[dense], self.blocks[dense], warps % self.wpb,
             np.full(rows.shape[0], len(self.iterations) - 1, np.int64)))
        self.held[site] = self.held.get(site, 0) + rows.shape[0]
        if (self.deduplicate or self.fold) and self.held[site] > self._limit:
            merged = self._merged(site)
            self.buffers[site][:merged[0].shape[0]] = merged[0]
            self.chunks[site] = [merged[1:]]
            self.held[site] = merged[0].shape[0]

    def _room(self, site: int, n: int) -> np.ndarray:
        """The next n rows of the site's buffer (grown when full), held from now on: the
        caller fills them."""
        held = self.held.get(site, 0)
        buf = self.buffers.get(site)
        if buf is None or held + n > buf.shape[0]:
            # A trace that keeps every request (no merging) grows by half: it peaks at 2.5x
            # its rows while growing, as the joined chunks did at 2x. One that merges holds
            # at most _limit rows and doubles: grown by half (or by 1.25 or 1.75), its
            # buffers left glibc's heap where the costing's temporaries were faulted in
            # again and again (the histogram's costing at 64 M input bytes 0.3 -> 0.47 s;
            # with MALLOC_TOP_PAD_=64 MB, 0.3 s at any factor)
            merging = self.deduplicate or self.fold is not None
            grown = np.empty((max((held + n) * (4 if merging else 3) // 2, 1024), WARP),
                             np.int32)
            if buf is not None:
                grown[:held] = buf[:held]
            self.buffers[site] = buf = grown
        return buf[held:held + n]

    def _held(self, site: int) -> tuple:
        """The site's rows and the other fields of its chunks, each as one array."""
        return (self.buffers[site][:self.held[site]],
                *(np.concatenate(c) for c in zip(*self.chunks[site])))

    def _merged(self, site: int) -> tuple:
        """The site's chunks as one, requests with identical patterns (or, with `fold`,
        identical costs) merged into the first issued, in the order of first issue."""
        rows, weights, blocks, warps, events = self._held(site)
        if self.deduplicate:
            first, counts = _first_of_each(rows, weights)
        else:
            cost = np.asarray(self.fold(site, rows), np.int64).reshape(rows.shape[0], -1)
            first, counts = _first_of_each_small(cost, weights)
        return rows[first], counts, blocks[first], warps[first], events[first]

    def site_trace(self, site: int) -> SiteTrace:
        """The site's requests (identical patterns merged when deduplicating)."""
        grid = self.launch.grid
        if len(self._frozen) != len(self.iterations):
            self._frozen = tuple(self.iterations)
        iterations = self._frozen
        if site not in self.chunks:
            empty = np.zeros(0, np.int64)
            return SiteTrace(site, np.zeros((0, WARP), np.int32), empty, empty, empty, empty,
                             iterations, grid)
        if self.deduplicate or (self.fold and self.held[site] > self._limit):
            parts = self._merged(site)
        else:
            parts = self._held(site)
        return SiteTrace(site, *parts, iterations, grid)


def _first_of_each(key: np.ndarray, weights: np.ndarray) -> tuple:
    """For each distinct row of `key`, in the order of first appearance: where it first
    appears, and the summed weights of the rows equal to it."""
    key = np.ascontiguousarray(key.reshape(key.shape[0], -1))
    flat = key.view(np.dtype((np.void, key.shape[1] * key.itemsize))).ravel()
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    counts = np.zeros(first.size, np.int64)
    np.add.at(counts, inverse.ravel(), weights)
    order = np.argsort(first)
    return first[order], counts[order]


def _first_of_each_small(key: np.ndarray, weights: np.ndarray) -> tuple:
    """_first_of_each for rows of small integers (costs): each row as one mixed-radix
    number, and where those fit a table of about the rows' size, the table's entries
    instead of a sort (#28: 3 ns a row against 40 for np.unique's)."""
    n = key.shape[0]
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    # column by column (key.min(axis=0) over rows of 5 took 3 ms for 65,536 rows)
    columns = [np.ascontiguousarray(key[:, c]) for c in range(key.shape[1])]
    low = [int(c.min()) for c in columns]
    extent = [int(c.max()) - lo + 1 for c, lo in zip(columns, low)]
    bins = 1
    for e in extent:
        bins *= e
    if bins > 4 * n + 4096:
        return _first_of_each(key, weights)
    code = np.zeros(n, np.int64)
    for c, lo, e in zip(columns, low, extent):
        code *= e
        code += c - lo
    counts = np.zeros(bins, np.int64)
    np.add.at(counts, code, weights)
    first = np.full(bins, n, np.int64)
    np.minimum.at(first, code, np.arange(n, dtype=np.int64))
    seen = np.flatnonzero(first < n)
    order = np.argsort(first[seen])
    return first[seen][order], counts[seen][order]


def _warps_share_an_element(rows: np.ndarray, dense: np.ndarray, warps: np.ndarray) -> bool:
    """Whether two warps of one block access the same byte offset in these requests (one
    execution of a site: `rows` of offsets per warp, -1 for an inactive lane)."""
    lanes = rows >= 0
    if not lanes.any():
        return False
    block = np.broadcast_to(dense[:, None], rows.shape)[lanes].astype(np.int64)
    warp = np.broadcast_to(warps[:, None], rows.shape)[lanes]
    place = (block << 32) | rows[lanes].astype(np.int64)
    order = np.lexsort((warp, place))
    place, warp = place[order], warp[order]
    return bool(((place[1:] == place[:-1]) & (warp[1:] != warp[:-1])).any())


def trace_launch(kernel: Kernel, launch: Launch, arrays=None, seed: int = 0,
                 loop_limit: int = LOOP_LIMIT, fold=None, unwritten=None) -> Trace:
    """Trace every shared access site of one launch (see LOOP_LIMIT for `loop_limit`).

    `fold(site, rows)`, if given, is each request's cost (an int array, one row per
    request): a run on data then keeps one request per distinct cost and site, with the
    number of requests that cost that much, instead of every request it issues.
    `unwritten` (kernels_ir.Unwritten), if given, lets loads read shared bytes no thread
    wrote, as its fill, in every run.
    """
    sl = slice_kernel(kernel)
    collector = _Collector(launch, deduplicate=not sl.data_dependent,
                           fold=fold if sl.data_dependent else None)
    retries = retry_loops(kernel)
    collector.watch = frozenset(n for r in retries for n in r.stores)
    per_run = max(1, chunk_threads(kernel) // launch.threads_per_block)   # blocks a chunk
    if kernel.cooperative:
        # blocks that meet at grid.sync() and share global data in between run together
        # (a cooperative launch's grid is what is resident at once: thousands of blocks)
        per_run = launch.num_blocks
    if sl.data_dependent:
        blocks = np.arange(launch.num_blocks, dtype=np.int64)
        for at in range(0, blocks.size, per_run):
            # global memory carries over from one chunk of blocks to the next
            chunk = blocks[at:at + per_run]
            collector.start_run(chunk, np.ones(chunk.size, np.int64))
            arrays = run(kernel, dict(launch.params), arrays, seed=seed, observer=collector,
                         partial=None if chunk.size == blocks.size else PartialRun(blocks=chunk),
                         loop_limit=loop_limit, unwritten=unwritten)
        # run on data, requests rarely repeat: cost them all rather than sort them
        sites = {s.site: collector.site_trace(s.site) for s in kernel.sites()}
        return Trace(launch, sites, sl, "full", int(blocks.size), retries,
                     frozenset(collector.crossed))
    runs = 0
    for variant, vs, blocks, weights, totals in _block_classes(kernel, launch, sl):
        for at in range(0, blocks.size, per_run):
            chunk = slice(at, at + per_run)
            collector.start_run(blocks[chunk], weights[chunk],
                                {loop: t[chunk] for loop, t in totals.items()})
            partial = PartialRun(statements=vs.statements, collapse=vs.collapsible,
                                 blocks=blocks[chunk], summed=frozenset(totals))
            run(variant, dict(launch.params), observer=collector, partial=partial,
                loop_limit=loop_limit, unwritten=unwritten)
        runs += int(blocks.size)
    sites = {s.site: collector.site_trace(s.site) for s in kernel.sites()}
    return Trace(launch, sites, sl, "sliced", runs, retries, frozenset(collector.crossed))


def chunk_threads(kernel: Kernel) -> int:
    """Threads a run takes at a time: CHUNK_THREADS, fewer where the kernel's per-thread
    state (a value per variable, the elements of its register arrays, and as many again for
    the temporaries of evaluating them) would pass CHUNK_BYTES."""
    state = 0
    for s in kernel.statements():
        for v in s.declares():
            shape = getattr(v, "shape", ())
            count = 1
            for n in shape if isinstance(shape, tuple) else ():
                count *= n if isinstance(n, int) else 1
            state += 8 * count
    per_thread = 2 * state + 64
    return max(1, min(CHUNK_THREADS, CHUNK_BYTES // per_thread))


def _block_classes(kernel: Kernel, launch: Launch, sl: Slice):
    """(kernel variant, its slice, blocks to run, blocks each stands for, trip totals),
    covering every block once.

    Blocks are grouped by how the guards of the slice resolve over all their threads and
    iterations (smemsim.launch.ranges); in each group the decided comparisons become constants.
    Within a group, blocks that agree on every blockIdx axis the variant still reads issue
    the same requests: one of them runs, weighted by their number. Where an axis is read only
    by the trip counts of collapsible loops (Slice.trip_loops) and those are known per block,
    blocks that differ there are grouped too (the ones with and without trips apart), and
    the trip totals {loop id: per block run, the summed trips of the blocks it stands for}
    weight the requests inside each such loop.
    """
    comparisons = _decidable_comparisons(kernel, sl)
    if comparisons and len(sl.block_axes) > 1 and launch.num_blocks > SEPARABLE_BLOCKS:
        classes = _separable_classes(kernel, launch, sl, comparisons)
        if classes is not None:
            yield from classes
            return
    # blocks that differ only on blockIdx axes the slice never reads (its addresses, guards
    # and trip counts) issue the same requests: the blocks at 0 on those axes stand for all,
    # so a 65535 x 65535 grid whose slice reads blockIdx.x alone needs 65535 blocks' arrays,
    # not 4.3 G (each count is scaled by the unread axes' extents below)
    all_blocks, scale = _blocks_on_read_axes(launch, sl.block_axes)
    if comparisons:
        ranges = BlockRanges(kernel, launch, all_blocks)
        states = np.stack([ranges.decide(c) for c in comparisons], axis=1)
        if len(comparisons) <= 39:  # 3**39 < 2**63: one integer per block sorts fast
            code = states.astype(np.int64) @ (3 ** np.arange(len(comparisons), dtype=np.int64))
            _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
            keys = states[first]
        else:
            keys, inverse = np.unique(states, axis=0, return_inverse=True)
        inverse = inverse.ravel()
    else:
        keys, inverse = np.zeros((1, 0), np.int8), np.zeros(all_blocks.size, np.int64)
    gx, gy, _ = launch.grid
    for g, key in enumerate(keys):
        members = all_blocks[inverse == g]
        decided = {id(c): int(v) for c, v in zip(comparisons, key) if v != UNDECIDED}
        variant = substitute(kernel, decided) if decided else kernel
        vs = slice_kernel(variant) if decided else sl
        coords = np.stack([members % gx, members // gx % gy, members // (gx * gy)], axis=1)
        trips = _per_block_trips(variant, vs, launch, members)
        axes = vs.block_axes if trips is None else vs.address_axes
        read = coords[:, ["xyz".index(a) for a in sorted(axes)]]
        if trips:
            # blocks with no trips of a loop never run its body: they are not grouped with
            # blocks that do, so that the block that runs stands for what it issues
            read = np.concatenate([read] + [(t > 0)[:, None] for t in trips.values()], axis=1)
        _, first, inverse_m, counts = np.unique(read, axis=0, return_index=True,
                                                return_inverse=True, return_counts=True)
        if trips is None and first.size > CONTROL_CLASSES:
            # many classes where the slice reads blockIdx through its guards: blocks that
            # take the same decisions are classed by them (_control_classes)
            by_control = _control_classes(variant, vs, launch, members, coords)
            if by_control is not None and by_control[0].size < first.size:
                first, inverse_m, counts = by_control
        inverse_m = inverse_m.ravel()
        totals = {loop: np.bincount(inverse_m, weights=t, minlength=first.size).astype(np.int64)
                  * scale for loop, t in (trips or {}).items()}
        yield variant, vs, members[first], counts.astype(np.int64) * scale, totals


# Past this many classes of blocks by the axes a slice reads, its blocks are classed by the
# decisions of its control instead (_control_classes), where that reads fewer axes
CONTROL_CLASSES = 64


def _control_classes(kernel: Kernel, vs: Slice, launch: Launch, members: np.ndarray,
                     coords: np.ndarray) -> tuple | None:
    """(first index of each class in `members`, each member's class, class sizes): the
    members classed by control_keys (a scan whose guards `if (j >= 0)` and `if ((j + 1) %
    n == 0)` read blockIdx: block 0 and all the others); None where control_keys is."""
    per_run = max(1, chunk_threads(kernel) // launch.threads_per_block)
    key = control_keys(kernel, vs.statements, vs.block_axes, launch, members, per_run)
    if key is None:
        return None
    _, first, inverse, counts = np.unique(key, axis=0, return_index=True,
                                          return_inverse=True, return_counts=True)
    return first, inverse.ravel(), counts


def control_keys(kernel: Kernel, statements: frozenset, block_axes: frozenset,
                 launch: Launch, blocks: np.ndarray, per_run: int,
                 loop_limit: int = MAX_LOOP_ITERATIONS,
                 truncate: frozenset[int] = frozenset(),
                 truncate_pairs: frozenset[int] = frozenset()) -> np.ndarray | None:
    """Per block (a row each), the blockIdx axes the run of `statements` reads other than
    through its control and every decision that control takes, thread by thread
    (slicing.control_of, kernels_ir.control_signatures; `per_run` blocks at a time): blocks
    whose rows are equal make the same run. None where every axis of `block_axes` is read
    otherwise too, or the control's run faults (then block by block, as before).
    `truncate`: loops whose iterations look alike, of which a run that truncates them
    (check's shared run) takes two: the keys of that run."""
    control, axes = control_of(kernel, statements)
    if axes >= block_axes:
        return None
    try:
        signature = np.concatenate([
            control_signatures(kernel, dict(launch.params), control,
                               blocks[at:at + per_run], loop_limit=loop_limit,
                               truncate=truncate, truncate_pairs=truncate_pairs)
            for at in range(0, blocks.size, per_run)])
    except KernelRuntimeError:
        return None
    gx, gy, _ = launch.grid
    coords = {"x": blocks % gx, "y": blocks // gx % gy, "z": blocks // (gx * gy)}
    return np.column_stack([coords[a].astype(np.uint64) for a in sorted(axes)] + [signature])


# Past this many blocks, a slice that reads two or three block axes only through guards of
# one axis each (`if (x < W && y < H)` of a 2-D image) is classed axis by axis
# (_separable_classes) instead of block by block: a 65,536^2 image in 16 x 16 blocks took
# 9.7 s and 2.4 GB, 262,144^2 51 s and 24 GB.
SEPARABLE_BLOCKS = 1 << 16
# the most blocks one class of _separable_classes may run (its variant still reading block
# axes: the edge blocks where a guard holds for some threads and not others)
SEPARABLE_RUNS = 1 << 20


def _separable_classes(kernel: Kernel, launch: Launch, sl: Slice, comparisons) -> list | None:
    """_block_classes for a slice whose guards each read at most one block axis: each axis's
    coordinates are classed by how that axis's guards resolve, and the classes of the grid
    are the products of the axes' classes, each the size of the product (no array over the
    grid). None where a guard reads two axes, or a class would still run too many blocks,
    or a loop's trips depend on the block (the caller then classes block by block)."""
    def reads(variant, decided):
        vs = slice_kernel(variant) if decided else sl
        return None if vs.trip_loops else (vs, vs.block_axes)
    products = separable_products(kernel, launch, sl.block_axes, comparisons, reads)
    if products is None:
        return None
    return [(variant, vs, linear, np.full(linear.size, weight, np.int64), {})
            for variant, vs, linear, weight in products]


def separable_products(kernel: Kernel, launch: Launch, read_axes, comparisons, reads):
    """The classes of a grid whose comparisons each read at most one block axis (of
    `read_axes`, the axes the run reads), axis by axis: a list of (variant, what `reads`
    said of it, the blocks to run, how many blocks each stands for); None where a comparison
    reads two axes, `reads(variant, decided)` (the variant's slice and the block axes it
    still reads) says None, or a class would still run more than SEPARABLE_RUNS blocks.
    Shared by the analysis (Slice) and `check`'s shared run (HazardSlices)."""
    axes_of = expr_block_axes(kernel, comparisons)
    if any(len(a) > 1 for a in axes_of):
        return None
    gx, gy, gz = launch.grid
    extent = {"x": gx, "y": gy, "z": gz}
    stride = {"x": 1, "y": gx, "z": gx * gy}
    read = sorted(read_axes)
    unread = math.prod(extent[a] for a in "xyz" if a not in read)
    # the guards no block axis decides: as block 0 resolves them
    common = [c for c, a in zip(comparisons, axes_of) if not a]
    base = {}
    if common:
        ranges = BlockRanges(kernel, launch, np.zeros(1, np.int64))
        base = {id(c): int(ranges.decide(c)[0]) for c in common}
    per_axis = []
    for a in read:
        mine = [c for c, ax in zip(comparisons, axes_of) if ax == {a}]
        coords = np.arange(extent[a], dtype=np.int64)
        if not mine:
            per_axis.append([({}, coords)])
            continue
        ranges = BlockRanges(kernel, launch, coords * stride[a])
        states = np.stack([ranges.decide(c) for c in mine], axis=1)
        keys, inverse = np.unique(states, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        per_axis.append([({id(c): int(v) for c, v in zip(mine, key)}, coords[inverse == g])
                         for g, key in enumerate(keys)])
    out = []
    for combo in itertools.product(*per_axis):
        decided = dict(base)
        for states, _ in combo:
            decided.update(states)
        decided = {k: v for k, v in decided.items() if v != UNDECIDED}
        variant = substitute(kernel, decided) if decided else kernel
        said = reads(variant, decided)
        if said is None:
            return None
        coords = dict(zip(read, (c for _, c in combo)))
        # the axes the variant still reads (a guard undecided on the class's edge blocks):
        # every coordinate on them runs; on the others the first stands for the rest
        still = [a for a in read if a in said[1]]
        if math.prod(coords[a].size for a in still) > SEPARABLE_RUNS:
            return None
        linear = np.zeros(1, np.int64)
        for a in read:
            on = coords[a] if a in still else coords[a][:1]
            linear = (linear[:, None] + on[None, :] * stride[a]).ravel()
        weight = unread * math.prod(coords[a].size for a in read if a not in still)
        out.append((variant, said[0], np.sort(linear), weight))
    return out


def _blocks_on_read_axes(launch: Launch, axes) -> tuple[np.ndarray, int]:
    """(linear ids of the blocks at coordinate 0 on every axis not in `axes`, how many
    blocks each stands for)."""
    gx, gy, gz = launch.grid
    extent = {"x": gx, "y": gy, "z": gz}
    scale = math.prod(extent[a] for a in "xyz" if a not in axes)
    if scale == 1:
        return np.arange(launch.num_blocks, dtype=np.int64), 1
    x, y, z = (np.arange(extent[a], dtype=np.int64) if a in axes else np.zeros(1, np.int64)
               for a in "xyz")
    return (x[None, None, :] + gx * (y[None, :, None] + gy * z[:, None, None])).ravel(), scale


def _per_block_trips(kernel: Kernel, sl: Slice, launch: Launch, members: np.ndarray):
    """{trip loop id: each member block's trip count}, or None where grouping across trip
    counts does not apply (no such loop, or a trip count that is not one number per block)."""
    if not sl.trip_loops or sl.address_axes == sl.block_axes:
        return None
    ranges = BlockRanges(kernel, launch, members)
    out = {}
    for s in walk(kernel.body):
        if id(s) in sl.trip_loops:
            t = trip_counts(ranges, s)
            if t is None:
                return None
            out[id(s)] = t
    return out


def _decidable_comparisons(kernel: Kernel, sl) -> list[Expr]:
    """Integer comparisons in the slice (a Slice, or the statement ids of one), outside loop
    controls (a loop's own bound is what its variable's range comes from, so it is never
    decided away)."""
    statements = sl.statements if isinstance(sl, Slice) else sl
    found: dict[int, Expr] = {}
    for s in walk(kernel.body):
        if id(s) not in statements or isinstance(s, Loop):
            continue
        for e in needed_exprs(s):
            for node in e.walk():
                if node.op in COMPARE_OPS and id(node) not in found:
                    found[id(node)] = node
    return list(found.values())


def substitute(kernel: Kernel, decided: dict[int, int]) -> Kernel:
    """A copy of the kernel with the given comparison nodes (by id) replaced by 0 or 1."""
    memo: dict[int, Expr] = {}

    def expr(e: Expr) -> Expr:
        key = id(e)
        if key in memo:
            return memo[key]
        if key in decided:
            out = const(decided[key], i32)
        else:
            src = tuple(expr(x) for x in e.src)
            out = _folded(e, src)
            if out is None:
                out = e if all(a is b for a, b in zip(src, e.src)) else Expr(e.op, e.dtype,
                                                                            src, e.arg)
        memo[key] = out
        return out

    return replace(kernel, body=map_statements(kernel.body, lambda s: s.rebuild(expr=expr)))


def _folded(e: Expr, src: tuple) -> Expr | None:
    """`c ? a : b`, `c && x` and `c || x` whose condition a substitution made a constant:
    the side C evaluates (so that a block class whose guards are decided stops reading the
    block axes only the other side reads: Rodinia's hotspot, `(blkY < 0) ? -blkY : 0`);
    `0 & x`, `0 * x`, `~0 & x`, `0 | x` (nvcc's branch-free form of that select, `(blkY >>
    31) & -blkY`, once its sign mask is decided); None for anything else."""
    if e.op in (Op.AND, Op.OR, Op.MUL) and len(src) == 2 and not e.dtype.is_float:
        for known, other in (src, src[::-1]):
            v = _integer_constant(known)
            if v is None:
                continue
            bits = 8 * known.dtype.size
            v %= 1 << bits
            ones = v == (1 << bits) - 1
            if v == 0 and e.op in (Op.AND, Op.MUL):
                return const(0, e.dtype)
            if (v == 0 and e.op is Op.OR) or (ones and e.op is Op.AND and
                                              known.dtype.size >= e.dtype.size):
                return other if other.dtype == e.dtype else cast(other, e.dtype)
        return None
    if not src or src[0].op is not Op.CONST:
        return None
    if e.op is Op.SELECT:
        taken = src[1] if src[0].arg else src[2]
        return taken if taken.dtype == e.dtype else cast(taken, e.dtype)
    if e.op in (Op.LAND, Op.LOR):
        if bool(src[0].arg) == (e.op is Op.LOR):   # 1 || x, 0 && x: decided by the constant
            return const(int(e.op is Op.LOR), e.dtype)
        return cast(src[1] != const(0, src[1].dtype), e.dtype)   # 1 && x, 0 || x: x's truth
    return None


def _integer_constant(e: Expr) -> int | None:
    """The value of an integer constant, also through widening or same-size integer casts
    of one (the caller reads it modulo the outer type's width); else None."""
    while e.op is Op.CAST and not e.dtype.is_float and not e.src[0].dtype.is_float and \
            e.dtype.size >= e.src[0].dtype.size:
        e = e.src[0]
    return int(e.arg) if e.op is Op.CONST and not e.dtype.is_float else None


def reference_requests(kernel: Kernel, launch: Launch, arrays=None, seed: int = 0) -> dict:
    """Brute force for tests: every request of every block, warp and iteration, unmerged.

    Runs the whole launch with values and returns {site: list of (offsets row, is_store)}.
    """
    out: dict[int, list] = {s.site: [] for s in kernel.sites()}
    wpb = launch.warps_per_block
    tpb = launch.threads_per_block

    def observe(access) -> None:
        if not isinstance(access, SharedAccess):
            return
        block = access.threads // tpb
        thread = access.threads % tpb
        for b in np.unique(block):
            for w in range(wpb):
                lanes = (block == b) & (thread // WARP == w)
                if not lanes.any():
                    continue
                row = [None] * WARP
                for t, o in zip(thread[lanes], access.offsets[lanes]):
                    row[int(t % WARP)] = int(o)
                out[access.stmt.site].append(row)

    run(kernel, dict(launch.params), arrays, seed=seed, observer=observe)
    return out




"""check's economy: the address-only runs of a kernel's slices (docs/hazards.md), shared accesses
for one block of each class, global accesses and bounds for every block, each exact and never
sampled; a fault found block by block as the full run finds it."""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from kernels_ir import Kernel, KernelRuntimeError, PartialRun, run

from .block_ends import block_ends, check_other_run_at_ends
from .bulk import box_start
from .congruence import Congruences
from .faults import count_fault, Fault, quarters, run_in_ranges
from .races import find_races, IntervalTooLarge, Race, Recorder
from .ranges import BlockRanges, probe_settled, trip_counts
from .slicing import (block_invariant_stores, blind_arrays, hazard_slices,
                      thread_invariant_stores)
from .trace import (_blocks_on_read_axes, _decidable_comparisons, chunk_threads,
                    control_keys, separable_products)


HUGE_GRID = 1 << 26


# threads the check runs at once: a kernel read from PTX keeps some 4 KB a thread (its
# registers, and the run's temporaries), so 2^16 of them stay near 300 MB where the
# analysis's 2^20 took 1.8-2.9 GB (llm.c's add_bias, cuda-samples' cg_reduce), in the same
# time
CHECK_THREADS = 1 << 16


def check_by_slices(kernel: Kernel, launch, chosen: np.ndarray | None, pairs,
                     max_races: int, progress, loop_limit: int, arrays=None, seed: int = 0
                     ) -> tuple[list[Race], tuple[tuple[str, int], ...], list[Fault],
                                str | None] | FullRun | None:
    """The races of the launch from the two address-only runs, what each ran (its blocks),
    their faults, and what was left unchecked (the fault cap), or None (a FullRun where both
    runs fault) where they cannot stand for a full run (see `check`). `chosen` None: the whole of a grid too large for an array of its block ids,
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
    # (blocks a run takes: fewer where the kernel's per-thread state is large, as the
    # trace's runs take them, in bounded memory)
    per_run = max(1, min(CHECK_THREADS, chunk_threads(kernel)) // launch.threads_per_block)
    sizes = None   # each representative's class: how many blocks, where known
    if chosen is None:
        # the blocks at 0 on every axis the shared run does not read stand for the rest
        classes = _class_representatives(kernel, launch, None, hs, slices_of)
        if classes is None:
            reps, _ = _blocks_on_read_axes(launch, hs.block_axes)
        else:
            reps, sizes = classes
        if reps.size > HUGE_GRID:
            return None
    else:
        classes = _class_representatives(kernel, launch, chosen, hs, slices_of)
        if classes is None:
            reps, sizes = _representatives(kernel, ranges, chosen, hs)
        else:
            reps, sizes = classes
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
        find_races(kernel, launch, rec, records, pairs, max_races, found, seen)
    # first (a loop that never ends shows here soonest), one block per class of blocks the
    # shared run cannot tell apart
    pending = [(at, min(per_run, reps.size - at)) for at in range(0, reps.size, per_run)]
    while pending:
        lo, size = pending.pop(0)
        part = reps[lo:lo + size]
        rec = Recorder(launch, part, scan, pairs)
        try:
            run(kernel, params, None, observer=rec, partial=PartialRun(
                statements=hs.shared, blocks=part, track=True, truncate=hs.truncate,
                truncate_pairs=hs.truncate_pairs),
                loop_limit=loop_limit)
        except KernelRuntimeError as err:
            if class_of is None:
                return None   # (how many blocks its class holds is not known: the full run)
            if size > 1:   # (which of these classes faults)
                pending[:0] = quarters(lo, size)
                continue
            # the fault is its class's: as many blocks hit it as the full run would find
            count_fault(faults, err, class_of[int(part[0])])
        except IntervalTooLarge:
            if size == 1:
                return None
            pending[:0] = quarters(lo, size)
            continue
        scan(rec, rec.take())
        if progress:
            progress(lo + size, total)
    runs = [("shared accesses, one block of each class", int(reps.size))]
    if any(r.kind == "write-write" for r in found):
        # benign or not: only the stored bytes can tell, which one block of each class
        # tells for all of its blocks where those bytes are every block's alike
        sites = {n for r in found if r.kind == "write-write" for n in (r.first, r.second)}
        if all(r.first == r.second for r in found if r.kind == "write-write") and \
                thread_invariant_stores(kernel, sites):
            # every thread stores the same bytes in the same order: the same value, by
            # construction, in every block
            found = [dataclasses.replace(r, kind="same-value write-write")
                     if r.kind == "write-write" else r for r in found]
        elif not block_invariant_stores(kernel, sites):
            return None
        else:
            found = _races_with_values(kernel, launch, reps, pairs, max_races, loop_limit,
                                       arrays, seed, hs)
            if found is None:
                return None
            runs.append(("stored values, one block of each class", int(reps.size)))
    # the other run on a few blocks at the grid's ends, where they stand for all of them
    ends = block_ends(kernel, hs.other, hs.probes, hs.lanes_only) \
        if blocks_total == launch.num_blocks else None
    at_ends = None if ends is None else \
        check_other_run_at_ends(kernel, launch, hs, ends, loop_limit)
    if at_ends is not None:
        if progress:
            progress(total, total)
        return found, (*runs, ("global accesses and bounds, at the grid's ends", at_ends)), \
            list(faults.values()), None
    if chosen is None:
        return None
    # every block: global accesses, loop bounds, shuffles and probes; a fault here is as
    # real as the full run's (the run computes every value a bound or a probe reads), and
    # its blocks are found as the full run finds them: a faulting range again in quarters
    # (a 1-D stencil's halo read before `in` in block 0: 4,096 blocks, 35 s -> a few)
    counted = set(faults)   # the shared run's

    def run_part(part):
        try:
            run(kernel, params, None, partial=PartialRun(
                statements=hs.other, collapse=hs.counted, blocks=part, sources=True,
                lanes_only=hs.lanes_only, truncate=hs.other_truncate,
                probes=hs.probes, endpoints=hs.endpoints, guards=hs.guards),
                loop_limit=loop_limit)
        except KernelRuntimeError:
            if counted:
                # both runs fault: which comes first in a block (an assert before the
                # uninitialized read it guards) only the full run can tell
                raise _BothFault from None
            raise

    ran = [reps.size]

    def after(part):
        ran[0] += part.size
        if progress:
            progress(ran[0], total)
    try:
        unchecked = run_in_ranges(chosen, per_run, run_part, faults, KernelRuntimeError,
                                  after)
    except _BothFault:
        return FullRun(tuple(faults.values()))
    return found, (*runs, ("global accesses and bounds, every block", int(chosen.size))), \
        list(faults.values()), unchecked


def _races_with_values(kernel: Kernel, launch, reps: np.ndarray, pairs, max_races: int,
                       loop_limit: int, arrays, seed: int, hs) -> list[Race] | None:
    """The races of one block of each class, run with values (each write-write race then
    benign or not by the bytes stored), or None where such a run faults (the full run
    locates the fault). The global arrays whose values decide nothing (`blind_arrays`: no
    value stored to shared memory among what they decide) are zeros, not drawn: llm.c's
    fused_residual_forward_kernel6 drew 8192 x 768 inputs for a few blocks (311 MB)."""
    from kernels_ir import make_arrays
    found, seen = [], {}

    def scan(rec, records):
        find_races(kernel, launch, rec, records, pairs, max_races, found, seen)
    blank = frozenset()
    if arrays is None:
        blank = blind_arrays(kernel, hs)
        arrays = make_arrays(launch, seed, blank)
    per_run = max(1, min(CHECK_THREADS, chunk_threads(kernel)) // launch.threads_per_block)
    for lo in range(0, reps.size, per_run):
        part = reps[lo:lo + per_run]
        rec = Recorder(launch, part, scan, pairs)
        try:
            run(kernel, dict(launch.params), arrays, seed=seed, observer=rec,
                partial=PartialRun(blocks=part), loop_limit=loop_limit, blank=blank)
        except (KernelRuntimeError, IntervalTooLarge):
            return None
        scan(rec, rec.take())
    return found


class _BothFault(Exception):
    """The shared run and the other both fault: the full run decides which comes first."""


@dataclass(frozen=True)
class FullRun:
    """check_by_slices's answer where both address-only runs fault: the full run decides,
    and these are the shared run's faults (each with every block of its classes), which
    the full run reports where they are on a line it faults on first (kmeans staging
    `s_c[i / D][i % D] = cent[i]` one past both arrays: the full run stops each block at
    the global read, the shared store after it is no less a fault)."""

    faults: tuple[Fault, ...]


# Past this many blocks the check classes its shared run axis by axis where it can: a run
# of the shared slice per block costs some 50 us, a class's variant and slice some 10 ms
CHECK_SEPARABLE_BLOCKS = 4096


def _class_representatives(kernel: Kernel, launch, chosen: np.ndarray, hs,
                           slices_of) -> tuple[np.ndarray, np.ndarray] | None:
    """(one block of each class the shared run cannot tell apart, how many blocks each
    stands for), made axis by axis where its guards each read one block axis
    (trace.separable_products, as the analysis classes a 2-D image kernel's grid): for every
    block of a large grid (`chosen` all of them, or None) whose shared run reads two or more
    axes; None otherwise (then block by block). (The sizes count a fault of the shared run
    for its class: without them a corner block's fault sent a 15,876-block numba GEMM to
    the full run, 148 s.)"""
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
    reps = np.concatenate([linear for _, _, linear, _ in products])
    sizes = np.concatenate([np.full(linear.size, weight, np.int64)
                            for _, _, linear, weight in products])
    order = np.argsort(reps, kind="stable")   # (the products' blocks are disjoint)
    return reps[order], sizes[order]


def _control_representatives(kernel: Kernel, launch, chosen: np.ndarray, hs, per_run: int,
                             loop_limit: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The first of the chosen blocks of each class (and each class's size) that agrees on
    the blockIdx axes the shared run reads other than through its control, and on every
    decision of that control (trace.control_keys; a persistent kernel whose blocks take
    tiles from a schedule is one class per number of tiles): None where every axis it
    reads is read otherwise too, or where the run of its control faults (the shared run
    then finds it)."""
    key = control_keys(kernel, hs.shared, hs.block_axes, launch, chosen, per_run, loop_limit,
                       hs.truncate, hs.truncate_pairs)
    return None if key is None else _firsts(chosen, key)


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

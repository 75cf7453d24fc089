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

Here: `check` and its report. The race machinery (control-flow graph, barrier intervals,
the recorder) is in races.py, faults and their counting in faults.py, and the address-only
runs that spare a whole-launch run (docs/hazards.md) in check_slices.py.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from kernels_ir import (Kernel, KernelError, KernelRuntimeError, make_arrays, PartialRun,
                        resolve_launch, run)

from ..engine.arch import get_arch
from .check_slices import check_by_slices, CHECK_THREADS, FullRun, HUGE_GRID
from .faults import Fault, layout_agreement, run_in_ranges
from .races import concurrent_site_pairs, find_races, IntervalTooLarge, Race, Recorder
from .slicing import blind_arrays, hazard_slices
from .trace import LOOP_LIMIT


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


# ---------------------------------------------------------------- the dynamic pass


# a grid of more blocks than LARGE_GRID is first checked without an array of its block ids;
# one of more than HUGE_GRID never is held as one (8 bytes a block)
LARGE_GRID = 1 << 22
MAX_RACES = 20    # races a check lists at most (one a pair of sites)


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
        found = check_by_slices(kernel, launch, None, pairs, max_races, progress,
                                 loop_limit, arrays, seed) if sliced else None
        # (a FullRun needs `chosen`: the full run of every block, below)
        if found is not None and not isinstance(found, FullRun):
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
    shared_faults = ()
    if sliced:
        found = check_by_slices(kernel, launch, chosen, pairs, max_races, progress,
                                 loop_limit, arrays, seed)
        if isinstance(found, FullRun):
            shared_faults, found = found.faults, None
        if found is not None:
            return report(found, int(chosen.size))
    found, seen = [], {}
    faults: dict[tuple, Fault] = {}
    # the arrays made once, not for every range of blocks (each range still starts from
    # them); those whose values decide nothing are zeros, taken as touched: llm.c's
    # crossentropy reads one float of each 50,257-float row of its 1.6 GB input
    blank = frozenset()
    if arrays is None:
        blank = blind_arrays(kernel, hazard_slices(kernel))
        arrays = make_arrays(launch, seed, blank)

    def scan(rec, records):
        find_races(kernel, launch, rec, records, pairs, max_races, found, seen)
    # ranges of `chosen`, in order, each at most the interpreter's threads at once (a fault
    # splits its range in quarters to find its blocks)
    recorder, done = [], [0]

    def run_part(part):
        recorder[:] = [Recorder(launch, part, scan, pairs)]
        partial = None if part.size == launch.num_blocks else PartialRun(blocks=part)
        run(kernel, dict(launch.params), arrays, seed=seed, observer=recorder[0],
            partial=partial, loop_limit=loop_limit, blank=blank)

    def after(part):
        scan(recorder[0], recorder[0].take())
        done[0] += part.size
        if progress:
            progress(done[0], chosen.size)
    unchecked = run_in_ranges(chosen, max(1, CHECK_THREADS // launch.threads_per_block),
                              run_part, faults, (KernelRuntimeError, IntervalTooLarge), after)
    done = done[0]
    races = found
    return HazardReport(kernel.title, dict(launch.params),
                        tuple(r for r in races if not r.benign),
                        tuple(faults.values()) + _on_faulting_lines(shared_faults, faults) +
                        agreement,
                        tuple(x for x in limits if not x.startswith("note:")), pairs,
                        tuple(r for r in races if r.benign), done, launch.num_blocks,
                        unchecked, "full", (("every block with its values", done),))


def _on_faulting_lines(shared: tuple, faults: dict) -> tuple[Fault, ...]:
    """The shared run's faults on a source line where the full run faults first, at another
    statement of it (which stops each thread there), said as found after it."""
    lines = {(f.loc.file, f.loc.line) for f in faults.values() if f.loc is not None}
    what = lambda f: f.message.split(" [block")[0]  # noqa: E731 (the fault, not its thread)
    seen = {what(f) for f in faults.values()}
    return tuple(
        dataclasses.replace(f, message=f"{f.message} (on the line of the fault above, after "
                                       "it: found by the run of shared accesses alone)")
        for f in shared if f.loc is not None and (f.loc.file, f.loc.line) in lines and
        what(f) not in seen)


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

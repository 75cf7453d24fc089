"""The trace: every warp request each shared access site issues over a whole launch.

Lanes map to warps by linear thread id (x + y*Dx + z*Dx*Dy); a warp issues a request at a site
when at least one of its lanes executes it. The launch is executed by the kernels_ir
interpreter, restricted to the slice that decides addresses (no values, no global memory),
over one representative block per class of blocks the slice cannot tell apart, with
loops whose iterations look alike collapsed to one weighted iteration. Kernels whose
addresses depend on loaded data run in full on their input data.

Requests come out deduplicated: each distinct lane pattern once, with the number of times the
launch issues it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kernels_ir import Kernel, Launch, PartialRun, SharedAccess, run


from .slicing import Slice, slice_kernel

WARP = 32


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
    patterns: np.ndarray        # (n, 32) int64 byte offsets, -1 for inactive lanes
    counts: np.ndarray          # (n,) int64 requests issued with that pattern
    where: tuple[Where, ...]    # first issue of each pattern

    @property
    def requests(self) -> int:
        """Warp requests the site issues over the launch."""
        return int(self.counts.sum())


@dataclass(frozen=True)
class Trace:
    """The trace of a launch: per-site requests and how they were obtained."""

    launch: Launch
    sites: dict
    slice: Slice
    mode: str                   # "sliced" or "full" (data-dependent: run on data)
    block_weight: int           # blocks each traced block stands for
    blocks_run: int


class _Collector:
    def __init__(self, launch: Launch, blocks: np.ndarray):
        self.launch = launch
        self.blocks = blocks
        self.wpb = launch.warps_per_block
        self.events: dict[int, list] = {}

    def __call__(self, access: SharedAccess) -> None:
        tpb = self.launch.threads_per_block
        dense_block = access.threads // tpb
        thread = access.threads % tpb
        key = dense_block * self.wpb + thread // WARP
        warps, inverse = np.unique(key, return_inverse=True)
        rows = np.full((warps.size, WARP), -1, np.int64)
        rows[inverse, thread % WARP] = access.offsets
        self.events.setdefault(access.stmt.site, []).append(
            (rows, access.weight, warps, access.iterations))

    def site_trace(self, site: int, block_weight: int) -> SiteTrace:
        events = self.events.get(site, [])
        if not events:
            return SiteTrace(site, np.zeros((0, WARP), np.int64), np.zeros(0, np.int64), ())
        rows = np.concatenate([e[0] for e in events])
        weights = np.concatenate([np.full(e[0].shape[0], e[1], np.int64) for e in events])
        warps = np.concatenate([e[2] for e in events])
        event_of = np.concatenate([np.full(e[0].shape[0], i) for i, e in enumerate(events)])
        flat = np.ascontiguousarray(rows).view(np.dtype((np.void, WARP * 8))).ravel()
        _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        counts = np.zeros(first.size, np.int64)
        np.add.at(counts, inverse.ravel(), weights * block_weight)
        gx, gy, _ = self.launch.grid
        where = []
        for i in first:
            b = int(self.blocks[warps[i] // self.wpb])
            where.append(Where((b % gx, b // gx % gy, b // (gx * gy)), int(warps[i] % self.wpb),
                               events[event_of[i]][3]))
        return SiteTrace(site, rows[first], counts, tuple(where))


def trace_launch(kernel: Kernel, launch: Launch, arrays=None, seed: int = 0) -> Trace:
    """Trace every shared access site of one launch."""
    sl = slice_kernel(kernel)
    if sl.data_dependent:
        blocks = np.arange(launch.num_blocks, dtype=np.int64)
        collector = _Collector(launch, blocks)
        run(kernel, dict(launch.params), arrays, seed=seed, observer=collector)
        mode, weight = "full", 1
    else:
        blocks, weight = _representative_blocks(launch, sl.block_axes)
        collector = _Collector(launch, blocks)
        partial = PartialRun(statements=sl.statements, collapse=sl.collapsible, blocks=blocks)
        run(kernel, dict(launch.params), observer=collector, partial=partial)
        mode = "sliced"
    sites = {s.site: collector.site_trace(s.site, weight) for s in kernel.sites()}
    return Trace(launch, sites, sl, mode, weight, int(blocks.size))


def _representative_blocks(launch: Launch, axes: frozenset[str]) -> tuple[np.ndarray, int]:
    """Blocks with index 0 on every axis the slice does not read, and how many each stands for."""
    gx, gy, gz = launch.grid
    ranges = [range(n) if a in axes else range(1) for a, n in zip("xyz", (gx, gy, gz))]
    weight = math.prod(n for a, n in zip("xyz", (gx, gy, gz)) if a not in axes)
    ids = [x + y * gx + z * gx * gy for z in ranges[2] for y in ranges[1] for x in ranges[0]]
    return np.array(ids, dtype=np.int64), weight


def reference_requests(kernel: Kernel, launch: Launch, arrays=None, seed: int = 0) -> dict:
    """Brute force for tests: every request of every block, warp and iteration, unmerged.

    Runs the whole launch with values and returns {site: list of (offsets row, is_store)}.
    """
    out: dict[int, list] = {s.site: [] for s in kernel.sites()}
    wpb = launch.warps_per_block
    tpb = launch.threads_per_block

    def observe(access: SharedAccess) -> None:
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




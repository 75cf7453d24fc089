"""Whole-launch analysis: wavefronts of every shared access site, as Nsight Compute counts them.

`analyze(kernel, params, arch=...)` traces the launch (smemsim.launch.trace), costs every distinct
request once with the bank engine and weights it by how often the launch issues it. Totals
are what `smsp__sass_inst_executed_op_shared_ld/st` (requests) and
`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st` (wavefronts) would read for the launch,
provided the compiler kept every access at the width the IR states (gpu_backend checks it).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from kernels_ir import (Kernel, KernelError, KernelRuntimeError, SourceLoc, Unwritten,
                        format_stmt, resolve_launch)

from ..engine.arch import require_instructions
from ..engine.banks import CATEGORIES, RequestError, op_categories, rules_for
from ..engine.batch import warp_requests
from .bulk import (TmaCounters, bulk_costs, copies, destinations, global_rows, gmma_wavefronts,
                   on_the_grid, site_sectors, start_fault, tma_counters)
from .congruence import Congruences
from .trace import LOOP_LIMIT, Trace, Where, trace_launch
from .unread_params import stand_in_note
from ..display import html


@dataclass(frozen=True)
class WorstRequest:
    """The most expensive request of a site, kept for explanation."""

    offsets: tuple[int | None, ...]
    wavefronts: int
    ideal: int
    where: Where


@dataclass(frozen=True)
class SiteReport:
    """One shared access site over the whole launch."""

    site: int
    loc: SourceLoc
    statement: str
    array: str
    op: str                       # the bank engine's op: "load", "store", "atomic", ...
    width: int                    # bytes per lane
    requests: int
    wavefronts: int
    ideal: int
    share: float                  # of the kernel's shared wavefronts
    histogram: tuple[tuple[int, int], ...]  # (wavefronts per request, requests)
    worst: WorstRequest | None
    data_dependent: bool
    classes: Mapping[str, "Totals"]  # by Nsight instruction class (a CAS loop has two)
    matrices: int | None = None   # ldmatrix / stmatrix
    tma: TmaCounters | None = None  # a TMA / bulk copy site: copies, bytes, bank words
    # the line of a loop it runs in that retries until a store to shared memory survives
    # (smemsim.launch.retry_loops): its passes are the GPU's to decide
    retry_loop: int | None = None
    # its counts are the fewest there can be: a retry loop in which only lanes of one warp
    # contend, or the CAS loop of an atomic add (counted as each warp alone)
    at_least: bool = False
    # the source's `__shared__` variable the site reads, where the frontend knows it (a .cu
    # read from nvcc's build, whose views of one variable are named per type: `Bs`,
    # `Bs_f32`); None otherwise (`array` is then the name to show)
    variable: str | None = None
    # counted as the PTX states where the compiler's SASS differs in a way the reading does
    # not follow (Kernel.as_stated_sites; the kernel's notes say how, and whether the count
    # is then at most or at least the build's)
    as_stated: bool = False

    @property
    def shown(self) -> str:
        """The array's name as the user's source has it."""
        return self.variable or self.array

    @property
    def is_bulk(self) -> bool:
        """Whether the site is a TMA or bulk copy (no LSU wavefronts; see `tma`)."""
        return self.tma is not None

    @property
    def explainable(self) -> bool:
        """Whether its requests are lane patterns the bank engine explains (a TMA copy or a
        wgmma is one instruction of the async proxy, costed as a whole)."""
        return self.tma is None and self.op != "wgmma"

    @property
    def excess(self) -> int:
        """Wavefronts over ideal: Nsight's bank conflicts."""
        return self.wavefronts - self.ideal

    @property
    def wavefronts_per_request(self) -> float:
        """Average wavefronts per request."""
        return self.wavefronts / self.requests if self.requests else 0.0


@dataclass(frozen=True)
class Totals:
    """Instructions (warp requests) and wavefronts of one instruction class."""

    requests: int
    wavefronts: int
    ideal: int

    @property
    def excess(self) -> int:
        """Wavefronts over ideal."""
        return self.wavefronts - self.ideal


NO_ACCESS = Totals(0, 0, 0)


def class_totals(parts) -> dict[str, Totals]:
    """Per Nsight instruction class present in any of `parts` (mappings class -> Totals,
    one per site, say), their sum, in CATEGORIES order."""
    parts = list(parts)
    return {c: Totals(*(sum(getattr(p[c], f) for p in parts if c in p)
                        for f in ("requests", "wavefronts", "ideal")))
            for c in CATEGORIES if any(c in p for p in parts)}


@dataclass(frozen=True)
class Report:
    """The analysis of one launch."""

    kernel: str
    arch: str
    rules: str
    params: Mapping[str, int | float]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_smem: int
    static_smem: int
    window: int                   # bytes of the block's shared window
    sites: tuple[SiteReport, ...]
    classes: Mapping[str, Totals]  # Nsight's instruction classes present (CATEGORIES order)
    mode: str                     # "sliced" or "full"
    blocks_traced: int
    as_compiled: bool = False     # counts what NVRTC emitted (gpu_backend.as_compiled)
    # what the compiler did, site by site: as_compiled's findings, or the notes of the
    # frontend that built the kernel (the PTX frontend's merges of ptxas)
    compiler: tuple[str, ...] = ()
    # when as_compiled: site -> bytes per lane counted where that is not the IR's (0: the
    # site has no instruction left)
    compiled_widths: Mapping[int, int] = field(default_factory=dict)
    # when as_compiled: shared instructions of the build that belong to no site (not
    # counted: the totals are then lower bounds)
    uncounted: int = 0
    # what the counts stand on beyond the launch's inputs (reads of shared bytes no thread
    # wrote, counted alike with several fills)
    notes: tuple[str, ...] = ()

    @property
    def load(self) -> Totals:
        """LDS: `smsp__sass_inst_executed_op_shared_ld` and its wavefronts."""
        return self.classes.get("ld", NO_ACCESS)

    @property
    def store(self) -> Totals:
        """STS: `smsp__sass_inst_executed_op_shared_st` and its wavefronts."""
        return self.classes.get("st", NO_ACCESS)

    @property
    def requests(self) -> int:
        """Shared-memory instructions (warp requests) of the launch, every class."""
        return sum(t.requests for t in self.classes.values())

    @property
    def wavefronts(self) -> int:
        """Shared wavefronts of the launch."""
        return sum(t.wavefronts for t in self.classes.values())

    @property
    def ideal(self) -> int:
        """Shared wavefronts the same bytes would cost without bank conflicts."""
        return sum(t.ideal for t in self.classes.values())

    @property
    def excess(self) -> int:
        """Shared wavefronts over ideal."""
        return self.wavefronts - self.ideal

    @property
    def excess_ratio(self) -> float:
        """Excess over ideal wavefronts (0 for a conflict-free kernel)."""
        return self.excess / self.ideal if self.ideal else 0.0

    def _repr_html_(self) -> str | None:
        """In a notebook: the report page's section for this launch (smemsim.display)."""
        return html(self)

    def site(self, number: int) -> SiteReport:
        """The report of one site."""
        for s in self.sites:
            if s.site == number:
                return s
        raise KeyError(f"no shared access site {number} in '{self.kernel}'")


def analyze(kernel: Kernel, params: Mapping[str, int | float] | None = None, *,
            arch: str = "sm_90", arrays=None, seed: int = 0,
            widths: Mapping[int, int] | None = None, loop_limit: int = LOOP_LIMIT) -> Report:
    """Exact whole-launch shared-memory counts for one launch of `kernel`.

    `params` maps the kernel's parameter names to values; those not given take the kernel's
    defaults. `arrays` (and `seed` for the rest) are
    the input data that data-dependent addresses are computed from. `widths` re-costs sites
    at other bytes per lane (a scalar access widened into LDS.64/LDS.128 keeps its start
    address); a
    width of 0 drops a site the compiler folded into another. To count what NVRTC emits,
    `gpu_backend.as_compiled.analyze_as_compiled` compiles the kernel and chooses the widths.
    A loop whose end has no closed form faults after `loop_limit` iterations of one entry
    (trace.LOOP_LIMIT).
    """
    a, rules = rules_for(require_instructions(kernel, arch))
    launch = resolve_launch(kernel, params)
    widths = dict(widths or {})
    window = max(launch.smem_window, 1)
    stmts = {s.site: s for s in kernel.sites()}

    def fold(site: int, rows: np.ndarray) -> np.ndarray:
        # what _site_rows reads of a request: its wavefronts, ideal and per-class counts
        stmt = stmts[site]
        width = widths.get(site, stmt.access_bytes)
        if width == 0:
            return np.zeros((rows.shape[0], 1), np.int64)
        cost = _cost(kernel, stmt, rows, width, stmt.op, a.name, window)
        return np.stack([cost.wavefronts, cost.ideal] + [
            v for p in cost.parts for v in (p.instructions, p.wavefronts, p.ideal)], axis=1)

    try:
        tr = trace_launch(kernel, launch, arrays, seed, loop_limit, fold=fold)
        notes = ()
    except KernelRuntimeError as err:
        if "no thread has written" not in str(err):
            raise
        tr, notes = _unwritten_reads(kernel, launch, arrays, seed, loop_limit, fold, widths,
                                     a.name, err)
    rows = _site_rows(kernel, a.name, tr, widths)
    stand_in = stand_in_note(kernel, params)
    notes = (stand_in, *notes) if stand_in else notes
    return dataclasses.replace(_assemble(kernel, a.name, rules, tr, rows), notes=notes)


def _wavefronts(n: int) -> str:
    return f"{n:,} wavefront{'' if n == 1 else 's'}"


# the bytes a launch that reads shared memory no thread wrote is counted with, one run each
UNWRITTEN_FILLS = (0x00, 0xFF, 0x5A)


def _unwritten_reads(kernel: Kernel, launch, arrays, seed: int, loop_limit: int, fold,
                     widths: dict, arch: str, err: KernelRuntimeError):
    """(trace, notes) of a launch some load of which reads shared bytes no thread has written
    (moderngpu's merge reads the slot past its keys, whose value it never uses): the GPU
    gives them any value, so the launch is traced once per fill of UNWRITTEN_FILLS; where
    every count agrees, none depends on those bytes and the counts stand, with a note.
    Otherwise the read is the fault `err` was, saying which count moved."""
    seen = []
    for fill in UNWRITTEN_FILLS:
        record = Unwritten(fill)
        try:
            tr = trace_launch(kernel, launch, arrays, seed, loop_limit, fold=fold,
                              unwritten=record)
        except KernelRuntimeError as other:   # (a value read there steers into a fault)
            raise KernelRuntimeError(
                f"{err.message}; with every unwritten byte {fill:#04x} the launch faults "
                f"later: {other.message}", kernel=err.kernel, stmt=err.stmt, loc=err.loc,
                site=err.site, block=err.block, thread=err.thread,
                iterations=err.iterations) from None
        counts = [(r["site"], r["requests"], r["wavefronts"], r["histogram"])
                  for r in _site_rows(kernel, arch, tr, widths)]
        if seen and counts != seen[0][1]:
            moved = next(a for a, b in zip(seen[0][1], counts) if a != b)
            other = next(b for b in counts if b[0] == moved[0])
            raise KernelRuntimeError(
                f"{err.message}; the counts depend on those bytes (site {moved[0]}: "
                f"{_wavefronts(moved[2])} with every unwritten byte {seen[0][0]:#04x}, "
                f"{_wavefronts(other[2])} with {fill:#04x})", kernel=err.kernel, stmt=err.stmt,
                loc=err.loc, site=err.site, block=err.block, thread=err.thread,
                iterations=err.iterations) from None
        seen.append((fill, counts, tr, record))
    first = seen[0][3].first or err
    lane = "; ".join(f"{what} {value}" for what, value in
                     (("block", first.block), ("thread", first.thread)) if value is not None)
    note = (f"{first.loc.chain() + ': ' if first.loc is not None else ''}"
            f"{first.message.replace(': uninitialized in CUDA', '')}"
            f"{f' [{lane}]' if lane else ''}: such bytes hold whatever the GPU left there; "
            f"counted with each of them {', '.join(f'{f:#04x}' for f in UNWRITTEN_FILLS)} in "
            f"turn, every count alike, so none depends on them (`smemsim check` reports the "
            f"read)")
    return seen[0][2], (note,)


def _cost(kernel: Kernel, stmt, patterns: np.ndarray, width: int, op: str, arch: str,
          window: int):
    """The bank engine's costs of a site's requests; a bad request is the site's error."""
    if stmt.BULK or stmt.GMMA:
        if stmt.BULK:
            _check_bulk_alignment(kernel, stmt, patterns)
        return bulk_costs(patterns, stmt.op)
    try:
        return warp_requests(patterns, width, op, arch=arch, window=window,
                             matrices=stmt.matrices)
    except RequestError as err:
        raise KernelError(f"site {stmt.site}: {err}", kernel=kernel.name,
                          stmt=format_stmt(stmt), loc=stmt.loc) from None


def _check_bulk_alignment(kernel: Kernel, stmt, patterns: np.ndarray) -> None:
    """A TMA copy's shared side on the 128-byte grid, a bulk copy's on 16 bytes, as the
    interpreter checks when it runs the copy: a copy the GPU faults on (`misaligned
    address`, measured) is an error here too, never counted."""
    from kernels_ir.stmt_async import TmaLoad, TmaStore
    from kernels_ir.tma import BULK_ALIGN, DESTINATION_ALIGN
    align = DESTINATION_ALIGN if isinstance(stmt, (TmaLoad, TmaStore)) else BULK_ALIGN
    bad = (patterns >= 0) & (patterns % align != 0)
    if bad.any():
        at = int(patterns[bad][0])
        what = "TMA copy" if align == DESTINATION_ALIGN else "bulk copy"
        raise KernelError(f"site {stmt.site}: misaligned address: the {what}'s shared side "
                          f"starts at byte {at} of the block's window, not on the "
                          f"{align}-byte grid it needs (the GPU faults)", kernel=kernel.name,
                          stmt=format_stmt(stmt), loc=stmt.loc)


def _site_rows(kernel: Kernel, arch: str, tr: Trace, widths: dict,
               ops: Mapping[int, str] | None = None) -> list[dict]:
    """Per site (each at its width in `widths`, if there; 0 drops it; costed as the op in
    `ops`, if there): its counts, as the fields of a SiteReport but its share."""
    window = max(tr.launch.smem_window, 1)
    rows = []
    congruences = None   # what is known of the copies' global starts, if any
    for stmt in kernel.sites():
        st = tr.sites[stmt.site]
        op, matrices = (ops or {}).get(stmt.site, stmt.op), stmt.matrices
        width = widths.get(stmt.site, stmt.access_bytes)
        if width == 0:
            continue  # the compiler folded this site into another
        if st.counts.size:
            cost = _cost(kernel, stmt, st.patterns, width, op, arch, window)
            weigh = lambda per_request: int((per_request * st.counts).sum())
            wf, ideal = weigh(cost.wavefronts), weigh(cost.ideal)
            classes = {p.category: Totals(weigh(p.instructions), weigh(p.wavefronts),
                                          weigh(p.ideal)) for p in cost.parts}
            sums = np.zeros(int(cost.wavefronts.max()) + 1, np.int64)
            np.add.at(sums, cost.wavefronts, st.counts)
            hist = {int(w): int(c) for w, c in enumerate(sums) if c}
            i = int(np.lexsort((-(cost.wavefronts - cost.ideal), -cost.wavefronts))[0])
            worst = WorstRequest(tuple(None if o < 0 else int(o) for o in st.patterns[i]),
                                 int(cost.wavefronts[i]), int(cost.ideal[i]), st.where(i))
        else:
            wf = ideal = 0
            classes = {c: NO_ACCESS for c in op_categories(op)}
            hist, worst = {}, None
        if stmt.GMMA and st.counts.size:
            # per warpgroup instruction, not per warp request: the site's total, all ideal
            wf = ideal = gmma_wavefronts(st.requests, stmt.access_bytes)
            classes = {"gmma": Totals(st.requests, wf, ideal)}
            hist = {}
        tma = None
        if stmt.BULK:
            if congruences is None:
                congruences = Congruences(kernel, tr.launch)
            row_bytes = stmt.tensor_map.row_bytes if hasattr(stmt, "tensor_map") else \
                stmt.nbytes
            start, row_global, row_shared = global_rows(stmt, tr.launch, congruences)
            why = start_fault(stmt, start)
            if why is not None and st.counts.size:
                raise KernelError(f"site {stmt.site}: {why}", kernel=kernel.name,
                                  stmt=format_stmt(stmt), loc=stmt.loc)
            sectors = site_sectors(on_the_grid(start), *destinations(st.patterns, st.counts),
                                   row_global, row_shared, row_bytes)
            tma = tma_counters(stmt.op, copies(st.patterns, st.counts), stmt.access_bytes,
                               sectors)
        rows.append(dict(site=stmt.site, loc=stmt.loc, statement=format_stmt(stmt),
                         array=stmt.array.name, op=op, width=width, requests=st.requests,
                         variable=getattr(stmt.array, "variable", None),
                         wavefronts=wf, ideal=ideal, histogram=tuple(sorted(hist.items())),
                         worst=worst, data_dependent=stmt.site in tr.slice.data_dependent,
                         classes=classes, matrices=matrices, tma=tma,
                         as_stated=stmt.site in kernel.as_stated_sites))
        retry = next((r for r in tr.retries if stmt.site in r.sites), None)
        if retry is not None:
            rows[-1].update(retry_loop=retry.line, at_least=not retry.stores & tr.crossed)
        elif op == "atomic_cas_loop" and getattr(stmt, "kind", None) == "add":
            # counted as each warp alone; warps contending for a word at once only fail
            # more CASes (an add never leaves the loop early): the fewest passes
            rows[-1].update(at_least=True)
    return rows


def _assemble(kernel: Kernel, arch: str, rules: str, tr: Trace, rows: list[dict]) -> Report:
    """The report of a launch from its site rows."""
    launch = tr.launch
    window = max(launch.smem_window, 1)
    total = sum(r["wavefronts"] for r in rows)
    sites = tuple(SiteReport(share=(r["wavefronts"] / total if total else 0.0), **r)
                  for r in rows)
    classes = class_totals(s.classes for s in sites)
    return Report(kernel=kernel.title, arch=arch, rules=rules, params=dict(launch.params),
                  grid=launch.grid, block=launch.block, dynamic_smem=launch.dynamic_smem,
                  static_smem=kernel.static_smem, window=window, sites=sites, classes=classes,
                  mode=tr.mode, blocks_traced=tr.blocks_run, compiler=kernel.notes)

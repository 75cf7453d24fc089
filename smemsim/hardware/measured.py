"""A kernel's Nsight Compute counters (smemsim.hardware.ncu_reports) against the prediction of
the same launch, source line by source line, each difference attributed.

The measured instructions are placed at the user's line: where the build the analysis read
is the build that was profiled (the same SASS at the same address, which a `.cu` built with
the same flags gives), through nvdisasm's inline chain of that instruction, as the analysis
places its sites (a toolkit header's line at the user's line that called it); otherwise at
the line ncu correlates (the innermost). Per line and Nsight instruction class, requests
(warp instructions) and wavefronts are compared, and what differs is said:

- `equal`;
- `inter-warp excess`: the same instructions, more wavefronts: traffic the bank rules do not
  make (L1 arbitration with global accesses and between warps, docs/hardware-rules.md);
- `predicated`: more instructions measured, as many wavefronts, where the line has
  predicated instructions: ncu's per-instruction `inst_executed` counts a warp whose lanes
  are all predicated off, which neither the kernel's `smsp__inst_executed_op_shared_*` nor
  the analysis counts (cub's radix sort on an H200: `@!P3 LDS` 8 executed, 5 wavefronts;
  the kernel's loads 5,461, the instructions' sum 5,464); the prediction lies between
  the measured count and that count less the predicated instructions' warps without a
  wavefront;
- `below`: fewer wavefronts than predicted, with the same instructions: not expected;
- `compiler`: other instruction counts where the analysis noted that ptxas changed the line
  (the note is quoted);
- `timing`: other instruction counts at a site whose counts are the fewest passes of a
  retry loop or a CAS loop (the passes depend on the warps' timing);
- `no prediction`: the build made instructions where the analysis has no site (a line it
  does not count, or a build the analysis did not read);
- `not run`: predicted where the GPU made none;
- `unexplained`: anything else.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from .ncu_reports import MeasuredKernel, instruction_class

_WHY = {
    "equal": "measured as predicted",
    "inter-warp excess": "the same instructions, {extra:,} more wavefronts: traffic the bank "
                         "rules do not make (L1 arbitration with global accesses and "
                         "between warps; docs/hardware-rules.md)",
    "below": "the same instructions, {short:,} fewer wavefronts than predicted: not expected "
             "(please report it)",
    "timing": "the counts of a retry or CAS loop, which the warps' timing decides (predicted "
              "as the fewest passes)",
    "no prediction": "no predicted site at this line: the build makes {what} here that the "
                     "analysis does not count",
    "not run": "predicted, but the profiled launch made none here (another path, or another "
               "launch than the analysis's)",
    "predicated": "{off:,} of the line's measured instructions are predicated ones whose "
                  "warps have no wavefront: ncu's per-instruction count includes a warp "
                  "whose lanes are all predicated off; the kernel's counter and the "
                  "analysis do not",
    "moved": "the build has this line's instructions, one for each access the analysis "
             "counts, but they run another number of times: ptxas moved some across "
             "branches (made under a predicate where the PTX branches, or sunk below an "
             "exit), which the analysis, following the PTX's branches, does not "
             "(docs/ptx.md)",
    "unexplained": "the instructions differ and no note of the analysis says why",
}


@dataclass(frozen=True)
class LineComparison:
    """One source line and instruction class, measured against predicted."""

    file: str                  # the file's name (as both sides know it: no folder)
    line: int
    kind: str                  # Nsight's class: ld, st, ldsm, stsm, atom, ldgsts
    measured_requests: int
    predicted_requests: int
    measured_wavefronts: int
    predicted_wavefronts: int
    measured_ideal: int
    predicted_ideal: int
    verdict: str               # equal, inter-warp excess, below, compiler, timing, ...
    why: str


@dataclass(frozen=True)
class KernelComparison:
    """A profiled kernel against the prediction of its launch."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    placed: str                # "by address" (the analysis read the profiled build) or
    #                            "by ncu's line" (the innermost line ncu correlates)
    lines: tuple[LineComparison, ...]

    @property
    def differing(self) -> tuple[LineComparison, ...]:
        """The lines whose counts differ."""
        return tuple(x for x in self.lines if x.verdict != "equal")

    def total(self, kind: str) -> tuple[int, int, int, int]:
        """(measured requests, predicted requests, measured wavefronts, predicted wavefronts)
        of one instruction class, over every line."""
        mine = [x for x in self.lines if x.kind == kind]
        return (sum(x.measured_requests for x in mine), sum(x.predicted_requests for x in mine),
                sum(x.measured_wavefronts for x in mine),
                sum(x.predicted_wavefronts for x in mine))


def compare(measured: MeasuredKernel, report, notes=(), sass=None) -> KernelComparison:
    """`measured` (one profiled launch) against `report` (smemsim.launch.analysis.Report of the same
    launch); `notes`: the kernel's compiler notes (Kernel.notes); `sass`: the FunctionSass of
    the build the analysis read, to place the measured instructions by address."""
    from ..frontends.ptx.lower import _TOOLKIT
    by_address = {s.address: s for s in (sass.shared if sass is not None else ())}
    placed_by_address = bool(by_address) and all(
        m.offset in by_address and by_address[m.offset].opcode.split(".")[0] ==
        m.opcode.split(".")[0] for m in measured.instructions)
    got: dict[tuple, list[int]] = {}
    made: dict[tuple, int] = {}      # instructions of the build at each line
    sites: dict[tuple, int] = {}     # sites of the analysis at each line
    for m in measured.instructions:
        if m.kind == "other":
            continue
        if placed_by_address:
            place = _user_place(by_address[m.offset].where, _TOOLKIT)
        else:
            place = (os.path.basename(m.file), m.line)
        counts = got.setdefault((*place, m.kind), [0, 0, 0, 0])
        counts[0] += m.executed
        counts[1] += m.wavefronts
        counts[2] += m.ideal
        if m.sass.startswith("@") and m.executed > m.wavefronts:
            # (warps of a predicated instruction beyond its wavefronts: at most that many
            # ran with every lane off)
            counts[3] += m.executed - m.wavefronts
    # (the build's own instructions, every one: ncu lists only those that ran)
    for s in by_address.values() if placed_by_address else ():
        kind = instruction_class(s.opcode)
        place = _user_place(s.where, _TOOLKIT)
        made[(*place, kind)] = made.get((*place, kind), 0) + 1
    want: dict[tuple, list[int]] = {}
    timing: set = set()
    for site in report.sites:
        place = (os.path.basename(site.loc.file), site.loc.line)
        for kind, t in site.classes.items():
            sites[(*place, kind)] = sites.get((*place, kind), 0) + 1
            counts = want.setdefault((*place, kind), [0, 0, 0])
            counts[0] += t.requests
            counts[1] += t.wavefronts
            counts[2] += t.ideal
            if site.at_least or site.retry_loop is not None:
                timing.add((*place, kind))
    lines = []
    for key in sorted(set(got) | set(want), key=lambda k: (k[0], k[1], k[2])):
        m, p = got.get(key, [0, 0, 0, 0]), want.get(key, [0, 0, 0])
        verdict, why = _attributed(key, m, p, notes, key in timing,
                                   made.get(key) == sites.get(key) and placed_by_address)
        lines.append(LineComparison(key[0], key[1], key[2], m[0], p[0], m[1], p[1], m[2],
                                    p[2], verdict, why))
    return KernelComparison(measured.name, measured.grid, measured.block,
                            "by address" if placed_by_address else "by ncu's line",
                            tuple(lines))


def _user_place(chain: tuple, toolkit) -> tuple[str, int]:
    """(file name, line) of an instruction's inline chain (innermost first) as the analysis
    places its sites: the first line not of the toolkit's headers, else the innermost."""
    mine = next((f for f in chain if not toolkit.search(os.path.normpath(f[0]))),
                chain[0] if chain else ("", 0))
    return os.path.basename(mine[0]), mine[1]


def _attributed(key: tuple, m: list, p: list, notes, timing: bool, same_instructions: bool
                ) -> tuple[str, str]:
    """(verdict, why) of one line's measured counts `m` against the predicted `p`;
    `same_instructions`: the build has as many instructions at the line as the analysis
    sites."""
    file, line, kind = key
    if m[:3] == p:
        return "equal", _WHY["equal"]
    if not p[0]:
        return "no prediction", _WHY["no prediction"].format(
            what=f"{m[0]:,} {kind} instruction{'s' if m[0] != 1 else ''}")
    if not m[0]:
        return "not run", _WHY["not run"]
    if m[0] == p[0]:
        if m[1] > p[1]:
            return "inter-warp excess", _WHY["inter-warp excess"].format(extra=m[1] - p[1])
        return "below", _WHY["below"].format(short=p[1] - m[1])
    if m[0] - m[3] <= p[0] < m[0] and m[1:3] == p[1:]:
        return "predicated", _WHY["predicated"].format(off=m[0] - p[0])
    if timing:
        return "timing", _WHY["timing"]
    said = [n for n in notes if f"{file}:{line}" in n]
    if said:
        return "compiler", said[0]
    if same_instructions:
        return "compiler", _WHY["moved"]
    return "unexplained", _WHY["unexplained"]


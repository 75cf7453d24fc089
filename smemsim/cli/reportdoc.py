"""The report page's data: one JSON item per kernel (`"kind": "report"`, docs/json.md).

It gathers what the other verbs print (analyze, explain of every site's worst request, the
layout maps, fix, check, occupancy with its curves) around the source lines they point at.
smemsim.cli.page draws the page from this item and nothing else, and `report --json` prints
it, so the page and the JSON cannot disagree.
"""
from __future__ import annotations

import dataclasses
import pathlib
from typing import Any

from ..launch.analysis import Report
from ..engine.banks import warp_request
from . import jsonout

CONTEXT = 2          # source lines shown around the kernel's first and last located line
MAX_SOURCE = 20_000  # lines of one file the page holds at most (the rest is said, not shown)


def request_of(site) -> dict[str, Any]:
    """A site's worst request, as smemsim.launch.layoutmap marks it."""
    return {"site": site.site, "line": site.loc.line, "offsets": site.worst.offsets,
            "width": site.width, "op": site.op, "matrices": site.matrices}


# the sites a report explains: those with the most excess wavefronts (and, where none has
# any, the costliest): their worst requests' bank maps are the page's pictures
EXPLAINED = 6


def explained_sites(r: Report) -> list:
    """The sites a report explains (EXPLAINED of them at most), one a source place (the
    costliest of the build's copies of a line, whose clicks all show its map): the most
    excess first, then the most wavefronts; a site with no excess only where no site has
    any (the one that costs the most), so that a kernel of a hundred sites keeps its page
    small."""
    ranked = sorted((s for s in r.sites if s.worst is not None and s.explainable),
                    key=lambda s: (-s.excess, -s.wavefronts, s.site))
    places: dict = {}
    for s in ranked:
        places.setdefault((s.loc.file, s.loc.line, s.loc.calls), s)
    ranked = list(places.values())
    conflicted = [s for s in ranked if s.excess]
    return conflicted[:EXPLAINED] if conflicted else ranked[:1]


def explanations(r: Report) -> list[dict[str, Any]]:
    """`explain` of the worst request of each explained site (explained_sites; what
    `smemsim explain FILE SITE --json` prints as its result), in site order."""
    return [{"site": s.site, "request": jsonout.request_json(
        warp_request(s.worst.offsets, s.width, s.op, r.arch, window=r.window,
                     matrices=s.matrices))}
            for s in sorted(explained_sites(r), key=lambda s: s.site)]


def layouts(kernel, r: Report, params, fix=None, arch: str = "sm_90") -> list[dict[str, Any]]:
    """Per shared array with a site: its declared bank grid with the worst request of its
    costliest site marked, and beside it `fix`'s best padding and best swizzle (when they
    lower the kernel's wavefronts), the same lanes marked on the same logical elements."""
    from ..search.fix import apply
    from ..launch.layoutmap import layout_map
    out = []
    # one grid a variable, as the source names it (a `.cu`'s PTX reads one through views of
    # each element type it is accessed in: the view of its costliest site is drawn)
    variables: dict = {}
    for s in r.sites:
        variables.setdefault(s.variable or s.array, []).append(s)
    for name, theirs in variables.items():
        sites = [s for s in theirs if s.worst is not None and s.explainable]
        worst = max(sites, key=lambda s: (s.excess, s.wavefronts, -s.site), default=None)
        request = request_of(worst) if worst is not None else None
        view = worst.array if worst is not None else theirs[0].array
        maps = [layout_map(kernel, view, params, request=request, arch=arch)]
        # (a `.cu`'s candidates are builds of the patched file, not views of this kernel:
        # their counts are in the fix table, their pictures would be of other bytes)
        if fix is not None and not fix.built:
            better = [c for c in fix.candidates if c.array in (name, view) and
                      c.wavefronts < fix.baseline.wavefronts]
            chosen = [min((c for c in better if c.kind == kind), default=None,
                          key=lambda c: (c.wavefronts, c.extra_smem))
                      for kind in ("pad", "swizzle")]
            chosen = sorted((c for c in chosen if c is not None),
                            key=lambda c: (c.wavefronts, c.extra_smem))
            maps += [layout_map(apply(kernel, c), view, params, label=c.label, request=request,
                                original=kernel, arch=arch) for c in chosen]
        out.append({"array": name, "maps": [
            jsonout.layout_json(dataclasses.replace(m, array=name)) for m in maps]})
    return out


def sources(files: dict[str, set[int]]) -> list[dict[str, Any]]:
    """The located lines' files, each from CONTEXT lines before its first located line to
    CONTEXT after its last (a file that cannot be read is listed with why)."""
    out = []
    for file, lines in files.items():
        try:
            text = pathlib.Path(file).read_text(encoding="utf-8", errors="replace")
        except OSError as err:
            out.append({"file": file, "first": 0, "lines": [], "total": 0,
                        "unreadable": err.strerror or type(err).__name__})
            continue
        all_lines = text.splitlines()
        first = max(1, min(lines) - CONTEXT)
        last = min(len(all_lines), max(lines) + CONTEXT, first + MAX_SOURCE - 1)
        out.append({"file": file, "first": first, "lines": all_lines[first - 1:last],
                    "total": len(all_lines), "unreadable": None})
    return out


def located(r: Report, kernel=None, hazards=None) -> dict[str, set[int]]:
    """Every file and line the page points at: sites, the kernel's declaration, hazards."""
    files: dict[str, set[int]] = {}
    for s in r.sites:
        files.setdefault(s.loc.file, set()).add(s.loc.line)
    if kernel is not None and kernel.loc is not None and kernel.loc.file in files:
        files[kernel.loc.file].add(kernel.loc.line)
    for race in (hazards.races + hazards.same_value) if hazards is not None else ():
        for loc in (race.first_loc, race.second_loc):
            files.setdefault(loc.file, set()).add(loc.line)
    for fault in hazards.faults if hazards is not None else ():
        if fault.loc is not None:
            files.setdefault(fault.loc.file, set()).add(fault.loc.line)
    return files


def report_item(r: Report, *, analysis: dict[str, Any] | None = None, kernel=None,
                params=None, occupancy=None, curves=(), fix=None, hazards=None,
                notes: tuple[str, ...] = (), patch: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    """One kernel's report item. `analysis`: the `analyze --json` result it shows (default:
    the report's own, without occupancy); the layouts need the `kernel`; `patch`: fix's
    change as a patch of the user's .cu (jsonout.patch_json)."""
    return {
        "kind": "report", "kernel": r.kernel,
        "analysis": analysis if analysis is not None else jsonout.analyze_json(r, None),
        "sources": sources(located(r, kernel, hazards)),
        "explanations": explanations(r),
        "layouts": layouts(kernel, r, params, fix, r.arch) if kernel is not None else [],
        "fix": None if fix is None else jsonout.fix_summary_json(fix),
        "patch": patch,
        "hazards": None if hazards is None else jsonout.hazards_json(hazards),
        "occupancy": None if occupancy is None else jsonout.occupancy_json(occupancy, curves),
        "notes": list(notes),
    }

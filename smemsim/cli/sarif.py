"""SARIF 2.1.0 for code scanning (`--sarif FILE` of analyze and check): one result per site
over the gate's threshold and per hazard, located at its source line, so that a CI's code
scanning shows them on the pull request (docs/ci.md)."""
from __future__ import annotations

import json
import os

from .phrases import count_caveat, is_estimate, shown_statement, sites_word

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

RULES = {
    "bank-conflict": "A shared-memory access site spends more wavefronts than its bytes need "
                     "(bank conflicts).",
    "shared-race": "Two accesses of one shared-memory element by different threads with no "
                   "barrier between them, at least one a write.",
    "fault": "A launch fault: an out-of-bounds or misaligned access, a divergent barrier, an "
             "uninitialized read, a copy still in flight.",
    "launch-limit": "The launch exceeds a limit of the architecture.",
}


def _location(loc) -> list[dict]:
    """A SARIF location list for a SourceLoc (none when the source is unknown)."""
    if loc is None or not loc.file:
        return []
    uri = os.path.relpath(loc.file) if not os.path.relpath(loc.file).startswith("..") \
        else loc.file
    region = {"startLine": loc.line}
    if loc.column:
        region["startColumn"] = loc.column
    return [{"physicalLocation": {"artifactLocation": {"uri": uri.replace(os.sep, "/")},
                                  "region": region}}]


def _result(rule: str, level: str, text: str, loc) -> dict:
    out = {"ruleId": rule, "level": level, "message": {"text": text},
           "locations": _location(loc)}
    if loc is not None and loc.calls:
        # the calls the line was inlined at: where the code review should look too
        inlined = ", ".join(f"inlined at {os.path.basename(f)}:{line}" for f, line in loc.calls)
        out["message"]["text"] += f" (in {loc.function}, {inlined})" if loc.function else \
            f" ({inlined})"
        out["relatedLocations"] = [
            {"id": n, "message": {"text": "inlined at"}, **where[0]}
            for n, (f, line) in enumerate(loc.calls)
            if (where := _location(type(loc)(f, line)))]
    return out


def site_results(report, threshold: float | None) -> list[dict]:
    """Source places with excess wavefronts, one result a place (the copies of an unrolled
    line together): with the --fail-on-excess gate (`threshold`), each place whose excess is
    over `threshold` x its ideal, an error where the kernel fails the gate (its exit is 1),
    else a warning (a hot place in a kernel the gate passes); without it, every place with
    any excess, as a warning. The levels and the exit code agree."""
    return [r for r, _ in _place_results(report, threshold)]


def _place_results(report, threshold: float | None) -> list[tuple[dict, list]]:
    """(result, its sites) of each place site_results reports."""
    failing = threshold is not None and report.excess_ratio > threshold
    places: dict = {}
    for s in report.sites:
        if s.excess:
            places.setdefault((s.loc.file, s.loc.line, s.loc.column, s.loc.calls), []).append(s)
    out = []
    for sites in places.values():
        excess, ideal = sum(s.excess for s in sites), sum(s.ideal for s in sites)
        requests = sum(s.requests for s in sites)
        ratio = excess / ideal if ideal else float("inf")
        over = threshold is not None and ratio > threshold
        if threshold is not None and not over:
            continue
        caveat = count_caveat(sites)
        first = sites[0]
        which = sites_word(sites) + (f" (one line, {_copies(sites)})" if len(sites) > 1
                                     else "")
        result = _result(
            "bank-conflict", "error" if over and failing else "warning",
            f"{report.kernel}: {which}, `{shown_statement(first)}`: {excess:,} excess "
            "wavefronts over "
            f"{requests:,} requests ({(excess + ideal) / requests if requests else 0:.2f} "
            f"wavefronts per request, excess {ratio:.2f} x ideal)" +
            (f" ({caveat})" if caveat else ""), first.loc)
        # (what a gate reads besides the text: the numbers, and what kind of count they are)
        result["properties"] = {
            "excess": excess, "ideal": ideal, "requests": requests,
            "sites": [s.site for s in sites],
            "at_least": any(s.at_least for s in sites),
            "estimate": not any(s.at_least for s in sites) and any(map(is_estimate, sites)),
            "data_dependent": any(s.data_dependent for s in sites)}
        out.append((result, sites))
    return out


def _copies(sites) -> str:
    """`4 copies` of one access, or `3 accesses` where the line's sites differ (two loads
    and a store of one statement)."""
    kinds = {(s.op, s.width, s.array) for s in sites}
    return f"{len(sites)} copies" if len(kinds) == 1 else f"{len(sites)} accesses"


def hazard_results(h) -> list[dict]:
    """Every race, fault and exceeded limit of a check, as errors (a same-value race is a
    warning)."""
    out = [_result("fault", "error", f.message + (f" (and {f.blocks - 1} more block(s))"
                                                  if f.blocks > 1 else ""), f.loc)
           for f in h.faults]
    # (one result a pair of source places: the build's copies of the lines are one bug)
    out += [_race_result(r, n, "error") for r, n in h.by_place()]
    out += [_race_result(r, n, "warning") for r, n in h.by_place(h.same_value)]
    out += [_result("launch-limit", "error", f"{h.kernel}: {text}", None) for text in h.limits]
    return out


def _race_result(race, copies: int, level: str) -> dict:
    """A race at its second access's place, the first access's place a related location
    (a code review shows both lines: the barrier goes between them)."""
    out = _result("shared-race", level, race.describe(copies), race.second_loc)
    other = _location(race.first_loc)
    if other and other[0] != (out["locations"] or [None])[0]:
        related = out.setdefault("relatedLocations", [])
        related.append({"id": len(related), "message": {"text": "the other access"},
                        **other[0]})
    return out


def document(results: list[dict], version: str) -> dict:
    """The SARIF log of one run of smemsim."""
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {
            "name": "smemsim", "version": version,
            "rules": [{"id": k, "shortDescription": {"text": v}} for k, v in RULES.items()]}},
        "results": results}]}


def claim(args, verb: str) -> None:
    """--sarif's file, claimed before the work (smemsim.cli.outputs)."""
    from . import outputs
    outputs.claim(args.sarif, "--sarif", args, verb,
                  ours=lambda data: b'"name": "smemsim"' in data[:4096])


def write(path: str, results: list[dict]) -> None:
    """Write the SARIF log whole (smemsim.cli.outputs.write)."""
    from . import _version, outputs
    outputs.write(path, json.dumps(document(results, _version()), indent=1) + "\n", "--sarif")


def gcc_lines(results: list[dict]) -> list[str]:
    """The results as compilers write diagnostics (`--format gcc`), which editors' problem
    matchers and quickfix lists read: `FILE:LINE:COL: warning: MESSAGE [smemsim:RULE]`,
    `smemsim: error: ...` where a result has no place."""
    out = []
    for r in results:
        where = r["locations"][0]["physicalLocation"] if r["locations"] else None
        place = "smemsim"
        if where is not None:
            region = where["region"]
            place = f"{where['artifactLocation']['uri']}:{region['startLine']}" + (
                f":{region['startColumn']}" if "startColumn" in region else "")
        text = " ".join(r["message"]["text"].split())
        out.append(f"{place}: {r['level']}: {text} [smemsim:{r['ruleId']}]")
    return out


def merge_files(out: str, paths: list[str]) -> None:
    """One SARIF log of smemsim's logs at `paths` (one run, every result), written to `out`
    (code scanning takes one run per tool and category)."""
    from . import _version, outputs
    results = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            results += [r for run in json.load(f)["runs"] for r in run["results"]]
    outputs.write(out, json.dumps(document(results, _version()), indent=1) + "\n", "--sarif")


def fix_results(f, patch) -> list[dict]:
    """fix's findings: a `bank-conflict` warning for each site with excess wavefronts of the
    arrays fix searched, each carrying, where fix's checked patch changes the site's array,
    that patch as a SARIF fix (the replacements that turn the file into the patched one:
    what an editor's SARIF viewer applies)."""
    changed = {c.array for c in f.best}
    fixes = _fixes(patch) if patch is not None and hasattr(patch, "patch") else None
    out = []
    for r, sites in _place_results(f.baseline, None):
        if fixes is not None and any(s.shown in changed for s in sites):
            r["fixes"] = fixes
        out.append(r)
    return out


def _fixes(checked) -> list[dict]:
    """A checked patch (smemsim.cli.fixpatch.CheckedPatch) as SARIF `fixes`: line-range
    replacements of the original text (a change reaching the file's end: by characters)."""
    import difflib
    p = checked.patch
    old, new = p.original.splitlines(keepends=True), p.patched.splitlines(keepends=True)
    starts = [0]
    for line in old:
        starts.append(starts[-1] + len(line))
    replacements = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        region = {"startLine": i1 + 1, "startColumn": 1, "endLine": i2 + 1, "endColumn": 1} \
            if i2 < len(old) else {"charOffset": starts[i1], "charLength": starts[i2] - starts[i1]}
        replacements.append({"deletedRegion": region,
                             "insertedContent": {"text": "".join(new[j1:j2])}})
    uri = {"uri": (os.path.relpath(p.file) if not os.path.relpath(p.file).startswith("..")
                   else p.file).replace(os.sep, "/")}
    return [{"description": {"text": "smemsim fix: " + "; ".join(p.edits)},
             "artifactChanges": [{"artifactLocation": uri, "replacements": replacements}]}]

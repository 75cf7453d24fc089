"""JSON for scripts: the same numbers as the terminal views, under a versioned schema.

Schema "smemsim/1" (docs/json.md describes every field). Additions keep the version; any
change of meaning or removal bumps it.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from kernels_ir.errors import loop_key

from .outputs import PATCH_COMMENT, seal
from .phrases import is_estimate, shown_statement

if TYPE_CHECKING:  # annotations only: building JSON needs none of these imported
    from gpu_backend.compile import Compiled
    from gpu_backend.device import GpuRun
    from gpu_backend.measure import Agreement

    from ..launch.analysis import Report
    from ..engine.banks import WarpRequest
    from ..search.fix import FixSearch
    from ..launch.hazards import HazardReport
    from ..launch.layoutmap import LayoutMap
    from ..launch.occupancy import Curve, Occupancy
    from ..search.sweep import SweepResult

SCHEMA = "smemsim/1"


def report_json(r: Report) -> dict[str, Any]:
    """An analyze report."""
    return {
        "kind": "analysis", "kernel": r.kernel, "arch": r.arch, "rules": r.rules,
        "params": dict(r.params), "grid": list(r.grid), "block": list(r.block),
        "static_smem": r.static_smem, "dynamic_smem": r.dynamic_smem, "mode": r.mode,
        "sites": [{
            "site": s.site, "file": s.loc.file, "line": s.loc.line, "statement": shown_statement(s), "ir": s.statement,
            "source": s.loc.text,
            # the calls the line was inlined at, innermost first (a helper's line)
            "calls": [{"file": f, "line": n} for f, n in s.loc.calls],
            "function": s.loc.function,
            "array": s.array, "variable": s.variable, "op": s.op, "width": s.width,
            "requests": s.requests,
            "wavefronts": s.wavefronts, "ideal": s.ideal, "excess": s.excess,
            "share": s.share, "data_dependent": s.data_dependent,
            "retry_loop": s.retry_loop, "at_least": s.at_least, "estimate": is_estimate(s),
            "as_stated": s.as_stated,
            "matrices": s.matrices, "classes": _classes(s.classes),
            "tma": None if s.tma is None else dataclasses.asdict(s.tma),
            "histogram": [{"wavefronts": w, "requests": n} for w, n in s.histogram],
            "worst": None if s.worst is None else {
                "offsets": list(s.worst.offsets), "wavefronts": s.worst.wavefronts,
                "ideal": s.worst.ideal, "block": list(s.worst.where.block),
                "warp": s.worst.where.warp,
                "iterations": {loop_key(k): v for k, v in s.worst.where.iterations}},
        } for s in r.sites],
        "load": dataclasses.asdict(r.load) | {"excess": r.load.excess},
        "store": dataclasses.asdict(r.store) | {"excess": r.store.excess},
        "classes": _classes(r.classes),
        "excess_ratio": r.excess_ratio,
    } | ({"as_compiled": {"widths": dict(r.compiled_widths), "notes": list(r.compiler),
                          "uncounted": r.uncounted}}
         if r.as_compiled else {"compiler_notes": list(r.compiler)} if r.compiler else {}) \
      | ({"notes": list(r.notes)} if r.notes else {})


def _classes(classes) -> dict[str, Any]:
    """Per Nsight instruction class: requests (instructions), wavefronts, ideal, excess."""
    return {c: dataclasses.asdict(t) | {"excess": t.excess} for c, t in classes.items()}


def analyze_json(r: Report, occ: Occupancy | None) -> dict[str, Any]:
    """An analyze verb's entry: the report and its occupancy (None without --regs)."""
    return report_json(r) | {"occupancy": None if occ is None else occupancy_json(occ)}


def request_json(req: WarpRequest) -> dict[str, Any]:
    """An explained warp request."""
    return {
        "kind": "request", "width": req.width, "op": req.op, "arch": req.arch,
        "rules": req.rules, "offsets": list(req.offsets), "wavefronts": req.wavefronts,
        "ideal": req.ideal, "excess": req.excess,
        "merge": {"applies": req.merge.applies, "condition": req.merge.condition,
                  "reason": req.merge.reason},
        "groups": [{
            "name": g.name, "lanes": list(g.lanes), "active": list(g.active),
            "wavefronts": g.wavefronts, "ideal": g.ideal, "first_wavefront": g.first_wavefront,
            "banks": [{"bank": b.bank, "words": [{"word": w.word, "lanes": list(w.lanes),
                                                  "wavefront": w.wavefront} for w in b.words]}
                      for b in g.banks]} for g in req.groups],
        "lane_wavefronts": [list(w) for w in req.lane_wavefronts],
    }


def occupancy_json(o: Occupancy, curves: tuple[Curve, ...] = ()) -> dict[str, Any]:
    """An occupancy result, with what-if curves when given."""
    out = {"kind": "occupancy"} | {k: v for k, v in dataclasses.asdict(o).items()}
    out["limiters"] = list(o.limiters)
    out["limits"] = dict(o.limits)
    out["curves"] = [{"knob": c.knob, "x": list(c.xs), "occupancy": list(c.occupancy),
                      "active_warps": list(c.active_warps), "current": c.current}
                     for c in curves]
    return out


def document(items: list[dict[str, Any]], **extra) -> dict[str, Any]:
    """The top-level JSON object every verb prints."""
    return {"schema": SCHEMA, "results": items, **extra}


def error_json(err: Exception, message: str, exit_code: int) -> dict[str, Any]:
    """A failure: its kind (input or internal), message, and where, when the error knows."""
    out = {"kind": "input" if exit_code == 2 else "internal", "type": type(err).__name__,
           "message": message, "kernel": getattr(err, "kernel", None), "file": None,
           "line": None}
    loc = getattr(err, "loc", None)
    if loc is not None:
        out |= {"file": loc.file, "line": loc.line}
    for key in ("block", "thread"):
        value = getattr(err, key, None)
        if value is not None:
            out[key] = list(value)
    if getattr(err, "iterations", None):
        out["iterations"] = {loop_key(k): v for k, v in dict(err.iterations).items()}
    return out


def sweep_json(result: SweepResult, front) -> dict[str, Any]:
    """A sweep: every point in product order, its rank (null: not analyzed) and whether it
    is on the Pareto front."""
    rank = {id(r): n for n, r in enumerate(result.ranked(), 1)}
    on_front = {id(r) for r in front}
    return {"kind": "sweep", "kernel": result.kernel, "cached": result.cached,
            "points": [{
                "params": dict(r.point.params), "arch": r.point.arch,
                "layouts": [{"array": x.array, "pad": x.pad,
                             "swizzle": list(x.swizzle) if x.swizzle else None}
                            for x in r.point.layouts],
                "requests": r.requests, "wavefronts": r.wavefronts, "ideal": r.ideal,
                "excess": r.excess, "smem_per_block": r.smem_per_block,
                "smem_blocks": r.smem_blocks, "registers": r.registers,
                "active_warps": r.active_warps, "active_blocks": r.active_blocks,
                "warps_at_most": r.warps_at_most,
                "occupancy": r.occupancy, "rank": rank.get(id(r)), "pareto": id(r) in on_front, "error": r.error,
            } for r in result.results]}


def fix_json(f: FixSearch) -> dict[str, Any]:
    """A fix search: baseline, candidates (best first) and the per-array best together."""
    cand = lambda c: {"array": c.array, "variable": c.variable or c.array,  # noqa: E731
                      "kind": c.kind, "label": c.label, "pad": c.pad,
                      "swizzle": None if c.swizzle is None else list(c.swizzle),
                      "wavefronts": c.wavefronts, "excess": c.excess,
                      "extra_smem": c.extra_smem, "active_warps": c.active_warps,
                      "smem_blocks": c.smem_blocks, "builder": c.builder,
                      "cuda_index": c.cuda_index, "tma": c.tma, "maps": list(c.maps),
                      "requests": c.requests}
    return {"kind": "fix", "kernel": f.kernel, "baseline": report_json(f.baseline),
            "baseline_warps": f.baseline_warps, "baseline_smem_blocks": f.baseline_smem_blocks,
            "arrays": list(f.arrays), "built": f.built,
            "skipped": list(f.skipped), "best": [cand(c) for c in f.best],
            "candidates": [cand(c) for c in f.candidates],
            "combined": None if f.combined is None else {
                "wavefronts": f.combined.wavefronts, "excess": f.combined.excess,
                "active_warps": f.combined_warps}}


def fix_summary_json(f: FixSearch) -> dict[str, Any]:
    """A fix search as a report holds it: fix_json without the candidates and with the
    baseline's totals per class only (the report's own analysis is the baseline; `fix
    --json` has the rest)."""
    out = fix_json(f)
    out["tried"] = len(out.pop("candidates"))
    base = out["baseline"]
    out["baseline"] = {"kind": base["kind"], "classes": base["classes"]}
    return out


def layout_json(m: LayoutMap) -> dict[str, Any]:
    """A shared array's bank grid (smemsim.launch.layoutmap), with a warp request marked."""
    req = m.request
    return {"kind": "layout", "kernel": m.kernel, "array": m.array, "dtype": m.dtype,
            "element_bytes": m.element_bytes, "shape": list(m.shape), "label": m.label,
            "rows": m.rows, "cols": m.cols, "banks": [list(r) for r in m.banks],
            "request": None if req is None else {
                "site": req.site, "line": req.line, "wavefronts": req.wavefronts,
                "ideal": req.ideal, "excess": req.excess,
                "cells": [list(c) for c in req.cells]}}


def _built_json(b) -> dict[str, Any] | None:
    """A file as nvcc builds it (smemsim.cli.fixpatch.Built), or null: not built."""
    return None if b is None else {"registers": b.registers, "active_warps": b.active_warps,
                                   "wavefronts": b.wavefronts, "uncounted": b.uncounted}


def patch_json(p) -> dict[str, Any]:
    """fix's change as a patch of the user's .cu (or why there is none), with its checks."""
    if hasattr(p, "reason"):
        return {"error": p.reason}
    built = _built_json
    # the diff as --patch writes it: sealed, so that a later --patch may replace it
    return {"file": p.patch.file, "diff": seal(p.patch.diff, PATCH_COMMENT),
            "edits": list(p.patch.edits),
            "predicted_wavefronts": p.predicted, "counted_wavefronts": p.counted,
            "hazards": p.hazards,
            "as_built": {"original": built(p.original), "patched": built(p.patched),
                         "note": p.build_note}, "error": None}


def shape_json(x) -> dict[str, Any]:
    """fix: the kernel at another block shape (its block is a parameter of the launch)."""
    return {"params": dict(x.params), "block": list(x.block), "requests": x.requests,
            "wavefronts": x.wavefronts, "excess": x.excess, "error": x.error}


def hazards_json(h: HazardReport) -> dict[str, Any]:
    """A hazard check: races, faults and limits, each with its location."""
    race = lambda r: {"first": r.first, "second": r.second,
                      "first_line": f"{r.first_loc}", "second_line": f"{r.second_loc}",
                      "first_loc": _loc(r.first_loc), "second_loc": _loc(r.second_loc),
                      "kind": r.kind, "block": list(r.block),
                      "threads": [list(t) for t in r.threads], "array": r.array,
                      "element": list(r.element), "byte": r.byte, "interval": r.interval,
                      "same_warp": r.same_warp, "message": r.describe()}
    return {"kind": "hazards", "kernel": h.kernel, "params": h.params, "clean": h.clean,
            "races": [race(r) for r in h.races],
            # (the warnings: same-value stores, plain reads of words changed atomically)
            "same_value_races": [race(r) | {"warning": r.warning} for r in h.same_value],
            "faults": [{"kind": f.kind, "message": f.message, "blocks": f.blocks,
                        "loc": _loc(f.loc)} for f in h.faults],
            "limits": list(h.limits),
            "concurrent_sites": [list(p) for p in h.concurrent_sites],
            "blocks_checked": h.blocks_checked, "blocks_total": h.blocks_total,
            "unchecked": h.unchecked, "method": h.method,
            "runs": [{"what": what, "blocks": n} for what, n in h.runs]}


def _loc(loc) -> dict[str, Any] | None:
    """A source location as data: file and line (null when unknown)."""
    return None if loc is None else {"file": loc.file, "line": loc.line}


def import_json(file: str, kernels: list, source: str, output: str | None) -> dict[str, Any]:
    """An imported CUDA file: its kernels and the kernels file's text."""
    return {"kind": "import", "file": file, "kernels": kernels, "source": source,
            "output": output}


def cuda_json(key: str, source: str) -> dict[str, Any]:
    """Generated CUDA source."""
    return {"kind": "cuda", "kernel": key, "source": source}


def compile_json(c: Compiled, rerun: Report | None) -> dict[str, Any]:
    """An NVRTC compile: resources, the SASS check per site, the re-analysis if needed."""
    out = {"kind": "compile", "kernel": c.kernel, "arch": c.arch, "registers": c.registers,
           "local_bytes": c.local, "stack_bytes": c.stack, "static_smem": c.static_smem,
           "widths_ok": c.widths_ok,
           "sites": [{"site": s.site, "ok": s.ok, "stated_width": s.width,
                      "found": [a.opcode for a in s.found], "why": s.describe()}
                     for s in c.sites],
           "unattributed": [a.opcode for a in c.unattributed],
           "compiled_widths": dict(rerun.compiled_widths) if rerun is not None else {}}
    if rerun is not None:
        out["compiled_analysis"] = report_json(rerun)
    return out


def own_build_json(kernel, build, rerun: Report) -> dict[str, Any]:
    """A kernel read from its own build (kernels_ir.BuildResources: a .cu as nvcc builds
    it): resources, per site the width counted, and the analysis of what it emitted."""
    widths = dict(rerun.compiled_widths)
    return {"kind": "compile", "kernel": kernel.name, "arch": build.arch,
            "registers": build.registers, "stack_bytes": build.stack,
            "spill_store_bytes": build.spill_stores, "spill_load_bytes": build.spill_loads,
            "static_smem": build.static_smem, "barriers": build.barriers,
            "symbol": build.symbol,
            "widths_ok": not widths,
            "sites": [{"site": s.site, "ok": s.site not in widths,
                       "stated_width": s.access_bytes,
                       "counted_width": widths.get(s.site, s.access_bytes)}
                      for s in kernel.sites()],
            "notes": list(rerun.compiler), "compiled_widths": widths,
            "compiled_analysis": report_json(rerun)}


def gpu_run_json(r: GpuRun) -> dict[str, Any]:
    """A GPU launch compared with the interpreter."""
    return {"kind": "run", "kernel": r.kernel, "device": r.device, "arch": r.arch,
            "matches": r.matches, "mismatches": [m.detail for m in r.mismatches],
            "registers": r.registers, "driver_blocks_per_sm": r.driver_blocks_per_sm}


def agreement_json(a: Agreement) -> dict[str, Any]:
    """Predicted against measured counters."""
    return {"kind": "validation", "kernel": a.kernel, "ok": a.ok,
            "rows": [{"what": c.what, "predicted": c.predicted, "measured": c.measured}
                     for c in a.checks], "unmeasured": list(a.unmeasured)}


def layout_reads_json(r) -> dict[str, Any]:
    """A CuTe layout's tile and its reads (smemsim.launch.layout_reads)."""
    return {"kind": "layout_reads", "layout": r.layout, "rows": r.rows, "cols": r.cols,
            "element_bytes": r.element_bytes, "span_bytes": r.span_bytes,
            "reads": [{"name": x.name, "op": x.op, "width": x.width,
                       "offsets": list(x.offsets), "wavefronts": x.wavefronts,
                       "ideal": x.ideal, "excess": x.excess, "why_not": x.why_not}
                      for x in r.reads]}


def comparison_json(c, report_path: str) -> dict[str, Any]:
    """ncu: a profiled kernel's counters against the prediction, line by line
    (smemsim.hardware.measured.KernelComparison)."""
    classes = sorted({x.kind for x in c.lines})
    return {"kind": "ncu_comparison", "report": report_path, "kernel": c.kernel,
            "grid": list(c.grid), "block": list(c.block), "placed": c.placed,
            "totals": {k: dict(zip(("measured_requests", "predicted_requests",
                                    "measured_wavefronts", "predicted_wavefronts"),
                                   c.total(k))) for k in classes},
            "lines": [{"file": x.file, "line": x.line, "class": x.kind,
                       "measured_requests": x.measured_requests,
                       "predicted_requests": x.predicted_requests,
                       "measured_wavefronts": x.measured_wavefronts,
                       "predicted_wavefronts": x.predicted_wavefronts,
                       "measured_ideal": x.measured_ideal, "predicted_ideal": x.predicted_ideal,
                       "verdict": x.verdict, "why": x.why} for x in c.lines]}

"""`smemsim report`: one self-contained HTML page of a file's kernels (smemsim.cli.page)."""
from __future__ import annotations

import json
import os
import pathlib
import re

from rich.console import Console

from kernels_ir import KernelError, KernelRuntimeError

from ...launch.analysis import analyze
from .. import figures, jsonout, outputs, page
from ..common import (
    EXIT_INPUT, EXIT_OK, as_compiled_noop, build_or_explain, busy,
    input_sources, inputs, kernels, launch_bound, launch_faulted, occupancy_of, own_params,
    print_json, say,
)
from ..fixpatch import checked_patch, patchable, predicted_wavefronts, source_of
from ..options import add_common, add_jobs, add_kernels, add_loop_limit, add_regs, parse_params
from ..reportdoc import report_item

HELP = "an HTML page: source heat view, bank maps, layouts, fixes, occupancy, hazards"
EXAMPLES = """\
  smemsim report examples/transpose.cu --regs compile -o transpose.html
  smemsim report matmul_128x128 --regs 128 --no-check -o gemm.html --svg figures/
  smemsim report kernel.cu --sweep-result sweep.json -o kernel.html   (sweep --json's file)"""

MARK = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"


def add_arguments(p) -> None:
    """report's options."""
    add_common(p)
    add_kernels(p)
    p.add_argument("-o", "--output", metavar="FILE.html",
                   help="write the page there (needed unless --json); an existing file is "
                        "replaced only if it is a page smemsim wrote, or with --force")
    p.add_argument("--force", action="store_true",
                   help="replace an existing -o file whatever it holds")
    add_regs(p, "registers per thread for the occupancy curves, or 'compile' for the count "
                "of the build (the default for a .cu; without it a kernels file's page has "
                "no occupancy)")
    p.add_argument("--as-compiled", action="store_true",
                   help="count what the compiler emitted, as analyze --as-compiled does")
    p.add_argument("--no-check", action="store_true",
                   help="leave out the hazard check (it walks the launch's blocks)")
    p.add_argument("--no-fix", action="store_true",
                   help="leave out the search for paddings and swizzles")
    p.add_argument("--ncu", metavar="REPORT.ncu-rep",
                   help="an Nsight Compute report of the same launch (SourceCounters): each "
                        "kernel's page shows its measured counters line by line against the "
                        "prediction, what differs attributed (as smemsim ncu)")
    p.add_argument("--sweep-result", metavar="FILE.json",
                   help="add a scatter of the points of `smemsim sweep --json`'s output")
    p.add_argument("--svg", metavar="DIR",
                   help="also write every figure as its own .svg file into DIR")
    add_jobs(p)
    add_loop_limit(p)


def execute(args, console: Console) -> int:
    """Analyze, explain, check and fix every selected kernel, then write the page."""
    if not args.output and not args.json:
        raise KernelError("report needs -o FILE.html (or --json for the page's data)")
    if args.output:
        _refuse(args)
    if args.svg:
        _svg_folder(args.svg)
    sweep = _sweep(args.sweep_result) if args.sweep_result else None
    if args.regs is None:
        from ...frontends.loader import is_cuda
        if is_cuda(args.file):
            args.regs = "compile"   # (a .cu is read from nvcc's build: its registers are
            #                          known, as occupancy takes them)
    for note in as_compiled_noop(args):
        if not args.json:
            say(console, note)
    given = parse_params(args.param)
    items = []
    if args.ncu:   # (read once, for every kernel's page)
        from ...hardware.ncu_reports import read_report
        profiled = read_report(args.ncu)
    else:
        profiled = None
    chosen = kernels(args)
    for name, kernel in chosen:
        params = own_params(given, kernel, chosen)
        try:
            items.append(_item(args, console, name, kernel, params, profiled))
        except KernelRuntimeError as err:
            # (the page is made of the others, as analyze counts them)
            launch_faulted(args, name, kernel, err, chosen,
                           "the launch faults, so it has no page")
    if not items:   # (each kernel's fault is said on stderr, after this)
        import sys
        print("error: no page written: every kernel's launch faults", file=sys.stderr)
        return EXIT_INPUT
    document = jsonout.document(items, exit_code=EXIT_OK, **({"sweep": sweep} if sweep else {}))
    if args.svg:
        written = _write_svgs(args, document)
        if not args.json:
            say(console, f"wrote {written} figure(s) into {args.svg}")
    if args.output:
        outputs.write(args.output, page.render(document, f"smemsim report: {args.file}"), "-o")
        if not args.json:
            say(console, f"wrote {args.output} ({len(items)} kernel(s)): open it in a browser")
    if args.json:
        print_json(console, items, **({"sweep": sweep} if sweep else {}))
    return EXIT_OK


def _item(args, console: Console, name: str, kernel, params: dict, profiled=None) -> dict:
    """One kernel's report item: analysis, occupancy and curves, check, fix."""
    from ...launch.occupancy import what_if
    from .analyze import as_compiled_report
    arrays = inputs(args, name, kernel, params)
    compiled = None
    if args.as_compiled or args.regs == "compile":
        with busy(console, args, f"compiling {kernel.name}"):
            compiled = build_or_explain(args, name, kernel, "--as-compiled" if args.as_compiled
                                        else "--regs compile")
    with busy(console, args, f"tracing {kernel.name}"):
        r = as_compiled_report(kernel, params, args.arch, arrays, compiled, args.loop_limit) \
            if args.as_compiled else analyze(kernel, params, arch=args.arch, arrays=arrays,
                                             loop_limit=args.loop_limit)
        occ = occupancy_of(kernel, args.arch, args.regs, params, compiled=compiled) \
            if args.regs is not None else None
    hazards = fix = None
    if not args.no_check:
        from ...launch.hazards import check
        with busy(console, args, f"checking {kernel.name}"):
            hazards = check(kernel, params, arch=args.arch, arrays=arrays,
                            loop_limit=args.loop_limit)
    if not args.no_fix and r.excess:
        from ...search.fix import search
        with busy(console, args, f"searching fixes for {kernel.name}"):
            registers = occ.registers_per_thread if occ is not None else None
            if patchable(args.file):   # each change patched into the file and built
                from ...search.fix_built import search_source
                fix = search_source(kernel, source_of(args, name), params, arch=args.arch,
                                    registers=registers, arrays=arrays, jobs=args.jobs,
                                    baseline=r, few=True)
            else:   # the analysis above is search's baseline, unless it counted the build
                fix = search(kernel, params, arch=args.arch, arrays=arrays, jobs=args.jobs,
                             registers=registers, baseline=None if args.as_compiled else r)
    patch = None
    if fix is not None and fix.best and patchable(args.file):
        with busy(console, args, f"writing and checking the patch of {kernel.name}"):
            patch = jsonout.patch_json(checked_patch(args, name, kernel, fix.best,
                                                     predicted_wavefronts(fix), params, arrays,
                                                     fix.baseline.wavefronts))
    sources = input_sources(args, name, kernel) if r.mode == "full" else None
    analysis = jsonout.analyze_json(r, occ) | {"inputs": sources}
    item = report_item(r, analysis=analysis, kernel=kernel, params=params, occupancy=occ,
                       curves=what_if(occ, launch_bound(kernel)) if occ is not None else (),
                       fix=fix,
                       hazards=hazards, notes=tuple(r.compiler) + tuple(r.notes),
                       patch=patch)
    if args.ncu:
        item["ncu"] = _measured(args, name, kernel, r, profiled)
    return item


def _measured(args, name: str, kernel, r, profiled: list) -> dict:
    """The --ncu report's kernel (of `profiled`, the report's kernels) against this analysis
    (jsonout.comparison_json), or why there is none: the report has no such kernel, or
    profiled another launch."""
    from ...hardware.measured import compare
    from .ncu import _sass
    symbol = kernel.built.symbol if kernel.built is not None else None
    found = [m for m in profiled if m.mangled == symbol or m.name == kernel.name]
    if not found:
        return {"error": f"{args.ncu} has no profile of {kernel.name}"}
    m = found[0]
    if (m.grid, m.block) != (tuple(r.grid), tuple(r.block)):
        return {"error": f"{args.ncu} profiled {kernel.name} at grid {m.grid}, block "
                         f"{m.block}; this page's launch is grid {tuple(r.grid)}, block "
                         f"{tuple(r.block)} (give the profiled one with --launch-grid and "
                         "--launch-block)"}
    c = compare(m, r, kernel.notes, _sass(args, name, kernel))
    return jsonout.comparison_json(c, args.ncu) | {"error": None}


def _refuse(args) -> None:
    """-o must not replace an input, nor a file that is not a page smemsim wrote (unless
    --force): a typo there would lose it."""
    if pathlib.Path(args.output).suffix.lower() in (*outputs.SOURCE_SUFFIXES, ".json"):
        raise KernelError(f"-o {args.output}: the page is HTML; give a .html name (it would "
                          "replace a source or data file)")
    outputs.claim(args.output, "-o", args, "report", ours=lambda data: data.startswith(
        MARK.encode()))


def _sweep(path: str) -> dict:
    """The sweep of a `smemsim sweep --json` document, checked field by field before the
    page reads any of it (figures.sweep_svg: the kernel, and per point its error,
    wavefronts, excess, occupancy, params, layouts and pareto; --json writes the whole sweep
    back): a malformed file is one line naming the field, never a traceback. Counts are
    integers from 0 to 2^63 - 1, occupancy a number from 0 to 1, params names to finite
    numbers; NaN and infinities are refused wherever they stand."""
    import math
    big = 2 ** 63

    def shown(value) -> str:
        if isinstance(value, (dict, list)):
            return "an object" if isinstance(value, dict) else "a list"
        if isinstance(value, str):
            return repr(value[:40] + ("..." if len(value) > 40 else ""))
        return "null" if value is None else str(value).lower() if isinstance(value, bool) \
            else f"{value:.6g}" if isinstance(value, float) else \
            str(value) if abs(value) < 10 ** 30 else f"an integer of {len(str(value))} digits"

    def refuse(where: str, what: str):
        return KernelError(f"--sweep-result {path}: {where} {what}")

    def finite(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"the number {text} is out of range")
        return value

    def no_constant(text: str):
        raise ValueError(f"{text} is not a number JSON has")

    from ...cache import read_regular
    try:
        # a regular file only (a FIFO would hang the read, /dev/zero never end)
        data = read_regular(os.path.realpath(path), 256 * 2 ** 20)   # (a link's target)
        if data is None:
            raise ValueError("not a regular file of at most 256 MiB (no sweep writes more)")
        doc = json.loads(data.decode("utf-8"), parse_float=finite, parse_constant=no_constant)
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise KernelError(f"--sweep-result {path}: not a JSON file smemsim can read ({err})"
                          ) from None
    except (RecursionError, MemoryError):
        raise KernelError(f"--sweep-result {path}: not a JSON file smemsim can read (nested "
                          "too deeply or too large)") from None
    results = doc.get("results") if isinstance(doc, dict) and \
        doc.get("schema") == jsonout.SCHEMA else None
    at = next((n for n, r in enumerate(results) if isinstance(r, dict) and
               r.get("kind") == "sweep"), None) if isinstance(results, list) else None
    if at is None:
        raise KernelError(f"--sweep-result {path}: not the output of `smemsim sweep --json` "
                          f"(schema {jsonout.SCHEMA} with a result of kind 'sweep')")
    s = results[at]
    here = f"results[{at}]"

    def count(where: str, value, least: int = 0, null: bool = False):
        if value is None and null:
            return
        if isinstance(value, bool) or not isinstance(value, int) or \
                not least <= value < big:
            raise refuse(where, f"is {shown(value)}, not an integer from {least} "
                                f"to 2^63 - 1{' (or null)' if null else ''}")

    def text(where: str, value, null: bool = False):
        if not (isinstance(value, str) or (null and value is None)):
            raise refuse(where, f"is {shown(value)}, not a string"
                                f"{' (or null)' if null else ''}")

    text(f"{here}.kernel", s.get("kernel"))
    if "cached" in s:
        count(f"{here}.cached", s["cached"])
    points = s.get("points")
    if not isinstance(points, list):
        raise refuse(f"{here}.points", f"is {shown(points)}, not a list of points")
    for n, p in enumerate(points):
        where = f"{here}.points[{n}]"
        if not isinstance(p, dict):
            raise refuse(where, f"is {shown(p)}, not a point (an object)")
        for key in ("error", "wavefronts"):
            if key not in p:
                raise refuse(where, f"has no {key!r}")
        text(f"{where}.error", p["error"], null=True)
        count(f"{where}.wavefronts", p["wavefronts"], null=True)
        drawn = p["error"] is None and p["wavefronts"] is not None
        for key in ("excess", "occupancy", "params", "pareto"):
            if drawn and key not in p:
                raise refuse(where, f"has no {key!r}")
        for key in ("requests", "ideal", "excess", "smem_per_block"):
            if key in p:
                count(f"{where}.{key}", p[key], null=not drawn or key != "excess")
        for key in ("smem_blocks", "registers", "active_warps"):
            if key in p:
                count(f"{where}.{key}", p[key], null=True)
        if "rank" in p:
            count(f"{where}.rank", p["rank"], least=1, null=True)
        if "arch" in p:
            text(f"{where}.arch", p["arch"], null=True)
        occ = p.get("occupancy")
        if occ is not None and (isinstance(occ, bool) or not isinstance(occ, (int, float))
                                or not 0 <= occ <= 1):
            raise refuse(f"{where}.occupancy", f"is {shown(occ)}, not a number "
                                               "from 0 to 1 (or null)")
        if "pareto" in p and not isinstance(p["pareto"], bool):
            raise refuse(f"{where}.pareto", f"is {shown(p['pareto'])}, not true "
                                            "or false")
        params = p.get("params", {})
        if not isinstance(params, dict):
            raise refuse(f"{where}.params", f"is {shown(params)}, not an object of "
                                            "parameter names to numbers")
        for k, v in params.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not -big <= v < big:
                raise refuse(f"{where}.params.{k}"[:200], f"is {shown(v)}, not a "
                                                          "number from -2^63 to 2^63 - 1")
        layouts = p.get("layouts")
        if layouts is None:
            continue
        if not isinstance(layouts, list):
            raise refuse(f"{where}.layouts", f"is {shown(layouts)}, not a list "
                                             "(or null)")
        for m, x in enumerate(layouts):
            lay = f"{where}.layouts[{m}]"
            if not isinstance(x, dict) or not all(k in x for k in ("array", "pad", "swizzle")):
                raise refuse(lay, f"is {shown(x)}, not an object of array, pad and "
                                  "swizzle")
            text(f"{lay}.array", x["array"])
            count(f"{lay}.pad", x["pad"])
            sw = x["swizzle"]
            if sw is not None:
                if not isinstance(sw, list) or len(sw) != 3:
                    raise refuse(f"{lay}.swizzle", f"is {shown(sw)}, not [B, M, S] "
                                                   "(or null)")
                for i, v in enumerate(sw):
                    count(f"{lay}.swizzle[{i}]", v)
    return s


def _safe(text: str) -> str:
    """A file-name part from a user's name: letters, digits, '-', '_' and '.' only."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text).strip(".") or "_"


def _svg_folder(folder: str) -> None:
    """--svg names a folder (made if missing), not a link or a file."""
    path = pathlib.Path(folder)
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise KernelError(f"--svg {folder}: not a folder (a link or a file); give a folder")


def _write_svgs(args, document: dict) -> int:
    """Every figure of the document as its own file in the --svg folder; the number
    written (every file claimed before any is written)."""
    folder = args.svg
    out = pathlib.Path(folder)
    made = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise KernelError(f"--svg {folder}: {err.strerror}") from None
    figs, used = {}, set()
    for item in document["results"]:
        k = _safe(item["kernel"])
        while k in used:  # two kernels whose names differ only in unsafe characters
            k += "_"
        used.add(k)
        for e in item["explanations"]:
            figs[f"{k}-site{e['site']}-banks.svg"] = figures.bank_map_svg(e["request"])
        for lay in item["layouts"]:
            for n, m in enumerate(lay["maps"]):
                figs[f"{k}-layout-{_safe(lay['array'])}-{n}.svg"] = figures.layout_svg(m)
        occ = item["occupancy"]
        for c in occ["curves"] if occ else ():
            figs[f"{k}-occupancy-{c['knob']}.svg"] = figures.curve_svg(
                c, ", ".join(occ["limiters"]))
    if document.get("sweep"):
        figs[f"{_safe(document['sweep']['kernel'])}-sweep.svg"] = figures.sweep_svg(
            document["sweep"])
    for name in figs:
        outputs.claim(str(out / name), "--svg", args, "report",
                      ours=lambda data: data.startswith(b"<svg"))
    try:
        for name, svg in figs.items():
            outputs.write(str(out / name), svg, "--svg")
    except KernelError:
        if made and not any(out.iterdir()):   # (a full disk: no empty folder left behind)
            out.rmdir()
        raise
    return len(figs)

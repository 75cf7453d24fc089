"""`smemsim report`: one self-contained HTML page of a file's kernels (smemsim.cli.page)."""
from __future__ import annotations

import json
import pathlib
import re

from rich.console import Console

from kernels_ir import KernelError

from ...analysis import analyze
from ...cache import write_whole
from .. import figures, jsonout, page
from ..common import (
    EXIT_OK, build_or_explain, busy, input_sources, inputs, kernels, occupancy_of, own_params,
    print_json, refuse_unless_ours, say,
)
from ..fixpatch import checked_patch, patchable, predicted_wavefronts
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
    add_kernels(p, nvcc=True)
    p.add_argument("-o", "--output", metavar="FILE.html",
                   help="write the page there (needed unless --json); an existing file is "
                        "replaced only if it is a page smemsim wrote, or with --force")
    p.add_argument("--force", action="store_true",
                   help="replace an existing -o file whatever it holds")
    add_regs(p, "registers per thread for the occupancy curves, or 'compile' for the count "
                "of the build (without it the page has no occupancy)")
    p.add_argument("--as-compiled", action="store_true",
                   help="count what the compiler emitted, as analyze --as-compiled does")
    p.add_argument("--no-check", action="store_true",
                   help="leave out the hazard check (it walks the launch's blocks)")
    p.add_argument("--no-fix", action="store_true",
                   help="leave out the search for paddings and swizzles")
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
    sweep = _sweep(args.sweep_result) if args.sweep_result else None
    given = parse_params(args.param)
    items = []
    chosen = kernels(args)
    for name, kernel in chosen:
        params = own_params(given, kernel, chosen)
        items.append(_item(args, console, name, kernel, params))
    document = jsonout.document(items, exit_code=EXIT_OK, **({"sweep": sweep} if sweep else {}))
    if args.svg:
        written = _write_svgs(args.svg, document)
        if not args.json:
            say(console, f"wrote {written} figure(s) into {args.svg}")
    if args.output:
        _write(args.output, page.render(document, f"smemsim report: {args.file}"))
        if not args.json:
            say(console, f"wrote {args.output} ({len(items)} kernel(s)): open it in a browser")
    if args.json:
        print_json(console, items, **({"sweep": sweep} if sweep else {}))
    return EXIT_OK


def _item(args, console: Console, name: str, kernel, params: dict) -> dict:
    """One kernel's report item: analysis, occupancy and curves, check, fix."""
    from ...occupancy import what_if
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
        from ...hazards import check
        with busy(console, args, f"checking {kernel.name}"):
            hazards = check(kernel, params, arch=args.arch, arrays=arrays,
                            loop_limit=args.loop_limit)
    if not args.no_fix and r.excess:
        from ...fix import search
        with busy(console, args, f"searching fixes for {kernel.name}"):
            # the analysis above is search's baseline, unless it counted the build
            fix = search(kernel, params, arch=args.arch, arrays=arrays, jobs=args.jobs,
                         registers=occ.registers_per_thread if occ is not None else None,
                         baseline=None if args.as_compiled else r)
    patch = None
    if fix is not None and fix.best and patchable(args.file):
        with busy(console, args, f"writing and checking the patch of {kernel.name}"):
            patch = jsonout.patch_json(checked_patch(args, name, kernel, fix.best,
                                                     predicted_wavefronts(fix), params, arrays))
    sources = input_sources(args, name, kernel) if r.mode == "full" else None
    analysis = jsonout.analyze_json(r, occ) | {"inputs": sources}
    return report_item(r, analysis=analysis, kernel=kernel, params=params, occupancy=occ,
                       curves=what_if(occ) if occ is not None else (), fix=fix,
                       hazards=hazards, notes=tuple(r.compiler) if args.as_compiled else (),
                       patch=patch)


def _refuse(args) -> None:
    """-o must not replace an input, nor a file that is not a page smemsim wrote (unless
    --force): a typo there would lose it."""
    out = pathlib.Path(args.output)
    if out.suffix in (".cu", ".cuh", ".h", ".hpp", ".py", ".npy", ".json"):
        raise KernelError(f"-o {args.output}: the page is HTML; give a .html name (it would "
                          "replace a source or data file)")
    if not args.force:
        refuse_unless_ours(args.output, MARK, "report")


def _write(path: str, text: str) -> None:
    """Write a file whole or not at all (a reader never sees half a page)."""
    target = pathlib.Path(path)
    try:
        if target.is_char_device():  # /dev/null, /dev/stdout: no rename possible
            target.write_text(text, encoding="utf-8")
        else:
            write_whole(target, text.encode("utf-8"))
    except OSError as err:
        raise KernelError(f"cannot write {path}: {err.strerror or err}") from None


def _sweep(path: str) -> dict:
    """The sweep of a `smemsim sweep --json` document, checked to be one."""
    try:
        doc = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise KernelError(f"--sweep-result {path}: not a JSON file smemsim can read ({err})"
                          ) from None
    sweeps = [r for r in doc.get("results", []) if isinstance(r, dict) and
              r.get("kind") == "sweep"] if isinstance(doc, dict) and \
        doc.get("schema") == jsonout.SCHEMA else []
    if not sweeps:
        raise KernelError(f"--sweep-result {path}: not the output of `smemsim sweep --json` "
                          f"(schema {jsonout.SCHEMA} with a result of kind 'sweep')")
    s = sweeps[0]
    fields = {"params": dict, "excess": int, "pareto": bool}
    for n, p in enumerate(s.get("points") or []):
        if not isinstance(p, dict) or (p.get("error") is None and not all(
                isinstance(p.get(f), t) for f, t in fields.items())):
            raise KernelError(f"--sweep-result {path}: point {n} lacks {', '.join(fields)}")
    if not isinstance(s.get("kernel"), str) or not isinstance(s.get("points"), list):
        raise KernelError(f"--sweep-result {path}: its sweep has no kernel or points")
    return s


def _safe(text: str) -> str:
    """A file-name part from a user's name: letters, digits, '-', '_' and '.' only."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text).strip(".") or "_"


def _write_svgs(folder: str, document: dict) -> int:
    """Every figure of the document as its own file in `folder`; the number written."""
    out = pathlib.Path(folder)
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
    for name, svg in figs.items():
        _write(str(out / name), svg)
    return len(figs)

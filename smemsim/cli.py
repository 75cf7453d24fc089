"""The smemsim command: analyze, explain and occupancy, as tables or JSON, with CI gates.

`run(argv, console)` does the work and returns the exit code (tests call it in-process);
`main()` is the console script. Exit codes: 0 fine, 1 a gate failed, 2 bad input.
Errors are one line naming what is wrong and where; `--debug` shows the traceback.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import traceback

from rich.console import Console

from kernels_ir import KernelError, resolve_launch
from . import jsonout, render
from .analysis import analyze
from .arch import ArchError
from .banks import RequestError, warp_request
from .loader import input_arrays, load_kernels, select
from .occupancy import OccupancyError, kernel_occupancy, occupancy, what_if

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2


def create_parser() -> argparse.ArgumentParser:
    """The top-level parser (its sub-commands are the verb parsers, for --help)."""
    p = argparse.ArgumentParser(prog="smemsim", description=(
        "Shared-memory bank conflicts and occupancy of CUDA kernels described in kernels_ir."))
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb, helptext in _VERB_HELP.items():
        sub.add_parser(verb, help=helptext, add_help=False)
    return p


_VERB_HELP = {
    "analyze": "wavefronts of every shared access site of a launch",
    "explain": "why a site's worst request costs what it does",
    "occupancy": "blocks and warps per SM, limiters, what-if curves",
    "fix": "search paddings and XOR swizzles for conflicted arrays, re-analyzing each",
    "check": "hazards: shared-memory races, divergent barriers, bounds, alignment, limits",
    "codegen": "print the CUDA C++ generated from a kernel",
    "compile": "compile with NVRTC (no GPU needed): registers, SASS width check, re-analysis",
    "run": "run on the GPU and compare every output with the interpreter",
    "validate": "run on the GPU under Nsight Compute: predicted vs measured counters",
}


def verb_parser(verb: str) -> argparse.ArgumentParser:
    """The parser of one verb."""
    p = argparse.ArgumentParser(prog=f"smemsim {verb}", description=_VERB_HELP[verb])
    p.add_argument("--arch", default="sm_90", help="architecture (default sm_90)")
    p.add_argument("--json", action="store_true", help="print JSON (schema smemsim/1)")
    if verb == "check":
        p.add_argument("file", help="a Python file with a KERNELS dict")
        p.add_argument("--kernel", help="one kernel of the file (default: all)")
        p.add_argument("--param", action="append", default=[], metavar="K=V",
                       help="a launch parameter (repeatable); defaults come from the file")
        p.add_argument("--regs", type=int, help="registers per thread, checked against the limit")
        p.add_argument("--sweep", metavar="K=START:STOP[:STEP]", type=_sweep,
                       help="check at every value of one parameter (STOP excluded)")
        return p
    if verb in ("codegen", "compile", "run", "validate"):
        p.add_argument("file", help="a Python file with a KERNELS dict")
        p.add_argument("--kernel", help="one kernel of the file (default: all)")
        p.add_argument("--param", action="append", default=[], metavar="K=V",
                       help="a launch parameter (repeatable); defaults come from the file")
        return p
    if verb == "occupancy":
        p.add_argument("file", nargs="?", help="a kernels file (block and smem from a kernel)")
    else:
        p.add_argument("file", help="a Python file with a KERNELS dict")
    p.add_argument("--kernel", help="one kernel of the file (default: all)")
    p.add_argument("--param", action="append", default=[], metavar="K=V",
                   help="a launch parameter (repeatable); defaults come from the file")
    if verb == "analyze":
        p.add_argument("--regs", type=_regs, metavar="N|compile",
                       help="registers per thread for occupancy, or 'compile' to compile the "
                            "generated CUDA with NVRTC and use the cubin's count")
        p.add_argument("--fail-on-excess", type=float, metavar="RATIO",
                       help="exit 1 when excess wavefronts exceed RATIO x ideal")
        p.add_argument("--min-occupancy", type=float, metavar="FRACTION",
                       help="exit 1 when occupancy (needs --regs) is below FRACTION")
        p.add_argument("--sweep", metavar="K=START:STOP[:STEP]", type=_sweep,
                       help="totals at every value of one parameter (STOP excluded)")
    elif verb in ("explain", "fix"):
        p.add_argument("site", type=int, nargs="?",
                       help="site number (default: " + ("the worst)" if verb == "explain"
                                                        else "every conflicted array)"))
        if verb == "fix":
            p.add_argument("--regs", type=_regs, metavar="N|compile",
                           help="registers per thread, to show each change's occupancy")
    else:
        p.add_argument("--threads", type=int, help="threads per block")
        p.add_argument("--regs", type=_regs, required=True, metavar="N|compile",
                       help="registers per thread, or 'compile' (needs a kernels FILE)")
        p.add_argument("--smem", type=int, default=0, help="static shared memory bytes")
        p.add_argument("--dynamic-smem", type=int, default=0, help="dynamic shared memory bytes")
        p.add_argument("--carveout", type=int, help="shared-memory carveout percentage")
        p.add_argument("--no-opt-in", action="store_true",
                       help="the kernel keeps the 48 KiB default dynamic limit")
        p.add_argument("--fail-below", type=float, metavar="FRACTION",
                       help="exit 1 when occupancy is below FRACTION")
    return p


def _kernels(args):
    """(key, kernel) for every kernel the command line selects."""
    return [(key, make()) for key, make in select(load_kernels(args.file), args.kernel).items()]


def _one_kernel(args):
    """The one kernel a verb that explains or sizes a single kernel works on."""
    chosen = select(load_kernels(args.file), args.kernel)
    if len(chosen) > 1:
        raise KernelError(f"{args.file} has several kernels ({', '.join(chosen)}): pick one "
                          "with --kernel")
    key, make = next(iter(chosen.items()))
    return key, make()


def _inputs(args, key: str, kernel, params: dict):
    """The inputs the kernels file prescribes for this launch (None: seeded random)."""
    return input_arrays(args.file, key, resolve_launch(kernel, params))


def _progress(console: Console, args):
    """A transient progress bar, on terminals only."""
    from rich.progress import Progress
    return Progress(console=console, transient=True,
                    disable=getattr(args, "json", False) or not console.is_terminal)


def _busy(console: Console, args, text: str):
    """A spinner while something runs, on terminals only (output to files stays clean)."""
    if getattr(args, "json", False) or not console.is_terminal:
        return contextlib.nullcontext()
    return console.status(text)


def _sweep(text: str) -> tuple[str, range]:
    try:
        key, spec = text.split("=", 1)
        parts = [int(x, 0) for x in spec.split(":")]
        values = range(*parts) if len(parts) in (2, 3) else None
    except ValueError:
        values = None
    if not values:
        raise argparse.ArgumentTypeError(f"--sweep takes K=START:STOP[:STEP] with at least one "
                                         f"value, not {text!r}")
    return key, values


def _swept(args, console: Console, kernel, params: dict, each) -> list:
    """Run `each(params)` at every value of the sweep, with a progress bar."""
    key, values = args.sweep
    out = []
    with _progress(console, args) as bar:
        task = bar.add_task(f"{kernel.name}: {key}", total=len(values))
        for v in values:
            out.append((v, each({**params, key: v})))
            bar.advance(task)
    return out


def _regs(text: str) -> int | str:
    if text == "compile":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--regs takes a number or 'compile', not {text!r}")


def _kernel_occupancy(kernel, arch: str, regs, params: dict, carveout=None):
    """The calculator for a kernel; registers and static smem from a compile if asked."""
    if regs == "compile":
        from gpu_backend.compile import ToolMissing, compile_kernel
        try:
            compiled = compile_kernel(kernel, arch)
        except ToolMissing as err:
            raise KernelError(f"--regs compile: {err}") from None
        return kernel_occupancy(kernel, arch, compiled.registers, params, carveout,
                                static_smem=compiled.static_smem)
    return kernel_occupancy(kernel, arch, regs, params, carveout)


def _params(items: list[str]) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise KernelError(f"--param takes K=V, got {item!r}")
        key, value = item.split("=", 1)
        try:
            out[key] = int(value, 0)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                raise KernelError(f"--param {key}: {value!r} is not a number") from None
    return out


def _analyze(args, console: Console) -> int:
    params = _params(args.param)
    if args.sweep:
        return _analyze_sweep(args, console, params)
    reports, docs, code = [], [], EXIT_OK
    for name, kernel in _kernels(args):
        arrays = _inputs(args, name, kernel, params)
        with _busy(console, args, f"tracing {kernel.name}"):
            r = analyze(kernel, args.arch, arrays=arrays, **params)
            occ = _kernel_occupancy(kernel, args.arch, args.regs, params) \
                if args.regs is not None else None
        reports.append((r, occ, f"smemsim explain {args.file} --kernel {name}"))
        entry = jsonout.report_json(r)
        entry["occupancy"] = None if occ is None else jsonout.occupancy_json(occ)
        docs.append(entry)
        if args.fail_on_excess is not None and r.excess_ratio > args.fail_on_excess:
            code = EXIT_GATE
            if not args.json:
                console.print(f"gate: {r.kernel}: excess {r.excess:,} wavefronts = "
                              f"{r.excess_ratio:.3f} x ideal > {args.fail_on_excess}",
                              markup=False, highlight=False, soft_wrap=True)
        if args.min_occupancy is not None:
            if occ is None:
                raise KernelError("--min-occupancy needs --regs")
            if occ.occupancy < args.min_occupancy:
                code = EXIT_GATE
                if not args.json:
                    console.print(f"gate: {r.kernel}: occupancy {occ.occupancy:.3f} < "
                                  f"{args.min_occupancy}", markup=False, highlight=False)
    if args.json:
        console.print_json(json.dumps(jsonout.document(docs, exit_code=code)))
        return code
    for r, occ, explain in reports:
        console.print(render.report_table(r, explain))
        if occ is not None:
            console.print(render.occupancy_view(occ))
        console.print()
    return code


def _analyze_sweep(args, console: Console, params: dict) -> int:
    key = args.sweep[0]
    docs = []
    for name, kernel in _kernels(args):

        def each(p, kernel=kernel, name=name):
            return analyze(kernel, args.arch, arrays=_inputs(args, name, kernel, p), **p)
        rows = _swept(args, console, kernel, params, each)
        docs += [jsonout.report_json(r) for _, r in rows]
        if not args.json:
            console.print(render.sweep_table(kernel.name, key, rows))
    if args.json:
        console.print_json(json.dumps(jsonout.document(docs)))
    return EXIT_OK


def _explain(args, console: Console) -> int:
    params = _params(args.param)
    key, kernel = _one_kernel(args)
    arrays = _inputs(args, key, kernel, params)
    r = analyze(kernel, args.arch, arrays=arrays, **params)
    if not r.sites:
        raise KernelError(f"kernel '{kernel.name}' has no shared-memory accesses")
    site = max(r.sites, key=lambda s: (s.excess, s.wavefronts)) if args.site is None \
        else r.site(args.site) if args.site in [s.site for s in r.sites] else None
    if site is None:
        raise KernelError(f"kernel '{kernel.name}' has no site {args.site}; its sites are "
                          f"{[s.site for s in r.sites]}")
    if site.worst is None:
        raise KernelError(f"site {site.site} issues no request at this launch")
    req = warp_request(site.worst.offsets, site.width, site.op, args.arch, window=r.window)
    w = site.worst.where
    its = ", ".join(f"{k}={v}" for k, v in w.iterations)
    title = (f"{r.kernel} site {site.site}, line {site.loc.line}: {site.statement}\n"
             f"worst request: block {w.block}, warp {w.warp}"
             + (f", iteration {its}" if its else ""))
    if args.json:
        console.print_json(json.dumps(jsonout.document([jsonout.request_json(req)],
                                                       site=site.site, kernel=r.kernel)))
    else:
        console.print(render.explain_view(req, title))
    return EXIT_OK


def _occupancy(args, console: Console) -> int:
    if args.file:
        _, kernel = _one_kernel(args)
        o = _kernel_occupancy(kernel, args.arch, args.regs, _params(args.param), args.carveout)
    else:
        if args.threads is None:
            raise KernelError("occupancy needs --threads (or a kernels FILE)")
        if args.regs == "compile":
            raise KernelError("--regs compile needs a kernels FILE to compile")
        o = occupancy(args.arch, args.threads, args.regs, args.smem, args.dynamic_smem,
                      args.carveout, not args.no_opt_in)
    curves = what_if(o)
    code = EXIT_GATE if args.fail_below is not None and o.occupancy < args.fail_below \
        else EXIT_OK
    if args.json:
        console.print_json(json.dumps(jsonout.document([jsonout.occupancy_json(o, curves)],
                                                       exit_code=code)))
        return code
    console.print(render.occupancy_view(o))
    for c in curves:
        console.print(render.curve_view(c))
    if code:
        console.print(f"gate: occupancy {o.occupancy:.3f} < {args.fail_below}", markup=False)
    return code


def _fix(args, console: Console) -> int:
    from .fix import search
    params = _params(args.param)
    docs = []
    for name, kernel in _kernels(args):
        regs = args.regs
        if regs == "compile":
            regs = _kernel_occupancy(kernel, args.arch, "compile", params).registers_per_thread
        arrays = _inputs(args, name, kernel, params)
        with _progress(console, args) as bar:
            task = bar.add_task(f"searching {kernel.name}", total=None)
            f = search(kernel, args.arch, regs, arrays=arrays, site=args.site,
                       progress=lambda i, n: bar.update(task, completed=i, total=n), **params)
        docs.append(jsonout.fix_json(f))
        if not args.json:
            console.print(render.fix_view(f))
            console.print()
    if args.json:
        console.print_json(json.dumps(jsonout.document(docs)))
    return EXIT_OK


def _check(args, console: Console) -> int:
    from .hazards import check
    params = _params(args.param)
    code, docs = EXIT_OK, []
    for name, kernel in _kernels(args):

        def each(p, kernel=kernel, name=name):
            arrays = _inputs(args, name, kernel, p)
            return check(kernel, args.arch, arrays=arrays, registers=args.regs, **p)
        if args.sweep:
            rows = _swept(args, console, kernel, params, each)
        else:
            with _busy(console, args, f"running {kernel.name} for hazards"):
                rows = [(None, each(params))]
        for value, h in rows:
            code = _report_hazards(args, console, h, docs, code)
    if args.json:
        console.print_json(json.dumps(jsonout.document(docs, exit_code=code)))
    return code


def _report_hazards(args, console: Console, h, docs: list, code: int) -> int:
    """Record one hazard report (JSON or text); return the exit code so far."""
    docs.append(jsonout.hazards_json(h))
    if not h.clean:
        code = EXIT_GATE
    if args.json:
        return code
    shown = ", ".join(f"{k}={v}" for k, v in h.params.items()) or "no parameters"
    if h.clean:
        console.print(f"{h.kernel} ({shown}): no hazard found", markup=False)
        return code
    console.print(f"{h.kernel} ({shown}):", markup=False)
    for line in [f.message for f in h.faults] + [r.describe() for r in h.races] + \
            list(h.limits):
        console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    return code


def _codegen(args, console: Console) -> int:
    from gpu_backend.codegen import generate
    sources = {}
    for name, kernel in _kernels(args):
        sources[name] = generate(kernel).source
    if args.json:
        console.print_json(json.dumps(jsonout.document(
            [{"kind": "cuda", "kernel": k, "source": src} for k, src in sources.items()])))
    else:
        for src in sources.values():
            console.print(src, markup=False, highlight=False, soft_wrap=True)
    return EXIT_OK


def _compile(args, console: Console) -> int:
    from gpu_backend.compile import ToolMissing, compile_kernel
    params = _params(args.param)
    docs = []
    for name, kernel in _kernels(args):
        try:
            with _busy(console, args, f"compiling {kernel.name}"):
                c = compile_kernel(kernel, args.arch)
        except ToolMissing as err:
            raise KernelError(f"compile: {err}; analyze, explain and occupancy still work "
                              "without it") from None
        widths = c.compiled_widths()
        entry = {"kind": "compile", "kernel": kernel.name, "arch": c.arch,
                 "registers": c.registers, "local_bytes": c.local, "stack_bytes": c.stack,
                 "static_smem": c.static_smem, "widths_ok": c.widths_ok,
                 "sites": [{"site": s.site, "ok": s.ok, "stated_width": s.width,
                            "found": [a.opcode for a in s.found], "why": s.describe()}
                           for s in c.sites],
                 "unattributed": [a.opcode for a in c.unattributed],
                 "compiled_widths": widths}
        rerun = None
        if widths:
            arrays = _inputs(args, name, kernel, params)
            rerun = analyze(kernel, args.arch, arrays=arrays, widths=widths, **params)
            entry["compiled_analysis"] = jsonout.report_json(rerun)
        docs.append(entry)
        if args.json:
            continue
        console.print(f"{kernel.name} for {c.arch}: {c.registers} registers, {c.local} B "
                      f"local (spills), {c.static_smem} B static shared memory", markup=False)
        for s in c.sites:
            console.print(("  ok       " if s.ok else "  CHANGED  ") + s.describe(),
                          markup=False, highlight=False)
        for a in c.unattributed:
            console.print(f"  CHANGED  {a.opcode} on line {a.line} of the generated source "
                          "belongs to no IR site", markup=False, highlight=False)
        if rerun is not None:
            console.print("the compiler changed the kernel; the analysis of what it emitted "
                          "(sites it folded away are dropped; hoisting out of loops is not "
                          "modelled):", markup=False)
            console.print(render.report_table(rerun))
    if args.json:
        console.print_json(json.dumps(jsonout.document(docs)))
    return EXIT_OK


def _require_gpu(verb: str) -> None:
    """A one-line error saying what is missing and what still works without it."""
    from gpu_backend.device import gpu_unavailable
    reason = gpu_unavailable()
    if reason:
        raise KernelError(f"{verb}: {reason.rstrip('.')}. Without a GPU, analyze, explain, "
                          "occupancy, codegen and compile still work")


def _run(args, console: Console) -> int:
    from gpu_backend.compile import ToolMissing
    from gpu_backend.device import run_on_gpu
    _require_gpu("run")
    params = _params(args.param)
    code, docs = EXIT_OK, []
    for name, kernel in _kernels(args):
        try:
            with _busy(console, args, f"running {kernel.name} on the GPU and the interpreter"):
                r = run_on_gpu(kernel, params,
                               _inputs(args, name, kernel, params))
        except ToolMissing as err:
            raise KernelError(f"run: {err}") from None
        if not r.matches:
            code = EXIT_GATE
        docs.append({"kind": "run", "kernel": r.kernel, "device": r.device, "arch": r.arch,
                     "matches": r.matches, "mismatches": [m.detail for m in r.mismatches],
                     "registers": r.registers, "driver_blocks_per_sm": r.driver_blocks_per_sm})
        if not args.json:
            verdict = "outputs match the interpreter" if r.matches else \
                "OUTPUTS DIFFER: " + "; ".join(f"{m.array}: {m.detail}" for m in r.mismatches)
            console.print(f"{r.kernel} on {r.device} ({r.arch}): {verdict}", markup=False)
    if args.json:
        console.print_json(json.dumps(jsonout.document(docs, exit_code=code)))
    return code


def _validate(args, console: Console) -> int:
    from gpu_backend.measure import MeasureError, measure
    _require_gpu("validate")
    params = _params(args.param)
    code, docs = EXIT_OK, []
    for name, kernel in _kernels(args):
        launch = resolve_launch(kernel, params)
        r = analyze(kernel, args.arch, arrays=_inputs(args, name, kernel, params), **params)
        try:
            with _busy(console, args, f"profiling {kernel.name} with Nsight Compute"):
                m = measure(args.file, name, dict(launch.params), kernel.name)
        except MeasureError as err:
            raise KernelError(f"validate: {err}") from None
        rows = [("load requests", r.load.requests, m.load_requests),
                ("load wavefronts", r.load.wavefronts, m.load_wavefronts),
                ("store requests", r.store.requests, m.store_requests),
                ("store wavefronts", r.store.wavefronts, m.store_wavefronts)]
        # requests must be exact; wavefronts never below the prediction (L1 arbitration)
        ok = rows[0][1] == rows[0][2] and rows[2][1] == rows[2][2] and \
            rows[1][2] >= rows[1][1] and rows[3][2] >= rows[3][1]
        code = code if ok else EXIT_GATE
        docs.append({"kind": "validation", "kernel": kernel.name, "ok": ok,
                     "rows": [{"what": w, "predicted": p, "measured": q} for w, p, q in rows]})
        if not args.json:
            console.print(f"{kernel.name}: {'agrees' if ok else 'DISAGREES'}", markup=False)
            for w, p, q in rows:
                console.print(f"  {w:<17} predicted {p:>15,}  measured {q:>15,}",
                              markup=False, highlight=False)
    if args.json:
        console.print_json(json.dumps(jsonout.document(docs, exit_code=code)))
    return code


_VERBS = {"analyze": _analyze, "explain": _explain, "occupancy": _occupancy, "fix": _fix,
          "check": _check,
          "codegen": _codegen, "compile": _compile, "run": _run, "validate": _validate}
_INPUT_ERRORS = (KernelError, ArchError, RequestError, OccupancyError, KeyError)


def run(argv: list[str], console: Console | None = None) -> int:
    """Run the command line; return the exit code."""
    console = console or Console()
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    try:
        if not argv or argv[0] not in _VERBS:
            create_parser().parse_args(argv)  # prints usage or help, then exits
            return EXIT_INPUT
        args = verb_parser(argv[0]).parse_intermixed_args(argv[1:])
    except SystemExit as exit_:
        return EXIT_OK if exit_.code == 0 else EXIT_INPUT
    try:
        return _VERBS[argv[0]](args, console)
    except _INPUT_ERRORS as err:
        if debug:
            console.print(traceback.format_exc(), markup=False, highlight=False)
        message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
        return EXIT_INPUT


def main() -> None:
    """The console script."""
    sys.exit(run(sys.argv[1:]))

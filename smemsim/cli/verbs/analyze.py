"""`smemsim analyze`: wavefronts of every shared access site of a launch, with CI gates."""
from __future__ import annotations

import shlex

from rich.console import Console

from kernels_ir import KernelError, KernelRuntimeError, resolve_launch

from ...launch.analysis import analyze
from .. import jsonout, outputs, render
from ..common import (
    EXIT_GATE, EXIT_OK, as_compiled_noop, build_or_explain, busy, input_sources, inputs,
    kernels, launch_faulted, occupancy_of, one_of_several, own_params, print_json, say,
    swept,
)
from ..options import (
    add_common, add_format, add_kernels, add_loop_limit, add_regs, add_sweep, explain_options,
    fraction, parse_params, ratio,
)

HELP = "wavefronts of every shared access site of a launch"
EXAMPLES = """\
  smemsim analyze examples/transpose.cu
  smemsim analyze kernel.cu --kernel 'gemm<128, 8>' -D TILE=32 --regs compile
  smemsim analyze transpose --kernel naive --fail-on-excess 0.1 --json   (exit 1: gate)"""


def add_arguments(p) -> None:
    """analyze's options."""
    add_common(p)
    add_kernels(p)
    add_regs(p, "registers per thread for occupancy, or 'compile' for the count of the "
                "build --as-compiled counts")
    p.add_argument("--fail-on-excess", type=ratio, metavar="RATIO",
                   help="exit 1 when excess wavefronts exceed RATIO x ideal (at any sweep point)")
    p.add_argument("--min-occupancy", type=fraction, metavar="FRACTION",
                   help="exit 1 when occupancy (needs --regs) is below FRACTION")
    outputs.add_force(p)
    p.add_argument("--sarif", metavar="FILE",
                   help="also write the sites with excess wavefronts (those over "
                        "--fail-on-excess, if given) as SARIF 2.1.0, for code scanning")
    add_format(p)
    add_sweep(p, "totals")
    p.add_argument("--as-compiled", action="store_true",
                   help="count what the compiler emitted, for a kernels file (NVRTC's "
                        "build of its CUDA): sites it widened or merged re-costed at their "
                        "SASS width, sites it folded away dropped (docs/as-compiled.md); a "
                        ".cu is counted as nvcc builds it already (accepted, a no-op there)")
    add_loop_limit(p)


def execute(args, console: Console) -> int:
    """Analyze every selected kernel (or sweep one parameter)."""
    if args.sarif:
        from .. import sarif
        sarif.claim(args, "analyze")
    given = parse_params(args.param)
    noop = as_compiled_noop(args)
    if args.sweep:
        return _sweep(args, console, given)
    reports, docs, code = [], [], EXIT_OK
    chosen = kernels(args)
    for name, kernel in chosen:
        try:
            params = own_params(given, kernel, chosen)
            arrays = inputs(args, name, kernel, params)
            resolve_launch(kernel, params)
        except KernelError as err:   # (a value this kernel of several needs: said after)
            one_of_several(args, err, chosen, "not analyzed")
            continue
        compiled = None
        if args.as_compiled or args.regs == "compile":
            with busy(console, args, f"compiling {kernel.name}"):
                compiled = build_or_explain(args, name, kernel,
                                            "--as-compiled" if args.as_compiled else
                                            "--regs compile")
        with busy(console, args, f"tracing {kernel.name}"):
            try:
                if args.as_compiled:
                    r = as_compiled_report(kernel, params, args.arch, arrays, compiled,
                                           args.loop_limit)
                else:
                    r = analyze(kernel, params, arch=args.arch, arrays=arrays,
                                loop_limit=args.loop_limit)
            except KernelRuntimeError as err:
                launch_faulted(args, name, kernel, err, chosen,
                               "the launch faults, so nothing is counted")
                continue
            occ = occupancy_of(kernel, args.arch, args.regs, params, compiled=compiled) \
                if args.regs is not None else None
        sources = input_sources(args, name, kernel) if r.mode == "full" else None
        # the compiler's changes: --as-compiled's findings, or the notes of the frontend
        # that read the build (the PTX frontend's), else a hint where --regs compile built it
        notes = noop + (list(r.compiler) if args.as_compiled or r.compiler else
                        _compiler_hint(compiled) if compiled is not None else []) + \
            list(r.notes)
        reports.append((r, occ, shlex.join(["smemsim", "explain", args.file, "--kernel", name,
                                            *explain_options(args)]), sources, notes))
        docs.append(jsonout.analyze_json(r, occ) | {"inputs": sources})
        code = max(code, _gates(args, console, r, occ))
    if args.sarif:
        from .. import sarif
        sarif.write(args.sarif, [x for r, *_ in reports for x in _sarif_sites(args, r)])
    if args.json:
        print_json(console, docs, exit_code=code)
        return code
    if args.format == "gcc":
        from .. import sarif
        for line in sarif.gcc_lines([x for r, *_ in reports
                                     for x in sarif.site_results(r, args.fail_on_excess)]):
            say(console, line)
        return code
    for r, occ, explain, sources, notes in reports:
        # crop=False: the explain hint is printed whole, however long the path, to be copied
        console.print(render.report_table(r, explain, console.width), crop=False)
        if sources:
            say(console, "inputs: " + "; ".join(f"{a} = {w}" for a, w in sources.items()))
        for note in notes:
            say(console, note)
        if occ is not None:
            console.print(render.occupancy_view(occ))
        console.print()
    if len(reports) >= 3:   # (a file of many kernels: their sums side by side, last)
        console.print(render.kernels_summary(
            [r for r, *_ in reports], len(getattr(args, "failed_kernels", None) or ())),
            crop=False)
    return code


def _compiler_hint(compiled) -> list[str]:
    """A one-line hint when the SASS differs from the IR (plain analyze with --regs compile
    of NVRTC's build; the user's own build is compared line by line only by --as-compiled)."""
    if not hasattr(compiled, "sites"):
        return []
    changed = [s for s in compiled.sites if not s.ok]
    if changed or compiled.unattributed:
        return [f"note: the compiler changed {len(changed)} site(s) (`smemsim compile` shows "
                "how); --as-compiled counts what it emitted"]
    return []


def _gates(args, console: Console, r, occ, where: str = "") -> int:
    """EXIT_GATE if the report fails --fail-on-excess or --min-occupancy, saying why."""
    code = EXIT_OK
    if args.fail_on_excess is not None and r.excess_ratio > args.fail_on_excess:
        code = EXIT_GATE
        if not args.json:
            say(console, f"gate: {r.kernel}{where}: excess {r.excess:,} wavefronts = "
                         f"{r.excess_ratio:.3f} x ideal > {args.fail_on_excess}")
    if args.min_occupancy is not None:
        if occ is None:
            raise KernelError("--min-occupancy needs --regs")
        if occ.occupancy < args.min_occupancy:
            code = EXIT_GATE
            if not args.json:
                say(console, f"gate: {r.kernel}{where}: occupancy {occ.occupancy:.3f} < "
                             f"{args.min_occupancy}")
    return code


def _point(task):
    """One point of --sweep: (report, occupancy) (a worker's task: module-level)."""
    kernel, params, arch, arrays, regs, compiled, as_compiled, limit = task
    if as_compiled:
        r = as_compiled_report(kernel, params, arch, arrays, compiled, limit)
    else:
        r = analyze(kernel, params, arch=arch, arrays=arrays, loop_limit=limit)
    occ = occupancy_of(kernel, arch, regs, params, compiled=compiled) if regs is not None \
        else None
    return r, occ


def as_compiled_report(kernel, params, arch, arrays, compiled, limit):
    """The analysis of what the compiler emitted: `compiled` is NVRTC's Compiled of the
    generated CUDA (a kernels file; a .cu is read from its own build already)."""
    from gpu_backend.as_compiled import analyze_as_compiled
    return analyze_as_compiled(kernel, params, arch=arch, arrays=arrays, compiled=compiled,
                               loop_limit=limit)


def _sweep(args, console: Console, params: dict) -> int:
    """Totals at every value of one parameter; the gates apply at every point."""
    key = args.sweep[0]
    docs, code, found = [], EXIT_OK, []
    for name, kernel in kernels(args):
        compiled = None
        if args.as_compiled or args.regs == "compile":  # one compile serves every point:
            with busy(console, args, f"compiling {kernel.name}"):  # parameters are arguments
                compiled = build_or_explain(args, name, kernel, "--as-compiled" if
                                            args.as_compiled else "--regs compile")
        rows = swept(args, console, kernel, params, _point,
                     lambda p, kernel=kernel, name=name, compiled=compiled: (
                         kernel, p, args.arch, inputs(args, name, kernel, p), args.regs,
                         compiled, args.as_compiled, args.loop_limit))
        for value, (r, occ) in rows:
            docs.append(jsonout.analyze_json(r, occ))
            code = max(code, _gates(args, console, r, occ, f" at {key}={value}"))
            found += [dict(x, message={"text": f"{key}={value}: {x['message']['text']}"})
                      for x in _sarif_sites(args, r)]
        if not args.json:
            console.print(render.sweep_table(kernel.name, key, [(v, r) for v, (r, _) in rows]))
    if args.sarif:
        from .. import sarif
        sarif.write(args.sarif, found)
    if args.json:
        print_json(console, docs, exit_code=code)
    return code


def _sarif_sites(args, r) -> list[dict]:
    """The SARIF results of one report, when --sarif is asked for."""
    if not args.sarif:
        return []
    from .. import sarif
    return sarif.site_results(r, args.fail_on_excess)

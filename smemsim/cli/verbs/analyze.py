"""`smemsim analyze`: wavefronts of every shared access site of a launch, with CI gates."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError

from ...analysis import analyze
from .. import jsonout, render
from ..common import (
    EXIT_GATE, EXIT_OK, busy, input_sources, inputs, kernels, occupancy_of, print_json, say,
    swept,
)
from ..options import (
    add_common, add_kernels, add_regs, add_sweep, fraction, parse_params, ratio,
)

HELP = "wavefronts of every shared access site of a launch"


def add_arguments(p) -> None:
    """analyze's options."""
    add_common(p)
    add_kernels(p)
    add_regs(p, "registers per thread for occupancy, or 'compile' to compile the generated "
                "CUDA with NVRTC and use the cubin's count")
    p.add_argument("--fail-on-excess", type=ratio, metavar="RATIO",
                   help="exit 1 when excess wavefronts exceed RATIO x ideal (at any sweep point)")
    p.add_argument("--min-occupancy", type=fraction, metavar="FRACTION",
                   help="exit 1 when occupancy (needs --regs) is below FRACTION")
    add_sweep(p, "totals")


def execute(args, console: Console) -> int:
    """Analyze every selected kernel (or sweep one parameter)."""
    params = parse_params(args.param)
    if args.sweep:
        return _sweep(args, console, params)
    reports, docs, code = [], [], EXIT_OK
    for name, kernel in kernels(args):
        arrays = inputs(args, name, kernel, params)
        with busy(console, args, f"tracing {kernel.name}"):
            r = analyze(kernel, params, arch=args.arch, arrays=arrays)
            occ = occupancy_of(kernel, args.arch, args.regs, params) \
                if args.regs is not None else None
        sources = input_sources(args, name, kernel) if r.mode == "full" else None
        reports.append((r, occ, f"smemsim explain {args.file} --kernel {name}", sources))
        docs.append(jsonout.analyze_json(r, occ) | {"inputs": sources})
        code = max(code, _gates(args, console, r, occ))
    if args.json:
        print_json(console, docs, exit_code=code)
        return code
    for r, occ, explain, sources in reports:
        console.print(render.report_table(r, explain))
        if sources:
            say(console, "inputs: " + "; ".join(f"{a} = {w}" for a, w in sources.items()))
        if occ is not None:
            console.print(render.occupancy_view(occ))
        console.print()
    return code


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


def _sweep(args, console: Console, params: dict) -> int:
    """Totals at every value of one parameter; the gates apply at every point."""
    key = args.sweep[0]
    docs, code = [], EXIT_OK
    for name, kernel in kernels(args):

        def each(p, kernel=kernel, name=name):
            r = analyze(kernel, p, arch=args.arch, arrays=inputs(args, name, kernel, p))
            occ = occupancy_of(kernel, args.arch, args.regs, p) if args.regs is not None \
                else None
            return r, occ
        rows = swept(args, console, kernel, params, each)
        for value, (r, occ) in rows:
            docs.append(jsonout.analyze_json(r, occ))
            code = max(code, _gates(args, console, r, occ, f" at {key}={value}"))
        if not args.json:
            console.print(render.sweep_table(kernel.name, key, [(v, r) for v, (r, _) in rows]))
    if args.json:
        print_json(console, docs, exit_code=code)
    return code

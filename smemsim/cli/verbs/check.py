"""`smemsim check`: races, divergent barriers, bounds, alignment and limits, located."""
from __future__ import annotations

from rich.console import Console

from ...hazards import check
from .. import jsonout
from ..common import EXIT_GATE, EXIT_OK, busy, inputs, kernels, print_json, say, swept
from ..options import add_common, add_kernels, add_sweep, parse_params

HELP = "hazards: shared-memory races, divergent barriers, bounds, alignment, limits"


def add_arguments(p) -> None:
    """check's options."""
    add_common(p)
    add_kernels(p)
    p.add_argument("--regs", type=int, help="registers per thread, checked against the limit")
    add_sweep(p, "check")


def execute(args, console: Console) -> int:
    """Check every selected kernel; exit 1 if anything is found."""
    params = parse_params(args.param)
    code, docs = EXIT_OK, []
    for name, kernel in kernels(args):

        def task(p, kernel=kernel, name=name):
            return kernel, p, args.arch, inputs(args, name, kernel, p), args.regs
        if args.sweep:
            rows = swept(args, console, kernel, params, _point, task)
        else:
            with busy(console, args, f"running {kernel.name} for hazards"):
                rows = [(None, _point(task(params)))]
        for _, h in rows:
            docs.append(jsonout.hazards_json(h))
            if not h.clean:
                code = EXIT_GATE
            if not args.json:
                _print(console, h)
    if args.json:
        print_json(console, docs, exit_code=code)
    return code


def _point(task):
    """One check (a worker's task for --sweep: module-level)."""
    kernel, params, arch, arrays, registers = task
    return check(kernel, params, arch=arch, arrays=arrays, registers=registers)


def _print(console: Console, h) -> None:
    shown = ", ".join(f"{k}={v}" for k, v in h.params.items()) or "no parameters"
    if h.clean and not h.same_value:
        say(console, f"{h.kernel} ({shown}): no hazard found")
        return
    say(console, f"{h.kernel} ({shown}):" if not h.clean else
        f"{h.kernel} ({shown}): no hazard that changes a result; warnings:")
    for line in [f.message for f in h.faults] + [r.describe() for r in h.races] + \
            list(h.limits):
        say(console, f"  {line}")
    for r in h.same_value:
        say(console, f"  warning: {r.describe()} (both store the same value: the result does "
                     "not depend on the order; compute-sanitizer does not report it)")

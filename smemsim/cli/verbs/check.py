"""`smemsim check`: races, divergent barriers, bounds, alignment and limits, located."""
from __future__ import annotations

import dataclasses

from rich.console import Console

from kernels_ir import KernelError, resolve_launch

from ...launch.hazards import MAX_RACES, check
from ...launch.unread_params import stand_in_note
from .. import jsonout, outputs
from ..phrases import params_text
from ..common import (
    EXIT_GATE, EXIT_OK, at_each_launch, inputs, kernels, own_params, print_json,
    one_of_several, progress, random_inputs_note, random_races_note, unchecked_ends, say, swept,
)
from ..options import (
    add_format,
    add_common, add_kernels, add_loop_limit, add_sweep, block_list, parse_params,
    register_count,
)

HELP = "hazards: shared-memory races, divergent barriers, bounds, alignment, limits"
EXAMPLES = """\
  smemsim check examples/transpose.cu
  smemsim check reed_solomon --kernel tables --json"""


def add_arguments(p) -> None:
    """check's options."""
    add_common(p)
    add_kernels(p)
    p.add_argument("--regs", type=register_count,
                   help="registers per thread, checked against the limit")
    p.add_argument("--blocks", type=block_list, metavar="LIST",
                   help="check only these blocks: linear ids x + gridDim.x * (y + gridDim.y "
                        "* z), as 0,5,8:16 (STOP excluded)")
    add_loop_limit(p)
    add_format(p)
    add_sweep(p, "check")
    outputs.add_force(p)
    p.add_argument("--sarif", metavar="FILE",
                   help="also write every race, fault and exceeded limit as SARIF 2.1.0, "
                        "for code scanning")


# warp-synchronous races the text shows in full (the rest: a count and their lines)
WARP_RACES_SHOWN = 3


def execute(args, console: Console) -> int:
    """Check every selected kernel; exit 1 if anything is found."""
    if args.sarif:
        from .. import sarif
        sarif.claim(args, "check")
    given = parse_params(args.param)
    code, docs, reports = EXIT_OK, [], []
    chosen = kernels(args)
    # (every launch of a kernel the host code launches with several configurations: a
    # hazard of the second launch is the program's as much as one of the first)
    for name, kernel, launch in at_each_launch(args, chosen):
        params = own_params(given, kernel, chosen)
        if not args.sweep:
            try:   # (a value this kernel of several needs: said after the others)
                resolve_launch(kernel, params)
            except KernelError as err:
                one_of_several(args, err, chosen, "not checked")
                continue

        def task(p, kernel=kernel, name=name):
            return (kernel, p, args.arch, inputs(args, name, kernel, p), args.regs, args.blocks,
                    args.loop_limit)
        if args.sweep:
            rows = swept(args, console, kernel, params, _point, task)
        else:
            with progress(console, args) as bar:
                job = bar.add_task(f"checking {kernel.name}: blocks", total=None)
                rows = [(None, _point(task(params), lambda done, n: bar.update(
                    job, completed=done, total=n)))]
        # (what the check cannot see: stores the build dropped, a hazard of which is none;
        # the ends of arrays whose lengths the source does not say, said on stderr as the
        # kernel is read, and in the JSON)
        stand_in = stand_in_note(kernel, params)
        notes = [*kernel.unbuilt_shared, *filter(None, [unchecked_ends(kernel, args),
                                                        stand_in])]
        for _, h in rows:
            h = dataclasses.replace(h, faults=tuple(
                dataclasses.replace(f, message=f.message + random_inputs_note(
                    args, name, kernel, f)) for f in h.faults))
            # (races at sites whose addresses come from invented inputs: said so)
            caveat = random_races_note(args, name, kernel, h.races) if h.races else ""
            said = notes + ([caveat.strip("()")] if caveat else [])
            docs.append(jsonout.hazards_json(h) | ({"notes": said} if said else {}) |
                        ({"launch": launch} if launch else {}))
            reports.append(h)
            if not h.clean:
                code = max(code, EXIT_GATE)
            if not args.json and args.format != "gcc":
                _print(console, dataclasses.replace(
                    h, kernel=f"{h.kernel} at the launch at {launch}") if launch else h)
                for note in (*kernel.unbuilt_shared, *filter(None, [stand_in])):
                    say(console, f"  note: {note}")
                if caveat:
                    say(console, f"  {caveat}")
    if args.sarif:
        from .. import sarif
        sarif.write(args.sarif, [x for h in reports for x in sarif.hazard_results(h)])
    if args.json:
        print_json(console, docs, exit_code=code)
    elif args.format == "gcc":
        from .. import sarif
        for line in sarif.gcc_lines([x for h in reports for x in sarif.hazard_results(h)]):
            say(console, line)
    return code


def _point(task, progress=None):
    """One check (a worker's task for --sweep: module-level)."""
    kernel, params, arch, arrays, registers, blocks, limit = task
    return check(kernel, params, arch=arch, arrays=arrays, registers=registers, blocks=blocks,
                 progress=progress, loop_limit=limit)


def _print(console: Console, h) -> None:
    shown = params_text(h.params) or "no parameters"
    if h.blocks_checked < h.blocks_total:
        shown += f"; {h.blocks_checked} of {h.blocks_total} blocks"
    if h.clean and not h.same_value:
        say(console, f"{h.kernel} ({shown}): no hazard found")
        if h.method == "sliced":
            say(console, "  (address-only runs, docs/hazards.md: " +
                "; ".join(f"{what}: {n:,} block{'s' * (n != 1)}" for what, n in h.runs) +
                f", standing for {h.blocks_checked:,})")
        return
    say(console, f"{h.kernel} ({shown}):" if not h.clean else
        f"{h.kernel} ({shown}): no hazard that changes a result; warnings:")
    faults = [f.message + (f" (and {f.blocks - 1} more block(s) at this statement)"
                           if f.blocks > 1 else "") for f in h.faults]
    races = h.by_place()
    warp = [r for r, _ in races if r.same_warp]
    if warp:   # (what to do first: the list below is its evidence, line pair by line pair)
        which = "the race below is" if len(races) == 1 else \
            f"all {len(warp)} races below are" if len(warp) == len(races) else \
            f"{len(warp)} of the races below {'are' if len(warp) > 1 else 'is'}"
        others = len(races) - len(warp)
        say(console, f"  {which} between threads of one warp: "
                     "warp-synchronous code. From sm_70 a warp's threads need not run in "
                     "step: put __syncwarp() between the steps (volatile is not enough), "
                     "or use __shfl_down_sync" +
                     (f"; the other {others} {'is' if others == 1 else 'are'} between "
                      "warps: __syncthreads() between the lines" if others else ""))
    shown, rest = races, []
    if len(warp) > WARP_RACES_SHOWN + 1:
        # (a warp-synchronous reduction races at every step: the advice above is the
        # answer, a few of its races its evidence, the rest a count)
        kept = {id(r) for r in warp[:WARP_RACES_SHOWN]}
        shown = [(r, n) for r, n in races if not r.same_warp or id(r) in kept]
        rest = [r for r in warp if id(r) not in kept]
    described = [r.describe(n) for r, n in shown]
    if rest:
        lines = sorted({loc.line for r in rest for loc in (r.first_loc, r.second_loc)})
        described.append(f"... and {len(rest)} more races between threads of one warp, at "
                         f"lines {', '.join(map(str, lines))} (--json lists every one)")
    for line in faults + described + list(h.limits):
        say(console, f"  {line}")
    if h.faults:
        say(console, "  (a block stops at its first fault: what it would do after it, a race "
                     "included, is checked once the fault is mended)")
    if len(h.races) >= MAX_RACES:
        say(console, f"  (the first {MAX_RACES} races, one a pair of sites: check lists no "
                     "more; there may be others)")
    if h.unchecked:
        say(console, f"  {h.unchecked}")
    for r, n in h.by_place(h.same_value):
        say(console, f"  warning: {r.describe(n)} ({r.warning})")

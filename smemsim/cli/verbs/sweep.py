"""`smemsim sweep`: every combination of parameters, layouts and archs, ranked, with the
Pareto front; on every core, or on a Dask cluster."""
from __future__ import annotations

import csv
import io
import itertools

from rich import box
from rich.console import Console
from rich.text import Text
from rich.table import Table

from kernels_ir import KernelError

from ...frontends.loader import find_file
from ...search.pool import default_jobs
from ...cache import cache_dir
from ...search.sweep import Layout, SweepResult, product, sweep
from .. import jsonout, outputs
from ..common import EXIT_OK, one_kernel, print_json, progress, say
from ..options import add_cuda, add_regs, jobs, top_count

HELP = "every combination of parameters, paddings/swizzles and archs: ranked, Pareto front"
EXAMPLES = """\
  smemsim sweep transpose --kernel naive -p n=256,512,1024 --pad tile=0,1
  smemsim sweep examples/transpose.cu -p n=1024 -D PAD=0:4
  smemsim sweep matmul_float_tiled --kernel matmul_tiled32 --arch sm_80,sm_90 --regs 32"""


def add_arguments(p) -> None:
    """sweep's options."""
    p.add_argument("file", help="a CUDA file (.cu, .cuh: read, never run), a kernels file "
                                "(.py with a KERNELS dict: Python that smemsim runs) or an "
                                "installed example's name")
    p.add_argument("--kernel", help="the kernel to sweep (needed when the file has several)")
    p.add_argument("-p", "--param", action="append", default=[], metavar="K=VALUES",
                   help="a parameter's values: 64,128,256 or START:STOP[:STEP] (STOP "
                        "excluded); repeatable, one axis each; others take the file's defaults")
    p.add_argument("--arch", default="sm_90", metavar="ARCHS",
                   help="architectures, comma-separated (default sm_90)")
    p.add_argument("--pad", action="append", default=[], metavar="ARRAY=VALUES",
                   help="row paddings (elements) to try for a shared array, as -p's values "
                        "(a kernels file's arrays; a .cu, numba or CUDA-string file's are "
                        "changes of the file: `smemsim fix` makes and counts them, or sweep "
                        "a macro with -D)")
    p.add_argument("--swizzle", action="append", default=[], metavar="ARRAY=B.M.S,...",
                   help="swizzles Swizzle<B,M,S> to try for a shared array ('none': as "
                        "declared; a kernels file's arrays, as --pad)")
    add_regs(p, "registers per thread for occupancy, or 'compile': for a .cu, those of "
                "nvcc's build of your file at each architecture (a --pad or --swizzle the "
                "sweep applies is not rebuilt); for a kernels file, NVRTC at every point")
    add_cuda(p)
    p.add_argument("--top", type=top_count, default=10, metavar="K",
                   help="rows of the ranking to print (default 10; 0: all)")
    p.add_argument("--csv", metavar="FILE", help="write every point to FILE as CSV")
    outputs.add_force(p)
    p.add_argument("--json", action="store_true", help="print JSON (schema smemsim/1)")
    p.add_argument("--jobs", type=jobs, metavar="N",
                   help=f"local worker processes (default: every core, {default_jobs()} here)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on the Dask distributed scheduler at ADDRESS (tcp://host:8786; "
                        "pip install 'smemsim[cluster]')")
    p.add_argument("--no-cache", action="store_true",
                   help="recompute every point (default: reuse results cached in "
                        "$SMEMSIM_CACHE/sweep or ~/.cache/smemsim/search/sweep)")


ESTIMATE_FROM_S = 30.0  # a sweep expected to take longer says so before it goes on


def _say_estimate(seconds: float, points: int, workers: int) -> None:
    """How long the sweep should take, measured on its first point (on stderr)."""
    if seconds < ESTIMATE_FROM_S:
        return
    import sys
    print(f"note: sweep: {points:,} points to compute; the first took "
          f"{seconds * workers / max(points - 1, 1):.2f} s, so about {_duration(seconds)} "
          f"on {workers} worker(s) (Ctrl-C keeps every finished point in the cache)",
          file=sys.stderr, flush=True)


def _duration(seconds: float) -> str:
    """`45 s`, `12 min`, `3.4 h`, `2.1 days`."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def execute(args, console: Console) -> int:
    """Sweep one kernel: at every value of its -D axes (each value a build of the file),
    every point of the others."""
    if args.csv:
        _claim_csv(args)
    axes = dict(_axis(item, "-p") for item in args.param)
    archs = [a.strip() for a in args.arch.split(",") if a.strip()]
    if not archs:
        raise KernelError(f"--arch {args.arch!r}: no architecture named (sm_90, or several: "
                          "sm_80,sm_90)")
    plain, macros = _define_axes(args)
    from ...frontends.loader import is_cuda
    cuda = is_cuda(args.file)
    if cuda and (args.pad or args.swizzle):
        from ..fixpatch import compiler_of
        what = "a .cu's" if not args.file.endswith(".py") else \
            "a numba kernel's" if compiler_of(args.file) == "numba" else \
            "a Python program's CUDA strings'"
        raise KernelError(f"{'--pad' if args.pad else '--swizzle'}: {what} layouts are changes "
                          f"of its file, which `smemsim fix` makes and counts as "
                          f"{compiler_of(args.file)} builds each" +
                          (" (or sweep a macro of the file: -D PAD=0,1,2)"
                           if not args.file.endswith(".py") else ""))
    results, cached, name = [], 0, None
    args.sweep_notes = []   # (what every point's counts rest on, said under the table)
    # a .cu is a build per architecture (nvcc's PTX and ptxas's SASS for it); a kernels
    # file is one IR, analyzed under each architecture's rules
    builds = [[a] for a in archs] if cuda else [archs]
    for values, build_archs in itertools.product(itertools.product(*macros.values()),
                                                 builds):   # (no -D axis: one build)
        fixed = tuple(zip(macros, values))
        args.define = plain + [f"{n}={v}" for n, v in fixed]
        args.arch = build_archs[0] if cuda else args.arch
        try:
            result = _sweep_build(args, console, axes, build_archs, fixed)
        except KernelError as err:
            if not macros and len(builds) == 1:
                raise
            from ...search.sweep import Point, PointResult   # this build: its points not analyzed
            results += [PointResult(Point(fixed, arch), error=str(err))
                        for arch in build_archs]
            continue
        name = result.kernel
        results += result.results
        cached += result.cached
    if all(r.error is not None for r in results):  # an input error, not a finding
        raise KernelError(f"no point of the sweep could be analyzed; the first: "
                          f"{results[0].point.label}: {results[0].error}")
    return _report(args, console, SweepResult(name, tuple(results), cached),
                   {**macros, **axes})


def _define_axes(args) -> tuple[list[str], dict[str, list]]:
    """sweep's -D: NAME=VALUES with two or more values is an axis, a build of the file at
    each: a list (`T=float,double`, `PAD=0,1,2`) or START:STOP[:STEP] of integers, as -p's;
    any other is a macro, as nvcc -D (a value in brackets keeps its commas: `-D
    DIMS=(2,3)`)."""
    plain, macros = [], {}
    for item in args.define:
        name, sep, spec = item.partition("=")
        values = None
        if sep and not any(c in spec for c in "()[]{}"):
            if "," in spec:
                values = [v.strip() for v in spec.split(",")]
                if not all(values):
                    raise KernelError(f"-D {item}: an empty value")
            elif ":" in spec:
                values = _axis(item, "-D")[1]
                if len(values) == 1:   # (START:STOP:STEP of one value: that value)
                    item = f"{name}={values[0]}"
        if values is not None and len(values) > 1:
            if name in macros:
                raise KernelError(f"-D {name}: given twice as an axis")
            macros[name] = values
        else:
            plain.append(item)
    return plain, macros


def _sweep_build(args, console: Console, axes: dict, archs: list, fixed: tuple) -> SweepResult:
    """The sweep of one build of the file (`fixed`: the -D axes' values it is built at,
    named first in each of its points)."""
    key, kernel = one_kernel(args)
    note = _invented_inputs(args, key, kernel)
    if note and note not in args.sweep_notes:
        args.sweep_notes.append(note)
    layouts: dict[str, list[Layout]] = {}
    for item in args.pad:
        name, values = _axis(item, "--pad")
        if any(not isinstance(v, int) or v < 0 for v in values):
            raise KernelError(f"--pad {item}: paddings are whole numbers of elements >= 0")
        layouts.setdefault(name, []).extend(Layout(name, pad=v) for v in values)
    for item in args.swizzle:
        name, _, spec = item.partition("=")
        layouts.setdefault(name, []).extend(_swizzles(name, spec, item))
    declared = {v.name: v for v in kernel.shared}
    for name, choices in layouts.items():  # as declared is always one of the choices
        view = declared.get(name)
        if view is None:
            raise KernelError(f"no shared array '{name}'; the arrays are "
                              f"{', '.join(declared) or 'none'}", kernel=kernel.name)
        if any(c.pad is not None for c in choices) and (view.rank < 2 or
                                                         len(view.buffer.views) > 1):
            raise KernelError(f"--pad {name}: padding needs a shared array of rank 2 or more "
                              f"whose bytes no other view aliases ('{name}' has rank "
                              f"{view.rank} and {len(view.buffer.views)} view(s))",
                              kernel=kernel.name)
        same = [c for c in choices if c.declared or (c.swizzle is None and c.pad == view.pad
                                                     and view.layout is None)]
        if not same:
            choices.insert(0, Layout(name))
    points = product(axes, archs, layouts, base=None)
    resources = None
    if args.regs == "compile" and kernel.built is not None:
        from ..common import cuda_options, ptx_reading
        resources = OwnBuild(str(find_file(args.file)), cuda_options(args),
                             ptx_reading(args)["flags"], key)
    elif args.regs == "compile":
        from gpu_backend.compile import kernel_resources
        resources = kernel_resources
    cache = None if args.no_cache else cache_dir("sweep")
    with progress(console, args) as bar:
        task = bar.add_task(f"sweeping {kernel.name}"
                            f"{''.join(f', {n}={v}' for n, v in fixed)}: {len(points)} points",
                            total=len(points))
        result = sweep(kernel, points, registers=None if resources else args.regs,
                       resources=resources, inputs=(str(find_file(args.file)), key),
                       jobs=args.jobs,
                       scheduler=args.scheduler, cache=cache,
                       progress=lambda done, n: bar.update(task, completed=done),
                       estimate=_say_estimate)
    if not fixed:
        return result
    from dataclasses import replace   # (the -D axes' values are no kernel parameters)
    return replace(result, results=tuple(
        replace(r, point=replace(r.point, params=fixed + r.point.params))
        for r in result.results))


class OwnBuild:
    """(kernel, arch) -> (registers, static shared memory) of nvcc's build of the user's own
    file for that architecture: `--regs compile` of a .cu counts the build the user runs,
    not NVRTC's of the regenerated kernel (46 against 56 registers for a float4 SGEMM on
    sm_80). A module-level class, so that a sweep's worker processes can take it."""

    def __init__(self, file: str, options, flags: tuple, key: str):
        self.file, self.options, self.flags, self.key = file, options, flags, key
        self.__qualname__ = f"OwnBuild({file!r}, {flags!r}, {key!r})"   # (the cache's key)

    def __call__(self, kernel, arch: str) -> tuple[int, int]:
        built = kernel.built
        if built is None or built.arch.rstrip("a") != arch:
            from ...frontends.loader import load_kernels
            built = load_kernels(self.file, self.options,
                                 {"arch": arch, "flags": self.flags})[self.key]().built
        if built is None:   # (ptxas unreadable here: the analysis said so; NVRTC's count)
            from gpu_backend.compile import kernel_resources
            return kernel_resources(kernel, arch)
        return built.registers, built.static_smem


def _report(args, console: Console, result, axes: dict) -> int:
    """A sweep's result as its table (or JSON, CSV)."""
    front = result.pareto()
    if args.csv:
        _write_csv(args.csv, result, front)
    notes = getattr(args, "sweep_notes", [])
    if args.json:
        print_json(console, [jsonout.sweep_json(result, front) |
                             ({"notes": list(notes)} if notes else {})])
        return EXIT_OK
    _print(console, args, result, front, axes)
    for note in notes:
        say(console, f"note: {note}")
    return EXIT_OK


def _invented_inputs(args, key: str, kernel) -> str | None:
    """Where sites' addresses depend on values the kernel loads and the inputs are
    smemsim's seeded random values (a .cu's, or a kernels file without ARRAYS for the
    kernel): every point counts that one draw, whatever its parameters mean for the data
    (a histogram swept over its bin count keeps values 0..255): the note that says so."""
    from ...frontends.loader import prescribes_inputs
    from ...launch.slicing import slice_kernel
    sites = sorted(slice_kernel(kernel).data_dependent)
    if not sites or prescribes_inputs(args.file, key):
        return None
    drawn = [g.name for g in kernel.globals if g.intent != "out" and g.initial is None]
    if not drawn:
        return None
    return (f"site{'s' * (len(sites) > 1)} {', '.join(map(str, sites))}: "
            f"{'their addresses depend' if len(sites) > 1 else 'its address depends'} on "
            f"values the kernel loads, and every point counts them on smemsim's seeded random "
            f"{', '.join(repr(n) for n in drawn)} (one draw, whatever the swept parameters "
            "mean for the data), not the program's: a kernels file's ARRAYS can make inputs "
            "that follow the parameters")


def _axis(item: str, option: str) -> tuple[str, list]:
    """`K=a,b,c` or `K=START:STOP[:STEP]` as (K, values)."""
    name, sep, spec = item.partition("=")
    if not sep or not name or not spec:
        raise KernelError(f"{option} takes K=VALUES (64,128 or START:STOP[:STEP]), got "
                          f"{item!r}")
    if spec.count(":") > 2:
        raise KernelError(f"{option} {item}: `{spec}` is not START:STOP[:STEP] (it has "
                          f"{spec.count(':') + 1} parts); a list of values is a,b,c")
    try:
        if ":" in spec:
            values = list(range(*[int(x, 0) for x in spec.split(":")]))
        else:
            values = [_number(x) for x in spec.split(",")]
    except (ValueError, TypeError):
        values = []
    if not values:
        raise KernelError(f"{option} {item}: no values (64,128 or START:STOP[:STEP], STOP "
                          "excluded)")
    return name, values


def _number(text: str) -> int | float:
    try:
        return int(text, 0)
    except ValueError:
        return float(text)


def _swizzles(name: str, spec: str, item: str) -> list[Layout]:
    out = []
    for part in spec.split(","):
        if part == "none":  # as declared
            out.append(Layout(name))
            continue
        try:
            b, m, s = (int(x) for x in part.split("."))
        except ValueError:
            raise KernelError(f"--swizzle {item}: each swizzle is B.M.S (Swizzle<B,M,S> of "
                              "the array's elements) or 'none'") from None
        out.append(Layout(name, swizzle=(b, m, s)))
    if not name or not out:
        raise KernelError(f"--swizzle takes ARRAY=B.M.S,..., got {item!r}")
    return out


COLUMNS = ("requests", "wavefronts", "ideal", "excess", "smem_per_block", "smem_blocks",
           "registers", "active_warps", "active_blocks", "occupancy", "warps_at_most")


def _claim_csv(args) -> None:
    """--csv's file, claimed before the work: an existing one is replaced only if it is a
    sweep's table (its header ends with the pareto and error columns)."""
    outputs.claim(args.csv, "--csv", args, "sweep",
                  ours=lambda data: data.split(b"\n", 1)[0].rstrip(b"\r").endswith(
                      b",pareto,error"))


def _write_csv(path: str, result, front) -> None:
    on_front = {id(r) for r in front}
    names = sorted({k for r in result.results for k, _ in r.point.params})
    f = io.StringIO(newline="")
    w = csv.writer(f)
    w.writerow([*names, "arch", "layouts", *COLUMNS, "pareto", "error"])
    for r in result.results:
        params = dict(r.point.params)
        w.writerow([*(params.get(n, "") for n in names), r.point.arch,
                    "; ".join(x.label for x in r.point.layouts),
                    *("" if getattr(r, c) is None else getattr(r, c) for c in COLUMNS),
                    int(id(r) in on_front), r.error or ""])
    outputs.write(path, f.getvalue(), "--csv")


def _print(console: Console, args, result, front, axes) -> None:
    ranked = result.ranked()
    on_front = {id(r) for r in front}
    shown = ranked if args.top == 0 else ranked[:args.top]
    # (the title a line of its own, whole: a table's title wraps at the table's width)
    title = (f"{result.kernel}: {len(result.results)} points"
             f"{f' ({result.cached} cached)' if result.cached else ''}, best first; "
             "* on the Pareto front")
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    names = list(axes)
    archs = len({r.point.arch for r in result.results}) > 1
    layouts = any(r.point.layouts for r in result.results)
    occupancy = any(r.occupancy is not None for r in ranked)
    rows = []
    for n, r in enumerate(shown, 1):
        params = dict(r.point.params)
        row = [f"{n}{'*' if id(r) in on_front else ''}", *(str(params[k]) for k in names)]
        row += [r.point.arch] if archs else []
        row += ["; ".join(x.label for x in r.point.layouts) or "as declared"] if layouts else []
        # blocks per SM: the active blocks where registers are known (every limit), else
        # the most shared memory allows (its column says so)
        row += [f"{r.wavefronts:,}", f"{r.excess:,}", f"{r.smem_per_block:,}",
                str(r.active_blocks if occupancy else r.smem_blocks)]
        if occupancy:
            row += [str(r.registers),
                    f"{r.occupancy:.2f}" if r.occupancy is not None else "-"]
        rows.append(row)
    columns = ["#", *names, *(["arch"] if archs else []), *(["layout"] if layouts else []),
               "wavefronts", "excess", "smem B", "blk/SM" if occupancy else "smem blk/SM",
               *(["regs", "occ"] if occupancy
                                                               else [])]
    for i, c in enumerate(columns):
        # a figure is never cut: every column but the layout's labels keeps its widest cell
        # whole; the labels fold onto further lines when the terminal is narrow
        whole = max([len(c), *(len(row[i]) for row in rows)])
        t.add_column(c, justify="left" if c in ("arch", "layout") else "right",
                     no_wrap=c != "layout", overflow="fold",
                     min_width=None if c == "layout" else whole)
    for row in rows:
        t.add_row(*row)
    console.print(Text(title, no_wrap=True, overflow="ignore"))
    console.print(t)
    if len(shown) < len(ranked):
        say(console, f"{len(ranked) - len(shown)} more point(s): --top 0 shows all, --csv "
                     "writes them")
    front_of = f"Pareto front of wavefronts, shared memory per block and occupancy" \
        f"{'' if occupancy else ' (at most: registers not given; --regs compile)'}"
    if len(front) == len(ranked) > 2 and \
            len({(r.wavefronts, r.smem_per_block) for r in ranked}) == 1:
        # (each point ties with every other, occupancy included, or the front would leave
        # out the lower: a list of all of them says nothing)
        say(console, f"{front_of}: every point, all {len(ranked)} alike in all three")
    else:
        say(console, f"{front_of} ({len(front)} point(s)): " +
            "; ".join(r.point.label for r in front[:6]) + (" ..." if len(front) > 6 else ""))
    ideals = [r.ideal for r in ranked if r.ideal]
    if ideals and max(ideals) > 1.5 * min(ideals):
        # (a problem size among the axes: a smaller launch is no better layout)
        say(console, f"the points launch different work (ideal wavefronts {min(ideals):,} to "
                     f"{max(ideals):,}): their wavefronts, and the front, compare launches of "
                     "different sizes; excess / ideal compares their conflicts")
    same = {(r.requests, r.wavefronts, r.ideal, r.smem_per_block) for r in ranked}
    if len(ranked) > 1 and len(same) == 1:
        # (a parameter the host code also reads for the launch: -p changes the kernel's
        # argument, not the host's value, so not the grid that decides the work)
        # (the parameters whose values differ among the points counted: one refused at
        # every value but one changed nothing that was counted)
        values: dict = {}
        for r in ranked:
            for k, v in r.point.params:
                values.setdefault(k, set()).add(v)
        swept = sorted(k for k, vs in values.items() if len(vs) > 1)
        counted = "every point counted" if any(r.error is not None for r in result.results) \
            else "every point"
        say(console, f"{counted} counts the same: " +
            (f"{', '.join(swept)} change{'s' if len(swept) == 1 else ''} no shared access "
             "here; where the host code computes the launch from a value of its own (`grid = "
             "n // TILE`), -p changes only the kernel's argument, not that launch" if swept
             else
             "the swept changes move no access"))
    failed = [r for r in result.results if r.error is not None]
    for r in itertools.islice(failed, 5):
        say(console, f"not analyzed: {r.point.label}: {r.error}")
    if len(failed) > 5:
        say(console, f"... and {len(failed) - 5} more point(s) not analyzed (--json lists "
                     "them)")

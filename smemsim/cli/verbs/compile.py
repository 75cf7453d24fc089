"""`smemsim compile`: NVRTC (no GPU needed), registers, the SASS width check, re-analysis."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import BuildResources, KernelError

from ...launch.analysis import analyze
from ...launch.occupancy import registers_allocated
from .. import jsonout, render
from ..common import EXIT_OK, build_or_explain, busy, inputs, kernels, own_params, print_json, say
from ..options import add_common, add_kernels, parse_params

HELP = ("compile (no GPU needed; a .cu as nvcc builds it, a kernels file with NVRTC): "
        "registers, SASS width check, re-analysis")
EXAMPLES = """\
  smemsim compile transpose --kernel naive
  smemsim compile kernel.cu -I include --nvcc-flag=-use_fast_math"""


def add_arguments(p) -> None:
    """compile's options."""
    add_common(p)
    add_kernels(p)


def execute(args, console: Console) -> int:
    """Compile every selected kernel; re-analyze the widths the compiler emitted."""
    given = parse_params(args.param)
    docs = []
    chosen = kernels(args)
    for name, kernel in chosen:
        params = own_params(given, kernel, chosen)
        with busy(console, args, f"compiling {kernel.name}"):
            c = build_or_explain(args, name, kernel, "compile")
        if isinstance(c, BuildResources):  # the kernel's own build (nvcc's, Triton's...)
            doc = _own_build(args, console, name, kernel, c, params)
            docs.append(doc)
            continue
        rerun, unexplained = None, None
        if not c.widths_ok:
            from gpu_backend.as_compiled import analyze_as_compiled
            try:
                with busy(console, args, f"tracing {kernel.name}"):
                    rerun = analyze_as_compiled(kernel, params, arch=args.arch, compiled=c,
                                                arrays=inputs(args, name, kernel, params))
            except KernelError as err:
                # a change the re-analysis cannot follow: reported, never guessed
                unexplained = str(err)
        docs.append(jsonout.compile_json(c, rerun) | {"unexplained": unexplained})
        if args.json:
            continue
        regs = render.registers_text(c.registers, registers_allocated(c.registers))
        say(console, f"{kernel.name} for {c.arch}: {regs}, {c.local} B "
                     f"local (spills), {c.static_smem} B static shared memory")
        for s in c.sites:
            say(console, ("  ok       " if s.ok else "  CHANGED  ") + s.describe())
        for a in c.unattributed:
            say(console, f"  CHANGED  {a.opcode} on line {a.line} of the generated source "
                         "belongs to no IR site")
        if unexplained:
            say(console, f"the compiler changed the kernel in a way the re-analysis cannot "
                         f"follow: {unexplained}")
        if rerun is not None:
            for note in rerun.compiler:
                say(console, "  " + note)
            say(console, "the compiler changed the kernel; the analysis of what it emitted "
                         "(`analyze --as-compiled`, docs/as-compiled.md):")
            console.print(render.report_table(rerun, width=console.width))
    if args.json:
        print_json(console, docs)
    return EXIT_OK


def _own_build(args, console: Console, name: str, kernel, build, params) -> dict:
    """A kernel read from its own build (a .cu as nvcc builds it): that build's resources,
    and the analysis of what it emitted (the kernel read from the build's PTX, with the
    merges its SASS shows: its notes say each line where ptxas changed what the PTX
    states)."""
    with busy(console, args, f"tracing {kernel.name}"):
        rerun = analyze(kernel, params, arch=args.arch,
                        arrays=inputs(args, name, kernel, params))
    doc = jsonout.own_build_json(kernel, build, rerun)
    if not args.json:
        regs = render.registers_text(build.registers, registers_allocated(
            build.registers, build.runtime_calls))
        say(console, f"{kernel.name} for {build.arch}: {regs}, "
                     f"{build.stack} B stack frame ({build.spill_stores} B spilled), "
                     f"{build.static_smem} B static shared memory")
        for note in rerun.compiler:
            say(console, "  " + note)
        if rerun.compiler:
            say(console, "the analysis of what nvcc built:")
            console.print(render.report_table(rerun, width=console.width))
    return doc

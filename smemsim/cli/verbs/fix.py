"""`smemsim fix`: paddings and XOR swizzles for conflicted arrays, each re-analyzed."""
from __future__ import annotations

from rich.console import Console

from ...fix import search
from .. import jsonout, render
from ..common import EXIT_OK, inputs, kernels, occupancy_of, print_json, progress
from ..options import add_common, add_jobs, add_kernels, add_regs, parse_params

HELP = "search paddings and XOR swizzles for conflicted arrays, re-analyzing each"
EXAMPLES = """\
  smemsim fix examples/transpose.cu
  smemsim fix transpose --kernel naive --regs 32"""


def add_arguments(p) -> None:
    """fix's options."""
    add_common(p)
    add_kernels(p, nvcc=True)
    p.add_argument("site", type=int, nargs="?",
                   help="site number (default: every conflicted array)")
    add_regs(p, "registers per thread, to show each change's occupancy")
    add_jobs(p)


def execute(args, console: Console) -> int:
    """Search every selected kernel."""
    params = parse_params(args.param)
    docs = []
    for name, kernel in kernels(args):
        regs = args.regs
        if regs == "compile":
            regs = occupancy_of(kernel, args.arch, "compile", params,
                                source=(args, name)).registers_per_thread
        arrays = inputs(args, name, kernel, params)
        with progress(console, args) as bar:
            task = bar.add_task(f"searching {kernel.name}", total=None)
            f = search(kernel, params, arch=args.arch, registers=regs, arrays=arrays,
                       site=args.site, jobs=args.jobs,
                       progress=lambda i, n: bar.update(task, completed=i, total=n))
        docs.append(jsonout.fix_json(f))
        if not args.json:
            console.print(render.fix_view(f))
            console.print()
    if args.json:
        print_json(console, docs)
    return EXIT_OK

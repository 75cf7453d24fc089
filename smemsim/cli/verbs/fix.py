"""`smemsim fix`: paddings and XOR swizzles for conflicted arrays, each re-analyzed."""
from __future__ import annotations

import pathlib

from rich.console import Console

from kernels_ir import KernelError

from ...fix import search
from .. import jsonout, render
from ..common import EXIT_OK, busy, inputs, kernels, occupancy_of, print_json, progress
from ..fixpatch import CheckedPatch, checked_patch, patchable
from ..options import add_common, add_jobs, add_kernels, add_regs, parse_params

HELP = "search paddings and XOR swizzles for conflicted arrays, re-analyzing each"
EXAMPLES = """\
  smemsim fix examples/transpose.cu                      (the change as a diff of your file)
  smemsim fix examples/transpose.cu --patch fix.patch    (then: patch -p1 < fix.patch)
  smemsim fix transpose --kernel naive --regs 32"""


def add_arguments(p) -> None:
    """fix's options."""
    add_common(p)
    add_kernels(p, nvcc=True)
    p.add_argument("site", type=int, nargs="?",
                   help="site number (default: every conflicted array)")
    add_regs(p, "registers per thread, to show each change's occupancy")
    p.add_argument("--patch", metavar="FILE",
                   help="for a .cu: write the best change of every array as a unified diff of "
                        "your file (patch -p1 or git apply take it); checked before it is "
                        "written: the patched file imports and analyzes to the predicted "
                        "wavefronts, and builds with nvcc where nvcc is installed")
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
        patch = None
        if patchable(args.file) and f.best:
            with busy(console, args, "writing and checking the patch"):
                patch = checked_patch(args, name, kernel, f, params, arrays)
        if args.patch and patch is None:
            raise KernelError(f"--patch {args.patch}: " + (
                "only a .cu or .cuh file can be patched" if not patchable(args.file) else
                f"no change lowers {kernel.name}'s wavefronts: nothing to patch"))
        docs.append(jsonout.fix_json(f) | ({"patch": jsonout.patch_json(patch)} if patch
                                           else {}))
        if not args.json:
            console.print(render.fix_view(f, cuda=patch is not None))
            if patch is not None:
                render.print_patch(console, patch)
            console.print()
        if args.patch and isinstance(patch, CheckedPatch):
            _write_patch(args.patch, patch.patch.diff)
    if args.json:
        print_json(console, docs)
    return EXIT_OK


def _write_patch(path: str, diff: str) -> None:
    try:
        pathlib.Path(path).write_text(diff, encoding="utf-8")
    except OSError as err:
        raise KernelError(f"cannot write {path}: {err.strerror}") from None

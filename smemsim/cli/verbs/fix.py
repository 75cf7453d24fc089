"""`smemsim fix`: paddings and XOR swizzles for conflicted arrays, each re-analyzed."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError

from ...fix import block_shapes, search
from .. import jsonout, outputs, render
from ..common import EXIT_OK, busy, inputs, kernels, occupancy_of, own_params, print_json, progress
from ..fixpatch import (
    CheckedPatch, checked_patch, combined_wavefronts, patchable, predicted_wavefronts,
    rank_as_built, original_as_built,
)
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
    p.add_argument("--as-compiled", action="store_true",
                   help="for a .cu: rank the changes by what nvcc builds from each patched "
                        "file (each built and counted as --as-compiled counts it), and try "
                        "swizzles that keep the build's vector reads together")
    outputs.add_force(p)
    add_jobs(p)


def execute(args, console: Console) -> int:
    """Search every selected kernel."""
    if args.patch:  # a patch smemsim wrote ends with its seal: replaced without --force
        outputs.claim(args.patch, "--patch", args, "fix", ours=outputs.sealed,
                      source_ok=())
    given = parse_params(args.param)
    docs = []
    chosen = kernels(args)
    for name, kernel in chosen:
        params = own_params(given, kernel, chosen)
        regs = args.regs
        if regs == "compile":
            regs = occupancy_of(kernel, args.arch, "compile", params,
                                source=(args, name)).registers_per_thread
        arrays = inputs(args, name, kernel, params)
        original = ranking = None
        if args.as_compiled:
            if not patchable(args.file):
                raise KernelError("fix --as-compiled needs a .cu or .cuh file: it builds each "
                                  "change into your file with nvcc")
            with busy(console, args, f"building {kernel.name}"):
                original = original_as_built(args, kernel, params, arrays)
        with progress(console, args) as bar:
            task = bar.add_task(f"searching {kernel.name}", total=None)
            f = search(kernel, params, arch=args.arch, registers=regs, arrays=arrays,
                       site=args.site, jobs=args.jobs,
                       progress=lambda i, n: bar.update(task, completed=i, total=n))
        shapes = block_shapes(kernel, params, arch=args.arch, arrays=arrays)
        chosen, predicted = f.best, predicted_wavefronts(f) if f.best else 0
        if args.as_compiled and f.arrays:
            with progress(console, args) as bar:
                task = bar.add_task(f"building each change of {kernel.name}", total=None)
                ranking = rank_as_built(args, name, kernel, f, original, params, arrays,
                                        lambda i, n: bar.update(task, completed=i, total=n))
            chosen = ranking.best
            predicted = combined_wavefronts(kernel, chosen, params, args.arch, arrays)
        patch = None
        if patchable(args.file) and chosen:
            with busy(console, args, "writing and checking the patch"):
                patch = checked_patch(args, name, kernel, chosen, predicted, params, arrays,
                                      original)
        if args.patch and patch is None:
            raise KernelError(f"--patch {args.patch}: " + (
                "only a .cu or .cuh file can be patched" if not patchable(args.file) else
                f"no change lowers {kernel.name}'s wavefronts: nothing to patch"))
        docs.append(jsonout.fix_json(f) | ({"patch": jsonout.patch_json(patch)} if patch
                                           else {}) |
                    ({"as_built": jsonout.ranking_json(ranking)} if ranking else {}) |
                    {"block_shapes": [jsonout.shape_json(x) for x in shapes]})
        if not args.json:
            console.print(render.fix_view(f, cuda=patch is not None or args.as_compiled))
            if ranking is not None:
                console.print(render.ranking_view(ranking, f))
            if shapes:
                console.print(render.shapes_view(kernel, f.baseline, shapes))
            if patch is not None:
                render.print_patch(console, patch)
            console.print()
        if args.patch and isinstance(patch, CheckedPatch):
            _write_patch(args.patch, patch.patch.diff)
    if args.json:
        print_json(console, docs)
    return EXIT_OK


def _write_patch(path: str, diff: str) -> None:
    outputs.write(path, outputs.seal(diff, outputs.PATCH_COMMENT), "--patch")

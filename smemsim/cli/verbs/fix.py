"""`smemsim fix`: paddings and XOR swizzles for conflicted arrays, each re-analyzed."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError

from ...search.fix import block_shapes, search
from .. import jsonout, outputs, render
from ..common import (
    EXIT_OK, busy, inputs, kernels, occupancy_of, own_params, print_json, progress, say,
)
from ..fixpatch import (CheckedPatch, checked_patch, compiler_of, patchable,
                        predicted_wavefronts, source_of)
from ..options import add_common, add_jobs, add_kernels, add_regs, parse_params

HELP = "search paddings and XOR swizzles for conflicted arrays, re-analyzing each"
EXAMPLES = """\
  smemsim fix examples/transpose.cu                      (the change as a diff of your file)
  smemsim fix examples/transpose.cu --patch fix.patch    (then: patch -p1 < fix.patch)
  smemsim fix transpose --kernel naive --regs 32"""


def add_arguments(p) -> None:
    """fix's options."""
    add_common(p)
    add_kernels(p)
    p.add_argument("site", type=int, nargs="?",
                   help="site number (default: every conflicted array)")
    add_regs(p, "registers per thread, to show each change's occupancy (a change built by "
                "nvcc: the registers ptxas gave its build)")
    p.add_argument("--prefer", choices=("pad", "swizzle"),
                   help="the kind of change to choose for each array where one of that kind "
                        "lowers its wavefronts, even if the other kind lowers them more "
                        "(padding reads more plainly: `[32][33]`)")
    p.add_argument("--patch", metavar="FILE",
                   help="for a .cu: write the best change of every array as a unified diff of "
                        "your file (patch -p1 or git apply take it); checked before it is "
                        "written: the patched file imports and analyzes to the predicted "
                        "wavefronts, and builds with nvcc where nvcc is installed")
    p.add_argument("--as-compiled", action="store_true",
                   help="accepted for a .cu, whose every change is counted as nvcc builds "
                        "the changed file already (a no-op); not for a kernels file")
    p.add_argument("--sarif", metavar="FILE",
                   help="also write the conflicted sites as SARIF 2.1.0, each carrying the "
                        "checked patch of its array as a fix (an editor's SARIF viewer "
                        "applies it)")
    outputs.add_force(p)
    add_jobs(p)


def execute(args, console: Console) -> int:
    """Search every selected kernel."""
    if args.patch:  # a patch smemsim wrote ends with its seal: replaced without --force
        outputs.claim(args.patch, "--patch", args, "fix", ours=outputs.sealed,
                      source_ok=())
    if args.sarif:
        from .. import sarif
        sarif.claim(args, "fix")
    given = parse_params(args.param)
    docs, findings = [], []
    written, unpatched = [], []   # (--patch: the kernels with a checked patch, without one)
    clean = []                    # (kernels with no excess wavefronts: nothing to change)
    chosen = kernels(args)
    baselines = _one_to_patch(args, chosen, given) if args.patch and len(chosen) > 1 else {}
    for name, kernel in chosen:
        params = own_params(given, kernel, chosen)
        regs = args.regs
        if regs == "compile":
            regs = occupancy_of(kernel, args.arch, "compile", params,
                                source=(args, name)).registers_per_thread
        arrays = inputs(args, name, kernel, params)
        if args.as_compiled and not patchable(args.file):
            raise KernelError("fix --as-compiled is for a .cu or .cuh file (where it is what "
                              "fix does already: each change built by nvcc and counted)")
        with progress(console, args) as bar:
            task = bar.add_task(f"searching {kernel.name}", total=None)
            step = lambda i, n: bar.update(task, completed=i, total=n)  # noqa: E731
            if patchable(args.file):   # each change patched into the file and built
                from ...search.fix_built import search_source
                f = search_source(kernel, source_of(args, name), params, arch=args.arch,
                                  registers=regs, arrays=arrays, site=args.site,
                                  jobs=args.jobs, progress=step, prefer=args.prefer,
                                  baseline=baselines.get(name))
            else:
                f = search(kernel, params, arch=args.arch, registers=regs, arrays=arrays,
                           site=args.site, jobs=args.jobs, progress=step, prefer=args.prefer,
                           baseline=baselines.get(name))
        as_read = None
        if patchable(args.file) and not f.candidates and f.skipped and f.arrays:
            # no change could be patched in (a macro's accesses, a kernel in a header):
            # each is counted on the build as read instead, for the change made by hand
            with busy(console, args, f"counting {kernel.name}'s changes on its build"):
                as_read = search(kernel, params, arch=args.arch, registers=regs,
                                 arrays=arrays, site=args.site, jobs=args.jobs,
                                 prefer=args.prefer, baseline=f.baseline)
        shapes = block_shapes(kernel, params, arch=args.arch, arrays=arrays)
        # (each array's best change: `chosen` is the kernels, which the next one's -p needs)
        best, predicted = f.best, predicted_wavefronts(f) if f.best else 0
        patch = None
        if patchable(args.file) and best:
            with busy(console, args, "writing and checking the patch"):
                patch = checked_patch(args, name, kernel, best, predicted, params, arrays,
                                      f.baseline.wavefronts)
        if args.patch and patch is None:
            if not patchable(args.file):
                raise KernelError(f"--patch {args.patch}: only a .cu or .cuh file, a "
                                  "cupy or pycuda program's CUDA strings or a numba kernel's "
                                  "file can be patched (a Triton kernel or a kernels file: "
                                  "make the change shown in its source)")
            if f.baseline.excess == 0:
                clean.append(kernel.name)
            unpatched.append(f"no change to {kernel.name} could be tried ({len(f.skipped)} "
                             "skipped)" if not f.candidates and f.skipped else
                             f"{kernel.name} has no bank conflict" if f.baseline.excess == 0
                             else f"no change lowers {kernel.name}'s wavefronts")
        docs.append(jsonout.fix_json(f) | ({"patch": jsonout.patch_json(patch)} if patch
                                           else {}) |
                    ({"counted_as_read": jsonout.fix_json(as_read)} if as_read else {}) |
                    {"block_shapes": [jsonout.shape_json(x) for x in shapes]})
        if not args.json:
            console.print(render.fix_view(f, cuda=patchable(args.file),
                                          from_build=kernel.built is not None,
                                          compiler=compiler_of(args.file)))
            if as_read is not None:
                say(console, "the same arrays' changes, counted on the build as read (not "
                             "patched in: make the one you choose by hand):")
                console.print(render.fix_view(as_read, from_build=True, header=False))
            if shapes:
                console.print(render.shapes_view(kernel, f.baseline, shapes))
            if patch is not None:
                render.print_patch(console, patch, compiler_of(args.file))
            console.print()
        if args.patch and isinstance(patch, CheckedPatch):
            written.append((kernel.name, patch))
        elif args.patch and patch is not None:   # (a NoPatch: shown above, said below)
            unpatched.append(f"{kernel.name}: {patch.reason}")
        if args.sarif:
            from .. import sarif
            findings += sarif.fix_results(f, patch if isinstance(patch, CheckedPatch)
                                          else None)
    if args.patch:
        # one file, one patch: of the one kernel that has a change (the others said so)
        if not written and len(clean) == len(unpatched):
            # (conflict-free is the answer a script over many kernels hopes for: no file,
            # exit 0)
            say(console, f"--patch {args.patch}: nothing to patch ({'; '.join(unpatched)}); "
                         "no file written")
        elif not written:
            raise KernelError(f"--patch {args.patch}: {'; '.join(unpatched)}: nothing to "
                              "patch")
        if len(written) > 1:
            raise KernelError(f"--patch {args.patch}: {len(written)} kernels have changes "
                              f"({', '.join(n for n, _ in written)}): patch one at a time "
                              "with --kernel")
        if written:
            _write_patch(args.patch, written[0][1].patch.diff)
    if args.sarif:
        from .. import sarif
        sarif.write(args.sarif, findings)
    if args.json:
        print_json(console, docs)
    return EXIT_OK


def _one_to_patch(args, chosen, given) -> dict:
    """--patch of a file of several kernels: each one's analysis (the searches' baselines),
    refusing before any search where two have bank conflicts (one file, one patch: the
    searches would be wasted)."""
    from ...launch.analysis import analyze
    out = {}
    for name, kernel in chosen:
        params = own_params(given, kernel, chosen)
        out[name] = analyze(kernel, params, arch=args.arch,
                            arrays=inputs(args, name, kernel, params))
    conflicted = [kernel.name for name, kernel in chosen if out[name].excess]
    if len(conflicted) > 1:
        raise KernelError(f"--patch {args.patch}: {len(conflicted)} kernels have bank "
                          f"conflicts ({', '.join(conflicted)}): patch one at a time with "
                          "--kernel")
    return out


def _write_patch(path: str, diff: str) -> None:
    outputs.write(path, outputs.seal(diff, outputs.PATCH_COMMENT), "--patch")

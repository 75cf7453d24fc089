"""fix's change written into the user's `.cu` (smemsim.cuda.patch) and checked before anyone
applies it: the patched file is imported and analyzed (the count must be fix's prediction),
and where nvcc is installed both files are built and counted as built (`--as-compiled`), so
a change the compiler undoes, or one that costs registers, is seen before it is applied."""
from __future__ import annotations

import dataclasses
import pathlib
import tempfile
from dataclasses import dataclass

from kernels_ir import KernelError

from ..analysis import analyze
from ..cuda.patch import LayoutChange, LayoutPatch, layout_patch
from ..loader import select
from ..occupancy import kernel_occupancy
from .common import nvcc_first_error
from .options import cuda_options


@dataclass(frozen=True)
class Built:
    """One file as nvcc builds it: registers, the warps per SM they allow, and the
    wavefronts of what it emitted."""

    registers: int
    active_warps: int
    wavefronts: int


@dataclass(frozen=True)
class CheckedPatch:
    """A patch of the user's file and what checking it found."""

    patch: LayoutPatch
    predicted: int               # wavefronts fix predicted for the change(s)
    counted: int                 # wavefronts analyze counts on the patched file
    original: Built | None       # as nvcc builds the file as it is, and as patched
    patched: Built | None        # (None: not built, `build_note` says why)
    build_note: str | None


@dataclass(frozen=True)
class NoPatch:
    """Why the change could not be written into the file."""

    reason: str


def patchable(file: str) -> bool:
    """A file the patch can be written into: CUDA source, not CUDA held in Python."""
    return pathlib.Path(file).suffix in (".cu", ".cuh")


def checked_patch(args, key: str, kernel, f, params, arrays) -> CheckedPatch | NoPatch:
    """The per-array best changes of fix search `f` as a patch of `args.file`, checked."""
    changes = [LayoutChange(c.array, c.kind, c.pad, c.swizzle) for c in f.best]
    predicted = f.combined.wavefronts if f.combined is not None else f.best[0].wavefronts
    try:
        patch = layout_patch(args.file, kernel.name, changes)
    except KernelError as err:
        if getattr(args, "patch", None):
            raise KernelError(f"--patch {args.patch}: {err}") from None
        return NoPatch(str(err))
    options = cuda_options(args)
    # the patched copy lives elsewhere: its own folder stays first for #include "..."
    options = dataclasses.replace(options, include_dirs=[
        *options.include_dirs, str(pathlib.Path(args.file).resolve().parent)])
    with tempfile.TemporaryDirectory(prefix="smemsim-patch-") as tmp:
        path = pathlib.Path(tmp) / pathlib.Path(args.file).name
        path.write_text(patch.patched, encoding="utf-8")
        from ..cuda import import_kernels
        try:
            rebuilt = next(iter(select(import_kernels(str(path), options, options.kernel),
                                       key).values()))()
        except KernelError as err:
            raise KernelError(f"the patched file does not import: {err} (a bug in smemsim's "
                              "patch: please report it with your file)") from None
        counted = analyze(rebuilt, params, arch=args.arch, arrays=arrays).wavefronts
        original, patched, note = _as_built(args, options, (args.file, kernel),
                                            (str(path), rebuilt), params, arrays)
    return CheckedPatch(patch, predicted, counted, original, patched, note)


def _as_built(args, options, original, patched, params, arrays):
    """(original, patched, note): each file as nvcc builds it, or why it was not built."""
    from gpu_backend.as_compiled import analyze_as_compiled
    from gpu_backend.compile import CompileError, ToolMissing
    from gpu_backend.original import build_original

    from ..cuda import instantiation

    def built(path: str, kernel) -> Built:
        build = build_original(path, instantiation(path, options, options.kernel),
                               arch=args.arch, defines=options.defines,
                               include_dirs=options.include_dirs,
                               flags=getattr(args, "nvcc_flag", None) or ())
        r = analyze_as_compiled(kernel, params, arch=args.arch, arrays=arrays, build=build)
        occ = kernel_occupancy(kernel, args.arch, build.registers, params,
                               static_smem=build.static_smem)
        return Built(build.registers, occ.active_warps, r.wavefronts)
    try:
        before = built(*original)
    except ToolMissing as err:
        return None, None, f"not built: {err}"
    except CompileError as err:  # the file as given does not build here: no comparison
        return None, None, (f"not built: nvcc cannot build the original file here "
                            f"({nvcc_first_error(str(err))}; give -D, -I and --nvcc-flag as "
                            "your build has them)")
    try:
        after = built(*patched)
    except CompileError as err:
        return before, None, f"nvcc FAILED on the patched file: {nvcc_first_error(str(err))}"
    return before, after, None

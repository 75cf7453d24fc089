"""fix's change written into the user's `.cu` (smemsim.cuda.patch) and checked before anyone
applies it: the patched file is read from nvcc's build and analyzed (the count must be fix's
prediction), and both builds' registers (ptxas's report) give the warps per SM, so a change
the compiler undoes, or one that costs registers, is seen before it is applied."""
from __future__ import annotations

import dataclasses
import os
import pathlib
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernels_ir import KernelError

from ..analysis import analyze
from ..loader import select
from ..occupancy import kernel_occupancy
from .options import cuda_options

if TYPE_CHECKING:  # the CUDA frontend loads only when a .cu is patched
    from ..cuda.patch import LayoutPatch


class PatchError(RuntimeError):
    """smemsim's own patch of a file that imported does not import: a bug of ours."""


@dataclass(frozen=True)
class Built:
    """One file as nvcc builds it: registers, the warps per SM they allow, and the
    wavefronts of what it emitted."""

    registers: int
    active_warps: int
    wavefronts: int
    uncounted: int               # source lines whose SASS differs from their PTX in a way
    #                              the reading does not follow: counted as the PTX states


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


def checked_patch(args, key: str, kernel, chosen, predicted: int, params, arrays,
                  original: Built | None = None) -> CheckedPatch | NoPatch:
    """The `chosen` candidates (one per array) as a patch of `args.file`, checked against
    `predicted` wavefronts (fix's count at the source's widths); `original`: the file as
    built, when the caller has counted it already (fix --as-compiled)."""
    from ..cuda.patch import LayoutChange
    changes = [LayoutChange(c.array, c.kind, c.pad, c.swizzle) for c in chosen]
    try:
        patch = _layout_patch(args.file, kernel.name, changes)
    except KernelError as err:
        if getattr(args, "patch", None):
            raise KernelError(f"--patch {args.patch}: {err}") from None
        return NoPatch(str(err))
    options = _options(args)
    with tempfile.TemporaryDirectory(prefix="smemsim-patch-") as tmp:
        try:
            rebuilt = _patched_copy(args, key, options, patch, tmp)
        except PatchError as err:
            if getattr(args, "patch", None):
                raise  # asked to write it: a bug of ours, exit 3
            return NoPatch(str(err))
        counted = analyze(rebuilt, params, arch=args.arch, arrays=arrays).wavefronts
        original, patched, note = _as_built(args, kernel, rebuilt, params, arrays, original)
    return CheckedPatch(patch, predicted, counted, original, patched, note)


def _layout_patch(file: str, kernel: str, changes):
    """smemsim.cuda.patch.layout_patch (imported here: fix of a kernels file never loads the
    CUDA frontend)."""
    from ..cuda.patch import layout_patch
    return layout_patch(file, kernel, changes)


def predicted_wavefronts(f) -> int:
    """fix's count for its per-array best changes together."""
    return f.combined.wavefronts if f.combined is not None else f.best[0].wavefronts


def combined_wavefronts(kernel, chosen, params, arch: str, arrays) -> int:
    """The kernel's wavefronts at the source's widths with every chosen change made."""
    from ..fix import apply
    variant = kernel
    for c in chosen:
        variant = apply(variant, c)
    return analyze(variant, params, arch=arch, arrays=arrays).wavefronts


def _options(args):
    """The import options, the user's own folder added for the patched copy's #include."""
    options = cuda_options(args)
    return dataclasses.replace(options, include_dirs=[
        *options.include_dirs, str(pathlib.Path(args.file).resolve().parent)])


def _patched_copy(args, key: str, options, patch: LayoutPatch, folder: str):
    """The kernel read from nvcc's build of the patched text, written beside nothing of the
    user's (in `folder`, a temporary one)."""
    from ..ptx.frontend import import_cu
    path = pathlib.Path(folder) / pathlib.Path(args.file).name
    path.write_text(patch.patched, encoding="utf-8")
    try:
        rebuilt = next(iter(select(import_cu(str(path), options, options.kernel, args.arch,
                                             getattr(args, "nvcc_flag", None) or ()),
                                   key).values()))()
    except KernelError as err:
        # the file imported before the patch: this is smemsim's mistake, not the input's
        raise PatchError(f"the patched file does not import: {err} (a bug in smemsim's "
                         "patch: please report it with your file)") from None
    return rebuilt


@dataclass(frozen=True)
class Ranked:
    """One candidate as nvcc builds it (None: its patch could not be written or built)."""

    candidate: object            # smemsim.fix.Candidate
    built: Built | None
    note: str | None


@dataclass(frozen=True)
class AsBuiltRanking:
    """fix's candidates ranked by what nvcc builds from each patched file."""

    original: Built
    rows: tuple[Ranked, ...]     # per array, best as built first
    best: tuple                  # per array, the candidate with the fewest wavefronts as
    #                              built, below the original's, with nothing uncounted,
    #                              among those that keep its warps per SM if any does


# built per array: the swizzles (at most this many, in fix's order) and the best paddings
PER_ARRAY, PADS = 32, 4


def original_as_built(args, kernel, params, arrays) -> Built:
    """The user's file as nvcc builds it (fix --as-compiled's reference)."""
    return _build_count(args, kernel, params, arrays)


def rank_as_built(args, key: str, kernel, f, original: Built, params, arrays,
                  progress=None) -> AsBuiltRanking:
    """Each array's swizzles and best paddings (PER_ARRAY, PADS), patched into the file one
    at a time, built by nvcc and counted as built (--as-compiled), on `args.jobs` threads
    (nvcc runs beside them)."""
    from concurrent.futures import ThreadPoolExecutor
    options = _options(args)
    plan = []
    for name in f.arrays:
        mine = [c for c in f.candidates if c.array == name]
        swizzles = [c for c in mine if c.kind == "swizzle"]
        pads = [c for c in mine if c.kind == "pad"]
        plan += swizzles[:PER_ARRAY] + pads[:PADS]
    done = [0]

    def one(c) -> Ranked:
        from ..cuda.patch import LayoutChange
        try:
            patch = _layout_patch(args.file, kernel.name,
                                  [LayoutChange(c.array, c.kind, c.pad, c.swizzle)])
            with tempfile.TemporaryDirectory(prefix="smemsim-patch-") as tmp:
                rebuilt = _patched_copy(args, key, options, patch, tmp)
                built = _build_count(args, rebuilt, params, arrays)
            return Ranked(c, built, None)
        except (KernelError, PatchError) as err:
            return Ranked(c, None, str(err))
        finally:
            done[0] += 1
            if progress is not None:
                progress(done[0], len(plan))
    with ThreadPoolExecutor(max_workers=args.jobs or os.cpu_count() or 1) as pool:
        rows = list(pool.map(one, plan))
    order = lambda r: (r.built is None, r.built.uncounted > 0 if r.built else True,
                       r.built.wavefronts if r.built else 0, r.candidate.extra_smem)
    rows.sort(key=lambda r: (f.arrays.index(r.candidate.array), order(r)))
    best = []
    for name in f.arrays:
        good = [r for r in rows if r.candidate.array == name and r.built is not None and
                not r.built.uncounted and r.built.wavefronts < original.wavefronts]
        # a change that costs warps per SM (registers, shared memory) only where none keeps
        # them: fewer wavefronts at lower occupancy is a trade the user makes, not fix
        good.sort(key=lambda r: (r.built.active_warps < original.active_warps,
                                 r.built.wavefronts, r.candidate.extra_smem))
        if good:
            best.append(good[0].candidate)
    return AsBuiltRanking(original, tuple(rows), tuple(best))


class Unbuilt(KernelError):
    """A kernel whose build's resources ptxas's report did not give (its notes say why)."""


def _built(args, kernel, params, arrays) -> Built:
    """One file as nvcc builds it: `kernel` as read from that build, and the registers and
    static shared memory ptxas allocated in it (raises Unbuilt where they are unknown)."""
    from ..ptx.frontend import inexact_lines
    build = kernel.built
    if build is None:
        why = next((n for n in kernel.notes if "SASS" in n or "ptxas" in n),
                   "no ptxas report of the build")
        raise Unbuilt(f"{kernel.name}'s build could not be read: {why}")
    r = analyze(kernel, params, arch=args.arch, arrays=arrays)
    occ = kernel_occupancy(kernel, args.arch, build.registers, params,
                           static_smem=build.static_smem)
    return Built(build.registers, occ.active_warps, r.wavefronts, inexact_lines(kernel))


def _build_count(args, kernel, params, arrays) -> Built:
    """_built, a build it cannot read being a one-line error."""
    try:
        return _built(args, kernel, params, arrays)
    except Unbuilt as err:
        raise KernelError(f"--as-compiled: {err}") from None


def _as_built(args, original, patched, params, arrays, before: Built | None = None):
    """(original, patched, note): each kernel as nvcc builds its file, or why it could not
    be read (`before`: the original as built, already counted)."""
    try:
        if before is None:
            before = _built(args, original, params, arrays)
    except Unbuilt as err:
        return None, None, f"not built: {err}"
    try:
        after = _built(args, patched, params, arrays)
    except Unbuilt as err:
        return before, None, f"the patched file's build could not be read: {err}"
    return before, after, None

"""fix's change written into the user's `.cu` (smemsim.frontends.cuda.patch) and checked before
anyone applies it: the patched file is read from nvcc's build and analyzed (the count must
be fix's prediction), and both builds' registers (ptxas's report) give the warps per SM, so
a change the compiler undoes, or one that costs registers, is seen before it is applied."""
from __future__ import annotations

import pathlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernels_ir import KernelError

from ..launch.analysis import analyze
from ..launch.occupancy import kernel_occupancy
from .options import cuda_options

if TYPE_CHECKING:  # the CUDA frontend loads only when a .cu is patched
    from ..frontends.cuda.patch import LayoutPatch


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
    hazards: str = ""            # what the hazard check of both builds found (no new one)
    # the launch's blocks and warps per block: where every block is resident at once either
    # way, fewer warps per SM cost this launch nothing (fix_built's fewer_warps)
    blocks: int = 0
    block_warps: int = 0


@dataclass(frozen=True)
class NoPatch:
    """Why the change could not be written into the file."""

    reason: str


def patchable(file: str) -> bool:
    """A file fix changes and builds: CUDA source, a Python program's CUDA strings (cupy,
    pycuda), or a numba.cuda kernel's file; not Triton's kernels nor a kernels file."""
    from ..frontends.loader import CUDA_SUFFIXES, embeds_cuda
    if pathlib.Path(file).suffix in CUDA_SUFFIXES:
        return True
    return pathlib.Path(file).suffix == ".py" and (embeds_cuda(file) or _numba(file))


def compiler_of(file: str) -> str:
    """The compiler fix builds the file's changes with."""
    return "numba" if pathlib.Path(file).suffix == ".py" and _numba(file) else "nvcc"


def _numba(file: str) -> bool:
    from ..frontends.loader import dsl_of
    return dsl_of(file) == "numba"


def checked_patch(args, key: str, kernel, chosen, predicted: int, params, arrays,
                  baseline_wavefronts: int | None = None) -> CheckedPatch | NoPatch:
    """The `chosen` candidates (one per array) as a patch of `args.file`, checked against
    `predicted` wavefronts (fix's count of the change(s)); `baseline_wavefronts`: the
    kernel's own, where the search analyzed it already."""
    from ..frontends.cuda.patch import LayoutChange
    changes = [LayoutChange(c.array, c.kind, c.pad, c.swizzle) for c in chosen]
    source = source_of(args, key)
    try:
        patch, built = _file_patch(source, kernel.name, changes)
    except KernelError as err:
        # (--patch too: fix shows its table and this, then refuses to write: cli.verbs.fix)
        return NoPatch(str(err))
    try:
        rebuilt = _patched_copy(source, built)
    except PatchError as err:
        if getattr(args, "patch", None):
            raise  # asked to write it: a bug of ours, exit 3
        return NoPatch(str(err))
    counted, found, outputs = _verified(kernel, rebuilt, params, arrays, args.arch,
                                        getattr(args, "jobs", None))
    hazards, new = _hazards(found)
    if not new:
        changed, compared = _changed_results(outputs)
        if changed:
            hazards, new = changed, True
        else:
            hazards += f"; {compared}"
    if new:
        why = (f"the patched kernel {hazards}: a bug of smemsim's patch, not written (please "
               "report it with your file)")
        if getattr(args, "patch", None):
            raise PatchError(why)
        return NoPatch(why)
    original, patched, note = _as_built(args, kernel, rebuilt, params, arrays,
                                        (baseline_wavefronts, counted))
    from kernels_ir import resolve_launch
    launch = resolve_launch(kernel, params)
    return CheckedPatch(patch, predicted, counted, original, patched, note, hazards,
                        launch.num_blocks, -(-launch.threads_per_block // 32))


# the global arrays the outputs' comparison makes (twice: once a kernel), at most
COMPARED_BYTES = 1 << 29


def _verified(original, patched, params, arrays, arch: str, jobs) -> tuple:
    """(the patched kernel's wavefronts, `check` of both kernels in the first and last
    blocks, both kernels' outputs there on the same inputs), the five runs side by side on
    the cores (smemsim.search.pool): a layout change moves bytes, not values, nor who reads
    which element, so the checks and the outputs must agree."""
    from kernels_ir import resolve_launch

    from ..search.pool import parallel_map
    launch = resolve_launch(original, params)
    grid = launch.grid
    blocks = tuple(sorted({0, grid[0] * grid[1] * grid[2] - 1}))
    size = sum(int(launch.lengths[g.name]) * g.dtype.size for g in original.globals)
    compare = arrays is not None or size <= COMPARED_BYTES
    items = [("check", original, params, arrays, arch, blocks),
             ("check", patched, params, arrays, arch, blocks)]
    if compare:
        items += [("run", k, params, arrays, arch, blocks) for k in (original, patched)]
    items.append(("analyze", patched, params, arrays, arch, blocks))
    done = parallel_map(_verify, items, jobs=jobs)
    where = f"block{'s' if len(blocks) > 1 else ''} {' and '.join(map(str, blocks))}"
    outputs = (where, tuple(done[2:4])) if compare else \
        (where, f"outputs not compared (the launch's arrays take {size / 2**30:.1f} GiB, made "
                "for each kernel)")
    return done[-1], (where, done[0], done[1]), outputs


def _verify(item):
    """One of _verified's runs (a module-level function: the pool's workers run it)."""
    import hashlib

    import numpy as np

    from kernels_ir import PartialRun, run
    what, kernel, params, arrays, arch, blocks = item
    if what == "analyze":
        return analyze(kernel, params, arch=arch, arrays=arrays).wavefronts
    if what == "check":
        from ..launch.hazards import check
        h = check(kernel, params, arch=arch, arrays=arrays, blocks=list(blocks))
        return len(h.races), len(h.faults)
    try:
        out = run(kernel, params, arrays, partial=PartialRun(blocks=np.array(blocks,
                                                                              np.int64)))
    except KernelError:
        return None   # (a fault: the hazard check's to report)
    return {name: hashlib.sha256(a.tobytes()).hexdigest() for name, a in out.items()}


def _changed_results(outputs) -> tuple[str | None, str]:
    """(what the patched kernel computes otherwise than the original, run on the same
    inputs in its first and last blocks, or None; what was compared): a layout change moves
    bytes, not values, unless the file uses the array's rows in a way the patch does not
    change (a wmma load's `ldm` argument, a stride written out by hand: the padded tile read
    at the old stride)."""
    where, runs = outputs
    if isinstance(runs, str):
        return None, runs
    before, after = runs
    if before is None or after is None:
        return None, f"outputs not compared ({where} fault)"
    differ = [name for name in before if name in after and before[name] != after[name]]
    if not differ:
        return None, f"the same outputs as the original ({where}, the same inputs)"
    return (f"computes other values in '{differ[0]}' than the original ({where}, the same "
            "inputs): the file uses the array's rows somewhere the patch does not change (a "
            "wmma ldm argument, a stride written by hand)"), ""


def _hazards(found) -> tuple[str, bool]:
    """(what `check` finds in the first and last blocks of both kernels, whether the patched
    one has a race or fault the original has not): a layout change moves bytes, never who
    reads which element, so any new hazard is the patch's mistake (a 3-D array flattened
    with the wrong strides overlaps its slices)."""
    where, (r0, f0), (r1, f1) = found
    if r1 > r0 or f1 > f0:
        return (f"has {r1} race(s) and {f1} fault(s) in {where}, the original {r0} and {f0}",
                True)
    return f"no race or fault the original has not (check of {where})", False


def _file_patch(source, kernel: str, changes) -> tuple:
    """(the patch of the user's file, the text nvcc builds for it): the `.cu` patched
    (smemsim.frontends.cuda.patch.layout_patch, imported here: fix of a kernels file never
    loads the CUDA frontend), or a program's CUDA string patched and written into the Python
    file line for line (strings_patch.python_patch)."""
    from ..search.fix_built import patcher
    patch = patcher(source).layout_patch(source.path, kernel, changes)
    if source.string is None:
        return patch, patch.patched
    from ..frontends.ptx.strings_patch import python_patch
    from ..search.fix_built import in_users_file
    try:
        return python_patch(source.string, patch), patch.patched
    except KernelError as err:
        raise KernelError(in_users_file(str(err), source)) from None


def predicted_wavefronts(f) -> int:
    """fix's count for its per-array best changes together."""
    return f.combined.wavefronts if f.combined is not None else f.best[0].wavefronts


def source_of(args, key: str):
    """The user's `.cu` (or a Python program's CUDA string) and its build, as the command
    line gives them (smemsim.search.fix_built)."""
    from ..search.fix_built import SourceFile, string_file
    flags = tuple(getattr(args, "nvcc_flag", None) or ())
    if pathlib.Path(args.file).suffix == ".py" and _numba(args.file):
        return SourceFile(args.file, key, cuda_options(args), flags, args.arch, numba=True)
    if pathlib.Path(args.file).suffix == ".py":
        return string_file(args.file, key, cuda_options(args), flags, args.arch)
    return SourceFile(args.file, key, cuda_options(args), flags, args.arch)


def _patched_copy(source, text: str):
    """The kernel read from nvcc's build of the patched text (in a private folder)."""
    from ..search.fix_built import patched_kernel
    try:
        return patched_kernel(source, text)
    except KernelError as err:
        # the file imported before the patch: this is smemsim's mistake, not the input's
        raise PatchError(f"the patched file does not import: {err} (a bug in smemsim's "
                         "patch: please report it with your file)") from None


class Unbuilt(KernelError):
    """A kernel whose build's resources ptxas's report did not give (its notes say why)."""


def _built(args, kernel, params, arrays, wavefronts: int | None = None) -> Built:
    """One file as nvcc builds it: `kernel` as read from that build, and the registers and
    static shared memory ptxas allocated in it (raises Unbuilt where they are unknown);
    `wavefronts`: its analysis's, where one was made already."""
    from ..frontends.ptx.frontend import inexact_lines
    build = kernel.built
    if build is None:
        why = next((n for n in kernel.notes if "SASS" in n or "ptxas" in n),
                   "no ptxas report of the build")
        raise Unbuilt(f"{kernel.name}'s build could not be read: {why}")
    if wavefronts is None:
        wavefronts = analyze(kernel, params, arch=args.arch, arrays=arrays).wavefronts
    occ = kernel_occupancy(kernel, args.arch, build.registers, params,
                           static_smem=build.static_smem)
    return Built(build.registers, occ.active_warps, wavefronts, inexact_lines(kernel))


def _as_built(args, original, patched, params, arrays, wavefronts=(None, None)):
    """(original, patched, note): each kernel as nvcc builds its file, or why it could not
    be read (`wavefronts`: each one's, where analyzed already)."""
    try:
        before = _built(args, original, params, arrays, wavefronts[0])
    except Unbuilt as err:
        return None, None, f"not built: {err}"
    try:
        after = _built(args, patched, params, arrays, wavefronts[1])
    except Unbuilt as err:
        return before, None, f"the patched file's build could not be read: {err}"
    return before, after, None

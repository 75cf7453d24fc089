"""Design-space sweeps: every combination of parameter values, shared-array layouts and
architectures, each point a whole-launch analysis with its occupancy.

`sweep(kernel, axes, archs, layouts)` evaluates the cartesian product on a process pool
(smemsim.search.pool; a Dask cluster with `scheduler=`), and keeps each point's result in a cache
keyed by the kernel's text, the point and smemsim's own source, so an interrupted or
extended sweep recomputes only what is new: each point is stored as soon as it finishes,
and a Ctrl-C or SIGTERM ends the workers and says how many points were kept. An entry read
back is trusted only when it is a regular file (never a link, FIFO or device), its fields
have their types and ranges, and its digest of the point's key and its own values matches:
anything else is a miss, computed again and rewritten. The result ranks the points and
gives the Pareto front of wavefronts (fewer), shared memory per block (less) and occupancy
(more).
"""
from __future__ import annotations

import functools
import hashlib
import io
import itertools
import math
import os
import pathlib
import stat
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from kernels_ir import Kernel, KernelError, format_kernel, resolve_launch

from ..launch.analysis import analyze
from ..engine.arch import ArchError
from ..cache import read_regular, store
from ..launch.occupancy import OccupancyError, kernel_occupancy
from .pool import parallel_map, signals_deferred

# bump when PointResult or an entry's layout changes (2: .npz data entries, not pickles;
# 3: each entry carries its digest; 4: warps_at_most)
CACHE_FORMAT = 4


@dataclass(frozen=True)
class Layout:
    """One layout choice for one shared array: rows padded to `pad` elements, or the
    unpadded array swizzled (fix's changes), or as declared."""

    array: str
    pad: int | None = None                  # elements per row (None: as declared)
    swizzle: tuple[int, int, int] | None = None

    @property
    def declared(self) -> bool:
        """The array as the kernel declares it."""
        return self.pad is None and self.swizzle is None

    @property
    def label(self) -> str:
        """`tile pad 1`, `tile Swizzle<5,0,5>`, or `tile as declared`."""
        if self.swizzle is not None:
            return f"{self.array} Swizzle<{','.join(map(str, self.swizzle))}>"
        return f"{self.array} as declared" if self.pad is None else f"{self.array} pad {self.pad}"

    def apply(self, kernel: Kernel) -> Kernel:
        """The kernel with this layout on its array."""
        from .fix import padded, swizzled
        views = {v.name: v for v in kernel.shared}
        if self.array not in views:
            raise KernelError(f"no shared array '{self.array}'; the arrays are "
                              f"{', '.join(views) or 'none'}", kernel=kernel.name)
        view = views[self.array]
        if self.swizzle is not None:  # of the unpadded array: a swizzle replaces padding
            if view.pad:
                kernel = padded(kernel, view, 0)
                view = {v.name: v for v in kernel.shared}[self.array]
            return swizzled(kernel, view, *self.swizzle)
        if self.pad is None or self.pad == view.pad:
            return kernel
        return padded(kernel, view, self.pad)


@dataclass(frozen=True)
class Point:
    """One point of a sweep."""

    params: tuple[tuple[str, int | float], ...]
    arch: str
    layouts: tuple[Layout, ...] = ()   # none: as declared

    @property
    def label(self) -> str:
        """`n=256, sm_90, tile pad 1`."""
        return ", ".join([f"{k}={v}" for k, v in self.params] + [self.arch] +
                         [x.label for x in self.layouts])


@dataclass(frozen=True)
class PointResult:
    """What one point costs; `error` says why a point could not be analyzed (its launch is
    refused at those values, say): such points are listed, never dropped."""

    point: Point
    requests: int = 0
    wavefronts: int = 0
    ideal: int = 0
    smem_per_block: int = 0          # static + dynamic bytes
    smem_blocks: int | None = None   # blocks per SM that shared memory allows
    registers: int | None = None     # per thread: given, or from the compile
    active_warps: int | None = None  # per SM, when registers are known
    occupancy: float | None = None
    error: str | None = None
    active_blocks: int | None = None  # per SM, when registers are known (every limit)
    # per SM at most, registers not known: every limit but theirs (as at 32 a thread)
    warps_at_most: int | None = None

    @property
    def excess(self) -> int:
        """Wavefronts over ideal."""
        return self.wavefronts - self.ideal


@dataclass(frozen=True)
class SweepResult:
    """Every point of a sweep, in the order of the product, and how many came from cache."""

    kernel: str
    results: tuple[PointResult, ...]
    cached: int

    def ranked(self) -> list[PointResult]:
        """Analyzed points, fewest wavefronts first (then less shared memory, more
        occupancy; without registers, of as many warps at most, more blocks shared memory
        allows)."""
        return sorted((r for r in self.results if r.error is None),
                      key=lambda r: (r.wavefronts, r.smem_per_block, -_occupancy(r),
                                     -(r.smem_blocks or 0) if r.active_warps is None else 0))

    def pareto(self) -> list[PointResult]:
        """The points no other beats on wavefronts, shared memory and occupancy at once
        (occupancy: active warps with registers, else the blocks shared memory allows)."""
        good = self.ranked()
        if not good:
            return []
        cost = np.array([(r.wavefronts, r.smem_per_block, -_occupancy(r)) for r in good],
                        dtype=np.float64)
        keep = []
        for i, c in enumerate(cost):
            no_worse = (cost <= c).all(axis=1)
            better = (cost < c).any(axis=1)
            if not (no_worse & better).any():
                keep.append(good[i])
        return keep


def _occupancy(r: PointResult) -> float:
    """Active warps per SM: with the point's registers, else at most (every other limit:
    a 1,024-thread block is 2 a SM whatever its shared memory)."""
    if r.active_warps is not None:
        return r.active_warps
    return r.warps_at_most if r.warps_at_most is not None else float("inf")


def product(axes: Mapping[str, Sequence], archs: Sequence[str],
            layouts: Mapping[str, Sequence[Layout]] | None = None,
            base: Mapping[str, int | float] | None = None) -> list[Point]:
    """The cartesian product of parameter values, per-array layout choices and archs, in
    that nesting (the last axis changes fastest). `base` holds parameters that do not vary."""
    names = list(axes)
    per_array = list((layouts or {}).values())
    out = []
    for values in itertools.product(*(axes[n] for n in names)):
        params = {**(base or {}), **dict(zip(names, values))}
        for choice in itertools.product(*per_array):
            for arch in archs:
                out.append(Point(tuple(params.items()), arch,
                                 tuple(x for x in choice if not x.declared)))
    return out


@dataclass(frozen=True)
class _Task:
    kernel: Kernel
    point: Point
    registers: int | None
    resources: Callable | None     # (kernel, arch) -> (registers, static smem): a compile
    inputs: tuple[str, str] | None  # (kernels file, key) whose ARRAYS give the inputs


def evaluate(task: _Task) -> PointResult:
    """One point (runs in a worker process)."""
    point = task.point
    try:
        kernel = task.kernel
        for layout in point.layouts:
            kernel = layout.apply(kernel)
        params = dict(point.params)
        launch = resolve_launch(kernel, params)
        arrays = None
        if task.inputs is not None:
            from ..frontends.loader import input_arrays
            arrays = input_arrays(*task.inputs, launch)
        report = analyze(kernel, params, arch=point.arch, arrays=arrays)
        registers, static = task.registers, None
        if task.resources is not None:
            registers, static = task.resources(kernel, point.arch)
        smem = kernel_occupancy(kernel, point.arch, 32, params, static_smem=static)
        occ = kernel_occupancy(kernel, point.arch, registers, params, static_smem=static) \
            if registers is not None else None
    except (KernelError, ArchError, OccupancyError) as err:
        return PointResult(point, error=str(err))
    return PointResult(point, report.requests, report.wavefronts, report.ideal,
                       (static if static is not None else kernel.static_smem) +
                       launch.dynamic_smem, smem.limits["shared_memory"], registers,
                       occ.active_warps if occ else None, occ.occupancy if occ else None,
                       active_blocks=occ.active_blocks if occ else None,
                       warps_at_most=smem.active_warps)


def sweep(kernel: Kernel, points: Sequence[Point], *, registers: int | None = None,
          resources: Callable | None = None, inputs: tuple[str, str] | None = None,
          jobs: int | None = None, scheduler: str | None = None,
          cache: str | os.PathLike | None = None,
          progress: Callable[[int, int], None] | None = None,
          trial: bool = True,
          estimate: Callable[[float, int, int], None] | None = None) -> SweepResult:
    """Evaluate every point (see the module docstring). `resources(kernel, arch)` gives
    (registers, static shared memory) from a compile, for `--regs compile`; `cache` is a
    directory (None: no cache); `estimate(seconds, points, workers)` is told, after the
    first point not in the cache, how long the others should take."""
    store = _Cache(cache, kernel, registers, resources, inputs) if cache is not None else None
    found = {i: r for i, p in enumerate(points)
             if store is not None and (r := store.get(p)) is not None}
    todo = [i for i in range(len(points)) if i not in found]
    tasks = [_Task(kernel, points[i], registers, resources, inputs) for i in todo]

    def tick(done: int, _total: int) -> None:
        if progress:
            progress(len(found) + done, len(points))
    kept = []

    def keep(k: int, r: PointResult) -> None:
        """Each point into the cache as it finishes: an interrupted sweep loses none."""
        if store is not None and r.error is None and store.put(points[todo[k]], r):
            kept.append(k)
    try:
        told = None if estimate is None else \
            (lambda seconds, workers: estimate(seconds, len(tasks), workers))
        fresh = parallel_map(evaluate, tasks, jobs=jobs, scheduler=scheduler, progress=tick,
                             trial=trial, on_result=keep, estimate=told)
    except KeyboardInterrupt as interrupt:
        # what the cache holds: a point whose entry was renamed into place just as the signal
        # came (its count not yet taken) is kept too, and said so
        counted = set(kept)
        late = sum(1 for k in range(len(todo)) if k not in counted and store is not None and
                   store.get(points[todo[k]]) is not None)
        raise SweepInterrupted.of(interrupt, len(found) + len(kept) + late,
                                  len(points)) from None
    for i, r in zip(todo, fresh):
        found[i] = r
    return SweepResult(kernel.name, tuple(found[i] for i in range(len(points))),
                       len(points) - len(todo))


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep: how many of its points are in the cache (a rerun computes only
    the others)."""

    def __init__(self, kept: int, total: int):
        super().__init__(f"{kept:,} of {total:,} points are kept in the cache; run the same "
                         "sweep again to compute only the others")
        self.kept, self.total = kept, total

    @staticmethod
    def of(interrupt: KeyboardInterrupt, kept: int, total: int) -> SweepInterrupted:
        """The SweepInterrupted for `interrupt`, still of its kind: a SIGTERM (smemsim.cli's
        Terminated, a KeyboardInterrupt) stays one, so the CLI still exits 143 for it."""
        kind = type(interrupt)
        if issubclass(SweepInterrupted, kind):  # a plain Ctrl-C
            return SweepInterrupted(kept, total)
        return _interrupted_as(kind)(kept, total)


@functools.cache
def _interrupted_as(kind: type) -> type:
    """SweepInterrupted that is also a `kind` (one class per kind)."""
    return type(f"Sweep{kind.__name__}", (SweepInterrupted, kind), {})


class _Cache:
    """Point results on disk, keyed by everything that decides them."""

    def __init__(self, root, kernel: Kernel, registers, resources, inputs):
        self.root = pathlib.Path(root)
        identity = (CACHE_FORMAT, format_kernel(kernel), sorted(kernel.defaults.items()),
                    registers, getattr(resources, "__qualname__", None), inputs,
                    _file_digest(inputs[0]) if inputs else None, _code_fingerprint())
        self.base = hashlib.sha256(repr(identity).encode()).hexdigest()

    def _key(self, point: Point) -> str:
        """The digest of everything that decides the point's result: its entry's name."""
        return hashlib.sha256((self.base + repr(point)).encode()).hexdigest()

    def _path(self, point: Point) -> pathlib.Path:
        key = self._key(point)
        return self.root / key[:2] / f"{key}.npz"

    def get(self, point: Point) -> PointResult | None:
        """The cached result, or None for a miss: a missing, unreadable, truncated, malformed
        or edited entry is a miss, as is anything at its path but a regular file (a link is
        never followed, a FIFO never waited on). An entry is numbers and strings in numpy's
        .npz, read without pickles, checked field by field (type and range) and against its
        digest: nothing in it is ever executed, and no edited value is ever trusted."""
        raw = read_regular(self._path(point), ENTRY_LIMIT)
        if raw is None:
            return None
        try:
            with signals_deferred(), np.load(io.BytesIO(raw), allow_pickle=False) as data:
                entry = {name: data[name] for name in data.files}
        except Exception:  # noqa: BLE001 - any bad entry (zip, header, dtype) is a miss
            return None
        if set(entry) - set(_ENTRY_FIELDS) or any(v.shape != () for v in entry.values()) or \
                any(entry[name].dtype.kind not in _ENTRY_FIELDS[name] for name in entry) or \
                "digest" not in entry or "point" not in entry or \
                str(entry["point"]) != repr(point):
            return None
        values = _values(entry)
        if values.pop("digest") != self._digest(point, values):
            return None
        values.pop("point")
        if not _REQUIRED <= set(values) or not all(_IN_RANGE[name](v)
                                                   for name, v in values.items()):
            return None
        return PointResult(point, **values)

    def put(self, point: Point, result: PointResult) -> bool:
        """Store the point's result with its digest; whether it is now in the cache (a cache
        that cannot be written is skipped: every point can be computed again)."""
        entry = {"point": np.array(repr(point))}
        for name in _RESULT_FIELDS:
            value = getattr(result, name)
            if value is not None:
                entry[name] = np.array(value)
        entry["digest"] = np.array(self._digest(point, _values(entry)))
        buffer = io.BytesIO()
        path = self._path(point)
        with signals_deferred():   # (a zip written halfway leaves a finalizer's traceback)
            np.savez(buffer, **entry)
            store(path, buffer.getvalue())
        try:
            return stat.S_ISREG(os.lstat(path).st_mode)
        except OSError:
            return False

    def _digest(self, point: Point, values: dict) -> str:
        """sha256 of the point's key and of its entry's values (as they read back): an
        entry moved to another point's name, or edited, no longer matches."""
        payload = repr(sorted((k, v) for k, v in values.items() if k != "digest"))
        return hashlib.sha256(f"{self._key(point)}\n{payload}".encode()).hexdigest()


def _values(entry: dict) -> dict:
    """An entry's arrays as Python values (text as str, numbers as int or float)."""
    return {name: str(v) if v.dtype.kind == "U" else v.item() for name, v in entry.items()}


ENTRY_LIMIT = 1 << 16  # bytes: an entry is ~2 KB; anything larger is not one

# what a cached point holds: each field's numpy kinds (i integer, f float, U text); the
# optional ones are absent when None
_RESULT_FIELDS = {"requests": "iu", "wavefronts": "iu", "ideal": "iu",
                  "smem_per_block": "iu", "smem_blocks": "iu", "registers": "iu",
                  "active_warps": "iu", "occupancy": "fiu", "error": "U",
                  "active_blocks": "iu", "warps_at_most": "iu"}
_ENTRY_FIELDS = {"point": "U", **_RESULT_FIELDS, "digest": "U"}
_REQUIRED = {"requests", "wavefronts", "ideal", "smem_per_block"}


def _count(v) -> bool:
    return isinstance(v, int) and v >= 0


# each field's range, as a second guard beside the digest (counts are never negative)
_IN_RANGE = {"requests": _count, "wavefronts": _count, "ideal": _count,
             "smem_per_block": _count, "smem_blocks": _count,
             "registers": lambda v: isinstance(v, int) and 0 <= v <= 255,
             "active_warps": _count, "active_blocks": _count, "warps_at_most": _count,
             "occupancy": lambda v: math.isfinite(v) and 0 <= v <= 1,
             "error": lambda v: isinstance(v, str)}


def _file_digest(path: str) -> str:
    try:
        return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


_FINGERPRINT: list[str] = []


def _code_fingerprint() -> str:
    """A digest of smemsim's, kernels_ir's and gpu_backend's source: a changed analysis
    invalidates every cached point."""
    if not _FINGERPRINT:
        root = pathlib.Path(__file__).resolve().parents[2]
        h = hashlib.sha256()
        for pkg in ("kernels_ir", "smemsim", "gpu_backend"):
            for path in sorted((root / pkg).rglob("*.py")):
                h.update(path.read_bytes())
        _FINGERPRINT.append(h.hexdigest())
    return _FINGERPRINT[0]

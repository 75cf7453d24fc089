"""Design-space sweeps: every combination of parameter values, shared-array layouts and
architectures, each point a whole-launch analysis with its occupancy.

`sweep(kernel, axes, archs, layouts)` evaluates the cartesian product on a process pool
(smemsim.pool; a Dask cluster with `scheduler=`), and keeps each point's result in a cache
keyed by the kernel's text, the point and smemsim's own source, so an interrupted or
extended sweep recomputes only what is new. The result ranks the points and gives the
Pareto front of wavefronts (fewer), shared memory per block (less) and occupancy (more).
"""
from __future__ import annotations

import hashlib
import io
import itertools
import os
import pathlib
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from kernels_ir import Kernel, KernelError, format_kernel, resolve_launch

from .analysis import analyze
from .arch import ArchError
from .cache import store
from .occupancy import OccupancyError, kernel_occupancy
from .pool import parallel_map

CACHE_FORMAT = 2  # bump when PointResult changes (2: .npz data entries, not pickles)


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
        occupancy)."""
        return sorted((r for r in self.results if r.error is None),
                      key=lambda r: (r.wavefronts, r.smem_per_block, -_occupancy(r)))

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
    if r.active_warps is not None:
        return r.active_warps
    return r.smem_blocks if r.smem_blocks is not None else float("inf")


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
            from .loader import input_arrays
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
                       occ.active_warps if occ else None, occ.occupancy if occ else None)


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
        if store is not None and r.error is None:
            store.put(points[todo[k]], r)
            kept.append(k)
    try:
        told = None if estimate is None else \
            (lambda seconds, workers: estimate(seconds, len(tasks), workers))
        fresh = parallel_map(evaluate, tasks, jobs=jobs, scheduler=scheduler, progress=tick,
                             trial=trial, on_result=keep, estimate=told)
    except KeyboardInterrupt:
        raise SweepInterrupted(len(found) + len(kept), len(points)) from None
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


class _Cache:
    """Point results on disk, keyed by everything that decides them."""

    def __init__(self, root, kernel: Kernel, registers, resources, inputs):
        self.root = pathlib.Path(root)
        identity = (CACHE_FORMAT, format_kernel(kernel), sorted(kernel.defaults.items()),
                    registers, getattr(resources, "__qualname__", None), inputs,
                    _file_digest(inputs[0]) if inputs else None, _code_fingerprint())
        self.base = hashlib.sha256(repr(identity).encode()).hexdigest()

    def _path(self, point: Point) -> pathlib.Path:
        key = hashlib.sha256((self.base + repr(point)).encode()).hexdigest()
        return self.root / key[:2] / f"{key}.npz"

    def get(self, point: Point) -> PointResult | None:
        """The cached result, or None for a miss: a missing, unreadable, truncated or
        malformed entry is a miss. An entry is numbers and one string in numpy's .npz,
        read without pickles and checked field by field: nothing in it is ever executed."""
        try:
            with np.load(io.BytesIO(self._path(point).read_bytes()),
                         allow_pickle=False) as data:
                entry = {name: data[name] for name in data.files}
        except Exception:  # noqa: BLE001 - any bad entry (zip, header, dtype) is a miss
            return None
        if set(entry) - set(_RESULT_FIELDS) or "point" not in entry or \
                any(v.shape != () for v in entry.values()) or \
                entry["point"].dtype.kind != "U" or str(entry["point"]) != repr(point):
            return None
        fields = {}
        for name, kinds in _RESULT_FIELDS.items():
            if name == "point":
                continue
            if name not in entry:
                if name in _REQUIRED:
                    return None
                continue
            value = entry[name]
            if value.dtype.kind not in kinds:
                return None
            fields[name] = str(value) if value.dtype.kind == "U" else value.item()
        return PointResult(point, **fields)

    def put(self, point: Point, result: PointResult) -> None:
        entry = {"point": np.array(repr(point))}
        for name in _RESULT_FIELDS:
            value = getattr(result, name) if name != "point" else None
            if value is not None:
                entry[name] = np.array(value)
        buffer = io.BytesIO()
        np.savez(buffer, **entry)
        store(self._path(point), buffer.getvalue())


# what a cached point holds: each field's numpy kinds (i integer, f float, U text); the
# optional ones are absent when None
_RESULT_FIELDS = {"point": "U", "requests": "iu", "wavefronts": "iu", "ideal": "iu",
                  "smem_per_block": "iu", "smem_blocks": "iu", "registers": "iu",
                  "active_warps": "iu", "occupancy": "fiu", "error": "U"}
_REQUIRED = {"requests", "wavefronts", "ideal", "smem_per_block"}


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
        root = pathlib.Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for pkg in ("kernels_ir", "smemsim", "gpu_backend"):
            for path in sorted((root / pkg).rglob("*.py")):
                h.update(path.read_bytes())
        _FINGERPRINT.append(h.hexdigest())
    return _FINGERPRINT[0]

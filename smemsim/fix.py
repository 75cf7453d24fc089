"""Search padding and XOR swizzles for conflicted shared arrays, re-analyzing the whole kernel.

Candidates for one array:
- row padding: `pad` elements added to each innermost row (arrays of rank 2 or more), in
  steps that keep every vector access of the array aligned, up to one full period of the
  banks (128 bytes: a longer pad maps rows to the same banks as a shorter one);
- XOR swizzles, exactly CuTe's Swizzle<B, M, S> on the array's flat element index i:
  i ^ ((i & ((2^B - 1) << (M + S))) >> S), that is bits M+S..M+S+B-1 XORed into bits
  M..M+B-1. M is at least log2 of the widest vector access in elements, so vectors stay
  contiguous; the array's length must be a multiple of 2^(B+M) so that every index stays
  inside it (a swizzle only permutes elements within such blocks).
Each candidate rebuilds the kernel with the array changed at every access site, so loads and
stores stay consistent, and costs the whole launch again. Padding costs shared memory, and
through it possibly occupancy; a swizzle costs none.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Mapping

from kernels_ir import Kernel
from kernels_ir.expr import Expr, as_expr
from kernels_ir.printer import format_expr
from kernels_ir.stmt import Access, SharedArray, SharedBuffer, map_statements, walk

from .analysis import Report, analyze
from .occupancy import OccupancyError, kernel_occupancy


@dataclass(frozen=True)
class Candidate:
    """One change to one array and what the whole launch costs with it."""

    array: str
    kind: str                    # "pad" or "swizzle"
    pad: int                     # elements per row (kind "pad")
    swizzle: tuple[int, int, int] | None  # (B, M, S)
    wavefronts: int
    excess: int
    extra_smem: int              # bytes per block over the original
    active_warps: int | None     # per SM, when registers were given
    builder: str                 # the builder change to make
    cuda_index: str              # how the CUDA index of one access changes

    @property
    def label(self) -> str:
        """`pad 1` or `Swizzle<5,0,5>`."""
        if self.kind == "pad":
            return f"pad {self.pad}"
        b, m, s = self.swizzle
        return f"Swizzle<{b},{m},{s}>"


@dataclass(frozen=True)
class FixSearch:
    """The baseline and every candidate, best first, and the per-array best applied together."""

    kernel: str
    baseline: Report
    baseline_warps: int | None
    arrays: tuple[str, ...]      # arrays searched (those with excess wavefronts)
    candidates: tuple[Candidate, ...]
    skipped: tuple[str, ...]     # arrays that could not be changed, with why
    combined: Report | None      # every array's best candidate at once (None: one array)
    combined_warps: int | None
    best: tuple[Candidate, ...]  # the best candidate of each array


def _accesses(kernel: Kernel, array: SharedArray) -> list[Access]:
    return [s for s in walk(kernel.body) if isinstance(s, Access) and s.array is array]


def _rebuild(kernel: Kernel, old: SharedArray, new: SharedArray, index_of) -> Kernel:
    """The kernel with every access of `old` going to `new`, indices through `index_of`."""
    def stmt(s):
        if isinstance(s, Access) and s.array is old:
            return s.retarget(new, index_of(s.index))
        return s
    buffers = tuple(new.buffer if b is old.buffer else b for b in kernel.buffers)
    shared = tuple(new if v is old else v for v in kernel.shared)
    return replace(kernel, buffers=buffers, shared=shared,
                   body=map_statements(kernel.body, stmt))


def padded(kernel: Kernel, array: SharedArray, pad: int) -> Kernel:
    """The kernel with `array`'s rows padded by `pad` elements."""
    buf = SharedBuffer(array.buffer.name, 0, array.buffer.align, dynamic=False)
    new = SharedArray(array.name, buf, array.dtype, array.shape, pad)
    buf.nbytes = new.static_bytes
    return _rebuild(kernel, array, new, lambda index: index)


def _flat(array: SharedArray, index) -> Expr:
    flat = None
    for i, stride in zip(index, array.strides):
        term = i if stride == 1 else i * stride
        flat = term if flat is None else flat + term
    return as_expr(flat)


def swizzle_expr(flat: Expr, b: int, m: int, s: int) -> Expr:
    """CuTe's Swizzle<B, M, S> applied to an element index (`swizzle_formula` spells it)."""
    return flat ^ (((flat >> (m + s)) & ((1 << b) - 1)) << m)


def swizzle_formula(i: str, b: int, m: int, s: int) -> str:
    """The C of Swizzle<B, M, S> on an index named `i`."""
    return f"{i} ^ ((({i} >> {m + s}) & {(1 << b) - 1}) << {m})"


def swizzled(kernel: Kernel, array: SharedArray, b: int, m: int, s: int) -> Kernel:
    """The kernel with `array` indexed through Swizzle<B, M, S> on its flat index."""
    buf = SharedBuffer(array.buffer.name, array.buffer.nbytes, array.buffer.align, False)
    length = array.static_bytes // array.dtype.size
    new = SharedArray(array.name, buf, array.dtype, (length,), 0)
    return _rebuild(kernel, array, new, lambda index: (swizzle_expr(_flat(array, index),
                                                                    b, m, s),))


def _vector_elements(kernel: Kernel, array: SharedArray) -> int:
    return max((s.width for s in _accesses(kernel, array)), default=1)


def search(kernel: Kernel, params: Mapping[str, int | float] | None = None, *,
           arch: str = "sm_90", registers: int | None = None, arrays=None, seed: int = 0,
           site: int | None = None, max_pad: int | None = None,
           progress: Callable[[int, int], None] | None = None) -> FixSearch:
    """Try paddings and swizzles for each conflicted array (or the array of `site`)."""
    baseline = analyze(kernel, params, arch=arch, arrays=arrays, seed=seed)
    by_name = {v.name: v for v in kernel.shared}
    if site is not None:
        targets = [baseline.site(site).array]
    else:
        targets = sorted({s.array for s in baseline.sites if s.excess > 0})
    base_occ = _warps(kernel, arch, registers, params)
    plans, skipped = [], []
    for name in targets:
        array = by_name[name]
        if array.buffer.dynamic or len(array.buffer.views) > 1:
            skipped.append(f"{name}: it shares its bytes with other views (or is dynamic); "
                           "change those together by hand")
            continue
        vec = _vector_elements(kernel, array)
        if array.rank >= 2:
            # one full period of the banks: 128 bytes of padding
            limit = max_pad or max(128 // array.dtype.size, vec)
            for pad in range(vec, limit + 1, vec):
                plans.append((name, "pad", pad, None, lambda a=array, p=pad: padded(kernel, a, p)))
        length = array.static_bytes // array.dtype.size
        m = int(math.log2(vec))
        for b in range(1, 6):
            if length % (1 << (b + m)):
                continue
            for s in range(b, 11):  # CuTe requires S >= B
                if (1 << (m + s)) >= length:
                    break  # the bits it would XOR in are 0 for every index: no change
                plans.append((name, "swizzle", 0, (b, m, s),
                              lambda a=array, bb=b, ss=s, mm=m: swizzled(kernel, a, bb, mm, ss)))
    candidates, makers = [], {}
    for i, (name, kind, pad, swz, make) in enumerate(plans):
        if progress:
            progress(i, len(plans))
        variant = make()
        r = analyze(variant, params, arch=arch, arrays=arrays, seed=seed)
        array = by_name[name]
        if kind == "pad":
            builder = f'k.shared("{name}", {array.dtype}, {tuple(array.shape)}, pad={pad})'
            cuda = f"{name}[..][..] with rows of {array.shape[-1] + pad} elements"
        else:
            b, m, s = swz
            builder = (f"index {name} by its flat element index i as "
                       f"{swizzle_formula('i', b, m, s)}")
            first = _accesses(kernel, array)[0]
            cuda = (f"{name}[{swizzle_formula('i', b, m, s)}], "
                    f"i = {format_expr(_flat(array, first.index))}")
        c = Candidate(name, kind, pad, swz, r.wavefronts, r.excess,
                      variant.static_smem - kernel.static_smem,
                      _warps(variant, arch, registers, params), builder, cuda)
        candidates.append(c)
        makers[id(c)] = (kind, pad, swz)
    if progress:
        progress(len(plans), len(plans))
    order = lambda c: (c.wavefronts, c.extra_smem, c.kind != "pad", c.pad, c.swizzle or ())
    candidates.sort(key=order)
    # a change is proposed only if it reduces the kernel's wavefronts
    better = [c for c in candidates if c.wavefronts < baseline.wavefronts]
    best = tuple(min((c for c in better if c.array == name), key=order)
                 for name in targets if any(c.array == name for c in better))
    combined = combined_warps = None
    if len(best) > 1:
        variant = kernel
        for c in best:
            current = {v.name: v for v in variant.shared}[c.array]
            variant = padded(variant, current, c.pad) if c.kind == "pad" else \
                swizzled(variant, current, *c.swizzle)
        combined = analyze(variant, params, arch=arch, arrays=arrays, seed=seed)
        combined_warps = _warps(variant, arch, registers, params)
    return FixSearch(kernel.name, baseline, base_occ, tuple(targets), tuple(candidates),
                     tuple(skipped), combined, combined_warps, best)


def _warps(kernel: Kernel, arch: str, registers: int | None, params: Mapping | None
           ) -> int | None:
    if registers is None:
        return None
    try:
        return kernel_occupancy(kernel, arch, registers, params).active_warps
    except OccupancyError:
        return 0

"""Search padding and XOR swizzles for conflicted shared arrays, re-analyzing the whole kernel.

Candidates for one array:
- row padding: `pad` elements added to each innermost row (arrays of rank 2 or more whose
  bytes no other view aliases), in steps that keep every vector access of the array aligned,
  up to one full period of the banks (128 bytes: a longer pad maps rows to the same banks as
  a shorter one);
- layouts `Swizzle(B, M, S)`: CuTe's Swizzle<B, M, S> on the array's flat element offset
  (kernels_ir.layout), declared on the array, so that every access, writer and reader, goes
  through it. M is at least log2 of the widest access in elements, so vectors stay
  contiguous; the array's size must be a multiple of 2^(B+M) so that every offset stays
  inside it. When other views alias the array's bytes, the same swizzle of bytes is declared
  on every view (each in its own element units), so they keep seeing the same data.
Each candidate rebuilds the kernel and costs the whole launch again. Padding costs shared
memory, and through it possibly occupancy; a swizzle costs none. A change is proposed only
when it reduces the kernel's wavefronts and keeps static shared memory within CUDA's 48 KiB.
Outputs cannot change: a layout permutes the buffer's bytes at every access of every view
alike (tests run both kernels to hold that).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping

from kernels_ir import TMA_SWIZZLES, Kernel, KernelError, Swizzle, TensorMap, resolve_launch
from kernels_ir.tma import SWIZZLE_MODES
from kernels_ir.builder_shared import STATIC_SMEM_LIMIT
from kernels_ir.layout import tma_swizzle
from kernels_ir.printer import format_expr
from kernels_ir.arrays import SharedArray, SharedBuffer, source_name
from kernels_ir.stmt import Access, map_statements, walk
from kernels_ir.stmt_async import TmaLoad, TmaStore

from ..launch.analysis import Report, analyze
from ..launch.occupancy import OccupancyError, kernel_occupancy
from .pool import parallel_map


@dataclass(frozen=True)
class Candidate:
    """One change to one array and what the whole launch costs with it."""

    array: str
    kind: str                    # "pad", "swizzle" or "skew" (a built `.cu`'s one-extent array)
    pad: int                     # elements per row ("pad"), the period's log2 ("skew")
    swizzle: tuple[int, int, int] | None  # (B, M, S) of the array's elements
    wavefronts: int
    excess: int
    extra_smem: int              # bytes per block over the original
    active_warps: int | None     # per SM, when registers were given
    smem_blocks: int | None      # blocks per SM that shared memory allows (None: no limit)
    builder: str                 # the declaration(s) to write
    cuda_index: str              # how the CUDA index of one access changes

    tma: str | None = None       # the TMA mode this swizzle equals, if any
    # tensor maps whose swizzle changes with the array's (TMA copies of its bytes must lay
    # them as it is declared)
    maps: tuple[str, ...] = ()
    # shared-memory instructions (warp requests) of the launch with the change: a build may
    # split the accesses it merged (a swizzled float4 read as four LDS)
    requests: int | None = None
    # the array as the user's source names it (a view read from PTX, `smem_2`, is the
    # variable `smem`): what the text says; `array` is the change's target
    variable: str = ""

    @property
    def label(self) -> str:
        """`pad 1`, `Swizzle<5,0,5>` or `pad 1 every 32`."""
        if self.kind == "pad":
            return f"pad {self.pad}"
        if self.kind == "skew":
            return f"pad 1 every {1 << self.pad}"
        b, m, s = self.swizzle
        return f"Swizzle<{b},{m},{s}>"


@dataclass(frozen=True)
class FixSearch:
    """The baseline and every candidate, best first, and the per-array best applied together."""

    kernel: str
    baseline: Report
    baseline_warps: int | None
    baseline_smem_blocks: int | None
    arrays: tuple[str, ...]      # arrays searched (those with excess wavefronts)
    candidates: tuple[Candidate, ...]
    skipped: tuple[str, ...]     # arrays, or changes, that were not tried, with why
    combined: Report | None      # every array's best candidate at once (None: one array)
    combined_warps: int | None
    best: tuple[Candidate, ...]  # the best candidate of each array
    # the candidates are the user's file patched and built (smemsim.search.fix_built: arrays named
    # as declared, counts as built), not changes of the kernel's views
    built: bool = False
    # where nothing helps: what else to try (a macro that sizes the rows elsewhere too)
    hints: tuple[str, ...] = ()


def _accesses(kernel: Kernel, arrays) -> list[Access]:
    arrays = [arrays] if isinstance(arrays, SharedArray) else list(arrays)
    return [s for s in walk(kernel.body) if isinstance(s, Access)
            and any(s.array is a for a in arrays)]


def _tma_copies(kernel: Kernel, views) -> list:
    """The TMA loads and stores of these views' bytes (their tensor maps lay the tile)."""
    return [s for s in _accesses(kernel, views) if isinstance(s, (TmaLoad, TmaStore))]


def _relayout(kernel: Kernel, buffer: SharedBuffer, change, align: int | None = None
              ) -> Kernel:
    """The kernel with every view v of `buffer` replaced by `change(v, new_buffer)` (a view
    of the new buffer) at its declaration and at every access."""
    new_buffer = SharedBuffer(buffer.name, buffer.nbytes, max(buffer.align, align or 0),
                              buffer.dynamic, buffer.volatile)
    mapping = {id(v): change(v, new_buffer) for v in buffer.views}
    if not buffer.dynamic:
        new_buffer.nbytes = mapping[id(buffer.views[0])].static_bytes

    def stmt(s):
        if isinstance(s, Access) and id(s.array) in mapping:
            return s.retarget(mapping[id(s.array)], s.index)
        return s
    buffers = tuple(new_buffer if b is buffer else b for b in kernel.buffers)
    shared = tuple(mapping.get(id(v), v) for v in kernel.shared)
    return replace(kernel, buffers=buffers, shared=shared,
                   body=map_statements(kernel.body, stmt))


def padded(kernel: Kernel, array: SharedArray, pad: int) -> Kernel:
    """The kernel with `array`'s rows padded by `pad` elements (its layout kept)."""
    if len(array.buffer.views) > 1:
        raise KernelError(f"'{array.name}' shares its bytes with other views: padding one "
                          "view would move its rows away from theirs", kernel=kernel.name)
    return _relayout(kernel, array.buffer, lambda v, buf: SharedArray(
        v.name, buf, v.dtype, v.shape, pad, v.layout))


def swizzled(kernel: Kernel, array: SharedArray, b: int, m: int, s: int,
             align: int | None = None) -> Kernel:
    """The kernel with `array` declared with layout Swizzle(B, M, S) (of its elements), and
    every other view of its bytes with the same swizzle of bytes (`align`: its buffer's
    alignment at least that, as a TMA mode's absolute-address swizzle needs)."""
    shift = _log2(array.dtype.size) + m  # M in bytes

    def change(v, buf):
        m_v = shift - _log2(v.dtype.size)
        if m_v < 0:
            raise KernelError(f"Swizzle<{b},{m},{s}> of '{array.name}' would split the "
                              f"{v.dtype} elements of its view '{v.name}'", kernel=kernel.name)
        return SharedArray(v.name, buf, v.dtype, v.shape, v.pad, Swizzle(b, m_v, s))
    return _relayout(kernel, array.buffer, change, align)


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _declaration(view: SharedArray) -> str:
    """The builder call that declares `view` as it stands (its pad and layout)."""
    shape = view.shape[0] if len(view.shape) == 1 else tuple(view.shape)
    pad, layout = view.pad, view.layout
    extra = (f", pad={pad}" if pad else "") + \
        (f", layout=Swizzle({layout.b}, {layout.m}, {layout.s})" if layout else "")
    if view.buffer.dynamic:
        return f'k.dynamic_shared("{view.name}", {view.dtype}, {tuple(view.shape)}{extra})'
    if view is view.buffer.views[0]:
        align = f", align={view.buffer.align}" if view.buffer.align != 16 else ""
        volatile = ", volatile=True" if view.buffer.volatile else ""
        return f'k.shared("{view.name}", {view.dtype}, {shape}{extra}{align}{volatile})'
    return f'k.view({view.buffer.views[0].name}, "{view.name}", {view.dtype}, {shape}{extra})'


def search(kernel: Kernel, params: Mapping[str, int | float] | None = None, *,
           arch: str = "sm_90", registers: int | None = None, arrays=None, seed: int = 0,
           site: int | None = None, max_pad: int | None = None,
           progress: Callable[[int, int], None] | None = None,
           jobs: int | None = None, baseline: Report | None = None,
           prefer: str | None = None) -> FixSearch:
    """Try paddings and swizzles for each conflicted array (or the array of `site`), on
    `jobs` processes (default: every core, when the candidates are heavy enough).
    `baseline`: the kernel's analysis at these arguments, when the caller has it already;
    `prefer`: "pad" or "swizzle", the kind each array's best is where one of that kind
    lowers the wavefronts.
    (A kernel read from nvcc's build states ptxas's widest accesses itself: nvcc's LDS.128
    of four neighbouring floats is a 16-byte access here, which the swizzles keep whole.)"""
    if baseline is None:
        baseline = analyze(kernel, params, arch=arch, arrays=arrays, seed=seed)
    by_name = {v.name: v for v in kernel.shared}
    if site is not None:
        numbers = [s.site for s in baseline.sites]
        if site not in numbers:
            raise KernelError(f"no shared access site {site}; the sites are "
                              f"{', '.join(map(str, numbers)) or 'none'}", kernel=kernel.name)
        targets = [baseline.site(site).array]
    else:
        targets = sorted({s.array for s in baseline.sites if s.excess > 0})
    plans, skipped = [], []
    for name in targets:
        array = by_name[name]
        shown = source_name(array)   # (the user's variable, not its view's name)
        views = array.buffer.views
        copies = _tma_copies(kernel, views)
        if copies:
            plans += _tma_plans(kernel, array, copies, skipped)
            continue
        widest = max([s.access_bytes for s in _accesses(kernel, views) if not s.GMMA] +
                     [v.dtype.size for v in views])
        vec = max(1, widest // array.dtype.size)
        if array.rank >= 2 and len(views) == 1 and not array.buffer.dynamic:
            # one full period of the banks: 128 bytes of padding
            limit = max_pad or max(128 // array.dtype.size, vec)
            for pad in range(vec, limit + 1, vec):
                plans.append((name, "pad", pad, None, lambda a=array, p=pad: padded(kernel, a, p)))
        elif array.rank >= 2 and array.buffer.dynamic:
            skipped.append(f"{shown}: padding not tried: it is dynamic shared memory (its size "
                           "comes with the launch); swizzles were")
        elif array.rank >= 2:
            others = ", ".join(v.name for v in views[1:])
            skipped.append(f"{shown}: padding not tried: views {others}"
                           " alias its bytes (swizzles apply to all of them)")
        elif kernel.built is not None:
            # (a compiler's build reads the array at flat offsets: a numba `shape=(32, 32)`
            # is one run of bytes in its PTX)
            skipped.append(f"{shown}: padding not tried: the build reads it at flat offsets, "
                           "its rows are not known from the build (pad the declaration's "
                           "last extent by hand: one word, then 16 bytes); swizzles were")
        nbytes = resolve_launch(kernel, params).dynamic_smem if array.buffer.dynamic \
            else array.buffer.nbytes
        length = nbytes // array.dtype.size
        m = _log2(vec)
        for b in range(1, 6):
            if length % (1 << (b + m)):
                continue
            for sh in range(b, 11):  # S >= B, as CuTe requires for positive shifts
                if (1 << (m + sh)) >= length:
                    break  # the bits it would XOR in are 0 for every index: no change
                plans.append((name, "swizzle", array.pad, (b, m, sh),
                              lambda a=array, bb=b, ss=sh, mm=m:
                              swizzled(kernel, a, bb, mm, ss)))
    variants, too_big = [], 0
    for name, kind, pad, swz, make in plans:
        variant = make()
        if variant.static_smem > STATIC_SMEM_LIMIT:
            too_big += 1
            continue
        variants.append((name, kind, pad, swz, variant))
    # every candidate is a whole analysis: on every core (smemsim.search.pool) when that pays
    reports = parallel_map(_analyze, [(v, params, arch, arrays, seed) for *_, v in variants],
                           jobs=jobs, progress=progress)
    candidates = [_candidate(kernel, variant, by_name[name], kind, pad, swz, report, arch,
                             registers, params)
                  for (name, kind, pad, swz, variant), report in zip(variants, reports)]
    if too_big:
        skipped.append(f"{too_big} padding(s) not tried: they would take static shared memory "
                       f"past CUDA's {STATIC_SMEM_LIMIT} bytes")
    order = lambda c: (c.wavefronts, c.extra_smem, c.kind != "pad", c.pad, c.swizzle or ())
    candidates.sort(key=order)
    # a change is proposed only if it reduces the kernel's wavefronts
    better = [c for c in candidates if c.wavefronts < baseline.wavefronts]
    best = [min((c for c in better if c.array == name),
                key=lambda c: (prefer is not None and c.kind != prefer, *order(c)))
            for name in targets if any(c.array == name for c in better)]
    combined = combined_warps = None
    if len(best) > 1:
        variant = kernel
        for c in best:
            variant = apply(variant, c)
        combined = analyze(variant, params, arch=arch, arrays=arrays, seed=seed)
        combined_warps = _warps(variant, arch, registers, params)
    return FixSearch(kernel.title, baseline, _warps(kernel, arch, registers, params),
                     _smem_blocks(kernel, arch, params), tuple(targets), tuple(candidates),
                     tuple(skipped), combined, combined_warps, tuple(best))


def _tma_plans(kernel: Kernel, array: SharedArray, copies, skipped: list) -> list:
    """For a tile TMA copies write or read: no padding (TMA lays box rows back to back), and
    only the TMA swizzle modes, each with every tensor map of those copies set to it, where
    the box rows fill the array's rows exactly (then the declaration and the copies agree
    element for element)."""
    maps = {id(c.tensor_map): c.tensor_map for c in copies}.values()
    names = ", ".join(sorted(m.name for m in maps))
    skipped.append(f"{array.name}: padding not tried: TMA ({names}) writes box rows back to "
                   "back, not at a padded pitch")
    row = (array.shape[-1] + array.pad) * array.dtype.size if array.rank >= 2 else None
    out = []
    for mode, (b, span) in SWIZZLE_MODES.items():
        if mode is None or any(m.row_bytes != span for m in maps) or row != span \
                or len(array.buffer.views) > 1:
            continue
        swz = tma_swizzle(mode, array.dtype.size)[0]
        out.append((array.name, "swizzle", array.pad, (swz.b, swz.m, swz.s),
                    lambda a=array, md=mode, z=swz: _with_maps(
                        swizzled(kernel, a, z.b, z.m, z.s, align=1024), copies, md)))
    if not out:
        skipped.append(f"{array.name}: no TMA swizzle tried: the boxes' rows "
                       f"({', '.join(str(m.row_bytes) for m in maps)} bytes) and the "
                       f"array's ({row} bytes) must both be a swizzle's span (32, 64, 128)")
    return out


def _with_maps(kernel: Kernel, copies, mode: str) -> Kernel:
    """The kernel with the tensor maps of `copies` swizzling `mode`."""
    new = {}
    for c in copies:
        m = c.tensor_map
        new.setdefault(id(m), TensorMap(m.name, m.array, m.shape, m.strides, m.box, mode))

    def stmt(s):
        if isinstance(s, (TmaLoad, TmaStore)) and id(s.tensor_map) in new:
            return replace(s, tensor_map=new[id(s.tensor_map)])
        return s
    return replace(kernel, body=map_statements(kernel.body, stmt))


def _analyze(task) -> Report:
    """One candidate's analysis (a worker's task: module-level, so it pickles)."""
    kernel, params, arch, arrays, seed = task
    return analyze(kernel, params, arch=arch, arrays=arrays, seed=seed)


def _candidate(kernel, variant, array, kind, pad, swz, report, arch, registers, params
               ) -> Candidate:
    """A tried change, with the declarations a user writes to make it."""
    changed = {v.name: v for v in variant.shared}
    decls = [_declaration(changed[v.name]) for v in array.buffer.views]
    first = [a for a in _accesses(kernel, array) if not (a.BULK or a.GMMA)]   # by index
    if kind == "pad":
        cuda = f"{array.name}[..][..] with rows of {array.shape[-1] + pad} elements"
    else:
        layout = changed[array.name].layout
        if kernel.built is not None:   # (the build's index is registers' arithmetic)
            cuda = (f"{array.name}[{layout.formula('i')}], i the element's offset in the "
                    f"array ({array.dtype.size}-byte elements: row * row length + column)")
        else:
            flat = format_expr(array.flat_index(first[0].index)) if first else \
                "its flat offset"
            cuda = f"{array.name}[{layout.formula('i')}], i = {flat}"
    tma = None if swz is None else next(
        (mode for mode in TMA_SWIZZLES if tma_swizzle(mode, array.dtype.size)[0] ==
         Swizzle(*swz)), None)
    maps = tuple(sorted({s.tensor_map.name
                         for s in _tma_copies(variant, changed[array.name].buffer.views)}))
    if maps:
        decls.append(" and ".join(f'k.tensor_map("{name}", ..., swizzle="{tma}")'
                                  for name in maps))
    return Candidate(array.name, kind, pad, swz, report.wavefronts, report.excess,
                     variant.static_smem - kernel.static_smem,
                     _warps(variant, arch, registers, params),
                     _smem_blocks(variant, arch, params), "; ".join(decls), cuda, tma, maps,
                     variable=source_name(array))


def apply(kernel: Kernel, c: Candidate) -> Kernel:
    """`kernel` with candidate `c`'s change made to its array."""
    current = {v.name: v for v in kernel.shared}[c.array]
    if c.kind == "pad":
        return padded(kernel, current, c.pad)
    if not c.maps:
        return swizzled(kernel, current, *c.swizzle)
    copies = _tma_copies(kernel, current.buffer.views)
    return _with_maps(swizzled(kernel, current, *c.swizzle, align=1024), copies, c.tma)


def _warps(kernel: Kernel, arch: str, registers: int | None, params: Mapping | None
           ) -> int | None:
    if registers is None:
        return None
    try:
        return kernel_occupancy(kernel, arch, registers, params).active_warps
    except OccupancyError:
        return 0


def _smem_blocks(kernel: Kernel, arch: str, params: Mapping | None) -> int | None:
    """Blocks per SM that the kernel's shared memory allows (registers play no part)."""
    try:
        return kernel_occupancy(kernel, arch, 32, params).limits["shared_memory"]
    except OccupancyError:
        return 0


@dataclass(frozen=True)
class BlockShape:
    """The kernel at another block shape of the same thread count (its block dimensions are
    parameters of the launch), or why that shape does not launch."""

    params: Mapping[str, int]     # the block parameters at this shape
    block: tuple[int, int, int]
    requests: int | None
    wavefronts: int | None
    excess: int | None
    error: str | None             # the launch's or the kernel's own error at this shape


SHAPES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)  # per dimension: the usual sizes


def block_shapes(kernel: Kernel, params: Mapping[str, int | float] | None = None, *,
                 arch: str = "sm_90", arrays=None, seed: int = 0) -> tuple[BlockShape, ...]:
    """Where blockDim.x and .y are each a parameter of the launch (`k.launch(block=(BX,
    BY))`), the kernel at every other split of the same thread count into sizes from
    SHAPES (32 x 8 for a 16 x 16 stencil), each analyzed whole; () otherwise. A shape the
    kernel cannot run (a bound its indexing needs, a launch limit) is listed with its
    error, not left out."""
    from kernels_ir import Op
    names = [e.arg if e.op is Op.PARAM else None for e in kernel.block[:2]]
    if None in names or names[0] == names[1] or kernel.block[2].op is not Op.CONST:
        return ()
    launch = resolve_launch(kernel, params)
    x, y = launch.block[0], launch.block[1]
    out = []
    for nx in SHAPES:
        ny = x * y // nx
        if nx * ny != x * y or ny not in SHAPES or (nx, ny) == (x, y):
            continue
        values = {names[0]: nx, names[1]: ny}
        try:
            r = analyze(kernel, {**(params or {}), **values}, arch=arch, arrays=arrays,
                        seed=seed)
            out.append(BlockShape(values, (nx, ny, launch.block[2]), r.requests, r.wavefronts,
                                  r.excess, None))
        except KernelError as err:
            out.append(BlockShape(values, (nx, ny, launch.block[2]), None, None, None,
                                  str(err).splitlines()[0]))
    return tuple(out)

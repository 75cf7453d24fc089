"""`fix` for a CUDA file: each change written into the file's `__shared__` declaration and
counted as nvcc builds the edited file.

A kernel read from nvcc's build (smemsim.frontends.ptx) sees the file's shared variables as
bytes, in views named by the variable (SharedArray.variable); all static variables lie in
one window. A change a user makes is to the declaration (`[TILE + PAD + 1]`, a swizzled
subscript), and what it costs is what nvcc builds from the edited file: ptxas may merge or
split the accesses again, unroll otherwise, spend registers; a view's bytes outside the
declared rows (a C tile staged through `&smem[0][0] + offset`) keep their addresses. So each
candidate is the patched file (smemsim.frontends.cuda.patch), built by nvcc and analyzed as
any `.cu`:

- paddings of the last extent of an array of rank 2 or more, by 4 and 16 bytes (in its
  elements: 1 and 4 floats), then those up to 128 bytes that the kernel's own trace,
  re-costed with the rows that much longer, puts below them (_Screen.paddings: a halo
  tile's 20-float rows want 48); an array of one extent, an element skipped every 128 bytes
  of them (`s[i + (i >> 5)]`: a scan's, a sort's);
- swizzles: CuTe's Swizzle<B, M, S> that keeps the array's widest access whole and sends
  the chunks of each 128-byte row of banks apart (swizzles()), and those of any B, M and S
  that the re-costed trace puts below them (_Screen.better: a transposed SGEMM tile wants
  the rows 4 apart, Swizzle<2,3,5>), written in the declaration's elements.

The screen is the trace's requests re-addressed, not a build: only builds are proposed,
and the patch fix prints must compute what the file computes (cli.fixpatch). A numba
kernel's file is changed and built the same way (frontends.ptx.numba_patch, numba's build).

A change is proposed only where the build's wavefronts go down; each array's best, then all
of them together, built once more (the patch `fix` prints is that build's).
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from kernels_ir import Kernel, KernelError, resolve_launch

from ..launch.analysis import Report, analyze
from ..cache import process_copy
from .fix import Candidate, FixSearch
from ..launch.occupancy import OccupancyError, kernel_occupancy

PAD_BYTES = (4, 16)   # paddings tried, in bytes of a row: a word, a 16-byte vector
SWIZZLES = 3                 # swizzles built per array, the search's best first

# element sizes of the types a declaration names (others: the views' own, where they agree)
_SIZES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "int8_t": 1, "uint8_t": 1, "bool": 1,
    "__nv_fp8_e4m3": 1, "__nv_fp8_e5m2": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2,
    "__nv_bfloat16": 2, "nv_bfloat16": 2, "char2": 2, "uchar2": 2,
    "int": 4, "unsigned": 4, "unsigned int": 4, "int32_t": 4, "uint32_t": 4, "float": 4,
    "half2": 4, "__half2": 4, "__nv_bfloat162": 4, "char4": 4, "uchar4": 4, "short2": 4,
    "long long": 8, "unsigned long long": 8, "int64_t": 8, "uint64_t": 8, "double": 8,
    "size_t": 8, "float2": 8, "int2": 8, "uint2": 8,
    "float4": 16, "int4": 16, "uint4": 16, "double2": 16,
}


@dataclass(frozen=True)
class SourceFile:
    """The `.cu` a kernel was read from, and how it is built (to rebuild it patched)."""

    path: str
    key: str                      # the kernel's key in the file (`k<128>`)
    options: object               # smemsim.frontends.cuda.Options of the build
    flags: tuple = ()             # the user's other nvcc flags
    arch: str = "sm_90"
    # a Python program's CUDA string (strings_patch.StringSource): `path` is then a private
    # copy of what its compile call builds, and each change is built as the program builds it
    string: object = None
    numba: bool = False           # a numba.cuda kernel's Python file (numba_patch), built by numba


def string_file(path: str, key: str, options, flags=(), arch: str = "sm_90") -> SourceFile:
    """The CUDA string kernel `key` of the Python program at `path` is compiled from, as a
    SourceFile (a private `.cu` of what its compile call builds)."""
    from ..frontends.ptx.strings_patch import string_source
    string = string_source(path, key, options, arch, flags)
    copy = process_copy(string.unit.text, pathlib.Path(path).stem + ".cu", "string")
    return SourceFile(str(copy), key, options, tuple(flags), arch, string)


def user_file(source: SourceFile) -> str:
    """The user's own file of a SourceFile (the Python program of a CUDA string)."""
    return source.string.path if source.string is not None else source.path


def patcher(source: SourceFile):
    """The module that finds and changes the source's shared declarations: a `.cu`'s
    (frontends.cuda.patch) or a numba kernel's Python (frontends.ptx.numba_patch)."""
    if source.numba:
        from ..frontends.ptx import numba_patch
        return numba_patch
    from ..frontends.cuda import patch
    return patch


def patched_kernel(source: SourceFile, patched_text: str) -> Kernel:
    """The kernel read from nvcc's build of `patched_text` (the file as edited), written in
    a private folder, its own folder on the include path for its `#include "..."` (a numba
    file: numba's build of it)."""
    if source.numba:
        from ..frontends.loader import select
        from ..frontends.ptx.numba_frontend import import_numba
        path = process_copy(patched_text, pathlib.Path(source.path).name, "patch")
        try:
            return next(iter(select(import_numba(str(path), source.options, source.key,
                                                 source.arch), source.key).values()))()
        except KernelError as err:
            raise KernelError(in_users_file(str(err), source)) from None
    if source.string is not None:
        from ..frontends.ptx.strings_patch import rebuilt
        try:
            return rebuilt(source.string, patched_text)
        except KernelError as err:
            raise KernelError(in_users_file(str(err), source)) from None
    from ..frontends.loader import select
    from ..frontends.ptx.frontend import import_cu
    options = dataclasses.replace(source.options, include_dirs=[
        *source.options.include_dirs, str(pathlib.Path(source.path).resolve().parent)])
    # (at a path named by the text's digest: a text built again, fix's search then its
    # checked patch, an MCP server's next fix, finds its build in the PTX cache)
    path = process_copy(patched_text, pathlib.Path(source.path).name, "patch")
    try:
        return next(iter(select(import_cu(str(path), options, options.kernel,
                                          source.arch, source.flags),
                                source.key).values()))()
    except KernelError as err:
        raise KernelError(in_users_file(str(err), source)) from None


def in_users_file(text: str, source: SourceFile) -> str:
    """A message about the private patched copy, located in the user's file instead."""
    if source.string is not None:
        from ..frontends.ptx.strings_patch import in_users_file as in_program
        return in_program(text, source.string, source.path)
    name = re.escape(pathlib.Path(source.path).name)
    return re.sub(rf"[^\s:'\"]*smemsim-patch-[^/\s]+/{name}((?::\d+)*)",
                  lambda m: f"{source.path}{m.group(1)} (as patched)", text)


def search_source(kernel: Kernel, source: SourceFile,
                  params: Mapping[str, int | float] | None = None, *, arch: str = "sm_90",
                  registers: int | None = None, arrays=None, seed: int = 0,
                  site: int | None = None, jobs: int | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  baseline: Report | None = None, few: bool = False,
                  prefer: str | None = None) -> FixSearch:
    """Paddings and swizzles of each conflicted `__shared__` declaration of the kernel (or
    of the array of `site`), each patched into the file and counted as nvcc builds it
    (`few`: one padding, of the array's widest access, and the best swizzle, then the one
    padding the screen re-costs best where it beats the built one: what a report draws, in
    a third of the builds; `prefer`: "pad" or "swizzle", the kind each array's
    best is where one of that kind lowers its wavefronts)."""
    from ..frontends.cuda.patch import LayoutChange
    patching = patcher(source)
    layout_patch, shared_declaration = patching.layout_patch, patching.shared_declaration
    if baseline is None:
        baseline = analyze(kernel, params, arch=arch, arrays=arrays, seed=seed)
    if site is not None:
        if site not in [s.site for s in baseline.sites]:
            raise KernelError(f"no shared access site {site}; the sites are "
                              f"{', '.join(str(s.site) for s in baseline.sites) or 'none'}",
                              kernel=kernel.name)
        conflicted = [baseline.site(site)]
    else:
        conflicted = [s for s in baseline.sites if s.excess > 0]
    skipped, names = [], []
    for s in conflicted:
        if s.variable is None:
            skipped.append(f"{s.array}: its accesses' variable is not known (an address "
                           "the build computes): no declaration to change")
        elif s.variable not in names:
            names.append(s.variable)
    plan: list[tuple[str, LayoutChange]] = []
    screen, sizes, declarations = None, {}, {}
    for name in names:
        try:
            decl = declarations[name] = shared_declaration(source.path, kernel.name, name)
        except KernelError as err:
            skipped.append(f"{name}: {in_users_file(str(err), source)}")
            continue
        mine = [v for v in kernel.shared if v.variable == name]
        size = sizes[name] = _element_size(decl.type, mine)
        widest = max([s.width for s in baseline.sites if s.variable == name] or
                     [size or 4])
        if len(decl.extents) >= 2 and decl.extents[-1] is not None:
            unit = size or 4
            # (an element wider than the paddings: one element)
            pads = [b for b in PAD_BYTES if b % unit == 0] or [unit]
            if few:   # (a row moved by its widest access: a word, or a 16-byte vector)
                pads = [min((b for b in pads if b >= widest), default=pads[-1])]
            plan += [(name, LayoutChange(name, "pad", pad=b // unit)) for b in pads]
        elif len(decl.extents) == 1 and decl.extents[0] and not source.numba and \
                (size or 4) <= 8:
            # (a one-extent array's padding: an element skipped every 128 bytes of them,
            # `s[i + (i >> 5)]` of floats, the scan's and the sort's classic; where ptxas
            # merged neighbouring elements into a wider access, the build says whether it
            # still can)
            plan.append((name, LayoutChange(name, "skew",
                                            pad=(128 // (size or 4)).bit_length() - 1)))
        elif len(decl.extents) == 1 and source.numba:
            skipped.append(f"{name}: padding not tried: an array of one extent is padded "
                           "by an element every 128 bytes in a .cu (`pad 1 every 32`), not "
                           "yet in a numba file")
        else:
            skipped.append(f"{name}: padding not tried: it is declared with one extent "
                           f"({name}[{decl.extents[0] or ''}]): rows are not the "
                           "declaration's")
        if size is None:
            skipped.append(f"{name}: swizzles not tried: the size of its element type "
                           f"'{decl.type}' is not known here")
            continue
        tried = swizzles(widest, size)[:1 if few else SWIZZLES]
        if len(decl.extents) < 2 and not few:
            # a flat array's rows are its index's, not the declaration's: rows of 2, 4 and
            # 8 times 128 bytes too (a 32-double row wants Swizzle<4,0,5>)
            b, m, s = tried[0]
            tried += [(b, m, s + k) for k in (1, 2, 3)]
        if screen is None:
            screen = _Screen(kernel, params, arch, arrays, seed)
        tried = screen.better(name, size, widest, tried, few)
        plan += [(name, LayoutChange(name, "swizzle", swizzle=swz)) for swz in tried]
    done = [0]

    def one(item):
        name, change = item
        try:
            patch = layout_patch(source.path, kernel.name, [change])
            return item, _counted(patched_kernel(source, patch.patched), params, arch,
                                  arrays, seed, registers), patch, None
        except KernelError as err:
            # (the statement the IR prints is the build's, not the user's: the line says it)
            why = re.sub(r", `[^`]*`", "", " ".join(str(err).split()))
            # (the kernel is the table's; a fault's lane is the patched build's detail)
            why = re.sub(r"^kernel '[^']*', |\s*\[block [^\]]*\]$", "", why)
            return item, None, None, in_users_file(why, source)
        finally:
            done[0] += 1
            if progress is not None:
                progress(done[0], len(plan))
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        results = list(pool.map(one, plan))
        # then the paddings the screen finds better than those built, a row's length known
        # from the first padded build (a 16 x 16 block's two rows a warp in a 20-float
        # tile: 48 floats a row, 16 banks apart)
        # (`few`: the one the screen finds best, so that a report shows what fix finds)
        more = [] if screen is None else [
            (name, LayoutChange(name, "pad", pad=pad)) for name in names
            for pad in screen.paddings(name, sizes[name], [
                (change.pad, counted[1]) for (n, change), counted, _, _ in results
                if n == name and change.kind == "pad" and counted is not None
            ])[:1 if few else None]]
        if more:
            plan += more
            results += list(pool.map(one, more))
    base_smem = kernel.built.static_smem if kernel.built is not None else kernel.static_smem
    candidates, failed = [], {}
    for (name, change), counted, patch, error in results:
        if counted is None:   # (the changes of an array one reason stops: one line)
            failed.setdefault((name, error), []).append(_label(change))
            continue
        report, variant, warps = counted
        smem = variant.built.static_smem if variant.built is not None else variant.static_smem
        candidates.append(Candidate(
            name, change.kind, change.pad, change.swizzle, report.wavefronts, report.excess,
            smem - base_smem, warps, _smem_blocks(variant, arch, params),
            *_edits(patch.edits, source),
            requests=sum(s.requests for s in report.sites)))
    # (swizzles of as many wavefronts in swizzles()'s order: the one a report, which builds
    # only the first, shows too)
    tried = {(name, change.swizzle): n for n, (name, change) in enumerate(plan)}
    skipped += [f"{name} {', '.join(labels)}: {error}"
                for (name, error), labels in failed.items()]
    # (of as many wavefronts, the build of fewer shared instructions: a padding that keeps
    # ptxas's LDS.128 over one that splits them in four)
    order = lambda c: (c.wavefronts, c.requests or 0, c.extra_smem,  # noqa: E731
                       c.kind == "swizzle", c.pad, tried.get((c.array, c.swizzle), 0))
    candidates.sort(key=order)
    baseline_warps = _counted_warps(kernel, arch, registers, params)
    launch = resolve_launch(kernel, params)
    per_block = -(-launch.threads_per_block // 32)

    def fewer_warps(c) -> bool:
        """Fewer warps per SM than the file as it is, where that can matter: not where the
        launch's blocks all fit on one SM at the change's occupancy (a 16-block grid)."""
        if (c.active_warps or 0) >= (baseline_warps or 0):
            return False
        return launch.num_blocks > (c.active_warps or 0) // per_block
    best = []
    for name in names:
        better = [c for c in candidates if c.array == name and
                  c.wavefronts < baseline.wavefronts]
        # fewer wavefronts at fewer warps per SM is a trade the user makes, not fix
        # (`--prefer pad`: an element every 128 bytes is a padding too)
        better.sort(key=lambda c: (prefer is not None and
                                   ("pad" if c.kind == "skew" else c.kind) != prefer,
                                   fewer_warps(c),
                                   *order(c)))
        if better:
            best.append(better[0])
    combined = combined_warps = None
    if len(best) > 1:
        try:
            patch = layout_patch(source.path, kernel.name, [
                LayoutChange(c.array, c.kind, c.pad, c.swizzle) for c in best])
            combined, _, combined_warps = _counted(patched_kernel(source, patch.patched),
                                                   params, arch, arrays, seed, registers)
        except KernelError as err:
            skipped.append("every array's best together: " +
                           in_users_file(" ".join(str(err).split()), source))
            best = best[:1]
    helped = {c.array for c in best}
    hints = tuple(h for name in names if name not in helped and name in declarations
                  for h in _macro_hint(source.path, declarations[name], sizes.get(name),
                                       pathlib.Path(user_file(source)).name))
    if kernel.instance is not None and best:
        # (a template's declaration is every instance's)
        hints += (f"the declaration is the template's: the patch changes every instance of "
                  f"{kernel.instance.split('<')[0]}, not {kernel.instance} alone",)
    return FixSearch(kernel.title, baseline, baseline_warps,
                     _smem_blocks(kernel, arch, params), tuple(names), tuple(candidates),
                     tuple(skipped), combined, combined_warps, tuple(best), built=True,
                     hints=hints)


def _edits(edits: tuple, source: SourceFile) -> tuple[str, str]:
    """A candidate's first edit, and up to three more (lines of the user's file)."""
    if source.string is not None:
        from ..frontends.ptx.strings_patch import user_edits
        edits = user_edits(source.string, edits)
    return ("; ".join(edits[:1]), "; ".join(edits[1:4]) +
            (f"; and {len(edits) - 4} more" if len(edits) > 4 else ""))


def _macro_hint(path: str, decl, size: int | None, name: str) -> list[str]:
    """Where a padding of the declaration helped nothing and its last extent names a macro
    the file #defines: the sweep that builds the file at other values of it (a macro
    reaches every use of the row's length, a wmma `ldm`, a stride written by hand, where
    the patch changes the declaration only)."""
    last = decl.extents[-1] if decl.extents else None
    if not last:
        return []
    text = pathlib.Path(path).read_text(errors="replace")
    # (a term added to the row's length: `BK + APAD`'s APAD, not a row of TILE alone)
    terms = [t.strip() for t in re.split(r"\+", last)][1:]
    macros = [m for m in dict.fromkeys(t for t in terms if re.fullmatch(r"[A-Za-z_]\w*", t))
              if re.search(rf"^\s*#\s*define\s+{re.escape(m)}\b", text, re.M)]
    if not macros:
        return []
    step = max(1, 16 // (size or 4))   # (rows moved by 16 bytes at a time)
    return [f"{decl.name}: its rows are [{last}] long, and "
            f"{' and '.join(macros)} may pad them elsewhere too (a wmma ldm, a stride): "
            f"the patch changes the declaration only; `smemsim sweep {name} -D "
            f"{macros[-1]}=0:{8 * step}:{step}` builds the file at each value"]


def _label(change) -> str:
    if change.kind == "skew":
        return f"pad 1 every {1 << change.pad}"
    return f"pad {change.pad}" if change.kind == "pad" else \
        "Swizzle<{},{},{}>".format(*change.swizzle)


def _element_size(type_text: str, views) -> int | None:
    """Bytes of the declaration's element type: a type the table knows, else the one size
    all the variable's views read in, else None."""
    words = " ".join(w for w in type_text.replace("const", " ").replace("volatile", " ")
                     .split())
    if words in _SIZES:
        return _SIZES[words]
    sizes = {v.dtype.size for v in views}
    return sizes.pop() if len(sizes) == 1 else None


def swizzles(widest: int, size: int) -> list[tuple[int, int, int]]:
    """The swizzles tried for an array of `size`-byte elements whose widest access moves
    `widest` bytes a lane, in its elements, best first: CuTe's Swizzle<B, M, S> with 2^M
    elements the access's bytes (a vector stays whole) and 2^S of them a 128-byte row of
    the banks, XORing the row's bits into the access's chunk index: B = S (every chunk of a
    row to its own banks: Swizzle<5,0,5> of floats, <3,3,3> of halves read 16 bytes at a
    time: TMA's SWIZZLE_128B), then B = S - 1 and B = S - 2 (fewer rows apart). An access
    narrower than a word is counted as a word's (its bank's)."""
    chunk = max(widest, size, 4)   # (narrower accesses share a bank's word anyway)
    m = (chunk // size).bit_length() - 1
    s = (128 // chunk).bit_length() - 1
    return [(b, m, s) for b in (s, s - 1, s - 2) if b >= 1]


class _Screen:
    """Every swizzle of a variable re-costed on the kernel's own trace (its requests' lane
    addresses moved as the swizzle moves its elements), to find the ones worth a build:
    the canonical swizzles() send each 128-byte row's chunks apart, which misses a tile
    whose conflicting lanes are rows further apart (a transposed 64-float SGEMM tile stored
    at rows k, k+4, k+8, k+12: Swizzle<2,3,5>, `m ^ (((k >> 2) & 3) << 3)`). The build may
    still count otherwise (ptxas merges or splits the swizzled accesses): only the builds
    are proposed."""

    BUILT = 2   # swizzles built beyond the canonical ones, where the screen finds better

    def __init__(self, kernel: Kernel, params, arch: str, arrays, seed: int):
        from kernels_ir import resolve_launch
        from ..launch.slicing import slice_kernel
        from ..launch.trace import trace_launch
        self.kernel, self.arch = kernel, arch
        self.trace = None
        # (a run on data keeps every request it issues: no screen there)
        if not slice_kernel(kernel).data_dependent:
            launch = resolve_launch(kernel, params)
            self.window = max(launch.smem_window, 1)
            self.dynamic = launch.dynamic_smem
            self.trace = trace_launch(kernel, launch, arrays, seed)

    def better(self, name: str, size: int, widest: int, tried: list, few: bool) -> list:
        """`tried`, and before them (`few`: instead of them) the swizzles whose re-costed
        wavefronts are below every one of `tried`'s, fewest first."""
        sites = [s for s in self.kernel.sites() if not (s.BULK or s.GMMA) and
                 getattr(s.array, "variable", None) == name]
        views = {id(s.array): s.array for s in sites}
        bases = {getattr(v, "variable_at", None) for v in views.values()}
        if self.trace is None or not sites or not tried or None in bases or len(bases) != 1:
            return tried
        base, = bases
        view = next(iter(views.values()))
        nbytes = view.variable_bytes if view.variable_bytes is not None else \
            (self.dynamic if view.buffer.dynamic else view.buffer.nbytes) - base
        length = nbytes // size
        costs = {swz: self._cost(sites, base, base + nbytes, size, swz) for swz in
                 _all_swizzles(widest, size, length) + list(tried)}
        floor = min(costs[swz] for swz in tried)
        found = sorted((c, swz) for swz, c in costs.items()
                       if c < floor and swz not in tried)
        found = [swz for _, swz in found[:1 if few else self.BUILT]]
        return (found or tried)[:1] if few else found + list(tried)

    def paddings(self, name: str, size: int, built: list) -> list[int]:
        """Paddings of `name`'s rows (in its `size`-byte elements) that re-cost below every
        padding `built` ((pad, the patched kernel) pairs) and keep each access aligned,
        fewest wavefronts first (at most BUILT). A row's length is read off the first
        padded build: its variable grows by the pad times its rows."""
        sites = [s for s in self.kernel.sites() if not (s.BULK or s.GMMA) and
                 getattr(s.array, "variable", None) == name]
        if self.trace is None or not sites or not built:
            return []
        view = sites[0].array
        base, nbytes = view.variable_at, view.variable_bytes
        pad, variant = built[0]
        grown = next((v.variable_bytes for v in variant.shared
                      if v.variable == name and v.variable_bytes), None)
        if base is None or not nbytes or not grown or grown <= nbytes or \
                (grown - nbytes) % (pad * size):
            return []
        rows = (grown - nbytes) // (pad * size)
        if nbytes % (rows * size):
            return []
        row = nbytes // (rows * size)    # a row's elements, unpadded
        step = max(1, max(s.access_bytes for s in sites) // size)
        costs = {}
        for p in range(step, max(128 // size, step) + 1, step):
            cost = self._cost(sites, base, base + nbytes, size, None, (row, p))
            if cost is not None:
                costs[p] = cost
        floor = min((costs[p] for p, _ in built if p in costs), default=None)
        if floor is None:
            return []
        done = {p for p, _ in built}
        found = sorted((c, p) for p, c in costs.items() if c < floor and p not in done)
        return [p for _, p in found[:self.BUILT]]

    def _cost(self, sites, base: int, end: int, size: int, swz, padding=None) -> int | None:
        from ..engine.batch import warp_requests
        b, m, s = swz or (0, 0, 0)
        total = 0
        for stmt in sites:
            st = self.trace.sites[stmt.site]
            if not st.counts.size:
                continue
            at = st.patterns.astype(np.int64)
            inside = (at >= base) & (at < end)
            element, byte = np.divmod(np.where(inside, at - base, 0), size)
            if padding is not None:   # (row, pad): each row `pad` elements longer
                row, pad = padding
                moved = element // row * (row + pad) + element % row
                if ((base + moved * size + byte) % stmt.access_bytes)[inside].any():
                    return None   # a vector split across the new rows: the GPU faults
            else:
                moved = element ^ (((element >> (m + s)) & ((1 << b) - 1)) << m)
            at = np.where(inside, base + moved * size + byte, at)
            # (a padded variable grows the window)
            window = max(self.window, int(at.max()) + stmt.access_bytes)
            cost = warp_requests(at, stmt.access_bytes, stmt.op, arch=self.arch,
                                 window=window, matrices=stmt.matrices)
            total += int((cost.wavefronts * st.counts).sum())
        return total


def _all_swizzles(widest: int, size: int, length: int) -> list[tuple[int, int, int]]:
    """Every Swizzle<B, M, S> of a `length`-element array that keeps a `widest`-byte access
    whole (2^M elements at least its bytes) and moves elements within the array (length a
    multiple of 2^(B+M); bits M+S.. present)."""
    m0 = (max(widest, size) // size).bit_length() - 1
    out = []
    for m in range(m0, m0 + 3):
        for b in range(1, 6):
            if length % (1 << (b + m)):
                continue
            for s in range(b, 11):
                if (1 << (m + s)) >= length:
                    break
                out.append((b, m, s))
    return out


def _counted(variant: Kernel, params, arch: str, arrays, seed: int, registers):
    """(report, kernel, warps per SM) of one build: the registers ptxas gave that build (a
    change may cost registers: the original's given count would hide it, and `report
    --regs compile` chose a swizzle at 32 warps per SM over a padding at 40 that `fix`
    without --regs chose), else as given."""
    report = analyze(variant, params, arch=arch, arrays=arrays, seed=seed)
    regs = variant.built.registers if variant.built is not None and \
        variant.built.registers is not None else registers
    return report, variant, _counted_warps(variant, arch, regs, params)


def _counted_warps(kernel: Kernel, arch: str, registers, params) -> int | None:
    regs = registers if registers is not None else \
        (kernel.built.registers if kernel.built is not None else None)
    if regs is None:
        return None
    static = kernel.built.static_smem if kernel.built is not None else None
    try:
        return kernel_occupancy(kernel, arch, regs, params, static_smem=static).active_warps
    except OccupancyError:
        return 0


def _smem_blocks(kernel: Kernel, arch: str, params) -> int | None:
    """Blocks per SM the build's shared memory allows."""
    static = kernel.built.static_smem if kernel.built is not None else None
    try:
        return kernel_occupancy(kernel, arch, 32, params,
                                static_smem=static).limits["shared_memory"]
    except OccupancyError:
        return 0

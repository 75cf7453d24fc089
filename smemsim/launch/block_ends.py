"""The check's other run at the grid's ends: a few blocks standing for every block.

The other run of `check` (slicing.HazardSlices) evaluates, in every block, what can fault
outside shared memory: global indices, loop bounds, probes. Where that run reads blockIdx
only through global indices affine in it and through guards that compare an affine function
of one block axis (`if (blockIdx.x * 256 + threadIdx.x < n)`), everything else being the
same in every block, each thread's accesses are one progression over the box of blocks its
guards hold on: their indices at the box's corners bound all the others, and the steps
between a corner and its neighbours decide every alignment. So the run takes, per axis it
reads, each thread's first, second and last block of every guard's interval, and verifies
what it saw (each access ran in exactly the blocks of its box, the same number of times,
its offsets one affine function of the block): where that does not hold, or the run faults,
`check` walks every block as before. A 16.7 M-block reduction's other run takes 9 blocks.
A guard may be a union of such boxes (an `||` of them, or what follows an early return of
an `&&`: numba's docs' `if x >= n and y >= n: return`): the run takes each box's corners,
and each access must be one progression over each box. A block axis divided by a launch
constant (a 1-D grid of tiles read as `blockIdx.x / (N / BN)` and `blockIdx.x % (N / BN)`,
fast.cu's GEMMs) stands as two coordinates, the quotient and the remainder
(block_coordinates): each access must be one progression in those, over each box of the
grid in them (two where the divisor does not divide the grid).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from kernels_ir import GlobalAccess, Kernel, KernelRuntimeError, PartialRun, run
from kernels_ir.dtypes import promote
from kernels_ir.expr import Expr, Op
from kernels_ir.interpret_loops import affine_interval
from kernels_ir.semantics import LaneFault, convert
from kernels_ir.stmt import (Assert, Assign, Atomic, DeclareLocal, If, Let, Load, LocalStore,
                             Loop, MmaSync, Return, Shuffle, Store, SyncReduce, walk)
from kernels_ir.stmt_async import BulkLoad, CopyAsync

from .block_coordinates import Coordinates, Grid, Lanes, find_divisors, is_block
from .affine import affine_degree, inline_locals

# blocks the ends may take before walking every block is the better deal
MAX_BLOCKS = 4096
# boxes whose union a guard may be (each `||` of box guards doubles them)
MAX_BOXES = 64
# lanes (coordinate values x threads) a guard that is not affine is evaluated at
MAX_EVALUATED = 1 << 22


class _TooManyBoxes(Exception):
    """A union of more boxes than MAX_BOXES: every block is walked instead."""


@dataclass(frozen=True)
class BlockEnds:
    """What the ends run needs: the block coordinates the other run reads (block_coordinates:
    an axis, or a divided one's quotient and remainder), and per global access (by id) the
    comparisons around it that read one of them (locals written out)."""

    axes: tuple[str, ...]
    guards: Mapping[int, tuple[Expr, ...]]
    # narrower parts of wider indices, each widened before it meets the rest (`(size_t)(bm
    # + row) * K`): exact where they do not wrap at the grid's corners (_no_wrap)
    unwrapped: tuple[Expr, ...] = ()
    coords: Coordinates = Coordinates()


def _unsigned_or_signed(e: Expr) -> Expr:
    """`e` without the casts at its top that only change its signedness (the same bits: nvcc's
    PTX shifts a signed 64-bit index as `shl.b64`, read as `(long)((unsigned long)(i) << 2)`)."""
    while e.op is Op.CAST and not e.dtype.is_float and not e.src[0].dtype.is_float and \
            e.dtype.bits == e.src[0].dtype.bits:
        e = e.src[0]
    return e


def _one_width(e: Expr, lets: dict, is_var=is_block, narrow: set | None = None) -> bool:
    """Whether `e` is affine in the block indices modulo 2**bits of one integer width (a
    widening at its top aside, and block-invariant terms added after it): then three blocks
    per axis decide it (see _progression). `is_var`: the leaves that stand for the block
    (blockIdx, a divided one's quotient and remainder, and the locals _block_locals finds).
    With `narrow`, also where its narrower parts are each widened before they meet the wider
    rest and read nothing but indices and parameters (a GEMM's `(long)(blockIdx.y * 64 +
    tid / 2) * K`): those parts, added to `narrow`, are then exact where they do not wrap,
    which the ends run checks at the grid's corners (_no_wrap)."""
    memo: dict = {}   # (every part of `e` is asked its degree below: once each)
    degree = lambda n: affine_degree(n, None, lets, is_var=is_var, memo=memo)  # noqa: E731
    if e.dtype.is_float or degree(e) is None:
        return False
    inner, before = _unsigned_or_signed(e), None
    while inner is not before:
        before = inner
        # (terms the same in every block added, in the top's width: a compiler's 64-bit
        # `+ -4` bytes after its widening multiply, `(long)(y * W + x) - 1`, a loop's
        # offset added before the scaling, `(k + (long)(y * W)) << 2`)
        while inner.op in (Op.ADD, Op.SUB) and inner.src[0].dtype.bits == e.dtype.bits and \
                degree(inner.src[1]) == 0:
            inner = _unsigned_or_signed(inner.src[0])
        while inner.op is Op.ADD and inner.src[1].dtype.bits == e.dtype.bits and \
                degree(inner.src[0]) == 0:
            inner = _unsigned_or_signed(inner.src[1])
        # (a 64-bit scaling of a widened value, the PTX's byte address `(long)(i) * 4`: no
        # 64-bit product of a 32-bit index and a factor below 2^31 wraps)
        while inner.op in (Op.MUL, Op.SHL) and inner.dtype.bits == 64 and \
                inner.src[0].dtype.bits == 64 and inner.src[1].op is Op.CONST and \
                0 <= inner.src[1].arg < (31 if inner.op is Op.SHL else 1 << 31):
            inner = _unsigned_or_signed(inner.src[0])
    # (a widening at the top, or a chain of them: the PTX path's `(long long)(unsigned long
    # long)(unsigned)(i)` of a 32-bit index never wraps)
    inner = inner.src[0] if inner.op is Op.CAST else inner
    while inner.op is Op.CAST and inner.dtype.bits > inner.src[0].dtype.bits and \
            not inner.src[0].dtype.is_float and not inner.dtype.is_float:
        inner = inner.src[0]
    # a block coordinate itself, or widened as it is, is exact at any width (it never wraps)
    coordinate = lambda n: n.op is not Op.VAR and is_var(n)  # noqa: E731
    exact = lambda n: coordinate(n) or (n.op is Op.CAST and coordinate(n.src[0]) and  # noqa
                                        n.dtype.bits >= n.src[0].dtype.bits)
    affine = lambda n: not exact(n) and degree(n) == 1  # noqa: E731
    widths = {n.dtype.bits for n in inner.walk() if affine(n)}
    if len(widths) <= 1:
        return True
    if narrow is None:
        return False
    # the widest width is the index's; each narrower affine part must be the operand of a
    # widening to it, and read only indices, parameters and constants
    top, roots = max(widths), []

    def parts(n: Expr) -> bool:
        if n.op is Op.CAST and n.dtype.bits == top and not n.dtype.is_float and \
                not n.src[0].dtype.is_float and n.src[0].dtype.bits < top and \
                affine(n.src[0]):
            root = inline_locals(n.src[0], lets)
            if any(x.op is Op.VAR for x in root.walk()):
                return False
            roots.append(root)
            return True
        if affine(n) and n.dtype.bits < top:
            return False
        return all(parts(x) for x in n.src if isinstance(x, Expr))
    if not parts(inner):
        return False
    narrow.update(roots)
    return True


def _block_locals(kernel: Kernel, other, coords: Coordinates, narrow: set | None = None):
    """(each local of the other run that holds a block-dependent value -> the block axes it
    reads, and the leaf test that counts such locals as the block) where every value given
    it is affine in the block indices and such locals, of one integer width: nvcc's PTX
    keeps a thread's global address in a register it advances in a loop (`r60 = (bx * bd +
    tx) * K + 3`, then `r60 += 4`), which is then as good a leaf of the ends run as
    blockIdx. None where one is given a value otherwise of the block."""
    values: dict = {}
    declared: dict = {}
    for x in kernel.statements():
        if id(x) not in other:
            continue
        if isinstance(x, Assign):
            values.setdefault(x.var, []).append(x.value)
        elif isinstance(x, Let):
            declared[x.var] = x.value
    for var in values:   # (a declared local given values later: its first is one of them)
        if var in declared:
            values[var].insert(0, declared[var])
    lets = {v: e for v, e in declared.items() if v not in values}
    axes: dict = {}
    changed = True
    while changed:
        changed = False
        leaf = lambda n: coords.leaf(n) or (n.op is Op.VAR and n.arg in axes)  # noqa: E731
        for var, given in values.items():
            if any(affine_degree(e, None, lets, is_var=leaf) != 0 for e in given):
                read = set()
                for e in given:
                    inlined = inline_locals(e, lets)
                    read |= coords.read(inlined) | {a for n in inlined.walk()
                                                    if n.op is Op.VAR and n.arg in axes
                                                    for a in axes[n.arg]}
                if var not in axes or not read <= axes[var]:
                    axes[var] = axes.get(var, set()) | read
                    changed = True
    leaf = lambda n: coords.leaf(n) or (n.op is Op.VAR and n.arg in axes)  # noqa: E731
    if not all(_one_width(e, lets, leaf, narrow) for var in axes for e in values[var]):
        return None
    return axes, leaf


def _multiple(cond: Expr, lets: dict, leaf, narrow: set | None = None) -> tuple | None:
    """(X, k) where `cond` is `X % k == 0` with X affine in the block of one width (the PTX
    path's alignment assertion of an address): at the grid's ends it holds at a block and
    its neighbours, so X's step along each axis is a multiple of k too, and it holds in
    every block. None for any other condition."""
    if cond.op is not Op.EQ or cond.src[1].op is not Op.CONST or cond.src[1].arg != 0:
        return None
    mod = cond.src[0]
    if mod.op is not Op.MOD or mod.src[1].op is not Op.CONST or mod.src[1].arg <= 0 or \
            not _one_width(mod.src[0], lets, leaf, narrow):
        return None
    return (mod.src[0], mod.src[1].arg)


def _exact_quotient(e: Expr, multiples: set) -> Expr:
    """`X / k` as X where an assertion before it says X % k == 0 (the element index of an
    asserted-aligned byte address: affine where X is); any other `e` as it is."""
    if e.op is Op.DIV and e.src[1].op is Op.CONST and (e.src[0], e.src[1].arg) in multiples:
        return e.src[0]
    return e


def block_ends(kernel: Kernel, other, probes, lanes_only=frozenset()) -> BlockEnds | None:
    """The ends run of the other run (statement ids `other`, probes by statement; shuffles
    `lanes_only` whose values it does not evaluate), or None where some statement of it
    depends on blockIdx otherwise than the module says."""
    lets: dict = {}
    guards: dict = {}
    narrow: set = set()      # narrower parts of indices, exact where they do not wrap
    coords = _coordinates(kernel, other)
    found = _block_locals(kernel, other, coords, narrow)
    if found is None:
        return None
    local_axes, leaf = found
    multiples: set = set()   # (X, k) of the alignment assertions seen: X % k == 0
    zero = lambda e: affine_degree(e, None, lets, is_var=leaf) == 0  # noqa: E731

    def visit(body, around: tuple, top: bool = False) -> bool:
        for x in body:
            if id(x) not in other and id(x) not in probes:
                continue   # not run, nor anything inside it
            if isinstance(x, If) and _early_return(x, other):
                # `if (i >= n) return;`: what follows is guarded by `i < n`; inside a branch
                # only where no block index decides it (the same threads of every block
                # leave: fast.cu's producer warps), as the rest of the kernel after the
                # branch is not guarded by it
                found = _return_guards(x.cond, lets, coords)
                if found is None or found and not top:
                    return False
                around = around + found
                continue
            if id(x) in probes and not all(zero(e) for p in probes[id(x)] for e in p.roots()):
                return False
            if isinstance(x, Let):
                lets[x.var] = x.value
            elif isinstance(x, (Load, Store, Atomic)) and not x.is_shared:
                if not all(_one_width(_exact_quotient(e, multiples), lets, leaf, narrow)
                           for e in x.index):
                    return False
                guards[id(x)] = around
            elif isinstance(x, (CopyAsync, BulkLoad)):
                # (its global read is the other run's access; the shared side, the same in
                # every block here, the shared run's; a bulk copy's mbarrier too)
                shared_side = (*x.index, *x.barrier_index) if isinstance(x, BulkLoad) else \
                    (*x.index, *(() if x.src_bytes is None else (x.src_bytes,)))
                if not all(_one_width(_exact_quotient(e, multiples), lets, leaf, narrow)
                           for e in x.src_index) or not all(zero(e) for e in shared_side):
                    return False
                guards[id(x)] = around
            elif isinstance(x, If):
                found = _box_guard(x.cond, lets, coords)
                if found is None:
                    return False
                otherwise = ()
                if found and any(id(y) in other for y in walk(x.orelse)):
                    # (the else holds where the guard does not: a union of boxes too)
                    otherwise = _negation(found)
                    if otherwise is None:
                        return False
                if not (visit(x.then, around + found) and
                        visit(x.orelse, around + otherwise)):
                    return False
            elif isinstance(x, Loop):
                if not all(zero(e) for e in x.exprs()) or not visit(x.body, around):
                    return False
            elif isinstance(x, Assign) and x.var in local_axes:
                pass   # (a local that stands for the block: _block_locals checked it)
            elif isinstance(x, Assert) and \
                    (multiple := _multiple(x.cond, lets, leaf, narrow)) is not None:
                multiples.add(multiple)
            elif isinstance(x, (Shuffle, MmaSync)) and id(x) in lanes_only:
                # (its values are not evaluated: only which lanes it reads)
                if isinstance(x, Shuffle) and not all(
                        zero(e) for e in (x.lane, x.width, x.mask) if isinstance(e, Expr)):
                    return False
            elif isinstance(x, (Assign, Shuffle, MmaSync, DeclareLocal, LocalStore,
                                SyncReduce, Assert)):
                # (an assertion of what no block index decides, the PTX path's alignment
                # checks of shared offsets: as in every block, so at the ends)
                if not all(zero(e) for e in x.exprs()):
                    return False
            else:
                return False   # a return, a cp.async, ...: walk every block
        return True

    if not visit(kernel.body, (), top=True):
        return None
    axes = set()
    for s in kernel.statements():
        if id(s) in other:
            for e in s.exprs():
                inlined = inline_locals(e, lets)
                axes |= coords.read(inlined)
                axes |= {a for n in inlined.walk() if n.op is Op.VAR and n.arg in local_axes
                         for a in local_axes[n.arg]}
    return BlockEnds(coords.names(axes), guards, tuple(narrow), coords)


def _coordinates(kernel: Kernel, other) -> Coordinates:
    """The block coordinates of the other run (statement ids `other`): an axis it divides by
    one launch constant, its quotient and remainder (block_coordinates)."""
    lets = {s.var: s.value for s in kernel.statements() if id(s) in other and
            isinstance(s, Let)}
    return Coordinates(find_divisors(inline_locals(e, lets) for s in kernel.statements()
                                     if id(s) in other for e in s.exprs()))


# a comparison's negation (== has none of one comparison)
_NEGATED = {Op.LT: Op.GE, Op.GE: Op.LT, Op.LE: Op.GT, Op.GT: Op.LE}


def _early_return(x: If, other) -> bool:
    """Whether `x` is `if (cond) return;` (nothing else of the run in it), with a comparison
    that has a negation as its condition, or one that reads no block axis."""
    then = [y for y in walk(x.then) if id(y) in other]
    return (len(then) == 1 and isinstance(then[0], Return) and x.then[-1] is then[0]
            and not any(id(y) in other for y in walk(x.orelse))
            and x.cond.op is not Op.EQ)


def _return_guards(cond: Expr, lets: dict, coords: Coordinates) -> tuple[Expr, ...] | None:
    """The box guards of what follows `if (cond) return;`: each comparison of `cond`'s `||`
    that reads a block axis, negated (nvcc's `if (x >= M || y >= N) return;` of `if (x < M
    && y < N) { ... }`); of an `&&` of such, the union of their negations (numba's docs'
    `if x >= n and y >= m: return`: what follows runs where `x < n || y < m`); None where a
    part is not one comparison of one block axis."""
    if cond.op is Op.LOR:
        parts = [_return_guards(c, lets, coords) for c in cond.src]
        return None if None in parts else parts[0] + parts[1]
    if cond.op is Op.LAND:
        parts = [_return_guards(c, lets, coords) for c in cond.src]
        if None in parts or () in parts:
            return None   # (a part no block index decides: not a union of boxes)
        return (Expr(Op.LOR, cond.dtype, tuple(_conjunction(p) for p in parts)),)
    found = _box_guard(cond, lets, coords)
    if found is None or (found and (len(found) != 1 or found[0].op not in _NEGATED)):
        return None
    return tuple(Expr(_NEGATED[c.op], c.dtype, c.src, c.arg) for c in found)


def _negation(guards: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """Where box guards (comparisons, all of which hold) do not hold: the union of each
    comparison's negation, as one guard (YHs's SGEMM writes its C tile back under `if
    (m_idx + 32 <= m) ... else ...`); None where one has no negation (an `==`, an `||`)."""
    if any(g.op not in _NEGATED for g in guards):
        return None
    sides = tuple(Expr(_NEGATED[g.op], g.dtype, g.src, g.arg) for g in guards)
    return sides if len(sides) == 1 else (Expr(Op.LOR, guards[0].dtype, sides),)


def _conjunction(guards: tuple[Expr, ...]) -> Expr:
    """`g1 && g2 && ...` of box guards, as one condition."""
    out = guards[0]
    for g in guards[1:]:
        out = Expr(Op.LAND, out.dtype, (out, g))
    return out


def _alternatives(guard: Expr) -> list[tuple[Expr, ...]]:
    """A box guard as the boxes whose union it holds on, each a tuple of comparisons of one
    block axis (a guard that is one comparison: one box)."""
    if guard.op is Op.LOR:
        return [box for side in guard.src for box in _alternatives(side)]
    if guard.op is Op.LAND:
        return [a + b for a in _alternatives(guard.src[0]) for b in _alternatives(guard.src[1])]
    return [(guard,)]


def _as_condition(cond: Expr, lets: dict) -> Expr:
    """`cond` without the wrapping that leaves its truth as it is: a predicate local declared
    once, and `(c ? 1 : 0) != 0` (an inline asm's `setp.ne.b32 p, %2, 0` of a C++ bool:
    YHs's SGEMM loads under `(A_ldg_guard & (1u << i)) != 0 && threadIdx.x % 8 < ...`)."""
    zero = lambda e: e.op is Op.CONST and e.arg == 0  # noqa: E731
    while True:
        if cond.op is Op.VAR and cond.arg in lets:
            cond = lets[cond.arg]
            continue
        if cond.op is Op.NE and any(zero(x) for x in cond.src):
            inner = cond.src[0] if zero(cond.src[1]) else cond.src[1]
            while inner.op is Op.CAST and not inner.dtype.is_float:
                inner = inner.src[0]
            if inner.op is Op.SELECT and inner.src[1].op is Op.CONST and \
                    inner.src[1].arg != 0 and zero(inner.src[2]):
                cond = inner.src[0]
                continue
        return cond


def _box_guard(cond: Expr, lets: dict, coords: Coordinates) -> tuple[Expr, ...] | None:
    """The comparisons of `cond` that read a block axis, each of one coordinate and nothing a
    loop or an assignment changes (its locals written out), if the rest of `cond` reads no
    block axis: () when none does; an `||` of such as one guard, the union of their boxes,
    where every side reads a block axis; None when `cond` is not of that form."""
    cond = _as_condition(cond, lets)
    if cond.op is Op.LAND:
        parts = [_box_guard(c, lets, coords) for c in cond.src]
        return None if None in parts else parts[0] + parts[1]
    if affine_degree(cond, None, lets, is_var=coords.leaf) == 0:
        return ()
    if cond.op is Op.LOR:
        parts = [_box_guard(c, lets, coords) for c in cond.src]
        if None in parts or () in parts:
            return None
        return (Expr(Op.LOR, cond.dtype, tuple(_conjunction(p) for p in parts)),)
    if cond.op not in (Op.LT, Op.LE, Op.GT, Op.GE, Op.EQ, Op.NE):
        return None
    sides = tuple(inline_locals(e, lets) for e in cond.src)
    if any(n.op is Op.VAR for e in sides for n in e.walk()):
        return None   # a loop variable or an assigned local: not the same in every block
    if len(set().union(*map(coords.read, sides))) != 1 or \
            any(e.dtype.is_float for e in sides):
        return None
    # (affine sides: the ends decide it, _boxes; any other: evaluated at every value of
    # its coordinate there, `m_guard = m < m_idx ? 0 : m - m_idx`, which nvcc writes
    # `max(m, m_idx) - m_idx`)
    return (Expr(cond.op, cond.dtype, sides, cond.arg),)


def _no_wrap(ends: BlockEnds, launch, grid: Grid) -> bool:
    """Whether no affine part of `ends.unwrapped` (nor the part itself) leaves its integer
    type at any thread of the grid's corner blocks (every coordinate it reads at its first
    and last value, in each box of the grid): affine in the block's coordinates, its values
    lie between those, so it wraps nowhere and the wider index it is widened into is affine
    in them too."""
    if not ends.unwrapped:
        return True
    tpb = launch.threads_per_block
    corners: dict = {a: [] for a in "xyz"}
    for box in grid.boxes():
        names = [n for n in grid.names if n in box]
        at = np.meshgrid(*[np.array(box[n], np.int64) for n in names], indexing="ij")
        count = at[0].size if names else 1
        for a, v in grid.indices({n: c.ravel() for n, c in zip(names, at)}).items():
            corners[a].append(np.broadcast_to(v, (count,)))
    blocks = {a: np.repeat(np.concatenate(v), tpb) for a, v in corners.items()}
    lanes = np.tile(np.arange(tpb, dtype=np.int64), blocks["x"].size // tpb)
    ev = Lanes(launch, lanes, blocks)
    idx = np.arange(lanes.size)
    for root in ends.unwrapped:
        try:
            if _exact_values(root, ev, idx, ends.coords.leaf) is None:
                return False
        except LaneFault:
            return False
    return True


def _exact_values(e: Expr, ev: Lanes, idx: np.ndarray, leaf):
    """`e`'s values at the lanes in exact integer arithmetic (Python ints), or None where an
    affine part of it leaves its type there (or is not a sum, product or shift the check
    follows): its block-invariant parts as C computes them (`leaf`: a block coordinate)."""
    if e.dtype.is_float or affine_degree(e, None, {}, is_var=leaf) is None:
        return None
    if leaf(e):
        return ev.eval(e, idx).astype(object)
    if not any(leaf(n) for n in e.walk()):
        return convert(ev.eval(e, idx), e.dtype).astype(object)
    subs = [_exact_values(x, ev, idx, leaf) for x in e.src if isinstance(x, Expr)]
    if any(v is None for v in subs):
        return None
    if e.op is Op.CAST:
        out = subs[0]
    elif e.op is Op.ADD or e.op is Op.OR:   # (an OR affine_degree takes adds disjoint bits)
        out = subs[0] + subs[1]
    elif e.op is Op.SUB:
        out = subs[0] - subs[1]
    elif e.op is Op.MUL:
        out = subs[0] * subs[1]
    elif e.op is Op.SHL and all(int(v) >= 0 for v in subs[1]):
        out = np.array([int(a) << int(b) for a, b in zip(subs[0], subs[1])], dtype=object)
    elif e.op is Op.NEG:
        out = -subs[0]
    else:
        return None
    if min(out, default=0) < e.dtype.min or max(out, default=0) > e.dtype.max:
        return None   # it wraps at a corner: not exact
    return out


def _boxes(ends: BlockEnds, launch, grid: Grid) -> dict | None:
    """{guard tuple: the boxes whose union it holds on, each per coordinate of `ends.axes`
    each thread's (lo, hi) values} for every distinct set of guards around an access, or
    None where a side of a comparison is not one progression over a coordinate (an integer
    wrapped)."""
    tpb = launch.threads_per_block
    threads = np.arange(tpb, dtype=np.int64)
    out = {}
    for around in set(ends.guards.values()):
        boxes = []
        for comparisons in _union(around):
            for whole in grid.boxes():   # (each box of the grid: one, unless divided)
                box = {n: (np.full(tpb, whole[n][0], np.int64),
                           np.full(tpb, whole[n][1], np.int64)) for n in ends.axes}
                for compare in comparisons:
                    (name,) = set().union(*map(ends.coords.read, compare.src))
                    lo_n, hi_n = whole[name]
                    if compare.op is Op.NE or not all(
                            _one_width(e, {}, ends.coords.leaf) for e in compare.src):
                        found = _evaluated_interval(compare, name, whole, launch, grid)
                        if found is None:
                            return None
                        lo, hi = box[name]
                        box[name] = (np.maximum(lo, found[0]), np.minimum(hi, found[1]))
                        continue
                    last = hi_n - lo_n
                    at = (lo_n, min(lo_n + 1, hi_n), hi_n)
                    lanes = np.tile(threads, 3)
                    place = {n: np.full(lanes.size, whole[n][0], np.int64) for n in whole}
                    place[name] = np.repeat(np.array(at, np.int64), tpb)
                    ev = Lanes(launch, lanes, grid.indices(place))
                    operand = promote(compare.src[0].dtype, compare.src[1].dtype)
                    try:
                        sides = [convert(ev.eval(e, np.arange(lanes.size)), operand)
                                 .astype(np.int64).reshape(3, tpb) for e in compare.src]
                    except LaneFault:
                        return None
                    (a0, a1, aL), (b0, b1, bL) = sides
                    slope_a, slope_b = a1 - a0, b1 - b0
                    if not (np.array_equal(a0 + last * slope_a, aL) and
                            np.array_equal(b0 + last * slope_b, bL)):
                        return None
                    first, end = affine_interval(compare.op, a0 - b0, slope_a - slope_b,
                                                 np.full(tpb, last, np.int64))
                    lo, hi = box[name]
                    box[name] = (np.maximum(lo, first + lo_n), np.minimum(hi, end + lo_n))
                boxes.append(box)
        out[around] = boxes
    return out


def _evaluated_interval(compare: Expr, name: str, whole: dict, launch, grid: Grid):
    """Each thread's (first, last) value of coordinate `name` in the grid's box `whole`
    where a comparison that reads no other coordinate holds, found by evaluating it at
    every value (first > last: nowhere); None where those values are too many
    (MAX_EVALUATED lanes), it faults, or a thread's values are not one interval."""
    tpb = launch.threads_per_block
    lo_n, hi_n = whole[name]
    count = hi_n - lo_n + 1
    if count * tpb > MAX_EVALUATED:
        return None
    lanes = np.tile(np.arange(tpb, dtype=np.int64), count)
    place = {n: np.full(lanes.size, whole[n][0], np.int64) for n in whole}
    place[name] = np.repeat(np.arange(lo_n, hi_n + 1, dtype=np.int64), tpb)
    try:
        holds = Lanes(launch, lanes, grid.indices(place)).eval(
            compare, np.arange(lanes.size)).astype(bool).reshape(count, tpb)
    except LaneFault:
        return None
    some = holds.any(axis=0)
    first = np.argmax(holds, axis=0)
    last = count - 1 - np.argmax(holds[::-1], axis=0)
    if not np.array_equal(holds.sum(axis=0)[some], (last - first + 1)[some]):
        return None   # (holds, stops, holds again: not one interval)
    return (np.where(some, first + lo_n, hi_n + 1), np.where(some, last + lo_n, hi_n))


def _union(around: tuple[Expr, ...]) -> list[tuple[Expr, ...]]:
    """The guards around an access as the boxes whose union they hold on: one box for
    comparisons alone, one for each choice of a side of each `||`."""
    out: list = [()]
    for guard in around:
        out = [box + more for box in out for more in _alternatives(guard)]
        if len(out) > MAX_BOXES:
            raise _TooManyBoxes
    return out


def _blocks_to_run(boxes: dict, axes: tuple, grid: Grid) -> np.ndarray | None:
    """Linear ids of the blocks at each box's first, second and last place per coordinate
    (the union over threads), or None when they are more than MAX_BLOCKS."""
    chosen = set()
    for box in (b for union in boxes.values() for b in union):
        values = []
        for a in axes:
            lo, hi = box[a]
            some = hi >= lo
            values.append(np.unique(np.concatenate(
                [lo[some], np.minimum(lo + 1, hi)[some], hi[some]])))
        coords = np.meshgrid(*values, indexing="ij") if values else []
        size = int(np.prod([v.size for v in values])) if values else 1
        if len(chosen) + size > MAX_BLOCKS:
            return None
        place = {a: c.ravel() for a, c in zip(axes, coords)}
        lin = np.broadcast_to(grid.linear(place), (size,))
        chosen.update(np.asarray(lin, np.int64).ravel().tolist())
    return np.array(sorted(chosen), np.int64)


def check_other_run_at_ends(kernel: Kernel, launch, hs, ends: BlockEnds,
                            loop_limit: int) -> int | None:
    """Run the other run on the blocks at the ends of every guard's box: how many blocks it
    ran where what it saw stands for every block (no fault, and every access one
    progression over its box), None where `check` must walk every block."""
    grid = Grid.of(ends.coords, ends.axes, launch)
    if grid is None or not _no_wrap(ends, launch, grid):
        return None
    try:
        boxes = _boxes(ends, launch, grid)
    except _TooManyBoxes:
        return None
    if boxes is None:
        return None
    blocks = _blocks_to_run(boxes, ends.axes, grid)
    if blocks is None:
        return None
    # each access's executions, tabled as they come (kept whole, a GEMM's K loop of global
    # reads held 120 MB of copies before they were tabled)
    seen = _Executions(blocks.size * launch.threads_per_block)

    def observe(event) -> None:
        if isinstance(event, GlobalAccess):
            seen.add(id(event.stmt), event.threads, event.elements)
    try:
        # loops inside still run at their ends (PartialRun.endpoints): their trips and the
        # parts of their guards that read no block axis are the same in every block, and
        # box guards hold in all of a block or none, so a thread's accesses come in the
        # same order in every block of its box
        run(kernel, dict(launch.params), None, observer=observe, partial=PartialRun(
            statements=hs.other, collapse=hs.counted, blocks=blocks, sources=True,
            lanes_only=hs.lanes_only,
            probes=hs.probes, endpoints=hs.endpoints, guards=hs.guards),
            loop_limit=loop_limit)
    except KernelRuntimeError:
        return None
    return int(blocks.size) if _progressions(seen, blocks, boxes, ends, launch, grid) \
        else None


class _Executions:
    """Per global access (by statement id), its executions in order: for the m-th, each
    run thread's offset and whether it ran it (threads numbered over the run's blocks)."""

    def __init__(self, threads: int):
        self.threads = threads
        self.tables: dict = {}    # key -> m -> (offsets, ran)
        self.counter: dict = {}   # key -> each thread's executions so far

    def add(self, key, threads: np.ndarray, offsets: np.ndarray) -> None:
        """One execution of the access `key` by `threads`, at `offsets`."""
        done = self.counter.setdefault(key, np.zeros(self.threads, np.int64))
        for m in np.unique(done[threads]).tolist():
            mine = done[threads] == m
            table = self.tables.setdefault(key, {}).setdefault(
                m, (np.zeros(self.threads, np.int64), np.zeros(self.threads, bool)))
            table[0][threads[mine]], table[1][threads[mine]] = offsets[mine], True
        done[threads] += 1


def _progressions(seen: _Executions, blocks: np.ndarray, boxes: dict, ends: BlockEnds,
                  launch, grid: Grid) -> bool:
    """Whether every access ran, thread by thread, in exactly the run blocks of its boxes'
    union, the same number of times in each, with offsets one affine function of the block
    in each box (the m-th execution in a block against the m-th in the box's first block
    and its neighbours along each coordinate)."""
    tpb = launch.threads_per_block
    nb = blocks.size
    coord = grid.coordinates(blocks)
    executions = seen.tables
    threads = np.arange(tpb)
    index = {int(b): i for i, b in enumerate(blocks.tolist())}   # block id -> run position

    def dense(place: dict) -> np.ndarray:
        lin = grid.linear(place)
        return np.array([index.get(int(v), -1) for v in np.broadcast_to(lin, (tpb,))])

    for key, around in ends.guards.items():
        # per box of the union: its blocks, each thread's first block of it and that
        # block's neighbour along each axis
        parts = []
        for box in boxes[around]:
            inbox = np.ones((nb, tpb), bool)
            for a in ends.axes:
                lo, hi = box[a]
                inbox &= (coord[a][:, None] >= lo[None, :]) & \
                    (coord[a][:, None] <= hi[None, :])
            nonempty = inbox.any(axis=0)
            lo_place = {a: box[a][0] for a in ends.axes}
            first = dense(lo_place)
            if (first[nonempty] < 0).any():
                return False
            steps = {}
            for a in ends.axes:
                lo, hi = box[a]
                nxt = dict(lo_place)
                nxt[a] = np.minimum(lo + 1, np.maximum(hi, lo))
                steps[a] = dense(nxt)
                if (steps[a][nonempty] < 0).any():
                    return False
            parts.append((box, inbox, nonempty, first, steps))
        union = np.zeros((nb, tpb), bool)
        for _, inbox, *_ in parts:
            union |= inbox
        for m, (values, present) in executions.get(key, {}).items():
            values = values.reshape(nb, tpb)
            present = present.reshape(nb, tpb)
            # (a thread runs the access in all of its blocks or in none: a guard no block
            # index decides is the same in every block)
            ran = np.zeros(tpb, bool)
            for _, _, nonempty, first, _ in parts:
                ran |= nonempty & present[np.maximum(first, 0), threads]
            if not np.array_equal(present, union & ran[None, :]):
                return False   # ran outside its boxes, or not in all of them
            for box, inbox, nonempty, first, steps in parts:
                f0 = np.where(nonempty, values[np.maximum(first, 0), threads], 0)
                predicted = np.broadcast_to(f0, (nb, tpb)).copy()
                for a in ends.axes:
                    lo, hi = box[a]
                    slope = np.where(hi > lo, values[np.maximum(steps[a], 0), threads] - f0,
                                     0)
                    if (np.abs(slope) > 2 ** 31).any() or (hi - lo > 2 ** 31).any():
                        return False
                    predicted = predicted + (coord[a][:, None] - lo[None, :]) * \
                        slope[None, :]
                mine = present & inbox
                if not np.array_equal(values[mine], predicted[mine]):
                    return False
    return True

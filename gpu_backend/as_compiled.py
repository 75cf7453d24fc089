"""Count the kernel the compiler emitted, not the one the IR states (`analyze --as-compiled`).

It lives in gpu_backend, above smemsim: the analysis layer does not depend on the compiler.

NVRTC compiles the generated CUDA; its SASS, read with line information (gpu_backend), says
which shared-memory instructions each IR site became (gpu_backend.compile). Followed and re-counted:

- loops the IR marks `unroll` with a constant trip count are written out iteration by
  iteration first (kernels_ir.unroll), so each iteration's access has a line, hence SASS, of
  its own; the written-out kernel must compile to the same shared instructions as the
  original, or the unrolled sites are only reported. Loops marked "auto" (no pragma, as an
  imported CUDA loop) are written out too when that compiles to the same instructions
  (nvcc unrolled them), else left as loops;
- accesses merged into one wider instruction (the same access of neighbouring iterations,
  `As[ty][k..k+3]` as one LDS.128, or neighbouring sites, `t[2i]`, `t[2i+1]` as one STS.64):
  counted once at the merged width, at the lowest address; the trace must show the merged
  accesses at consecutive addresses, naturally aligned, in every request, or nothing is
  merged and the note says so;
- a site with no instruction of its own (a common subexpression, a value forwarded from a
  store): not counted;
- a load hoisted out of a loop (the instruction on the loop's own line, outside the SASS loop):
  counted once per entry into the loop, where the loop runs at least once;
- a store sunk out of a loop (its one instruction, on its own line, outside the SASS loop;
  its address the same in every iteration: the loop keeps the value in a register, as nvcc
  does for cuda-samples' reductionMultiBlockCG's `sdata[rank] += g_idata[i]`): counted once
  per entry into the loop, where the loop runs at least once;
- the branches' accesses of an if/else (or an if/else-if chain) joined into one instruction
  after it (no instruction on any branch's line, one of their kind on no site's line):
  counted once, for the lanes of every branch, each lane at its own branch's address (in
  another array where the branches read different arrays);
- a store followed by a conditional store to the same element (`s[i] = a; if (c) s[i] =
  b;`) made one store of the selected value: the first counted as stated, the second not.

Everything else the SASS shows (split or narrowed accesses, a wider instruction with no
neighbours it could cover, atomics or cp.async compiled differently,
instructions on no site's line, loops the IR unrolls whose trip count is not a constant) is
reported in the notes and counted as the IR states. Predicated instructions need nothing:
a warp whose lanes are all predicated off is not counted by the hardware (measured:
docs/validation.md), just as a branch no lane takes issues nothing.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from kernels_ir import (
    Expr, If, Kernel, Load, Loop, Op, Store, Var, cast, const, format_stmt,
    resolve_launch, select,
)
from kernels_ir.dtypes import BY_NAME
from kernels_ir.arrays import SharedArray
from kernels_ir.stmt import walk
from kernels_ir.unroll import Copy, trip_values, unroll, unrollable

from smemsim.launch.analysis import Report, _assemble, _site_rows, class_totals
from smemsim.engine.arch import require_instructions
from smemsim.engine.banks import rules_for
from smemsim.launch.bulk import sum_tma
from smemsim.launch.slicing import references
from smemsim.launch.trace import LOOP_LIMIT, Trace, trace_launch

from .compile import compile_kernel


@dataclass(frozen=True)
class Merge:
    """Accesses the compiler merged into one wider instruction."""

    sites: tuple[int, ...]   # sites of the written-out kernel, lowest address first
    opcode: str


@dataclass(frozen=True)
class Hoist:
    """A load the compiler moved out of a loop."""

    site: int                # the site inside the loop (written-out numbering)
    loop: int                # the loop's index in walk() order
    opcode: str
    address: int             # of the instruction


@dataclass(frozen=True)
class Sunk(Hoist):
    """A store the compiler moved out of a loop (after it: the value stays in a register)."""


@dataclass(frozen=True)
class Joined:
    """Accesses of an if's branches the compiler joined into one instruction after it
    (`if (c) t[i] = x; else t[i] = 0;` as one STS of a selected value; an if/else-if
    chain's loads, one per branch, as one LDS at the selected address)."""

    sites: tuple[int, ...]   # one per branch, in the chain's order (written-out numbering)
    branch: int              # the first If's index in walk() order
    opcode: str
    address: int             # of the instruction


@dataclass(frozen=True)
class Overwritten:
    """A store and a conditional store of the same element right after it, made one store
    of the selected value (Rodinia's srad_cuda_2: `south_c[ty][tx] = C[..]; if (by ==
    gridDim.y - 1) south_c[ty][tx] = C[..];`), its instruction on neither line."""

    site: int                # the first store: counted as stated
    then_site: int           # the conditional one: no instruction
    opcode: str
    address: int


def analyze_as_compiled(kernel: Kernel, params=None, *, arch: str = "sm_90", arrays=None,
                        seed: int = 0, compiled=None, loop_limit: int = LOOP_LIMIT
                        ) -> Report:
    """The analysis of what the compiler emits for `kernel` on `arch` (see the module
    docstring): NVRTC's build of the generated CUDA (`compiled`, the kernel's Compiled, if
    already at hand). `loop_limit` as for smemsim.analyze."""
    a, rules = rules_for(require_instructions(kernel, arch))
    original = compiled if compiled is not None else compile_kernel(kernel, arch)
    notes: list[str] = []
    written, origin, c = kernel, {s.site: Copy(s.site, ()) for s in kernel.sites()}, original
    # the loops the compiler unrolled completely: no backward branch on their line (a
    # `#pragma unroll`, or nvcc's own choice for a loop with no pragma, "auto")
    loops = [s for s in walk(kernel.body) if isinstance(s, Loop)]
    branching = {x.line for x in original.loops}
    lines = original.loop_lines
    unrolled = {id(s) for n, s in enumerate(loops) if s.unroll is not False
                and lines[n] not in branching}  # a line with no SASS has no branch
    which = lambda s: id(s) in unrolled
    if unrollable(kernel, which):
        w, o = unroll(kernel, which)
        cw = compile_kernel(w, arch)
        times = _multiple(original.shared_opcodes(), cw.shared_opcodes())
        if times:
            written, origin, c = w, o, cw
            if times > 1:  # an enclosing loop that still loops, unrolled `times` over
                notes.append(f"compiler: an enclosing loop is unrolled {times} times over (it "
                             "still loops): every instruction repeats, the counts per "
                             "iteration do not change")
        else:
            notes.append("compiler: written out iteration by iteration, the unrolled loops "
                         "compile to other shared instructions ("
                         f"{len(cw.shared_opcodes())} against {len(original.shared_opcodes())}"
                         "): sites inside them are reported, not re-counted")
    hoists = _hoists(written, c) + _sinks(written, c)
    joined, overwritten = _joined(written, c, hoists)
    analysed, origin, probes = _analysis_kernel(written, hoists, joined, origin)
    tr = trace_launch(analysed, resolve_launch(analysed, params), arrays, seed, loop_limit)
    widths, site_notes, uncounted = _count(written, c, origin, tr, hoists, joined,
                                           overwritten)
    rows = _fold(_site_rows(analysed, a.name, tr, widths, probes), kernel, origin)
    counted = {r["site"]: r["width"] for r in rows}
    changed = {s.site: counted.get(s.site, 0) for s in kernel.sites()
               if counted.get(s.site, 0) != s.access_bytes}
    notes += site_notes
    if not notes:
        notes = ["compiler: every site compiled as stated; the counts are unchanged"]
    return replace(_assemble(analysed, a.name, rules, tr, rows), compiler=tuple(notes),
                   as_compiled=True, compiled_widths=changed, uncounted=uncounted)


def _multiple(original: list[str], written: list[str]) -> int:
    """m when the original build has each shared opcode exactly m times as often as the
    written-out one (m = 1: the same instructions), else 0."""
    a, b = Counter(original), Counter(written)
    if not b or set(a) != set(b):
        return 0
    m, rest = divmod(a[next(iter(b))], b[next(iter(b))])
    return m if not rest and all(a[k] == m * b[k] for k in b) else 0


# ------------------------------------------------------------------ hoisted loads

def _loop_spans(written: Kernel, c):
    """(index in walk() order, loop, its line, the address spans of its SASS copies) for
    each loop of the kernel."""
    loops = [s for s in walk(written.body) if isinstance(s, Loop)]
    for n, loop in enumerate(loops):
        line = c.loop_lines[n]
        yield n, loop, line, [(x.start, x.end) for x in c.loops if x.line == line]


def _hoists(written: Kernel, c) -> tuple[Hoist, ...]:
    """Loads whose instruction sits on their loop's own line, outside that loop's SASS."""
    out = []
    found = {s.site: s.found for s in c.sites}
    for n, loop, line, spans in _loop_spans(written, c):
        # outside the loop's SASS, or there is none: unrolled completely, with one copy
        # of the load left, on the loop's line
        moved = [a for a in c.unattributed if a.line == line and a.kind == "load"
                 and not any(lo <= a.address <= hi for lo, hi in spans)]
        if not moved:
            continue
        inner = _declared_inside(loop)
        candidates = [s for s in loop.body if isinstance(s, Load) and s.site is not None
                      and not found[s.site] and not _uses(s.exprs(), inner)]
        # one instruction per candidate, in program order, each of the stated width
        moved.sort(key=lambda a: a.address)
        if len(candidates) == len(moved) and all(
                a.width == s.access_bytes for a, s in zip(moved, candidates)):
            out += [Hoist(s.site, n, a.opcode, a.address) for s, a in zip(candidates, moved)]
    return tuple(out)


def _sinks(written: Kernel, c) -> tuple[Sunk, ...]:
    """Stores of a loop's body whose one instruction lies outside that loop's SASS, at an
    address no iteration changes: the compiler stores once, after the loop."""
    out = []
    found = {s.site: s.found for s in c.sites}
    for n, loop, _, spans in _loop_spans(written, c):
        if not spans:   # no SASS loop: unrolled, or never a loop; nothing moved out of it
            continue
        inner = _declared_inside(loop)
        for s in loop.body:
            if not isinstance(s, Store) or s.site is None:
                continue
            at = found.get(s.site, ())
            if len(at) != 1 or at[0].kind != "store" or at[0].width != s.access_bytes or \
                    any(lo <= at[0].address <= hi for lo, hi in spans) or \
                    _uses(s.index, inner):
                continue
            out.append(Sunk(s.site, n, at[0].opcode, at[0].address))
    return tuple(out)


def _declared_inside(loop: Loop) -> set:
    inner = {loop.var}
    for s in walk(loop.body):
        inner |= set(s.defines())
    return inner


def _uses(exprs, names: set) -> bool:
    """Whether any of the expressions reads a variable or register array in `names`."""
    return bool(references(exprs)[0] & names)


def _substitute(e: Expr, var, value: Expr) -> Expr:
    if e.op is Op.VAR and e.arg is var:
        return value
    src = tuple(_substitute(s, var, value) for s in e.src)
    return e if all(a is b for a, b in zip(src, e.src)) else Expr(e.op, e.dtype, src, e.arg)


def _chain(branch: If) -> tuple[list, list]:
    """(conditions, branches) of an if/else-if chain: each `if`'s condition and body, and
    the last `else` (a plain if/else: one condition, two branches)."""
    conds, bodies, rest = [branch.cond], [branch.then], branch.orelse
    while len(rest) == 1 and isinstance(rest[0], If):
        conds.append(rest[0].cond)
        bodies.append(rest[0].then)
        rest = rest[0].orelse
    return conds, bodies + [rest]


def _joined(written: Kernel, c, hoists) -> tuple[tuple[Joined, ...], tuple[Overwritten, ...]]:
    """If/else chains whose accesses have no instruction of their own, the k-th access of
    each kind of every branch joined into one instruction; and stores overwritten under a
    condition right after them, both without an instruction. Matched in program order with
    the instructions of their kind on no site's line (the line information gives the
    joined instruction to no branch); none of a kind when the counts do not match."""
    taken = {h.address for h in hoists}
    found = {s.site: s.found for s in c.sites}
    branches = [s for s in walk(written.body) if isinstance(s, If)]
    inner = {id(b.orelse[0]) for b in branches
             if len(b.orelse) == 1 and isinstance(b.orelse[0], If)}
    candidates = []   # (kind, first site, Joined or Overwritten without its instruction)
    overwritten = []
    for n, branch in enumerate(branches):
        if id(branch) in inner or not branch.orelse:
            continue
        conds, bodies = _chain(branch)
        changed = set()
        for x in walk(branch.then + branch.orelse):
            changed |= set(x.defines())
        accesses = [[x for x in body if getattr(x, "site", None) is not None] for body in bodies]
        for kind in ("load", "store"):
            mine = [[x for x in acc if x.op == kind] for acc in accesses]
            if len({len(m) for m in mine}) != 1:
                continue
            for group in _matched(mine):
                if _joinable(written, group, found) and not _uses(
                        (*conds, *(i for x in group for i in x.index)), changed):
                    candidates.append((kind, group[0].site, (tuple(x.site for x in group), n)))
    for body in _bodies(written.body):
        for first, after in zip(body, body[1:]):
            if not (isinstance(first, Store) and isinstance(after, If) and not after.orelse):
                continue
            then = next((x for x in after.then if isinstance(x, Store)), None)
            if then is None or first.site is None or then.site is None or \
                    then.array is not first.array or len(then.index) != len(first.index) or \
                    not all(a.same(b) for a, b in zip(then.index, first.index)) or \
                    then.width != first.width or found[then.site] or _uses(first.index, {
                        v for x in walk(after.then) for v in x.defines()}):
                continue
            if not found[first.site]:   # the one store on no site's line
                candidates.append(("store", first.site, (first.site, then.site)))
            elif len(found[first.site]) == 1:   # on the first store's line
                a = found[first.site][0]
                overwritten.append(Overwritten(first.site, then.site, a.opcode, a.address))
    joined = []
    stmts = {s.site: s for s in written.sites()}
    for kind in ("load", "store"):
        mine = sorted((x for x in candidates if x[0] == kind), key=lambda x: x[1])
        loose = [a for a in sorted(c.unattributed, key=lambda a: a.address)
                 if a.kind == kind and a.address not in taken]
        if not mine or len(loose) != len(mine) or any(
                a.width != stmts[first].access_bytes for a, (_, first, _) in zip(loose, mine)):
            continue
        for a, (_, _, what) in zip(loose, mine):
            if isinstance(what[0], tuple):
                joined.append(Joined(what[0], what[1], a.opcode, a.address))
            else:
                overwritten.append(Overwritten(what[0], what[1], a.opcode, a.address))
    return tuple(joined), tuple(overwritten)


def _matched(per_branch: list) -> list:
    """The accesses of one kind of each branch (as many in each), grouped one per branch:
    the first branch's in order, each with the first access left of every other branch in
    the same array, else the first left."""
    left = [list(accesses) for accesses in per_branch[1:]]
    groups = []
    for x in per_branch[0]:
        group = [x]
        for rest in left:
            y = next((y for y in rest if y.array is x.array), rest[0])
            rest.remove(y)
            group.append(y)
        groups.append(tuple(group))
    return groups


def _bodies(stmts) -> list:
    """Every statement list of a body: the body itself and each nested one (Stmt.bodies)."""
    out = [stmts]
    for s in stmts:
        for body in s.bodies():
            out += _bodies(body)
    return out


def _joinable(written: Kernel, group, found) -> bool:
    """Whether one instruction can stand for these accesses (one per branch): of one op,
    width and element size, none with an instruction of its own; in one array, or in
    static arrays without a swizzle, one window view reaching them all (_window)."""
    x = group[0]
    if x.op not in ("load", "store") or any(
            y.op != x.op or y.width != x.width or y.array.dtype.size != x.array.dtype.size
            or found[y.site] for y in group):
        return False
    if all(y.array is x.array for y in group):
        return True
    return x.op == "load" and _window(written, [y.array for y in group]) is not None


def _window(written: Kernel, arrays):
    """A 1-D view from the lowest of `arrays` in the block's window to the end of the
    highest, and each array's first element in it, or None (a dynamic or swizzled array,
    a base off the element grid): a probe through it reads each lane's element in its own
    array. The view is the analysis kernel's alone (not one of its buffer's views)."""
    size = arrays[0].dtype.size
    if any(a.buffer.dynamic or a.layout is not None or a.shape[0] is None for a in arrays):
        return None
    bases = {a.uid: written.buffer_base(a.buffer) for a in arrays}
    low = min(arrays, key=lambda a: bases[a.uid])
    if any((bases[a.uid] - bases[low.uid]) % size for a in arrays):
        return None
    firsts = {a.uid: (bases[a.uid] - bases[low.uid]) // size for a in arrays}
    end = max(firsts[a.uid] + a.buffer.nbytes // size for a in arrays)
    view = SharedArray(f"{low.name}_window", low.buffer, low.dtype, (end,), 0)
    low.buffer.views.remove(view)   # (a SharedArray registers itself with its buffer)
    return view, firsts


def _analysis_kernel(written: Kernel, hoists, joined, origin: dict):
    """(kernel, origin, probes): the kernel the trace runs. A copy of each hoisted load
    goes before its loop, issued where the loop runs at least once (the compiler's guard);
    after an if whose branches' accesses were joined, a probe load at the selected address
    stands for the joined instruction (`probes`: site -> the op it is counted as)."""
    if not hoists and not joined:
        return written, origin, {}
    loops = {id(s): n for n, s in enumerate(x for x in walk(written.body)
                                               if isinstance(x, Loop))}
    branches = {id(s): n for n, s in enumerate(x for x in walk(written.body)
                                                  if isinstance(x, If))}
    hoisted = {}
    for h in hoists:
        hoisted.setdefault(h.loop, set()).add(h.site)
    joins = {}
    for j in joined:
        joins.setdefault(j.branch, []).append(j)
    origin, probes = dict(origin), {}
    fresh = iter(range(max(origin) + 1, 1 << 30))

    def rewrite(stmts) -> tuple:
        out = []
        for s in stmts:
            new = s.rebuild(body=rewrite)
            if loops.get(id(s)) in hoisted:
                copies = []
                for x in s.body:
                    if getattr(x, "site", None) in hoisted[loops[id(s)]] and \
                            isinstance(x, Store):
                        # a sunk store: a probe load at its address (the same before the
                        # loop as after it), counted as the store; it writes nothing
                        copies.append(_probe(x, "sunk", fresh, origin, probes))
                    elif getattr(x, "site", None) in hoisted[loops[id(s)]]:
                        copies.append(replace(x, site=next(fresh)))
                        origin[copies[-1].site] = origin[x.site]
                guard = _substitute(s.cond, s.var, s.start)
                out += copies if s.do_while else [If(guard, tuple(copies), (), s.loc)]
            out.append(new)
            for j in joins.get(branches.get(id(s)), ()):
                out.append(_joined_probe(written, s, j, fresh, origin, probes))
        return tuple(out)

    return replace(written, body=rewrite(written.body)), origin, probes


def _joined_probe(written: Kernel, s: If, j: Joined, fresh, origin: dict,
                  probes: dict) -> Load:
    """The load standing for a joined instruction after if/else chain `s`: each lane at
    the address of the branch it took (a nested select of the branches' indices; through
    a window view where the branches read different arrays)."""
    conds, bodies = _chain(s)
    xs = [next(x for x in body if getattr(x, "site", None) == n)
          for body, n in zip(bodies, j.sites)]

    def chained(values):
        out = values[-1]
        for cond, v in zip(reversed(conds), reversed(values[:-1])):
            out = select(cond, v, out)
        return out
    if all(x.array is xs[0].array for x in xs):
        index = tuple(chained(list(parts)) for parts in zip(*(x.index for x in xs)))
        return _probe(xs[0], "joined", fresh, origin, probes, index, s.loc)
    view, firsts = _window(written, [x.array for x in xs])
    flat = []
    for x in xs:
        at = const(firsts[x.array.uid], BY_NAME["i32"])
        for i, stride in zip(x.index, x.array.strides):
            at = at + cast(i, BY_NAME["i32"]) * const(stride, BY_NAME["i32"])
        flat.append(at)
    p = _probe(xs[0], "joined", fresh, origin, probes, (chained(flat),), s.loc)
    return replace(p, array=view)


def _ref(v: Var) -> Expr:
    """An expression reading the variable `v`."""
    return Expr(Op.VAR, v.dtype, (), v)


def _probe(x, what: str, fresh, origin: dict, probes: dict, index=None, loc=None) -> Load:
    """A load standing for the instruction of access site `x` (counted as x's op, at x's
    site): at x's address, or at `index`, on a site of its own (`fresh`); it writes
    nothing."""
    p = Load(dst=Var(f"{x.array.name}_{what}", x.array.dtype, "load", x.width),
             array=x.array, index=x.index if index is None else index, width=x.width,
             loc=x.loc if loc is None else loc, site=next(fresh))
    origin[p.site], probes[p.site] = origin[x.site], x.op
    return p


# ------------------------------------------------------------------ widths and merges

def _count(written: Kernel, c, origin: dict, tr: Trace, hoists, joined, overwritten=()):
    """(widths, notes, uncounted): the bytes per lane each written-out site is counted at
    (0: not counted; absent: as stated), what the compiler did, in words, and how many
    shared instructions belong to no site."""
    repeated = _in_partly_unrolled_loops(written)
    checks = {s.site: _one_copy(s) if s.site in repeated else s for s in c.sites}
    stmts = {s.site: s for s in written.sites()}
    # sites whose instruction the analysis kernel counts elsewhere: a hoisted load's copy
    # before its loop, a joined if/else pair's probe after the if
    moved = {h.site for h in hoists} | {n for j in joined for n in j.sites} | \
        {o.then_site for o in overwritten}
    unfollowed = _unfollowed_unrolled(written)
    order = [s.site for s in written.sites()]
    widths, notes, merges = {}, [], []
    claimed = {o.site for o in overwritten}   # counted as stated, its instruction found
    mergeable = {n for n in order if checks[n].op in ("load", "store") and n not in unfollowed}
    for n in order:
        s = checks[n]
        if n in claimed or n not in mergeable or len(s.found) != 1:
            continue
        width = s.found[0].width
        if width > s.width and width % s.width == 0:
            group = _merge_group(n, width // s.width, order, origin, checks, mergeable,
                                 claimed | moved, tr)
            if group is not None:
                merges.append(Merge(group, s.found[0].opcode))
                claimed |= set(group)
                widths.update({m: 0 for m in group})
                widths[group[0]] = width
    per_copy: dict = {}   # (site, what was found) -> the copies it was found for

    def note(n: int, text: str) -> None:
        per_copy.setdefault((origin[n].site, text), []).append(n)
    for n in order:
        s = checks[n]
        if n in claimed:
            continue
        if n in moved:
            widths[n] = 0
            continue
        if s.ok:
            continue
        if n in unfollowed:
            note(n, f"{_found(s)}, inside a loop it unrolls whose trip count is not a "
                    "constant: reported, not re-counted")
        elif s.op not in ("load", "store"):
            note(n, f"the IR states one {s.op} ({' + '.join(s.expected)}), the compiler "
                    f"emitted {_found(s)}: reported, not re-counted")
        elif not s.found:
            widths[n] = 0
        else:  # split, narrowed, or widened with no neighbours to cover: not guessed
            note(n, f"the IR states one {s.width}-byte {s.op}, the compiler emitted "
                    f"{_found(s)}: reported, not re-counted")
    for (site, text), copies in per_copy.items():
        # one note for the copies of a site that the same holds for (an unrolled loop's)
        if len(copies) == 1:
            notes.append(f"compiler: {_name(copies[0], stmts, origin)}: {text}")
        else:
            line = stmts[copies[0]].loc.line if stmts[copies[0]].loc else None
            notes.append(f"compiler: site {site}" + (f" (line {line})" if line else "") +
                         f" in {len(copies)} of its copies "
                         f"({_iterations([origin[m] for m in copies])}): {text}")
    notes = _merge_notes(merges, stmts, origin) + _hoist_notes(hoists, written, stmts, origin) + \
        [_joined_note(j, stmts, origin) for j in joined] + \
        [f"compiler: {_name(o.site, stmts, origin)} and {_name(o.then_site, stmts, origin)}, "
         f"a store and the conditional store of the same element after it, made one "
         f"{o.opcode} of the selected value: counted once, as the first"
         for o in overwritten] + \
        _dropped_notes(widths, claimed, moved, stmts, origin) + notes
    explained = {x.address for x in (*hoists, *joined, *overwritten)}
    loose: dict = {}
    for a in c.unattributed:
        if a.address not in explained:
            loose.setdefault(a.line, Counter())[a.opcode] += 1
    for line, opcodes in loose.items():
        what = " and ".join(f"{n} {op}" if n > 1 else op for op, n in opcodes.items())
        notes.append(f"compiler: {what} on {c.where(line)} "
                     f"{'belongs' if sum(opcodes.values()) == 1 else 'belong'} to no IR site: "
                     "not counted")
    return widths, notes, sum(sum(o.values()) for o in loose.values())


def _joined_note(j: Joined, stmts, origin) -> str:
    """What a joined instruction is, in words."""
    names = [_name(n, stmts, origin) for n in j.sites]
    if len(names) == 2:
        return (f"compiler: {names[0]} and {names[1]}, the two branches of an if, joined into "
                f"one {j.opcode} after it: counted once, for the lanes of both branches")
    return (f"compiler: {', '.join(names[:-1])} and {names[-1]}, the {len(names)} branches "
            f"of an if/else-if chain, joined into one {j.opcode} after it: counted once, "
            "for the lanes of every branch, each at its branch's address")


def _in_partly_unrolled_loops(written: Kernel) -> set:
    """Sites inside a loop the compiler may unroll partly, and which then still loops (a
    loop of several iterations with a pragma, or none: each instruction appears once per
    unrolled copy, the counts per iteration unchanged)."""
    out = set()

    def visit(stmts, inside: bool) -> None:   # inside: in the body of such a loop
        for s in stmts:
            if inside and getattr(s, "site", None) is not None:
                out.add(s.site)
            if s.BODIES:
                if not inside and isinstance(s, Loop) and s.unroll is not False:
                    trips = trip_values(s)
                    inner = trips is None or len(trips) > 1
                else:
                    inner = inside
                for body in s.bodies():
                    visit(body, inner)
    visit(written.body, False)
    return out


def _one_copy(s):
    """A site's instructions as one, when they are copies of one instruction (the same
    opcode, at least the stated width: not a split access) from a partly unrolled loop."""
    if len(s.found) > 1 and len({a.opcode for a in s.found}) == 1 and \
            s.found[0].width >= s.width:
        return replace(s, found=s.found[:1])
    return s


def _unfollowed_unrolled(written: Kernel) -> set:
    """Sites whose innermost loop the compiler may unroll (a pragma, or none: "auto") but
    that could not be written out (its trip count is not a constant: nvcc unrolls it
    partly, with a remainder)."""
    out = set()

    def visit(stmts, innermost) -> None:
        for s in stmts:
            inner = s if isinstance(s, Loop) else innermost
            for body in s.bodies():
                visit(body, inner)
            if getattr(s, "site", None) is not None and innermost is not None and \
                    innermost.unroll is not False and trip_values(innermost) is None:
                out.add(s.site)
    visit(written.body, None)
    return out


def _merge_group(n: int, k: int, order, origin, checks, mergeable, taken, tr: Trace):
    """The k sites, `n` among them, that one instruction of k times n's width covers, lowest
    address first; None when no neighbours fit (then nothing is merged)."""
    here = origin[n]
    same_site = [m for m in order if origin[m].site == here.site]
    same_iteration = [m for m in order if origin[m].iteration == here.iteration]
    for siblings in (same_site, same_iteration):
        siblings = [m for m in siblings if m in mergeable and checks[m].op == checks[n].op
                    and checks[m].width == checks[n].width]
        i = siblings.index(n)
        for window in (siblings[i:i + k], siblings[max(i - k + 1, 0):i + 1]):
            if len(window) != k or any(m != n and (checks[m].found or m in taken)
                                       for m in window):
                continue
            for candidate in (tuple(window), tuple(reversed(window))):
                if _consecutive(tr, candidate, checks[n].width):
                    return candidate
    return None


def _consecutive(tr: Trace, sites, width: int) -> bool:
    """Whether, in the trace, site i of `sites` is always site 0's access moved by i * width
    (the same requests, the same lanes), site 0's aligned to the merged width."""
    base = tr.sites[sites[0]]
    active = base.patterns >= 0
    if (base.patterns[active] % (width * len(sites))).any():
        return False
    want = request_multiset(base.patterns, base.counts)
    for i, m in enumerate(sites[1:], 1):
        st = tr.sites[m]
        moved = np.where(st.patterns >= 0, st.patterns - i * width, -1)
        if request_multiset(moved, st.counts) != want:
            return False
    return True


def request_multiset(patterns: np.ndarray, counts: np.ndarray) -> Counter:
    """A site's requests as a multiset: each distinct lane pattern (its bytes) -> requests."""
    out: Counter = Counter()
    for row, count in zip(patterns, counts):
        out[row.tobytes()] += int(count)
    return out


# ------------------------------------------------------------------ folding back

def _fold(rows: list[dict], kernel: Kernel, origin: dict) -> list[dict]:
    """Rows of the original kernel's sites: each the sum of its copies' rows."""
    by_site: dict[int, list] = {}
    for r in rows:
        by_site.setdefault(origin[r["site"]].site, []).append(r)
    out = []
    for stmt in kernel.sites():
        parts = by_site.get(stmt.site)
        if not parts:
            continue  # not one instruction left
        head = parts[0]
        hist: Counter = Counter()
        for p in parts:
            hist.update(dict(p["histogram"]))
        worsts = [p for p in parts if p["worst"] is not None]
        worst = max(worsts, key=lambda p: (p["worst"].wavefronts - p["worst"].ideal,
                                           p["worst"].wavefronts))["worst"] if worsts else None
        classes = class_totals(p["classes"] for p in parts)
        out.append(dict(head, site=stmt.site, loc=stmt.loc, statement=format_stmt(stmt),
                        array=stmt.array.name, op=stmt.op,
                        width=max(p["width"] for p in parts),
                        requests=sum(p["requests"] for p in parts),
                        wavefronts=sum(p["wavefronts"] for p in parts),
                        ideal=sum(p["ideal"] for p in parts),
                        histogram=tuple(sorted(hist.items())), worst=worst,
                        data_dependent=any(p["data_dependent"] for p in parts),
                        classes=classes, tma=sum_tma(p.get("tma") for p in parts)))
    return out


# ------------------------------------------------------------------ notes

def _name(n: int, stmts, origin) -> str:
    o = origin[n]
    where = f"site {o.site} (line {stmts[n].loc.line})" if stmts[n].loc else f"site {o.site}"
    return where + (" at " + ", ".join(f"{v}={x}" for v, x in o.iteration)
                    if o.iteration else "")


def _found(s) -> str:
    return ", ".join(a.opcode for a in s.found) or "no shared instruction"


def _iterations(copies, limit: int = 3) -> str:
    """Iterations in few words: `r=1-3, q=0-7` when they are every combination of each
    variable's values, else the first few and how many."""
    its = [c.iteration for c in copies]
    names = [v for v, _ in its[0]]
    if names and all([v for v, _ in i] == names for i in its):
        values = [sorted({i[p][1] for i in its}) for p in range(len(names))]
        if len(set(its)) == len(its) == int(np.prod([len(v) for v in values])):
            return ", ".join(f"{name}={_values(v)}" for name, v in zip(names, values))
    shown = "; ".join(", ".join(f"{v}={x}" for v, x in i) for i in its[:limit])
    return shown + (f"; ... ({len(its)} in all)" if len(its) > limit else "")


def _values(v: list[int]) -> str:
    if len(v) > 1 and v == list(range(v[0], v[-1] + 1)):
        return f"{v[0]}-{v[-1]}"
    return ",".join(map(str, v)) if len(v) <= 4 else f"{v[0]},{v[1]},...,{v[-1]}"


def _merge_notes(merges, stmts, origin) -> list[str]:
    out, across = [], {}
    for m in merges:
        copies = [origin[s] for s in m.sites]
        if len({c.site for c in copies}) == 1 and all(c.iteration for c in copies):
            across.setdefault((copies[0].site, m.opcode), []).append(_iterations(copies))
        else:
            sites = ", ".join(str(c.site) for c in copies)
            out.append(f"compiler: sites {sites} (line {stmts[m.sites[0]].loc.line}) merged into "
                       f"one {m.opcode}, counted at site {copies[0].site}'s address")
    for (site, opcode), groups in across.items():
        line = next(s.loc.line for n, s in stmts.items() if origin[n].site == site)
        shown = "; ".join(groups[:4]) + (f"; ... ({len(groups)} in all)"
                                         if len(groups) > 4 else "")
        out.append(f"compiler: site {site} (line {line}): iterations merged into {opcode} "
                   f"{len(groups)} time(s): {shown}")
    return out


def _hoist_notes(hoists, written: Kernel, stmts, origin) -> list[str]:
    loops = [s for s in walk(written.body) if isinstance(s, Loop)]
    return [f"compiler: {_name(h.site, stmts, origin)}: {h.opcode} "
            f"{'sunk' if isinstance(h, Sunk) else 'hoisted'} out of the loop "
            f"over {loops[h.loop].var.name} (line {loops[h.loop].loc.line}): counted once per "
            "entry into the loop, where it runs at least once" for h in hoists]


def _dropped_notes(widths, claimed, moved, stmts, origin) -> list[str]:
    """Sites (or iterations of them) with no instruction of their own."""
    per_site: dict[int, list] = {}
    for n in stmts:
        per_site.setdefault(origin[n].site, []).append(n)
    out = []
    for site, copies in per_site.items():
        gone = [n for n in copies if widths.get(n) == 0 and n not in claimed
                and n not in moved]
        if not gone:
            continue
        where = f"site {site} (line {stmts[copies[0]].loc.line})"
        part = "" if len(gone) == len(copies) else (
            f" in {len(gone)} of its {len(copies)} iterations "
            f"({_iterations([origin[n] for n in gone])})")
        out.append(f"compiler: {where}: no instruction of its own{part} (a common "
                   "subexpression, or a value forwarded from a store): not counted")
    return out

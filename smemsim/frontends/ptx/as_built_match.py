"""Which SASS instructions carry which PTX accesses: the PTX's shared accesses by source line (the
`.loc` and `inlined_at` chain), runs of one register base matched to the SASS instructions that
cover them, the moves that make a run one access, and the counts the notes say."""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

from .parse import Entry, Inst, Label, Module, _SIZES
from .sass import FunctionSass
from .wmma import form_of


_KINDS = {"ld": "load", "st": "store"}


_ADDRESS = re.compile(r"^\[([^\]+-]+)(?:([+-])(-?(?:0x[0-9a-fA-F]+|\d+)))?\]$")


@dataclass(frozen=True)
class _Access:
    """One shared `ld`/`st` of the PTX."""

    position: int       # in the entry's body
    inst: Inst
    kind: str           # load, store
    width: int          # bytes a lane
    element: int        # bytes an element
    lanes: int
    base: str           # the address's register or symbol
    offset: int
    block: int          # basic block number
    where: tuple        # ((file, line), ...) innermost first
    # `offset` is from `base`; an address of the access's bytes is `[root + offset - placed]`
    # (root: the register or symbol the base stands for, _roots)
    placed: int = 0
    root: str = ""


def _by_line(module: Module, entry: Entry, sass: FunctionSass) -> tuple[dict, dict]:
    """The entry's shared loads and stores, and the SASS's, by (source place, kind)."""
    ptx_lines: dict = {}
    for a in _accesses(module, entry):
        ptx_lines.setdefault((a.where, a.kind), []).append(a)
    sass_lines: dict = {}
    for s in sass.shared:
        if s.kind in ("load", "store"):
            sass_lines.setdefault((_acyclic(s.where), s.kind), []).append(s)
    return ptx_lines, sass_lines


# the base of an access at a static `.shared` variable's own address (`[s_mean]`,
# `[temp_storage+8]`): all of them one base, at their offsets in the window that holds the
# variables (smemsim.frontends.ptx.operands.window_offsets), so that ptxas's LDS.64 of two neighbouring
# `__shared__` scalars is a run like any other
WINDOW = "%shared_window"


def _roots(entry: Entry, placed: dict) -> dict[str, tuple[str, str, int]]:
    """register -> (base, root, offset from base) for the address registers nvcc computes
    from another by a constant (`add.s32 %r126, %r124, 4`: %r124's, 4 more; DeepSpeed's two
    `st.shared.u32 [%r124]` and `[%r126]`, which ptxas makes one STS.64) or holds a static
    variable's address in (`mov.u32 %r133, reduce_buffer`: the WINDOW, at its place), where
    every register of the chain is written once in the entry (so it holds one value
    wherever it is read)."""
    from .operands import _writes
    writes: Counter = Counter()
    defs: dict[str, Inst] = {}
    names = frozenset(entry.names)
    for x in entry.body:
        if isinstance(x, Inst):
            for r in _writes(x, names):
                writes[r] += 1
                defs[r] = x

    def const(text: str) -> int | None:
        try:
            return int(text, 0)
        except ValueError:
            return None
    out: dict[str, tuple[str, str, int]] = {}

    def resolve(reg: str, depth: int = 0):
        if reg in out:
            return out[reg]
        x = defs.get(reg)
        if depth > 16 or x is None or writes[reg] != 1 or x.guard:
            return None
        if x.opcode[0] == "mov" and len(x.operands) == 2 and x.operands[1] in placed:
            out[reg] = (WINDOW, x.operands[1], placed[x.operands[1]])
        elif x.opcode[0] == "add" and len(x.opcode) == 2 and len(x.operands) == 3 and \
                x.opcode[1] in ("s32", "u32", "s64", "u64"):
            a, b = x.operands[1], x.operands[2]
            if const(a) is not None:
                a, b = b, a
            step = const(b)
            if step is None or not a.startswith("%"):
                return None
            base = resolve(a, depth + 1) or ((a, a, 0) if writes[a] == 1 else None)
            if base is None:
                return None
            out[reg] = (base[0], base[1], base[2] + step)
        return out.get(reg)
    for reg in list(defs):
        resolve(reg)
    return out


def _accesses(module: Module, entry: Entry) -> list[_Access]:
    """The entry's shared `ld`/`st`, with their blocks and places."""
    from .operands import entry_shared, window_offsets
    placed = window_offsets(entry_shared(module, entry))
    roots = _roots(entry, placed)
    out, block = [], 0
    for n, x in enumerate(entry.body):
        if isinstance(x, Label):
            block += 1
            continue
        if x.name in ("bra", "ret", "exit"):
            block += 1
        if x.name == "wmma":
            # (lowered as the shared loads and stores SASS makes of it: smemsim.frontends.ptx.wmma)
            form = form_of(x)
            m = _ADDRESS.match(x.operands[0 if x.opcode[1] == "store" else 1]) if form \
                else None
            for kind, width in form.shared_accesses() if form else ():
                element = form.element_size
                if kind in ("load", "store"):
                    out.append(_Access(n, x, kind, width, element, width // element,
                                       m.group(1) if m else "", 0, block, _chain(module, x),
                                       root=m.group(1) if m else ""))
            continue
        kind = _KINDS.get(x.name)
        if kind is None or not any(p.startswith("shared") for p in x.opcode[1:]):
            continue
        lanes = next((int(p[1:]) for p in x.opcode if p in ("v2", "v4", "v8")), 1)
        element = _SIZES.get(x.opcode[-1])
        m = _ADDRESS.match(x.operands[1 if kind == "load" else 0])
        if element is None or m is None:
            continue
        offset = int(m.group(3), 0) * (-1 if m.group(2) == "-" else 1) if m.group(2) else 0
        base, root, at = m.group(1), m.group(1), 0
        if base in placed:
            base, at = WINDOW, placed[base]
        elif base in roots:
            base, root, shift = roots[base]
            at = placed[root] if base == WINDOW else 0
            offset += shift - at   # (from the root's own address, then the window's)
        out.append(_Access(n, x, kind, element * lanes, element, lanes, base, offset + at,
                           block, _chain(module, x), at, root))
    return out


def _chain(module: Module, inst: Inst) -> tuple:
    """((file, line), ...) of an instruction: its line, then the calls it is inlined at."""
    out, loc = [], inst.loc
    while loc is not None:
        out.append((module.files.get(loc.file, ""), loc.line))
        loc = loc.inlined_at
    return _acyclic(out)


def _acyclic(chain) -> tuple:
    """A chain of places cut where it returns to one it passed (a template recursing
    through one call site: moderngpu's iterate<i>, whose frames PTX's marks keep and
    nvdisasm folds): each place once, at its first passage from the innermost."""
    out: list = []
    for place in chain:
        if place in out:
            del out[out.index(place) + 1:]
        else:
            out.append(place)
    return tuple(out)


def _unrolled(want: Counter, have: Counter) -> bool:
    """The SASS has the PTX's widths, each as often or more: copies of a loop ptxas unrolled
    (with a remainder), each access still one instruction of its width."""
    return bool(have) and set(want) == set(have) and all(want[w] >= have[w] for w in have)


def _runs(ptx: list[_Access], built: list) -> list[list[_Access]] | None:
    """The PTX accesses as the SASS instructions group them (each group a run of
    consecutive offsets of one base and block that one instruction covers), or None: the
    SASS of each register base, moved by one constant, must cover the PTX accesses of one
    base exactly. Where ptxas unrolled a loop, several SASS copies cover the same accesses
    (siboehm's and Learn-CUDA's sgemm: 4 copies of one iteration's merges); where nvcc
    unrolled it, each SASS copy covers its own copy of the PTX (pycuda's tiled matmul: two
    tiles' `LDS.64 [R6]`, of two `ld.shared [%r15]` and `[%r15+4]` each), tried second."""
    tries = [(False, True), (True, True)]
    if all(a.kind == "load" for a in ptx):
        # (loads of several blocks, each copy on its own: cub's partial-tile warp
        # aggregates, whose seventh load the PTX guards and ptxas loads with the sixth, in
        # two inlined copies)
        tries += [(False, False), (True, False)]
    return next((runs for separate, blocks in tries
                 if (runs := _match(ptx, built, separate, blocks)) is not None), None)


def _match(ptx: list[_Access], built: list, separate: bool,
           blocks: bool = True) -> list[list[_Access]] | None:
    """_runs, with each recurrence of a base's SASS offsets matched to PTX accesses of its
    own (`separate`) or all of a base's SASS matched together; `blocks`: a run's accesses
    in one basic block (else loads of several, which ptxas loads at the first: _moves
    says where that holds)."""
    free = sorted(ptx, key=lambda a: (a.base, a.block, a.offset))
    bases: dict = {}
    for s in built:
        bases.setdefault(s.base, []).append(s)
    runs = []
    for group in sorted(bases.values(), key=lambda g: (-len(g), g[0].base)):
        for copy in (_copies(group) if separate else [sorted(group, key=lambda s: s.offset)]):
            found = None
            # the SASS's first at each PTX access, then (a wide load reading elements before
            # the first it serves) at one, two or three elements before it
            tries = [(a, a.offset - h * a.element - copy[0].offset)
                     for h in range(0 if separate else 4) for a in free][:4 * len(free)] \
                if not separate else [(a, a.offset - copy[0].offset) for a in free]
            for a, delta in tries:
                candidate = _cover(copy, [b for b in free if b.base == a.base and
                                          (b.block == a.block or not blocks)], delta,
                                   separate)
                if candidate is not None:
                    found = candidate
                    break
            if found is None:
                return None
            runs += found
            used = {id(a) for r in found for a in r}
            free = [a for a in free if id(a) not in used]
    return runs if not free else None


def _copies(group: list) -> list[list]:
    """The SASS instructions of one base as copies of one pattern of offsets: where an
    offset recurs, the k-th instruction at each offset, in the SASS's order, is of the k-th
    copy; each copy sorted by offset."""
    copies: list[list] = []
    seen: Counter = Counter()
    for s in sorted(group, key=lambda s: s.address):
        k = seen[s.offset]
        seen[s.offset] += 1
        if k == len(copies):
            copies.append([])
        copies[k].append(s)
    return [sorted(c, key=lambda s: s.offset) for c in copies]


def _cover(group: list, mine: list[_Access], delta: int,
           separate: bool = False) -> list[list[_Access]] | None:
    """Each SASS instruction of `group` as the run of `mine` it covers at `delta`: every
    access of `mine` in its bytes, or (`separate`) the first not yet taken at each offset."""
    out, taken = [], set()
    for s in group:
        start = s.offset + delta
        if separate:
            run, at = [], start
            while at < start + s.width:
                a = next((a for a in sorted(mine, key=lambda a: a.position)
                          if a.offset == at and id(a) not in taken), None)
                if a is None:
                    return None
                run.append(a)
                taken.add(id(a))
                at += a.width
        else:
            run = _Run(sorted((a for a in mine if start <= a.offset < start + s.width),
                              key=lambda a: a.offset))
            if run and run[0].kind == "load" and run[0].base == WINDOW and \
                    s.width > run[0].element:
                # a wide load that also reads elements no access of the PTX reads, before
                # or after those it serves (cub's warp aggregates [1..31] as LDS.128 of
                # [0..31]): those lanes go to no register. Only in the window, where the
                # wide load's alignment says which elements it reads (a register's
                # alignment is not known here)
                e = run[0].element
                run.front, back = divmod(run[0].offset - start, e)
                run.back, rest = divmod(start + s.width - run[-1].offset - run[-1].width, e)
                if back or rest or run.front < 0 or run.back < 0 or \
                        (run[0].base == WINDOW and start % s.width):
                    return None   # (in the window, ptxas's wide load is aligned)
        at = start + getattr(run, "front", 0) * (run[0].element if run else 0)
        for a in run:
            if a.offset != at or a.element != run[0].element or a.inst.guard != \
                    run[0].inst.guard:
                return None
            at += a.width
        if not run or at + getattr(run, "back", 0) * run[0].element != start + s.width:
            return None
        lanes = sum(a.lanes for a in run) + getattr(run, "front", 0) + getattr(run, "back", 0)
        if (len(run) > 1 or lanes > run[0].lanes) and lanes not in (2, 4):
            return None   # no PTX vector of that many elements
        out.append(run)
    return out


class _Run(list):
    """The PTX accesses one SASS load serves, in offset order, with the elements it also
    reads that none of them does: `front` before the first, `back` after the last."""

    front = 0
    back = 0


def _moves(body: list, runs: list[list[_Access]]):
    """For each run of two or more: (position, the vector access, positions dropped), or
    None where a run cannot move to one place (an instruction between its accesses writes
    the base, or a value the run moves)."""
    from .operands import _reads, _writes
    out = []
    for run in runs:
        front, back = getattr(run, "front", 0), getattr(run, "back", 0)
        if len(run) == 1 and not front and not back:
            continue
        run = sorted(run, key=lambda a: a.offset)
        first, last = min(a.position for a in run), max(a.position for a in run)
        values = [v for a in run for v in _values(a)]
        members = {a.position: a for a in run}
        if len({a.block for a in run}) > 1 and not _entered_at_top(body, first, last):
            return None
        for n in range(first + 1, last):
            x = body[n]
            if isinstance(x, Label) or x.name in ("bra", "ret", "exit"):
                if len({a.block for a in run}) == 1:
                    return None
                continue   # (loads of several blocks, entered only at the first: ptxas's)
            if n in members:
                continue
            writes = set(_writes(x))
            if run[0].base in writes:
                return None
            if run[0].kind == "store":
                # the store moves down to the last: a value stored above must hold till then
                if writes & {v for a in run if a.position < n for v in _values(a)}:
                    return None
            else:
                # the loads move up to the first: nothing between may use or set what a
                # later one loads
                later = {v for a in run if a.position > n for v in _values(a)}
                if later & (writes | set(_reads(x))):
                    return None
        e = run[0].element
        start = run[0].offset - front * e
        if run[0].base == WINDOW and start % (sum(a.width for a in run) + (front + back) * e):
            return None   # (our window does not place the first where ptxas did: aligned)
        head = run[0].inst
        lanes = sum(a.lanes for a in run) + front + back
        types = {a.inst.opcode[-1] for a in run}
        dtype = types.pop() if len(types) == 1 else f"b{8 * run[0].element}"
        vector = "{" + ",".join(["_"] * front + values + ["_"] * back) + "}"
        address = _address(run[0].root, start - run[0].placed)
        operands = (vector, address) if run[0].kind == "load" else (address, vector)
        prefix = tuple(p for p in head.opcode[:-1] if p not in ("v2", "v4", "v8"))
        inst = Inst((*prefix, f"v{lanes}", dtype), operands, head.guard, head.loc, head.line)
        at = first if run[0].kind == "load" else last
        out.append((at, inst, {a.position for a in run} - {at}))
    return out


def _address(root: str, offset: int) -> str:
    """`[root+offset]` (`[root]` at 0), as PTX writes an address."""
    return f"[{root}+{offset}]" if offset > 0 else f"[{root}{offset}]" if offset else \
        f"[{root}]"


def _entered_at_top(body: list, first: int, last: int) -> bool:
    """Whether every path to the instructions after `first` up to `last` passes `first`:
    no branch from outside them lands on a label among them (so loads of several blocks
    there are made once, at the first, as ptxas makes them: line_intersection's `Seg seg1
    = tile_col_segs[i]`, two floats on each side of a branch, one LDS.128)."""
    at = {x.name: n for n, x in enumerate(body) if isinstance(x, Label) and first < n <= last}
    # (nor a loop among them: a branch back to one of their labels)
    return not any(isinstance(x, Inst) and x.name == "bra" and x.operands and
                   x.operands[-1] in at and (not first < n <= last or at[x.operands[-1]] < n)
                   for n, x in enumerate(body))


def _values(a: _Access) -> list[str]:
    """The registers (or immediates) an access moves, in lane order."""
    text = a.inst.operands[0 if a.kind == "load" else 1]
    return text.strip("{}").split(",")


def _ptx_name(kind: str) -> str:
    return "ld.shared" if kind == "load" else "st.shared"


def _where(chain: tuple) -> str:
    """`gemm.cu:18 via gemm.cu:78`; a line of the toolkit's headers at the user's line that
    called into them: `sum.cu:7 (in block_reduce.cuh:143)`."""
    from .lower import _TOOLKIT
    user = next((n for n, (f, _) in enumerate(chain)
                 if not _TOOLKIT.search(os.path.normpath(f))), 0)
    # (nvcc marks code it made itself, a hoisted load, as line 0: no line of the file)
    where = " via ".join(f"{os.path.basename(f)}:{n}" if n else
                         f"{os.path.basename(f)} (nvcc's own code, no line)"
                         for f, n in chain[user:])
    return where + (f" (in {os.path.basename(chain[0][0])}:{chain[0][1]})" if user else "")


def _count(built: list) -> str:
    """`2 LDS.128, 8 LDS`."""
    c = Counter(s.opcode for s in built)
    return ", ".join(f"{n} {op}" for op, n in sorted(c.items())) or "nothing"


def _ptx_count(ptx: list[_Access]) -> str:
    c = Counter(".".join(a.inst.opcode) for a in ptx)
    return ", ".join(f"{n} {op}" for op, n in sorted(c.items()))


def _merged_note(where: str, runs, built) -> str:
    merged = [r for r in runs if len(r) > 1]
    ptx = [a for r in merged for a in r]
    return (f"{where}: ptxas merged {_ptx_count(ptx)} into "
            f"{_count([s for s in built if s.width in {sum(a.width for a in r) for r in merged}])}"
            " (counted as built)")

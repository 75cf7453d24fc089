"""The changes ptxas makes to a PTX's shared accesses, one rule each, each documented in
docs/ptx.md with the case that showed it: loads reused or served from a wider one, narrowed,
iterations merged, cascades, blocked loops, fragments reloaded, pooled runs, attributed lines,
sunk stores."""
from __future__ import annotations

from collections import Counter

from .as_built_match import (_Access, _address, _chain, _count, _merged_note, _moves,
                             _ptx_count, _ptx_name, _runs, _values, _where)
from .parse import Inst, Label, Module, _SIZES
from .wmma import form_of


# what may change shared memory, or order its accesses, between two loads of one address
_FENCES = ("st", "atom", "red", "bar", "barrier", "membar", "fence", "call", "cp", "wmma",
           "stmatrix", "mbarrier", "wgmma")


def _reused(body: list, differing: list, ptx_lines: dict, sass_lines: dict, edits: dict,
            names=frozenset()):
    """Loads ptxas does not make again: a line whose SASS has no load, each of whose PTX
    loads reads the bytes an earlier load of the same block read (same base, offset and
    width), with no store, atomic, barrier, fence or call between and neither register
    written again (cub's raking scan copies its segment from shared memory twice, with
    nothing stored between: ptxas keeps the first copy's registers). Each becomes a move of
    the earlier load's values. Returns (the keys explained, notes); `edits` gains them."""
    from .operands import _writes
    written = Counter(r for x in body if isinstance(x, Inst) for r in _writes(x, names))
    explained, notes = set(), []
    loads = [a for key, ptx in ptx_lines.items() if key[1] == "load" for a in ptx]
    for key in differing:
        if key[1] != "load" or sass_lines.get(key):
            continue
        moves = {}
        for a in ptx_lines[key]:
            earlier = [b for b in loads if b.position < a.position and b.block == a.block and
                       (b.base, b.offset, b.width, b.inst.opcode[-1]) ==
                       (a.base, a.offset, a.width, a.inst.opcode[-1]) and
                       b.position not in moves and not a.inst.guard and not b.inst.guard]
            b = max(earlier, key=lambda b: b.position, default=None)
            if b is None or any(
                    isinstance(x, Label) or x.name in ("bra", "ret", "exit", *_FENCES) or
                    a.base in _writes(x, names)
                    for x in body[b.position + 1:a.position]) or \
                    any(written[v] != 1 for v in _values(b) if v.startswith("%")):
                break
            moves[a.position] = _moved_from(a, _values(b))
        else:
            if moves and not any(p in edits for p in moves):
                edits.update(moves)
                explained.add(key)
                notes.append(f"{_where(key[0])}: ptxas loads none of its {len(moves)} "
                             f"{_ptx_name('load')} again: an earlier load of the same "
                             "bytes has them (counted as built)")
    return explained, notes


def _contained(body: list, differing: list, ptx_lines: dict, sass_lines: dict, edits: dict,
               names=frozenset()):
    """Loads whose bytes a wider load of the same block also reads, which ptxas makes once
    (cub's warp-scan aggregates: `ld.shared.u32 [ts+32]`, then `ld.shared.v4.u32 [ts+32]`
    and `ld.shared.u32 [ts+40]`, whose SASS is the one LDS.128). On a load line whose SASS
    has fewer loads than its PTX, all of one base each side: where dropping loads contained
    in another (same base and element size, both unguarded, nothing between them that
    branches, lands, orders shared memory or writes the base) leaves exactly the SASS's
    offsets and widths, each dropped load becomes moves of the wider load's elements (the
    wider load made first, where it came later). Returns (the keys explained, notes);
    `edits` gains the rewrites."""
    from .operands import _reads, _writes
    written = Counter(r for x in body if isinstance(x, Inst) for r in _writes(x, names))
    loads = [a for key, ptx in ptx_lines.items() if key[1] == "load" for a in ptx]
    explained, notes = set(), []
    for key in differing:
        ptx, built = ptx_lines[key], sass_lines.get(key, [])
        if key[1] != "load" or not built or len(built) >= len(ptx) or \
                len({a.base for a in ptx}) != 1 or len({s.base for s in built}) != 1:
            continue
        want = Counter((s.offset, s.width) for s in built)
        for delta in sorted({a.offset - s.offset for a in ptx for s in built}):
            extra = Counter((a.offset - delta, a.width) for a in ptx) - want
            if not want - Counter((a.offset - delta, a.width) for a in ptx):
                break
        else:
            continue
        rewrites, taken = {}, set()
        for (offset, width), n in extra.items():
            for a in sorted((a for a in ptx if (a.offset - delta, a.width) == (offset, width)),
                            key=lambda a: a.position)[:n]:
                rewrite = _served(body, a, loads, taken, written, names, _reads, _writes)
                if rewrite is None:
                    break
                rewrites.update(rewrite)
                taken.add(a.position)
            else:
                continue
            break
        else:
            if rewrites and not any(p in edits for p in rewrites):
                edits.update(rewrites)
                explained.add(key)
                notes.append(f"{_where(key[0])}: ptxas does not make {len(taken)} of its "
                             f"{_ptx_name('load')}: a wider load of the same block reads "
                             "their bytes (counted as built)")
    return explained, notes


def _moved_from(a: _Access, sources: list[str]) -> list[Inst]:
    """`a`'s values as moves of `sources` (registers another load filled), at `a`'s place."""
    bits = f"b{8 * a.element}"
    return [Inst(("mov", bits), (d, v), None, a.inst.loc, a.inst.line)
            for d, v in zip(_values(a), sources) if d.strip() != "_"]


def _served(body: list, a: _Access, loads: list, taken: set, written: Counter, names,
            reads, writes) -> dict | None:
    """{position: instructions} making `a`'s values moves of a wider load's elements that
    holds its bytes (_contained), or None."""
    for c in sorted(loads, key=lambda c: abs(c.position - a.position)):
        if c is a or c.position in taken or c.base != a.base or c.block != a.block or \
                c.element != a.element or c.width <= a.width or a.inst.guard or \
                c.inst.guard or not c.offset <= a.offset < a.offset + a.width <= \
                c.offset + c.width:
            continue
        first, last = sorted((a.position, c.position))
        if any(isinstance(x, Label) or x.name in ("bra", "ret", "exit", *_FENCES) or
               a.base in writes(x, names) for x in body[first + 1:last]):
            continue
        mine = _values(c)[(a.offset - c.offset) // c.element:][:a.lanes]
        if any(not v.startswith("%") or written[v] != 1 for v in _values(c)
               if v.strip() != "_") or any(v.strip() == "_" for v in mine):
            continue
        moves = _moved_from(a, mine)
        if c.position < a.position:
            return {a.position: moves}
        # (the wider load comes later: made here instead, where nothing between reads
        # what it loads)
        if any(set(reads(x, names)) & {v.strip() for v in _values(c)}
               for x in body[first + 1:last] if isinstance(x, Inst)):
            continue
        return {a.position: [c.inst, *moves], c.position: []}
    return None


def _narrowed(body: list, differing: list, ptx_lines: dict, sass_lines: dict, edits: dict,
              names=frozenset()):
    """Vector loads whose unused elements ptxas does not load: `float4 v = sb[i]` of which
    only `v.x` and `v.w` are read is `ld.shared.v4.f32` in the PTX and two LDS in the SASS.
    On a line whose SASS has fewer load bytes than its PTX, each vector load keeps the
    elements some instruction reads (an element whose register nothing reads is dead), in
    runs of consecutive elements, each run as naturally aligned pieces of 1, 2 or 4
    elements; where those pieces' widths are exactly the SASS's, the loads are rewritten
    to them. Returns (the keys explained, notes); `edits` gains the rewrites."""
    from .operands import _reads
    read = {r for x in body if isinstance(x, Inst) for r in _reads(x, names)}
    explained, notes = set(), []
    for key in differing:
        ptx, built = ptx_lines[key], sass_lines.get(key, [])
        if key[1] != "load" or not built or any(a.position in edits for a in ptx) or \
                sum(s.width for s in built) >= sum(a.width for a in ptx):
            continue
        rewrites, widths = {}, Counter()
        for a in ptx:
            values = _values(a)
            kept = [n for n, v in enumerate(values) if v.strip() in read]
            pieces = _pieces(kept, a.lanes)
            widths.update(len(p) * a.element for p in pieces)
            if len(kept) < a.lanes:
                rewrites[a.position] = [_piece_load(a, p, values) for p in pieces]
        if not rewrites or widths != Counter(s.width for s in built):
            continue
        edits.update(rewrites)
        explained.add(key)
        notes.append(f"{_where(key[0])}: ptxas loads only the elements that are used "
                     f"({_ptx_count(ptx)} as {_count(built)}; counted as built)")
    return explained, notes


def _iterations_merged(body: list, differing: list, ptx_lines: dict, sass_lines: dict,
                       edits: dict):
    """Loads of a loop ptxas unrolled again at its run-time trip count: nvcc unrolled `for (i
    = 0; i < end; i++) acc += s[i]` by four (a loop of four `ld.shared.f32` at one base,
    then up to three left over, one each behind a test), ptxas unrolls that loop again
    (blocks of 4, 2 and 1 iterations) and reads each iteration's four floats with one
    LDS.128, the ones left over with one LDS.128 too (llm.c's attention_backward kernel 6)
    or each as it stands (where nvcc left them a loop of their own). On a line whose widest
    SASS instructions are W bytes, where each single-block loop holds a run of the line's
    loads of W bytes at one base: each such run becomes one W-byte load; the loads outside
    those loops stay as they are where the SASS's narrower instructions are exactly theirs,
    or, where the SASS has none, and they are one run of fewer than W bytes at one base with
    nothing between them that stores to shared memory, waits at a barrier or moves the
    base, become one W-byte load where the first of them is (the bytes past them read into
    registers of their own, as the hardware's LDS.128 reads them). Returns (the keys
    explained, notes, accesses merged); `edits` gains the rewrites."""
    from .operands import _writes
    loops = _self_loops(body)
    explained, notes, merged = set(), [], 0
    for key in differing:
        ptx, built = ptx_lines[key], sass_lines.get(key, [])
        if key[1] != "load" or not built or any(a.position in edits for a in ptx):
            continue
        wide = max(x.width for x in built)
        narrow = Counter(x.width for x in built if x.width != wide)
        by_block: dict = {}
        for a in ptx:
            by_block.setdefault(a.block, []).append(a)
        runs, rest = [], []
        for block, mine in by_block.items():
            # (a run from an offset that is no multiple of W is not one W-byte load: ptxas
            # reads it from the element before, as llm.c's softmax_forward kernel 4)
            if block in loops and _is_run(mine) and sum(a.width for a in mine) == wide and \
                    min(a.offset for a in mine) % wide == 0:
                runs.append(sorted(mine, key=lambda a: a.offset))
            else:
                rest += mine
        if not runs:
            continue
        moves = _moves(body, runs)
        if moves is None:
            continue
        tail = None
        if narrow and Counter(a.width for a in rest) != narrow:
            continue   # (narrower instructions: the loads left over, each as it stands)
        if rest and not narrow:
            rest.sort(key=lambda a: a.position)
            if not (_is_run(rest) and [a.offset for a in rest] == sorted(
                    a.offset for a in rest) and sum(a.width for a in rest) < wide and
                    rest[0].width == rest[0].element and wide % rest[0].element == 0):
                continue
            first, last = rest[0].position, rest[-1].position
            between = [x for x in body[first + 1:last] if isinstance(x, Inst)]
            if any(rest[0].base in _writes(x) or x.name in ("bar", "barrier", "atom", "red",
                                                            "call") or
                   x.name == "st" and any(p.startswith("shared") for p in x.opcode[1:])
                   for x in between):
                continue
            lanes = wide // rest[0].element
            values = [_values(a)[0] for a in rest]
            values += [f"%smpad{len(edits)}_{n}" for n in range(lanes - len(values))]
            head = rest[0].inst
            prefix = tuple(p for p in head.opcode[:-1] if p not in ("v2", "v4", "v8"))
            tail = (first, Inst((*prefix, f"v{lanes}", head.opcode[-1]),
                                ("{" + ",".join(values) + "}", head.operands[1]), head.guard,
                                head.loc, head.line), {a.position for a in rest[1:]})
        for position, inst, gone in moves + ([tail] if tail else []):
            edits[position] = [inst]
            edits.update({g: [] for g in gone})
        merged += sum(len(r) for r in runs) + (len(rest) if tail else 0)
        explained.add(key)
        count = len(runs[0])
        op = _count([built[0]]).split(" ", 1)[1]
        notes.append(f"{_where(key[0])}: ptxas reads each iteration's {count} "
                     f"{_ptx_name('load')}.{runs[0][0].inst.opcode[-1]} with one {op} (a loop "
                     "it unrolled again at its run-time trip count)" +
                     (f", and the {len(rest)} left over after it with one {op}" if tail
                      else "") + " (counted as built)")
    return explained, notes, merged


def _cascades(body: list, differing: list, ptx_lines: dict, sass_lines: dict, edits: dict):
    """A loop of a run-time trip count whose W-byte run of loads starts one element past a
    W-byte boundary (llm.c's softmax_forward kernel 4: `for (i = 1; i < warpsPerBlock; i++)
    val = fmaxf(val, s[i])`, unrolled by nvcc into four loads at p+4 ... p+16): ptxas
    unrolls it again in blocks of 4 iterations (then one of 2 where two or three are left,
    then one at a time) and reads a block of j iterations with j LDS.128
    from the boundary before each run (each also reading the previous iteration's last
    element) and one LDS of the block's last element. Recognised (as measured: four floats
    an iteration, blocks of 4) where the line's SASS has 7 W-byte instructions (one an
    iteration of each of the three block copies) and 3 of the element's width (one a copy)
    besides the element-wide ones its other loads are, and the loop is entered only by
    falling into it. The loop is rewritten to issue what the SASS does: a
    W-byte load before it, the run's elements from it, and at each run's last element a
    W-byte load for the next iteration unless the iteration ends a block, where it is one
    element-wide load (and the next block's W-byte load if another iteration follows); the
    iteration and the trip count come from the lowering of counted loops (the
    `smemsim_iteration`/`smemsim_trips` pseudo-instructions: a loop it cannot count refuses
    them, and the entry is read again without this rewrite). Returns (the keys explained,
    notes); `edits` gains the rewrites."""
    loops = _self_loops(body)
    explained, notes = set(), []
    for key in differing:
        ptx, built = ptx_lines[key], sass_lines.get(key, [])
        if key[1] != "load" or not built or any(a.position in edits for a in ptx):
            continue
        wide = max(x.width for x in built)
        in_loops: dict = {}
        for a in ptx:
            if a.block in loops:
                in_loops.setdefault(a.block, []).append(a)
        # the one loop whose loads on the line are a W-byte run one element past a boundary
        found = [sorted(mine, key=lambda a: a.offset) for mine in in_loops.values()
                 if _is_run(mine) and sum(a.width for a in mine) == wide and
                 min(a.offset for a in mine) % wide == mine[0].element]
        if len(found) != 1:
            continue
        run = found[0]
        rest = [a for a in ptx if a.block != run[0].block]
        e = run[0].element
        lanes = wide // e if e else 0
        if run[0].width != e or lanes != 4 or \
                [a.position for a in run] != sorted(a.position for a in run) or \
                any(a.width != e for a in rest):
            continue
        n_wide = sum(x.width == wide for x in built)
        n_narrow = sum(x.width == e for x in built)
        unroll = (n_wide + 1) // 2
        if n_wide + n_narrow != len(built) or unroll != 4 or \
                n_narrow != unroll.bit_length() + len(rest):
            continue
        label_at = max(n for n, x in enumerate(body[:run[0].position]) if isinstance(x, Label))
        label = body[label_at].name
        before = body[label_at - 1] if label_at else None
        if before is None or isinstance(before, Label) or before.name in ("bra", "ret",
                                                                          "exit") or \
                sum(isinstance(x, Inst) and x.name == "bra" and x.operands[0] == label
                    for x in body) != 1:
            continue   # entered other than by falling into it (or not the loop's own label)
        head = run[0].inst
        bound = run[0].offset - e                     # the W-byte boundary before the run
        at = lambda off: _address(run[0].root, off - run[0].placed)  # noqa: E731
        ty = head.opcode[-1]
        prefix = tuple(p for p in head.opcode[:-1] if p not in ("v2", "v4", "v8"))
        tag = f"%smcas{len(edits)}"
        held = [f"{tag}_v{n}" for n in range(lanes)]
        vec = lambda first: "{" + ",".join([first] + held[1:]) + "}"   # noqa: E731
        mk = lambda op, ops, guard=None: Inst(op, ops, guard, head.loc, head.line)  # noqa
        wide_op = (*prefix, f"v{lanes}", ty)
        # before the loop: the first block's W-byte load
        edits[label_at - 1] = edits.get(label_at - 1, [before]) + [
            mk(wide_op, (vec(held[0]), at(bound)))]
        k, t = f"{tag}_k", f"{tag}_t"
        p = lambda name: f"{tag}_{name}"   # noqa: E731
        last = [mk(("smemsim_iteration", "s32"), (k,)), mk(("smemsim_trips", "s32"), (t,)),
                # the blocks of 4 end at k = 3, 7, ... below F = trips & ~3
                mk(("and", "b32"), (p("f"), t, hex(-unroll & 0xFFFFFFFF))),
                mk(("setp", "lt", "s32"), (p("in"), k, p("f"))),
                mk(("and", "b32"), (p("m"), k, str(unroll - 1))),
                mk(("setp", "eq", "s32"), (p("ends"), p("m"), str(unroll - 1))),
                # past F (j = k - F of r = trips - F left): a block of 2 where r >= 2, ending
                # at j = 1, then blocks of 1
                mk(("sub", "s32"), (p("j"), k, p("f"))),
                mk(("sub", "s32"), (p("r"), t, p("f"))),
                mk(("setp", "ge", "s32"), (p("two"), p("r"), "2")),
                mk(("setp", "lt", "s32"), (p("low"), p("j"), "2")),
                mk(("and", "pred"), (p("pair"), p("two"), p("low"))),
                mk(("setp", "eq", "s32"), (p("second"), p("j"), "1")),
                mk(("not", "pred"), (p("single"), p("pair"))),
                mk(("or", "pred"), (p("tail"), p("single"), p("second")))]
        last += [mk(("selp", "b32"), (p("a"), "1", "0", p("ends"))),
                 mk(("selp", "b32"), (p("b"), "1", "0", p("tail"))),
                 mk(("selp", "b32"), (p("c"), p("a"), p("b"), p("in"))),
                 mk(("setp", "ne", "s32"), (p("last"), p("c"), "0")),
                 mk(("add", "s32"), (p("k1"), k, "1")),
                 mk(("setp", "lt", "s32"), (p("more"), p("k1"), t)),
                 mk(("and", "pred"), (p("next"), p("last"), p("more")))]
        replaced = {a.position: [mk(("mov", f"b{8 * e}"), (_values(a)[0],
                                                           held[(a.offset - bound) // e]))]
                    for a in run[:-1]}   # the run's elements from the W-byte load
        end = run[-1]
        value = _values(end)[0]
        replaced[end.position] = [
            mk((*prefix, ty), (value, at(end.offset)), p("last")),
            mk(wide_op, (vec(value), at(end.offset)), "!" + p("last")),
            mk(wide_op, (vec(held[0]), at(end.offset)), p("next"))]
        first_body = label_at + 1
        replaced[first_body] = last + replaced.get(first_body, edits.get(first_body,
                                                                         [body[first_body]]))
        edits.update(replaced)
        explained.add(key)
        notes.append(f"{_where(key[0])}: ptxas unrolls this line's loop again in blocks of "
                     f"{unroll} iterations and reads each block's iterations with one "
                     f"{_count([x for x in built if x.width == wide][:1]).split(' ', 1)[1]} "
                     "each, from the element before, and the block's last element with one "
                     f"{_count([x for x in built if x.width == e][:1]).split(' ', 1)[1]} "
                     "(counted as built)")
    return explained, notes


def _blocked_loops(module: Module, body: list, ptx_lines: dict, sass_lines: dict,
                   edits: dict) -> list[str]:
    """Loops ptxas unrolls again at their run-time trip count (moderngpu's
    `for (i = tid; i < fill_count; i += nt) b_shared[load_count + i] = count`, which nvcc
    leaves as a loop of four stores: ptxas runs blocks of 4 of its iterations while 4 or
    more are left, then a block of 2, then one, so the SASS has each store 4 + 2 + 1 times).
    Each lane runs its own iterations, but a warp makes a block's accesses once where any
    lane runs it: where the lanes' trip counts differ, more than the PTX's loop makes. A
    one-block loop whose every shared access the SASS has 2U - 1 times (U a power of two;
    the line's accesses outside the loop once each) gets `smemsim_unrolled.b32 U` at its
    head, which the lowering of counted loops follows (smemsim.frontends.ptx.lower; a loop it cannot
    count refuses it, and the entry is read again without). Returns the notes."""
    accesses = [a for ptx in ptx_lines.values() for a in ptx]
    notes = []
    for block in sorted(_self_loops(body)):
        mine = [a for a in accesses if a.block == block]
        if not mine:
            continue
        label_at = max(n for n, x in enumerate(body[:mine[0].position]) if isinstance(x, Label))
        if label_at in edits:
            continue
        copies = set()
        for key in {(a.where, a.kind) for a in mine}:
            inside = Counter(a.width for a in ptx_lines[key] if a.block == block)
            outside = Counter(a.width for a in ptx_lines[key] if a.block != block)
            built = Counter(s.width for s in sass_lines.get(key, []))
            m = next((m for m in (3, 7, 15, 31)
                      if built == outside + Counter({w: m * c for w, c in inside.items()})),
                     None)
            copies.add(m)
        if len(copies) != 1 or None in copies:
            continue
        unroll = (copies.pop() + 1) // 2
        first = mine[0].inst
        edits[label_at] = [body[label_at], Inst(("smemsim_unrolled", "b32"), (str(unroll),),
                                                None, first.loc, first.line)]
        smaller = " and ".join(str(unroll >> n) for n in range(1, unroll.bit_length()))
        notes.append(f"{_where(mine[0].where)}: ptxas runs this loop in blocks of {unroll} "
                     f"iterations, then blocks of {smaller} where a lane's count leaves them "
                     "(counted as built)")
    return notes


def _fragments_reloaded(module: Module, body: list, edits: dict, names=frozenset()) -> list:
    """wmma operands of halves or bf16 at a generic address loaded again: ptxas's loads are
    4-byte words (smemsim.frontends.ptx.wmma), which it makes once, and a fragment of the other
    layout is those words transposed by MOVM (tests/cuda/wmma_kernels.cu's wmma_bf16 reads
    each tile row- and column-major: 8 loads measured on an H200, four wmma.load of 4
    words in the PTX). A load of the same matrix, shape, type, address and stride as an
    earlier one of the same block, with nothing between that writes memory, orders it,
    branches or changes the address or stride, becomes `smemsim_wmma_from` of the earlier
    fragment's registers. Returns the notes."""
    from .operands import _writes
    notes, seen = [], []
    for n, x in enumerate(body):
        if isinstance(x, Label) or x.name in ("bra", "ret", "exit"):
            seen = []
            continue
        form = form_of(x) if x.name == "wmma" else None
        if form is None:
            if x.name in _FENCES and not (x.name == "wmma" and x.opcode[1] != "store"):
                seen = []
            written = set(_writes(x, names))
            seen = [(m, y, f) for m, y, f in seen if not written & set(y.operands[1:3])]
            continue
        if form.use != "ab" or form.element not in ("f16", "bf16") or \
                form.space is not None or len(x.operands) < 3 or x.guard:
            continue
        earlier = next(((m, y, f) for m, y, f in seen
                        if (f.matrix, f.shape, f.element) == (form.matrix, form.shape,
                                                               form.element) and
                        y.operands[1:3] == x.operands[1:3]), None)
        if earlier is None or n in edits or earlier[0] in edits:
            seen.append((n, x, form))
            continue
        m, y, f = earlier
        edits[n] = [Inst(("smemsim_wmma_from", f.layout, form.layout, form.matrix),
                         (x.operands[0], y.operands[0]), None, x.loc, x.line)]
        notes.append(f"{_where(_chain(module, x))}: ptxas loads nothing here: it reuses "
                     f"the words it loaded for {_where(_chain(module, y))}"
                     + (", transposed by MOVM" if f.layout != form.layout else "")
                     + " (counted as built)")
    return notes


def _self_loops(body: list) -> set:
    """The blocks (as _accesses numbers them) that branch back to their own start: the
    single-block loops nvcc makes of an unrolled loop's body."""
    out, block, label = set(), 0, None
    for x in body:
        if isinstance(x, Label):
            block += 1
            label = x.name
            continue
        if x.name in ("bra", "ret", "exit"):
            if x.name == "bra" and label is not None and x.operands[0] == label:
                out.add(block)
            block += 1
            label = None
    return out


def _is_run(accesses: list) -> bool:
    """Accesses at consecutive offsets of one base, of one element type and guard."""
    mine = sorted(accesses, key=lambda a: a.offset)
    return len({(a.base, a.element, a.inst.guard) for a in mine}) == 1 and all(
        b.offset == a.offset + a.width for a, b in zip(mine, mine[1:]))


def _pieces(kept: list[int], lanes: int) -> list[list[int]]:
    """The kept elements of a vector in runs of consecutive elements, each run cut into
    naturally aligned pieces of 4, 2 or 1 elements (as a vector load's must be)."""
    pieces, n = [], 0
    while n < lanes:
        if n not in kept:
            n += 1
            continue
        size = next(z for z in (4, 2, 1) if n % z == 0 and n + z <= lanes and
                    all(m in kept for m in range(n, n + z)))
        pieces.append(list(range(n, n + size)))
        n += size
    return pieces


def _piece_load(a: _Access, piece: list[int], values: list[str]) -> Inst:
    """A load of the elements `piece` of the vector load `a`, into their own registers."""
    address = _address(a.root, a.offset - a.placed + piece[0] * a.element)
    prefix = tuple(p for p in a.inst.opcode[:-1] if p not in ("v2", "v4", "v8"))
    if len(piece) == 1:
        return Inst((*prefix, a.inst.opcode[-1]), (values[piece[0]].strip(), address),
                    a.inst.guard, a.inst.loc, a.inst.line)
    regs = "{" + ",".join(values[n].strip() for n in piece) + "}"
    return Inst((*prefix, f"v{len(piece)}", a.inst.opcode[-1]), (regs, address), a.inst.guard,
                a.inst.loc, a.inst.line)


def _pooled(body: list, differing: list, ptx_lines: dict, sass_lines: dict, edits: dict):
    """Merges across lines: ptxas serves neighbouring accesses of several lines with one
    wider instruction, on one of their lines (Learn-CUDA's n-body reads `p[j].x`, `.y` and
    `.z` on three lines; its SASS has LDS.128 of four floats, on the first). The differing
    lines of one kind whose PTX accesses share a register base and block are pooled with
    their SASS (and the SASS of lines with no PTX access of that kind, where that makes the
    bytes agree), and the pool is matched as one line's would be. Returns (the keys
    explained, notes, accesses merged); `edits` gains the rewrites."""
    explained, notes, merged = set(), [], 0
    for kind in ("load", "store"):
        keys = [k for k in differing if k[1] == kind]
        # union of lines that share a (base, block)
        groups: list[set] = []
        for k in keys:
            mine = {(a.base, a.block) for a in ptx_lines[k]}
            joined = [g for g in groups if any(mine & {(a.base, a.block) for key in g
                                                       for a in ptx_lines[key]})]
            for g in joined:
                groups.remove(g)
            groups.append(set().union({k}, *joined))
        orphans = [s for key, ss in sass_lines.items() if key[1] == kind and
                   key not in ptx_lines for s in ss]
        for group in groups:
            if len(group) < 2 and not orphans:
                continue
            ptx = [a for k in group for a in ptx_lines[k]]
            built = [s for k in group for s in sass_lines.get(k, [])]
            extra = sum(a.width for a in ptx) - sum(s.width for s in built)
            if extra and extra == sum(s.width for s in orphans):
                built += orphans
            have, want = sum(a.width for a in ptx), sum(s.width for s in built)
            if have != want and not (kind == "load" and have < want):
                continue   # (a wide load may read bytes no access of the PTX does: _cover)
            runs = _runs(ptx, built)
            moves = _moves(body, runs) if runs is not None else None
            if not moves or any(q in edits for at, _, gone in moves for q in (at, *gone)):
                continue   # (no merge: nothing a pool explains)
            for position, inst, gone in moves:
                edits[position] = [inst]
                edits.update({g: [] for g in gone})
            merged += sum(len(r) for r in runs if len(r) > 1)
            explained |= group
            if orphans and built[-len(orphans):] == orphans:
                explained |= {key for key in sass_lines if key[1] == kind and
                              key not in ptx_lines}
                orphans = []
            where = ", ".join(dict.fromkeys(_where(k[0]) for k in sorted(group)))
            notes.append(_merged_note(where, runs, built))
    return explained, notes, merged


def _attributed(differing: list, ptx_lines: dict, sass_lines: dict):
    """Accesses of one source line that ptxas's line table gives to another inline path of
    it (moderngpu's `iterate<i>` recursion: the PTX's chains through meta.hxx:183 and :193
    hold 6 loads and 1, the SASS's 1 and 6): differing keys of one line and kind whose PTX
    and SASS have, together, the same accesses of each width. Returns (the keys explained,
    notes)."""
    groups: dict = {}
    for key in ptx_lines:   # (with the line's keys that match, some only as _unrolled)
        groups.setdefault((key[0][0], key[1]), []).append(key)
    explained, notes = set(), []
    for (place, kind), keys in groups.items():
        if len(keys) < 2 or not set(keys) & set(differing):
            continue
        ptx = Counter(a.width for k in keys for a in ptx_lines[k])
        built = Counter(s.width for k in keys for s in sass_lines.get(k, []))
        if ptx == built:
            explained |= set(keys) & set(differing)
            notes.append(f"{_where(keys[0][0])}: ptxas's line table gives this line's "
                         f"{_ptx_name(kind)} to other inline paths of it (the same "
                         "instructions; counted as built)")
    return explained, notes


def _sunk_stores(body: list, lines: list, ptx_lines: dict, sass_lines: dict, edits: dict):
    """Stores ptxas makes one: a store, then on one side of a branch a store of another
    value to the same address (`s[ty][tx] = a; if (edge) s[ty][tx] = b;`), which ptxas
    compiles to one store after the branch, of the value the path chose (Rodinia's srad;
    the SASS has the store on a line of its own choosing). Each such pair on the lines whose
    SASS has fewer stores than their PTX becomes a move of each value into one register and
    one store at the join, where that makes the function's stores of each width exactly
    the SASS's. Returns (the keys of the lines explained, notes); `edits` gains the
    rewrites."""
    from .operands import _writes
    short = {a.position for k in lines for a in ptx_lines[k]}
    stores = sorted((a for k, acc in ptx_lines.items() if k[1] == "store" for a in acc),
                    key=lambda a: a.position)
    pairs, used = [], set()
    for first in stores:
        for second in stores:
            if second.position <= first.position or first.position in used or \
                    not {first.position, second.position} & short or \
                    second.position in used or first.inst.guard or second.inst.guard or \
                    first.lanes != 1 or second.lanes != 1 or \
                    first.inst.opcode != second.inst.opcode or \
                    first.inst.operands[0] != second.inst.operands[0]:
                continue
            join = _join(body, first.position, second.position, first.base, _writes)
            if join is not None and not any(p in edits for p in (first.position,
                                                                 second.position, join)):
                pairs.append((first, second, join))
                used |= {first.position, second.position}
                break
    if not pairs:
        return set(), []
    # the function's stores by width, the PTX's less one a pair, against the SASS's
    ptx = Counter(a.width for k, acc in ptx_lines.items() if k[1] == "store" for a in acc)
    for position, items in edits.items():   # (the merges: their runs are one store now)
        x = body[position]
        if not items and isinstance(x, Inst) and x.name == "st":
            ptx[_width_of(x)] -= 1
        for y in items:
            if y.name == "st":
                ptx[_width_of(x)] -= 1
                ptx[_width_of(y)] += 1
    for first, _, _ in pairs:
        ptx[first.width] -= 1
    built = Counter(s.width for k, ss in sass_lines.items() if k[1] == "store" for s in ss)
    if +ptx != +built:
        return set(), []
    notes, explained = [], set()
    for n, (first, second, join) in enumerate(pairs):
        register = f"%smsink{n}"
        bits = f"b{8 * first.element}" if first.element > 1 else "b16"
        moves = [Inst(("mov", bits), (register, a.inst.operands[1]), None, a.inst.loc,
                      a.inst.line) for a in (first, second)]
        store = Inst(first.inst.opcode, (first.inst.operands[0], register), None,
                     first.inst.loc, first.inst.line)
        edits[first.position], edits[second.position] = [moves[0]], [moves[1]]
        edits[join] = [body[join], store]
        explained |= {(first.where, "store"), (second.where, "store")}
        notes.append(f"{_where(first.where)}, {_where(second.where)}: ptxas stores once after "
                     "the branch (the second store overwrites the first on its path; "
                     "counted as built)")
    explained |= {k for k in sass_lines if k[1] == "store" and k not in ptx_lines}
    return explained, notes


def _join(body: list, first: int, second: int, base: str, writes) -> int | None:
    """The position of the label where the paths of a branch meet, for a store at `first`
    and another at `second` to the same address: `first`, then the block's end at a
    conditional branch to that label, then straight-line code holding `second`, then the
    label, which nothing else branches to; no barrier or other shared access between, and
    the address's register unchanged. None where the code is not of that shape."""
    branch = None
    for n in range(first + 1, second):
        x = body[n]
        if isinstance(x, Label):
            return None
        if x.name == "bra":
            if branch is not None or x.guard is None:
                return None
            branch = n
    if branch is None:
        return None
    target = body[branch].operands[0]
    join = next((n for n in range(second + 1, len(body)) if isinstance(body[n], Label) or
                 body[n].name in ("bra", "ret", "exit")), None)
    if join is None or not isinstance(body[join], Label) or body[join].name != target:
        return None
    if sum(isinstance(x, Inst) and x.name == "bra" and x.operands[0] == target
           for x in body) != 1:
        return None
    for n in range(first + 1, join):
        x = body[n]
        if n == second or isinstance(x, Label):
            continue
        if base in writes(x) or x.name in ("bar", "barrier", "ret", "exit", "atom", "red",
                                           "call") or \
                any(p.startswith("shared") for p in x.opcode[1:]):
            return None
    return join


def _width_of(inst: Inst) -> int:
    """Bytes a lane of a shared ld/st."""
    lanes = next((int(p[1:]) for p in inst.opcode if p in ("v2", "v4", "v8")), 1)
    return lanes * _SIZES.get(inst.opcode[-1], 0)


def _sunk_loads(body: list, ptx_lines: dict, sass_lines: dict, edits: dict, names=frozenset()):
    """Loads ptxas sinks below an early exit: the PTX loads a value, then (through if-blocks
    that ptxas makes straight-line code) branches to a `ret` where the thread does not use
    it, and uses it only after that branch; ptxas turns the branch into `@P EXIT` and loads
    below it, so only the threads that stay load (an unrolled epilogue of guarded stores
    `if (i < n) out[i] = v[j];`: the last guard exits). Where a line's SASS has more loads
    after a conditional EXIT than its PTX has after a branch to `ret`, and exactly that many
    of the line's loads can sink so, each moves below its branch. Returns notes; `edits`
    gains the moves."""
    notes, rets = [], _ret_labels(body)
    for key, ptx in ptx_lines.items():
        if key[1] != "load":
            continue
        built = sum(s.after_exit for s in sass_lines.get(key, []))
        stated = sum(_after_exit(body, a.position, rets) for a in ptx)
        if built <= stated:
            continue
        sinks = [(a, b) for a in ptx if a.position not in edits and not a.inst.guard
                 for b in [_exit_below(body, a.position, rets, names)] if b is not None]
        if len(sinks) != built - stated:
            continue
        for a, branch in sinks:
            edits[a.position] = []
            edits[branch] = edits.get(branch, [body[branch]]) + [a.inst]
        notes.append(f"{_where(key[0])}: ptxas loads {len(sinks)} of this line's values "
                     "below a conditional exit, only in the threads that stay (counted as "
                     "built)")
    return notes


def _ret_labels(body: list) -> set[str]:
    """The labels whose code is a return (labels, then an unguarded `ret` or `exit`)."""
    out, pending = set(), []
    for x in body:
        if isinstance(x, Label):
            pending.append(x.name)
            continue
        if x.name in ("ret", "exit") and x.guard is None:
            out.update(pending)
        pending = []
    return out


def _after_exit(body: list, position: int, rets: set) -> bool:
    """Whether a conditional branch to a return stands before `position` with no label
    between (the PTX's form of SASS's `@P EXIT` above an instruction)."""
    for x in reversed(body[:position]):
        if isinstance(x, Label):
            return False
        if x.name == "bra" and x.guard is not None and x.operands[0] in rets:
            return True
    return False


# what orders shared memory besides a write to it (a barrier, a fence, a call, a copy)
_ORDERING = tuple(f for f in _FENCES if f not in ("st", "atom", "red"))


def _writes_shared(x: Inst) -> bool:
    """Whether a store or atomic may write shared memory (its space shared, or generic)."""
    return x.name in ("st", "atom", "red") and \
        not any(space in x.opcode for space in ("global", "local", "param"))


def _exit_below(body: list, position: int, rets: set, names) -> int | None:
    """The position of the conditional branch to a return that the load at `position` can
    sink below: every path from the load reaches it (only forward branches between, none
    past it), nothing between reads or writes the registers it loads, writes those its
    address reads, writes shared memory or orders it, and the value is not used before it.
    None where there is none."""
    from .operands import _reads, _writes
    loaded = set(_writes(body[position], names))
    address = set(_reads(body[position], names))
    labels = {x.name: n for n, x in enumerate(body) if isinstance(x, Label)}
    furthest = position
    for n in range(position + 1, len(body)):
        x = body[n]
        if isinstance(x, Label):
            continue
        written = set(_writes(x, names))
        if loaded & (set(_reads(x, names)) | written) or address & written or \
                _writes_shared(x) or x.name in _ORDERING or \
                x.name in ("ret", "exit", "trap") or "volatile" in x.opcode:
            return None
        if x.name != "bra":
            continue
        target = labels.get(x.operands[0])
        if target is None or target <= n or x.guard is None:
            return None   # (a loop's branch back, or a jump: not an if's)
        if x.operands[0] in rets:
            return n if furthest <= n else None
        furthest = max(furthest, target)
    return None

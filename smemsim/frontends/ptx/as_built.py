"""The PTX's shared accesses as ptxas built them: where the SASS of the same PTX
(smemsim.frontends.ptx. sass) serves several neighbouring `ld.shared`/`st.shared` of one
source line with one wider instruction, the entry's body is rewritten to that one wider
access before it is lowered, so the bank engine sees what the GPU runs.

siboehm's sgemmResolveBankConflicts has eight `ld.shared.f32 [%r44+0]` ... `[%r44+28]` on line
74; its SASS has `LDS.128 [R79]` and `LDS.128 [R79+0x10]` there. The two meet by line (the
`.loc` chain and nvdisasm's `inlined at` chain are the same line table) and by address: the
SASS instructions of one register base, moved by one constant, cover the PTX accesses of one
register base exactly, each a run of consecutive offsets. Each run becomes one vector access
(`ld.shared.v4.f32 {%f348, %f349, %f350, %f351}, [%r44]`): a load where the run's first load
was, a store where its last store was, and only where no instruction between them writes the
base or the values moved (else the line keeps its PTX accesses and says so).

What else ptxas did is said, line by line, never guessed at: a line whose SASS has accesses
the PTX does not (or fewer) keeps the PTX's, with a note; a line ptxas unrolled (its SASS
accesses a whole multiple of its PTX's) runs the same accesses.

Here: the pass over an entry and its notes. as_built_match.py pairs the PTX's accesses with
the SASS instructions of their line; as_built_rules.py holds each other change ptxas makes,
one function per kind, in the order the pass applies them.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from .as_built_match import (_Access, _by_line, _chain, _count, _merged_note, _moves,
                             _ptx_count, _ptx_name, _runs, _unrolled, _where)
from .as_built_rules import (_attributed, _blocked_loops, _cascades, _contained,
                             _fragments_reloaded, _iterations_merged, _narrowed, _pooled,
                             _reused, _sunk_loads, _sunk_stores)
from .parse import Entry, Inst, Label, Module
from .sass import FunctionSass
from .unroll import unroll


@dataclass(frozen=True)
class AsBuilt:
    """An entry as built: its body with ptxas's merges, and what was found, line by line."""

    entry: Entry
    notes: tuple[str, ...]
    merged: int         # PTX accesses now part of a wider one
    lines: int          # source lines with shared accesses
    matched: int        # of them, whose accesses are the SASS's (after the merges)
    # (source place chain, "load" | "store") of the lines counted as the PTX states where
    # the SASS differs in a way no rule here follows (each said in a note)
    as_stated: tuple = ()


def as_built(module: Module, entry: Entry, sass: FunctionSass,
             unrolling: bool = True, cascades: bool = True) -> AsBuilt:
    """`entry` with the merges its SASS shows; notes for every line the SASS differs on.
    Where a line's SASS has as many instructions as its PTX, each wider, inside a counted
    loop (iterations ptxas unrolled and merged), the loop is unrolled (smemsim.frontends.ptx.unroll)
    and matched again, kept where more lines then match. `cascades`: with _cascades'
    rewrites (which only a loop the lowering counts can take)."""
    first = _as_built(module, entry, sass, cascades)
    if not unrolling:
        return first
    best = first
    for label in _merged_loops(module, entry, sass):
        body = unroll(list(entry.body), label, frozenset(entry.names))
        if body is None:
            continue
        again = _as_built(module, replace(entry, body=body), sass, cascades)
        if again.matched > best.matched:
            best = replace(again, notes=again.notes + (
                f"{_where(_label_line(module, entry, label))}: ptxas unrolled this loop "
                "completely (unrolled here too: its iterations' accesses merged as built)",))
    return best


def _merged_loops(module: Module, entry: Entry, sass: FunctionSass) -> list[str]:
    """The labels of loops holding a line whose SASS has as many instructions as its PTX,
    each wider (several iterations' accesses merged)."""
    ptx_lines, built = _by_line(module, entry, sass)
    labels = []
    for key, ptx in ptx_lines.items():
        ss = built.get(key, [])
        if ss and len(ss) == len(ptx) and min(s.width for s in ss) > max(a.width for a in ptx):
            label = next((x.name for x in reversed(entry.body[:ptx[0].position])
                          if isinstance(x, Label)), None)
            if label is not None and label not in labels:
                labels.append(label)
    return labels


def _label_line(module: Module, entry: Entry, label: str) -> tuple:
    """The source place of a loop: its first instruction's."""
    at = next(n for n, x in enumerate(entry.body) if isinstance(x, Label) and x.name == label)
    first = next((x for x in entry.body[at + 1:] if isinstance(x, Inst)), None)
    return _chain(module, first) if first is not None else ()


def _as_built(module: Module, entry: Entry, sass: FunctionSass,
              cascades: bool = True) -> AsBuilt:
    """as_built without unrolling (`cascades`: with _cascades' rewrites)."""
    ptx_lines, sass_lines = _by_line(module, entry, sass)
    body = list(entry.body)
    notes, merged, matched, differing = [], 0, 0, []
    edits: dict[int, list] = {}     # position -> what stands there instead
    if cascades:
        notes += _blocked_loops(module, body, ptx_lines, sass_lines, edits)
    notes += _fragments_reloaded(module, body, edits, frozenset(entry.names))
    for key, ptx in ptx_lines.items():
        built = sass_lines.get(key, [])
        have, want = Counter(a.width for a in ptx), Counter(s.width for s in built)
        if have == want or _unrolled(want, have):
            matched += 1
            continue
        runs = _runs(ptx, built)
        moves = _moves(body, runs) if runs is not None else None
        if moves is None:
            differing.append(key)
            continue
        for position, inst, gone in moves:
            edits[position] = [inst]
            edits.update({g: [] for g in gone})
        merged += sum(len(r) for r in runs if len(r) > 1)
        matched += 1
        notes.append(_merged_note(_where(key[0]), runs, built))
    reused, reuse_notes = _reused(body, differing, ptx_lines, sass_lines, edits,
                                  frozenset(entry.names))
    notes += reuse_notes
    matched += len(reused)
    differing = [k for k in differing if k not in reused]
    contained, contain_notes = _contained(body, differing, ptx_lines, sass_lines, edits,
                                          frozenset(entry.names))
    notes += contain_notes
    matched += len(contained)
    differing = [k for k in differing if k not in contained]
    narrowed, narrow_notes = _narrowed(body, differing, ptx_lines, sass_lines, edits,
                                       frozenset(entry.names))
    notes += narrow_notes
    matched += len(narrowed)
    differing = [k for k in differing if k not in narrowed]
    looped, loop_notes, loop_merged = _iterations_merged(body, differing, ptx_lines,
                                                         sass_lines, edits)
    notes += loop_notes
    matched += len(looped)
    merged += loop_merged
    differing = [k for k in differing if k not in looped]
    if cascades:
        cascaded, cascade_notes = _cascades(body, differing, ptx_lines, sass_lines, edits)
        notes += cascade_notes
        matched += len(cascaded)
        differing = [k for k in differing if k not in cascaded]
    pooled, pool_notes, pool_merged = _pooled(body, differing, ptx_lines, sass_lines, edits)
    notes += pool_notes
    merged += pool_merged
    differing = [k for k in differing if k not in pooled]
    moved, move_notes = _attributed(differing, ptx_lines, sass_lines)
    notes += move_notes
    matched += len(moved)
    differing = [k for k in differing if k not in moved]
    sunk, sink_notes = _sunk_stores(body, [k for k in differing if k[1] == "store"],
                                    ptx_lines, sass_lines, edits)
    sunk |= pooled
    matched += len(pooled & set(ptx_lines))
    notes += sink_notes
    as_stated = []
    for key in differing:
        if key in sunk:
            matched += 1
        else:
            notes.append(_differs(key, ptx_lines[key], sass_lines.get(key, [])))
            as_stated.append(key)
    for key, built in sass_lines.items():
        if key not in ptx_lines and key not in sunk:
            notes.append(f"{_where(key[0])}: the SASS has {_count(built)} that no PTX "
                         f"{_ptx_name(key[1])} of this line has (not counted)")
    notes += _sunk_loads(body, ptx_lines, sass_lines, edits, frozenset(entry.names))
    body = [y for n, x in enumerate(body) for y in edits.get(n, [x])]
    return AsBuilt(replace(entry, body=body), tuple(notes), merged,
                   len(ptx_lines), matched, tuple(as_stated))


def _differs(key, ptx: list[_Access], built: list) -> str:
    more = sum(a.width for a in ptx) > sum(s.width for s in built)
    if built and len(built) == len(ptx) and \
            min(s.width for s in built) > max(a.width for a in ptx):
        # as many instructions, each wider: a loop ptxas unrolled and whose
        # iterations' neighbouring accesses it merged (siboehm's kernel 4: LDS.128 of four
        # iterations' floats), which the counts do not follow yet
        why = " (at most: ptxas merged accesses of several iterations of the loop)"
    elif built and len(built) > len(ptx) and \
            max(s.width for s in built) > max(a.width for a in ptx):
        # more instructions, some wider: a loop of a run-time trip count that ptxas unrolled
        # again (blocks of copies, then a remainder) and whose iterations' accesses it
        # merged (llm.c's softmax_forward kernel 4: 5 ld.shared.f32 as 4 LDS and 7 LDS.128;
        # it runs fewer instructions than the PTX states)
        why = (" (at most: ptxas unrolled this line's loop again at its run-time trip count "
               "and merged neighbouring iterations, which the counts do not follow yet)")
    elif more:
        why = " (at most: ptxas kept fewer)"
    elif sum(a.width for a in ptx) == sum(s.width for s in built):
        # the same bytes in other instructions: merged (or split) where no rule above
        # follows it
        why = " (at most: ptxas merged accesses in a way the reading does not follow)" \
            if len(built) < len(ptx) else \
            " (at least: ptxas split accesses in a way the reading does not follow)"
    else:
        why = " (ptxas added accesses)"
    return (f"{_where(key[0])}: the SASS has {_count(built)} where the PTX has "
            f"{_ptx_count(ptx)}; counted as the PTX states" + why)

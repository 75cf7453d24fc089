"""Loads the compiler made unconditional: where a source reads shared memory under a
condition (`if (add_last && tid == 127) last = temp[255];`), nvcc may load for every
thread and keep the value only where the condition holds (`ld.shared` before the branch,
then `selp`). The build does run that load in every thread, so the analyses count it as
built; but a thread whose loaded value is then thrown away reads nothing the program uses,
and a race or a read of unwritten bytes at its load is no hazard of the program.

This pass finds, for each shared Load, the conditions under which its value is used: each
use of its result inside a select's arm (the select's condition, or its negation) or under
an `if` (its condition), through locals declared once (`Let`); any other use (an address,
a store's value, an assignment, a loop's condition) is a use everywhere. Where every use
is so guarded and the guards read only the thread's and block's indices and the launch's
parameters, their disjunction becomes the Load's `used_where`, which `check`'s tracking run
reads (kernels_ir's interpreter: its lanes where it is false are not tracked).
"""
from __future__ import annotations

import dataclasses
import functools

from kernels_ir import Kernel
from kernels_ir.expr import Expr, Op, lnot, logical_and, logical_or
from kernels_ir.stmt import Assign, If, Let, Load, map_statements

from ...launch.affine import inline_locals, written_out_size

# conjunctions a Load's guards may hold before the pass gives up on it (a use everywhere)
_MOST = 16
# nodes a condition written out may have (the interpreter evaluates it as a tree)
_MOST_NODES = 4096


def mark_speculated_loads(kernel: Kernel) -> Kernel:
    """`kernel` with each shared Load's `used_where` set where its value is used only under
    pure conditions (see the module)."""
    loads = {s.dst: s for s in kernel.statements() if isinstance(s, Load) and s.site is not None}
    if not loads:
        return kernel
    lets: dict = {}   # local declared once -> its value (for conditions written out)
    # variable -> (guard conjunction, expression reading it, the variable that expression
    # gives its value to, or None)
    uses: dict = {}

    def visit(body, guard: tuple) -> None:
        for s in body:
            if isinstance(s, If):
                note(s.cond, guard, None)
                visit(s.then, guard + (s.cond,))
                visit(s.orelse, guard + (lnot(s.cond),))
                continue
            if isinstance(s, Let):
                lets[s.var] = s.value
            target = s.var if isinstance(s, (Let, Assign)) else None
            for x in s.exprs():   # (a loop's own expressions: everywhere in its body)
                note(x, guard, target)
            for body_ in s.bodies():
                visit(body_, guard)

    def note(e: Expr, guard: tuple, target) -> None:
        for var in {n.arg for n in e.walk() if n.op is Op.VAR}:
            uses.setdefault(var, []).append((guard, e, target))

    visit(kernel.body, ())
    # (a local given other values later is not its declaration's value: not written out)
    for s in kernel.statements():
        if not isinstance(s, Let):
            for var in s.defines():
                lets.pop(var, None)
    marked = {}
    sizes: dict = {}
    for var, load in loads.items():
        found = _guards(var, uses, set())
        if not found:
            continue   # (used nowhere, or where no pure condition guards it)
        terms = []
        for conj in found:
            parts = [_pure(c, lets, sizes) for c in conj]
            if not parts or any(p is None for p in parts):
                break   # (a use no condition guards, or one that reads a variable)
            terms.append(functools.reduce(logical_and, parts))
        else:
            marked[id(load)] = functools.reduce(logical_or, terms)
    if not marked:
        return kernel
    body = map_statements(kernel.body, lambda s: dataclasses.replace(
        s, used_where=marked[id(s)]) if id(s) in marked else s)
    return dataclasses.replace(kernel, body=body)


def _guards(var, uses: dict, seen: set) -> list[tuple] | None:
    """The conjunctions under which `var`'s value is used (a disjunction of them), or None
    where it is used where no select or if guards it (or too many ways to say)."""
    if var in seen:
        return None
    seen = seen | {var}
    out: list[tuple] = []
    for guard, e, target in uses.get(var, ()):
        for g in _in_expr(e, var):
            if target is not None and g == () and target != var:
                # a local given its value (`r8 = v`): wherever that local is used, the
                # value may be (every use of it, whichever of its values it then holds)
                more = _guards(target, uses, seen)
                if more is None:
                    return None
                out += [guard + m for m in more]
            elif target == var and g == ():
                return None   # (an accumulation into itself in a loop: everywhere)
            else:
                out.append(guard + g)
        if len(out) > _MOST:
            return None
    return out


def _in_expr(e: Expr, var) -> list[tuple]:
    """The conjunctions under which `e`'s value reads `var`: [()] where it reads it
    unguarded, [] where not at all; a select's arm adds its condition (or the negation)."""
    if e.op is Op.VAR:
        return [()] if e.arg == var else []
    if e.op is Op.SELECT:
        c, a, b = e.src
        if any(n.op is Op.VAR and n.arg == var for n in c.walk()):
            return [()]
        return [(c,) + g for g in _in_expr(a, var)] + \
            [(lnot(c),) + g for g in _in_expr(b, var)]
    return [g for x in e.src if isinstance(x, Expr) for g in _in_expr(x, var)]


def _pure(c: Expr, lets: dict, sizes: dict) -> Expr | None:
    """`c` with its locals written out (those declared once: affine.inline_locals), if it
    then reads only indices, parameters and constants and is small enough to evaluate; else
    None (`sizes`: affine.written_out_size's memo over `lets`)."""
    if written_out_size(c, lets, sizes) > _MOST_NODES:
        return None   # (a chain of locals each read twice doubles: moderngpu's segsort)
    c = inline_locals(c, lets)
    return None if any(n.op in (Op.VAR, Op.LOCAL_READ, Op.COMPONENT) for n in c.walk()) \
        else c

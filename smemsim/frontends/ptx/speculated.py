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

from kernels_ir import Kernel
from kernels_ir.expr import Expr, Op, lnot, logical_and, logical_or
from kernels_ir.stmt import Assign, If, Let, Load, Loop, map_statements

# conjunctions a Load's guards may hold before the pass gives up on it (a use everywhere)
_MOST = 16


def mark_speculated_loads(kernel: Kernel) -> Kernel:
    """`kernel` with each shared Load's `used_where` set where its value is used only under
    pure conditions (see the module)."""
    loads = {s.dst: s for s in kernel.statements()
             if isinstance(s, Load) and s.array is not None and s.site is not None}
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
            if isinstance(s, Loop):
                for x in s.exprs():
                    note(x, guard, None)
                visit(s.body, guard)
                continue
            target = s.var if isinstance(s, (Let, Assign)) else None
            for x in s.exprs():
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
    for var, load in loads.items():
        found = _guards(var, uses, lets, set())
        if found is None or not found:
            continue
        where = None
        for conj in found:
            term = None
            for c in conj:
                c = _pure(c, lets)
                if c is None:
                    break
                term = c if term is None else logical_and(term, c)
            else:
                if term is None:
                    break   # (an unguarded use: everywhere)
                where = term if where is None else logical_or(where, term)
                continue
            where = None
            break
        else:
            if where is not None:
                marked[id(load)] = where
    if not marked:
        return kernel
    body = map_statements(kernel.body, lambda s: dataclasses.replace(
        s, used_where=marked[id(s)]) if id(s) in marked else s)
    return dataclasses.replace(kernel, body=body)


def _guards(var, uses: dict, lets: dict, seen: set) -> list[tuple] | None:
    """The conjunctions under which `var`'s value is used (a disjunction of them), or None
    where it is used where no select or if guards it (or too many ways to say)."""
    if var in seen:
        return None
    seen = seen | {var}
    out: list[tuple] = []
    for guard, e, target in uses.get(var, ()):
        inner = _in_expr(e, var)
        if inner is None:
            return None
        for g in inner:
            if target is not None and g == () and target != var:
                # a local given its value (`r8 = v`): wherever that local is used, the
                # value may be (every use of it, whichever of its values it then holds)
                more = _guards(target, uses, lets, seen)
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


def _in_expr(e: Expr, var) -> list[tuple] | None:
    """The conjunctions under which `e`'s value reads `var`: [()] where it reads it
    unguarded, [] where not at all; a select's arm adds its condition (or the negation)."""
    if e.op is Op.VAR:
        return [()] if e.arg == var else []
    if e.op is Op.SELECT:
        c, a, b = e.src
        if any(n.op is Op.VAR and n.arg == var for n in c.walk()):
            return [()]
        ua, ub = _in_expr(a, var), _in_expr(b, var)
        if ua is None or ub is None:
            return None
        return [(c,) + g for g in ua] + [(lnot(c),) + g for g in ub]
    out: list[tuple] = []
    for x in e.src:
        if isinstance(x, Expr):
            u = _in_expr(x, var)
            if u is None:
                return None
            out += u
    return out


def _pure(c: Expr, lets: dict, depth: int = 0) -> Expr | None:
    """`c` with its locals written out (those declared once), if it then reads only
    indices, parameters and constants; else None."""
    if depth > 64:
        return None
    if c.op is Op.VAR:
        if c.arg not in lets:
            return None
        return _pure(lets[c.arg], lets, depth + 1)
    if c.op in (Op.LOCAL_READ, Op.COMPONENT):
        return None
    if not c.src:
        return c
    src = []
    for x in c.src:
        if isinstance(x, Expr):
            y = _pure(x, lets, depth + 1)
            if y is None:
                return None
            src.append(y)
        else:
            src.append(x)
    return c if all(a is b for a, b in zip(src, c.src)) else Expr(c.op, c.dtype, tuple(src), c.arg)

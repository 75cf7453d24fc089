"""Loops whose iterations repeat: what lets a run for addresses skip most of a long loop.

In a run for addresses only (run_types.PartialRun), a loop that cannot be collapsed still
often repeats itself: matmul_128x128's K loop carries a double-buffer stage (`write_stage
^= 1`) and guards its last step (`if (i + 16 < K)`); everything else in the slice is the
same every iteration. What an iteration issues, and the state it leaves, is then a function
of two things: the carried state at its start (the slice's variables and register arrays
that the body updates and that outlive an iteration), and the values of the expressions
that read the loop variable (a guard `i + 16 < K`, a stage `(k / 16) % 2`). Those read
nothing carried, so they can be evaluated for every iteration ahead of time (one vectorized
evaluation). When an iteration starts in the same carried state, with the same values of
those expressions on every lane, as an earlier one p iterations before, the iterations
repeat with period p for as long as the values do: the interpreter counts those iterations
from the ones it ran instead of running them. The counts are exact, not sampled.

`plan(loop, executed)` says what to watch: the carried state, and the largest expressions
that read the loop variable (or variables the body computes from it and from loop-invariant
values) and nothing carried. A loop with a `return` inside, or whose loop-dependent
variables are reassigned or mixed with carried state in a declaration, is not watched.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .evaluate import Evaluator
from .expr import Expr, Op, Var
from .semantics import convert
from .arrays import LocalArray
from .stmt import Access, Assign, Let, Loop, Return, walk


@dataclass(frozen=True)
class Plan:
    """How to watch one loop for repetition."""

    carried: tuple                 # variables and register arrays that outlive an iteration
    derived: tuple[Let, ...]       # body variables computed from the loop variable, in order
    watched: tuple[Expr, ...]      # the largest expressions that read it and nothing carried


def evaluated(s) -> tuple[Expr, ...]:
    """What a statement evaluates in a run for addresses (an access: its address only)."""
    return s.address_exprs() if isinstance(s, Access) else s.exprs()


def plan(loop: Loop, executed: frozenset[int]) -> Plan | None:
    """The plan for a loop whose executed statements are `executed` (ids), or None when it
    cannot be watched (see the module's docstring)."""
    body = [x for x in walk(loop.body) if id(x) in executed]
    if not body or any(isinstance(x, Return) for x in body):
        return None
    fresh = {t for x in walk(loop.body) for t in x.declares() + x.scoped()}
    carried = {t for x in body for t in x.updates()} - fresh
    tainted = {loop.var}     # the loop variable and what is computed from it
    derived, watched = [], {}

    def reads(e: Expr) -> bool:
        return any(n.op is Op.VAR and n.arg in tainted for n in e.walk())

    def ahead(e: Expr) -> bool:
        """Can be evaluated for any iteration from the loop variable alone."""
        for n in e.walk():
            if n.op in (Op.LOCAL_READ, Op.COMPONENT):
                return False
            if n.op is Op.VAR and n.arg not in tainted and (n.arg in carried
                                                            or n.arg in fresh):
                return False
        return True

    def watch(e: Expr) -> None:
        """Watch the largest parts of e that depend on the loop and on nothing carried (a
        part that mixes in carried state is covered by the state and its watched parts)."""
        if not reads(e):
            return
        if ahead(e):
            watched[id(e)] = e
            return
        for c in e.src:
            watch(c)

    for x in body:
        if isinstance(x, Let) and reads(x.value):
            if not ahead(x.value):
                return None
            derived.append(x)
            tainted.add(x.var)
            continue
        if isinstance(x, Assign) and x.var in tainted:
            return None
        for e in evaluated(x):
            watch(e)
    order = sorted(carried, key=lambda t: (isinstance(t, LocalArray), t.name))
    return Plan(tuple(order), tuple(derived), tuple(watched.values()))


class _Ahead(Evaluator):
    """Evaluates expressions for many iterations at once: lanes x iterations, the loop
    variable per iteration, everything else as the machine holds it."""

    def __init__(self, machine, lanes: np.ndarray, var: Var, values: np.ndarray):
        self.machine = machine
        self.base = np.tile(lanes, values.size)
        self.values = {var: np.repeat(values, lanes.size)}

    def leaf(self, e: Expr, idx: np.ndarray) -> np.ndarray:
        if e.op is Op.VAR and e.arg in self.values:
            return self.values[e.arg]
        return self.machine.leaf(e, self.base)


def iteration_classes(machine, p: Plan, loop: Loop, lanes: np.ndarray,
                      values: np.ndarray) -> np.ndarray:
    """Per iteration, a number that is equal for two iterations exactly when every watched
    expression has the same value on every lane in both (`values`: the loop variable per
    iteration).

    Raises what evaluating raises (a fault, or a variable the machine has not set yet); the
    caller then runs the loop as it is.
    """
    out = np.zeros(values.size, np.int64)
    if not p.watched:
        return out
    ids: dict[bytes, int] = {}
    step = max(1, (1 << 20) // max(1, lanes.size * len(p.watched)))
    for at in range(0, values.size, step):
        chunk = values[at:at + step]
        ev = _Ahead(machine, lanes, loop.var, chunk)
        n = np.arange(ev.base.size)
        with np.errstate(all="ignore"):
            for d in p.derived:
                ev.values[d.var] = convert(ev.eval(d.value, n), d.var.dtype)
            rows = np.hstack([np.ascontiguousarray(ev.eval(e, n).reshape(chunk.size, -1))
                              .view(np.uint8) for e in p.watched])
        # the chunk's distinct rows at numpy's speed, then a number for each new one
        # (a Python step per iteration cost a second per million iterations)
        distinct, first, inverse = np.unique(
            np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1]))).ravel(),
            return_index=True, return_inverse=True)
        numbers = np.array([ids.setdefault(rows[i].tobytes(), len(ids)) for i in first],
                           np.int64)
        out[at:at + chunk.size] = numbers[inverse.ravel()]
    return out

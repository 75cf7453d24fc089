"""Unrolled loops written out: each iteration a loop of its own, so its accesses are sites.

nvcc unrolls a `#pragma unroll` loop of constant trip count completely and may then merge the
same access of neighbouring iterations into one wider instruction (`As[ty][k]`, k = 0..3, as
one LDS.128). Line information cannot tell iterations apart, since they share a source
line; written out here, every iteration's access is a site with a line of its own, and the
SASS can be attributed iteration by iteration (smemsim's `--as-compiled`).

Each iteration becomes a single-iteration loop over the same variable (`for (int k = 3; k ==
3; k += 1)`), not a plain copy: the loop keeps the copy's declarations in a scope of their
own, and the compiler folds a loop of one iteration away. Only loops whose start, step and
condition are constants (given the loop variable) are written out; the rest are left as they
are, and a caller reports them.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .errors import KernelError
from .evaluate import Evaluator
from .expr import Expr, Op, const
from .kernel import Kernel
from .stmt import Access, If, Loop, walk

MAX_TRIPS = 4096  # longer constant loops are left alone (nvcc would not unroll them fully)


@dataclass(frozen=True)
class Copy:
    """Where a site of the written-out kernel comes from."""

    site: int                                  # the site in the original kernel
    iteration: tuple[tuple[str, int], ...]     # the written-out loops' variables, outermost first


class _NotConstant(Exception):
    pass


class _Constant(Evaluator):
    """Evaluates an expression whose only leaves are the loop variable and the variables of
    enclosing loops being written out (`env`: Var -> value)."""

    def __init__(self, var, value: int, env=None):
        self.var, self.value, self.env = var, value, env or {}

    def leaf(self, e: Expr, idx: np.ndarray) -> np.ndarray:
        if e.op is Op.VAR and e.arg is self.var:
            return np.full(idx.size, self.value, self.var.dtype.np)
        if e.op is Op.VAR and e.arg in self.env:
            return np.full(idx.size, self.env[e.arg], e.arg.dtype.np)
        raise _NotConstant


def _value(e: Expr, var, value: int, env=None) -> int:
    try:
        out = _Constant(var, value, env).eval(e, np.arange(1))
    except (_NotConstant, KernelError, ArithmeticError):
        raise _NotConstant from None
    return int(out[0])


def trip_values(loop: Loop, env=None) -> tuple[int, ...] | None:
    """The values the loop variable takes, if the loop's bounds are constants (given the
    values `env` holds for enclosing loops' variables); else None. Evaluated once per
    header structure and values of the variables it reads: the copies of an inner loop that
    writing out its outer loops makes share one (matmul_128x128's unrolled kernel: 1,175
    loops, 0.035 s evaluated one by one)."""
    header = (loop.start, loop.cond, loop.step, loop.update)
    key = (id(loop.var), loop.do_while) + tuple(None if e is None else e.key() for e in header)
    if env:
        reads = {n.arg for e in header if e is not None for n in e.walk() if n.op is Op.VAR}
        key += tuple((id(v), x) for v, x in env.items() if v in reads)
    kept = _TRIPS.get(key)
    if kept is None:
        if len(_TRIPS) >= 4096:
            _TRIPS.clear()
        # (kept with the loop, whose expressions hold every variable the key names by id,
        # so that no id in a kept key is reused)
        kept = _TRIPS[key] = (loop, _trip_values(loop, env))
    return kept[1]


# a loop header's structure and the values it reads -> (a loop, its trip values)
_TRIPS: dict[tuple, tuple] = {}


def _trip_values(loop: Loop, env) -> tuple[int, ...] | None:
    if loop.var.dtype.is_float:
        return None
    try:
        v = _value(loop.start, None, 0, env)
        if not loop.do_while and not _value(loop.cond, loop.var, v, env):
            return ()
        values = []
        while True:
            values.append(v)
            if len(values) > MAX_TRIPS:
                return None
            v = _value(loop.update, loop.var, v, env) if loop.update is not None else \
                v + _value(loop.step, loop.var, v, env)
            if not _value(loop.cond, loop.var, v, env):
                return tuple(values)
    except _NotConstant:
        return None


def marked(loop: Loop) -> bool:
    """The loops written out by default: those the IR marks `unroll=True`."""
    return loop.unroll is True


def unroll(kernel: Kernel, which: Callable[[Loop], bool] = marked
           ) -> tuple[Kernel, dict[int, Copy]]:
    """The kernel with every constant-trip loop that `which` picks (default: those marked
    `unroll=True`) written out iteration by iteration, its sites renumbered in program
    order, and where each new site comes from."""
    origin: dict[int, Copy] = {}
    counter = iter(range(1 << 30))
    # the header of a loop's copy for one value: made once and shared by every copy (an
    # inner loop written out in each copy of an outer one: matmul_128x128's unrolled kernel
    # has 1,175 such headers)
    headers: dict[tuple, tuple] = {}

    def header(s: Loop, v: int) -> tuple:
        key = (id(s.var), v)
        if key not in headers:
            start = const(v, s.var.dtype)
            headers[key] = (start, const(1, s.var.dtype),
                            Expr(Op.VAR, s.var.dtype, (), s.var) == start)
        return headers[key]

    def block(stmts, iteration, env) -> tuple:
        out = []
        for s in stmts:
            # an inner loop's bounds may read the variables of loops written out around it
            # (`for (j = 0; j < i; j++)` in a written-out loop over i)
            values = trip_values(s, env) if isinstance(s, Loop) and which(s) else None
            if values is not None:
                for v in values:
                    inner = iteration + ((s.var.name, v),)
                    start, step, cond = header(s, v)
                    out.append(replace(
                        s, start=start, step=step, update=None, cond=cond, do_while=False,
                        body=block(s.body, inner, {**env, s.var: v})))
                continue
            if isinstance(s, If) and env:
                # `if (i == 0)` in a copy: the compiler keeps the branch this iteration
                # takes, and the other branch's accesses are no copy's
                try:
                    taken = _value(s.cond, None, 0, env)
                except _NotConstant:
                    taken = None
                if taken is not None:
                    s = replace(s, cond=const(1, s.cond.dtype),
                                then=s.then if taken else s.orelse, orelse=())
            s = s.rebuild(body=lambda b: block(b, iteration, env))
            if isinstance(s, Access) and s.site is not None:
                new = next(counter)
                origin[new] = Copy(s.site, iteration)
                s = replace(s, site=new)
            out.append(s)
        return tuple(out)

    return replace(kernel, body=block(kernel.body, (), {})), origin


def unrollable(kernel: Kernel, which: Callable[[Loop], bool] = marked) -> bool:
    """Whether `unroll` would write out any loop."""
    return any(isinstance(s, Loop) and which(s) and trip_values(s) is not None
               for s in walk(kernel.body))

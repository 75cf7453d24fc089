"""How the interpreter runs a loop: iteration by iteration, or, where the IR allows it, in closed
form (a loop whose body only advances its counters), by end points, or periodically (a body
whose addresses repeat): each exact, never sampled."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Mapping

import numpy as np

from .dtypes import promote
from .errors import KernelError, KernelRuntimeError, loop_label
from .expr import Expr, Op, Var
from .periodic import iteration_classes, plan
from .run_types import MAX_LOOP_ITERATIONS, PERIODIC_HISTORY, PERIODIC_MIN_TRIPS
from .semantics import LaneFault, convert, trip_count
from .arrays import LocalArray
from .stmt import If, Load, Loop, Return, Store, walk

if TYPE_CHECKING:
    from .interpreter import Machine


def loop(machine: Machine, s: Loop, idx: np.ndarray) -> None:
    var = s.var
    if var not in machine.vars:
        machine.vars[var] = np.zeros(machine.total, var.dtype.np)
        machine.iterations[var] = np.zeros(machine.total, np.int64)
    machine.vars[var][idx] = convert(machine.eval(s.start, idx), var.dtype)
    machine.iterations[var][idx] = 0
    # inside a branch coroutine every iteration runs (the shortcuts below keep state of
    # their own that another branch could see half made)
    p = machine.partial if not machine._in_branch and machine.signature is None else None
    if p is not None and id(s) in p.collapse:
        if id(s) in p.summed:
            return _summed_loop(machine, s, idx)
        if _collapsed_loop(machine, s, idx):
            return
    if p is not None and id(s) in p.endpoints and _endpoint_loop(machine, s, idx):
        return
    if p is not None and p.statements is not None and not (p.track or p.sources) and \
            _periodic_loop(machine, s, idx):
        return
    limit = None
    # (truncation keeps the decisions of the iterations it runs: a signature run takes it,
    # where its caller asks, as the run it classes blocks for does)
    t = machine.partial if not machine._in_branch else None
    if t is not None and id(s) in t.truncate and not _returns_inside(machine, s):
        trips = _closed_form_trips(machine, s, idx)
        if trips is not None:
            # the lanes of each block agree (idx is in thread order, blocks contiguous)
            block = idx // machine.tpb
            starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
            if (np.minimum.reduceat(trips, starts) ==
                np.maximum.reduceat(trips, starts)).all():
                limit = 2
                if id(s) in t.truncate_pairs:   # (3 or 4: the parity of the trip count)
                    limit = np.zeros(machine.total, np.int64)
                    limit[idx] = 4 - trips % 2
    machine.loop_stack.append(var)
    try:
        active, first, count, ceiling = idx, True, 0, machine.loop_limit
        while active.size:
            if machine.returns:
                active = active[~machine.exited[active]]
            if limit is not None:  # lanes that have run their two iterations stop
                active = active[machine.iterations[var][active] <
                                (limit if np.isscalar(limit) else limit[active])]
                if not active.size:
                    break
            if not (first and s.do_while):
                going = machine.eval(s.cond, active) != 0
                if machine.signature is not None:
                    machine._decide(s, active, going)
                active = active[going]
                if not active.size:
                    break
            first = False
            machine.exec_block(s.body, active)
            if not _advance(machine, s, active):
                raise LaneFault(f"{loop_label(var.name)} steps by 0 and never ends",
                                np.flatnonzero(machine.eval(s.step, active) == 0)[:1])
            if active.size == machine.total:
                machine.iterations[var] += 1
            else:
                machine.iterations[var][active] += 1
            count += 1
            if count > ceiling:
                left = _closed_form_trips(machine, s, active, start=machine.vars[var][active]) \
                    if ceiling < MAX_LOOP_ITERATIONS else None
                if left is None:
                    raise LaneFault(f"{loop_label(var.name)} ran {count:,} iterations without "
                                    f"ending{_limit_note(ceiling)}",
                                    np.zeros(1, np.int64))
                # a counted loop that ends: run it out, where the interpreter's limit
                # allows (past it, refused now rather than after millions of iterations)
                if count + int(left.max()) > MAX_LOOP_ITERATIONS:
                    raise LaneFault(_too_many(var, count + int(left.max())),
                                    np.argmax(left)[None])
                ceiling = count + int(left.max())
    except LaneFault as fault:
        raise machine.lane_fault(s, fault, active if active.size else idx) from None
    finally:
        machine.loop_stack.pop()


def _returns_inside(machine: Machine, s: Loop) -> bool:
    """Whether a lane may return inside the loop (then no iteration stands for others;
    lanes that returned before it are not among its lanes: exec_block leaves them out)."""
    known = machine._returning.get(id(s))
    if known is None:
        known = machine._returning[id(s)] = any(isinstance(x, Return) for x in walk(s.body))
    return known


def _endpoint_loop(machine: Machine, s: Loop, idx: np.ndarray) -> bool:
    """Run each lane's first, second and last iteration (PartialRun.endpoints), and the
    same three of the interval each guard holds on (PartialRun.guards); False, with the
    loop variable as it was, where the loop must run whole instead."""
    trips = _closed_form_trips(machine, s, idx)
    if trips is None or _returns_inside(machine, s) or machine._recorded is not None:
        return False
    var = s.var
    start = machine.vars[var][idx].astype(np.int64)
    step = machine.eval(s.step, idx).astype(np.int64)
    statements = machine.partial.statements
    contexts = {key: ctx for key, ctx in _guard_contexts(s.body, machine.partial.guards).items()
                if statements is None or key in statements}   # the accesses this run makes
    machine.loop_stack.append(var)
    try:
        at = lambda k, lanes: convert(start[lanes] + k * step[lanes], var.dtype)
        # per guard context (the guards around an access): each lane's interval [lo, hi]
        spans = {(): (np.zeros_like(trips), trips - 1)}
        for ctx in {ctx for ctx, _ in contexts.values()} - {()}:
            spans[ctx] = _guard_span(machine, ctx, var, idx, trips, at)
            if spans[ctx] is None:
                return _whole_loop(machine, s, idx, start)
        # phases: (lanes that run, their k); each span takes three, its first, second
        # and last iteration
        phases, of_span = [], {}
        for ctx, (lo, hi) in spans.items():
            of_span[ctx] = len(phases)
            for run, k in ((hi >= lo, lo), (hi >= lo + 1, lo + 1), (hi >= lo + 2, hi)):
                phases.append((run, k))
        machine._recorded = {}
        for phase, (run, k) in enumerate(phases):
            if not run.any():
                continue
            lanes = idx[run]
            machine.vars[var][lanes] = at(k[run], run)
            machine.iterations[var][lanes] = k[run]
            machine._phase = phase
            machine.exec_block(s.body, lanes)
        held = _progressions(machine, idx, phases, of_span, spans, contexts)
    except (KernelRuntimeError, LaneFault):
        held = False  # the whole loop names the first faulting iteration
    finally:
        machine.loop_stack.pop()
        machine._recorded = None
    if not held:
        return _whole_loop(machine, s, idx, start)
    machine.vars[var][idx] = convert(start + trips * step, var.dtype)  # as C leaves it
    machine.iterations[var][idx] = trips
    return True


def _whole_loop(machine: Machine, s: Loop, idx: np.ndarray, start: np.ndarray) -> bool:
    """The loop variable as the loop found it (and False: run the loop whole)."""
    machine.vars[s.var][idx] = convert(start, s.var.dtype)
    machine.iterations[s.var][idx] = 0
    return False


def _guard_span(machine: Machine, ctx: tuple, var: Var, idx: np.ndarray, trips: np.ndarray, at):
    """Each lane's interval [lo, hi] of iterations k in [0, trips) on which every guard
    of `ctx` holds (lo > hi: none), or None where a side of a comparison is not one
    progression over the lane's iterations (an integer wrapped)."""
    lo, hi = np.zeros_like(trips), trips - 1
    some = trips >= 1
    lanes = idx[some]
    ends = (np.zeros(lanes.size, np.int64), np.minimum(trips[some] - 1, 1),
            trips[some] - 1)
    for compare in (c for g in ctx for c in machine.partial.guards[g]):
        operand = promote(compare.src[0].dtype, compare.src[1].dtype)
        values = []   # per side: its value at k = 0, 1 (or 0) and trips - 1
        for k in ends:
            machine.vars[var][lanes] = at(k, some)
            values.append([convert(machine.eval(e, lanes), operand).astype(np.int64)
                           for e in compare.src])
        (a0, b0), (a1, b1), (aL, bL) = values
        slope_a, slope_b = a1 - a0, b1 - b0
        n = ends[2]
        if not (np.array_equal(a0 + n * slope_a, aL) and np.array_equal(b0 + n * slope_b,
                                                                        bL)):
            return None
        first, last = affine_interval(compare.op, a0 - b0, slope_a - slope_b, n)
        lo[some] = np.maximum(lo[some], first)
        hi[some] = np.minimum(hi[some], last)
    return lo, hi


def _progressions(machine: Machine, idx: np.ndarray, phases: list, of_span: dict, spans: dict,
                  contexts: dict) -> bool:
    """Whether each access's element offsets at a lane's last iteration of its span are
    its first plus (length - 1) times the step between its first two: one progression,
    so no integer wrapped in between and every iteration's offset lies between the
    ends. An access of the loop's own body must have run in its span's phases on
    exactly the lanes whose span has those iterations (else a guard held elsewhere than
    its interval says); one inside a loop within it runs once per iteration of that
    loop, the same iterations in every phase, and is compared execution by execution."""
    pos = np.full(machine.total, -1, np.int64)
    pos[idx] = np.arange(idx.size)
    for key, (ctx, inner) in contexts.items():
        recorded = machine._recorded.get(key, {})
        at = of_span[ctx]
        lo, hi = spans[ctx]
        execs = [recorded.get(at + j, []) for j in range(3)]
        runs = [idx[phases[at + j][0]] for j in range(3)]
        if not inner and any(len(e) != (1 if r.size else 0) or (e and not np.array_equal(
                e[0][0], r)) for e, r in zip(execs, runs)):
            return False
        if len(execs[2]) > min(len(execs[0]), len(execs[1])):
            return False
        for (l0, o0), (l1, o1), (lanes, last) in zip(*execs):
            first = np.full(machine.total, -1, np.int64)
            second = np.full(machine.total, -1, np.int64)
            seen = np.zeros(machine.total, np.int8)
            first[l0], second[l1] = o0, o1
            seen[l0] += 1
            seen[l1] += 1
            if (seen[lanes] != 2).any():
                return False  # the loops inside ran other iterations in other phases
            step = second[lanes] - first[lanes]
            n = (hi - lo)[pos[lanes]]
            if (np.abs(step) > 2 ** 31).any() or (n > 2 ** 31).any():
                return False
            if not np.array_equal(first[lanes] + n * step, last):
                return False
    return True


def _collapsed_loop(machine: Machine, s: Loop, idx: np.ndarray) -> bool:
    """Count each lane's iterations without the body; if all agree, run the body once.

    Returns False (run the loop normally) when the lanes' trip counts differ.
    """
    var = s.var
    trips = _closed_form_trips(machine, s, idx)
    active = np.arange(idx.size) if trips is None else np.zeros(0, np.int64)
    if trips is None:
        trips = np.zeros(idx.size, np.int64)
    first = True
    while active.size:
        lanes = idx[active]
        if not (first and s.do_while):
            keep = machine.eval(s.cond, lanes) != 0
            active, lanes = active[keep], lanes[keep]
            if not active.size:
                break
        first = False
        trips[active] += 1
        if not _advance(machine, s, lanes):
            return False  # the normal path reports the endless loop
        if trips.max() > machine.loop_limit:
            return False  # the normal path reports it
    if trips.min() != trips.max():
        return False
    machine.vars[var][idx] = convert(machine.eval(s.start, idx), var.dtype)
    if trips[0] == 0:
        return True
    machine.loop_stack.append(var)
    outer, machine.weight = machine.weight, machine.weight * int(trips[0])
    try:
        machine.exec_block(s.body, idx)
    finally:
        machine.weight = outer
        machine.loop_stack.pop()
    return True


def _periodic_loop(machine: Machine, s: Loop, idx: np.ndarray) -> bool:
    """Run a loop watching for repeated iterations (kernels_ir.periodic); False (nothing
    run) when it does not apply: no plan, trip counts or loop variable that differ
    between lanes, few trips, or watched expressions that cannot be evaluated ahead."""
    key = id(s)
    if key not in machine.plans:
        machine.plans[key] = plan(s, machine.partial.statements)
    p = machine.plans[key]
    if p is None or _returns_inside(machine, s) or any(e.op is Op.VAR and e.arg is s.var
                                           for e in p.watched):
        return False  # the variable itself watched: no two iterations alike
    trips = _closed_form_trips(machine, s, idx)
    if trips is None or trips.min() != trips.max() or trips[0] < PERIODIC_MIN_TRIPS:
        return False
    start = machine.eval(s.start, idx).astype(np.int64)
    step = machine.eval(s.step, idx).astype(np.int64)
    if start.min() != start.max() or step.min() != step.max():
        return False
    var, count = s.var, int(trips[0])
    if count > MAX_LOOP_ITERATIONS:  # each iteration is evaluated ahead: refuse at once
        raise machine._fault(s, _too_many(var, count), int(idx[0]))
    values = convert(start[0] + step[0] * np.arange(count + 1, dtype=np.int64), var.dtype)
    try:
        classes = iteration_classes(machine, p, s, idx, values[:count])
    except (LaneFault, KernelError, KeyError):
        return False
    if classes.max() == count - 1:
        return False  # every iteration differs: nothing can repeat
    machine.loop_stack.append(var)
    recorder = [0, []]
    machine.recorders.append(recorder)
    seen: dict[tuple, list] = {}   # (iteration class, carried state) -> iterations
    states: dict[int, list] = {}
    t = 0
    try:
        while t < count:
            if seen is not None:
                state = [_carried(machine, c)[idx].copy() for c in p.carried]
                fingerprint = (int(classes[t]), b"".join(a.tobytes() for a in state))
                jump = _repeat(classes, seen.get(fingerprint, ()), t)
                if jump is not None:
                    before, run = jump
                    _replay(machine, recorder, before, t, run)
                    for c, a in zip(p.carried, states[before + run % (t - before)]):
                        _carried(machine, c)[idx] = a
                    t += run
                    machine.vars[var][idx] = values[t]
                    machine.iterations[var][idx] = t
                    seen, states = {}, {}
                    recorder[1] = []
                    continue
                seen.setdefault(fingerprint, []).append(t)
                states[t] = state
                if len(states) > PERIODIC_HISTORY:  # no repetition soon: stop watching
                    seen, states = None, None
                    machine.recorders.remove(recorder)
            recorder[0] = t
            machine.exec_block(s.body, idx)
            _advance(machine, s, idx)
            machine.iterations[var][idx] += 1
            t += 1
    except LaneFault as fault:
        raise machine.lane_fault(s, fault, idx) from None
    finally:
        if seen is not None:
            machine.recorders.remove(recorder)
        machine.loop_stack.pop()
    return True


def _repeat(classes: np.ndarray, earlier, t: int):
    """(before, run): the latest earlier iteration, in the same state as iteration t,
    from which at least one whole period repeats (iterations t, t+1, ... repeat before,
    before+1, ... for `run` iterations, as far as the watched values do); else None."""
    count = classes.size
    for before in reversed(earlier):
        same = classes[t:] == classes[before:before + count - t]
        run = count - t if same.all() else int(np.argmin(same))
        if run >= t - before:
            return before, run
    return None


def _carried(machine: Machine, target) -> np.ndarray:
    """The per-thread storage of a variable or register array (one row per thread)."""
    if isinstance(target, LocalArray):
        if target not in machine.local_arrays:
            machine.local_arrays[target] = np.zeros((machine.total, *target.shape),
                                                    target.dtype.np)
        return machine.local_arrays[target].reshape(machine.total, -1)
    if target not in machine.vars:
        machine.vars[target] = np.zeros(machine.total, target.dtype.np)
    return machine.vars[target]


def _replay(machine: Machine, recorder: list, before: int, now: int, run: int) -> None:
    """Report the shared accesses of `run` iterations from `now` on, which repeat those
    of iterations before..now-1 in turn: each recorded access once, weighted by how many
    of them it stands for."""
    period = now - before
    full, rest = divmod(run, period)
    outer = machine.recorders[:-1]
    for t, access in recorder[1]:
        times = full + (t - before < rest)
        if t < before or not times:
            continue
        again = replace(access, weight=access.weight * times)
        machine.observer(again)
        for r in outer:
            r[1].append((r[0], again))


def _summed_loop(machine: Machine, s: Loop, idx: np.ndarray) -> None:
    """Run the body once for the lanes with at least one trip (PartialRun.summed)."""
    var = s.var
    trips = _closed_form_trips(machine, s, idx)
    if trips is None:
        raise KernelError(f"{loop_label(var.name)} was to be summed per block but has no "
                          "closed-form trip count (an analysis bug)", kernel=machine.kernel.name)
    per_block = np.zeros(machine.nblocks, np.int64)
    per_block[machine.block_lin[idx]] = trips
    if (per_block[machine.block_lin[idx]] != trips).any():
        raise KernelError(f"{loop_label(var.name)} was to be summed per block but its trip "
                          "count differs within a block (an analysis bug)",
                          kernel=machine.kernel.name)
    machine.vars[var][idx] = convert(machine.eval(s.start, idx), var.dtype)
    running = idx[trips > 0]
    if not running.size:
        return
    machine.loop_stack.append(var)
    outer, machine.scale = machine.scale, id(s)
    try:
        machine.exec_block(s.body, running)
    finally:
        machine.scale = outer
        machine.loop_stack.pop()


def _advance(machine: Machine, s: Loop, lanes: np.ndarray) -> bool:
    """Move the loop variable to its next value; False for a step of 0 (endless)."""
    var = s.var
    if s.update is not None:
        machine.vars[var][lanes] = convert(machine.eval(s.update, lanes), var.dtype)
        return True
    step = _launch_constant(machine, s.step)
    if step is None:
        step = machine.eval(s.step, lanes)
        if (step == 0).any():
            return False
    elif step == 0:
        return False
    values = machine.vars[var]
    with np.errstate(over="ignore"):
        if lanes.size == machine.total:   # every lane: in place (a grid-stride loop's step)
            np.add(values, step, out=values, casting="unsafe")
        else:
            values[lanes] = values[lanes] + step
    return True


def _launch_constant(machine: Machine, e: Expr):
    """The value of an expression of launch constants alone (literals, parameters,
    blockDim, gridDim), computed once per run, or None for one that reads anything
    else (a grid-stride loop's `blockDim.x * gridDim.x` is evaluated once, not per
    iteration)."""
    key = id(e)
    if key not in machine._constants:
        machine._constants[key] = (e, machine.eval(e, np.zeros(1, np.int64))[0]) \
            if _constant(e, machine.special) else (e, None)
    return machine._constants[key][1]


def _constant(x: Expr, special) -> bool:
    """Whether `x` reads launch constants alone (no variable, none of `special`). (Not a
    closure over the machine: a recursive closure is a cycle, which would keep the machine's
    per-thread arrays alive until the cycle collector ran: 51 runs' state at once, 312 MB, in
    the check of a 65,536-block grid-stride reduction.)"""
    if x.op in (Op.VAR, Op.COMPONENT, Op.LOCAL_READ):
        return False
    if x.op is Op.SPECIAL and x.arg in special:
        return False
    return all(_constant(c, special) for c in x.src)


def _closed_form_trips(machine: Machine, s: Loop, idx: np.ndarray, start: np.ndarray | None = None
                       ) -> np.ndarray | None:
    """Trip counts of `for (v = a; v < b; v += c)` (or <=, >, >=) without iterating
    (from `start`, the variable's values now, instead of a: the trips left).

    None when the loop has another shape, or when its variable could wrap around.
    """
    if not s.counted:
        return None
    compared = promote(s.var.dtype, s.cond.src[1].dtype)
    stop = convert(machine.eval(s.cond.src[1], idx), compared).astype(np.int64)
    begin = machine.eval(s.start, idx) if start is None else start
    return trip_count(s.cond.op, begin.astype(np.int64), stop,
                      machine.eval(s.step, idx).astype(np.int64), s.do_while, s.var.dtype,
                      compared)


def _too_many(var: Var, count: int) -> str:
    """Why a counted loop is not run: more iterations than the interpreter runs."""
    return (f"{loop_label(var.name)} runs {count:,} iterations in one entry, more than the "
            f"{MAX_LOOP_ITERATIONS:,} the interpreter runs one by one")


def _limit_note(ceiling: int) -> str:
    """Why a loop stopped at `ceiling` iterations, when that is run()'s loop_limit."""
    if ceiling == MAX_LOOP_ITERATIONS:
        return ""
    return (f" (the limit for one entry of a loop whose end has no closed form, "
            f"loop_limit or `--loop-limit`, is {ceiling:,})")


def _guard_contexts(body: tuple, guards: Mapping[int, tuple], ctx: tuple = (),
                    inner: bool = False) -> dict:
    """{id of each access in `body`: (the ids of the guards (PartialRun.guards) around it,
    whether a loop inside the body holds it)}."""
    out = {}
    for x in body:
        if isinstance(x, If) and id(x) in guards:
            out.update(_guard_contexts(x.then, guards, ctx + (id(x),), inner))
        elif isinstance(x, (Load, Store)):
            out[id(x)] = (ctx, inner)
        else:
            for field_name in getattr(x, "BODIES", ()):
                out.update(_guard_contexts(getattr(x, field_name), guards, ctx,
                                           inner or isinstance(x, Loop)))
    return out


def affine_interval(op: Op, d0: np.ndarray, slope: np.ndarray, last: np.ndarray):
    """The iterations k in [0, last] where `d0 + k * slope op 0` holds, as (first, last)
    arrays (first > last: none); op one of <, <=, >, >=, ==."""
    if op is Op.EQ:
        a_first, a_last = affine_interval(Op.LE, d0, slope, last)
        b_first, b_last = affine_interval(Op.GE, d0, slope, last)
        return np.maximum(a_first, b_first), np.minimum(a_last, b_last)
    if op is Op.LT:     # integers: d < 0 is d + 1 <= 0
        return affine_interval(Op.LE, d0 + 1, slope, last)
    if op is Op.GT:     # d > 0 is -d + 1 <= 0
        return affine_interval(Op.LE, 1 - d0, -slope, last)
    if op is Op.GE:     # d >= 0 is -d <= 0
        return affine_interval(Op.LE, -d0, -slope, last)
    # d0 + k * slope <= 0
    first, end = np.zeros_like(d0), last.copy()
    flat = slope == 0
    end[flat & (d0 > 0)] = -1
    up, down = slope > 0, slope < 0
    end[up] = np.minimum(end[up], (-d0[up]) // slope[up])            # k <= -d0 / slope
    first[down] = np.maximum(0, -((-d0[down]) // (-slope[down])))    # k >= d0 / -slope
    return first, end

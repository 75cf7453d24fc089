"""Structured control flow from an entry's blocks: if/else at merge points, loops as counted `for`
loops where the PTX counts, else do-while loops under a flag."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kernels_ir import SourceLoc
from kernels_ir.dtypes import i64, u64
from kernels_ir.errors import counter_name, located
from kernels_ir.expr import Expr, cast, const, select

from . import cfg
from .operands import _writes
from .parse import PtxError
from .values import (Address, _c_name, Choice, _FLIPPED, _IMMEDIATE, _INT_STEP_TYPES, _NEGATED,
                     _negated, retype, _TYPES)

if TYPE_CHECKING:
    from .lower import Lowering


_SINKS = ("<continue>", "<break>", "<return>", "<sink>")   # where a region's paths end
# the refusal of as_built's pseudo-instructions outside a loop this lowering counts
COUNTED_ONLY = "a loop's iteration read outside a counted loop"


def sequence(lw: Lowering, b: str, stop: str, loop) -> None:
    """Emit the blocks from `b` until the path reaches `stop` (or ends)."""
    while b != stop:
        if b in lw.loops and (loop is None or loop.header != b):
            inner = lw.loops[b]
            _loop(lw, inner)
            b = _after_loop(lw, inner, loop)
            if b is None:
                return
            continue
        if b == cfg.EXIT:
            return
        block = lw.blocks[b]
        for inst in block.insts:
            with located(lw._access_loc(inst, lw._loc(inst))):
                lw._instruction(inst)
        if b in lw.counted_latches:
            return   # the end of an iteration: the loop's own condition decides
        if block.cond is None:
            nxt = block.taken if block.taken is not None else block.fall
            if _special(lw, nxt, loop, block):
                return
            b = nxt
            continue
        merge = _merge(lw, b, loop)
        with located(lw._loc(block.branch)):
            cond = lw._predicate(block.cond, block.branch)
            leaves = _leaves(lw, block.taken, loop), _leaves(lw, block.fall, loop)
            if leaves[0] != leaves[1]:
                # one side goes straight to the kernel's end: its threads exit here, so a
                # barrier the others reach later waits only for them, as the hardware's
                # does (`if (i < n) { ... __syncthreads(); ... }`, llm.c's `if (ty >= 8)
                # return;` before a barrier)
                with lw.k.if_(cond if leaves[0] else _negated(cond)):
                    lw.k.return_()
                _path(lw, block.fall if leaves[0] else block.taken, merge, loop, block)
            elif _ends(lw, block.taken, merge, loop) and \
                    not _ends(lw, block.fall, merge, loop):
                # `@%p bra AFTER` around a block: `if (!p) { block }`
                with lw.k.if_(_negated(cond)):
                    _path(lw, block.fall, merge, loop, block)
            else:
                with lw.k.if_(cond):
                    _path(lw, block.taken, merge, loop, block)
                if not _ends(lw, block.fall, merge, loop):
                    with lw.k.else_():
                        _path(lw, block.fall, merge, loop, block)
        b = merge
        if b in _SINKS:
            return


def _after_loop(lw: Lowering, inner, loop) -> str | None:
    """Where the code goes on after `inner` (None: the path ends here). A loop with one
    exit goes on there; with several, its flag says which (-k: exit k), and each exit's
    path runs up to where they meet again."""
    if len(inner.exits) == 1:
        e = inner.exits[0]
        if _special(lw, e, loop, None) if loop is not None else e == cfg.EXIT:
            return None
        return e
    merge = _merge(lw, inner.header, loop)
    flag = lw.flags[inner.header]
    for k, e in enumerate(inner.exits):
        if e == merge:
            continue
        with lw.k.if_(flag == -k):
            _path(lw, e, merge, loop, None)
    return None if merge in _SINKS or merge == cfg.EXIT else merge


def _path(lw: Lowering, b: str, merge: str, loop, block) -> None:
    """One side of a branch, up to the merge point."""
    if _special(lw, b, loop, block):
        return
    sequence(lw, b, merge, loop)


def _leaves(lw: Lowering, b: str | None, loop) -> bool:
    """Whether `b`, outside every loop, goes straight to the kernel's end (through blocks
    with no instruction and no condition)."""
    seen = set()
    while loop is None and b is not None and b not in seen:
        if b == cfg.EXIT:
            return True
        seen.add(b)
        block = lw.blocks.get(b)
        if block is None or block.insts or block.cond is not None:
            return False
        b = block.taken if block.taken is not None else block.fall
    return False


def _ends(lw: Lowering, b: str, merge: str, loop) -> bool:
    """Whether a branch side does nothing (it goes straight to the merge point)."""
    return b == merge and not (loop is not None and (b == loop.header or
                                                     b not in loop.body))


def _special(lw: Lowering, target: str, loop, block) -> bool:
    """Emit a jump that leaves the current region (continue, break, return); True if
    `target` was one."""
    if loop is not None and target == loop.header:
        lw.k.assign(lw.flags[loop.header], 1)
        return True
    if loop is not None and target not in loop.body:
        if target == cfg.EXIT:
            lw.k.return_()
            return True
        if target not in loop.exits:
            raise PtxError(f"a branch leaves two loops at once (to {target}): not "
                           "lowered yet")
        lw.k.assign(lw.flags[loop.header], -loop.exits.index(target))
        return True
    return False


def _merge(lw: Lowering, b: str, loop) -> str:
    """Where the two sides of `b`'s branch meet again: its immediate post-dominator in
    the region (the loop's body, or the entry), or a virtual end."""
    key = loop.header if loop else None
    if key not in lw.merges:
        if loop is None:
            nodes = [n for n in lw.blocks]
            sink_of = lambda s: "<return>" if s == cfg.EXIT else None
        else:
            nodes = list(loop.body)
            sink_of = lambda s: "<continue>" if s == loop.header else \
                ("<break>" if s not in loop.body else None)
        lw.merges[key] = cfg.merge_points(lw.blocks, nodes, sink_of)
    m = lw.merges[key].get(b)
    if m is None or m == "<return>" and loop is None:
        return cfg.EXIT
    return m


def _loop(lw: Lowering, loop) -> None:
    """A natural loop as a do-while: each path through its body sets its flag (1: the
    next iteration runs, 0: it leaves); a counted one (_counted) as a loop of its trip
    count, its induction registers expressions of the iteration."""
    with located(_loop_loc(lw, loop)):
        counted = _counted(lw, loop)
        if counted is not None:
            _counted_loop(lw, loop, *counted)
        else:
            _flag_loop(lw, loop)


def _loop_loc(lw: Lowering, loop) -> SourceLoc:
    """Where a loop is in the source: the first line of its header's and back edges'
    instructions (in the function the header's first instruction stands in) whose source is
    a loop statement (`for`, `while`: nvcc's header may start at a later line, a `while
    (true)`'s at its `break`'s); else the earlier of the header's first line and the line of
    the branch back to it; never a line nvcc sank into the loop from before it (`tx =
    threadIdx.x` rematerialized inside), nor a nested loop's."""
    head = lw.blocks[loop.header]
    first = head.insts[0] if head.insts else head.branch
    if first is None:
        return SourceLoc("<ptx>", 0)
    loc = lw._loc(first)
    mine = lambda x: x.file == loc.file and x.calls == loc.calls and x.line > 0  # noqa: E731
    latches = [b for b in loop.body if loop.header in lw.blocks[b].successors()]
    # (the header's and the latches' own instructions: a nested loop's lines are in the
    # body, not in these)
    own = sorted({(x.line, x.column or 0): x for b in {loop.header, *latches}
                  for inst in (*lw.blocks[b].insts, lw.blocks[b].branch)
                  if inst is not None and mine(x := lw._loc(inst))}.items())
    for _, x in own:
        if _LOOP_STATEMENT.match(lw._source_line(x.file, x.line) or ""):
            return x
    back = [lw._loc(lw.blocks[b].branch) for b in latches if lw.blocks[b].branch is not None]
    return min([loc, *[x for x in back if mine(x)]], key=lambda x: (x.line, x.column or 0))


# a source line that is a loop statement (C++ and Python alike)
# (not a do-while's closing `} while (...)`: such a loop is named by its first statement,
# nvcc's header line, the `do {` line having no instruction)
_LOOP_STATEMENT = re.compile(r"\s*(for|while|do)\b")


def _counted(lw: Lowering, loop):
    """(latch, steps, trips) of a loop nvcc's rotated form makes countable, or None: one
    block branches back to the header and is the only way out, its branch tests a
    `setp` of an induction register against a value the loop does not change; each
    induction register (`steps`: register -> its step, a constant or a register the
    loop does not change: a grid-stride loop's) is written in the loop only by one
    unguarded `add`/`sub` in a block every iteration passes (it dominates the latch),
    outside the loops inside this one. `trips(bases, steps)`: the trip count, an i64
    expression of the registers' values at entry and of the steps (i64), and the
    conditions the GPU's loop needs to end at all (located assertions)."""
    latches = [b for b in loop.body if loop.header in lw.blocks[b].successors()]
    if len(latches) != 1 or len(loop.exits) != 1:
        return None
    latch = latches[0]
    block = lw.blocks[latch]
    if block.cond is None or any(s not in loop.body for b in loop.body if b != latch
                                 for s in lw.blocks[b].successors()):
        return None
    if block.taken == loop.header and block.fall not in loop.body:
        going = not block.cond.startswith("!")     # continue when the predicate holds
    elif block.fall == loop.header and block.taken not in loop.body:
        going = block.cond.startswith("!")
    else:
        return None
    names = lw.entry.names
    writes: dict[str, list] = {}
    for b in loop.body:
        for n, inst in enumerate(lw.blocks[b].insts):
            for r in _writes(inst, names):
                writes.setdefault(r, []).append((b, n, inst))
    steps, where = {}, {}
    # blocks of loops inside this one: a step there runs many times an iteration
    nested = {x for inner in lw.loops.values() if inner.header != loop.header and
              inner.body < loop.body for x in inner.body}
    for r, ws in writes.items():
        if len(ws) != 1 or ws[0][0] in nested:
            continue
        b, n, inst = ws[0]
        if not (inst.name in ("add", "sub") and inst.guard is None and
                len(inst.operands) == 3 and inst.operands[0] == inst.operands[1] == r and
                inst.opcode[-1] in _INT_STEP_TYPES and cfg.dominates(lw.idom, b, latch) and
                not isinstance(lw.regs.get(r), Choice) and r in lw.local_regs):
            continue
        by = inst.operands[2]
        if _IMMEDIATE.fullmatch(by):
            step = int(by, 0) * (-1 if inst.name == "sub" else 1)
            if step:
                steps[r], where[r] = step, (b, n)
        elif by.startswith("%") and by not in writes and inst.name == "add" and \
                not isinstance(lw.regs.get(by), (Address, Choice)):
            steps[r], where[r] = (by, inst.opcode[-1]), (b, n)   # a run-time step
    test = [(n, inst) for n, inst in enumerate(block.insts)
            if block.cond.lstrip("!") in _writes(inst, names)]
    pred = block.cond.lstrip("!")
    if not steps or len(writes.get(pred, ())) != 1 or len(test) != 1:
        return None
    at, setp = test[0]
    if setp.name != "setp" or setp.guard is not None or len(setp.opcode) != 3 or \
            len(setp.operands) != 3 or setp.opcode[2] not in _INT_STEP_TYPES:
        return None
    cmp, ctype = setp.opcode[1], setp.opcode[2]
    a, b = setp.operands[1], setp.operands[2]
    offset = None    # the test's register is the counter plus this (nvcc's unrolled form)
    if a in steps and b not in writes:
        iv, end = a, b
    elif b in steps and a not in writes:
        iv, end, cmp = b, a, _FLIPPED.get(cmp)
    else:
        found = _offset_counter(lw, a, b, writes, steps, where, latch, at, nested)
        if found is None:
            return None
        iv, end, flip, offset, after = found
        cmp = _FLIPPED.get(cmp) if flip else cmp
    if not going:
        cmp = _NEGATED.get(cmp)
    rank = {"lt": "lt", "lo": "lt", "le": "le", "ls": "le", "gt": "gt", "hi": "gt",
            "ge": "ge", "hs": "ge", "ne": "ne"}.get(cmp)
    step = steps[iv]
    if rank is None or isinstance(step, int) and (
            rank in ("lt", "le") and step < 0 or rank in ("gt", "ge") and step > 0):
        return None    # it runs until the register wraps: not a count
    if offset is not None and rank != "ne":
        return None    # (an ordered test of a sum may wrap where the counter does not)
    if offset is None:
        # whether the test reads the register after this iteration's step
        sb, sn = where[iv]
        after = int(sb != latch or sn < at)
    signed = ctype.startswith("s")

    def trips(bases: dict, by: dict):
        """(the iterations, at least 1 (a do-while): an i64 expression; [(condition,
        what it means)] the GPU's loop needs to end), or None."""
        value = bases[iv]
        stop = lw.value(end, _TYPES[ctype])
        if offset is not None:
            moved = lw.value(offset, _TYPES[ctype])
            if isinstance(value, Address) or isinstance(stop, Address) or \
                    isinstance(moved, Address):
                return None
            # `counter + x != end` is `counter != end - x`, modulo the test's width
            stop = retype(stop, _TYPES[ctype]) - retype(moved, _TYPES[ctype])
        if isinstance(value, Address) or isinstance(stop, Address):
            if not (isinstance(value, Address) and isinstance(stop, Address) and
                    (value.space, value.base) == (stop.space, stop.base)):
                return None
            value, stop = value.offset, stop.offset
        as64 = lambda e: cast(retype(e, _TYPES[ctype]), i64) if signed else \
            cast(cast(retype(e, _TYPES[ctype]), u64), i64)   # noqa: E731
        one, zero, s = const(1, i64), const(0, i64), by[iv]
        # the value the test compares before iteration m (m >= 1): first + m * step
        first = as64(value) + const(after - 1, i64) * s
        checks = []
        if rank != "ne":
            up = rank in ("lt", "le")
            gap = as64(stop) - first if up else first - as64(stop)
            d = s if up else zero - s
            if not isinstance(step, int):
                checks.append((d > zero, f"the loop's step {step[0]} goes toward its "
                                         f"end {end} (otherwise the GPU loops until the "
                                         "counter wraps)"))
            d = select(d > zero, d, one)
            if rank in ("lt", "gt"):
                return select(gap > d, (gap + d - one) // d, one), checks
            return select(gap >= d, gap // d + one, one), checks
        gap = as64(stop) - first
        safe = select(s == zero, one, s)
        meets = (s != zero) & (gap % safe == zero) & (gap // safe >= one)
        checks.append((meets, f"the loop's counter {iv} meets its end {end} (otherwise "
                              "the GPU loops until it wraps)"))
        return select(meets, gap // safe, one), checks
    return latch, steps, trips


def _offset_counter(lw: Lowering, a: str, b: str, writes: dict, steps: dict, where: dict,
                    latch: str, at: int, nested: set):
    """(counter, end, flipped, x, after) where the latch's test compares a register the
    loop sets once, every iteration, to an induction register plus a value it does not
    change (`add %r50, %r12, %r58; setp.ne %p, %r50, 0`: nvcc's loop unrolled by 4),
    with a value it does not change: `after` whether the sum reads the counter after
    its step. None otherwise."""
    for tested, other, flipped in ((a, b, False), (b, a, True)):
        ws = writes.get(tested, ())
        if other in writes or len(ws) != 1:
            continue
        wb, wn, add = ws[0]
        if add.name != "add" or add.guard is not None or len(add.operands) != 3 or \
                add.opcode[-1] not in _INT_STEP_TYPES or wb in nested or \
                not cfg.dominates(lw.idom, wb, latch) or (wb == latch and wn > at):
            continue
        x, y = add.operands[1], add.operands[2]
        counter, moved = (x, y) if x in steps else (y, x) if y in steps else (None, None)
        if counter is None or moved in writes or moved == counter:
            continue
        sb, sn = where[counter]
        if sb == wb:
            after = int(sn < wn)
        elif cfg.dominates(lw.idom, sb, wb):
            after = 1
        elif cfg.dominates(lw.idom, wb, sb):
            after = 0
        else:
            continue
        return counter, other, flipped, moved, after
    return None


def _counted_loop(lw: Lowering, loop, latch: str, steps: dict, trips) -> None:
    """The loop as `for (k = 0; k < trips; k++)` (a do-while), each induction register
    its value at entry plus k steps, so that the analyses see its trip count and its
    addresses as the affine functions they are (the iterations need not run one by one);
    after it, each register holds its value at the loop's end."""
    held = {r: lw.regs[r] for r in steps}
    bases, by = {}, {}
    for r, local in held.items():
        if isinstance(local, Address):
            bases[r] = Address(local.space, local.base, lw.k.let(
                lw._fresh_name(_c_name(r) + "_0"), local.offset), local.origin)
        else:
            bases[r] = lw.k.let(lw._fresh_name(_c_name(r) + "_0"), local)
        step = steps[r]
        by[r] = const(step, i64) if isinstance(step, int) else lw.k.let(
            lw._fresh_name(_c_name(step[0]) + "_step"),
            cast(lw.integer(step[0], _TYPES[step[1]]), i64))
    found = trips(bases, by)
    if found is None:   # (the bases declared for it stay unused)
        _flag_loop(lw, loop)
        return
    count, checks = found
    for cond, text in checks:
        lw.k.assert_(cond, text)
    n = lw.k.let(lw._fresh_name("trips"), count, i64)
    lw.counted_latches.add(latch)
    blocks = _reunrolled(lw, loop)
    try:
        if blocks is None:
            with lw.k.loop(_loop_name(lw, loop), 0, lambda k: k < n, do_while=True,
                           dtype=i64) as k:
                _iteration(lw, loop, bases, by, k, n)
        else:
            # as ptxas built it (as_built's `smemsim_unrolled`): each lane's first
            # F = n - n % U iterations in blocks of U, then a block of U/2 iterations
            # where the rest has that bit, ..., then one. A warp makes a block's
            # accesses once if any lane runs it, so lanes of different trip counts
            # make more than the PTX's one loop would
            name = _loop_name(lw, loop)
            whole = lw.k.let(lw._fresh_name("blocked"), n - n % blocks, i64)
            with lw.k.loop(name, 0, lambda k: k < whole, dtype=i64) as k:
                _iteration(lw, loop, bases, by, k, n)
            size = blocks // 2
            while size:
                rest = n - whole
                with lw.k.if_((rest & size) != 0):
                    first = whole + (rest & -2 * size)
                    for j in range(size):
                        k = lw.k.let(lw._fresh_name(f"{name}_k"), first + j, i64)
                        _iteration(lw, loop, bases, by, k, n)
                size //= 2
    finally:
        lw.counted_latches.discard(latch)
        for r, local in held.items():
            lw.regs[r] = local
            lw.inductions.discard(r)
    for r, local in held.items():
        final = _moved(bases[r], n, by[r])
        if isinstance(local, Address):
            lw.k.assign(local.offset, retype(final.offset, local.offset.dtype))
        else:
            lw.k.assign(local, retype(final, local.dtype))


def _iteration(lw: Lowering, loop, bases: dict, by: dict, k: Expr, n: Expr) -> None:
    """The body of a counted loop at its iteration `k` (of `n`): each induction register
    its value `k` steps on."""
    for r, base in bases.items():
        lw.regs[r] = _moved(base, k, by[r])
        lw.inductions.add(r)
    lw.counting.append((k, n))
    try:
        sequence(lw, loop.header, "<sink>", loop)
    finally:
        lw.counting.pop()


def _reunrolled(lw: Lowering, loop) -> int | None:
    """The blocks of iterations ptxas unrolls the loop into (as_built's
    `smemsim_unrolled.b32 U` at its head), or None."""
    return next((int(inst.operands[0]) for inst in lw.blocks[loop.header].insts
                 if inst.name == "smemsim_unrolled"), None)


def _loop_name(lw: Lowering, loop) -> str:
    """The name of a loop's iteration count (k = 0, 1, ... whatever the source's
    variable counts): `iter_l37` for the loop at the user's line 37 (the line of its
    branch back, nvcc's `for (...)` line, else its header's first located
    instruction), unique in the kernel (`iter_l37_2`); `iter` where none is located."""
    for name in sorted(loop.body):
        branch = lw.blocks[name].branch
        if branch is not None and branch.loc is not None and \
                loop.header in lw.blocks[name].successors():
            line = lw._loc(branch).line
            if line > 0:
                return lw._fresh_name(counter_name(line))
    for name in [loop.header, *sorted(loop.body - {loop.header})]:
        for inst in lw.blocks[name].insts:
            line = lw._loc(inst).line if inst.loc is not None else 0
            if line > 0:   # (nvcc's `.loc 1 0 0` names no line)
                return lw._fresh_name(counter_name(line))
    return lw._fresh_name(counter_name(None))


def _flag_loop(lw: Lowering, loop) -> None:
    """The loop as a do-while of its flag, which each path through the body sets."""
    if _reunrolled(lw, loop) is not None:
        # (ptxas's blocks of iterations need the trip count)
        first = lw.blocks[loop.header].insts[0]
        raise PtxError(f"{COUNTED_ONLY}: PTX line {first.line}")
    flag = lw.flags[loop.header]
    lw.k.assign(flag, 0)
    with lw.k.loop(_loop_name(lw, loop), 0, lambda _: flag > 0, do_while=True):
        sequence(lw, loop.header, "<sink>", loop)


def _moved(base, k: Expr, step: Expr):
    """A register's value `k` steps (an i64 expression each) on from `base` (a number or
    an Address)."""
    # (the steps counted in 64 bits, then in the register's type: a negative step of an
    # unsigned register wraps as the hardware's add does)
    delta = cast(k, i64) * step
    if isinstance(base, Address):
        return base.plus(cast(delta, base.offset.dtype))
    return base + cast(delta, base.dtype)

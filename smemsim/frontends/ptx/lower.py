"""One PTX entry to a kernels_ir Kernel (issue #57).

Registers are values: each holds an IR expression (a loaded value is the load's variable),
or an address, `Address(space, base, offset)`, where `base` names a global array parameter
(its index) or the shared window, and `offset` is a byte expression. So an access is at its
exact byte offset and width, as the instruction makes it: every `.shared` variable is a
part of one byte buffer (declaration order, each at its alignment), read through a view of
the access's element type; each pointer parameter is a byte array read through views too.

A register read only in the block that writes it once is substituted into the expressions
that read it; any other (a loop's running value, a value that flows to another block, the
result of a predicated instruction) is a local variable declared at the top. The control
flow is structured back from the graph (smemsim.frontends.ptx.cfg): a conditional branch is
an if/else that rejoins at its merge point, a natural loop a do-while whose paths each say
whether the next iteration runs (a local flag), a `ret` inside a loop a return.

What is not lowered yet is a located refusal naming the PTX line and instruction: the
instructions outside the table below, irreducible graphs, loops with more than one exit.
Nothing is guessed.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections import Counter
from dataclasses import dataclass

from kernels_ir import (MISALIGNED_TEXT, KernelBuilder, KernelError, SourceLoc, blockDim,
                        blockIdx, gridDim, threadIdx)
from kernels_ir.dtypes import bf16, f16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64
from kernels_ir.errors import counter_name, located
from kernels_ir.wgmma import GmmaDescriptor
from kernels_ir.expr import (COMPARE_OPS, Expr, Op, as_expr, bitcast, call, cast, const, lnot,
                             logical_and, logical_or, select, smax, smin)

from . import cfg
from .parse import Entry, Inst, Label, Module, PtxError
from .symbols import local_name
from .wmma import WmmaLowering

_TYPES = {"s8": i8, "u8": u8, "b8": u8, "s16": i16, "u16": u16, "b16": u16, "s32": i32,
          "u32": u32, "b32": u32, "s64": i64, "u64": u64, "b64": u64, "f32": f32, "f64": f64}
_WIDE = {"i16": i32, "u16": u32, "i32": i64, "u32": u64}   # what .wide makes of a type
_IMMEDIATE = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+)")
_INT_STEP_TYPES = ("s32", "u32", "b32", "s64", "u64", "b64")
# a comparison with its operands swapped, and negated (setp's integer comparisons)
_FLIPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne",
            "lo": "hi", "hi": "lo", "ls": "hs", "hs": "ls"}
_NEGATED = {"lt": "ge", "ge": "lt", "le": "gt", "gt": "le", "eq": "ne", "ne": "eq",
            "lo": "hs", "hs": "lo", "ls": "hi", "hi": "ls"}
_HALF_TYPES = ("f16", "bf16", "f16x2", "bf16x2")
_HALF_OPS = {"add": (lambda a, b: a + b, 2), "sub": (lambda a, b: a - b, 2),
             "mul": (lambda a, b: a * b, 2), "fma": (lambda a, b, c: a * b + c, 3),
             "neg": (lambda a: -a, 1), "abs": (lambda a: select(a < 0, -a, a), 1),
             "min": (lambda a, b: smin(a, b), 2), "max": (lambda a, b: smax(a, b), 2),
             "setp": (None, 2)}
_SPECIAL = {"tid": threadIdx, "ntid": blockDim, "ctaid": blockIdx, "nctaid": gridDim}


@dataclass(frozen=True)
class Address:
    """A pointer register: `space` ('global', 'shared' or 'param'), `base` (a parameter's
    index for global and param; None for the shared window) and a byte `offset`."""

    space: str
    base: int | None
    offset: Expr
    origin: str | None = None    # the shared variable it was made from (names the view)

    def plus(self, delta: Expr) -> "Address":
        delta = retype(delta, self.offset.dtype)
        at_start = self.offset.op is Op.CONST and self.offset.arg == 0
        return Address(self.space, self.base, delta if at_start else self.offset + delta,
                       self.origin)


@dataclass(frozen=True)
class Choice:
    """A pointer register holding one of several arrays' addresses (`selp.b64 %rd5, %rd1,
    %rd2, %p1`, or a register each branch points into another array: moderngpu's merge
    reads a_keys or b_keys through one pointer; `mask ? mask + i : nullptr`). `index` says
    which of `sides` (a side of space 'null': a null pointer). Offsets move every side
    alike; an access through it is lowered once per side, under `index == side` (on the
    GPU one instruction; here one site a side at its line, each run by the threads that
    chose it: the same where a warp's threads agree)."""

    index: Expr
    sides: tuple

    def plus(self, delta: Expr) -> "Choice":
        return Choice(self.index, tuple(x.plus(delta) for x in self.sides))


def _either(cond: Expr, a: Address, b: Address) -> Choice:
    """`cond ? a : b` of two arrays' addresses."""
    return Choice(select(cond, const(0, i32), const(1, i32)), (a, b))


# the instructions that take a Choice: offsets and moves keep it one, loads and stores read
# through it, a comparison with null tests it; any other reading of one is refused
_CHOICE_OPS = frozenset({"add", "sub", "mad", "mov", "cvta", "cvt", "ld", "st", "selp",
                         "setp"})


@dataclass(frozen=True)
class Launch:
    """What the host side says: grid, block, dynamic shared bytes, and per parameter its
    name, and for pointers the length in bytes (expressions of the scalar parameters)."""

    grid: tuple
    block: tuple
    dynamic_smem: int = 0
    names: tuple[str, ...] = ()
    lengths: dict | None = None        # parameter name -> bytes (an int or a C expression
    #                                    of parameter names, evaluated by kernels_ir)
    defaults: dict | None = None       # scalar parameter values
    types: dict | None = None          # scalar parameter name -> its C type (a DType)
    loc: SourceLoc | None = None       # where the host code launches it
    textures: dict | None = None       # texture parameter name -> "WIDTH[,HEIGHT]" (texels;
    #                                    C expressions of parameter names: --texture)
    tensor_maps: dict | None = None    # CUtensorMap parameter name -> its --tensor-map text
    declared: SourceLoc | None = None  # where the source declares the kernel
    elements: dict | None = None       # pointer parameter name -> its element's C type
    nulls: tuple[str, ...] = ()        # pointer parameters the host passes null (--null)


@dataclass(frozen=True)
class TensorMapRef:
    """A register holding the address of a CUtensorMap parameter (what a TMA copy names)."""

    tensor_map: object   # kernels_ir.TensorMap


def lower(module: Module, entry_name: str, launch: Launch, kernel_name: str | None = None):
    """The Kernel of one entry of `module`, launched as `launch` says."""
    entry = module.entries.get(entry_name)
    if entry is None:
        raise PtxError(f"the PTX has no entry '{entry_name}' (it has: "
                       f"{', '.join(module.entries) or 'none'})")
    entry = _grid_syncs(module, _param_pointers(entry))
    # a first walk finds the pointer parameters some store writes (a const pointer's array
    # is an input: the builder refuses stores into it)
    stored = _Lowering(module, entry, launch, kernel_name, None).run().stored
    kernel = _Lowering(module, entry, launch, kernel_name, stored).run().builder.build()
    # (where the source declares the kernel, as the host side read it: reports show it)
    return dataclasses.replace(kernel, loc=launch.declared) if launch.declared else kernel


class _Lowering(WmmaLowering):
    """The walk over an entry's instructions, building the IR as it goes."""

    def __init__(self, module: Module, entry: Entry, launch: Launch, name,
                 stored: set | None):
        self.module, self.entry, self.launch = module, entry, launch
        self.k = self.builder = KernelBuilder(name or entry.name)
        self.name = name
        self.regs: dict[str, object] = {}
        self.call_args: dict[str, object] = {}   # a call's parameter -> what was stored
        self.stored_into = stored       # pointer parameters some store writes (None: any)
        self.stored: set[int] = set()
        self.params: dict[str, object] = {}
        self.globals: dict[int, object] = {}
        self.views: dict[tuple, object] = {}
        self.shared_at: dict[str, int] = {}
        self.shared_bytes: dict[str, int | None] = {}   # each variable's (None: `extern`)
        self.statements: dict[tuple[str, int], str | None] = {}   # _statement_text's
        self.window = self.dynamic = None
        self.externs: set[str] = set()
        self.dynamic_base = 0
        self.names_used: set[str] = set()
        self.flat_bases: dict = {}
        self.local_vars: set = set()      # the Vars of registers' locals
        self.reads_memo: dict[int, tuple] = {}
        self.local_read: bool | None = None   # whether any instruction reads the stack
        self.stacks: dict = {}            # a `.local` array -> its per-thread byte array
        self.sources: dict = {}           # a source file's lines (for accesses' columns)

    # ---------------------------------------------------------------- set-up
    def run(self) -> "_Lowering":
        first = next((i for i in self.entry.body if isinstance(i, Inst)), None)
        # declarations are at the kernel's first line (the PTX's first `.loc`)
        where = self._loc(first) if first is not None else SourceLoc(self.entry.name, 0)
        self.blocks = cfg.blocks(self.entry.body)
        self.entry_block = next(iter(self.blocks))
        self.loops = cfg.loops(self.blocks, self.entry_block)
        self.idom = cfg.immediate_dominators(cfg.graph_of(self.blocks), self.entry_block)
        self.counted_latches: set = set()   # latches of counted loops: their test is the IR's
        self.inductions: set = set()        # registers held as expressions of a loop variable
        self.counting: list = []            # (iteration, trips) of the counted loops we are in
        # CUtensorMap parameter (its PTX name; a pointer to one: its position) -> TensorMap
        self.tensor_maps: dict = {}
        with located(where):
            self._declare()
            self._declare_locals()
        self._sequence(self.entry_block, cfg.EXIT, None)
        la = self.launch
        with located(la.loc or where):
            dynamic = as_expr(la.dynamic_smem)
            if self.dynamic is None and not (dynamic.op is Op.CONST and dynamic.arg == 0):
                # bytes the launch asks for that no extern array names: they still take
                # room (occupancy), as for the C++ frontend
                self.dynamic = self.k.dynamic_shared(self._fresh_name("dynamic_smem"), u8)
            self.k.launch(grid=la.grid, block=la.block, dynamic_smem=la.dynamic_smem)
            if la.defaults:
                types = {p.arg: p.dtype for p in self.params.values()}
                self.k.defaults(**{n: _as_bits(v, types.get(n))
                                   for n, v in la.defaults.items()})
        return self

    # ---------------------------------------------------------------- structure
    def _sequence(self, b: str, stop: str, loop) -> None:
        """Emit the blocks from `b` until the path reaches `stop` (or ends)."""
        while b != stop:
            if b in self.loops and (loop is None or loop.header != b):
                inner = self.loops[b]
                self._loop(inner)
                b = self._after_loop(inner, loop)
                if b is None:
                    return
                continue
            if b == cfg.EXIT:
                return
            block = self.blocks[b]
            for inst in block.insts:
                with located(self._access_loc(inst, self._loc(inst))):
                    self._instruction(inst)
            if b in self.counted_latches:
                return   # the end of an iteration: the loop's own condition decides
            if block.cond is None:
                nxt = block.taken if block.taken is not None else block.fall
                if self._special(nxt, loop, block):
                    return
                b = nxt
                continue
            merge = self._merge(b, loop)
            with located(self._loc(block.branch)):
                cond = self._predicate(block.cond, block.branch)
                leaves = self._leaves(block.taken, loop), self._leaves(block.fall, loop)
                if leaves[0] != leaves[1]:
                    # one side goes straight to the kernel's end: its threads exit here, so a
                    # barrier the others reach later waits only for them, as the hardware's
                    # does (`if (i < n) { ... __syncthreads(); ... }`, llm.c's `if (ty >= 8)
                    # return;` before a barrier)
                    with self.k.if_(cond if leaves[0] else _negated(cond)):
                        self.k.return_()
                    self._path(block.fall if leaves[0] else block.taken, merge, loop, block)
                elif self._ends(block.taken, merge, loop) and \
                        not self._ends(block.fall, merge, loop):
                    # `@%p bra AFTER` around a block: `if (!p) { block }`
                    with self.k.if_(_negated(cond)):
                        self._path(block.fall, merge, loop, block)
                else:
                    with self.k.if_(cond):
                        self._path(block.taken, merge, loop, block)
                    if not self._ends(block.fall, merge, loop):
                        with self.k.else_():
                            self._path(block.fall, merge, loop, block)
            b = merge
            if b in _SINKS:
                return

    def _after_loop(self, inner, loop) -> str | None:
        """Where the code goes on after `inner` (None: the path ends here). A loop with one
        exit goes on there; with several, its flag says which (-k: exit k), and each exit's
        path runs up to where they meet again."""
        if len(inner.exits) == 1:
            e = inner.exits[0]
            if self._special(e, loop, None) if loop is not None else e == cfg.EXIT:
                return None
            return e
        merge = self._merge(inner.header, loop)
        flag = self.flags[inner.header]
        for k, e in enumerate(inner.exits):
            if e == merge:
                continue
            with self.k.if_(flag == -k):
                self._path(e, merge, loop, None)
        return None if merge in _SINKS or merge == cfg.EXIT else merge

    def _path(self, b: str, merge: str, loop, block) -> None:
        """One side of a branch, up to the merge point."""
        if self._special(b, loop, block):
            return
        self._sequence(b, merge, loop)

    def _leaves(self, b: str | None, loop) -> bool:
        """Whether `b`, outside every loop, goes straight to the kernel's end (through blocks
        with no instruction and no condition)."""
        seen = set()
        while loop is None and b is not None and b not in seen:
            if b == cfg.EXIT:
                return True
            seen.add(b)
            block = self.blocks.get(b)
            if block is None or block.insts or block.cond is not None:
                return False
            b = block.taken if block.taken is not None else block.fall
        return False

    def _ends(self, b: str, merge: str, loop) -> bool:
        """Whether a branch side does nothing (it goes straight to the merge point)."""
        return b == merge and not (loop is not None and (b == loop.header or
                                                         b not in loop.body))

    def _special(self, target: str, loop, block) -> bool:
        """Emit a jump that leaves the current region (continue, break, return); True if
        `target` was one."""
        if loop is not None and target == loop.header:
            self.k.assign(self.flags[loop.header], 1)
            return True
        if loop is not None and target not in loop.body:
            if target == cfg.EXIT:
                self.k.return_()
                return True
            if target not in loop.exits:
                raise PtxError(f"a branch leaves two loops at once (to {target}): not "
                               "lowered yet")
            self.k.assign(self.flags[loop.header], -loop.exits.index(target))
            return True
        return False

    def _merge(self, b: str, loop) -> str:
        """Where the two sides of `b`'s branch meet again: its immediate post-dominator in
        the region (the loop's body, or the entry), or a virtual end."""
        key = loop.header if loop else None
        if key not in self.merges:
            if loop is None:
                nodes = [n for n in self.blocks]
                sink_of = lambda s: "<return>" if s == cfg.EXIT else None
            else:
                nodes = list(loop.body)
                sink_of = lambda s: "<continue>" if s == loop.header else \
                    ("<break>" if s not in loop.body else None)
            self.merges[key] = cfg.merge_points(self.blocks, nodes, sink_of)
        m = self.merges[key].get(b)
        if m is None or m == "<return>" and loop is None:
            return cfg.EXIT
        return m

    def _loop(self, loop) -> None:
        """A natural loop as a do-while: each path through its body sets its flag (1: the
        next iteration runs, 0: it leaves); a counted one (_counted) as a loop of its trip
        count, its induction registers expressions of the iteration."""
        head = self.blocks[loop.header]
        first = head.insts[0] if head.insts else head.branch
        with located(self._loc(first) if first is not None else SourceLoc("<ptx>", 0)):
            counted = self._counted(loop)
            if counted is not None:
                self._counted_loop(loop, *counted)
            else:
                self._flag_loop(loop)

    def _counted(self, loop):
        """(latch, steps, trips) of a loop nvcc's rotated form makes countable, or None: one
        block branches back to the header and is the only way out, its branch tests a
        `setp` of an induction register against a value the loop does not change; each
        induction register (`steps`: register -> its step, a constant or a register the
        loop does not change: a grid-stride loop's) is written in the loop only by one
        unguarded `add`/`sub` in a block every iteration passes (it dominates the latch),
        outside the loops inside this one. `trips(bases, steps)`: the trip count, an i64
        expression of the registers' values at entry and of the steps (i64), and the
        conditions the GPU's loop needs to end at all (located assertions)."""
        latches = [b for b in loop.body if loop.header in self.blocks[b].successors()]
        if len(latches) != 1 or len(loop.exits) != 1:
            return None
        latch = latches[0]
        block = self.blocks[latch]
        if block.cond is None or any(s not in loop.body for b in loop.body if b != latch
                                     for s in self.blocks[b].successors()):
            return None
        if block.taken == loop.header and block.fall not in loop.body:
            going = not block.cond.startswith("!")     # continue when the predicate holds
        elif block.fall == loop.header and block.taken not in loop.body:
            going = block.cond.startswith("!")
        else:
            return None
        names = self.entry.names
        writes: dict[str, list] = {}
        for b in loop.body:
            for n, inst in enumerate(self.blocks[b].insts):
                for r in _writes(inst, names):
                    writes.setdefault(r, []).append((b, n, inst))
        steps, where = {}, {}
        # blocks of loops inside this one: a step there runs many times an iteration
        nested = {x for inner in self.loops.values() if inner.header != loop.header and
                  inner.body < loop.body for x in inner.body}
        for r, ws in writes.items():
            if len(ws) != 1 or ws[0][0] in nested:
                continue
            b, n, inst = ws[0]
            if not (inst.name in ("add", "sub") and inst.guard is None and
                    len(inst.operands) == 3 and inst.operands[0] == inst.operands[1] == r and
                    inst.opcode[-1] in _INT_STEP_TYPES and cfg.dominates(self.idom, b, latch) and
                    not isinstance(self.regs.get(r), Choice) and r in self.local_regs):
                continue
            by = inst.operands[2]
            if _IMMEDIATE.fullmatch(by):
                step = int(by, 0) * (-1 if inst.name == "sub" else 1)
                if step:
                    steps[r], where[r] = step, (b, n)
            elif by.startswith("%") and by not in writes and inst.name == "add" and \
                    not isinstance(self.regs.get(by), (Address, Choice)):
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
            found = self._offset_counter(a, b, writes, steps, where, latch, at, nested)
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
            stop = self.value(end, _TYPES[ctype])
            if offset is not None:
                moved = self.value(offset, _TYPES[ctype])
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

    def _offset_counter(self, a: str, b: str, writes: dict, steps: dict, where: dict,
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
                    not cfg.dominates(self.idom, wb, latch) or (wb == latch and wn > at):
                continue
            x, y = add.operands[1], add.operands[2]
            counter, moved = (x, y) if x in steps else (y, x) if y in steps else (None, None)
            if counter is None or moved in writes or moved == counter:
                continue
            sb, sn = where[counter]
            if sb == wb:
                after = int(sn < wn)
            elif cfg.dominates(self.idom, sb, wb):
                after = 1
            elif cfg.dominates(self.idom, wb, sb):
                after = 0
            else:
                continue
            return counter, other, flipped, moved, after
        return None

    def _counted_loop(self, loop, latch: str, steps: dict, trips) -> None:
        """The loop as `for (k = 0; k < trips; k++)` (a do-while), each induction register
        its value at entry plus k steps, so that the analyses see its trip count and its
        addresses as the affine functions they are (the iterations need not run one by one);
        after it, each register holds its value at the loop's end."""
        held = {r: self.regs[r] for r in steps}
        bases, by = {}, {}
        for r, local in held.items():
            if isinstance(local, Address):
                bases[r] = Address(local.space, local.base, self.k.let(
                    self._fresh_name(_c_name(r) + "_0"), local.offset), local.origin)
            else:
                bases[r] = self.k.let(self._fresh_name(_c_name(r) + "_0"), local)
            step = steps[r]
            by[r] = const(step, i64) if isinstance(step, int) else self.k.let(
                self._fresh_name(_c_name(step[0]) + "_step"),
                cast(self.integer(step[0], _TYPES[step[1]]), i64))
        found = trips(bases, by)
        if found is None:   # (the bases declared for it stay unused)
            self._flag_loop(loop)
            return
        count, checks = found
        for cond, text in checks:
            self.k.assert_(cond, text)
        n = self.k.let(self._fresh_name("trips"), count, i64)
        self.counted_latches.add(latch)
        blocks = self._reunrolled(loop)
        try:
            if blocks is None:
                with self.k.loop(self._loop_name(loop), 0, lambda k: k < n, do_while=True,
                                 dtype=i64) as k:
                    self._iteration(loop, bases, by, k, n)
            else:
                # as ptxas built it (as_built's `smemsim_unrolled`): each lane's first
                # F = n - n % U iterations in blocks of U, then a block of U/2 iterations
                # where the rest has that bit, ..., then one. A warp makes a block's
                # accesses once if any lane runs it, so lanes of different trip counts
                # make more than the PTX's one loop would
                name = self._loop_name(loop)
                whole = self.k.let(self._fresh_name("blocked"), n - n % blocks, i64)
                with self.k.loop(name, 0, lambda k: k < whole, dtype=i64) as k:
                    self._iteration(loop, bases, by, k, n)
                size = blocks // 2
                while size:
                    rest = n - whole
                    with self.k.if_((rest & size) != 0):
                        first = whole + (rest & -2 * size)
                        for j in range(size):
                            k = self.k.let(self._fresh_name(f"{name}_k"), first + j, i64)
                            self._iteration(loop, bases, by, k, n)
                    size //= 2
        finally:
            self.counted_latches.discard(latch)
            for r, local in held.items():
                self.regs[r] = local
                self.inductions.discard(r)
        for r, local in held.items():
            final = self._moved(bases[r], n, by[r])
            if isinstance(local, Address):
                self.k.assign(local.offset, retype(final.offset, local.offset.dtype))
            else:
                self.k.assign(local, retype(final, local.dtype))

    def _iteration(self, loop, bases: dict, by: dict, k: Expr, n: Expr) -> None:
        """The body of a counted loop at its iteration `k` (of `n`): each induction register
        its value `k` steps on."""
        for r, base in bases.items():
            self.regs[r] = self._moved(base, k, by[r])
            self.inductions.add(r)
        self.counting.append((k, n))
        try:
            self._sequence(loop.header, "<sink>", loop)
        finally:
            self.counting.pop()

    def _reunrolled(self, loop) -> int | None:
        """The blocks of iterations ptxas unrolls the loop into (as_built's
        `smemsim_unrolled.b32 U` at its head), or None."""
        return next((int(inst.operands[0]) for inst in self.blocks[loop.header].insts
                     if inst.name == "smemsim_unrolled"), None)

    def _loop_name(self, loop) -> str:
        """The name of a loop's iteration count (k = 0, 1, ... whatever the source's
        variable counts): `iter_l37` for the loop at the user's line 37 (the line of its
        branch back, nvcc's `for (...)` line, else its header's first located
        instruction), unique in the kernel (`iter_l37_2`); `iter` where none is located."""
        for name in sorted(loop.body):
            branch = self.blocks[name].branch
            if branch is not None and branch.loc is not None and \
                    loop.header in self.blocks[name].successors():
                line = self._loc(branch).line
                if line > 0:
                    return self._fresh_name(counter_name(line))
        for name in [loop.header, *sorted(loop.body - {loop.header})]:
            for inst in self.blocks[name].insts:
                line = self._loc(inst).line if inst.loc is not None else 0
                if line > 0:   # (nvcc's `.loc 1 0 0` names no line)
                    return self._fresh_name(counter_name(line))
        return self._fresh_name(counter_name(None))

    def _flag_loop(self, loop) -> None:
        """The loop as a do-while of its flag, which each path through the body sets."""
        if self._reunrolled(loop) is not None:
            # (ptxas's blocks of iterations need the trip count)
            first = self.blocks[loop.header].insts[0]
            raise PtxError(f"{COUNTED_ONLY}: PTX line {first.line}")
        flag = self.flags[loop.header]
        self.k.assign(flag, 0)
        with self.k.loop(self._loop_name(loop), 0, lambda _: flag > 0, do_while=True):
            self._sequence(loop.header, "<sink>", loop)

    @staticmethod
    def _moved(base, k: Expr, step: Expr):
        """A register's value `k` steps (an i64 expression each) on from `base` (a number or
        an Address)."""
        # (the steps counted in 64 bits, then in the register's type: a negative step of an
        # unsigned register wraps as the hardware's add does)
        delta = cast(k, i64) * step
        if isinstance(base, Address):
            return base.plus(cast(delta, base.offset.dtype))
        return base + cast(delta, base.dtype)

    def _predicate(self, guard: str, inst: Inst) -> Expr:
        negated = guard.startswith("!")
        v = self.value(guard.lstrip("!"), i32)
        if isinstance(v, Address):
            raise self._refuse(inst, "a guard that is an address")
        return _condition(v == 0 if negated else v != 0)

    def _declare(self) -> None:
        """Parameters (pointers become byte arrays), and the shared window."""
        names = self.launch.names or tuple(f"param_{n}" for n in range(len(self.entry.params)))
        if len(names) != len(self.entry.params):
            raise PtxError(f"{self.entry.name}: {len(self.entry.params)} parameters in the "
                           f"PTX, {len(names)} names given")
        self.textures = self._texture_fetches()
        # a pointer to a CUtensorMap the host copied to device memory (`const CUtensorMap*
        # tensorMapA`, fast.cu), named by --tensor-map: the map, not an array
        self.map_pointers = {key: name for key, name, ptype in self._slots()
                             if isinstance(key, int) and ptype in ("u64", "b64", "s64")
                             and name in (self.launch.tensor_maps or {})}
        pointers = self._pointer_params() - set(self.map_pointers)
        self._name_fields(pointers)
        for key, name, ptype in self._slots():   # scalars first: lengths read them
            if key in pointers or key in self.textures or key in self.map_pointers:
                continue
            if ptype not in _TYPES:
                raise PtxError(f"{self.entry.name}: parameter {name} of PTX type .{ptype} "
                               "is not lowered yet")
            self.names_used.add(name)
            self.params[key] = self.k.param(
                name, (self.launch.types or {}).get(name, _TYPES[ptype]))
        for key, name, _ in self._slots():
            if key in self.textures:
                self._texture_array(key, name)
            elif key in pointers:
                length = (self.launch.lengths or {}).get(name, 1 << 22)
                self.names_used.add(name)
                self.globals[key] = self.k.global_array(
                    name, u8, self._length(length),
                    intent="inout" if self.stored_into is None or key in self.stored_into
                    else "in")
                self.globals[key].declared = (self.launch.elements or {}).get(name)
        self._tensor_maps(names)
        variables = [*self.module.shared, *self.entry.shared]
        # (static variables in the window, `extern` ones where the dynamic memory begins)
        self.shared_at.update(window_offsets(variables))
        self.shared_bytes.update({v.name: v.nbytes for v in variables})
        offset = max((self.shared_at[v.name] + v.nbytes for v in variables
                      if v.nbytes is not None), default=0)
        align = max([16] + [v.align for v in variables if v.nbytes is not None])
        if offset:
            self.window = self.k.shared(self._fresh_name("smem"), u8, offset, align=align,
                                        volatile=self._volatile_window())
        if self._reads_stack():   # each stack array a per-thread array of bytes
            for name, size in self.entry.local_arrays.items():
                if size:
                    self.stacks[name] = self.k.local_array(
                        self._fresh_name(local_name(name)), u8, size)
        externs = [v for v in variables if v.nbytes is None]
        self.externs = {v.name for v in externs}
        if externs:
            # `extern __shared__` arrays all begin where the dynamic shared memory does: after
            # the static arrays, at the largest alignment any declares (kernels_ir's rule)
            dyn_align = max([16] + [v.align for v in externs])
            self.dynamic_base = self.shared_at[externs[0].name]
            # (the bytes' own view is not the variable's: its typed views, made at the
            # accesses, take the declaration's name)
            self.dynamic = self.k.dynamic_shared(self._fresh_name("dynamic_smem"), u8,
                                                 align=dyn_align)
        # (the module's variables this entry names: a library's others, libcu++'s
        # `cuda::std::ranges::begin` objects, are not the kernel's arrays)
        named = {t for i in self.entry.body if isinstance(i, Inst) for o in i.operands
                 for t in re.findall(r"[\w$.]+", o)}
        for c in self.module.consts.values():
            if c.name not in named:
                continue
            # a __constant__ array is an input the kernel cannot write; a __device__
            # variable may be written, and starts as zeros where it states no values; another
            # unit's (`.extern`) holds what the host put there (seeded, as an input)
            initial = _const_bytes(c) if c.initial is not None else \
                (0,) * c.nbytes if c.space == "global" else None
            name = re.sub(r"\W", "_", local_name(c.name)).strip("_") or "variable"
            self.globals[("const", c.name)] = self.k.global_array(
                self._fresh_name(name), u8, c.nbytes, initial=initial,
                intent="in" if c.space == "const" else "inout")

    def _volatile_window(self) -> bool:
        """Whether the static window is volatile in the IR: where the kernel's shared
        accesses are `ld.volatile`/`st.volatile` (a tag-and-retry histogram's re-read), so
        that the CUDA generated from the IR (codegen, validate's profiled program) keeps
        them; not where it also has vector accesses, which CUDA cannot make through a
        volatile pointer (the analysis is the same either way)."""
        shared = [i.opcode for i in self.entry.body if isinstance(i, Inst) and
                  i.name in ("ld", "st") and "shared" in i.opcode]
        return any("volatile" in o for o in shared) and \
            not any(x in o for o in shared for x in ("v2", "v4", "v8"))

    def _reads_local(self, expr: Expr) -> bool:
        """Whether an expression reads a register's local variable (memoized by node)."""
        memo = self.reads_memo
        stack = [expr]
        order = []
        while stack:   # (iterative: expressions may be deep)
            e = stack.pop()
            if id(e) in memo:
                continue
            order.append(e)
            stack.extend(x for x in e.src if id(x) not in memo)
        for e in reversed(order):
            if id(e) not in memo:   # (the node is kept with its answer: its id stays its own)
                memo[id(e)] = (e, (e.op is Op.VAR and e.arg in self.local_vars) or any(
                    memo[id(x)][1] for x in e.src))
        return memo[id(expr)][1]

    def _fresh_name(self, name: str) -> str:
        """A C identifier for an array of the IR, unique in the kernel (two inlined helpers'
        `temp_storage`, NVVM's `__$temp3`)."""
        name = re.sub(r"\W", "_", name).strip("_") or "array"
        if name[0].isdigit():
            name = "a_" + name
        base, n = name, 1
        while name in self.names_used:
            n += 1
            name = f"{base}_{n}"
        self.names_used.add(name)
        return name

    def _declare_locals(self) -> None:
        """A local for each register that is not one value of one block (see the module's
        docstring), declared at the top; an address register's local holds its offset."""
        kinds = self._kinds()
        defs, home, used_elsewhere = {}, {}, set()
        for name, block in self.blocks.items():
            for inst in block.insts:
                for r in _reads(inst, self.entry.names):
                    if r in home and home[r] != name or r not in home and r in kinds:
                        used_elsewhere.add(r)
                for r in _writes(inst, self.entry.names):
                    defs[r] = defs.get(r, 0) + 1
                    home[r] = name
                    if inst.guard is not None:
                        used_elsewhere.add(r)
            if block.cond is not None:
                r = block.cond.lstrip("!")
                if home.get(r) != name:
                    used_elsewhere.add(r)
        self.flags = {h: self.k.let(self._fresh_name(f"loop_{n}"), 0)
                      for n, h in enumerate(self.loops)}
        # wgmma's operands in registers, as the IR's wgmma takes them: an accumulator array
        # per instruction width N, and A's four registers (copied in and out around it)
        self.gmma_acc, self.gmma_a = {}, None
        for block in self.blocks.values():
            for inst in block.insts:
                if inst.opcode[:2] != ("wgmma", "mma_async"):
                    continue
                n = _gmma_n(inst)
                if n is not None and n not in self.gmma_acc:
                    self.gmma_acc[n] = self.k.local_array(self._fresh_name(f"wgmma_d{n}"),
                                                          f32, n // 2)
                if len(inst.operands) > 1 and inst.operands[1].startswith("{") and \
                        self.gmma_a is None:
                    self.gmma_a = self.k.local_array(self._fresh_name("wgmma_a"), u32, 4)
        self.merges = {}
        self.local_regs = set()
        self.written_once = {r for r, n in defs.items() if n == 1}
        for r in sorted(set(defs)):
            if defs[r] == 1 and r not in used_elsewhere:
                continue
            kind = kinds.get(r)
            self.local_regs.add(r)
            if isinstance(kind, tuple) and kind[0] == "either":
                # an address into one of several arrays: which one, and its offset
                members = sorted(kind[1], key=repr)
                if len({m[0] == "shared" for m in members}) > 1:
                    raise PtxError(f"{r} holds addresses of shared and global memory (a "
                                   "generic pointer to either): not lowered yet")
                dtype = u32 if members[0][0] == "shared" else i64
                which = self.k.let(self._fresh_name(_c_name(r) + "_array"), const(0, i32))
                ref = self.k.let(self._fresh_name(_c_name(r)), const(0, dtype), dtype)
                self.regs[r] = Choice(which, tuple(Address(space, base, ref)
                                                   for space, base in members))
                self.local_vars.update((which.arg, ref.arg))
                continue
            if isinstance(kind, tuple):   # an address: its base is fixed, its offset varies
                space, base = kind
                dtype = u32 if space == "shared" else i64
                ref = self.k.let(self._fresh_name(_c_name(r)), const(0, dtype), dtype)
                self.regs[r] = Address(space, base, ref)
            else:
                dtype = _REG_TYPES.get(kind, u32)
                ref = self.k.let(self._fresh_name(_c_name(r)), const(0, dtype), dtype)
                self.regs[r] = ref
            self.local_vars.add(ref.arg)

    def _kinds(self) -> dict:
        """Each register's kind, to a fixed point over every instruction: an address
        (space, base), or a PTX type name (pred, f32, u32, ...). A kind only ever grows
        (none, then the type of the first instruction that writes it, then an address), so
        the passes end: a register written as .b32 and as .s32 keeps the first (its bits
        are the same; each instruction reads them as its own type)."""
        kinds: dict[str, object] = {}
        insts = [(i, _writes(i, self.entry.names))
                 for b in self.blocks.values() for i in b.insts]
        insts = [(i, w) for i, w in insts if w]
        for _ in range(len(insts) + 1):
            changed = False
            for inst, written in insts:
                k = self._kind_of(inst, kinds)
                if k is None:
                    continue
                for r in written:
                    old = kinds.get(r)
                    if old == k or (old is not None and not isinstance(k, tuple)):
                        continue
                    if isinstance(old, tuple):   # addresses of several arrays
                        k = _join_kinds(old, k)
                        if k == old:
                            continue
                    kinds[r] = k
                    changed = True
            if not changed:
                break
        return kinds

    def _kind_of(self, inst: Inst, kinds: dict):
        op, ty = inst.name, inst.opcode[-1]
        srcs = [kinds.get(o) for o in inst.operands[1:]]
        if op == "ld" and inst.opcode[1] == "param":
            key = self._slot_of(inst.operands[1]) if len(inst.operands) > 1 else None
            return ("param", key) if key in self.globals else ty
        if op == "cvta":
            base = next((s for s in srcs if isinstance(s, tuple)), None)
            if base is None:
                return None
            return _join_kinds(*(("global", m[1]) if m[0] == "param" else m
                                 for m in _members(base)))
        if op == "selp" and any(isinstance(s, tuple) for s in srcs[:2]):
            return _join_kinds(*(s for s in srcs[:2] if isinstance(s, tuple)))
        if op == "mov" and inst.operands[1] in self.shared_at:
            return ("shared", None)
        if op == "mov" and ("const", inst.operands[1]) in self.globals:
            return ("global", ("const", inst.operands[1]))
        if op == "mov" and inst.operands[1] in self.entry.local_arrays:
            return ("local", inst.operands[1])
        if op == "cvt" and len(inst.opcode) > 2 and inst.opcode[1] in _TYPES and \
                _TYPES[inst.opcode[1]].size < 8 and any(
                    isinstance(s, tuple) and s[0] in ("global", "param") for s in srcs):
            return inst.opcode[1]   # a global pointer's low bits: a number (_op_cvt)
        if op in ("mov", "add", "sub", "cvt") and any(isinstance(s, tuple) for s in srcs):
            return next(s for s in srcs if isinstance(s, tuple))
        if op == "mad" and len(srcs) == 3 and isinstance(srcs[2], tuple):
            return srcs[2]   # base + i * stride
        if op == "setp":
            return "pred"
        if op == "wgmma" and inst.opcode[1] == "mma_async":
            return inst.opcode[-3]   # the accumulators' type (`.f32.bf16.bf16`)
        return ty if ty in _TYPES else None

    def _length(self, length):
        if isinstance(length, (int, Expr)):
            return length
        return as_expr(eval_names(length, self.params_by_name()))

    def params_by_name(self) -> dict:
        return {name: self.params[key] for key, name, _ in self._slots() if key in self.params}

    def _tensor_maps(self, names) -> None:
        """Each CUtensorMap parameter (`.param .align 64 .b8 p[128]`, named by --tensor-map)
        as the IR's tensor map over its tensor: the pointer parameter of that name, or else
        an array of its own (the host passed only the map)."""
        from ..cuda.symbols import TYPES, fold
        from ..tensor_maps import missing, parse_spec, tensor_length
        from kernels_ir.dtypes import BY_NAME
        given = self.launch.tensor_maps or {}
        scalars = {names[k]: v for k, v in self.params.items() if isinstance(k, int)}
        for n, p in enumerate(self.entry.params):
            # a map passed by value, its address taken; or a pointer to one (ld.param of it
            # is the map: _op_ld)
            if n not in self.map_pointers and not (
                    _aggregate(p) and p.nbytes == 128 and self._address_taken(p.name)):
                continue
            name = names[n]
            if name not in given:
                if any(isinstance(i, Inst) and i.opcode[:4] == ("cp", "async", "bulk", "tensor")
                       for i in self.entry.body):
                    raise PtxError(missing(name))
                continue   # (a 128-byte struct passed by value, its address used otherwise)
            spec = parse_spec(name, given[name])
            dtype = BY_NAME.get(TYPES.get(spec.ctype, spec.ctype))
            if dtype is None:
                raise PtxError(f"--tensor-map {name}: element type '{spec.ctype}' is not one "
                               "the IR has")
            what = f"--tensor-map {name}"
            shape = [eval_names(e, scalars) for e in spec.extents]
            box = [fold(eval_names(b, {})) for b in spec.box]
            if None in box:
                raise PtxError(f"{what}: each box extent must be a number")
            strides = None
            if any(s is not None for s in spec.strides):
                from kernels_ir.tma import tensor_strides
                strides = tensor_strides(shape, [eval_names(s, scalars) if s is not None
                                                 else None for s in spec.strides[:-1]])
            tensor = next((k for k, g in self.globals.items() if isinstance(k, int) and
                           names[k] == spec.tensor), None)
            if tensor is not None:
                arr = self.k.global_view(self.globals[tensor], self._fresh_name(
                    f"{spec.tensor}_{dtype.name}"), dtype)
            else:   # the tensor is not a parameter: the host passed only the map
                arr = self.k.global_array(self._fresh_name(spec.tensor), dtype,
                                          tensor_length(shape, strides), intent="inout")
            try:
                self.tensor_maps[n if n in self.map_pointers else p.name] = self.k.tensor_map(
                    self._fresh_name(name), arr, tuple(shape), tuple(box), spec.swizzle,
                    strides=strides)
            except KernelError as err:
                raise PtxError(f"{what}: {err.message}") from None

    def _address_taken(self, param: str) -> bool:
        """Whether the body takes a parameter's own address (`mov.b64 %rd, p`)."""
        return any(isinstance(i, Inst) and i.name == "mov" and len(i.operands) == 2 and
                   i.operands[1] == param for i in self.entry.body)

    def _slots(self) -> list[tuple]:
        """(key, name, PTX type) of each value the parameters pass: a parameter of a scalar
        type is one (key: its position); a by-value struct (`.param .b8 p[16]`: a functor, a
        lambda's captures, a kernel-traits object) is one per field the kernel reads
        (`ld.param.u64 %rd1, [p+8]`; key: (position, byte offset), named `p_8`)."""
        if hasattr(self, "_slots_memo"):
            return self._slots_memo
        names = self.launch.names or tuple(f"param_{n}" for n in range(len(self.entry.params)))
        fields: dict[int, dict[int, str]] = {}
        for i in self.entry.body:
            if isinstance(i, Inst) and i.opcode[:2] == ("ld", "param") and len(i.operands) > 1:
                n, off = _param_place(i.operands[1], self._param_index)
                if n is not None and _aggregate(self.entry.params[n]):
                    size = _BITS.get(i.opcode[-1], 32) // 8
                    for lane in range(_lanes(i.opcode)):   # (`ld.param.v2.u32`: two fields)
                        fields.setdefault(n, {}).setdefault(off + lane * size, i.opcode[-1])
        out = []
        for n, (p, name) in enumerate(zip(self.entry.params, names)):
            if not _aggregate(p):
                out.append((n, name, p.ptype))
            # (a vector type's, `uint3 size`: its lanes as the host reading names them,
            # size_x, size_y, size_z; any other struct's fields by their byte offset)
            types = self.launch.types or {}
            lanes = [f"{name}_{c}" for c in "xyzw" if f"{name}_{c}" in types]
            for off, ptype in sorted(fields.get(n, {}).items()):
                step = types[lanes[0]].size if lanes else 0
                label = lanes[off // step] if lanes and off % step == 0 and \
                    off // step < len(lanes) else f"{name}_{off}"
                out.append(((n, off), label, ptype))
        self._slots_memo = out
        return out

    def _name_fields(self, pointers: set) -> None:
        """A by-value struct's fields named as the host's reading names them (`p_in`,
        `p_n` of `Params p`), where that is certain: the reading gives its pointer fields
        and its scalar fields each in declaration order, and the build reads exactly as
        many of each (offsets grow in declaration order); else by byte offset (`p_8`)."""
        slots = self._slots()
        host_pointers = list(self.launch.elements or {})
        host_scalars = list(self.launch.types or {})
        renamed: dict = {}
        for n, name in enumerate(self.launch.names or ()):
            fields = [(key, label) for key, label, _ in slots
                      if isinstance(key, tuple) and key[0] == n]
            if not fields or any(label in host_pointers or label in host_scalars
                                 for _, label in fields):
                continue   # (no fields, or named by the host already: a vector's lanes)
            prefix = f"{name}_"
            mine = [k for k in fields if k[0] in pointers], \
                [k for k in fields if k[0] not in pointers]
            theirs = [h for h in host_pointers if h.startswith(prefix)], \
                [h for h in host_scalars if h.startswith(prefix)]
            if all(len(a) == len(b) for a, b in zip(mine, theirs)):
                for ours, host in zip(mine, theirs):
                    renamed.update({key: label for (key, _), label in zip(ours, host)})
        if renamed:
            self._slots_memo = [(key, renamed.get(key, label), ptype)
                                for key, label, ptype in slots]

    @functools.cached_property
    def _param_index(self) -> dict[str, int]:
        """Each parameter's position, by its PTX name."""
        return {p.name: n for n, p in enumerate(self.entry.params)}

    def _param_fields(self, inst: Inst) -> list[tuple]:
        """(register, slot key) of each value an `ld.param` reads: one, or one a lane of a
        vector load of a struct's fields (`ld.param.v2.u32 {%r1, %r2}, [p+8]`: the fields at
        8 and 12); a lane written to `_` is left out."""
        targets = inst.operands[0].strip("{}").split(",")
        if len(targets) == 1:
            return [(targets[0], self._slot_of(inst.operands[1]))]
        n, off = _param_place(inst.operands[1], self._param_index)
        if n is None or not _aggregate(self.entry.params[n]):
            return [(t, None) for t in targets if t != "_"]
        size = _BITS.get(inst.opcode[-1], 32) // 8
        return [(t, (n, off + lane * size)) for lane, t in enumerate(targets) if t != "_"]

    def _slot_of(self, operand: str):
        """The slot key an `ld.param` operand reads (`[k_param_2+8]` -> (2, 8)), or None."""
        n, off = _param_place(operand, self._param_index)
        if n is None:
            return None
        return (n, off) if _aggregate(self.entry.params[n]) else n

    def _pointer_params(self) -> set:
        """The slots that are pointers: where the host side says which parameters are
        scalars (`Launch.types`), the others of 64 bits; else those the command line gives a
        length, and 64-bit values an address is made from (a `cvta` of the value, or an
        address operand built from it by `add`/`mov`): a `size_t` scalar is neither."""
        wide = ("u64", "b64", "s64")
        if self.launch.types is not None:
            return {key for key, name, ptype in self._slots()
                    if name not in self.launch.types and ptype in wide and
                    not isinstance(key, tuple)} | \
                self._used_as_addresses({key for key, _, t in self._slots()
                                         if isinstance(key, tuple) and t in wide})
        out = {key for key, name, _ in self._slots() if name in (self.launch.lengths or {})}
        return out | self._used_as_addresses({key for key, _, t in self._slots() if t in wide})

    def _used_as_addresses(self, keys: set) -> set:
        """Of the 64-bit slots `keys`, those whose value some address is made from."""
        out = set()
        derived: dict[str, object] = {}   # register -> the slot it holds (plus numbers)
        insts = [i for i in self.entry.body if isinstance(i, Inst)]
        for i in insts:
            if i.opcode[:2] == ("ld", "param") and len(i.operands) > 1:
                for target, key in self._param_fields(i):
                    if key in keys:
                        derived[target] = key
        # registers that hold an address already (a `cvta` of a pointer, moved or offset):
        # a slot added to one is an offset (a `size_t` stride), not a pointer
        addressed = {i.operands[0] for i in insts if i.name == "cvta" and i.operands}
        for _ in range(4):   # (a pointer moved or offset before its use: a few steps)
            for i in insts:
                if i.name not in ("mov", "add", "sub") or len(i.operands) < 2:
                    continue
                if any(o in addressed for o in i.operands[1:]):
                    addressed.add(i.operands[0])
                    derived.pop(i.operands[0], None)
                elif i.operands[0] not in derived and i.operands[0] not in addressed:
                    source = next((derived[o] for o in i.operands[1:] if o in derived), None)
                    if source is not None:
                        derived[i.operands[0]] = source
        for i in insts:
            if i.name == "cvta" and len(i.operands) > 1 and i.operands[1] in derived:
                out.add(derived[i.operands[1]])
            for o in i.operands:
                if o.startswith("["):
                    base = re.split(r"[+-]", o.strip("[]"))[0]
                    if base in derived:
                        out.add(derived[base])
        return out

    def _loc(self, inst: Inst) -> SourceLoc:
        """The instruction's line, with the calls that inlined it. A line of the toolkit's
        headers (cuda_fp16.hpp, cub, libcu++) is reported at the user's line that called
        into them, as a reader looks for it."""
        loc = inst.loc
        if loc is not None and loc.line == 0:
            loc = self._line_of_zero(inst)
        if loc is None:
            return SourceLoc("<ptx>", inst.line)
        frames = []
        while loc is not None:
            frames.append(loc)
            loc = loc.inlined_at
        if len(frames) > 1 and self.name is not None and \
                self.module.strings.get(frames[-2].function) == self.name:
            # the kernel's own body inlined into the entry at its first line (numba's
            # wrapper): a line of the kernel, called from nowhere
            frames = [*frames[:-2], dataclasses.replace(frames[-2], function=None)]
        files = self.module.files
        mine = [f for f in frames if not _TOOLKIT.search(os.path.normpath(files.get(f.file,
                                                                                      "")))]
        first = frames.index(mine[0]) if mine else 0
        top = frames[first]
        file = files.get(top.file, "<ptx>")
        return SourceLoc(file, top.line, top.column,
                         tuple((files.get(f.file, "<ptx>"), f.line) for f in frames[first + 1:]),
                         self.module.strings.get(top.function),
                         self._statement_text(file, top.line))

    def _statement_text(self, file: str, line: int) -> str | None:
        """The source's text of the statement at `line`, whitespace folded: the line, after
        the lines before it that it continues (nvcc's line of a statement written over
        several is the one where the access is)."""
        key = (file, line)
        if key not in self.statements:
            text = self._source_line(file, line)
            if text is not None:
                text = " ".join(text.split())
                for back in range(1, 4):
                    before = self._source_line(file, line - back)
                    before = " ".join((before or "").split())
                    code = before.split("//")[0].rstrip()   # (a trailing comment aside)
                    if not code or code.endswith((";", "{", "}", ":")) or \
                            before.startswith(("#", "//", "/*", "* ", "*/")) or \
                            before == "*" or re.match(r"(for|if|while|else)\b", code):
                        break
                    text = f"{before} {text}"
            self.statements[key] = text or None
        return self.statements[key]

    def _line_of_zero(self, inst: Inst):
        """The place of an instruction nvcc marks `.loc F 0` (code it made itself: a load it
        hoisted, a value it rematerialized; no source line, which a reader, a SARIF viewer
        and an editor cannot show): the nearest instruction's before it with a line, else
        after it, as a debugger steps it."""
        if not hasattr(self, "_zero_memo"):
            memo, last, waiting = {}, None, []
            for x in self.entry.body:
                if not isinstance(x, Inst) or x.loc is None:
                    continue
                if x.loc.line:
                    last = x.loc
                    for w in waiting:
                        memo[id(w)] = last
                    waiting = []
                elif last is not None:
                    memo[id(x)] = last
                else:
                    waiting.append(x)
            self._zero_memo = memo
        return self._zero_memo.get(id(inst), inst.loc)

    def _access_loc(self, inst: Inst, loc: SourceLoc) -> SourceLoc:
        """An access's place at its array's column: nvcc's `.loc` names the statement
        (`dst[i] = tile[tx][ty]` at its start), the source line names the array; where the
        line holds the array's name before a `[` exactly once, the column is that name's
        (as the C++ reading, and an editor's underline, would have it)."""
        where = _ADDRESS_AT.get(inst.name)
        if where is None or not loc.column or len(inst.operands) <= where:
            return loc
        base = inst.operands[where].strip("[]").partition("+")[0].partition("-")[0]
        try:
            v = self.value(base, u64)
        except KernelError:
            return loc
        if not isinstance(v, Address):
            return loc
        name = local_name(v.origin) if v.space == "shared" and v.origin else \
            self.globals[v.base].name if v.space in ("global", "param") and \
            v.base in self.globals and isinstance(v.base, int) else None
        text = self._source_line(loc.file, loc.line)
        if not name or text is None:
            return loc
        hits = [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\s*\[", text)]
        return dataclasses.replace(loc, column=hits[0] + 1) if len(hits) == 1 else loc

    def _source_line(self, file: str, line: int) -> str | None:
        """A line of a source file (None where it cannot be read)."""
        if file not in self.sources:
            try:
                with open(file, encoding="utf-8", errors="replace") as f:
                    self.sources[file] = f.read().splitlines()
            except OSError:
                self.sources[file] = None
        lines = self.sources[file]
        return lines[line - 1] if lines is not None and 0 < line <= len(lines) else None

    def _refuse(self, inst: Inst | None, why: str) -> PtxError:
        where = f"PTX line {inst.line} (`{'.'.join(inst.opcode)}`)" if inst else "PTX"
        return PtxError(f"{where}: {why}", kernel=self.name or self.entry.name,
                        loc=self._loc(inst) if inst else None)

    # ---------------------------------------------------------------- values
    def value(self, text: str, dtype) -> object:
        """An operand's value: a register, a constant, a special register or a symbol."""
        if text in self.entry.names:
            if text in self.regs:
                return self.regs[text]
            raise PtxError(f"register {text} is read before it is written")
        if text.startswith("%"):
            if text in self.regs:
                return self.regs[text]
            name, _, axis = text[1:].partition(".")
            if name in _SPECIAL and axis in ("x", "y", "z"):
                return cast(getattr(_SPECIAL[name], axis), u32)
            if name.startswith("envreg") and name[6:].isdigit():
                # an environment register: a cooperative launch's grid workspace (its
                # address, in two halves), which only the grid barrier reads, and that is
                # the IR's own (_grid_syncs): 0 here
                return const(0, u32)
            if name in ("clock", "clock64", "globaltimer"):
                # a time: no address or branch of a kernel analyzed here depends on it; the
                # interpreter reads 0 (docs/ptx.md)
                return const(0, u64 if name != "clock" else u32)
            if text == "%laneid" or text.startswith("%lanemask_"):
                # the lane of the thread's linear index; the masks of the lanes below,
                # at, above it (`%lanemask_lt`: bits 0 .. lane-1)
                linear = cast(threadIdx.x, u32) + cast(blockDim.x, u32) * (
                    cast(threadIdx.y, u32) + cast(blockDim.y, u32) * cast(threadIdx.z, u32))
                lane = linear % 32
                if text == "%laneid":
                    return lane
                below = retype((const(1, u64) << retype(lane, u64)) - 1, u32)
                masks = {"%lanemask_lt": below, "%lanemask_eq": const(1, u32) << lane,
                         "%lanemask_le": below | (const(1, u32) << lane)}
                masks["%lanemask_gt"] = ~masks["%lanemask_le"]
                masks["%lanemask_ge"] = ~below
                if text in masks:
                    return masks[text]
            raise PtxError(f"register {text} is read before it is written")
        if text in self.shared_at:
            return Address("shared", None, const(self.shared_at[text], u32), text)
        if text in self.tensor_maps:
            return TensorMapRef(self.tensor_maps[text])
        if ("const", text) in self.globals:
            return Address("global", ("const", text), const(0, i64))
        if text in self.entry.local_arrays:   # the stack (see _call_memory)
            return Address("local", text, const(0, i64))
        if text == "WARP_SZ":   # PTX's predefined constant
            return const(32, u32)
        if text.startswith(("0f", "0F")):
            import struct
            return const(struct.unpack(">f", bytes.fromhex(text[2:]))[0], f32)
        if text.startswith(("0d", "0D")):
            import struct
            return const(struct.unpack(">d", bytes.fromhex(text[2:]))[0], f64)
        try:
            # (an integer literal may end in U, `0x3fb8aa3bU` of cuda_fp16's inline asm)
            number = int(text[:-1] if text[-1:] in "uU" and len(text) > 1 else text, 0)
        except ValueError:
            raise PtxError(f"operand {text!r} is not lowered yet (a parameter's own address, "
                           "a symbol smemsim does not know)" if not text.startswith("%") else
                           f"operand {text!r} is not lowered yet") from None
        if dtype.is_float:
            return const(number, i64)
        # an immediate is a bit pattern of the instruction's width (`add.s32 %r, %r, -15`
        # with a .b32 or .u32 type wraps, as the hardware adds it)
        return _wrapped(number, dtype)

    def integer(self, text: str, dtype) -> Expr:
        v = self.value(text, dtype)
        if isinstance(v, (Address, Choice)):
            raise PtxError(f"{text} holds an address where a number is read")
        return retype(v, dtype)

    def address(self, text: str, inst: Inst) -> Address:
        """`[reg]`, `[reg+8]`, `[symbol]`, `[symbol+4]` as an Address."""
        inner = text.strip("[]")
        base, sign, rest = inner.partition("+") if "+" in inner else inner.partition("-")
        delta = int(rest, 0) * (-1 if sign == "-" else 1) if sign else 0
        v = self.value(base, u64)
        if not isinstance(v, (Address, Choice)):
            raise self._refuse(inst, f"{base} is not an address smemsim can follow (an "
                                     "integer used as a pointer)")
        if isinstance(v, Choice) and inst.name not in ("ld", "st"):
            raise self._refuse(inst, "an address that is one of two arrays' (selp): read "
                                     "only by loads and stores yet")
        return v.plus(const(delta, i64)) if delta else v

    # ---------------------------------------------------------------- instructions
    def _instruction(self, inst: Inst) -> None:
        handler = getattr(self, f"_op_{inst.name}", None)
        if inst.name not in _CHOICE_OPS and any(
                isinstance(self.regs.get(o), Choice) for o in _reads(inst, self.entry.names)):
            raise self._refuse(inst, "an address that is one of two arrays' (selp), read by "
                                     "an instruction other than a load, a store or an offset")
        if inst.opcode[-1] in _HALF_TYPES and inst.name in _HALF_OPS:
            handler = self._half_arith
        if handler is None:
            raise self._refuse(inst, "not lowered yet")
        try:
            if inst.guard is None:
                handler(inst)
                return
            with self.k.if_(self._predicate(inst.guard, inst)):
                handler(inst)
        except PtxError as err:
            if "PTX line" in str(err):
                raise
            # (an operand's own error: located at its instruction, with its text shortened)
            raise self._refuse(inst, _shortened(str(err))) from None

    def _dest(self, inst: Inst, value, reg: str | None = None) -> None:
        reg = reg or inst.operands[0]
        if "sat" in inst.opcode and isinstance(value, Expr) and value.dtype.is_float:
            # `.sat` of float arithmetic and of a float's cvt (__saturatef): clamped to
            # [0, 1], NaN to 0 (PTX ISA)
            value = select(value > 0, smin(value, const(1, value.dtype)),
                           const(0, value.dtype))
        elif "sat" in inst.opcode and inst.name != "cvt":
            # (an integer's `add.sat.s32` clamps where the sum leaves the range: not
            # lowered, rather than wrapped)
            raise self._refuse(inst, "integer arithmetic with .sat is not lowered yet")
        if reg in self.inductions or isinstance(value, TensorMapRef):
            # a counted loop's step (its one write there), or a tensor map parameter's
            # address (the same map wherever it is read): the value itself, not a local
            self.regs[reg] = value
            return
        if isinstance(value, Choice):
            if reg in self.local_regs and isinstance(self.regs[reg], Choice):
                self._assign_choice(inst, reg, value)
                return
            if reg in self.local_regs and reg not in self.written_once:
                raise self._refuse(inst, f"{reg} holds addresses of different arrays")
            held = lambda e: self.k.let(self._fresh_name(_c_name(reg)), e)  # noqa: E731
            sides = [Address(x.space, x.base, held(x.offset), x.origin)
                     if self._reads_local(x.offset) or _long(x.offset) else x
                     for x in value.sides]
            self.regs[reg] = Choice(held(value.index), tuple(sides))
            return
        if reg not in self.local_regs:
            # held in a local, not substituted: a long chain (an unrolled sum: deeper than
            # kernels_ir reads), and any value that reads a register's local, which a later
            # instruction of the block may assign before this value is used (`setp %p, %s,
            # 65; mov %s, %s2; @%p bra`: %p is the old s's)
            if isinstance(value, Expr) and (_long(value) or self._reads_local(value)):
                value = self.k.let(self._fresh_name(_c_name(reg)), value)
            elif isinstance(value, Address) and (_long(value.offset) or
                                                 self._reads_local(value.offset)):
                value = Address(value.space, value.base,
                                self.k.let(self._fresh_name(_c_name(reg)), value.offset),
                                value.origin)
            self.regs[reg] = value
            return
        if reg in self.written_once and _pure(value):
            # its one value, of the parameters, indices and constants only: the same wherever
            # it is read, so read as it is (`out[blockIdx.x]`, not a local the analyses
            # cannot follow into another block)
            self.regs[reg] = value
            return
        local = self.regs[reg]
        if isinstance(local, Choice):   # a register each path points into another array
            self._assign_choice(inst, reg, value)
            return
        if isinstance(local, Address) and local.space == "shared" and \
                not isinstance(value, Address):
            value = Address("shared", None, retype(value, u32), local.origin)  # a number
        if isinstance(value, Address) and value.space == "shared" and \
                not isinstance(local, Address):
            value = value.offset   # a shared address is a number in the window
        if isinstance(local, Address):
            if not isinstance(value, Address) or value.base != local.base or \
                    value.space != local.space and {value.space, local.space} != {"param",
                                                                               "global"}:
                raise self._refuse(inst, f"{reg} holds addresses of two different arrays")
            self.k.assign(local.offset, retype(value.offset, local.offset.dtype))
            if value.origin and value.origin != local.origin:   # (names its views)
                self.regs[reg] = Address(local.space, local.base, local.offset, value.origin)
            return
        if isinstance(value, Address):
            raise self._refuse(inst, f"{reg} holds both numbers and addresses")
        self.k.assign(local, retype(value, local.dtype))

    def _assign_choice(self, inst: Inst, reg: str, value) -> None:
        """An address into the local of a register that points into one of several arrays:
        which one, and the offset (a Choice's: by its own index)."""
        local = self.regs[reg]
        keys = [(x.space, x.base) for x in local.sides]
        offset = local.sides[0].offset

        def place(x: Address) -> int:
            key = ("global" if x.space == "param" else x.space, x.base)
            if key not in keys:
                raise self._refuse(inst, f"{reg} holds addresses of an array its other "
                                         "assignments do not point into")
            return keys.index(key)
        if isinstance(value, Address):
            self.k.assign(local.index, const(place(value), i32))
            self.k.assign(offset, retype(value.offset, offset.dtype))
            return
        if not isinstance(value, Choice):
            raise self._refuse(inst, f"{reg} holds both numbers and addresses")
        which, moved = const(place(value.sides[-1]), i32), \
            retype(value.sides[-1].offset, offset.dtype)
        for n in range(len(value.sides) - 2, -1, -1):
            which = select(value.index == n, const(place(value.sides[n]), i32), which)
            moved = select(value.index == n, retype(value.sides[n].offset, offset.dtype),
                           moved)
        self.k.assign(local.index, which)
        self.k.assign(offset, moved)

    def _call_memory(self, inst: Inst, operand: str) -> bool:
        """Whether an access is one smemsim leaves out, as nothing it counts reads it: a
        call sequence's parameters (the one call lowered is printf's, which prints), and a
        stack array (`.local`) that no instruction of the entry reads (printf's arguments).
        A stack array the entry reads is lowered (each a per-thread array of bytes)."""
        base = re.split(r"[+-]", operand.strip("[]"))[0]
        if "param" in inst.opcode and base in self.entry.call_params:
            return True
        if "local" not in inst.opcode:
            return False
        return not self._reads_stack()   # (a stack the kernel reads: lowered, _local_array)

    # ------------------------------------------------------------ textures

    def _texture_fetches(self) -> dict:
        """slot key -> [rank, element type, lanes, the first fetch] of each texture object
        parameter the entry fetches through (`tex.2d.v4.f32.f32 {..}, [%rd2, {x, y}]`, %rd2
        loaded from the parameter); lanes: the texel's, as many as the fetches' results are
        read (a float texture's fetch has four results, of which its code reads one)."""
        insts = [i for i in self.entry.body if isinstance(i, Inst)]
        loaded = self.texture_handles = {}   # register -> the parameter slot it holds
        for i in insts:
            if i.opcode[:2] == ("ld", "param") and len(i.operands) > 1:
                for target, key in self._param_fields(i):
                    loaded[target] = key
        read = {r for i in insts for r in _reads(i, self.entry.names)}
        out: dict = {}
        for i in insts:
            if i.name != "tex":
                continue
            m = _TEXTURE_OPERAND.fullmatch(i.operands[1]) if len(i.operands) > 1 else None
            key = loaded.get(m.group(1)) if m else None
            if key is None or len(i.opcode) != 5 or i.opcode[1] not in ("1d", "2d") or \
                    i.opcode[2] != "v4" or i.opcode[3] not in _TYPES:
                continue   # (refused where it is lowered)
            results = i.operands[0].strip("{}").split(",")
            lanes = 1 + max((n for n, r in enumerate(results) if r in read), default=0)
            rank = 1 if i.opcode[1] == "1d" else 2
            have = out.setdefault(key, [rank, _TYPES[i.opcode[3]], lanes, i])
            if have[:2] != [rank, _TYPES[i.opcode[3]]]:
                raise self._refuse(i, "a texture fetched as two kinds of texel")
            have[2] = max(have[2], lanes)
        return out

    def _texture_array(self, key, name: str) -> None:
        """The texture's texels as a read-only global array of its parameter's name, row by
        row, its extent what `--texture NAME=WIDTH[,HEIGHT]` says (a 1-D texture without it:
        its --length or the default length, as any array)."""
        rank, dtype, lanes, first = self.textures[key]
        given = (self.launch.textures or {}).get(name)
        if given is not None:
            parts = [p.strip() for p in str(given).split(",")]
            if len(parts) != rank:
                raise self._refuse(first, f"--texture {name}={given}: a {rank}-D texture "
                                          f"takes {'WIDTH' if rank == 1 else 'WIDTH,HEIGHT'}")
            extents = [cast(as_expr(self._length(int(p) if p.isdigit() else p)), i32)
                       for p in parts]
        elif rank == 1:
            length = (self.launch.lengths or {}).get(name, 1 << 22)
            extents = [cast(as_expr(self._length(length)), i32)]
        else:
            raise self._refuse(first, f"the extent of 2-D texture '{name}' is what the host "
                                      f"allocated: give --texture {name}=WIDTH,HEIGHT (texels)")
        width = extents[0]
        height = extents[1] if rank == 2 else const(1, i32)
        self.names_used.add(name)
        array = self.k.global_array(name, dtype, width * height * lanes, intent="in")
        array.texture = (
            "a texture read by tex.1d: texel i, 0 outside the texture" if rank == 1 else
            "a texture read by tex.2d with point sampling of unnormalized coordinates, "
            "clamped to its extent (the zero-initialized cudaTextureDesc: the host's own is "
            "not read)")
        self.textures[key] = [rank, dtype, lanes, first, array, width, height]

    def _op_tex(self, inst: Inst) -> None:
        """`tex.{1d,2d}.v4.T.C d, [t, {x(, y)}]`: a fetch of a texture object parameter, read
        as the CUDA frontend reads one (smemsim/frontends/cuda/lower_textures.py): texel i of a 1-D
        texture, 0 outside it; of a 2-D one the texel at (floor x, floor y), each clamped to
        the extent: point sampling of unnormalized coordinates, clamp addressing (the
        zero-initialized cudaTextureDesc). The results past the texel's lanes are 0."""
        m = _TEXTURE_OPERAND.fullmatch(inst.operands[1]) if len(inst.operands) > 1 else None
        fetched = self.textures.get(self.texture_handles.get(m.group(1))) if m else None
        if fetched is None or len(fetched) < 7:
            raise self._refuse(inst, "a texture fetch that is not of a texture object "
                                     "parameter, in one or two dimensions, is not lowered yet")
        rank, dtype, lanes, _, array, width, height = fetched
        ctype = _TYPES.get(inst.opcode[4])
        coords = [self.value(c, ctype) for c in m.group(2).split(",")]
        if len(coords) != rank or ctype is None:
            raise self._refuse(inst, f"a {rank}-D fetch with {len(coords)} coordinates")
        results = inst.operands[0].strip("{}").split(",")
        if rank == 1:
            i = cast(retype(coords[0], ctype), i32)
            inside = (i >= 0) & (i < width)
            got = array.load((select(inside, i, const(0, i32)) * lanes,), width=lanes)
            got = [select(inside, g, const(0, dtype))
                   for g in ([got[n] for n in range(lanes)] if lanes > 1 else [got])]
        else:
            x, y = (smin(smax(cast(call("floor", cast(retype(c, ctype), f32)), i32),
                              const(0, i32)), extent - 1)
                    for c, extent in zip(coords, (width, height)))
            got = array.load(((y * width + x) * lanes,), width=lanes)
            got = [got[n] for n in range(lanes)] if lanes > 1 else [got]
        for n, reg in enumerate(results):
            if reg != "_":
                self._dest(inst, got[n] if n < lanes else const(0, dtype), reg)

    def _op_smemsim_iteration(self, inst: Inst) -> None:
        """`smemsim_iteration.s32 %r` (as_built's cascades): the iteration of the innermost
        counted loop, from 0."""
        self._dest(inst, cast(self._counting(inst)[0], i32))

    def _op_smemsim_trips(self, inst: Inst) -> None:
        """`smemsim_trips.s32 %r` (as_built's cascades): the innermost counted loop's trip
        count."""
        self._dest(inst, cast(self._counting(inst)[1], i32))

    def _op_smemsim_unrolled(self, inst: Inst) -> None:
        """`smemsim_unrolled.b32 U` (as_built): the loop's blocks of iterations, which
        _counted_loop reads; nothing to do where it stands."""

    def _counting(self, inst: Inst):
        if not self.counting:
            raise PtxError(f"{COUNTED_ONLY}: PTX line {inst.line}")
        return self.counting[-1]

    def _op_smemsim_grid_sync(self, inst: Inst) -> None:
        """Cooperative groups' grid barrier (_grid_syncs): the IR's, for every thread of the
        launch (which a cooperative launch keeps resident at once)."""
        self.k.grid_sync()

    def _op_setmaxnreg(self, inst: Inst) -> None:
        """`setmaxnreg.{inc,dec}.sync.aligned.u32 N` (warp-specialized kernels hand registers
        between warpgroups): no shared-memory request, no value; occupancy follows the
        build's register count, not this."""

    def _op_nanosleep(self, inst: Inst) -> None:
        """`__nanosleep(ns)`: time only (a spin-wait's back-off); nothing counted here
        depends on it."""

    def _op_call(self, inst: Inst) -> None:
        """`call vprintf`: printing, which nothing counted depends on; any other call (a
        function ptxas calls rather than inlines) is refused."""
        callee = next((o for o in inst.operands if not o.startswith("(")), "")
        if callee == "__assertfail":   # a failed assert(): the launch fails here
            args = [o.strip("(), ") for o in inst.operands if o.startswith("(")]
            first = (args[0].split(",")[0].strip() if args else "") or "param0"
            text = self._string(self.call_args.get(first))
            self.k.assert_(const(0, i32), text if text else
                           "assert() (a thread's condition was false)")
            return
        if callee != "vprintf":
            raise self._refuse(inst, f"a call of {callee or 'a function'} is not lowered yet")

    def _string(self, value) -> str | None:
        """The text of a NUL-terminated string the module initializes (an assert's
        condition, as nvcc writes it into `$str`), where `value` is its address."""
        if not isinstance(value, Address) or not isinstance(value.base, tuple) or \
                value.offset.op.name != "CONST":
            return None
        var = self.module.consts.get(value.base[1])
        if var is None or not var.initial or var.ptype not in ("b8", "u8", "s8"):
            return None
        try:
            data = bytes(int(str(b), 0) & 0xFF for b in var.initial)[int(value.offset.arg):]
        except ValueError:
            return None
        text = data.split(b"\0")[0].decode("utf-8", "replace")
        return text if text.isprintable() else None

    def _op_ld(self, inst: Inst) -> None:
        if self._call_memory(inst, inst.operands[1]):
            # printf's return value, which the analysis does not model: 0
            self._dest(inst, const(0, _TYPES.get(inst.opcode[-1], u32)))
            return
        space, dtype, lanes = self._access_type(inst)
        if space == "param":
            for target, key in self._param_fields(inst):
                if key in self.map_pointers:
                    self._dest(inst, TensorMapRef(self.tensor_maps[key]), target)
                elif key in self.globals and self.globals[key].name in self.launch.nulls:
                    # a null pointer: `p != NULL` is false, an access through it a fault
                    self._dest(inst, Choice(const(0, i32), (Address("null", None,
                                                                    const(0, i64)),)), target)
                elif key in self.globals:
                    self._dest(inst, Address("param", key, const(0, i64)), target)
                elif key in self.params:
                    self._dest(inst, self.params[key], target)
                elif key in self.textures:   # a texture object: only fetches read it
                    self._dest(inst, const(0, u64), target)
                else:
                    raise self._refuse(inst, f"parameter {inst.operands[1]} is not lowered "
                                             "yet")
            return
        addr = self.address(inst.operands[1], inst)
        if isinstance(addr, Choice):
            self._load_either(inst, addr, dtype, lanes)
            return
        if addr.space == "local":
            targets = inst.operands[0].strip("{}").split(",")
            for t, v in zip(targets, self._local_load(inst, addr, dtype, lanes)):
                if t != "_":
                    self._dest(inst, v, t)
            return
        view, index = self._element(addr, dtype, inst)
        value = self.k.load(view, index, width=lanes)
        targets = inst.operands[0].strip("{}").split(",")
        if lanes == 1:
            self._dest(inst, value, targets[0])
        else:
            for n, t in enumerate(targets):
                if t != "_":
                    self._dest(inst, value[n], t)

    def _load_either(self, inst: Inst, addr: Choice, dtype, lanes: int) -> None:
        """A load through a Choice: each side's load under its condition, into a local the
        destination registers then read."""
        targets = [t for t in inst.operands[0].strip("{}").split(",")]
        held = [self.k.let(self._fresh_name(_c_name(t)), const(0, dtype))
                if t != "_" else None for t in targets]
        for n, side in enumerate(addr.sides):
            with self.k.if_(addr.index == n):
                if side.space == "null":
                    self.k.assert_(const(0, i32), "a load through a null pointer")
                    continue
                if side.space == "local":
                    got = self._local_load(inst, side, dtype, lanes)
                    for h, v in zip(held, got):
                        if h is not None:
                            self.k.assign(h, v)
                    continue
                view, index = self._element(side, dtype, inst)
                value = self.k.load(view, index, width=lanes)
                for n, h in enumerate(held):
                    if h is not None:
                        self.k.assign(h, value if lanes == 1 else value[n])
        for t, h in zip(targets, held):
            if h is not None:
                self._dest(inst, h, t)

    def _op_st(self, inst: Inst) -> None:
        if self._call_memory(inst, inst.operands[0]):
            if "param" in inst.opcode and len(inst.operands) == 2 and \
                    inst.operands[1] in self.regs:
                # a call's argument: an assert's message, read at the call (_op_call)
                self.call_args[inst.operands[0].strip("[]").split("+")[0]] = \
                    self.regs[inst.operands[1]]
            return
        space, dtype, lanes = self._access_type(inst)
        addr = self.address(inst.operands[0], inst)
        if isinstance(addr, Choice):
            for n, side in enumerate(addr.sides):
                with self.k.if_(addr.index == n):
                    if side.space == "null":
                        self.k.assert_(const(0, i32), "a store through a null pointer")
                    else:
                        self._store_at(inst, side, dtype, lanes)
            return
        self._store_at(inst, addr, dtype, lanes)

    def _store_at(self, inst: Inst, addr: Address, dtype, lanes: int) -> None:
        values = [self.integer(t, dtype) if not dtype.is_float else
                  retype(self.value(t, dtype), dtype)
                  for t in inst.operands[1].strip("{}").split(",")]
        if addr.space == "local":
            self._local_store(inst, addr, dtype, values)
            return
        view, index = self._element(addr, dtype, inst)
        if addr.space in ("global", "param"):   # (a parameter's pointer used as it is)
            self.stored.add(addr.base)
        self.k.store(view, index, values if lanes > 1 else values[0], width=lanes)

    def _access_type(self, inst: Inst):
        parts = inst.opcode[1:]
        space = next((p for p in parts if p in ("shared", "global", "param", "local",
                                                  "const")), "generic")
        if space == "generic":
            space = "global"   # checked again against the address's own space (_element)
        lanes = _lanes(parts)
        dtype = _TYPES.get(parts[-1])
        if dtype is None:
            raise self._refuse(inst, f"element type .{parts[-1]} is not lowered yet")
        if space == "const":
            space = "global"    # a __constant__ array: a global array the host fills
        if space not in ("shared", "global", "param", "local"):
            raise self._refuse(inst, f"{space} memory accesses are not lowered yet")
        return space, dtype, lanes

    def _reads_stack(self) -> bool:
        """Whether the entry reads its stack (`ld.local`, or a generic address made from it:
        `cvta.local`), so that its stack is lowered (else its stores are printf's arguments,
        left out)."""
        if self.local_read is None:
            self.local_read = any(isinstance(i, Inst) and "local" in i.opcode and
                                  i.name in ("ld", "cvta") for i in self.entry.body)
        return self.local_read

    def _local_array(self, addr: Address, inst: Inst):
        """The per-thread byte array of a `.local` array (the stack depot)."""
        array = self.stacks.get(addr.base)
        if array is None:
            raise self._refuse(inst, f"a local array of unknown size ({addr.base})")
        return array

    def _local_load(self, inst: Inst, addr: Address, dtype, lanes: int) -> list:
        """A load from the stack: each element assembled from its bytes (little-endian),
        held at once (a later store must not change what was read)."""
        array = self._local_array(addr, inst)
        bits = {1: u8, 2: u16, 4: u32, 8: u64}[dtype.size]
        out = []
        for lane in range(lanes):
            start = retype(addr.offset, i64) + lane * dtype.size
            word = const(0, bits)
            for j in range(dtype.size):
                byte = retype(self.k.read_local(array, start + j), bits)
                word = word | (byte << (8 * j)) if j else byte
            value = bitcast(word, dtype) if dtype.is_float else retype(word, dtype)
            out.append(self.k.let(self._fresh_name("stack_v"), value))
        return out

    def _local_store(self, inst: Inst, addr: Address, dtype, values: list) -> None:
        """A store to the stack: each element's bytes (little-endian)."""
        array = self._local_array(addr, inst)
        bits = {1: u8, 2: u16, 4: u32, 8: u64}[dtype.size]
        for lane, v in enumerate(values):
            word = bitcast(retype(v, dtype), bits) if dtype.is_float else retype(v, bits)
            start = retype(addr.offset, i64) + lane * dtype.size
            for j in range(dtype.size):
                self.k.write_local(array, start + j, retype(word >> (8 * j), u8))

    def _element(self, addr: Address, dtype, inst: Inst):
        """The typed view an access reads, and its element index."""
        if addr.space == "shared":
            dynamic = addr.origin in self.externs if addr.origin else self.window is None
            array = self.dynamic if dynamic else self.window
            if array is None:
                raise self._refuse(inst, "a shared access with no shared variable")
            key = ("shared", addr.origin, dtype.name)
            if key not in self.views:
                # a view of the whole window per variable and type, named as the source
                # names the variable (`tile`; `tile_u32` for a second type)
                name = local_name(addr.origin) if addr.origin else "smem"
                if any(k[:2] == key[:2] for k in self.views):
                    name = f"{name}_{dtype.name}"
                self.views[key] = self.k.view(array, self._fresh_name(name), dtype)
                self.views[key].variable = local_name(addr.origin) if addr.origin else None
                if addr.origin and addr.origin in self.shared_at:
                    self.views[key].variable_at = self.shared_at[addr.origin] - \
                        (self.dynamic_base if dynamic else 0)
                    self.views[key].variable_bytes = self.shared_bytes[addr.origin]
            offset = retype(addr.offset, u32)
            if dynamic and self.dynamic_base:
                offset = offset - self.dynamic_base
            self._aligned(offset, dtype)
            return self.views[key], _element_index(offset, dtype.size)
        if addr.space in ("global", "param") and addr.base in self.globals:
            base = self.globals[addr.base]
            key = ("global", addr.base, dtype.name)
            if key not in self.views:
                self.views[key] = base if dtype is u8 else \
                    self.k.global_view(base, self._fresh_name(f"{base.name}_{dtype.name}"),
                                       dtype)
            self._aligned(retype(addr.offset, i64), dtype)
            return self.views[key], _element_index(retype(addr.offset, i64), dtype.size)
        raise self._refuse(inst, "an address in no array smemsim knows")

    def _aligned(self, offset: Expr, dtype) -> None:
        """Where a byte offset is not seen to be a multiple of the element's size, a check
        that it is (the GPU faults on a misaligned address; an element index never rounds
        it)."""
        if dtype.size > 1 and _quotient(offset, dtype.size) is None:
            self.k.assert_(offset % dtype.size == 0,
                           f"{MISALIGNED_TEXT}: a {dtype.size}-byte element at a byte offset "
                           f"that is not a multiple of {dtype.size}")

    def _op_cvta(self, inst: Inst) -> None:
        """A conversion between a space's address and a generic one keeps what the address
        points to (a generic access then reads the space the address came from)."""
        v = self.value(inst.operands[1], u64)
        if isinstance(v, TensorMapRef):
            self._dest(inst, v)
            return
        if isinstance(v, Choice):
            self._dest(inst, Choice(v.index, tuple(Address(
                "global" if x.space == "param" else x.space, x.base, x.offset, x.origin)
                for x in v.sides)))
            return
        if not isinstance(v, Address):
            raise self._refuse(inst, "a conversion of a number smemsim cannot follow")
        self._dest(inst, Address("global" if v.space == "param" else v.space, v.base,
                                 v.offset, v.origin))

    def _op_mov(self, inst: Inst) -> None:
        dtype = _TYPES.get(inst.opcode[-1], u32)
        dest, src = inst.operands[0], inst.operands[1]
        if dest.startswith("{") or src.startswith("{"):   # halves of a register
            parts = (dest if dest.startswith("{") else src).strip("{}").split(",")
            half = {2: u8, 4: u16, 8: u32}.get(dtype.size) if len(parts) == 2 else None
            if half is None:
                raise self._refuse(inst, "this packing of registers is not lowered yet")
            bits = 8 * half.size
            if dest.startswith("{"):
                word = self.integer(src, dtype)
                for n, r in enumerate(parts):
                    if r != "_":
                        self._dest(inst, retype(word >> (bits * n), half), r)
            else:
                lo, hi = (retype(self.integer(r, half), dtype) for r in parts)
                self._dest(inst, lo | hi << bits)
            return
        v = self.value(inst.operands[1], dtype)
        self._dest(inst, v if isinstance(v, (Address, Choice, TensorMapRef)) else
                   retype(v, dtype))

    def _op_cvt(self, inst: Inst) -> None:
        fp8 = next((p for p in inst.opcode[1:] if p in ("e4m3x2", "e5m2x2")), None)
        if fp8 is not None:
            self._fp8_cvt(inst, fp8)
            return
        pair = next((p for p in inst.opcode[1:] if p in ("f16x2", "bf16x2")), None)
        if pair is not None:
            # `cvt.rn.f16x2.f32 d, a, b`: two f32 rounded to halves, a's in the upper half
            if inst.opcode[1:] != ("rn", pair, "f32") or len(inst.operands) != 3:
                raise self._refuse(inst, "this conversion to a pair of halves is not "
                                         "lowered yet")
            hi, lo = (self._half_bits(retype(self.value(t, f32), f32), pair == "bf16x2")
                      for t in inst.operands[1:3])
            self._dest(inst, retype((hi << 16) | lo, u32))
            return
        halves = [p for p in inst.opcode[1:] if p in ("f16", "bf16")]
        if halves:
            self._half_cvt(inst)
            return
        if inst.opcode[1:] in (("rna", "tf32", "f32"), ("rna", "satfinite", "tf32", "f32")):
            # `cvt.rna.tf32.f32` (wmma::__float_to_tf32): the float's bits rounded to 10
            # mantissa bits, to nearest with ties away from zero (half a tf32 ulp added to
            # the magnitude, the 13 low bits cleared); infinities and NaNs kept (PTX ISA)
            bits = self.integer(inst.operands[1], u32)
            finite = (bits & 0x7F800000) != 0x7F800000
            rounded = select(finite, (bits + 0x1000) & 0xFFFFE000, bits)
            if "satfinite" in inst.opcode:   # a finite value rounded past the largest: it
                rounded = select(finite & ((rounded & 0x7F800000) == 0x7F800000),
                                 (bits & 0x80000000) | 0x7F7FE000, rounded)
            self._dest(inst, rounded)
            return
        types = [p for p in inst.opcode[1:] if p in _TYPES]
        if len(types) != 2:
            raise self._refuse(inst, "a conversion smemsim cannot read")
        v = self.value(inst.operands[1], _TYPES[types[1]])
        narrow = _TYPES[types[0]].size < 8
        if isinstance(v, Address) and narrow and v.space in ("global", "param"):
            # a global pointer's low bits as a number (a union of a value and a pointer,
            # cub's InputValue: its fictional address, see _numbers)
            self._dest(inst, retype(self._flat(v), _TYPES[types[0]]))
            return
        if isinstance(v, (Address, Choice)):
            self._dest(inst, v)
            return
        src, dst = _TYPES[types[1]], _TYPES[types[0]]
        x = retype(v, src)
        if src.is_float:   # the rounding to an integer the instruction names
            mode = next((m for m in ("rni", "rmi", "rpi", "rzi") if m in inst.opcode), None)
            if mode is not None and (mode != "rzi" or dst.is_float):
                x = call({"rni": "rint", "rmi": "floor", "rpi": "ceil", "rzi": "trunc"}[mode],
                         x)
            if not dst.is_float:
                # a float out of the integer's range saturates to it, NaN is 0 (PTX ISA)
                # (the cast itself reads only numbers in range: the interpreter refuses a
                # conversion C leaves undefined, on every lane of a select)
                lo, top = float(dst.min), float(dst.max + 1)    # (exact: 0 or -2^k, 2^k)
                inside = select((x >= lo) & (x < top), x, const(0, src))
                self._dest(inst, select(x != x, const(0, dst), select(
                    x >= top, const(dst.max, dst), select(x < lo, const(dst.min, dst),
                                                          cast(inside, dst)))))
                return
        self._dest(inst, cast(x, dst))

    def _fp8_cvt(self, inst: Inst, fp8: str) -> None:
        """Pairs of 8-bit floats (PTX ISA, cvt): `cvt.rn.satfinite.e4m3x2.f32 d, a, b` (a's
        byte the upper one; nearest, ties to even; beyond the largest finite value and
        infinities: the largest, NaN: NaN) and `cvt.rn.f16x2.e4m3x2 d, a` (exact)."""
        e4m3 = fp8 == "e4m3x2"
        parts = inst.opcode[1:]
        if parts == ("rn", "satfinite", fp8, "f32") and len(inst.operands) == 3:
            hi, lo = (self._fp8_bits(retype(self.value(t, f32), f32), e4m3)
                      for t in inst.operands[1:3])
            self._dest(inst, retype((hi << 8) | lo, u16))
            return
        if parts == ("rn", "f16x2", fp8) and len(inst.operands) == 2:
            pair = retype(self.integer(inst.operands[1], u16), u32)
            hi, lo = (self._fp8_half(pair >> 8 & 0xFF, e4m3), self._fp8_half(pair & 0xFF, e4m3))
            self._dest(inst, retype((hi << 16) | lo, u32))
            return
        raise self._refuse(inst, "this conversion of 8-bit floats is not lowered yet")

    def _fp8_half(self, byte: Expr, e4m3: bool) -> Expr:
        """An 8-bit float's value as a half's 16 bits (u32), exactly: e5m2 is a half's upper
        byte; e4m3 (bias 7, no infinities, S.1111.111 NaN) through its f32 value; a NaN is
        the canonical 0x7FFF (as an H200 converts: tests/data/fp8_h200.json)."""
        if not e4m3:
            return select((byte & 0x7F) > 0x7C, const(0x7FFF, u32), byte << 8)
        sign, exp, man = byte >> 7, byte >> 3 & 0xF, byte & 7
        normal = bitcast((sign << 31) | ((exp + 120) << 23) | (man << 20), f32)
        tiny = cast(man, f32) * (1.0 / 512)   # exp 0: man x 2^-9
        tiny = select(sign != 0, -tiny, tiny)
        half = self._half_bits(select(exp == 0, tiny, normal), False)
        return select((byte & 0x7F) == 0x7F, const(0x7FFF, u32), half)

    @staticmethod
    def _fp8_bits(x: Expr, e4m3: bool) -> Expr:
        """An f32's nearest 8-bit float (ties to even, finite values saturated) as a byte
        (u32). Its codes are in order of value within a sign, so the code is the binade's
        first plus the value in quanta of that binade: q = rint(|x| / 2^(E - m)) from
        2^m, E the binade's exponent (the smallest normal one for subnormals)."""
        mant, bias, top, nan = (3, 7, 0x7E, 0x7F) if e4m3 else (2, 15, 0x7B, 0x7F)
        word = bitcast(x, u32)
        sign = (word >> 31) << 7
        is_nan = (word & 0x7FFFFFFF) > 0x7F800000
        # (a NaN's magnitude 0 and an infinity's 1e30: neither reaches rint)
        mag = select(is_nan, const(0.0, f32),
                     smin(bitcast(word & 0x7FFFFFFF, f32), const(1e30, f32)))
        e = smax(retype(word >> 23 & 0xFF, i32) - 127, const(1 - bias, i32))
        scale = bitcast(retype(mant - e + 127, u32) << 23, f32)    # 2^(m - E)
        q = cast(call("rint", mag * scale), i32)
        code = (e + bias) * (1 << mant) + q - (1 << mant)
        code = retype(smin(code, const(top, i32)), u32)
        return select(is_nan, const(nan, u32), sign | code)

    def _half_cvt(self, inst: Inst) -> None:
        """A 16-bit float from or to f32 (registers hold its bits): f16 through the IR's
        f16 functions, bf16 as the high half of an f32 (rounded to nearest even)."""
        parts = [p for p in inst.opcode[1:] if p in _TYPES or p in ("f16", "bf16")]
        if len(parts) != 2 or not {"f16", "bf16"} & set(parts):
            raise self._refuse(inst, "this conversion of a 16-bit float is not lowered yet")
        dst, src = parts
        if {dst, src} <= {"f16", "bf16"}:
            # to an integral value (`cvt.rmi.f16.f16`: hfloor, hceil, hrint, htrunc: exact
            # in the type), or between the two types (rounded to nearest even)
            value = self._half_value(retype(self.integer(inst.operands[1], u16), u32),
                                     src == "bf16")
            mode = next((m for m in ("rni", "rmi", "rpi", "rzi") if m in inst.opcode), None)
            if mode is not None:
                value = call({"rni": "rint", "rmi": "floor", "rpi": "ceil",
                              "rzi": "trunc"}[mode], value)
            elif dst == src or "rn" not in inst.opcode:
                raise self._refuse(inst, "this conversion of a 16-bit float is not lowered "
                                         "yet")
            self._dest(inst, retype(self._half_bits(value, dst == "bf16"), u16))
            return
        if dst not in ("f16", "bf16"):   # to f32, then (cvt) to the type asked for
            value = self._half_value(retype(self.integer(inst.operands[1], u16), u32),
                                     src == "bf16")
            self._dest(inst, value if dst == "f32" else cast(value, _TYPES[dst]))
            return
        if "rn" not in inst.opcode:
            raise self._refuse(inst, "a 16-bit float conversion that does not round to "
                                     "nearest is not lowered yet")
        # from f64 or an integer through f32: a value, never an address
        x = retype(self.value(inst.operands[1], _TYPES[src]), _TYPES[src])
        x = x if src == "f32" else _odd_f32(x) if src == "f64" else cast(x, f32)
        self._dest(inst, retype(self._half_bits(x, dst == "bf16"), u16))

    def _half_arith(self, inst: Inst) -> None:
        """Arithmetic of 16-bit floats (`.f16`, `.bf16`) and of pairs of them in one register
        (`.f16x2`, `.bf16x2`): each half through f32, rounded back to nearest even (a fused
        `fma` so rounds twice, which no address depends on)."""
        ty = inst.opcode[-1]
        if any(m in inst.opcode for m in ("sat", "relu", "rm", "rp", "rz")):
            raise self._refuse(inst, "this form of 16-bit float arithmetic is not lowered yet")
        fn, arity = _HALF_OPS[inst.name]
        if inst.name == "setp" and ty.endswith("x2"):
            raise self._refuse(inst, "a comparison of two pairs of halves is not lowered yet")
        pairs = ty.endswith("x2")
        word = u32 if pairs else u16
        brain = ty.startswith("bf")
        xs = [retype(self.integer(t, word), u32) for t in inst.operands[1:1 + arity]]
        if inst.name == "setp":
            cmp = inst.opcode[1]
            a, b = (self._half_value(x, brain) for x in xs)
            held = _compared(cmp, a, b, True)
            if held is None:
                raise self._refuse(inst, f"setp.{cmp} of 16-bit floats is not lowered yet")
            self._dest(inst, held)
            return
        out = const(0, u32)
        for h in range(2 if pairs else 1):
            halves = [self._half_value((x >> (16 * h)) & 0xFFFF, brain) for x in xs]
            out = out | (self._half_bits(fn(*halves), brain) << (16 * h))
        self._dest(inst, retype(out, word))

    @staticmethod
    def _half_value(bits: Expr, brain: bool) -> Expr:
        """The f32 value of a half's 16 bits (u32)."""
        return bitcast(bits << 16, f32) if brain else call("f16_from_bits", bits)

    @staticmethod
    def _half_bits(x: Expr, brain: bool) -> Expr:
        """An f32's nearest half (ties to even) as 16 bits in a u32."""
        if not brain:
            return retype(call("f16_bits", x), u32) & 0xFFFF
        word = bitcast(x, u32)
        return ((word + 0x7FFF + (word >> 16 & 1)) >> 16) & 0xFFFF

    def _binary(self, inst: Inst, fn) -> None:
        dtype = _TYPES.get(inst.opcode[-1])
        if dtype is None:
            raise self._refuse(inst, "an operand type smemsim cannot read")
        a = self.value(inst.operands[1], dtype)
        b = self.value(inst.operands[2], dtype)
        if isinstance(a, Choice) or isinstance(b, Choice):
            if inst.name != "add" or (isinstance(a, (Address, Choice)) and
                                      isinstance(b, (Address, Choice))):
                raise self._refuse(inst, "an address that is one of two arrays' (selp), "
                                         "in arithmetic other than an offset")
            ptr, delta = (a, b) if isinstance(a, Choice) else (b, a)
            self._dest(inst, ptr.plus(delta))
            return
        if isinstance(a, Address) or isinstance(b, Address):
            if inst.name == "add" and not (isinstance(a, Address) and isinstance(b, Address)):
                ptr, delta = (a, b) if isinstance(a, Address) else (b, a)
                self._dest(inst, ptr.plus(delta))
                return
            shared = [x for x in (a, b) if isinstance(x, Address) and x.space == "shared"]
            if inst.name == "sub" and len(shared) == 2:
                # the distance between two shared addresses: a number of bytes (of two
                # arrays, their distance in the window, as the GPU computes it)
                self._dest(inst, retype(retype(a.offset, dtype) - retype(b.offset, dtype),
                                        dtype))
                return
            if shared and all(x.space == "shared" for x in (a, b) if isinstance(x, Address)):
                # a shared address is a number in the window (a swizzle XORs its bits)
                # (64 bits kept in a 64-bit instruction: a wgmma descriptor ORs its fields
                # above the address's bits; an access reads the low 32)
                num = lambda x: x.offset if isinstance(x, Address) else x
                self._dest(inst, Address("shared", None, retype(fn(
                    retype(num(a), dtype), retype(num(b), dtype)), u64 if dtype.size == 8
                    else u32), shared[0].origin))
                return
            a, b = self._numbers(inst, a, b)   # a pointer's bits as a number
        self._dest(inst, retype(fn(retype(a, dtype), retype(b, dtype)), dtype))

    def _op_add(self, inst):
        self._binary(inst, lambda a, b: a + b)

    def _op_sub(self, inst):
        if isinstance(self.value(inst.operands[1], u64), (Address, Choice)) and \
                not isinstance(self.value(inst.operands[2], u64), (Address, Choice)):
            ptr = self.value(inst.operands[1], u64)
            self._dest(inst, ptr.plus(-retype(self.value(inst.operands[2], i64), i64)))
            return
        self._binary(inst, lambda a, b: a - b)

    def _op_shl(self, inst):
        self._shift(inst, left=True)

    def _op_shr(self, inst):
        self._shift(inst, left=False)

    def _shift(self, inst: Inst, left: bool) -> None:
        """`shl`/`shr`: the amount (a u32) clamped to the register's width N (PTX ISA): N
        or more shifts every bit out (`shr.s`: the sign fills), where C leaves it undefined."""
        dtype = _TYPES.get(inst.opcode[-1])
        a = self.value(inst.operands[1], dtype or u32)
        b = self.value(inst.operands[2], u32)
        fn = (lambda x, y: x << y) if left else (lambda x, y: x >> y)
        if not left and dtype is not None and dtype.signed and isinstance(a, Expr) and \
                isinstance(b, Expr) and b.op is Op.CONST and int(b.arg) == dtype.size * 8 - 1:
            # `shr.s32 m, x, 31`: the sign as a mask, all ones or 0 (nvcc's branch-free
            # `x < 0 ? -x : 0` is `(x >> 31) & -x`): a comparison, which the analysis
            # decides per block (hotspot's border offsets), where a shift it could not
            self._dest(inst, select(retype(a, dtype) < 0, const(-1, dtype), const(0, dtype)))
            return
        if dtype is None or dtype.is_float or isinstance(a, (Address, Choice)) or \
                isinstance(b, (Address, Choice)) or \
                (isinstance(b, Expr) and b.op is Op.CONST and 0 <= int(b.arg) < dtype.size * 8):
            self._binary(inst, fn)
            return
        bits = dtype.size * 8
        a, b = retype(a, dtype), retype(b, u32)
        shifted = fn(a, retype(smin(b, const(bits - 1, u32)), dtype))
        if left or dtype.signed:
            out = shifted if not left else select(b >= bits, const(0, dtype), shifted)
        else:
            out = select(b >= bits, const(0, dtype), shifted)
        self._dest(inst, retype(out, dtype))

    def _op_and(self, inst):
        if inst.opcode[-1] == "pred":
            a = self._predicate(inst.operands[1], inst)
            b = self._predicate(inst.operands[2], inst)
            self._dest(inst, (a != 0) & (b != 0))
            return
        self._binary(inst, lambda a, b: a & b)

    def _op_or(self, inst):
        if inst.opcode[-1] == "pred":
            a = self._predicate(inst.operands[1], inst)
            b = self._predicate(inst.operands[2], inst)
            self._dest(inst, (a != 0) | (b != 0))
            return
        self._binary(inst, lambda a, b: a | b)

    def _op_xor(self, inst):
        if inst.opcode[-1] == "pred":
            a = self._predicate(inst.operands[1], inst)
            b = self._predicate(inst.operands[2], inst)
            self._dest(inst, (a != 0) ^ (b != 0))
            return
        self._binary(inst, lambda a, b: a ^ b)

    def _op_mul(self, inst: Inst) -> None:
        if "wide" in inst.opcode:   # 16 x 16 -> 32 bits, 32 x 32 -> 64 bits
            src = _TYPES[inst.opcode[-1]]
            wide = _WIDE[src.name]
            a = self.integer(inst.operands[1], src)
            b = self.integer(inst.operands[2], src)
            self._dest(inst, retype(a, wide) * retype(b, wide))
            return
        if "hi" in inst.opcode:   # the high half of the whole product
            src = _TYPES.get(inst.opcode[-1])
            if src not in (i16, u16, i32, u32, i64, u64):
                raise self._refuse(inst, "this form of mul.hi is not lowered yet")
            a = self.integer(inst.operands[1], src)
            b = self.integer(inst.operands[2], src)
            self._dest(inst, _mul_hi(a, b, src))
            return
        self._binary(inst, lambda a, b: a * b)

    def _op_mad(self, inst: Inst) -> None:
        if "wide" in inst.opcode:   # 32 x 32 -> 64 bits, plus a 64-bit addend
            src = _TYPES[inst.opcode[-1]]
            wide = _WIDE[src.name]
            a, b = (retype(self.integer(t, src), wide) for t in inst.operands[1:3])
            c = self.value(inst.operands[3], wide)
            if isinstance(c, (Address, Choice)):
                self._dest(inst, c.plus(a * b))
            else:
                self._dest(inst, a * b + retype(c, wide))
            return
        if "lo" not in inst.opcode and not inst.opcode[-1].startswith("f"):
            raise self._refuse(inst, "this form of mad is not lowered yet")
        dtype = _TYPES[inst.opcode[-1]]
        a, b, c = (self.value(t, dtype) for t in inst.operands[1:4])
        if isinstance(c, Choice) and not isinstance(a, (Address, Choice)) and \
                not isinstance(b, (Address, Choice)):
            self._dest(inst, c.plus(retype(a, dtype) * retype(b, dtype)))
            return
        if isinstance(c, Address) and not isinstance(a, Address) and \
                not isinstance(b, Address):
            if c.space == "shared":   # base + i * stride in the window
                self._dest(inst, Address("shared", None, retype(
                    retype(a, dtype) * retype(b, dtype) + retype(c.offset, dtype), u32), c.origin))
            else:
                self._dest(inst, c.plus(retype(a, dtype) * retype(b, dtype)))
            return
        a, b, c = self._numbers(inst, a, b, c)
        if dtype.is_float:
            # `fma.rn` and a float `mad` (fused on sm_20 and newer): one rounding, which a
            # range reduction (cuda_fp16's hsin: x - k pi/2 in three fmas) depends on
            self._dest(inst, retype(call("fma", retype(a, dtype), retype(b, dtype),
                                         retype(c, dtype)), dtype))
            return
        self._dest(inst, retype(retype(a, dtype) * retype(b, dtype) + retype(c, dtype), dtype))

    def _choice_is_null(self, inst: Inst, cmp: str, a, b) -> Expr:
        """`setp.eq/ne %p, ptr, 0` of a Choice (`if (row_mask)`): null where its null side
        is taken, never where both sides are arrays."""
        ptr, other = (a, b) if isinstance(a, Choice) else (b, a)
        if cmp not in ("eq", "ne") or not (isinstance(other, Expr) and
                                           other.op is Op.CONST and other.arg == 0):
            raise self._refuse(inst, "an address that is one of two arrays' (selp), "
                                     "compared other than with null")
        null = const(0, i32)
        for n, side in enumerate(ptr.sides):
            if side.space == "null":
                null = null | (ptr.index == n)
        return null if cmp == "eq" else null == 0

    def _op_setp(self, inst: Inst) -> None:
        cmp = inst.opcode[1]
        dtype = _TYPES.get(inst.opcode[-1])
        # (.ftz flushes subnormal inputs to zero: a value's last bits, which no address
        # or count here depends on)
        parts = [p for p in inst.opcode if p != "ftz"]
        if dtype is None or len(parts) > 3 or "|" in inst.operands[0]:
            raise self._refuse(inst, "this form of setp is not lowered yet")
        a = self.value(inst.operands[1], dtype)
        b = self.value(inst.operands[2], dtype)
        if isinstance(a, Choice) or isinstance(b, Choice):
            self._dest(inst, self._choice_is_null(inst, cmp, a, b))
            return
        a, b = self._numbers(inst, a, b)
        held = _compared(cmp, retype(a, dtype), retype(b, dtype), dtype.is_float)
        if held is None:
            raise self._refuse(inst, f"setp.{cmp} is not lowered yet")
        self._dest(inst, held)

    def _op_set(self, inst: Inst) -> None:
        """`set.CmpOp.dtype.stype d, a, b`: the comparison as a number of dtype, 1.0 or 0.0
        for a float, all ones or 0 for an integer; of halves (`.f16`, `.f16x2`, `.bf16`..)
        each half's comparison, 1.0 or 0.0 as a half, all ones or 0 in a 16-bit half of an
        integer (PTX ISA, set)."""
        parts = [p for p in inst.opcode[1:] if p != "ftz"]
        if len(parts) != 3 or len(inst.operands) != 3:
            raise self._refuse(inst, "this form of set is not lowered yet (set.CmpOp.dtype."
                                     "stype d, a, b is)")
        cmp, dname, sname = parts
        dtype = _TYPES.get(dname)
        if sname in _HALF_TYPES:
            pairs, brain = sname.endswith("x2"), sname.startswith("bf")
            xs = [retype(self.integer(t, u32 if pairs else u16), u32)
                  for t in inst.operands[1:3]]
            true = 0x3F80 if dname.startswith("bf") else 0x3C00 \
                if dname in _HALF_TYPES else 0xFFFF
            out = const(0, u32)
            for h in range(2 if pairs else 1):
                a, b = (self._half_value((x >> (16 * h)) & 0xFFFF, brain) for x in xs)
                held = _compared(cmp, a, b, True)
                if held is None:
                    raise self._refuse(inst, f"set.{cmp} of 16-bit floats is not lowered yet")
                out = out | select(held, const(true << (16 * h), u32), const(0, u32))
            if not pairs and dname not in _HALF_TYPES:   # (a 32-bit integer: all ones)
                out = select(out != 0, const(0xFFFFFFFF, u32), const(0, u32))
            word = u16 if dname in ("f16", "bf16") else u32
            self._dest(inst, retype(out, word))
            return
        stype = _TYPES.get(sname)
        if dtype is None or stype is None:
            raise self._refuse(inst, "this form of set is not lowered yet")
        a, b = self._numbers(inst, self.value(inst.operands[1], stype),
                             self.value(inst.operands[2], stype))
        held = _compared(cmp, retype(a, stype), retype(b, stype), stype.is_float)
        if held is None:
            raise self._refuse(inst, f"set.{cmp} is not lowered yet")
        yes = const(1.0, dtype) if dtype.is_float else _wrapped(-1, dtype)
        self._dest(inst, select(held, yes, const(0, dtype)))

    def _numbers(self, inst: Inst, *values):
        """Operands as numbers: a shared address is its place in the window; two global
        addresses of one array compare by offset; a global address with a number cannot."""
        glob = [v for v in values if isinstance(v, Address) and v.space != "shared"]
        if glob and (len(glob) != len(values) or len({(g.base) for g in glob}) != 1):
            # a pointer as a number (a null or alignment test): each array has its own
            # fictional address, a multiple of 2^40 (cudaMalloc aligns to 256 bytes)
            return tuple(self._flat(v) if isinstance(v, Address) and v.space != "shared"
                         else v.offset if isinstance(v, Address) else v for v in values)
        return tuple(v.offset if isinstance(v, Address) else v for v in values)

    def _flat(self, addr: Address) -> Expr:
        """A global address as a number (see _numbers)."""
        start = self.flat_bases.setdefault(addr.base, (len(self.flat_bases) + 1) << 40)
        return const(start, u64) + retype(addr.offset, u64)

    def _op_selp(self, inst: Inst) -> None:
        dtype = _TYPES[inst.opcode[-1]]
        a, b = (self.value(t, dtype) for t in inst.operands[1:3])
        p = self._predicate(inst.operands[3], inst)
        if isinstance(a, (Address, Choice)) or isinstance(b, (Address, Choice)):
            null = lambda x: isinstance(x, Expr) and x.op is Op.CONST and x.arg == 0  # noqa
            if isinstance(a, Address) and null(b) or isinstance(b, Address) and null(a):
                # `p = mask ? mask + i : nullptr`: a choice whose other side is no array
                ptr = a if isinstance(a, Address) else b
                side = Address("null", None, const(0, i64))
                self._dest(inst, _either(p, ptr, side) if ptr is a else _either(p, side, ptr))
                return
            if not (isinstance(a, Address) and isinstance(b, Address)):
                raise self._refuse(inst, "a choice between an address and a number, or "
                                         "among more than two arrays")
            if a.base == b.base and a.space == b.space:
                self._dest(inst, Address(a.space, a.base, select(p, a.offset, b.offset),
                                         a.origin if a.origin == b.origin else None))
            else:
                self._dest(inst, _either(p, a, b))
            return
        self._dest(inst, select(p, retype(a, dtype), retype(b, dtype)))

    def _unary(self, inst: Inst, fn) -> None:
        ty = inst.opcode[-1]
        if ty == "pred":
            self._dest(inst, fn(self._predicate(inst.operands[1], inst), True))
            return
        dtype = _TYPES.get(ty)
        if dtype is None:
            raise self._refuse(inst, "an operand type smemsim cannot read")
        self._dest(inst, retype(fn(self.integer(inst.operands[1], dtype) if not dtype.is_float
                                 else retype(self.value(inst.operands[1], dtype), dtype), False),
                              dtype))

    def _op_not(self, inst):
        self._unary(inst, lambda a, pred: (a == 0) if pred else ~a)

    def _op_neg(self, inst):
        self._unary(inst, lambda a, pred: -a)

    def _op_abs(self, inst):
        self._unary(inst, lambda a, pred: select(a < 0, -a, a))

    def _op_min(self, inst):
        self._binary(inst, smin)

    def _op_max(self, inst):
        self._binary(inst, smax)

    def _op_div(self, inst):
        ty = _TYPES.get(inst.opcode[-1])
        self._binary(inst, (lambda a, b: a / b) if ty is not None and ty.is_float
                     else (lambda a, b: a // b))

    def _op_rem(self, inst):
        self._binary(inst, lambda a, b: a % b)

    def _op_fma(self, inst: Inst) -> None:
        self._op_mad(inst)

    def _math(self, inst: Inst, name: str, arity: int = 1) -> None:
        dtype = _TYPES.get(inst.opcode[-1])
        if dtype is None or not dtype.is_float:
            raise self._refuse(inst, "this form is not lowered yet")
        args = [retype(self.value(t, dtype), dtype) for t in inst.operands[1:1 + arity]]
        self._dest(inst, retype(call(name, *args), dtype))

    def _op_copysign(self, inst: Inst) -> None:
        """`copysign.{f32,f64} d, a, b`: b's magnitude with a's sign (PTX ISA: the sign of
        the first operand copied into the second)."""
        dtype = _TYPES.get(inst.opcode[-1])
        if dtype not in (f32, f64):
            raise self._refuse(inst, "this form of copysign is not lowered yet")
        word = u32 if dtype is f32 else u64
        sign = 1 << (dtype.size * 8 - 1)
        a, b = (bitcast(retype(self.value(t, dtype), dtype), word) for t in inst.operands[1:3])
        self._dest(inst, bitcast((b & (sign - 1)) | (a & sign), dtype))

    def _op_sqrt(self, inst):
        self._math(inst, "sqrt")

    def _op_rsqrt(self, inst):
        self._math(inst, "rsqrt")

    def _op_ex2(self, inst):
        self._math(inst, "exp2")

    def _op_lg2(self, inst):
        self._math(inst, "log2")

    def _op_sin(self, inst):
        self._math(inst, "sin")

    def _op_cos(self, inst):
        self._math(inst, "cos")

    def _op_tanh(self, inst):
        self._math(inst, "tanh")

    def _op_rcp(self, inst):
        dtype = _TYPES.get(inst.opcode[-1])
        if dtype is None or not dtype.is_float:
            raise self._refuse(inst, "this form of rcp is not lowered yet")
        self._dest(inst, const(1.0, dtype) / retype(self.value(inst.operands[1], dtype), dtype))

    # ---------------------------------------------------------------- bits
    def _bit_call(self, inst: Inst, name: str) -> None:
        dtype = _TYPES.get(inst.opcode[-1])
        if dtype is None or dtype.is_float:
            raise self._refuse(inst, "this form is not lowered yet")
        x = self.integer(inst.operands[1], dtype)
        self._dest(inst, retype(call(name, x), u32 if name != "brev" else dtype))

    def _op_popc(self, inst):
        self._bit_call(inst, "popc")

    def _op_bfind(self, inst: Inst) -> None:
        """`bfind{.shiftamt}.{u,s}{32,64} d, a`: the position of a's most significant bit
        (of a non-sign bit for .s: that of ~a where a < 0), or with .shiftamt the left shift
        that brings it to the top; 0xffffffff where there is none (PTX ISA, bfind)."""
        dtype = _TYPES.get(inst.opcode[-1])
        if dtype not in (u32, i32, u64, i64):
            raise self._refuse(inst, "this form of bfind is not lowered yet")
        unsigned = u32 if dtype.size == 4 else u64
        a = self.integer(inst.operands[1], dtype)
        if dtype in (i32, i64):
            a = select(a < 0, ~a, a)
        a = retype(a, unsigned)
        zeros = retype(call("clz", a), u32)
        found = zeros if "shiftamt" in inst.opcode else \
            const(dtype.size * 8 - 1, u32) - zeros
        self._dest(inst, select(a == 0, const(0xFFFFFFFF, u32), found))

    def _op_clz(self, inst):
        self._bit_call(inst, "clz")

    def _op_brev(self, inst):
        self._bit_call(inst, "brev")

    def _op_bfe(self, inst: Inst) -> None:
        """`bfe.{u,s}32 d, a, pos, len`: len bits of a from pos (sign-extended for .s32)."""
        dtype = _TYPES.get(inst.opcode[-1])
        if dtype not in (u32, i32):
            raise self._refuse(inst, "this form of bfe is not lowered yet")
        held = self.value(inst.operands[1], dtype)
        shared = held if isinstance(held, Address) and held.space == "shared" else None
        # (a shared address is a number in the window: Triton takes a wgmma descriptor's
        # start field from it with bfe)
        a = retype(shared.offset if shared else self.integer(inst.operands[1], dtype), u32)
        pos = smin(retype(self.integer(inst.operands[2], u32), u32) & 0xFF, const(32, u32))
        length = smin(retype(self.integer(inst.operands[3], u32), u32) & 0xFF, const(32, u32))
        mask = retype((const(1, u64) << retype(length, u64)) - 1, u32)
        field = retype(retype(a, u64) >> retype(pos, u64), u32) & mask
        if dtype is i32:   # the field's top bit fills the rest
            top = select(length == 0, const(0, u32),
                         (field >> retype(select(length == 0, const(0, u32), length - 1), u32))
                         & 1)
            field = field | select(top != 0, ~mask, const(0, u32))
        self._dest(inst, retype(field, dtype) if shared is None else
                   Address("shared", None, retype(field, u32), shared.origin))

    def _op_bfi(self, inst: Inst) -> None:
        """`bfi.b32 d, a, b, pos, len`: b with its bits pos..pos+len-1 the low bits of a
        (pos and len read as bytes; nothing changes from bit 32 on)."""
        bits = {"b32": 32, "b64": 64}.get(inst.opcode[-1])
        if bits is None:
            raise self._refuse(inst, "this form of bfi is not lowered yet")
        dtype = u32 if bits == 32 else u64
        at, size = (_IMMEDIATE.fullmatch(t) and int(t, 0) & 0xFF for t in inst.operands[3:5])
        if at is not None and size is not None and 0 < at < bits and at + size >= bits:
            # the field reaches the word's top (`bfi.b32 d, ctaid.y, tid & 31, 5, 27`: nvcc's
            # `blockIdx.y * 32 + (threadIdx.x % 32)`): b's low bits plus a shifted, which the
            # analyses read as affine in a
            a, b = (self.integer(t, dtype) for t in inst.operands[1:3])
            self._dest(inst, (b & const((1 << at) - 1, dtype)) + (a << const(at, dtype)))
            return
        a, b = (retype(self.integer(t, dtype), u64) for t in inst.operands[1:3])
        pos = retype(smin(retype(self.integer(inst.operands[3], u32), u32) & 0xFF,
                          const(bits, u32)), u64)
        length = retype(smin(retype(self.integer(inst.operands[4], u32), u32) & 0xFF,
                             const(bits, u32)), u64)
        # len ones from bit pos, within the word (no shift by the word's width or more)
        ones = select(length >= 64, const((1 << 64) - 1, u64),
                      (const(1, u64) << smin(length, const(63, u64))) - 1)
        mask = select(pos >= bits, const(0, u64), ones << smin(pos, const(63, u64)))
        if bits == 32:
            mask = mask & 0xFFFFFFFF
        full = (1 << bits) - 1
        self._dest(inst, retype((b & ~mask & full) | ((a << smin(pos, const(63, u64))) & mask),
                                dtype))

    def _op_prmt(self, inst: Inst) -> None:
        """`prmt.b32 d, a, b, c`: each byte of d one of the eight bytes of b:a (a the low
        four), as c's nibble for it says (its bit 3: the chosen byte's sign, repeated)."""
        if inst.opcode[1:] != ("b32",):
            raise self._refuse(inst, "this mode of prmt is not lowered yet")
        a, b = (retype(self.integer(t, u32), u64) for t in inst.operands[1:3])
        c = retype(self.integer(inst.operands[3], u32), u32)
        both = a | (b << 32)
        out = const(0, u64)
        for i in range(4):
            nibble = (c >> (4 * i)) & 0xF
            if c.op is Op.CONST:   # the usual case: a constant selector, bytes known
                n = (int(c.arg) >> (4 * i)) & 0xF
                byte = (both >> (8 * (n & 7))) & 0xFF
                if n & 8:
                    byte = select((byte & 0x80) != 0, const(0xFF, u64), const(0, u64))
            else:
                byte = (both >> retype((nibble & 7) * 8, u64)) & 0xFF
                byte = select((nibble & 8) != 0,
                              select((byte & 0x80) != 0, const(0xFF, u64), const(0, u64)),
                              byte)
            out = out | (byte << (8 * i))
        self._dest(inst, retype(out, u32))

    def _op_dp4a(self, inst: Inst) -> None:
        """`dp4a.atype.btype d, a, b, c`: c plus the products of a's and b's four bytes
        (each signed where its type is .s32), modulo 2^32."""
        types = inst.opcode[1:]
        if len(types) != 2 or any(t not in ("u32", "s32") for t in types):
            raise self._refuse(inst, "this form of dp4a is not lowered yet")
        a, b = (retype(self.integer(t, u32), i64) for t in inst.operands[1:3])
        total = retype(self.integer(inst.operands[3], u32), i64)
        for i in range(4):
            x, y = ((v >> (8 * i)) & 0xFF for v in (a, b))
            if types[0] == "s32":
                x = x - select(x >= 128, const(256, i64), const(0, i64))
            if types[1] == "s32":
                y = y - select(y >= 128, const(256, i64), const(0, i64))
            total = total + x * y
        self._dest(inst, retype(total & 0xFFFFFFFF, u32))

    def _op_bmsk(self, inst: Inst) -> None:
        """`bmsk.{clamp,wrap}.b32 d, a, b`: b one bits from bit a."""
        wrap = "wrap" in inst.opcode
        a = retype(self.integer(inst.operands[1], u32), u32)
        b = retype(self.integer(inst.operands[2], u32), u32)
        a, b = (a & 31, b & 31) if wrap else (smin(a, const(32, u32)), smin(b, const(32, u32)))
        mask = ((const(1, u64) << retype(b, u64)) - 1) << retype(a, u64)
        self._dest(inst, retype(mask & 0xFFFFFFFF, u32))

    def _op_redux(self, inst: Inst) -> None:
        """`redux.sync.OP.type d, a, membermask` over a full warp: a butterfly of shuffles,
        which every lane ends with the same result of."""
        op = next((p for p in inst.opcode[1:] if p in ("add", "min", "max", "and", "or",
                                                          "xor")), None)
        dtype = _TYPES.get(inst.opcode[-1])
        mask = self._mask(inst.operands[2], inst)
        if op is None or dtype is None or dtype.is_float or mask != 0xFFFFFFFF:
            raise self._refuse(inst, "this form of redux is not lowered yet (a full warp's "
                                     "integer add, min, max, and, or, xor is)")
        fn = {"add": lambda x, y: x + y, "min": smin, "max": smax, "and": lambda x, y: x & y,
              "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y}[op]
        v = retype(self.integer(inst.operands[1], dtype), dtype)
        for offset in (16, 8, 4, 2, 1):
            v = retype(fn(v, retype(self.k.shfl(v, offset, "xor"), dtype)), dtype)
        self._dest(inst, v)

    # ---------------------------------------------------------------- tensor-core data
    def _op_ldmatrix(self, inst: Inst) -> None:
        """`ldmatrix...x{1,2,4}[.trans].shared.b16 {d..}, [a]`: each d register is two
        16-bit elements of the fragment, the first in its low half."""
        matrices, trans = self._matrix_shape(inst)
        addr = self.address(inst.operands[1], inst)
        view, index = self._element(addr, u16, inst)
        frag = self.k.ldmatrix(view, index, matrices=matrices, trans=trans)
        for j, r in enumerate(inst.operands[0].strip("{}").split(",")):
            self._dest(inst, retype(frag[2 * j], u32) | retype(frag[2 * j + 1], u32) << 16, r)

    def _op_stmatrix(self, inst: Inst) -> None:
        matrices, trans = self._matrix_shape(inst)
        addr = self.address(inst.operands[0], inst)
        view, index = self._element(addr, u16, inst)
        values = []
        for r in inst.operands[1].strip("{}").split(","):
            word = self.integer(r, u32)
            values += [retype(word & 0xFFFF, u16), retype(word >> 16, u16)]
        self.k.stmatrix(view, index, values, matrices=matrices, trans=trans)

    def _matrix_shape(self, inst: Inst) -> tuple[int, bool]:
        parts = inst.opcode[1:]
        count = next((int(p[1:]) for p in parts if p in ("x1", "x2", "x4")), None)
        if count is None or "m8n8" not in parts or "b16" not in parts:
            raise self._refuse(inst, "this ldmatrix/stmatrix shape is not lowered yet")
        return count, "trans" in parts

    def _op_cp(self, inst: Inst) -> None:
        """`cp.async.{ca,cg}.shared.global [dst], [src], size` and its groups; the arrival of
        a thread's copies on an mbarrier; 1-D bulk copies from global memory."""
        parts = inst.opcode[1:]
        if parts[:2] == ("async", "bulk"):
            self._bulk_copy(inst)
            return
        if parts[:1] != ("async",):
            raise self._refuse(inst, "this copy is not lowered yet")
        if parts[1:3] == ("mbarrier", "arrive"):
            # `cp.async.mbarrier.arrive.shared.b64 [bar]`: one more pending arrival now, made
            # when the thread's copies have landed (.noinc counts it among the expected
            # arrivals instead: not modelled)
            if "noinc" in parts or "shared::cluster" in parts:
                raise self._refuse(inst, "this form of cp.async.mbarrier.arrive is not "
                                         "lowered yet")
            view, index = self._barrier_element(inst.operands[0], inst)
            self.k.cp_async_arrive(view, index)
            return
        if "commit_group" in parts:
            self.k.cp_async_commit()
            return
        if "wait_group" in parts or "wait_all" in parts:
            pending = 0 if "wait_all" in parts else int(inst.operands[0], 0)
            self.k.cp_async_wait(pending)
            return
        if "mbarrier" in parts or len(inst.operands) not in (3, 4):
            raise self._refuse(inst, "this form of cp.async is not lowered yet")
        size = int(inst.operands[2], 0)
        src_bytes = None
        if len(inst.operands) == 4:   # a source size: fewer bytes read, the rest zeroed
            src_bytes = self.integer(inst.operands[3], u32)
            if src_bytes.op is Op.CONST and int(src_bytes.arg) == size:
                src_bytes = None
        dst = self.address(inst.operands[0], inst)
        src = self.address(inst.operands[1], inst)
        dtype = {4: u32, 8: u32, 16: u32}.get(size)
        if dtype is None or dst.space != "shared" or src.space == "shared":
            raise self._refuse(inst, f"a {size}-byte cp.async from {src.space} to {dst.space}")
        dview, dindex = self._element(dst, dtype, inst)
        sview, sindex = self._element(src, dtype, inst)
        self.k.cp_async(dview, dindex, sview, sindex, width=size // 4, bypass="cg" in parts,
                        src_bytes=src_bytes)

    def _bulk_copy(self, inst: Inst) -> None:
        """`cp.async.bulk.shared::{cluster,cta}.global.mbarrier::complete_tx::bytes [dst],
        [src], size, [bar]`: the thread's copy of `size` bytes (a constant) completing on the
        mbarrier (libcu++'s `cuda::memcpy_async` of 16-byte aligned pieces on sm_90)."""
        parts = inst.opcode[1:]
        if "tensor" in parts:
            self._tensor_copy(inst)
            return
        if parts[2:3] in (("commit_group",), ("wait_group",)):
            if parts[2] == "commit_group":
                self.k.bulk_commit()
            else:
                self.k.bulk_wait(int(inst.operands[0], 0), read="read" in parts)
            return
        if "global" not in parts or not any(p.startswith("shared") for p in parts) or \
                "mbarrier::complete_tx::bytes" not in parts or \
                any(p.startswith(("multicast", "L2")) for p in parts) or \
                len(inst.operands) != 4 or parts.index("global") < 2:
            raise self._refuse(inst, "this form of cp.async.bulk is not lowered yet")
        size = self.integer(inst.operands[2], u32)
        if size.op is not Op.CONST:
            raise self._refuse(inst, f"a bulk copy of {inst.operands[2]} bytes, a number known "
                                     "only at run time (the IR's bulk copies have a fixed size)")
        dst = self.address(inst.operands[0], inst)
        src = self.address(inst.operands[1], inst)
        if dst.space != "shared" or src.space == "shared":
            raise self._refuse(inst, f"a bulk copy from {src.space} to {dst.space}")
        dview, dindex = self._element(dst, u8, inst)
        sview, sindex = self._element(src, u8, inst)
        bview, bindex = self._barrier_element(inst.operands[3], inst)
        try:
            self.k.bulk_load(dview, dindex, sview, sindex, int(size.arg), bview, bindex)
        except KernelError as err:
            raise self._refuse(inst, err.message) from None

    def _tensor_copy(self, inst: Inst) -> None:
        """`cp.async.bulk.tensor.Nd` of tile mode: a TMA load (`.shared::cluster.global
        .mbarrier::complete_tx::bytes [dst], [map, {c0, c1, ...}], [bar]`) or store
        (`.global.shared::cta.bulk_group [map, {...}], [src]`), the map one of the kernel's
        CUtensorMap parameters (--tensor-map), its coordinates innermost first."""
        parts = inst.opcode[1:]
        if "im2col" in parts or any(p.startswith(("multicast", "L2")) for p in parts):
            raise self._refuse(inst, "this form of cp.async.bulk.tensor is not lowered yet")
        load = parts.index("global") > next(n for n, p in enumerate(parts)
                                             if p.startswith("shared"))
        where = inst.operands[1] if load else inst.operands[0]
        m = re.fullmatch(r"\[([^,\]]+),\{([^}]*)\}\]", where)
        if m is None:
            raise self._refuse(inst, "a tensor copy's map and coordinates not read")
        tmap = self.value(m.group(1), u64)
        if not isinstance(tmap, TensorMapRef):
            raise self._refuse(inst, f"{m.group(1)} is not the address of a CUtensorMap "
                                     "parameter (--tensor-map describes one)")
        tm = tmap.tensor_map
        coords = [self.integer(c, i32) for c in m.group(2).split(",")][::-1]
        tile = self.address(inst.operands[0] if load else inst.operands[1], inst)
        if tile.space != "shared":
            raise self._refuse(inst, f"a tensor copy to {tile.space} memory")
        view, index = self._element(tile, tm.array.dtype, inst)
        try:
            if load:
                bview, bindex = self._barrier_element(inst.operands[2], inst)
                self.k.tma_load(tm, view, index, coords, bview, bindex)
            else:
                self.k.tma_store(tm, view, index, coords)
        except KernelError as err:
            raise self._refuse(inst, err.message) from None

    def _barrier_element(self, where: str, inst: Inst):
        """The mbarrier at `[addr]`: a 64-bit element of the shared window."""
        addr = self.address(where, inst)
        if addr.space != "shared":
            raise self._refuse(inst, f"an mbarrier in {addr.space} memory")
        return self._element(addr, u64, inst)

    def _op_mbarrier(self, inst: Inst) -> None:
        """`mbarrier.init`, `.arrive` (its state kept: the phase arrived on), `.expect_tx`,
        and `.try_wait`/`.test_wait` (by state or `.parity`) as the wait they stand for: a
        thread reaching one waits until the phase completes (nvcc puts them in a loop that
        spins until they succeed), then its result is true."""
        parts = inst.opcode[1:]
        op = parts[0] if parts else ""
        if "shared::cluster" in parts:
            raise self._refuse(inst, "an mbarrier of another block of the cluster is not "
                                     "lowered yet")
        if op == "init":
            view, index = self._barrier_element(inst.operands[0], inst)
            self.k.mbarrier_init(view, index, self.integer(inst.operands[1], u32))
        elif op == "expect_tx":
            view, index = self._barrier_element(inst.operands[0], inst)
            self.k.mbarrier_expect_tx(view, index, self.integer(inst.operands[1], u32))
        elif op == "arrive" and "noComplete" not in parts:
            view, index = self._barrier_element(inst.operands[1], inst)
            expect = "expect_tx" in parts
            if not expect and len(inst.operands) == 3:
                count = self.integer(inst.operands[2], u32)
                if count.op is not Op.CONST or int(count.arg) != 1:
                    raise self._refuse(inst, f"an arrival counted {inst.operands[2]} times "
                                             "(one thread's arrival counts once here)")
            tx = self.integer(inst.operands[2], u32) if expect else None
            keep = inst.operands[0] != "_"
            token = self.k.mbarrier_arrive(view, index, expect_tx=tx,
                                           token="mbar_state" if keep else None)
            if keep:
                self._dest(inst, token)
        elif op in ("try_wait", "test_wait"):
            view, index = self._barrier_element(inst.operands[1], inst)
            if "parity" in parts:
                parity = self.integer(inst.operands[2], u32)
            else:
                parity = retype(self.integer(inst.operands[2], u64) & const(1, u64), u32)
            self.k.mbarrier_wait(view, index, parity)
            self._dest(inst, const(1, i32) != const(0, i32))
        elif op == "inval":
            # the barrier's word is free for other data again (libcu++'s pipeline
            # destructor): no operation of the model's barriers reads it after
            self._barrier_element(inst.operands[0], inst)
        else:
            raise self._refuse(inst, "this mbarrier operation is not lowered yet")

    # ---------------------------------------------------------------- wgmma (sm_90a)
    def _op_wgmma(self, inst: Inst) -> None:
        """`wgmma.fence`, `.commit_group`, `.wait_group N`, and `wgmma.mma_async.sync.aligned
        .m64nNk16.f32.{f16,bf16}.{f16,bf16} {d..}, descA | {a0..a3}, descB, scale-d, 1, 1,
        [tnspA,] tnspB`: the descriptors are the 64-bit numbers the program computed (the
        IR decodes them as the hardware does); the accumulators are copied into the IR's
        wgmma array and back (the IR's model runs in order: the result is there at once)."""
        kind = inst.opcode[1]
        if kind == "fence":
            self.k.wgmma_fence()
            return
        if kind == "commit_group":
            self.k.wgmma_commit()
            return
        if kind == "wait_group":
            try:
                self.k.wgmma_wait(int(inst.operands[0], 0))
            except (ValueError, IndexError, KernelError):
                raise self._refuse(inst, "wgmma.wait_group of a number smemsim cannot "
                                         "read") from None
            return
        if kind != "mma_async":
            raise self._refuse(inst, "this wgmma instruction is not lowered yet")
        n = _gmma_n(inst)
        types = inst.opcode[-3:]
        if n is None or types[0] != "f32" or types[1] != types[2] or \
                types[1] not in ("f16", "bf16") or "sp" in inst.opcode:
            raise self._refuse(inst, "wgmma of this shape or these types is not lowered yet "
                                     "(m64nNk16 with f16 or bf16 inputs into f32 is)")
        dtype = {"f16": f16, "bf16": bf16}[types[1]]
        regs = [r.strip() for r in inst.operands[0].strip("{}").split(",")]
        a_regs = inst.operands[1].startswith("{")
        rest = inst.operands[2:]
        if len(regs) != n // 2 or len(rest) != (5 if a_regs else 6):
            raise self._refuse(inst, f"wgmma m64n{n}k16: {n // 2} accumulators, A's descriptor "
                                     "(or four registers), B's, scale-d, the two scales and "
                                     "the transposes expected")
        imm = lambda t: self.integer(t, i32)   # noqa: E731
        number = lambda t: int(imm(t).arg) if imm(t).op is Op.CONST else None  # noqa: E731
        scales = [number(t) for t in rest[2:4]]
        if scales != [1, 1]:
            raise self._refuse(inst, "wgmma with a negated A or B (imm-scale-a/b -1) is not "
                                     "lowered yet")
        trans = [number(t) for t in rest[4:]]
        if any(t not in (0, 1) for t in trans):
            raise self._refuse(inst, "wgmma's transposes are immediates 0 or 1")
        majors = ["MN" if t else "K" for t in trans]
        scale_d = self._predicate(rest[1], inst) if rest[1] in self.entry.names or \
            rest[1].startswith("%p") else imm(rest[1])
        acc = self.gmma_acc[n]
        for j, r in enumerate(regs):   # what the accumulators hold before
            self.k.write_local(acc, j, self._accumulator(r))
        if a_regs:
            words = [w.strip() for w in inst.operands[1].strip("{}").split(",")]
            if len(words) != 4:
                raise self._refuse(inst, "wgmma's A from registers is four 32-bit registers")
            for j, r in enumerate(words):
                self.k.write_local(self.gmma_a, j, self.integer(r, u32))
            a = self.gmma_a
        else:
            a = self._gmma_operand(inst, inst.operands[1], dtype, majors[0])
        b = self._gmma_operand(inst, rest[0], dtype, majors[-1])
        try:
            self.k.wgmma(acc, a, b, n, scale_d)
        except KernelError as err:
            raise self._refuse(inst, err.message) from None
        for j, r in enumerate(regs):
            value = self.k.read_local(acc, j)
            if r not in self.local_regs:   # held now: the next wgmma overwrites the array
                value = self.k.let(self._fresh_name(_c_name(r)), value)
            self._dest(inst, value, r)

    def _accumulator(self, reg: str) -> Expr:
        """An accumulator register's value (0 where nothing wrote it yet: scale-d 0 reads
        none of them)."""
        if reg not in self.regs:
            return const(0.0, f32)
        v = self.value(reg, f32)
        if not isinstance(v, Expr):
            raise PtxError(f"wgmma accumulator {reg} holds an address")
        return retype(v, f32)

    def _gmma_operand(self, inst: Inst, text: str, dtype, major: str) -> tuple:
        """(a view of the shared memory it reads, GmmaDescriptor) of a descriptor operand."""
        v = self.value(text, u64)
        if isinstance(v, Address):
            if v.space != "shared":
                raise self._refuse(inst, f"wgmma's descriptor {text} is made from a "
                                         f"{v.space} address")
            value, origin = retype(v.offset, u64), v.origin
        elif isinstance(v, Expr):
            value, origin = retype(v, u64), None
        else:
            raise self._refuse(inst, f"wgmma's descriptor {text}: a 64-bit number expected")
        view, _ = self._element(Address("shared", None, const(0, u32), origin), dtype, inst)
        return view, GmmaDescriptor(value, major)

    def _op_mma(self, inst: Inst) -> None:
        """`mma.sync.aligned.SHAPE.row.col.D.A.B.C {d}, {a}, {b}, {c}`."""
        parts = inst.opcode[1:]
        shape = next((p for p in parts if p.startswith("m") and "n" in p and "k" in p), None)
        types = [p for p in parts if p in ("f16", "bf16", "tf32", "f32", "s8", "u8", "s32",
                                           "f64")]
        if shape is None or len(types) != 4 or "row" not in parts or "col" not in parts:
            raise self._refuse(inst, "this form of mma is not lowered yet")
        ctype, atype = types[0], types[1]
        regs = [o.strip("{}").split(",") for o in inst.operands]
        words = lambda rs: [self.integer(r, u32) for r in rs]   # noqa: E731
        cty = {"f32": f32, "f16": u32, "s32": i32, "f64": f64}[ctype]
        c = [retype(self.value(r, cty), cty) for r in regs[3]]
        try:
            d = self.k.mma_sync(words(regs[1]), words(regs[2]), c, shape=shape, atype=atype,
                                ctype=ctype)
        except KernelError as err:
            raise self._refuse(inst, err.message) from None
        for j, r in enumerate(regs[0]):
            self._dest(inst, d[j], r)

    # ---------------------------------------------------------------- warps and atomics
    def _op_atom(self, inst: Inst) -> None:
        self._atomic(inst, inst.operands[1], inst.operands[2:], inst.operands[0])

    def _op_red(self, inst: Inst) -> None:
        self._atomic(inst, inst.operands[0], inst.operands[1:], None)

    def _atomic(self, inst: Inst, where: str, values, dest) -> None:
        """`atom`/`red` on shared or global memory as the IR's atomic (which costs what nvcc
        makes of it: a CAS loop for a float add to shared memory, as measured)."""
        parts = inst.opcode[1:]
        kind = next((p for p in parts if p in _ATOMIC_KINDS), None)
        ptype = parts[-1]
        if kind == "add" and ptype in ("f16x2", "bf16x2"):
            self._half_pair_add(inst, where, values, dest, ptype == "bf16x2")
            return
        dtype = _TYPES.get("u32" if ptype == "b32" else "u64" if ptype == "b64" else ptype)
        if kind is None or dtype is None or any(p in ("noftz",) for p in parts):
            raise self._refuse(inst, "this atomic is not lowered yet")
        addr = self.address(where, inst)
        view, index = self._element(addr, dtype, inst)
        if addr.space != "shared":
            self.stored.add(addr.base)
        operands = [retype(self.value(v, dtype), dtype) if dtype.is_float else
                    self.integer(v, dtype) for v in values]
        if kind == "cas":
            old = self.k.atomic(view, index, "cas", operands[1], compare=operands[0])
        else:
            old = self.k.atomic(view, index, _ATOMIC_KINDS[kind], operands[0])
        if dest is not None:
            self._dest(inst, old)

    def _half_pair_add(self, inst: Inst, where: str, values, dest, brain: bool) -> None:
        """`atom`/`red` `.global.add.noftz.{f16x2,bf16x2}`: each half of the word added, as
        the hardware does it in one atomic, here as the compare-and-swap loop that makes the
        same word (the IR has no 16-bit float atomics): a thread reads the word, adds, and
        swaps it in where no other thread changed it meanwhile, else again. Global memory
        only: what it costs on shared memory is not measured."""
        addr = self.address(where, inst)
        if addr.space == "shared":
            raise self._refuse(inst, "an atomic add of 16-bit float pairs to shared memory "
                                     "is not lowered yet")
        view, index = self._element(addr, u32, inst)
        self.stored.add(addr.base)
        add = retype(self.integer(values[0], u32), u32)
        again = self.k.let(self._fresh_name("cas_again"), const(1, i32))
        old = self.k.let(self._fresh_name("cas_old"), const(0, u32))
        with self.k.loop(self._fresh_name("cas"), 0, lambda _: again > 0):
            seen = self.k.let(self._fresh_name("cas_seen"), retype(view[index], u32))
            new = const(0, u32)
            for h in range(2):
                a, b = (self._half_value((x >> (16 * h)) & 0xFFFF, brain) for x in (seen, add))
                new = new | (self._half_bits(a + b, brain) << (16 * h))
            swapped = self.k.atomic(view, index, "cas", retype(new, u32), compare=seen)
            self.k.assign(old, seen)
            self.k.assign(again, select(swapped == seen, const(0, i32), const(1, i32)))
        if dest is not None:
            self._dest(inst, old)

    def _op_shfl(self, inst: Inst) -> None:
        """`shfl.sync.MODE.b32 d[|p], a, b, c, mask`: c holds the segment mask and clamp
        that CUDA's width makes (`((32 - width) << 8) | clamp`); p, where the PTX keeps it,
        says whether the source lane was in range (PTX ISA's rule)."""
        mode = next((p for p in inst.opcode[1:] if p in ("up", "down", "bfly", "idx")), None)
        if mode is None or len(inst.operands) != 5:
            raise self._refuse(inst, "this form of shfl is not lowered yet")
        dest, a, b, c, mask = inst.operands
        d, _, p = dest.partition("|")
        cv = self.value(c, u32)
        if isinstance(cv, Address):
            raise self._refuse(inst, "a shuffle's width is an address")
        if cv.op is Op.CONST:
            segmask, clamp = int(cv.arg) >> 8 & 0x1F, int(cv.arg) & 0x1F
            width = 32 - segmask
            if width not in (1, 2, 4, 8, 16, 32) or clamp not in (0, 31) or \
                    (clamp == 0) != (mode == "up"):
                raise self._refuse(inst, f"a shuffle with c = {int(cv.arg):#x} (not a CUDA "
                                         "width) is not lowered yet")
        else:
            # a width the kernel computes (`__shfl_up_sync(m, v, i, width)`): CUDA's
            # intrinsics make c as above; the IR checks at run time that it is a power of 2
            width = const(32, i32) - retype((retype(cv, u32) >> 8) & 0x1F, i32)
        value = self.value(a, u32)
        if isinstance(value, Address):
            raise self._refuse(inst, "a shuffled address is not followed yet")
        lane_arg = self.integer(b, i32)
        out = self.k.shfl(value, lane_arg, {"bfly": "xor"}.get(mode, mode),
                          width=width, mask=self._mask(mask, inst))
        self._dest(inst, out, d)
        if p:
            lane = retype(self.value("%laneid", u32), i32)
            w = const(width, i32) if isinstance(width, int) else width
            low = lane & ~(w - 1)   # (0 for a whole warp: lanes are < 32)
            high = low | (w - 1) if mode != "up" else low
            j = {"up": lambda: lane - lane_arg, "down": lambda: lane + lane_arg,
                 "bfly": lambda: lane ^ lane_arg,
                 "idx": lambda: low | (lane_arg & (width - 1))}[mode]()
            self._dest(inst, (j >= high) if mode == "up" else (j <= high), p)

    def _mask(self, text: str, inst: Inst):
        v = self.value(text, u32)
        if isinstance(v, Address):
            raise self._refuse(inst, "a lane mask that is an address")
        return int(v.arg) & 0xFFFFFFFF if v.op.name == "CONST" else retype(v, u32)

    def _op_vote(self, inst: Inst) -> None:
        mode = next((p for p in inst.opcode[1:] if p in ("ballot", "any", "all", "uni")),
                    None)
        if mode not in ("ballot", "any", "all") or len(inst.operands) != 3:
            raise self._refuse(inst, "this form of vote is not lowered yet")
        pred = self._predicate(inst.operands[1], inst)
        out = self.k.vote(pred, mode, mask=self._mask(inst.operands[2], inst))
        self._dest(inst, out if mode == "ballot" else out != 0)

    def _op_match(self, inst: Inst) -> None:
        """`match.any.sync.b32/b64 d, a, membermask`: the lanes of the mask whose `a` equals
        this lane's (the IR's match_any vote)."""
        parts = inst.opcode[1:]
        if parts[:2] != ("any", "sync") or parts[-1] not in ("b32", "b64") or \
                len(inst.operands) != 3:
            raise self._refuse(inst, "this form of match is not lowered yet (match.any is)")
        dtype = u64 if parts[-1] == "b64" else u32
        # (an address as a number: libcu++ matches the lanes of one pipeline by its state's)
        (value,) = self._numbers(inst, self.value(inst.operands[1], dtype))
        self._dest(inst, self.k.vote(retype(value, dtype), "match_any",
                                     mask=self._mask(inst.operands[2], inst)))

    def _op_activemask(self, inst: Inst) -> None:
        """`activemask.b32 d`: the lanes executing it, a ballot of 1 over them (the IR's
        ACTIVE_MASK, 0)."""
        self._dest(inst, retype(self.k.vote(const(1, i32), "ballot", mask=0), u32))

    def _op_trap(self, inst: Inst) -> None:
        """`trap`: the kernel stops with an error, where a thread reaches it (the IR's
        `__trap()`, an assert of 0 with TRAP_TEXT)."""
        from kernels_ir.stmt import TRAP_TEXT
        self.k.assert_(const(0, i32), TRAP_TEXT)

    def _op_membar(self, inst: Inst) -> None:
        """A fence orders memory; it makes no shared-memory request."""

    def _op_fence(self, inst: Inst) -> None:
        """As membar; `fence.proxy.async(.shared::cta)` publishes the thread's shared writes
        to TMA (the IR's fence_proxy_async); `fence.mbarrier_init` orders nothing counted."""
        parts = inst.opcode[1:]
        if parts[:2] == ("proxy", "async"):
            self.k.fence_proxy_async()
        elif "proxy" in parts and "mbarrier_init" not in parts:
            raise self._refuse(inst, "this proxy fence is not lowered yet")

    def _op_bar(self, inst: Inst) -> None:
        if inst.opcode[1:2] == ("warp",):       # bar.warp.sync mask: __syncwarp
            self.k.syncwarp(self._mask(inst.operands[0], inst))
            return
        if inst.opcode[1:2] == ("red",):        # __syncthreads_or / _and / _count
            op = {("or", "pred"): "or", ("and", "pred"): "and",
                  ("popc", "u32"): "count"}.get(tuple(inst.opcode[2:4]))
            if op is None or len(inst.operands) != 3 or inst.operands[1] != "0":
                raise self._refuse(inst, "a named or counted reducing barrier is not "
                                         "lowered yet")
            pred = inst.operands[2]
            value = self._predicate(pred, inst)
            got = self.k.syncthreads_reduce(value, op)
            self._dest(inst, got if op == "count" else got != 0)
            return
        if inst.opcode[1:2] not in (("sync",), ()) or inst.operands[:1] not in (("0",), ()):
            raise self._refuse(inst, "a named or counted barrier is not lowered yet")
        self.k.syncthreads()

    def _op_barrier(self, inst: Inst) -> None:
        self._op_bar(inst)


def window_offsets(variables) -> dict[str, int]:
    """Each `.shared` variable's byte offset in the block's shared memory: the static ones
    in declaration order at their alignment (as ptxas's report of their total agrees with),
    then every `extern` one where the dynamic shared memory begins (after them, at the
    largest alignment an extern declares, at least 16: kernels_ir's rule)."""
    out, offset = {}, 0
    for v in variables:
        if v.nbytes is None:
            continue
        offset = -(-offset // v.align) * v.align
        out[v.name] = offset
        offset += v.nbytes
    externs = [v for v in variables if v.nbytes is None]
    align = max([16] + [v.align for v in externs])
    out.update({v.name: -(-offset // align) * align for v in externs})
    return out


def _as_bits(value, dtype):
    """A parameter's value as the IR's type holds it: a negative integer given for one that
    PTX passes as unsigned bits (nvcc's `.u32` of an `int`, a lambda's `int` capture read
    with `ld.param.u32`) is its two's complement, as the host's bytes are."""
    if dtype is not None and isinstance(value, int) and not isinstance(value, bool) and \
            value < 0 and not dtype.is_float and not dtype.signed and \
            value >= -(1 << (dtype.bits - 1)):
        return value + (1 << dtype.bits)
    return value


def eval_names(text: str, names: dict, what: str = "length"):
    """A length expression of parameter names (`n * n * 4`, `3 * Bc * d * sizeof(float)`),
    built from IR expressions; only names, numbers, + - * / ( ) and sizeof of a basic or
    vector type are read (nothing is evaluated as Python)."""
    import re
    from ..cuda.symbols import c_type_size
    tokens = re.findall(r"\d+|[A-Za-z_]\w*|[-+*/()]|\S", text)
    pos = 0

    def bad(why: str) -> PtxError:
        return PtxError(f"{what} {text!r}: {why}")

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise bad("it ends early")
        pos += 1
        return tokens[pos - 1]

    def atom():
        t = take()
        if t == "(":
            v = expr()
            if take() != ")":
                raise bad("a '(' is not closed")
            return v
        if t.isdigit():
            return const(int(t), i64)
        if t == "sizeof":
            if take() != "(":
                raise bad("sizeof takes a type in parentheses")
            words = []
            while (w := take()) != ")":
                words.append(w)
            kind = " ".join(words).replace("const ", "")
            size = c_type_size(kind)
            if size is None:
                raise bad(f"sizeof({kind}): not a type whose size smemsim knows (give the "
                          "number of bytes)")
            return const(size, i64)
        if t in names:
            return cast(names[t], i64)
        raise bad(f"{t!r} is not a parameter name or a number")

    def term():
        v = atom()
        while pos < len(tokens) and tokens[pos] in ("*", "/"):
            op = take()
            v = v * atom() if op == "*" else v // atom()
        return v

    def expr():
        v = term()
        while pos < len(tokens) and tokens[pos] in ("+", "-"):
            op = take()
            v = v + term() if op == "+" else v - term()
        return v
    value = expr()
    if pos != len(tokens):
        raise bad(f"{tokens[pos]!r} is not read")
    return value


_REG = re.compile(r"%[A-Za-z_][A-Za-z_0-9]*")   # (`%r12`, and the stack pointers `%SP`, `%SPL`)
# the CUDA toolkit's own headers (installed, or from the nvidia-* wheels)
# the toolkit's headers, and the DSLs' own libraries (Triton's `tl.max` is written in
# triton/language/standard.py): a line there is reported at the user's line that called it
_TOOLKIT = re.compile(r"/include/cccl/|/cuda(?:-[\d.]+)?/(?:targets/[^/]+/)?include/|"
                      r"/(?:site|dist)-packages/(?:nvidia|triton)/")
_ATOMIC_KINDS = {"add": "add", "min": "min", "max": "max", "and": "and", "or": "or",
                 "xor": "xor", "inc": "inc", "dec": "dec", "exch": "exch", "cas": "cas"}
_SINKS = ("<continue>", "<break>", "<return>", "<sink>")   # where a region's paths end
_DEEP = 48    # expression depth past which a register's value is held in a local
_BROAD = 2048  # nodes as a tree past which too (an unrolled chain whose steps each read the
#               one before twice doubles at each step: a walk of it would never end)
_NO_DEST = frozenset({"st", "stmatrix", "red", "bar", "barrier", "bra", "ret", "exit", "call",
                      "membar", "fence", "cp", "mbarrier", "prefetch", "trap", "pmevent"})
_REG_TYPES = {"pred": i32, **_TYPES}


def _registers(text: str, names) -> list[str]:
    """The registers an operand names: `%r12`, or a name the entry declares (`p`)."""
    found = _REG.findall(text)
    if names:
        found += [w for w in re.findall(r"(?<![%\w$.])[A-Za-z_$][\w$]*", text) if w in names]
    return found


def _no_dest(inst: Inst) -> bool:
    """Whether an instruction's first operand is no register it writes (an mbarrier's
    arrive and waits write their state or predicate; its init and expect_tx do not)."""
    if inst.name == "mbarrier":
        return inst.opcode[1:2] not in (("arrive",), ("arrive_drop",), ("try_wait",),
                                        ("test_wait",), ("pending_count",))
    return inst.name in _NO_DEST


def _writes(inst: Inst, names=()) -> list[str]:
    """The registers an instruction writes."""
    if _no_dest(inst) or not inst.operands:
        return []
    return _registers(inst.operands[0], names)


def _reads(inst: Inst, names=()) -> list[str]:
    """The registers an instruction reads (its guard included)."""
    ops = inst.operands if _no_dest(inst) or inst.opcode[:2] == ("wgmma", "mma_async") \
        else inst.operands[1:]   # (wgmma's accumulators are read and written)
    found = [r for o in ops for r in _registers(o, names)]
    if inst.guard:
        found.append(inst.guard.lstrip("!"))
    return found


def _members(kind: tuple) -> set:
    """The arrays (space, base) an address kind points into."""
    return set(kind[1]) if kind[0] == "either" else {kind}


def _join_kinds(*kinds: tuple) -> tuple:
    """The address kind of a register that holds addresses of all of `kinds`: one array's
    (space, base), or ("either", those arrays)."""
    members = set().union(*(_members(k) for k in kinds))
    return next(iter(members)) if len(members) == 1 else ("either", frozenset(members))


def _mul_hi(a: Expr, b: Expr, dtype) -> Expr:
    """The high half of a * b's double-width product (`mul.hi`): through the wider type for
    16 and 32 bits; from 32-bit halves for 64 bits (a signed operand's product is the
    unsigned one less the other operand where it is negative: two's complement)."""
    if dtype.size < 8:
        wide = _WIDE[dtype.name]
        return retype(retype(a, wide) * retype(b, wide) >> (dtype.size * 8), dtype)
    ua, ub = retype(a, u64), retype(b, u64)
    low = const(0xFFFFFFFF, u64)
    al, ah, bl, bh = ua & low, ua >> 32, ub & low, ub >> 32
    t = ah * bl + ((al * bl) >> 32)
    w = (t & low) + al * bh
    hi = ah * bh + (t >> 32) + (w >> 32)
    if dtype is i64:
        hi = hi - select(a < 0, ub, const(0, u64)) - select(b < 0, ua, const(0, u64))
    return retype(hi, dtype)


def _shortened(text: str, keep: int = 60) -> str:
    """A message with each over-long mangled name cut to its start (`_ZN3cub17CUB_...`)."""
    return re.sub(r"_Z\w{%d,}" % keep, lambda m: m.group(0)[:keep] + "...", text)


def _lanes(opcode: tuple) -> int:
    """The lanes of a vector access's opcode (`ld.param.v2.u32`: 2), 1 for a scalar one."""
    return next((int(p[1:]) for p in opcode if p in ("v2", "v4", "v8")), 1)


_BITS = {t: int(t.lstrip("bfsu")) for t in ("b8", "u8", "s8", "b16", "u16", "s16", "f16", "bf16", "b32",
                                 "u32", "s32", "f32", "b64", "u64", "s64", "f64")}


def _aggregate(param) -> bool:
    """Whether a parameter passes a struct by value (nvcc declares those `.b8 p[N]`; a C
    scalar of one byte is `.u8` or `.s8`)."""
    return param.ptype == "b8"


# cooperative groups' grid barrier (`this_grid().sync()`: grid_group::sync, details::grid::
# sync), by the mangled names of the functions nvcc inlines it from
_GRID_SYNC = re.compile(r"18cooperative_groups.*(10grid_group4syncE|4grid4syncE)")
GRID_SYNC_OP = "smemsim_grid_sync"
# the refusal of as_built's pseudo-instructions outside a loop this lowering counts
COUNTED_ONLY = "a loop's iteration read outside a counted loop"


def _grid_syncs(module: Module, entry: Entry) -> Entry:
    """Each inlined `this_grid().sync()` (a check of the launch's grid workspace, a block
    barrier, thread 0's release-add to the workspace's counter and its acquire spin until
    every block has arrived, a block barrier) made one instruction, GRID_SYNC_OP, which is
    lowered as the IR's grid barrier. Instructions of other lines that nvcc placed among it
    follow it. Where a branch from outside lands inside it, the entry is left as it is."""
    body = entry.body

    def in_sync(x) -> bool:
        loc = x.loc if isinstance(x, Inst) else None
        while loc is not None:
            if loc.function and _GRID_SYNC.search(module.strings.get(loc.function, "")):
                return True
            loc = loc.inlined_at
        return False

    marked = [n for n, x in enumerate(body) if in_sync(x)]
    if not marked:
        return entry
    # the syncs: runs of marked instructions with only labels and unmarked instructions of
    # no line of their own between them
    spans, start = [], marked[0]
    def users_line(x) -> bool:
        # (a line of the toolkit's headers between two of the barrier's: a helper it
        # shares, `%nctaid.z` of cooperative_groups' grid_dim for its count)
        return x.loc is not None and bool(x.loc.line) and not _TOOLKIT.search(
            os.path.normpath(module.files.get(x.loc.file, "")))

    for a, b in zip(marked, marked[1:]):
        if any(isinstance(body[n], Inst) and users_line(body[n]) and not in_sync(body[n])
               for n in range(a + 1, b)):
            spans.append((start, a))
            start = b
    spans.append((start, marked[-1]))
    out, at = [], 0
    names = entry.names
    for first, last in spans:
        inside = set(range(first, last + 1))
        labels = {body[n].name for n in inside if isinstance(body[n], Label)}
        if any(isinstance(x, Inst) and x.name == "bra" and x.operands and
               x.operands[-1] in labels for n, x in enumerate(body) if n not in inside):
            return entry
        # kept, after the barrier: what other lines placed among it, and what of its own
        # the code after it reads (nvcc shares `%nctaid.x` between the barrier's count
        # and the user's `gridDim.x`), with what those read in turn
        needed = {r for n, x in enumerate(body) if n not in inside and isinstance(x, Inst)
                  for r in _reads(x, names)}
        keep = set()
        for n in sorted(inside, reverse=True):
            x = body[n]
            if not isinstance(x, Inst) or (in_sync(x) and
                                           not set(_writes(x, names)) & needed):
                continue
            if in_sync(x) and (x.name in _NO_DEST or x.name in ("atom", "ld", "trap")):
                return entry   # (a value of the barrier's own memory read after it)
            keep.add(n)
            needed |= set(_reads(x, names))
        out += body[at:first]
        out.append(Inst((GRID_SYNC_OP,), (), None, body[first].loc, body[first].line))
        out += [body[n] for n in sorted(keep)]
        at = last + 1
    out += body[at:]
    return dataclasses.replace(entry, body=out)


def _param_pointers(entry: Entry) -> Entry:
    """A parameter's own address in a register (`mov.b64 %rd259, p;`, maybe moved on by
    `add` of a constant), which nvcc takes to read a by-value struct's fields through it
    (`ld.param.u8 %rs61, [%rd259]`; cub's DeviceSelectSweepKernel): each such load rewritten
    to read the field by name (`[p+0]`), the moves dropped. Where such a register has any
    other use (a call's argument, a `cvta.param`), the entry is left as it is, and the
    lowering refuses the operand at its line."""
    params = {p.name for p in entry.params}
    body = entry.body
    writes = Counter(r for i in body if isinstance(i, Inst) for r in _writes(i))
    held: dict[str, tuple[str, int]] = {}   # register -> (parameter, byte offset)
    made: set[int] = set()                  # positions of the moves and adds that made them
    for n, i in enumerate(body):
        if not isinstance(i, Inst) or i.guard or len(i.operands) < 2 or \
                writes[i.operands[0]] != 1:
            continue
        if i.name == "mov" and i.operands[1] in params:
            held[i.operands[0]] = (i.operands[1], 0)
            made.add(n)
        elif i.name == "add" and len(i.operands) == 3 and i.operands[1] in held and \
                re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", i.operands[2]):
            p, off = held[i.operands[1]]
            held[i.operands[0]] = (p, off + int(i.operands[2], 0))
            made.add(n)
    if not held:
        return entry
    out = list(body)
    for n, i in enumerate(body):
        if not isinstance(i, Inst) or n in made:
            continue
        uses = [r for r in _reads(i) if r in held]
        if not uses:
            continue
        m = _ADDRESS_OPERAND.fullmatch(i.operands[1]) if i.opcode[:2] == ("ld", "param") \
            and len(i.operands) > 1 else None
        if m is None or m.group(1) not in held or uses != [m.group(1)]:
            return entry   # another use of the address: refused where it is lowered
        p, off = held[m.group(1)]
        off += int(m.group(2) or "0", 0)
        out[n] = dataclasses.replace(i, operands=(i.operands[0], f"[{p}+{off}]",
                                                  *i.operands[2:]))
    return dataclasses.replace(entry, body=[x for n, x in enumerate(out) if n not in made])


_TEXTURE_OPERAND = re.compile(r"\[(%\w+),\{([^}]*)\}\]")
_ADDRESS_OPERAND = re.compile(r"\[(%?[\w$.]+)(?:\+(-?(?:0x[0-9a-fA-F]+|\d+)))?\]")


def _param_place(operand: str, index: dict) -> tuple:
    """(parameter position, byte offset) of an `ld.param` operand (`[k_param_2+8]`), or
    (None, 0) where it names no parameter of the entry."""
    inner = operand.strip("[]")
    name, sign, rest = inner.partition("+")
    try:
        off = int(rest, 0) if sign else 0
    except ValueError:
        return None, 0
    return index.get(name.strip()), off


def _c_name(register: str) -> str:
    """A register's name as a C identifier (`%rd4` -> `rd4`)."""
    return register.lstrip("%")


def _const_bytes(c) -> tuple | None:
    """A `.const` array's initial bytes (None: the host fills it)."""
    if c.initial is None:
        return None
    import struct
    codes = {"b8": "B", "u8": "B", "s8": "b", "b16": "H", "u16": "H", "s16": "h", "b32": "I",
             "u32": "I", "s32": "i", "b64": "Q", "u64": "Q", "s64": "q", "f32": "f",
             "f64": "d"}
    code = codes.get(c.ptype)
    if code is None:
        raise PtxError(f"__constant__ {c.name}: initial values of type .{c.ptype} are not "
                       "read yet")
    out = bytearray()
    for v in c.initial:
        if v.startswith(("0f", "0F")):
            out += bytes.fromhex(v[2:])[::-1] if code == "f" else b""
            continue
        if v.startswith(("0d", "0D")):
            out += bytes.fromhex(v[2:])[::-1]
            continue
        try:
            number = int(v, 0)
        except ValueError:   # an address (`generic(table)`) or an expression
            raise PtxError(f"{c.name}: the initial value {v!r} is not read yet") from None
        if code in "fd":
            out += struct.pack("<" + code, float(number))
        else:
            out += (number % (1 << (8 * struct.calcsize(code)))).to_bytes(
                struct.calcsize(code), "little")
    out += bytes(c.nbytes - len(out))
    return tuple(out)


# the operand that holds a memory instruction's address
_ADDRESS_AT = {"ld": 1, "st": 0, "atom": 1, "red": 0, "ldmatrix": 1, "stmatrix": 0}
_LOGIC = COMPARE_OPS | {Op.LAND, Op.LOR, Op.LNOT}
# an integer comparison's negation (a float one's is not: NaN compares false both ways)
_NOT = {Op.LT: Op.GE, Op.GE: Op.LT, Op.LE: Op.GT, Op.GT: Op.LE, Op.EQ: Op.NE, Op.NE: Op.EQ}


def _condition(e: Expr) -> Expr:
    """A predicate as the condition it states: `c != 0` of a comparison is the comparison,
    `c == 0` its negation, `&`, `|` and `^` of conditions (PTX's and.pred, or.pred,
    xor.pred) are `&&`, `||` and `!=` (`x < W && y < H`: the form the analyses class the
    grid by, axis by axis)."""
    if e.op in (Op.NE, Op.EQ) and _zero(e.src[1]) and e.src[0].op in _LOGIC | {
            Op.AND, Op.OR, Op.XOR}:
        inner = _condition(e.src[0])
        if inner.op in _LOGIC:
            return inner if e.op is Op.NE else _negated(inner)
    if e.op in (Op.AND, Op.OR, Op.XOR):
        a, b = (_condition(x) for x in e.src)
        if a.op in _LOGIC and b.op in _LOGIC:
            return logical_and(a, b) if e.op is Op.AND else \
                logical_or(a, b) if e.op is Op.OR else a != b
    return e


def _negated(e: Expr) -> Expr:
    """The negation of a condition, pushed into its comparisons (De Morgan)."""
    if e.op in _NOT and not e.src[0].dtype.is_float and not e.src[1].dtype.is_float:
        return Expr(_NOT[e.op], e.dtype, e.src, e.arg)
    if e.op is Op.LAND:
        return logical_or(*(_negated(x) for x in e.src))
    if e.op is Op.LOR:
        return logical_and(*(_negated(x) for x in e.src))
    if e.op is Op.LNOT:
        return e.src[0] if e.src[0].op in _LOGIC else e.src[0] != 0
    return lnot(e)


def _zero(e: Expr) -> bool:
    return e.op is Op.CONST and e.arg == 0


def _gmma_n(inst: Inst) -> int | None:
    """N of a `wgmma.mma_async...m64nNk16...` instruction (None: another shape)."""
    m = next((m for x in inst.opcode if (m := re.fullmatch(r"m64n(\d+)k16", x))), None)
    return int(m.group(1)) if m else None


def _long(e: Expr) -> bool:
    """Whether an expression is too deep or too wide (as a tree) to read in place."""
    return e.depth > _DEEP or e.tree > _BROAD


def _pure(value) -> bool:
    """Whether a register's value reads no variable (only parameters, indices, constants)."""
    if isinstance(value, Address):
        value = value.offset
    if not isinstance(value, Expr) or _long(value):
        return False
    seen, stack = set(), [value]
    while stack:   # (each shared node once: an expression is a graph)
        e = stack.pop()
        if e.op is Op.VAR:
            return False
        seen.add(id(e))
        stack.extend(x for x in e.src if id(x) not in seen)
    return True


def _element_index(offset: Expr, size: int) -> Expr:
    """The element index of a byte offset: the offset's terms each divided by the element
    size where each is a multiple of it (`(i << 2) / 4` is i: an index the analyses read as
    affine in the thread and block), else the offset / size."""
    if size == 1:
        return offset
    exact = _quotient(offset, size)
    return exact if exact is not None else offset // size


def _quotient(e: Expr, d: int) -> Expr | None:
    """`e / d` where every term of `e` is a multiple of `d` (a constant of an unsigned type
    read as its signed value: `i + 0xFFFFFFFC` steps back one 4-byte element); None where
    that is not seen. Equal to `e / d` while the byte offset does not wrap its type, as no
    address does."""
    if e.op is Op.CONST and not e.dtype.is_float:
        v = int(e.arg)
        if not e.dtype.signed and v >= 1 << (e.dtype.bits - 1):
            v -= 1 << e.dtype.bits
        return _wrapped(v // d, e.dtype) if v % d == 0 else None
    if e.op in (Op.ADD, Op.SUB):
        a, b = (_quotient(x, d) for x in e.src)
        if a is None or b is None:
            return None
        if a.op is Op.CONST and b.op is Op.CONST and a.dtype == b.dtype:
            return _wrapped(int(a.arg) + int(b.arg) if e.op is Op.ADD else
                            int(a.arg) - int(b.arg), a.dtype)
        return a + b if e.op is Op.ADD else a - b
    if e.op is Op.SHL and e.src[1].op is Op.CONST and (1 << int(e.src[1].arg)) % d == 0:
        return e.src[0] * ((1 << int(e.src[1].arg)) // d) if (1 << int(e.src[1].arg)) != d \
            else e.src[0]
    if e.op is Op.MUL:
        for x, y in (e.src, e.src[::-1]):
            if y.op is Op.CONST and not y.dtype.is_float and int(y.arg) % d == 0:
                return x * _wrapped(int(y.arg) // d, y.dtype) if int(y.arg) != d else x
        return None
    if e.op is Op.CAST and not e.dtype.is_float and not e.src[0].dtype.is_float and \
            e.dtype.size >= e.src[0].dtype.size:
        inner = _quotient(e.src[0], d)
        return None if inner is None else cast(inner, e.dtype)
    if e.op is Op.AND and d & (d - 1) == 0:
        # `x & c` with c's low bits clear (a mask that aligns: cub's and cuda_fp16's
        # `(tid >> 3) & ~3`): (x >> k) & (c >> k), k = log2 d
        k = d.bit_length() - 1
        for x, c in (e.src, e.src[::-1]):
            if c.op is Op.CONST and not c.dtype.is_float and int(c.arg) % d == 0:
                return (x >> const(k, x.dtype)) & _wrapped(int(c.arg) >> k, c.dtype)
    return None


def _odd_f32(x: Expr) -> Expr:
    """An f64 rounded to f32 to odd (toward zero, the last bit set where that was inexact):
    rounding that to a 16-bit float to nearest even equals rounding the f64 once, as
    `cvt.rn.f16.f64` does (f32 keeps more than two bits beyond a half's mantissa)."""
    near = cast(x, f32)
    bits = bitcast(near, u32)
    # (a magnitude rounded up: one step back toward zero; NaN and infinities as they are)
    finite = (bits & 0x7F800000) != 0x7F800000
    up = finite & (call("fabs", cast(near, f64)) > call("fabs", x))
    bits = select(up, bits - 1, bits)
    inexact = finite & (cast(bitcast(bits, f32), f64) != x)
    return bitcast(select(inexact, bits | 1, bits), f32)


def _compared(cmp: str, a: Expr, b: Expr, is_float: bool) -> Expr | None:
    """A PTX comparison (setp, set) of two values; None for an operator not known."""
    # the unordered forms of a float comparison (`leu`) hold also where either is NaN
    unordered = lambda: (a != a) | (b != b)   # noqa: E731
    ops = {"eq": lambda: a == b, "lt": lambda: a < b,
           # ordered: false where either is NaN, as every comparison but the `u` forms
           "ne": (lambda: (a != b) & (a == a) & (b == b)) if is_float else (lambda: a != b),
           "le": lambda: a <= b, "gt": lambda: a > b, "ge": lambda: a >= b,
           "lo": lambda: a < b, "ls": lambda: a <= b, "hi": lambda: a > b,
           "hs": lambda: a >= b,
           "equ": lambda: (a == b) | unordered(), "neu": lambda: (a != b) | unordered(),
           "ltu": lambda: (a < b) | unordered(), "leu": lambda: (a <= b) | unordered(),
           "gtu": lambda: (a > b) | unordered(), "geu": lambda: (a >= b) | unordered(),
           "num": lambda: (a == a) & (b == b), "nan": unordered}
    return ops[cmp]() if cmp in ops else None


def retype(value, dtype) -> Expr:
    """A register's value read as `dtype`: registers hold bits, so between a float and an
    integer type of one size it is the same bits (`mov.b32 %r1, %f1`); between integers a
    C conversion (the low bits, extended as the source's sign says). Only `cvt` converts a
    number's value between float and integer."""
    value = as_expr(value)
    if value.op is Op.CONST and not value.dtype.is_float and not dtype.is_float:
        return _wrapped(int(value.arg), dtype)   # (a constant stays one: masks, widths)
    if value.dtype.is_float != dtype.is_float and value.dtype.size == dtype.size:
        return bitcast(value, dtype)
    return cast(value, dtype)


def _wrapped(number: int, dtype) -> Expr:
    """An integer as the bits of `dtype` hold it (two's complement)."""
    bits = 8 * dtype.size
    number %= 1 << bits
    if dtype.signed and number >= 1 << (bits - 1):
        number -= 1 << bits
    return const(number, dtype)

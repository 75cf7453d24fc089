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

The walk (Lowering) holds the state and the services every instruction uses (a register's
value, an address, a destination, a location); the rest lives by concept:
- declarations.py: the kernel's parameters, `.shared` window and locals, before the walk;
- structure.py: if/else, counted loops and flagged loops from the blocks;
- ops_arith, ops_convert, ops_memory, ops_matrix, ops_sync, wmma: each family of
  instructions, a function `op_NAME(lowering, inst)` per instruction (the OPS table below);
- values.py (what a register holds, shared expression helpers), operands.py (reading an
  instruction's registers and operands).

What is not lowered yet is a located refusal naming the PTX line and instruction: the
instructions outside OPS, irreducible graphs, loops with more than one exit. Nothing is
guessed.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections import Counter
from dataclasses import dataclass

from kernels_ir import (MISALIGNED_TEXT, KernelBuilder, KernelError, SourceLoc, blockDim,
                        threadIdx)
from kernels_ir.dtypes import f32, f64, i32, i64, u8, u32, u64
from kernels_ir.errors import located
from kernels_ir.expr import Expr, Op, as_expr, cast, const, select, smin

from . import (cfg, declarations, ops_arith, ops_convert, ops_matrix, ops_memory, ops_sync,
               structure, wmma)
from .operands import _ADDRESS_AT, _ADDRESS_OPERAND, _NO_DEST, _reads, _shortened, _writes
from .parse import Entry, Inst, Label, Module, PtxError
from .symbols import local_name
from .values import (Address, _as_bits, _c_name, Choice, _CHOICE_OPS, _condition,
                     _element_index, _HALF_OPS, _HALF_TYPES, _long, _pure, _quotient, retype,
                     _SPECIAL, TensorMapRef, _wrapped)

# what ends a line that the next continues (an open bracket, a comma, an operator)
# lines a statement written over several may reach back to its first (a 3-D stencil's sum
# of seven neighbours, one a line)
STATEMENT_LINES = 12
_CONTINUED = ("(", "[", ",", "\\", "+", "-", "*", "/", "=", "&", "|", "?", " and", " or")

# cluster special registers (PTX ISA 8.x, sm_90): a kernel without clusters is a cluster of one
_CLUSTER = ("cluster_ctarank", "cluster_nctarank", "cluster_ctaid", "cluster_nctaid",
            "clusterid", "nclusterid", "is_explicit_cluster")


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
    fields: dict | None = None         # a by-value struct's field as the host reading names
    #                                    it (`N_width`) -> (the struct parameter, byte offset)


# each instruction's handler, by its name (`ld`, `mma`, `smemsim_iteration`): a function
# `op_NAME(lowering, inst)` of one of the instruction families' modules
OPS = {name[3:]: fn
       for family in (ops_arith, ops_convert, ops_matrix, ops_memory, ops_sync, wmma)
       for name, fn in vars(family).items() if name.startswith("op_")}


def lower(module: Module, entry_name: str, launch: Launch, kernel_name: str | None = None):
    """The Kernel of one entry of `module`, launched as `launch` says."""
    entry = module.entries.get(entry_name)
    if entry is None:
        raise PtxError(f"the PTX has no entry '{entry_name}' (it has: "
                       f"{', '.join(module.entries) or 'none'})")
    entry = _grid_syncs(module, _param_pointers(entry))
    # a first walk finds the pointer parameters some store writes (a const pointer's array
    # is an input: the builder refuses stores into it)
    first = Lowering(module, entry, launch, kernel_name, None).run()
    lowering = Lowering(module, entry, launch, kernel_name, first.stored, first.loaded).run()
    kernel = lowering.builder.build()
    if lowering.assumed_lengths:   # (pointers whose lengths the launch does not give)
        kernel = dataclasses.replace(kernel, assumed_lengths=tuple(lowering.assumed_lengths))
    # (where the source declares the kernel, as the host side read it: reports show it)
    return dataclasses.replace(kernel, loc=launch.declared) if launch.declared else kernel


class Lowering:
    """The walk over an entry's instructions, building the IR as it goes."""

    def __init__(self, module: Module, entry: Entry, launch: Launch, name,
                 stored: set | None, loaded: set | None = None):
        self.module, self.entry, self.launch = module, entry, launch
        self.k = self.builder = KernelBuilder(name or entry.name)
        self.name = name
        self.regs: dict[str, object] = {}
        self.call_args: dict[str, object] = {}   # a call's parameter -> what was stored
        self.stored_into = stored       # pointer parameters some store writes (None: any)
        self.stored: set[int] = set()
        # and the ones something other than a plain store touches (a load, an atomic, a
        # copy): a pointer only stored through is the kernel's output alone (None: unknown)
        self.loaded_from = loaded
        self.loaded: set[int] = set()
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
        self.assumed_lengths: list[str] = []   # pointers given declarations' default length
        self.flat_bases: dict = {}
        self.local_vars: set = set()      # the Vars of registers' locals
        self.reads_memo: dict[int, tuple] = {}
        self.local_read: bool | None = None   # whether any instruction reads the stack
        self.stacks: dict = {}            # a `.local` array -> its per-thread byte array
        self.sources: dict = {}           # a source file's lines (for accesses' columns)

    # ---------------------------------------------------------------- set-up
    def run(self) -> "Lowering":
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
            declarations.declare(self)
            declarations.declare_locals(self)
        structure.sequence(self, self.entry_block, cfg.EXIT, None)
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
                # (a struct's field the build never reads has no parameter: N.pitch)
                self.k.defaults(**{n: _as_bits(v, types.get(n))
                                   for n, v in la.defaults.items()
                                   if n in types or n not in (la.fields or {})})
        return self

    def _predicate(self, guard: str, inst: Inst) -> Expr:
        negated = guard.startswith("!")
        v = self.value(guard.lstrip("!"), i32)
        if isinstance(v, Address):
            raise self._refuse(inst, "a guard that is an address")
        return _condition(v == 0 if negated else v != 0)

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

    @functools.cached_property
    def _param_index(self) -> dict[str, int]:
        """Each parameter's position, by its PTX name."""
        return {p.name: n for n, p in enumerate(self.entry.params)}

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
                python = file.endswith(".py")
                for back in range(1, STATEMENT_LINES):
                    before = self._source_line(file, line - back)
                    before = " ".join((before or "").split())
                    code = before.split("//")[0].rstrip()   # (a trailing comment aside)
                    if python and not code.endswith(_CONTINUED):
                        # (a Python file's line, numba's or Triton's or a CUDA string's,
                        # is continued only by what cannot end a statement: none ends in
                        # `;`)
                        break
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
    def _cluster_register(self, text: str, name: str, axis: str):
        """A cluster special register of a kernel launched without clusters, where each block
        is a cluster of one (cooperative_groups' thread_block::size() and thread_rank() read
        `%cluster_nctarank` on sm_90): ranks 0, counts 1, the cluster's id the block's."""
        if self.entry.cluster is not None:
            raise PtxError(f"{text}: the kernel is launched in clusters "
                           f"({'.reqnctapercluster ' + self.entry.cluster if self.entry.cluster != 'explicit' else '.explicitcluster'}), "
                           "which smemsim does not model (each block is analyzed alone)")
        if name in ("cluster_ctarank", "cluster_ctaid", "is_explicit_cluster"):
            return const(0, u32)
        if name in ("cluster_nctarank", "cluster_nctaid"):
            return const(1, u32)
        if axis in ("x", "y", "z"):   # %clusterid, %nclusterid: the block's own
            return cast(getattr(_SPECIAL["ctaid" if name == "clusterid" else "nctaid"], axis),
                        u32)
        raise PtxError(f"register {text} is read before it is written")

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
            if name in _CLUSTER:
                return self._cluster_register(text, name, axis)
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
        handler = OPS.get(inst.name)
        if inst.name not in _CHOICE_OPS and any(
                isinstance(self.regs.get(o), Choice) for o in _reads(inst, self.entry.names)):
            raise self._refuse(inst, "an address that is one of two arrays' (selp), read by "
                                     "an instruction other than a load, a store or an offset")
        if inst.opcode[-1] in _HALF_TYPES and inst.name in _HALF_OPS:
            handler = ops_convert.half_arith
        if handler is None:
            raise self._refuse(inst, "not lowered yet")
        try:
            if inst.guard is None:
                handler(self, inst)
                return
            with self.k.if_(self._predicate(inst.guard, inst)):
                handler(self, inst)
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

    # ------------------------------------------------------------ textures

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
            if inst.name != "st":
                self.loaded.add(addr.base)
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


# the CUDA toolkit's own headers (installed, or from the nvidia-* wheels)
# the toolkit's headers, and the DSLs' own libraries (Triton's `tl.max` is written in
# triton/language/standard.py): a line there is reported at the user's line that called it
_TOOLKIT = re.compile(r"/include/cccl/|/cuda(?:-[\d.]+)?/(?:targets/[^/]+/)?include/|"
                      r"/(?:site|dist)-packages/(?:nvidia|triton)/")

# cooperative groups' grid barrier (`this_grid().sync()`: grid_group::sync, details::grid::
# sync), by the mangled names of the functions nvcc inlines it from
_GRID_SYNC = re.compile(r"18cooperative_groups.*(10grid_group4syncE|4grid4syncE)")
GRID_SYNC_OP = "smemsim_grid_sync"


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

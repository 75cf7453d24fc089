"""PTX text as data: the module's files, and each entry's (and each `.func` function's)
parameters, shared variables and body (instructions, labels and `.loc` marks in order).

Only the syntax is read here (PTX ISA 9.0, as nvcc 13 writes it); what an instruction means
is the lowering's business. Nothing of the text is ever evaluated.
"""
from __future__ import annotations

import re
from math import prod
from dataclasses import dataclass, field, replace

from kernels_ir import KernelError


class PtxError(KernelError):
    """PTX that the reader cannot take (the line is named)."""


@dataclass(frozen=True)
class Loc:
    """A `.loc` mark: file number, line, column, and the `inlined_at` chain's marks."""

    file: int
    line: int
    column: int
    inlined_at: "Loc | None" = None
    function: str | None = None     # the inlined function's name, where PTX names it


@dataclass(frozen=True)
class Inst:
    """One instruction: `@guard opcode operands;` (the opcode's dot-separated parts)."""

    opcode: tuple[str, ...]          # ("ld", "shared", "v4", "f32")
    operands: tuple[str, ...]        # as written, whitespace removed
    guard: str | None                # "%p1" or "!%p1"
    loc: Loc | None
    line: int                        # line in the PTX text

    @property
    def name(self) -> str:
        return self.opcode[0]


@dataclass(frozen=True)
class Label:
    """A branch target."""

    name: str


@dataclass(frozen=True)
class SharedVar:
    """A `.shared` variable: its name, alignment, size in bytes (None: extern, dynamic)."""

    name: str
    align: int
    nbytes: int | None


@dataclass(frozen=True)
class ConstVar:
    """A module's `.const` array (`__constant__`) or `.global` variable (`__device__`):
    name, element type, bytes, and the initial values as written (None: the host fills it,
    cudaMemcpyToSymbol; a `__device__` variable without values starts as zeros)."""

    name: str
    ptype: str
    nbytes: int
    initial: tuple | None
    space: str = "const"              # or "global" (writable), "extern" (another unit's)


@dataclass(frozen=True)
class Param:
    """An entry parameter: name, PTX type (.u64, .u32, .f32, .b8 array) and size in bytes."""

    name: str
    ptype: str
    nbytes: int


@dataclass
class Entry:
    """One `.entry` (a kernel) of the module."""

    name: str
    params: list[Param] = field(default_factory=list)
    shared: list[SharedVar] = field(default_factory=list)
    body: list = field(default_factory=list)        # Inst | Label, in order
    names: set = field(default_factory=set)          # registers named without a `%`
    #                                                  (`.reg .pred p;` of inline asm)
    call_params: set = field(default_factory=set)    # a call sequence's `.param`s
    local_arrays: dict = field(default_factory=dict)  # `.local` arrays (the stack depot):
    #                                                   name -> bytes
    max_threads: int | None = None   # `.maxntid`/`.reqntid` (__launch_bounds__): a block's
    #                                  most threads, the product of its extents
    cluster: str | None = None       # `.reqnctapercluster X, Y, Z` (__cluster_dims__) or
    #                                  "explicit" (`.explicitcluster`): a cluster launch
    registers: set = field(default_factory=set)   # every register its `.reg`s declare
    returns: list[Param] = field(default_factory=list)   # a `.func`'s return parameters
    # (callee, the call's place) of each call inline_calls wrote out in the body
    inlined: tuple = ()


@dataclass
class Module:
    """A PTX module: its files by number, its entries and module-scope shared variables."""

    files: dict[int, str] = field(default_factory=dict)
    entries: dict[str, Entry] = field(default_factory=dict)
    # the `.func` functions the module defines (a `__noinline__` function, one ptxas kept
    # apart): each an Entry whose `returns` are its return parameters
    functions: dict[str, Entry] = field(default_factory=dict)
    shared: list[SharedVar] = field(default_factory=list)
    consts: dict[str, ConstVar] = field(default_factory=dict)
    strings: dict[str, str] = field(default_factory=dict)   # `$L__info_string0` -> the
    #                                         (mangled) function name `.debug_str` holds


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(.*)$")
_INLINED = re.compile(r",\s*function_name\s+(\$L__\w+|\w+)\s*,\s*inlined_at\s+(\d+)\s+(\d+)\s+(\d+)")
_SHARED = re.compile(r"^\s*(?:(?:\.extern|\.visible|\.weak)\s+)*\.shared\s+\.align\s+(\d+)\s+\.(\w+)\s+([\w$]+)"
                     r"((?:\[\d*\])*)\s*;")
_CONST = re.compile(r"^\s*(\.visible\s+|\.extern\s+|\.weak\s+|\.common\s+)?"
                    r"(?:\.global\s+(?=\.const))?"
                    r"\.(const|global)\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+"
                    r"([\w$]+)((?:\[\d*\])*)\s*(?:=\s*(\{.*\}|[^;{]+?))?\s*;", re.S)
# (a kernel pointer parameter may state its space and alignment: `.param .u64 .ptr .global
# .align 1 k_param_0`, as Triton writes them)
_PARAM = re.compile(r"^\s*\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+"
                    r"(?:\.ptr\s+(?:\.(?:global|shared|const|local)\s+)?(?:\.align\s+\d+\s+)?)?"
                    r"([\w$]+)(\[\d+\])?")
_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)\s*\(?")
# a function's header: `.func (.param .b32 func_retval0) _Z5scalefi(` (a prototype, or an
# `.extern` one's, ends with `;` before any body)
_FUNC = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.func\s+(?:\((.*?)\)\s*)?"
                   r"([\w$]+)\s*(?:\((.*))?$")
_LABEL = re.compile(r"^\s*([\w$]+):\s*$")
_INFO_STRING = re.compile(r"^\s*(\$L__info_string\d+):\s*((?:\.b8\s+[\d,\s]+)+)", re.M)
_SIZES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "b32": 4,
          "u32": 4, "s32": 4, "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}


def parse(text: str) -> Module:
    """The module a PTX text describes (raises PtxError at a line it cannot read), each
    entry with its calls of the module's own functions written out (inline_calls)."""
    module = Module()
    lines = text.split("\n")
    entry: Entry | None = None
    function = False   # (whether `entry` is a `.func`)
    depth = 0
    loc: Loc | None = None
    strings = {}   # the names a `.loc`'s function_name refers to (`$L__info_string0`)
    inlined: dict = {}   # (file, line, column) -> the latest inlined `.loc` there
    pending = ""   # an instruction continued over lines
    for n, raw in enumerate(lines, 1):
        m = _FILE.match(raw)
        if m:
            module.files[int(m.group(1))] = _string(m.group(2))
            continue
        m = _LOC.match(raw)
        if m:
            loc = _loc(m, strings, inlined)
            continue
        line = _COMMENT.sub("", raw).strip()
        if not line:
            continue
        if entry is None:
            m = _ENTRY.match(line)
            if m:
                entry = Entry(m.group(1))
                function = False
                module.entries[entry.name] = entry
                depth = 0
                loc = None
                continue
            m = _FUNC.match(line)
            if m:
                entry = Entry(m.group(2))
                entry.returns = _params(m.group(1) or "")
                entry.params = _params((m.group(3) or "").rstrip(";").rstrip(")"))
                function = True   # (the module's once its body opens: a prototype has none)
                depth = 0
                loc = None
                if line.rstrip().endswith(";"):   # (a prototype on one line)
                    entry = None
                continue
            m = _SHARED.match(line)
            if m:
                module.shared.append(_shared(m))
                continue
            # a __constant__ array, its initial values possibly over several lines
            if pending or re.match(r"(\.visible\s+|\.extern\s+|\.weak\s+|\.common\s+)?"
                                   r"\.(const|global)\b", line):
                pending += " " + line
                if pending.rstrip().endswith(";"):
                    m = _CONST.match(pending.strip())
                    pending = ""
                    if m:
                        c = _const(m)
                        module.consts[c.name] = c
            continue
        if depth == 0:   # the parameter list, before the body's brace
            m = _PARAM.match(line)
            if line.endswith(";") and not m and function:
                entry = None   # (a function's prototype, `vprintf`'s: no body follows)
                continue
            if m:
                size = _SIZES.get(m.group(2), 0) * (int(m.group(4)[1:-1]) if m.group(4) else 1)
                entry.params.append(Param(m.group(3), m.group(2), size))
            elif line.startswith((".maxntid", ".reqntid")):   # (__launch_bounds__)
                entry.max_threads = prod(int(n) for n in re.findall(r"\d+", line)) or None
            elif line.startswith((".explicitcluster", ".reqnctapercluster")):
                entry.cluster = _cluster(line)
            if "{" in line:
                if function:
                    module.functions[entry.name] = entry
                depth = 1
                scopes, next_scope, chains, declared = [], 0, [], {}
            continue
        # an inline asm block opens and closes scopes on its statements' lines
        # (`{.reg .b16 low,high;` ... `mov.b16 %rs1, low;}`); a vector operand's braces
        # stand inside a statement
        while line.startswith("{"):
            depth += 1
            next_scope += 1
            scopes.append(next_scope)
            line = line[1:].strip()
        closes = 0
        while line.endswith("}") and (line[:-1].rstrip().endswith(";") or
                                      not line[:-1].strip()):
            closes += 1
            line = line[:-1].rstrip()
        chains += [tuple(scopes)] * (len(entry.body) - len(chains))
        for statement in _statements(line):
            if not pending and _LABEL.match(statement):
                entry.body.append(Label(_LABEL.match(statement).group(1)))
                continue
            if pending or not statement.endswith(";"):
                pending += " " + statement
                if not pending.rstrip().endswith(";"):
                    continue
                statement, pending = pending.strip(), ""
            if scopes and statement.startswith(".reg"):
                declared.setdefault(scopes[-1], set()).update(_declared(statement))
            _statement(entry, statement, loc, n)
        chains += [tuple(scopes)] * (len(entry.body) - len(chains))
        depth -= closes
        if closes:
            del scopes[-closes:]
        if depth == 0:
            _scope_labels(entry, chains)
            _scope_registers(entry, chains, declared)
            entry = None
    for m in _INFO_STRING.finditer(text):   # the inlined functions' names
        data = bytes(int(b) for b in m.group(2).replace("\n", " ").replace(",", " ").split()
                     if b.isdigit() and int(b) < 256)
        module.strings[m.group(1)] = data.split(b"\0")[0].decode("utf-8", "replace")
    # (each entry with its calls of the module's own functions written out)
    from .inline_calls import inline_calls
    for name, entry in module.entries.items():
        module.entries[name] = inline_calls(module, entry)
    return module


def _scope_labels(entry: Entry, chains: list) -> None:
    """Labels declared inside a `{ }` block (an inline asm statement's own wait loop,
    `LAB_WAIT: ... @P1 bra.uni DONE; bra.uni LAB_WAIT; DONE:`, pasted once per call) are
    that block's: each is renamed for its block, and so are the branches inside the block
    to it (`chains`: each body element's enclosing blocks, outermost first)."""
    scoped = {(chain[-1], x.name) for x, chain in zip(entry.body, chains)
              if isinstance(x, Label) and chain}
    if not scoped:
        return
    body = []
    for x, chain in zip(entry.body, chains):
        if isinstance(x, Label) and chain:
            x = Label(f"{x.name}${chain[-1]}")
        elif isinstance(x, Inst) and x.name == "bra" and x.operands:
            target = x.operands[-1]
            block = next((b for b in reversed(chain) if (b, target) in scoped), None)
            if block is not None:
                x = replace(x, operands=x.operands[:-1] + (f"{target}${block}",))
        body.append(x)
    entry.body[:] = body


def _declared(statement: str) -> set[str]:
    """The registers a `.reg` statement declares: `%p1`, `p` (inline asm's own names), and
    each of a range `%r<4>` (%r0 to %r3)."""
    parts = statement[4:].rstrip(";").split(None, 1)
    names = set()
    for name in (parts[1] if len(parts) > 1 else "").split(","):
        name = name.strip()
        m = re.fullmatch(r"(%?[A-Za-z_$][\w$]*)<(\d+)>", name)
        if m:
            names.update(f"{m.group(1)}{k}" for k in range(int(m.group(2))))
        elif name:
            names.add(name)
    return names


def _scope_registers(entry: Entry, chains: list, declared: dict) -> None:
    """Registers declared inside a `{ }` block are that block's, shadowing any of the same
    name outside it: `__syncthreads_or` pastes `{ .reg .pred %p1; .reg .pred %p2; setp.ne.u32
    %p1, ...; bar.red.or.pred %p2, 0, %p1; ... }` into a kernel whose own %p1 and %p2 live
    on after the block. Each is renamed for its block (`%p2__scope3`) in the block's
    instructions (`chains`: each body element's enclosing blocks, outermost first)."""
    if not declared:
        return

    def renamed(chain, name: str) -> str:
        block = next((b for b in reversed(chain) if name in declared.get(b, ())), None)
        return name if block is None else f"{name}__scope{block}"

    def operand(chain, text: str) -> str:
        text = re.sub(r"%[A-Za-z_][A-Za-z_0-9]*", lambda m: renamed(chain, m.group(0)), text)
        return re.sub(r"(?<![%\w$.])[A-Za-z_$][\w$]*",
                      lambda m: renamed(chain, m.group(0)) if m.group(0) in entry.names
                      else m.group(0), text)

    for b, names in declared.items():
        entry.names.update(f"{n}__scope{b}" for n in names if not n.startswith("%"))
    body = []
    for x, chain in zip(entry.body, chains):
        if isinstance(x, Inst) and chain:
            x = replace(x, operands=tuple(operand(chain, o) for o in x.operands),
                        guard=None if x.guard is None else operand(chain, x.guard))
        body.append(x)
    entry.body[:] = body


def _statements(line: str) -> list[str]:
    """A line's statements, each with its `;` (a label alone on its line is one too)."""
    parts = _split_top(line, ";")
    out = [p.strip() + ";" for p in parts[:-1]]
    return out + ([parts[-1].strip()] if parts[-1].strip() else [])


def _split_top(text: str, sep: str, opens: str = "{[(", closes: str = "}])") -> list[str]:
    """`text` split at each `sep` outside brackets (a vector `{a, b}`, an address `[a+4]`;
    `::` outside a C++ name's `<...>` and `(...)`)."""
    out, depth, start, n = [], 0, 0, 0
    while n < len(text):
        c = text[n]
        if c in opens:
            depth += 1
        elif c in closes:
            depth -= 1
        elif depth == 0 and text.startswith(sep, n):
            out.append(text[start:n])
            n += len(sep)
            start = n
            continue
        n += 1
    out.append(text[start:])
    return out


def _statement(entry: Entry, text: str, loc, line: int) -> None:
    """One statement of an entry's body: a shared variable, a register declaration, a
    label or an instruction."""
    m = _SHARED.match(text)
    if m:
        entry.shared.append(_shared(m))
        return
    if text.startswith(".reg"):
        entry.registers.update(_declared(text))
        names = text[4:].rstrip(";").split()[1:] if len(text[4:].split()) > 1 else []
        for name in " ".join(names).split(","):
            name = name.strip()
            if name and not name.startswith("%") and re.fullmatch(r"[A-Za-z_$][\w$]*", name):
                entry.names.add(name)
        return
    if text.startswith((".local", ".param")):
        m = re.search(r"([\w$]+)\s*((?:\[\d*\])*)\s*;?$", text)
        if m and text.startswith(".local"):
            count = 1
            for n in re.findall(r"\[(\d*)\]", m.group(2)):
                count *= int(n) if n else 0
            size = _SIZES.get(next((w[1:] for w in text.split() if w[1:] in _SIZES), ""), 1)
            entry.local_arrays[m.group(1)] = count * size
        elif m:
            entry.call_params.add(m.group(1))
        return
    if text.startswith((".explicitcluster", ".reqnctapercluster")):
        entry.cluster = _cluster(text)
        return
    if text.startswith((".pragma", ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg")):
        return
    m = _LABEL.match(text)
    if m:
        entry.body.append(Label(m.group(1)))
        return
    entry.body.append(_instruction(text.rstrip(";").strip(), loc, line))


def _params(text: str) -> list[Param]:
    """The parameters of a `.func` header's list (`.param .b32 f_param_0, .param .align 4
    .b8 f_param_1[8]`)."""
    out = []
    for part in _split_top(text, ","):
        m = _PARAM.match(part.strip())
        if m:
            size = _SIZES.get(m.group(2), 0) * (int(m.group(4)[1:-1]) if m.group(4) else 1)
            out.append(Param(m.group(3), m.group(2), size))
    return out


def _cluster(directive: str) -> str:
    """What a cluster directive says: its cluster's shape, or "explicit"."""
    return directive.rstrip(";").split(None, 1)[-1].strip() \
        if directive.startswith(".req") else "explicit"


def _string(text: str) -> str:
    """A PTX string's text (`\\"` and `\\\\` are its escapes)."""
    return re.sub(r"\\(.)", r"\1", text)


def _loc(m: re.Match, strings: dict, inlined: dict) -> Loc:
    """A `.loc` line, with its inlined_at chain (`.loc 1 18 3, function_name $L__info_string0,
    inlined_at 1 78 5`). nvcc writes one level a mark: the call at 1 78 5 is itself inlined
    where the latest mark at 1 78 5 says (that mark precedes this one), so the chain goes
    on from there (`inlined`: (file, line, column) -> the latest inlined mark there)."""
    found = _INLINED.search(m.group(4))
    outer = None
    if found:
        at = (int(found.group(2)), int(found.group(3)), int(found.group(4)))
        outer = inlined.get(at) or Loc(*at)
    loc = Loc(int(m.group(1)), int(m.group(2)), int(m.group(3)), outer,
              found.group(1) if found else None)
    if found and at != (loc.file, loc.line, loc.column):
        # (a mark inlined at its own place, as numba writes its kernel's first line, says
        # nothing of a call further out)
        inlined[(loc.file, loc.line, loc.column)] = loc
    return loc


def _const(m: re.Match) -> ConstVar:
    size = _SIZES.get(m.group(3), 1)
    count = 1
    for e in re.findall(r"\[(\d*)\]", m.group(5)):
        count *= int(e or 0)
    initial = None
    if m.group(6) is not None:
        initial = tuple(v.strip() for v in m.group(6).replace("{", "").replace("}", "")
                        .split(",") if v.strip())
    space = m.group(2) if (m.group(1) or "").strip() != ".extern" else "extern"
    return ConstVar(m.group(4), m.group(3), size * count, initial, space)


def _shared(m: re.Match) -> SharedVar:
    extents = re.findall(r"\[(\d*)\]", m.group(4))
    if any(e == "" for e in extents):
        nbytes = None
    else:
        nbytes = _SIZES.get(m.group(2), 1)
        for e in extents:
            nbytes *= int(e)
    return SharedVar(m.group(3), int(m.group(1)), nbytes)


def _instruction(text: str, loc: Loc | None, line: int) -> Inst:
    guard = None
    if text.startswith("@"):
        guard, _, text = text[1:].partition(" ")
        text = text.strip()
    opcode, _, rest = text.partition(" ") if " " in text else (text, "", "")
    opcode = opcode.split("\t")[0]
    rest = text[len(opcode):].strip()
    return Inst(tuple(opcode.split(".")), tuple(_operands(rest)), guard, loc, line)


def _operands(text: str) -> list[str]:
    """Operands split at top-level commas (a vector `{a, b}` and an address `[a+4]` whole)."""
    parts = [p.replace(" ", "").replace("\t", "") for p in _split_top(text, ",")]
    return parts[:-1] if parts[-1] == "" else parts   # (nothing after the last comma)

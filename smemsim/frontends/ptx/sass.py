"""The SASS of the PTX that is lowered: ptxas builds that very PTX (as nvcc's own build
would, with the user's ptxas options) and nvdisasm reads the cubin back, so the
instructions the GPU runs are known for each source line.

What is kept of each function: its shared-memory instructions, each with its source line
and the `inlined at` chain (`nvdisasm -gi` prints a chain as consecutive marks, innermost
first), the operand's register part and constant offset (`[R79+0x10]`: `R79`, 16), and the
registers ptxas allocated (`ptxas -v`). Nothing of the text is evaluated; the PTX reaches
ptxas as a private file with a fixed name (smemsim.toolrun), the tools' answers are cached
by the PTX's digest and the tools' files.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

from ...cache import cache_dir, open_sealed, sealed, store
from ...toolrun import ToolMissing, find_tool, private_folder, run_tool

CACHE_FORMAT = 6   # 2: never-executed `@!PT` instructions left out; 3: resources;
#                    4: instructions after a conditional EXIT; 5: static shared memory of
#                    a function with a stack (its `ptxas -v` line read whole); 6: the
#                    functions an entry calls apart from it

# the opcodes that access shared memory, by their first part
_SHARED = {"LDS": "load", "STS": "store", "LDSM": "ldmatrix", "STSM": "stmatrix",
           "ATOMS": "atomic", "LDGSTS": "cp_async"}
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?)\s*;")
_MARK = re.compile(r'^\s*//## File "((?:[^"\\]|\\.)*)", line (\d+)'
                   r'(?: inlined at "((?:[^"\\]|\\.)*)", line (\d+))?')
_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
_CALLED = re.compile(r"^\s*\.type\s+(\$[^,\s]+\$[^,\s]+),@function")
_LABEL = re.compile(r"^\s*\.L\w*:")
_OPERAND = re.compile(r"\[([^\]]*)\]")
_ENTRY = re.compile(r"(?:Compiling entry function|Function properties for) '?([\w$.]+)'?")
# (the parts after the registers come as the build has them: `used 1 barriers, 8 bytes
# cumulative stack size, 4096 bytes smem` where a call or printf needs a stack)
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?"
                   r"(?:, \d+ bytes cumulative stack size)?(?:, (\d+) bytes smem)?")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


class SassUnavailable(RuntimeError):
    """ptxas or nvdisasm is missing, or could not build the PTX (the reason is the message)."""


@dataclass(frozen=True)
class SassInst:
    """One shared-memory instruction of the SASS."""

    opcode: str          # "LDS.128", "STS.U8", "ATOMS.ADD", "LDSM.16.M88.4"
    kind: str            # load, store, ldmatrix, stmatrix, atomic, cp_async
    width: int           # bytes a lane (LDS/STS; 16 for LDSM/STSM rows; else 4)
    where: tuple         # ((file, line), ...): the line, then the calls it was inlined at
    base: str            # the address operand's register part (`R79`, `R0+UR5`)
    offset: int          # its constant part
    address: int         # the instruction's address in the function
    # after a conditional EXIT with no label between them: only the threads that do not
    # exit reach it (ptxas sinks a load below such an exit where only the staying threads
    # use its value: tests/test_ptx_sass.py's epilogue, cub's radix sort)
    after_exit: bool = False


@dataclass(frozen=True)
class FunctionSass:
    """What the SASS of one function says: its shared-memory instructions, in code order,
    and what ptxas allocated for it (`ptxas -v`: registers and stack a thread, static
    shared memory and named barriers a block)."""

    name: str
    shared: tuple[SassInst, ...]
    registers: int
    static_smem: int = 0     # bytes, as the driver reports them (ptxas's figure: no 1 KiB
    #                          per-block reservation, which the cubin's own figure holds)
    stack: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    barriers: int = 0

    @property
    def resources(self) -> tuple[int, ...]:
        """registers, static smem, stack, spill stores, spill loads, barriers."""
        return (self.registers, self.static_smem, self.stack, self.spill_stores,
                self.spill_loads, self.barriers)


def sass_of(ptx: str, arch: str, ptxas_options=(), ptxas: str | None = None
            ) -> dict[str, FunctionSass]:
    """Each function of the PTX as ptxas builds it for `arch` (raises SassUnavailable);
    `ptxas`: the one the PTX's own compiler uses (Triton's, for the PTX versions it writes),
    else the toolkit's."""
    try:
        ptxas, nvdisasm = ptxas or find_tool("ptxas"), find_tool("nvdisasm")
    except ToolMissing as err:
        raise SassUnavailable(str(err)) from None
    tools = [(f, st.st_size, st.st_mtime_ns) for f in (ptxas, nvdisasm)
             for st in [os.stat(os.path.realpath(f))]]
    key = hashlib.sha256(repr([CACHE_FORMAT, arch, list(ptxas_options), tools,
                               hashlib.sha256(ptx.encode()).hexdigest()]).encode()).hexdigest()
    if key in _SEEN:   # (a file's several kernels share one build, cache or not)
        return _SEEN[key]
    folder = cache_dir("sass")
    entry = folder / f"{key}.txt" if folder is not None else None
    found = _load(entry, key)
    if found is None:
        found = _build(ptx, arch, list(ptxas_options), ptxas, nvdisasm)
        if entry is not None:
            store(entry, sealed(key, _text(found).encode()))
    _SEEN[key] = found
    return found


_SEEN: dict[str, dict] = {}   # this process's builds, by key


def ptxas_options(flags) -> list[str]:
    """The options of the user's nvcc flags that nvcc hands to ptxas (`-Xptxas A,B`,
    `--ptxas-options=A`, `-maxrregcount=N`), as ptxas takes them."""
    out, flags = [], list(flags)
    for n, f in enumerate(flags):
        name, eq, value = f.partition("=")
        if name in ("-Xptxas", "--ptxas-options"):
            value = value if eq else (flags[n + 1] if n + 1 < len(flags) else "")
            out += [v for v in value.split(",") if v]
        elif name in ("-maxrregcount", "--maxrregcount"):
            value = value if eq else (flags[n + 1] if n + 1 < len(flags) else "")
            out.append(f"--maxrregcount={value}")
    return out


def _build(ptx: str, arch: str, options: list, ptxas: str, nvdisasm: str) -> dict:
    """ptxas and nvdisasm in a private folder: {function: {"shared": [...], "registers"}}."""
    import shutil
    folder = private_folder()
    try:
        source, cubin = os.path.join(folder, "k.ptx"), os.path.join(folder, "k.cubin")
        with open(source, "w") as f:
            f.write(ptx)
        built = run_tool([ptxas, f"-arch={arch}", "-lineinfo", "-v", *options, source,
                          "-o", cubin], folder=folder)
        if built.returncode:
            raise SassUnavailable("ptxas could not build nvcc's PTX: " +
                                  built.stderr.strip()[-400:])
        disasm = run_tool([nvdisasm, "-gi", "-c", cubin], folder=folder)
        if disasm.returncode:
            raise SassUnavailable("nvdisasm could not read ptxas's cubin: " +
                                  disasm.stderr.strip()[-400:])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    resources = _resources(built.stdout + built.stderr)
    return {name: FunctionSass(name, tuple(SassInst(*i) for i in _shared(text)),
                               *resources.get(name, (0,)))   # (a called function's
            #                                                        are its entry's)
            for name, text in _functions(disasm.stdout).items()}


def _functions(text: str) -> dict[str, str]:
    """nvdisasm's output, one text per function: each section's, and each function ptxas
    placed in an entry's section (a `.func` it calls rather than inlines, named
    `$ENTRY$FUNCTION`)."""
    out, name, lines = {}, None, []
    for line in text.split("\n"):
        m = _SECTION.match(line) or (_CALLED.match(line) if name is not None else None)
        if m:
            if name is not None:
                out[name] = "\n".join(lines)
            name, lines = m.group(1), []
        elif name is not None:
            lines.append(line)
    if name is not None:
        out[name] = "\n".join(lines)
    return out


def _shared(text: str) -> list[tuple]:
    """The shared-memory instructions of one function's SASS, with their places."""
    out, marks, where, after_exit = [], [], (), False
    for line in text.split("\n"):
        m = _MARK.match(line)
        if m:
            marks.append((_unescape(m.group(1)), int(m.group(2)),
                          (_unescape(m.group(3)), int(m.group(4))) if m.group(3) else None))
            continue
        if _LABEL.match(line):   # (a branch may come here without passing the exit)
            after_exit = False
            continue
        m = _INSTRUCTION.match(line)
        if not m:
            continue
        if marks:
            where, marks = _chain(marks), []
        guard, opcode = (m.group(2) or "").strip(), m.group(3)
        if opcode == "EXIT" and guard not in ("", "@PT", "@!PT"):
            after_exit = True
        kind = _SHARED.get(opcode.split(".")[0])
        if kind is None or guard == "@!PT":
            # (`@!PT LDS RZ, [RZ]`: never executed; ptxas pads each LDGSTS with one)
            continue
        operand = _OPERAND.search(m.group(4))
        base, offset = _split_operand(operand.group(1) if operand else "")
        out.append((opcode, kind, _width(opcode), where, base, offset, int(m.group(1), 16),
                    after_exit))
    return out


def _chain(marks: list) -> tuple:
    """The place the last marks before an instruction give: the last mark is the outermost
    line; before it, each mark inlined at the one after it (innermost first)."""
    chain = [marks[-1]]
    for mark in reversed(marks[:-1]):
        if mark[2] != chain[0][:2]:
            break
        chain.insert(0, mark)
    return tuple((f, n) for f, n, _ in chain)


def _split_operand(text: str) -> tuple[str, int]:
    """`R79+0x10` -> ("R79", 16); `R0+UR5+-0x8` -> ("R0+UR5", -8)."""
    base, offset = [], 0
    for part in text.replace(" ", "").split("+"):
        if re.fullmatch(r"-?0x[0-9a-fA-F]+|-?\d+", part):
            offset += int(part, 0)
        elif part:
            base.append(part)
    return "+".join(base), offset


def _width(opcode: str) -> int:
    """Bytes a lane of an LDS/STS (`.U8` 1, `.U16` 2, `.64` 8, `.128` 16, else 4)."""
    if opcode.startswith(("LDSM", "STSM")):
        return 16
    for part in opcode.split(".")[1:]:
        found = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16}.get(part)
        if found:
            return found
    return 4


def _resources(log: str) -> dict[str, tuple[int, ...]]:
    """Per function, from `ptxas -v`: (registers, static smem, stack frame, spill stores,
    spill loads, barriers) bytes, FunctionSass's order. Each function's lines follow its
    `Function properties for NAME`: the frame line, then `Used R registers, used B
    barriers, S bytes smem` (the parts it has)."""
    out, frames, name = {}, {}, None
    for line in log.split("\n"):
        m = _ENTRY.search(line)
        if m:
            name = m.group(1)
        m = _FRAME.search(line)
        if m and name is not None:
            frames[name] = tuple(int(x) for x in m.groups())
        m = _USED.search(line)
        if m and name is not None:
            stack, stores, loads = frames.get(name, (0, 0, 0))
            out[name] = (int(m.group(1)), int(m.group(3) or 0), stack, stores, loads,
                         int(m.group(2) or 0))
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


_HEAD = "smemsim-sass 3"


def _text(functions: dict) -> str:
    """A cache entry: a header line, then per function `F name registers smem stack
    spill-stores spill-loads barriers` and per shared instruction `I opcode kind width
    offset address base chain after-exit` (names %-quoted; the chain `file:line,...`; 1 or
    0), read back without evaluating anything."""
    lines = [_HEAD]
    for f in functions.values():
        lines.append(f"F {quote(f.name)} {' '.join(map(str, f.resources))}")
        for i in f.shared:
            chain = ",".join(f"{quote(file)}:{n}" for file, n in i.where)
            lines.append(f"I {quote(i.opcode)} {i.kind} {i.width} {i.offset} {i.address} "
                         f"{quote(i.base) or '-'} {chain or '-'} {int(i.after_exit)}")
    return "\n".join(lines) + "\n"


def _load(entry, key: str) -> dict | None:
    """A cached answer, sealed under its key and read field by field (anything else: a
    miss)."""
    payload = open_sealed(entry, key)
    if payload is None:
        return None
    lines = payload.decode("utf-8", "replace").split("\n")
    if lines[0] != _HEAD:
        return None
    out, name, resources, shared = {}, None, (), []
    try:
        for line in lines[1:] + ["F - 0 0 0 0 0 0"]:
            if not line:
                continue
            parts = line.split(" ")
            if parts[0] == "F" and len(parts) == 8:
                if name is not None:
                    out[name] = FunctionSass(name, tuple(shared), *resources)
                name, resources, shared = unquote(parts[1]), tuple(map(int, parts[2:])), []
            elif parts[0] == "I" and len(parts) == 9 and parts[8] in ("0", "1") and \
                    name is not None:
                where = tuple((unquote(f), int(n)) for f, _, n in
                              (c.rpartition(":") for c in parts[7].split(","))) \
                    if parts[7] != "-" else ()
                shared.append(SassInst(unquote(parts[1]), parts[2], int(parts[3]), where,
                                       "" if parts[6] == "-" else unquote(parts[6]),
                                       int(parts[4]), int(parts[5]), parts[8] == "1"))
            else:
                return None
    except ValueError:
        return None
    return out

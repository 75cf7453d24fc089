"""A counted loop unrolled as ptxas unrolls it, so that the accesses it merges across
iterations can be matched (smemsim.frontends.ptx.as_built).

siboehm's kernel 4 reads `As[(threadRow * TM + resIdx) * BK + dotIdx]`: nvcc leaves a loop of
4 iterations, 16 `ld.shared.f32 [%r54+...]` each, `%r54` advancing 8 bytes an iteration;
ptxas unrolls it and reads four iterations' floats with one LDS.128 (16 of them where the PTX
has 64 loads). Unrolled here the same way, the 64 loads stand at offsets of one base and
as_built's matching serves them as the SASS does.

Only the plainest loops: one block that branches back to its own label, a counter set by a
`mov` of a constant just before and stepped by a constant add, compared with a constant
(`setp.ne`/`lt`/`le`/`gt`/`ge`), 2 to 32 iterations; every other register the block steps
(`add %r, %r, constant`) is used only as an address base or by its own step. Each copy's
addresses carry the copy's steps as offsets; after the copies each stepped register gets
the sum of its steps, and the compare runs once, so every value after the loop is the
loop's.
"""
from __future__ import annotations

import re

from .parse import Inst, Label

MAX_TRIPS = 32
_IMM = re.compile(r"-?(?:0x[0-9a-fA-F]+|\d+)$")


def unroll(body: list, label: str, names=frozenset()) -> list | None:
    """`body` with the loop at `label` unrolled, or None where it is not such a loop
    (`names`: the entry's registers named without a `%`)."""
    from .operands import _reads, _registers, _writes
    start = next((n for n, x in enumerate(body) if isinstance(x, Label) and x.name == label),
                 None)
    if start is None:
        return None
    end = next((n for n in range(start + 1, len(body)) if isinstance(body[n], Label) or
                body[n].name in ("bra", "ret", "exit")), None)
    if end is None or isinstance(body[end], Label):
        return None
    branch = body[end]
    if branch.name != "bra" or branch.operands[0] != label or branch.guard is None or \
            branch.guard.startswith("!") or \
            sum(isinstance(x, Inst) and x.name == "bra" and x.operands[0] == label
                for x in body) != 1:
        return None
    block = body[start + 1:end]
    steps = {}   # register -> (position in block, step) of its one `add r, r, imm`
    writers: dict[str, int] = {}
    for n, x in enumerate(block):
        for r in _writes(x):
            writers[r] = writers.get(r, 0) + 1
        if x.name == "add" and len(x.operands) == 3 and x.operands[0] == x.operands[1] and \
                _IMM.match(x.operands[2]) and x.guard is None:
            steps[x.operands[0]] = (n, int(x.operands[2], 0))
    steps = {r: s for r, s in steps.items() if writers.get(r) == 1}
    compare = next((n for n, x in enumerate(block) if x.name == "setp" and
                    x.operands[0] == branch.guard), None)
    if compare is None or writers.get(branch.guard) != 1:
        return None
    test = block[compare]
    counter, limit = test.operands[1], test.operands[2]
    if counter not in steps or not _IMM.match(limit) or test.guard is not None:
        return None
    first = _initial(body, start, counter)
    trips = _trips(test.opcode[1], first, steps[counter][1], int(limit, 0), steps[counter][0] <
                   compare)
    if first is None or trips is None or not 2 <= trips <= MAX_TRIPS:
        return None
    # each stepped register: used only as an address base, or by its step (the counter also
    # by the compare); and nothing of the block is guarded by what the loop computes last
    for r, (at, _) in steps.items():
        for n, x in enumerate(block):
            if n == at or (r == counter and n == compare) or r not in _reads(x):
                continue
            if x.guard and x.guard.lstrip("!") == r or \
                    any(r in _registers(o, ()) and _base(o) != r for o in x.operands):
                return None
    if any(isinstance(x, Inst) and (x.name in ("bra", "call", "ret", "exit") or
                                    (set(_reads(x, names)) | set(_writes(x, names))) & names)
           for x in block):
        return None   # (an inline asm's scoped registers: not renamed here)
    out = list(body[:start])
    # each copy writes registers of its own (a copy's loads may then move up past the
    # previous copy's uses of the same PTX register); after the copies, each register the
    # block writes takes its last copy's value
    current: dict[str, str] = {}
    written = set()
    skip = {steps[r][0] for r in steps} | {compare}
    for k in range(trips):
        for n, x in enumerate(block):
            if n in skip or isinstance(x, Label):
                continue
            x = _moved(x, {r: step * k + (step if at < n else 0)
                           for r, (at, step) in steps.items()})
            targets = set(_writes(x))
            renamed = {}
            for r in _reads(x):
                if r in current:
                    renamed[r] = current[r]
            dest = {}
            for r in targets:
                fresh = _fresh(r, k)
                if fresh is None:
                    return None
                dest[r] = fresh
            out.append(_renamed(x, renamed, dest, _writes))
            current.update(dest)
            written |= targets
    for r in sorted(written):
        kind = _MOV_TYPES.get(re.sub(r"\d+$", "", r))
        if kind is None:
            return None
        out.append(Inst(("mov", kind), (r, current[r]), None, test.loc, test.line))
    for r, (at, step) in steps.items():
        x = block[at]
        out.append(Inst(x.opcode, (r, r, str(step * trips)), None, x.loc, x.line))
    out.append(test)
    out += body[end + 1:]
    return out


# nvcc's register classes and the type a `mov` between two of them takes
_MOV_TYPES = {"%p": "pred", "%rs": "b16", "%r": "b32", "%rd": "b64", "%f": "f32",
              "%fd": "f64", "%h": "b16", "%hh": "b32"}
_COPY = 10_000_000   # a copy's registers: the PTX's number plus this times the copy's


def _fresh(register: str, copy: int) -> str | None:
    """A name for a register in one copy (`%f53` in copy 1: `%f20000053`)."""
    m = re.fullmatch(r"(%[a-z]+)(\d+)", register)
    if m is None:
        return None
    return f"{m.group(1)}{int(m.group(2)) + _COPY * (copy + 1)}"


def _renamed(inst, reads: dict, writes: dict, writes_of):
    """An instruction with the registers it reads and those it writes renamed."""
    dest_count = 1 if writes_of(inst) else 0
    operands = []
    for n, o in enumerate(inst.operands):
        mapping = writes if n < dest_count else reads
        operands.append(re.sub(r"%[a-z]+\d+", lambda m: mapping.get(m.group(0), m.group(0)),
                               o))
    guard = inst.guard
    if guard:
        bare = guard.lstrip("!")
        guard = guard[:len(guard) - len(bare)] + reads.get(bare, bare)
    return Inst(inst.opcode, tuple(operands), guard, inst.loc, inst.line)


def _initial(body: list, start: int, register: str) -> int | None:
    """The constant a register holds entering the loop: its `mov` of a constant in the
    straight code just before the label (nothing else there writes it)."""
    from .operands import _writes
    for n in range(start - 1, -1, -1):
        x = body[n]
        if isinstance(x, Label) or x.name in ("bra", "ret", "exit"):
            return None
        if register in _writes(x):
            if x.name == "mov" and x.guard is None and _IMM.match(x.operands[1]):
                return int(x.operands[1], 0)
            return None
    return None


def _trips(cmp: str, first: int | None, step: int, limit: int, stepped_first: bool):
    """How many times the block runs: it runs, steps the counter (before the compare, where
    `stepped_first`), and goes again while `counter CMP limit`."""
    if first is None or step == 0:
        return None
    holds = {"ne": lambda v: v != limit, "lt": lambda v: v < limit, "le": lambda v: v <= limit,
             "gt": lambda v: v > limit, "ge": lambda v: v >= limit}.get(cmp)
    if holds is None:
        return None
    value = first
    for trips in range(1, MAX_TRIPS + 2):
        compared = value + step if stepped_first else value
        value += step
        if not holds(compared):
            return trips
    return None


def _base(operand: str) -> str | None:
    """The register of an address operand (`[%r54+-128]` -> `%r54`)."""
    if not operand.startswith("["):
        return None
    return re.split(r"[+-]", operand.strip("[]"), maxsplit=1)[0]


def _moved(inst, shifts: dict):
    """An instruction of one copy: its addresses on a stepped register moved by the steps
    taken before it."""
    if isinstance(inst, Label):
        return inst
    operands = []
    for o in inst.operands:
        base = _base(o)
        if base in shifts and shifts[base]:
            inner = o.strip("[]")
            rest = inner[len(base):]
            offset = int(rest.replace("+", "", 1), 0) if rest else 0
            total = offset + shifts[base]
            o = f"[{base}{'+' if total >= 0 else '+-'}{abs(total)}]" if total else f"[{base}]"
        operands.append(o)
    return Inst(inst.opcode, tuple(operands), inst.guard, inst.loc, inst.line)

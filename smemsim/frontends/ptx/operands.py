"""Reading PTX instructions: the registers an instruction reads and writes, its operands' places,
and the arithmetic of `.shared` sizes."""
from __future__ import annotations

import re

from kernels_ir.dtypes import i32, i64
from kernels_ir.expr import (cast, const)

from .parse import Inst, PtxError
from .values import _TYPES


def entry_shared(module, entry) -> list:
    """The `.shared` variables of the module and the entry that the entry's instructions
    name, in declaration order: those ptxas allocates for it (a variable of the module only
    another kernel uses, scan_warp<unsigned>'s `warp_sums` beside a kernel of scan_warp<int>,
    takes none of this kernel's shared memory)."""
    named = {t for i in entry.body if hasattr(i, "operands") for o in i.operands
             for t in re.findall(r"[\w$.]+", o)}
    return [v for v in (*module.shared, *entry.shared) if v.name in named]


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


_ATOMIC_KINDS = {"add": "add", "min": "min", "max": "max", "and": "and", "or": "or",
                 "xor": "xor", "inc": "inc", "dec": "dec", "exch": "exch", "cas": "cas"}


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


def _shortened(text: str, keep: int = 60) -> str:
    """A message with each over-long mangled name cut to its start (`_ZN3cub17CUB_...`)."""
    return re.sub(r"_Z\w{%d,}" % keep, lambda m: m.group(0)[:keep] + "...", text)


def _lanes(opcode: tuple) -> int:
    """The lanes of a vector access's opcode (`ld.param.v2.u32`: 2), 1 for a scalar one."""
    return next((int(p[1:]) for p in opcode if p in ("v2", "v4", "v8")), 1)


def _aggregate(param) -> bool:
    """Whether a parameter passes a struct by value (nvcc declares those `.b8 p[N]`; a C
    scalar of one byte is `.u8` or `.s8`)."""
    return param.ptype == "b8"


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


# the operand that holds a memory instruction's address
_ADDRESS_AT = {"ld": 1, "st": 0, "atom": 1, "red": 0, "ldmatrix": 1, "stmatrix": 0}


def _gmma_n(inst: Inst) -> int | None:
    """N of a `wgmma.mma_async...m64nNk16...` instruction (None: another shape)."""
    m = next((m for x in inst.opcode if (m := re.fullmatch(r"m64n(\d+)k16", x))), None)
    return int(m.group(1)) if m else None

"""Calls of the module's own functions written out in the caller, as the compiler would
have inlined them.

A `__noinline__` device function (or one nvcc chose not to inline) stays a `.func` of the
PTX, and the kernel calls it: `st.param` its arguments into the call's `.param` slots,
`call.uni (retval0), f, (param0, param1)`, `ld.param` its results back. The lowering reads
straight-line code, so each such call is replaced by the function's body: each argument
slot becomes a register the caller's `st.param` sets and the body's `ld.param` reads, each
result slot one the body's `st.param` sets and the caller's `ld.param` reads, `ret` a
branch to the body's end. The body's registers, labels and stack arrays are renamed for
each call, and its `.loc` marks are inlined at the call's, so an access in the function is
reported at its own line, called from the kernel's. What the GPU runs is the same program:
the function's shared accesses run as they would inline (ptxas's SASS of the function,
frontend._with_callees, tells how it built them).

A call of a function the module does not define (the device runtime's vprintf, a pointer)
stays a call; recursion deeper than MOST_DEPTH is refused at the call.
"""
from __future__ import annotations

import re
from dataclasses import replace
from itertools import count

from .parse import Entry, Inst, Label, Loc, Module, PtxError

# nested calls written out before a call is refused (recursion)
MOST_DEPTH = 16
_SIZES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "b32": 4,
          "u32": 4, "s32": 4, "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}
_SLOT = re.compile(r"^\[([\w$]+)(?:\+(-?\d+))?\]$")
_TOKEN = re.compile(r"%?[A-Za-z_$][\w$]*")


def inline_calls(module: Module, entry: Entry) -> Entry:
    """`entry` with every call of a function the module defines written out (see the
    module); the entry itself where it calls none."""
    if not _calls(module, entry):
        return entry
    numbers = count(1)
    out = replace(entry, body=list(entry.body), names=set(entry.names),
                  local_arrays=dict(entry.local_arrays), call_params=set(entry.call_params),
                  shared=list(entry.shared), registers=set(entry.registers))
    sites: list = []
    out.body = _written_out(module, out, entry.body, numbers, sites, 0)
    out.inlined = tuple(sites)
    return out


def _calls(module: Module, entry: Entry) -> bool:
    return any(isinstance(x, Inst) and x.name == "call" and _callee(x) in module.functions
               for x in entry.body)


def _callee(call: Inst) -> str:
    return next((o for o in call.operands if not o.startswith("(")), "")


def _written_out(module: Module, into: Entry, body: list, numbers, sites: list,
                 depth: int) -> list:
    """`body` with its calls of module functions written out (their registers, stack arrays
    and inline-asm names added to `into`; `sites`: (callee, call place) of each)."""
    out: list = []
    n = 0
    while n < len(body):
        x = body[n]
        if not (isinstance(x, Inst) and x.name == "call" and _callee(x) in module.functions):
            out.append(x)
            n += 1
            continue
        if depth >= MOST_DEPTH:
            raise PtxError(f"PTX line {x.line}: `call {_callee(x)}`: calls nested more than "
                           f"{MOST_DEPTH} deep (a recursive function) are not written out")
        callee = module.functions[_callee(x)]
        args = _slots(x.operands[-1]) if x.operands[-1].startswith("(") and \
            x.operands[-1] is not x.operands[0] else []
        rets = _slots(x.operands[0]) if x.operands[0].startswith("(") else []
        if len(args) != len(callee.params) or len(rets) != len(callee.returns):
            raise PtxError(f"PTX line {x.line}: `call {callee.name}` passes {len(args)} "
                           f"arguments and {len(rets)} results; the function takes "
                           f"{len(callee.params)} and {len(callee.returns)}")
        k = next(numbers)
        slot = lambda name, offset: f"%inl{k}_{name}_{offset}"  # noqa: E731
        # the caller's stores into the argument slots: its last instructions since the
        # call before (the parser drops the `.param` declarations between them)
        start = len(out)
        while start and not (isinstance(out[start - 1], Label) or
                             out[start - 1].name == "call"):
            start -= 1
        out[start:] = [m for y in out[start:] for m in (
            _param_moves(y, slot, store=True) if isinstance(y, Inst) and
            y.opcode[:2] == ("st", "param") and _slot_name(y.operands[0]) in args else [y])]
        copy = _copied(module, into, callee, k, x.loc, args, rets, slot)
        inner_sites: list = []
        copy = _written_out(module, into, copy, numbers, inner_sites, depth + 1)
        sites.append((callee.name, x.loc))
        sites.extend(inner_sites)
        out.extend(copy)
        n += 1
        # the caller's loads from the result slots, just after the call
        while n < len(body) and isinstance(body[n], Inst) and \
                body[n].opcode[:2] == ("ld", "param") and \
                _slot_name(body[n].operands[1]) in rets:
            out.extend(_param_moves(body[n], slot, store=False))
            n += 1
    return out


def _slots(text: str) -> list[str]:
    """`(param0,param1)` -> ["param0", "param1"]."""
    return [s for s in text.strip("()").split(",") if s]


def _slot_name(operand: str) -> str | None:
    m = _SLOT.match(operand)
    return m.group(1) if m else None


def _param_moves(inst: Inst, slot, store: bool, names: dict | None = None) -> list[Inst]:
    """A `st.param`/`ld.param` of a call slot as moves between its register(s) and the
    slot's, one per element of a vector (`names`: the slot's name as the slot registers
    know it, where the instruction names it otherwise)."""
    address, value = (inst.operands[0], inst.operands[1]) if store else \
        (inst.operands[1], inst.operands[0])
    m = _SLOT.match(address)
    if m is None:
        raise PtxError(f"PTX line {inst.line}: `{'.'.join(inst.opcode)}` of a call's "
                       f"parameter at {address}: not a slot and a constant offset")
    name = (names or {}).get(m.group(1), m.group(1))
    offset = int(m.group(2) or 0)
    ptype = inst.opcode[-1]
    size = _SIZES.get(ptype)
    if size is None:
        raise PtxError(f"PTX line {inst.line}: a call's parameter of type .{ptype} is not "
                       "written out")
    values = value.strip("{}").split(",") if value.startswith("{") else [value]
    moves = []
    for i, v in enumerate(values):
        register = slot(name, offset + i * size)
        if v == "_":
            continue
        operands = (register, v) if store else (v, register)
        moves.append(Inst(("mov", ptype), operands, inst.guard, inst.loc, inst.line))
    return moves


def _copied(module: Module, into: Entry, callee: Entry, k: int, at: Loc | None,
            args: list, rets: list, slot) -> list:
    """The callee's body for call number `k` at `at`: renamed, its parameter slots the
    call's, `ret` a branch to its end."""
    own = callee.registers | {r for r in _scoped(callee)}
    names = set(callee.names)
    depots = set(callee.local_arrays)
    labels = {x.name for x in callee.body if isinstance(x, Label)}
    suffix = f"__inl{k}"

    def renamed(text: str) -> str:
        def one(m: re.Match) -> str:
            t = m.group(0)
            if t in own or t.split("__scope")[0] in own or t in names or t in depots:
                return t + suffix
            return t
        return _TOKEN.sub(one, text)

    into.names.update(n + suffix for n in names)
    into.registers.update(r + suffix for r in own)
    into.local_arrays.update({d + suffix: b for d, b in callee.local_arrays.items()})
    into.call_params.update(callee.call_params)
    into.shared.extend(v for v in callee.shared if v not in into.shared)
    params = {p.name: a for p, a in zip(callee.params, args)}
    results = {p.name: r for p, r in zip(callee.returns, rets)}
    end = f"$inl{k}_return"
    placed: dict = {}
    out: list = []
    for x in callee.body:
        if isinstance(x, Label):
            out.append(Label(x.name + suffix))
            continue
        loc = _inlined_at(x.loc, at, placed)
        if x.opcode[:2] == ("ld", "param") and _slot_name(x.operands[1]) in params:
            out.extend(_renamed_move(m, renamed, loc)
                       for m in _param_moves(x, slot, store=False, names=params))
            continue
        if x.opcode[:2] == ("st", "param") and _slot_name(x.operands[0]) in results:
            out.extend(_renamed_move(m, renamed, loc)
                       for m in _param_moves(x, slot, store=True, names=results))
            continue
        if x.name == "ret":
            out.append(Inst(("bra", "uni"), (end,), None if x.guard is None else
                            renamed(x.guard), loc, x.line))
            continue
        operands = tuple(renamed(o) if not (x.name == "bra" and o in labels) else o + suffix
                         for o in x.operands)
        out.append(replace(x, operands=operands, loc=loc,
                           guard=None if x.guard is None else renamed(x.guard)))
    out.append(Label(end))
    return out


def _renamed_move(move: Inst, renamed, loc) -> Inst:
    """A slot move of the callee's body: its own register renamed (the slot's is none of
    the callee's)."""
    return replace(move, operands=tuple(map(renamed, move.operands)), loc=loc,
                   guard=None if move.guard is None else renamed(move.guard))


def _scoped(callee: Entry) -> set:
    """The names the parser gave registers of the callee's `{ }` blocks (`%p1__scope3`)."""
    return {t for x in callee.body if isinstance(x, Inst)
            for o in (*x.operands, x.guard or "") for t in _TOKEN.findall(o)
            if "__scope" in t}


def _inlined_at(loc: Loc | None, at: Loc | None, placed: dict) -> Loc | None:
    """`loc` with the call's place `at` as its outermost caller."""
    if loc is None:
        return at
    if at is None:
        return loc
    key = id(loc)
    if key not in placed:
        placed[key] = replace(loc, inlined_at=_inlined_at(loc.inlined_at, at, placed)
                              if loc.inlined_at is not None else at)
    return placed[key]

"""Parameters whose values decide nothing smemsim counts or checks: a GEMM's `alpha` and
`beta`, read only into the values it stores to global memory. The host code often takes
them from the command line (`atof(argv[1])`), where no reading can say them; asking the
user for them would ask for numbers that change no answer. Such a parameter, where nothing
gives its value, is counted with a stand-in, and a note says so.

A parameter decides something when it reaches, through the definitions that feed them
(slicing's closure), any of: a shared or global address, a condition or loop bound, a
value stored to shared memory or a register array (a race's bytes, a value read back), a
value an atomic or a shuffle works on, what can fault (a divisor, a shift count), the
launch's dimensions, an array's length or a tensor map. Where a loaded value decides
something and the kernel writes global memory, a value it stores could be read back: every
parameter then decides.
"""
from __future__ import annotations

import dataclasses

from kernels_ir import Kernel
from kernels_ir.expr import Op
from kernels_ir.stmt import Access, Assign, Atomic, Let, LocalStore, MmaSync, Shuffle, Store
from kernels_ir.stmt_async import tensor_maps

from .slicing import _Dependences, fault_probes

# the value a parameter nothing decides by is counted with: not 0, so that a value stored
# through it still carries what it multiplies (fix's patch check compares stored values)
STAND_IN = 1


def deciding_params(kernel: Kernel) -> frozenset[str]:
    """The names of the parameters whose values decide an address, control, a fault, the
    launch or a value that shared memory, a register array or an atomic keeps."""
    deps = _Dependences(kernel)
    deciding, kept, writes_global = [], [], False
    for s in kernel.statements():
        ctrl = deps.enclosing[id(s)]
        probes = [e for p in fault_probes(s) for e in p.roots()]
        if isinstance(s, (Let, Assign, LocalStore, MmaSync, Shuffle)):
            # definitions: followed where something reads what they define (a register
            # array's store, as its LOCAL_READs are followed); a shuffle's lanes, a
            # register array's index, and their faults, decide
            exprs = [e for e in (s.lane, s.width, s.mask) if not isinstance(e, int)] \
                if isinstance(s, Shuffle) else list(s.index) if isinstance(s, LocalStore) \
                else []
        elif isinstance(s, Access) and not s.is_shared and isinstance(s, (Store, Atomic)):
            writes_global = True
            exprs = list(s.address_exprs())    # (the value stored decides nothing here)
            if isinstance(s, Atomic) and s.compare is not None:
                exprs.append(s.compare)
        elif isinstance(s, Access) and s.is_shared and s.WRITES:
            # what shared memory keeps: a race's bytes, a value read back (as a loaded
            # value, where it decides something)
            exprs = list(s.address_exprs())
            kept.append((list(s.exprs()), ctrl))
        else:
            writes_global |= isinstance(s, Access) and s.WRITES and not s.is_shared
            exprs = list(s.exprs())
        deciding.append((exprs + probes, ctrl))
    needed, _, data = deps.closure_of(deciding)
    if data and writes_global:   # (a value stored to global memory could come back)
        return frozenset(p.name for p in kernel.params)
    roots = deciding + kept
    needed |= deps.closure_of(kept)[0]
    exprs = [e for exprs, _ in roots for e in exprs]
    for i in needed:
        exprs.extend(deps.by_id[i].exprs())
    exprs += [*kernel.grid, *kernel.block, kernel.dynamic_smem]
    exprs += [g.length for g in (*kernel.globals, *kernel.global_views)]
    for m in tensor_maps(kernel):
        exprs += [*m.shape, *m.strides]
    found, seen = set(), set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.op is Op.PARAM:
            found.add(e.arg)
        stack.extend(e.src)
    return frozenset(found)


def with_stand_ins(kernel: Kernel) -> Kernel:
    """The kernel, its parameters that have no value (none in `defaults`) and decide nothing
    (deciding_params) given STAND_IN (Kernel.stand_ins); unchanged where there are none."""
    missing = [p.name for p in kernel.params if p.name not in kernel.defaults]
    if not missing:
        return kernel
    deciding = deciding_params(kernel)
    free = tuple(n for n in missing if n not in deciding)
    if not free:
        return kernel
    return dataclasses.replace(kernel, defaults={**kernel.defaults,
                                                 **{n: STAND_IN for n in free}},
                               stand_ins=free)


def stand_in_note(kernel: Kernel, given) -> str | None:
    """What the analyses say of the kernel's stand-ins that `given` (the parameters given
    on the command line or in Python) does not name; None where there are none."""
    free = [n for n in kernel.stand_ins if n not in (given or {})]
    if not free:
        return None
    listed = ", ".join(f"'{n}'" for n in free)
    one = len(free) == 1
    return (f"{listed}: no value given, and {'it decides' if one else 'they decide'} no "
            f"address, condition, fault or value kept in shared memory: counted with "
            f"{STAND_IN} (-p {free[0]}=V gives another)")

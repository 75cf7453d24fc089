"""Where each lane's access lands: an access's index evaluated, checked against its array's
bounds and alignment, and mapped through the array's layout to element offsets (a wgmma's
run-time descriptor to the start it names); a fault names the index as the source would
read it. Functions of the interpreter's Machine (bound there as its methods)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .arrays import GlobalArray, SharedArray
from .expr import Expr
from .semantics import LaneFault
from .stmt_async import Wgmma

if TYPE_CHECKING:
    from .interpreter import Machine


def offsets(machine: Machine, s, idx: np.ndarray) -> np.ndarray:
    """Element offsets of each lane's access, after bounds and alignment checks."""
    found = machine._element_offsets(s.array, s.index, s.width, idx) \
        if not isinstance(s, Wgmma) or s.desc is None else machine._descriptor_offsets(s, idx)
    if machine._recorded is not None:  # an endpoint loop's iteration (_endpoint_loop)
        machine._recorded.setdefault(id(s), {}).setdefault(machine._phase, []).append(
            (idx.copy(), found.astype(np.int64)))
    return found


def descriptors(machine: Machine, desc: Expr, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each lane's run-time descriptor and the shared byte its start field says."""
    value = machine.eval(desc, idx).astype(np.uint64)
    return value, ((value & np.uint64(0x3FFF)) << np.uint64(4)).astype(np.int64)


def descriptor_offsets(machine: Machine, s: Wgmma, idx: np.ndarray) -> np.ndarray:
    """Element offsets in B's array of the start a run-time descriptor says."""
    _, start = machine._descriptors(s.desc, idx)
    base = machine.kernel.buffer_base(s.array.buffer)
    size = s.array.dtype.size
    extent = math.prod(machine.launch.extent(s.array)) * size
    outside = (start < base) | (start >= base + extent)
    if outside.any():
        lane = int(np.flatnonzero(outside)[0])
        raise LaneFault(f"wgmma's B descriptor starts at shared byte {int(start[lane])}, "
                        f"outside '{s.array.name}' (bytes {base}..{base + extent - 1})",
                        np.array([lane]))
    return (start - base) // size


def stored_at(machine: Machine, array, elements: np.ndarray, in_bytes: bool = False
              ) -> np.ndarray:
    """Where elements (`in_bytes`: bytes) of a global array lie in the run's storage of it:
    where they are, or for an array whose length the source does not say
    (Machine.unbounded), wrapped into its stand-in storage (its values are smemsim's seeded
    ones, wherever read)."""
    if array.name not in machine.unbounded:
        return elements
    storage = machine.globals[array.name]
    size = storage.nbytes if in_bytes else storage.size
    return elements % size if elements.size and int(elements.max()) >= size else elements


def element_offsets(machine: Machine, array, index, width: int, idx: np.ndarray) -> np.ndarray:
    """Element offsets of `width` elements at `array[index]` per lane, checked (of a global
    array whose length the source does not say, against its start only)."""
    nbytes = width * array.dtype.size
    if isinstance(array, GlobalArray):
        extents, strides = (machine.launch.lengths[array.name],), (1,)
        if array.name in machine.unbounded:
            extents = (np.iinfo(np.int64).max,)
    else:
        extents, strides = machine.launch.extent(array), array.strides
    offset = None
    last = len(extents) - 1
    for dim, (i_expr, extent, stride) in enumerate(zip(index, extents, strides)):
        i = machine.eval(i_expr, idx)
        limit = extent - (width - 1 if dim == last else 0)
        # reductions first: the per-lane mask is only built for a fault
        if i.size and (int(i.min()) < 0 or int(i.max()) >= limit):
            i = i.astype(np.int64)
            # (every lane out of bounds: the blocks they are in all fault here first)
            bad = np.flatnonzero((i < 0) | (i >= limit))
            lane = int(bad[0])
            span = f"{width} elements at " if width > 1 else ""
            dim_text = f" of dimension {dim}" if len(extents) > 1 else ""
            # (a view of a source's variable is named as the source names it, its
            # index in the elements the access reads: `s`'s u32 words)
            variable = getattr(array, "variable", None) or \
                getattr(getattr(array, "base", None), "name", None)
            named = f"'{array.name}'" if not variable or variable == array.name else \
                f"'{variable}' in {array.dtype} elements"
            at = getattr(array, "variable_at", None)
            if at is not None and len(extents) == 1 and at % array.dtype.size == 0:
                # a view of the whole window for one variable (nvcc's build of a `.cu`):
                # the index and extent are the variable's own, not the window's
                size = array.dtype.size
                nbytes_of = array.variable_bytes if array.variable_bytes is not None else \
                    extent * size - at
                window = f"; byte {int(i[lane]) * size} of the block's {extent * size}-" \
                    "byte shared window" if at else ""   # (where it is not the variable's)
                raise LaneFault(f"out of bounds: {span}index "
                                f"{_index_text(int(i[lane]) - at // size, i_expr)}"
                                f"{_wrapped_text(i[lane], array)} of '{variable}' (valid "
                                f"0..{nbytes_of // size - 1}{window})", bad)
            raise LaneFault(f"out of bounds: {span}index {_index_text(i[lane], i_expr)}"
                            f"{_wrapped_text(i[lane], array)}{dim_text} of {named} "
                            f"(valid 0..{extent - 1})", bad)
        term = i.astype(np.int64, copy=False)
        if stride != 1:
            term = term * stride
        offset = term if offset is None else offset + term
    if getattr(array, "layout", None) is not None:
        offset = array.layout.apply(offset)  # logical -> physical (bounds checked above)
    if width > 1:
        if isinstance(array, SharedArray):
            base = machine.kernel.buffer_base(array.buffer)
            misaligned = (base + offset * array.dtype.size) % nbytes != 0
        else:
            misaligned = offset % width != 0
        if misaligned.any():
            lane = int(np.flatnonzero(misaligned)[0])
            raise LaneFault(f"misaligned {nbytes}-byte access to '{array.name}' at "
                            f"element offset {offset[lane]} (byte "
                            f"{offset[lane] * array.dtype.size}); vector accesses must be "
                            "naturally aligned", np.array([lane]))
    return offset


def _wrapped_text(value, array) -> str:
    """For a shared array's index whose byte offset lies in the upper half of 32 bits: the
    negative index it is if that offset wrapped (PTX computes shared addresses in 32 bits:
    `s[c - 'a']` at c = 39, 4-byte elements, is index 1073741790, that is -34)."""
    size = array.dtype.size
    value = int(value)
    if not isinstance(array, SharedArray) or not 1 << 31 <= value * size < 1 << 32:
        return ""
    at = getattr(array, "variable_at", None) or 0   # (from the variable's own start)
    return f" ({(value * size - (1 << 32) - at) // size} if its 32-bit byte offset wrapped)"


def _index_text(value, index: Expr) -> str:
    """An index as a fault names it: an unsigned one past half its range also as the signed
    value it wrapped from (`4294967294 (-2 as a signed 32-bit value)`: nvcc's PTX computes a
    signed `i - 2` in unsigned registers)."""
    value = int(value)
    bits = index.dtype.bits
    if not index.dtype.is_float and not index.dtype.signed and bits >= 16 and \
            value >= 1 << (bits - 1):
        return f"{value} ({value - (1 << bits)} as a signed {bits}-bit value)"
    return str(value)

"""CuTe layouts in CuTe's own notation, as a shared tile: which byte holds element (row, col).

Reads what `cute::print` writes for a (swizzled) layout:

    (8,64):(64,1)                                   a shape : stride layout
    ((8,8),(8,8)):((8,512),(1,64))                  nested modes
    Sw<3,3,3> o (8,64):(64,1)                       a swizzle of the element offset
    Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)   a swizzle of the byte address
                                                           (CUTLASS's GMMA / TMA atoms)

A layout maps a coordinate to an offset: each top-level mode takes one index, split
colexicographically (first sub-mode fastest) over its nested shape and dotted with its
strides, all in elements. `Sw<B,M,S>` XORs bits [M+S, M+S+B) of the offset into bits
[M, M+B). In the `smem_ptr[Nb]` form it acts on the byte address (N bits an element), as
CuTe's swizzle pointers do, so Sw<3,4,3> there is TMA's SWIZZLE_128B; the address is taken
from a tile start aligned to the swizzle's period (2^(M+S+B) bytes) here. The composition is
evaluated as a function (what CuTe's ComposedLayout does), not simplified.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

_SWIZZLE = re.compile(r"^\s*Sw<\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*>\s*o\s*")
_POINTER = re.compile(r"^\s*smem_ptr\[(\d+)b\](?:\(\w*\))?\s*o\s*")
_OFFSET = re.compile(r"^\s*_?0\s*o\s*")


class CuteError(ValueError):
    """Text that is not a layout this module reads, with where it stops making sense."""


@dataclass(frozen=True)
class CuteLayout:
    """A parsed layout: its shape and stride (nested tuples of ints), and the swizzle
    (B, M, S) with whether it acts on bytes (`element_bits` from `smem_ptr[Nb]`) or on
    element offsets."""

    shape: tuple
    stride: tuple
    swizzle: tuple[int, int, int] | None = None
    element_bits: int | None = None

    @property
    def rank(self) -> int:
        """Top-level modes."""
        return len(self.shape)

    @property
    def extents(self) -> tuple[int, ...]:
        """Each top-level mode's size."""
        return tuple(_size(m) for m in self.shape)

    def text(self) -> str:
        """The layout in CuTe's notation, as parsed."""
        core = f"{_text(self.shape)}:{_text(self.stride)}"
        if self.element_bits is not None:
            core = f"smem_ptr[{self.element_bits}b](unset) o {core}"
        if self.swizzle is not None:
            core = "Sw<{},{},{}> o ".format(*self.swizzle) + core
        return core

    def offsets(self, *coords: np.ndarray) -> np.ndarray:
        """Element offsets (before the swizzle) of the coordinates, one array per mode."""
        if len(coords) != self.rank:
            raise CuteError(f"the layout has {self.rank} mode(s), {len(coords)} coordinate(s) "
                            "were given")
        out = 0
        for c, shape, stride in zip(coords, self.shape, self.stride):
            out = out + _mode_offset(np.asarray(c, np.int64), shape, stride)
        return out

    def byte_addresses(self, element_bytes: int, *coords: np.ndarray) -> np.ndarray:
        """Byte addresses from the tile start of the elements at the coordinates, the
        swizzle applied where CuTe applies it."""
        offset = self.offsets(*coords)
        if self.swizzle is None:
            return offset * element_bytes
        b, m, s = self.swizzle
        if self.element_bits is None:
            return _swizzle(offset, b, m, s) * element_bytes
        return _swizzle(offset * element_bytes, b, m, s)


def _swizzle(x: np.ndarray, b: int, m: int, s: int) -> np.ndarray:
    return x ^ (((x >> (m + s)) & ((1 << b) - 1)) << m)


def _size(mode) -> int:
    return int(np.prod([_size(m) for m in mode])) if isinstance(mode, tuple) else mode


def _mode_offset(c: np.ndarray, shape, stride):
    if not isinstance(shape, tuple):
        return c * stride
    out = 0
    for sub_shape, sub_stride in zip(shape, stride):
        n = _size(sub_shape)
        out = out + _mode_offset(c % n, sub_shape, sub_stride)
        c = c // n
    return out


def _text(t) -> str:
    return "(" + ",".join(_text(x) for x in t) + ")" if isinstance(t, tuple) else str(t)


def parse(text: str) -> CuteLayout:
    """A CuteLayout from CuTe's notation (module docstring); CuteError says what is wrong."""
    rest = text
    swizzle = bits = None
    m = _SWIZZLE.match(rest)
    if m:
        swizzle = tuple(int(x) for x in m.groups())
        if swizzle[0] < 1 or swizzle[2] < swizzle[0]:
            raise CuteError(f"Sw<{swizzle[0]},{swizzle[1]},{swizzle[2]}>: need B >= 1 and "
                            "S >= B (the source bits must not overlap the bits they change)")
        rest = rest[m.end():]
    m = _POINTER.match(rest)
    if m:
        bits = int(m.group(1))
        if bits not in (8, 16, 32, 64):
            raise CuteError(f"smem_ptr[{bits}b]: elements of 8, 16, 32 or 64 bits")
        rest = rest[m.end():]
    m = _OFFSET.match(rest)
    if m:
        rest = rest[m.end():]
    if ":" not in rest:
        raise CuteError(f"no shape:stride in {text!r}")
    shape_text, _, stride_text = rest.partition(":")
    shape, stride = _tuple(shape_text, text), _tuple(stride_text, text)
    if not isinstance(shape, tuple):
        shape, stride = (shape,), (stride,)
    if _structure(shape) != _structure(stride):
        raise CuteError(f"the shape {_text(shape)} and stride {_text(stride)} are not alike")
    if any(e < 1 for e in _leaves(shape)) or any(e < 0 for e in _leaves(stride)):
        raise CuteError(f"extents must be positive and strides non-negative in {text!r}")
    return CuteLayout(shape, stride, swizzle, bits)


def _tuple(text: str, whole: str):
    tokens = re.findall(r"\(|\)|,|_?\d+|\S", text)
    pos = 0

    def item():
        nonlocal pos
        if pos >= len(tokens):
            raise CuteError(f"{whole!r} ends early")
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            out = [item()]
            while pos < len(tokens) and tokens[pos] == ",":
                pos += 1
                out.append(item())
            if pos >= len(tokens) or tokens[pos] != ")":
                raise CuteError(f"{whole!r}: a '(' without its ')'")
            pos += 1
            return tuple(out)
        if re.fullmatch(r"_?\d+", tok):
            return int(tok.lstrip("_"))
        raise CuteError(f"{whole!r}: unexpected {tok!r}")
    value = item()
    if pos != len(tokens):
        raise CuteError(f"{whole!r}: unexpected {tokens[pos]!r}")
    return value


def _structure(t):
    return tuple(_structure(x) for x in t) if isinstance(t, tuple) else None


def _leaves(t):
    return [y for x in t for y in _leaves(x)] if isinstance(t, tuple) else [t]

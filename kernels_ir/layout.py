"""Shared-memory layouts a declaration can carry: CuTe's Swizzle<B,M,S> and the TMA modes.

A swizzled array keeps its logical shape: code indexes `tile[r, c]` as before and every layer
(interpreter, analysis, codegen) places element (r, c) at `swizzle(flat offset)`, where the
flat offset includes any padding. CuTe's Swizzle<B, M, S> XORs the B bits at M+S.. into the B
bits at M.., on element offsets. The TMA modes act on byte addresses: SWIZZLE_32B, _64B and
_128B are Swizzle<1,4,3>, <2,4,3> and <3,4,3> of bytes (16-byte chunks permuted within 32, 64
or 128 bytes), i.e. Swizzle<B, 4 - log2(element size), 3> of elements.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import KernelError, caller_loc
from .expr import Expr

# TMA mode -> B of its byte-level Swizzle<B, 4, 3>
TMA_SWIZZLES = {"SWIZZLE_32B": 1, "SWIZZLE_64B": 2, "SWIZZLE_128B": 3}


@dataclass(frozen=True)
class Swizzle:
    """CuTe's Swizzle<B, M, S> on element offsets (`tma` names the TMA mode it came from)."""

    b: int
    m: int
    s: int
    tma: str | None = field(default=None, compare=False)  # a name: the layout is (B, M, S)

    def __post_init__(self):
        for name, v in (("B", self.b), ("M", self.m), ("S", self.s)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise KernelError(f"Swizzle {name} must be a non-negative int, got {v!r}",
                                  loc=caller_loc())
        if self.b < 1 or self.s < self.b:
            # S >= B keeps the source bits out of the bits they change: the swizzle is then a
            # permutation and its own inverse (CuTe also allows negative S; the IR does not)
            raise KernelError(f"Swizzle<{self.b},{self.m},{self.s}>: need B >= 1 and S >= B",
                              loc=caller_loc())

    @property
    def label(self) -> str:
        """`Swizzle<3,2,3>`, or `SWIZZLE_128B (Swizzle<3,2,3> of f32 elements)`."""
        core = f"Swizzle<{self.b},{self.m},{self.s}>"
        return f"{self.tma} ({core} of elements)" if self.tma else core

    @property
    def period(self) -> int:
        """Elements whose order the swizzle permutes among themselves (2^(M+B))."""
        return 1 << (self.m + self.b)

    def apply(self, offsets: np.ndarray) -> np.ndarray:
        """Physical element offsets of logical ones (the inverse is the same function)."""
        mask = (1 << self.b) - 1
        return offsets ^ (((offsets >> (self.m + self.s)) & mask) << self.m)

    def expr(self, flat: Expr) -> Expr:
        """The IR expression of the physical offset of `flat`."""
        return flat ^ (((flat >> (self.m + self.s)) & ((1 << self.b) - 1)) << self.m)

    def formula(self, i: str) -> str:
        """The C of the physical offset of an index named `i`."""
        return f"{i} ^ ((({i} >> {self.m + self.s}) & {(1 << self.b) - 1}) << {self.m})"


def tma_swizzle(mode: str, element_size: int) -> tuple[Swizzle, int]:
    """A TMA mode as an element-level Swizzle, and the base alignment it needs in bytes.

    The hardware swizzles absolute shared-memory address bits; the layout is the same
    relative to the array only when the array starts on a multiple of the pattern's repeat
    (256, 512 or 1024 bytes), which is also where CUTLASS places such tiles.
    """
    b = TMA_SWIZZLES[mode]
    m = 4 - (element_size.bit_length() - 1)
    return Swizzle(b, m, 3, tma=mode), 1 << (b + 4 + 3)

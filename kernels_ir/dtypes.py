"""Scalar element types of the kernel IR and C's usual arithmetic conversions."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    """A scalar element type: its IR name, size in bytes, numpy type and C spelling."""

    name: str
    size: int
    np_type: type
    c_name: str
    is_float: bool
    signed: bool

    @property
    def bits(self) -> int:
        """Width in bits."""
        return self.size * 8

    @property
    def np(self) -> np.dtype:
        """The numpy dtype with the same representation."""
        return np.dtype(self.np_type)

    @property
    def min(self) -> int | float:
        """Smallest representable value."""
        return np.finfo(self.np_type).min if self.is_float else np.iinfo(self.np_type).min

    @property
    def max(self) -> int | float:
        """Largest representable value."""
        return np.finfo(self.np_type).max if self.is_float else np.iinfo(self.np_type).max

    def __repr__(self) -> str:
        return self.name


u8 = DType("u8", 1, np.uint8, "unsigned char", False, False)
i8 = DType("i8", 1, np.int8, "signed char", False, True)
u16 = DType("u16", 2, np.uint16, "unsigned short", False, False)
i16 = DType("i16", 2, np.int16, "short", False, True)
u32 = DType("u32", 4, np.uint32, "unsigned int", False, False)
i32 = DType("i32", 4, np.int32, "int", False, True)
u64 = DType("u64", 8, np.uint64, "unsigned long long", False, False)
f32 = DType("f32", 4, np.float32, "float", True, True)
f64 = DType("f64", 8, np.float64, "double", True, True)

ALL_DTYPES: tuple[DType, ...] = (u8, i8, u16, i16, u32, i32, u64, f32, f64)
BY_NAME: dict[str, DType] = {t.name: t for t in ALL_DTYPES}

# Elements per vector access that the IR allows; a lane never moves more than 16 bytes,
# the widest shared-memory instruction (LDS.128 / STS.128).
VECTOR_WIDTHS = (1, 2, 4)
MAX_ACCESS_BYTES = 16


def promote(a: DType, b: DType) -> DType:
    """The type C's usual arithmetic conversions give `a op b`, restricted to the IR's types."""
    if a.is_float or b.is_float:
        return f64 if f64 in (a, b) else f32
    a, b = integer_promote(a), integer_promote(b)
    if u64 in (a, b):
        return u64
    if u32 in (a, b):
        return u32
    return i32


def integer_promote(t: DType) -> DType:
    """C integer promotion: types narrower than int become int."""
    if t.is_float:
        return t
    return i32 if t.size < 4 else t

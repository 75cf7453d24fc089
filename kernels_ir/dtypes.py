"""Scalar element types of the kernel IR and C's usual arithmetic conversions."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class DType:
    """A scalar element type: its IR name, size in bytes, numpy type and C spelling."""

    name: str
    size: int
    np_type: type
    c_name: str
    is_float: bool
    signed: bool
    storage_only: bool = False   # f16, bf16: arrays hold them, registers hold their f32 value

    def __post_init__(self):
        # (the interpreter asks for it at every node it evaluates: made once)
        object.__setattr__(self, "_np",
                           np.dtype(np.float32 if self.storage_only else self.np_type))

    # a type is its name (the IR's names are unique): equality and hashing by it are what
    # the interpreter's every promotion asks, and hold across processes (a pickled type)
    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, DType) and self.name == other.name)

    def __hash__(self) -> int:
        return hash(self.name)

    @property
    def bits(self) -> int:
        """Width in bits."""
        return self.size * 8

    @property
    def np(self) -> np.dtype:
        """The numpy dtype of values (registers, expressions)."""
        return self._np

    @property
    def storage(self) -> np.dtype:
        """The numpy dtype arrays of this type are stored as (bf16: its bits, as uint16)."""
        return np.dtype(self.np_type)

    @property
    def register(self) -> "DType":
        """The type a value of this element type has once loaded (f32 for f16 and bf16)."""
        return f32 if self.storage_only else self

    @property
    def min(self) -> int | float:
        """Smallest representable value."""
        return -self.max if self.is_float else np.iinfo(self.np_type).min

    @property
    def max(self) -> int | float:
        """Largest representable value."""
        if self.name == "bf16":
            return float(np.uint32(0x7F7F0000).view(np.float32))  # 3.3895e38
        if self.storage_only:
            return float(np.finfo(self.np_type).max)  # 65504.0
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
i64 = DType("i64", 8, np.int64, "long long", False, True)
f32 = DType("f32", 4, np.float32, "float", True, True)
f64 = DType("f64", 8, np.float64, "double", True, True)
# 16-bit floats are storage types: the generated CUDA declares their arrays as bits
# (unsigned short) and converts with cvt at every load and store (no cuda_fp16.h needed)
f16 = DType("f16", 2, np.float16, "unsigned short", True, True, storage_only=True)
bf16 = DType("bf16", 2, np.uint16, "unsigned short", True, True, storage_only=True)

ALL_DTYPES: tuple[DType, ...] = (u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, f16, bf16)
BY_NAME: dict[str, DType] = {t.name: t for t in ALL_DTYPES}

# Elements per vector access that the IR allows; a lane never moves more than 16 bytes,
# the widest shared-memory instruction (LDS.128 / STS.128): 8 only for 16-bit floats.
VECTOR_WIDTHS = (1, 2, 4, 8)
MAX_ACCESS_BYTES = 16


def to_storage(values: np.ndarray, dtype: DType) -> np.ndarray:
    """f32 values as an array of `dtype` stores them: f16 and bf16 round to nearest even
    (as cvt.rn does: overflow gives infinity, NaN the canonical NaN 0x7FFF); others as is."""
    if dtype.name == "f16":
        with np.errstate(over="ignore"):
            out = values.astype(np.float16)
        nan = np.isnan(out)
        if nan.any():
            out = out.copy()
            out.view(np.uint16)[nan] = 0x7FFF
        return out
    if dtype.name == "bf16":
        bits = np.ascontiguousarray(values, np.float32).view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round half to even
        out = rounded.astype(np.uint16)
        out[np.isnan(values)] = 0x7FFF
        return out
    return values


def from_storage(stored: np.ndarray, dtype: DType) -> np.ndarray:
    """Stored elements as values: f16 and bf16 widen to f32 exactly; others as they are."""
    if dtype.name == "f16":
        return stored.astype(np.float32)
    if dtype.name == "bf16":
        return (stored.astype(np.uint32) << 16).view(np.float32)
    return stored


def promote(a: DType, b: DType) -> DType:
    """The type C's usual arithmetic conversions give `a op b`, restricted to the IR's types."""
    found = _PROMOTED.get((a, b))
    if found is None:
        found = _PROMOTED[(a, b)] = _promote(a, b)
    return found


_PROMOTED: dict = {}


def _promote(a: DType, b: DType) -> DType:
    if a.is_float or b.is_float:
        return f64 if f64 in (a, b) else f32
    a, b = integer_promote(a), integer_promote(b)
    if u64 in (a, b):
        return u64
    if i64 in (a, b):   # a long long holds every unsigned int
        return i64
    if u32 in (a, b):
        return u32
    return i32


def integer_promote(t: DType) -> DType:
    """C integer promotion: types narrower than int become int."""
    if t.is_float:
        return t
    return i32 if t.size < 4 else t

"""TMA tensor maps and where a TMA copy puts a box in shared memory (sm_90).

A tensor map (CUDA's `CUtensorMap`, made on the host by `cuTensorMapEncodeTiled`) describes a
global array as a tensor of `shape` elements (outermost dimension first, as the IR indexes)
and the `box` one copy moves. What a copy writes was measured on an H100, element by element
(../docs/hopper-rules.md section 1; docs/tma.md):

- the box is a sequence of rows of its innermost dimension; row `r`, byte `b` goes to
  `swizzle(dst + r * pitch + b)`;
- `pitch` is the row's bytes (`box[-1] * element size`) without a swizzle, and at least the
  swizzle's span (32, 64 or 128 bytes) with one: a row narrower than the span still takes a
  whole span, the rest of it left as it was;
- the swizzle is CuTe's Swizzle<B, 4, 3> (B = 1, 2, 3 for 32B, 64B, 128B) of the *absolute*
  shared-memory address: a box at 1024 + 128 gets the pattern of its address, not one
  restarted at the box;
- the destination must be 128-byte aligned (16 bytes off faults: "misaligned address");
- elements outside the tensor are filled with zeros.
1-D and 2-D maps were measured. A map of 3 to 5 dimensions (its strides, in elements, the
host's `globalStrides`) puts its box's rows in row-major order of the outer dimensions, the
2-D rule's order: checked on an H100 for fast.cu's kernel 7 (a 5-D map over a row-major
matrix whose box has one outer dimension of more than one element) and for a 3-D box of
two 16-row planes (tests/test_tma.py's GPU case).
"""
from __future__ import annotations

import math

import numpy as np

from .errors import KernelError
from .expr import Expr

# swizzle mode -> (B of the byte-level Swizzle<B, 4, 3>, span in bytes)
SWIZZLE_MODES = {None: (0, 16), "SWIZZLE_32B": (1, 32), "SWIZZLE_64B": (2, 64),
                 "SWIZZLE_128B": (3, 128)}
DESTINATION_ALIGN = 128      # bytes; measured: 16 bytes off the 128-byte grid faults
BULK_ALIGN = 16              # bytes: both ends of a 1-D bulk copy (PTX ISA)
MAX_BOX = 256                # elements per box dimension (cuTensorMapEncodeTiled)
GLOBAL_ALIGN = 16            # bytes: global address and strides
TMA_RANKS = (1, 2, 3, 4, 5)  # cuTensorMapEncodeTiled's ranks (see the module docstring)
# PTX ISA, mbarrier: arrival counts 1 .. 2^20 - 1; transaction counts within +-(2^20 - 1)
MBARRIER_MAX_COUNT = (1 << 20) - 1
MBARRIER_MAX_TX = (1 << 20) - 1


def swizzle_bytes(addresses: np.ndarray, mode: str | None) -> np.ndarray:
    """The shared byte addresses TMA uses for absolute addresses `addresses` under `mode`."""
    b, _ = SWIZZLE_MODES[mode]
    if b == 0:
        return addresses
    return addresses ^ (((addresses >> 7) & ((1 << b) - 1)) << 4)


class TensorMap:
    """A TMA tensor map over a global array: `shape` (outermost first, elements; expressions of
    the kernel's parameters), `strides` the elements between consecutive indices of each
    dimension but the innermost (outermost first; the innermost is contiguous), the `box` a
    copy moves and the swizzle mode (None, "SWIZZLE_32B", "SWIZZLE_64B" or
    "SWIZZLE_128B")."""

    def __init__(self, name: str, array, shape: tuple[Expr, ...], strides: tuple[Expr, ...],
                 box: tuple[int, ...], swizzle: str | None):
        self.name, self.array, self.shape, self.strides = name, array, shape, strides
        self.box, self.swizzle = box, swizzle

    @property
    def row_stride(self) -> Expr | None:
        """Elements between rows (the second-innermost dimension's stride): the row stride
        of the matrix a 2-D map, or a higher one laid over a matrix, reads; None for 1-D."""
        return self.strides[-1] if self.strides else None

    @property
    def dtype(self):
        """The element type (the global array's)."""
        return self.array.dtype

    @property
    def rank(self) -> int:
        """Dimensions of the tensor (1 to 5)."""
        return len(self.shape)

    @property
    def row_bytes(self) -> int:
        """Bytes of one box row (the innermost dimension)."""
        return self.box[-1] * self.dtype.size

    @property
    def rows(self) -> int:
        """Rows of a box."""
        return math.prod(self.box[:-1])

    @property
    def pitch(self) -> int:
        """Bytes between box rows in shared memory (a swizzle's span at least)."""
        _, span = SWIZZLE_MODES[self.swizzle]
        return max(self.row_bytes, span) if self.swizzle else self.row_bytes

    @property
    def box_bytes(self) -> int:
        """Bytes one copy delivers (what its mbarrier's transaction count receives)."""
        return self.rows * self.row_bytes

    @property
    def footprint(self) -> int:
        """Bytes of shared memory a copy spans from its destination (padding rows included)."""
        return self.rows * self.pitch

    def destinations(self, dst: int | np.ndarray) -> np.ndarray:
        """Absolute shared byte address of every byte of the box, in box order (row-major,
        innermost fastest), for a copy to `dst` (one address, or one per copy: then one row
        of the result per copy)."""
        dst = np.asarray(dst, np.int64)
        rel = (np.arange(self.rows, dtype=np.int64)[:, None] * self.pitch
               + np.arange(self.row_bytes, dtype=np.int64)[None, :]).ravel()
        return swizzle_bytes(dst[..., None] + rel, self.swizzle)

    def describe(self) -> str:
        """`tmA: A as [M][K] f16, box 64x64, SWIZZLE_128B`."""
        from .printer import format_expr
        strides = [format_expr(e) for e in self.strides] + [None]
        dims = "".join(f"[{format_expr(e)}" + (f":{s}" if s is not None and self.rank > 2 else "")
                       + "]" for e, s in zip(self.shape, strides))
        box = "x".join(map(str, self.box))
        return (f"{self.name}: {self.array.name} as {dims} {self.dtype}, box {box}, "
                f"{self.swizzle or 'no swizzle'}")

    def __repr__(self) -> str:
        return f"TensorMap({self.describe()})"


def tensor_strides(shape: tuple[Expr, ...], given=None) -> tuple[Expr, ...]:
    """The strides, in elements, of every dimension of a tensor but the innermost, outermost
    first: those `given` (an entry None, or no list: row-major there, the product of the
    extents inside it)."""
    given = list(given) if given is not None else [None] * (len(shape) - 1)
    out, inner = [], None
    for stride, extent in zip(reversed(given), reversed(shape[1:])):
        inner = extent if inner is None else inner * extent
        out.insert(0, inner if stride is None else stride)
    return tuple(out)


def check_box(name: str, dtype, box: tuple[int, ...], swizzle: str | None) -> str | None:
    """Why cuTensorMapEncodeTiled (or this model) refuses the box, or None."""
    if swizzle not in SWIZZLE_MODES:
        return (f"swizzle must be None, 'SWIZZLE_32B', 'SWIZZLE_64B' or 'SWIZZLE_128B', "
                f"got {swizzle!r}")
    if len(box) not in TMA_RANKS:
        return f"a {len(box)}-D box: TMA maps have 1 to 5 dimensions"
    for e in box:
        if isinstance(e, bool) or not isinstance(e, int) or not 1 <= e <= MAX_BOX:
            return f"box extents must be ints 1..{MAX_BOX}, got {box}"
    row = box[-1] * dtype.size
    if row % 16:
        return (f"the box's inner dimension is {row} bytes ({box[-1]} x {dtype}); TMA needs "
                "a multiple of 16")
    _, span = SWIZZLE_MODES[swizzle]
    if swizzle and row > span:
        return (f"{swizzle} needs the box's inner dimension within its {span}-byte span, "
                f"got {row} bytes ({box[-1]} x {dtype})")
    return None


def refuse(name: str, why: str, kernel: str | None, loc) -> KernelError:
    """The located error for a tensor map the hardware would refuse."""
    return KernelError(f"tensor map '{name}': {why}", kernel=kernel, loc=loc)

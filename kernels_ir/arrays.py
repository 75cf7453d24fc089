"""Array declarations and scalar parameters: global, shared (one buffer's views) and per-thread
local arrays. Each has identity (two arrays may share a name only by mistake, which the checks
reject); indexing one makes the element a statement reads or writes."""
from __future__ import annotations

import itertools
import math
from typing import Union

from .dtypes import DType
from .errors import KernelError
from .expr import Expr, Op, as_expr


_uids = itertools.count(1)


class ScalarParam:
    """A scalar launch parameter (an `int n` or `float alpha` in the kernel's signature)."""

    def __init__(self, name: str, dtype: DType):
        self.name, self.dtype, self.uid = name, dtype, next(_uids)
        self.expr = Expr(Op.PARAM, dtype, (), name)
        # (struct parameter, byte offset) where this is a field of a struct the kernel takes
        # by value and a frontend read its layout (`Matrix N`'s `N_width`: ("N", 0))
        self.field: tuple[str, int] | None = None

    def __repr__(self) -> str:
        return f"ScalarParam({self.name}: {self.dtype})"


class _Indexable:
    """`a[i, j]` loads (emitting a statement into the kernel being built); `a[i, j] = v` stores."""

    _builder = None  # set by the KernelBuilder that declared the array
    name: str

    def __getitem__(self, index):
        return self._require_builder().load(self, index)

    def __setitem__(self, index, value):
        self._require_builder().store(self, index, value)

    def load(self, index, width: int = 1, name: str | None = None):
        """Load `width` consecutive elements starting at `index` (a vector access if > 1)."""
        return self._require_builder().load(self, index, width=width, name=name)

    def store(self, index, value, width: int = 1) -> None:
        """Store `width` consecutive elements starting at `index`."""
        self._require_builder().store(self, index, value, width=width)

    def _require_builder(self):
        if self._builder is None or self._builder._built:
            raise KernelError(f"array '{self.name}' belongs to a kernel that is already built; "
                              "loads and stores can only be added while building")
        return self._builder


class GlobalArray(_Indexable):
    """A global-memory array parameter (a pointer), indexed flat like C: `A[row * n + col]`.
    `initial`: the values it holds unless the caller gives it (a CUDA file's initialized
    `__constant__` table), else None (seeded random inputs). `base`: for a view (the same
    bytes read as another element type, `(unsigned*)scratch` over a float array), the array
    it views; a view is no parameter of the kernel (not in Kernel.globals)."""

    INTENTS = ("in", "out", "inout")

    def __init__(self, name: str, dtype: DType, length: Expr, intent: str,
                 initial: tuple | None = None, base: "GlobalArray | None" = None):
        if intent not in self.INTENTS:
            raise KernelError(f"global array '{name}': intent must be one of {self.INTENTS}, "
                              f"got {intent!r}")
        self.name, self.dtype, self.length, self.intent = name, dtype, length, intent
        self.initial, self.base = initial, base
        # what a CUDA file read through a texture says of the reads (a note for people)
        self.texture: str | None = None
        # the element type the source declares its pointer with, where the array is its
        # bytes (a kernel read from PTX): how people read its values
        self.declared: DType | None = None
        # (struct parameter, byte offset) of a pointer field of a by-value struct (ScalarParam)
        self.field: tuple[str, int] | None = None
        self.uid = next(_uids)
        self.shape = (length,)

    @property
    def rank(self) -> int:
        """Number of index dimensions (always 1: global arrays are flat)."""
        return 1

    def __repr__(self) -> str:
        return f"GlobalArray({self.name}: {self.dtype}[{self.length!r}], {self.intent})"


class SharedBuffer:
    """A block of shared memory: static (`__shared__ T a[..]`) or the launch's dynamic one.

    A `volatile` buffer's every access stays in the generated CUDA (warp-synchronous code
    that reads what other lanes wrote needs that: the compiler would keep values in
    registers otherwise)."""

    def __init__(self, name: str, nbytes: int | None, align: int, dynamic: bool,
                 volatile: bool = False):
        self.name, self.nbytes, self.align, self.dynamic = name, nbytes, align, dynamic
        self.volatile = volatile
        self.uid = next(_uids)
        self.views: list[SharedArray] = []


class SharedArray(_Indexable):
    """A typed view of a shared buffer with a shape and optional padding of its rows.

    Element (i0, ..., ik) lives at byte `sum(i * stride) * dtype.size` from the buffer's start;
    the innermost row holds `shape[-1] + pad` elements, so `pad` shifts successive rows across
    banks. A dynamic view's leading extent may be None: it spans the launch's dynamic memory.
    A `layout` (kernels_ir.layout.Swizzle) places the element at flat offset f at
    `layout.apply(f)` instead; indices stay logical.
    """

    def __init__(self, name: str, buffer: SharedBuffer, dtype: DType,
                 shape: tuple[int | None, ...], pad: int, layout=None):
        self.name, self.buffer, self.dtype, self.shape, self.pad = name, buffer, dtype, shape, pad
        self.layout = layout
        self.uid = next(_uids)
        # the source's `__shared__` variable this view reads, where a frontend knows it (a
        # view of nvcc's build of a `.cu`: the declaration `fix` edits); None otherwise
        self.variable: str | None = None
        self.variable_at: int | None = None   # that variable's first byte in the buffer
        self.variable_bytes: int | None = None   # and its size (None: to the buffer's end)
        buffer.views.append(self)

    @property
    def rank(self) -> int:
        """Number of index dimensions."""
        return len(self.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        """Element strides of each dimension, padding included."""
        out, acc = [], 1
        for dim in reversed(range(self.rank)):
            out.append(acc)
            extent = self.shape[dim]
            if dim == self.rank - 1 and extent is not None:
                extent += self.pad
            acc *= extent if extent is not None else 1
        return tuple(reversed(out))

    def flat_index(self, index) -> Expr:
        """The element offset of `index` from the view's start (padding included): what a
        layout swizzles, and how a swizzled view is indexed in CUDA."""
        flat = None
        for i, stride in zip(index, self.strides):
            term = i if stride == 1 else i * stride
            flat = term if flat is None else flat + term
        return as_expr(flat)

    @property
    def static_bytes(self) -> int | None:
        """Bytes the view spans including padding, None for an unbounded dynamic view."""
        if any(e is None for e in self.shape):
            return None
        padded = list(self.shape)
        padded[-1] += self.pad
        return math.prod(padded) * self.dtype.size

    def __repr__(self) -> str:
        dims = "".join(f"[{'' if e is None else e}]" for e in self.shape)
        pad = f" pad {self.pad}" if self.pad else ""
        layout = f" {self.layout.label}" if self.layout else ""
        return f"SharedArray({self.name}: {self.dtype}{dims}{pad}{layout})"


class LocalArray:
    """A per-thread register array (`float acc[8][8];`), zero-initialized where declared."""

    def __init__(self, name: str, dtype: DType, shape: tuple[int, ...]):
        self.name, self.dtype, self.shape = name, dtype, shape
        self.uid = next(_uids)
        self._builder = None

    @property
    def rank(self) -> int:
        """Number of index dimensions."""
        return len(self.shape)

    def __getitem__(self, index) -> Expr:
        return self._builder.read_local(self, index)

    def __setitem__(self, index, value) -> None:
        self._builder.write_local(self, index, value)

    def __repr__(self) -> str:
        return f"LocalArray({self.name}: {self.dtype}{list(self.shape)})"


MemArray = Union[GlobalArray, SharedArray]


def source_name(array) -> str:
    """An array as the user's source names it: a view of a `__shared__` variable (a kernel
    read from PTX reads one through a view per element type, `As_u16`) by its variable."""
    return getattr(array, "variable", None) or array.name

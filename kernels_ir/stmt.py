"""Statements, array declarations and the Kernel: what a kernel is made of.

Arrays are declarations with identity (two arrays may share a name only by mistake, which the
checks reject). Statements are frozen nodes that remember the Python line that made them.
Loads and stores of shared memory are *access sites*: each has a `site` number, stable for
the kernel, that the analyses and reports use.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Iterator, Union

from .dtypes import DType
from .errors import KernelError, SourceLoc
from .expr import Expr, Op, Var

_uids = itertools.count(1)


class ScalarParam:
    """A scalar launch parameter (an `int n` or `float alpha` in the kernel's signature)."""

    def __init__(self, name: str, dtype: DType):
        self.name, self.dtype, self.uid = name, dtype, next(_uids)
        self.expr = Expr(Op.PARAM, dtype, (), name)

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
    """A global-memory array parameter (a pointer), indexed flat like C: `A[row * n + col]`."""

    INTENTS = ("in", "out", "inout")

    def __init__(self, name: str, dtype: DType, length: Expr, intent: str):
        if intent not in self.INTENTS:
            raise KernelError(f"global array '{name}': intent must be one of {self.INTENTS}, "
                              f"got {intent!r}")
        self.name, self.dtype, self.length, self.intent = name, dtype, length, intent
        self.uid = next(_uids)
        self.shape = (length,)

    @property
    def rank(self) -> int:
        """Number of index dimensions (always 1: global arrays are flat)."""
        return 1

    def __repr__(self) -> str:
        return f"GlobalArray({self.name}: {self.dtype}[{self.length!r}], {self.intent})"


class SharedBuffer:
    """A block of shared memory: static (`__shared__ T a[..]`) or the launch's dynamic one."""

    def __init__(self, name: str, nbytes: int | None, align: int, dynamic: bool):
        self.name, self.nbytes, self.align, self.dynamic = name, nbytes, align, dynamic
        self.uid = next(_uids)
        self.views: list[SharedArray] = []


class SharedArray(_Indexable):
    """A typed view of a shared buffer with a shape and optional padding of its rows.

    Element (i0, ..., ik) lives at byte `sum(i * stride) * dtype.size` from the buffer's start;
    the innermost row holds `shape[-1] + pad` elements, so `pad` shifts successive rows across
    banks. A dynamic view's leading extent may be None: it spans the launch's dynamic memory.
    """

    def __init__(self, name: str, buffer: SharedBuffer, dtype: DType,
                 shape: tuple[int | None, ...], pad: int):
        self.name, self.buffer, self.dtype, self.shape, self.pad = name, buffer, dtype, shape, pad
        self.uid = next(_uids)
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
        return f"SharedArray({self.name}: {self.dtype}{dims}{pad})"


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


# ------------------------------------------------------------------ statements

@dataclass(frozen=True, eq=False)
class Let:
    """Declare a local variable with its initial value (`int x = value;`)."""
    var: Var
    value: Expr
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class Assign:
    """Assign to a local variable; the value converts to the variable's type as in C."""
    var: Var
    value: Expr
    loc: SourceLoc


class _Access:
    """What loads and stores share: their array, width and site."""

    array: MemArray
    width: int

    @property
    def is_shared(self) -> bool:
        """Whether this is a shared-memory access site."""
        return isinstance(self.array, SharedArray)

    @property
    def access_bytes(self) -> int:
        """Bytes one lane moves."""
        return self.width * self.array.dtype.size


@dataclass(frozen=True, eq=False)
class Load(_Access):
    """`dst = array[index]` reading `width` consecutive elements (a vector if width > 1)."""
    dst: Var
    array: MemArray
    index: tuple[Expr, ...]
    width: int
    loc: SourceLoc
    site: int


@dataclass(frozen=True, eq=False)
class Store(_Access):
    """`array[index] = values` writing `width` consecutive elements."""
    array: MemArray
    index: tuple[Expr, ...]
    values: tuple[Expr, ...]
    width: int
    loc: SourceLoc
    site: int


@dataclass(frozen=True, eq=False)
class DeclareLocal:
    """Declare a zero-initialized register array."""
    array: LocalArray
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class LocalStore:
    """`array[index] = value` on a register array."""
    array: LocalArray
    index: tuple[Expr, ...]
    value: Expr
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class Loop:
    """A loop over `var`: `for (var = start; cond; var += step)`, or a do-while if `do_while`.

    `cond` is an expression of `var` (and anything else in scope); `step` is evaluated at the
    end of each iteration. `unroll` asks the code generator for `#pragma unroll`.
    """
    var: Var
    start: Expr
    step: Expr
    cond: Expr
    do_while: bool
    unroll: bool
    body: tuple
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class If:
    """`if (cond) { then } else { orelse }`."""
    cond: Expr
    then: tuple
    orelse: tuple
    loc: SourceLoc


@dataclass(frozen=True, eq=False)
class Sync:
    """`__syncthreads()`: a barrier for all threads of the block."""
    loc: SourceLoc


Stmt = Union[Let, Assign, Load, Store, DeclareLocal, LocalStore, Loop, If, Sync]


def walk(stmts) -> Iterator:
    """Every statement in program order, descending into loops and ifs."""
    for s in stmts:
        yield s
        if isinstance(s, Loop):
            yield from walk(s.body)
        elif isinstance(s, If):
            yield from walk(s.then)
            yield from walk(s.orelse)


def stmt_exprs(s) -> tuple[Expr, ...]:
    """The expressions a statement evaluates (not those of nested statements)."""
    if isinstance(s, (Let, Assign)):
        return (s.value,)
    if isinstance(s, Load):
        return s.index
    if isinstance(s, Store):
        return s.index + s.values
    if isinstance(s, LocalStore):
        return s.index + (s.value,)
    if isinstance(s, Loop):
        return (s.start, s.step, s.cond)
    if isinstance(s, If):
        return (s.cond,)
    return ()


# ------------------------------------------------------------------ the kernel

DYNAMIC_ALIGN = 16  # the dynamic region starts 16-byte aligned after the static arrays


@dataclass(frozen=True, eq=False)
class Kernel:
    """A complete kernel: signature, shared declarations, launch configuration and body."""

    name: str
    params: tuple[ScalarParam, ...]
    globals: tuple[GlobalArray, ...]
    buffers: tuple[SharedBuffer, ...]
    shared: tuple[SharedArray, ...]
    locals: tuple[LocalArray, ...]
    grid: tuple[Expr, Expr, Expr]
    block: tuple[Expr, Expr, Expr]
    dynamic_smem: Expr
    body: tuple
    loc: SourceLoc
    defaults: dict = field(default_factory=dict)

    def statements(self) -> Iterator:
        """Every statement in program order."""
        return walk(self.body)

    def sites(self) -> list:
        """The shared-memory access sites (Load and Store statements), in program order."""
        return [s for s in self.statements() if isinstance(s, (Load, Store)) and s.is_shared]

    def site(self, number: int):
        """The shared access site with this number."""
        for s in self.sites():
            if s.site == number:
                return s
        raise KernelError(f"kernel '{self.name}' has no shared access site {number}; sites are "
                          f"{[s.site for s in self.sites()]}")

    def static_layout(self) -> tuple[dict[int, int], int]:
        """Byte offset of each static buffer (by uid) in the block's window, and their total.

        Static buffers are laid out in declaration order, each at its alignment; the
        generated CUDA declares them with the same alignment, so every offset agrees with
        the compiled kernel modulo the alignment, which is all bank mapping depends on.
        """
        offsets, end = {}, 0
        for buf in self.buffers:
            if buf.dynamic:
                continue
            end = -(-end // buf.align) * buf.align
            offsets[buf.uid] = end
            end += buf.nbytes
        return offsets, end

    @property
    def static_smem(self) -> int:
        """Bytes of static shared memory the declarations need."""
        return self.static_layout()[1]

    def dynamic_base(self) -> int:
        """Window offset where the dynamic shared memory begins."""
        end = self.static_smem
        return -(-end // DYNAMIC_ALIGN) * DYNAMIC_ALIGN

    def buffer_base(self, buf: SharedBuffer) -> int:
        """Window offset of a buffer."""
        if buf.dynamic:
            return self.dynamic_base()
        return self.static_layout()[0][buf.uid]

    def param(self, name: str) -> ScalarParam:
        """The scalar parameter with this name."""
        for p in self.params:
            if p.name == name:
                return p
        raise KernelError(f"kernel '{self.name}' has no parameter '{name}'")

    def array(self, name: str) -> MemArray:
        """The global or shared array with this name."""
        for a in (*self.globals, *self.shared):
            if a.name == name:
                return a
        raise KernelError(f"kernel '{self.name}' has no array '{name}'")

    def __str__(self) -> str:
        from .printer import format_kernel
        return format_kernel(self)




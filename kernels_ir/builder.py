"""The builder users write kernels with; it reads like the CUDA it describes.

    k = KernelBuilder("transpose")
    n = k.param("n")
    src = k.global_array("src", f32, n * n)
    tile = k.shared("tile", f32, (32, 32), pad=1)
    tile[threadIdx.y, threadIdx.x] = src[...]      # a store statement
    k.syncthreads()
    acc = k.let("acc", 0.0)                          # float acc = 0.0f;
    with k.range("i", 0, 32) as i:                   # for (int i = 0; i < 32; i += 1)
        acc += tile[i, threadIdx.x]                  # a load, then an assignment

Every call records the Python line it came from, so checks and runtime faults point at the
user's source. Loops and guards stay loops and guards in the IR.
"""
from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Callable, Iterator, Sequence

import numpy as np

from . import builder_async, builder_shared, builder_warps, checks
from .builder_shared import _dtype
from .dtypes import MAX_ACCESS_BYTES, VECTOR_WIDTHS, DType, f32, i32
from .errors import KernelError, SourceLoc, caller_loc
from .expr import MATH, Expr, ExprLike, Op, Var, as_expr, cast, const
from .printer import format_expr
from .arrays import GlobalArray, LocalArray, ScalarParam, SharedArray, SharedBuffer
from .kernel import Kernel
from .stmt import (Assert, ATOMIC_OPS, Assign, Atomic, DeclareLocal, If, Let, Load, LoadMatrix,
                   LocalStore, Loop, map_statements, Return, Store, StoreMatrix, Sync, walk,
                   SyncReduce, SYNC_REDUCTIONS)


class LocalRef(Expr):
    """A local variable in expressions; `x += e` and `x.set(e)` emit assignments."""

    def set(self, value: ExprLike) -> None:
        """Assign a new value (`x = value;`)."""
        self.arg._builder.assign(self, value, loc=caller_loc())

    def _augmented(self, op: Callable[[Expr, ExprLike], Expr], other: ExprLike) -> "LocalRef":
        self.arg._builder.assign(self, op(self, other), loc=caller_loc())
        return self

    def __iadd__(self, o): return self._augmented(Expr.__add__, o)
    def __isub__(self, o): return self._augmented(Expr.__sub__, o)
    def __imul__(self, o): return self._augmented(Expr.__mul__, o)
    def __ifloordiv__(self, o): return self._augmented(Expr.__floordiv__, o)
    def __itruediv__(self, o): return self._augmented(Expr.__truediv__, o)
    def __imod__(self, o): return self._augmented(Expr.__mod__, o)
    def __ilshift__(self, o): return self._augmented(Expr.__lshift__, o)
    def __irshift__(self, o): return self._augmented(Expr.__rshift__, o)
    def __iand__(self, o): return self._augmented(Expr.__and__, o)
    def __ior__(self, o): return self._augmented(Expr.__or__, o)
    def __ixor__(self, o): return self._augmented(Expr.__xor__, o)

    __hash__ = Expr.__hash__


class ReadOnlyRef(Expr):
    """A loop variable or a loaded value: readable, never assigned."""

    def _readonly(self, *_):
        raise KernelError(f"'{self.arg.name}' is a {self.arg.kind} variable and cannot be "
                          "assigned; copy it into a local with k.let()", loc=caller_loc())

    __iadd__ = __isub__ = __imul__ = __ifloordiv__ = __itruediv__ = __imod__ = _readonly
    __ilshift__ = __irshift__ = __iand__ = __ior__ = __ixor__ = _readonly
    set = _readonly
    __hash__ = Expr.__hash__


class VectorRef(ReadOnlyRef):
    """The result of a vector load: `v[0]` ... `v[width-1]` are its elements."""

    def __getitem__(self, i: int) -> Expr:
        var = self.arg
        if not isinstance(i, int) or not 0 <= i < var.lanes:
            raise KernelError(f"vector '{var.name}' has elements 0..{var.lanes - 1}, "
                              f"got index {i!r}", loc=caller_loc())
        return Expr(Op.COMPONENT, var.dtype, (self,), i)

    def elements(self) -> tuple[Expr, ...]:
        """All elements, in order."""
        return tuple(self[i] for i in range(self.arg.lanes))

    __hash__ = Expr.__hash__


def value_list(value) -> tuple:
    """The elements a store writes: a vector's, a sequence's, or the one value."""
    if isinstance(value, VectorRef):
        return value.elements()
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def _dim3(value, what: str) -> tuple[Expr, Expr, Expr]:
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(items) <= 3:
        raise KernelError(f"{what} takes 1 to 3 extents, got {len(items)}", loc=caller_loc())
    items += [1] * (3 - len(items))
    return tuple(as_expr(v) for v in items)  # type: ignore[return-value]



# Names the generated CUDA cannot declare: C++ keywords, CUDA's built-in variables and the
# functions generated code calls (a local named `max` would hide max() in its scope).
_CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue
co_await co_return co_yield decltype default delete do double dynamic_cast else enum
explicit export extern false float for friend goto if inline int long mutable namespace new
noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast
struct switch template this thread_local throw true try typedef typeid typename union
unsigned using virtual void volatile wchar_t while xor xor_eq
""".split())
RESERVED_NAMES = _CPP_KEYWORDS | {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
                                  "min", "max"} | set(MATH) | {f"{m}f" for m in MATH}


def _register_type(dtype: DType, what: str, kernel: str) -> DType:
    """A type a register may have: f16 and bf16 are storage types only."""
    if dtype.storage_only:
        raise KernelError(f"{what} cannot be {dtype}: {dtype} is a storage type (arrays hold "
                          f"it; a load gives its f32 value, a store rounds to it): use f32",
                          kernel=kernel, loc=caller_loc())
    return dtype


def _check_c_name(name, what: str, kernel: str | None) -> None:
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise KernelError(f"{what} {name!r} is not a C identifier", kernel=kernel,
                          loc=caller_loc())
    if name in RESERVED_NAMES or name.startswith("__"):
        raise KernelError(f"{what} {name!r} is reserved in the generated CUDA (a C++ "
                          "keyword, a CUDA built-in, or a function it calls): rename it",
                          kernel=kernel, loc=caller_loc())


class KernelBuilder:
    """Builds a Kernel statement by statement."""

    def __init__(self, name: str):
        _check_c_name(name, "kernel name", None)
        self.name = name
        self.loc = caller_loc()
        self._params: list[ScalarParam] = []
        self._globals: list[GlobalArray] = []
        self._buffers: list[SharedBuffer] = []
        self._shared: list[SharedArray] = []
        self._blocks: list[list] = [[]]
        self._names: dict[str, int] = {}
        self._site = 0
        self._grid: tuple | None = None
        self._block: tuple | None = None
        self._dynamic_smem: Expr = const(0)
        self._defaults: dict = {}
        self._notes: list[str] = []
        self._in_condition = False
        self._built = False
        self.rename_reserved = False

    # ------------------------------------------------------------ names and emission
    def _fresh(self, name: str) -> str:
        """A unique C name: helpers that declare the same local twice get `_2`, `_3`, ...;
        where `rename_reserved` is set (the CUDA importer), a local named as the generated
        CUDA reserves (`max`, a macro's `__temp_x__`) is renamed (`max_`, `temp_x__`)."""
        if self.rename_reserved and isinstance(name, str) and (
                name in RESERVED_NAMES or name.startswith("__")):
            name = name.lstrip("_") or "v"
            name = f"{name}_" if name in RESERVED_NAMES else name
        _check_c_name(name, "the name", self.name)
        count = self._names.get(name, 0)
        self._names[name] = count + 1
        if count == 0:
            return name
        # `x_2`; after a trailing underscore no second one (`_` gives `_2`, not the
        # reserved `__2`)
        sep = "" if name.endswith("_") else "_"
        candidate = f"{name}{sep}{count + 1}"
        while candidate in self._names:
            count += 1
            candidate = f"{name}{sep}{count + 1}"
        self._names[candidate] = 1
        return candidate

    def _unique_decl(self, name: str) -> str:
        """Parameters and arrays are part of the signature: their names must be unique (and
        are never renamed: options and defaults name them)."""
        _check_c_name(name, "the name", self.name)
        if name in self._names:
            raise KernelError(f"the name '{name}' is already used in this kernel",
                              kernel=self.name, loc=caller_loc())
        return self._fresh(name)

    def _emit(self, stmt) -> None:
        if self._built:
            raise KernelError("the kernel is already built", kernel=self.name, loc=stmt.loc)
        self._blocks[-1].append(stmt)

    def _guard_condition(self, what: str) -> None:
        if self._in_condition:
            raise KernelError(f"{what} inside a loop condition: a condition must be a pure "
                              "expression; load the value into a local before the loop",
                              kernel=self.name, loc=caller_loc())

    # ------------------------------------------------------------ declarations
    def param(self, name: str, dtype: DType | str = i32) -> Expr:
        """A scalar parameter of the kernel's signature; returns it as an expression."""
        p = ScalarParam(self._unique_decl(name),
                        _register_type(_dtype(dtype), f"parameter '{name}'", self.name))
        self._params.append(p)
        return p.expr

    def global_array(self, name: str, dtype: DType | str, length: ExprLike,
                     intent: str = "in", initial: Sequence | None = None) -> GlobalArray:
        """A global-memory array parameter of `length` elements (an expression of parameters).

        `intent` is "in", "out" or "inout": inputs get seeded random data, outputs a poison
        pattern, when the caller supplies no array. `initial`: its values instead (as many
        as `length`, a constant; an initialized `__constant__` table of a CUDA file).
        """
        dtype = _dtype(dtype)
        if initial is not None:
            initial = tuple(initial)
            n = as_expr(length)
            if intent == "out" or n.op is not Op.CONST or n.arg != len(initial):
                raise KernelError(f"global array '{name}': {len(initial)} initial values for "
                                  f"a length of {length!r} ({intent}): an input of as many "
                                  "elements as values", kernel=self.name, loc=caller_loc())
            try:
                with np.errstate(all="raise"):
                    np.asarray(initial, dtype.np)   # each value fits the type
            except (OverflowError, FloatingPointError, ValueError, TypeError) as err:
                raise KernelError(f"global array '{name}': initial values that {dtype} cannot "
                                  f"hold ({err})", kernel=self.name, loc=caller_loc()) from None
        arr = GlobalArray(self._unique_decl(name), dtype, as_expr(length), intent, initial)
        arr._builder = self
        self._globals.append(arr)
        return arr

    def global_view(self, base: GlobalArray, name: str, dtype: DType | str) -> GlobalArray:
        """The bytes of global array `base` read as elements of `dtype` (`(unsigned int*)
        scratch` over a float array: llm.c's layernorm_backward counts blocks with an
        atomic on it). Its length is base's bytes over the new size, which must divide them;
        it writes what `base` holds (an input's view is read-only)."""
        loc = caller_loc()
        dtype = _dtype(dtype)
        if not isinstance(base, GlobalArray) or base.base is not None:
            raise KernelError(f"global view '{name}': a view of a global array parameter, got "
                              f"{base!r}", kernel=self.name, loc=loc)
        length = base.length * base.dtype.size // dtype.size \
            if dtype.size != base.dtype.size else base.length
        if base.length.op is Op.CONST and base.length.arg * base.dtype.size % dtype.size:
            raise KernelError(f"global view '{name}': {base.length.arg * base.dtype.size} bytes "
                              f"of '{base.name}' are not a whole number of {dtype} elements",
                              kernel=self.name, loc=loc)
        view = GlobalArray(self._unique_decl(name), dtype, length, base.intent, base=base)
        view._builder = self
        return view

    # (shared memory's declarations: builder_shared)
    shared = builder_shared.shared
    dynamic_shared = builder_shared.dynamic_shared
    view = builder_shared.view
    _layout = builder_shared.layout
    _cute_layout = builder_shared.cute_layout
    _check_layout_span = builder_shared.check_layout_span
    _check_static_total = builder_shared.check_static_total
    place_last = builder_shared.place_last
    _add_view = builder_shared.add_view
    _check_align = builder_shared.check_align
    _check_pad = builder_shared.check_pad

    def local_array(self, name: str, dtype: DType | str, shape: int | Sequence[int]) -> LocalArray:
        """A zero-initialized per-thread register array (`float acc[8][8] = {};`)."""
        loc = caller_loc()
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if not shape or any(not isinstance(e, int) or e <= 0 for e in shape):
            raise KernelError(f"local array '{name}': extents must be positive ints, got "
                              f"{shape}", kernel=self.name, loc=loc)
        arr = LocalArray(self._fresh(name),
                         _register_type(_dtype(dtype), f"local array '{name}'", self.name), shape)
        arr._builder = self
        self._emit(DeclareLocal(arr, loc))
        return arr

    # ------------------------------------------------------------ statements
    def let(self, name: str, value: ExprLike, dtype: DType | str | None = None) -> LocalRef:
        """Declare a local with an initial value: `T name = value;` (T from value if omitted)."""
        loc = caller_loc()
        self._guard_condition("a local declaration")
        if dtype is not None:
            _register_type(_dtype(dtype), f"local '{name}'", self.name)
        if dtype is not None and not isinstance(value, Expr):
            value = const(value, _dtype(dtype))  # a Python number takes the declared type
        value = as_expr(value)
        dtype = value.dtype if dtype is None else _dtype(dtype)
        var = Var(self._fresh(name), dtype, "local")
        var._builder = self
        self._emit(Let(var, cast(value, dtype), loc))
        return LocalRef(Op.VAR, dtype, (), var)

    def assign(self, target: Expr, value: ExprLike, loc: SourceLoc | None = None) -> None:
        """`target = value;` for a local declared with let()."""
        loc = loc or caller_loc()
        if not isinstance(target, Expr) or target.op is not Op.VAR:
            raise KernelError(f"can only assign to a local variable, not {target!r}",
                              kernel=self.name, loc=loc)
        var = target.arg
        if var.kind != "local":
            raise KernelError(f"'{var.name}' is a {var.kind} variable and cannot be assigned",
                              kernel=self.name, loc=loc)
        self._emit(Assign(var, cast(as_expr(value, target), var.dtype), loc))

    def _index(self, array, index, loc: SourceLoc) -> tuple[Expr, ...]:
        index = index if isinstance(index, tuple) else (index,)
        if len(index) != array.rank:
            raise KernelError(f"'{array.name}' has {array.rank} dimension(s) but the access "
                              f"gives {len(index)} index(es)", kernel=self.name, loc=loc)
        out = []
        for i in index:
            e = as_expr(i)
            if e.dtype.is_float:
                raise KernelError(f"index of '{array.name}' is {e.dtype}; indices must be "
                                  "integers", kernel=self.name, loc=loc)
            out.append(e)
        return tuple(out)

    def _width(self, array, width: int, loc: SourceLoc) -> int:
        if width > 1 and getattr(array, "buffer", None) is not None and array.buffer.volatile:
            raise KernelError(f"'{array.name}' is volatile: CUDA's vector types cannot be read "
                              "or written through a volatile pointer; use width 1",
                              kernel=self.name, loc=loc)
        if width not in VECTOR_WIDTHS or (width == 8 and array.dtype.size != 2):
            raise KernelError(f"access width must be 1, 2 or 4 elements (8 for 16-bit ones: "
                              f"f16, bf16, u16, i16), got {width!r}", kernel=self.name,
                              loc=loc)
        if width * array.dtype.size > MAX_ACCESS_BYTES:
            raise KernelError(f"{width} x {array.dtype} is {width * array.dtype.size} bytes per "
                              f"lane; the widest access is {MAX_ACCESS_BYTES} bytes",
                              kernel=self.name, loc=loc)
        self._check_layout_span(array, width * array.dtype.size, loc)
        if width > 1 and array.rank > 1 and array.shape[-1] is not None \
                and (array.shape[-1] + array.pad) % width:
            raise KernelError(f"a {width}-wide access into '{array.name}' whose padded rows "
                              f"hold {array.shape[-1] + array.pad} elements cannot stay aligned "
                              "in every row", kernel=self.name, loc=loc)
        return width

    def load(self, array, index, width: int = 1, name: str | None = None) -> Expr:
        """Emit `name = array[index]` (width consecutive elements); returns the loaded value."""
        loc = caller_loc()
        self._guard_condition(f"a load of '{array.name}'")
        index = self._index(array, index, loc)
        width = self._width(array, width, loc)
        # f16 / bf16 load as their f32 value (a vector of them prints as a float array)
        dtype = array.dtype.register
        var = Var(self._fresh(name or f"{array.name}_v"), dtype, "load", lanes=width,
                  indexed=array.dtype.storage_only and width > 1)
        site = self._next_site(array)
        self._emit(Load(var, array, index, width, loc, site))
        ref_type = VectorRef if width > 1 else ReadOnlyRef
        return ref_type(Op.VAR, dtype, (), var)

    def store(self, array, index, value, width: int = 1) -> None:
        """Emit `array[index] = value` (width consecutive elements from a vector or sequence)."""
        loc = caller_loc()
        index = self._index(array, index, loc)
        width = self._width(array, width, loc)
        values = value_list(value)
        if len(values) != width:
            raise KernelError(f"a store of width {width} into '{array.name}' needs {width} "
                              f"value(s), got {len(values)}", kernel=self.name, loc=loc)
        if isinstance(array, GlobalArray) and array.intent == "in":
            raise KernelError(f"'{array.name}' is an input (intent='in', a const pointer in "
                              "CUDA): declare it intent='out' or 'inout' to store into it",
                              kernel=self.name, loc=loc)
        conv = tuple(self._element(array, v, loc) for v in values)
        self._emit(Store(array, index, conv, width, loc, self._next_site(array)))

    def _element(self, array, value, loc: SourceLoc) -> Expr:
        """A value converted to an array's element type, as C's assignment does; a Python
        number must fit the type (300 into u8 is an error, not 44)."""
        if array.dtype.storage_only:
            # the store rounds an f32 value to f16 / bf16; a constant must not overflow
            if isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and abs(value) > array.dtype.max:
                raise KernelError(f"storing into '{array.name}': constant {value} does not "
                                  f"fit {array.dtype} (largest {array.dtype.max:g})",
                                  kernel=self.name, loc=loc)
            return cast(as_expr(value, const(0.0)), f32)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                return const(value, array.dtype)
            except KernelError as err:
                raise KernelError(f"storing into '{array.name}': {err.message}",
                                  kernel=self.name, loc=loc) from None
        like = const(0.0, array.dtype) if array.dtype.is_float else None
        return cast(as_expr(value, like), array.dtype)

    def atomic(self, array, index, kind: str, value: ExprLike, compare: ExprLike | None = None,
               name: str | None = None) -> Expr:
        """`old = atomicKind(&array[index], value)` (CAS: `atomicCAS(&a[i], compare, value)`).

        `kind` is one of add, sub, min, max, and, or, xor, inc, dec, exch, cas (stmt.ATOMIC_OPS
        lists the element types CUDA has each for). Returns the old value; if nothing reads
        it, the kernel discards it (as CUDA code that ignores atomicAdd's result does).
        """
        loc = caller_loc()
        self._guard_condition(f"an atomic on '{array.name}'")
        if kind not in ATOMIC_OPS:
            raise KernelError(f"atomic kind must be one of {', '.join(ATOMIC_OPS)}, got "
                              f"{kind!r}", kernel=self.name, loc=loc)
        fn, types = ATOMIC_OPS[kind]
        if array.dtype.storage_only:
            raise KernelError(f"{fn} on '{array.name}' ({array.dtype}): the IR has no atomics "
                              "on 16-bit floats", kernel=self.name, loc=loc)
        if array.dtype.name not in types:
            raise KernelError(f"{fn} on '{array.name}' ({array.dtype}): CUDA has it for "
                              f"{', '.join(types)} only", kernel=self.name, loc=loc)
        if (compare is None) != (kind != "cas"):
            raise KernelError("atomic 'cas' takes compare=..., the other kinds do not",
                              kernel=self.name, loc=loc)
        if isinstance(array, GlobalArray) and array.intent == "in":
            raise KernelError(f"{fn} on '{array.name}', an input (intent='in', a const pointer "
                              "in CUDA): declare it intent='out' or 'inout'",
                              kernel=self.name, loc=loc)
        index = self._index(array, index, loc)
        value_e = self._element(array, value, loc)
        compare_e = None if compare is None else self._element(array, compare, loc)
        var = Var(self._fresh(name or f"{array.name}_old"), array.dtype, "load")
        self._emit(Atomic(var, array, index, kind, value_e, compare_e, loc,
                          self._next_site(array)))
        return ReadOnlyRef(Op.VAR, array.dtype, (), var)

    def ldmatrix(self, array, index, matrices: int = 4, trans: bool = False,
                 name: str | None = None) -> "VectorRef":
        """`ldmatrix.sync.aligned.m8n8.x{matrices}[.trans].shared.b16`: each lane gives the
        address (`index`) of one 16-byte row (lane 8j+i: row i of matrix j) and gets
        2 x matrices elements; element 2j+k of lane 4r+c is element 2c+k of row r of matrix
        j (with `trans`, element r of row 2c+k). All 32 lanes of the warp must execute it."""
        loc = caller_loc()
        index = self._matrix_operands(array, index, matrices, loc)
        var = Var(self._fresh(name or f"{array.name}_frag"), array.dtype, "load",
                  lanes=2 * matrices, indexed=True)
        self._emit(LoadMatrix(var, array, index, matrices, bool(trans), loc,
                              self._next_site(array)))
        return VectorRef(Op.VAR, array.dtype, (), var)

    def stmatrix(self, array, index, values, matrices: int = 4, trans: bool = False) -> None:
        """`stmatrix.sync.aligned.m8n8.x{matrices}[.trans].shared.b16` (sm_90+): the inverse
        of ldmatrix; `values` are each lane's 2 x matrices elements."""
        loc = caller_loc()
        index = self._matrix_operands(array, index, matrices, loc)
        values = value_list(values)
        if len(values) != 2 * matrices:
            raise KernelError(f"stmatrix.x{matrices} stores {2 * matrices} elements per lane, "
                              f"got {len(values)}", kernel=self.name, loc=loc)
        conv = tuple(cast(as_expr(v), array.dtype) for v in values)
        self._emit(StoreMatrix(array, index, conv, matrices, bool(trans), loc,
                               self._next_site(array)))

    def _matrix_operands(self, array, index, matrices, loc: SourceLoc) -> tuple[Expr, ...]:
        self._guard_condition("ldmatrix/stmatrix")
        if not isinstance(array, SharedArray) or array.dtype.size != 2 \
                or array.dtype.storage_only:
            what = array.dtype if isinstance(array, SharedArray) else "a global"
            hint = f" (ldmatrix a u16 view of it: k.view({array.name}, 'bits', u16))" \
                if getattr(array.dtype, "storage_only", False) else ""
            raise KernelError(f"ldmatrix/stmatrix move 16-bit integer elements of shared "
                              f"memory; '{array.name}' is {what} array{hint}",
                              kernel=self.name, loc=loc)
        if matrices not in (1, 2, 4):
            raise KernelError(f"matrices must be 1, 2 or 4 (.x1/.x2/.x4), got {matrices!r}",
                              kernel=self.name, loc=loc)
        self._check_layout_span(array, 16, loc)
        if array.rank > 1 and (array.shape[-1] + array.pad) % 8:
            raise KernelError(f"a 16-byte matrix row of '{array.name}' cannot stay aligned in "
                              f"rows of {array.shape[-1] + array.pad} elements",
                              kernel=self.name, loc=loc)
        return self._index(array, index, loc)

    # asynchronous copies, TMA, bulk copies, mbarriers and wgmma: kernels_ir.builder_async
    # (functions of the builder, bound here as its methods)
    cp_async = builder_async.cp_async
    cp_async_commit = builder_async.cp_async_commit
    cp_async_wait = builder_async.cp_async_wait
    tensor_map = builder_async.tensor_map
    tma_load = builder_async.tma_load
    tma_store = builder_async.tma_store
    bulk_load = builder_async.bulk_load
    bulk_store = builder_async.bulk_store
    bulk_commit = builder_async.bulk_commit
    bulk_wait = builder_async.bulk_wait
    fence_proxy_async = builder_async.fence_proxy_async
    wgmma = builder_async.wgmma
    wgmma_fence = builder_async.wgmma_fence
    wgmma_commit = builder_async.wgmma_commit
    wgmma_wait = builder_async.wgmma_wait
    mbarrier_init = builder_async.mbarrier_init
    mbarrier_arrive = builder_async.mbarrier_arrive
    mbarrier_expect_tx = builder_async.mbarrier_expect_tx
    cp_async_arrive = builder_async.cp_async_arrive
    mbarrier_wait = builder_async.mbarrier_wait

    def _next_site(self, array) -> int | None:
        if not isinstance(array, SharedArray):
            return None
        self._site += 1
        return self._site - 1

    def read_local(self, array: LocalArray, index) -> Expr:
        """`array[index]` on a register array."""
        index = self._index(array, index, caller_loc())
        return Expr(Op.LOCAL_READ, array.dtype, index, array)

    def write_local(self, array: LocalArray, index, value: ExprLike) -> None:
        """`array[index] = value;` on a register array."""
        loc = caller_loc()
        index = self._index(array, index, loc)
        self._emit(LocalStore(array, index, self._element(array, value, loc), loc))

    def syncthreads(self) -> None:
        """`__syncthreads();`"""
        self._emit(Sync(caller_loc()))

    def syncthreads_reduce(self, pred: ExprLike, op: str = "or",
                           name: str | None = None) -> Expr:
        """`__syncthreads_or(pred)` (`op` "and", "count": `__syncthreads_and`,
        `__syncthreads_count`): the barrier, and an i32 every thread of the block receives:
        whether any (all) of the block's threads had a nonzero `pred`, or how many."""
        loc = caller_loc()
        self._guard_condition("a reducing barrier")
        if op not in SYNC_REDUCTIONS:
            raise KernelError(f"a reducing barrier's op must be one of "
                              f"{', '.join(SYNC_REDUCTIONS)}, got {op!r}", kernel=self.name,
                              loc=loc)
        var = Var(self._fresh(name or f"sync_{op}"), i32, "load")
        self._emit(SyncReduce(loc, False, var, op,
                              cast(self._integer(as_expr(pred), "a predicate", loc), i32)))
        return ReadOnlyRef(Op.VAR, i32, (), var)

    def grid_sync(self) -> None:
        """`cooperative_groups::this_grid().sync();`: a barrier for every thread of the
        launch. The kernel then needs a cooperative launch (all blocks resident at once)."""
        self._emit(Sync(caller_loc(), grid=True))

    def return_(self) -> None:
        """`return;` for the threads that reach it (put it under `with k.if_(...)`)."""
        self._emit(Return(caller_loc()))

    def assert_(self, cond: ExprLike, text: str | None = None) -> None:
        """`assert(cond);`: a thread whose `cond` is 0 stops the kernel, as CUDA's device
        assert does (the launch fails). `text` names the condition in messages (default: the
        expression as the printer writes it)."""
        cond = as_expr(cond)
        self._emit(Assert(cond, text if text is not None else format_expr(cond), caller_loc()))

    # (warp collectives and tensor cores: builder_warps)
    syncwarp = builder_warps.syncwarp
    shfl = builder_warps.shfl
    vote = builder_warps.vote
    _vote = builder_warps._vote
    mma_sync = builder_warps.mma_sync
    _integer = builder_warps._integer
    _lane_mask = builder_warps._lane_mask

    # ------------------------------------------------------------ control flow
    @contextlib.contextmanager
    def loop(self, name: str, start: ExprLike, cond: Callable[[Expr], ExprLike],
             step: ExprLike = 1, *, do_while: bool = False, unroll: bool | str | int = False,
             dtype: DType | str = i32,
             update: Callable[[Expr], ExprLike] | None = None) -> Iterator[Expr]:
        """A general loop: `for (T v = start; cond(v); v += step)`, or a do-while.

        With `do_while=True` the body runs once before `cond` is first tested, as in seed
        000's grid-stride `do { ... bx += gridDim.x; } while (col < B_width);`. With
        `update`, the variable's next value is `update(v)` instead of `v + step`:
        `k.loop("s", 16, lambda s: s > 0, update=lambda s: s >> 1)`.
        `unroll`: False (`#pragma unroll 1`: the loop runs as written), True (`#pragma
        unroll`), "auto" (no pragma: nvcc decides, as for a CUDA loop without one) or a count
        N >= 2 (`#pragma unroll N`).
        """
        loc = caller_loc()
        if not (unroll in (True, False, "auto") or isinstance(unroll, int) and unroll >= 2):
            raise KernelError(f"loop '{name}': unroll is True, False, 'auto' or a count >= 2, "
                              f"not {unroll!r}", kernel=self.name, loc=loc)
        dtype = _dtype(dtype)
        var = Var(self._fresh(name), dtype, "loop")
        ref = ReadOnlyRef(Op.VAR, dtype, (), var)
        self._in_condition = True
        try:
            cond_expr = as_expr(cond(ref))
            update_e = None if update is None else cast(as_expr(update(ref)), dtype)
        finally:
            self._in_condition = False
        start_e = cast(as_expr(start), dtype)
        step_e = None if update is not None else cast(as_expr(step), dtype)
        if step_e is not None and step_e.op is Op.CONST and step_e.arg == 0:
            raise KernelError(f"loop '{var.name}' has step 0", kernel=self.name, loc=loc)
        self._blocks.append([])
        try:
            yield ref
        finally:
            body = tuple(self._blocks.pop())
        self._emit(Loop(var, start_e, step_e, cond_expr, do_while, unroll, body, loc,
                        update_e))

    def range(self, name: str, start: ExprLike, stop: ExprLike, step: ExprLike = 1, *,
              unroll: bool | str | int = False, dtype: DType | str = i32):
        """`for (T name = start; name < stop; name += step)` (`>` for a negative constant step)."""
        step_e = as_expr(step)
        negative = step_e.op is Op.CONST and step_e.arg < 0
        return self.loop(name, start, (lambda v: v > stop) if negative else (lambda v: v < stop),
                         step, unroll=unroll, dtype=dtype)

    def do_while(self, name: str, start: ExprLike, step: ExprLike,
                 cond: Callable[[Expr], ExprLike], *, dtype: DType | str = i32):
        """`T name = start; do { body; name += step; } while (cond(name));`"""
        return self.loop(name, start, cond, step, do_while=True, dtype=dtype)

    @contextlib.contextmanager
    def if_(self, cond: ExprLike) -> Iterator[None]:
        """`if (cond) { ... }`; follow with `with k.else_():` for an else branch."""
        loc = caller_loc()
        cond = as_expr(cond)
        self._blocks.append([])
        try:
            yield
        finally:
            then = tuple(self._blocks.pop())
        self._emit(If(cond, then, (), loc))

    @contextlib.contextmanager
    def else_(self) -> Iterator[None]:
        """The else branch of the `if_` block that ends just before it."""
        loc = caller_loc()
        block = self._blocks[-1]
        if not block or not isinstance(block[-1], If) or block[-1].orelse:
            raise KernelError("else_() must directly follow an if_() block", kernel=self.name,
                              loc=loc)
        self._blocks.append([])
        try:
            yield
        finally:
            orelse = tuple(self._blocks.pop())
        prev = block[-1]
        block[-1] = If(prev.cond, prev.then, orelse, prev.loc)

    @contextlib.contextmanager
    def trial(self) -> Iterator[None]:
        """Whatever is emitted or declared inside this block is discarded when it ends: a
        frontend that must know an expression's type before it states it (C's `c ? a[i] :
        b` becomes an if/else into a local of the common type) builds it once here."""
        depth, emitted = len(self._blocks), len(self._blocks[-1])
        names, site = dict(self._names), self._site
        sizes = (len(self._params), len(self._globals), len(self._buffers), len(self._shared))
        try:
            yield
        finally:
            del self._blocks[depth:]
            del self._blocks[-1][emitted:]
            self._names, self._site = names, site
            for table, n in zip((self._params, self._globals, self._buffers, self._shared),
                                sizes):
                del table[n:]

    # ------------------------------------------------------------ launch and build
    def launch(self, grid, block, dynamic_smem: ExprLike = 0) -> None:
        """The launch configuration: grid and block extents and dynamic shared bytes."""
        self._grid = _dim3(grid, "grid")
        self._block = _dim3(block, "block")
        self._dynamic_smem = as_expr(dynamic_smem)
        self._launch_loc = caller_loc()

    def defaults(self, **params) -> None:
        """Default parameter values (the size an example is analyzed and run at)."""
        self._defaults.update(params)

    def note(self, text: str) -> None:
        """A line said with every analysis of the kernel (what its frontend knows of it)."""
        self._notes.append(text)

    def build(self) -> Kernel:
        """Finish the kernel and run the static checks."""
        if len(self._blocks) != 1:
            raise KernelError("build() called inside a loop or if block", kernel=self.name,
                              loc=caller_loc())
        if self._grid is None:
            raise KernelError("no launch configuration: call k.launch(grid=..., block=...)",
                              kernel=self.name, loc=self.loc)
        kernel = Kernel(
            name=self.name, params=tuple(self._params), globals=tuple(self._globals),
            buffers=tuple(self._buffers), shared=tuple(self._shared),
            grid=self._grid, block=self._block,
            dynamic_smem=self._dynamic_smem, body=tuple(self._blocks[0]), loc=self.loc,
            defaults=dict(self._defaults), launch_loc=self._launch_loc,
            notes=tuple(self._notes))
        checks.check_kernel(kernel)
        kernel = replace(kernel, body=_drop_unread_results(kernel.body))
        self._built = True
        return kernel


def _drop_unread_results(body) -> tuple:
    """Atomics whose old value nothing reads lose their result, as compiled CUDA does (it
    changes the instruction: an unused add of 1 is aggregated per address)."""
    read = {n.arg for st in walk(body) for e in st.exprs() for n in e.walk() if n.op is Op.VAR}

    def drop(st):
        if isinstance(st, Atomic) and st.dst is not None and st.dst not in read:
            return replace(st, dst=None)
        return st
    return map_statements(tuple(body), drop)

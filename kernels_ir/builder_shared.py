"""The builder's shared memory: static and dynamic `__shared__` arrays, views of one
buffer in other types or shapes, paddings and layouts (XOR swizzles, CuTe layouts), and the
checks a declaration must pass (alignment, 48 KiB of static memory). Each function is a
method of KernelBuilder (`k`: the builder), bound in its class body, so users call
`k.shared(...)`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .arrays import SharedArray, SharedBuffer
from .cute import CuteError
from .cute_algebra import evaluate as evaluate_cute
from .dtypes import BY_NAME, DType
from .errors import KernelError, SourceLoc, caller_loc
from .kernel import static_layout
from .layout import TMA_SWIZZLES, Swizzle, tma_swizzle

STATIC_SMEM_LIMIT = 48 * 1024


def _dtype(t: DType | str) -> DType:
    if isinstance(t, DType):
        return t
    if t in BY_NAME:
        return BY_NAME[t]
    raise KernelError(f"unknown element type {t!r}; the IR has {sorted(BY_NAME)}",
                      loc=caller_loc())


def shared(k, name: str, dtype: DType | str, shape: int | Sequence[int], pad: int = 0,
           align: int | None = None, volatile: bool = False,
           layout: Swizzle | str | None = None) -> SharedArray:
    """A static `__shared__` array; `pad` adds elements to each innermost row; a
    `volatile` one keeps every access in the generated CUDA; `layout` is a Swizzle(B, M, S)
    of element offsets or a TMA mode ("SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B")."""
    dtype = _dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    loc = caller_loc()
    for extent in shape:
        if not isinstance(extent, int) or isinstance(extent, bool) or extent <= 0:
            raise KernelError(f"shared array '{name}': extents must be positive Python "
                              f"ints (use dynamic_shared for run-time sizes), got {extent!r}",
                              kernel=k.name, loc=loc)
    layout, needed = k._layout(name, dtype, layout, loc, shape)
    if needed and align is None:
        align = needed
    align = k._check_align(name, dtype, align, loc)
    if align < needed:
        raise KernelError(f"shared array '{name}': {layout.tma or layout.label} needs the "
                          f"array aligned to "
                          f"{needed} bytes (the hardware swizzles absolute address bits; "
                          f"the pattern repeats every {needed} bytes), got align={align}",
                          kernel=k.name, loc=loc)
    k._check_pad(name, shape, pad, loc)
    name = k._unique_decl(name)
    buf = SharedBuffer(name, 0, align, dynamic=False, volatile=bool(volatile))
    view = SharedArray(name, buf, dtype, shape, pad, layout)
    if layout is not None and (view.static_bytes // dtype.size) % layout.period:
        raise KernelError(f"shared array '{name}': {layout.label} permutes blocks of "
                          f"{layout.period} elements, but the array holds "
                          f"{view.static_bytes // dtype.size}: make its size (padding "
                          "included) a multiple, or every swizzled index would not stay "
                          "inside it", kernel=k.name, loc=loc)
    buf.nbytes = view.static_bytes
    k._add_view(buf, view)
    k._check_static_total(name, loc)
    return view


def dynamic_shared(k, name: str, dtype: DType | str, shape: Sequence[int | None] = (None,),
                   pad: int = 0, layout: Swizzle | None = None,
                   align: int | None = None) -> SharedArray:
    """A view of the launch's dynamic shared memory (`extern __shared__ T name[];`).

    Every dynamic view aliases the same bytes, as all `extern __shared__` arrays do in
    CUDA; the leading extent may be None (it spans what the launch provides). A
    `layout=Swizzle(B, M, S)` applies to the view's flat offsets (the launch's dynamic
    bytes must then be a whole number of its periods). `align` (a power of two, at least
    16): the region starts at that alignment (`extern __shared__ __align__(128)`; the
    largest any view asks).
    """
    dtype = _dtype(dtype)
    shape = tuple(shape)
    loc = caller_loc()
    if layout is not None and not isinstance(layout, Swizzle):
        raise KernelError(f"dynamic shared array '{name}': layout must be Swizzle(B, M, S)"
                          f"; the TMA modes ({layout!r}) swizzle absolute addresses and "
                          "need an alignment the dynamic region does not promise: declare "
                          "the equivalent Swizzle (SWIZZLE_128B of 2-byte elements is "
                          "Swizzle(3, 3, 3)) and align the tile yourself",
                          kernel=k.name, loc=loc)
    if any(e is not None and (not isinstance(e, int) or e <= 0) for e in shape) or \
            any(e is None for e in shape[1:]):
        raise KernelError(f"dynamic shared array '{name}': only the leading extent may be "
                          f"None, the rest positive ints; got {shape}", kernel=k.name,
                          loc=loc)
    k._check_pad(name, shape, pad, loc)
    if align is not None and (isinstance(align, bool) or not isinstance(align, int) or
                              align < 16 or align & (align - 1)):
        raise KernelError(f"dynamic shared array '{name}': align is a power of two of at "
                          f"least 16, got {align!r}", kernel=k.name, loc=loc)
    buf = next((b for b in k._buffers if b.dynamic), None)
    if buf is None:
        buf = SharedBuffer("dynamic", None, 16, dynamic=True)
    buf.align = max(buf.align, align or 16)   # the largest alignment any view asks
    return k._add_view(buf, SharedArray(k._unique_decl(name), buf, dtype, shape, pad,
                                        layout))


def view(k, array: SharedArray, name: str, dtype: DType | str,
         shape: Sequence[int | None] | None = None, pad: int = 0,
         layout: Swizzle | None = None) -> SharedArray:
    """Another typed view of the same shared bytes (seed 000's sMemBytes / sMemWords),
    optionally with its own Swizzle layout (or TMA mode, as a swizzle of its bytes)."""
    dtype = _dtype(dtype)
    loc = caller_loc()
    if isinstance(layout, str) and layout in TMA_SWIZZLES:
        needed = tma_swizzle(layout, dtype.size)[1]
        if array.buffer.align < needed:
            raise KernelError(f"view '{name}': {layout} needs '{array.name}' aligned to "
                              f"{needed} bytes, it is aligned to {array.buffer.align}",
                              kernel=k.name, loc=loc)
        layout = tma_swizzle(layout, dtype.size)[0]
    if layout is not None and not isinstance(layout, Swizzle):
        raise KernelError(f"view '{name}': layout must be Swizzle(B, M, S) or a TMA mode, "
                          f"got {layout!r}", kernel=k.name, loc=loc)
    buf = array.buffer
    if shape is None:
        if buf.dynamic:
            shape = (None,)
        elif buf.nbytes % dtype.size:
            raise KernelError(f"view '{name}': {buf.nbytes} bytes of '{array.name}' are not "
                              f"a whole number of {dtype} elements", kernel=k.name,
                              loc=loc)
        else:
            shape = (buf.nbytes // dtype.size,)
    shape = tuple(shape)
    if dtype.size > buf.align:
        raise KernelError(f"view '{name}': {dtype} needs {dtype.size}-byte alignment but "
                          f"'{array.name}' is aligned to {buf.align}", kernel=k.name,
                          loc=loc)
    k._check_pad(name, shape, pad, loc)
    view = SharedArray(k._unique_decl(name), buf, dtype, shape, pad, layout)
    if not buf.dynamic and view.static_bytes > buf.nbytes:
        raise KernelError(f"view '{name}' spans {view.static_bytes} bytes but "
                          f"'{array.name}' has {buf.nbytes}", kernel=k.name, loc=loc)
    if layout is not None and not buf.dynamic and \
            (view.static_bytes // dtype.size) % layout.period:
        raise KernelError(f"view '{name}': {layout.label} needs a view whose size is a "
                          f"multiple of {layout.period} elements", kernel=k.name,
                          loc=loc)
    return k._add_view(buf, view)


def layout(k, name: str, dtype: DType, layout, loc: SourceLoc, shape=None):
    """The declaration's layout as an element-level Swizzle, and the alignment it needs."""
    if layout is None or isinstance(layout, Swizzle):
        return layout, 0
    if isinstance(layout, str) and layout in TMA_SWIZZLES:
        return tma_swizzle(layout, dtype.size)
    if isinstance(layout, str) and ":" in layout and shape is not None:
        return k._cute_layout(name, dtype, layout, shape, loc)
    raise KernelError(f"shared array '{name}': layout must be Swizzle(B, M, S), one of "
                      f"{', '.join(TMA_SWIZZLES)} or a CuTe layout as cute::print writes "
                      f"it (or an expression of CuTe's layout algebra), got {layout!r}",
                      kernel=k.name, loc=loc)


def cute_layout(k, name: str, dtype: DType, text: str, shape: tuple, loc: SourceLoc):
    """A CuTe layout (kernels_ir.cute; or an expression of kernels_ir.cute_algebra) as a
    declaration: its modes must be the array's rows and columns in the array's own
    (row-major) order; its swizzle becomes the
    element-level Swizzle (of the byte address, for the smem_ptr form: then the array
    is aligned to the swizzle's period, as CuTe's swizzled tiles are)."""
    def fail(why: str) -> KernelError:
        return KernelError(f"shared array '{name}': layout {text!r}: {why}", kernel=k.name,
                           loc=loc)
    try:
        cute = evaluate_cute(text)
    except CuteError as err:
        raise fail(str(err)) from None
    if cute.extents != tuple(shape):
        raise fail(f"its shape {cute.extents} is not the array's {tuple(shape)}")
    grid = np.indices(cute.extents).reshape(len(shape), -1)
    if not (cute.offsets(*grid) == np.ravel_multi_index(grid, cute.extents)).all():
        raise fail("only a row-major shape:stride (the array's own order) with a "
                   "swizzle is declarable; index the array as that layout reads instead")
    if cute.swizzle is None:
        return None, 0
    b, m, s = cute.swizzle
    if cute.element_bits is None:
        return Swizzle(b, m, s), 0
    if cute.element_bits != 8 * dtype.size:
        raise fail(f"it is a layout of {cute.element_bits}-bit elements, the array holds "
                   f"{dtype}")
    shift = m - (dtype.size.bit_length() - 1)
    if shift < 0:
        raise fail(f"Sw<{b},{m},{s}> of bytes would split {dtype} elements")
    return Swizzle(b, shift, s), 1 << (m + s + b)


def check_layout_span(k, array, nbytes: int, loc: SourceLoc) -> None:
    # a swizzle keeps the low M bits of an element offset: an access of up to 2^M
    # elements stays contiguous; a wider one would have its elements scattered
    layout = getattr(array, "layout", None)
    if layout is not None and nbytes > (1 << layout.m) * array.dtype.size:
        raise KernelError(f"a {nbytes}-byte access into '{array.name}' would be split by "
                          f"{layout.label}, which keeps only {1 << layout.m} consecutive "
                          f"{array.dtype} elements together", kernel=k.name, loc=loc)


def check_static_total(k, name: str, loc: SourceLoc) -> None:
    # ptxas refuses more than 48 KiB of static __shared__ on every architecture ("uses
    # too much shared data"); larger tiles must be dynamic and opted in at launch
    end = static_layout(k._buffers)[1]
    if end > STATIC_SMEM_LIMIT:
        raise KernelError(f"shared array '{name}' brings static shared memory to {end} "
                          f"bytes; CUDA allows at most {STATIC_SMEM_LIMIT} (48 KiB) of "
                          "static __shared__ per kernel: declare larger tiles with "
                          "k.dynamic_shared and give the launch dynamic_smem=",
                          kernel=k.name, loc=loc)


def place_last(k, array: SharedArray) -> None:
    """Lay `array`'s static buffer out after every other (ptxas places a module-scope
    `__shared__` variable, such as an `extern __shared__` struct nvcc defines, after the
    kernel's own)."""
    buf = array.buffer
    if buf.dynamic or buf not in k._buffers:
        raise KernelError(f"place_last: '{array.name}' is not a static shared array of "
                          "this kernel", kernel=k.name, loc=caller_loc())
    k._buffers.remove(buf)
    k._buffers.append(buf)


def add_view(k, buf: SharedBuffer, view: SharedArray) -> SharedArray:
    if buf not in k._buffers:
        k._buffers.append(buf)
    view._builder = k
    k._shared.append(view)
    return view


def check_align(k, name: str, dtype: DType, align: int | None, loc: SourceLoc) -> int:
    # 16 bytes by default so that every vector view and access width is possible, and the
    # generated CUDA declares the same alignment, making our window offsets agree with
    # the compiler's modulo 16 (all that bank mapping depends on).
    align = 16 if align is None else align
    if align < dtype.size or align & (align - 1):
        raise KernelError(f"shared array '{name}': alignment must be a power of two >= "
                          f"{dtype.size}, got {align}", kernel=k.name, loc=loc)
    return align


def check_pad(k, name: str, shape: tuple, pad: int, loc: SourceLoc) -> None:
    if not isinstance(pad, int) or pad < 0:
        raise KernelError(f"shared array '{name}': pad must be a non-negative int, got "
                          f"{pad!r}", kernel=k.name, loc=loc)
    if pad and len(shape) < 2:
        raise KernelError(f"shared array '{name}': pad applies to rows of a 2-D or higher "
                          f"array, but its shape is {shape}", kernel=k.name, loc=loc)

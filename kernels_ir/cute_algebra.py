"""CuTe's layout algebra on layouts in CuTe's notation: coalesce, composition, complement,
logical_divide, logical_product, blocked_product and tile_to_shape, as CUTLASS's
`cute/layout.hpp` defines them for static shapes (media/docs/cpp/cute/02_layout_algebra.md),
and CUTLASS's GMMA atoms by name (`GMMA::Layout_K_SW128_Atom<half_t>`), so a CuTe user can
write the expression they have in their code and get the layout it is.

    composition((6,2):(8,2), (4,3):(3,1))          -> ((2,2),3):((24,2),8)
    complement((2,2):(1,6), 24)                    -> (3,2):(2,12)
    logical_divide((4,2,3):(2,1,8), 4:2)           -> ((2,2),(2,3)):((4,1),(2,8))
    composition((12,(4,8)):(59,(13,1)), <3:4,8:2>) -> (3,(2,4)):(236,(26,1))
    tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (64,64))
                                   -> Sw<3,4,3> o smem_ptr[16b](unset) o (64,64):(64,1)

A second operand in angle brackets is a tiler (a layout per mode; an integer n is n:1), a
bare shape `(3,8)` the tiler of stride-1 layouts. A swizzled first operand (`Sw<3,4,3> o
...`) keeps its swizzle outside: (Sw o L) o B = Sw o (L o B). Every result obeys CuTe's
post-conditions (tests/test_cute_algebra.py checks them element by element); where CuTe's
divisibility conditions fail, a CuteError says which.
"""
from __future__ import annotations

import math
import re

import numpy as np

from .cute import CuteError, CuteLayout, parse

FUNCTIONS = ("coalesce", "composition", "complement", "logical_divide", "logical_product",
             "blocked_product", "tile_to_shape")


# ------------------------------------------------------------ (shape, stride) pairs
# A layout here is (shape, stride): an int each, or like-nested tuples. CuteLayout holds a
# top-level tuple always; one integral mode is the integral layout.

def _pair(layout: CuteLayout):
    if layout.rank == 1 and not isinstance(layout.shape[0], tuple):
        return layout.shape[0], layout.stride[0]
    return layout.shape, layout.stride


def _layout(shape, stride, like: CuteLayout | None = None) -> CuteLayout:
    if not isinstance(shape, tuple):
        shape, stride = (shape,), (stride,)
    swizzle = like.swizzle if like is not None else None
    bits = like.element_bits if like is not None else None
    return CuteLayout(shape, stride, swizzle, bits)


def _leaves(shape, stride) -> list[tuple[int, int]]:
    if not isinstance(shape, tuple):
        return [(shape, stride)]
    return [leaf for s, d in zip(shape, stride) for leaf in _leaves(s, d)]


def _size(shape) -> int:
    return math.prod(_size(s) for s in shape) if isinstance(shape, tuple) else shape


def _shape_div(a: int, b: int, what: str) -> int:
    """CuTe's shape_div: a / b where one divides the other (1 where a < b)."""
    if a % b and b % a:
        raise CuteError(f"{what}: neither {a} nor {b} divides the other (CuTe's "
                        "divisibility condition)")
    return a // b if a // b else 1


def _coalesced(shape, stride) -> tuple:
    """coalesce: modes of size 1 dropped, s0:d0 ++ s1:s0*d0 merged into s0*s1:d0."""
    out: list[list[int]] = []
    for s, d in _leaves(shape, stride):
        if s == 1:
            continue
        if out and out[-1][0] * out[-1][1] == d:
            out[-1][0] *= s
        else:
            out.append([s, d])
    if not out:
        return 1, 0
    if len(out) == 1:
        return out[0][0], out[0][1]
    return tuple(s for s, _ in out), tuple(d for _, d in out)


def _compose_leaf(lhs: list[tuple[int, int]], s: int, d: int):
    """A flat, coalesced layout composed with s:d (cute::detail::composition_impl)."""
    if len(lhs) == 1:
        return s, d * lhs[0][1]
    if d == 0:
        return s, 0
    shapes, strides = [x for x, _ in lhs], [y for _, y in lhs]
    # divide d out of the shape from the left, scaling the strides
    rest, divided = d, []
    for si in shapes[:-1]:
        divided.append(_shape_div(si, rest, f"composition with {s}:{d}"))
        rest = _shape_div(rest, si, f"composition with {s}:{d}")
    scaled = [st * _shape_div(si, di, "composition")
              for st, si, di in zip(strides[:-1], shapes[:-1], divided)]
    # keep the first s elements (a mode that holds what is left ends it, divisible or not,
    # as CuTe's dynamic shape_div has it; past a mode, it must hold whole modes)
    rest_shape, kept = s, []
    for si in divided:
        kept.append(min(si, rest_shape))
        rest_shape = 1 if rest_shape <= si else \
            _shape_div(rest_shape, si, f"composition with {s}:{d}")
    # backwards coalesce onto (rest_shape, rest * last stride)
    new_s, new_d = [rest_shape], [rest * strides[-1]]
    for si, di in zip(reversed(kept), reversed(scaled)):
        if si == 1:
            continue
        if new_s == [1]:
            new_s, new_d = [si], [di]
        elif si * di == new_d[0]:
            new_s[0], new_d[0] = si * new_s[0], di
        else:
            new_s.insert(0, si)
            new_d.insert(0, di)
    if new_s == [1]:
        return 1, 0
    return (new_s[0], new_d[0]) if len(new_s) == 1 else (tuple(new_s), tuple(new_d))


def _compose(shape, stride, b_shape, b_stride):
    """(shape, stride) o (b_shape, b_stride), B a layout: distributed over B's modes."""
    if isinstance(b_shape, tuple):
        parts = [_compose(shape, stride, s, d) for s, d in zip(b_shape, b_stride)]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    flat = _leaves(*_coalesced(shape, stride))
    return _compose_leaf(flat, b_shape, b_stride)


class Tiler(tuple):
    """CuTe's `<L0, L1, ...>`: a layout (or tiler) per mode of the layout it applies to."""


def _by_mode(layout: CuteLayout, tiler: Tiler, op):
    """`op` applied mode by mode (a tiler), the modes past the tiler's kept as they are."""
    shape, stride = layout.shape, layout.stride
    if len(tiler) > len(shape):
        raise CuteError(f"a tiler of {len(tiler)} modes for a layout of {len(shape)}")
    modes = [op(_layout(s, d), t) for s, d, t in zip(shape, stride, tiler)]
    out_s = tuple(_pair(m)[0] for m in modes) + tuple(shape[len(tiler):])
    out_d = tuple(_pair(m)[1] for m in modes) + tuple(stride[len(tiler):])
    return CuteLayout(out_s, out_d, layout.swizzle, layout.element_bits)


def _as_layout(b) -> CuteLayout:
    return _layout(b, 1) if isinstance(b, int) else b


# ------------------------------------------------------------ the operations

def coalesce(layout: CuteLayout) -> CuteLayout:
    """The same function of a 1-D coordinate with the fewest modes (depth at most 1)."""
    return _layout(*_coalesced(*_pair(layout)), like=layout)


def composition(a: CuteLayout, b) -> CuteLayout:
    """A o B: B(c) fed to A, for every coordinate c of B (B a layout, an int n as n:1, or
    a Tiler applied mode by mode). A swizzle of A stays outside."""
    if isinstance(b, Tiler):
        return _by_mode(a, b, composition)
    b = _as_layout(b)
    if b.swizzle is not None:
        raise CuteError("the second operand of a composition must be a plain layout "
                        "(no swizzle)")
    return _layout(*_compose(*_pair(a), *_pair(b)), like=a)


def complement(a: CuteLayout, cotarget: int) -> CuteLayout:
    """The layout of A's repetitions up to `cotarget`: ordered, disjoint from A's image."""
    if a.swizzle is not None:
        raise CuteError("complement of a swizzled layout: give the layout under the swizzle")
    modes = sorted((d, s) for s, d in _leaves(*_pair(a)) if s != 1 and d != 0)
    shapes, strides = [], [1]
    for d, s in modes:
        if d % strides[-1]:
            raise CuteError(f"complement of {a.text()}: stride {d} is not a multiple of "
                            f"{strides[-1]} (the modes below it overlap or leave holes CuTe "
                            "cannot fill in order)")
        shapes.append(d // strides[-1])
        strides.append(s * d)
    shapes.append(-(-cotarget // strides[-1]))
    return _layout(*_coalesced(tuple(shapes), tuple(strides)))


def logical_divide(a: CuteLayout, b) -> CuteLayout:
    """A split by the tile B: (the elements B selects, the layout of B's tiles) per mode of
    a Tiler, = A o (B, complement(B, size(A)))."""
    if isinstance(b, Tiler):
        return _by_mode(a, b, logical_divide)
    b = _as_layout(b)
    rest = complement(b, _size(a.shape))
    b_s, b_d = _pair(b)
    r_s, r_d = _pair(rest)
    return composition(a, _layout((b_s, r_s), (b_d, r_d)))


def logical_product(a: CuteLayout, b) -> CuteLayout:
    """A repeated as B says: (A, complement(A, size(A) * cosize(B)) o B) per mode of a
    Tiler."""
    if isinstance(b, Tiler):
        return _by_mode(a, b, logical_product)
    b = _as_layout(b)
    b_s, b_d = _pair(b)
    cosize = sum((s - 1) * d for s, d in _leaves(b_s, b_d)) + 1
    rest = composition(complement(a, _size(a.shape) * cosize), b)
    a_s, a_d = _pair(a)
    r_s, r_d = _pair(rest)
    return _layout((a_s, r_s), (a_d, r_d))


def blocked_product(a: CuteLayout, b: CuteLayout) -> CuteLayout:
    """A tiled as B says, mode by mode: mode i is (A's mode i, the tiles' mode i), each
    coalesced (A and B of one rank; B's modes count the tiles)."""
    if b.rank != a.rank:
        raise CuteError(f"blocked_product of a rank-{a.rank} layout by a rank-{b.rank} one "
                        "(give B as many modes as A)")
    product = logical_product(_layout(a.shape, a.stride), b)
    (_, rest_s), (_, rest_d) = product.shape, product.stride
    if a.rank == 1:
        rest_s, rest_d = (rest_s,), (rest_d,)
    modes = [_coalesced((sa, sr), (da, dr)) for sa, da, sr, dr in
             zip(a.shape, a.stride, rest_s, rest_d)]
    return CuteLayout(tuple(m[0] for m in modes), tuple(m[1] for m in modes), a.swizzle,
                      a.element_bits)


def tile_to_shape(block: CuteLayout, shape: tuple) -> CuteLayout:
    """The block repeated over `shape` (a tuple of ints, one per mode; each a multiple of
    the block's), tiles in column-major order, as CuTe's tile_to_shape."""
    if len(shape) != block.rank:
        raise CuteError(f"tile_to_shape of a rank-{block.rank} block to a {len(shape)}-mode "
                        "shape")
    counts = []
    for want, have in zip(shape, block.extents):
        if want % have:
            raise CuteError(f"tile_to_shape: {want} is not a multiple of the block's {have}")
        counts.append(want // have)
    strides = tuple(math.prod(counts[:i]) for i in range(len(counts)))
    return blocked_product(block, CuteLayout(tuple(counts), strides))


# CUTLASS's GMMA shared-memory atoms (cute/atom/mma_traits_sm90_gmma.hpp), in bits: rows of
# W 16-byte chunks (W = 1, 2, 4, 8: INTER, SW32, SW64, SW128), 8 of them, K- or MN-major
_ATOM = re.compile(r"^\s*(?:(?:cute::)?GMMA::)?Layout_(K|MN)_(INTER|SW32|SW64|SW128)_Atom"
                   r"\s*<\s*([\w:]+)\s*>\s*(?:\{\s*\})?\s*$")
_CHUNKS = {"INTER": (1, None), "SW32": (2, (1, 4, 3)), "SW64": (4, (2, 4, 3)),
           "SW128": (8, (3, 4, 3))}
ELEMENT_BITS = {"half_t": 16, "bfloat16_t": 16, "__half": 16, "__nv_bfloat16": 16,
                "half": 16, "float": 32, "tfloat32_t": 32, "int32_t": 32, "uint32_t": 32,
                "float_e4m3_t": 8, "float_e5m2_t": 8, "int8_t": 8, "uint8_t": 8,
                "double": 64}


def gmma_atom(major: str, mode: str, element_bits: int) -> CuteLayout:
    """GMMA::Layout_{major}_{mode}_Atom<T> for elements of `element_bits`: 8 rows of W
    16-byte chunks (K-major: rows along M/N; MN-major: the transpose), swizzled by
    Swizzle<log2 W, 4, 3> of the byte address."""
    w, swizzle = _CHUNKS[mode]
    wide = w * 128 // element_bits
    shape, stride = ((8, wide), (wide, 1)) if major == "K" else ((wide, 8), (1, wide))
    return CuteLayout(shape, stride, swizzle, element_bits if swizzle else None)


def values(layout: CuteLayout) -> np.ndarray:
    """The layout as a function of a 1-D coordinate: its offsets in coordinate order."""
    i = np.arange(_size(layout.shape), dtype=np.int64)
    return layout.offsets(*[c for c in _split(i, layout.extents)])


def _split(i: np.ndarray, extents) -> list[np.ndarray]:
    out = []
    for n in extents:
        out.append(i % n)
        i = i // n
    return out


# ------------------------------------------------------------ the notation

_CALL = re.compile(r"^\s*(\w+)\s*\(")
_SWIZZLE_PREFIX = re.compile(r"^\s*(Sw<\s*\d+\s*,\s*\d+\s*,\s*\d+\s*>\s*o\s*"
                             r"(?:smem_ptr\[\d+b\](?:\(\w*\))?\s*o\s*)?)")


def evaluate(text: str) -> CuteLayout:
    """A layout from CuTe's notation or an expression of the algebra over such layouts
    (module docstring); CuteError names what is wrong."""
    text = text.strip()
    atom = _ATOM.match(text)
    if atom:
        kind = atom.group(3).rsplit("::", 1)[-1]
        if kind not in ELEMENT_BITS:
            raise CuteError(f"{text!r}: unknown element type {atom.group(3)!r} (one of "
                            f"{', '.join(ELEMENT_BITS)})")
        return gmma_atom(atom.group(1), atom.group(2), ELEMENT_BITS[kind])
    m = _CALL.match(text)
    if m is None:
        prefix = _SWIZZLE_PREFIX.match(text)
        if prefix and _CALL.match(text[prefix.end():]):
            inner = evaluate(text[prefix.end():])
            if inner.swizzle is not None:
                raise CuteError(f"{text!r}: two swizzles")
            outer = parse(prefix.group(1) + inner.text())
            return outer
        return parse(text)
    name = m.group(1)
    if name not in FUNCTIONS:
        raise CuteError(f"unknown function {name!r}: one of {', '.join(FUNCTIONS)}")
    body, rest = _close(text, m.end() - 1)
    if rest.strip():
        raise CuteError(f"{text!r}: unexpected {rest.strip()!r} after {name}(...)")
    args = _split_args(body)
    want = 1 if name == "coalesce" else 2
    if len(args) != want:
        raise CuteError(f"{name} takes {want} argument(s), got {len(args)}")
    first = evaluate(args[0])
    if name == "coalesce":
        return coalesce(first)
    if name == "complement":
        if not re.fullmatch(r"\s*_?\d+\s*", args[1]):
            raise CuteError(f"complement's cotarget is an integer, got {args[1].strip()!r}")
        second = int(args[1].strip().lstrip("_"))
    elif name == "tile_to_shape":
        second = parse(f"{args[1]}:{args[1]}").shape   # a shape
        if any(isinstance(x, tuple) for x in second):
            raise CuteError(f"tile_to_shape's shape is a tuple of integers, got {args[1]!r}")
    else:
        second = _operand(args[1])
        if name == "blocked_product" and not isinstance(second, CuteLayout):
            raise CuteError(f"blocked_product's second operand is a layout, got {args[1]!r}")
    op = {"complement": complement, "composition": composition,
          "logical_divide": logical_divide, "logical_product": logical_product,
          "blocked_product": blocked_product, "tile_to_shape": tile_to_shape}[name]
    try:
        return op(first, second)
    except CuteError as err:
        raise CuteError(f"{name}({', '.join(args)}): {err}") from None


def _operand(text: str):
    """A second operand: a tiler `<...>`, a bare shape `(3,8)` (a tiler of n:1), an
    integer n (n:1), or a layout expression."""
    t = text.strip()
    if t.startswith("<"):
        body, rest = _close(t, 0, "<", ">")
        if rest.strip():
            raise CuteError(f"{text!r}: unexpected {rest.strip()!r} after the tiler")
        return Tiler(_operand(x) for x in _split_args(body))
    if re.fullmatch(r"_?\d+", t):
        return int(t.lstrip("_"))
    if ":" not in t and not _CALL.match(t):
        shape = parse(f"{t}:{t}").shape   # a shape: its modes as n:1 tilers
        return Tiler(_shape_tiler(s) for s in shape)
    return evaluate(t)


def _shape_tiler(shape):
    if isinstance(shape, tuple):
        return Tiler(_shape_tiler(s) for s in shape)
    return shape


def _close(text: str, at: int, open_: str = "(", close: str = ")") -> tuple[str, str]:
    """(what is inside the bracket opening at `at`, what follows its close)."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return text[at + 1:i], text[i + 1:]
    raise CuteError(f"{text!r}: a {open_!r} without its {close!r}")


def _split_args(text: str) -> list[str]:
    """Split at the commas outside any bracket."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [x.strip() for x in out] if text.strip() else []

"""The coordinates of a block that the ends run (block_ends) walks: each block axis, or the
quotient and remainder of one divided by a launch constant.

A GEMM that launches a 1-D grid of tiles reads `blockIdx.x / (N / BN)` as its tile row and
`blockIdx.x % (N / BN)` as its tile column (fast.cu's kernels; nvcc's PTX computes the
remainder as `x - x / D * D`). Neither is affine in blockIdx.x, but both are coordinates of
their own: with q = x / D and r = x % D, x = q * D + r, so an index affine in x, q and r is
affine in (q, r). The blocks of the grid are then, in (q, r), the box q < G / D, r < D and,
where D does not divide G, the row q = G / D, r < G % D: the ends run takes the ends of
each.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from kernels_ir.evaluate import Evaluator
from kernels_ir.expr import Expr, Op
from kernels_ir.semantics import LaneFault

AXES = "xyz"
# launch-wide values a divisor may read
_LAUNCH = ("blockDim", "gridDim")


def is_block(e: Expr) -> bool:
    """Whether `e` is a block index (blockIdx.x, .y or .z)."""
    return e.op is Op.SPECIAL and e.arg[0] == "blockIdx"


def _launch_constant(e: Expr) -> bool:
    """Whether `e` reads only constants, parameters and the launch's dimensions."""
    for n in e.walk():
        if n.op is Op.SPECIAL:
            if n.arg[0] not in _LAUNCH:
                return False
        elif n.op in (Op.VAR, Op.LOCAL_READ, Op.COMPONENT) or \
                not n.src and n.op not in (Op.CONST, Op.PARAM):
            return False
    return True


def _block_operand(e: Expr) -> str | None:
    """The axis of `e` where it is a block index, or one converted to an integer type that
    holds it (the `(int)blockIdx.x` of C's usual conversions): None otherwise."""
    while e.op is Op.CAST and not e.dtype.is_float and e.dtype.bits >= 32:
        e = e.src[0]
    return e.arg[1] if is_block(e) else None


def _division(n: Expr) -> tuple[str, str, Expr] | None:
    """(axis, "/" or "%", divisor) where `n` is a block index divided by a launch constant,
    or its remainder (a shift right by a constant or a mask of its low bits: a power of
    two's), else None."""
    if n.dtype.is_float or len(n.src) != 2:
        return None
    axis = _block_operand(n.src[0])
    d = n.src[1]
    if axis is None or not _launch_constant(d):
        return None
    if n.op in (Op.DIV, Op.MOD):
        return axis, "/" if n.op is Op.DIV else "%", d
    if d.op is not Op.CONST or not isinstance(d.arg, int):
        return None
    if n.op is Op.SHR and 0 <= d.arg < 32:
        return axis, "/", Expr(Op.CONST, d.dtype, (), 1 << d.arg)
    if n.op is Op.AND and d.arg > 0 and d.arg & (d.arg + 1) == 0:
        return axis, "%", Expr(Op.CONST, d.dtype, (), d.arg + 1)
    return None


def _divisor_key(d: Expr):
    return ("const", d.arg) if d.op is Op.CONST else d.key()


def find_divisors(exprs) -> dict[str, Expr]:
    """Axis -> the one launch constant the expressions divide that block index by (an axis
    divided by several, or by none: not in it)."""
    found: dict = {}
    for e in exprs:
        for n in e.walk():
            hit = _division(n)
            if hit is not None:
                found.setdefault(hit[0], {}).setdefault(_divisor_key(hit[2]), hit[2])
    return {a: next(iter(ds.values())) for a, ds in found.items() if len(ds) == 1}


@dataclass(frozen=True)
class Coordinates:
    """The block coordinates of a kernel: per divided axis its divisor (see the module)."""

    divisors: Mapping[str, Expr] = field(default_factory=dict)

    def part(self, n: Expr) -> str | None:
        """"x/" or "x%" where `n` is a divided axis's quotient or remainder by its divisor,
        else None."""
        hit = _division(n)
        if hit is None or hit[0] not in self.divisors or \
                _divisor_key(hit[2]) != _divisor_key(self.divisors[hit[0]]):
            return None
        return hit[0] + hit[1]

    def leaf(self, n: Expr) -> bool:
        """Whether `n` is a leaf the ends run's indices may be affine in: a block index, or
        a divided one's quotient or remainder."""
        return is_block(n) or self.part(n) is not None

    def read(self, e: Expr) -> set[str]:
        """The coordinates `e` reads (a divided axis's index itself: both of its)."""
        part = self.part(e)
        if part is not None:
            return {part}
        if is_block(e):
            a = e.arg[1]
            return {a + "/", a + "%"} if a in self.divisors else {a}
        return set().union(*(self.read(x) for x in e.src if isinstance(x, Expr)))

    def names(self, read: set) -> tuple[str, ...]:
        """The coordinates of the axes `read` touches, in order (a divided axis: both its
        quotient and remainder, so that each block is one place)."""
        out = []
        for a in AXES:
            if a in self.divisors and read & {a + "/", a + "%"}:
                out += [a + "/", a + "%"]
            elif a in read:
                out.append(a)
        return tuple(out)


class Lanes(Evaluator):
    """Expressions of thread and block indices, parameters and constants, over lanes."""

    def __init__(self, launch, threads: np.ndarray, blocks: dict):
        self.launch = launch
        bx, by, _ = launch.block
        u = np.uint32
        self.values = {("threadIdx", "x"): (threads % bx).astype(u),
                       ("threadIdx", "y"): (threads // bx % by).astype(u),
                       ("threadIdx", "z"): (threads // (bx * by)).astype(u)}
        self.values.update({("blockIdx", a): blocks[a].astype(u) for a in AXES})
        self.values.update({("blockDim", a): np.full(threads.size, n, u)
                            for a, n in zip(AXES, launch.block)})
        self.values.update({("gridDim", a): np.full(threads.size, n, u)
                            for a, n in zip(AXES, launch.grid)})

    def leaf(self, e: Expr, idx: np.ndarray) -> np.ndarray:
        if e.op is Op.SPECIAL:
            return self.values[e.arg][idx]
        if e.op is Op.PARAM:
            return np.full(idx.size, self.launch.params[e.arg], e.dtype.np)
        raise AssertionError(f"a box guard holds only indices and parameters, not {e.op}")


@dataclass(frozen=True)
class Grid:
    """A launch's grid in the coordinates `names`: per divided axis its divisor's value."""

    names: tuple[str, ...]
    extent: Mapping[str, int]    # axis -> blocks along it
    divisors: Mapping[str, int]  # divided axis -> its divisor at this launch

    @staticmethod
    def of(coords: Coordinates, names: tuple[str, ...], launch) -> "Grid | None":
        """The grid of `launch`, or None where a divisor is not positive there."""
        one = np.zeros(1, np.int64)
        ev = Lanes(launch, one, {a: one for a in AXES})
        values = {}
        for a, d in coords.divisors.items():
            if a + "/" in names:
                try:
                    v = int(ev.eval(d, np.arange(1))[0])
                except LaneFault:
                    return None
                if v <= 0:
                    return None
                values[a] = v
        return Grid(names, dict(zip(AXES, launch.grid)), values)

    def boxes(self) -> list[dict]:
        """The boxes (coordinate -> (lo, hi)) whose union is every block of the grid: one,
        but for a divided axis whose divisor does not divide its extent (then also the
        last, partial, row of quotients)."""
        out: list[dict] = [{}]
        for a in AXES:
            if a in self.divisors:
                d, g = self.divisors[a], self.extent[a]
                rows = []
                if g // d:
                    rows.append({a + "/": (0, g // d - 1), a + "%": (0, d - 1)})
                if g % d:
                    rows.append({a + "/": (g // d, g // d), a + "%": (0, g % d - 1)})
                out = [{**box, **row} for box in out for row in rows]
            elif a in self.names:
                out = [{**box, a: (0, self.extent[a] - 1)} for box in out]
        return out

    def indices(self, place: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Axis -> blockIdx at the places (coordinate -> values; a coordinate not given:
        0)."""
        out = {}
        for a in AXES:
            if a in self.divisors:
                out[a] = np.asarray(place.get(a + "/", 0), np.int64) * self.divisors[a] + \
                    np.asarray(place.get(a + "%", 0), np.int64)
            else:
                out[a] = np.asarray(place.get(a, 0), np.int64)
        return out

    def linear(self, place: Mapping[str, np.ndarray]) -> np.ndarray:
        """The linear block ids at the places."""
        gx, gy, _ = (self.extent[a] for a in AXES)
        i = self.indices(place)
        return i["x"] + gx * (i["y"] + gy * i["z"])

    def coordinates(self, blocks: np.ndarray) -> dict[str, np.ndarray]:
        """Coordinate -> its values at the linear block ids `blocks`."""
        gx, gy, _ = (self.extent[a] for a in AXES)
        index = {"x": blocks % gx, "y": blocks // gx % gy, "z": blocks // (gx * gy)}
        out = {}
        for n in self.names:
            a = n[0]
            if a in self.divisors:
                d = self.divisors[a]
                out[n] = index[a] // d if n.endswith("/") else index[a] % d
            else:
                out[n] = index[a]
        return out

"""Which bank each element of a shared array lands in, and where one warp request's lanes fall.

The data of a layout picture (smemsim.cli.figures draws it): a shared view's elements as a
grid in *logical* coordinates (rows are every index but the last, columns the last index; a
1-D array is folded into rows of 128 bytes, one pass over the 32 banks), each cell with the
bank its first byte lands in under the view's padding and swizzle. The same logical grid
drawn for another layout (a `fix` candidate) shows what that layout changes: the cells stay,
their banks move. A marked request is one warp request of one site, each lane's elements
found by undoing the layout on the bytes it addressed; for another layout the same logical
elements are re-addressed and the request re-costed by the bank engine.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from kernels_ir import Kernel, KernelError, resolve_launch
from kernels_ir.arrays import SharedArray

from ..engine.banks import warp_request
from ..display import html

MAX_ROWS, MAX_COLS = 64, 128   # cells drawn; the grid's full size is kept and said
BANKS, BANK_BYTES = 32, 4


@dataclass(frozen=True)
class MarkedRequest:
    """One warp request drawn on a layout: its site, cost there, and each lane's elements."""

    site: int
    line: int
    wavefronts: int
    ideal: int
    cells: tuple[tuple[int, int, int], ...]  # (row, column, lane) of every element a lane reads

    @property
    def excess(self) -> int:
        """Wavefronts over ideal."""
        return self.wavefronts - self.ideal


@dataclass(frozen=True)
class LayoutMap:
    """One shared view as a grid of elements, each with the bank of its first byte."""

    kernel: str
    array: str
    dtype: str
    element_bytes: int
    shape: tuple[int, ...]
    label: str                   # "declared", or the change: "pad 1", "Swizzle<5,0,5>"
    rows: int                    # rows and columns of the whole grid
    cols: int
    banks: tuple[tuple[int, ...], ...]  # the drawn cells (at most MAX_ROWS x MAX_COLS); -1:
    request: MarkedRequest | None       # past the end of a folded 1-D array

    @property
    def clipped(self) -> bool:
        """Whether the grid is larger than what is drawn."""
        return self.rows > len(self.banks) or bool(self.banks and
                                                   self.cols > len(self.banks[0]))

    def _repr_html_(self) -> str | None:
        """In a notebook: the grid of banks (smemsim.display)."""
        return html(self)


def _view(kernel: Kernel, name: str) -> SharedArray:
    for v in kernel.shared:
        if v.name == name:
            return v
    raise KernelError(f"kernel '{kernel.name}' has no shared array '{name}' (it has "
                      f"{', '.join(v.name for v in kernel.shared) or 'none'})",
                      kernel=kernel.name)


class _Geometry:
    """Logical cell <-> physical byte of one view at one launch."""

    def __init__(self, kernel: Kernel, view: SharedArray, params):
        self.view = view
        self.size = view.dtype.size
        self.base = kernel.buffer_base(view.buffer)
        self.shape = tuple(resolve_launch(kernel, params).extent(view))
        if view.rank == 1:
            self.cols = max(1, BANKS * BANK_BYTES // self.size)
            self.rows = -(-self.shape[0] // self.cols)
            self.pitch = self.cols      # a folded 1-D array has no padding
        else:
            self.cols = self.shape[-1]
            self.rows = math.prod(self.shape[:-1])
            self.pitch = self.cols + view.pad

    def exists(self, row: int, col: int) -> bool:
        return self.view.rank > 1 or row * self.cols + col < self.shape[0]

    def byte(self, row: int, col: int) -> int:
        """Window byte offset of logical cell (row, col)."""
        flat = row * self.pitch + col
        if self.view.layout is not None:
            flat = int(self.view.layout.apply(flat))
        return self.base + flat * self.size

    def cell(self, byte: int) -> tuple[int, int] | None:
        """The logical cell whose element starts at `byte` (None: not this view's element)."""
        physical, rest = divmod(byte - self.base, self.size)
        if rest or physical < 0:
            return None
        flat = int(self.view.layout.apply(physical)) if self.view.layout is not None \
            else physical  # a swizzle is its own inverse
        row, col = divmod(flat, self.pitch)
        return (row, col) if col < self.cols and row < self.rows else None


def layout_map(kernel: Kernel, array: str, params: Mapping | None = None, *,
               label: str = "declared", request: Mapping | None = None,
               original: Kernel | None = None, arch: str = "sm_90") -> LayoutMap:
    """The bank grid of `array` in `kernel` at a launch, with one warp request marked.

    `request`: {"site", "line", "offsets", "width", "op", "matrices"} of a request of
    `original` (default: `kernel` itself); with an `original`, the lanes' logical elements
    are found there and re-addressed in `kernel`'s layout, and the request re-costed."""
    view = _view(kernel, array)
    geo = _Geometry(kernel, view, params)
    banks = tuple(tuple((geo.byte(r, c) // BANK_BYTES) % BANKS if geo.exists(r, c) else -1
                        for c in range(min(geo.cols, MAX_COLS)))
                  for r in range(min(geo.rows, MAX_ROWS)))
    marked = None
    if request is not None:
        marked = _mark(geo, _Geometry(original or kernel, _view(original or kernel, array),
                                      params), request, arch)
    return LayoutMap(kernel.name, array, str(view.dtype), geo.size, geo.shape, label,
                     geo.rows, geo.cols, banks, marked)


def _mark(geo: _Geometry, source: _Geometry, request: Mapping, arch: str) -> MarkedRequest:
    """Each lane's elements of a request of `source`'s layout, re-addressed in `geo`'s."""
    per_lane = max(1, request["width"] // source.size)
    cells, offsets = [], []
    for lane, off in enumerate(request["offsets"]):
        if off is None:
            offsets.append(None)
            continue
        first = source.cell(off)
        if first is None:
            raise KernelError(f"site {request['site']}: lane {lane}'s byte {off} is not the "
                              f"start of an element of '{source.view.name}'")
        offsets.append(geo.byte(*first))
        for k in range(per_lane):
            # a vector access covers consecutive *physical* elements: undo the layout on each
            cell = source.cell(off + k * source.size)
            if cell is not None:
                cells.append((cell[0], cell[1], lane))
    cost = warp_request(offsets, request["width"], request["op"], arch,
                        matrices=request.get("matrices"))
    return MarkedRequest(request["site"], request["line"], cost.wavefronts, cost.ideal,
                         tuple(cells))

"""What the common warp reads of a tile cost under a layout a CuTe user already has.

`layout_reads(layout, element_bytes)` takes a kernels_ir.cute layout of two modes (rows,
columns; CUTLASS's GMMA and TMA atoms print this way) and costs, with the measured bank
rules (smemsim.engine.banks), the reads that tensor-core kernels make of such tiles:

- `row vectors`: lane l reads 16 bytes at (l, 0) (LDS.128: one row's vector per lane);
- `8 rows x 4 chunks`: lane l reads 16 bytes at (l % 8, (l // 8) * 16 bytes);
- `ldmatrix.x4`: a 16 x 16-byte... block of 16 rows and two 16-byte columns, lanes 0-15
  giving rows 0-15 of the first, 16-31 of the second (the .trans form costs the same);
- `column`: lane l reads one element at (l, 0).

Row and lane indices wrap at the tile's extents. A 16-byte read is costed only where the
layout keeps those 16 bytes contiguous (else the vector would not be one instruction).
The tile starts at a multiple of the swizzle's period, as CuTe's swizzled tiles must.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels_ir.cute import CuteLayout

from ..engine.banks import warp_request

WARP = 32


@dataclass(frozen=True)
class TileRead:
    """One warp read of the tile and its cost (None where the layout does not allow it)."""

    name: str
    op: str                        # "load" or "ldmatrix"
    width: int                     # bytes per lane
    offsets: tuple[int, ...]       # byte offset of each lane's access from the tile start
    wavefronts: int | None
    ideal: int | None
    why_not: str | None = None     # why it is not costed

    @property
    def excess(self) -> int | None:
        """Wavefronts over ideal (bank conflicts)."""
        return None if self.wavefronts is None else self.wavefronts - self.ideal


@dataclass(frozen=True)
class LayoutReads:
    """A layout as a tile of `rows` x `cols` elements and what its common reads cost."""

    layout: str
    rows: int
    cols: int
    element_bytes: int
    span_bytes: int                # bytes from the tile start to past its last element
    reads: tuple[TileRead, ...]


def layout_reads(layout: CuteLayout, element_bytes: int, arch: str = "sm_90") -> LayoutReads:
    """The tile of `layout` (two modes) and the cost of each common read (module doc)."""
    if layout.rank != 2:
        raise ValueError(f"a tile has two modes (rows, columns); {layout.text()} has "
                         f"{layout.rank}")
    if layout.element_bits is not None and layout.element_bits != 8 * element_bytes:
        raise ValueError(f"{layout.text()} is a layout of {layout.element_bits}-bit elements, "
                         f"not {8 * element_bytes}-bit ones")
    rows, cols = layout.extents
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    addresses = layout.byte_addresses(element_bytes, r, c)
    vec = 16 // element_bytes
    lane = np.arange(WARP)

    def vector(lane_rows, lane_cols, name, op):
        if cols < vec:
            return TileRead(name, op, 16, (), None, None,
                            f"rows of {cols} elements hold no 16-byte vector")
        lane_rows, lane_cols = lane_rows % rows, lane_cols % cols
        starts = addresses[lane_rows, lane_cols]
        span = addresses[lane_rows[:, None], (lane_cols[:, None] + np.arange(vec)) % cols]
        if (lane_cols + vec > cols).any() or \
                (span != starts[:, None] + element_bytes * np.arange(vec)).any():
            return TileRead(name, op, 16, tuple(int(x) for x in starts), None, None,
                            "the layout does not keep those 16 bytes together")
        if (starts % 16).any():
            # (a padded row, `(32,32):(33,1)`: row l starts 132 bytes after row l - 1)
            lane_at = int(np.flatnonzero(starts % 16)[0])
            return TileRead(name, op, 16, tuple(int(x) for x in starts), None, None,
                            f"lane {lane_at}'s 16 bytes start at byte {int(starts[lane_at])}, "
                            "not a multiple of 16: no 16-byte instruction reads them (the "
                            "GPU faults on a misaligned vector)")
        req = warp_request(starts.tolist(), 16, op, arch,
                           matrices=4 if op == "ldmatrix" else None)
        return TileRead(name, op, 16, tuple(int(x) for x in starts), req.wavefronts, req.ideal)
    reads = [vector(lane, 0 * lane, "row vectors", "load"),
             vector(lane % 8, lane // 8 * vec, "8 rows x 4 chunks", "load"),
             vector(lane % 16, lane // 16 * vec, "ldmatrix.x4", "ldmatrix")]
    column = addresses[lane % rows, 0]
    req = warp_request(column.tolist(), element_bytes, "load", arch)
    reads.append(TileRead("column", "load", element_bytes, tuple(int(x) for x in column),
                          req.wavefronts, req.ideal))
    return LayoutReads(layout.text(), rows, cols, element_bytes,
                       int(addresses.max()) + element_bytes, tuple(reads))

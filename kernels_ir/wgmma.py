"""wgmma (sm_90): matrix descriptors and the shared-memory layouts they select.

`wgmma.mma_async.m64nNk16` reads A (64 x 16, M x K) and B (N x 16, N x K) from shared memory
through 64-bit matrix descriptors (PTX ISA, "Matrix Descriptor Format"): start address >> 4
(bits 0-13), leading byte offset (LBO) >> 4 (16-29), stride byte offset (SBO) >> 4 (32-45),
base offset (49-51), swizzle mode (62-63: 0 none, 1 128B, 2 64B, 3 32B).

Element (mn, k) of an operand (mn: its row of A or column of B) lies at `swz(start +
offset(mn, k))`, `swz` being Swizzle<B,4,3> of the absolute byte address (B = 1, 2, 3 for
32, 64, 128 bytes), and `offset` the canonical layout (CUTLASS make_gmma_desc; PTX ISA
"Shared Memory Matrix Layout"), with e the element size, T = 16 / e elements per 16-byte
chunk and W = 2, 4, 8 chunks per swizzled row:

- K-major, no swizzle: 8x16-byte core matrices: `(mn % 8) * 16 + (mn // 8) * SBO +
  (k % T) * e + (k // T) * LBO`;
- K-major, swizzled: rows of 16W bytes: `(mn % 8) * 16W + (mn // 8) * SBO + k * e` (LBO is
  not used: an instruction's 16 k fit in a row);
- MN-major, no swizzle: `(mn % T) * e + (mn // T) * SBO + (k % 8) * 16 + (k // 8) * LBO`;
- MN-major, swizzled: `(mn % TW) * e + (mn // TW) * LBO + (k % 8) * 16W + (k // 8) * SBO`.

Measured on an H100 (../docs/hopper-rules.md section 4; docs/wgmma.md;
examples/wgmma_tile.py, tools/gpu_wgmma_swizzles.py): GPU products equal these layouts' for
K-major and MN-major operands with no swizzle, 32B, 64B and 128B (TMA-loaded tiles of each
mode; K-major without a swizzle in both core-matrix packings), and a 128B tile at 1024 + 128
(the absolute-address swizzle) with base offset 0; with base offset b the row phase XORed
in is that of the absolute address less b, kept to the mode's bits (measured on a 128B tile
with b = 1 on an H100, and on an H200 on 64B and 32B tiles at 0 to 640 bytes past a
1024-byte boundary with b = 1, 2, 3, 5: tools/gpu_wgmma_base_offset.py). Without a swizzle
the field is not read (the H200's products were right with b = 1 and 5, tiles 0 to 384
bytes past the boundary).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tma import swizzle_bytes

# descriptor swizzle code -> kernels_ir.tma's mode name
DESCRIPTOR_SWIZZLES = {0: None, 1: "SWIZZLE_128B", 2: "SWIZZLE_64B", 3: "SWIZZLE_32B"}
SWIZZLE_CODES = {v: k for k, v in DESCRIPTOR_SWIZZLES.items()}
CHUNKS = {None: 1, "SWIZZLE_32B": 2, "SWIZZLE_64B": 4, "SWIZZLE_128B": 8}
M, K = 64, 16                          # the instruction's M and K (16-bit inputs)
N_VALUES = tuple(range(8, 257, 8))     # its N


@dataclass(frozen=True)
class GmmaLayout:
    """How a wgmma operand lies in shared memory: what its descriptor says besides the start
    address. `major` is "K" or "MN"; `swizzle` None or a TMA mode name; `lbo`, `sbo` in
    bytes (multiples of 16); `base_offset` 0..7."""

    major: str
    swizzle: str | None
    lbo: int
    sbo: int
    base_offset: int = 0

    def why_not(self) -> str | None:
        """Why a descriptor cannot say this, or None."""
        if self.major not in ("K", "MN"):
            return f"major must be 'K' or 'MN', got {self.major!r}"
        if self.swizzle not in SWIZZLE_CODES:
            return (f"swizzle must be None, 'SWIZZLE_32B', 'SWIZZLE_64B' or 'SWIZZLE_128B', "
                    f"got {self.swizzle!r}")
        for name, v in (("lbo", self.lbo), ("sbo", self.sbo)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v % 16 \
                    or v >> 4 >= 1 << 14:
                return f"{name} must be a multiple of 16 bytes below 2^18, got {v!r}"
        if self.base_offset not in range(8):
            return f"base_offset must be 0..7, got {self.base_offset!r}"
        return None

    def encode(self, start: int) -> int:
        """The 64-bit descriptor of this layout at shared byte address `start`."""
        return ((start & 0x3FFFF) >> 4) | (self.lbo >> 4) << 16 | (self.sbo >> 4) << 32 \
            | self.base_offset << 49 | SWIZZLE_CODES[self.swizzle] << 62

    def offsets(self, rows: int, esize: int) -> np.ndarray:
        """Byte offsets from the start address (before the swizzle) of elements (mn, k),
        an array (rows, 16)."""
        mn = np.arange(rows)[:, None]
        k = np.arange(K)[None, :]
        t = 16 // esize
        w = CHUNKS[self.swizzle]
        if self.major == "K":
            if self.swizzle is None:
                return (mn % 8) * 16 + (mn // 8) * self.sbo + (k % t) * esize \
                    + (k // t) * self.lbo
            return (mn % 8) * 16 * w + (mn // 8) * self.sbo + k * esize
        if self.swizzle is None:
            return (mn % t) * esize + (mn // t) * self.sbo + (k % 8) * 16 + (k // 8) * self.lbo
        return (mn % (t * w)) * esize + (mn // (t * w)) * self.lbo + (k % 8) * 16 * w \
            + (k // 8) * self.sbo

    def addresses(self, start, rows: int, esize: int) -> np.ndarray:
        """Absolute shared byte address of each element (mn, k), an array (rows, 16) (a
        start per warpgroup: (groups, rows, 16))."""
        start = np.asarray(start)
        return self.swizzled(start[..., None, None] + self.offsets(rows, esize))

    def swizzled(self, addresses: np.ndarray) -> np.ndarray:
        """The bytes the hardware reads for unswizzled addresses: the swizzle's row phase is
        that of the absolute address less the base offset, kept to the mode's bits
        (measured for 128B, 64B and 32B); without a swizzle the base offset is not read
        (measured too)."""
        if self.swizzle is None or self.base_offset == 0:
            return swizzle_bytes(addresses, self.swizzle)
        bits = {"SWIZZLE_32B": 1, "SWIZZLE_64B": 2, "SWIZZLE_128B": 3}[self.swizzle]
        mask = (1 << bits) - 1
        return addresses ^ ((((addresses >> 7) - self.base_offset) & mask) << 4)


@dataclass(frozen=True)
class GmmaDescriptor:
    """A wgmma operand's descriptor as the kernel computes it at run time (what a compiled
    program holds: nvcc's PTX ORs the shifted shared address with the constant fields):
    `value` a 64-bit expression, read bit by bit as the hardware reads it (`decode`), and
    `major` the instruction's transpose flag ("K" or "MN")."""

    value: object    # ExprLike
    major: str


def decode(value: int, major: str) -> tuple[int, GmmaLayout]:
    """(start address, layout) of a 64-bit descriptor."""
    start = (value & 0x3FFF) << 4
    lbo = ((value >> 16) & 0x3FFF) << 4
    sbo = ((value >> 32) & 0x3FFF) << 4
    return start, GmmaLayout(major, DESCRIPTOR_SWIZZLES[(value >> 62) & 3], lbo, sbo,
                             (value >> 49) & 7)


def accumulator_positions(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of D held by each thread of the warpgroup in each of its n / 2 f32
    registers, arrays (128, n / 2) (PTX ISA, wgmma D fragment for .f32 accumulators)."""
    t = np.arange(128)[:, None]
    i = np.arange(n // 2)[None, :]
    warp, lane = t // 32, t % 32
    row = 16 * warp + lane // 4 + 8 * ((i // 2) % 2)
    col = 8 * (i // 4) + 2 * (lane % 4) + i % 2
    return row, col


def a_fragment_positions() -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of A held by each thread of the warpgroup in each of its 8 registers'
    elements, arrays (128, 8) (PTX ISA, wgmma A fragment from registers, 16-bit types)."""
    t = np.arange(128)[:, None]
    j = np.arange(8)[None, :]
    warp, lane = t // 32, t % 32
    row = 16 * warp + lane // 4 + 8 * ((j // 2) % 2)
    col = 2 * (lane % 4) + j % 2 + 8 * (j // 4)
    return row, col

"""What Nsight Compute counts for TMA copies (sm_90), from the H100's measurements.

A TMA tensor load (UTMALDG) or 1-D bulk load (UBLKCP.S.G) is not an LSU request: it adds
nothing to any `l1tex__data_pipe_lsu_wavefronts_mem_shared*` or bank-conflict counter,
whatever its swizzle. Per copy of B bytes it counts one `sm__sass_inst_executed_op_tma_ld`
instruction and B / 4 `l1tex__data_bank_writes`; it reads
`l1tex__m_xbar2l1tex_read_bytes_pipe_tma` in whole 32-byte sectors: the copy is cut at
the 128-byte lines of its shared side, and each piece reads every global sector it touches
(a 128-byte row 16 bytes off the grid reads 160; a 16-byte row 32; piece_sectors)
(../docs/hopper-rules.md section 1; docs/tma.md). The instruction is one per issuing
*thread*: the TMA unit takes uniform registers, so where several lanes of a warp issue,
nvcc loops over them (an H100 counted 2,097,152 UBLKCP for SGEMM_CUDA kernel 12's 2,097,152
copies, issued by every lane; docs/validation.md). A TMA or bulk store (UTMASTG,
UBLKCP.G.S) is the mirror: one `sm__sass_inst_executed_op_tma_st`, B / 4
`l1tex__data_bank_reads`, and the sectors its pieces touch, by the same rule, in
`l1tex__m_l1tex2xbar_write_bytes_pipe_tma` (section 2; B where they are whole sectors).
Their value to a reader is the layout they write or read (kernels_ir.tma), which the
readers' own sites are costed through.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels_ir import i64
from kernels_ir.expr import cast, const
from kernels_ir.launch import eval_param_expr

from ..engine.batch import BatchPart, BatchResult
from .congruence import Residue

# op -> the Nsight class its instructions count in
BULK_CLASSES = {"tma_load": "tma_ld", "bulk_load": "tma_ld", "tma_store": "tma_st",
                "bulk_store": "tma_st"}
BANK_WORD = 4
SECTOR = 32     # bytes: the global side's granule
WAVEFRONT = 128
# Nsight Compute's names for what a site of TMA copies adds up to over a launch
COUNTERS = {
    "tma_ld": {"instructions": "sm__sass_inst_executed_op_tma_ld",
               "global_bytes": "l1tex__m_xbar2l1tex_read_bytes_pipe_tma",
               "bank_words": "l1tex__data_bank_writes"},
    "tma_st": {"instructions": "sm__sass_inst_executed_op_tma_st",
               "global_bytes": "l1tex__m_l1tex2xbar_write_bytes_pipe_tma",
               "bank_words": "l1tex__data_bank_reads"},
}
LSU_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared"


# wgmma: Nsight counts each warp's share of a warpgroup's HGMMA as one gmma instruction and
# the operands' bytes / 128 as wavefronts, never a conflict (../docs/hopper-rules.md 4)
GMMA_COUNTERS = {"instructions": "smsp__sass_inst_executed_op_shared_gmma",
                 "wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma",
                 "conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma"}
WARPS_PER_WARPGROUP = 4


def gmma_wavefronts(requests: int, operand_bytes: int) -> int:
    """Wavefronts of a wgmma site: its warp requests come 4 to a warpgroup instruction,
    each instruction reading `operand_bytes` at 128 bytes a wavefront."""
    return requests // WARPS_PER_WARPGROUP * operand_bytes // WAVEFRONT


def bulk_costs(patterns: np.ndarray, op: str) -> BatchResult:
    """The costs of TMA / bulk requests in the analysis's terms: one instruction of their
    Nsight class per issuing lane (wgmma: per warp request), no LSU wavefronts."""
    n = patterns.shape[0]
    zero = np.zeros(n, np.int64)
    issued = (patterns >= 0).sum(axis=1).astype(np.int64) if op in BULK_CLASSES else \
        np.ones(n, np.int64)
    return BatchResult(zero, zero.copy(), (BatchPart(BULK_CLASSES.get(op, "gmma"),
                                                     issued, zero, zero),))


def copies(patterns: np.ndarray, counts: np.ndarray) -> int:
    """Copies the requests issue: one per active lane."""
    return int(((patterns >= 0).sum(axis=1) * counts).sum())


@dataclass(frozen=True)
class TmaCounters:
    """A TMA or bulk copy site's figures over a launch, as Nsight Compute names them."""

    direction: str        # "tma_ld" (global to shared) or "tma_st" (shared to global)
    instructions: int     # sm__sass_inst_executed_op_tma_ld / _st (warp instructions)
    copies: int           # copies issued (one per issuing thread)
    bytes: int            # moved between shared and global memory
    bank_words: int       # l1tex__data_bank_writes (loads) / _reads (stores) added
    # whether the global bytes counter equals `global_bytes`: where each row starts within
    # its 32-byte sector is known (smemsim.launch.congruence); else it is at least that
    global_bytes_exact: bool
    global_bytes: int = 0  # the global side's bytes: whole sectors (at least, where inexact)

    def as_metrics(self) -> dict[str, int]:
        """Nsight Compute metric name -> value (LSU wavefronts: 0); the global bytes only
        where they are exact."""
        names = COUNTERS[self.direction]
        out = {names["instructions"]: self.instructions,
               names["bank_words"]: self.bank_words, LSU_WAVEFRONTS: 0}
        if self.global_bytes_exact:
            out[names["global_bytes"]] = self.global_bytes
        return out


def piece_sectors(shared: np.ndarray, glob: np.ndarray, nbytes: int) -> np.ndarray:
    """32-byte global sectors rows of `nbytes` read (loads) or write (stores), a row starting
    at shared byte `shared` and global byte `glob` (arrays, broadcast; only their places in
    a 128-byte line and a 32-byte sector matter): the copy is cut at the 128-byte lines of
    its shared side, and each piece touches the global sectors it spans. An H100 counted
    this for every copy measured (docs/tma.md): 144 bytes from global 16 read 192 into
    shared 0 and 160 into shared 144; a 128-byte piece 16 bytes off reads 5 sectors."""
    s = np.asarray(shared, np.int64) % WAVEFRONT
    g = np.asarray(glob, np.int64) % SECTOR
    first = np.minimum(nbytes, WAVEFRONT - s)
    n = (g + first + SECTOR - 1) // SECTOR
    g = (g + first) % SECTOR
    whole, tail = np.divmod(nbytes - first, WAVEFRONT)
    n = n + whole * ((g + WAVEFRONT + SECTOR - 1) // SECTOR)
    return n + np.where(tail > 0, (g + tail + SECTOR - 1) // SECTOR, 0)


def site_sectors(start, destinations: np.ndarray, copies_each: np.ndarray,
                 row_global: np.ndarray, row_shared: np.ndarray,
                 row_bytes: int) -> tuple[int, bool]:
    """(global sectors a site's copies read or write, whether exactly): copies_each[i]
    copies land at shared byte destinations[i], each starting in global memory where
    `start` (a congruence.Residue) says, with rows of `row_bytes` at `row_global` /
    `row_shared` bytes from the copy's global start / destination. Where the start's low
    five bits are not all known, every value they may take is tried: the fewest sectors
    (at least), exact when all agree."""
    value, known = start.low(5)
    phases = (value + (np.arange(1 << (5 - known)) << known))[None, :, None]
    # rows alike in the 128-byte line and 32-byte sector they start in count alike
    rows, weight = np.unique(np.stack([np.asarray(row_shared, np.int64) % WAVEFRONT,
                                       np.asarray(row_global, np.int64) % SECTOR]),
                             axis=1, return_counts=True)
    dst = np.asarray(destinations, np.int64)[:, None, None]
    per_copy = (piece_sectors(dst + rows[0], phases + rows[1], row_bytes)
                * weight).sum(axis=2)                      # (destinations, phases)
    low = per_copy.min(axis=1)
    exact = bool((per_copy.max(axis=1) == low).all())
    return int((low * np.asarray(copies_each, np.int64)).sum()), exact


def map_strides(m, launch) -> list[int]:
    """A tensor map's strides (elements, outermost first, the innermost's left out) at
    this launch."""
    return [int(eval_param_expr(s, launch.params)) for s in m.strides]


def box_start(stmt, launch, congruences):
    """What is known of the global byte (from the tensor's start) where a TMA copy's box
    starts (a congruence.Residue)."""
    m = stmt.tensor_map
    at = cast(stmt.coords[-1], i64)
    for c, stride in zip(stmt.coords[:-1], map_strides(m, launch)):
        at = at + cast(c, i64) * const(stride, i64)
    return congruences.expr(at * const(m.dtype.size, i64))


def global_rows(stmt, launch, congruences):
    """(what is known of the global byte where a TMA / bulk copy of `stmt` starts, its
    rows' global byte offsets from there, their shared byte offsets from its destination
    before any swizzle, which keeps a row's bytes in their 128-byte lines): a tensor map's
    box row by row (row-major over its outer dimensions), a bulk copy one row. The arrays
    start on 256 bytes (cudaMalloc), as the tensors do."""
    if hasattr(stmt, "tensor_map"):
        m = stmt.tensor_map
        offsets = np.zeros(1, np.int64)
        for extent, stride in zip(m.box[:-1], map_strides(m, launch)):
            offsets = (offsets[:, None] + np.arange(extent) * stride * m.dtype.size).ravel()
        start = box_start(stmt, launch, congruences)
        return start, offsets, np.arange(m.rows, dtype=np.int64) * m.pitch
    array = global_array(stmt)
    index = stmt.src_index if hasattr(stmt, "src_index") else stmt.dst_index
    start = congruences.expr(cast(index[0], i64) * const(array.dtype.size, i64))
    return start, np.zeros(1, np.int64), np.zeros(1, np.int64)


def global_array(stmt):
    """The global array a TMA or bulk copy reads or writes."""
    if hasattr(stmt, "tensor_map"):
        return stmt.tensor_map.array
    return stmt.src if hasattr(stmt, "src") else stmt.dst


def start_fault(stmt, start) -> str | None:
    """Why every copy of `stmt` stops the GPU, where `start` (its global start's known low
    bits) is off the 16-byte grid those copies need; else None."""
    off, _ = start.low(4)
    if not off:
        return None
    if hasattr(stmt, "tensor_map"):
        return (f"illegal instruction: every box of tensor map '{stmt.tensor_map.name}' "
                f"starts {off} bytes (mod 16) past a 16-byte boundary of global memory; TMA "
                "boxes start on 16 bytes (the innermost coordinate times the element size "
                "must be a multiple of 16)")
    return (f"misaligned address: every bulk copy starts {off} bytes (mod 16) past a 16-byte "
            f"boundary of '{global_array(stmt).name}'; a bulk copy's ends in global memory "
            "are 16-byte aligned (PTX ISA)")


def on_the_grid(start):
    """`start` where its low four bits are not all known: the copies that run start on 16
    bytes (the others fault), which narrows what the sectors may be."""
    return start if start.low(4)[1] == 4 else Residue(0, 4)


def destinations(patterns: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the shared bytes mod 128 a site's copies start at, how many copies start at each),
    from its requests (one copy per active lane)."""
    lanes = patterns >= 0
    at = patterns[lanes].astype(np.int64) % WAVEFRONT
    weight = np.broadcast_to(counts[:, None], patterns.shape)[lanes]
    tally = np.bincount(at, weights=weight, minlength=WAVEFRONT)
    used = np.flatnonzero(tally)
    return used, tally[used].astype(np.int64)


def tma_counters(op: str, copies: int, copy_bytes: int, sectors: tuple[int, bool]) \
        -> TmaCounters:
    """The figures of `copies` copies of `copy_bytes` of a site of `op`, each its own
    instruction; `sectors` is (the global sectors they read or write, whether exactly)
    from site_sectors."""
    total = copies * copy_bytes
    moved, exact = sectors
    return TmaCounters(BULK_CLASSES[op], copies, copies, total, total // BANK_WORD,
                       exact, moved * SECTOR)


def sum_tma(parts) -> TmaCounters | None:
    """One site's figures from those of its copies (an unrolled loop's), or None."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return TmaCounters(parts[0].direction, sum(p.instructions for p in parts),
                       sum(p.copies for p in parts), sum(p.bytes for p in parts),
                       sum(p.bank_words for p in parts),
                       all(p.global_bytes_exact for p in parts),
                       sum(p.global_bytes for p in parts))

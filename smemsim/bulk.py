"""What Nsight Compute counts for TMA copies (sm_90), from the H100's measurements.

A TMA tensor load (UTMALDG) or 1-D bulk load (UBLKCP.S.G) is not an LSU request: it adds
nothing to any `l1tex__data_pipe_lsu_wavefronts_mem_shared*` or bank-conflict counter,
whatever its swizzle. Per copy of B bytes it counts one `sm__sass_inst_executed_op_tma_ld`
instruction and B / 4 `l1tex__data_bank_writes`; it reads
`l1tex__m_xbar2l1tex_read_bytes_pipe_tma` in whole 32-byte sectors, B when every box row
covers whole sectors (rows a multiple of 32 bytes starting on a sector: a 128-byte row 16
bytes off the grid reads 160) and R + 16 per row of R = 16 mod 32 bytes under 128 (rows
start on 16 bytes, so such a row always spans one sector more: a 16-byte row reads 32; a
longer one is read in 128-byte pieces, whose sectors depend on where the row starts)
(../docs/hopper-rules.md section 1; docs/tma.md). The instruction is one per issuing
*thread*: the TMA unit takes uniform registers, so where several lanes of a warp issue,
nvcc loops over them (an H100 counted 2,097,152 UBLKCP for SGEMM_CUDA kernel 12's 2,097,152
copies, issued by every lane; docs/validation.md). A TMA or bulk store (UTMASTG,
UBLKCP.G.S) is the mirror: one `sm__sass_inst_executed_op_tma_st`, B / 4
`l1tex__data_bank_reads`, B bytes of
`l1tex__m_l1tex2xbar_write_bytes_pipe_tma` (section 2). Their value to a reader is the layout
they write or read (kernels_ir.tma), which the readers' own sites are costed through.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .banks import BatchPart, BatchResult

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
    # whether the global bytes counter equals `global_bytes` (rows of whole 32-byte sectors,
    # assuming they start on one, or of 16 mod 32 bytes); else it is larger
    global_bytes_exact: bool
    global_bytes: int = 0  # the global side's bytes: whole sectors (at least, where inexact)

    def as_metrics(self) -> dict[str, int]:
        """Nsight Compute metric name -> value (LSU wavefronts: 0); the global bytes only
        where they are `bytes`."""
        names = COUNTERS[self.direction]
        out = {names["instructions"]: self.instructions,
               names["bank_words"]: self.bank_words, LSU_WAVEFRONTS: 0}
        if self.global_bytes_exact:
            out[names["global_bytes"]] = self.global_bytes
        return out


def tma_counters(op: str, copies: int, copy_bytes: int, row_bytes: int) -> TmaCounters:
    """The figures of `copies` copies of `copy_bytes` (rows of `row_bytes`) of a site of
    `op`, each its own instruction. A load's rows of 16 mod 32 bytes under 128 (16-byte
    aligned in global memory, as TMA requires) each read one sector more than they hold."""
    total = copies * copy_bytes
    rows = total // row_bytes if row_bytes else 0
    odd = row_bytes % SECTOR == SECTOR // 2 and row_bytes < WAVEFRONT and \
        BULK_CLASSES[op] == "tma_ld"
    return TmaCounters(BULK_CLASSES[op], copies, copies, total, total // BANK_WORD,
                       row_bytes % SECTOR == 0 or odd,
                       total + rows * (SECTOR // 2) if odd else total)


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

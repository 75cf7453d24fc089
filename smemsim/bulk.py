"""What Nsight Compute counts for TMA copies (sm_90), from the H100's measurements.

A TMA tensor load (UTMALDG) is not an LSU request: it adds nothing to any
`l1tex__data_pipe_lsu_wavefronts_mem_shared*` or bank-conflict counter, whatever its
swizzle. Per copy of B bytes it counts one `sm__sass_inst_executed_op_tma_ld` instruction
(per warp that issues it) and B / 4 `l1tex__data_bank_writes`; it reads
`l1tex__m_xbar2l1tex_read_bytes_pipe_tma` in whole 32-byte sectors, B when every box row
covers whole sectors (rows a multiple of 32 bytes starting on a sector: a 16-byte row reads
32, a 128-byte row 16 bytes off the grid 160) (../docs/hopper-rules.md section 1;
docs/tma.md). Its value to a reader is the layout it writes (kernels_ir.tma), which the
readers' own sites are costed through.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .banks import BatchPart, BatchResult

BULK_OPS = ("tma_load",)
BANK_WORD = 4
SECTOR = 32     # bytes: the global read's granule
# Nsight Compute's names for what a site of TMA loads adds up to over a launch
TMA_LOAD_COUNTERS = {
    "instructions": "sm__sass_inst_executed_op_tma_ld",
    "bytes": "l1tex__m_xbar2l1tex_read_bytes_pipe_tma",
    "bank_writes": "l1tex__data_bank_writes",
    "wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared",
}


def bulk_costs(patterns: np.ndarray) -> BatchResult:
    """The costs of TMA requests in the analysis's terms: one `tma` instruction each, no
    LSU wavefronts."""
    n = patterns.shape[0]
    zero = np.zeros(n, np.int64)
    return BatchResult(zero, zero.copy(), (BatchPart("tma", np.ones(n, np.int64), zero, zero),))


def copies(patterns: np.ndarray, counts: np.ndarray) -> int:
    """Copies the requests issue: one per active lane."""
    return int(((patterns >= 0).sum(axis=1) * counts).sum())


@dataclass(frozen=True)
class TmaCounters:
    """A TMA load site's figures over a launch, as Nsight Compute names them."""

    instructions: int     # sm__sass_inst_executed_op_tma_ld (warp instructions)
    copies: int           # boxes copied (one per issuing thread)
    bytes: int            # delivered to shared memory (what the mbarriers receive)
    bank_writes: int      # l1tex__data_bank_writes added (one per 4-byte word)
    # whether l1tex__m_xbar2l1tex_read_bytes_pipe_tma equals `bytes` (box rows of whole
    # 32-byte sectors, assuming they start on one); else it is larger
    read_bytes_exact: bool

    def as_metrics(self) -> dict[str, int]:
        """Nsight Compute metric name -> value (LSU wavefronts: 0); the global read bytes
        only where they are `bytes`."""
        out = {TMA_LOAD_COUNTERS["instructions"]: self.instructions,
               TMA_LOAD_COUNTERS["bank_writes"]: self.bank_writes,
               TMA_LOAD_COUNTERS["wavefronts"]: 0}
        if self.read_bytes_exact:
            out[TMA_LOAD_COUNTERS["bytes"]] = self.bytes
        return out


def tma_counters(instructions: int, copies: int, box_bytes: int, row_bytes: int) \
        -> TmaCounters:
    """The figures of `copies` boxes of `box_bytes` (rows of `row_bytes`) issued by
    `instructions` warp instructions."""
    total = copies * box_bytes
    return TmaCounters(instructions, copies, total, total // BANK_WORD,
                       row_bytes % SECTOR == 0)

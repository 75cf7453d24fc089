"""smemsim: shared-memory bank conflicts and occupancy for CUDA kernels, without a GPU."""
from .analysis import Report, SiteReport, Totals, WorstRequest, analyze
from .arch import ARCHS, Arch, ArchError, get_arch
from .banks import (
    BankUse, BatchResult, Group, MergeDecision, RequestError, WarpRequest, WordUse,
    warp_request, warp_requests,
)
from .occupancy import (
    BlockSizeChoice, Curve, Occupancy, OccupancyError, available_dynamic_smem,
    best_block_size, kernel_occupancy, occupancy, what_if,
)

__all__ = [
    "ARCHS", "Arch", "ArchError", "BankUse", "BatchResult", "BlockSizeChoice", "Curve", "Group",
    "MergeDecision", "Occupancy", "OccupancyError", "Report", "RequestError", "SiteReport",
    "Totals", "WarpRequest", "WordUse", "WorstRequest", "analyze", "available_dynamic_smem",
    "best_block_size", "get_arch", "kernel_occupancy", "occupancy", "warp_request",
    "warp_requests", "what_if",
]

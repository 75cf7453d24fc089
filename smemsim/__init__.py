"""smemsim: shared-memory bank conflicts and occupancy for CUDA kernels, without a GPU."""
from .arch import ARCHS, Arch, ArchError, get_arch
from .banks import (
    BankUse, BatchResult, Group, MergeDecision, RequestError, WarpRequest, WordUse,
    warp_request, warp_requests,
)

__all__ = [
    "ARCHS", "Arch", "ArchError", "BankUse", "BatchResult", "Group", "MergeDecision",
    "RequestError", "WarpRequest", "WordUse", "get_arch", "warp_request", "warp_requests",
]

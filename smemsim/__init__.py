"""smemsim: shared-memory bank conflicts and occupancy for CUDA kernels, without a GPU."""
import importlib

# what `from smemsim import X` gives, by the module that defines it: imported when first
# asked for (PEP 562), so that `import smemsim` (and the console script, smemsim.console)
# loads nothing until it is used
_EXPORTS = {
    "launch.analysis": ("Report", "SiteReport", "Totals", "WorstRequest", "analyze"),
    "engine.arch": ("ARCHS", "Arch", "ArchError", "get_arch"),
    "engine.banks": ("BankUse", "Group", "MergeDecision", "RequestError", "WarpRequest",
                     "WordUse", "warp_request"),
    "engine.batch": ("BatchResult", "warp_requests"),
    "launch.occupancy": ("BlockSizeChoice", "Curve", "Occupancy", "OccupancyError",
                  "available_dynamic_smem", "best_block_size", "kernel_occupancy",
                  "occupancy", "what_if"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    """A public name, imported from its module on first use."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'smemsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})

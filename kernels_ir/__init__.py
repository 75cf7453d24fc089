"""kernels_ir: a small Python IR for CUDA kernels, with its builder, checks and interpreter.

It imports nothing from smemsim or gpu_backend: it is the language, not an analysis.
"""
from .builder import KernelBuilder, LocalRef, ReadOnlyRef, VectorRef
from .dtypes import ALL_DTYPES, DType, f32, f64, i8, i16, i32, u8, u16, u32, u64
from .errors import KernelError, KernelRuntimeError, SourceLoc
from .expr import (
    Expr, Op, Var, blockDim, blockIdx, cast, const, gridDim, lnot, logical_and, logical_or,
    select, smax, smin, threadIdx,
)
from .interpreter import (
    BarrierReached, GlobalAccess, PartialRun, SharedAccess, make_arrays, run,
)
from .launch import Launch, resolve_launch
from .printer import format_expr, format_kernel, format_stmt
from .stmt import (
    Assign, DeclareLocal, GlobalArray, If, Kernel, Let, Load, LocalArray, LocalStore, Loop,
    ScalarParam, SharedArray, SharedBuffer, Store, Sync, walk,
)

__all__ = [
    "ALL_DTYPES", "Assign", "BarrierReached", "GlobalAccess", "DType", "DeclareLocal", "Expr",
    "GlobalArray", "If", "Kernel",
    "KernelBuilder", "KernelError", "KernelRuntimeError", "Launch", "Let", "Load", "LocalArray",
    "LocalRef", "LocalStore", "Loop", "Op", "PartialRun", "ReadOnlyRef", "ScalarParam",
    "SharedAccess",
    "SharedArray", "SharedBuffer", "SourceLoc", "Store", "Sync", "Var", "VectorRef", "blockDim",
    "blockIdx", "cast", "const", "f32", "f64", "format_expr", "format_kernel", "format_stmt",
    "gridDim", "i16", "i32", "i8", "lnot", "logical_and", "logical_or", "make_arrays",
    "resolve_launch", "run", "select", "smax", "smin", "threadIdx", "u16", "u32", "u64", "u8",
    "walk",
]

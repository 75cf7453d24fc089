"""kernels_ir: a small Python IR for CUDA kernels, with its builder, checks and interpreter.

It imports nothing from smemsim or gpu_backend: it is the language, not an analysis.
"""
from .builder import KernelBuilder, LocalRef, ReadOnlyRef, VectorRef
from .dtypes import (
    ALL_DTYPES, DType, bf16, f16, f32, f64, from_storage, i8, i16, i32, i64, to_storage, u8, u16,
    u32, u64,
)
from .errors import KernelError, KernelRuntimeError, SourceLoc, located, source_lines
from .expr import (
    Expr, Op, Var, bitcast, blockDim, blockIdx, call, cast, const, gridDim, lnot, logical_and,
    logical_or, select, smax, smin, threadIdx,
)
from .inputs import make_arrays
from .interpreter import control_signatures, run
from .run_types import (
    BarrierReached, GlobalAccess, LayoutMismatch, PartialRun, Probe, SharedAccess,
    Unwritten, WarpBarrierReached,
)
from .launch import Launch, resolve_launch
from .layout import TMA_SWIZZLES, Swizzle
from .printer import format_expr, format_kernel, format_stmt
from .arrays import GlobalArray, LocalArray, ScalarParam, SharedArray, SharedBuffer
from .kernel import BuildResources, Kernel
from .stmt import (Assert, Return, TRAP_TEXT, MISALIGNED_TEXT, ACTIVE_MASK, ATOMIC_OPS,
                   FULL_MASK, Access, Assign, Atomic, DeclareLocal, If, Let, Load, LoadMatrix,
                   LocalStore, Loop, map_statements, Shuffle, Stmt, Store, StoreMatrix, Sync,
                   SyncReduce, SyncWarp, unsupported, walk, MmaSync, MMA_SHAPES,
                   MMA_TF32_SHAPES, MMA_INT8_SHAPES, MMA_F64_SHAPES)
from .stmt_async import (CommitGroup, CopyAsync, WaitGroup, TmaLoad, MbarrierInit,
                         MbarrierArrive, MbarrierWait, TmaStore, BulkLoad, BulkStore,
                         BulkCommit, BulkWait, FenceProxyAsync, Wgmma, WgmmaFence, WgmmaCommit,
                         WgmmaWait)
from .wgmma import GmmaDescriptor, GmmaLayout
from .tma import TensorMap

__all__ = [
    "BuildResources",
    "Access", "ALL_DTYPES", "Assert", "TRAP_TEXT", "MISALIGNED_TEXT", "Assign", "Atomic",
    "ATOMIC_OPS",
    "BarrierReached", "bf16",
    "blockDim", "f16", "from_storage", "to_storage", "FULL_MASK", "ACTIVE_MASK", "Shuffle",
    "SyncWarp", "MmaSync", "MMA_SHAPES", "MMA_TF32_SHAPES", "MMA_INT8_SHAPES", "MMA_F64_SHAPES",
    "bitcast", "blockIdx", "call", "cast", "CommitGroup", "control_signatures", "const",
    "CopyAsync", "DeclareLocal",
    "DType",
    "Expr", "f32", "f64", "format_expr", "format_kernel", "format_stmt", "GlobalAccess",
    "GlobalArray", "gridDim", "i16", "i32", "i64", "i8", "If", "Kernel", "KernelBuilder",
    "KernelError", "KernelRuntimeError", "Launch", "Let", "lnot", "Load", "LoadMatrix",
    "LocalArray", "LocalRef", "LocalStore", "located", "logical_and", "logical_or", "Loop",
    "make_arrays",
    "map_statements", "Op", "PartialRun", "Probe", "ReadOnlyRef", "Return", "resolve_launch", "run",
    "Unwritten",
    "ScalarParam", "select", "SharedAccess", "SharedArray", "SharedBuffer", "smax", "smin",
    "SourceLoc", "source_lines", "Stmt", "Store", "StoreMatrix", "Swizzle", "Sync", "SyncReduce", "threadIdx",
    "TMA_SWIZZLES", "u16", "u32", "u64",
    "u8", "unsupported", "Var", "VectorRef", "WaitGroup", "walk", "WarpBarrierReached",
    "TensorMap", "TmaLoad", "MbarrierInit", "MbarrierArrive", "MbarrierWait", "TmaStore",
    "BulkLoad", "BulkStore", "BulkCommit", "BulkWait", "FenceProxyAsync", "Wgmma",
    "WgmmaFence", "WgmmaCommit", "WgmmaWait", "GmmaLayout", "GmmaDescriptor", "LayoutMismatch",
]

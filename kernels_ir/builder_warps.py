"""The builder's warp collectives and tensor cores: `__syncwarp`, shuffles, votes and
`mma.sync`, with the checks of their lane masks and widths. Each function is a method of
KernelBuilder (`k`: the builder), bound in its class body, so users call `k.shfl(...)` (as
interpret_warps runs them).
"""
from __future__ import annotations

from . import builder
from .dtypes import f32, f64, i32, u32, u64
from .errors import KernelError, SourceLoc, caller_loc
from .expr import Expr, ExprLike, Op, Var, as_expr, cast, const
from .stmt import (FULL_MASK, MMA_F64_SHAPES, MMA_INT8_SHAPES, MMA_SHAPES, MMA_TF32_SHAPES,
                   SHUFFLE_MODES, VOTE_MODES, MmaSync, Shuffle, SyncWarp)


def syncwarp(self, mask: int | Expr = FULL_MASK) -> None:
    """`__syncwarp(mask);` (`mask` an int, or an integer expression: each lane's own, as
    a tile of cooperative groups narrower than the warp names its lanes)."""
    loc = caller_loc()
    if isinstance(mask, Expr):
        mask = cast(self._integer(mask, "a lane mask", loc), u32)
    else:
        mask = self._lane_mask(mask, loc)
    self._emit(SyncWarp(mask, loc))


def shfl(self, value: ExprLike, lane: ExprLike, mode: str = "idx",
         width: int | Expr = 32, mask: int | Expr = FULL_MASK,
         name: str | None = None) -> Expr:
    """`__shfl_sync(mask, value, lane, width)` (`mode` "up", "down" or "xor" for the
    other three): the value another lane of the warp holds. Values narrower than 32 bits
    travel as int, as in CUDA. `width` and `mask` are ints, or integer expressions
    evaluated at run time (a kernel parameter, `blockDim.x / 32`): each lane's width
    must then be a power of two up to 32, and a warp's lanes must agree on the mask."""
    loc = caller_loc()
    self._guard_condition("a shuffle")
    if mode in VOTE_MODES:
        return self._vote(value, lane, mode, width, mask, name, loc)
    if mode not in SHUFFLE_MODES:
        raise KernelError(f"shuffle mode must be one of "
                          f"{', '.join([*SHUFFLE_MODES, *VOTE_MODES])}, got {mode!r}",
                          kernel=self.name, loc=loc)
    if isinstance(width, Expr):
        width = cast(self._integer(width, "a shuffle width", loc), i32)
    elif width not in (1, 2, 4, 8, 16, 32):
        raise KernelError(f"shuffle width must be a power of two up to 32, got {width!r}",
                          kernel=self.name, loc=loc)
    if isinstance(mask, Expr):
        mask = cast(self._integer(mask, "a lane mask", loc), u32)
    else:
        mask = self._lane_mask(mask, loc)
    value = as_expr(value)
    dtype = value.dtype if value.dtype.size >= 4 else i32
    var = Var(self._fresh(name or "shfl"), dtype, "load")
    self._emit(Shuffle(var, mode, cast(value, dtype), cast(as_expr(lane), i32), width,
                       mask, loc))
    return builder.ReadOnlyRef(Op.VAR, dtype, (), var)


def vote(self, predicate: ExprLike, mode: str = "ballot", mask: int | Expr = FULL_MASK,
         name: str | None = None) -> Expr:
    """`__ballot_sync(mask, predicate)` (a u32: bit l for lane l executing it with a
    nonzero predicate), or `__any_sync` / `__all_sync` (mode "any", "all": an i32 0 or
    1), or `__match_any_sync(mask, value)` (mode "match_any": a u32 of the lanes whose
    value, as a u64, equals this lane's). The predicate converts to int as C converts
    it; the mask follows the shuffles' rules."""
    loc = caller_loc()
    self._guard_condition("a warp vote")
    if mode not in VOTE_MODES:
        raise KernelError(f"vote mode must be one of {', '.join(VOTE_MODES)}, got "
                          f"{mode!r}", kernel=self.name, loc=loc)
    return self._vote(predicate, 0, mode, 32, mask, name, loc)


def _vote(self, predicate, lane, mode: str, width, mask, name, loc) -> Expr:
    if not (isinstance(lane, int) and lane == 0 and width == 32):
        raise KernelError(f"a {mode} vote has no lane or width (lane 0, width 32 as the "
                          f"kernels file writes it), got {lane!r} and {width!r}",
                          kernel=self.name, loc=loc)
    if isinstance(mask, Expr):
        mask = cast(self._integer(mask, "a lane mask", loc), u32)
    else:
        mask = self._lane_mask(mask, loc)
    dtype = u32 if mode in ("ballot", "match_any") else i32
    var = Var(self._fresh(name or mode), dtype, "load")
    self._emit(Shuffle(var, mode, cast(as_expr(predicate), u64 if mode == "match_any"
                                       else i32), const(0), 32, mask, loc))
    return builder.ReadOnlyRef(Op.VAR, dtype, (), var)


def mma_sync(self, a, b, c, shape: str = "m16n8k16", atype: str = "f16",
             ctype: str = "f32", name: str | None = None) -> Expr:
    """`mma.sync.aligned.{shape}.row.col.{ctype}.{atype}.{atype}.{ctype}` (sm_80+): the
    warp's D = A x B + C. `a` and `b` are each lane's 32-bit words of two `atype`
    elements (f16 or bf16; 4 and 2 of them for m16n8k16, 2 and 1 for m16n8k8) or of one
    (tf32, m16n8k8: 4 and 2), `c` its
    accumulator: 2 u32 words of two f16 each (`ctype` "f16") or 4 f32 (`ctype` "f32").
    Returns D in the same form as C. All 32 lanes of the warp must execute it."""
    loc = caller_loc()
    self._guard_condition("an mma.sync")
    integer = atype in ("s8", "u8")
    shapes = MMA_TF32_SHAPES if atype == "tf32" else \
        MMA_INT8_SHAPES if integer else MMA_F64_SHAPES if atype == "f64" else MMA_SHAPES
    ctypes = ("s32",) if integer else ("f16", "f32") if atype == "f16" else \
        ("f64",) if atype == "f64" else ("f32",)
    if shape not in shapes or atype not in ("f16", "bf16", "tf32", "s8", "u8", "f64") or \
            ctype not in ctypes:
        raise KernelError(f"mma.sync {shape}.{ctype}.{atype}: the IR has m16n8k16 and "
                          "m16n8k8 of f16 (into f16 or f32) and bf16 (into f32), "
                          "m16n8k8 of tf32 (into f32), m16n8k16 of s8 and u8 (into "
                          "s32) and m8n8k4 of f64", kernel=self.name, loc=loc)
    words_a, words_b = shapes[shape]
    lanes_c = 2 if ctype in ("f16", "f64") else 4
    a, b, c = (builder.value_list(v) for v in (a, b, c))
    if (len(a), len(b), len(c)) != (words_a, words_b, lanes_c):
        raise KernelError(f"mma.sync {shape} takes {words_a} A words, {words_b} B words "
                          f"and {lanes_c} accumulators per lane ({ctype}), got "
                          f"{len(a)}, {len(b)} and {len(c)}", kernel=self.name, loc=loc)
    cdt = u32 if ctype == "f16" else i32 if ctype == "s32" else \
        f64 if ctype == "f64" else f32
    adt = f64 if atype == "f64" else u32   # (registers of A and B: words, or doubles)
    var = Var(self._fresh(name or "mma_d"), cdt, "load", lanes=lanes_c, indexed=True)
    self._emit(MmaSync(var, shape, atype, ctype,
                       tuple(cast(as_expr(x), adt) for x in a),
                       tuple(cast(as_expr(x), adt) for x in b),
                       tuple(cast(as_expr(x), cdt) for x in c), loc))
    return builder.VectorRef(Op.VAR, cdt, (), var)


def _integer(self, e: Expr, what: str, loc: SourceLoc) -> Expr:
    """`e`, which must have an integer type (`what` names it in the error)."""
    if e.dtype.is_float:
        raise KernelError(f"{what} is an integer, got an expression of type {e.dtype}",
                          kernel=self.name, loc=loc)
    return e


def _lane_mask(self, mask, loc: SourceLoc) -> int:
    """A nonzero 32-bit lane mask, or ACTIVE_MASK (0): `__activemask()`, the lanes that
    execute the operation."""
    if isinstance(mask, bool) or not isinstance(mask, int) or not 0 <= mask <= FULL_MASK:
        raise KernelError(f"a lane mask is a 32-bit int (0: __activemask()), got "
                          f"{mask!r}", kernel=self.name, loc=loc)
    return mask

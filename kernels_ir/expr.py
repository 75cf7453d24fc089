"""Expressions of the kernel IR: one generic node, one enum of ops, C typing at construction.

Python operators build nodes with C semantics: `//` and `%` truncate toward zero as C's `/`
and `%` do on integers, `/` is only for floating point, comparisons give an `i32` 0 or 1, and
every result has the type C's usual arithmetic conversions give (so `threadIdx.x - 1` is an
unsigned 32-bit value, as in CUDA). `==` and `!=` build comparisons too; use `same()` for
structural equality.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, Union

from .dtypes import DType, f32, f64, i32, integer_promote, promote, u32, u64
from .errors import KernelError, caller_loc


class Op(enum.Enum):
    """Every expression operation."""

    # (members are singletons, a pickled one included: the identity's hash, in C, serves the
    # interpreter's lookups by op at every node it evaluates)
    __hash__ = object.__hash__

    # -- leaves
    CONST = "const"          # arg: the Python value
    PARAM = "param"          # arg: parameter name
    SPECIAL = "special"      # arg: ("threadIdx" | "blockIdx" | "blockDim" | "gridDim", axis)
    VAR = "var"              # arg: Var (a local, loop variable or load result)
    # -- reads of per-thread state
    COMPONENT = "component"  # src: (VAR of a vector var,), arg: element index
    LOCAL_READ = "local_read"  # src: indices, arg: LocalArray
    # -- arithmetic (binary)
    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"                # C division: truncates toward zero on integers
    MOD = "%"                # C remainder: sign of the dividend
    SHL = "<<"
    SHR = ">>"
    AND = "&"
    OR = "|"
    XOR = "^"
    MIN = "min"
    MAX = "max"
    # -- comparisons (result i32 0/1)
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    EQ = "=="
    NE = "!="
    # -- logical (result i32 0/1; both sides are pure, so C's short circuit changes nothing)
    LAND = "&&"
    LOR = "||"
    # -- unary
    NEG = "neg"
    INVERT = "~"
    LNOT = "!"
    # -- other
    SELECT = "select"        # src: (cond, a, b)
    CALL = "call"            # a math function: src: its arguments, arg: name (MATH)
    CAST = "cast"            # src: (x,), dtype: target
    BITCAST = "bitcast"      # src: (x,), dtype: target of x's size: the same bits


BINARY_OPS = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MOD, Op.SHL, Op.SHR, Op.AND, Op.OR,
                        Op.XOR, Op.MIN, Op.MAX})
COMPARE_OPS = frozenset({Op.LT, Op.LE, Op.GT, Op.GE, Op.EQ, Op.NE})
INTEGER_ONLY_OPS = frozenset({Op.MOD, Op.SHL, Op.SHR, Op.AND, Op.OR, Op.XOR, Op.INVERT})
AXES = ("x", "y", "z")

ExprLike = Union["Expr", int, float]


MAX_DEPTH = 200   # levels of one expression (each walker uses about 3 frames per level)


class Var:
    """A per-thread variable: a local, a loop variable, or the destination of a load.

    Identity matters (two locals may share a name in different scopes); `lanes` > 1 marks a
    vector register filled by a vector load.
    """

    KINDS = ("local", "loop", "load")

    def __init__(self, name: str, dtype: DType, kind: str, lanes: int = 1,
                 indexed: bool = False):
        assert kind in self.KINDS
        self.name, self.dtype, self.kind, self.lanes = name, dtype, kind, lanes
        # elements print as name[i] (a register array, e.g. an ldmatrix fragment), not .x
        self.indexed = indexed or lanes > 4

    def __repr__(self) -> str:
        return f"Var({self.name}: {self.dtype}{'x%d' % self.lanes if self.lanes > 1 else ''})"


@dataclass(frozen=True, eq=False)
class Expr:
    """One expression node: op, result type, sources and an op-specific argument."""

    op: Op
    dtype: DType
    src: tuple["Expr", ...] = ()
    arg: Any = None

    def __post_init__(self) -> None:
        # every walker of expressions (evaluation, printing, slicing) recurses: an expression
        # nested deeper than MAX_DEPTH is refused where it is built, not a RecursionError
        depth = 1 + max((s.depth for s in self.src), default=0)
        if depth > MAX_DEPTH:
            raise KernelError(f"an expression nested {depth} levels deep (a chain of "
                              f"{depth} operations); smemsim reads at most {MAX_DEPTH}",
                              loc=caller_loc())
        object.__setattr__(self, "depth", depth)
        # its nodes as a tree (a node shared by several parents counted at each): what a
        # walk that does not remember the nodes it has seen visits
        object.__setattr__(self, "tree", 1 + sum(s.tree for s in self.src))

    # ---- structural identity (== builds a comparison node, so these are the real ones)
    def key(self) -> tuple:
        """A hashable structural key: equal keys mean the same computation."""
        arg = self.arg
        if isinstance(arg, (Var,)) or hasattr(arg, "uid"):
            arg = ("obj", id(arg))
        return (self.op, self.dtype.name, arg, tuple(s.key() for s in self.src))

    def same(self, other: "Expr") -> bool:
        """Structural equality."""
        return isinstance(other, Expr) and self.key() == other.key()

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        raise KernelError(
            "an IR expression has no Python truth value; use `with k.if_(cond):` or "
            "`select(cond, a, b)` instead of Python `if`/`and`/`or`", loc=caller_loc())

    def walk(self):
        """This node and all nodes below it, parents first."""
        # (a stack, not nested generators: those cost a frame a level for every node)
        stack = [self]
        pop, push = stack.pop, stack.extend
        while stack:
            n = pop()
            yield n
            if n.src:
                push(reversed(n.src))

    # ---- arithmetic
    def __add__(self, o): return binary(Op.ADD, self, o)
    def __radd__(self, o): return binary(Op.ADD, o, self)
    def __sub__(self, o): return binary(Op.SUB, self, o)
    def __rsub__(self, o): return binary(Op.SUB, o, self)
    def __mul__(self, o): return binary(Op.MUL, self, o)
    def __rmul__(self, o): return binary(Op.MUL, o, self)
    def __floordiv__(self, o): return binary(Op.DIV, self, o, int_div=True)
    def __rfloordiv__(self, o): return binary(Op.DIV, o, self, int_div=True)
    def __truediv__(self, o): return binary(Op.DIV, self, o, float_div=True)
    def __rtruediv__(self, o): return binary(Op.DIV, o, self, float_div=True)
    def __mod__(self, o): return binary(Op.MOD, self, o)
    def __rmod__(self, o): return binary(Op.MOD, o, self)
    def __lshift__(self, o): return binary(Op.SHL, self, o)
    def __rlshift__(self, o): return binary(Op.SHL, o, self)
    def __rshift__(self, o): return binary(Op.SHR, self, o)
    def __rrshift__(self, o): return binary(Op.SHR, o, self)
    def __and__(self, o): return binary(Op.AND, self, o)
    def __rand__(self, o): return binary(Op.AND, o, self)
    def __or__(self, o): return binary(Op.OR, self, o)
    def __ror__(self, o): return binary(Op.OR, o, self)
    def __xor__(self, o): return binary(Op.XOR, self, o)
    def __rxor__(self, o): return binary(Op.XOR, o, self)
    def __lt__(self, o): return binary(Op.LT, self, o)
    def __le__(self, o): return binary(Op.LE, self, o)
    def __gt__(self, o): return binary(Op.GT, self, o)
    def __ge__(self, o): return binary(Op.GE, self, o)
    def __eq__(self, o): return binary(Op.EQ, self, o)  # type: ignore[override]
    def __ne__(self, o): return binary(Op.NE, self, o)  # type: ignore[override]
    def __neg__(self): return unary(Op.NEG, self)
    def __invert__(self): return unary(Op.INVERT, self)

    def __repr__(self) -> str:
        from .printer import format_expr
        return f"Expr({format_expr(self)})"


# ------------------------------------------------------------------ constructors

def const(value: int | float, dtype: DType | None = None) -> Expr:
    """A typed constant. Python ints are `i32` when they fit (else u32, u64), floats `f32`."""
    if isinstance(value, bool):
        value = int(value)
    if dtype is None:
        if isinstance(value, int):
            if i32.min <= value <= i32.max:
                dtype = i32
            elif 0 <= value <= u32.max:
                dtype = u32
            elif 0 <= value <= u64.max:
                dtype = u64
            else:
                raise KernelError(f"integer constant {value} fits no IR type", loc=caller_loc())
        elif isinstance(value, float):
            dtype = f32
        else:
            raise KernelError(f"cannot use {value!r} ({type(value).__name__}) in a kernel "
                              "expression", loc=caller_loc())
    if dtype.is_float:
        value = float(value)
        if math.isnan(value):
            # infinities are constants kernels use (`float m = -INFINITY;`); a NaN constant
            # compares unequal to itself and is almost always a mistake
            raise KernelError(f"constant {value} is not a number", loc=caller_loc())
    else:
        if isinstance(value, float):
            if not value.is_integer():
                raise KernelError(f"constant {value} is not an integer of type {dtype}",
                                  loc=caller_loc())
            value = int(value)
        if not dtype.min <= value <= dtype.max:
            raise KernelError(f"constant {value} does not fit {dtype}", loc=caller_loc())
    return Expr(Op.CONST, dtype, (), value)


def as_expr(value: ExprLike, like: Expr | None = None) -> Expr:
    """Turn a Python number into a constant; a float takes the float type of `like`."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, float) and like is not None and like.dtype.is_float:
        return const(value, like.dtype)
    return const(value)


def binary(op: Op, a: ExprLike, b: ExprLike, *, int_div: bool = False,
           float_div: bool = False) -> Expr:
    """A binary node with C's result type."""
    a = as_expr(a, b if isinstance(b, Expr) else None)
    b = as_expr(b, a)
    if op in INTEGER_ONLY_OPS and (a.dtype.is_float or b.dtype.is_float):
        raise KernelError(f"operator {op.value} needs integer operands, got {a.dtype} and "
                          f"{b.dtype}", loc=caller_loc())
    if op in (Op.SHL, Op.SHR):
        dtype = integer_promote(a.dtype)  # a shift has the promoted type of its left operand
    else:
        dtype = promote(a.dtype, b.dtype)
    if int_div and dtype.is_float:
        raise KernelError("`//` is C integer division; use `/` for floating point",
                          loc=caller_loc())
    if float_div and not dtype.is_float:
        raise KernelError("`/` is floating-point division; use `//` for C integer division "
                          "(it truncates toward zero, as C does)", loc=caller_loc())
    if op in (Op.DIV, Op.MOD) and b.op is Op.CONST and b.arg == 0 and not dtype.is_float:
        raise KernelError("integer division by the constant 0", loc=caller_loc())
    if op in COMPARE_OPS:
        return Expr(op, i32, (a, b))
    return Expr(op, dtype, (a, b))


def unary(op: Op, a: ExprLike) -> Expr:
    """A unary node: NEG and INVERT keep the promoted type, LNOT gives i32."""
    a = as_expr(a)
    if op is Op.INVERT and a.dtype.is_float:
        raise KernelError("operator ~ needs an integer operand", loc=caller_loc())
    if op is Op.LNOT:
        return Expr(op, i32, (a,))
    return Expr(op, integer_promote(a.dtype), (a,))


def select(cond: ExprLike, a: ExprLike, b: ExprLike) -> Expr:
    """C's `cond ? a : b` (both sides are evaluated; use an if-guard for guarded loads)."""
    cond = as_expr(cond)
    a = as_expr(a, b if isinstance(b, Expr) else None)
    b = as_expr(b, a)
    return Expr(Op.SELECT, promote(a.dtype, b.dtype), (cond, a, b))


# Math functions on floats: name -> number of arguments. CUDA spells them with an `f` suffix
# for float (expf) and without for double (exp); rsqrt is rsqrtf / rsqrt.
MATH = {"exp": 1, "exp2": 1, "log": 1, "log2": 1, "sqrt": 1, "rsqrt": 1, "sin": 1, "cos": 1,
        "tanh": 1, "fabs": 1, "floor": 1, "ceil": 1, "fma": 3, "fmin": 2, "fmax": 2,
        "cosh": 1, "sinh": 1, "tan": 1, "atan": 1, "asin": 1, "acos": 1, "atan2": 2,
        "log10": 1, "log1p": 1, "expm1": 1, "cbrt": 1, "erf": 1, "erfc": 1, "hypot": 2,
        "exp10": 1, "rint": 1, "trunc": 1,
        "pow": 2, "round_f16": 1, "round_bf16": 1, "f16_bits": 1, "f16_from_bits": 1}
# a float rounded to a 16-bit float and widened back (CUDA's `(float)(__half)x`, `(floatX)x`
# as a value): registers hold no 16-bit floats, so the value keeps float type, its precision
# the 16-bit one's
ROUNDINGS = ("round_f16", "round_bf16")
# a half's bits and back (CUDA's `__half_as_ushort(__float2half(x))`, `__ushort_as_half`): the
# 16 bits of the value rounded to f16, as a u32; a float from the low 16 bits of a u32. A
# register holds a half as its float value, so fragments of packed halves need these.
HALF_BITS = ("f16_bits", "f16_from_bits")
# an integer quotient that must be exact: a byte offset as elements of a view that starts
# there (`(float *)(smem + C * sizeof(half))` with C known only at the launch). A remainder
# is a misaligned view, which faults on the GPU at its first access; never a rounded index.
EXACT_DIV = "exact_div"
# functions of integers: name -> arguments. popc, clz and ffs give an i32 (CUDA's __popc,
# __clz, __ffs of a 32-bit operand, __popcll, __clzll, __ffsll of a 64-bit one), brev the
# operand's type (__brev, __brevll)
BIT_FUNCTIONS = ("popc", "clz", "ffs", "brev")
INTEGER_MATH = {EXACT_DIV: 2, **{name: 1 for name in BIT_FUNCTIONS}}


def call(name: str, *args: ExprLike) -> Expr:
    """A math function of floating-point arguments (`call("exp", x)` is CUDA's expf(x) for a
    float x); integer arguments convert to float, as C does when it calls expf. Those of
    INTEGER_MATH take integers: `call("exact_div", bytes, 4)`, `call("popc", mask)`."""
    arity = MATH.get(name, INTEGER_MATH.get(name))
    if arity is None:
        raise KernelError(f"no math function {name!r}; the IR has "
                          f"{', '.join([*MATH, *INTEGER_MATH])}", loc=caller_loc())
    if len(args) != arity:
        raise KernelError(f"{name} takes {arity} argument(s), got {len(args)}",
                          loc=caller_loc())
    exprs = [as_expr(a) for a in args]
    if name == EXACT_DIV:
        a, n = exprs
        if a.dtype.is_float or n.op is not Op.CONST or not isinstance(n.arg, int) or n.arg < 1:
            raise KernelError(f"exact_div takes an integer and a positive int constant, got "
                              f"{a.dtype} and {n!r}", loc=caller_loc())
        return Expr(Op.CALL, a.dtype, (a, const(n.arg, a.dtype)), name)
    if name in INTEGER_MATH:
        a = exprs[0]
        if a.dtype.is_float:
            raise KernelError(f"{name} takes an integer, got {a.dtype}", loc=caller_loc())
        # on the operand's 32 or 64 bits, unsigned (the intrinsics' own parameter types)
        a = cast(a, u64 if a.dtype.size == 8 else u32)
        return Expr(Op.CALL, a.dtype if name == "brev" else i32, (a,), name)
    if name == "f16_bits":
        return Expr(Op.CALL, u32, (cast(exprs[0], f32),), name)
    if name == "f16_from_bits":
        return Expr(Op.CALL, f32, (cast(exprs[0], u32),), name)
    dtype = f32
    for e in exprs:
        if e.dtype.is_float:
            dtype = promote(dtype, e.dtype)
    if name in ROUNDINGS:   # a float or a double, rounded to 16 bits: held as a float
        if dtype not in (f32, f64):
            raise KernelError(f"{name} rounds a float or a double, not {dtype}",
                              loc=caller_loc())
        return Expr(Op.CALL, f32, tuple(cast(e, dtype) for e in exprs), name)
    return Expr(Op.CALL, dtype, tuple(cast(e, dtype) for e in exprs), name)


def bitcast(x: ExprLike, dtype: DType) -> Expr:
    """The same bits read as another type of the same size (CUDA's `__int_as_float`,
    `__float_as_int`, a `memcpy` between an int4 and a float[4], C++20's std::bit_cast)."""
    x = as_expr(x)
    if x.dtype.storage_only or dtype.storage_only or x.dtype.size != dtype.size or \
            x.dtype.size not in (4, 8):
        raise KernelError(f"bitcast of {x.dtype} to {dtype}: the IR reinterprets 4- and "
                          "8-byte values as another type of their size", loc=caller_loc())
    if x.dtype == dtype:
        return x
    return Expr(Op.BITCAST, dtype, (x,))


def smin(a: ExprLike, b: ExprLike) -> Expr:
    """CUDA's `min(a, b)`."""
    return binary(Op.MIN, a, b)


def smax(a: ExprLike, b: ExprLike) -> Expr:
    """CUDA's `max(a, b)`."""
    return binary(Op.MAX, a, b)


def cast(x: ExprLike, dtype: DType) -> Expr:
    """C's `(dtype) x`: wraps integers, truncates floats toward zero."""
    x = as_expr(x)
    if dtype.storage_only:
        raise KernelError(f"cannot cast to {dtype}: it is a storage type (a store into an "
                          f"{dtype} array rounds to it; values are f32)", loc=caller_loc())
    if x.dtype == dtype:
        return x
    return Expr(Op.CAST, dtype, (x,))


def lnot(x: ExprLike) -> Expr:
    """C's `!x`."""
    return unary(Op.LNOT, x)


def logical_and(a: ExprLike, b: ExprLike) -> Expr:
    """C's `a && b` (expressions are pure, so evaluating both sides changes nothing)."""
    return Expr(Op.LAND, i32, (as_expr(a), as_expr(b)))


def logical_or(a: ExprLike, b: ExprLike) -> Expr:
    """C's `a || b`."""
    return Expr(Op.LOR, i32, (as_expr(a), as_expr(b)))


class _Dim3:
    """threadIdx / blockIdx / blockDim / gridDim: `.x`, `.y`, `.z` are unsigned 32-bit."""

    def __init__(self, name: str):
        self._name = name
        for axis in AXES:
            object.__setattr__(self, axis, Expr(Op.SPECIAL, u32, (), (name, axis)))

    def __repr__(self) -> str:
        return self._name


threadIdx = _Dim3("threadIdx")
blockIdx = _Dim3("blockIdx")
blockDim = _Dim3("blockDim")
gridDim = _Dim3("gridDim")

"""What the CUDA lowering shares: the type tables, the symbols a scope holds, constant
folding, and the small questions it asks of the syntax tree."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kernels_ir import (
    Expr,
    KernelError,
    Op,
    const,
)
from kernels_ir.dtypes import BY_NAME
from kernels_ir.evaluate import Evaluator
from kernels_ir.expr import binary
from kernels_ir.semantics import LaneFault

from .parse import function_declarator, text, walk

TYPES = {
    "float": "f32", "double": "f64", "int": "i32", "signed int": "i32", "signed": "i32",
    "unsigned int": "u32", "unsigned": "u32", "uint32_t": "u32", "int32_t": "i32",
    "uint": "u32", "unsigned char": "u8", "uint8_t": "u8", "char": "i8", "signed char": "i8",
    "int8_t": "i8", "short": "i16", "int16_t": "i16", "unsigned short": "u16",
    "uint16_t": "u16", "unsigned long long": "u64", "unsigned long long int": "u64",
    "uint64_t": "u64", "size_t": "u64", "bool": "i32", "long": "i64", "long int": "i64",
    "long long": "i64", "long long int": "i64", "signed long long": "i64", "int64_t": "i64",
    "ptrdiff_t": "i64", "intptr_t": "i64", "unsigned long": "u64", "unsigned long int": "u64",
    "uintptr_t": "u64",
    "clock_t": "i32", "__half": "f16", "half": "f16", "__nv_bfloat16": "bf16",
    "__nv_fp8_storage_t": "u8",   # cuda_fp8.h: an 8-bit float's bits
    "nv_bfloat16": "bf16",
}
# CUDA's vector types: (element type, lanes). A vector variable or array element is held as
# an innermost dimension of `lanes` elements; whole-vector accesses are the builder's width-N
# loads and stores (LDS.64 / LDS.128), `.x .y .z .w` one element of it. A 3-lane vector
# (float3: 12 bytes, aligned to 4) has no such instruction: nvcc moves it lane by lane.
VECTORS = {f"{c}{n}": (t, n)
           for c, t in (("float", "f32"), ("int", "i32"), ("uint", "u32"), ("double", "f64"))
           for n in (2, 3, 4) if not (t == "f64" and n == 4)}
# vectors of 8- and 16-bit integers (`uchar4` pixels): their lanes held as ints
VECTORS.update({f"{c}{n}": (t, n) for c, t in (("uchar", "u8"), ("char", "i8"),
                                               ("ushort", "u16"), ("short", "i16"))
                for n in (2, 4)})
# the pairs of 16-bit floats (cuda_fp16.h, cuda_bf16.h): two lanes, each held as its float
VECTORS.update({name: (t, 2) for name, t in (
    ("half2", "f16"), ("__half2", "f16"), ("__nv_bfloat162", "bf16"), ("nv_bfloat162", "bf16"))})
# dim3 (and the uint3 of threadIdx and blockIdx) in device code: three unsigned lanes
# (`dim3 g = gridDim;`, a `dim3 block_dim` parameter given blockDim, Parboil bfs)
VECTORS["dim3"] = ("u32", 3)
COMPONENTS = "xyzw"
ATOMICS = {f"atomic{n.capitalize() if n != 'cas' else 'CAS'}": n for n in
           ("add", "sub", "min", "max", "and", "or", "xor", "inc", "dec", "exch", "cas")}
ATOMICS.update({f"{name}_block": kind for name, kind in list(ATOMICS.items())})
# CUDA's math functions (and the fast intrinsics, which the IR computes exactly) -> the IR's
MATH = {"sqrtf": "sqrt", "sqrt": "sqrt", "expf": "exp", "exp": "exp", "logf": "log",
        "log": "log", "exp2f": "exp2", "exp2": "exp2", "log2f": "log2", "log2": "log2",
        "rsqrtf": "rsqrt", "rsqrt": "rsqrt", "sinf": "sin", "sin": "sin", "cosf": "cos",
        "cos": "cos", "fabsf": "fabs", "fabs": "fabs", "__expf": "exp", "tanhf": "tanh",
        "tanh": "tanh", "floorf": "floor", "floor": "floor", "ceilf": "ceil", "ceil": "ceil",
        "fmaf": "fma", "fma": "fma", "powf": "pow", "pow": "pow", "__powf": "pow",
        "__logf": "log", "__log2f": "log2", "__fsqrt_rn": "sqrt", "__sinf": "sin",
        "__cosf": "cos", "exp2f_": "exp2", "__exp2f": "exp2", "__fmaf_rn": "fma",
        "__tanf": "tan", "__exp10f": "exp10", "__log10f": "log10"}
MATH.update({f"{name}{suffix}": name for name in (
    "cosh", "sinh", "tan", "atan", "asin", "acos", "atan2", "log10", "log1p", "expm1", "cbrt",
    "erf", "erfc", "hypot", "exp10", "rint", "trunc") for suffix in ("", "f")})
# the float forms (`sqrtf`, `__expf`, `fminf`): C converts a double argument to float first
FLOAT_MATH = {name for name in MATH if name.endswith("f") or name.startswith("__")} | \
    {"fminf", "fmaxf"}
CACHE_STORES = {"__stwb", "__stcg", "__stcs", "__stwt"}
MINMAX = {"min": "min", "max": "max", "fminf": "min", "fmaxf": "max", "fmin": "min",
          "fmax": "max", "umin": "min", "umax": "max", "llmin": "min", "llmax": "max"}
MAX_INLINE_DEPTH = 32
SIZES = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2, "i32": 4, "u32": 4,
          "f32": 4, "u64": 8, "i64": 8, "f64": 8}


def c_type_size(name: str) -> int | None:
    """sizeof of a basic or vector CUDA type named as written (`float`, `unsigned int`,
    `float4`, `__half2`), or None; `bool` is C's one byte (the IR holds its values as i32)."""
    if name == "bool":
        return 1
    if name in TYPES:
        return SIZES.get(TYPES[name])
    if name in VECTORS:
        dtype, lanes = VECTORS[name]
        return SIZES[dtype] * lanes
    return _WIDE_VECTORS.get(name)


# CUDA's vector types of 8-byte elements the IR has no vector of (their sizeof only)
_WIDE_VECTORS = {f"{t}{n}": 8 * n
                 for t in ("double", "longlong", "ulonglong", "long", "ulong") for n in (3, 4)}


@dataclass
class Sym:
    """What a CUDA name denotes in a scope."""

    kind: str            # local, param, loop, const, global, shared, register, smem_address,
    #                      pointer, ref, local_pointer (`&x` of a local scalar), texture, ...
    value: object = None  # the Expr (scalars), the builder's array, or the pointer's target
    dtype: str = "i32"   # IR type name (of the elements, for arrays and vectors)
    lanes: int = 1       # 2 or 4 for a vector type: the innermost dimension holds the lanes
    rank: int = 1        # an array's dimensions
    place: tuple | None = None  # smem_address: (array Sym, indices); pointer: (array Sym,
    #                             leading indices, offset LocalRef)
    narrow: str | None = None  # a local declared f16/bf16: held as float, every value it is
    #                            given rounded to that type (C's conversion on assignment)
    pun: str | None = None   # an array read through a vector of another element type of the
    #                          same size (`*reinterpret_cast<const int4*>(float_ptr)`): that
    #                          type; loads are bit-cast to it, stores from it
    boolean: bool = False    # an array of bool: one byte an element in memory (u8), every
    #                          value stored as C converts to bool (0 or 1)


class _Constant(Evaluator):
    """Evaluates an expression with no run-time leaves (a compile-time constant)."""

    def leaf(self, e, idx):
        raise _NotConstant()


class _NotConstant(Exception):
    pass


def fold(e: Expr):
    """The value of a compile-time constant expression, or None if it is not one."""
    try:
        v = _Constant().eval(e, np.zeros(1, dtype=np.int64))[0]
    except (_NotConstant, LaneFault, KernelError, OverflowError):
        return None
    return float(v) if e.dtype.is_float else int(v)


def single_return(body):
    """The expression of a body that is just `return expr;`, else None."""
    if body is None:
        return None
    statements = [c for c in body.named_children if c.type != "comment"]
    if len(statements) == 1 and statements[0].type == "return_statement" and \
            statements[0].named_children:
        return statements[0].named_children[0]
    return None


def truth_context(node) -> bool:
    """Whether a pointer (or NULL) stands where only its truth is read: a condition, `!p`,
    `p && ...`, `p == NULL`, `p != nullptr`."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type in ("condition_clause", "if_statement", "while_statement"):
        return True
    if parent.type == "conditional_expression":
        return parent.child_by_field_name("condition") == node
    if parent.type == "unary_expression" and parent.child_by_field_name("operator").type == "!":
        return True
    if parent.type == "binary_expression":
        op = parent.child_by_field_name("operator").type
        if op in ("&&", "||"):
            return True
        if op in ("==", "!="):
            other = parent.child_by_field_name("right") \
                if parent.child_by_field_name("left") == node else \
                parent.child_by_field_name("left")
            return other.type in ("null", "nullptr", "identifier") or text(other) in ("0", "NULL")
    return False


def constant_factor(e: Expr, defined=None) -> int:
    """A positive integer every value of the integer expression is a multiple of (1 when
    nothing is known): products multiply, sums and selections take the gcd, shifts by
    constants scale; a local set once (`defined`: its Var -> its value) is its value's."""
    v = fold(e)
    if v is not None:
        return abs(int(v)) if isinstance(v, int) and v else 0
    if e.dtype.is_float:
        return 1
    f = lambda x: constant_factor(x, defined)   # noqa: E731
    if e.op is Op.VAR and defined and e.arg in defined:
        return f(defined[e.arg])
    if e.op is Op.MUL:
        return f(e.src[0]) * f(e.src[1])
    if e.op in (Op.ADD, Op.SUB):
        return math.gcd(f(e.src[0]), f(e.src[1])) or 1
    if e.op is Op.SELECT:   # either side's value: what both are multiples of
        return math.gcd(f(e.src[1]), f(e.src[2])) or 1
    if e.op is Op.SHL and isinstance(fold(e.src[1]), int) and 0 <= fold(e.src[1]) < 64:
        return f(e.src[0]) << fold(e.src[1])
    if e.op is Op.CAST and not e.src[0].dtype.is_float and e.dtype.size >= e.src[0].dtype.size:
        return f(e.src[0])
    return 1


def exact_quotient(e: Expr, n: int, defined=None) -> Expr | None:
    """`e / n` when every value of `e` is a multiple of n (a byte offset `C * 2` as bf16
    elements: `C * 2 / 2`), else None: a reinterpretation never rounds an address."""
    if n == 1:
        return e
    v = fold(e)
    if v is not None:
        return const(v // n) if isinstance(v, int) and v % n == 0 else None
    factor = constant_factor(e, defined)
    if factor % n:
        return None
    return binary(Op.DIV, e, const(n), int_div=True)


def plus(a: Expr, b) -> Expr:
    """`a + b` of index expressions, constants folded (so `v.y` of `s[i]` is `s[i][1]`)."""
    b = b if isinstance(b, Expr) else const(b)
    x, y = fold(a), fold(b)
    if x is not None and y is not None and not isinstance(x + y, float):
        return const(x + y)
    if x == 0:
        return b
    if y == 0:
        return a
    return a + b


def number(e: Expr, dtype: str):
    """A constant as the Python number the builder types itself (so `= 1` into a u32 is
    the constant 1u, not a conversion of 1), when the value fits `dtype` exactly; else
    the expression."""
    v = fold(e) if e.op is Op.CONST else None
    if v is None:
        return e
    t = BY_NAME[register_type(dtype)]
    if t.is_float:
        return float(v)
    if isinstance(v, float) and not v.is_integer():
        return e
    return int(v) if t.min <= v <= t.max else e


def register_type(dtype: str) -> str:
    """The type a local of `dtype` has in registers (16-bit floats are held as float)."""
    return "f32" if dtype in ("f16", "bf16") else dtype


def pointer_uses(body, functions: dict | None = None, depth: int = 0,
                 memo: dict | None = None) -> tuple[set, set]:
    """Names written through `p[i] = ...` (or +=, *p = ..., atomics, a vector store through
    `*reinterpret_cast<float4*>(&p[i]) = ...`) and names read, in a body: through local
    pointers (`float* row = C + r * n; row[i] = v` writes C) and through the pointer
    parameters of the device functions it calls (`functions`: name -> definitions; a
    struct's member functions under `.name`, for calls `obj.name(...)`)."""
    memo = {} if memo is None else memo
    writes, reads = set(), set()
    stored = set()   # (start, end) of the subscripts that are only written
    aliases: dict[str, set] = {}

    def bases_of(n) -> set:
        """The arrays (parameter names) a pointer expression points into: one, or two for a
        pointer that selects (`c ? A + i : B + j`), or none."""
        while n is not None and n.type in (
                "subscript_expression", "pointer_expression", "parenthesized_expression",
                "binary_expression", "cast_expression", "call_expression", "field_expression",
                "conditional_expression"):
            if n.type == "conditional_expression":
                return bases_of(n.child_by_field_name("consequence")) | \
                    bases_of(n.child_by_field_name("alternative"))
            if n.type == "subscript_expression":
                n = n.child_by_field_name("argument")
            elif n.type == "binary_expression":
                n = n.child_by_field_name("left")
            elif n.type == "cast_expression":
                n = n.child_by_field_name("value")
            elif n.type == "field_expression":
                arg = n.child_by_field_name("argument")
                if any(c.type == "->" for c in n.children):
                    n = arg        # `p->lng = v`: the struct array p points into
                    continue
                if arg.type == "identifier":   # `p.out[i] = v`: the field of a struct param
                    return {f"{text(arg)}.{text(n.child_by_field_name('field'))}"}
                n = arg
            elif n.type == "call_expression":
                args = n.child_by_field_name("arguments").named_children
                if not args:
                    return set()
                n = args[0]
            elif n.named_children:
                n = n.named_children[0]
            else:
                return set()
        if n is None or n.type != "identifier":
            return set()
        found, seen, work = set(), set(), [text(n)]
        while work:
            name = work.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in aliases:
                work.extend(aliases[name])
            else:
                found.add(name)
        return found
    for n in walk(body):
        if n.type == "init_declarator" and \
                n.child_by_field_name("declarator").type == "pointer_declarator":
            target = n.child_by_field_name("declarator").child_by_field_name("declarator")
            bases = bases_of(n.child_by_field_name("value"))
            if target is not None and target.type == "identifier" and bases:
                aliases.setdefault(text(target), set()).update(bases)
        elif n.type == "assignment_expression" and \
                n.child_by_field_name("left").type == "identifier" and \
                n.child_by_field_name("operator").type == "=":
            # `bo_6 = blk_sad + ...;` of a pointer declared without a value (Parboil sad):
            # what it points into (a scalar's assignment names no array: no alias)
            right = n.child_by_field_name("right")
            while right.type == "parenthesized_expression" and right.named_children:
                right = right.named_children[0]
            left = text(n.child_by_field_name("left"))
            if right.type in ("identifier", "binary_expression", "cast_expression",
                              "conditional_expression") or \
                    right.type == "pointer_expression" and right.children[0].type == "&":
                bases = bases_of(right) - {left}
                if bases:
                    aliases.setdefault(left, set()).update(bases)
    for n in walk(body):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            names = bases_of(left) if left.type != "identifier" else set()
            if names:
                writes |= names
                if n.child_by_field_name("operator").type == "=":
                    stored.add((left.start_byte, left.end_byte))
        elif n.type == "call_expression":
            fn = n.child_by_field_name("function")
            called = callee_name(fn)
            if fn.type == "field_expression":   # `q.append(i, overflow, v)`: `.append`
                called = "." + text(fn.child_by_field_name("field"))
            args = n.child_by_field_name("arguments").named_children
            if called == "store_matrix_sync" and args:
                writes |= bases_of(args[0])   # wmma: a fragment stored through a pointer
            elif (called in ATOMICS or called in CACHE_STORES) and args:
                names = bases_of(args[0])
                writes |= names
                if called in ATOMICS:
                    reads |= names
            elif functions and called in functions and depth < MAX_INLINE_DEPTH:
                callee = functions[called][0]
                params = function_declarator(callee).child_by_field_name(
                    "parameters").named_children
                # each callee's uses once (a memo: calls that call each other would
                # otherwise be walked exponentially often); one being walked counts as none
                key = callee.id
                if key not in memo:
                    memo[key] = (set(), set())
                    memo[key] = pointer_uses(callee.child_by_field_name("body"), functions,
                                             depth + 1, memo)
                w, r = memo[key]
                for p, a in zip(params, args):
                    d = p.child_by_field_name("declarator")
                    while d is not None and d.type in ("pointer_declarator",
                                                       "reference_declarator"):
                        d = d.child_by_field_name("declarator") or d.named_children[-1]
                    if d is None:
                        continue
                    for name in bases_of(a):
                        if text(d) in w:
                            writes.add(name)
                        if text(d) in r:
                            reads.add(name)
                        # `f(Params q)` writing q.out: the caller's p.out
                        writes.update(name + u[len(text(d)):] for u in w
                                      if u.startswith(text(d) + "."))
                        reads.update(name + u[len(text(d)):] for u in r
                                     if u.startswith(text(d) + "."))
    for n in walk(body):
        arrow = n.type == "field_expression" and any(c.type == "->" for c in n.children)
        if (n.type in ("subscript_expression", "pointer_expression") or arrow) and \
                (n.start_byte, n.end_byte) not in stored and \
                n.parent.type not in ("subscript_expression",):
            reads |= bases_of(n)     # (`p->lat` reads what p points into)
    return writes, reads


def callee_name(fn) -> str:
    """The function a call names: `f`, `ns::f`, `f<T>` and `ns::f<T>` are all `f`."""
    while fn.type == "qualified_identifier":
        fn = fn.child_by_field_name("name")
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name")
    return text(fn)

"""Lower one `__global__` kernel of a parsed CUDA file to the IR, through the builder.

No text is generated and nothing is executed: each construct becomes the builder call that
states it, located (`kernels_ir.located`) at the user's file, line and column. Names stay
data: a scope maps each CUDA name to the IR object it denotes, so a block that shadows a
name never changes the outer one. `__device__` functions are inlined at each call.
Anything the IR cannot express is a CudaImportError at its line, never a guess.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import re
from math import prod

from kernels_ir import (
    ACTIVE_MASK,
    TRAP_TEXT,
    Expr,
    KernelBuilder,
    KernelError,
    Op,
    SourceLoc,
    bitcast,
    blockDim,
    blockIdx,
    call,
    cast,
    const,
    gridDim,
    lnot,
    located,
    logical_and,
    logical_or,
    select,
    smax,
    smin,
    threadIdx,
)
from kernels_ir.dtypes import BY_NAME, f32, i32, u32
from kernels_ir.expr import BIT_FUNCTIONS, EXACT_DIV, binary

from .errors import CudaImportError
from .lower_choices import CONTROL, ChoicesMixin, pointer_name
from .literals import literal_type
from .lower_flow import FlowMixin
from .lower_groups import GroupsMixin
from .lower_hopper import Descriptor, HopperMixin
from .lower_struct_values import StructValuesMixin, flat_indices
from .lower_structs import StructsMixin
from .lower_textures import TexturesMixin
from .lower_ptx import PtxMixin
from .lower_wmma import WmmaMixin, is_wmma_call
from .lower_vectors import PIECE_TYPES, VectorsMixin, from_pieces, to_pieces, vector_step
from .parse import (
    function_declarator,
    is_null_literal,
    is_pointer_cast_call,
    pointer_cast_parts,
    parse_expression,
    short,
    split_top_level,
    subscript_index,
    template_default,
    template_param_name,
    template_parameters,
    text,
    walk,
)
from .symbols import (
    ATOMICS,
    c_type_size,
    CACHE_LOADS,
    CACHE_STORES,
    COMPONENTS,
    FLOAT_MATH,
    FLOAT_TYPES,
    MATH,
    MAX_INLINE_DEPTH,
    MINMAX,
    PIPELINE,
    SHUFFLES,
    SIZES,
    TYPES,
    VECTORS,
    Sym,
    TypeText,
    array_name,
    callee_name,
    exact_quotient,
    fold,
    jump_owner,
    number,
    plus,
    pointer_uses,
    register_type,
    returns_last_only,
    single_return,
    statement_ok,
    touches_memory,
    truth_context,
    truth_value,
    zeros_only,
)


# CUDA's intrinsics that reinterpret a value's bits: name -> (argument type, result type)
BITCASTS = {"__int_as_float": ("i32", "f32"), "__uint_as_float": ("u32", "f32"),
            "__float_as_int": ("f32", "i32"), "__float_as_uint": ("f32", "u32")}
# float -> 16-bit float intrinsics (round to nearest even): the float rounded to one
# cuda_fp16.h / cuda_bf16.h scalar arithmetic: name -> (operation, arguments)
HALF_ARITH = {name: (op, count) for names, op, count in (
    (("__hadd", "__hadd_rn"), "+", 2), (("__hsub", "__hsub_rn"), "-", 2),
    (("__hmul", "__hmul_rn"), "*", 2), (("__hdiv",), "/", 2), (("__hfma", "__hfma_rn"), "fma", 3),
    (("__hneg",), "neg", 1), (("__habs",), "abs", 1), (("__hmax",), "max", 2),
    (("__hmin",), "min", 2), (("__heq",), "==", 2), (("__hne",), "!=", 2), (("__hlt",), "<", 2),
    (("__hle",), "<=", 2), (("__hgt",), ">", 2), (("__hge",), ">=", 2))
    for name in names}
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
# the warp votes: name -> the IR's vote mode
VOTES = {"__ballot_sync": "ballot", "__any_sync": "any", "__all_sync": "all"}
# CUDA's integer bit intrinsics: name -> (the IR's function, operand bytes)
INTEGER_BITS = {f"__{fn}{suffix}": (fn, 8 if suffix else 4)
                for fn in BIT_FUNCTIONS for suffix in ("", "ll")}
FP8_KINDS = {"__NV_E4M3": "e4m3", "__NV_E5M2": "e5m2"}


def fp8_bits(x: float, kind: str) -> int:
    """The 8 bits of `x` as an E4M3 or E5M2 float, rounded to nearest even, saturated to the
    largest finite value (cuda_fp8.h's __NV_SATFINITE); NaN to NaN."""
    man_bits, bias = (3, 7) if kind == "e4m3" else (2, 15)
    largest = 448.0 if kind == "e4m3" else 57344.0
    if math.isnan(x):
        return 0x7F   # a NaN code of both kinds
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = min(abs(x), largest)
    best = None
    for bits in range(0x7F if kind == "e4m3" else 0x7C):   # the finite non-negative codes
        e, m = bits >> man_bits, bits & ((1 << man_bits) - 1)
        v = m * 2.0 ** (1 - bias - man_bits) if e == 0 else \
            (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
        key = (abs(v - a), bits & 1)   # nearest; a tie to the even code
        if best is None or key < best[0]:
            best = (key, bits)
    return sign | best[1]
# cuda_fp16.h's math functions of one half -> the IR's function of its float ("rcp": 1 / x)
HALF_MATH = {"hexp": "exp", "hexp2": "exp2", "hexp10": "exp10", "hlog": "log",
             "hlog2": "log2", "hlog10": "log10", "hsqrt": "sqrt", "hrsqrt": "rsqrt",
             "hrcp": "rcp", "hsin": "sin", "hcos": "cos", "hfloor": "floor",
             "hceil": "ceil"}
# one lane of a half2 / __nv_bfloat162 (its float, as a register holds it)
PAIR_LANES = {f"__{side}2{t}": lane for side, lane in (("low", 0), ("high", 1))
              for t in ("float", "half", "bfloat16")}
HALF_ROUNDINGS = {"__float2half": "f16", "__float2half_rn": "f16", "__float2bfloat16": "bf16",
                  "__float2bfloat16_rn": "bf16",
                  # integers to 16-bit floats, rounded to nearest even (exact as a double)
                  **{f"__{t}2half_rn": "f16" for t in ("int", "uint", "short", "ushort", "ll",
                                                      "ull")},
                  **{f"__{t}2bfloat16_rn": "bf16" for t in ("int", "uint", "short", "ushort",
                                                           "ll", "ull")}}


def memory_scalar(sym) -> bool:
    """Whether a name's Sym is a scalar held in memory: a `__shared__` (or file-scope)
    scalar, or a reference to an element (reading it is a load)."""
    return sym is not None and (sym.kind == "cell" or sym.kind == "ref" and
                                sym.place is not None)


def array_rank(declarator) -> int:
    """How many dimensions an array declarator declares (`float s[4][8]`: 2)."""
    rank = 0
    while declarator is not None and declarator.type == "array_declarator":
        rank += 1
        declarator = declarator.child_by_field_name("declarator")
    return rank


# the characters of an overloaded operator's name, for the locals of its inlined body
OPERATOR_NAMES = {"+": "plus", "-": "minus", "*": "times", "/": "div", "=": "assign",
                  "%": "mod", "<": "lt", ">": "gt", "!": "not", "&": "and", "|": "or",
                  "^": "xor", "[": "index", "]": "", "(": "call", ")": ""}


class KernelLowering(FlowMixin, GroupsMixin, VectorsMixin, PtxMixin, HopperMixin,
                     StructsMixin, StructValuesMixin, TexturesMixin, WmmaMixin, ChoicesMixin):
    """One kernel (one template instantiation) of a Unit, lowered to a Kernel."""

    def __init__(self, unit, node, template_args: dict | None = None, key: str | None = None):
        self.u = unit
        self.node = node
        self.name = unit.name_of(node)
        self.key = key or self.name
        self.template_args = dict(template_args or {})
        self.scopes: list[dict[str, Sym]] = [{}]
        self.types: dict[str, str] = {}      # template type parameters -> IR type name
        self.kb: KernelBuilder | None = None
        self.inline_depth = 0
        # the jumps being lowered as flags, innermost last: {"kind": "break" | "continue" |
        # "return", "flag": the local, "owner": the loop or function node}
        self.exits: list[dict] = []
        self.returns: list[dict] = []        # the inlined calls being lowered, innermost last
        self.calls: list[SourceLoc] = []     # where each inlined call is, innermost last
        self.definitions: dict = {}          # Var of a local set once -> its value
        # per inlined call, innermost last: (StructType, the object or None for a static
        # member) for a member function, None for any other function
        self.this_stack: list = []
        # per inlined call, innermost last: (function, template arguments, struct): a
        # `__shared__` variable of a device function is one per instantiation, however often
        # it is called (nvcc allocates it once), kept in `static_shared`
        self.instantiations: list = []
        self.static_shared: dict = {}
        # the template arguments bound, in the template's order: ("type", C++ type name) or
        # ("value", number, IR type name), as read (never as the text given)
        self.instance: list[tuple] = []
        self.module_scope: list = []   # arrays nvcc defines at module scope: laid out last
        # barrier name -> the barriers a pointer switches between that it is one of
        # (lower_hopper.barrier_groups; None until read)
        self.barrier_group_names: dict | None = None

    # ---------------------------------------------------------------- helpers
    def loc(self, node) -> SourceLoc:
        here = self.u.loc(node)
        if self.calls:  # inside inlined functions: the calls' lines, innermost first
            return dataclasses.replace(here, calls=tuple(
                (c.file, c.line) for c in reversed(self.calls)))
        return here

    def at(self, node):
        """Builder calls in this block are located at the node's place in the user's file."""
        return located(self.loc(node))

    def error(self, node, message: str) -> CudaImportError:
        return CudaImportError(message, kernel=self.name, loc=self.loc(node))

    def declared(self, name: str) -> Sym | None:
        """What the kernel's scopes (innermost first) say `name` is, or None (the file's
        constants and memory are not looked at)."""
        return next((scope[name] for scope in reversed(self.scopes) if name in scope), None)

    def lookup(self, name: str, node) -> Sym:
        sym = self.declared(name)
        if sym is not None:
            return sym
        if name in self.u.constants:
            return self.u.constant(name, self)
        if name == "warpSize":
            return Sym("const", const(32), "i32")
        if name in self.u.memory:
            return self.file_memory(name, node)
        if name in self.u.texture_refs:
            return self.texture_ref(name, node)
        if name in self.u.shared_vars:
            return self.file_shared(name)
        raise self.error(node, f"'{name}' is not defined here (a macro the file does not "
                               f"define needs -D {name}=VALUE)")

    def file_shared(self, name: str) -> Sym:
        """A file-scope `__shared__` variable the kernel uses (cuda-samples' dct8x8): the
        kernel's own shared array (each kernel that uses one allocates it), declared at its
        first use as the kernel's outermost declaration."""
        saved = self.scopes
        self.scopes = [saved[0]]
        try:
            self.declaration(self.u.shared_vars[name])
        finally:
            self.scopes = saved
        return saved[0][name]

    def file_memory(self, name: str, node) -> Sym:
        """A file-scope `__constant__` or `__device__` variable the kernel uses: a global
        array of the kernel (a scalar one: an array of one element), declared on first use.
        Its bytes are not shared memory, so no shared count changes; its reads and writes
        are followed as global accesses."""
        decl, d, constant = self.u.memory[name]
        type_node = decl.child_by_field_name("type")
        stype = self.struct_type(type_node, decl)
        if stype is not None:
            return self.struct_memory(name, decl, d, stype, constant)
        dtype, lanes = self.vtype(type_node, decl)
        initial = self.memory_initializer(decl, d, dtype)
        if lanes > 1 and initial is not None and self.array_dims(d, decl, 1):
            raise self.error(decl, f"`{short(decl)}`: an initialized array of vectors in "
                                   "file-scope memory (give it one vector's values)")
        dims = self.array_dims(d, decl, len(initial) if initial is not None else None) \
            if lanes == 1 else self.array_dims(d, decl, 1)
        # a vector (`__constant__ float3 kColorMetric = {1.0f, 1.0f, 1.0f};`, cuda-samples'
        # dxtc) or an array of them: its lanes, flat, as a vector pointer's are
        length = lanes
        for n in dims:
            length *= n
        if initial is not None and len(initial) > length:
            raise self.error(decl, f"`{short(decl)}`: {len(initial)} initializers for "
                                   f"{length} elements")
        if initial is not None:   # C fills the rest with zeros
            initial = initial + (0,) * (length - len(initial))
        with self.at(decl):
            arr = self.kb.global_array(name, dtype, length,
                                       intent="in" if constant else "inout", initial=initial)
        if len(dims) > 1:
            raise self.error(decl, f"`{short(decl)}`: multi-dimensional file-scope memory "
                                   "(the IR's global arrays are flat)")
        sym = Sym("global" if dims or lanes > 1 else "cell", arr, dtype, lanes)
        self.scopes[0][name] = sym
        return sym

    def memory_initializer(self, decl, target, dtype: str) -> tuple | None:
        """The values of a file-scope variable's initializer (`= {0.35f, ...}` or `= 3`),
        each a compile-time number, or None when it has none."""
        init = next((c.child_by_field_name("value") for c in decl.named_children
                     if c.type == "init_declarator" and
                     c.child_by_field_name("declarator") == target), None)
        if init is None:
            return None
        items = init.named_children if init.type == "initializer_list" else [init]
        values = []
        for item in items:
            if item.type == "initializer_list":
                raise self.error(decl, f"`{short(decl)}`: a nested initializer (the IR's "
                                       "global arrays are flat)")
            v = fold(self.expr(item))
            if v is None:
                raise self.error(item, f"`{short(item)}`: an initializer of file-scope memory "
                                       "is a compile-time number")
            values.append(float(v) if dtype in FLOAT_TYPES else int(v))
        return tuple(values)

    def array_dims(self, d, decl, initialized: int | None = None) -> list:
        """The sizes of an array declarator, outermost first (each a compile-time
        integer; none for a scalar); `initialized`: the initializer's element count, the
        size of a `[]` array."""
        dims = []
        while d.type == "array_declarator":
            size = d.child_by_field_name("size")
            if size is None and initialized is not None and \
                    d.child_by_field_name("declarator").type != "array_declarator":
                dims.insert(0, initialized)
                d = d.child_by_field_name("declarator")
                continue
            if size is None:
                raise self.error(decl, f"`{short(decl)}`: an array needs its size")
            dims.insert(0, self.constant_int(size, "an array size"))
            d = d.child_by_field_name("declarator")
        return dims

    def declare(self, name: str, sym: Sym) -> Sym:
        self.scopes[-1][name] = sym
        return sym

    def type_name(self, type_node, node) -> str:
        """The type of a declaration as written: qualifiers dropped, template types read."""
        t = " ".join(re.sub(r"\b(const|volatile|__restrict__|__restrict|static|"
                            r"register|struct|typename|constexpr|__shared__|extern|"
                            r"__device__|__constant__|__managed__|inline|__forceinline__)\b",
                            " ", text(type_node)).split())
        t = t.replace("std::", "")
        t = self.types.get(t, t)
        t = self.member_type(t) or t
        return self.u.vector_typedefs.get(t, t)

    def member_type(self, t: str) -> str | None:
        """`vec4<T>::Type` of a struct template's typedef, chosen by its arguments among the
        file's specializations (cuda-samples' nbody: `template <> struct vec4<float> {
        typedef float4 Type; };`): the type named, else None."""
        m = re.fullmatch(r"(\w+)\s*<(.*)>\s*::\s*(\w+)", t)
        if m is None or m.group(1) not in self.u.structs:
            return None
        args = [self.types.get(a, a) for a in split_top_level(m.group(2))]
        chosen = None
        for spec in self.u.structs[m.group(1)]:
            name = spec.child_by_field_name("name")
            if name.type == "template_type":   # a specialization: its own arguments
                given = [" ".join(text(a).split()) for a in
                         name.child_by_field_name("arguments").named_children]
                if given == args:
                    chosen = spec
                    break
            elif chosen is None:
                chosen = spec                   # the template itself, unless one matches
        body = chosen.child_by_field_name("body") if chosen is not None else None
        for member in body.named_children if body is not None else ():
            if member.type == "type_definition" and \
                    text(member.child_by_field_name("declarator")) == m.group(3):
                return self.type_name(member.child_by_field_name("type"), member)
            if member.type == "alias_declaration" and \
                    text(member.child_by_field_name("name")) == m.group(3):
                return self.type_name(member.child_by_field_name("type"), member)
        return None

    def vtype(self, type_node, node) -> tuple[str, int]:
        """(IR element type, lanes) of a type, vector types included."""
        t = self.type_name(type_node, node)
        if t in VECTORS:
            return VECTORS[t]
        return self.dtype(type_node, node), 1

    def reads_memory(self, node) -> bool:
        """Whether evaluating a loop's condition reads memory or calls something (the IR's
        conditions are pure: such a condition is a statement of its own): an element, a
        call, `*p`, or a name that is memory itself (a `__shared__` or file-scope scalar,
        a reference to an element: cuda-samples' simpleAttributes loops `while (hit <
        hitCount)` on a `__shared__ unsigned int hit`). The sides of `?:`, `&&` and `||`
        use touches_memory: a scalar in memory cannot fault, so it is read on both sides
        as nvcc reads it (SHOC's radixSortBlocks: one LDS of `numtrue` whichever side)."""
        if touches_memory(node):
            return True
        for n in walk(node):
            if n.type != "identifier":
                continue
            sym = self.declared(text(n))
            if memory_scalar(sym):
                return True
            if sym is None and (text(n) in self.u.shared_vars or text(n) in self.u.memory):
                return True
        return False

    def loads_memory(self, node) -> bool:
        """Whether a condition reads an element of a global or shared array, or of a
        struct array, or through a pointer (`i < row[t + 1]`, `i < nodes[t].no_of_edges`):
        the loads the IR cannot put in a loop's own condition. Pure calls and register
        arrays are not loads."""
        for n in walk(node):
            if n.type == "pointer_expression" and n.children[0].type == "*":
                return True
            if n.type == "identifier" and n.parent.type != "field_expression" and \
                    memory_scalar(self.declared(text(n))):
                return True       # a __shared__ scalar, a reference to an element
            if n.type != "subscript_expression":
                continue
            root = n
            while root.type in ("subscript_expression", "field_expression",
                                "parenthesized_expression"):
                root = root.child_by_field_name("argument") \
                    if root.type != "parenthesized_expression" else root.named_children[0]
            sym = self.declared(text(root)) if root.type == "identifier" else None
            if sym is None and root.type == "identifier" and \
                    (text(root) in self.u.shared_vars or text(root) in self.u.memory):
                return True
            if sym is not None and sym.kind in ("global", "shared", "pointer", "choice",
                                                "struct_pointer", "cell"):
                return True
        return False

    def vector_typed(self, type_node, node) -> bool:
        """Whether a type (a parameter's, a return type) is a vector type; False where it
        is not one the IR reads (a template's parameter, void)."""
        try:
            return type_node is not None and self.vtype(type_node, node)[1] > 1
        except CudaImportError:
            return False

    def dtype(self, type_node, node) -> str:
        t = self.type_name(type_node, node)
        if t in VECTORS:
            raise self.error(node, f"`{short(node)}`: a {t} here is not supported (vector "
                                   "types: locals, register and __shared__ arrays, and "
                                   "accesses through reinterpret_cast)")
        if t in TYPES:
            return TYPES[t]
        if t in BY_NAME:
            return t
        if t in self.u.typedefs:
            return self.u.typedefs[t]
        if t == "auto":
            return "auto"
        raise self.error(node, f"type '{t}' is not one the IR has (its types: "
                               f"{', '.join(sorted(set(TYPES.values())))})")

    def constant_int(self, node, what: str = "") -> int:
        """A compile-time integer (a literal, a constant, a template parameter, a local
        initialized with one and never assigned); for a lane mask also `__activemask()` or
        a local initialized with it and never assigned (ACTIVE_MASK)."""
        if what == "a lane mask" and self.active_mask(node):
            return ACTIVE_MASK
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            if sym.kind == "local" and sym.place and sym.place[0] == "known":
                return sym.place[1]
        v = fold(self.expr(node))
        if v is None or isinstance(v, float):
            raise self.error(node, f"`{short(node)}` must be a compile-time integer"
                                   f"{' (' + what + ')' if what else ''}")
        return v

    def active_mask(self, node) -> bool:
        """Whether `node` is `__activemask()`, or a local that holds it (see init_declarator)."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "call_expression":
            return callee_name(node.child_by_field_name("function")) == "__activemask" and \
                not node.child_by_field_name("arguments").named_children
        if node.type == "identifier":
            return self.lookup(text(node), node).kind == "activemask"
        return False

    # ---------------------------------------------------------------- the kernel
    def build(self):
        """The kernel's signature and launch (no body: nvcc's build gives it)."""
        node = self.node
        with self.at(node):
            self.kb = KernelBuilder(self.name)
        # a local the file names as the generated CUDA reserves (`int max = ...;`, a macro's
        # `__temp_x__`) is legal C++ there: renamed, not refused
        self.kb.rename_reserved = True
        self.bind_template()
        params = function_declarator(node).child_by_field_name("parameters").named_children
        writes, reads = pointer_uses(node.child_by_field_name("body"),
                                     {**self.u.functions, **self.u.member_functions()})
        from .launch import null_pointer_params   # (launch imports this module's helpers)
        self.null_params = null_pointer_params(self.u, self)
        # scalars first, so that --length expressions may use any of them (the generated
        # CUDA's signature follows this order); tensor maps last, so that one over a pointer
        # parameter finds that array
        pointer = lambda p: (p.child_by_field_name("declarator") is not None and  # noqa: E731
                             p.child_by_field_name("declarator").type == "pointer_declarator")
        tensor_map = lambda p: "CUtensorMap" in text(p.child_by_field_name("type") or p)  # noqa
        self.signature_only = True
        for p in sorted(params, key=lambda p: (tensor_map(p), pointer(p))):
            self.parameter(p, writes, reads)
        for arr in self.module_scope:
            self.kb.place_last(arr)
        grid, block, smem = self.u.launch_of(self)
        if fold(smem) != 0 and not any(b.dynamic for b in self.kb._buffers):
            # the launch asks for dynamic bytes the kernel never declares (fast.cu's kernel
            # 3 passes sizeof its struct, which nvcc made static): they still take room
            self.dynamic_view("u8", node)
        from .launch import launch_arguments
        defaults = {**launch_arguments(self.u, self), **self.u.param_defaults(self)}
        with self.at(node):
            self.kb.launch(grid=grid, block=block, dynamic_smem=smem)
            if defaults:
                self.kb.defaults(**defaults)
            return self.kb.build()

    def bind_template(self) -> None:
        parent = self.node.parent
        if parent is None or parent.type != "template_declaration":
            if self.template_args:
                raise self.error(self.node, f"'{self.name}' is not a template: "
                                            f"{self.key} names template arguments")
            return
        given = dict(self.template_args)
        for p in parent.child_by_field_name("parameters").named_children:
            is_type = p.type in ("type_parameter_declaration",
                                 "optional_type_parameter_declaration")
            pname = template_param_name(p, is_type)
            if pname in given:
                value = given.pop(pname)
            elif p.type.startswith("optional"):
                value = p.child_by_field_name("default_type" if is_type else "default_value")
            else:
                from .launch import launches_named, unit_of
                calls = launches_named(self.u, self.name)
                if calls:
                    call = calls[0][0]
                    how = (f"the launch at {unit_of(self.u, call).loc(call)} does not give it "
                           "(neither named nor deduced from its arguments' types)")
                else:
                    how = f"launch it in the file (`{self.name}<...><<<...>>>`)"
                raise self.error(p, f"template parameter '{pname}' of '{self.name}' needs a "
                                    f"value: {how}; or name it: --kernel '{self.name}<...>'")
            if is_type:
                t = value if isinstance(value, str) else text(value)
                t = " ".join(t.split())
                if t not in TYPES and t not in VECTORS and t not in self.u.typedefs and \
                        t not in self.u.vector_typedefs:
                    # (a typedef of the file, `floatX`, names its type; the instance keeps
                    # the name, which the user's own build knows)
                    raise self.error(p, f"template parameter '{pname}' = {t}: not a type the "
                                        "IR has")
                self.types[pname] = t
                self.instance.append(("type", t, t))
            else:
                e = self.u.expr_text(value, self, p) if isinstance(value, str) else \
                    self.expr(value)
                v = fold(e)
                if v is None:
                    raise self.error(p, f"template parameter '{pname}' = "
                                        f"{value if isinstance(value, str) else short(value)}: "
                                        "not a compile-time constant")
                dtype = self.dtype(p.child_by_field_name("type"), p)
                self.scopes[0][pname] = Sym("const", const(v, BY_NAME[dtype]), dtype)
                self.instance.append(("value", v, dtype))
        if given:
            raise self.error(parent, f"'{self.name}' has no template parameter "
                                     f"{', '.join(given)}")

    def parameter(self, p, writes: set, reads: set) -> None:
        d = p.child_by_field_name("declarator")
        if d is None:
            raise self.error(p, "a kernel parameter without a name")
        if self.tensor_map_param(p) or self.texture_param(p):
            return
        while d.type == "reference_declarator":
            raise self.error(p, f"kernel parameter `{short(p)}`: a reference")
        if d.type == "pointer_declarator":
            inner = d.child_by_field_name("declarator")
            while inner.type == "pointer_declarator":
                raise self.error(p, f"kernel parameter `{short(p)}`: a pointer to a pointer")
            name = text(inner)
            intent = "inout" if name in writes and name in reads else \
                "out" if name in writes else "in"
            if self.names_struct(p.child_by_field_name("type")):
                # `Node* g_graph_nodes` (Rodinia bfs): an array of structs in global memory
                self.struct_array_parameter(p, name, intent)
                return
            try:
                dtype, lanes = self.vtype(p.child_by_field_name("type"), p)
            except CudaImportError:
                size = c_type_size(self.type_name(p.child_by_field_name("type"), p))
                if not getattr(self, "signature_only", False) or size is None:
                    raise
                # (nvcc's build reads the body: the host side needs only each element's
                # bytes, `double4* x` of 32 bytes an element)
                dtype, lanes = "u8", size
            if name in self.null_params:
                self.null_parameter(p, name, dtype, lanes, intent)
                return
            boolean = self.type_name(p.child_by_field_name("type"), p) == "bool"
            length = self.u.length_of(name, self, lanes, 1 if boolean else SIZES[dtype])
            if boolean:
                dtype = "u8"  # a bool in memory is one byte
            with self.at(p):
                # a vector type's array (`const uint4* img`) is held as its scalars: --length
                # counts vectors, as the CUDA does
                arr = self.kb.global_array(name, dtype, length * lanes if lanes > 1 else length,
                                           intent=intent)
            self.declare(name, Sym("global", arr, dtype, lanes, boolean=boolean))
            return
        if d.type == "identifier" and self.names_struct(p.child_by_field_name("type")):
            self.struct_parameter(p, text(d), self.struct_type(p.child_by_field_name("type"), p),
                                  writes, reads)
            return
        if d.type != "identifier":
            raise self.error(p, f"kernel parameter '{short(p)}': only scalars and pointers "
                                "are supported")
        name = text(d)
        if self.type_name(p.child_by_field_name("type"), p) in VECTORS:
            # `uint3 gridSize`: a parameter per lane (`--param gridSize_x=...`, as a struct
            # parameter's fields), held in a register vector of the name
            dtype, lanes = self.vtype(p.child_by_field_name("type"), p)
            with self.at(p):
                parts = [self.kb.param(f"{name}_{c}", register_type(dtype))
                         for c in COMPONENTS[:lanes]]
            self.store_vector(self.array_of(name, dtype, [], False, p, lanes), [const(0)],
                              lanes, parts, p)
            return
        dtype = self.dtype(p.child_by_field_name("type"), p)
        with self.at(p):
            e = self.kb.param(name, dtype)
        self.declare(name, Sym("param", e, dtype))

    def assigned_params(self, body) -> None:
        """A scalar parameter the body assigns (`beta /= alpha;`: C's parameters are the
        kernel's own copies) becomes a local holding its value, declared first."""
        for n in walk(body):
            if n.type == "assignment_expression":
                target = n.child_by_field_name("left")
            elif n.type == "update_expression":
                target = n.child_by_field_name("argument")
            else:
                continue
            sym = self.declared(text(target)) if target.type == "identifier" else None
            if sym is not None and sym.kind == "param" and \
                    not self.declared_within(text(target), n, body):
                with self.at(target):
                    ref = self.kb.let(text(target), sym.value, sym.dtype)
                self.declare(text(target), Sym("local", ref, sym.dtype))

    @staticmethod
    def declared_within(name: str, node, body) -> bool:
        """Whether a block or `for` around `node` (inside `body`) declares `name` before
        it: an assignment to that name is to the inner variable (`for (uint stride = ...;
        ...; stride >>= 1)` beside a parameter `stride`)."""
        scope = node.parent
        while scope is not None and scope != body.parent:
            if scope.type in ("compound_statement", "for_statement"):
                for d in scope.named_children:
                    if d.type != "declaration" or d.start_byte > node.start_byte:
                        continue
                    for declarator in d.named_children[1:]:
                        inner = declarator.child_by_field_name("declarator") \
                            if declarator.type == "init_declarator" else declarator
                        if inner is not None and text(inner) == name:
                            return True
            scope = scope.parent
        return False

    def null_parameter(self, p, name: str, dtype: str, lanes: int, intent: str) -> None:
        """A pointer parameter the launch passes NULL (llm.c's optional `probs`): an array
        of no elements, whose truth is false; an access through it is out of bounds, at its
        line."""
        if name in self.u.options.lengths and name in self.u.options.nulls:
            raise self.error(p, f"--length {name} and --null {name}: a null pointer has no "
                                "elements (give one of them)")
        if name in self.u.options.lengths:
            where = self.loc(self.null_params[name])
            raise self.error(p, f"--length {name}: the launch at line {where.line} passes a "
                                "null pointer for it, which has no elements")
        with self.at(p):
            arr = self.kb.global_array(name, dtype, 0, intent=intent)
        self.declare(name, Sym("global", arr, dtype, lanes, place=("null",)))

    def pointer_params(self, body) -> None:
        """Pointer parameters the body moves (`A += off`, `p++`) become pointers with an
        offset local, declared here so every later use sees it."""
        moved = set()
        for n in walk(body):
            target = None
            if n.type == "assignment_expression":
                target = n.child_by_field_name("left")
            elif n.type == "update_expression":
                target = n.child_by_field_name("argument")
            if target is not None and target.type == "identifier":
                moved.add(text(target))
        for name in sorted(moved):
            sym = self.scopes[0].get(name)
            if sym is not None and sym.kind == "global":
                with self.at(body):
                    offset = self.kb.let(f"{name}_offset", 0, "i32")
                # (of a vector type, `float2 *data; data += bx * N;`: it steps by vectors)
                self.scopes[0][name] = Sym("pointer", None, sym.dtype, sym.lanes, 1,
                                           (sym, [], offset))

    # ---------------------------------------------------------------- statements

    def statement(self, node, unroll: bool | str | int = "auto") -> None:
        t = node.type
        if t in ("comment", "empty_statement", "preproc_call"):
            return
        if self.statement_per_choice(node, unroll):
            return
        if t == "compound_statement":
            self.block(node)
        elif t == "declaration":
            self.declaration(node)
        elif t == "expression_statement":
            m = re.fullmatch(r"\s*(?:\w+\s*::\s*)*thread_block_tile\s*<[^>]*>\s*(\w+)\s*=\s*"
                             r"(.*?);?\s*", text(node), re.S)
            if m is not None:  # `cg::thread_block_tile<32> w = ...;` reads as a comparison
                size = self.group_value(parse_expression(m.group(2)))
                if not size:
                    raise self.error(node, f"`{short(node)}`: a tile made another way than "
                                           "tiled_partition<N>(block)")
                self.declare(m.group(1), Sym("group", size))
            elif node.named_children:
                self.expression_statement(node.named_children[0])
        elif t == "for_statement":
            self.for_statement(node, unroll)
        elif t in ("while_statement", "do_statement"):
            self.while_statement(node, unroll)
        elif t == "if_statement":
            self.if_statement(node)
        elif t == "switch_statement":
            self.switch_statement(node)
        elif t == "return_statement":
            self.return_statement(node)
        elif t in ("break_statement", "continue_statement"):
            kind = t.split("_")[0]
            target = next((e for e in reversed(self.exits) if e["kind"] == kind), None)
            if target is None or jump_owner(node) != target["owner"]:
                raise self.error(node, f"`{kind}` outside a loop the importer reads (in a "
                                       "switch?)")
            with self.at(node):
                self.kb.assign(target["flag"], 1)
        elif t in ("type_definition", "alias_declaration"):
            self.u.typedef(node, self)
        elif t in ("static_assert_declaration", "namespace_alias_definition",
                   "using_declaration"):
            return  # `namespace cg = cooperative_groups;`: the names are the importer's
        else:
            raise self.error(node, f"{t.replace('_', ' ')} is not supported by the "
                                   f"importer: `{short(node)}`")

    def return_statement(self, node) -> None:
        if self.returns:
            self.inline_return(node)
            return
        if node.named_children:
            raise self.error(node, "a kernel returns no value")
        with self.at(node):
            self.kb.return_()

    def declaration(self, node) -> None:
        head = text(node).split("[")[0].split("=")[0]
        shared = "__shared__" in head
        extern = re.search(r"\bextern\b", head) is not None
        volatile = re.search(r"\bvolatile\b", head) is not None
        constant = re.search(r"\b(const|constexpr)\b", head) is not None
        if "__constant__" in head:
            raise self.error(node, "__constant__ memory inside a kernel")
        type_node = node.child_by_field_name("type")
        if self.group_declaration(node, type_node):
            return
        if self.pipeline_declaration(node, type_node):
            return
        if self.hopper_declaration(node, type_node, shared):
            return
        if self.struct_declaration(node, type_node, shared, extern):
            return
        if self.wmma_declaration(node, type_node):
            return
        dtype, lanes = self.vtype(type_node, node)
        boolean = self.type_name(type_node, node) == "bool"
        if boolean and shared:
            dtype = "u8"  # a bool in memory is one byte (its bank, its array's size)
        for d in node.named_children:
            if d.type in ("type_qualifier", "storage_class_specifier", "primitive_type",
                          "sized_type_specifier", "type_identifier", "attribute_specifier",
                          "template_type", "qualified_identifier") or d == type_node:
                continue
            if d.type == "array_declarator":
                self.array(d, dtype, shared, extern, node, lanes, volatile)
            elif d.type == "identifier" and lanes > 1 and not shared:
                self.array_of(text(d), dtype, [], False, node, lanes)
            elif d.type == "identifier" and lanes > 1:
                # `__shared__ uint4 s_Work;` (Parboil rpes): one vector in shared memory,
                # read and written whole or by its lanes (it was one scalar of its element
                # type: a uint4 taken for 4 bytes)
                self.array_of(text(d), dtype, [], False, node, lanes, True, volatile)
            elif d.type == "identifier":
                if shared:
                    # a scalar __shared__ variable: an array of one, read and written at 0
                    arr = self.array_of(text(d), dtype, [1], False, node, 1, True, volatile)
                    arr.kind = "cell"
                    continue
                if dtype == "auto":
                    raise self.error(node, f"`{short(node)}`: auto needs a value")
                with self.at(d):
                    ref = self.kb.let(text(d), 0.0 if dtype in FLOAT_TYPES else 0,
                                      register_type(dtype))
                self.declare(text(d), Sym("local", ref, register_type(dtype)))
            elif d.type == "init_declarator" and \
                    d.child_by_field_name("declarator").type == "array_declarator":
                # `float value[2] = {0.0f};`: register arrays start zeroed in the IR (and in
                # the generated CUDA), so an initializer of zeros is exactly that
                init = d.child_by_field_name("value")
                if shared or init.type != "initializer_list" or not zeros_only(init):
                    raise self.error(node, f"`{short(node)}`: an array may only be "
                                           "initialized with zeros")
                self.array(d.child_by_field_name("declarator"), dtype, shared, False, node,
                           lanes)
            elif d.type == "init_declarator":
                self.init_declarator(d, dtype, lanes, shared, node, constant)
            elif d.type == "pointer_declarator" and not shared and \
                    (name := pointer_name(d)) is not None:
                # `unsigned short *bi;` then `bi = blk_sad + ...;` (Parboil sad, tpacf)
                self.unset_pointer(name, dtype, lanes, node, null=False)
            elif d.type == "pointer_declarator" and shared:
                raise self.error(node, f"`{short(node)}`: a __shared__ pointer variable (one "
                                       "pointer for the whole block) is not read: use a "
                                       "pointer local")
            elif d.type == "pointer_declarator":
                raise self.error(node, f"`{short(node)}`: a pointer to a pointer")
            else:
                raise self.error(node, f"declaration `{short(node)}` is not supported")
        if boolean:  # the arrays declared: stores convert to bool
            for d in node.named_children:
                while d.type in ("array_declarator", "init_declarator"):
                    d = d.child_by_field_name("declarator")
                sym = self.scopes[-1].get(text(d)) if d.type == "identifier" else None
                if sym is not None and sym.kind in ("shared", "register", "cell"):
                    sym.boolean = True

    def init_declarator(self, d, dtype: str, lanes: int, shared: bool, node,
                        constant: bool = False) -> None:
        """`T name = value` (and pointers, references, vectors); a `const`/`constexpr` one
        whose value is a compile-time constant is that constant."""
        target = d.child_by_field_name("declarator")
        value = d.child_by_field_name("value")
        if shared:
            raise self.error(node, f"`{short(node)}`: a __shared__ variable cannot have an "
                                   "initializer (CUDA does not allow one)")
        if target.type == "pointer_declarator":
            name = text(target.child_by_field_name("declarator"))
            if target.child_by_field_name("declarator").type != "identifier":
                raise self.error(node, f"`{short(node)}`: a pointer to a pointer")
            if is_null_literal(self.uncast(value)):
                # `int4 *p = nullptr;` then `p = (int4 *)(A + k);`: it points at nothing
                # until assigned (cuda_hgemm's A_lane_ptr)
                self.unset_pointer(name, dtype, lanes, node, null=True)
                return
            self.pointer_local(name, value, dtype, node, lanes)
            return
        if target.type == "reference_declarator":
            name = text(target.named_children[-1])
            sym = self.reference(value)
            self.declare(name, sym)
            return
        if target.type != "identifier":
            raise self.error(node, f"`{short(node)}`: only scalars, pointers and arrays "
                                   "are supported")
        name = text(target)
        if lanes > 1:
            v = self.array_of(name, dtype, [], False, node, lanes)
            self.store_vector(v, [const(0)], lanes, value, node)
            return
        if value.type == "initializer_list":
            items = value.named_children
            if len(items) > 1:
                raise self.error(node, f"`{short(node)}`: a scalar with several initializers")
            value = items[0] if items else None
        if value is not None and (tm := self.tensor_map_or_none(value)) is not None:
            # `uint64_t m = reinterpret_cast<uint64_t>(&map);`: the map, for a PTX operand
            self.declare(name, tm)
            return
        if dtype in ("u64", "i64") and self.descriptor_local(name, value, node):
            return
        if value is not None and value.type == "lambda_expression":
            self.declare(name, self.lambda_sym(value))
            return
        if value is not None and value.type == "call_expression" and re.fullmatch(
                r"(?:(?:::)?cuda\s*::\s*)?aligned_size_t\s*<.+>",
                text(value.child_by_field_name("function")), re.S):
            # `const auto shape4 = cuda::aligned_size_t<16>(16);`: a copy size and the
            # alignment it promises, for memcpy_async
            self.declare(name, Sym("size", self.copy_size(value, node)))
            return
        if value is not None and self.is_role(value):
            # `const auto role = c ? cuda::pipeline_role::consumer : ...::producer;`
            self.declare(name, Sym("role", self.role(value)))
            return
        if value is not None and (bar := self.barrier_pointer(name, value, node)) is not None:
            # `auto p = &bar;`: another name of the barrier, or a pointer that is assigned
            # another barrier later
            self.declare(name, bar)
            return
        place = self.shared_address(value) if value is not None else None
        if place is not None:
            self.declare(name, Sym("smem_address", None, "u32", place=place))
            return
        if value is not None and self.active_mask(value):
            # `unsigned mask = __activemask();`: a name for the lanes that execute the warp
            # operation it is given to (its only use the importer reads)
            if name in self.u.assigned:
                raise self.error(node, f"`{short(node)}`: a mask from __activemask() that is "
                                       "assigned again")
            self.declare(name, Sym("activemask", None, "u32"))
            return
        if dtype == "auto" and value is not None and self.pointer_valued(value):
            # `auto p = &a[i];`, `auto q = p + k;`: a pointer, as if declared with its type
            self.pointer_local(name, value, "auto", node)
            return
        e = self.expr(value) if value is not None else const(0)
        if dtype == "auto":
            dtype = e.dtype.name
        dt = register_type(dtype)
        if constant and fold(e) is not None:
            # `const int n = 4;` / `constexpr uint W = BM / TM;`: a compile-time constant
            # (array sizes and template arguments may use it), as C++ treats it; a 16-bit
            # float's is the value rounded to it, and it stays a half (half_type)
            narrow = dtype if dtype in ("f16", "bf16") else None
            with self.at(target):
                if narrow is not None:
                    e = self.convert(e if e.dtype.is_float else cast(e, f32), narrow, value)
                value = fold(cast(e, BY_NAME[dt]))
                self.declare(name, Sym("const", const(value, BY_NAME[dt]), dt, narrow=narrow))
            return
        narrow = dtype if dtype in ("f16", "bf16") else None
        if narrow is not None:
            e = self.convert(cast(e, f32) if not e.dtype.is_float else e, narrow, value)
        with self.at(target):
            ref = self.kb.let(name, number(e, dt), dt)
        sym = self.declare(name, Sym("local", ref, dt, narrow=narrow))
        if name not in self.u.assigned:   # set once: what its value is a multiple of
            self.definitions[ref.arg] = e
        value = fold(cast(e, BY_NAME[dt])) if fold(e) is not None else None
        if value is not None and name not in self.u.assigned:
            # `unsigned mask = 0xffffffff;`, never assigned again: its value is known where
            # a compile-time one is needed (a shuffle's mask)
            sym.place = ("known", value)

    def pointer_valued(self, node) -> bool:
        """Whether an expression is a pointer in C: `&x`, an array or pointer name, a cast
        to a pointer type, a pointer plus or minus an integer, a choice of two pointers."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "pointer_expression":
            return node.children[0].type == "&"
        if node.type == "identifier":
            sym = self.declared(text(node))
            return sym is not None and (sym.kind in ("pointer", "choice", "global") or
                                        sym.kind == "shared" and sym.lanes == 1)
        if node.type == "cast_expression":
            return text(node.child_by_field_name("type")).rstrip().endswith("*")
        if is_pointer_cast_call(node):
            return True
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator").type
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op == "+":
                return self.pointer_valued(left) or self.pointer_valued(right)
            if op == "-":   # a pointer minus a pointer is their distance
                return self.pointer_valued(left) and not self.pointer_valued(right)
            return False
        if node.type == "conditional_expression":
            return self.pointer_valued(node.child_by_field_name("consequence")) and \
                self.pointer_valued(node.child_by_field_name("alternative"))
        return False

    def reference(self, value) -> Sym:
        """What `T& r = x` aliases: a local (the same Sym) or an array element."""
        while value.type == "parenthesized_expression":
            value = value.named_children[0]
        if value.type == "identifier":
            sym = self.lookup(text(value), value)
            if sym.kind in ("local", "ref", "register", "struct"):
                return sym   # `float4& v = x;`: the same variable
        if value.type == "subscript_expression":
            whole = self.vector_place(value)
            if whole is not None:   # `float3 &p` given vertlist[i]: the vector there
                arr, indices, lanes = whole
                return Sym("ref", None, arr.dtype, lanes, place=(arr, indices))
            arr, indices = self.indexed(value)
            return Sym("ref", None, arr.dtype, place=(arr, indices))
        raise self.error(value, f"`{short(value)}`: a reference to this is not supported "
                                "(a local or an array element)")

    def array(self, d, dtype: str, shared: bool, extern: bool, node, lanes: int = 1,
              volatile: bool = False) -> None:
        dims = []
        while d.type == "array_declarator":
            size = d.child_by_field_name("size")
            dims.insert(0, None if size is None else self.constant_int(size, "an array size"))
            d = d.child_by_field_name("declarator")
        if d.type != "identifier":
            raise self.error(node, f"`{short(node)}`: an array of pointers")
        self.array_of(text(d), dtype, dims, shared and extern, node, lanes, shared, volatile)

    def array_of(self, name: str, dtype: str, dims: list, extern: bool, node, lanes: int = 1,
                 shared: bool = False, volatile: bool = False) -> Sym:
        """Declare an array (a vector type: one more dimension, of its lanes)."""
        if shared and extern:
            # the launch's dynamic shared memory: one view of a name and type, however many
            # declarations name it (cuda-samples' simpleAWBarrier declares `extern __shared__
            # double tmp[]` in a device function it calls twice)
            key = ("extern", name, dtype, tuple(dims[1:]), lanes)
            if key not in self.static_shared:
                self.static_shared[key] = self.new_array(name, dtype, dims, extern, node,
                                                         lanes, shared, volatile)
            return self.declare(name, self.static_shared[key])
        if shared and not extern and self.instantiations:
            # a device function's `__shared__` array: the one of its instantiation
            key = (self.instantiations[-1], node.id, name)
            if key not in self.static_shared:
                # another instantiation's array of this name: a name of its own
                taken = {sym.value.name for sym in self.static_shared.values()}
                unique = next(f"{name}_{k}" if k else name for k in range(len(taken) + 1)
                              if (f"{name}_{k}" if k else name) not in taken)
                self.static_shared[key] = self.new_array(unique, dtype, dims, extern, node,
                                                         lanes, shared, volatile)
                self.scopes[-1].pop(unique, None)
            return self.declare(name, self.static_shared[key])
        return self.new_array(name, dtype, dims, extern, node, lanes, shared, volatile)

    def new_array(self, name: str, dtype: str, dims: list, extern: bool, node, lanes: int = 1,
                  shared: bool = False, volatile: bool = False) -> Sym:
        """A new array (declared in the current scope)."""
        if dtype == "auto":
            raise self.error(node, f"`{short(node)}`: an auto array")
        if lanes > 1:   # (an extern one too: the launch's bytes as rows of the lanes)
            dims = dims + [lanes]
        # a vector is aligned to its size (float3, 12 bytes, to its element's only)
        align = lanes * SIZES[dtype] if lanes in (2, 4) and shared else None
        declared = self.u.align_at(node)
        if shared and declared is not None:
            align = declared
        with self.at(node):
            if shared and extern:
                arr = self.kb.dynamic_shared(name, dtype, tuple([None] + dims[1:]),
                                             align=declared if declared and declared > 16
                                             else None)
                kind = "shared"
            elif None in dims:
                raise self.error(node, f"array '{name}' needs every size")
            elif shared:
                arr = self.kb.shared(name, dtype, tuple(dims), align=align,
                                     volatile=volatile)
                kind = "shared"
            else:
                arr = self.kb.local_array(name, register_type(dtype), tuple(dims))
                kind = "register"
        return self.declare(name, Sym(kind, arr, dtype, lanes, len(dims)))

    def pointer_local(self, name: str, value, dtype: str, node, lanes: int = 1) -> None:
        """`T* p = a + e` / `&a[i][j]` / `a`: a pointer into an array, its movable offset
        held in a local (so `p += k` and `p++` work, and the address it captured stays).
        A vector pointer over scalars (`uint4* v = (uint4*) a`) steps `lanes` elements."""
        if self.swap_pointer(name, value, dtype, node, lanes) or \
                self.choice_pointer(name, value, dtype, node, lanes):
            return
        arr, indices = self.pointer_target(value, dtype, node, lanes)
        lead = []
        for k, e in enumerate(indices[:-1]):
            if fold(e) is None:
                with self.at(node):
                    value, e = e, self.kb.let(f"{name}_i{k}", e, "i32")
                self.definitions[e.arg] = value   # (its row never moves)
            lead.append(e)
        with self.at(node):
            offset = self.kb.let(f"{name}_offset", indices[-1], "i32")
        if name not in self.u.assigned:   # never moved: what its offset is a multiple of
            self.definitions[offset.arg] = indices[-1]
        self.declare(name, Sym("pointer", None, arr.dtype, lanes, 1, (arr, lead, offset)))

    def pointer_target(self, value, dtype: str, node, lanes: int = 1) -> tuple[Sym, list]:
        """(array, indices) a pointer of type `dtype` (a vector type: `lanes` > 1) is given
        by `value`: an `int4 *` over halves reads the halves' bytes (`(int4 *)(A + k)`)."""
        vector = self.vector_cast_on(value) if lanes > 1 else None
        if vector is not None:   # `(int4 *)(A + k) + lane`
            return vector[0], vector[1]
        arr, indices = self.pointer_place(value, node)
        if dtype != "auto" and TYPES.get(dtype, dtype) != arr.dtype and dtype != arr.dtype:
            raise self.error(node, f"`{short(node)}`: a {dtype} pointer into "
                                   f"'{array_name(arr)}' of "
                                   f"{arr.dtype} (casts between pointer types are not "
                                   "supported)")
        return arr, indices

    def expression_statement(self, e) -> None:
        if e.type == "call_expression":
            fn = text(e.child_by_field_name("function"))
            if fn in ("__syncthreads", "__syncthreads_count", "__syncthreads_and",
                      "__syncthreads_or"):
                if fn.startswith("__syncthreads_"):
                    raise self.error(e, f"{fn} (a barrier that reduces) is not supported")
                with self.at(e):
                    self.kb.syncthreads()
                return
            if fn == "__syncwarp":
                args = e.child_by_field_name("arguments").named_children
                mask = self.constant_int(args[0], "a lane mask") & 0xFFFFFFFF if args else None
                with self.at(e):
                    self.kb.syncwarp(mask) if mask is not None else self.kb.syncwarp()
                return
            if fn in PIPELINE:
                self.pipeline(e, fn)
                return
            if fn in ("memset", "std::memset"):
                self.memset(e)
                return
            if fn in ("memcpy", "std::memcpy", "__builtin_memcpy"):
                self.memcpy(e)
                return
            if fn == "assert" and "NDEBUG" not in self.u.pp.macros:
                # a device assert: a thread whose condition is 0 stops the kernel (the
                # launch fails); -DNDEBUG removes it, as <assert.h> does
                args = e.child_by_field_name("arguments").named_children
                if len(args) != 1:
                    raise self.error(e, f"`{short(e)}`: assert takes one condition")
                cond = truth_value(self.expr(args[0]))
                with self.at(e):
                    self.kb.assert_(cond, short(args[0]))
                return
            if fn == "__trap":
                # stops the kernel where it runs (llm.c: `if (C % (32 * x128::size) != 0)
                # { ...; __trap(); }`): an assert whose condition is 0
                with self.at(e):
                    self.kb.assert_(const(0), TRAP_TEXT)
                return
            if fn in ("assert", "__assert_fail", "printf", "__brkpt",
                      "__threadfence", "__threadfence_block", "__threadfence_system"):
                return  # no effect on shared memory or on what the IR computes
            self.expr(e, statement=True)
            return
        if e.type == "gnu_asm_expression":
            self.inline_ptx(e)
            return
        if e.type == "update_expression":
            self.assign(e.child_by_field_name("argument"),
                        "+=" if "++" in text(e) else "-=", const(1), e)
            return
        if e.type == "assignment_expression":
            self.assignment(e)
            return
        if e.type == "comma_expression":
            for part in (e.child_by_field_name("left"), e.child_by_field_name("right")):
                self.expression_statement(part)
            return
        if e.type == "parenthesized_expression":
            self.expression_statement(e.named_children[0])
            return
        if e.type == "cast_expression" and text(e.child_by_field_name("type")) == "void":
            return  # (void)x: silences a warning
        raise self.error(e, f"`{short(e)}` as a statement has no effect the IR can state")

    def memset(self, e) -> None:
        """`memset(acc, 0, sizeof(acc))` on a register array: every element zeroed."""
        args = e.child_by_field_name("arguments").named_children
        sym = self.lookup(text(args[0]), args[0]) if len(args) == 3 and \
            args[0].type == "identifier" else None
        if sym is None or sym.kind != "register" or \
                self.constant_int(args[1], "a fill byte") != 0 or \
                self.constant_int(args[2], "a byte count") != \
                SIZES[sym.dtype] * prod(sym.value.shape):
            raise self.error(e, f"`{short(e)}`: memset of a whole register array to 0 is read "
                                "(memset(a, 0, sizeof(a)))")
        shape = sym.value.shape
        for flat in range(prod(shape)):
            index, rest = [], flat
            for size in reversed(shape):
                index.insert(0, const(rest % size))
                rest //= size
            self.store_element(sym, index, "=", const(0.0 if sym.dtype in FLOAT_TYPES else 0),
                               e)

    def memcpy(self, e) -> None:
        """`memcpy(&dst, &src, sizeof(src))` between registers of one size (llm.c's
        Packed128 and int4): element by element, the bits kept (bit-cast where the element
        types differ)."""
        args = e.child_by_field_name("arguments").named_children
        if len(args) != 3:
            raise self.error(e, f"`{short(e)}`: memcpy takes three arguments")
        dst, src = (self.register_elements(a, e) for a in args[:2])
        n = self.constant_int(args[2], "a byte count")
        sizes = n == sum(SIZES[t] for _, _, t in dst) == sum(SIZES[t] for _, _, t in src)
        values = [ssym.value if sidx is None else self.load_element(ssym, sidx, e)
                  for ssym, sidx, _ in src]
        if sizes and len(dst) == len(src) and all(
                a[2] == b[2] or (SIZES[a[2]] == SIZES[b[2]] and SIZES[a[2]] in (4, 8))
                for a, b in zip(dst, src)):
            with self.at(e):   # element by element, bit-cast where the types differ
                values = [v if dt == st else bitcast(v, BY_NAME[dt])
                          for v, (_, _, dt), (_, _, st) in zip(values, dst, src)]
        elif sizes and len({t for *_, t in src}) == 1 and len({t for *_, t in dst}) == 1 and \
                src[0][2] in PIECE_TYPES and dst[0][2] in PIECE_TYPES:
            with self.at(e):   # int4 <-> bf16[8]: through 16-bit pieces
                values = from_pieces(to_pieces(values, src[0][2]), dst[0][2], len(dst))
        else:
            raise self.error(e, f"`{short(e)}`: a memcpy is read when it copies the whole of "
                                "one register variable into another of the same size, element "
                                "by element (4- or 8-byte elements where their types differ, "
                                "or 4-byte elements and bf16)")
        for (dsym, didx, dt), value in zip(dst, values):
            if didx is None:
                self.assign_local(dsym, "=", value, e)
            else:
                self.store_element(dsym, didx, "=", value, e)

    def register_elements(self, node, where) -> list:
        """[(Sym, index or None, IR type)] of each element of a register variable, in
        memory order: `&x` or an array's name; a local, a register array (a vector), a
        struct value (its fields in order)."""
        node = self.uncast(node, ("&",))
        sym = self.lookup(text(node), node) if node.type == "identifier" else \
            self.struct_member(node) if node.type == "field_expression" else None
        if sym is not None and sym.kind == "struct":
            return [e for member in sym.place.values()
                    for e in self.register_elements_of(member)]
        if sym is None or sym.kind not in ("local", "register"):
            raise self.error(where, f"`{short(node)}`: memcpy between register variables is "
                                    "read (a local, a register array or vector, a struct)")
        return self.register_elements_of(sym)

    def register_elements_of(self, sym: Sym) -> list:
        """The elements of a register Sym (a local, a register array, a struct value), as
        register_elements lists them."""
        if sym.kind == "struct":
            return [e for member in sym.place.values()
                    for e in self.register_elements_of(member)]
        if sym.kind == "local":   # a __nv_bfloat16 local is held as a float
            return [(sym, None, sym.narrow or sym.dtype)]
        return [(sym, index, sym.dtype) for index in flat_indices(sym.value.shape)]

    def assignment(self, e):
        """`a = b` (also chained: `a = b = c`); returns the value assigned."""
        op = e.child_by_field_name("operator").type
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        obj = self.struct_object(left)
        if obj is not None:   # `a = op(a, b)` of structs: field by field
            if op != "=":
                raise self.error(e, f"`{short(e)}`: {op} on a struct")
            self.copy_struct(obj, self.struct_value(right, obj.value), e)
            return None
        memory = self.struct_in_memory(left)
        if memory is not None:   # `s_in[i] = in_data;` of a struct pointer
            if op != "=":
                raise self.error(e, f"`{short(e)}`: {op} on a struct")
            self.store_struct(memory, right, e)
            return None
        if op == "=" and left.type == "identifier" and \
                self.lookup(text(left), left).kind in ("pointer", "null_pointer"):
            # `p = q + k` (of a vector pointer too: not a store of the vector it points at)
            self.repoint(left, self.lookup(text(left), left), right, e)
            return None
        if op == "=" and left.type == "identifier" and \
                self.lookup(text(left), left).kind == "struct_pointer":
            self.repoint_struct(left, self.lookup(text(left), left), right, e)
            return None
        if op in ("+=", "-=") and left.type == "identifier" and \
                self.lookup(text(left), left).kind == "pointer":
            # `data += bx * N` of a vector pointer: the pointer moves (not a vector sum)
            self.assign(left, op, self.expr(right), e)
            return None
        self.refuse_moving_an_array(left, e)
        place = self.vector_place(left)
        if place is not None and op != "=" and f"operator{op}" in self.u.functions:
            # `v += w` of helper_math.h's operator+=(float3 &a, float3 b)
            self.inline(e, f"operator{op}", [left, right], None, as_statement=True)
            return None
        if place is not None:
            if op != "=":
                raise self.error(e, f"`{short(e)}`: {op} on a whole vector (CUDA has no such "
                                    "operator, and the file defines none)")
            self.store_vector(*place, right, e)
            return None
        if op == "=" and left.type == "identifier":
            sym = self.lookup(text(left), left)
            if sym.kind == "mbarrier":   # `front = back;` of pointers to barriers
                self.repoint_barrier(sym, right, e)
                return None
        if right.type == "assignment_expression":
            value = self.assignment(right)
        else:
            value = self.expr(right)
        self.assign(left, op, value, e)
        return value

    def refuse_moving_an_array(self, target, node) -> None:
        """A pointer parameter bound to a whole array of vectors (`half2 *v` given a
        __shared__ half2 array) is that array: assigning it (moving the pointer) is refused
        at its line."""
        if target.type == "identifier" and (sym := self.declared(text(target))) is not None \
                and sym.kind in ("shared", "global") and sym.lanes > 1 and \
                array_name(sym) != text(target):
            raise self.error(node, f"`{short(node)}`: '{text(target)}' is the whole array "
                                   f"'{array_name(sym)}' it was given: a pointer to an array "
                                   "of vectors that moves is not read")

    def assign(self, target, op: str, value: Expr, node) -> None:
        while target.type == "parenthesized_expression":
            target = target.named_children[0]
        self.refuse_moving_an_array(target, node)
        if target.type == "identifier":
            sym = self.lookup(text(target), target)
            if sym.kind == "pointer":
                if op not in ("+=", "-="):
                    raise self.error(node, f"`{short(node)}`: only p += n, p -= n, p++ and "
                                           "p-- move a pointer")
                offset = sym.place[2]
                lanes = vector_step(sym.place[0], sym.lanes)
                step = value * lanes if lanes > 1 else value
                with self.at(node):
                    self.kb.assign(offset, offset + step if op == "+=" else offset - step)
                return
            if sym.kind == "ref" and sym.place is not None:
                arr, indices = sym.place
                self.store_element(arr, indices, op, value, node)
                return
            if sym.kind == "cell":  # a scalar in memory (__shared__ or __device__)
                self.store_element(sym, [const(0)], op, value, node)
                return
            if sym.kind not in ("local", "ref"):
                raise self.error(node, f"'{text(target)}' is a {sym.kind}, not a local "
                                       "variable: it cannot be assigned")
            self.assign_local(sym, op, value, node)
            return
        if target.type == "field_expression" and \
                (member := self.struct_member(target) or self.struct_array_field(target)):
            if member.kind == "local":   # `res.sum = ...`
                self.assign_local(member, op, value, node)
            elif member.kind == "ref":   # `table[i].S = ...`
                self.store_element(*member.place, op, value, node)
            else:
                raise self.error(node, f"`{short(target)}` is a field of {member.kind} kind "
                                       "(an array or a struct): assign its elements")
            return
        if target.type == "field_expression":
            where = self.component(target)
            arr, indices = where
            self.store_element(arr, indices, op, value, node)
            return
        if (element := self.fragment_element(target)) is not None:
            self.fragment_write(*element, op, value, node)   # `c.x[t] *= beta`
            return
        if (local := self.through_local_pointer(target)) is not None:
            self.assign_local(local, op, value, node)    # `*w = bits` of `ushort *w`
            return
        if target.type in ("subscript_expression", "pointer_expression"):
            arr, indices = self.element_place(target)
            self.store_element(arr, indices, op, value, node)
            return
        if target.type == "call_expression" and \
                callee_name(target.child_by_field_name("function")) in self.u.functions:
            # `vec_at(v, 3) = x`: the element the function returns a reference to
            function = self.u.functions[callee_name(target.child_by_field_name("function"))][0]
            arr, indices = self.returned_place(
                target, function, target.child_by_field_name("arguments").named_children)
            self.store_element(arr, indices, op, value, node)
            return
        raise self.error(node, f"assignment to `{short(target)}` is not supported")

    def local_pointee(self, arg) -> Sym | None:
        """The local scalar a pointer argument points at (`&start`, or a parameter that
        holds such a pointer), else None."""
        while arg.type == "parenthesized_expression":
            arg = arg.named_children[0]
        if arg.type == "identifier":
            sym = self.declared(text(arg))
            return sym.place if sym is not None and sym.kind == "local_pointer" else None
        if arg.type == "pointer_expression" and arg.children[0].type == "&" and \
                arg.named_children[0].type == "identifier":
            sym = self.declared(text(arg.named_children[0]))
            if sym is not None and sym.kind == "local" and sym.lanes == 1:
                return sym
        return None

    def through_local_pointer(self, node) -> Sym | None:
        """The local that `*p` or `p[0]` is, for a pointer to a local scalar; else None (an
        index other than 0 is refused: past the one scalar)."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "pointer_expression" and node.children[0].type == "*":
            base = node.named_children[0]
        elif node.type == "subscript_expression":
            base = node.child_by_field_name("argument")
        else:
            return None
        sym = self.declared(text(base)) if base.type == "identifier" else None
        if sym is None or sym.kind != "local_pointer":
            return None
        if node.type == "subscript_expression" and fold(self.expr(subscript_index(node))) != 0:
            raise self.error(node, f"`{short(node)}`: '{text(base)}' points at one scalar: "
                                   "only index 0 is that scalar")
        return sym.place

    def assign_local(self, sym: Sym, op: str, value: Expr, node) -> None:
        """`x op= value` of a local (a struct's scalar field too)."""
        ref = sym.value
        if op != "=":
            value = self.c_binary(op[:-1], ref, value, node)
        if sym.narrow is not None:   # a __half / __nv_bfloat16 local: C converts
            value = self.convert(cast(value, f32) if not value.dtype.is_float else value,
                                 sym.narrow, node)
        with self.at(node):
            self.kb.assign(ref, number(value, sym.dtype))

    def repoint(self, target, sym: Sym, value, node) -> None:
        """`p = q + k`: into the same array, the pointer's offset moves (anywhere); into
        another array, the name is bound anew, which straight-line code allows (inside a
        loop or a branch the target would depend on the path: refused)."""
        arr, indices = self.pointer_target(value, "auto", node, sym.lanes) \
            if sym.lanes > 1 else self.pointer_place(value, node)
        old, lead, offset = sym.place if sym.kind == "pointer" else (None, (), None)
        # (a vector view is made anew each time it is named: the same array and type is it)
        same = old is not None and (arr is old or (arr.value is old.value and
                                                   arr.pun == old.pun))
        if same and len(indices) == len(lead) + 1 and \
                all(fold(a) is not None and fold(a) == fold(b) for a, b in zip(indices, lead)):
            with self.at(node):
                self.kb.assign(offset, indices[-1])
            return
        parent = node.parent
        while parent is not None and parent.type != "function_definition":
            if parent.type in CONTROL:
                raise self.error(node, f"`{short(node)}`: a pointer pointed at another array "
                                       "inside a loop or branch (other than a swap between "
                                       "two arrays' pointers)" if old is not None else
                                 f"`{short(node)}`: a pointer declared null first pointed at an "
                                 "array inside a loop or branch")
            parent = parent.parent
        name = text(target)
        for scope in reversed(self.scopes):
            if name in scope:
                saved = self.scopes[-1]
                self.scopes[-1] = scope
                try:
                    self.pointer_local(name, value, "auto" if old is not None else sym.dtype,
                                       node, sym.lanes)
                finally:
                    self.scopes[-1] = saved
                return

    def store_element(self, arr: Sym, indices: list, op: str, value: Expr, node) -> None:
        if op != "=":
            value = self.c_binary(op[:-1], self.load_element(arr, indices, node), value, node)
        if arr.boolean:  # C's conversion to bool: any nonzero value is true (1)
            with self.at(node):
                value = binary(Op.NE, value, const(0, value.dtype))
        value = number(value, arr.dtype)
        with self.at(node):
            arr.value[tuple(indices)] = value

    def load_element(self, arr: Sym, indices: list, node) -> Expr:
        with self.at(node):
            return arr.value[tuple(indices)]

    # ---------------------------------------------------------------- expressions
    def c_binary(self, op: str, a: Expr, b: Expr, node) -> Expr:
        """C's `a op b` with C's types (`/` between integers truncates)."""
        with self.at(node):
            if op == "&&":
                return logical_and(a, b)
            if op == "||":
                return logical_or(a, b)
            ops = {"+": Op.ADD, "-": Op.SUB, "*": Op.MUL, "%": Op.MOD, "<<": Op.SHL,
                   ">>": Op.SHR, "&": Op.AND, "|": Op.OR, "^": Op.XOR, "<": Op.LT,
                   "<=": Op.LE, ">": Op.GT, ">=": Op.GE, "==": Op.EQ, "!=": Op.NE}
            try:
                if op == "/":
                    is_float = a.dtype.is_float or b.dtype.is_float
                    return binary(Op.DIV, a, b, int_div=not is_float, float_div=is_float)
                if op not in ops:
                    raise self.error(node, f"operator {op} is not supported")
                result = binary(ops[op], a, b)
            except CudaImportError:
                raise
            except KernelError as err:
                raise self.error(node, f"`{short(node)}`: {err.message}") from None
            if op in ("<<", ">>"):
                count = fold(b)
                if count is not None and not 0 <= count < result.dtype.bits:
                    raise self.error(node, f"`{short(node)}`: shift by {count} on a "
                                           f"{result.dtype.bits}-bit value (undefined in C)")
            return result

    def expr(self, node, statement: bool = False) -> Expr:
        t = node.type
        if t == "number_literal":
            literal = text(node)
            if literal.startswith(("-", "+")):  # the grammar reads `-8` (from a macro) as one
                try:
                    value, dtype = literal_type(literal[1:])
                except ValueError:
                    raise self.error(node, f"`{literal}` is not a number C++ reads") from None
                inner = const(value, BY_NAME[dtype])
                with self.at(node):
                    return -inner if literal[0] == "-" else inner
            try:
                value, dtype = literal_type(text(node))
            except ValueError as err:
                raise self.error(node, str(err)) from None
            return const(value, BY_NAME[dtype])
        if t in ("true", "false"):
            return const(1 if t == "true" else 0)
        if t == "char_literal":
            from .literals import char_value
            try:
                return const(char_value(text(node)[1:-1]), BY_NAME["i8"])
            except ValueError as err:
                raise self.error(node, str(err)) from None
        if t in ("null", "nullptr") and truth_context(node):
            return const(0)
        if t == "null" or t == "nullptr":
            raise self.error(node, "a null pointer as a value")
        if t == "identifier":
            sym = self.lookup(text(node), node)
            if sym.kind in ("local", "param", "loop", "const"):
                return sym.value
            if sym.kind == "struct":
                raise self.error(node, f"'{text(node)}' is a {sym.dtype}: a struct is read "
                                       "through its fields")
            if sym.kind == "struct_pointer":
                raise self.error(node, f"'{text(node)}' points at {sym.value.name}: read its "
                                       "elements (`p[i]`, `p[i].field`)")
            if sym.kind == "ref" and sym.place is not None:
                return self.load_element(*sym.place, node)
            if sym.kind == "cell":
                return self.load_element(sym, [const(0)], node)
            if sym.kind == "smem_address":
                raise self.error(node, f"'{text(node)}' holds a shared address "
                                       "(__cvta_generic_to_shared): the importer takes it "
                                       "only as an inline-PTX operand")
            if sym.kind == "activemask":
                raise self.error(node, f"'{text(node)}' holds __activemask(): the importer "
                                       "reads it as the mask of a shuffle or __syncwarp only")
            if sym.kind in ("descriptor", "mbarrier", "tensor_map"):
                what = {"descriptor": "a wgmma matrix descriptor (read as a wgmma operand)",
                        "mbarrier": "a barrier (read by its own calls)",
                        "tensor_map": "a tensor map (read by the TMA calls)"}[sym.kind]
                raise self.error(node, f"'{text(node)}' is {what}, not a value")
            if sym.lanes > 1 and sym.kind == "register":
                raise self.error(node, f"`{short(node)}` is a whole vector: use its "
                                       ".x/.y/.z/.w, or assign it to a vector")
            if sym.kind in ("global", "pointer") and truth_context(node):
                # `if (bias != NULL)`, `bias ? bias[o] : 0`: every global array of the
                # analyzed launch exists, so a pointer's truth is 1 (docs/importer.md),
                # but one the launch passes NULL
                target = sym.place[0] if sym.kind == "pointer" else sym
                return const(0 if target.place == ("null",) else 1)
            raise self.error(node, f"'{text(node)}' ({sym.kind} array or pointer) used as a "
                                   "value")
        if t == "field_expression":
            base = text(node.child_by_field_name("argument"))
            fld = text(node.child_by_field_name("field"))
            dims = {"threadIdx": threadIdx, "blockIdx": blockIdx, "blockDim": blockDim,
                    "gridDim": gridDim}
            if base in dims and fld in "xyz":
                return getattr(dims[base], fld)
            dim = self.group_dim3(node.child_by_field_name("argument"))
            if dim is not None and fld in "xyz":
                return getattr(dim, fld)
            if fld == "num_elements" and (count := self.fragment_count(node)) is not None:
                return count
            member = self.struct_member(node) or self.struct_array_field(node)
            if member is not None:
                if member.kind in ("local", "const", "param"):
                    return member.value
                if member.kind == "ref":
                    return self.load_element(*member.place, node)
                raise self.error(node, f"`{short(node)}` is a field of {member.kind} kind "
                                       "(an array or a struct): read its elements")
            if fld in COMPONENTS:
                arr, indices = self.component(node)
                return self.load_element(arr, indices, node)
            raise self.error(node, f"`{short(node)}`: a field of something that is not a "
                                   "struct the importer reads")
        if t == "parenthesized_expression":
            return self.expr(node.named_children[0])
        if t == "subscript_expression" and (element := self.fragment_element(node)) is not None:
            return self.fragment_read(*element, node)   # `c.x[t]` of a wmma accumulator
        if t in ("subscript_expression", "pointer_expression"):
            if t == "pointer_expression" and node.children[0].type == "&":
                raise self.error(node, f"`{short(node)}`: an address as a value (pointers "
                                       "may be declared: T* p = &a[i])")
            if (local := self.through_local_pointer(node)) is not None:
                return local.value    # `*w` of a pointer to a local scalar
            if self.vector_place(node) is not None:
                raise self.error(node, f"`{short(node)}` is a whole vector: use its "
                                       ".x/.y/.z/.w, or assign it to a vector")
            arr, indices = self.element_place(node)
            return self.load_element(arr, indices, node)
        if t == "binary_expression":
            op = node.child_by_field_name("operator").type
            if op in ("&&", "||") and touches_memory(node.child_by_field_name("right")):
                return self.short_circuit(node, op)
            if op == "-" and self.pointer_valued(node.child_by_field_name("left")) and \
                    self.pointer_valued(node.child_by_field_name("right")):
                return self.pointer_difference(node)
            a = self.expr(node.child_by_field_name("left"))
            b = self.expr(node.child_by_field_name("right"))
            kind = self.half_type(node) if op in ("+", "-", "*", "/") else None
            if kind is not None:
                # two halves (or two bf16): cuda_fp16.hpp's operator is __hadd & co.
                return self.half_result(op, [a, b], kind, node)
            return self.c_binary(op, a, b, node)
        if t == "unary_expression":
            op = node.child_by_field_name("operator").type
            a = self.expr(node.child_by_field_name("argument"))
            with self.at(node):
                if op == "!":
                    return lnot(a)
                if op == "-":
                    return -a
                if op == "~":
                    if a.dtype.is_float:
                        raise self.error(node, "operator ~ needs an integer operand")
                    return ~a
                if op == "+":  # integer promotion, as C's unary plus does
                    return cast(a, i32) if a.dtype.size < 4 and not a.dtype.is_float else a
            raise self.error(node, f"unary {op} is not supported")
        if t == "conditional_expression":
            if touches_memory(node.child_by_field_name("consequence")) or \
                    touches_memory(node.child_by_field_name("alternative")):
                return self.conditional(node)
            c = self.expr(node.child_by_field_name("condition"))
            a = self.expr(node.child_by_field_name("consequence"))
            b = self.expr(node.child_by_field_name("alternative"))
            with self.at(node):
                return select(c, a, b)
        if t == "cast_expression":
            dtype = self.dtype(node.child_by_field_name("type"), node)
            a = self.expr(node.child_by_field_name("value"))
            return self.convert(a, dtype, node)
        if t == "call_expression":
            return self.call(node, statement)
        if t == "qualified_identifier" and (value := self.struct_static(node)) is not None:
            return value   # `x128::size`
        if t == "alignof_expression":   # `alignof(float4)`: 16; a scalar type its size
            inner = node.named_children[0]
            if inner.type == "type_descriptor":
                inner = inner.child_by_field_name("type") or inner
            dtype, lanes = self.vtype(inner, node)
            return const(SIZES[dtype] * (lanes if lanes in (2, 4) else 1), BY_NAME["u64"])
        if t == "sizeof_expression":
            inner = node.named_children[0] if node.named_children else node
            if inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            if inner.type == "type_descriptor":
                inner = inner.child_by_field_name("type") or inner
            if inner.type == "identifier" and any(text(inner) in s for s in self.scopes):
                sym = self.lookup(text(inner), inner)
                if sym.kind in ("shared", "register") and sym.value.shape and \
                        None not in sym.value.shape:
                    # sizeof(tile): its bytes (lanes of a vector type are a dimension)
                    return const(SIZES[sym.dtype] * prod(sym.value.shape), BY_NAME["u64"])
                if sym.kind in ("shared", "register", "global"):
                    raise self.error(node, f"`{short(node)}`: sizeof of an array")
                return const(SIZES[sym.dtype] * sym.lanes, BY_NAME["u64"])
            if self.names_struct(inner):
                # sizeof(Node) of a struct of the file (the host's cudaMalloc sizes): C++'s
                # layout, padding included
                return const(self.struct_type(inner, node).byte_layout()[1],
                             BY_NAME["u64"])
            dtype, lanes = self.vtype(inner, node)
            return const(SIZES[dtype] * lanes, BY_NAME["u64"])  # size_t
        if t == "assignment_expression":
            value = self.assignment(node)
            if value is None:
                raise self.error(node, f"`{short(node)}`: a vector assignment as a value")
            return value
        if t == "update_expression" and statement:
            self.expression_statement(node)
            return const(0)
        if t == "update_expression":   # `return st++;`: the value before (after, for ++st)
            target = node.child_by_field_name("argument")
            before = self.expr(target)
            with self.at(node):
                before = self.kb.let("old", before, before.dtype.name)
            self.assign(target, "+=" if "++" in text(node) else "-=", const(1), node)
            return before if text(node).startswith(text(target)) else self.expr(target)
        if t == "comma_expression":
            self.expression_statement(node.child_by_field_name("left"))
            return self.expr(node.child_by_field_name("right"))
        raise self.error(node, f"{t.replace('_', ' ')} `{short(node)}` is not supported by "
                               "the importer")

    def conditional(self, node) -> Expr:
        """`c ? a : b` whose sides read memory: only the side taken runs (C's rule: `(i <
        n) ? s[i] : 0` must not read s[n]), as an if/else into a local of their type."""
        c = self.expr(node.child_by_field_name("condition"))
        sides = (node.child_by_field_name("consequence"), node.child_by_field_name("alternative"))
        # the type C gives the result, before anything is stated
        dtype = self.trial_type(lambda: select(c, self.expr(sides[0]),
                                               self.expr(sides[1])), node)
        with self.at(node):
            result = self.kb.let("cond", 0.0 if dtype.is_float else 0, dtype)
            with self.kb.if_(c):
                self.set_to(result, sides[0], node)
            with self.kb.else_():
                self.set_to(result, sides[1], node)
        return result

    def trial_type(self, make, node):
        """The type of the expression `make()` builds, with nothing it states kept."""
        with self.trial(), self.at(node):
            return make().dtype

    @contextlib.contextmanager
    def trial(self):
        """Lower something for what it is (a type, a place), keeping nothing it states (the
        builder's trial), nor the arrays it declared on first use (the file's __constant__
        memory, a view: they would outlive the declarations the trial drops)."""
        kept = ("views", "dynamic_views", "static_shared")
        caches = {k: dict(self.__dict__[k]) for k in kept if k in self.__dict__}
        outer = dict(self.scopes[0])
        try:
            with self.kb.trial():
                yield
        finally:
            for k in kept:
                if k in caches:
                    self.__dict__[k] = caches[k]
                else:
                    self.__dict__.pop(k, None)
            self.scopes[0].clear()
            self.scopes[0].update(outer)

    def short_circuit(self, node, op: str) -> Expr:
        """`a && b` / `a || b` whose right side reads memory: it runs only when C would
        evaluate it (`i < n && s[i] > 0` must not read s[n])."""
        with self.at(node):
            result = self.kb.let("cond", truth_value(self.expr(node.child_by_field_name("left"))),
                                 "i32")
            with self.kb.if_(result if op == "&&" else lnot(result)):
                self.set_to(result, node.child_by_field_name("right"), node, truth=True)
        return result

    def set_to(self, ref, value_node, node, truth: bool = False) -> None:
        value = self.expr(value_node)
        with self.at(node):
            self.kb.assign(ref, truth_value(value) if truth else value)

    def convert(self, a: Expr, dtype: str, node) -> Expr:
        if dtype in ("f16", "bf16"):
            # registers hold no 16-bit floats: the value is the float rounded to one (a
            # store of it stores the same bits), as `(float)(__nv_bfloat16)x` computes
            if a.op is Op.CALL and a.arg == f"round_{dtype}":
                return a   # already that type's value (`__half h = __float2half(x)`)
            if a.dtype not in (BY_NAME["f32"], BY_NAME["f64"]):
                # an integer, exact as a double (32 bits are), then rounded once
                a = cast(a, BY_NAME["f64"])
            with self.at(node):
                return call(f"round_{dtype}", a)
        with self.at(node):
            return cast(a, BY_NAME[register_type(dtype)])

    def call(self, node, statement: bool = False, struct: bool = False) -> Expr:
        """A call's value (a struct Sym for one that returns a struct, where `struct` says
        the caller takes one)."""
        value = self.call_value(node, statement)
        if isinstance(value, Sym) and not struct:
            if statement:
                return const(0)
            if value.kind == "struct":
                raise self.error(node, f"`{short(node)}` returns a {value.dtype}: use it as a "
                                       "struct (a struct variable, a field of it)")
            raise self.error(node, f"`{short(node)}` is a whole vector: use its .x/.y/.z/.w, "
                                   "or assign it to a vector")
        return value

    def call_value(self, node, statement: bool):
        """What a call evaluates to: an Expr, or the Sym of a struct or vector a function
        returns."""
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments").named_children
        if fn.type == "field_expression":
            base = fn.child_by_field_name("argument")
            if self.pipeline_or_none(base) is not None:   # `pipe.producer_commit()`
                return self.pipeline_member(node, text(fn.child_by_field_name("field")), args)
            bar = self.barrier_or_none(base)
            if bar is not None:   # `bar.wait(t)`, `full[q].arrive()`
                return self.barrier_member(node, bar, text(fn.child_by_field_name("field")),
                                           args)
            obj = self.struct_object(base) or self.shared_struct_object(base)
            if obj is not None:   # `schedule.next()`, `q.reset(i)` of a __shared__ struct
                return self.method_call(node, obj, text(fn.child_by_field_name("field")),
                                        args)
            if base.type == "identifier":
                group = self.lookup(text(base), base)
                if group.kind == "group":
                    return self.group_call(node, group, text(fn.child_by_field_name("field")),
                                           args)
        if callee_name(fn) == "sync" and len(args) == 1 and args[0].type == "identifier":
            group = self.lookup(text(args[0]), args[0])
            if group.kind == "group":
                return self.group_call(node, group, "sync", [])
        if callee_name(fn) == "reduce" and fn.type == "qualified_identifier":
            return self.reduce(node, args)
        if fn.type == "qualified_identifier" and \
                (owner := self.struct_type(fn.child_by_field_name("scope"), node)) is not None:
            return self.method_call(node, owner, callee_name(fn), args)   # `x128::zeros()`
        this = self.this_stack[-1] if self.this_stack else None
        if this is not None and callee_name(fn) in this[0].methods and \
                fn.type in ("identifier", "template_function"):
            # another member function, called from a member function
            return self.method_call(node, this[1] if this[1] is not None else this[0],
                                    callee_name(fn), args,
                                    fn.child_by_field_name("arguments"))
        while fn.type == "qualified_identifier" and callee_name(fn) in self.u.functions:
            fn = fn.child_by_field_name("name")
        if (wmma := is_wmma_call(fn, self.u)) is not None:
            return self.wmma_call(node, wmma, args)
        if fn.type == "template_function":
            tname = text(fn.child_by_field_name("name"))
            if tname in ("static_cast", "reinterpret_cast") and len(args) == 1:
                targs = fn.child_by_field_name("arguments").named_children
                if tname == "reinterpret_cast" and "*" in text(targs[0]):
                    raise self.error(node, f"`{short(node)}` is a whole vector: use its "
                                           ".x/.y/.z/.w, or assign it to a vector")
                dtype = self.dtype(targs[0], node)
                return self.convert(self.expr(args[0]), dtype, node)
            if tname in self.u.functions:
                return self.inline(node, tname, args, fn.child_by_field_name("arguments"))
            done = self.texture_call(node, tname,
                                     fn.child_by_field_name("arguments").named_children, args)
            if done is not None:
                return done
            done = self.group_copy_call(node, callee_name(fn), args)
            if done is None:
                done = self.pipeline_call(node, tname, args)
            if done is None:
                done = self.hopper_call(node, tname, args)
            if done is not None:
                return done
            raise self.error(node, f"call of template '{tname}' is not supported")
        name = text(fn)
        if fn.type in ("primitive_type", "sized_type_specifier") and len(args) == 1 and \
                name in TYPES:
            # `int(j / 8)`: C++'s functional cast, as `(int)(j / 8)`
            return self.convert(self.expr(args[0]), TYPES[name], node)
        if fn.type == "identifier" and len(args) == 1 and name not in self.u.functions and \
                self.declared(name) is None and (name in self.u.typedefs or name in TYPES):
            # `uint(a < b)` of a type's other name (a typedef, the headers' uint)
            return self.convert(self.expr(args[0]), self.u.typedefs.get(name, TYPES.get(name)),
                                node)
        passed = self.declared(name) if fn.type == "identifier" else None
        if passed is not None and passed.kind == "function":   # `warp_reduction(val)`
            return self.inline(node, passed.value, args, None)
        if passed is not None and passed.kind == "lambda":     # `loop_step(t2)`
            return self.inline(node, name, args, None, candidates=[passed.value[0]],
                               outer=passed.value[1])
        if name in ATOMICS:
            return self.atomic(node, ATOMICS[name], args)
        if name in SHUFFLES:
            return self.shuffle(node, SHUFFLES[name], args)
        if name in VOTES:
            if len(args) != 2:
                raise self.error(node, f"`{short(node)}`: {name} takes a mask and a predicate")
            mask, predicate = self.lane_mask_or_expr(args[0]), self.expr(args[1])
            with self.at(node):
                return self.kb.vote(predicate, VOTES[name], mask=mask)
        if name in HALF_ARITH:
            return self.half_arith(node, name, args)
        if name in PAIR_LANES and len(args) == 1:   # `__low2float(h2)`: one lane of a pair
            return self.vector_value(args[0], 2)[PAIR_LANES[name]]
        if name in HALF_MATH and len(args) == 1:
            return self.half_math(node, name, args[0])
        if name == "__nv_cvt_fp8_to_halfraw" and len(args) == 2:
            return self.fp8_to_half(node, args)
        if name == "__nv_cvt_float_to_fp8" and len(args) == 3:
            return self.float_to_fp8(node, args)
        if name in ("__ushort_as_half", "__short_as_half") and len(args) == 1:
            with self.at(node):   # the half whose bits these are
                return call("f16_from_bits", cast(self.expr(args[0]), u32))
        if name in ("__half_as_ushort", "__half_as_short") and len(args) == 1:
            with self.at(node):
                bits = call("f16_bits", self.expr(args[0]))
                return cast(bits, BY_NAME["u16"] if name.endswith("ushort") else BY_NAME["i16"])
        if name in self.u.functions and (
                self.overloads(name, args) or name not in MINMAX and name not in MATH):
            # (helper_math.h's max of float3s leaves max of floats to CUDA's own)
            return self.inline(node, name, args, None)
        done = self.texture_call(node, name, None, args)
        if done is None:
            done = self.group_copy_call(node, callee_name(fn), args)
        if done is None:
            done = self.pipeline_call(node, callee_name(fn), args)
        if done is not None:
            return done
        done = self.hopper_call(node, name, args)
        if done is not None:
            return done
        if name in CACHE_LOADS and len(args) == 1:
            # __ldg(&a[i]) and the cache-hint loads: a load of a[i] (the hint changes the
            # cache policy, not the element)
            arr, indices = self.pointer_place(args[0], node)
            return self.load_element(arr, indices, node)
        if name in CACHE_STORES and len(args) == 2 and \
                (place := self.vector_cast(args[0])) is not None:
            # `__stcs(reinterpret_cast<int4*>(p), bits)`: one vector store
            self.store_vector(*place, args[1], node)
            return const(0)
        if name in CACHE_STORES and len(args) == 2:
            arr, indices = self.pointer_place(args[0], node)
            self.store_element(arr, indices, "=", self.expr(args[1]), node)
            return const(0)
        if fn.type == "parenthesized_expression" and len(args) == 1:
            # `(floatX)(x)`: a cast the grammar reads as a call
            return self.convert(self.expr(args[0]), self.dtype(fn.named_children[0], node), node)
        if name in ("clock", "clock64") and not args:
            # time is not modelled: a clock reads 0 (kernels time themselves with it; a
            # shared access that depends on the clock is beyond the model, docs/importer.md)
            return const(0)
        if name in ("__builtin_huge_valf", "__builtin_huge_val") and not args:
            return const(float("inf"), f32 if name.endswith("f") else BY_NAME["f64"])
        if name in BITCASTS and len(args) == 1:   # `__int_as_float(i)`: the same bits
            source, target = BITCASTS[name]
            with self.at(node):
                return bitcast(cast(self.expr(args[0]), BY_NAME[source]), BY_NAME[target])
        if name in ("__builtin_nanf",):
            raise self.error(node, f"`{short(node)}`: NaN constants are not in the IR")
        vals = [self.expr(a) for a in args]
        if name in FLOAT_MATH:   # `sqrtf(2.0f / M_PI)`: the double argument becomes a float
            vals = [cast(v, f32) if v.dtype.is_float and v.dtype.size == 8 else v for v in vals]
        with self.at(node):
            if name in MINMAX and len(vals) == 2:
                return (smin if MINMAX[name] == "min" else smax)(*vals)
            if name in MATH:
                try:
                    return call(MATH[name], *vals)
                except KernelError as err:
                    raise self.error(node, f"`{short(node)}`: {err.message}") from None
            if name == "__saturatef" and len(vals) == 1:
                # clamped to [0, 1]; NaN gives 0 (the CUDA math API's definition)
                v = vals[0]
                return select(v > 0.0, select(v < 1.0, v, const(1.0, v.dtype)), const(0.0, v.dtype))
            if name in ("abs",) and len(vals) == 1:
                v = vals[0]
                return select(v < 0, -v, v)
            if name in ("__fdividef", "__fdiv_rn", "fdividef") and len(vals) == 2:
                return self.c_binary("/", vals[0], vals[1], node)
            if name in ("__mul24", "__umul24") and len(vals) == 2:
                # the low 32 bits of the product of the operands' low 24 bits (sign-extended
                # for __mul24), as the PTX mul24.lo defines it
                t = i32 if name == "__mul24" else u32
                low = [cast(v, t) & 0xFFFFFF if t == u32 else (cast(v, t) << 8) >> 8
                       for v in vals]
                return low[0] * low[1]
            if name in INTEGER_BITS and len(vals) == 1:
                # __popc(x), __clzll(x), ...: the operand converted to the intrinsic's width
                fn, width = INTEGER_BITS[name]
                return call(fn, cast(vals[0], BY_NAME["u64" if width == 8 else "u32"]))
            if name in ("__fmul_rn",) and len(vals) == 2:
                return vals[0] * vals[1]
            if name in ("__fadd_rn",) and len(vals) == 2:
                return vals[0] + vals[1]
            if name in ("__float2int_rz", "__half2int_rz", "__bfloat162int_rz") and \
                    len(vals) == 1:
                return cast(vals[0], i32)
            if name in ("__int2float_rn", "__uint2float_rn") and len(vals) == 1:
                return cast(vals[0], f32)
            if name == "__activemask":
                raise self.error(node, "__activemask() as a value: the importer reads it as "
                                       "the mask of a shuffle or __syncwarp (directly or "
                                       "through a local)")
            if name in HALF_ROUNDINGS and len(vals) == 1:   # __float2half(x) as a value
                return self.convert(vals[0], HALF_ROUNDINGS[name], node)
            if name.split("::")[-1] == "__float_to_tf32" and len(vals) == 1:   # wmma tf32
                return self.tf32_rounded(vals[0], node)
            if name in ("__half2float", "__bfloat162float", "__low2float") and \
                    len(vals) == 1 and vals[0].dtype == f32:
                return vals[0]   # a 16-bit value read from memory is already its float
        raise self.error(node, f"call of '{name}' is not supported by the importer")

    # ---------------------------------------------------------------- 16-bit floats
    def half_arith(self, node, name: str, args) -> Expr:
        """cuda_fp16.h's and cuda_bf16.h's scalar arithmetic (`__hadd(a, b)`, `__hfma`,
        `__hmax`, `__hlt`, ...) on values held as their floats: formed in double (exact for
        two 16-bit floats' sum, difference and product) and rounded once to the arguments'
        type, which their declarations say (half or __nv_bfloat16)."""
        op, count = HALF_ARITH[name]
        if len(args) != count:
            raise self.error(node, f"{name} takes {count} argument(s), got {len(args)}")
        kinds = {k for k in (self.half_type(a) for a in args) if k is not None}
        if len(kinds) != 1:
            raise self.error(node, f"`{short(node)}`: "
                                   + ("its arguments mix half and __nv_bfloat16" if kinds else
                                      "the importer cannot tell whether its arguments are "
                                      "half or __nv_bfloat16 (a variable of that type, an "
                                      "element of such an array, or __float2half(x))"))
        kind = kinds.pop()
        vals = [self.expr(a) for a in args]
        if op in ("+", "-", "*", "/", "fma"):
            return self.half_result(op, vals, kind, node)
        with self.at(node):
            if op == "neg":
                return -vals[0]
            if op == "abs":
                return select(vals[0] < 0, -vals[0], vals[0])
            if op in ("max", "min"):
                return (smax if op == "max" else smin)(vals[0], vals[1])
            return self.c_binary(op, vals[0], vals[1], node)   # a comparison: a bool

    def half_math(self, node, name: str, arg) -> Expr:
        """cuda_fp16.h's math functions of one half (`hexp`, `hrsqrt`, ...): the float
        function of its value, rounded once to half. Measured on an H100 for all 65,536
        halves: hlog2, hsqrt, hrsqrt, hrcp, hfloor, hceil equal the GPU's bit for bit; hexp,
        hexp2, hexp10, hlog, hlog10, hsin, hcos (an approximate instruction inside) are one
        unit in the last place off for 1-4 halves next to a rounding tie
        (tests/test_cuda_half.py, docs/validation.md)."""
        kind = self.half_type(arg)
        if kind != "f16":
            raise self.error(node, f"`{short(node)}`: {name} of "
                                   + ("a __nv_bfloat16 (its h-functions were not measured)"
                                      if kind else "a value the importer cannot tell is a "
                                      "half"))
        with self.at(node):
            x = self.expr(arg)
            op = HALF_MATH[name]
            value = 1 / x if op == "rcp" else call(op, x)
            return self.convert(value, "f16", node)

    def fp8_kind(self, node) -> str:
        """"e4m3" or "e5m2" of a `__NV_E4M3` / `__NV_E5M2` argument."""
        t = text(node).strip()
        if t not in FP8_KINDS:
            raise self.error(node, f"`{t}`: an 8-bit float kind is __NV_E4M3 or __NV_E5M2")
        return FP8_KINDS[t]

    def fp8_to_half(self, node, args) -> Expr:
        """`__nv_cvt_fp8_to_halfraw(bits, __NV_E4M3)`: the 8-bit float's value (exact in a
        half). E5M2 is a half's upper byte; E4M3 (bias 7, no infinity, S.1111.111 NaN) is
        built from its fields: (8 + m) 2^(e - 10), subnormals m 2^-9."""
        kind = self.fp8_kind(args[1])
        with self.at(node):
            b = cast(self.expr(args[0]), u32) & 0xFF
            if kind == "e5m2":
                return call("f16_from_bits", b << 8)
            e, m = (b >> 3) & 15, b & 7
            normal = bitcast(((e + 120) << 23) | (m << 20), f32)
            magnitude = select(e == 0, cast(m, f32) * const(2.0 ** -9, f32), normal)
            value = select((b >> 7) == 1, -magnitude, magnitude)
            return select((e == 15) & (m == 7), bitcast(const(0x7FFFFFFF, u32), f32), value)

    def float_to_fp8(self, node, args) -> Expr:
        """`__nv_cvt_float_to_fp8(x, __NV_SATFINITE, kind)` of a compile-time x (what the
        importer has met: a zero to start a sum): its 8 bits, rounded to nearest even and
        saturated to the largest finite value; of a run-time x, a question at its line."""
        kind = self.fp8_kind(args[2])
        if text(args[1]).strip() != "__NV_SATFINITE":
            raise self.error(node, f"`{short(node)}`: the importer converts to an 8-bit float "
                                   "with __NV_SATFINITE only")
        value = fold(self.expr(args[0]))
        if value is None:
            raise self.error(node, f"`{short(node)}`: a conversion to an 8-bit float of a "
                                   "value known only at run time is not supported")
        return const(fp8_bits(float(value), kind), BY_NAME["u8"])

    def half_result(self, op: str, values: list, kind: str, node) -> Expr:
        """`op` ("+", "-", "*", "/" or "fma") of 16-bit floats' values as CUDA's half and
        bf16 arithmetic gives it: formed in double (exact for a sum, difference or product
        of two) and rounded once to `kind`."""
        f64 = BY_NAME["f64"]
        with self.at(node):
            wide = [cast(v, f64) for v in values]
            value = wide[0] * wide[1] + wide[2] if op == "fma" else \
                self.c_binary(op, wide[0], wide[1], node)
        return self.convert(value, kind, node)

    def half_type(self, node) -> str | None:
        """"f16" or "bf16" where an expression's C++ type is half or __nv_bfloat16 and its
        form says so; else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if (element := self.fragment_element(node)) is not None:   # `c.x[e]` of wmma's
            return element[0].element if element[0].element != "f32" else None
        if node.type == "field_expression":   # `h2.x` of a half2
            node = node.child_by_field_name("argument")
        while node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        if node.type == "identifier":
            sym = self.declared(text(node))
            if sym is None:
                return None
            if sym.narrow is not None:
                return sym.narrow
            return sym.dtype if sym.dtype in ("f16", "bf16") else None
        if node.type == "cast_expression":
            t = self.type_name(node.child_by_field_name("type"), node)
            return TYPES.get(t) if TYPES.get(t) in ("f16", "bf16") else None
        if node.type == "unary_expression" and \
                text(node.child_by_field_name("operator")) in ("-", "+"):
            # cuda_fp16.hpp's unary operators of a half give a half (`hexp(-v)`)
            return self.half_type(node.child_by_field_name("argument"))
        if node.type == "binary_expression" and \
                text(node.child_by_field_name("operator")) in ("+", "-", "*", "/"):
            # half op half is a half (cuda_fp16.hpp's operators); with a float, C++ converts
            # the half to float (its operator float): not a half
            left = self.half_type(node.child_by_field_name("left"))
            right = self.half_type(node.child_by_field_name("right"))
            return left if left is not None and left == right else None
        if node.type == "call_expression":
            name = text(node.child_by_field_name("function"))
            args = node.child_by_field_name("arguments").named_children
            if name in HALF_ROUNDINGS:
                return HALF_ROUNDINGS[name]
            if name == "__nv_cvt_fp8_to_halfraw":
                return "f16"
            if name in SHUFFLES and len(args) >= 2:
                return self.half_type(args[1])
            if name in HALF_MATH and len(args) == 1:   # `hexp(h)`: a half of a half
                return self.half_type(args[0])
            if name in HALF_ARITH and HALF_ARITH[name][0] not in COMPARISONS:
                kinds = {self.half_type(a) for a in args} - {None}
                return kinds.pop() if len(kinds) == 1 else None
        return None

    # ---------------------------------------------------------------- device functions
    def inline(self, node, *args, **options):
        """A `__device__` function's body in place of its call (_inline), whose places
        remember the call's."""
        self.calls.append(self.u.loc(node))
        try:
            return self._inline(node, *args, **options)
        finally:
            self.calls.pop()

    def _inline(self, node, name: str, args, template_args, candidates=None, this=None,
                as_statement: bool = False, outer: list | None = None):
        """A `__device__` function's body in place of its call: value parameters as
        locals, pointers and references as what they point at, its returned value a local
        set where it returns (a struct: a struct variable). A member function (`this`: the
        object's Sym, or its StructType for a static one) sees the object's fields and the
        struct's constants. An argument may be a struct Sym already evaluated. A lambda
        (`candidates` its node) sees `outer`, the scopes where it was defined ([&])."""
        if self.inline_depth >= MAX_INLINE_DEPTH:
            raise self.error(node, f"calls nested more than {MAX_INLINE_DEPTH} deep (a "
                                   f"recursive function? '{name}')")
        candidates = [f for f in candidates if len(self.u.params_of(f)) == len(args) or
                      self.u.min_args(f) <= len(args) <= len(self.u.params_of(f))] \
            if candidates else self.overloads(name, args)
        if not candidates:
            raise self.error(node, f"no '{name}' takes {len(args)} argument(s)")
        function = candidates[0]
        params = self.u.params_of(function)
        # a function that only returns an expression of its value parameters (ceil_div, a
        # math helper) is that expression: no locals, so launch options may call it too
        body_node = function.child_by_field_name("body")
        pure = single_return(body_node) is not None and all(
            (p.child_by_field_name("declarator") is not None and
             p.child_by_field_name("declarator").type == "identifier")
            for p in params) and not any(
            n.type in ("assignment_expression", "update_expression", "call_expression",
                       "subscript_expression", "pointer_expression")
            for n in walk(body_node)) and len(args) == len(params) and this is None and \
            not any(self.names_struct(p.child_by_field_name("type")) for p in params) and \
            not self.names_struct(self.u.return_type_node(function)) and \
            not any(self.vector_typed(p.child_by_field_name("type"), p) for p in params) and \
            not self.vector_typed(self.u.return_type_node(function), function)
        scope: dict[str, Sym] = {}
        binding: list = []   # the template arguments: with the function, its instantiation
        saved_types = dict(self.types)
        stype = (this.value if isinstance(this, Sym) else this) if this is not None else None
        if stype is not None:   # a member function: the struct's constants and fields
            scope.update(stype.scope)
            if isinstance(this, Sym):
                scope.update(this.place)
            self.types.update(stype.types)
        given = template_args.named_children if template_args is not None else []
        for k, (p, is_type, pname) in enumerate(template_parameters(function.parent)):
            value = given[k] if k < len(given) else template_default(p, is_type)
            if value is None and is_type:
                value = self.deduce_type(pname, params, args)
                if value is None:
                    raise self.error(node, f"'{name}': template parameter {pname} cannot "
                                           "be deduced here: name it (f<float>(...))")
            elif value is None:
                raise self.error(node, f"'{name}': template parameter {pname} needs a "
                                       "value")
            if is_type:
                self.types[pname] = value if isinstance(value, str) else \
                    self.type_name(value, node)
                binding.append(self.types[pname])
            else:
                if value.type == "type_descriptor":  # `f<BM>`: the grammar cannot tell
                    value = parse_expression(text(value)) or value
                passed = self.function_argument(value)
                if passed is not None:   # `blockReduce<warpReduceMax>`
                    scope[pname] = passed
                    binding.append(passed.value)
                    continue
                v = fold(self.expr(value))
                if v is None:
                    raise self.error(node, f"'{name}': template argument {pname} is not "
                                           "a compile-time constant")
                scope[pname] = Sym("const", const(v), "i32")
                binding.append(v)
        for k, p in enumerate(params):
            d = p.child_by_field_name("declarator")
            if d is None:
                continue
            arg = args[k] if k < len(args) else p.child_by_field_name("default_value")
            pname_node = d
            while pname_node.type in ("pointer_declarator", "reference_declarator",
                                      "array_declarator", "parenthesized_declarator"):
                # (`int (&prefix_q)[NUM_BIN]`: a reference to an array, Parboil bfs)
                pname_node = pname_node.child_by_field_name("declarator") or \
                    pname_node.named_children[-1]
            pname = text(pname_node)
            if self.names_struct(p.child_by_field_name("type")):
                scope[pname] = self.struct_argument(p, d, arg, pname, scope, node)
                continue
            type_text = text(p.child_by_field_name("type"))
            if re.search(r"thread_block|thread_group|coalesced_group|grid_group", type_text) or \
                    self.types.get(type_text.replace("const", "").strip()) == "__group__":
                group = self.lookup(text(arg), arg) if arg.type == "identifier" else None
                if group is None or group.kind != "group":
                    raise self.error(node, f"`{short(arg)}` passed as a group: pass the group "
                                           "variable")
                scope[pname] = group
                continue
            if arg is not None and (tm := self.tensor_map_or_none(arg)) is not None:
                scope[pname] = tm   # `const CUtensorMap* map`
                continue
            if arg is not None and arg.type == "identifier" and \
                    (tex := self.declared(text(arg))) is not None and tex.kind == "texture":
                # `cudaTextureObject_t volumeTex` given the kernel's texture (marchingCubes'
                # sampleVolume): that texture
                scope[pname] = tex
                continue
            if d.type == "array_declarator" and arg.type == "identifier" and \
                    (whole := self.lookup(text(arg), arg)).kind in ("shared", "global") and \
                    whole.rank - (whole.lanes > 1) == array_rank(d):
                # `float3 colors[16]` given a __shared__ float3 array (cuda-samples' dxtc):
                # that array
                scope[pname] = whole
                continue
            if d.type == "array_declarator" or (
                    d.type == "pointer_declarator" and arg.type == "identifier" and
                    self.lookup(text(arg), arg).kind in ("register", "slice")):
                # `float d[4][8]` (or `float* d`) given a register array, or the sub-array
                # `acc[m]` of one: that array, or its leading indices
                scope[pname] = self.register_array_arg(arg, pname, node)
                continue
            if d.type == "pointer_declarator" and arg.type == "identifier" and \
                    (whole := self.lookup(text(arg), arg)).kind in ("shared", "global") and \
                    whole.lanes > 1:
                # `half2 *const v` given a __shared__ half2 array (cuda-samples'
                # fp16ScalarProduct): that array, indexed by its vectors as the caller does
                scope[pname] = whole
                continue
            if d.type == "pointer_declarator" and \
                    (target := self.local_pointee(arg)) is not None:
                # `ushort *w` given `&start` of a local scalar (cuda-samples' dxtc): *w is
                # that local
                scope[pname] = Sym("local_pointer", None, target.dtype, place=target)
                continue
            if d.type == "pointer_declarator":
                arr, indices = self.pointer_place(arg, node)
                with self.at(node):
                    lead = [self.kb.let(f"{pname}_i{j}", e, "i32") if fold(e) is None else e
                            for j, e in enumerate(indices[:-1])]
                    offset = self.kb.let(f"{pname}_offset", indices[-1], "i32")
                # (`float2 *data0` given a moved float2 pointer: it steps by its vectors)
                moved = self.vector_pointer(arg)
                lanes = moved.lanes if moved is not None and arr.lanes == moved.lanes else 1
                scope[pname] = Sym("pointer", None, arr.dtype, lanes, 1, (arr, lead, offset))
            elif d.type == "reference_declarator" and \
                    (found := self.barrier_or_none(arg)) is not None:
                # `barrier& bar`: that barrier (its index, or the choice of a pointer to one
                # of several, evaluated once)
                scope[pname] = self.barrier_alias(pname, found, node)
            elif d.type == "reference_declarator":
                scope[pname] = self.reference(arg)
            else:
                dtype, lanes = self.vtype(p.child_by_field_name("type"), p)
                if lanes > 1:
                    # the callee's vector, declared out of the caller's sight: the argument
                    # (`operator*(float3 a, float b)` given `b - a`) reads the caller's names
                    self.scopes.append({})
                    sym = self.array_of(pname, dtype, [], False, node, lanes)
                    self.scopes[-1] = {}
                    self.store_vector(sym, [const(0)], lanes, arg, node)
                    self.scopes.pop()
                    scope[pname] = sym
                    continue
                if dtype in ("u64", "i64") and self.mentions_shared_address(arg):
                    desc = self.desc_value(arg, {}, node, 0)
                    if isinstance(desc, Descriptor) and desc.start() is not None:
                        # a matrix descriptor, by value
                        scope[pname] = Sym("descriptor", None, "u64", place=desc)
                        continue
                value = self.expr(arg)
                dt = register_type(dtype if dtype != "auto" else value.dtype.name)
                narrow = dtype if dtype in ("f16", "bf16") else None
                if narrow is not None:  # C converts the argument to the parameter's type
                    value = self.convert(value if value.dtype.is_float else cast(value, f32),
                                         narrow, node)
                if pure:  # `return (a + b - 1) / b;`: the expression, no locals
                    with self.at(node):
                        scope[pname] = Sym("param", cast(value, BY_NAME[dt]), dt,
                                           narrow=narrow)
                    continue
                with self.at(node):
                    ref = self.kb.let(pname, value, dt)
                scope[pname] = Sym("local", ref, dt, narrow=narrow)
                known = fold(cast(value, BY_NAME[dt])) if fold(value) is not None else None
                if known is not None and pname not in self.u.assigned:
                    # a constant argument, never assigned in the file: known where a
                    # compile-time value is needed (an arrival count, a shuffle's mask)
                    scope[pname].place = ("known", known)
        ret_type = self.u.return_type(function)
        body = function.child_by_field_name("body")
        ret_struct = None
        if self.names_struct(self.u.return_type_node(function)):
            self.scopes.append(scope)   # `S<N> f()`: N may be the callee's own
            self.this_stack.append((stype, this) if stype is not None else None)
            try:
                ret_struct = self.struct_type(self.u.return_type_node(function), function)
            finally:
                self.this_stack.pop()
                self.scopes.pop()
        if pure:
            saved_scopes = self.scopes
            self.scopes = (outer if outer is not None else [self.scopes[0]]) + [scope]
            self.inline_depth += 1
            try:
                value = self.expr(single_return(body))
                if ret_type not in ("auto", None):
                    value = self.convert(value, self.dtype(self.u.return_type_node(function),
                                                           function), node)
                return value
            finally:
                self.inline_depth -= 1
                self.scopes = saved_scopes
                self.types = saved_types
        result = None
        # (a name with leading underscores, `__btflo`, is reserved in C++: not the locals')
        local = name.lstrip("_") or "call"
        if local.startswith("operator") and not local.isidentifier():
            # `operator+` of helper_math.h: its locals named for what it does
            local = "operator_" + "_".join(OPERATOR_NAMES.get(c, "op") for c in local[8:])
        ret = f"{local}_ret"
        if ret_struct is not None:
            result = self.new_struct(ret_struct, ret, node)
        elif ret_type not in ("void", None):
            dt, lanes = self.vtype(self.u.return_type_node(function), function) \
                if ret_type != "auto" else ("f32", 1)
            if lanes > 1:   # a vector: a register vector the returns store into
                result = self.array_of(ret, dt, [], False, node, lanes)
                self.scopes[-1].pop(ret, None)
            else:
                with self.at(node):
                    result = self.kb.let(ret, 0.0 if dt in FLOAT_TYPES else 0,
                                         register_type(dt))
        early = any(n.type == "return_statement" for n in walk(body)) and \
            single_return(body) is None and not returns_last_only(body)
        frame = {"result": result, "name": name}
        if early:  # a return before the end: the rest runs where no lane returned
            with self.at(node):
                frame["flag"] = self.kb.let(f"{local}_returned", 0, "i32")
            frame["kind"], frame["owner"] = "return", function
        saved_scopes = self.scopes
        # the callee sees the file's names and its own, not the caller's locals (a lambda:
        # those where it was defined)
        self.scopes = (outer if outer is not None else [saved_scopes[0]]) + [scope]
        self.inline_depth += 1
        self.returns.append(frame)
        self.this_stack.append((stype, this if isinstance(this, Sym) else None)
                               if stype is not None else None)
        self.instantiations.append((function.id, tuple(binding),
                                    stype.name if stype is not None else None))
        saved_exits = self.exits
        self.exits = [frame] if early else []  # the caller's loops are not the callee's
        try:
            self.block(body)
        finally:
            self.exits = saved_exits
            self.instantiations.pop()
            self.this_stack.pop()
            self.returns.pop()
            self.inline_depth -= 1
            self.scopes = saved_scopes
            self.types = saved_types
        if result is None:
            if not statement_ok(node) and not as_statement:
                raise self.error(node, f"'{name}' returns nothing, but its value is used")
            return const(0)
        return result

    def lambda_sym(self, node) -> Sym:
        """`auto f = [&](int i) { ... };`: a lambda, inlined at each call with the scopes it
        was defined in (by reference, as [&] captures; [] captures nothing it could use)."""
        captures = node.child_by_field_name("captures")
        written = "".join(text(captures).split()) if captures is not None else "[]"
        if written not in ("[&]", "[]"):
            raise self.error(node, f"`{short(node)}`: a lambda capturing {written} (the "
                                   "importer reads [&] and [])")
        return Sym("lambda", (node, list(self.scopes)), "lambda")

    def function_argument(self, value) -> Sym | None:
        """A template argument naming a __device__ function (`blockReduce<warpReduceMax>`,
        or a parameter that holds one): the function, else None."""
        if value.type != "identifier":
            return None
        sym = self.declared(text(value))
        if sym is not None:
            return sym if sym.kind == "function" else None
        return Sym("function", text(value)) if text(value) in self.u.functions else None

    def deduce_type(self, pname: str, params, args) -> str | None:
        """A callee's template type parameter from the arguments (C++'s deduction, for
        `T x` and `T* p` parameters; a group for `Group& g`)."""
        for p, a in zip(params, args):
            raw = " ".join(re.sub(r"\b(const|volatile)\b", " ",
                                  text(p.child_by_field_name("type"))).split())
            if raw != pname:  # the callee's own name (not the caller's T)
                continue
            d = p.child_by_field_name("declarator")
            if d is not None and d.type == "pointer_declarator":
                arr, _ = self.pointer_place(a, a)
                return {v: k for k, v in TYPES.items()}.get(arr.dtype)
            if a.type == "identifier" and self.lookup(text(a), a).kind == "group":
                return "__group__"  # `template <typename Group> f(Group& g)`
            if self.names_barrier(a) is not None:
                return "__barrier__"  # `template <typename T> f(T& barrier)`
            with self.trial():  # its type only: nothing of it is stated here
                e = self.expr(a)
            return {"f32": "float", "f64": "double", "i32": "int", "u32": "unsigned int",
                    "u64": "unsigned long long", "i64": "long long", "u16": "unsigned short",
                    "i16": "short", "u8": "unsigned char", "i8": "signed char"}.get(
                        e.dtype.name)
        return None

    def inline_return(self, node) -> None:
        frame = self.returns[-1]
        values = node.named_children
        if values and frame["result"] is None:
            raise self.error(node, f"'{frame['name']}' returns void, but returns a value")
        if values and isinstance(frame["result"], Sym) and frame["result"].kind == "struct":
            result = frame["result"]
            self.copy_struct(result, self.struct_value(values[0], result.value), node)
        elif values and isinstance(frame["result"], Sym):   # a vector
            result = frame["result"]
            self.store_vector(result, [const(0)], result.lanes, values[0], node)
        elif values:
            value = self.expr(values[0])
            with self.at(node):
                self.kb.assign(frame["result"], value)
        if "flag" in frame:
            with self.at(node):
                self.kb.assign(frame["flag"], 1)

    # ---------------------------------------------------------------- memory
    def element_place(self, node) -> tuple[Sym, list]:
        """(array, indices) of `a[i][j]`, `p[i]`, `*p` or `*(p + i)`."""
        if node.type == "pointer_expression":
            if node.children[0].type != "*":
                raise self.error(node, f"`{short(node)}`: an address is not a value")
            return self.pointer_place(node.named_children[0], node)
        return self.indexed(node)

    def indexed(self, node) -> tuple[Sym, list]:
        """The array and the index expressions of `a[i][j]` (or `p[i]`)."""
        if node.type == "subscript_expression" and \
                (obj := self.struct_object(node.child_by_field_name("argument"))) is not None:
            return self.operator_place(node, obj)   # `v[k]` of a struct with operator[]
        indices = []
        while node.type == "subscript_expression":
            indices.insert(0, self.index(subscript_index(node)))
            node = node.child_by_field_name("argument")
            while node.type == "parenthesized_expression":
                node = node.named_children[0]
        member = self.struct_member(node)
        if member is not None and member.kind in ("shared", "register", "global"):
            return member, indices          # `s.T[i][j]` of a struct's array field
        if (field := self.struct_field_array(node)) is not None:
            arr, first, dims = field        # `a[i].keys[t]` of a struct in memory: flat
            if len(indices) != len(dims):
                raise self.error(node, f"`{short(node)}` has {len(dims)} dimension(s), "
                                       f"indexed by {len(indices)}")
            flat = indices[0]
            for index, extent in zip(indices[1:], dims[1:]):
                flat = flat * extent + index
            return arr, first[:-1] + [plus(first[-1], flat)]
        if node.type != "identifier":
            arr, base = self.pointer_place(node, node)
            if len(indices) != 1:
                raise self.error(node, f"`{short(node)}`: pointer arithmetic then several "
                                       "indices")
            return arr, base[:-1] + [plus(base[-1], indices[0])]
        sym = self.lookup(text(node), node)
        self.refuse_null(sym, node)
        if sym.kind == "pointer":
            arr, lead, offset = sym.place
            if len(indices) != 1:
                raise self.error(node, f"`{short(node)}`: a pointer takes one index")
            return arr, list(lead) + [plus(offset, indices[0])]
        if sym.kind == "slice":   # `d` bound to the caller's `acc[m]`: its leading indices
            arr, lead = sym.place
            return arr, list(lead) + indices
        if sym.kind == "cell":
            raise self.error(node, f"'{text(node)}' is a scalar, not an array")
        if sym.kind not in ("global", "shared", "register"):
            raise self.error(node, f"'{text(node)}' is not an array")
        if sym.lanes > 1 and (len(indices) == sym.rank or sym.kind == "global"):
            raise self.error(node, f"`{short(node)}` is a whole vector: use its .x/.y/.z/.w, or "
                                   "assign it to a vector")
        return sym, indices

    def register_array_arg(self, arg, pname: str, node) -> Sym:
        """What an array parameter binds: a register array `d`, or `d[m]` of one (a slice
        Sym: the array and its leading indices)."""
        lead = []
        base = arg
        while base.type == "subscript_expression":
            lead.insert(0, subscript_index(base))
            base = base.child_by_field_name("argument")
        sym = self.lookup(text(base), base) if base.type == "identifier" else None
        if sym is not None and sym.kind == "slice":
            sym, first = sym.place
            lead = list(first) + [self.index(i) for i in lead]
        elif sym is not None:
            lead = [self.index(i) for i in lead]
        if sym is None or sym.kind != "register" or len(lead) >= sym.rank:
            raise self.error(node, f"`{short(arg)}` passed as the array '{pname}': a register "
                                   "array or a sub-array of one (`acc[m]`) is read here")
        if not lead:
            return sym
        return Sym("slice", None, sym.dtype, 1, sym.rank - len(lead), (sym, lead))

    def index(self, node) -> Expr:
        e = self.expr(node)
        if e.dtype.is_float:
            raise self.error(node, f"`{short(node)}`: an index must be an integer")
        return e

    def pointer_place(self, node, where) -> tuple[Sym, list]:
        """(array, indices) of a pointer expression: `&a[i][j]`, `a + i`, `p`, `p - k`,
        `a` (the first element), through parentheses and casts (to another element type of
        a shared array: a view of its bytes, as `(uint *)s_Hist` reads them)."""
        while node.type in ("parenthesized_expression", "cast_expression") or \
                is_pointer_cast_call(node):
            if node.type != "parenthesized_expression":
                retyped = self.pointer_cast(node, where)
                if retyped is not None:
                    return retyped
                node = node.child_by_field_name("value") if node.type == "cast_expression" \
                    else node.child_by_field_name("arguments").named_children[0]
            else:
                node = node.named_children[0]
        if node.type == "pointer_expression" and node.children[0].type == "&":
            inner = node.named_children[0]
            while inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            if inner.type == "subscript_expression" and \
                    (whole := self.vector_global(inner.child_by_field_name("argument"))):
                # `&(result[Astart])` of a `float4 *result` (Rodinia hybridsort): the vector
                # there, among the parameter's scalars
                return whole, [self.index(subscript_index(inner)) * whole.lanes]
            if inner.type == "subscript_expression":
                return self.indexed(inner)
            if inner.type == "identifier":
                sym = self.lookup(text(inner), inner)
                if sym.kind == "cell":
                    return sym, [const(0)]
                if sym.kind == "register":   # `&v` of a register vector or array
                    return sym, [const(0)] * sym.rank
        if node.type == "call_expression" and not node.child_by_field_name(
                "arguments").named_children:
            fn = node.child_by_field_name("function")
            if fn.type == "template_function" and \
                    callee_name(fn) in self.u.dynamic_structs:
                targs = fn.child_by_field_name("arguments").named_children
                # (of a vector type, `SharedMemory<float4>()` in cuda-samples' nbody: its
                # elements' view, which a float4 pointer steps through 4 at a time)
                return self.dynamic_view(self.vtype(targs[0], node)[0], node), [const(0)]
        member = self.struct_member(node)
        if member is not None:   # `s.A`: the field's first element
            if member.kind == "pointer":
                arr, lead, offset = member.place
                return arr, list(lead) + [offset]
            return member, [const(0)] * member.rank
        if node.type == "binary_expression" and \
                node.child_by_field_name("operator").type in ("+", "-"):
            op = node.child_by_field_name("operator").type
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if self.is_pointer(right) and op == "+":
                left, right = right, left
            arr, indices = self.pointer_place(left, where)
            k = self.index(right)
            if self.uncast(left).type == "pointer_expression":
                # `&shmem[0][0] + w * 4 * 72` (dmmaTensorCoreGemm's C tiles)
                arr, indices = self.flat_tile(arr, indices, where) or (arr, indices)
            vector = self.vector_pointer(left) or self.vector_global(left)
            if vector is not None:   # `p + 1` of an `int4 *p`, a `uint2 *in`: a vector on
                k = k * vector_step(arr, vector.lanes)
            return arr, indices[:-1] + [plus(indices[-1], k) if op == "+" else
                                        indices[-1] - k]
        if node.type == "identifier" and (whole := self.vector_global(node)) is not None:
            return whole, [const(0)]   # a vector parameter, held as its scalars: the first
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            self.refuse_null(sym, node)
            if sym.kind == "pointer":
                arr, lead, offset = sym.place
                return arr, list(lead) + [offset]
            if sym.kind in ("global", "shared", "register") and sym.lanes == 1:
                return sym, [const(0)] * sym.rank
        if node.type == "subscript_expression":
            # `a[i]` of a 2-D array: the row, as a pointer
            arr, indices = self.indexed_prefix(node)
            if arr is not None:
                return arr, indices
        raise self.error(where, f"`{short(where)}`: the importer follows pointers into arrays "
                                "(&a[i], a + i, a local pointer), not this")

    def pointer_difference(self, node) -> Expr:
        """`p - q` of two pointers into one array: the elements between them (C's
        ptrdiff_t, 64 bits), counted in the pointers' own element type (`int4 *` steps of
        four floats); pointers into two arrays are an error (C leaves that undefined)."""
        sides = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        places, lanes = [], set()
        for side in sides:
            cast_to = self.vector_cast_on(side)      # `(float4 *)u + k`
            if cast_to is not None:
                arr, indices, width = cast_to
            else:
                arr, indices = self.pointer_place(side, node)
                width = self.pointee_lanes(side)
            with self.at(node):
                flat = indices[0] if len(indices) == 1 else arr.value.flat_index(tuple(indices))
            places.append((arr, flat))
            lanes.add(width)
        (a, i), (b, j) = places
        if a.value is not b.value or a.pun != b.pun:
            raise self.error(node, f"`{short(node)}`: the difference of pointers into two "
                                   f"arrays ('{array_name(a)}' and '{array_name(b)}')")
        if len(lanes) > 1:
            raise self.error(node, f"`{short(node)}`: the difference of pointers of two "
                                   "element types")
        width = lanes.pop()
        step = vector_step(a, width) if width > 1 else 1
        with self.at(node):
            distance = cast(i, BY_NAME["i64"]) - cast(j, BY_NAME["i64"])
            return distance if step == 1 else distance // step

    def refuse_null(self, sym: Sym, node) -> None:
        """A pointer declared null, used before an array is assigned to it: an error at
        the use."""
        if sym.kind == "null_pointer":
            how = "has no value here (declared without one" if sym.place == ("unset",) else \
                "is a null pointer here (declared null"
            raise self.error(node, f"'{text(node)}' {how}, no array assigned to it yet)")

    def flat_tile(self, arr: Sym, indices: list, node) -> tuple[Sym, list] | None:
        """(a flat view, index) of an element of a __shared__ tile of several dimensions,
        for a pointer to it (`&shmem[0][0] + k`, `(float *)&shmem[0][0]`): C's element
        pointer walks the tile's elements in a row, past a row's end; None for any other
        array."""
        if arr.kind != "shared" or arr.rank < 2 or arr.lanes != 1:
            return None
        with self.at(node):
            flat = arr.value.flat_index(tuple(indices))
        return self.shared_view(arr, arr.dtype, node), [flat]

    def pointee_lanes(self, node) -> int:
        """The lanes of what a pointer expression points at: a vector pointer local's or a
        vector parameter's (also `a + k`, `&a[i]` of one), else 1."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "binary_expression" and \
                node.child_by_field_name("operator").type in ("+", "-"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            return self.pointee_lanes(right if self.is_pointer(right) else left)
        if node.type == "pointer_expression" and node.children[0].type == "&" and \
                node.named_children[0].type == "subscript_expression":
            node = node.named_children[0].child_by_field_name("argument")
        found = self.vector_pointer(node) or self.vector_global(node)
        return found.lanes if found is not None else 1

    def vector_global(self, node) -> Sym | None:
        """The global array of a vector type `node` names (`uint2 *input`, its scalars held
        flat), else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        sym = self.declared(text(node)) if node.type == "identifier" else None
        return sym if sym is not None and sym.kind == "global" and sym.lanes > 1 else None

    def vector_pointer(self, node) -> Sym | None:
        """The pointer local `node` names when it is one of a vector type, else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        sym = self.declared(text(node)) if node.type == "identifier" else None
        return sym if sym is not None and sym.kind == "pointer" and sym.lanes > 1 else None

    def dynamic_view(self, dtype: str, node) -> Sym:
        """The launch's dynamic shared memory as an array of `dtype` (one view per type:
        every `extern __shared__` array aliases the same bytes)."""
        views = self.__dict__.setdefault("dynamic_views", {})
        if dtype not in views:
            with self.at(node):
                arr = self.kb.dynamic_shared(f"dynamic_{dtype}", dtype, (None,))
            views[dtype] = Sym("shared", arr, dtype, 1, 1)
        return views[dtype]

    def pointer_cast(self, node, where):
        """`(T *)p` or `reinterpret_cast<T*>(p)` to a scalar type T other than p's elements:
        None if T is p's own type (or not a scalar pointer type); a view of the shared bytes
        otherwise."""
        t, value = pointer_cast_parts(node)
        if not t.endswith("*") or t.rstrip("*").strip() in VECTORS:
            return None
        dtype = self.dtype(TypeText(t.rstrip("*").strip()), node)
        while value.type == "parenthesized_expression":
            value = value.named_children[0]
        if value.type == "identifier" and self.lookup(text(value), value).kind == "shared" \
                and self.lookup(text(value), value).lanes > 1:
            # `(uint*) sKeys2` over a `__shared__ uint2 sKeys2[256]`: its scalars, flat
            return self.shared_view(self.lookup(text(value), value), dtype, node), [const(0)]
        arr, indices = self.pointer_place(value, where)
        if dtype == arr.dtype:
            # `(float *)&shmem[0][0]` over a 2-D float tile (tf32TensorCoreGemm's C tiles)
            return self.flat_tile(arr, indices, node) or (arr, indices)
        if arr.kind not in ("shared", "global") or (arr.rank != 1 and arr.kind != "shared") \
                or arr.lanes != 1 or arr.place == ("null",):
            raise self.error(node, f"`{short(node)}`: a cast to {t} over '{array_name(arr)}' (the "
                                   "importer reinterprets __shared__ arrays and 1-D global "
                                   "arrays)")
        new, old = SIZES[dtype], SIZES[arr.dtype]
        with self.at(node):
            # a tile of several dimensions is read as its bytes in a row (`(float *)
            # &shmem[0][0]` over a 2-D half tile: cudaTensorCoreGemm's C tiles)
            flat = indices[0] if arr.rank == 1 else arr.value.flat_index(tuple(indices))
            if arr.kind == "global" and arr.value.base is not None:
                # a view of a global view (`(uint8_t *)p` of an `int4 *p` over bytes): the
                # array under both, at the same byte
                base = arr.value.base
                arr, flat = Sym("global", base, base.dtype.name), flat * old
                old = base.dtype.size
                flat = exact_quotient(flat, old) if old > 1 else flat
            start = None if flat is None else flat * old if old > 1 else flat
            first = None if start is None else exact_quotient(start, new)
            if first is None and start is not None and not start.dtype.is_float:
                # known only at run time (`smem + C * sizeof(half)`, C a parameter): checked
                # where the pointer is made, a misaligned view a fault at that line (the GPU
                # faults at its first access)
                first = call(EXACT_DIV, start, new)
        if first is None:
            raise self.error(node, f"`{short(node)}`: a {t} view must start at an offset that "
                                   f"is a multiple of {new} bytes (a constant, or a product "
                                   f"with a multiple of {new}: `C * {new}`)")
        if dtype == arr.dtype:
            return arr, [first]
        # (a global one too: `(unsigned int*)(scratch + 2 * C)` over a float array)
        return self.shared_view(arr, dtype, node), [first]

    def shared_view(self, arr: Sym, dtype: str, node) -> Sym:
        """The bytes of a shared or global array as a flat array of `dtype` (one view per
        array and type)."""
        key = (id(arr.value), dtype)
        views = self.__dict__.setdefault("views", {})
        if key not in views:
            name = f"{arr.value.name}_as_{dtype}"
            with self.at(node):
                if arr.kind == "global":
                    views[key] = Sym("global", self.kb.global_view(arr.value, name, dtype),
                                     dtype)
                else:
                    views[key] = Sym("shared", self.kb.view(arr.value, name, dtype), dtype,
                                     1, 1)
        return views[key]

    def indexed_prefix(self, node):
        """`a[i]` of an array of rank 2+: (array, [i, 0, ...])."""
        indices = []
        base = node
        while base.type == "subscript_expression":
            indices.insert(0, subscript_index(base))
            base = base.child_by_field_name("argument")
        if base.type != "identifier":
            return None, None
        sym = self.lookup(text(base), base)
        if sym.kind not in ("global", "shared") or len(indices) >= sym.rank:
            return None, None
        return sym, [self.index(i) for i in indices] + [const(0)] * (sym.rank - len(indices))

    def uncast(self, node, unary: tuple = ()):
        """The expression under parentheses, C casts and `static_cast`/`reinterpret_cast`,
        and under the unary operators in `unary` (`&map`, `*p`)."""
        while True:
            if node.type == "parenthesized_expression":
                node = node.named_children[0]
            elif node.type == "cast_expression":
                node = node.child_by_field_name("value")
            elif node.type == "pointer_expression" and node.children[0].type in unary:
                node = node.named_children[-1]
            elif node.type == "call_expression" and callee_name(
                    node.child_by_field_name("function")) in ("static_cast",
                                                               "reinterpret_cast") and \
                    len(node.child_by_field_name("arguments").named_children) == 1:
                node = node.child_by_field_name("arguments").named_children[0]
            else:
                return node

    def is_pointer(self, node) -> bool:
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier" and self.declared(text(node)) is not None:
            return self.declared(text(node)).kind in ("pointer", "global", "shared")
        return node.type == "pointer_expression" and node.children[0].type == "&"

    def atomic(self, node, kind: str, args) -> Expr:
        """`atomicAdd(&a[i], v)` / `atomicAdd(p + i, v)` (CAS: `atomicCAS(&a[i], compare,
        v)`) as the builder's atomic, which returns the old value."""
        if len(args) != (3 if kind == "cas" else 2):
            raise self.error(node, f"`{short(node)}`: an atomic takes an address and "
                                   f"{'compare, value' if kind == 'cas' else 'a value'}")
        arr, indices = self.pointer_place(args[0], node)
        rest = [self.expr(a) for a in args[1:]]
        with self.at(node):
            try:
                rest = [number(v, arr.dtype) for v in rest]
                if kind == "cas":
                    return self.kb.atomic(arr.value, tuple(indices), kind, rest[1],
                                          compare=rest[0])
                return self.kb.atomic(arr.value, tuple(indices), kind, rest[0])
            except CudaImportError:
                raise
            except KernelError as err:
                raise self.error(node, err.message) from None

    def lane_mask_or_expr(self, node) -> int | Expr:
        """A lane mask: its value where it is a compile-time integer (or `__activemask()`),
        else the expression, evaluated at run time (`(1 << (blockDim.x / warpSize)) - 1`)."""
        if self.active_mask(node):
            return ACTIVE_MASK
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            if sym.kind == "local" and sym.place and sym.place[0] == "known":
                return sym.place[1] & 0xFFFFFFFF
        e = self.expr(node)
        v = fold(e)
        if isinstance(v, float):
            raise self.error(node, f"`{short(node)}`: a lane mask is an integer")
        return e if v is None else v & 0xFFFFFFFF

    def shuffle(self, node, mode: str, args) -> Expr:
        """`__shfl_*_sync(mask, value, lane[, width])` as the builder's shuffle."""
        if len(args) not in (3, 4):
            raise self.error(node, f"`{short(node)}`: a shuffle takes mask, value, lane "
                                   "and an optional width")
        mask = self.lane_mask_or_expr(args[0])
        value, lane = self.expr(args[1]), self.expr(args[2])
        width = 32
        if len(args) == 4:  # a constant, else evaluated at run time (a kernel parameter)
            width = self.expr(args[3])
            folded = fold(width)
            if isinstance(folded, float):
                raise self.error(args[3], f"`{short(args[3])}`: a shuffle width is an integer")
            width = width if folded is None else folded
        with self.at(node):
            return self.kb.shfl(value, lane, mode, width=width, mask=mask)

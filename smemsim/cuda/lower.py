"""Lower one `__global__` kernel of a parsed CUDA file to the IR, through the builder.

No text is generated and nothing is executed: each construct becomes the builder call that
states it, located (`kernels_ir.located`) at the user's file, line and column. Names stay
data: a scope maps each CUDA name to the IR object it denotes, so a block that shadows a
name never changes the outer one. `__device__` functions are inlined at each call.
Anything the IR cannot express is a CudaImportError at its line, never a guess.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from kernels_ir import (
    Expr, KernelBuilder, KernelError, Op, SourceLoc, blockDim, blockIdx, call, cast, const,
    gridDim, located, lnot, logical_and, logical_or, select, smax, smin, threadIdx,
)
from kernels_ir.dtypes import BY_NAME, DType, f32, i32, u16, u32
from kernels_ir.evaluate import Evaluator
from kernels_ir.expr import binary
from kernels_ir.semantics import LaneFault

from .errors import CudaImportError
from .literals import literal_type
from .parse import function_declarator, parse_expression, short, text, walk

TYPES = {
    "float": "f32", "double": "f64", "int": "i32", "signed int": "i32", "signed": "i32",
    "unsigned int": "u32", "unsigned": "u32", "uint32_t": "u32", "int32_t": "i32",
    "uint": "u32", "unsigned char": "u8", "uint8_t": "u8", "char": "i8", "signed char": "i8",
    "int8_t": "i8", "short": "i16", "int16_t": "i16", "unsigned short": "u16",
    "uint16_t": "u16", "unsigned long long": "u64", "unsigned long long int": "u64",
    "uint64_t": "u64", "size_t": "u64", "bool": "i32", "long": "i32", "long int": "i32",
    "__half": "f16", "half": "f16", "__nv_bfloat16": "bf16", "nv_bfloat16": "bf16",
}
FLOAT_TYPES = {"f16", "bf16", "f32", "f64"}
# CUDA's vector types: (element type, lanes). A vector variable or array element is held as
# an innermost dimension of `lanes` elements; whole-vector accesses are the builder's width-N
# loads and stores (LDS.64 / LDS.128), `.x .y .z .w` one element of it.
VECTORS = {f"{c}{n}": (t, n)
           for c, t in (("float", "f32"), ("int", "i32"), ("uint", "u32"), ("double", "f64"))
           for n in (2, 4) if not (t == "f64" and n == 4)}
COMPONENTS = "xyzw"
ATOMICS = {f"atomic{n.capitalize() if n != 'cas' else 'CAS'}": n for n in
           ("add", "sub", "min", "max", "and", "or", "xor", "inc", "dec", "exch", "cas")}
ATOMICS.update({f"{name}_block": kind for name, kind in list(ATOMICS.items())})
PIPELINE = ("__pipeline_memcpy_async", "__pipeline_commit", "__pipeline_wait_prior")
SHUFFLES = {"__shfl_sync": "idx", "__shfl_up_sync": "up", "__shfl_down_sync": "down",
            "__shfl_xor_sync": "xor"}
# CUDA's math functions (and the fast intrinsics, which the IR computes exactly) -> the IR's
MATH = {"sqrtf": "sqrt", "sqrt": "sqrt", "expf": "exp", "exp": "exp", "logf": "log",
        "log": "log", "exp2f": "exp2", "exp2": "exp2", "log2f": "log2", "log2": "log2",
        "rsqrtf": "rsqrt", "rsqrt": "rsqrt", "sinf": "sin", "sin": "sin", "cosf": "cos",
        "cos": "cos", "fabsf": "fabs", "fabs": "fabs", "__expf": "exp", "tanhf": "tanh",
        "tanh": "tanh", "floorf": "floor", "floor": "floor", "ceilf": "ceil", "ceil": "ceil",
        "fmaf": "fma", "fma": "fma", "powf": "pow", "pow": "pow", "__powf": "pow",
        "__logf": "log", "__log2f": "log2", "__fsqrt_rn": "sqrt", "__sinf": "sin",
        "__cosf": "cos", "exp2f_": "exp2", "__exp2f": "exp2", "__fmaf_rn": "fma"}
CACHE_LOADS = {"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"}
CACHE_STORES = {"__stwb", "__stcg", "__stcs", "__stwt"}
MINMAX = {"min": "min", "max": "max", "fminf": "min", "fmaxf": "max", "fmin": "min",
          "fmax": "max", "umin": "min", "umax": "max", "llmin": "min", "llmax": "max"}
MAX_INLINE_DEPTH = 32
_SIZES = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2, "i32": 4, "u32": 4,
          "f32": 4, "u64": 8, "f64": 8}


@dataclass
class Sym:
    """What a CUDA name denotes in a scope."""

    kind: str            # local, param, loop, const, global, shared, register, smem_address,
    #                      pointer, ref
    value: object = None  # the Expr (scalars), the builder's array, or the pointer's target
    dtype: str = "i32"   # IR type name (of the elements, for arrays and vectors)
    lanes: int = 1       # 2 or 4 for a vector type: the innermost dimension holds the lanes
    rank: int = 1        # an array's dimensions
    place: tuple | None = None  # smem_address: (array Sym, indices); pointer: (array Sym,
    #                             leading indices, offset LocalRef)


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


class _Return(Exception):
    """An inlined function's `return` outside the places the inliner handles."""


class KernelLowering:
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

    # ---------------------------------------------------------------- helpers
    def loc(self, node) -> SourceLoc:
        return self.u.loc(node)

    def at(self, node):
        """Builder calls in this block are located at the node's place in the user's file."""
        return located(self.loc(node))

    def error(self, node, message: str) -> CudaImportError:
        return CudaImportError(message, kernel=self.name, loc=self.loc(node))

    def lookup(self, name: str, node) -> Sym:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.u.constants:
            return self.u.constant(name, self)
        if name == "warpSize":
            return Sym("const", const(32), "i32")
        if name in self.u.memory:
            return self.file_memory(name, node)
        raise self.error(node, f"'{name}' is not defined here (a macro the file does not "
                               f"define needs -D {name}=VALUE)")

    def file_memory(self, name: str, node) -> Sym:
        """A file-scope `__constant__` or `__device__` variable the kernel uses: a global
        array of the kernel (a scalar one: an array of one element), declared on first use.
        Its bytes are not shared memory, so no shared count changes; its reads and writes
        are followed as global accesses."""
        decl, d, constant = self.u.memory[name]
        type_node = decl.child_by_field_name("type")
        dtype, lanes = self.vtype(type_node, decl)
        if lanes > 1:
            raise self.error(decl, f"`{short(decl)}`: file-scope memory of a vector type")
        dims = []
        while d.type == "array_declarator":
            size = d.child_by_field_name("size")
            if size is None:
                raise self.error(decl, f"`{short(decl)}`: an array needs its size")
            dims.insert(0, self.constant_int(size, "an array size"))
            d = d.child_by_field_name("declarator")
        length = 1
        for n in dims:
            length *= n
        with self.at(decl):
            arr = self.kb.global_array(name, dtype, length,
                                       intent="in" if constant else "inout")
        if len(dims) > 1:
            raise self.error(decl, f"`{short(decl)}`: multi-dimensional file-scope memory "
                                   "(the IR's global arrays are flat)")
        sym = Sym("global" if dims else "cell", arr, dtype)
        self.scopes[0][name] = sym
        return sym

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
        return self.u.vector_typedefs.get(t, t)

    def vtype(self, type_node, node) -> tuple[str, int]:
        """(IR element type, lanes) of a type, vector types included."""
        t = self.type_name(type_node, node)
        if t in VECTORS:
            return VECTORS[t]
        return self.dtype(type_node, node), 1

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
        initialized with one and never assigned)."""
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            if sym.kind == "local" and sym.place and sym.place[0] == "known":
                return sym.place[1]
        v = fold(self.expr(node))
        if v is None or isinstance(v, float):
            raise self.error(node, f"`{short(node)}` must be a compile-time integer"
                                   f"{' (' + what + ')' if what else ''}")
        return v

    # ---------------------------------------------------------------- the kernel
    def build(self):
        node = self.node
        with self.at(node):
            self.kb = KernelBuilder(self.name)
        self.bind_template()
        params = function_declarator(node).child_by_field_name("parameters").named_children
        writes, reads = _pointer_uses(node.child_by_field_name("body"), self.u.functions)
        # scalars first, so that --length expressions may use any of them (the generated
        # CUDA's signature follows this order)
        pointer = lambda p: (p.child_by_field_name("declarator") is not None and  # noqa: E731
                             p.child_by_field_name("declarator").type == "pointer_declarator")
        for p in sorted(params, key=pointer):
            self.parameter(p, writes, reads)
        self.pointer_params(node.child_by_field_name("body"))
        self.block(node.child_by_field_name("body"))
        grid, block, smem = self.u.launch_of(self)
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
            name_node = p.child_by_field_name("name") if is_type else \
                p.child_by_field_name("declarator")
            if name_node is None:
                name_node = p.named_children[-1]
            pname = text(name_node)
            if pname in given:
                value = given.pop(pname)
            elif p.type.startswith("optional"):
                value = p.child_by_field_name("default_type" if is_type else "default_value")
            else:
                raise self.error(p, f"template parameter '{pname}' of '{self.name}' needs a "
                                    f"value: launch it in the file (`{self.name}<...><<<...>>>`)"
                                    f" or name it: --kernel '{self.name}<...>'")
            if is_type:
                t = value if isinstance(value, str) else text(value)
                t = " ".join(t.split())
                if t not in TYPES and t not in VECTORS:
                    raise self.error(p, f"template parameter '{pname}' = {t}: not a type the "
                                        "IR has")
                self.types[pname] = t
            else:
                e = self.u.expr_text(value, self) if isinstance(value, str) else \
                    self.expr(value)
                v = fold(e)
                if v is None:
                    raise self.error(p, f"template parameter '{pname}' = "
                                        f"{value if isinstance(value, str) else short(value)}: "
                                        "not a compile-time constant")
                dtype = self.dtype(p.child_by_field_name("type"), p)
                self.scopes[0][pname] = Sym("const", const(v, BY_NAME[dtype]), dtype)
        if given:
            raise self.error(parent, f"'{self.name}' has no template parameter "
                                     f"{', '.join(given)}")

    def parameter(self, p, writes: set, reads: set) -> None:
        d = p.child_by_field_name("declarator")
        if d is None:
            raise self.error(p, "a kernel parameter without a name")
        while d.type == "reference_declarator":
            raise self.error(p, f"kernel parameter `{short(p)}`: a reference")
        if d.type == "pointer_declarator":
            inner = d.child_by_field_name("declarator")
            while inner.type == "pointer_declarator":
                raise self.error(p, f"kernel parameter `{short(p)}`: a pointer to a pointer")
            name = text(inner)
            dtype, lanes = self.vtype(p.child_by_field_name("type"), p)
            intent = "inout" if name in writes and name in reads else \
                "out" if name in writes else "in"
            length = self.u.length_of(name, self)
            with self.at(p):
                # a vector type's array (`const uint4* img`) is held as its scalars: --length
                # counts vectors, as the CUDA does
                arr = self.kb.global_array(name, dtype, length * lanes if lanes > 1 else length,
                                           intent=intent)
            self.declare(name, Sym("global", arr, dtype, lanes))
            return
        if d.type != "identifier":
            raise self.error(p, f"kernel parameter '{short(p)}': only scalars and pointers "
                                "are supported")
        name = text(d)
        dtype = self.dtype(p.child_by_field_name("type"), p)
        with self.at(p):
            e = self.kb.param(name, dtype)
        self.declare(name, Sym("param", e, dtype))

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
                self.scopes[0][name] = Sym("pointer", None, sym.dtype, 1, 1,
                                           (sym, [], offset))

    # ---------------------------------------------------------------- statements
    def block(self, node) -> None:
        if node.type != "compound_statement":
            self.scopes.append({})
            try:
                self.statement(node)
            finally:
                self.scopes.pop()
            return
        self.scopes.append({})
        try:
            self.statements(node.named_children)
        finally:
            self.scopes.pop()

    def statements(self, children) -> None:
        """Statements in order; after one that may `break`, `continue` or return from an
        inlined function, the rest run only where no lane took that exit (C's jumps as
        flags: the IR has none)."""
        for i, child in enumerate(children):
            if child.type == "preproc_call":
                continue  # `#pragma unroll` is read by the loop that follows
            self.statement(child, self.pragma(children[i - 1]) if i else "auto")
            flags = [e["flag"] for e in self.exits if _exits(child, e)]
            rest = children[i + 1:]
            if flags and any(c.type not in ("comment", "preproc_call") for c in rest):
                with self.at(child):
                    guard = lnot(flags[0])
                    for f in flags[1:]:
                        guard = logical_and(guard, lnot(f))
                    ctx = self.kb.if_(guard)
                    ctx.__enter__()
                self.run_in(ctx, lambda: self.statements(rest))
                return

    def pragma(self, node) -> bool | str | int:
        """The unrolling a `#pragma unroll [N]` before a loop asks for ("auto": none)."""
        words = text(node).split() if node.type == "preproc_call" else []
        if words[:2] != ["#pragma", "unroll"]:
            return "auto"
        if len(words) == 2:
            return True
        arg = " ".join(words[2:])
        n = fold(self.u.expr_text(arg, self, node))
        if not isinstance(n, int) or n < 1:
            raise self.error(node, f"`{' '.join(words)}`: the count must be a positive "
                                   "compile-time integer")
        return False if n == 1 else n

    def statement(self, node, unroll: bool | str | int = "auto") -> None:
        t = node.type
        if t in ("comment", "empty_statement", "preproc_call"):
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
        elif t == "return_statement":
            self.return_statement(node)
        elif t in ("break_statement", "continue_statement"):
            kind = t.split("_")[0]
            target = next((e for e in reversed(self.exits) if e["kind"] == kind), None)
            if target is None or _owner(node) != target["owner"]:
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
        self.constant_decl = re.search(r"\b(const|constexpr)\b", head) is not None
        if "__constant__" in head:
            raise self.error(node, "__constant__ memory inside a kernel")
        type_node = node.child_by_field_name("type")
        if self.group_declaration(node, type_node):
            return
        dtype, lanes = self.vtype(type_node, node)
        for d in node.named_children:
            if d.type in ("type_qualifier", "storage_class_specifier", "primitive_type",
                          "sized_type_specifier", "type_identifier", "attribute_specifier",
                          "template_type", "qualified_identifier") or d == type_node:
                continue
            if d.type == "array_declarator":
                self.array(d, dtype, shared, extern, node, lanes, volatile)
            elif d.type == "identifier" and lanes > 1 and not shared:
                self.array_of(text(d), dtype, [], False, node, lanes)
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
                                      _register(dtype))
                self.declare(text(d), Sym("local", ref, _register(dtype)))
            elif d.type == "init_declarator" and \
                    d.child_by_field_name("declarator").type == "array_declarator":
                # `float value[2] = {0.0f};`: register arrays start zeroed in the IR (and in
                # the generated CUDA), so an initializer of zeros is exactly that
                init = d.child_by_field_name("value")
                if shared or init.type != "initializer_list" or not _zeros(init):
                    raise self.error(node, f"`{short(node)}`: an array may only be "
                                           "initialized with zeros")
                self.array(d.child_by_field_name("declarator"), dtype, shared, False, node,
                           lanes)
            elif d.type == "init_declarator":
                self.init_declarator(d, dtype, lanes, shared, node)
            elif d.type == "pointer_declarator":
                raise self.error(node, f"`{short(node)}`: a pointer needs a value")
            else:
                raise self.error(node, f"declaration `{short(node)}` is not supported")

    # ---------------------------------------------------------------- cooperative groups
    def group_declaration(self, node, type_node) -> bool:
        """`cg::thread_block b = cg::this_thread_block();`, `auto w =
        cg::tiled_partition<32>(b);`, `thread_block_tile<32> w = ...`: a group, whose
        methods (sync, thread_rank, shfl_down, ...) become the IR's barriers, indices and
        shuffles."""
        t = text(type_node)
        decls = [d for d in node.named_children if d.type == "init_declarator"]
        if not re.search(r"thread_block|thread_group|coalesced_group|\bauto\b", t) or \
                len(decls) != 1:
            return False
        value = decls[0].child_by_field_name("value")
        size = self.group_value(value)
        if size is None:
            if "auto" in t:
                return False
            raise self.error(node, f"`{short(node)}`: a group made another way than "
                                   "this_thread_block() or tiled_partition<N>(block)")
        self.declare(text(decls[0].child_by_field_name("declarator")),
                     Sym("group", size if size > 0 else None))
        return True

    def group_value(self, node):
        """0 for the thread block, N for a tile of N threads, None for anything else."""
        if node is None or node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        name = callee_name(fn)
        if name == "this_thread_block":
            return 0
        if name == "tiled_partition":
            args = node.child_by_field_name("arguments").named_children
            if fn.type == "qualified_identifier":
                fn = fn.child_by_field_name("name")
            if fn.type == "template_function":
                targs = fn.child_by_field_name("arguments").named_children
                size_node = parse_expression(text(targs[0])) if targs else None
            else:
                size_node = args[1] if len(args) == 2 else None
            if size_node is None:
                return None
            size = self.constant_int(size_node, "a tile size")
            if size not in (1, 2, 4, 8, 16, 32):
                raise self.error(node, f"`{short(node)}`: tiles of {size} threads (the IR's "
                                       "warp operations take 1 to 32)")
            return size
        return None

    def group_dim3(self, node):
        """threadIdx / blockIdx / blockDim of `block.thread_index()`, `block.group_index()`,
        `block.group_dim()` (dim3 methods of a thread block), else None."""
        if node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        if fn.type != "field_expression" or fn.child_by_field_name("argument").type != \
                "identifier":
            return None
        group = self.lookup(text(fn.child_by_field_name("argument")), fn)
        if group.kind != "group" or group.value is not None:
            return None
        return {"thread_index": threadIdx, "group_index": blockIdx, "group_dim": blockDim,
                "dim_threads": blockDim}.get(text(fn.child_by_field_name("field")))

    def block_rank(self) -> Expr:
        """The thread's rank in its block (x fastest)."""
        return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)

    def group_call(self, node, group: Sym, method: str, args) -> Expr | None:
        """A method of a cooperative group."""
        tile = group.value
        with self.at(node):
            if method == "sync":
                if tile is None:
                    self.kb.syncthreads()
                else:
                    self.kb.syncwarp()
                return const(0)
            rank = self.block_rank()
            if method == "thread_rank":
                return cast(rank if tile is None else rank % tile, u32)
            if method in ("size", "num_threads"):
                return cast(blockDim.x * blockDim.y * blockDim.z, u32) if tile is None else \
                    const(tile, u32)
            if tile is not None and method in ("meta_group_rank",):
                return cast(rank // tile, u32)
            if tile is not None and method in ("meta_group_size",):
                return cast((blockDim.x * blockDim.y * blockDim.z + tile - 1) // tile, u32)
            if method in ("group_index",):
                raise self.error(node, "group_index() (a dim3) is not supported: use blockIdx")
            shuffles = {"shfl": "idx", "shfl_down": "down", "shfl_up": "up", "shfl_xor": "xor"}
            if tile is not None and method in shuffles and len(args) == 2:
                value, lane = self.expr(args[0]), self.expr(args[1])
                return self.kb.shfl(value, lane, shuffles[method], width=tile)
        raise self.error(node, f"`{short(node)}`: the group method {method} is not supported")

    def reduce(self, node, args) -> Expr:
        """`cg::reduce(tile, v, cg::plus<T>())` (also greater/less, bit_and/or/xor): every
        lane gets the result, as the butterfly of shuffles the library uses computes it."""
        group = self.lookup(text(args[0]), args[0]) if args[0].type == "identifier" else None
        if group is None or group.kind != "group" or group.value is None or len(args) != 3:
            raise self.error(node, f"`{short(node)}`: cg::reduce over a tile (tiled_partition"
                                   "<N>) with an operator")
        m = re.search(r"(\w+)\s*(<[^>]*>)?\s*(\(\s*\)|\{\s*\})?\s*$", text(args[2]))
        op = m.group(1) if m else text(args[2])
        combine = {"plus": lambda a, b: a + b, "greater": smax, "less": smin,
                   "bit_and": lambda a, b: a & b, "bit_or": lambda a, b: a | b,
                   "bit_xor": lambda a, b: a ^ b}.get(op)
        if combine is None:
            raise self.error(node, f"`{short(node)}`: cg::reduce with {op}")
        value = self.expr(args[1])
        with self.at(node):
            acc = self.kb.let("reduced", value, _register(value.dtype.name))
            step = group.value // 2
            while step:
                other = self.kb.shfl(acc, step, "xor", width=group.value)
                self.kb.assign(acc, combine(acc, other))
                step //= 2
        return acc

    def init_declarator(self, d, dtype: str, lanes: int, shared: bool, node) -> None:
        target = d.child_by_field_name("declarator")
        value = d.child_by_field_name("value")
        if shared:
            raise self.error(node, f"`{short(node)}`: a __shared__ variable cannot have an "
                                   "initializer (CUDA does not allow one)")
        if target.type == "pointer_declarator":
            name = text(target.child_by_field_name("declarator"))
            if target.child_by_field_name("declarator").type != "identifier":
                raise self.error(node, f"`{short(node)}`: a pointer to a pointer")
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
        place = self.shared_address(value) if value is not None else None
        if place is not None:
            self.declare(name, Sym("smem_address", None, "u32", place=place))
            return
        e = self.expr(value) if value is not None else const(0)
        if dtype == "auto":
            dtype = e.dtype.name
        dt = _register(dtype)
        if getattr(self, "constant_decl", False) and fold(e) is not None:
            # `const int n = 4;` / `constexpr uint W = BM / TM;`: a compile-time constant
            # (array sizes and template arguments may use it), as C++ treats it
            with self.at(target):
                value = fold(cast(e, BY_NAME[dt]))
                self.declare(name, Sym("const", const(value, BY_NAME[dt]), dt))
            return
        with self.at(target):
            ref = self.kb.let(name, number(e, dt), dt)
        sym = self.declare(name, Sym("local", ref, dt))
        value = fold(cast(e, BY_NAME[dt])) if fold(e) is not None else None
        if value is not None and name not in self.u.assigned:
            # `unsigned mask = 0xffffffff;`, never assigned again: its value is known where
            # a compile-time one is needed (a shuffle's mask)
            sym.place = ("known", value)

    def reference(self, value) -> Sym:
        """What `T& r = x` aliases: a local (the same Sym) or an array element."""
        while value.type == "parenthesized_expression":
            value = value.named_children[0]
        if value.type == "identifier":
            sym = self.lookup(text(value), value)
            if sym.kind in ("local", "ref"):
                return sym
        if value.type == "subscript_expression":
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
        if dtype == "auto":
            raise self.error(node, f"`{short(node)}`: an auto array")
        if lanes > 1:
            if extern:
                raise self.error(node, f"`{short(node)}`: extern __shared__ arrays of a "
                                       "vector type are not supported")
            dims = dims + [lanes]
        align = lanes * _SIZES[dtype] if lanes > 1 and shared else None
        declared = self.u.align_at(node)
        if shared and declared is not None:
            align = declared
        with self.at(node):
            if shared and extern:
                arr = self.kb.dynamic_shared(name, dtype, tuple([None] + dims[1:]))
                kind = "shared"
            elif None in dims:
                raise self.error(node, f"array '{name}' needs every size")
            elif shared:
                arr = self.kb.shared(name, dtype, tuple(dims), align=align,
                                     volatile=volatile)
                kind = "shared"
            else:
                arr = self.kb.local_array(name, _register(dtype), tuple(dims))
                kind = "register"
        return self.declare(name, Sym(kind, arr, dtype, lanes, len(dims)))

    def pointer_local(self, name: str, value, dtype: str, node, lanes: int = 1) -> None:
        """`T* p = a + e` / `&a[i][j]` / `a`: a pointer into an array, its movable offset
        held in a local (so `p += k` and `p++` work, and the address it captured stays).
        A vector pointer over scalars (`uint4* v = (uint4*) a`) steps `lanes` elements."""
        arr, indices = self.pointer_place(value, node)
        lead = []
        for k, e in enumerate(indices[:-1]):
            if fold(e) is None:
                with self.at(node):
                    e = self.kb.let(f"{name}_i{k}", e, "i32")
            lead.append(e)
        with self.at(node):
            offset = self.kb.let(f"{name}_offset", indices[-1], "i32")
        if dtype != "auto" and TYPES.get(dtype, dtype) != arr.dtype and dtype != arr.dtype:
            raise self.error(node, f"`{short(node)}`: a {dtype} pointer into '{_name(arr)}' of "
                                   f"{arr.dtype} (casts between pointer types are not "
                                   "supported)")
        self.declare(name, Sym("pointer", None, arr.dtype, lanes, 1, (arr, lead, offset)))

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
            if fn in ("assert", "__assert_fail", "printf", "__trap", "__brkpt",
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

    def assignment(self, e):
        """`a = b` (also chained: `a = b = c`); returns the value assigned."""
        op = e.child_by_field_name("operator").type
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        place = self.vector_place(left)
        if place is not None:
            if op != "=":
                raise self.error(e, f"`{short(e)}`: {op} on a whole vector (CUDA has no such "
                                    "operator)")
            self.store_vector(*place, right, e)
            return None
        if op == "=" and left.type == "identifier":
            sym = self.lookup(text(left), left)
            if sym.kind == "pointer":
                self.repoint(left, sym, right, e)
                return None
        if right.type == "assignment_expression":
            value = self.assignment(right)
        else:
            value = self.expr(right)
        self.assign(left, op, value, e)
        return value

    def assign(self, target, op: str, value: Expr, node) -> None:
        while target.type == "parenthesized_expression":
            target = target.named_children[0]
        if target.type == "identifier":
            sym = self.lookup(text(target), target)
            if sym.kind == "pointer":
                if op not in ("+=", "-="):
                    raise self.error(node, f"`{short(node)}`: only p += n, p -= n, p++ and "
                                           "p-- move a pointer")
                offset = sym.place[2]
                step = value * sym.lanes if sym.lanes > 1 else value
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
            ref = sym.value
            if op != "=":
                value = self.c_binary(op[:-1], ref, value, node)
            with self.at(node):
                self.kb.assign(ref, number(value, sym.dtype))
            return
        if target.type == "field_expression":
            where = self.component(target)
            arr, indices = where
            self.store_element(arr, indices, op, value, node)
            return
        if target.type in ("subscript_expression", "pointer_expression"):
            arr, indices = self.element_place(target)
            self.store_element(arr, indices, op, value, node)
            return
        raise self.error(node, f"assignment to `{short(target)}` is not supported")

    def repoint(self, target, sym: Sym, value, node) -> None:
        """`p = q + k`: into the same array, the pointer's offset moves (anywhere); into
        another array, the name is bound anew, which straight-line code allows (inside a
        loop or a branch the target would depend on the path: refused)."""
        arr, indices = self.pointer_place(value, node)
        old, lead, offset = sym.place
        if arr is old and len(indices) == len(lead) + 1 and \
                all(fold(a) is not None and fold(a) == fold(b) for a, b in zip(indices, lead)):
            with self.at(node):
                self.kb.assign(offset, indices[-1])
            return
        parent = node.parent
        while parent is not None and parent.type != "function_definition":
            if parent.type in ("for_statement", "while_statement", "do_statement",
                               "if_statement", "conditional_expression", "switch_statement"):
                raise self.error(node, f"`{short(node)}`: a pointer pointed at another array "
                                       "inside a loop or branch")
            parent = parent.parent
        name = text(target)
        for scope in reversed(self.scopes):
            if name in scope:
                saved = self.scopes[-1]
                self.scopes[-1] = scope
                try:
                    self.pointer_local(name, value, "auto", node)
                finally:
                    self.scopes[-1] = saved
                return

    def store_element(self, arr: Sym, indices: list, op: str, value: Expr, node) -> None:
        if op != "=":
            value = self.c_binary(op[:-1], self.load_element(arr, indices, node), value, node)
        value = number(value, arr.dtype)
        with self.at(node):
            arr.value[tuple(indices)] = value

    def load_element(self, arr: Sym, indices: list, node) -> Expr:
        with self.at(node):
            return arr.value[tuple(indices)]

    def for_statement(self, node, unroll) -> None:
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        update = node.child_by_field_name("update")
        self.scopes.append({})
        try:
            if init is not None and init.type == "declaration":
                decls = [c for c in init.named_children if c.type == "init_declarator"]
                first, rest = decls[0] if decls else None, decls[1:]
                if first is None:
                    raise self.error(node, "a for loop's declaration needs a value")
                name = text(first.child_by_field_name("declarator"))
                dtype = _register(self.dtype(init.child_by_field_name("type"), init))
                start = self.expr(first.child_by_field_name("value"))
                for extra in rest:  # for (int i = 0, j = n; ...): j is a local of the loop
                    self.init_declarator(extra, dtype, 1, False, init)
            else:
                # `for (i = 0; ...)` over a variable declared outside (it keeps its last value
                # after the loop), or no variable: the C loop as it runs, a while loop with
                # the update at the end of the body
                self.general_for(node, unroll)
                return
            if cond is None:
                raise self.error(node, "a for loop without a condition is not supported")
            if update is None:
                raise self.error(node, "a for loop needs an update (i++, i += s, i >>= 1, ...)")

            body = node.child_by_field_name("body")
            outer_exits = list(self.exits)
            stops, restart = self.loop_exits(node, body)

            def bound(ref):
                self.scopes.append({name: Sym("loop", ref, dtype)})
                try:
                    return self.guarded(self.expr(cond), stops)
                finally:
                    self.scopes.pop()
            extra_updates = []
            while update.type == "comma_expression":
                # `a += s, b += t`: the loop variable's part is the loop's update; the others
                # run at the end of each iteration, as C runs them
                parts = [update.child_by_field_name("left"), update.child_by_field_name("right")]
                mine = [q for q in parts if _updates(q, name)]
                if len(mine) != 1:
                    raise self.error(update, f"loop update `{short(update)}`: one part must "
                                             f"update {name}")
                extra_updates += [q for q in parts if q is not mine[0]]
                update = mine[0]
            step, upd = self.loop_step(update, name, dtype, node)
            with self.at(node):
                loop = self.kb.loop(name, start, bound, **({"step": step} if upd is None else
                                                          {"update": upd}),
                                    unroll=unroll, dtype=dtype)
                ref = loop.__enter__()
            try:
                self.scopes.append({name: Sym("loop", ref, dtype)})
                try:
                    self.loop_body(node, body, restart, extra_updates)
                finally:
                    self.scopes.pop()
            except BaseException:
                loop.__exit__(None, None, None)
                raise
            finally:
                self.exits = outer_exits
            with self.at(node):
                loop.__exit__(None, None, None)

        finally:
            self.scopes.pop()

    def general_for(self, node, unroll) -> None:
        """`for (; cond; update)` with no loop variable: a while loop with the update last."""
        init = node.child_by_field_name("initializer")
        if init is not None:
            self.expression_statement(init)
        cond = node.child_by_field_name("condition")
        update = node.child_by_field_name("update")
        self.while_loop(node, cond, node.child_by_field_name("body"), unroll, False, update)

    def loop_step(self, update, name: str, dtype: str, node):
        """(step, None) or (None, update function) of a for loop's update."""
        if update.type == "update_expression" and text(update.child_by_field_name(
                "argument")) == name:
            return (const(1) if "++" in text(update) else const(-1)), None
        if update.type == "assignment_expression" and \
                text(update.child_by_field_name("left")) == name:
            op = update.child_by_field_name("operator").type
            right = update.child_by_field_name("right")
            if op in ("+=", "-="):
                step = self.expr_in_loop_scope(right, name, None)
                if step is not None:
                    return (step if op == "+=" else -step), None

            def upd(ref):
                self.scopes.append({name: Sym("loop", ref, dtype)})
                try:
                    value = self.expr(right)
                    return value if op == "=" else self.c_binary(op[:-1], ref, value, update)
                finally:
                    self.scopes.pop()
            return None, upd
        if update.type == "comma_expression":
            raise self.error(update, f"loop update `{short(update)}`: several updates (move "
                                     "the others into the body)")
        raise self.error(update, f"loop update `{short(update)}` is not supported")

    def expr_in_loop_scope(self, node, name: str, _):
        """A step that does not read the loop variable (else None: an update function)."""
        if any(n.type == "identifier" and text(n) == name for n in walk(node)):
            return None
        return self.expr(node)

    def while_statement(self, node, unroll) -> None:
        cond = node.child_by_field_name("condition")
        self.while_loop(node, cond, node.child_by_field_name("body"), unroll,
                        node.type == "do_statement", None)

    def while_loop(self, node, cond, body, unroll, do: bool, update) -> None:
        if cond is not None and cond.type in ("condition_clause", "parenthesized_expression"):
            cond = cond.named_children[0]
        if cond is not None and _touches_memory(cond):
            self.loop_reading_memory(node, cond, body, unroll, do, update)
            return
        outer_exits = list(self.exits)
        stops, restart = self.loop_exits(node, body)
        with self.at(node):
            loop = self.kb.loop(f"_loop{node.start_point[0] + 1}", 0,
                                lambda _: self.guarded(self.expr(cond) if cond is not None
                                                       else const(1), stops),
                                1, do_while=do, unroll=unroll)
            loop.__enter__()
        try:
            self.loop_body(node, body, restart, [update] if update is not None else [])
        except BaseException:
            loop.__exit__(None, None, None)
            raise
        finally:
            self.exits = outer_exits
        with self.at(node):
            loop.__exit__(None, None, None)

    def loop_reading_memory(self, node, cond, body, unroll, do: bool, update) -> None:
        """`while (s[i] != v)` / `do {...} while (s[i] != v)`: a loop condition that reads
        memory is a statement of its own (the IR's conditions are pure), evaluated where C
        evaluates it: before each iteration (after the body, for a do-while)."""
        with self.at(node):
            keep = self.kb.let("keep_going", 1 if do else _truth(self.expr(cond)), "i32")
        outer_exits = list(self.exits)
        stops, restart = self.loop_exits(node, body)
        with self.at(node):
            loop = self.kb.loop(f"_loop{node.start_point[0] + 1}", 0,
                                lambda _: self.guarded(keep != 0, stops), 1, unroll=unroll)
            loop.__enter__()
        try:
            self.loop_body(node, body, restart, [update] if update is not None else [])
            value = _truth(self.expr(cond))
            with self.at(node):
                self.kb.assign(keep, value)
        except BaseException:
            loop.__exit__(None, None, None)
            raise
        finally:
            self.exits = outer_exits
        with self.at(node):
            loop.__exit__(None, None, None)

    def loop_exits(self, loop, body):
        """The flags a loop needs: its own `break` (and a return of the inlined function
        around it) end it; its `continue` skips the rest of an iteration. The break and
        continue flags are declared before the loop and pushed as exits."""
        stops, restart = [], None
        jumps = [n for n in walk(body) if n.type in ("break_statement", "continue_statement")
                 and _owner(n) == loop]
        if any(n.type == "break_statement" for n in jumps):
            with self.at(loop):
                flag = self.kb.let("broke", 0, "i32")
            stops.append({"kind": "break", "flag": flag, "owner": loop})
        stops += [e for e in self.exits if e["kind"] == "return" and _exits(body, e)]
        if any(n.type == "continue_statement" for n in jumps):
            with self.at(loop):
                flag = self.kb.let("continued", 0, "i32")
            restart = {"kind": "continue", "flag": flag, "owner": loop}
        self.exits += [e for e in stops if e["kind"] != "return"]
        if restart is not None:
            self.exits.append(restart)
        return stops, restart

    def guarded(self, cond: Expr, stops) -> Expr:
        """A loop's condition, false once a flag that ends the loop is set."""
        for e in stops:
            cond = logical_and(lnot(e["flag"]), cond)
        return cond

    def loop_body(self, node, body, restart, updates) -> None:
        """The body (a `continue` flag cleared first), then the updates C runs after it."""
        if restart is not None:
            with self.at(node):
                self.kb.assign(restart["flag"], 0)
        self.block(body)
        if restart is not None and updates:
            self.exits.remove(restart)  # the update runs after a continue too
        for extra in updates:
            self.expression_statement(extra)

    def if_statement(self, node) -> None:
        cond = node.child_by_field_name("condition")
        while cond.type in ("condition_clause", "parenthesized_expression"):
            cond = cond.named_children[0]
        if text(node).startswith("if constexpr") or "constexpr" in text(node)[:20]:
            v = fold(self.expr(cond))
            if v is None:
                raise self.error(node, "if constexpr of a value that is not constant")
            branch = node.child_by_field_name("consequence") if v else \
                node.child_by_field_name("alternative")
            if branch is not None:
                self.block(branch.named_children[0] if branch.type == "else_clause" else branch)
            return
        c = self.expr(cond)
        with self.at(node):
            ctx = self.kb.if_(c)
            ctx.__enter__()
        self.run_in(ctx, lambda: self.block(node.child_by_field_name("consequence")))
        other = node.child_by_field_name("alternative")
        if other is not None:
            body = other.named_children[0] if other.type == "else_clause" else other
            with self.at(other):
                ctx = self.kb.else_()
                ctx.__enter__()
            self.run_in(ctx, lambda: self.block(body))

    @staticmethod
    def run_in(ctx, fn) -> None:
        try:
            fn()
        except BaseException:
            ctx.__exit__(None, None, None)
            raise
        ctx.__exit__(None, None, None)

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
                inner = const(*[(v, BY_NAME[d]) for v, d in [literal_type(literal[1:])]][0]) \
                    if _is_number(literal[1:]) else None
                if inner is None:
                    raise self.error(node, f"`{literal}` is not a number C++ reads")
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
            body = text(node)[1:-1]
            return const(ord(body.encode().decode("unicode_escape")) if body.startswith("\\")
                         else ord(body), BY_NAME["i8"])
        if t in ("null", "nullptr") and _truth_context(node):
            return const(0)
        if t == "null" or t == "nullptr":
            raise self.error(node, "a null pointer as a value")
        if t == "identifier":
            sym = self.lookup(text(node), node)
            if sym.kind in ("local", "param", "loop", "const"):
                return sym.value
            if sym.kind == "ref" and sym.place is not None:
                return self.load_element(*sym.place, node)
            if sym.kind == "cell":
                return self.load_element(sym, [const(0)], node)
            if sym.kind == "smem_address":
                raise self.error(node, f"'{text(node)}' holds a shared address "
                                       "(__cvta_generic_to_shared): the importer takes it "
                                       "only as an inline-PTX operand")
            if sym.lanes > 1 and sym.kind == "register":
                raise self.error(node, f"`{short(node)}` is a whole vector: use its "
                                       ".x/.y/.z/.w, or assign it to a vector")
            if sym.kind in ("global", "pointer") and _truth_context(node):
                # `if (bias != NULL)`, `bias ? bias[o] : 0`: every global array of the
                # analyzed launch exists, so a pointer's truth is 1 (docs/importer.md)
                return const(1)
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
            if fld in COMPONENTS:
                arr, indices = self.component(node)
                return self.load_element(arr, indices, node)
            raise self.error(node, f"`{short(node)}`: structs are not supported")
        if t == "parenthesized_expression":
            return self.expr(node.named_children[0])
        if t in ("subscript_expression", "pointer_expression"):
            if t == "pointer_expression" and node.children[0].type == "&":
                raise self.error(node, f"`{short(node)}`: an address as a value (pointers "
                                       "may be declared: T* p = &a[i])")
            if self.vector_place(node) is not None:
                raise self.error(node, f"`{short(node)}` is a whole vector: use its "
                                       ".x/.y/.z/.w, or assign it to a vector")
            arr, indices = self.element_place(node)
            return self.load_element(arr, indices, node)
        if t == "binary_expression":
            op = node.child_by_field_name("operator").type
            if op in ("&&", "||") and _touches_memory(node.child_by_field_name("right")):
                return self.short_circuit(node, op)
            a = self.expr(node.child_by_field_name("left"))
            b = self.expr(node.child_by_field_name("right"))
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
            if _touches_memory(node.child_by_field_name("consequence")) or \
                    _touches_memory(node.child_by_field_name("alternative")):
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
        if t == "sizeof_expression":
            inner = node.named_children[0] if node.named_children else node
            if inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            if inner.type == "type_descriptor":
                inner = inner.child_by_field_name("type") or inner
            if inner.type == "identifier" and any(text(inner) in s for s in self.scopes):
                sym = self.lookup(text(inner), inner)
                if sym.kind in ("shared", "register", "global"):
                    raise self.error(node, f"`{short(node)}`: sizeof of an array")
                return const(_SIZES[sym.dtype] * sym.lanes, BY_NAME["u64"])
            dtype, lanes = self.vtype(inner, node)
            return const(_SIZES[dtype] * lanes, BY_NAME["u64"])  # size_t
        if t == "assignment_expression":
            value = self.assignment(node)
            if value is None:
                raise self.error(node, f"`{short(node)}`: a vector assignment as a value")
            return value
        if t == "update_expression" and statement:
            self.expression_statement(node)
            return const(0)
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
        with self.kb.trial():  # the type C gives the result, before anything is stated
            with self.at(node):
                dtype = select(c, self.expr(sides[0]), self.expr(sides[1])).dtype
        with self.at(node):
            result = self.kb.let("cond", 0.0 if dtype.is_float else 0, dtype)
            branch = self.kb.if_(c)
            branch.__enter__()
        self.run_in(branch, lambda: self.set_to(result, sides[0], node))
        with self.at(node):
            branch = self.kb.else_()
            branch.__enter__()
        self.run_in(branch, lambda: self.set_to(result, sides[1], node))
        return result

    def short_circuit(self, node, op: str) -> Expr:
        """`a && b` / `a || b` whose right side reads memory: it runs only when C would
        evaluate it (`i < n && s[i] > 0` must not read s[n])."""
        with self.at(node):
            result = self.kb.let("cond", _truth(self.expr(node.child_by_field_name("left"))),
                                 "i32")
            branch = self.kb.if_(result if op == "&&" else lnot(result))
            branch.__enter__()
        right = node.child_by_field_name("right")
        self.run_in(branch, lambda: self.set_to(result, right, node, truth=True))
        return result

    def set_to(self, ref, value_node, node, truth: bool = False) -> None:
        value = self.expr(value_node)
        with self.at(node):
            self.kb.assign(ref, _truth(value) if truth else value)

    def convert(self, a: Expr, dtype: str, node) -> Expr:
        if dtype in ("f16", "bf16"):
            raise self.error(node, f"`{short(node)}`: a conversion to {dtype} as a value (the IR "
                                   "holds 16-bit floats only in memory: store the float)")
        with self.at(node):
            return cast(a, BY_NAME[_register(dtype)])

    def call(self, node, statement: bool = False) -> Expr:
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments").named_children
        if fn.type == "field_expression":
            base = fn.child_by_field_name("argument")
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
        while fn.type == "qualified_identifier" and callee_name(fn) in self.u.functions:
            fn = fn.child_by_field_name("name")
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
            raise self.error(node, f"call of template '{tname}' is not supported")
        name = text(fn)
        if name in ATOMICS:
            return self.atomic(node, ATOMICS[name], args)
        if name in SHUFFLES:
            return self.shuffle(node, SHUFFLES[name], args)
        if name in self.u.functions:
            return self.inline(node, name, args, None)
        if name in CACHE_LOADS and len(args) == 1:
            # __ldg(&a[i]) and the cache-hint loads: a load of a[i] (the hint changes the
            # cache policy, not the element)
            arr, indices = self.pointer_place(args[0], node)
            return self.load_element(arr, indices, node)
        if name in CACHE_STORES and len(args) == 2:
            arr, indices = self.pointer_place(args[0], node)
            self.store_element(arr, indices, "=", self.expr(args[1]), node)
            return const(0)
        if fn.type == "parenthesized_expression" and len(args) == 1:
            # `(floatX)(x)`: a cast the grammar reads as a call
            return self.convert(self.expr(args[0]), self.dtype(fn.named_children[0], node), node)
        if name in ("__builtin_huge_valf", "__builtin_huge_val") and not args:
            return const(float("inf"), f32 if name.endswith("f") else BY_NAME["f64"])
        if name in ("__builtin_nanf", "__int_as_float", "__uint_as_float"):
            raise self.error(node, f"`{short(node)}`: NaNs and bit-cast constants are not in "
                                   "the IR")
        vals = [self.expr(a) for a in args]
        with self.at(node):
            if name in MINMAX and len(vals) == 2:
                return (smin if MINMAX[name] == "min" else smax)(*vals)
            if name in MATH:
                try:
                    return call(MATH[name], *vals)
                except KernelError as err:
                    raise self.error(node, f"`{short(node)}`: {err.message}") from None
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
            if name in ("__fmul_rn",) and len(vals) == 2:
                return vals[0] * vals[1]
            if name in ("__fadd_rn",) and len(vals) == 2:
                return vals[0] + vals[1]
            if name in ("__float2int_rz",) and len(vals) == 1:
                return cast(vals[0], i32)
            if name in ("__int2float_rn", "__uint2float_rn") and len(vals) == 1:
                return cast(vals[0], f32)
        raise self.error(node, f"call of '{name}' is not supported by the importer")

    # ---------------------------------------------------------------- device functions
    def inline(self, node, name: str, args, template_args) -> Expr:
        """A `__device__` function's body in place of its call: value parameters as
        locals, pointers and references as what they point at, its returned value a local
        set where it returns."""
        if self.inline_depth >= MAX_INLINE_DEPTH:
            raise self.error(node, f"calls nested more than {MAX_INLINE_DEPTH} deep (a "
                                   f"recursive function? '{name}')")
        candidates = [f for f in self.u.functions[name]
                      if len(self.u.params_of(f)) == len(args) or
                      self.u.min_args(f) <= len(args) <= len(self.u.params_of(f))]
        if not candidates:
            raise self.error(node, f"no '{name}' takes {len(args)} argument(s)")
        function = candidates[0]
        params = self.u.params_of(function)
        # a function that only returns an expression of its value parameters (ceil_div, a
        # math helper) is that expression: no locals, so launch options may call it too
        body_node = function.child_by_field_name("body")
        pure = _single_return(body_node) is not None and all(
            (p.child_by_field_name("declarator") is not None and
             p.child_by_field_name("declarator").type == "identifier")
            for p in params) and not any(
            n.type in ("assignment_expression", "update_expression", "call_expression",
                       "subscript_expression", "pointer_expression")
            for n in walk(body_node)) and len(args) == len(params)
        scope: dict[str, Sym] = {}
        saved_types = dict(self.types)
        parent = function.parent
        if parent is not None and parent.type == "template_declaration":
            given = template_args.named_children if template_args is not None else []
            tparams = parent.child_by_field_name("parameters").named_children
            for k, p in enumerate(tparams):
                is_type = "type_parameter" in p.type
                name_node = p.child_by_field_name("name") if is_type else \
                    p.child_by_field_name("declarator")
                pname = text(name_node if name_node is not None else p.named_children[-1])
                if k < len(given):
                    value = given[k]
                elif p.type.startswith("optional"):
                    value = p.child_by_field_name("default_type" if is_type else
                                                  "default_value")
                elif is_type:
                    value = self.deduce_type(pname, params, args)
                    if value is None:
                        raise self.error(node, f"'{name}': template parameter {pname} cannot "
                                               "be deduced here: name it (f<float>(...))")
                else:
                    raise self.error(node, f"'{name}': template parameter {pname} needs a "
                                           "value")
                if is_type:
                    self.types[pname] = value if isinstance(value, str) else \
                        self.type_name(value, node)
                else:
                    if value.type == "type_descriptor":  # `f<BM>`: the grammar cannot tell
                        value = parse_expression(text(value)) or value
                    v = fold(self.expr(value))
                    if v is None:
                        raise self.error(node, f"'{name}': template argument {pname} is not "
                                               "a compile-time constant")
                    scope[pname] = Sym("const", const(v), "i32")
        for k, p in enumerate(params):
            d = p.child_by_field_name("declarator")
            if d is None:
                continue
            arg = args[k] if k < len(args) else p.child_by_field_name("default_value")
            pname_node = d
            while pname_node.type in ("pointer_declarator", "reference_declarator"):
                pname_node = pname_node.child_by_field_name("declarator") or \
                    pname_node.named_children[-1]
            pname = text(pname_node)
            type_text = text(p.child_by_field_name("type"))
            if re.search(r"thread_block|thread_group|coalesced_group", type_text) or \
                    self.types.get(type_text.replace("const", "").strip()) == "__group__":
                group = self.lookup(text(arg), arg) if arg.type == "identifier" else None
                if group is None or group.kind != "group":
                    raise self.error(node, f"`{short(arg)}` passed as a group: pass the group "
                                           "variable")
                scope[pname] = group
                continue
            if d.type == "pointer_declarator":
                arr, indices = self.pointer_place(arg, node)
                with self.at(node):
                    lead = [self.kb.let(f"{pname}_i{j}", e, "i32") if fold(e) is None else e
                            for j, e in enumerate(indices[:-1])]
                    offset = self.kb.let(f"{pname}_offset", indices[-1], "i32")
                scope[pname] = Sym("pointer", None, arr.dtype, 1, 1, (arr, lead, offset))
            elif d.type == "reference_declarator":
                scope[pname] = self.reference(arg)
            else:
                dtype, lanes = self.vtype(p.child_by_field_name("type"), p)
                if lanes > 1:
                    place = self.vector_place(arg)
                    sym = self.array_of(pname, dtype, [], False, node, lanes)
                    self.scopes.append({})
                    self.store_vector(sym, [const(0)], lanes, arg, node)
                    self.scopes.pop()
                    scope[pname] = sym
                    self.scopes[-1].pop(pname, None)
                    continue
                value = self.expr(arg)
                dt = _register(dtype if dtype != "auto" else value.dtype.name)
                if pure:  # `return (a + b - 1) / b;`: the expression, no locals
                    with self.at(node):
                        scope[pname] = Sym("param", cast(value, BY_NAME[dt]), dt)
                    continue
                with self.at(node):
                    ref = self.kb.let(pname, value, dt)
                scope[pname] = Sym("local", ref, dt)
        ret_type = self.u.return_type(function)
        body = function.child_by_field_name("body")
        if pure:
            saved_scopes, self.scopes = self.scopes, [self.scopes[0], scope]
            self.inline_depth += 1
            try:
                value = self.expr(_single_return(body))
                if ret_type not in ("auto", None):
                    value = self.convert(value, self.dtype(function.child_by_field_name("type"),
                                                           function), node)
                return value
            finally:
                self.inline_depth -= 1
                self.scopes = saved_scopes
                self.types = saved_types
        result = None
        if ret_type not in ("void", None):
            dt, lanes = self.vtype(function.child_by_field_name("type"), function) \
                if ret_type != "auto" else ("f32", 1)
            if lanes > 1:
                raise self.error(node, f"'{name}' returns a vector: not supported")
            with self.at(node):
                result = self.kb.let(f"{name}_ret", 0.0 if dt in FLOAT_TYPES else 0,
                                     _register(dt))
        early = any(n.type == "return_statement" for n in walk(body)) and \
            _single_return(body) is None and not _returns_last_only(body)
        frame = {"result": result, "name": name}
        if early:  # a return before the end: the rest runs where no lane returned
            with self.at(node):
                frame["flag"] = self.kb.let(f"{name}_returned", 0, "i32")
            frame["kind"], frame["owner"] = "return", function
        saved_scopes = self.scopes
        # the callee sees the file's names and its own, not the caller's locals
        self.scopes = [saved_scopes[0], scope]
        self.inline_depth += 1
        self.returns.append(frame)
        saved_exits = self.exits
        self.exits = [frame] if early else []  # the caller's loops are not the callee's
        try:
            self.block(body)
        finally:
            self.exits = saved_exits
            self.returns.pop()
            self.inline_depth -= 1
            self.scopes = saved_scopes
            self.types = saved_types
        if result is None:
            if not statement_ok(node):
                raise self.error(node, f"'{name}' returns nothing, but its value is used")
            return const(0)
        return result

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
            with self.kb.trial():  # its type only: nothing of it is stated here
                e = self.expr(a)
            return {"f32": "float", "f64": "double", "i32": "int", "u32": "unsigned int",
                    "u64": "unsigned long long"}.get(e.dtype.name)
        return None

    def inline_return(self, node) -> None:
        frame = self.returns[-1]
        values = node.named_children
        if values and frame["result"] is None:
            raise self.error(node, f"'{frame['name']}' returns void, but returns a value")
        if values:
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
        indices = []
        while node.type == "subscript_expression":
            idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
            parts = idx.named_children if idx.type == "subscript_argument_list" else [idx]
            indices.insert(0, self.index(parts[0]))
            node = node.child_by_field_name("argument")
            while node.type == "parenthesized_expression":
                node = node.named_children[0]
        if node.type != "identifier":
            arr, base = self.pointer_place(node, node)
            if len(indices) != 1:
                raise self.error(node, f"`{short(node)}`: pointer arithmetic then several "
                                       "indices")
            return arr, base[:-1] + [plus(base[-1], indices[0])]
        sym = self.lookup(text(node), node)
        if sym.kind == "pointer":
            arr, lead, offset = sym.place
            if len(indices) != 1:
                raise self.error(node, f"`{short(node)}`: a pointer takes one index")
            return arr, list(lead) + [plus(offset, indices[0])]
        if sym.kind == "cell":
            raise self.error(node, f"'{text(node)}' is a scalar, not an array")
        if sym.kind not in ("global", "shared", "register"):
            raise self.error(node, f"'{text(node)}' is not an array")
        if sym.lanes > 1 and (len(indices) == sym.rank or sym.kind == "global"):
            raise self.error(node, f"`{short(node)}` is a whole vector: use its .x/.y/.z/.w, or "
                                   "assign it to a vector")
        return sym, indices

    def index(self, node) -> Expr:
        e = self.expr(node)
        if e.dtype.is_float:
            raise self.error(node, f"`{short(node)}`: an index must be an integer")
        return e

    def pointer_place(self, node, where) -> tuple[Sym, list]:
        """(array, indices) of a pointer expression: `&a[i][j]`, `a + i`, `p`, `p - k`,
        `a` (the first element), through parentheses and casts (to another element type of
        a shared array: a view of its bytes, as `(uint *)s_Hist` reads them)."""
        while node.type in ("parenthesized_expression", "cast_expression"):
            if node.type == "cast_expression":
                retyped = self.pointer_cast(node, where)
                if retyped is not None:
                    return retyped
                node = node.child_by_field_name("value")
            else:
                node = node.named_children[0]
        if node.type == "pointer_expression" and node.children[0].type == "&":
            inner = node.named_children[0]
            while inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            if inner.type == "subscript_expression":
                return self.indexed(inner)
            if inner.type == "identifier":
                sym = self.lookup(text(inner), inner)
                if sym.kind == "cell":
                    return sym, [const(0)]
        if node.type == "call_expression" and not node.child_by_field_name(
                "arguments").named_children:
            fn = node.child_by_field_name("function")
            if fn.type == "template_function" and \
                    callee_name(fn) in self.u.dynamic_structs:
                targs = fn.child_by_field_name("arguments").named_children
                return self.dynamic_view(self.dtype(targs[0], node), node), [const(0)]
        if node.type == "binary_expression" and \
                node.child_by_field_name("operator").type in ("+", "-"):
            op = node.child_by_field_name("operator").type
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if self.is_pointer(right) and op == "+":
                left, right = right, left
            arr, indices = self.pointer_place(left, where)
            k = self.index(right)
            return arr, indices[:-1] + [plus(indices[-1], k) if op == "+" else
                                        indices[-1] - k]
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
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
        """`(T *)p` to a scalar type T other than p's elements: None if T is p's own type (or
        not a scalar pointer type); a view of the shared bytes otherwise."""
        t = " ".join(text(node.child_by_field_name("type")).replace("const", "").split())
        if not t.endswith("*") or t.rstrip("*").strip() in VECTORS:
            return None
        dtype = self.dtype(_TypeText(t.rstrip("*").strip()), node)
        value = node.child_by_field_name("value")
        while value.type == "parenthesized_expression":
            value = value.named_children[0]
        if value.type == "identifier" and self.lookup(text(value), value).kind == "shared" \
                and self.lookup(text(value), value).lanes > 1:
            # `(uint*) sKeys2` over a `__shared__ uint2 sKeys2[256]`: its scalars, flat
            return self.shared_view(self.lookup(text(value), value), dtype, node), [const(0)]
        arr, indices = self.pointer_place(value, where)
        if dtype == arr.dtype:
            return arr, indices
        if arr.kind != "shared" or arr.rank != 1 or arr.lanes != 1:
            raise self.error(node, f"`{short(node)}`: a cast to {t} over '{_name(arr)}' (the "
                                   "importer reinterprets 1-D __shared__ arrays only)")
        offset = fold(indices[0])
        new, old = _SIZES[dtype], _SIZES[arr.dtype]
        if offset is None or (offset * old) % new:
            raise self.error(node, f"`{short(node)}`: a {t} view must start at a constant "
                                   f"offset that is a multiple of {new} bytes")
        return self.shared_view(arr, dtype, node), [const(offset * old // new)]

    def shared_view(self, arr: Sym, dtype: str, node) -> Sym:
        """The bytes of a shared array as a flat array of `dtype` (one view per type)."""
        key = (id(arr.value), dtype)
        views = self.__dict__.setdefault("views", {})
        if key not in views:
            with self.at(node):
                view = self.kb.view(arr.value, f"{arr.value.name}_as_{dtype}", dtype)
            views[key] = Sym("shared", view, dtype, 1, 1)
        return views[key]

    def indexed_prefix(self, node):
        """`a[i]` of an array of rank 2+: (array, [i, 0, ...])."""
        indices = []
        base = node
        while base.type == "subscript_expression":
            idx = base.child_by_field_name("indices") or base.child_by_field_name("index")
            parts = idx.named_children if idx.type == "subscript_argument_list" else [idx]
            indices.insert(0, parts[0])
            base = base.child_by_field_name("argument")
        if base.type != "identifier":
            return None, None
        sym = self.lookup(text(base), base)
        if sym.kind not in ("global", "shared") or len(indices) >= sym.rank:
            return None, None
        return sym, [self.index(i) for i in indices] + [const(0)] * (sym.rank - len(indices))

    def is_pointer(self, node) -> bool:
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier":
            for scope in reversed(self.scopes):
                if text(node) in scope:
                    return scope[text(node)].kind in ("pointer", "global", "shared")
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

    def shuffle(self, node, mode: str, args) -> Expr:
        """`__shfl_*_sync(mask, value, lane[, width])` as the builder's shuffle."""
        if len(args) not in (3, 4):
            raise self.error(node, f"`{short(node)}`: a shuffle takes mask, value, lane "
                                   "and an optional width")
        mask = self.constant_int(args[0], "a lane mask") & 0xFFFFFFFF
        value, lane = self.expr(args[1]), self.expr(args[2])
        width = self.constant_int(args[3], "a shuffle width") if len(args) == 4 else 32
        with self.at(node):
            return self.kb.shfl(value, lane, mode, width=width, mask=mask)

    # ---- cp.async (inline PTX and the __pipeline_* intrinsics)
    def shared_address(self, node):
        """(array, indices) of `__cvta_generic_to_shared(&s[i]...)` (through casts and
        parentheses) or of a local holding one; else None."""
        if node is None:
            return None
        while True:
            if node.type == "parenthesized_expression":
                node = node.named_children[0]
            elif node.type == "cast_expression":
                node = node.child_by_field_name("value")
            elif node.type == "call_expression" and \
                    node.child_by_field_name("function").type == "template_function" and \
                    text(node.child_by_field_name("function").child_by_field_name("name")) \
                    in ("static_cast", "reinterpret_cast"):
                node = node.child_by_field_name("arguments").named_children[0]
            else:
                break
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            return sym.place if sym.kind == "smem_address" else None
        if node.type == "call_expression" and text(node.child_by_field_name("function")) in (
                "__cvta_generic_to_shared", "static_cast<unsigned>(__cvta_generic_to_shared"):
            args = node.child_by_field_name("arguments").named_children
            arr, indices = self.pointer_place(args[0], node)
            if arr.kind != "shared":
                raise self.error(node, f"`{short(node)}`: '{_name(arr)}' is not a __shared__ "
                                       "array")
            return arr, indices
        return None

    def copy(self, node, dst, src, nbytes: int, bypass: bool) -> None:
        """One cp.async of `nbytes` from global `src` to shared `dst` ((array, indices))."""
        (d, d_idx), (g, g_idx) = dst, src
        if g.kind != "global":
            raise self.error(node, f"`{short(node)}`: cp.async copies from global memory")
        size = _SIZES[d.dtype]
        if nbytes not in (4, 8, 16) or nbytes % size or _SIZES[g.dtype] != size:
            raise self.error(node, f"`{short(node)}`: cp.async of {nbytes} bytes between "
                                   f"{g.dtype} and {d.dtype} elements (4, 8 or 16 bytes of "
                                   "one element size)")
        with self.at(node):
            self.kb.cp_async(d.value, tuple(d_idx), g.value, tuple(g_idx),
                             width=nbytes // size, bypass=bypass)

    def pipeline(self, e, fn: str) -> None:
        """`__pipeline_memcpy_async(dst, src, bytes)` (4 or 8 bytes: cp.async.ca; 16:
        cp.async.cg, as cuda_pipeline_helpers.h emits), `__pipeline_commit()`,
        `__pipeline_wait_prior(n)`."""
        args = e.child_by_field_name("arguments").named_children
        if fn == "__pipeline_commit":
            with self.at(e):
                self.kb.cp_async_commit()
        elif fn == "__pipeline_wait_prior":
            n = self.constant_int(args[0], "a group count")
            with self.at(e):
                self.kb.cp_async_wait(n)
        else:
            if len(args) != 3:
                raise self.error(e, f"`{short(e)}`: only __pipeline_memcpy_async(dst, src, "
                                    "bytes) (no zero fill) is supported")
            nbytes = self.constant_int(args[2], "a copy size")
            self.copy(e, self.pointer_place(args[0], e), self.pointer_place(args[1], e),
                      nbytes, nbytes == 16)

    def inline_ptx(self, e) -> None:
        """`asm volatile("...")` of cp.async (ca/cg, commit_group, wait_group, wait_all) and
        ldmatrix/stmatrix: each instruction of the template as the builder's; anything else
        is an error."""
        template = "".join(
            text(n) for lit in e.named_children if lit.type in (
                "string_literal", "concatenated_string")
            for n in walk(lit) if n.type in ("string_content", "escape_sequence"))
        template = template.replace("\\n", " ").replace("\\t", " ")
        operands = [op for lst in e.named_children if lst.type in (
            "gnu_asm_output_operand_list", "gnu_asm_input_operand_list")
            for op in lst.named_children]
        outputs = sum(op.type == "gnu_asm_output_operand" for op in operands)
        values = [op.named_children[-1] for op in operands]

        def operand(t: str):
            m = re.fullmatch(r"%(\d+)", t.strip())
            if m is None:
                return None
            k = int(m.group(1))
            if k >= len(values):
                raise self.error(e, f"inline PTX names %{k}, which is not an operand")
            return values[k]

        def number(t: str) -> int:
            node = operand(t)
            if node is not None:
                return self.constant_int(node, "an inline-PTX number")
            if not re.fullmatch(r"\d+", t.strip()):
                raise self.error(e, f"`{t.strip()}` in inline PTX: a number expected")
            return int(t)

        for ins in (i.strip() for i in template.split(";")):
            if not ins:
                continue
            if ins == "cp.async.commit_group":
                with self.at(e):
                    self.kb.cp_async_commit()
            elif ins == "cp.async.wait_all":  # PTX: commit_group then wait_group 0
                with self.at(e):
                    self.kb.cp_async_commit()
                    self.kb.cp_async_wait(0)
            elif ins.startswith("cp.async.wait_group"):
                n = number(ins[len("cp.async.wait_group"):])
                with self.at(e):
                    self.kb.cp_async_wait(n)
            elif (m := re.fullmatch(r"cp\.async\.(ca|cg)\.shared(?:::cta)?\.global"
                                    r"(?:\.L2::\w+)?\s+\[([^\]]+)\]\s*,\s*\[([^\]]+)\]"
                                    r"\s*,\s*([^,]+?)(?:\s*,\s*([^,]+))?", ins)):
                nbytes = number(m.group(4))
                if m.group(5) is not None and number(m.group(5)) != nbytes:
                    raise self.error(e, f"`{ins}`: a source size below the copy size (zero "
                                        "fill) is not supported")
                dst, src = operand(m.group(2)), operand(m.group(3))
                if dst is None or src is None:
                    raise self.error(e, f"`{ins}`: addresses must be operands (%n)")
                place = self.shared_address(dst)
                if place is None:
                    raise self.error(e, f"`{ins}`: the shared address must be a "
                                        "__cvta_generic_to_shared(&array[index]) (or a "
                                        "local holding one)")
                self.copy(e, place, self.pointer_place(src, e), nbytes, m.group(1) == "cg")
            elif (m := re.fullmatch(r"(ldmatrix|stmatrix)\.sync\.aligned\.m8n8\.x([124])"
                                    r"(\.trans)?\.shared(?:::cta)?\.b16\s*(.*)", ins)):
                self.matrix(e, ins, m, operand, outputs)
            else:
                raise self.error(e, f"inline PTX `{ins}` is not supported by the importer "
                                    "(cp.async, commit_group, wait_group, wait_all, ldmatrix "
                                    "and stmatrix are)")

    def matrix(self, e, ins: str, m, operand, outputs: int) -> None:
        """`ldmatrix...x{n}[.trans].shared.b16 {%r...}, [%a]` as the builder's ldmatrix, each
        32-bit output register given its two 16-bit elements (low first); `stmatrix ... [%a],
        {%r...}` as its stmatrix, each register split the same way."""
        load, count, trans = m.group(1) == "ldmatrix", int(m.group(2)), m.group(3) is not None
        parts = re.fullmatch(r"\{([^}]*)\}\s*,\s*\[([^\]]+)\]" if load else
                             r"\[([^\]]+)\]\s*,\s*\{([^}]*)\}", m.group(4).strip())
        if parts is None:
            raise self.error(e, f"`{ins}`: operands as {{%r, ...}}, [%a] expected")
        regs_text, addr_text = parts.groups() if load else parts.groups()[::-1]
        numbers = [re.fullmatch(r"\s*%(\d+)\s*", r) for r in regs_text.split(",")]
        addr = operand(addr_text)
        if addr is None or None in numbers or len(numbers) != count:
            raise self.error(e, f"`{ins}`: {count} register operand(s) and an address "
                                "operand (%n) expected")
        numbers = [int(n.group(1)) for n in numbers]
        if load and any(k >= outputs for k in numbers):
            raise self.error(e, f"`{ins}`: its registers must be output operands (\"=r\")")
        regs = [operand(f"%{k}") for k in numbers]
        place = self.shared_address(addr)
        if place is None:
            raise self.error(e, f"`{ins}`: the shared address must be a "
                                "__cvta_generic_to_shared(&array[index]) (or a local "
                                "holding one)")
        arr, indices = place
        if _SIZES[arr.dtype] != 2 or arr.lanes != 1:
            raise self.error(e, f"`{ins}`: '{_name(arr)}' holds {arr.dtype}; ldmatrix/stmatrix "
                                "move 16-bit elements (declare it unsigned short)")
        if arr.dtype != "u16":
            raise self.error(e, f"`{ins}`: '{_name(arr)}' is {arr.dtype}: declare the array "
                                "unsigned short (the IR's ldmatrix moves u16 bits)")
        if load:
            with self.at(e):
                frag = self.kb.ldmatrix(arr.value, tuple(indices), matrices=count, trans=trans)
            for j, reg in enumerate(regs):
                with self.at(e):
                    word = cast(frag[2 * j], u32) | (cast(frag[2 * j + 1], u32) << 16)
                self.assign(reg, "=", word, e)
        else:
            values = []
            for reg in regs:
                word = self.expr(reg)
                with self.at(e):
                    values += [cast(word & 0xFFFF, u16), cast(word >> 16, u16)]
            with self.at(e):
                self.kb.stmatrix(arr.value, tuple(indices), values, matrices=count,
                                 trans=trans)

    # ---------------------------------------------------------------- vector types
    def vector_place(self, node) -> tuple[Sym, list, int] | None:
        """(array, index of its first lane, lanes) when `node` denotes a whole vector in
        memory or registers: a vector variable, an element of a vector array, or
        `*reinterpret_cast<float4*>(&a[i])`, `reinterpret_cast<float4*>(&a[i])[k]`,
        `*(float4*)&a[i]` over an array of scalars; else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            if sym.kind == "pointer" and sym.lanes > 1:
                arr, lead, offset = sym.place
                return arr, list(lead) + [offset], sym.lanes
            return (sym, [const(0)], sym.lanes) if sym.lanes > 1 else None
        if node.type == "subscript_expression":
            base = node.child_by_field_name("argument")
            while base.type == "parenthesized_expression":
                base = base.named_children[0]
            if base.type == "identifier":
                sym = self.lookup(text(base), base)
                if sym.kind == "pointer" and sym.lanes > 1:
                    idx = node.child_by_field_name("indices") or \
                        node.child_by_field_name("index")
                    i = self.index(idx.named_children[0] if idx.type ==
                                   "subscript_argument_list" else idx)
                    arr, lead, offset = sym.place
                    return arr, list(lead) + [plus(offset, i * sym.lanes)], sym.lanes
            vcast = self.vector_cast(base)
            if vcast is not None:
                idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
                k = self.index(idx.named_children[0] if idx.type == "subscript_argument_list"
                               else idx)
                arr, indices, lanes = vcast
                if fold(k) != 0:
                    indices = indices[:-1] + [plus(indices[-1], k * lanes)]
                return arr, indices, lanes
            root = node
            while root.type == "subscript_expression":
                root = root.child_by_field_name("argument")
            if root.type != "identifier":
                return None
            sym = self.lookup(text(root), root)
            if sym.lanes == 1:
                return None
            if sym.kind == "global" and node.child_by_field_name("argument") == root:
                # a vector pointer parameter: element i is scalars i*lanes ...
                idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
                i = self.index(idx.named_children[0] if idx.type == "subscript_argument_list"
                               else idx)
                return sym, [i * sym.lanes], sym.lanes
            arr, indices = self.indexed(node) if len(self.count_indices(node)) < sym.rank \
                else (None, None)
            if arr is None:
                return None
            return arr, indices + [const(0)], arr.lanes
        if node.type == "pointer_expression" and node.children[0].type == "*":
            inner = node.named_children[0]
            if inner.type == "identifier":
                return self.vector_place(inner)
            return self.vector_cast(inner)
        return None

    @staticmethod
    def count_indices(node) -> list:
        out = []
        while node.type == "subscript_expression":
            out.append(node)
            node = node.child_by_field_name("argument")
        return out

    def vector_cast(self, node):
        """(array, index, lanes) of `reinterpret_cast<float4*>(P)` or `(float4*)P`, P being
        `&a[i]...` or an array's name (plus an offset); else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "call_expression":
            fn = node.child_by_field_name("function")
            if fn.type != "template_function" or text(fn.child_by_field_name("name")) != \
                    "reinterpret_cast":
                return None
            target = fn.child_by_field_name("arguments").named_children[0]
            pointer = node.child_by_field_name("arguments").named_children[0]
        elif node.type == "cast_expression":
            target = node.child_by_field_name("type")
            pointer = node.child_by_field_name("value")
        else:
            return None
        t = " ".join(text(target).replace("const", "").split())
        name = t.rstrip("*").strip()
        if not t.endswith("*"):
            return None
        if name not in VECTORS:
            if name in TYPES or name in self.u.typedefs:
                return None  # a scalar pointer cast: pointer_place reads it
            raise self.error(node, f"`{short(node)}`: a cast to {t} is not supported "
                                   "(reinterpret_cast to float2/float4/int2/int4/... "
                                   "pointers over an array is)")
        dtype, lanes = VECTORS[name]
        arr, indices = self.pointer_place(pointer, node)
        if arr.dtype != dtype or arr.lanes > 1:
            raise self.error(node, f"`{short(node)}`: {name} over an array of "
                                   f"{arr.dtype}{'x' + str(arr.lanes) if arr.lanes > 1 else ''}"
                                   " (the importer reinterprets arrays of the vector's own "
                                   "element type only)")
        return arr, indices, lanes

    def component(self, node) -> tuple[Sym, list]:
        """`v.x` (a lane of a vector place) as (array, indices)."""
        fld = text(node.child_by_field_name("field"))
        place = self.vector_place(node.child_by_field_name("argument"))
        if place is None or COMPONENTS.index(fld) >= place[2]:
            raise self.error(node, f"`{short(node)}`: .{fld} of something that is not a "
                                   "vector (of that many lanes)")
        arr, indices, _ = place
        lane = COMPONENTS.index(fld)
        return arr, indices[:-1] + [plus(indices[-1], lane)]

    def vector_value(self, node, lanes: int) -> list:
        """The lanes of a vector-valued expression: make_float4(...), or a vector place
        (one width-N load from shared or global memory)."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "call_expression" and text(node.child_by_field_name("function")) \
                .startswith("make_"):
            args = node.child_by_field_name("arguments").named_children
            if len(args) != lanes:
                raise self.error(node, f"`{short(node)}`: {len(args)} values for a vector of "
                                       f"{lanes}")
            return [self.expr(a) for a in args]
        if node.type == "call_expression" and \
                callee_name(node.child_by_field_name("function")) in self.u.functions:
            return self.inline_vector(node, lanes)
        place = self.vector_place(node)
        if place is None or place[2] != lanes:
            raise self.error(node, f"`{short(node)}` is not a vector of {lanes} the importer "
                                   "can read (make_float4(...), a vector variable or array "
                                   "element, or *reinterpret_cast<float4*>(&a[i]))")
        arr, indices, _ = place
        if arr.kind == "register":
            return [self.load_element(arr, indices[:-1] + [plus(indices[-1], k)], node)
                    for k in range(lanes)]
        with self.at(node):
            v = arr.value.load(tuple(indices), width=lanes)
        return [v[k] for k in range(lanes)]

    def inline_vector(self, node, lanes: int) -> list:
        """A device function that returns a vector in one `return` (llm.c's `ld_vec(p)`):
        the lanes of its returned expression, its parameters bound as for any call."""
        name = callee_name(node.child_by_field_name("function"))
        function = self.u.functions[name][0]
        ret = _single_return(function.child_by_field_name("body"))
        args = node.child_by_field_name("arguments").named_children
        params = self.u.params_of(function)
        if ret is None or len(args) != len(params):
            raise self.error(node, f"`{short(node)}`: a vector from '{name}', which is not "
                                   "one `return` of its parameters")
        scope: dict[str, Sym] = {}
        for p, a in zip(params, args):
            d = p.child_by_field_name("declarator")
            dtype, plane = self.vtype(p.child_by_field_name("type"), p)
            if d.type == "pointer_declarator":
                arr, indices = self.pointer_place(a, node)
                with self.at(node):
                    offset = self.kb.let(f"{name}_offset", indices[-1], "i32")
                scope[text(d.child_by_field_name("declarator"))] = Sym(
                    "pointer", None, arr.dtype, plane, 1, (arr, indices[:-1], offset))
            elif plane == 1:
                with self.at(node):
                    ref = self.kb.let(text(d), self.expr(a), _register(dtype))
                scope[text(d)] = Sym("local", ref, _register(dtype))
            else:
                raise self.error(node, f"`{short(node)}`: a vector argument of '{name}'")
        saved, self.scopes = self.scopes, [self.scopes[0], scope]
        try:
            return self.vector_value(ret, lanes)
        finally:
            self.scopes = saved

    def store_vector(self, arr: Sym, indices: list, lanes: int, value, node) -> None:
        """`place = vector`: lane by lane into registers, one width-N store to memory."""
        parts = self.vector_value(value, lanes)
        if arr.kind == "register":
            for k, part in enumerate(parts):
                self.store_element(arr, indices[:-1] + [plus(indices[-1], k)], "=", part, node)
            return
        with self.at(node):
            arr.value.store(tuple(indices), parts, width=lanes)


class _TypeText:
    """A type given as text (from a cast), read like a type node."""

    def __init__(self, source: str):
        self.text = source.encode()


LOOPS = ("for_statement", "while_statement", "do_statement")


def _owner(jump):
    """The loop (or switch) a break or continue belongs to."""
    n = jump.parent
    while n is not None and n.type not in LOOPS + ("switch_statement", "function_definition"):
        n = n.parent
    return n


def _exits(node, exit_) -> bool:
    """Whether running `node` may take this exit."""
    kind = exit_["kind"]
    if kind == "return":
        return any(n.type == "return_statement" for n in walk(node))
    jump = f"{kind}_statement"
    return any(n.type == jump and _owner(n) == exit_["owner"] for n in walk(node))


def _returns_last_only(body) -> bool:
    """A body whose only return is its last statement (no flag needed)."""
    statements = [c for c in body.named_children if c.type != "comment"]
    returns = [n for n in walk(body) if n.type == "return_statement"]
    return len(returns) == 1 and statements and statements[-1] == returns[0]


def _single_return(body):
    """The expression of a body that is just `return expr;`, else None."""
    if body is None:
        return None
    statements = [c for c in body.named_children if c.type != "comment"]
    if len(statements) == 1 and statements[0].type == "return_statement" and \
            statements[0].named_children:
        return statements[0].named_children[0]
    return None


def _updates(node, name: str) -> bool:
    """Whether an update expression assigns `name` (`i++`, `i += s`, `i = ...`)."""
    target = node.child_by_field_name("argument") if node.type == "update_expression" else \
        node.child_by_field_name("left") if node.type == "assignment_expression" else None
    return target is not None and text(target) == name


def _truth_context(node) -> bool:
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


def _is_number(source: str) -> bool:
    try:
        literal_type(source)
    except ValueError:
        return False
    return True


def _truth(e: Expr) -> Expr:
    """C's truth value of `e` as 0 or 1."""
    if e.op in (Op.LT, Op.LE, Op.GT, Op.GE, Op.EQ, Op.NE, Op.LAND, Op.LOR, Op.LNOT):
        return e
    return e != 0


def _touches_memory(node) -> bool:
    """Whether an expression reads memory or calls something (its evaluation may fault or
    have effects, so C's evaluation order matters)."""
    return any(n.type in ("subscript_expression", "call_expression") or
               (n.type == "pointer_expression" and n.children[0].type == "*")
               for n in walk(node))


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
    t = BY_NAME[_register(dtype)]
    if t.is_float:
        return float(v)
    if isinstance(v, float) and not v.is_integer():
        return e
    return int(v) if t.min <= v <= t.max else e


def statement_ok(node) -> bool:
    """Whether a call's value is unused (it stands as a statement)."""
    return node.parent is not None and node.parent.type == "expression_statement"


def _register(dtype: str) -> str:
    """The type a local of `dtype` has in registers (16-bit floats are held as float)."""
    return "f32" if dtype in ("f16", "bf16") else dtype


def dtype_c(dtype: str) -> str:
    return {v: k for k, v in TYPES.items()}.get(dtype, dtype)


def _name(sym: Sym) -> str:
    return getattr(sym.value, "name", "?")


def _zeros(init) -> bool:
    """An initializer of zeros only (`{0.0f}`, `{{make_float4(0.f, 0.f, 0.f, 0.f)}}`)."""
    for n in walk(init):
        if n.type == "number_literal" and \
                not re.fullmatch(r"0+(\.0*)?[fFuUlL]*|0?\.0+[fF]?", text(n)):
            return False
        if n.type not in ("initializer_list", "number_literal", "call_expression",
                          "identifier", "argument_list") or (
                n.type == "identifier" and not text(n).startswith("make_")):
            return False
    return True


def _pointer_uses(body, functions: dict | None = None, depth: int = 0) -> tuple[set, set]:
    """Names written through `p[i] = ...` (or +=, *p = ..., atomics, a vector store through
    `*reinterpret_cast<float4*>(&p[i]) = ...`) and names read, in a body: through local
    pointers (`float* row = C + r * n; row[i] = v` writes C) and through the pointer
    parameters of the device functions it calls."""
    writes, reads = set(), set()
    stored = set()   # (start, end) of the subscripts that are only written
    aliases: dict[str, str] = {}

    def base_of(n):
        while n is not None and n.type in (
                "subscript_expression", "pointer_expression", "parenthesized_expression",
                "binary_expression", "cast_expression", "call_expression", "field_expression"):
            if n.type == "subscript_expression":
                n = n.child_by_field_name("argument")
            elif n.type == "binary_expression":
                n = n.child_by_field_name("left")
            elif n.type == "cast_expression":
                n = n.child_by_field_name("value")
            elif n.type == "field_expression":
                n = n.child_by_field_name("argument")
            elif n.type == "call_expression":
                args = n.child_by_field_name("arguments").named_children
                if not args:
                    return None
                n = args[0]
            elif n.named_children:
                n = n.named_children[0]
            else:
                return None
        if n is None or n.type != "identifier":
            return None
        name = text(n)
        seen = set()
        while name in aliases and name not in seen:
            seen.add(name)
            name = aliases[name]
        return name
    for n in walk(body):
        if n.type == "init_declarator" and \
                n.child_by_field_name("declarator").type == "pointer_declarator":
            target = n.child_by_field_name("declarator").child_by_field_name("declarator")
            base = base_of(n.child_by_field_name("value"))
            if target is not None and target.type == "identifier" and base:
                aliases[text(target)] = base
    for n in walk(body):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            name = base_of(left) if left.type != "identifier" else None
            if name:
                writes.add(name)
                if n.child_by_field_name("operator").type == "=":
                    stored.add((left.start_byte, left.end_byte))
        elif n.type == "call_expression":
            fn = n.child_by_field_name("function")
            called = callee_name(fn)
            args = n.child_by_field_name("arguments").named_children
            if (called in ATOMICS or called in CACHE_STORES) and args:
                name = base_of(args[0])
                if name:
                    writes.add(name)
                    if called in ATOMICS:
                        reads.add(name)
            elif functions and called in functions and depth < MAX_INLINE_DEPTH:
                callee = functions[called][0]
                params = function_declarator(callee).child_by_field_name(
                    "parameters").named_children
                w, r = _pointer_uses(callee.child_by_field_name("body"), functions, depth + 1)
                for p, a in zip(params, args):
                    d = p.child_by_field_name("declarator")
                    while d is not None and d.type in ("pointer_declarator",
                                                       "reference_declarator"):
                        d = d.child_by_field_name("declarator") or d.named_children[-1]
                    name = base_of(a)
                    if d is None or not name:
                        continue
                    if text(d) in w:
                        writes.add(name)
                    if text(d) in r:
                        reads.add(name)
    for n in walk(body):
        if n.type in ("subscript_expression", "pointer_expression") and \
                (n.start_byte, n.end_byte) not in stored and \
                n.parent.type not in ("subscript_expression",):
            name = base_of(n)
            if name:
                reads.add(name)
    return writes, reads


def callee_name(fn) -> str:
    """The function a call names: `f`, `ns::f`, `f<T>` and `ns::f<T>` are all `f`."""
    while fn.type == "qualified_identifier":
        fn = fn.child_by_field_name("name")
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name")
    return text(fn)


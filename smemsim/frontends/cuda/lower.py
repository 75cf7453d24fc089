"""One `__global__` kernel of a parsed CUDA file as the host side launches it: a
kernels_ir Kernel with no body (nvcc's build gives the body: smemsim.frontends.ptx), its signature
(scalars, pointers, structs' fields, textures, tensor maps), its template arguments bound,
and its launch, from the host's expressions folded here.

Nothing is generated or executed: an expression of the host code (a launch's size, a
template argument, `sizeof` of a struct, a file's one-line helper such as `ceil_div`) is
folded to the IR's expression of the kernel's parameters and the file's constants, located
at the user's file, line and column. What the host side cannot know (memory, a value
computed at run time) is a CudaImportError at its line that says how to give it.
"""
from __future__ import annotations

import dataclasses
import re
from math import prod

from kernels_ir import (
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
from kernels_ir.expr import BIT_FUNCTIONS, binary

from . import lower_signature
from .errors import CudaImportError
from .literals import literal_type
from .lower_struct_values import names_struct, struct_static, struct_type, template_argument
from .parse import (
    function_declarator,
    short,
    split_top_level,
    template_default,
    template_parameters,
    text,
    walk,
)
from .symbols import (
    FLOAT_MATH,
    MATH,
    MAX_INLINE_DEPTH,
    MINMAX,
    SIZES,
    TYPES,
    VECTORS,
    Sym,
    callee_name,
    fold,
    pointer_uses,
    register_type,
    single_return,
    truth_context,
)

# CUDA's intrinsics that reinterpret a value's bits: name -> (argument type, result type)
BITCASTS = {"__int_as_float": ("i32", "f32"), "__uint_as_float": ("u32", "f32"),
            "__float_as_int": ("f32", "i32"), "__float_as_uint": ("f32", "u32")}
# CUDA's integer bit intrinsics: name -> (the IR's function, operand bytes)
INTEGER_BITS = {f"__{fn}{suffix}": (fn, 8 if suffix else 4)
                for fn in BIT_FUNCTIONS for suffix in ("", "ll")}


def _shared_declarators(node):
    """(declaration, declarator) of each `__shared__` variable a function's body declares."""
    body = node.child_by_field_name("body")
    for d in walk(body) if body is not None else ():
        if d.type == "declaration" and "__shared__" in text(d).split("=")[0]:
            for x in d.children_by_field_name("declarator"):
                yield d, x


def shared_shapes(lw, node) -> tuple[tuple[str, tuple[int, ...], int], ...]:
    """(name, extents, bytes an element) of each `__shared__` array a function's body
    declares with extents the lowering can fold (`tile[TILE][TILE + 1]` of floats:
    (32, 33), 4); others left out."""
    out = []
    for d, x in _shared_declarators(node):
        dims = []
        try:
            while x is not None and x.type == "array_declarator":
                size = x.child_by_field_name("size")
                if size is None:   # (`extern __shared__ float s[];`: no extent)
                    raise KernelError("an array of no extent")
                dims.insert(0, lw.constant_int(size, "a shared array's extent"))
                x = x.child_by_field_name("declarator")
            element = BY_NAME.get(lw.dtype(d.child_by_field_name("type"), d))
        except KernelError:
            continue
        if dims and x is not None and x.type == "identifier" and element is not None:
            out.append((text(x), tuple(dims), element.size))
    return tuple(out)


def shared_declarations(lw, node) -> tuple[tuple[str, str], ...]:
    """(name, where) of each `__shared__` variable a function's body declares, each
    declarator followed to its name (`s[N][M]`, `*p = ...`). (patch._declarations finds
    one array's declarators to rewrite; this lists every variable.)"""
    out = []
    for _, x in _shared_declarators(node):
        while x is not None and x.type != "identifier" and x.named_children:
            x = x.child_by_field_name("declarator") or x.named_children[0]
        if x is not None and x.type == "identifier":
            out.append((text(x), str(lw.loc(x))))
    return tuple(out)


class KernelLowering:
    """One kernel (one template instantiation) of a Unit, as the host side launches it: its
    template arguments bound, its parameters, and the host's expressions folded."""

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
        self.calls: list[SourceLoc] = []     # where each inlined call is, innermost last
        # the template arguments bound, in the template's order: ("type", C++ type name) or
        # ("value", number, IR type name), as read (never as the text given)
        self.instance: list[tuple] = []
        # pointers whose length the host code does not say (DEFAULT_LENGTH each; a note)
        self.assumed_lengths: list[str] = []

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
        if name in self.u.memory or name in self.u.texture_refs or name in self.u.shared_vars:
            raise self.error(node, f"'{name}' is the device's memory (a __constant__, "
                                   "__device__ or __shared__ variable, or a texture): not a "
                                   "value the host side knows")
        raise self.error(node, f"'{name}' is not defined here (a macro the file does not "
                               f"define needs -D {name}=VALUE)")

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
        for p in sorted(params, key=lambda p: (tensor_map(p), pointer(p))):
            self.parameter(p, writes, reads)
        grid, block, smem = self.u.launch_of(self)
        if fold(smem) != 0 and not any(b.dynamic for b in self.kb._buffers):
            # the launch asks for dynamic bytes the kernel never declares (fast.cu's kernel
            # 3 passes sizeof its struct, which nvcc made static): they still take room
            self.dynamic_view("u8", node)
        from .launch import launch_arguments, other_launches
        defaults = {**launch_arguments(self.u, self), **self.u.param_defaults(self)}
        with self.at(node):
            self.kb.launch(grid=grid, block=block, dynamic_smem=smem)
            if defaults:
                self.kb.defaults(**defaults)
            kernel = self.kb.build()
        if getattr(self, "launch_inputs", ()):
            kernel = dataclasses.replace(kernel, launch_inputs=self.launch_inputs)
        if getattr(self, "unread_arguments", ()):
            kernel = dataclasses.replace(kernel, unread_arguments=self.unread_arguments)
        if self.assumed_lengths:
            kernel = dataclasses.replace(kernel, assumed_lengths=tuple(self.assumed_lengths))
        declared = shared_declarations(self, node)
        if declared:
            kernel = dataclasses.replace(kernel, declared_shared=declared,
                                         shared_shapes=shared_shapes(self, node))
        first, others = ("", []) if self.u.options.grid and self.u.options.block else \
            other_launches(self.u, self)
        if getattr(self, "launch_notes", ()):   # (what the launch's reading found odd)
            kernel = dataclasses.replace(kernel, notes=kernel.notes + tuple(self.launch_notes))
        if others:
            kernel = dataclasses.replace(kernel, notes=kernel.notes + (
                f"the launch at {first} is counted; {self.name} is launched with another "
                f"configuration at {', '.join(others)} (--launch-at {others[0]} counts "
                f"{'that one' if len(others) == 1 else 'the first of those'})",),
                launches=(first, *others))
        return kernel

    # (the signature: its template parameters and parameters, lower_signature)
    bind_template = lower_signature.bind_template
    parameter = lower_signature.parameter
    null_parameter = lower_signature.null_parameter

    # ---------------------------------------------------------------- statements

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

    def expr(self, node) -> Expr:
        """A host expression (a launch's size, a template argument, an option's expression)
        as the IR's expression of the kernel's parameters and the file's constants."""
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
            raise self.error(node, f"`{short(node)}`: a field the host side cannot know (the "
                                   "host's expressions fold to numbers; give the value "
                                   "with --host or --param)")
        if t == "parenthesized_expression":
            return self.expr(node.named_children[0])
        if t in ("subscript_expression", "pointer_expression"):
            if t == "pointer_expression" and node.children[0].type == "&":
                raise self.error(node, f"`{short(node)}`: an address as a value (pointers "
                                       "may be declared: T* p = &a[i])")
            raise self.error(node, f"`{short(node)}` reads memory: not a value the host side "
                                   "knows (give it with --host or --param)")
        if t == "binary_expression":
            op = node.child_by_field_name("operator").type
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
            return self.call(node)
        if t == "qualified_identifier" and (value := struct_static(self, node)) is not None:
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
            if names_struct(self, inner):
                # sizeof(Node) of a struct of the file (the host's cudaMalloc sizes): C++'s
                # layout, padding included
                return const(struct_type(self, inner, node).byte_layout()[1],
                             BY_NAME["u64"])
            dtype, lanes = self.vtype(inner, node)
            return const(SIZES[dtype] * lanes, BY_NAME["u64"])  # size_t
        raise self.error(node, f"{t.replace('_', ' ')} `{short(node)}`: not an expression "
                               "the host side folds")

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

    def call(self, node) -> Expr:
        """What a call in a host expression folds to: a cast (`static_cast<T>(x)`, `int(x)`,
        `(floatX)(x)`), a function of the file that only returns an expression of its
        parameters (inlined: `ceil_div`), or CUDA's math (min, max, sqrtf, the integer
        intrinsics). Anything else is a located error: the host side reads no memory."""
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments").named_children
        while fn.type == "qualified_identifier" and callee_name(fn) in self.u.functions:
            fn = fn.child_by_field_name("name")
        if fn.type == "template_function":
            tname = text(fn.child_by_field_name("name"))
            if tname in ("static_cast", "reinterpret_cast") and len(args) == 1:
                targs = fn.child_by_field_name("arguments").named_children
                if tname == "reinterpret_cast" and "*" in text(targs[0]):
                    raise self.error(node, f"`{short(node)}`: a pointer, not a value the "
                                           "host side folds")
                dtype = self.dtype(targs[0], node)
                return self.convert(self.expr(args[0]), dtype, node)
            if tname in self.u.functions:
                return self.inline(node, tname, args, fn.child_by_field_name("arguments"))
            raise self.error(node, f"call of template '{tname}': not a function the host "
                                   "side folds")
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
        if name in self.u.functions and (
                self.overloads(name, args) or name not in MINMAX and name not in MATH):
            # (helper_math.h's max of float3s leaves max of floats to CUDA's own)
            return self.inline(node, name, args, None)
        if fn.type == "parenthesized_expression" and len(args) == 1:
            # `(floatX)(x)`: a cast the grammar reads as a call
            return self.convert(self.expr(args[0]), self.dtype(fn.named_children[0], node), node)
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
            if name in ("__float2int_rz",) and len(vals) == 1:
                return cast(vals[0], i32)
            if name in ("__int2float_rn", "__uint2float_rn") and len(vals) == 1:
                return cast(vals[0], f32)
        raise self.error(node, f"call of '{name}': not a function the host side folds "
                               "(give the value it computes with --host or --param)")

    # ---------------------------------------------------------------- functions
    def overloads(self, name: str, args) -> list:
        """The file's functions `name` that take these arguments, the best first: C++'s
        overload choice as far as the arguments' scalar types go (an exact type before a
        conversion; a parameter whose type is not read, or an argument the host side
        cannot fold, matches anything)."""
        found = [f for f in self.u.functions.get(name, [])
                 if len(self.u.params_of(f)) == len(args) or
                 self.u.min_args(f) <= len(args) <= len(self.u.params_of(f))]
        if len(found) < 2:
            return found
        types = []
        for a in args:
            try:
                types.append(self.expr(a).dtype.name)
            except CudaImportError:
                types.append(None)
        ranked = []
        for order, f in enumerate(found):
            score = 0
            for p, t in zip(self.u.params_of(f), types):
                d = p.child_by_field_name("declarator")
                if t is None or d is None or d.type != "identifier":
                    continue
                try:
                    want = self.vtype(p.child_by_field_name("type"), p)
                except CudaImportError:
                    continue    # a template's type parameter: deduced from any argument
                if want[1] != 1:
                    score = None     # a vector is no scalar
                    break
                score += 2 if want[0] == t else 1
            if score is not None:
                ranked.append((-score, order, f))
        return [f for _, _, f in sorted(ranked, key=lambda r: r[:2])]

    def inline(self, node, name: str, args, template_args):
        """A function of the file that only returns an expression of its value parameters
        (`ceil_div`, a math helper), in place of its call: that expression, the parameters
        bound to the arguments' values, its template arguments bound as given, defaulted or
        deduced. Any other function is a located error (the host side runs no code)."""
        if self.inline_depth >= MAX_INLINE_DEPTH:
            raise self.error(node, f"calls nested more than {MAX_INLINE_DEPTH} deep (a "
                                   f"recursive function? '{name}')")
        candidates = self.overloads(name, args)
        if not candidates:
            raise self.error(node, f"no '{name}' takes {len(args)} argument(s)")
        function = candidates[0]
        params = self.u.params_of(function)
        body = function.child_by_field_name("body")
        pure = single_return(body) is not None and all(
            (p.child_by_field_name("declarator") is not None and
             p.child_by_field_name("declarator").type == "identifier")
            for p in params) and not any(
            n.type in ("assignment_expression", "update_expression", "call_expression",
                       "subscript_expression", "pointer_expression")
            for n in walk(body)) and len(args) == len(params) and \
            not any(names_struct(self, p.child_by_field_name("type")) for p in params) and \
            not names_struct(self, self.u.return_type_node(function)) and \
            not any(self.vector_typed(p.child_by_field_name("type"), p) for p in params) and \
            not self.vector_typed(self.u.return_type_node(function), function)
        if not pure:
            raise self.error(node, f"'{name}' is not one `return` of an expression of its "
                                   "value parameters: the host side folds only such "
                                   "functions (give the value it computes with --host or "
                                   "--param)")
        scope: dict[str, Sym] = {}
        saved_types = dict(self.types)
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
                continue
            _, v = template_argument(self, value, False, node)
            scope[pname] = Sym("const", const(v), "i32")
        for p, arg in zip(params, args):
            pname = text(p.child_by_field_name("declarator"))
            dtype = self.dtype(p.child_by_field_name("type"), p)
            value = self.expr(arg)
            dt = register_type(dtype if dtype != "auto" else value.dtype.name)
            with self.at(node):
                scope[pname] = Sym("param", cast(value, BY_NAME[dt]), dt)
        saved_scopes = self.scopes
        self.scopes = [self.scopes[0], scope]   # the file's names and its own
        self.inline_depth += 1
        self.calls.append(self.u.loc(node))
        try:
            value = self.expr(single_return(body))
            if self.u.return_type(function) not in ("auto", None):
                value = self.convert(value, self.dtype(self.u.return_type_node(function),
                                                       function), node)
            return value
        finally:
            self.calls.pop()
            self.inline_depth -= 1
            self.scopes = saved_scopes
            self.types = saved_types

    def deduce_type(self, pname: str, params, args) -> str | None:
        """A callee's template type parameter from the arguments (C++'s deduction, for a
        `T x` parameter: the type of the argument's value)."""
        for p, a in zip(params, args):
            raw = " ".join(re.sub(r"\b(const|volatile)\b", " ",
                                  text(p.child_by_field_name("type"))).split())
            if raw != pname:  # the callee's own name (not the caller's T)
                continue
            e = self.expr(a)
            return {"f32": "float", "f64": "double", "i32": "int", "u32": "unsigned int",
                    "u64": "unsigned long long", "i64": "long long", "u16": "unsigned short",
                    "i16": "short", "u8": "unsigned char", "i8": "signed char"}.get(
                        e.dtype.name)
        return None

    def dynamic_view(self, dtype: str, node) -> Sym:
        """The launch's dynamic shared memory as an array of `dtype` (one view per type:
        every `extern __shared__` array aliases the same bytes)."""
        views = self.__dict__.setdefault("dynamic_views", {})
        if dtype not in views:
            with self.at(node):
                arr = self.kb.dynamic_shared(f"dynamic_{dtype}", dtype, (None,))
            views[dtype] = Sym("shared", arr, dtype, 1, 1)
        return views[dtype]

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

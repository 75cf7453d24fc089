"""CUDA's vector types (float4, uint2, ...): whole-vector reads and writes as the IR's
width-N accesses, `.x .y .z .w` as one lane."""
from __future__ import annotations

from dataclasses import replace

from kernels_ir import (
    bitcast,
    blockDim,
    blockIdx,
    call,
    cast,
    const,
    gridDim,
    smax,
    smin,
    threadIdx,
)
from kernels_ir.dtypes import BY_NAME

from .errors import CudaImportError
from .lower_textures import TEXTURE_FETCHES
from .parse import short, subscript_index, text
from .symbols import (
    CACHE_LOADS,
    exact_quotient,
    COMPONENTS,
    SIZES,
    TYPES,
    VECTORS,
    Sym,
    callee_name,
    fold,
    plus,
    register_type,
    single_return,
)


# pair operations of cuda_fp16.h / cuda_bf16.h: name -> (operation, arguments)
HALF2_OPS = {
    "__hadd2": ("+", 2), "__hsub2": ("-", 2), "__hmul2": ("*", 2), "__h2div": ("/", 2),
    "__hfma2": ("fma", 3), "__hmax2": ("max", 2), "__hmin2": ("min", 2),
    "__half22float2": ("widen", 1), "__bfloat1622float2": ("widen", 1),
    "__float22half2_rn": ("f16", 1), "__floats2half2_rn": ("f16", 2),
    "__halves2half2": ("f16", 2), "__float22bfloat162_rn": ("bf16", 1),
    "__floats2bfloat162_rn": ("bf16", 2), "__halves2bfloat162": ("bf16", 2),
    # one value into both lanes
    "__float2half2_rn": ("f16 both", 1), "__half2half2": ("f16 both", 1),
    "__float2bfloat162_rn": ("bf16 both", 1), "__bfloat162bfloat162": ("bf16 both", 1),
}


# the built-in index vectors, read whole (`dim3 b = blockDim;`)
BUILTIN_DIMS = {"threadIdx": threadIdx, "blockIdx": blockIdx, "blockDim": blockDim,
                "gridDim": gridDim}


def vector_step(arr: Sym, lanes: int) -> int:
    """How many elements of `arr` one vector of `lanes` spans: `lanes`, or for a vector
    of another type over it (`(int4 *)` over halves: 8) the vector's bytes in its elements."""
    if arr.pun is None:
        return lanes
    return lanes * SIZES[arr.pun] // SIZES[arr.dtype]


class VectorsMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def vector_place(self, node) -> tuple[Sym, list, int] | None:
        """(array, index of its first lane, lanes) when `node` denotes a whole vector in
        memory or registers: a vector variable, an element of a vector array, or
        `*reinterpret_cast<float4*>(&a[i])`, `reinterpret_cast<float4*>(&a[i])[k]`,
        `*(float4*)&a[i]` over an array of scalars; else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            self.refuse_null(sym, node)
            if sym.kind == "pointer" and sym.lanes > 1:
                arr, lead, offset = sym.place
                return arr, list(lead) + [offset], sym.lanes
            if sym.kind == "ref" and sym.lanes > 1:   # `float3 &p` of a vector in an array
                return sym.place[0], list(sym.place[1]), sym.lanes
            return (sym, [const(0)], sym.lanes) if sym.lanes > 1 else None
        if node.type == "subscript_expression":
            base = node.child_by_field_name("argument")
            while base.type == "parenthesized_expression":
                base = base.named_children[0]
            if base.type == "identifier":
                sym = self.lookup(text(base), base)
                self.refuse_null(sym, base)
                if sym.kind == "pointer" and sym.lanes > 1:
                    i = self.index(subscript_index(node))
                    arr, lead, offset = sym.place
                    return arr, list(lead) + [plus(offset, i * vector_step(arr, sym.lanes))], \
                        sym.lanes
            vcast = self.vector_cast(base)
            if vcast is not None:
                k = self.index(subscript_index(node))
                arr, indices, lanes = vcast
                if fold(k) != 0:
                    indices = indices[:-1] + [plus(indices[-1], k * vector_step(arr, lanes))]
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
                i = self.index(subscript_index(node))
                return sym, [i * sym.lanes], sym.lanes
            arr, indices = self.indexed(node) if len(self.count_indices(node)) < sym.rank \
                else (None, None)
            if arr is None:
                return None
            return arr, indices + [const(0)], arr.lanes
        if node.type == "pointer_expression" and node.children[0].type == "*":
            inner = node.named_children[0]
            while inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            if inner.type == "identifier":
                return self.vector_place(inner)
            return self.vector_cast_on(inner)
        return None

    def vector_cast_on(self, node):
        """vector_cast of `(int4 *)p`, or of `(int4 *)p + k` (`*((int4 *)p + lane)`: the
        vector k vectors on from the cast's); else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type != "binary_expression" or \
                node.child_by_field_name("operator").type not in ("+", "-"):
            return self.vector_cast(node)
        base = self.vector_cast(node.child_by_field_name("left"))
        if base is None:
            return None
        arr, indices, lanes = base
        step = self.index(node.child_by_field_name("right")) * vector_step(arr, lanes)
        last = plus(indices[-1], step) if node.child_by_field_name("operator").type == "+" \
            else indices[-1] - step
        return arr, indices[:-1] + [last], lanes

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
        name = self.u.vector_typedefs.get(self.types.get(name, name), name)  # `copy_t`: int4
        if name not in VECTORS:
            if name in TYPES or name in self.u.typedefs:
                return None  # a scalar pointer cast: pointer_place reads it
            raise self.error(node, f"`{short(node)}`: a cast to {t} is not supported "
                                   "(reinterpret_cast to float2/float4/int2/int4/... "
                                   "pointers over an array is)")
        dtype, lanes = VECTORS[name]
        arr, indices = self.pointer_place(pointer, node)
        if arr.dtype in ("u8", "i8") and arr.lanes == 1 and SIZES[dtype] == 4:
            if arr.kind in ("shared", "global"):
                # 16 bytes over an array of bytes (an fp8 pack, `LDST128BITS(a[idx])`): a
                # u32 view, the index a whole number of words
                flat = arr.value.flat_index(tuple(indices)) if arr.kind == "shared" else \
                    indices[0]
                word = exact_quotient(flat, 4, self.definitions)
                if word is None:
                    raise self.error(node, f"`{short(node)}`: {name} over bytes must start at "
                                           "a multiple of 4 bytes the importer can see")
                view = self.shared_view(arr, "u32", node)
                return (replace(view, pun=dtype) if dtype != "u32" else view), [word], lanes
            return replace(arr, pun=dtype), indices, lanes   # a register pack of bytes
        if arr.dtype == "f16" and arr.lanes == 1 and SIZES[dtype] in (4, 8):
            # float4 over halves (the tensor-core staging copy, `FLOAT4(s_a[i][j]) =
            # FLOAT4(a[k])`, or a register pack `half pack[8]`): a copy moves the halves
            # (store_vector); a value made of their bits reads a u16 view (vector_value)
            return replace(arr, pun=dtype), indices, lanes
        if arr.dtype != dtype and arr.lanes == 1 and (
                (SIZES[arr.dtype] == SIZES[dtype] and SIZES[dtype] in (4, 8)) or
                # int4 over doubles (dmmaTensorCoreGemm's tile copies): two a vector
                (SIZES[arr.dtype] == 8 and SIZES[dtype] == 4 and lanes % 2 == 0) or
                (arr.dtype == "bf16" and SIZES[dtype] == 4) or
                # half2 over a fragment's 32-bit words (`HALF2(RC[0])`): each word two halves
                (dtype in ("f16", "bf16") and SIZES[arr.dtype] == 4 and
                 lanes * 2 % 4 == 0)):
            # int4 over floats or bf16 (llm.c's load128): the same bits, read as the
            # vector's type
            return replace(arr, pun=dtype), indices, lanes
        if arr.dtype == dtype and arr.lanes == lanes:
            return arr, indices, lanes  # `FLOAT4(v)` of a float4 v: itself
        if arr.dtype != dtype or arr.lanes > 1:
            raise self.error(node, f"`{short(node)}`: {name} over an array of "
                                   f"{arr.dtype}{'x' + str(arr.lanes) if arr.lanes > 1 else ''}"
                                   " (the importer reinterprets arrays of the vector's own "
                                   "element type only)")
        return arr, indices, lanes

    def vector_copy(self, arr: Sym, indices: list, lanes: int, value, node) -> bool:
        """`FLOAT4(dst) = FLOAT4(src)` where both are 16-bit floats of one type (a global
        to shared staging copy, a register pack `half pack[8]` filled or stored): the
        elements themselves, in one access of the vector's bytes on each memory side (a
        register holds a half's value, not its bits). False where `value` is no such
        place."""
        if isinstance(value, list) or arr.dtype not in ("f16", "bf16"):
            return False
        source = self.vector_place(value)
        if source is None or source[0].dtype != arr.dtype or source[2] != lanes or \
                SIZES[source[0].pun or source[0].dtype] != SIZES[arr.pun]:
            return False
        src, src_indices, _ = source
        count = lanes * SIZES[arr.pun] // SIZES[arr.dtype]
        if src.kind == "register":
            parts = [self.load_element(src, src_indices[:-1] + [plus(src_indices[-1], k)],
                                       node) for k in range(count)]
        else:
            with self.at(node):
                v = src.value.load(tuple(src_indices), width=count)
            parts = [v[k] for k in range(count)]
        if arr.kind == "register":
            for k, part in enumerate(parts):
                self.store_element(arr, indices[:-1] + [plus(indices[-1], k)], "=", part, node)
        else:
            with self.at(node):
                arr.value.store(tuple(indices), parts, width=count)
        return True

    def half2_value(self, node, name: str, lanes: int) -> list:
        """cuda_fp16.h's and cuda_bf16.h's pair operations as the two lanes they give:
        `__hadd2`, `__hsub2`, `__hmul2`, `__hfma2`, `__hmax2`, `__hmin2` lane by lane (each
        rounded once to the pair's type), `__half22float2` / `__bfloat1622float2` (the
        floats a register holds), `__float22half2_rn` / `__floats2half2_rn` /
        `__halves2half2` / `__float22bfloat162_rn` (rounded to the pair's type), and
        `__float2half2_rn` / `__half2half2` / ... (one value in both lanes)."""
        op, count = HALF2_OPS[name]
        args = node.child_by_field_name("arguments").named_children
        if lanes != 2 or len(args) != count:
            raise self.error(node, f"`{short(node)}`: {name} gives a pair of {count} "
                                   "argument(s)")
        if op == "widen":
            return self.vector_value(args[0], 2)
        if op.endswith(" both"):    # `__float2half2_rn(0.f)`: one value rounded, twice
            v = self.expr(args[0])
            value = self.convert(v if v.dtype.is_float else cast(v, BY_NAME["f32"]),
                                 op.split()[0], node)
            return [value, value]
        if op in ("f16", "bf16"):   # floats (or halves) rounded into a pair
            vals = self.vector_value(args[0], 2) if count == 1 else \
                [self.expr(a) for a in args]
            return [self.convert(v if v.dtype.is_float else cast(v, BY_NAME["f32"]), op, node)
                    for v in vals]
        kinds = {self.pair_type(a) for a in args} - {None}
        if len(kinds) != 1:
            raise self.error(node, f"`{short(node)}`: the importer cannot tell whether its "
                                   "arguments are half2 or __nv_bfloat162")
        kind = kinds.pop()
        pairs = [self.vector_value(a, 2) for a in args]
        out = []
        for k in range(2):
            v = [p[k] for p in pairs]
            if op in ("max", "min"):
                with self.at(node):
                    out.append((smax if op == "max" else smin)(v[0], v[1]))
            else:
                out.append(self.half_result(op, v, kind, node))
        return out

    def pair_type(self, node) -> str | None:
        """"f16" or "bf16": the element type of a pair-valued expression, where its form
        says (a pair variable or a cast of memory of that type, a pair operation of such)."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "call_expression" and \
                callee_name(node.child_by_field_name("function")) in HALF2_OPS:
            op, _ = HALF2_OPS[callee_name(node.child_by_field_name("function"))]
            if op.split()[0] in ("f16", "bf16"):
                return op.split()[0]
            kinds = {self.pair_type(a) for a in
                     node.child_by_field_name("arguments").named_children} - {None}
            return kinds.pop() if len(kinds) == 1 else None
        if node.type == "binary_expression" and \
                node.child_by_field_name("operator").type in ("+", "-", "*", "/"):
            kinds = {self.pair_type(node.child_by_field_name(f)) for f in ("left", "right")}
            return kinds.pop() if len(kinds) == 1 else None
        place = self.vector_place(node)
        if place is None:
            return None
        arr = place[0]
        if arr.dtype in ("f16", "bf16") and arr.pun is None:
            return arr.dtype
        return None

    def bits_view(self, arr: Sym, node):
        """(a u16 view of a shared or global array of 16-bit floats, a function from the
        array's indices to the view's flat one): their bits, which a register holding a
        half's value does not have."""
        view = self.shared_view(arr, "u16", node)
        if arr.kind == "shared":
            return view, lambda indices: [arr.value.flat_index(tuple(indices))]
        return view, lambda indices: list(indices)

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
        if node.type == "identifier" and lanes == 3 and text(node) in BUILTIN_DIMS and \
                self.declared(text(node)) is None:
            built_in = BUILTIN_DIMS[text(node)]        # `dim3 g = gridDim;`, f(blockDim)
            return [built_in.x, built_in.y, built_in.z]
        if node.type == "initializer_list":   # `half2 v = {__float2half(0.f), ...}`
            items = [c for c in node.named_children if c.type != "comment"]
            if len(items) != lanes:
                raise self.error(node, f"`{short(node)}`: {len(items)} values for a vector of "
                                       f"{lanes}")
            return [self.expr(c) for c in items]
        if node.type == "call_expression" and text(node.child_by_field_name("function")) \
                .startswith("make_") and not (
                    len(node.child_by_field_name("arguments").named_children) != lanes and
                    text(node.child_by_field_name("function")) in self.u.functions):
            # (helper_math.h's make_float4(float3 a, float w) is the file's own function)
            args = node.child_by_field_name("arguments").named_children
            if len(args) != lanes:
                raise self.error(node, f"`{short(node)}`: {len(args)} values for a vector of "
                                       f"{lanes}")
            # make_half2(0.1f, 0.2f) takes halves, make_uchar4(...) bytes: each value
            # converted as C converts it to the parameter's type
            made = VECTORS.get(text(node.child_by_field_name("function"))[len("make_"):])
            return [self.convert(self.expr(a), made[0], node) if made else self.expr(a)
                    for a in args]
        if node.type == "argument_list" and node.parent is not None and \
                node.parent.type == "init_declarator" and \
                node.parent.parent.type == "declaration":
            # `half2 v(0.f, 0.f);`: a vector type's constructor of its lanes
            dtype, count = self.vtype(node.parent.parent.child_by_field_name("type"), node)
            items = [c for c in node.named_children if c.type != "comment"]
            if count != lanes or len(items) != lanes:
                raise self.error(node, f"`{short(node)}`: {len(items)} values for a vector of "
                                       f"{lanes}")
            return [self.convert(self.expr(c), dtype, node) for c in items]
        if node.type == "binary_expression" and lanes == 2 and \
                node.child_by_field_name("operator").type in ("+", "-", "*", "/") and \
                self.pair_type(node) is not None:
            # cuda_fp16.hpp's operators of pairs (`a[i] * b[i] + v`): lane by lane, each
            # operation rounded to the pair's type, as the scalar operators of halves are
            op, kind = node.child_by_field_name("operator").type, self.pair_type(node)
            left = self.vector_value(node.child_by_field_name("left"), 2)
            right = self.vector_value(node.child_by_field_name("right"), 2)
            return [self.half_result(op, [left[k], right[k]], kind, node) for k in range(2)]
        operator = self.overloaded_operator(node)
        fn = node.child_by_field_name("function") if node.type == "call_expression" else None
        if fn is not None and callee_name(fn) in TEXTURE_FETCHES:
            # `tex2D<float4>(tex, x, y)` (cuda-samples' postProcessGL): a texel of lanes
            targs = fn.child_by_field_name("arguments").named_children \
                if fn.type == "template_function" else None
            return self.texel(node, callee_name(fn), targs,
                              node.child_by_field_name("arguments").named_children, lanes)
        if fn is not None and callee_name(fn) in HALF2_OPS:
            return self.half2_value(node, callee_name(fn), lanes)
        if fn is not None and callee_name(fn) in self.u.functions and all(
                single_return(f.child_by_field_name("body")) is not None and not any(
                    self.vector_typed(p.child_by_field_name("type"), p)
                    for p in self.u.params_of(f)
                    if p.child_by_field_name("declarator") is not None and
                    p.child_by_field_name("declarator").type == "identifier")
                for f in self.u.functions[callee_name(fn)]):
            return self.inline_vector(node, lanes)
        args = node.child_by_field_name("arguments").named_children if fn is not None else []
        address = args[0] if len(args) == 1 else None
        while address is not None and address.type == "parenthesized_expression":
            address = address.named_children[0]
        cache_load = fn is not None and callee_name(fn) in CACHE_LOADS and address is not None
        # each place is evaluated once: its index may inline a call that states locals
        place = None
        if operator is not None:   # `p + make_float3(...)` of helper_math.h's operator+
            place = self.returned_vector(node, self.inline(node, *operator, None), lanes)
        if place is None and cache_load and address.type == "pointer_expression" and \
                address.children[0].type == "&":
            place = self.vector_place(address.named_children[0])   # `__ldcs(&v4[i])`
        if place is None and cache_load:
            place = self.vector_cast(args[0])   # `__ldcs(reinterpret_cast<const int4*>(p))`
        if place is None and fn is not None and \
                not text(fn).startswith(("reinterpret_cast", "static_cast")):
            # a function or member function that returns a vector (`v.get_bits()`)
            place = self.returned_vector(node, self.call(node, struct=True), lanes)
        elif place is None:
            place = self.vector_place(node)
        if place is None or place[2] != lanes:
            raise self.error(node, f"`{short(node)}` is not a vector of {lanes} the importer "
                                   "can read (make_float4(...), a vector variable or array "
                                   "element, or *reinterpret_cast<float4*>(&a[i]))")
        arr, indices, _ = place
        if arr.pun is not None and arr.dtype == "f16" and arr.kind in ("shared", "global"):
            view, flat = self.bits_view(replace(arr, pun=None), node)  # their bits
            arr, indices = replace(view, pun=arr.pun), flat(indices)
        if arr.pun is not None and SIZES[arr.pun] != SIZES[arr.dtype]:
            # int4 over bf16: 8 elements in one 16-byte access, packed two to a word (half2
            # over a fragment's words: each word split in two)
            count = lanes * SIZES[arr.pun] // SIZES[arr.dtype]
            if arr.kind == "register":
                elements = [self.load_element(arr, indices[:-1] + [plus(indices[-1], k)], node)
                            for k in range(count)]
            else:
                with self.at(node):
                    v = arr.value.load(tuple(indices), width=count)
                elements = [v[k] for k in range(count)]
            with self.at(node):
                return from_pieces(to_pieces(elements, arr.dtype), arr.pun, lanes)
        if arr.kind == "register":
            parts = [self.load_element(arr, indices[:-1] + [plus(indices[-1], k)], node)
                     for k in range(lanes)]
        else:
            with self.at(node):
                if lanes == 3:   # no 12-byte access: three of one lane each
                    parts = [arr.value.load(tuple(indices[:-1] + [plus(indices[-1], k)]))
                             for k in range(lanes)]
                else:
                    v = arr.value.load(tuple(indices), width=lanes)
                    parts = [v[k] for k in range(lanes)]
        if arr.pun is not None:
            with self.at(node):
                parts = [bitcast(p, BY_NAME[arr.pun]) for p in parts]
        return parts

    def returned_vector(self, node, result, lanes: int) -> tuple:
        """The place of the register vector a call returned, checked to be one of `lanes`."""
        if not isinstance(result, Sym) or result.kind != "register" or result.lanes != lanes:
            raise self.error(node, f"`{short(node)}` is not a vector of {lanes}")
        return result, [const(0)], lanes

    def operand_type(self, node) -> tuple[str, int] | None:
        """(IR element type, lanes) of an argument, as far as choosing among a function's
        overloads needs it (helper_math.h's lerp of floats and of float3s); None where the
        form does not say. Nothing it evaluates is stated."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "call_expression":
            name = callee_name(node.child_by_field_name("function"))
            if name.startswith("make_") and name[len("make_"):] in VECTORS:
                return VECTORS[name[len("make_"):]]
            if name in self.u.functions:
                return self.returned_type(self.overloads(
                    name, node.child_by_field_name("arguments").named_children))
        found = self.overloaded_operator(node)
        if found is not None:
            return self.returned_type(self.overloads(*found))
        if node.type in ("identifier", "subscript_expression", "pointer_expression"):
            try:
                with self.trial():
                    place = self.vector_place(node)
            except CudaImportError:
                place = None
            if place is not None:
                return place[0].pun or place[0].dtype, place[2]
        try:
            return self.trial_type(lambda: self.expr(node), node).name, 1
        except CudaImportError:
            return None

    def returned_type(self, candidates: list) -> tuple[str, int] | None:
        """(element type, lanes) the first of `candidates` returns; None where unknown."""
        if not candidates:
            return None
        try:
            return self.vtype(self.u.return_type_node(candidates[0]), candidates[0])
        except CudaImportError:
            return None

    def overloads(self, name: str, args) -> list:
        """The file's functions `name` that take these arguments, the best first: C++'s
        overload choice as far as the types of scalars and vectors go (an exact element
        type before a conversion; a parameter whose type is not read matches anything)."""
        found = [f for f in self.u.functions.get(name, [])
                 if len(self.u.params_of(f)) == len(args) or
                 self.u.min_args(f) <= len(args) <= len(self.u.params_of(f))]
        if len(found) < 2:
            return found
        types = [self.operand_type(a) for a in args]
        ranked = []
        for order, f in enumerate(found):
            score = 0
            for p, t in zip(self.u.params_of(f), types):
                d = p.child_by_field_name("declarator")
                if t is None or d is None or d.type == "pointer_declarator":
                    continue
                try:
                    want = self.vtype(p.child_by_field_name("type"), p)
                except CudaImportError:
                    continue    # a template's type parameter: deduced from any argument
                if want[1] != t[1]:
                    score = None     # a float3 is no float, nor a float a float3
                    break
                score += 2 if want[0] == t[0] else 1
            if score is not None:
                ranked.append((-score, order, f))
        return [f for _, _, f in sorted(ranked, key=lambda r: r[:2])]

    def overloaded_operator(self, node) -> tuple[str, list] | None:
        """(`operator+`, its operands) where `node` applies an operator the file defines
        (helper_math.h's float3 + float3) to a vector; else None."""
        if node.type == "binary_expression":
            operands = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        elif node.type == "unary_expression" and node.children[0].type in ("-", "+"):
            operands = [node.child_by_field_name("argument")]
        else:
            return None
        name = f"operator{node.child_by_field_name('operator').type}"
        if name not in self.u.functions:
            return None
        types = [self.operand_type(a) for a in operands]
        if not any(t is not None and t[1] > 1 for t in types):
            return None
        return name, operands

    def inline_vector(self, node, lanes: int) -> list:
        """A device function that returns a vector in one `return` (llm.c's `ld_vec(p)`):
        the lanes of its returned expression, its parameters bound as for any call."""
        name = callee_name(node.child_by_field_name("function"))
        function = self.u.functions[name][0]
        ret = single_return(function.child_by_field_name("body"))
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
                    ref = self.kb.let(text(d), self.expr(a), register_type(dtype))
                scope[text(d)] = Sym("local", ref, register_type(dtype))
            else:
                raise self.error(node, f"`{short(node)}`: a vector argument of '{name}'")
        saved, self.scopes = self.scopes, [self.scopes[0], scope]
        try:
            return self.vector_value(ret, lanes)
        finally:
            self.scopes = saved

    def store_vector(self, arr: Sym, indices: list, lanes: int, value, node) -> None:
        """`place = vector`: lane by lane into registers, one width-N store to memory (three
        of one lane for a 3-lane vector)."""
        if arr.pun is not None and self.vector_copy(arr, indices, lanes, value, node):
            return
        if arr.pun is not None and arr.dtype == "f16" and arr.kind in ("shared", "global"):
            view, flat = self.bits_view(replace(arr, pun=None), node)
            arr, indices = replace(view, pun=arr.pun), flat(indices)
        # (`value` a syntax node, or the lanes already at hand: lower_choices)
        parts = value if isinstance(value, list) else self.vector_value(value, lanes)
        if arr.pun is not None and SIZES[arr.pun] != SIZES[arr.dtype]:
            count = lanes * SIZES[arr.pun] // SIZES[arr.dtype]
            with self.at(node):
                words = [cast(p, BY_NAME[arr.pun]) for p in parts]
                elements = from_pieces(to_pieces(words, arr.pun), arr.dtype, count)
            if arr.kind == "register":
                for k, element in enumerate(elements):
                    self.store_element(arr, indices[:-1] + [plus(indices[-1], k)], "=",
                                       element, node)
                return
            with self.at(node):
                arr.value.store(tuple(indices), elements, width=count)
            return
        if arr.pun is not None:   # a vector of the pun's type, stored as the array's bits
            with self.at(node):
                parts = [bitcast(cast(p, BY_NAME[arr.pun]), BY_NAME[arr.dtype]) for p in parts]
        if arr.kind == "register":
            for k, part in enumerate(parts):
                self.store_element(arr, indices[:-1] + [plus(indices[-1], k)], "=", part, node)
            return
        with self.at(node):
            if lanes == 3:   # no 12-byte access: three of one lane each
                for k, part in enumerate(parts):
                    arr.value.store(tuple(indices[:-1] + [plus(indices[-1], k)]), part)
                return
            arr.value.store(tuple(indices), parts, width=lanes)


# Bits moved between 4-byte values and bf16 (llm.c's Packed128<bf16> and its int4): as 16-bit
# pieces in u32 values, little-endian (a word's low half is the lower-addressed element). A
# bf16 in a register is a float whose low 16 bits are zero, so its bits are the float's
# high half, exactly. (f16's bits are not a float's: not read.)
PIECE_TYPES = ("f32", "i32", "u32", "bf16")


def to_pieces(values: list, dtype: str) -> list:
    """The 16-bit pieces of values of one type (8-byte, 4-byte, bf16, f16 or u16), in
    memory order."""
    u32 = BY_NAME["u32"]
    out = []
    if dtype in ("u8", "i8"):   # two bytes a piece, the lower-addressed low
        return [(cast(a, u32) & 0xFF) | ((cast(b, u32) & 0xFF) << 8)
                for a, b in zip(values[0::2], values[1::2])]
    for v in values:
        if dtype == "u16":
            out.append(cast(v, u32))
            continue
        if dtype == "f16":   # a half's value as its bits
            out.append(call("f16_bits", v))
            continue
        if dtype == "bf16":
            out.append(bitcast(v, u32) >> 16)
            continue
        if dtype in ("f64", "i64", "u64"):   # four pieces, the low first
            u64 = BY_NAME["u64"]
            bits = bitcast(v, u64) if dtype == "f64" else cast(v, u64)
            out += [cast((bits >> (16 * k)) & 0xFFFF, u32) for k in range(4)]
            continue
        word = bitcast(v, u32) if dtype == "f32" else cast(v, u32)
        out += [word & 0xFFFF, word >> 16]
    return out


def words_of(halves: list) -> list:
    """32-bit words of 16-bit values (u16 bits), two a word, the first in the low half (a
    register of two halves, as ldmatrix and mma.sync hold them)."""
    return from_pieces(to_pieces(halves, "u16"), "u32", len(halves) // 2)


def halves_of(words: list) -> list:
    """The 16-bit values (u16) of 32-bit words, the low half of each first."""
    return from_pieces(to_pieces(words, "u32"), "u16", 2 * len(words))


def from_pieces(pieces: list, dtype: str, count: int) -> list:
    """`count` values of a type (8-byte, 4-byte, bf16, f16 or u16) made of 16-bit pieces,
    in memory order."""
    f32 = BY_NAME["f32"]
    if dtype in ("u8", "i8"):
        return [cast(b, BY_NAME[dtype]) for p in pieces for b in (p & 0xFF, p >> 8)][:count]
    if dtype == "u16":
        return [cast(p, BY_NAME["u16"]) for p in pieces[:count]]
    if dtype == "f16":
        return [call("f16_from_bits", p) for p in pieces[:count]]
    if dtype == "bf16":
        return [bitcast(p << 16, f32) for p in pieces[:count]]
    if dtype in ("f64", "i64", "u64"):
        u64 = BY_NAME["u64"]
        wide = [cast(pieces[4 * k], u64) | (cast(pieces[4 * k + 1], u64) << 16) |
                (cast(pieces[4 * k + 2], u64) << 32) | (cast(pieces[4 * k + 3], u64) << 48)
                for k in range(count)]
        return [bitcast(w, BY_NAME["f64"]) if dtype == "f64" else cast(w, BY_NAME[dtype])
                for w in wide]
    words = [pieces[2 * k] | (pieces[2 * k + 1] << 16) for k in range(count)]
    return [bitcast(w, f32) if dtype == "f32" else cast(w, BY_NAME[dtype]) for w in words]

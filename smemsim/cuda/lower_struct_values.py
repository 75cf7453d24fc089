"""Structs in registers, as kernels use them. A struct variable is its fields, each a local or
a register array (what nvcc keeps of it after scalar replacement), and a copy copies each
field. Constructors, member functions, static members and `operator[]` are inlined with the
object's fields in scope (fast.cu's `Schedule<1, ...> s(M, N, b); s.next()`, llm.c's
`SumMax r = op(a, {x, 1.0f})` and `cg::reduce(warp, r, op)`); a template struct's partial
specialization is chosen as C++ chooses it. An array of structs in file-scope memory whose
fields are scalars of one type is a flat array of that type (the cuda-samples' option table:
`d_OptionData[b].S` is its element 5b)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import prod

from kernels_ir import Op, const
from kernels_ir.expr import binary

from .errors import CudaImportError
from .lower_choices import UNSET_OFFSET, _assignments, _bare, _base_name, pointer_name
from .parse import function_declarator, parse_expression, short, subscript_index, \
    template_default, template_parameters, text
from .symbols import FLOAT_TYPES, SIZES, Sym, callee_name, exact_quotient, fold, plus, \
    register_type, single_return
from .unit import struct_base

QUALIFIERS = ("type_qualifier", "storage_class_specifier", "attribute_specifier",
              "alignas_qualifier")


@dataclass
class StructType:
    """A struct of the file with its template arguments bound."""

    name: str          # as written in messages: `Schedule<1, 132, 128, 256, 16, 8>`
    base: str          # the struct's own name (its constructors' name)
    definition: object  # the struct_specifier read
    scope: dict        # its template value parameters and static constants: name -> Sym
    types: dict        # its template type parameters -> C++ type name
    fields: list       # [(name, IR type, dims, lanes, StructType | None)], in order
    methods: dict      # name -> [function_definition]; constructors under `base`
    align: int = 1     # alignas / __align__, else its largest field's
    pointers: list = field(default_factory=list)   # [(name, IR type, lanes)] of pointer
    #                                                fields (`float* a;`)
    pointer_at: list = field(default_factory=list)  # per pointer field, the index in
    #                                                 `fields` of the field after it
    # (in memory a pointer field is 8 bytes at an 8-byte boundary: streamcluster's Point)

    def _pointer_slots(self, offset: int, before: int) -> int:
        """`offset` past the pointer fields that precede field number `before`."""
        for _ in range(self.pointer_at.count(before)):
            offset = -(-offset // 8) * 8 + 8
        return offset

    def elements(self) -> tuple[str, int] | None:
        """(IR type, count) when every field is scalars of one type, laid out without
        padding (a struct memory holds as that many elements); else None."""
        types, count = set(), 0
        if self.pointers:
            return None
        for _, dtype, dims, lanes, inner in self.fields:
            if inner is not None:
                found = inner.elements()
                if found is None:
                    return None
                types.add(found[0])
                count += found[1] * prod(dims)
                continue
            types.add(dtype)
            count += prod(dims) * lanes
        return (types.pop(), count) if len(types) == 1 else None

    def field_start(self, name: str, in_bytes: bool) -> tuple | None:
        """(where field `name` starts: its byte offset as C++ lays the struct out, or, for a
        struct of one element type held as those elements, its element offset; the field's
        (IR type, dims, lanes, inner)), or None if the struct has no such field."""
        offset = 0
        for number, (fname, dtype, dims, lanes, inner) in enumerate(self.fields):
            offset = self._pointer_slots(offset, number)
            if inner is not None:
                size = (inner.byte_layout()[1] if in_bytes else inner.elements()[1]) \
                    * prod(dims)
                align = inner.align if in_bytes else 1
            else:
                unit = SIZES[dtype] if in_bytes else 1
                size = prod(dims) * lanes * unit
                align = (unit * lanes if lanes in (2, 4) else unit) if in_bytes else 1
            offset = -(-offset // align) * align
            if fname == name:
                return offset, (dtype, dims, lanes, inner)
            offset += size
        return None

    def byte_layout(self) -> tuple[list, int]:
        """([(IR type, byte offset)] of each scalar element in memory order, size in bytes)
        as C++ lays the struct out (each field at its alignment, the size a multiple of the
        struct's); a pointer field holds its 8 bytes and no element (it is not read from
        memory)."""
        out, offset = [], 0
        for number, (_, dtype, dims, lanes, inner) in enumerate(self.fields):
            offset = self._pointer_slots(offset, number)
            if inner is not None:
                found = inner.byte_layout()
                offset = -(-offset // inner.align) * inner.align
                for _ in range(prod(dims)):    # an array of structs: one after another
                    out += [(t, offset + o) for t, o in found[0]]
                    offset += found[1]
                continue
            size = SIZES[dtype]
            align = size * lanes if lanes in (2, 4) else size
            offset = -(-offset // align) * align
            for k in range(prod(dims) * lanes):
                out.append((dtype, offset + k * size))
            offset += prod(dims) * lanes * size
        offset = self._pointer_slots(offset, len(self.fields))
        return out, -(-offset // self.align) * self.align


class StructValuesMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    # ---------------------------------------------------------------- types
    @staticmethod
    def declares_reference(node) -> bool:
        """Whether a declaration declares a reference (`S& s = ...`)."""
        return any(d.type == "init_declarator" and
                   d.child_by_field_name("declarator").type == "reference_declarator"
                   for d in node.named_children)

    def names_struct(self, type_node) -> bool:
        """Whether a type node names a struct of the file (no evaluation)."""
        if type_node is None:
            return False
        if type_node.type == "type_descriptor":
            type_node = type_node.child_by_field_name("type") or type_node
        base = struct_base(type_node)
        return base in self.u.structs or base in self.u.struct_aliases or bool(
            self.this_stack and self.this_stack[-1] is not None and
            self.this_stack[-1][0].base == base)

    def struct_type(self, type_node, node) -> StructType | None:
        """The struct a type node names, its template arguments evaluated here; None when
        it names no struct of the file."""
        if not self.names_struct(type_node):
            return None
        if type_node.type == "type_descriptor":
            type_node = type_node.child_by_field_name("type") or type_node
        base = struct_base(type_node)
        args = type_node.child_by_field_name("arguments").named_children \
            if type_node.type == "template_type" else []
        if not args and self.this_stack and self.this_stack[-1] is not None and \
                self.this_stack[-1][0].base == base:
            return self.this_stack[-1][0]   # the class's own name inside its members
        if not args and base in self.u.struct_aliases:
            return self.struct_type(self.u.struct_aliases[base], node)
        definitions = self.u.structs[base]
        for d in definitions:
            name = d.child_by_field_name("name")
            if name is not None and name.type == "template_type":
                binding = self.specialization_binding(d, name, args, type_node)
                if binding is not None:
                    return self.struct_of(base, d, binding, self.shown(base, args))
        primary = [d for d in definitions if d.child_by_field_name("name") is None or
                   d.child_by_field_name("name").type != "template_type"]
        if not primary:
            raise self.error(node, f"`{short(type_node)}`: no specialization of {base} "
                                   "matches these template arguments")
        d = primary[0]
        binding = {}
        params = template_parameters(d.parent)
        if len(args) > len(params):
            raise self.error(node, f"`{short(type_node)}`: {base} takes {len(params)} "
                                   "template argument(s)")
        for k, (p, is_type, pname) in enumerate(params):
            arg = args[k] if k < len(args) else template_default(p, is_type)
            if arg is None:
                raise self.error(node, f"`{short(type_node)}`: template parameter {pname} of "
                                       f"{base} needs a value")
            binding[pname] = self.template_argument(arg, is_type, type_node)
        shown = ", ".join(str(v) for _, v in binding.values())
        return self.struct_of(base, d, binding, f"{base}<{shown}>" if binding else base)

    def template_argument(self, arg, is_type: bool, node) -> tuple:
        """("type", IR type name or C++ type name) or ("value", number) of a struct's
        template argument (`floatX` and `float` are one type: f32)."""
        if is_type:
            try:
                return ("type", self.dtype(arg, node))
            except CudaImportError:
                return ("type", self.type_name(arg, node))
        if arg.type == "type_descriptor":   # `S<BM>`: the grammar cannot tell
            arg = parse_expression(text(arg)) or arg
        v = fold(self.expr(arg))
        if v is None:
            raise self.error(node, f"`{short(arg)}`: a struct's template argument must be a "
                                   "compile-time constant")
        return ("value", v)

    def specialization_binding(self, definition, name, args, node) -> dict | None:
        """The parameters of a partial specialization (`struct S<1, N, B>`) bound by the
        given arguments, or None when its fixed arguments differ from them."""
        pattern = name.child_by_field_name("arguments").named_children
        if len(pattern) != len(args):
            return None
        params = {pname: is_type for _, is_type, pname in template_parameters(definition.parent)}
        binding = {}
        for pat, arg in zip(pattern, args):
            written = text(pat).strip()
            if written in params:
                binding[written] = self.template_argument(arg, params[written], node)
                continue
            fixed = parse_expression(written)
            value = fold(self.expr(fixed)) if fixed is not None and \
                fixed.type in ("number_literal", "true", "false", "unary_expression",
                               "binary_expression") else None
            if value is not None:
                if self.template_argument(arg, False, node) != ("value", value):
                    return None
            elif self.template_argument(arg, True, node) != ("type", self.type_name(pat,
                                                                                    node)):
                return None
        return binding

    def shown(self, base: str, args) -> str:
        """`Schedule<1, 132, 128, 256, 16, 8>`: a struct type's name with its arguments'
        values, for messages."""
        out = []
        for a in args:
            try:
                out.append(str(self.template_argument(a, False, a)[1]))
            except CudaImportError:
                out.append(str(self.template_argument(a, True, a)[1]))
        return f"{base}<{', '.join(out)}>"

    def struct_of(self, base: str, definition, binding: dict, name: str) -> StructType:
        """The fields, static constants and member functions of a struct, its template
        parameters bound."""
        scope = {n: Sym("const", const(v), "i32") for n, (k, v) in binding.items()
                 if k == "value"}
        types = {n: v for n, (k, v) in binding.items() if k == "type"}
        stype = StructType(name, base, definition, scope, types, [], {})
        body = definition.child_by_field_name("body")
        head = definition.text[:body.start_byte - definition.start_byte].decode()
        m = re.search(r"\b(?:alignas|__align__)\s*\(\s*(\d+)\s*\)", head)
        stype.align = int(m.group(1)) if m else 1
        saved_types = dict(self.types)
        self.types.update(types)
        self.scopes.append(scope)
        try:
            for f in definition.child_by_field_name("body").named_children:
                if f.type == "template_declaration":
                    f = next((c for c in f.named_children if c.type == "function_definition"),
                             f)
                if f.type == "function_definition":
                    if any(c.type in ("default_method_clause", "delete_method_clause")
                           for c in f.children):
                        continue   # `S() = default;`: nothing runs
                    d = function_declarator(f)
                    stype.methods.setdefault(text(d.child_by_field_name("declarator")),
                                             []).append(f)
                elif f.type == "field_declaration":
                    self.struct_field(stype, f)
        finally:
            self.scopes.pop()
            self.types = saved_types
        for _, dtype, _, lanes, inner in stype.fields:
            stype.align = max(stype.align, inner.align if inner is not None else
                              SIZES[dtype] * (lanes if lanes in (2, 4) else 1))
        if stype.pointers:
            stype.align = max(stype.align, 8)
        return stype

    def struct_field(self, stype: StructType, f) -> None:
        """One field declaration of a struct: its fields, or a static constant."""
        if any(c.type == "storage_class_specifier" and text(c) == "static" for c in f.children):
            value = f.child_by_field_name("default_value")
            name = f.child_by_field_name("declarator")
            e = self.expr(value) if value is not None else None
            if e is None or fold(e) is None:
                raise self.error(f, f"`{short(f)}`: a static member is read when it is a "
                                    "compile-time constant")
            stype.scope[text(name)] = Sym("const", const(fold(e), e.dtype), e.dtype.name)
            return
        type_node = f.child_by_field_name("type")
        inner = self.struct_type(type_node, f)
        dtype, lanes = (inner.name, 1) if inner is not None else self.vtype(type_node, f)
        if inner is None and self.type_name(type_node, f) == "bool":
            dtype = "u8"    # a bool field is one byte, as C++ lays the struct out
        for d in f.children_by_field_name("declarator"):
            if d.type == "pointer_declarator" and inner is None and \
                    d.child_by_field_name("declarator").type == "field_identifier":
                # `const float* in;`: a parameter pack's array (a kernel parameter's field)
                stype.pointers.append((text(d.child_by_field_name("declarator")), dtype,
                                       lanes))
                stype.pointer_at.append(len(stype.fields))
                continue
            dims = []
            while d.type == "array_declarator":
                dims.insert(0, self.constant_int(d.child_by_field_name("size"),
                                                 "a field's size"))
                d = d.child_by_field_name("declarator")
            if d.type != "field_identifier":
                raise self.error(f, f"`{short(f)}`: a {d.type.replace('_', ' ')} field of a "
                                    f"struct in registers (scalars, vectors, arrays and "
                                    "structs are read)")
            if inner is not None and len(dims) > 1:
                raise self.error(f, f"`{short(f)}`: a multi-dimensional array of structs as "
                                    "a field")
            stype.fields.append((text(d), dtype, dims, lanes, inner))

    # ---------------------------------------------------------------- values
    def new_struct(self, stype: StructType, name: str, node, pointers: dict | None = None) -> Sym:
        """A struct variable: a local per scalar field, a register array per array field
        (zero, as the IR's registers start; C++ leaves them indeterminate); pointer fields
        are what `pointers` says they point at (a copy of a kernel parameter's struct)."""
        if stype.pointers and pointers is None:
            raise self.error(node, f"`{short(node)}`: a {stype.name} (a struct with pointer "
                                   "fields) is read as a kernel parameter and as copies of "
                                   "one, not built here")
        members = dict(pointers or {})
        with self.at(node):
            for fname, dtype, dims, lanes, inner in stype.fields:
                label = f"{name}_{fname}"
                if inner is not None and dims:
                    raise self.error(node, f"`{short(node)}`: a {stype.name} holds an array "
                                           f"of {inner.name} ('{fname}'): such a struct is "
                                           "read in memory, not as a variable")
                if inner is not None:
                    members[fname] = self.new_struct(inner, label, node)
                elif dims or lanes > 1:
                    shape = tuple(dims + ([lanes] if lanes > 1 else []))
                    arr = self.kb.local_array(label, register_type(dtype), shape)
                    members[fname] = Sym("register", arr, dtype, lanes, len(shape))
                else:
                    ref = self.kb.let(label, 0.0 if dtype in FLOAT_TYPES else 0,
                                      register_type(dtype))
                    members[fname] = Sym("local", ref, register_type(dtype),
                                         narrow=dtype if dtype in ("f16", "bf16") else None)
        return Sym("struct", stype, stype.name, place=members)

    def copy_struct(self, dst: Sym, src: Sym, node) -> None:
        """`dst = src`: field by field."""
        if dst is src:
            return
        if dst.value.name != src.value.name:
            raise self.error(node, f"`{short(node)}`: a {src.value.name} given where a "
                                   f"{dst.value.name} is expected")
        for fname, d in dst.place.items():
            s = src.place[fname]
            if d.kind in ("global", "pointer"):
                if d is not s:
                    raise self.error(node, f"`{short(node)}`: a pointer field ('{fname}') "
                                           "pointed elsewhere is not read")
                continue
            if d.kind == "struct":
                self.copy_struct(d, s, node)
            elif d.kind == "local":
                with self.at(node):
                    self.kb.assign(d.value, s.value)
            else:
                for index in flat_indices(d.value.shape):
                    self.store_element(d, index, "=", self.load_element(s, index, node), node)

    def struct_object(self, node) -> Sym | None:
        """The struct variable (or struct field) an expression names, or None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier":
            sym = self.declared(text(node))
            return sym if sym is not None and sym.kind == "struct" and \
                isinstance(sym.value, StructType) else None
        if node.type == "field_expression":
            member = self.struct_member(node)
            return member if member is not None and member.kind == "struct" else None
        return None

    def struct_value(self, node, stype: StructType | None = None) -> Sym:
        """The struct an expression denotes: a variable, a call's result, a braced list of
        the expected type, `T{...}`, `c ? a : b`."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        obj = self.struct_object(node)
        if obj is not None:
            return obj
        t = node.type
        if t == "initializer_list" and stype is not None:
            tmp = self.new_struct(stype, stype.base.lower(), node)
            self.construct(tmp, node.named_children, node, braces=True)
            return tmp
        if t == "compound_literal_expression":
            st = self.struct_type(node.child_by_field_name("type"), node)
            if st is not None:
                tmp = self.new_struct(st, st.base.lower(), node)
                self.construct(tmp, node.child_by_field_name("value").named_children, node,
                               braces=True)
                return tmp
        if t == "conditional_expression":
            return self.struct_conditional(node, stype)
        if t in ("subscript_expression", "pointer_expression") and \
                (place := self.struct_in_memory(node)) is not None:
            return self.load_struct(place, node)
        if t == "call_expression":
            fn = node.child_by_field_name("function")
            if callee_name(fn) == "reduce" and fn.type == "qualified_identifier":
                return self.reduce_struct(node, node.child_by_field_name("arguments")
                                          .named_children)
            result = self.call(node, struct=True)
            if isinstance(result, Sym) and result.kind == "struct":
                return result
        raise self.error(node, f"`{short(node)}` is not a struct value the importer reads "
                               f"(a struct variable, a call that returns one, {{...}}, T{{...}}, "
                               "c ? a : b)")

    def struct_conditional(self, node, stype) -> Sym:
        """`c ? a : b` of structs: only the side taken runs, copied into a new struct."""
        c = self.expr(node.child_by_field_name("condition"))
        sides = (node.child_by_field_name("consequence"), node.child_by_field_name("alternative"))
        if stype is None:
            with self.trial():   # its type only: nothing of it is stated here
                stype = self.struct_value(sides[0]).value
        tmp = self.new_struct(stype, "cond", node)
        with self.at(node):
            with self.kb.if_(c):
                self.copy_struct(tmp, self.struct_value(sides[0], stype), node)
            with self.kb.else_():
                self.copy_struct(tmp, self.struct_value(sides[1], stype), node)
        return tmp

    def construct(self, obj: Sym, args: list, node, braces: bool) -> None:
        """`S s(a, b)`, `S s{a, b}`, `S{a, b}`: a constructor of that many parameters, else
        (braces) the fields in order, the rest staying zero (C++'s value-initialization)."""
        stype = obj.value
        ctors = [f for f in stype.methods.get(stype.base, [])
                 if self.u.min_args(f) <= len(args) <= len(self.u.params_of(f))]
        if ctors:
            self.inline(node, stype.base, args, None, candidates=ctors, this=obj,
                        as_statement=True)
            return
        if not braces and args:
            raise self.error(node, f"`{short(node)}`: {stype.name} has no constructor of "
                                   f"{len(args)} parameter(s)")
        if len(args) > len(stype.fields):
            raise self.error(node, f"`{short(node)}`: {len(args)} values for the "
                                   f"{len(stype.fields)} field(s) of {stype.name}")
        for (fname, *_), arg in zip(stype.fields, args):
            member = obj.place[fname]
            if member.kind == "struct":
                self.copy_struct(member, self.struct_value(arg, member.value), node)
            elif member.kind == "local":
                self.assign_local(member, "=", self.expr(arg), node)
            else:
                items = arg.named_children if arg.type == "initializer_list" else None
                if items is None or len(items) > member.value.shape[0] or member.rank != 1:
                    raise self.error(arg, f"`{short(arg)}`: the array field '{fname}' is "
                                          "initialized from a braced list of its elements")
                for k, item in enumerate(items):
                    self.store_element(member, [const(k)], "=", self.expr(item), node)

    def struct_value_declaration(self, node, type_node) -> bool:
        """`S s;`, `S s = value;`, `S s{a, b}`, `S s(a, b)` of a struct of the file (False
        when the type is no such struct)."""
        stype = self.struct_type(type_node, node)
        if stype is None:
            return False
        for d in node.named_children:
            if d == type_node or d.type in QUALIFIERS:
                continue
            if d.type == "identifier":
                obj = self.new_struct(stype, text(d), node)
                if any(self.u.min_args(f) == 0 for f in stype.methods.get(stype.base, [])):
                    self.construct(obj, [], node, braces=False)
                self.declare(text(d), obj)
            elif d.type == "init_declarator" and \
                    d.child_by_field_name("declarator").type == "identifier":
                name = text(d.child_by_field_name("declarator"))
                value = d.child_by_field_name("value")
                if value.type in ("initializer_list", "argument_list"):
                    obj = self.new_struct(stype, name, node)
                    self.construct(obj, value.named_children, node,
                                   braces=value.type == "initializer_list")
                else:
                    source = self.struct_value(value, stype)
                    if self.struct_object(value) is None and source.value.name == stype.name:
                        obj = source   # a new value (a call's result): it is the variable
                    else:
                        obj = self.new_struct(stype, name, node, pointer_members(source))
                        self.copy_struct(obj, source, node)
                self.declare(name, obj)
            elif d.type == "init_declarator" and \
                    d.child_by_field_name("declarator").type == "pointer_declarator":
                self.struct_pointer_local(d, stype, node)
            elif d.type == "pointer_declarator" and pointer_name(d) is not None:
                self.unset_struct_pointer(pointer_name(d), stype, node)
            elif d.type == "function_declarator":
                # `S s(M, N, b);`: the grammar reads a declaration of a function
                args = [parse_expression(text(p))
                        for p in d.child_by_field_name("parameters").named_children]
                if any(a is None for a in args):
                    raise self.error(node, f"`{short(node)}`: constructor arguments the "
                                           "importer cannot read")
                name = text(d.child_by_field_name("declarator"))
                obj = self.new_struct(stype, name, node)
                self.construct(obj, args, node, braces=False)
                self.declare(name, obj)
            else:
                raise self.error(node, f"`{short(node)}`: a struct in registers is read as a "
                                       "variable (arrays of structs and pointers to them are "
                                       "not read yet)")
        return True

    def struct_argument(self, p, d, arg, pname: str, scope: dict, node) -> Sym:
        """What a struct parameter binds: the caller's struct (a reference), or a copy of
        it (a value; a new value, such as a braced list, is the parameter itself)."""
        self.scopes.append(scope)   # `S<N> s`: N may be the callee's own
        try:
            stype = self.struct_type(p.child_by_field_name("type"), p)
        finally:
            self.scopes.pop()
        if d.type == "reference_declarator" and not isinstance(arg, Sym) and \
                arg.type == "identifier" and self.shared_struct_object(arg) is not None:
            return self.lookup(text(arg), arg)   # `LocalQueues &q` given a __shared__ one
        source = arg if isinstance(arg, Sym) else self.struct_value(arg, stype)
        if d.type == "reference_declarator":
            return source
        if d.type != "identifier":
            raise self.error(node, f"`{short(p)}`: a pointer to a struct in registers is not "
                                   "read yet")
        if not isinstance(arg, Sym) and self.struct_object(arg) is None and \
                source.value.name == stype.name:
            return source
        copy = self.new_struct(stype, pname, node, pointer_members(source))
        self.copy_struct(copy, source, node)
        return copy

    # ---------------------------------------------------------------- structs in memory
    def struct_layout(self, stype: StructType, node) -> tuple[str, int]:
        """(IR type, elements) of a struct held in memory: its one element type, or, for
        fields of several types, ("u8", its size in bytes): a byte view, each field then
        read through a view of its own type."""
        found = stype.elements()
        if found is not None:
            return found
        size = stype.byte_layout()[1]
        if size == 0:   # (C++ gives an empty struct one byte, which holds nothing to read)
            raise self.error(node, f"`{short(node)}`: {stype.name} has no fields: a struct "
                                   "in memory is read through its fields")
        return "u8", size

    def struct_pointer_local(self, d, stype: StructType, node) -> None:
        """`S* p = reinterpret_cast<S*>(bytes) + k;` (llm.c's `x128* s_in`): a pointer
        whose unit is the struct, into a flat view of the memory in the struct's element
        type; its offset (in elements) a local, so that `p += k` moves it."""
        target = d.child_by_field_name("declarator")
        name = text(target.child_by_field_name("declarator"))
        view, lead, offset = self.struct_address(d.child_by_field_name("value"), stype, node)
        with self.at(node):
            offset = self.kb.let(f"{name}_offset", offset, "i32")
        dtype, count = self.struct_layout(stype, node)
        self.declare(name, Sym("struct_pointer", stype, dtype, count, place=(view, lead,
                                                                              offset)))

    def unset_struct_pointer(self, name: str, stype: StructType, node) -> None:
        """`S* p;` before its assignments (lavaMD's `FOUR_VECTOR* rA;` then `rA =
        &d_rv_gpu[first_i];`, inside a loop too): where every assignment points into one
        struct array (a struct pointer parameter or local), a pointer into it whose offset
        each assignment sets, starting out of bounds (UNSET_OFFSET: a read before any
        assignment is a located fault)."""
        places = []
        for a in _assignments(name, node):
            base = _base_name(a.child_by_field_name("right"))
            sym = self.declared(base) if base is not None else None
            if sym is None or sym.kind != "struct_pointer" or sym.value.name != stype.name:
                raise self.error(node, f"`{short(node)}`: a {stype.name} pointer declared "
                                       "without a value is read where each assignment points "
                                       f"it into an array of {stype.name} (`{short(a)}` does "
                                       "not)")
            places.append(sym.place)
        if not places or any(p[0] is not places[0][0] or len(p[1]) != len(places[0][1])
                             for p in places):
            raise self.error(node, f"`{short(node)}`: a {stype.name} pointer declared without "
                                   "a value is read where it is assigned, every time into one "
                                   "array")
        view, lead, _ = places[0]
        with self.at(node):
            offset = self.kb.let(f"{name}_offset", UNSET_OFFSET, "i32")
        dtype, count = self.struct_layout(stype, node)
        self.declare(name, Sym("struct_pointer", stype, dtype, count,
                               place=(view, list(lead), offset)))

    def repoint_struct(self, target, sym: Sym, value, node) -> None:
        """`p = &q[i]` (or `q + i`) of a struct pointer local: into the array it points
        into, its offset moves; into another, refused at the line."""
        view, lead, offset = sym.place
        new_view, new_lead, new_offset = self.struct_address(value, sym.value, node)
        if new_view is not view or len(new_lead) != len(lead) or any(
                fold(a) is None or fold(a) != fold(b) for a, b in zip(new_lead, lead)) or \
                getattr(offset, "op", None) is not Op.VAR:
            raise self.error(node, f"`{short(node)}`: a {sym.value.name} pointer pointed at "
                                   "another array than the one it points into")
        with self.at(node):
            self.kb.assign(offset, new_offset)

    def struct_address(self, node, stype: StructType, where) -> tuple[Sym, list, object]:
        """(array, leading indices, element offset) a struct pointer expression denotes:
        a struct pointer (plus or minus whole structs), or a cast of an array or pointer to
        S* (a shared array of another type: a view of its bytes)."""
        dtype, count = self.struct_layout(stype, where)
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            if sym.kind == "struct_pointer":
                if sym.value.name != stype.name:
                    raise self.error(where, f"`{short(node)}` points at {sym.value.name}, not "
                                            f"{stype.name}")
                view, lead, offset = sym.place
                return view, list(lead), offset
        if node.type == "pointer_expression" and node.children[0].type == "&" and \
                (element := _bare(node.named_children[0])).type == "subscript_expression" and \
                self.struct_pointer_named(_bare(element.child_by_field_name("argument"))):
            # `&p[i]`: p + i
            view, lead, offset = self.struct_address(element.child_by_field_name("argument"),
                                                     stype, where)
            k = self.index(subscript_index(element)) * count
            with self.at(node):
                return view, lead, offset + k
        if node.type == "binary_expression" and \
                node.child_by_field_name("operator").type in ("+", "-"):
            view, lead, offset = self.struct_address(node.child_by_field_name("left"), stype,
                                                     where)
            k = self.index(node.child_by_field_name("right")) * count
            with self.at(node):
                plus_minus = offset + k if node.child_by_field_name("operator").type == "+" \
                    else offset - k
            return view, lead, plus_minus
        inner = self.uncast(node)
        if inner is not node and inner.type == "identifier" and \
                self.lookup(text(inner), inner).kind == "struct_pointer":
            return self.struct_address(inner, stype, where)   # `(S*)tile` of S tile[n]
        if inner is not node:
            arr, indices = self.pointer_place(inner, where)
            if dtype == "u8" and (arr.kind != "shared" or len(indices) != 1):
                raise self.error(where, f"`{short(node)}`: a {stype.name} (fields of several "
                                        "types) is read in shared memory only")
            if dtype == "u8":   # its byte offset must keep the struct's alignment
                with self.at(node):
                    start = indices[0] * SIZES[arr.dtype] if SIZES[arr.dtype] > 1 \
                        else indices[0]
                if exact_quotient(start, stype.align) is None:
                    raise self.error(where, f"`{short(node)}`: a {stype.name} pointer must "
                                            f"start at a multiple of its alignment, "
                                            f"{stype.align} bytes")
                view = arr if arr.dtype == "u8" else self.shared_view(arr, "u8", where)
                return view, [], start
            if arr.dtype == dtype:
                return arr, indices[:-1], indices[-1]
            first = None
            if arr.kind == "shared" and len(indices) == 1:
                with self.at(node):   # the byte offset, as elements of the struct's type
                    first = exact_quotient(indices[0] * SIZES[arr.dtype]
                                           if SIZES[arr.dtype] > 1 else indices[0],
                                           SIZES[dtype])
            if first is None:
                raise self.error(where, f"`{short(node)}`: a {stype.name} pointer into "
                                        f"'{short(inner)}' ({arr.dtype}) is read over a shared "
                                        f"array at a whole number of {dtype} elements (a "
                                        f"constant, or a product with a multiple of them)")
            return self.shared_view(arr, dtype, where), [], first
        raise self.error(where, f"`{short(node)}`: a {stype.name} pointer is read from a cast "
                                "of an array (reinterpret_cast<S*>(a)), another such pointer, "
                                "and either plus whole structs")

    def struct_pointer_named(self, node) -> Sym | None:
        """The struct pointer (or array of structs, file-scope ones too) an identifier
        names, or None."""
        if node.type != "identifier":
            return None
        name = text(node)
        sym = self.declared(name)
        if sym is None and name in self.u.memory:
            sym = self.lookup(name, node)
        return sym if sym is not None and sym.kind == "struct_pointer" else None

    def struct_in_memory(self, node):
        """(StructType, array, indices of its first element, elements) of `p[i]`, `*p`,
        `*(p + i)` over a struct pointer; None when the node is no such place."""
        if node.type == "subscript_expression":
            base = node.child_by_field_name("argument")
            while base.type == "parenthesized_expression":
                base = base.named_children[0]
            if base.type == "field_expression":
                return self.struct_array_element(base, node)
            sym = self.struct_pointer_named(base)
            if sym is None:
                return None
            view, lead, offset = sym.place
            i = self.index(subscript_index(node))
            return sym.value, view, list(lead) + [plus(offset, i * sym.lanes)], sym.lanes
        if node.type == "pointer_expression" and node.children[0].type == "*":
            inner = node.named_children[0]
            while inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            root = inner
            while root.type == "binary_expression":
                root = root.child_by_field_name("left")
            sym = self.struct_pointer_named(root)
            if sym is None:
                return None
            view, lead, offset = self.struct_address(inner, sym.value, node)
            return sym.value, view, list(lead) + [offset], sym.lanes
        return None

    def struct_array_element(self, field_node, node):
        """`X.f[k]` with `f` an array of structs in the struct in memory X (lavaMD's
        `d_box_gpu[bx].nei[k]`): its place, or None when `f` is no such field."""
        place = self.field_base_place(field_node)
        if place is None:
            return None
        stype, view, indices, _ = place
        in_bytes = held_as_bytes(stype, view)
        found = stype.field_start(text(field_node.child_by_field_name("field")), in_bytes)
        if found is None:
            return None
        offset, (_, dims, _, inner) = found
        if inner is None or not dims:
            return None
        unit = inner.byte_layout()[1] if in_bytes else inner.elements()[1]
        k = self.index(subscript_index(node))
        with self.at(node):
            at = plus(indices[-1], const(offset)) + k * unit
        return inner, view, indices[:-1] + [at], unit

    def vector_width(self, stype: StructType, count: int) -> int:
        """How many elements one access of a struct in memory moves: all of them where the
        struct is aligned to its size of 8 or 16 bytes (nvcc's LDS.64/128 for an
        `alignas(16)` Packed128, of 4 floats or 8 bf16), else one."""
        dtype, _ = stype.elements()
        size = SIZES[dtype] * count
        widths = (2, 4, 8) if dtype in ("f16", "bf16") else (2, 4)
        return count if size in (8, 16) and stype.align >= size and count in widths else 1

    def field_places(self, place, node) -> list:
        """[(array, indices)] of each scalar element of a struct of several field types in
        memory, in memory order: the view of its type at its byte offset (exact: the
        struct's start keeps its alignment, and each field is aligned in it)."""
        stype, view, indices, _ = place
        return [self.byte_element(view, dtype, plus(indices[-1], const(offset)), node)
                for dtype, offset in stype.byte_layout()[0]]

    def byte_element(self, view: Sym, dtype: str, at, node) -> tuple[Sym, list]:
        """(array, indices) of the `dtype` element at byte `at` of a byte array: the view
        of that type (the byte array itself for u8)."""
        if dtype == "u8":
            return view, [at]
        with self.at(node):
            return self.shared_view(view, dtype, node), \
                [binary(Op.DIV, at, const(SIZES[dtype]), int_div=True)]

    def refuse_pointer_fields(self, stype: StructType, node) -> None:
        """A whole struct with pointer fields moved to or from memory: refused at its line
        (its scalar fields are read and written one by one)."""
        if stype.pointers:
            raise self.error(node, f"`{short(node)}`: a whole {stype.name} (pointer field "
                                   f"'{stype.pointers[0][0]}') moved to or from memory: read "
                                   "and write its other fields one by one")

    def load_struct(self, place, node) -> Sym:
        """A struct read from memory into a new struct value (one vector load where its
        alignment allows, as nvcc emits it; a struct of several field types field by
        field)."""
        stype, view, indices, count = place
        self.refuse_pointer_fields(stype, node)
        obj = self.new_struct(stype, stype.base.lower(), node)
        if held_as_bytes(stype, view):
            for (member, index, _), (arr, at) in zip(self.register_elements_of(obj),
                                                     self.field_places(place, node)):
                value = self.load_element(arr, at, node)
                if index is None:
                    self.assign_local(member, "=", value, node)
                else:
                    self.store_element(member, index, "=", value, node)
            return obj
        width = self.vector_width(stype, count)
        values = []
        with self.at(node):
            for k in range(0, count, width):
                at = indices[:-1] + [plus(indices[-1], const(k))]
                if width > 1:
                    v = view.value.load(tuple(at), width=width)
                    values += [v[j] for j in range(width)]
                else:
                    values.append(view.value.load(tuple(at)))
        for (member, index, _), value in zip(self.register_elements_of(obj), values):
            if index is None:
                self.assign_local(member, "=", value, node)
            else:
                self.store_element(member, index, "=", value, node)
        return obj

    def store_struct(self, place, value_node, node) -> None:
        """`p[i] = value` of a struct: its elements, in one vector store where its
        alignment allows."""
        stype, view, indices, count = place
        self.refuse_pointer_fields(stype, node)
        obj = self.struct_value(value_node, stype)
        if obj.value.name != stype.name:
            raise self.error(node, f"`{short(node)}`: a {obj.value.name} stored as a "
                                   f"{stype.name}")
        values = [member.value if index is None else self.load_element(member, index, node)
                  for member, index, _ in self.register_elements_of(obj)]
        if held_as_bytes(stype, view):
            for value, (arr, at) in zip(values, self.field_places(place, node)):
                self.store_element(arr, at, "=", value, node)
            return
        width = self.vector_width(stype, count)
        with self.at(node):
            for k in range(0, count, width):
                at = tuple(indices[:-1] + [plus(indices[-1], const(k))])
                if width > 1:
                    view.value.store(at, values[k:k + width], width=width)
                else:
                    view.value.store(at, values[k])

    # ---------------------------------------------------------------- members
    def method_call(self, node, obj, name: str, args, template_args=None):
        """`obj.f(args)`: its member function inlined with obj's fields in scope; a static
        one (`T::f()`, obj a StructType) with its constants only."""
        stype = obj.value if isinstance(obj, Sym) else obj
        methods = stype.methods.get(name)
        if not methods:
            raise self.error(node, f"`{short(node)}`: {stype.name} has no member function "
                                   f"'{name}'")
        return self.inline(node, name, args, template_args, candidates=methods, this=obj)

    def struct_static(self, node):
        """`T::size` (a static constant) as its value, or None when T is no struct."""
        scope = node.child_by_field_name("scope")
        stype = self.struct_type(scope, node) if scope is not None else None
        if stype is None:
            return None
        name = text(node.child_by_field_name("name"))
        if name not in stype.scope:
            raise self.error(node, f"`{short(node)}`: {stype.name} has no constant '{name}'")
        return stype.scope[name].value

    def operator_place(self, node, obj: Sym) -> tuple[Sym, list]:
        """`v[k]` of a struct with `operator[]` that returns an element of a field (llm.c's
        Packed128): that element, read or written."""
        methods = obj.value.methods.get("operator[]")
        if not methods:
            raise self.error(node, f"`{short(node)}`: {obj.value.name} has no operator[]")
        return self.returned_place(node, methods[0], [subscript_index(node)], obj)

    def returned_place(self, node, function, args, this: Sym | None = None):
        """(array, indices) of the element a function returns by reference in one `return`
        (`float& vec_at(float4& v, int i) { return ((float*)&v)[i]; }`, operator[]): its
        reference parameters alias the caller's variables, its value parameters are the
        arguments' values."""
        body = function.child_by_field_name("body")
        ret = single_return(body) if body is not None else None
        params = self.u.params_of(function)
        if ret is None or len(params) != len(args):
            raise self.error(node, f"`{short(node)}`: a reference returned by a function is "
                                   "read when the function is one `return` of an element")
        scope = {}
        if this is not None:
            scope.update(this.value.scope)
            scope.update(this.place)
        for p, arg in zip(params, args):
            d = p.child_by_field_name("declarator")
            if d is not None and d.type == "reference_declarator":
                scope[text(d.named_children[-1])] = self.reference(arg)
            elif d is not None and d.type == "identifier":
                value = self.expr(arg)
                scope[text(d)] = Sym("param", value, value.dtype.name)
            else:
                raise self.error(node, f"`{short(p)}`: a parameter of a function whose "
                                       "returned reference is written (values and references "
                                       "are read)")
        saved, saved_types = self.scopes, dict(self.types)
        self.scopes = [self.scopes[0], scope]
        if this is not None:
            self.types.update(this.value.types)
        try:
            return self.element_place(ret)
        finally:
            self.scopes, self.types = saved, saved_types

    def reduce_struct(self, node, args) -> Sym:
        """`cg::reduce(tile, v, op)` of a struct and a device function: the butterfly of
        shuffles the library runs, each field shuffled, `op` inlined at each step."""
        group = self.lookup(text(args[0]), args[0]) if len(args) == 3 and \
            args[0].type == "identifier" else None
        op = text(args[2]) if len(args) == 3 else ""
        if group is None or group.kind != "group" or not isinstance(group.value, int) or \
                op not in self.u.functions:
            raise self.error(node, f"`{short(node)}`: cg::reduce of a struct over a tile "
                                   "(tiled_partition<N>) with a __device__ function")
        value = self.struct_value(args[1])
        acc = self.new_struct(value.value, "reduced", node)
        self.copy_struct(acc, value, node)
        step = group.value // 2
        while step:
            other = self.new_struct(value.value, "other", node)
            for fname, member in acc.place.items():
                if member.kind != "local":
                    raise self.error(node, f"`{short(node)}`: cg::reduce of a struct with "
                                           f"the non-scalar field '{fname}'")
                with self.at(node):
                    self.kb.assign(other.place[fname].value,
                                   self.kb.shfl(member.value, step, "xor", width=group.value))
            result = self.inline(node, op, [acc, other], None)
            self.copy_struct(acc, result, node)
            step //= 2
        return acc

    def struct_parameter(self, p, name: str, stype: StructType, writes: set, reads: set):
        """A kernel parameter of a struct of scalars and pointers (`Params p`): each scalar
        field a parameter `p_n` (`--param p_n=...`), each pointer field a global array
        `p_in` (`--length p_in=...`), an output where the body writes through it."""
        members = {}
        for fname, dtype, dims, lanes, inner in stype.fields:
            if dims or lanes > 1 or inner is not None:
                raise self.error(p, f"kernel parameter `{short(p)}`: its field '{fname}' (a "
                                    "struct parameter's fields are read when they are scalars "
                                    "and pointers)")
            with self.at(p):
                e = self.kb.param(f"{name}_{fname}", dtype)
            members[fname] = Sym("param", e, dtype)
        for fname, dtype, lanes in stype.pointers:
            key, used = f"{name}_{fname}", f"{name}.{fname}"
            intent = "inout" if used in writes and used in reads else \
                "out" if used in writes else "in"
            length = self.u.length_of(key, self)
            with self.at(p):
                arr = self.kb.global_array(key, dtype, length * lanes if lanes > 1 else length,
                                           intent=intent)
            members[fname] = Sym("global", arr, dtype, lanes)
        self.declare(name, Sym("struct", stype, stype.name, place=members))

    # ---------------------------------------------------------------- file-scope arrays
    def struct_memory(self, name: str, decl, d, stype: StructType, constant: bool) -> Sym:
        """A file-scope array of structs whose fields are scalars of one type: a flat array
        of that type (C++'s layout: no padding between fields of one type), named by a
        struct pointer to its first element."""
        dtype, count = self.struct_layout(stype, decl)
        if stype.elements() is None:
            raise self.error(decl, f"`{short(decl)}`: an array of {stype.name} (fields of "
                                   "several types) in global memory is not read")
        dims = self.array_dims(d, decl)
        if len(dims) != 1:
            raise self.error(decl, f"`{short(decl)}`: a one-dimensional array of structs is "
                                   "read")
        with self.at(decl):
            arr = self.kb.global_array(name, dtype, dims[0] * count,
                                       intent="in" if constant else "inout")
        sym = Sym("struct_pointer", stype, dtype, count,
                  place=(Sym("global", arr, dtype), [], const(0)))
        self.scopes[0][name] = sym
        return sym

    def struct_array_parameter(self, p, name: str, intent: str) -> None:
        """`S* p` of a kernel whose struct's fields are scalars (or arrays) of one type (Rodinia
        bfs's `Node { int starting; int no_of_edges; }`): a global array of that type, its
        length the structs the launch passes times their elements, named by a struct
        pointer to its first element; of several types, the structs' bytes (u8)."""
        stype = self.struct_type(p.child_by_field_name("type"), p)
        # fields of several types: the structs' bytes, each field read through a view of
        # its own type at its offset (C++'s layout; cudaMalloc aligns the array)
        dtype, count = self.struct_layout(stype, p)
        length = self.u.length_of(name, self, count, SIZES[dtype])
        with self.at(p):
            arr = self.kb.global_array(name, dtype, length * count, intent=intent)
        self.declare(name, Sym("struct_pointer", stype, dtype, count,
                               place=(Sym("global", arr, dtype), [], const(0))))

    def shared_structs(self, d, stype: StructType, node) -> None:
        """`__shared__ S tile[n];` of a struct whose fields are scalars of one type: a
        shared array of n times its elements, aligned as the struct, named by a struct
        pointer to its first element."""
        dtype, count = self.struct_layout(stype, node)
        size = d.child_by_field_name("size")
        name_node = d.child_by_field_name("declarator")
        if size is None or name_node.type != "identifier":
            raise self.error(node, f"`{short(node)}`: a one-dimensional shared array of "
                                   "structs, with its size, is read")
        n = self.constant_int(size, "an array size")
        name = text(name_node)
        with self.at(node):   # (fields of several types: its bytes, viewed per field type)
            arr = self.kb.shared(name, dtype, (n * count,), align=max(stype.align,
                                                                      SIZES[dtype]))
        self.declare(name, Sym("struct_pointer", stype, dtype, count,
                               place=(Sym("shared", arr, dtype), [], const(0))))

    def struct_field_array(self, node) -> tuple | None:
        """`a[i].f` or `p->f` with `f` an array field of scalars (`int keys[8];`) of a struct
        in memory: (the array of f's type, the indices of f's first element, f's dims), or
        None when the node is no such field."""
        if node.type != "field_expression":
            return None
        place = self.field_base_place(node)
        if place is None:
            return None
        stype, view, indices, _ = place
        name = text(node.child_by_field_name("field"))
        in_bytes = held_as_bytes(stype, view)
        found = stype.field_start(name, in_bytes)
        if found is None:
            return None
        offset, (dtype, dims, lanes, inner) = found
        if not dims or inner is not None or lanes > 1:
            return None
        at = plus(indices[-1], const(offset))
        if not in_bytes:
            return view, indices[:-1] + [at], dims
        return *self.byte_element(view, dtype, at, node), dims

    def field_base_place(self, node):
        """The struct in memory whose field `node` (`a[i].f`, `p->f`) names: (StructType,
        array, indices of its first element, elements), or None."""
        base = node.child_by_field_name("argument")
        if any(c.type == "->" for c in node.children):
            sym = self.struct_pointer_named(base)
            if sym is None:
                return None
            view, lead, offset = sym.place
            return sym.value, view, list(lead) + [offset], sym.lanes
        if base.type != "subscript_expression":
            return None
        return self.struct_in_memory(base)

    def struct_array_field(self, node) -> Sym | None:
        """`a[i].f` or `p->f` (a scalar field of a struct in memory): a reference to its
        element, or None when the node is no such field."""
        # (`latLong->lat` of `LatLong *latLong = d_locations + id`, Rodinia nn: *p's field)
        place = self.field_base_place(node)
        if place is None:
            return None
        stype, view, indices, _ = place
        field = text(node.child_by_field_name("field"))
        in_bytes = held_as_bytes(stype, view)
        found = stype.field_start(field, in_bytes)
        if found is None and any(name == field for name, _, _ in stype.pointers):
            raise self.error(node, f"`{short(node)}`: '{field}' is a pointer field of "
                                   f"{stype.name} in memory: a pointer read from memory is "
                                   "not followed (its other fields are read)")
        if found is None:
            raise self.error(node, f"`{short(node)}`: {stype.name} has no field '{field}'")
        offset, (dtype, dims, lanes, inner) = found
        if dims or lanes > 1 or inner is not None:
            raise self.error(node, f"`{short(node)}`: a non-scalar field of a struct in "
                                   "memory (read the whole struct into a variable)")
        at = plus(indices[-1], const(offset))
        arr, index = self.byte_element(view, dtype, at, node) if in_bytes else \
            (view, indices[:-1] + [at])
        return Sym("ref", None, arr.dtype, place=(arr, index))


def held_as_bytes(stype: StructType, view: Sym) -> bool:
    """Whether a struct in memory is held as its bytes (a u8 array: fields of several types,
    or a struct of one type inside one of several), its fields then read through views of
    their types at their byte offsets."""
    return view.dtype == "u8" and (stype.elements() or ("",))[0] != "u8"


def pointer_members(obj: Sym) -> dict:
    """The pointer fields of a struct value (a copy points where the original does)."""
    return {k: v for k, v in obj.place.items() if v.kind in ("global", "pointer")}


def flat_indices(shape) -> list:
    """Every index of an array of this shape, in order, as constant expressions."""
    out = []
    for flat in range(prod(shape)):
        index, rest = [], flat
        for size in reversed(shape):
            index.insert(0, const(rest % size))
            rest //= size
        out.append(index)
    return out


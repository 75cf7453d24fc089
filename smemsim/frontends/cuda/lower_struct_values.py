"""The file's structs as the host side meets them: a kernel parameter of a struct of scalars
and pointers (`Params p`: a parameter per scalar field, a global array per pointer field),
a pointer to an array of structs (`Node* nodes`: their elements, or their bytes), `sizeof`
of a struct (C++'s layout, padding included: the host's cudaMalloc sizes) and a struct's
static constants (`Packed128<float>::size`), its template arguments bound."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import prod
from typing import TYPE_CHECKING

from kernels_ir import const

from .errors import CudaImportError
from .parse import function_declarator, parse_expression, short, template_default, \
    template_parameters, text
from .symbols import SIZES, Sym, fold
from .unit import struct_base

if TYPE_CHECKING:
    from .lower import KernelLowering


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

    def field_offsets(self) -> dict[str, int]:
        """The byte offset of each field as C++ lays the struct out (each at its alignment;
        a pointer field 8 bytes at an 8-byte boundary)."""
        out, offset = {}, 0

        def pointers_before(number: int, offset: int) -> int:
            for (name, _, _), at in zip(self.pointers, self.pointer_at):
                if at == number:
                    offset = -(-offset // 8) * 8
                    out[name] = offset
                    offset += 8
            return offset
        for number, (name, dtype, dims, lanes, inner) in enumerate(self.fields):
            offset = pointers_before(number, offset)
            if inner is not None:
                offset = -(-offset // inner.align) * inner.align
                out[name] = offset
                offset += inner.byte_layout()[1] * prod(dims)
                continue
            size = SIZES[dtype]
            align = size * lanes if lanes in (2, 4) else size
            offset = -(-offset // align) * align
            out[name] = offset
            offset += prod(dims) * lanes * size
        pointers_before(len(self.fields), offset)
        return out

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


def names_struct(lw: KernelLowering, type_node) -> bool:
    """Whether a type node names a struct of the file (no evaluation)."""
    if type_node is None:
        return False
    if type_node.type == "type_descriptor":
        type_node = type_node.child_by_field_name("type") or type_node
    base = struct_base(type_node)
    return base in lw.u.structs or base in lw.u.struct_aliases


def struct_type(lw: KernelLowering, type_node, node) -> StructType | None:
    """The struct a type node names, its template arguments evaluated here; None when
    it names no struct of the file."""
    if not names_struct(lw, type_node):
        return None
    if type_node.type == "type_descriptor":
        type_node = type_node.child_by_field_name("type") or type_node
    base = struct_base(type_node)
    args = type_node.child_by_field_name("arguments").named_children \
        if type_node.type == "template_type" else []
    if not args and base in lw.u.struct_aliases:
        return struct_type(lw, lw.u.struct_aliases[base], node)
    definitions = lw.u.structs[base]
    if any(d.child_by_field_name("name") is not None and
           d.child_by_field_name("name").type == "template_type" for d in definitions):
        raise lw.error(node, f"`{short(type_node)}`: {base} has specializations, which "
                             "the host side does not choose among (give the value it "
                             "gives: --host, --param, --length)")
    primary = [d for d in definitions if d.child_by_field_name("name") is None or
               d.child_by_field_name("name").type != "template_type"]
    if not primary:
        raise lw.error(node, f"`{short(type_node)}`: no specialization of {base} "
                             "matches these template arguments")
    d = primary[0]
    binding = {}
    params = template_parameters(d.parent)
    if len(args) > len(params):
        raise lw.error(node, f"`{short(type_node)}`: {base} takes {len(params)} "
                             "template argument(s)")
    for k, (p, is_type, pname) in enumerate(params):
        arg = args[k] if k < len(args) else template_default(p, is_type)
        if arg is None:
            raise lw.error(node, f"`{short(type_node)}`: template parameter {pname} of "
                                 f"{base} needs a value")
        binding[pname] = template_argument(lw, arg, is_type, type_node)
    shown = ", ".join(str(v) for _, v in binding.values())
    return struct_of(lw, base, d, binding, f"{base}<{shown}>" if binding else base)


def template_argument(lw: KernelLowering, arg, is_type: bool, node) -> tuple:
    """("type", IR type name or C++ type name) or ("value", number) of a template
    argument (a struct's, a function's: `floatX` and `float` are one type: f32)."""
    if is_type:
        try:
            return ("type", lw.dtype(arg, node))
        except CudaImportError:
            return ("type", lw.type_name(arg, node))
    if arg.type == "type_descriptor":   # `S<BM>`: the grammar cannot tell
        arg = parse_expression(text(arg)) or arg
    v = fold(lw.expr(arg))
    if v is None:
        raise lw.error(node, f"`{short(arg)}`: a template argument must be a "
                             "compile-time constant")
    return ("value", v)


def struct_of(lw: KernelLowering, base: str, definition, binding: dict, name: str) -> StructType:
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
    saved_types = dict(lw.types)
    lw.types.update(types)
    lw.scopes.append(scope)
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
                struct_field(lw, stype, f)
    finally:
        lw.scopes.pop()
        lw.types = saved_types
    for _, dtype, _, lanes, inner in stype.fields:
        stype.align = max(stype.align, inner.align if inner is not None else
                          SIZES[dtype] * (lanes if lanes in (2, 4) else 1))
    if stype.pointers:
        stype.align = max(stype.align, 8)
    return stype


def struct_field(lw: KernelLowering, stype: StructType, f) -> None:
    """One field declaration of a struct: its fields, or a static constant."""
    if any(c.type == "storage_class_specifier" and text(c) == "static" for c in f.children):
        value = f.child_by_field_name("default_value")
        name = f.child_by_field_name("declarator")
        e = lw.expr(value) if value is not None else None
        if e is None or fold(e) is None:
            raise lw.error(f, f"`{short(f)}`: a static member is read when it is a "
                              "compile-time constant")
        stype.scope[text(name)] = Sym("const", const(fold(e), e.dtype), e.dtype.name)
        return
    type_node = f.child_by_field_name("type")
    inner = struct_type(lw, type_node, f)
    dtype, lanes = (inner.name, 1) if inner is not None else lw.vtype(type_node, f)
    if inner is None and lw.type_name(type_node, f) == "bool":
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
            dims.insert(0, lw.constant_int(d.child_by_field_name("size"),
                                           "a field's size"))
            d = d.child_by_field_name("declarator")
        if d.type != "field_identifier":
            raise lw.error(f, f"`{short(f)}`: a {d.type.replace('_', ' ')} field of a "
                              f"struct in registers (scalars, vectors, arrays and "
                              "structs are read)")
        if inner is not None and len(dims) > 1:
            raise lw.error(f, f"`{short(f)}`: a multi-dimensional array of structs as "
                              "a field")
        stype.fields.append((text(d), dtype, dims, lanes, inner))


def struct_layout(lw: KernelLowering, stype: StructType, node) -> tuple[str, int]:
    """(IR type, elements) of a struct held in memory: its one element type, or, for
    fields of several types, ("u8", its size in bytes): a byte view, each field then
    read through a view of its own type."""
    found = stype.elements()
    if found is not None:
        return found
    size = stype.byte_layout()[1]
    if size == 0:   # (C++ gives an empty struct one byte, which holds nothing to read)
        raise lw.error(node, f"`{short(node)}`: {stype.name} has no fields: a struct "
                             "in memory is read through its fields")
    return "u8", size


def struct_static(lw: KernelLowering, node):
    """`T::size` (a static constant) as its value, or None when T is no struct."""
    scope = node.child_by_field_name("scope")
    stype = struct_type(lw, scope, node) if scope is not None else None
    if stype is None:
        return None
    name = text(node.child_by_field_name("name"))
    if name not in stype.scope:
        raise lw.error(node, f"`{short(node)}`: {stype.name} has no constant '{name}'")
    return stype.scope[name].value


def struct_parameter(lw: KernelLowering, p, name: str, stype: StructType, writes: set, reads: set):
    """A kernel parameter of a struct of scalars and pointers (`Params p`): each scalar
    field a parameter `p_n` (`--param p_n=...`), each pointer field a global array
    `p_in` (`--length p_in=...`), an output where the body writes through it."""
    members = {}
    offsets = stype.field_offsets()
    for fname, dtype, dims, lanes, inner in stype.fields:
        if dims or lanes > 1 or inner is not None:
            raise lw.error(p, f"kernel parameter `{short(p)}`: its field '{fname}' (a "
                              "struct parameter's fields are read when they are scalars "
                              "and pointers)")
        with lw.at(p):
            e = lw.kb.param(f"{name}_{fname}", dtype)
        lw.kb._params[-1].field = (name, offsets[fname])
        members[fname] = Sym("param", e, dtype)
    for fname, dtype, lanes in stype.pointers:
        key, used = f"{name}_{fname}", f"{name}.{fname}"
        intent = "inout" if used in writes and used in reads else \
            "out" if used in writes else "in"
        length = lw.u.length_of(key, lw, lanes, SIZES[dtype], field=(name, fname))
        with lw.at(p):
            arr = lw.kb.global_array(key, dtype, length * lanes if lanes > 1 else length,
                                     intent=intent)
        arr.field = (name, offsets[fname])
        members[fname] = Sym("global", arr, dtype, lanes)
    lw.declare(name, Sym("struct", stype, stype.name, place=members))


def struct_array_parameter(lw: KernelLowering, p, name: str, intent: str) -> None:
    """`S* p` of a kernel whose struct's fields are scalars (or arrays) of one type (Rodinia
    bfs's `Node { int starting; int no_of_edges; }`): a global array of that type, its
    length the structs the launch passes times their elements, named by a struct
    pointer to its first element; of several types, the structs' bytes (u8)."""
    stype = struct_type(lw, p.child_by_field_name("type"), p)
    # fields of several types: the structs' bytes, each field read through a view of
    # its own type at its offset (C++'s layout; cudaMalloc aligns the array)
    dtype, count = struct_layout(lw, stype, p)
    length = lw.u.length_of(name, lw, count, SIZES[dtype])
    with lw.at(p):
        arr = lw.kb.global_array(name, dtype, length * count, intent=intent)
    lw.declare(name, Sym("struct_pointer", stype, dtype, count,
                         place=(Sym("global", arr, dtype), [], const(0))))

"""Structs of arrays in shared memory, as tiled kernels declare them (`extern __shared__
SMem<BM, BN, BK> s;` with `alignas(128) bf16 A[BM * BK];` fields): each field an array at
its C++ offset and alignment, `s.A` a pointer to it and `s.A[i]` its element.

An `extern __shared__` variable of a complete type is not the launch's dynamic memory: nvcc
defines it (`.shared .align 128 .b8 s[32768]` in the PTX, fast.cu's kernel 3) and ptxas
places it after the kernel's own `__shared__` variables (the build's static size, 32,896
bytes there, is the barriers' 16, padding to 128, then the struct)."""
from __future__ import annotations

import re

from kernels_ir import const

from .parse import short, template_parameters, text
from .symbols import SIZES, Sym


class StructsMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def struct_declaration(self, node, type_node, shared: bool, extern: bool) -> bool:
        """`[extern] __shared__ S s;` of a struct the file defines: its fields, laid out as
        C++ does (each at its alignment, in order); False when the type is not such a
        struct."""
        if type_node is None:
            return False
        name = text(type_node.child_by_field_name("name")) \
            if type_node.type == "template_type" else text(type_node)
        definitions = self.u.structs.get(name.split("::")[-1])
        if not shared and not self.declares_reference(node):
            return self.struct_value_declaration(node, type_node)
        arrays = [d for d in node.named_children if d.type == "array_declarator"]
        if shared and arrays and self.names_struct(type_node):
            stype = self.struct_type(type_node, node)   # `__shared__ S tile[n];`
            for d in arrays:
                self.shared_structs(d, stype, node)
            return True
        if not definitions:
            return False
        definition = definitions[0]
        if not shared:
            return self.struct_reference(node, type_node, definition)
        fields = self.struct_fields(definition, type_node, node)
        for d in node.named_children:
            if d == type_node or d.type in ("type_qualifier", "storage_class_specifier",
                                            "attribute_specifier"):
                continue
            if d.type != "identifier":
                raise self.error(node, f"`{short(node)}`: one struct variable per name (no "
                                       "arrays of structs, no initializer)")
            var = text(d)
            members = {}
            # the fields in order, each at its alignment: the struct's own layout (the first
            # at the struct's alignment, the largest of its fields')
            first = max(a for _, _, _, a in fields) if fields else 16
            for k, (fname, dtype, dims, falign) in enumerate(fields):
                with self.at(node):
                    arr = self.kb.shared(f"{var}_{fname}", dtype, tuple(dims),
                                         align=first if k == 0 else falign)
                if extern:
                    self.module_scope.append(arr)
                members[fname] = Sym("shared", arr, dtype, 1, len(dims))
            sym = self.declare(var, Sym("struct", None, name, place=members))
            # (its type, for its member functions' calls: shared_struct_object; the Sym is
            # held too, so that its id names no other while the lowering lasts)
            self.__dict__.setdefault("_shared_struct_types", {})[id(sym)] = (sym, type_node)
        return True

    def shared_struct_object(self, node) -> Sym | None:
        """A `__shared__ S q;` named by `node`, as the object of a member function call
        (`q.reset(i)`: Parboil bfs's LocalQueues), its fields the shared arrays; else
        None."""
        if node.type != "identifier":
            return None
        sym = self.declared(text(node))
        held, type_node = self.__dict__.get("_shared_struct_types", {}).get(id(sym),
                                                                          (None, None))
        if held is not sym or type_node is None:
            return None
        stype = self.struct_type(type_node, node)
        return Sym("struct", stype, sym.dtype, place=sym.place) if stype is not None else None

    def struct_reference(self, node, type_node, definition) -> bool:
        """`S& s = *reinterpret_cast<S*>(smem);` over a shared byte array (fast.cu's kernels
        4 and on, over `extern __shared__ __align__(128) uint8_t smem[]`): each field a
        pointer into those bytes at its C++ offset. Struct values in registers: False (not
        read yet)."""
        decls = [d for d in node.named_children if d.type == "init_declarator"]
        if len(decls) != 1 or decls[0].child_by_field_name("declarator").type != \
                "reference_declarator":
            return False
        d = decls[0]
        value = self.uncast(d.child_by_field_name("value"))
        inner = self.uncast(value, ("*",))   # *reinterpret_cast<S*>(smem): smem
        base = self.lookup(text(inner), inner) if inner.type == "identifier" else None
        if base is None or base.kind != "shared" or value.type != "pointer_expression" or \
                value.children[0].type != "*":
            raise self.error(node, f"`{short(node)}`: a reference to a struct is read when it "
                                   "is `*reinterpret_cast<S*>(a shared array)`")
        name = text(d.child_by_field_name("declarator").named_children[-1])
        members, offset = {}, 0
        for fname, dtype, dims, falign in self.struct_fields(definition, type_node, node):
            offset = -(-offset // falign) * falign
            esize = SIZES[dtype]
            if len(dims) != 1 or offset % esize:
                raise self.error(node, f"`{short(node)}`: field '{fname}': one-dimensional "
                                       "arrays at whole-element offsets are read")
            view = base if base.dtype == dtype else self.shared_view(base, dtype, node)
            members[fname] = Sym("pointer", None, dtype, 1, 1,
                                 (view, [], const(offset // esize)))
            offset += esize * dims[0]
        self.declare(name, Sym("struct", None, text(type_node), place=members))
        return True

    def struct_fields(self, definition, type_node, node) -> list:
        """[(name, IR type, dims, alignment)] of a struct's fields, its template arguments
        bound (`SMem<BM, BN, BK>` in the kernel's scope)."""
        scope = {}
        if definition.parent is not None and definition.parent.type == "template_declaration":
            params = [pname for _, _, pname in template_parameters(definition.parent)]
            args = type_node.child_by_field_name("arguments").named_children \
                if type_node.type == "template_type" else []
            if len(args) != len(params):
                raise self.error(node, f"`{short(node)}`: {len(params)} template argument(s) "
                                       f"expected")
            for p, a in zip(params, args):
                scope[p] = Sym("const", const(self.template_argument(a, False, node)[1]), "i32")
        out = []
        self.scopes.append(scope)
        try:
            for f in definition.child_by_field_name("body").named_children:
                if f.type != "field_declaration":
                    continue
                dtype = self.dtype(f.child_by_field_name("type"), f)
                m = re.search(r"\b(?:alignas|__align__)\s*\(\s*(\d+)\s*\)", text(f))
                falign = max(int(m.group(1)) if m else 1, SIZES[dtype])
                for d in f.children_by_field_name("declarator"):
                    dims = []
                    while d.type == "array_declarator":
                        dims.insert(0, self.constant_int(d.child_by_field_name("size"),
                                                         "a field's size"))
                        d = d.child_by_field_name("declarator")
                    out.append((text(d), dtype, dims or [1], falign))
        finally:
            self.scopes.pop()
        return out

    def struct_member(self, node) -> Sym | None:
        """The field `s.A` names (an array, a pointer into the dynamic bytes, or a struct in
        registers' local, register array or struct), or None."""
        if node.type != "field_expression":
            return None
        base = node.child_by_field_name("argument")
        while base.type == "parenthesized_expression":
            base = base.named_children[0]
        sym = self.declared(text(base)) if base.type == "identifier" else \
            self.struct_member(base) if base.type == "field_expression" else None
        if sym is None or sym.kind != "struct":
            return None
        field = text(node.child_by_field_name("field"))
        if field not in sym.place and sym.value is not None and field in sym.value.scope:
            return sym.value.scope[field]   # `v.size`: a static constant, through an object
        if field not in sym.place:
            raise self.error(node, f"`{short(node)}`: struct {sym.dtype} has no field '{field}'")
        return sym.place[field]

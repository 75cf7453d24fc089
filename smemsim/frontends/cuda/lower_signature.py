"""The signature of a kernel the host side launches (KernelLowering's, bound as its methods):
its template parameters bound, and each parameter declared as the kernel's (scalars,
pointers with their allocations' lengths, a struct's fields, a vector's lanes, null
pointers, textures and tensor maps)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kernels_ir.dtypes import BY_NAME
from kernels_ir import const

from .errors import CudaImportError
from .lower_hopper import tensor_map_param
from .lower_struct_values import (names_struct, struct_array_parameter, struct_parameter,
                                  struct_type)
from .lower_textures import texture_param
from .parse import short, template_param_name, text
from .symbols import (COMPONENTS, SIZES, TYPES, VECTORS, Sym, c_type_size, fold,
                      register_type)

if TYPE_CHECKING:
    from .lower import KernelLowering


def bind_template(self: KernelLowering) -> None:
    """The kernel's template parameters bound: each type to a type of the IR, each value to
    its compile-time constant (given in the key, deduced at the launch, or defaulted)."""
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
            from .launch_sites import launches_named, unit_of
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


def parameter(self: KernelLowering, p, writes: set, reads: set) -> None:
    """One parameter of the signature as the kernel's: a scalar, a pointer (an array of its
    allocation's length), a struct's fields, a vector's lanes, a texture or tensor map."""
    d = p.child_by_field_name("declarator")
    if d is None:
        raise self.error(p, "a kernel parameter without a name")
    if tensor_map_param(self, p) or texture_param(self, p):
        return
    if d.type == "reference_declarator":
        raise self.error(p, f"kernel parameter `{short(p)}`: a reference")
    if d.type == "pointer_declarator":
        inner = d.child_by_field_name("declarator")
        if inner.type == "pointer_declarator":
            raise self.error(p, f"kernel parameter `{short(p)}`: a pointer to a pointer")
        name = text(inner)
        intent = "inout" if name in writes and name in reads else \
            "out" if name in writes else "in"
        if names_struct(self, p.child_by_field_name("type")):
            # `Node* g_graph_nodes` (Rodinia bfs): an array of structs in global memory
            struct_array_parameter(self, p, name, intent)
            return
        try:
            dtype, lanes = self.vtype(p.child_by_field_name("type"), p)
        except CudaImportError:
            size = c_type_size(self.type_name(p.child_by_field_name("type"), p))
            if size is None:
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
    if d.type == "identifier" and names_struct(self, p.child_by_field_name("type")):
        struct_parameter(self, p, text(d), struct_type(self, p.child_by_field_name("type"), p),
                         writes, reads)
        return
    if d.type != "identifier":
        raise self.error(p, f"kernel parameter '{short(p)}': only scalars and pointers "
                            "are supported")
    name = text(d)
    if self.type_name(p.child_by_field_name("type"), p) in VECTORS:
        # `uint3 gridSize`: a parameter per lane (`--param gridSize_x=...`, as a struct
        # parameter's fields)
        dtype, lanes = self.vtype(p.child_by_field_name("type"), p)
        with self.at(p):
            for c in COMPONENTS[:lanes]:
                self.kb.param(f"{name}_{c}", register_type(dtype))
        return
    dtype = self.dtype(p.child_by_field_name("type"), p)
    with self.at(p):
        e = self.kb.param(name, dtype)
    self.declare(name, Sym("param", e, dtype))


def null_parameter(self: KernelLowering, p, name: str, dtype: str, lanes: int,
                   intent: str) -> None:
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

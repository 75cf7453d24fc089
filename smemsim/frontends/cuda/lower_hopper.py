"""CUtensorMap kernel parameters: the map the host encoded, as --tensor-map describes it
(the host's cuTensorMapEncodeTiled arguments are computed at run time, usually in another
function), over the tensor's global array."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kernels_ir import KernelError
from kernels_ir.tma import tensor_strides

from ..tensor_maps import missing, parse_spec, tensor_length

from .parse import short, text
from .symbols import SIZES, TYPES, Sym, fold

if TYPE_CHECKING:
    from .lower import KernelLowering


def tensor_map_param(lw: KernelLowering, p) -> bool:
    """`const CUtensorMap* map` / `const __grid_constant__ CUtensorMap map`: the map the
    host encoded, as --tensor-map describes it (the host's cuTensorMapEncodeTiled
    arguments are computed at run time, usually in another function)."""
    if "CUtensorMap" not in text(p.child_by_field_name("type")):
        return False
    d = p.child_by_field_name("declarator")
    while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
        d = d.child_by_field_name("declarator") or d.named_children[-1]
    if d is None or d.type != "identifier":
        raise lw.error(p, f"kernel parameter `{short(p)}`: one CUtensorMap expected")
    name = text(d)
    spec = lw.u.options.tensor_maps.get(name)
    if spec is None:
        raise lw.error(p, missing(name))
    try:
        parsed = parse_spec(name, spec)
    except KernelError as err:
        raise lw.error(p, err.message) from None
    tensor, ctype = parsed.tensor, parsed.ctype
    dtype = TYPES.get(ctype, lw.u.typedefs.get(ctype, ctype))
    if dtype not in SIZES:
        raise lw.error(p, f"--tensor-map {name}: element type '{ctype}' is not one the "
                          f"IR has (its types: {', '.join(sorted(set(TYPES.values())))})")
    from .unit import lowering_expr
    what = f"--tensor-map {name}"
    shape = [lowering_expr(lw.u, d, lw, what) for d in parsed.extents]
    strides = None
    if any(x is not None for x in parsed.strides):   # given strides; the rest row-major
        strides = tensor_strides(shape, [lowering_expr(lw.u, x, lw, what)
                                         if x is not None else None
                                         for x in parsed.strides[:-1]])
    extents = []
    for b in parsed.box:
        v = fold(lowering_expr(lw.u, b, lw, f"--tensor-map {name}"))
        if v is None:
            raise lw.error(p, f"--tensor-map {name}: the box extent `{b}` must be a "
                              "compile-time constant")
        extents.append(v)
    arr = None
    sym = lw.declared(tensor)
    if sym is not None and sym.kind == "global":
        if sym.dtype != dtype:
            raise lw.error(p, f"--tensor-map {name}: '{tensor}' holds {sym.dtype}, "
                              f"the map {dtype}")
        arr = sym.value
    with lw.at(p):
        if arr is None:   # the tensor is not a parameter: the host passed only the map
            arr = lw.kb.global_array(tensor, dtype, tensor_length(shape, strides),
                                     intent="inout")
        tm = lw.kb.tensor_map(name, arr, tuple(shape), tuple(extents), parsed.swizzle,
                              strides=strides)
    lw.declare(name, Sym("tensor_map", tm, dtype))
    return True

"""A texture object kernel parameter (`cudaTextureObject_t tex`): a texture, whose array
the PTX lowering makes from its fetches (`--texture NAME=WIDTH[,HEIGHT]` gives its extent;
docs/ptx.md says how fetches read it)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .parse import short, text
from .symbols import Sym

if TYPE_CHECKING:
    from .lower import KernelLowering


TEXTURE_OBJECT = "cudaTextureObject_t"


def texture_param(lw: KernelLowering, p) -> bool:
    """`cudaTextureObject_t tex`: a texture, its array made at its first fetch (the
    element type is the fetch's)."""
    type_node = p.child_by_field_name("type")
    if type_node is None or text(type_node).split("::")[-1] != TEXTURE_OBJECT:
        return False
    d = p.child_by_field_name("declarator")
    if d is None or d.type != "identifier":
        raise lw.error(p, f"kernel parameter `{short(p)}`: a texture object by value "
                          "expected")
    lw.declare(text(d), Sym("texture", {"name": text(d), "dtype": None}, "u64"))
    return True

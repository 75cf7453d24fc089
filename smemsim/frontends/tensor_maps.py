"""`--tensor-map NAME='TENSOR TYPE[D1][D0] box[B1][B0] SWIZZLE'`: what the host's
cuTensorMapEncodeTiled call says of a CUtensorMap kernel parameter, which the kernel's code
cannot (its arguments are computed at run time, usually in another function). Parsed here
as text; each frontend reads the extents as expressions of its own kernel's parameters."""
from __future__ import annotations

import re
from dataclasses import dataclass

from kernels_ir import KernelError

FORM = "TENSOR TYPE[D1][D0] box[B1][B0] [none|32B|64B|128B]"
# a dimension: `[EXTENT]`, or `[EXTENT:STRIDE]` with its stride in elements (the host's
# globalStrides / element size; default: row-major)
SWIZZLE_WORDS = {"none": None, "32B": "SWIZZLE_32B", "64B": "SWIZZLE_64B",
                 "128B": "SWIZZLE_128B"}
_SPEC = re.compile(r"\s*([A-Za-z_]\w*)\s+([A-Za-z_][\w:]*(?:\s+[A-Za-z_]\w*)*)\s*"
                   r"((?:\[[^\[\]]+\])+)\s*box\s*((?:\[[^\[\]]+\])+)\s*"
                   r"(none|32B|64B|128B)?\s*")


@dataclass(frozen=True)
class TensorMapSpec:
    """One --tensor-map, as text: the tensor's name and C element type, each dimension's
    extent and stride (None: row-major) outermost first, the box's extents, the swizzle
    (kernels_ir's word, or None)."""

    tensor: str
    ctype: str
    extents: tuple[str, ...]
    strides: tuple[str | None, ...]
    box: tuple[str, ...]
    swizzle: str | None


def parse_spec(name: str, spec: str) -> TensorMapSpec:
    """The --tensor-map of parameter `name`, or a KernelError saying the form."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        raise KernelError(f"--tensor-map {name}='{spec}': expected '{FORM}', e.g. "
                          "'A bf16[M][K] box[64][64] 128B'")
    tensor, ctype, dims, box, swizzle = m.groups()
    dims = [d.split(":", 1) for d in re.findall(r"\[([^\[\]]+)\]", dims)]
    if len(dims[-1]) > 1:
        raise KernelError(f"--tensor-map {name}: the innermost dimension is contiguous "
                          "(no stride)")
    return TensorMapSpec(tensor, ctype, tuple(d[0] for d in dims),
                         tuple(d[1] if len(d) > 1 else None for d in dims),
                         tuple(re.findall(r"\[([^\[\]]+)\]", box)),
                         SWIZZLE_WORDS[swizzle or "none"])


def tensor_length(shape: list, strides: list | None):
    """The elements a tensor of `shape` (outermost first) spans: their product, or with
    `strides` (those of every dimension but the innermost) its last element's index plus
    one. The array a map's tensor is, where the host passed only the map."""
    if strides is None:
        length = shape[0]
        for e in shape[1:]:
            length = length * e
        return length
    length = shape[-1]
    for e, s in zip(shape[:-1], strides):
        length = length + (e - 1) * s
    return length


def missing(name: str) -> str:
    """What to say of a CUtensorMap parameter no --tensor-map describes."""
    return (f"kernel parameter '{name}' is a CUtensorMap the host encodes at run time: "
            f"describe it with --tensor-map {name}='{FORM}' (the tensor's name, element type "
            f"and extents outermost first, the box, the swizzle), e.g. --tensor-map "
            f"{name}='A bf16[M][K] box[64][64] 128B'")

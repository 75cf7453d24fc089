"""One CUDA file, read: preprocessed, parsed, and its parts found (kernels, device
functions, file-scope constants, typedefs, launches), with what the command line adds."""
from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass, field

from kernels_ir import SourceLoc, const
from kernels_ir.dtypes import BY_NAME

from .errors import CudaImportError
from .parse import (
    first_error, function_declarator, function_name, parse_expression, parser, text,
)
from .preprocess import Preprocessor, tokenize


@dataclass
class Options:
    """What the CUDA file does not say: macro values (-D, as the compiler takes them),
    include folders, the launch, array lengths and parameter values. Expressions are C, in
    the kernel's parameters and the file's macros and constants (`//` reads as `/`)."""

    defines: dict = field(default_factory=dict)   # NAME -> value text
    include_dirs: list = field(default_factory=list)
    grid: str | None = None                       # "X, Y"
    block: str | None = None
    smem: str | None = None
    lengths: dict = field(default_factory=dict)   # array -> expression
    params: dict = field(default_factory=dict)    # parameter -> number (the defaults)
    arch: int = 900                               # __CUDA_ARCH__
    kernel: str | None = None                     # --kernel: a name or `k<args>`


class Unit:
    """A CUDA file, preprocessed and parsed."""

    def __init__(self, path: str, options: Options | None = None):
        self.path = pathlib.Path(path)
        self.options = options or Options()
        if not self.path.is_file():
            raise CudaImportError(f"no such file: {path}")
        self.pp = Preprocessor(self.options.defines, self.options.include_dirs,
                               self.options.arch)
        self.pp.run_file(self.path, 0, None)
        # `__align__(N)` is an attribute the grammar does not know: blank it (columns stay)
        # and keep N per output row for the shared arrays declared there
        self.output = self.pp.output()
        self.aligns: dict[int, int] = {}
        rows = self.output.text.split("\n")
        for r, row in enumerate(rows):
            if "__align__" in row:
                def blank(m, r=r):
                    self.aligns[r] = int(m.group(1))
                    return " " * len(m.group())
                rows[r] = re.sub(r"__align__\s*\(\s*(\d+)\s*\)", blank, row)
        self.source = "\n".join(rows).encode()
        self.tree = parser().parse(self.source)
        self.kernels = []          # function_definition nodes of __global__ functions
        self.functions: dict[str, list] = {}   # __device__ functions by name
        self.constants: dict[str, object] = {}  # file-scope const name -> value node
        self.typedefs: dict[str, str] = {}
        self.launches: dict[str, list] = {}     # kernel name -> [(call, host function)]
        self._scan(self.tree.root_node, None)

    # ---- locations
    def loc(self, node) -> SourceLoc:
        row, col = node.start_point
        found = self.output.locs.get((row, col))
        if found is None:
            found = self.output.loc(row, col) or SourceLoc(str(self.path), 0)
        return found

    def error(self, node, message: str) -> CudaImportError:
        return CudaImportError(message, loc=self.loc(node))

    def align_at(self, node) -> int | None:
        return self.aligns.get(node.start_point[0])

    # ---- the file's parts
    def name_of(self, function) -> str:
        return function_name(function)

    def _scan(self, node, function) -> None:
        for child in node.named_children:
            t = child.type
            if t == "function_definition":
                head = child.text[:child.child_by_field_name("body").start_byte -
                                  child.start_byte] if child.child_by_field_name("body") \
                    else b""
                if b"__global__" in head:
                    self.kernels.append(child)
                elif b"__device__" in head or b"__forceinline__" in head:
                    self.functions.setdefault(function_name(child), []).append(child)
                self._scan(child, child)
            elif t == "declaration" and function is None and re.search(
                    rb"\b(const|constexpr)\b", child.text.split(b"=")[0]):
                # a file-scope `const int NT = 32;`: a constant like a #define
                for d in child.named_children:
                    if d.type == "init_declarator" and \
                            d.child_by_field_name("declarator").type == "identifier":
                        self.constants[text(d.child_by_field_name("declarator"))] = (
                            d.child_by_field_name("value"), child.child_by_field_name("type"))
            elif t == "type_definition" and function is None:
                self.typedef(child, None)
            elif t == "alias_declaration" and function is None:
                self.typedef(child, None)
            elif t == "call_expression" and any(c.type == "kernel_call_syntax"
                                                for c in child.children):
                fn = child.child_by_field_name("function")
                name = text(fn.child_by_field_name("name")) if fn.type == "template_function" \
                    else text(fn)
                self.launches.setdefault(name.strip(), []).append((child, function))
            else:
                self._scan(child, function)

    def typedef(self, node, lowering) -> None:
        """`typedef float real;` / `using real = float;`: a name for a type."""
        from .lower import TYPES
        if node.type == "alias_declaration":
            name = text(node.child_by_field_name("name"))
            target = text(node.child_by_field_name("type"))
        else:
            name = text(node.child_by_field_name("declarator"))
            target = text(node.child_by_field_name("type"))
        target = " ".join(target.replace("const", "").split())
        target = self.typedefs.get(target, TYPES.get(target, target))
        if target in BY_NAME:
            self.typedefs[name] = target

    def constant(self, name: str, lowering):
        """A file-scope constant's value, lowered once (and checked: a constant's value must
        be one), as a Sym of the lowering."""
        from .lower import Sym, fold
        value, type_node = self.constants[name]
        if value is None:
            raise CudaImportError(f"the constant {name} has no value", loc=None)
        saved = lowering.scopes
        lowering.scopes = [{}]
        try:
            e = lowering.expr(value)
        finally:
            lowering.scopes = saved
        v = fold(e)
        if v is None:
            raise self.error(value, f"the file-scope constant {name} is not a compile-time "
                                    "constant")
        dtype = lowering.dtype(type_node, value) if type_node is not None else e.dtype.name
        return Sym("const", const(v, BY_NAME[dtype]), dtype)

    def params_of(self, function) -> list:
        return function_declarator(function).child_by_field_name("parameters").named_children

    def min_args(self, function) -> int:
        return sum(1 for p in self.params_of(function) if p.type != "optional_parameter_declaration")

    def return_type(self, function) -> str | None:
        t = function.child_by_field_name("type")
        return " ".join(text(t).split()) if t is not None else None

    # ---- what the command line adds
    def expr_text(self, source: str, lowering, node=None):
        """A C expression given as text (a -D value, --length, --launch-grid, a pragma's
        count), macro-expanded with the file's macros, lowered in the kernel's scope."""
        tokens = [t for line in tokenize(source.replace("//", "/"), "<command line>")
                  for t in line]
        expanded = self.pp.expand(tokens, 0)
        value = parse_expression(" ".join(t.text for t in expanded)) if expanded else None
        where = lowering.loc(node) if node is not None else None
        if value is None:
            raise CudaImportError(f"`{source}` is not a C expression", loc=where,
                                  kernel=lowering.name)
        # locations of this little tree name the command line, not the file
        saved = self.loc
        self.loc = lambda n: where or SourceLoc("<command line>", 0)
        try:
            return lowering.expr(value)
        finally:
            self.loc = saved

    def length_of(self, name: str, lowering):
        given = self.options.lengths.get(name)
        if given is None:
            return DEFAULT_LENGTH
        return lowering_expr(self, given, lowering, f"--length {name}")

    def param_defaults(self, lowering) -> dict:
        names = {p.name for p in lowering.kb._params}
        unknown = set(self.options.params) - names
        if unknown:
            raise CudaImportError(f"--param {', '.join(sorted(unknown))}: '{lowering.name}' "
                                  f"has no such scalar parameter (it has "
                                  f"{', '.join(sorted(names)) or 'none'})", kernel=lowering.name)
        from . import parse_number
        return {k: parse_number(v, f"--param {k}") if isinstance(v, str) else v
                for k, v in self.options.params.items()}

    def launch_of(self, lowering):
        from .launch import launch_of
        return launch_of(self, lowering)

    def first_error_in(self, node):
        """The first piece of the node that does not parse, or None."""
        return first_error(node)


DEFAULT_LENGTH = 1 << 22   # elements of a global array whose length the CUDA does not say


def lowering_expr(unit: Unit, source: str, lowering, what: str):
    """A command-line expression lowered, its errors naming the option."""
    try:
        return unit.expr_text(source, lowering)
    except CudaImportError as err:
        raise CudaImportError(f"{what}={source}: {err.message}", kernel=lowering.name) \
            from None


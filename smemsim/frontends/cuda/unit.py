"""One CUDA file, read: preprocessed, parsed, and its parts found (kernels, device
functions, file-scope constants, typedefs, launches), with what the command line adds."""
from __future__ import annotations

import os
import pathlib
import re
from dataclasses import dataclass, field

from kernels_ir import SourceLoc, const
from kernels_ir.dtypes import BY_NAME

from .errors import CudaImportError
from .launch_sites import launched_name
from .parse import (
    MAX_TREE_DEPTH,
    function_declarator,
    function_name,
    parse_expression,
    parser,
    text,
    too_deep,
    walk,
)
from .preprocess import Preprocessor, tokenize
from .symbols import TYPES, VECTORS, Sym, fold


def _declared_name(declarator) -> str | None:
    """The name a declarator declares through `*`, `(...)` and function-pointer parens."""
    d = declarator
    while d is not None and d.type != "identifier":
        d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_children
                                                    else None)
    return text(d) if d is not None else None


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
    # of several launches of the kernel, the one read (`file.cu:LINE[:COL]`, --launch-at)
    launch_at: str | None = None
    lengths: dict = field(default_factory=dict)   # array -> expression
    params: dict = field(default_factory=dict)    # parameter -> int or float (the defaults)
    arch: int = 900                               # __CUDA_ARCH__
    kernel: str | None = None                     # --kernel: a name or `k<args>`
    # CUtensorMap kernel parameter -> what the host encoded, "TENSOR TYPE[D1][D0] box[B1][B0]
    # [none|32B|64B|128B]" (--tensor-map; smemsim.frontends.tensor_maps.FORM)
    tensor_maps: dict = field(default_factory=dict)
    # texture -> its extent in texels, "WIDTH" or "WIDTH, HEIGHT" (--texture; C expressions)
    textures: dict = field(default_factory=dict)
    # pointer parameters the host passes NULL, where the file has no launch that says so
    # (--null)
    nulls: list = field(default_factory=list)
    # host values a launch computes from what the file cannot say (`x.size(0)` of a torch
    # tensor, a variable read from argv): expression as written, spaces dropped -> value
    # text, a C expression like --length's (--host)
    hosts: dict = field(default_factory=dict)
    # the program's other files (`nvcc kernels.cu main.cu`): their launches are read after
    # the kernel's own file's (--host-file)
    host_files: list = field(default_factory=list)
    # array -> the elements of its --data file: its length where the source says none
    data_lengths: dict = field(default_factory=dict)


class Unit:
    """A CUDA file, preprocessed and parsed."""

    def __init__(self, path: str, options: Options | None = None, host_file: bool = False):
        self.path = pathlib.Path(path)
        self.options = options or Options()
        if not self.path.is_file():
            from ..loader import not_a_file
            why = not_a_file(str(path))
            raise CudaImportError(why if not host_file else f"--host-file {path}: no such file"
                                  if why.startswith("no such file") else f"--host-file {why}")
        self.pp = Preprocessor(self.options.defines, self.options.include_dirs,
                               self.options.arch)
        if self.path.suffix == ".py":  # CUDA in a Python file's strings (never run)
            from .embedded import cuda_sources
            for source in cuda_sources(str(self.path)):
                self.pp.run_text(source.text, self.path, source.line - 1)
        else:
            self.pp.run_file(self.path, 0, None)
        self.output = self.pp.output()
        # the program's other files (their own units: names, macros and constants of one
        # file are not another's), whose launches are read after this file's
        self.host_units = [] if host_file else [
            Unit(f, self.options, host_file=True) for f in self.options.host_files]
        if not host_file:
            flat = ["".join(u.output.text.split()) for u in (self, *self.host_units)] \
                if self.options.hosts else []
            for key in self.options.hosts:
                if not any("".join(key.split()) in f for f in flat):
                    files = ", ".join(u.path.name for u in (self, *self.host_units))
                    raise CudaImportError(f"--host {key}: no host expression `{key}` in "
                                          f"{files} (as written there, spaces aside)")
        self._parse()
        wrong = self._mistaken_templates()
        if wrong:  # parse again with those names parenthesized
            self.output = self.pp.output(frozenset(wrong))
            self._parse()
        self._unmistake_casts()
        self.kernels = []          # function_definition nodes of __global__ functions
        self.functions: dict[str, list] = {}   # __device__ functions by name
        self.all_functions: dict[str, list] = {}  # every function, host ones too
        self.constants: dict[str, object] = {}  # file-scope const name -> value node
        self._constant_syms: dict[str, Sym] = {}  # constant(): each lowered once
        self.typedefs: dict[str, str] = {}
        self.vector_typedefs: dict[str, str] = {}  # `typedef uint4 data_t;` -> "uint4"
        self.barrier_types: set[str] = set()  # names of cuda::barrier<thread_scope_block>
        self.launches: dict[str, list] = {}     # kernel name -> [(call, host function)]
        # (a launch through a pointer given a template's instances, `kfn k = gather<short,
        # 2>;`: each instance's template arguments, by the call's bytes and the kernel's name)
        self.pointer_instances: dict[tuple, list[list[str]]] = {}
        self._calls: dict[str, list] | None = None  # function name -> its calls (calls_of)
        # file-scope __constant__ / __device__ variables: name -> (declaration, declarator,
        # is constant)
        self.memory: dict[str, tuple] = {}
        # file-scope `texture<T, dim, mode> name;` -> (declaration, T's node, mode's node)
        self.texture_refs: dict[str, tuple] = {}
        # file-scope `__shared__ float tile[64];` -> its declaration (each kernel that uses
        # it has its own)
        self.shared_vars: dict[str, object] = {}
        # structs whose conversion to T* is the launch's dynamic shared memory (the CUDA
        # samples' SharedMemory<T>): `T* s = SharedMemory<T>();`
        self.dynamic_structs: set[str] = set()
        # struct name -> its struct_specifiers with a body: the template and its partial
        # specializations (`struct Schedule<1, N, ...> {...}`), in the file's order
        self.structs: dict[str, list] = {}
        # `typedef Packed128<floatX> x128;` / `using S = T<4>;`: name -> the type node named
        self.struct_aliases: dict[str, object] = {}
        self._scan(self.tree.root_node, None)
        self._enumerators()
        self._launches_through_pointers()
        # names assigned anywhere (a local never assigned keeps its initial constant)
        self.assigned = {text(t) for n in walk(self.tree.root_node)
                         for t in [n.child_by_field_name("left") if n.type ==
                                   "assignment_expression" else
                                   n.child_by_field_name("argument") if n.type ==
                                   "update_expression" else None]
                         if t is not None and t.type == "identifier"}

    def _parse(self) -> None:
        """Parse the preprocessed text. `__align__(N)` is an attribute the grammar does not
        know: it is blanked (columns stay) and N kept per output row for the shared arrays
        declared there."""
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
        deep = too_deep(self.tree)
        if deep is not None:
            raise CudaImportError("the code here nests expressions or statements too deeply "
                                  f"to read (more than {MAX_TREE_DEPTH:,} levels)",
                                  loc=self.loc(deep))

    def _mistaken_templates(self) -> set:
        """Locations of names the grammar read as templates (`a < b && c > d` as
        `a<b && c> d`) that the file never declares as templates."""
        known = set(LIBRARY_TEMPLATES)
        for n in walk(self.tree.root_node):
            if n.type == "template_declaration":
                for c in n.named_children:
                    if c.type == "function_definition":
                        known.add(function_name(c))
                    elif c.type in ("struct_specifier", "class_specifier") and \
                            c.child_by_field_name("name") is not None:
                        known.add(text(c.child_by_field_name("name")))
                    elif c.type == "declaration":  # a template function declared only
                        d = c.child_by_field_name("declarator")
                        while d is not None and d.type != "function_declarator":
                            d = d.child_by_field_name("declarator")
                        if d is not None:
                            known.add(text(d.child_by_field_name("declarator")))
        wrong = set()
        for n in walk(self.tree.root_node):
            if n.type in ("template_function", "template_type"):
                name = n.child_by_field_name("name")
                args = n.child_by_field_name("arguments")
                # only where the "arguments" read as an expression (`b && c`, `b + 1`): a
                # type there (`tex2D<float>`) means a template the file did not declare
                expression = args is not None and any(
                    a.type in ("binary_expression", "unary_expression", "call_expression",
                               "subscript_expression", "field_expression")
                    for a in args.named_children)
                if name is not None and text(name) not in known and expression and \
                        n.parent is not None and n.parent.type not in (
                            "qualified_identifier", "template_declaration"):
                    wrong.add(self.loc(name))
        return wrong

    def _unmistake_casts(self) -> None:
        """`(a) && (b)` and `(x) - y` parse as casts when the grammar cannot know `a` is no
        type (C needs the symbol table for that). Where the "type" of a cast is a name the
        file never declares as a type, its parentheses are blanked (the same length: every
        location stays) and the file parsed again."""
        for _ in range(4):
            types = set(TYPES) | set(VECTORS) | {"void"}
            for n in walk(self.tree.root_node):
                if n.type in ("type_definition", "alias_declaration"):
                    d = n.child_by_field_name("declarator") or n.child_by_field_name("name")
                    if d is not None:
                        types.add(text(d))
                elif n.type in ("struct_specifier", "class_specifier", "union_specifier",
                                "enum_specifier") and n.child_by_field_name("name"):
                    types.add(text(n.child_by_field_name("name")))
                elif n.type in ("type_parameter_declaration",
                                "optional_type_parameter_declaration"):
                    types.update(text(c) for c in n.named_children if c.type == "type_identifier")
            fixes = []
            for n in walk(self.tree.root_node):
                if n.type != "cast_expression":
                    continue
                t = n.child_by_field_name("type")
                name = text(t).strip()
                if t is None or not name.isidentifier() or name in types or \
                        t.named_children and t.named_children[0].type != "type_identifier":
                    continue
                close = self.source.rfind(b")", n.start_byte, t.end_byte + 4)
                if self.source[n.start_byte:n.start_byte + 1] == b"(" and close > 0:
                    fixes += [n.start_byte, close]
            if not fixes:
                return
            data = bytearray(self.source)
            for at in fixes:
                data[at:at + 1] = b" "
            self.source = bytes(data)
            self.tree = parser().parse(self.source)
        deep = too_deep(self.tree)
        if deep is not None:
            raise CudaImportError("the code here nests expressions or statements too deeply "
                                  f"to read (more than {MAX_TREE_DEPTH:,} levels)",
                                  loc=self.loc(deep))

    # ---- locations
    def loc(self, node) -> SourceLoc:
        row, col = node.start_point
        found = self.output.locs.get((row, col))
        if found is None:
            found = self.output.loc(row, col) or SourceLoc(str(self.path), 0)
        return found

    def error(self, node, message: str) -> CudaImportError:
        return CudaImportError(message, loc=self.loc(node))

    # ---- the file's parts
    def name_of(self, function) -> str:
        return function_name(function)

    def member_functions(self) -> dict:
        """`.name` -> the definitions of the member functions of that name in the file's
        structs (what a call `obj.name(...)` may run: pointer_uses reads them)."""
        found: dict = {}
        for definitions in self.structs.values():
            for struct in definitions:
                body = struct.child_by_field_name("body")
                for member in body.named_children if body is not None else ():
                    if member.type == "template_declaration":
                        member = next((c for c in member.named_children
                                       if c.type == "function_definition"), member)
                    if member.type == "function_definition":
                        found.setdefault("." + function_name(member), []).append(member)
        return found

    def _enumerators(self) -> None:
        """The enumerators of the file's unscoped enums outside functions and classes
        (`enum { TILE = 32 };`, Parboil lbm's `typedef enum {C = 0, N, S, ...} CELL_ENTRIES;`)
        as constants: an enumerator without a value is the one before it plus one."""
        for node in walk(self.tree.root_node):
            if node.type != "enum_specifier" or node.child_by_field_name("body") is None or \
                    any(c.type in ("class", "struct") for c in node.children):
                continue      # (an `enum class` is scoped: its names are Dir::A)
            outer = node.parent
            while outer is not None and outer.type not in (
                    "function_definition", "struct_specifier", "class_specifier",
                    "lambda_expression"):
                outer = outer.parent
            if outer is not None:
                continue      # a function's own (the launch reads those) or a class member
            before = None
            for e in node.child_by_field_name("body").named_children:
                if e.type != "enumerator":
                    continue
                name, value = text(e.child_by_field_name("name")), e.child_by_field_name("value")
                if value is None:
                    value = parse_expression("0" if before is None else f"({before}) + 1")
                self.constants.setdefault(name, (value, None))
                before = name

    def _scan(self, root, function) -> None:
        """Find the file's parts (an explicit stack: a syntax tree may be deep)."""
        stack = [(c, function) for c in reversed(root.named_children)]
        while stack:
            child, function = stack.pop()
            t = child.type
            if t == "function_definition":
                body = child.child_by_field_name("body")
                head = child.text[:body.start_byte - child.start_byte] if body else b""
                self.all_functions.setdefault(function_name(child), []).append(child)
                if b"__global__" in head:
                    self.kernels.append(child)
                elif b"__device__" in head or b"__forceinline__" in head:
                    self.functions.setdefault(function_name(child), []).append(child)
                stack.extend((c, child) for c in reversed(child.named_children))
            elif t == "declaration" and function is None and \
                    child.child_by_field_name("type") is not None and \
                    child.child_by_field_name("type").type == "template_type" and \
                    text(child.child_by_field_name("type").child_by_field_name(
                        "name")) == "texture":
                targs = child.child_by_field_name("type").child_by_field_name(
                    "arguments").named_children
                for d in child.named_children:
                    if d.type == "identifier":
                        self.texture_refs[text(d)] = (child, targs[0],
                                                      targs[2] if len(targs) > 2 else None)
            elif t == "declaration" and function is None and re.search(
                    rb"\b__shared__\b", child.text.split(b"=")[0].split(b"[")[0]):
                for d in child.named_children:
                    base = d
                    while base.type == "array_declarator":
                        base = base.child_by_field_name("declarator")
                    if base.type == "identifier" and d != child.child_by_field_name("type"):
                        self.shared_vars[text(base)] = child
            elif t == "declaration" and function is None and re.search(
                    rb"\b(__constant__|__device__)\b", child.text.split(b"=")[0].split(b"[")[0]):
                constant = b"__constant__" in child.text.split(b"[")[0]
                for d in child.named_children:
                    target = d.child_by_field_name("declarator") if d.type == \
                        "init_declarator" else d
                    if target is not None and target.type in ("identifier", "array_declarator"):
                        base = target
                        while base.type == "array_declarator":
                            base = base.child_by_field_name("declarator")
                        self.memory[text(base)] = (child, target, constant)
            elif t == "declaration" and function is None and re.search(
                    rb"\b(const|constexpr)\b", child.text.split(b"=")[0]):
                # a file-scope `const int NT = 32;`: a constant like a #define
                for d in child.named_children:
                    if d.type == "init_declarator" and \
                            d.child_by_field_name("declarator").type == "identifier":
                        self.constants[text(d.child_by_field_name("declarator"))] = (
                            d.child_by_field_name("value"), child.child_by_field_name("type"))
            elif t in ("struct_specifier", "class_specifier") and \
                    child.child_by_field_name("name") is not None and \
                    re.search(rb"extern\s+__shared__", child.text) and b"operator" in child.text:
                self.dynamic_structs.add(text(child.child_by_field_name("name")))
            elif t in ("struct_specifier", "class_specifier") and \
                    child.child_by_field_name("name") is not None and \
                    child.child_by_field_name("body") is not None:
                name = child.child_by_field_name("name")
                if name.type == "template_type":   # a partial specialization
                    name = name.child_by_field_name("name")
                self.structs.setdefault(text(name).split("::")[-1], []).append(child)
            elif t in ("type_definition", "alias_declaration") and function is None:
                self.typedef(child, None)
            elif t == "call_expression" and any(c.type == "kernel_call_syntax"
                                                for c in child.children):
                fn = child.child_by_field_name("function")
                name = text(fn.child_by_field_name("name")) if fn.type == "template_function" \
                    else text(fn)
                self.launches.setdefault(name.strip(), []).append((child, function))
            elif t == "call_expression" and launched_name(child) is not None:
                # cudaLaunchCooperativeKernel((void *)k, grid, block, args, smem, stream)
                self.launches.setdefault(launched_name(child), []).append((child, function))
            else:
                stack.extend((c, function) for c in reversed(child.named_children))

    def _launches_through_pointers(self) -> None:
        """`kernel = &transposeNaive; ... kernel<<<grid, threads>>>(...)`: a launch through
        a host function's pointer variable is a launch of each kernel assigned to it there
        (the cuda-samples transpose runs eight kernels through one pointer, one launch), of
        the instance assigned for a template (`kfn k = gather<short, 2>;`)."""
        kernels = {function_name(k) for k in self.kernels}
        for name in [n for n in self.launches if n not in kernels]:
            for call, host in self.launches[name]:
                if host is None:
                    continue
                for node in walk(host):
                    if node.type == "assignment_expression" and \
                            text(node.child_by_field_name("left")) == name:
                        value = node.child_by_field_name("right")
                    elif node.type == "init_declarator" and \
                            _declared_name(node.child_by_field_name("declarator")) == name:
                        value = node.child_by_field_name("value")
                    else:
                        continue
                    if value is not None and value.type == "pointer_expression" and \
                            text(value).startswith("&"):
                        value = value.child_by_field_name("argument")
                    args = None
                    if value is not None and value.type == "template_function":
                        args = [text(a) for a in
                                value.child_by_field_name("arguments").named_children]
                        value = value.child_by_field_name("name")
                    if value is not None and text(value) in kernels:
                        pairs = self.launches.setdefault(text(value), [])
                        if (call, host) not in pairs:
                            pairs.append((call, host))
                        if args is not None:   # (each instance assigned: a launch of it)
                            given = self.pointer_instances.setdefault(
                                (call.start_byte, call.end_byte, text(value)), [])
                            if args not in given:
                                given.append(args)

    def typedef(self, node, lowering) -> None:
        """`typedef float real;` / `using real = float;`: a name for a type."""
        if node.type == "alias_declaration":
            name = text(node.child_by_field_name("name"))
            target = text(node.child_by_field_name("type"))
        else:
            name = text(node.child_by_field_name("declarator"))
            target = text(node.child_by_field_name("type"))
        target_node = node.child_by_field_name("type")
        if target_node is not None and target_node.type == "type_descriptor":
            target_node = target_node.child_by_field_name("type") or target_node
        if target_node is not None and target_node.type == "struct_specifier" and \
                target_node.child_by_field_name("body") is not None:
            # `typedef struct { real S; ... } T;`: the struct, under the name it is given
            self.structs.setdefault(name, []).append(target_node)
            return
        if target_node is not None and struct_base(target_node) in self.structs:
            self.struct_aliases[name] = target_node
            return
        target = " ".join(target.replace("const", "").split())
        if re.fullmatch(r"(::)?(cuda::)?barrier\s*<.*>", target):
            self.barrier_types.add(name)   # `using barrier = cuda::barrier<...>;`
            return
        if target in VECTORS:
            self.vector_typedefs[name] = target
            return
        target = self.typedefs.get(target, TYPES.get(target, target))
        if target in BY_NAME:
            self.typedefs[name] = target

    def constant(self, name: str, lowering):
        """A file-scope constant's value, lowered once (and checked: a constant's value must
        be one), as a Sym of the lowering."""
        if name in self._constant_syms:
            return self._constant_syms[name]
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
        sym = self._constant_syms[name] = Sym("const", const(v, BY_NAME[dtype]), dtype)
        return sym

    def calls_of(self, name: str) -> list:
        """The file's direct calls of the function `name` (not kernel launches)."""
        if self._calls is None:
            calls = self._calls = {}
            for node in walk(self.tree.root_node):
                if node.type == "call_expression" and not any(
                        c.type == "kernel_call_syntax" for c in node.children):
                    fn = node.child_by_field_name("function")
                    # (a host template's call, `launch<int>(out, n)`, is a call of `launch`)
                    if fn.type == "template_function":
                        fn = fn.child_by_field_name("name")
                    calls.setdefault(text(fn), []).append(node)
        return self._calls.get(name, [])

    def params_of(self, function) -> list:
        """A function's parameter declarations (none where the declarator does not parse)."""
        d = function_declarator(function)
        params = d.child_by_field_name("parameters") if d is not None else None
        return params.named_children if params is not None else []

    def min_args(self, function) -> int:
        return sum(1 for p in self.params_of(function)
                   if p.type != "optional_parameter_declaration")

    def return_type(self, function) -> str | None:
        """A function's return type as written; a lambda's trailing one, else "auto" where
        its body returns a value and "void" where it does not."""
        t = self.return_type_node(function)
        if t is None and function.type == "lambda_expression":
            body = function.child_by_field_name("body")
            returns = any(n.type == "return_statement" and n.named_children
                          for n in walk(body))
            return "auto" if returns else "void"
        return " ".join(text(t).split()) if t is not None else None

    def return_type_node(self, function):
        """The node of a function's return type (a lambda's `-> T`), or None."""
        if function.type != "lambda_expression":
            return function.child_by_field_name("type")
        d = function.child_by_field_name("declarator")
        trailing = next((c for c in (d.children if d is not None else [])
                         if c.type == "trailing_return_type"), None)
        return trailing.named_children[0] if trailing is not None else None

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

    def length_of(self, name: str, lowering, lanes: int = 1, size: int = 1,
                  field: tuple[str, str] | None = None):
        """The elements of pointer parameter `name` (of `size` bytes, `lanes` to a vector;
        `field`: a by-value struct's pointer field, (the parameter, the field)): --length,
        else the allocation the launch's host code or Python file makes, else the values
        of its --data file, else DEFAULT_LENGTH (a note says so)."""
        given = self.options.lengths.get(name)
        if given is None:
            from .launch import allocated_length, python_length
            allocated = python_length(self, lowering, name)
            if allocated is not None:
                return const(allocated)
            found = allocated_length(self, lowering, name, lanes, size, field)
            data = self.options.data_lengths.get(name)
            if found is None and data is not None and data % lanes == 0:
                return const(data // lanes)   # (the values --data gives: that many)
            if found is None:   # (said: the kernel's assumed_lengths, a note)
                lowering.assumed_lengths.append(name)
                return DEFAULT_LENGTH
            return found
        return lowering_expr(self, given, lowering, f"--length {name}")

    def param_defaults(self, lowering) -> dict:
        names = {p.name for p in lowering.kb._params}
        unknown = set(self.options.params) - names
        if unknown:
            raise CudaImportError(f"--param {', '.join(sorted(unknown))}: '{lowering.name}' "
                                  f"has no such scalar parameter (it has "
                                  f"{', '.join(sorted(names)) or 'none'})", kernel=lowering.name)
        for k, v in self.options.params.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise CudaImportError(f"parameter {k}={v!r}: a parameter's value is a number",
                                      kernel=lowering.name)
        return dict(self.options.params)

    def launch_of(self, lowering):
        from .launch import launch_of
        return launch_of(self, lowering)



# templates a kernel names without declaring them (the toolkit's and the C++ library's)
LIBRARY_TEMPLATES = {
    "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "tiled_partition",
    "thread_block_tile", "plus", "greater", "less", "bit_and", "bit_or", "bit_xor", "min",
    "max", "numeric_limits", "aligned_size_t", "barrier", "array", "vector", "pair", "tuple",
    "complex", "is_same", "enable_if", "conditional", "integral_constant", "memcpy_async",
    "fragment", "load_matrix_sync", "store_matrix_sync", "mma_sync", "fill_fragment",
    "Packed128", "atomic_ref", "span"}
DEFAULT_LENGTH = 1 << 22   # elements of a global array whose length the CUDA does not say


def lowering_expr(unit: Unit, source: str, lowering, what: str):
    """A command-line expression lowered, its errors naming the option."""
    try:
        return unit.expr_text(source, lowering)
    except CudaImportError as err:
        raise CudaImportError(f"{what}={source}: {err.message}", kernel=lowering.name) \
            from None


def struct_base(type_node) -> str:
    """The struct name a type node names (`Packed128` of `Packed128<floatX>`, `S` of
    `ns::S`)."""
    if type_node.type in ("struct_specifier", "class_specifier") and \
            type_node.child_by_field_name("name") is not None and \
            type_node.child_by_field_name("body") is None:
        type_node = type_node.child_by_field_name("name")   # C's `struct cartesian`
    if type_node.type == "template_type":
        type_node = type_node.child_by_field_name("name")
    return text(type_node).split("::")[-1].strip()


_READ: dict = {}    # (path, options) -> (the files it read as they stood, its Unit)
_KEEP = 4           # files kept (a verb reads one file; a server, a few in turn)


def read_unit(path: str, options: Options | None = None) -> Unit:
    """Unit(path, options), kept for the next ask of the same file with the same options
    while every file it read stands as it did (a verb reads one file up to three times:
    its kernels, an instance, a signature; each read preprocesses and parses it again)."""
    options = options or Options()
    key = (os.path.abspath(path), repr(options))
    kept = _READ.get(key)
    if kept is not None and kept[0] == _stamps(kept[1]):
        return kept[1]
    unit = Unit(path, options)
    _READ.pop(key, None)
    while len(_READ) >= _KEEP:
        _READ.pop(next(iter(_READ)))
    _READ[key] = (_stamps(unit), unit)
    return unit


def _stamps(unit: Unit) -> tuple:
    """Each file a unit read, with its size and change time (None where it is gone)."""
    out = []
    for u in (unit, *unit.host_units):
        for f in (str(u.path), *u.output.includes):
            try:
                st = os.stat(f)
                out.append((f, st.st_size, st.st_mtime_ns))
            except OSError:
                out.append((f, None, None))
    return tuple(out)

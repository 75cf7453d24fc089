"""CUDA C++ -> a kernels file (`smemsim import`): the IR of each `__global__` kernel, as a
readable Python file the other verbs take.

The parser is tree-sitter's CUDA grammar (tree-sitter-cuda): a syntax tree with exact line
numbers for any CUDA file, also one with host code the importer ignores, and no toolkit or
headers needed. libclang would bring types and template instantiation, but needs a CUDA
installation's headers to parse `threadIdx`, and a full preprocessor run loses the lines of
macros; what the IR can express is plain C in a kernel's body, which a syntax tree gives
exactly. Object-like `#define`s (and `-D NAME=VALUE`) become Python constants; template
parameters take their values from `-D` too.

Every construct the IR cannot express is an error naming it and its .cu line, never a guess.
Each generated builder line ends with a `# FILE.cu:LINE` comment; `kernels_ir.source_lines`
makes the kernel's statements report those .cu lines.
"""
from __future__ import annotations

import keyword
import os
import pathlib
import re
from dataclasses import dataclass, field

from kernels_ir import KernelError, SourceLoc

TYPES = {
    "float": "f32", "double": "f64", "int": "i32", "signed int": "i32", "signed": "i32",
    "unsigned int": "u32", "unsigned": "u32", "uint32_t": "u32", "int32_t": "i32",
    "unsigned char": "u8", "uint8_t": "u8", "char": "i8", "signed char": "i8", "int8_t": "i8",
    "short": "i16", "int16_t": "i16", "unsigned short": "u16", "uint16_t": "u16",
    "unsigned long long": "u64", "unsigned long long int": "u64", "uint64_t": "u64",
    "size_t": "u64", "__half": "f16", "half": "f16", "__nv_bfloat16": "bf16",
}
FLOAT_TYPES = {"f16", "bf16", "f32", "f64"}
# CUDA's vector types: (element type, lanes). A vector variable or array element is held as
# an innermost dimension of `lanes` elements; whole-vector accesses are the builder's width-N
# loads and stores (LDS.64 / LDS.128), `.x .y .z .w` one element of it.
VECTORS = {f"{c}{n}": (t, n)
           for c, t in (("float", "f32"), ("int", "i32"), ("uint", "u32"), ("double", "f64"))
           for n in (2, 4) if not (t == "f64" and n == 4)}
COMPONENTS = "xyzw"
_SIZES = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2, "i32": 4, "u32": 4,
          "f32": 4, "u64": 8, "f64": 8}
DEFAULT_LENGTH = 1 << 22   # elements of a global array whose length the CUDA does not say
BUILDER = "kb"             # the KernelBuilder's name in the generated code
# names the generated file imports or uses: CUDA names equal to them get a trailing _
TAKEN = {BUILDER, "KernelBuilder", "threadIdx", "blockIdx", "blockDim", "gridDim", "select",
         "cast", "smin", "smax", "call", "lnot", "logical_and", "logical_or", "source_lines",
         "KERNELS", "f32", "f64", "i32", "u32", "u8", "i8", "i16", "u16", "u64", "f16", "bf16"}
BINARY = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!="}
ATOMICS = {f"atomic{n.capitalize() if n != 'cas' else 'CAS'}": n for n in
           ("add", "sub", "min", "max", "and", "or", "xor", "inc", "dec", "exch", "cas")}
PIPELINE = ("__pipeline_memcpy_async", "__pipeline_commit", "__pipeline_wait_prior")
SHUFFLES = {"__shfl_sync": "idx", "__shfl_up_sync": "up", "__shfl_down_sync": "down",
            "__shfl_xor_sync": "xor"}
# CUDA's math functions -> kernels_ir's names (expr.MATH)
MATH = {"sqrtf": "sqrt", "sqrt": "sqrt", "expf": "exp", "exp": "exp", "logf": "log",
        "log": "log", "exp2f": "exp2", "exp2": "exp2", "log2f": "log2", "log2": "log2",
        "rsqrtf": "rsqrt", "rsqrt": "rsqrt", "sinf": "sin", "sin": "sin", "cosf": "cos",
        "cos": "cos", "fabsf": "fabs", "fabs": "fabs", "__expf": "exp", "tanhf": "tanh",
        "tanh": "tanh", "floorf": "floor", "floor": "floor", "ceilf": "ceil", "ceil": "ceil",
        "fmaf": "fma", "fma": "fma", "powf": "pow", "pow": "pow"}


class CudaImportError(KernelError):
    """A CUDA construct the importer cannot turn into the IR, with its .cu line."""


@dataclass
class Options:
    """What the CUDA file does not say: macro values, launch, array lengths, parameters."""

    defines: dict = field(default_factory=dict)   # NAME -> value text
    grid: str | None = None                       # Python expressions, "X, Y"
    block: str | None = None
    smem: str | None = None
    lengths: dict = field(default_factory=dict)   # array -> Python expression
    params: dict = field(default_factory=dict)    # defaults for the launch


def _parser():
    try:
        import tree_sitter_cuda
        from tree_sitter import Language, Parser
    except ImportError:
        raise KernelError("importing CUDA needs tree-sitter and its CUDA grammar: pip install "
                          "tree-sitter tree-sitter-cuda (pip install 'smemsim[import]')") from None
    return Parser(Language(tree_sitter_cuda.language()))


def import_cuda(path: str, kernel: str | None = None, options: Options | None = None,
                out_dir: str | None = None, defer: bool = False) -> str:
    """The Python kernels file for the `__global__` kernels of a CUDA file (or one of them),
    to be written in `out_dir` (default: the CUDA file's folder): its `# FILE.cu:N` comments
    name the CUDA file relative to there. A kernel that cannot be imported raises here, or
    with `defer`, when its builder function is called (so the file's other kernels load)."""
    file = pathlib.Path(path)
    try:
        source = file.read_bytes()
    except OSError as err:
        raise KernelError(f"cannot read {path}: {err.strerror}") from None
    # `__align__(N)` is an attribute the grammar does not know: blank it out (lines and
    # columns stay) and remember N per line for the shared arrays declared there
    aligns = {}

    def blank(m) -> bytes:
        aligns[source.count(b"\n", 0, m.start())] = int(m.group(1))
        return b" " * len(m.group())
    source = re.sub(rb"__align__\s*\(\s*(\d+)\s*\)", blank, source)
    tree = _parser().parse(source)
    folder = pathlib.Path(out_dir) if out_dir is not None else file.parent
    marker = os.path.relpath(file.resolve(), folder.resolve())
    module = _Module(file, tree.root_node, options or Options(), marker)
    module.aligns = aligns
    return module.generate(kernel, defer)


def signature(path: str, kernel: str) -> tuple[tuple[str, bool], ...]:
    """A kernel's parameters in the CUDA file's order: (name, is a pointer)."""
    file = pathlib.Path(path)
    module = _Module(file, _parser().parse(file.read_bytes()).root_node, Options(), file.name)
    node = next((k for k in module.kernels if _name_of(k) == kernel), None)
    if node is None:
        raise KernelError(f"{file.name} has no kernel '{kernel}'")
    out = []
    for p in node.child_by_field_name("declarator").child_by_field_name(
            "parameters").named_children:
        d = p.child_by_field_name("declarator")
        pointer = d.type == "pointer_declarator"
        out.append(((d.child_by_field_name("declarator") if pointer else d).text.decode(),
                    pointer))
    return tuple(out)


# ------------------------------------------------------------------ the file

class _Module:
    def __init__(self, file: pathlib.Path, root, options: Options, marker: str):
        self.file, self.root, self.options, self.marker = file, root, options, marker
        self.aligns: dict[int, int] = {}  # line (0-based) -> N of an __align__(N) there
        self.macros: dict[str, str] = {}
        self.defined: set[str] = set()   # the names of #defines (others: file-scope consts)
        self.kernels = []
        self.launches = {}    # kernel name -> the kernel_call node and its function
        self._scan(root, None)

    def _scan(self, node, function) -> None:
        for child in node.named_children:
            if child.type == "preproc_def":
                name = child.child_by_field_name("name").text.decode()
                value = child.child_by_field_name("value")
                text = value.text.decode() if value else "1"
                text = re.sub(r"//.*$|/\*.*?\*/", "", text, flags=re.S).strip()
                self.macros[name] = text or "1"
                self.defined.add(name)
            elif child.type == "preproc_function_def":
                pass  # reported where it is used
            elif child.type == "declaration" and function is None and \
                    b"const" in child.text.split(b"=")[0]:
                # a file-scope `const int NT = 32;`: a constant like a #define
                for d in child.named_children:
                    value = d.child_by_field_name("value") if d.type == "init_declarator" \
                        else None
                    if value is not None and d.child_by_field_name("declarator").type == \
                            "identifier":
                        name = d.child_by_field_name("declarator").text.decode()
                        self.macros[name] = value.text.decode()
            elif child.type == "template_declaration":
                self._scan(child, function)
            elif child.type == "function_definition":
                text = child.text[:child.child_by_field_name("body").start_byte -
                                  child.start_byte]
                if b"__global__" in text:
                    self.kernels.append(child)
                self._scan(child, child)
            elif child.type == "call_expression" and any(
                    c.type == "kernel_call_syntax" for c in child.children):
                name = child.child_by_field_name("function").text.decode().split("<")[0]
                self.launches.setdefault(name.strip(), (child, function))
            else:
                self._scan(child, function)

    def constant_text(self, value: str, constants: dict) -> tuple[str, list[str]]:
        """A constant's value as Python, and the other constants it uses."""
        v = _constant(value)
        if re.fullmatch(r"\(?\s*-?[0-9.]+\s*\)?", v) or value.strip() in TYPES:
            return v, []
        deps: list[str] = []

        def convert(node) -> tuple[str, bool]:
            t = node.type
            if t == "number_literal":
                text = node.text.decode()
                return re.sub(r"[uUlLfF]+$", "", text), bool(re.search(r"[.eE]", text))
            if t == "identifier":
                name = node.text.decode()
                if name not in constants:
                    raise KernelError(f"{self.file.name}: a constant uses '{name}', which is "
                                      f"not a constant: -D {name}=VALUE")
                deps.append(name)
                return _py(name), "." in _constant(constants[name])
            if t == "parenthesized_expression":
                inner, f = convert(node.named_children[0])
                return f"({inner})", f
            if t == "binary_expression":
                op = node.child_by_field_name("operator").type
                a, fa = convert(node.child_by_field_name("left"))
                b, fb = convert(node.child_by_field_name("right"))
                if op not in ("+", "-", "*", "/", "%", "<<", ">>"):
                    raise KernelError(f"{self.file.name}: operator {op} in a constant")
                return f"{a} {'//' if op == '/' and not (fa or fb) else op} {b}", fa or fb
            if t == "unary_expression" and node.child_by_field_name("operator").type == "-":
                a, f = convert(node.child_by_field_name("argument"))
                return f"-{a}", f
            raise KernelError(f"{self.file.name}: the constant value `{value}` is not one "
                              "the importer reads (numbers, constants, + - * / % << >>)")
        return convert(self.parse_expr(value))[0], deps

    def parse_expr(self, text: str):
        """An expression's syntax tree, from text (an argument the grammar read as a type)."""
        root = _parser().parse(f"int __x = ({text});".encode()).root_node
        value = root.named_children[0].named_children[-1].child_by_field_name("value")
        return value.named_children[0]

    def error(self, node, message: str) -> CudaImportError:
        return CudaImportError(message, loc=SourceLoc(str(self.file),
                                                      node.start_point[0] + 1))

    def generate(self, wanted: str | None, defer: bool = False) -> str:
        names = [_name_of(k) for k in self.kernels]
        if not names:
            raise KernelError(f"{self.file.name} has no __global__ kernel")
        if wanted is not None and wanted not in names:
            raise KernelError(f"{self.file.name} has no kernel '{wanted}'; it has "
                              f"{', '.join(names)}")
        chosen = [k for k in self.kernels if wanted in (None, _name_of(k))]
        constants = {**self.macros, **self.options.defines}
        lines = [f'"""Kernels imported from {self.file.name} by `smemsim import` (edit freely: '
                 'each line ending in',
                 f'`# {self.file.name}:N` reports CUDA line N in smemsim\'s output)."""',
                 "from kernels_ir import (",
                 "    KernelBuilder, bf16, blockDim, blockIdx, call, cast, f16, f32, f64, "
                 "gridDim, i8, i16, i32,",
                 "    lnot, logical_and, logical_or, select, smax, smin, source_lines, "
                 "threadIdx, u8, u16, u32, u64,", ")", "",
                 "source_lines(__file__)", ""]
        used = set()
        bodies = []
        option_text = " ".join(filter(None, [self.options.grid, self.options.block,
                                             self.options.smem,
                                             *self.options.lengths.values()]))
        mentioned = set(re.findall(r"[A-Za-z_]\w*", option_text)) & set(constants)
        for node in chosen:
            kernel = _Kernel(self, node, constants)
            kernel.constants_used |= mentioned
            try:
                bodies.append(kernel.generate())
            except CudaImportError as err:
                if not defer:
                    raise
                bodies.append(_failed(_name_of(node), err))
                continue
            used |= kernel.constants_used
        done: list[str] = []

        def emit(name: str, chain: tuple) -> None:
            """A constant after the constants its value uses (C's / between integers as
            Python's //)."""
            if name in done:
                return
            if name in chain:
                raise KernelError(f"{self.file.name}: the constant {name} is defined by "
                                  "itself")
            text, deps = self.constant_text(constants[name], constants)
            for d in deps:
                emit(d, chain + (name,))
            done.append(name)
            origin = "-D" if name in self.options.defines else \
                "#define" if name in self.defined else "const"
            lines.append(f"{_py(name)} = {text}  # {origin} {name}")
        for name in sorted(used):
            emit(name, ())
        lines.append("")
        for body in bodies:
            lines += ["", *body, ""]
        lines.append("KERNELS = {" + ", ".join(f'"{_name_of(k)}": {_py(_name_of(k))}'
                                               for k in chosen) + "}")
        return "\n".join(lines) + "\n"


def _failed(name: str, err: CudaImportError) -> list[str]:
    """A builder function that raises the import error (a kernel of a file loaded whole)."""
    return [f"def {_py(name)}():",
            f'    """`{name}` could not be imported."""',
            "    from kernels_ir import KernelError, SourceLoc",
            f"    raise KernelError({err.message!r}, kernel={name!r}, "
            f"loc=SourceLoc({err.loc.file!r}, {err.loc.line}))"]


def _name_of(function) -> str:
    return function.child_by_field_name("declarator").child_by_field_name(
        "declarator").text.decode()


def _py(name: str) -> str:
    """A CUDA name as a Python identifier of the generated file."""
    return name + "_" if keyword.iskeyword(name) or name in TAKEN else name


def _constant(text: str) -> str:
    """A macro's value as Python: numbers without C suffixes, expressions as they are."""
    t = text.strip()
    if re.fullmatch(r"\(?\s*-?[0-9.]+[uUlLfF]*\s*\)?", t):
        return re.sub(r"[uUlLfF]+", "", t)
    return t


# ------------------------------------------------------------------ one kernel

@dataclass
class _Var:
    py: str          # its Python name
    kind: str        # "local", "param", "global", "shared", "register", "constant"
    dtype: str       # IR type name (of the elements of a vector type)
    lanes: int = 1   # 2 or 4 for a vector type: the innermost dimension holds the lanes
    # kind "smem_address": `unsigned a = __cvta_generic_to_shared(&s[i])`, the (shared
    # array, indices) it points at; it may only be an inline-PTX operand
    place: tuple | None = None
    rank: int = 1    # an array's dimensions (pointer parameters: 1)


class _Kernel:
    def __init__(self, module: _Module, node, constants: dict):
        self.m, self.node, self.constants = module, node, constants
        self.name = _name_of(node)
        self.scopes: list[dict[str, _Var]] = [{}]
        self.lines: list[str] = []
        self.constants_used: set[str] = set()
        self.types = {}   # template type parameters -> IR type
        self.fresh = 0

    # ---- helpers
    def emit(self, depth: int, text: str, node) -> None:
        self.lines.append(f"{'    ' * depth}{text}  # {self.m.marker}:{node.start_point[0] + 1}")

    def lookup(self, name: str, node) -> _Var:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.constants:
            self.constants_used.add(name)
            value = _constant(self.constants[name])
            return _Var(_py(name), "constant", "f32" if "." in value else "i32")
        raise self.m.error(node, f"'{name}' is not defined here: a macro needs -D {name}="
                                 "VALUE, and the importer sees only the kernel's own locals")

    def declare(self, name: str, kind: str, dtype: str, lanes: int = 1) -> _Var:
        v = _Var(_py(name), kind, dtype, lanes)
        self.scopes[-1][name] = v
        return v

    def vtype(self, type_node, node) -> tuple[str, int]:
        """(IR element type, lanes) of a type, vector types included."""
        text = " ".join(type_node.text.decode().replace("const", "").split())
        if text in VECTORS:
            return VECTORS[text]
        return self.dtype(type_node, node), 1

    def dtype(self, type_node, node) -> str:
        text = " ".join(type_node.text.decode().replace("const", "").split())
        text = self.types.get(text, text)
        if text in VECTORS:
            raise self.m.error(node, f"`{_short(node)}`: a {text} here is not supported (vector "
                                     "types: locals, register and __shared__ arrays, and "
                                     "accesses through reinterpret_cast)")
        if text in TYPES:
            return TYPES[text]
        if text in self.constants and self.constants[text].strip() in TYPES:
            return TYPES[self.constants[text].strip()]
        raise self.m.error(node, f"type '{text}' is not one the IR has (its types: "
                                 f"{', '.join(sorted(set(TYPES.values())))})")

    # ---- the kernel
    def generate(self) -> list[str]:
        node = self.node
        parent = node.parent
        if parent is not None and parent.type == "template_declaration":
            for p in parent.child_by_field_name("parameters").named_children:
                pname = (p.child_by_field_name("name") or p.named_children[-1]).text.decode()
                if pname not in self.constants:
                    raise self.m.error(p, f"template parameter '{pname}' needs a value: "
                                          f"-D {pname}=VALUE")
                if p.type == "type_parameter_declaration":
                    self.types[pname] = self.constants[pname].strip()
        fn = _py(self.name)
        self.lines.append(f"def {fn}():")
        self.lines.append(f'    """`{self.name}` of {self.m.file.name}, line '
                          f'{node.start_point[0] + 1}."""')
        self.emit(1, f'{BUILDER} = KernelBuilder("{self.name}")', node)
        writes, reads = _pointer_uses(node.child_by_field_name("body"))
        declarator = node.child_by_field_name("declarator")
        # scalars first, so that --length expressions may use any of them (the generated
        # CUDA's signature follows this order)
        params = declarator.child_by_field_name("parameters").named_children
        pointer = lambda p: (p.child_by_field_name("declarator") is not None and
                             p.child_by_field_name("declarator").type == "pointer_declarator")
        for p in sorted(params, key=pointer):
            self.parameter(p, writes, reads)
        self.block(node.child_by_field_name("body"), 1)
        grid, block, smem = self.launch()
        smem_arg = f", dynamic_smem={smem}" if smem else ""
        self.emit(1, f"{BUILDER}.launch(grid=({grid}), block=({block}){smem_arg})", node)
        if self.m.options.params:
            args = ", ".join(f"{k}={v}" for k, v in self.m.options.params.items())
            self.emit(1, f"{BUILDER}.defaults({args})", node)
        self.lines.append(f"    return {BUILDER}.build()")
        return self.lines

    def parameter(self, p, writes: set, reads: set) -> None:
        d = p.child_by_field_name("declarator")
        if d is None:
            raise self.m.error(p, "a kernel parameter without a name")
        if d.type == "pointer_declarator":
            inner = d.child_by_field_name("declarator")
            name = inner.text.decode()
            dtype = self.dtype(p.child_by_field_name("type"), p)
            intent = "inout" if name in writes and name in reads else \
                "out" if name in writes else "in"
            length = self.m.options.lengths.get(name)
            note = ""
            if length is None:  # said in the file and by `smemsim import`, never silent
                length = str(DEFAULT_LENGTH)
                note = "  # its length is not in the CUDA (--length sets it)"
            v = self.declare(name, "global", dtype)
            self.emit(1, f'{v.py} = {BUILDER}.global_array("{name}", "{dtype}", {length}, '
                         f'intent="{intent}"){note}', p)
            return
        if d.type != "identifier":
            raise self.m.error(p, f"kernel parameter '{p.text.decode()}': only scalars and "
                                  "pointers are supported")
        name = d.text.decode()
        dtype = self.dtype(p.child_by_field_name("type"), p)
        v = self.declare(name, "param", dtype)
        self.emit(1, f'{v.py} = {BUILDER}.param("{name}", "{dtype}")', p)

    def launch(self) -> tuple[str, str, str | None]:
        o = self.m.options
        if o.grid and o.block:
            return o.grid, o.block, o.smem
        found = self.m.launches.get(self.name)
        if found is None:
            raise self.m.error(self.node, f"no launch of '{self.name}' in the file: give "
                                          "--launch-grid X[,Y,Z] and --launch-block X[,Y,Z]")
        call, host = found
        cfg = next(c for c in call.children if c.type == "kernel_call_syntax").named_children
        args = call.child_by_field_name("arguments").named_children
        params = self.node.child_by_field_name("declarator").child_by_field_name(
            "parameters").named_children
        by_arg = {}
        for a, p in zip(args, params):
            pd = p.child_by_field_name("declarator")
            if pd is not None and pd.type == "identifier":
                by_arg[a.text.decode()] = pd.text.decode()
        dims = {}
        for d in _walk(host if host is not None else self.m.root):
            if d.type == "declaration" and d.child_by_field_name("type").text == b"dim3":
                for init in d.named_children[1:]:
                    if init.type == "init_declarator" and init.child_by_field_name(
                            "value") is not None:
                        dims[init.child_by_field_name("declarator").text.decode()] = \
                            init.child_by_field_name("value")
                    elif init.type == "function_declarator":
                        # `dim3 b(TILE, TILE);` parses as a declaration of a function b
                        # taking two TILEs: its "parameters" are the arguments
                        given = init.child_by_field_name("parameters").named_children
                        dims[init.child_by_field_name("declarator").text.decode()] = \
                            [self.m.parse_expr(a.text.decode()) for a in given]
        out = [self.host_dims(cfg_node, dims, by_arg, call) for cfg_node in cfg[:3]]
        grid = o.grid or out[0]
        block = o.block or out[1]
        smem = o.smem or (out[2] if len(out) > 2 else None)
        return grid, block, smem

    def host_dims(self, node, dims: dict, by_arg: dict, call) -> str:
        """A launch dimension of host code, in the kernel's parameters and constants."""
        if node.type == "identifier" and node.text.decode() in dims:
            node = dims[node.text.decode()]
        if not isinstance(node, list) and node.type == "call_expression" and \
                node.child_by_field_name("function").text == b"dim3":
            node = node.child_by_field_name("arguments")
        parts = node if isinstance(node, list) else \
            node.named_children if node.type == "argument_list" else [node]
        texts = []
        for part in parts:
            try:
                texts.append(self.host_expr(part, by_arg))
            except CudaImportError as err:
                raise self.m.error(call, f"the launch of '{self.name}' uses host values "
                                         f"({err.message}): give --launch-grid and "
                                         "--launch-block") from None
        return ", ".join(texts) + ("," if len(texts) == 1 else "")

    def host_expr(self, node, by_arg: dict) -> str:
        if node.type == "identifier":
            name = node.text.decode()
            if name in by_arg:
                return self.lookup(by_arg[name], node).py
            if name in self.constants:
                self.constants_used.add(name)
                return _py(name)
            raise self.m.error(node, f"'{name}' is a host variable")
        if node.type == "number_literal":
            return _constant(node.text.decode())
        if node.type == "parenthesized_expression":
            return f"({self.host_expr(node.named_children[0], by_arg)})"
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator").type
            if op not in ("+", "-", "*", "/", "%"):
                raise self.m.error(node, f"operator {op} in a launch")
            a = self.host_expr(node.child_by_field_name("left"), by_arg)
            b = self.host_expr(node.child_by_field_name("right"), by_arg)
            return f"{a} {'//' if op == '/' else op} {b}"
        raise self.m.error(node, f"'{node.text.decode()}' in a launch")

    # ---- statements
    def block(self, node, depth: int) -> None:
        if node.type != "compound_statement":
            self.statement(node, depth)
            return
        self.scopes.append({})
        before = len(self.lines)
        children = node.named_children
        for i, child in enumerate(children):
            if child.type == "preproc_call" and child.text.decode().split()[:2] == \
                    ["#pragma", "unroll"]:
                continue  # read by the loop that follows
            self.statement(child, depth, self.pragma(children[i - 1]) if i else "auto")
        if len(self.lines) == before:
            self.lines.append(f"{'    ' * depth}pass")
        self.scopes.pop()

    def pragma(self, node) -> bool | str | int:
        """The unrolling a `#pragma unroll [N]` before a loop asks for ("auto": none)."""
        words = node.text.decode().split() if node.type == "preproc_call" else []
        if words[:2] != ["#pragma", "unroll"]:
            return "auto"
        if len(words) == 2:
            return True
        try:
            n = int(self.expr(self.m.parse_expr(" ".join(words[2:])))[0], 0)
        except (ValueError, CudaImportError):
            raise self.m.error(node, f"`{' '.join(words)}`: the count must be a constant") \
                from None
        return False if n == 1 else n

    def statement(self, node, depth: int, unroll: bool | str | int = "auto") -> None:
        t = node.type
        if t == "comment":
            return
        if t == "compound_statement":
            self.block(node, depth)
        elif t == "declaration":
            self.declaration(node, depth)
        elif t == "expression_statement":
            if node.named_children:
                self.expression_statement(node.named_children[0], depth)
        elif t == "for_statement":
            self.for_statement(node, depth, unroll)
        elif t in ("while_statement", "do_statement"):
            self.while_statement(node, depth, unroll)
        elif t == "if_statement":
            self.if_statement(node, depth)
        elif t == "return_statement":
            if node.named_children:
                raise self.m.error(node, "a kernel returns no value")
            self.emit(depth, f"{BUILDER}.return_()", node)
        else:
            raise self.m.error(node, f"{t.replace('_', ' ')} is not supported by the "
                                     f"importer: `{_short(node)}`")

    def declaration(self, node, depth: int) -> None:
        text = node.text.decode()
        shared = "__shared__" in text.split("[")[0].split("=")[0]
        type_node = node.child_by_field_name("type")
        dtype, lanes = self.vtype(type_node, node)
        for d in node.named_children:
            if d.type in ("type_qualifier", "storage_class_specifier", "primitive_type",
                          "sized_type_specifier", "type_identifier") or d == type_node:
                continue
            if d.type == "array_declarator":
                self.array(d, dtype, shared, "extern" in text.split()[0:2], depth, node, lanes)
            elif d.type == "identifier" and lanes > 1 and not shared:
                self.array_of(d.text.decode(), dtype, [], False, depth, node, lanes)
            elif d.type == "identifier":
                if shared:
                    raise self.m.error(node, "a scalar __shared__ variable: declare it as an "
                                             "array of one")
                v = self.declare(d.text.decode(), "local", dtype)
                self.emit(depth, f'{v.py} = {BUILDER}.let("{d.text.decode()}", '
                                 f'{"0.0" if dtype in FLOAT_TYPES else "0"}, "{dtype}")  '
                                 f'# declared without a value', node)
            elif d.type == "init_declarator" and \
                    d.child_by_field_name("declarator").type == "array_declarator":
                # `float value[2] = {0.0f};`: register arrays start zeroed in the IR (and in
                # the generated CUDA), so an initializer of zeros is exactly that
                init = d.child_by_field_name("value")
                if shared or init.type != "initializer_list" or not _zeros(init):
                    raise self.m.error(node, f"`{_short(node)}`: an array may only be "
                                             "initialized with zeros")
                self.array(d.child_by_field_name("declarator"), dtype, shared, False, depth,
                           node, lanes)
            elif d.type == "init_declarator":
                target = d.child_by_field_name("declarator")
                if target.type != "identifier":
                    raise self.m.error(node, f"`{_short(node)}`: only scalars and arrays are "
                                             "supported")
                if lanes > 1:
                    v = self.array_of(target.text.decode(), dtype, [], False, depth, node, lanes)
                    self.store_vector(v, ["0"], lanes, d.child_by_field_name("value"), depth,
                                      node)
                    continue
                place = self.shared_address(d.child_by_field_name("value"))
                if place is not None:
                    v = self.declare(target.text.decode(), "smem_address", "u32")
                    v.place = place
                    continue
                value, _ = self.expr(d.child_by_field_name("value"))
                v = self.declare(target.text.decode(), "local", dtype)
                self.emit(depth, f'{v.py} = {BUILDER}.let("{target.text.decode()}", {value}, '
                                 f'"{dtype}")', node)
            else:
                raise self.m.error(node, f"declaration `{_short(node)}` is not supported")

    def array(self, d, dtype: str, shared: bool, extern: bool, depth: int, node,
              lanes: int = 1) -> None:
        dims = []
        while d.type == "array_declarator":
            size = d.child_by_field_name("size")
            dims.insert(0, None if size is None else self.expr(size)[0])
            d = d.child_by_field_name("declarator")
        self.array_of(d.text.decode(), dtype, dims, shared and extern, depth, node, lanes,
                      shared)

    def array_of(self, name: str, dtype: str, dims: list, extern: bool, depth: int, node,
                 lanes: int = 1, shared: bool = False) -> _Var:
        """Declare an array (a vector type: one more dimension, of its lanes)."""
        if lanes > 1:
            if extern:
                raise self.m.error(node, f"`{_short(node)}`: extern __shared__ arrays of a "
                                         "vector type are not supported")
            dims = dims + [str(lanes)]
        align = f", align={lanes * _SIZES[dtype]}" if lanes > 1 and shared else ""
        declared = self.m.aligns.get(node.start_point[0])
        if shared and declared is not None and declared != 16:
            align = f", align={declared}"  # 16 is the builder's default
        if shared and extern:
            v = self.declare(name, "shared", dtype)
            v.rank = len(dims)
            shape = ", ".join(["None"] + [x for x in dims[1:]])
            self.emit(depth, f'{v.py} = {BUILDER}.dynamic_shared("{name}", "{dtype}", '
                             f'({shape},))', node)
            return v
        if None in dims:
            raise self.m.error(node, f"array '{name}' needs every size")
        shape = dims[0] if len(dims) == 1 else "(" + ", ".join(dims) + ")"
        if shared:
            v = self.declare(name, "shared", dtype, lanes)
            self.emit(depth, f'{v.py} = {BUILDER}.shared("{name}", "{dtype}", {shape}{align})',
                      node)
        else:
            v = self.declare(name, "register", dtype, lanes)
            self.emit(depth, f'{v.py} = {BUILDER}.local_array("{name}", "{dtype}", {shape})',
                      node)
        v.rank = len(dims)
        return v

    def expression_statement(self, e, depth: int) -> None:
        if e.type == "call_expression":
            fn = e.child_by_field_name("function").text.decode()
            if fn == "__syncthreads":
                self.emit(depth, f"{BUILDER}.syncthreads()", e)
                return
            if fn == "__syncwarp":
                args = e.child_by_field_name("arguments").named_children
                mask = self.expr(args[0])[0] if args else ""
                self.emit(depth, f"{BUILDER}.syncwarp({mask})", e)
                return
            if fn in ATOMICS:  # its old value unused
                self.emit(depth, self.call(e)[0], e)
                return
            if fn in PIPELINE:
                self.pipeline(e, fn, depth)
                return
            raise self.m.error(e, f"call of '{fn}' as a statement is not supported")
        if e.type == "gnu_asm_expression":
            self.inline_ptx(e, depth)
            return
        if e.type == "update_expression":
            target = e.child_by_field_name("argument")
            op = "+" if b"++" in e.text else "-"
            self.assign(target, f"{op}=", "1", e, depth)
            return
        if e.type == "assignment_expression":
            op = e.child_by_field_name("operator").type
            place = self.vector_place(e.child_by_field_name("left"))
            if place is not None:
                if op != "=":
                    raise self.m.error(e, f"`{_short(e)}`: {op} on a whole vector (CUDA has "
                                          "no such operator)")
                self.store_vector(*place, e.child_by_field_name("right"), depth, e)
                return
            value, _ = self.expr(e.child_by_field_name("right"))
            self.assign(e.child_by_field_name("left"), op, value, e, depth)
            return
        if e.type == "comma_expression":
            raise self.m.error(e, "comma expressions are not supported: one statement each")
        raise self.m.error(e, f"`{_short(e)}` as a statement has no effect the IR can state")

    def assign(self, target, op: str, value: str, node, depth: int) -> None:
        if target.type == "identifier":
            v = self.lookup(target.text.decode(), target)
            if v.kind != "local":
                raise self.m.error(node, f"'{target.text.decode()}' is a {v.kind}, not a "
                                         "local variable: it cannot be assigned")
            if op != "=":
                value = f"{v.py} {self.binop(op[:-1], v.dtype in FLOAT_TYPES)} " \
                        f"({value})"
            self.emit(depth, f"{v.py}.set({value})", node)
            return
        if target.type in ("subscript_expression", "field_expression"):
            where, v = self.subscript(target) if target.type == "subscript_expression" \
                else self.component(target)
            if op != "=":
                current, _ = self.expr(target)
                value = f"{current} {self.binop(op[:-1], v.dtype in FLOAT_TYPES)} " \
                        f"({value})"
            self.emit(depth, f"{where} = {value}", node)
            return
        raise self.m.error(node, f"assignment to `{_short(target)}` is not supported")

    def binop(self, op: str, is_float: bool) -> str:
        """C's operator in Python: `/` between integers is `//`."""
        return "//" if op == "/" and not is_float else op

    def for_statement(self, node, depth: int, unroll) -> None:
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        update = node.child_by_field_name("update")
        if init is None or init.type != "declaration" or len(
                [c for c in init.named_children if c.type == "init_declarator"]) != 1:
            raise self.m.error(node, "a for loop must declare its one variable in its "
                                     "initializer (for (int i = ...; ...; ...))")
        d = next(c for c in init.named_children if c.type == "init_declarator")
        name = d.child_by_field_name("declarator").text.decode()
        dtype = self.dtype(init.child_by_field_name("type"), init)
        start, _ = self.expr(d.child_by_field_name("value"))
        self.scopes.append({})
        v = self.declare(name, "loop", dtype)
        if cond is None:
            raise self.m.error(node, "a for loop without a condition is not supported")
        cond_text = self.expr(cond)[0]
        step, upd = self.loop_step(update, name, node)
        self.scopes.pop()
        extra = f", unroll={_literal(unroll)}"
        step_arg = f", step={step}" if step is not None else \
            f", update=lambda {v.py}: {upd}"
        self.emit(depth, f'with {BUILDER}.loop("{name}", {start}, lambda {v.py}: {cond_text}'
                         f'{step_arg}{extra}, dtype="{dtype}") as {v.py}:', node)
        self.scopes.append({name: v})
        self.block(node.child_by_field_name("body"), depth + 1)
        self.scopes.pop()

    def loop_step(self, update, name: str, node) -> tuple[str | None, str | None]:
        """(step, None) or (None, update expression) of a for loop's update."""
        if update is None:
            raise self.m.error(node, "a for loop needs an update (i++, i += s, i >>= 1, ...)")
        if update.type == "update_expression":
            return ("1" if b"++" in update.text else "-1"), None
        if update.type == "assignment_expression" and \
                update.child_by_field_name("left").text.decode() == name:
            op = update.child_by_field_name("operator").type
            value, _ = self.expr(update.child_by_field_name("right"))
            if op == "+=":
                return value, None
            if op == "-=":
                return f"-({value})", None
            if op == "=":
                return None, value
            v = self.lookup(name, update)
            return None, f"{v.py} {self.binop(op[:-1], v.dtype in FLOAT_TYPES)} " \
                         f"({value})"
        raise self.m.error(update, f"loop update `{_short(update)}` is not supported")

    def while_statement(self, node, depth: int, unroll) -> None:
        cond = node.child_by_field_name("condition")
        if cond.type in ("condition_clause", "parenthesized_expression"):
            cond = cond.named_children[0]
        text, _ = self.expr(cond)
        counter = f"_loop{self.fresh}"
        self.fresh += 1
        do = node.type == "do_statement"
        self.emit(depth, f'with {BUILDER}.loop("{counter}", 0, lambda {counter}: {text}, 1'
                         f'{", do_while=True" if do else ""}'
                         f', unroll={_literal(unroll)}):', node)
        self.block(node.child_by_field_name("body"), depth + 1)

    def if_statement(self, node, depth: int) -> None:
        cond = node.child_by_field_name("condition").named_children[0]
        text, _ = self.expr(cond)
        self.emit(depth, f"with {BUILDER}.if_({text}):", node)
        self.block(node.child_by_field_name("consequence"), depth + 1)
        other = node.child_by_field_name("alternative")
        if other is not None:
            body = other.named_children[0] if other.type == "else_clause" else other
            self.emit(depth, f"with {BUILDER}.else_():", other)
            self.block(body, depth + 1)

    # ---- expressions: (Python text, is it floating point)
    def expr(self, node) -> tuple[str, bool]:
        t = node.type
        if t == "number_literal":
            text = node.text.decode()
            is_float = bool(re.search(r"[.eE]", text)) and not text.lower().startswith("0x")
            return re.sub(r"[uUlLfF]+$", "", text) if not text.lower().startswith("0x") \
                else re.sub(r"[uUlL]+$", "", text), is_float
        if t in ("true", "false"):
            return ("1" if t == "true" else "0"), False
        if t == "identifier":
            v = self.lookup(node.text.decode(), node)
            if v.kind == "smem_address":
                raise self.m.error(node, f"'{node.text.decode()}' holds a shared address "
                                         "(__cvta_generic_to_shared): the importer takes it "
                                         "only as an inline-PTX operand")
            if v.lanes > 1 and v.kind == "register":
                raise self.m.error(node, f"`{_short(node)}` is a whole vector: use its "
                                         ".x/.y/.z/.w, or assign it to a vector")
            if v.kind in ("global", "shared", "register"):
                raise self.m.error(node, f"array '{node.text.decode()}' used as a value")
            return v.py, v.dtype in FLOAT_TYPES
        if t == "field_expression":
            base = node.child_by_field_name("argument").text.decode()
            fld = node.child_by_field_name("field").text.decode()
            if base in ("threadIdx", "blockIdx", "blockDim", "gridDim") and fld in "xyz":
                return f"{base}.{fld}", False
            if fld in COMPONENTS:
                where, v = self.component(node)
                return where, v.dtype in FLOAT_TYPES
            raise self.m.error(node, f"`{_short(node)}`: structs and vector members are not "
                                     "supported")
        if t == "parenthesized_expression":
            inner, f = self.expr(node.named_children[0])
            return f"({inner})", f
        if t in ("subscript_expression", "pointer_expression"):
            if self.vector_place(node) is not None:
                raise self.m.error(node, f"`{_short(node)}` is a whole vector: use its "
                                         ".x/.y/.z/.w, or assign it to a vector")
            if t == "pointer_expression":
                raise self.m.error(node, f"`{_short(node)}`: pointers are not supported (but "
                                         "for reinterpret_cast to vector types)")
            where, v = self.subscript(node)
            return where, v.dtype in FLOAT_TYPES
        if t == "binary_expression":
            op = node.child_by_field_name("operator").type
            a, fa = self.expr(node.child_by_field_name("left"))
            b, fb = self.expr(node.child_by_field_name("right"))
            if op == "&&":
                return f"logical_and({a}, {b})", False
            if op == "||":
                return f"logical_or({a}, {b})", False
            if op not in BINARY:
                raise self.m.error(node, f"operator {op} is not supported")
            is_float = (fa or fb) and op in "+-*/"
            return f"{a} {self.binop(op, fa or fb)} {b}", is_float
        if t == "unary_expression":
            op = node.child_by_field_name("operator").type
            a, f = self.expr(node.child_by_field_name("argument"))
            if op == "!":
                return f"lnot({a})", False
            if op in ("-", "~", "+"):
                return f"{op}{a}", f
            raise self.m.error(node, f"unary {op} is not supported")
        if t == "conditional_expression":
            c, _ = self.expr(node.child_by_field_name("condition"))
            a, fa = self.expr(node.child_by_field_name("consequence"))
            b, fb = self.expr(node.child_by_field_name("alternative"))
            return f"select({c}, {a}, {b})", fa or fb
        if t == "cast_expression":
            dtype = self.dtype(node.child_by_field_name("type"), node)
            a, _ = self.expr(node.child_by_field_name("value"))
            return f'cast({a}, {dtype})', dtype in FLOAT_TYPES
        if t == "call_expression":
            return self.call(node)
        if t == "sizeof_expression":
            inner = node.named_children[0]
            if inner.type == "parenthesized_expression":
                inner = inner.named_children[0]
            if inner.type not in ("type_descriptor", "identifier", "primitive_type",
                                  "type_identifier"):
                raise self.m.error(node, f"`{_short(node)}`: sizeof of a type only")
            dtype = self.dtype(inner, node)
            return str(_SIZES[dtype]), False
        raise self.m.error(node, f"{t.replace('_', ' ')} `{_short(node)}` is not supported by "
                                 "the importer")

    def call(self, node) -> tuple[str, bool]:
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments").named_children
        if fn.type == "template_function" and fn.child_by_field_name("name").text in (
                b"static_cast",):
            dtype = self.dtype(fn.child_by_field_name("arguments").named_children[0], node)
            a, _ = self.expr(args[0])
            return f'cast({a}, {dtype})', dtype in FLOAT_TYPES
        name = fn.text.decode()
        if name in ATOMICS:
            return self.atomic(node, ATOMICS[name], args)
        if name in SHUFFLES:
            return self.shuffle(node, SHUFFLES[name], args)
        vals = [self.expr(a) for a in args]
        if name in ("min", "max", "fminf", "fmaxf", "fmin", "fmax") and len(vals) == 2:
            f = "smin" if "min" in name else "smax"
            return f"{f}({vals[0][0]}, {vals[1][0]})", vals[0][1] or vals[1][1]
        if name in MATH:
            return f'call("{MATH[name]}", {", ".join(v for v, _ in vals)})', True
        raise self.m.error(node, f"call of '{name}' is not supported by the importer (device "
                                 "functions: inline them)")

    def atomic(self, node, kind: str, args) -> tuple[str, bool]:
        """`atomicAdd(&a[i], v)` (CAS: `atomicCAS(&a[i], compare, v)`) as the builder's
        atomic, which returns the old value."""
        if len(args) != (3 if kind == "cas" else 2) or args[0].type != "pointer_expression" \
                or args[0].named_children[0].type != "subscript_expression":
            raise self.m.error(node, f"`{_short(node)}`: an atomic takes &array[index] and "
                                     f"{'compare, value' if kind == 'cas' else 'a value'}")
        v, indices = self.indexed(args[0].named_children[0])
        index = _index_tuple(indices)
        rest = [self.expr(a)[0] for a in args[1:]]
        extra = f', compare={rest[0]}' if kind == "cas" else ""
        return (f'{BUILDER}.atomic({v.py}, {index}, "{kind}", {rest[-1]}{extra})',
                v.dtype in FLOAT_TYPES)

    def shuffle(self, node, mode: str, args) -> tuple[str, bool]:
        """`__shfl_*_sync(mask, value, lane[, width])` as the builder's shuffle."""
        if len(args) not in (3, 4):
            raise self.m.error(node, f"`{_short(node)}`: a shuffle takes mask, value, lane "
                                     "and an optional width")
        mask, (value, is_float), (lane, _) = self.expr(args[0])[0], self.expr(args[1]), \
            self.expr(args[2])
        width = f", width={self.expr(args[3])[0]}" if len(args) == 4 else ""
        return f'{BUILDER}.shfl({value}, {lane}, "{mode}"{width}, mask={mask})', is_float

    def subscript(self, node) -> tuple[str, _Var]:
        """`a[i][j]` as `a[i, j]` (the builder's load or store), and the array."""
        v, indices = self.indexed(node)
        return f"{v.py}[{', '.join(indices)}]", v

    def indexed(self, node) -> tuple[_Var, list[str]]:
        """The array and the index expressions of `a[i][j]`."""
        indices = []
        while node.type == "subscript_expression":
            idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
            parts = idx.named_children if idx.type == "subscript_argument_list" else [idx]
            indices.insert(0, self.expr(parts[0])[0])
            node = node.child_by_field_name("argument")
        if node.type != "identifier":
            raise self.m.error(node, f"`{_short(node)}`: only named arrays can be indexed")
        v = self.lookup(node.text.decode(), node)
        if v.kind not in ("global", "shared", "register"):
            raise self.m.error(node, f"'{node.text.decode()}' is not an array")
        return v, indices

    # ---- cp.async (inline PTX and the __pipeline_* intrinsics)
    def shared_address(self, node):
        """(array, indices) of `__cvta_generic_to_shared(&s[i]...)` (through casts and
        parentheses) or of a local holding one; else None."""
        while True:
            if node.type == "parenthesized_expression":
                node = node.named_children[0]
            elif node.type == "cast_expression":
                node = node.child_by_field_name("value")
            elif node.type == "call_expression" and \
                    node.child_by_field_name("function").type == "template_function" and \
                    node.child_by_field_name("function").child_by_field_name("name").text \
                    in (b"static_cast", b"reinterpret_cast"):
                node = node.child_by_field_name("arguments").named_children[0]
            else:
                break
        if node.type == "identifier":
            v = self.lookup(node.text.decode(), node)
            return v.place if v.kind == "smem_address" else None
        if node.type == "call_expression" and node.child_by_field_name("function").text == \
                b"__cvta_generic_to_shared":
            args = node.child_by_field_name("arguments").named_children
            v, indices = self.pointer_place(args[0], node)
            if v.kind != "shared":
                raise self.m.error(node, f"`{_short(node)}`: '{v.py}' is not a __shared__ array")
            return v, indices
        return None

    def pointer_place(self, node, where) -> tuple[_Var, list[str]]:
        """(array, indices) of a pointer into an array: `&a[i][j]`, `a + i` or `a`."""
        while node.type in ("parenthesized_expression", "cast_expression"):
            node = node.child_by_field_name("value") if node.type == "cast_expression" \
                else node.named_children[0]
        if node.type == "pointer_expression" and node.children[0].type == "&" and \
                node.named_children[0].type == "subscript_expression":
            return self.indexed(node.named_children[0])
        offset = "0"
        if node.type == "binary_expression" and \
                node.child_by_field_name("operator").type == "+":
            offset, _ = self.expr(node.child_by_field_name("right"))
            node = node.child_by_field_name("left")
        if node.type == "identifier":
            v = self.lookup(node.text.decode(), node)
            if v.kind in ("global", "shared") and v.lanes == 1:
                return v, [offset] + ["0"] * (v.rank - 1)
        raise self.m.error(where, f"`{_short(where)}`: a copy's address must be &array[index], "
                                  "array + offset or a __cvta_generic_to_shared of one")

    def copy(self, node, depth: int, dst, src, nbytes: int, bypass: bool) -> None:
        """One cp.async of `nbytes` from global `src` to shared `dst` ((array, indices))."""
        (d, d_idx), (g, g_idx) = dst, src
        if g.kind != "global":
            raise self.m.error(node, f"`{_short(node)}`: cp.async copies from global memory")
        size = _SIZES[d.dtype]
        if nbytes not in (4, 8, 16) or nbytes % size or _SIZES[g.dtype] != size:
            raise self.m.error(node, f"`{_short(node)}`: cp.async of {nbytes} bytes between "
                                     f"{g.dtype} and {d.dtype} elements (4, 8 or 16 bytes of "
                                     "one element size)")
        flag = ", bypass=True" if bypass else ""
        self.emit(depth, f"{BUILDER}.cp_async({d.py}, {_index_tuple(d_idx)}, {g.py}, "
                         f"{_index_tuple(g_idx)}, width={nbytes // size}{flag})", node)

    def pipeline(self, e, fn: str, depth: int) -> None:
        """`__pipeline_memcpy_async(dst, src, bytes)` (4 or 8 bytes: cp.async.ca; 16:
        cp.async.cg, as cuda_pipeline_helpers.h emits), `__pipeline_commit()`,
        `__pipeline_wait_prior(n)`."""
        args = e.child_by_field_name("arguments").named_children
        if fn == "__pipeline_commit":
            self.emit(depth, f"{BUILDER}.cp_async_commit()", e)
        elif fn == "__pipeline_wait_prior":
            self.emit(depth, f"{BUILDER}.cp_async_wait({self.constant_int(args[0], e)})", e)
        else:
            if len(args) != 3:
                raise self.m.error(e, f"`{_short(e)}`: only __pipeline_memcpy_async(dst, src, "
                                      "bytes) (no zero fill) is supported")
            nbytes = self.constant_int(args[2], e)
            self.copy(e, depth, self.pointer_place(args[0], e), self.pointer_place(args[1], e),
                      nbytes, nbytes == 16)

    def constant_int(self, node, where) -> int:
        """A compile-time integer (a literal, or a constant the importer knows)."""
        text, _ = self.expr(node)
        try:
            return int(eval(text, {"__builtins__": {}}, dict(self.known_constants())))
        except Exception:
            raise self.m.error(where, f"`{_short(node)}` must be a compile-time integer "
                                      "here") from None

    def known_constants(self) -> dict:
        return {_py(k): int(float(_constant(v))) for k, v in self.constants.items()
                if re.fullmatch(r"-?[0-9.]+", _constant(v))}

    def inline_ptx(self, e, depth: int) -> None:
        """`asm volatile("...")` of cp.async (ca/cg, commit_group, wait_group, wait_all):
        each instruction of the template as the builder's; anything else is an error."""
        template = "".join(
            n.text.decode() for lit in e.named_children if lit.type in (
                "string_literal", "concatenated_string")
            for n in _walk(lit) if n.type in ("string_content", "escape_sequence"))
        template = template.replace("\\n", " ").replace("\\t", " ")
        operands = [op for lst in e.named_children if lst.type in (
            "gnu_asm_output_operand_list", "gnu_asm_input_operand_list")
            for op in lst.named_children]
        outputs = sum(op.type == "gnu_asm_output_operand" for op in operands)
        values = [op.named_children[-1] for op in operands]

        def operand(text: str):
            m = re.fullmatch(r"%(\d+)", text.strip())
            if m is None:
                return None
            k = int(m.group(1))
            if k >= len(values):
                raise self.m.error(e, f"inline PTX names %{k}, which is not an operand")
            return values[k]

        def number(text: str) -> int:
            node = operand(text)
            if node is not None:
                return self.constant_int(node, e)
            if not re.fullmatch(r"\d+", text.strip()):
                raise self.m.error(e, f"`{text.strip()}` in inline PTX: a number expected")
            return int(text)

        for ins in (i.strip() for i in template.split(";")):
            if not ins:
                continue
            if ins == "cp.async.commit_group":
                self.emit(depth, f"{BUILDER}.cp_async_commit()", e)
            elif ins == "cp.async.wait_all":  # PTX: commit_group then wait_group 0
                self.emit(depth, f"{BUILDER}.cp_async_commit()", e)
                self.emit(depth, f"{BUILDER}.cp_async_wait(0)", e)
            elif ins.startswith("cp.async.wait_group"):
                self.emit(depth, f"{BUILDER}.cp_async_wait("
                                 f"{number(ins[len('cp.async.wait_group'):])})", e)
            elif (m := re.fullmatch(r"cp\.async\.(ca|cg)\.shared(?:::cta)?\.global"
                                    r"(?:\.L2::\w+)?\s+\[([^\]]+)\]\s*,\s*\[([^\]]+)\]"
                                    r"\s*,\s*([^,]+?)(?:\s*,\s*([^,]+))?", ins)):
                nbytes = number(m.group(4))
                if m.group(5) is not None and number(m.group(5)) != nbytes:
                    raise self.m.error(e, f"`{ins}`: a source size below the copy size (zero "
                                          "fill) is not supported")
                dst, src = operand(m.group(2)), operand(m.group(3))
                if dst is None or src is None:
                    raise self.m.error(e, f"`{ins}`: addresses must be operands (%n)")
                place = self.shared_address(dst)
                if place is None:
                    raise self.m.error(e, f"`{ins}`: the shared address must be a "
                                          "__cvta_generic_to_shared(&array[index]) (or a "
                                          "local holding one)")
                self.copy(e, depth, place, self.pointer_place(src, e), nbytes,
                          m.group(1) == "cg")
            elif (m := re.fullmatch(r"(ldmatrix|stmatrix)\.sync\.aligned\.m8n8\.x([124])"
                                    r"(\.trans)?\.shared(?:::cta)?\.b16\s*(.*)", ins)):
                self.matrix(e, depth, ins, m, operand, outputs)
            else:
                raise self.m.error(e, f"inline PTX `{ins}` is not supported by the importer "
                                      "(cp.async, commit_group, wait_group, wait_all, ldmatrix "
                                      "and stmatrix are)")

    def matrix(self, e, depth: int, ins: str, m, operand, outputs: int) -> None:
        """`ldmatrix...x{n}[.trans].shared.b16 {%r...}, [%a]` as the builder's ldmatrix, each
        32-bit output register given its two 16-bit elements (low first); `stmatrix ... [%a],
        {%r...}` as its stmatrix, each register split the same way."""
        load, count, trans = m.group(1) == "ldmatrix", int(m.group(2)), m.group(3) is not None
        parts = re.fullmatch(r"\{([^}]*)\}\s*,\s*\[([^\]]+)\]" if load else
                             r"\[([^\]]+)\]\s*,\s*\{([^}]*)\}", m.group(4).strip())
        if parts is None:
            raise self.m.error(e, f"`{ins}`: operands as {{%r, ...}}, [%a] expected")
        regs_text, addr_text = parts.groups() if load else parts.groups()[::-1]
        numbers = [re.fullmatch(r"\s*%(\d+)\s*", r) for r in regs_text.split(",")]
        addr = operand(addr_text)
        if addr is None or None in numbers or len(numbers) != count:
            raise self.m.error(e, f"`{ins}`: {count} register operand(s) and an address "
                                  "operand (%n) expected")
        numbers = [int(n.group(1)) for n in numbers]
        if load and any(k >= outputs for k in numbers):
            raise self.m.error(e, f"`{ins}`: its registers must be output operands (\"=r\")")
        regs = [operand(f"%{k}") for k in numbers]
        place = self.shared_address(addr)
        if place is None:
            raise self.m.error(e, f"`{ins}`: the shared address must be a "
                                  "__cvta_generic_to_shared(&array[index]) (or a local "
                                  "holding one)")
        v, indices = place
        if _SIZES[v.dtype] != 2 or v.lanes != 1:
            raise self.m.error(e, f"`{ins}`: '{v.py}' holds {v.dtype}; ldmatrix/stmatrix move "
                                  "16-bit elements (declare it unsigned short)")
        if v.dtype != "u16":
            raise self.m.error(e, f"`{ins}`: '{v.py}' is {v.dtype}: declare the array "
                                  "unsigned short (the IR's ldmatrix moves u16 bits)")
        index = _index_tuple(indices)
        flags = f"matrices={count}" + (", trans=True" if trans else "")
        if load:
            frag = f"_frag{self.fresh}"
            self.fresh += 1
            self.emit(depth, f"{frag} = {BUILDER}.ldmatrix({v.py}, {index}, {flags})", e)
            for j, reg in enumerate(regs):
                self.assign(reg, "=", f"cast({frag}[{2 * j}], u32) | (cast({frag}[{2 * j + 1}], "
                                      "u32) << 16)", e, depth)
        else:
            values = []
            for reg in regs:
                word, _ = self.expr(reg)
                values += [f"cast(({word}) & 0xFFFF, u16)", f"cast(({word}) >> 16, u16)"]
            self.emit(depth, f"{BUILDER}.stmatrix({v.py}, {index}, [{', '.join(values)}], "
                             f"{flags})", e)

    # ---- vector types
    def vector_place(self, node) -> tuple[_Var, list[str], int] | None:
        """(array, index of its first lane, lanes) when `node` denotes a whole vector in
        memory or registers: a vector variable, an element of a vector array, or
        `*reinterpret_cast<float4*>(&a[i])`, `reinterpret_cast<float4*>(&a[i])[k]`,
        `*(float4*)&a[i]` over an array of scalars; else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier":
            v = self.lookup(node.text.decode(), node)
            return (v, ["0"], v.lanes) if v.lanes > 1 else None
        if node.type == "subscript_expression":
            base = node.child_by_field_name("argument")
            cast = self.vector_cast(base)
            if cast is not None:
                idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
                k = self.expr(idx.named_children[0] if idx.type == "subscript_argument_list"
                              else idx)[0]
                v, indices, lanes = cast
                if k != "0":
                    indices = indices[:-1] + [f"{indices[-1]} + ({k}) * {lanes}"]
                return v, indices, lanes
            root = node
            while root.type == "subscript_expression":
                root = root.child_by_field_name("argument")
            if root.type != "identifier":
                return None
            v, indices = self.indexed(node)
            return (v, indices + ["0"], v.lanes) if v.lanes > 1 else None
        if node.type == "pointer_expression" and node.children[0].type == "*":
            return self.vector_cast(node.named_children[0])
        return None

    def vector_cast(self, node):
        """(array, index, lanes) of `reinterpret_cast<float4*>(P)` or `(float4*)P`, P being
        `&a[i]...` or an array's name (plus an offset); else None."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "call_expression":
            fn = node.child_by_field_name("function")
            if fn.type != "template_function" or fn.child_by_field_name("name").text not in (
                    b"reinterpret_cast",):
                return None
            target = fn.child_by_field_name("arguments").named_children[0]
            pointer = node.child_by_field_name("arguments").named_children[0]
        elif node.type == "cast_expression":
            target = node.child_by_field_name("type")
            pointer = node.child_by_field_name("value")
        else:
            return None
        text = " ".join(target.text.decode().replace("const", "").split())
        name = text.rstrip("*").strip()
        if not text.endswith("*") or name not in VECTORS:
            raise self.m.error(node, f"`{_short(node)}`: a cast to {text} is not supported "
                                     "(reinterpret_cast to float2/float4/int2/int4/... "
                                     "pointers over an array is)")
        dtype, lanes = VECTORS[name]
        while pointer.type == "parenthesized_expression":
            pointer = pointer.named_children[0]
        offset = None
        if pointer.type == "binary_expression" and \
                pointer.child_by_field_name("operator").type == "+":
            offset = self.expr(pointer.child_by_field_name("right"))[0]
            pointer = pointer.child_by_field_name("left")
        if pointer.type == "pointer_expression" and pointer.children[0].type == "&" and \
                pointer.named_children[0].type == "subscript_expression":
            v, indices = self.indexed(pointer.named_children[0])
        elif pointer.type == "identifier":
            v = self.lookup(pointer.text.decode(), pointer)
            if v.kind not in ("global", "shared") or v.lanes > 1:
                raise self.m.error(pointer, f"`{_short(node)}`: the pointer must be an array "
                                            "of scalars or &array[index]")
            indices = ["0"]
        else:
            raise self.m.error(node, f"`{_short(node)}`: the pointer must be an array of "
                                     "scalars or &array[index]")
        if v.dtype != dtype or v.lanes > 1:
            raise self.m.error(node, f"`{_short(node)}`: {name} over an array of "
                                     f"{v.dtype}{'x' + str(v.lanes) if v.lanes > 1 else ''} "
                                     "(the importer reinterprets arrays of the vector's own "
                                     "element type only)")
        if offset is not None:
            if len(indices) != 1:
                raise self.m.error(node, f"`{_short(node)}`: pointer arithmetic on a "
                                         "multi-dimensional array")
            indices = [f"{indices[0]} + {offset}"]
        return v, indices, lanes

    def lane_index(self, v: _Var, indices: list[str], lane: int) -> str:
        """`a[i, j]` of one lane of a vector place."""
        last = indices[-1]
        at = str(lane) if last == "0" else f"{last} + {lane}" if lane else last
        return f"{v.py}[{', '.join(indices[:-1] + [at])}]"

    def component(self, node) -> tuple[str, _Var]:
        """`v.x` (a lane of a vector place) as the builder's element access."""
        fld = node.child_by_field_name("field").text.decode()
        place = self.vector_place(node.child_by_field_name("argument"))
        if place is None or COMPONENTS.index(fld) >= place[2]:
            raise self.m.error(node, f"`{_short(node)}`: .{fld} of something that is not a "
                                     "vector (of that many lanes)")
        v, indices, _ = place
        return self.lane_index(v, indices, COMPONENTS.index(fld)), v

    def vector_value(self, node, lanes: int, depth: int) -> list[str]:
        """The lanes of a vector-valued expression: make_float4(...), or a vector place
        (one width-N load from shared or global memory)."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "call_expression" and node.child_by_field_name("function").text \
                .decode().startswith("make_"):
            args = node.child_by_field_name("arguments").named_children
            if len(args) != lanes:
                raise self.m.error(node, f"`{_short(node)}`: {len(args)} values for a vector "
                                         f"of {lanes}")
            return [self.expr(a)[0] for a in args]
        place = self.vector_place(node)
        if place is None or place[2] != lanes:
            raise self.m.error(node, f"`{_short(node)}` is not a vector of {lanes} the "
                                     "importer can read (make_float4(...), a vector variable "
                                     "or array element, or *reinterpret_cast<float4*>(&a[i]))")
        v, indices, _ = place
        if v.kind == "register":
            return [self.lane_index(v, indices, e) for e in range(lanes)]
        name = f"_v{self.fresh}"
        self.fresh += 1
        self.emit(depth, f'{name} = {v.py}.load(({", ".join(indices)},), width={lanes}, '
                         f'name="{name[1:]}")', node)
        return [f"{name}[{e}]" for e in range(lanes)]

    def store_vector(self, v: _Var, indices: list[str], lanes: int, value, depth: int,
                     node) -> None:
        """`place = vector`: lane by lane into registers, one width-N store to memory."""
        parts = self.vector_value(value, lanes, depth)
        if v.kind == "register":
            for e, part in enumerate(parts):
                self.emit(depth, f"{self.lane_index(v, indices, e)} = {part}", node)
            return
        self.emit(depth, f'{v.py}.store(({", ".join(indices)},), [{", ".join(parts)}], '
                         f'width={lanes})', node)


def _index_tuple(indices: list[str]) -> str:
    """The builder's index argument: one expression, or a tuple of them."""
    return indices[0] if len(indices) == 1 else f"({', '.join(indices)})"


def _zeros(init) -> bool:
    """An initializer of zeros only (`{0.0f}`, `{{make_float4(0.f, 0.f, 0.f, 0.f)}}`)."""
    for n in _walk(init):
        if n.type == "number_literal" and \
                not re.fullmatch(r"0+(\.0*)?[fFuUlL]*|0?\.0+[fF]?", n.text.decode()):
            return False
        if n.type not in ("initializer_list", "number_literal", "call_expression",
                          "identifier", "argument_list") or (
                n.type == "identifier" and not n.text.decode().startswith("make_")):
            return False
    return True


def _literal(value) -> str:
    """A Python literal, strings in double quotes like the rest of the generated file."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _walk(node):
    yield node
    for c in node.named_children:
        yield from _walk(c)


def _pointer_uses(body) -> tuple[set, set]:
    """Names written through `p[i] = ...` (or +=, or a vector store through
    `*reinterpret_cast<float4*>(&p[i]) = ...`) and names read in a body."""
    writes, reads = set(), set()
    stored = set()   # (start, end) of the subscripts that are only written
    for n in _walk(body):
        if n.type != "assignment_expression":
            continue
        for m in _walk(n.child_by_field_name("left")):
            if m.type != "subscript_expression":
                continue
            base = m
            while base.type == "subscript_expression":
                base = base.child_by_field_name("argument")
            writes.add(base.text.decode())
            if n.child_by_field_name("operator").type == "=":
                stored.add((m.start_byte, m.end_byte))
    for n in _walk(body):
        if n.type == "subscript_expression" and (n.start_byte, n.end_byte) not in stored \
                and n.parent.type != "subscript_expression":
            base = n
            while base.type == "subscript_expression":
                base = base.child_by_field_name("argument")
            reads.add(base.text.decode())
    return writes, reads


def _short(node) -> str:
    text = " ".join(node.text.decode().split())
    return text if len(text) <= 60 else text[:57] + "..."

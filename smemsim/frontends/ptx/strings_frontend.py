"""CUDA a Python program compiles from strings (cupy's `RawKernel` and `RawModule`, pycuda's
`SourceModule`) through nvcc's PTX, lowered (smemsim.frontends.ptx.lower) with the merges
ptxas makes, launched as the program launches it.

The program is read, never run (smemsim.frontends.ptx.host_python). The source is what the
file binds it to where it is compiled: a literal, or text formatted from values the file
states (`%` with a dict or a tuple, `.format`, f-strings, `+`), as pycuda's own examples
make theirs. Its lines are the file's: nvcc reads it numbered from the line its text starts
on (a text with lines spliced into it is numbered from its compile call, and its kernels say
so). pycuda's `SourceModule` wraps the source in `extern "C" { }` as pycuda does (unless
`no_extern_c=True`); the call's `-D`, `-std` and fast-math options go to nvcc.

A kernel is one the program fetches by name (`RawKernel(code, "name")`,
`module.get_function("name")`); its launch is cupy's `k(grid, block, args, shared_mem=S)`
or pycuda's `f(args..., block=, grid=, shared=)`, each argument a number or an array whose
allocation the file states (numpy's and cupy's allocators, `gpuarray.to_gpu`,
`driver.In/Out/InOut`). Parameters are named as the kernel's declaration names them.
"""
from __future__ import annotations

import ast
import collections
import dataclasses
import functools
import pathlib
import re

from kernels_ir import KernelError, SourceLoc

from . import host_python as hp
from . import python_kernel as pk

# the options of a compile call that change the code nvcc makes, by their start
_KEPT_OPTIONS = ("-D", "--define-macro", "-std", "--std", "-use_fast_math",
                 "--use_fast_math", "-U")


@dataclasses.dataclass(frozen=True)
class Source:
    """One compile call: its CUDA (None where the file computes it at run time), where the
    call is, whether it is wrapped in `extern "C"` (pycuda), and its compiler options."""

    text: hp.Text | None
    loc: SourceLoc
    extern_c: bool
    options: tuple
    api: str


@dataclasses.dataclass(frozen=True)
class StringLaunch:
    """A launch of a kernel compiled from a string: grid, block, shared bytes and each
    argument as host_python reads them (None: not known), the arguments as written."""

    grid: object
    block: object
    smem: object
    args: tuple
    written: tuple
    loc: SourceLoc
    config: tuple = ("", "", "0")   # grid, block and shared bytes as written


@dataclasses.dataclass(frozen=True)
class Program:
    """What a Python program compiles and launches: its sources, and per kernel name the
    source it is fetched from (an index into `sources`) and its launches."""

    sources: tuple
    kernels: dict          # key -> (the kernel's name, index of its source); the key is the
    #                        name, or `name@LINE` (its compile call's) where two sources have
    #                        kernels of that name
    launches: dict         # key -> tuple of StringLaunch


def program(path: str, given: dict | None = None) -> Program:
    """The compile calls, kernels and launches of a Python program (read, never run);
    `given`: the --host values of names the program computes at run time."""
    file = pathlib.Path(path)
    tree = pk.syntax_tree(file)
    sources: list[Source] = []
    fetches: dict[tuple, None] = {}   # (name, source index), in the order fetched
    launches: dict[tuple, list] = {}
    objects: dict[str, tuple] = {}   # a Python name -> ("kernel", name, source) | ("module", source)

    def fetched(node, scope: hp.Scope):
        """("kernel", its name, its source) when `node` names or fetches a kernel."""
        if isinstance(node, ast.Name):
            return objects.get(node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("get_function", "get_kernel") and node.args and \
                isinstance(node.func.value, ast.Name):
            module = objects.get(node.func.value.id)
            name = scope.value(node.args[0])
            if module is not None and module[0] == "module" and isinstance(name, str):
                return ("kernel", str(name), module[1])
        return None

    def visit(statement, scope: hp.Scope) -> None:
        for call in _calls(statement):
            api = _compiler(call)
            if api is not None:
                index = len(sources)
                sources.append(_source(call, api, scope, str(file)))
                made = ("module", index)
                if api == "cupy.RawKernel":
                    name = scope.value(_argument(call, 1, "name"))
                    if isinstance(name, str):
                        made = ("kernel", str(name), index)
                        fetches.setdefault((str(name), index))
                if isinstance(statement, ast.Assign) and statement.value is call:
                    for t in statement.targets:
                        if isinstance(t, ast.Name):
                            objects[t.id] = made
                continue
            got = fetched(call, scope)
            if got is not None and got[0] == "kernel":
                fetches.setdefault((got[1], got[2]))
                if isinstance(statement, ast.Assign) and statement.value is call:
                    for t in statement.targets:
                        if isinstance(t, ast.Name):
                            objects[t.id] = got
            target = fetched(call.func, scope)
            if target is not None and target[0] == "kernel":
                launch = _launch(call, scope, str(file))
                if launch is not None:
                    launches.setdefault((target[1], target[2]), []).append(launch)

    hp.Scope(given=given).run(tree.body, visit)
    if not sources:
        raise KernelError(f"{file.name} compiles no CUDA string smemsim can find")
    names = collections.Counter(name for name, _ in fetches)
    keys = {(name, index): name if names[name] == 1 else
            f"{name}@{sources[index].loc.line}" for name, index in fetches}
    return Program(tuple(sources), {key: fetched for fetched, key in keys.items()},
                   {keys[k]: tuple(v) for k, v in launches.items() if k in keys})


def _calls(statement) -> list:
    """The calls of one simple statement, outermost first (a compound statement's own are
    in its bodies, which the scope visits)."""
    if isinstance(statement, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign,
                              ast.Return)):
        return [n for n in ast.walk(statement) if isinstance(n, ast.Call)]
    return []


def _compiler(call: ast.Call) -> str | None:
    """Which compile call `call` is (`cupy.RawKernel`, `cupy.RawModule`, `pycuda`), or None."""
    from ..loader import callee_name
    return {"RawKernel": "cupy.RawKernel", "RawModule": "cupy.RawModule",
            "SourceModule": "pycuda"}.get(callee_name(call))


def _argument(call: ast.Call, position: int, keyword: str):
    found = next((k.value for k in call.keywords if k.arg == keyword), None)
    if found is None and len(call.args) > position:
        found = call.args[position]
    return found


def _source(call: ast.Call, api: str, scope: hp.Scope, path: str) -> Source:
    loc = SourceLoc(path, call.lineno, call.col_offset + 1)
    # pycuda's SourceModule(source, nvcc, options, keep, no_extern_c, ...), cupy's
    # RawKernel(code, name, options, ...) and RawModule(code=..., options=...)
    text = scope.value(_argument(call, 0, "source" if api == "pycuda" else "code"))
    extern_c = api == "pycuda" and scope.value(_argument(call, 4, "no_extern_c")) is not True
    options = scope.value(_argument(call, 2, "options"))
    if isinstance(options, str):
        options = (options,)
    if not isinstance(options, tuple) or not all(isinstance(o, str) for o in options):
        options = ()
    return Source(text if isinstance(text, str) else None, loc, extern_c,
                  tuple(str(o) for o in options), api)


def _launch(call: ast.Call, scope: hp.Scope, path: str) -> StringLaunch | None:
    """cupy's `k(grid, block, args, shared_mem=S)` or pycuda's `f(args..., block=(..),
    grid=(..), shared=S)`, or None for another call."""
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    value = scope.value
    loc = SourceLoc(path, call.lineno, call.col_offset + 1)
    if "block" in kw:   # pycuda
        passed = list(call.args)
        grid = value(kw["grid"]) if "grid" in kw else (1,)
        return StringLaunch(grid, value(kw["block"]),
                            value(kw["shared"]) if "shared" in kw else 0,
                            tuple(value(a) for a in passed),
                            tuple(ast.unparse(a) for a in passed), loc,
                            tuple(ast.unparse(kw[k]) if k in kw else d
                                  for k, d in (("grid", "(1,)"), ("block", ""),
                                               ("shared", "0"))))
    if len(call.args) >= 3:   # cupy
        packed = call.args[2]
        passed = list(packed.elts) if isinstance(packed, (ast.Tuple, ast.List)) else []
        smem = kw.get("shared_mem", call.args[3] if len(call.args) > 3 else None)
        return StringLaunch(value(call.args[0]), value(call.args[1]),
                            0 if smem is None else value(smem),
                            tuple(value(a) for a in passed),
                            tuple(ast.unparse(a) for a in passed), loc,
                            (ast.unparse(call.args[0]), ast.unparse(call.args[1]),
                             "0" if smem is None else ast.unparse(smem)))
    return None


# ------------------------------------------------------------------ the kernels as IR

def import_strings(path: str, options=None, wanted: str | None = None, arch: str = "sm_90",
                   flags=()) -> dict:
    """key -> a function that builds that kernel from nvcc's PTX of its source string."""
    found = program(path, pk.given_values(options))
    if not found.kernels:
        raise KernelError(f"{path} fetches no kernel by name from the CUDA it compiles "
                          "(`RawKernel(code, \"name\")`, `module.get_function(\"name\")`)")
    return pk.builders(functools.partial(build, flags=tuple(flags)), path, found,
                       found.kernels, wanted, "kernel compiled from a string", options, arch)


def _continued_lines(path: str, text) -> dict[int, int] | None:
    """Where a non-raw triple-quoted string's lines stand in the file, where it has
    backslash-newlines (Python joins the lines they end: pycuda's Game of Life writes a
    long `return` over three lines that way, and nvcc's line 33 is then the file's 35):
    {the line nvcc counts: the file's}, only the lines that differ; None where there are
    none, or where the literal is not as this reading expects (its lines are then
    nvcc's, as before)."""
    first = getattr(text, "line", None)
    try:
        lines = pathlib.Path(path).read_text().split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if first is None or not 0 < first <= len(lines):
        return None
    head = lines[first - 1]
    at = min((i for i in (head.find('"""'), head.find("'''")) if i >= 0), default=-1)
    if at < 0 or head[:at].rstrip().endswith(("r", "R")) or \
            not lines[first - 1][at + 3:].strip() == "":
        return None   # (no triple quote, a raw string, or text after the quotes)
    count = str(text).count("\n") + 1
    physical, out = first, {}
    for k in range(count):
        if k:   # (value line k starts on the file's line after the last one's end)
            physical += 1
        if first + k != physical:
            out[first + k] = physical
        # (a line ending in an odd number of backslashes continues on the next)
        while physical <= len(lines) and \
                (len(lines[physical - 1]) - len(lines[physical - 1].rstrip("\\"))) % 2:
            physical += 1
    closing = lines[physical - 1] if physical <= len(lines) else ""
    if '"""' not in closing and "'''" not in closing:
        return None   # (the literal does not end where its lines say: not followed)
    return out or None


def _relocated(ptx: str, moved: dict[int, int], path: str) -> str:
    """The PTX with each `.loc` (and `inlined_at`) line of the Python file at `path` moved
    as `moved` says (a header's lines are its own)."""
    name = pathlib.Path(path).name
    mine = {m.group(1) for m in re.finditer(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', ptx, re.M)
            if pathlib.Path(m.group(2)).name == name}

    def line(m):
        if m.group(2) not in mine:
            return m.group(0)
        return f"{m.group(1)}{m.group(2)}{m.group(3)}" \
               f"{moved.get(int(m.group(4)), int(m.group(4)))}"
    return re.sub(r"(\.loc\s+|inlined_at\s+)(\d+)(\s+)(\d+)", line, ptx)


@dataclasses.dataclass(frozen=True)
class Unit:
    """The CUDA nvcc builds for one compile call: `text` (the string, numbered by a `#line`
    as lines of the Python file, wrapped in `extern "C"` where pycuda wraps it), and where
    the string's first line is in `text` (`offset`: the lines before it) and in the file
    (`first`; None: the string is assembled from several texts, numbered from its call)."""

    text: str
    offset: int
    first: int | None
    string: str


def unit_of(key: str, found: Program) -> Unit:
    """The CUDA nvcc builds for kernel `key`'s compile call."""
    _, index = found.kernels[key]
    source = found.sources[index]
    if source.text is None:
        raise KernelError(f"kernel '{key}': its source is computed at run time (not a "
                          "literal, nor text formatted from values the file states)",
                          loc=source.loc)
    first = source.text.line
    text = f"#line {first if first is not None else source.loc.line}\n{source.text}\n"
    if source.extern_c:   # as pycuda's SourceModule compiles it
        text = f'extern "C" {{\n{text}}}\n'
    return Unit(text, 2 if source.extern_c else 1, first, str(source.text))


def build(path: str, key: str, found: Program, options=None, arch: str = "sm_90",
          flags=(), unit: str | None = None) -> pk.KernelBuild:
    """Kernel `key` of the program: nvcc's PTX of its source, lowered as launched (`unit`:
    CUDA to build instead of unit_of's, fix's change made to it)."""
    from .build import ptx_of
    from .frontend import _lower_as_built, readable
    from .lower import Launch
    from .parse import parse
    name, index = found.kernels[key]
    source = found.sources[index]
    own = unit_of(key, found)
    notes = []
    if own.first is None:
        notes.append(f"the CUDA string of {key} is assembled from several texts: its lines "
                     f"are counted from its compile call at line {source.loc.line}, not as "
                     "the file has them")
    unit = own.text if unit is None else unit
    kept = tuple(o for o in source.options if o.startswith(_KEPT_OPTIONS))
    dropped = [o for o in source.options if o not in kept]
    if dropped:
        notes.append(f"options of the compile call not given to nvcc: {' '.join(dropped)}")
    text = ptx_of(path, arch=arch, defines=getattr(options, "defines", None),
                  include_dirs=getattr(options, "include_dirs", ()), flags=(*flags, *kept),
                  text=unit)
    moved = _continued_lines(path, source.text) if own.first is not None else None
    if moved:   # (nvcc counted the string's lines; the file has more where they continue)
        text = _relocated(text, moved, path)
    module = parse(text)
    symbol = _entry(module, name, readable)
    launch = found.launches.get(key, ())
    launch = launch[0] if launch else None
    given = pk.given_values(options)
    params = module.entries[symbol].params
    names = _parameter_names(str(source.text), name, len(params))
    lengths, defaults = {}, {}
    for index, param in enumerate(names):
        value = launch.args[index] if launch is not None and index < len(launch.args) else None
        written = launch.written[index] if launch is not None and index < len(launch.written) \
            else param
        value = given.get(written, given.get(param, value)) if value is None else value
        if isinstance(value, hp.Array):
            lengths[param] = value.size * _itemsize(value.dtype)
        elif isinstance(value, (int, float, hp.Scalar)) and not isinstance(value, bool):
            defaults[param] = hp._number(value)
        # (an array whose length the program does not say: lower's default, which the
        # command's note names)
    grid, block, smem = _configuration(key, launch, options)
    built = Launch(grid=grid, block=block, dynamic_smem=smem, names=tuple(names),
                   lengths=lengths, defaults=defaults,
                   loc=launch.loc if launch is not None else source.loc)
    lowered = _lower_as_built(module, text, symbol, built, name, arch, (*flags, *kept))
    lowered = dataclasses.replace(lowered, notes=lowered.notes + tuple(notes))
    return pk.KernelBuild(lowered, text, symbol, tuple(names))


def _entry(module, key: str, readable) -> str:
    """The PTX entry of kernel `key`: its own name (`extern "C"`), else the one entry whose
    C++ name is it (a template's instance by its written name)."""
    if key in module.entries:
        return key
    pretty = readable(list(module.entries))
    bare = lambda text: "".join(text.split())   # noqa: E731 (spacing is not meaning)
    hits = [s for s, p in pretty.items() if bare(p) == bare(key) or
            p.split("<")[0].split("::")[-1] == key]
    if len(hits) != 1:
        raise KernelError(f"kernel '{key}': nvcc's build of its source has "
                          f"{'no such entry' if not hits else f'{len(hits)} entries of it'} "
                          f"(entries: {', '.join(pretty.values()) or 'none'})")
    return hits[0]


def _parameter_names(text: str, kernel: str, count: int) -> list[str]:
    """The parameter names of `kernel`'s definition in the CUDA text (tree-sitter reads the
    declaration; nothing is compiled), or `param_0`, ... where they cannot be read."""
    from ..cuda.parse import parser, walk
    tree = parser().parse(text.encode())
    for node in walk(tree.root_node):
        if node.type != "function_declarator":
            continue
        declared = node.child_by_field_name("declarator")
        if declared is None or declared.text.decode("utf-8", "replace") != kernel:
            continue
        names = []
        for p in node.child_by_field_name("parameters").named_children:
            ids = [n for n in walk(p) if n.type == "identifier"]
            names.append(ids[-1].text.decode() if ids and p.child_by_field_name(
                "declarator") is not None else None)
        if len(names) == count and all(names) and len(set(names)) == count:
            return names
    return [f"param_{n}" for n in range(count)]


def _itemsize(dtype: str) -> int:
    import numpy as np
    return np.dtype("float16" if dtype == "bfloat16" else dtype).itemsize


def _configuration(key: str, launch, options) -> tuple:
    """(grid, block, dynamic shared bytes): the command line's --launch-*, else the
    launch's."""
    def dims(value, what: str, written: str = "") -> tuple:
        if isinstance(value, hp.Scalar):
            value = value.value
        if isinstance(value, int) and not isinstance(value, bool):
            value = (value,)
        if isinstance(value, tuple):
            value = tuple(v.value if isinstance(v, hp.Scalar) else v for v in value)
        if isinstance(value, tuple) and 1 <= len(value) <= 3 and all(
                isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in value):
            return value
        raise KernelError(f"kernel '{key}': its {what} is {written or 'not stated'}, which "
                          f"the program computes at run time: give it with --launch-{what} "
                          "X[,Y,Z], or the value of a name it is computed from with --host "
                          "NAME=VALUE", loc=launch.loc if launch else None)

    def given(text: str, what: str) -> tuple:
        try:
            return dims(tuple(int(p) for p in text.split(",")), what)
        except ValueError:
            raise KernelError(f"--launch-{what} {text}: give whole numbers, X[,Y,Z]") from None

    has = options is not None and options.grid and options.block
    if launch is None and not has:
        raise KernelError(f"kernel '{key}': the program never launches it: give its launch "
                          "with --launch-grid and --launch-block")
    grid = given(options.grid, "grid") if options is not None and options.grid else \
        dims(launch.grid, "grid", launch.config[0])
    block = given(options.block, "block") if options is not None and options.block else \
        dims(launch.block, "block", launch.config[1])
    if options is not None and options.smem:
        if not re.fullmatch(r"\d+", options.smem):
            raise KernelError(f"--launch-smem {options.smem}: give a whole number of bytes")
        return grid, block, int(options.smem)
    if launch is None:
        return grid, block, 0
    smem = launch.smem.value if isinstance(launch.smem, hp.Scalar) else launch.smem
    if not isinstance(smem, int) or isinstance(smem, bool) or smem < 0:
        raise KernelError(f"kernel '{key}': its dynamic shared memory is "
                          f"{launch.config[2]}, which the program computes at run time: give "
                          "it with --launch-smem BYTES", loc=launch.loc)
    return grid, block, smem

"""CUDA held in a Python file's strings: `cupy.RawKernel(code, "name")`, `cupy.RawModule(
code=...)`, pycuda's `SourceModule(code)`, cuda.core's `Program(code, "c++")`.

The Python file is read with `ast`, never imported or run: a program that compiles CUDA at
run time is the user's program, not a kernels file. The source string is found as a
literal argument or a module-level name bound to one; its lines are reported as the lines
of the Python file they stand on.
"""
from __future__ import annotations

import ast
import pathlib
from dataclasses import dataclass

from kernels_ir import SourceLoc

from ..loader import CUDA_COMPILERS, callee_name, parse_python
from .errors import CudaImportError


@dataclass(frozen=True)
class Embedded:
    """One CUDA source string of a Python file: its text and the line its text starts on
    (a triple-quoted string's text starts on the line of its opening quotes)."""

    text: str
    line: int


def cuda_sources(path: str) -> list[Embedded]:
    """The CUDA source strings a Python file compiles, in the order of the calls."""
    file = pathlib.Path(path)
    try:
        tree = parse_python(file.read_bytes(), str(file))
    except SyntaxError as err:
        raise CudaImportError(f"the Python file does not parse: {err.msg}",
                              loc=SourceLoc(str(file), err.lineno or 0)) from None
    strings = {}  # module-level `name = "..."`
    for n in tree.body:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and \
                isinstance(n.value.value, str):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    strings[t.id] = n.value
    out, seen = [], set()
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        spec = CUDA_COMPILERS.get(callee_name(call))
        if spec is None:
            continue
        position, keyword = spec
        arg = next((k.value for k in call.keywords if k.arg == keyword), None)
        if arg is None and len(call.args) > position:
            arg = call.args[position]
        if isinstance(arg, ast.Name) and arg.id in strings:
            arg = strings[arg.id]
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            raise CudaImportError(f"{callee_name(call)}(...): its source is not a string literal "
                                  "or a module-level name bound to one (an f-string or a "
                                  "computed string is not read)",
                                  loc=SourceLoc(str(file), call.lineno, call.col_offset + 1))
        if id(arg) not in seen:
            seen.add(id(arg))
            out.append(Embedded(arg.value, arg.lineno))
    if not out:
        raise CudaImportError(f"{file.name} compiles no CUDA string smemsim can find")
    return out


# ---------------------------------------------------------------- the launches in Python

@dataclass(frozen=True)
class PyLaunch:
    """A launch a Python file makes of a kernel compiled from a string, read from its syntax
    tree: `k((gx, gy), (bx, by), (a, b, n), shared_mem=S)` (cupy), `f(a, n, block=(..),
    grid=(..), shared=S)` (pycuda). Dimensions and arguments are what could be read as
    numbers (literals, module-level constants, + - * // % of them); None where not."""

    grid: tuple | None
    block: tuple | None
    smem: int | None
    args: tuple                 # per kernel argument: a number, or None (an array, ...)
    loc: SourceLoc
    lengths: tuple = ()         # per kernel argument: the elements of the array passed,
    #                             where its allocation says (`cp.zeros(n * n, ...)`), or None


_NUMPY_SCALARS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64", "intc", "uintc", "int_", "float_"}


def python_launches(path: str) -> dict[str, list[PyLaunch]]:
    """kernel name -> its launches in a Python file that compiles CUDA from strings (the
    first of each kernel is what the import uses)."""
    file = pathlib.Path(path)
    tree = parse_python(file.read_bytes(), str(file))
    numbers = _module_numbers(tree)
    kernels: dict[str, str] = {}  # a Python name bound to a compiled kernel -> kernel name
    modules = set()               # names bound to RawModule / SourceModule objects
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)):
            continue
        targets = [t.id for t in n.targets if isinstance(t, ast.Name)]
        call, name = n.value, callee_name(n.value)
        if name == "RawKernel":
            kname = _string_arg(call, 1, "name")
            if kname:
                kernels.update({t: kname for t in targets})
        elif name in ("RawModule", "SourceModule"):
            modules.update(targets)
        elif name == "get_function" and isinstance(call.func, ast.Attribute) and \
                isinstance(call.func.value, ast.Name) and call.func.value.id in modules:
            kname = _string_arg(call, 0, "name")
            if kname:
                kernels.update({t: kname for t in targets})
    sizes = _allocations(tree, numbers)
    out: dict[str, list[PyLaunch]] = {}
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        if not (isinstance(call.func, ast.Name) and call.func.id in kernels):
            continue
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        value = lambda node: _number(node, numbers)  # noqa: E731
        if "block" in kw or "grid" in kw:  # pycuda: f(args..., block=(..), grid=(..))
            grid, block = _dims(kw.get("grid"), numbers), _dims(kw.get("block"), numbers)
            smem = value(kw["shared"]) if "shared" in kw else 0
            passed = list(call.args)
            args = tuple(value(a) for a in passed)
        elif len(call.args) >= 3:  # cupy: k(grid, block, args, shared_mem=0)
            grid, block = _dims(call.args[0], numbers), _dims(call.args[1], numbers)
            smem = value(kw["shared_mem"]) if "shared_mem" in kw else \
                value(call.args[3]) if len(call.args) > 3 else 0
            packed = call.args[2]
            passed = list(packed.elts) if isinstance(packed, (ast.Tuple, ast.List)) else []
            args = tuple(value(a) for a in passed)
        else:
            continue
        lengths = tuple(sizes.get(a.id) if isinstance(a, ast.Name) else None for a in passed)
        out.setdefault(kernels[call.func.id], []).append(PyLaunch(
            grid, block, smem, args, SourceLoc(str(file), call.lineno, call.col_offset + 1),
            lengths))
    return out


_ALLOCATORS = {"zeros", "empty", "ones", "full", "arange"}


def _allocations(tree, numbers) -> dict[str, int]:
    """Names bound once to an array whose size the call says: `x = cp.zeros(n * n, ...)`,
    `cp.empty((n, n))`, `cp.arange(n)` (elements); a name bound twice is not known."""
    out: dict = {}
    bound: dict = {}
    for n in ast.walk(tree):
        if not isinstance(n, ast.Assign):
            continue
        for t in n.targets:
            if isinstance(t, ast.Name):
                bound[t.id] = bound.get(t.id, 0) + 1
                if isinstance(n.value, ast.Call) and callee_name(n.value) in _ALLOCATORS and \
                        n.value.args:
                    shape = n.value.args[0]
                    dims = [_number(d, numbers) for d in (
                        shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape])]
                    if dims and all(isinstance(d, int) and d >= 0 for d in dims):
                        size = 1
                        for d in dims:
                            size *= d
                        out[t.id] = size
    return {k: v for k, v in out.items() if bound.get(k) == 1}


def _module_numbers(tree) -> dict[str, int | float]:
    """Module-level `NAME = number` (or an expression of earlier ones), in order."""
    numbers: dict = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name):
            v = _number(n.value, numbers)
            if v is not None:
                numbers[n.targets[0].id] = v
            else:
                numbers.pop(n.targets[0].id, None)
    return numbers


def _string_arg(call, position: int, keyword: str) -> str | None:
    arg = next((k.value for k in call.keywords if k.arg == keyword), None)
    if arg is None and len(call.args) > position:
        arg = call.args[position]
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def _dims(node, numbers) -> tuple | None:
    """A launch dimension: a number or a tuple of 1-3 numbers; None if any is unknown."""
    if node is None:
        return None
    parts = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    values = [_number(p, numbers) for p in parts]
    if not 1 <= len(values) <= 3 or any(not isinstance(v, int) for v in values):
        return None
    return tuple(values)


# how deep an expression `_number` reads (`1 + 1 + ... + 1` of more terms is not a number
# it knows: never a RecursionError, wherever it is called from)
MAX_NUMBER_DEPTH = 100

_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
        ast.Mod: lambda a, b: a % b}


def _number(node, numbers, depth: int = 0) -> int | float | None:
    """The value of a literal, a known constant, `np.int32(x)`, `-x` or `a op b` for
    + - * // %; None for anything else (never evaluated as Python), and for an expression
    nested more than MAX_NUMBER_DEPTH deep."""
    if depth > MAX_NUMBER_DEPTH:
        return None
    depth += 1
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
            not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return numbers.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _number(node.operand, numbers, depth)
        return None if v is None else -v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = _number(node.left, numbers, depth), _number(node.right, numbers, depth)
        if a is None or b is None or (type(node.op) in (ast.FloorDiv, ast.Mod) and b == 0):
            return None
        result = _OPS[type(node.op)](a, b)
        return result if abs(result) < 1 << 64 else None
    if isinstance(node, ast.Call) and callee_name(node) in _NUMPY_SCALARS and \
            len(node.args) == 1 and not node.keywords:
        return _number(node.args[0], numbers, depth)
    return None

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

from ..loader import CUDA_COMPILERS, callee_name
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
        tree = ast.parse(file.read_bytes(), filename=str(file))
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

"""fix's changes to a numba kernel's shared arrays, written into the user's Python file for
fix to build with numba and count (smemsim.search.fix_built), as a `.cu` is patched:

- a padding lengthens the last extent of `cuda.shared.array((TILE, TILE), float32)`, written
  as a literal, `(TILE, 33)`: numba types a shared array's shape only from literals and
  the module's constants (`TILE + 1` is refused with "No implementation of function");
- a swizzle (CuTe's Swizzle<B, M, S> of the element offsets) rewrites each subscript of
  the array in the kernel: a 2-D array's rows `2^(M+S)` elements long (or a multiple)
  keep their row index and XOR the column, `tile[r, c]` -> `tile[r, c ^ ((r & 31) << 0)]`;
  a 1-D array's index is swizzled whole.

The file is read, never run (ast); the values of a declaration's extents are the module's
constants, as the numba frontend reads them. An array the kernel uses other than by
subscripts (passed to a device function, its `.shape` read) is not swizzled: the refusal
names the line.
"""
from __future__ import annotations

import ast
import pathlib

from kernels_ir import KernelError

from ..cuda.patch import LayoutChange, LayoutPatch, SharedDeclaration


def _kernel(path: str, kernel: str) -> tuple[ast.FunctionDef, dict]:
    """The kernel's `def` and the module's names where it is defined."""
    from .numba_frontend import numba_kernels
    found = numba_kernels(path).get(kernel)
    if found is None:
        raise KernelError(f"{path}: no numba kernel '{kernel}'")
    return found.node, found.names


def _declaration_call(function: ast.FunctionDef, name: str, path: str) -> ast.Call:
    """The `cuda.shared.array(shape, dtype)` call bound to `name` in the kernel."""
    calls = [n.value for n in ast.walk(function)
             if isinstance(n, ast.Assign) and len(n.targets) == 1 and
             isinstance(n.targets[0], ast.Name) and n.targets[0].id == name and
             isinstance(n.value, ast.Call) and
             ast.unparse(n.value.func).endswith("shared.array")]
    if len(calls) != 1:
        raise KernelError(f"{path}: {len(calls) or 'no'} `{name} = cuda.shared.array(...)` "
                          f"in kernel '{function.name}' (one is patched)")
    return calls[0]


def _shape_nodes(call: ast.Call) -> list[ast.expr]:
    shape = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "shape"), None)
    if shape is None:
        return []
    return list(shape.elts) if isinstance(shape, ast.Tuple) else [shape]


def shared_declaration(path: str, kernel: str, name: str) -> SharedDeclaration:
    """The array `name` of the numba kernel as `cuda.shared.array` declares it."""
    function, _ = _kernel(path, kernel)
    call = _declaration_call(function, name, path)
    dtype = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "dtype"), None)
    return SharedDeclaration(name, ast.unparse(dtype) if dtype is not None else "",
                             tuple(ast.unparse(n) for n in _shape_nodes(call)), call.lineno)


def layout_patch(path: str, kernel: str, changes: list[LayoutChange]) -> LayoutPatch:
    """The Python file with each change made (one per array)."""
    from .host_python import Scope
    text = pathlib.Path(path).read_bytes().decode("utf-8")   # (ast's columns are its bytes)
    function, names = _kernel(path, kernel)
    edits: list[tuple[ast.AST, str]] = []
    said = []
    for change in changes:
        call = _declaration_call(function, change.array, path)
        shape = _shape_nodes(call)
        values = []
        for node in shape:
            value = Scope(names).value(node)
            if not isinstance(value, int) or isinstance(value, bool):
                raise KernelError(f"{path}:{node.lineno}: the extent `{ast.unparse(node)}` of "
                                  f"'{change.array}' is no constant the file states")
            values.append(value)
        if change.kind == "pad":
            if len(shape) < 2:
                raise KernelError(f"{path}:{call.lineno}: '{change.array}' has one extent: "
                                  "its rows are not the declaration's (no padding)")
            last = shape[-1]
            new = str(values[-1] + change.pad)
            edits.append((last, new))
            said.append(f"line {last.lineno}: {ast.unparse(last)} -> {new} "
                        f"({ast.unparse(last)} + {change.pad}, as a literal: numba takes a "
                        "shared array's extents as literals or the module's constants)")
        elif change.kind == "swizzle":
            edits += _swizzled(function, change, shape, values, path)
            b, m, s = change.swizzle
            said.append(f"{change.array}: every subscript swizzled (Swizzle<{b},{m},{s}>)")
        else:
            raise KernelError(f"{path}: a {change.kind} of '{change.array}' is not written "
                              "into a numba kernel")
    return LayoutPatch(path, text, _replaced(text, edits), tuple(said))


def _swizzled(function: ast.FunctionDef, change: LayoutChange, shape: list, values: list,
              path: str) -> list[tuple[ast.AST, str]]:
    """The subscripts of the array in the kernel, each rewritten to the swizzle."""
    b, m, s = change.swizzle
    mask, span = (1 << b) - 1, 1 << (m + s)
    name = change.array
    if len(shape) > 2:
        raise KernelError(f"{path}: '{name}' has {len(shape)} extents: swizzles are written "
                          "for 1-D and 2-D arrays")
    if len(shape) == 2 and values[-1] % span:
        raise KernelError(f"{path}: the rows of '{name}' ({values[-1]} elements) are no "
                          f"multiple of the swizzle's {span}: not written")
    parents = {id(c): p for p in ast.walk(function) for c in ast.iter_child_nodes(p)}
    out = []
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.Assign) and node in parent.targets:
            continue   # (the declaration)
        if not (isinstance(parent, ast.Subscript) and parent.value is node):
            raise KernelError(f"{path}:{node.lineno}: '{name}' is used other than by a "
                              "subscript (the swizzle is written into subscripts)")
        index = parent.slice
        if len(shape) == 1:
            i = _atom(index)
            part = f"({i} >> {m + s}) & {mask}"
            if isinstance(index, ast.Constant) and isinstance(index.value, int):
                # (a constant element, `s[0]`: its place, not the swizzle's formula)
                k = index.value
                out.append((index, str(k ^ (((k >> (m + s)) & mask) << m))))
                continue
            out.append((index, f"{i} ^ (({part}) << {m})" if m else f"{i} ^ ({part})"))
            continue
        if isinstance(index, ast.Tuple) and len(index.elts) == 2:   # tile[r, c]
            row, column = index.elts
        else:                                                      # tile[r][c]
            outer = parents.get(id(parent))
            if not (isinstance(outer, ast.Subscript) and outer.value is parent):
                raise KernelError(f"{path}:{node.lineno}: '{name}[{ast.unparse(index)}]' is "
                                  "a row of the array (the swizzle is written into subscripts "
                                  "of an element)")
            row, column = index, outer.slice
        if all(isinstance(x, ast.Constant) and isinstance(x.value, int)
               for x in (row, column)):   # (a constant element: its place)
            k = row.value * values[-1] + column.value
            out.append((column, str(column.value ^ (((k >> (m + s)) & mask) << m))))
            continue
        r, c = _atom(row), _atom(column)
        # (rows a whole number of the swizzle's spans: the bits it XORs are the column's)
        flat = r if values[-1] == span else f"(({r} * {values[-1]} + {c}) >> {m + s})"
        shift = f" << {m}" if m else ""
        out.append((column, f"{c} ^ ({flat} & {mask}){shift}" if not shift else
                    f"{c} ^ (({flat} & {mask}){shift})"))
    return out


def _atom(node: ast.expr) -> str:
    """An expression's text, in parentheses unless it is one operand already."""
    text = ast.unparse(node)
    return text if isinstance(node, (ast.Name, ast.Attribute, ast.Constant, ast.Subscript,
                                     ast.Call)) else f"({text})"


def _replaced(text: str, edits: list[tuple[ast.AST, str]]) -> str:
    """`text` with each node's source replaced (ast's columns are UTF-8 bytes)."""
    lines = text.encode().split(b"\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    data = text.encode()
    spans = sorted(((starts[n.lineno - 1] + n.col_offset,
                     starts[n.end_lineno - 1] + n.end_col_offset, new) for n, new in edits),
                   reverse=True)
    for begin, end, new in spans:
        data = data[:begin] + new.encode() + data[end:]
    return data.decode()

"""A kernel written as a Python function (numba.cuda, Triton), read and never run: the
values a user states for what the file computes at run time (`--host`), the names the
function reads and what the file binds them to, and the function made from its own `def`
statement alone for the DSL's compiler.

What runs: nothing of the file. The function's `def` is compiled (its decorators dropped,
its defaults checked to be literals, its annotations dropped or looked up when each is a
dotted name) and the function object made from the compiled code, without executing even
the `def` statement; its free names are bound to numbers,
tuples, numpy scalars, the objects of the modules a DSL allows (importing an installed
package, never the user's code), and other kernels of the file made the same way.
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import importlib

from kernels_ir import Kernel, KernelError, SourceLoc

from . import host_python as hp


@dataclasses.dataclass(frozen=True)
class KernelBuild:
    """One kernel as its DSL builds it: the IR, the PTX, its entry, and the IR's name of
    each of the entry's parameters in order."""

    kernel: Kernel
    ptx: str
    symbol: str
    params: tuple


def builders(build, path: str, kernels: dict, entries: dict, wanted: str | None,
             what: str, options, arch: str) -> dict:
    """key -> a function that builds that kernel (`build(path, key, kernels, options,
    arch).kernel`), for each of `entries`, or the one `--kernel` names (`what`: the DSL's
    kernels, as a message names them)."""
    if wanted is not None:
        if wanted not in entries:
            raise KernelError(f"{path} has no {what} '{wanted}' (it has: "
                              f"{', '.join(entries)}): name one as listed with --kernel")
        entries = {wanted: entries[wanted]}
    return {key: functools.partial(_built, build, path, key, kernels, options, arch)
            for key in entries}


def _built(build, *args) -> Kernel:
    return build(*args).kernel


def syntax_tree(file) -> ast.Module:
    """A Python file's syntax tree (loader.parse_python: never run), or a located error."""
    from ..loader import parse_python
    try:
        return parse_python(file.read_bytes(), str(file))
    except SyntaxError as err:
        raise KernelError(f"the Python file does not parse: {err.msg}",
                          loc=SourceLoc(str(file), err.lineno or 0)) from None
    except OSError as err:
        raise KernelError(f"{file}: {err.strerror}") from None


def who(kernel) -> str:
    """`kernel 'name': `, the start of a message about a kernel (or a name)."""
    name = kernel if isinstance(kernel, str) else getattr(kernel, "name", "")
    return f"kernel '{name}': " if name else ""


def given_values(options, kernel=None) -> dict:
    """The command line's --host values (host_value), by name."""
    return {name: host_value(name, text, kernel)
            for name, text in (getattr(options, "hosts", None) or {}).items()}


def host_value(name: str, text: str, kernel=None):
    """A --host value: a number, a tuple (`4,4`), an array (`float32[64,64]`, `...F` in
    Fortran order), or a quoted string (`'"leaky_relu"'`: a Triton constant's)."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        try:
            value = ast.literal_eval(t)
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, str):
            return value
    head, bracket, rest = t.partition("[")
    if bracket:
        dims, _, order = rest.partition("]")
        dtype = hp.dtype_name(head.strip())
        try:
            shape = tuple(int(d) for d in dims.split(","))
        except ValueError:
            shape = None
        if dtype is None or not shape or any(d < 0 for d in shape) or \
                order.strip() not in ("", "C", "F"):
            raise KernelError(f"{who(kernel)}--host {name}={text}: an array is "
                              "DTYPE[D0,D1,...] with a numpy dtype (float32[64,64]), "
                              "optionally followed by F for Fortran order")
        return hp.Array(dtype, shape, order.strip() or "C")
    parts = [p for p in t.strip("()").split(",") if p.strip()]
    try:
        values = tuple(ast.literal_eval(p.strip()) for p in parts)
    except (ValueError, SyntaxError):
        values = ()
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                             for v in values):
        raise KernelError(f"{who(kernel)}--host {name}={text}: a number, numbers "
                          "separated by commas (a tuple), an array DTYPE[D0,...], or a "
                          "quoted string")
    return values[0] if len(values) == 1 and "," not in t else values


def free_names(node: ast.FunctionDef) -> list[str]:
    """The names a function reads that it does not bind (its globals and closure names), in
    order of first use: of its body, defaults and annotations (its decorators are not the
    kernel's: an autotuner's configurations are read where it is launched)."""
    import builtins
    bound = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
    parts = [*node.body, *node.args.defaults,
             *(a.annotation for a in node.args.args if a.annotation is not None)]
    nodes = [n for part in parts for n in ast.walk(part)]
    for n in nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            bound.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            bound.add(n.name)
    out = []
    for n in nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound and \
                not hasattr(builtins, n.id) and n.id not in out:
            out.append(n.id)
    return out


def bindings(kernel, callees: dict, names: dict, modules: tuple, seen: set) -> dict:
    """name -> what each free name of `kernel` (and of the `callees` it calls: name ->
    kernel, made the same way) is bound to where it is launched: ("callee", line), a
    host_python.Module of one of `modules`, a number, a tuple of numbers, a numpy scalar;
    any other is a question (`--host NAME=VALUE`), located at its first use."""
    out = {}
    for name in free_names(kernel.node):
        value = names.get(name)
        callee = callees.get(name)
        if callee is not None:
            if name not in seen:
                seen.add(name)
                inner = bindings(callee, callees, {**callee.names, **names}, modules, seen)
                out.update({k: v for k, v in inner.items() if k not in out})
            out[name] = ("callee", callee.node.lineno)
        elif isinstance(value, hp.Module):
            if value.path.split(".")[0] not in modules:
                raise KernelError(f"{who(kernel)}it reads {name}, bound to {value.path}: "
                                  f"smemsim binds only {', '.join(modules)} for a kernel")
            out[name] = value
        elif isinstance(value, (int, float, bool, str, hp.Scalar)) or (
                isinstance(value, tuple) and all(isinstance(v, (int, float)) for v in value)):
            out[name] = value
        else:
            raise KernelError(f"{who(kernel)}it reads {name}, which the file computes at run "
                              f"time: give its value with --host {name}=VALUE",
                              loc=SourceLoc(kernel.path, first_use(kernel.node, name)))
    return out


def first_use(node, name: str) -> int:
    """The first line of `node` that names `name`."""
    lines = [n.lineno for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]
    return min(lines) if lines else node.lineno


def import_object(path: str):
    """The object a host_python.Module names (`numba.float32`, `numpy`, `triton.language`):
    of an installed package."""
    parts = path.split(".")
    for n in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:n]))
        except ImportError:
            continue
        for attr in parts[n:]:
            obj = getattr(obj, attr)
        return obj
    raise KernelError(f"{path}: not importable here")


def namespace_of(bound: dict, make_callee) -> dict:
    """The globals a kernel's function is made in: each bound name's object
    (`make_callee(name)` for another kernel of the file)."""
    import numpy as np
    namespace: dict = {"__builtins__": __builtins__}
    for name, value in bound.items():
        if isinstance(value, hp.Module):
            namespace[name] = import_object(value.path)
        elif isinstance(value, hp.Scalar):
            namespace[name] = np.dtype(value.dtype).type(value.value)
        elif isinstance(value, tuple) and value and value[0] == "callee":
            namespace[name] = make_callee(name)
        else:
            namespace[name] = value
    return namespace


def make_function(kernel, namespace: dict, keep_annotations: bool = False):
    """The kernel's function from its `def` alone, in `namespace`, its lines those of the
    user's file: its body compiled, never run, and the function object made from that code
    (nothing of the file executes, not even the `def` statement). Decorators are dropped;
    defaults must be literals; annotations are dropped, or kept where each is a dotted name
    of the namespace's (`tl.constexpr`), looked up, never evaluated."""
    import types
    node = copy.deepcopy(kernel.node)
    node.decorator_list = []
    node.returns = None
    annotations = {}
    for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs:
        if keep_annotations and a.annotation is not None:
            annotations[a.arg] = _dotted_value(kernel, a.arg, a.annotation, namespace)
        a.annotation = None
    for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
        if not isinstance(d, ast.Constant):
            raise KernelError(f"{who(kernel)}a default value that is not a literal is not "
                              "read", loc=SourceLoc(kernel.path, d.lineno))
    module = compile(ast.Module(body=[node], type_ignores=[]), kernel.path, "exec")
    code = next(c for c in module.co_consts
                if isinstance(c, types.CodeType) and c.co_name == kernel.name)
    function = types.FunctionType(code, namespace, kernel.name,
                                  tuple(d.value for d in node.args.defaults) or None)
    function.__kwdefaults__ = {a.arg: d.value for a, d in zip(node.args.kwonlyargs,
                                                              node.args.kw_defaults)
                               if d is not None} or None
    function.__annotations__ = annotations
    return function


def _dotted_value(kernel, arg: str, annotation, namespace: dict):
    """The object an annotation names (`tl.constexpr`), by attribute lookups in
    `namespace`; anything but a dotted name of it is refused."""
    parts = []
    while isinstance(annotation, ast.Attribute):
        parts.insert(0, annotation.attr)
        annotation = annotation.value
    if not isinstance(annotation, ast.Name) or annotation.id not in namespace:
        raise KernelError(f"{who(kernel)}the annotation of {arg} is not a name of the DSL's "
                          "(`tl.constexpr`): not read", loc=SourceLoc(kernel.path,
                                                                      kernel.node.lineno))
    value = namespace[annotation.id]
    for attr in parts:
        value = getattr(value, attr)
    return value

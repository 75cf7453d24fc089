"""numba.cuda kernels of a Python file, through numba's own compiler: the PTX numba makes
of each `@cuda.jit` function, lowered (smemsim.frontends.ptx.lower) with the merges ptxas makes.

The file is read, never run. Its syntax tree gives the kernels, the launches
(`kernel[grid, block](args)`) and the values the host code gives them
(smemsim.frontends.ptx.host_python): a kernel's argument types are its decorator's signature, else
those of the arrays and numbers its first launch passes. The function is then made from its
own definition alone (compiled, never run: smemsim.frontends.ptx.python_kernel; decorators and
annotations dropped, defaults literals), with the names it reads bound to what the file
binds them to where it is launched (numbers, tuples, numba/numpy/math, other `@cuda.jit`
functions), and compiled by `numba.cuda.compile_ptx` with line information: every site is at
its line of the Python file. What the file computes at run time is asked for
(`--host NAME=VALUE`: a number, a tuple `4,4`, an array `float32[64,64]`).

An array argument is numba's 5 + 2·ndim parameters: meminfo, parent, nitems, itemsize,
data, shape[ndim], strides[ndim]; the IR names them `A_nitems`, `A`, `A_shape_0`,
`A_strides_0`, ... with the values the array's shape says (C or Fortran order).
"""
from __future__ import annotations

import ast
import contextlib
import dataclasses
import hashlib
import math
import pathlib
import re
import threading

from kernels_ir import KernelError, SourceLoc

from . import host_python as hp
from . import python_kernel as pk

# the modules whose objects a kernel may read: bound for real (installed packages, not code
# of the user's)
_MODULES = ("numba", "numpy", "math", "cmath", "operator")
CACHE_FORMAT = 1


@dataclasses.dataclass(frozen=True)
class NumbaLaunch:
    """A launch `kernel[grid, block(, stream, smem)](args)` as the file states it: each value
    as host_python reads it (None: not known), and the argument expressions as written."""

    grid: object
    block: object
    smem: object
    args: tuple
    written: tuple
    config: tuple        # grid, block and shared bytes as written
    loc: SourceLoc
    names: dict          # the launch's scope: name -> value


@dataclasses.dataclass(frozen=True)
class NumbaKernel:
    """A `@cuda.jit` function of the file: its definition, its decorator's arguments, the
    names bound where it is defined, and its launches."""

    name: str
    node: ast.FunctionDef
    decorator: ast.AST
    device: bool
    names: dict
    launches: tuple
    path: str = ""


def is_numba(tree) -> bool:
    """Whether a parsed Python file defines a numba.cuda kernel (`@cuda.jit`, `@jit` imported
    from numba.cuda, `@numba.cuda.jit`, with or without arguments)."""
    return any(_jit(d) is not None for n in ast.walk(tree)
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               for d in n.decorator_list)


def _jit(decorator) -> tuple | None:
    """(the decorator's call or None, whether it says device=True) if `decorator` is numba's
    cuda.jit, else None."""
    call = decorator if isinstance(decorator, ast.Call) else None
    f = call.func if call is not None else decorator
    text = ast.unparse(f)
    if text not in ("cuda.jit", "numba.cuda.jit", "jit", "nb.cuda.jit"):
        return None
    device = call is not None and any(
        k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords)
    return call, device


def numba_kernels(path: str) -> dict[str, NumbaKernel]:
    """name -> each `@cuda.jit` function of the file (device functions included), in order
    (a name defined twice: the second is `name@LINE`)."""
    file = pathlib.Path(path)
    tree = pk.syntax_tree(file)
    found: dict[str, NumbaKernel] = {}
    launches: dict[str, list] = {}
    jit_from_numba = _imports_jit(tree)

    def visit(statement, scope: hp.Scope) -> None:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in statement.decorator_list:
                hit = _jit(d)
                if hit is None or (ast.unparse(hit[0].func if hit[0] else d) == "jit" and
                                   not jit_from_numba):
                    continue
                key = statement.name if statement.name not in found else \
                    f"{statement.name}@{statement.lineno}"
                found[key] = NumbaKernel(statement.name, statement, d, hit[1],
                                         dict(scope.names), (), str(file))
        for call in _calls(statement):
            launch = _launch(call, scope, str(file))
            if launch is not None:
                launches.setdefault(call.func.value.id, []).append(launch)

    hp.Scope().run(tree.body, visit)
    return {key: dataclasses.replace(k, launches=tuple(launches.get(k.name, ())))
            for key, k in found.items()}


def _imports_jit(tree) -> bool:
    return any(isinstance(n, ast.ImportFrom) and n.module == "numba.cuda" and
               any(a.name == "jit" and not a.asname for a in n.names) for n in ast.walk(tree))


def _calls(statement):
    """The calls of one simple statement (a compound statement's own are in its bodies,
    which the scope visits)."""
    if isinstance(statement, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign,
                              ast.Return)):
        return [n for n in ast.walk(statement) if isinstance(n, ast.Call)]
    return []


def _launch(call: ast.Call, scope: hp.Scope, path: str) -> NumbaLaunch | None:
    """`k[grid, block](...)` as a launch, or None for any other call."""
    f = call.func
    if not (isinstance(f, ast.Subscript) and isinstance(f.value, ast.Name)):
        return None
    config = f.slice.elts if isinstance(f.slice, ast.Tuple) else [f.slice]
    if not 2 <= len(config) <= 4 or call.keywords or \
            any(isinstance(a, ast.Starred) for a in call.args):
        return None
    value = scope.value
    smem = value(config[3]) if len(config) == 4 else 0
    return NumbaLaunch(value(config[0]), value(config[1]), smem,
                       tuple(value(a) for a in call.args),
                       tuple(ast.unparse(a) for a in call.args),
                       tuple(ast.unparse(c) for c in config[:2]) +
                       (ast.unparse(config[3]) if len(config) == 4 else "0",),
                       SourceLoc(path, call.lineno, call.col_offset + 1), dict(scope.names))


# ------------------------------------------------------------------ the kernels as IR

def import_numba(path: str, options=None, wanted: str | None = None, arch: str = "sm_90",
                 flags=()) -> dict:
    """key -> a function that builds that kernel from numba's PTX of it."""
    kernels = numba_kernels(path)
    entries = {k: v for k, v in kernels.items() if not v.device}
    if not entries:
        raise KernelError(f"{path} has no numba.cuda kernel (`@cuda.jit` function)")
    return pk.builders(build, path, kernels, entries, wanted, "numba kernel", options, arch)


def build(path: str, key: str, kernels: dict, options=None, arch: str = "sm_90"
          ) -> pk.KernelBuild:
    """Kernel `key` of numba_kernels(path): numba's PTX of it, lowered as launched."""
    from .frontend import _lower_as_built
    from .lower import Launch
    from .parse import parse
    kernel = kernels[key]
    launch = kernel.launches[0] if kernel.launches else None
    given = pk.given_values(options, kernel)
    names = {**kernel.names, **(launch.names if launch else {}), **given}
    types, values = _arguments(kernel, launch, given)
    grid, block, smem = _configuration(kernel, launch, options, names)
    text = _shared_names(_ptx(path, kernel, kernels, types, names, arch), kernel)
    module = parse(text)
    if len(module.entries) != 1:
        raise KernelError(f"kernel '{key}': numba's PTX has {len(module.entries)} entries")
    symbol = next(iter(module.entries))
    slots, lengths, defaults, scalar_types = _parameters(kernel, types, values)
    if len(slots) != len(module.entries[symbol].params):
        raise KernelError(f"kernel '{key}': numba's PTX entry has "
                          f"{len(module.entries[symbol].params)} parameters, smemsim expects "
                          f"{len(slots)} for ({', '.join(str(t) for t in types.values())})")
    loc = launch.loc if launch is not None else SourceLoc(path, kernel.node.lineno)
    built = Launch(grid=grid, block=block, dynamic_smem=smem, names=tuple(slots),
                   lengths=lengths, defaults=defaults, types=scalar_types, loc=loc)
    lowered = _lower_as_built(module, text, symbol, built, kernel.name, arch, ())
    # a note's place names the kernel's own body as inlined at its `def` line (numba's
    # wrapper calls it there): a line of the kernel is said as the sites say it
    wrapper = re.compile(rf"^(\S+?) via {re.escape(pathlib.Path(path).name)}:"
                         rf"{kernel.node.lineno}(?=[: ])")
    lowered = dataclasses.replace(lowered, notes=tuple(wrapper.sub(r"\1", n)
                                                       for n in lowered.notes))
    return pk.KernelBuild(lowered, text, symbol, tuple(slots))


def _arguments(kernel: NumbaKernel, launch, given: dict) -> tuple[dict, dict]:
    """(Python argument name -> its numba type, name -> the value the launch passes where
    known): the types are the decorator's signature, else those of the values passed."""
    params = [a.arg for a in kernel.node.args.args]
    if kernel.node.args.vararg or kernel.node.args.kwonlyargs or kernel.node.args.kwarg:
        raise KernelError(f"kernel '{kernel.name}': *args and keyword-only arguments are not "
                          "read", loc=SourceLoc(kernel.path, kernel.node.lineno))
    call = kernel.decorator if isinstance(kernel.decorator, ast.Call) else None
    signature = call.args[0] if call is not None and call.args else None
    # (a kernel the file never launches, or launches where the reading does not follow,
    # through a function's argument: its arguments are the --host values of their names)
    values = {name: given.get(written, value) for name, value, written in
              zip(params, launch.args, launch.written)} if launch is not None else \
        {name: given[name] for name in params if name in given}
    if signature is not None:
        return dict(zip(params, _signature_types(kernel, signature, len(params)))), values
    if launch is None and len(values) < len(params):
        missing = next(p for p in params if p not in values)
        raise KernelError(f"kernel '{kernel.name}': the file never launches it where smemsim "
                          "reads (a launch through a function's argument is not followed) "
                          "and its decorator states no signature: give its arguments with "
                          f"--host ('{missing}=DTYPE[D0,D1,...]' for an array, NAME=VALUE "
                          "for a number) and its launch with --launch-grid and "
                          "--launch-block, or a signature in the decorator "
                          "(@cuda.jit('void(float32[:, ::1], int64)'))")
    out = {}
    for name, written in zip(params, launch.written if launch is not None else params):
        t = _type_of(values[name])
        if t is None:
            raise KernelError(
                f"kernel '{kernel.name}': its argument {name} is {written}, which the file "
                "computes at run time: give it with --host "
                f"'{written}=DTYPE[D0,D1,...]' for an array (float32[64,64]) or "
                f"--host {written}=VALUE for a number",
                loc=launch.loc if launch is not None else None)
        out[name] = t
    if len(out) != len(params):
        raise KernelError(f"kernel '{kernel.name}' takes {len(params)} arguments and is "
                          f"launched with {len(launch.args)}", loc=launch.loc)
    return out, values


def _type_of(value):
    """numba's type of a host value, as numba's typeof would see it."""
    import numpy as np
    from numba import from_dtype, types
    if isinstance(value, hp.Array):
        return types.Array(from_dtype(np.dtype(value.dtype)), len(value.shape), value.order)
    if isinstance(value, hp.Scalar):
        return from_dtype(np.dtype(value.dtype))
    if isinstance(value, bool):
        return types.boolean
    if isinstance(value, int):
        return types.int64
    if isinstance(value, float):
        return types.float64
    return None


def _signature_types(kernel: NumbaKernel, node, count: int) -> list:
    """The argument types of a decorator's signature (a string `'void(float32[:], int32)'`,
    or the first of a list of them)."""
    from numba.core import sigutils
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        node = node.elts[0]
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        raise KernelError(f"kernel '{kernel.name}': its decorator's signature is not a "
                          "string (`@cuda.jit('void(float32[:])')` is read; a signature "
                          "built of numba's type objects is not yet)",
                          loc=SourceLoc(kernel.path, kernel.node.lineno))
    try:
        args, _ = sigutils.normalize_signature(node.value)
    except Exception as err:   # numba's own message says what is wrong with it
        raise KernelError(f"kernel '{kernel.name}': its signature {node.value!r} is not "
                          f"one numba reads ({err})") from None
    if len(args) != count:
        raise KernelError(f"kernel '{kernel.name}': its signature has {len(args)} arguments, "
                          f"the function {count}")
    return list(args)


def _configuration(kernel: NumbaKernel, launch, options, names: dict) -> tuple:
    """(grid, block, dynamic shared bytes): the command line's --launch-*, else the
    launch's."""
    def dims(value, what: str, written) -> tuple:
        if isinstance(value, int) and not isinstance(value, bool):
            value = (value,)
        if isinstance(value, tuple) and 1 <= len(value) <= 3 and all(
                isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in value):
            return value
        raise KernelError(f"kernel '{kernel.name}': its {what} is {written}, which the file "
                          f"computes at run time: give it with --launch-{what} X[,Y,Z]"
                          + (f" or --host {written}=X[,Y,Z]" if written.isidentifier()
                             else ""), loc=launch.loc if launch else None)

    def parse(text: str, what: str) -> tuple:
        try:
            return dims(tuple(int(p) for p in text.split(",")), what, text)
        except ValueError:
            raise KernelError(f"--launch-{what} {text}: give whole numbers, X[,Y,Z]") from None

    if launch is None and not (options is not None and options.grid and options.block):
        raise KernelError(f"kernel '{kernel.name}': the file never launches it: give its "
                          "launch with --launch-grid and --launch-block")
    config = _config_nodes(launch)
    grid = parse(options.grid, "grid") if options is not None and options.grid else \
        dims(_rebound(launch.grid, config[0], names), "grid", config[0])
    block = parse(options.block, "block") if options is not None and options.block else \
        dims(_rebound(launch.block, config[1], names), "block", config[1])
    if options is not None and options.smem:
        try:
            smem = int(options.smem)
        except ValueError:
            raise KernelError(f"--launch-smem {options.smem}: give a whole number of "
                              "bytes") from None
    else:
        smem = _rebound(launch.smem, config[2], names) if launch is not None else 0
        if not isinstance(smem, int) or smem < 0:
            raise KernelError(f"kernel '{kernel.name}': its dynamic shared memory is "
                              f"{config[2]}, which the file computes at run time: give it "
                              "with --launch-smem BYTES", loc=launch.loc)
    return grid, block, smem


def _config_nodes(launch) -> tuple:
    """The launch's grid, block and shared-memory expressions as written."""
    return launch.config if launch is not None else ("", "", "0")


def _rebound(value, written: str, names: dict):
    """A launch value, or the --host value of the name it is written as."""
    return names.get(written, value) if value is None and written.isidentifier() else value


def _parameters(kernel: NumbaKernel, types: dict, values: dict) -> tuple:
    """(slot names, array lengths in bytes, scalar values, scalar types) of the PTX entry's
    parameters, for numba's argument types and the values the launch passes."""
    from numba.core import types as nt

    from kernels_ir.dtypes import BY_NAME, i64
    slots, lengths, defaults, scalar_types = [], {}, {}, {}
    for name, t in types.items():
        if isinstance(t, nt.Array):
            itemsize = t.dtype.bitwidth // 8
            fields = ["meminfo", "parent", "nitems", "itemsize"]
            slots += [f"{name}_{f}" for f in fields] + [name] + \
                [f"{name}_shape_{d}" for d in range(t.ndim)] + \
                [f"{name}_strides_{d}" for d in range(t.ndim)]
            for f in fields:
                scalar_types[f"{name}_{f}"] = i64
            for d in range(t.ndim):
                scalar_types[f"{name}_shape_{d}"] = i64
                scalar_types[f"{name}_strides_{d}"] = i64
            defaults.update({f"{name}_meminfo": 0, f"{name}_parent": 0,
                             f"{name}_itemsize": itemsize})
            shape = values.get(name)
            if isinstance(shape, hp.Array) and len(shape.shape) == t.ndim:
                defaults[f"{name}_nitems"] = math.prod(shape.shape)
                strides = [e * itemsize for e in hp.element_strides(shape)]   # bytes
                for d in range(t.ndim):
                    defaults[f"{name}_shape_{d}"] = shape.shape[d]
                    defaults[f"{name}_strides_{d}"] = strides[d]
                lengths[name] = math.prod(shape.shape) * itemsize
            else:   # (numba's own length of it: nitems elements, a value to give)
                lengths[name] = f"{name}_nitems * {itemsize}"
        elif isinstance(t, (nt.Integer, nt.Float, nt.Boolean)):
            slots.append(name)
            if isinstance(values.get(name), (int, float, hp.Scalar)):
                defaults[name] = hp._number(values[name])
            dtype = "u8" if isinstance(t, nt.Boolean) else str(t)
            scalar_types[name] = BY_NAME.get(_IR_NAMES.get(dtype, dtype), i64)
        else:
            raise KernelError(f"kernel '{kernel.name}': its argument {name} is a {t}, which "
                              "smemsim does not lower yet (arrays and numbers are read)")
    return slots, lengths, defaults, scalar_types


_IR_NAMES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
             "uint16": "u16", "uint32": "u32", "uint64": "u64", "float16": "f16",
             "float32": "f32", "float64": "f64"}


# ------------------------------------------------------------------ numba's PTX

def _ptx(path: str, kernel: NumbaKernel, kernels: dict, types: dict, names: dict,
         arch: str) -> str:
    """numba's PTX of the kernel for these argument types, cached by everything it is made
    of (the file's bytes, the kernel, the types, the values bound, numba's version)."""
    import numba

    from ...cache import cache_dir, open_sealed, sealed, store
    cc = _compute_capability(arch)
    data = pathlib.Path(path).read_bytes()
    bound = pk.bindings(kernel, _devices(kernels), names, _MODULES, set())
    key = hashlib.sha256(repr([CACHE_FORMAT, str(pathlib.Path(path).resolve()),
                               hashlib.sha256(data).hexdigest(), kernel.name,
                               kernel.node.lineno, [str(t) for t in types.values()],
                               sorted((k, repr(v)) for k, v in bound.items()),
                               numba.__version__, cc]).encode()).hexdigest()
    folder = cache_dir("ptx")
    entry = folder / f"numba-{key}.ptx" if folder is not None else None
    cached = open_sealed(entry, key) if entry is not None else None
    if cached is not None:
        return cached.decode("utf-8", "replace")
    from numba import cuda
    function = _function(kernel, kernels, names, {})
    options = _jit_options(kernel)
    try:
        # (one compile at a time: _target swaps numba's device lookup for the process, and
        # fix builds its changes on threads)
        with _COMPILING, _target(cc):
            ptx, _ = cuda.compile_ptx(function, tuple(types.values()), lineinfo=True, cc=cc,
                                      **options)
    except Exception as err:   # numba's typing and lowering errors: its message is the answer
        # (numba colours its messages for a terminal: the escapes are not for ours)
        text = " ".join(re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", str(err)).split())
        raise KernelError(f"kernel '{kernel.name}': numba could not compile it for "
                          f"({', '.join(str(t) for t in types.values())}): {text[:600]}",
                          loc=SourceLoc(path, kernel.node.lineno)) from None
    if entry is not None:
        store(entry, sealed(key, ptx.encode()))
    return ptx


_COMPILING = threading.Lock()


@contextlib.contextmanager
def _target(cc: tuple):
    """numba compiles a device function a kernel calls (the user's, and some of its own:
    `min` of integers) for "the current device", which it asks the CUDA driver for; with
    no GPU here, it is the device being built for (`cc`) for as long as the compile."""
    from numba.cuda import dispatcher
    device = type("Target", (), {"compute_capability": cc})()
    saved = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: device
    try:
        yield
    finally:
        dispatcher.get_current_device = saved


def _shared_names(ptx: str, kernel: NumbaKernel) -> str:
    """numba's shared arrays (`_cudapy_smem_7`: a counter of the process) named as the
    kernel names them (`sA = cuda.shared.array(...)`): the k-th the PTX declares is the
    k-th the function's body makes, where each is bound to a name and their numbers agree."""
    declared = sorted({int(n) for n in re.findall(r"\b_cudapy_smem_(\d+)\b", ptx)})
    made = [n.targets[0].id for n in ast.walk(kernel.node)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and
            isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call) and
            ast.unparse(n.value.func).endswith("shared.array")]
    made_in_order = sorted(made, key=lambda name: next(
        n.lineno for n in ast.walk(kernel.node) if isinstance(n, ast.Assign) and
        isinstance(n.targets[0], ast.Name) and n.targets[0].id == name))
    if len(declared) != len(made) or len(set(made)) != len(made) or any(
            re.search(rf"(?<![\w$%.]){re.escape(name)}(?![\w$.])", ptx) for name in made):
        return ptx
    for number, name in zip(declared, made_in_order):
        ptx = re.sub(rf"\b_cudapy_smem_{number}\b", name, ptx)
    return ptx


def _compute_capability(arch: str) -> tuple:
    digits = arch.removeprefix("sm_").rstrip("a")
    if not digits.isdigit() or len(digits) < 2:
        raise KernelError(f"--arch {arch}: numba builds for sm_XY")
    return int(digits[:-1]), int(digits[-1])


def _jit_options(kernel: NumbaKernel) -> dict:
    """The decorator's options that change the code numba makes (fastmath)."""
    call = kernel.decorator if isinstance(kernel.decorator, ast.Call) else None
    out = {}
    for k in (call.keywords if call is not None else []):
        if k.arg == "fastmath" and isinstance(k.value, ast.Constant) and \
                isinstance(k.value.value, bool):
            out["fastmath"] = k.value.value
    return out


def _devices(kernels: dict) -> dict:
    """The file's `@cuda.jit(device=True)` functions, by name."""
    return {k.name: k for k in kernels.values() if k.device}


def _function(kernel: NumbaKernel, kernels: dict, names: dict, made: dict):
    """The kernel's Python function made from its definition alone (python_kernel), the
    device functions it calls made the same way and jitted as device functions."""
    from numba import cuda
    devices = _devices(kernels)

    def callee(name: str):
        if name not in made:
            made[name] = None   # (a recursive call: numba's own error)
            d = devices[name]
            made[name] = cuda.jit(device=True)(_function(d, kernels, {**d.names, **names},
                                                         made))
        return made[name]
    bound = pk.bindings(kernel, devices, names, _MODULES, set())
    return pk.make_function(kernel, pk.namespace_of(bound, callee))

"""Triton kernels of a Python file, through Triton's own compiler: the PTX Triton makes of
each `@triton.jit` function for the launch the file states, lowered (smemsim.frontends.ptx.lower)
with the merges ptxas makes.

The file is read, never run (smemsim.frontends.ptx.host_python gives the launches and the values
the host code gives them). A launch is `kernel[grid](args, CONST=..., num_warps=...)`,
`kernel.warmup(args, grid=..., ...)` (then `compiled[grid](args)` launches what it made),
or `kernel.run(...)`. The kernel's Python function is made from its own definition alone
(compiled, never run: smemsim.frontends.ptx.python_kernel; decorators dropped; its annotations,
`tl.constexpr`, kept: each must be a dotted name of Triton's), its free names bound to what
the file binds
them to (numbers, tuples, `triton`, `tl`, other `@triton.jit` functions made the same way),
and compiled as Triton's own launcher would for sm_90: Triton's specialization of the
arguments (a pointer's 16-byte alignment, an integer's divisibility by 16, an integer 1 as a
constant), then `triton.compile`. The block is num_warps x 32 threads (Triton's default 4
warps), the grid the launch's (a `lambda META: ...` called with the launch's constants), the
dynamic shared memory what Triton's build asks for.

What the file computes at run time (a tensor passed in, an autotuner's choice, a grid from
the device's properties) is asked for: `--host 'x=float32[1823,781]'`, `--host
BLOCK_SIZE=1024`, `--launch-grid 132`.
"""
from __future__ import annotations

import ast
import dataclasses
import hashlib
import pathlib

from kernels_ir import KernelError, SourceLoc

from . import host_python as hp
from . import python_kernel as pk

CACHE_FORMAT = 1
_MODULES = ("triton", "math", "numpy")
_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion")
_TL_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
              "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
              "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool_": "i1"}


@dataclasses.dataclass(frozen=True)
class TritonLaunch:
    """A launch as the file states it: the grid (a value, or a Lambda), the arguments by
    position and by name (each as host_python reads it, and as written), and where."""

    grid: object
    grid_written: str
    args: tuple
    written: tuple
    keywords: dict          # name -> (value, as written)
    loc: SourceLoc
    names: dict
    compile_only: bool = False   # `kernel.warmup(...)`: a build, its grid no launch's


@dataclasses.dataclass(frozen=True)
class TritonKernel:
    """A `@triton.jit` function: its definition, the names bound where it is defined, the
    autotuner's configurations if one literal list of them is given, and its launches."""

    name: str
    node: ast.FunctionDef
    names: dict
    launches: tuple
    autotuned: bool
    path: str = ""


def _is_jit(decorator) -> bool:
    f = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(f) in ("triton.jit", "jit")


def _is_autotune(decorator) -> bool:
    f = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(f) in ("triton.autotune", "autotune", "triton.heuristics",
                              "heuristics")


def is_triton(tree) -> bool:
    """Whether a parsed Python file defines a Triton kernel (`@triton.jit`)."""
    imports = any(isinstance(n, (ast.Import, ast.ImportFrom)) and any(
        (a.name if isinstance(n, ast.Import) else (n.module or "")).split(".")[0] == "triton"
        for a in n.names) for n in ast.walk(tree))
    return imports and any(_is_jit(d) for n in ast.walk(tree)
                           if isinstance(n, ast.FunctionDef) for d in n.decorator_list)


def triton_kernels(path: str, given: dict | None = None) -> dict[str, TritonKernel]:
    """name -> each `@triton.jit` function of the file, with its launches (`given`: the
    values stated for names the file does not say, host_python.Scope)."""
    file = pathlib.Path(path)
    tree = pk.syntax_tree(file)
    found: dict[str, TritonKernel] = {}
    launches: dict[str, list] = {}
    compiled: dict[str, tuple] = {}   # a name bound to kernel.warmup(...): (kernel, launch)

    def visit(statement, scope: hp.Scope) -> None:
        if isinstance(statement, ast.FunctionDef) and \
                any(_is_jit(d) for d in statement.decorator_list):
            found.setdefault(statement.name, TritonKernel(
                statement.name, statement, dict(scope.names), (),
                any(_is_autotune(d) for d in statement.decorator_list), str(file)))
        calls = [n for n in ast.walk(statement) if isinstance(n, ast.Call)] \
            if isinstance(statement, (ast.Expr, ast.Assign, ast.Return, ast.AnnAssign)) else []
        for call in calls:
            hit = _launch(call, scope, str(file), compiled)
            if hit is not None:
                launches.setdefault(hit[0], []).append(hit[1])
                if isinstance(statement, ast.Assign) and call is statement.value and \
                        isinstance(call.func, ast.Attribute) and call.func.attr == "warmup":
                    for t in statement.targets:
                        if isinstance(t, ast.Name):
                            compiled[t.id] = hit
    hp.Scope(given=given).run(tree.body, visit)
    out = {}
    for name, k in found.items():
        mine = launches.get(name, [])
        # a launch of what warmup compiled: its arguments, the warmup's options
        out[name] = dataclasses.replace(k, launches=tuple(mine))
    return out


def _launch(call: ast.Call, scope: hp.Scope, path: str, compiled: dict):
    """(kernel name, TritonLaunch) of `k[grid](...)`, `k.warmup(..., grid=...)`,
    `k.run(..., grid=...)`, or `c[grid](...)` of `c = k.warmup(...)`; None otherwise."""
    f = call.func
    if any(isinstance(a, ast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return None
    value = scope.value
    keywords = {k.arg: (value(k.value), ast.unparse(k.value)) for k in call.keywords}
    loc = SourceLoc(path, call.lineno, call.col_offset + 1)
    args = tuple(value(a) for a in call.args)
    written = tuple(ast.unparse(a) for a in call.args)
    if isinstance(f, ast.Subscript) and isinstance(f.value, ast.Name):
        grid = f.slice
        name = f.value.id
        if name in compiled:   # c[grid](args): the warmup's kernel and options
            kernel, warm = compiled[name]
            options = {k: v for k, v in warm.keywords.items() if k in _OPTIONS}
            return kernel, TritonLaunch(value(grid), ast.unparse(grid), args, written,
                                        {**options, **keywords}, loc, dict(scope.names))
        return name, TritonLaunch(value(grid), ast.unparse(grid), args, written, keywords,
                                  loc, dict(scope.names))
    if isinstance(f, ast.Attribute) and f.attr in ("warmup", "run") and \
            isinstance(f.value, ast.Name):
        grid = keywords.pop("grid", (None, ""))
        warmup = f.attr == "warmup" or bool(keywords.pop("warmup", (False, ""))[0])
        return f.value.id, TritonLaunch(grid[0], grid[1], args, written, keywords, loc,
                                        dict(scope.names), warmup)
    return None


# ------------------------------------------------------------------ the kernels as IR

def import_triton(path: str, options=None, wanted: str | None = None, arch: str = "sm_90",
                  flags=()) -> dict:
    """key -> a function that builds that kernel from Triton's PTX of it."""
    kernels = triton_kernels(path, pk.given_values(options))
    entries = {k: v for k, v in kernels.items() if v.launches or wanted == k}
    if not kernels:
        raise KernelError(f"{path} has no Triton kernel (`@triton.jit` function)")
    if not entries or wanted is not None:
        entries = kernels   # (a kernel launched elsewhere: asked for its launch)
    return pk.builders(build, path, kernels, entries, wanted, "Triton kernel", options, arch)


def build(path: str, key: str, kernels: dict, options=None, arch: str = "sm_90"
          ) -> pk.KernelBuild:
    """Kernel `key` of triton_kernels(path): Triton's PTX of it, lowered as launched."""
    from .frontend import _lower_as_built
    from .lower import Launch
    from .parse import parse
    kernel = kernels[key]
    # the first launch, else the first build (`warmup`: its grid is no launch's)
    launch = next((x for x in kernel.launches if not x.compile_only),
                  kernel.launches[0] if kernel.launches else None)
    given = pk.given_values(options, kernel.name)
    names = {**kernel.names, **(launch.names if launch else {}), **given}
    bound, compile_options = _arguments(kernel, launch, given)
    text, shared, symbol, scratch = _ptx(path, kernel, kernels, bound, compile_options,
                                         names, arch)
    module = parse(text)
    entry = module.entries.get(symbol)
    if entry is None:
        raise KernelError(f"kernel '{key}': Triton's PTX has no entry {symbol}")
    slots, lengths, defaults, types = _parameters(kernel, bound, len(entry.params))
    grid = _grid(kernel, launch, options, bound, given)
    programs = grid[0] * (grid[1] if len(grid) > 1 else 1) * (grid[2] if len(grid) > 2 else 1)
    for name, size in zip([s for s in slots if s.startswith("scratch_")], scratch):
        lengths[name] = max(1, size * programs)   # (Triton allocates it a program each)
    block = (compile_options.get("num_warps", 4) * 32,)
    loc = launch.loc if launch is not None else SourceLoc(path, kernel.node.lineno)
    lowered = _lower_as_built(module, text, symbol, Launch(
        grid=grid, block=block, dynamic_smem=shared, names=tuple(slots), lengths=lengths,
        defaults=defaults, types=types, loc=loc), kernel.name, _target_arch(text, arch), (),
        ptxas=_triton_ptxas(compile_options, arch))
    return pk.KernelBuild(lowered, text, symbol, tuple(slots))


def _arguments(kernel: TritonKernel, launch, given: dict) -> tuple[dict, dict]:
    """(parameter name -> the value passed, in the function's order; Triton's compile
    options): the launch's arguments by position and name, --host values for what it
    computes at run time (an argument as written, or a parameter's name)."""
    params = [a.arg for a in kernel.node.args.args]
    defaults = dict(zip(params[len(params) - len(kernel.node.args.defaults):],
                        kernel.node.args.defaults))
    constexpr = _constexprs(kernel)
    if launch is None:
        raise KernelError(f"kernel '{kernel.name}': the file never launches it: give its "
                          "arguments' values with --host NAME=VALUE (a tensor: --host "
                          "'x=float32[1024,1024]'), and its grid with --launch-grid")
    values: dict = {}
    where: dict = {}
    for name, value, text in zip(params, launch.args, launch.written):
        values[name], where[name] = given.get(text, value), text
    if len(launch.args) > len(params):
        raise KernelError(f"kernel '{kernel.name}' takes {len(params)} arguments and is "
                          f"launched with {len(launch.args)}", loc=launch.loc)
    compile_options = {}
    for name, (value, text) in launch.keywords.items():
        if name in _OPTIONS:   # (a parameter may share an option's name: it is both)
            compile_options[name] = given.get(text, value)
        if name in params:
            values[name], where[name] = given.get(text, value), text
    for name in params:
        if values.get(name) is None and name in given:   # (a parameter named as given)
            values[name] = given[name]
        if values.get(name) is None and name in defaults and \
                isinstance(defaults[name], ast.Constant):
            values[name] = defaults[name].value
        if values.get(name) is None:
            text = where.get(name, name)
            key = text if text.isidentifier() else name
            how = f"--host {key}=VALUE" if name in constexpr else \
                f"--host '{key}=DTYPE[D0,D1,...]' for a tensor (float32[1024,1024]) or " \
                f"--host {key}=VALUE"
            why = "the autotuner chooses at run time" if kernel.autotuned and \
                name not in where else "the file computes at run time"
            raise KernelError(f"kernel '{kernel.name}': its argument {name} is "
                              f"{where.get(name, 'not passed')}, which {why}: give it with "
                              f"{how}", loc=launch.loc)
    for name in ("num_warps", "num_stages"):
        if name not in compile_options and name in given:
            compile_options[name] = given[name]
        elif name not in compile_options and kernel.autotuned:
            raise KernelError(f"kernel '{kernel.name}': its {name} is the autotuner's choice, "
                              f"made at run time: give it with --host {name}=VALUE (a "
                              "triton.Config's)", loc=launch.loc)
    for name, value in compile_options.items():
        if not isinstance(value, (int, bool)):
            raise KernelError(f"kernel '{kernel.name}': its {name} is computed at run time: "
                              f"give it with --host {launch.keywords[name][1]}=VALUE",
                              loc=launch.loc)
    return {p: values[p] for p in params}, compile_options


def _grid(kernel: TritonKernel, launch, options, bound: dict, given: dict) -> tuple:
    if options is not None and options.grid:
        try:
            grid = tuple(int(p) for p in options.grid.split(","))
        except ValueError:
            raise KernelError(f"--launch-grid {options.grid}: give whole numbers") from None
    else:
        grid = None if launch.compile_only else \
            launch.grid if launch.grid is not None else given.get(launch.grid_written)
        if isinstance(grid, hp.Lambda):
            grid = grid.call({k: v for k, v in bound.items()
                              if isinstance(v, (int, float, bool))})
        if isinstance(grid, int):
            grid = (grid,)
    if not (isinstance(grid, tuple) and 1 <= len(grid) <= 3 and
            all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in grid)):
        what = "the file never launches it (it only builds it: warmup)" \
            if launch.compile_only else \
            f"its grid is {launch.grid_written or '?'}, which the file computes at run time"
        raise KernelError(f"kernel '{kernel.name}': {what}: give its grid with "
                          "--launch-grid X[,Y,Z]", loc=launch.loc)
    return grid


def _target_arch(ptx: str, arch: str) -> str:
    """The architecture the PTX states (`.target sm_90a`: Triton builds sm_90a for 9.0)."""
    import re
    m = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.M)
    return m.group(1) if m else arch


def _triton_ptxas(compile_options: dict, arch: str) -> tuple | None:
    """Triton's ptxas and the options its build gives it (triton/backends/nvidia/compiler.py
    make_cubin), so that the SASS counted is Triton's cubin's; None where it has none."""
    digits = arch.removeprefix("sm_").rstrip("a")
    try:
        from triton.backends.nvidia.compiler import get_ptxas
        path = get_ptxas(int(digits)).path
    except (ImportError, AttributeError, ValueError):
        return None
    options = ["--regAllocOptLevel=2"]
    if compile_options.get("enable_fp_fusion") is False:
        options.append("--fmad=false")
    return path, options


class _Tensor:
    """What Triton's specialization reads of a tensor argument: its data pointer (aligned,
    as an allocation is) and its element type."""

    def __init__(self, dtype: str):
        import triton.language as tl
        self.dtype = getattr(tl, {"bool_": "int1"}.get(dtype, dtype))

    def data_ptr(self) -> int:
        return 1 << 40


def _ptx(path: str, kernel: TritonKernel, kernels: dict, bound: dict, compile_options: dict,
         names: dict, arch: str) -> tuple[str, int, str, tuple]:
    """(Triton's PTX, the dynamic shared bytes it asks for, the entry's name, the bytes of
    global and profile scratch it asks for a program), cached by everything it is made of."""
    import triton

    from ...cache import cache_dir, open_sealed, sealed, store
    data = pathlib.Path(path).read_bytes()
    free = pk.bindings(kernel, kernels, names, _MODULES, set())
    key = hashlib.sha256(repr([CACHE_FORMAT, str(pathlib.Path(path).resolve()),
                               hashlib.sha256(data).hexdigest(), kernel.name,
                               kernel.node.lineno, sorted((k, repr(v)) for k, v in
                                                          bound.items()),
                               sorted(compile_options.items()),
                               sorted((k, repr(v)) for k, v in free.items()),
                               triton.__version__, arch]).encode()).hexdigest()
    folder = cache_dir("ptx")
    entry = folder / f"triton-{key}.ptx" if folder is not None else None
    cached = open_sealed(entry, key) if entry is not None else None
    if cached is not None:
        head, _, ptx = cached.decode("utf-8", "replace").partition("\n")
        shared, symbol, scratch, profile = head.split(" ")
        return ptx, int(shared), symbol, (int(scratch), int(profile))
    fn = _function(kernel, kernels, names, {})
    try:
        compiled = _compile(fn, bound, compile_options, arch)
    except Exception as err:   # Triton's own message is the answer
        text = " ".join(str(err).split())
        raise KernelError(f"kernel '{kernel.name}': Triton could not compile it for these "
                          f"arguments: {text[:600]}",
                          loc=SourceLoc(path, kernel.node.lineno)) from None
    ptx, shared, symbol = compiled.asm["ptx"], int(compiled.metadata.shared), \
        compiled.metadata.name
    scratch = (int(getattr(compiled.metadata, "global_scratch_size", 0) or 0),
               int(getattr(compiled.metadata, "profile_scratch_size", 0) or 0))
    if entry is not None:
        store(entry, sealed(key, f"{shared} {symbol} {scratch[0]} {scratch[1]}\n{ptx}"
                            .encode()))
    return ptx, shared, symbol, scratch


def _compile(fn, bound: dict, compile_options: dict, arch: str):
    """Triton's build of `fn` for these arguments, as its launcher makes it for the target
    (its own specialization of the arguments: triton.runtime.jit's binder and _pack_args)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, compile, make_backend
    from triton.runtime.jit import create_function_from_signature
    digits = arch.removeprefix("sm_").rstrip("a")
    target = GPUTarget("cuda", int(digits), 32)
    backend = make_backend(target)
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    values = {k: (_Tensor(v.dtype) if isinstance(v, hp.Array) else v)
              for k, v in bound.items()}
    # every parameter by name: one named as an option (`num_stages`) is then both, as a
    # launch's keyword argument is for Triton (it binds the parameter and sets the option)
    kwargs = {"debug": False, **compile_options, **values}
    for extra in ("instrumentation_mode", "fpsan_homomorphic_casts"):
        from triton import knobs
        value = getattr(knobs.compilation, extra, None)
        if value is not None:
            kwargs[extra] = value
    import warnings
    with warnings.catch_warnings():   # (Triton's notices of its defaults' future changes)
        warnings.simplefilter("ignore", UserWarning)
        bound_args, specialization, options = binder(**kwargs)
        options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound_args,
                                                              specialization, options)
        return compile(ASTSource(fn, signature, constexprs, attrs), target=target,
                       options=options.__dict__)


def _parameters(kernel: TritonKernel, bound: dict, count: int) -> tuple:
    """(slot names, lengths in bytes, scalar values, scalar types) of the PTX entry's
    parameters: the arguments Triton passes (not its constants: `tl.constexpr` ones and
    integers equal to 1), then its own scratch pointers."""
    from kernels_ir.dtypes import f32, f64, i32, i64
    constexpr = _constexprs(kernel)
    slots, lengths, defaults, types = [], {}, {}, {}
    for name, value in bound.items():
        if name in constexpr or (isinstance(value, int) and not isinstance(value, bool) and
                                 value == 1):
            continue
        slots.append(name)
        if isinstance(value, hp.Array):
            lengths[name] = value.size * _itemsize(value.dtype)
        elif isinstance(value, bool):
            types[name], defaults[name] = i32, int(value)
        elif isinstance(value, int):
            types[name] = i32 if -2**31 <= value < 2**31 else i64
            defaults[name] = value
        elif isinstance(value, float):
            types[name], defaults[name] = f32, value
        elif isinstance(value, hp.Scalar):
            types[name], defaults[name] = (f64 if value.dtype == "float64" else f32) \
                if "float" in value.dtype else i64, value.value
        else:
            raise KernelError(f"kernel '{kernel.name}': its argument {name} is a "
                              f"{type(value).__name__}, which smemsim does not pass yet")
    while len(slots) < count:   # Triton's own: the global and profile scratch pointers
        slots.append(f"scratch_{len(slots)}")
    if len(slots) != count:
        raise KernelError(f"kernel '{kernel.name}': Triton's PTX entry has {count} "
                          f"parameters, smemsim expects {len(slots)}")
    return slots, lengths, defaults, types


def _constexprs(kernel: TritonKernel) -> set:
    """The parameters annotated `tl.constexpr`."""
    return {a.arg for a in kernel.node.args.args if a.annotation is not None and
            ast.unparse(a.annotation).endswith("constexpr")}


def _itemsize(dtype: str) -> int:
    return {"bool_": 1, "bfloat16": 2}.get(dtype) or int("".join(
        c for c in dtype if c.isdigit()) or 8) // 8


def _function(kernel: TritonKernel, kernels: dict, names: dict, made: dict):
    """The kernel as a Triton JITFunction made from its definition alone (python_kernel:
    annotations kept, `tl.constexpr`), the jit functions it calls made the same way."""
    import triton

    def callee(name: str):
        if name not in made:
            made[name] = None
            c = kernels[name]
            made[name] = _function(c, kernels, {**c.names, **names}, made)
        return made[name]
    bound = pk.bindings(kernel, kernels, names, _MODULES, set())
    return triton.jit(pk.make_function(kernel, pk.namespace_of(bound, callee),
                                       keep_annotations=True))

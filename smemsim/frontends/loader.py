"""Load the kernels a Python file describes (the CLI's input).

A kernels file is user code: whatever goes wrong while importing it, calling its builder
functions or its ARRAYS functions becomes a `KernelFileError` located at the line of that
file where it happened, never a traceback through smemsim.

Which files run (decided from the file's syntax tree, never by running it; docs/ci.md):
a `.cu` or a header (`.cuh`, `.h`, ...) is only read; a `.py` that compiles CUDA strings
(a call of cupy's RawKernel/RawModule, pycuda's SourceModule, cuda.core's Program anywhere
in it) or defines a numba.cuda or Triton kernel (a function decorated `@cuda.jit` or
`@triton.jit`) is only read, unless it is a kernels file: one whose module body itself
(not a function, an `if` or a `try`) imports kernels_ir or binds the name KERNELS. Every
other `.py` is taken as a kernels file, and smemsim imports (runs) it as `python` would.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import pathlib
import sys
import traceback
from typing import Callable

from kernels_ir import Kernel, KernelError
from kernels_ir.errors import CUDA_SOURCE_SUFFIXES, SourceLoc


class KernelFileError(KernelError):
    """A kernels file failed: did not import, raised, or gave something that is not a Kernel."""

    def _render(self) -> str:
        return f"{self.loc}: {self.message}" if self.loc else self.message


# what CUDA source is named: a .cu, and the headers and C++ files kernels live in (given to
# smemsim, such a file is CUDA: a kernels file is always Python)
CUDA_SUFFIXES = CUDA_SOURCE_SUFFIXES


def is_cuda(path: str) -> bool:
    """Whether a path names CUDA source (read by the CUDA frontend, never executed): a
    .cu file or a header (CUDA_SUFFIXES), or a Python file that compiles CUDA strings
    (cupy's RawKernel, pycuda's SourceModule, cuda.core's Program) and is no kernels file
    (`is_kernels_module`)."""
    suffix = pathlib.Path(path).suffix
    if suffix in CUDA_SUFFIXES:
        return True
    return suffix == ".py" and (embeds_cuda(path) or dsl_of(path) is not None)


# calls that compile CUDA held in a string: name -> (the source's position, its keyword)
CUDA_COMPILERS = {"RawKernel": (0, "code"), "RawModule": (0, "code"),
                  "SourceModule": (0, "source"), "Program": (0, "code")}


def callee_name(call) -> str:
    """The name a Python call calls (`cupy.RawKernel(...)` -> RawKernel)."""
    import ast
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def parse_python(data: bytes, path: str):
    """A Python file's syntax tree (`ast`), never running it. A file too deep or too large
    for Python's parser (a 50,001-term `"a" + "b" + ...`: RecursionError, MemoryError) is a
    KernelFileError at its longest line: smemsim neither reads nor runs it. SyntaxError and
    ValueError (a NUL byte) pass to the caller."""
    import ast
    try:
        return ast.parse(data, filename=path)
    except (RecursionError, MemoryError) as err:
        why = "nests too deeply" if isinstance(err, RecursionError) else "is too large"
        raise KernelFileError(f"the Python file {why} for Python's parser "
                              f"({type(err).__name__}): smemsim neither reads nor runs it",
                              loc=SourceLoc(path, _longest_line(data))) from None


def _longest_line(data: bytes) -> int:
    """The line where the logical line of the most tokens starts (where a parser that gave
    up was), by Python's tokenizer (a loop, no recursion); 1 where that fails too."""
    import io
    import tokenize
    best, best_line, count, start = -1, 1, 0, None
    try:
        for tok in tokenize.tokenize(io.BytesIO(data).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if count > best and start is not None:
                    best, best_line = count, start
                count, start = 0, None
            elif tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT,
                                  tokenize.DEDENT, tokenize.ENCODING):
                count += 1
                start = tok.start[0] if start is None else start
    except (tokenize.TokenError, SyntaxError, ValueError, MemoryError):
        pass
    return best_line


def is_kernels_module(tree) -> bool:
    """Whether a parsed Python file is a kernels file by its syntax: a statement of its
    module body itself (not one inside a function, class, `if` or `try`) imports kernels_ir
    (`import kernels_ir[.x]`, `from kernels_ir[.x] import ...`) or binds KERNELS (`KERNELS
    = ...`, `KERNELS: dict = ...`, `from m import KERNELS`). A mention anywhere else (under
    `if False:`, in a string or a comment) does not count."""
    import ast
    for n in tree.body:
        if isinstance(n, ast.Import):
            if any(a.name.split(".")[0] == "kernels_ir" or (a.asname or "") == "KERNELS"
                   for a in n.names):
                return True
        elif isinstance(n, ast.ImportFrom):
            if (n.level == 0 and (n.module or "").split(".")[0] == "kernels_ir") or \
                    any((a.asname or a.name) == "KERNELS" for a in n.names):
                return True
        elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and t.id == "KERNELS" for t in targets):
                return True
    return False


def embeds_cuda(path: str) -> bool:
    """Whether a Python file compiles CUDA from strings and is no kernels file
    (`is_kernels_module`): decided from its text and syntax tree, never by running it."""
    try:
        data = pathlib.Path(path).read_bytes()
    except OSError:
        return False
    if not any(name.encode() in data for name in CUDA_COMPILERS):
        return False
    import ast
    try:
        tree = parse_python(data, str(path))
    except (SyntaxError, ValueError):
        return False  # Python compiles the whole file before it runs a line of it: none runs
    return not is_kernels_module(tree) and any(
        isinstance(n, ast.Call) and callee_name(n) in CUDA_COMPILERS for n in ast.walk(tree))


def dsl_of(path: str) -> str | None:
    """'numba' or 'triton' where a Python file defines numba.cuda kernels (`@cuda.jit`) or
    Triton kernels (`@triton.jit`) and is no kernels file, else None: decided from its
    syntax tree, never by running it."""
    try:
        data = pathlib.Path(path).read_bytes()
    except OSError:
        return None
    if b"jit" not in data or (b"numba" not in data and b"triton" not in data):
        return None
    try:
        tree = parse_python(data, str(path))
    except (SyntaxError, ValueError):
        return None
    if is_kernels_module(tree):
        return None
    from .ptx.numba_frontend import is_numba
    from .ptx.triton_frontend import is_triton
    return "triton" if is_triton(tree) else "numba" if is_numba(tree) else None


def load_kernels(path: str, cuda=None, ptx=None) -> dict[str, Callable[[], Kernel]]:
    """The file's kernels: its `KERNELS` dict (name -> builder function or Kernel), or else
    every module-level Kernel. Each function returned builds its kernel, or raises a located
    KernelError. A CUDA file (.cu; a cupy or pycuda program's strings; a Triton or numba
    program) is built by its compiler and each kernel lowered from the PTX of that build
    (smemsim.frontends.ptx: `cuda` its Options, `ptx` a dict of the architecture and nvcc flags):
    nothing of a CUDA file is executed."""
    if is_cuda(path):
        kernel = cuda.kernel if cuda is not None else None
        if pathlib.Path(path).suffix == ".py" and not embeds_cuda(path):
            if dsl_of(path) == "triton":
                from .ptx.triton_frontend import import_triton
                return import_triton(path, cuda, kernel, **(ptx or {}))
            from .ptx.numba_frontend import import_numba
            return import_numba(path, cuda, kernel, **(ptx or {}))
        if pathlib.Path(path).suffix == ".py":   # cupy, pycuda
            from .ptx.strings_frontend import import_strings
            return import_strings(path, cuda, kernel, **(ptx or {}))
        from .ptx.frontend import import_cu
        return import_cu(path, cuda, kernel, **(ptx or {}))
    file = find_file(path)
    if file.suffix != ".py":
        raise KernelFileError(f"{path}: not a file smemsim reads (a .cu or a header, a kernels "
                              "file or a numba, Triton, cupy or pycuda program, .py)")
    try:
        tree = parse_python(file.read_bytes(), str(file))
    except (SyntaxError, ValueError):
        tree = None   # (its import says where it does not parse; nothing of it runs)
    if tree is not None and not is_kernels_module(tree):
        # (a Python file is run only where it says it describes kernels: a script given by
        # mistake is refused unread, never run)
        raise KernelFileError(f"{path} is no file smemsim reads: it compiles no CUDA string, "
                              "defines no numba or Triton kernel, and neither imports "
                              "kernels_ir nor binds KERNELS at its top level (a kernels "
                              "file, which smemsim runs): not run")
    module = _import(file)
    table = getattr(module, "KERNELS", None)
    if table is not None and not isinstance(table, dict):
        raise KernelFileError(f"{path}: KERNELS must be a dict of name -> function returning "
                              f"a Kernel, got {type(table).__name__}")
    if table:
        return {name: _builder(file, name, v) for name, v in table.items()}
    found = {n: (lambda v=v: v) for n, v in vars(module).items() if isinstance(v, Kernel)}
    if not found:
        raise KernelFileError(f"{path} defines no kernels: give it a KERNELS dict of "
                              "name -> function returning a Kernel")
    return found


def _builder(file: pathlib.Path, name: str, entry) -> Callable[[], Kernel]:
    """KERNELS[name] as a function that returns a Kernel or raises a located error."""
    def build() -> Kernel:
        kernel = _call_user(file, f"building KERNELS['{name}']", entry) if callable(entry) \
            and not isinstance(entry, Kernel) else entry
        if not isinstance(kernel, Kernel):
            raise KernelFileError(f"KERNELS['{name}'] of {file.name} gave "
                                  f"{type(kernel).__name__} {kernel!r:.60}, not a Kernel "
                                  "(a builder function must return k.build())")
        return kernel
    return build


def examples_folder() -> pathlib.Path:
    """Where the examples are: inside the installed package (smemsim/examples), or beside it
    in a source tree (examples/, which an editable install maps to smemsim.examples)."""
    here = pathlib.Path(__file__).resolve().parent.parent   # (smemsim/)
    return here / "examples" if (here / "examples").is_dir() else here.parent / "examples"


def not_a_file(path: str) -> str:
    """Why `path` cannot be read as a file: `no such file: PATH`, or what it is instead where
    it exists (a folder, a FIFO, a device: smemsim reads regular files only)."""
    import stat
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return f"no such file: {path}"
    kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else \
        "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else \
        "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
    return f"{path} is {kind}, not a file smemsim reads"


def find_file(path: str) -> pathlib.Path:
    """A kernels file: the path itself, or the name of an installed example (`transpose`
    finds examples/transpose.py from any directory)."""
    file = pathlib.Path(path)
    if file.is_file():
        return file.resolve()
    examples = examples_folder()
    example = examples / f"{file.stem if file.suffix == '.py' else path}.py"
    if file.parent == pathlib.Path(".") and example.is_file():
        return example
    if os.path.lexists(path):
        raise KernelFileError(not_a_file(path))
    names = sorted(p.stem for p in examples.glob("*.py") if p.stem != "__init__")
    raise KernelFileError(f"no such file: {path} (the installed examples are "
                          f"{', '.join(names)})")


def prescribes_inputs(path: str, key: str) -> bool:
    """Whether a kernels file's `ARRAYS` dict has inputs for this kernel key (a CUDA file
    has none)."""
    return not is_cuda(path) and key in _arrays_table(find_file(path))


def input_arrays(path: str, key: str, launch) -> dict | None:
    """Inputs a kernels file prescribes for one kernel (its `ARRAYS` dict: key -> function of
    the launch), or None: the kernel takes seeded random inputs."""
    if is_cuda(path):
        return None
    file = find_file(path)
    make = _arrays_table(file).get(key)
    if make is None:
        return None
    arrays = _call_user(file, f"making ARRAYS['{key}']", make, launch)
    if not isinstance(arrays, dict):
        raise KernelFileError(f"ARRAYS['{key}'] of {file.name} gave {type(arrays).__name__}, "
                              "not a dict of array name -> numpy array")
    return arrays


def _arrays_table(file: pathlib.Path) -> dict:
    table = getattr(_import(file), "ARRAYS", {})
    if not isinstance(table, dict):
        raise KernelFileError(f"{file.name}: ARRAYS must be a dict of kernel key -> function "
                              f"of the launch, got {type(table).__name__}")
    return table


def _call_user(file: pathlib.Path, doing: str, function, *args):
    """Call a function of the kernels file; its failures become located KernelFileErrors
    (KernelErrors pass through: they already name the kernel and line)."""
    try:
        return function(*args)
    except KernelError:
        raise
    except Exception as err:
        raise _located(file, doing, err) from err


_MODULES: dict[tuple[pathlib.Path, int], object] = {}


def _import(file: pathlib.Path):
    """The file's module, imported once per version of the file (the verbs ask several
    times: kernels, inputs, whether inputs are prescribed)."""
    key = (file, file.stat().st_mtime_ns)
    if key not in _MODULES:
        try:
            _MODULES[key] = _exec(file)
        except KernelError:
            raise
        except SyntaxError as err:
            loc = SourceLoc(err.filename or str(file), err.lineno or 0)
            raise KernelFileError(f"the kernels file does not parse: {err.msg}", loc=loc) \
                from err
        except Exception as err:
            raise _located(file, "importing the kernels file", err) from err
    return _MODULES[key]


def _exec(file: pathlib.Path):
    folder = file.parent
    if (folder / "__init__.py").exists():
        # a module of a package (examples/transpose.py, or smemsim/examples/transpose.py as
        # installed): import it by its dotted name, so that its relative imports of its
        # siblings (from . import gf256) work
        parts, root = [file.stem], folder
        while (root / "__init__.py").exists():
            parts.insert(0, root.name)
            root = root.parent
        loaded = sys.modules.get(parts[0])
        mine = root / parts[0] / "__init__.py"
        # a package named like a module already imported (`json/`): that name is taken, so
        # the file is loaded on its own, as a file outside a package is
        where = getattr(loaded, "__file__", None)
        if loaded is None:
            # the top package from its own folder, without putting that folder's parent on
            # sys.path (its other folders would shadow modules for this process and for
            # the workers it starts); the rest resolves through the package's __path__
            spec = importlib.util.spec_from_file_location(
                parts[0], mine, submodule_search_locations=[str(mine.parent)])
            top = importlib.util.module_from_spec(spec)
            sys.modules[parts[0]] = top
            try:
                spec.loader.exec_module(top)
            except BaseException:
                del sys.modules[parts[0]]
                raise
            return importlib.import_module(".".join(parts))
        if where and pathlib.Path(where).resolve() == mine.resolve():
            return importlib.import_module(".".join(parts))
    spec = importlib.util.spec_from_file_location(f"smemsim_input_{file.stem}", file)
    module = importlib.util.module_from_spec(spec)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec.loader.exec_module(module)
    return module


def _located(file: pathlib.Path, doing: str, err: Exception) -> KernelFileError:
    """The error at the innermost line of the kernels file (or of any file outside
    smemsim, when the fault is in a module the file imports)."""
    frames = traceback.extract_tb(err.__traceback__)
    ours = pathlib.Path(__file__).resolve().parent.parent   # (smemsim/)
    mine = [f for f in frames if pathlib.Path(f.filename).resolve() == file]
    user = [f for f in frames if ours not in pathlib.Path(f.filename).resolve().parents]
    frame = (mine or user or frames)[-1]
    return KernelFileError(f"{type(err).__name__} {doing}: {err}",
                           loc=SourceLoc(frame.filename, frame.lineno))


def select(kernels: dict, name: str | None) -> dict:
    """All kernels, or the one named (by its KERNELS key or its kernel name)."""
    if name is None:
        return kernels
    if name in kernels:
        return {name: kernels[name]}
    for key, make in kernels.items():
        if make().name == name:
            return {key: make}
    raise KernelError(f"no kernel '{name}'; this file has: {', '.join(kernels)}")

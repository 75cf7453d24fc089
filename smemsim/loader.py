"""Load the kernels a Python file describes (the CLI's input)."""
from __future__ import annotations

import importlib
import importlib.util
import pathlib
import sys
from typing import Callable

from kernels_ir import Kernel, KernelError


def load_kernels(path: str) -> dict[str, Callable[[], Kernel]]:
    """The file's kernels: its `KERNELS` dict (name -> builder function or Kernel), or else
    every module-level Kernel."""
    module = _import(find_file(path))
    table = getattr(module, "KERNELS", None)
    if isinstance(table, dict) and table:
        return {name: (v if callable(v) and not isinstance(v, Kernel) else (lambda v=v: v))
                for name, v in table.items()}
    found = {n: (lambda v=v: v) for n, v in vars(module).items() if isinstance(v, Kernel)}
    if not found:
        raise KernelError(f"{path} defines no kernels: give it a KERNELS dict of "
                          "name -> function returning a Kernel")
    return found


def find_file(path: str) -> pathlib.Path:
    """A kernels file: the path itself, or the name of an installed example (`transpose`
    finds examples/transpose.py from any directory)."""
    file = pathlib.Path(path)
    if file.is_file():
        return file.resolve()
    examples = pathlib.Path(__file__).resolve().parent.parent / "examples"
    example = examples / f"{file.stem if file.suffix == '.py' else path}.py"
    if file.parent == pathlib.Path(".") and example.is_file():
        return example
    names = sorted(p.stem for p in examples.glob("*.py") if p.stem != "__init__")
    raise KernelError(f"no such file: {path} (the installed examples are "
                      f"{', '.join(names)})")


def prescribes_inputs(path: str, key: str) -> bool:
    """Whether a kernels file's `ARRAYS` dict has inputs for this kernel key."""
    return key in getattr(_import(find_file(path)), "ARRAYS", {})


def input_arrays(path: str, key: str, launch) -> dict | None:
    """Inputs a kernels file prescribes for one kernel (its `ARRAYS` dict: key -> function of
    the launch), or None: the kernel takes seeded random inputs."""
    make = getattr(_import(find_file(path)), "ARRAYS", {}).get(key)
    return None if make is None else make(launch)


def _import(file: pathlib.Path):
    folder = file.parent
    if (folder / "__init__.py").exists():
        # a module of a package (examples/transpose.py): import it as such, so that its
        # sibling imports (from examples import gf256) work
        root = folder.parent
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        return importlib.import_module(f"{folder.name}.{file.stem}")
    spec = importlib.util.spec_from_file_location(f"smemsim_input_{file.stem}", file)
    module = importlib.util.module_from_spec(spec)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec.loader.exec_module(module)
    return module


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

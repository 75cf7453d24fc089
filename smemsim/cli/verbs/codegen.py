"""`smemsim codegen`: the CUDA C++ generated from a kernel."""
from __future__ import annotations

import re
from dataclasses import replace

from rich.console import Console

from .. import jsonout
from ..common import EXIT_OK, kernels, print_json, say
from ..options import add_common, add_kernels

HELP = "print the CUDA C++ generated from a kernel (several: one file, distinct names)"
EXAMPLES = """\
  smemsim codegen transpose --kernel naive
  smemsim codegen histogram > all.cu   (one file: kernels that share a name get their key)"""


def add_arguments(p) -> None:
    """codegen's options."""
    add_common(p)
    add_kernels(p)


def execute(args, console: Console) -> int:
    """Print the source of every selected kernel: one file that compiles (kernels that share
    a name are told apart by their key, each helper and type the kernels need appears
    once: the half-precision helpers, the tensor map type, the wgmma descriptor)."""
    from gpu_backend.codegen import PRELUDES, generate
    chosen = kernels(args)
    names = [kernel.name for _, kernel in chosen]
    sources, seen, used = {}, set(), set(names)
    for key, kernel in chosen:
        if names.count(kernel.name) > 1:
            name = _identifier(f"{kernel.name}_{key}")
            while name in used:
                name += "_"
            used.add(name)
            kernel = replace(kernel, name=name)
        src = generate(kernel).source
        for prelude in PRELUDES:
            if prelude in src:
                if prelude in seen and not args.json:   # (JSON: each source stands alone)
                    src = src.replace(prelude, "")
                seen.add(prelude)
        sources[key] = src
    if args.json:
        print_json(console, [jsonout.cuda_json(k, src) for k, src in sources.items()])
    else:
        for src in sources.values():
            say(console, src)
    return EXIT_OK


def _identifier(text: str) -> str:
    """A C identifier from a kernel name and key (`k_t<4>` -> `k_t_4_`)."""
    return re.sub(r"\W", "_", text)

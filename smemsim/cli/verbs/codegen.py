"""`smemsim codegen`: the CUDA C++ generated from a kernel."""
from __future__ import annotations

from rich.console import Console

from .. import jsonout
from ..common import EXIT_OK, kernels, print_json, say
from ..options import add_common, add_kernels

HELP = "print the CUDA C++ generated from a kernel"


def add_arguments(p) -> None:
    """codegen's options."""
    add_common(p)
    add_kernels(p)


def execute(args, console: Console) -> int:
    """Print the source of every selected kernel."""
    from gpu_backend.codegen import generate
    sources = {name: generate(kernel).source for name, kernel in kernels(args)}
    if args.json:
        print_json(console, [jsonout.cuda_json(k, src) for k, src in sources.items()])
    else:
        for src in sources.values():
            say(console, src)
    return EXIT_OK

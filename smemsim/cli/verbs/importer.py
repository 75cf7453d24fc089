"""`smemsim import`: a CUDA file's kernels as a kernels file (Python) the other verbs take."""
from __future__ import annotations

import pathlib

from rich.console import Console

from kernels_ir import KernelError

from ...loader import load_kernels, select
from .. import jsonout
from ..common import EXIT_OK, print_json, say
from ..options import add_cuda, cuda_options

HELP = "turn a CUDA file's __global__ kernels into a kernels file (Python IR)"


def add_arguments(p) -> None:
    """import's options."""
    p.add_argument("file", help="a CUDA file (.cu)")
    p.add_argument("--kernel", help="one kernel (default: every __global__ kernel)")
    p.add_argument("-o", "--output", metavar="FILE.py",
                   help="write the kernels file there (default: print it)")
    p.add_argument("--param", action="append", default=[], metavar="K=V",
                   help="a launch parameter's default, written into the file (repeatable)")
    p.add_argument("--json", action="store_true", help="print JSON (schema smemsim/1)")
    add_cuda(p)


def execute(args, console: Console) -> int:
    """Import, then build every kernel once, so that a file that does not build is an error
    here, not later."""
    options = cuda_options(args, with_params=True)
    out_dir = str(pathlib.Path(args.output).parent) if args.output else None
    from ...cuda_import import import_cuda  # here: other verbs start without it
    text = import_cuda(args.file, args.kernel, options, out_dir=out_dir)
    chosen = select(load_kernels(args.file, options), args.kernel)
    for make in chosen.values():
        make()  # raises a located error if the imported kernel does not build
    names = list(chosen)
    if args.output:
        try:
            pathlib.Path(args.output).write_text(text, encoding="utf-8")
        except OSError as err:
            raise KernelError(f"cannot write {args.output}: {err.strerror}") from None
    if args.json:
        print_json(console, [jsonout.import_json(args.file, names, text, args.output)])
    elif args.output:
        say(console, f"wrote {args.output}: {', '.join(names)} (try `smemsim analyze "
                     f"{args.output}`)")
    else:
        console.print(text, markup=False, highlight=False, emoji=False, end="")
    return EXIT_OK

"""`smemsim import`: a CUDA file's kernels as a kernels file (Python) the other verbs take."""
from __future__ import annotations

import pathlib

from rich.console import Console

from .. import jsonout, outputs
from ..common import EXIT_OK, print_json, say
from ..options import add_cuda, cuda_options

HELP = "turn a CUDA file's __global__ kernels into a kernels file (Python IR)"
EXAMPLES = """\
  smemsim import kernel.cu -o kernels.py
  smemsim import kernel.cu --kernel 'k<float, 4>' -D BLOCK=256 --param n=4096"""


def add_arguments(p) -> None:
    """import's options."""
    p.add_argument("file", help="a CUDA file (.cu)")
    p.add_argument("--kernel", help="one kernel (default: every __global__ kernel)")
    p.add_argument("-o", "--output", metavar="FILE.py",
                   help="write the kernels file there (default: print it); an existing file "
                        "is replaced only if `smemsim import` wrote it, or with --force")
    p.add_argument("--force", action="store_true",
                   help="replace an existing -o file whatever it holds")
    p.add_argument("-p", "--param", action="append", default=[], metavar="K=V",
                   help="a launch parameter's default, written into the file (repeatable)")
    p.add_argument("--json", action="store_true", help="print JSON (schema smemsim/1)")
    p.add_argument("--arch", default="sm_90", help="the architecture nvcc builds for "
                                                   "(default sm_90)")
    add_cuda(p)


def execute(args, console: Console) -> int:
    """Import (every kernel is read from nvcc's build here, so a file that does not build
    is an error now, not later), then write the kernels file: the builder calls of the IR
    that was read."""
    options = cuda_options(args, with_params=True)
    if args.output:  # a kernels file import wrote and nobody edited is replaced
        outputs.claim(args.output, "-o", args, "import", ours=outputs.sealed,
                      source_ok=(".py",))
    from ...frontends.ptx.frontend import write_kernels_file  # here: other verbs start without it
    folder = str(pathlib.Path(args.output).resolve().parent) if args.output else None
    text, names = write_kernels_file(args.file, options, args.kernel, folder, args.arch,
                                     tuple(args.nvcc_flag))
    if args.output:
        outputs.write(args.output, outputs.seal(text, ("# ", "")), "-o")
    if args.json:
        print_json(console, [jsonout.import_json(args.file, names, text, args.output)])
    elif args.output:
        say(console, f"wrote {args.output}: {', '.join(names)} (try `smemsim analyze "
                     f"{args.output}`)")
    else:
        console.print(text, markup=False, highlight=False, emoji=False, end="", soft_wrap=True)
    return EXIT_OK

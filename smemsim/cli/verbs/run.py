"""`smemsim run`: run on the GPU and compare every output with the interpreter."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError

from .. import jsonout
from ..common import (
    EXIT_GATE, EXIT_OK, busy, inputs, kernels, own_params, print_json, require_gpu, say,
)
from ..options import add_common, add_kernels, parse_params

HELP = "run on the GPU and compare every output with the interpreter"
EXAMPLES = """\
  smemsim run transpose --kernel naive   (needs a GPU)"""


def add_arguments(p) -> None:
    """run's options."""
    add_common(p)
    add_kernels(p)


def execute(args, console: Console) -> int:
    """Run every selected kernel once on the GPU; exit 1 if an output differs."""
    from gpu_backend.compile import ToolMissing
    from gpu_backend.device import run_on_gpu
    require_gpu("run")
    given = parse_params(args.param)
    code, docs = EXIT_OK, []
    chosen = kernels(args)
    for name, kernel in chosen:
        params = own_params(given, kernel, chosen)
        try:
            with busy(console, args, f"running {kernel.name} on the GPU and the interpreter"):
                r = run_on_gpu(kernel, params, inputs(args, name, kernel, params))
        except ToolMissing as err:
            raise KernelError(f"run: {err}") from None
        if not r.matches:
            code = EXIT_GATE
        docs.append(jsonout.gpu_run_json(r))
        if not args.json:
            verdict = "outputs match the interpreter" if r.matches else \
                "OUTPUTS DIFFER: " + "; ".join(f"{m.array}: {m.detail}" for m in r.mismatches)
            say(console, f"{r.kernel} on {r.device} ({r.arch}): {verdict}")
    if args.json:
        print_json(console, docs, exit_code=code)
    return code

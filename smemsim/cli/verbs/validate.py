"""`smemsim validate`: run under Nsight Compute and compare its counters with the prediction."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError, resolve_launch

from ...launch.analysis import analyze
from .. import jsonout
from ..common import (
    EXIT_GATE, EXIT_OK, busy, inputs, kernels, own_params, print_json, ptx_reading,
    require_gpu, say,
)
from ..options import add_common, add_kernels, add_loop_limit, cuda_options, parse_params

HELP = "run on the GPU under Nsight Compute: predicted vs measured counters"
EXAMPLES = """\
  smemsim validate transpose --kernel naive   (needs a GPU and Nsight Compute)"""


def add_arguments(p) -> None:
    """validate's options."""
    add_common(p)
    add_kernels(p)
    p.add_argument("--as-compiled", action="store_true",
                   help="predict what the profiled program emits (NVRTC's build of the "
                        "generated CUDA, which validate runs): accesses it merged, widened "
                        "or dropped counted as emitted (docs/as-compiled.md)")
    add_loop_limit(p)


def execute(args, console: Console) -> int:
    """Profile every selected kernel; exit 1 if a counter disagrees."""
    from gpu_backend.measure import MeasureError, compare_counts, measure
    require_gpu("validate")
    given = parse_params(args.param)
    code, docs = EXIT_OK, []
    # the profiled process imports a CUDA file as this one did (its -D, --length, launch,
    # textures...) and runs on the inputs the prediction was made on
    options = cuda_options(args)
    chosen = kernels(args)
    for name, kernel in chosen:
        params = own_params(given, kernel, chosen)
        launch = resolve_launch(kernel, params)
        arrays = inputs(args, name, kernel, params)
        if args.as_compiled:   # the build validate runs, not the user's own nvcc build
            from gpu_backend.as_compiled import analyze_as_compiled
            r = analyze_as_compiled(kernel, params, arch=args.arch, arrays=arrays,
                                    loop_limit=args.loop_limit)
        else:
            r = analyze(kernel, params, arch=args.arch, arrays=arrays,
                        loop_limit=args.loop_limit)
        try:
            with busy(console, args, f"profiling {kernel.name} with Nsight Compute"):
                m = measure(args.file, name, dict(launch.params), kernel.name,
                            options=options, arrays=arrays, ptx=ptx_reading(args))
        except MeasureError as err:
            raise KernelError(f"validate: {err}") from None
        agreement = compare_counts(r, m)
        code = code if agreement.ok else EXIT_GATE
        docs.append(jsonout.agreement_json(agreement))
        if not args.json:
            say(console, f"{kernel.name}: {'agrees' if agreement.ok else 'DISAGREES'}")
            for c in agreement.checks:
                say(console, f"  {c.what:<17} predicted {c.predicted:>15,}  measured "
                             f"{c.measured:>15,}")
            if agreement.unmeasured:
                say(console, "  this ncu has no counter for: " +
                    ", ".join(agreement.unmeasured))
            for note in r.compiler:
                say(console, "  " + note)
    if args.json:
        print_json(console, docs, exit_code=code)
    return code

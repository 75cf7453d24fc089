"""`smemsim occupancy`: blocks and warps per SM, every limiter, and what-if curves."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError

from ...launch.occupancy import occupancy, what_if
from .. import jsonout, render
from ..common import (
    EXIT_GATE, EXIT_OK, kernels, launch_bound, occupancy_of, one_kernel, own_params, print_json,
    say,
)
from ..options import add_common, add_kernels, add_regs, cuda_flags_given, fraction, parse_params

HELP = "blocks and warps per SM, limiters, what-if curves"
EXAMPLES = """\
  smemsim occupancy --arch sm_80 --threads 256 --regs 128 --smem 32768
  smemsim occupancy examples/transpose.cu               (registers of nvcc's build)"""


def add_arguments(p) -> None:
    """occupancy's options."""
    add_common(p)
    add_kernels(p, file_required=False, one=True)
    p.add_argument("--threads", type=int, help="threads per block")
    add_regs(p, "registers per thread, or 'compile': the count of the file's build (the "
                "default for a .cu; without a FILE, --regs N is needed)")
    p.add_argument("--smem", type=int, help="static shared memory bytes")
    p.add_argument("--dynamic-smem", type=int, help="dynamic shared memory bytes")
    p.add_argument("--carveout", type=int, help="shared-memory carveout percentage")
    p.add_argument("--no-opt-in", action="store_true",
                   help="the kernel keeps the 48 KiB default dynamic limit")
    p.add_argument("--fail-below", type=fraction, metavar="FRACTION",
                   help="exit 1 when occupancy is below FRACTION")


def execute(args, console: Console) -> int:
    """The calculator for a kernel of a file, or for numbers given on the command line."""
    if args.file:
        given = [flag for flag, value in (("--threads", args.threads), ("--smem", args.smem),
                                          ("--dynamic-smem", args.dynamic_smem),
                                          ("--no-opt-in", args.no_opt_in or None))
                 if value is not None]
        if given:
            from ...frontends.loader import is_cuda
            how = "--launch-block and --launch-smem (the launch the host code makes), -D " \
                "or --param" if is_cuda(args.file) else "--param"
            raise KernelError(f"{', '.join(given)}: with a kernels FILE, the block size and "
                              "shared memory come from the kernel's launch and declarations; "
                              f"change them with {how}, or drop FILE to size a kernel by "
                              "numbers")
        regs = args.regs
        if regs is None:
            from ...frontends.loader import is_cuda
            if not is_cuda(args.file):
                raise KernelError("occupancy of a kernels file needs --regs N (or --regs "
                                  "compile: NVRTC's build of its CUDA)")
            regs = "compile"   # (a .cu is read from nvcc's build: its registers are known)
        results = []
        chosen = _chosen(args)
        given = parse_params(args.param)
        for key, kernel in chosen:
            # (-p of a file's several kernels: each its own, as analyze takes them)
            o = occupancy_of(kernel, args.arch, regs, own_params(given, kernel, chosen),
                             args.carveout, source=(args, key))
            bound = launch_bound(kernel)
            if bound is not None and o.block_size > bound:
                raise KernelError(f"{kernel.name}: a block of {o.block_size} threads, past "
                                  f"the build's __launch_bounds__ of {bound}: the launch "
                                  "fails (too many resources requested)")
            results.append((kernel.title, o, bound))   # (an instance: `k<2>`)
    else:
        given = [flag for flag, value in (
            ("--kernel", args.kernel), ("--param", args.param), ("--data", args.data))
            if value] + cuda_flags_given(args)
        if given:
            raise KernelError(f"{', '.join(given)}: only with a kernels FILE (or a .cu file); "
                              "without one, occupancy sizes a kernel by --threads, --regs "
                              "and --smem")
        if args.threads is None:
            raise KernelError("occupancy needs --threads (or a kernels FILE)")
        if args.regs is None:
            raise KernelError("occupancy needs --regs N (or a kernels FILE)")
        if args.regs == "compile":
            raise KernelError("--regs compile needs a kernels FILE to compile")
        results = [(None, occupancy(args.arch, args.threads, args.regs, args.smem or 0,
                                    args.dynamic_smem or 0, args.carveout,
                                    not args.no_opt_in), None)]
    below = [(name, o) for name, o, _ in results
             if args.fail_below is not None and o.occupancy < args.fail_below]
    code = EXIT_GATE if below else EXIT_OK
    if args.json:
        print_json(console, [jsonout.occupancy_json(o, what_if(o, bound)) |
                             ({"kernel": name} if name else {})
                             for name, o, bound in results], exit_code=code)
        return code
    for name, o, bound in results:
        if len(results) > 1:
            say(console, f"{name}:")
        console.print(render.occupancy_view(o))
        for c in what_if(o, bound):
            console.print(render.curve_view(c))
            if c.knob == "block_size" and bound is not None:
                say(console, f"(block sizes up to the build's __launch_bounds__ of {bound})")
    for name, o in below:
        say(console, f"gate: occupancy {o.occupancy:.3f} < {args.fail_below}" +
            (f" ({name})" if name else ""))
    return code


def _chosen(args) -> list:
    """The kernels the command line chooses. Where the host code's grid of one cannot be
    read (a size it computes at run time: a radix sort's `scan_sizes[i]`), which occupancy
    does not depend on, every kernel is read again with a grid of one block, said on
    stderr; a kernel whose block cannot be read either stays an error."""
    from ..common import REFUSED
    before = len(REFUSED)

    def read() -> list:
        return [one_kernel(args)] if args.kernel else kernels(args)
    try:
        chosen, raised = read(), None
    except KernelError as err:
        chosen, raised = None, err
    asked = [str(raised)] if raised is not None else getattr(args, "failed_kernels", [])
    if args.launch_grid is not None or not any("--launch-grid" in t for t in asked):
        if raised is not None:
            raise raised
        return chosen
    args.launch_grid = "1"
    del REFUSED[before:]   # (the first reading's refusals: the second says its own)
    try:
        chosen = read()
    except KernelError:
        if raised is not None:
            raise raised from None   # (the block could not be read either)
        raise
    import sys
    print("note: occupancy does not depend on the grid, which the host code's launch "
          "computes at run time: the blocks are read with --launch-grid 1", file=sys.stderr)
    return chosen

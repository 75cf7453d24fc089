"""`smemsim ncu`: your Nsight Compute report explained. Each profiled kernel's per-line
shared-memory counters (SourceCounters) against the prediction of the same launch from your
FILE, each difference attributed (smemsim.hardware.measured)."""
from __future__ import annotations


import copy

from rich.console import Console

from kernels_ir import KernelError

from ...launch.analysis import analyze
from ...hardware.measured import compare
from ...hardware.ncu_reports import read_report, template_key
from .. import jsonout, render
from ..common import EXIT_OK, inputs, one_kernel, print_json
from ..options import add_common, add_kernels, add_loop_limit, parse_params

HELP = "your Nsight Compute report's shared-memory counters against the prediction, line by line"
EXAMPLES = """\
  smemsim ncu prof.ncu-rep app.cu                 (every kernel of the report)
  smemsim ncu prof.ncu-rep app.cu --kernel gemm -p K=4096 --json
  (the report: ncu --section SourceCounters -o prof ./app; build app with -lineinfo)"""


def add_arguments(p) -> None:
    """ncu's options: the report, then what analyze takes of the FILE."""
    add_common(p)
    p.add_argument("report", help="an Nsight Compute report (.ncu-rep) with the "
                   "SourceCounters section (ncu --section SourceCounters, or --set full)")
    add_kernels(p, file_required=False)
    add_loop_limit(p)


def execute(args, console: Console) -> int:
    """Compare each selected kernel of the report with its prediction."""
    measured = read_report(args.report)
    chosen = [m for m in measured if args.kernel is None or
              args.kernel in (m.name, m.mangled, template_key(m.demangled)) or
              args.kernel.split("<")[0].split("::")[-1] == m.name]
    if not chosen:
        raise KernelError(f"{args.report}: no profiled kernel is {args.kernel!r} (the report "
                          f"has {', '.join(sorted({m.name for m in measured}))})")
    if args.file is None:
        raise KernelError(f"smemsim ncu {args.report}: give the FILE the kernel was built from "
                          "(its .cu, or kernels file), to predict the same launch")
    given = parse_params(args.param)
    docs, views = [], []
    for m in chosen:
        mine = copy.copy(args)
        mine.kernel = args.kernel or _key_of(args, m)
        # the profiled launch, unless the command line gives another
        mine.launch_grid = args.launch_grid or ",".join(map(str, m.grid))
        mine.launch_block = args.launch_block or ",".join(map(str, m.block))
        if getattr(args, "launch_smem", None) is None:
            mine.launch_smem = str(m.dynamic_smem)
        key, kernel = one_kernel(mine)
        report = analyze(kernel, given, arch=args.arch,
                         arrays=inputs(mine, key, kernel, given), loop_limit=args.loop_limit)
        c = compare(m, report, kernel.notes, _sass(mine, key, kernel))
        docs.append(jsonout.comparison_json(c, args.report))
        views.append(render.comparison_view(c))
    if args.json:
        print_json(console, docs)
    else:
        for v in views:
            console.print(v)
    return EXIT_OK


def _key_of(args, m) -> str:
    """The FILE's kernel the report's kernel is: the one of its name (a template's instance
    as the report names it), else the PTX entry's symbol."""
    from ...frontends.loader import load_kernels
    from ..common import ptx_reading
    from ..options import cuda_options
    try:
        keys = list(load_kernels(args.file, cuda_options(args), ptx_reading(args)))
    except KernelError:
        return m.mangled
    wanted = template_key(m.demangled)
    same = [k for k in keys if k == wanted] or \
        [k for k in keys if k.split("<")[0].split("::")[-1] == m.name]
    return same[0] if len(same) == 1 else m.mangled


def _sass(args, key: str, kernel):
    """The build's SASS of the kernel (to place measured instructions by address), or None
    for a file not built by nvcc."""
    from ...frontends.loader import is_cuda
    if not is_cuda(args.file) or kernel.built is None:
        return None
    from ...frontends.ptx.frontend import built_sass
    from ..options import cuda_options
    return built_sass(args.file, cuda_options(args), key, kernel.built.symbol, args.arch,
                      tuple(getattr(args, "nvcc_flag", None) or ()))



"""`smemsim explain`: why a site's worst request costs what it does, bank by bank."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError

from ...analysis import analyze
from ...banks import warp_request
from .. import jsonout, render
from ..common import EXIT_OK, inputs, one_kernel, print_json
from ..options import add_common, add_kernels, add_loop_limit, parse_params

HELP = "why a site's worst request costs what it does"
EXAMPLES = """\
  smemsim explain examples/transpose.cu --kernel transpose 1
  smemsim explain transpose --kernel naive 1 --json"""


def add_arguments(p) -> None:
    """explain's options."""
    add_common(p)
    add_kernels(p, one=True)
    add_loop_limit(p)
    p.add_argument("site", type=int, nargs="?", help="site number (default: the worst)")


def execute(args, console: Console) -> int:
    """Explain one site's worst request of one kernel."""
    params = parse_params(args.param)
    key, kernel = one_kernel(args)
    r = analyze(kernel, params, arch=args.arch, arrays=inputs(args, key, kernel, params),
                loop_limit=args.loop_limit)
    if not r.sites:
        raise KernelError(f"kernel '{kernel.name}' has no shared-memory accesses")
    lanes = [s for s in r.sites if s.explainable]
    if args.site is None and not lanes:
        raise KernelError(f"kernel '{kernel.name}' has only TMA and wgmma sites: each is one "
                          "instruction of the async proxy, with no lanes to explain "
                          "(docs/tma.md, docs/wgmma.md)")
    site = max(lanes, key=lambda s: (s.excess, s.wavefronts)) if args.site is None \
        else r.site(args.site) if args.site in [s.site for s in r.sites] else None
    if site is None:
        raise KernelError(f"kernel '{kernel.name}' has no site {args.site}; its sites are "
                          f"{[s.site for s in r.sites]}")
    if not site.explainable:
        what = "a wgmma" if site.op == "wgmma" else "a TMA or bulk copy"
        readers = [s.site for s in lanes if s.array == site.array]
        raise KernelError(
            f"site {site.site} is {what}: one instruction of the async proxy, costed as a "
            "whole (no lanes, never a bank conflict in Nsight's counters; analyze prints its "
            "figures)" + (f"; the sites that read or write '{site.array}' by lane are "
                          f"{readers}" if readers else ""))
    if site.worst is None:
        raise KernelError(f"site {site.site} issues no request at this launch")
    req = warp_request(site.worst.offsets, site.width, site.op, args.arch, window=r.window,
                       matrices=site.matrices)
    w = site.worst.where
    its = ", ".join(f"{k}={v}" for k, v in w.iterations)
    title = (f"{r.kernel} site {site.site}, line {site.loc.line}: {site.statement}\n"
             f"worst request: block {w.block}, warp {w.warp}"
             + (f", iteration {its}" if its else ""))
    if args.json:
        print_json(console, [jsonout.request_json(req)], site=site.site, kernel=r.kernel)
    else:
        console.print(render.explain_view(req, title))
    return EXIT_OK

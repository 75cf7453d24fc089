"""`smemsim explain`: why a site's worst request costs what it does, bank by bank."""
from __future__ import annotations

import os

from rich.console import Console

from kernels_ir import KernelError
from kernels_ir.errors import iterations_text

from ...launch.analysis import analyze
from ...engine.banks import warp_request
from .. import jsonout, render
from ..common import EXIT_OK, inputs, kernels, one_kernel, print_json
from ..phrases import numbers_text, shown_statement
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
    p.add_argument("site", nargs="?",
                   help="site number, or [FILE:]LINE: the worst site of that line, or of a "
                        "call at that line (default: the worst site)")


def _file_with_its_line(args) -> None:
    """`explain gemm.cu:27` (FILE:LINE as the file, as an editor or a compiler writes a
    place): the file, and the place its site."""
    import os
    import re
    m = re.fullmatch(r"(.+):(\d+)", args.file or "")
    if m and args.site is None and not os.path.exists(args.file) and \
            os.path.isfile(m.group(1)):
        args.file, args.site = m.group(1), args.file


def execute(args, console: Console) -> int:
    """Explain one site's worst request (of one kernel, or the worst of a file's kernels)."""
    params = parse_params(args.param)
    _file_with_its_line(args)
    number, line = _site_argument(args.site)
    analyses = []
    chosen = _kernels(args, number)
    _named_site_exists([kernel for _, kernel in chosen], number, line, args.site)
    for key, kernel in chosen:
        r = analyze(kernel, params, arch=args.arch, arrays=inputs(args, key, kernel, params),
                    loop_limit=args.loop_limit)
        analyses.append((kernel, r))
    kernel, r, site = _chosen(analyses, number, line, args.site)
    if not site.explainable:
        what = "a wgmma" if site.op == "wgmma" else "a TMA or bulk copy"
        readers = [s.site for s in r.sites if s.explainable and s.array == site.array]
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
    its = iterations_text(w.iterations)
    # (a .cu's own line, and the statement the analysis counts, read from nvcc's build)
    shown = shown_statement(site)
    # (the statement the analysis read, nvcc's build of the line, is JSON's `statement`)
    title = (f"{r.kernel} site {site.site}, {site.loc.chain()}: {shown}\n"
             f"worst request: block {w.block}, warp {w.warp}"
             + (f", {its}" if its else ""))
    if args.json:
        print_json(console, [jsonout.request_json(req)], site=site.site, kernel=r.kernel)
    else:
        console.print(render.explain_view(req, title))
    return EXIT_OK


def _named_site_exists(kernels, number, line, text) -> None:
    """Refuse a site number or a line no site of the kernels has, before any analysis (the
    kernels know their sites: a launch that takes minutes to trace answers at once)."""
    sites = [s for k in kernels for s in k.sites()]
    if number is not None and number not in [s.site for s in sites]:
        # (a line of a site, or of a call that inlined one: what the user meant, likely)
        at = [s.loc for s in sites if _at_line(s, (None, number))]
        file = os.path.basename(at[0].file) if at else ""
        raise KernelError(f"kernel '{kernels[0].name}' has no site {number}; its sites are "
                          f"{numbers_text(sorted(s.site for s in sites)) if sites else 'none'}"
                          + (f" (line {number} has sites: give it as {file}:{number})"
                             if at else ""))
    if line is not None and sites and not any(_at_line(s, line) for s in sites):
        places = {(s.loc.file, s.loc.line, s.loc.column): str(s.loc) for s in sites}
        # (nvcc's line table may have put the line's accesses at another line: its note)
        said = [n for k in kernels for n in k.notes
                if f"{os.path.basename(line[0] or '')}:{line[1]} calls" in n or
                (line[0] is None and f":{line[1]} calls" in n)]
        raise KernelError(f"no shared access site at {text}; the sites are at "
                          f"{', '.join(places[k] for k in sorted(places))}"
                          + (f" ({said[0]})" if said else _merged_hint(sites, line)))


def _merged_hint(sites, line) -> str:
    """Where a wide access sits within three lines of `line` (file or None, number): the
    compiler may have stored this line's value with it (`s[t].x = ..; s[t].y = ..;` as one
    8-byte store at the second line)."""
    near = [s for s in sites if s.loc is not None and
            (line[0] is None or os.path.basename(s.loc.file) == os.path.basename(line[0]))
            and 0 < abs(s.loc.line - line[1]) <= 3 and s.access_bytes > 4]
    if not near:
        return ""
    # (of two as near, the later: a store of several lines' values lands at the last)
    s = min(near, key=lambda s: (abs(s.loc.line - line[1]), s.loc.line < line[1]))
    what = "load" if s.op.startswith("load") else "store" if s.op.startswith("store") else s.op
    article = "an" if str(s.access_bytes).startswith("8") else "a"
    return (f" (site {s.site} at line {s.loc.line} is {article} {s.access_bytes}-byte {what}: the "
            f"compiler may have merged this line's access into it)")


def _site_argument(text: str | None) -> tuple[int | None, tuple[str | None, int] | None]:
    """(site number, None) or (None, (file or None, line)) of the site argument."""
    if text is None:
        return None, None
    if text.isdigit():
        return int(text), None
    where, sep, line = text.rpartition(":")
    if line.isdigit() and (sep or where == ""):
        return None, (where or None, int(line))
    raise KernelError(f"site '{text}': give a site number (analyze's `site` column) or "
                      "[FILE:]LINE, for example transpose.cu:13")


def _kernels(args, number):
    """The kernels to look in: the one `--kernel` names or the file has; every kernel of the
    file for the worst site or a line (a site number belongs to one kernel)."""
    return [one_kernel(args)] if number is not None or args.kernel else kernels(args)


def _at_line(site, where: tuple[str | None, int]) -> bool:
    """Whether a site is at [FILE:]LINE, or inlined by a call at that line."""
    import os
    name, line = where
    places = [(site.loc.file, site.loc.line), *site.loc.calls]
    return any(n == line and (name is None or os.path.basename(f) == os.path.basename(name)
                              and (os.sep not in name or f.endswith(name)))
               for f, n in places)


def _chosen(analyses, number, line, text):
    """(kernel, its analysis, the site to explain)."""
    if not any(r.sites for _, r in analyses):
        raise KernelError(f"kernel '{analyses[0][0].name}' has no shared-memory accesses"
                          if len(analyses) == 1 else "no kernel of the file accesses shared "
                          "memory")
    if number is not None:
        kernel, r = analyses[0]
        if number not in [s.site for s in r.sites]:
            at = [str(s.loc) for s in r.sites if s.loc.line == number]
            raise KernelError(f"kernel '{kernel.name}' has no site {number}; its sites are "
                              f"{[s.site for s in r.sites]}" +
                              (f" (line {number} is {at[0]}: give it as FILE:LINE)"
                               if at else ""))
        return kernel, r, r.site(number)
    found = [(kernel, r, s) for kernel, r in analyses for s in r.sites
             if s.explainable and (line is None or _at_line(s, line))]
    if not found:
        if line is not None:
            places = {(s.loc.file, s.loc.line, s.loc.column): str(s.loc)
                      for _, r in analyses for s in r.sites}
            lines = [places[k] for k in sorted(places)]   # (by line, not as text)
            raise KernelError(f"no shared access site at {text}; the sites are at "
                              f"{', '.join(lines)}")
        raise KernelError(f"kernel '{analyses[0][0].name}' has only TMA and wgmma sites: "
                          "each is one instruction of the async proxy, with no lanes to "
                          "explain (docs/tma.md, docs/wgmma.md)")
    # the site analyze's hint names: the costliest site of the line with the most excess
    # (a line unrolled into many sites outweighs one bad site elsewhere)
    lines: dict = {}
    for f in found:
        lines.setdefault((id(f[0]), f[2].loc.file, f[2].loc.line), []).append(f)
    top = max(lines.values(), key=lambda fs: (sum(f[2].excess for f in fs),
                                              sum(f[2].wavefronts for f in fs)))
    return max(top, key=lambda f: (f[2].excess, f[2].wavefronts))

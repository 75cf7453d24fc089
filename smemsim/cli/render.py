"""Rich renderings of analyses for the terminal (with the CLI, the only module that knows rich)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich import box
from rich.console import Group as RichGroup
from rich.table import Table
from rich.text import Text

from kernels_ir.layout import tma_swizzle

from ..launch.bulk import COUNTERS
from .phrases import is_estimate, params_text, shown_statement, sites_word

if TYPE_CHECKING:  # annotations only
    from ..launch.analysis import Report
    from ..engine.banks import WarpRequest
    from ..search.fix import FixSearch
    from ..launch.occupancy import Curve, Occupancy

_DEGREE_STYLE = {1: "green", 2: "yellow", 3: "yellow", 4: "dark_orange"}


def _count(n: int, top: int | None = None) -> str:
    """Exact with separators below ten million; in millions above (totals lines stay
    exact). `top`: the largest figure of the figure's column, whose unit the column shares
    (5.2M beside 23.6M, not 5,242,880)."""
    top = n if top is None else top
    if top < 10_000_000 or n == 0:
        return f"{n:,}"
    # (millions, one unit down the column: 1,100.0M beside 0.5M, never 0.0G for 524,288;
    # a figure under 50,000 stays exact)
    return f"{n / 1e6:,.1f}M" if n >= 50_000 else f"{n:,}"


def _degree_style(n: int) -> str:
    return _DEGREE_STYLE.get(n, "red bold")


# the site table's columns, and the order they are left out in when the console is too
# narrow for every figure whole (a figure is never cut)
_SITE_COLUMNS = (("#", "right"), ("line", "right"), ("array", "left"), ("access", "left"),
                 ("requests", "right"), ("wavefronts", "right"), ("ideal", "right"),
                 ("excess", "right"), ("wf/req", "right"), ("%", "right"))
_DROPPABLE = ("ideal", "%", "wf/req")


def report_table(r: Report, explain_command: str | None = None,
                 width: int | None = None) -> RichGroup:
    """The analyze view: launch line, one row per site, totals, worst sites highlighted.
    Within `width` columns, columns are left out (and said so) rather than cut."""
    head = Text(f"{r.kernel}: grid {r.grid}, block {r.block}, shared {r.static_smem} B static"
                f" + {r.dynamic_smem} B dynamic; {r.arch} ({_rules(r)})", style="bold")
    params = params_text(r.params)
    parts = [head, Text(f"parameters: {params or 'none'}")]
    if not r.sites:
        parts.append(Text("no shared-memory accesses: nothing to analyze here"))
        return RichGroup(*parts)
    worst = _worst_site(r)
    groups, idle = site_groups(r.sites)
    # exact counts, unless the terminal is too narrow for them: then each count column in
    # its largest figure's unit (millions), then columns left out
    rows = [_group_row(g, None) for g in groups]
    shown = [c for c, _ in _SITE_COLUMNS]
    left_out = []
    t = _site_table(groups, rows, shown, worst)
    if width is not None and _width_of(t) > width:
        tops = {c: max(sum(getattr(x, c) for x in g) for g in groups)
                for c in ("requests", "wavefronts", "ideal", "excess")}
        rows = [_group_row(g, tops) for g in groups]
        t = _site_table(groups, rows, shown, worst)
    for drop in _DROPPABLE:
        if width is None or _width_of(t) <= width:
            break
        shown.remove(drop)
        left_out.append(drop)
        t = _site_table(groups, rows, shown, worst)
    parts.append(t)
    if left_out:
        parts.append(Text(f"(left out at {width} columns: {', '.join(left_out)}; a wider "
                          "terminal or --json shows every column)"))
    for g in groups:
        parts.append(Text(f"  {sites_word(g)} ({g[0].loc.chain()}): {shown_statement(g[0])}"))
    if idle:
        parts.append(Text(f"not shown: {sites_word(idle)}, which this launch never runs "
                          "(code the build has for other launches: a loop's copies for "
                          "other trip counts, a branch no thread takes); --json lists every "
                          "site"))
    bounded = {c for s in r.sites if s.at_least for c in s.classes}
    for (name, tot), c in zip(_class_lines(r), _class_keys(r)):
        least = "at least " if c in bounded else ""
        parts.append(Text(f"{name}: {least}{tot.requests:,} requests, {least}"
                          f"{tot.wavefronts:,} wavefronts, ideal {tot.ideal:,}, excess "
                          f"{least}{tot.excess:,}"))
    for s in r.sites:
        if s.tma is not None:
            t = s.tma
            names = COUNTERS[t.direction]
            moved = f"{t.global_bytes:,}" if t.global_bytes_exact else \
                f"at least {t.global_bytes:,} (where the copies start within a 32-byte " \
                "sector is not known from the code: each row reads the sectors it touches)"
            parts.append(Text(
                f"{'TMA' if 'tma' in s.op else 'bulk'} site {s.site}: {t.copies:,} copies of "
                f"{s.width:,} B; {names['instructions']} {t.instructions:,}, "
                f"{names['bank_words']} +{t.bank_words:,}, {names['global_bytes']} {moved}; "
                "no LSU wavefronts (Nsight counts none for TMA: the sites that read or write "
                "the tile carry the layout's cost)"))
    if r.excess:
        # by source line: nvcc unrolls a loop into many sites of one line, and the line is
        # what the user changes
        lines: dict = {}
        for s in r.sites:
            if s.requests:
                lines.setdefault((s.loc.file, s.loc.line), []).append(s)
        ranked = sorted(lines.values(), key=lambda ss: -sum(s.excess for s in ss))
        # (a line is named by its file too where the sites are in several: a header's)
        several = len({f for f, _ in lines}) > 1
        named = lambda s: f"{os.path.basename(s.loc.file)}:{s.loc.line}" if several \
            else f"line {s.loc.line}"  # noqa: E731
        if len(lines) < len(groups) and len(groups) > 12:
            parts.append(Text("by line, most excess first: " + "; ".join(
                f"{named(ss[0])}: {sum(s.excess for s in ss):,} excess over "
                f"{len(ss)} site{'s' if len(ss) > 1 else ''}"
                for ss in ranked[:5] if sum(s.excess for s in ss))))
        top = ranked[0]
        excess = sum(s.excess for s in top)
        many = f" over {len(top)} sites" if len(top) > 1 else ""
        parts.append(Text(f"worst: {named(worst)} adds {excess:,} wavefronts "
                          f"({excess / r.excess:.0%} of the excess){many}; its costliest "
                          f"site is {worst.site}" + ("; why:" if explain_command else ""),
                          style="bold"))
        if explain_command:  # on its own line, whole, to be copied
            parts.append(Text(f"  {explain_command} {worst.site}", no_wrap=True,
                              overflow="ignore"))
    if any(s.as_stated and s.requests for s in r.sites):
        parts.append(Text("†: ptxas built these lines otherwise than their PTX, in a way the "
                          "reading does not follow: counted as the PTX states, not as built "
                          "(the notes below say how, and whether that is at most or at least "
                          "the build's)"))
    if any(s.data_dependent for s in r.sites):
        parts.append(Text("*: what these sites access, or how often they run, depends on the "
                          "input data: counted on this launch's inputs (below: seeded random "
                          "unless --data gives an array's values)"))
    for line in sorted({s.retry_loop for s in r.sites if s.retry_loop is not None and
                        s.requests}):
        mine = [s for s in r.sites if s.retry_loop == line and s.requests]
        listed = ", ".join(str(s.site) for s in mine)
        if all(s.at_least for s in mine):
            parts.append(Text(
                f"at least: site(s) {listed} run in the loop of line {line}, which retries "
                "until a store to shared memory survives; counted with one contending store "
                "landing per pass, the fewest there can be: under independent thread "
                "scheduling the GPU may issue the divergent warp's instructions in more than "
                "one group (docs/hardware-rules.md)"))
        else:
            parts.append(Text(
                f"estimate: site(s) {listed} run in the loop of line {line}, which retries "
                "until a store to shared memory survives, and lanes of several warps "
                "contend for one word: counted with the block's warps in lock-step, one "
                "store landing per pass; the GPU's passes depend on its scheduling"))
    fewest = [str(s.site) for s in r.sites if s.op == "atomic_cas_loop" and s.at_least and
              s.requests]
    if fewest:
        parts.append(Text(f"at least: site(s) {', '.join(fewest)} compile to a CAS loop, "
                          "counted as each warp alone: the fewest passes there can be; warps "
                          "that add to one word at once fail more compare-and-swaps and pass "
                          "again (docs/hardware-rules.md)"))
    loops = [str(s.site) for s in r.sites if s.op == "atomic_cas_loop" and not s.at_least and
             s.requests]
    if loops:
        parts.append(Text(f"estimate: site(s) {', '.join(loops)} compile to a CAS loop, whose "
                          "passes depend on timing between warps and on the data; counted "
                          "as each warp alone (docs/hardware-rules.md)"))
    return RichGroup(*parts)




def kernels_summary(reports: list, failed: int = 0) -> RichGroup:
    """Several kernels' reports in one table, most excess first: each kernel's requests,
    wavefronts, excess and its worst line (what a file of many template instances sums
    to, below their own tables); `failed`: kernels not counted, said after it."""
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    for col, justify in (("kernel", "left"), ("requests", "right"), ("wavefronts", "right"),
                         ("excess", "right"), ("worst line", "left")):
        t.add_column(col, justify=justify, no_wrap=True)
    for r in sorted(reports, key=lambda r: -r.excess):
        worst = _worst_site(r) if r.sites else None
        where = f"{os.path.basename(worst.loc.file)}:{worst.loc.line}" \
            if worst is not None and worst.excess else "-"
        t.add_row(r.kernel, f"{r.requests:,}", f"{r.wavefronts:,}", f"{r.excess:,}", where)
    more = f" ({failed} more not counted: below)" if failed else ""
    return RichGroup(Text(f"{len(reports)} kernels, most excess first{more}:", style="bold"),
                     t)


def _rules(r: Report) -> str:
    """Which bank rules count the report: the sm_90-measured ones, said to be unmeasured on
    another architecture (smemsim.engine.arch)."""
    if r.rules == "sm90-measured" and not r.arch.startswith("sm_90"):
        return f"sm90-measured bank rules, not measured on {r.arch}"
    return f"{r.rules} bank rules"


def _worst_site(r: Report):
    """The costliest site of the line with the most excess (a line unrolled into many
    sites outweighs one bad site elsewhere)."""
    lines: dict = {}
    for s in r.sites:
        lines.setdefault((s.loc.file, s.loc.line), []).append(s)
    top = max(lines.values(), key=lambda ss: sum(s.excess for s in ss))
    return max(top, key=lambda s: s.excess)


def site_groups(sites) -> tuple[list[list], list]:
    """(groups, idle): the sites as the table shows them, one row per source place, array
    and access (nvcc's unrolled copies of a line together), in the order of their first
    site; and the sites no request of the launch reaches, left out of the rows where
    others ran (a loop's copies for other trip counts)."""
    ran = [s for s in sites if s.requests] or list(sites)
    idle = [s for s in sites if s not in ran]
    groups: dict = {}
    for s in ran:
        # (the statement a row shows: a CUDA file's line, the same for every copy; an IR
        # kernel's own statement, which may differ on one line of its builder)
        key = (s.loc.file, s.loc.line, s.loc.column, s.loc.calls, shown_statement(s),
               s.shown, _access(s),
               s.data_dependent, s.at_least, s.retry_loop, s.tma is not None, s.as_stated)
        groups.setdefault(key, []).append(s)
    return list(groups.values()), idle


def _group_row(g, tops: dict | None) -> dict:
    """The table's cells of a group of sites: their sums, exact (`tops`: each column's
    largest, whose unit the column's figures share)."""
    tops = tops or {"requests": 0, "wavefronts": 0, "ideal": 0, "excess": 0}
    s = g[0]
    requests, wavefronts = sum(x.requests for x in g), sum(x.wavefronts for x in g)
    ideal = sum(x.ideal for x in g)
    numbers = [x.site for x in g]
    # (a bound, or an estimate: the footnotes below the table say why)
    mark = "≥" if s.at_least else "≈" if is_estimate(s) else ""
    # (a few sites by number: `2 in 1-6` of sites 1 and 6 read as a puzzle; more, how many
    # and between which: the footer lists them)
    return {"#": str(s.site) if len(g) == 1 else
            f"{numbers[0]}-{numbers[-1]}" if numbers[-1] - numbers[0] == len(numbers) - 1
            else ", ".join(map(str, numbers)) if len(numbers) <= 3
            else f"{len(numbers)} in {numbers[0]}-{numbers[-1]}",
            "line": str(s.loc.line) + ("†" if s.as_stated else ""),
            "array": s.shown + ("*" if s.data_dependent else ""), "access": _access(s),
            "requests": mark + _count(requests, tops["requests"]),
            "wavefronts": mark + _count(wavefronts, tops["wavefronts"]),
            "ideal": _count(ideal, tops["ideal"]),
            "excess": mark + _count(wavefronts - ideal, tops["excess"]),
            "wf/req": f"{wavefronts / requests if requests else 0:.2f}",
            "%": f"{sum(x.share for x in g):.0%}"}


def _site_table(groups, rows: list[dict], shown: list[str], worst) -> Table:
    """The site table with the columns `shown`, each as wide as its widest figure."""
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    for col, justify in _SITE_COLUMNS:
        if col in shown:
            t.add_column(col, justify=justify, no_wrap=True, overflow="fold",
                         min_width=max(len(col), *(len(row[col]) for row in rows)))
    for g, row in zip(groups, rows):
        excess = any(s.excess for s in g)
        style = "red" if excess and worst in g else ("yellow" if excess else None)
        t.add_row(*(row[c] for c in shown), style=style)
    return t


def _width_of(renderable) -> int:
    """The columns a renderable takes when nothing constrains it."""
    from rich.console import Console
    from rich.measure import Measurement
    console = Console(width=10_000)
    return Measurement.get(console, console.options, renderable).maximum


# short names of the bank engine's ops for the site table
_OP_LABELS = {"ldmatrix": "ldsm", "stmatrix": "stsm", "cp_async": "cp.async",
              "cp_async_bypass": "cp.async.cg", "atomic": "atom", "atomic_cas": "atom.cas",
              "atomic_aggregated": "atom.agg", "atomic_cas_loop": "cas-loop", "tma_load": "tma.ld",
              "tma_store": "tma.st", "bulk_load": "bulk.ld", "bulk_store": "bulk.st",
              "wgmma": "wgmma"}


def _access(s) -> str:
    """`load 4B`, `atom.agg 4B`, `ldsm.x4 16B`."""
    label = _OP_LABELS.get(s.op, s.op)
    if s.matrices:
        label += f".x{s.matrices}"
    return f"{label} {s.width}B"


# how the totals lines name Nsight Compute's instruction classes
_CLASS_NAMES = {"ld": "loads", "st": "stores", "ldsm": "ldmatrix (ldsm)",
                "stsm": "stmatrix (stsm)", "ldgsts": "cp.async (ldgsts)", "atom": "atomics (atom)",
                "tma_ld": "TMA loads (tma_ld)", "tma_st": "TMA stores (tma_st)",
                "gmma": "wgmma operands (gmma)"}


def _class_keys(r: Report) -> list[str]:
    """The instruction classes _class_lines shows, in its order."""
    return ["ld", "st"] + [c for c in r.classes if c not in ("ld", "st")]


def _class_lines(r: Report):
    """(name, totals) of loads and stores (always) and every other class present."""
    return [(_CLASS_NAMES[c], r.load if c == "ld" else r.store if c == "st" else
             r.classes[c]) for c in _class_keys(r)]


def sweep_table(kernel: str, key: str, rows) -> RichGroup:
    """Totals of an analysis at each value of one parameter."""
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0),
              title=f"{kernel}: sweep of {key}")
    for col in (key, "ld req", "ld wavefronts", "ld excess", "st req", "st wavefronts",
                "st excess"):
        t.add_column(col, justify="right", no_wrap=True)
    for value, r in rows:
        t.add_row(str(value), _count(r.load.requests), _count(r.load.wavefronts),
                  _count(r.load.excess), _count(r.store.requests), _count(r.store.wavefronts),
                  _count(r.store.excess))
    return RichGroup(t)


def _lanes(lanes: tuple[int, ...]) -> str:
    if len(lanes) == 1:
        return str(lanes[0])
    if lanes == tuple(range(lanes[0], lanes[-1] + 1)):
        return f"{lanes[0]}-{lanes[-1]}"
    return f"{lanes[0]}+{len(lanes) - 1}"


def _plural(n: int, word: str) -> str:
    """`1 wavefront`, `2 wavefronts`."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def explain_view(req: WarpRequest, title: str) -> RichGroup:
    """Banks across, one row per wavefront, each cell the lanes served there."""
    parts = [Text(title, style="bold"),
             Text(f"{req.width}-byte {req.op}, {_plural(len(req.active_lanes), 'active lane')}"
                  f": {_plural(req.wavefronts, 'wavefront')}, ideal {req.ideal}, excess "
                  f"{req.excess} ({req.rules})"),
             Text(req.merge.reason)]
    cells: dict[tuple[int, int], str] = {}
    degree: dict[int, int] = {}
    for g in req.groups:
        for bank in g.banks:
            degree[bank.bank] = max(degree.get(bank.bank, 0), len(bank.words))
            for use in bank.words:
                cells[(use.wavefront, bank.bank)] = _lanes(use.lanes)
        if len(req.groups) > 1:
            parts.append(Text(f"{g.name}: lanes {g.lanes[0]}-{g.lanes[-1]}, "
                              f"{len(g.active)} active, {g.wavefronts} wavefront(s) from "
                              f"#{g.first_wavefront}"))
    for lo in (0, 16):
        if not any(lo <= b < lo + 16 for _, b in cells):
            parts.append(Text(f"banks {lo}-{lo + 15}: no lane's word there (idle)"))
            continue
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0),
                  title=f"banks {lo}-{lo + 15}")
        t.add_column("wf", justify="right")
        for b in range(lo, lo + 16):
            t.add_column(str(b), justify="center", style=_degree_style(degree.get(b, 1)))
        # rows: the wavefronts (for a CAS loop, the passes) that serve some lane
        for wf in range(max((w for w, _ in cells), default=-1) + 1):
            t.add_row(str(wf), *[cells.get((wf, b), "") for b in range(lo, lo + 16)])
        parts.append(t)
    return RichGroup(*parts)


def registers_text(count: int, allocated: int) -> str:
    """"N registers", with what a launch allocates where that is more (at least 16)."""
    return f"{count} registers" + ("" if allocated == count else
                                   f" (a launch allocates {allocated})")


def occupancy_view(o: Occupancy) -> Text:
    """The calculator's numbers, one per line."""
    limits = ", ".join(f"{k} {('-' if v is None else v)}" for k, v in o.limits.items())
    return Text("\n".join([
        f"{o.arch}: {o.block_size} threads x "
        f"{registers_text(o.registers_per_thread, o.registers_allocated)}, "
        f"{o.static_smem} B static + {o.dynamic_smem} B dynamic shared memory",
        f"active blocks per SM: {o.active_blocks} ({o.active_warps} of {o.max_warps_per_sm} "
        f"warps, occupancy {o.occupancy:.1%})",
        f"limited by: {', '.join(o.limiters)}",
        f"block limits: {limits}",
        f"allocated per block: {o.registers_per_block} registers, {o.smem_per_block} B shared "
        f"memory (SM carveout {o.smem_per_sm} B)"]))


def curve_view(c: Curve, width: int = 64, rows: int = 16) -> Text:
    """A what-if curve as rows of bars (occupancy against the knob), current point marked."""
    step = max(1, len(c.xs) // rows)
    out = Text(f"occupancy vs {c.knob}", style="bold")
    # (said: a reader of the rows otherwise takes a size left out for one that does not fit)
    out.append(f" (every {step}{'nd' if step == 2 else 'rd' if step == 3 else 'th'} of "
               f"{len(c.xs)} points, the powers of two and the current one; --json has all)\n"
               if step > 1 else "\n")
    here = max((i for i, x in enumerate(c.xs) if x <= c.current), default=0)
    # the sizes people choose are always rows (64, 128, 256, 512, 1024 threads; 32, 64,
    # 128 registers), as is the last point, besides every step-th one
    usual = {i for i, x in enumerate(c.xs) if x > 0 and x & (x - 1) == 0 and x >= 32}
    for i in sorted(set(range(0, len(c.xs), step)) | {here, len(c.xs) - 1} | usual):
        bar = "#" * round(c.occupancy[i] * (width - 24))
        mark = i == here
        out.append(f"{c.xs[i]:>8} {c.occupancy[i]:6.1%} {bar}", style="bold cyan" if mark else None)
        out.append("  <- current\n" if mark else "\n")
    return out


def _blocks(limit: int | None) -> str:
    return "no limit" if limit is None else str(limit)


def fix_view(f: FixSearch, top: int = 6, cuda: bool = False,
             from_build: bool = False, compiler: str = "nvcc",
             header: bool = True) -> RichGroup:
    """Before/after of the paddings and swizzles that lower the wavefronts, and the change
    to make (`cuda`: the input is a .cu the caller shows a patch of, so no kernels_ir
    declarations; `from_build`: a kernel read from a compiler's build that fix cannot
    rebuild (CUDA held in Python, a DSL): its changes are counted on the build as read;
    `header`: with the kernel's line of totals, which a second view of it leaves out)."""
    b = f.baseline
    # (the warps are the build's, whichever limit sets them: registers, often)
    warps = f"; by every limit, {f.baseline_warps} warps per SM" \
        if f.baseline_warps is not None else ""
    parts = [Text(f"{f.kernel}: {b.wavefronts:,} shared wavefronts, {b.excess:,} over ideal "
                  f"(shared memory alone allows {_blocks(f.baseline_smem_blocks)} "
                  f"blocks/SM{warps})",
                  style="bold")] if header else []
    if not f.arrays:
        parts.append(Text("no shared array has bank conflicts at this launch: nothing to fix"))
        return RichGroup(*parts)
    if cuda:
        parts.append(Text(f"each change: your file patched, built by {compiler} and counted "
                          "as built (registers and warps per SM of that build)"))
    elif from_build:
        parts.append(Text("each change: counted on the kernel as its compiler built it, moved "
                          "as the change moves the array, not built again (a build of the "
                          "changed source may merge or split its accesses otherwise: a .cu "
                          "of the kernel is rebuilt and counted for each change)"))
    for note in f.skipped:
        parts.append(Text(f"skipped {note}"))
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    with_warps = f.baseline_warps is not None  # registers given: occupancy in warps too
    for col, justify in (("array", "left"), ("change", "left"), ("wavefronts", "right"),
                         ("excess", "right"), ("extra smem", "right"),
                         ("smem blocks/SM", "right")) + ((("warps/SM", "right"),)
                                                          if with_warps else ()):
        t.add_column(col, justify=justify, no_wrap=True)
    shown = []
    for name in f.arrays:  # a change that lowers nothing is not a proposal: not listed
        shown += [c for c in f.candidates if c.array == name and
                  c.wavefronts < b.wavefronts][:top]
    for c in shown:
        # (exact: candidates a few wavefronts apart must not print alike, and the summary
        # line under the table is exact too)
        t.add_row(c.variable or c.array, c.label, f"{c.wavefronts:,}", f"{c.excess:,}",
                  f"{c.extra_smem:,} B", _blocks(c.smem_blocks),
                  *([str(c.active_warps)] if with_warps else []),
                  style="green" if c in f.best else None)
    if shown:
        parts.append(t)
    if not f.best and not f.candidates and f.skipped:
        # (none could be tried: saying none helps would not be true)
        parts.append(Text(f"no change could be tried ({len(f.skipped)} skipped, above): "
                          "nothing is proposed; a padding or swizzle may still help, made by "
                          "hand where the patch cannot make it"))
    elif not f.best:
        parts.append(Text("no padding or swizzle tried reduces the kernel's wavefronts: "
                          "nothing is proposed; tried: " + ", ".join(
                              f"{c.variable or c.array} {c.label} ({c.wavefronts:,})"
                              for c in f.candidates)))
    for hint in f.hints:
        parts.append(Text(hint))
    before = sum(s.requests for s in b.sites)
    for c in f.best:
        cost = "" if c.smem_blocks == f.baseline_smem_blocks else \
            f", shared memory alone allows {_blocks(c.smem_blocks)} blocks/SM instead of " \
            f"{_blocks(f.baseline_smem_blocks)}"
        # what the build loses for it, on the headline itself: fewer wavefronts bought with
        # fewer resident warps or more instructions is a trade, not a sure gain
        trade = fix_trade(c, f.baseline_warps, before)
        parts.append(Text(f"{c.variable or c.array}: {c.label}: {b.wavefronts:,} -> "
                          f"{c.wavefronts:,} "
                          f"wavefronts, +{c.extra_smem} B shared memory{cost}"
                          + (f"; as built, {' and '.join(trade)}: a trade, not a sure gain"
                             if trade else ""),
                          style="bold yellow" if trade else "bold"))
        if trade:
            parts.append(Text("  time both builds before keeping it (`smemsim validate` on a "
                              "GPU, or Nsight Compute): fewer wavefronts with fewer warps or "
                              "more instructions can run slower"))
        gain = (b.wavefronts - c.wavefronts) / b.wavefronts if b.wavefronts else 0
        mine = [s for s in b.sites if c.array in (s.array, s.variable)]
        if any(s.data_dependent for s in mine):
            parts.append(Text(f"  (counted on this launch's inputs: the {c.array} accesses "
                              "depend on the data, and so does the gain"
                              + (f"; {gain:.2%} fewer wavefronts is within what other "
                                 "inputs move" if gain < 0.01 else "") + ")"))
        elif gain < 0.01:
            parts.append(Text(f"  ({gain:.2%} fewer wavefronts: a change worth making only "
                              "if it costs nothing)"))
        fewer = min((x for x in f.candidates if x.array == c.array),
                    key=lambda x: x.wavefronts)
        if fewer.wavefronts < c.wavefronts and fewer.active_warps is not None and \
                c.active_warps is not None and fewer.active_warps < c.active_warps:
            parts.append(Text(f"  (not {fewer.label}, which counts {fewer.wavefronts:,} but "
                              f"leaves {fewer.active_warps} warps per SM, not "
                              f"{c.active_warps}: that trade is yours to make)"))
        elif fewer.wavefronts < c.wavefronts:   # (--prefer chose the kind)
            parts.append(Text(f"  (the kind preferred: {fewer.label} counts fewer, "
                              f"{fewer.wavefronts:,})"))
        if not cuda and not from_build:   # (kernels_ir's declaration: a kernels file's)
            parts.append(Text(f"  declare: {c.builder}"))
        if c.maps:
            parts.append(Text(f"  with swizzle={c.tma} in tensor map(s) "
                              f"{', '.join(c.maps)} (TMA then writes the tile as it is "
                              f"declared; the tile aligned to {tma_swizzle(c.tma, 1)[1]} "
                              "bytes)"))
        elif c.tma:
            parts.append(Text(f"  (the same layout as TMA's {c.tma}"
                              + ("" if cuda else f', layout="{c.tma}"') + ", which needs the "
                              f"tile aligned to {tma_swizzle(c.tma, 1)[1]} bytes)"))
        if not cuda:
            parts.append(Text(f"  {'index:' if from_build else 'CUDA: '}   {c.cuda_index}"))
    if f.combined is not None:
        w = f" ({f.combined_warps} warps per SM)" if f.combined_warps is not None else ""
        parts.append(Text(f"all of the above together: {b.wavefronts:,} -> "
                          f"{f.combined.wavefronts:,} wavefronts, excess "
                          f"{f.combined.excess:,}{w}", style="bold"))
    return RichGroup(*parts)


def fix_trade(c, baseline_warps: int | None, requests: int) -> list[str]:
    """What a candidate's build costs beside its wavefronts: fewer warps per SM than the
    original build (`baseline_warps`, where registers are known) and more shared
    instructions than its `requests` (ptxas split accesses it merged), as phrases."""
    out = []
    if baseline_warps is not None and c.active_warps is not None and \
            c.active_warps < baseline_warps:
        out.append(f"{baseline_warps} -> {c.active_warps} warps per SM")
    if c.requests is not None and c.requests > requests:
        out.append(f"{requests:,} -> {c.requests:,} shared instructions (ptxas no longer "
                   "merges some accesses into wider ones)")
    return out


def shapes_view(kernel, baseline, shapes) -> RichGroup:
    """fix: the kernel at the other block shapes of its thread count."""
    names = " x ".join(str(e.arg) for e in kernel.block[:2])  # parameters: their names
    b = baseline.block
    parts = [Text(f"block shape ({names}, parameters of the launch): {b[0]} x {b[1]} now, "
                  f"{baseline.requests:,} requests, {baseline.wavefronts:,} wavefronts; the "
                  "other splits of its threads:", style="bold")]
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    for col, justify in (("block", "left"), ("requests", "right"), ("wavefronts", "right"),
                         ("excess", "right")):
        t.add_column(col, justify=justify, no_wrap=True)
    for x in sorted(shapes, key=lambda x: (x.error is not None, x.wavefronts or 0)):
        shape = f"{x.block[0]} x {x.block[1]}"
        if x.error:
            t.add_row(shape, "-", "-", "-")
        else:
            t.add_row(shape, _count(x.requests), _count(x.wavefronts), _count(x.excess),
                      style="green" if x.wavefronts < baseline.wavefronts else None)
    parts.append(t)
    parts += [Text(f"{x.block[0]} x {x.block[1]} does not run: {x.error}") for x in shapes
              if x.error]
    return RichGroup(*parts)


def print_patch(console, patch, compiler: str = "nvcc") -> None:
    """fix's change as a diff of the user's .cu and what checking it found (or why there is
    no patch)."""
    say = lambda text, style=None: console.print(text, markup=False, highlight=False,
                                                 emoji=False, soft_wrap=True, style=style)
    if hasattr(patch, "reason"):
        say(f"no patch of the file: {patch.reason}", "yellow")
        return
    say(f"the change, as a patch of {patch.patch.file} (--patch FILE writes it):", "bold")
    for line in patch.patch.diff.splitlines():
        say(line, "green" if line.startswith("+") and not line.startswith("+++") else
            "red" if line.startswith("-") and not line.startswith("---") else None)
    agree = patch.counted == patch.predicted
    say(f"checked: the patched file, as {compiler} builds it, counts {patch.counted:,} "
        "wavefronts "
        + ("as fix predicted" if agree else f"(fix predicted {patch.predicted:,}: ptxas "
                                           "builds the change otherwise than fix applied it; "
                                           "`smemsim analyze` of the patched file says "
                                           "where)"),
        None if agree else "yellow")
    if patch.hazards:
        say(f"checked: {patch.hazards}")
    if patch.build_note is not None:
        say(f"checked: {patch.build_note}", "red" if "FAILED" in patch.build_note else None)
        return
    a, b = patch.original, patch.patched
    say(f"checked: as built, {a.wavefronts:,} -> {b.wavefronts:,} wavefronts, {a.registers} "
        f"-> {b.registers} registers per thread ({a.active_warps} -> {b.active_warps} warps "
        "per SM)")
    if a.uncounted or b.uncounted:
        which = " and ".join(f"{x.uncounted} of the {name} build" for name, x in
                             (("original", a), ("patched", b)) if x.uncounted)
        say(f"  source lines whose SASS differs from their PTX in a way smemsim does not "
            f"follow are counted as the PTX states them ({which}): measure both builds with "
            "Nsight Compute before trusting a small difference", "yellow")
    if b.wavefronts >= a.wavefronts:
        say("  as built, the change does not lower the wavefronts: the compiler merged "
            "accesses of the original that the new layout splits (`smemsim compile` on each "
            "file shows the widths); do not apply it as it is", "red")
    if b.active_warps < a.active_warps:
        resident = 0 < patch.blocks * patch.block_warps <= b.active_warps
        say(f"  the patched build needs more registers: {b.active_warps} warps per SM "
            f"instead of {a.active_warps}" +
            (f"; this launch's {patch.blocks} block(s) of {patch.block_warps} warps fit "
             f"on one SM either way, so the fewer wavefronts decided (at a larger launch "
             f"compare with `--prefer pad`)" if resident else ""), "yellow")


def layout_reads_view(r) -> RichGroup:
    """layout: the tile a CuTe layout describes and what its common reads cost."""
    parts = [Text(f"{r.layout}: a tile of {r.rows} x {r.cols} elements of {r.element_bytes} "
                  f"B, spanning {r.span_bytes:,} bytes")]
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    for col, justify in (("read", "left"), ("bytes/lane", "right"), ("wavefronts", "right"),
                         ("ideal", "right"), ("excess", "right"), ("lane 0..7 offsets", "left")):
        t.add_column(col, justify=justify, no_wrap=col != "lane 0..7 offsets")
    for x in r.reads:
        lanes = ", ".join(map(str, x.offsets[:8]))
        if x.wavefronts is None:
            t.add_row(x.name, str(x.width), "-", "-", "-", x.why_not)
        else:
            t.add_row(x.name, str(x.width), str(x.wavefronts), str(x.ideal), str(x.excess),
                      lanes, style="red" if x.excess else None)
    parts.append(t)
    return RichGroup(*parts)


def comparison_view(c) -> RichGroup:
    """ncu: a profiled kernel's counters against the prediction, line by line, what differs
    attributed (smemsim.hardware.measured.KernelComparison)."""
    differing = c.differing
    head = Text(f"{c.kernel}: grid {c.grid}, block {c.block}; {len(c.lines)} line(s) with "
                f"shared accesses, {len(c.lines) - len(differing)} as predicted "
                f"(measured instructions placed {c.placed})")
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    for col, justify in (("line", "left"), ("class", "left"), ("requests", "right"),
                         ("predicted", "right"), ("wavefronts", "right"),
                         ("predicted", "right"), ("verdict", "left")):
        t.add_column(col, justify=justify, no_wrap=True)
    for x in c.lines:
        t.add_row(f"{x.file}:{x.line}", x.kind, f"{x.measured_requests:,}",
                  f"{x.predicted_requests:,}", f"{x.measured_wavefronts:,}",
                  f"{x.predicted_wavefronts:,}", x.verdict,
                  style=None if x.verdict in ("equal", "inter-warp excess", "predicated")
                  else "yellow")
    parts = [head, t]
    for x in differing:
        parts.append(Text(f"  {x.file}:{x.line} ({x.kind}): {x.why}"))
    return RichGroup(*parts)

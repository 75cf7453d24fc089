"""The report page: one self-contained HTML file drawn from `report --json`'s document.

Nothing is fetched when the page opens (inline CSS, SVG and a little JavaScript, which only
shows and hides what is already there). Every text that comes from the user's files is
escaped; the document itself travels gzipped in base64 in a `<script id="smemsim-data">`
element (DATA_FORMAT), so no file content can end that element.
"""
from __future__ import annotations

import base64
import gzip
import json
import os
import re
from html import escape
from types import SimpleNamespace
from typing import Any

from kernels_ir.errors import iterations_text

from . import figures
from .phrases import params_text
from .phrases import count_caveat, is_estimate
from .render import fix_trade, registers_text

# per instruction class, the Nsight Compute counters (gpu_backend.measure.METRICS keys) that
# hold its instructions and its wavefronts: ldmatrix/stmatrix wavefronts are inside the
# _op_ld/_op_st totals and cp.async's only in the unsuffixed shared total, as an H100 counts
COUNTERS = {"ld": ("load_requests", "load_wavefronts"),
            "st": ("store_requests", "store_wavefronts"),
            "ldsm": ("ldsm_requests", "load_wavefronts"),
            "stsm": ("stsm_requests", "store_wavefronts"),
            "ldgsts": ("ldgsts_requests", "shared_wavefronts"),
            "atom": ("atom_requests", "atom_wavefronts"),
            "tma_ld": ("tma_requests", "shared_wavefronts"),
            "tma_st": ("tma_st_requests", "shared_wavefronts"),
            "gmma": ("gmma_requests", "gmma_wavefronts")}


def counter_names(category: str) -> tuple[str, str]:
    """The ncu metric names of one class's instructions and wavefronts."""
    from gpu_backend.measure import METRICS  # plain data: no CUDA is imported
    names = [METRICS[key] for key in COUNTERS[category]]
    return tuple(n[0] if isinstance(n, tuple) else n for n in names)  # type: ignore[return-value]


CSS = """
.smemsim{font:14px/1.4 system-ui,sans-serif;color:#222}
.smemsim h1{font-size:20px}.smemsim h2{font-size:17px;border-bottom:1px solid #ccc;margin-top:2em}
.smemsim h3{font-size:15px;margin-top:1.4em}
.smemsim table{border-collapse:collapse}.smemsim td,.smemsim th{padding:1px 6px;text-align:right}
.smemsim th{background:#eee;font-weight:600}
.smemsim .totals td,.smemsim .totals th{border:1px solid #ddd}
.smemsim .src{font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;max-height:70vh;
overflow:auto;border:1px solid #ccc}
.smemsim .src td{white-space:pre;vertical-align:top}
.smemsim .src td.code{text-align:left;padding-left:12px}
.smemsim .src td.ln{color:#888}.smemsim .src td.m{color:#333;min-width:5em}
.smemsim .src tr.site{cursor:pointer}
.smemsim .src tr.site:hover td.code{text-decoration:underline}
.smemsim .src tr.sel td.ln{background:#2a6fdb;color:#fff}
.smemsim .src tr.hazard td.ln{border-left:4px solid #d33}
.smemsim .row{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.smemsim .note{color:#555}.smemsim .warn{color:#a00}
.smemsim code{background:#f3f3f3;padding:0 3px}
.smemsim .summary{font-size:15px}
"""

JS = """
(function(){
  window.addEventListener('error', function(e){
    document.body.setAttribute('data-error', String(e.message)); });
  function show(k, site){
    document.querySelectorAll('.detail[data-kernel="'+k+'"]').forEach(function(d){
      d.hidden = d.getAttribute('data-site') !== String(site); });
    document.querySelectorAll('tr.site[data-kernel="'+k+'"]').forEach(function(r){
      var sites = r.getAttribute('data-sites').split(' ');
      r.classList.toggle('sel', sites.indexOf(String(site)) >= 0); });
  }
  document.querySelectorAll('tr.site').forEach(function(r){
    r.addEventListener('click', function(){
      var k = r.getAttribute('data-kernel'), sites = r.getAttribute('data-sites').split(' ');
      var cur = document.querySelector('.detail[data-kernel="'+k+'"]:not([hidden])');
      var at = cur ? sites.indexOf(cur.getAttribute('data-site')) : -1;
      show(k, sites[(at + 1) % sites.length]); });
  });
  // the page opens on each kernel's worst site (drawn open): mark its line, and scroll
  // the source's own box (not the page) to it
  document.querySelectorAll('.detail:not([hidden])').forEach(function(d){
    show(d.getAttribute('data-kernel'), d.getAttribute('data-site')); });
  document.querySelectorAll('.src').forEach(function(box){
    var row = box.querySelector('tr.sel');
    if (row) box.scrollTop = Math.max(0, row.offsetTop - box.clientHeight / 3); });
  // the data must decode and parse (gzip, then base64: DATA_FORMAT); where the browser
  // cannot decompress, the drawn page stands alone
  var data = document.getElementById('smemsim-data');
  function ready(){ document.body.setAttribute('data-ready', '1'); }
  if (window.DecompressionStream && window.Response && window.Blob) {
    var bytes = Uint8Array.from(atob(data.textContent.trim()),
                                function(c){ return c.charCodeAt(0); });
    new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip')))
      .text().then(function(t){ JSON.parse(t); ready(); })
      .catch(function(e){ document.body.setAttribute('data-error', String(e)); });
  } else { ready(); }
})();
"""


def _n(x: int) -> str:
    return f"{x:,}"


# how the page carries its document: `report --json`'s, gzipped (no timestamp: the same
# report, the same page), in base64, as the text of <script id="smemsim-data"> (a kernel of a
# hundred sites carries its 250 KB of JSON in about 30 KB)
DATA_FORMAT = "gzip+base64"


def _data(document: dict[str, Any]) -> str:
    """The document as the text of a script element (DATA_FORMAT: nothing in it can close
    the element)."""
    raw = json.dumps(document, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, 9, mtime=0)).decode("ascii")


def page_data(html: str) -> dict[str, Any]:
    """The document a page carries (its `report --json`)."""
    m = re.search(r'<script type="application/octet-stream" data-format="gzip\+base64" '
                  r'id="smemsim-data">([^<]*)</script>', html)
    if m is None:
        raise ValueError("no smemsim-data element: not a page `smemsim report` wrote")
    return json.loads(gzip.decompress(base64.b64decode(m.group(1))))


def render(document: dict[str, Any], title: str = "smemsim report") -> str:
    """The whole page for a `report --json` document."""
    items = document["results"]
    # the kernels with the most excess first, then those with shared accesses (the file's
    # order among equals): the page opens on the answer, not on a kernel with no shared
    # memory
    order = sorted(range(len(items)), key=lambda k: (
        -_excess(items[k]), not items[k]["analysis"]["sites"], k))
    body = [f"<h1>{escape(title)}</h1>", overview(items, order) if len(items) > 1 else ""]
    body += [section(items[k], str(k)) for k in order]
    if document.get("sweep"):
        body.append(f'<h2 id="sweep">Sweep</h2>{figures.sweep_svg(document["sweep"])}')
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head>"
            '<body class="smemsim" style="margin:1.2em 2em">'
            + "\n".join(body)
            + f'<script type="application/octet-stream" data-format="{DATA_FORMAT}" '
            f'id="smemsim-data">{_data(document)}</script>'
            + f"<script>{JS}</script></body></html>\n")


def fragment(item: dict[str, Any], k: str = "0") -> str:
    """One kernel's section with its own (scoped) style and no script: what a notebook
    shows for a Report (the worst site's bank map is open, the others stay closed)."""
    return f'<div class="smemsim"><style>{CSS}</style>{section(item, k)}</div>'


def worst_site(sites: list[dict[str, Any]]) -> int | None:
    """The site shown first: most excess, then most wavefronts, then the first."""
    ranked = [s for s in sites if s["worst"] is not None]
    return max(ranked, key=lambda s: (s["excess"], s["wavefronts"], -s["site"]))["site"] \
        if ranked else None


def _excess(item: dict[str, Any]) -> int:
    """A kernel's excess wavefronts (its sites' sum)."""
    return sum(site["excess"] for site in item["analysis"]["sites"])


def overview(items: list, order: list[int]) -> str:
    """Several kernels: one line each, most excess first, linked to its section."""
    rows = "".join(
        f'<tr><td><a href="#k{k}">{escape(items[k]["kernel"])}</a></td>'
        f'<td>{_n(len(items[k]["analysis"]["sites"]))}</td>'
        f'<td>{_n(sum(x["wavefronts"] for x in items[k]["analysis"]["sites"]))}</td>'
        f'<td>{_n(_excess(items[k]))}</td></tr>' for k in order)
    return ('<table class=totals><tr><th>kernel</th><th>shared access sites</th>'
            f'<th>wavefronts</th><th>excess</th></tr>{rows}</table>')


def section(item: dict[str, Any], k: str) -> str:
    """One kernel: launch and totals, source heat view, bank maps, layouts, occupancy,
    hazards."""
    a = item["analysis"]
    # (as the text says them: a numba array's descriptor fields as the array)
    params = params_text(a["params"]) or "none"
    out = [f'<h2 id="k{k}">{escape(a["kernel"])}</h2>',
           f'<p>grid {tuple(a["grid"])}, block {tuple(a["block"])}, shared '
           f'{_n(a["static_smem"])} B static + {_n(a["dynamic_smem"])} B dynamic; '
           f'{escape(a["arch"])} ({escape(a["rules"])} bank rules); parameters: '
           f'{escape(params)}</p>']
    out.append(summary(item, k))
    out += [f'<p class="note">{escape(n)}</p>' for n in item.get("notes", ())]
    out.append(totals_table(a))
    out.append(source_view(item, k))
    out.append(details(item, k))
    if item["layouts"]:
        out.append("<h3>Layouts</h3><p class=note>Each array's elements in logical rows and "
                   "columns, colored by bank; the declared layout first, then fix's best "
                   "proposals. The marked lanes are one warp's request; under each layout "
                   "its cost there.</p>")
        for lay in item["layouts"]:
            out.append('<div class="row">' + "".join(figures.layout_svg(m) for m in lay["maps"])
                       + "</div>")
    if item["fix"] is not None:
        out.append(fix_list(item["fix"], k))
    if item.get("patch"):
        out.append(patch_view(item["patch"]))
    out.append(occupancy_view(item["occupancy"]))
    out.append(hazard_list(item["hazards"], k))
    if item.get("ncu") is not None:
        out.append(measured_view(item["ncu"]))
    return "\n".join(out)


def measured_view(c: dict[str, Any]) -> str:
    """Nsight Compute's counters of the kernel (report --ncu) against the prediction, line
    by line, what differs attributed (jsonout.comparison_json)."""
    if c.get("error"):
        return f"<h3>Nsight Compute</h3><p class=note>{escape(c['error'])}</p>"
    rows = ["<h3>Nsight Compute</h3>",
            f"<p class=note>{escape(c['report'])}: measured instructions placed "
            f"{escape(c['placed'])}.</p>",
            "<table class=totals><tr><th>line</th><th>class</th><th>requests</th>"
            "<th>predicted</th><th>wavefronts</th><th>predicted</th><th>verdict</th>"
            "<th>why</th></tr>"]
    for x in c["lines"]:
        rows.append(f"<tr><td>{escape(x['file'])}:{x['line']}</td><td>{escape(x['class'])}"
                    f"</td><td>{_n(x['measured_requests'])}</td>"
                    f"<td>{_n(x['predicted_requests'])}</td>"
                    f"<td>{_n(x['measured_wavefronts'])}</td>"
                    f"<td>{_n(x['predicted_wavefronts'])}</td><td>{escape(x['verdict'])}</td>"
                    f"<td>{escape(x['why']) if x['verdict'] != 'equal' else ''}</td></tr>")
    return "\n".join(rows) + "</table>"


def summary(item: dict[str, Any], k: str) -> str:
    """The answer first: the kernel's excess wavefronts, the lines that cost the most of
    them (each a link to its line in the source view), and fix's best change per array."""
    a = item["analysis"]
    per_line = line_totals(a["sites"])
    excess = {key: sum(c["excess"] for c in v["classes"].values())
              for key, v in per_line.items()}
    waves = sum(c["wavefronts"] for v in per_line.values() for c in v["classes"].values())
    total = sum(excess.values())
    # (a race or a fault changes results: it comes before any count)
    hazards = _hazard_summary(item.get("hazards"), k)
    if not total:
        return hazards + (f'<p class="summary"><b>No bank conflicts:</b> every shared-memory '
                          f"request is served in its ideal wavefronts ({_n(waves)} in all)."
                          "</p>")
    worst = sorted(((e, key) for key, e in excess.items() if e), key=lambda x: -x[0])[:3]
    lines = ", ".join(
        f'<a href="#k{k}-L{line}">{escape(os.path.basename(file))}:{line}</a> '
        f"({_n(e)}, {100 * e / total:.0f}%)" for e, (file, line) in worst)
    # (a site counted as the fewest passes of a retry loop makes the total a bound too)
    least = "at least " if any(s.get("at_least") for s in a["sites"]) else \
        "≈ " if any(is_estimate(s) for s in a["sites"] if s["excess"]) else ""
    caveat = count_caveat([s for s in a["sites"] if s["excess"]])
    out = [hazards, f'<p class="summary"><b>{least}{_n(total)} excess wavefronts</b> (bank '
           f"conflicts: {a['excess_ratio']:.2f} x the ideal), most on {lines}"
           + (f" ({escape(caveat)})" if caveat else "") + ".</p>"]
    f = item.get("fix")
    if f and f["best"]:
        after = f["combined"]["wavefronts"] if f["combined"] else f["best"][0]["wavefronts"]
        changes = "; ".join(f"{escape(c.get('variable') or c['array'])} {escape(c['label'])}"
                            for c in f["best"])
        before = sum(s["requests"] for s in a["sites"])
        trade = sorted({t for c in f["best"] for t in fix_trade(
            SimpleNamespace(active_warps=c.get("active_warps"), requests=c.get("requests")),
            f.get("baseline_warps"), before)})
        out.append(f'<p class="summary"><b>Best fix:</b> {changes}: {_n(waves)} -> '
                   f"{_n(after)} wavefronts"
                   + (f"; <b>as built, {escape(' and '.join(trade))}: a trade, not a sure "
                      "gain</b>, time both builds" if trade else "")
                   + f" (<a href=\"#k{k}-fix\">Fixes</a> below).</p>")
    elif f:
        out.append(f'<p class="summary">{_no_fix(f)}</p>')
    return "".join(out)


def _no_fix(f: dict) -> str:
    """Why the fix search proposes nothing, as fix says it: none of the changes it tried
    helps, or none could be tried (each skipped, with its reason)."""
    if not f.get("tried") and f.get("skipped"):
        return (f"No padding or swizzle could be tried ({len(f['skipped'])} skipped: "
                "Fixes below says why); one may still help, made by hand.")
    return "No padding or swizzle tried lowers the wavefronts."


def _race_places(races: list) -> list:
    """The first race of each kind and pair of source lines (the build's copies of the
    lines are one bug), with how many site pairs it stands for."""
    groups: dict = {}
    for r in races:
        key = (r["kind"], *sorted(((x["file"], x["line"]) for x in (r["first_loc"],
                                                                   r["second_loc"]))))
        groups.setdefault(key, []).append(r)
    return [(rs[0], len(rs)) for rs in groups.values()]


def _hazard_summary(h: dict[str, Any] | None, k: str) -> str:
    """What check found that changes results, first on the page: how many faults and races,
    the first of them linked to its line."""
    if h is None or h["clean"]:
        return ""
    races = _race_places(h["races"])
    first = h["faults"][0] if h["faults"] else races[0][0] if races else None
    counts = ", ".join(x for x in (
        f"{len(h['faults'])} fault(s)" if h["faults"] else "",
        f"{len(races)} race(s)" if races else "",
        f"{len(h['limits'])} launch limit(s) exceeded" if h["limits"] else "") if x)
    where = "" if first is None else \
        f": {escape(first['message'])}{_link(k, first.get('loc') or first.get('second_loc'))}"
    return (f'<p class="summary warn"><b>Hazards: {counts}</b>{where} '
            f'(<a href="#k{k}-hazards">Hazards</a> below).</p>')


def totals_table(a: dict[str, Any]) -> str:
    """The kernel's totals per Nsight instruction class, with the counters' names."""
    rows = ["<table class=totals><tr><th>class</th><th>instructions (requests)</th>"
            "<th>wavefronts</th><th>ideal</th><th>excess</th><th>Nsight Compute counters</th></tr>"]
    # (a class with a bound's or an estimate's sites in it is marked as they are)
    bound = {c for x in a["sites"] if x.get("at_least") and x.get("requests")
             for c in x.get("classes", {})}
    rough = {c for x in a["sites"] if x.get("estimate") and x.get("requests")
             for c in x.get("classes", {})}
    for c, t in a["classes"].items():
        names = " / ".join(counter_names(c)) if c in COUNTERS else ""
        m = "≥" if c in bound else "≈" if c in rough else ""
        rows.append(f"<tr><td>{escape(c)}</td><td>{m}{_n(t['requests'])}</td>"
                    f"<td>{m}{_n(t['wavefronts'])}</td><td>{_n(t['ideal'])}</td>"
                    f"<td>{m}{_n(t['excess'])}</td><td style=text-align:left><code>{names}"
                    "</code></td></tr>")
    rows.append(f"</table><p>excess / ideal = {a['excess_ratio']:.3f}" +
                ("; ≥: at least these, ≈: an estimate (the sites' notes say why)"
                 if bound or rough else "") + "</p>")
    return "".join(rows)


def line_totals(sites: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """Per (file, line): its sites and, per instruction class, the summed counts."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for s in sites:
        entry = out.setdefault((s["file"], s["line"]), {"sites": [], "classes": {},
                                                        "retry": ""})
        entry["sites"].append(s["site"])
        if s.get("retry_loop") is not None:   # a loop that retries until a store survives
            entry["retry"] = "≈" if entry["retry"] == "≈" or not s.get("at_least") else "≥"
        elif s.get("at_least"):               # an atomic add's CAS loop, each warp alone
            entry["retry"] = entry["retry"] or "≥"
        for c, t in s["classes"].items():
            acc = entry["classes"].setdefault(c, {"requests": 0, "wavefronts": 0, "excess": 0})
            for f in acc:
                acc[f] += t[f]
    return out


def _shade(share: float, conflicted: bool) -> str:
    if share <= 0:
        return ""
    alpha = 0.12 + 0.73 * share
    color = "220,50,50" if conflicted else "42,111,219"
    return f' style="background:rgba({color},{alpha * (1 if conflicted else 0.4):.3f})"'


def source_view(item: dict[str, Any], k: str) -> str:
    """Every source line with its shared accesses' counts per class in the margin, the line
    shaded by its share of the kernel's excess (of its wavefronts where nothing conflicts)."""
    a = item["analysis"]
    per_line = line_totals(a["sites"])
    total_excess = sum(e["excess"] for v in per_line.values() for e in v["classes"].values())
    total_waves = sum(e["wavefronts"] for v in per_line.values() for e in v["classes"].values())
    hazard_lines = _hazard_lines(item["hazards"])
    retrying = {v["retry"] for v in per_line.values()} - {""}
    out = ["<h3>Source</h3><p class=note>Margin: per shared access line and instruction "
           "class, the whole launch's requests, wavefronts and excess wavefronts (bank "
           "conflicts). Shading: the line's share of the kernel's excess"
           + ("" if total_excess else " (nothing conflicts: of its wavefronts, in blue)")
           + ". Click a line for its worst request's bank map."
           + (" ≥: at least these: a loop that retries until a store to shared memory "
              "survives (one contending store lands a pass), or the compare-and-swap loop of "
              "an atomic add (each warp as if alone); the GPU may run more passes"
              if "≥" in retrying else "")
           + (" ≈: an estimate, in such a loop where warps contend for one word"
              if "≈" in retrying else "") + "</p>"]
    shown = set()
    for src in item["sources"]:
        file = src["file"]
        out.append(f"<p><b>{escape(file)}</b>" + (
            f" — cannot be read: {escape(src['unreadable'])}</p>" if src["unreadable"] else
            f" lines {src['first']}-{src['first'] + len(src['lines']) - 1} of "
            f"{src['total']}</p>"))
        if src["unreadable"]:
            continue
        rows = ['<div class="src"><table><tr><th>line</th><th>class</th><th>requests</th>'
                '<th>wavefronts</th><th>excess</th><th style="text-align:left">code</th></tr>']
        for i, text in enumerate(src["lines"]):
            n = src["first"] + i
            entry = per_line.get((file, n))
            cls = "hazard" if (file, n) in hazard_lines else ""
            if entry is None:
                rows.append(f'<tr id="k{k}-L{n}" class="{cls}"><td class=ln>{n}</td>'
                            f"<td></td><td></td><td></td><td></td>"
                            f"<td class=code>{escape(text)}</td></tr>")
                continue
            shown.add((file, n))
            cs = entry["classes"]
            ex = sum(c["excess"] for c in cs.values())
            wf = sum(c["wavefronts"] for c in cs.values())
            share = ex / total_excess if total_excess else (wf / total_waves if total_waves
                                                              else 0.0)
            mark = entry["retry"]
            col = lambda f: "<br>".join(mark + _n(c[f]) for c in cs.values())
            sites = " ".join(map(str, entry["sites"]))
            rows.append(
                f'<tr id="k{k}-L{n}" class="site {cls}" data-kernel="{k}" data-sites="{sites}" '
                f'data-requests="{sum(c["requests"] for c in cs.values())}" '
                f'data-wavefronts="{wf}" data-excess="{ex}"{_shade(share, bool(total_excess))}>'
                f"<td class=ln>{n}</td><td class=m>{'<br>'.join(map(escape, cs))}</td>"
                f"<td class=m>{col('requests')}</td><td class=m>{col('wavefronts')}</td>"
                f"<td class=m>{col('excess')}</td><td class=code>{escape(text)}</td></tr>")
        rows.append("</table></div>")
        out.append("".join(rows))
    missing = [s for s in a["sites"] if (s["file"], s["line"]) not in shown]
    if missing:
        out.append("<p class=warn>sites whose line is not shown above: " + ", ".join(
            f"site {s['site']} ({escape(s['file'])}:{s['line']})" for s in missing) + "</p>")
    return "\n".join(out)


def details(item: dict[str, Any], k: str) -> str:
    """Per site: what it is, its histogram and, for the sites the report explains (those
    with the most excess: reportdoc.explained_sites), its worst request's bank map (one
    shown); the other sites say how to draw theirs."""
    maps = {e["site"]: e["request"] for e in item["explanations"]}
    first = worst_site(item["analysis"]["sites"])
    # (a line's drawn map: the one of its costliest copy, reportdoc.explained_sites)
    by_place = {_place(s): s["site"] for s in item["analysis"]["sites"] if s["site"] in maps}
    out = []
    for s in item["analysis"]["sites"]:
        w = s["worst"]
        if w is None:
            continue
        its = iterations_text(w["iterations"])
        hist = ", ".join(f"{_n(h['requests'])} x {h['wavefronts']}" for h in s["histogram"][:8])
        title = (f"site {s['site']}, line {s['line']}: {s.get('source') or s['statement']}")
        drawn = by_place.get(_place(s))
        if s["site"] in maps:
            picture = figures.bank_map_svg(maps[s["site"]], title)
        elif drawn is not None and s["excess"]:
            picture = (f'<p class="note">Site {drawn}, the costliest of the build\'s copies '
                       "of this line, has the line's bank map.</p>")
        elif not s["excess"]:
            picture = ('<p class="note">Every request of this site is served in its ideal '
                       "wavefronts: no bank conflict to draw.</p>")
        else:
            picture = (f'<p class="note">Its bank map is not drawn here (the report draws '
                       f"the {len(maps)} sites with the most excess): <code>smemsim explain "
                       f"FILE {s['site']}</code>, with this page's options, draws it.</p>")
        out.append(
            f'<div class="detail" data-kernel="{k}" data-site="{s["site"]}"'
            f'{"" if s["site"] == first else " hidden"}>'
            f"<h3>Site {s['site']} ({escape(s.get('variable') or s['array'])}, "
            f"{s['width']}-byte {escape(s['op'])})"
            f"</h3><p>{_n(s['requests'])} requests, {_n(s['wavefronts'])} wavefronts, ideal "
            f"{_n(s['ideal'])}, excess {_n(s['excess'])}; requests by cost: {hist}"
            f"{' ...' if len(s['histogram']) > 8 else ''}</p>"
            f"<p>worst request: block {tuple(w['block'])}, warp {w['warp']}"
            f"{', ' + escape(its) if its else ''}</p>" + picture + "</div>")
    return "\n".join(out)


def _place(s: dict) -> tuple:
    """A site's source place (its line and the calls it was inlined at)."""
    return (s["file"], s["line"], tuple((c["file"], c["line"]) for c in s.get("calls") or ()))


def fix_list(f: dict[str, Any], k: str = "0") -> str:
    """fix's best change per array, and the search's notes."""
    if not f["arrays"]:
        return ""
    rows = [f"<h3 id=\"k{k}-fix\">Fixes</h3><table class=totals><tr><th>array</th><th>change</th>"
            "<th>wavefronts</th><th>excess</th><th>extra smem</th><th>the index in CUDA</th></tr>"]
    base = f["baseline"]
    total = lambda key: _n(sum(c[key] for c in base["classes"].values()))
    rows.append(f"<tr><td></td><td>as declared</td><td>{total('wavefronts')}</td>"
                f"<td>{total('excess')}</td><td>0</td><td></td></tr>")
    for c in f["best"]:
        rows.append(f"<tr><td>{escape(c['array'])}</td><td>{escape(c['label'])}"
                    f"{' = ' + escape(c['tma']) if c['tma'] else ''}</td>"
                    f"<td>{_n(c['wavefronts'])}</td><td>{_n(c['excess'])}</td>"
                    f"<td>{_n(c['extra_smem'])} B</td><td style=text-align:left><code>"
                    f"{escape(c['cuda_index'])}</code></td></tr>")
    rows.append("</table>")
    if not f["best"]:
        rows.append(f"<p>{_no_fix(f).replace(': Fixes below says why', ', below')}</p>")
    rows += [f"<p class=note>{escape(x)}</p>" for x in f["skipped"]]
    return "".join(rows)


def patch_view(p: dict[str, Any]) -> str:
    """fix's change as a diff of the user's .cu, and what checking it found."""
    if p["error"]:
        return f"<p class=warn>No patch of the file: {escape(p['error'])}</p>"
    lines = []
    for line in p["diff"].splitlines():
        color = "#1a7f37" if line.startswith("+") and not line.startswith("+++") else \
            "#cf222e" if line.startswith("-") and not line.startswith("---") else "#333"
        lines.append(f'<span style="color:{color}">{escape(line)}</span>')
    built = p["as_built"]
    if built["note"]:
        after = escape(built["note"])
    else:
        a, b = built["original"], built["patched"]
        after = (f"nvcc builds it; as built: {_n(a['wavefronts'])} &rarr; {_n(b['wavefronts'])} "
                 f"wavefronts, {a['registers']} &rarr; {b['registers']} registers "
                 f"({a['active_warps']} &rarr; {b['active_warps']} warps per SM)")
    return ("<h3>The change, as a patch of your file</h3>"
            f'<pre class="src" style="padding:6px">{chr(10).join(lines)}</pre>'
            f"<p>checked: the patched file analyzes to {_n(p['counted_wavefronts'])} "
            f"wavefronts (fix predicted {_n(p['predicted_wavefronts'])}); {after}</p>")


def occupancy_view(o: dict[str, Any] | None) -> str:
    """The calculator's numbers and its three what-if curves."""
    if o is None:
        return ("<h3>Occupancy</h3><p class=note>Not computed: give <code>--regs N</code> "
                "(registers per thread) or <code>--regs compile</code> (the build's count).</p>")
    limiter = ", ".join(o["limiters"])
    head = (f"<h3>Occupancy</h3><p>{escape(o['arch'])}: {o['block_size']} threads x "
            f"{registers_text(o['registers_per_thread'], o['registers_allocated'])}, "
            f"{_n(o['static_smem'] + o['dynamic_smem'])} B "
            f"shared: {o['active_blocks']} blocks, {o['active_warps']} of "
            f"{o['max_warps_per_sm']} warps per SM (occupancy {o['occupancy']:.1%}), limited by "
            f"{escape(limiter)}</p>")
    return head + '<div class="row">' + "".join(
        figures.curve_svg(c, limiter) for c in o["curves"]) + "</div>"


def _hazard_lines(h: dict[str, Any] | None) -> set[tuple[str, int]]:
    if h is None:
        return set()
    out = set()
    for r in h["races"] + h["same_value_races"]:
        out |= {(r["first_loc"]["file"], r["first_loc"]["line"]),
                (r["second_loc"]["file"], r["second_loc"]["line"])}
    out |= {(f["loc"]["file"], f["loc"]["line"]) for f in h["faults"] if f["loc"]}
    return out


def _link(k: str, loc: dict[str, Any] | None) -> str:
    if loc is None:
        return ""
    return f' (<a href="#k{k}-L{loc["line"]}">line {loc["line"]}</a>)'


def hazard_list(h: dict[str, Any] | None, k: str) -> str:
    """What `check` found, each linked to its line."""
    if h is None:
        return (f'<h3 id="k{k}-hazards">Hazards</h3><p class=note>Not checked (<code>smemsim '
                "check</code>, or <code>smemsim report</code> without --no-check, checks).</p>")
    if h["clean"] and not h["same_value_races"]:
        return (f'<h3 id="k{k}-hazards">Hazards</h3><p>No hazard found ('
                f"{h['blocks_checked']:,} of {h['blocks_total']:,} blocks, "
                f"{escape(h['method'])}).</p>")
    items = [f"<li class=warn>{escape(f['message'])}{_link(k, f['loc'])}</li>"
             for f in h["faults"]]
    items += [f"<li class=warn>{escape(r['message'])}"
              f"{f' ({n} site pairs of these lines)' if n > 1 else ''}"
              f"{_link(k, r['first_loc'])}</li>" for r, n in _race_places(h["races"])]
    items += [f"<li>{escape(x)}</li>" for x in h["limits"]]
    items += [f"<li>warning: {escape(r['message'])} ({escape(r.get('warning', ''))})"
              f"{_link(k, r['first_loc'])}</li>" for r in h["same_value_races"]]
    return f'<h3 id="k{k}-hazards">Hazards</h3><ul>' + "".join(items) + "</ul>"

"""Pictures as SVG text, drawn from the JSON documents of smemsim.cli.jsonout.

Every figure takes the dict `--json` prints (never an analysis object), so a picture and the
JSON cannot disagree. Text from the user's files (array, kernel and file names) is escaped
wherever it is written. The SVG is self-contained: no fonts, scripts or links to fetch.
"""
from __future__ import annotations

import hashlib
from html import escape
from typing import Any

CELL_W, CELL_H = 22, 18
FONT = "font-family:ui-monospace,Menlo,Consolas,monospace"


def bank_color(bank: int) -> str:
    """The fill of a bank: 32 hues, neighbours apart (bank b and b+1 differ in lightness)."""
    if bank < 0:
        return "#ffffff"
    hue = (bank * 360 // 32 + (0 if bank % 2 else 180)) % 360
    return f"hsl({hue},65%,{78 if bank % 4 < 2 else 66}%)"


# a layout has thousands of cells: each names its bank's fill by class, not by value
BANK_STYLE = "<style>" + "".join(f".b{b}{{fill:{bank_color(b)}}}" for b in range(32)) + \
    "</style>"


def _svg(width: int, height: int, body: list[str], label: str, style: str = "") -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}" '
            f'style="{FONT};font-size:11px">{style}' + "".join(body) + "</svg>")


def _text(x: float, y: float, s: str, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}"{extra}>{escape(s)}</text>'


def _lanes(lanes: list[int]) -> str:
    """`0-7` for a run, `0,4,8` for a few, `0,4,...+5` for many (the tooltip lists them all)."""
    if not lanes:
        return ""
    if lanes == list(range(lanes[0], lanes[-1] + 1)) and len(lanes) > 2:
        return f"{lanes[0]}-{lanes[-1]}"
    if len(lanes) <= 2:
        return ",".join(map(str, lanes))
    return f"{lanes[0]},{lanes[1]},+{len(lanes) - 2}"


def bank_map_svg(req: dict[str, Any], title: str = "") -> str:
    """A request (jsonout.request_json) as banks across and one row per wavefront: each cell
    is the word a bank serves in that wavefront and the lanes that asked for it."""
    cells: dict[tuple[int, int], tuple[int, list[int]]] = {}
    for g in req["groups"]:
        for b in g["banks"]:
            for w in b["words"]:
                cells[(w["wavefront"], b["bank"])] = (w["word"], w["lanes"])
    rows = max((wf for wf, _ in cells), default=-1) + 1
    left, top = 40, 48 + (16 if title else 0)
    width, height = left + 32 * CELL_W + 8, top + max(rows, 1) * CELL_H + 34
    body = []
    y = 14
    if title:
        body.append(_text(0, y, title, extra=' font-weight="bold"'))
        y += 16
    body.append(_text(0, y, f"{req['width']}-byte {req['op']}: {req['wavefronts']} wavefronts, "
                            f"ideal {req['ideal']}, excess {req['excess']}"))
    for b in range(32):
        body.append(_text(left + b * CELL_W + CELL_W / 2, top - 6, str(b), "middle"))
    for wf in range(rows):
        y0 = top + wf * CELL_H
        body.append(_text(left - 6, y0 + 13, f"wf {wf}", "end"))
        body.append(f'<rect x="{left}" y="{y0}" width="{32 * CELL_W - 1}" '
                    f'height="{CELL_H - 1}" fill="#f4f4f4"/>')  # idle banks: one rect a row
        for b in range(32):
            hit = cells.get((wf, b))
            if not hit:
                continue
            x0 = left + b * CELL_W
            body.append(f'<rect x="{x0}" y="{y0}" width="{CELL_W - 1}" height="{CELL_H - 1}" '
                        f'class="b{b}"><title>bank {b}, wavefront {wf}: word '
                        f'{hit[0]}, lanes {", ".join(map(str, hit[1]))}</title></rect>')
            body.append(_text(x0 + CELL_W / 2, y0 + 12, _lanes(hit[1]), "middle",
                              ' font-size="8"'))
    body.append(_text(0, height - 18, "banks across; a cell: the lanes served by that bank "
                                      "in that wavefront (hover for the word)"))
    body.append(_text(0, height - 4, req["merge"]["reason"][:160]))
    return _svg(width, height, body, f"bank map: {req['wavefronts']} wavefronts", BANK_STYLE)


def layout_svg(m: dict[str, Any]) -> str:
    """A layout (jsonout.layout_json): the array's elements in logical rows and columns, each
    colored by its bank, with the marked request's lanes written in their cells."""
    banks = m["banks"]
    rows, cols = len(banks), len(banks[0]) if banks else 0
    # cells shrink with the columns, so a declared layout and two proposals fit side by side
    cw = ch = CELL_W if cols <= 16 else 14 if cols <= 32 else 9
    lane_text = cols <= 32
    lanes: dict[tuple[int, int], list[int]] = {}
    req = m["request"]
    for r, c, lane in (req["cells"] if req else []):
        lanes.setdefault((r, c), []).append(lane)
    left, top = 34, 36
    width = max(left + cols * cw + 8, 400)
    height = top + rows * ch + 30
    shape = "x".join(map(str, m["shape"]))
    head = f"{m['array']} ({m['dtype']}[{shape}]), {m['label']}"
    sub = (f"request of site {req['site']} (line {req['line']}): {req['wavefronts']} "
           f"wavefronts, ideal {req['ideal']}") if req else "no request marked"
    body = [_text(0, 13, head, extra=' font-weight="bold"'), _text(0, 27, sub)]
    # each row's banks are drawn once per pattern and used at every row that has it (an
    # array of thousands of elements repeats a few: a page stays small); a request's
    # elements are outlined over their row
    patterns: dict[tuple, str] = {}
    figure = hashlib.sha256(repr((head, cw, banks)).encode()).hexdigest()[:10]
    for r in range(rows):
        y0 = top + r * ch
        if r % 4 == 0:
            body.append(_text(left - 4, y0 + ch - 4, str(r), "end", ' font-size="9"'))
        key = tuple(banks[r])
        if key not in patterns:
            patterns[key] = f"row-{figure}-{len(patterns)}"
            body.append(f'<defs><g id="{patterns[key]}">' + "".join(
                f'<rect x="{left + c * cw}" y="0" width="{cw - 1}" height="{ch - 1}" '
                + (f'class="b{b}"/>' if b >= 0 else 'fill="#fff"/>')
                for c, b in enumerate(key)) + "</g></defs>")
        body.append(f'<use href="#{patterns[key]}" y="{y0}"/>')
        for c in range(cols):
            who = lanes.get((r, c))
            if not who:
                continue
            x0 = left + c * cw
            body.append(f'<rect x="{x0}" y="{y0}" width="{cw - 1}" height="{ch - 1}" '
                        f'fill="#fff" fill-opacity="0" stroke="#000" stroke-width="1.5">'
                        f'<title>[{r}][{c}] bank {banks[r][c]}, lane '
                        f'{", ".join(map(str, who))}</title></rect>')
            if lane_text:
                body.append(_text(x0 + cw / 2, y0 + ch - 4, str(who[0]), "middle",
                                  ' font-size="7" font-weight="bold"'))
    shown = f"rows 0-{rows - 1} of {m['rows']}, columns 0-{cols - 1} of {m['cols']}"
    note = "color: the element's bank; outlined: the request's elements" + (
        " (number: lane)" if lane_text else " (hover: lane)")
    body.append(_text(0, height - 14, shown if (rows < m["rows"] or cols < m["cols"]) else
                      f"{m['rows']} rows x {m['cols']} columns"))
    body.append(_text(0, height - 2, note, extra=' font-size="9"'))
    return _svg(width, height, body, head, BANK_STYLE)


KNOBS = {"block_size": "threads per block", "registers_per_thread": "registers per thread",
         "smem_per_block": "shared memory per block (bytes)"}


def _polyline(points: list[tuple[str, str]]) -> str:
    """An SVG path through `points` (formatted coordinates) without its repeated points and
    the middle points of straight horizontal or vertical runs: the same line, a tenth of
    the bytes for a step curve of many flat steps."""
    kept: list = []
    for p in points:
        if kept and p == kept[-1]:
            continue
        if len(kept) >= 2 and (kept[-2][1] == kept[-1][1] == p[1] or
                               kept[-2][0] == kept[-1][0] == p[0]):
            kept[-1] = p    # (the run goes on: its middle point says nothing)
        else:
            kept.append(p)
    return " ".join(f"{'M' if i == 0 else 'L'}{x},{y}" for i, (x, y) in enumerate(kept))


def curve_svg(curve: dict[str, Any], limiter: str = "") -> str:
    """A what-if curve (jsonout.occupancy_json's curves): occupancy against one knob as a
    step line, with the kernel's point marked."""
    xs, ys = curve["x"], curve["occupancy"]
    left, top, w, h = 44, 22, 300, 140
    width, height = left + w + 16, top + h + 54
    lo, hi = xs[0], xs[-1] if xs[-1] > xs[0] else xs[0] + 1
    px = lambda x: left + (x - lo) / (hi - lo) * w
    py = lambda y: top + h - y * h
    corners = [(f"{px(x):.1f}", f"{py(y):.1f}") for i, (x, y) in enumerate(zip(xs, ys))
               for x in ((x, xs[i + 1]) if i + 1 < len(xs) else (x,))]
    path = _polyline(corners)
    here = max((i for i, x in enumerate(xs) if x <= curve["current"]), default=0)
    name = KNOBS.get(curve["knob"], curve["knob"])
    body = [_text(0, 12, f"occupancy vs {name}", extra=' font-weight="bold"'),
            f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fafafa" '
            'stroke="#ccc"/>']
    for frac in (0, 0.25, 0.5, 0.75, 1):
        body.append(_text(left - 4, py(frac) + 4, f"{frac:.0%}", "end"))
    body.append(f'<path d="{path}" fill="none" stroke="#2a6fdb" stroke-width="1.5"/>')
    cx, cy = px(curve["current"]), py(ys[here])
    body.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="#d33"><title>this kernel: '
                f'{curve["current"]} -&gt; {ys[here]:.1%}</title></circle>')
    body.append(_text(left, top + h + 14, str(lo)))
    body.append(_text(left + w, top + h + 14, str(xs[-1]), "end"))
    body.append(_text(left, top + h + 30, f"this kernel: {curve['current']}, occupancy "
                                          f"{ys[here]:.1%}"))
    if limiter:
        body.append(_text(left, top + h + 44, f"limited by {limiter}"))
    return _svg(width, height, body, f"occupancy vs {name}")


def sweep_svg(sweep: dict[str, Any]) -> str:
    """A sweep (jsonout.sweep_json): excess wavefronts against occupancy for every analyzed
    point, the Pareto front drawn over them."""
    pts = [p for p in sweep["points"] if p["error"] is None and p["wavefronts"] is not None]
    left, top, w, h = 64, 22, 360, 200
    width, height = left + w + 16, top + h + 44
    body = [_text(0, 12, f"{sweep['kernel']}: {len(pts)} points", extra=' font-weight="bold"'),
            f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fafafa" '
            'stroke="#ccc"/>']
    if pts:
        ex = [p["excess"] for p in pts]
        occ = [p["occupancy"] if p["occupancy"] is not None else 0.0 for p in pts]
        top_ex = max(max(ex), 1)
        px = lambda o: left + o * w
        py = lambda e: top + h - e / top_ex * h
        for p, e, o in zip(pts, ex, occ):
            what = ", ".join([f"{k}={v}" for k, v in p["params"].items()] + [
                f"{x['array']} " + (f"pad {x['pad']}" if not x["swizzle"] else
                                    "Swizzle<{},{},{}>".format(*x["swizzle"]))
                for x in p.get("layouts") or () if x["pad"] or x["swizzle"]]) or "as declared"
            color = "#d33" if p["pareto"] else "#2a6fdb"
            body.append(f'<circle cx="{px(o):.1f}" cy="{py(e):.1f}" r="{4 if p["pareto"] else 3}"'
                        f' fill="{color}" fill-opacity="0.7"><title>{escape(what)}: excess '
                        f'{e}, occupancy {o:.1%}</title></circle>')
        body.append(_text(left - 4, top + 10, f"{top_ex:,}", "end"))
    body.append(_text(left - 4, top + h, "0", "end"))
    body.append(_text(left, top + h + 14, "0%"))
    body.append(_text(left + w, top + h + 14, "100%", "end"))
    body.append(_text(left, top + h + 30, "occupancy across, excess wavefronts up; red: the "
                                          "Pareto front"))
    return _svg(width, height, body, f"sweep of {sweep['kernel']}")

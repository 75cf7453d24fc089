"""The report layer's drawings of analysis results for notebooks, registered with
smemsim.display (the package's `smemsim.display` entry point calls register())."""
from __future__ import annotations


def register() -> None:
    """Register a drawing for each result a notebook shows: an analysis (the report page's
    section), a warp request (its bank map), an occupancy (its numbers and curves) and a
    layout map (its grid)."""
    from ..launch.analysis import Report
    from ..engine.banks import WarpRequest
    from ..display import register as add
    from ..launch.layoutmap import LayoutMap
    from ..launch.occupancy import Occupancy
    add(Report, _report)
    add(WarpRequest, _request)
    add(Occupancy, _occupancy)
    add(LayoutMap, _layout)


def _report(r) -> str:
    from . import page, reportdoc
    return page.fragment(reportdoc.report_item(r))


def _request(req) -> str:
    from .figures import bank_map_svg
    from .jsonout import request_json
    return bank_map_svg(request_json(req))


def _occupancy(o) -> str:
    from ..launch.occupancy import what_if
    from .jsonout import occupancy_json
    from .page import CSS, occupancy_view
    return (f'<div class="smemsim"><style>{CSS}</style>'
            f"{occupancy_view(occupancy_json(o, what_if(o)))}</div>")


def _layout(m) -> str:
    from .figures import layout_svg
    from .jsonout import layout_json
    return layout_svg(layout_json(m))

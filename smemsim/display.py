"""Notebook pictures of analysis results. The analyses only ask for one (Jupyter's
`_repr_html_`); the report layer draws them and registers its drawings here, named by the
installed package's entry points (group `smemsim.display`), so that no arrow of the
import graph points up from an analysis to the command layer."""
from __future__ import annotations

from typing import Callable

_DRAWINGS: dict[type, Callable[[object], str]] = {}
_LOADED = [False]


def register(kind: type, draw: Callable[[object], str]) -> None:
    """Draw results of `kind` (and its subclasses) with `draw(result) -> HTML`."""
    _DRAWINGS[kind] = draw


def html(result) -> str | None:
    """The registered drawing of `result` as HTML, or None where none is registered (the
    package not installed, only on the path: the notebook then shows its repr)."""
    if not _LOADED[0]:
        _LOADED[0] = True
        from importlib.metadata import entry_points
        for point in entry_points(group="smemsim.display"):
            point.load()()
    for kind in type(result).__mro__:
        if kind in _DRAWINGS:
            return _DRAWINGS[kind](result)
    return None

"""Phrases several outputs share (the table, explain, SARIF, gcc and the page): a site's
statement as the user wrote it, a list of sites, what kind of count a number is."""
from __future__ import annotations

import os
import re


def shown_statement(s) -> str:
    """What a site's line shows: for a CUDA file, the source line itself (the statement the
    analysis counts is read from nvcc's PTX, whose registers the user never wrote); else the
    kernel's statement."""
    if s.loc.text:   # (the frontend's reading of the line, continued lines first)
        return s.loc.text
    from ..frontends.loader import CUDA_SUFFIXES
    if s.loc.file.endswith(CUDA_SUFFIXES):
        text = _source_line(s.loc.file, s.loc.line)
        if text:
            return text
    return s.statement


def _source_line(file: str, line: int) -> str | None:
    """One line of a source file, stripped (None where it cannot be read)."""
    try:
        st = os.stat(file)
    except OSError:
        return None
    key = (file, st.st_mtime_ns, st.st_size)   # (a long-lived process sees edits)
    lines = _SOURCES.get(key)
    if lines is None:
        try:
            with open(file, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        _SOURCES[key] = lines
    return " ".join(lines[line - 1].split()) if 0 < line <= len(lines) else None


_SOURCES: dict[tuple, list[str]] = {}


def sites_word(sites) -> str:
    """`site 5`, `sites 13-16`, `sites 5, 7, 9`, `sites 5, 7, ... 35 (16 of them)`."""
    numbers = [s.site for s in sites]
    if len(numbers) == 1:
        return f"site {numbers[0]}"
    return f"sites {numbers_text(numbers)}"


def numbers_text(numbers: list[int]) -> str:
    """`13-16`, `5, 7, 9`, `8-11, 16-19` (runs, where few), `5, 7, ... 35 (16 of them)`
    (one step), `2 to 41 (32 of the 40)` (others), `4`."""
    if len(numbers) == 1:
        return str(numbers[0])
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    if len(runs) == 1:
        return f"{numbers[0]}-{numbers[-1]}"
    if len(numbers) <= 4 or len(runs) <= 3:
        return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
    steps = {b - a for a, b in zip(numbers, numbers[1:])}
    if len(steps) == 1:   # (one step: the series its first two and last say)
        return f"{numbers[0]}, {numbers[1]}, ... {numbers[-1]} ({len(numbers)} of them)"
    return f"{numbers[0]} to {numbers[-1]} ({len(numbers)} of the " \
        f"{numbers[-1] - numbers[0] + 1})"


def _field(s, name: str):
    """A site's field, of a SiteReport or of its JSON."""
    return s.get(name) if isinstance(s, dict) else getattr(s, name)


def is_estimate(s) -> bool:
    """Whether a site's count is an estimate (a retry loop, or the compare-and-swap loop of
    an atomic, where warps contend for one word: the GPU's passes depend on its
    scheduling), rather than exact or a bound (`at_least`). Takes a SiteReport or its
    JSON."""
    return not _field(s, "at_least") and (_field(s, "retry_loop") is not None or
                                          _field(s, "op") == "atomic_cas_loop")


def count_caveat(sites) -> str:
    """What kind of count the sites' sum is, for a one-line diagnostic (SARIF, gcc): ""
    where it is exact on this launch; else `at least: ...`, `an estimate: ...` and/or
    `counted on this launch's inputs`."""
    parts = []
    if any(_field(s, "at_least") for s in sites):
        parts.append("at least: the fewest passes of a retry loop; the GPU may run more")
    elif any(is_estimate(s) for s in sites):
        parts.append("an estimate: a retry loop where warps contend for one word, whose "
                     "passes depend on the GPU's scheduling")
    if any(_field(s, "data_dependent") for s in sites):
        parts.append("counted on this launch's inputs, on which its accesses depend")
    return "; ".join(parts)


# the fields numba passes an array as (its PTX's parameters): shown as the array they are
_NUMBA_FIELD = re.compile(r"^(\w+?)_(meminfo|parent|nitems|itemsize|data|shape_\d+|"
                          r"strides_\d+)$")


def params_text(params: dict) -> str:
    """A launch's parameters as `n=4096, ...`; a numba array's descriptor fields as the
    array (`a[32768 x 32] of 4-byte items`, its strides where they are not its rows')."""
    arrays: dict = {}
    for name, value in params.items():
        m = _NUMBA_FIELD.match(name)
        if m:
            arrays.setdefault(m.group(1), {})[m.group(2)] = value
    arrays = {a: f for a, f in arrays.items() if "itemsize" in f and "shape_0" in f}
    out, done = [], set()
    for name, value in params.items():
        m = _NUMBA_FIELD.match(name)
        if m is None or m.group(1) not in arrays:
            out.append(f"{name}={_number(value)}")
            continue
        a = m.group(1)
        if a in done:
            continue
        done.add(a)
        f = arrays[a]
        shape = [f[k] for k in sorted((k for k in f if k.startswith("shape_")),
                                      key=lambda k: int(k[6:]))]
        strides = [f.get(f"strides_{d}") for d in range(len(shape))]
        rows = [f["itemsize"]] * len(shape)
        for d in range(len(shape) - 2, -1, -1):
            rows[d] = rows[d + 1] * shape[d + 1]
        out.append(f"{a}[{' x '.join(str(x) for x in shape)}] of {f['itemsize']}-byte items"
                   + ("" if strides == rows else
                      f" (strides {', '.join(str(x) for x in strides)} bytes)"))
    return ", ".join(out)


def _number(value) -> str:
    """A parameter's value as the source would write it: a float's shortest text, as a
    `float` where it is one (`1e-06` for 1e-6f, not 9.999999974752427e-07)."""
    if isinstance(value, float):
        import numpy as np
        single = np.float32(value)
        if float(single) == value:
            return str(single)
    return str(value)


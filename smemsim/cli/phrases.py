"""Phrases several outputs share (the table, explain, SARIF and gcc): a site's statement
as the user wrote it, a list of sites."""
from __future__ import annotations

import os


def shown_statement(s) -> str:
    """What a site's line shows: for a CUDA file, the source line itself (the statement the
    analysis counts is read from nvcc's PTX, whose registers the user never wrote); else the
    kernel's statement."""
    if s.loc.text:   # (the frontend's reading of the line, continued lines first)
        return s.loc.text
    if s.loc.file.endswith((".cu", ".cuh")):
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
    """`13-16`, `5, 7, 9`, `5, 7, ... 35 (16 of them)`."""
    if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"{numbers[0]}-{numbers[-1]}"
    if len(numbers) <= 4:
        return ", ".join(map(str, numbers))
    return f"{numbers[0]}, {numbers[1]}, ... {numbers[-1]} ({len(numbers)} of them)"

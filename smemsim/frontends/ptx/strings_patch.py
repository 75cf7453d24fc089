"""fix's changes to CUDA a Python program compiles from a string (cupy, pycuda), built as the
program builds the string and written back into the Python file.

The string nvcc builds (strings_frontend.unit_of) is written as a private `.cu`, so the
declarations are found and changed as in any `.cu` (smemsim.frontends.cuda.patch), and each
changed text is built as the program's string would be (its compile call's options, its
launch). The change is then written into the Python file line for line: each line it
rewrites must stand in the file as the string has it (not formatted from a value, no escape
in it), and the file as patched is read again to check that its string is the changed text
exactly; where either fails, the change is counted and shown but not written.
"""
from __future__ import annotations

import dataclasses
import difflib
import pathlib
import re

from kernels_ir import Kernel, KernelError

from . import strings_frontend as sf


@dataclasses.dataclass(frozen=True)
class StringSource:
    """Kernel `key` of the Python program at `path`, the CUDA its compile call builds, and
    how the command line builds it."""

    path: str
    key: str
    unit: sf.Unit
    options: object
    arch: str = "sm_90"
    flags: tuple = ()


def string_source(path: str, key: str, options=None, arch: str = "sm_90",
                  flags=()) -> StringSource:
    """Kernel `key` of the program at `path` as fix changes it."""
    found = sf.program(path, sf.pk.given_values(options))
    if key not in found.kernels:
        raise KernelError(f"{path} has no kernel '{key}' compiled from a string")
    return StringSource(path, key, sf.unit_of(key, found), options, arch, tuple(flags))


def rebuilt(source: StringSource, unit: str) -> Kernel:
    """Kernel `key` built from `unit` (the compile call's CUDA, changed) as the program builds
    and launches its string."""
    found = sf.program(source.path, sf.pk.given_values(source.options))
    return sf.build(source.path, source.key, found, source.options, source.arch,
                    source.flags, unit=unit).kernel


def user_line(source: StringSource, line: int) -> int | None:
    """The Python file's line of line `line` of the unit (None: a line the compile call
    adds, or a string whose lines are not the file's)."""
    unit = source.unit
    if unit.first is None or not unit.offset < line <= unit.offset + _string_lines(unit):
        return None
    return unit.first + line - 1 - unit.offset


def in_users_file(text: str, source: StringSource, unit_path: str) -> str:
    """A message about the unit's private copy, located in the Python file instead."""
    name = re.escape(pathlib.Path(unit_path).name)

    def place(m) -> str:
        line = user_line(source, int(m.group(1))) if m.group(1) else None
        return f"{source.path}:{line}" if line is not None else \
            f"{source.path} (the CUDA string of {source.key})"
    return re.sub(rf"[^\s:'\"]*smemsim-[a-z]+-[^/\s]+/{name}(?::(\d+))?(?::\d+)*", place, text)


def python_patch(source: StringSource, changed):
    """The Python file with its string changed as `changed` (patch.layout_patch's
    LayoutPatch of the unit) changes it (a LayoutPatch of the file), or a KernelError saying
    why the change cannot be written into it."""
    from ..cuda.patch import LayoutPatch
    unit = source.unit
    where = f"{source.path}: the CUDA string of {source.key}"
    if unit.first is None:
        raise KernelError(f"{where} is assembled from several texts: the change cannot be "
                          "written into the file line for line")
    original = pathlib.Path(source.path).read_text(encoding="utf-8", errors="surrogateescape")
    lines = original.splitlines(keepends=True)
    old = unit.text.splitlines(keepends=True)
    new = changed.patched.splitlines(keepends=True)
    out = list(lines)
    values = _formatted_values(lines, old, unit)
    last = unit.offset + _string_lines(unit)        # the unit's lines of the string: offset..
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in reversed(ops):
        if tag == "equal":
            continue
        if tag == "insert" and i1 == unit.offset and new[j1] == old[i1]:
            # (a function inserted before the kernel, ending in a blank line, may be aligned
            # before a blank line the string opens on: the same text one line later)
            i1, i2, j1, j2 = i1 + 1, i2 + 1, j1 + 1, j2 + 1
        if i1 < unit.offset or i2 > last or (tag == "insert" and i1 == unit.offset):
            raise KernelError(f"{where}: the change reaches past the string's own lines")
        at = unit.first - 1 + i1 - unit.offset     # (index in `lines` of unit line i1)
        ending = "\r\n" if lines[at - 1].endswith("\r\n") else "\n"
        written = [n.rstrip("\n") for n in new[j1:j2]]
        for k in range(i1, i2):
            if k == unit.offset or at + k - i1 >= len(lines):
                raise _not_as_built(source, at + k - i1 + 1)
            mine = lines[at + k - i1].rstrip("\r\n")
            if mine != old[k].rstrip("\n") and (tag != "replace" or i2 - i1 != j2 - j1):
                raise _not_as_built(source, at + k - i1 + 1)
            if tag == "replace" and i2 - i1 == j2 - j1:
                # the change made around the line's formatted values (`[%(tile)d]` built as
                # `[32]`: `[%(tile)d + 1]`), and a value it writes anew where the string
                # formats it (a swizzled index's row length `(32)`: `(%(tile)d)`)
                made = _as_written(mine, old[k].rstrip("\n"), written[k - i1], values)
                if made is None:
                    raise _not_as_built(source, at + k - i1 + 1)
                written[k - i1] = made
        out[at:at + i2 - i1] = [w + ending for w in written]
    patched = "".join(out)
    _check_reread(source, patched, changed.patched)
    return LayoutPatch(source.path, original, patched, user_edits(source, changed.edits))


def user_edits(source: StringSource, edits) -> tuple[str, ...]:
    """patch.layout_patch's edits of the unit ("line N: a -> b"), at the file's lines."""
    def mapped(m) -> str:
        line = user_line(source, int(m.group(1)))
        return f"line {line}" if line is not None else "a line the compile call adds"
    return tuple(re.sub(r"^line (\d+)", mapped, e) for e in edits)


def _not_as_built(source: StringSource, line: int) -> KernelError:
    return KernelError(f"{source.path}:{line}: the CUDA string's line is not written as built "
                       "(a formatted value the change splits, an escape, or the line the "
                       "string opens on): the change to it cannot be written into the file")


def _formatted_values(lines: list, old: list, unit: sf.Unit) -> dict:
    """The numbers the string formats into it (`32` built from `%(tile)d`), each with the
    one text that makes it (a number two texts make is left out): by line, the file's text
    against the built."""
    made: dict = {}
    for k in range(unit.offset + 1, min(len(old), unit.offset + _string_lines(unit))):
        at = unit.first - 1 + k - unit.offset
        if at >= len(lines):
            break
        mine, built = lines[at].rstrip("\r\n"), old[k].rstrip("\n")
        if mine == built:
            continue
        for tag, p1, p2, b1, b2 in difflib.SequenceMatcher(None, mine, built,
                                                           autojunk=False).get_opcodes():
            if tag == "replace" and re.fullmatch(r"\d+", built[b1:b2]):
                made.setdefault(built[b1:b2], set()).add(mine[p1:p2])
    return {b: next(iter(texts)) for b, texts in made.items() if len(texts) == 1}


def _as_written(mine: str, built: str, changed: str, values: dict | None = None) -> str | None:
    """`changed` (a change of the line as built, `built`) as the file writes the line
    (`mine`, with formatted values where `built` has their text): the change's new text as
    it is, the built text it keeps as the file writes it, each formatted value whole; None
    where the change splits one (the check that reads the patched program again is the
    judge of the rest)."""
    regions = difflib.SequenceMatcher(None, mine, built, autojunk=False).get_opcodes()
    out = []
    for tag, u1, u2, n1, n2 in difflib.SequenceMatcher(None, built, changed,
                                                       autojunk=False).get_opcodes():
        if tag != "equal":
            own = changed[n1:n2]             # the change's own text
            for number, text in (values or {}).items():
                own = own.replace(f"({number})", f"({text})")
            out.append(own)
            continue
        for kind, p1, p2, b1, b2 in regions:
            lo, hi = max(u1, b1), min(u2, b2)
            if kind == "delete" and u1 < b1 < u2:
                out.append(mine[p1:p2])      # (file text that builds to nothing)
            if lo >= hi:
                continue
            if kind == "equal":
                out.append(mine[p1 + lo - b1:p1 + hi - b1])
            elif (lo, hi) == (b1, b2):       # a formatted value kept whole
                out.append(mine[p1:p2])
            else:
                return None
    return "".join(out)


def _check_reread(source: StringSource, patched: str, changed: str) -> None:
    """Read the patched file as the program (never run) and check that its compile call's
    string is `changed` exactly (a brace of an f-string or `.format`, a `%` of a formatted
    string would make another text)."""
    from ...cache import process_copy
    copy = process_copy(patched, pathlib.Path(source.path).name, "patch")
    try:
        found = sf.program(str(copy), sf.pk.given_values(source.options))
        again = sf.unit_of(source.key, found).text if source.key in found.kernels else None
    except KernelError:
        again = None
    if again != changed:
        raise KernelError(f"{source.path}: the CUDA string of {source.key}, patched line for "
                          "line, is not the changed text when the program makes it (its "
                          "string is formatted): the change cannot be written into the file")


def _string_lines(unit: sf.Unit) -> int:
    return unit.string.count("\n") + 1


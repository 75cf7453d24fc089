"""Errors of the kernel IR, and the source locations they point at."""
from __future__ import annotations

import contextlib
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Iterator

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class SourceLoc:
    """The file and line (and column, where known: 0 if not) an IR node was made from: the
    builder call's Python line, or the CUDA line a `.cu` import lowered."""

    file: str
    line: int
    column: int = 0
    # where it was inlined, innermost call first: (file, line) of each call (nvcc may put
    # the instructions of an inlined function on the line that called it)
    calls: tuple[tuple[str, int], ...] = ()
    function: str | None = None   # the inlined function the line is in, where known
    # the source's own text of the statement, where a frontend read it (a `.cu` line as
    # written, where the IR's statement is nvcc's build of it): messages show it
    text: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        where = f"{_short(self.file)}:{self.line}"
        return f"{where}:{self.column}" if self.column else where

    def chain(self) -> str:
        """The line with the calls that inlined it: `gemm.cu:18 (load_tile) via gemm.cu:78`."""
        return str(self) + (f" ({self.function})" if self.function else "") + "".join(
            f" via {_short(f)}:{n}" for f, n in self.calls)


def _short(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if rel.startswith("..") else rel


_LOCATED: list[SourceLoc] = []  # the innermost `located` block's location, last


@contextlib.contextmanager
def located(loc: SourceLoc) -> Iterator[None]:
    """Builder calls inside this block make nodes located at `loc` (a frontend that lowers
    another language, such as CUDA, names its own source lines this way)."""
    _LOCATED.append(loc)
    try:
        yield
    finally:
        _LOCATED.pop()


def caller_loc() -> SourceLoc:
    """Where the user's builder code stands: the innermost `located` block's location, else
    the first stack frame outside kernels_ir (or the CUDA line that builder line came from:
    `source_lines`)."""
    if _LOCATED:
        return _LOCATED[-1]
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if os.path.dirname(path) != _PACKAGE_DIR and "contextlib" not in path:
            mapped = _SOURCE_MAPS.get(path, {}).get(frame.f_lineno)
            return mapped or SourceLoc(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return SourceLoc("<unknown>", 0)


_SOURCE_MAPS: dict[str, dict[int, SourceLoc]] = {}
# The suffixes of CUDA sources and the C/C++ headers they include: a node made from a line
# of any of them is marked with its file, so a site inlined from `common.h` keeps its header
# line (the as-compiled mapping matches SASS line info by file and line).
CUDA_SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc", ".ipp",
                        ".tcc", ".cpp", ".cc", ".cxx", ".c")
_SUFFIXES = "|".join(re.escape(s) for s in CUDA_SOURCE_SUFFIXES)
# `# FILE:N`, then ` via FILE:N` per call it was inlined at, innermost first
_MARK = re.compile(r"#\s*([^\s#]+(?:%s)):(\d+)((?:\s+via\s+[^\s#]+(?:%s):\d+)*)\s*$"
                   % (_SUFFIXES, _SUFFIXES))
_VIA = re.compile(r"via\s+([^\s#]+):(\d+)")


def source_lines(python_file: str) -> None:
    """Make IR nodes built on lines of `python_file` that end in a `# FILE.cu:N` comment
    report that CUDA file and line (FILE relative to the Python file's folder), and the
    calls it was inlined at from each ` via FILE:N` after it: a kernels file that
    `smemsim import` wrote from CUDA calls this on itself."""
    path = os.path.abspath(python_file)
    folder = os.path.dirname(path)
    mapping = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = _MARK.search(line)
            if m:
                calls = tuple((os.path.normpath(os.path.join(folder, f)), int(k))
                              for f, k in _VIA.findall(m.group(3)))
                mapping[n] = SourceLoc(os.path.normpath(os.path.join(folder, m.group(1))),
                                       int(m.group(2)), calls=calls)
    _SOURCE_MAPS[path] = mapping


_COUNTER = re.compile(r"iter_l(\d+)(?:_\d+)?|line (\d+)")


def counter_name(line: int | None) -> str:
    """The name a frontend gives its count of a loop's iterations where the loop has no
    variable of its own (nvcc's build of a `for`): `iter_l22` for the loop at source line
    22; messages name it as that loop (loop_label)."""
    return f"iter_l{line}" if line else "iter"


def loop_label(name: str) -> str:
    """A loop as a message names it: `loop 'k'` by its variable, `the loop at line 22` by
    the line of a counter_name."""
    m = _COUNTER.fullmatch(name)
    return f"the loop at line {m.group(1) or m.group(2)}" if m else f"loop '{name}'"


def loop_key(name: str) -> str:
    """A loop as JSON keys it: its variable, or `line 22` for a counter_name (the loop at
    source line 22, which has no variable of its own)."""
    m = _COUNTER.fullmatch(name)
    return f"line {m.group(1) or m.group(2)}" if m else name


def iterations_text(iterations, values=None) -> str:
    """The loop iterations a lane is in (loop variable -> iteration from 0, or its pairs):
    `iteration j=0 (j is -4)`, and a loop with no variable of its own by its number and its
    line, `iteration 2 (from 0) of the loop at line 10` (the source's own variable may count
    otherwise: `i` 62 at the 31st of `for (i = 2; ...; i += 2)`)."""
    values = values or {}
    pairs = list(iterations.items()) if hasattr(iterations, "items") else list(iterations)
    named = [(k, v) for k, v in pairs if not _COUNTER.fullmatch(k)]
    parts = ["iteration " + ", ".join(
        f"{k}={v}" + (f" ({k} is {values[k]})" if k in values and values[k] != v else "")
        for k, v in named)] if named else []
    return ", ".join(parts + [f"iteration {v} (from 0) of {loop_label(k)}" for k, v in pairs
                              if _COUNTER.fullmatch(k)])


class KernelError(Exception):
    """A malformed kernel: names the kernel, the statement and the builder's source line."""

    def __init__(self, message: str, *, kernel: str | None = None, stmt: str | None = None,
                 loc: SourceLoc | None = None):
        self.message = message
        self.kernel = kernel
        self.stmt = stmt
        self.loc = loc
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.kernel:
            where.append(f"kernel '{self.kernel}'")
        if self.loc:   # (with the calls it was inlined at: where the user looks)
            where.append(f"line {self.loc.chain()}")
        if self.loc is not None and self.loc.text:
            where.append(f"`{self.loc.text}`")
        elif self.stmt:
            where.append(f"`{self.stmt}`")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class KernelRuntimeError(KernelError):
    """A fault while executing a launch: names the lane (block, thread) and loop iterations."""

    def __init__(self, message: str, *, kernel: str | None = None, stmt: str | None = None,
                 loc: SourceLoc | None = None, block: tuple[int, int, int] | None = None,
                 thread: tuple[int, int, int] | None = None,
                 iterations: dict[str, int] | None = None,
                 values: dict[str, int | float] | None = None, site: int | None = None):
        self.block = block
        self.site = site                           # the access site that faulted, if one
        self.thread = thread
        self.iterations = dict(iterations or {})   # loop variable -> iteration (from 0)
        self.values = dict(values or {})           # loop variable -> its value there
        super().__init__(message, kernel=kernel, stmt=stmt, loc=loc)

    def _render(self) -> str:
        text = super()._render()
        lane = []
        if self.block is not None:
            lane.append(f"block {self.block}")
        if self.thread is not None:
            lane.append(f"thread {self.thread}")
        if self.iterations:
            # the iteration's number, and the variable's value where that is not the same
            # (`for (j = -4; ...)`'s first iteration: `j=0 (j is -4)`, not a bare j=0)
            lane.append(iterations_text(self.iterations, self.values))
        return f"{text} [{'; '.join(lane)}]" if lane else text

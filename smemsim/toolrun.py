"""Running the CUDA tools on a user's files without handing any of their names to a shell.

nvcc runs its steps through `sh -c`, quoting each argument in double quotes: a backtick,
`$(...)`, a backslash or a double quote in an argument runs code (measured with nvcc 13.0:
`-DV=1$(touch M)` and a file named ``a`touch M`.cu`` both create M). So nothing of the
user's reaches nvcc as text: the source file is a private copy with a fixed name in a
private temporary folder, each include folder a link there with a fixed name, and the
user's own flags (-D, --nvcc-flag) are refused if they hold one of those characters. nvcc
resolves the links of its input file (it passes the real path to cicc), which is why the
source is copied and only folders are linked.

Lines the tools report name the staged paths; `Stage.unstage` maps them back (the user's
name appears only in messages and reports). The folder goes on every exit path: the `with`
ends it, and the CLI turns SIGTERM into an exception so that it ends then too.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from kernels_ir import KernelError

# what nvcc's shell would read inside double quotes: command substitution, escapes, the quote
SHELL_SPECIAL = ("`", "$", "\\", '"')
# a staged path holds only these (a temporary folder elsewhere is not used)
_SAFE_PATH = re.compile(r"[A-Za-z0-9_./+-]+")
STAGE_MARK = "@smemsim-stage@"   # a staged folder as cached text names it


class ToolMissing(RuntimeError):
    """A CUDA tool or Python package the step needs is not installed; says what to install."""


def find_tool(name: str) -> str:
    """A CUDA binary from PATH, CUDA_HOME, the toolkit or the nvidia-cuda-* wheels."""
    found = shutil.which(name)
    if found:
        return found
    for root in _toolkit_roots():
        if (Path(root) / "bin" / name).exists():
            return str(Path(root) / "bin" / name)
    for entry in sys.path:
        for candidate in Path(entry).glob(f"nvidia/*/bin/{name}"):
            return str(candidate)
    raise ToolMissing(f"{name} not found: install the CUDA toolkit or "
                      f"`pip install nvidia-cuda-{name}` (the 'gpu' extra)")


def _toolkit_roots() -> list[str]:
    """Where a CUDA toolkit may be installed: CUDA_HOME, CUDA_PATH, /usr/local/cuda(-*)."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    roots += sorted((str(p) for p in Path("/usr/local").glob("cuda-*")), reverse=True)
    return [r for r in roots if r]


def nvcc_first_error(log: str) -> str:
    """nvcc's log in one line: its first line (`nvcc could not build the file:`), then the
    first line after it that says `error`, else the first one."""
    head, _, rest = log.partition("\n")
    lines = [line.strip() for line in rest.splitlines() if line.strip()]
    first = next((line for line in lines if "error" in line), lines[0] if lines else "")
    # (cicc's `k.cu(2): error:` as every other message names a place: `k.cu:2: error:`)
    first = re.sub(r"^(.+?)\((\d+)\): ", r"\1:\2: ", first)
    return f"{head.rstrip(':')}: {first}" if first else head


def refuse_shell_text(arguments, what: str) -> None:
    """Refuse (one line) an argument of the user's that nvcc's shell would interpret."""
    for a in arguments:
        bad = next((c for c in SHELL_SPECIAL if c in a), None)
        if bad is not None:
            raise KernelError(f"{what} {a!r}: holds {bad!r}, which nvcc's shell would "
                              "interpret (nvcc runs its steps through sh); smemsim does not "
                              "pass it")


def private_folder() -> str:
    """A new folder only this process can read, whose path a shell leaves as it is."""
    folder = tempfile.mkdtemp(prefix="smemsim-")
    if not _SAFE_PATH.fullmatch(folder):   # $TMPDIR with odd characters: use /tmp
        os.rmdir(folder)
        folder = tempfile.mkdtemp(prefix="smemsim-", dir="/tmp")
    return folder


@dataclass(frozen=True)
class Stage:
    """A user's source and include folders as a tool sees them: fixed names in `folder`."""

    folder: str
    source: str                  # the private copy of the user's file
    source_dir_link: str         # a link to the folder the user's file is in
    include_links: tuple[str, ...]
    user_source: str             # absolute paths of the user's own
    user_includes: tuple[str, ...]

    def include_flags(self) -> list[str]:
        """The flags that find the user's headers as their own build does: `#include "x"`
        beside their file (gcc's -iquote, through nvcc's -Xcompiler), then their -I."""
        return ["-Xcompiler", "-iquote", "-Xcompiler", self.source_dir_link,
                *(f"-I{d}" for d in self.include_links)]

    def user_named(self, text: str) -> str:
        """A tool's message with the staged names replaced by the user's."""
        text = text.replace(self.source, self.user_source)
        text = text.replace(self.source_dir_link + "/", os.path.dirname(self.user_source) + "/")
        for link, user in zip(self.include_links, self.user_includes):
            text = text.replace(link + "/", user + "/")
        return text

    def marked(self, text: str) -> str:
        """Tool output with the staged folder named by STAGE_MARK (the same text on every
        run, so that it can be cached)."""
        return text.replace(self.folder, STAGE_MARK)


def unstage(path: str, user_source: str, user_includes=()) -> str:
    """A path a tool reported, with the staged folder marked (Stage.marked), as the user's
    path; any other path as it is."""
    if not path.startswith(STAGE_MARK + "/"):
        return path
    head, _, tail = path[len(STAGE_MARK) + 1:].partition("/")
    if head == "src":
        return user_source
    if head == "dir":
        return os.path.join(os.path.dirname(user_source), tail)
    if head.startswith("inc") and head[3:].isdigit() and int(head[3:]) < len(user_includes):
        return os.path.join(user_includes[int(head[3:])], tail)
    return path


@contextlib.contextmanager
def staged(source: str, include_dirs=()) -> Iterator[Stage]:
    """The user's `source` copied, and its folder and `include_dirs` linked, under fixed
    names in a private folder, removed when the block ends (also on an exception)."""
    folder = private_folder()
    try:
        user_source = os.path.abspath(source)
        user_includes = tuple(os.path.abspath(d) for d in include_dirs)
        os.mkdir(os.path.join(folder, "src"))
        suffix = os.path.splitext(source)[1]
        copy = os.path.join(folder, "src", "source" + (suffix if _SAFE_PATH.fullmatch(
            suffix or ".") else ".cu"))
        shutil.copyfile(user_source, copy)
        dir_link = os.path.join(folder, "dir")
        os.symlink(os.path.dirname(user_source), dir_link)
        links = []
        for n, d in enumerate(user_includes):
            links.append(os.path.join(folder, f"inc{n}"))
            os.symlink(d, links[-1])
        yield Stage(folder, copy, dir_link, tuple(links), user_source, user_includes)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_tool(command: list[str], folder: str | None = None,
             **kwargs) -> subprocess.CompletedProcess:
    """A tool run with an argument list (never a shell of ours), its output as text;
    `folder`: the private folder its temporary files go to (nvcc's `tmpxft_*`, which a
    killed nvcc cannot remove: the staging folder's removal takes them)."""
    if folder is not None:
        kwargs["env"] = {**os.environ, "TMPDIR": folder, "TMP": folder, "TEMP": folder}
    # (a tool echoes the user's bytes back, nvcc a source line that is not UTF-8: replaced,
    # never a decoding error in place of the tool's message)
    kwargs.setdefault("errors", "replace")
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode in (-signal.SIGINT, -signal.SIGTERM):
        # Ctrl-C reaches the tool too (one process group): the command was interrupted, the
        # tool did not fail (its error would read as bad input, exit 2)
        raise KeyboardInterrupt(f"{os.path.basename(command[0])} was interrupted")
    return done

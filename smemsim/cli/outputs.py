"""Where the command writes files: one policy for every option that writes one (`-o`,
`--patch`, `--sarif`, `--csv`, `--svg`).

An output is claimed before any work, so a bad one is a clear error at once:
- never an input of the run (the file analyzed, `--host-file`, `--data`, `--sweep-result`),
  nor CUDA or Python source where the output is something else (a header it includes);
- never through a symbolic link, never a folder, FIFO, socket or device (a FIFO would hang
  the write; os.devnull alone is taken, nothing is lost there);
- never an existing file smemsim did not write, unless `--force` (`ours` recognises what
  the verb writes: a typo, or a path from a script, would lose the user's file).
Then it is written whole: a temporary file in the same folder, renamed over the old one,
so that a full disk or an interrupt leaves the old file as it was.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import stat
import sys
from typing import Callable

from kernels_ir import KernelError
from kernels_ir.errors import CUDA_SOURCE_SUFFIXES

SOURCE_SUFFIXES = (*CUDA_SOURCE_SUFFIXES, ".py", ".npy")


def add_force(p) -> None:
    """--force, for a verb that writes a file."""
    p.add_argument("--force", action="store_true",
                   help="replace an existing output file smemsim did not write (never an "
                        "input of the run, a link or a FIFO)")


def run_inputs(args) -> list[str]:
    """The files a command line reads (what no output may replace)."""
    found = [getattr(args, "file", None), *(getattr(args, "host_file", None) or ()),
             getattr(args, "sweep_result", None)]
    found += [item.partition("=")[2] for item in getattr(args, "data", None) or ()]
    return [f for f in found if f]


def claim(path: str, option: str, args, verb: str, *,
          ours: Callable[[bytes], bool] | None = None, source_ok: tuple[str, ...] = ()) -> None:
    """Refuse (one line naming `option`) to write `path` for `smemsim verb` unless the policy
    above allows it; `ours(contents)`: whether an existing file is what the verb writes;
    `source_ok`: the source suffixes this output legitimately has (`import -o`: `.py`)."""
    out = pathlib.Path(path)
    if os.path.abspath(path) == os.devnull:
        return
    suffix = out.suffix.lower()
    if suffix in SOURCE_SUFFIXES and suffix not in source_ok:
        raise KernelError(f"{option} {path}: a source or data file's name; the output is not "
                          "one (give another name)")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not out.parent.is_dir() and str(out.parent) not in ("", "."):
            raise KernelError(f"{option} {path}: No such file or directory (no folder "
                              f"{out.parent})") from None
        return
    except OSError as err:
        raise KernelError(f"{option} {path}: {err.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise KernelError(f"{option} {path}: a symbolic link; smemsim does not write through "
                          "one (name the file it points to)")
    if not stat.S_ISREG(st.st_mode):
        kind = "Is a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if \
            stat.S_ISFIFO(st.st_mode) else "not a regular file"
        raise KernelError(f"{option} {path}: {kind}; give a file name")
    for given in run_inputs(args):
        try:
            if os.path.samefile(given, path):
                raise KernelError(f"{option} {path}: an input of this run; smemsim never "
                                  "replaces one")
        except OSError:
            continue
    if getattr(args, "force", False):
        return
    if ours is None or not ours(_read_regular(path)):
        raise KernelError(f"{option} {path} exists and `smemsim {verb}` did not write it "
                          "(or it was edited since): give "
                          "another name, or --force to replace it")


def _read_regular(path: str) -> bytes:
    """A regular file's bytes, opened so that a file swapped for a FIFO cannot block."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return f.read()
    finally:
        if fd >= 0:
            os.close(fd)


def write(path: str, data: str | bytes, option: str) -> None:
    """Write `path` whole: a temporary file beside it, renamed over it (an error, a full disk
    or an interrupt leaves the old file whole and no temporary behind)."""
    # (surrogateescape: a file name that is not UTF-8 goes back out as the bytes it was)
    payload = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    if os.path.abspath(path) == os.devnull:
        return
    pre = sys.modules.get("smemsim.frontends.cuda.preprocess")
    if pre is not None and os.path.realpath(path) in pre.FILES_READ:
        # a header the CUDA file includes (claim() knew only the run's named inputs)
        raise KernelError(f"{option} {path}: a file this run read (a header of the CUDA "
                          "file); smemsim never replaces an input")
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.smemsim-{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.replace(tmp, path)
    except OSError as err:
        raise KernelError(f"{option} {path}: cannot write it ({err.strerror or err})") from None
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass


PATCH_COMMENT = ("# ", "")   # a diff's seal: git apply and patch skip the line


def seal(text: str, comment: tuple[str, str]) -> str:
    """`text` with a last line that says smemsim wrote it and what it held (`comment`: the
    format's comment opener and closer), so that an edited file is no longer `sealed`."""
    return f"{text}{comment[0]}written by smemsim, sha256 {_digest(text)}{comment[1]}\n"


def sealed(data: bytes) -> bool:
    """Whether a file ends with the seal of its own unchanged text."""
    text = data.decode("utf-8", "replace")
    body, _, last = text.rstrip("\n").rpartition("\n")
    mark = "written by smemsim, sha256 "
    return mark in last and _digest(body + "\n") in last


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

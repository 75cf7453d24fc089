"""The on-disk cache (compiled cubins, sweep points, imported CUDA): where it is, how an
entry is written so that no reader ever sees half of one, and how one is read so that
nothing planted at its path (a link, a FIFO, a device, a folder) is followed or waited on."""
from __future__ import annotations

import os
import pathlib
import stat
import threading


def cache_dir(kind: str) -> pathlib.Path | None:
    """$SMEMSIM_CACHE/KIND, else ~/.cache/smemsim/KIND; None when SMEMSIM_CACHE is empty
    (the cache turned off)."""
    root = os.environ.get("SMEMSIM_CACHE")
    if root == "":
        return None
    return (pathlib.Path(root) if root else pathlib.Path.home() / ".cache" / "smemsim") / kind


def write_whole(path: pathlib.Path, data: bytes) -> None:
    """Write a file whole, then rename it into place, so that a concurrent or interrupted
    writer leaves no half file (raises OSError)."""
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        # O_EXCL | O_NOFOLLOW: a link planted at the temporary name is never written through
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)   # (a link's unlink removes the link, not its target)


def store(path: pathlib.Path, data: bytes) -> None:
    """Write a cache entry whole (write_whole); a cache that cannot be written is skipped,
    since every entry can be computed again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, data)
    except OSError:
        pass


def read_regular(path: os.PathLike | str, limit: int) -> bytes | None:
    """A cache entry's bytes, or None when it is missing, unreadable, over `limit` bytes, or
    not a regular file: a symlink is never followed, a FIFO or device never opened to wait on
    (so a planted one is a miss, which the caller computes again and rewrites)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        # O_NOFOLLOW and O_NONBLOCK: the path may have been swapped since the lstat
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) |
                     getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) if size <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


_SEAL = b"smemsim-entry "


def sealed(key: str, payload: bytes) -> bytes:
    """A cache entry: a first line holding the digest of its key and its payload, then the
    payload; open_sealed() trusts it only while that digest matches (a hand-edited entry,
    or one moved under another key, is a miss)."""
    return _SEAL + _seal_digest(key, payload).encode() + b"\n" + payload


def open_sealed(path, key: str, limit: int = 1 << 30) -> bytes | None:
    """The payload of a sealed entry (read as read_regular reads), or None: missing, not a
    regular file, too large, or not the unchanged entry of this key."""
    if path is None:
        return None
    data = read_regular(path, limit)
    if data is None or not data.startswith(_SEAL):
        return None
    head, _, payload = data.partition(b"\n")
    if head[len(_SEAL):].decode("ascii", "replace") != _seal_digest(key, payload):
        return None
    return payload


def _seal_digest(key: str, payload: bytes) -> str:
    import hashlib
    return hashlib.sha256(key.encode() + b"\0" + payload).hexdigest()


# this process's private folders of text written as files, one a kind: `process_copy`
_COPIES: dict[str, str] = {}
_COPIES_LOCK = threading.Lock()


def process_copy(text: str, name: str, kind: str) -> pathlib.Path:
    """`text` written as `name` in this process's private folder of `kind`
    (.../smemsim-KIND-DIGEST/NAME, the digest the text's), kept while the process lives: the
    same text is then at the same path the next time, so nvcc's build of it is found in the
    PTX cache, whose entries name the file's path (fix's patched files, an MCP server's
    CUDA text). The folder is made private (mkdtemp) and removed at exit."""
    import atexit
    import hashlib
    import shutil
    import tempfile
    with _COPIES_LOCK:   # (fix builds its candidates on threads)
        if kind not in _COPIES:
            _COPIES[kind] = tempfile.mkdtemp(prefix=f"smemsim-{kind}s-")
            atexit.register(shutil.rmtree, _COPIES[kind], True)
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        folder = pathlib.Path(_COPIES[kind]) / f"smemsim-{kind}-{digest}"
        folder.mkdir(exist_ok=True)
        path = folder / name
        if not path.exists():
            write_whole(path, text.encode("utf-8", "surrogatepass"))
    return path

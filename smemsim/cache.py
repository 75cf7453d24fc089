"""The on-disk cache (compiled cubins, sweep points, imported CUDA): where it is, and how an
entry is written so that no reader ever sees half of one."""
from __future__ import annotations

import os
import pathlib


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
        tmp.write_bytes(data)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def store(path: pathlib.Path, data: bytes) -> None:
    """Write a cache entry whole (write_whole); a cache that cannot be written is skipped,
    since every entry can be computed again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, data)
    except OSError:
        pass

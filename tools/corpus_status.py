"""Read every entry of tests/corpus/corpus.json as nvcc builds it and print one line each: OK
with the shared-memory totals, or the error."""
from __future__ import annotations

import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def corpus_build() -> dict:
    """What every entry's build adds (corpus.json's `build`: flags and include folders)."""
    return json.loads((ROOT / "tests" / "corpus" / "corpus.json").read_text())["build"]


def flags(entry) -> list[str]:
    """The nvcc flags of a corpus entry's build: the corpus's, then the entry's own."""
    return [*corpus_build()["flags"], *entry.get("nvcc_flags", [])]


def torch_includes() -> list[str]:
    """PyTorch's include folders, of the torch this Python imports (none without it)."""
    try:
        from torch.utils.cpp_extension import include_paths
    except ImportError:
        return []
    return [str(p) for p in include_paths()]


def options(entry):
    """smemsim.frontends.cuda.Options of a corpus entry (its include folders, then the corpus's; an
    entry that `needs` torch, its headers)."""
    from smemsim.frontends.cuda import Options
    return Options(defines=entry.get("defines", {}), include_dirs=[
        *(str(ROOT / "tests" / "corpus" / d) for d in [*entry.get("include", []),
                                                       *corpus_build()["include"]]),
        *(torch_includes() if entry.get("needs") == "torch" else [])],
        grid=entry.get("grid"), block=entry.get("block"), smem=entry.get("smem"),
        lengths=entry.get("lengths", {}), params=entry.get("params", {}),
        kernel=entry["kernel"], tensor_maps=entry.get("tensor_maps", {}),
        textures=entry.get("textures", {}), nulls=entry.get("nulls", []),
        hosts=entry.get("hosts", {}), host_files=[
            str(ROOT / "tests" / "corpus" / f) for f in entry.get("host_files", [])])


def main() -> int:
    from smemsim import analyze
    from smemsim.frontends.ptx.frontend import import_cu
    entries = json.loads((ROOT / "tests" / "corpus" / "corpus.json").read_text())["entries"]
    ok = 0
    for entry in entries:
        start = time.perf_counter()
        try:
            kernels = import_cu(str(ROOT / "tests" / "corpus" / entry["file"]),
                                options(entry), entry["kernel"], flags=flags(entry))
            r = analyze(next(iter(kernels.values()))())
            ok += 1
            print(f"OK   {entry['file']} {entry['kernel']}: ld {r.load.requests:,}/"
                  f"{r.load.wavefronts:,} st {r.store.requests:,}/{r.store.wavefronts:,} "
                  f"({time.perf_counter() - start:.2f} s)")
        except Exception as err:  # noqa: BLE001 - a status report of every failure
            print(f"FAIL {entry['file']} {entry['kernel']}: {type(err).__name__}: {err}")
    print(f"{ok} of {len(entries)} read as written")
    return 0


if __name__ == "__main__":
    sys.exit(main())

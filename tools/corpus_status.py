"""Import every entry of tests/corpus/corpus.json and print one line each: OK with the
shared-memory totals, or the error (a quick view while widening the importer)."""
from __future__ import annotations

import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def options(entry):
    """smemsim.cuda.Options of a corpus entry."""
    from smemsim.cuda import Options
    return Options(defines=entry.get("defines", {}), include_dirs=[
        str(ROOT / "tests" / "corpus" / d) for d in entry.get("include", [])],
        grid=entry.get("grid"), block=entry.get("block"), smem=entry.get("smem"),
        lengths=entry.get("lengths", {}), params=entry.get("params", {}),
        kernel=entry["kernel"], tensor_maps=entry.get("tensor_maps", {}),
        textures=entry.get("textures", {}), nulls=entry.get("nulls", []),
        hosts=entry.get("hosts", {}), host_files=[
            str(ROOT / "tests" / "corpus" / f) for f in entry.get("host_files", [])])


def main() -> int:
    from smemsim import analyze
    from smemsim.cuda import import_kernels
    entries = json.loads((ROOT / "tests" / "corpus" / "corpus.json").read_text())["entries"]
    ok = 0
    for entry in entries:
        start = time.perf_counter()
        try:
            kernels = import_kernels(str(ROOT / "tests" / "corpus" / entry["file"]),
                                     options(entry))
            r = analyze(next(iter(kernels.values()))())
            ok += 1
            print(f"OK   {entry['file']} {entry['kernel']}: ld {r.load.requests:,}/"
                  f"{r.load.wavefronts:,} st {r.store.requests:,}/{r.store.wavefronts:,} "
                  f"({time.perf_counter() - start:.2f} s)")
        except Exception as err:  # noqa: BLE001 - a status report of every failure
            print(f"FAIL {entry['file']} {entry['kernel']}: {type(err).__name__}: {err}")
    print(f"{ok} of {len(entries)} import as written")
    return 0


if __name__ == "__main__":
    sys.exit(main())

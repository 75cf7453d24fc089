"""Read every kernel of a source tree as a user would (nvcc's build), and say how far each
gets.

For each .cu with a `__global__` kernel (a file another .cu of its folder includes is read
through that one), with its folder's other .cu/.c/.cpp files that define `main` as
--host-file and `-I` its folder and the given folders, every kernel key is read from nvcc's
build and analyzed (60 s each at most). Each ends as one of: `ok` (analyzed with no option), a
`question` (a size, grid or value the program computes at run time: --param, --host,
--length or --launch-* answer it), `refused` (a located message: what smemsim does not
read yet), or the file is `unread` (it does not build: a missing header). The figures
in docs/importer.md for Parboil and Rodinia come from this.

    python3 tools/sweep_sources.py ROOT [-I DIR ...] [--json]

A validation driver, not part of the library.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import signal
import sys
from collections import Counter

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# messages that ask for what the program computes at run time
QUESTIONS = ("has no value", "host variable", "uses `", "give --texture", "no launch of")


class _Late(Exception):
    pass


def _late(*_):
    raise _Late()


def sources(root: pathlib.Path) -> list[pathlib.Path]:
    """The files to read: each .cu with a kernel, or the .cu of its folder that includes it."""
    out = []
    for cu in sorted(root.rglob("*.cu")):
        if "__global__" not in cu.read_text(errors="replace"):
            continue
        includers = [o for o in sorted(cu.parent.glob("*.cu")) if o != cu and re.search(
            r'#include\s+"[^"]*' + re.escape(cu.name) + '"', o.read_text(errors="replace"))]
        pick = includers[0] if includers else cu
        if pick not in out:
            out.append(pick)
    return out


def kind(message: str) -> str:
    """`question` or `refused` for an import's message."""
    return "question" if any(q in message for q in QUESTIONS) else "refused"


def sweep(root: pathlib.Path, include: list[str]) -> list[dict]:
    """One row per kernel key (or per file that is not read)."""
    from smemsim import analyze
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    previous = signal.signal(signal.SIGALRM, _late)
    rows = []
    try:
        for f in sources(root):
            hosts = [str(m) for m in sorted(f.parent.iterdir())
                     if m != f and m.suffix in (".cu", ".c", ".cpp") and
                     re.search(r"\bmain\s*\(", m.read_text(errors="replace"))]
            options = Options(include_dirs=[str(f.parent), *include], host_files=hosts)
            where = str(f.relative_to(root))
            try:
                found = import_cu(str(f), options)
            except Exception as err:  # noqa: BLE001 - every failure is a row of the report
                rows.append({"file": where, "kernel": None, "end": "unread",
                             "message": str(err)})
                continue
            for key, make in found.items():
                signal.alarm(60)
                try:
                    analyze(make())
                    end, message = "ok", ""
                except _Late:
                    end, message = "refused", "more than 60 s"
                except Exception as err:  # noqa: BLE001
                    end, message = kind(str(err)), str(err)
                finally:
                    signal.alarm(0)
                rows.append({"file": where, "kernel": key, "end": end, "message": message})
    finally:
        signal.signal(signal.SIGALRM, previous)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    parser.add_argument("-I", dest="include", action="append", default=[])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = sweep(pathlib.Path(args.root), args.include)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        if r["end"] in ("refused", "unread"):
            print(f"{r['end']:8} {r['file']} {r['kernel'] or ''}: {r['message'][:200]}")
    counts = Counter(r["end"] for r in rows)
    keys = sum(1 for r in rows if r["kernel"] is not None)
    print(f"{keys} kernel keys: {counts['ok']} ok, {counts['question']} questions, "
          f"{counts['refused']} refused; {counts['unread']} files unread")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`smemsim check` of every tests/corpus entry at the launch the corpus records (its own
options, as tools/report_corpus.py gives them), each in a fresh process: CPU seconds and
peak memory, then the median, the 90th percentile, the worst and how many are over the
targets.

Targets (issue #53): every entry <= 2 s CPU and <= 300 MB. An entry that runs past LIMIT_S
is stopped and reported so.

    python3 benchmarks/bench_check_corpus.py [SUBSTRING ...]
"""
import json
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
LIMIT_S = 300
TARGET_S, TARGET_MB = 2.0, 300.0

from report_corpus import command  # noqa: E402

from child import measure  # noqa: E402


def main(words: list[str]) -> int:
    corpus = ROOT / "tests" / "corpus"
    entries = [e for e in json.loads((corpus / "corpus.json").read_text())["entries"]
               if "refused" not in e and "fault" not in e and
               (not words or any(w in e["file"] for w in words))]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for e in entries:
            argv = command(e, pathlib.Path(tmp) / "page.html")
            # (report's command line, as check takes it: no page, no --regs)
            argv = ["check"] + [a for a in argv[1:] if a not in ("--force",)]
            out_at = argv.index("-o")
            del argv[out_at:out_at + 2]
            regs = argv.index("--regs")
            del argv[regs:regs + 2]
            c = measure([sys.executable, "-m", "smemsim", *argv], LIMIT_S)
            seconds, mb, code, last = c.cpu, c.peak_mb, c.code, c.last
            rows.append((seconds, mb, e["file"], e["kernel"]))
            print(f"{seconds:7.2f} s {mb:8.0f} MB  exit {code}  {e['file']} "
                  f"{e['kernel'][:40]}  | {last[:100]}", flush=True)
    if not rows:
        return 1
    cpu = sorted(r[0] for r in rows)
    mem = sorted(r[1] for r in rows)
    pick = lambda xs, q: xs[min(len(xs) - 1, int(q * len(xs)))]  # noqa: E731
    print(f"{len(rows)} entries: CPU median {pick(cpu, 0.5):.2f} s, 90th percentile "
          f"{pick(cpu, 0.9):.2f} s, worst {cpu[-1]:.2f} s; memory median {pick(mem, 0.5):.0f} "
          f"MB, worst {mem[-1]:.0f} MB; over {TARGET_S} s: "
          f"{sum(c > TARGET_S for c in cpu)}, over {TARGET_MB:.0f} MB: "
          f"{sum(m > TARGET_MB for m in mem)}")
    for seconds, mb, file, kernel in sorted(rows, reverse=True)[:8]:
        print(f"  slowest: {seconds:.2f} s {mb:.0f} MB {file} {kernel[:50]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The data-driven targets of issue #28, as a user runs them: the CLI in fresh processes.

- `smemsim analyze examples/histogram.py --kernel text -p n=67108864` (64 M input bytes):
  target under 2 s and 300 MB;
- `smemsim check examples/histogram.py --kernel text -p n=4194304`: target under 300 MB;
- the same analyze with `--kernel weighted` (lanes of a bank conflict) and `uniform`, for
  reference (no target).

Each command runs RUNS times (default 5, or the first argument); each run's wall time
and the child's own peak memory (wait4) are printed, then the median and the range. This
machine's speed swings between runs: read the median, and compare commits in the same hour.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
HISTOGRAM = str(ROOT / "examples" / "histogram.py")

COMMANDS = [
    ("analyze text n=64M", ["analyze", HISTOGRAM, "--kernel", "text", "-p", "n=67108864"]),
    ("check text n=4M", ["check", HISTOGRAM, "--kernel", "text", "-p", "n=4194304"]),
    ("analyze uniform n=64M", ["analyze", HISTOGRAM, "--kernel", "uniform", "-p",
                               "n=67108864"]),
    ("analyze weighted n=64M", ["analyze", HISTOGRAM, "--kernel", "weighted", "-p",
                                "n=67108864"]),
]


def run(args: list[str]) -> tuple[float, float, int]:
    """(seconds, peak MB, exit status) of one CLI command in a fresh process."""
    argv = [sys.executable, "-m", "smemsim", *args]
    with tempfile.TemporaryFile("w+") as out:
        t = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)   # this child's own peak memory
        seconds = time.perf_counter() - t
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"{'command':<24} {'median s':>9} {'range s':>13} {'peak MB':>8}  runs (s)")
    for label, args in COMMANDS:
        results = [run(args) for _ in range(runs)]
        bad = [code for _, _, code in results if code != 0]
        times = [s for s, _, _ in results]
        peak = max(mb for _, mb, _ in results)
        note = f"  exit {bad[0]}!" if bad else ""
        print(f"{label:<24} {statistics.median(times):9.2f} "
              f"{min(times):6.2f}-{max(times):<6.2f} {peak:8.0f}  "
              + " ".join(f"{s:.2f}" for s in times) + note, flush=True)


if __name__ == "__main__":
    main()

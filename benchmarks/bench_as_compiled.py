"""`analyze --as-compiled`: wall time and peak memory of the whole command against plain
`analyze`, with an empty cubin cache (two NVRTC compiles) and again with it filled (the
fastest of 5 runs each, plain and cached taking turns). Target (#28): cached within 1.5x
of plain.

Each command is a fresh process (a CI gate runs it that way); peak memory is the child's
maximum resident set size (os.wait4).
"""
import os
import subprocess
import sys
import tempfile
import time

REPEATS = 5       # plain and cached runs, each the fastest of these
CASES = [("examples/matmul_128x128.py", "matmul"),
         ("tests/kernels/compiler_changes.py", "matrix_mul")]


def timed(argv, env) -> tuple[float, float]:
    """(seconds, peak MB) of one run in a fresh process."""
    t = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - t
    if status:
        raise SystemExit(f"{' '.join(argv)} failed ({status})")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for file, key in CASES:
        base = [sys.executable, "-m", "smemsim", "analyze", os.path.join(root, file),
                "--kernel", key]
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, SMEMSIM_CACHE=cache)
            cold = timed(base + ["--as-compiled"], env)
            # plain and cached runs taking turns, the fastest of each: one run apiece read
            # ratios from 1.38 to 1.52 for the same code as this machine's speed drifted
            plain, cached = [], []
            for _ in range(REPEATS):
                plain.append(timed(base, env))
                cached.append(timed(base + ["--as-compiled"], env))
        rows = [("plain", min(plain)), ("--as-compiled, empty cache", cold),
                ("--as-compiled, cached", min(cached))]
        for name, (seconds, peak) in rows:
            print(f"{file} {key:>10}  {name:28s} {seconds:6.2f} s  peak {peak:5.0f} MB")
        print(f"{file} {key:>10}  cached / plain: {min(cached)[0] / min(plain)[0]:.2f}x "
              "(target 1.5x)")


if __name__ == "__main__":
    main()

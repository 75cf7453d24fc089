"""Bank engine throughput against the time to stream the offsets once, one core.

For every op and width: requests per second of `warp_requests` on the numba path (the
default once it pays, smemsim.engine.batch._auto_numba) and on the numpy path (all a user without
numba has), each as a ratio to the time one numpy pass over the same offsets takes (each
lane's bank, `(offsets >> 2 & 31).sum()`, into a
buffer made beforehand), measured in the same run. Random full-warp
requests in a 4 KiB window, no repeats; and 4-byte requests in a 1 KiB window (a
histogram's 256 bins: numpy's dense path, smemsim.engine.batch.DENSE_BANK_ROWS). Targets (#28):
numba within 10x and numpy within 30x of that pass, for every op.
"""
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from smemsim import warp_requests  # noqa: E402

N = 200_000
# (op, width, matrices): the plain ops at every width, then those of smemsim.engine.oprules
OPS = [("load", w, None) for w in (1, 2, 4, 8, 16)] + [("store", w, None) for w in (4, 16)] + [
    ("ldmatrix", 16, 4), ("stmatrix", 16, 4), ("cp_async", 16, None), ("atomic", 4, None),
    ("atomic_cas", 4, None), ("atomic_aggregated", 4, None), ("atomic_cas_loop", 4, None),
    ("atomic_cas_loop", 8, None)]
NARROW = [("load", 4, None), ("atomic_aggregated", 4, None)]   # in a 1 KiB window


def best(fns, repeats=5) -> list[float]:
    """The fastest of `repeats` runs of each function, in seconds, the functions taking
    turns: this machine's speed drifts by 10-30% within a minute, and timing one function
    after the other made their ratios drift with it (numba's 8-byte CAS loop 7.8-11.7x)."""
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, took in zip(fns, times):
            t = time.perf_counter()
            fn()
            took.append(time.perf_counter() - t)
    return [min(took) for took in times]


def main():
    rng = np.random.default_rng(0)
    warp_requests(np.zeros((4, 32), np.int64), 4, engine="numba")  # compile or load the cache
    print(f"{N:,} random requests per case, best of 5 (taking turns); x = time / one pass "
          "over the offsets")
    print(f"{'op':>25} {'width':>5} {'pass us/req':>11} {'numba M/s':>9} {'x':>6} "
          f"{'numpy M/s':>9} {'x':>6}")
    worst = {"numba": 0.0, "numpy": 0.0}
    cases = [(op, w, m, 4096) for op, w, m in OPS] + [(op, w, m, 1024) for op, w, m in NARROW]
    for op, width, matrices, window in cases:
        offsets = (rng.integers(0, window // width, (N, 32)) * width).astype(np.int32)
        # into one buffer: a fresh 25 MB temporary costs page faults in some runs and not
        # in others (0.035 or 0.065 us a request), which made the ratios swing by 2x
        buffer = np.empty_like(offsets)
        engines = ("numba", "numpy")
        stream, *took = best(
            [lambda: np.bitwise_and(np.right_shift(offsets, 2, out=buffer), 31,
                                    out=buffer).sum()]
            + [lambda engine=engine: warp_requests(offsets, width, op, engine=engine,
                                                   matrices=matrices) for engine in engines])
        label = op if window == 4096 else f"{op} (1 KiB)"
        row = [f"{label:>25} {width:>5} {stream / N * 1e6:>11.3f}"]
        for engine, t in zip(engines, took):
            worst[engine] = max(worst[engine], t / stream)
            row.append(f"{N / t / 1e6:>9.2f} {t / stream:>6.1f}")
        print(" ".join(row), flush=True)
    print(f"worst ratio: numba {worst['numba']:.1f}x (target 10x), numpy "
          f"{worst['numpy']:.1f}x (target 30x)")


if __name__ == "__main__":
    main()

"""Bank engine throughput: random full-warp requests of each width, no repeats, one core.

Prints requests per second of `warp_requests` for the numba path (the default when numba is
installed) and the numpy path. Target: 5 million per second for every width (numba).
"""
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from smemsim import warp_requests  # noqa: E402


def rate(offsets, width, engine, repeats=3, op="load", matrices=None):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        warp_requests(offsets, width, op, engine=engine, matrices=matrices)
        best = min(best, time.perf_counter() - t)
    return offsets.shape[0] / best


# The ops of smemsim.oprules: (op, width, matrices). Their batches run on numpy (the plain
# load/store parts of ldmatrix and the CAS loop's LDS use the engine's numba path).
OTHER_OPS = [("ldmatrix", 16, 4), ("stmatrix", 16, 4), ("cp_async", 16, None),
             ("atomic", 4, None), ("atomic_cas", 4, None), ("atomic_aggregated", 4, None),
             ("atomic_cas_loop", 4, None), ("atomic_cas_loop", 8, None)]


def main():
    rng = np.random.default_rng(0)
    warp_requests(np.zeros((4, 32), np.int64), 4, engine="numba")  # compile or load the cache
    print(f"{'width':>5} {'numba M req/s':>14} {'numpy M req/s':>14}")
    for width in (1, 2, 4, 8, 16):
        n = 1_000_000
        # distinct random requests in a 4 KiB window: a realistic tile's range
        offsets = rng.integers(0, 4096 // width, (n, 32)) * width
        fast = rate(offsets, width, "numba")
        slow = rate(offsets[:200_000], width, "numpy", repeats=1)
        print(f"{width:>5} {fast / 1e6:>14.2f} {slow / 1e6:>14.2f}")
    print()
    print(f"{'op':>17} {'width':>5} {'M req/s':>8}   (200,000 random requests, best of 3)")
    for op, width, matrices in OTHER_OPS:
        offsets = rng.integers(0, 4096 // width, (200_000, 32)) * width
        r = rate(offsets, width, "auto", op=op, matrices=matrices)
        print(f"{op:>17} {width:>5} {r / 1e6:>8.2f}")


if __name__ == "__main__":
    main()

"""Sweep speed-up: one sweep of 8 similar points (matmul_128x128 at K=2048, smemA and smemB
each padded by 0 or 4, sm_80 and sm_90) on one process, then on every core.

Target (issue #15): at least 1.8x on 2 cores. The points are whole-launch analyses of about
2 s each; the cache is off, so every point is computed.
"""
import os
import time

os.environ["SMEMSIM_CACHE"] = ""

from examples.matmul_128x128 import KERNELS  # noqa: E402
from smemsim.pool import default_jobs  # noqa: E402
from smemsim.sweep import Layout, product, sweep  # noqa: E402


def main() -> None:
    kernel = KERNELS["matmul"]()
    points = product({"K": [2048]}, ["sm_80", "sm_90"],
                     {"smemA": [Layout("smemA", pad=0), Layout("smemA", pad=4)],
                      "smemB": [Layout("smemB", pad=0), Layout("smemB", pad=4)]})
    times, results = {}, {}
    for jobs in (1, default_jobs()):
        t = time.perf_counter()
        results[jobs] = sweep(kernel, points, jobs=jobs, trial=False).results
        times[jobs] = time.perf_counter() - t
        print(f"{len(points)} points, {jobs} process(es): {times[jobs]:6.2f} s")
    cores = default_jobs()
    assert results[1] == results[cores], "the parallel sweep differs from the serial one"
    print(f"speed-up on {cores} cores: {times[1] / times[cores]:.2f}x (results identical)")


if __name__ == "__main__":
    main()

"""Whole-launch analysis time: every example at its default size, and the large cases.

Each figure is the best of three runs after a warm-up (imports, numba's cache). Targets:
every line under 1 s; the 4096 product at most 1.5 x the 1024 product; data-dependent
requests at 1 million per second or more.
"""
import sys
import time
import pathlib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from examples import (  # noqa: E402
    int_matmul_nt32, matmul_128x128, matmul_double16, matmul_float_tiled, reed_solomon,
    transpose,
)
from kernels_ir import resolve_launch  # noqa: E402
from smemsim.launch.analysis import analyze  # noqa: E402


def best(fn, repeats=3):
    times = []
    result = None
    for _ in range(repeats):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def main():
    analyze(transpose.transpose(), {"n": 64})  # warm-up
    cases = []
    for module in (transpose, matmul_double16, int_matmul_nt32, matmul_float_tiled,
                   matmul_128x128):
        for name, make in module.KERNELS.items():
            cases.append((f"{module.__name__.split('.')[-1]}:{name}", make(), {}, None))
    for name, make in reed_solomon.KERNELS.items():
        kernel = make()
        arrays = reed_solomon.table_arrays(resolve_launch(kernel)) if name == "tables" else None
        cases.append((f"reed_solomon:{name}", kernel, {}, arrays))
    tiled = matmul_float_tiled.tiled(32)
    cases.append(("tiled 1024^3", tiled, dict(rowsA=1024, colsB=1024, commonDim=1024), None))
    cases.append(("tiled 4096^3", tiled, dict(rowsA=4096, colsB=4096, commonDim=4096), None))
    cases.append(("transpose 8192^2", transpose.transpose(), dict(n=8192), None))
    print(f"{'case':<28} {'ms':>8} {'requests':>16} {'M req/s':>8}")
    timings = {}
    for label, kernel, params, arrays in cases:
        seconds, report = best(lambda: analyze(kernel, params, arrays=arrays))
        requests = report.load.requests + report.store.requests
        timings[label] = seconds
        print(f"{label:<28} {seconds * 1e3:>8.1f} {requests:>16,} "
              f"{requests / seconds / 1e6:>8.2f}")
    print(f"4096 / 1024 product time: {timings['tiled 4096^3'] / timings['tiled 1024^3']:.2f}")
    big = dict(A_height=16, A_width=16, B_width=16384, grid_x=1024)
    kernel = reed_solomon.tables(**big)
    arrays = reed_solomon.table_arrays(resolve_launch(kernel))
    t = time.perf_counter()
    report = analyze(kernel, arrays=arrays)
    first = time.perf_counter() - t
    seconds, report = best(lambda: analyze(kernel, arrays=arrays), repeats=2)
    requests = report.load.requests + report.store.requests
    print(f"data-dependent (rs_tables {big}): {requests:,} requests; first run {first:.2f} s "
          f"= {requests / first / 1e6:.2f} M req/s, best of two more {seconds:.2f} s = "
          f"{requests / seconds / 1e6:.2f} M req/s")


if __name__ == "__main__":
    main()

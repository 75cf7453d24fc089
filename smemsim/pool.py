"""Work spread over processes: a local process pool by default, a Dask cluster on request.

`parallel_map(fn, items)` is `[fn(item) for item in items]` run on several cores; `fn` must
be a module-level function and the items picklable (kernels are). Results come back in the
order of the items; the first exception raised by any item is raised here (the rest are
cancelled). Used by `smemsim sweep`, `fix`'s candidates and `--sweep`.

Local workers are forks of this process while it has one thread, else children of a fork
server that has imported smemsim once (forking a process whose progress-bar thread may hold
a lock is unsafe; a script that calls this from its top level then needs the usual
`if __name__ == "__main__":` guard, since the fork server imports it). Starting a pool costs
up to a second, so
the first item runs here, timed, and the pool starts only when the rest would take longer
than POOL_WORTH_S in one process; with one job, or one item, everything runs here.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Callable, Sequence

from kernels_ir import KernelError

PRELOAD = ["numpy", "kernels_ir", "smemsim.analysis", "smemsim.hazards", "smemsim.occupancy"]
POOL_WORTH_S = 1.5  # work left (seconds in one process) below which no pool is started


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def parallel_map(fn: Callable, items: Sequence, *, jobs: int | None = None,
                 scheduler: str | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 trial: bool = True,
                 on_result: Callable[[int, object], None] | None = None,
                 estimate: Callable[[float, int], None] | None = None) -> list:
    """fn(item) for every item, in order, on `jobs` local processes (default: every core) or
    on the Dask scheduler at `scheduler`; `progress(done, total)` after each item, and
    `on_result(index, result)` as each result arrives (so a caller can keep what finished
    before an interruption). Without `trial`, the pool starts at once (the caller knows the
    items are heavy). `estimate(seconds, workers)`, if given, is told after the first item
    (run here, timed) how long the rest should take."""
    items = list(items)
    if scheduler:
        return _dask_map(fn, items, scheduler, progress, on_result)
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise KernelError(f"--jobs must be at least 1, got {jobs}")
    out = []
    started = time.perf_counter()
    if estimate is not None and len(items) > 1:
        out.append(fn(items[0]))
        if on_result:
            on_result(0, out[-1])
        if progress:
            progress(1, len(items))
        workers = max(1, min(jobs, len(items) - 1))
        estimate((time.perf_counter() - started) * (len(items) - 1) / workers, workers)
    if jobs > 1 and len(items) > len(out) + 1 and not trial:
        return out + _pool_map(fn, items[len(out):], jobs, progress, len(out), len(items),
                               on_result)
    for n, item in enumerate(items):
        if n < len(out):
            continue
        if n and jobs > 1 and (time.perf_counter() - started) / n * (len(items) - n) \
                > POOL_WORTH_S:
            return out + _pool_map(fn, items[n:], jobs, progress, n, len(items), on_result)
        out.append(fn(item))
        if on_result:
            on_result(n, out[-1])
        if progress:
            progress(n + 1, len(items))
    return out


def _pool_map(fn: Callable, items: list, jobs: int, progress, before: int, total: int,
              on_result=None) -> list:
    # here, not at the top: multiprocessing costs every CLI call ~20 ms of start-up
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
    with ProcessPoolExecutor(max_workers=min(jobs, len(items)), mp_context=_context()) as ex:
        futures = [ex.submit(fn, item) for item in items]
        index = {f: before + k for k, f in enumerate(futures)}
        pending, done = set(futures), before
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for f in finished:
                if f.exception() is not None:
                    for p in pending:
                        p.cancel()
                    raise f.exception()
                if on_result:
                    on_result(index[f], f.result())
            done += len(finished)
            if progress:
                progress(done, total)
        return [f.result() for f in futures]


def _context():
    import multiprocessing
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")  # the fastest, and safe with one thread
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


def _dask_map(fn: Callable, items: list, scheduler: str, progress, on_result=None) -> list:
    """The items as tasks of a Dask distributed cluster (its workers need smemsim)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise KernelError("--scheduler needs Dask's distributed scheduler: pip install "
                          "'smemsim[cluster]'") from None
    try:
        client = Client(scheduler, timeout=15)
    except (OSError, TimeoutError, ValueError, TypeError) as err:
        # ValueError/TypeError: an address distributed cannot parse ('-1', 'abc', ...)
        raise KernelError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    try:
        futures = client.map(fn, items, pure=False)
        index = {f.key: k for k, f in enumerate(futures)}
        for n, f in enumerate(as_completed(futures), 1):
            if on_result:
                on_result(index[f.key], f.result())
            if progress:
                progress(n, len(items))
        return client.gather(futures)
    finally:
        client.close()

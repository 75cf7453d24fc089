"""Work spread over processes: a local process pool by default, a Dask cluster on request.

`parallel_map(fn, items)` is `[fn(item) for item in items]` run on several cores; `fn` must
be a module-level function and the items picklable (kernels are). Results come back in the
order of the items; the first exception raised by any item is raised here (the rest are
cancelled). Used by `smemsim sweep`, `fix`'s candidates and `--sweep`.

Each result is handed to `on_result` as soon as it arrives, and an exception, Ctrl-C or
SIGTERM (smemsim.cli raises it as a KeyboardInterrupt) ends the pool at once: queued items
are cancelled, the workers are terminated and reaped (none outlives the call), and every
item already finished is still handed to `on_result` before the exception goes on. Workers
ignore SIGINT, which a terminal sends to the whole process group: the parent alone handles
it, and no worker prints a traceback.

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
import re
import signal
import threading
import time
from typing import Callable, Sequence

from kernels_ir import KernelError

PRELOAD = ["numpy", "kernels_ir", "smemsim.launch.analysis", "smemsim.launch.hazards",
           "smemsim.launch.occupancy"]
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
        _check_address(scheduler)
        return _dask_map(fn, items, scheduler, progress, on_result) if items else []
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
    from concurrent.futures import ProcessPoolExecutor, as_completed
    ex = ProcessPoolExecutor(max_workers=min(jobs, len(items)), mp_context=_context(),
                             initializer=_worker_signals)
    futures: list = []
    index: dict = {}
    reported: set = set()
    try:
        futures = [ex.submit(fn, item) for item in items]
        index = {f: before + k for k, f in enumerate(futures)}
        # as_completed, not wait(): each result is handed on as it arrives (wait's
        # FIRST_EXCEPTION returned only when every item had finished), in O(items) in all
        for done, f in enumerate(as_completed(futures), before + 1):
            if f.exception() is not None:
                raise f.exception()
            reported.add(f)
            if on_result:
                on_result(index[f], f.result())
            if progress:
                progress(done, total)
        ex.shutdown(wait=True)
        return [f.result() for f in futures]
    except BaseException:
        with _signals_held():
            _end_pool(ex)
            if on_result:  # what finished while the failure was raised is kept too
                _hand_on_finished(futures, reported, index, on_result)
        raise


def _worker_signals() -> None:
    """A worker's signals: Ctrl-C (sent to the whole process group) is the parent's to handle,
    and SIGTERM ends the worker (a fork inherits the parent's handler, which would raise)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _end_pool(ex) -> None:
    """Cancel what is queued, terminate the workers (kill any a terminate left), reap them."""
    # _processes is private, but the only handle on the workers; shutdown() forgets it
    workers = list((getattr(ex, "_processes", None) or {}).values())
    manager = getattr(ex, "_executor_manager_thread", None)   # (shutdown forgets it too)
    ex.shutdown(wait=False, cancel_futures=True)
    for p in workers:
        p.terminate()
    for p in workers:
        p.join(2)
        if p.exitcode is None:  # SIGTERM came before the worker's handler was reset
            p.kill()
            p.join(2)
    # the executor's manager thread sees its workers gone and ends; joined here, and taken
    # off concurrent.futures' exit hook, which would else wake it through a closed pipe at
    # exit ("OSError: [Errno 9] Bad file descriptor" printed after the interrupt message)
    if manager is not None:
        manager.join(5)
        import concurrent.futures.process as futures_process
        getattr(futures_process, "_threads_wakeups", {}).pop(manager, None)


def _hand_on_finished(futures: list, reported: set, index: dict, on_result) -> None:
    """on_result for each item that finished with a result and was not handed on yet; a
    failing on_result stops this quietly (the first failure is the one raised)."""
    try:
        for f in futures:
            if f in reported or not f.done() or f.cancelled() or f.exception() is not None:
                continue
            reported.add(f)
            on_result(index[f], f.result())
    except BaseException:  # noqa: BLE001 - a callback that already failed, or a 2nd Ctrl-C
        pass


class _signals_held:
    """SIGINT and SIGTERM ignored while the workers are ended and the finished items kept, so
    that a second Ctrl-C cannot leave a worker running (the first is being handled); a no-op
    off the main thread, where no handler can be set."""

    def __enter__(self):
        self.saved = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                old = signal.getsignal(sig)
                if old is not None:  # None: a handler set outside Python, left alone
                    self.saved[sig] = old
                    signal.signal(sig, signal.SIG_IGN)
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self.saved.items():
            signal.signal(sig, old)


class signals_deferred:
    """SIGINT and SIGTERM held, not ignored, while a few lines that must not stop halfway run
    (numpy's .npz is a zip file: a signal inside ZipFile's constructor leaves a half-made
    object whose finalizer prints a traceback as the process ends), then delivered to their
    handlers as the block ends; a no-op off the main thread, or where a handler is not
    Python's."""

    def __enter__(self):
        self.saved, self.pending = {}, []
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                old = signal.getsignal(sig)
                if callable(old):
                    self.saved[sig] = old
                    signal.signal(sig, lambda s, frame: self.pending.append((s, frame)))
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self.saved.items():
            signal.signal(sig, old)
        if self.pending:   # (the first signal, as it would have come: its handler raises)
            sig, frame = self.pending[0]
            self.saved[sig](sig, frame)


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


# a Dask scheduler's address: [PROTOCOL://]HOST[:PORT] (HOST a name, an IPv4 or [IPv6])
_ADDRESS = re.compile(r"((tcp|tls|ucx|inproc|ws|wss)://)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])"
                      r"(:\d{1,5})?")


def _check_address(scheduler: str) -> None:
    """A one-line error for what cannot be a scheduler's address, before distributed is
    asked to reach it (its client hung on `é` while giving up)."""
    if not _ADDRESS.fullmatch(scheduler):
        raise KernelError(f"--scheduler {scheduler!r}: not a Dask scheduler's address "
                          "(tcp://HOST:PORT, HOST:PORT)")


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

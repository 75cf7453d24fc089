"""Issue #51: an interrupted sweep keeps every finished point, ends its workers and says how
many points it kept (a rerun computes only the rest); a cached point read back is trusted
only when it is a regular file whose fields have their ranges and whose digest matches."""
from __future__ import annotations

import io
import multiprocessing
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from examples.transpose import KERNELS as TRANSPOSE_KERNELS
from kernels_ir import KernelError
from smemsim.cli import Terminated
from smemsim.search.pool import parallel_map
from smemsim.search.sweep import SweepInterrupted, product, sweep

ROOT = pathlib.Path(__file__).resolve().parent.parent


def slow_square(x):
    """A worker task (module-level: it is pickled by name)."""
    time.sleep(0.01)
    return x * x


def late_failure(x):
    """Item 3 fails, a second after every other item has finished."""
    if x == 3:
        time.sleep(1.0)
        raise KernelError("three")
    time.sleep(0.005)
    return x


def entries(folder) -> list[pathlib.Path]:
    """The sweep points cached under `folder`."""
    return sorted(pathlib.Path(folder).rglob("*.npz"))


def test_the_pool_hands_on_each_result_as_it_arrives_and_an_interrupt_ends_it_at_once():
    """Ctrl-C (here raised by the progress callback) after 5 of 300 items: the items that
    finished were each handed on as they arrived, the rest are never run, and no worker
    outlives the call (the pool waited for all 300 before handing any on)."""
    got, interrupted = [], []

    def interrupt(done, _total):
        if done == 5:
            interrupted.append(time.perf_counter())
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        parallel_map(slow_square, range(300), jobs=2, trial=False, progress=interrupt,
                     on_result=lambda k, r: got.append((k, r)))
    # the other 295 items would take 1.5 s on 2 workers: the pool was ended, not drained
    assert time.perf_counter() - interrupted[0] < 1.0
    assert 5 <= len(got) < 300 and all(r == k * k for k, r in got)
    assert multiprocessing.active_children() == []


def test_the_first_error_keeps_every_item_that_finished():
    """Item 3 fails last: all 29 others finished first, and each was handed on."""
    got = []
    with pytest.raises(KernelError, match="three"):
        parallel_map(late_failure, range(30), jobs=2, trial=False,
                     on_result=lambda k, r: got.append(k))
    assert sorted(got) == [k for k in range(30) if k != 3]
    assert multiprocessing.active_children() == []


def test_an_interrupted_pool_sweep_keeps_its_points_and_a_rerun_computes_only_the_rest(
        tmp_path):
    kernel = TRANSPOSE_KERNELS["naive"]()
    points = product({"n": list(range(32, 32 * 121, 32))}, ["sm_90"])

    def interrupt(done, _total):
        if done == 10:
            raise KeyboardInterrupt
    with pytest.raises(SweepInterrupted) as info:
        sweep(kernel, points, cache=tmp_path, jobs=2, trial=False, progress=interrupt)
    kept = info.value.kept
    assert 10 <= kept < len(points) and info.value.total == len(points)
    assert f"{kept:,} of {len(points):,} points are kept" in str(info.value)
    assert len(entries(tmp_path)) == kept
    assert multiprocessing.active_children() == []
    again = sweep(kernel, points, cache=tmp_path, jobs=2, trial=False)
    assert again.cached == kept  # only the other len(points) - kept were computed
    assert again.results == sweep(kernel, points, jobs=2, trial=False).results
    assert len(entries(tmp_path)) == len(points)


def test_a_sigterm_stays_a_sigterm_through_the_sweep(tmp_path):
    """smemsim.cli raises SIGTERM as Terminated: the sweep's message keeps that kind, so the
    CLI exits 143 for it (it was turned into a plain interrupt, 130)."""
    kernel = TRANSPOSE_KERNELS["naive"]()
    points = product({"n": [32, 64, 96, 128]}, ["sm_90"])

    def terminate(done, _total):
        if done == 2:
            raise Terminated
    with pytest.raises(SweepInterrupted, match="2 of 4 points are kept") as info:
        sweep(kernel, points, cache=tmp_path, jobs=1, progress=terminate)
    assert isinstance(info.value, Terminated)


@pytest.mark.parametrize("how", ["SIGTERM to the command", "Ctrl-C to its process group"])
def test_a_signalled_sweep_keeps_every_finished_point_and_leaves_no_process(tmp_path, how):
    """The real command on 2 workers, signalled once 20 points are in its cache: it exits
    with the signal's code, says how many points it kept (as many as its cache holds), no
    worker prints a traceback, and nothing of its process group outlives it."""
    env = {**os.environ, "SMEMSIM_CACHE": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "smemsim", "sweep", "transpose", "--kernel", "naive",
         "-p", "n=32:32768:32", "--pad", "tile=0,1", "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(entries(tmp_path)) < 20 and proc.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the sweep ended before it was signalled"
        if how.startswith("SIGTERM"):
            proc.send_signal(signal.SIGTERM)
        else:  # a terminal's Ctrl-C reaches every process of the foreground group
            os.killpg(proc.pid, signal.SIGINT)
        # communicate reads to the end of both pipes: it returns only once no process
        # holds the command's stdout or stderr any more
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    code, word = (143, "terminated") if how.startswith("SIGTERM") else (130, "interrupted")
    err = err.decode()
    assert proc.returncode == code and out == b""
    found = re.search(rf"^{word}: ([\d,]+) of 2,046 points are kept in the cache; run the "
                      "same sweep again", err, re.M)
    assert found, err
    assert "Traceback" not in err
    kept = int(found.group(1).replace(",", ""))
    assert 20 <= kept < 2046 and len(entries(tmp_path)) == kept
    for _ in range(50):  # the group's last process is gone a moment after the command
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("a process of the sweep's group outlived it")


def _one_cached_point(tmp_path):
    kernel = TRANSPOSE_KERNELS["naive"]()
    points = product({"n": [64]}, ["sm_90"])
    first = sweep(kernel, points, cache=tmp_path, jobs=1)
    [entry] = entries(tmp_path)
    return kernel, points, first, entry


def _edited(entry: pathlib.Path, **changes) -> bytes:
    with np.load(entry, allow_pickle=False) as data:
        fields = {name: data[name] for name in data.files}
    buffer = io.BytesIO()
    np.savez(buffer, **{**fields, **changes})
    return buffer.getvalue()


def test_an_edited_entry_is_recomputed_never_trusted(tmp_path):
    """Negative wavefronts, a plausible smaller count (which would change a ranking), a
    count of the wrong type, an occupancy over 1, a missing digest: each is a miss, the
    point is computed again and its entry rewritten (the next run reads it back)."""
    kernel, points, first, entry = _one_cached_point(tmp_path)
    wavefronts = first.results[0].wavefronts
    assert wavefronts > 1
    with np.load(entry, allow_pickle=False) as data:
        fields = {name: data[name] for name in data.files}
    no_digest = io.BytesIO()
    np.savez(no_digest, **{k: v for k, v in fields.items() if k != "digest"})
    for bad in (_edited(entry, wavefronts=np.array(-5)),
                _edited(entry, wavefronts=np.array(wavefronts - 1)),
                _edited(entry, wavefronts=np.array(float(wavefronts))),
                _edited(entry, occupancy=np.array(3.0)),
                no_digest.getvalue()):
        entry.write_bytes(bad)
        again = sweep(kernel, points, cache=tmp_path, jobs=1)
        assert again.cached == 0 and again.results == first.results
        assert sweep(kernel, points, cache=tmp_path, jobs=1).cached == 1  # rewritten


def test_a_fifo_at_an_entry_path_is_a_miss_not_a_hang(tmp_path):
    """Opening a FIFO to read waits for a writer: the sweep must neither open nor wait on
    one (it hung for ever); it recomputes the point and replaces the FIFO."""
    kernel, points, first, entry = _one_cached_point(tmp_path)
    entry.unlink()
    os.mkfifo(entry)
    result = []
    worker = threading.Thread(target=lambda: result.append(
        sweep(kernel, points, cache=tmp_path, jobs=1)), daemon=True)
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():  # let the stuck reader go (it gets an empty entry), then fail
        os.close(os.open(entry, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("the sweep waited on a FIFO planted at its cache entry")
    assert result[0].cached == 0 and result[0].results == first.results
    assert entry.is_file() and not entry.is_symlink()


def test_a_link_or_folder_at_an_entry_path_is_not_followed(tmp_path):
    """A symlink to a valid entry is not followed (a miss), and the rewrite replaces the
    link itself, never writing through it; a folder there is a miss, not a crash."""
    kernel, points, first, entry = _one_cached_point(tmp_path / "cache")
    elsewhere = tmp_path / "elsewhere.npz"
    entry.rename(elsewhere)
    planted = elsewhere.read_bytes()
    entry.symlink_to(elsewhere)
    again = sweep(kernel, points, cache=tmp_path / "cache", jobs=1)
    assert again.cached == 0 and again.results == first.results
    assert not entry.is_symlink() and entry.is_file()
    assert elsewhere.read_bytes() == planted
    entry.unlink()
    entry.mkdir()
    again = sweep(kernel, points, cache=tmp_path / "cache", jobs=1)
    assert again.cached == 0 and again.results == first.results and entry.is_dir()


def test_a_signal_while_a_cache_entry_is_written_comes_once_it_is_written():
    """A SIGTERM inside numpy's .npz writing (a zip file) left a half-made ZipFile whose
    finalizer printed a traceback as the command ended (seen once in the suite's signalled
    sweep). The cache now holds SIGINT and SIGTERM while an entry is read or written, and
    delivers the first as the entry is done."""
    from smemsim.search.pool import signals_deferred
    done = []
    with pytest.raises(KeyboardInterrupt):
        with signals_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)   # (delivered to the handler meanwhile: held, not raised)
            done.append("written")
    assert done == ["written"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

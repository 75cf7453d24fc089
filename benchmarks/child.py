"""One command in a fresh process, measured as a user's shell would run it: wall seconds,
CPU seconds (its own and its waited-for children's: nvcc's, where it builds), peak memory
and its last line of output. Shared by the benchmark scripts."""
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Child:
    """What one run of a command cost."""

    wall: float          # seconds
    cpu: float           # seconds, user + system
    peak_mb: float       # peak resident memory (NaN where it was stopped)
    code: int            # exit code (-1: stopped at the limit)
    last: str            # its last line of output


def measure(argv: list[str], limit_s: float) -> Child:
    """Run `argv`, stopping it past `limit_s` seconds."""
    with tempfile.TemporaryFile("w+") as out:
        t = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        while True:  # wait4 gives this child's own usage
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t > limit_s:
                child.kill()
                os.wait4(child.pid, 0)
                return Child(limit_s, limit_s, float("nan"), -1,
                             f"stopped after {limit_s} s")
            time.sleep(0.02)
        wall = time.perf_counter() - t
        out.seek(0)
        lines = out.read().strip().splitlines() or [""]
    return Child(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                 os.waitstatus_to_exitcode(status), lines[-1])

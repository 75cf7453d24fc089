"""Start-up: wall time of a whole `smemsim analyze` of an example, against the floor of
importing what it must import (`python -c "import numpy, rich"`), best of several runs.

Target (issue #15): within about 2x of the floor. Each command is a fresh process, as a user
or a CI job runs it, with Python's bytecode caches as an installed package has them (pip
writes them at install; each command runs once first, to write them for an editable
install). An environment with PYTHONDONTWRITEBYTECODE=1 and no caches yet compiles smemsim
from source at every start (pip wrote numpy's and rich's when it installed them): not
how a user runs it, so it is unset here.
"""
import os
import subprocess
import sys
import time

RUNS = 7
COMMANDS = {
    "python -c 'import numpy, rich'": [sys.executable, "-c", "import numpy, rich"],
    "smemsim analyze transpose --kernel naive": [sys.executable, "-m", "smemsim", "analyze",
                                                 "transpose", "--kernel", "naive"],
    "smemsim analyze matmul_128x128": [sys.executable, "-m", "smemsim", "analyze",
                                       "matmul_128x128"],
    "smemsim check transpose": [sys.executable, "-m", "smemsim", "check", "transpose"],
}


def best(argv, env) -> float:
    subprocess.run(argv, check=True, capture_output=True, env=env)  # writes bytecode caches
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    floor = None
    for name, argv in COMMANDS.items():
        t = best(argv, env)
        floor = floor or t
        print(f"{name:45s} {t * 1000:7.0f} ms  {t / floor:4.1f}x the floor")


if __name__ == "__main__":
    main()

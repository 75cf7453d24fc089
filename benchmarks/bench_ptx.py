"""The PTX frontend's cost (issue #57): `smemsim analyze FILE.cu` cold (an empty cache: nvcc
builds the PTX, ptxas and nvdisasm its SASS) and warm (both cached: no tool runs), against
nvcc's own PTX and cubin builds of the same file, fresh processes, best of several.

Targets: warm costs no nvcc run; cold costs nvcc's PTX and cubin time plus at most 0.5 s over
the warm run. Bytecode caches are written first (as an installed package has them).
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

RUNS = 5
ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = [ROOT / "examples" / "transpose.cu",
         ROOT / "tests" / "corpus" / "learn_cuda" / "matrix_transpose.cu",
         ROOT / "tests" / "corpus" / "gpu_mode" / "lecture_009_shared_reduce.cu"]


def timed(argv, env) -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    return time.perf_counter() - t


def main() -> None:
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    nvcc = shutil.which("nvcc")
    print(f"{'file':<22} {'nvcc -ptx':>9} {'-cubin':>7} {'cold':>7} {'warm':>7}  "
          f"(seconds, best of {RUNS})")
    for cu in [f for f in FILES if f.exists()]:
        analyze = [sys.executable, "-m", "smemsim", "analyze", str(cu)]
        with tempfile.TemporaryDirectory() as cache:
            env = dict(base, SMEMSIM_CACHE=cache)
            subprocess.run(analyze, capture_output=True, env=env)
            colds, warms = [], []
            for _ in range(RUNS):
                for part in ("ptx", "sass"):
                    shutil.rmtree(os.path.join(cache, part), ignore_errors=True)
                colds.append(timed(analyze, env))
                warms.append(timed(analyze, env))
            with tempfile.TemporaryDirectory() as out:
                ptx, cubin = (min(timed([nvcc, f"-{kind}", "-arch=sm_90", "-lineinfo", "-o",
                                         os.path.join(out, "k.out"), str(cu)], env)
                                  for _ in range(RUNS)) if nvcc else float("nan")
                              for kind in ("ptx", "cubin"))
        print(f"{cu.name:<22} {ptx:9.2f} {cubin:7.2f} {min(colds):7.2f} {min(warms):7.2f}")


if __name__ == "__main__":
    main()

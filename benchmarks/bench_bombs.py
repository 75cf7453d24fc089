"""Inputs built to cost time: how long `smemsim` takes to refuse (or answer) each, and its
peak memory. Issue #51's five slow bombs, each a fresh process as a user runs it:

- a 1,000,000-term sum `(1 + 1 + ... + threadIdx.x) % 32` (4 MB of source);
- `check` of a counted loop of 2^40 iterations with a shared access in it;
- `analyze` of a `#pragma unroll 100000000` loop of 10^8 iterations;
- `analyze` and `check` with `--loop-limit` at its maximum on a loop that never ends.

Target: each refused (or checked) well within a minute on a 2-core machine, in bounded
memory; the figures go to docs/performance.md.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import time

KERNEL = """__global__ void k(float *a)
{
    __shared__ float s[32];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
BODY
    a[threadIdx.x] = s[INDEX];
}

void host(float *a)
{
    k<<<1, 32>>>(a);
}
"""


def kernel(body: str = "", index: str = "threadIdx.x") -> str:
    return KERNEL.replace("BODY", body).replace("INDEX", index)


def main() -> None:
    from smemsim.launch.trace import MAX_LOOP_LIMIT
    cases = {
        "terms-1000000": ("analyze", kernel(index="(" + "1 + " * 1_000_000 +
                                            "threadIdx.x) % 32"), []),
        "loop-2^40": ("check", kernel("    for (long long i = 0; i < (1LL << 40); i++) "
                                      "s[i % 32] += 1.0f;"), []),
        "unroll-10^8": ("analyze", kernel("#pragma unroll 100000000\n    for (int i = 0; "
                                          "i < 100000000; i++) s[i % 32] += 1.0f;"), []),
        "while-max-limit (analyze)": ("analyze", kernel(
            "    int j = 0;\n    while (j >= 0) { s[j % 32] += 1.0f; j++; }"),
            ["--loop-limit", str(MAX_LOOP_LIMIT)]),
        "while-max-limit (check)": ("check", kernel(
            "    int j = 0;\n    while (j >= 0) { s[j % 32] += 1.0f; j++; }"),
            ["--loop-limit", str(MAX_LOOP_LIMIT)]),
    }
    with tempfile.TemporaryDirectory() as folder:
        for name, (verb, text, extra) in cases.items():
            path = pathlib.Path(folder) / "bomb.cu"
            path.write_text(text)
            with open(pathlib.Path(folder) / "out.txt", "w+") as out:
                start = time.perf_counter()
                child = subprocess.Popen(
                    [sys.executable, "-m", "smemsim", verb, str(path), *extra], stdout=out,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, "SMEMSIM_CACHE": folder + "/cache"})
                _, status, usage = os.wait4(child.pid, 0)   # this child's own peak
                took = time.perf_counter() - start
                out.seek(0)
                lines = [x for x in out.read().splitlines() if not x.startswith("note:")]
            said = next((x.strip() for x in lines if "error" in x or "race" in x or
                         "stopped" in x), lines[-1] if lines else "")
            print(f"{name:26s} {verb:8s} exit {os.waitstatus_to_exitcode(status)}  "
                  f"{took:6.1f} s  peak {usage.ru_maxrss / 1024:6.0f} MiB  | {said[:100]}")

if __name__ == "__main__":
    main()

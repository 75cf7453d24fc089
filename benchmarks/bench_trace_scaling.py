"""Trace scaling on the irregular cases of issue #15: each at a size and at 16x it.

- matmul_128x128 over K (the double-buffered K loop: a repeating loop, kernels_ir.periodic);
- causal attention over the sequence (block b runs b + 1 key tiles: blocks summed by trips);
- a persistent 132-block GEMM over n (blocks walk 0 .. 8,192 tiles of 64 x 64).
Each point is `analyze` in a fresh process (imports excluded: the time is measured inside),
with the child's peak memory. Target: time and memory within 2x from the smallest size to
16x it. `--before` also times the same points with repetition and trip grouping turned off
(what the trace did before), where that finishes within LIMIT_S.
"""
import json
import os
import subprocess
import sys
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIMIT_S = 300

CASES = [
    ("matmul_128x128 K", "matmul_128x128", "matmul", "K", [2048, 8192, 32768], {}),
    ("causal attention seq", "causal_attention", "attention", "seq", [2048, 8192, 32768],
     {"heads": 4}),
    ("persistent GEMM n", "persistent_gemm", "gemm", "n", [512, 2048, 8192], {}),
]

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
import importlib
if {before!r}:
    import smemsim.launch.trace as trace, kernels_ir.interpret_loops as interp
    interp.PERIODIC_MIN_TRIPS = 1 << 62           # never watch loops
    trace._per_block_trips = lambda *a: None      # never group across trip counts
from smemsim.launch.analysis import analyze
module = importlib.import_module("examples." + {module!r})
kernel = module.KERNELS[{key!r}]()
params = {params!r}
t = time.perf_counter()
r = analyze(kernel, params)
print(json.dumps(dict(s=time.perf_counter() - t, requests=r.load.requests + r.store.requests,
                      wavefronts=r.wavefronts, blocks=r.blocks_traced)))
"""


def point(module, key, params, before=False):
    code = CHILD.format(root=str(ROOT), module=module, key=key, params=params, before=before)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = child.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return None
    lines = out.strip().splitlines()
    try:
        result = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": lines[-1] if lines else "no output"}
    return result


def peak_mb(module, key, params, before=False):
    code = CHILD.format(root=str(ROOT), module=module, key=key, params=params, before=before)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    out = child.stdout.read()
    return json.loads(out.strip().splitlines()[-1]), usage.ru_maxrss / 1024


def main():
    before = "--before" in sys.argv
    print(f"{'case':<24} {'size':>7} {'s':>7} {'MB':>6} {'requests':>15} {'blocks run':>10}"
          + ("   before: s" if before else ""))
    for label, module, key, name, sizes, extra in CASES:
        for size in sizes:
            params = dict(extra)
            if name == "n":
                params.update(M=size, N=size, K=size)
            else:
                params[name] = size
            result, mb = peak_mb(module, key, params)
            old = ""
            if before:
                b = point(module, key, params, before=True)
                old = f"   {b['s']:.2f}" if b and "s" in b else f"   over {LIMIT_S} s" \
                    if b is None else f"   {b['error']}"
            print(f"{label:<24} {size:>7} {result['s']:>7.2f} {mb:>6.0f} "
                  f"{result['requests']:>15,} {result['blocks']:>10}{old}", flush=True)


if __name__ == "__main__":
    main()

"""Import + analyze (or check) of the public kernels the struct support reads, one fresh
process each: wall time and peak RSS. `python3 benchmarks/bench_struct_kernels.py`

Cases: fast.cu's kernel 6 (persistent, its Schedule struct) at 8192^3 analyzed and at
2048^3, 4096^3 and 8192^3 checked, and the corpus entries of llm.c's x128 kernels, cuda-samples'
binomialOptions and llm.c's classifier (as tests/corpus/corpus.json gives them)."""
from __future__ import annotations

import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [
    ("fast.cu kernel 6, analyze 8192^3", "fast6", "analyze", "8192"),
    ("fast.cu kernel 6, check 2048^3", "fast6", "check", "2048"),
    ("fast.cu kernel 6, check 4096^3", "fast6", "check", "4096"),
    ("fast.cu kernel 6, check 8192^3", "fast6", "check", "8192"),
    ("llm.c layernorm_forward_kernel6", "llm_c/layernorm_forward.cu",
     "layernorm_forward_kernel6", ""),
    ("llm.c fused_residual_forward_kernel5", "llm_c/fused_residual_forward.cu",
     "fused_residual_forward_kernel5", ""),
    ("llm.c matmul_backward_bias_kernel7", "llm_c/matmul_backward_bias.cu",
     "matmul_backward_bias_kernel7", ""),
    ("llm.c fused_classifier_kernel5", "llm_c/classifier_fused.cu",
     "fused_classifier_kernel5<true, false>", ""),
    ("cuda-samples binomialOptionsKernel", "cuda_samples/binomialOptions_kernel.cu",
     "binomialOptionsKernel", ""),
]
CHILD = """
import sys
sys.path.insert(0, {root!r})
from tests.test_cuda_structs import corpus_kernel, fast6
from smemsim import analyze
from smemsim.launch.hazards import check
what, kernel, size = sys.argv[1:4]
if what == "fast6":
    k = fast6(int(size), int(size), int(size))
    (check(k, {{}}) if kernel == "check" else analyze(k))
else:
    analyze(corpus_kernel(what, kernel))
"""


def main() -> None:
    """Print each case's wall time and peak RSS."""
    code = CHILD.format(root=ROOT)
    print(f"{'case':44s} {'wall':>8s} {'peak RSS':>10s}")
    for label, what, kernel, size in CASES:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", code, what, kernel, size])
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if status:
            print(f"{label:44s} failed ({status})")
            continue
        print(f"{label:44s} {wall:7.2f}s {usage.ru_maxrss / 1024:8.0f} MB")


if __name__ == "__main__":
    main()

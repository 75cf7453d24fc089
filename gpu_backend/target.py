"""The process Nsight Compute profiles: launch one kernel of a kernels file once.

    python3 -m gpu_backend.target FILE KERNEL_KEY PARAMS_JSON
"""
import json
import sys

from kernels_ir import resolve_launch
from smemsim.loader import input_arrays, load_kernels, select

from .device import run_on_gpu


def main() -> None:
    """Launch the kernel (no comparison: only the launch is profiled)."""
    file, key, params = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    kernel = next(iter(select(load_kernels(file), key).values()))()
    arrays = input_arrays(file, key, resolve_launch(kernel, params))
    run_on_gpu(kernel, params, arrays, check=False)


if __name__ == "__main__":
    main()

"""The process Nsight Compute profiles: launch one kernel of a kernels file or CUDA file once.

    python3 -m gpu_backend.target FILE KERNEL_KEY PARAMS_JSON [OPTIONS_JSON [PTX_JSON
                                                                             [ARRAYS_DIR]]]

OPTIONS_JSON: for a CUDA file, the smemsim.frontends.cuda.Options it was imported with (the command
line's -D, --length, --launch-grid, --texture, ...), as data; `null` for a kernels file.
PTX_JSON: how the CUDA file was read (smemsim.frontends.loader.load_kernels's `ptx`: its arch and
nvcc flags), `null` for the C++ reading.
ARRAYS_DIR: a folder of NAME.npy files, the inputs the prediction was made on (read without
pickles); else the file's own inputs (ARRAYS, or seeded random).
"""
import json
import pathlib
import sys

import numpy as np

from kernels_ir import resolve_launch
from smemsim.frontends.loader import input_arrays, is_cuda, load_kernels, select

from .device import run_on_gpu


def main() -> None:
    """Launch the kernel (no comparison: only the launch is profiled)."""
    file, key, params = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    options = json.loads(sys.argv[4]) if len(sys.argv) > 4 else None
    ptx = json.loads(sys.argv[5]) if len(sys.argv) > 5 else None
    if options is not None and is_cuda(file):
        from smemsim.frontends.cuda import Options
        kernels = load_kernels(file, Options(**options), None if ptx is None else
                               {"arch": ptx["arch"], "flags": tuple(ptx["flags"])})
    else:
        kernels = load_kernels(file)
    kernel = next(iter(select(kernels, key).values()))()
    if len(sys.argv) > 6:
        arrays = {p.stem: np.load(p, allow_pickle=False)
                  for p in sorted(pathlib.Path(sys.argv[6]).glob("*.npy"))}
    else:
        arrays = input_arrays(file, key, resolve_launch(kernel, params))
    run_on_gpu(kernel, params, arrays, check=False)


if __name__ == "__main__":
    main()

"""Do wgmma's swizzled and MN-major layouts read TMA-written tiles as kernels_ir.wgmma says?

The H100 probes of ../docs/hopper-rules.md got wrong products with them and left the
question open, so the builder refused those descriptors until this proved them. This runs
examples/wgmma_tile.py's GEMM with K-major tiles loaded by TMA with SWIZZLE_64B /
SWIZZLE_32B (boxes of 32 and 16 columns) and descriptors of the same mode (SBO 8 rows x the
span), and with an MN-major B (128B, 64B, 32B, and no swizzle in 8-column boxes), and
compares the GPU's C with the interpreter's and with numpy's.

    python3 tools/gpu_wgmma_swizzles.py OUT.json [VARIANT ...]   (on a machine with a GPU)

A validation driver, not part of the library.
"""
from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    """Run each variant and write what matched."""
    from examples.wgmma_tile import gemm, small_integers
    from gpu_backend.device import run_on_gpu
    from kernels_ir import resolve_launch
    out = {}
    for variant in sys.argv[2:] or ("sw64", "sw32", "sw128", "mn128", "mn_interleave"):
        kernel = gemm(variant)
        launch = resolve_launch(kernel, {})
        arrays = small_integers(launch)
        run = run_on_gpu(kernel, None, arrays)
        a = arrays["A"].astype(np.float32).reshape(256, 256)
        b = arrays["B"].astype(np.float32).reshape(256, 256)
        want = a @ (b if variant.startswith("mn") else b.T)   # an MN-major B is K x N
        gpu = run.outputs["C"].reshape(256, 256)
        out[variant] = {"gpu_equals_interpreter": run.matches,
                        "mismatches": [m.detail for m in run.mismatches],
                        "gpu_equals_numpy": bool(np.array_equal(gpu, want)),
                        "gpu_wrong_elements": int((gpu != want).sum()),
                        "sass": [s.describe() for s in run.compiled.sites]}
        print(variant, out[variant], flush=True)
    pathlib.Path(sys.argv[1]).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

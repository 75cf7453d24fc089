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


# the calibration's cases 106 (wg_KK_s64) and 110 (wg_KMN_s32), whose H100 products were
# "wrong" (4,068 and 4,005 of 4,096 elements): bf16 inputs, the tiles as TMA lays them out
# (the issue #52 found the probes' shared images byte-identical to that), and the
# descriptors the calibration states: 106 is K-major 64B for A and B (SBO 512), 110 K-major
# 32B for A (SBO 256) and MN-major 32B for B with LBO 256, SBO 1024, where the layout TMA
# writes has its next 16-column box 2048 bytes on (LBO) and its 8-row groups 256 (SBO)
PROBES = {"probe106": ("sw64", None), "probe110": ("mn32", (256, 1024)),
          "sw64_bf16": ("sw64", None), "sw32_bf16": ("sw32", None),
          "mn32_bf16": ("mn32", None)}


def _kernel(variant: str):
    from examples.wgmma_tile import gemm
    from kernels_ir import bf16
    if variant in PROBES:
        layout, strides = PROBES[variant]
        return gemm(layout, dtype=bf16, b_strides=strides), layout
    return gemm(variant), variant


def main() -> None:
    """Run each variant and write what matched."""
    from examples.wgmma_tile import small_integers
    from gpu_backend.device import run_on_gpu
    from kernels_ir import resolve_launch
    out = {}
    for variant in sys.argv[2:] or ("sw64", "sw32", "sw128", "mn128", "mn_interleave",
                                    *PROBES):
        kernel, layout = _kernel(variant)
        launch = resolve_launch(kernel, {})
        arrays = small_integers(launch)
        run = run_on_gpu(kernel, None, arrays)
        a, b = (_values(arrays[n]).reshape(256, 256) for n in ("A", "B"))
        want = a @ (b if layout.startswith("mn") else b.T)   # an MN-major B is K x N
        gpu = run.outputs["C"].reshape(256, 256)
        out[variant] = {"gpu_equals_interpreter": run.matches,
                        "mismatches": [m.detail for m in run.mismatches],
                        "gpu_equals_numpy": bool(np.array_equal(gpu, want)),
                        "gpu_wrong_elements": int((gpu != want).sum()),
                        "sass": [s.describe() for s in run.compiled.sites]}
        print(variant, out[variant], flush=True)
    pathlib.Path(sys.argv[1]).write_text(json.dumps(out, indent=1))


def _values(x: np.ndarray) -> np.ndarray:
    """f16 as float32; bf16 (held as uint16 bits) as the floats they are."""
    if x.dtype == np.uint16:
        return (x.astype(np.uint32) << 16).view(np.float32)
    return x.astype(np.float32)


if __name__ == "__main__":
    main()

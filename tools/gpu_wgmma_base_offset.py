"""How does wgmma read a 128B-swizzled tile when its descriptor's base offset is not 0?

The H100 read a tile TMA wrote at 1024 + 128 right with base offset 0 (the swizzle of the
absolute address) and wrong with 1 (../docs/hopper-rules.md), without a rule for the wrong
product. This runs examples/wgmma_tile.py's `off1024_base1` (both tiles there, base offset 1 in A's
descriptor, 0 in B's) on the GPU and compares its C with numpy models of the read, each a guess at how the base
offset enters the swizzle's row phase p = (address >> 7) & 7:
  minus: p - b;  plus: p + b;  xor: p ^ b;  ignored: p.

    python3 tools/gpu_wgmma_base_offset.py OUT.json      (on a machine with a GPU)

A validation driver, not part of the library.
"""
from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RULES = {"minus": lambda p, b: (p - b) & 7, "plus": lambda p, b: (p + b) & 7,
         "xor": lambda p, b: p ^ b, "ignored": lambda p, b: p}


def _read(rule, base: int, kk: int):
    """(row, column) of the box element wgmma reads as operand element (mn, k) of step kk,
    from a tile TMA wrote at 1024 + 128."""
    start0 = 1024 + 128
    mn = np.arange(64)[:, None]
    k = np.arange(16)[None, :]
    tma = lambda x: x ^ (((x >> 7) & 7) << 4)           # TMA's swizzle (an involution)
    x = start0 + kk * 32 + mn * 128 + k * 2               # K-major 128B: rows of 128 bytes
    y = x ^ (rule((x >> 7) & 7, base) << 4)               # the byte wgmma reads
    pos = tma(y) - start0                                 # where TMA put that box element
    return pos // 128, pos % 128 // 2


def model(a: np.ndarray, b: np.ndarray, rule, base: int) -> np.ndarray:
    """C = A' B'^T with A read through a descriptor of base offset `base` under `rule`, B
    with base offset 0 (the absolute address), both tiles at 1024 + 128."""
    c = np.zeros((256, 256), np.float32)
    for kk in range(4):
        ra, ca = _read(rule, base, kk)
        rb, cb = _read(RULES["ignored"], 0, kk)
        for m0 in range(0, 256, 64):
            for n0 in range(0, 256, 64):
                for kc in range(4):
                    c[m0:m0 + 64, n0:n0 + 64] += a[m0 + ra, kc * 64 + ca] @ \
                        b[n0 + rb, kc * 64 + cb].T
    return c


def main() -> None:
    """Run the variant on the GPU and say which model, if any, gives its C."""
    import kernels_ir.wgmma as layouts
    from examples.wgmma_tile import gemm, small_integers
    from gpu_backend.device import run_on_gpu
    from kernels_ir import resolve_launch
    layouts.MODELLED_BASE_OFFSETS = {mode: tuple(range(8))
                                     for mode in layouts.MODELLED_BASE_OFFSETS}
    kernel = gemm("off1024_base1")
    arrays = small_integers(resolve_launch(kernel, {}))
    run = run_on_gpu(kernel, None, arrays, check=False)
    gpu = run.outputs["C"].reshape(256, 256)
    a = arrays["A"].astype(np.float32).reshape(256, 256)
    b = arrays["B"].astype(np.float32).reshape(256, 256)
    out = {"right": int((gpu == a @ b.T).sum())}
    for name, rule in RULES.items():
        want = model(a, b, rule, 1)
        out[name] = {"equal": bool(np.array_equal(gpu, want)),
                     "elements_equal": int((gpu == want).sum())}
    print(out, flush=True)
    pathlib.Path(sys.argv[1]).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

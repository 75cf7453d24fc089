"""How does wgmma read a swizzled tile when its descriptor's base offset is not 0?

The H100 read a 128B tile TMA wrote at 1024 + 128 right with base offset 0 (the swizzle of
the absolute address) and wrong with 1 (../docs/hopper-rules.md). The twelfth session's run
of this driver found the rule for 128B: the row phase XORed into bits 4-6 is that of the
absolute address less the base offset. The 32B and 64B modes were left refused. This runs
examples/wgmma_tile.py's K-major GEMM with its tiles `shift` bytes past a 1024-byte boundary
and base offset b in A's descriptor only (B's says 0, so A and B are read differently), for
each swizzle, and compares the GPU's C with numpy models of the read, each a guess at how b
enters the row phase p = (address >> 7) & mask (mask 1, 3, 7 for 32B, 64B, 128B):
  minus: p - b;  plus: p + b;  xor: p ^ b;  ignored: p;  minus2: p - 2b;  minus4: p - 4b.
Then the same GEMM without a swizzle (core matrices) with base offsets: is the field read
at all? It saves A, B and the GPU's C of every swizzled case (cases.npz beside OUT), so that
a model can be fitted later without a GPU.

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

RULES = {"minus": lambda p, b: p - b, "plus": lambda p, b: p + b, "xor": lambda p, b: p ^ b,
         "ignored": lambda p, b: p, "minus2": lambda p, b: p - 2 * b,
         "minus4": lambda p, b: p - 4 * b}
# (layout variant, bytes past the 1024-byte boundary, A's base offset)
CASES = [("sw128", 128, 1),                       # the twelfth session's case, as a control
         ("sw64", 128, 0), ("sw64", 128, 1), ("sw64", 0, 1), ("sw64", 256, 2),
         ("sw64", 384, 3), ("sw64", 640, 5),
         ("sw32", 128, 0), ("sw32", 128, 1), ("sw32", 0, 1), ("sw32", 256, 3),
         ("sw32", 384, 2)]
BITS = {128: 3, 64: 2, 32: 1}
# without a swizzle (core matrices, examples/wgmma_tile.py's `interleave`): (shift, base
# offset); right products mean the field is not read
CASES_NONE = [(0, 1), (128, 1), (384, 5), (128, 0)]


def tile_map(span: int, shift: int) -> np.ndarray:
    """Byte address (from the 1024-byte boundary) -> row * 64 + column of the 64 x 64 K chunk
    element whose first byte TMA wrote there (-1 where none): boxes of 64 rows x `span`
    bytes, each 64 * span bytes after the last, swizzled on the absolute address."""
    bits = BITS[span]
    cols = span // 2
    where = np.full(shift + 64 * 64 * 2, -1, np.int64)
    r = np.arange(64)[:, None]
    c = np.arange(cols)[None, :]
    for j in range(64 // cols):
        addr = shift + j * 64 * span + r * span + c * 2
        stored = addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)
        where[stored] = r * 64 + j * cols + c
    return where


def read(span: int, shift: int, rule, base: int, kk: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) in the K chunk that wgmma reads as A's element (mn, k) of step kk, with
    base offset `base` under `rule` (K-major, rows of `span` bytes, SBO 8 rows)."""
    from kernels_ir import GmmaLayout
    from kernels_ir.wgmma import DESCRIPTOR_SWIZZLES
    swizzle = DESCRIPTOR_SWIZZLES[{128: 1, 64: 2, 32: 3}[span]]
    cols = span // 2
    first = kk * 16
    slab = 64 * cols                                       # elements from box to box
    start = shift + 2 * (first // cols * slab + first % cols)
    x = start + GmmaLayout("K", swizzle, 16, 8 * span).offsets(64, 2)
    mask = (1 << BITS[span]) - 1
    y = x ^ ((rule((x >> 7) & mask, base) & mask) << 4)
    idx = tile_map(span, shift)[y]
    if (idx < 0).any():
        raise ValueError("a read outside the elements TMA wrote")
    return idx // 64, idx % 64


def model(a: np.ndarray, b: np.ndarray, span: int, shift: int, rule, base: int) -> np.ndarray:
    """C = A' B'^T with A read through base offset `base` under `rule`, B with 0."""
    c = np.zeros((256, 256), np.float32)
    for kk in range(4):
        ra, ca = read(span, shift, rule, base, kk)
        rb, cb = read(span, shift, RULES["ignored"], 0, kk)
        for m0 in range(0, 256, 64):
            for n0 in range(0, 256, 64):
                for kc in range(4):
                    c[m0:m0 + 64, n0:n0 + 64] += a[m0 + ra, kc * 64 + ca] @ \
                        b[n0 + rb, kc * 64 + cb].T
    return c


def main() -> None:
    """Run each case on the GPU and say which model, if any, gives its C."""
    from examples.wgmma_tile import gemm, small_integers
    from gpu_backend.device import run_on_gpu
    from kernels_ir import resolve_launch
    out, saved = {}, {}
    for variant, shift, base in CASES:
        key = f"{variant}_at{shift}_base{base}"
        span = {"sw128": 128, "sw64": 64, "sw32": 32}[variant]
        kernel = gemm(variant, shift=shift, base_offset=base)
        arrays = small_integers(resolve_launch(kernel, {}))
        run = run_on_gpu(kernel, None, arrays, check=False)
        gpu = run.outputs["C"].reshape(256, 256)
        a = arrays["A"].astype(np.float32).reshape(256, 256)
        b = arrays["B"].astype(np.float32).reshape(256, 256)
        saved[f"{key}_C"] = gpu
        saved.setdefault("A", arrays["A"])
        saved.setdefault("B", arrays["B"])
        row = {"right": int((gpu == a @ b.T).sum())}
        for name, rule in RULES.items():
            want = model(a, b, span, shift, rule, base)
            row[name] = int((gpu == want).sum())
        row["matches"] = [name for name in RULES if row[name] == gpu.size]
        out[key] = row
        print(key, row, flush=True)
    for shift, base in CASES_NONE:
        key = f"interleave_at{shift}_base{base}"
        kernel = gemm("interleave", shift=shift, base_offset=base)
        arrays = small_integers(resolve_launch(kernel, {}))
        gpu = run_on_gpu(kernel, None, arrays, check=False).outputs["C"].reshape(256, 256)
        a = arrays["A"].astype(np.float32).reshape(256, 256)
        b = arrays["B"].astype(np.float32).reshape(256, 256)
        out[key] = {"right": int((gpu == a @ b.T).sum())}
        print(key, out[key], flush=True)
    target = pathlib.Path(sys.argv[1])
    target.write_text(json.dumps(out, indent=1))
    np.savez_compressed(target.with_name("cases.npz"), **saved)


if __name__ == "__main__":
    main()

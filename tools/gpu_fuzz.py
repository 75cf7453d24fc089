"""Random kernels through code generation, NVRTC and a GPU launch, against the interpreter.

    python3 tools/gpu_fuzz.py COUNT OUT_DIR     (on a machine with a GPU)

Each kernel mixes what the IR has: every element type, 1/2/4-element accesses, padding,
loops with thread-dependent trip counts, guards, barriers, arithmetic with C semantics
(division, remainder, shifts, min/max, select) and global loads and stores.
"""
from __future__ import annotations

import json
import pathlib
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from kernels_ir import (  # noqa: E402
    KernelBuilder, bf16, cast, f16, f32, f64, i8, i16, i32, select, smax, smin, threadIdx, u8,
    u16, u32, u64,
)

TYPES = (u8, i8, u16, i16, u32, i32, u64, f32, f64)  # of values; tiles also f16, bf16


def random_kernel(rng: np.random.Generator, number: int):
    """One random, valid, race-free kernel (the interpreter must accept it, the GPU agree).

    Each thread stores to its own slot (an odd multiplier modulo a power of two is a
    bijection), a barrier separates the stores from reads of a neighbour's slot, trip counts
    are uniform per block (barriers sit in the loop), and every element of a vector load is
    used (NVRTC narrows a vector load whose elements go unused).
    """
    dtype = TYPES[rng.integers(len(TYPES))]
    # f32 kernels may stage their values in an f16 or bf16 tile (stores round, loads widen)
    tile_type = dtype if dtype != f32 else (f32, f16, bf16)[int(rng.integers(3))]
    widths = [w for w in (1, 2, 4, 8) if w * tile_type.size <= 16
              and (w < 8 or tile_type.storage_only)]
    width = int(rng.choice(widths))
    bx = int(rng.choice([32, 64, 128]))
    per_row = int(rng.choice([8, 16, 32]))
    rows = max(int(rng.choice([2, 4, 8])), bx // per_row)
    slots = rows * per_row
    cols = per_row * width
    pad = int(rng.choice([0, width]))
    gx = int(rng.integers(1, 4))
    odd = int(rng.choice([1, 3, 5, 7, 9, 17]))
    step = int(rng.integers(0, 5))
    uniform_trip = bool(rng.integers(2))
    atomic = str(rng.choice(["add", "or", "xor", "and", "max", "min", ""]))
    slots_atomic = int(rng.choice([1, 4, 32, 64]))
    shuffle = str(rng.choice(["up", "down", "xor", "idx", ""]))
    k = KernelBuilder(f"fuzz{number}")
    n = k.param("n")
    src = k.global_array("src", dtype, n)
    out = k.global_array("out", dtype, n, intent="out")
    s = k.shared("s", tile_type, (rows, cols), pad=pad)
    gid = k.let("gid", cast(threadIdx.x, i32) + k_block(k) * bx, i32)
    acc = k.let("acc", src[gid], dtype)
    stop = 3 if uniform_trip else k_block(k) % 3 + 1
    with k.range("i", 0, stop) as i:
        slot = (threadIdx.x * odd + i * step) % slots
        value = _arith(k, rng, acc, i, dtype)
        s.store((slot // per_row, slot % per_row * width), [value] * width, width=width)
        k.syncthreads()
        # the slot the next thread wrote in this iteration (written before the barrier)
        other = ((threadIdx.x + 1) % bx * odd + i * step) % slots
        v = s.load((other // per_row, other % per_row * width), width=width)
        total = v
        if width > 1:
            total = v[0]
            for e in range(1, width):
                total = total + v[e]
        acc.set(cast(total, dtype))
        k.syncthreads()
    if shuffle:
        # every lane of every warp takes part (blocks are whole warps): no mask subtleties
        lane = {"up": 1 + number % 3, "down": 1 + number % 5, "xor": 1 << number % 5,
                "idx": cast(threadIdx.x * odd, i32) % 32}[shuffle]
        got = k.shfl(acc, lane, mode=shuffle, width=int(rng.choice([8, 16, 32])))
        acc.set(cast(acc + cast(got, dtype), dtype))
    if atomic and dtype != f64:  # (f64 would need a double atomicAdd; its rounding in
        # f32 counters would not meet the f64 comparison's tolerance)
        # an order-independent atomic phase: every thread combines its value into a few
        # shared counters (integer results do not depend on the order lanes apply them;
        # float sums differ by rounding only), then reads one back
        ctype = f32 if dtype.is_float else (u64 if dtype == u64 else u32)
        kind = "add" if dtype.is_float else atomic
        counters = k.shared("counters", ctype, 64)
        identity = int(ctype.max) if kind in ("and", "min") else 0
        with k.range("c", threadIdx.x, 64, bx) as c:
            counters[c] = identity
        k.syncthreads()
        k.atomic(counters, (threadIdx.x * odd) % slots_atomic, kind, cast(acc, ctype))
        k.syncthreads()
        back = counters[threadIdx.x % slots_atomic]
        # `% 251` needs every bit of the counter: NVRTC narrows a load whose upper bytes go
        # unused (LDS.U8 for a u32 cast to u8), which the SASS check would rightly report
        acc.set(cast(cast(acc, ctype) + (back if ctype.is_float else back % 251), dtype))
        k.syncthreads()
    with k.if_(threadIdx.x % 3 != 1):
        out[gid] = acc
    with k.else_():
        out[gid] = src[gid]
    k.launch(gx, bx)
    k.defaults(n=gx * bx)
    return k.build()


def k_block(k):
    from kernels_ir import blockIdx
    return cast(blockIdx.x, i32)


def _arith(k, rng, acc, i, dtype):
    choice = int(rng.integers(6))
    if dtype.is_float:
        ops = [acc * 0.5 + 1.0, acc - cast(i, dtype), smin(acc, cast(i, dtype) + 0.25),
               select(i & 1, acc, acc * 2.0), acc / 3.0, smax(acc, 0.5)]
    else:
        ops = [acc * 3 + i, (acc ^ (i << 2)) + 1, acc // (i + 1), acc % (i + 3),
               smin(acc, i * 7), select(i & 1, acc >> 1, acc + 5)]
    return cast(ops[choice], dtype)


def main() -> None:
    """Run COUNT random kernels on the GPU; write fuzz.json under OUT_DIR."""
    from gpu_backend.device import run_on_gpu
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    out_dir = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ".")
    rng = np.random.default_rng(2026)
    results, failures, start = [], 0, time.time()
    for number in range(count):
        try:
            kernel = random_kernel(rng, number)
            r = run_on_gpu(kernel, seed=number)
            ok = r.matches and r.compiled.widths_ok
            results.append({"kernel": kernel.name, "matches": r.matches,
                            "sass_ok": r.compiled.widths_ok,
                            "mismatches": [m.detail for m in r.mismatches]})
        except Exception:
            ok = False
            results.append({"kernel": f"fuzz{number}", "error": traceback.format_exc()})
        failures += not ok
    summary = {"count": count, "failures": failures, "seconds": round(time.time() - start, 1)}
    (out_dir / "fuzz.json").write_text(json.dumps({"summary": summary, "results": results},
                                                  indent=1))
    print(f"fuzz: {count} random kernels, {count - failures} matched the interpreter with the "
          f"stated widths, {failures} did not ({summary['seconds']} s)")


if __name__ == "__main__":
    main()

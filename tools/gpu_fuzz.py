"""Random kernels through code generation, NVRTC and a GPU launch, against the interpreter.

    python3 tools/gpu_fuzz.py COUNT OUT_DIR [FIRST] [--ncu]   (on a machine with a GPU)

Each kernel mixes what the IR has: every element type, 1/2/4-element accesses (8 in f16 and
bf16 tiles), padding, loops with thread-dependent trip counts, guards, barriers, arithmetic
with C semantics (division, remainder, shifts, min/max, select), global loads and stores, an
atomic phase and a warp shuffle. Kernel n is made from its own seed, so kernels FIRST ..
FIRST+COUNT-1 can be run in several calls; with --ncu, Nsight Compute also reads each one's
shared-memory counters and compares them with the analysis of what NVRTC emitted (requests
exactly, wavefronts never below). The file is also a kernels file (KERNELS: fuzz0, fuzz1,
...), which is how ncu's profiled process finds the kernel.
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


def kernel_number(number: int):
    """Random kernel `number` (its own seed: the same kernel in every call)."""
    return random_kernel(np.random.default_rng([2026, number]), number)


KERNELS = {f"fuzz{n}": (lambda n=n: kernel_number(n)) for n in range(1000)}


def _counters(kernel, run) -> dict:
    """ncu's shared-memory counters for one launch against the analysis of what NVRTC
    emitted (the target process makes seed-0 inputs; these kernels' addresses do not depend
    on data)."""
    import dataclasses

    from gpu_backend.measure import compare_counts, measure
    from gpu_backend.as_compiled import analyze_as_compiled
    report = analyze_as_compiled(kernel, compiled=run.compiled)
    measured = measure(str(pathlib.Path(__file__).resolve()), kernel.name, {}, kernel.name)
    agreement = compare_counts(report, measured)
    return {"counters_ok": agreement.ok,
            "counters": [dataclasses.asdict(c) for c in agreement.checks]}


def main() -> None:
    """Run COUNT random kernels on the GPU; write fuzz.json under OUT_DIR."""
    from gpu_backend.device import run_on_gpu
    args = [a for a in sys.argv[1:] if a != "--ncu"]
    with_ncu = "--ncu" in sys.argv
    count = int(args[0]) if args else 200
    out_dir = pathlib.Path(args[1] if len(args) > 1 else ".")
    first = int(args[2]) if len(args) > 2 else 0
    results, failures, start = [], 0, time.time()
    for number in range(first, first + count):
        try:
            kernel = kernel_number(number)
            r = run_on_gpu(kernel, seed=number)
            ok = r.matches and r.compiled.widths_ok
            results.append({"kernel": kernel.name, "matches": r.matches,
                            "sass_ok": r.compiled.widths_ok,
                            "mismatches": [m.detail for m in r.mismatches]})
            if with_ncu:
                results[-1].update(_counters(kernel, r))
                ok = ok and results[-1]["counters_ok"]
        except Exception:
            ok = False
            results.append({"kernel": f"fuzz{number}", "error": traceback.format_exc()})
        failures += not ok
    summary = {"count": count, "first": first, "ncu": with_ncu, "failures": failures,
               "seconds": round(time.time() - start, 1)}
    (out_dir / f"fuzz-{first}.json").write_text(json.dumps(
        {"summary": summary, "results": results}, indent=1))
    print(f"fuzz: {count} random kernels from fuzz{first}, {count - failures} matched the "
          f"interpreter with the stated widths{' and ncu' if with_ncu else ''}, {failures} "
          f"did not ({summary['seconds']} s)")


if __name__ == "__main__":
    main()

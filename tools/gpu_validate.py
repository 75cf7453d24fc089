"""Validate the simulator against the GPU: outputs, counters and occupancy, per example.

For each example kernel:
1. compile for the GPU's architecture and check the SASS widths;
2. run it at its documented size and compare every output with the interpreter's;
3. at the same size, read Nsight Compute's shared-memory counters and compare with
   `analyze --as-compiled` (instructions exactly; wavefronts never below the prediction);
4. compare the driver's active blocks per SM with the calculator fed the driver's register
   and shared-memory figures.

    python3 tools/gpu_validate.py OUT_DIR [MATCH ...]   (on a machine with a GPU and ncu)

MATCH words keep only the cases whose file or kernel key contains one of them; a MATCH of
the form FILE::KEY adds that kernel of that file (an imported kernels file, say) as a case.

A validation driver, not part of the library: it uses gpu_backend and smemsim as a user would.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import platform
import subprocess
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# (file, kernel key): every example runs at its documented size (the file's defaults)
CASES = [
    ("examples/transpose.py", "naive"),
    ("examples/transpose.py", "padded"),
    ("examples/transpose.py", "swizzled"),
    ("examples/transpose.py", "declared"),
    ("examples/transpose.py", "tma_128b"),
    ("examples/matmul_double16.py", "multiply"),
    ("examples/int_matmul_nt32.py", "as_written"),
    ("examples/int_matmul_nt32.py", "fixed"),
    ("examples/matmul_naive.py", "matMul1"),
    ("examples/matmul_naive.py", "matMul2"),
    ("examples/matmul_float_tiled.py", "tiled"),
    ("examples/matmul_float_tiled.py", "ilp2"),
    ("examples/matmul_float_tiled.py", "seed003"),
    ("examples/matmul_128x128.py", "matmul"),
    ("examples/reed_solomon.py", "naive"),
    ("examples/reed_solomon.py", "square"),
    ("examples/reed_solomon.py", "general"),
    ("examples/reed_solomon.py", "words"),
    ("examples/reed_solomon.py", "tables"),
    ("examples/histogram.py", "uniform"),
    ("examples/histogram.py", "text"),
    ("examples/histogram.py", "weighted"),
    ("examples/ldmatrix_tile.py", "rowmajor"),
    ("examples/ldmatrix_tile.py", "swizzled"),
    ("examples/ldmatrix_tile.py", "roundtrip"),
    ("examples/ldmatrix_tile.py", "declared"),
    ("examples/softmax.py", "softmax"),
    ("examples/cp_async_gemm.py", "gemm"),
    ("examples/cp_async_gemm.py", "padded"),
    ("examples/causal_attention.py", "attention"),
    ("examples/causal_attention.py", "padded"),
    ("examples/persistent_gemm.py", "gemm"),
    # the compiler widens this one's four scalar loads into LDS.128: predicted from the SASS
    ("tests/kernels/widening.py", "widening"),
    # two adjacent stores merged into one STS.64: predicted from the SASS too
    ("tests/kernels/adjacent_stores.py", "pair"),
    # a swizzle declared on a dynamic shared view
    ("tests/kernels/dynamic_swizzle.py", "plain"), ("tests/kernels/dynamic_swizzle.py", "swizzled"),
    # written as the CUDA reads, compiled into something else (docs/as-compiled.md)
    ("tests/kernels/compiler_changes.py", "matrix_mul"),
    ("tests/kernels/compiler_changes.py", "invariant"),
    ("tests/kernels/compiler_changes.py", "swap"),
    ("tests/kernels/compiler_changes.py", "nested"),
    ("tests/kernels/compiler_changes.py", "guarded_tile"),
    # f16 / bf16 arrays, 2- to 16-byte accesses
    ("tests/kernels/halves.py", "f16_x1"), ("tests/kernels/halves.py", "f16_x8"),
    ("tests/kernels/halves.py", "bf16_x2"), ("tests/kernels/halves.py", "bf16_x8"),
    # TMA loads through an mbarrier (docs/tma.md): right, a reader that forgets the
    # swizzle, no swizzle
    ("examples/tma_tile.py", "swizzled"), ("examples/tma_tile.py", "unswizzled_reader"),
    ("examples/tma_tile.py", "plain"), ("examples/tma_tile.py", "roundtrip"),
    ("examples/tma_tile.py", "bulk_copy"),
    # wgmma through descriptors, operands loaded by TMA: right, the descriptor's swizzle
    # wrong, tiles 128 bytes past a 1024-byte boundary, no swizzle (core matrices)
    ("examples/wgmma_tile.py", "sw128"), ("examples/wgmma_tile.py", "desc_none"),
    ("examples/wgmma_tile.py", "off1024"), ("examples/wgmma_tile.py", "interleave"),
    ("examples/wgmma_tile.py", "sw64"), ("examples/wgmma_tile.py", "sw32"),
    ("examples/wgmma_tile.py", "mn128"), ("examples/wgmma_tile.py", "mn_interleave"),
    ("examples/wgmma_tile.py", "mn64"), ("examples/wgmma_tile.py", "mn32"),
    ("examples/wgmma_tile.py", "off1024_base1"), ("examples/wgmma_tile.py", "bf16"),
    ("examples/wgmma_tile.py", "areg"),
]


def validate_case(file: str, key: str) -> dict:
    """Everything the GPU can say about one example."""
    from kernels_ir import resolve_launch
    from gpu_backend.as_compiled import analyze_as_compiled
    from smemsim.frontends.loader import input_arrays, load_kernels, select
    from smemsim.launch.occupancy import kernel_occupancy

    from gpu_backend.device import run_on_gpu
    from gpu_backend.measure import MeasureError, compare_counts, measure

    path = str(ROOT / file)
    kernel = next(iter(select(load_kernels(path), key).values()))()
    out: dict = {"file": file, "kernel": key, "name": kernel.name}
    # 1 + 2: run at the documented size against the interpreter
    launch = resolve_launch(kernel)
    run = run_on_gpu(kernel, None, input_arrays(path, key, launch))
    out.update(device=run.device, arch=run.arch,
               outputs_match=run.matches, mismatches=[m.detail for m in run.mismatches],
               sass_ok=run.compiled.widths_ok,
               sass=[s.describe() for s in run.compiled.sites],
               registers=run.registers, static_smem_driver=run.static_smem,
               static_smem_cubin=run.compiled.cubin_smem,
               static_smem_compiled=run.compiled.static_smem,
               static_smem_ir=kernel.static_smem)
    # 3: counters at the same size
    params = dict(launch.params)
    # predict the kernel the compiler emitted (--as-compiled)
    report = analyze_as_compiled(kernel, arch="sm_90", compiled=run.compiled,
                                 arrays=input_arrays(path, key, launch))
    out["params"] = params
    out["compiled_widths"] = dict(report.compiled_widths)
    out["compiler"] = list(report.compiler)
    out["predicted"] = {c: dataclasses.asdict(t) for c, t in report.classes.items()}
    try:
        measured = measure(path, key, params, kernel.name)
        out["measured"] = dataclasses.asdict(measured)
        agreement = compare_counts(report, measured)
        out["counters_ok"] = agreement.ok
        out["counters"] = [dataclasses.asdict(c) for c in agreement.checks]
        out["unmeasured"] = list(agreement.unmeasured)
    except MeasureError as err:
        out["measured"] = None
        out["measure_error"] = str(err)
    # 4: occupancy, fed what the driver reports for the loaded kernel
    occ = kernel_occupancy(kernel, "sm_90", run.registers, static_smem=run.static_smem)
    out["occupancy"] = {"driver_blocks": run.driver_blocks_per_sm,
                        "calculator_blocks": occ.active_blocks, "limiters": list(occ.limiters)}
    return out


def main() -> None:
    """Validate every example; write results.json and a log under OUT_DIR."""
    out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True).stdout
    except OSError:
        smi = "nvidia-smi not found"
    results = {"date": time.strftime("%Y-%m-%d"), "gpu": smi.strip(),
               "python": platform.python_version(), "cases": []}
    wanted = [w for w in sys.argv[2:] if "::" not in w]
    extra = [tuple(w.split("::", 1)) for w in sys.argv[2:] if "::" in w]
    for file, key in CASES + extra:
        if (file, key) not in extra and (extra and not wanted or wanted and not any(
                w in file or w == key for w in wanted)):
            continue
        t = time.time()
        try:
            case = validate_case(file, key)
        except Exception:
            case = {"file": file, "kernel": key, "error": traceback.format_exc()}
        case["seconds"] = round(time.time() - t, 1)
        results["cases"].append(case)
        m = case.get("measured")
        line = f"{key:>11} ({file}): "
        if "error" in case:
            line += "ERROR " + case["error"].splitlines()[-1]
        else:
            line += (f"outputs {'ok' if case['outputs_match'] else 'DIFFER'}, sass "
                     f"{'ok' if case['sass_ok'] else 'CHANGED'}, occupancy "
                     f"{case['occupancy']['driver_blocks']} vs "
                     f"{case['occupancy']['calculator_blocks']}")
            if m:
                line += f", counters {'ok' if case['counters_ok'] else 'DISAGREE'}: " + \
                    "; ".join(f"{c['what']} {c['predicted']}/{c['measured']}"
                              for c in case["counters"])
            else:
                line += ", no counters: " + case.get("measure_error", "")
        print(line, flush=True)
        (out_dir / "results.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

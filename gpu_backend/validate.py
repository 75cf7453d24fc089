"""Validate the simulator against the GPU: outputs, counters and occupancy, per example.

For each example kernel:
1. compile for the GPU's architecture and check the SASS widths;
2. run it at a check size and compare every output with the interpreter;
3. at its documented size, read Nsight Compute's shared-memory counters and compare with
   `smemsim.analyze` (instructions exactly; wavefronts never below the prediction);
4. compare the driver's active blocks per SM with the calculator fed the driver's register
   and shared-memory figures.

    python3 -m gpu_backend.validate OUT_DIR     (on a machine with a GPU and ncu)
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

# (file, kernel key, parameters for the interpreter check; the documented size is the default)
CASES = [
    ("examples/transpose.py", "naive", {"n": 64}),
    ("examples/transpose.py", "padded", {"n": 64}),
    ("examples/transpose.py", "swizzled", {"n": 64}),
    ("examples/matmul_double16.py", "multiply", {"MATRIX_DIM": 64}),
    ("examples/int_matmul_nt32.py", "as_written", {"Nmat": 70}),
    ("examples/int_matmul_nt32.py", "fixed", {"Nmat": 70}),
    ("examples/matmul_float_tiled.py", "tiled", {"rowsA": 70, "commonDim": 90, "colsB": 100}),
    ("examples/matmul_float_tiled.py", "ilp2", {"rowsA": 64, "commonDim": 64, "colsB": 64}),
    ("examples/matmul_float_tiled.py", "seed003", {"rowsA": 96, "commonDim": 363,
                                                   "colsB": 300}),
    ("examples/matmul_128x128.py", "matmul", {"M": 128, "N": 256, "K": 64}),
    ("examples/reed_solomon.py", "naive", {"B_width": 256, "grid_x": 4}),
    ("examples/reed_solomon.py", "square", {"B_width": 256, "grid_x": 4}),
    ("examples/reed_solomon.py", "general", {"B_width": 256, "grid_x": 4}),
    ("examples/reed_solomon.py", "words", {"B_width": 128, "grid_x": 2}),
    ("examples/reed_solomon.py", "tables", {"B_width": 256, "grid_x": 4}),
    # the compiler widens this one's four scalar loads into LDS.128: predicted from the SASS
    ("tests/kernels/widening.py", "widening", {}),
]


def validate_case(file: str, key: str, check_params: dict) -> dict:
    """Everything the GPU can say about one example."""
    from kernels_ir import resolve_launch
    from smemsim.analysis import analyze
    from smemsim.loader import input_arrays, load_kernels, select
    from smemsim.occupancy import kernel_occupancy

    from .device import run_on_gpu
    from .measure import MeasureError, measure

    path = str(ROOT / file)
    kernel = next(iter(select(load_kernels(path), key).values()))()
    out: dict = {"file": file, "kernel": key, "name": kernel.name}
    # 1 + 2: run at the check size against the interpreter
    check_launch = resolve_launch(kernel, check_params)
    run = run_on_gpu(kernel, check_params, input_arrays(path, key, check_launch))
    out.update(device=run.device, arch=run.arch, check_params=check_params,
               outputs_match=run.matches, mismatches=[m.detail for m in run.mismatches],
               sass_ok=run.compiled.widths_ok,
               sass=[s.describe() for s in run.compiled.sites],
               registers=run.registers, static_smem_driver=run.static_smem,
               static_smem_cubin=run.compiled.cubin_smem,
               static_smem_compiled=run.compiled.static_smem,
               static_smem_ir=kernel.static_smem)
    # 3: counters at the documented size
    launch = resolve_launch(kernel)
    params = dict(launch.params)
    # when the compiler changed sites, predict the kernel it emitted
    widths = run.compiled.compiled_widths()
    report = analyze(kernel, "sm_90", arrays=input_arrays(path, key, launch), widths=widths)
    out["params"] = params
    out["compiled_widths"] = widths
    out["predicted"] = {"load_requests": report.load.requests,
                        "store_requests": report.store.requests,
                        "load_wavefronts": report.load.wavefronts,
                        "store_wavefronts": report.store.wavefronts,
                        "load_conflicts": report.load.excess,
                        "store_conflicts": report.store.excess}
    try:
        out["measured"] = dataclasses.asdict(measure(path, key, params, kernel.name))
    except MeasureError as err:
        out["measured"] = None
        out["measure_error"] = str(err)
    # 4: occupancy, fed what the driver reports for the loaded kernel
    occ = kernel_occupancy(kernel, "sm_90", run.registers, check_params,
                           static_smem=run.static_smem)
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
    for file, key, params in CASES:
        t = time.time()
        try:
            case = validate_case(file, key, params)
        except Exception:
            case = {"file": file, "kernel": key, "error": traceback.format_exc()}
        case["seconds"] = round(time.time() - t, 1)
        results["cases"].append(case)
        p, m = case.get("predicted"), case.get("measured")
        line = f"{key:>11} ({file}): "
        if "error" in case:
            line += "ERROR " + case["error"].splitlines()[-1]
        else:
            line += (f"outputs {'ok' if case['outputs_match'] else 'DIFFER'}, sass "
                     f"{'ok' if case['sass_ok'] else 'CHANGED'}, occupancy "
                     f"{case['occupancy']['driver_blocks']} vs "
                     f"{case['occupancy']['calculator_blocks']}")
            if m:
                line += (f", ld {p['load_requests']}/{m['load_requests']} req "
                         f"{p['load_wavefronts']}/{m['load_wavefronts']} wf, st "
                         f"{p['store_requests']}/{m['store_requests']} req "
                         f"{p['store_wavefronts']}/{m['store_wavefronts']} wf")
            else:
                line += ", no counters: " + case.get("measure_error", "")
        print(line, flush=True)
        (out_dir / "results.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

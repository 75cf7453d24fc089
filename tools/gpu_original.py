"""Validate imported kernels against nvcc builds of the original CUDA files.

For each case (a .cu, a kernel, the `smemsim import` options): import it, write a harness
that #includes the original file and launches the kernel once the way the imported kernel
says (arrays zeroed, scalars at their defaults), build it with nvcc (-O3, the toolkit's
defaults: no pragma is added), and compare ncu's counters with `analyze --as-compiled` of the
imported kernel (instructions exactly, wavefronts never below).

    python3 tools/gpu_original.py OUT_DIR   (on a machine with a GPU, nvcc and ncu)

A validation driver, not part of the library.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def harness(cu: pathlib.Path, name: str, kernel, launch, defines: dict) -> str:
    """C++ that launches the original kernel once as `launch` says."""
    from smemsim.cuda_import import signature
    arrays = {g.name: g for g in kernel.globals}
    lines = [f'#include "{cu.resolve()}"', "#include <cstdio>", "int main()", "{"]
    args = []
    for pname, pointer in signature(str(cu), name):
        if pointer:
            g = arrays[pname]
            n = int(launch.lengths[pname])
            lines += [f"    {g.dtype.c_name}* {pname}_d;",
                      f"    cudaMalloc(&{pname}_d, {n}ull * sizeof({g.dtype.c_name}));",
                      f"    cudaMemset({pname}_d, 0, {n}ull * sizeof({g.dtype.c_name}));"]
            args.append(f"{pname}_d")
        else:
            args.append(repr(launch.params[pname]))
    g, b = launch.grid, launch.block
    lines += [f"    {name}<<<dim3({g[0]}, {g[1]}, {g[2]}), dim3({b[0]}, {b[1]}, {b[2]}), "
              f"{launch.dynamic_smem}>>>({', '.join(args)});",
              "    cudaError_t e = cudaDeviceSynchronize();",
              '    if (e != cudaSuccess) { printf("%s\\n", cudaGetErrorString(e)); return 1; }',
              "    return 0;", "}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    from gpu_backend.as_compiled import analyze_as_compiled
    from gpu_backend.measure import compare_counts, measure_command
    from kernels_ir import resolve_launch
    from smemsim.loader import load_kernels
    from test_cuda_import import IMPORTED
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for fixture, (cu_name, key, options) in sorted(IMPORTED.items()):
        cu = ROOT / "tests" / "cuda" / cu_name
        kernel = load_kernels(str(cu), options)[key]()
        launch = resolve_launch(kernel)
        exe = out / f"{cu.stem}_{key}"
        src = exe.with_suffix(".cu")
        src.write_text(harness(cu, key, kernel, launch, options.defines))
        # every kernel of the file must compile: the defines of all its cases
        defines = {k: v for _, (name, _, o) in IMPORTED.items() if name == cu_name
                   for k, v in o.defines.items()}
        flags = [f"-D{k}={v}" for k, v in defines.items()]
        build = subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-lineinfo", *flags, "-o",
                                str(exe), str(src)], capture_output=True, text=True)
        case = {"cu": cu_name, "kernel": key}
        if build.returncode:
            case["error"] = build.stderr[-2000:]
        else:
            report = analyze_as_compiled(kernel)
            measured = measure_command([str(exe)], key)
            agreement = compare_counts(report, measured)
            case.update(counters_ok=agreement.ok, compiler=list(report.compiler),
                        counters=[dataclasses.asdict(c) for c in agreement.checks])
        results.append(case)
        line = f"{key} ({cu_name}): " + ("BUILD FAILED" if "error" in case else
                                         f"counters {'ok' if case['counters_ok'] else 'DISAGREE'}"
                                         ": " + "; ".join(f"{c['what']} {c['predicted']}/"
                                                          f"{c['measured']}"
                                                          for c in case["counters"]))
        print(line, flush=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

"""Regenerate the tables of docs/examples.md from the examples, NVRTC and the last GPU run.

    python3 tools/make_examples_doc.py docs/validation/h200-2026-11-21-run2.json > /tmp/t.md
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpu_backend.compile import compile_kernel  # noqa: E402
from tools.gpu_validate import CASES  # noqa: E402
from kernels_ir import resolve_launch  # noqa: E402
from smemsim.launch.analysis import analyze  # noqa: E402
from smemsim.frontends.loader import input_arrays, load_kernels, select  # noqa: E402
from smemsim.launch.occupancy import kernel_occupancy  # noqa: E402


def occupancy_cell(kernel, arch):
    c = compile_kernel(kernel, arch)
    o = kernel_occupancy(kernel, arch, c.registers, static_smem=c.static_smem)
    return (f"{o.active_warps}/{o.max_warps_per_sm} warps ({o.occupancy:.0%}), "
            f"{c.registers} regs, {', '.join(o.limiters)}")


def summary(gpu):
    """One row per example: totals, occupancy, GPU predicted / measured."""
    print("| example | sites | load wavefronts (ideal, excess) | store wavefronts (ideal, excess)"
          " | occupancy sm_90 | occupancy sm_80 | GPU wavefronts ld / st (pred / meas) |")
    print("|---|---|---|---|---|---|---|")
    for file, key in CASES:
        if file.startswith("tests/"):
            continue
        path = str(ROOT / file)
        kernel = next(iter(select(load_kernels(path), key).values()))()
        r = analyze(kernel, arrays=input_arrays(path, key, resolve_launch(kernel)))
        g = gpu.get((file, key), {})
        m, p = g.get("measured"), g.get("predicted")
        meas = (f"{p['load_wavefronts']:,} / {m['load_wavefronts']:,}; "
                f"{p['store_wavefronts']:,} / {m['store_wavefronts']:,}") if m else "-"
        print(f"| {kernel.name} | {len(r.sites)} | {r.load.wavefronts:,} ({r.load.ideal:,}, "
              f"{r.load.excess:,}) | {r.store.wavefronts:,} ({r.store.ideal:,}, "
              f"{r.store.excess:,}) | {occupancy_cell(kernel, 'sm_90')} | "
              f"{occupancy_cell(kernel, 'sm_80')} | {meas} |")
    print()


def main():
    gpu = {(c["file"], c["kernel"]): c for c in json.loads(
        pathlib.Path(sys.argv[1]).read_text())["cases"]}
    summary(gpu)
    for file, key in CASES:
        if file.startswith("tests/"):
            continue
        path = str(ROOT / file)
        kernel = next(iter(select(load_kernels(path), key).values()))()
        launch = resolve_launch(kernel)
        r = analyze(kernel, arrays=input_arrays(path, key, launch))
        params = ", ".join(f"{k}={v}" for k, v in launch.params.items())
        print(f"### {kernel.name} (`{file}`, `{key}`)\n")
        print(f"Launch: {params}; grid {launch.grid}, block {launch.block}.\n")
        if r.sites:
            print("| site | line | access | requests | wavefronts | ideal | excess |")
            print("|---|---|---|---|---|---|---|")
            for s in r.sites:
                star = " (data-dependent)" if s.data_dependent else ""
                print(f"| {s.site} | {s.loc.line} | `{s.statement}`{star} | {s.requests:,} | "
                      f"{s.wavefronts:,} | {s.ideal:,} | {s.excess:,} |")
        else:
            print("No shared-memory access: nothing for the bank analysis to report.")
        print(f"\nOccupancy: sm_90 {occupancy_cell(kernel, 'sm_90')}; "
              f"sm_80 {occupancy_cell(kernel, 'sm_80')}.\n")
        g = gpu.get((file, key))
        if g and g.get("measured"):
            p, m = g["predicted"], g["measured"]
            print(f"GPU ({g['device']}): outputs {'match' if g['outputs_match'] else 'DIFFER'}; "
                  f"loads {p['load_requests']:,} / {m['load_requests']:,} requests, "
                  f"{p['load_wavefronts']:,} / {m['load_wavefronts']:,} wavefronts; stores "
                  f"{p['store_requests']:,} / {m['store_requests']:,} requests, "
                  f"{p['store_wavefronts']:,} / {m['store_wavefronts']:,} wavefronts "
                  "(predicted / measured).\n")


if __name__ == "__main__":
    main()

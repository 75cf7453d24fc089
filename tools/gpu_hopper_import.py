"""Run the user's own Hopper CUDA (nvcc's build, its own host code) on a GPU and hold the
imported kernels to it: the outputs bit for bit against the interpreter, and Nsight's TMA
and gmma counters against `analyze`.

    python3 tools/gpu_hopper_import.py device OUT   (on the GPU machine: nvcc, run, ncu)
    python3 tools/gpu_hopper_import.py generated OUT (GPU machine, tree-sitter on the path:
                                          the imports' regenerated CUDA vs the interpreter)
    python3 tools/gpu_hopper_import.py compare OUT  (here: import, interpret, compare)

Cases: tests/cuda/wgmma_tile.cu as written, with -D FORGET_SWIZZLE and -D BASE_OFFSET=1, and
its raw-PTX form tests/cuda/wgmma_tile_ptx.cu,
and fast.cu's kernels 2 to 7 (tests/corpus/fast_cu/) through their own runKernelN (4 to 7
are warp-specialized: a producer warpgroup and one or two consumer warpgroups; 6 and 7 are
persistent, their 128 blocks taking tiles from a Schedule struct, at 2048^3: the schedule
needs M / 128 a multiple of 16 and N / 256 of 8; 7 has raw-PTX barriers and 5-D tensor
maps).
The harnesses are tools/hopper_harness/ (tile.cu; fast.cu with prelude.h and the kernel file
given by -include). A validation driver, not part of the library.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

OUTPUT_SIZE = 256      # outputs compared at this size; counters measured at COUNTER_SIZE
COUNTER_SIZE = 1024
SIZES = {"fast6": (2048, 2048), "fast7": (2048, 2048)}   # (output, counter) sizes of a
# case that needs its own


def sizes(case: str) -> tuple[int, int]:
    return SIZES.get(case, (OUTPUT_SIZE, COUNTER_SIZE))
HARNESS = ROOT / "tools" / "hopper_harness"


def _fast(n: int) -> list[str]:
    """fast.cu's harness flags for kernel n: matmul.cu's prelude, the kernel file, its host
    function (kernel 3 on takes a debug buffer)."""
    return ["-include", str(HARNESS / "prelude.h"),
            "-include", str(ROOT / "tests" / "corpus" / "fast_cu" / f"matmul_{n}.cuh"),
            f"-DRUN_KERNEL=runKernel{n}", *(["-DWITH_DB"] if n > 2 else [])]


def _tile(name: str) -> list[str]:
    return ["-include", str(ROOT / "tests" / "cuda" / f"{name}.cu")]


CASES = {"tile": ("tile.cu", _tile("wgmma_tile")),
         "tile_forget_swizzle": ("tile.cu", _tile("wgmma_tile") + ["-DFORGET_SWIZZLE"]),
         "tile_base_offset1": ("tile.cu", _tile("wgmma_tile") + ["-DBASE_OFFSET=1"]),
         "tile_ptx": ("tile.cu", _tile("wgmma_tile_ptx")),
         **{f"fast{n}": ("fast.cu", _fast(n)) for n in (2, 3, 4, 5, 6, 7)}}
if os.environ.get("HOPPER_CASES"):   # `HOPPER_CASES=fast6,tile`: only those
    CASES = {c: CASES[c] for c in os.environ["HOPPER_CASES"].split(",")}
METRICS = ["smsp__sass_inst_executed_op_shared_gmma.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
           "sm__sass_inst_executed_op_tma_ld.sum",
           "l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum"]


def inputs(size: int, case: str):
    """The two input matrices as 16-bit storage (small integers: every product exact)."""
    from kernels_ir import bf16, f16, to_storage
    rng = np.random.default_rng(size)
    a = rng.integers(-3, 4, (size, size)).astype(np.float32)
    b = rng.integers(-3, 4, (size, size)).astype(np.float32)
    dtype = bf16 if case.startswith("fast") else f16
    return to_storage(a.ravel(), dtype), to_storage(b.ravel(), dtype)


def device(out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    folder = HARNESS
    results, outputs = {}, {}
    for case, (source, flags) in CASES.items():
        exe = out / case
        build = subprocess.run(["nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "-O3",
                                "-std=c++17", *flags, "-o", str(exe), str(folder / source),
                                "-lcuda"], capture_output=True, text=True)
        if build.returncode:
            results[case] = {"error": build.stderr[-1500:]}
            print(case, "BUILD FAILED", build.stderr[-600:], flush=True)
            continue
        got = {}
        output_size, counter_size = sizes(case)
        for size in (output_size, counter_size):
            a, b = inputs(size, case)
            a.tofile(out / f"{case}_{size}_a.bin")
            b.tofile(out / f"{case}_{size}_b.bin")
        args = [str(exe), str(output_size), str(out / f"{case}_{output_size}_a.bin"),
                str(out / f"{case}_{output_size}_b.bin"), str(out / f"{case}_C.bin")]
        ran = subprocess.run(args, capture_output=True, text=True)
        got["run"] = ran.returncode, ran.stdout[-500:]
        if ran.returncode == 0:
            outputs[case] = np.fromfile(out / f"{case}_C.bin", dtype=np.uint16 if
                                        case.startswith("fast") else np.float32)
        ncu = subprocess.run(["ncu", "--clock-control", "none", "--csv", "--metrics",
                              ",".join(METRICS), str(exe), str(counter_size),
                              str(out / f"{case}_{counter_size}_a.bin"),
                              str(out / f"{case}_{counter_size}_b.bin"),
                              str(out / f"{case}_big.bin")], capture_output=True, text=True)
        counters = {}
        for line in ncu.stdout.splitlines():
            cells = [c.strip('"') for c in line.split('","')]
            if len(cells) > 3 and cells[-3] in METRICS:
                counters[cells[-3]] = float(cells[-1].replace(",", ""))
        got["counters"] = counters
        if not counters:
            got["ncu"] = (ncu.stdout + ncu.stderr)[-1500:]
        results[case] = got
        print(case, got["run"][0], counters, flush=True)
    np.savez_compressed(out / "outputs.npz", **outputs)   # one file: at most 8 come back
    for f in [*out.glob("*.bin"), *(out / case for case in CASES)]:
        f.unlink(missing_ok=True)
    (out / "hopper.json").write_text(json.dumps(results, indent=1))


def imported(case: str, size: int):
    """The case's kernel as tests/test_cuda_hopper.py imports it (the same options)."""
    import test_cuda_hopper as t
    if case == "fast6":
        import test_cuda_structs
        return test_cuda_structs.fast6(size, size, size)
    if case == "fast7":
        return t.fast7(size, size, size)
    if case.startswith("fast"):
        return {"fast2": t.fast2, "fast3": t.fast3, "fast4": t.fast4,
                "fast5": t.fast5}[case](size)
    if case == "tile_ptx":
        return t.tile_ptx(size)
    return t.tile(size, **({"FORGET_SWIZZLE": 1} if case == "tile_forget_swizzle" else
                           {"BASE_OFFSET": 1} if case == "tile_base_offset1" else {}))


def generated(out: pathlib.Path) -> None:
    """On the GPU machine (tree-sitter given on PYTHONPATH): each imported kernel as the CUDA
    smemsim regenerates from it, run by gpu_backend against the interpreter (the codegen of
    what the importer reads: shaped and sub-array accumulators, an aligned dynamic region)."""
    from gpu_backend.device import run_on_gpu
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for case in CASES:
        a, b = inputs(sizes(case)[0], case)
        try:
            r = run_on_gpu(imported(case, sizes(case)[0]), {}, {"A": a, "B": b})
            lines.append(f"{case}: regenerated CUDA vs interpreter: "
                         f"{'equal' if not r.mismatches else r.mismatches}; "
                         f"{r.registers} registers, {r.static_smem} B static")
        except Exception as err:  # noqa: BLE001 - one case's failure is its result
            lines.append(f"{case}: ERROR {type(err).__name__}: {str(err)[-600:]}")
        print(lines[-1], flush=True)
    (out / "generated.txt").write_text("\n".join(lines) + "\n")


def compare(out: pathlib.Path) -> None:
    from kernels_ir import run
    from smemsim import analyze
    measured = json.loads((out / "hopper.json").read_text())
    for case in CASES:
        m = measured.get(case, {})
        if "error" in m or m.get("run", [1])[0] != 0:
            print(f"{case}: no GPU result ({m.get('error') or m.get('run')})")
            continue
        output_size, counter_size = sizes(case)
        a, b = inputs(output_size, case)
        mine = run(imported(case, output_size), {}, {"A": a, "B": b})["C"]
        gpu = np.load(out / "outputs.npz")[case]
        same = np.array_equal(mine.view(gpu.dtype) if mine.dtype != gpu.dtype else mine, gpu)
        r = analyze(imported(case, counter_size))
        predicted = {
            METRICS[0]: sum(s.requests for s in r.sites if s.op == "wgmma"),
            METRICS[1]: sum(s.wavefronts for s in r.sites if s.op == "wgmma"),
            METRICS[2]: sum(s.tma.instructions for s in r.sites if s.tma is not None),
            METRICS[3]: sum(s.tma.bytes for s in r.sites if s.tma is not None)}
        counters = m.get("counters", {})
        print(f"{case}: output {'equal' if same else 'DIFFERENT'} "
              f"({output_size}^3, counters at {counter_size}^3); " + "; ".join(
                  f"{k.split('__')[1]} {predicted[k]:,}/{counters.get(k, float('nan')):,.0f}"
                  for k in METRICS))


if __name__ == "__main__":
    {"device": device, "generated": generated,
     "compare": compare}[sys.argv[1]](pathlib.Path(sys.argv[2]))

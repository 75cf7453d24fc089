"""How much of the PTX corpus (tests/corpus_ptx) `--frontend ptx` reads as written.

For each numba file of the corpus, its kernels with shared memory, as `smemsim analyze
FILE.py` reads them (launches and values from the file). For each nvcc entry of
tests/corpus_ptx/corpus.json and each of its first N kernels with
shared memory (`kernels_using_shared`), the kernel is read through the PTX frontend with
the entry's own build flags only (its `-I`, `-D` and other nvcc flags: no launch, no value)
and analyzed with its defaults. Each is one of:

    ok       analyzed
    asks     asks for what the host computes at run time (a launch, a parameter's value);
             then the kernel is lowered with a stand-in launch (one block of 128 threads) to
             say whether its PTX is read (`lowers`) or refused, which the question hides
    refused  a located refusal of what is not lowered yet (PTX line and instruction named)
    fault    the kernel faults as read (an out-of-bounds access: a length the host did not say)
    error    anything else (a bug to fix)

    python3 tools/ptx_corpus_status.py [-n N] [--json OUT] [SUBSTRING ...]

A status report, not part of the library.
"""
from __future__ import annotations

import collections
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus_ptx"
sys.path.insert(0, str(ROOT))

ASKS = ("has no value", "give --launch", "no launch of", "give its value", "--length",
        "give it with --host", "give its grid with --launch-grid", "with --launch-grid",
        "name one as listed with --kernel", "instances of")


def options_of(entry: dict):
    """(smemsim.frontends.cuda.Options, nvcc flags) of an entry's own build."""
    from smemsim.frontends.cuda import Options
    defines, includes, flags = {}, [str((CORPUS / entry["file"]).parent)], []
    for f in entry.get("nvcc_flags") or []:
        if f.startswith("-D"):
            name, _, value = f[2:].partition("=")
            defines[name] = value or "1"   # (as -DNAME: 1)
        elif f.startswith("-I"):
            includes.append(str(CORPUS / f[2:]))
        else:
            flags.append(f)
    return Options(defines=defines, include_dirs=includes), flags


# the launch each entry's library makes of its first kernel with shared memory (its host
# code elsewhere in the repository): what the GPU validation runs, tools/gpu_dsl.py
LAUNCHES = CORPUS / "launches.json"


def launches(path: str | pathlib.Path | None = None) -> dict:
    """file -> the launch launches.json (or the file at `path`) gives its first kernel with
    shared memory: kernel, grid, block, smem, params, lengths, origin."""
    path = pathlib.Path(path or os.environ.get("SMEMSIM_CORPUS_LAUNCHES") or LAUNCHES)
    return json.loads(path.read_text())["launches"] if path.is_file() else {}


def launched_options(entry: dict, launch: dict):
    """(Options, nvcc flags) of an entry's build with the launch its library makes."""
    import dataclasses
    opts, flags = options_of(entry)
    return dataclasses.replace(
        opts, grid=str(launch["grid"]), block=str(launch["block"]),
        smem=str(launch.get("smem", 0)), params=dict(launch.get("params", {})),
        lengths={k: str(v) for k, v in launch.get("lengths", {}).items()}), flags


def classify(err: Exception) -> str:
    from kernels_ir import KernelRuntimeError
    from smemsim.frontends.ptx.parse import PtxError
    text = str(err)
    if isinstance(err, KernelRuntimeError):
        return "fault"
    if isinstance(err, PtxError) and "PTX line" in text:
        return "refused"
    if any(a in text for a in ASKS):
        return "asks"
    return "error"


def status(entry: dict, key: str) -> tuple[str, str, float]:
    """(outcome, detail, seconds) of one kernel of an entry."""
    from smemsim import analyze
    from smemsim.frontends.ptx.frontend import import_cu
    opts, flags = options_of(entry)
    start = time.perf_counter()
    try:
        kernels = import_cu(str(CORPUS / entry["file"]), opts, key, flags=flags)
        kernel = next(iter(kernels.values()))()
        r = analyze(kernel, dict(kernel.defaults))
        detail = (f"ld {r.load.requests:,}/{r.load.wavefronts:,} "
                  f"st {r.store.requests:,}/{r.store.wavefronts:,}")
        return "ok", detail, time.perf_counter() - start
    except Exception as err:  # noqa: BLE001 - each kernel's outcome is the report
        outcome, detail = classify(err), " ".join(str(err).split())[:300]
    if outcome == "asks":
        lowered, why = lowering(entry, key)
        outcome += "/" + lowered
        detail = why or detail
    return outcome, detail, time.perf_counter() - start


def numba_status(path: pathlib.Path) -> list[tuple[str, str, str, float]]:
    """(kernel, outcome, detail, seconds) of each numba kernel of a corpus `.py`, as
    `smemsim analyze FILE.py` reads it (its launches, no option)."""
    from smemsim import analyze
    from smemsim.frontends.ptx.numba_frontend import import_numba
    out = []
    for key, make in import_numba(str(path)).items():
        start = time.perf_counter()
        outcome, detail = _analyzed(make, analyze)
        out.append((key, outcome, detail, time.perf_counter() - start))
    return out


def _analyzed(make, analyze) -> tuple[str, str]:
    """(outcome, detail) of building a kernel and analyzing it at its defaults."""
    try:
        kernel = make()
        r = analyze(kernel, dict(kernel.defaults))
    except Exception as err:  # noqa: BLE001 - each kernel's outcome is the report
        return classify(err), " ".join(str(err).split())[:300]
    return ("ok" if r.sites else "ok/no shared",
            f"ld {r.load.requests:,}/{r.load.wavefronts:,} "
            f"st {r.store.requests:,}/{r.store.wavefronts:,}")


def _with_stand_in(outcome: str, detail: str, build) -> tuple[str, str]:
    """A kernel that asked, built again with stand-in values (`build()`): `asks/lowers`, or
    `asks/` and why it is still not read."""
    try:
        build()
    except Exception as err:  # noqa: BLE001 - the outcome is the report
        kind = classify(err)   # (one that still asks: lowered, its question the detail)
        return (f"{outcome}/{'lowers' if kind == 'asks' else kind}",
                " ".join(str(err).split())[:300])
    return f"{outcome}/lowers", detail


def strings_status(path: pathlib.Path) -> list[tuple[str, str, str, float]]:
    """(kernel, outcome, detail, seconds) of each kernel a corpus pycuda/cupy program fetches,
    as `smemsim analyze FILE.py --frontend ptx` reads it; where it asks, again with a stand-in
    launch (grid 4, block 128)."""
    import dataclasses

    from smemsim import analyze
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.strings_frontend import import_strings
    out = []
    for key, make in import_strings(str(path)).items():
        start = time.perf_counter()
        outcome, detail = _analyzed(make, analyze)
        if outcome == "asks":
            opts = dataclasses.replace(Options(), grid="4", block="128")
            outcome, detail = _with_stand_in(
                outcome, detail, lambda: import_strings(str(path), opts, key)[key]())
        out.append((key, outcome, detail, time.perf_counter() - start))
    return out


# what the Triton tutorials' own host code gives their kernels at run time (the tensors
# made at module level and passed into the function that launches; the first of the
# matmul's autotune configurations for CUDA; the softmax's stages for an H100-class GPU and
# its grid: the SM count, 132): the stand-ins with which `asks` is followed to `lowers`
TRITON_STAND_INS = {
    "02-fused-softmax.py": {"hosts": {"x": "float32[1823,781]", "num_stages": "4"},
                            "grid": "132"},
    "03-matrix-multiplication.py": {"hosts": {
        "a": "float16[512,512]", "b": "float16[512,512]", "activation": "''",
        "BLOCK_SIZE_M": "128", "BLOCK_SIZE_N": "256", "BLOCK_SIZE_K": "64",
        "GROUP_SIZE_M": "8", "num_warps": "8", "num_stages": "3"}},
}


def triton_status(path: pathlib.Path) -> list[tuple[str, str, str, float]]:
    """(kernel, outcome, detail, seconds) of each launched Triton kernel of a corpus `.py`:
    read as written, then (where it asks) with the tutorial's own run-time values."""
    import dataclasses

    from smemsim import analyze
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.triton_frontend import import_triton
    out = []
    stand_in = TRITON_STAND_INS.get(path.name, {})
    for key, make in import_triton(str(path)).items():
        start = time.perf_counter()
        try:
            kernel = make()
            r = analyze(kernel, dict(kernel.defaults))
            outcome = "ok"
            detail = f"ld {r.load.requests:,}/{r.load.wavefronts:,}"
        except Exception as err:  # noqa: BLE001 - each kernel's outcome is the report
            outcome, detail = classify(err), " ".join(str(err).split())[:300]
            if outcome == "asks" and stand_in:
                opts = dataclasses.replace(Options(), hosts=dict(stand_in["hosts"]),
                                           grid=stand_in.get("grid"))
                outcome, detail = _with_stand_in(
                    outcome, detail, lambda: import_triton(str(path), opts, key)[key]())
        out.append((key, outcome, detail, time.perf_counter() - start))
    return out


def lowering(entry: dict, key: str) -> tuple[str, str]:
    """Whether the kernel's PTX is read, with a stand-in launch: (lowers, refused or error;
    why not)."""
    import dataclasses

    from smemsim.frontends.ptx.frontend import import_cu
    opts, flags = options_of(entry)
    opts = dataclasses.replace(opts, grid="1", block="128", smem="0")
    try:
        next(iter(import_cu(str(CORPUS / entry["file"]), opts, key, flags=flags).values()))()
        return "lowers", ""
    except Exception as err:  # noqa: BLE001
        kind = classify(err)
        return ("lowers", "") if kind == "asks" else (kind, " ".join(str(err).split())[:300])


def _has(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


def main(argv: list[str]) -> int:
    n = int(argv[argv.index("-n") + 1]) if "-n" in argv else 2
    out = argv[argv.index("--json") + 1] if "--json" in argv else None
    words = [a for i, a in enumerate(argv) if not a.startswith("-") and
             (i == 0 or argv[i - 1] not in ("-n", "--json"))]
    entries = [e for e in json.loads((CORPUS / "corpus.json").read_text())["entries"]
               if not e.get("dsl") and e.get("ptx_ok") and e.get("kernels_using_shared")]
    if words:
        entries = [e for e in entries if any(w in e["file"] for w in words)]
    rows, per_entry = [], {}
    for e in entries:
        for key in e["kernels_using_shared"][:n]:
            outcome, detail, seconds = status(e, key)
            rows.append({"file": e["file"], "kernel": key, "outcome": outcome,
                         "detail": detail, "seconds": round(seconds, 2)})
            print(f"{outcome:8} {seconds:6.1f}s {e['file']} | {key[:70]} | {detail[:160]}",
                  flush=True)
            per_entry.setdefault(e["file"], []).append(outcome)
    for path in sorted((CORPUS / "numba").rglob("*.py")):   # numba's, read as written
        if words and not any(w in str(path) for w in words):
            continue
        file = str(path.relative_to(CORPUS))
        for key, outcome, detail, seconds in numba_status(path):
            if outcome == "ok/no shared":
                continue
            rows.append({"file": file, "kernel": key, "outcome": outcome, "detail": detail,
                         "seconds": round(seconds, 2)})
            print(f"{outcome:8} {seconds:6.1f}s {file} | {key} | {detail[:160]}", flush=True)
            per_entry.setdefault(file, []).append(outcome)
    dsl = [("pycuda", strings_status)] + ([("triton", triton_status)] if _has("triton")
                                          else [])
    for folder, status_of in dsl:
        for path in sorted((CORPUS / folder).rglob("*.py")):
            if words and not any(w in str(path) for w in words):
                continue
            file = str(path.relative_to(CORPUS))
            for key, outcome, detail, seconds in status_of(path):
                rows.append({"file": file, "kernel": key, "outcome": outcome,
                             "detail": detail, "seconds": round(seconds, 2)})
                print(f"{outcome:8} {seconds:6.1f}s {file} | {key} | {detail[:160]}",
                      flush=True)
                per_entry.setdefault(file, []).append(outcome)
    kernels = collections.Counter(r["outcome"] for r in rows)
    print("reasons refused or in error:")
    for reason, count in collections.Counter(
            r["detail"].split("): ")[-1][:90] for r in rows
            if r["outcome"].split("/")[-1] in ("refused", "error", "fault")).most_common():
        print(f"  {count:3} {reason}")
    # an entry reads when its first kernel analyzes or only asks for a run-time value
    files = collections.Counter(outcomes[0] for outcomes in per_entry.values())
    print(f"kernels: {dict(kernels)}; entries by their first kernel: {dict(files)}; "
          f"ok, or asks and lowers: {files['ok'] + files['asks/lowers']} of "
          f"{len(per_entry)}")
    if out:
        pathlib.Path(out).write_text(json.dumps({"kernels": dict(kernels),
                                                 "entries": dict(files), "rows": rows},
                                                indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

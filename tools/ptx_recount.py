"""The PTX frontend against counters a GPU already measured on the corpus's original files.

For each case of the given results files (`tools/gpu_original.py run` on the corpus: each
original `.cu` built by nvcc, launched once with zeroed arrays, ncu's counters), the kernel
is read through `--frontend ptx` (nvcc's PTX of the same file, flags and macros, with
ptxas's merges from the SASS of that PTX), analyzed with zeroed arrays, and its counters are
judged as the run judged them (gpu_backend.measure.compare_counts: instructions exactly,
wavefronts never below). The builds are the same, so the measurements stand.

    python3 tools/ptx_recount.py OUT.json RESULTS.json [RESULTS.json ...] [-k SUBSTRING]
                                 [-I DIR]

Later results files win for a case measured twice. `-I DIR`: headers the GPU machine's
harness builds had beside the corpus (cuda-samples' Common folder: helper_functions.h,
helper_image.h, ...; cuBLAS's headers, from the nvidia-cublas wheel's include folder),
searched before this tool's stand-ins. A validation driver, not part of the
library; no GPU needed.
"""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        # (its first argument is the output: `--help` must not become a file's name)
        print(__doc__)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    from smemsim import analyze
    from smemsim.frontends.ptx.frontend import import_cu
    from test_original_build import CUBLAS_STANDIN
    from tools.corpus_status import options
    from tools.gpu_original import judged, torch_includes, zeroed
    only = argv[argv.index("-k") + 1] if "-k" in argv else None
    extra = [os.path.abspath(argv[n + 1]) for n, a in enumerate(argv)
             if a == "-I" and n + 1 < len(argv)]
    argv = [a for n, a in enumerate(argv) if a not in ("-k", "-I") and
            (n == 0 or argv[n - 1] not in ("-k", "-I"))]
    out, results = pathlib.Path(argv[0]), argv[1:]
    measured: dict = {}
    for path in results:
        stored = json.loads(pathlib.Path(path).read_text())
        for case in stored if isinstance(stored, list) else stored.get("cases", []):
            if "cu" in case and "counters" in case:
                measured[(case["cu"], case.get("key") or case["kernel"])] = case
    entries = {(e["file"], e["kernel"]): e for e in json.loads(
        (ROOT / "tests" / "corpus" / "corpus.json").read_text())["entries"]
        if "refused" not in e and "fault" not in e}
    stubs = pathlib.Path(tempfile.mkdtemp(prefix="smemsim-recount-"))
    for name, text in CUBLAS_STANDIN.items():
        (stubs / name).write_text("#pragma once\n" + text)
    rows, agree = [], 0
    for (cu, key), case in sorted(measured.items()):
        if only and only not in cu + key:
            continue
        entry = entries.get((cu, key))
        row = {"cu": cu, "key": key}
        if entry is None:
            row["error"] = "no corpus entry"
            rows.append(row)
            continue
        opts = options(entry)
        # (torch's headers where the file includes them: those of the torch this Python
        # imports, as the harness's build had them)
        opts = dataclasses.replace(opts, include_dirs=[*opts.include_dirs, *extra, str(stubs),
                                                       *(str(ROOT / d) for d in
                                                         case.get("includes", [])),
                                                       *torch_includes(case)])
        flags = [f for f in case.get("flags", [])]
        start = time.perf_counter()
        try:
            kernel = import_cu(str(ROOT / "tests" / "corpus" / cu), opts, key,
                               flags=flags)[key]()
            report = analyze(kernel, arrays=zeroed(kernel))
        except Exception as err:  # noqa: BLE001 - one case's failure is its result
            row["error"] = f"{type(err).__name__}: {err}"[:600]
            print(f"{key} ({cu}): ERROR {row['error'][:300]}", flush=True)
            rows.append(row)
            continue
        checks = judged(report, case["counters"])
        ok = all(c.ok for c in checks)
        agree += ok
        row.update(ok=ok, notes=list(kernel.notes), seconds=round(time.perf_counter() - start, 2),
                   counters=[dataclasses.asdict(c) for c in checks],
                   as_compiled_ok=case.get("counters_ok"))
        print(f"{key} ({cu}): {'ok' if ok else 'DISAGREE'} "
              f"[as-compiled {'ok' if case.get('counters_ok') else 'disagreed'}] " +
              "; ".join(f"{c.what} {c.predicted}/{c.measured}" for c in checks if not c.ok)
              + "".join(f"\n    {n}" for n in kernel.notes), flush=True)
        rows.append(row)
    out.write_text(json.dumps({"agree": agree, "cases": rows}, indent=1))
    print(f"{agree} of {len(rows)} agree with the measured counters")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

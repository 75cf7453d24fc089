"""Nsight Compute in a subprocess: the shared-memory counters of one launch.

`ncu --csv --print-units base --clock-control none` (never changing the GPU's clocks) runs
`python3 -m gpu_backend.target FILE KERNEL PARAMS`, which launches the kernel once.
"""
from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass

METRICS = {
    "load_requests": "smsp__sass_inst_executed_op_shared_ld.sum",
    "store_requests": "smsp__sass_inst_executed_op_shared_st.sum",
    "load_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "store_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "load_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "store_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}


class MeasureError(RuntimeError):
    """ncu is missing, has no counter permission, or failed; the message says which."""


@dataclass(frozen=True)
class Measured:
    """Nsight Compute's shared-memory counters for one launch."""

    load_requests: int
    store_requests: int
    load_wavefronts: int
    store_wavefronts: int
    load_conflicts: int
    store_conflicts: int


def measure(file: str, kernel_key: str, params: dict, kernel_name: str,
            timeout: int = 300) -> Measured:
    """Profile one launch of a kernel from a kernels file."""
    ncu = shutil.which("ncu")
    if ncu is None:
        raise MeasureError("ncu (Nsight Compute) is not on PATH: the counters cannot be read")
    cmd = [ncu, "--csv", "--print-units", "base", "--clock-control", "none",
           "--kernel-name", kernel_name, "--metrics", ",".join(METRICS.values()),
           sys.executable, "-m", "gpu_backend.target", file, kernel_key, json.dumps(params)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    text = proc.stdout
    if "ERR_NVGPUCTRPERM" in text + proc.stderr:
        raise MeasureError("ncu has no permission to read the GPU's counters "
                           "(ERR_NVGPUCTRPERM)")
    rows = [r for r in csv.reader(io.StringIO("\n".join(
        line for line in text.splitlines() if line.startswith('"'))))]
    if not rows:
        raise MeasureError(f"ncu printed no metrics (exit {proc.returncode}): "
                           f"{(proc.stderr or text)[-2000:]}")
    header, body = rows[0], rows[1:]
    name_col, value_col = header.index("Metric Name"), header.index("Metric Value")
    values = {}
    for r in body:
        values[r[name_col]] = int(float(r[value_col].replace(",", "")))
    missing = [m for m in METRICS.values() if m not in values]
    if missing:
        raise MeasureError(f"ncu did not report {missing}")
    return Measured(**{k: values[m] for k, m in METRICS.items()})

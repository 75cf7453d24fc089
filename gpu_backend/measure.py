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


@dataclass(frozen=True)
class CounterCheck:
    """One counter: the prediction, the measurement and whether they agree."""

    what: str            # "load requests", "load wavefronts", ...
    predicted: int
    measured: int
    ok: bool


@dataclass(frozen=True)
class Agreement:
    """How an analysis compares with Nsight Compute for the same launch."""

    kernel: str
    checks: tuple[CounterCheck, ...]

    @property
    def ok(self) -> bool:
        """Every counter agrees."""
        return all(c.ok for c in self.checks)


def compare_counts(report, measured: Measured) -> Agreement:
    """Instructions must equal the prediction exactly; wavefronts may only be above it
    (L1 arbitration with global accesses adds wavefronts the bank model does not know)."""
    checks = []
    for op in ("load", "store"):
        totals = getattr(report, op)
        got_req = getattr(measured, f"{op}_requests")
        got_wf = getattr(measured, f"{op}_wavefronts")
        checks.append(CounterCheck(f"{op} requests", totals.requests, got_req,
                                   got_req == totals.requests))
        checks.append(CounterCheck(f"{op} wavefronts", totals.wavefronts, got_wf,
                                   got_wf >= totals.wavefronts))
    return Agreement(report.kernel, tuple(checks))

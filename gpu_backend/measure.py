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
    # the other instruction classes (ldmatrix/stmatrix wavefronts count in _op_ld/_op_st;
    # cp.async's only in the unsuffixed total, beside _op_misc)
    "ldsm_requests": "smsp__sass_inst_executed_op_ldsm.sum",
    "stsm_requests": "smsp__sass_inst_executed_op_stsm.sum",
    "ldgsts_requests": "smsp__sass_inst_executed_op_ldgsts.sum",
    "atom_requests": "smsp__sass_inst_executed_op_shared_atom.sum",
    "atom_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "shared_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "misc_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum",
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
    ldsm_requests: int
    stsm_requests: int
    ldgsts_requests: int
    atom_requests: int
    atom_wavefronts: int
    shared_wavefronts: int
    misc_wavefronts: int


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
    (L1 arbitration with global accesses adds wavefronts the bank model does not know).

    Loads and stores are always compared; the other instruction classes when either side
    has any. Wavefronts are compared per Nsight counter: `_op_ld` holds LDS and LDSM,
    `_op_st` STS and STSM, `_op_atom` ATOMS; cp.async's are the unsuffixed total less the
    suffixed ones and `_op_misc`.
    """
    predicted = {c: t for c, t in report.classes.items()}
    zero = type(report.load)(0, 0, 0)
    get = lambda c: predicted.get(c, zero)
    m = measured
    checks = []

    def exact(what, p, q):
        checks.append(CounterCheck(what, p, q, p == q))

    def at_least(what, p, q):
        checks.append(CounterCheck(what, p, q, q >= p))
    exact("load requests", get("ld").requests, m.load_requests)
    at_least("load wavefronts", get("ld").wavefronts + get("ldsm").wavefronts, m.load_wavefronts)
    exact("store requests", get("st").requests, m.store_requests)
    at_least("store wavefronts", get("st").wavefronts + get("stsm").wavefronts,
             m.store_wavefronts)
    for c, got in (("ldsm", m.ldsm_requests), ("stsm", m.stsm_requests),
                   ("atom", m.atom_requests), ("ldgsts", m.ldgsts_requests)):
        if c in predicted or got:
            exact(f"{c} requests", get(c).requests, got)
    if "atom" in predicted or m.atom_wavefronts:
        at_least("atom wavefronts", get("atom").wavefronts, m.atom_wavefronts)
    if "ldgsts" in predicted or m.ldgsts_requests:
        rest = m.shared_wavefronts - m.misc_wavefronts - m.load_wavefronts - \
            m.store_wavefronts - m.atom_wavefronts
        at_least("ldgsts wavefronts", get("ldgsts").wavefronts, rest)
    return Agreement(report.kernel, tuple(checks))

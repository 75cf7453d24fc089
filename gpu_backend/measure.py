"""Nsight Compute in a subprocess: the shared-memory counters of one launch.

`ncu --csv --print-units base --clock-control none` (never changing the GPU's clocks) runs
`python3 -m gpu_backend.target FILE KERNEL PARAMS`, which launches the kernel once.
"""
from __future__ import annotations

import csv
import io
import json
import math
import pathlib
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
    "stsm_requests": ("smsp__sass_inst_executed_op_shared_stsm.sum",
                      "smsp__sass_inst_executed_op_stsm.sum"),  # spellings differ by version
    "ldgsts_requests": "smsp__sass_inst_executed_op_ldgsts.sum",
    "atom_requests": "smsp__sass_inst_executed_op_shared_atom.sum",
    "atom_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "shared_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "misc_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum",
    # TMA (docs/tma.md): instructions, bytes read through the TMA pipe, shared bank writes
    "tma_requests": "sm__sass_inst_executed_op_tma_ld.sum",
    "tma_bytes": "l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum",
    "tma_st_requests": "sm__sass_inst_executed_op_tma_st.sum",
    "tma_st_bytes": "l1tex__m_l1tex2xbar_write_bytes_pipe_tma.sum",
    "bank_writes": "l1tex__data_bank_writes.sum",
    # wgmma: instructions (1 per warp per HGMMA, and per wgmma.fence) and operand wavefronts
    "gmma_requests": "smsp__sass_inst_executed_op_shared_gmma.sum",
    "gmma_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
    "gmma_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum",
    # the launch's registers per thread and static shared memory per block, as the driver
    # loaded the cubin
    "registers": "launch__registers_per_thread",
    "static_smem": "launch__shared_mem_per_block_static",
}


class MeasureError(RuntimeError):
    """ncu is missing, has no counter permission, or failed; the message says which."""


@dataclass(frozen=True)
class Measured:
    """Nsight Compute's shared-memory counters for one launch (None: this ncu lacks it)."""

    load_requests: int
    store_requests: int
    load_wavefronts: int
    store_wavefronts: int
    load_conflicts: int
    store_conflicts: int
    ldsm_requests: int | None
    stsm_requests: int | None
    ldgsts_requests: int | None
    atom_requests: int | None
    atom_wavefronts: int | None
    shared_wavefronts: int | None
    misc_wavefronts: int | None
    registers: int | None = None
    tma_requests: int | None = None
    tma_bytes: int | None = None
    tma_st_requests: int | None = None
    tma_st_bytes: int | None = None
    bank_writes: int | None = None
    gmma_requests: int | None = None
    gmma_wavefronts: int | None = None
    gmma_conflicts: int | None = None
    static_smem: int | None = None


_KNOWN: dict[str, set] = {}


def known_metrics(ncu: str) -> set[str]:
    """The metric names this ncu has for the current GPU (`ncu --query-metrics`), cached."""
    if ncu not in _KNOWN:
        proc = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True,
                              timeout=300)
        _KNOWN[ncu] = {line.split()[0] for line in proc.stdout.splitlines() if line.strip()}
    return _KNOWN[ncu]


def _chosen(ncu: str) -> dict[str, str | None]:
    """Per field, the first spelling this ncu knows (None: none of them)."""
    known = known_metrics(ncu)
    out = {}
    for field, names in METRICS.items():
        names = (names,) if isinstance(names, str) else names
        # launch__ metrics (launch statistics) are not in --query-metrics' list, but always
        # there
        out[field] = next((n for n in names if n.rsplit(".", 1)[0] in known or
                           n.startswith("launch__")), None)
    missing = [f for f in ("load_requests", "store_requests", "load_wavefronts",
                           "store_wavefronts") if out[f] is None]
    if missing:
        raise MeasureError(f"this ncu has no metric for {missing}")
    return out


def measure(file: str, kernel_key: str, params: dict, kernel_name: str,
            timeout: int = 300, options=None, arrays: dict | None = None,
            ptx: dict | None = None) -> Measured:
    """Profile one launch of a kernel from a kernels file, or from a CUDA file read with
    `options` (smemsim.frontends.cuda.Options) and `ptx` (smemsim.frontends.loader.load_kernels: the
    architecture and nvcc flags of its build): the profiled process reads it the same way,
    so the program profiled is the CUDA generated from the IR that was predicted; on
    `arrays` (those the prediction used; None: the file's own inputs)."""
    import dataclasses
    import tempfile

    import numpy as np
    argv = [sys.executable, "-m", "gpu_backend.target", file, kernel_key, json.dumps(params),
            json.dumps(None if options is None else dataclasses.asdict(options)),
            json.dumps(None if ptx is None else {**ptx, "flags": list(ptx["flags"])})]
    with tempfile.TemporaryDirectory(prefix="smemsim-inputs-") as folder:
        if arrays is not None:
            for name, data in arrays.items():
                np.save(pathlib.Path(folder) / f"{name}.npy", np.asarray(data),
                        allow_pickle=False)
            argv.append(folder)
        return measure_command(argv, kernel_name, timeout)


def measure_command(argv: list[str], kernel_name: str, timeout: int = 300) -> Measured:
    """Profile the launches of `kernel_name` by a program (a built CUDA file, say)."""
    ncu = shutil.which("ncu")
    if ncu is None:
        raise MeasureError("ncu (Nsight Compute) is not on PATH: the counters cannot be read")
    chosen = _chosen(ncu)
    names = [n for n in chosen.values() if n is not None]
    cmd = [ncu, "--csv", "--print-units", "base", "--clock-control", "none",
           "--kernel-name", kernel_name, "--metrics", ",".join(names), *argv]
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
        # ncu prints "nan" or "n/a" for a counter it could not collect: unmeasured
        try:
            number = float(r[value_col].replace(",", ""))
        except ValueError:
            number = math.nan
        values[r[name_col]] = int(number) if math.isfinite(number) else None
    missing = [m for m in names if m not in values]
    if missing:
        raise MeasureError(f"ncu did not report {missing}")
    required = ("load_requests", "store_requests", "load_wavefronts", "store_wavefronts",
                "load_conflicts", "store_conflicts")
    unread = [chosen[f] for f in required if values.get(chosen[f]) is None]
    if unread:
        raise MeasureError(f"ncu reported no value (nan) for {', '.join(unread)}")
    return Measured(**{f: None if m is None else values[m] for f, m in chosen.items()})


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
    unmeasured: tuple[str, ...] = ()   # predicted counters this ncu could not read

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
    suffixed ones and `_op_misc`. The instructions of a class with a site counted as the
    fewest passes of a retry loop (SiteReport.at_least) may only be above the prediction.
    """
    from smemsim.launch.analysis import NO_ACCESS
    predicted = dict(report.classes)
    get = lambda c: predicted.get(c, NO_ACCESS)
    m = measured
    checks, unmeasured = [], []

    def compare(what, p, q, exact):
        if q is None:
            if p:
                unmeasured.append(what)
            return
        checks.append(CounterCheck(what, p, q, p == q if exact else q >= p))
    bound = {c for s in report.sites if s.at_least for c in s.classes}
    compare("load requests", get("ld").requests, m.load_requests, "ld" not in bound)
    compare("load wavefronts", get("ld").wavefronts + get("ldsm").wavefronts,
            m.load_wavefronts, False)
    compare("store requests", get("st").requests, m.store_requests, "st" not in bound)
    compare("store wavefronts", get("st").wavefronts + get("stsm").wavefronts,
            m.store_wavefronts, False)
    for c in ("ldsm", "stsm", "atom", "ldgsts"):
        got = getattr(m, f"{c}_requests")
        if c in predicted or got:
            compare(f"{c} requests", get(c).requests, got, c not in bound)
    if "atom" in predicted or m.atom_wavefronts:
        compare("atom wavefronts", get("atom").wavefronts, m.atom_wavefronts, False)
    if "ldgsts" in predicted or m.ldgsts_requests:
        parts = (m.shared_wavefronts, m.misc_wavefronts, m.load_wavefronts,
                 m.store_wavefronts, m.atom_wavefronts)
        rest = None if None in parts else parts[0] - sum(parts[1:])
        compare("ldgsts wavefronts", get("ldgsts").wavefronts, rest, False)
    for c, requests, moved in (("tma_ld", m.tma_requests, m.tma_bytes),
                               ("tma_st", m.tma_st_requests, m.tma_st_bytes)):
        # TMA / bulk copies: instructions exactly; global bytes exactly where every row (or
        # 128-byte piece) is whole sectors, else at least. Their bank words (bytes / 4) are
        # not compared: l1tex__data_bank_writes/_reads also count LSU accesses and global
        # stores through L1, which the analysis does not total (docs/tma.md)
        if c in predicted or requests:
            tma = [s.tma for s in report.sites if s.tma is not None and s.tma.direction == c]
            compare(f"{c} requests", get(c).requests, requests, True)
            compare(f"{c} bytes", sum(t.global_bytes for t in tma), moved,
                    all(t.global_bytes_exact for t in tma))
    if "gmma" in predicted or m.gmma_wavefronts:
        # wgmma: wavefronts exactly (bytes / 128), no conflict; Nsight's instruction count
        # adds one per warp per wgmma.fence, which the analysis does not count: at least
        compare("gmma wavefronts", get("gmma").wavefronts, m.gmma_wavefronts, True)
        compare("gmma conflicts", 0, m.gmma_conflicts, True)
        compare("gmma requests", get("gmma").requests, m.gmma_requests, False)
    return Agreement(report.kernel, tuple(checks), tuple(unmeasured))

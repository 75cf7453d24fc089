"""An Nsight Compute report (`.ncu-rep`) as what `smemsim ncu` compares: each profiled
kernel's launch and, per shared-memory SASS instruction, the warp instructions executed and
the wavefronts ncu counted, with the source line ncu correlates it to.

Read with Nsight's own report reader (the `ncu-report` package, `import ncu_report`; an
optional extra). The per-instruction counters are those of the SourceCounters section
(`ncu --section SourceCounters`, or `--set full`): `inst_executed`, `memory_type` (16: shared),
`memory_l1_wavefronts_shared` and its `_ideal`, correlated by program counter; a report
without them is refused, naming the section.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kernels_ir import KernelError

SHARED = 16   # `memory_type` of a shared-memory instruction


@dataclass(frozen=True)
class MeasuredInstruction:
    """One shared-memory SASS instruction of a profiled kernel."""

    offset: int          # bytes from the function's first instruction (nvdisasm's /*0190*/)
    sass: str            # `LDS R9, [R6]`
    opcode: str          # `LDS`
    kind: str            # Nsight's instruction class: ld, st, ldsm, stsm, atom, ldgsts, other
    executed: int        # warp instructions (requests)
    wavefronts: int
    ideal: int
    file: str            # the line ncu correlates it to ("" where the build has no line info)
    line: int


@dataclass(frozen=True)
class MeasuredKernel:
    """One profiled launch of a report."""

    name: str            # the function's name (`transpose`)
    demangled: str       # `transpose(const float *, float *, int)`
    mangled: str         # `_Z9transposePKfPfi`: the PTX entry's symbol
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_smem: int
    static_smem: int
    registers: int
    instructions: tuple[MeasuredInstruction, ...]
    # the kernel's totals where the report has them (smsp__inst_executed_op_shared_ld.sum,
    # ...): counter name -> value
    totals: tuple[tuple[str, float], ...] = ()


# SASS opcode (its first part) -> Nsight's instruction class
_CLASSES = {"LDS": "ld", "STS": "st", "LDSM": "ldsm", "STSM": "stsm", "ATOMS": "atom",
            "LDGSTS": "ldgsts",
            # generic accesses ncu finds in shared memory (nvcc's bf16 wmma loads: LD.E)
            "LD": "ld", "ST": "st", "ATOM": "atom"}
_TOTALS = ("smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")


def instruction_class(opcode: str) -> str:
    """Nsight's class of a shared SASS instruction (`LDS.U16` -> ld, `ATOMS.CAST.SPIN` ->
    atom); `other` for any other."""
    return _CLASSES.get(opcode.split(".")[0], "other")


def read_report(path: str) -> list[MeasuredKernel]:
    """Every profiled kernel of the report at `path`, in the report's order."""
    try:
        import ncu_report
    except ImportError:
        raise KernelError("reading an Nsight Compute report needs Nsight's report reader: "
                          "pip install ncu-report (or pip install 'smemsim[ncu]')") from None
    import os
    if not os.path.isfile(path):
        raise KernelError(f"{path}: no such report file")
    try:
        context = ncu_report.load_report(path)
    except Exception as err:  # noqa: BLE001 - the reader's own failure: the file is not one
        raise KernelError(f"{path}: not an Nsight Compute report ncu_report can read "
                          f"({type(err).__name__}: {err})") from None
    kernels = []
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        for a in range(rng.num_actions()):
            kernels.append(_kernel(ncu_report, rng.action_by_idx(a), path))
    if not kernels:
        raise KernelError(f"{path}: the report holds no profiled kernel")
    return kernels


def _kernel(ncu_report, action, path: str) -> MeasuredKernel:
    """One action of the report as a MeasuredKernel."""
    names = set(action.metric_names())
    if "inst_executed" not in names or "memory_type" not in names:
        raise KernelError(f"{path}: kernel {action.name()} has no per-instruction counters: "
                          "profile with --section SourceCounters (or --set full)")

    def scalar(name: str, default=0):
        if name not in names:
            return default
        m = action.metric_by_name(name)
        return m.as_uint64(0) if m.num_instances() else m.value()

    def by_pc(name: str) -> dict[int, int]:
        if name not in names:
            return {}
        m = action.metric_by_name(name)
        ids = m.correlation_ids()
        return {ids.as_uint64(i): m.as_uint64(i) for i in range(m.num_instances())}
    start = scalar("launch__function_pcs")
    kinds, executed = by_pc("memory_type"), by_pc("inst_executed")
    wavefronts = by_pc("memory_l1_wavefronts_shared")
    ideal = by_pc("memory_l1_wavefronts_shared_ideal")
    instructions = []
    for pc in sorted(pc for pc, kind in kinds.items() if kind == SHARED):
        sass = " ".join(action.sass_by_pc(pc).split())
        opcode = next((w for w in sass.split() if not w.startswith("@")), "")
        where = action.source_info(pc)
        instructions.append(MeasuredInstruction(
            pc - start, sass, opcode, instruction_class(opcode), executed.get(pc, 0),
            wavefronts.get(pc, 0), ideal.get(pc, 0),
            where.file_name() if where is not None else "",
            where.line() if where is not None else 0))
    dims = lambda what: tuple(int(scalar(f"launch__{what}_dim_{a}", 1)) for a in "xyz")  # noqa
    return MeasuredKernel(
        action.name(), action.name(ncu_report.IAction.NameBase_DEMANGLED),
        action.name(ncu_report.IAction.NameBase_MANGLED), dims("grid"), dims("block"),
        int(scalar("launch__shared_mem_per_block_dynamic")),
        int(scalar("launch__shared_mem_per_block_static")),
        int(scalar("launch__registers_per_thread")), tuple(instructions),
        tuple((n, float(scalar(n))) for n in _TOTALS if n in names))


def template_key(demangled: str) -> str:
    """The kernel as `--kernel` names it: the demangled name without its return type and
    parameter list (`void ns::k<int, 4>(int *, int)` -> `ns::k<int, 4>`)."""
    text = demangled.strip()
    if text.startswith("void "):
        text = text[5:]
    depth = 0
    for n, ch in enumerate(text):
        if ch in "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return text[:n].strip()
    return re.sub(r"\s+", " ", text)

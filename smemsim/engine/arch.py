"""One table of GPU architectures: every per-architecture fact the analyses use, in one place.

Sources, per column:
- threads/SM ... reserved smem/block: `docs/hardware-rules.md` (the H200 reported exactly the
  sm_90 row) and the CUDA 13.0 toolkit's `include/cuda_occupancy.h`, which agree; for the
  architectures no GPU here has (sm_88, sm_100 to sm_121), the per-device figures the
  calculator takes from the driver (threads and shared memory per SM, the opt-in maximum)
  from CCCL's `cuda/__device/arch_traits.h` of the same toolkit (sm_88 as sm_86, sm_103 as
  sm_100, sm_110 as sm_100 with 1536 threads and 24 blocks, sm_121 as sm_120).
- smem granularity, sub-partitions, register granularity, carveout sizes and barriers per
  block slot: `cuda_occupancy.h` (cudaOccSMemAllocationGranularity,
  cudaOccSubPartitionsPerMultiprocessor, cudaOccAlignUpShmemSizeVoltaPlus,
  cudaOccMaxBlocksPerSMBlockBarrierLimit).
- bank rules: measured on sm_90 (H100 and H200, Nsight Compute 2025.3.1); NVIDIA documents the
  same banking from sm_70 to sm_121 (32 banks of 4 bytes), so those architectures use the
  same rule set, unmeasured there, and reports say so. Maxwell and Pascal (sm_5x, sm_6x) serve 64/128-bit accesses differently
  and no measurement covers them: they have no bank rule set here.

A new architecture is one row.
"""
from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
_VOLTA_CARVEOUTS = (0, 8, 16, 32, 64, 96)
_GA100_CARVEOUTS = (0, 8, 16, 32, 64, 100, 132, 164)
_GA10X_CARVEOUTS = (0, 8, 16, 32, 64, 100)
_HOPPER_CARVEOUTS = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)

BANK_RULES_SM90 = "sm90-measured"


@dataclass(frozen=True)
class Arch:
    """The facts of one compute capability."""

    name: str                    # "sm_90"
    major: int
    minor: int
    threads_per_sm: int
    blocks_per_sm: int
    regs_per_sm: int
    regs_per_block: int
    smem_per_sm: int             # bytes the SM can give to shared memory at most
    smem_per_block_optin: int    # the per-block maximum after cudaFuncSetAttribute
    reserved_smem_per_block: int  # the driver's own per-block reservation (sm_80+)
    smem_granularity: int        # allocation unit of shared memory per block
    sub_partitions: int          # warp schedulers; register limits are per sub-partition
    carveouts_kib: tuple[int, ...] | None  # shared-memory sizes the L1 split supports (sm_70+)
    barriers_per_block_slot: int  # hardware block barriers per resident-block slot
    bank_rules: str | None       # the rule set of the bank engine, None where unmeasured

    smem_per_block_default: int = 48 * KIB
    warp_size: int = 32
    reg_granularity: int = 256   # registers are allocated per warp in units of 256
    max_regs_per_thread: int = 255
    max_threads_per_block: int = 1024

    @property
    def max_warps_per_sm(self) -> int:
        """Resident warps an SM holds at most."""
        return self.threads_per_sm // self.warp_size


def _row(name, threads, blocks, regs_blk, smem_sm, optin, reserved, granularity, parts,
         carveouts, barriers, rules) -> Arch:
    major, minor = int(name[3:-1]), int(name[-1])
    return Arch(name, major, minor, threads, blocks, 65536, regs_blk, smem_sm, optin, reserved,
                granularity, parts, carveouts, barriers, rules)


_R = BANK_RULES_SM90
ARCHS: dict[str, Arch] = {a.name: a for a in (
    #     name     thr/SM blk  regs/blk smem/SM  opt-in  resv  gran parts carveouts   bar rules
    _row("sm_50", 2048, 32, 65536, 65536, 49152, 0, 256, 4, None, 2, None),
    _row("sm_52", 2048, 32, 65536, 98304, 49152, 0, 256, 4, None, 2, None),
    _row("sm_53", 2048, 32, 32768, 65536, 49152, 0, 256, 4, None, 2, None),
    _row("sm_60", 2048, 32, 65536, 65536, 49152, 0, 256, 2, None, 2, None),
    _row("sm_61", 2048, 32, 65536, 98304, 49152, 0, 256, 4, None, 2, None),
    _row("sm_62", 2048, 32, 32768, 65536, 49152, 0, 256, 4, None, 2, None),
    _row("sm_70", 2048, 32, 65536, 98304, 98304, 0, 256, 4, _VOLTA_CARVEOUTS, 2, _R),
    _row("sm_72", 2048, 32, 65536, 98304, 98304, 0, 256, 4, _VOLTA_CARVEOUTS, 2, _R),
    _row("sm_75", 1024, 16, 65536, 65536, 65536, 0, 256, 4, (32, 64), 2, _R),
    _row("sm_80", 2048, 32, 65536, 167936, 166912, 1024, 128, 4, _GA100_CARVEOUTS, 2, _R),
    _row("sm_86", 1536, 16, 65536, 102400, 101376, 1024, 128, 4, _GA10X_CARVEOUTS, 1, _R),
    _row("sm_87", 1536, 16, 65536, 167936, 166912, 1024, 128, 4, _GA100_CARVEOUTS, 1, _R),
    _row("sm_88", 1536, 16, 65536, 102400, 101376, 1024, 128, 4, _GA10X_CARVEOUTS, 1, _R),
    _row("sm_89", 1536, 24, 65536, 102400, 101376, 1024, 128, 4, _GA10X_CARVEOUTS, 1, _R),
    _row("sm_90", 2048, 32, 65536, 233472, 232448, 1024, 128, 4, _HOPPER_CARVEOUTS, 2, _R),
    _row("sm_100", 2048, 32, 65536, 233472, 232448, 1024, 128, 4, _HOPPER_CARVEOUTS, 2, _R),
    # (Thor: CUDA 12.8's sm_101, CUDA 13's sm_110)
    _row("sm_101", 1536, 24, 65536, 233472, 232448, 1024, 128, 4, _HOPPER_CARVEOUTS, 1, _R),
    _row("sm_103", 2048, 32, 65536, 233472, 232448, 1024, 128, 4, _HOPPER_CARVEOUTS, 2, _R),
    _row("sm_110", 1536, 24, 65536, 233472, 232448, 1024, 128, 4, _HOPPER_CARVEOUTS, 1, _R),
    _row("sm_120", 1536, 24, 65536, 102400, 101376, 1024, 128, 4, _GA10X_CARVEOUTS, 1, _R),
    _row("sm_121", 1536, 24, 65536, 102400, 101376, 1024, 128, 4, _GA10X_CARVEOUTS, 1, _R),
)}


class ArchError(ValueError):
    """An unknown architecture name, or one without the facts an analysis needs."""


def get_arch(name: str | Arch) -> Arch:
    """The Arch for a name like "sm_90" (also "90", "sm90", "9.0")."""
    if isinstance(name, Arch):
        return name
    text = str(name).strip().lower().replace("compute_", "sm_")
    if text[-1:] in ("a", "f") and text[-2:-1].isdigit():
        # sm_90a / sm_100f share the base architecture's resources; the suffixes exist from
        # sm_90 ("a": arch-specific features) and sm_100 ("f": family) on, not before
        digits = "".join(c for c in text[:-1] if c.isdigit())
        if not digits or int(digits) < (90 if text[-1] == "a" else 100):
            raise ArchError(f"unknown architecture {name!r}: the '{text[-1]}' suffix exists "
                            f"for {'sm_90' if text[-1] == 'a' else 'sm_100'} and later; "
                            f"known: {', '.join(ARCHS)}")
        text = text[:-1]
    if text.replace(".", "").isdigit():
        text = "sm_" + text.replace(".", "")
    elif text.startswith("sm") and not text.startswith("sm_"):
        text = "sm_" + text[2:]
    if text not in ARCHS:
        raise ArchError(f"unknown architecture {name!r}; known: {', '.join(ARCHS)}")
    return ARCHS[text]


def require_instructions(kernel, arch: str | Arch) -> Arch:
    """The Arch, after checking that it has every instruction the kernel uses (stmatrix
    needs sm_90, ldmatrix sm_75); the error names the site and its line."""
    from kernels_ir import Access, KernelError, Op, format_stmt
    a = get_arch(arch)
    number = a.major * 10 + a.minor
    from kernels_ir import MmaSync
    for s in kernel.statements():
        if isinstance(s, MmaSync) and number < 80:
            raise KernelError(f"mma.sync.{s.shape} of {s.atype} needs sm_80 or newer; {a.name} "
                              "does not have it", kernel=kernel.name, stmt=format_stmt(s),
                              loc=s.loc)
        if isinstance(s, Access) and s.MIN_SM > number:
            raise KernelError(f"{s.op} needs sm_{s.MIN_SM} or newer; {a.name} does not have it",
                              kernel=kernel.name, stmt=format_stmt(s), loc=s.loc)
        if isinstance(s, Access) and s.WRITES and s.array.dtype.name == "bf16" and number < 80:
            # the generated CUDA rounds with cvt.rn.bf16.f32, an sm_80 instruction
            raise KernelError(f"storing bf16 needs sm_80 or newer (cvt.rn.bf16.f32); {a.name} "
                              "does not have it", kernel=kernel.name, stmt=format_stmt(s),
                              loc=s.loc)
        if number < 80 and any(n.op is Op.CALL and n.arg == "round_bf16"
                               for e in s.exprs() for n in e.walk()):
            raise KernelError(f"rounding to bf16 needs sm_80 or newer (cvt.rn.bf16.f32); "
                              f"{a.name} does not have it", kernel=kernel.name,
                              stmt=format_stmt(s), loc=s.loc)
    return a

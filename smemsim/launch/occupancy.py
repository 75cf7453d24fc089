"""Occupancy: how many blocks of a kernel an SM holds, what limits it, and what-if curves.

A faithful port of NVIDIA's calculator, the CUDA toolkit's `include/cuda_occupancy.h`
(cudaOccMaxActiveBlocksPerMultiprocessor, cudaOccAvailableDynamicSMemPerBlock,
cudaOccMaxPotentialOccupancyBlockSize), which agreed with the driver on an H200 on 11,021 of
11,021 configurations. The function attributes are the ones the driver reports for a kernel
(cudaOccFuncAttributes built from cudaFuncAttributes): partitioned global caching off, the
opt-in shared-memory limit config, one block barrier, no virtual resources. The per-
architecture inputs come from `smemsim.engine.arch`.

Inputs the hardware cannot run at all (a block over 1024 threads, more than 255 registers,
more shared memory than a block may have) raise OccupancyError; a kernel that is valid but
whose block does not fit on an SM (say 1024 threads at 255 registers) gets 0 active blocks
and its limiter, as the calculator gives.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable, Mapping

from ..engine.arch import Arch, get_arch
from ..display import html

INT_MAX = 2**31 - 1
FACTORS = ("warps", "registers", "shared_memory", "blocks", "barriers")  # in report order
# A launch allocates a thread at least 16 registers: on an H200, ncu's
# launch__registers_per_thread was 16 for all 19 corpus kernels ptxas gave 10 to 15, and
# ptxas's count for the 139 others (docs/validation.md, "Registers"). Measured on sm_90 only;
# no occupancy changes (a warp's registers are allocated in units of 256, 8 a thread).
MIN_REGISTERS_ALLOCATED = 16
# A kernel that calls the device runtime (printf's vprintf, malloc, free), which the driver
# links in, is launched with at least 32: on an H200, ncu's launch__registers_per_thread was
# 32 for printf kernels ptxas gave 24, 30 and 32 registers and a malloc/free kernel of 24,
# and ptxas's 40 and 55 for two of more (cudaFuncGetAttributes's numRegs says ptxas's count
# throughout; docs/validation.md, "Registers"). 32 a thread still fits 2,048 threads in an
# SM's 64 Ki registers: no occupancy changes.
MIN_REGISTERS_WITH_RUNTIME_CALLS = 32


def registers_allocated(registers_per_thread: int, runtime_calls: bool = False) -> int:
    """Registers a launch allocates each thread for a kernel ptxas gives `registers_per_thread`
    (`runtime_calls`: the kernel calls printf, malloc or free)."""
    return max(registers_per_thread, MIN_REGISTERS_WITH_RUNTIME_CALLS if runtime_calls
               else MIN_REGISTERS_ALLOCATED)


class OccupancyError(ValueError):
    """An input no launch can have, with the limit it breaks."""


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps of one kernel configuration on one SM."""

    arch: str
    block_size: int
    registers_per_thread: int
    static_smem: int
    dynamic_smem: int
    carveout: int | None
    opt_in: bool
    active_blocks: int
    active_warps: int
    occupancy: float                    # active warps / the SM's maximum warps
    limiters: tuple[str, ...]           # every factor that ties at the minimum
    limits: Mapping[str, int | None]    # each factor's own block limit (None: unlimited)
    registers_per_block: int            # allocated: per-warp rounding included
    registers_allocated: int            # a thread's as a launch allocates them (at least 16)
    smem_per_block: int                 # allocated: reserved and granularity included
    smem_per_sm: int                    # the shared-memory carveout the SM runs with
    max_warps_per_sm: int

    @property
    def warps_per_block(self) -> int:
        """Warps one block occupies."""
        return -(-self.block_size // 32)

    def _repr_html_(self) -> str | None:
        """In a notebook: the numbers and the three what-if curves (smemsim.display)."""
        return html(self)


def _round_up(x: int, y: int) -> int:
    return -(-x // y) * y


def _align_up_carveout(size: int, arch: Arch) -> int:
    """cudaOccAlignUpShmemSizeVoltaPlus: the next shared-memory size the L1 split supports."""
    for kib in arch.carveouts_kib:
        if size <= kib * 1024 and (kib or size == 0):
            return kib * 1024
    raise OccupancyError(f"{size} bytes of shared memory per SM exceed {arch.name}'s largest "
                         f"carveout ({arch.carveouts_kib[-1]} KiB)")


def _smem_preference(arch: Arch, carveout: int | None) -> int:
    """Shared memory per SM that the carveout preference asks for (cudaOccSMemPerMultiprocessor)."""
    if arch.major < 7:
        return arch.smem_per_sm  # Maxwell and Pascal have dedicated shared memory
    size = arch.smem_per_sm if carveout is None else carveout * arch.smem_per_sm // 100
    return _align_up_carveout(size, arch)


def _smem_limit_per_block(arch: Arch, max_usage: int) -> int:
    """cudaOccSMemPerBlock with the opt-in config: the per-block limit, reservation included."""
    limit = arch.smem_per_block_default
    if arch.major >= 7 and max_usage > arch.smem_per_block_default:
        limit = arch.smem_per_block_optin
    return limit + arch.reserved_smem_per_block


def _max_dynamic(arch: Arch, static_smem: int, opt_in: bool) -> int:
    """The kernel's maximum dynamic shared memory attribute."""
    ceiling = arch.smem_per_block_optin if opt_in and arch.major >= 7 else \
        arch.smem_per_block_default
    return ceiling - static_smem


def _regs_limit(arch: Arch, block_size: int, regs: int, sub_partitions: int) -> tuple[int, int]:
    """cudaOccMaxBlocksPerSMRegsLimit (partitioned caching off): (block limit, regs/block)."""
    warps = -(-block_size // arch.warp_size)
    per_warp = _round_up(regs * arch.warp_size, arch.reg_granularity)
    per_block = per_warp * warps
    # the hardware also assumes the block's warps spread over all sub-partitions
    assumed = per_warp * _round_up(warps, sub_partitions)
    if arch.regs_per_block < assumed or arch.regs_per_block < per_block:
        return 0, per_block
    if per_warp == 0:
        return INT_MAX, per_block
    warps_per_sub = (arch.regs_per_sm // sub_partitions) // per_warp
    return (warps_per_sub * sub_partitions) // warps, per_block


def _check(arch: Arch, block_size: int, regs: int, static_smem: int, dynamic_smem: int,
           carveout: int | None, opt_in: bool) -> None:
    if not 1 <= block_size <= arch.max_threads_per_block:
        raise OccupancyError(f"a block of {block_size} threads: {arch.name} allows 1 to "
                             f"{arch.max_threads_per_block}")
    if not 0 <= regs <= arch.max_regs_per_thread:
        raise OccupancyError(f"{regs} registers per thread: the limit is "
                             f"{arch.max_regs_per_thread}")
    if static_smem < 0 or dynamic_smem < 0:
        raise OccupancyError(f"shared memory cannot be negative (static {static_smem}, "
                             f"dynamic {dynamic_smem})")
    if static_smem > arch.smem_per_block_default:
        raise OccupancyError(f"{static_smem} bytes of static shared memory: a kernel's static "
                             f"shared memory is limited to {arch.smem_per_block_default} bytes")
    block_limit = arch.smem_per_block_optin if opt_in and arch.major >= 7 else \
        arch.smem_per_block_default
    if static_smem + dynamic_smem > block_limit:
        how = ("the opt-in maximum" if opt_in and arch.major >= 7 else
               "the default limit without opt-in (cudaFuncSetAttribute raises it)")
        raise OccupancyError(f"{static_smem + dynamic_smem} bytes of shared memory per block "
                             f"(static {static_smem} + dynamic {dynamic_smem}) exceed {how} of "
                             f"{block_limit} bytes on {arch.name}")
    if carveout is not None:
        if arch.major < 7:
            raise OccupancyError(f"{arch.name} has dedicated shared memory: a carveout "
                                 "applies from sm_70 on")
        if not 0 <= carveout <= 100:
            raise OccupancyError(f"carveout is a percentage 0..100, got {carveout}")


def occupancy(arch: str | Arch, block_size: int, registers_per_thread: int,
              static_smem: int = 0, dynamic_smem: int = 0, carveout: int | None = None,
              opt_in: bool = True, barriers: int = 1) -> Occupancy:
    """Active blocks and warps per SM for one kernel configuration (cudaOccMaxActiveBlocks...).

    Shared memory in bytes; `carveout` a percentage of the SM's shared memory (None: the
    driver's default); `opt_in=True` models a kernel that raised its dynamic shared-memory
    limit to the architecture's maximum, False the 48 KiB default.
    """
    a = get_arch(arch)
    _check(a, block_size, registers_per_thread, static_smem, dynamic_smem, carveout, opt_in)
    warps = -(-block_size // a.warp_size)

    regs_limit, regs_per_block = _regs_limit(a, block_size, registers_per_thread,
                                             a.sub_partitions)
    if a.name == "sm_60" and regs_limit:
        # the calculator re-checks GP100 with GP10x's four sub-partitions
        if _regs_limit(a, block_size, registers_per_thread, 4)[0] == 0:
            regs_limit = 0
    warps_limit = a.max_warps_per_sm // warps
    blocks_limit = a.blocks_per_sm

    # shared memory (cudaOccMaxBlocksPerSMSmemLimit)
    static_total = static_smem + a.reserved_smem_per_block
    smem_per_block = _round_up(static_total + dynamic_smem, a.smem_granularity)
    max_dynamic = _max_dynamic(a, static_smem, opt_in)
    limit_per_block = _smem_limit_per_block(a, static_total + max_dynamic)
    preference = _smem_preference(a, carveout)
    if dynamic_smem > max_dynamic or smem_per_block > limit_per_block:
        smem_limit, smem_per_sm = 0, preference
    else:
        if preference >= smem_per_block:
            smem_per_sm = preference
        elif a.major >= 7:
            smem_per_sm = _align_up_carveout(smem_per_block, a)  # the driver bumps it up
        else:
            smem_per_sm = a.smem_per_sm
        smem_limit = smem_per_sm // smem_per_block if smem_per_block > 0 else INT_MAX

    limits = {"warps": warps_limit, "registers": regs_limit, "shared_memory": smem_limit,
              "blocks": blocks_limit}
    active = min(limits.values())
    limiters = [f for f in FACTORS if f in limits and limits[f] == active]
    if a.major >= 9 and barriers > 0:
        bars_limit = a.blocks_per_sm * a.barriers_per_block_slot // barriers
        active = min(active, bars_limit)
        if active == bars_limit:
            limiters.append("barriers")
        limits["barriers"] = bars_limit
    else:
        limits["barriers"] = INT_MAX
    # a factor that was tied before the barrier limit cut deeper no longer limits
    limiters = [f for f in limiters if limits[f] == active]
    return Occupancy(
        arch=a.name, block_size=block_size, registers_per_thread=registers_per_thread,
        static_smem=static_smem, dynamic_smem=dynamic_smem, carveout=carveout, opt_in=opt_in,
        active_blocks=active, active_warps=active * warps,
        occupancy=active * warps / a.max_warps_per_sm, limiters=tuple(limiters),
        limits={k: (None if v == INT_MAX else v) for k, v in limits.items()},
        registers_per_block=regs_per_block,
        registers_allocated=registers_allocated(registers_per_thread),
        smem_per_block=smem_per_block, smem_per_sm=smem_per_sm, max_warps_per_sm=a.max_warps_per_sm)


@dataclass(frozen=True)
class BlockSizeChoice:
    """The block size that maximizes occupancy (cudaOccMaxPotentialOccupancyBlockSize)."""

    block_size: int
    blocks_per_sm: int
    occupancy: float

    def min_grid_size(self, num_sms: int) -> int:
        """The smallest grid that fills every SM at this occupancy."""
        return self.blocks_per_sm * num_sms


def best_block_size(arch: str | Arch, registers_per_thread: int, static_smem: int = 0,
                    dynamic_smem: int | Callable[[int], int] = 0, carveout: int | None = None,
                    opt_in: bool = True, max_block_size: int = 1024) -> BlockSizeChoice:
    """The block size with the most resident threads, trying sizes from the largest down.

    `dynamic_smem` may be a function of the block size (the calculator's
    blockSizeToDynamicSMemSize). Sizes whose shared memory no block can have count as
    0 blocks, as in the calculator.
    """
    a = get_arch(arch)
    _check(a, 32, registers_per_thread, static_smem, 0, carveout, opt_in)  # size-independent
    limit = min(a.max_threads_per_block, max_block_size)
    best = BlockSizeChoice(0, 0, 0.0)
    most = 0
    for aligned in range(_round_up(limit, a.warp_size), 0, -a.warp_size):
        size = min(limit, aligned)
        dyn = dynamic_smem(size) if callable(dynamic_smem) else dynamic_smem
        try:
            blocks = occupancy(a, size, registers_per_thread, static_smem, dyn, carveout,
                               opt_in).active_blocks
        except OccupancyError:
            blocks = 0  # this size's shared memory fits no block: the calculator's 0
        if size * blocks > most:
            most = size * blocks
            best = BlockSizeChoice(size, blocks, blocks * -(-size // 32) / a.max_warps_per_sm)
        if most == a.threads_per_sm:
            break
    return best


def available_dynamic_smem(arch: str | Arch, block_size: int, registers_per_thread: int,
                           blocks: int, static_smem: int = 0, carveout: int | None = None,
                           opt_in: bool = True) -> int:
    """Dynamic shared memory a block may use with `blocks` blocks resident per SM.

    Port of cudaOccAvailableDynamicSMemPerBlock (which, like the header, leaves the driver's
    per-block reservation inside the figure it returns).
    """
    a = get_arch(arch)
    if blocks <= 0:
        raise OccupancyError(f"blocks must be positive, got {blocks}")
    fit = occupancy(a, block_size, registers_per_thread, static_smem, 0, carveout, opt_in)
    if fit.active_blocks < blocks:
        raise OccupancyError(f"only {fit.active_blocks} blocks of {block_size} threads fit on "
                             f"an SM of {a.name} before any dynamic shared memory "
                             f"(limited by {', '.join(fit.limiters)}); {blocks} asked")
    max_dynamic = _max_dynamic(a, static_smem, opt_in)
    per_block_limit = _smem_limit_per_block(a, a.smem_per_sm)
    if blocks == 1:
        per_sm = per_block_limit
    else:
        preference = _smem_preference(a, carveout)
        if preference == 0:  # a 0% carveout: the header asks for the smallest non-zero size
            preference = _align_up_carveout(1, a)
        per_sm = preference
    available = per_sm // blocks // a.smem_granularity * a.smem_granularity
    available = min(available, per_block_limit) - static_smem
    # the header computes in size_t: a negative figure wraps and is then capped
    if available < 0 or available > max_dynamic:
        available = max_dynamic
    return available


@dataclass(frozen=True)
class Curve:
    """One what-if curve: occupancy against one knob, with the current point marked."""

    knob: str
    xs: tuple[int, ...]
    occupancy: tuple[float, ...]
    active_warps: tuple[int, ...]
    current: int


def what_if(base: Occupancy, max_threads: int | None = None) -> tuple[Curve, Curve, Curve]:
    """The calculator's three graphs: occupancy against block size, registers and shared
    memory; `max_threads`: the kernel's `__launch_bounds__`, past which no block launches."""
    a = get_arch(base.arch)

    def point(**change) -> tuple[float, int]:
        args = dict(block_size=base.block_size, registers_per_thread=base.registers_per_thread,
                    static_smem=base.static_smem, dynamic_smem=base.dynamic_smem,
                    carveout=base.carveout, opt_in=base.opt_in)
        args.update(change)
        try:
            r = occupancy(a, **args)
        except OccupancyError:
            return 0.0, 0
        return r.occupancy, r.active_warps

    sizes = tuple(range(32, min(a.max_threads_per_block, max_threads or INT_MAX) + 1, 32))
    regs = tuple(range(0, 256, 8))
    step = a.smem_granularity * 8
    top = a.smem_per_block_optin if base.opt_in else a.smem_per_block_default
    smem = tuple(range(0, top + 1, step))
    curves = []
    for knob, xs, make, current in (
            ("block_size", sizes, lambda x: point(block_size=x), base.block_size),
            ("registers_per_thread", regs, lambda x: point(registers_per_thread=x),
             base.registers_per_thread),
            ("smem_per_block", smem,
             lambda x: point(static_smem=min(x, base.static_smem),
                             dynamic_smem=x - min(x, base.static_smem)),
             base.static_smem + base.dynamic_smem)):
        # the kernel's own value is a point of its curve (47 registers between the 40 and
        # 48 rows was marked at 40's occupancy, not its own)
        xs = tuple(sorted(set(xs) | {current}))
        pts = [make(x) for x in xs]
        curves.append(Curve(knob, xs, tuple(p[0] for p in pts), tuple(p[1] for p in pts),
                            current))
    return tuple(curves)  # type: ignore[return-value]


def kernel_occupancy(kernel, arch: str | Arch, registers_per_thread: int,
                     params: Mapping[str, int | float] | None = None,
                     carveout: int | None = None, static_smem: int | None = None) -> Occupancy:
    """Occupancy of a kernels_ir Kernel at a launch: block size, static and dynamic smem from it.

    `static_smem` overrides the declarations' total (a compiled cubin's figure, say);
    dynamic shared memory over 48 KiB implies the kernel opted in, as it must to launch.
    """
    from kernels_ir.launch import resolve_block

    # (a block's needs only: the grid's parameters, a runtime size, are not asked for)
    block, dynamic = resolve_block(kernel, params)
    static = kernel.static_smem if static_smem is None else static_smem
    a = get_arch(arch)
    opt_in = static + dynamic > a.smem_per_block_default
    occ = occupancy(a, math.prod(block), registers_per_thread, static, dynamic, carveout,
                    opt_in)
    if kernel.built is not None and kernel.built.runtime_calls:
        occ = dataclasses.replace(occ, registers_allocated=registers_allocated(
            registers_per_thread, True))
    return occ

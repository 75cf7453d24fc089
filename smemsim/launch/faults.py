"""Faults a check reports: counted per kind and statement with the blocks they stand for, a
faulting range of blocks run again in quarters, and whether TMA and wgmma readers agree with
the layout the copies wrote."""
from __future__ import annotations


from dataclasses import dataclass, replace

import numpy as np

from kernels_ir import (format_stmt, Kernel, KernelRuntimeError, LayoutMismatch, PartialRun,
                        run, SourceLoc)
from kernels_ir.stmt_async import TmaLoad

from .slicing import hazard_slices, layout_run
from .trace import LOOP_LIMIT


@dataclass(frozen=True)
class Fault:
    """A launch that cannot run as written: the interpreter's located error."""

    kind: str  # out_of_bounds, misaligned, divergent_barrier, uninitialized_read,
    #            copy_in_flight (a cp.async not yet waited for), incomplete (too large to
    #            check in bounded memory), layout (a wgmma descriptor or a reader by index
    #            that selects other elements of a TMA tile than its map wrote there), other
    message: str                 # the first block's fault, located
    blocks: int = 1              # blocks that hit a fault of this kind at this statement
    loc: SourceLoc | None = None  # the statement's source line, where known
    site: int | None = None      # the shared access site that faulted, where one did
    block: tuple | None = None   # the block of `message`, where the error names one


def _classify(err: KernelRuntimeError) -> str:
    text = str(err)
    if "out of bounds" in text:
        return "out_of_bounds"
    if "misaligned" in text:
        return "misaligned"
    if "divergent __syncthreads" in text:
        return "divergent_barrier"
    if "no thread has written" in text:
        return "uninitialized_read"
    if "cp.async to it is still in flight" in text:
        return "copy_in_flight"
    if "iterations without ending" in text:
        return "endless_loop"
    if "assertion `" in text or "__trap() stops the kernel" in text:
        return "assert"
    return "other"


def layout_agreement(kernel: Kernel, launch, arrays=None, seed: int = 0,
                     loop_limit: int = LOOP_LIMIT) -> tuple[Fault, ...]:
    """Tiles TMA wrote, read through a wgmma descriptor or by index (a load, ldmatrix) that
    select other elements than the ones the TMA map and the array's declaration agree on
    (kernels_ir.LayoutMismatch), one fault per source line; checked on the launch's first
    block with its values (a layout disagrees alike in every block; the other hazards are
    the rest of `check`'s)."""
    if not any(isinstance(s, TmaLoad) for s in kernel.statements()):
        return ()
    found: dict[tuple, LayoutMismatch] = {}

    def observe(event) -> None:
        # one per source line (a Python loop that builds four wgmmas is one line; an inline
        # helper's four calls, one asm statement)
        if isinstance(event, LayoutMismatch):
            loc = event.stmt.loc
            found.setdefault((loc.file, loc.line, loc.column), event)
    # without values where they decide nothing the run follows (no global arrays made, no
    # products computed: fast.cu's kernel 6 at 8192^3, 45 s on values, 20 s without)
    hs = hazard_slices(kernel)
    statements = None if hs.unusable else layout_run(kernel, hs)
    first = np.zeros(1, np.int64)
    try:
        run(kernel, dict(launch.params), arrays, seed=seed, observer=observe,
            partial=PartialRun(blocks=first) if statements is None else PartialRun(
                statements=statements, blocks=first, track=True, origin=True),
            loop_limit=loop_limit)
    except KernelRuntimeError:
        pass   # the run's faults are reported by the rest of check, for every block
    out = []
    for event in found.values():
        where = _thread_where(launch, event.thread)
        err = KernelRuntimeError(event.message, kernel=kernel.name,
                                 stmt=format_stmt(event.stmt), loc=event.stmt.loc, **where)
        out.append(Fault("layout", str(err), loc=event.stmt.loc))
    return tuple(out)


def _thread_where(launch, gid: int) -> dict:
    """Block and thread of a flat thread id of a run of the grid's first blocks."""
    tpb = launch.threads_per_block
    bx, by, _ = launch.block
    gx, gy, _ = launch.grid
    b, t = gid // tpb, gid % tpb
    return dict(block=(b % gx, b // gx % gy, b // (gx * gy)),
                thread=(t % bx, t // bx % by, t // (bx * by)))


MAX_FAULTS = 20       # distinct faults (kind and statement) a check reports


MAX_FAULT_BLOCKS = 64  # faulting blocks it runs before it stops looking for more


def count_fault(faults: dict, err, blocks: int = 1) -> None:
    """Count `blocks` more blocks at the fault `err` (a KernelRuntimeError, or an interval
    too large to check: "incomplete"), one entry per kind and statement, at most
    MAX_FAULTS of them."""
    kind = _classify(err) if isinstance(err, KernelRuntimeError) else "incomplete"
    key = (kind, str(getattr(err, "loc", "")))
    block = getattr(err, "block", None)
    if key in faults:
        had = faults[key]
        faults[key] = replace(had, blocks=had.blocks + blocks)
        if block is not None and had.block is not None and block[::-1] < had.block[::-1]:
            # the first block's fault is said, whatever order the blocks were found in
            # (run_in_ranges counts the blocks a fault names before the ones around them)
            faults[key] = replace(faults[key], message=str(err), block=block)
    elif len(faults) < MAX_FAULTS:
        faults[key] = Fault(kind, str(err), blocks=blocks, loc=getattr(err, "loc", None),
                            site=getattr(err, "site", None), block=block)


def stopped_note(faulted: int, pending: list) -> str:
    """Why the blocks of `pending` ((start, size) ranges) were not checked."""
    left = sum(n for _, n in pending)
    return (f"stopped after {faulted} faulting blocks: {left} block(s) not checked (use "
            "--blocks to check others)")


def run_in_ranges(blocks, per_run: int, run_part, faults: dict, errors,
                  after=None) -> str | None:
    """`run_part(part)` over the blocks of `blocks` in parts of at most `per_run` blocks; a
    part that raises one of `errors` is run again without the blocks the fault names
    (`fault_blocks`: each faults there first, kernels_ir's Machine.lane_fault), those apart,
    where it names them; else in quarters, down to each block that faults. Faulting blocks
    are counted in `faults` until MAX_FAULT_BLOCKS have faulted. `after(part)` follows each
    part's run (a faulting block's too: what it did before its fault counts). Returns None,
    or the note of the blocks left unchecked. (A 15,876-block numba GEMM whose every block
    reads past B: 140 s in quarters, a few part runs now.)"""
    pending = [blocks[at:at + per_run] for at in range(0, len(blocks), per_run)]
    faulted, unchecked = 0, None
    while pending:
        part = pending.pop(0)
        try:
            run_part(part)
        except errors as err:
            named = getattr(err, "fault_blocks", None)
            hit = np.isin(part, named) if named is not None else None
            if part.size > 1 and hit is not None and hit.any() and not hit.all():
                # the named blocks apart (they fault alike there: counted in one run),
                # then the rest in quarters (a fault that names one block of many must
                # not make the search one run a block)
                rest = part[~hit]
                pending[:0] = [part[hit], *(rest[lo:lo + size] for lo, size in
                                            quarters(0, rest.size))]
                continue
            if part.size > 1 and (hit is None or not hit.all()):
                pending[:0] = [part[lo:lo + size] for lo, size in quarters(0, part.size)]
                continue
            faulted += part.size
            count_fault(faults, err, int(part.size))
            if faulted >= MAX_FAULT_BLOCKS and pending:
                unchecked = stopped_note(faulted, [(0, p.size) for p in pending])
                pending = []
        if after is not None:
            after(part)
    return unchecked


def quarters(lo: int, size: int) -> list[tuple[int, int]]:
    """The range (lo, size) of blocks in four (lo, size) parts, to run again apart."""
    step = -(-size // 4)
    return [(x, min(step, lo + size - x)) for x in range(lo, lo + size, step)]

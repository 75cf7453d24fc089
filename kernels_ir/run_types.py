"""The records an interpreter run takes and reports (what observers see, a run for
addresses only, the points a run stops at), and the limits of a run."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from .expr import Expr
from .arrays import LocalArray
from .stmt import Access, Atomic, Load, Store, Sync, SyncWarp


MAX_THREADS = 1 << 24          # beyond this a launch is too large to interpret here
MAX_LOOP_ITERATIONS = 1 << 22  # a loop still running after this many iterations is a bug


# a run for addresses watches a loop of at least this many trips for repetition (kernels_ir.
# periodic), remembering at most this many iterations' states
PERIODIC_MIN_TRIPS = 4
PERIODIC_HISTORY = 64


@dataclass(frozen=True)
class SharedAccess:
    """One execution of a shared access site by a set of threads (reported to observers)."""

    stmt: Access
    threads: np.ndarray   # flat thread ids: block_linear * threads_per_block + thread_linear
    offsets: np.ndarray   # byte offsets of each thread's access in its block's window
    weight: int = 1       # how many executions this one stands for (collapsed loops)
    iterations: tuple[tuple[str, int], ...] = ()  # enclosing loops' iteration, first thread
    stored: np.ndarray | None = None  # plain stores: the bytes each thread writes (uint8)
    scale: int | None = None  # id of the enclosing `summed` loop of a PartialRun, if any


@dataclass(frozen=True)
class PartialRun:
    """Run only part of a launch, for analyses that need addresses but not values.

    `statements`: ids of the statements to execute (others are skipped; shared stores then
    evaluate their addresses, not their values, and no global memory is touched).
    `collapse`: ids of loops that run one iteration standing for all of them when every
    active lane has the same trip count (the analysis vouches that iterations look alike).
    `blocks`: linear ids of the blocks to run (None: all).
    `summed`: ids of collapsed loops whose trip count differs between blocks but not within
    one: the body runs once for every block with at least one trip, its accesses carry the
    loop (`SharedAccess.scale`) and no trip weight; the observer knows what each block's
    trips stand for.
    """

    statements: frozenset[int] | None = None
    collapse: frozenset[int] = frozenset()
    blocks: np.ndarray | None = None
    summed: frozenset[int] = frozenset()
    # -- the hazard check's address-only runs (smemsim.launch.slicing.HazardSlices); they never
    #    replay repeating iterations (kernels_ir.periodic): a check sees every barrier
    # `track`: shared stores mark the bytes they write, shared reads check them, cp.async
    # follows its bytes in flight (the faults a full run finds in shared memory)
    track: bool = False
    # `sources`: cp.async and bulk copies also evaluate (and check) their global end, TMA
    # copies where their box starts
    sources: bool = False
    # `truncate`: ids of loops whose iterations look alike: when the lanes of each block
    # agree on the trip count, each block's first two iterations stand for all of its
    # iterations (what one can race with, the next can)
    truncate: frozenset[int] = frozenset()
    # `truncate_pairs`: those of `truncate` whose iterations look alike in pairs (a double
    # buffer's `addr ^= 0x2000` every iteration): each block runs 3 or 4 of them, as many
    # as its trip count modulo 2 (so that what follows the loop sees the parity the full
    # run leaves), which hold every pair of neighbouring iterations, even then odd and odd
    # then even
    truncate_pairs: frozenset[int] = frozenset()
    # `probes`: per statement id not executed, what to evaluate there for its faults
    probes: Mapping[int, tuple["Probe", ...]] | None = None
    # `endpoints`: ids of counted loops whose executed body only addresses global memory at
    # indices affine in the loop variable (the analysis vouches): each lane runs its first,
    # second and last iteration; where those indices are not one affine progression (an
    # integer wrapped between them) or one of them faults, the loop runs whole instead, so
    # that the fault is reported at its first iteration
    endpoints: frozenset[int] = frozenset()
    # `lanes_only`: ids of shuffles and mma.sync whose results the run does not read: the
    # lanes they read are checked (a lane that does not execute one, a warp not whole: a
    # fault), their values are not evaluated (the run does not compute them) and their
    # results are 0
    lanes_only: frozenset[int] = frozenset()
    # `guards`: the Ifs inside those loops whose condition is a conjunction of comparisons
    # affine in the loop variable at one width (If id -> the comparisons, locals written
    # out): each holds on an interval of a lane's iterations, whose first, second and last
    # iterations run too, and the accesses under it are one progression over that interval
    guards: Mapping[int, tuple] = field(default_factory=dict)
    # `signature`: every if and loop condition folds its decision into the deciding lanes'
    # signatures (control_signatures); no loop shortcuts, every iteration decides
    signature: bool = False
    # `origin` (with `track`, and an observer): TMA copies record which global element each
    # byte holds, and wgmma operands and readers by index are compared with it, as a run
    # on values does (LayoutMismatch events: check's layout agreement without the values)
    origin: bool = False


@dataclass(frozen=True)
class Probe:
    """What a hazard run evaluates at a statement it does not execute: an expression whose
    evaluation can fault (`expr`), or only the bounds of a register-array index (`array`,
    `index`), without the values the statement computes."""

    expr: Expr | None = None
    array: LocalArray | None = None
    index: tuple[Expr, ...] = ()

    def roots(self) -> tuple[Expr, ...]:
        """The expressions the probe evaluates."""
        return (self.expr,) if self.expr is not None else self.index


@dataclass(frozen=True)
class BarrierReached:
    """A `__syncthreads()` executed by whole blocks (reported to observers)."""

    stmt: Sync
    blocks: np.ndarray    # dense indices of the blocks that passed it


@dataclass(frozen=True)
class LayoutMismatch:
    """An element of a tile TMA wrote, read (through a wgmma descriptor, or by index) from
    other bytes than the map and the reader agree on (reported to observers; the GPU reads
    the same wrong element silently)."""

    stmt: Access
    message: str
    thread: int           # flat id of the reading thread (a warpgroup's first, for wgmma)


@dataclass(frozen=True)
class WarpBarrierReached:
    """A `__syncwarp()` executed by the lanes of some warps (reported to observers)."""

    stmt: SyncWarp
    warps: np.ndarray     # dense block index * warps per block + warp in the block


@dataclass(frozen=True)
class GlobalAccess:
    """One execution of a global load, store or atomic by a set of threads (reported to
    observers)."""

    stmt: Load | Store | Atomic
    threads: np.ndarray
    elements: np.ndarray  # element offsets into the array


Observer = Callable[[object], None]


@dataclass
class Unwritten:
    """What a run that lets loads read shared bytes no thread has written (CUDA leaves them
    indeterminate) fills every block's window with, `fill` in each byte, and the first such
    read (`first`: the KernelRuntimeError it would have raised), which the run sets. Runs with
    different fills that count alike show that no count depends on those bytes."""

    fill: int
    first: Exception | None = None

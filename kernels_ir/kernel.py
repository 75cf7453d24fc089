"""The Kernel: its parameters, arrays, body and launch, and the static layout of its shared memory
(what occupancy and the analyses read)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Iterator

from .arrays import GlobalArray, MemArray, ScalarParam, SharedArray, SharedBuffer
from .errors import KernelError, SourceLoc
from .expr import Expr
from .stmt import Access, Sync, walk


def static_layout(buffers) -> tuple[dict[int, int], int]:
    """Byte offset of each static buffer (by uid), in order, each at its alignment, and the
    total (Kernel.static_layout; the builder's 48 KiB check while declaring)."""
    offsets, end = {}, 0
    for buf in buffers:
        if buf.dynamic:
            continue
        end = -(-end // buf.align) * buf.align
        offsets[buf.uid] = end
        end += buf.nbytes
    return offsets, end


DYNAMIC_ALIGN = 16  # the dynamic region starts 16-byte aligned after the static arrays


@dataclass(frozen=True)
class BuildResources:
    """What a compiler's build of a kernel allocates, where the kernel was read from that
    build (ptxas's own report of it): per thread, registers, stack frame and spilled bytes;
    per block, static shared memory as the driver reports it (the 1 KiB the driver reserves
    per block on sm_90 left out) and named barriers."""

    arch: str
    symbol: str            # the kernel's symbol in the build
    registers: int
    static_smem: int
    stack: int             # bytes of stack frame a thread
    spill_stores: int      # bytes a thread spills, and reads back
    spill_loads: int
    barriers: int
    max_threads: int | None = None   # a block's most threads (`__launch_bounds__`), if bound
    runtime_calls: bool = False      # calls the device runtime (printf): a launch gives it
    #                                  32 registers a thread at least


@dataclass(frozen=True, eq=False)
class Kernel:
    """A complete kernel: signature, shared declarations, launch configuration and body."""

    name: str
    params: tuple[ScalarParam, ...]
    globals: tuple[GlobalArray, ...]
    buffers: tuple[SharedBuffer, ...]
    shared: tuple[SharedArray, ...]
    grid: tuple[Expr, Expr, Expr]
    block: tuple[Expr, Expr, Expr]
    dynamic_smem: Expr
    body: tuple
    loc: SourceLoc
    defaults: dict = field(default_factory=dict)
    launch_loc: SourceLoc | None = None  # the k.launch(...) call, for launch errors
    # what the frontend that built the kernel says of it (a compiler's merges, a count that
    # is a bound): shown with every analysis
    notes: tuple[str, ...] = ()
    # where the kernel was read from a compiler's build (a .cu through nvcc's): what that
    # build allocates (None: a kernel written in Python, or a build ptxas could not read)
    built: BuildResources | None = None
    # the source's name of the instance where the kernel is a template's (`colsum<64,
    # float>`; `name` stays a C identifier): what reports call it
    instance: str | None = None
    # the parameters whose values the host code chose the launch's grid or block by (a
    # host if/else chain on a value it also passes): a value given for one alone leaves
    # the launch as the host's value chose it
    launch_inputs: tuple[str, ...] = ()
    # scalar parameters whose argument at the launch the host code cannot say, as
    # (parameter, the argument as written, the host value it is made of that is missing):
    # the question for a value names them (`N` passed as `blocks`, from the host
    # function's own `N`)
    unread_arguments: tuple[tuple[str, str, str], ...] = ()
    # the global arrays whose lengths the source does not say (a pointer cudaMalloc'd
    # where the host reading does not follow, a wrapper's parameter): the frontend gives
    # each a stand-in length, and the interpreter checks no end of theirs (an index below
    # 0 still faults) and wraps their stand-in storage (values are smemsim's seeded ones)
    assumed_lengths: tuple[str, ...] = ()
    # `__shared__` variables the source declares in the kernel's body, as (name, where),
    # where a frontend read them; and of those, what the compiler's build never accesses,
    # said as notes (`check` shows them: a hazard of a store the build dropped is none)
    declared_shared: tuple[tuple[str, str], ...] = ()
    # the shapes the source gives its `__shared__` arrays, as (variable, extents, bytes an
    # element), where the frontend reads a flat window (a build's): a race names the
    # element as the source does (`tile[0][1]`, not `tile[1]`)
    shared_shapes: tuple[tuple[str, tuple[int, ...], int], ...] = ()
    unbuilt_shared: tuple[str, ...] = ()
    # the sites a frontend counts as the PTX states where the compiler's build (its SASS)
    # differs in a way the reading does not follow (each said in `notes`)
    as_stated_sites: tuple[int, ...] = ()
    # the parameters nothing gave a value that decide no address, control, fault or kept
    # value (a GEMM's alpha, read from the command line by the host code): a frontend gives
    # each a stand-in in `defaults`, and the analyses say so
    stand_ins: tuple[str, ...] = ()
    # where the host code launches the kernel with several configurations: the launch read
    # first, then those with another configuration (`file.cu:LINE:COL` each; a frontend's
    # --launch-at reads one of those instead); () for a kernel launched once or alike
    launches: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """The kernel as reports name it: its instance's source name, else its name."""
        return self.instance or self.name

    def statements(self) -> Iterator:
        """Every statement in program order."""
        return walk(self.body)

    @functools.cached_property
    def cooperative(self) -> bool:
        """Whether the kernel synchronizes its whole grid (`grid.sync()`): it then needs a
        cooperative launch, every block resident at once, and its blocks run together."""
        return any(isinstance(s, Sync) and s.grid for s in self.statements())

    @functools.cached_property
    def global_views(self) -> tuple["GlobalArray", ...]:
        """The views of global arrays the statements use (each once, in order of use); read
        once per kernel (every run and launch asks)."""
        from .tma import TensorMap   # (tma imports this module)
        seen: dict[int, GlobalArray] = {}
        for s in self.statements():
            for value in vars(s).values():
                if isinstance(value, TensorMap):   # a tensor map over a view
                    value = value.array
                if isinstance(value, GlobalArray) and value.base is not None:
                    seen.setdefault(id(value), value)
        return tuple(seen.values())

    def sites(self) -> list[Access]:
        """The shared-memory access sites, in program order."""
        return [s for s in self.statements() if isinstance(s, Access) and s.is_shared]

    def site(self, number: int):
        """The shared access site with this number."""
        for s in self.sites():
            if s.site == number:
                return s
        raise KernelError(f"kernel '{self.name}' has no shared access site {number}; sites are "
                          f"{[s.site for s in self.sites()]}")

    def static_layout(self) -> tuple[dict[int, int], int]:
        """Byte offset of each static buffer (by uid) in the block's window, and their total.

        Static buffers are laid out in declaration order, each at its alignment; the
        generated CUDA declares them with the same alignment, so every offset agrees with
        the compiled kernel modulo the alignment, which is all bank mapping depends on.
        """
        return static_layout(self.buffers)

    @property
    def static_smem(self) -> int:
        """Bytes of static shared memory the declarations need."""
        return self.static_layout()[1]

    def dynamic_base(self) -> int:
        """Window offset where the dynamic shared memory begins (at its declared alignment,
        at least 16 bytes, after the static arrays)."""
        end = self.static_smem
        align = max([DYNAMIC_ALIGN] + [b.align for b in self.buffers if b.dynamic])
        return -(-end // align) * align

    def buffer_base(self, buf: SharedBuffer) -> int:
        """Window offset of a buffer."""
        if buf.dynamic:
            return self.dynamic_base()
        return self.static_layout()[0][buf.uid]

    def param(self, name: str) -> ScalarParam:
        """The scalar parameter with this name."""
        for p in self.params:
            if p.name == name:
                return p
        raise KernelError(f"kernel '{self.name}' has no parameter '{name}'")

    def array(self, name: str) -> MemArray:
        """The global or shared array with this name."""
        for a in (*self.globals, *self.shared):
            if a.name == name:
                return a
        raise KernelError(f"kernel '{self.name}' has no array '{name}'")

    def __str__(self) -> str:
        from .printer import format_kernel
        return format_kernel(self)

"""A kernel's launch resolved for concrete parameter values: grid, block, sizes."""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from .errors import KernelError
from .evaluate import Evaluator
from .expr import Expr, Op
from .semantics import LaneFault
from .arrays import SharedArray
from .kernel import Kernel

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)
# shared memory one block may have on the architecture that allows the most (sm_90's and
# sm_100's opt-in maximum: smemsim/engine/arch.py's table, whose test keeps the two equal); a
# launch over it runs on no GPU, and is refused before any window is allocated for it
MAX_SMEM_PER_BLOCK = 232448


@dataclass(frozen=True)
class Launch:
    """One launch of a kernel: parameter values and the resulting geometry, all concrete."""

    kernel: Kernel
    params: Mapping[str, int | float]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_smem: int
    lengths: Mapping[str, int]

    @property
    def threads_per_block(self) -> int:
        """Threads in one block."""
        return math.prod(self.block)

    @property
    def warps_per_block(self) -> int:
        """Warps in one block (the last may be partial)."""
        return -(-self.threads_per_block // 32)

    @property
    def num_blocks(self) -> int:
        """Blocks in the grid."""
        return math.prod(self.grid)

    @property
    def smem_window(self) -> int:
        """Bytes of the block's shared window: static arrays, then the dynamic region."""
        k = self.kernel
        has_dynamic = any(b.dynamic for b in k.buffers)
        return k.dynamic_base() + self.dynamic_smem if has_dynamic else k.static_smem

    def extent(self, array: SharedArray) -> tuple[int, ...]:
        """Concrete shape of a shared view (a dynamic leading extent filled from the launch)."""
        if array.shape[0] is not None:
            return tuple(array.shape)
        inner = math.prod(array.shape[1:]) if array.rank > 1 else 1
        row = (array.shape[-1] + array.pad) if array.rank > 1 else 1
        per_lead = (inner // array.shape[-1] * row if array.rank > 1 else 1) * array.dtype.size
        return (self.dynamic_smem // per_lead, *array.shape[1:])


class _LaunchEvaluator(Evaluator):
    """Expressions of parameters and constants, on one lane."""

    def __init__(self, params: Mapping[str, int | float]):
        self.params = params

    def leaf(self, e: Expr, idx: np.ndarray) -> np.ndarray:
        if e.op is Op.PARAM:
            return np.full(idx.size, self.params[e.arg], e.dtype.np)
        raise KernelError(f"a launch expression may use only parameters and constants, not "
                          f"{e.op.value}")


def eval_param_expr(expr: Expr, params: Mapping[str, int | float], kernel: str = "") -> int | float:
    """The value of an expression that uses only parameters and constants."""
    try:
        value = _LaunchEvaluator(params).eval(expr, np.zeros(1, np.int64))
    except LaneFault as fault:
        raise KernelError(f"{fault.message} evaluating a launch expression", kernel=kernel)
    return value[0].item()


def resolve_launch(kernel: Kernel, params: Mapping[str, int | float] | None = None) -> Launch:
    """Bind parameter values (the kernel's defaults, overridden by `params`) and check limits."""
    values, whole, error, at = _bind(kernel, params)
    grid = tuple(whole(e, f'grid.{a}') for a, e in zip('xyz', kernel.grid))
    for axis, n, limit in zip("xyz", grid, MAX_GRID_DIM):
        if not 1 <= n <= limit:
            raise error(f"grid.{axis} = {n} is outside 1..{limit}{at}")
    block, dyn = _block(kernel, whole, error, at)
    lengths = {}
    for g in kernel.globals:
        n = whole(g.length, f"the length of '{g.name}'")
        if n < 0:
            raise error(f"global array '{g.name}' has length {n}{at}")
        lengths[g.name] = n
    for v in kernel.global_views:   # the bytes of its array, as its elements
        lengths[v.name] = whole(v.length, f"the length of '{v.name}'")
    return Launch(kernel, values, grid, block, dyn, MappingProxyType(lengths))


def resolve_block(kernel: Kernel, params: Mapping[str, int | float] | None = None
                  ) -> tuple[tuple[int, int, int], int]:
    """The block's extents and dynamic shared bytes at `params`, checked as resolve_launch
    checks them: what one block needs (occupancy's question), asking only for the
    parameters those read (not the grid's nor the arrays' lengths)."""
    read = {n.arg for e in (*kernel.block, kernel.dynamic_smem) for n in e.walk()
            if n.op is Op.PARAM}
    _, whole, error, at = _bind(kernel, params, read)
    return _block(kernel, whole, error, at)


def _bind(kernel: Kernel, params, needed: set | None = None):
    """(the parameter values, `whole`: an expression's whole-number value, the error maker,
    the values said as ` (with n=..)`) for the kernel's defaults overridden by `params`,
    each checked; `needed`: the parameters that must have a value (None: every one)."""
    if params is not None and not isinstance(params, Mapping):
        raise KernelError(f"parameters must be a mapping of name to value (e.g. {{'n': 256}}), "
                          f"got {params!r}", kernel=kernel.name)
    values = dict(kernel.defaults)
    values.update(params or {})
    given = set(params or {})
    names = {p.name: p for p in kernel.params}
    # errors point at the launch (k.launch's line) and say where a bad value came from
    error = lambda message: KernelError(message, kernel=kernel.name, loc=kernel.launch_loc)
    origin = lambda name: "given" if name in given else "set by k.defaults"
    for name in values:
        if name not in names:
            raise error(f"unknown parameter '{name}' ({origin(name)}); the kernel's "
                        f"parameters are {sorted(names) or 'none'}")
    missing = [name for name in names if name not in values and
               (needed is None or name in needed)]
    unread = {p: (arg, root) for p, arg, root in kernel.unread_arguments}
    if len(missing) == 1 and missing[0] in unread:
        # (the launch passes a host value the file cannot say: that value is what to give,
        # and every launch made of it then follows)
        arg, root = unread[missing[0]]
        raise error(f"parameter '{missing[0]}' has no value: the launch passes `{arg}`"
                    + (f", made of the host's `{root}`," if root != arg else "")
                    + f" which the host code does not say: give it (--host '{root}=V', "
                    f"which every launch made of it follows, or -p {missing[0]}=V, this "
                    "parameter at every launch)")
    if len(missing) == 1:
        raise error(f"parameter '{missing[0]}' has no value: give one (-p {missing[0]}=V on "
                    f"the command line; params={{'{missing[0]}': V}} in Python)")
    if missing:   # (all of them at once: one run to learn what to give, not one each)
        listed = ", ".join(f"'{n}'" for n in missing)
        options = " ".join(f"-p {n}=V" for n in missing)
        raise error(f"parameters {listed} have no value: give them ({options} on the "
                    f"command line; params={{'{missing[0]}': V, ...}} in Python)")
    for name, p in names.items():
        if name not in values:
            continue   # (one `needed` does not name)
        v = values[name]
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise error(f"parameter '{name}' must be a number, got {v!r} ({origin(name)})")
        if not p.dtype.is_float:
            if isinstance(v, (float, np.floating)) and not float(v).is_integer():
                raise error(f"parameter '{name}' is {p.dtype}, got {v!r} ({origin(name)})")
            v = int(v)
            if not p.dtype.min <= v <= p.dtype.max:
                raise error(f"parameter '{name}' = {v} does not fit {p.dtype} "
                            f"({origin(name)})")
        values[name] = v
    frozen = MappingProxyType(values)
    shown = ", ".join(f"{k}={v}" for k, v in values.items())
    at = f" (with {shown})" if shown else ""

    def whole(e, what):
        try:
            v = eval_param_expr(e, frozen, kernel.name)
        except KernelError as err:
            raise error(err.message + at) from None
        if isinstance(v, float) and not v.is_integer():
            raise error(f"{what} = {v} is not a whole number{at}")
        return int(v)
    return frozen, whole, error, at


def _block(kernel: Kernel, whole, error, at: str) -> tuple[tuple[int, int, int], int]:
    """The block's extents and dynamic shared bytes, checked (see _bind)."""
    block = tuple(whole(e, f'block.{a}') for a, e in zip('xyz', kernel.block))
    for axis, n, limit in zip("xyz", block, MAX_BLOCK_DIM):
        if not 1 <= n <= limit:
            raise error(f"block.{axis} = {n} is outside 1..{limit}{at}")
    if math.prod(block) > MAX_THREADS_PER_BLOCK:
        raise error(f"a block of {block} has {math.prod(block)} threads; the limit is "
                    f"{MAX_THREADS_PER_BLOCK}{at}")
    dyn = whole(kernel.dynamic_smem, 'dynamic shared memory')
    if dyn < 0:
        raise error(f"dynamic shared memory is {dyn} bytes{at}")
    if kernel.static_smem + dyn > MAX_SMEM_PER_BLOCK:
        raise error(f"shared memory {kernel.static_smem + dyn} B per block (static "
                    f"{kernel.static_smem} + dynamic {dyn}) exceeds sm_90's "
                    f"{MAX_SMEM_PER_BLOCK} B per block, the per-block maximum of every "
                    f"architecture: no GPU launches it{at}")
    if dyn and not any(b.dynamic for b in kernel.buffers):
        raise error(f"the launch asks for {dyn} bytes of dynamic shared memory but the "
                    "kernel declares no dynamic_shared array")
    for view in kernel.shared:
        if view.buffer.dynamic and view.layout is not None:
            elements = dyn // view.dtype.size
            if elements % view.layout.period:
                raise error(f"dynamic shared array '{view.name}' has {view.layout.label}, "
                            f"which permutes blocks of {view.layout.period} elements, but the "
                            f"launch gives {dyn} bytes ({elements} elements){at}: make it a "
                            "multiple, or swizzled offsets would leave the region")
    return block, dyn



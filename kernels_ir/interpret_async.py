"""How the interpreter runs asynchronous copies: cp.async groups, mbarriers, TMA and bulk copies,
landing each copy when its wait or phase says it has."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .arrays import source_name
from .expr import Expr
from .run_types import GlobalAccess, LayoutMismatch
from .semantics import LaneFault
from .stmt_async import (BulkCommit, BulkLoad, BulkStore, BulkWait, CommitGroup, CopyAsync,
                         FenceProxyAsync, MbarrierArrive, MbarrierInit, MbarrierWait, TmaLoad,
                         TmaStore, WaitGroup)
from .tma import (
    BULK_ALIGN, DESTINATION_ALIGN, GLOBAL_ALIGN, MBARRIER_MAX_COUNT, MBARRIER_MAX_TX,
)

if TYPE_CHECKING:
    from .interpreter import Machine


def copy_async(machine: Machine, s: CopyAsync, idx: np.ndarray) -> None:
    offset = machine._offsets(s, idx)
    if machine._addresses_only(s, idx, offset):
        if machine.partial.sources:
            machine._element_offsets(s.src, s.src_index, s.width, idx)
        return
    values = _copied(machine, s, idx)
    # observers see the bytes the copy will write (two lanes copying the same bytes to
    # one place, as cooperative groups' memcpy_async has a tile's last lanes do, are
    # no order-dependent race)
    _, first = machine._shared_elements(s, idx, offset,
                                        tuple(values[:, j] for j in range(s.width)))
    issue_copy(machine, s, idx, first, values)


def _copied(machine: Machine, s: CopyAsync, idx: np.ndarray) -> np.ndarray:
    """The elements a copy writes, per lane: read from its source, or zeros past its
    `src_bytes` (a lane that reads none never touches its source address)."""
    if s.src_bytes is None:
        src_offset = machine._element_offsets(s.src, s.src_index, s.width, idx)
        if machine.observer is not None:
            machine.observer(GlobalAccess(s, idx, src_offset))
        return machine.globals[s.src.name][
            machine._stored_at(s.src, src_offset[:, None] + np.arange(s.width))]
    size = s.src.dtype.size
    got = machine.eval(s.src_bytes, idx).astype(np.int64)
    bad = (got % size != 0) | (got > s.width * size)
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise LaneFault(f"cp.async reads {int(got[lane])} of its {s.width * size} bytes: "
                        f"not a whole number of {size}-byte elements of "
                        f"'{s.src.name}' (or more than it copies)", np.array([lane]))
    values = np.zeros((idx.size, s.width), s.src.dtype.np)
    reading = got > 0
    if reading.any():
        src_offset = machine._element_offsets(s.src, s.src_index, s.width, idx[reading])
        if machine.observer is not None:
            machine.observer(GlobalAccess(s, idx[reading], src_offset))
        read = machine.globals[s.src.name][
            machine._stored_at(s.src, src_offset[:, None] + np.arange(s.width))]
        keep = np.arange(s.width)[None, :] < (got[reading] // size)[:, None]
        values[reading] = np.where(keep, read, 0)
    return values


def issue_copy(machine: Machine, s: CopyAsync, idx: np.ndarray, first: np.ndarray, values) -> None:
    """Put a copy in flight until its group is waited for (`values` None: a check's run
    follows the bytes, not what they hold)."""
    machine._check_settled(s, first, s.width, reading=False)
    machine.in_flight[machine._bytes(s, first, s.width)] += 1
    # slot: the mbarrier a cp.async.mbarrier.arrive tied the copy to (-1: none yet), and
    # phase: that barrier's phase then (the copy lands when it has completed)
    machine.copies.append(dict(stmt=s, threads=idx.copy(), group=machine.copy_group[idx].copy(),
                               first=first, values=values, slot=np.full(idx.size, -1),
                               phase=np.zeros(idx.size, np.int64)))


def commit_group(machine: Machine, s: CommitGroup, idx: np.ndarray) -> None:
    machine.copy_group[idx] += 1


def wait_group(machine: Machine, s: WaitGroup, idx: np.ndarray) -> None:
    """Copies of these threads in committed groups older than the newest `pending` land."""
    waiting = np.zeros(machine.total, bool)
    waiting[idx] = True
    _land_copies(machine, lambda c: waiting[c["threads"]] &
                          (c["group"] < machine.copy_group[c["threads"]] - s.pending))


def _land_copies(machine: Machine, landed) -> None:
    """The cp.async copies (rows of each issued copy) that `landed(copy)` selects land."""
    kept = []
    for c in machine.copies:
        done = landed(c)
        if done.any():
            stmt = c["stmt"]
            memory = machine.shared.view(stmt.array.dtype.storage)
            first = c["first"][done]
            if c["values"] is not None:  # None: a check's run tracks bytes, not values
                memory[first[:, None] + np.arange(stmt.width)] = c["values"][done]
            nbytes = machine._bytes(stmt, first, stmt.width)
            machine.written[nbytes] = True
            machine.in_flight[nbytes] -= 1
        if not done.any():
            kept.append(c)     # untouched: no copy of its rows
        elif not done.all():
            kept.append({k: (v[~done] if isinstance(v, np.ndarray) else v)
                         for k, v in c.items()})
    machine.copies = kept


def _mbarrier_slots(machine: Machine, array, index, idx: np.ndarray) -> np.ndarray:
    """Each lane's mbarrier as a slot (its flat window byte / 8) of its block."""
    offset = machine._element_offsets(array, index, 1, idx)
    base = machine.kernel.buffer_base(array.buffer)
    return (machine.block_lin[idx] * machine.window + base + offset * 8) // 8


def _mbarrier_state(machine: Machine) -> dict[str, np.ndarray]:
    if machine.mbarriers is None:
        n = machine.nblocks * machine.window // 8
        machine.mbarriers = {k: np.zeros(n, np.int64)
                             for k in ("count", "pending", "tx", "phase", "ready")}
    return machine.mbarriers


def _require_init(machine: Machine, array, slots: np.ndarray) -> dict[str, np.ndarray]:
    state = _mbarrier_state(machine)
    missing = state["ready"][slots] == 0
    if missing.any():
        lane = int(np.flatnonzero(missing)[0])
        raise LaneFault(f"uses mbarrier '{source_name(array)}' (byte "
                        f"{int(slots[lane] * 8 % machine.window)} of the block's window) "
                        "before any mbarrier.init of it", np.array([lane]))
    return state


def _complete_phases(machine: Machine, slots: np.ndarray) -> None:
    """Barriers whose arrivals and transaction bytes are all in complete their phase."""
    st = machine.mbarriers
    slots = np.unique(slots)
    done = slots[(st["pending"][slots] == 0) & (st["tx"][slots] == 0)]
    st["phase"][done] += 1
    st["pending"][done] = st["count"][done]


def _within(machine: Machine, e: Expr, idx: np.ndarray, low: int, high: int,
            what: str) -> np.ndarray:
    """Each lane's value of `e`, which PTX allows only in low..high."""
    values = machine.eval(e, idx).astype(np.int64)
    bad = (values < low) | (values > high)
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise LaneFault(f"{what} {int(values[lane])} (PTX allows {low}..{high})",
                        np.array([lane]))
    return values


def mbarrier_init(machine: Machine, s: MbarrierInit, idx: np.ndarray) -> None:
    slots = _mbarrier_slots(machine, s.array, s.index, idx)
    count = _within(machine, s.count, idx, 1, MBARRIER_MAX_COUNT, "mbarrier.init with count")
    st = _mbarrier_state(machine)
    st["count"][slots] = st["pending"][slots] = count
    st["tx"][slots] = st["phase"][slots] = 0
    st["ready"][slots] = 1


def mbarrier_arrive(machine: Machine, s: MbarrierArrive, idx: np.ndarray) -> None:
    slots = _mbarrier_slots(machine, s.array, s.index, idx)
    st = _require_init(machine, s.array, slots)
    if s.kind == "cp_async":
        # one more pending arrival now, made when the copies have landed: the phase
        # cannot complete before them, so they are tied to it (and land with it)
        _tie_copies(machine, idx, slots, st["phase"][slots])
        return
    if s.expect_tx is not None:
        tx = _within(machine, s.expect_tx, idx, 0, MBARRIER_MAX_TX, "expect_tx of (bytes)")
        np.add.at(st["tx"], slots, tx)
    if s.kind == "expect_tx":
        return
    if s.token is not None:   # the phase arrived on, before this arrival completes it
        if s.token not in machine.vars:
            machine.vars[s.token] = np.zeros(machine.total, s.token.dtype.np)
        machine.vars[s.token][idx] = st["phase"][slots].astype(s.token.dtype.np)
    np.subtract.at(st["pending"], slots, 1)
    over = st["pending"][slots] < 0
    if over.any():
        # the extra arrivals would belong to the next phase, an order this lockstep
        # model cannot tell: refused rather than guessed
        lane = int(np.flatnonzero(over)[0])
        raise LaneFault(f"more threads arrive on mbarrier '{s.array.name}' at once than "
                        f"its count ({int(st['count'][slots[lane]])}): arrivals that "
                        "spill into the next phase are not modelled", np.array([lane]))
    _complete_phases(machine, slots)


def _tie_copies(machine: Machine, idx: np.ndarray, slots: np.ndarray, phases: np.ndarray) -> None:
    """The cp.async copies these threads issued and no barrier has yet tracked complete on
    each thread's barrier slot, in its current phase."""
    where = np.full(machine.total, -1, np.int64)
    where[idx] = np.arange(idx.size)
    for c in machine.copies:
        at = where[c["threads"]]
        free = (at >= 0) & (c["slot"] < 0)
        c["slot"][free] = slots[at[free]]
        c["phase"][free] = phases[at[free]]


def mbarrier_wait(machine: Machine, s: MbarrierWait, idx: np.ndarray) -> None:
    """Lanes wait for the phase of their parity: it must already be complete (in this
    lockstep model nothing else can happen while they wait: a phase still open here
    never completes on the GPU either), and its copies land."""
    slots = _mbarrier_slots(machine, s.array, s.index, idx)
    st = _require_init(machine, s.array, slots)
    parity = machine.eval(s.parity, idx).astype(np.int64)
    if ((parity != 0) & (parity != 1)).any():
        lane = int(np.flatnonzero((parity != 0) & (parity != 1))[0])
        raise LaneFault(f"mbarrier wait parity must be 0 or 1, got {int(parity[lane])}",
                        np.array([lane]))
    open_ = st["phase"][slots] % 2 == parity
    while open_.any() and machine.coroutines is not None and \
            machine.coroutines.wait_for_others():
        open_ = st["phase"][slots] % 2 == parity   # another branch ran: look again
    if open_.any():
        lane = int(np.flatnonzero(open_)[0])
        slot = slots[lane]
        count, pending, tx = (int(st[k][slot]) for k in ("count", "pending", "tx"))
        why = [f"{count - pending} of its {count} arrivals came"] if pending else []
        if tx > 0:
            why.append(f"{tx} expected transaction bytes never arrive (the phase's "
                       f"expect_tx exceeds what its copies deliver by {tx})")
        elif tx < 0:
            why.append(f"its copies deliver {-tx} bytes more than the phase's expect_tx "
                       "announced")
        raise LaneFault(f"waits for phase {int(st['phase'][slot])} (parity "
                        f"{int(parity[lane])}) of mbarrier '{s.array.name}', which never "
                        f"completes: {'; '.join(why)}. The GPU would hang here",
                        np.array([lane]))
    _land_bulk(machine, np.unique(slots))


def _land_bulk(machine: Machine, slots: np.ndarray) -> None:
    """TMA copies on these barriers whose phase has completed land (and the cp.async
    copies tied to them)."""
    phase = machine.mbarriers["phase"]
    if machine.copies:
        _land_copies(machine, lambda c: (c["slot"] >= 0) & np.isin(c["slot"], slots) &
                              (c["phase"] < phase[np.maximum(c["slot"], 0)]))
    kept = []
    for c in machine.bulk_copies:
        done = np.isin(c["slot"], slots) & (c["phase"] < phase[c["slot"]])
        if done.any():
            nbytes = c["bytes"][done].ravel()
            if c["values"] is not None:
                machine.shared[nbytes] = c["values"][done].ravel()
            machine.written[nbytes] = True
            if machine.unfenced is not None:
                machine.unfenced[nbytes] = 0      # the async proxy wrote them
            if machine.origin is not None:
                machine.origin[nbytes] = c["origin"][done].ravel() \
                    if c.get("origin") is not None else 0
                if c.get("intent") is not None:
                    at, code = c["intent"][0][done], c["intent"][1][done]
                    known = code != 0      # elements past the array expect nothing
                    machine.intent[at[known]] = code[known]
            machine.in_flight[nbytes] -= 1
        if not done.any():
            kept.append(c)     # untouched: no copy of its rows
        elif not done.all():
            kept.append({k: _rows(v, ~done) for k, v in c.items()})
    machine.bulk_copies = kept


def tma_load(machine: Machine, s: TmaLoad, idx: np.ndarray) -> None:
    offset = machine._offsets(s, idx)
    if machine._addresses_only(s, idx, offset):
        if machine.partial.sources:    # where the box starts in global memory, checked
            _tma_elements(machine, s.tensor_map, s.coords, idx)
        return
    values = _tma_box(machine, s, idx)
    _, first = machine._shared_elements(s, idx, offset)
    origin = tma_origin(machine, s, idx)
    issue_tma(machine, s, idx, first, values, origin, tma_intent(machine, s, idx, offset, origin))


def tma_origin(machine: Machine, s: TmaLoad, idx: np.ndarray) -> np.ndarray | None:
    """Per lane and box byte: (map number + 1) << 40 | (global element + 1), 0 outside
    the tensor (what the layout-agreement check compares wgmma's reads with)."""
    if machine.origin is None:
        return None
    m = s.tensor_map
    if m not in machine.origin_maps:
        machine.origin_maps.append(m)
    number = machine.origin_maps.index(m) + 1
    inside, flat = _tma_elements(machine, m, s.coords, idx)
    code = np.where(inside, (number << 40) | (flat + 1), 0)
    return np.repeat(code, m.dtype.size, axis=1)


def tma_intent(machine: Machine, s: TmaLoad, idx: np.ndarray, offset: np.ndarray, origin):
    """(flat byte indices, codes): where the destination array's declaration puts each
    box element (its rows laid one after another in the array's logical index from the
    destination, through the array's layout), and the element's origin code there;
    elements past the array get code 0 (landing skips them)."""
    if origin is None:
        return None
    array, m = s.array, s.tensor_map
    size = array.dtype.size
    layout = array.layout
    dst = layout.apply(offset) if layout is not None else offset    # logical (involution)
    row = array.strides[-2] if array.rank >= 2 else m.box[-1]
    r = np.arange(m.rows)[:, None]
    c = np.arange(m.box[-1])[None, :]
    logical = dst[:, None] + (r * row + c).ravel()[None, :]           # (lanes, elements)
    extent = math.prod(machine.launch.extent(array)[:-1]) * (
        machine.launch.extent(array)[-1] + array.pad)
    inside = logical < extent
    physical = layout.apply(np.where(inside, logical, 0)) if layout is not None \
        else np.where(inside, logical, 0)
    base = machine.kernel.buffer_base(array.buffer)
    at = (machine.block_lin[idx] * machine.window + base)[:, None, None] \
        + (physical * size)[:, :, None] + np.arange(size)
    code = np.where(inside[:, :, None], origin.reshape(idx.size, -1, size), 0)
    return at.reshape(idx.size, -1), code.reshape(idx.size, -1)


def check_reader(machine: Machine, s, offset: np.ndarray, nbytes: np.ndarray, idx: np.ndarray,
                 lanes: np.ndarray | None = None) -> None:
    """A read by index of bytes TMA wrote must find the element the array's declaration
    expects there (else a kernels_ir.LayoutMismatch for this execution's first wrong
    element)."""
    nbytes = nbytes.reshape(offset.size, -1)
    want, got = machine.intent[nbytes], machine.origin[nbytes]
    wrong = (want != 0) & (got != want)
    if not wrong.any():
        return
    lane, byte = (int(x) for x in np.argwhere(wrong)[0])
    array = s.array
    m = machine.origin_maps[int(want[lane, byte] >> 40) - 1]
    stride = int(machine.eval(m.row_stride, idx[:1])[0]) if m.row_stride is not None else 0
    def element(code):
        flat = int(code & ((1 << 40) - 1)) - 1
        return f"{m.array.name}({flat // stride}, {flat % stride})" if stride \
            else f"{m.array.name}({flat})"
    at = int(offset[lane]) + byte // array.dtype.size
    logical = int(array.layout.apply(np.array([at]))[0]) if array.layout is not None \
        else at
    ext = machine.launch.extent(array)
    index = "".join(f"[{int(i)}]" for i in np.unravel_index(
        logical, tuple(ext[:-1]) + (ext[-1] + array.pad,)))
    declared = array.layout.label if array.layout is not None else "without a layout"
    what = "holds nothing TMA wrote" if got[lane, byte] == 0 else \
        f"holds {element(got[lane, byte])}"
    machine.observer(LayoutMismatch(
        s, f"reads {array.name}{index}, which {what} where '{array.name}' as declared "
           f"({declared}) expects {element(want[lane, byte])}: tensor map '{m.name}' "
           f"writes {m.swizzle or 'no swizzle'}; declare '{array.name}' with that "
           "layout, or index it through the same swizzle",
        int(idx[lane if lanes is None else lanes[lane]])))


def _tma_box(machine: Machine, s: TmaLoad, idx: np.ndarray) -> np.ndarray:
    """The box each lane copies, as bytes (zeros outside the tensor)."""
    glob = machine.globals[s.tensor_map.array.name]
    inside, flat = _tma_elements(machine, s.tensor_map, s.coords, idx)
    at = machine._stored_at(s.tensor_map.array, np.where(inside, flat, 0))
    values = np.where(inside, glob[at], 0).astype(glob.dtype)
    return values.view(np.uint8).reshape(idx.size, -1)


def _tma_elements(machine: Machine, m, coords, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per lane and box element (box order): whether it lies inside the tensor, and its
    element index in the global array; the map is checked against the array first."""
    length = machine.launch.lengths[m.array.name]   # (address-only runs hold no data)
    if m.array.name in machine.unbounded:   # (a length the source does not say: not checked)
        length = np.iinfo(np.int64).max
    shape = [int(machine.eval(e, idx[:1])[0]) for e in m.shape]
    strides = [int(machine.eval(e, idx[:1])[0]) for e in m.strides] + [1]
    size = m.dtype.size
    span = sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    if min(shape) < 1 or span > length or any(   # (an extent of 1 may have stride 0)
            s < (1 if n > 1 else 0) or s * size % GLOBAL_ALIGN
            for n, s in zip(shape, strides[:-1])) or (
            m.rank == 2 and strides[0] < shape[1]):
        raise LaneFault(f"tensor map '{m.name}' ({m.describe()}) at shape {shape}"
                        + (f", strides {strides[:-1]}" if m.rank > 1 else "")
                        + f": it must lie inside '{m.array.name}' ("
                        + (f"{length} elements)" if m.array.name not in machine.unbounded
                           else "its length not given)")
                        + (f", with strides that are multiples of {GLOBAL_ALIGN} bytes"
                           + (f" and rows of at least {shape[1]} elements"
                              if m.rank == 2 else "") if m.rank > 1 else ""),
                        np.zeros(1, np.int64))
    inside = np.ones((idx.size, 1), bool)
    flat = np.zeros((idx.size, 1), np.int64)
    for dim, (c, extent) in enumerate(zip(coords, m.box)):
        at = machine.eval(c, idx).astype(np.int64)[:, None] + np.arange(extent)
        ok = (at >= 0) & (at < shape[dim])
        step = strides[dim]
        inside = (inside[:, :, None] & ok[:, None, :]).reshape(idx.size, -1)
        flat = (flat[:, :, None] + (at * step)[:, None, :]).reshape(idx.size, -1)
    # the box must start on 16 global bytes (its strides and the tensor's address are
    # multiples of 16, so its innermost coordinate decides): an H100 stopped with an
    # illegal instruction for a box of 2-byte elements 1 and 4 columns off (docs/tma.md)
    off = flat[:, 0] * size % GLOBAL_ALIGN
    if off.any():
        lane = int(np.flatnonzero(off)[0])
        raise LaneFault(f"illegal instruction (a misaligned TMA box): the box of tensor "
                        f"map '{m.name}' at column "
                        f"{int(machine.eval(coords[-1], idx[lane:lane + 1])[0])} starts "
                        f"{int(off[lane])} bytes past a {GLOBAL_ALIGN}-byte boundary of "
                        f"'{m.array.name}' (TMA boxes start on {GLOBAL_ALIGN} bytes: the "
                        f"innermost coordinate times {size} bytes must be a multiple of "
                        f"{GLOBAL_ALIGN})", np.array([lane]))
    return inside, flat


def issue_tma(machine: Machine, s, idx: np.ndarray, first: np.ndarray, values, origin=None,
              intent=None) -> None:
    """Put each lane's TMA box or bulk copy in flight on its mbarrier, its bytes counted
    toward the barrier's transactions (`values` None: a check's run follows the bytes,
    not what they hold)."""
    nbytes = _bulk_source(machine, s, idx, first)
    slots = _mbarrier_slots(machine, s.barrier, s.barrier_index, idx)
    st = _require_init(machine, s.barrier, slots)
    machine._check_bytes_settled(s.array, nbytes, reading=False,
                                 who=f"the {_BULK_NAMES[type(s)]} ")
    machine.in_flight[nbytes.ravel()] += 1
    machine.bulk_copies.append(dict(stmt=s, slot=slots, phase=st["phase"][slots].copy(),
                                    bytes=nbytes, values=values, origin=origin,
                                    intent=intent))
    np.subtract.at(st["tx"], slots, s.access_bytes)
    _complete_phases(machine, slots)


def _bulk_source(machine: Machine, s, idx: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Flat shared byte indices each lane's copy writes or reads (TMA: the box by the
    layout rule; bulk: contiguous), after the alignment and bounds checks."""
    size = s.array.dtype.size
    within = first * size % machine.window
    tma = isinstance(s, (TmaLoad, TmaStore))
    align = DESTINATION_ALIGN if tma else BULK_ALIGN
    bad = within % align != 0
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise LaneFault(f"misaligned address: the {_BULK_NAMES[type(s)]}'s tile "
                        f"'{s.array.name}' at byte {int(within[lane])} of the block's "
                        f"window is not {align}-byte aligned", np.array([lane]))
    extent = machine.launch.extent(s.array)
    end = machine.kernel.buffer_base(s.array.buffer) + size * math.prod(extent[:-1]) * (
        extent[-1] + s.array.pad)
    span = s.tensor_map.footprint if tma else s.nbytes
    over = within + span > end
    if over.any():
        lane = int(np.flatnonzero(over)[0])
        raise LaneFault(f"the {_BULK_NAMES[type(s)]} spans {span} bytes from byte "
                        f"{int(within[lane])} of the block's window, past the end of "
                        f"'{source_name(s.array)}' (byte {end})", np.array([lane]))
    rel = s.tensor_map.destinations(within) if tma else \
        within[:, None] + np.arange(s.nbytes)
    return (first * size - within)[:, None] + rel


def issue_bulk_read(machine: Machine, s, idx: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Check the source bytes of a TMA / bulk store (written, not in flight, published to
    the async proxy) and hold them as read until the thread's bulk wait."""
    nbytes = _bulk_source(machine, s, idx, first)
    check_async_source(machine, f"the {_BULK_NAMES[type(s)]}", s.array, nbytes,
                                np.arange(idx.size))
    if machine.reading.size == 0:
        machine.reading = np.zeros(machine.shared.size, np.int32)
    np.add.at(machine.reading, nbytes.ravel(), 1)
    machine.bulk_reads.append(dict(stmt=s, threads=idx.copy(),
                                   group=machine.bulk_group[idx].copy(), bytes=nbytes))
    return nbytes


def check_async_source(machine: Machine, who: str, array, nbytes: np.ndarray,
                       lanes: np.ndarray) -> None:
    """Bytes the async proxy reads (a row of `nbytes` per copy or warpgroup, `lanes`
    their lanes) must be written, landed, and published by their writer's fence."""
    missing = ~machine.written[nbytes].all(axis=1)
    if missing.any():
        raise LaneFault(f"{who} reads shared memory no thread has written "
                        f"('{array.name}'): uninitialized in CUDA",
                        lanes[np.flatnonzero(missing)[:1]])
    machine._check_bytes_settled(array, nbytes, reading=True, lanes=lanes, who=f"{who} ")
    if machine.unfenced is not None:
        writer = machine.unfenced[nbytes]
        stale = writer.any(axis=1)
        if stale.any():
            row = int(np.flatnonzero(stale)[0])
            w = int(writer[row][writer[row] > 0][0]) - 1
            raise LaneFault(f"{who} reads '{array.name}', which thread "
                            f"{machine._where(w)['thread']} stored without a "
                            "fence.proxy.async.shared::cta since: it reads through the "
                            "async proxy, which may see stale bytes (fence, then "
                            "__syncthreads(), first)", lanes[row:row + 1])


def tma_store(machine: Machine, s: TmaStore, idx: np.ndarray) -> None:
    offset = machine._offsets(s, idx)
    if machine._addresses_only(s, idx, offset):
        if machine.partial.sources:
            _tma_elements(machine, s.tensor_map, s.coords, idx)
        return
    _, first = machine._shared_elements(s, idx, offset)
    nbytes = issue_bulk_read(machine, s, idx, first)
    m = s.tensor_map
    glob = machine.globals[m.array.name]
    values = machine.shared[nbytes].reshape(idx.size, -1).copy().view(glob.dtype)
    inside, flat = _tma_elements(machine, m, s.coords, idx)
    glob[machine._stored_at(m.array, flat[inside])] = values[inside]


def bulk_store(machine: Machine, s: BulkStore, idx: np.ndarray) -> None:
    offset = machine._offsets(s, idx)
    if machine._addresses_only(s, idx, offset):
        _bulk_global(machine, s.dst, s.dst_index, s.nbytes, idx)
        return
    _, first = machine._shared_elements(s, idx, offset)
    nbytes = issue_bulk_read(machine, s, idx, first)
    glob = machine.globals[s.dst.name]
    at = _bulk_global(machine, s.dst, s.dst_index, s.nbytes, idx)
    glob.view(np.uint8)[machine._stored_at(s.dst, at, in_bytes=True)] = machine.shared[nbytes]


def _bulk_global(machine: Machine, array, index, nbytes: int, idx: np.ndarray) -> np.ndarray:
    """Byte indices of each lane's `nbytes` at global `array[index]`, checked."""
    size = array.dtype.size
    # its ends need 16-byte alignment, not the natural alignment of a vector of its size
    offset = machine._element_offsets(array, index, 1, idx)
    elements, length = -(-nbytes // size), machine.launch.lengths[array.name]
    # (an array whose length the source does not say: its start alone is checked)
    over = offset + elements > length if array.name not in machine.unbounded else \
        np.zeros(offset.size, bool)
    if over.any():
        lane = int(np.flatnonzero(over)[0])
        raise LaneFault(f"out of bounds: a bulk copy of {nbytes} bytes at index "
                        f"{int(offset[lane])} of '{array.name}' ends past its last element "
                        f"(valid 0..{length - 1})", np.array([lane]))
    start = offset * size
    bad = start % BULK_ALIGN != 0
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise LaneFault(f"misaligned address: a bulk copy's global end '{array.name}' at "
                        f"byte {int(start[lane])} is not {BULK_ALIGN}-byte aligned",
                        np.array([lane]))
    return start[:, None] + np.arange(nbytes)


def bulk_load(machine: Machine, s: BulkLoad, idx: np.ndarray) -> None:
    offset = machine._offsets(s, idx)
    if machine._addresses_only(s, idx, offset):
        if machine.partial.sources:
            _bulk_global(machine, s.src, s.src_index, s.nbytes, idx)
        return
    at = _bulk_global(machine, s.src, s.src_index, s.nbytes, idx)
    values = machine.globals[s.src.name].view(np.uint8)[
        machine._stored_at(s.src, at, in_bytes=True)]
    _, first = machine._shared_elements(s, idx, offset)
    issue_tma(machine, s, idx, first, values)


def bulk_commit(machine: Machine, s: BulkCommit, idx: np.ndarray) -> None:
    machine.bulk_group[idx] += 1


def bulk_wait(machine: Machine, s: BulkWait, idx: np.ndarray) -> None:
    """These threads' stores in committed groups older than the newest `pending` have
    read their source (the model writes global memory at issue: `read` or not, the
    shared bytes are free again)."""
    waiting = np.zeros(machine.total, bool)
    waiting[idx] = True
    kept = []
    for c in machine.bulk_reads:
        threads = c["threads"]
        done = waiting[threads] & (c["group"] < machine.bulk_group[threads] - s.pending)
        if done.any():
            np.subtract.at(machine.reading, c["bytes"][done].ravel(), 1)
        if not done.any():
            kept.append(c)
        elif not done.all():
            kept.append({k: (v[~done] if isinstance(v, np.ndarray) else v)
                         for k, v in c.items()})
    machine.bulk_reads = kept


def fence_proxy_async(machine: Machine, s: FenceProxyAsync, idx: np.ndarray) -> None:
    if machine.unfenced is not None:
        machine.unfenced[np.isin(machine.unfenced, idx + 1)] = 0


def _rows(value, keep: np.ndarray):
    """A copy record's per-lane field (an array, or a tuple of arrays) at the lanes kept."""
    if isinstance(value, np.ndarray):
        return value[keep]
    if isinstance(value, tuple):
        return tuple(_rows(v, keep) for v in value)
    return value


_BULK_NAMES = {TmaLoad: "TMA load", TmaStore: "TMA store", BulkLoad: "bulk load",
               BulkStore: "bulk store"}

"""Many warp requests at once, by the rules of banks.py: the numpy path (a dense per-bank count
where the rows are few, a sorted one otherwise) and, when numba is installed and pays for its
loading, the compiled path; `warp_requests` chooses, and tests hold both equal to
`warp_request`."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .arch import Arch
from .banks import (BANKS, check_width_op, OPS, PLAIN_OPS, RequestError, rules_for, WARP,
                    WAVEFRONT_BYTES, WIDTHS, WORD)


@dataclass(frozen=True)
class BatchPart:
    """Per request of a batch: what it adds to one instruction class (arrays of int64)."""

    category: str
    instructions: np.ndarray
    wavefronts: np.ndarray
    ideal: np.ndarray


@dataclass(frozen=True)
class BatchResult:
    """Per-request wavefronts and ideal wavefronts of a batch (numpy arrays of int64), and
    the same by instruction class (`parts`: one for most ops)."""

    wavefronts: np.ndarray
    ideal: np.ndarray
    parts: tuple[BatchPart, ...] = ()

    @property
    def excess(self) -> np.ndarray:
        """wavefronts - ideal per request."""
        return self.wavefronts - self.ideal


def _as_batch(offsets, widths, ops):
    off = _integers(offsets, "offsets")
    if off.dtype not in (np.int32, np.int64):  # int32 (what the trace makes) is kept as is
        off = off.astype(np.int64)
    if off.ndim != 2 or off.shape[1] > WARP:
        raise RequestError(f"offsets must have shape (n, <=32), got {off.shape}")
    if off.shape[1] < WARP:
        pad = np.full((off.shape[0], WARP - off.shape[1]), -1, off.dtype)
        off = np.concatenate([off, pad], axis=1)
    n = off.shape[0]
    given = _integers(widths, "widths")
    if given.ndim == 0:   # one width for the batch (the trace's): checked once
        bad_w = np.full(n, int(given) not in WIDTHS)
        width = np.full(n, int(given), np.int64)
    else:
        width = np.broadcast_to(given.astype(np.int64), (n,)).copy()
        bad_w = ~np.isin(width, WIDTHS)
    if bad_w.any():
        r = int(np.flatnonzero(bad_w)[0])
        raise RequestError(f"request {r}: access width must be one of {WIDTHS}, got {width[r]}")
    if isinstance(ops, str):
        if ops not in PLAIN_OPS:
            raise RequestError(f"op must be 'load' or 'store', got {ops!r}")
        store = np.full(n, ops == "store")
    else:
        ops_arr = np.asarray(ops)
        store = ops_arr.astype(bool) if ops_arr.dtype == bool else ops_arr == "store"
        if ops_arr.dtype != bool and not np.isin(ops_arr, PLAIN_OPS).all():
            raise RequestError(f"ops must be 'load' or 'store'; got {set(ops_arr.tolist())}")
        store = np.broadcast_to(store, (n,))
    return np.ascontiguousarray(off), np.ascontiguousarray(width), np.ascontiguousarray(store)


def _integers(values, what: str) -> np.ndarray:
    """An integer array; floats only when they are whole numbers (never truncated)."""
    a = np.asarray(values)
    if a.dtype.kind in "iu":
        return a
    flat = a.ravel()
    if a.dtype.kind == "f":
        whole = np.isfinite(flat) & (flat == np.round(flat))
        if whole.all():
            return a.astype(np.int64)
        bad = flat[np.flatnonzero(~whole)[0]]
    else:
        bad = flat[0] if flat.size else values
    raise RequestError(f"{what} must be integers (byte offsets, -1 for inactive lanes; "
                       f"widths in bytes), got {bad!r}")


def _validate(off: np.ndarray, width: np.ndarray, window: int, first: int = 0) -> None:
    """Raise RequestError for the first bad lane (the numpy path; numba checks inline)."""
    if off.size and (width == width[0]).all():
        # one width (the usual batch): a few reductions say whether any lane is bad at all;
        # -1 (inactive) has every low bit set, so the nonzero low bits are its lanes alone
        w = int(width[0])
        lowest = int(off.min())
        if lowest >= -1 and off.max() + w <= window:
            if w == 1:
                return
            if lowest >= 0:   # no inactive lane: the offsets' bits or-ed (a seventh of the counts)
                if not int(np.bitwise_or.reduce(off, axis=None)) & (w - 1):
                    return
            elif np.count_nonzero(off & (w - 1)) == np.count_nonzero(off < 0):
                return
    active = off >= 0
    misaligned = active & (off % width[:, None] != 0)
    outside = active & (off + width[:, None] > window)
    for bad, what in ((misaligned, "is not aligned to the {w}-byte access"),
                      (outside, f"(+{{w}} bytes) is outside the {window}-byte shared window")):
        if bad.any():
            r, lane = (int(x) for x in np.argwhere(bad)[0])
            raise RequestError(f"request {r + first}, lane {lane}: offset {off[r, lane]} "
                               + what.format(w=width[r]))
    if (off < -1).any():
        r, lane = (int(x) for x in np.argwhere(off < -1)[0])
        raise RequestError(f"request {r + first}, lane {lane}: offset {off[r, lane]} is negative "
                           "(-1 marks an inactive lane)")


def _rejected(off: np.ndarray, width, window: int, bad: np.ndarray) -> None:
    """Where compiled loops stopped at a bad request (`bad[0]`), the error the checks give
    for it (the compiled paths check offsets as they read them, not beforehand); `width`
    per request, or one for the batch."""
    if bad[0] >= 0:
        r = int(bad[0])
        w = width[r:r + 1] if np.ndim(width) else np.full(1, width, np.int64)
        _validate(off[r:r + 1], w, window, first=r)
        raise AssertionError("the compiled loops rejected a request the checks accept")


def _merge_mask(off: np.ndarray, width: np.ndarray, store: np.ndarray) -> np.ndarray:
    """Which 8/16-byte loads merge across the warp: every pair of lanes (i, i^1), or every
    quad pair (i, i^2), of which both are active reads one address (each pair compared
    once, through a view of the row: a gather of the partners cost twice as much). Only
    rows whose lanes 0-3 pass are compared whole (random rows seldom do)."""
    merged = (~store) & (width >= 8)
    if not merged.any():
        return merged

    def agree(a, b):
        # both lanes on one address, or either inactive (-1)
        return (a == b) | (np.minimum(a, b) < 0)
    merged &= (agree(off[:, 0], off[:, 1]) & agree(off[:, 2], off[:, 3])) | (
        agree(off[:, 0], off[:, 2]) & agree(off[:, 1], off[:, 3]))
    rows = np.flatnonzero(merged)
    if not rows.size:
        return merged
    sub = off if rows.size == off.shape[0] else off[rows]
    n = sub.shape[0]
    holds = None
    for mask in (1, 2):
        pair = sub.reshape(n, WARP // (2 * mask), 2, mask)
        ok = agree(pair[:, :, 0], pair[:, :, 1]).reshape(n, -1).all(axis=1)
        holds = ok if holds is None else holds | ok
    merged[rows] = holds
    return merged


def _numpy_costs(off: np.ndarray, width: np.ndarray, store: np.ndarray) -> BatchResult:
    """The plain rules over a batch with one sort per request row (#28: about 0.45-0.8 us a
    request on random requests, 13-20x the time to stream the offsets once).

    Each lane's key is its group above its byte offset; sorted, a key whose unit (its word,
    or its 8/16-byte pair/quad of banks, whose banks always hold equal counts) differs from
    the one before is a new unit, which adds one to its bank (pair, quad). Sub-word offsets
    sort in word order, so a unit is new once per distinct word. A group's ideal is one
    wavefront when its lanes can ask for at most 128 bytes (every group but those of merged
    8- and 16-byte loads), else it counts the group's distinct accesses: keys unlike the one
    before (naturally aligned accesses of one width coincide or are disjoint).
    """
    n = off.shape[0]
    highest = int(off.max()) if n else -1
    if n and (width == WORD).all() and 0 <= highest < (1 << 40):
        lowest = int(off.view(f"u{off.itemsize}").min())  # -1 (inactive): the largest
        if (highest >> 2) // BANKS - (lowest >> 2) // BANKS < DENSE_BANK_ROWS:
            return _dense_word_costs(off, lowest, highest)
    active = off >= 0
    # the group sits above the offset: bit 24 for any window of a real GPU, else bit 40
    group_bit = 24 if highest < (1 << 24) else 40     # (an empty batch: highest -1)
    kind = np.int32 if group_bit == 24 else np.int64
    sentinel = np.iinfo(kind).max
    key = off.astype(kind, copy=True)
    merged = _merge_mask(off, width, store)
    # lanes per group: 32 (1-4 bytes, merged 8), 16 (8 bytes, merged 16) or 8 (16 bytes)
    size = np.where(width <= 4, 32,
                    np.where(width == 8, np.where(merged, 32, 16), np.where(merged, 16, 8)))
    # log2 of a unit's bytes: a word for 1, 2 and 4 bytes, a pair of banks for 8, a quad for
    # 16; a group has `slots` units (32, 16 or 8) and the groups' slots fill a row's 32
    shift = np.where(width >= 16, 4, np.where(width == 8, 3, 2))
    one_size, one_shift = bool((size == size[0]).all()), bool((shift == shift[0]).all())
    lane = np.arange(WARP)
    if one_size and size[0] < WARP:       # the usual batch: one row of groups for all
        key |= (lane // int(size[0])).astype(kind) << group_bit
    elif not one_size:
        table = np.stack([(lane // s).astype(kind) << group_bit for s in (32, 16, 8)])
        key |= table[np.where(size == 32, 0, np.where(size == 16, 1, 2))]
    key[~active] = sentinel
    key.sort(axis=1)
    live = key != sentinel
    s = int(shift[0]) if one_shift else shift.astype(kind)[:, None]
    slots = BANKS >> (s - 2)
    unit = key >> s
    index = np.int32 if n * BANKS < np.iinfo(np.int32).max else np.int64
    slot = (key >> group_bit).astype(index, copy=False)
    slot *= slots
    slot += (unit & (slots - 1)).astype(index, copy=False)
    slot += (np.arange(n, dtype=index) * BANKS)[:, None]
    np.putmask(slot, ~_changes(unit, live), n * BANKS)     # not a new unit: a spare bin
    counts = np.bincount(slot.ravel(), minlength=n * BANKS + 1)[:-1].reshape(n, 4, 8)
    # per 8 slots (a quarter of a row), the most any slot holds, as a tree of maxima
    half = np.maximum(counts[:, :, :4], counts[:, :, 4:])
    half = np.maximum(half[:, :, :2], half[:, :, 2:])
    most = np.maximum(half[:, :, 0], half[:, :, 1])
    per_width = {32: lambda: np.maximum(np.maximum(most[:, 0], most[:, 1]),
                                        np.maximum(most[:, 2], most[:, 3])),
                 16: lambda: np.maximum(most[:, 0], most[:, 1]) + np.maximum(most[:, 2],
                                                                             most[:, 3]),
                 8: lambda: most.sum(axis=1)}
    kinds = np.unique(slots).tolist()
    wavefronts = per_width[kinds[0]]() if len(kinds) == 1 else np.select(
        [slots[:, 0] == k for k in kinds], [per_width[k]() for k in kinds])
    # ideal: groups with an active lane, where a group asks for at most 128 bytes
    ideal = np.zeros(n, np.int64)
    for s_ in np.unique(size).tolist():
        rows = slice(None) if one_size else size == s_
        ideal[rows] = active[rows].reshape(-1, WARP // s_, s_).any(axis=2).sum(axis=1)
    big = np.flatnonzero(size * width > WAVEFRONT_BYTES)   # merged 8- and 16-byte loads
    if big.size:
        k = key[big]
        new_access = _changes(k, live[big])
        group = k >> group_bit
        # distinct accesses per group: a count (at most 32) per byte of one sum
        packed = (new_access.astype(np.uint32) << ((group & 3) << 3).astype(np.uint32)).sum(
            axis=1, dtype=np.int64)
        distinct = (packed[:, None] >> np.arange(0, 32, 8)) & 255
        ideal[big] = np.where(distinct > 0, np.maximum(
            -(-(distinct * width[big][:, None]) // WAVEFRONT_BYTES), 1), 0).sum(axis=1)
    return BatchResult(wavefronts.astype(np.int64), ideal)


# Word accesses within this many rows of 32 banks (2 KB) are costed on a dense table of the
# rows' words instead of by a sort (#28: a histogram's 256 bins, 12 ms for 65,536 requests
# against 40-60 ms sorted); the table's cost grows with the rows, the sort's does not (at 32
# rows both take about 35 ms).
DENSE_BANK_ROWS = 16


def _dense_word_costs(off: np.ndarray, lowest: int, highest: int) -> BatchResult:
    """The plain rules for 4-byte accesses whose words span few bank rows (`lowest`, the
    smallest active offset; `highest`, the largest): each request marks the words its lanes
    touch in a table of the span's words (one row of 32 banks after another), so a bank's
    distinct words are the marks in its column, summed down the rows eight banks at a time
    (bytes of a uint64: a count never passes 32)."""
    n = off.shape[0]
    base = (lowest >> 2) // BANKS * BANKS - BANKS     # one row first for the inactive lanes
    rows = (highest >> 2) // BANKS - base // BANKS + 1
    span = rows * BANKS
    # an inactive lane's word (-1) less base lands in the first row by itself when base is
    # -32 (the span starts in the window's first row); elsewhere it is moved there
    inactive = base >= 0 and bool((off < 0).any())
    # requests a table of about 2 MB at a time (16 MB tables ran 1.1-1.3x slower)
    step = max(1, (1 << 21) // span)
    wavefronts = np.empty(n, np.int64)
    distinct = np.empty(n, np.int64)
    for i in range(0, n, step):
        part = off[i:i + step]
        m = part.shape[0]
        starts = (np.arange(m, dtype=np.intp) * span)[:, None]
        # each lane's place in the table, in the offsets' type, then in the scatter's index
        # type (no conversion there): 48 ns a request, against 54-100 for those steps on
        # 64-bit integers (the table has at most 2 M entries: 32 bits hold it)
        cols = part >> 2
        cols += (starts - base).astype(cols.dtype)
        if inactive:   # inactive lanes (-1) land in the first row
            np.maximum(cols, starts.astype(cols.dtype), out=cols)
        cols = cols.astype(np.intp)
        table = np.zeros(m * span, np.uint8)
        table[cols] = 1
        # (einsum sums down the rows in 24 ns a request; .sum(axis=1) of this strided view
        # took 136)
        packed = np.einsum("ijk->ik", table.view(np.uint64).reshape(m, rows, BANKS // 8)[:, 1:])
        q = [packed[:, k] for k in range(BANKS // 8)]
        # per request the distinct words (at most 32, so the bytes' sum stays in a byte)
        # and the fullest bank, both on the four words of eight counts: a reduction over
        # the 32 bytes took 77 ns a request, these word operations about 25
        distinct[i:i + m] = ((q[0] + q[1] + q[2] + q[3]) * _BYTE_ONES) >> np.uint64(56)
        wavefronts[i:i + m] = _largest_field(_byte_max(_byte_max(q[0], q[1]),
                                                       _byte_max(q[2], q[3])))
    ideal = np.where(distinct > 0,
                     np.maximum(-(-(distinct * WORD) // WAVEFRONT_BYTES), 1), 0)
    return BatchResult(wavefronts, ideal.astype(np.int64))


_BYTE_ONES = np.uint64(0x0101010101010101)


_BYTE_HIGH = np.uint64(0x8080808080808080)


# the larger byte of each 16-bit value (a uint64's largest byte: the largest of four)
_TOP_BYTE = np.maximum(np.arange(1 << 16) & 255, np.arange(1 << 16) >> 8).astype(np.uint8)


def _largest_field(words: np.ndarray, table: np.ndarray = _TOP_BYTE) -> np.ndarray:
    """Per uint64 of a 1-D array, its largest field: `table` holds the largest field of each
    16-bit value (default: bytes). Four lookups and three maxima: three byte-wise maxima of
    the word and itself shifted took 1.8-3x as long."""
    top = table.take(words.view(np.uint16).reshape(-1, 4))
    return np.maximum(np.maximum(top[:, 0], top[:, 1]), np.maximum(top[:, 2], top[:, 3]))


def _byte_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The larger of each byte of two uint64 arrays whose bytes are all below 128 (each
    byte of a | 0x80.. less b's keeps its high bit exactly where a's byte >= b's: no borrow
    crosses a byte)."""
    ge = (((a | _BYTE_HIGH) - b) & _BYTE_HIGH) >> np.uint64(7)
    mask = ge * np.uint64(255)
    return (a & mask) | (b & ~mask)


def _changes(sorted_rows: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Where each live entry of a row-sorted array differs from the entry before it."""
    out = np.empty_like(live)
    out[:, 0] = live[:, 0]
    np.not_equal(sorted_rows[:, 1:], sorted_rows[:, :-1], out=out[:, 1:])
    return out & live


def warp_requests(offsets, widths, ops="load", arch: str | Arch = "sm_90",
                  window: int | None = None, engine: str = "auto",
                  chunk: int = 65536, matrices: int | None = None) -> BatchResult:
    """Wavefronts and ideal wavefronts of many requests (the engine the whole-launch analysis uses).

    `offsets`: int array (n, 32) of byte offsets, -1 for inactive lanes; `widths`: bytes, one
    or per request; `ops`: "load"/"store", one or per request (or a bool array, True = store),
    or one other op of OPS for the whole batch (with `matrices` for ldmatrix/stmatrix).
    `engine`: "numpy", "numba" (error if not installed) or "auto" (numba when available).
    Results equal `warp_request` on every request.
    """
    a, _ = rules_for(arch)
    if engine not in ("auto", "numpy", "numba"):
        raise ValueError(f"engine must be 'auto', 'numpy' or 'numba', got {engine!r}")
    window = window if window is not None else a.smem_per_block_optin
    if isinstance(ops, str) and ops not in PLAIN_OPS:
        return _other_op(offsets, widths, ops, window, engine, chunk, matrices)
    off, width, store = _as_batch(offsets, widths, ops)
    r = _plain_costs(off, width, store, window, engine, chunk)
    parts = tuple(BatchPart(cat, sel.astype(np.int64), np.where(sel, r.wavefronts, 0),
                            np.where(sel, r.ideal, 0))
                  for cat, sel in (("ld", ~store), ("st", store)) if sel.any())
    return BatchResult(r.wavefronts, r.ideal, parts)


def _other_op(offsets, widths, op: str, window: int, engine: str, chunk: int,
              matrices: int | None) -> BatchResult:
    """One op of smemsim.engine.oprules over a batch, one width at a time."""
    from .oprules import active_lanes, batch
    if op not in OPS:
        raise RequestError(f"op must be one of {', '.join(OPS)}; got {op!r}")
    off, width, _ = _as_batch(offsets, widths, "load")
    lanes = active_lanes(op, matrices)
    if lanes < WARP:   # lanes the instruction ignores (on a copy: the caller's rows stay)
        off = off.copy()
        off[:, lanes:] = -1
    n = off.shape[0]
    wf, ideal = np.zeros(n, np.int64), np.zeros(n, np.int64)
    parts: dict[str, list] = {}
    one_width = n > 0 and bool((width == width[0]).all())
    for w in [int(width[0])] if one_width else np.unique(width).tolist():
        check_width_op(w, op, matrices)
        # every request, when they have one width (no copy of the batch)
        rows = np.arange(n) if one_width else np.flatnonzero(width == w)
        sub = off if one_width else off[rows]
        # numba's loops check each offset as they read it (a pass of its own over the batch
        # cost 24 ns a request, 8% of the 8-byte CAS loop's time); numpy's path checks first
        on_numba = engine == "numba" or (engine == "auto" and _auto_numba(rows.size))
        if on_numba and _numba_kernel() is None:
            raise ImportError("engine='numba' needs numba (pip install 'smemsim[fast]')")
        if not on_numba or op == "cp_async_bypass":   # (no loop reads the bypass's offsets)
            _validate(sub, width[rows], window)

        def plain(o, w_, store):
            # o: these offsets, or some of them with lanes masked (-1): on numba, checked
            # as they are read; on numpy, checked above
            return _plain_costs(o, np.full(o.shape[0], w_, np.int64),
                                np.full(o.shape[0], store), window,
                                "numba" if on_numba else "numpy", chunk, validated=True)

        def compiled(function):
            # the op's own loops on numba, as for plain requests (None: numpy's path);
            # numpy's time counts toward the rent-or-buy rule (_auto_numba)
            return _numba_kernel(function) if on_numba else None
        started, before = time.perf_counter(), dict(_NUMPY_WORK)
        r = batch(sub, w, op, matrices, plain, compiled, window)
        if "kernel" not in _NUMBA_STATE or _NUMBA_STATE["kernel"] is None:
            # the batch's numpy time once (its plain requests' share was counted already)
            _NUMPY_WORK["seconds"] = before["seconds"] + time.perf_counter() - started
            _NUMPY_WORK["requests"] = before["requests"] + rows.size
        if one_width:   # the batch's result as it is (copying it in cost 8 ns a request)
            return r
        wf[rows], ideal[rows] = r.wavefronts, r.ideal
        for p in r.parts:
            acc = parts.setdefault(p.category, [np.zeros(n, np.int64) for _ in range(3)])
            for k, v in enumerate((p.instructions, p.wavefronts, p.ideal)):
                acc[k][rows] = v
    return BatchResult(wf, ideal, tuple(BatchPart(c, *v) for c, v in parts.items()))


# "auto" decides by the work measured in this process, not by a batch's size: importing
# numba and loading its cached kernel costs about NUMBA_LOAD_S (0.6-0.7 s and 110 MiB on the
# 2-core CI machine, #28), the numpy path about NUMPY_S_PER_REQUEST until this process has
# timed its own. numpy runs until the time it has spent, with the batch at hand, would pass
# the cost of loading numba; from then on numba runs (a rent-or-buy rule: never more than
# about twice the better of the two). Both engines give the same counts.
NUMBA_LOAD_S = 0.65


NUMPY_S_PER_REQUEST = 1.5e-6


_NUMPY_WORK = {"seconds": 0.0, "requests": 0}


def _auto_numba(n: int) -> bool:
    """Whether an "auto" batch of n requests should run on numba (loading it if that pays)."""
    if "kernel" in _NUMBA_STATE:  # already loaded (or known missing): nothing left to pay
        return _NUMBA_STATE["kernel"] is not None
    done = _NUMPY_WORK
    rate = done["seconds"] / done["requests"] if done["requests"] >= 4096 else \
        NUMPY_S_PER_REQUEST
    if done["seconds"] + n * rate <= NUMBA_LOAD_S:
        return False
    return _numba_kernel() is not None


def _plain_costs(off, width, store, window: int, engine: str, chunk: int,
                 validated: bool = False) -> BatchResult:
    """Loads and stores: the compiled kernel when asked for, or when the work measured so
    far says loading it pays (_auto_numba), else numpy (both give the same counts);
    `validated`: the offsets were checked already (numpy does not check them again)."""
    use_numba = engine == "numba" or (engine == "auto" and _auto_numba(off.shape[0]))
    if use_numba:
        kernel = _numba_kernel()
        if kernel is None:
            raise ImportError("engine='numba' needs numba (pip install 'smemsim[fast]')")
        wf = np.empty(off.shape[0], np.int64)
        ideal = np.empty(off.shape[0], np.int64)
        bad = np.full(2, -1, np.int64)
        kernel(np.ascontiguousarray(off), width, store, window, wf, ideal, bad)
        _rejected(off, width, window, bad)
        return BatchResult(wf, ideal)
    started = time.perf_counter()
    if not validated:
        _validate(off, width, window)
    parts = [_numpy_costs(off[i:i + chunk], width[i:i + chunk], store[i:i + chunk])
             for i in range(0, off.shape[0], chunk)] or [BatchResult(np.zeros(0, np.int64),
                                                                    np.zeros(0, np.int64))]
    _NUMPY_WORK["seconds"] += time.perf_counter() - started
    _NUMPY_WORK["requests"] += off.shape[0]
    return BatchResult(np.concatenate([p.wavefronts for p in parts]),
                       np.concatenate([p.ideal for p in parts]))


_NUMBA_STATE: dict = {}


def _numba_kernel(function=None):
    """`function` (plain loops over a batch; default: _batch_costs) compiled by numba, or
    None when numba is not installed. The first call imports numba."""
    if "kernel" not in _NUMBA_STATE:
        try:
            import numba
        except ImportError:
            _NUMBA_STATE["kernel"] = None
            return None
        _NUMBA_STATE["kernel"] = numba.njit(cache=True, nogil=True)(_batch_costs)
    if function is None or _NUMBA_STATE["kernel"] is None:
        return _NUMBA_STATE["kernel"]
    name = function.__name__
    if name not in _NUMBA_STATE:
        import numba
        _NUMBA_STATE[name] = numba.njit(cache=True, nogil=True)(function)
    return _NUMBA_STATE[name]


def _batch_costs(off, width, store, window, out_wavefronts, out_ideal, bad):  # pragma: no cover
    """Plain loops over the same rules; numba compiles this (it also runs as Python).

    Naturally aligned accesses of one width either coincide or are disjoint, so whether a
    lane's access is new in its group is decided once per lane (a generation stamp per
    offset); a new access adds one to its bank (its pair or quad of banks for 8 or 16 bytes,
    whose banks always hold equal counts), and the group's distinct bytes are its distinct
    offsets times the width. Clearing 32 bank counters per group is a
    vector store, cheaper than testing a stamp per bank. The first request with a bad lane
    is reported in `bad` (the caller words the error).
    """
    n = off.shape[0]
    offset_stamp = np.zeros(window + 1, np.int64)
    word_stamp = np.zeros((window >> 2) + 1, np.int64)
    count = np.zeros(BANKS, np.int32)
    generation = 0
    for r in range(n):
        w = width[r]
        merged = False
        if w >= 8 and not store[r]:
            c1 = True
            c2 = True
            for i in range(WARP):
                o = off[r, i]
                if o >= 0:
                    p = off[r, i ^ 1]
                    if p >= 0 and p != o:
                        c1 = False
                    p = off[r, i ^ 2]
                    if p >= 0 and p != o:
                        c2 = False
                    if not (c1 or c2):
                        break
            merged = c1 or c2
        if w <= 4:
            size = 32
        elif w == 8:
            size = 32 if merged else 16
        else:
            size = 16 if merged else 8
        nwords = w >> 2 if w >= WORD else 1
        # An aligned 8/16-byte access covers a whole pair/quad of banks, so the banks of a
        # pair/quad always hold equal counts: count per pair/quad, one increment per access.
        shift = 0 if nwords == 1 else (1 if nwords == 2 else 2)
        slots = BANKS >> shift
        total = 0
        ideal = 0
        for g0 in range(0, WARP, size):
            generation += 1
            count[:slots] = 0
            any_active = False
            cost = 0
            distinct = 0
            for i in range(g0, g0 + size):
                o = off[r, i]
                if o < 0:
                    if o < -1:
                        bad[0] = r
                        bad[1] = i
                        return
                    continue
                if (o & (w - 1)) != 0 or o + w > window:
                    bad[0] = r
                    bad[1] = i
                    return
                any_active = True
                if offset_stamp[o] == generation:
                    continue  # the same access as an earlier lane of the group
                offset_stamp[o] = generation
                distinct += 1
                word = o >> 2
                if w < WORD:
                    # sub-word accesses at different offsets may share a word
                    if word_stamp[word] == generation:
                        continue
                    word_stamp[word] = generation
                b = (word >> shift) & (slots - 1)
                c = count[b] + 1
                count[b] = c
                cost = max(cost, c)
            if any_active:
                total += cost
                g_ideal = (distinct * w + WAVEFRONT_BYTES - 1) // WAVEFRONT_BYTES
                ideal += g_ideal if g_ideal > 1 else 1
        out_wavefronts[r] = total
        out_ideal[r] = ideal

"""The 64-bit CAS loop's counts on numpy: lanes as rows, lanes compared by distance.

smemsim.engine.cas_loop states the rule (a float or 64-bit atomicAdd on shared memory: LDS, then
ATOMS.CAST.SPIN, until every lane has succeeded) and its closed form; `batch` here is numpy's
engine for the 8-byte loop (cas_loop.batch sends width 8 here). It holds a chunk of requests
lane-major, a row of lanes per lane index, so that every step is an operation over whole
rows of requests and every sum over lanes a few row additions (numpy's reductions along
a row of 32 cost 25-37 ns a request, a sort 30):

- A lane's rank in its CAS queue (half-warp, pair of banks: a slot) counts the lanes before
  it in its slot, from the pairs of lanes d = 1..15 apart within a half: 15 comparisons of
  byte-wide slots. The same pairs, compared by unit, mark a unit's last lane in its half,
  and count each lane's later last lanes of its slot (k: the staircase's k-th longest).
- Half-warp 1 waits where half 0 writes its unit in that pass: from the 16 x 16 unit
  comparisons of the halves, per half-1 lane a bit per half-0 pass on its unit (`writes`);
  only rows where a lane meets one walk the waits (22% of random rows).
- The loads: before merge_from, per half, the sum over passes q of the most units any slot
  holds with life > q (the largest k among them); from merge_from on, one warp, the units
  per slot counted in one uint64 of 16 nibbles per request (two words of 8 bytes where 16
  units are pending, as many as can be), the largest by a table of 16-bit values.

Buffers are reused from chunk to chunk: with a fresh temporary per operation glibc gave
the pages back and faulted them in again, which took 40% of the time. On random requests
this takes about 20x the time of one numpy pass over the offsets, where sorting rows took
77-95x (benchmarks/bench_banks.py, docs/performance.md).
"""
from __future__ import annotations

import numpy as np

from .banks import WARP
from .batch import _byte_max, _largest_field

CHUNK = 4096        # requests a chunk (the 16 x 16 comparisons: 1 MB of bools)
H = 16              # lanes of a half-warp, and slots (pairs of banks) of 8-byte units
_U64 = np.uint64
_LANE = np.arange(WARP)[:, None]
_UPTO = (np.arange(H)[None, :] <= np.arange(H)[:, None])[:, :, None]     # [i, j]: j <= i
# the largest nibble of each 16-bit value
_TOP_NIBBLE = np.maximum.reduce([(np.arange(1 << 16) >> s) & 15
                                 for s in (0, 4, 8, 12)]).astype(np.uint8)
# units below this fit uint16 with the idle lanes' own units (65535 - lane) above them
_NARROW = (1 << 16) - WARP


def batch(off: np.ndarray) -> tuple[np.ndarray, ...]:
    """(passes, load wavefronts, load ideal, CAS wavefronts) per request of the 8-byte
    loop (offsets checked and aligned, -1 for inactive lanes)."""
    n = off.shape[0]
    out = tuple(np.empty(n, np.int64) for _ in range(4))
    if n == 0:
        return out
    narrow = int(off.max()) >> 3 < _NARROW
    work = _Chunk(min(n, CHUNK), narrow)
    for i in range(0, n, CHUNK):
        part = off[i:i + CHUNK]
        if part.shape[0] != work.n:
            work = _Chunk(part.shape[0], narrow)
        for whole, counts in zip(out, work.costs(part)):
            whole[i:i + part.shape[0]] = counts
    return out


class _Chunk:
    """The arrays of one chunk of n requests, lane-major, kept for the next chunk."""

    def __init__(self, n: int, narrow: bool):
        self.n = n
        self.narrow = narrow
        self.rows = np.empty((n, WARP), np.int32 if narrow else np.int64)
        self.unit = np.empty((WARP, n), np.uint16 if narrow else np.int64)
        self.live = np.empty((WARP, n), bool)
        self.idle = np.empty((WARP, n), bool)
        self.own = np.empty((WARP, n), self.unit.dtype)
        self.slot = np.empty((WARP, n), np.uint8)
        self.rank = np.empty((WARP, n), np.uint8)
        self.last = np.empty((WARP, n), bool)
        self.k = np.empty((WARP, n), np.uint8)
        self.bytes = np.empty((WARP, n), np.uint8)
        self.same = [np.empty((2, H - d, n), bool) for d in range(H)]   # [d]: lanes d apart
        self.pair = np.empty((2, H, n), bool)
        self.cross = np.empty((H, H, n), bool)
        self.cross_life = np.empty((H, H, n), np.uint8)
        self.writes = np.empty((H, n), np.uint16)
        self.bit = np.empty((H, n), np.uint16)
        self.spread = np.empty((H, n), np.uint16)
        self.shift = np.empty((WARP, n), _U64)
        self.one = np.empty((WARP, n), _U64)

    def costs(self, off: np.ndarray):
        """batch() of one chunk of self.n requests."""
        n = self.n
        unit, live, idle, slot = self.unit, self.live, self.idle, self.slot
        np.right_shift(off, 3, out=self.rows, casting="unsafe")
        np.copyto(unit, self.rows.T, casting="unsafe")          # idle lanes: 65535 or -1
        if self.narrow:
            np.not_equal(unit, _NARROW + WARP - 1, out=live)
        else:
            np.greater_equal(unit, 0, out=live)
        np.logical_not(live, out=idle)
        # idle lanes get units and slots of their own: no lane meets them
        np.multiply(idle, _LANE, out=self.own, casting="unsafe")
        unit -= self.own
        np.bitwise_and(unit, 15, out=slot, casting="unsafe")
        slot |= idle.view(np.uint8) << np.uint8(4)
        rank, last, k = self.rank, self.last, self.k
        rank[:] = 0
        dup = last
        dup[:] = False
        unit2, slot2, rank2, dup2 = (x.reshape(2, H, n) for x in (unit, slot, rank, dup))
        pair = self.pair
        for d in range(1, H):     # lane i and lane i + d of a half
            same = self.same[d]
            np.equal(slot2[:, :H - d], slot2[:, d:], out=same)
            np.add(rank2[:, d:], same, out=rank2[:, d:])
            np.equal(unit2[:, :H - d], unit2[:, d:], out=pair[:, :H - d])
            np.bitwise_or(dup2[:, :H - d], pair[:, :H - d], out=dup2[:, :H - d])
        # half-warp 1 waits: per half-1 lane, a bit per pass in which half 0 writes its unit
        cross, writes, bit, spread = self.cross, self.writes, self.bit, self.spread
        np.equal(unit[:H, None], unit[None, H:], out=cross)     # [half-0 lane, half-1 lane]
        writes[:] = 0
        np.left_shift(np.uint16(1), rank[:H], out=bit, dtype=np.uint16)
        for j in range(H):
            np.multiply(cross[j], bit[j], out=spread)
            writes |= spread
        rows = np.flatnonzero(((writes >> rank[H:]) & np.uint16(1)).any(axis=0))
        if rows.size:
            rank[H:, rows] = _waits(*(x.take(rows, axis=1) for x in (slot[H:], writes, rank[H:])))
        life = rank                              # from here: each lane's pass + 1, 0 idle
        life += np.uint8(1)
        life *= live
        life2 = life.reshape(2, H, n)
        top = life2.max(axis=1)
        passes = np.maximum(top[0], top[1])
        merge_from = self._merge_from(life)
        # a unit's last lane in its half holds its life there; k: the last lanes of its
        # slot from it on, so that over a half the units with life > q of a slot number
        # the largest k among them
        np.greater(live, dup, out=last)
        last2 = last.reshape(2, H, n)
        np.copyto(k, last)
        k2 = k.reshape(2, H, n)
        for d in range(1, H):
            np.bitwise_and(self.same[d], last2[:, d:], out=pair[:, :H - d])
            np.add(k2[:, :H - d], pair[:, :H - d], out=k2[:, :H - d])
        k *= last
        load = np.zeros(n, np.int64)
        held = self.bytes.reshape(2, H, n)
        for q in range(int(merge_from.max())):
            np.greater(life2, q, out=held)
            held *= k2
            most = held.max(axis=1)
            load += (most[0] + most[1]) * (q < merge_from)
        ideal = (np.minimum(top[0], merge_from).astype(np.int64) + np.minimum(top[1], merge_from)
                 + np.maximum(passes.astype(np.int64) - merge_from, 0))
        # from merge_from on, one warp: a unit's life is its last lane's in either half
        warp = last
        warp[H:] &= (writes >> life[H:]) == 0
        np.multiply(cross, life[None, H:], out=self.cross_life)
        warp[:H] &= self.cross_life.max(axis=1) <= life[:H]
        held = self.bytes
        np.greater(life, merge_from, out=held)
        held *= warp
        pending = held.sum(axis=0, dtype=np.uint8)     # units pending at merge_from
        # At merge_from each pair of lanes (i, i^1, or i, i^2: the pairs that decided it)
        # that reads two addresses has one lane done, so at most 16 units, one a pair, are
        # pending: a warp-wide load from then on is at most 128 bytes, one ideal wavefront
        slot &= np.uint8(15)
        wide = pending >= 16
        if wide.any():
            # 16 units in one slot overflow a nibble: there a byte per slot, in two words
            rows = np.flatnonzero(wide)
            s = slot.take(rows, axis=1)
            at_f = held.take(rows, axis=1).astype(bool)
            one_slot = np.where(at_f, s, 0).max(axis=0) == np.where(at_f, s, 15).min(axis=0)
            wide[rows[~one_slot]] = False
            rows, s = rows[one_slot], s[:, one_slot]
            at = (s & np.uint8(7)).astype(_U64) << _U64(3)
            own = warp.take(rows, axis=1)
            words = [(own & (s < 8)).astype(_U64) << at, (own & (s >= 8)).astype(_U64) << at]
            _warp_loads(words, life.take(rows, axis=1), merge_from[rows], passes[rows],
                        rows, load)
            warp &= ~wide
        np.copyto(self.shift, slot)
        self.shift <<= _U64(2)
        np.left_shift(warp, self.shift, out=self.one, casting="unsafe")
        _warp_loads([self.one], life, merge_from, passes, None, load)
        return passes.astype(np.int64), load, ideal, 2 * (top[0].astype(np.int64) + top[1])

    def _merge_from(self, life: np.ndarray) -> np.ndarray:
        """The pass from which the pending lanes' loads merge: every pending pair of lanes
        (i, i^1), or every quad pair (i, i^2), reads one address; a pair of two addresses
        is pending until the earlier of its lanes succeeds (its life, the pass + 1)."""
        n = self.n
        first = None
        for m in (1, 2):
            unit = self.unit.reshape(WARP // (2 * m), 2, m, n)
            live = self.live.reshape(WARP // (2 * m), 2, m, n)
            lives = life.reshape(WARP // (2 * m), 2, m, n)
            differ = (unit[:, 0] != unit[:, 1]) & live[:, 0] & live[:, 1]
            f = (differ * np.minimum(lives[:, 0], lives[:, 1])).reshape(-1, n).max(axis=0)
            first = f if first is None else np.minimum(first, f)
        return first


def _warp_loads(words, life, q, stop, rows, load) -> None:
    """Adds to `load` (at `rows`, or every row) the warp's loads over the passes q from
    merge_from to the last: the most pending units any slot holds. `words`: per lane its
    unit's one in its slot's field (one word of 16 nibbles, or two of 8 bytes), zero where
    the lane does not hold its unit's life. A lane past the last pass is pending in none,
    so each step takes every row left; rows are dropped once half are done."""
    q = q.copy()
    while True:
        on = q < stop
        left = int(np.count_nonzero(on))
        if left == 0:
            return
        if left < q.size // 2:
            keep = np.flatnonzero(on)
            words = [x.take(keep, axis=1) for x in words]
            life, q, stop = life.take(keep, axis=1), q[keep], stop[keep]
            rows = keep if rows is None else rows[keep]
        pending = life > q
        if len(words) == 1:
            most = _largest_field((words[0] * pending).sum(axis=0), _TOP_NIBBLE)
        else:
            most = _largest_field(_byte_max((words[0] * pending).sum(axis=0),
                                            (words[1] * pending).sum(axis=0)))
        if rows is None:
            load += most
        else:
            load[rows] += most
        q += np.uint8(1)


def _waits(slot1: np.ndarray, writes: np.ndarray, rank1: np.ndarray) -> np.ndarray:
    """Half-warp 1's passes with the waits (lane-major, the rows where some lane waits): a
    lane's pass is the first at or after its predecessor's + 1 in which half 0 does not
    write its unit (a bit of `writes`), so its rank plus a delay of at least each earlier
    lane's of its queue. From the ranks up, by turns: move each lane past the passes it
    would find stale, then raise each delay to its queue's largest so far, until nothing
    moves (a fixed point below the true passes that no lane can pass, so it is them)."""
    queue = (slot1[:, None] == slot1[None]) & _UPTO           # [i, j]: j at or before i
    rank = rank1.view(np.int8)
    x = rank.copy()
    while True:
        while True:
            stale = ((writes >> x) & 1).astype(np.int8)
            if not stale.any():
                break
            x += stale
        delayed = rank + (queue * (x - rank)[None]).max(axis=1)
        if (delayed == x).all():
            return x.view(np.uint8)
        x = delayed

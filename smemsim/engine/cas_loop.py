"""The CAS loop (a float atomicAdd, or a 64-bit one, on shared memory) in closed form.

nvcc compiles these adds to LDS, then ATOMS.CAST.SPIN, repeated until every lane has
succeeded (smemsim.engine.oprules states the measured rule). Each pass loads the pending lanes and
runs the CAS per group in order (the warp for 4 bytes; half-warp 0, then 1, for 8): in each
bank the group's lowest pending lane succeeds, unless an earlier group's winner of the same
pass changed its address. `passes` follows that rule pass by pass, as the explanation shows
it; the batch engines here compute the same counts without walking the passes:

- A lane's pass. In the warp, or in half-warp 0, the lanes of a bank succeed one per pass in
  lane order: a lane's pass is its rank among its bank's pending lanes. Half-warp 1's lanes
  of a bank also go in lane order, but the head of the queue waits while half-warp 0's
  winner of that pass in that bank (its lane of the same rank) wrote the same address.
- The loads. A unit (a word; 8 bytes for the 64-bit add) stays in the loads for `life`
  passes, one more than the last pass of a lane that reads it. A pass's load costs the most
  pending units any slot (bank; pair of banks) holds, so the loads cost
  sum over p of max over slots of #{units of the slot with life > p}, which is
  sum over k of M_k, M_k the largest k-th longest life of any slot (both count the cells
  under the same staircase).
- 8 bytes: a pass's pending lanes merge into one warp-wide load when every pending pair (or
  every pending quad) of lanes reads one address. A pair of two addresses stays pending
  until the earlier of its lanes succeeds, so the loads are half-warp loads before the pass
  `merge_from` and warp loads from it on: sum over k of min(M_k, merge_from) for the halves,
  of max(M_k - merge_from, 0) for the warp.

Where every unit of a group has one lane (and, for 8 bytes, no lane of half-warp 1 waits),
a slot of m lanes holds the lives m, m - 1, .., 1, so M_k = top - k + 1 for the group's
longest queue `top`: the staircase is then a closed form, and only the other rows are sorted
(numpy, 4 bytes) or scanned (numba). numpy's 8-byte engine is smemsim.engine.cas_loop_wide: it
counts the same staircase pass by pass over whole rows of requests.

On random requests the numpy engine takes about 18-22x the time of one numpy pass over the
offsets (4 bytes: sorting rows here; 8 bytes: smemsim.engine.cas_loop_wide, where sorting rows
took 77-95x), the compiled loops (numba) 4-5x and 8-9x (benchmarks/bench_banks.py,
docs/performance.md); walking the passes took 370x and 740x on numpy.
"""
from __future__ import annotations

import numpy as np

from . import cas_loop_wide
from .banks import BANKS, WARP
from .batch import _changes

# rows of requests the numpy engine takes at a time (its arrays stay in the cache)
CHUNK = 2048


def passes(offs: list[int | None], width: int) -> list[list[int]]:
    """The lanes whose CAS succeeds in each pass of the loop, in order (the rule, pass by
    pass: the explanation shows these rows, and the tests hold the engines to them)."""
    size = 16 if width == 8 else WARP
    pending = [i for i in range(WARP) if offs[i] is not None]
    out = []
    while pending:
        done, changed = [], set()
        for start in range(0, WARP, size):
            seen = set()
            for i in pending:
                if not start <= i < start + size:
                    continue
                bank = offs[i] // 4 % BANKS
                if bank in seen:
                    continue
                seen.add(bank)
                if offs[i] not in changed:  # else it compares with a value that went stale
                    done.append(i)
            changed.update(offs[i] for i in done)
        out.append(done)
        pending = [i for i in pending if i not in done]
    return out


# ------------------------------------------------------------------ numpy, by sorting rows

_LANE = np.arange(WARP)
_NONE = np.uint16(1 << 15)       # a key at or above this: no lane


def batch(off: np.ndarray, width: int) -> tuple[np.ndarray, ...]:
    """(passes, load wavefronts, load ideal, CAS wavefronts) per request, numpy's engine
    (offsets checked and aligned, -1 for inactive lanes); the 8-byte loop's is
    smemsim.engine.cas_loop_wide."""
    if width == 8:
        return cas_loop_wide.batch(off)
    n = off.shape[0]
    out = tuple(np.empty(n, np.int64) for _ in range(4))
    # the first sort's keys are a unit above a lane: 32 bits hold any real window
    kind = np.int32 if n == 0 or int(off.max()) < (1 << 26) else np.int64
    for i in range(0, n, CHUNK):
        for whole, part in zip(out, _costs(off[i:i + CHUNK].astype(kind))):
            whole[i:i + CHUNK] = part
    return out


def _costs(off: np.ndarray):
    """batch() of one chunk of 4-byte requests. Each row is sorted a few times by packed
    keys (uint16 after the first: a row's 32 lanes hold at most 32 units, so a unit's index
    in its row takes 5 bits): by unit (its index), by CAS queue (a lane's rank: its pass),
    and, where some unit has two lanes, by unit again (its life) and by slot and life
    (_longest_lives)."""
    n = off.shape[0]
    # 1. unit, then lane: a unit's index in its row; inactive lanes (-1) sort first
    key = ((off >> 2) << 5) | _LANE.astype(off.dtype)
    key.sort(axis=1)
    live = key >= 0
    lane = (key & 31).astype(np.uint16)
    unit = key >> 5
    new = _changes(unit, live)
    # counted over the flattened rows (a cumsum along rows takes longer), less each row's base
    total = np.cumsum(new.ravel(), dtype=np.int32).reshape(n, WARP)
    index = ((total - (total[:, :1] - new[:, :1]) - 1) & 31).astype(np.uint16)
    # 2. bank | lane | unit index: a queue is a bank: bits 10-14
    slot = (unit & 31).astype(np.uint16)
    cas = np.where(live, (slot << 10) | (lane << 5) | index, _NONE | (lane << 5))
    cas.sort(axis=1)
    live = cas < _NONE
    rank = _rank(cas >> 10)
    pass_ = rank.astype(np.uint16)
    # 3. per unit its life, and the staircase of the banks' lives
    passes = np.where(live, rank + np.int8(1), np.int8(0)).max(axis=1).astype(np.int64)
    # a row whose units have one lane each: a bank of m lanes holds lives m, .., 1, so
    # M_k = passes - k + 1 and the loads are passes (passes + 1) / 2; the staircase is
    # sorted out only for the rows where some unit has two lanes (38% of random rows)
    load = passes * (passes + 1) // 2
    distinct = total[:, -1] - total[:, 0] + new[:, 0]
    twice = np.flatnonzero(distinct < np.count_nonzero(live, axis=1))
    if twice.size:
        sub = cas[twice]
        lives = np.where(live[twice], (sub & np.uint16(0x7C00)) | ((sub & 31) << 5)
                         | pass_[twice], _NONE)
        load[twice] = _longest_lives(lives)
    return passes, load, passes.copy(), 2 * passes


def _rank(run: np.ndarray) -> np.ndarray:
    """Each entry's position in its run of equal values (rows sorted by them), as int8: the
    position less the run's start, the latest start found by five shifted maxima over the
    flattened rows (a row's first entry starts a run; np.maximum.accumulate along rows
    took twice as long). A chunk's positions fit 16 bits (CHUNK rows of 32: 65,536), which
    halves what the maxima read and write (74 -> 49 ns a row)."""
    new = np.empty(run.shape, bool)
    new[:, 0] = True
    np.not_equal(run[:, 1:], run[:, :-1], out=new[:, 1:])
    position = np.arange(run.size, dtype=np.uint16 if run.size <= 1 << 16 else np.int32)
    start = new.ravel() * position
    for k in (1, 2, 4, 8, 16):
        np.maximum(start[k:], start[:-k], out=start[k:])
    np.subtract(position, start, out=start)
    return start.astype(np.int8).reshape(run.shape)


def _run_ends(run: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Where a live entry is the last of its run of equal values (rows sorted by them)."""
    end = np.empty(run.shape, bool)
    end[:, -1] = True
    np.not_equal(run[:, 1:], run[:, :-1], out=end[:, :-1])
    return end & live


def _longest_lives(key: np.ndarray) -> np.ndarray:
    """The loads per row from the staircase: sum over k of M_k, the largest k-th longest
    life of any bank. `key` (uint16, _NONE and above: no lane) = bank (bits 10-14) | unit
    index (5-9) | pass (0-4)."""
    key.sort(axis=1)
    last = _run_ends(key >> 5, key < _NONE)       # a unit's last lane: its latest pass
    life = (key & 31) + 1
    # each bank's lives, longest first
    by_slot = np.where(last, ((key >> 10) << 6) | (63 - life), np.uint16(1 << 11))
    by_slot.sort(axis=1)
    k = _rank(by_slot >> 6).astype(np.uint16)
    # (k, life): the last entry of a k run holds M_k
    by_k = np.where(by_slot < (1 << 11), (k << 6) | (63 - (by_slot & 63)), np.uint16(1 << 12))
    by_k.sort(axis=1)
    end = _run_ends(by_k >> 6, by_k < (1 << 12))
    return (end * (by_k & 63)).sum(axis=1, dtype=np.int64)


# ------------------------------------------------------------------ compiled loops (numba)

def loops(off, width, window, out_passes, out_ld_wavefronts, out_ld_ideal,
          out_atom_wavefronts, bad):  # pragma: no cover
    """batch() as plain loops (numba compiles this; it also runs as Python), request by
    request: each lane's pass from its bank's queue; the loads' staircase in closed form
    where every unit of a group has one lane, else from the lanes
    taken last to first (within one group's queue of a slot the passes grow with the lane,
    so a unit's last lane there holds its life, and the k-th unit met from the end is the
    slot's k-th longest); for 8 bytes, the warp-wide loads after merge_from pass by pass
    (`window` bounds the offsets: a stamp per offset marks a scan's units). Each offset is
    checked where it is first read: at a bad one (below -1, misaligned, past the window)
    `bad[0]` is its request and the loops stop (the caller says why)."""
    n = off.shape[0]
    wide = width == 8
    shift = 3 if wide else 2
    slots = 16 if wide else 32
    seen = np.full(window + 1, -1, np.int64)  # per offset, the scan that last met it
    pas = np.zeros(WARP, np.int64)
    rank = np.zeros(2 * BANKS, np.int64)      # the next rank of each (half, bank) queue
    first = np.zeros(BANKS * 16, np.int64)    # half 0's offsets by bank and rank
    last_t = np.zeros(BANKS, np.int64)
    count = np.zeros(2 * BANKS, np.int64)     # per (group, slot): its units met so far
    most = np.zeros(2 * BANKS + 2, np.int64)  # per (group, k): M_k, the largest k-th life
    late = np.zeros(WARP, np.int64)           # lanes still pending at merge_from
    for r in range(n):
        for q in range(2 * BANKS if wide else BANKS):
            rank[q] = 0
        top0 = 0
        top1 = 0
        # this request's stamps of the halves' units (the scans below stamp r * 64 + p for
        # a pass p < 32 and r * 64 + 32 + g): a unit met again in its half has two lanes
        # there, and then the staircase is scanned, not a closed form
        mark = r * 64 + 40
        twice0 = False
        twice1 = False
        for i in range(16 if wide else WARP):   # half-warp 0 (4 bytes: the warp)
            o = off[r, i]
            if o < 0:
                if o < -1:
                    bad[0] = r
                    return
                pas[i] = -1
                continue
            if o + width > window or o & (width - 1):
                bad[0] = r
                return
            b = (o >> 2) & (BANKS - 1)
            t = rank[b]
            rank[b] = t + 1
            if wide:
                first[b * 16 + t] = o
            twice0 |= seen[o] == mark
            seen[o] = mark
            pas[i] = t
            top0 = max(top0, t + 1)
        # half-warp 1 (8 bytes): first as if no lane waited (its pass its rank in its bank's
        # queue), noting whether any lane would find half 0's winner of that pass in that
        # bank writing its own address (`stale`: a bit per bank); only then (1.5% of random
        # lanes) the passes again with the waits, in those banks. (With the waits in the
        # first loop, each lane's pass read the last one's from memory, and that loop took
        # half the request's time.)
        stale = 0
        for i in range(16, WARP if wide else 16):
            o = off[r, i]
            if o < 0:
                if o < -1:
                    bad[0] = r
                    return
                pas[i] = -1
                continue
            if o + width > window or o & (width - 1):
                bad[0] = r
                return
            b = (o >> 2) & (BANKS - 1)
            t = rank[BANKS + b]
            rank[BANKS + b] = t + 1
            stale |= ((t < rank[b]) & (first[b * 16 + min(t, 15)] == o)) << b
            twice1 |= seen[o] == mark + 1
            seen[o] = mark + 1
            pas[i] = t
            top1 = max(top1, t + 1)
        if stale:
            # again with the waits, in the banks where a lane met one (the other banks'
            # lanes keep their ranks)
            top1 = 0
            for q in range(BANKS):
                rank[BANKS + q] = rank[BANKS + q] * (((stale >> q) & 1) == 0)
            for i in range(16, WARP):
                o = off[r, i]
                if o < 0:
                    continue
                b = (o >> 2) & (BANKS - 1)
                if ((stale >> b) & 1) == 0:
                    top1 = max(top1, pas[i] + 1)
                    continue
                # stale while half 0's winner of the pass in this bank wrote this address
                t = last_t[b] + 1 if rank[BANKS + b] > 0 else 0
                while t < rank[b] and first[b * 16 + t] == o:
                    t += 1
                last_t[b] = t
                rank[BANKS + b] += 1
                pas[i] = t
                top1 = max(top1, t + 1)
        passes = max(top0, top1)
        # 8 bytes: the pass from which the pending lanes' loads merge across the warp (every
        # pending pair, or every pending quad, reads one address)
        merge_from = passes
        if wide:
            merge_from = WARP
            for m in (1, 2):
                fm = -1
                for p in range(16):
                    i = (p // m) * 2 * m + p % m
                    j = i + m
                    low = min(pas[i], pas[j])
                    differ = (low >= 0) & (off[r, i] != off[r, j])
                    fm = max(fm, low if differ else -1)
                merge_from = min(merge_from, fm + 1)
        # the loads: sum over k of the largest k-th longest life of any slot (the
        # staircase), per group of lanes whose loads go together (the warp; for 8 bytes each
        # half-warp, until merge_from). Ideally a pass loads ceil(pending units * width /
        # 128) wavefronts: one while any unit is pending (from merge_from on, at most 16
        # 8-byte units are: each pair of lanes that decided it and reads two addresses has
        # one lane done, so 128 bytes at most).
        hi = merge_from if wide else passes
        for q in range(2 * BANKS):
            count[q] = 0
        for q in range(2 * BANKS + 2):
            most[q] = 0
        ld_wf = 0
        for g in range(2 if wide else 1):
            top = top1 if g else top0
            if not (twice1 or stale if g else twice0):
                # every unit of the group has one lane and every lane its rank as its pass:
                # a slot of m lanes has lives m, m - 1, ..., 1, so M_k = top - k + 1
                low = min(top, hi)
                ld_wf += low * (low + 1) // 2 + (top - low) * hi
                continue
            deep = 0
            key = r * 64 + 32 + g
            end = 16 * g + 15 if wide else WARP - 1
            for i in range(end, end - (16 if wide else WARP), -1):
                o = off[r, i]
                if o < 0 or seen[o] == key:
                    continue
                seen[o] = key                 # the unit's last lane in the group: its life
                q = g * BANKS + ((o >> shift) & (slots - 1))
                c = count[q] + 1
                count[q] = c
                deep = max(deep, c)
                at = g * (BANKS + 1) + c
                most[at] = max(most[at], pas[i] + 1)
            for k in range(1, deep + 1):
                ld_wf += min(most[g * (BANKS + 1) + k], hi)
        ld_ideal = min(top0, hi) + (min(top1, hi) if wide else 0)
        if wide and merge_from < passes:
            # the warp's loads from merge_from on, pass by pass (few lanes are left): the
            # most distinct pending units of one slot; one ideal wavefront a pass
            pending_lanes = 0
            for i in range(WARP):
                # without a branch: which lanes are still pending is the data's to say, and
                # a branch on it mispredicted (6-8% of the 8-byte loop's time)
                late[pending_lanes] = i    # kept where pending (an inactive lane's pass: -1)
                pending_lanes += pas[i] >= merge_from
            for p in range(merge_from, passes):
                key = r * 64 + p
                deepest = 0
                for q in range(slots):
                    count[q] = 0
                for j in range(pending_lanes):
                    i = late[j]
                    o = off[r, i]
                    if pas[i] < p or seen[o] == key:
                        continue
                    seen[o] = key
                    q = (o >> shift) & (slots - 1)
                    count[q] += 1
                    deepest = max(deepest, count[q])
                ld_wf += deepest
            ld_ideal += passes - merge_from
        out_passes[r] = passes
        out_ld_wavefronts[r] = ld_wf
        out_ld_ideal[r] = ld_ideal
        out_atom_wavefronts[r] = 2 * (top0 + top1)

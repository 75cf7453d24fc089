"""Bank rules of the shared-memory instructions beyond plain loads and stores.

Measured on an H200 (sm_90, Nsight Compute 2025.3.1): 119 single-instruction patterns
(tests/data/sm90_newer_patterns.json), every wavefront and bank-conflict count reproduced by
these rules (tests/test_oprules.py).

- `ldmatrix` / `stmatrix` .x1/.x2/.x4 (.trans costs the same), 16 bytes per lane: lane 8j+i
  gives row i of matrix j; lanes past 8 * matrices are ignored. Each matrix's 8 rows are one
  group, costing the most distinct words any bank serves (as a 16-byte store's quarter-warps
  do). Nsight counts the instructions as ldsm/stsm and their wavefronts in _op_ld/_op_st.
- `cp_async` (cp.async.ca, LDGSTS, 4/8/16 bytes): groups as for stores (the warp, half-warps
  for 8 bytes, quarter-warps for 16), but lanes at one address are not merged: a group costs
  the most (lane, word) pairs any bank serves. Nsight shows these wavefronts only in the
  unsuffixed shared total, with 3 _op_misc wavefronts per instruction besides.
- `cp_async_bypass` (cp.async.cg, 16 bytes): no wavefronts in these counters.
- `atomic` (ATOMS.ADD/INC/EXCH/MIN/MAX/AND/OR/XOR and red on 32-bit words): the most active
  lanes any bank serves; lanes at one address are serialized too.
- `atomic_cas` (ATOMS.CAS): twice that, x = the most lanes any bank serves. Nsight counts
  x - 1 of the 2x wavefronts as conflicts (measured), so the ideal is x + ceil(bytes / 128).
- `atomic_aggregated`: the compiler combined the lanes of each address into one add
  (atomicAdd(&s[i], 1) with the result unused): the most distinct words any bank serves.
- `atomic_cas_loop` (atomicAdd on f32, 4 bytes, and on 64-bit integers, 8 bytes): LDS, then
  ATOMS.CAST.SPIN, repeated until every lane has succeeded. Each pass loads the pending lanes
  (the load rule) and then runs the CAS per group in order (the warp for 4 bytes, half-warp 0
  then 1 for 8): a group with pending lanes costs 2 wavefronts, and in each bank its lowest
  pending lane succeeds, unless an earlier group changed that address in the same pass (the
  value it compares with is stale). Passes = instructions of each kind.
Ideal, except for atomic_cas: per non-empty group ceil(distinct bytes / 128), at least 1.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import cas_loop
from .banks import (BANKS, WARP, WAVEFRONT_BYTES, BankUse, Group, MergeDecision, Part,
                    RequestError, WarpRequest, WordUse, explain_groups, group_size,
                    warp_request)
from .batch import BatchPart, BatchResult, _rejected

MATRIX_OPS = ("ldmatrix", "stmatrix")
CHUNK = 2048   # rows the numpy path takes at a time (its arrays stay in the cache)
# op -> (Nsight instruction class, widths the instruction has)
OP_INFO = {
    "ldmatrix": ("ldsm", (16,)),
    "stmatrix": ("stsm", (16,)),
    "cp_async": ("ldgsts", (4, 8, 16)),
    "cp_async_bypass": ("ldgsts", (16,)),
    "atomic": ("atom", (4,)),
    "atomic_cas": ("atom", (4,)),
    "atomic_aggregated": ("atom", (4,)),
    "atomic_cas_loop": ("atom", (4, 8)),
}
MATRICES = (1, 2, 4)


def check_op(op: str, width: int, matrices: int | None) -> None:
    """Refuse widths the instruction does not have, and a missing or stray matrix count."""
    _, widths = OP_INFO[op]
    if width not in widths:
        raise RequestError(f"{op} moves {' or '.join(map(str, widths))} bytes per lane, not "
                           f"{width}" + (" (64-bit shared atomics other than the add loop "
                                         "were not measured)" if op.startswith("atomic")
                                         and width == 8 else ""))
    if op in MATRIX_OPS:
        if matrices not in MATRICES:
            raise RequestError(f"{op} needs matrices 1, 2 or 4 (.x1/.x2/.x4), got {matrices!r}")
    elif matrices is not None:
        raise RequestError(f"matrices applies to ldmatrix and stmatrix, not {op!r}")


def active_lanes(op: str, matrices: int | None) -> int:
    """Lanes whose addresses the instruction uses (ldmatrix ignores lanes past 8 x matrices)."""
    return 8 * matrices if op in MATRIX_OPS else WARP


# ------------------------------------------------------------------ one request, explained

def explain(offs: list[int | None], width: int, op: str, arch: str, rules: str,
            matrices: int | None) -> WarpRequest:
    """warp_request for the ops of this module (offsets already checked)."""
    category = OP_INFO[op][0]
    extra = {}
    if op in MATRIX_OPS:
        groups, waves = explain_groups(offs, width, 8)
        groups = tuple(replace(g, label=f"matrix {j}") for j, g in enumerate(groups[:matrices]))
        why = (f"{op}.x{matrices}: lane 8j+i gives the 16-byte row i of matrix j; each matrix's "
               "8 rows are one group")
        extra["matrices"] = matrices
    elif op == "cp_async":
        groups, waves = explain_groups(offs, width, group_size(width, True, False),
                                       distinct_words=False)
        why = ("cp.async: groups as for stores, and lanes at one address are not merged: "
               "every (lane, word) is served on its own")
    elif op == "cp_async_bypass":
        groups, waves = (), tuple(() for _ in range(WARP))
        why = "cp.async.cg bypasses L1: no shared wavefronts in these counters"
    elif op == "atomic_aggregated":
        groups, waves = explain_groups(offs, width, WARP)
        why = ("aggregated atomic: the compiler combined the lanes of each address, so a bank "
               "serves each distinct word once")
    elif op in ("atomic", "atomic_cas"):
        per_use = 2 if op == "atomic_cas" else 1
        groups, waves = explain_groups(offs, width, WARP, distinct_words=False,
                                       cost_per_use=per_use)
        if per_use == 2:
            # Nsight counts x - 1 conflicts for the 2x wavefronts of a CAS (measured)
            groups = tuple(_cas_ideal(g) for g in groups)
        why = ("shared atomics serialize every lane of a bank, even lanes at one address"
               + ("; a CAS takes 2 wavefronts per lane" if per_use == 2 else ""))
    else:
        return _explain_cas_loop(offs, width, arch, rules)
    wavefronts, ideal = sum(g.wavefronts for g in groups), sum(g.ideal for g in groups)
    return WarpRequest(tuple(offs), width, op, arch, rules, wavefronts, ideal,
                       MergeDecision(False, None, why), groups, waves,
                       (Part(category, 1, wavefronts, ideal),), **extra)


def _cas_ideal(g: Group) -> Group:
    if not g.active:
        return g
    plain = max(-(-g.distinct_bytes // WAVEFRONT_BYTES), 1)
    return Group(g.lanes, g.active, g.wavefronts, g.wavefronts // 2 + plain,
                 g.distinct_bytes, g.first_wavefront, g.banks)


def _explain_cas_loop(offs: list[int | None], width: int, arch: str,
                      rules: str) -> WarpRequest:
    size = 16 if width == 8 else WARP
    pending = [i for i in range(WARP) if offs[i] is not None]
    ld_wf = ld_ideal = atom_wf = 0
    lines = []
    per_bank: dict[int, list[WordUse]] = {}
    lane_waves = [[] for _ in range(WARP)]
    # the offsets were checked against the caller's window: each pass's load is too (not
    # against the architecture's, which a window given to warp_request may exceed)
    window = max((o for o in offs if o is not None), default=0) + width
    for number, done in enumerate(cas_loop.passes(offs, width)):
        load = warp_request([offs[i] if i in pending else None for i in range(WARP)], width,
                            "load", arch, window=window)
        groups = len({i // size for i in pending})
        ld_wf, ld_ideal, atom_wf = ld_wf + load.wavefronts, ld_ideal + load.ideal, \
            atom_wf + 2 * groups
        lines.append(f"pass {number}: LDS {load.wavefronts} wavefront(s), CAS {2 * groups}; "
                     f"lanes {', '.join(map(str, done))} succeed")
        for i in done:
            per_bank.setdefault(offs[i] // 4 % BANKS, []).append(
                WordUse(offs[i] // 4, (i,), number))
            lane_waves[i].append(number)
        pending = [i for i in pending if i not in done]
    banks = tuple(BankUse(b, tuple(per_bank[b])) for b in sorted(per_bank))
    active = tuple(i for i in range(WARP) if offs[i] is not None)
    passes = len(lines)
    group = Group(tuple(range(WARP)), active, passes, 1 if active else 0, 0, 0, banks)
    why = ("CAS loop (LDS + ATOMS.CAST.SPIN until every lane succeeds; rows below are passes, "
           "cells the lanes that succeed): " + "; ".join(lines))
    parts = (Part("ld", passes, ld_wf, ld_ideal), Part("atom", passes, atom_wf, atom_wf))
    return WarpRequest(tuple(offs), width, "atomic_cas_loop", arch, rules, ld_wf + atom_wf,
                       ld_ideal + atom_wf, MergeDecision(False, None, why), (group,),
                       tuple(tuple(w) for w in lane_waves), parts)


# ------------------------------------------------------------------ many requests at once

def batch(off: np.ndarray, width: int, op: str, matrices: int | None, plain,
          compiled=lambda function: None, window: int = 0) -> BatchResult:
    """warp_requests for the ops of this module, one width per call (offsets checked).

    `plain(off, width, store)` costs plain loads/stores (banks' numba or numpy path);
    `compiled(function)` is the numba build of one of this module's loops (`_pair_loops`,
    `cas_loop.loops`) when the batch should run on it, else None (numpy); `window` bounds
    the offsets (the loops' stamps).
    """
    n = off.shape[0]
    category = OP_INFO[op][0]
    ones = np.ones(n, np.int64)
    if op in MATRIX_OPS:
        masked = off.copy()
        masked[:, 8 * matrices:] = -1
        r = plain(masked, width, True)  # quarter-warps, distinct words: a 16-byte store
        wf, ideal = r.wavefronts, r.ideal
    elif op == "atomic_aggregated":
        r = plain(off, width, False)    # the warp, distinct words: a 4-byte load
        wf, ideal = r.wavefronts, r.ideal
    elif op == "cp_async_bypass":
        wf = ideal = np.zeros(n, np.int64)
    elif op in ("cp_async", "atomic", "atomic_cas"):
        size = group_size(width, True, False) if op == "cp_async" else WARP
        loops = compiled(_pair_loops)
        if loops is None:
            wf, ideal, most = _pair_costs(off, width, size)
        else:
            wf, ideal = np.empty(n, np.int64), np.empty(n, np.int64)
            bad = np.full(1, -1, np.int64)
            loops(np.ascontiguousarray(off), width, size, window, wf, ideal, bad)
            _rejected(off, width, window, bad)
            most = wf
        if op == "atomic_cas":
            ideal = most + ideal  # x + ceil(bytes / 128): Nsight's x - 1 conflicts of 2x
            wf = 2 * most
    else:
        loops = compiled(cas_loop.loops)
        if loops is None:
            passes, ld_wf, ld_ideal, atom_wf = cas_loop.batch(off, width)
        else:
            passes, ld_wf, ld_ideal, atom_wf = (np.empty(n, np.int64) for _ in range(4))
            bad = np.full(1, -1, np.int64)
            loops(np.ascontiguousarray(off), width, window, passes, ld_wf, ld_ideal, atom_wf,
                  bad)
            _rejected(off, width, window, bad)
        return BatchResult(ld_wf + atom_wf, ld_ideal + atom_wf,
                           (BatchPart("ld", passes, ld_wf, ld_ideal),
                            BatchPart("atom", passes, atom_wf, atom_wf)))
    return BatchResult(wf, ideal, (BatchPart(category, ones, wf, ideal),))


def _pair_costs(off: np.ndarray, width: int, size: int):
    """Groups of `size` lanes where every (lane, word) is its own use: (wavefronts, ideal,
    the most uses of one bank in the warp's largest group sum) per request.

    An aligned 8- or 16-byte access uses a pair or quad of banks whole, so a lane adds one
    to its unit's slot (16 pairs, 8 quads; 32 banks for 4 bytes and less); the groups'
    slots fill a row's 32. The ideal counts each group's distinct offsets, from one sort
    per row (batch._numpy_costs). In chunks of CHUNK rows, in 32-bit keys: the whole
    batch's 64-bit temporaries (51 MB each at 200,000 rows) cost more than the work."""
    n = off.shape[0]
    wavefronts, ideal = np.empty(n, np.int64), np.empty(n, np.int64)
    shift = 4 if width >= 16 else 3 if width == 8 else 2
    slots = BANKS >> (shift - 2)
    lane = np.arange(WARP)
    group = lane // size
    groups = WARP // size
    where = (group * slots).astype(np.int32)[None, :]
    # the group above the offsets' bits (18 for any real window), in 32 bits where it fits
    bits = max(int(off.max()).bit_length() if n else 1, 1)
    kind = np.int32 if bits + 2 < 31 else np.int64
    tag = (group.astype(kind) << bits)[None, :]
    none = np.iinfo(kind).max
    for i in range(0, n, CHUNK):
        o = off[i:i + CHUNK].astype(kind, copy=False)
        m = o.shape[0]
        active = o >= 0
        slot = (np.arange(m, dtype=kind)[:, None] * BANKS + where
                + ((o >> shift) & (slots - 1)))
        counts = np.bincount(slot[active], minlength=m * BANKS).reshape(m, groups, slots)
        busiest = counts.max(axis=2)
        # distinct offsets per group: aligned accesses of one width coincide or are disjoint
        key = np.where(active, tag | o, none)
        key.sort(axis=1)
        new = np.empty(key.shape, bool)
        new[:, 0] = True
        np.not_equal(key[:, 1:], key[:, :-1], out=new[:, 1:])
        new &= key != none
        # a count (at most 32) per byte of one sum (banks' way)
        packed = (new.astype(np.uint32) << (((key >> bits) & 3) << 3).astype(np.uint32)).sum(
            axis=1, dtype=np.int64)
        distinct = (packed[:, None] >> np.arange(0, 8 * groups, 8)) & 255
        wavefronts[i:i + m] = busiest.sum(axis=1)
        ideal[i:i + m] = np.where(distinct > 0, np.maximum(
            -(-(distinct * width) // WAVEFRONT_BYTES), 1), 0).sum(axis=1)
    return wavefronts, ideal, wavefronts


# ------------------------------------------------------------------ compiled loops (numba)

def _pair_loops(off, width, size, window, out_wavefronts, out_ideal, bad):  # pragma: no cover
    """_pair_costs as plain loops (numba compiles this; it also runs as Python): per group
    of `size` lanes, every (lane, word) adds one to its bank, and the group costs its
    busiest bank; the ideal counts the group's distinct offsets (a stamp per offset). At a
    bad offset (below -1, misaligned, past the window) `bad[0]` is its request and the
    loops stop (the caller says why)."""
    n = off.shape[0]
    stamp = np.zeros(window + 1, np.int64)
    count = np.zeros(BANKS, np.int32)
    nwords = width >> 2 if width >= 4 else 1
    generation = 0
    for r in range(n):
        total = 0
        ideal = 0
        for g0 in range(0, WARP, size):
            generation += 1
            count[:] = 0
            cost = 0
            distinct = 0
            active = False
            for i in range(g0, g0 + size):
                o = off[r, i]
                if o < 0:
                    if o < -1:
                        bad[0] = r
                        return
                    continue
                if o + width > window or o & (width - 1):
                    bad[0] = r
                    return
                active = True
                if stamp[o] != generation:
                    stamp[o] = generation
                    distinct += 1
                for j in range(nwords):
                    b = ((o >> 2) + j) & (BANKS - 1)
                    c = count[b] + 1
                    count[b] = c
                    if c > cost:
                        cost = c
            if active:
                total += cost
                g = (distinct * width + WAVEFRONT_BYTES - 1) // WAVEFRONT_BYTES
                ideal += g if g > 1 else 1
        out_wavefronts[r] = total
        out_ideal[r] = ideal

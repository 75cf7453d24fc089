"""The bank engine: how many wavefronts one warp-level shared-memory request costs, and why.

The rules (docs/hardware-rules.md, measured on H100/H200):
1. Split the warp into groups by access width and kind: 1/2/4-byte accesses are one group of
   32 lanes; 8-byte loads are one group if MERGE holds, else two half-warps; 16-byte loads are
   two half-warps if MERGE holds, else four quarter-warps. Stores never merge (8 bytes: two
   half-warps, 16 bytes: four quarter-warps). MERGE holds when over the whole warp either C1:
   every active lane i has lane i^1 inactive or at the same address, or C2: the same with i^2.
2. A group with an active lane costs the largest number of distinct 4-byte words any one bank
   is asked for; an empty group costs 0.
3. A request costs the sum over its groups.
Ideal: per non-empty group, ceil(distinct bytes / 128), at least 1; Nsight Compute's "bank
conflicts" are wavefronts - ideal.

Three implementations share these rules: `warp_request` (one request, explained lane by
lane, here), `warp_requests` (numpy, many at once: batch.py) and, when numba is installed,
a compiled path that `warp_requests` uses by default. Tests hold all three equal.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .arch import Arch, ArchError, get_arch
from ..display import html

WARP = 32
BANKS = 32
WORD = 4
WAVEFRONT_BYTES = 128
WIDTHS = (1, 2, 4, 8, 16)
PLAIN_OPS = ("load", "store")
# every op the engine costs; the ones past load and store are smemsim.engine.oprules'
OPS = PLAIN_OPS + ("ldmatrix", "stmatrix", "cp_async", "cp_async_bypass", "atomic",
                   "atomic_cas", "atomic_aggregated", "atomic_cas_loop")
# Nsight Compute's instruction classes of shared memory, in the order reports show them
CATEGORIES = ("ld", "st", "ldsm", "stsm", "ldgsts", "atom", "tma_ld", "tma_st", "gmma")


def op_categories(op: str) -> tuple[str, ...]:
    """The instruction classes an op's requests count in (the CAS loop issues LDS too)."""
    if op in PLAIN_OPS:
        return ("ld",) if op == "load" else ("st",)
    if op in ("tma_load", "bulk_load", "tma_store", "bulk_store"):   # smemsim.launch.bulk
        return ("tma_st",) if op.endswith("store") else ("tma_ld",)
    if op == "wgmma":
        return ("gmma",)
    from .oprules import OP_INFO
    return ("ld", "atom") if op == "atomic_cas_loop" else (OP_INFO[op][0],)


class RequestError(ValueError):
    """A warp request the hardware cannot perform (misaligned, outside the window, bad width)."""


# ------------------------------------------------------------------ results

@dataclass(frozen=True)
class WordUse:
    """One distinct word a bank serves in a group: the lanes that asked, the wavefront used."""

    word: int
    lanes: tuple[int, ...]
    wavefront: int


@dataclass(frozen=True)
class BankUse:
    """One bank inside a group: its distinct words, in the order they are served."""

    bank: int
    words: tuple[WordUse, ...]


@dataclass(frozen=True)
class Group:
    """A set of lanes the hardware processes together (warp, half-warp or quarter-warp)."""

    lanes: tuple[int, ...]
    active: tuple[int, ...]
    wavefronts: int
    ideal: int
    distinct_bytes: int
    first_wavefront: int
    banks: tuple[BankUse, ...]
    label: str | None = None       # what an instruction calls its groups ("matrix 2")

    @property
    def name(self) -> str:
        """"warp", "half-warp 1", "quarter-warp 2" (or the instruction's own name)."""
        if self.label:
            return self.label
        size = len(self.lanes)
        if size == WARP:
            return "warp"
        part = "half-warp" if size == 16 else "quarter-warp"
        return f"{part} {self.lanes[0] // size}"


@dataclass(frozen=True)
class MergeDecision:
    """Whether the 8/16-byte merge applied, which condition held, and why in words."""

    applies: bool
    condition: str | None  # "C1", "C2" or None
    reason: str


@dataclass(frozen=True)
class Part:
    """What one request adds to one of Nsight Compute's instruction classes."""

    category: str          # "ld", "st", "ldsm", "stsm", "ldgsts", "atom" (CATEGORIES)
    instructions: int      # warp-level instructions issued (a CAS loop issues several)
    wavefronts: int
    ideal: int


@dataclass(frozen=True)
class WarpRequest:
    """The cost of one warp request and its explanation."""

    offsets: tuple[int | None, ...]
    width: int
    op: str
    arch: str
    rules: str
    wavefronts: int
    ideal: int
    merge: MergeDecision   # for ops without a merge rule: how the warp is split, in words
    groups: tuple[Group, ...]
    lane_wavefronts: tuple[tuple[int, ...], ...]  # per lane: wavefronts serving its words
    parts: tuple[Part, ...] = ()  # the cost by instruction class (one part for most ops)
    matrices: int | None = None   # ldmatrix / stmatrix: matrices per instruction

    @property
    def excess(self) -> int:
        """wavefronts - ideal: what Nsight Compute reports as bank conflicts."""
        return self.wavefronts - self.ideal

    @property
    def active_lanes(self) -> tuple[int, ...]:
        """Lanes that perform the access."""
        return tuple(i for i, o in enumerate(self.offsets) if o is not None)

    def _repr_html_(self) -> str | None:
        """In a notebook: the bank map (banks across, a row per wavefront; smemsim.display)."""
        return html(self)


# ------------------------------------------------------------------ shared rule pieces

def rules_for(arch: str | Arch) -> tuple[Arch, str]:
    """The architecture and its bank rule set, or an error saying why there is none."""
    a = get_arch(arch)
    if a.bank_rules is None:
        raise ArchError(f"{a.name} has no bank rule set: the rules here were measured on sm_90 "
                        "and documented for sm_70 to sm_120; Maxwell and Pascal serve 64- and "
                        "128-bit accesses differently")
    return a, a.bank_rules


def check_width_op(width, op, matrices=None) -> None:
    if width not in WIDTHS:
        raise RequestError(f"access width must be one of {WIDTHS} bytes, got {width!r}")
    if op not in OPS:
        raise RequestError(f"op must be one of {', '.join(OPS)}; got {op!r}")
    if op not in PLAIN_OPS:
        from .oprules import check_op
        check_op(op, width, matrices)
    elif matrices is not None:
        raise RequestError(f"matrices applies to ldmatrix and stmatrix, not {op!r}")


def group_size(width: int, store: bool, merged: bool) -> int:
    """Lanes per processing group for this width and kind."""
    if width <= 4:
        return 32
    if width == 8:
        return 16 if store or not merged else 32
    return 8 if store or not merged else 16


def words_touched(offset: int, width: int) -> range:
    """The 4-byte words an access of `width` bytes at `offset` touches."""
    first = offset // WORD
    return range(first, first + max(1, width // WORD))


# ------------------------------------------------------------------ one request, explained

def _merge_decision(offs: list[int | None], width: int, store: bool) -> MergeDecision:
    if width <= 4:
        return MergeDecision(False, None, f"{width}-byte accesses: the whole warp is one group")
    split = "two half-warps" if width == 8 else "four quarter-warps"
    if store:
        article = "an" if width == 8 else "a"   # (an 8-byte, a 16-byte)
        return MergeDecision(False, None, f"stores never merge: {article} {width}-byte store "
                                          f"is processed as {split}")

    def first_violation(mask: int, lanes: range):
        for i in lanes:
            j = i ^ mask
            if offs[i] is not None and offs[j] is not None and offs[i] != offs[j]:
                return i, j
        return None

    v1 = first_violation(1, range(WARP))
    v2 = first_violation(2, range(WARP))
    merged = "one group of 32 lanes" if width == 8 else "two half-warps"
    if v1 is None:
        return MergeDecision(True, "C1", f"MERGE (C1): every active lane i has lane i^1 "
                                         f"inactive or at the same address: {merged}")
    if v2 is None:
        return MergeDecision(True, "C2", f"MERGE (C2): every active lane i has lane i^2 "
                                         f"inactive or at the same address: {merged}")
    (a, b), (c, d) = v1, v2
    reason = (f"no merge: C1 (each active lane i at lane i^1's address, or i^1 inactive) "
              f"fails at lanes {a}/{b} (offsets {offs[a]} vs {offs[b]}), C2 (the same with "
              f"i^2) at lanes {c}/{d} (offsets {offs[c]} vs {offs[d]}): {split}")
    halves = [(first_violation(1, range(h, h + 16)), first_violation(2, range(h, h + 16)))
              for h in (0, 16)]
    for h, other in ((0, 1), (1, 0)):
        if halves[h][0] is None and halves[other][1] is None:
            reason += (f"; C1 holds in half-warp {h} and C2 in half-warp {other}, but one "
                       "condition must hold over the whole warp")
            break
    return MergeDecision(False, None, reason)


def _normalize(offsets: Sequence[int | None], width: int, window: int) -> list[int | None]:
    offs = list(offsets)
    if len(offs) > WARP:
        raise RequestError(f"a warp has {WARP} lanes; got {len(offs)} offsets")
    offs += [None] * (WARP - len(offs))
    for lane, o in enumerate(offs):
        if o is None:
            continue
        if isinstance(o, bool) or not isinstance(o, (int, np.integer)):
            raise RequestError(f"lane {lane}: offset {o!r} is not an integer byte offset")
        o = int(o)
        offs[lane] = o
        if o % width:
            raise RequestError(f"lane {lane}: offset {o} is not aligned to the {width}-byte "
                               "access (the GPU faults with a misaligned address)")
        if o < 0 or o + width > window:
            raise RequestError(f"lane {lane}: offset {o} (+{width} bytes) is outside the "
                               f"{window}-byte shared window")
    return offs


def explain_groups(offs: list[int | None], width: int, size: int, distinct_words: bool = True,
                   cost_per_use: int = 1) -> tuple[tuple[Group, ...], tuple]:
    """Groups of `size` lanes, each costing the most uses any one bank gets.

    A use is a distinct word (`distinct_words`: lanes asking for one word share it) or a
    (lane, word) pair (atomics and cp.async serve every lane on its own); each use takes
    `cost_per_use` wavefronts. Returns the groups and, per lane, the wavefronts serving it.
    """
    groups, lane_waves = [], [[] for _ in range(WARP)]
    next_wave = 0
    for start in range(0, WARP, size):
        lanes = tuple(range(start, start + size))
        active = tuple(i for i in lanes if offs[i] is not None)
        per_bank: dict[int, list[tuple[int, list[int]]]] = {}
        distinct_bytes: set[int] = set()
        for i in active:
            distinct_bytes.update(range(offs[i], offs[i] + width))
            for w in words_touched(offs[i], width):
                uses = per_bank.setdefault(w % BANKS, [])
                shared = next((u for u in uses if u[0] == w), None) if distinct_words else None
                if shared is None:
                    uses.append((w, [i]))
                else:
                    shared[1].append(i)
        cost = max((len(uses) for uses in per_bank.values()), default=0) * cost_per_use
        ideal = -(-len(distinct_bytes) // WAVEFRONT_BYTES) if active else 0
        banks = []
        for bank in sorted(per_bank):
            served = []
            for rank, (w, who) in enumerate(per_bank[bank]):
                first = next_wave + rank * cost_per_use
                served.append(WordUse(w, tuple(who), first))
                for i in who:
                    lane_waves[i].extend(range(first, first + cost_per_use))
            banks.append(BankUse(bank, tuple(served)))
        groups.append(Group(lanes, active, cost, max(ideal, 1) if active else 0,
                            len(distinct_bytes), next_wave, tuple(banks)))
        next_wave += cost
    return tuple(groups), tuple(tuple(sorted(set(w))) for w in lane_waves)


def warp_request(offsets: Sequence[int | None], width: int, op: str = "load",
                 arch: str | Arch = "sm_90", window: int | None = None,
                 matrices: int | None = None) -> WarpRequest:
    """Cost and explanation of one warp request.

    `offsets`: byte offsets into the block's shared window, one per lane, None for an inactive
    lane (missing trailing lanes are inactive). `width`: 1, 2, 4, 8 or 16 bytes. `op`: one of
    OPS ("load", "store", and the instructions of smemsim.engine.oprules: "ldmatrix", "stmatrix"
    with `matrices` 1/2/4, "cp_async", "cp_async_bypass", "atomic", "atomic_cas",
    "atomic_aggregated", "atomic_cas_loop"). `window`: the block's shared-memory size
    (default: the architecture's per-block maximum).

    Within a bank, words are numbered in the order of their lowest requesting lane; the
    counts are exact, that order is a presentation choice.
    """
    check_width_op(width, op, matrices)
    a, rules = rules_for(arch)
    if op not in PLAIN_OPS:
        from .oprules import active_lanes
        offsets = list(offsets)[:active_lanes(op, matrices)]  # lanes the instruction ignores
    offs = _normalize(offsets, width, window if window is not None else a.smem_per_block_optin)
    if op not in PLAIN_OPS:
        from .oprules import explain
        return explain(offs, width, op, a.name, rules, matrices)
    store = op == "store"
    merge = _merge_decision(offs, width, store)
    groups, lane_waves = explain_groups(offs, width, group_size(width, store, merge.applies))
    wavefronts, ideal = sum(g.wavefronts for g in groups), sum(g.ideal for g in groups)
    return WarpRequest(
        offsets=tuple(offs), width=width, op=op, arch=a.name, rules=rules,
        wavefronts=wavefronts, ideal=ideal, merge=merge, groups=groups,
        lane_wavefronts=lane_waves,
        parts=(Part("st" if store else "ld", 1, wavefronts, ideal),))


# ------------------------------------------------------------------ many requests at once


# ------------------------------------------------------------------ optional numba path



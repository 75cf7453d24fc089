"""Loops that retry until a store to shared memory survives, whose passes the GPU decides
(a compare-and-swap loop written by hand is one: its atomicCAS is the store it retries).

The histograms written before shared atomics (cuda-samples' old histogram256, Rodinia's
histogram1024) tag each lane's increment and retry until the word holds their own tag:

    do { c = (s[bin] & 0x07FFFFFFU) + 1; s[bin] = tag | c; } while (s[bin] != (tag | c));

When lanes store to one word, one store lands and the others pass again. The interpreter runs
a block's threads in lock-step, so one contending store lands per word per pass: the fewest
passes there can be when only lanes of one warp contend for a word (a pass issues each of
the loop's instructions at least once for the warp, and lets at most one of its lanes per
word through). The GPU may issue more: under independent thread scheduling (sm_70 and later)
a divergent warp's lanes may take an instruction in more than one group. An H100 and an
H200 did, on Rodinia's histogram1024 with zeroed input (every lane of a warp on one bin): its stores
exactly as counted here (1,054,720: 32 passes a call), its loads 3,113,152 where lock-step
gives 2,103,296, about one extra load a pass (docs/validation.md). So a site inside such a
loop is counted as a lower bound where its contending stores were one warp's, and as an
estimate where warps contended with each other (the trace says which: Trace.crossed).
"""
from __future__ import annotations

from dataclasses import dataclass

from kernels_ir import Kernel, Load, Loop, Store
from kernels_ir.arrays import SharedArray
from kernels_ir.stmt import Assign, Atomic, If, Let, walk

from .slicing import references


@dataclass(frozen=True)
class RetryLoop:
    """A loop whose next pass depends on a value it loads from a shared array it stores."""

    line: int                    # the loop's source line (0 if unknown)
    array: str                   # the shared array it re-reads
    sites: frozenset[int]        # every access site inside the loop
    stores: frozenset[int]       # its stores to that array: where lanes contend


def retry_loops(kernel: Kernel) -> tuple[RetryLoop, ...]:
    """The kernel's retry loops (outermost first; a nested one is listed on its own too)."""
    out = []
    for loop in (s for s in walk(kernel.body) if isinstance(s, Loop)):
        body = list(walk(loop.body))
        # (a compare-and-swap loop's atomic is its store and its re-read: `do { assumed =
        # old; old = atomicCAS(&s[i], assumed, f(assumed)); } while (old != assumed);`)
        stored = {x.array.name for x in body
                  if isinstance(x, (Store, Atomic)) and isinstance(x.array, SharedArray)}
        if not stored:
            continue
        # the variables the loop's continuation reads, closed over the body's definitions
        wanted = references([e for e in (loop.cond, loop.update) if e is not None])[0]
        reread, grew = set(), True
        while grew:
            grew = False
            for x in body:
                if not wanted & set(x.defines()):
                    continue
                if isinstance(x, (Load, Atomic)) and isinstance(x.array, SharedArray) and \
                        x.array.name in stored:
                    reread.add(x.array.name)
                if isinstance(x, (Let, Assign, Load, Atomic)):
                    more = references(x.exprs())[0] - wanted
                    if more:
                        wanted |= more
                        grew = True
            # an `if` that sets a wanted variable makes its condition wanted too (the PTX
            # frontend's loops: `if (s[bin] != c) next = 1; else next = 0;`)
            for x in body:
                if isinstance(x, If) and any(wanted & set(y.defines())
                                             for y in walk(x.then + x.orelse)):
                    more = references([x.cond])[0] - wanted
                    if more:
                        wanted |= more
                        grew = True
        for name in sorted(reread):
            out.append(RetryLoop(
                loop.loc.line if loop.loc is not None else 0, name,
                frozenset(x.site for x in body if getattr(x, "site", None) is not None),
                frozenset(x.site for x in body if isinstance(x, (Store, Atomic)) and
                          x.site is not None and x.array.name == name)))
    return tuple(out)

"""The values a launch's global arrays start with, when the user gives none: seeded random
inputs, poisoned outputs, zeros where nothing needs the values (make_arrays)."""
from __future__ import annotations

import numpy as np

from .dtypes import to_storage
from .launch import Launch


def make_arrays(launch: Launch, seed: int = 0,
                blank: frozenset[str] = frozenset()) -> dict[str, np.ndarray]:
    """Global arrays for a launch: seeded random inputs, poisoned outputs.

    Inputs hold integers in [0, 255] (or the type's max if smaller) and floats in [-1, 1);
    "out" arrays hold all-ones bits (NaN for floats) so that an unwritten element shows. A
    byte array whose source declares another element type (GlobalArray.declared: a kernel
    read from PTX) holds that type's values, as its bytes. Arrays named in `blank` (whose
    values nothing needs) are zeros, their memory taken only where touched; the others
    hold the values they hold without it.
    """
    rng = np.random.default_rng(seed)
    arrays = {}
    for g in launch.kernel.globals:
        n = launch.lengths[g.name]
        t = g.dtype
        declared = getattr(g, "declared", None)
        if g.initial is not None:   # the values the kernel's source gives it
            arrays[g.name] = to_storage(np.asarray(g.initial, t.np), t)
        elif t.size == 1 and declared is not None and declared.size > 1 and \
                n % declared.size == 0:
            if g.name in blank:
                _skipped(g.intent, declared, n // declared.size, rng)
                arrays[g.name] = np.zeros(n, np.uint8)
                continue
            values = _made(g.intent, declared, n // declared.size, rng)
            arrays[g.name] = np.ascontiguousarray(values).view(np.uint8)
        elif g.name in blank:
            _skipped(g.intent, t, n, rng)
            arrays[g.name] = np.zeros(n, t.storage)   # (calloc: pages come as touched)
        else:
            arrays[g.name] = _made(g.intent, t, n, rng)
    return arrays


# values drawn at once by make_arrays: the draws are the same in pieces (the generator's
# stream is sequential), and an array of 400 M floats no longer needs its 3.2 GB of doubles
_DRAWN_AT_ONCE = 1 << 22


def _skipped(intent: str, t, n: int, rng) -> None:
    """The generator moved past the values _made would draw, none kept (a float's draw is
    one 64-bit step of PCG64; a bounded integer's varies, so those are drawn in pieces)."""
    if intent == "out":
        return
    if t.is_float:
        rng.bit_generator.advance(n)
        return
    for at in range(0, n, _DRAWN_AT_ONCE):
        rng.integers(0, min(int(t.max), 255), min(_DRAWN_AT_ONCE, n - at), endpoint=True)


def _made(intent: str, t, n: int, rng) -> np.ndarray:
    """make_arrays' values of one array of n elements of type t."""
    if intent == "out":
        return (to_storage(np.full(n, np.nan, t.np), t) if t.is_float
                else np.full(n, 0xFF, np.uint8).repeat(t.size).view(t.np))
    if t.is_float:
        draw = lambda m: to_storage(rng.uniform(-1.0, 1.0, m).astype(t.np), t)  # noqa: E731
    else:
        draw = lambda m: rng.integers(0, min(int(t.max), 255), m,  # noqa: E731
                                      endpoint=True).astype(t.np)
    first = draw(min(n, _DRAWN_AT_ONCE))
    if first.size == n:
        return first
    out = np.empty(n, first.dtype)
    out[:first.size] = first
    for at in range(first.size, n, _DRAWN_AT_ONCE):
        out[at:at + _DRAWN_AT_ONCE] = draw(min(_DRAWN_AT_ONCE, n - at))
    return out

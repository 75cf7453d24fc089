"""Input data of the corpus launches that need more than zeroed arrays: launches.json's
`data`, one numpy expression per array, evaluated here for both the GPU run (written to a
file the harness copies to the device) and the analysis (the same bytes), so that both see
one input.

    "data": {"param_0_16": {"as": "needles", "dtype": "int32",
                            "values": "sorted_random(1, 0, 10000, 1000)"}, ...}

An expression sees numpy as `np`, the launch's scalar `params`, the arrays named before it
(by their `as` names) and the helpers below, each the host-side computation of a library
whose kernels the corpus holds (moderngpu's merge-path partitions). A validation helper,
not part of the library; launches.json is the repository's own file.
"""
from __future__ import annotations

import numpy as np


def merge_path(a, b, diag: int, bounds: str) -> int:
    """How many of `a` the first `diag` items of the merge of sorted `a` and `b` take:
    moderngpu's merge_path (src/moderngpu/cta_merge.hxx), `bounds` "lower" (a key of `b`
    equal to one of `a` goes first) or "upper"."""
    begin, end = max(0, diag - len(b)), min(diag, len(a))
    while begin < end:
        mid = (begin + end) // 2
        a_key, b_key = a[mid], b[diag - 1 - mid]
        if (a_key < b_key) if bounds == "upper" else not (b_key < a_key):
            begin = mid + 1
        else:
            end = mid
    return begin


def merge_path_partitions(a, b, spacing: int, bounds: str) -> np.ndarray:
    """moderngpu's merge_path_partitions (src/moderngpu/search.hxx): the merge path at every
    `spacing`-th diagonal, div_up(|a| + |b|, spacing) + 1 of them, as int32."""
    total = len(a) + len(b)
    count = -(-total // spacing) + 1
    return np.array([merge_path(a, b, min(spacing * k, total), bounds)
                     for k in range(count)], np.int32)


def sorted_random(seed: int, low: int, high: int, count: int) -> np.ndarray:
    """`count` int32 values drawn uniformly from [low, high) with numpy's seeded generator,
    sorted (as moderngpu's fill_random(low, high, count, sorted=true) makes its inputs)."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.integers(low, high, count, dtype=np.int32))


_HELPERS = {"np": np, "merge_path_partitions": merge_path_partitions,
            "sorted_random": sorted_random}


def inputs(launch: dict) -> dict[str, bytes]:
    """Array name (as smemsim names the kernel's parameters) -> its bytes, for each array
    `launch['data']` gives (the others stay zeroed)."""
    names = {**_HELPERS, **launch.get("params", {})}
    made = {}
    for array, spec in launch.get("data", {}).items():
        # (eval of the repository's own launches.json, never of a user's file)
        values = np.asarray(eval(spec["values"], {"__builtins__": {}}, names),  # noqa: S307
                            np.dtype(spec.get("dtype", "int32")))
        names[spec.get("as", array)] = values
        made[array] = values.tobytes()
    return made

"""A Reed-Solomon erasure code built on seed 000's kernels: k data chunks -> m parity chunks.

The parity is C = Cauchy(m x k) x data (k x L) over GF(2^8), computed by the generalized
tiling kernel (`reed_solomon.general`), on the CPU interpreter or, with gpu_backend, on the
GPU. Any k of the k + m chunks recover the data: the rows of [I; Cauchy] for the surviving
chunks form an invertible k x k matrix (every square submatrix of a Cauchy matrix is
invertible), whose inverse applied to the survivors gives the data back.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import gf256, reed_solomon
from kernels_ir import run


def cauchy_matrix(m: int, k: int) -> np.ndarray:
    """C[i][j] = 1 / (x_i + y_j) in GF(2^8) with x_i = i and y_j = m + j (all distinct)."""
    if m + k > 256:
        raise ValueError(f"k + m = {k + m}: GF(2^8) has 256 elements")
    x = np.arange(m)[:, None]
    y = (m + np.arange(k))[None, :]
    s = x ^ y
    return gf256.EXP[(255 - gf256.LOG[s]) % 255].astype(np.uint8)


def encode(data: np.ndarray, m: int, launch: Callable = run, tile_cols: int = 32) -> np.ndarray:
    """Parity chunks (m x L) of data chunks (k x L), through the generalized tiling kernel.

    `launch(kernel, params, arrays)` runs it and returns the arrays (the interpreter by
    default; gpu_backend's runner on a GPU). L must be a multiple of `tile_cols`.
    """
    k, length = data.shape
    if length % tile_cols:
        raise ValueError(f"chunk length {length} is not a multiple of {tile_cols}")
    params = dict(A_height=m, A_width=k, B_width=length, tileWidthRow=m,
                  tileWidthCol=tile_cols, grid_x=max(1, length // tile_cols // 4))
    arrays = {"A": cauchy_matrix(m, k).reshape(-1), "B": np.ascontiguousarray(data).reshape(-1),
              "C": np.zeros(m * length, np.uint8)}
    out = launch(reed_solomon.general(), params, arrays)
    return out["C"].reshape(m, length)


def recover(chunks: dict[int, np.ndarray], k: int, m: int) -> np.ndarray:
    """The k data chunks from any k surviving chunks (index < k: data, >= k: parity)."""
    if len(chunks) < k:
        raise ValueError(f"{len(chunks)} chunks survive; {k} are needed")
    rows = sorted(chunks)[:k]
    code = np.concatenate([np.eye(k, dtype=np.uint8), cauchy_matrix(m, k)])
    inverse = gf256.inverse(code[rows])
    return gf256.matmul(inverse, np.stack([chunks[r] for r in rows]))

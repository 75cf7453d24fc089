"""GF(2^8) arithmetic with the Reed-Solomon polynomial 0x11d: IR helpers and numpy references.

In GF(2^8) addition is xor; multiplication is carry-less, reduced by x^8+x^4+x^3+x^2+1.
`gf_mul` emits the shift-and-xor loop a CUDA kernel runs in registers (8 iterations, no
tables), so the multiply adds no shared-memory traffic.
"""
import numpy as np

from kernels_ir import select, u32

POLY = 0x11D


def gf_mul(k, a, b, name: str = "gf"):
    """Emit `p = a * b` in GF(2^8) by shift-and-xor; returns the product (a u32 local < 256)."""
    p = k.let(f"{name}_p", 0, u32)
    x = k.let(f"{name}_a", a, u32)
    y = k.let(f"{name}_b", b, u32)
    with k.range(f"{name}_bit", 0, 8):
        p ^= select(y & 1, x, 0)
        x.set((x << 1) ^ select(x & 0x80, POLY, 0))
        y >>= 1
    return p


def _tables():
    exp = np.zeros(512, np.int64)
    log = np.zeros(256, np.int64)
    x = 1
    for i in range(255):
        exp[i] = x
        log[x] = i
        x <<= 1
        if x & 0x100:
            x ^= POLY
    exp[255:510] = exp[:255]
    return exp, log


EXP, LOG = _tables()


def mul(a, b) -> np.ndarray:
    """Elementwise GF(2^8) product of integer arrays."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    out = EXP[(LOG[a] + LOG[b]) % 255]
    return np.where((a == 0) | (b == 0), 0, out).astype(np.uint8)


def matmul(A, B) -> np.ndarray:
    """GF(2^8) matrix product of uint8 matrices (xor of products)."""
    A, B = np.asarray(A), np.asarray(B)
    out = np.zeros((A.shape[0], B.shape[1]), np.uint8)
    for k in range(A.shape[1]):
        out ^= mul(A[:, k:k + 1], B[k:k + 1, :])
    return out


def inverse(M) -> np.ndarray:
    """Inverse of a square GF(2^8) matrix by Gauss-Jordan elimination."""
    M = np.array(M, np.uint8)
    n = M.shape[0]
    aug = np.concatenate([M, np.eye(n, dtype=np.uint8)], axis=1)
    for col in range(n):
        pivot = next(r for r in range(col, n) if aug[r, col])
        aug[[col, pivot]] = aug[[pivot, col]]
        inv = EXP[255 - LOG[aug[col, col]]]
        aug[col] = mul(aug[col], inv)
        for r in range(n):
            if r != col and aug[r, col]:
                aug[r] ^= mul(aug[col], aug[r, col])
    return aug[:, n:]

"""Seed 000: Reed-Solomon encoding as a GF(2^8) matrix product C = A x B on bytes.

A is small (m parity rows x k data chunks), B is k x B_width bytes (the data), C the parity.
Four kernels from the seed, each as written there, with + as xor and * as GF(2^8) multiply:
- `naive`: one thread per output byte, operands from global memory, the grid-stride
  `do { ... bx += gridDim.x; } while (col < B_width);` loop;
- `square`: TILE_SIZE x TILE_SIZE shared tiles (TILE_SIZE 16), same grid-stride loop;
- `general`: run-time tile shape (tileWidthRow x tileDepth of A, tileDepth x tileWidthCol of
  B) in dynamic shared memory, one buffer `sMem`;
- `words`: the word-packed version: B and C as 32-bit words, one dynamic buffer seen as bytes
  (`sMemBytes`) and as words (`sMemWords`), four GF products per word.

The seed's square and general kernels call __syncthreads() inside
`if (row < A_height && col < B_width)`: at sizes that are not multiples of the tile the
barrier diverges; the defaults are multiples, and the interpreter rejects the others.
"""
import numpy as np

from . import gf256
from kernels_ir import (
    KernelBuilder, blockDim, blockIdx, cast, gridDim, i32, logical_and, select, smin, threadIdx,
    u8, u32,
)

TILE_SIZE = 16


def _signature(k, word_packed=False):
    A_height, A_width, B_width = k.param("A_height"), k.param("A_width"), k.param("B_width")
    T = u32 if word_packed else u8
    A = k.global_array("A", u8, A_height * A_width)
    B = k.global_array("B", T, A_width * B_width)
    C = k.global_array("C", T, A_height * B_width, intent="out")
    return A_height, A_width, B_width, A, B, C


def naive(A_height=4, A_width=8, B_width=1024, grid_x=8):
    """The naive kernel: every operand from global memory."""
    sizes = dict(locals())
    k = KernelBuilder("rs_naive")
    A_height, A_width, B_width, A, B, C = _signature(k)
    grid = k.param("grid_x")
    tx, ty = threadIdx.x, threadIdx.y
    row = k.let("row", blockIdx.y * blockDim.y + ty, "i32")
    with k.do_while("bx", blockIdx.x, gridDim.x,
                    lambda bx: bx * blockDim.x + tx < B_width) as bx:
        col = k.let("col", bx * blockDim.x + tx, "i32")
        product = k.let("product", 0, u8)
        with k.if_(logical_and(row < A_height, col < B_width)):
            with k.range("i", 0, A_width) as i:
                product ^= gf256.gf_mul(k, A[row * A_width + i], B[i * B_width + col])
            C[row * B_width + col] = product
    k.launch(grid=(grid, (A_height + 15) // 16), block=(16, 16))
    k.defaults(**sizes)
    return k.build()


def square(A_height=16, A_width=16, B_width=512, grid_x=8):
    """Square tiling, TILE_SIZE 16, with the seed's grid-stride loop over B's columns."""
    sizes = dict(locals())
    k = KernelBuilder("rs_square")
    A_height, A_width, B_width, A, B, C = _signature(k)
    grid = k.param("grid_x")
    rowVector = k.shared("rowVector", u8, (TILE_SIZE, TILE_SIZE))
    colVector = k.shared("colVector", u8, (TILE_SIZE, TILE_SIZE))
    tx, ty = threadIdx.x, threadIdx.y
    row = k.let("row", blockIdx.y * TILE_SIZE + ty, "i32")
    with k.do_while("bx", blockIdx.x, gridDim.x,
                    lambda bx: bx * blockDim.x + tx < B_width) as bx:
        product = k.let("product", 0, u8)
        col = k.let("col", bx * TILE_SIZE + tx, "i32")
        k.syncthreads()
        with k.if_(logical_and(row < A_height, col < B_width)):
            bound = k.let("bound", smin(A_width, TILE_SIZE))
            with k.range("i", 0, (A_width + TILE_SIZE - 1) // TILE_SIZE) as i:
                with k.range("j", tx, bound, blockDim.x) as j:
                    rowVector[ty, j] = A[row * A_width + i * bound + j]
                with k.range("j", ty, bound, blockDim.y) as j:
                    colVector[j, tx] = B[col + (i * bound + j) * B_width]
                k.syncthreads()
                with k.range("j", 0, bound) as j:
                    product ^= gf256.gf_mul(k, rowVector[ty, j], colVector[j, tx])
            C[row * B_width + col] = product
    k.launch(grid=(grid, (A_height + TILE_SIZE - 1) // TILE_SIZE), block=(TILE_SIZE, TILE_SIZE))
    k.defaults(**sizes)
    return k.build()


def general(A_height=8, A_width=16, B_width=512, tileWidthRow=8, tileWidthCol=32, grid_x=8):
    """Generalized tiling: run-time tile shape in one dynamic shared buffer (depth = A_width)."""
    sizes = dict(locals())
    k = KernelBuilder("rs_general")
    A_height, A_width, B_width, A, B, C = _signature(k)
    twr, twc = k.param("tileWidthRow"), k.param("tileWidthCol")
    grid = k.param("grid_x")
    depth = A_width  # the seed loads the whole depth of A's rows: tileDepth == A_width
    sMem = k.dynamic_shared("sMem", u8)
    tx, ty = threadIdx.x, threadIdx.y
    rowVectorSize = k.let("rowVectorSize", twr * depth, "i32")
    row = k.let("row", blockIdx.y * twr + ty, "i32")
    with k.do_while("bx", blockIdx.x, gridDim.x,
                    lambda bx: bx * blockDim.x + tx < B_width) as bx:
        product = k.let("product", 0, u8)
        col = k.let("col", bx * twc + tx, "i32")
        k.syncthreads()
        with k.if_(logical_and(row < A_height, col < B_width)):
            with k.range("j", tx, depth, blockDim.x) as j:
                sMem[ty * depth + j] = A[row * A_width + j]
            with k.range("j", ty, depth, blockDim.y) as j:
                sMem[rowVectorSize + j * twc + tx] = B[col + j * B_width]
            k.syncthreads()
            with k.range("j", 0, depth) as j:
                product ^= gf256.gf_mul(k, sMem[ty * depth + j],
                                        sMem[rowVectorSize + j * twc + tx])
            k.syncthreads()
            C[row * B_width + col] = product
    k.launch(grid=(grid, (A_height + twr - 1) // twr), block=(twc, twr),
             dynamic_smem=twr * depth + depth * twc)
    k.defaults(**sizes)
    return k.build()


def words(A_height=8, A_width=16, B_width=128, tileWidthRow=8, tileWidthCol=32, grid_x=2):
    """Word-packed: B and C in 32-bit words, one buffer seen as bytes and as words.

    B_width counts words (4 data bytes each); a thread computes four GF products per word.
    """
    sizes = dict(locals())
    k = KernelBuilder("rs_words")
    A_height, A_width, B_width, A, B, C = _signature(k, word_packed=True)
    twr, twc = k.param("tileWidthRow"), k.param("tileWidthCol")
    grid = k.param("grid_x")
    depth = A_width
    sMemBytes = k.dynamic_shared("sMemBytes", u8)
    sMemWords = k.view(sMemBytes, "sMemWords", u32)
    tx, ty = threadIdx.x, threadIdx.y
    # (int)(ceil((float)tileWidthRow * tileDepth / sizeof(T))) * sizeof(T), in integers
    rowVectorSize = k.let("rowVectorSize", (twr * depth + 3) // 4 * 4, "i32")
    row = k.let("row", blockIdx.y * twr + ty, "i32")
    with k.do_while("bx", blockIdx.x, gridDim.x,
                    lambda bx: bx * blockDim.x + tx < B_width) as bx:
        product = k.let("product", 0, u32)
        col = k.let("col", bx * twc + tx, "i32")
        k.syncthreads()
        with k.if_(logical_and(row < A_height, col < B_width)):
            with k.range("j", tx, depth, blockDim.x) as j:
                sMemBytes[ty * depth + j] = A[row * A_width + j]
            with k.range("j", ty, depth, blockDim.y) as j:
                sMemWords[rowVectorSize // 4 + j * twc + tx] = B[col + j * B_width]
            k.syncthreads()
            with k.range("j", 0, depth) as j:
                item = k.let("C_word_item", 0, u32)
                # the seed reads sMemBytes[ty * tileDepth + j] inside the k loop; it does not
                # depend on k and the compiler loads it once per j, as stated here
                a = sMemBytes[ty * depth + j]
                with k.range("kb", 0, 4) as kb:
                    b = sMemBytes[rowVectorSize + (j * twc + tx) * 4 + kb]
                    item ^= gf256.gf_mul(k, a, b) << (kb * 8)
                product ^= item
            k.syncthreads()
            C[row * B_width + col] = product
    k.launch(grid=(grid, (A_height + twr - 1) // twr), block=(twc, twr),
             dynamic_smem=(twr * depth + 3) // 4 * 4 + depth * twc * 4)
    k.defaults(**sizes)
    return k.build()


def reference(arrays, params, word_packed=False) -> np.ndarray:
    """C = A x B over GF(2^8) from a run's input arrays (C as the kernel stores it)."""
    h, w, bw = params["A_height"], params["A_width"], params["B_width"]
    A = arrays["A"].reshape(h, w)
    if word_packed:
        B = arrays["B"].reshape(w, bw).view(np.uint8)  # little-endian: byte k of each word
        return gf256.matmul(A, B).view(np.uint32).reshape(-1)
    return gf256.matmul(A, arrays["B"].reshape(w, bw)).reshape(-1)




def tables(A_height=8, A_width=16, B_width=1024, grid_x=16):
    """The naive kernel with GF(2^8) multiply by log/exp tables held in shared memory.

    Every block first copies the 256-byte log table and the 512-byte exp table (exp
    repeated, so log a + log b needs no modulo) from global memory. A lookup's address is
    the data itself, so its bank conflicts depend on the input: the analysis runs the
    kernel on the launch's data and marks these sites data-dependent.
    """
    sizes = dict(locals())
    k = KernelBuilder("rs_tables")
    A_height, A_width, B_width, A, B, C = _signature(k)
    grid = k.param("grid_x")
    log_g = k.global_array("gf_log", u8, 256)
    exp_g = k.global_array("gf_exp", u8, 512)
    log_s = k.shared("log_table", u8, 256)
    exp_s = k.shared("exp_table", u8, 512)
    tx, ty = threadIdx.x, threadIdx.y
    tid = k.let("tid", ty * blockDim.x + tx, "i32")
    with k.range("e", tid, 512, blockDim.x * blockDim.y) as e:
        exp_s[e] = exp_g[e]
        with k.if_(e < 256):
            log_s[e] = log_g[e]
    k.syncthreads()
    row = k.let("row", blockIdx.y * blockDim.y + ty, "i32")
    with k.do_while("bx", blockIdx.x, gridDim.x,
                    lambda bx: bx * blockDim.x + tx < B_width) as bx:
        col = k.let("col", bx * blockDim.x + tx, "i32")
        product = k.let("product", 0, u8)
        with k.if_(logical_and(row < A_height, col < B_width)):
            with k.range("i", 0, A_width) as i:
                a = A[row * A_width + i]
                b = B[i * B_width + col]
                # log[0] is never used: a zero operand selects 0 below
                p = exp_s[cast(log_s[a], i32) + log_s[b]]
                product ^= select(logical_and(a != 0, b != 0), p, 0)
            C[row * B_width + col] = product
    k.launch(grid=(grid, (A_height + 15) // 16), block=(16, 16))
    k.defaults(**sizes)
    return k.build()


def table_arrays(launch, seed: int = 0) -> dict:
    """Inputs for `tables`: random data and the real GF(2^8) log/exp tables."""
    from kernels_ir import make_arrays
    arrays = make_arrays(launch, seed)
    log = gf256.LOG.astype(np.uint8)
    arrays["gf_log"] = log
    arrays["gf_exp"] = gf256.EXP[:512].astype(np.uint8)
    return arrays


KERNELS = {"naive": naive, "square": square, "general": general, "words": words,
           "tables": tables}

# inputs that a kernel needs beyond seeded random data (the real GF(2^8) tables)
ARRAYS = {"tables": table_arrays}

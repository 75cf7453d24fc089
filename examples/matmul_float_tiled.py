"""Seed 004's single-precision tiled products (also run at seed 003's workload shape).

`tiled` is `matrixMultiplySharedKernel`: TILE x TILE shared tiles, guarded loads that store 0
past the matrix edges, so any size works (written as the compiler emits it: see the comment
in the loop):

    for (int t = 0; t < numTiles; t++) {
        if (row < rowsA && t * TILE_SIZE + threadIdx.x < commonDim)
            tileA[threadIdx.y][threadIdx.x] =
                matrixA[row * commonDim + t * TILE_SIZE + threadIdx.x];
        else
            tileA[threadIdx.y][threadIdx.x] = 0.0f;
        ... tileB likewise ...
        __syncthreads();
        for (int i = 0; i < TILE_SIZE; i++)
            value += tileA[threadIdx.y][i] * tileB[i][threadIdx.x];
        __syncthreads();
    }

`ilp2` is `matrixMultiplySharedILPkernel`: blockDim.y = BLOCK_SIZE / 2, each thread computes
two results 16 rows apart (the seed has no edge guards: sizes must be multiples of 32).

Seed 003 multiplies a 96 x 363 matrix by a 363 x 3025 one: `seed003()` is the tiled kernel at
that shape, where neither 363 nor 3025 is a multiple of the tile.
"""
from kernels_ir import KernelBuilder, blockDim, blockIdx, f32, i32, logical_and, threadIdx


def tiled(tile: int = 32, rows_a: int = 256, common: int = 256, cols_b: int = 256,
          name: str | None = None):
    """C (rowsA x colsB) = A (rowsA x commonDim) x B (commonDim x colsB), TILE x TILE tiles."""
    k = KernelBuilder(name or f"matmul_tiled{tile}")
    rowsA, colsB, commonDim = k.param("rowsA"), k.param("colsB"), k.param("commonDim")
    A = k.global_array("matrixA", f32, rowsA * commonDim)
    B = k.global_array("matrixB", f32, commonDim * colsB)
    C = k.global_array("matrixC", f32, rowsA * colsB, intent="out")
    tileA = k.shared("tileA", f32, (tile, tile))
    tileB = k.shared("tileB", f32, (tile, tile))
    tx, ty = threadIdx.x, threadIdx.y

    row = k.let("row", blockIdx.y * blockDim.y + ty, i32)
    col = k.let("col", blockIdx.x * blockDim.x + tx, i32)
    value = k.let("value", 0.0)
    with k.range("t", 0, (commonDim + tile - 1) // tile) as t:
        # The seed stores in both branches (`if (..) tileA[..] = A[..]; else tileA[..] = 0;`);
        # NVRTC turns that into one STS of a selected value (the SASS check reports the two
        # store sites merged), so the IR states the kernel that runs: one store per tile.
        a = k.let("a", 0.0)
        with k.if_(logical_and(row < rowsA, t * tile + tx < commonDim)):
            a.set(A[row * commonDim + t * tile + tx])
        tileA[ty, tx] = a
        b = k.let("b", 0.0)
        with k.if_(logical_and(t * tile + ty < commonDim, col < colsB)):
            b.set(B[(t * tile + ty) * colsB + col])
        tileB[ty, tx] = b
        k.syncthreads()
        with k.range("i", 0, tile) as i:
            value += tileA[ty, i] * tileB[i, tx]
        k.syncthreads()
    with k.if_(logical_and(row < rowsA, col < colsB)):
        C[row * colsB + col] = value

    k.launch(grid=((colsB + tile - 1) // tile, (rowsA + tile - 1) // tile), block=(tile, tile))
    k.defaults(rowsA=rows_a, colsB=cols_b, commonDim=common)
    return k.build()


def ilp2(n: int = 256):
    """Two results per thread (rows ty and ty + 16), BLOCK_SIZE 32, blockDim = (32, 16)."""
    bs = 32
    k = KernelBuilder("matmul_ilp2")
    rowsA, colsB, commonDim = k.param("rowsA"), k.param("colsB"), k.param("commonDim")
    A = k.global_array("matrixA", f32, rowsA * commonDim)
    B = k.global_array("matrixB", f32, commonDim * colsB)
    C = k.global_array("matrixC", f32, rowsA * colsB, intent="out")
    tileA = k.shared("tileA", f32, (bs, bs))
    tileB = k.shared("tileB", f32, (bs, bs))
    tx, ty = threadIdx.x, threadIdx.y

    row = k.let("row", blockIdx.y * blockDim.y * 2 + ty, i32)
    col = k.let("col", blockIdx.x * blockDim.x + tx, i32)
    value = k.local_array("value", f32, 2)
    with k.range("t", 0, (commonDim + bs - 1) // bs) as t:
        tileA[ty, tx] = A[row * commonDim + t * bs + tx]
        tileA[ty + 16, tx] = A[(row + 16) * commonDim + t * bs + tx]
        tileB[ty, tx] = B[(t * bs + ty) * colsB + col]
        tileB[ty + 16, tx] = B[(t * bs + ty + 16) * colsB + col]
        k.syncthreads()
        with k.range("j", 0, bs) as j:
            # the seed reads tileB[j][threadIdx.x] in both lines; the compiler loads it once
            b = tileB[j, tx]
            value[0] += tileA[ty, j] * b
            value[1] += tileA[ty + 16, j] * b
        k.syncthreads()
    C[row * colsB + col] = value[0]
    C[(row + 16) * colsB + col] = value[1]

    k.launch(grid=(colsB // bs, rowsA // bs), block=(bs, bs // 2))
    k.defaults(rowsA=n, colsB=n, commonDim=n)
    return k.build()


def seed003():
    """Seed 003's workload: (96 x 363) x (363 x 3025), through the 32 x 32 tiled kernel."""
    return tiled(32, rows_a=96, common=363, cols_b=3025, name="matmul_seed003")


KERNELS = {"tiled": tiled, "ilp2": ilp2, "seed003": seed003}

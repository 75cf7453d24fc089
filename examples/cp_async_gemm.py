"""A tiled SGEMM that double-buffers its shared tiles with cp.async (sm_80+): while the block
multiplies tile k, the copy of tile k + 1 is in flight.

    __shared__ __align__(16) float As[2][16][16 + PAD], Bs[2][16][16 + PAD];
    auto stage = [&](int s, int kt) {           // 64 threads copy A, 64 copy B, 16 B each
        if (t < 64)
            cp_async16(&As[s][t / 4][t % 4 * 4], &A[(by * 16 + t / 4) * K + kt * 16 + t % 4 * 4]);
        else if (t < 128)  // u = t - 64
            cp_async16(&Bs[s][u / 4][u % 4 * 4], &B[(kt * 16 + u / 4) * N + bx * 16 + u % 4 * 4]);
        cp_async_commit();
    };
    stage(0, 0);
    for (int kt = 0; kt < K / 16; ++kt) {
        if (kt + 1 < K / 16) { stage((kt + 1) % 2, kt + 1); cp_async_wait<1>(); }
        else cp_async_wait<0>();
        __syncthreads();
        for (int k = 0; k < 16; ++k) acc += As[kt % 2][ty][k] * Bs[kt % 2][k][tx];
        __syncthreads();
    }
    C[(by * 16 + ty) * N + bx * 16 + tx] = acc;

A quarter-warp's eight 16-byte copies cover two 64-byte tile rows: 128 contiguous bytes
without padding, one wavefront each, 4 per request. With PAD = 4 (a habit from transposes)
the two rows are 80 bytes apart, their words overlap in banks 0-3, and every copy request
costs 8: padding that does nothing for the compute loads doubles the copies' cost. Nsight
counts cp.async wavefronts only in the unsuffixed shared total (smemsim's ldgsts class).
"""
from kernels_ir import KernelBuilder, blockIdx, cast, f32, i32, threadIdx

TILE = 16


def gemm(pad: int = 0):
    """C = A B for M x K and K x N floats (multiples of 16), one 16 x 16 tile per block."""
    k = KernelBuilder(f"cp_async_gemm_pad{pad}")
    m_, n_, k_ = k.param("M"), k.param("N"), k.param("K")
    a = k.global_array("A", f32, m_ * k_)
    b = k.global_array("B", f32, k_ * n_)
    c = k.global_array("C", f32, m_ * n_, intent="out")
    a_s = k.shared("As", f32, (2, TILE, TILE), pad=pad)
    b_s = k.shared("Bs", f32, (2, TILE, TILE), pad=pad)
    tx, ty = cast(threadIdx.x, i32), cast(threadIdx.y, i32)
    bx, by = cast(blockIdx.x, i32), cast(blockIdx.y, i32)
    t = ty * TILE + tx
    tiles = k_ // TILE

    def stage(buf, kt):
        with k.if_(t < 64):
            k.cp_async(a_s, (buf, t // 4, t % 4 * 4), a,
                       (by * TILE + t // 4) * k_ + kt * TILE + t % 4 * 4, width=4)
        with k.else_():
            with k.if_(t < 128):
                u = t - 64
                k.cp_async(b_s, (buf, u // 4, u % 4 * 4), b,
                           (kt * TILE + u // 4) * n_ + bx * TILE + u % 4 * 4, width=4)
        k.cp_async_commit()

    acc = k.let("acc", 0.0)
    stage(0, 0)
    with k.range("kt", 0, tiles) as kt:
        with k.if_(kt + 1 < tiles):
            stage((kt + 1) % 2, kt + 1)
            k.cp_async_wait(1)
        with k.else_():
            k.cp_async_wait(0)
        k.syncthreads()
        with k.range("kk", 0, TILE) as kk:
            acc += a_s[kt % 2, ty, kk] * b_s[kt % 2, kk, tx]
        k.syncthreads()
    c[(by * TILE + ty) * n_ + bx * TILE + tx] = acc
    k.launch(grid=(n_ // TILE, m_ // TILE), block=(TILE, TILE))
    k.defaults(M=512, N=512, K=512)
    return k.build()


KERNELS = {"gemm": lambda: gemm(0), "padded": lambda: gemm(4)}

"""A persistent GEMM: one block per SM (132 on an H100 SXM) walks the output tiles.

Each of the 132 blocks of 256 threads (16 x 16) takes tiles blockIdx.x, blockIdx.x + 132,
... of the (M / 64) x (N / 64) output tiles, so blocks run 7 or 8 tiles at n = 2048; per
tile, 16-deep slices of A (stored transposed) and B pass through shared memory and each
thread accumulates a 4 x 4 sub-tile from float4 reads:

    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int m0 = tile / tiles_n * 64, n0 = tile % tiles_n * 64;
        for (int k0 = 0; k0 < K; k0 += 16) {
            As[tid % 16][tid / 16 * 4 + 0..3] = A[(m0 + tid / 16 * 4 + 0..3) * K + k0 + tid % 16];
            Bs[tid / 64 * 4 + 0..3][tid % 64]... (float4 of B)
            __syncthreads();
            for (int kk = 0; kk < 16; kk++) { a = As[kk][ty * 4] (float4); b = Bs[kk][tx * 4]; ... }
            __syncthreads();
        }
        store the 4 x 4 results
    }
"""
from kernels_ir import KernelBuilder, f32, gridDim, blockIdx, i32, threadIdx

BM = BN = 64
BK = 16
SMS = 132


def gemm(n: int = 1024, sms: int = SMS):
    """C (M x N) = A (M x K) x B (K x N) by `sms` persistent blocks (sizes multiples of 64)."""
    k = KernelBuilder("persistent_gemm")
    M, N, K = k.param("M"), k.param("N"), k.param("K")
    A = k.global_array("A", f32, M * K)
    B = k.global_array("B", f32, K * N)
    C = k.global_array("C", f32, M * N, intent="out")
    As = k.shared("As", f32, (BK, BM))     # transposed: [k][m]
    Bs = k.shared("Bs", f32, (BK, BN))
    tx, ty = threadIdx.x, threadIdx.y
    tid = k.let("tid", ty * 16 + tx, i32)
    tiles_n = k.let("tiles_n", N // BN, i32)
    acc = k.local_array("acc", f32, (4, 4))
    with k.range("tile", blockIdx.x, (M // BM) * tiles_n, gridDim.x) as tile:
        m0 = k.let("m0", tile // tiles_n * BM, i32)
        n0 = k.let("n0", tile % tiles_n * BN, i32)
        with k.range("r", 0, 4, unroll=True) as r:
            with k.range("q", 0, 4, unroll=True) as q:
                acc[r, q] = 0.0
        with k.range("k0", 0, K, BK) as k0:
            with k.range("e", 0, 4, unroll=True) as e:
                As[tid % 16, tid // 16 * 4 + e] = A[(m0 + tid // 16 * 4 + e) * K + k0 + tid % 16]
            vb = B.load((k0 + tid // 16) * N + n0 + tid % 16 * 4, width=4, name="gb")
            Bs.store((tid // 16, tid % 16 * 4), [vb[e] for e in range(4)], width=4)
            k.syncthreads()
            with k.range("kk", 0, BK) as kk:
                a = As.load((kk, ty * 4), width=4, name="a")
                b = Bs.load((kk, tx * 4), width=4, name="b")
                for r in range(4):
                    for q in range(4):
                        acc[r, q] = acc[r, q] + a[r] * b[q]
            k.syncthreads()
        for r in range(4):
            C.store((m0 + ty * 4 + r) * N + n0 + tx * 4, [acc[r, q] for q in range(4)], width=4)

    k.launch(grid=sms, block=(16, 16))
    k.defaults(M=n, N=n, K=n)
    return k.build()


KERNELS = {"gemm": gemm}

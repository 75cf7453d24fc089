"""Seed 004's 128 x 128 block tile, written out from its pseudo-code.

256 threads (16 x 16) compute a 128 x 128 tile of C, each an 8 x 8 sub-tile held in
registers; TILE_K = 16 columns of A and rows of B per step, staged in shared memory with
double buffering (one __syncthreads per step). A is stored transposed (smemA[k][m]) so that
a thread's 4 consecutive rows are one float4; B is stored as is (smemB[k][n]).

    load_gmem_tile_to_reg(A, 0, ldg_a_reg); load_gmem_tile_to_reg(B, 0, ldg_b_reg);
    store_reg_to_smem_tile_transpose(ldg_a_reg, 0, smemA[0]); store_reg_to_smem_tile(...);
    __syncthreads();
    load_smem_tile_to_reg(smemA[0], 0, a_reg[0]); load_smem_tile_to_reg(smemB[0], 0, b_reg[0]);
    int write_stage_idx = 1;
    do {
        i += TILE_K;
        load_gmem_tile_to_reg(A, i, ldg_a_reg); load_gmem_tile_to_reg(B, i, ldg_b_reg);
        int load_stage_idx = write_stage_idx ^ 1;
        #pragma unroll
        for (int j = 0; j < TILE_K - 1; ++j) {
            load_smem_tile_to_reg(smemA[load_stage_idx], j + 1, a_reg[(j + 1) % 2]);
            load_smem_tile_to_reg(smemB[load_stage_idx], j + 1, b_reg[(j + 1) % 2]);
            mma8x8(a_reg[j % 2], b_reg[j % 2], c);
        }
        if (i < K) { store ... to smem[write_stage_idx]; __syncthreads(); write_stage_idx ^= 1; }
        load_smem_tile_to_reg(smemA[load_stage_idx ^ 1], 0, a_reg[0]); ... b_reg[0];
        mma8x8(a_reg[1], b_reg[1], c);
    } while (i < K);
    store_c(c, C);

Thread (tx, ty) owns rows ty*4..ty*4+3 and 64+ty*4..+3, columns tx*4..+3 and 64+tx*4..+3, so
its shared loads are float4s that a half-warp shares (A) or reads consecutively (B). The
pseudo-code loads the next global tile unconditionally, past the end of A and B on the last
step; here that load is guarded by `i < K`. Sizes must be multiples of 128 (M, N) and 16 (K).
"""
from kernels_ir import KernelBuilder, blockIdx, f32, i32, threadIdx

BM = BN = 128
TILE_K = 16
THREADS = 256


def matmul(m: int = 512, n: int = 512, k_dim: int = 512):
    """C (M x N) = A (M x K) x B (K x N), one 128 x 128 tile per block of 256 threads."""
    k = KernelBuilder("matmul_128x128")
    M, N, K = k.param("M"), k.param("N"), k.param("K")
    A = k.global_array("A", f32, M * K)
    B = k.global_array("B", f32, K * N)
    C = k.global_array("C", f32, M * N, intent="out")
    smemA = k.shared("smemA", f32, (2, TILE_K, BM))   # transposed: [stage][k][m]
    smemB = k.shared("smemB", f32, (2, TILE_K, BN))   # [stage][k][n]
    tx, ty = threadIdx.x, threadIdx.y
    tid = k.let("tid", ty * 16 + tx, i32)
    row0 = k.let("row0", blockIdx.y * BM, i32)
    col0 = k.let("col0", blockIdx.x * BN, i32)

    c = k.local_array("c", f32, (8, 8))
    ldg_a = k.local_array("ldg_a_reg", f32, (2, 4))
    ldg_b = k.local_array("ldg_b_reg", f32, (2, 4))
    a_reg = k.local_array("a_reg", f32, (2, 8))
    b_reg = k.local_array("b_reg", f32, (2, 8))

    def load_gmem_tile_to_reg(i):
        # A tile: 128 rows x 16 k = 512 float4, two per thread; B tile: 16 x 128 likewise
        with k.range("p", 0, 2, unroll=True) as p:
            idx = tid + p * THREADS
            va = A.load((row0 + idx // 4) * K + i + idx % 4 * 4, width=4, name="ga")
            vb = B.load((i + idx // 32) * N + col0 + idx % 32 * 4, width=4, name="gb")
            for e in range(4):
                ldg_a[p, e] = va[e]
                ldg_b[p, e] = vb[e]

    def store_reg_to_smem(stage):
        with k.range("p", 0, 2, unroll=True) as p:
            idx = tid + p * THREADS
            for e in range(4):  # transposed: four scalar stores
                smemA[stage, idx % 4 * 4 + e, idx // 4] = ldg_a[p, e]
            smemB.store((stage, idx // 32, idx % 32 * 4),
                        [ldg_b[p, e] for e in range(4)], width=4)

    def load_smem_tile_to_reg(stage, kk, slot):
        for half in range(2):
            va = smemA.load((stage, kk, half * 64 + ty * 4), width=4, name="sa")
            vb = smemB.load((stage, kk, half * 64 + tx * 4), width=4, name="sb")
            for e in range(4):
                a_reg[slot, half * 4 + e] = va[e]
                b_reg[slot, half * 4 + e] = vb[e]

    def mma8x8(slot):
        with k.range("r", 0, 8, unroll=True) as r:
            with k.range("q", 0, 8, unroll=True) as q:
                c[r, q] = c[r, q] + a_reg[slot, r] * b_reg[slot, q]

    load_gmem_tile_to_reg(0)
    store_reg_to_smem(0)
    k.syncthreads()
    load_smem_tile_to_reg(0, 0, 0)
    write_stage = k.let("write_stage_idx", 1, i32)
    with k.do_while("i", 0, TILE_K, lambda i: i < K) as i:
        nxt = k.let("next_k", i + TILE_K, i32)
        with k.if_(nxt < K):
            load_gmem_tile_to_reg(nxt)
        load_stage = k.let("load_stage_idx", write_stage ^ 1, i32)
        with k.range("j", 0, TILE_K - 1, unroll=True) as j:
            load_smem_tile_to_reg(load_stage, j + 1, (j + 1) % 2)
            mma8x8(j % 2)
        with k.if_(nxt < K):
            store_reg_to_smem(write_stage)
            k.syncthreads()
            write_stage ^= 1
        load_smem_tile_to_reg(load_stage ^ 1, 0, 0)
        mma8x8(1)

    # store_c: the 8 x 8 results as float4s
    for half_r in range(2):
        for r in range(4):
            grow = row0 + half_r * 64 + ty * 4 + r
            for half_c in range(2):
                C.store(grow * N + col0 + half_c * 64 + tx * 4,
                        [c[half_r * 4 + r, half_c * 4 + e] for e in range(4)], width=4)

    k.launch(grid=(N // BN, M // BM), block=(16, 16))
    k.defaults(M=m, N=n, K=k_dim)
    return k.build()


KERNELS = {"matmul": matmul}

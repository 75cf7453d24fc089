"""Causal attention, FlashAttention-style: the loop over key tiles runs blockIdx.x + 1 times.

One block per (query tile, head): 128 threads own BR = 32 query rows of head dimension
D = 64, four threads per row. For each key/value tile j = 0 .. blockIdx.x (later tiles are
entirely masked by causality and skipped):

    for (int e = tid; e < BC * D; e += 128) { Ks[e / D][e % D] = K[...]; Vs[e / D][e % D] = V[...]; }
    __syncthreads();
    for (int c = 0; c < 8; c++) {              // S = Q K^T, 8 columns per thread
        float s = 0;
        for (int k = 0; k < D; k++) s += Qs[row][k] * Ks[part * 8 + c][k];
        Ps[row][part * 8 + c] = (j * BC + part * 8 + c <= q0 + row) ? s * scale : -INFINITY;
    }
    __syncthreads();
    ... online softmax over Ps[row][0..31] (max, exp, sum), rescale o ...
    for (int c = 0; c < BC; c++)               // O += P V, 16 output columns per thread
        for (int d = 0; d < 16; d++) o[d] += Ps[row][c] * Vs[c][part * 16 + d];
    __syncthreads();

The query tile in Qs is read with a row stride of D floats by 8 rows per warp (8-way
conflicts); `pad` pads every shared row. The number of key tiles differs per block, so the
launch's requests grow with the square of the sequence length while the analysis runs one
block: see docs/history/performance-log.md (flat traces).
"""
from kernels_ir import KernelBuilder, blockIdx, call, f32, i32, select, smax, threadIdx

BR = BC = 32
D = 64
THREADS = 128


def attention(seq: int = 1024, heads: int = 4, pad: int = 0):
    """O = softmax(Q K^T / sqrt(D), causal) V for `heads` heads of `seq` tokens, fp32."""
    k = KernelBuilder("causal_attention" if pad == 0 else f"causal_attention_pad{pad}")
    S, H = k.param("seq"), k.param("heads")
    Q = k.global_array("Q", f32, H * S * D)
    Kg = k.global_array("K", f32, H * S * D)
    V = k.global_array("V", f32, H * S * D)
    O = k.global_array("O", f32, H * S * D, intent="out")
    Qs = k.shared("Qs", f32, (BR, D), pad=pad)
    Ks = k.shared("Ks", f32, (BC, D), pad=pad)
    Vs = k.shared("Vs", f32, (BC, D), pad=pad)
    Ps = k.shared("Ps", f32, (BR, BC), pad=pad)
    tid = threadIdx.x
    row = k.let("row", tid // 4, i32)
    part = k.let("part", tid % 4, i32)
    q0 = k.let("q0", blockIdx.x * BR, i32)
    base = k.let("base", blockIdx.y * S * D, i32)

    with k.range("e", tid, BR * D, THREADS) as e:
        Qs[e // D, e % D] = Q[base + (q0 + e // D) * D + e % D]
    k.syncthreads()
    o = k.local_array("o", f32, 16)
    with k.range("d", 0, 16, unroll=True) as d:
        o[d] = 0.0
    m = k.let("m", -1e30)
    l_sum = k.let("l", 0.0)
    with k.range("j", 0, blockIdx.x + 1) as j:
        with k.range("e", tid, BC * D, THREADS) as e:
            Ks[e // D, e % D] = Kg[base + (j * BC + e // D) * D + e % D]
            Vs[e // D, e % D] = V[base + (j * BC + e // D) * D + e % D]
        k.syncthreads()
        with k.range("c", 0, 8) as c:
            s = k.let("s", 0.0)
            with k.range("kk", 0, D) as kk:
                s += Qs[row, kk] * Ks[part * 8 + c, kk]
            Ps[row, part * 8 + c] = select(j * BC + part * 8 + c <= q0 + row, s * 0.125, -1e30)
        k.syncthreads()
        m_new = k.let("m_new", m)
        with k.range("c", 0, BC) as c:
            m_new.set(smax(m_new, Ps[row, c]))
        alpha = k.let("alpha", call("exp", m - m_new))
        l_sum.set(l_sum * alpha)
        with k.range("d", 0, 16, unroll=True) as d:
            o[d] = o[d] * alpha
        with k.range("c", 0, BC) as c:
            p = k.let("p", call("exp", Ps[row, c] - m_new))
            l_sum += p
            with k.range("d", 0, 16, unroll=True) as d:
                o[d] = o[d] + p * Vs[c, part * 16 + d]
        m.set(m_new)
        k.syncthreads()
    with k.range("d", 0, 16, unroll=True) as d:
        O[base + (q0 + row) * D + part * 16 + d] = o[d] / l_sum

    k.launch(grid=(S // BR, H), block=THREADS)
    k.defaults(seq=seq, heads=heads)
    return k.build()


def padded():
    """The same kernel with every shared row padded by one float."""
    return attention(pad=1)


KERNELS = {"attention": attention, "padded": padded}

"""Row-wise softmax, one block per row: warp reductions with shuffles, then across warps
through shared memory (the structure of most hand-written and library softmax kernels).

    __global__ void softmax(const float *x, float *y, int cols) {
        __shared__ float red[WARPS + 2];
        const float *row = x + blockIdx.x * cols;
        int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        float m = -FLT_MAX;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(~0u, m, o));
        if (lane == 0) red[warp] = m;
        __syncthreads();
        if (warp == 0) {
            float v = lane < WARPS ? red[lane] : -FLT_MAX;
            for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(~0u, v, o));
            if (lane == 0) red[WARPS] = v;
        }
        __syncthreads();
        m = red[WARPS];
        ... the same for the sum of expf(row[c] - m) into red[WARPS + 1] ...
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            y[blockIdx.x * cols + c] = expf(row[c] - m) / sum;
    }

Shared memory carries only the warps' partial results: 8 one-lane stores, one warp's
reload, and a broadcast read per reduction, all conflict-free. The shuffles do the work.
"""
from kernels_ir import KernelBuilder, blockIdx, call, cast, f32, i32, threadIdx

WARPS = 8
LOWEST = -3.4028234663852886e38   # -FLT_MAX


def _warp_reduce(k, value, combine):
    """Butterfly over the 32 lanes: every lane ends with the warp's result."""
    v = k.let("r", value)
    with k.loop("o", 16, lambda o: o > 0, update=lambda o: o >> 1) as o:
        v.set(combine(v, k.shfl(v, o, "xor")))
    return v


def softmax(cols_default: int = 4096):
    """y = softmax(x) along rows; x is rows x cols, one 256-thread block per row."""
    k = KernelBuilder("softmax")
    rows, cols = k.param("rows"), k.param("cols")
    x = k.global_array("x", f32, rows * cols)
    y = k.global_array("y", f32, rows * cols, intent="out")
    red = k.shared("red", f32, WARPS + 2)
    t = cast(threadIdx.x, i32)
    lane, warp = t % 32, t // 32
    base = cast(blockIdx.x, i32) * cols
    fmax = lambda a, b: call("fmax", a, b)
    add = lambda a, b: a + b

    def block_reduce(partial, combine, identity, slot):
        v = _warp_reduce(k, partial, combine)
        with k.if_(lane == 0):
            red[warp] = v
        k.syncthreads()
        with k.if_(warp == 0):
            w = k.let("w", 0.0)
            with k.if_(lane < WARPS):
                w.set(red[lane])
            with k.else_():
                w.set(identity)
            total = _warp_reduce(k, w, combine)
            with k.if_(lane == 0):
                red[slot] = total
        k.syncthreads()
        return red[slot]

    m = k.let("m", LOWEST)
    with k.range("c", t, cols, WARPS * 32) as c:
        m.set(fmax(m, x[base + c]))
    row_max = k.let("row_max", block_reduce(m, fmax, LOWEST, WARPS))
    s = k.let("s", 0.0)
    with k.range("c", t, cols, WARPS * 32) as c:
        s.set(s + call("exp", x[base + c] - row_max))
    total = k.let("total", block_reduce(s, add, 0.0, WARPS + 1))
    with k.range("c", t, cols, WARPS * 32) as c:
        y[base + c] = call("exp", x[base + c] - row_max) / total
    k.launch(grid=rows, block=WARPS * 32)
    k.defaults(rows=1024, cols=cols_default)
    return k.build()


KERNELS = {"softmax": softmax}

"""A 256-bin byte histogram with per-block sub-histograms in shared memory.

The structure of cuda-samples' histogram256 and of most tutorial histograms:

    __global__ void histogram(const unsigned char *data, unsigned *hist, int n) {
        __shared__ unsigned s_hist[256];
        for (int b = threadIdx.x; b < 256; b += blockDim.x) s_hist[b] = 0;
        __syncthreads();
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
            atomicAdd(&s_hist[data[i]], 1);           // result unused: ATOMS.POPC.INC
        __syncthreads();
        for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&hist[b], s_hist[b]);
    }

The shared atomic's cost depends on the data: lanes that hit one bank serialize. With the
result unused and a constant 1, sm_90 compilers aggregate the lanes of each address
(ATOMS.POPC.INC), so lanes with equal bytes cost one wavefront between them; `weighted`
adds a per-element weight instead, and every lane of a bank then costs its own wavefront.
"""
import numpy as np

from kernels_ir import KernelBuilder, blockIdx, blockDim, cast, gridDim, i32, threadIdx, u8, u32

BINS = 256


def histogram(weighted: bool = False):
    """The histogram of n bytes; `weighted` adds data[i] % 4 + 1 instead of 1."""
    k = KernelBuilder("histogram_weighted" if weighted else "histogram")
    n = k.param("n")
    data = k.global_array("data", u8, n)
    hist = k.global_array("hist", u32, BINS, intent="inout")
    s_hist = k.shared("s_hist", u32, BINS)
    with k.range("b", threadIdx.x, BINS, blockDim.x) as b:
        s_hist[b] = 0
    k.syncthreads()
    with k.range("i", blockIdx.x * blockDim.x + threadIdx.x, n, blockDim.x * gridDim.x) as i:
        byte = data[i]
        k.atomic(s_hist, cast(byte, i32), "add", cast(byte, u32) % 4 + 1 if weighted else 1)
    k.syncthreads()
    with k.range("b", threadIdx.x, BINS, blockDim.x) as b:
        k.atomic(hist, b, "add", s_hist[b])
    k.launch(grid=64, block=256)
    k.defaults(n=1 << 20)
    return k.build()


def text_like(launch) -> dict:
    """Bytes of English-like text: a few letters dominate, as in real inputs."""
    rng = np.random.default_rng(7)
    letters = np.frombuffer(b"etaoinshrdlcumwfgypbvkjxqz     ", np.uint8)
    n = launch.lengths["data"]
    # random bytes through a 256-entry table of the letters (the first 8 a little more
    # often): the input's own size in memory and a third of the time of drawing indices.
    # The bytes are rng.bytes(n)'s, read off the generator's 64-bit words (7x faster: at
    # 64 M bytes, 0.05 s against 0.34 s)
    table = np.resize(letters, 256)
    raw = np.asarray(rng.bit_generator.random_raw(-(-n // 8)), "<u8").view(np.uint8)[:n]
    return {"data": table[raw],
            "hist": np.zeros(BINS, np.uint32)}


def uniform(launch) -> dict:
    """Uniformly random bytes."""
    rng = np.random.default_rng(7)
    n = launch.lengths["data"]
    return {"data": rng.integers(0, 256, n, dtype=np.uint8), "hist": np.zeros(BINS, np.uint32)}


KERNELS = {
    "uniform": lambda: histogram(),
    "text": lambda: histogram(),
    "weighted": lambda: histogram(weighted=True),
}
ARRAYS = {"uniform": uniform, "text": text_like, "weighted": text_like}

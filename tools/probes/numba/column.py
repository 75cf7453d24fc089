from numba import cuda, float32
import numpy as np
N = 128

@cuda.jit
def column(a, out, k):
    tile = cuda.shared.array(shape=(N, 32), dtype=float32)
    t = cuda.threadIdx.x
    tile[t, 0] = a[t] * k
    cuda.syncthreads()
    out[t] = tile[0, t % 32]

def main():
    a = cuda.to_device(np.ones(128, dtype=np.float32))
    out = cuda.device_array(128, dtype=np.float32)
    column[1, N](a, out, np.float32(2.0))

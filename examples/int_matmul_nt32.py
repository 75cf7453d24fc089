"""Seed 001: the int NT x NT shared-tile matrix product (Nmat 1000, NT 32), as written, and fixed.

    __shared__ int a[NT*NT], b[NT*NT];
    for (int j_block = 0; j_block < Nmat; j_block += NT) {
        j_global = j_block + j_local;
        c_ij = 0;
        for (int k_block = 0; k_block < Nmat; k_block += NT) {
            a_ij = 0; b_ij = 0;
            if (i_global < Nmat && k_block + j_local < Nmat)
                a_ij = a_dev[i_global*Nmat + k_block+j_local];
            if (j_global < Nmat && k_block + i_local < Nmat)
                b_ij = b_dev[(k_block + i_local)*Nmat + j_global];
            a[NT * i_local + j_local] = a_ij;
            b[NT * i_local + j_local] = b_ij;
            __syncthreads();
            for (int k_local = 0; k_local < NT; k_local++)
                c_ij += a[NT * i_local + k_local] * b[NT * k_local + j_local];
            __syncthreads();
        }
        if (i_global < Nmat && j_global < Nmat) c_dev[i_global*Nmat + j_global] = c_ij;
    }

threadIdx.x (i_local) runs along the warp, so `a[NT * i_local + k_local]` puts the 32 lanes
of a warp 32 words apart: one bank, a 32-way conflict; and the stores `a[NT * i_local +
j_local]` conflict the same way. The fixed version pads each row of a and b by one word
(`a[(NT+1) * i_local + ...]`), which spreads the lanes over all 32 banks.
"""
from kernels_ir import KernelBuilder, blockDim, blockIdx, i32, logical_and, threadIdx

NT = 32


def matmul(fixed: bool = False, nmat: int = 1000):
    """C = A x B for Nmat x Nmat ints, one block of NT x NT threads per NT rows of C."""
    k = KernelBuilder("int_matmul_fixed" if fixed else "int_matmul_nt32")
    n = k.param("Nmat")
    c_dev = k.global_array("c_dev", i32, n * n, intent="out")
    a_dev = k.global_array("a_dev", i32, n * n)
    b_dev = k.global_array("b_dev", i32, n * n)
    row = NT + 1 if fixed else NT
    a = k.shared("a", i32, (NT, row) if fixed else NT * NT)
    b = k.shared("b", i32, (NT, row) if fixed else NT * NT)
    at = (lambda r, c: (r, c)) if fixed else (lambda r, c: NT * r + c)

    i_local, j_local = threadIdx.x, threadIdx.y
    i_global = k.let("i_global", blockIdx.x * blockDim.x + i_local, i32)
    with k.range("j_block", 0, n, NT) as j_block:
        j_global = k.let("j_global", j_block + j_local, i32)
        c_ij = k.let("c_ij", 0, i32)
        with k.range("k_block", 0, n, NT) as k_block:
            a_ij = k.let("a_ij", 0, i32)
            b_ij = k.let("b_ij", 0, i32)
            with k.if_(logical_and(i_global < n, k_block + j_local < n)):
                a_ij.set(a_dev[i_global * n + k_block + j_local])
            with k.if_(logical_and(j_global < n, k_block + i_local < n)):
                b_ij.set(b_dev[(k_block + i_local) * n + j_global])
            a[at(i_local, j_local)] = a_ij
            b[at(i_local, j_local)] = b_ij
            k.syncthreads()
            with k.range("k_local", 0, NT) as k_local:
                c_ij += a[at(i_local, k_local)] * b[at(k_local, j_local)]
            k.syncthreads()
        with k.if_(logical_and(i_global < n, j_global < n)):
            c_dev[i_global * n + j_global] = c_ij
    k.launch(grid=(n + NT - 1) // NT, block=(NT, NT))
    k.defaults(Nmat=nmat)
    return k.build()


KERNELS = {"as_written": lambda: matmul(False), "fixed": lambda: matmul(True)}

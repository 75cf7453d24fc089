"""Frontends: a kernels file, a .cu through nvcc's PTX, Triton, numba, cupy and pycuda, read into kernels_ir."""

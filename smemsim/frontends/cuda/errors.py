"""The CUDA frontend's error: a construct it cannot read, located in the user's file."""
from __future__ import annotations

from kernels_ir import KernelError


class CudaImportError(KernelError):
    """A CUDA construct the importer cannot turn into the IR, with its file:line:column."""

"""PTX, the compiler's output, read and lowered to kernels_ir (issue #57)."""

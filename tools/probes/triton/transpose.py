"""A probe of smemsim's Triton path (tools/gpu_dsl.py): a tile transposed through Triton's
layout conversion, which goes through shared memory."""
import torch
import triton
import triton.language as tl


@triton.jit
def transpose(x_ptr, y_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(y_ptr + rn[:, None] * N + rm[None, :], tl.trans(x))


x = torch.randn(1024, 1024, device="cuda")
y = torch.empty_like(x)
transpose[(16, 16)](x, y, 1024, 64, num_warps=4)

"""Single-warp cp.async probes for `smemsim validate` on a GPU: 64 copies per launch of one
address pattern each (what the calibration file lacks: full quarter-warps of 16-byte copies).
"""
from kernels_ir import KernelBuilder, cast, f32, i32, threadIdx

REPEAT = 64


def probe(name: str, address, active=None, width: int = 4):
    """Lane l copies `width` floats to element `address(l)` (when `active(l)`), 64 times."""
    k = KernelBuilder(f"cp_probe_{name}")
    g = k.global_array("g", f32, 4096)
    out = k.global_array("out", f32, 32, intent="out")
    s = k.shared("s", f32, 4096)
    lane = cast(threadIdx.x, i32)
    with k.range("r", 0, REPEAT):
        if active is None:
            k.cp_async(s, address(lane), g, address(lane), width=width)
        else:
            with k.if_(active(lane)):
                k.cp_async(s, address(lane), g, address(lane), width=width)
        k.cp_async_commit()
        k.cp_async_wait(0)
    k.syncthreads()
    out[threadIdx.x] = s[lane * 4] if active is None else 0.0
    k.launch(1, 32)
    return k.build()


KERNELS = {
    # 16 bytes per lane, every lane: 512 contiguous bytes, 128 per quarter-warp
    "contig16": lambda: probe("contig16", lambda l: l * 4),
    # only lanes 0-7: one quarter-warp, 128 contiguous bytes
    "quarter16": lambda: probe("quarter16", lambda l: l * 4, lambda l: l < 8),
    # 4 lanes of each quarter: 64 contiguous bytes per quarter-warp
    "half_quarters16": lambda: probe("half_quarters16", lambda l: l * 4, lambda l: l % 8 < 4),
    # 8 bytes per lane, every lane: 256 contiguous bytes (the calibration's contig: 2)
    "contig8": lambda: probe("contig8", lambda l: l * 2, width=2),
}

"""A Hopper GEMM tile: TMA brings 64 x 64 tiles of A and B (f16, K-major) into shared memory
with a 128-byte swizzle, and one warpgroup multiplies them with wgmma.m64n64k16 through
matrix descriptors, accumulating C = A B^T over K in f32 registers.

    for (int kc = 0; kc < K / 64; ++kc) {
        if (threadIdx.x == 0) {
            mbarrier_arrive_expect_tx(&bar, 2 * 8192);
            tma_load_2d(sA, &mapA, kc * 64, m0, &bar);
            tma_load_2d(sB, &mapB, kc * 64, n0, &bar);
        }
        mbarrier_wait_parity(&bar, kc % 2);
        wgmma_fence();
        for (int kk = 0; kk < 4; ++kk)          // 16 k at a time: +32 bytes inside a row
            wgmma_m64n64k16(acc, desc(sA + kk * 16), desc(sB + kk * 16), kc + kk > 0);
        wgmma_commit(); wgmma_wait<0>();
    }

The descriptors say: K-major, SWIZZLE_128B, SBO 1024 (eight 128-byte rows), LBO unused.
`sw128` is right. `desc_none` is the classic mistake: the data is 128B-swizzled, the
descriptors say no swizzle (the same LBO and SBO): wrong products, silently, and Nsight
shows the same 32 wavefronts per wgmma and no conflict either way. `off1024` places the
tiles 128 bytes past a 1024-byte boundary with base offset 0: right, because TMA and wgmma
both swizzle the absolute address (measured); `off1024_base1` is the same with base offset
1 in A's descriptor, the other classic mistake: the hardware takes 1 off the swizzle's row
phase and reads other elements (wrong products). `interleave` loads without a swizzle,
eight columns per TMA box, into wgmma's core-matrix layout (LBO 1024 between the 8-column
groups, SBO 128 between 8-row groups): right. `sw64`, `sw32` use the 64B and 32B modes,
`mn128`, `mn64`, `mn32` and `mn_interleave` an MN-major B (stored K x N), `bf16` bf16
inputs, and `areg` takes A from registers, each warp's fragment read by ldmatrix.x4 from
the swizzled tile.
"""
from dataclasses import replace

import numpy as np

from kernels_ir import GmmaLayout, KernelBuilder, bf16, blockIdx, cast, f16, i32, threadIdx, u32

TILE = 64
N = 64                        # wgmma n


# variant -> the TMA swizzle's span in bytes (16: none, 8-column boxes), what the descriptor says
SPANS = {"sw128": 128, "desc_none": 128, "interleave": 16, "sw64": 64, "sw32": 32,
         "mn128": 128, "mn_interleave": 16, "bf16": 128, "areg": 128, "mn64": 64, "mn32": 32}
SWIZZLES = {128: "SWIZZLE_128B", 64: "SWIZZLE_64B", 32: "SWIZZLE_32B", 16: None}
# variants that place the tiles off a 1024-byte boundary: the layout variant they move, the
# bytes past the boundary, and the base offset in A's descriptor
PLACED = {"off1024": ("sw128", 128, 0), "off1024_base1": ("sw128", 128, 1)}


def gemm(variant: str, shift: int = 0, base_offset: int = 0, dtype=None, b_strides=None):
    """C (M x N, f32) = A (M x K) B (N x K)^T, a 64 x 64 tile per block. A span of S bytes:
    boxes of 64 rows x S bytes, 128 / S of them per 64-wide K chunk, each 64 S bytes after
    the last (an H100 computed every variant's product as the interpreter does:
    tools/gpu_wgmma_swizzles.py). `shift` bytes (a multiple of 128) place both tiles past
    their 1024-byte boundary and `base_offset` goes in A's descriptor (B's says 0): what
    the PLACED variants do, and tools/gpu_wgmma_base_offset.py with other swizzles.
    `dtype` (f16 or bf16) overrides the variant's inputs, and `b_strides` (LBO, SBO) the
    strides B's descriptor states, whatever the tiles' layout (the calibration's probes:
    tools/gpu_wgmma_swizzles.py)."""
    name = f"wgmma_{variant}"
    if variant in PLACED:
        variant, shift, base_offset = PLACED[variant]
    if shift % 128 or not 0 <= shift < 1024:
        raise ValueError(f"shift must be a multiple of 128 below 1024, got {shift!r}")
    span = SPANS[variant]
    b_major = "MN" if variant.startswith("mn") else "K"
    k = KernelBuilder(name)
    m_, n_, k_ = k.param("M"), k.param("N"), k.param("K")
    dtype = dtype or (bf16 if variant == "bf16" else f16)
    a = k.global_array("A", dtype, m_ * k_)
    b = k.global_array("B", dtype, n_ * k_)       # N x K, or K x N for an MN-major B
    c = k.global_array("C", "f32", m_ * n_, intent="out")
    swizzle = SWIZZLES[span]
    cols = span // 2                                   # elements per box row
    a_swizzle = "SWIZZLE_128B" if b_major == "MN" else swizzle
    a_cols = 64 if b_major == "MN" else cols
    map_a = k.tensor_map("map_a", a, (m_, k_), (TILE, a_cols), swizzle=a_swizzle)
    map_b = k.tensor_map("map_b", b, (n_, k_) if b_major == "K" else (k_, n_),
                         (TILE, cols), swizzle=swizzle)
    base = shift // 2                                          # elements
    areg = variant == "areg"    # A from registers: ldmatrix.x4 gives wgmma's A fragment
    s_a = k.shared("sA", dtype, (TILE, TILE), layout="SWIZZLE_128B") if areg else \
        k.shared("sA", dtype, base + TILE * TILE, align=1024)
    s_b = k.shared("sB", dtype, base + TILE * TILE, align=1024)
    bar = k.shared("bar", "u64", 1)
    a_layout, a_slab = _k_major(variant, a_swizzle, a_cols * 2, base_offset)
    if b_major == "K":   # a base offset goes in A's descriptor only
        b_layout, b_slab = replace(a_layout, base_offset=0), a_slab
    elif swizzle is None:   # 8 n x 8 k core matrices: n groups 1024 bytes apart, k groups 128
        b_layout, b_slab = GmmaLayout("MN", None, lbo=128, sbo=TILE * 16), TILE * 8
    else:                   # 8 k rows of `span` bytes, the next n atom a box further
        b_layout, b_slab = GmmaLayout("MN", swizzle, lbo=TILE * span, sbo=8 * span), \
            TILE * span // 2
    if b_strides is not None:
        b_layout = replace(b_layout, lbo=b_strides[0], sbo=b_strides[1])
    t = cast(threadIdx.x, i32)
    m0 = cast(blockIdx.y, i32) * TILE
    n0 = cast(blockIdx.x, i32) * TILE
    acc = k.local_array("acc", "f32", N // 2)
    a_frag = k.local_array("a_frag", "u32", 4) if areg else None
    a_bits = k.view(s_a, "sA_bits", "u16", (TILE, TILE), layout="SWIZZLE_128B") if areg \
        else None
    with k.if_(t == 0):
        k.mbarrier_init(bar, 0, 1)
    k.syncthreads()
    with k.range("kc", 0, k_ // TILE) as kc:
        with k.if_(t == 0):
            k.mbarrier_arrive(bar, 0, expect_tx=2 * TILE * TILE * 2)
            for j in range(TILE // a_cols):
                at = (0, 0) if areg else base + j * a_slab
                k.tma_load(map_a, s_a, at, (m0, kc * TILE + j * a_cols), bar, 0)
            for j in range(TILE // cols):
                at = (n0, kc * TILE + j * cols) if b_major == "K" else \
                    (kc * TILE, n0 + j * cols)
                k.tma_load(map_b, s_b, base + j * b_slab, at, bar, 0)
        k.mbarrier_wait(bar, 0, kc % 2)
        k.wgmma_fence()
        for kk in range(TILE // 16):
            first = kk * 16                                        # the step's first k
            a_start = base + first // a_cols * a_slab + first % a_cols   # elements
            b_start = a_start if b_major == "K" else base + first * cols
            a_operand = (s_a, a_start, a_layout)
            if areg:   # matrix j of lane l: rows 16 w + 8 (j % 2) + l % 8, columns 8 (j / 2)
                lane = t % 32
                j = lane // 8
                frag = k.ldmatrix(a_bits, (16 * (t // 32) + 8 * (j % 2) + lane % 8,
                                           first + 8 * (j // 2)), matrices=4)
                for e in range(4):   # two elements a register, the lower in the low half
                    k.write_local(a_frag, e, cast(frag[2 * e], u32)
                                  | (cast(frag[2 * e + 1], u32) << 16))
                k.wgmma_fence()   # the registers were just written
                a_operand = a_frag
            k.wgmma(acc, a_operand, (s_b, b_start, b_layout), N,
                    scale_d=(kc > 0) if kk == 0 else 1)
        k.wgmma_commit()
        k.wgmma_wait(0)
        k.syncthreads()      # every warp is done with the tiles before the next loads
    warp, lane = t // 32, t % 32
    for i in range(N // 2):
        row = m0 + 16 * warp + lane // 4 + 8 * ((i // 2) % 2)
        col = n0 + 8 * (i // 4) + 2 * (lane % 4) + i % 2
        c[row * n_ + col] = acc[i]
    k.launch(grid=(n_ // TILE, m_ // TILE), block=128)
    k.defaults(M=256, N=256, K=256)
    return k.build()


def _k_major(variant: str, swizzle: str | None, row_bytes: int,
             base_offset: int = 0) -> tuple[GmmaLayout, int]:
    """A K-major operand loaded in boxes of 64 rows x `row_bytes`: its layout as the
    descriptor says it (with `base_offset`), and the elements from one box to the next."""
    if swizzle is None:     # core matrices: 8-column groups 1024 bytes apart, 8-row groups 128
        return GmmaLayout("K", None, lbo=TILE * 16, sbo=128, base_offset=base_offset), TILE * 8
    said = None if variant == "desc_none" else swizzle
    return GmmaLayout("K", said, lbo=16, sbo=8 * row_bytes,
                      base_offset=base_offset), TILE * row_bytes // 2


def small_integers(launch) -> dict:
    """Integer-valued f16 (or bf16) inputs in -4..4: every product and sum is exact in f32,
    so the GPU's C equals the interpreter's bit for bit whatever the order of
    accumulation."""
    rng = np.random.default_rng(7)
    bf = launch.kernel.array("A").dtype.name == "bf16"
    out = {}
    for name in ("A", "B"):
        values = rng.integers(-4, 5, launch.lengths[name]).astype(np.float32)
        out[name] = (values.view(np.uint32) >> 16).astype(np.uint16) if bf \
            else values.astype(np.float16)
    return out


KERNELS = {v: (lambda v=v: gemm(v)) for v in ("sw128", "desc_none", "off1024", "interleave",
                                               "sw64", "sw32", "mn128", "mn64", "mn32",
                                               "mn_interleave", "off1024_base1", "bf16",
                                               "areg")}
ARRAYS = {key: small_integers for key in KERNELS}

"""The fix search: paddings and swizzles that keep results and remove conflicts."""
import numpy as np

from examples import int_matmul_nt32, matmul_double16, transpose
from kernels_ir import run
from smemsim.search.fix import padded, search, swizzled


def test_changed_kernels_compute_the_same_result():
    base = transpose.transpose(pad=0)
    tile = base.shared[0]
    ref = run(base, {"n": 64}, seed=3)["dst"]
    for variant in (padded(base, tile, 1), swizzled(base, tile, 5, 0, 5),
                    swizzled(base, tile, 3, 0, 6)):
        assert np.array_equal(run(variant, {"n": 64}, seed=3)["dst"], ref)
    assert padded(base, tile, 1).static_smem == base.static_smem + 32 * 4
    assert base.shared[0] is tile and base.static_smem == 4096  # the original is untouched


def test_transpose_fix_removes_every_conflict():
    f = search(transpose.transpose(pad=0), {"n": 256})
    (best,) = f.best
    assert f.baseline.excess == 63488
    assert (best.label, best.excess, best.extra_smem) == ("Swizzle<5,0,5>", 0, 0)
    pad1 = next(c for c in f.candidates if c.label == "pad 1")
    assert (pad1.excess, pad1.extra_smem) == (0, 128)


def test_two_conflicted_arrays_are_fixed_together():
    f = search(int_matmul_nt32.matmul(False), registers=22)
    assert set(f.arrays) == {"a", "b"}
    assert f.combined.excess == 0 and f.combined_warps == 64
    assert all(c.excess > 0 for c in f.best)  # each alone leaves the other's conflicts


def test_double_product_a_shared_fix():
    f = search(matmul_double16.multiply(), {"MATRIX_DIM": 64})
    assert f.arrays == ("A_shared",)
    assert f.best[0].excess == 0
    pad = min((c for c in f.candidates if c.kind == "pad"), key=lambda c: c.wavefronts)
    assert pad.excess == 0 and pad.pad == 1


def test_nothing_to_fix():
    f = search(transpose.transpose(pad=1), {"n": 64})
    assert f.arrays == () and f.candidates == ()


def test_swizzles_are_cutes_definition_for_every_b_m_s():
    """CuTe: offset ^ ((offset & (((1 << B) - 1) << (M + S))) >> S) (cute/swizzle.hpp)."""
    from kernels_ir import KernelBuilder, blockIdx, cast, i32, threadIdx
    from kernels_ir import Swizzle
    x = np.arange(4096)
    for b in (1, 2, 3):
        for m in (0, 1, 3, 4):
            for s in (b, b + 1, 5):
                k = KernelBuilder("swz")
                out = k.global_array("out", i32, 4096, intent="out")
                i = k.let("i", cast(blockIdx.x, i32) * 1024 + cast(threadIdx.x, i32))
                out[i] = Swizzle(b, m, s).expr(i)
                assert np.array_equal(Swizzle(b, m, s).apply(x), x ^ ((x & (((1 << b) - 1) << (m + s))) >> s))
                k.launch(4, 1024)
                cute = x ^ ((x & (((1 << b) - 1) << (m + s))) >> s)
                assert np.array_equal(run(k.build())["out"], cute), (b, m, s)


def test_no_change_is_proposed_that_does_not_reduce_wavefronts():
    from kernels_ir import KernelBuilder, f32, threadIdx
    # one lane per warp reads: a single-lane request costs 1 whatever the layout
    k = KernelBuilder("one_lane")
    s = k.shared("s", f32, (32, 32))
    out = k.global_array("out", f32, 32, intent="out")
    s[threadIdx.x, 0] = 1.0
    k.syncthreads()
    with k.if_(threadIdx.x == 0):
        out[0] = s[0, 0]
    s[threadIdx.x, 1] = s[threadIdx.x, 0]  # a 32-way conflicted column: fixable
    k.launch(1, 32)
    f = search(k.build())
    assert f.best and all(c.wavefronts < f.baseline.wavefronts for c in f.best)
    assert any(c.label == "pad 30" for c in f.candidates)  # the full period: 128 B of f32


def test_a_change_that_costs_warps_or_instructions_is_called_a_trade():
    """A new user's float4 GEMM (RouteTrace's sgemm_v5): skewing `Bs` cut its wavefronts
    704 M -> 436 M, but the build lost ptxas's LDS.128 merges (168 M -> 369 M shared
    instructions) and took 254 registers (16 -> 8 warps per SM); fix called it the best
    fix. What the build loses is now said on the change's own line."""
    from types import SimpleNamespace

    from smemsim.cli.render import fix_trade
    skew = SimpleNamespace(active_warps=8, requests=369_098_752)
    assert fix_trade(skew, 16, 167_772_160) == [
        "16 -> 8 warps per SM",
        "167,772,160 -> 369,098,752 shared instructions (ptxas no longer merges some accesses "
        "into wider ones)"]
    assert fix_trade(SimpleNamespace(active_warps=16, requests=167_772_160), 16,
                     167_772_160) == []
    # (registers unknown: no warps to compare)
    assert fix_trade(SimpleNamespace(active_warps=None, requests=None), None, 10) == []

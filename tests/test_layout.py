"""Shared-memory layouts as declarations: Swizzle(B, M, S) and the TMA modes, applied to every
access by the interpreter, the analysis, hazards and codegen; fix proposes them."""
import numpy as np
import pytest

from examples import ldmatrix_tile
from kernels_ir import KernelBuilder, KernelError, Swizzle, f32, format_kernel, run, threadIdx, u16
from kernels_ir.layout import tma_swizzle
from smemsim import analyze
from smemsim.search.fix import search, swizzled
from smemsim.launch.hazards import check
from tests.conftest import require_nvrtc
from tests.kernels import dynamic_swizzle


def transpose(layout=None, pad=0, align=None):
    """A 32x32 float transpose through a tile with the given layout."""
    k = KernelBuilder("t")
    src = k.global_array("src", f32, 1024)
    dst = k.global_array("dst", f32, 1024, intent="out")
    tile = k.shared("tile", f32, (32, 32), pad=pad, layout=layout, align=align)
    tx, ty = threadIdx.x, threadIdx.y
    tile[ty, tx] = src[ty * 32 + tx]
    k.syncthreads()
    dst[ty * 32 + tx] = tile[tx, ty]
    k.launch(1, (32, 32))
    return k.build()


@pytest.mark.parametrize("layout, pad, column_wavefronts", [
    (None, 0, 32 * 32),              # a column: 32 rows in one bank, per warp
    (Swizzle(5, 0, 5), 0, 32),       # c ^ r: every row of a column in its own bank
    ("SWIZZLE_128B", 0, 32 * 4),     # 16-byte chunks ^ r % 8: 8 banks for 32 rows
    ("SWIZZLE_64B", 0, 32 * 8),      # chunks ^ (r / 2) % 4 within 64 B: 4 banks
    ("SWIZZLE_32B", 0, 32 * 16),     # chunks ^ (r / 4) % 2 within 32 B: 2 banks
    (Swizzle(3, 2, 3), 0, 32 * 4),   # SWIZZLE_128B spelled in f32 elements
    (Swizzle(5, 0, 5), 32, 64),      # on padded rows of 64 the row bits seen are 2r: 2-way
])
def test_layouts_transpose_correctly_at_their_cost(layout, pad, column_wavefronts):
    k = transpose(layout, pad)
    out = run(k, seed=1)
    assert np.array_equal(out["dst"].reshape(32, 32), out["src"].reshape(32, 32).T)
    store, load = analyze(k).sites
    assert (store.wavefronts, load.wavefronts) == (32, column_wavefronts)


def test_tma_modes_are_byte_swizzles_with_their_alignment():
    assert tma_swizzle("SWIZZLE_128B", 2) == (Swizzle(3, 3, 3, tma="SWIZZLE_128B"), 1024)
    assert tma_swizzle("SWIZZLE_64B", 4) == (Swizzle(2, 2, 3, tma="SWIZZLE_64B"), 512)
    assert tma_swizzle("SWIZZLE_32B", 8) == (Swizzle(1, 1, 3, tma="SWIZZLE_32B"), 256)
    # the name is a label, not part of the layout: it compares equal to the plain Swizzle
    assert [tma_swizzle(m, 2)[0].tma for m in ("SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B")] \
        == ["SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B"]
    assert tma_swizzle("SWIZZLE_128B", 2)[0] == Swizzle(3, 3, 3)
    byte = np.arange(4096)
    cute = byte ^ ((byte >> 7) & 7) << 4  # Swizzle<3,4,3> of bytes
    f32_elements = Swizzle(3, 2, 3).apply(byte[::4] // 4)
    assert np.array_equal(f32_elements * 4, cute[::4])
    assert transpose("SWIZZLE_128B").shared[0].buffer.align == 1024  # the default


@pytest.mark.parametrize("make, message", [
    (lambda: transpose("SWIZZLE_128B", align=128), r"SWIZZLE_128B needs the array aligned to "
                                                    r"1024 bytes .* got align=128"),
    (lambda: transpose("SWIZZLE_256B"), r"layout must be Swizzle\(B, M, S\), one of "
                                        r"SWIZZLE_32B, SWIZZLE_64B, SWIZZLE_128B or a CuTe "
                                        r"layout"),
    (lambda: transpose(Swizzle(3, 4, 3), pad=1), r"Swizzle<3,4,3> permutes blocks of 128 "
                                                 r"elements, but the array holds 1056"),
    (lambda: Swizzle(3, 0, 2), r"Swizzle<3,0,2>: need B >= 1 and S >= B"),
    (lambda: Swizzle(1, -1, 3), r"Swizzle M must be a non-negative int, got -1"),
])
def test_bad_layouts_are_refused(make, message):
    with pytest.raises(KernelError, match=message):
        make()


def test_an_access_the_swizzle_would_split_is_refused():
    k = KernelBuilder("v")
    s = k.shared("s", f32, (32, 32), layout=Swizzle(3, 1, 3))  # keeps 2 floats together
    s.load((threadIdx.x, 0), width=2)
    with pytest.raises(KernelError, match=r"a 16-byte access into 's' would be split by "
                                          r"Swizzle<3,1,3>, which keeps only 2 consecutive"):
        s.load((threadIdx.x, 0), width=4)


def test_the_printer_shows_the_layout_and_races_name_logical_indices():
    assert "shared f32 tile[32][32] layout Swizzle<5,0,5>, align 16" in \
        format_kernel(transpose(Swizzle(5, 0, 5)))
    k = KernelBuilder("race")
    s = k.shared("s", f32, (32, 32), layout=Swizzle(5, 0, 5))
    out = k.global_array("out", f32, 32, intent="out")
    s[threadIdx.x, 3] = 1.0
    with k.if_(threadIdx.x == 0):
        out[0] = s[5, 3]  # thread 5's write, no barrier
    k.launch(1, 32)
    (race,) = check(k.build()).races
    # physical offset 5 * 32 + (3 ^ 5) = 166 is reported as the logical s[5][3], not s[5][6]
    assert (race.element, race.byte) == ((5, 3), 166 * 4)


def test_fix_declares_one_byte_swizzle_on_every_view_and_keeps_outputs():
    """ldmatrix_tile's row-major tile is written through a u32 view and read through u16:
    the fix must swizzle both views alike (Swizzle<3,3,3> of u16 = <3,2,3> of u32, which
    is TMA's SWIZZLE_128B)."""
    kernel = ldmatrix_tile.tile_load(swizzle=False)
    f = search(kernel, {"tiles": 4})
    (best,) = f.best
    assert (best.label, best.excess, best.tma) == ("Swizzle<3,3,3>", 0, "SWIZZLE_128B")
    assert best.builder == ('k.shared("tile", u16, 4096, layout=Swizzle(3, 3, 3), align=128); '
                            'k.view(tile, "tile_words", u32, 2048, layout=Swizzle(3, 2, 3))')
    variant = swizzled(kernel, kernel.shared[0], 3, 3, 3)
    assert np.array_equal(run(variant, {"tiles": 4}, seed=2)["out"],
                          run(kernel, {"tiles": 4}, seed=2)["out"])
    hand_written = analyze(ldmatrix_tile.tile_load(swizzle=True), {"tiles": 4})
    assert analyze(variant, {"tiles": 4}).wavefronts == hand_written.wavefronts


def test_fix_never_proposes_past_48_kib_of_static_shared_memory():
    k = KernelBuilder("big")
    s = k.shared("s", f32, (352, 32))  # 45,056 B: 4 KiB below the limit
    out = k.global_array("out", f32, 32, intent="out")
    s[threadIdx.x, 0] = 1.0
    k.syncthreads()
    out[threadIdx.x] = s[0, threadIdx.x] + s[threadIdx.x, 1]
    k.launch(1, 32)
    f = search(k.build())
    pads = sorted(c.pad for c in f.candidates if c.kind == "pad")
    assert pads == [1, 2]  # pad 2: 45,056 + 352 * 8 = 47,872 B; pad 3: 49,280
    assert ("30 padding(s) not tried: they would take static shared memory past CUDA's 49152 "
            "bytes") in f.skipped


def test_swizzled_arrays_compile():
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    compiled = compile_kernel(transpose("SWIZZLE_128B"), "sm_90")
    assert [[a.opcode for a in c.found] for c in compiled.sites] == [["STS"], ["LDS"]]
    assert "__shared__ __align__(1024) float tile[1024];" in compiled.generated.source


def test_ldmatrix_through_a_declared_layout_matches_the_hand_swizzled_example():
    def declared():
        k = KernelBuilder("declared")
        src = k.global_array("src", u16, 64 * 64)
        out = k.global_array("out", u16, 32 * 8 * 8, intent="out")
        tile = k.shared("tile", u16, (64, 64), layout="SWIZZLE_128B")
        t = threadIdx.x
        with k.range("q", t, 64 * 64, 32) as q:
            tile[q // 64, q % 64] = src[q]
        k.syncthreads()
        with k.range("kk", 0, 4) as kk:
            frag = k.ldmatrix(tile, (t % 16, (2 * kk + t // 16) * 8), matrices=4)
            for e in range(8):
                out[(kk * 32 + t) * 8 + e] = frag[e]
        k.launch(1, 32)
        return k.build()
    k = declared()
    ld = [s for s in analyze(k).sites if s.op == "ldmatrix"][0]
    assert (ld.requests, ld.wavefronts, ld.excess) == (4, 16, 0)  # 4 matrices: 1 each
    plain = swizzled(k, k.shared[0], 1, 3, 6)  # another layout: rows collide again
    assert [s for s in analyze(plain).sites if s.op == "ldmatrix"][0].excess > 0
    out = run(k, seed=5)
    src = out["src"].reshape(64, 64)
    frag0 = out["out"][:8]  # lane 0, kk 0: matrix 0, row 0: its own element pair
    assert frag0[0] == src[0, 0] and frag0[1] == src[0, 1]


def test_dynamic_views_take_a_swizzle_checked_at_launch():
    k = dynamic_swizzle.transpose(Swizzle(5, 0, 5))
    out = run(k)
    assert np.array_equal(out["dst"].reshape(32, 32), out["src"].reshape(32, 32).T)
    assert analyze(k).sites[1].wavefronts == 32
    with pytest.raises(KernelError, match=r"'tile' has Swizzle<5,0,5>, which permutes blocks "
                                          r"of 32 elements, but the launch gives 4100 bytes"):
        analyze(k, {"bytes": 4100})
    with pytest.raises(KernelError, match=r"the TMA modes \('SWIZZLE_128B'\) swizzle absolute"):
        dynamic_swizzle.transpose("SWIZZLE_128B")
    f = search(dynamic_swizzle.transpose())
    assert f.best[0].builder == 'k.dynamic_shared("tile", f32, (None, 32), ' \
                                'layout=Swizzle(5, 0, 5))'
    assert any("padding not tried: it is dynamic shared memory" in n for n in f.skipped)


def test_dynamic_swizzled_views_compile():
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    compiled = compile_kernel(dynamic_swizzle.transpose(Swizzle(5, 0, 5)), "sm_90")
    assert compiled.widths_ok
    assert "float* tile = reinterpret_cast<float*>(smem_dynamic_);" in compiled.generated.source

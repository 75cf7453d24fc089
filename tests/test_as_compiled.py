"""`analyze --as-compiled`: the counts of what NVRTC emits, for kernels written the way their
CUDA reads (tests/kernels/compiler_changes.py). Every expected figure is worked out from the
SASS by hand in the test's docstring; the GPU agreed with each (docs/validation.md)."""
from __future__ import annotations

import numpy as np
import pytest

from kernels_ir import KernelBuilder, f32, resolve_launch, threadIdx
from kernels_ir.unroll import Copy, trip_values, unroll, unrollable
from gpu_backend.as_compiled import analyze_as_compiled
from smemsim import analyze
from tests.conftest import require_nvrtc
from tests.kernels import compiler_changes as cc


def counts(report):
    """(load requests, load wavefronts, store requests, store wavefronts)."""
    return (report.load.requests, report.load.wavefronts, report.store.requests,
            report.store.wavefronts)


# ------------------------------------------------------------------ writing loops out (no NVRTC)

def test_trip_values_of_constant_loops_and_none_for_the_rest():
    k = KernelBuilder("trips")
    n = k.param("n")
    t = k.shared("t", f32, 64)
    for make in (lambda: k.range("a", 0, 16, 4, unroll=True),
                 lambda: k.range("b", 3, 0, unroll=True),
                 lambda: k.loop("c", 16, lambda c: c > 0, update=lambda c: c >> 1,
                                unroll=True),
                 lambda: k.loop("d", 0, lambda d: d < 0, 8, do_while=True, unroll=True),
                 lambda: k.range("e", 0, n, unroll=True)):
        with make() as v:
            t[threadIdx.x % 64] = v * 1.0
    k.launch(1, 64)
    loops = [s for s in k.build().body if hasattr(s, "unroll")]
    assert [trip_values(s) for s in loops] == [(0, 4, 8, 12), (), (16, 8, 4, 2, 1), (0,),
                                               None]


def test_unroll_writes_out_constant_loops_and_numbers_the_copies():
    kernel = cc.nested()
    assert unrollable(kernel)
    written, origin = unroll(kernel)
    # site 1 (x[tid][c], c < 9); sites 2, 3 (w[r][q], x[tid][q], r < 4, q < 8)
    assert len(written.sites()) == 1 + 9 + 2 * 32
    assert origin[0] == Copy(0, ())
    assert origin[9] == Copy(1, (("c", 8),))
    assert origin[10] == Copy(2, (("r", 0), ("q", 0)))
    assert origin[73] == Copy(3, (("r", 3), ("q", 7)))
    # the written-out kernel makes exactly the accesses of the original
    assert counts(analyze(written)) == counts(analyze(kernel))


def test_a_copys_branch_on_the_written_out_variable_keeps_the_branch_it_takes():
    """`if (i == 0) load B` in a loop over i written out (cudaTensorCoreGemm loads its B
    fragments so): the copy i = 0 keeps the load, the others have none (the compiler's
    copies neither), and the counts are the original's."""
    k = KernelBuilder("branchy")
    a, b = k.shared("a", f32, 64), k.shared("b", f32, 64)
    out = k.global_array("out", f32, 64, intent="out")
    acc = k.let("acc", 0.0)
    with k.range("i", 0, 3, unroll=True) as i:
        with k.if_(i == 0):
            k.assign(acc, acc + b[threadIdx.x])
        with k.else_():
            k.assign(acc, acc + a[(threadIdx.x + i) % 64])
    out[threadIdx.x] = acc
    k.launch(1, 64)
    kernel = k.build()
    written, origin = unroll(kernel)
    assert sorted((origin[s.site].site, origin[s.site].iteration)
                  for s in written.sites()) == [(0, (("i", 0),)), (1, (("i", 1),)),
                                                (1, (("i", 2),))]
    assert counts(analyze(written)) == counts(analyze(kernel))


# ------------------------------------------------------------------ compiled (NVRTC, no GPU)

@pytest.fixture(autouse=False)
def nvrtc():
    require_nvrtc()


def test_unrolled_row_times_column_is_counted_four_k_at_a_time(nvrtc):
    """matrixMul, n = 320: 400 blocks of 8 warps, 20 tiles. The SASS of one tile: 2 STS,
    As[ty][k..k+3] as 4 LDS.128 (each warp reads two rows' 16 bytes, broadcast: two
    half-warps, 1 wavefront each), Bs[k][tx] as 16 LDS (1 wavefront). Loads: 400*8*20*(4+16)
    = 1,280,000 requests, 400*8*20*(4*2+16) = 1,536,000 wavefronts."""
    kernel = cc.matrix_mul()
    assert counts(analyze(kernel)) == (2_048_000, 2_048_000, 128_000, 128_000)
    r = analyze_as_compiled(kernel)
    assert counts(r) == (1_280_000, 1_536_000, 128_000, 128_000)
    assert r.site(2).width == 16 and r.site(2).requests == 256_000
    assert r.compiled_widths == {2: 16}
    line = kernel.site(2).loc.line
    assert r.compiler == (f"compiler: site 2 (line {line}): iterations merged into LDS.128 4 "
                          "time(s): kk=0-3; kk=4-7; kk=8-11; kk=12-15",)


def test_a_loop_invariant_load_is_counted_once_per_entry(nvrtc):
    """invariant, n = 40: the LDS sits before the loop (on its line, outside the backward
    branch), behind the n >= 1 guard: 64 blocks x 4 warps = 256 requests, not 256 x 40;
    (tid + 1) % 128 is 32 consecutive words per warp: 1 wavefront each."""
    kernel = cc.invariant()
    assert counts(analyze(kernel))[:2] == (10_240, 10_240)
    assert counts(analyze_as_compiled(kernel)) == (256, 256, 256, 256)
    # a loop that never runs issues no hoisted load
    assert counts(analyze_as_compiled(kernel, {"n": 0})) == (0, 0, 256, 256)


def test_a_predicated_swap_merges_pairs_and_counts_warps_with_a_lane_on(nvrtc):
    """swap: t[2i], t[2i+1] load as one LDS.64 (256 contiguous bytes: 2 wavefronts), the two
    stores as one `@P0 STS.64` on the second store's line, counted at t[2i]. Blocks 0-31 are
    already ordered: their 128 warps have every lane predicated off, which the hardware does
    not count; blocks 32-63 (128 warps) swap somewhere. Loads 256 + 2 x 256 LDS = 768
    requests, 512 + 512 wavefronts; stores 2 x 256 STS + 128 STS.64 = 640, 512 + 2 x 128."""
    kernel = cc.swap()
    arrays = cc.swap_inputs(resolve_launch(kernel))
    stated = analyze(kernel, arrays=arrays)
    assert counts(stated) == (1024, 1536, 768, 1020)
    r = analyze_as_compiled(kernel, arrays=arrays)
    assert counts(r) == (768, 1024, 640, 768)
    assert r.compiled_widths == {2: 8, 3: 0, 4: 8, 5: 0}
    assert f"compiler: sites 4, 5 (line {kernel.site(4).loc.line}) merged into one STS.64, " \
        "counted at site 4's address" in r.compiler


def test_nested_unrolled_loops_merge_and_reuse(nvrtc):
    """nested: 64 warps. w[r][q..q+3] (one address for the warp) as 8 LDS.128 per warp,
    merged: 2 wavefronts each; x[tid][q] (stride 9 words, no conflict) loaded for r = 0 only:
    8 LDS per warp. Loads 64 x 16 = 1024 requests, 64 x (8 x 2 + 8) = 1536 wavefronts."""
    r = analyze_as_compiled(cc.nested())
    assert counts(r) == (1024, 1536, 584, 584)
    assert any("no instruction of its own in 24 of its 32 iterations (r=1-3, q=0-7)" in n
               for n in r.compiler)


def test_if_else_stores_joined_into_one_are_counted_once(nvrtc):
    """guarded_tile, n = 80: tiles t = 0, 1, 2 of 32 warps; in t = 2 every warp has lanes
    in both branches. As written: 96 + 32 store requests; compiled: one STS of a selected
    value after the if, 96 requests."""
    kernel = cc.guarded_tile()
    assert counts(analyze(kernel))[2:] == (128, 128)
    r = analyze_as_compiled(kernel)
    assert counts(r) == (96, 3072, 96, 96)
    assert r.compiled_widths == {1: 0}
    assert any("joined into one STS after it" in n for n in r.compiler)


def test_kernels_compiled_as_stated_keep_their_counts(nvrtc):
    from examples.transpose import KERNELS
    kernel = KERNELS["padded"]()
    r = analyze_as_compiled(kernel)
    assert counts(r) == counts(analyze(kernel)) and r.compiled_widths == {}
    assert r.compiler == ("compiler: every site compiled as stated; the counts are unchanged",)


def test_merges_are_checked_against_the_trace(nvrtc):
    """Two scalar loads the compiler cannot merge (a row of 9 floats: t[9i] and t[9i+1] are
    not 8-byte aligned for odd i) stay two LDS; nothing is merged."""
    k = KernelBuilder("odd_rows")
    out = k.global_array("out", f32, 256, intent="out")
    t = k.shared("t", f32, (256, 9))
    t[threadIdx.x, 0] = 1.0
    t[threadIdx.x, 1] = 2.0
    k.syncthreads()
    out[threadIdx.x] = t[threadIdx.x, 0] + t[threadIdx.x, 1]
    k.launch(1, 256)
    kernel = k.build()
    r = analyze_as_compiled(kernel)
    assert counts(r) == counts(analyze(kernel))
    assert np.array_equal([s.width for s in r.sites], [4, 4, 4, 4])


def test_cubins_are_cached_by_source_and_the_cache_can_be_turned_off(nvrtc, tmp_path,
                                                                     monkeypatch):
    from gpu_backend.compile import nvrtc_cubin
    source = 'extern "C" __global__ void k(int* p) { p[threadIdx.x] = 1; }\n'
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path))
    import cuda.core
    first = nvrtc_cubin(source, "sm_90", "k.cu")
    files = list((tmp_path / "cubin").glob("*.cubin"))
    # the entry is the cubin under a sealed digest line (#51: an edited entry is not trusted)
    assert len(files) == 1 and files[0].read_bytes().partition(b"\n")[2] == first
    program = cuda.core.Program

    def no_nvrtc(*a, **k):
        raise AssertionError("NVRTC was asked")
    monkeypatch.setattr(cuda.core, "Program", no_nvrtc)   # the cache answers the second time
    assert nvrtc_cubin(source, "sm_90", "k.cu") == first
    monkeypatch.setattr(cuda.core, "Program", program)
    assert nvrtc_cubin(source, "sm_80", "k.cu") != first  # another key
    files[0].write_bytes(files[0].read_bytes().replace(first[:64], b"x" * 64))
    assert nvrtc_cubin(source, "sm_90", "k.cu") == first  # an edited entry: compiled again
    monkeypatch.setenv("SMEMSIM_CACHE", "")
    assert nvrtc_cubin(source, "sm_90", "k.cu") == first


def test_an_unrolled_loop_of_runtime_trip_count_is_reported_not_recounted(nvrtc):
    """`#pragma unroll` over j < n: nvcc unrolls by four with a remainder loop (LDS.128 and
    LDS on the line); which iterations each covers depends on n, so the site keeps the IR's
    counts and the note says why."""
    k = KernelBuilder("partial")
    n = k.param("n")
    out = k.global_array("out", f32, 256, intent="out")
    t = k.shared("t", f32, (32, 64))
    t[threadIdx.x % 32, threadIdx.x // 32] = 1.0
    k.syncthreads()
    acc = k.let("acc", 0.0, f32)
    with k.range("j", 0, n, unroll=True) as j:
        acc.set(acc + t[threadIdx.x % 32, j])
    out[threadIdx.x] = acc
    k.launch(1, 256)
    k.defaults(n=64)
    kernel = k.build()
    assert not unrollable(kernel)
    r = analyze_as_compiled(kernel)
    assert counts(r) == counts(analyze(kernel))
    assert r.compiled_widths == {}
    assert r.compiler == (f"compiler: site 1 (line {kernel.site(1).loc.line}): LDS.128, LDS, "
                          "inside a loop it unrolls whose trip count is not a constant: "
                          "reported, not re-counted",)


def test_a_loop_whose_bound_reads_a_written_out_loop_is_written_out_too():
    """`for i in 0..3: for j in 0..i` (lud's triangle): with i written out, each j loop has a
    constant trip count in its copy and is written out as well: 0 + 1 + 2 + 3 copies."""
    k = KernelBuilder("triangle")
    t = k.shared("t", f32, 64)
    with k.range("i", 0, 4, unroll=True) as i:
        with k.range("j", 0, i, unroll=True) as j:
            t[threadIdx.x % 32 + j] = i * 1.0
    k.launch(1, 32)
    kernel = k.build()
    written, origin = unroll(kernel)
    assert sorted(c.iteration for c in origin.values()) == [
        (("i", 1), ("j", 0)), (("i", 2), ("j", 0)), (("i", 2), ("j", 1)),
        (("i", 3), ("j", 0)), (("i", 3), ("j", 1)), (("i", 3), ("j", 2))]

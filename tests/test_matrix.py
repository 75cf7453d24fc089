"""ldmatrix / stmatrix: fragment semantics, warp-collective faults, costs and compilation."""
import numpy as np
import pytest

from examples import ldmatrix_tile
from kernels_ir import (
    KernelBuilder, KernelError, KernelRuntimeError, cast, f32, i32, resolve_launch, run,
    threadIdx, u16,
)
from smemsim import analyze
from tests.conftest import require_nvrtc
from tests.test_analysis import assert_matches_reference

SOURCE = np.arange(1024, dtype=np.uint16) * 37 % 65521


def _reference_fragment(tile: np.ndarray, m: int, trans: bool) -> np.ndarray:
    """(32 lanes, 2m) per PTX: lane 4r+c holds elements 2c, 2c+1 of row r of each matrix
    (with .trans, element r of rows 2c and 2c+1). Matrix j is the 8x8 block at rows
    8 (j % 2), columns 8 (j // 2) of the 16x16 corner, as the kernel below addresses it."""
    out = np.zeros((32, 2 * m), np.uint16)
    for lane in range(32):
        for j in range(m):
            block = tile[8 * (j % 2):8 * (j % 2) + 8, 8 * (j // 2):8 * (j // 2) + 8]
            for k in range(2):
                r, c = lane // 4, 2 * (lane % 4) + k
                out[lane, 2 * j + k] = block[c, r] if trans else block[r, c]
    return out


def _ldmatrix_kernel(m: int, trans: bool):
    k = KernelBuilder(f"ldm_x{m}{'_t' if trans else ''}")
    src = k.global_array("src", u16, 1024)
    out = k.global_array("out", u16, 64 * m, intent="out")
    s = k.shared("s", u16, (32, 32))
    with k.range("e", threadIdx.x, 1024, 32) as e:
        s[e // 32, e % 32] = src[e]
    k.syncthreads()
    lane = cast(threadIdx.x, i32)
    frag = k.ldmatrix(s, (lane % 8 + 8 * (lane // 8 % 2), 8 * (lane // 16)), matrices=m,
                      trans=trans)
    for e in range(2 * m):
        out[lane * 2 * m + e] = frag[e]
    k.launch(1, 32)
    return k.build()


FORMS = [(m, t) for m in (1, 2, 4) for t in (False, True)]


@pytest.mark.parametrize("m, trans", FORMS, ids=[f"x{m}{'.trans' if t else ''}"
                                                 for m, t in FORMS])
def test_ldmatrix_fragments_follow_ptx(m, trans):
    got = run(_ldmatrix_kernel(m, trans), arrays={"src": SOURCE})["out"].reshape(32, 2 * m)
    assert np.array_equal(got, _reference_fragment(SOURCE.reshape(32, 32), m, trans))


@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix_inverts_ldmatrix(trans):
    k = KernelBuilder("st_rt")
    src = k.global_array("src", u16, 1024)
    out = k.global_array("out", u16, 256, intent="out")
    s = k.shared("s", u16, (32, 32))
    d = k.shared("d", u16, (16, 16))
    with k.range("e", threadIdx.x, 1024, 32) as e:
        s[e // 32, e % 32] = src[e]
    k.syncthreads()
    lane = cast(threadIdx.x, i32)
    row, col = lane % 8 + 8 * (lane // 8 % 2), 8 * (lane // 16)
    frag = k.ldmatrix(s, (row, col), matrices=4, trans=trans)
    k.stmatrix(d, (row, col), frag, matrices=4, trans=trans)
    k.syncthreads()
    with k.range("e", threadIdx.x, 256, 32) as e:
        out[e] = d[e // 16, e % 16]
    k.launch(1, 32)
    got = run(k.build(), arrays={"src": SOURCE})["out"].reshape(16, 16)
    assert np.array_equal(got, SOURCE.reshape(32, 32)[:16, :16])


def test_a_partial_warp_is_a_located_fault():
    k = KernelBuilder("half_warp")
    s = k.shared("s", u16, 512)
    with k.range("e", threadIdx.x, 512, 32) as e:
        s[e] = 0
    k.syncthreads()
    with k.if_(threadIdx.x < 16):
        k.ldmatrix(s, cast(threadIdx.x, i32) * 8, matrices=2)
    k.launch(1, 32)
    with pytest.raises(KernelRuntimeError, match=r"ldmatrix is warp-collective .*all 32 "
                                                 r"lanes of a warp must execute it, 16 did"):
        run(k.build())


def test_builder_errors():
    k = KernelBuilder("bad")
    words = k.shared("w", f32, 256)
    halves = k.shared("h", u16, (8, 12))
    with pytest.raises(KernelError, match="16-bit integer elements of shared memory; 'w' is f32"):
        k.ldmatrix(words, threadIdx.x)
    with pytest.raises(KernelError, match="matrices must be 1, 2 or 4"):
        k.ldmatrix(k.shared("x", u16, 256), threadIdx.x, matrices=3)
    with pytest.raises(KernelError, match="cannot stay aligned in rows of 12 elements"):
        k.ldmatrix(halves, (threadIdx.x, 0))
    with pytest.raises(KernelError, match="stmatrix.x2 stores 4 elements per lane, got 3"):
        k.stmatrix(k.shared("y", u16, 256), threadIdx.x, [1, 2, 3], matrices=2)


def test_the_swizzle_removes_the_eight_way_conflict():
    rowmajor = analyze(ldmatrix_tile.tile_load(False), {"tiles": 4})
    swizzled = analyze(ldmatrix_tile.tile_load(True), {"tiles": 4})
    ld = lambda r: next(s for s in r.sites if s.op == "ldmatrix")
    # 4 tiles x 4 warps x 4 column steps; 8 rows 128 bytes apart share 4 banks: 8 per matrix
    assert (ld(rowmajor).requests, ld(rowmajor).wavefronts) == (64, 64 * 32)
    assert (ld(swizzled).wavefronts, ld(swizzled).excess) == (64 * 4, 0)
    assert rowmajor.classes["ldsm"].requests == 64 and "ld" not in rowmajor.classes


@pytest.mark.slow
@pytest.mark.parametrize("key", ["rowmajor", "roundtrip"])
def test_tile_kernels_match_brute_force(key):
    assert_matches_reference(ldmatrix_tile.KERNELS[key](), {"tiles": 2})


@pytest.mark.parametrize("m, trans", FORMS, ids=[f"x{m}{'.trans' if t else ''}"
                                                 for m, t in FORMS])
def test_every_form_compiles_to_ldsm(m, trans):
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    c = compile_kernel(_ldmatrix_kernel(m, trans), "sm_90")
    assert c.widths_ok, [s.describe() for s in c.sites]
    (site,) = [s for s in c.sites if s.op == "ldmatrix"]
    suffix = {1: "", 2: ".2", 4: ".4"}[m]
    assert site.found[0].opcode == f"LDSM.16.{'MT88' if trans else 'M88'}{suffix}"


@pytest.mark.gpu
@pytest.mark.parametrize("key", ["rowmajor", "swizzled", "roundtrip"])
def test_tile_kernels_on_the_gpu(key):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    kernel = ldmatrix_tile.KERNELS[key]()
    params = {"tiles": 8}
    run_ = run_on_gpu(kernel, params, ldmatrix_tile.packed(resolve_launch(kernel, params)))
    assert run_.matches, run_.mismatches


@pytest.mark.gpu
@pytest.mark.parametrize("m, trans", FORMS, ids=[f"x{m}{'.trans' if t else ''}"
                                                 for m, t in FORMS])
def test_fragments_on_the_gpu_follow_ptx(m, trans):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    run_ = run_on_gpu(_ldmatrix_kernel(m, trans), arrays={"src": SOURCE})
    assert run_.matches, run_.mismatches

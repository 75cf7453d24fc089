"""cp.async: copies land at the issuing thread's wait_group; anything that touches their
bytes earlier is a located fault; the double-buffered GEMM; compilation to LDGSTS."""
import numpy as np
import pytest

from examples import cp_async_gemm
from kernels_ir import KernelBuilder, KernelError, KernelRuntimeError, f32, run, threadIdx, u8
from smemsim import analyze
from smemsim.launch.hazards import check
from tests.conftest import require_nvrtc


def test_the_double_buffered_gemm_multiplies():
    kernel = cp_async_gemm.gemm(pad=4)
    params = {"M": 48, "N": 32, "K": 64}
    rng = np.random.default_rng(3)
    a = rng.standard_normal(48 * 64).astype(np.float32)
    b = rng.standard_normal(64 * 32).astype(np.float32)
    c = run(kernel, params, {"A": a, "B": b})["C"].reshape(48, 32)
    assert np.allclose(c, a.reshape(48, 64) @ b.reshape(64, 32), rtol=1e-4, atol=1e-4)
    assert check(kernel, params, arrays={"A": a, "B": b}).clean
    # 3 x 2 blocks, 4 tiles: 64 copying threads (2 warps) per array per tile. A quarter-warp
    # copies two tile rows: 128 contiguous bytes unpadded (4 wavefronts per request); padded
    # by 4 floats the rows are 80 bytes apart and share banks 0-3 (8 per request)
    for pad, per_request in ((0, 4), (4, 8)):
        copies = analyze(cp_async_gemm.gemm(pad), params).classes["ldgsts"]
        assert copies.requests == 6 * 4 * 2 * 2
        assert (copies.wavefronts, copies.ideal) == (per_request * copies.requests,
                                                     4 * copies.requests)


def _two_groups(read_newer: bool, wait_for: int):
    """Group 0 fills s[0:32], group 1 s[32:64]; then wait_group(wait_for) and a read."""
    k = KernelBuilder("groups")
    g = k.global_array("g", f32, 64)
    out = k.global_array("out", f32, 32, intent="out")
    s = k.shared("s", f32, 64)
    k.cp_async(s, threadIdx.x, g, threadIdx.x)
    k.cp_async_commit()
    k.cp_async(s, threadIdx.x + 32, g, threadIdx.x + 32)
    k.cp_async_commit()
    k.cp_async_wait(wait_for)
    out[threadIdx.x] = s[threadIdx.x + (32 if read_newer else 0)]  # each thread its own
    k.launch(1, 32)
    return k.build()


def test_wait_group_leaves_the_newest_groups_in_flight():
    g = np.arange(64, dtype=np.float32)
    assert run(_two_groups(False, 1), arrays={"g": g})["out"].tolist() == list(range(32))
    assert run(_two_groups(True, 0), arrays={"g": g})["out"].tolist() == list(range(32, 64))
    with pytest.raises(KernelRuntimeError, match=r"line .*test_cp_async.py:\d+.*reads 's' "
                                                 r"\(byte 128 .*still in flight"):
        run(_two_groups(True, 1), arrays={"g": g})


def test_a_missing_wait_is_reported_by_check():
    k = KernelBuilder("no_wait")
    g = k.global_array("g", f32, 128)
    out = k.global_array("out", f32, 32, intent="out")
    s = k.shared("s", f32, 128)
    k.cp_async(s, threadIdx.x * 4, g, threadIdx.x * 4, width=4)
    k.cp_async_commit()
    k.syncthreads()
    out[threadIdx.x] = s[(threadIdx.x * 4 + 4) % 128]
    k.launch(1, 32)
    (fault,) = check(k.build()).faults
    assert fault.kind == "copy_in_flight" and "cp.async.wait_group must come first" in \
        fault.message


def test_writing_bytes_a_copy_is_filling_is_a_fault():
    k = KernelBuilder("overwrite")
    g = k.global_array("g", f32, 32)
    s = k.shared("s", f32, 32)
    k.cp_async(s, threadIdx.x, g, threadIdx.x)
    s[threadIdx.x] = 0.0
    k.launch(1, 32)
    with pytest.raises(KernelRuntimeError, match="writes 's' .* still in flight"):
        run(k.build())


def test_builder_errors():
    k = KernelBuilder("bad")
    g = k.global_array("g", f32, 64)
    b = k.global_array("b", u8, 64)
    s = k.shared("s", f32, 64)
    with pytest.raises(KernelError, match=r"4, 8 or 16 bytes \(.cg: 16\), got 3 x f32"):
        k.cp_async(s, 0, g, 0, width=3)
    with pytest.raises(KernelError, match=r"got 2 x f32"):
        k.cp_async(s, 0, g, 0, width=2, bypass=True)
    with pytest.raises(KernelError, match="'b' is u8, 's' is f32"):
        k.cp_async(s, 0, b, 0)
    with pytest.raises(KernelError, match="from a global array to a shared array"):
        k.cp_async(g, 0, s, 0)
    with pytest.raises(KernelError, match="wait_group takes 0..8"):
        k.cp_async_wait(9)


@pytest.mark.parametrize("width, bypass, opcode", [(1, False, "LDGSTS.E"),
                                                   (2, False, "LDGSTS.E.64"),
                                                   (4, False, "LDGSTS.E.128"),
                                                   (4, True, "LDGSTS.E.BYPASS.128")])
def test_each_copy_compiles_to_ldgsts(width, bypass, opcode):
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    k = KernelBuilder("copy")
    g = k.global_array("g", f32, 4096)
    out = k.global_array("out", f32, 4096, intent="out")
    s = k.shared("s", f32, 1024)
    k.cp_async(s, threadIdx.x * width, g, threadIdx.x * width, width=width, bypass=bypass)
    k.cp_async_commit()
    k.cp_async_wait(0)
    out[threadIdx.x] = s[threadIdx.x * width]
    k.launch(1, 32)
    c = compile_kernel(k.build(), "sm_90")
    site = c.sites[0]
    assert site.ok, site.describe()
    assert site.found[0].opcode.startswith(opcode)


def test_never_executing_padding_is_not_a_shared_access():
    from gpu_backend.compile import parse_sass
    text = ('        //## File "k.cu", line 9\n'
            '        /*01d0*/              @!PT LDS RZ, [RZ] ;\n'
            '        /*0200*/                   LDGSTS.E.128 [R7], desc[UR8][R2.64] ;\n')
    assert [(a.opcode, a.kind, a.width) for a in parse_sass(text)] == [
        ("LDGSTS.E.128", "cp_async", 16)]


@pytest.mark.gpu
@pytest.mark.parametrize("pad", [0, 4])
def test_gemm_on_the_gpu(pad):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    run_ = run_on_gpu(cp_async_gemm.gemm(pad), {"M": 128, "N": 96, "K": 160})
    assert run_.matches, run_.mismatches

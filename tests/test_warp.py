"""Warp-level operations (shuffles, __syncwarp), volatile arrays, loops with any update and
math functions: semantics against numpy, CUDA's rules as located faults, code generation."""
import numpy as np
import pytest

from examples import softmax
from kernels_ir import (
    ACTIVE_MASK, KernelBuilder, KernelError, KernelRuntimeError, call, cast, f32,
    format_kernel, i32, run, threadIdx, u32,
)
from gpu_backend.codegen import generate
from smemsim.launch.hazards import check
from tests.conftest import require_nvrtc


def _shuffle_kernel(mode, arg, width):
    k = KernelBuilder(f"shfl_{mode}")
    out = k.global_array("out", i32, 64, intent="out")
    v = cast(threadIdx.x, i32) * 10
    out[threadIdx.x] = k.shfl(v, arg(cast(threadIdx.x, i32)), mode, width=width)
    k.launch(1, 64)
    return k.build()


def _shuffle_reference(mode, arg, width):
    """CUDA's definitions, lane by lane (values are 10 x thread id)."""
    out = []
    for t in range(64):
        lane, warp = t % 32, t // 32
        seg = lane - lane % width
        a = arg(t)
        if mode == "idx":
            src = seg + a % width
        elif mode == "up":
            src = lane - a if lane - seg - a >= 0 else lane
        elif mode == "down":
            src = lane + a if lane - seg + a < width else lane
        else:
            src = lane ^ a if (lane ^ a) < seg + width else lane
        out.append(10 * (32 * warp + src))
    return out


CASES = [("idx", lambda t: 3, 32), ("idx", lambda t: t * 7 + 1, 8), ("up", lambda t: 1, 32),
         ("up", lambda t: 2, 4), ("down", lambda t: 4, 16), ("down", lambda t: 1, 32),
         ("xor", lambda t: 1, 32), ("xor", lambda t: 16, 32), ("xor", lambda t: 4, 4)]


@pytest.mark.parametrize("mode, arg, width", CASES,
                         ids=[f"{m}-w{w}-{i}" for i, (m, _, w) in enumerate(CASES)])
def test_shuffles_follow_cuda(mode, arg, width):
    got = run(_shuffle_kernel(mode, arg, width))["out"]
    assert got.tolist() == _shuffle_reference(mode, arg, width)


def test_shuffle_rules_are_located_faults():
    def kernel(guard, mask=0xFFFFFFFF):
        k = KernelBuilder("shfl_rules")
        out = k.global_array("out", u32, 32, intent="out")
        with k.if_(guard):
            out[threadIdx.x] = k.shfl(threadIdx.x, 0, mask=mask)
        k.launch(1, 32)
        return k.build()
    with pytest.raises(KernelRuntimeError, match=r"lane 16 is named in the mask 0xffffffff "
                                                 r"but does not execute"):
        run(kernel(threadIdx.x < 16))
    with pytest.raises(KernelRuntimeError, match=r"lane 16 executes a warp operation whose "
                                                 r"mask 0x0000ffff does not name it"):
        run(kernel(threadIdx.x < 32, mask=0xFFFF))
    assert run(kernel(threadIdx.x < 16, mask=0xFFFF))["out"][:16].tolist() == [0] * 16


def _runtime_width_kernel(width_default=8, mask_shift=None):
    """`__shfl_up_sync(mask, v, 1, w)` with the width a kernel parameter `w` (as cuda-samples'
    shfl_scan passes it); `mask_shift`: lanes below `m` execute under the run-time mask
    `(1 << m) - 1`, else every lane under the full mask."""
    k = KernelBuilder("shfl_width")
    w = k.param("w")
    out = k.global_array("out", i32, 64, intent="out")
    v = cast(threadIdx.x, i32) * 10
    if mask_shift is None:
        out[threadIdx.x] = k.shfl(v, 1, "up", width=w)
    else:
        m = k.param("m")
        with k.if_(cast(threadIdx.x, i32) % 32 < m):
            out[threadIdx.x] = k.shfl(v, 1, "up", width=w, mask=(1 << m) - 1)
    k.launch(1, 64)
    k.defaults(w=width_default, **({} if mask_shift is None else {"m": mask_shift}))
    return k.build()


@pytest.mark.parametrize("width", [1, 4, 8, 32])
def test_a_shuffle_width_known_at_run_time(width):
    """The width from a parameter: the same segments as the constant width."""
    got = run(_runtime_width_kernel(), {"w": width})["out"]
    assert got.tolist() == _shuffle_reference("up", lambda t: 1, width)


def test_a_run_time_mask_and_width_follow_cudas_rules():
    t = np.arange(64)
    got = run(_runtime_width_kernel(mask_shift=8), {"w": 8, "m": 8})["out"]
    want = np.where(t % 8 == 0, 10 * t, 10 * (t - 1))  # a segment's first lane: its own
    assert got[t % 32 < 8].tolist() == want[t % 32 < 8].tolist()
    with pytest.raises(KernelRuntimeError, match=r"a shuffle width must be a power of two up "
                                                 r"to 32, this lane's is 12"):
        run(_runtime_width_kernel(), {"w": 12})
    with pytest.raises(KernelRuntimeError, match=r"lane 8 is named in the mask 0x000001ff but "
                                                 r"does not execute"):
        k = KernelBuilder("partial_warp")
        m = k.param("m")
        out = k.global_array("out", i32, 32, intent="out")
        with k.if_(cast(threadIdx.x, i32) < 8):
            out[threadIdx.x] = k.shfl(cast(threadIdx.x, i32), 0, mask=(1 << m) - 1)
        k.launch(1, 32)
        k.defaults(m=9)
        run(k.build())
    k = KernelBuilder("two_masks")
    out = k.global_array("out", i32, 32, intent="out")
    out[threadIdx.x] = k.shfl(cast(threadIdx.x, i32), 0,
                              mask=cast(0xFFFFFFFF, u32) - cast(threadIdx.x // 16, u32) * 0)
    k.launch(1, 32)
    assert run(k.build())["out"].tolist() == [0] * 32
    k = KernelBuilder("mixed_masks")
    out = k.global_array("out", i32, 32, intent="out")
    out[threadIdx.x] = k.shfl(cast(threadIdx.x, i32), 0, mask=cast(0xFFFFFFFF, u32) -
                              cast(threadIdx.x // 16, u32) * 0xFFFF)  # each lane in its own
    k.launch(1, 32)
    with pytest.raises(KernelRuntimeError, match=r"lanes of one warp execute a warp operation "
                                                 r"with different masks \(0xffffffff and "
                                                 r"0xffff0000"):
        run(k.build())


def test_a_run_time_width_is_written_as_its_expression():
    kernel = _runtime_width_kernel(mask_shift=8)
    assert "__shfl_up_sync((unsigned int)((1 << m) - 1), (int)threadIdx.x * 10, 1, w)" in \
        generate(kernel).source
    assert "shfl_up(" in format_kernel(kernel) and ", w)" in format_kernel(kernel)


def _active_mask_kernel():
    """A shuffle and a __syncwarp over `__activemask()` (ACTIVE_MASK) in divergent code:
    lanes 0-19 of each warp swap with their xor-1 neighbour, lanes 20-31 add 1000."""
    k = KernelBuilder("active_mask")
    out = k.global_array("out", i32, 64, intent="out")
    v = cast(threadIdx.x, i32) * 10
    lane = threadIdx.x % 32
    with k.if_(lane < 20):
        k.syncwarp(ACTIVE_MASK)
        out[threadIdx.x] = k.shfl(v, 1, "xor", mask=ACTIVE_MASK)
    with k.else_():
        out[threadIdx.x] = v + 1000
    k.launch(1, 64)
    return k.build()


def test_the_active_mask_names_the_lanes_that_execute():
    t = np.arange(64)
    want = np.where(t % 32 < 20, 10 * (t ^ 1), 10 * t + 1000)
    assert run(_active_mask_kernel())["out"].tolist() == want.tolist()
    source = generate(_active_mask_kernel()).source
    assert "__shfl_xor_sync(__activemask()," in source and "__syncwarp(__activemask());" in \
        source
    assert "shfl_xor(__activemask()" in format_kernel(_active_mask_kernel())


def _warp_sum(syncwarp: bool):
    """The classic warp-synchronous tail of a reduction, on a volatile array."""
    k = KernelBuilder("warp_sum" + ("" if syncwarp else "_racy"))
    src = k.global_array("src", f32, 64)
    out = k.global_array("out", f32, 2, intent="out")
    s = k.shared("s", f32, 64, volatile=True)
    s[threadIdx.x] = src[threadIdx.x]
    k.syncwarp()
    with k.loop("off", 16, lambda o: o > 0, update=lambda o: o >> 1) as off:
        with k.if_(cast(threadIdx.x, i32) % 32 < off):
            s[threadIdx.x] = s[threadIdx.x] + s[cast(threadIdx.x, i32) + off]
        if syncwarp:
            k.syncwarp()
    with k.if_(threadIdx.x % 32 == 0):
        out[threadIdx.x // 32] = s[threadIdx.x]
    k.launch(1, 64)
    return k.build()


def test_syncwarp_orders_a_warp_and_its_absence_is_a_race():
    x = np.arange(64, dtype=np.float32)
    assert run(_warp_sum(True), arrays={"src": x})["out"].tolist() == [496.0, 1520.0]
    assert check(_warp_sum(True), arrays={"src": x}).clean
    races = check(_warp_sum(False), arrays={"src": x}).races
    assert races and races[0].kind == "read-write"


def test_volatile_arrays_keep_their_qualifier_and_refuse_vectors():
    text = generate(_warp_sum(True)).source
    assert "volatile __shared__ __align__(16) float s[64];" in text
    assert "__syncwarp(0xffffffffu);" in text and "off = off >> 1" in text
    assert "shared f32 s[64], align 16, volatile" in format_kernel(_warp_sum(True))
    k = KernelBuilder("vec")
    s = k.shared("s", f32, 64, volatile=True)
    with pytest.raises(KernelError, match="'s' is volatile: CUDA's vector types"):
        s.load(0, width=4)


def test_a_loop_with_any_update():
    k = KernelBuilder("halving")
    out = k.global_array("out", i32, 8, intent="out")
    n = k.let("n", 0)
    with k.loop("s", 100, lambda s: s > 0, update=lambda s: s >> 1) as s:
        n.set(n + s)
    out[threadIdx.x] = n
    k.launch(1, 8)
    assert run(k.build())["out"].tolist() == [100 + 50 + 25 + 12 + 6 + 3 + 1] * 8


def test_math_functions():
    k = KernelBuilder("math")
    out = k.global_array("out", f32, 32, intent="out")
    x = cast(threadIdx.x, f32) * 0.25 + 0.5
    out[threadIdx.x] = call("exp", x) * call("rsqrt", x) + call("fma", x, x, 1.0) + \
        call("pow", x, 2.0) + call("log2", x)
    k.launch(1, 32)
    kernel = k.build()
    assert "expf(" in generate(kernel).source and "fmaf(" in generate(kernel).source
    x = np.arange(32, dtype=np.float32) * 0.25 + 0.5
    ref = np.exp(x) / np.sqrt(x) + (x * x + 1) + x ** 2 + np.log2(x)
    assert np.allclose(run(kernel)["out"], ref, rtol=1e-6)
    with pytest.raises(KernelError, match="no math function 'erfcx'"):
        call("erfcx", 1.0)
    with pytest.raises(KernelError, match="fma takes 3 argument"):
        call("fma", 1.0, 2.0)


def test_softmax_matches_numpy():
    kernel = softmax.softmax()
    params = {"rows": 16, "cols": 1000}
    x = np.random.default_rng(1).standard_normal(16 * 1000).astype(np.float32) * 4
    y = run(kernel, params, {"x": x})["y"].reshape(16, 1000)
    e = np.exp(x.reshape(16, 1000) - x.reshape(16, 1000).max(1, keepdims=True))
    assert np.allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-8)
    assert check(kernel, params, arrays={"x": x}).clean


def test_warp_kernels_compile():
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    for kernel in (softmax.softmax(), _warp_sum(True), _shuffle_kernel("xor", lambda t: 1, 32),
                   _early_exit(), _runtime_width_kernel(mask_shift=8)):
        c = compile_kernel(kernel, "sm_90")
        assert c.widths_ok, [s.describe() for s in c.sites if not s.ok]


@pytest.mark.gpu
@pytest.mark.parametrize("make", [
    lambda: softmax.softmax(), lambda: _warp_sum(True), _active_mask_kernel,
    _runtime_width_kernel, lambda: _runtime_width_kernel(4, mask_shift=8),
    *[(lambda m=m, a=a, w=w: _shuffle_kernel(m, a, w)) for m, a, w in CASES]],
    ids=["softmax", "warp_sum", "active_mask", "runtime_width", "runtime_mask"] +
    [f"shfl-{m}-w{w}-{i}" for i, (m, _, w) in enumerate(CASES)])
def test_warp_kernels_on_the_gpu(make):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    kernel = make()
    params = {"rows": 64, "cols": 3000} if kernel.name == "softmax" else None
    run_ = run_on_gpu(kernel, params)
    assert run_.matches, run_.mismatches


def _early_exit(n_default=40):
    """`if (tid >= n) return;` then shared work and a barrier among the threads left."""
    k = KernelBuilder("early_exit")
    n = k.param("n")
    src = k.global_array("src", f32, 64)
    out = k.global_array("out", f32, 64, intent="out")
    s = k.shared("s", f32, 64)
    t = cast(threadIdx.x, i32)
    with k.if_(t >= n):
        k.return_()
    s[threadIdx.x] = src[threadIdx.x] * 2.0
    k.syncthreads()                      # waits only for the threads that did not return
    with k.loop("j", 0, lambda j: j < 4) as j:
        with k.if_(t == j + 100):
            k.return_()                  # never taken; still: the loop must not collapse
        out[threadIdx.x] = s[(t + j) % n]
    k.launch(1, 64)
    k.defaults(n=n_default)
    return k.build()


def test_early_return():
    from smemsim import analyze
    from smemsim.launch.slicing import slice_kernel
    from tests.test_analysis import assert_matches_reference
    x = np.arange(64, dtype=np.float32)
    got = run(_early_exit(), arrays={"src": x})["out"]
    assert got[:40].tolist() == [2.0 * ((t + 3) % 40) for t in range(40)]
    assert np.isnan(got[40:]).all()       # returned threads never wrote
    kernel = _early_exit()
    assert_matches_reference(kernel)
    r = analyze(kernel)
    assert r.site(0).requests == 2        # warp 0 (32 lanes) and warp 1 (8 lanes)
    loop = next(s for s in kernel.body if type(s).__name__ == "Loop")
    assert id(loop) not in slice_kernel(kernel).collapsible
    assert "return;" in generate(kernel).source
    assert check(kernel, arrays={"src": x}).clean


@pytest.mark.gpu
def test_early_return_on_the_gpu():
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    run_ = run_on_gpu(_early_exit())
    assert run_.matches, run_.mismatches


def test_two_tiles_of_one_warp_vote_each_over_its_own_lanes():
    """cooperative_groups' tile of 16 votes with the mask of its half (`0xffff << (lane &
    16)`, as nvcc builds `tile.any(p)`): both halves execute one vote.sync together, and
    each lane's ballot has its own half's bits only, as on the GPU."""
    k = KernelBuilder("tiles")
    ballot = k.global_array("ballot", u32, 32, intent="out")
    any_ = k.global_array("any_", i32, 32, intent="out")
    all_ = k.global_array("all_", i32, 32, intent="out")
    lane = cast(threadIdx.x, u32)
    mask = cast(0xFFFF, u32) << (lane & 16)
    yes = threadIdx.x == 3   # one lane of the first half
    ballot[threadIdx.x] = k.vote(yes, "ballot", mask=mask)
    any_[threadIdx.x] = k.vote(yes, "any", mask=mask)
    all_[threadIdx.x] = k.vote(threadIdx.x >= 16, "all", mask=mask)
    k.launch(1, 32)
    got = run(k.build())
    low = np.arange(32) < 16
    assert (got["ballot"] == np.where(low, 1 << 3, 0)).all()
    assert (got["any_"] == low).all() and (got["all_"] == ~low).all()

"""f16 and bf16: storage types whose loads widen to f32 exactly and whose stores round to
nearest even, in the interpreter, the analysis, codegen (cvt, no headers) and on the GPU."""
import numpy as np
import pytest

from kernels_ir import (
    KernelBuilder, KernelError, bf16, cast, f16, from_storage, run, threadIdx, to_storage,
    i32,
)
from smemsim import analyze
from smemsim.engine.arch import require_instructions
from tests.conftest import require_nvrtc
from tests.kernels import halves

# value, its f16 bits, its bf16 bits (round to nearest, ties to even)
ROUNDING = [
    (1.0, 0x3C00, 0x3F80),
    (1.0 + 2**-8, 0x3C04, 0x3F80),       # bf16: halfway between 1 and 1+2^-7: to even (1)
    (1.0 + 3 * 2**-8, 0x3C0C, 0x3F82),   # bf16: halfway, to even upwards
    (1.0 + 2**-11, 0x3C00, 0x3F80),      # f16: halfway between 1 and 1+2^-10: to even (1)
    (-0.1, 0xAE66, 0xBDCD),
    (70000.0, 0x7C00, 0x4789),           # past f16's 65504: infinity, as cvt.rn gives
    (float("inf"), 0x7C00, 0x7F80),
    (float("nan"), 0x7FFF, 0x7FFF),      # the canonical NaN cvt produces
]


@pytest.mark.parametrize("value, f16_bits, bf16_bits", ROUNDING)
def test_stores_round_to_nearest_even(value, f16_bits, bf16_bits):
    x = np.array([value], np.float32)
    assert int(to_storage(x, f16).view(np.uint16)[0]) == f16_bits
    assert int(to_storage(x, bf16)[0]) == bf16_bits
    if np.isfinite(value) and abs(value) < 65504:
        # loads widen exactly: the stored value comes back as the nearest f32 of it
        assert from_storage(to_storage(x, bf16), bf16)[0] == \
            np.float32(np.uint32(bf16_bits << 16).view(np.float32))


@pytest.mark.parametrize("key", list(halves.KERNELS))
def test_the_interpreter_widens_and_rounds_like_numpy(key):
    kernel = halves.KERNELS[key]()
    dtype = kernel.globals[0].dtype
    width = int(key.split("_x")[1])
    out = run(kernel, seed=4)
    assert out["src"].dtype == dtype.storage and out["dst"].dtype == dtype.storage
    tile = to_storage(from_storage(out["src"], dtype) * np.float32(3), dtype)
    n = halves.N
    expect = np.empty(n, np.float32)
    for t in range(n // width):
        i = t * width
        expect[i:i + width] = from_storage(tile[n - width - i:n - i], dtype) + np.float32(1)
    assert np.array_equal(out["dst"].view(np.uint16), to_storage(expect, dtype).view(np.uint16))


def test_sixteen_bit_vectors_cost_like_any_16_byte_access():
    r = analyze(halves.KERNELS["f16_x8"]())
    store, load = r.sites
    # 128 threads x 16 B: 4 warps, each 512 B = 4 wavefronts (quarter-warps), no conflict
    assert (store.width, store.requests, store.wavefronts, store.excess) == (16, 4, 16, 0)
    assert (load.width, load.requests, load.wavefronts) == (16, 4, 16)
    one = analyze(halves.KERNELS["bf16_x1"]()).sites[0]
    assert (one.width, one.requests, one.wavefronts) == (2, 32, 32)  # 64 B per warp


def _kernel(body):
    k = KernelBuilder("bad")
    h = k.shared("h", f16, (8, 16))
    body(k, h)


@pytest.mark.parametrize("body, message", [
    (lambda k, h: cast(threadIdx.x, f16), r"cannot cast to f16: it is a storage type"),
    (lambda k, h: k.param("scale", f16), r"parameter 'scale' cannot be f16"),
    (lambda k, h: k.local_array("acc", bf16, 4), r"local array 'acc' cannot be bf16"),
    (lambda k, h: k.let("x", 1.0, dtype=f16), r"local 'x' cannot be f16"),
    (lambda k, h: k.atomic(h, (0, 0), "add", 1.0), r"atomicAdd on 'h' \(f16\): the IR has no "
                                                  r"atomics on 16-bit floats"),
    (lambda k, h: k.ldmatrix(h, (threadIdx.x % 8, 0)), r"'h' is f16 array \(ldmatrix a u16 "
                                                       r"view of it"),
    (lambda k, h: h.__setitem__((0, 0), 70000.0), r"constant 70000.0 does not fit f16"),
    (lambda k, h: k.shared("w", i32, 64).load(threadIdx.x, width=8),
     r"access width must be 1, 2 or 4 elements \(8 for 16-bit ones: f16, bf16, u16, i16\), "
     r"got 8"),
])
def test_what_16_bit_floats_cannot_do_is_refused(body, message):
    with pytest.raises(KernelError, match=message):
        _kernel(body)


def test_bf16_stores_need_sm_80():
    kernel = halves.KERNELS["bf16_x2"]()
    with pytest.raises(KernelError, match=r"storing bf16 needs sm_80 or newer"):
        require_instructions(kernel, "sm_75")
    require_instructions(halves.KERNELS["f16_x2"](), "sm_75")  # cvt.rn.f16.f32: fine


@pytest.mark.parametrize("key", list(halves.KERNELS))
def test_the_compiler_keeps_every_width(key):
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    compiled = compile_kernel(halves.KERNELS[key](), "sm_90")
    width = {"1": "U16", "2": "", "4": "64", "8": "128"}[key.split("_x")[1]]
    suffix = f".{width}" if width else ""
    assert [[a.opcode for a in c.found] for c in compiled.sites] == \
        [[f"STS{suffix}"], [f"LDS{suffix}"]], key
    assert "cuda_fp16.h" not in compiled.generated.source


@pytest.mark.gpu
@pytest.mark.parametrize("key", list(halves.KERNELS))
def test_gpu_outputs_match_the_interpreter_bit_for_bit(key):
    from gpu_backend.device import gpu_unavailable, run_on_gpu
    reason = gpu_unavailable()
    if reason:
        pytest.skip(f"needs a GPU: {reason}")
    kernel = halves.KERNELS[key]()
    gpu = run_on_gpu(kernel, seed=4)
    assert gpu.matches, gpu.mismatches
    # beyond the tolerance compare: cvt.rn on the GPU and to_storage agree on every bit
    assert np.array_equal(gpu.outputs["dst"].view(np.uint16),
                          run(kernel, seed=4)["dst"].view(np.uint16))


def _rounding_kernel():
    """out = round_f16(3.3 x) + 10 round_bf16(x / 7): the roundings as values, where C
    writes `(float)(__half)(3.3f * x)` or `__float2bfloat16(x / 7.0f)`."""
    from kernels_ir import call, f32
    k = KernelBuilder("roundings")
    x = k.global_array("x", f32, 256)
    out = k.global_array("out", f32, 256, intent="out")
    i = threadIdx.x
    out[i] = call("round_f16", x[i] * 3.3) + 10.0 * call("round_bf16", x[i] / 7.0)
    k.launch(1, 256)
    return k.build()


@pytest.mark.parametrize("value, f16_bits, bf16_bits", ROUNDING)
def test_rounding_as_a_value_is_a_store_and_a_load(value, f16_bits, bf16_bits):
    """call("round_f16"/"round_bf16", x): the float a 16-bit store then load gives back."""
    from kernels_ir.semantics import math_call
    x = np.array([value], np.float32)
    for name, dtype in (("round_f16", f16), ("round_bf16", bf16)):
        got = math_call(name, [x])
        want = from_storage(to_storage(x, dtype), dtype)
        assert got.dtype == np.float32
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)) or \
            (np.isnan(got).all() and np.isnan(want).all()), (name, value)


def test_rounding_as_a_value_needs_sm_80_for_bf16_only():
    with pytest.raises(KernelError, match=r"rounding to bf16 needs sm_80 or newer"):
        require_instructions(_rounding_kernel(), "sm_75")
    require_instructions(_rounding_kernel(), "sm_80")


@pytest.mark.gpu
def test_roundings_on_the_gpu_match_the_interpreter_bit_for_bit():
    from gpu_backend.device import gpu_unavailable, run_on_gpu
    reason = gpu_unavailable()
    if reason:
        pytest.skip(f"needs a GPU: {reason}")
    kernel = _rounding_kernel()
    gpu = run_on_gpu(kernel, seed=5)
    assert gpu.matches, gpu.mismatches
    assert np.array_equal(gpu.outputs["out"].view(np.uint32),
                          run(kernel, seed=5)["out"].view(np.uint32))

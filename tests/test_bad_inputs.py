"""Bad input gets one clear error naming what and where; nothing is silently truncated,
wrapped or clamped (issue #16's cases, as they are fixed)."""
import numpy as np
import pytest

from kernels_ir import KernelBuilder, KernelError, f32, threadIdx, u8, u32
from smemsim import ArchError, RequestError, get_arch, warp_request, warp_requests


def _builder_store(kind):
    k = KernelBuilder("bad")
    small = k.shared("small", u8, 32)
    given = k.global_array("given", f32, 32)
    regs = k.local_array("regs", u8, 4)
    counts = k.shared("counts", u32, 32)
    {"u8": lambda: small.__setitem__(threadIdx.x, 300),
     "negative": lambda: small.__setitem__(threadIdx.x, -1),
     "input": lambda: given.__setitem__(threadIdx.x, 1.0),
     "register": lambda: regs.__setitem__(0, 256),
     "atomic": lambda: k.atomic(counts, threadIdx.x, "add", -5)}[kind]()


CASES = [
    # (call, error type, message pattern)
    (lambda: _builder_store("u8"), KernelError, r"storing into 'small': constant 300 does not "
                                                r"fit u8"),
    (lambda: _builder_store("negative"), KernelError, r"constant -1 does not fit u8"),
    (lambda: _builder_store("input"), KernelError, r"'given' is an input \(intent='in'"),
    (lambda: _builder_store("register"), KernelError, r"'regs': constant 256 does not fit u8"),
    (lambda: _builder_store("atomic"), KernelError, r"'counts': constant -5 does not fit u32"),
    (lambda: warp_requests(np.array([[0.5] * 32]), 4), RequestError,
     r"offsets must be integers .* got np.float64\(0.5\)"),
    (lambda: warp_requests(np.zeros((1, 32), int), 4.5), RequestError,
     r"widths must be integers"),
    (lambda: warp_request([0, 4.5], 4), RequestError, r"lane 1: offset 4.5 is not an integer"),
    (lambda: get_arch("sm_90aaa"), ArchError, r"unknown architecture 'sm_90aaa'"),
    (lambda: get_arch("sm_90f0"), ArchError, r"unknown architecture"),
]


@pytest.mark.parametrize("call, error, message", CASES, ids=[m[:30] for _, _, m in CASES])
def test_bad_input_is_refused_with_its_value(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_architecture_suffixes_are_one_letter():
    assert get_arch("sm_90a").name == "sm_90" and get_arch("sm_100f").name == "sm_100"


@pytest.mark.parametrize("op, width", [("load", 4), ("store", 16), ("load", 16), ("store", 8)])
def test_engines_agree_beyond_256_kib(op, width):
    """Windows are < 256 KiB on every architecture, but a caller may pass a larger one; the
    numpy path's keys used to run out of bits there (a crash, or a wrong count)."""
    rng = np.random.default_rng(width)
    window = 1 << 21
    rows = rng.integers(0, window // width, (64, 32)) * width
    rows[:, ::5] = -1
    rows[0] = 300000 // width * width + np.arange(32) * 16 * width  # far up, strided
    scalar = [warp_request([None if o < 0 else int(o) for o in r], width, op,
                           window=window).wavefronts for r in rows]
    for engine in ("numpy", "numba"):
        got = warp_requests(rows, width, op, engine=engine, window=window).wavefronts
        assert got.tolist() == scalar, engine

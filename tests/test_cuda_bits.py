"""CUDA's integer bit intrinsics (__popc, __clz, __ffs, __brev and their 64-bit forms) and
double atomicAdd, imported from tests/cuda/bit_intrinsics.cu and computed as CUDA does."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import call, const, format_expr, u32, u64  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import import_kernels, run  # noqa: E402

BITS = pathlib.Path(__file__).resolve().parent / "cuda" / "bit_intrinsics.cu"


def kernel(name):
    return import_kernels(str(BITS), Options(kernel=name))[name]()


def reference(x: np.ndarray):
    """The intrinsics, bit by bit in Python."""
    def clz(v, n):
        return n - v.bit_length()

    def ffs(v):
        return (v & -v).bit_length()
    out = [clz(int(v), 32) * 100 + ffs(int(v)) + bin((int(v) << 7) & (2**64 - 1)).count("1")
           * 10000 for v in x]
    rev = [int(f"{int(v):032b}"[::-1], 2) ^ (int(v) & -int(v)) for v in x]
    return np.array(out), np.array(rev, np.uint32)


def test_the_bit_intrinsics_compute_as_cuda_does():
    x = np.random.default_rng(3).integers(0, 2**32, 4096, dtype=np.uint64).astype(np.uint32)
    x[:4] = [0, 1, 0x80000000, 0xFFFFFFFF]   # the edges: no bit, the lowest, the highest, all
    got = run(kernel("bits"), arrays={"in": x})
    out, rev = reference(x)
    assert (got["out"][:4096] == out).all() and (got["rev"] == rev).all()
    # the histogram of population counts, per block, through shared memory
    popc = np.array([bin(int(v)).count("1") for v in x]).reshape(16, 256)
    want = np.stack([np.bincount(row, minlength=33) for row in popc])
    assert (got["out"][4096:4096 + 16 * 33].reshape(16, 33) == want).all()


def test_the_intrinsics_print_as_cuda_spells_them():
    assert format_expr(call("popc", const(5, u32))) == "__popc(5u)"
    assert format_expr(call("clz", const(5, u64))) == "__clzll(5ull)"
    with pytest.raises(Exception, match="ffs takes an integer"):
        call("ffs", 1.5)


def test_a_double_atomic_add_on_shared_memory_is_a_cas_loop():
    k = kernel("sum_rows")
    x = np.random.default_rng(4).uniform(-1, 1, 4096)
    got = run(k, arrays={"in": x, "out": np.zeros(8)})["out"]
    assert np.allclose(got, x.reshape(16, 32, 8).sum(axis=(0, 1)))
    r = analyze(k)
    shared = [s for s in r.sites if s.op == "atomic_cas_loop"]
    # 16 blocks of 8 warps, each warp's 32 lanes on 8 doubles (4 lanes a double: 4 passes)
    assert len(shared) == 1 and shared[0].requests == 16 * 8 and shared[0].width == 8


def bfind_kernel():
    return import_kernels(str(BITS.parent / "bfind.cu"), Options(lengths={"out": "96"}))["k"]()


def test_ptx_bfind_finds_the_most_significant_bit():
    """bfind.u32 of t * 37 (0xffffffff for 0), bfind.shiftamt.u32 of t << 20 (31 minus the
    position), bfind.s32 of t - 16 (a negative value: its most significant 0 bit): the PTX
    ISA's definitions, checked bit by bit here."""
    got = run(bfind_kernel())["out"].astype(np.int64)
    t = np.arange(32)

    def position(v: int) -> int:
        return v.bit_length() - 1 if v else 0xFFFFFFFF
    assert got[:32].tolist() == [position(int(v)) for v in t * 37]
    assert got[32:64].tolist() == [31 - position(int(v)) if v else 0xFFFFFFFF
                                   for v in t << 20]
    assert got[64:].tolist() == [position(int(~v if v < 0 else v)) for v in t - 16]


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["bits", "sum_rows", "compact", "bfind"])
def test_on_the_gpu(name):
    """The generated CUDA (__popc, __clzll, ... as CUDA spells them; atomicAdd on doubles)
    on the GPU: its outputs equal the interpreter's (the doubles' sums up to the order of
    the adds)."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(bfind_kernel() if name == "bfind" else kernel(name))
    assert result.matches, result.mismatches


def test_a_stream_compaction_by_warp_votes():
    """__ballot_sync and __popc rank each kept element; a tile of 16's any and ballot
    number its own lanes from 0; __all_sync over the warp."""
    x = np.random.default_rng(5).integers(-100, 100, 4096).astype(np.int32)
    x[:32] = -5                       # a warp that keeps nothing
    got = run(kernel("compact"), arrays={"in": x, "out": np.zeros(8192, np.int32)})
    rows = x.reshape(16, 256)
    assert (got["count"][:16] == (rows > 0).sum(axis=1)).all()
    for b in range(16):
        kept = rows[b][rows[b] > 0]
        assert (got["out"][b * 256:b * 256 + kept.size] == kept).all()
    halves = x.reshape(256, 16)
    big = (halves > 90).any(axis=1).repeat(16)
    every = (x.reshape(128, 32) > -100).all(axis=1).repeat(32)
    ballot = ((halves > 0) * (1 << np.arange(16))).sum(axis=1).repeat(16) & 0xFF
    assert (got["out"][4096:] == big * 2 + every + ballot * 4).all()


def test_the_kernels_file_keeps_the_votes_and_the_intrinsics(tmp_path):
    from smemsim.frontends.ptx.frontend import write_kernels_file
    from smemsim.frontends.loader import load_kernels
    text = write_kernels_file(str(BITS), Options(kernel="compact"))[0]
    assert '"ballot", width=32' in text and 'call("popc", ' in text
    path = tmp_path / "compact.py"
    path.write_text(text)
    x = np.random.default_rng(6).integers(-100, 100, 4096).astype(np.int32)
    arrays = {"in": x, "out": np.zeros(8192, np.int32)}
    again = run(load_kernels(str(path))["compact"](), arrays=arrays)
    assert (again["out"] == run(kernel("compact"), arrays=arrays)["out"]).all()

"""The 16-bit float idioms of tensor-core CUDA (tests/cuda/half_kernels.cu): float4/half2
copies of halves, register packs, half arithmetic intrinsics, zero initializers of halves,
functional casts, and ldmatrix of a half tile; each kernel's values against numpy's float16
and its counts by hand."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")


from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import by_line, import_kernels, run
from tests.test_cli import cli  # noqa: E402

HALVES = pathlib.Path(__file__).resolve().parent / "cuda" / "half_kernels.cu"
LENGTHS = {"a": "4096", "out": "4096", "x": "1024", "y": "4", "frag": "128", "b": "128",
           "c32": "128", "c16": "128"}


def kernel(name: str):
    return import_kernels(str(HALVES), Options(lengths=LENGTHS))[name]()


# the kernels' arrays of halves and of other types that PTX stores as untyped bits
HALF_OUT = {"out": np.float16, "y": np.float16, "c16": np.float16, "c32": np.float32,
            "frag": np.uint32}


def f16(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float16)


def test_a_tile_staged_by_float4_and_half2_copies():
    """`LDST128BITS(s_a[row][col]) = LDST128BITS(a[g])` moves eight halves in one 16-byte
    access each way, `HALF2(...)` two in 4 bytes; `half pack[8]` is filled and stored the
    same way; `__hadd` rounds to half. out = a + a, exactly. Counts as built: 16 warps (4
    blocks of 4) x one STS.128 (4 wavefronts: 512 contiguous bytes); nvcc merges the four
    half2 stores of a lane's 16 bytes of s_b into one STS.128 too, and its eight 2-byte
    loads into two LDS.64 (each 256 contiguous bytes: 2 wavefronts)."""
    k = kernel("stage_tile")
    a = f16(np.random.default_rng(1).uniform(-4, 4, 4096))
    out = run(k, arrays={"a": a}, types=HALF_OUT)["out"]
    np.testing.assert_array_equal(out, a + a)
    r = analyze(k)
    assert by_line(r) == [(27, "store", 16, 16, 64), (29, "store", 16, 16, 64),
                          (32, "load", 16, 16, 64), (34, "load", 8, 32, 128)]


def test_half_intrinsics_compute_in_half():
    """`__hfma(x, 2, 0)`, a butterfly of `__hadd` over `__shfl_xor_sync` (its type read from
    `half val`), `__hmax(v, __hneg(v))`: each rounded to half as the GPU rounds, in the
    kernel's order; `half acc[2][2] = {__float2half(0.0f)}` starts at zero."""
    k = kernel("block_sum")
    x = f16(np.random.default_rng(2).uniform(-1, 1, 1024))
    y = run(k, arrays={"x": x}, types=HALF_OUT)["y"]
    expected = []
    for b in range(4):
        v = (x[b * 256:(b + 1) * 256] * np.float16(2)).reshape(8, 32)
        for mask in (16, 8, 4, 2, 1):
            v = (v + v[:, np.arange(32) ^ mask]).astype(np.float16)
        w = np.zeros(32, np.float16)
        w[:8] = v[:, 0]
        for mask in (4, 2, 1):
            w = (w + w[np.arange(32) ^ mask]).astype(np.float16)
        expected.append(abs(w[0]))
    np.testing.assert_array_equal(y, f16(expected))


def test_ldmatrix_of_a_half_tile_gives_the_bits_of_its_pairs():
    """`ldmatrix.sync.aligned.x4.m8n8.shared.b16` (LeetCUDA's qualifier order) of a
    `__shared__ half s_t[16][16]`: lane l gets, of matrix j (rows from lanes 8j..8j+7:
    s_t[L % 16][(L / 16) * 8]), row l / 4, elements 2(l % 4) and 2(l % 4) + 1, low half
    first. The 32-byte rows put rows r and r + 4 in one bank group: 8 wavefronts, not 4."""
    k = kernel("tile_fragments")
    a = f16(np.arange(4096) / 8)   # (the file's length of a; the tile reads the first 256)
    frag = np.asarray(run(k, arrays={"a": a}, types=HALF_OUT)["frag"]).reshape(32, 4)
    bits = a[:256].view(np.uint16).reshape(16, 16).astype(np.uint32)
    for lane in range(32):
        for j in range(4):
            rows = slice((j % 2) * 8, (j % 2) * 8 + 8)
            cols = slice((j // 2) * 8, (j // 2) * 8 + 8)
            m = bits[rows, cols]
            lo, hi = m[lane // 4, 2 * (lane % 4)], m[lane // 4, 2 * (lane % 4) + 1]
            assert frag[lane, j] == lo | (hi << 16), (lane, j)
    r = analyze(k)
    assert [(s.requests, s.wavefronts) for s in r.sites if s.op == "ldmatrix"] == [(1, 8)]


def test_halves_read_as_the_bits_of_a_uint4():
    """`uint4 v = *reinterpret_cast<uint4*>(&s_h[8 * lane])` over a half array: one 16-byte
    load of its bits (a u16 view: a register holds a half's value, not its bits), each word
    two halves, the lower-addressed in its low half. 512 contiguous bytes: 4 wavefronts."""
    k = kernel("half_bits")
    a = f16(np.random.default_rng(3).uniform(-8, 8, 4096))
    frag = np.asarray(run(k, arrays={"a": a}, types=HALF_OUT)["frag"])
    np.testing.assert_array_equal(frag, a[:256].view(np.uint32))
    r = analyze(k)
    assert [(s.op, s.width, s.requests, s.wavefronts) for s in r.sites][-1] == \
        ("load", 16, 1, 4)


def test_mma_sync_multiplies_the_tile_as_the_fragments_lay_it_out():
    """`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` of A from ldmatrix.x4 and B from
    ldmatrix.x2.trans, and its f16-accumulator form (`HALF2(c16[...]) = HALF2(h[0])` splits
    each word in two halves): D = A x B in both, with small integers (exact). The tile
    loads: A's 32-byte rows are 2-way (8 wavefronts for 4 matrices), B's 16-byte rows not."""
    k = kernel("mma_tile")
    rng = np.random.default_rng(4)
    a = f16(rng.integers(-2, 3, 4096))
    b = f16(rng.integers(-2, 3, 128))
    out = run(k, arrays={"a": a, "b": b}, types=HALF_OUT)
    expected = a[:256].astype(np.float64).reshape(16, 16) @ b.astype(np.float64).reshape(16, 8)
    np.testing.assert_array_equal(np.asarray(out["c32"]).reshape(16, 8), expected)
    np.testing.assert_array_equal(np.asarray(out["c16"], np.float16).reshape(16, 8),
                                  expected.astype(np.float16))
    r = analyze(k)
    assert [s.wavefronts for s in r.sites if s.op == "ldmatrix"] == [8, 2]


def test_pair_operations_of_halves():
    """`__hmul2` of two `HALF2` pairs (each product rounded to half), `__half22float2`,
    `__low2float` / `__high2float`, `__floats2half2_rn` stored as a pair."""
    k = kernel("pair_dot")
    rng = np.random.default_rng(6)
    a, b = f16(rng.uniform(-2, 2, 4096)), f16(rng.uniform(-2, 2, 128))
    out = run(k, arrays={"a": a, "b": b}, types=HALF_OUT)
    v = (a[:64] * b[:64]).astype(np.float16)          # each product rounded to half
    expected = np.float32(0)
    for pair in v.astype(np.float32).reshape(32, 2):
        expected = np.float32(expected + np.float32(pair[0] + pair[1]))
    assert np.asarray(out["c32"], np.float32)[0] == expected
    pairs = np.asarray(out["out"], np.float16)[:64].reshape(32, 2)
    np.testing.assert_array_equal(pairs[:, 0], (v[0::2].astype(np.float32) + 1).astype(
        np.float16))
    np.testing.assert_array_equal(pairs[:, 1], (v[1::2].astype(np.float32) * 2).astype(
        np.float16))


def test_a_register_pack_of_halves_read_as_bits(tmp_path):
    """A float4 of a register array of halves (`half pack[8]` filled from memory, then
    read as a float4): each lane a word of two halves' bits (the IR's f16_bits), as the
    GPU's registers hold them."""
    cu = tmp_path / "bits.cu"
    cu.write_text("""#include <cuda_fp16.h>
__global__ void k(const half* a, float* out) {
    half pack[8];
    *reinterpret_cast<float4*>(&pack[0]) = *reinterpret_cast<const float4*>(&a[0]);
    float4 v = *reinterpret_cast<float4*>(&pack[0]);
    out[threadIdx.x] = v.y;
}
""")
    k = import_kernels(str(cu), Options(lengths={"a": "8", "out": "32"}, grid="1",
                                        block="32"))["k"]()
    a = f16([1, 2, 3, 4, -5, 6.5, 7, 8])
    out = np.asarray(run(k, arrays={"a": a})["out"], np.float32)
    np.testing.assert_array_equal(out.view(np.uint32), np.full(32, a[2:4].view(np.uint32)[0]))


def test_params_of_a_file_of_several_kernels_go_to_those_that_declare_them(tmp_path):
    """`-p M=... -p N=...` for a file whose kernels take different parameters: each gets its
    own; a name no kernel declares is an error naming theirs."""
    cu = tmp_path / "two.cu"
    cu.write_text("""
__global__ void rows(float* x, int M) {
    __shared__ float s[32]; s[threadIdx.x] = M; x[threadIdx.x] = s[0]; }
__global__ void cols(float* x, int N) {
    __shared__ float s[32]; s[threadIdx.x] = N; x[threadIdx.x] = s[1]; }
void h(float* x, int M, int N) { rows<<<1, 32>>>(x, M); cols<<<1, 32>>>(x, N); }
""")
    code, out = cli("analyze", str(cu), "-p", "M=4", "-p", "N=5", "--length", "x=32")
    assert code == 0, out
    code, out = cli("analyze", str(cu), "-p", "M=4", "-p", "K=5", "--length", "x=32")
    assert code == 2 and "-p K: no kernel of the file has such a parameter (theirs: M, N)" \
        in out, out


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["stage_tile", "block_sum", "tile_fragments", "half_bits",
                                  "mma_tile", "pair_dot"])
def test_on_the_gpu(name):
    """The generated CUDA of each kernel on the GPU (the mma.sync and ldmatrix as PTX, the
    halves' bits through the prelude's conversions): its outputs equal the interpreter's."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    rng = np.random.default_rng(5)
    arrays = {"a": f16(rng.integers(-2, 3, 4096)), "b": f16(rng.integers(-2, 3, 128)),
              "x": f16(rng.uniform(-1, 1, 1024))}
    k = kernel(name)
    result = run_on_gpu(k, arrays={g.name: np.ascontiguousarray(arrays[g.name]).view(np.uint8)
                                   for g in k.globals
                                   if g.name in arrays})
    assert result.matches, result.mismatches


def test_a_kernel_that_cannot_be_built_does_not_stop_the_others(tmp_path):
    """A file of several kernels, one of them with an instruction smemsim does not lower:
    that one is an error line naming it, the others are analyzed, and the command exits 2
    (--json: the good kernel's result, the refused one, and the exit code)."""
    from tests.test_cli import cli_streams
    cu = tmp_path / "mixed.cu"
    cu.write_text("""
__global__ void good(float* x) {
    __shared__ float s[32]; s[threadIdx.x] = 1; x[threadIdx.x] = s[31 - threadIdx.x]; }
__global__ void bad(double4* x) { x[threadIdx.x].x = 0; }
void h(float* a, double4* b) { good<<<1, 32>>>(a); bad<<<1, 32>>>(b); }
""")
    # through nvcc's PTX a double4 is 32 bytes of a pointer's array: both kernels are read;
    # an instruction the lowering does not take stops its kernel only
    code, out, err = cli_streams("analyze", str(cu), "--length", "x=32", "--frontend", "ptx")
    assert code == 0 and "bad: grid (1, 1, 1)" in out
    cu.write_text(cu.read_text().replace("double4* x) {", "double4* x) { asm volatile("
                                         '"pmevent 1;");'))
    code, out, err = cli_streams("analyze", str(cu), "--length", "x=32", "--frontend", "ptx")
    assert code == 2 and "good: grid (1, 1, 1)" in out
    assert "error: kernel 'bad', line" in err and "(`pmevent`): not lowered yet" in err and \
        "(the file's other kernels went on)" in err
    code, out, err = cli_streams("analyze", str(cu), "--length", "x=32", "--json")
    doc = json.loads(out)
    assert code == 2 and doc["exit_code"] == 2
    assert [r["kernel"] for r in doc["results"]] == ["good"]
    assert [(r["kernel"], r["kind"]) for r in doc["refused"]] == [("bad", "input")]
    from tests.json_schema import validate
    validate(doc)


def test_a_pair_initialized_from_a_brace_list(tmp_path):
    """`half2 acc = {__float2half(0.0f), __float2half(1.0f)}`: a vector from its lanes."""
    cu = tmp_path / "pair.cu"
    cu.write_text("""#include <cuda_fp16.h>
__global__ void k(const half *a, float *y) {
    __shared__ float s[32];
    half2 acc = {__float2half(0.0f), __float2half(1.0f)};
    float2 f = __half22float2(acc);
    s[threadIdx.x] = f.x + f.y + __half2float(a[threadIdx.x]);
    __syncwarp();
    y[threadIdx.x] = s[31 - threadIdx.x];
}
void h(const half *a, float *y) { k<<<1, 32>>>(a, y); }
""")
    k = import_kernels(str(cu), Options(lengths={"a": "32", "y": "32"}))["k"]()
    a = f16(np.arange(32))
    np.testing.assert_array_equal(run(k, arrays={"a": a})["y"], 1 + np.arange(32)[::-1])


def test_one_value_into_both_lanes_of_a_pair(tmp_path):
    """`__float2half2_rn(x)` (cuda-samples' fp16ScalarProduct zeroes its pairs so) and
    `__half2half2(h)`: the value rounded once, in both lanes."""
    cu = tmp_path / "both.cu"
    cu.write_text("""#include <cuda_fp16.h>
__global__ void k(const half *a, float *y) {
    __shared__ half2 s[32];
    s[threadIdx.x] = __float2half2_rn(0.1f * threadIdx.x);
    half2 h = __half2half2(a[threadIdx.x]);
    __syncwarp();
    float2 f = __half22float2(s[31 - threadIdx.x]);
    float2 g = __half22float2(h);
    y[threadIdx.x] = f.x + f.y + g.x * g.y;
}
void h(const half *a, float *y) { k<<<1, 32>>>(a, y); }
""")
    k = import_kernels(str(cu), Options(lengths={"a": "32", "y": "32"}))["k"]()
    a = f16(np.arange(32) / 4)
    got = run(k, arrays={"a": a})["y"]
    lane = np.float16(np.float32(0.1) * np.arange(32, dtype=np.float32)[::-1]).astype(
        np.float32)
    want = 2 * lane + np.float32(a.astype(np.float32) ** 2)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_operators_and_constructors_of_pairs(tmp_path):
    """`half2 v(0.1f, 0.2f)` and make_half2 round each lane to half in registers (make_half2
    held floats before); `a[i] * b[i] + v` of pairs (cuda_fp16.hpp's operators, in
    cuda-samples' fp16ScalarProduct) is lane by lane, each operation rounded."""
    cu = tmp_path / "pairs.cu"
    cu.write_text("""#include <cuda_fp16.h>
__global__ void k(const half2 *a, const half2 *b, float *y) {
    __shared__ half2 s[32];
    half2 v(0.1f, 0.2f);
    half2 m = make_half2(0.3f, 0.7f);
    for (int i = 0; i < 4; ++i)
        v = a[threadIdx.x + 32 * i] * b[threadIdx.x + 32 * i] + v;
    s[threadIdx.x] = v - m;
    __syncwarp();
    float2 f = __half22float2(s[threadIdx.x]);
    y[2 * threadIdx.x] = f.x;
    y[2 * threadIdx.x + 1] = f.y;
}
void h(const half2 *a, const half2 *b, float *y) { k<<<1, 32>>>(a, b, y); }
""")
    k = import_kernels(str(cu), Options(lengths={"a": "128", "b": "128", "y": "64"}))["k"]()
    rng = np.random.default_rng(12)
    a = f16(rng.uniform(-2, 2, 256))
    b = f16(rng.uniform(-2, 2, 256))
    got = run(k, arrays={"a": a, "b": b})["y"].reshape(32, 2)
    v = np.tile(f16([0.1, 0.2]), (32, 1))
    pa, pb = a.reshape(4, 32, 2), b.reshape(4, 32, 2)
    for i in range(4):
        v = (pa[i] * pb[i]) + v          # numpy's float16: each operation rounded
    want = (v - f16([0.3, 0.7])).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_a_half_negated_or_through_a_half_function_stays_a_half(tmp_path):
    """`hexp(-v)` (LeetCUDA's sigmoid): cuda_fp16.hpp's unary minus of a half is a half,
    and so is hexp of it; the sigmoid `f / (f + hexp(-v))` rounds each step to half."""
    cu = tmp_path / "sig.cu"
    cu.write_text("""#include <cuda_fp16.h>
__global__ void k(half *x, half *y) {
    const half f = __float2half(1.0f);
    half v = x[threadIdx.x];
    y[threadIdx.x] = f / (f + hexp(hexp(-v) - v));
}
void h(half *x, half *y) { k<<<1, 32>>>(x, y); }
""")
    k = import_kernels(str(cu), Options(lengths={"x": "32", "y": "32"}))["k"]()
    x = f16(np.linspace(-1, 1, 32))
    e = np.exp(-x.astype(np.float64)).astype(np.float16)           # hexp(-v), rounded
    inner = np.exp((e - x).astype(np.float64)).astype(np.float16)  # half - half, then hexp
    expected = (f16(1) / (f16(1) + inner)).astype(np.float16)
    np.testing.assert_array_equal(run(k, arrays={"x": x}, types=HALF_OUT)["y"],
                                  expected)


HALF_MATH = pathlib.Path(__file__).resolve().parent / "cuda" / "half_math.cu"
HALF_FUNCTIONS = ["hexp", "hexp2", "hexp10", "hlog", "hlog2", "hlog10", "hsqrt", "hrsqrt",
                  "hrcp", "hsin", "hcos", "hfloor", "hceil", "operators"]


def every_half() -> np.ndarray:
    return np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)


def test_half_math_functions_are_the_float_function_rounded_once():
    """`hexp(v)` and the others: the float function of the half's value, rounded to half
    (so hsqrt(4) is 2, hrcp(4) is 0.25, hfloor(-1.5) is -2 exactly)."""
    k = import_kernels(str(HALF_MATH), Options(lengths={"x": "65536", "out": "14 * 65536"}))[
        "half_math"]()
    x = every_half()
    out = run(k, arrays={"x": x}, types=HALF_OUT)["out"].reshape(14, 65536)
    at = {float(v): i for i, v in enumerate(x) if np.isfinite(v)}
    col = lambda name: out[HALF_FUNCTIONS.index(name)]   # noqa: E731
    assert col("hsqrt")[at[4.0]] == 2 and col("hrcp")[at[4.0]] == 0.25
    assert col("hfloor")[at[-1.5]] == -2 and col("hceil")[at[-1.5]] == -1
    assert col("hexp")[at[0.0]] == 1 and col("hlog2")[at[8.0]] == 3


@pytest.mark.gpu
def test_half_math_functions_equal_the_gpu_for_every_half(tmp_path):
    """All 65,536 halves through each of cuda_fp16.h's own functions, in nvcc's build of
    half_math.cu on the GPU, against the interpreter's correctly rounded value (NaNs as
    NaNs). Measured on an H200, against the interpreter running nvcc's build of the
    functions: hsin and hcos (a range reduction of fused multiply-adds, then polynomials),
    hlog2, hsqrt, hrsqrt, hrcp, hfloor and hceil bit for bit; the others (the GPU's
    approximate ex2/lg2, which the interpreter computes exactly) differ by one unit in the
    last place for a few halves next to a rounding tie: hexp 1, hexp2 2, hexp10 4, hlog 6,
    hlog10 1. `v * v / 3 + eps` (cuda_fp16.hpp's operators, each rounded to half) is bit
    for bit."""
    import subprocess
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    exe, got = tmp_path / "half_math", tmp_path / "got.bin"
    subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-o", str(exe), str(HALF_MATH)], check=True,
                   capture_output=True)
    subprocess.run([str(exe), str(got)], check=True)
    gpu = np.fromfile(got, np.uint16).reshape(14, 65536)
    k = import_kernels(str(HALF_MATH), Options(lengths={"x": "65536", "out": "14 * 65536"}))[
        "half_math"]()
    ref = run(k, arrays={"x": every_half()}, types=HALF_OUT)["out"].view(np.uint16) \
        .reshape(14, 65536)
    nan = lambda b: ((b & 0x7C00) == 0x7C00) & ((b & 0x3FF) != 0)   # noqa: E731
    bad = [(gpu[f] != ref[f]) & ~(nan(gpu[f]) & nan(ref[f])) for f in range(14)]
    differ = {name: int(bad[f].sum()) for f, name in enumerate(HALF_FUNCTIONS)}
    assert differ == HALF_DIFFERENCES, differ
    for f in range(14):   # each difference one unit in the last place, never a NaN
        step = np.abs(gpu[f][bad[f]].astype(np.int32) - ref[f][bad[f]].astype(np.int32))
        assert (step == 1).all(), HALF_FUNCTIONS[f]


# halves (of 65,536) whose function value on an H200 is one ulp from the interpreter's run
# of the same build (measured 2026-11-30, docs/validation.md)
HALF_DIFFERENCES = {"hexp": 1, "hexp2": 2, "hexp10": 4, "hlog": 6, "hlog2": 0, "hlog10": 1,
                    "hsqrt": 0, "hrsqrt": 0, "hrcp": 0, "hsin": 0, "hcos": 0, "hfloor": 0,
                    "hceil": 0, "operators": 0}


def test_operators_between_halves_round_as_cuda_fp16_does(tmp_path):
    """`v * v / K_ + eps` of halves is three operations, each rounded to half (cuda_fp16.hpp's
    operators), then `hrsqrt`; `const half eps = __float2half(1e-5f)` stays a half. numpy's
    float16 rounds each operation the same way."""
    cu = tmp_path / "ops.cu"
    cu.write_text("""#include <cuda_fp16.h>
__global__ void k(const half *x, half *y, int K) {
    __shared__ half s[32];
    const half eps = __float2half(1e-5f);
    const half K_ = __int2half_rn(K);
    half v = x[threadIdx.x];
    s[threadIdx.x] = hrsqrt(v * v / K_ + eps);
    __syncwarp();
    y[threadIdx.x] = s[threadIdx.x];
}
void h(const half *x, half *y) { k<<<1, 32>>>(x, y, 3); }
""")
    k = import_kernels(str(cu), Options(lengths={"x": "32", "y": "32"}))["k"]()
    x = f16(np.random.default_rng(7).uniform(0.5, 4, 32))
    y = run(k, arrays={"x": x}, types=HALF_OUT)["y"]
    inner = x * x / np.float16(3) + np.float16(1e-5)          # float16: each op rounded
    expected = (1 / np.sqrt(inner.astype(np.float64))).astype(np.float32).astype(np.float16)
    np.testing.assert_array_equal(y, expected)


FP8 = pathlib.Path(__file__).resolve().parent / "cuda" / "fp8_decode.cu"


def fp8_outputs() -> np.ndarray:
    k = import_kernels(str(FP8), Options(lengths={"codes": "256", "out": "512"}))[
        "fp8_decode"]()
    return np.asarray(run(k, arrays={"codes": np.arange(256, dtype=np.uint8)},
                          types=HALF_OUT)["out"], np.float16)


def test_fp8_codes_decode_to_their_values():
    """`__nv_cvt_fp8_to_halfraw(b, __NV_E4M3)` (bias 7, subnormals m 2^-9, no infinity,
    S.1111.111 NaN) and `__NV_E5M2` (a half's upper byte); `__nv_cvt_float_to_fp8(0.0f,
    __NV_SATFINITE, __NV_E4M3)` is the code 0."""
    out = fp8_outputs()
    e4m3, e5m2 = out[:256], out[256:]
    assert (e4m3[0x00], e4m3[0x01], e4m3[0x08], e4m3[0x38], e4m3[0x7E], e4m3[0xB8]) == \
        (0, 2.0 ** -9, 2.0 ** -6, 1, 448, -1)
    assert np.isnan(e4m3[0x7F]) and np.isnan(e4m3[0xFF]) and np.signbit(e4m3[0x80])
    assert (e5m2[0x01], e5m2[0x3C], e5m2[0x7B], e5m2[0x7C]) == (2.0 ** -16, 1, 57344, np.inf)
    assert np.isnan(e5m2[0x7D])


def test_a_pack_of_fp8_codes_loaded_as_a_float4():
    """`LDST128BITS(pack[0]) = LDST128BITS(codes[idx])` over bytes (idx = 16 x lane, a
    local whose value is a multiple of 16: the u32 view's index is exact), then each code
    decoded: lane t sums codes 16t..16t+15."""
    k = import_kernels(str(FP8), Options(lengths={"codes": "512", "sums": "32"}))[
        "fp8_pack_sum"]()
    codes = np.random.default_rng(8).integers(0, 0x7E, 512).astype(np.uint8)
    sums = np.asarray(run(k, arrays={"codes": codes}, types={"sums": np.float32})["sums"])
    table = fp8_outputs()[:256].astype(np.float32)
    per_lane = np.zeros(32, np.float32)
    for i in range(16):
        per_lane = (per_lane + table[codes[np.arange(32) * 16 + i]]).astype(np.float32)
    np.testing.assert_array_equal(sums, per_lane[np.arange(32) ^ 1])


@pytest.mark.gpu
def test_fp8_codes_decode_as_the_gpu_does(tmp_path):
    """Every code through cuda_fp8.h's own conversion in nvcc's build, bit for bit."""
    import subprocess
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    exe, got = tmp_path / "fp8", tmp_path / "got.bin"
    subprocess.run(["nvcc", "-arch=sm_90", "-o", str(exe), str(FP8)], check=True,
                   capture_output=True)
    subprocess.run([str(exe), str(got)], check=True)
    gpu = np.fromfile(got, np.uint16)
    ref = fp8_outputs().view(np.uint16)
    nan = lambda b: ((b & 0x7C00) == 0x7C00) & ((b & 0x3FF) != 0)   # noqa: E731
    differ = np.flatnonzero((gpu != ref) & ~(nan(gpu) & nan(ref)))
    assert differ.size == 0, [(int(i), hex(gpu[i]), hex(ref[i])) for i in differ[:8]]
    from gpu_backend.device import run_on_gpu   # the pack kernel's generated CUDA, too
    k = import_kernels(str(FP8), Options(lengths={"codes": "512", "sums": "32"}))[
        "fp8_pack_sum"]()
    codes = np.random.default_rng(8).integers(0, 0x7E, 512).astype(np.uint8)
    assert run_on_gpu(k, arrays={"codes": codes}).matches

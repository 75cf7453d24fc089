"""nvcuda::wmma (tests/cuda/wmma_kernels.cu): m16n16k16 fragments of halves as the instructions
nvcc compiles them to (ldmatrix.x4, two mma.sync m16n8k16, 8-byte rows of an accumulator, a
register transpose for a column-major half accumulator); each kernel's products against
numpy and its counts by hand, read from nvcc's build (smemsim.frontends.ptx.wmma)."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

from kernels_ir import KernelError
from smemsim import analyze
from smemsim.frontends.cuda import Options
from tests.built import import_kernels, run

WMMA = pathlib.Path(__file__).resolve().parent / "cuda" / "wmma_kernels.cu"
M = N = K = 64
LENGTHS = {"A": str(M * K), "B": str(K * N), "C": str(M * N), "D": str(M * N), "At": "1024",
           "Bt": "1024", "Ct": "1024"}
SIZED = {"wmma_tile<24>", "wmma_tile<16>", "wmma_global_2x2"}


def kernel(name: str):
    params = {"M": M, "N": N, "K": K} if name in SIZED else {}
    return import_kernels(str(WMMA), Options(params=params, lengths=LENGTHS))[name]()


def small(n: int, seed: int) -> np.ndarray:
    """Halves -2..2: every product and sum is exact in half and float."""
    return np.random.default_rng(seed).integers(-2, 3, n).astype(np.float16)


def matrix(values, rows: int, cols: int) -> np.ndarray:
    return np.asarray(values, np.float64).reshape(rows, cols)


@pytest.mark.parametrize("name", ["wmma_tile<24>", "wmma_tile<16>", "wmma_global_2x2"])
def test_row_major_products_equal_numpy(name):
    """C = A x B, 64^3, through shared tiles (one warp a tile) and straight from global
    memory (four warps, a 2 x 2 array of accumulators each)."""
    a, b = small(M * K, 1), small(K * N, 2)
    out = run(kernel(name), arrays={"A": a, "B": b})
    np.testing.assert_array_equal(matrix(out["C"], M, N), matrix(a, M, K) @ matrix(b, K, N))


def test_column_major_operands_and_a_half_accumulator():
    """At and Bt hold A and B column-major (element (m, k) of A at k * 16 + m), the
    accumulator starts at 1.0 (fill_fragment), each of its halves is doubled (`c.x[e] =
    __hadd(c.x[e], c.x[e])`) and it is stored column-major: Ct is 2 (AB + 1) transposed,
    per block of 256."""
    at, bt = small(1024, 3), small(1024, 4)
    out = run(kernel("wmma_colmajor_half"), arrays={"At": at, "Bt": bt,
                                                  "Ct": np.zeros(1024, np.float16)})
    for blk in range(4):
        part = slice(256 * blk, 256 * (blk + 1))
        a, b = matrix(at[part], 16, 16).T, matrix(bt[part], 16, 16).T
        np.testing.assert_array_equal(matrix(out["Ct"][part], 16, 16).T, 2 * (a @ b + 1))


def test_an_accumulator_loaded_from_shared_and_stored_by_columns():
    """C = A x B + C on one tile: A row-major, B column-major (B's element (k, n) at
    n * 16 + k), C loaded row-major from shared and stored column-major."""
    a, b, c = small(M * K, 5), small(K * N, 6), small(M * N, 7).astype(np.float32)
    out = run(kernel("wmma_accumulate"), arrays={"A": a, "B": b, "C": c})
    expected = matrix(a[:256], 16, 16) @ matrix(b[:256], 16, 16).T + matrix(c[:256], 16, 16)
    np.testing.assert_array_equal(np.asarray(out["C"][:256], np.float64),
                                  expected.T.reshape(-1))


def test_a_persistent_loop_scales_the_accumulator_by_its_elements():
    """wmma_persistent: three blocks walk the 16 tiles of D = alpha A B + beta C (`beta /=
    alpha` first, then C x beta, the product x alpha, element by element), through a float
    tile over the bytes of the half tile and int4 copies; A is 64 x 16, B 16 x 64
    column-major."""
    a, b = small(M * K, 8), small(K * N, 9)    # (the first 1,024 of each are read)
    c = small(M * N, 10).astype(np.float32)
    out = run(kernel("wmma_persistent"), arrays={"A": a, "B": b, "C": c})
    expected = 2.0 * (matrix(a[:1024], 64, 16) @ matrix(b[:1024], 64, 16).T) + \
        0.5 * matrix(c, M, N)
    np.testing.assert_array_equal(matrix(out["D"], M, N), expected)


def test_fragments_of_a_templates_type_parameters(tmp_path):
    """`fragment<matrix_a, 16, 16, 16, T, row_major>` in `template <typename T, typename
    Acc>` instantiated as `k<half, float>`: the types the launch binds."""
    cu = tmp_path / "tpl.cu"
    cu.write_text("""#include <mma.h>
using namespace nvcuda;
template <typename T, typename Acc>
__global__ void k(const T *a, const T *b, Acc *c) {
  __shared__ T sa[256], sb[256];
  for (int i = threadIdx.x; i < 256; i += 32) { sa[i] = a[i]; sb[i] = b[i]; }
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, sa, 16);
  wmma::load_matrix_sync(fb, sb, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
void h(const half *a, const half *b, float *c) { k<half, float><<<1, 32>>>(a, b, c); }
""")
    k = import_kernels(str(cu), Options(lengths={"a": "256", "b": "256", "c": "256"}))
    a, b = small(256, 11), small(256, 12)
    out = run(k["k<half, float>"](), arrays={"a": a, "b": b})
    np.testing.assert_array_equal(matrix(out["c"], 16, 16),
                                  matrix(a, 16, 16) @ matrix(b, 16, 16))


def test_a_half_accumulators_elements_compute_as_halves(tmp_path):
    """`h.x[e] *= beta` on a half accumulator is cuda_fp16.hpp's `operator*=`: beta (a
    float) converted to half, the product rounded to half; `fragment<accumulator, ...,
    __nv_bfloat16>` (which CUDA does not have) is nvcc's error, at its line."""
    cu = tmp_path / "hx.cu"
    cu.write_text("""#include <mma.h>
using namespace nvcuda;
__global__ void k(half *c, float beta) {
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> h;
  wmma::fill_fragment(h, __float2half(3.0f));
  for (int e = 0; e < h.num_elements; e++) h.x[e] *= beta;
  wmma::store_matrix_sync(c, h, 16, wmma::mem_row_major);
}
void f(half *c) { k<<<1, 32>>>(c, 0.3f); }
""")
    k = import_kernels(str(cu), Options(lengths={"c": "256"}))["k"]()
    got = run(k, arrays={"c": np.zeros(256, np.float16)})["c"]
    beta = np.float16(0.3)      # 0.30005 (3 x 0.3 in float, rounded, would be 0.8999)
    assert (got == np.float16(np.float64(3.0) * np.float64(beta))).all()
    cu.write_text(cu.read_text().replace("16, 16, 16, half> h", "16, 16, 16, __nv_bfloat16> h"))
    with pytest.raises(KernelError, match=r"hx\.cu:4: error: incomplete type"):   # (nvcc's)
        import_kernels(str(cu), Options(lengths={"c": "256"}))["k"]()


def counts(name: str) -> list:
    return [(s.op, s.width, s.requests, s.wavefronts) for s in analyze(kernel(name)).sites]


def test_counts_of_the_fragments_moves():
    """Per warp and k-step, one ldmatrix.x4 per operand: rows of 24 halves (48 bytes) put
    each matrix's eight 16-byte rows in distinct banks (4 wavefronts), rows of 16 halves
    (32 bytes) two rows a bank set (8). The float tile of 20 floats a row takes four STS.64
    of the accumulator, two wavefronts a half-warp (lanes g = 0 and 3 share banks 0-3):
    16 tiles x 4. A column-major half accumulator: four 4-byte stores, lane 4g + t at byte
    32g + 4t, two wavefronts each (g and g + 4 share banks)."""
    for name, per in (("wmma_tile<24>", 4), ("wmma_tile<16>", 8)):
        c = counts(name)
        assert [x for x in c if x[0] == "ldmatrix"] == [("ldmatrix", 16, 64, 64 * per)] * 2
        assert [x for x in c if x[1] == 8] == [("store", 8, 16, 64)] * 4
    c = counts("wmma_colmajor_half")
    assert [x for x in c if x[0] == "ldmatrix"] == [("ldmatrix", 16, 4, 32)] * 2
    assert [x for x in c if x[1] == 4] == [("store", 4, 4, 8)] * 4


def test_unsupported_fragments_are_refused_at_their_line(tmp_path):
    """Other shapes and element types are refused by name, at the instruction's line."""
    src = tmp_path / "k.cu"
    src.write_text("#include <mma.h>\nusing namespace nvcuda;\n"
                   "__global__ void k(const half *a) {\n"
                   "  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> f;\n"
                   "  wmma::load_matrix_sync(f, a, 16);\n}\n")
    with pytest.raises(KernelError, match=r"k\.cu:5.*wmma m32n8k16 of f16 \(operand\) is "
                                          r"not lowered yet"):
        import_kernels(str(src), Options(grid="1", block="32", lengths={"a": "512"}))["k"]()


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["wmma_tile<16>", "wmma_colmajor_half", "wmma_global_2x2",
                                  "wmma_accumulate", "wmma_persistent", "wmma_bf16",
                                  "wmma_tf32", "wmma_s8", "wmma_f64"])
def test_on_the_gpu(name):
    """The generated CUDA of each kernel (ldmatrix, mma.sync and the shuffles of the
    transpose as PTX and intrinsics) gives the interpreter's outputs on the GPU."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    arrays = {"A": small(M * K, 1), "B": small(K * N, 2), "C": small(M * N, 3).astype(np.float32),
              "At": small(1024, 4), "Bt": small(1024, 5)}
    if name == "wmma_bf16":
        arrays.update(A=bf16_bits(arrays["A"]), B=bf16_bits(arrays["B"]))
    if name == "wmma_f64":   # (C, double, is only written)
        arrays.update(A=arrays["A"].astype(np.float64), B=arrays["B"].astype(np.float64))
        del arrays["C"]
    if name == "wmma_s8":   # (C, int, is only written)
        arrays.update(A=arrays["A"].astype(np.int8), B=arrays["B"].astype(np.int8))
        del arrays["C"]
    if name == "wmma_tf32":   # eighths: exact in tf32, every sum exact in float
        arrays.update(A=arrays["A"].astype(np.float32) / 8, B=arrays["B"].astype(np.float32) / 8)
    k = kernel(name)
    result = run_on_gpu(k, arrays={g.name: np.ascontiguousarray(arrays[g.name]).view(np.uint8)
                                   for g in k.globals if g.name in arrays})
    assert result.matches, result.mismatches


@pytest.mark.gpu
def test_the_users_build_equals_ncu(tmp_path):
    """On the GPU: ncu's counters of nvcc's -O3 build of wmma_kernels.cu (its own main,
    one kernel a run) equal the counts of each kernel read from that build: instructions
    exactly, wavefronts not below."""
    import shutil
    import subprocess

    from gpu_backend.measure import compare_counts, measure_command
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    exe = tmp_path / "wmma"
    subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-lineinfo", "-o", str(exe), str(WMMA)],
                   check=True, capture_output=True)
    order = ["wmma_tile<24>", "wmma_tile<16>", "wmma_colmajor_half", "wmma_global_2x2",
             "wmma_accumulate", "wmma_persistent", "wmma_bf16", "wmma_tf32", "wmma_s8",
             "wmma_f64"]
    for number, key in enumerate(order):
        k = kernel(key)
        agreement = compare_counts(analyze(k), measure_command([str(exe), str(number)],
                                                               k.name))
        assert agreement.ok, (key, agreement.checks)


def bf16_bits(values) -> np.ndarray:
    """Small integers as bf16 (an array of its bits, as the IR stores bf16)."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def test_bf16_operands_in_every_layout_and_their_loads():
    """wmma_bf16: C = A B^T + A^T B of two bf16 tiles read as row- and column-major A and
    B; each operand is four 4-byte loads (nvcc 13's LD.E on sm_90, not ldmatrix), the
    transposed layouts moved through shuffles (MOVM), which touch no shared memory. ptxas
    loads each tile's words once and makes the other layout's fragment from them: 8 load
    requests (as the H200 measured), not the PTX's 16."""
    a, b = small(4096, 7), small(4096, 8)
    k = kernel("wmma_bf16")
    out = run(k, arrays={"A": bf16_bits(a), "B": bf16_bits(b)})
    ta, tb = matrix(a[:256], 16, 16), matrix(b[:256], 16, 16)
    np.testing.assert_array_equal(matrix(out["C"][:256], 16, 16), ta @ tb.T + ta.T @ tb)
    report = analyze(k)
    operands = [s for s in report.sites if s.op == "load"]
    assert [(s.width, s.requests) for s in operands] == [(4, 1)] * 8
    assert [s.loc.line for s in operands] == [195] * 4 + [196] * 4
    assert not [s for s in report.sites if s.op == "ldmatrix"]
    assert any("wmma_kernels.cu:198 (in mma.hpp:167): ptxas loads nothing here: it reuses "
               "the words it loaded for wmma_kernels.cu:195 (in mma.hpp:163), transposed by "
               "MOVM" in n for n in k.notes), k.notes


def tf32(values) -> np.ndarray:
    """cvt.rna.tf32.f32 in numpy: 10 mantissa bits, to nearest, ties away from zero."""
    bits = np.asarray(values, np.float32).view(np.uint32)
    return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)


def test_tf32_operands_rounded_by_float_to_tf32_and_multiplied():
    """wmma_tf32: m16n16k8 fragments of floats, each rounded by `__float_to_tf32` (ties away
    from zero: 1 + 2^-11 becomes 1 + 2^-10, 1 + 2^-12 becomes 1), C = A B^T + A B."""
    rng = np.random.default_rng(9)
    a = (rng.integers(-16, 17, 4096) / 8).astype(np.float32)
    b = (rng.integers(-16, 17, 4096) / 8).astype(np.float32)
    a[:3] = [1 + 2.0 ** -11, 1 + 2.0 ** -12, -(1 + 3 * 2.0 ** -12)]
    np.testing.assert_array_equal(tf32(a[:3]), [1 + 2.0 ** -10, 1, -(1 + 2.0 ** -10)])
    out = run(kernel("wmma_tf32"), arrays={"A": a, "B": b})
    ta, tb = (matrix(tf32(x[:256]), 16, 16) for x in (a, b))
    np.testing.assert_array_equal(matrix(out["C"][:256], 16, 16), ta @ tb.T + ta @ tb)


def test_tf32_fragments_move_as_4_byte_loads_and_8_byte_stores():
    """Each tf32 operand is four 4-byte loads (nvcc unrolls the two k steps: 8 loads of
    one request a line, SASS's 24 LD.E), the float accumulator four 8-byte row stores."""
    report = analyze(kernel("wmma_tf32"))
    by_line: dict = {}
    for s in report.sites:
        by_line.setdefault(s.loc.line, []).append((s.op, s.width, s.requests))
    operand_lines = [line for line, sites in by_line.items()
                     if sites == [("load", 4, 1)] * 8]
    assert operand_lines == [221, 222, 223]
    assert [sites for sites in by_line.values() if ("store", 8, 1) in sites] == \
        [[("store", 8, 1)] * 4]


def test_signed_char_operands_in_every_layout_into_int():
    """wmma_s8: m16n16k16 of signed char into int, C = A B^T + A^T B + 1 with the whole
    range of bytes (sums of 16 products of up to 2^14 each: exact, no wrap)."""
    rng = np.random.default_rng(11)
    a, b = (rng.integers(-128, 128, 4096).astype(np.int8) for _ in range(2))
    out = run(kernel("wmma_s8"), arrays={"A": a, "B": b, "C": np.zeros(4096, np.int32)})
    ta, tb = (matrix(x[:256], 16, 16).astype(np.int64) for x in (a, b))
    np.testing.assert_array_equal(matrix(out["C"][:256], 16, 16), ta @ tb.T + ta.T @ tb + 1)


def test_8_bit_operands_move_by_ldmatrix_x2_or_bytes():
    """A row-major A and a column-major B: one ldmatrix.x2 each (LDSM.16.M88.2); the other
    two layouts eight 1-byte loads each (LDS.U8), as nvcc 13 compiles them for sm_90; the
    int accumulator four 8-byte rows."""
    report = analyze(kernel("wmma_s8"))
    kinds = [(s.loc.line, s.op, s.width) for s in report.sites if s.requests == 1]
    lines = sorted({line for line, _, _ in kinds})
    assert [k for k in kinds if k[1] == "ldmatrix"] == [(lines[0], "ldmatrix", 16),
                                                        (lines[1], "ldmatrix", 16)]
    assert sum(1 for k in kinds if k[1:] == ("load", 1)) == 16
    assert sum(1 for k in kinds if k[1:] == ("store", 8)) == 4


def test_double_fragments_m8n8k4():
    """wmma_f64: m8n8k4 of doubles, A and B read row- and column-major, k in two steps:
    C = A B + A^T B^T, stored row-major and then column-major (its transpose, flat)."""
    rng = np.random.default_rng(12)
    a, b = (rng.integers(-1000, 1000, 4096) / 16 for _ in range(2))
    out = run(kernel("wmma_f64"), arrays={"A": a, "B": b})
    ta, tb = matrix(a[:64], 8, 8), matrix(b[:64], 8, 8)
    want = ta @ tb + ta.T @ tb.T
    np.testing.assert_array_equal(matrix(out["C"][:64], 8, 8), want)
    np.testing.assert_array_equal(matrix(out["C"][64:128], 8, 8), want.T)
    report = analyze(kernel("wmma_f64"))
    operands = [(s.op, s.width, s.requests) for s in report.sites if s.loc.line in
                (287, 288, 290, 291)]   # (the k loop unrolled: SASS's eight LD.E.64)
    assert operands == [("load", 8, 1)] * 8
    assert [(s.op, s.width) for s in report.sites if s.loc.line in (294, 295)] == \
        [("store", 16), ("store", 8), ("store", 8)]

"""Structs in registers (#24's "structs of scalars", #27's fast.cu Schedule): struct values
passed, returned, chosen and reduced; constructors, member functions, static members and
operator[]; partial specializations; file-scope arrays of structs. Each checked by the
values the kernel computes, against numpy."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA frontend needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import KernelRuntimeError, bf16, from_storage, to_storage  # noqa: E402
from smemsim import analyze  # noqa: E402
from kernels_ir import KernelError
from smemsim.frontends.cuda import Options  # noqa: E402
from smemsim.frontends.cuda.symbols import fold
from tests.built import by_line, import_kernels, run
from tools.corpus_status import options  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
ENTRIES = json.loads((CORPUS / "corpus.json").read_text())["entries"]


def corpus_kernel(file: str, kernel: str, **changes):
    entry = dict(next(e for e in ENTRIES if e["file"] == file and e["kernel"] == kernel))
    entry.update(changes)
    return import_kernels(str(CORPUS / file), options(entry))[kernel]()


def test_struct_values_methods_and_specializations_compute_as_cuda_does():
    """tests/cuda/struct_values.cu: an online max/sum through a struct passed and returned
    by value (`acc = combine(acc, {in[i], 1.0f})`, ?: of structs), a `Walk<1, 32>` whose
    member function steps by its template argument (the <0, STEP> specialization would
    return -1 at once), and a Packed128-like struct read through operator[]."""
    kernel = import_kernels(str(HERE / "cuda" / "struct_values.cu"),
                            Options(lengths={"in": "256", "out": "32"}))["k"]()
    x = (np.arange(256, dtype=np.float32) % 7) - 3
    out = run(kernel, arrays={"in": x})["out"]
    want = []
    for t in range(32):
        m, s = -np.inf, 0.0
        for v in x[t::32]:
            if m > v:
                s = s + np.exp(v - m)
            else:
                s, m = 1.0 + s * np.exp(m - v), v
        want.append(x[t::32].sum() + s + m + x[(4 * t) % 256] + x[(4 * t + 3) % 256])
    np.testing.assert_allclose(out, want, rtol=1e-6)
    # the shared accesses, at their lines: the fill, Walk's reads (one per next() < 256:
    # 8 per thread), and, as built, the two reads of v[k] the sum keeps (the 16-byte stride
    # puts 4 lanes in a bank: 4 wavefronts each)
    r = analyze(kernel)
    assert by_line(r) == [(56, "store", 4, 8, 8), (62, "load", 4, 8, 8), (64, "load", 4, 2, 8)]


SPECIALIZED = """
template<int V, int N> struct Pick;
template<int N> struct Pick<0, N> { int v; __device__ Pick() { v = N; } };
template<int N> struct Pick<2, N> { int v; __device__ Pick() { v = 2 * N; } };
__global__ void k(int* out) {
    Pick<%s, 5> p;
    out[threadIdx.x] = p.v;
}
"""


@pytest.mark.parametrize("version,value", [(0, 5), (2, 10)])
def test_the_partial_specialization_is_chosen_as_cpp_chooses_it(tmp_path, version, value):
    f = tmp_path / "k.cu"
    f.write_text(SPECIALIZED % version)
    kernel = import_kernels(str(f), Options(grid="1", block="4",
                                            lengths={"out": "4"}))["k"]()
    assert list(run(kernel)["out"]) == [value] * 4


@pytest.mark.parametrize("body,message", [
    ("Pick<1, 5> p; out[0] = p.v;", r"k\.cu:6: error: incomplete type \"Pick<1, 5>\""),
    ("Pick<0, 5> p; out[0] = p.w;", r"k\.cu:6: error: class \"Pick<0, 5>\" has no member "
                                    r"\"w\""),
    ("Pick<0, 5> p; out[0] = p;", r"k\.cu:6: error: no suitable conversion function from "
                                  r"\"Pick<0, 5>\" to \"int\""),
])
def test_what_nvcc_refuses_is_its_error_at_its_line(tmp_path, body, message):
    f = tmp_path / "k.cu"
    f.write_text(SPECIALIZED.replace("Pick<%s, 5> p;\n    out[threadIdx.x] = p.v;", body))
    with pytest.raises(KernelError, match=message):
        import_kernels(str(f), Options(grid="1", block="4", lengths={"out": "4"}))["k"]()


def test_a_struct_of_pointers_and_scalars_as_a_kernel_parameter():
    """tests/cuda/struct_params.cu: `reverse_rows(Params p)` with `const float* in; float*
    out; int n; float scale;`: the scalar fields are the parameters p_n and p_scale, the
    pointers the arrays p_in (read) and p_out (written, through a device function that takes
    the struct by value); the rows come back reversed and scaled."""
    kernel = import_kernels(str(HERE / "cuda" / "struct_params.cu"), Options(
        params={"p_n": 256, "p_scale": 2.0},
        lengths={"p_in": "4 * 256", "p_out": "4 * 256"}))["reverse_rows"]()
    assert [(g.name, g.intent) for g in kernel.globals] == [("p_in", "in"),
                                                            ("p_out", "out")]
    assert [p.name for p in kernel.params] == ["p_n", "p_scale"]
    x = np.arange(1024, dtype=np.float32)
    out = run(kernel, {}, {"p_in": x})["p_out"]
    assert np.array_equal(out, 2 * x.reshape(4, 256)[:, ::-1].ravel())


def test_post_increment_as_a_value(tmp_path):
    """`return st++;` (fast.cu's Schedule<0>) and `e = d++` give the value before; `++x`
    the value after."""
    f = tmp_path / "k.cu"
    f.write_text("struct C { int st; __device__ int next() { return st++; } };\n"
                 "__global__ void k(int* out) {\n"
                 "    C c{7};\n"
                 "    int a = c.next();\n"
                 "    int b = ++c.st;\n"
                 "    int d = 1, e = d++;\n"
                 "    out[threadIdx.x] = a * 100 + b * 10 + c.st + 1000 * (d * 10 + e);\n"
                 "}\n")
    kernel = import_kernels(str(f), Options(grid="1", block="2",
                                            lengths={"out": "2"}))["k"]()
    assert list(run(kernel)["out"]) == [21799, 21799]


def test_llm_c_online_softmax_reduces_a_struct_over_the_warp():
    """llm.c's softmax_forward_online_kernel2: a SumMax per lane, folded over the row, then
    cg::reduce(warp, sm_partial, reduce_sum_max_op) (each field shuffled, the function
    inlined at each of the 5 butterfly steps): out is the row's softmax."""
    n, c = 8, 100
    kernel = corpus_kernel("llm_c/softmax_forward.cu", "softmax_forward_online_kernel2",
                           params={"N": n, "C": c})
    x = np.random.default_rng(3).standard_normal((n, c)).astype(np.float32)
    out = run(kernel, {}, {"inp": x.ravel()})["out"].reshape(n, c)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_cuda_samples_binomial_options_reads_an_array_of_structs():
    """binomialOptions: `d_OptionData[blockIdx.x].S` of a `__constant__` array of a typedef'd
    struct of five floats is element 5b of a flat f32 array; the price is the backward
    induction numpy computes the same way (two options: two blocks)."""
    kernel = corpus_kernel("cuda_samples/binomialOptions_kernel.cu", "binomialOptionsKernel",
                           grid="2")
    table = np.zeros((1024, 5), np.float32)   # S, X, vDt, puByDf, pdByDf
    table[:2] = [[30, 25, 0.001, 0.4999, 0.4999], [20, 22, 0.002, 0.4999, 0.4999]]
    out = run(kernel, {}, {"d_OptionData": table.ravel()})["d_CallValue"]
    steps = 2048
    for b, (s, x, vdt, pu, pd) in enumerate(table[:2]):
        i = np.arange(steps + 1, dtype=np.float32)
        call = np.maximum(s * np.exp(vdt * (2 * i - steps)).astype(np.float32) - x,
                          0).astype(np.float32)
        for _ in range(steps):
            call = (pu * call[1:] + pd * call[:-1]).astype(np.float32)
        np.testing.assert_allclose(out[b], call[0], rtol=1e-4)


def fast6(m: int, n: int, k: int):
    opts = Options(defines={"bf16": "__nv_bfloat16"}, params={"M": m, "N": n, "K": k},
                   lengths={"C": "M * N"}, grid="128", block="384", smem="147456",
                   kernel="matmulKernel6<128, 256, 64, 384, 3, 128>",
                   tensor_maps={"tensorMapA": "A bf16[M][K] box[128][64] 128B",
                                "tensorMapB": "B bf16[N][K] box[256][64] 128B"})
    return next(iter(import_kernels(str(CORPUS / "fast_cu" / "matmul_6.cuh"),
                                    opts).values()))()


def test_fast_cu_kernel6_schedules_every_tile_once():
    """fast.cu's kernel 6: 128 persistent blocks take tiles from `Schedule<1, 128, 128, 256,
    16, 8>` (a partial specialization with a constructor and next()); at 2048 x 2048 x 64
    the product is A B^T and check is silent; at 8192^3 the counts are kernel 5's (2,048
    tiles x 128 K steps: each tile visited once)."""
    from tests.test_cuda_hopper import assert_kernel5_counts_at_8192, assert_persistent_product
    assert_persistent_product(fast6)
    assert_kernel5_counts_at_8192(analyze(fast6(8192, 8192, 8192)))


def test_llm_c_layernorm_kernel6_moves_x128_through_shared_memory():
    """llm.c's layernorm_forward_kernel6: `x128* s_in = reinterpret_cast<x128*>(params) + k`
    over `extern __shared__ char params[]`, `s_in[i] = load128cs(inp + c)` (int4 loaded
    from floats, memcpy'd into the payload: bits kept), `x128 w = s_weight[i]`,
    `store128cs(out + c, out_data)` (get_bits() back to an int4): out is the layernorm; each
    shared access of an alignas(16) Packed128<float> is one 16-byte access (STS.128/LDS.128:
    a warp's 512 bytes in 4 wavefronts), counted by hand at N = 8192, C = 768."""
    n, c = 16, 768
    kernel = corpus_kernel("llm_c/layernorm_forward.cu", "layernorm_forward_kernel6",
                           params={"N": n, "C": c})
    rng = np.random.default_rng(5)
    x = rng.standard_normal((n, c)).astype(np.float32)
    w, b = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    got = run(kernel, {}, {"inp": x.ravel(), "weight": w, "bias": b})
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got["out"].reshape(n, c), (x - mean) * rstd * w + b,
                               atol=2e-6)
    np.testing.assert_allclose(got["rstd"], rstd.ravel(), rtol=1e-6)
    r = analyze(corpus_kernel("llm_c/layernorm_forward.cu", "layernorm_forward_kernel6"))
    # 1,024 blocks of 8 warps; the weights: 192 threads (6 warps) x 1 iteration, twice;
    # each warp's row: 768 / 128 = 6 iterations, a store then three passes of loads
    warps_fill, warps_rows = 1024 * 6, 1024 * 8 * 6
    assert [(op, line, width, requests, wavefronts) for line, op, width, requests, wavefronts
            in by_line(r)] == [
        ("store", 359, 16, warps_fill, 4 * warps_fill),
        ("store", 360, 16, warps_fill, 4 * warps_fill),
        ("store", 378, 16, warps_rows, 4 * warps_rows),
        ("load", 386, 16, warps_rows, 4 * warps_rows),
        ("load", 396, 16, warps_rows, 4 * warps_rows),
        ("load", 397, 16, warps_rows, 4 * warps_rows),
        ("load", 398, 16, warps_rows, 4 * warps_rows)]


def test_llm_c_encoder_kernel3_moves_bf16_x128_through_int4_bits():
    """llm.c's encoder_forward_kernel3 (ENABLE_BF16: x128 is Packed128<__nv_bfloat16>, 8
    elements): load128cs reads 16 bytes of bf16 as an int4, memcpy'd into bf16[8] (each word
    two elements, low half first), and store128 writes get_bits() back: out is wte + wpe,
    rounded to bf16, bit for bit."""
    b, t, c = 2, 4, 768
    kernel = corpus_kernel("llm_c/encoder_forward.cu", "encoder_forward_kernel3",
                           params={"B": b, "T": t, "C": c})
    rng = np.random.default_rng(2)
    inp = rng.integers(0, 50257, b * t).astype(np.int32)
    wte = to_storage(rng.standard_normal(50257 * c).astype(np.float32), bf16)
    wpe = to_storage(rng.standard_normal(1024 * c).astype(np.float32), bf16)
    out = run(kernel, {}, {"inp": inp, "wte": wte, "wpe": wpe})["out"]
    table, position = from_storage(wte, bf16).reshape(50257, c), \
        from_storage(wpe, bf16).reshape(1024, c)
    want = np.stack([table[inp[i]] + position[i % t] for i in range(b * t)]).ravel()
    assert np.array_equal(out, to_storage(want.astype(np.float32), bf16))


def test_llm_c_bf16_x128_in_shared_memory_and_the_authors_8_way_conflict():
    """Two more llm.c kernels with ENABLE_BF16, counted by hand. fused_residual_forward
    kernel 5 (N = 8192, C = 768, blocks of 32 x 8): an x128 of 8 bf16 in shared memory is one
    16-byte access (4 wavefronts a warp); the weights by 3 warps of each of 1,024 blocks, the
    rows by all 8 warps, 3 iterations each. matmul_backward_bias kernel 7 (OC = 3072, a
    12 x 44 grid of 32 x 16 blocks): `shared[local_oc + threadIdx.y] = tmp` with local_oc =
    8 * threadIdx.x is the "8-way bank conflict for BF16 x128, but only 8x per threadblock"
    its author's comment announces (8 of the 16 warps store, 8 wavefronts each)."""
    r = analyze(corpus_kernel("llm_c/fused_residual_forward.cu",
                              "fused_residual_forward_kernel5"))
    fill, rows = 1024 * 3, 1024 * 8 * 3
    assert [(op, line, width, requests, wavefronts) for line, op, width, requests, wavefronts
            in by_line(r)] == [
        ("store", 294, 16, fill, 4 * fill), ("store", 295, 16, fill, 4 * fill),
        ("store", 319, 16, rows, 4 * rows), ("load", 327, 16, rows, 4 * rows),
        ("load", 337, 16, rows, 4 * rows), ("load", 338, 16, rows, 4 * rows),
        ("load", 339, 16, rows, 4 * rows)]
    r = analyze(corpus_kernel("llm_c/matmul_backward_bias.cu", "matmul_backward_bias_kernel7"))
    (reorder,) = [x for x in by_line(r) if x[0] == 265]
    blocks = 12 * 44
    assert (reorder[1], reorder[3], reorder[4]) == ("store", blocks * 8, blocks * 8 * 8)


def test_llm_c_fused_classifier_returns_softmax_params_by_value():
    """llm.c's fused_classifier_kernel4: `SoftmaxParams sp = prepare_softmax_blockwide2(...)`
    (a struct returned as `SoftmaxParams{1.f / block_sumval, block_maxval}`), int64_t
    indices, x128 reads with a bounds `continue` past V: the losses and dlogits numpy gives
    (V = 100, not a multiple of the 4 floats an x128 holds)."""
    b, t, v, p = 1, 4, 100, 128
    kernel = corpus_kernel("llm_c/classifier_fused.cu", "fused_classifier_kernel4",
                           params={"B": b, "T": t, "V": v, "P": p})
    rng = np.random.default_rng(0)
    logits = rng.standard_normal(b * t * p).astype(np.float32)
    targets = rng.integers(0, v, b * t).astype(np.int32)
    got = run(kernel, {}, {"logits": logits, "targets": targets,
                           "dlosses": np.full(b * t, 0.25, np.float32)})
    rows = logits.reshape(b * t, p)[:, :v].astype(np.float64)
    prob = np.exp(rows - rows.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got["losses"], -np.log(prob[np.arange(b * t), targets]),
                               rtol=1e-5)
    np.testing.assert_allclose(got["dlogits"].reshape(b * t, p)[:, :v],
                               (prob - np.eye(v)[targets]) * 0.25, atol=1e-7)


def test_a_shared_array_of_structs_of_two_field_types():
    """tests/cuda/struct_pairs.cu: `__shared__ Pair best[256]` of {float v; int i;} is 2,048
    bytes; nvcc stores a pair {v, i} as one 8-byte access (2 wavefronts a warp) and reads
    `best[t].v` as 4 bytes at 8t; the argmax of each block comes out."""
    kernel = import_kernels(str(HERE / "cuda" / "struct_pairs.cu"),
                            Options(lengths={"in": "1024", "out": "4"}))["argmax"]()
    assert kernel.static_smem == 256 * 8
    x = np.random.default_rng(1).standard_normal(1024).astype(np.float32)
    assert list(run(kernel, {}, {"in": x})["out"]) == list(x.reshape(4, 256).argmax(axis=1))
    sites = analyze(kernel).sites
    assert [(s.array, s.op, s.loc.line, s.width, s.requests, s.wavefronts)
            for s in sites[:2]] == [("best", "store", 11, 8, 32, 64),
                                    ("best_f32", "load", 15, 4, 16, 32)]


BITS = (HERE / "cuda" / "struct_bits.cu").read_text()


def test_memcpy_and_the_bit_cast_intrinsics_keep_the_bits(tmp_path):
    """memcpy from a struct of two floats into an int2 (a device function that returns a
    vector through statements), __float_as_int, __int_as_float: numpy's view of the same
    bytes; an 8-byte aligned struct of two floats moves as one 8-byte access."""
    f = tmp_path / "k.cu"
    f.write_text(BITS)
    kernel = import_kernels(str(f), Options(grid="1", block="32", lengths={
        "in": "64", "out": "64", "back": "32"}))["k"]()
    x = np.array([-1.5, 2.0, np.inf, -0.0] * 16, dtype=np.float32)
    got = run(kernel, {}, {"in": x})
    y = np.roll(x.reshape(32, 2), -1, axis=0)
    assert np.array_equal(got["out"].reshape(32, 2), y.view(np.int32))
    assert np.array_equal(got["back"].view(np.int32), y[:, 0].view(np.int32))
    r = analyze(kernel)
    assert [(s.op, s.width, s.requests, s.wavefronts) for s in r.sites] == [
        ("store", 8, 1, 2), ("load", 8, 1, 2)]


def test_bitcast_prints_as_cuda_and_round_trips_through_a_kernels_file(tmp_path):
    """The IR's bitcast prints as CUDA's intrinsics, and `import -o`'s kernels file of the
    memcpy kernel builds the same kernel (the same counts and bits)."""
    from kernels_ir import bitcast, const, f32, i32
    from kernels_ir.printer import format_expr
    from kernels_ir.pysource import kernels_file
    from smemsim.frontends.loader import load_kernels
    e = bitcast(bitcast(const(-1.5, f32), i32) ^ 1, f32)
    assert format_expr(e) == "__int_as_float(__float_as_int(-1.5f) ^ 1)"
    f = tmp_path / "k.cu"
    f.write_text(BITS)
    kernel = import_kernels(str(f), Options(grid="1", block="32", lengths={
        "in": "64", "out": "64", "back": "32"}))["k"]()
    (tmp_path / "imported.py").write_text(kernels_file({"k": kernel}, str(tmp_path), "test"))
    again = load_kernels(str(tmp_path / "imported.py"))["k"]()
    x = np.array([-1.5, 2.0, np.inf, -0.0] * 16, dtype=np.float32)
    first, second = run(kernel, {}, {"in": x}), run(again, {}, {"in": x})
    assert all(np.array_equal(first[k].view(np.int32), second[k].view(np.int32))
               for k in ("out", "back"))
    assert [(s.op, s.requests, s.wavefronts) for s in analyze(again).sites] == \
        [(s.op, s.requests, s.wavefronts) for s in analyze(kernel).sites]


def gpu_cases():
    """The struct kernels above at small sizes, for the GPU checks."""
    bits = HERE / "cuda" / "struct_bits.cu"
    return {
        "struct_values": lambda: import_kernels(
            str(HERE / "cuda" / "struct_values.cu"),
            Options(lengths={"in": "256", "out": "32"}))["k"](),
        "struct_bits": lambda: import_kernels(str(bits), Options(
            grid="1", block="32", lengths={"in": "64", "out": "64", "back": "32"}))["k"](),
        "layernorm6": lambda: corpus_kernel("llm_c/layernorm_forward.cu",
                                            "layernorm_forward_kernel6",
                                            params={"N": 16, "C": 768}),
        "softmax_online2": lambda: corpus_kernel("llm_c/softmax_forward.cu",
                                                 "softmax_forward_online_kernel2",
                                                 params={"N": 8, "C": 100}),
        "binomial": lambda: corpus_kernel("cuda_samples/binomialOptions_kernel.cu",
                                          "binomialOptionsKernel", grid="2"),
        "encoder3": lambda: corpus_kernel("llm_c/encoder_forward.cu", "encoder_forward_kernel3",
                                          params={"B": 2, "T": 4, "C": 768},
                                          lengths={"out": "B * T * C", "inp": "B * T",
                                                   "wte": "256 * C", "wpe": "T * C"}),
        "classifier4": lambda: corpus_kernel("llm_c/classifier_fused.cu",
                                             "fused_classifier_kernel4",
                                             params={"B": 1, "T": 4, "V": 300, "P": 320}),
        "struct_pairs": lambda: import_kernels(str(HERE / "cuda" / "struct_pairs.cu"), Options(
            lengths={"in": "1024", "out": "4"}))["argmax"](),
        "struct_params": lambda: import_kernels(str(HERE / "cuda" / "struct_params.cu"), Options(
            params={"p_n": 256, "p_scale": 2.0},
            lengths={"p_in": "4 * 256", "p_out": "4 * 256"}))["reverse_rows"](),
    }


# layernorm6 is left out: its regenerated CUDA indexes a float view (`params_as_f32[C / 4 * 4
# + ...]`) where the user's code steps an x128*, and NVRTC, unable to prove 16-byte alignment
# in a peeled copy of the loop, emits two STS.64 there; `--as-compiled` of the .cu counts the
# user's own build instead (docs/importer.md)
# struct_pairs too: NVRTC merges its two 4-byte fields into 8-byte accesses, as nvcc does
# on the user's file (the test above); struct_values: NVRTC unrolls the fill loop the PTX
# kept (five 4-byte STS for its one store, which the check reads as a loop it cannot see)
@pytest.mark.parametrize("case", [c for c in gpu_cases() if c not in ("layernorm6",
                                                                       "struct_pairs",
                                                                       "struct_values")])
def test_the_generated_cuda_compiles_with_the_stated_widths(case):
    """Each struct kernel's generated CUDA (bitcasts as __int_as_float/__float_as_int, a
    struct's 8-byte accesses as float2) builds with NVRTC, and every site's instruction has
    the width the IR states."""
    from tests.conftest import require_nvrtc
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    c = compile_kernel(gpu_cases()[case](), "sm_90")
    assert c.widths_ok, [s.describe() for s in c.sites if not s.ok] + list(c.unattributed)


@pytest.mark.gpu
@pytest.mark.parametrize("case", list(gpu_cases()))
def test_struct_kernels_compute_on_the_gpu_as_the_interpreter_does(case):
    from gpu_backend.device import gpu_unavailable, run_on_gpu
    reason = gpu_unavailable()
    if reason:
        pytest.skip(f"needs a GPU: {reason}")
    run = run_on_gpu(gpu_cases()[case]())
    assert run.matches, run.mismatches


def _layernorm_backward(k: int, b: int = 2, t: int = 64, c: int = 768):
    """llm.c's layernorm_backward kernel k (7-10) at B x T x C, 8 blocks of 512 threads, the
    dynamic bytes its launcher asks for; dbias/dweight start at zero (8-10 add to them)."""
    smem = {7: (2 * c + 1) * 4, 8: (2 * c + 1) * 4, 9: (2 * c + 2 * 512 + 1) * 4,
            10: (2 * c + 2 * (512 - 32) * 4) * 4}[k]
    return corpus_kernel("llm_c/layernorm_backward.cu", f"layernorm_backward_kernel{k}",
                         grid="8", block="512", smem=str(smem),
                         params={"B": b, "T": t, "C": c},
                         lengths={"dinp": "B * T * C", "dweight": "C", "dbias": "C",
                                  "scratch": "(2 * C + 1) * 9", "dout": "B * T * C",
                                  "inp": "B * T * C", "weight": "C", "mean": "B * T",
                                  "rstd": "B * T"})


@pytest.mark.parametrize("k", [7, 8, 9, 10])
def test_llm_c_layernorm_backward_counts_blocks_through_a_view_of_its_scratch(k):
    """llm.c's layernorm_backward kernels 7-10 count finished blocks with an atomic on
    `(unsigned int*)(scratch + 2 * C)` (or `scratch` itself), a global float array read as
    unsigned ints (a view of its bytes: it was refused); the last block writes dbias and
    dweight. The gradients are layernorm's (bf16: within a rounding of the largest)."""
    b, t, c = 2, 64, 768
    kernel = _layernorm_backward(k, b, t, c)
    rng = np.random.default_rng(0)
    q = lambda a: from_storage(to_storage(a.astype(np.float32), bf16), bf16)
    inp, dout, w = q(rng.standard_normal((b * t, c))), q(rng.standard_normal((b * t, c))), \
        q(rng.standard_normal(c))
    mean, rstd = q(inp.mean(1)), q(1 / np.sqrt(inp.var(1) + 1e-5))
    zeros = lambda n: to_storage(np.zeros(n, np.float32), bf16)
    out = run(kernel, {}, {"inp": to_storage(inp.ravel(), bf16),
                           "dout": to_storage(dout.ravel(), bf16), "weight": to_storage(w, bf16),
                           "mean": to_storage(mean, bf16), "rstd": to_storage(rstd, bf16),
                           "dinp": zeros(b * t * c), "dbias": zeros(c), "dweight": zeros(c),
                           "scratch": np.zeros((2 * c + 1) * 9, np.float32)})
    norm = (inp - mean[:, None]) * rstd[:, None]
    dnorm = w * dout
    dinp = (dnorm - dnorm.mean(1, keepdims=True) -
            norm * (dnorm * norm).mean(1, keepdims=True)) * rstd[:, None]
    for got, want in ((out["dinp"], dinp), (out["dbias"], dout.sum(0)),
                      (out["dweight"], (norm * dout).sum(0))):
        got = from_storage(got, bf16).reshape(want.shape)
        assert np.abs(got - want).max() <= 2 ** -7 * max(1.0, np.abs(want).max())
    views = kernel.global_views   # (of the byte arrays, one per type the build reads)
    assert ("scratch", "u32") in [(v.base.name, v.dtype.name) for v in views]


def test_a_global_view_is_written_to_a_kernels_file_and_generated(tmp_path):
    from gpu_backend.codegen import generate
    from smemsim.frontends.loader import load_kernels
    from smemsim.frontends.ptx.frontend import write_kernels_file
    entry = dict(next(e for e in ENTRIES if e["kernel"] == "layernorm_backward_kernel7"))
    from tools.corpus_status import corpus_build
    import dataclasses
    build = corpus_build()
    opts = dataclasses.replace(options(entry), include_dirs=[
        *options(entry).include_dirs, *(str(CORPUS / d) for d in build["include"])])
    text, _ = write_kernels_file(str(CORPUS / entry["file"]), opts, entry["kernel"],
                                 str(tmp_path), flags=build["flags"])
    assert 'kb.global_view(scratch, "scratch_u32", "u32")' in text
    (tmp_path / "lnb.py").write_text(text)
    written = load_kernels(str(tmp_path / "lnb.py"))[entry["kernel"]]()
    assert [(s.requests, s.wavefronts) for s in analyze(written).sites] == \
        [(s.requests, s.wavefronts) for s in analyze(
            corpus_kernel(entry["file"], entry["kernel"])).sites]
    source = generate(written).source
    assert "unsigned char* scratch," in source   # read through views too: no __restrict__
    assert "unsigned int* scratch_u32 = reinterpret_cast<unsigned int*>(scratch);" in source


@pytest.mark.gpu
def test_layernorm_backward_on_the_gpu():
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(_layernorm_backward(7), {}, {"scratch": np.zeros(1537 * 9, np.float32),
                                                     "dbias": np.zeros(768, np.uint16),
                                                     "dweight": np.zeros(768, np.uint16)})
    assert result.matches, result.mismatches


# ---------------------------------------------------------------- structs of several types
AOS = HERE / "cuda" / "aos_structs.cu"
PARTICLE = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("kind", "<i4"),
                     ("mass", "<f8")])      # C++'s layout of Particle: 24 bytes


def _particles(n: int = 4096) -> np.ndarray:
    rng = np.random.default_rng(1)
    a = np.zeros(n, PARTICLE)
    for f in ("x", "y", "z", "mass"):
        a[f] = rng.random(n)
    a["kind"] = rng.integers(0, 8, n)
    return a


def test_structs_of_several_types_in_global_memory_are_their_bytes():
    """`Particle*` parameters (floats, an int and a double) are the structs' bytes: the
    kernels compute what C++ computes on them, field by field at C++'s offsets."""
    kernels = import_kernels(str(AOS))
    a = _particles()
    rev = kernels["reverse_tiles"]()
    assert [(g.name, g.dtype.name, g.declared.name) for g in rev.globals] == \
        [("in", "u8", "u8"), ("out", "u8", "u8"), ("counts", "u8", "i32")]
    out = run(rev, {}, {"in": a.view(np.uint8)})
    want = a.reshape(-1, 64)[:, ::-1].reshape(-1).copy()
    want["mass"] *= 2
    assert np.array_equal(out["out"].view(PARTICLE), want)
    hist = [np.bincount(a["kind"].reshape(-1, 64)[b] & 3, minlength=4) for b in range(64)]
    assert np.array_equal(out["counts"].reshape(-1, 4), np.stack(hist))
    got = run(kernels["gather"](), {}, {"p": a.view(np.uint8)})["out"]
    tiles = a.reshape(-1, 128)
    for i in (0, 77, 4095):
        tile = tiles[i // 128]
        same = tile["kind"] == a["kind"][i]
        acc = (tile["x"][same] * tile["mass"][same].astype(np.float32)).sum(dtype=np.float32)
        assert got[i] == pytest.approx(acc + a["y"][i], rel=1e-5)


def test_structs_of_several_types_cost_field_by_field():
    """The shared tile of 24-byte structs, as built: nvcc stores each struct as three
    8-byte accesses (x and y, z and kind, mass), 24 bytes apart a lane: 2 wavefronts a
    warp each, their ideal (the source's field-by-field 4-byte stores would have taken 2
    where 1 would do)."""
    report = analyze(import_kernels(str(AOS))["reverse_tiles"]())
    stores = [(s.width, s.requests, s.wavefronts, s.ideal)
              for s in report.sites if s.op == "store" and "tile" in s.array]
    assert stores == [(8, 128, 256, 256)] * 3


@pytest.mark.gpu
def test_structs_of_several_types_equal_ncu(tmp_path):
    """On the GPU: ncu's counters of aos_structs.cu's own build (its main zeroes the
    particles) equal the --as-compiled prediction on zeros."""
    from tests.test_original_build import _equal_ncu
    zeros = np.zeros(4096 * PARTICLE.itemsize, np.uint8)
    _equal_ncu(tmp_path, AOS, ("gather", "reverse_tiles"),
               lambda key: {"p" if key == "gather" else "in": zeros})


FIELDS = HERE / "cuda" / "struct_array_fields.cu"
KNODE = np.dtype([("location", "<i4"), ("indices", "<i4", (9,)), ("keys", "<i4", (9,)),
                  ("is_leaf", "u1"), ("num_keys", "<i4")], align=True)   # C++'s: 84 bytes


def test_array_fields_of_structs_in_global_memory():
    """`nodes[cur[b]].keys[t]` (b+tree's knode: int arrays and a one-byte bool, so its
    bytes) and `s[i].keys[j][k]` (a struct of ints with a 2-D array field) read the
    elements C++ reads."""
    kernels = import_kernels(str(FIELDS))
    find = kernels["find"]()
    nodes_g = next(g for g in find.globals if g.name == "nodes")
    assert (nodes_g.dtype.name, fold(nodes_g.length)) == ("u8", 64 * 84)
    rng = np.random.default_rng(0)
    nodes = np.zeros(64, KNODE)
    nodes["keys"] = np.sort(rng.integers(0, 100, (64, 9)), axis=1)
    nodes["indices"] = rng.integers(0, 50, (64, 9))
    nodes["num_keys"] = rng.integers(0, 9, 64)
    cur = rng.integers(0, 64, 16).astype(np.int64)
    want = rng.integers(0, 100, 16).astype(np.int32)
    out = run(find, {}, {"nodes": nodes.view(np.uint8), "cur": cur, "want": want,
                         "out": np.full(64, -1, np.int32)})["out"]
    expected = np.full(16, -1, np.int32)
    for b in range(16):
        keys = nodes["keys"][cur[b]]
        for t in range(8):
            s = 7 - t       # the thread whose hit thread t reads
            if keys[s] <= want[b] < keys[s + 1]:
                expected[b] = nodes["indices"][cur[b]][t] + nodes["num_keys"][0]
    assert np.array_equal(out[:16], expected) and (expected >= 0).sum() == 14
    same_dtype = np.dtype([("id", "<i4"), ("keys", "<i4", (4, 2))])
    s = np.zeros(8, same_dtype)
    s["id"], s["keys"] = np.arange(8) * 100, np.arange(64).reshape(8, 4, 2)
    got = run(kernels["same"](), {}, {"s": s.view(np.int32)})["out"]
    t = np.arange(64)
    assert np.array_equal(got, (s["keys"][t // 8, t % 4, t % 2] + s["id"][t // 8])[::-1])


NEI = np.dtype([("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("number", "<i4"),
                ("offset", "<i8")], align=True)
BOX = np.dtype([("x", "<i4"), ("y", "<i4"), ("z", "<i4"), ("number", "<i4"),
                ("offset", "<i8"), ("nn", "<i4"), ("nei", NEI, (26,))], align=True)


def test_an_array_of_structs_as_a_field():
    """lavaMD's `box[bx].nei[k - 1].number` (a box of 656 bytes holding 26 neighbours of 24
    bytes at byte 32): the neighbours' boxes read as C++ reads them, their particles
    staged through shared memory."""
    kernel = import_kernels(str(FIELDS))["boxes"]()
    assert BOX.itemsize == 656 and fold(kernel.globals[0].length) == 8 * 656
    rng = np.random.default_rng(3)
    box = np.zeros(8, BOX)
    box["offset"], box["nn"] = np.arange(8) * 64, [2, 0, 1, 3, 0, 0, 1, 2]
    box["nei"]["number"] = rng.integers(0, 8, (8, 26))
    rv = rng.random((512, 4))
    out = run(kernel, {}, {"box": box.view(np.uint8), "rv": rv.ravel()})["out"]
    want = np.zeros((8, 64))
    for bx in range(8):
        for k in range(1 + box["nn"][bx]):
            p = bx if k == 0 else box["nei"][bx][k - 1]["number"]
            tile = rv[box["offset"][p]:box["offset"][p] + 64]
            for j in range(64):
                want[bx] += tile[j, 0] * np.roll(tile[:, 1], -j)
    assert np.allclose(out.reshape(8, 64), want)


UNSET = HERE / "cuda" / "struct_pointers_unset.cu"
SMALL_BOX = np.dtype([("number", "<i4"), ("offset", "<i8"), ("nn", "<i4"),
                      ("nei", "<i4", (4,))], align=True)   # C++'s: 40 bytes


def test_struct_pointers_declared_without_a_value(tmp_path):
    """lavaMD's `FOUR_VECTOR* rA;` then `rA = &d_rv_gpu[first_i];` (and `rB = ...` inside
    the loop over neighbour boxes, `fA[tx].v += ...` through one): the pointers point where
    C++'s do, and a read before any assignment is a located fault (nvcc's trap)."""
    kernel = import_kernels(str(UNSET))["unset_pointers"]()
    assert SMALL_BOX.itemsize == 40 and fold(kernel.globals[0].length) == 8 * 40
    rng = np.random.default_rng(5)
    box = np.zeros(8, SMALL_BOX)
    box["offset"], box["nn"] = np.arange(8)[::-1] * 64, [2, 0, 1, 3, 0, 0, 1, 4]
    box["nei"] = rng.integers(0, 8, (8, 4))
    rv, qv, fv = rng.random((512, 4)), rng.random(512), rng.random((512, 4))
    out = run(kernel, {}, {"box": box.view(np.uint8), "rv": rv.ravel(), "qv": qv,
                           "fv": fv.ravel()})["fv"].reshape(512, 4)
    want = fv.copy()
    for bx in range(8):
        a = box["offset"][bx]
        for k in range(1 + box["nn"][bx]):
            b = box["offset"][bx if k == 0 else box["nei"][bx][k - 1]]
            for tx in range(64):
                want[a + tx, 0] += qv[b + (tx + k) % 64] * rv[a + tx, 1] * rv[b + (tx + 1) % 64,
                                                                            2]
    assert np.allclose(out, want) and not np.allclose(out, fv)
    early = UNSET.read_text().replace("    rA_shared[tx] = rA[tx];\n", "").replace(
        "    int first_i", "    rA_shared[tx] = rA[tx];\n    int first_i")
    path = tmp_path / "early.cu"
    path.write_text(early)
    # (a read through a pointer before any assignment is undefined: nvcc's build traps)
    with pytest.raises(KernelRuntimeError, match=r"early.cu:17:.*__trap\(\) stops the kernel"):
        run(import_kernels(str(path))["unset_pointers"](), {},
            {"box": box.view(np.uint8), "rv": rv.ravel(), "qv": qv, "fv": fv.ravel()})


POINTER_FIELDS = HERE / "cuda" / "struct_pointer_fields.cu"
POINT = np.dtype([("weight", "<f4"), ("coord", "<u8"), ("assign", "<i8"), ("cost", "<f4")],
                 align=True)   # C++'s: the pointer at byte 8, 32 bytes in all


def test_a_struct_with_a_pointer_field_in_global_memory(tmp_path):
    """streamcluster's Point (`float weight; float* coord; long assign; float cost;`): its
    other fields at C++'s offsets around the 8-byte pointer; the pointer itself, read from
    memory, is an address smemsim cannot follow: refused at its line."""
    kernel = import_kernels(str(POINTER_FIELDS))["point_costs"]()
    points = next(g for g in kernel.globals if g.name == "p")
    assert POINT.itemsize == 32 and fold(points.length) == 256 * 32
    rng = np.random.default_rng(7)
    p = np.zeros(256, POINT)
    p["weight"], p["cost"] = rng.random(256), rng.random(256)
    p["coord"], p["assign"] = 0xDEADBEEF, rng.integers(0, 256, 256)
    x, table = rng.random(256).astype(np.float32), rng.integers(-9, 9, 256).astype(np.int32)
    out = run(kernel, {}, {"p": p.view(np.uint8), "x": x, "table": table})["lower"]
    cost = (x * p["weight"]).astype(np.float32)
    mine = np.where(cost < p["cost"], cost - p["cost"],
                    p["cost"] - cost + table[p["assign"]]).astype(np.float32)
    mine[250:] = 0
    want = mine + mine.reshape(4, 64)[:, (np.arange(64) + 1) % 64].ravel()
    assert np.allclose(out[:250], want[:250])
    source = POINTER_FIELDS.read_text()
    path = tmp_path / "bad.cu"
    path.write_text(source.replace("mine = x_cost - p[tid].cost;", "mine = p[tid].coord[0];"))
    with pytest.raises(KernelError, match=r"bad.cu:18:13(, `[^`]*`)?: .*a conversion of a number smemsim "
                                          r"cannot follow"):
        import_kernels(str(path))["point_costs"]()


@pytest.mark.gpu
def test_pointer_fields_equal_ncu(tmp_path):
    """On the GPU: ncu's counters of struct_pointer_fields.cu's own build (all zeros) equal
    --as-compiled on zeros."""
    from tests.test_original_build import _equal_ncu
    zeros = {"p": np.zeros(256 * 32, np.uint8), "x": np.zeros(256, np.float32),
             "table": np.zeros(256, np.int32)}
    _equal_ncu(tmp_path, POINTER_FIELDS, ("point_costs",), lambda key: zeros)


@pytest.mark.gpu
def test_unset_struct_pointers_equal_ncu(tmp_path):
    """On the GPU: ncu's counters of struct_pointers_unset.cu's own build (all zeros) equal
    --as-compiled on zeros."""
    from tests.test_original_build import _equal_ncu
    zeros = {"box": np.zeros(8 * 40, np.uint8), "rv": np.zeros(2048), "qv": np.zeros(512),
             "fv": np.zeros(2048)}
    _equal_ncu(tmp_path, UNSET, ("unset_pointers",), lambda key: zeros)


@pytest.mark.gpu
def test_array_fields_equal_ncu(tmp_path):
    """On the GPU: ncu's counters of struct_array_fields.cu's own build (all zeros) equal
    --as-compiled on zeros."""
    from tests.test_original_build import _equal_ncu
    zeros = {"find": {"nodes": np.zeros(64 * 84, np.uint8), "cur": np.zeros(16, np.int64),
                      "want": np.zeros(16, np.int32)},
             "same": {"s": np.zeros(8 * 9, np.int32)},
             "boxes": {"box": np.zeros(8 * 656, np.uint8), "rv": np.zeros(2048)}}
    _equal_ncu(tmp_path, FIELDS, ("find", "same", "boxes"), zeros.get)


def test_an_empty_struct_in_memory_is_a_located_error(tmp_path):
    """A struct with no fields as a kernel's array (the fuzz made one by moving a struct's
    fields out of it): a located error, where it was a division by zero inside."""
    f = tmp_path / "empty.cu"
    f.write_text("struct Empty {};\n"
                 "__global__ void k(const Empty* e, int* out) {\n"
                 "    __shared__ int s[32];\n"
                 "    s[threadIdx.x] = 1;\n"
                 "    out[threadIdx.x] = s[31 - threadIdx.x];\n"
                 "}\n"
                 "int main() { Empty* e; int* o; cudaMalloc(&e, 32); k<<<1, 32>>>(e, o); }\n")
    with pytest.raises(KernelError, match=r"empty.cu:2:\d+.*Empty has no fields"):
        import_kernels(str(f))["k"]()

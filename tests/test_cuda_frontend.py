"""The CUDA frontend on C++ as kernels use it (device functions, templates, pointers,
cooperative groups, C's evaluation order), and the promise that nothing a file says runs:
file names, -D values and --param text are data (#24, #25)."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA frontend needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import KernelRuntimeError, resolve_launch  # noqa: E402
from smemsim import analyze  # noqa: E402
from kernels_ir import KernelError
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import by_line, import_kernels, run
from tests.test_cli import cli_streams  # noqa: E402


def kernels(tmp_path, source, options=None, name="k.cu"):
    f = tmp_path / name
    f.write_text(source)
    return {key: make() for key, make in import_kernels(str(f), options).items()}


def only(tmp_path, source, options=None):
    return next(iter(kernels(tmp_path, source, options).values()))


DEVICE_FUNCTIONS = """
__device__ __forceinline__ float twice(float x) { return 2.0f * x; }
template <typename T> __device__ T add3(T a, T b, T c) { return a + b + c; }
__device__ void store(float* dst, int i, float v) { dst[i] = v; }
__device__ void bump(int& counter) { counter += 1; }
__global__ void k(const float* in, float* out) {
    __shared__ float s[64];
    int n = 0;
    bump(n);
    store(s, threadIdx.x, twice(in[threadIdx.x]));
    __syncthreads();
    out[threadIdx.x] = add3(s[threadIdx.x], s[63 - threadIdx.x], (float)n);
}
void host(const float* in, float* out) { k<<<1, 64>>>(in, out); }
"""


def test_device_functions_are_inlined_with_value_pointer_and_reference_parameters(tmp_path):
    kernel = only(tmp_path, DEVICE_FUNCTIONS,
                  Options(lengths={"in": "64", "out": "64"}))
    x = np.arange(64, dtype=np.float32)
    out = run(kernel, arrays={"in": x})["out"]
    np.testing.assert_array_equal(out, 2 * x + 2 * x[::-1] + 1)
    # the store through the pointer parameter is a site of s, at the callee's line
    r = analyze(kernel)
    assert [(s.array, s.op, s.loc.line) for s in r.sites] == [
        ("s", "store", 4), ("s", "load", 12), ("s", "load", 12)]
    # `s` is stored through the callee's pointer; `out` only written (out: no instruction
    # of the build reads it), `in` only read
    assert {g.name: g.intent for g in kernel.globals} == {"in": "in", "out": "out"}


def test_template_kernels_from_their_launches_defaults_and_the_kernel_option(tmp_path):
    source = """
template <int N = 128, typename T = float>
__global__ void fill(T* out) {
    __shared__ T s[N];
    s[threadIdx.x] = (T)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[N - 1 - threadIdx.x];
}
void host(float* a) { fill<64><<<1, 64>>>(a); fill<32, float><<<1, 32>>>(a); }
"""
    found = kernels(tmp_path, source, Options(lengths={"out": "128"}))
    assert sorted(found) == ["fill<32, float>", "fill<64>"]
    assert found["fill<64>"].shared[0].shape == (64 * 4,)   # (the window's bytes)
    assert resolve_launch(found["fill<32, float>"]).block == (32, 1, 1)
    named = kernels(tmp_path, source, Options(kernel="fill<16>", grid="1", block="16",
                                              lengths={"out": "16"}))
    assert list(named) == ["fill<16>"] and named["fill<16>"].shared[0].shape == (16 * 4,)


def test_pointer_locals_arithmetic_and_moved_parameters(tmp_path):
    """`A += off` on a parameter, `const float* row = x + r * n`, `p++`, `*p`, `&a[i][j]`,
    and writes through a local pointer make the array an output."""
    kernel = only(tmp_path, """
__global__ void k(const float* A, float* C, int n) {
    __shared__ float tile[4][8];
    A += blockIdx.x * n;
    const float* row = A + threadIdx.y * 8;
    float* t = &tile[threadIdx.y][0];
    t[threadIdx.x] = row[threadIdx.x];
    __syncthreads();
    float* c = C + blockIdx.x * 32;
    float v = *(t + 7 - threadIdx.x);
    c += threadIdx.y * 8;
    c[threadIdx.x] = v;
}
void host(const float* a, float* c) { k<<<2, dim3(8, 4)>>>(a, c, 32); }
""", Options(lengths={"A": "64", "C": "64"}))
    assert {g.name: g.intent for g in kernel.globals} == {"A": "in", "C": "out"}
    x = np.arange(64, dtype=np.float32)
    out = run(kernel, arrays={"A": x})["C"]
    expected = x.reshape(2, 4, 8)[:, :, ::-1].reshape(64)
    np.testing.assert_array_equal(out, expected)


def test_block_scopes_shadow_without_changing_the_outer_name(tmp_path):
    """The old importer let `{ int i = ...; }` change later reads of the outer i."""
    kernel = only(tmp_path, """
__global__ void k(int* out) {
    int i = 5;
    { int i = 7; out[threadIdx.x + 32] = i; }
    for (int i = 0; i < 2; i++) { out[threadIdx.x + 64] = i; }
    out[threadIdx.x] = i;
}
void host(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "96"}))
    out = run(kernel)["out"]
    assert (out[:32] == 5).all() and (out[32:64] == 7).all() and (out[64:] == 1).all()


def test_the_conditional_and_short_circuit_evaluate_only_what_c_evaluates(tmp_path):
    """`(lane + 1 < 32) ? s[lane + 1] : 0` and `lane + 1 < 32 && s[lane + 1] > 2` never
    read s[32] (the old importer reported a false out-of-bounds fault)."""
    kernel = only(tmp_path, """
__global__ void k(const float* in, float* out) {
    __shared__ float s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane];
    __syncthreads();
    float v = (lane + 1 < 32) ? s[lane + 1] : 0.0f;
    int ok = lane + 1 < 32 && s[lane + 1] > 2.0f;
    out[lane] = v + ok;
}
void host(const float* i, float* o) { k<<<1, 32>>>(i, o); }
""", Options(lengths={"in": "32", "out": "32"}))
    x = np.arange(32, dtype=np.float32)
    out = run(kernel, arrays={"in": x})["out"]
    shifted = np.append(x[1:], 0)
    np.testing.assert_array_equal(out, shifted + ((np.arange(32) < 31) & (shifted > 2)))
    r = analyze(kernel)   # (nvcc reads s[lane + 1] once for both)
    assert [s.requests for s in r.sites] == [1, 1]


def test_cooperative_groups_tiles_reduce_and_sync(tmp_path):
    kernel = only(tmp_path, """
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void red(const float* in, float* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float partial[32];
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        float s = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0.0f;
        for (int o = 16; o > 0; o /= 2) s += warp.shfl_down(s, o);
        if (block.thread_rank() == 0) out[blockIdx.x] = s;
    }
}
void host(const float* i, float* o, int n) { red<<<n / 256, 256>>>(i, o, n); }
""", Options(params={"n": 2048}, lengths={"in": "n", "out": "n / 256"}))
    x = np.arange(2048, dtype=np.float32) % 7
    out = run(kernel, arrays={"in": x})["out"]
    np.testing.assert_allclose(out, x.reshape(8, 256).sum(axis=1))
    r = analyze(kernel)
    assert [(s.op, s.requests) for s in r.sites] == [("store", 8 * 8), ("load", 8)]


def test_launch_literals_and_host_constants_become_parameter_values(tmp_path):
    kernel = only(tmp_path, """
const int N = 1 << 10;
__global__ void k(float* out, int n, int m) { out[threadIdx.x] = n + m; }
int main() { float* o; const int M = N / 4; k<<<N / 256, 256>>>(o, N, M); }
""")
    assert kernel.defaults == {"n": 1024, "m": 256}
    assert resolve_launch(kernel).grid == (4, 1, 1)


def test_const_locals_are_compile_time_constants(tmp_path):
    kernel = only(tmp_path, """
template <int BM> __global__ void k(float* out) {
    const int extra = 5;
    constexpr unsigned W = BM / 4;
    __shared__ float s[W * (BM + extra)];
    s[threadIdx.x] = 1.0f;
    out[threadIdx.x] = s[threadIdx.x];
}
void host(float* o) { k<16><<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    assert kernel.shared[0].shape == (4 * 21 * 4,)   # (bytes)


@pytest.mark.parametrize("body, message", [
    ("__shared__ float s[1 << (1 << 20)];", r"k\.cu:2: error: zero-sized variable \"s\""),
    ("int x = " + "(" * 3000 + "1" + ")" * 3000 + ";", r"nests expressions or statements "
                                                         r"too deeply"),
])
def test_what_cannot_be_read_is_one_located_error(tmp_path, body, message):
    with pytest.raises(KernelError, match=message):
        kernels(tmp_path, "__global__ void k(float* out) {\n    " + body + "\n}\n"
                          "void h(float* o) { k<<<1, 32>>>(o); }\n")


# ------------------------------------------------------------------ nothing a file says runs

EVIL = '__import__("pathlib").Path("PWNED").touch()'
NAMES = ['quote"; ' + EVIL + ' #.cu', "newline\n" + EVIL + "\n.cu", "back\\slash'.cu"]


@pytest.mark.parametrize("name", NAMES)
def test_a_file_name_never_becomes_code(tmp_path, monkeypatch, name):
    """analyze, check and import of a .cu whose name holds Python; then the kernels file
    `import -o` wrote is itself run (it is Python a user runs): nothing of the name runs."""
    monkeypatch.chdir(tmp_path)
    cu = tmp_path / name
    cu.write_text("__global__ void k(float* out) {\n    __shared__ float s[32];\n"
                  "    s[threadIdx.x] = 1.0f;\n    __syncthreads();\n"
                  "    out[threadIdx.x] = s[31 - threadIdx.x];\n}\n"
                  "void h(float* o) { k<<<1, 32>>>(o); }\n")
    for verb in ("analyze", "check"):
        code, out, err = cli_streams(verb, str(cu), "--length", "out=32")
        assert code == 0, err
    code, out, err = cli_streams("import", str(cu), "--length", "out=32", "-o",
                                 str(tmp_path / "written.py"))
    assert code == 0, err
    code, out, err = cli_streams("analyze", str(tmp_path / "written.py"), "--json")
    assert code == 0, err
    site = json.loads(out)["results"][0]["sites"][0]
    # a name a `# FILE.cu:N` marker cannot hold is written escaped in a comment, and the
    # written file's own line is reported
    assert site["file"].endswith("written.py")
    written = (tmp_path / "written.py").read_text()
    assert all(line.lstrip().startswith("#") or line.index("#") < line.index("__import__")
               for line in written.splitlines() if "__import__" in line)  # in comments only
    assert not (tmp_path / "PWNED").exists()


def test_param_and_define_text_is_never_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k(float* out, int n) {\n"
                  "    __shared__ float s[TILE];\n    s[threadIdx.x % n] = 1.0f;\n}\n")
    code, out, err = cli_streams("import", str(cu), "--launch-grid", "1", "--launch-block",
                                 "32", "-D", "TILE=32", "--param", f"n={EVIL}")
    assert code == 2 and f"--param n: {EVIL!r} is not a number" in err
    code, out, err = cli_streams("analyze", str(cu), "--launch-grid", "1", "--launch-block",
                                 "32", "-D", f"TILE={EVIL}", "--param", "n=32")
    assert code == 2 and "k.cu:2:" in err
    code, out, err = cli_streams("analyze", str(cu), "--launch-grid", EVIL,
                                 "--launch-block", "32", "-D", "TILE=32", "--param", "n=32")
    assert code == 2 and "--launch-grid" in err
    assert not (tmp_path / "PWNED").exists()


def test_import_refuses_to_overwrite_its_input(tmp_path):
    cu = tmp_path / "k.cu"
    source = "__global__ void k(float* o) { o[0] = 1.0f; }\nvoid h(float* o) { k<<<1, 1>>>(o); }\n"
    cu.write_text(source)
    for target in (cu, tmp_path / "other.cu"):
        code, out, err = cli_streams("import", str(cu), "-o", str(target))
        assert code == 2 and "-o" in err
    assert cu.read_text() == source and not (tmp_path / "other.cu").exists()


def test_a_repeated_option_is_refused_not_last_wins(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k(float* o) { o[0] = 1.0f; }\n"
                  "void h(float* o) { k<<<1, 1>>>(o); }\n")
    code, out, err = cli_streams("analyze", str(cu), "-D", "A=1", "-D", "A=2")
    assert code == 2 and "-D A is given twice ('1' and '2')" in err


def test_break_continue_and_early_returns_run_as_c_runs_them(tmp_path):
    """Flags stand for the jumps the IR lacks: the interpreter's values equal C's."""
    kernel = only(tmp_path, """
__device__ int clamp_first(int a, int b) {
    if (a > b) return b;
    if (a < 0) return 0;
    return a;
}
__global__ void k(int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    int found = -1;
    for (int i = 0; i < 32; i++) {
        if (i == t / 2) { found = i; break; }
    }
    int sum = 0;
    for (int i = 0; i < 8; i++) {
        if (i % 2 == t % 2) continue;
        sum += i;
    }
    int j = 0;
    while (j < 100) { j += 3; if (j > t) break; }
    s[t] = found * 1000 + sum * 100 + clamp_first(t - 4, 20);
    __syncthreads();
    out[t] = s[t] + j * 100000;
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    t = np.arange(32)
    sums = np.where(t % 2 == 0, 1 + 3 + 5 + 7, 0 + 2 + 4 + 6)
    js = (t // 3 + 1) * 3
    expected = (t // 2) * 1000 + sums * 100 + np.clip(t - 4, 0, 20) + js * 100000
    np.testing.assert_array_equal(run(kernel)["out"], expected)


def test_a_switch_runs_as_the_if_else_chain_it_means(tmp_path):
    """Grouped labels, a default in the middle, a `continue` of the loop around it and a
    `break` of a loop inside a case: values equal C's (the switch's own breaks end cases)."""
    kernel = only(tmp_path, """
__global__ void k(int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        switch ((t + i) % 5) {
        case 0: v += 1; break;
        default: v += 100; break;
        case 1:
        case 2: v += 10;
            for (int j = 0; j < 8; j++) { if (j == 2) break; v += 1000; }
            break;
        case 4: continue;
        }
        v += 10000;
    }
    s[t] = v;
    __syncthreads();
    out[t] = s[31 - t];
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    expected = []
    for t in range(32):
        v = 0
        for i in range(4):
            c = (t + i) % 5
            if c == 4:
                continue
            v += {0: 1, 1: 2010, 2: 2010}.get(c, 100) + 10000
        expected.append(v)
    np.testing.assert_array_equal(run(kernel)["out"], expected[::-1])


def test_a_case_that_falls_through_runs_into_the_next(tmp_path):
    """`case 0: s[t] = 1; case 1: s[t] = 2; break;`: lane 0's case falls into case 1's."""
    source = ("__global__ void k(int* out) {\n    __shared__ int s[32];\n"
              "    int t = threadIdx.x;\n    switch (t % 2) {\n    "
              "case 0: s[t] = 1; case 1: s[t] = 2; break;"
              "\n    }\n    out[t] = s[t];\n}\nvoid h(int* o) { k<<<1, 32>>>(o); }\n")
    kernel = only(tmp_path, source, Options(lengths={"out": "32"}))
    np.testing.assert_array_equal(run(kernel, types={"out": np.int32})["out"], [2] * 32)


def test_float3_moves_lane_by_lane(tmp_path):
    """A 3-lane vector has no 12-byte access: three 4-byte ones, values as C computes."""
    kernel = only(tmp_path, """
__global__ void k(float* out) {
    __shared__ float3 s[32];
    int t = threadIdx.x;
    s[t] = make_float3(t, 2.0f * t, 3.0f * t);
    __syncthreads();
    float3 v = s[31 - t];
    out[t] = v.x + 10.0f * v.y + 100.0f * v.z;
}
void h(float* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    assert [(x.op, x.access_bytes) for x in kernel.sites()] == [("store", 4)] * 3 + \
        [("load", 4)] * 3
    r = 31 - np.arange(32)
    np.testing.assert_array_equal(run(kernel)["out"], r + 20.0 * r + 300.0 * r)


def test_conversions_to_16_bit_floats_as_values_round(tmp_path):
    """`(float)(__nv_bfloat16)v`, `__float2half(v)` and a `__half` local (initialized and
    assigned) hold the float rounded to that type, as C converts (llm.c's `(floatX)(...)`);
    a double is rounded to it once (it was refused)."""
    from kernels_ir import bf16, f16, from_storage, to_storage
    kernel = only(tmp_path, """
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__global__ void k(const float* x, float* out, __nv_bfloat16* o16) {
    int i = threadIdx.x;
    float y = (float)(__nv_bfloat16)(x[i] * 3.0f);
    __half h = x[i];
    h = __float2half(__half2float(h) * 7.0f);
    out[i] = y + 100.0f * __half2float(h) + __half2float(__float2half(x[i] / 3.0f));
    o16[i] = (__nv_bfloat16)(y * 5.0f);
}
void hst(const float* x, float* o, __nv_bfloat16* p) { k<<<1, 32>>>(x, o, p); }
""", Options(lengths={"x": "32", "out": "32", "o16": "32"}))
    x = (np.arange(32, dtype=np.float32) + 0.1234567) * np.float32(1.37)
    got = run(kernel, arrays={"x": x})
    r16 = lambda v: from_storage(to_storage(np.asarray(v, np.float32), f16), f16)
    rb16 = lambda v: from_storage(to_storage(np.asarray(v, np.float32), bf16), bf16)
    y = rb16(x * np.float32(3))
    h = r16(r16(x) * np.float32(7))
    want = y + np.float32(100) * h + r16(x / np.float32(3))
    np.testing.assert_array_equal(got["out"], want)
    np.testing.assert_array_equal(got["o16"], to_storage(y * np.float32(5), bf16))
    double = only(tmp_path, "#include <cuda_bf16.h>\n__global__ void k(float* o, double d) "
                            "{ o[0] = (__nv_bfloat16)d; }\n", Options(
                                lengths={"o": "1"}, grid="1", block="1",
                                params={"d": 1 + 2**-8 + 2**-40}))
    assert run(double)["o"].tolist() == [1 + 2**-7]   # above the halfway point: up


def test_activemask_is_the_mask_of_the_lanes_that_execute(tmp_path):
    """`unsigned mask = __activemask(); __shfl_down_sync(mask, ...)` (Learn-CUDA's
    warp-synchronous reduction) in a branch only 20 lanes take; the mask as a number is
    the executing lanes' bits."""
    kernel = only(tmp_path, """
__global__ void k(int* out) {
    int v = threadIdx.x;
    if (threadIdx.x % 32 < 20) {
        for (int offset = 1; offset < 4; offset <<= 1) {
            unsigned int mask = __activemask();
            v += __shfl_xor_sync(mask, v, offset);
        }
        __syncwarp(__activemask());
    }
    out[threadIdx.x] = v;
}
void h(int* o) { k<<<1, 64>>>(o); }
""", Options(lengths={"out": "64"}))
    t = np.arange(64)
    group = t - t % 4            # xor 1, 2: each lane sums its aligned group of 4
    want = np.where(t % 32 < 20, 4 * group + 6, t)
    np.testing.assert_array_equal(run(kernel)["out"], want)
    one = only(tmp_path, "__global__ void k(int* o) {\n    unsigned m = __activemask();\n"
                         "    if (threadIdx.x == 2) o[0] = m + 1;\n}\n",
               Options(lengths={"o": "1"}, grid="1", block="3"))
    assert run(one, types={"o": np.int32})["o"].tolist() == [0b111 + 1]


def test_a_syntax_error_that_hides_every_kernel_says_where(tmp_path):
    """Not "has no __global__ kernel" (or a guess at what the parser recovered): nvcc's
    error, at the place where the CUDA stops parsing."""
    f = tmp_path / "broken.cu"
    f.write_text("#define N 4\n__global__ void k(float* out {\n    out[0] = 1.0f;\n}\n")
    with pytest.raises(KernelError, match=r"broken\.cu:2: error: expected a \"\)\""):
        kernels(tmp_path, f.read_text(), name="broken.cu")
    f.write_text("#define N 4\n__global__ void (float* out) {\n}\n")
    with pytest.raises(KernelError, match=r"broken\.cu:2: error: "):
        kernels(tmp_path, f.read_text(), name="broken.cu")


def test_a_for_loops_second_variable_is_a_variable_after_a_const(tmp_path):
    """`const int n = 4;` before `for (int i = 0, j = 5; ...; j++)`: j is a local that
    changes, not the constant 5."""
    kernel = only(tmp_path, """
__global__ void k(int* out) {
    const int n = 4;
    int last = 0;
    for (int i = 0, j = 5; i < n; i++) { last = j; j++; }
    out[threadIdx.x] = last;
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    assert (run(kernel)["out"] == 8).all()


# the transpose of examples/transpose.cu, as a string a Python program compiles
TRANSPOSE_CUDA = '''
#define TILE 32
extern "C" __global__ void transpose(const float* src, float* dst, int n)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = src[y * n + x];
    __syncthreads();
    dst[(blockIdx.x * TILE + threadIdx.y) * n + blockIdx.y * TILE + threadIdx.x] =
        tile[threadIdx.x][threadIdx.y];
}
'''

CUPY_PROGRAM = '''# A cupy program: smemsim reads its CUDA string and never runs it.
import pathlib
pathlib.Path("RAN").touch()
import cupy as cp

source = r"""''' + TRANSPOSE_CUDA + '''"""
kernel = cp.RawKernel(source, "transpose")
module = cp.RawModule(code="""
__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }
""")
'''


def test_cuda_in_a_python_file_is_read_not_run(tmp_path, monkeypatch):
    """A cupy script: its RawKernel/RawModule strings are the CUDA (#24 step 6); reports
    name the lines of the Python file; the script itself never runs."""
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "app.py"
    script.write_text(CUPY_PROGRAM)
    code, out, err = cli_streams("analyze", str(script), "--kernel", "transpose",
                                 "--launch-grid", "8,8", "--launch-block", "32,32", "--param",
                                 "n=256", "--length", "src=n*n", "--length", "dst=n*n",
                                 "--json")
    assert code == 0, err
    sites = json.loads(out)["results"][0]["sites"]
    assert [(s["line"], s["wavefronts"]) for s in sites] == [(12, 2048), (15, 65536)]
    assert all(s["file"].endswith("app.py") for s in sites)
    assert sorted(import_kernels(str(script), Options(grid="1", block="32"))) == \
        ["scale", "transpose"]
    assert not (tmp_path / "RAN").exists()


def test_a_kernels_file_is_still_a_kernels_file(tmp_path):
    """A file that imports kernels_ir is the IR's (and runs, as documented), even if it
    mentions RawKernel."""
    from smemsim.frontends.loader import is_cuda
    f = tmp_path / "k.py"
    f.write_text("from kernels_ir import KernelBuilder\n# cp.RawKernel(src, 'k') elsewhere\n")
    assert not is_cuda(str(f))
    f.write_text(CUPY_PROGRAM)
    assert is_cuda(str(f))


def test_a_length_for_an_array_no_kernel_has_is_refused(tmp_path):
    """`--length nosuch=3` was silently ignored; a typo must not pass."""
    example = str(pathlib.Path(__file__).resolve().parent.parent / "examples" / "transpose.cu")
    code, out, err = cli_streams("analyze", example, "--length", "srcc=65536")
    assert code == 2 and "--length srcc: no such pointer parameter in transpose.cu's " \
                         "kernels (they have: dst, src)" in " ".join(err.split())


CUPY_LAUNCH = '''import cupy as cp
import numpy as np
N = 256
TILE = 32
src = r"""''' + TRANSPOSE_CUDA + '''"""
k = cp.RawKernel(src, "transpose")
a = cp.arange(N * N, dtype=cp.float32)
b = cp.empty((N, N), dtype=cp.float32)
k((N // TILE, N // TILE), (TILE, TILE), (a, b, np.int32(N)))
'''

PYCUDA_LAUNCH = '''import pycuda.autoinit
import numpy as np
from pycuda.compiler import SourceModule
mod = SourceModule("""
__global__ void rev(float *d, int n)
{
    __shared__ float s[64];
    s[threadIdx.x] = d[threadIdx.x];
    __syncthreads();
    d[threadIdx.x] = s[n - threadIdx.x - 1];
}
""")
rev = mod.get_function("rev")
d = np.zeros(64, dtype=np.float32)
rev(d, np.int32(64), block=(64, 1, 1), grid=(1, 1))
'''


def test_the_launch_a_python_program_makes_is_read(tmp_path, capsys):
    """cupy's `k(grid, block, args)` and pycuda's `f(args, block=, grid=)` are the launch:
    dimensions and scalar arguments from literals and module constants (`N // TILE`,
    `np.int32(N)`), array lengths from their allocation (`cp.arange(N * N)`,
    `cp.empty((N, N))`), all read from the syntax tree. No option is needed; the counts are
    those of examples/transpose.cu (2,048 requests a site; 32-way conflicted reads)."""
    app = tmp_path / "app.py"
    app.write_text(CUPY_LAUNCH)
    code, out, err = cli_streams("analyze", str(app), "--json")
    assert code == 0, err
    res = json.loads(out)["results"][0]
    assert res["params"] == {"n": 256} and res["grid"] == [8, 8, 1]
    assert [(s["requests"], s["wavefronts"]) for s in res["sites"]] == [(2048, 2048),
                                                                         (2048, 65536)]
    assert "how long" not in capsys.readouterr().err
    app.write_text(PYCUDA_LAUNCH)
    code, out, err = cli_streams("analyze", str(app), "--json")
    assert code == 0, err
    res = json.loads(out)["results"][0]
    assert res["params"] == {"n": 64} and res["block"] == [64, 1, 1]
    assert [(s["requests"], s["wavefronts"]) for s in res["sites"]] == [(2, 2), (2, 2)]
    assert "how long" not in capsys.readouterr().err


def test_a_launch_computed_at_run_time_is_a_question(tmp_path):
    """The file's own arithmetic on its arrays is followed (`a.size` of `cp.arange(N *
    N)`); a grid from the command line of the program is asked for, at the launch's
    line."""
    app = tmp_path / "app.py"
    app.write_text(CUPY_LAUNCH.replace("k((N // TILE, N // TILE)", "k((a.size // TILE, 8)"))
    code, out, err = cli_streams("analyze", str(app), "--frontend", "ptx", "--json")
    assert code == 0 and json.loads(out)["results"][0]["grid"] == [2048, 8, 1]
    app.write_text("import sys\n" + CUPY_LAUNCH.replace("k((N // TILE, N // TILE)",
                                                         "k((int(sys.argv[1]) // TILE, 8)"))
    code, out, err = cli_streams("analyze", str(app), "--frontend", "ptx")
    assert code == 2 and "app.py:21" in err
    assert "its grid is (int(sys.argv[1]) // TILE, 8), which the program computes at run " \
           "time: give it with --launch-grid" in err


def test_a_loop_over_a_local_declared_outside_is_counted_and_keeps_its_exit_value(tmp_path):
    """Rodinia's style: `int i; ... for (i = 0; i < 16; i++)`: nvcc unrolls it completely
    and i holds 16 after it, as in C; a body that assigns i ends where C's loop does
    (here, i ends at 17)."""
    from kernels_ir.stmt import Loop, walk
    kernel = only(tmp_path, """
__global__ void k(int* out) {
    __shared__ int s[32];
    int i, sum = 0;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    for (i = 0; i < 16; i++)
        sum += s[i];
    out[threadIdx.x] = sum + i;
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    assert [s for s in walk(kernel.body) if isinstance(s, Loop)] == []   # (nvcc unrolled it)
    assert (run(kernel)["out"] == sum(range(16)) + 16).all()
    kernel = only(tmp_path, """
__global__ void k(int* out) {
    int i;
    for (i = 0; i < 16; i++)
        if (i == 3) i = 16;
    out[threadIdx.x] = i;
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    assert (run(kernel)["out"] == 17).all()


def test_a_for_loop_without_an_initializer_over_an_outer_local(tmp_path):
    """llm.c's `int c = ...; for (; c < C; c += k)` and then `c -= k; for (; c >= 0; ...)`:
    C's loops (it was an internal error); math.h's M_PI as glibc defines it."""
    kernel = only(tmp_path, """
__global__ void k(float* out, int n) {
    int c = threadIdx.x;
    float sum = 0.0f;
    for (; c < n; c += 32) sum += 1.0f;
    c -= 32;
    for (; c >= 0; c -= 32) sum += 10.0f;
    out[threadIdx.x] = sum + (float)M_PI;
}
void host(float* out) { k<<<1, 32>>>(out, 100); }
""", Options(lengths={"out": "32"}))
    out = run(kernel)["out"]
    t = np.arange(32)
    trips = (100 - t + 31) // 32
    np.testing.assert_allclose(out, trips * 11 + np.float32(np.pi), rtol=1e-6)


def test_a_reference_to_a_vector_and_a_view_at_a_run_time_offset(tmp_path):
    """llm.c's `float& vec_at(float4& v, int i) { return reinterpret_cast<float*>(&v)[i]; }`
    reads and writes a lane of the caller's vector; `(unsigned int*)(shared + C * 2)` over a
    bf16 shared array starts a view at element C of u32 (a run-time offset that is a whole
    number of 4-byte words: C * 2 bf16 is C * 4 bytes)."""
    kernel = only(tmp_path, """
#include <cuda_bf16.h>
__device__ float& vec_at(float4& v, int i) { return reinterpret_cast<float*>(&v)[i]; }
__global__ void k(const float* in, unsigned int* out, int C) {
    extern __shared__ __nv_bfloat16 shared[];
    float4 v = reinterpret_cast<const float4*>(in)[threadIdx.x];
    vec_at(v, 3) = vec_at(v, 0) + vec_at(v, 1);
    unsigned int* flags = (unsigned int*)(shared + C * 2);
    flags[threadIdx.x] = (unsigned int)vec_at(v, 3);
    __syncthreads();
    out[threadIdx.x] = flags[31 - threadIdx.x];
}
void host(const float* in, unsigned int* out) { k<<<1, 32, 4096>>>(in, out, 64); }
""", Options(lengths={"in": "128", "out": "32"}))
    x = np.arange(128, dtype=np.float32)
    out = run(kernel, {}, {"in": x})["out"]
    pairs = x.reshape(32, 4)
    assert list(out) == list((pairs[:, 0] + pairs[:, 1]).astype(np.uint32)[::-1])
    (flags,) = [s for s in analyze(kernel).sites if s.op == "store"]
    assert flags.array.startswith("shared") and flags.wavefronts == 1


def test_a_kernel_named_with_a_typedef_as_its_template_argument(tmp_path):
    """`--kernel 'k<floatX>'` where the file says `typedef __nv_bfloat16 floatX;` (llm.c's
    templated kernels are launched from templated host functions, so the user names them):
    the typedef's type, bf16 here."""
    found = kernels(tmp_path, """
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
template <typename T>
__global__ void k(T* out) {
    __shared__ T s[32];
    s[threadIdx.x] = (T)(float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x];
}
""", Options(kernel="k<floatX>", grid="1", block="32", lengths={"out": "32"}))
    kernel = found["k<floatX>"]
    assert kernel.globals[0].declared.name == "bf16"
    from kernels_ir import bf16, from_storage
    assert list(from_storage(run(kernel)["out"], bf16)) == list(range(31, -1, -1))


def test_a_device_functions_shared_array_is_one_per_instantiation(tmp_path):
    """llm.c's `template<reduction_func_t warp_reduction> float blockReduce(float v)` with
    `__shared__ float shared_val[32]` inside: a function passed as a template argument is
    inlined where the template calls it; the shared array is one per instantiation (nvcc
    allocates it once however often it is called), so two calls of blockReduce<sum> share
    it and blockReduce<max> has its own: 256 static bytes, not 384."""
    kernel = only(tmp_path, """
using reduction_func_t = float (*) (float);
__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}
__device__ float warp_max(float v) {
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    return v;
}
template<reduction_func_t warp_reduction>
__device__ float block_reduce(float v) {
    __shared__ float shared_val[32];
    float w = warp_reduction(v);
    if (threadIdx.x % 32 == 0) shared_val[threadIdx.x / 32] = w;
    __syncthreads();
    w = (threadIdx.x % 32 < blockDim.x / 32) ? shared_val[threadIdx.x % 32] : 0.0f;
    float total = warp_reduction(w);
    __syncthreads();
    return total;
}
__global__ void k(const float* in, float* out) {
    float x = in[threadIdx.x];
    float s = block_reduce<warp_sum>(x);
    float t = block_reduce<warp_sum>(2.0f * x);
    float m = block_reduce<warp_max>(x);
    out[threadIdx.x] = s + 10.0f * t + 100.0f * m;
}
void host(const float* in, float* out) { k<<<1, 128>>>(in, out); }
""", Options(lengths={"in": "128", "out": "128"}))
    assert kernel.static_smem == 2 * 32 * 4
    x = np.arange(128, dtype=np.float32) % 7
    out = run(kernel, {}, {"in": x})["out"]
    np.testing.assert_allclose(out, x.sum() + 20 * x.sum() + 100 * x.max())


def test_a_pointer_the_launch_passes_null_is_null(tmp_path):
    """llm.c's classifier launches `k<<<...>>>(dlogits, losses, NULL, ...)` and guards
    `if (probs != NULL) probs[i] = p;`: the parameter is null (no elements, its truth
    false), so nothing is stored through it; an unguarded access is a fault at its line;
    and a --length for it is refused, naming the launch's line."""
    source = """
__global__ void k(float* out, float* probs) {
    __shared__ float s[32];
    s[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    if (probs != NULL) probs[threadIdx.x] = s[31 - threadIdx.x];
    out[threadIdx.x] = probs ? 1.0f : 2.0f;
}
void host(float* out) { k<<<1, 32>>>(out, NULL); }
"""
    kernel = only(tmp_path, source, Options(lengths={"out": "32"}))
    got = run(kernel)
    assert list(got["out"]) == [2.0] * 32 and got["probs"].size == 0
    assert [(s.op, s.requests) for s in analyze(kernel).sites] == [("store", 1), ("load", 0)]
    with pytest.raises(KernelError, match=r"--length probs: the launch at line 9 passes a "
                                              r"null pointer"):
        only(tmp_path, source, Options(lengths={"out": "32", "probs": "32"}))
    unguarded = source.replace("if (probs != NULL) probs", "probs")
    from kernels_ir import KernelRuntimeError
    with pytest.raises(KernelRuntimeError, match=r"k\.cu:6:\d+.*a store through a null "
                                                 r"pointer"):
        run(only(tmp_path, unguarded, Options(lengths={"out": "32"})))


MATH_KERNEL = """
__global__ void k(const float* in, float* out) {
    int i = threadIdx.x;
    float x = in[i];
    out[0 * 32 + i] = coshf(x) + sinhf(x);
    out[1 * 32 + i] = tanf(x) + atanf(x) + atan2f(x, 2.0f);
    out[2 * 32 + i] = asinf(x) + acosf(x);
    out[3 * 32 + i] = log10f(x + 2.0f) + log1pf(x + 1.0f) + expm1f(x);
    out[4 * 32 + i] = cbrtf(x) + hypotf(x, 3.0f) + exp10f(x);
    out[5 * 32 + i] = erff(x) + erfcf(x * 0.5f);
}
void host(const float* in, float* out) { k<<<1, 32>>>(in, out); }
"""


def test_more_math_functions(tmp_path):
    """The CUDA math functions GELU and friends use (llm.c's gelu_backward calls coshf):
    cosh, sinh, tan, atan, atan2, asin, acos, log10, log1p, expm1, cbrt, hypot, exp10, erf,
    erfc, computed in float as numpy (and the C library, for erf) computes them."""
    import math
    kernel = only(tmp_path, MATH_KERNEL, Options(lengths={"in": "32", "out": "192"}))
    x = np.linspace(-0.9, 0.9, 32).astype(np.float32)
    out = run(kernel, {}, {"in": x})["out"].reshape(6, 32)
    erf = np.vectorize(math.erf)
    erfc = np.vectorize(math.erfc)
    want = [np.cosh(x) + np.sinh(x), np.tan(x) + np.arctan(x) + np.arctan2(x, 2),
            np.arcsin(x) + np.arccos(x),
            np.log10(x + 2) + np.log1p(x + 1) + np.expm1(x),
            np.cbrt(x) + np.hypot(x, 3) + 10.0 ** x, erf(x) + erfc(x * 0.5)]
    np.testing.assert_allclose(out, np.array(want, dtype=np.float32), rtol=2e-6)


def test_a_loop_on_a_shared_scalar_reads_it_before_each_iteration(tmp_path):
    """`while (hit < limit)` on a `__shared__ unsigned int hit` (cuda-samples'
    simpleAttributes): the condition is a load of the shared scalar, made before each
    iteration, as C evaluates it. By hand: thread 0 adds 1 per pass until hit is 5 (5 passes
    and 6 reads of the condition), every lane of the warp reads it each time: 6 load
    requests, 1 wavefront each (a broadcast); the first read, before the loop, and the
    others, after each pass, are two sites of the line."""
    source = """
__global__ void spin(int *out, int limit) {
    __shared__ unsigned int hit;
    if (threadIdx.x == 0) hit = 0;
    __syncthreads();
    int passes = 0;
    while (hit < limit) {
        passes++;
        __syncwarp();
        if (threadIdx.x == 0) hit = hit + 1;
        __syncwarp();
    }
    out[threadIdx.x] = passes;
}
int main() { int *o; spin<<<1, 32>>>(o, 5); }
"""
    kernel = only(tmp_path, source, Options(lengths={"out": "32"}))
    assert run(kernel)["out"].tolist() == [5] * 32
    r = analyze(kernel)
    condition = [s for s in r.sites if s.op == "load" and s.loc.line == 7]
    assert [(s.requests, s.wavefronts) for s in condition] == [(1, 1), (5, 5)]


def test_a_shared_scalar_on_one_side_of_a_conditional_is_read_either_way(tmp_path):
    """`lsb ? address : numtrue + idx` (SHOC's radixSortBlocks): a `__shared__` scalar
    cannot fault, but here nvcc folds `lsb = 1` and never reads it. An element (`s[i]`) on
    a side is read only where the side is taken (it may be out of bounds)."""
    source = """
__global__ void pick(int *out) {
    __shared__ int numtrue;
    __shared__ int s[64];
    if (threadIdx.x == 0) numtrue = 5;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int lsb = 1;
    out[threadIdx.x] = lsb ? 0 : numtrue + threadIdx.x;
    out[64 + threadIdx.x] = threadIdx.x < 100 ? 1 : s[threadIdx.x + 200];
}
int main() { int *o; pick<<<1, 64>>>(o); }
"""
    kernel = only(tmp_path, source, Options(lengths={"out": "128"}))
    assert run(kernel)["out"].tolist() == [0] * 64 + [1] * 64
    r = analyze(kernel)
    assert [(s.loc.line, s.requests) for s in r.sites if s.op == "load"] == [(10, 0)]


@pytest.mark.gpu
def test_more_math_functions_on_the_gpu(tmp_path):
    """The same kernel's regenerated CUDA (coshf, erff, exp10f, ...) on a GPU: its outputs
    equal the interpreter's within the comparison's float tolerance (the GPU's functions
    are within a few ulp of the correctly rounded ones)."""
    from gpu_backend.device import gpu_unavailable, run_on_gpu
    reason = gpu_unavailable()
    if reason:
        pytest.skip(f"needs a GPU: {reason}")
    kernel = only(tmp_path, MATH_KERNEL, Options(lengths={"in": "32", "out": "192"}))
    x = np.linspace(-0.9, 0.9, 32).astype(np.float32)
    result = run_on_gpu(kernel, {}, {"in": x})
    assert result.matches, result.mismatches


def test_lambdas_are_inlined_where_they_are_called(tmp_path):
    """`auto step = [&](int i) { acc += s[i] * 2.0f; };` and `[](float x) -> float {...}`
    (llm.c's softmax_autoregressive_backward_kernel5 writes its loop body so): each call is
    the body with the enclosing locals by reference (a capture by value, nvcc's too)."""
    source = (pathlib.Path(__file__).parent / "cuda" / "lambdas.cu").read_text()
    kernel = only(tmp_path, source, Options(lengths={"in": "64", "out": "32"}))
    x = np.arange(64, dtype=np.float32)
    t = np.arange(32)
    want = 2 * (2 * x[t] + 2 * x[t + 32] + 2 * x[(t + 1) % 64])
    assert run(kernel, arrays={"in": x})["out"].tolist() == want.tolist()
    r = analyze(kernel)
    # the lambda's load, at its line: the loop's 2 iterations and the call after
    assert by_line(r) == [(9, "load", 4, 3, 3), (12, "store", 4, 1, 1), (13, "store", 4, 1, 1)]
    by_value = kernels(tmp_path, source.replace("[&](int i)", "[=, &acc](int i)"),
                       Options(lengths={"in": "64", "out": "32"}), name="lambdas.cu")
    assert run(by_value["lam"], arrays={"in": x})["out"].tolist() == want.tolist()


def test_a_launch_inside_a_generic_lambda_asks_for_the_instance():
    """llm.c's attention_backward launches kernel 6 as `kernel6<int_const.value>` inside
    `[&](auto int_const) {...}` (and 7 and 8 through `constexpr int block_size =
    int_const.value;`): the value is the host's dispatch, so the import asks for the
    instance (it was read as the argument `int_const.value` and failed in the kernel), and
    `--kernel 'k<256>'` gives it."""
    path = str(pathlib.Path(__file__).parent / "corpus" / "llm_c" / "attention_backward.cu")
    found = import_kernels(path, Options())
    for k in (6, 7, 8):
        assert f"softmax_autoregressive_backward_kernel{k}" in found
        assert not any("int_const" in key for key in found)
    with pytest.raises(KernelError, match=r"template parameter 'BlockSize' of "
                                              r"'softmax_autoregressive_backward_kernel7' needs "
                                              r"a value: .* --kernel"):
        found["softmax_autoregressive_backward_kernel7"]()


def test_a_double_rounds_once_to_16_bits_and_float_functions_take_floats(tmp_path):
    """`(__nv_bfloat16)(double)` rounds the double itself once (cvt.rn.bf16.f64), not
    through a float first: 1 + 2^-8 + 2^-40 is above the halfway point between 1 and
    1 + 2^-7 (up), 1 + 3 * 2^-8 - 2^-40 below the next one (down); through a float both
    would tie to even. And `sqrtf(2.0f / M_PI)` takes a float, as C converts its double
    argument (llm.c's GELU_SCALING_FACTOR): the expression stays float."""
    source = """#include <cuda_bf16.h>
__global__ void k(float* out, const double* in) {
    int t = threadIdx.x;
    out[t] = (float)(__nv_bfloat16)(in[t]);
    out[3 + t] = sqrtf(2.0f / 3.14159265358979323846) * 0.5f;
}
void h(float* o, const double* i) { k<<<1, 3>>>(o, i); }
"""
    kernel = only(tmp_path, source, Options(lengths={"out": "6", "in": "3"}))
    x = np.array([1 + 2**-8 + 2**-40, 1 + 2**-8, 1 + 3 * 2**-8 - 2**-40])
    out = run(kernel, arrays={"in": x})["out"]
    assert out[:3].tolist() == [1 + 2**-7, 1.0, 1 + 2**-7]
    want = np.float32(np.sqrt(np.float32(2.0 / np.pi))) * np.float32(0.5)
    assert out[3:].tolist() == [float(want)] * 3
    from tests.conftest import require_nvrtc
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    assert compile_kernel(kernel, "sm_90").widths_ok


DOUBLE_TO_BF16 = """#include <cuda_bf16.h>
__global__ void k(float* out, const double* in) {
    out[threadIdx.x] = (float)(__nv_bfloat16)(in[threadIdx.x]);
}
void h(float* o, const double* i) { k<<<1, 64>>>(o, i); }
"""


@pytest.mark.gpu
def test_a_double_rounds_to_bf16_on_the_gpu_as_here(tmp_path):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    kernel = only(tmp_path, DOUBLE_TO_BF16, Options(lengths={"out": "64", "in": "64"}))
    x = 1 + np.arange(64) * 2**-9 + np.where(np.arange(64) % 2, 2**-40, -2**-40)
    result = run_on_gpu(kernel, None, {"in": x})
    assert result.matches, result.mismatches


NULL_BIAS = """
__global__ void addbias(float* out, const float* inp, const float* bias, int n)
{
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = inp[i];
    __syncthreads();
    float v = s[127 - threadIdx.x];
    if (bias != NULL) { v += bias[threadIdx.x]; }
    out[i] = v;
}
"""


def test_null_says_a_pointer_the_host_passes_null(tmp_path):
    """Without a launch in the file, `--null bias` says what llm.c's launchers pass for an
    optional bias (their `NULL` launch argument is read when the file has it): `bias !=
    NULL` is false. A name that is no pointer parameter, or one also given a --length, is
    an error naming both."""
    base = dict(grid="2", block="128", params={"n": 256})
    x = np.arange(256, dtype=np.float32)
    t = np.arange(256)
    mirrored = (t // 128) * 128 + 127 - t % 128
    with_bias = only(tmp_path, NULL_BIAS, Options(**base, lengths={"out": "n", "inp": "n",
                                                                   "bias": "128"}))
    got = run(with_bias, arrays={"inp": x, "bias": np.ones(128, np.float32)})["out"]
    assert got.tolist() == (mirrored + 1.0).tolist()
    without = only(tmp_path, NULL_BIAS, Options(**base, lengths={"out": "n", "inp": "n"},
                                                nulls=["bias"]))
    assert run(without, arrays={"inp": x})["out"].tolist() == mirrored.astype(float).tolist()
    with pytest.raises(KernelError, match=r"--null bis: 'addbias' has no such pointer "
                                              r"parameter \(it has bias, inp, out\)"):
        only(tmp_path, NULL_BIAS, Options(**base, nulls=["bis"]))
    with pytest.raises(KernelError, match=r"--length bias and --null bias"):
        only(tmp_path, NULL_BIAS, Options(**base, lengths={"bias": "128"}, nulls=["bias"]))


def test_a_bool_in_memory_is_one_byte_and_holds_zero_or_one(tmp_path):
    """`__shared__ bool seen[256]` is 256 bytes (its banks: four flags a word), a scalar
    `__shared__ bool` one byte after it, a `bool*` parameter bytes too; a stored 5 reads
    back as 1 (C's conversion to bool). The flags at stride 4 bytes fall in 32 banks: one
    wavefront (as 4-byte elements, stride 16, they were 4-way)."""
    kernel = only(tmp_path, """
__global__ void k(const int* in, bool* hit, int* out) {
    __shared__ bool seen[256];
    __shared__ bool any;
    if (threadIdx.x == 0) any = false;
    seen[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (seen[threadIdx.x * 4 % 256]) any = true;
    hit[threadIdx.x] = in[threadIdx.x] - 1;
    __syncthreads();
    out[threadIdx.x] = seen[threadIdx.x] + any;
}
void h(const int* i, bool* b, int* o) { k<<<1, 256>>>(i, b, o); }
""", Options(lengths={"in": "256", "hit": "256", "out": "256"}))
    values = np.arange(256, dtype=np.int32) % 3 * 5          # 0, 5, 10, 0, 5, ...
    out = run(kernel, arrays={"in": values})
    np.testing.assert_array_equal(out["out"], (values != 0) + 1)   # some flag at stride 4 is set
    np.testing.assert_array_equal(out["hit"], (values - 1 != 0).astype(np.uint8))
    r = analyze(kernel)
    assert [(s.width, s.wavefronts // max(s.requests, 1)) for s in r.sites][:3] == \
        [(1, 1), (1, 1), (1, 1)]
    assert analyze(kernel).static_smem == 257


LAUNCH_IN_A_SWITCH = """
template <int NT>
__global__ void reduce(const float* x, float* y) {
    __shared__ float partial[NT / 32];
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = x[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}
void host(const float* x, float* y, int K, int S) {
    if (K > 4096) {
        dim3 block(1024);
        dim3 grid(S);
        reduce<1024><<<grid, block>>>(x, y);
    } else {
        const int NT = K / 4;
        dim3 block(NT);
        dim3 grid(S);
        switch (NT) {
        case 64:
            reduce<(64)><<<grid, block>>>(x, y);
            break;
        case 128:
            reduce<(128)><<<grid, block>>>(x, y);
            break;
        }
    }
}
"""


def test_a_launch_reads_the_dim3_in_its_scope_and_its_switch_case(tmp_path):
    """Two `dim3 block` in two branches, and a launch per `case` of `switch (NT)` (LeetCUDA's
    reduce dispatch writes `k<(NT)>` through a macro): each instance's block is the one in
    its scope, with NT the case's value; the run-time grid (`S`) is a question until
    --launch-grid gives it (it was the last `dim3 block` of the function, 1024 threads for
    every instance: a false out-of-bounds fault in `reduce<64>`)."""
    cu = tmp_path / "dispatch.cu"
    cu.write_text(LAUNCH_IN_A_SWITCH)
    with pytest.raises(KernelError, match=r"the launch of 'reduce' uses the host "
                                              r"variable 'S': give its value \(--host "
                                              r"'S=VALUE'\), or --launch-grid"):
        import_kernels(str(cu), Options())["reduce<64>"]()
    kernels = import_kernels(str(cu), Options(grid="2"))
    blocks = {key: fold_all(kernels[key]().block) for key in ("reduce<64>", "reduce<128>")}
    assert blocks == {"reduce<64>": (64, 1, 1), "reduce<128>": (128, 1, 1)}
    r = analyze(kernels["reduce<64>"]())
    assert (r.store.requests, r.load.requests) == (2 * 2, 2)   # 2 warps a block, 2 blocks


def fold_all(dims) -> tuple:
    from smemsim.frontends.cuda.symbols import fold
    return tuple(fold(d) for d in dims)


CP_ASYNC_OFFSET = """
#include <cstdint>
__global__ void k(const float* g, float* out) {
    __shared__ float s[256];
    uint32_t base = __cvta_generic_to_shared(&s[threadIdx.x * 8]);
    for (int i = 0; i < 8; i += 4)
        asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2;\\n"
                     :: "r"(base + i * 4), "l"(&g[threadIdx.x * 8 + i]), "n"(16));
    asm volatile("cp.async.commit_group;\\n" ::);
    asm volatile("cp.async.wait_all;\\n" ::);
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x * 8 + OFFSET];
}
void h(const float* g, float* o) { k<<<1, 32>>>(g, o); }
"""


def test_a_shared_address_moved_by_bytes_in_a_cp_async(tmp_path):
    """`base + i * 4` (LeetCUDA's sgemm_async: a __cvta_generic_to_shared local plus a byte
    offset) is the element i of the array further on; a byte offset that is no whole
    element is the GPU's misaligned-address fault, at its line."""
    cu = tmp_path / "offset.cu"
    cu.write_text(CP_ASYNC_OFFSET)
    k = import_kernels(str(cu), Options(defines={"OFFSET": "5"},
                                        lengths={"g": "256", "out": "32"}))["k"]()
    g = np.arange(256, dtype=np.float32)
    np.testing.assert_array_equal(run(k, arrays={"g": g})["out"], g[np.arange(32) * 8 + 5])
    assert by_line(analyze(k))[0][1:4] == ("cp_async", 16, 2)   # (the loop unrolled: 2 sites)
    cu.write_text(CP_ASYNC_OFFSET.replace("base + i * 4", "base + i * 4 + 2"))
    bad = import_kernels(str(cu), Options(defines={"OFFSET": "5"},
                                          lengths={"g": "256", "out": "32"}))["k"]()
    with pytest.raises(KernelRuntimeError, match=r"offset\.cu:8:\d+, .*misaligned address.*"
                                                 r"cudaErrorMisalignedAddress"):
        run(bad, arrays={"g": g})


def test_a_byte_offset_from_a_tiles_start_may_cross_its_rows(tmp_path):
    """`__cvta_generic_to_shared(&s[0][0]) + (t * 8 + i) * 4` over `float s[32][8]` (LeetCUDA's
    multi-stage HGEMM addresses its padded tiles so): the offset runs across rows, as C's
    flat memory does; the array is then read as one flat row of its elements."""
    cu = tmp_path / "flat.cu"
    cu.write_text(CP_ASYNC_OFFSET.replace("__shared__ float s[256];", "__shared__ float s[32][8];")
                  .replace("__cvta_generic_to_shared(&s[threadIdx.x * 8])",
                           "__cvta_generic_to_shared(&s[0][0])")
                  .replace("base + i * 4", "base + (threadIdx.x * 8 + i) * 4")
                  .replace("s[threadIdx.x * 8 + OFFSET]", "s[threadIdx.x][OFFSET]"))
    k = import_kernels(str(cu), Options(defines={"OFFSET": "5"},
                                        lengths={"g": "256", "out": "32"}))["k"]()
    g = np.arange(256, dtype=np.float32)
    np.testing.assert_array_equal(run(k, arrays={"g": g})["out"], g[np.arange(32) * 8 + 5])
    assert by_line(analyze(k))[0][1:4] == ("cp_async", 16, 2)


def test_a_same_type_pointer_cast_over_a_2d_tile_walks_it_flat(tmp_path):
    """`(float *)&shmem[0][0] + w * 4 * 72` over `float shmem[][72]` (tf32TensorCoreGemm's
    C tiles): the pointer walks the tile's elements in a row, past a row's end."""
    cu = tmp_path / "k.cu"
    cu.write_text("""__global__ void k(const float *in, float *out) {
    extern __shared__ float shmem[][72];
    float *warp_ptr = (float *)&shmem[0][0] + (threadIdx.x / 32) * 4 * 72;
    for (int i = 0; i < 4; i++)
        *(warp_ptr + i * 72 + threadIdx.x % 32) = in[threadIdx.x * 4 + i];
    __syncthreads();
    for (int i = 0; i < 4; i++)
        out[threadIdx.x * 4 + i] = shmem[(threadIdx.x / 32) * 4 + i][threadIdx.x % 32];
}
int main() { float *a, *b; k<<<1, 64, 8 * 72 * 4>>>(a, b); }
""")
    k = import_kernels(str(cu), Options(lengths={"in": "256", "out": "256"}))["k"]()
    x = np.arange(256, dtype=np.float32)
    np.testing.assert_array_equal(run(k, arrays={"in": x})["out"], x)


def test_a_pointer_difference_is_the_elements_between(tmp_path):
    """`p - q` of two pointers into one array is C's ptrdiff_t in their element type: a
    row of a padded tile is 33 floats, a float4 pointer steps four floats; the loads then
    index by it (t[d % 8][0] for 32 lanes: d % 8 = tid % 4 + (tid / 4) * 33 % 8)."""
    kernel = only(tmp_path, """
__global__ void k(long long* out) {
    __shared__ float t[8][33];
    __shared__ float u[64];
    float* p = &t[threadIdx.x / 4][threadIdx.x % 4];
    float4* v = (float4*)u + threadIdx.x % 16;
    long long d = p - &t[0][0];
    long long e = v - (float4*)u;
    *p = 1.0f;
    __syncthreads();
    out[threadIdx.x] = d * 1000 + e + (long long)t[d % 8][0];
}
void h(long long* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    tid = np.arange(32)
    d = (tid // 4) * 33 + tid % 4
    # t[r][0] was stored (1.0) by thread 4r; every row 0..7 has one
    np.testing.assert_array_equal(run(kernel)["out"], d * 1000 + tid % 16 + 1)


def test_a_difference_of_pointers_into_two_arrays_is_their_distance(tmp_path):
    """`p - q` of pointers into two shared arrays (undefined in C++): nvcc's build subtracts
    the addresses, so the value is their distance in the window, in elements."""
    kernel = only(tmp_path, """
__global__ void k(int* out) {
    __shared__ int a[32], b[32];
    int* p = a + threadIdx.x;
    int* q = b;
    out[threadIdx.x] = p - q;
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    b_minus_a = 32   # (nvcc places b right after a: 128 bytes on)
    np.testing.assert_array_equal(run(kernel, types={"out": np.int32})["out"],
                                  np.arange(32) - b_minus_a)


def test_file_scope_enumerators_are_constants(tmp_path):
    """`enum Dir { LEFT = 2, RIGHT, UP = 1 << 3 };` and a typedef'd anonymous enum (Parboil
    lbm's `typedef enum {C = 0, N, S, ...} CELL_ENTRIES;`): RIGHT = 3, UP = 8, S = 2; an
    enumerator without a value is the one before it plus one."""
    kernel = only(tmp_path, """
enum Dir { LEFT = 2, RIGHT, UP = 1 << 3 };
typedef enum { C = 0, N, S } CELL;
__global__ void k(int* out) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * RIGHT + UP + S) % 32] + 100 * (LEFT + N);
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    t = np.arange(32)
    np.testing.assert_array_equal(run(kernel)["out"], (t * 3 + 8 + 2) % 32 + 100 * (2 + 1))


def test_a_local_named_as_the_generated_cuda_reserves_is_renamed(tmp_path):
    """`int max = ...;` (Parboil pns) and a macro's `__temp__` (Parboil lbm's SWEEP_VAR)
    are legal in the user's CUDA: values as C's (the build's registers carry no such
    names)."""
    kernel = only(tmp_path, """
#define HOLD(x) int __temp__ = (x)
__global__ void k(int* out) {
    __shared__ int s[32];
    int max = threadIdx.x * 2;
    HOLD(max + 1);
    s[threadIdx.x] = __temp__;
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x] + max;
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    t = np.arange(32)
    np.testing.assert_array_equal(run(kernel)["out"], (2 * (31 - t) + 1) + 2 * t)


def test_unistd_defines_posix_version_as_glibc_does(tmp_path):
    """Parboil's parboil.h stops with `#error` unless `_POSIX_VERSION >= 200112L`, which
    <unistd.h> defines on Linux (200809L): the #if takes glibc's branch."""
    kernel = only(tmp_path, """
#include <unistd.h>
#if _POSIX_VERSION >= 200112L
#define WIDTH 4
#else
#error "Timestamps not implemented"
#endif
__global__ void k(int* out) {
    __shared__ int s[32 * WIDTH];
    s[threadIdx.x * WIDTH] = 1;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x * WIDTH];
}
void h(int* o) { k<<<1, 32>>>(o); }
""", Options(lengths={"out": "32"}))
    assert analyze(kernel).store.wavefronts == 4          # 32 words 16 bytes apart


PARBOIL_IDIOMS = """
typedef int2 Node;
struct LocalQueues {
  int tail[8];
  int sharers[8];
  __device__ void reset(int index, dim3 block_dim) {
    tail[index] = 0;
    sharers[index] = (block_dim.x >> 3) + (threadIdx.x < (block_dim.x & 7));
  }
  __device__ void append(int index, int *overflow, int value) {
    int at = atomicAdd(&tail[index], 1);
    if (at >= 4) *overflow = 1;
  }
  __device__ int size_prefix_sum(int (&prefix_q)[8]) {
    prefix_q[0] = 0;
    for (int i = 1; i < 8; i++) prefix_q[i] = prefix_q[i - 1] + tail[i - 1];
    return prefix_q[7] + tail[7];
  }
};
__device__ void visit(int index, LocalQueues &q, int *overflow, int pid,
                      cudaTextureObject_t nodes_ref) {
  Node n = tex1Dfetch<Node>(nodes_ref, pid);
  for (int i = n.x; i < n.x + n.y; i++) q.append(index, overflow, i);
}
__global__ void k(int *out, int *overflow, cudaTextureObject_t nodes_ref) {
  __shared__ LocalQueues q;
  __shared__ int prefix_q[8];
  __shared__ int total;
  if (threadIdx.x < 8) q.reset(threadIdx.x, blockDim);
  __syncthreads();
  visit(threadIdx.x & 7, q, overflow, threadIdx.x, nodes_ref);
  __syncthreads();
  if (threadIdx.x == 0) total = q.size_prefix_sum(prefix_q);
  __syncthreads();
  dim3 g = gridDim;
  out[blockIdx.x * blockDim.x + threadIdx.x] =
      q.sharers[threadIdx.x & 7] * 1000 + total + g.x * 100000;
}
void h(int *o, int *f, cudaTextureObject_t t) { k<<<2, 36>>>(o, f, t); }
"""


def test_parboil_bfs_idioms(tmp_path):
    """Parboil bfs's LocalQueues as the kernel uses it: a __shared__ struct's member
    functions (`q.reset(i, blockDim)`, a dim3 parameter given the built-in), the struct
    passed by reference to a device function, a reference-to-array parameter
    (`int (&prefix_q)[8]`), a texture object of `typedef int2 Node` (the original's
    texture reference, which CUDA 12 removed), and `*overflow = 1` inside a
    member function making `overflow` an output. Values as C's: with 36 threads, queue
    i < 4 has 36 / 8 + 1 = 5 sharers, the others 4; each thread appends n.y texels' worth
    (the texture reads texel pid: x = y = its value here)."""
    kernel = only(tmp_path, PARBOIL_IDIOMS, Options(lengths={"out": "72", "overflow": "1",
                                                             "nodes_ref": "36"}))
    assert {g.name: g.intent for g in kernel.globals}["overflow"] in ("out", "inout")
    nodes = np.zeros(72, np.int32)
    nodes[0::2] = 0                       # n.x = 0
    nodes[1::2] = np.arange(36) % 3       # n.y = pid % 3 appends per thread
    got = run(kernel, arrays={"nodes_ref": nodes, "overflow": np.zeros(1, np.int32)})
    tid = np.arange(36)
    sharers = np.where(tid % 8 < 4, 5, 4)
    total = int((np.arange(36) % 3).sum())           # every append bumps one tail
    expected = sharers * 1000 + total + 2 * 100000
    np.testing.assert_array_equal(got["out"][:36], expected)
    np.testing.assert_array_equal(got["out"][36:], expected)


# a kernel whose launch the host code sizes (the host-variable tests)
MIRRORED = """
__global__ void k(float *out) {
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
"""


def test_a_host_variable_whose_address_is_taken_is_not_a_constant(tmp_path):
    """`int n = 0;` then `fscanf(fp, "%d", &n);` (Parboil bfs's node count): n is what the
    file holds, not 0; the grid it sizes is a question, not a launch of 0 blocks."""
    source = """
#include <cstdio>
""" + MIRRORED + """int main() {
  int n = 0;
  FILE *fp = fopen("graph.txt", "r");
  fscanf(fp, "%d", &n);
  float *out;
  cudaMalloc(&out, n * sizeof(float));
  k<<<n / 64, 64>>>(out);
}
"""
    with pytest.raises(KernelError, match="host variable 'n'"):
        only(tmp_path, source)
    kernel = only(tmp_path, source, Options(hosts={"n": "256"}))
    assert resolve_launch(kernel).grid == (4, 1, 1)


def test_a_moved_vector_pointer_parameter_steps_by_vectors(tmp_path):
    """`float2 *data; data += blockIdx.x * 64;` (Parboil fft's GPU_FftShMem): the pointer
    moves 64 float2 a block, and `v[r] = data[i]` reads a whole float2 through it into a
    register array; `p = data + 1` and p[i].y read on from there. Values as C's."""
    kernel = only(tmp_path, """
__global__ void k(float2 *data, float *out) {
    __shared__ float s[64];
    float2 v[2];
    data += blockIdx.x * 64;
    for (int r = 0; r < 2; r++) v[r] = data[threadIdx.x / 2 + r * 32];
    s[threadIdx.x] = v[0].x + v[1].y;
    float2 *p = data + 1;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] + 1000 * p[threadIdx.x % 32].y;
}
void h(float2 *d, float *o) { k<<<2, 64>>>(d, o); }
""", Options(lengths={"data": "128", "out": "128"}))
    data = np.arange(256, dtype=np.float32)          # float2 j = (2j, 2j + 1)
    got = run(kernel, arrays={"data": data, "out": np.zeros(128, np.float32)})["out"]
    expected = []
    for b in range(2):
        base = 64 * b
        s = [data[2 * (base + t // 2)] + data[2 * (base + t // 2 + 32) + 1] for t in range(64)]
        expected += [s[63 - t] + 1000 * data[2 * (base + 1 + t % 32) + 1] for t in range(64)]
    np.testing.assert_array_equal(got, np.array(expected, np.float32))


def test_pointers_declared_without_a_value_and_pointed_in_branches(tmp_path):
    """Parboil tpacf's `REAL* data_x; ... if (!do_self) { data_x = all_x; random_x = all_x
    + n * (bx - 2); } else { random_x = all_x + n * bx; data_x = random_x; }`: every
    assignment points into all_x, so each is a pointer into it whose offset the branch
    sets; sad's `unsigned short *bo; bo = out + ...;` then `((uint *)bo)[i] = ...` makes
    `out` an output. Values as C's; `__shared__ struct pair s[32]` (C's struct keyword)."""
    kernel = only(tmp_path, """
struct pair { float a, b; };
__global__ void k(float *all_x, unsigned short *out) {
    __shared__ struct pair s[32];
    float *data_x;
    float *random_x;
    unsigned short *bo;
    bool do_self = blockIdx.x < 2;
    if (!do_self) {
        data_x = all_x;
        random_x = all_x + 32 * (blockIdx.x - 2);
    } else {
        random_x = all_x + 32 * blockIdx.x;
        data_x = random_x;
    }
    bo = out + blockIdx.x * 64;
    s[threadIdx.x].a = data_x[threadIdx.x];
    s[threadIdx.x].b = random_x[31 - threadIdx.x];
    __syncthreads();
    ((unsigned int *)bo)[threadIdx.x] = (unsigned int)(s[threadIdx.x].a + s[threadIdx.x].b);
}
void h(float *x, unsigned short *o) { k<<<4, 32>>>(x, o); }
""", Options(lengths={"all_x": "128", "out": "256"}))
    assert {g.name: g.intent for g in kernel.globals}["out"] in ("out", "inout")
    x = np.arange(128, dtype=np.float32)
    got = run(kernel, arrays={"all_x": x, "out": np.zeros(256, np.uint16)})["out"]
    words = got.view(np.uint32)
    for b in range(4):
        data = 32 * b if b < 2 else 0
        rand = 32 * b if b < 2 else 32 * (b - 2)
        t = np.arange(32)
        np.testing.assert_array_equal(words[32 * b:32 * b + 32], data + t + rand + 31 - t)


def test_a_pointer_read_before_its_branch_assigns_it_is_the_builds(tmp_path):
    """A pointer declared without a value, assigned only inside an `if`, read where the
    branch was not taken (C leaves it undefined): nvcc's build takes the one assignment
    for every thread, so every thread reads a + threadIdx.x, as the GPU does."""
    kernel = only(tmp_path, """
__global__ void k(float *a, float *out) {
    __shared__ float s[32];
    float *p;
    if (threadIdx.x < 16) p = a + threadIdx.x;
    s[threadIdx.x] = *p;
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x];
}
void h(float *a, float *o) { k<<<1, 32>>>(a, o); }
""", Options(lengths={"a": "32", "out": "32"}))
    out = run(kernel, arrays={"a": np.arange(32, dtype=np.float32)})["out"]
    np.testing.assert_array_equal(out, np.arange(32)[::-1])


def test_a_pointer_pointed_at_two_arrays_in_branches_reads_each(tmp_path):
    """`if (t < 16) p = a; else p = b;` then `p[t]`: one access through either array,
    each thread's own."""
    kernel = only(tmp_path, """
__global__ void k(float *a, float *b, float *out) {
    __shared__ float s[32];
    float *p;
    if (threadIdx.x < 16) p = a; else p = b;
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x];
}
void h(float *a, float *b, float *o) { k<<<1, 32>>>(a, b, o); }
""", Options(lengths={"a": "32", "b": "32", "out": "32"}))
    a, b = np.arange(32, dtype=np.float32), 100 + np.arange(32, dtype=np.float32)
    read = np.where(np.arange(32) < 16, a, b)
    np.testing.assert_array_equal(run(kernel, arrays={"a": a, "b": b})["out"], read[::-1])


def test_a_kernel_parameter_array_of_structs_of_one_type(tmp_path):
    """Rodinia bfs's `Node* g_graph_nodes` (`struct Node { int starting; int no_of_edges;
    }`): a global array of ints, two a struct, its length from the host's
    `cudaMalloc(&d, n * sizeof(Node))` (sizeof a struct of the file: 8 bytes); fields read
    and written as C's. A struct of several field types there is its bytes (the same
    values through views of each field's type); a pointer field read from memory and
    followed is refused at its line."""
    source = """
struct Node { int starting; int no_of_edges; };
__global__ void k(Node *nodes, int *cost, int n) {
    __shared__ int s[64];
    int tid = blockIdx.x * 64 + threadIdx.x;
    s[threadIdx.x] = nodes[tid].starting * 10 + nodes[tid].no_of_edges;
    __syncthreads();
    if (tid < n) cost[tid] = s[63 - threadIdx.x];
    nodes[tid].no_of_edges = 0;
}
int main() {
    int n = 256;
    Node *d; int *c;
    cudaMalloc(&d, n * sizeof(Node)); cudaMalloc(&c, n * sizeof(int));
    k<<<n / 64, 64>>>(d, c, n);
}
"""
    kernel = only(tmp_path, source)
    nodes = next(g for g in kernel.globals if g.name == "nodes")
    assert nodes.intent == "inout"   # (its length, n * sizeof(Node) bytes: the run's data)
    data = np.arange(512, dtype=np.int32)            # node i = (2i, 2i + 1)
    got = run(kernel, arrays={"nodes": data, "cost": np.zeros(256, np.int32)})
    tid = np.arange(256)
    mirror = (tid // 64) * 64 + 63 - tid % 64
    np.testing.assert_array_equal(got["cost"], 2 * mirror * 10 + 2 * mirror + 1)
    np.testing.assert_array_equal(got["nodes"][1::2], 0)
    np.testing.assert_array_equal(got["nodes"][0::2], 2 * tid)
    mixed = only(tmp_path, source.replace("struct Node { int starting; int no_of_edges; };",
                                          "struct Mixed { int starting; float no_of_edges; };")
                 .replace("Node", "Mixed"))
    nodes = next(g for g in mixed.globals if g.name == "nodes")
    assert nodes.dtype.name == "u8"
    pairs = np.zeros(256, [("starting", "<i4"), ("no_of_edges", "<f4")])
    pairs["starting"], pairs["no_of_edges"] = 2 * tid, 0.5
    got = run(mixed, arrays={"nodes": pairs.view(np.uint8), "cost": np.zeros(256, np.int32)})
    np.testing.assert_array_equal(got["cost"], (2 * mirror * 10 + 0.5).astype(np.int32))
    assert (got["nodes"].view(pairs.dtype)["no_of_edges"] == 0).all()
    with pytest.raises(KernelError, match=r"k.cu:6:\d+(, `[^`]*`)?: .*a conversion of a number smemsim "
                                          r"cannot follow"):   # (the pointer read from memory)
        only(tmp_path, source.replace("struct Node { int starting; int no_of_edges; };",
                                      "struct Linked { int starting; int* no_of_edges; };")
             .replace("Node", "Linked").replace("nodes[tid].no_of_edges = 0;", "")
             .replace("nodes[tid].no_of_edges;", "*nodes[tid].no_of_edges;"))


def test_a_for_loop_whose_condition_reads_memory(tmp_path):
    """`for (int j = row[t]; j < row[t + 1]; j++)` (a CSR row; Rodinia bfs reads its
    struct's fields there) and the same over a variable declared outside: the condition is
    read where C reads it, before each iteration; values as C's."""
    kernel = only(tmp_path, """
struct Node { int starting; int no_of_edges; };
__global__ void k(Node *nodes, int *row, int *out) {
    __shared__ int s[32];
    int sum = 0, j;
    for (int i = row[threadIdx.x]; i < row[threadIdx.x + 1]; i++) sum += i;
    for (int i = nodes[threadIdx.x].starting;
         i < nodes[threadIdx.x].no_of_edges + nodes[threadIdx.x].starting; i++) sum += 100;
    for (j = row[threadIdx.x]; j < row[threadIdx.x + 1]; j++) sum += 10000;
    s[threadIdx.x] = sum + 1000000 * j;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
void h(Node *n, int *r, int *o) { k<<<1, 32>>>(n, r, o); }
""", Options(lengths={"nodes": "32", "row": "33", "out": "32"}))
    row = np.array([t * (t + 1) // 2 for t in range(33)], np.int32)   # t + 1 entries
    nodes = np.zeros(64, np.int32)
    nodes[0::2] = 5
    nodes[1::2] = np.arange(32) % 4                                      # edges of node t
    got = run(kernel, arrays={"nodes": nodes, "row": row, "out": np.zeros(32, np.int32)})
    t = np.arange(32)
    sums = np.array([sum(range(row[x], row[x + 1])) for x in t])
    expected = sums + 100 * (t % 4) + 10000 * (t + 1) + 1000000 * row[t + 1]
    np.testing.assert_array_equal(got["out"], expected)


def test_an_address_given_to_a_copy_is_written_only_as_its_destination(tmp_path):
    """`cudaMemcpy((void *)&m, d_n, ...)` writes m (the destination, cast or not): m is a
    question; `cudaMemcpy(d_n, (void *)&n, ...)` only reads n: n stays 64."""
    source = MIRRORED + """
int main() {
    int n = 64, m = 0;
    int *d_n;
    cudaMemcpy((void *)&m, d_n, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(d_n, (void *)&n, sizeof(int), cudaMemcpyHostToDevice);
    float *out;
    k<<<m + 1, n>>>(out);
}
"""
    with pytest.raises(KernelError, match="host variable 'm'"):
        only(tmp_path, source, Options(lengths={"out": "64"}))
    kernel = only(tmp_path, source, Options(lengths={"out": "64"}, hosts={"m": "3"}))
    assert (resolve_launch(kernel).grid, resolve_launch(kernel).block) == ((4, 1, 1),
                                                                           (64, 1, 1))


def test_a_pointer_into_a_vector_parameter_steps_by_its_vectors(tmp_path):
    """`const float2 *row = a + blockIdx.x * 64;` of a `const float2 *a` parameter (Parboil
    histo's `uint2 *load_bin = input + line * input_pitch + threadIdx.x`): 64 float2 on,
    not 64 floats. Values as C's."""
    kernel = only(tmp_path, """
__global__ void k(const float2 *a, float *out) {
    __shared__ float s[64];
    const float2 *row = a + blockIdx.x * 64;
    s[threadIdx.x] = row[threadIdx.x].x;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}
void h(const float2 *a, float *o) { k<<<2, 64>>>(a, o); }
""", Options(lengths={"a": "128", "out": "128"}))
    a = np.arange(256, dtype=np.float32)
    got = run(kernel, arrays={"a": a, "out": np.zeros(128, np.float32)})["out"]
    t = np.arange(128)
    np.testing.assert_array_equal(got, 2 * ((t // 64) * 64 + 63 - t % 64))


def test_a_pointer_to_an_element_of_a_vector_parameter(tmp_path):
    """`float4 *res = &(result[start]);` of a `float4 *result` (Rodinia hybridsort's
    mergeSortPass), then `res[i] = v`: whole float4 stores from element `start` on."""
    kernel = only(tmp_path, """
__global__ void k(float4 *result, float *out) {
    __shared__ float s[32];
    float4 *res = &(result[blockIdx.x * 32]);
    res[threadIdx.x] = make_float4(threadIdx.x, 1.0f, 2.0f, 3.0f);
    s[threadIdx.x] = res[threadIdx.x].x + res[threadIdx.x].w;
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x] = s[31 - threadIdx.x];
}
void h(float4 *r, float *o) { k<<<2, 32>>>(r, o); }
""", Options(lengths={"result": "64", "out": "64"}))
    got = run(kernel, arrays={"result": np.zeros(256, np.float32),
                              "out": np.zeros(64, np.float32)})
    t = np.arange(64)
    np.testing.assert_array_equal(got["out"], 31 - t % 32 + 3)
    np.testing.assert_array_equal(got["result"][0::4], t % 32)


def test_a_difference_of_pointers_into_a_vector_parameter_counts_vectors(tmp_path):
    """`row - a` with `const float2 *row = a + blockIdx.x * 8` of a `float2 *a`: 8 float2
    a block (the parameter is held as its scalars: 16 of them)."""
    kernel = only(tmp_path, """
__global__ void k(const float2 *a, int *out) {
    __shared__ int s[32];
    const float2 *row = a + blockIdx.x * 8;
    s[threadIdx.x] = (int)(row - a) + (int)(&a[threadIdx.x] - a);
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x];
}
void h(const float2 *a, int *o) { k<<<2, 32>>>(a, o); }
""", Options(lengths={"a": "64", "out": "64"}))
    got = run(kernel, arrays={"a": np.zeros(128, np.float32), "out": np.zeros(64, np.int32)})
    t = np.arange(64)
    np.testing.assert_array_equal(got["out"], 8 * (t // 32) + t % 32)


def test_a_field_through_a_struct_pointer_local(tmp_path):
    """Rodinia nn's `LatLong *latLong = d_locations + globalId;` then `latLong->lat`: the
    field of the struct the pointer points at, read and written (`latLong->lng = ...` makes
    d_locations an output). Values as C's."""
    kernel = only(tmp_path, """
typedef struct latLong { float lat; float lng; } LatLong;
__global__ void euclid(LatLong *d_locations, float *d_distances, float lat) {
    __shared__ float s[64];
    int id = blockDim.x * blockIdx.x + threadIdx.x;
    LatLong *latLong = d_locations + id;
    s[threadIdx.x] = (lat - latLong->lat) * (lat - latLong->lat) + latLong->lng;
    latLong->lng = 0.5f;
    __syncthreads();
    d_distances[id] = s[63 - threadIdx.x];
}
void h(LatLong *l, float *d) { euclid<<<2, 64>>>(l, d, 1.0f); }
""", Options(lengths={"d_locations": "128", "d_distances": "128"}))
    assert {g.name: g.intent for g in kernel.globals}["d_locations"] == "inout"
    loc = np.arange(256, dtype=np.float32)          # struct i = (2i, 2i + 1)
    got = run(kernel, arrays={"d_locations": loc, "d_distances": np.zeros(128, np.float32)})
    t = np.arange(128)
    mirror = (t // 64) * 64 + 63 - t % 64
    np.testing.assert_array_equal(got["d_distances"],
                                  (1.0 - 2 * mirror) ** 2 + 2 * mirror + 1)
    np.testing.assert_array_equal(got["d_locations"][1::2], 0.5)


def test_a_shared_variable_of_a_vector_type(tmp_path):
    """`__shared__ uint4 s_Work;` (Parboil rpes's ComputeX): one 16-byte vector in shared
    memory, stored whole by thread 0 (one STS.128, one wavefront); the warp reads the two
    lanes it uses (x and w: two LDS of one address each, as built); values as C's."""
    kernel = only(tmp_path, """
__global__ void k(uint4 *d_Work, unsigned int *out) {
    __shared__ uint4 s_Work;
    if (!threadIdx.x) s_Work = d_Work[blockIdx.x];
    __syncthreads();
    uint4 myWork = s_Work;
    out[blockIdx.x * 32 + threadIdx.x] = myWork.x + myWork.w;
}
void h(uint4 *w, unsigned int *o) { k<<<2, 32>>>(w, o); }
""", Options(lengths={"d_Work": "2", "out": "64"}))
    r = analyze(kernel)
    assert [(s.array, s.op, s.width, s.requests) for s in r.sites] == [
        ("s_Work", "store", 16, 2), ("s_Work", "load", 4, 2), ("s_Work", "load", 4, 2)]
    assert r.static_smem == 16
    got = run(kernel, arrays={"d_Work": np.arange(8, dtype=np.uint32),
                              "out": np.zeros(64, np.uint32)})["out"]
    np.testing.assert_array_equal(got, np.repeat([0 + 3, 4 + 7], 32))


def test_a_file_read_again_is_read_anew_once_a_header_it_includes_changes(tmp_path):
    """A verb reads one file's host code up to three times (its kernels, an instance, a
    signature), kept in between; a header edited between two reads in one process (the MCP
    server's) is read anew: the launch follows the header's new block size."""
    import os
    from smemsim.frontends.cuda import host_kernels
    header = tmp_path / "sizes.h"
    header.write_text("#define THREADS 128\n")
    cu = tmp_path / "k.cu"
    cu.write_text('#include "sizes.h"\n__global__ void k(float *p) {\n'
                  "  __shared__ float s[1024];\n  s[threadIdx.x] = p[threadIdx.x];\n}\n"
                  "void go(float *p) { k<<<1, THREADS>>>(p); }\n")
    block = lambda: [e.arg for e in host_kernels(str(cu))["k"]().block]   # noqa: E731
    assert block() == block() == [128, 1, 1]
    header.write_text("#define THREADS 256\n")
    st = os.stat(header)   # (a millisecond on: a coarse clock may stamp the edit alike)
    os.utime(header, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert block() == [256, 1, 1]


def test_a_header_given_as_the_file_is_read_as_cuda(tmp_path):
    """Kernels often live in headers (a blog's device_reduce_stable.h): given as FILE, a
    `.h` or `.hpp` is CUDA source as a `.cu` is (it was "not a file smemsim reads", and with
    -D "a kernels file"). 4 blocks of 128 threads, each storing once: 16 requests."""
    for name in ("k.h", "k.hpp"):
        f = tmp_path / name
        f.write_text("#pragma once\n__global__ void k(float *p) {\n"
                     "  __shared__ float s[128];\n  s[threadIdx.x] = p[threadIdx.x];\n"
                     "  __syncthreads();\n  p[threadIdx.x] = s[127 - threadIdx.x];\n}\n"
                     "inline void go(float *p) { k<<<4, 128>>>(p); }\n")
        code, out, err = cli_streams("analyze", str(f), "-DUNUSED=1", "--length", "p=128")
        assert code == 0, err
        assert "stores: 16 requests, 16 wavefronts" in " ".join(out.split())


def test_a_launch_through_a_function_pointer_is_named_where_it_is_not_followed(tmp_path):
    """The NVIDIA blog's finite-difference.cu launches its kernels through an array of
    function pointers (`fpDeriv[fp]<<<grid[d][fp], block[d][fp]>>>`): the host reading does
    not follow it, and the question it asks now says where the kernel's address is taken
    and where the pointer is launched."""
    f = tmp_path / "fd.cu"
    f.write_text("__global__ void dx(float *f) {\n  __shared__ float s[64];\n"
                 "  s[threadIdx.x] = f[threadIdx.x];\n}\n"
                 "void go(float *f, int i) {\n  void (*fp[1])(float *);\n  fp[0] = dx;\n"
                 "  fp[i]<<<4, 64>>>(f);\n}\n")
    code, out, err = cli_streams("analyze", str(f))
    assert code == 2
    said = " ".join(err.split())
    assert f"its address is taken at {f}:7:11, `fp[0] = dx;`" in said, said
    assert f"launches through a pointer at {f}:8:3, `fp[i]<<<4, 64>>>(f)`" in said
    assert "--launch-grid X[,Y,Z] and --launch-block X[,Y,Z]" in said


def test_a_race_names_the_element_as_the_source_declares_the_array(tmp_path):
    """nvcc's build reads a `__shared__ float tile[4][33]` as a flat window: a race was said
    at `tile[35]` (a new user's review: `tile[1]` for `tile[0][1]`); it is said at the
    source's element, `tile[1][2]` (35 = 1 * 33 + 2: thread 35 writes it, thread 0 reads
    it with no barrier between)."""
    f = tmp_path / "r.cu"
    f.write_text("__global__ void k(const float *in, float *out) {\n"
                 "  __shared__ float tile[4][33];\n"
                 "  tile[threadIdx.x / 33][threadIdx.x % 33] = in[threadIdx.x];\n"
                 "  out[threadIdx.x] = tile[1][2];\n}\n"
                 "void go(const float *in, float *out) { k<<<1, 64>>>(in, out); }\n")
    code, out, err = cli_streams("check", str(f), "--length", "out=64", "--length", "in=64")
    assert code == 1, err
    assert "read-write race on tile[1][2] (byte 140)" in " ".join(out.split()), out

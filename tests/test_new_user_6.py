"""Issue #54: what the sixth new-user review (42nd session) met on kernels of its own, each
now answered (the review's kernels stay in its folder; these are small ones of the same
kinds, their counts worked out in each docstring)."""
import json
import re

import numpy as np
import pytest

from tests.test_new_user import CAS_MAX, CONV, cli

SPMV = """
#define BLOCK_SIZE 256
__global__ void spmv(const int num_rows, const int *ptr, const int *indices,
                     const float *data, const float *x, float *y)
{
    __shared__ volatile float vals[BLOCK_SIZE];
    int thread_id = blockDim.x * blockIdx.x + threadIdx.x;
    int row = thread_id / 32, lane = thread_id & 31;
    if (row < num_rows) {
        vals[threadIdx.x] = 0;
        for (int jj = ptr[row] + lane; jj < ptr[row + 1]; jj += 32)
            vals[threadIdx.x] += data[jj] * x[indices[jj]];
        if (lane < 16) vals[threadIdx.x] += vals[threadIdx.x + 16];
        if (lane < 8) vals[threadIdx.x] += vals[threadIdx.x + 8];
        if (lane == 0) y[row] += vals[threadIdx.x];
    }
}
int main() {
    int *p, *i; float *d, *x, *y;
    spmv<<<32, BLOCK_SIZE>>>(256, p, i, d, x, y);
    return 0;
}
"""


def _spmv_args(tmp_path, ptr):
    f = tmp_path / "spmv.cu"
    f.write_text(SPMV)
    np.save(tmp_path / "ptr.npy", ptr)
    return [str(f), "--length", "ptr=257", "--length", "indices=8192", "--length",
            "data=8192", "--length", "x=256", "--length", "y=256"]


def test_data_takes_the_pointers_declared_element_type(tmp_path):
    """The review's P1: `--data ptr=FILE` of a `const int*` was refused as 'holds u8' with
    advice (astype) that truncates the values. A CSR of 32 nonzeros a row (ptr = 0, 32, ...)
    runs the loop once a lane: 256 rows x 1 = 256 warp-requests of the loop's load of
    vals, as the review counted at 1 M rows."""
    args = _spmv_args(tmp_path, np.arange(257, dtype=np.int32) * 32)
    code, out, err = cli("analyze", *args, "--data", f"ptr={tmp_path / 'ptr.npy'}", "--json")
    assert code == 0, err
    sites = json.loads(out)["results"][0]["sites"]
    loop = [s for s in sites if s["line"] == 12 and s["op"] == "load"]
    assert sum(s["requests"] for s in loop) == 256, loop
    # an array of another type is refused with the type the source declares
    np.save(tmp_path / "wrong.npy", np.arange(257, dtype=np.float32))
    code, _, err = cli("analyze", *args, "--data", f"ptr={tmp_path / 'wrong.npy'}")
    assert code == 2 and "float32 elements; 'ptr' holds i32 (int32)" in err, err


def test_an_intra_warp_race_says_syncwarp_on_its_line_and_keeps_its_element(tmp_path):
    """CSR SpMV's warp-synchronous tree (no __syncwarp): each race is between lanes of one
    warp, though all 8 warps run both lines (each its own 32 slots of vals); each says so,
    and names the element (vals[16] by lane 0 of warp 0 reading what lane 16 wrote)."""
    args = _spmv_args(tmp_path, np.arange(257, dtype=np.int32) * 32)
    code, out, _ = cli("check", *args, "--data", f"ptr={tmp_path / 'ptr.npy'}")
    assert code == 1
    races = [line for line in out.splitlines() if "race on vals" in line]
    assert races and all("lanes of one warp: a __syncwarp() between them" in r
                         for r in races), out
    assert all("race on vals[" in r for r in races), races


def test_a_pointer_only_stored_through_is_an_output(tmp_path):
    """The review's minor: `inputs:` listed bitonic sort's d_DstKey, which the kernel only
    writes, as seeded random input. A pointer the PTX only stores through is `out` (zeros,
    not an input); one it also reads is `inout` (y += ...); one it only reads, `in`."""
    from smemsim.frontends.loader import load_kernels
    args = _spmv_args(tmp_path, np.arange(257, dtype=np.int32))
    kernel = load_kernels(args[0])["spmv"]()
    assert {g.name: g.intent for g in kernel.globals} == {
        "ptr": "in", "indices": "in", "data": "in", "x": "in", "y": "inout"}
    f = tmp_path / "copy.cu"
    f.write_text("__global__ void cp(const float *a, float *b) { b[threadIdx.x] = "
                 "a[threadIdx.x]; }\nint main() { float *a, *b; cp<<<1, 32>>>(a, b); }\n")
    kernel = load_kernels(str(f))["cp"]()
    assert {g.name: g.intent for g in kernel.globals} == {"a": "in", "b": "out"}


CARVE = """
__global__ void carve(const float *x, int *out)
{
    extern __shared__ float smem[];
    int *s_idx = (int *)(smem + blockDim.x);
    smem[threadIdx.x] = x[threadIdx.x];
    s_idx[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s_idx[threadIdx.x] + (int)smem[threadIdx.x];
}
static int pick(int n) { switch (n >> 20) { case 0: return 128; default: return 256; } }
int main() {
    int n = 1 << 24, bs = pick(n);
    float *x; int *o;
    carve<<<n / bs, bs, 2 * bs * sizeof(float)>>>(x, o);
    return 0;
}
"""


def test_a_launchs_shared_memory_the_host_cannot_say_is_asked_for(tmp_path):
    """The review's P6: with the grid and block given (the host's switch cannot be read),
    the launch's `2 * bs * sizeof(float)` became 0 bytes ('valid 0..-1'). Now the launch's
    expression is read, and where it cannot be, asked for; given, 2 x 256 x 4 bytes hold
    both arrays: 256 threads store 8 warps x 2 arrays = 16 requests."""
    f = tmp_path / "carve.cu"
    f.write_text(CARVE)
    launch = ["--launch-grid", "65536", "--launch-block", "256"]
    code, _, err = cli("analyze", str(f), *launch)
    assert code == 2, err
    assert "gives `2 * bs * sizeof(float)` bytes of dynamic shared memory" in err
    assert "--launch-smem" in err
    code, out, err = cli("analyze", str(f), *launch, "--launch-smem", "2048", "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["store"]["requests"] == 65536 * 16


def test_a_wrapped_index_is_said_as_the_signed_value_it_wrapped_from(tmp_path):
    """nvcc's PTX computes `i - 2` in unsigned registers: a halo read before the array's
    start faulted at 'index 4294967294'; now also as -2."""
    f = tmp_path / "halo.cu"
    f.write_text("__global__ void halo(const float *a, float *b) {\n"
                 "    __shared__ float s[64];\n    s[threadIdx.x] = a[threadIdx.x];\n"
                 "    __syncthreads();\n    b[threadIdx.x] = s[threadIdx.x - 2];\n}\n"
                 "int main() { float *a, *b; halo<<<1, 64>>>(a, b); }\n")
    code, _, err = cli("analyze", str(f), "--length", "a=64", "--length", "b=64")
    assert code == 2
    assert "index 4294967294 (-2 as a signed 32-bit value) of 's'" in err, err


def test_estimates_are_said_in_gcc_sarif_and_the_pages_headline(tmp_path):
    """The review's P5: a CAS loop's count is an estimate (the GPU's passes depend on its
    scheduling); the text said so, gcc and SARIF did not, and a gate read the number as
    exact. Now each says it, SARIF with properties a gate can read."""
    f = tmp_path / "peak.cu"
    f.write_text(CAS_MAX)
    lengths = ["--length", "w=128", "--length", "out=32"]
    code, out, _ = cli("analyze", str(f), *lengths, "--format", "gcc")
    cas = [line for line in out.splitlines() if "atomicCAS" in line]
    assert cas and all("an estimate: a retry loop" in line for line in cas), out
    sarif = tmp_path / "peak.sarif"
    cli("analyze", str(f), *lengths, "--sarif", str(sarif))
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    props = [r["properties"] for r in results if "atomicCAS" in r["message"]["text"]]
    assert props and all(p["estimate"] and not p["at_least"] for p in props), results
    # (the seventh review: the table's rows and JSON's sites say it too)
    code, out, _ = cli("analyze", str(f), *lengths)
    rows = [line for line in out.splitlines() if " atom.cas " in line]
    assert rows and all("≈" in row for row in rows), out
    code, out, _ = cli("analyze", str(f), *lengths, "--json")
    sites = json.loads(out)["results"][0]["sites"]
    assert any(s["estimate"] for s in sites) and not any(s["estimate"] and s["at_least"]
                                                         for s in sites)
    page = tmp_path / "peak.html"
    cli("report", str(f), *lengths, "--no-check", "--no-fix", "-o", str(page))
    html = page.read_text()
    summary = html[html.index('<p class="summary">'):]
    assert summary.startswith('<p class="summary"><b>≈ ') and "an estimate" in summary[:600]


def test_report_builds_the_padding_fix_finds(tmp_path):
    """The review's P2: the page said 'No padding or swizzle tried lowers the wavefronts'
    where `fix` found pad 28 (the halo tile of test_fix_finds_the_padding_that_puts_...):
    the report builds one padding, and now also the one the trace's re-costing finds."""
    f = tmp_path / "conv.cu"
    f.write_text(CONV)
    page = tmp_path / "conv.html"
    code, _, err = cli("report", str(f), "--no-check", "-o", str(page))
    assert code == 0, err
    assert "<b>Best fix:</b> tile pad 28: 430 -> 220 wavefronts" in page.read_text()


def test_json_names_loops_by_line_and_the_statement_as_written(tmp_path):
    """The review's P7: JSON said `"iterations": {"iter_l8": 0}` (an internal name) and
    `"statement"` held nvcc's build (registers). Now a loop with no variable of its own is
    `line N`, `statement` is the line as written, `ir` the build's reading."""
    from tests.test_new_user import LOOPS
    f = tmp_path / "looped.cu"
    f.write_text(LOOPS)
    code, out, err = cli("analyze", str(f), "-D", "ONE=1", "--json")
    assert code == 0, err
    sites = json.loads(out)["results"][0]["sites"]
    worst = [s["worst"]["iterations"] for s in sites if s["worst"] and s["worst"]["iterations"]]
    assert worst and all(set(w) == {"line 8"} for w in worst), worst
    assert all(s["statement"] == s["source"] for s in sites if s["source"])
    assert not any(re.search(r"\b[rf]\d+\b", s["statement"]) for s in sites)
    assert any(re.search(r"\b[rf]\d+\b", s["ir"]) for s in sites)   # (nvcc's registers)


def test_explain_refuses_a_site_the_kernel_lacks_before_tracing(tmp_path):
    """The review's P4: `explain FILE 39` traced the whole data-driven launch (2 minutes)
    to say there is no site 39; the kernel knows its sites."""
    args = _spmv_args(tmp_path, np.arange(257, dtype=np.int32))
    code, _, err = cli("explain", *args, "999")
    assert code == 2 and "has no site 999; its sites are 0-" in err, err


def test_a_cupy_program_sized_with_a_shift_is_read(tmp_path):
    """The review's minor: `N = 1 << 24` at a cupy program's top was 'computed at run
    time'; shifts and bit operations of constants are folded as the other operators are."""
    f = tmp_path / "prog.py"
    f.write_text('import cupy as cp\nN = 1 << 16\ncode = r"""\n'
                 'extern "C" __global__ void k(float *x) {\n'
                 '    __shared__ float s[256];\n    s[threadIdx.x] = x[blockIdx.x * 256 + '
                 'threadIdx.x];\n    __syncthreads();\n'
                 '    x[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];\n}\n"""\n'
                 'mod = cp.RawModule(code=code)\nk = mod.get_function("k")\n'
                 'x = cp.zeros(N, dtype=cp.float32)\nk((N // 256,), (256,), (x,))\n')
    code, out, err = cli("analyze", str(f), "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["grid"][0] == 256


@pytest.mark.toolkit
def test_two_calls_of_one_cub_function_on_one_line_of_the_table_are_said(tmp_path, nvcc):
    """The review's P3: nvcc's line table gives both `BlockReduce(tmp).Sum(...)` calls'
    shared accesses to the second call's line; the PTX cannot tell them apart, so it is
    said (in analyze's notes, and by explain of the first call's line)."""
    f = tmp_path / "ln.cu"
    f.write_text("#include <cub/block/block_reduce.cuh>\n"
                 "__global__ void ln(const float *x, float *y) {\n"
                 "    typedef cub::BlockReduce<float, 256> R;\n"
                 "    __shared__ typename R::TempStorage tmp;\n"
                 "    float a = x[threadIdx.x], b = a * a;\n"
                 "    float s = R(tmp).Sum(a);\n"
                 "    __syncthreads();\n"
                 "    float q = R(tmp).Sum(b);\n"
                 "    if (threadIdx.x == 0) { y[0] = s; y[1] = q; }\n}\n"
                 "int main() { float *x, *y; ln<<<1, 256>>>(x, y); }\n")
    code, out, err = cli("analyze", str(f), "--length", "x=256", "--length", "y=2")
    assert code == 0, err
    said = [line for line in out.splitlines() if " calls block_reduce.cuh:" in line]
    if not said:   # (a toolkit whose line table keeps the two calls apart: nothing to say)
        assert "ln.cu:6" in out
        return
    assert said[0].startswith("ln.cu:6 calls block_reduce.cuh:") and "ln.cu:8" in said[0]
    code, _, err = cli("explain", str(f), "--length", "x=256", "--length", "y=2", "ln.cu:6")
    assert code == 2 and "nvcc's line table puts the shared accesses" in err


def test_a_report_draws_one_bank_map_a_line(tmp_path):
    """The review's page size: a line nvcc unrolled into 4 copies drew 4 bank maps of one
    kind; now its costliest copy's map stands for the line (the others say so)."""
    from tests.test_new_user import LOOPS
    f = tmp_path / "looped.cu"
    f.write_text(LOOPS)
    page = tmp_path / "looped.html"
    code, _, err = cli("report", str(f), "-D", "ONE=1", "--no-check", "--no-fix",
                       "-o", str(page))
    assert code == 0, err
    html = page.read_text()
    assert html.count('aria-label="bank map') == 1
    assert "the costliest of the build's copies of this line, has the line's bank map" in html


def test_a_file_nvcc_cannot_build_says_so_before_asking_for_a_launch(tmp_path):
    """The review's MCP finding: a kernel with a syntax error and no launch was answered
    'no launch of k', which no launch mends; nvcc's error comes first."""
    f = tmp_path / "bad.cu"
    f.write_text("__global__ void k(float *a) { int x = ; a[0] = x; }\n")
    code, _, err = cli("analyze", str(f))
    assert code == 2 and "nvcc could not build the file" in err and "bad.cu:1" in err, err


def test_the_table_says_a_column_in_one_unit_and_interleaved_sites_as_runs():
    """The review's minor: a column held 23.6M beside 5,242,880; a legend said 'sites 8, 9,
    ... 19 (8 of them)' for two runs of 4."""
    from smemsim.cli.phrases import numbers_text
    from smemsim.cli.render import _count
    assert (_count(5_242_880, 23_592_960), _count(23_592_960, 23_592_960)) == ("5.2M", "23.6M")
    assert _count(5_242_880, 9_000_000) == "5,242,880"
    # (the seventh review: never 0.0G for 524,288, nor 0.0M for nothing)
    assert (_count(524_288, 1_100_000_000), _count(0, 18_700_000)) == ("0.5M", "0")
    assert _count(1_100_000_000, 1_100_000_000) == "1,100.0M"
    assert numbers_text([8, 9, 10, 11, 16, 17, 18, 19]) == "8-11, 16-19"
    assert numbers_text(list(range(5, 36, 2))) == "5, 7, ... 35 (16 of them)"
    # (the fifteenth review: `2, 4, ... 41 (32 of them)` of sites not one series, and `2..41`
    # in the table's column, read as ranges)
    uneven = [2, 4, 6, 8, 10, 12, 14, *range(16, 41), 41]
    assert numbers_text(uneven) == "2 to 41 (33 of the 40)"
    import dataclasses
    from smemsim.cli.render import _group_row
    from smemsim.frontends.loader import load_kernels
    from smemsim.launch.analysis import analyze
    site = analyze(load_kernels("examples/transpose.py")["naive"]()).sites[0]
    row = _group_row([dataclasses.replace(site, site=n) for n in uneven], None)
    assert row["#"] == "33 in 2-41"
    # (the eighteenth: `2 in 1-6` of sites 1 and 6; a few are listed)
    assert _group_row([dataclasses.replace(site, site=n) for n in (1, 6)], None)["#"] == "1, 6"


def test_fix_patch_of_two_conflicted_kernels_refuses_before_searching(tmp_path):
    """The review's minor: `fix --patch` of a file whose two kernels both conflict searched
    both (16 s) before saying it writes one kernel's patch at a time; the analyses say it
    first."""
    f = tmp_path / "two.cu"
    f.write_text("""
__global__ void a(float *o) { __shared__ float s[32][32]; s[threadIdx.x][0] = 1.f;
    __syncthreads(); o[threadIdx.x] = s[threadIdx.x][0]; }
__global__ void b(float *o) { __shared__ float t[32][64]; t[threadIdx.x][0] = 1.f;
    __syncthreads(); o[threadIdx.x] = t[threadIdx.x][0]; }
int main() { float *o; a<<<1, 32>>>(o); b<<<1, 32>>>(o); }
""")
    code, out, err = cli("fix", str(f), "--length", "o=32", "--patch", str(tmp_path / "p"))
    assert code == 2 and "2 kernels have bank conflicts (a, b): patch one at a time" in err
    assert not out and not (tmp_path / "p").exists()


def test_the_seventh_reviews_host_and_input_findings(tmp_path):
    """`int minGrid, bs2;` declares bs2 (its second declarator): a launch by it asks for its
    value (--host), not for a -D that would break the build; the inputs line says what the
    seeded random values are (a hash's keys 0..255 are no user's keys)."""
    f = tmp_path / "occ.cu"
    f.write_text("""
__global__ void rev(float *a) { __shared__ float s[1024]; s[threadIdx.x] = a[threadIdx.x];
    __syncthreads(); a[threadIdx.x] = s[(threadIdx.x * 8) % blockDim.x]; }
int main() {
    float *a; int minGrid, bs2;
    cudaOccupancyMaxPotentialBlockSize(&minGrid, &bs2, rev, 0, 0);
    rev<<<1, bs2>>>(a);
    return 0;
}
""")
    code, _, err = cli("analyze", str(f), "--length", "a=1024")
    assert code == 2 and "uses the host variable 'bs2': give its value (--host 'bs2=VALUE')" \
        in err, err
    code, out, err = cli("analyze", str(f), "--length", "a=1024", "--host", "bs2=256")
    assert code == 0, err
    args = _spmv_args(tmp_path, np.arange(257, dtype=np.int32))
    code, out, _ = cli("analyze", *args)
    assert "ptr = seeded random (seed 0, i32 uniform in 0..255)" in out
    assert "x = seeded random (seed 0, f32 uniform in [-1, 1))" in out


def test_explain_of_a_callers_line_as_a_number_says_to_give_file_and_line(tmp_path):
    """The seventh review's minor: `explain FILE 44` of the line that calls a helper read
    44 as a site number; the refusal says how to name the line."""
    f = tmp_path / "helper.cu"
    f.write_text("""__device__ float get(const float *t, int i)
{
    return t[i];
}
__global__ void k(const float *a, float *b)
{
    __shared__ float t[32][33];
    t[threadIdx.x][0] = a[threadIdx.x]; __syncthreads();
    b[threadIdx.x] = get(&t[0][0], threadIdx.x * 33);
}
int main() { float *a, *b; k<<<1, 32>>>(a, b); }
""")
    code, _, err = cli("explain", str(f), "--length", "a=32", "--length", "b=32", "9")
    assert code == 2 and "has no site 9" in err and "give it as helper.cu:9" in err, err


@pytest.mark.toolkit
def test_a_global_atomic_beside_a_shared_one_is_no_merged_call(tmp_path, nvcc):
    """The seventh review's minor: line 4's global atomicAdd was said to have its accesses
    counted at line 3 (the shared atomicAdd's), as two cub calls are; it has its own (a
    global access), so nothing is said."""
    f = tmp_path / "hist.cu"
    f.write_text("__global__ void h(const int *k, int *out) {\n"
                 "    __shared__ int bins[256]; bins[threadIdx.x] = 0; __syncthreads();\n"
                 "    atomicAdd(&bins[k[threadIdx.x] & 255], 1); __syncthreads();\n"
                 "    atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);\n}\n"
                 "int main() { int *k, *o; h<<<1, 256>>>(k, o); }\n")
    code, out, err = cli("analyze", str(f), "--length", "k=256", "--length", "out=256")
    assert code == 0, err
    assert " calls " not in out, out


def test_a_cupy_scalar_type_is_read_as_numpys(tmp_path):
    """`cp.int32(N)` passes a scalar as `np.int32(N)` does."""
    f = tmp_path / "prog.py"
    f.write_text('import cupy as cp\nN = 4096\ncode = r"""\n'
                 'extern "C" __global__ void k(float *x, int n) {\n'
                 '    __shared__ float s[256];\n    int i = blockIdx.x * 256 + threadIdx.x;\n'
                 '    s[threadIdx.x] = i < n ? x[i] : 0.f;\n    __syncthreads();\n'
                 '    if (i < n) x[i] = s[255 - threadIdx.x];\n}\n"""\n'
                 'mod = cp.RawModule(code=code)\nk = mod.get_function("k")\n'
                 'x = cp.zeros(N, dtype=cp.float32)\nk((N // 256,), (256,), (x, cp.int32(N)))\n')
    code, out, err = cli("analyze", str(f), "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["params"] == {"n": 4096}


@pytest.mark.toolkit
def test_a_reduce_reading_shared_memory_through_its_argument_is_no_merged_call(tmp_path,
                                                                               nvcc):
    """llm.c's attention backward: line 7 stores `cg::reduce(warp, v)` to shared memory
    (the store at its own line), line 9 calls `cg::reduce(warp, acc[lane])`, which reads
    acc through its reference inside reduce: each line has its own shared access, so no
    merged-call note."""
    f = tmp_path / "red.cu"
    f.write_text("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
                 "namespace cg = cooperative_groups;\n"
                 "__global__ void k(const float *x, float *y) { __shared__ float acc[32];\n"
                 "    auto block = cg::this_thread_block(); auto warp = cg::tiled_partition<32>(block);\n"
                 "    float v = x[threadIdx.x] * 2.f;\n"
                 "    acc[warp.meta_group_rank()] = cg::reduce(warp, v, cg::plus<float>{});\n"
                 "    block.sync();\n"
                 "    float s = cg::reduce(warp, acc[warp.thread_rank()], cg::plus<float>{});\n"
                 "    if (threadIdx.x == 0) y[0] = s;\n}\n"
                 "int main() { float *x, *y; k<<<1, 1024>>>(x, y); }\n")
    code, out, err = cli("analyze", str(f), "--length", "x=1024", "--length", "y=1")
    assert code == 0, err
    assert " calls " not in out, out

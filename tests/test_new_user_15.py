"""The fifteenth new-user review's findings (launches the host reading met in public code,
numba kernels launched through a function, values asked for, several kernels in one file),
each fixed and held here."""
import json

import pytest

from tests.test_new_user import cli

COMMA = """
#define T 16
__global__ void k(const float *in, float *out, int n)
{
    __shared__ float s[T][T];
    int x = blockIdx.x * T + threadIdx.x;
    s[threadIdx.y][threadIdx.x] = in[x];
    __syncthreads();
    out[x] = s[threadIdx.x][threadIdx.y];
}
int main()
{
    const int n = 256;
    float *a, *b;
    cudaMalloc(&a, n * sizeof(float)); cudaMalloc(&b, n * sizeof(float));
    k<<<(n / T, n / T), (T, T)>>>(a, b, n);
}
"""


def test_a_launch_of_a_comma_expression_is_read_as_c_reads_it_and_said(tmp_path):
    """tgrogers/ece695-2021's shmem-gemm launches `<<<(size/TILE_WIDTH, size/TILE_WIDTH),
    (TILE_WIDTH, TILE_WIDTH)>>>`: C's comma operator, so the grid is size/TILE_WIDTH and the
    block TILE_WIDTH, both one-dimensional (the file's bug). The review met a question it
    could not answer (`--host 'size/32, size/32=VALUE'`, then `--host '32, 32=VALUE'`).
    Here 16 blocks of 16 threads, one warp each, as the GPU would run it: each warp's store
    and load is one request, and the notes name both commas."""
    f = tmp_path / "comma.cu"
    f.write_text(COMMA)
    code, out, err = cli("analyze", str(f), "--json")
    assert code == 0, err
    (r,) = json.loads(out)["results"]
    assert r["grid"] == [16, 1, 1] and r["block"] == [16, 1, 1]
    assert (r["load"]["requests"], r["store"]["requests"]) == (16, 16)
    code, out, err = cli("analyze", str(f))
    said = " ".join(out.split())
    assert "comma.cu:16:10: the launch's `(n / 16, n / 16)` is C's comma operator: its " \
        "value is `n / 16` alone, a one-dimensional size; `dim3(n / 16, n / 16)` makes it " \
        "2-D (counted as C reads it)" in said
    assert "comma.cu:16:26: the launch's `(16, 16)` is C's comma operator" in said
    # (the tile read down its column by 16 lanes: words 16 apart, two banks, 8-way)
    assert (r["load"]["wavefronts"], r["store"]["wavefronts"]) == (128, 16)


TWO_KERNELS = """
__global__ void fixed(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
__global__ void sized(float *out, int m, int n, float alpha, float beta)
{
    __shared__ float s[64];
    s[threadIdx.x] = alpha * threadIdx.x + beta;
    __syncthreads();
    out[blockIdx.x * m + threadIdx.x] = s[(threadIdx.x * n) % 64];
}
void run_fixed(float *out) { fixed<<<1, 64>>>(out); }
void run_sized(float *out, int m, int n, float alpha, float beta)
{
    sized<<<4, 64>>>(out, m, n, alpha, beta);
}
"""


def test_values_a_launch_needs_are_asked_for_at_once(tmp_path):
    """The review's sgemm asked for M, then (given M, N and K) alpha, then beta: four runs
    to a table. Every missing value is now named in one error."""
    f = tmp_path / "two.cu"
    f.write_text(TWO_KERNELS)
    code, _, err = cli("analyze", str(f), "--kernel", "sized")
    said = " ".join(err.split())
    assert code == 2 and "parameters 'm', 'n', 'alpha', 'beta' have no value: give them " \
        "(-p m=V -p n=V -p alpha=V -p beta=V on the command line" in said, said


def test_a_kernel_of_several_that_lacks_a_value_leaves_the_others_counted(tmp_path):
    """The review's scan file: `--launch-grid` given for its kernel, the file's other kernel
    stopped the command on a parameter it lacked. Now the others are counted and the one
    that lacks values says so after them (exit 2, an input to give)."""
    f = tmp_path / "two.cu"
    f.write_text(TWO_KERNELS)
    code, out, err = cli("analyze", str(f))
    assert code == 2
    assert "fixed: grid (1, 1, 1), block (64, 1, 1)" in out
    said = " ".join(err.split())
    assert "parameters 'm', 'n', 'alpha', 'beta' have no value" in said
    assert "not analyzed (the file's other kernels went on)" in said


TRANSPOSE = '''
import numpy as np
from numba import cuda, types as numba_types


@cuda.jit
def tile_transpose(a, transposed):
    tile = cuda.shared.array((32, 32), numba_types.int32)
    x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
    cuda.syncthreads()
    t_x = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.x
    t_y = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.y
    transposed[t_y, t_x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]


def target_time(target_transpose):
    a = np.arange(4096 * 4096).reshape((4096, 4096)).astype(np.float32)
    transposed = np.zeros_like(a)
    target_transpose[(128, 128), (32, 32)](cuda.to_device(a), cuda.to_device(transposed))
'''


@pytest.fixture(scope="module")
def numba_ptx(nvcc):
    pytest.importorskip("numba.cuda")
    return nvcc


def test_a_numba_kernel_launched_through_a_functions_argument_takes_its_values_given(
        numba_ptx, tmp_path):
    """Z841973620/nvidia-dli's assessment launches `tile_transpose` as `target_transpose[
    blocks, threads](...)`, a function's argument: the review found no way but editing the
    file, `--host` and `--launch-*` ignored. Now its arguments are the --host values of
    their names, and its launch the --launch-* options: 128 x 128 blocks of 32 warps, the
    32 x 32 int tile read down its columns, 32-way, 524,288 requests a site."""
    f = tmp_path / "assessment.py"
    f.write_text(TRANSPOSE)
    code, _, err = cli("analyze", str(f))
    assert code == 2 and "a launch through a function's argument is not followed" in err
    given = ["--launch-grid", "128,128", "--launch-block", "32,32",
             "--host", "a=float32[4096,4096]", "--host", "transposed=float32[4096,4096]"]
    code, out, err = cli("analyze", str(f), "--json", *given)
    assert code == 0, err
    (r,) = json.loads(out)["results"]
    assert [(s["requests"], s["wavefronts"]) for s in r["sites"]] == \
        [(524_288, 524_288), (524_288, 32 * 524_288)]
    # the arrays' lengths are their shapes': every end is checked, none is assumed
    code, out, err = cli("check", str(f), "--json", *given)
    assert code == 0 and "notes" not in json.loads(out)["results"][0]
    # the page names the arrays as the text does, not numba's 16 descriptor fields
    page = tmp_path / "page.html"
    code, _, err = cli("report", str(f), *given, "--no-check", "--no-fix", "-o", str(page))
    assert code == 0, err
    html = page.read_text()
    assert "a[4096 x 4096] of 4-byte items" in html and "a_meminfo" not in html


HISTOGRAM = """
__global__ void hist(const unsigned *in, unsigned *bins, int n)
{
    __shared__ unsigned h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256)
        atomicAdd(&h[in[i] & 255], 1);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
}
void run(const unsigned *in, unsigned *bins, int n) { hist<<<8, 256>>>(in, bins, n); }
"""


def test_an_arrays_data_file_gives_its_length_where_the_source_says_none(tmp_path, capsys):
    """bzhan167/bz's histogram: `--data input=same.npy` (1,000,000 values) was refused,
    "'input' has 4,194,304 at these parameters", a length the source never said. The file's
    values are now the array's length where the source says none: 5,000 values read by
    8 blocks; one more element than the data holds is a read past its end."""
    import numpy as np
    f = tmp_path / "hist.cu"
    f.write_text(HISTOGRAM)
    data = tmp_path / "in.npy"
    np.save(data, np.zeros(5000, np.uint32))
    code, out, _ = cli("analyze", str(f), "-p", "n=5000", "--data", f"in={data}", "--json")
    assert code == 0, out
    (r,) = json.loads(out)["results"]
    # 5,000 values over 8 x 256 threads: 64 warps, 64 again, then 904 threads, 29 warps
    # (28 full, one of 8): 157 requests of the shared atomicAdd at line 8
    assert r["inputs"]["in"] == str(data)
    assert [s["requests"] for s in r["sites"] if s["line"] == 8] == [157]
    err = capsys.readouterr().err
    assert "how long in" not in err and "how long bins is" in err
    code, out, _ = cli("check", str(f), "-p", "n=5001", "--data", f"in={data}")
    assert code == 1 and "index 5000 of 'in'" in out


def test_check_of_several_kernels_checks_those_it_can(tmp_path):
    """As analyze: the kernel that lacks values is said after the others (exit 2)."""
    f = tmp_path / "two.cu"
    f.write_text(TWO_KERNELS)
    code, out, err = cli("check", str(f))
    assert code == 2 and "fixed" in out and "no hazard found" in out
    assert "have no value" in err and "not checked (the file's other kernels went on)" in err


MACRO_TILE = """
#define T(r, c) tile[(r) * 32 + (c)]
__global__ void tr(const float *in, float *out, int n)
{
    __shared__ float tile[32 * 32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    T(threadIdx.y, threadIdx.x) = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    out[y * n + x] = T(threadIdx.x, threadIdx.y);
}
void run(const float *in, float *out) { tr<<<dim3(8, 8), dim3(32, 32)>>>(in, out, 256); }
"""


def test_fix_counts_the_changes_a_macro_keeps_it_from_patching(tmp_path):
    """yzhaiustc's SGEMM reads its tiles through macros (`#define sb7(i,j) sb7[...]`): fix
    skipped every change (the patch cannot rewrite a macro's accesses) and proposed nothing,
    not even what a swizzle would give. Now each change is counted on the build as read,
    for the change made by hand: a 32 x 32 transpose tile read down its columns, 32-way
    (2,048 requests of 32 wavefronts), conflict-free under Swizzle<5,0,5>."""
    f = tmp_path / "macro.cu"
    f.write_text(MACRO_TILE)
    code, out, err = cli("fix", str(f), "--json")
    assert code == 0, err
    (r,) = json.loads(out)["results"]
    assert not r["candidates"] and r["skipped"]
    read = r["counted_as_read"]
    base = read["baseline"]
    assert base["load"]["wavefronts"] + base["store"]["wavefronts"] == 2048 + 2048 * 32
    assert min(c["wavefronts"] for c in read["candidates"]) == 2048 + 2048
    code, out, err = cli("fix", str(f))
    assert "counted on the build as read (not patched in: make the one you choose by " \
        "hand)" in " ".join(out.split())


def test_a_file_of_many_kernels_ends_on_their_sums(tmp_path):
    """chaolongzhang/algorithms-cuda's reduction instantiates 11 block sizes: over 200
    lines of tables and no line per instance. Three or more kernels end on a table of
    their sums, most excess first, with each one's worst line."""
    f = tmp_path / "three.cu"
    f.write_text(TWO_KERNELS.replace("void run_fixed", """
__global__ void column(float *out)
{
    __shared__ float s[32][32];
    s[threadIdx.x][0] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[0][threadIdx.x];
}
void run_column(float *out) { column<<<1, 32>>>(out); }
void run_fixed"""))
    code, out, err = cli("analyze", str(f), "-p", "m=64", "-p", "n=1", "-p", "alpha=1",
                         "-p", "beta=0")
    assert code == 0, err
    tail = out[out.index("3 kernels, most excess first:"):].splitlines()
    rows = [line.split() for line in tail[3:6]]
    # column's store puts 32 lanes in one bank: 32 wavefronts, 31 excess, at line 20
    assert rows[0] == ["column", "2", "33", "31", "three.cu:20"]
    assert [r[0] for r in rows[1:]] == ["fixed", "sized"]


def test_values_read_past_an_unstated_length_come_from_its_stand_in(tmp_path, capsys):
    """A run on values (the histogram's bins are its loaded keys) past the stand-in storage
    of an array of no stated length (4 MiB: 1,048,576 unsigned keys) reads it again from
    its start (smemsim's seeded values either way): 2,097,152 keys are counted, every
    one, where the run faulted at the stand-in's end."""
    f = tmp_path / "hist.cu"
    f.write_text(HISTOGRAM)
    code, out, _ = cli("analyze", str(f), "-p", "n=2097152", "--json")
    assert code == 0, out
    (r,) = json.loads(out)["results"]
    # 2,097,152 keys over 8 x 256 threads: 1,024 passes of 64 warps
    assert [s["requests"] for s in r["sites"] if s["line"] == 8] == [65_536]
    assert "how long in, bins are" in capsys.readouterr().err

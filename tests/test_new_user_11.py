"""Issue #54: what the eleventh new-user review (44th session) met on kernels of its own,
each now answered (small kernels of the same kinds, their counts worked out in each
docstring)."""
import json

from tests.test_new_user import cli

FLAG = """
__global__ void k(float *out, int n, bool flag) {
    __shared__ float s[256];
    s[threadIdx.x] = flag ? 1.0f : 2.0f;
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}
__global__ void unused(float *out) {
    __shared__ float t[32];
    t[threadIdx.x] = 1.0f;
    out[threadIdx.x] = t[31 - threadIdx.x];
}
int main() {
    float *o; cudaMalloc(&o, 4 * 256 * 4);
    bool bcao = false;
    k<<<4, 256>>>(o, 1024, bcao);
}
"""


def test_a_bool_launch_argument_set_to_false_is_read_and_an_unlaunched_kernel_is_a_note(
        tmp_path, capsys):
    """mattdean1's scan: `bool bcao = false;` passed to the launch was asked for (`true` and
    `false` were no host values), and the file's kernels that main never launches made the
    run exit 2 although every launched one was counted. Now: flag=0, 4 blocks x 8 warps a
    site (32 requests each), and the unlaunched kernel is a note on stderr, exit 0."""
    f = tmp_path / "flag.cu"
    f.write_text(FLAG)
    code, out, err = cli("analyze", str(f), "--json")
    assert code == 0, err
    (doc,) = [d for d in json.loads(out)["results"]]
    assert doc["params"] == {"n": 1024, "flag": 0}
    assert [s["requests"] for s in doc["sites"]] == [32, 32]
    assert "note: not analyzed, as the file's host code launches it: unused" in \
        capsys.readouterr().err


def test_occupancy_of_several_kernels_takes_each_its_own_parameters(tmp_path):
    """`occupancy FILE -p bcao=0` refused the file's other kernel ("unknown parameter"),
    where analyze gives each kernel the -p values it declares."""
    f = tmp_path / "flag.cu"
    f.write_text(FLAG.replace("int main() {", "void two(float *o) { unused<<<1, 32>>>(o); }\n"
                              "int main() {"))
    code, out, err = cli("occupancy", str(f), "-p", "flag=1")
    assert code == 0, err
    assert "k:" in out and "unused:" in out


HISTOGRAM = """
__global__ void histogram(const char *a, int *result, int n) {
    __shared__ int bins[7];
    if (threadIdx.x < 7) bins[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int position = a[i] - 'a';
        atomicAdd(&bins[position / 4], 1);
    }
    __syncthreads();
    if (threadIdx.x < 7) atomicAdd(&result[threadIdx.x], bins[threadIdx.x]);
}
int main() {
    char *a; int *r; int n = 1 << 16;
    cudaMalloc(&a, n); cudaMalloc(&r, 7 * 4);
    histogram<<<64, 256>>>(a, r, n);
}
"""


def test_a_fault_on_smemsims_random_inputs_says_so_and_the_wrapped_index(tmp_path):
    """cuda-by-example's histogram: the host fills the input with 'a' + rand() % 26; smemsim,
    not told, draws bytes, and `a[i] - 'a'` leaves the bins: a fault the program never
    makes. The message now says the address depends on loaded values that are smemsim's
    random ones, and names --data; the index the 32-bit shared address wraps to is shown as
    the negative one it was: a byte -4k from the array is index 2^30 - k of its words
    (the review's 1073741790, that is -34)."""
    f = tmp_path / "hist.cu"
    f.write_text(HISTOGRAM)
    for verb in ("analyze", "check"):
        code, out, err = cli(verb, str(f))
        text = out + err
        assert "this address depends on values the kernel loads, and 'a'" in text, text
        assert "give the program's data with --data a=FILE.npy" in text
        index = int(text.split("out of bounds: index ")[1].split()[0])
        assert 2**30 - 64 <= index < 2**30, text
        assert f"({index - 2**30} if its 32-bit byte offset wrapped)" in text


def test_a_report_of_several_kernels_is_written_when_one_faults(tmp_path):
    """mine_hazards.cu: one kernel reading buf[256] of 256 kept the page of the other kernels
    from being written. Now the page has the others; the fault is said on stderr (exit 2)."""
    f = tmp_path / "two.cu"
    f.write_text("""
__global__ void bad(float *out) {
    __shared__ float buf[256];
    buf[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x + 1];
}
__global__ void good(float *out) {
    __shared__ float buf[256];
    buf[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = buf[255 - threadIdx.x];
}
int main() { float *o; cudaMalloc(&o, 1024); bad<<<1, 256>>>(o); good<<<1, 256>>>(o); }
""")
    page = tmp_path / "p.html"
    code, out, err = cli("report", str(f), "-o", str(page), "--no-fix")
    assert code == 2
    assert "wrote" in out and "(1 kernel(s))" in out and page.exists()
    assert "kernel 'bad'" in err and "index 256 of 'buf'" in err and "has no page" in err


NUMBA_1D = """from numba import cuda, float32

N = 64

@cuda.jit
def helper(s, i):
    return s[i]

@cuda.jit
def strided(out):
    s = cuda.shared.array(N * 4, float32)
    t = cuda.threadIdx.x
    s[t * 4] = t
    cuda.syncthreads()
    out[t] = s[t * 4]

@cuda.jit
def passed(out):
    s = cuda.shared.array((N, N), float32)
    s[cuda.threadIdx.x, 0] = 1.0
    out[0] = helper(s, 0)
"""


def test_a_numba_swizzle_is_written_into_every_subscript_and_a_padding_as_a_literal(
        tmp_path):
    """numba_patch: a 1-D array's index is swizzled whole (Swizzle<3,0,5>: bits 5-7 of the
    index XORed into bits 0-2); an array handed to a device function is refused at its line
    (the swizzle would not reach the function's subscripts); a padding of a 2-D shape is
    its last extent plus the pad, written as the literal numba needs (N + 1 -> 65)."""
    from smemsim.frontends.cuda.patch import LayoutChange
    from smemsim.frontends.ptx.numba_patch import layout_patch, shared_declaration
    f = tmp_path / "k.py"
    f.write_text(NUMBA_1D)
    assert shared_declaration(str(f), "strided", "s").extents == ("N * 4",)
    p = layout_patch(str(f), "strided", [LayoutChange("s", "swizzle", swizzle=(3, 0, 5))])
    assert "    s[t * 4 ^ ((t * 4 >> 5) & 7)] = t\n" not in p.patched
    assert "    s[(t * 4) ^ (((t * 4) >> 5) & 7)] = t\n" in p.patched
    assert "    out[t] = s[(t * 4) ^ (((t * 4) >> 5) & 7)]\n" in p.patched
    import pytest
    from kernels_ir import KernelError
    with pytest.raises(KernelError, match=r"k.py:21: 's' is used other than by a subscript"):
        layout_patch(str(f), "passed", [LayoutChange("s", "swizzle", swizzle=(5, 0, 5))])
    p = layout_patch(str(f), "passed", [LayoutChange("s", "pad", pad=1)])
    assert "    s = cuda.shared.array((N, 65), float32)\n" in p.patched


def test_small_things_of_the_eleventh_review(tmp_path):
    """A Markdown file given by mistake, a numba error in terminal colours, an instance no
    launch makes named without its arguments."""
    md = tmp_path / "notes.md"
    md.write_text("# my predictions\n")
    code, out, err = cli("analyze", str(md))
    assert code == 2 and "notes.md: not a file smemsim reads" in err and "importlib" not in err
    cu = tmp_path / "t.cu"
    cu.write_text("""
template <int B> __global__ void k(float *out) {
    __shared__ float s[B];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[B - 1 - threadIdx.x];
}
int main() { float *o; cudaMalloc(&o, 1024); k<256><<<1, 256>>>(o); }
""")
    code, out, err = cli("analyze", str(cu), "--kernel", "k<128>")
    assert code == 2
    assert "no launch of 'k<128>' in the file (it launches 'k' with other template " \
        "arguments)" in " ".join(err.split())


def test_numbas_own_error_reaches_the_user_without_terminal_escapes(tmp_path):
    """numba refuses `(TILE, TILE + 1)` as a shape, in bold ANSI escapes."""
    import pytest
    pytest.importorskip("numba", reason="numba is an optional extra (pip install numba)")
    from tests.test_new_user_8 import NUMBA
    f = tmp_path / "bad.py"
    f.write_text(NUMBA.replace("from numba import cuda, float32",
                               "from numba import cuda, float32\nT = 32")
                 .replace("shape=(32, 32)", "shape=(T, T + 1)"))
    code, out, err = cli("analyze", str(f))
    assert code == 2 and "numba could not compile it" in err and "\x1b" not in err


def test_a_sweep_whose_points_all_count_the_same_says_why(tmp_path):
    """The review's cupy row sum: the grid is the program's `n // TILE` with its own n, so
    `sweep -p n=...` moved only the kernel's argument: 4 equal points, said now."""
    f = tmp_path / "rows.py"
    f.write_text('''import cupy as cp
TILE = 32
src = r"""
extern "C" __global__ void rowsum(const float *a, float *out, int n) {
    __shared__ float s[32][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    s[ty][tx] = a[(blockIdx.y * 32 + ty) * n + blockIdx.x * 32 + tx];
    __syncthreads();
    if (ty == 0) { float t = 0; for (int k = 0; k < 32; ++k) t += s[k][tx]; out[tx] = t; }
}
"""
n = 4096
kernel = cp.RawKernel(src, "rowsum")
a = cp.zeros(n * n, dtype=cp.float32)
out = cp.zeros(n, dtype=cp.float32)
kernel((n // TILE, n // TILE), (TILE, TILE), (a, out, cp.int32(n)))
''')
    code, out, err = cli("sweep", str(f), "-p", "n=1024:4097:1024")
    assert code == 0, err
    assert "every point counts the same: n changes no shared access here" in \
        " ".join(out.split())


def test_the_swizzle_helper_of_an_indented_cuda_string_keeps_the_kernels_line(tmp_path):
    """pycuda's examples indent their CUDA strings: the helper went in after the kernel line's
    indentation, taking it and leaving `__global__` at column 0."""
    f = tmp_path / "t.py"
    f.write_text('''import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule
mod = SourceModule("""
        __global__ void t(float *out)
        {
            __shared__ float tile[32 * 32];
            tile[threadIdx.y * 32 + threadIdx.x] = threadIdx.x;
            __syncthreads();
            out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x * 32 + threadIdx.y];
        }
        """)
t = mod.get_function("t")
out = np.zeros(1024, dtype=np.float32)
t(drv.Out(out), block=(32, 32, 1), grid=(1, 1))
''')
    code, out, err = cli("fix", str(f))
    assert code == 0, err
    assert "+        __device__ __forceinline__ unsigned smemsim_swizzle_5_0_5(unsigned i)" \
        in out
    assert "         __global__ void t(float *out)\n" in out   # (a context line, unchanged)

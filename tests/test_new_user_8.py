"""Issue #54: what the eighth new-user review (43rd session) met on kernels of its own, each
now answered (the review's kernels stay in its folder; these are small ones of the same
kinds, their counts worked out in each docstring)."""
import json

import pytest

from smemsim.cli import page, render
from smemsim.cli.jsonout import analyze_json
from smemsim.frontends.loader import load_kernels
from smemsim.launch.analysis import analyze
from tests.test_new_user import CAS_MAX, cli


def test_site_counts_are_exact_unless_the_terminal_is_too_narrow_for_them():
    """The review's table printed `0.1M` beside `131,072`. The transpose example at n = 8,192:
    8,192^2 / 32 = 2,097,152 store requests, and its reads 32 ways each, 67,108,864
    wavefronts. Piped (no width) every count is exact; at 60 columns, in millions."""
    r = analyze(load_kernels("transpose")["naive"](), {"n": 8192})
    piped = render_plain(render.report_table(r))
    assert "67,108,864" in piped and "M " not in piped
    narrow = render_plain(render.report_table(r, width=60))
    assert "67.1M" in narrow and "67,108,864" not in narrow.split("loads:")[0]


def render_plain(group) -> str:
    import io

    from rich.console import Console
    out = io.StringIO()
    Console(file=out, width=4096, color_system=None).print(group)
    return out.getvalue()


ONE_WARP_CAS = CAS_MAX.replace("peak<<<2, 64>>>", "peak<<<2, 32>>>")


def test_a_bound_is_marked_in_every_count_column_and_in_the_pages_totals(tmp_path):
    """A CAS loop whose contending lanes are one warp's (4 words, 8 lanes each): counted at
    the fewest passes there can be, a lower bound. Its row marks requests, wavefronts and
    excess with ≥ (the review found excess unmarked), and the page's totals table marks
    the class it is in."""
    f = tmp_path / "peak.cu"
    f.write_text(ONE_WARP_CAS)
    code, out, err = cli("analyze", str(f), "--length", "w=64", "--length", "out=32")
    assert code == 0, err
    (row,) = [line for line in out.splitlines() if "≥" in line and "%" in line]
    assert row.count("≥") == 3, row
    k = next(iter(load_kernels(str(f), _options()).values()))()
    html = page.totals_table(analyze_json(analyze(k), None))
    assert "≥" in html and "at least these" in html


def _options():
    from smemsim.frontends.cuda import Options
    return Options(lengths={"w": "64", "out": "32"})


NUMBA = """import numpy as np
from numba import cuda, float32

@cuda.jit
def transpose_nb(a, b):
    tile = cuda.shared.array(shape=(32, 32), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[cuda.blockIdx.y * 32 + ty, cuda.blockIdx.x * 32 + tx]
    cuda.syncthreads()
    b[cuda.blockIdx.x * 32 + ty, cuda.blockIdx.y * 32 + tx] = tile[tx, ty]

n = 1024
a = np.random.rand(n, n).astype(np.float32)
b = np.empty_like(a)
transpose_nb[(n // 32, n // 32), (32, 32)](a, b)
"""


def test_a_numba_kernels_fix_is_written_into_its_python_and_built_by_numba(tmp_path):
    """The eighth review's numba fix printed a 400-character CUDA cast chain as the index;
    the eleventh's tried no padding (numba's build reads the tile at flat offsets) and spoke
    of C flat indices. Now each change is written into the Python file and built by numba:
    tile[tx, ty] reads 32 lanes a row apart, 32 ways; pad 1 (the shape's last extent as a
    literal, 33: numba refuses `32 + 1` there) and Swizzle<5,0,5> (the column XORed with the
    row, `ty ^ (tx & 31)`) each make it 1 way: 1,081,344 -> 65,536 wavefronts (32,768
    requests a site, 1 wavefront each, both sites)."""
    pytest.importorskip("numba", reason="numba is an optional extra (pip install numba)")
    f = tmp_path / "nb.py"
    f.write_text(NUMBA)
    code, out, err = cli("fix", str(f))
    assert code == 0, err
    said = " ".join(out.split())
    assert "built by numba" in said and "pad 1 65,536 0 128 B" in said
    assert "tile[tx, ty ^ (tx & 31)]" in said and "(float" not in said
    assert "checked: the patched file, as numba builds it, counts 65,536 wavefronts as fix " \
           "predicted" in said
    patch = tmp_path / "fix.patch"
    code, out, err = cli("fix", str(f), "--prefer", "pad", "--patch", str(patch))
    assert code == 0, err
    assert "+    tile = cuda.shared.array(shape=(32, 33), dtype=float32)" in patch.read_text()
    padded = tmp_path / "padded.py"
    padded.write_text(NUMBA.replace("shape=(32, 32)", "shape=(32, 33)"))
    code, out, err = cli("analyze", str(padded), "--json")
    assert code == 0, err
    r = json.loads(out)["results"][0]
    assert r["load"]["wavefronts"] + r["store"]["wavefronts"] == 65_536


def test_json_of_the_site_rows_is_unchanged_by_the_tables_units(tmp_path):
    """The exactness is the table's: JSON always carried exact counts (a reader's check that
    the text and JSON agree, at n = 8,192 as above)."""
    code, out, _ = cli("analyze", "transpose", "--kernel", "transpose_pad0", "-pn=8192",
                       "--json")
    doc = json.loads(out)["results"][0]
    assert sum(s["wavefronts"] for s in doc["sites"]) == 67_108_864 + 2_097_152


ASSUMED = """__global__ void k(const float *in, float *out, int n)
{
    __shared__ float s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}
void run(const float *in, float *out, int n) { k<<<n / 256, 256>>>(in, out, n); }
int main() { int n = 1 << 24; float *a, *b; run(a, b, n); return 0; }
"""


def test_an_array_of_no_stated_length_has_no_end_looked_for(tmp_path, capsys):
    """The ninth review: `out` allocated where the host reading does not follow was given
    an assumed length, and check reported the kernel's access past it as a fault (exit 1).
    The fifteenth: asked as a question (exit 2), a CI gate still failed on a correct
    kernel. Here 2^24 / 256 = 65,536 blocks read in[] up to 2^24: no end of in or out is
    looked for, a note says so (on stderr, in check's JSON), exit 0; with the lengths given
    one element short, the read past the end is found."""
    f = tmp_path / "assumed.cu"
    f.write_text(ASSUMED)
    code, out, _ = cli("check", str(f))
    assert code == 0 and "no hazard found" in out
    note = "the source does not say how long in, out are: no access past their ends is " \
        "looked for (--length NAME=EXPR gives them)"
    assert f"note: k: {note}" in capsys.readouterr().err
    code, out, _ = cli("check", str(f), "--json")
    assert code == 0 and json.loads(out)["results"][0]["notes"] == [note]
    capsys.readouterr()
    code, out, _ = cli("check", str(f), "--length", "in=16777215", "--length",
                       "out=16777216")
    assert code == 1 and "index 16777215 of 'in'" in out
    assert "note:" not in capsys.readouterr().err


TOO_BIG = """__global__ void k(float *a)
{
    __shared__ float s[16384];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[1023 - threadIdx.x];
}
int main() { float *a; cudaMalloc(&a, 4096); k<<<1, 1024>>>(a); }
"""


def test_static_shared_memory_over_48_kib_is_said_in_cudas_terms(tmp_path):
    """The ninth review: 64 KiB of `__shared__ float s[16384]` was refused as "shared array
    'smem'" with the Python IR's advice (k.dynamic_shared). Now: the variable as declared,
    its bytes, and CUDA's way (extern __shared__, the launch's third argument)."""
    f = tmp_path / "toobig.cu"
    f.write_text(TOO_BIG)
    code, out, err = cli("analyze", str(f))
    said = " ".join(err.split())
    assert code == 2 and "static __shared__ variables of 65,536 bytes ('s' 65,536)" in said
    assert "declare the larger ones `extern __shared__`" in said and "k.dynamic" not in said


def test_a_length_the_program_states_is_no_assumed_one(tmp_path, capsys):
    """A cupy program's `cp.zeros(2 * (N // 32) * N)` floats is 4,194,304 bytes, the very
    number the old note took for an assumed length (a false "does not say how long");
    only arrays the source gives no length are said (their ends are not looked for)."""
    from tests.test_fix_strings import CUPY
    f = tmp_path / "colmean.py"
    f.write_text(CUPY)
    code, out, err = cli("analyze", str(f))
    assert code == 0 and "does not say how long" not in capsys.readouterr().err
    f.write_text(CUPY.replace("k((N // 32, N // 32), (32, 32), (a, partial, np.int32(N)))",
                              "k((N // 32, N // 32), (32, 32), (a, p2, np.int32(N)))"))
    code, out, err = cli("analyze", str(f))
    said = " ".join(capsys.readouterr().err.split())
    assert "the source does not say how long partial is: no access past its end is looked " \
        "for" in said


TEMPLATE_HELPER = """
template <typename T, int TILE>
__device__ __forceinline__ T read_col(const T (*tile)[TILE], int r, int c)
{
    return tile[r][c];
}
template <typename T, int TILE>
__global__ void transpose_t(const T *in, T *out, int n)
{
    __shared__ T tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * n + x] = read_col<T, TILE>(tile, threadIdx.x, threadIdx.y);
}
int main()
{
    const int n = 1024;
    float *a, *b;
    transpose_t<float, 32><<<dim3(n / 32, n / 32), dim3(32, 32)>>>(a, b, n);
    return 0;
}
"""


def test_padding_reaches_a_template_helpers_row_extent(tmp_path):
    """The ninth review: `read_col<T, TILE>(tile, ...)` takes `const T (*tile)[TILE]`; the
    padded declaration `tile[TILE][TILE + 1]` no longer matched it and nvcc refused every
    padding. Now the helper's own extent is padded too: the 32-way column reads (32
    wavefronts each, 32 warps of 1,024 blocks) become conflict-free: with the stores'
    32,768, 1,081,344 -> 65,536."""
    f = tmp_path / "t.cu"
    f.write_text(TEMPLATE_HELPER)
    code, out, err = cli("fix", str(f), "--prefer", "pad", "--json")
    assert code == 0, err
    doc = json.loads(out)["results"][0]
    assert doc["baseline"]["load"]["wavefronts"] == 32 * 32 * 1024
    assert "read_col(const T (*tile)[TILE + 1], int r, int c)" in doc["patch"]["diff"]
    assert doc["patch"]["counted_wavefronts"] == 2 * 32 * 1024


STENCIL = """#define RADIUS 3
#define BS 256
__global__ void stencil1d(const float *in, float *out, int n)
{
    __shared__ float s[BS + 2 * RADIUS];
    int g = blockIdx.x * BS + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    s[l] = in[g];
    if (threadIdx.x < RADIUS) {
        s[l - RADIUS] = (g >= RADIUS) ? in[g - RADIUS] : 0.f;
        s[l + BS] = (g + BS < n) ? in[g + BS] : 0.f;
    }
    float acc = 0.f;
    for (int o = -RADIUS; o <= RADIUS; ++o)
        acc += s[l + o];
    out[g] = acc;
}
int main() { float *in, *out; stencil1d<<<64, BS>>>(in, out, 64 * BS); return 0; }
"""


def test_a_race_across_warps_is_shown_by_two_warps_threads(tmp_path):
    """The ninth review: a stencil missing its __syncthreads() showed each race by threads 0
    and 1 of warp 0, and said one of them wants __syncwarp(), which read as if that were
    enough. The left halo's stores race with warp 0's reads only (one warp: __syncwarp
    would do); `s[l] = in[g]` races across warps (thread 31 stores s[34], thread 32 reads
    it), and so does the right halo (threads 0-2 store s[259..261], warp 7 reads them)."""
    f = tmp_path / "stencil.cu"
    f.write_text(STENCIL)
    code, out, err = cli("check", str(f))
    said = " ".join(out.split())
    assert code == 1
    assert "on s[34] (byte 136) in block (0, 0, 0)" in said and "by thread (31, 0, 0)" in said \
        and "by thread (32, 0, 0)" in said
    assert "1 of the races below is between threads of one warp" in said
    assert "the other 2 are between warps: __syncthreads() between the lines" in said


def test_a_numba_kernels_arrays_and_lines_read_as_its_python(tmp_path):
    """The ninth review: numba's parameters line listed its array descriptors' fields
    (`a_meminfo=0, a_parent=0, ...`), and a site's statement ran the lines before it
    together (Python lines end in no `;`). Now `a[1024 x 1024] of 4-byte items` and each
    site's own line."""
    pytest.importorskip("numba", reason="numba is an optional extra (pip install numba)")
    f = tmp_path / "nb.py"
    f.write_text(NUMBA)
    code, out, err = cli("analyze", str(f))
    assert code == 0, err
    assert "parameters: a[1024 x 1024] of 4-byte items, b[1024 x 1024] of 4-byte items" in out
    assert "meminfo" not in out
    assert "nb.py:9:5): tile[ty, tx] = a[cuda.blockIdx.y * 32 + ty, cuda.blockIdx.x * 32 + " \
           "tx]" in " ".join(out.split())


def test_a_float_parameter_reads_as_written():
    """The ninth review: `1e-6f` passed to a kernel was shown as 9.999999974752427e-07 (the
    float's value as a double); shown as the float's own shortest text. A double keeps its
    digits (0.1 is no float's value)."""
    from smemsim.cli.phrases import params_text
    import numpy as np
    assert params_text({"eps": float(np.float32(1e-6)), "n": 4096, "x": 0.1}) == \
        "eps=1e-06, n=4096, x=0.1"


def test_explain_takes_file_colon_line_and_an_unknown_arch_is_refused_first(tmp_path):
    """The ninth review: `explain FILE:LINE` (a place as a compiler writes it) answered "no
    such file"; `--arch sm_99` reached nvcc, whose "Unsupported gpu architecture" named
    no architecture smemsim knows."""
    from tests.test_cli import ROOT
    code, out, err = cli("explain", f"{ROOT}/examples/transpose.cu:20")
    assert code == 0, err
    assert "transpose site 1, " in out and "transpose.cu:20" in out
    code, out, err = cli("analyze", "transpose", "--arch", "sm_99")
    said = " ".join(err.split())
    assert code == 2 and "unknown architecture 'sm_99'; known: sm_50" in said


TWO_KERNELS = """__global__ void good(float *a)
{
    __shared__ float s[64];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[63 - threadIdx.x];
}
__global__ void bad(float *a)
{
    __shared__ float s[64];
    s[threadIdx.x + 1] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[threadIdx.x];
}
int main() { float *a; cudaMalloc(&a, 256); good<<<1, 64>>>(a); bad<<<1, 64>>>(a); }
"""


def test_one_faulting_kernel_leaves_the_files_others_counted(tmp_path):
    """The tenth review: `analyze` of a file whose one kernel faults (here `bad` stores
    s[64]) printed only the fault, no table for the correct one; now `good` is counted (2
    warps, a store and a load each: 4 requests, 4 wavefronts) and the fault said (exit 2)."""
    f = tmp_path / "two.cu"
    f.write_text(TWO_KERNELS)
    code, out, err = cli("analyze", str(f))
    assert code == 2 and out.startswith("good: grid (1, 1, 1), block (64, 1, 1)")
    assert "loads: 2 requests, 2 wavefronts" in out and "stores: 2 requests, 2 wavefronts" in out
    said = " ".join(err.split())
    assert "kernel 'bad'" in said and "out of bounds: index 64 of 's'" in said and \
        "the launch faults, so nothing is counted" in said


def test_a_sweep_over_a_problem_size_says_its_points_launch_different_work():
    """The ninth review: `sweep -p K=...` ranked launches of different sizes by their raw
    wavefronts and put the smallest on the Pareto front. The transpose at n = 256 and 1,024:
    ideal wavefronts 4,096 and 65,536 (16 times the blocks): said, with the ratio that
    compares their conflicts."""
    code, out, err = cli("sweep", "transpose", "--kernel", "naive", "-p", "n=256,1024")
    assert code == 0, err
    assert "the points launch different work (ideal wavefronts 4,096 to 65,536)" in \
        " ".join(out.split())
    code, out, err = cli("sweep", "transpose", "--kernel", "naive", "-p", "n=1024",
                         "--pad", "tile=0,1")
    assert code == 0 and "launch different work" not in out

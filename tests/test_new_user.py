"""Issue #54: what a second new-user review (39th session) met on kernels of its own, each
now answered: a `#pragma unroll` between a `for` and a body without braces, a macro the
build's -D defines, a fix --patch of a file of two kernels, a fix whose every change the
patch cannot make."""
import io
import json
import re

from smemsim.cli import run
from smemsim.cli.mcp_server import _quiet


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), _quiet(out), _quiet(err))
    return code, out.getvalue(), err.getvalue()


PRAGMA = """
__global__ void acc(const float *a, float *out)
{
    __shared__ float s[4][32];
    float v[4] = {0, 0, 0, 0};
    s[threadIdx.x / 32][threadIdx.x % 32] = a[threadIdx.x];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            v[i] += s[j][threadIdx.x % 32];
    out[threadIdx.x] = v[0] + v[1] + v[2] + v[3];
}
int main() { float *a, *o; acc<<<1, 128>>>(a, o); return 0; }
"""


def test_a_pragma_between_a_for_and_its_braceless_body_is_nvccs_to_read(tmp_path):
    """tree-sitter misreads the body; the host side needs only the signature and the launch,
    nvcc reads the body: the kernel analyzes (the 4 x 4 loads, 4 warps, conflict-free)."""
    f = tmp_path / "acc.cu"
    f.write_text(PRAGMA)
    code, out, err = cli("analyze", str(f), "--length", "a=128", "--length", "out=128")
    assert code == 0, err
    assert "acc: grid (1, 1, 1), block (128, 1, 1)" in out
    assert "loads: 16 requests, 16 wavefronts" in out


MACRO = """
__global__ void copy_tile(const float *in, float *out, int n)
{
    __shared__ float t[TILE][TILE];
    t[threadIdx.y][threadIdx.x] = in[threadIdx.y * n + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * n + threadIdx.x] = t[threadIdx.y][threadIdx.x];
}
int main() { float *a, *b; copy_tile<<<dim3(4, 4), dim3(TILE, TILE)>>>(a, b, 64); return 0; }
"""


def test_a_name_the_file_never_declares_is_asked_for_as_a_macro(tmp_path):
    f = tmp_path / "tile.cu"
    f.write_text(MACRO)
    code, _, err = cli("analyze", str(f))
    assert code == 2
    assert "uses 'TILE', which the file neither declares nor #defines: define it as your " \
           "build does (-D TILE=VALUE)" in err
    code, out, _ = cli("analyze", str(f), "-D", "TILE=16")
    assert code == 0 and "block (16, 16, 1)" in out


TWO = """
#define N 32
__global__ void conflicted(const float *a, float *b)
{
    __shared__ float t[N][N];
    t[threadIdx.y][threadIdx.x] = a[threadIdx.y * N + threadIdx.x];
    __syncthreads();
    b[threadIdx.y * N + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}
__global__ void clean(const float *a, float *b)
{
    __shared__ float u[N][N];
    u[threadIdx.y][threadIdx.x] = a[threadIdx.y * N + threadIdx.x];
    __syncthreads();
    b[threadIdx.y * N + threadIdx.x] = u[threadIdx.y][threadIdx.x];
}
int main() { float *a, *b; dim3 blk(N, N); conflicted<<<1, blk>>>(a, b); clean<<<1, blk>>>(a, b); return 0; }
"""


def test_fix_patch_of_a_file_of_two_kernels_writes_the_one_change_and_exits_0(tmp_path):
    f = tmp_path / "two.cu"
    f.write_text(TWO)
    patch = tmp_path / "fix.diff"
    code, _, err = cli("fix", str(f), "--patch", str(patch), "--length", "a=1024",
                       "--length", "b=1024")
    assert code == 0, err
    assert "t[N][N]" in patch.read_text() and "u[" not in patch.read_text()


HELPER = """
#define T 32
__device__ float col(float (*tile)[T], int r, int c) { return tile[c][r]; }
__global__ void transpose(const float *a, float *b)
{
    __shared__ float tile[T][T];
    tile[threadIdx.y][threadIdx.x] = a[threadIdx.y * T + threadIdx.x];
    __syncthreads();
    b[threadIdx.y * T + threadIdx.x] = col(tile, threadIdx.y, threadIdx.x);
}
int main() { float *a, *b; transpose<<<1, dim3(T, T)>>>(a, b); return 0; }
"""
LENGTHS = ["--length", "a=1024", "--length", "b=1024"]


def test_fix_pads_a_tile_a_helper_takes_and_the_helpers_parameter_with_it(tmp_path):
    """The tile goes to a helper as `float (*)[32]`: the padding patches the helper's
    parameter too (else nvcc refuses the call); checked as built, as predicted."""
    f = tmp_path / "helper.cu"
    f.write_text(HELPER)
    code, out, _ = cli("fix", str(f), *LENGTHS)
    assert code == 0
    assert "-__device__ float col(float (*tile)[T], int r, int c)" in out
    assert "+__device__ float col(float (*tile)[T + 1], int r, int c)" in out
    assert "+    __shared__ float tile[T][T + 1];" in out
    # (one block of 32 warps: a store and a load each, conflict-free)
    assert "checked: the patched file, as nvcc builds it, counts 64 wavefronts as fix " \
           "predicted" in out


def test_fix_whose_every_change_the_patch_cannot_make_says_none_could_be_tried(tmp_path):
    """The tile goes to an overloaded helper (which of two definitions takes it is the
    compiler's to choose, not the patch's): every padding fails to build and no swizzle can
    be written; fix says no change could be tried, not that none helps."""
    f = tmp_path / "helper.cu"
    f.write_text(HELPER.replace("#define T 32\n", "#define T 32\n__device__ double col("
                                "double (*tile)[T], int r, int c) { return tile[c][r]; }\n"))
    code, out, _ = cli("fix", str(f), *LENGTHS)
    assert code == 0
    assert "no change could be tried (" in out
    assert "no padding or swizzle tried reduces" not in out
    code, _, err = cli("fix", str(f), "--patch", str(tmp_path / "p.diff"), *LENGTHS)
    assert code == 2 and "no change to transpose could be tried" in err
    assert not (tmp_path / "p.diff").exists()


LOOPED = """
__global__ void rows(const double *in, double *out, int pitch)
{
    extern __shared__ double tile[];
    tile[threadIdx.y * pitch + threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x * pitch + threadIdx.y];
}
int main()
{
    double *a, *b;
    for (int pitch = 32; pitch <= 33; ++pitch)
        rows<<<1, dim3(32, 32), 32 * pitch * sizeof(double)>>>(a, b, pitch);
    return 0;
}
"""


def test_a_launch_argument_a_host_loop_varies_is_asked_for_not_read_at_its_first_value(
        tmp_path):
    """`for (pitch = 32; pitch <= 33; ++pitch)` launches the kernel twice: pitch is no one
    value (it was read as 32, silently); given, each pitch counts as its own."""
    f = tmp_path / "rows.cu"
    f.write_text(LOOPED)
    lengths = ["--length", "in=1024", "--length", "out=1024"]
    code, _, err = cli("analyze", str(f), *lengths)
    assert code == 2 and "'pitch' has no value: the launch passes `pitch` which the host " \
        "code does not say: give it (--host 'pitch=V', which every launch made of it " \
        "follows, or -p pitch=V" in " ".join(err.split())
    for given in (["-p", "pitch=33"], ["--host", "pitch=33"]):
        code, out, _ = cli("analyze", str(f), *given, *lengths)
        assert code == 0 and "8448 B dynamic" in out and \
            "loads: 32 requests, 64 wavefronts" in out


def test_explain_takes_a_line_or_the_call_that_inlined_it(tmp_path):
    """The review's #9: `explain FILE LINE` as users read lines, not site numbers; a site in
    a helper is found at the helper's line and at the call's; the title names the chain."""
    f = tmp_path / "helper.cu"
    f.write_text(HELPER)
    for where in ("helper.cu:3", f"{f}:3", ":3", "helper.cu:9"):
        code, out, err = cli("explain", str(f), where, *LENGTHS)
        assert code == 0, (where, err)
        title, worst = out.splitlines()[:2]
        assert "helper.cu:3:" in title and "(col) via " in title, (where, out)
        # (the file's own line; the statement as nvcc's build has it is JSON's, not the
        # title's: the fifth review found its registers and casts noise)
        assert title.split(" via ")[1].endswith(
            "helper.cu:9: __device__ float col(float (*tile)[T], int r, int c) { return "
            "tile[c][r]; }"), title
        assert worst.startswith("worst request: block (0, 0, 0), warp 0"), worst
        assert "32 wavefronts, ideal 1, excess 31" in out
    code, _, err = cli("explain", str(f), "helper.cu:5", *LENGTHS)
    assert code == 2 and "no shared access site at helper.cu:5; the sites are at" in err


BOUNDED = """
__global__ void __launch_bounds__(128) scale(const float *a, float *b)
{
    __shared__ float s[128];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    b[threadIdx.x] = 2.0f * s[127 - threadIdx.x];
}
__global__ void copy(const float *a, float *b)
{
    __shared__ float s[256];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    b[threadIdx.x] = s[threadIdx.x];
}
int main() { float *a, *b; scale<<<1, 128>>>(a, b); copy<<<1, 256>>>(a, b); return 0; }
"""


def test_occupancy_of_every_kernel_within_its_launch_bounds(tmp_path):
    """The review's #10 and #12: a file of two kernels gets both kernels' occupancy (as
    analyze does), and a `__launch_bounds__(128)` kernel's block-size curve stops at 128
    (a larger block does not launch)."""
    import json
    f = tmp_path / "bounded.cu"
    f.write_text(BOUNDED)
    lengths = ["--length", "a=256", "--length", "b=256"]
    code, out, err = cli("occupancy", str(f), "--json", *lengths)
    assert code == 0, err
    results = json.loads(out)["results"]
    assert [r["kernel"] for r in results] == ["scale", "copy"]
    sizes = {r["kernel"]: r["curves"][0]["x"] for r in results}
    assert max(sizes["scale"]) == 128 and max(sizes["copy"]) == 1024
    code, out, _ = cli("occupancy", str(f), "--kernel", "scale", *lengths)
    assert code == 0 and "(block sizes up to the build's __launch_bounds__ of 128)" in out
    code, _, err = cli("occupancy", str(f), "--kernel", "scale", "-D", "X=1", *lengths,
                       "--launch-block", "256")
    assert code == 2 and "past the build's __launch_bounds__ of 128" in err


FLAT = """
__global__ void dtranspose(const double *in, double *out)
{
    extern __shared__ double tile[];   // 32 rows of 32 doubles
    tile[threadIdx.y * 32 + threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x * 32 + threadIdx.y];
}
int main() { double *a, *b; dtranspose<<<1, dim3(32, 32), 32 * 32 * sizeof(double)>>>(a, b); return 0; }
"""


def test_fix_finds_the_swizzle_of_a_flat_tile_whose_rows_are_longer_than_128_bytes(tmp_path):
    """The review's #6: a flat tile of 32-double (256-byte) rows; the swizzles of 128-byte
    rows leave some of its excess; Swizzle<4,0,5> (the row's bits XORed into the 16 chunks of
    its first 128 bytes) leaves none: 32 warps, a store and a load each, of 2 wavefronts (8
    bytes a lane: a half-warp a wavefront) = 128."""
    f = tmp_path / "flat.cu"
    f.write_text(FLAT)
    code, out, err = cli("fix", str(f), "--length", "in=1024", "--length", "out=1024")
    assert code == 0, err
    assert "tile: Swizzle<4,0,5>: " in out
    row = next(line for line in out.splitlines() if "Swizzle<4,0,5>" in line and "tile " in line)
    assert row.split()[2:4] == ["128", "0"], row


WARP_SYNC = """
__device__ void warp_reduce(volatile float *s, int tid)
{
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}
__global__ void sum64(const float *in, float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x < 32) warp_reduce(s, threadIdx.x);
    if (threadIdx.x == 0) out[0] = s[0];
}
int main() { float *a, *b; sum64<<<1, 64>>>(a, b); return 0; }
"""


def test_races_within_a_warp_say_syncwarp_and_the_helpers_call(tmp_path):
    """The review's #7: a legacy warp-synchronous tail races on sm_70 and newer; check says
    the races are within one warp and what to do, and locates each in its helper with the
    call that inlined it."""
    import json
    f = tmp_path / "warp.cu"
    f.write_text(WARP_SYNC)
    lengths = ["--length", "in=64", "--length", "out=1"]
    code, out, _ = cli("check", str(f), *lengths)
    assert code == 1
    assert "races below are between threads of one warp: warp-synchronous code" in out
    # (what to do first, then the pairs of lines as evidence)
    assert out.index("warp-synchronous code") < out.index("read-write race")
    assert "put __syncwarp() between the steps" in out
    assert "(warp_reduce) via " in out and "warp.cu:12)" in out
    code, out, _ = cli("check", str(f), "--json", *lengths)
    races = json.loads(out)["results"][0]["races"]
    assert races and all(r["same_warp"] for r in races)


UNROLLED = """
__global__ void strided(const float *a, float *b)
{
    __shared__ float s[4 * 64];
    for (int i = 0; i < 4; ++i)
        s[i * 64 + threadIdx.x] = a[i * 64 + threadIdx.x];
    __syncthreads();
    float v = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i)
        v += s[(threadIdx.x * 2 + i * 64) % 256];
    b[threadIdx.x] = v;
}
int main() { float *a, *b; strided<<<1, 64>>>(a, b); return 0; }
"""


def test_gcc_and_sarif_say_an_unrolled_line_once(tmp_path):
    """The review's #13: the four unrolled copies of line 11 were four identical
    `FILE:11:COL` diagnostics; now one, naming its sites and summing their excess (each
    copy: 2 warps' stride-2 reads, 2 wavefronts a request, 1 excess: 8 in all)."""
    f = tmp_path / "unrolled.cu"
    f.write_text(UNROLLED)
    code, out, err = cli("analyze", str(f), "--format", "gcc", "--length", "a=256",
                         "--length", "b=64")
    assert code == 0, err
    lines = [line for line in out.splitlines() if "[smemsim:bank-conflict]" in line]
    assert len(lines) == 1, out
    assert "unrolled.cu:11:" in lines[0] and "(one line, 4 copies)" in lines[0]
    assert ": 8 excess wavefronts over 8 requests (2.00 wavefronts per request, excess 1.00 x ideal)" in lines[0]


def test_fix_prefer_pad_chooses_the_padding_the_swizzle_ties(tmp_path):
    """The review's #13: `[32][33]` reads more plainly than a swizzle; `--prefer pad` makes
    the padding each array's change where one lowers its wavefronts (here both remove every
    excess: the swizzle costs no memory, so it is the default's choice)."""
    f = tmp_path / "two.cu"
    f.write_text(TWO)
    lengths = ["--length", "a=1024", "--length", "b=1024"]
    code, out, _ = cli("fix", str(f), "--kernel", "conflicted", *lengths)
    assert code == 0 and "t: Swizzle<5,0,5>: 1,056 -> 64 wavefronts" in out
    code, out, _ = cli("fix", str(f), "--kernel", "conflicted", "--prefer", "pad", *lengths)
    assert code == 0 and "t: pad 1: 1,056 -> 64 wavefronts, +128 B shared memory" in out
    assert "+    __shared__ float t[N][N + 1];" in out


MISSING_BARRIER = """
__global__ void histo(const unsigned char *in, unsigned *out)
{
    __shared__ unsigned bins[256];
    bins[threadIdx.x] = 0;
    atomicAdd(&bins[in[blockIdx.x * 256 + threadIdx.x]], 1u);
    __syncthreads();
    atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}
int main() { unsigned char *a; unsigned *b; histo<<<4, 256>>>(a, b); return 0; }
"""


def test_a_missing_block_barrier_is_not_called_warp_synchronous(tmp_path):
    """The third review's P2: the zeroing and the atomics race across warps (any thread's
    bin may be any warp's), so `__syncwarp()` would not fix it: no warp note; the legacy
    warp tail keeps its note (test_races_within_a_warp_say_syncwarp_...)."""
    import json
    f = tmp_path / "histo.cu"
    f.write_text(MISSING_BARRIER)
    lengths = ["--length", "in=1024", "--length", "out=256"]
    code, out, _ = cli("check", str(f), *lengths)
    assert code == 1 and "race on bins[" in out
    assert "one warp" not in out and "__syncwarp" not in out
    code, out, _ = cli("check", str(f), "--json", *lengths)
    races = json.loads(out)["results"][0]["races"]
    assert races and not any(r["same_warp"] for r in races)


def test_sweep_regs_compile_takes_the_registers_of_your_build(tmp_path):
    """The third review's P1: `sweep --regs compile` of a .cu counts nvcc's build of the
    file at each architecture, as `smemsim compile` reports it, not NVRTC's build of the
    regenerated kernel."""
    import json
    f = tmp_path / "helper.cu"
    f.write_text(HELPER)
    code, out, err = cli("sweep", str(f), "--regs", "compile", "--arch", "sm_80,sm_90",
                         "--no-cache", "--json", *LENGTHS)
    assert code == 0, err
    points = {r["arch"]: r["registers"] for r in json.loads(out)["results"][0]["points"]}
    for arch in ("sm_80", "sm_90"):
        code, out, _ = cli("compile", str(f), "--arch", arch, *LENGTHS)
        assert code == 0 and f"transpose for {arch}: {points[arch]} registers" in out, out


def test_a_name_from_a_header_not_found_names_the_header(tmp_path):
    """The third review's P6: `TILE` comes from `<tile_config.h>`, in no -I folder: the
    question names the header and -I, not only -D; with the folder, the file analyzes."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "tile_config.h").write_text("#define TILE 16\n")
    f = tmp_path / "tile.cu"
    f.write_text("#include <tile_config.h>\n" + MACRO)
    code, _, err = cli("analyze", str(f))
    assert code == 2
    assert "(it includes <tile_config.h>, found in no -I folder given: give that folder " \
           "with -I if the header defines it)" in err
    code, out, err = cli("analyze", str(f), "-I", str(tmp_path / "inc"))
    assert code == 0 and "block (16, 16, 1)" in out, err


TRANSPOSED_STAGE = """
__global__ void stage(const float *A, float *out)
{
    __shared__ float As[16][64];
    const int tid = threadIdx.x;
    const int aRow = tid / 4, aCol = (tid % 4) * 4;
    float4 a = *reinterpret_cast<const float4 *>(&A[aRow * 16 + aCol]);
    As[aCol + 0][aRow] = a.x;
    As[aCol + 1][aRow] = a.y;
    As[aCol + 2][aRow] = a.z;
    As[aCol + 3][aRow] = a.w;
    __syncthreads();
    float4 v = *reinterpret_cast<const float4 *>(&As[tid / 16][(tid % 16) * 4]);
    out[tid] = v.x + v.y + v.z + v.w;
}
int main() { float *a, *o; stage<<<1, 256>>>(a, o); return 0; }
"""


def test_fix_finds_the_swizzle_of_rows_further_apart_than_one(tmp_path):
    """The third review's P4: an SGEMM's A tile stored transposed; a warp's stores hit rows
    k = 0, 4, 8, 12 (+j) of 64 floats at 8 columns: 4 rows in each bank, 4 wavefronts
    (8 warps x 4 stores = 32 requests, 128 wavefronts); the float4 reads of two rows are
    4 quarter-warps each (8 x 4 = 32). Swizzle<2,3,5> (`m ^ (((k >> 2) & 3) << 3)`, chunks
    of 8 floats kept whole) sends the 4 rows to 4 column groups: 32 + 32 = 64, no excess.
    The three canonical swizzles (rows one apart) do not reach it; pad 4 leaves 32."""
    f = tmp_path / "stage.cu"
    f.write_text(TRANSPOSED_STAGE)
    code, out, err = cli("fix", str(f))
    assert code == 0, err
    assert out.splitlines()[0].startswith("stage: 160 shared wavefronts, 96 over ideal")
    assert "As: Swizzle<2,3,5>: 160 -> 64 wavefronts, +0 B shared memory" in out
    assert "return i ^ (((i >> 8) & 3u) << 3);" in out
    pad = next(line for line in out.splitlines() if line.startswith("As     pad 4"))
    assert pad.split()[3:5] == ["96", "32"], pad


WMMA_CHECK = """
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void wmma_gemm(const half *A, const half *B, float *C, int K)
{
    __shared__ __align__(32) half As[16][16];
    __shared__ __align__(32) half Bs[16][16];
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x) {
            As[i / 16][i % 16] = A[(i / 16) * K + k0 + i % 16];
            Bs[i / 16][i % 16] = B[(k0 + i / 16) * 16 + i % 16];
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, &As[0][0], 16);
        wmma::load_matrix_sync(fb, &Bs[0][0], 16);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);
}
int main() { half *a, *b; float *c; wmma_gemm<<<1, 32>>>(a, b, c, 64); return 0; }
"""


def test_check_of_a_wmma_kernel_runs_its_mma_without_the_operands(tmp_path):
    """The fourth review's #1: check's address-only run computes no loaded value, so the
    mma's operands are not there; it crashed reading them (KeyError, exit 3). The mma
    now runs for its lanes only (its warp must be whole), as a shuffle does: no hazard."""
    f = tmp_path / "wmma.cu"
    f.write_text(WMMA_CHECK)
    code, out, err = cli("check", str(f))
    assert code == 0, out + err
    assert "wmma_gemm (K=64): no hazard found" in out


LOOPS = """
__global__ void shift(const float *in, float *out, int n)
{
    __shared__ float s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    float acc = 0.f;
    for (int k = 0; k < n; ++k)
        acc += s[(threadIdx.x * 32 + k) % 256];
    out[blockIdx.x * 256 + threadIdx.x] =
        s[(threadIdx.x + ONE) % 256] + acc;
}
int main() { float *a, *b; shift<<<2, 256>>>(a, b, 8); return 0; }
"""


def test_the_table_has_a_row_a_line_and_messages_show_the_source(tmp_path):
    """The reviews' P7 and P5: nvcc unrolls line 9's loop by 4 (sites 1-4) and keeps a
    copy for other trip counts (site 5, no request at n = 8): one row for line 9, the idle
    copy said once; line 11's statement, written over two lines, is shown whole, in the
    table, in gcc's and SARIF's text and in JSON's `source`. Line 9: a warp's 32 lanes read
    8 words (tid * 32 mod 256) of one bank, 8 wavefronts a request; 2 blocks x 8 warps x 8
    iterations = 128 requests, 1,024 wavefronts."""
    f = tmp_path / "looped.cu"
    f.write_text(LOOPS)
    code, out, err = cli("analyze", str(f), "-D", "ONE=1")
    assert code == 0, err
    rows = [line.split() for line in out.splitlines() if line[:5].strip() in
            ("0", "1-4", "6")]
    assert rows == [["0", "5", "s", "store", "4B", "16", "16", "16", "0", "1.00", "2%"],
                    ["1-4", "9", "s", "load", "4B", "128", "1,024", "128", "896", "8.00",
                     "97%"],
                    ["6", "11", "s", "load", "4B", "16", "16", "16", "0", "1.00", "2%"]]
    assert "not shown: site 5, which this launch never runs" in out
    whole = "out[blockIdx.x * 256 + threadIdx.x] = s[(threadIdx.x + ONE) % 256] + acc;"
    assert f"  site 6 (looped.cu:11:9): {whole}" in out.replace(str(tmp_path) + "/", "")
    code, out, _ = cli("analyze", str(f), "-D", "ONE=1", "--format", "gcc")
    # (the loop's header is a statement of its own: not joined to its body's line)
    assert "sites 1-4 (one line, 4 copies), `acc += s[(threadIdx.x * 32 + k) % 256];`: " \
        "896 excess wavefronts" in out, out
    code, out, _ = cli("analyze", str(f), "-D", "ONE=1", "--json")
    sites = json.loads(out)["results"][0]["sites"]
    assert sites[6]["source"] == sites[6]["statement"] == whole
    assert "threadIdx.x + ONE" not in sites[6]["ir"]   # (nvcc's build: the macro is gone)
    # the loop nvcc runs in blocks of 4 has no variable of its own: named by its line
    code, out, _ = cli("explain", str(f), "-D", "ONE=1", "1")
    assert "worst request: block (0, 0, 0), warp 0, iteration 0 (from 0) of the loop at " \
        "line 8" in out


WALK = """
__global__ void walk(float *out, int n)
{
    __shared__ float s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    float acc = 0.f;
    for (int k = 0; k < n; ++k)
        acc += s[threadIdx.x + 64 * k];
    out[threadIdx.x] = acc;
}
int main() { float *b; walk<<<1, 256>>>(b, 4); return 0; }
"""


def test_a_fault_shows_the_source_line_and_the_variable(tmp_path):
    """The fourth review's #5: a fault names the statement as written and the array as
    declared (the build reads `s` through views of its words: `s_u32`, `s_f32`): thread
    192 reads s[192 + 64] at k = 1."""
    f = tmp_path / "walk.cu"
    f.write_text(WALK)
    code, out, _ = cli("check", str(f))
    assert code == 1
    assert "walk.cu:9:16, `acc += s[threadIdx.x + 64 * k];`: " \
        "out of bounds: index 256 of 's' (valid 0..255) [block (0, 0, 0); thread (192, 0, " \
        "0)]" in out, out


CONV = """
#define R 2
#define BS 16
#define TW (BS + 2 * R)
__global__ void conv(const float *in, float *out, int w)
{
    __shared__ float tile[TW][TW];
    int tx = threadIdx.x, ty = threadIdx.y;
    for (int i = ty; i < TW; i += BS)
        for (int j = tx; j < TW; j += BS)
            tile[i][j] = in[i * w + j];
    __syncthreads();
    float acc = 0.f;
    for (int dy = 0; dy <= 2 * R; dy++)
        for (int dx = 0; dx <= 2 * R; dx++)
            acc += tile[ty + dy][tx + dx];
    out[ty * w + tx] = acc;
}
int main() { float *a, *b; conv<<<1, dim3(16, 16)>>>(a, b, 64); return 0; }
"""


def test_fix_finds_the_padding_that_puts_a_warps_two_rows_half_the_banks_apart(tmp_path):
    """The fourth review's #4: a 16 x 16 block reads a 20-float halo tile, a warp two rows
    20 words apart: 4 banks overlap, 2 wavefronts a read (25 reads x 8 warps = 200 requests,
    400 wavefronts; the halo's 20 stores 30). Only a row of 16 words mod 32 separates the
    rows: pad 28 (48 floats a row), which the trace's re-costing finds where the paddings
    built first (1 and 4: still 2-way) do not: 200 + 20 = 220, no excess."""
    f = tmp_path / "conv.cu"
    f.write_text(CONV)
    code, out, err = cli("fix", str(f))
    assert code == 0, err
    assert out.splitlines()[0].startswith("conv: 430 shared wavefronts, 210 over ideal")
    assert "tile: pad 28: 430 -> 220 wavefronts, +2240 B shared memory" in out


WMMA_LDM = """
#include <mma.h>
using namespace nvcuda;
#define APAD 0
__global__ void tile_mma(const half *A, float *C)
{
    __shared__ __align__(32) half As[16][16 + APAD];
    for (int j = 0; j < 8; ++j)
        As[threadIdx.x / 2][(threadIdx.x % 2) * 8 + j] = A[threadIdx.x * 8 + j];
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    wmma::load_matrix_sync(fa, &As[0][0], 16 + APAD);
    wmma::load_matrix_sync(fb, &As[0][0], 16 + APAD);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);
}
int main() { half *a; float *c; tile_mma<<<1, 32>>>(a, c); return 0; }
"""


def test_fix_that_finds_nothing_lists_what_it_tried_and_the_macro_to_sweep(tmp_path):
    """The fourth review's #4: the wmma loads take the row's length as their own argument
    (`16 + APAD`), which a patch of the declaration does not change: each ldmatrix.x4 of a
    16-half-row tile is 2-way (8 wavefronts for 4), and no padding of the declaration
    helps (its rows are still read 32 bytes apart; the store's STS.128 splits); fix says
    what it tried, that APAD sizes the rows, and the sweep that builds each value of it
    (`__align__(32) half` is a half, 2 bytes: pads of 2 and 8 halves)."""
    f = tmp_path / "ldm.cu"
    f.write_text(WMMA_LDM)
    code, out, err = cli("fix", str(f))
    assert code == 0, err
    assert out.splitlines()[0].startswith("tile_mma: 20 shared wavefronts, 8 over ideal")
    # (of as many wavefronts, the build of fewer shared instructions first: pad 8 keeps
    # the store's STS.128 whole)
    assert "no padding or swizzle tried reduces the kernel's wavefronts: nothing is " \
        "proposed; tried: As pad 8 (24), As pad 2 (24)" in out
    assert "As: its rows are [16 + APAD] long, and APAD may pad them elsewhere too" in out
    assert "`smemsim sweep ldm.cu -D APAD=0:64:8` builds the file at each value" in out


DOUBLE_BUFFER = """
__global__ void dbuf(const float *in, float *out, int ntiles)
{
    __shared__ float buf[2][128];
    int tid = threadIdx.x;
    float acc = 0.f;
    buf[0][tid] = in[tid];
    for (int t = 0; t < ntiles; t++) {
        if (t + 1 < ntiles)
            buf[(t + 1) & 1][tid] = in[(t + 1) * 128 + tid];
        __syncthreads();
        acc += buf[t & 1][(tid + 32) % 128];
    }
    out[tid] = acc;
}
int main() { float *a, *b; dbuf<<<1, 128>>>(a, b, 8); return 0; }
"""


def test_a_race_of_unrolled_copies_is_said_once_and_its_barrier_as_the_loops(tmp_path):
    """The fourth review's #8: iteration t stores the next tile into the buffer iteration
    t - 1 read, with no barrier between: one race (line 12's read, line 10's store), which
    nvcc's unrolled copies made four lines "after the barrier at line 11 and before the one
    at line 11". Now one line, its copies counted, the interval as the loop's; in gcc's
    format too."""
    f = tmp_path / "dbuf.cu"
    f.write_text(DOUBLE_BUFFER)
    code, out, _ = cli("check", str(f))
    assert code == 1
    races = [line for line in out.splitlines() if "race on" in line]
    assert len(races) == 1, out
    assert "read-write race on buf[0][0] (byte 0) in block (0, 0, 0)" in races[0]
    assert "after the barrier at line 11 and before its next pass (a loop's) (and 3 more " \
        "site pair(s) of these lines" in races[0]
    code, out, _ = cli("check", str(f), "--format", "gcc")
    assert len([line for line in out.splitlines() if "[smemsim:shared-race]" in line]) == 1


# a float max by compare-and-swap, as CUDA code writes it
ATOMIC_MAX_FLOAT = """
__device__ void atomic_max_float(float *addr, float v)
{
    int *ai = (int *)addr;
    int old = *ai, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(ai, assumed, __float_as_int(v));
    } while (old != assumed);
}
"""

CAS_MAX = ATOMIC_MAX_FLOAT + """
__global__ void peak(const float *w, float *out)
{
    __shared__ float m[32];
    m[threadIdx.x % 32] = -1e30f;
    __syncthreads();
    atomic_max_float(&m[threadIdx.x % 4], w[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x < 32) out[threadIdx.x] = m[threadIdx.x];
}
int main() { float *w, *o; peak<<<2, 64>>>(w, o); return 0; }
"""


def test_a_compare_and_swap_loop_of_your_own_is_said_to_depend_on_the_scheduling(tmp_path):
    """The fourth review's #7: a hand-written atomicCAS loop retries while another lane's
    swap won; its passes depend on how warps interleave, as the compiler's float atomicAdd
    loop's do, and it was counted as if exact. Now the site is a retry loop's: with two
    warps contending for 4 words, an estimate, said so (JSON: retry_loop)."""
    f = tmp_path / "peak.cu"
    f.write_text(CAS_MAX)
    code, out, err = cli("analyze", str(f), "--length", "w=128", "--length", "out=32")
    assert code == 0, err
    assert "which retries until a store to shared memory survives" in out, out
    code, out, _ = cli("analyze", str(f), "--length", "w=128", "--length", "out=32",
                       "--json")
    sites = json.loads(out)["results"][0]["sites"]
    cas = [s for s in sites if s["op"] == "atomic_cas"]
    assert cas and all(s["retry_loop"] for s in cas), sites


OVERLOADS = """
__global__ void hist(const int *keys, int *bins)
{
    __shared__ int h[64];
    h[threadIdx.x] = keys[threadIdx.x];
    __syncthreads();
    bins[threadIdx.x] = h[63 - threadIdx.x];
}
__global__ void hist(const int *keys, float *bins)
{
    __shared__ float h[64];
    h[threadIdx.x] = keys[threadIdx.x];
    __syncthreads();
    bins[threadIdx.x] = h[63 - threadIdx.x];
}
int main() { int *k, *a; float *b; hist<<<1, 64>>>(k, a); hist<<<1, 64>>>(k, b); return 0; }
"""


def test_overloaded_kernels_are_named_with_their_signatures(tmp_path):
    """The fourth review's #2: two `hist` overloads were refused with "none is clearly
    None"; the refusal now names each overload (its signature and symbol) and the ways on."""
    f = tmp_path / "hist.cu"
    f.write_text(OVERLOADS)
    code, _, err = cli("analyze", str(f))
    assert code == 2
    assert "'hist' is overloaded: nvcc's build has 2 kernels of that name (" in err, err
    assert "_Z4histPKiPi" in err and "_Z4histPKiPf" in err
    assert "give each its own name, or analyze one with --kernel SYMBOL" in err


CHAIN = """
__global__ void norm(const float *x, float *y, int cols)
{
    __shared__ float sh[1024];
    sh[threadIdx.x] = x[blockIdx.x * cols + threadIdx.x];
    __syncthreads();
    y[blockIdx.x * cols + threadIdx.x] = sh[blockDim.x - 1 - threadIdx.x];
}
int main()
{
    int rows = 8, cols = 2048;
    float *x, *y;
    int threads;
    if (cols >= 4096) threads = 1024;
    else if (cols >= 1024) threads = 256;
    else threads = 128;
    norm<<<rows, threads>>>(x, y, cols);
    return 0;
}
"""


def test_a_value_the_host_chose_the_launch_by_is_said_when_p_gives_it(tmp_path, capsys):
    """The fourth review's #3: the host picks 256 threads for cols = 2048 (1024 at 8192);
    `-p cols=8192` changes the kernel's parameter, not the host's choice: said, with the
    --host that reads the host code at that value (block 1024)."""
    f = tmp_path / "chain.cu"
    f.write_text(CHAIN)
    lengths = ["--length", "x=65536", "--length", "y=65536"]
    code, out, err = cli("analyze", str(f), "-p", "cols=8192", *lengths)
    assert code == 0 and "block (256, 1, 1)" in out
    assert "the host code chose the launch's grid and block by its own value of cols; " \
        "-p cols=8192 changes the kernel's parameter only (--host cols=8192" in \
        err + capsys.readouterr().err
    code, out, _ = cli("analyze", str(f), "--host", "cols=8192", *lengths)
    assert code == 0 and "block (1024, 1, 1)" in out


def test_the_report_page_opens_on_a_race_before_any_count(tmp_path):
    """The fourth review's #9: a page whose kernel races opened on "No bank conflicts" and
    said the race only in its Hazards section, last. The race now comes first, once for
    its lines, linked to the section."""
    f = tmp_path / "dbuf.cu"
    f.write_text(DOUBLE_BUFFER)
    page = tmp_path / "page.html"
    code, _, err = cli("report", str(f), "-o", str(page))
    assert code == 0, err
    html = page.read_text()
    top = html.index("<b>Hazards: 1 race(s)</b>: read-write race on buf[0]")
    assert top < html.index("<b>No bank conflicts:</b>")
    assert 'href="#k0-hazards"' in html[top:top + 1000] and 'id="k0-hazards"' in html
    assert "(4 site pairs of these lines)" in html


COLSUM = """
template <int N, typename T>
__global__ void colsum(const T *in, T *out)
{
    __shared__ T t[N][N];
    for (int r = 0; r < N; ++r)
        t[r][threadIdx.x] = in[blockIdx.x * N * N + r * N + threadIdx.x];
    __syncthreads();
    T acc = 0;
    for (int c = 0; c < N; ++c)
        acc += t[threadIdx.x][c];
    out[blockIdx.x * N + threadIdx.x] = acc;
}
int main() { float *a, *b; colsum<32, float><<<16, 32>>>(a, b); return 0; }
"""


def test_fix_of_a_template_instance_says_the_patch_is_every_instances(tmp_path):
    """The fourth review's #10: the declaration fix patches is the template's, which every
    instance shares: said. And a 16-block grid fits on one SM at either change's
    occupancy, so fewer warps per SM is no trade there: the fewest wavefronts win."""
    f = tmp_path / "colsum.cu"
    f.write_text(COLSUM)
    code, out, err = cli("fix", str(f), "--length", "in=16384", "--length", "out=512")
    assert code == 0, err
    assert out.splitlines()[0].startswith("colsum<32, float>: ")
    assert "the declaration is the template's: the patch changes every instance of colsum, " \
        "not colsum<32, float> alone" in out
    best = next(line for line in out.splitlines() if line.startswith("t: "))
    rows = [re.match(r"t +(pad \d+|Swizzle<[\d,]+>) +([\d,]+) ", line)
            for line in out.splitlines() if line.startswith("t ")]
    fewest = min(int(m.group(2).replace(",", "")) for m in rows if m)
    assert f"-> {fewest:,} wavefronts" in best, out


CAS_RACE = ATOMIC_MAX_FLOAT + """
__global__ void peaks(const float *w, float *out)
{
    __shared__ float sum[64];
    __shared__ float wmax[2];
    sum[threadIdx.x] = w[threadIdx.x];
    if (threadIdx.x < 2) wmax[threadIdx.x] = -1e30f;
    __syncthreads();
    atomic_max_float(&wmax[threadIdx.x / 32], sum[threadIdx.x]);
    __syncthreads();
    if (threadIdx.x < 2) out[threadIdx.x] = wmax[threadIdx.x];
}
int main() { float *w, *o; peaks<<<1, 64>>>(w, o); return 0; }
"""


def test_a_compare_and_swap_loops_first_read_is_a_warning_on_its_own_element(tmp_path):
    """The fifth review's #2: the plain first read of a CAS loop (`old = *ai`) meets other
    lanes' atomicCAS in one barrier interval; the CAS checks what it read, so it is the
    usual idiom: a warning, not a failure (exit 0), on wmax[0] (the variable's own element,
    not the shared window's word 64 it was: `sum` comes first)."""
    f = tmp_path / "peaks.cu"
    f.write_text(CAS_RACE)
    code, out, _ = cli("check", str(f), "--length", "w=64", "--length", "out=2")
    assert code == 0, out
    assert "no hazard that changes a result; warnings:" in out
    assert "warning: read-atomic race on wmax[0] (byte 256)" in out, out
    assert "a CAS loop's first read, which its atomicCAS checks" in out
    code, out, _ = cli("check", str(f), "--length", "w=64", "--length", "out=2", "--json")
    (warning,) = json.loads(out)["results"][0]["same_value_races"]
    assert warning["kind"] == "read-atomic" and "atomicCAS checks" in warning["warning"]


def test_a_one_value_sweep_range_is_that_value(tmp_path):
    """The fifth review's #6: `-D PAD=0:1:2` is the range 0 (one value): built as PAD=0, not
    the text `0:1:2`."""
    f = tmp_path / "conv.cu"
    f.write_text(CONV.replace("#define R 2", "#define R 2\n#ifndef PAD\n#define PAD 1\n#endif")
                 .replace("tile[TW][TW]", "tile[TW][TW + PAD]"))
    code, out, err = cli("sweep", str(f), "-D", "PAD=0:1:2")
    assert code == 0, err
    # (the file's own PAD is 1: 20 x 21 floats, 1,680 B; PAD=0 is 20 x 20, 1,600 B and the
    # 430 wavefronts fix's test counts)
    row = next(line for line in out.splitlines() if line.startswith("1*"))
    assert row.split()[1:4] == ["430", "210", "1,600"], out

"""The thirteenth new-user review's findings (kernels it copied from repositories it had not
used before, and its own planted ones), each fixed and held here."""
import json
import pathlib
import subprocess
import sys

import pytest

from tests.test_new_user import cli

PLANTED = """
__global__ void planted(const float *in, float *out, int n)
{
    __shared__ float s[32][32];
    __shared__ float col[256];
    int tx = threadIdx.x, ty = threadIdx.y;
    int gx = blockIdx.x * 32 + tx;
    for (int r = ty; r < 32; r += 8)
        s[r][tx] = in[(blockIdx.y * 32 + r) * n + gx];
    __syncthreads();
    int t = ty * 32 + tx;
    col[t] = s[tx >> 3][(tx & 7) * 4 + ty];
    __syncthreads();
    out[(blockIdx.y * 8 + ty) * n + gx] = col[t + 1];
}
int main() {
    const int n = 256;
    float *in, *out;
    cudaMalloc(&in, sizeof(float) * n * n);
    cudaMalloc(&out, sizeof(float) * n * n);
    planted<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(in, out, n);
}
"""


def test_an_out_of_bounds_index_is_the_variables_own(tmp_path):
    """`col[t + 1]` at t = 255 read past `float col[256]`, which nvcc places after s's 4,096
    bytes: the fault said "index 1280 of 'col' (valid 0..1279)", the window's words. Now
    the index and the extent are col's own, the window's byte beside them."""
    f = tmp_path / "planted.cu"
    f.write_text(PLANTED)
    code, out, err = cli("check", str(f))
    assert code == 1
    assert "out of bounds: index 256 of 'col' (valid 0..255; byte 5120 of the block's " \
           "5120-byte shared window)" in out + err


SUM_SHARED = """
#include <cstdint>
constexpr size_t BLOCK_SIZE = 512;
__global__ void sum_shared(int32_t* in, int32_t* out) {
  __shared__ int32_t buf[BLOCK_SIZE];
  const size_t offset = BLOCK_SIZE * blockIdx.x;
  const size_t i = threadIdx.x;
  for (size_t i = 0; i < BLOCK_SIZE; i++) {
    buf[i] = in[offset + i]STEER;
  }
  __syncthreads();
  for (size_t gap = 256; gap > 0; gap /= 2) {
    if (i < gap) {
      buf[i] += buf[i + gap];
    }
    __syncthreads();
  }
  if (i == 0) {
    out[blockIdx.x] = buf[0];
  }
}
int main() {
  const size_t n = 1 << 22;
  int32_t *in, *out;
  cudaMalloc(&in, sizeof(int32_t) * n);
  cudaMalloc(&out, sizeof(int32_t) * (n / BLOCK_SIZE));
  sum_shared<<<n / BLOCK_SIZE, BLOCK_SIZE>>>(in, out);
}
"""


def test_every_thread_storing_the_same_copy_is_a_warning_without_a_run_on_values(tmp_path):
    """redwoodresearch/mlab's sum_shared (its loop variable shadows the thread's, so every
    thread copies the block's 512 inputs): `check` ran every one of 8,192 blocks with
    values to tell whether the threads' stores agree, killed after 300 s. The stores read
    no threadIdx: every thread stores the same bytes in the same order, a same-value race
    by construction, found from one block of each class (a second or so)."""
    f = tmp_path / "sum_shared.cu"
    f.write_text(SUM_SHARED.replace("STEER", ""))
    code, out, err = cli("check", str(f))
    assert code == 0, out + err
    assert "no hazard that changes a result; warnings:" in out
    assert "same-value write-write race on buf[0]" in out
    # (the length 1 << 22 the host allocates is not the default assumed: no note)
    assert "does not say how long" not in err


def test_a_copy_that_reads_the_thread_is_still_a_race(tmp_path):
    f = tmp_path / "sum_shared.cu"
    f.write_text(SUM_SHARED.replace("STEER", " + (int32_t)threadIdx.x")
                 .replace("1 << 22", "1 << 12"))
    code, out, err = cli("check", str(f))
    assert code == 1, out + err
    assert "write-write race on buf[0]" in out and "same-value write-write race" not in out


def test_mcp_answers_every_request_a_client_wrote_before_closing_stdin(tmp_path):
    """`smemsim mcp < calls.jsonl`: the MCP package's loop ended at the end of input and
    dropped the calls still running (2 answers of 8). Every request is answered now."""
    pytest.importorskip("mcp", reason="the mcp package is not installed")
    calls = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "analyze", "arguments": {"file": "transpose", "options": ["-pn=64"]}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "occupancy", "arguments": {"options": ["--threads", "256"]}}},
        {"jsonrpc": "2.0", "id": 4, "method": "no/such/method"}]
    done = subprocess.run([sys.executable, "-m", "smemsim", "mcp"], capture_output=True,
                          input="".join(json.dumps(c) + "\n" for c in calls), text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3, 4]
    assert answers[4]["error"]["code"] == -32601
    doc = json.loads(answers[2]["result"]["content"][0]["text"])
    assert doc["results"][0]["kind"] == "analysis"


MERGED = """
__global__ void scale(float4 *bs, const float *ps, unsigned n, float dt)
{
    extern __shared__ float4 shmem[];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    shmem[threadIdx.x] = bs[i];
    shmem[threadIdx.x].x = ps[i] * dt / shmem[threadIdx.x].w;
    shmem[threadIdx.x].y = ps[i] * dt / shmem[threadIdx.x].w;
    bs[i] = shmem[threadIdx.x];
}
int main() {
    float4 *bs; float *ps;
    cudaMalloc(&bs, sizeof(float4) * 4096); cudaMalloc(&ps, sizeof(float) * 4096);
    scale<<<16, 256, 256 * sizeof(float4)>>>(bs, ps, 4096, 0.5f);
}
"""


def test_explain_of_a_line_nvcc_merged_into_the_next_says_so(tmp_path):
    """sellep/pasim: `.x =` and `.y =` of one float4 become one 8-byte store at the second
    line; explain of the first line said only that it has no site."""
    f = tmp_path / "merged.cu"
    f.write_text(MERGED)
    code, out, err = cli("analyze", str(f))
    assert code == 0 and "store 8B" in out, out + err
    code, out, err = cli("explain", str(f), f"{f.name}:7")
    assert code == 2
    assert "no shared access site at merged.cu:7" in err
    assert "(site 1 at line 8 is an 8-byte store: the compiler may have merged this line's " \
           "access into it)" in err


TRANSPOSE_DEFINED = """
#define BLOCK_DIM 16
__global__ void transpose(float *odata, const float *idata, int n)
{
    __shared__ float tile[BLOCK_DIM][BLOCK_DIM + 1];
    int x = blockIdx.x * BLOCK_DIM + threadIdx.x, y = blockIdx.y * BLOCK_DIM + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = idata[y * n + x];
    __syncthreads();
    x = blockIdx.y * BLOCK_DIM + threadIdx.x; y = blockIdx.x * BLOCK_DIM + threadIdx.y;
    odata[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
int main() {
    float *a, *b; int n = 256;
    cudaMalloc(&a, n * n * 4); cudaMalloc(&b, n * n * 4);
    transpose<<<dim3(n / BLOCK_DIM, n / BLOCK_DIM), dim3(BLOCK_DIM, BLOCK_DIM)>>>(b, a, n);
}
"""


def test_sweep_never_says_a_define_changes_nothing_when_one_value_was_counted(tmp_path):
    """lio's transpose #defines BLOCK_DIM: `-D BLOCK_DIM=8,16,32` is refused at 8 and 32
    (the file's #define wins), and sweep then said "BLOCK_DIM changes no shared access
    here" from the two points of one value (two archs)."""
    f = tmp_path / "transpose.cu"
    f.write_text(TRANSPOSE_DEFINED)
    code, out, err = cli("sweep", str(f), "-D", "BLOCK_DIM=8,16", "--arch", "sm_80,sm_90")
    text = out + err
    assert "disagree" in text, text
    assert "BLOCK_DIM changes no shared access" not in text
    assert "every point counted counts the same: the swept changes move no access" in text


def test_the_report_says_no_change_could_be_tried_where_none_was():
    from smemsim.cli.page import _no_fix
    assert _no_fix({"tried": 0, "skipped": ["a: b"]}).startswith(
        "No padding or swizzle could be tried (1 skipped")
    assert _no_fix({"tried": 3, "skipped": ["a: b"]}) == \
        "No padding or swizzle tried lowers the wavefronts."


def test_fewer_warps_of_a_launch_whose_blocks_fit_anyway_are_explained():
    """SkaAnn's numba matmul: fix chose a swizzle whose build needs 48 registers (40 warps
    per SM, 64 before) over a padding of as many wavefronts, and said only that it costs
    warps: its two blocks of eight warps fit on one SM either way."""
    import io

    from rich.console import Console

    from smemsim.cli.fixpatch import Built, CheckedPatch
    from smemsim.cli.render import print_patch
    from smemsim.frontends.cuda.patch import LayoutPatch

    built = lambda wavefronts, registers, warps: Built(  # noqa: E731
        wavefronts=wavefronts, registers=registers, active_warps=warps, uncounted=0)
    patch = CheckedPatch(LayoutPatch("m.py", "a = 1\n", "a = 2\n", ()), 4272, 4272,
                         built(4608, 32, 64), built(4272, 48, 40), None, "", 2, 8)
    out = io.StringIO()
    print_patch(Console(file=out, width=300), patch, "numba")
    assert "40 warps per SM instead of 64; this launch's 2 block(s) of 8 warps fit on one " \
           "SM either way" in out.getvalue()


MATRIX = """
typedef struct { unsigned int width; unsigned int height; unsigned int pitch; float *elements; } Matrix;
__global__ void blur(Matrix N, Matrix P)
{
    __shared__ float tile[18][18];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty - 1, col = blockIdx.x * 16 + tx - 1;
    if (row >= 0 && row < N.height && col >= 0 && col < N.width)
        tile[ty][tx] = N.elements[row * N.width + col];
    else
        tile[ty][tx] = 0.0f;
    __syncthreads();
    if (tx < 16 && ty < 16 && row + 1 < P.height && col + 1 < P.width)
        P.elements[(row + 1) * P.width + col + 1] = tile[ty][tx] + tile[ty + 1][tx + 1];
}
int main() {
    Matrix N, P;
    N.width = N.height = N.pitch = 256; P = N;
    cudaMalloc(&N.elements, sizeof(float) * 256 * ROWS);
    cudaMalloc(&P.elements, sizeof(float) * 256 * 256);
    blur<<<dim3(16, 16), dim3(18, 18)>>>(N, P);
}
"""


def test_a_struct_passed_by_value_takes_its_fields_from_the_host(tmp_path):
    """JehyunJung's convolution takes `Matrix N, Matrix P` by value, the host setting
    `N.width = N.height = N.pitch = 2048; P = N;`: the build's fields were named by byte
    offset (N_0, N_4) and asked for. They are named as the struct names them, take the
    host's values (through the chained assignment and the copy), the field the kernel never
    reads (pitch) is no parameter, and `cudaMalloc(&N.elements, ...)` is N_elements' length."""
    f = tmp_path / "blur.cu"
    f.write_text(MATRIX.replace("ROWS", "256"))
    code, out, err = cli("analyze", str(f))
    assert code == 0, out + err
    assert "parameters: N_width=256, N_height=256, P_width=256, P_height=256" in out
    assert "does not say how long" not in err   # (both allocations read)
    # the tile's two stores: a warp (11 of a block's 18 x 18 threads) issues the branch of
    # its in-image lanes and the one of the others, where it has any of each
    want = 0
    for by in range(16):
        for bx in range(16):
            for w in range(11):
                inside = {0 <= by * 16 + t // 18 - 1 < 256 and 0 <= bx * 16 + t % 18 - 1 < 256
                          for t in range(32 * w, min(32 * w + 32, 324))}
                want += len(inside)
    code, doc, err = cli("analyze", str(f), "--json")
    sites = json.loads(doc)["results"][0]["sites"]
    assert sum(s["requests"] for s in sites if s["op"] == "store") == want
    # one row short of N's 256: the last row's reads are past its allocation
    f.write_text(MATRIX.replace("ROWS", "255"))
    code, out, err = cli("check", str(f))
    assert code == 1
    assert "out of bounds: index 65280 of 'N_elements' in f32 elements (valid 0..65279)" \
        in out + err


def test_the_relay_counts_requests_answers_and_withdrawn_requests():
    from smemsim.cli.mcp_server import _cancelled, _ids
    line = lambda doc: (json.dumps(doc) + "\n").encode()  # noqa: E731
    batch = line([{"jsonrpc": "2.0", "id": 7, "method": "tools/call"},
                  {"jsonrpc": "2.0", "method": "notifications/initialized"}])
    assert _ids(batch, request=True) == {"7"}
    assert _ids(line({"jsonrpc": "2.0", "id": "a", "result": {}}), request=False) == {'"a"'}
    assert _ids(b"not json\n", request=True) == set()
    # a withdrawn request is answered by no one: the relay stops waiting for it
    assert _cancelled(line({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": 7}})) == {"7"}


WARP_REDUCE = """
__device__ void warpReduce(volatile float *s, int t) {
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}
__global__ void reduce(const float *in, float *out) {
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    if (t < 64) s[t] += s[t + 64];
    __syncthreads();
    if (t < 32) warpReduce(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}
int main() { float *a, *b; cudaMalloc(&a, 4096 * 4); cudaMalloc(&b, 32 * 4); reduce<<<32, 128>>>(a, b); }
"""


def test_a_warp_synchronous_reduction_shows_its_advice_and_a_few_races():
    """sula234's reduction: 17 near-identical race lines of one warp-synchronous tail after
    the advice that answers them all. Three are shown, the rest counted with their lines."""
    import tempfile
    f = pathlib.Path(tempfile.mkdtemp()) / "reduce.cu"
    f.write_text(WARP_REDUCE)
    code, out, err = cli("check", str(f))
    assert code == 1, out + err
    assert "races below are between threads of one warp: warp-synchronous code" in out
    shown = [line for line in out.splitlines() if "race on s[" in line]
    assert len(shown) == 3, out
    assert "... and 14 more races between threads of one warp, at lines 3, 4, 5, 6, 7, 8 " \
           "(--json lists every one)" \
        in out, out

"""The seventeenth new-user review's findings, and what this session found on the way, each
fixed and held here."""
import json
import pathlib

from kernels_ir.stmt import Loop

from smemsim.frontends.cuda.patch import unified_diff
from smemsim.frontends.loader import load_kernels
from smemsim.launch.slicing import hazard_slices
from tests.test_new_user import cli

PASSED_GRID = """
__global__ void tr(const float *in, float *out, int n)
{
    __shared__ float t[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    t[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    out[x * n + y] = t[threadIdx.x][threadIdx.y];
}
void launch(const float *in, float *out, int n, dim3 grid)
{
    tr<<<grid, dim3(32, 32)>>>(in, out, n);
}
int main()
{
    const int N = 2048;
    float *a, *b;
    cudaMalloc(&a, N * N * 4); cudaMalloc(&b, N * N * 4);
    launch(a, b, N, dim3(N / 32, N / 32));
}
"""


def test_a_dim3_the_launching_function_takes_is_read_from_its_callers(tmp_path):
    """`launch(a, b, N, dim3(N / 32, N / 32))` passes the grid to the function that
    launches: smemsim asked for `--host 'grid=VALUE'` (and `--launch-grid N/32` could not
    name main's constant). The grid is read at the call, as a scalar argument is: 64 x 64
    blocks of 32 warps, each warp reading a tile column (32-way: 4,194,304 wavefronts for
    131,072 requests)."""
    f = tmp_path / "passed.cu"
    f.write_text(PASSED_GRID)
    code, out, err = cli("analyze", str(f), "--json")
    assert code == 0, err
    (r,) = json.loads(out)["results"]
    assert r["grid"] == [64, 64, 1]
    load = next(s for s in r["sites"] if s["op"] == "load")
    assert (load["requests"], load["wavefronts"]) == (131072, 4194304)


def test_a_dim3_its_callers_give_differently_is_asked_for(tmp_path):
    """Two calls with two grids: no one value, asked for as before."""
    f = tmp_path / "two.cu"
    f.write_text(PASSED_GRID.replace("launch(a, b, N, dim3(N / 32, N / 32));",
                                     "launch(a, b, N, dim3(N / 32, N / 32));\n"
                                     "    launch(a, b, N, dim3(N / 64, N / 32));"))
    code, _, err = cli("analyze", str(f))
    assert code == 2 and "--host 'grid=VALUE'" in err


REDUCTION = pathlib.Path(__file__).parent / "data" / "xzzx_reduction.cu"


def test_a_loop_that_repeats_a_reduction_alike_is_checked_in_two_iterations():
    """XzzX/cuda-reduction's reduction.cu (tests/data/xzzx_reduction.cu, verbatim) wraps each
    reduction in `for (int loop=0; loop < 1000; ++loop)` to time it: `check` ran past 15
    minutes (3 s now). nvcc's registers, which the PTX reading declares at the kernel's top, are
    assigned in the loop's body before they are read, so no iteration reads what an
    earlier one left: the loop looks alike, and check's runs (and the classing of blocks
    by their control) take two of its iterations. Its findings are the full run's: the
    warp-synchronous steps of `unroll` race (lanes of one warp), and so do warp 0's last
    reads of one iteration and warp 1's `buf[tid] = 0` of the next (line 182 against line
    166: no barrier after unroll)."""
    code, out, err = cli("check", str(REDUCTION), "--kernel",
                         "reduce_interleaved_noconflict_nondivergent_unrolled", "--json")
    assert code == 1, err
    (r,) = json.loads(out)["results"]
    pairs = {(x["first_loc"]["line"], x["second_loc"]["line"]): x["same_warp"]
             for x in r["races"]}
    assert pairs[(164, 166)] is True and pairs[(182, 166)] is False
    kernel = load_kernels(str(REDUCTION))[
        "reduce_interleaved_noconflict_nondivergent_unrolled"]()
    hs = hazard_slices(kernel)
    outer = next(s for s in kernel.statements() if isinstance(s, Loop) and s.loc.line == 174)
    assert id(outer) in hs.truncate and id(outer) in hs.other_truncate


SCAN = pathlib.Path(__file__).parent / "data" / "blelloch_scan.cu"


def test_check_checks_every_configuration_the_host_code_launches(tmp_path):
    """nathanjzhao/cuda-blelloch-scan's scan.cu (tests/data/blelloch_scan.cu, verbatim)
    launches its scan twice: over the input (`<<<num_blocks, block_size, block_size * 2 *
    sizeof(int)>>>`, line 94) and over the block sums (`<<<1, num_blocks, num_blocks *
    sizeof(int)>>>`, line 123), where the second gives half the shared memory its
    `2 * blockDim.x` ints need. check read the first launch only, and said so nowhere: the
    file was "clean". Each configuration is checked now, each said at its launch; at n = 32
    the second is one block of 32 threads with 128 bytes, and thread 0's store of temp[32]
    is out of bounds."""
    code, out, err = cli("check", str(SCAN), "--kernel", "blelloch_scan_kernel", "-p", "n=32",
                         "--json")
    assert code == 1, err
    first, second = json.loads(out)["results"]
    assert first["launch"].endswith("blelloch_scan.cu:94:5") and first["clean"]
    assert second["launch"].endswith("blelloch_scan.cu:123:9")
    (fault,) = second["faults"]
    assert "index 32 of 'temp' (valid 0..31)" in fault["message"]
    # the other launch, chosen for any verb
    code, out, err = cli("analyze", str(SCAN), "--kernel", "blelloch_scan_kernel", "-p",
                         "n=32", "--launch-at", "blelloch_scan.cu:123:9")
    assert code == 2 and "index 32 of 'temp'" in err
    code, _, err = cli("analyze", str(SCAN), "--kernel", "blelloch_scan_kernel", "-p",
                       "n=32", "--launch-at", "blelloch_scan.cu:12")
    assert code == 2 and "--launch-at blelloch_scan.cu:12: no launch of " \
        "'blelloch_scan_kernel' there (its launches: " in " ".join(err.split())


DOT = pathlib.Path(__file__).parent / "data" / "etudes_dot_shared.cu"


def test_a_default_the_command_line_may_override_is_read_and_said(capsys):
    """mmarzolla/parallel-etudes' cuda-dot-shared.cu (tests/data/etudes_dot_shared.cu,
    verbatim): `int n = 1024*1024;` then `if ( argc > 1 ) { n = atoi(argv[1]); }`, and its
    arrays allocated with `const size_t size = n * sizeof(*x);`. smemsim asked for n and
    said it could not tell the arrays' lengths. The host code is now read as the program
    runs without arguments (argc = 1: n = 1,048,576, said in a note), and `sizeof(*x)` of
    the host's `double *x` is 8: x and y are 1,048,576 doubles, result one. One block of
    1,024 threads: 32 warps store 8-byte sums (2 wavefronts each), thread 0 reads all 1,024
    (1,024 requests of one wavefront)."""
    code, out, err = cli("analyze", str(DOT), "--json")
    assert code == 0, err
    (r,) = json.loads(out)["results"]
    assert r["params"]["n"] == 1048576
    assert any("without command-line arguments (argc = 1)" in n for n in r["compiler_notes"])
    assert "does not say how long" not in err + capsys.readouterr().err
    assert (r["store"]["requests"], r["store"]["wavefronts"]) == (32, 64)
    assert (r["load"]["requests"], r["load"]["wavefronts"]) == (1024, 1024)
    # a value given still wins
    code, out, err = cli("analyze", str(DOT), "--json", "-p", "n=4096")
    assert code == 0 and json.loads(out)["results"][0]["params"]["n"] == 4096


def test_a_patchs_diff_shows_only_the_lines_it_changes():
    """fix's patch of the reduction file (321 lines) removed and added again the unchanged
    `}`, `__syncthreads();` and blank lines between its two edits: difflib takes a line that
    is more than 1% of a long file's for junk. The diff is matched without that now: two
    lines changed, two lines removed and two added, as difflib shows for a short file."""
    original = REDUCTION.read_text().splitlines(keepends=True)
    patched = list(original)
    for at in (111, 117):   # (lines 112 and 118: the tree step and the block's result)
        patched[at] = patched[at].replace("buf[", "buf[swz(").replace("]", ")]")
    assert patched[111] != original[111] and patched[117] != original[117]
    diff = unified_diff(original, patched, "a/reduction.cu", "b/reduction.cu")
    body = diff.splitlines()[2:]
    assert [line for line in body if line.startswith("-")] == \
        ["-" + original[111].rstrip("\n"), "-" + original[117].rstrip("\n")]
    assert [line for line in body if line.startswith("+")] == \
        ["+" + patched[111].rstrip("\n"), "+" + patched[117].rstrip("\n")]
    assert body[0] == "@@ -109,13 +109,13 @@" and len(body) == 1 + 11 + 2 + 2


def test_when_every_kernel_of_a_file_lacks_values_none_is_said_to_have_gone_on(tmp_path):
    """Moliholy's transpose.cu reads m and n from argv for both its kernels: each error
    said "(the file's other kernels went on)" when none had. Said only where one did."""
    f = tmp_path / "two.cu"
    f.write_text("""
__global__ void a(float *o, int m) { __shared__ float s[32]; s[threadIdx.x] = m;
  __syncthreads(); o[threadIdx.x] = s[31 - threadIdx.x]; }
__global__ void b(float *o, int m) { __shared__ float s[32]; s[threadIdx.x] = m;
  __syncthreads(); o[threadIdx.x] = s[31 - threadIdx.x]; }
void run(float *o, int m) { a<<<1, 32>>>(o, m); b<<<1, 32>>>(o, m); }
""")
    code, _, err = cli("analyze", str(f))
    assert code == 2 and err.count("parameter 'm' has no value") == 2
    assert "went on" not in err


def test_an_occupancy_curve_says_which_points_it_shows():
    """The block-size curve showed 32, 64, 96, 128, 160, 224, ...: 192 left out, read as a
    size that does not fit. Its title says the rows are every second of the 32 sizes (32
    to 1,024 threads by warps), the powers of two and the current one; --json has all."""
    code, out, _ = cli("occupancy", "--arch", "sm_90", "--threads", "512", "--regs", "32")
    assert code == 0
    assert "occupancy vs block_size (every 2nd of 32 points, the powers of two and the " \
        "current one; --json has all)" in out
    code, out, _ = cli("occupancy", "--arch", "sm_90", "--threads", "512", "--regs", "32",
                       "--json")
    (curve,) = [c for c in json.loads(out)["results"][0]["curves"]
                if c["knob"] == "block_size"]
    assert curve["x"] == list(range(32, 1025, 32))


def test_a_sweep_whose_points_all_tie_says_so_instead_of_listing_them():
    """The review's sweep of N over a reduction (N decides no shared access) marked all 8
    points as the Pareto front and listed six of them. Where every point ties on all three
    measures, the line says that."""
    code, out, err = cli("sweep", str(REDUCTION), "--kernel",
                         "reduce_neighbored_conflict_nondivergent", "-p",
                         "N=1048576:4194305:1048576")
    assert code == 0, err
    said = " ".join(out.split())
    assert "occupancy (at most: registers not given; --regs compile): every point, all 4 " \
        "alike in all three" in said

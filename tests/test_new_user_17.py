"""The seventeenth new-user review's findings, and what this session found on the way, each
fixed and held here."""
import json
import pathlib

from kernels_ir.stmt import Loop

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

"""The sixteenth new-user review's findings (a host change to a dim3 before a launch, ...),
each fixed and held here."""
import json

import pytest

from tests.test_new_user import cli

HALVED = """
__device__ void reverse(const float *in, float *out)
{
    __shared__ float s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}
__global__ void whole(const float *in, float *out) { reverse(in, out); }
__global__ void half(const float *in, float *out) { reverse(in, out); }
__global__ void quarter(const float *in, float *out) { reverse(in, out); }
int main()
{
    const int n = 1 << 20;
    float *a, *b;
    cudaMalloc(&a, n * sizeof(float)); cudaMalloc(&b, n * sizeof(float));
    dim3 block(256);
    dim3 grid((n + 255) / 256, 2);
    whole<<<grid, block>>>(a, b);
    grid.x = grid.x / 2;
    half<<<grid, block>>>(a, b);
    grid.x /= 2;
    grid.y += 1;
    quarter<<<grid, block>>>(a, b);
}
"""


def test_a_dim3_field_changed_before_a_launch_is_read_at_that_launch(tmp_path):
    """sunjiabin17/cuda-example's transpose runs `grid.x = grid.x / 2;` before its unrolled
    kernel's launch: smemsim read the grid as declared, 64 x 512 for 32 x 512, silently
    (the counts were right only because the kernel bounds-checks). Each launch is now read
    with the dim3's fields as the host code left them before it, an assignment reading the
    field as it was (`grid.x = grid.x / 2`, `grid.x /= 2`)."""
    f = tmp_path / "halved.cu"
    f.write_text(HALVED)
    code, out, err = cli("analyze", str(f), "--json")
    assert code == 0, err
    grids = {r["kernel"]: r["grid"] for r in json.loads(out)["results"]}
    assert grids == {"whole": [4096, 2, 1], "half": [2048, 2, 1], "quarter": [1024, 3, 1]}


SPECULATED = """
__global__ void tail(const int *in, int *out, int add_last)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    int last = 0;
    if (add_last && t == READER)
        last = s[255];
    __syncthreads();
    out[blockIdx.x * 256 + t] = s[255 - t] + last;
}
void run(const int *in, int *out) { tail<<<64, 256>>>(in, out, ADD_LAST); }
"""


@pytest.mark.parametrize("reader,add_last,race", [(255, 0, False), (255, 1, False),
                                                    (0, 0, False), (0, 1, True)])
def test_a_load_nvcc_made_unconditional_is_a_hazard_only_where_its_value_is_used(
        tmp_path, reader, add_last, race):
    """jokLiu/CUDA_C_Block_Scan saves its block's last element `if (add_last && thid ==
    BLOCK_SIZE - 1) last = temp[...]` before the barrier: nvcc loads it in every thread
    (`ld.shared` before the branch, then `selp`), and check reported a read-write race
    with thread 0 and a read of unwritten bytes (exit 1) at add_last = 0, where the source
    reads nothing. A load whose value is used only under pure conditions is now tracked
    only where they hold: the reader that is the writer is no race; thread 0 reading the
    element thread 255 stores, before the barrier, is one where add_last is set."""
    f = tmp_path / "tail.cu"
    f.write_text(SPECULATED.replace("READER", str(reader)).replace("ADD_LAST", str(add_last)))
    code, out, err = cli("check", str(f))
    assert code == (1 if race else 0), out + err
    assert ("read-write race on s[255]" in out) == race


STENCIL = """
__global__ void stencil(const float *in, float *out)
{
    __shared__ float s[6][6];
    s[threadIdx.y][threadIdx.x] = in[threadIdx.y * 6 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x >= 1 && threadIdx.x < 5 && threadIdx.y >= 1 && threadIdx.y < 5) {
        out[threadIdx.y * 6 + threadIdx.x] = s[threadIdx.y][threadIdx.x]
                                           + s[threadIdx.y][threadIdx.x - 1]
                                           + s[threadIdx.y][threadIdx.x + 1]
                                           + s[threadIdx.y - 1][threadIdx.x]
                                           + s[threadIdx.y + 1][threadIdx.x];
    }
}
void run(const float *in, float *out) { stencil<<<1, dim3(6, 6)>>>(in, out); }
"""


def test_a_statement_over_many_lines_is_shown_from_its_start(tmp_path):
    """yanis-falaki/pmpp's 3-D stencil sums seven neighbours, one a line: a site of its
    last lines was shown from `+ c5*in_s[...]`, mid-expression (three lines back at most).
    Its text now reaches back to the statement's first line."""
    f = tmp_path / "stencil.cu"
    f.write_text(STENCIL)
    code, out, err = cli("analyze", str(f), "--json")
    assert code == 0, err
    last = [s for s in json.loads(out)["results"][0]["sites"] if s["line"] == 12]
    assert last and all(s["statement"].startswith("out[threadIdx.y * 6 + threadIdx.x] = ")
                        for s in last)


ARGV = """
#include <cstdlib>
__global__ void tile(const float *in, float *out, int nx, int ny)
{
    __shared__ float s[8][64];
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny) s[threadIdx.y][threadIdx.x] = in[y * nx + x];
    __syncthreads();
    if (x < nx && y < ny) out[y * nx + x] = s[threadIdx.y][63 - threadIdx.x];
}
int main(int argc, char **argv)
{
    int block_x = atoi(argv[1]), block_y = atoi(argv[2]);
    int nx = 4096, ny = 4096;
    float *a, *b;
    cudaMalloc(&a, nx * ny * sizeof(float)); cudaMalloc(&b, nx * ny * sizeof(float));
    dim3 block(block_x, block_y);
    dim3 grid((nx + block_x - 1) / block_x, (ny + block_y - 1) / block_y);
    tile<<<grid, block>>>(a, b, nx, ny);
}
"""


def test_host_values_a_launch_needs_are_asked_for_at_once(tmp_path):
    """sunjiabin17's transpose reads its block's sides from argv: the review learnt of
    `block_x`, then of `block_y`, one run each. Every host value the launch needs is now
    named in one error (as the host code computes it: `atoi(argv[1])`); given both, by the
    variables' names, the launch is read."""
    f = tmp_path / "argv.cu"
    f.write_text(ARGV)
    code, _, err = cli("analyze", str(f))
    said = " ".join(err.split())
    assert code == 2 and "uses `atoi(argv[1])`; also `atoi(argv[2])`: give their values " \
        "(--host 'atoi(argv[1])=VALUE' --host 'atoi(argv[2])=VALUE'), or --launch-grid " \
        "and --launch-block" in said, said
    code, out, err = cli("analyze", str(f), "--host", "block_x=64", "--host", "block_y=8",
                         "--json")
    assert code == 0, err
    r = json.loads(out)["results"][0]
    assert (r["grid"], r["block"]) == ([64, 512, 1], [64, 8, 1])

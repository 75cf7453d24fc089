"""The eighteenth new-user review's findings, each fixed and held here, on the reviewer's
kernels copied verbatim:

- tests/data/pmpp_stencil.cu: R100001/Programming-Massively-Parallel-Processors,
  "Ch07 - Parallel Patterns: Convolution/labs/stencil/stencil.cu" (commit 0cd47d01);
- tests/data/yhs_sgemm.cu: BBuf/how-to-optim-algorithm-in-cuda,
  cuda-mode/code/YHs_Sample/cuda/gemm/sgemm.cu (commit 10a3a8d2);
- tests/data/ekarpp_radix/: ekarpp/cuda_snippets, radix_sort.cu with the headers it
  includes (constants.h, radix_sort.h, scan.h; commit 5def1ffa).
"""
import json
import pathlib

from tests.test_new_user import cli

DATA = pathlib.Path(__file__).parent / "data"


def test_occupancy_counts_the_static_shared_memory_of_a_build_with_a_stack(nvcc):
    """The stencil calls printf, so ptxas's line reads `Used 38 registers, used 1 barriers,
    8 bytes cumulative stack size, 4096 bytes smem`: occupancy said 0 B of static shared
    memory (and shared memory's limit 228 blocks, not 45 = 233,472 / (4,096 + 1,024)). It
    asked for width, height and depth too, which only the grid reads: a block's needs do
    not depend on them, so occupancy answers without them, and without the note about
    array lengths no occupancy reads."""
    code, out, err = cli("occupancy", str(DATA / "pmpp_stencil.cu"), "--json")
    assert code == 0, err
    (r,) = json.loads(out)["results"]
    assert (r["block_size"], r["static_smem"], r["limits"]["shared_memory"]) == \
        (1024, 4096, 45)
    assert "how long" not in err


def test_a_kernel_that_calls_a_noinline_function_is_analyzed(nvcc):
    """YHs's SGEMM writes its C tile back through `__device__ __noinline__ C_tile_wb`:
    every verb refused the kernel ("a call of _Z9C_tile_wb... is not lowered yet"). The
    call is written out (smemsim.frontends.ptx.inline_calls): at the file's launch (m =
    5120, n = k = 4096: 32 x 40 blocks of 8 warps), each warp loads 4 LDS.128 fragments per
    k step (4,096 of them) and the write-back's 64 LDS: 10,240 x 16,448 requests."""
    code, out, err = cli("analyze", str(DATA / "yhs_sgemm.cu"), "--json")
    assert code == 0, err
    (r,) = json.loads(out)["results"]
    assert r["grid"] == [32, 40, 1] and r["load"]["requests"] == 10_240 * (4 * 4_096 + 64)


def test_a_fault_at_an_address_the_kernel_loads_says_its_inputs_were_invented(nvcc):
    """The radix sort's reorder_data stores to data_out at offsets it computes from
    block_histograms and start_ptrs: with smemsim's random stand-ins for them the index is
    4294967263, a fault of the inputs, not of the program. A global access's fault now
    says so, as a shared one's did."""
    code, out, err = cli("check", str(DATA / "ekarpp_radix" / "radix_sort.cu"), "--kernel",
                         "reorder_data", "-p", "bucket_size=64", "-p", "start_bit=0",
                         "--host", "n=65536")
    assert code == 1, err
    assert "out of bounds: index 4294967263 of 'data_out'" in out
    assert "this address depends on values the kernel loads, and 'data_in', " \
        "'block_histograms', 'start_ptrs' hold smemsim's seeded random values" in out


SCATTER = """__global__ void scatter(const int *keys, int *out)
{
    __shared__ int s[64];
    s[keys[threadIdx.x] & 63] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x & 63];
}
int main()
{
    int *keys, *out;
    cudaMalloc(&keys, 64 * sizeof(int));
    cudaMalloc(&out, 64 * sizeof(int));
    scatter<<<1, 64>>>(keys, out);
}
"""


def test_a_race_at_an_address_the_kernel_loads_says_its_inputs_were_invented(nvcc, tmp_path):
    """Threads storing to s[keys[t] & 63] race where two keys meet, which the random keys
    smemsim stands in for the program's make happen: the race is reported, and so is that
    its site's address comes from invented values (text and JSON)."""
    cu = tmp_path / "scatter.cu"
    cu.write_text(SCATTER)
    code, out, err = cli("check", str(cu))
    assert code == 1 and "write-write race on s[" in out
    assert "(site 0: its address depends on values the kernel loads, and 'keys' holds " \
        "smemsim's seeded random values, not the program's: a race there may be theirs" in out
    code, out, err = cli("check", str(cu), "--json")
    (r,) = json.loads(out)["results"]
    assert any(n.startswith("site 0: its address depends") for n in r["notes"])


def test_a_kernel_counts_only_the_shared_variables_it_names(nvcc):
    """radix_sort.cu's PTX declares scan_warp<unsigned>'s `warp_sums` (32 B) at module scope,
    which only the scan kernels use; sort_block and compute_histograms were given it too
    (8,260 and 1,120 B, and every variable after it 32 B further on). ptxas allocates what
    a kernel names: 4,096 + 4 + 4,096 + 32 and 1,024 + 64."""
    sizes = []
    for kernel, params in (("sort_block", ["-p", "start_bit=0"]),
                           ("compute_histograms", ["-p", "start_bit=0", "-p",
                                                   "num_blocks=64"])):
        code, out, err = cli("analyze", str(DATA / "ekarpp_radix" / "radix_sort.cu"),
                             "--kernel", kernel, *params, "--host", "n=65536", "--json")
        assert code == 0, err
        sizes.append(json.loads(out)["results"][0]["static_smem"])
    assert sizes == [8228, 1088]


def test_a_shared_declaration_with_its_alignment_is_found_for_a_patch():
    """`__shared__ __align__(16 * 1024) char smem[24 * 1024];` is a declaration tree-sitter
    misreads (the qualifiers in an error node before it): fix said YHs's SGEMM had "no
    __shared__ declaration(s) of 'smem'". It is found, and fix's reason is then the real
    one (the kernel passes `smem` whole to reinterpret_cast: no swizzle can be patched in)."""
    from smemsim.frontends.cuda.patch import shared_declaration
    d = shared_declaration(str(DATA / "yhs_sgemm.cu"), "sgemm_128x128x8_kernel", "smem")
    assert (d.type, d.extents, d.line) == ("char", ("24 * 1024",), 246)


def test_fix_names_the_users_variable_where_it_cannot_patch(nvcc):
    """fix of YHs's SGEMM: the patch cannot swizzle `smem` (it is passed whole to
    reinterpret_cast, line 247), and the changes counted on the build as read are the
    variable's, named `smem` as the source names it (the PTX reading's view of it was
    `smem_2` in every line)."""
    code, out, err = cli("fix", str(DATA / "yhs_sgemm.cu"))
    assert "yhs_sgemm.cu:247: passes smem whole to reinterpret_cast<float *>()" in out
    assert "tried: smem Swizzle<1,2,1> (379,453,440)" in out and "smem_2" not in out


def test_occupancy_reads_the_blocks_where_the_host_computes_the_grid(nvcc, capsys):
    """The radix sort's launches take their grids from run-time sizes (`divup(n, ...)`,
    `scan_sizes[i]`): occupancy asked for them, though a block's needs do not depend on the
    grid. Every kernel is read again with a grid of one block, said on stderr: six kernels
    of 256 threads, add_sums 4 B of static shared memory and 8 blocks an SM."""
    code, out, err = cli("occupancy", str(DATA / "ekarpp_radix" / "radix_sort.cu"), "--json")
    assert code == 0, err
    results = json.loads(out)["results"]
    assert [r["kernel"] for r in results] == [
        "sort_block", "compute_histograms", "scan_histograms<false, false>",
        "scan_histograms<true, false>", "add_sums", "reorder_data"]
    assert {r["block_size"] for r in results} == {256}
    add_sums = results[4]
    assert (add_sums["static_smem"], add_sums["active_blocks"]) == (4, 8)
    assert "occupancy does not depend on the grid" in capsys.readouterr().err

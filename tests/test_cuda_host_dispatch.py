"""Launches the host chooses at run time, read as the file writes them: a kernel pointer
assigned before one launch (cuda-samples' transpose), a host template instantiated
explicitly whose launches switch on its block size (cuda-samples' reduction); an
assignment in another branch or an earlier case is not the launch's."""
from __future__ import annotations

import pathlib

import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import CudaImportError, Options  # noqa: E402
from tests.built import import_kernels  # noqa: E402

DISPATCH = pathlib.Path(__file__).resolve().parent / "cuda" / "host_dispatch.cu"


def kernels(**options):
    return import_kernels(str(DISPATCH), Options(**options))


def test_each_instance_of_the_host_template_is_a_kernel_key():
    """reduce<float> and reduce<double> (the explicit instantiations) each launch sum<T,
    128> and sum<T, 64>: four keys, none asking for T."""
    assert list(kernels()) == ["rowCopy", "colCopy", "sum<float, 128>", "sum<double, 128>",
                               "sum<float, 64>", "sum<double, 64>"]


def test_a_launch_through_a_kernel_pointer_is_each_kernel_assigned_to_it():
    """runAll launches rowCopy and colCopy through one pointer: grid n / 32 = 8, block 32 x
    32, from the host. By hand: 32 warps a block, one load each; colCopy's reads
    tile[tx][ty] put the 32 lanes in one bank: 32 wavefronts a request."""
    found = kernels(params={"n": 256})
    row, col = analyze(found["rowCopy"]()), analyze(found["colCopy"]())
    assert (row.grid, row.block) == (col.grid, col.block) == ((8, 1, 1), (32, 32, 1))
    assert (row.load.requests, row.load.wavefronts) == (256, 256)
    assert (col.load.requests, col.load.wavefronts) == (256, 32 * 256)


def test_the_host_templates_type_and_the_switch_case_give_the_launch():
    """sum<double, 128>: the block is the case's 128 (`switch (threads)`), the shared bytes
    smemSize = threads * sizeof(T) = 128 * 8 (case 0's reassignment breaks before this
    case); only the grid, `blocks`, comes from another file.
    By hand, 4 blocks of 4 warps, doubles (a warp's 256 bytes: 2 wavefronts): stores
    4 + 2 + 1 full warps (8 + 4 + 2 wavefronts) and 5 partial ones (1 each) = 12 requests, 19
    wavefronts a block; loads the same steps twice and sdata[0] once = 17 requests, 23
    wavefronts."""
    with pytest.raises(CudaImportError, match=r"host_dispatch\.cu:63:13: the launch of "
                                              r"'sum' uses the host variable 'blocks'"):
        kernels()["sum<double, 128>"]()
    r = analyze(kernels(hosts={"blocks": "4"})["sum<double, 128>"]())
    assert (r.grid, r.block, r.dynamic_smem) == ((4, 1, 1), (128, 1, 1), 1024)
    assert (r.store.requests, r.store.wavefronts) == (4 * 12, 4 * 19)
    assert (r.load.requests, r.load.wavefronts) == (4 * 17, 4 * 23)
    r = analyze(kernels(hosts={"blocks": "4"})["sum<float, 64>"]())
    assert (r.block, r.dynamic_smem) == ((64, 1, 1), 64 * 4)


CHAIN = """
__global__ void k(float *x, int n)
{
    __shared__ float s[1024];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
void go(float *x)
{
    SEQ
    int block;
    if (seq_len == 256) {
        block = 256;
    } else if (seq_len == 512) {
        block = 512;
    } else {
        block = 1024;
    }
    k<<<4, block>>>(x, seq_len);
}
"""


@pytest.mark.parametrize("seq, block", [("const int seq_len = 512;", 512),
                                         ("const int seq_len = 256;", 256),
                                         ("const int seq_len = 64;", 1024),
                                         ("int seq_len = atoi(\"512\");", None)])
def test_a_launch_value_chosen_by_an_if_else_chain_on_a_host_constant(tmp_path, seq, block):
    """The branch the host's constants take sets the block (llm.c picks its block size
    from `seq_len` this way); a condition known only at run time is a question, never the
    last `else`."""
    cu = tmp_path / "chain.cu"
    cu.write_text(CHAIN.replace("SEQ", seq))
    options = Options(lengths={"x": "1024"})
    if block is None:
        with pytest.raises(CudaImportError, match=r"chain\.cu:20:5: the launch of 'k' uses "
                                                  r"the host variable 'block'"):
            import_kernels(str(cu), options)["k"]()
        return
    k = import_kernels(str(cu), options)["k"]()
    from kernels_ir import resolve_launch
    assert resolve_launch(k).block == (block, 1, 1)
    assert analyze(k).store.requests == 4 * block // 32


LAUNCHED_TWICE = """
__global__ void k(float *x) {
  __shared__ float t[1024];
  t[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = t[(threadIdx.x * 2) % blockDim.x];
}
void fixed(float *d) {
  const int seq_len = 512;
  int block;
  if (seq_len == 512) block = 512;
  else if (seq_len == 256) block = 256;
  else block = 1024;
  k<<<1, block>>>(d);
}
void chosen(float *d, int seq) {
  int block;
  if (seq == 512) block = 512;
  else block = 1024;
  k<<<1, block>>>(d);
}
void again(float *d) { k<<<1, 512>>>(d); }
"""


def test_a_kernel_launched_with_another_configuration_elsewhere_says_which_is_counted(
        tmp_path):
    """The first launch is counted (an if/else-if chain on the host's constant seq_len gives
    512 threads, not the last `else`'s 1024); the second launch's block is the run-time
    `seq`'s choice, so the kernel's notes say the count is the first launch's and where the
    other is; `again`'s launch of the same 512 threads is no other configuration. With
    --launch-grid and --launch-block, nothing is said."""
    cu = tmp_path / "twice.cu"
    cu.write_text(LAUNCHED_TWICE)
    kernel = import_kernels(str(cu), Options())["k"]()
    assert analyze(kernel).block == (512, 1, 1)
    assert [n for n in kernel.notes if "another configuration" in n] == [
        f"the launch at {cu}:14:3 is counted; k is launched with another configuration at "
        f"{cu}:20:3 (--launch-at {cu}:20:3 counts that one)"]
    assert kernel.launches == (f"{cu}:14:3", f"{cu}:20:3")
    given = import_kernels(str(cu), Options(grid="1", block="1024"))["k"]()
    assert analyze(given).block == (1024, 1, 1)
    assert not [n for n in given.notes if "another configuration" in n]


GATHER = """
template <typename T, int STRIDE>
__global__ void gather(const T *in, T *out)
{
    __shared__ T buf[32 * STRIDE * 8];
    int t = threadIdx.x;
    buf[t * STRIDE] = in[blockIdx.x * 256 + t];
    __syncthreads();
    out[blockIdx.x * 256 + t] = buf[t * STRIDE] + buf[0];
}
typedef void (*kfn)(const short *, short *);
void dispatch(const unsigned char *ib, unsigned char *ob, const short *is, short *os)
{
    gather<unsigned char, 64><<<1024, 256>>>(ib, ob);
    kfn k = gather<short, 2>;
    k<<<2048, 256>>>(is, os);
}
"""


def test_a_pointer_given_a_template_instance_launches_that_instance(tmp_path):
    """`kfn k = gather<short, 2>; k<<<2048, 256>>>(...)` (a held-out review's kernel): the
    instance the pointer is given, at the pointer's launch. Its store: 32 lanes 4 bytes
    apart (2 shorts of stride), one wavefront; 8 warps x 2,048 blocks = 16,384 requests."""
    cu = tmp_path / "gather.cu"
    cu.write_text(GATHER)
    found = import_kernels(str(cu), Options())
    assert list(found) == ["gather<unsigned char, 64>", "gather<short, 2>"]
    r = analyze(found["gather<short, 2>"]())
    assert r.grid == (2048, 1, 1)
    assert (r.store.requests, r.store.wavefronts) == (16384, 16384)


SQUARE = """
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float t[64];
    t[threadIdx.x] = A[blockIdx.x * 64 + threadIdx.x] * K;
    __syncthreads();
    C[blockIdx.y * M + blockIdx.x * 64 + threadIdx.x] = t[63 - threadIdx.x] + N;
}
void launch(const float *A, const float *B, float *C, int n)
{
    dim3 grid(n / 64, n / 64), block(64);
    mm<<<grid, block>>>(A, B, C, n, n, n);
}
int main() { float *a, *b, *c; launch(a, b, c, 2048); return 0; }
"""


def test_an_argument_passed_as_several_parameters_stands_for_none_of_them(tmp_path):
    """`(A, B, C, n, n, n)`: the grid `n / 64` is the host's n (32 x 32), so -p K=512 sets K
    alone (the review's sweep over K compared grids 16 times smaller); --host n sets all."""
    cu = tmp_path / "square.cu"
    cu.write_text(SQUARE)
    k = import_kernels(str(cu), Options(params={"K": 512}))["mm"]()
    r = analyze(k, {"K": 512})
    assert r.grid == (32, 32, 1) and (r.params["M"], r.params["K"]) == (2048, 512)
    k = import_kernels(str(cu), Options(hosts={"n": "1024"}))["mm"]()
    r = analyze(k)
    assert r.grid == (16, 16, 1) and (r.params["M"], r.params["N"], r.params["K"]) == \
        (1024, 1024, 1024)


ROWS = """
__global__ void rows(float *d, int width, int pitch)
{
    __shared__ float t[32];
    t[threadIdx.x] = d[blockIdx.x * 32 + threadIdx.x];
    __syncthreads();
    d[blockIdx.x * 32 + threadIdx.x] = t[31 - threadIdx.x] * (width + pitch);
}
void run(float *d, int imageW)
{
    rows<<<imageW / 32, 32>>>(d, imageW, imageW);   // (cuda-samples' convolutionRowsKernel)
}
"""


def test_a_shared_argument_the_host_does_not_state_is_the_first_parameter_it_becomes(
        tmp_path):
    """`(d, imageW, imageW)` where imageW is the host function's parameter: its value is
    the first parameter's, which -p gives: -p width=4096 is a grid of 4,096 / 32 = 128."""
    cu = tmp_path / "rows.cu"
    cu.write_text(ROWS)
    k = import_kernels(str(cu), Options(params={"width": 4096, "pitch": 4096}))["rows"]()
    assert analyze(k, {"width": 4096, "pitch": 4096}).grid == (128, 1, 1)


def test_a_pointer_given_several_instances_launches_each(tmp_path):
    """`auto k = gather<short, 2>; if (w == 4) k = gather<short, 4>; k<<<...>>>` (mistral.rs'
    reconstruct_gptq dispatch): both instances, each at the launch. gather<short, 4>'s
    store: lanes 8 bytes apart, 256 bytes a warp: 2 wavefronts a request."""
    cu = tmp_path / "gather.cu"
    cu.write_text(GATHER.split("typedef")[0] + """
void dispatch(const short *is, short *os, int w)
{
    auto k = gather<short, 2>;
    if (w == 4) k = gather<short, 4>;
    k<<<2048, 256>>>(is, os);
}
""")
    found = import_kernels(str(cu), Options())
    assert list(found) == ["gather<short, 2>", "gather<short, 4>"]
    r = analyze(found["gather<short, 4>"]())
    assert (r.store.requests, r.store.wavefronts) == (16384, 32768)


THROUGH_TEMPLATE = """
template <typename T>
__global__ void k(T *out, int n)
{
    __shared__ T s[32];
    s[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x] = s[31 - threadIdx.x] + n;
}
template <typename T>
void launch(T *out, int n) { k<T><<<n / 32, 32>>>(out, n); }
void dispatch(int dtype, void *out, int n)
{
    switch (dtype) { case 0: launch<int>((int *)out, n); break; }
}
int main(int argc, char **argv)
{
    const int n = 4096;
    void *b;
    cudaMalloc(&b, sizeof(double) * n);
    dispatch(argc, b, n);
    return 0;
}
"""


def test_a_value_and_an_allocation_reach_a_launch_through_a_host_templates_callers(tmp_path):
    """main's n and b reach `k<T><<<n / 32, 32>>>(out, n)` through dispatch() and the host
    template's call `launch<int>(...)` (a held-out review's dispatcher): n = 4,096, a grid
    of 128, and out the allocation's 8 x 4,096 bytes, 8,192 ints (the review had n asked
    for, and 4,194,304 elements assumed for out)."""
    cu = tmp_path / "through.cu"
    cu.write_text(THROUGH_TEMPLATE)
    k = import_kernels(str(cu), Options())["k<int>"]()
    r = analyze(k)
    assert r.grid == (128, 1, 1) and r.params["n"] == 4096
    from kernels_ir import resolve_launch
    assert resolve_launch(k, {}).lengths["out"] == 8 * 4096


VALUE_PARAMETER = """
template <int BS, typename T>
__global__ void strided(const T *in, T *out, int n)
{
    __shared__ T s[BS];
    s[threadIdx.x] = in[blockIdx.x * BS + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[BS - 1];
}
template <int BS>
void launch_reduce(const float *in, float *out, int n)
{
    strided<BS, float><<<(n + BS - 1) / BS, BS>>>(in, out, n);
}
void dispatch(int threads, const float *in, float *out, int n)
{
    switch (threads) {
    case 128: launch_reduce<128>(in, out, n); break;
    default: launch_reduce<512>(in, out, n); break;
    }
}
int main() { float *a, *b; dispatch(128, a, b, 1 << 20); return 0; }
"""


def test_a_host_templates_value_parameter_sizes_its_launch(tmp_path):
    """`strided<BS, float><<<(n + BS - 1) / BS, BS>>>` inside `template <int BS> void
    launch_reduce(...)`, called as launch_reduce<128> and <512> (a held-out review's
    dispatcher: "uses the host variable 'BS'"): each instance's grid and block by its BS,
    2^20 / 128 = 8,192 blocks of 128 and 2,048 of 512."""
    cu = tmp_path / "value.cu"
    cu.write_text(VALUE_PARAMETER)
    found = import_kernels(str(cu), Options())
    small, large = analyze(found["strided<128, float>"]()), \
        analyze(found["strided<512, float>"]())
    assert (small.grid, small.block) == ((8192, 1, 1), (128, 1, 1))
    assert (large.grid, large.block) == ((2048, 1, 1), (512, 1, 1))


def test_a_built_instance_no_launch_reads_is_said_never_dropped(tmp_path):
    """`kfn table[] = {gather<short, 2>, gather<short, 4>}; table[w]<<<...>>>`: nvcc's build
    has both instances, no launch the host reading follows names them; each is a kernel
    key whose build says so (and how to count it), beside the launched one."""
    from kernels_ir import KernelError
    cu = tmp_path / "table.cu"
    cu.write_text(GATHER.split("typedef")[0] + """
typedef void (*kfn)(const short *, short *);
kfn table[] = {gather<short, 2>, gather<short, 4>};
void dispatch(const unsigned char *ib, unsigned char *ob, const short *is, short *os, int w)
{
    gather<unsigned char, 64><<<1024, 256>>>(ib, ob);
    table[w]<<<2048, 256>>>(is, os);
}
""")
    found = import_kernels(str(cu), Options())
    assert list(found) == ["gather<unsigned char, 64>", "gather<short, 2>", "gather<short, 4>"]
    with pytest.raises(KernelError, match=r"has gather<short, 2>, which no launch of its host "
                                          r"code that smemsim reads launches .* --kernel "
                                          r"'gather<short, 2>' with --launch-grid"):
        found["gather<short, 2>"]()

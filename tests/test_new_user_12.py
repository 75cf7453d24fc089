"""Issue #54: what the twelfth new-user review (44th session) met on kernels of its own,
each now answered (small kernels of the same kinds, their counts worked out in each
docstring)."""
from tests.test_new_user import cli

TEMPLATE = """
template <int STRIDE>
__global__ void strided(const float *in, float *out) {
    __shared__ float s[32 * STRIDE];
    __shared__ float u[32 * STRIDE];
    int t = threadIdx.x;
    s[t * STRIDE] = in[blockIdx.x * blockDim.x + t];
    u[t * STRIDE] = 2.0f * in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[t * STRIDE] + u[t * STRIDE];
}
int main() {
    float *in, *out;
    cudaMalloc(&in, 128 * 32 * 4); cudaMalloc(&out, 128 * 32 * 4);
    strided<2><<<128, 32>>>(in, out);
    strided<4><<<128, 32>>>(in, out);
}
"""


def test_fix_of_a_file_launching_two_instances_of_a_template_fixes_both(tmp_path):
    """fix crashed (exit 3, "cannot unpack non-iterable Candidate object") after the first
    instance: the list of the file's kernels was reused for the first one's best changes
    (one an array: two arrays here). A warp's 32 lanes STRIDE words apart: 2 ways
    (strided<2>) and 4 ways (strided<4>), 128 blocks, a store and a load of each of the two
    arrays: 4 x 128 x 2 = 1,024 and 4 x 128 x 4 = 2,048 wavefronts, 512 of them ideal."""
    f = tmp_path / "t.cu"
    f.write_text(TEMPLATE)
    code, out, err = cli("fix", str(f))
    assert code == 0, err
    said = " ".join(out.split())
    assert "strided<2>: 1,024 shared wavefronts, 512 over ideal" in said
    assert "strided<4>: 2,048 shared wavefronts, 1,536 over ideal" in said
    code, out, err = cli("occupancy", str(f))
    assert code == 0, err
    # (each instance by its name, as analyze names them)
    assert "strided<2>:" in out and "strided<4>:" in out


UNROLLED = """
__global__ void k(const float *in, float *out) {
    __shared__ float s[32][33];
    __shared__ float t[32][32];
    int x = threadIdx.x, y = threadIdx.y;
    s[y][x] = in[y * 32 + x];
    t[y][x] = in[y * 32 + x];
    __syncthreads();
    float acc = t[x][y];                 // one site, 32 ways
#pragma unroll
    for (int j = 0; j < 4; ++j)
        acc += t[x][(y + j) % 32] * 2.0f;  // four sites, 32 ways each: this line costs most
    out[y * 32 + x] = acc + s[x][y];
}
int main() { float *i, *o; cudaMalloc(&i, 4096); cudaMalloc(&o, 4096); k<<<1, dim3(32, 32)>>>(i, o); }
"""


def test_explain_without_a_site_explains_the_site_analyzes_hint_names(tmp_path):
    """analyze's hint names the costliest site of the line with the most excess (a line
    nvcc unrolled into many sites); explain without a site explained the single worst
    site, another one."""
    f = tmp_path / "u.cu"
    f.write_text(UNROLLED)
    code, out, err = cli("analyze", str(f))
    assert code == 0, err
    hint = next(line for line in out.splitlines() if "smemsim explain" in line)
    site = hint.split()[-1]
    code, out, err = cli("explain", str(f))
    assert code == 0, err
    assert out.startswith(f"k site {site}, ") and ":12:" in out.splitlines()[0]


ONE_EXTENT = """
__global__ void columns(const float *in, float *out) {
    __shared__ float s[32 * 32];
    int t = threadIdx.x;
    for (int r = 0; r < 32; ++r)
        s[t * 32 + r] = in[blockIdx.x * 1024 + r * 32 + t];
    __syncthreads();
    float acc = 0.0f;
    for (int r = 0; r < 32; ++r)
        acc += s[r * 32 + t];
    out[blockIdx.x * 32 + t] = acc;
}
int main() {
    float *in, *out;
    cudaMalloc(&in, 64 * 1024 * 4); cudaMalloc(&out, 64 * 32 * 4);
    columns<<<64, 32>>>(in, out);
}
"""


def test_fix_pads_an_array_of_one_extent_with_an_element_every_128_bytes(tmp_path):
    """bitonic sort's `s_key[SHARED_SIZE_LIMIT]`: fix tried no padding of an array declared
    with one extent. Now it skips an element every 32 floats (`s[i + (i >> 5)]`, the classic
    of scans and sorts), built like the other changes. Here each lane stores a row of 32
    (s[t * 32 + r], which ptxas merges into 8 STS.128 a lane: 512 requests of 32
    wavefronts, 16,384) and the reads run along rows (2,048 of 1): 18,432. Skewed, lane t's
    word t * 33 + r sits in bank (t + r) % 32, ptxas can no longer merge (2,048 STS of 1
    wavefront): 4,096, the ideal."""
    f = tmp_path / "c.cu"
    f.write_text(ONE_EXTENT)
    code, out, err = cli("fix", str(f))
    assert code == 0, err
    said = " ".join(out.split())
    assert "s: pad 1 every 32: 18,432 -> 4,096 wavefronts, +128 B shared memory" in said
    assert "__shared__ float s[(32 * 32) + ((32 * 32) >> 5)];" in said
    assert "s[smemsim_skew_5(t * 32 + r)]" in said
    assert "checked: the patched file, as nvcc builds it, counts 4,096 wavefronts as fix " \
           "predicted" in said
    # and as JSON, which the schema holds to (a skew is a kind of its own), the array named
    # as the source names it too
    import json

    from tests.json_schema import validate
    code, out, err = cli("fix", str(f), "--json")
    assert code == 0, err
    validate(json.loads(out))
    best = json.loads(out)["results"][0]["best"]
    assert [(c["variable"], c["kind"], c["wavefronts"]) for c in best] == [("s", "skew", 4096)]


CONTINUED = '''import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule
mod = SourceModule("""
__device__ int sum3(const int *in, int i)
{
    return in[i] + \\
           in[i + 1] + \\
           in[i + 2];
}
__global__ void k(int *out)
{
    __shared__ int s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = sum3(s, threadIdx.x % 200);
}
""")
k = mod.get_function("k")
out = np.zeros(256, dtype=np.int32)
k(drv.Out(out), block=(256, 1, 1), grid=(1, 1))
'''


def test_a_cuda_strings_lines_continued_with_backslashes_are_the_files(tmp_path):
    """pycuda's Game of Life writes a `return` over three lines ending in `\\`, inside a
    non-raw string: Python joins them, so nvcc's lines after them were two short of the
    file's (site texts then the IR's, at other lines). The store of `s` is on line 15 of
    this file; the helper's loads on line 8, called at line 17."""
    f = tmp_path / "p.py"
    f.write_text(CONTINUED)
    code, out, err = cli("analyze", str(f))
    assert code == 0, err
    assert "p.py:15:5): s[threadIdx.x] = threadIdx.x;" in out
    assert f"p.py:8:5 (sum3) via {f}:17)" in out

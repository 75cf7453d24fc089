"""Issue #54: `fix` of CUDA a Python program compiles from a string (cupy, pycuda): each change
built as the program builds its string, and written into the Python file where its lines
stand there as built (smemsim.frontends.ptx.strings_patch)."""
import subprocess

from tests.test_new_user import cli

# a 32 x 32 float tile stored by rows and read down its columns by warp 0 (each of its 32
# reads a 32-way conflict) and along its rows, lane by lane 32 floats apart, by warp 1 (32
# ways again); a 128 x 128 grid of 32 x 32 blocks: 16,384 blocks
CUPY = """import cupy as cp
import numpy as np

N = 4096
code = r'''
extern "C" __global__ void colsum_tiles(const float *a, float *partial, int n)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = a[y * n + x];
    __syncthreads();
    if (threadIdx.y == 0) {
        float s = 0.f;
        for (int r = 0; r < 32; ++r) s += tile[r][threadIdx.x];
        partial[blockIdx.y * n + x] = s;
    }
    if (threadIdx.y == 1) {
        float s = 0.f;
        for (int c = 0; c < 32; ++c) s += tile[threadIdx.x][c];
        partial[(n / 32) * n + blockIdx.y * 32 * (n / 32) + threadIdx.x * (n / 32) + blockIdx.x] = s;
    }
}
'''
mod = cp.RawModule(code=code)
k = mod.get_function("colsum_tiles")
a = cp.random.rand(N, N, dtype=cp.float32)
partial = cp.zeros(2 * (N // 32) * N, dtype=cp.float32)
k((N // 32, N // 32), (32, 32), (a, partial, np.int32(N)))
"""

# pycuda's own style: the source formatted with `%` and wrapped in `extern "C"` by
# SourceModule, indented as it stands in the program
PYCUDA = '''import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

B = 32
mod = SourceModule("""
    #define TILE %(tile)d
    __global__ void transpose(float *out, const float *in, int n)
    {
        __shared__ float t[TILE][TILE];
        int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
        t[threadIdx.y][threadIdx.x] = in[y * n + x];
        __syncthreads();
        x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
        out[y * n + x] = t[threadIdx.x][threadIdx.y];
    }
    """ % {"tile": B})
f = mod.get_function("transpose")
n = 2048
a = np.random.randn(n, n).astype(np.float32)
o = np.empty_like(a)
f(drv.Out(o), drv.In(a), np.int32(n), block=(B, B, 1), grid=(n // B, n // B))
'''


def _as_cu(tmp_path):
    """The cupy program's kernel as a `.cu` of its own, launched as the program launches it."""
    body = CUPY.split("r'''")[1].split("'''")[0]
    cu = tmp_path / "colmean.cu"
    cu.write_text(body + "int main() { float *a, *p; colsum_tiles<<<dim3(128, 128), "
                         "dim3(32, 32)>>>(a, p, 4096); return 0; }\n")
    return cu


def test_a_cupy_string_is_patched_and_counted_as_its_cu_would_be(nvcc, tmp_path):
    """Each change is built as the string's own build: the counts equal those of the same
    kernel as a `.cu` (rebuilt by nvcc for each change), and the patch is of the Python file
    at its own lines (the declaration at line 8 of the program)."""
    py = tmp_path / "colmean.py"
    py.write_text(CUPY)
    code, out, err = cli("fix", str(py), "--json", "--length", "partial=1048576")
    assert code == 0, err
    code, out_cu, err = cli("fix", str(_as_cu(tmp_path)), "--json", "--length",
                            "partial=1048576")
    assert code == 0, err
    import json
    mine, theirs = json.loads(out)["results"][0], json.loads(out_cu)["results"][0]
    counts = lambda r: sorted((c["label"], c["wavefronts"]) for c in r["candidates"])  # noqa
    assert counts(mine) == counts(theirs)
    # a block: the stores 32 (one wavefront a warp), warp 0's 32 reads along rows 32;
    # warp 1's row walk ptxas reads as 8 LDS.128, each lane's 16 bytes in the same four
    # banks as its quarter-warp's other 7 rows: 8 ways a quarter, 32 wavefronts each, 256;
    # 320 a block, 16,384 blocks. Padded by one word, the rows are no longer 16-byte
    # aligned: 32 LDS.32, conflict-free, 96 a block; by four (rows of 144 bytes), ptxas
    # keeps its 8 LDS.128, each quarter-warp's 8 rows on 32 banks: 4 wavefronts each, 96
    # a block too, in fewer instructions (the change proposed)
    base = mine["baseline"]
    assert base["load"]["wavefronts"] + base["store"]["wavefronts"] == 320 * 16384
    assert base["load"] == theirs["baseline"]["load"]
    pads = {c["label"]: c for c in mine["candidates"] if c["kind"] == "pad"}
    assert pads["pad 1"]["wavefronts"] == pads["pad 4"]["wavefronts"] == 96 * 16384
    assert pads["pad 4"]["builder"] == "line 8: 32 -> 32 + 4"
    assert mine["patch"]["edits"] == ["line 8: 32 -> 32 + 4"]


def test_fix_patch_of_a_cupy_program_applies_and_the_patched_program_is_conflict_free(
        nvcc, tmp_path):
    py = tmp_path / "colmean.py"
    py.write_text(CUPY)
    code, out, err = cli("fix", str(py), "--patch", str(tmp_path / "fix.patch"))
    assert code == 0, err
    assert "-    __shared__ float tile[32][32];\n+    __shared__ float tile[32][32 + 4];" \
        in (tmp_path / "fix.patch").read_text()
    subprocess.run(["patch", "-p1", str(py), str(tmp_path / "fix.patch")], check=True,
                   capture_output=True, cwd=tmp_path)
    code, out, err = cli("analyze", str(py), "--json")
    assert code == 0, err
    import json
    doc = json.loads(out)["results"][0]
    assert doc["load"]["excess"] == doc["store"]["excess"] == 0


def test_a_swizzle_helper_goes_before_extern_c_and_inside_pycudas_wrapper(nvcc, tmp_path):
    """The helper function goes before the kernel's `extern "C"` (between them it would
    take the kernel's C linkage, and the program's get_function would not find it); in a
    pycuda string, wrapped whole by SourceModule, before the kernel at the string's lines."""
    py = tmp_path / "colmean.py"
    py.write_text(CUPY)
    code, out, err = cli("fix", str(py), "--prefer", "swizzle", "--json")
    assert code == 0, err
    import json
    patch = json.loads(out)["results"][0]["patch"]
    assert patch["edits"][0].startswith("line 6: inserted __device__ __forceinline__ "
                                        "unsigned smemsim_swizzle_")
    assert "\n+}\n+\n extern \"C\" __global__ void colsum_tiles" in patch["diff"]
    pyc = tmp_path / "transpose.py"
    pyc.write_text(PYCUDA)
    code, out, err = cli("fix", str(pyc), "--prefer", "swizzle", "--json")
    assert code == 0, err
    doc = json.loads(out)["results"][0]
    # a 32 x 32 transpose: the column reads' 32 ways gone, each warp's 32 lanes on 32 banks
    assert doc["patch"]["counted_wavefronts"] == doc["patch"]["predicted_wavefronts"] == 262144
    assert "line 9: inserted __device__" in doc["patch"]["edits"][0]
    assert "line 11: t[TILE][TILE] -> t[(TILE) * (TILE)]" in doc["patch"]["edits"]


def test_a_declaration_formatted_into_the_string_is_patched_around_its_values(
        nvcc, tmp_path):
    """`t[%(tile)d][%(tile)d]` is built as `t[32][32]`: the padding is written around the
    formatted values, each kept whole (`[%(tile)d + 1]`), and the patched program, read
    again, makes the changed string exactly."""
    out, diff = _formatted_fix(tmp_path, "pad")
    assert "+        __shared__ float t[%(tile)d][%(tile)d + 1];" in diff
    assert "4,325,376 -> 262,144 wavefronts" in " ".join(out.split())


def test_a_change_the_formatted_program_would_not_make_is_shown_not_written(nvcc, tmp_path):
    """A `.format` string doubles its braces: the swizzle helper's own braces, written as
    they are, would make another text when the program formats it (the reread says so);
    fix shows its table and the refusal, and --patch writes nothing (exit 2)."""
    start = PYCUDA.index('mod = SourceModule("""') + len('mod = SourceModule("""')
    end = PYCUDA.index('""" % {"tile": B})')
    body = PYCUDA[start:end].replace("{", "{{").replace("}", "}}").replace("%(tile)d",
                                                                           "{tile}")
    pyc = tmp_path / "transpose.py"
    pyc.write_text(PYCUDA[:start] + body + '""".format(tile=B))' +
                   PYCUDA[end + len('""" % {"tile": B})'):])
    code, out, err = cli("fix", str(pyc), "--prefer", "swizzle")
    assert code == 0, err
    said = " ".join(out.split())
    assert "4,325,376 -> 262,144 wavefronts" in said
    assert "no patch of the file" in said and "is not the changed text when the program " \
        "makes it" in said
    code, out, err = cli("fix", str(pyc), "--prefer", "swizzle", "--patch",
                         str(tmp_path / "fix.patch"))
    assert code == 2 and "4,325,376 -> 262,144" in " ".join(out.split())
    assert "cannot be written into the file" in " ".join(err.split())
    assert not (tmp_path / "fix.patch").exists()


def test_a_swizzled_index_writes_the_formatted_row_length(nvcc, tmp_path):
    """The tenth review: a swizzle of `t[%(tile)d][%(tile)d]` wrote its accesses' row length
    as the built `(32)`, right only at 32; the index now reads `(%(tile)d)` as the string
    formats it (the reread check holds the program to the changed text)."""
    _, diff = _formatted_fix(tmp_path, "swizzle")
    assert "+        __shared__ float t[(%(tile)d) * (%(tile)d)];" in diff
    assert "((threadIdx.y) * (%(tile)d) + (threadIdx.x))" in diff and "* (32)" not in diff


def _formatted_fix(tmp_path, prefer: str) -> tuple[str, str]:
    """(fix's output, the patch it wrote) of the pycuda transpose whose declaration is
    formatted, `t[%(tile)d][%(tile)d]`, preferring `prefer`'s kind of change."""
    pyc = tmp_path / "transpose.py"
    pyc.write_text(PYCUDA.replace("float t[TILE][TILE]", "float t[%(tile)d][%(tile)d]"))
    code, out, err = cli("fix", str(pyc), "--prefer", prefer, "--patch",
                         str(tmp_path / "fix.patch"))
    assert code == 0, err
    return out, (tmp_path / "fix.patch").read_text()

"""`fix` on a `.cu` answers in CUDA: the change as a diff of the user's file, which applies,
imports, and analyzes to what fix predicted; what it cannot rewrite is refused at its line."""
import json
import pathlib
import shutil
import subprocess

import pytest

from kernels_ir import KernelError
from smemsim import analyze
from smemsim.frontends.cuda.patch import LayoutChange, layout_patch
from smemsim.frontends.loader import load_kernels
from tests.test_cli import cli, cli_streams

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE_CU = ROOT / "examples" / "transpose.cu"


def test_a_swizzle_flattens_the_array_and_rewrites_every_access():
    p = layout_patch(str(TRANSPOSE_CU), "transpose", [LayoutChange("tile", "swizzle",
                                                                   swizzle=(5, 0, 5))])
    added = [x[1:].strip() for x in p.diff.splitlines() if x.startswith("+") and
             not x.startswith("+++")]
    assert "__shared__ float tile[(TILE) * (TILE + PAD)];" in added
    assert "tile[smemsim_swizzle_5_0_5((threadIdx.y) * (TILE + PAD) + (threadIdx.x))] = " \
           "src[y * n + x];" in added
    assert "dst[y * n + x] = tile[smemsim_swizzle_5_0_5((threadIdx.x) * (TILE + PAD) + " \
           "(threadIdx.y))];" in added
    assert "return i ^ (((i >> 5) & 31u) << 0);" in added
    removed = [x for x in p.diff.splitlines() if x.startswith("-") and not x.startswith("---")]
    assert len(removed) == 3  # the declaration and the two accesses, nothing else


def test_a_padding_changes_only_the_last_extent():
    p = layout_patch(str(TRANSPOSE_CU), "transpose", [LayoutChange("tile", "pad", pad=1)])
    assert [x for x in p.diff.splitlines() if x[:1] in "+-" and x[:3] not in ("+++", "---")] \
        == ["-    __shared__ float tile[TILE][TILE + PAD];",
            "+    __shared__ float tile[TILE][TILE + PAD + 1];"]


def _cu(tmp_path, body: str) -> str:
    f = tmp_path / "k.cu"
    f.write_text(body)
    return str(f)


def test_uses_it_cannot_rewrite_are_refused_at_their_line(tmp_path):
    passed = _cu(tmp_path, """__device__ float first(float *p) { return p[0]; }
__global__ void k(float *out)
{
    __shared__ float s[32][32];
    s[threadIdx.x][0] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = first(s[threadIdx.x]);
}
""")
    with pytest.raises(KernelError, match=r"k.cu:7: passes 's\[threadIdx.x\]', part of s, "
                                          r"to first\(\): a swizzle rewrites each element's "
                                          r"index"):
        layout_patch(passed, "k", [LayoutChange("s", "swizzle", swizzle=(5, 0, 5))])
    macro = _cu(tmp_path, """#define AT(i, j) s[i][j]
__global__ void k(float *out)
{
    __shared__ float s[32][32];
    AT(threadIdx.x, 0) = 1.0f;
}
""")
    with pytest.raises(KernelError, match="k.cu:1: a macro uses 's'"):
        layout_patch(macro, "k", [LayoutChange("s", "swizzle", swizzle=(5, 0, 5))])


def test_fix_patch_applies_and_analyzes_as_predicted(tmp_path, monkeypatch):
    if shutil.which("patch") is None:
        pytest.skip("no `patch` program here to apply the diff with")
    shutil.copy(TRANSPOSE_CU, tmp_path / "transpose.cu")
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_streams("fix", "transpose.cu", "--patch", "fix.patch", "--json")
    assert code == 0, err
    (res,) = json.loads(out)["results"]
    patch = res["patch"]
    assert patch["predicted_wavefronts"] == patch["counted_wavefronts"] == 4096
    assert (tmp_path / "fix.patch").read_text() == patch["diff"]
    assert patch["diff"].startswith("--- a/transpose.cu\n+++ b/transpose.cu\n")
    subprocess.run(["patch", "-p1", "-i", "fix.patch"], check=True, capture_output=True)
    patched = load_kernels("transpose.cu")["transpose"]()
    # 8 x 8 blocks x 32 warps, one load and one store each, no conflict left
    assert analyze(patched).wavefronts == 2 * 2048


def test_fix_lists_only_changes_that_lower_the_wavefronts():
    code, out = cli("fix", "transpose", "--kernel", "naive", width=120)
    assert code == 0
    rows = [line.split() for line in out.splitlines() if line.startswith("tile ")]
    assert rows and all(int(r[-5].replace(",", "")) < 67584 for r in rows if len(r) > 5)
    assert not any(r[1:3] == ["pad", "32"] for r in rows)  # a whole bank row: no change


def test_patch_needs_cuda_and_a_change(tmp_path):
    code, out = cli("fix", "transpose", "--kernel", "naive", "--patch",
                    str(tmp_path / "x.patch"))
    assert code == 2 and "only a .cu or .cuh file, a cupy or pycuda program" in out
    code, out = cli("fix", str(TRANSPOSE_CU), "-D", "PAD=1", "--patch",
                    str(tmp_path / "x.patch"))
    # (conflict-free: nothing to patch is the answer, exit 0 and no file, so a script over
    # many kernels does not fail on the clean ones)
    assert code == 0 and "nothing to patch" in out and not (tmp_path / "x.patch").exists()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here: the as-built check "
                    "of a patch needs the CUDA toolkit's nvcc")
def test_the_patch_is_built_and_counted_as_built():
    code, out, err = cli_streams("fix", str(TRANSPOSE_CU), "--json")
    assert code == 0, err
    built = json.loads(out)["results"][0]["patch"]["as_built"]
    assert built["note"] is None
    assert built["original"]["wavefronts"] == 2048 + 32 * 2048  # as the IR: nvcc keeps them
    assert built["patched"]["wavefronts"] == 2 * 2048


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here: fix of a .cu builds "
                    "every change with the CUDA toolkit's nvcc")
def test_fix_of_a_cu_builds_each_change_into_the_file_and_counts_it_as_built():
    """examples/transpose.cu: 32 x 32 floats written by rows and read by columns (2,048 store
    and 2,048 load requests, the loads 32-way: 2,048 + 65,536 wavefronts). Each change is
    the file patched and built: a pad of 1 float (4 bytes) or a swizzle makes the column
    reads conflict-free (4,096); a pad of 4 floats (16 bytes) leaves them 4-way (rows of 36
    words: lane i reads bank 4i mod 32, 8 banks for 32 lanes: 2,048 x 4 + 2,048 = 10,240).
    --as-compiled is accepted as what fix does already."""
    code, out, err = cli_streams("fix", str(TRANSPOSE_CU), "--as-compiled", "--json")
    assert code == 0, err
    (res,) = json.loads(out)["results"]
    rows = {(c["array"], c["kind"], c["pad"]): c["wavefronts"] for c in res["candidates"]}
    assert rows[("tile", "pad", 1)] == 2 * 2048
    assert rows[("tile", "pad", 4)] == 2048 + 4 * 2048
    assert res["patch"]["as_built"]["patched"]["wavefronts"] == 2 * 2048
    code, out = cli("fix", "transpose", "--kernel", "naive", "--as-compiled")
    assert code == 2 and "is for a .cu or .cuh file" in out


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here: fix of a .cu builds "
                    "every change with the CUDA toolkit's nvcc")
def test_each_arrays_change_is_counted_alone_and_all_together(tmp_path):
    """Two 32 x 32 float tiles in one kernel, each written by rows and read by columns (32
    warps: 64 store requests of 1 wavefront, 64 load requests of 32): 2,112 wavefronts. A
    change to As alone leaves Bs's reads 32-way (64 + 32 + 32 x 32 = 1,120), both together
    128 (every request one wavefront)."""
    cu = tmp_path / "two.cu"
    cu.write_text("#define T 32\n"
                  "__global__ void two(const float *a, float *out, int n)\n{\n"
                  "    __shared__ float As[T][T];\n    __shared__ float Bs[T][T];\n"
                  "    int x = threadIdx.x, y = threadIdx.y;\n"
                  "    As[y][x] = a[y * n + x];\n    Bs[y][x] = a[y * n + x + 1];\n"
                  "    __syncthreads();\n    out[y * n + x] = As[x][y] + Bs[x][y];\n}\n"
                  "void launch(const float *a, float *o) { two<<<1, dim3(32, 32)>>>(a, o, "
                  "1024); }\n")
    code, out, err = cli_streams("fix", str(cu), "--json")
    assert code == 0, err
    (res,) = json.loads(out)["results"]
    assert sum(x["wavefronts"] for x in res["baseline"]["sites"]) == 64 + 2 * 32 * 32
    pads = {(c["array"], c["pad"]): c["wavefronts"] for c in res["candidates"]
            if c["kind"] == "pad"}
    assert pads[("As", 1)] == pads[("Bs", 1)] == 64 + 32 + 32 * 32
    assert res["combined"]["wavefronts"] == 128


def test_fix_tries_the_other_block_shapes_when_the_block_is_a_parameter():
    """reed_solomon's `general` launches block (tileWidthCol, tileWidthRow) = (32, 8): the
    other splits of 256 threads are analyzed whole (each a different tiling of the same
    product), and a kernel with a constant block gets none."""
    code, out, err = cli_streams("fix", "reed_solomon", "--kernel", "general", "--json")
    assert code == 0, err
    (res,) = json.loads(out)["results"]
    shapes = {tuple(x["block"][:2]): x for x in res["block_shapes"]}
    assert set(shapes) == {(1, 256), (2, 128), (4, 64), (8, 32), (16, 16), (64, 4), (128, 2),
                           (256, 1)}
    assert shapes[(16, 16)]["params"] == {"tileWidthCol": 16, "tileWidthRow": 16}
    assert shapes[(16, 16)]["wavefronts"] == analyze(
        load_kernels("reed_solomon")["general"](),
        {"tileWidthCol": 16, "tileWidthRow": 16}).wavefronts
    code, out, _ = cli_streams("fix", "transpose", "--kernel", "naive", "--json")
    assert json.loads(out)["results"][0]["block_shapes"] == []


def test_a_patch_that_breaks_the_file_is_our_bug_not_the_users(tmp_path, monkeypatch):
    """Should smemsim's patch ever not import, fix says so and proposes no patch; asked to
    write it (--patch), that is exit 3, a bug of smemsim's, never a file written."""
    from smemsim.cli import fixpatch
    from smemsim.frontends.cuda.patch import LayoutPatch

    def broken(source, kernel, changes):
        return LayoutPatch(source.path, "", "__global__ void transpose(",
                           ("line 1: broken",)), "__global__ void transpose("
    monkeypatch.setattr(fixpatch, "_file_patch", broken)
    code, out = cli("fix", str(TRANSPOSE_CU))
    assert code == 0 and "no patch of the file: the patched file does not import" in out
    code, out = cli("fix", str(TRANSPOSE_CU), "--patch", str(tmp_path / "x.patch"))
    assert code == 3 and not (tmp_path / "x.patch").exists()


FIX3D = """__global__ void k(const float *in, float *out)
{
    __shared__ float s[2][32][32];
    s[0][threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    s[1][threadIdx.y][threadIdx.x] = 2.0f * in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = s[0][threadIdx.x][threadIdx.y] +
                                          s[1][threadIdx.x][threadIdx.y];
}
void launch(const float *in, float *out) { k<<<1, dim3(32, 32)>>>(in, out); }
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here: fix of a .cu builds "
                    "every change with the CUDA toolkit's nvcc")
def test_a_3d_array_is_flattened_with_each_outer_part_scaled_whole(tmp_path):
    """s[2][32][32], each slice written by rows and read by columns: 32 warps store two rows
    each (64 wavefronts) and read two columns each, 32-way (64 x 32): 2,112. Swizzled flat,
    element [b][y][x] is at ((b) * 32 + y) * 32 + x (a new user's report: `(b) * 32 + (y)
    * 32 + x` made the two slices overlap, a race the patch then had); conflict-free: 128.
    The patch is checked for races and faults the original has not."""
    cu = tmp_path / "fix3d.cu"
    cu.write_text(FIX3D)
    code, out, err = cli_streams("fix", str(cu), "--json")
    assert code == 0, err
    (res,) = json.loads(out)["results"]
    assert sum(x["wavefronts"] for x in res["baseline"]["sites"]) == 64 + 64 * 32
    assert res["best"][0]["wavefronts"] == 128
    diff = res["patch"]["diff"]
    assert "s[smemsim_swizzle_5_0_5(((1) * (32) + (threadIdx.y)) * (32) + (threadIdx.x))]" \
        in diff
    assert res["patch"]["hazards"] == "no race or fault the original has not (check of block " \
        "0); the same outputs as the original (block 0, the same inputs)"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here: the kernels are read "
                    "from nvcc's build")
def test_a_patch_whose_kernel_races_where_the_original_does_not_is_found(tmp_path):
    """The 3-D array flattened with the wrong strides ((b) * 32 + (y) * 32 + x: slice 1's
    row y is slice 0's row y + 1, shifted by 32 elements: two threads write one word): the
    hazard check of both kernels says the patched one has a race."""
    from smemsim.cli.fixpatch import _hazards, _verified
    from smemsim.frontends.ptx.frontend import import_cu
    good, bad = tmp_path / "good.cu", tmp_path / "bad.cu"
    good.write_text(FIX3D)
    bad.write_text(FIX3D.replace("float s[2][32][32]", "float s[2 * 32 * 32]")
                   .replace("s[0][threadIdx.y][threadIdx.x]", "s[threadIdx.y * 32 + threadIdx.x]")
                   .replace("s[1][threadIdx.y][threadIdx.x]",
                            "s[32 + threadIdx.y * 32 + threadIdx.x]")
                   .replace("s[0][threadIdx.x][threadIdx.y]", "s[threadIdx.x * 32 + threadIdx.y]")
                   .replace("s[1][threadIdx.x][threadIdx.y]",
                            "s[32 + threadIdx.x * 32 + threadIdx.y]"))
    kernels = [next(iter(import_cu(str(f)).values()))() for f in (good, bad)]
    what, new = _hazards(_verified(*kernels, None, None, "sm_90", 1)[1])
    assert new and what.startswith("has ") and what.endswith("the original 0 and 0")
    assert _hazards(_verified(kernels[0], kernels[0], None, None, "sm_90", 1)[1]) == (
        "no race or fault the original has not (check of block 0)", False)


def test_a_patch_that_changes_what_the_kernel_computes_is_found():
    """A layout change moves bytes, not values: where the file reads the array's rows in a
    way the patch does not change (a wmma ldm, a stride written by hand), the patched
    kernel computes other values; the check runs both on the same inputs (first and last
    blocks) and names the first array that differs."""
    from kernels_ir import KernelBuilder, f32, threadIdx

    from smemsim.cli.fixpatch import _changed_results, _verified

    def compared(a, b):
        return _changed_results(_verified(a, b, None, None, "sm_90", 1)[2])

    def scaled(by: float):
        k = KernelBuilder("scale")
        src = k.global_array("src", f32, 64)
        dst = k.global_array("dst", f32, 64, intent="out")
        t = k.shared("t", f32, (64,))
        t[threadIdx.x] = src[threadIdx.x] * by
        k.syncthreads()
        dst[threadIdx.x] = t[63 - threadIdx.x]
        k.launch(grid=(2,), block=(64,))
        return k.build()
    same, said = compared(scaled(2.0), scaled(2.0))
    assert same is None and said == ("the same outputs as the original (blocks 0 and 1, "
                                     "the same inputs)")
    why, _ = compared(scaled(2.0), scaled(3.0))
    assert why.startswith("computes other values in 'dst' than the original (blocks 0 and "
                          "1, the same inputs)"), why

"""Kernels launched from another file of the program (`nvcc kernels.cu main.cu`): with
--host-file main.cu, main.cu's launches are read in main.cu's own terms (its constants,
macros, helpers and cudaMalloc sizes), and a kernel its own file launches keeps that
launch."""
from __future__ import annotations

import json
import pathlib

import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import KernelRuntimeError  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.cuda import CudaImportError, Options, import_kernels  # noqa: E402
from tests.test_cli import cli, cli_streams  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
KERNELS = HERE / "cuda" / "host_file" / "kernels.cu"
MAIN = HERE / "cuda" / "host_file" / "main.cu"
LECTURE = HERE / "corpus" / "gpu_mode"


def kernels(**options):
    return import_kernels(str(KERNELS), Options(host_files=[str(MAIN)], **options))


def test_a_template_kernel_is_launched_as_the_host_file_instantiates_it():
    """main.cu: transposeRows<8><<<dim3(WIDTH / 32, HEIGHT / 8), dim3(32, 8)>>> with
    WIDTH = 1 << 10, HEIGHT = WIDTH / 2 (constants in terms of each other, main.cu's). By
    hand: 32 x 64 blocks of 8 warps; each warp stores one row of the tile (1 wavefront) and
    reads tile[tx % 8][r]: 8 rows 32 words apart, one bank, 8 wavefronts."""
    found = kernels()
    assert list(found) == ["transposeRows<8>", "scale", "fill"]
    k = found["transposeRows<8>"]()
    r = analyze(k)
    assert (r.grid, r.block, dict(r.params)) == ((32, 64, 1), (32, 8, 1), {"width": 1024})
    warps = 32 * 64 * 8
    assert (r.store.requests, r.store.wavefronts) == (warps, warps)
    assert (r.load.requests, r.load.wavefronts) == (warps, 8 * warps)
    # cudaMalloc(&in, WIDTH * HEIGHT * sizeof(float)) in main.cu, WIDTH passed as width:
    # width * width / 2 floats (524,288 here)
    assert {g.name: str(g.length) for g in k.globals} == {
        "in": "Expr(width * (width / 2) * 4ull / 4)", "out": "Expr(width * (width / 2) * 4ull / 4)"}


def test_host_values_are_the_host_files_own():
    """scale's factor is 1.0f / sqrtf(static_cast<float>(TILE)) with main.cu's TILE (16),
    not kernels.cu's (32); its grid a host helper's value (blocks_for)."""
    r = analyze(kernels()["scale"]())
    assert (r.grid, r.block) == ((2048, 1, 1), (256, 1, 1))
    assert dict(r.params) == {"factor": 0.25, "n": 524288}


def test_a_kernel_its_own_file_launches_keeps_that_launch():
    """fill is launched in kernels.cu (4 x 64) and in main.cu (1 x 32): kernels.cu's is
    read."""
    r = analyze(kernels()["fill"]())
    assert (r.grid, r.block, dict(r.params)) == ((4, 1, 1), (64, 1, 1), {"n": 256})


def test_without_the_host_file_the_question_names_it(tmp_path):
    code, _, err = cli_streams("analyze", str(KERNELS), "--kernel", "scale")
    assert code == 2 and "no launch of 'scale' in the file" in err and \
        "--host-file FILE" in err and "Traceback" not in err
    code, _, err = cli_streams("analyze", str(KERNELS), "--host-file",
                               str(tmp_path / "absent.cu"))
    assert code == 2 and f"--host-file {tmp_path / 'absent.cu'}: no such file" in err


def test_host_values_given_may_be_in_either_file():
    """--host names an expression of any file of the program; one in none is an error
    naming them all."""
    found = kernels(hosts={"blocks_for(WIDTH*HEIGHT, 256)": "8"})
    assert analyze(found["scale"]()).grid == (8, 1, 1)
    with pytest.raises(CudaImportError, match=r"--host nowhere\(\): no host expression "
                                              r"`nowhere\(\)` in kernels\.cu, main\.cu"):
        kernels(hosts={"nowhere()": "8"})


def test_the_cli_reads_the_host_file():
    code, text = cli("analyze", str(KERNELS), "--host-file", str(MAIN), "--kernel", "scale",
                     "--json")
    assert code == 0, text
    res = json.loads(text)["results"][0]
    assert (res["grid"], res["params"]) == ([2048, 1, 1], {"factor": 0.25, "n": 524288})


def test_a_lecture_kernel_run_as_its_main_launches_it_reads_past_its_tile():
    """gpu-mode's lecture 12: main.cu launches flash_attention_k with threads(32, 16), while
    flash_attention.cu sizes its tiles for blockDim (128, 8): S[ii * bdy + tid_y] with
    bdy = 16 reads row 8 of the 8-row S (thread y = 8). With the block the kernel expects,
    the next mistake: main.cu allocates K for 128 x 64 floats, the kernel reads T_c = 8
    tiles of 32 rows of 128 (index 8192 at j = 2). main.cu's scaling (1 / sqrtf(64)) and
    T_c (cdiv(128, 16)) are read from it."""
    path = str(LECTURE / "lecture_012_flash_attention.cu")
    host = [str(LECTURE / "lecture_012_main.cu")]
    k = import_kernels(path, Options(host_files=host))["flash_attention_k"]()
    with pytest.raises(KernelRuntimeError, match=r"flash_attention\.cu:85:29, .*out of "
                                                 r"bounds: index 8 of dimension 0 of 'S' "
                                                 r"\(valid 0\.\.7\) \[block \(0, 0, 0\); "
                                                 r"thread \(0, 8, 0\)"):
        analyze(k)
    k = import_kernels(path, Options(host_files=host, block="128, 8"))["flash_attention_k"]()
    assert dict(k.defaults) == {"scaling": 0.125, "n": 128, "T_r": 8, "T_c": 8}
    with pytest.raises(KernelRuntimeError, match=r"index 8192 of 'K' \(valid 0\.\.8191\) "
                                                 r".*iteration i=0, j=2"):
        analyze(k)

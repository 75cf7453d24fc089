"""What the host code says about a launch, read through the calls that lead to it (llm.c's
main -> dispatcher -> launcher): sizes passed down as arguments, a class's constant in a
host expression, the arrays' lengths from their cudaMalloc; and a view of dynamic shared
memory at an offset known only at the launch, checked when it is computed."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import KernelRuntimeError, call, const, u64  # noqa: E402
from kernels_ir.semantics import LaneFault, math_call  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.cuda import Options, write_kernels_file  # noqa: E402
from tests.built import import_kernels  # noqa: E402
from smemsim.loader import load_kernels  # noqa: E402
from tests.test_cli import cli  # noqa: E402

CHAIN = pathlib.Path(__file__).resolve().parent / "cuda" / "host_chain.cu"


def carve(**options):
    return import_kernels(str(CHAIN), Options(**options))["carve"]()


def test_the_launch_is_read_through_the_calls_that_lead_to_it():
    k = carve()
    # main: B = 4, T = 16, n = 64 -> run(1, ..., B * T, n) -> launch_carve(..., rows, n, 128)
    r = analyze(k)
    assert (r.grid, r.block) == ((64, 1, 1), (128, 1, 1))
    # n halves and block_size floats: 64 * 2 + 128 * 4 bytes
    assert r.dynamic_smem == 640 and dict(r.params) == {"n": 64}
    # cudaMalloc(&d_out, B * T * 128 * sizeof(float)): 8192 floats; d_in: 4096 halves
    assert {g.name: int(g.length.arg) for g in k.globals} == {"out": 8192, "in": 4096}
    # by hand: 2 warps a block store the tile (64 halves), 4 load it, store and load the
    # sums: one wavefront each (the sums' words cover the 32 banks once)
    assert (r.load.requests, r.load.wavefronts) == (64 * 8, 64 * 8)
    assert (r.store.requests, r.store.wavefronts) == (64 * 6, 64 * 6)


def test_a_view_at_an_offset_not_a_multiple_of_its_element_faults_at_its_line():
    with pytest.raises(KernelRuntimeError, match=r"host_chain\.cu:15:.*a view of 4-byte "
                                                 r"elements starts at byte offset 126, not a "
                                                 r"multiple of 4"):
        analyze(carve(params={"n": 63}))


def test_exact_div_divides_or_names_the_remainder():
    assert math_call("exact_div", [np.array([0, 8, 12]), np.array([4, 4, 4])]).tolist() \
        == [0, 2, 3]
    with pytest.raises(LaneFault) as err:
        math_call("exact_div", [np.array([8, 6]), np.array([4, 4])])
    assert err.value.lanes.tolist() == [1] and "byte offset 6" in err.value.message
    assert call("exact_div", const(12, u64), 4).dtype == u64


def test_the_kernels_file_and_the_cuda_keep_the_check(tmp_path):
    text = write_kernels_file(str(CHAIN), Options())[0]
    assert 'call("exact_div", ' in text
    path = tmp_path / "carve.py"
    path.write_text(text)
    again = load_kernels(str(path))["carve"]()
    a, b = analyze(again), analyze(carve())
    assert (a.load.wavefronts, a.store.wavefronts) == (b.load.wavefronts, b.store.wavefronts)
    from gpu_backend.codegen import generate
    source = generate(carve()).source
    assert "smemsim_exact_div(T a, T n)" in source and "__trap()" in source


def test_the_generated_cuda_compiles():
    from tests.conftest import require_nvrtc
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    assert compile_kernel(carve(), "sm_90").cubin


def test_the_cli_needs_no_option_for_what_the_host_code_says():
    code, out = cli("analyze", str(CHAIN))
    assert code == 0, out
    assert "does not say how long" not in out and "grid (64, 1, 1)" in out


@pytest.mark.gpu
def test_on_the_gpu():
    """The generated CUDA (the view's start through smemsim_exact_div) on the GPU: its
    outputs equal the interpreter's."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(carve())
    assert result.matches, result.mismatches

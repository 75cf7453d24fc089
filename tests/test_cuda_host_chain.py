"""What the host code says about a launch, read through the calls that lead to it (llm.c's
main -> dispatcher -> launcher): sizes passed down as arguments, a class's constant in a
host expression, the arrays' lengths from their cudaMalloc; and the IR's exact division,
which names a remainder."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import call, const, resolve_launch, u64  # noqa: E402
from kernels_ir.semantics import LaneFault, math_call  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import import_kernels  # noqa: E402
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
    # cudaMalloc(&d_out, B * T * 128 * sizeof(float)): 8192 floats; d_in: 4096 halves (the
    # build's arrays are bytes)
    launch = resolve_launch(k, {})
    assert {g.name: launch.lengths[g.name] for g in k.globals if g.base is None} == \
        {"out": 8192 * 4, "in": 4096 * 2}
    # by hand: 2 warps a block store the tile (64 halves), 4 load it, store and load the
    # sums: one wavefront each (the sums' words cover the 32 banks once)
    assert (r.load.requests, r.load.wavefronts) == (64 * 8, 64 * 8)
    assert (r.store.requests, r.store.wavefronts) == (64 * 6, 64 * 6)


def test_exact_div_divides_or_names_the_remainder():
    assert math_call("exact_div", [np.array([0, 8, 12]), np.array([4, 4, 4])]).tolist() \
        == [0, 2, 3]
    with pytest.raises(LaneFault) as err:
        math_call("exact_div", [np.array([8, 6]), np.array([4, 4])])
    assert err.value.lanes.tolist() == [1] and "byte offset 6" in err.value.message
    assert call("exact_div", const(12, u64), 4).dtype == u64


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


def test_a_parameter_the_host_passes_unread_asks_for_the_host_value(tmp_path):
    """A blog's reduction launches its kernel twice from a host function of its own `N`:
    `k<<<blocks, 512>>>(in, out, N)` then `k<<<1, 1024>>>(out, out, blocks)`, blocks =
    min((N + 511) / 512, 1024). The question named -p N alone, and -p N set the second
    launch's N too (16,777,216 where the program passes 1,024); it now names the host value
    to give, --host 'N=V', which each launch then follows."""
    from tests.test_cli import cli_streams
    f = tmp_path / "r.cu"
    f.write_text("__global__ void k(const int *in, int *out, int N) {\n"
                 "  __shared__ int s[1024];\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  s[threadIdx.x] = i < N ? in[i] : 0;\n  __syncthreads();\n"
                 "  if (threadIdx.x == 0) out[blockIdx.x] = s[0];\n}\n"
                 "void reduce(const int *in, int *out, int N) {\n"
                 "  int blocks = min((N + 511) / 512, 1024);\n"
                 "  k<<<blocks, 512>>>(in, out, N);\n  k<<<1, 1024>>>(out, out, blocks);\n}\n")
    code, out, err = cli_streams("analyze", str(f), "--length", "in=N", "--length", "out=N")
    assert code == 2
    assert "parameter 'N' has no value: the launch passes `N` which the host code does not " \
           "say: give it (--host 'N=V', which every launch made of it follows, or -p N=V, " \
           "this parameter at every launch)" in " ".join(err.split())
    code, out, err = cli_streams("check", str(f), "--host", "N=16777216", "--length", "in=N",
                                 "--length", "out=N")
    said = " ".join(out.split())
    assert "k at the launch at r.cu:10:3 (N=16777216)" in said.replace(str(tmp_path) + "/", "")
    assert "k at the launch at r.cu:11:3 (N=1024)" in said.replace(str(tmp_path) + "/", "")

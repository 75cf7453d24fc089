"""Device `assert(cond)`: a thread whose condition is 0 stops the kernel (the launch fails
with cudaErrorAssert). The IR keeps it (kernels_ir.Assert): `run` and `check` fault at its
line with the block and thread; the importer reads it from a `.cu` (gone under -DNDEBUG, as
<assert.h> has it); codegen traps; a kernels file written back keeps it."""
from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

from kernels_ir import (
    Assert, KernelBuilder, KernelRuntimeError, blockDim, f32, format_kernel, run, threadIdx,
)
from kernels_ir.pysource import kernels_file
from smemsim import analyze
from smemsim.frontends.cuda import Options
from tests.built import import_kernels
from smemsim.launch.hazards import check
from tests.conftest import require_nvrtc

# after siboehm's SGEMM kernel 4 (`assert(BM * BK == blockDim.x);`, tests/corpus/sgemm_cuda)
SOURCE = """
#include <cassert>
#define TILE 64
__global__ void tiles(const float* in, float* out) {
    __shared__ float s[TILE];
    assert(TILE == blockDim.x);
    s[threadIdx.x] = in[blockIdx.x * TILE + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * TILE + threadIdx.x] = s[TILE - 1 - threadIdx.x];
}
int main() {
    float *i, *o;
    tiles<<<4, BLOCK>>>(i, o);
}
"""


def built(block: int):
    k = KernelBuilder("guarded")
    out = k.global_array("out", f32, 256, intent="out")
    s = k.shared("s", f32, 64)
    k.assert_(blockDim.x == 64, "blockDim.x == 64")
    s[threadIdx.x % 64] = 1.0
    k.syncthreads()
    out[threadIdx.x] = s[63 - threadIdx.x % 64]
    k.launch(1, block)
    return k.build()


def test_a_failing_assert_stops_the_run_at_its_line_and_check_names_it():
    assert run(built(64))["out"][:64].tolist() == [1.0] * 64
    with pytest.raises(KernelRuntimeError, match=r"test_assert.py:\d+.*assertion "
                                                 r"`blockDim.x == 64` failed.*thread \(0, 0, 0\)"):
        run(built(128))
    report = check(built(128))
    assert [f.kind for f in report.faults] == ["assert"] and not report.clean
    assert check(built(64)).clean
    # the analysis counts shared memory: an assert there is no site and changes no count
    assert analyze(built(64)).load.requests == 2


def test_the_importer_reads_an_assert_and_ndebug_removes_it(tmp_path):
    f = tmp_path / "tiles.cu"
    f.write_text(SOURCE)
    good = import_kernels(str(f), Options(defines={"BLOCK": "64"}))["tiles"]()
    (a,) = [s for s in good.statements() if isinstance(s, Assert)]
    # (the condition as CUDA's message prints it: unexpanded, as nvcc keeps it in the PTX)
    assert a.text == "TILE == blockDim.x" and a.loc.line == 6
    assert check(good).clean
    bad = import_kernels(str(f), Options(defines={"BLOCK": "32"}))["tiles"]()
    report = check(bad)
    (fault,) = report.faults
    assert fault.kind == "assert" and "tiles.cu:6:" in fault.message \
        and "`TILE == blockDim.x`" in fault.message
    quiet = import_kernels(str(f), Options(defines={"BLOCK": "32", "NDEBUG": "1"}))["tiles"]()
    assert not any(isinstance(s, Assert) for s in quiet.statements())


def test_a_kernels_file_written_back_keeps_the_assert_and_its_text(tmp_path):
    kernel = built(64)
    written = tmp_path / "written.py"
    written.write_text(kernels_file({"guarded": kernel}, str(tmp_path)))
    assert "k.assert_(" in written.read_text() or "assert_(" in written.read_text()
    spec = importlib.util.spec_from_file_location("written_assert", written)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    again = module.KERNELS["guarded"]()
    strip = lambda k: re.sub(r", line \d+", "", format_kernel(k))  # noqa: E731
    assert strip(again) == strip(kernel)
    # the text is data: a quote or a newline in it stays inside the string
    odd = KernelBuilder("odd")
    odd.assert_(threadIdx.x < 64, 'x"); import os; ("\n')
    odd.launch(1, 32)
    text = kernels_file({"odd": odd.build()}, str(tmp_path))
    spec_path = tmp_path / "odd.py"
    spec_path.write_text(text)
    spec = importlib.util.spec_from_file_location("odd_assert", spec_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (a,) = [s for s in module.KERNELS["odd"]().statements() if isinstance(s, Assert)]
    assert a.text == 'x"); import os; ("\n'


def test_codegen_traps_where_the_assert_fails():
    from gpu_backend.codegen import generate
    assert "if (!(blockDim.x == 64)) __trap();" in generate(built(64)).source
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    compiled = compile_kernel(built(64), "sm_90")    # NVRTC takes it; the widths as stated
    assert compiled.widths_ok


@pytest.mark.gpu
def test_on_the_gpu_a_failing_assert_fails_the_launch():
    from gpu_backend.device import gpu_unavailable, run_on_gpu
    reason = gpu_unavailable()
    if reason:
        pytest.skip(f"needs a GPU: {reason}")
    ok = run_on_gpu(built(64))
    assert ok.matches
    np.testing.assert_array_equal(ok.outputs["out"][:64], 1.0)
    # a trapped launch leaves its process's CUDA context unusable (every later launch of
    # the test session failed after it): the failing launch runs in a process of its own
    import pathlib
    import subprocess
    import sys
    done = subprocess.run(
        [sys.executable, "-c", "from gpu_backend.device import run_on_gpu\n"
         "from tests.test_assert import built\nrun_on_gpu(built(128))\n"],
        capture_output=True, text=True, cwd=pathlib.Path(__file__).resolve().parent.parent)
    assert done.returncode != 0, done.stdout
    assert re.search(r"(?i)launch|illegal|trap|unspecified", done.stderr), done.stderr[-2000:]


def test_a_trap_reached_stops_the_kernel():
    """llm.c's layernorm_backward_kernel9 traps where C is no multiple of 32 x128 vectors
    (`if (C % (32 * x128::size) != 0) { printf(...); __trap(); }`): at C = 768 it does not,
    at C = 760 every block does, at the trap's line."""
    import json
    import pathlib
    from tools.corpus_status import flags, options
    root = pathlib.Path(__file__).resolve().parent
    entries = json.loads((root / "corpus" / "corpus.json").read_text())["entries"]
    entry = next(e for e in entries if e["kernel"] == "layernorm_backward_kernel9")
    kernel = import_kernels(str(root / "corpus" / entry["file"]), options(entry),
                            flags=flags(entry))["layernorm_backward_kernel9"]()
    (trap,) = [s for s in kernel.statements() if isinstance(s, Assert) and s.traps]
    assert trap.loc.line == 878 and format_kernel(kernel).count("__trap()") == 1
    assert check(kernel).clean
    (fault,) = check(kernel, {"C": 760}).faults
    assert fault.kind == "assert" and "layernorm_backward.cu:878:9" in fault.message \
        and "__trap() stops the kernel here" in fault.message

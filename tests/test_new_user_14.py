"""The fourteenth new-user review's findings (check, fix of numba files, sweep and mcp, on
kernels from repositories not used before and planted ones), each fixed and held here."""
import json
import subprocess
import sys

import pytest

from tests.test_new_user import cli

FLAG = """
#define N 256
__global__ void planted(const float *in, float *out, int n)
{
    __shared__ float buf[N];
    __shared__ int flag[1];
    int tid = threadIdx.x;
    int i = blockIdx.x * N + tid;
    buf[tid] = in[i];
    flag[0] = 1;
    __syncthreads();
    out[i] = buf[(tid + 1) % N] + flag[0];
}
int main() {
    float *a, *b;
    cudaMalloc(&a, 4096 * sizeof(float)); cudaMalloc(&b, 4096 * sizeof(float));
    planted<<<16, N>>>(a, b, 4096);
}
"""


def test_a_shared_variable_the_build_folded_away_is_said(tmp_path):
    """Every thread stores 1 to `flag[0]` and reads it after the barrier: nvcc keeps no
    `flag` at all (the read is the constant 1), so there is no same-value race in the build
    to report; check and analyze now say that the variable was folded away."""
    f = tmp_path / "flag.cu"
    f.write_text(FLAG)
    code, out, err = cli("check", str(f))
    assert code == 0, out + err
    assert "flag.cu:6:20: `flag` is declared __shared__, but nvcc's build has no access to " \
           "it (the compiler folded its stores and loads away): nothing of it is counted or " \
           "checked" in out
    code, out, err = cli("check", str(f), "--json")
    (note,) = json.loads(out)["results"][0]["notes"]
    assert "flag.cu:6:20: `flag` is declared __shared__" in note
    code, out, err = cli("analyze", str(f), "--json")
    notes = json.loads(out)["results"][0]["compiler_notes"]
    assert any("`flag` is declared __shared__" in n for n in notes)
    assert not any("`buf`" in n for n in notes)   # (buf is in the build)


def test_a_sweeps_front_weighs_the_warps_every_limit_but_registers_allows():
    """Without --regs a sweep's occupancy was the blocks shared memory allows: 25 for a
    1,024-thread block that fits 2. The front now weighs the warps every other limit
    allows (as at 32 registers a thread), and says they are an upper bound."""
    from examples.transpose import KERNELS
    from smemsim.launch.occupancy import kernel_occupancy
    from smemsim.search.sweep import product, sweep
    kernel = KERNELS["naive"]()
    (r,) = sweep(kernel, product({"n": [64]}, ["sm_90"]), jobs=1).results
    assert r.registers is None and r.active_warps is None
    assert r.warps_at_most == kernel_occupancy(kernel, "sm_90", 32, {"n": 64}).active_warps


def test_a_note_is_said_once_however_many_points_make_the_kernel(capsys):
    from types import SimpleNamespace

    from kernels_ir import KernelBuilder, f32, threadIdx
    from smemsim.cli.common import _note_assumed_lengths
    k = KernelBuilder("copy")
    src = k.global_array("src", f32, 1 << 22)
    out = k.global_array("out", f32, 1 << 22, intent="out")
    out[threadIdx.x] = src[threadIdx.x]
    k.launch(1, 32)
    import dataclasses
    kernel = dataclasses.replace(k.build(), assumed_lengths=("src",))
    args = SimpleNamespace(length=[], param=[])
    for _ in range(3):   # (a sweep of three points)
        _note_assumed_lengths(args, kernel)
    assert capsys.readouterr().err.count("the source does not say how long src is") == 1


def test_mcp_says_nothing_on_stderr_for_a_failed_call(tmp_path):
    pytest.importorskip("mcp", reason="the mcp package is not installed")
    calls = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "nosuchtool", "arguments": {}}}]
    done = subprocess.run([sys.executable, "-m", "smemsim", "mcp"], capture_output=True,
                          input="".join(json.dumps(c) + "\n" for c in calls), text=True,
                          timeout=120, cwd=tmp_path)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2] and answers[1]["result"]["isError"]
    assert done.stderr == ""


REDUCE = """from numba import cuda, float32
import numpy as np

TPB = 256

@cuda.jit
def reduce(x, out):
    s = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    s[tid] = x[cuda.blockIdx.x * TPB + tid]
    cuda.syncthreads()
    stride = 1
    while stride < TPB:
        idx = 2 * stride * tid
        if idx < TPB:
            s[idx] += s[idx + stride]
        cuda.syncthreads()
        stride *= 2
    if tid == 0:
        out[cuda.blockIdx.x] = s[33]

x = np.ones(TPB * 64, np.float32)
out = np.zeros(64, np.float32)
reduce[64, TPB](x, out)
"""


def test_a_numba_swizzle_of_a_constant_subscript_is_its_place():
    """euan-turner's interleaved reduction: fix wrote `s[0 ^ ((0 >> 5) & 31)]`; a constant
    subscript is now the element the swizzle places it at (33 under Swizzle<5,0,5>: 33 ^ 1
    = 32), and a one-extent array of a numba file says why it gets no padding."""
    import pathlib
    import tempfile

    from smemsim.frontends.cuda.patch import LayoutChange
    from smemsim.frontends.ptx.numba_patch import layout_patch
    f = pathlib.Path(tempfile.mkdtemp()) / "reduce.py"
    f.write_text(REDUCE)
    p = layout_patch(str(f), "reduce", [LayoutChange("s", "swizzle", swizzle=(5, 0, 5))])
    assert "        out[cuda.blockIdx.x] = s[32]\n" in p.patched
    assert "    s[tid ^ ((tid >> 5) & 31)] = x[cuda.blockIdx.x * TPB + tid]\n" in p.patched
    pytest.importorskip("numba", reason="numba is an optional extra (pip install numba)")
    code, out, err = cli("fix", str(f))
    assert "padding not tried: an array of one extent is padded by an element every 128 " \
           "bytes in a .cu (`pad 1 every 32`), not yet in a numba file" in out + err

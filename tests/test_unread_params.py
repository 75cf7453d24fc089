"""Parameters that decide nothing counted or checked (a GEMM's alpha and beta, which host
code often reads from argv): counted with a stand-in and said, never asked for
(smemsim.launch.unread_params)."""
import json

from kernels_ir import KernelBuilder, blockIdx, f32, i32, threadIdx
from kernels_ir.expr import cast

from smemsim.launch.unread_params import deciding_params
from tests.test_new_user import cli

SCALE = """
#include <cstdlib>
__global__ void scale(const float *a, float *b, float alpha, float beta, int n)
{
    __shared__ float t[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    t[threadIdx.x] = a[i];
    __syncthreads();
    b[i] = alpha * t[(threadIdx.x * 2) % 256] + beta;
}
int main(int argc, char **argv)
{
    int n = 1 << 20;
    float alpha = atof(argv[1]), beta = atof(argv[2]);
    float *a, *b;
    cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4);
    scale<<<n / 256, 256>>>(a, b, alpha, beta, n);
}
"""


def test_parameters_read_only_into_global_stores_are_counted_with_a_stand_in(tmp_path):
    """alpha and beta reach only the value stored to b: the counts cannot depend on them.
    The launch's 4,096 blocks of 8 warps read t at 2 * tid % 256 (a 2-way conflict:
    lanes 0 and 16 share a bank), 32,768 requests of 2 wavefronts; the same counts as
    with values given, and a note says what was assumed."""
    f = tmp_path / "scale.cu"
    f.write_text(SCALE)
    code, out, err = cli("analyze", str(f), "--json")
    assert code == 0, err
    r = json.loads(out)["results"][0]
    assert r["params"]["alpha"] == 1 and r["params"]["beta"] == 1
    assert any("'alpha', 'beta': no value given" in n and "counted with 1" in n
               for n in r["notes"])
    load = next(s for s in r["sites"] if s["op"] == "load")
    assert (load["requests"], load["wavefronts"]) == (32768, 65536)
    code, given, err = cli("analyze", str(f), "--json", "-p", "alpha=2.5", "-p", "beta=-1")
    assert code == 0, err
    g = json.loads(given)["results"][0]
    assert [s["wavefronts"] for s in g["sites"]] == [s["wavefronts"] for s in r["sites"]]
    assert not any("no value given" in n for n in g.get("notes", []))
    code, out, err = cli("check", str(f))
    assert code == 0, err
    assert "no hazard found" in out and "'alpha', 'beta': no value given" in out


def test_a_parameter_that_decides_a_branch_is_still_asked_for_alone(tmp_path):
    """beta decides whether b is stored (and so whether the read of t happens): asked for;
    alpha, still only a stored value, is not."""
    f = tmp_path / "branch.cu"
    f.write_text(SCALE.replace("b[i] = alpha * t[(threadIdx.x * 2) % 256] + beta;",
                               "if (beta != 0.f) b[i] = alpha * t[(threadIdx.x * 2) % 256];"))
    code, out, err = cli("analyze", str(f))
    assert code != 0
    assert "parameter 'beta' has no value" in err and "alpha" not in err


def _kernel(body):
    """A one-block kernel with parameters p (f32) and q (i32), arrays g (global) and s
    (shared), its body written by `body(k, p, q, g, s)`."""
    k = KernelBuilder("k")
    p, q = k.param("p", f32), k.param("q")
    g = k.global_array("g", f32, 1024, intent="inout")
    s = k.shared("s", f32, (256,))
    body(k, p, q, g, s)
    k.launch(grid=(4,), block=(256,))
    return k.build()


def test_what_decides_and_what_does_not():
    tid = threadIdx.x
    i = blockIdx.x * 256 + tid
    # into a global store's value only: nothing decided
    assert deciding_params(_kernel(lambda k, p, q, g, s: g.__setitem__(i, p * 2.0))) \
        == frozenset()
    # kept in shared memory (a race's bytes, a value read back): decides
    assert deciding_params(_kernel(lambda k, p, q, g, s: s.__setitem__(tid, p))) == {"p"}

    def divided(k, p, q, g, s):   # a divisor of a stored value: a fault to look for
        g[i] = cast(tid // q, f32)
    assert deciding_params(_kernel(divided)) == {"q"}

    def through_a_local(k, p, q, g, s):   # a local both stored and a condition
        v = k.let("v", q * 2)
        g[i] = v
        with k.if_(v > 3):
            s[tid] = 1.0
    assert deciding_params(_kernel(through_a_local)) == {"q"}

    def read_back(k, p, q, g, s):   # a loaded value decides an address, g is written
        j = k.let("j", cast(g[i], i32))
        s[tid] = g[j % 1024]
        g[i] = p
    assert deciding_params(_kernel(read_back)) == {"p", "q"}
    # and where g is not written, p (not read at all) decides nothing
    assert deciding_params(_kernel(lambda k, p, q, g, s: s.__setitem__(
        tid, g[cast(g[i], i32) % 1024]))) == frozenset()

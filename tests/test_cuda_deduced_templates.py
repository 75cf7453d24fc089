"""Template kernels launched without naming their arguments (`k<<<g, b>>>(d_x)`): the
arguments' declared types deduce them, as C++ does (smemsim/frontends/cuda/deduce.py), and thrust
vectors passed by raw_pointer_cast(v.data()) give their element type and their length."""
from __future__ import annotations

import pathlib

import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import CudaImportError, Options  # noqa: E402
from tests.built import import_kernels  # noqa: E402
from tests.test_cli import cli  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
FIXTURE = HERE / "cuda" / "deduced_templates.cu"


def kernels(**options):
    return import_kernels(str(FIXTURE), Options(**options))


def test_each_launch_deduces_its_instance():
    """scale_rows<<<...>>>(x, y, 2.0f, n) with `float *x, *y` is scale_rows<float>; with
    thrust::device_vector<double> dx, dy through raw_pointer_cast it is scale_rows<double>;
    block_sum<128><<<...>>>((const float *)x, y + 0) names BLOCK and deduces T (a cast and
    pointer arithmetic); block_sum<64> inside run_block_sum<T>, instantiated for double."""
    assert list(kernels()) == ["scale_rows<float>", "scale_rows<double>",
                               "block_sum<64, double>", "block_sum<128, float>", "copy_pair"]


def test_the_deduced_type_sets_the_element_width():
    """256 blocks of 8 warps. The store row[tid] is 1 wavefront a warp for float, 2 for
    double (256 bytes); the load row[2 * tid % 256] reads 64 words in the warp for float
    (lanes i and i + 16 share a bank: 2 wavefronts), 64 doubles for double (512 bytes: 4)."""
    found = kernels()
    warps = 256 * 8
    f = analyze(found["scale_rows<float>"]())
    d = analyze(found["scale_rows<double>"]())
    assert dict(f.params) == {"factor": 2.0, "n": 65536}
    assert dict(d.params) == {"factor": 0.5, "n": 65536}
    assert (f.store.wavefronts, f.load.wavefronts) == (warps, 2 * warps)
    assert (d.store.wavefronts, d.load.wavefronts) == (2 * warps, 4 * warps)


def test_a_thrust_vectors_length_is_its_constructor_argument():
    """dx(n) and dy(n): n doubles each; cudaMalloc(&x, n * sizeof(float)) for the float
    instance."""
    from kernels_ir import resolve_launch
    found = kernels()

    def lengths(k):   # (in bytes: the arrays of nvcc's build)
        launch = resolve_launch(k, {})
        return {g.name: launch.lengths[g.name] for g in k.globals if g.base is None}
    assert lengths(found["scale_rows<double>"]()) == {"in": 65536 * 8, "out": 65536 * 8}
    assert lengths(found["scale_rows<float>"]()) == {"in": 65536 * 4, "out": 65536 * 4}


def test_a_named_argument_then_a_deduced_one():
    """block_sum<128, float>: 512 blocks of 4 warps; the tree's steps s = 64 (2 warps
    active) then 32 ... 1 (one warp each, 6 steps), each a load of part[tid] and of
    part[tid + s], then thread 0's part[0]: 17 loads a block, conflict-free."""
    r = analyze(kernels()["block_sum<128, float>"]())
    assert (r.grid, r.block) == ((512, 1, 1), (128, 1, 1))
    per_block_adds = 2 + 1 + 1 + 1 + 1 + 1 + 1
    assert r.load.requests == 512 * (2 * per_block_adds + 1)
    assert r.load.wavefronts == r.load.requests


def test_a_host_templates_instance_deduces_from_its_own_type():
    """run_block_sum<double> launches block_sum<64><<<blocks, 64>>>(in, out) with `T *in`:
    block_sum<64, double>; its grid is the host function's parameter, a question."""
    with pytest.raises(CudaImportError, match=r"host variable 'blocks'"):
        kernels()["block_sum<64, double>"]()
    r = analyze(kernels(hosts={"blocks": "8"})["block_sum<64, double>"]())
    assert (r.grid, r.block) == ((8, 1, 1), (64, 1, 1))


def test_two_types_for_one_parameter_deduce_nothing():
    """With SHOW_CONFLICT, copy_pair<<<1, 32>>>(x, p) with float *x and double *p: nvcc
    refuses the file, at the launch's line; without it the file has no launch of copy_pair
    to read."""
    from kernels_ir import KernelError
    with pytest.raises(KernelError, match=r"deduced_templates.cu:58: error: no instance of "
                                          r"function template \"copy_pair\""):
        kernels(defines={"SHOW_CONFLICT": "1"})["copy_pair"]()
    with pytest.raises(CudaImportError, match=r"needs a value: launch it in the file"):
        kernels()["copy_pair"]()
    r = analyze(kernels(kernel="copy_pair<int>", grid="1", block="32")["copy_pair<int>"]())
    assert (r.store.wavefronts, r.load.wavefronts) == (1, 1)


def test_a_type_deduced_as_its_default_is_left_out_of_the_key(tmp_path):
    """`template <int N = 128, typename T = float>`: fill<64><<<...>>>(a) with float *a
    deduces T = float, its default (key fill<64>); with double *d, fill<64, double>."""
    source = tmp_path / "fill.cu"
    source.write_text("""
template <int N = 128, typename T = float>
__global__ void fill(T* out) {
    __shared__ T s[N];
    s[threadIdx.x] = (T)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[N - 1 - threadIdx.x];
}
void host(float* a, double* d) { fill<64><<<1, 64>>>(a); fill<64><<<1, 64>>>(d); }
""")
    found = import_kernels(str(source), Options(lengths={"out": "64"}))
    assert list(found) == ["fill<64>", "fill<64, double>"]
    assert analyze(found["fill<64, double>"]()).store.wavefronts == 4     # 64 doubles


def test_an_instance_no_launch_deduces_gets_no_other_instances_launch():
    """--kernel 'scale_rows<int>': the file launches float and double instances only, so
    their grid is not taken for it (a question, not a guess)."""
    with pytest.raises(CudaImportError, match=r"no launch of 'scale_rows<int>' in the file \(it "
                                             r"launches 'scale_rows' with other template"):
        kernels(kernel="scale_rows<int>")["scale_rows<int>"]()


def test_the_cli_analyzes_the_deduced_instances():
    """`smemsim analyze FILE` without --kernel reports every instance the launches deduce
    and names each by its arguments in the `explain` hint."""
    code, out = cli("analyze", str(FIXTURE), "--kernel", "scale_rows<double>")
    assert code == 0, out
    assert "--kernel 'scale_rows<double>' 1" in out   # shell-quoted: `<` is a redirection
    assert "load 8B" in out

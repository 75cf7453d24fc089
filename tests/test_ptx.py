"""Issue #57, first step: the user's build to PTX (private copy, cached by content), PTX read
as data, and straight-line PTX lowered to the IR with each access at its byte offset and
width, counted as the C++ frontend counts the same kernel."""
import os
import pathlib
import re
import shutil

import pytest

from smemsim import analyze
from smemsim.frontends.ptx.lower import Launch, lower
from smemsim.frontends.ptx.parse import PtxError, parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE_CU = ROOT / "examples" / "transpose.cu"

SAMPLE = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1
)
{
	.reg .b32 	%r<9>;
	.reg .f32 	%f<5>;
	.reg .b64 	%rd<3>;
	.shared .align 16 .b8 _ZZ1kE1a[512];
	.shared .align 4 .b8 _ZZ1kE1b[12];
	.loc	1 7 3
	ld.param.u64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	.loc	1 18 3, function_name $L__info_string0, inlined_at 1 30 5
	shl.b32 	%r2, %r1, 4;
	mov.u32 	%r3, _ZZ1kE1a;
	add.s32 	%r4, %r3, %r2;
	ld.shared.v4.f32 	{%f1, %f2, %f3, %f4}, [%r4+16];
	.loc	1 9 1
	ret;
}
	.file	1 "/src/k.cu"
"""


def test_ptx_is_read_as_data():
    m = parse(SAMPLE)
    entry = m.entries["k"]
    assert m.files == {1: "/src/k.cu"}
    assert [(p.name, p.ptype) for p in entry.params] == [("k_param_0", "u64"),
                                                         ("k_param_1", "u32")]
    assert [(v.name, v.align, v.nbytes) for v in entry.shared] == [
        ("_ZZ1kE1a", 16, 512), ("_ZZ1kE1b", 4, 12)]
    load = entry.body[5]
    assert load.opcode == ("ld", "shared", "v4", "f32")
    assert load.operands == ("{%f1,%f2,%f3,%f4}", "[%r4+16]")
    assert (load.loc.line, load.loc.inlined_at.line) == (18, 30)


def test_a_vector_load_is_one_16_byte_access_at_its_byte_offset():
    m = parse(SAMPLE)
    k = lower(m, "k", Launch(grid=(1,), block=(16,), names=("out", "n"),
                             lengths={"out": 128}, defaults={"n": 1}))
    r = analyze(k, {"n": 1})
    (site,) = r.sites
    # 16 lanes x 16 bytes, 16 bytes apart from byte 16: 256 bytes, 2 wavefronts, no excess
    assert (site.requests, site.wavefronts, site.ideal) == (1, 2, 2)
    assert (site.loc.file, site.loc.line, site.loc.calls) == ("/src/k.cu", 18,
                                                               (("/src/k.cu", 30),))


def test_what_is_not_lowered_yet_is_a_located_refusal():
    text = SAMPLE.replace("\tret;", "\ttestp.finite.f32 \t%p9, %f1;\n\tret;")
    with pytest.raises(PtxError, match=r"kernel .k., line \S*k.cu:9:1: PTX line 24 "
                                       r"\(`testp.finite.f32`\): not lowered yet"):
        lower(parse(text), "k", Launch(grid=(1,), block=(32,), names=("out", "n")))


def test_an_irreducible_graph_is_refused_not_guessed():
    """Two blocks that branch into each other, each entered from the entry: a loop with two
    heads, which no structured code writes."""
    text = SAMPLE.replace("\tret;", """\tsetp.lt.u32 \t%p1, %r1, 4;
\t@%p1 bra \t$L__A;
$L__B:
\tadd.s32 \t%r1, %r1, 1;
\tbra.uni \t$L__A;
$L__A:
\tadd.s32 \t%r1, %r1, 2;
\tsetp.lt.u32 \t%p1, %r1, 9;
\t@%p1 bra \t$L__B;
\tret;""")
    with pytest.raises(PtxError, match="irreducible"):
        lower(parse(text), "k", Launch(grid=(1,), block=(32,), names=("out", "n")))




def test_transpose_built_by_nvcc_counts_by_hand(nvcc, tmp_path, monkeypatch):
    """examples/transpose.cu at n = 256: 64 blocks of 32 warps, each a store and a load:
    the tile's row stores conflict-free (1 wavefront each), its column reads 32-way (32)."""
    from smemsim.frontends.ptx.build import ptx_of
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    ptx = ptx_of(str(TRANSPOSE_CU))
    k = lower(parse(ptx), "_Z9transposePKfPfi", Launch(
        grid=(8, 8), block=(32, 32), names=("src", "dst", "n"),
        lengths={"src": "n*n*4", "dst": "n*n*4"}, defaults={"n": 256}), "transpose")
    via_ptx = analyze(k, {"n": 256})
    assert (via_ptx.load.requests, via_ptx.store.requests) == (2_048, 2_048)
    assert via_ptx.load.wavefronts == 65_536 and via_ptx.store.wavefronts == 2_048
    assert [(os.path.realpath(s.loc.file), s.loc.line) for s in via_ptx.sites] == \
        [(str(TRANSPOSE_CU.resolve()), 16), (str(TRANSPOSE_CU.resolve()), 20)]


def test_the_ptx_cache_follows_the_headers_the_build_read(nvcc, tmp_path, monkeypatch):
    from smemsim.frontends.ptx.build import ptx_of
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "we`ird $(x)"
    folder.mkdir()
    (folder / "tile.h").write_text("#define TILE 32\n")
    source = folder / "k.cu"
    source.write_text('#include "tile.h"\n__global__ void k(float *p) '
                      "{ __shared__ float s[TILE]; s[threadIdx.x] = 1; __syncthreads(); "
                      "p[threadIdx.x] = s[TILE - 1 - threadIdx.x]; }\n")
    first = ptx_of(str(source))
    assert "_ZZ1kPfE1s[128]" in first and f'"{source}"' in first
    assert ptx_of(str(source)) == first      # from the cache
    (folder / "tile.h").write_text("#define TILE 64\n")
    assert "_ZZ1kPfE1s[256]" in ptx_of(str(source))
    assert not (tmp_path / "x").exists()



def test_without_a_toolkit_nvcc_comes_from_the_wheels_the_install_brings(tmp_path,
                                                                          monkeypatch):
    """No toolkit on PATH or in its usual folders: the nvidia-cuda-nvcc wheel's nvcc (with
    the cccl wheel's cub) builds the file; without a host compiler, a clear refusal."""
    import sys
    from kernels_ir import KernelError
    from smemsim import toolrun
    from smemsim.frontends.ptx.build import find_nvcc, ptx_of
    wheels = [p for e in sys.path for p in pathlib.Path(e).glob("nvidia/*/bin/nvcc")]
    if not wheels:
        pytest.skip("the nvidia-cuda-nvcc wheel is not installed (smemsim's install brings it)")
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(toolrun, "_toolkit_roots", lambda: [])
    assert find_nvcc() == str(wheels[0])
    source = tmp_path / "k.cu"
    source.write_text("#include <cub/cub.cuh>\n__global__ void k(int *p) {\n"
                      "  typedef cub::BlockReduce<int, 64> R;\n"
                      "  __shared__ typename R::TempStorage t;\n"
                      "  int s = R(t).Sum(p[threadIdx.x]);\n"
                      "  if (threadIdx.x == 0) p[0] = s;\n}\n")
    if os.path.exists("/usr/bin/g++"):
        ptx = ptx_of(str(source))
        assert ".entry _Z1kPi(" in ptx and "bar.sync" in ptx
    monkeypatch.setenv("PATH", str(tmp_path))           # no gcc, no g++
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache2"))
    with pytest.raises(KernelError, match="host C\\+\\+ compiler.*-ccbin"):
        ptx_of(str(source))

REDUCE = """
__global__ void reduce(const float *in, float *out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float acc = 0;
    for (int i = blockIdx.x * 256 + t; i < n; i += gridDim.x * 256)
        acc += in[i];
    s[t] = acc;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
void run(const float *in, float *out)
{
    reduce<<<64, 256>>>(in, out, 1 << 20);
}
"""


def test_loops_and_branches_of_nvccs_build_are_structured(nvcc, tmp_path, monkeypatch):
    """A grid-stride loop (a do-while nvcc guards with an if) and a tree reduction nvcc
    unrolls into eight guarded steps: every site counted per warp that reaches it, and the
    outputs equal the interpreter's run of the C++ frontend's kernel."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "reduce.cu"
    source.write_text(REDUCE)
    from smemsim.frontends.cuda import Options
    k = import_cu(str(source), Options(lengths={"in": "n", "out": "64"}))["reduce"]()
    r = analyze(k, {"n": 1 << 20})
    # 64 blocks: the store of s[t] by 8 warps; t < 128, 64, 32: 4, 2, 1 warps; then 1 warp
    # (partly active) for strides 16 ... 1; the final read by warp 0
    per_step = [4, 2, 1, 1, 1, 1, 1, 1]
    assert r.store.requests == 64 * (8 + sum(per_step))
    assert r.load.requests == 64 * (2 * sum(per_step) + 1)
    assert r.load.wavefronts == r.load.requests and r.store.excess == 0
    rng = np.random.default_rng(0)
    data = rng.standard_normal(1 << 20).astype(np.float32)
    got = run(k, {"n": 1 << 20}, arrays={"in": data.view(np.uint8)})["out"]
    sums = np.frombuffer(got.tobytes(), np.float32)[:64]
    want = data.reshape(-1, 64 * 256)   # block b sums in[b*256 + t + j*16384]
    expect = want.reshape(-1, 64, 256).sum(axis=0).sum(axis=1)
    assert np.allclose(sums, expect, rtol=1e-4, atol=1e-3)


HIST_AND_SHUFFLE = """
__global__ void hist(const unsigned char *in, unsigned int *out, int n)
{
    __shared__ unsigned int bins[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) bins[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[in[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&out[i], bins[i]);
}
__global__ void warpsum(const float *in, float *out)
{
    float v = in[blockIdx.x * 32 + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
void launch(const unsigned char *in, unsigned int *out, const float *f, float *g)
{
    hist<<<64, 256>>>(in, out, 65536);
    warpsum<<<16, 32>>>(f, g);
}
"""


def test_atomics_and_shuffles_of_nvccs_build(nvcc, tmp_path, monkeypatch):
    """`atom.shared.add.u32 [a], 1` with its result unused is the aggregated form nvcc
    emits, costed as the C++ frontend costs atomicAdd(&bins[x], 1u); a shuffle's `d|p` form
    and a float moved through a .b32 register keep their bits: both kernels compute what
    numpy does."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "hw.cu"
    source.write_text(HIST_AND_SHUFFLE)
    options = Options(lengths={"in": "n", "out": "256"})
    hist = import_cu(str(source), options, "hist")["hist"]()
    sites = analyze(hist, dict(hist.defaults)).sites
    # (the C++ reading counted the same: 2026-11-30)
    assert [(s.op, s.requests, s.wavefronts) for s in sites] == [
        ("store", 512, 512), ("atomic_aggregated", 2048, 6449), ("load", 512, 512)]
    assert sites[1].op == "atomic_aggregated" and sites[1].requests == 64 * 8 * 4
    data = np.random.default_rng(1).integers(0, 256, 65536).astype(np.uint8)
    out = run(hist, dict(hist.defaults), arrays={"in": data, "out": np.zeros(1024, np.uint8)})
    assert (np.frombuffer(out["out"].tobytes(), np.uint32) ==
            np.bincount(data, minlength=256)).all()
    warpsum = import_cu(str(source), Options(lengths={"in": "512", "out": "16"}),
                        "warpsum")["warpsum"]()
    f = np.random.default_rng(2).standard_normal(512).astype(np.float32)
    got = run(warpsum, {}, arrays={"in": f.view(np.uint8)})["out"]
    assert np.allclose(np.frombuffer(got.tobytes(), np.float32), f.reshape(16, 32).sum(1),
                       atol=1e-4)


CONVERSIONS = """
__global__ void conv(const float *x, int *i, unsigned *u, float *c, float *s)
{
    int t = threadIdx.x;
    i[t] = __float2int_rz(x[t]);
    u[t] = __float2uint_rn(x[t]);
    c[t] = copysignf(2.0f, x[t]);
    s[t] = __saturatef(x[t]);
}
void go(const float *x, int *i, unsigned *u, float *c, float *s) { conv<<<1, 32>>>(x, i, u, c, s); }
"""


def test_conversions_saturate_and_round_as_the_ptx_isa_says(nvcc, tmp_path, monkeypatch):
    """`cvt.rzi.s32.f32` and `cvt.rni.u32.f32` saturate to the integer's range (NaN to 0),
    `cvt.sat.f32.f32` clamps to [0, 1] (NaN to 0), `copysign.f32` takes its first
    operand's sign: the values the PTX ISA gives, where C leaves the conversions undefined."""
    import numpy as np
    from smemsim.frontends.cuda import Options
    from tests.built import import_kernels, run
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "conv.cu"
    source.write_text(CONVERSIONS)
    n = "32"
    kernel = import_kernels(source, Options(lengths={a: n for a in "xiucs"}), "conv")["conv"]()
    x = np.zeros(32, np.float32)
    x[:8] = [np.nan, -np.inf, np.inf, 3e9, -3e9, 2.5, -2.5, 0.3]
    got = run(kernel, {}, arrays={"x": x, "i": np.zeros(32, np.int32),
                                  "u": np.zeros(32, np.uint32), "c": np.zeros(32, np.float32),
                                  "s": np.zeros(32, np.float32)})
    big, low = 2**31 - 1, -2**31
    assert got["i"][:8].tolist() == [0, low, big, big, low, 2, -2, 0]
    assert got["u"][:8].tolist() == [0, 0, 2**32 - 1, 3_000_000_000, 0, 2, 0, 0]
    assert got["c"][1:8].tolist() == [-2, 2, 2, -2, 2, -2, 2]
    assert got["s"][:8].tolist() == [0, 0, 1, 1, 0, 1, 0, np.float32(0.3)]


FIND = """
__global__ void find(const int *in, int *out)
{
    __shared__ int s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    int pos = -1;
    #pragma unroll 1
    for (int i = 0; i < 256; i++) {
        if (s[i] == (int)threadIdx.x) { pos = i; break; }
    }
    out[blockIdx.x * 256 + threadIdx.x] = pos;
}
void go(const int *in, int *out) { find<<<4, 256>>>(in, out); }
"""


def test_a_loop_with_a_break_leaves_by_either_exit(nvcc, tmp_path, monkeypatch):
    """A loop that ends by its count or by a `break`: its flag says which exit was taken,
    each lane leaves when it finds its value, and the warp reads s[i] while any lane is
    still looking (analyze's own inputs are random 32-bit words, which no lane finds: every
    warp runs all 256 iterations)."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "find.cu"
    source.write_text(FIND)
    k = import_cu(str(source), Options(lengths={"in": "1024", "out": "1024"}))["find"]()
    data = np.random.default_rng(3).integers(0, 300, 1024).astype(np.int32)
    out = np.frombuffer(run(k, {}, arrays={"in": data.view(np.uint8)})["out"].tobytes(),
                        np.int32)
    want = np.full(1024, -1, np.int32)
    for b in range(4):
        for t in range(256):
            hits = np.nonzero(data[b * 256:(b + 1) * 256] == t)[0]
            want[b * 256 + t] = hits[0] if len(hits) else -1
    assert (out == want).all()
    r = analyze(k, {})
    assert r.store.requests == 4 * 8 and r.load.requests == 4 * 8 * 256


HALF = """
#include <cuda_fp16.h>
__global__ void hscale(const __half *in, __half *out, float s)
{
    __shared__ __half t[256];
    t[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = __float2half(__half2float(t[255 - threadIdx.x]) * s);
}
void go(const __half *in, __half *out) { hscale<<<2, 256>>>(in, out, 1.5f); }
"""


def test_halves_through_inline_asm_scopes_keep_their_bits(nvcc, tmp_path, monkeypatch):
    """cuda_fp16.h's conversions are inline asm blocks with their own scoped registers
    (`{.reg .b16 ...; cvt.rn.f16.f32 ...;}`): 2-byte shared accesses, and the values numpy's
    float16 computes."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "half.cu"
    source.write_text(HALF)
    k = import_cu(str(source), Options(lengths={"in": "512", "out": "512"}))["hscale"]()
    r = analyze(k, dict(k.defaults))
    assert [s.width for s in r.sites] == [2, 2] and r.load.requests == 16
    data = np.random.default_rng(4).standard_normal(512).astype(np.float16)
    out = run(k, dict(k.defaults), arrays={"in": data.view(np.uint8)})["out"]
    want = (data.reshape(2, 256)[:, ::-1].astype(np.float32) * np.float32(1.5)).astype(
        np.float16).ravel()
    assert (np.frombuffer(out.tobytes(), np.float16) == want).all()


SHADOW = """
__global__ void shadow(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    bool keep = in[t] > 0;
    int any = __syncthreads_or(t == 5);
    if (keep)
        s[t] = any;
    else
        s[63 - t] = any;
    __syncthreads();
    out[t] = s[t];
}
void go(const int *in, int *out) { shadow<<<1, 64>>>(in, out); }
"""


def test_registers_an_inline_asm_block_declares_shadow_the_kernels_own(nvcc, tmp_path,
                                                                        monkeypatch):
    """`__syncthreads_or` is `{ .reg .pred %p1; .reg .pred %p2; setp.ne.u32 %p1, ..;
    bar.red.or.pred %p2, 0, %p1; .. }` in the kernel's PTX, whose own %p1 (`keep`) is read
    after the block: the block's %p1 is another register (moderngpu's segreduce lost a
    store per block to this before)."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "shadow.cu"
    source.write_text(SHADOW)
    k = import_cu(str(source), Options(lengths={"in": "64", "out": "64"}))["shadow"]()
    for sign in (1, -1):   # every thread keeps (s[t]), or none does (s[63 - t])
        data = np.full(64, sign, np.int32)
        out = run(k, {}, arrays={"in": data.view(np.uint8)})["out"]
        # thread 5 votes, so every thread's `any` is 1, and every word of s is written
        assert (np.frombuffer(out.tobytes(), np.int32) == 1).all()
    r = analyze(k, {}, arrays={"in": np.ones(64, np.int32).view(np.uint8)})
    assert (r.store.requests, r.store.wavefronts) == (2, 2) and r.notes == ()


BITS = """
__global__ void bits(const unsigned *in, unsigned *out)
{
    unsigned x = in[threadIdx.x], r;
    int s;
    asm("bfe.u32 %0, %1, 4, 7;" : "=r"(r) : "r"(x));
    out[threadIdx.x * 5] = r;
    asm("bfe.s32 %0, %1, 4, 7;" : "=r"(s) : "r"(x));
    out[threadIdx.x * 5 + 1] = s;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r) : "r"(x & 31), "r"((x >> 5) & 63));
    out[threadIdx.x * 5 + 2] = r;
    out[threadIdx.x * 5 + 3] = __popc(x) + (__clz(x) << 8);
    out[threadIdx.x * 5 + 4] = __reduce_add_sync(0xffffffff, x);
}
void go(const unsigned *in, unsigned *out) { bits<<<1, 32>>>(in, out); }
"""


def test_bit_instructions_compute_what_the_isa_says(nvcc, tmp_path, monkeypatch):
    """bfe (unsigned and sign-extending), bmsk.clamp, popc, clz and redux.sync.add, each
    against the PTX ISA's definition computed by numpy."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "bits.cu"
    source.write_text(BITS)
    k = import_cu(str(source), Options(lengths={"in": "32", "out": "160"}))["bits"]()
    x = np.random.default_rng(5).integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
    out = np.frombuffer(run(k, {}, arrays={"in": x.view(np.uint8)})["out"].tobytes(),
                        np.uint32).reshape(32, 5).astype(np.int64)
    field = (x.astype(np.int64) >> 4) & 0x7F
    assert (out[:, 0] == field).all()
    assert (out[:, 1] == np.where(field & 0x40, field | ~0x7F, field) % (1 << 32)).all()
    a, b = x.astype(np.int64) & 31, np.minimum((x.astype(np.int64) >> 5) & 63, 32)
    assert (out[:, 2] == (((1 << b) - 1) << a) % (1 << 32)).all()
    popc = np.array([bin(int(v)).count("1") for v in x])
    clz = np.array([32 - int(v).bit_length() for v in x])
    assert (out[:, 3] == popc + (clz << 8)).all()
    assert (out[:, 4] == int(x.astype(np.int64).sum()) % (1 << 32)).all()


CONSTANTS = """
__constant__ float weights[4] = {0.5f, 1.5f, -2.0f, 4.0f};
__constant__ int host_filled[8];
__global__ void scale(const float *in, float *out)
{
    extern __shared__ float buf[];
    buf[threadIdx.x] = in[threadIdx.x] * weights[threadIdx.x % 4] + host_filled[threadIdx.x % 8];
    __syncthreads();
    out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}
void go(const float *in, float *out) { scale<<<1, 64, 64 * sizeof(float)>>>(in, out); }
"""


def test_constant_arrays_and_dynamic_shared_memory(nvcc, tmp_path, monkeypatch):
    """A __constant__ array with initial values is an input holding them; one the host fills
    is an input like any other; an extern __shared__ array is the launch's dynamic bytes."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "const.cu"
    source.write_text(CONSTANTS)
    k = import_cu(str(source), Options(lengths={"in": "64", "out": "64"}))["scale"]()
    r = analyze(k, {})
    assert (r.store.requests, r.load.requests) == (2, 2) and not r.load.excess
    x = np.arange(64, dtype=np.float32)
    filled = np.arange(8, dtype=np.int32) * 10
    got = run(k, {}, arrays={"in": x.view(np.uint8), "host_filled": filled.view(np.uint8)})
    buf = x * np.tile(np.float32([0.5, 1.5, -2.0, 4.0]), 16) + np.tile(filled, 8)
    assert (np.frombuffer(got["out"].tobytes(), np.float32) == np.roll(buf, -1)).all()


TREE = """
__global__ void tree(const int *in, int *out)
{
    __shared__ int s[1024];
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (unsigned int st = blockDim.x / 2; st > 32; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x < 32) out[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x];
}
void go(const int *in, int *out) { tree<<<16, 256>>>(in, out); }
"""


def test_a_condition_read_before_its_register_is_reassigned_keeps_the_old_value(
        nvcc, tmp_path, monkeypatch):
    """nvcc tests `st > 65` on the old st and then moves st >> 1 into it (`setp %p, %s, 65;
    mov %s, %s2; @%p bra`): the predicate is the old value's, so the loop runs st = 128 and
    64: 4 + 2 warps of each block read twice and store once (the cuda-samples reduce4 the
    H200 measured at 229,376 load wavefronts counted only the first iteration when the
    predicate was substituted as an expression of the local)."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "tree.cu"
    source.write_text(TREE)
    k = import_cu(str(source), Options(lengths={"in": "4096", "out": "512"}))["tree"]()
    r = analyze(k, {})
    assert r.load.requests == 16 * (2 * (4 + 2) + 1)
    assert r.store.requests == 16 * (8 + 4 + 2)
    x = np.random.default_rng(6).integers(-100, 100, 4096).astype(np.int32)
    out = np.frombuffer(run(k, {}, arrays={"in": x.view(np.uint8)})["out"].tobytes(),
                        np.int32).reshape(16, 32)
    want = x.reshape(16, 4, 64).sum(axis=1)[:, :32]   # t, t + 64, t + 128, t + 192
    assert (out == want).all()


CUB_SUM = """
#include <cub/block/block_reduce.cuh>
__global__ void sum(const int *in, int *out)
{
    using BR = cub::BlockReduce<int, 128>;
    __shared__ typename BR::TempStorage tmp;
    int v = BR(tmp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
"""


def test_cub_through_the_command_line(nvcc, tmp_path, monkeypatch):
    """cub::BlockReduce through nvcc's build, with the launch on the command line and the
    arrays' lengths by their names (elements of their declared type): each of 4 warps of 4
    blocks stores its partial sum (16 requests), and warp 0 of each block reads the 3
    others: 3 loads in the PTX, which ptxas makes one LDS.64 and one LDS (8)."""
    from tests.test_cli import cli
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "cubsum.cu"
    source.write_text(CUB_SUM)
    code, out = cli("analyze", str(source), "--frontend", "ptx", "--launch-grid", "4",
                    "--launch-block", "128", "--length", "in=512", "--length", "out=4",
                    "--json")
    assert code == 0, out
    result = __import__("json").loads(out)["results"][0]
    assert (result["load"]["requests"], result["store"]["requests"]) == (8, 16)
    assert result["compiler_notes"] == [
        "cubsum.cu:7 (in block_reduce_warp_reductions.cuh:143): ptxas merged 2 ld.shared.u32 "
        "into 1 LDS.64 (counted as built)"]
    assert result["load"]["excess"] == 0 and result["store"]["excess"] == 0


MIXED = r"""
#include <cstdio>
#include <cuda_fp16.h>
__device__ int calls;                         // a __device__ variable: zeros, then written
__device__ float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__global__ void mixed(const __half2 *a, const __half2 *b, __half2 *c, unsigned *bits,
                      size_t n, int width)
{
    __shared__ unsigned s[64];
    unsigned t = threadIdx.x;
    c[t] = __hfma2(a[t], b[t], a[t]);        // fma.rn.f16x2
    unsigned x = (t * 2654435761u) ^ (unsigned)n;
    s[t] = __byte_perm(x, t, 0x5140) ^ (unsigned)table[t & 3];   // prmt
    __syncthreads();
    unsigned up = __shfl_up_sync(0xffffffffu, s[63 - t], 1, width);  // a width in a register
    bits[t] = up;
    if (n == 0) printf("n is %d\n", (int)n);   // printf: nothing counted reads it
    if (t == 0) atomicAdd(&calls, 1);
}
void go(const __half2 *a, const __half2 *b, __half2 *c, unsigned *bits)
{
    mixed<<<1, 64>>>(a, b, c, bits, 12345, 8);
}
"""


def test_halves_byte_permutes_register_widths_device_variables_and_printf(
        nvcc, tmp_path, monkeypatch):
    """Half-pair arithmetic, prmt, a shuffle width the kernel holds in a register, size_t
    scalars, __device__ variables and printf, each against what CUDA computes (numpy)."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "mixed.cu"
    source.write_text(MIXED)
    k = import_cu(str(source), Options(lengths={"a": "64", "b": "64", "c": "64",
                                                "bits": "64"}))["mixed"]()
    assert {p.name for p in k.params} == {"n", "width"}
    rng = np.random.default_rng(1)
    a = rng.uniform(-2, 2, 128).astype(np.float16)
    b = rng.uniform(-2, 2, 128).astype(np.float16)
    out = run(k, {}, arrays={"a": a.view(np.uint8), "b": b.view(np.uint8)})
    c = np.frombuffer(out["c"].tobytes(), np.float16)
    want = (a.astype(np.float32) * b.astype(np.float32) + a.astype(np.float32)
            ).astype(np.float16)
    assert np.array_equal(c, want)
    t = np.arange(64, dtype=np.uint64)
    x = ((t * 2654435761) % (1 << 32)) ^ 12345
    both = x | (t << 32)                       # b:a, a the low four bytes
    perm = sum(((both >> (8 * sel)) & 0xFF) << (8 * i) for i, sel in enumerate((0, 4, 1, 5)))
    s = perm ^ np.array([1, 2, 3, 4], np.uint64)[t % 4]
    src = s[63 - t]
    lane = t % 8                                # width 8: lane within its group of 8
    want_up = np.where(lane >= 1, np.roll(src, 1), src)
    assert np.array_equal(np.frombuffer(out["bits"].tobytes(), np.uint32), want_up)
    r = analyze(k)
    assert (r.store.requests, r.load.requests) == (2, 2)


STRUCT_PARAM = """
struct Op { float* out; int n; float scale; };
__global__ void k(Op op, const float* in) {
  __shared__ float s[128];
  s[threadIdx.x] = in[threadIdx.x] * op.scale;
  __syncthreads();
  if (threadIdx.x < op.n) op.out[threadIdx.x] = s[127 - threadIdx.x];
}
void go(Op op, const float* in) { k<<<1, 128>>>(op, in); }
"""


def test_a_struct_passed_by_value_is_its_fields(nvcc, tmp_path, monkeypatch):
    """A struct reaches the kernel as `.param .b8 p[16]`: each field the kernel reads is a
    parameter, named as the host's reading names the struct's fields (`op_out` the pointer,
    `op_n` the int, `op_scale` the float: the build reads as many of each kind as the
    struct declares), given with -p and --length as any other."""
    import numpy as np
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    from tests.built import run
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "st.cu"
    source.write_text(STRUCT_PARAM)
    k = import_cu(str(source), Options(lengths={"op_out": "128", "in": "512"}))["k"]()
    assert sorted(p.name for p in k.params) == ["op_n", "op_scale"]
    x = np.arange(512, dtype=np.float32)
    got = run(k, {"op_n": 100, "op_scale": 2.0}, arrays={"in": x})["op_out"]
    assert np.array_equal(got[:100], 2.0 * x[:128][::-1][:100])
    r = analyze(k, {"op_n": 100, "op_scale": 2.0})
    assert (r.store.requests, r.load.requests) == (4, 4)   # 4 warps each, in shared


DP4A = """
__global__ void dp(const int* a, const int* b, int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = __dp4a(a[threadIdx.x], b[threadIdx.x], 7);
  __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x] +
                     (int)__dp4a((unsigned)a[threadIdx.x], (unsigned)b[threadIdx.x], 1u);
}
void go(const int* a, const int* b, int* out) { dp<<<1, 64>>>(a, b, out); }
"""


def test_dp4a_signed_and_unsigned_as_the_isa_defines_it(nvcc, tmp_path, monkeypatch):
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "dp.cu"
    source.write_text(DP4A)
    k = import_cu(str(source), Options(lengths={"a": "64", "b": "64", "out": "64"}))["dp"]()
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-2**31, 2**31, 64).astype(np.int32) for _ in range(2))
    got = np.frombuffer(run(k, {}, arrays={"a": a.view(np.uint8), "b": b.view(np.uint8)})
                        ["out"].tobytes(), np.int32)

    def dp4a(x, y, c, signed):
        x, y = int(x) & 0xFFFFFFFF, int(y) & 0xFFFFFFFF
        for i in range(4):
            xi, yi = (x >> 8 * i) & 255, (y >> 8 * i) & 255
            if signed:
                xi, yi = xi - 256 * (xi >= 128), yi - 256 * (yi >= 128)
            c += xi * yi
        return c
    want = [(dp4a(a[63 - t], b[63 - t], 7, True) + dp4a(a[t], b[t], 1, False) + 2**31)
            % 2**32 - 2**31 for t in range(64)]
    assert got.tolist() == want


def test_a_kernel_in_an_anonymous_namespace_keeps_its_name():
    """c++filt writes `(anonymous namespace)::k(int*)`: that parenthesis is the name's (the
    kernel was nameless: mistral.rs's moe_align_block_size_kernel)."""
    from smemsim.frontends.ptx.frontend import _signature_name
    assert _signature_name("(anonymous namespace)::moe_align(int*, int)") == \
        "(anonymous namespace)::moe_align"
    assert _signature_name("void ns::(anonymous namespace)::f<(anonymous namespace)::T>"
                           "(int)") == "ns::(anonymous namespace)::f<(anonymous namespace)::T>"
    assert _signature_name("void k<1, 2>(int*, float)") == "k<1, 2>"


def test_a_call_operators_name_keeps_its_parentheses_and_overloads_their_parameters():
    """The fifteenth review: a functor's `operator()` read as `...::operator`, and two
    overloads of it (one name) kept their mangled symbols in the call chains."""
    import shutil
    from smemsim.frontends.ptx.frontend import _signature_name, readable
    assert _signature_name("Mul<float, 3ul>::operator()(float&) const") == \
        "Mul<float, 3ul>::operator()"
    if shutil.which("c++filt") is None:
        pytest.skip("c++filt (binutils) is not installed")
    # StaticMatrixMultiplierPrefixStable<float, 3>::operator() of djhshih/quist, both overloads
    one, two = "_ZNK34StaticMatrixMultiplierPrefixStableIfLm3EEclERfRKfb", \
        "_ZNK34StaticMatrixMultiplierPrefixStableIfLm3EEclERf"
    assert readable([one, two]) == {
        one: "StaticMatrixMultiplierPrefixStable<float, 3ul>::operator()(float&, float const&, "
             "bool) const",
        two: "StaticMatrixMultiplierPrefixStable<float, 3ul>::operator()(float&) const"}


def test_a_kernel_the_host_side_cannot_launch_asks_for_its_launch_and_fields(
        nvcc, tmp_path, monkeypatch):
    """A template instantiated explicitly, launched nowhere in the file: the answer names
    the kernel and the parameters to give, as its declaration names them (a struct's fields
    by their offsets), and those names launch it."""
    from kernels_ir import KernelError
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "st2.cu"
    source.write_text(STRUCT_PARAM.replace("__global__ void k(", "template <int B> "
                                           "__global__ void k(").replace(
        "void go(Op op, const float* in) { k<<<1, 128>>>(op, in); }",
        "template __global__ void k<3>(Op, const float*);"))
    with pytest.raises(KernelError, match=r"kernel 'k<3>': smemsim cannot read the host side "
                                          r".*give its launch with --launch-grid and "
                                          r"--launch-block, and its parameters \(op_0, op_8, "
                                          r"op_12, in\)"):
        for make in import_cu(str(source), Options()).values():
            make()
    given = Options(grid="1", block="128", params={"op_8": 100, "op_12": 1.0},
                    lengths={"op_0": "512", "in": "512"})
    (k,) = [make() for make in import_cu(str(source), given).values()]
    r = analyze(k)
    assert {p.name for p in k.params} >= {"op_8"} and (r.load.requests, r.store.requests) == \
        (4, 4)   # 4 warps: s[127 - t] read by the 100 threads below op.n (warps 0-3), stored by all


MULHI_BFIND = """
__device__ unsigned bfind(unsigned x) { unsigned r; asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ unsigned bfind_s(int x) { unsigned r; asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ unsigned shiftamt64(unsigned long long x) {
  unsigned r; asm("bfind.shiftamt.u64 %0, %1;" : "=r"(r) : "l"(x)); return r; }
__global__ void hi(const long long* a, const long long* b, long long* out, unsigned* bits) {
  __shared__ long long s[4 * 64];
  int t = threadIdx.x;
  long long x = a[t], y = b[t];
  s[4 * t] = __mul64hi(x, y);
  s[4 * t + 1] = (long long)__umul64hi((unsigned long long)x, (unsigned long long)y);
  s[4 * t + 2] = __mulhi((int)x, (int)y);
  s[4 * t + 3] = __umulhi((unsigned)x, (unsigned)y);
  __syncthreads();
  for (int i = 0; i < 4; i++) out[4 * t + i] = s[4 * t + i];
  bits[3 * t] = bfind((unsigned)x >> (t % 33 == 32 ? 0 : t % 33));
  bits[3 * t + 1] = bfind_s((int)y);
  bits[3 * t + 2] = shiftamt64((unsigned long long)x >> (t % 64));
}
void go(const long long* a, const long long* b, long long* out, unsigned* bits) {
  hi<<<1, 64>>>(a, b, out, bits);
}
"""


def test_mul_hi_and_bfind_as_the_isa_defines_them(nvcc, tmp_path, monkeypatch):
    """mul.hi of 32 and 64 bits, signed and unsigned (the high half of the double-width
    product), and bfind (the most significant bit's position, of a non-sign bit for .s32;
    .shiftamt: the shift bringing it to the top; 0xffffffff for none), against Python's
    exact integers."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "hi.cu"
    source.write_text(MULHI_BFIND)
    k = import_cu(str(source), Options(lengths={"a": "64", "b": "64", "out": "256",
                                                "bits": "192"}))["hi"]()
    rng = np.random.default_rng(5)
    a, b = (rng.integers(-2**63, 2**63, 64, dtype=np.int64) for _ in range(2))
    a[:3], b[:3] = [0, -1, 2**63 - 1], [5, -1, -2**63]
    result = run(k, {}, arrays={"a": a.view(np.uint8), "b": b.view(np.uint8)})
    got = np.frombuffer(result["out"].tobytes(), np.int64).reshape(64, 4)
    bits = np.frombuffer(result["bits"].tobytes(), np.uint32).reshape(64, 3)

    def signed(v, n):
        v &= (1 << n) - 1
        return v - (1 << n) if v >> (n - 1) else v

    def msb(v):
        return v.bit_length() - 1 if v else 0xFFFFFFFF
    for t in range(64):
        x, y = int(a[t]), int(b[t])
        ux, uy = x & (2**64 - 1), y & (2**64 - 1)
        assert got[t].tolist() == [
            (x * y) >> 64, signed((ux * uy) >> 64, 64),
            signed((signed(x, 32) * signed(y, 32)) >> 32, 32),
            ((x & 0xFFFFFFFF) * (y & 0xFFFFFFFF)) >> 32], t   # (unsigned: zero-extended)
        shifted = (x & 0xFFFFFFFF) >> (0 if t % 33 == 32 else t % 33)
        y32 = signed(y, 32)
        top = ux >> (t % 64)
        assert bits[t].tolist() == [msb(shifted), msb(~y32 if y32 < 0 else y32),
                                    63 - msb(top) if top else 0xFFFFFFFF], t


CHOICE = """
__global__ void pick(const int* a, const int* b, const int* mask, int* out, int n) {
  __shared__ int s[128];
  int t = threadIdx.x;
  const int* p = t < n ? a + t : b + (t - n);     // one pointer, two arrays
  const int* m = mask ? mask + t : nullptr;       // an array or null
  const int* q;                                   // the same, as one selp
  asm("{ .reg .pred c; setp.lt.s32 c, %3, %4; selp.b64 %0, %1, %2, c; }"
      : "=l"(q) : "l"(a + t), "l"(b + (t - n)), "r"(t), "r"(n));
  int v = *p - *q;
  if (m) v += *m;
  s[t ^ 1] = v;
  __syncthreads();
  out[t] = s[t];
}
void go(const int* a, const int* b, const int* mask, int* out) { pick<<<1, 128>>>(a, b, mask, out, 40); }
"""


def test_a_pointer_to_one_of_two_arrays_reads_the_side_each_thread_chose(
        nvcc, tmp_path, monkeypatch):
    """`p = t < n ? a + t : b + (t - n)` is one `selp.b64` of two arrays' addresses
    (moderngpu's merge reads a_keys or b_keys so), and `mask ? mask + t : nullptr` one of
    an array's and null: each load through them reads what the thread chose."""
    import numpy as np
    from kernels_ir import run
    from smemsim import analyze
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "pick.cu"
    source.write_text(CHOICE)
    k = import_cu(str(source), Options(lengths={"a": "128", "b": "128", "mask": "128",
                                                "out": "128"}))["pick"]()
    a = np.arange(128, dtype=np.int32) * 10
    b = np.arange(128, dtype=np.int32) * 1000
    mask = np.arange(128, dtype=np.int32) + 1
    out = np.frombuffer(run(k, {}, arrays={"a": a.view(np.uint8), "b": b.view(np.uint8),
                                           "mask": mask.view(np.uint8)})["out"].tobytes(),
                        np.int32)
    v = mask   # *p - *q: the same element
    assert out.tolist() == v[np.arange(128) ^ 1].tolist()
    r = analyze(k)
    assert (r.store.requests, r.load.requests) == (4, 4)   # the shared accesses: 4 warps


STACK = """
__global__ void stack(const float* in, float* out, const int* pick) {
  __shared__ float s[256];
  float acc[16];
  int t = threadIdx.x;
  for (int i = 0; i < 16; i++) acc[i] = in[t * 16 + i];
  s[t] = acc[pick[t] & 15];          // a dynamic index: the array lives on the stack
  __syncthreads();
  out[t] = s[(t * 2) % 256];
}
void go(const float* in, float* out, const int* pick) { stack<<<1, 256>>>(in, out, pick); }
"""


def test_a_stack_array_read_at_a_run_time_index_holds_what_was_stored(
        nvcc, tmp_path, monkeypatch):
    """`float acc[16]` indexed at run time lives in the stack (`st.local.v4.f32`, then
    `ld.local.f32 [%rd16]`): each thread reads back the element it chose; the shared
    accesses count as written (8 warps; the stride-2 reads 2 wavefronts each)."""
    import numpy as np
    from kernels_ir import run
    from smemsim import analyze
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "stack.cu"
    source.write_text(STACK)
    k = import_cu(str(source), Options(lengths={"in": "4096", "out": "256",
                                                "pick": "256"}))["stack"]()
    inp = np.random.default_rng(1).standard_normal(4096).astype(np.float32)
    pick = np.random.default_rng(2).integers(0, 100, 256).astype(np.int32)
    out = np.frombuffer(run(k, {}, arrays={"in": inp.view(np.uint8),
                                           "pick": pick.view(np.uint8)})["out"].tobytes(),
                        np.float32)
    chosen = inp.reshape(256, 16)[np.arange(256), pick & 15]
    assert np.array_equal(out, chosen[(np.arange(256) * 2) % 256])
    r = analyze(k)
    assert (r.store.requests, r.store.wavefronts, r.load.requests, r.load.wavefronts) == \
        (8, 8, 8, 16)


LANEMASKS = """
__device__ unsigned mask(int which) {
  unsigned m;
  switch (which) {
    case 0: asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m)); break;
    case 1: asm("mov.u32 %0, %%lanemask_le;" : "=r"(m)); break;
    case 2: asm("mov.u32 %0, %%lanemask_eq;" : "=r"(m)); break;
    case 3: asm("mov.u32 %0, %%lanemask_ge;" : "=r"(m)); break;
    default: asm("mov.u32 %0, %%lanemask_gt;" : "=r"(m)); break;
  }
  return m;
}
__global__ void masks(unsigned* out) {
  __nanosleep(100);
  for (int w = 0; w < 5; w++) out[5 * threadIdx.x + w] = mask(w);
}
void go(unsigned* out) { masks<<<1, 64>>>(out); }
"""


def test_lane_masks_and_a_sleep_as_the_isa_defines_them(nvcc, tmp_path, monkeypatch):
    """%lanemask_lt/le/eq/ge/gt: the lanes below, up to, at, from, above the thread's own
    (PTX ISA, special registers); __nanosleep is time only (cub's look-back spins so)."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "masks.cu"
    source.write_text(LANEMASKS)
    k = import_cu(str(source), Options(lengths={"out": "320"}))["masks"]()
    got = np.frombuffer(run(k, {})["out"].tobytes(), np.uint32).reshape(64, 5)
    full = 0xFFFFFFFF
    for t in range(64):
        lane = t % 32
        lt = (1 << lane) - 1
        assert got[t].tolist() == [lt, lt | 1 << lane, 1 << lane, full & ~lt,
                                   full & ~(lt | 1 << lane)], t


def test_8bit_float_conversions_give_what_the_h200_gives(nvcc, tmp_path, monkeypatch):
    """cvt.rn.satfinite.{e4m3,e5m2}x2.f32 of 8,192 floats (ties, the largest finite values
    and beyond, infinities, NaN, subnormals, every binade) and cvt.rn.f16x2.{e4m3,e5m2}x2
    of every code: smemsim's interpreter of tools/probes/fp8/fp8_conversions.cu's kernel,
    through its PTX, against what an H200 computed of the same file
    (tests/data/fp8_h200.json, the probe's own main())."""
    import json
    import pathlib
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    root = pathlib.Path(__file__).resolve().parent.parent
    probe = root / "tools" / "probes" / "fp8" / "fp8_conversions.cu"
    want = json.loads((root / "tests" / "data" / "fp8_h200.json").read_text())
    opts = Options(defines={"SMEMSIM_KERNEL_ONLY": "1"}, lengths={
        "x": "8192", "enc4": "4096", "enc5": "4096", "dec4": "256", "dec5": "256"},
        grid="16", block="256", params={"n": 4096})
    k = import_cu(str(probe), opts)["conv"]()
    x = np.array(want["x_bits"], np.uint32).view(np.float32)
    out = run(k, {"n": 4096}, arrays={"x": x.view(np.uint8)})
    got = {name: np.frombuffer(out[name].tobytes(), dtype).tolist()
           for name, dtype in (("enc4", np.uint16), ("enc5", np.uint16),
                               ("dec4", np.uint32), ("dec5", np.uint32))}
    for name in ("enc4", "enc5", "dec4", "dec5"):
        bad = [i for i, (a, b) in enumerate(zip(got[name], want[name])) if a != b]
        assert not bad, (name, bad[:5], [got[name][i] for i in bad[:5]],
                         [want[name][i] for i in bad[:5]])


SHIFTS = """
__global__ void shifts(const int* a, const unsigned* n, int* out) {
  int t = threadIdx.x;
  int x = a[t]; unsigned k = n[t]; int l, r, s;
  asm("shl.b32 %0, %1, %2;" : "=r"(l) : "r"(x), "r"(k));
  asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(k));
  asm("shr.s32 %0, %1, %2;" : "=r"(s) : "r"(x), "r"(k));
  out[3 * t] = l; out[3 * t + 1] = r; out[3 * t + 2] = s;
}
void go(const int* a, const unsigned* n, int* out) { shifts<<<1, 64>>>(a, n, out); }
"""


def test_shifts_by_a_register_clamp_as_the_isa_defines_them(nvcc, tmp_path, monkeypatch):
    """`shl`/`shr` by 32 or more (an amount in a register: moderngpu's merge sort computes
    -53 as one) shift every bit out, `shr.s32` filling with the sign (PTX ISA: amounts
    are clamped to the width), where C would leave it undefined."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "shifts.cu"
    source.write_text(SHIFTS)
    k = import_cu(str(source), Options(lengths={"a": "64", "n": "64", "out": "192"}))["shifts"]()
    a = np.random.default_rng(7).integers(-2**31, 2**31, 64).astype(np.int32)
    n = np.array([0, 1, 5, 31, 32, 33, 100, 2**32 - 53] * 8, np.uint32)
    got = np.frombuffer(run(k, {}, arrays={"a": a.view(np.uint8), "n": n.view(np.uint8)})
                        ["out"].tobytes(), np.int32).reshape(64, 3)
    for t in range(64):
        x, k_ = int(a[t]), min(int(n[t]), 32)
        u = x & 0xFFFFFFFF
        want = [((u << k_) & 0xFFFFFFFF), u >> k_, x >> k_]
        assert [v & 0xFFFFFFFF for v in got[t].tolist()] == [w & 0xFFFFFFFF for w in want], t


SYNC_REDUCE = """
__global__ void syncred(const int* a, int* out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = a[t];
  int any = __syncthreads_or(a[t] > 50);
  int all = __syncthreads_and(a[t] >= 0);
  int cnt = __syncthreads_count(a[t] % 3 == 0);
  out[t] = any + 10 * all + 100 * cnt + s[(t * 2) % 256];
}
void go(const int* a, int* out) { syncred<<<1, 256>>>(a, out); }
"""


def test_reducing_barriers_give_every_thread_the_blocks_answer(nvcc, tmp_path, monkeypatch):
    """`bar.red.or.pred`, `bar.red.and.pred`, `bar.red.popc.u32` (__syncthreads_or, _and,
    _count): a barrier, and each thread gets the block's OR, AND, count of predicates."""
    import numpy as np
    from kernels_ir import run
    from smemsim import analyze
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "syncred.cu"
    source.write_text(SYNC_REDUCE)
    k = import_cu(str(source), Options(lengths={"a": "256", "out": "256"}))["syncred"]()
    for seed in (3, 4):
        a = np.random.default_rng(seed).integers(-5 * (seed == 3), 51 + 9 * (seed == 3),
                                                 256).astype(np.int32)
        out = np.frombuffer(run(k, {}, arrays={"a": a.view(np.uint8)})["out"].tobytes(),
                            np.int32)
        block = int((a > 50).any()) + 10 * int((a >= 0).all()) + 100 * int((a % 3 == 0).sum())
        assert out.tolist() == [block + int(a[(t * 2) % 256]) for t in range(256)]
    r = analyze(k)
    assert (r.store.requests, r.load.requests, r.load.wavefronts) == (8, 8, 16)


PARAM_ADDRESS = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k(
	.param .align 8 .b8 k_param_0[24],
	.param .u64 k_param_1
)
{
	.reg .b16 	%rs<3>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<12>;
	.shared .align 8 .b8 _ZZ1kE1s[1024];
	.loc	1 5 3
	mov.b64 	%rd1, k_param_0;
	ld.param.u8 	%rs1, [%rd1];
	add.s64 	%rd2, %rd1, 8;
	ld.param.u64 	%rd3, [%rd2+8];
	mov.u32 	%r1, %tid.x;
	cvt.u64.u32 	%rd4, %r1;
	cvt.u64.u16 	%rd5, %rs1;
	add.s64 	%rd6, %rd3, %rd5;
	add.s64 	%rd7, %rd6, %rd4;
	shl.b32 	%r2, %r1, 3;
	mov.u32 	%r3, _ZZ1kE1s;
	add.s32 	%r4, %r3, %r2;
	.loc	1 6 3
	st.shared.u64 	[%r4], %rd7;
	ld.param.u64 	%rd8, [k_param_1];
	cvta.to.global.u64 	%rd9, %rd8;
	shl.b64 	%rd10, %rd4, 3;
	add.s64 	%rd11, %rd9, %rd10;
	st.global.u64 	[%rd11], %rd7;
	ret;
}
	.file	1 "/src/k.cu"
"""


def test_a_struct_read_through_its_own_address_is_its_fields():
    """cub's DeviceSelectSweepKernel takes its by-value struct's address (`mov.b64 %rd1,
    k_param_0`) and reads fields through it (`ld.param.u8 [%rd1]`, `[%rd2+8]` with %rd2 =
    %rd1 + 8): those are the fields at bytes 0 and 16, parameters as any struct's fields;
    each thread stores field16 + field0 + tid."""
    import numpy as np
    from kernels_ir import run
    k = lower(parse(PARAM_ADDRESS), "k", Launch(grid=(1,), block=(128,),
                                                names=("op", "out"), lengths={"out": 1024}))
    assert sorted(p.name for p in k.params) == ["op_0", "op_16"]
    r = analyze(k, {"op_0": 1, "op_16": 1000})
    assert (r.store.requests, r.store.wavefronts) == (4, 8)   # 8-byte stores: 2 a warp
    out = run(k, {"op_0": 3, "op_16": 1000})
    assert np.array_equal(out["out"].view(np.int64), 1003 + np.arange(128))


def test_a_parameters_address_used_otherwise_is_refused_at_its_line():
    """The same address handed on (to `cvta.param`, a call) is not a field read: refused."""
    text = PARAM_ADDRESS.replace("\tld.param.u8 \t%rs1, [%rd1];",
                                 "\tcvta.param.u64 \t%rd9, %rd1;\n\tld.param.u8 \t%rs1, [%rd1];")
    with pytest.raises(PtxError, match=r"k.cu:5:3: PTX line \d+ \(`mov.b64`\)"):
        lower(parse(text), "k", Launch(grid=(1,), block=(128,), names=("op", "out")))


TEXTURES = """
__global__ void fetch(cudaTextureObject_t img, cudaTextureObject_t lut, float *out, int n)
{
    __shared__ float tile[8][9];
    int x = blockIdx.x * 8 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = tex2D<float>(img, x + 0.5f, y - 3.5f) +
                                     (float)tex1Dfetch<int>(lut, x * 2 - 1);
    __syncthreads();
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
void go(cudaTextureObject_t img, cudaTextureObject_t lut, float *out)
{
    fetch<<<dim3(2, 2), dim3(8, 8)>>>(img, lut, out, 16);
}
"""


def test_texture_objects_read_as_their_texels(nvcc, tmp_path, monkeypatch):
    """`tex.2d` and `tex.1d` of texture object parameters (cuda-samples' dct8x8 fetches this
    way) read the arrays of their texels as the CUDA frontend reads them: the 2-D texel at
    (floor x, floor y) clamped to the extent `--texture img=16,16` gives, the 1-D texel i or
    0 outside `--texture lut=20`. A 2 x 2 grid of 2 warps, each warp 4 rows of 8 threads:
    8 loads, 8 stores. The 9-word rows do not spare this warp shape: its store's words ty*9
    + tx run to 34 for ty = 3, on banks 0-2 that row 0 holds; its read tx*9 + ty likewise
    (tx = 7: words 63-66): 2 wavefronts a request."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "tex.cu"
    source.write_text(TEXTURES)
    k = import_cu(str(source), Options(textures={"img": "16,16", "lut": "20"},
                                       lengths={"out": "256"}))["fetch"]()
    img = np.arange(256, dtype=np.float32).reshape(16, 16)
    lut = (np.arange(20, dtype=np.int32) + 1) * 100
    out = run(k, {"n": 16}, arrays={"img": img.reshape(-1), "lut": lut})["out"]
    y, x = np.mgrid[0:16, 0:16]
    texel = img[np.clip(y - 4, 0, 15), x]          # floor(y - 3.5) = y - 4, clamped
    i = x * 2 - 1
    fetched = np.where((i >= 0) & (i < 20), lut[np.clip(i, 0, 19)], 0)
    tile = (texel + fetched).astype(np.float32)
    # each block stores its 8 x 8 tile transposed
    want = np.empty((16, 16), np.float32)
    for by in range(2):
        for bx in range(2):
            block = tile[by * 8:by * 8 + 8, bx * 8:bx * 8 + 8]
            want[by * 8:by * 8 + 8, bx * 8:bx * 8 + 8] = block.T
    assert np.array_equal(out.view(np.float32).reshape(16, 16), want)
    r = analyze(k, {"n": 16})
    assert (r.load.requests, r.load.wavefronts, r.store.requests, r.store.wavefronts) == \
        (8, 16, 8, 16)


HALF_ATOMICS = """
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void acc(__half2 *h, __nv_bfloat162 *b, const float *x)
{
    __shared__ float s[64];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    float v = s[63 - threadIdx.x];
    __half2 old = atomicAdd(&h[threadIdx.x % 4], __floats2half2_rn(v, 2.0f * v));
    atomicAdd(&b[threadIdx.x % 2], __floats2bfloat162_rn(1.0f, 2.0f));
    if (__low2float(old) < 0.0f) s[threadIdx.x] = 0.0f;
}
void go(__half2 *h, __nv_bfloat162 *b, const float *x) { acc<<<1, 64>>>(h, b, x); }
"""


def test_atomic_adds_of_half_pairs_add_each_half(nvcc, tmp_path, monkeypatch):
    """`atomicAdd(__half2*)` and `(__nv_bfloat162*)` on global memory (`atom.global.add.
    noftz.f16x2`, `red...bf16x2`: mistral.rs's GPTQ GEMM accumulates so) add each half of
    the word: 64 threads, 16 a half2 word adding values 0..63 (sums to 1,008, exact in
    f16's 11 bits at any order) and twice them, 32 a bfloat162 word adding 1 and 2 (exact
    in bf16's 8 bits)."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "half.cu"
    source.write_text(HALF_ATOMICS)
    k = import_cu(str(source), Options(lengths={"h": "4", "b": "2", "x": "64"}))["acc"]()
    x = np.arange(64, dtype=np.float32)
    out = run(k, {}, arrays={"x": x.view(np.uint8), "h": np.zeros(16, np.uint8),
                             "b": np.zeros(8, np.uint8)})
    h = out["h"].view(np.float16).reshape(4, 2)
    v = x[::-1]
    assert np.array_equal(h[:, 0], [v[t::4].sum() for t in range(4)])
    assert np.array_equal(h[:, 1], [2 * v[t::4].sum() for t in range(4)])
    b = (out["b"].view(np.uint16).astype(np.uint32) << 16).view(np.float32).reshape(2, 2)
    assert np.array_equal(b, [[32.0, 64.0], [32.0, 64.0]])


GRID_SYNC = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void rotate(int *slots, int *out)
{
    __shared__ int s[64];
    cg::grid_group grid = cg::this_grid();
    s[threadIdx.x] = blockIdx.x * 100 + threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) slots[blockIdx.x] = s[63];
    grid.sync();
    out[blockIdx.x * 64 + threadIdx.x] = slots[(blockIdx.x + 1) % gridDim.x] + s[threadIdx.x];
}
void go(int *slots, int *out) { rotate<<<4, 64>>>(slots, out); }
"""


def test_a_grid_barrier_of_cooperative_groups_is_the_irs(nvcc, tmp_path, monkeypatch):
    """`this_grid().sync()` (cuda-samples' reductionMultiBlockCG: a check of the grid
    workspace `%envreg1/2` names, a block barrier, thread 0's release-add and acquire spin, a
    block barrier) is the IR's grid barrier: each block reads what the next block wrote
    before it, which only a barrier across the grid makes sure of."""
    import numpy as np
    from kernels_ir import run
    from kernels_ir.stmt import Sync, walk
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "grid.cu"
    source.write_text(GRID_SYNC)
    k = import_cu(str(source), Options(lengths={"slots": "4", "out": "256"}))["rotate"]()
    assert sum(isinstance(s, Sync) and s.grid for s in walk(k.body)) == 1
    out = run(k, {})["out"].view(np.int32).reshape(4, 64)
    nxt = (np.arange(4) + 1) % 4
    assert np.array_equal(out, (nxt * 100 + 63)[:, None] + np.arange(4)[:, None] * 100 +
                          np.arange(64))
    r = analyze(k, {})
    assert (r.store.requests, r.load.requests) == (8, 12)   # 2 warps x 4 blocks; +1 each


WMMA = """
#include <mma.h>
using namespace nvcuda;
__global__ void k(const half *a, const half *b, float *c)
{
    __shared__ half sa[16 * 24];
    __shared__ half sb[16 * 16];
    __shared__ float sc[16 * 16];
    for (int i = threadIdx.x; i < 16 * 24; i += 32) sa[i] = a[i];
    for (int i = threadIdx.x; i < 16 * 16; i += 32) sb[i] = b[i];
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, sa, 24);
    wmma::load_matrix_sync(fb, sb, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(sc, fc, 16, wmma::mem_row_major);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += 32) c[i] = sc[i];
}
void go(const half *a, const half *b, float *c) { k<<<1, 32>>>(a, b, c); }
"""


def test_wmma_is_what_sm90s_sass_makes_of_it(nvcc, tmp_path, monkeypatch):
    """`wmma.load.a.row` / `.b.col` of m16n16k16 halves from shared memory, `wmma.mma`,
    `wmma.store.d.row` of f32: one LDSM.x4 a fragment, two m16n8k16 products, four STS.64 a
    lane (nvdisasm of nvcc 13's sm_90 build). The product equals numpy's. Costs: A's rows 48
    bytes apart meet no bank twice (4 wavefronts, one a matrix); B's 32 bytes apart meet
    rows r and r + 4 (8); each STS.64 of a half-warp's 4 rows 64 bytes apart: 2 rows a bank,
    4 wavefronts. cuda_hgemm's wmmaPaddingKernel, counted so, equals the H200's every counter
    (docs/validation.md)."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "wmma.cu"
    source.write_text(WMMA)
    k = import_cu(str(source), Options(lengths={"a": "384", "b": "256", "c": "256"}))["k"]()
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 4, (16, 24)).astype(np.float16)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float16)        # column major: b[n][k]
    out = run(k, {}, arrays={"a": a.reshape(-1).view(np.uint8),
                             "b": b.reshape(-1).view(np.uint8)})["c"]
    want = a[:, :16].astype(np.float32) @ b.astype(np.float32).T
    assert np.array_equal(out.view(np.float32).reshape(16, 16), want)
    r = analyze(k, {})
    by_line = {}
    for site in r.sites:
        by_line.setdefault(site.loc.line, []).append((site.requests, site.wavefronts))
    assert by_line[16] == [(1, 4)] and by_line[17] == [(1, 8)]
    assert by_line[19] == [(1, 4)] * 4
    # (the copy loops: ptxas runs them in blocks of 4, 2 and 1 iterations; every lane has
    # the same trip count here, so the counts are the PTX loop's)
    assert [n.split(":")[1] for n in k.notes] == ["9", "10", "21"], k.notes
    assert all("ptxas runs this loop in blocks of 4 iterations" in n for n in k.notes)


CUDA_BARRIER = ROOT / "tests" / "data" / "cuda_barrier.cu"


def test_cuda_barrier_with_memcpy_async_of_4_and_16_bytes(nvcc, tmp_path, monkeypatch):
    """libcu++'s `cuda::barrier` (sgemm_cuda's kernel 12): `init` is mbarrier.init,
    `memcpy_async` of 4 bytes a cp.async with cp.async.mbarrier.arrive, of 16 bytes (sm_90) a
    1-D bulk copy with its expect_tx, `arrive_and_wait` and `wait(arrive())` an arrival whose
    state (the phase arrived on) the try_wait loop waits for: the copies land before the
    reads, and each block's two phases complete."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "bar.cu"
    source.write_text(CUDA_BARRIER.read_text())
    k = import_cu(str(source), Options(lengths={"a": "256", "b": "256",
                                                "out": "256"}))["stage"]()
    a = np.arange(256, dtype=np.float32)
    b = (np.arange(1024, dtype=np.float32) * 10).reshape(256, 4)
    out = run(k, {}, arrays={"a": a.view(np.uint8), "b": b.view(np.uint8),
                             "out": np.zeros(1024, np.uint8)})["out"].view(np.float32)
    src = np.concatenate([127 - np.arange(128), 255 - np.arange(128)])
    assert np.array_equal(out, a[src] + b[src, 0] + b[src, 3])
    r = analyze(k, {})
    classes = dict(r.classes)
    assert classes["ldgsts"].requests == 8      # 4 warps x 2 blocks, one cp.async each
    assert classes["tma_ld"].requests == 256    # one bulk copy per thread
    # `sb[127 - t]` of which only .x and .w are read: ptxas loads those two (2 LDS a warp,
    # each 4 bytes at a 16-byte stride: 4 wavefronts), not the float4 the PTX states
    assert (r.load.requests, r.load.wavefronts) == (8 * 2 + 8, 8 * 2 * 4 + 8)
    assert any("ptxas loads only the elements that are used (1 ld.shared.v4.f32 as 2 LDS"
               in n for n in k.notes)


COUNTED = """
__global__ void strided(const float *in, float *out, int n, int m)
{
    __shared__ float s[1024];
    for (int i = threadIdx.x; i < 1024; i += 128) s[i] = 0;
    __syncthreads();
    float acc = 0;
    for (int i = blockIdx.x * 128 + threadIdx.x; i < n; i += gridDim.x * 128)
        acc += in[i];
    for (int j = m; j > 0; j -= 3)
        s[(threadIdx.x * 2 + j) % 1024] += acc;
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = s[threadIdx.x * 8 % 1024];
}
void go(const float *in, float *out) { strided<<<4, 128>>>(in, out, 5000, 10); }
"""


def test_loops_nvcc_rotates_are_counted_loops_of_the_ir(nvcc, tmp_path, monkeypatch):
    """nvcc's rotated loops (a do-while testing an induction register against a value the
    loop keeps: a constant step, a grid-stride step held in a register, a count down) are
    the IR's counted loops: their trip counts have a closed form, and each induction
    register is its value at entry plus the iterations' steps; the outputs are numpy's."""
    import numpy as np
    from kernels_ir import run
    from kernels_ir.stmt import Loop, walk
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "counted.cu"
    source.write_text(COUNTED)
    k = import_cu(str(source), Options(lengths={"in": "5000", "out": "512"}))["strided"]()
    loops = [s for s in walk(k.body) if isinstance(s, Loop)]
    assert loops and all(s.counted for s in loops), [str(s.cond) for s in loops]
    data = np.arange(5000, dtype=np.float32) % 7
    out = run(k, {}, arrays={"in": data.view(np.uint8)})["out"].view(np.float32)
    acc = np.array([data[b * 128 + t::512].sum() for b in range(4) for t in range(128)],
                   np.float32).reshape(4, 128)
    want = np.zeros((4, 128), np.float32)
    for b in range(4):
        s = np.zeros(1024, np.float32)
        for t in range(128):
            for j in (10, 7, 4, 1):
                s[(t * 2 + j) % 1024] += acc[b, t]
        want[b] = s[np.arange(128) * 8 % 1024]
    assert np.allclose(out.reshape(4, 128), want)
    r = analyze(k, {})
    # each of the 4 warps of 4 blocks: 8 stores of zeros, 4 iterations of `s[..] += acc`
    # (a load and a store each), the final read
    assert (r.store.requests, r.load.requests) == (4 * 4 * (8 + 4), 4 * 4 * (4 + 1))


def test_a_launch_expression_reads_sizeof_and_refuses_what_it_does_not_read():
    """`--launch-smem '3 * Bc * d * sizeof(float)'` (flash-attention-minimal's launch) where
    the host side cannot be read; anything left over or unknown is a located refusal."""
    from kernels_ir.dtypes import i32
    from kernels_ir.expr import const
    from smemsim.frontends.cuda.symbols import fold
    from smemsim.frontends.ptx.operands import eval_names
    names = {"Bc": const(32, i32), "d": const(64, i32), "Br": const(32, i32)}
    e = eval_names("(3 * Bc * d * sizeof(float)) + (Bc * Br * sizeof(float4))", names)
    assert fold(e) == 3 * 32 * 64 * 4 + 32 * 32 * 16
    for text, why in [("(3", "ends early"), ("3 )", "')' is not read"),
                      ("sizeof(struct X)", "sizeof(struct X): not a type"),
                      ("n * 4", "'n' is not a parameter name")]:
        with pytest.raises(PtxError, match=re.escape(why)):
            eval_names(text, names)


def test_as_compiled_on_the_ptx_path_is_accepted_and_adds_nothing(nvcc, tmp_path,
                                                                  monkeypatch):
    """The PTX frontend counts nvcc's build already (ptxas's merges from its SASS):
    `--as-compiled` is accepted, says so, and changes no count."""
    import json
    import sys
    sys.path.insert(0, str(ROOT / "tests"))
    from test_cli import cli
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    argv = ["analyze", str(TRANSPOSE_CU), "--frontend", "ptx"]
    code, out = cli(*argv, "--as-compiled", width=300)
    assert code == 0 and "--as-compiled adds nothing here: a .cu is counted as nvcc builds " \
        "it already" in out
    plain = json.loads(cli(*argv, "--json")[1])["results"][0]
    again = json.loads(cli(*argv, "--as-compiled", "--json")[1])["results"][0]
    assert plain["sites"] == again["sites"] and plain["sites"][1]["wavefronts"] == 65_536


def test_a_file_that_is_no_file_or_that_nvcc_cannot_build_is_one_line(nvcc, tmp_path,
                                                                      monkeypatch):
    """As the C++ reading says them: a missing file, a folder; nvcc's failure as its first
    error, located at the user's line, on one line."""
    import sys
    sys.path.insert(0, str(ROOT / "tests"))
    from test_cli import cli_streams
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir.cu").mkdir()
    (tmp_path / "needs.cu").write_text("#include <missing_header.h>\n" + TRANSPOSE_CU.read_text())
    for name, said in [("missing.cu", "error: no such file: missing.cu\n"),
                       ("adir.cu", "error: adir.cu is a folder, not a file smemsim reads\n")]:
        code, out, err = cli_streams("analyze", name, "--frontend", "ptx")
        assert (code, out, err) == (2, "", said)
    code, out, err = cli_streams("analyze", "needs.cu", "--frontend", "ptx")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: nvcc could not build the file: ") and \
        "needs.cu:1:10: fatal error: missing_header.h" in err


def test_a_tma_copy_through_a_tensor_map_parameter(nvcc, tmp_path, monkeypatch):
    """`cp.async.bulk.tensor.2d` through a `const __grid_constant__ CUtensorMap` parameter
    (--tensor-map describes it, over the kernel's own pointer A), completing on a
    `cuda::barrier` whose tokens come from arrive and arrive_tx: the tile lands before the
    reads, the outputs are numpy's and the counts the C++ reading's."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    cu = ROOT / "tests" / "cuda" / "tma_over_param.cu"
    opts = Options(lengths={"A": "4096", "out": "4096"}, grid="4", block="1024",
                   tensor_maps={"map": "A float[128][32] box[32][32] none"})
    k = import_cu(str(cu), opts)["k"]()
    a = np.arange(4096, dtype=np.float32)
    out = run(k, {}, arrays={"A": a.view(np.uint8)})["out"].view(np.float32)
    assert np.array_equal(out, a + np.tile(a[:1024], 4))
    via_ptx = analyze(k)   # (the C++ reading counted the same: 2026-11-30)
    assert dict(via_ptx.classes)["tma_ld"].requests == 4
    assert (via_ptx.load.requests, via_ptx.load.wavefronts) == (128, 128)
    without = Options(lengths=opts.lengths, grid="4", block="1024")
    with pytest.raises(Exception, match="is a CUtensorMap the host encodes at run time: "
                                        "describe it with --tensor-map map="):
        import_cu(str(cu), without)["k"]()


def test_code_only_sm_90a_has_is_built_for_sm_90a(nvcc, tmp_path, monkeypatch):
    """`setmaxnreg` (warp-specialized kernels) exists on sm_90a only: nvcc refuses it for
    sm_90, so the file is built for sm_90a, as the user's build of such a file names it, and
    ptxas reads that PTX for sm_90a; the instruction itself costs nothing shared. nvcc's
    refusal for sm_90 is cached too: a warm run builds nothing (it paid a second of nvcc
    on every run of a wgmma kernel)."""
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx import build
    from smemsim.frontends.ptx.build import ptx_of
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    cu = tmp_path / "regs.cu"
    cu.write_text("__global__ void k(float *p) {\n  __shared__ float s[128];\n"
                  "  s[threadIdx.x] = p[threadIdx.x];\n  __syncthreads();\n"
                  '  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");\n'
                  "  p[threadIdx.x] = s[127 - threadIdx.x];\n}\n"
                  "void go(float *p) { k<<<1, 128>>>(p); }\n")
    builds = []
    real_build = build._build
    monkeypatch.setattr(build, "_build", lambda *a, **kw: builds.append(a[1]) or
                        real_build(*a, **kw))
    assert ".target sm_90a" in ptx_of(str(cu))
    assert [o[1] for o in builds] == ["-arch=sm_90", "-arch=sm_90a"]
    assert ".target sm_90a" in ptx_of(str(cu)) and len(builds) == 2
    k = import_cu(str(cu), Options(lengths={"p": "128"}))["k"]()
    assert not any("SASS could not be read" in n for n in k.notes), k.notes
    r = analyze(k)
    assert (r.load.requests, r.store.requests) == (4, 4)


def test_without_a_host_compiler_the_error_says_what_to_install(monkeypatch):
    """nvcc preprocesses through gcc and g++: where neither is on PATH (and nothing is
    cached), the command is one line saying so and how to give one; `--frontend cpp`, the
    reading that was removed, is a usage error that says why."""
    import shutil
    from tests.test_cli import cli_streams
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k:
                        None if name in ("gcc", "g++") else real(name, *a, **k))
    monkeypatch.setenv("SMEMSIM_CACHE", "")   # (a cached build needs no compiler)
    code, out, err = cli_streams("analyze", str(TRANSPOSE_CU))
    assert code == 2 and "nvcc needs a host C++ compiler" in err and "-ccbin" in err
    assert "Traceback" not in err
    code, out, err = cli_streams("analyze", str(TRANSPOSE_CU), "--frontend", "cpp")
    assert code == 2 and "cpp was removed" in err


def test_validate_profiles_the_ir_it_predicted_through_ptx(monkeypatch):
    """`validate FILE.cu` profiles a separate process, which reads the file as the command
    did: through nvcc's PTX, the generated CUDA it runs is that of the IR that was predicted
    (it used to read the file as C++ whatever the command's frontend)."""
    import sys

    import gpu_backend.measure as measure_mod
    import gpu_backend.target as target
    from kernels_ir.printer import format_kernel
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.loader import load_kernels
    seen = {}

    def fake_command(argv, kernel_name, timeout=300):
        monkeypatch.setattr(target, "run_on_gpu",
                            lambda kernel, params, arrays, check=False: seen.update(k=kernel))
        monkeypatch.setattr(sys, "argv", ["target", *argv[3:]])
        target.main()
        return "measured"

    monkeypatch.setattr(measure_mod, "measure_command", fake_command)
    ptx = {"arch": "sm_90", "flags": ()}
    predicted = load_kernels(str(TRANSPOSE_CU), Options(), ptx)["transpose"]()
    assert measure_mod.measure(str(TRANSPOSE_CU), "transpose", {"n": 256}, "transpose",
                               options=Options(), ptx=ptx) == "measured"
    assert format_kernel(seen["k"]) == format_kernel(predicted)
    assert "tile[threadIdx.x * 32 + threadIdx.y]" in format_kernel(seen["k"])


def test_volatile_shared_accesses_stay_volatile_in_the_generated_cuda():
    """A tag-and-retry histogram re-reads the word it stored (`ld.volatile.shared`): the
    IR's window is volatile, so the CUDA generated from it (codegen, validate's profiled
    program) re-reads it too (an H200 measured 576 loads of the program without it, 3,003
    with it, as of the C++ reading's); a window with vector accesses is not (CUDA cannot
    make them through a volatile pointer)."""
    from gpu_backend.codegen import generate
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    histogram = ROOT / "tests" / "cuda" / "retry_histogram.cu"
    kernel = import_cu(str(histogram), Options())["one_bin"]()
    assert "volatile __shared__ __align__(16) unsigned char smem[1024];" in \
        generate(kernel).source
    kernel = import_cu(str(TRANSPOSE_CU), Options())["transpose"]()
    assert "volatile" not in generate(kernel).source


def test_a_negative_value_of_a_parameter_ptx_passes_as_unsigned_bits_is_its_twos_complement():
    """nvcc passes an `int` (a lambda's capture, a struct field the host reading cannot name)
    as `.u32` bits: -1 given for it is 0xFFFFFFFF, as the host's bytes are; a signed type
    keeps -1, and a value no 32-bit integer holds is left for the range check to refuse."""
    from kernels_ir import i32, u32
    from smemsim.frontends.ptx.values import _as_bits
    assert _as_bits(-1, u32) == 0xFFFF_FFFF
    assert _as_bits(-(1 << 31), u32) == 1 << 31
    assert _as_bits(-1, i32) == -1
    assert _as_bits(-(1 << 32), u32) == -(1 << 32)
    assert _as_bits(-1.5, u32) == -1.5


def test_an_instruction_nvcc_marks_line_0_is_at_the_line_before_it():
    """nvcc writes `.loc 1 0 0` for code it made itself (a load it hoisted): a site there is
    reported at the nearest line before it (a new user's softmax: `softmax_matrix.cu:0:5`,
    and SARIF's startLine 0, which code scanning rejects)."""
    from tests.test_ptx_sass import _kernel
    text = _kernel("\t.shared .align 4 .b8 _ZZ1kE1s[128];",
                   "\tshl.b32 \t%r2, %r1, 2;\n\tmov.u32 \t%r3, _ZZ1kE1s;\n"
                   "\tadd.s32 \t%r3, %r3, %r2;\n\tst.shared.f32 \t[%r3], %f1;\n"
                   "\t.loc\t1 0 5\n\tld.shared.f32 \t%f3, [%r3];")
    r = analyze(lower(parse(text), "k", Launch(grid=(1,), block=(32,))))
    assert [(s.op, s.loc.line) for s in r.sites] == [("store", 5), ("load", 5)]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here")
def test_views_of_one_shared_variable_read_in_two_types_are_shown_as_that_variable(tmp_path):
    """`float tile[256]` written as floats and read as float4: nvcc's build reads the one
    variable in two types, two views of it (`tile` and `tile_2`-like names); every site says
    the variable the source declares (analyze's table, JSON `sites[].variable`)."""
    import json
    from tests.test_cli import cli_streams
    cu = tmp_path / "v.cu"
    cu.write_text("__global__ void k(float4 *out)\n{\n    __shared__ float tile[256];\n"
                  "    tile[threadIdx.x] = threadIdx.x;\n    __syncthreads();\n"
                  "    if (threadIdx.x < 64)\n"
                  "        out[threadIdx.x] = reinterpret_cast<float4 *>(tile)[threadIdx.x];\n"
                  "}\nvoid go(float4 *o) { k<<<1, 256>>>(o); }\n")
    code, out, err = cli_streams("analyze", str(cu), "--json")
    assert code == 0, err
    sites = json.loads(out)["results"][0]["sites"]
    assert {s["variable"] for s in sites} == {"tile"}
    assert len({s["array"] for s in sites}) == 2   # (the views, one per type)


BFI = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1
)
{
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<6>;
	.loc	1 3 3
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u32 	%r1, [k_param_1];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r2, %tid.x;
	mul.lo.s32 	%r3, %r2, -1640531535;
	xor.b32 	%r4, %r3, %r1;
	bfi.b32 	%r5, %r4, %r2, 5, 27;
	bfi.b32 	%r6, %r4, %r3, 4, 4;
	bfi.b32 	%r7, %r3, %r4, 20, 30;
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r5;
	st.global.u32 	[%rd4+256], %r6;
	st.global.u32 	[%rd4+512], %r7;
	ret;
}
	.file	1 "/src/k.cu"
"""


def test_bfi_inserts_the_field_whether_or_not_it_reaches_the_top():
    """`bfi.b32 d, a, b, pos, len`: b with bits pos..pos+len-1 the low bits of a (nothing
    from bit 32 on). A field that reaches the word's top (5, 27; 20, 30) is written as b's
    low bits plus a shifted, which the analyses read as affine (nvcc's `blockIdx.y * 32 +
    threadIdx.x % 32`); one inside the word (4, 4) as masks. Each equals the bit formula."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.ptx.lower import Launch, lower
    from smemsim.frontends.ptx.parse import parse
    k = lower(parse(BFI), "k", Launch(grid=(1,), block=(64,), names=("out", "a"),
                                      lengths={"out": "768"}, defaults={"a": 0x9E3779B9}))
    out = np.frombuffer(run(k, {})["out"].tobytes(), np.uint32).astype(np.uint64)
    t = np.arange(64, dtype=np.uint64)
    m = 0xFFFFFFFF
    r3 = (t * (2654435761)) & m            # -1640531535 as 32 bits
    r4 = r3 ^ 0x9E3779B9

    def bfi(a, b, pos, length):
        mask = (((1 << min(length, 32)) - 1) << pos) & m
        return (b & (m ^ mask)) | ((a << np.uint64(pos)) & mask)
    assert np.array_equal(out[:64], bfi(r4, t, 5, 27))
    assert np.array_equal(out[64:128], bfi(r4, r3, 4, 4))
    assert np.array_equal(out[128:], bfi(r3, r4, 20, 30))


# cooperative groups through a type-erased thread_group (a tile of 16 of a tile of 32): its
# size() and thread_rank() read %cluster_nctarank / %cluster_ctarank on sm_90, its sync()
# has a cluster group's barrier.cluster.arrive/wait among the kinds it switches on
GROUPS = r"""
#include <cooperative_groups.h>
using namespace cooperative_groups;
__device__ int reduce(thread_group g, int *x, int val)
{
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[lane] = val;
        g.sync();
        if (lane < i) val += x[lane + i];
        g.sync();
    }
    return val;
}
__global__ void groups(const int *data, int *out)
{
    __shared__ int s[256];
    thread_block b = this_thread_block();
    thread_group g = tiled_partition(tiled_partition(b, 32), 16);
    int base = (b.thread_rank() / g.size()) * g.size();
    int v = reduce(g, s + base, data[blockIdx.x * 256 + b.thread_rank()]);
    if (g.thread_rank() == 0) out[blockIdx.x * 16 + base / 16] = v + (int)b.size();
}
int main() { int *d, *o; groups<<<4, 256>>>(d, o); return 0; }
"""


def test_cooperative_groups_read_the_cluster_registers_of_a_cluster_of_one(
        nvcc, tmp_path, monkeypatch):
    """A launch without clusters: each block a cluster of one (%cluster_nctarank 1,
    %cluster_ctarank 0), so b.size() is 256 and thread_rank() the thread's index; the
    cluster barrier pair is the block's. Each group of 16 sums its 16 values: with data
    all 1, 16 + 256 each. Counted: 4 passes (i = 8, 4, 2, 1) of a store by all 8 warps
    (two groups a warp, 32 lanes on 32 banks) and a read by the lanes below i."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "groups.cu"
    source.write_text(GROUPS)
    k = import_cu(str(source), Options(lengths={"data": "1024", "out": "64"}))["groups"]()
    out = run(k, {}, arrays={"data": np.ones(1024, np.int32).view(np.uint8)})["out"]
    assert np.frombuffer(out.tobytes(), np.int32).tolist() == [16 + 256] * 64
    r = analyze(k)
    # each pass: every warp stores (4 passes x 8 warps x 4 blocks), and the lanes below i
    # of each of its two groups read, one request: as many
    assert [(s.requests, s.wavefronts) for s in r.sites] == [(4 * 8 * 4, 128)] * 2


def test_a_cluster_launch_is_refused_where_its_registers_are_read():
    text = SAMPLE.replace(".param .u32 k_param_1\n)", ".param .u32 k_param_1\n)\n"
                          ".reqnctapercluster 2, 1, 1").replace(
        "mov.u32 	%r1, %tid.x;", "mov.u32 	%r1, %cluster_ctarank;")
    with pytest.raises(PtxError, match="launched in clusters"):
        lower(parse(text), "k", Launch(grid=(2, 1, 1), block=(32, 1, 1)))


PRINTS = r"""
#include <cstdio>
__global__ void prints(const int *x, int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    if (s[63 - threadIdx.x] == 7) printf("seven at %d\n", (int)threadIdx.x);
    out[threadIdx.x] = s[63 - threadIdx.x];
}
int main() { int *x, *o; prints<<<1, 64>>>(x, o); return 0; }
"""


def test_a_kernel_calling_printf_is_launched_with_32_registers_at_least(
        nvcc, tmp_path, monkeypatch):
    """An H200 launched printf kernels ptxas gave 24 and 30 registers with 32 (ncu's
    launch__registers_per_thread; cudaFuncGetAttributes said ptxas's count), and ones of 40
    and 55 with theirs: the build says it calls the runtime, occupancy allocates 32."""
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    from smemsim.launch.occupancy import kernel_occupancy, registers_allocated
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "prints.cu"
    source.write_text(PRINTS)
    k = import_cu(str(source), Options(lengths={"x": "64", "out": "64"}))["prints"]()
    assert k.built.runtime_calls and k.built.registers < 32
    occ = kernel_occupancy(k, "sm_90", k.built.registers)
    assert occ.registers_allocated == 32 and occ.registers_per_thread == k.built.registers
    assert [registers_allocated(r, True) for r in (24, 30, 32, 40, 55)] == \
        [32, 32, 32, 40, 55]
    assert registers_allocated(12) == 16


def test_a_condition_whose_locals_double_at_each_step_is_not_written_out():
    """A shared load kept only under a condition whose locals each read the one before
    twice (moderngpu's segsort as nvcc builds it: the pass then wrote out a tree of 2^k
    nodes, 11 GB and no end): the condition is written out while it is small (3 steps: 8
    reads of threadIdx.x) and refused past speculated._MOST_NODES (60 steps), the load then
    counted as used everywhere, at once."""
    from kernels_ir import KernelBuilder, Load, cast, f32, i32, select, threadIdx
    from smemsim.frontends.ptx.speculated import mark_speculated_loads

    def doubling(steps: int):
        k = KernelBuilder("doubling")
        s = k.shared("s", f32, 32)
        out = k.global_array("out", f32, 32, intent="out")
        v = k.load(s, threadIdx.x)
        c = k.let("c0", cast(threadIdx.x, i32), i32)
        for i in range(steps):
            c = k.let(f"c{i + 1}", c + c, i32)
        out[threadIdx.x] = select(c < 5, v, 0.0)
        k.launch(1, 32)
        return mark_speculated_loads(k.build())

    def where(kernel):
        (load,) = [s for s in kernel.statements() if isinstance(s, Load)]
        return load.used_where
    small = where(doubling(3))
    assert small is not None and sum(n.op.name == "SPECIAL" for n in small.walk()) == 8
    assert where(doubling(60)) is None


NOINLINE = """#include <cstdio>
struct P { float a; int b; };
__device__ __noinline__ float scale(float x, int k) { return x * k; }
__device__ __noinline__ void twice(float *s, int i) { s[i] = 2 * s[i]; }
__device__ __noinline__ P make(float a, int b) { P p; p.a = a; p.b = b; return p; }
__device__ __noinline__ float4 vec(float a) { return make_float4(a, a, a, a); }
__global__ void k(float *out, int n) {
    __shared__ float s[128];
    s[threadIdx.x] = scale(out[threadIdx.x], n);
    __syncthreads();
    twice(s, threadIdx.x ^ 1);
    __syncthreads();
    P p = make(s[threadIdx.x], n);
    float4 v = vec(p.a);
    if (threadIdx.x == 0) printf("%f\\n", v.x);
    out[threadIdx.x] = p.a + p.b + v.y;
}
int main() { float *o; cudaMalloc(&o, 128 * 4); k<<<1, 128>>>(o, 3); }
"""


def test_noinline_functions_are_written_out_at_their_calls(nvcc, tmp_path):
    """`__noinline__` functions stay `.func`s the kernel calls (BBuf's YHs SGEMM writes its
    C tile back in one): each call is written out in the kernel (smemsim.frontends.ptx.
    inline_calls), arguments and results through the call's parameter slots, a struct and a
    float4 returned in pieces. out[t] = 4 * 3 * out[t] + 3 (s[t] = 3 out[t], doubled by
    thread t ^ 1, then p.a + p.b + v.y); twice's shared load and store are counted at its
    own line, called from line 11, matched to ptxas's SASS of the function (no note)."""
    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.loader import load_kernels
    cu = tmp_path / "calls.cu"
    cu.write_text(NOINLINE)
    kernel = next(iter(load_kernels(str(cu)).values()))()
    x = np.arange(128, dtype=np.float32)
    got = run(kernel, {"n": 3}, {"out": x.view(np.uint8).copy()})["out"].view(np.float32)
    assert np.array_equal(got, 12 * x + 3)
    r = analyze(kernel, {"n": 3})
    assert [(s.loc.line, s.op, s.requests, s.wavefronts) for s in r.sites] == [
        (9, "store", 4, 4), (4, "load", 4, 4), (4, "store", 4, 4), (13, "load", 4, 4)]
    assert not [n for n in kernel.notes if "SASS" in n]


def test_a_recursive_function_is_refused_at_its_call():
    """A function that calls itself cannot be written out: refused at the call, with its
    PTX line, after inline_calls.MOST_DEPTH levels."""
    text = """.version 9.0
.target sm_90
.address_size 64
.func (.param .b32 func_retval0) f(
	.param .b32 f_param_0
)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [f_param_0];
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), f, (param0);
	ld.param.b32 %r2, [retval0+0];
	}
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
.visible .entry k(
	.param .u32 k_param_0
)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [k_param_0];
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), f, (param0);
	ld.param.b32 %r2, [retval0+0];
	}
	ret;
}
"""
    with pytest.raises(PtxError, match=r"PTX line 14: `call f`: calls nested more than 16 "
                                       r"deep \(a recursive function\)"):
        parse(text)

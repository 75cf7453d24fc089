"""gpu_backend: code generation, NVRTC compilation and the SASS width check (no GPU needed);
launches and counters on a GPU (marked `gpu`, skipped with the reason elsewhere)."""
import pathlib

import numpy as np
import pytest

from examples import (
    cp_async_gemm, histogram, int_matmul_nt32, ldmatrix_tile, matmul_128x128, matmul_double16,
    matmul_float_tiled, matmul_naive, reed_solomon, softmax, transpose,
)
from gpu_backend.codegen import generate
from tests.conftest import require_nvrtc
from kernels_ir import KernelBuilder, KernelError, f32, logical_and, threadIdx

GOLDEN = pathlib.Path(__file__).parent / "golden"
# every example kernel once (a file may run one kernel on several inputs)
ALL = list({k.name: k for k in (make() for mod in (
    transpose, matmul_double16, int_matmul_nt32, matmul_float_tiled, matmul_128x128,
    matmul_naive, reed_solomon, histogram, ldmatrix_tile, softmax, cp_async_gemm)
    for make in mod.KERNELS.values())}.values())


def _compile_or_skip():
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    return compile_kernel


def test_generated_code_matches_the_golden_file():
    assert generate(transpose.transpose(pad=1)).source == \
        (GOLDEN / "transpose_pad1.cu").read_text()


def test_vector_accesses_use_vector_types_and_loops_keep_their_pragmas():
    k = KernelBuilder("vec")
    src = k.global_array("src", f32, 128)
    s = k.shared("s", f32, (32, 4))
    with k.range("i", 0, 2, unroll=True):
        v = src.load(threadIdx.x * 4, width=4)
        s.store((threadIdx.x, 0), v, width=4)
    k.launch(1, 32)
    text = generate(k.build()).source
    assert "const float4 src_v = *reinterpret_cast<const float4*>(&src[threadIdx.x * 4]);" in text
    assert ("*reinterpret_cast<float4*>(&s[threadIdx.x][0]) = "
            "make_float4(src_v.x, src_v.y, src_v.z, src_v.w);") in text
    assert "#pragma unroll\n" in text


@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
@pytest.mark.parametrize("kernel", ALL, ids=[k.name for k in ALL])
def test_every_example_compiles_with_the_stated_widths(kernel, arch):
    compile_kernel = _compile_or_skip()
    if arch == "sm_80" and any(s.op == "stmatrix" for s in kernel.sites()):
        with pytest.raises(KernelError, match="stmatrix needs sm_90 or newer; sm_80 does not"):
            compile_kernel(kernel, arch)
        return
    c = compile_kernel(kernel, arch)
    assert c.widths_ok, [s.describe() for s in c.sites if not s.ok] + list(c.unattributed)
    assert c.registers > 0 and c.local == 0
    # the driver's figure (measured on an H200) is the declarations' total
    assert c.static_smem == kernel.static_smem


def test_the_check_reports_stores_the_compiler_merged():
    """Seed 004's `if (..) tile[..] = A[..]; else tile[..] = 0;` inside its tile loop becomes
    one STS of a selected value: two IR sites, one instruction, attributed to neither."""
    compile_kernel = _compile_or_skip()
    k = KernelBuilder("if_else_store")
    n = k.param("n")
    a = k.global_array("a", f32, n)
    out = k.global_array("out", f32, n, intent="out")
    tile = k.shared("tile", f32, (32, 32))
    acc = k.let("acc", 0.0)
    with k.range("t", 0, n // 32) as t:
        with k.if_(logical_and(threadIdx.y < n, t * 32 + threadIdx.x < n)):
            tile[threadIdx.y, threadIdx.x] = a[t * 32 + threadIdx.x]
        with k.else_():
            tile[threadIdx.y, threadIdx.x] = 0.0
        k.syncthreads()
        acc.set(acc + tile[threadIdx.x, threadIdx.y])
        k.syncthreads()
    out[threadIdx.x] = acc
    k.launch(1, (32, 32))
    c = compile_kernel(k.build(), "sm_90")
    assert not c.widths_ok
    stores = [s for s in c.sites if s.op == "store"]
    assert [len(s.found) for s in stores] == [0, 0]
    assert "the compiler emitted no shared instruction" in stores[0].describe()
    assert [u.opcode for u in c.unattributed] == ["STS"]


def test_sass_parser_reads_widths_and_lines():
    from gpu_backend.compile import parse_sass
    text = ('\t//## File "k.cu", line 7\n'
            "        /*0100*/                   STS.128 [R7], R4 ;\n"
            '\t//## File "k.cu", line 9\n'
            "        /*0120*/              @!P0 LDS.U8 R2, [R0+0x10] ;\n"
            "        /*0130*/                   LDS.64 R2, [R0] ;\n")
    got = [(a.opcode, a.kind, a.width, a.line) for a in parse_sass(text)]
    assert got == [("STS.128", "store", 16, 7), ("LDS.U8", "load", 1, 9),
                   ("LDS.64", "load", 8, 9)]


# ---------------------------------------------------------------- on a GPU

def _gpu_or_skip():
    from gpu_backend.device import gpu_unavailable
    reason = gpu_unavailable()
    if reason:
        pytest.skip(f"needs a GPU: {reason}")


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, params", [
    (transpose.transpose(pad=0), {"n": 64}),
    (matmul_double16.multiply(), {"MATRIX_DIM": 64}),
    (reed_solomon.words(), {}),
    (matmul_float_tiled.tiled(), {"rowsA": 70, "commonDim": 90, "colsB": 100}),
], ids=["transpose", "double16", "rs_words", "tiled_ragged"])
def test_gpu_outputs_match_the_interpreter(kernel, params):
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    run = run_on_gpu(kernel, params)
    assert run.matches, run.mismatches
    assert run.driver_blocks_per_sm >= 1


@pytest.mark.gpu
def test_an_unwritten_output_is_caught():
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    k = KernelBuilder("half_written")
    out = k.global_array("out", f32, 64, intent="out")
    with k.if_(threadIdx.x < 32):
        out[threadIdx.x] = 1.0
    k.launch(1, 64)
    run = run_on_gpu(k.build())
    assert run.matches  # both sides leave 32..63 poisoned
    assert np.isnan(run.outputs["out"][32:]).all()


def test_a_widened_access_is_reported_and_reanalyzed():
    """NVRTC merges tile[tx][0..3] (16-byte aligned) into one LDS.128; the re-run costs it."""
    compile_kernel = _compile_or_skip()
    from smemsim import analyze
    from tests.kernels.widening import widening
    kernel = widening()
    c = compile_kernel(kernel, "sm_90")
    assert not c.widths_ok
    assert "the compiler emitted LDS.128" in c.sites[1].describe()
    from gpu_backend.as_compiled import analyze_as_compiled
    stated, compiled = analyze(kernel), analyze_as_compiled(kernel)
    assert compiled.compiled_widths == {1: 16, 2: 0, 3: 0, 4: 0}
    assert (stated.load.requests, stated.load.wavefronts) == (128, 4096)
    # 32 lanes 128 bytes apart, 16 bytes each: per quarter-warp 8 words in each of banks 0-3
    assert (compiled.load.requests, compiled.load.wavefronts) == (32, 32 * 32)


def test_counter_comparison_per_instruction_class():
    """Requests exact, wavefronts never below, per Nsight counter (LDSM counts in _op_ld)."""
    from gpu_backend.measure import Measured, compare_counts
    from smemsim.launch.analysis import Report, Totals
    classes = {"ld": Totals(10, 20, 10), "ldsm": Totals(4, 8, 4), "atom": Totals(5, 9, 5)}
    report = Report("k", "sm_90", "sm90-measured", {}, (1, 1, 1), (32, 1, 1), 0, 0, 1, (),
                    classes, "sliced", 1)
    measured = Measured(load_requests=10, store_requests=0, load_wavefronts=29,
                        store_wavefronts=0, load_conflicts=0, store_conflicts=0,
                        ldsm_requests=4, stsm_requests=None, ldgsts_requests=0,
                        atom_requests=5, atom_wavefronts=9, shared_wavefronts=None,
                        misc_wavefronts=None)
    a = compare_counts(report, measured)
    assert a.ok and a.unmeasured == ()
    assert [(c.what, c.predicted, c.measured) for c in a.checks] == [
        ("load requests", 10, 10), ("load wavefronts", 28, 29), ("store requests", 0, 0),
        ("store wavefronts", 0, 0), ("ldsm requests", 4, 4), ("atom requests", 5, 5),
        ("atom wavefronts", 9, 9)]
    fewer = compare_counts(report, Measured(**{**measured.__dict__, "atom_wavefronts": 8}))
    assert not fewer.ok  # measured below the prediction: the model is wrong somewhere


def zero_filled_copy():
    """cp.async of 16 bytes a thread reading only the first `src_bytes` (the PTX's
    src-size), the rest zeroed: thread t reads 4 * (t % 5) bytes (0 to 16), and a thread
    reading none passes an address past the array's end (as Triton's masked loads do)."""
    from kernels_ir import u32
    k = KernelBuilder("zero_fill")
    src = k.global_array("src", u32, 128)
    out = k.global_array("out", u32, 128, intent="out")
    s = k.shared("s", u32, 128)
    t = threadIdx.x
    reads = (t % 5) * 4
    start = k.let("start", (t * 4) % 128 + (reads == 0) * 4096)
    k.cp_async(s, t * 4, src, start, width=4, src_bytes=reads)
    k.cp_async_commit()
    k.cp_async_wait(0)
    v = s.load(t * 4, width=4)
    out.store(t * 4, v, width=4)
    k.launch(1, 32)
    return k.build()


def test_a_zero_filled_copy_reads_its_bytes_and_zeroes_the_rest():
    from kernels_ir import run
    src = np.arange(1, 129, dtype=np.uint32)
    got = run(zero_filled_copy(), {}, arrays={"src": src})["out"].reshape(32, 4)
    for t in range(32):
        want = [src[(t * 4) % 128 + j] if j < (t % 5) else 0 for j in range(4)]
        assert got[t].tolist() == want, t
    assert "cp.async.ca.shared.global [%0], [%1], 16, %2;" in \
        generate(zero_filled_copy()).source
    compile_kernel = _compile_or_skip()
    assert compile_kernel(zero_filled_copy(), "sm_90").widths_ok


@pytest.mark.gpu
def test_a_zero_filled_copy_on_the_gpu_matches_the_interpreter():
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    run = run_on_gpu(zero_filled_copy())
    assert run.matches, run.mismatches


def reducing_barriers():
    """__syncthreads_or, _and and _count of per-thread predicates, in two blocks whose
    answers differ (block 1 has no thread with t == 77 + 256)."""
    from kernels_ir import blockIdx, i32
    k = KernelBuilder("sync_reduce")
    src = k.global_array("src", i32, 512)
    out = k.global_array("out", i32, 512, intent="out")
    t = blockIdx.x * 256 + threadIdx.x
    v = src[t]
    any_ = k.syncthreads_reduce(v > 1000, "or")
    all_ = k.syncthreads_reduce(v >= 0, "and")
    count = k.syncthreads_reduce(v % 3 == 0, "count")
    out[t] = any_ + 10 * all_ + 100 * count
    k.launch(2, 256)
    return k.build()


def test_reducing_barriers_compile_and_interpret():
    from kernels_ir import run
    src = np.arange(512, dtype=np.int32)
    src[77] = 5000
    src[300] = -1
    got = run(reducing_barriers(), {}, arrays={"src": src})["out"]
    for b, block in enumerate((src[:256], src[256:])):
        want = int((block > 1000).any()) + 10 * int((block >= 0).all()) + \
            100 * int((block % 3 == 0).sum())
        assert set(got[256 * b:256 * (b + 1)].tolist()) == {want}
    assert "__syncthreads_count(" in generate(reducing_barriers()).source
    compile_kernel = _compile_or_skip()
    assert compile_kernel(reducing_barriers(), "sm_90").widths_ok


@pytest.mark.gpu
def test_reducing_barriers_on_the_gpu_match_the_interpreter():
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    run = run_on_gpu(reducing_barriers())
    assert run.matches, run.mismatches

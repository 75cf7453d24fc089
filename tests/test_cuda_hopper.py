"""Hopper kernels as CUDA writes them (#27's importer): CUtensorMap parameters described by
--tensor-map, cuda::barrier and libcu++'s TMA wrappers, wgmma through inline PTX with the
descriptors the kernel's own helpers build. A public kernel (fast.cu's kernel 2, verbatim)
and one written here (tests/cuda/wgmma_tile.cu) with the two classic mistakes a -D away."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA frontend needs tree-sitter-cuda")

from kernels_ir import bf16, f16, from_storage, to_storage  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import CudaImportError, Options, instantiation  # noqa: E402
from tests.built import import_kernels, run  # noqa: E402
from smemsim.launch.hazards import check  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
FAST = str(HERE / "corpus" / "fast_cu" / "matmul_2.cuh")
TILE = str(HERE / "cuda" / "wgmma_tile.cu")
MAPS2 = {"tensorMapA": "A bf16[M][K] box[64][64] 128B",
         "tensorMapB": "B bf16[N][K] box[64][64] 128B"}
TILE_MAPS = {"mapA": "A half[M][K] box[64][64] 128B", "mapB": "B half[N][K] box[64][64] 128B"}


def wgmma_totals(r) -> tuple[int, int]:
    """(requests, wavefronts) of the wgmma sites (nvcc's build may unroll one line's
    instruction into several)."""
    gmma = [s for s in r.sites if s.op == "wgmma"]
    return sum(s.requests for s in gmma), sum(s.wavefronts for s in gmma)


def tma_totals(r) -> tuple[int, int]:
    """(instructions, bytes) of the TMA copies."""
    tma = [s for s in r.sites if s.tma is not None]
    return sum(s.tma.instructions for s in tma), sum(s.tma.bytes for s in tma)


def fast2(size: int, maps=None):
    opts = Options(defines={"bf16": "__nv_bfloat16"}, params={"M": size, "N": size, "K": size},
                   lengths={"C": "M * N"}, tensor_maps=maps or MAPS2)
    found = import_kernels(FAST, opts)
    assert list(found) == ["matmulKernel2<64, 64, 64, 64, 64, 16, 128>"]  # BM etc. read
    return next(iter(found.values()))()


def tile(size: int = 128, **defines):
    opts = Options(defines={k: str(v) for k, v in defines.items()},
                   params={"M": size, "N": size, "K": size}, lengths={"C": "M * N"},
                   tensor_maps=TILE_MAPS)
    return import_kernels(TILE, opts)["wgmma_tile"]()


def small_integers(size: int, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (size, size)).astype(np.float32)
    b = rng.integers(-3, 4, (size, size)).astype(np.float32)
    return a, b, {"A": to_storage(a.ravel(), dtype), "B": to_storage(b.ravel(), dtype)}


def test_fast_cu_kernel2_multiplies_as_written():
    """TMA tiles with SWIZZLE_128B, cuda::barrier tokens, four wgmma.m64n64k16 through
    make_smem_desc: C (column-major, bf16) = A B^T, exactly (small integers), and check
    finds nothing."""
    kernel = fast2(128)
    a, b, arrays = small_integers(128, bf16)
    c = from_storage(run(kernel, {}, arrays)["C"], bf16).astype(np.float32).reshape(128, 128)
    assert np.array_equal(c.T, a @ b.T)
    assert not check(kernel, {}).faults


def test_fast_cu_kernel2_counts_by_hand():
    """At the repository's 8192^3: (8192 / 64)^2 = 16,384 blocks, 128 K steps. Per block
    and step thread 0 issues one TMA copy of 64 x 64 bf16 (8,192 bytes) per tile, and the
    warpgroup four wgmma, each reading A and B's 64 x 16 bf16 (4,096 bytes: 32 wavefronts
    of 128 bytes, counted per warp: 4 requests)."""
    r = analyze(fast2(8192))
    tma = [s for s in r.sites if s.tma is not None]
    assert [(s.tma.instructions, s.tma.bytes, s.tma.bank_words) for s in tma] == \
        [(16384 * 128, 16384 * 128 * 8192, 16384 * 128 * 8192 // 4)] * 2
    gmma = [s for s in r.sites if s.op == "wgmma"]
    assert [(s.requests, s.wavefronts) for s in gmma] == [(16384 * 128 * 4,
                                                           16384 * 128 * 32)] * 4


def test_a_tensor_map_that_disagrees_with_the_descriptors_is_named():
    """The host encoded no swizzle where make_smem_desc says 128B: check names the element
    wgmma reads instead, the line, and what to change."""
    maps = dict(MAPS2, tensorMapA="A bf16[M][K] box[64][64] none")
    faults = check(fast2(128, maps), {}).faults
    assert [f.kind for f in faults] == ["layout"]
    assert "matmul_2.cuh:88" in faults[0].message
    assert "wgmma reads A(1, 0) from the bytes of A(1, 8)" in faults[0].message
    assert "the descriptor says SWIZZLE_128B where tensor map 'tensorMapA' wrote no " \
           "swizzle" in faults[0].message


def test_the_written_tile_kernel_multiplies_and_its_mistakes_are_named():
    """wgmma_tile.cu: right as written; -D FORGET_SWIZZLE and -D BASE_OFFSET=1 give wrong
    products (as the H100 computed for the same mistakes in examples/wgmma_tile.py) and
    check says which descriptor field to change, at the asm statement's line."""
    a, b, arrays = small_integers(128, f16)
    want = a @ b.T
    kernel = tile()
    assert np.array_equal(run(kernel, {}, arrays)["C"].reshape(128, 128), want)
    assert not check(kernel, {}).faults
    wrong = tile(FORGET_SWIZZLE=1)
    assert (run(wrong, {}, arrays)["C"].reshape(128, 128) != want).sum() == 16031
    message = check(wrong, {}).faults[0].message
    assert "wgmma_tile.cu:44" in message and "the descriptor says no swizzle where " \
        "tensor map 'mapA' wrote SWIZZLE_128B" in message
    message = check(tile(BASE_OFFSET=1), {}).faults[0].message
    assert "the descriptor's base offset 1 takes that much off the swizzle's row phase" \
        in message


def test_a_tensor_map_parameter_without_a_description_is_a_question():
    opts = Options(defines={"bf16": "__nv_bfloat16"}, params={"M": 128, "N": 128, "K": 128})
    with pytest.raises(CudaImportError, match=r"matmul_2\.cuh:\d+:\d+: kernel parameter "
                                              r"'tensorMapA' is a CUtensorMap .*--tensor-map "
                                              r"tensorMapA="):
        next(iter(import_kernels(FAST, opts).values()))()
    with pytest.raises(CudaImportError, match=r"--tensor-map tensorMapA='A bf16\[M\]': "
                                              r"expected 'TENSOR TYPE"):
        fast2(128, dict(MAPS2, tensorMapA="A bf16[M]"))


def test_the_instance_names_its_namespace():
    """nvcc is asked for M2::matmulKernel2<...> (the kernel is declared in namespace M2)."""
    opts = Options(defines={"bf16": "__nv_bfloat16"}, tensor_maps=MAPS2,
                   params={"M": 128, "N": 128, "K": 128})
    inst = instantiation(FAST, opts, "matmulKernel2<64, 64, 64, 64, 64, 16, 128>")
    assert inst.cxx == "M2::matmulKernel2<64, 64, 64, 64, 64, 16, 128>"


@pytest.mark.parametrize("case", ["fast2", "fast3", "fast4", "fast5", "tile"])
def test_import_writes_a_kernels_file_that_counts_and_computes_the_same(tmp_path, case):
    """`import -o`'s kernels file of each Hopper import builds the same kernel: the same
    counts and the same C (barrier arrays, tokens named `_`, struct fields, sub-array
    accumulators, aligned dynamic bytes all written back)."""
    from kernels_ir.pysource import kernels_file
    from smemsim.frontends.loader import load_kernels
    kernel = {"fast2": fast2, "fast3": fast3, "fast4": fast4, "fast5": fast5,
              "tile": tile}[case](256)
    (tmp_path / "imported.py").write_text(kernels_file({kernel.name: kernel}, str(tmp_path),
                                                       "Hopper import"))
    again = load_kernels(str(tmp_path / "imported.py"))[kernel.name]()
    assert [(s.op, s.requests, s.wavefronts) for s in analyze(again).sites] == \
        [(s.op, s.requests, s.wavefronts) for s in analyze(kernel).sites]
    _, _, arrays = small_integers(256, f16 if case == "tile" else bf16)
    assert np.array_equal(run(again, {}, arrays)["C"], run(kernel, {}, arrays)["C"])


def test_innermost_user_line_of_an_inlined_chain():
    """nvdisasm -gi: a libcu++ wrapper's instruction belongs to the user's line that called
    it; an instruction of the user's own inlined function to that function's line."""
    from gpu_backend.compile import _innermost_user_lines, parse_sass
    sass = "\n".join([
        '\t//## File "/usr/local/cuda-13.0/include/cccl/cuda/__ptx/x.h", line 209 inlined at '
        '"/usr/local/cuda-13.0/include/cccl/cuda/barrier", line 121',
        '\t//## File "/usr/local/cuda-13.0/include/cccl/cuda/barrier", line 121 inlined at '
        '"/home/u/k.cu", line 63',
        '\t//## File "/home/u/k.cu", line 63',
        "        /*0340*/                   UTMALDG.2D [UR16], [UR6] ;",
        '\t//## File "/home/u/k.cu", line 44 inlined at "/home/u/k.cu", line 72',
        '\t//## File "/home/u/k.cu", line 72',
        "        /*07a0*/                   HGMMA.64x64x16.F32 R24, gdesc[UR12], R24 ;"])
    marks = [line for line in _innermost_user_lines(sass).splitlines() if "//##" in line]
    assert marks == ['\t//## File "/home/u/k.cu", line 63', '\t//## File "/home/u/k.cu", line 44']
    hgmma = parse_sass(sass)[-1]
    assert (hgmma.opcode, hgmma.line) == ("HGMMA.64x64x16.F32", 44)


def test_the_command_line_takes_tensor_maps():
    import subprocess
    import sys
    base = [sys.executable, "-m", "smemsim", "check", TILE, "-p", "M=128", "-p", "N=128",
            "-p", "K=128", "--length", "C=M*N",
            "--tensor-map", "mapB=B half[N][K] box[64][64] 128B"]
    ok = subprocess.run(base + ["--tensor-map", "mapA=A half[M][K] box[64][64] 128B"],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(base + ["--tensor-map", "mapA=A half[M][K] box[64][64] none"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "wgmma_tile.cu:44" in bad.stdout + bad.stderr
    assert "Traceback" not in bad.stdout + bad.stderr


FAST3 = str(HERE / "corpus" / "fast_cu" / "matmul_3.cuh")


def fast3(size: int):
    """fast.cu's kernel 3: 128 x 128 tiles, the tiles in an `extern __shared__ SMem<BM, BN,
    BK>` struct (alignas(128) fields), wgmma m64n128k16 into `d[m_it]` of `float
    d[2][8][8]`; its host launches it through a function pointer, so the launch is given."""
    opts = Options(defines={"bf16": "__nv_bfloat16"}, params={"M": size, "N": size, "K": size},
                   lengths={"C": "M * N", "DB": "1"}, grid="(M / 128) * (N / 128)",
                   block="128", smem="32768", kernel="matmulKernel3<128, 128, 64, 128, false>",
                   tensor_maps={"tensorMapA": "A bf16[M][K] box[128][64] 128B",
                                "tensorMapB": "B bf16[N][K] box[128][64] 128B"})
    return next(iter(import_kernels(FAST3, opts).values()))()


def test_fast_cu_kernel3_multiplies_as_written():
    """C = A B^T rounded to bf16 (sums beyond 256 round: -279 is stored as -280, as the
    GPU's cvt.rn does), and check is silent."""
    kernel = fast3(256)
    a, b, arrays = small_integers(256, bf16)
    c = from_storage(run(kernel, {}, arrays)["C"], bf16).astype(np.float32).reshape(256, 256)
    want = from_storage(to_storage((a @ b.T).ravel(), bf16), bf16).reshape(256, 256)
    assert np.array_equal(c.T, want)
    assert not check(kernel, {}).faults


def test_fast_cu_kernel3_counts_by_hand():
    """At 8192^3: 64^2 = 4,096 blocks, 128 K steps; per block and step one 128 x 64 bf16
    TMA copy (16,384 bytes) per tile, and 2 (m_it) x 4 (k_it) wgmma.m64n128k16 reading A's
    2,048 and B's 4,096 bytes (48 wavefronts; 4 warps each)."""
    r = analyze(fast3(8192))
    assert tma_totals(r) == (2 * 4096 * 128, 2 * 4096 * 128 * 16384)
    assert wgmma_totals(r) == (4096 * 128 * 8 * 4, 4096 * 128 * 8 * 48)


FAST4 = str(HERE / "corpus" / "fast_cu" / "matmul_4.cuh")


def fast4(size: int):
    """fast.cu's kernel 4, warp-specialized: warpgroup 0's thread 0 produces (TMA into a
    ring of 5 stages, waiting on `empty[q]`), warpgroup 1 consumes (waits on `full[q]`,
    wgmma, arrives on `empty[q]`); the tiles live in dynamic bytes through `SMem& s =
    *reinterpret_cast<SMem*>(smem)`, the barriers are arrays of cuda::barrier."""
    opts = Options(defines={"bf16": "__nv_bfloat16"}, params={"M": size, "N": size, "K": size},
                   lengths={"C": "M * N"}, grid="(M / 128) * (N / 128)", block="256",
                   smem="163840", kernel="matmulKernel4<128, 128, 64, 256, 5>",
                   tensor_maps={"tensorMapA": "A bf16[M][K] box[128][64] 128B",
                                "tensorMapB": "B bf16[N][K] box[128][64] 128B"})
    return next(iter(import_kernels(FAST4, opts).values()))()


def test_fast_cu_kernel4_producer_and_consumer_run_side_by_side():
    """The producer's first wait on a ring slot's `empty` barrier completes only once the
    consumer warpgroup has arrived on it (the other branch of the `if`): the branches run
    as coroutines (kernels_ir.coroutines) and the product is A B^T in bf16; check is
    silent."""
    kernel = fast4(256)
    a, b, arrays = small_integers(256, bf16)
    c = from_storage(run(kernel, {}, arrays)["C"], bf16).astype(np.float32).reshape(256, 256)
    want = from_storage(to_storage((a @ b.T).ravel(), bf16), bf16).reshape(256, 256)
    assert np.array_equal(c.T, want)
    assert not check(kernel, {}).faults


def test_fast_cu_kernel4_counts_by_hand():
    """At 8192^3: 4,096 blocks, 128 K steps; one 16,384-byte TMA copy per tile per step,
    and the consumer warpgroup's 2 x 4 wgmma.m64n128k16 per step (48 wavefronts each, 4
    warps)."""
    r = analyze(fast4(8192))
    assert tma_totals(r) == (2 * 4096 * 128, 2 * 4096 * 128 * 16384)
    assert wgmma_totals(r) == (4096 * 128 * 8 * 4, 4096 * 128 * 8 * 48)


def test_a_tensor_map_over_a_pointer_parameter_uses_that_array():
    """`k(const __grid_constant__ CUtensorMap map, float* A, ...)` with --tensor-map naming
    A: the map reads the kernel's own A (tensor maps are bound after the pointers)."""
    opts = Options(lengths={"A": "4096", "out": "4096"}, grid="4", block="1024",
                   tensor_maps={"map": "A float[128][32] box[32][32] none"})
    kernel = import_kernels(str(HERE / "cuda" / "tma_over_param.cu"), opts)["k"]()
    a = np.arange(4096, dtype=np.float32)
    assert np.array_equal(run(kernel, {}, {"A": a})["out"], a + np.tile(a[:1024], 4))
    assert [g.name for g in kernel.globals] == ["A", "out"]


def fast5(size: int):
    """fast.cu's kernel 5: one producer warpgroup and two consumer warpgroups (384 threads),
    128 x 256 tiles in a ring of 3, wgmma.m64n256k16 into `d[m_it]` of `float d[1][16][8]`,
    `setmaxnreg` between the warpgroups (no shared memory, value or occupancy effect)."""
    opts = Options(defines={"bf16": "__nv_bfloat16"}, params={"M": size, "N": size, "K": size},
                   lengths={"C": "M * N"}, grid="(M / 128) * (N / 256)", block="384",
                   smem="147456", kernel="matmulKernel5<128, 256, 64, 384, 3>",
                   tensor_maps={"tensorMapA": "A bf16[M][K] box[128][64] 128B",
                                "tensorMapB": "B bf16[N][K] box[256][64] 128B"})
    return next(iter(import_kernels(str(HERE / "corpus" / "fast_cu" / "matmul_5.cuh"),
                                    opts).values()))()


def test_fast_cu_kernel5_two_consumers_and_a_producer():
    """Three warpgroups as two sides of one `if`: the producer, and both consumers (one
    branch, each warpgroup its own rows); the product is A B^T in bf16, check is silent;
    at 8192^3 the counts by hand: 2,048 blocks x 128 K steps, one TMA copy per tile
    (16,384 and 32,768 bytes), and per step 4 wgmma.m64n256k16 per consumer warpgroup
    (A 2,048 + B 8,192 bytes: 80 wavefronts; 4 warps each)."""
    kernel = fast5(256)
    a, b, arrays = small_integers(256, bf16)
    c = from_storage(run(kernel, {}, arrays)["C"], bf16).astype(np.float32).reshape(256, 256)
    want = from_storage(to_storage((a @ b.T).ravel(), bf16), bf16).reshape(256, 256)
    assert np.array_equal(c.T, want)
    assert not check(kernel, {}).faults
    assert_kernel5_counts_at_8192(analyze(fast5(8192)))


def assert_kernel5_counts_at_8192(r):
    """fast.cu's kernel 5 at 8192^3 (kernel 6 schedules the same tiles): 2,048 tiles x
    128 K steps, one TMA copy of each operand per step, 2 x 4 wgmma.m64n256k16 of 4 warps
    (80 wavefronts each)."""
    assert tma_totals(r) == (2 * 2048 * 128, 2048 * 128 * (16384 + 32768))
    assert wgmma_totals(r) == (2048 * 128 * 2 * 4 * 4,
                                                2048 * 128 * 2 * 4 * 80)


def tile_ptx(size: int = 128, **defines):
    opts = Options(defines={k: str(v) for k, v in defines.items()},
                   params={"M": size, "N": size, "K": size}, lengths={"C": "M * N"},
                   tensor_maps=TILE_MAPS)
    return import_kernels(str(HERE / "cuda" / "wgmma_tile_ptx.cu"), opts)["wgmma_tile_ptx"]()


def test_raw_ptx_barriers_and_copies_read_as_the_builder_states_them():
    """wgmma_tile.cu with raw PTX: mbarrier.init, arrive.expect_tx, the try_wait.parity
    loop, cp.async.bulk.tensor.2d with the map's address in a u64: the same product, the
    same counts, check silent; FORGET_SWIZZLE the same wrong product as through libcu++; an
    expect_tx that announces A's bytes only lets the wait pass before B lands, and the
    wgmma reading B is the located fault."""
    a, b, arrays = small_integers(128, f16)
    kernel = tile_ptx()
    assert np.array_equal(run(kernel, {}, arrays)["C"].reshape(128, 128), a @ b.T)
    assert not check(kernel, {}).faults
    def by_op(r):   # (each build unrolls its loops its own way: the totals per kind)
        out = {}
        for x in r.sites:
            req, wf = out.get(x.op, (0, 0))
            out[x.op] = (req + x.requests, wf + x.wavefronts)
        return out
    assert by_op(analyze(tile_ptx(1024))) == by_op(analyze(tile(1024)))
    wrong = run(tile_ptx(FORGET_SWIZZLE=1), {}, arrays)["C"].reshape(128, 128)
    assert (wrong != a @ b.T).sum() == 16031
    from kernels_ir import KernelRuntimeError
    with pytest.raises(KernelRuntimeError, match=r"wgmma_tile_ptx\.cu:74:\d+.*wgmma reads "
                                                 r"shared memory no thread has written "
                                                 r"\('sB'\)"):
        run(tile_ptx(SHORT_EXPECT=1), {}, arrays)


def test_raw_ptx_helpers_with_a_default_count_and_two_warps():
    """`arrive(bar, count = 1)` passes its count as an operand: a constant argument is
    known to be 1; the consumer warp waits on what the producer warp arrives on (the two
    sides of the `if` as coroutines)."""
    opts = Options(grid="1", block="64", lengths={"out": "32"})
    kernel = import_kernels(str(HERE / "cuda" / "raw_mbarrier.cu"), opts)["k"]()
    assert np.array_equal(run(kernel, {}, {})["out"], 2 * np.arange(32, dtype=np.float32))
    assert not check(kernel, {}).faults


def assert_persistent_product(make) -> None:
    """fast.cu's persistent kernels (6 and 7) at 2048 x 2048 x 64, the smallest size their
    schedule takes: C (column-major, bf16) = A B^T exactly, and check finds no fault."""
    m = n = 2048
    rng = np.random.default_rng(0)
    a = rng.integers(-2, 3, size=(m, 64)).astype(np.float32)
    b = rng.integers(-2, 3, size=(n, 64)).astype(np.float32)
    kernel = make(m, n, 64)
    arrays = {"A": to_storage(a.ravel(), bf16), "B": to_storage(b.ravel(), bf16)}
    c = from_storage(run(kernel, {}, arrays)["C"], bf16).astype(np.float32).reshape(n, m)
    assert np.array_equal(c.T, a @ b.T)
    assert not check(kernel, {}).faults


def fast7(m: int, n: int, k: int):
    """fast.cu's kernel 7: kernel 6 with raw-PTX barriers and 5-D tensor maps (its host's
    create_tensor_map: shape {64, rows, K/64, 1, 1}, strides {K, 64} elements, box
    {64, rows of the block, BK/64, 1, 1}, 128-byte swizzle), given outermost first with
    each dimension's stride; CEIL_DIV is matmul.cu's."""
    opts = Options(defines={"bf16": "__nv_bfloat16", "CEIL_DIV(M, N)": "(((M) + (N)-1) / (N))"},
                   params={"M": m, "N": n, "K": k}, lengths={"C": "M * N"}, grid="128",
                   block="384", smem=str(3 * 64 * (128 + 256) * 2),
                   kernel="matmulKernel7<128, 256, 64, 384, 3, 128>",
                   tensor_maps={
                       "tensorMapA": "A bf16[1][1][K/64:64][M:K][64] box[1][1][1][128][64] 128B",
                       "tensorMapB": "B bf16[1][1][K/64:64][N:K][64] box[1][1][1][256][64] 128B"})
    return next(iter(import_kernels(FAST.replace("matmul_2", "matmul_7"), opts).values()))()


def test_fast_cu_kernel7_reads_5d_tensor_maps():
    """fast.cu's kernel 7 at 2048 x 2048 x 64 (its schedule needs M / 128 a multiple of 16,
    N / 256 of 8): C = A B^T exactly, check silent. At 2048 x 2048 x 8192 by hand: 128
    tiles x 128 K steps, one copy of each operand per step (128 x 64 and 256 x 64 bf16),
    2 consumer warpgroups x 4 wgmma.m64n256k16 of 4 warps per step, 80 wavefronts each."""
    assert_persistent_product(fast7)
    r = analyze(fast7(2048, 2048, 8192))
    steps = 128 * 128
    assert tma_totals(r) == (2 * steps, steps * (16384 + 32768))
    assert wgmma_totals(r) == (steps * 2 * 4 * 4, steps * 2 * 4 * 80)


RS = str(HERE / "cuda" / "wgmma_rs.cu")


def test_wgmma_with_a_from_registers_multiplies_and_counts_b_only():
    """tests/cuda/wgmma_rs.cu: `wgmma ... {d}, {a0, a1, a2, a3}, descB, p, 1, 1, 0`: each
    thread's fragment of A packed from global memory, B in no-swizzle core matrices."""
    k = import_kernels(RS, Options())["wgmma_rs"]()
    rng = np.random.default_rng(10)
    a = rng.integers(-3, 4, 64 * 16).astype(np.float16)
    b = rng.integers(-3, 4, 64 * 16).astype(np.float16)
    got = run(k, arrays={"A": a, "B": b})["C"].reshape(64, 64)
    want = a.astype(np.float32).reshape(64, 16) @ b.astype(np.float32).reshape(64, 16).T
    assert np.array_equal(got, want)
    r = analyze(k)
    # the rule measured for A in registers: B's 64 x 16 halves / 128 bytes a wavefront,
    # one wgmma per warp of the warpgroup
    assert (r.classes["gmma"].requests, r.classes["gmma"].wavefronts) == (4, 16)


@pytest.mark.gpu
def test_wgmma_with_a_from_registers_on_the_gpu():
    """The generated CUDA on the GPU: its product equals the interpreter's."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    rng = np.random.default_rng(11)
    arrays = {"A": rng.integers(-3, 4, 64 * 16).astype(np.float16).view(np.uint8),
              "B": rng.integers(-3, 4, 64 * 16).astype(np.float16).view(np.uint8)}
    result = run_on_gpu(import_kernels(RS, Options())["wgmma_rs"](), arrays=arrays)
    assert result.matches, result.mismatches

"""wgmma through nvcc's PTX (#57): the descriptors are the 64-bit numbers the program
computes (nvcc ORs the shifted shared address with the constant fields; the IR decodes them
per warpgroup as the hardware does), the accumulators the PTX's registers. fast.cu's kernels
(verbatim, tests/corpus/fast_cu), tests/cuda/wgmma_tile.cu with its two classic mistakes a
-D away, and tests/cuda/wgmma_rs.cu (A from registers): the same products, faults and
counts as the C++ reading of the same files (tests/test_cuda_hopper.py)."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from kernels_ir import bf16, f16, from_storage, run, to_storage
from smemsim import analyze
from smemsim.frontends.cuda import Options
from smemsim.launch.hazards import check
from smemsim.frontends.ptx.cfg import blocks, loops
from smemsim.frontends.ptx.parse import Label, parse

HERE = pathlib.Path(__file__).resolve().parent
FAST = HERE / "corpus" / "fast_cu"
TILE = str(HERE / "cuda" / "wgmma_tile.cu")
RS = str(HERE / "cuda" / "wgmma_rs.cu")
# what fast.cu's matmul.cu provides before including each kernel
FAST_FLAGS = ("-include", "cuda.h", "-include", "cuda/barrier", "-include", "cuda_bf16.h",
              "-include", "cassert")
FAST_DEFINES = {"bf16": "__nv_bfloat16", "cudaCheck(x)": "(x)",
                "CEIL_DIV(M, N)": "(((M) + (N)-1) / (N))"}
MAPS2 = {"tensorMapA": "A bf16[M][K] box[64][64] 128B",
         "tensorMapB": "B bf16[N][K] box[64][64] 128B"}


@pytest.fixture(autouse=True)
def _nvcc(nvcc):
    return nvcc


def ptx_kernel(path: str, options: Options, key: str | None = None):
    from smemsim.frontends.ptx.frontend import import_cu
    found = import_cu(str(path), options, flags=FAST_FLAGS)
    return (found[key] if key else next(iter(found.values())))()


def fast2(size: int, maps=None):
    """fast.cu's kernel 2: `const CUtensorMap*` parameters (maps the host copied to device
    memory), TMA through cuda::barrier, four wgmma.m64n64k16 through make_smem_desc."""
    return ptx_kernel(FAST / "matmul_2.cuh", Options(
        defines=FAST_DEFINES, params={"M": size, "N": size, "K": size},
        lengths={"C": "M * N"}, tensor_maps=maps or MAPS2))


def fast7(m: int, n: int, k: int):
    """fast.cu's kernel 7: persistent, 5-D tensor maps, producer and two consumer
    warpgroups, its barrier waits hand-written PTX loops with their own labels."""
    return ptx_kernel(FAST / "matmul_7.cuh", Options(
        defines=FAST_DEFINES, params={"M": m, "N": n, "K": k}, lengths={"C": "M * N"},
        grid="128", block="384", smem=str(3 * 64 * (128 + 256) * 2),
        kernel="matmulKernel7<128, 256, 64, 384, 3, 128>",
        tensor_maps={
            "tensorMapA": "A bf16[1][1][K/64:64][M:K][64] box[1][1][1][128][64] 128B",
            "tensorMapB": "B bf16[1][1][K/64:64][N:K][64] box[1][1][1][256][64] 128B"}))


def tile(size: int = 128, **defines):
    return ptx_kernel(TILE, Options(
        defines={k: str(v) for k, v in defines.items()},
        params={"M": size, "N": size, "K": size}, lengths={"C": "M * N"},
        tensor_maps={"mapA": "A half[M][K] box[64][64] 128B",
                     "mapB": "B half[N][K] box[64][64] 128B"}), "wgmma_tile")


def small_integers(m: int, n: int, k: int, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (m, k)).astype(np.float32)
    b = rng.integers(-3, 4, (n, k)).astype(np.float32)
    return a, b, {"A": to_storage(a.ravel(), dtype), "B": to_storage(b.ravel(), dtype)}


def values(out, dtype) -> np.ndarray:
    """A pointer parameter's bytes (the PTX path's arrays are bytes) as `dtype`."""
    return from_storage(np.asarray(out).view(dtype.storage), dtype).astype(np.float32)


def test_fast_cu_kernel2_multiplies_and_counts_by_hand():
    """C = A B^T exactly, check silent; at 8192^3: 16,384 blocks x 128 K steps, one 8,192-
    byte TMA copy per tile per step, four wgmma a step, each A and B's 64 x 16 bf16 (4,096
    bytes: 32 wavefronts) per warp of the warpgroup (4 requests)."""
    kernel = fast2(128)
    a, b, arrays = small_integers(128, 128, 128, bf16)
    c = values(run(kernel, {}, arrays)["C"], bf16).reshape(128, 128)
    assert np.array_equal(c.T, a @ b.T)
    assert not check(kernel, {}).faults
    r = analyze(fast2(8192))
    tma = [s for s in r.sites if s.tma is not None]
    assert [(s.tma.instructions, s.tma.bytes) for s in tma] == \
        [(16384 * 128, 16384 * 128 * 8192)] * 2
    gmma = [s for s in r.sites if s.op == "wgmma"]
    assert [(s.loc.line, s.requests, s.wavefronts) for s in gmma] == \
        [(88, 16384 * 128 * 4, 16384 * 128 * 32)] * 4
    assert [s.loc.calls[0][1] for s in gmma] == [132, 133, 134, 135]   # the four calls


def test_a_tensor_map_that_disagrees_with_the_descriptors_is_named_once():
    """No swizzle encoded where make_smem_desc says 128B: one fault for the descriptor's
    line (its four calls alike), naming the element read instead and what to change."""
    maps = dict(MAPS2, tensorMapA="A bf16[M][K] box[64][64] none")
    faults = check(fast2(128, maps), {}).faults
    assert [f.kind for f in faults] == ["layout"]
    assert "matmul_2.cuh:88" in faults[0].message
    assert "wgmma reads A(1, 0) from the bytes of A(1, 8)" in faults[0].message
    assert "the descriptor says SWIZZLE_128B where tensor map 'tensorMapA' wrote no " \
           "swizzle" in faults[0].message


def test_the_tile_kernels_mistakes_are_named_at_the_asm_line():
    """wgmma_tile.cu through its PTX: right as written; -D FORGET_SWIZZLE gives the wrong
    product the H100 computed for the same mistake (16,031 elements) and check says which
    field to change; -D BASE_OFFSET=1 likewise."""
    a, b, arrays = small_integers(128, 128, 128, f16)
    want = a @ b.T
    out = lambda k: np.asarray(run(k, {}, arrays)["C"]).view(np.float32)  # noqa: E731
    assert np.array_equal(out(tile()).reshape(128, 128), want)
    assert not check(tile(), {}).faults
    wrong = tile(FORGET_SWIZZLE=1)
    assert (out(wrong).reshape(128, 128) != want).sum() == 16031
    message = check(wrong, {}).faults[0].message
    assert "wgmma_tile.cu:44" in message and "the descriptor says no swizzle where " \
        "tensor map 'mapA' wrote SWIZZLE_128B" in message
    message = check(tile(BASE_OFFSET=1), {}).faults[0].message
    assert "the descriptor's base offset 1 takes that much off the swizzle's row phase" \
        in message


def test_wgmma_with_a_from_registers():
    """`wgmma ... {d}, {a0, a1, a2, a3}, descB, p, 1, 1, 0`: A's fragment from the four
    registers, B in no-swizzle core matrices: the product, and B's 64 x 16 halves / 128
    bytes a wavefront, one request per warp."""
    k = ptx_kernel(RS, Options(), "wgmma_rs")
    rng = np.random.default_rng(10)
    a = rng.integers(-3, 4, 64 * 16).astype(np.float16)
    b = rng.integers(-3, 4, 64 * 16).astype(np.float16)
    got = run(k, arrays={"A": a.view(np.uint8), "B": b.view(np.uint8)})["C"]
    want = a.astype(np.float32).reshape(64, 16) @ b.astype(np.float32).reshape(64, 16).T
    assert np.array_equal(np.asarray(got).view(np.float32).reshape(64, 64), want)
    r = analyze(k)
    assert (r.classes["gmma"].requests, r.classes["gmma"].wavefronts) == (4, 16)


def test_fast_cu_kernel7_with_its_hand_written_wait_loops():
    """Kernel 7's barrier waits are inline PTX loops (`LAB_WAIT: ... @P1 bra.uni DONE;
    bra.uni LAB_WAIT; DONE:`) pasted once per call: each asm block's labels are its own.
    At 2048 x 2048 x 64, C = A B^T exactly; at 2048 x 2048 x 8192 by hand: 128 tiles x 128
    K steps, one copy of each operand per step (128 x 64 and 256 x 64 bf16), 2 consumer
    warpgroups x 4 wgmma.m64n256k16 of 4 warps a step, 80 wavefronts each."""
    a, b, arrays = small_integers(2048, 2048, 64, bf16)
    c = values(run(fast7(2048, 2048, 64), {}, arrays)["C"], bf16).reshape(2048, 2048)
    assert np.array_equal(c.T, a @ b.T)
    r = analyze(fast7(2048, 2048, 8192))
    steps = 128 * 128
    tma = [s for s in r.sites if s.tma is not None]
    assert sum(s.tma.instructions for s in tma) == 2 * steps
    assert sum(s.tma.bytes for s in tma) == steps * (16384 + 32768)
    gmma = r.classes["gmma"]
    assert (gmma.requests, gmma.wavefronts) == (steps * 2 * 4 * 4, steps * 2 * 4 * 80)


def test_labels_inside_an_asm_block_are_the_blocks_own():
    """Two asm blocks with the same labels: each block's branches reach its own labels,
    and the graph has one loop per block (not a loop entered from both)."""
    wait = ("{\n .reg .pred P1;\n LAB_WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 P1, "
            "[%r1], %r2;\n @P1 bra.uni DONE;\n bra.uni LAB_WAIT;\n DONE:\n }\n")
    text = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
            " .reg .b32 %r<3>;\n mov.u32 %r1, 0;\n mov.u32 %r2, 0;\n" + wait + wait +
            " ret;\n}\n")
    entry = parse(text).entries["k"]
    labels = [x.name for x in entry.body if isinstance(x, Label)]
    assert labels == ["LAB_WAIT$1", "DONE$1", "LAB_WAIT$2", "DONE$2"]
    targets = [x.operands[-1] for x in entry.body if getattr(x, "name", "") == "bra"]
    assert targets == ["DONE$1", "LAB_WAIT$1", "DONE$2", "LAB_WAIT$2"]
    bs = blocks(entry.body)
    assert len(loops(bs, next(iter(bs)))) == 2


def test_a_function_like_macro_with_spaces_reaches_nvcc_whole(tmp_path):
    """-D 'CEIL_DIV(M, N)=...': nvcc splits its own -D at commas and hands its command line
    to a shell; the macros reach it as a header's #define lines instead."""
    from smemsim.frontends.ptx.build import ptx_of
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k(int* o) { __shared__ int s[CEIL_DIV(70, 32)];\n"
                  "  s[threadIdx.x % 3] = 1; o[0] = s[2]; }\n")
    ptx = ptx_of(str(cu), defines={"CEIL_DIV(M, N)": "(((M) + (N)-1) / (N))"})
    assert re.search(r"\.shared \.align 4 \.b8 \S+\[12\]", ptx)   # 3 ints


@pytest.mark.gpu
def test_the_generated_cuda_of_the_ptx_reading_multiplies_on_the_gpu():
    """The IR made from nvcc's PTX, generated as CUDA and run (gpu_backend): its run-time
    descriptors, moved to where the compiler placed the shared buffers, read the same
    tiles; the product equals the interpreter's (kernel 2 through TMA, and A from
    registers)."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    _, _, arrays = small_integers(128, 128, 128, bf16)
    result = run_on_gpu(fast2(128), arrays=arrays)   # (A, B: the maps' own arrays)
    assert result.matches, result.mismatches
    rng = np.random.default_rng(11)
    arrays = {"A": rng.integers(-3, 4, 64 * 16).astype(np.float16).view(np.uint8),
              "B": rng.integers(-3, 4, 64 * 16).astype(np.float16).view(np.uint8)}
    result = run_on_gpu(ptx_kernel(RS, Options(), "wgmma_rs"), arrays=arrays)
    assert result.matches, result.mismatches

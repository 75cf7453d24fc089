"""Public CUDA kernels nobody here wrote (tests/corpus, each copied verbatim with its origin
in a header), read as nvcc builds them: every entry of corpus.json builds and analyzes, or is
refused with the one located message the entry records; several counts derived by hand."""
from __future__ import annotations

import json
import pathlib

import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA frontend needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import KernelError, KernelRuntimeError  # noqa: E402
from smemsim import analyze  # noqa: E402
from tests.built import import_kernels  # noqa: E402
from tools.corpus_status import flags, options  # noqa: E402

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"
ENTRIES = json.loads((CORPUS / "corpus.json").read_text())["entries"]


def build(entry):
    found = import_kernels(str(CORPUS / entry["file"]), options(entry), flags=flags(entry))
    assert list(found) == [entry["kernel"]]
    return found[entry["kernel"]]()


def needs(entry) -> None:
    """Skip, saying why, an entry whose build needs what this machine lacks: PyTorch's
    headers (a torch extension's host code), OpenGL's (cuda-samples' n-body viewer)."""
    if entry.get("needs") == "torch":
        pytest.importorskip("torch", reason="the file includes PyTorch's headers: pip "
                                            "install torch to build it")
    if entry.get("needs") == "GL" and not pathlib.Path("/usr/include/GL/gl.h").exists():
        pytest.skip("the file includes OpenGL's headers (GL/gl.h), which this machine lacks")


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e['file']}:{e['kernel']}")
def test_a_corpus_kernel_imports_as_written(entry):
    needs(entry)
    if "refused" in entry:  # what the IR cannot state yet, said at the line
        with pytest.raises(KernelError, match=entry["refused"]):
            build(entry)
        return
    kernel = build(entry)
    if "fault" in entry:  # what the kernel does wrong, found as built (a run: an analysis
        #                   leaves out what no shared access depends on, a global load's value)
        from kernels_ir import run
        with pytest.raises(KernelRuntimeError, match=entry["fault"]):
            run(kernel)
        return
    r = analyze(kernel)
    has_shared = bool(r.sites)   # lane accesses, TMA copies or wgmma reads of shared memory
    assert has_shared == entry.get("shared", True)


def test_most_of_the_corpus_imports_from_ten_repositories():
    """#24's bar: at least 40 kernels of at least 10 repositories, 90% imported as written."""
    refused = sum("refused" in e for e in ENTRIES)
    assert len(ENTRIES) >= 40 and len(ENTRIES) - refused >= 0.9 * len(ENTRIES), \
        (refused, len(ENTRIES))
    repos = {(CORPUS / e["file"]).read_text().split("github:")[1].split()[0] for e in ENTRIES}
    assert len(repos) >= 10, sorted(repos)


def entry(file):
    return next(e for e in ENTRIES if e["file"] == file)


def test_sgemm_shared_memory_blocking_counts_by_hand():
    """siboehm's kernel 3 at M = N = K = 1024, BLOCKSIZE 32: 32 x 32 blocks of 32 warps,
    32 tiles. Per warp and tile: As and Bs stored once each (consecutive words: 1
    wavefront); 32 dot steps of two loads, As[threadRow * 32 + dotIdx] (one row per warp: a
    broadcast) and Bs[dotIdx * 32 + threadCol] (32 consecutive words): 1 wavefront each.
    As built, ptxas reads four steps' As at once (one LDS.128, a broadcast of 16 bytes: 2
    wavefronts): 32 + 8 loads, 32 + 16 wavefronts, as the H200 measured (docs/validation)."""
    r = analyze(build(entry("sgemm_cuda/3_kernel_shared_mem_blocking.cuh")))
    warp_tiles = 32 * 32 * 32 * 32
    assert (r.store.requests, r.store.wavefronts) == (2 * warp_tiles,) * 2
    assert (r.load.requests, r.load.wavefronts) == (40 * warp_tiles, 48 * warp_tiles)


def test_transpose_conflicts_by_hand():
    """cuda-samples' transposeCoalesced at 1024 x 1024 (TILE_DIM 32, BLOCK_ROWS 16): 32 x 32
    blocks of 16 warps, two rows each. Writes tile[ty + j][tx] are conflict-free; reads
    tile[tx][ty + j] put a warp's 32 lanes 32 words apart, all in one bank: 32 wavefronts.
    transposeNoBankConflicts' padding (TILE_DIM + 1) makes the reads 1 wavefront."""
    requests = 32 * 32 * 16 * 2
    r = analyze(build(next(e for e in ENTRIES if e["kernel"] == "transposeCoalesced")))
    assert (r.load.requests, r.load.wavefronts) == (requests, 32 * requests)
    assert (r.store.requests, r.store.wavefronts) == (requests, requests)
    r = analyze(build(next(e for e in ENTRIES if e["kernel"] == "transposeNoBankConflicts")))
    assert (r.load.wavefronts, r.store.wavefronts) == (requests, requests)


def test_sgemm_1d_blocktiling_counts_by_hand():
    """Kernel 4 <64, 64, 8, 8>: 16 x 16 blocks of 16 warps, 128 tiles. Per warp and tile:
    two stores (As[tid], Bs[tid]: 1 wavefront); per dot step (8) one Bs load (32
    consecutive words) and 8 As loads (threadRow = tid / 64: one address per warp, a
    broadcast): 72 loads of 1 wavefront. As built, ptxas reads a step's 8 As with two
    LDS.128 (2 wavefronts each): 8 x (1 + 2) loads, 8 x (1 + 4) wavefronts, as the H200
    measured (docs/validation)."""
    r = analyze(build(entry("sgemm_cuda/4_kernel_1D_blocktiling.cuh")))
    warp_tiles = 16 * 16 * 16 * 128
    assert (r.store.requests, r.store.wavefronts) == (2 * warp_tiles,) * 2
    assert (r.load.requests, r.load.wavefronts) == (24 * warp_tiles, 40 * warp_tiles)


def test_n_body_float3_tiles_counts_by_hand():
    """Learn-CUDA's n-body: float3 positions in shared memory (12 bytes, no such access:
    three 4-byte ones, lanes 12 bytes apart, 3 coprime with 32 banks: conflict-free). 30,000
    bodies in blocks of 128: 235 blocks, the last with 48 bodies (2 warps), 938 warps that
    pass `i < n`; each runs 235 tiles, storing 3 words a tile and reading 3 a j (128 j,
    broadcast: j is the same in every lane). As built, ptxas reads several j's coordinates
    at once (wider broadcasts): the H200 measured 21,161,280 loads, 42,300,000
    wavefronts (docs/validation), as counted here."""
    r = analyze(build(entry("learn_cuda/n_body/n_body.cu")))
    stores = [s for s in r.sites if s.op == "store"]
    assert len(stores) == 3
    assert all(s.requests == s.wavefronts == 938 * 235 for s in stores)
    assert (r.load.requests, r.load.wavefronts) == (21_161_280, 42_300_000)


def test_shfl_scan_with_the_width_its_host_passes():
    """cuda-samples' shfl_scan_test shuffles with a width passed as a kernel parameter (32)
    and with `blockDim.x / warpSize` under the mask `(1 << (blockDim.x / warpSize)) - 1`:
    run-time width and mask. Its host launches 256 blocks of 256 threads (8 warps, 32
    bytes of sums). By hand: each warp's last lane stores its sum (8 x 256 requests); warp
    0's lanes 0-7 load and store the 8 sums (256 each); warps 1-7 read one sum, a
    broadcast (7 x 256); each access 1 wavefront. On ones, the block-wise scan is
    i % 256 + 1 and every block's partial sum 256."""
    import numpy as np

    from tests.built import run
    kernel = build(next(e for e in ENTRIES if e["kernel"] == "shfl_scan_test"))
    r = analyze(kernel)
    assert [(s.requests, s.wavefronts) for s in r.sites] == \
        [(2048, 2048), (256, 256), (256, 256), (1792, 1792)]
    out = run(kernel, arrays={"data": np.ones(65536, np.int32),
                              "partial_sums": np.zeros(256, np.int32)})
    assert (out["data"] == np.arange(65536) % 256 + 1).all()
    assert (out["partial_sums"] == 256).all()


def hotspot(cols: int, rows: int):
    """Rodinia's calculate_temp over a cols x rows grid, as its host launches it."""
    e = dict(entry("rodinia/hotspot.cu"))
    e["params"] = dict(e["params"], grid_cols=cols, grid_rows=rows)
    e["grid"] = f"({cols} + 12 - 1) / 12, ({rows} + 12 - 1) / 12"
    return build(e)


@pytest.mark.parametrize("separable", [True, False])
def test_hotspot_with_edge_blocks_counts_as_the_brute_force(monkeypatch, separable):
    """hotspot's guards and its clamped neighbours (`N = (N < validYmin) ? validYmin : N`,
    `validYmin = (blkY < 0) ? -blkY : 0`) read one block axis each: with the decided
    comparisons' selects folded, a block class stops reading the axis only the untaken side
    reads. Every site's counts equal running every block (both ways of classing them), at
    a size whose last blocks overhang the grid on both axes."""
    import smemsim.launch.trace as trace
    from tests.test_analysis import assert_matches_reference
    monkeypatch.setattr(trace, "SEPARABLE_BLOCKS", 0 if separable else 1 << 62)
    assert_matches_reference(hotspot(50, 41))


def test_hotspot_at_a_16k_grid_is_classed_not_walked():
    """At 16,384 x 16,384 cells (1,366^2 blocks) the classes are a few per axis: it took
    266 s and 3.7 GB block by block (docs/performance.md). The tile load `temp_on_cuda[ty]
    [tx] = temp_src[index]` is guarded by the cell's range; a warp is two rows of the 16 x 16
    block. Columns always leave each warp some cells, rows do not: block row 0 covers rows
    -2..13 (its warp 0, rows -2 and -1, loads nothing), block row 1,365 rows 16,378..16,393
    (warps 3-7, rows 16,384 on, nothing): 8 requests a block less 1 + 5 in those rows.
    (nvcc's build computes the border offsets branch-free, `(blkX >> 31) & -blkX`: the
    sign mask is a comparison the classes decide.)"""
    e = dict(entry("rodinia/hotspot.cu"))
    e["params"] = dict(e["params"], grid_cols=16384, grid_rows=16384)
    e["grid"] = "(16384 + 12 - 1) / 12, (16384 + 12 - 1) / 12"
    r = analyze(build(e))
    assert r.blocks_traced < 64
    assert (r.sites[0].loc.line, r.sites[0].requests) == (167, 1366 * (1366 * 8 - 1 - 5))


@pytest.mark.parametrize("kernel", ["scalarProductKernel_intrinsics",
                                    "scalarProductKernel_native"])
def test_fp16_scalar_product_counts_by_hand(kernel):
    """cuda-samples' fp16ScalarProduct: 128 blocks of 4 warps; each thread stores its half2
    twice, then reduceInShared (a half2 array passed to a device function) halves 128 -> 1:
    warps storing 2, 1, 1, 1, 1, 1, 1 and loading twice as many; thread 0 reads the
    result. 4-byte pairs, consecutive: one wavefront a request. As built, thread 0 keeps
    the last step's sum in a register (no read of the result): 16 loads a block, as the
    H200 measured (docs/validation)."""
    r = analyze(build(next(e for e in ENTRIES if e["kernel"] == kernel)))
    assert (r.store.requests, r.store.wavefronts) == (128 * (2 * 4 + 8),) * 2
    assert (r.load.requests, r.load.wavefronts) == (128 * 2 * 8,) * 2


def test_reduction_multi_block_cg_counts_by_hand():
    """cuda-samples' reduceSinglePassMultiBlockCG, launched with cudaLaunchCooperativeKernel
    (its grid.sync() needs it) as the host gives: 264 blocks of 1,024 threads (the
    occupancy API's numbers, given), n = 2^24, doubles in shared memory (a warp's 256
    bytes: 2 wavefronts). The grid-stride loop reads and writes sdata[rank] 62 times in
    every warp and a 63rd time in the first 16 blocks: 524,288 requests each way; per block
    the zeroing and reduceBlock's sdata[tid] (32 warps each), thread 0's 32 reads of the
    warps' sums, its sdata[0] store and the read of sdata[0]: 65 loads, 65 stores. As
    built, the grid-stride loop's sum stays in a register and the tree is nvcc's own:
    17,160 loads (25,608 wavefronts) and 25,608 stores (50,952), as the H200 measured
    (docs/validation)."""
    r = analyze(build(entry("cuda_samples/reductionMultiBlockCG.cu")))
    assert (r.grid, r.block, r.dynamic_smem) == ((264, 1, 1), (1024, 1, 1), 1024 * 8)
    assert (r.load.requests, r.load.wavefronts) == (17_160, 25_608)
    assert (r.store.requests, r.store.wavefronts) == (25_608, 50_952)


def test_nbody_counts_by_hand():
    """cuda-samples' nbody (GPU Gems 3's tile calculation): integrateBodies<float>, its
    vec4<float>::Type read through the header's specialization (float4) and its
    SharedMemory<float4>() tile. 16,384 bodies, blocks of 256 (64 blocks of 8 warps), 64
    tiles: each warp stores its float4 (512 bytes: 4 wavefronts) once a tile, then reads
    sharedPos[counter] for 256 counters, every lane the same 16 bytes (2 wavefronts, the
    sm_90 rule for a 16-byte broadcast)."""
    needs(entry("cuda_samples/bodysystemcuda.cu"))
    r = analyze(build(entry("cuda_samples/bodysystemcuda.cu")))
    assert (r.grid, r.block, r.dynamic_smem) == ((64, 1, 1), (256, 1, 1), 256 * 16)
    warps_tiles = 64 * 8 * 64
    assert (r.store.requests, r.store.wavefronts) == (warps_tiles, 4 * warps_tiles)
    assert (r.load.requests, r.load.wavefronts) == (256 * warps_tiles, 2 * 256 * warps_tiles)


@pytest.mark.gpu
def test_nbody_on_the_gpu():
    """The imported nbody kernel's generated CUDA (a float4 view of dynamic shared memory)
    against the interpreter, at 1,024 bodies."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    e = dict(entry("cuda_samples/bodysystemcuda.cu"))
    needs(e)
    e["hosts"] = dict(e["hosts"], **{"deviceData[dev].numBodies": "1024", "numBodies": "1024"})
    e["params"] = dict(e["params"], deviceNumBodies=1024)
    e["lengths"] = {k: "1024" for k in e["lengths"]}
    result = run_on_gpu(build(e))
    assert result.matches, result.mismatches


def test_gpu_mode_shared_reduction_by_hand():
    """gpu-mode's lecture 9 SharedMemoryReduction, launched <<<1, size / 2>>> with size
    2048: 32 warps store input_s once (32 requests); the halving loop runs strides 512 ..
    1, with ceil(stride / 32) warps active: 16 + 8 + 4 + 2 + 1 + 5 x 1 = 36 warp steps,
    each two loads and a store of consecutive words; then thread 0 loads input_s[0]. One
    wavefront each: 73 loads, 68 stores."""
    r = analyze(build(entry("gpu_mode/lecture_009_shared_reduce.cu")))
    assert (r.grid, r.block) == ((1, 1, 1), (1024, 1, 1))
    assert (r.load.requests, r.load.wavefronts) == (73, 73)
    assert (r.store.requests, r.store.wavefronts) == (68, 68)


def test_cuda_hgemm_permuted_layout_removes_the_ldmatrix_conflicts():
    """Bruce-Lee-LY/cuda_hgemm at M = 512, N = 2048, K = 1024: mmaBaseKernel's A and B
    tiles have rows of 32 halves (64 bytes), so the 8 rows of an ldmatrix matrix fall on
    the banks of rows 0 and 1 four times over: 4 wavefronts a matrix, 16 an x4 where 4 is
    ideal. mmaPermutedKernel XORs the 16-byte column with the row: every matrix 1
    wavefront. The same 196,608 ldmatrix instructions: 2,097,152 wavefronts against
    524,288. (Both read as written: the file's `, ##__VA_ARGS__` logging macro, its
    initMmaBase() host helper for the dynamic shared bytes.)"""
    base = analyze(build(entry("cuda_hgemm/mma/mma_base.cu")))
    permuted = analyze(build(entry("cuda_hgemm/mma/mma_permuted.cu")))
    ldsm = base.classes["ldsm"], permuted.classes["ldsm"]
    assert (ldsm[0].requests, ldsm[0].wavefronts, ldsm[0].ideal) == \
        (196_608, 2_097_152, 524_288)
    assert (ldsm[1].requests, ldsm[1].wavefronts, ldsm[1].ideal) == \
        (196_608, 524_288, 524_288)
    # initMmaBase's std::max((BLOCK_ROWS + BLOCK_COLS) * AB_SMEM_STRIDE, BLOCK_ROWS *
    # C_SMEM_STRIDE) halves: the C tile's 65,536 bytes
    assert base.dynamic_smem == max((256 + 128) * 32 * 2, 256 * 128 * 2) == 65_536


def test_parboil_sgemm_counts_by_hand():
    """Parboil's mysgemmNT (Volkov's register tiling) at M = N = K = 1024: 8 x 64 blocks of
    4 warps, 128 steps of 8 along k. Per warp and step: one store of b_s[ty][tx] (two rows
    of 16: 32 consecutive words, 1 wavefront), then 8 x 16 reads b_s[j][kk], one word for
    the whole warp (a broadcast: 1 wavefront each). As built, ptxas reads four of them at
    once (an LDS.128 broadcast: 2 wavefronts): 32 loads of 2 wavefronts, as the H200
    measured (docs/validation)."""
    r = analyze(build(entry("parboil/sgemm_kernel.cu")))
    warp_steps = 8 * 64 * 4 * 128
    assert (r.grid, r.block) == ((8, 64, 1), (16, 8, 1))
    assert (r.store.requests, r.store.wavefronts) == (warp_steps, warp_steps)
    assert (r.load.requests, r.load.wavefronts) == (32 * warp_steps, 64 * warp_steps)

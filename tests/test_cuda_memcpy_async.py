"""libcu++'s cuda::memcpy_async completing on a cuda::barrier (#24): as CUDA 13's libcu++
builds it for sm_90, 4- and 8-byte pieces are cp.async + cp.async.mbarrier.arrive, 16-byte
aligned copies a cp.async.bulk + mbarrier.expect_tx; a pointer that switches between
barriers (siboehm's double buffering swaps two) is an index into one array of them. A
public kernel (SGEMM_CUDA's kernel 12, verbatim) and one written here
(tests/cuda/memcpy_async_barrier.cu) with its mistakes a -D away."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA frontend needs tree-sitter-cuda")

from kernels_ir import KernelBuilder, KernelRuntimeError, f32, threadIdx  # noqa: E402
from smemsim import analyze  # noqa: E402
from smemsim.frontends.cuda import Options  # noqa: E402
from tests.built import by_line, import_kernels, run
from smemsim.launch.hazards import check  # noqa: E402
from tests.conftest import require_nvrtc  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
STAGE = str(HERE / "cuda" / "memcpy_async_barrier.cu")
SGEMM12 = str(HERE / "corpus" / "sgemm_cuda" / "12_kernel_double_buffering.cuh")
SGEMM12_KEY = "runSgemmDoubleBuffering2<128, 128, 16, 64, 64, 4, 8, 4, 128>"


def stage(**defines):
    opts = Options(defines={k: str(v) for k, v in defines.items()},
                   lengths={"in": "tiles * 256", "out": "2 * tiles * 256"})
    return import_kernels(STAGE, opts)["stage"]()


def sgemm12(size: int):
    opts = Options(defines={"WARPSIZE": "32"}, grid=f"{size // 128}, {size // 128}",
                   block="128", lengths={"A": "M * K", "B": "K * N", "C": "M * N"},
                   params={"M": size, "N": size, "K": size, "alpha": 1.0, "beta": 0.0})
    return import_kernels(SGEMM12, opts, SGEMM12_KEY)[SGEMM12_KEY]()


def test_a_tile_staged_through_two_swapped_barriers():
    """Each block (256 threads, 4 tiles) copies tile 0 in 4-byte pieces and tiles 1-3 as 64
    16-byte bulk copies into the other half, waits on the front barrier, reads, swaps."""
    x = np.arange(1024, dtype=np.float32)
    out = run(stage(), arrays={"in": x})["out"].reshape(2, 4, 256)
    assert (out == x.reshape(4, 256)[:, (np.arange(256) + 1) % 256]).all()
    r = analyze(stage())
    # 16 warp requests of 4-byte cp.async (one per warp and block), 12 warp-level bulk
    # copies (2 warps x 3 tiles x 2 blocks) counted by Nsight as TMA, not LSU wavefronts
    assert [(s.op, s.requests, s.wavefronts) for s in r.sites] == \
        [("cp_async", 16, 16), ("bulk_load", 12, 0), ("load", 64, 64)]
    assert (r.sites[1].tma.copies, r.sites[1].tma.bytes) == (384, 384 * 16)
    assert check(stage()).clean


def test_reading_before_the_barrier_and_a_copy_promising_less():
    with pytest.raises(KernelRuntimeError, match=r"reads 'tile' .* while the cp.async of "
                                                 r"line "
                                                 r"23 to it is still in flight: it completes "
                                                 r"on an mbarrier .* wait on that barrier"):
        run(stage(EARLY=1))
    # 16 bytes with only a float's alignment: libcu++ copies four 4-byte pieces, each a
    # 4-way conflict (lanes 16 bytes apart), where the aligned copy is one bulk copy
    assert by_line(analyze(stage(COPY16_PLAIN=1)))[1] == (27, "cp_async", 4, 48, 192)


def test_sgemm_double_buffering_multiplies_as_written():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    b = rng.standard_normal((256, 256)).astype(np.float32)
    c = run(sgemm12(256), arrays={"A": a.ravel(), "B": b.ravel(),
                                  "C": np.zeros(256 * 256, np.float32)})["C"]
    assert np.allclose(c.reshape(256, 256), a @ b, atol=1e-3)
    assert check(sgemm12(256)).clean


def test_sgemm_double_buffering_counts_by_hand():
    """At 1024^3: 64 blocks of 4 warps, 64 tiles each (63 in the loop and the first).
    As: 16 cp.async of 4 bytes per thread and tile, lanes at rows tid / 4 (8 banks) of
    columns tid % 4 (4 words a bank): 4 wavefronts. Bs: 4 copies of 16 bytes per thread
    and tile, bulk (no LSU wavefronts). The reads are as built: ptxas merges each thread's
    8 As and 16 Bs loads of a dot step into 2 and 4 LDS.128, which the H200 measured:
    1,572,864 load requests and 5,242,880 wavefronts (docs/validation/ptx-recount-
    2026-11-30.json), not the 6,291,456 and 8,388,608 of the source's 4-byte loads."""
    r = analyze(sgemm12(1024))
    warp_tiles = 64 * 4 * 64
    ldgsts = r.classes["ldgsts"]
    assert (ldgsts.requests, ldgsts.wavefronts) == (16 * warp_tiles, 64 * warp_tiles)
    bulk = [s for s in r.sites if s.op == "bulk_load"]
    assert sum(s.tma.copies for s in bulk) == 4 * 32 * warp_tiles
    assert (r.load.requests, r.load.wavefronts) == (1_572_864, 5_242_880)


def _tied_copies(wait: bool):
    """Builder form: each thread copies one float with cp.async, ties it to the barrier with
    cp.async.mbarrier.arrive, arrives and (if `wait`) waits, then reads a neighbour's."""
    k = KernelBuilder("tied" if wait else "untied")
    src = k.global_array("src", f32, 64)
    out = k.global_array("out", f32, 64, intent="out")
    bar = k.shared("bar", "u64", 1, align=8)
    s = k.shared("s", f32, 64)
    with k.if_(threadIdx.x == 0):
        k.mbarrier_init(bar, 0, 64)
    k.syncthreads()
    k.cp_async(s, threadIdx.x, src, threadIdx.x)
    k.cp_async_arrive(bar, 0)
    k.mbarrier_arrive(bar, 0)
    if wait:
        k.mbarrier_wait(bar, 0, 0)
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64]
    k.launch(1, 64)
    return k.build()


def test_a_copy_tied_to_a_barrier_lands_with_its_phase():
    x = np.arange(64, dtype=np.float32)
    assert run(_tied_copies(True), arrays={"src": x})["out"].tolist() == \
        np.roll(x, -1).tolist()
    assert check(_tied_copies(True)).clean
    with pytest.raises(KernelRuntimeError, match="still in flight: it completes on an mbarrier"):
        run(_tied_copies(False), arrays={"src": x})


def test_the_generated_cuda_compiles():
    require_nvrtc()
    from gpu_backend.codegen import generate
    from gpu_backend.compile import compile_kernel
    source = generate(stage()).source
    assert "cp.async.mbarrier.arrive.shared::cta.b64" in source
    assert "mbarrier.expect_tx.relaxed.cta.shared::cta.b64" in source
    for kernel in (stage(), _tied_copies(True)):
        c = compile_kernel(kernel, "sm_90")
        assert c.widths_ok, [s.describe() for s in c.sites if not s.ok]


@pytest.mark.gpu
@pytest.mark.parametrize("make", [stage, lambda: _tied_copies(True), lambda: sgemm12(256),
                                  lambda: piped()], ids=["stage", "tied", "sgemm12", "piped"])
def test_on_the_gpu(make):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    result = run_on_gpu(make())
    assert result.matches, result.mismatches


def test_the_kernels_file_import_writes_counts_the_same(tmp_path):
    from smemsim.frontends.loader import load_kernels
    from smemsim.frontends.ptx.frontend import write_kernels_file
    opts = Options(lengths={"in": "tiles * 256", "out": "2 * tiles * 256"})
    text, _ = write_kernels_file(STAGE, opts, "stage", str(tmp_path))
    assert "kb.cp_async_arrive(front, (" in text   # (each barrier named as the source does)
    assert "kb.mbarrier_expect_tx(back, (" in text
    path = tmp_path / "stage_kernels.py"
    path.write_text(text)
    written = load_kernels(str(path))["stage"]()
    x = np.arange(1024, dtype=np.float32)
    assert (run(written, arrays={"in": x})["out"] == run(stage(), arrays={"in": x})["out"]).all()
    assert [(s.requests, s.wavefronts) for s in analyze(written).sites] == \
        [(s.requests, s.wavefronts) for s in analyze(stage()).sites]


PIPED = str(HERE / "cuda" / "pipeline_copy.cu")


def piped(**defines):
    opts = Options(defines={k: str(v) for k, v in defines.items()},
                   lengths={"in": "4 * tiles * 1024", "out": "4 * 256"})
    return import_kernels(PIPED, opts)["piped_sum"]()


def test_a_threads_own_pipeline_double_buffers_as_cp_async_groups():
    """cuda::pipeline<thread_scope_thread>: memcpy_async of aligned_size_t<alignof(float4)>
    is one 16-byte cp.async.cg a thread (LDGSTS.E.BYPASS.128), producer_commit a group,
    pipeline_consumer_wait_prior<N> a wait for all but N; acquire and release state
    nothing. 4 blocks x 8 warps x 3 tiles copies; every sum as numpy's."""
    x = np.random.default_rng(4).integers(-100, 100, 4 * 3 * 1024).astype(np.float32)
    out = run(piped(), arrays={"in": x})["out"].reshape(4, 256)
    tiles = x.reshape(4, 3, 1024)
    np.testing.assert_array_equal(out, tiles[:, :, (np.arange(256) * 5) % 1024].sum(1))
    r = analyze(piped())
    assert [x[1:4] for x in by_line(r)] == \
        [("cp_async_bypass", 16, 32), ("cp_async_bypass", 16, 64), ("load", 4, 96)]
    assert check(piped()).clean


def test_waiting_for_too_few_stages_reads_a_tile_in_flight():
    """pipeline_consumer_wait_prior<2> with two stages committed waits for none: the read
    of tile 0 (line 47) races its copy."""
    with pytest.raises(KernelRuntimeError, match=r"pipeline_copy.cu:47:16, .* reads 'buf' .* "
                                                 r"while a cp.async to it is still in flight"):
        run(piped(WAIT_PRIOR=2))


def ring(**defines):
    opts = Options(defines={k: str(v) for k, v in defines.items()},
                   lengths={"in": "4 * tiles * 1024", "out": "4 * 256"})
    return import_kernels(PIPED, opts)["ring_sum"]()


def test_consumer_wait_takes_the_oldest_stage_of_a_ring():
    """pipe.consumer_wait() as libcu++ writes it for a thread's own pipeline: while stages
    are pending it waits with (committed - waited for - 1) left (cp.async.wait_group of a
    count the kernel's run decides), so the oldest stage has landed. ring_sum keeps three
    of its seven tiles in flight through three buffers (the launch's 7): every sum as
    numpy's, 4 blocks x 8 warps x 7 tiles copies and reads, and the check finds nothing."""
    x = np.random.default_rng(5).integers(-100, 100, 4 * 7 * 1024).astype(np.float32)
    out = run(ring(), arrays={"in": x})["out"].reshape(4, 256)
    np.testing.assert_array_equal(
        out, x.reshape(4, 7, 1024)[:, :, (np.arange(256) * 5) % 1024].sum(1))
    assert [x[1:4] for x in by_line(analyze(ring()))] == \
        [("cp_async_bypass", 16, 224), ("load", 4, 224)]
    assert check(ring()).clean
    # two stages of a two-buffer ring: the same sums
    out = run(ring(STAGES=2), arrays={"in": x})["out"].reshape(4, 256)
    np.testing.assert_array_equal(
        out, x.reshape(4, 7, 1024)[:, :, (np.arange(256) * 5) % 1024].sum(1))


def test_a_blocks_pipeline_partitions_producers_and_consumers():
    """A block's pipeline (pipeline_shared_state<thread_scope_block, 3>, make_pipeline(block,
    &state, role)) as libcu++ builds it of mbarriers: each producer warp adds to the state's
    count (an aggregated atomic), thread 0 initializes every stage's produced and consumed
    barriers with the producers' and consumers' counts; producer_acquire waits for the
    stage's consumed phase, producer_commit ties the copies to its produced barrier and
    arrives, consumer_wait/consumer_release the other way round; the destructor's quit()
    is one more aggregated atomic a warp. Warp 8 fills the ring for warps 0-7: sums as
    numpy's, no hazard."""
    x = np.random.default_rng(9).integers(-100, 100, 4 * 7 * 1024).astype(np.float32)
    opts = Options(lengths={"in": "4 * tiles * 1024", "out": "4 * 256"})
    k = import_kernels(PIPED, opts)["shared_ring_sum"]()
    out = run(k, arrays={"in": x})["out"].reshape(4, 256)
    np.testing.assert_array_equal(
        out, x.reshape(4, 7, 1024)[:, :, (np.arange(256) * 5) % 1024].sum(1))
    # thread 0's stores of the count, the producers' add (one lane's atom after
    # match.any, its result unused at the state's one address: an aggregated add, as
    # the state's address is read now that each inline asm block's `%tmp` is its own),
    # its load; 7 tiles of 8 pieces of a warp's copies; the consumers' reads; a quit per
    # warp (4 blocks x 9 warps)
    assert by_line(analyze(k)) == [
        (90, "atomic_aggregated", 4, 4, 4), (90, "load", 4, 4, 4), (90, "store", 4, 8, 8),
        (97, "cp_async_bypass", 16, 224, 0), (102, "load", 4, 224, 224),
        (107, "atomic", 4, 36, 36)]
    assert check(k).clean


def test_an_auto_thread_pipeline(tmp_path):
    """`auto pipe = cuda::make_pipeline();` is a thread's own pipeline, as its type says
    when written out: one 4-byte copy a thread, consumer_wait() before the block reads."""
    cu = tmp_path / "t.cu"
    cu.write_text("""#include <cuda/pipeline>
__global__ void k(const float *in, float *out)
{
    __shared__ float s[256];
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&s[threadIdx.x], in + blockIdx.x * 256 + threadIdx.x, sizeof(float),
                       pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
    pipe.consumer_release();
}
void h(const float *i, float *o) { k<<<2, 256>>>(i, o); }
""")
    k = import_kernels(str(cu), Options(lengths={"in": "512", "out": "512"}))["k"]()
    x = np.arange(512, dtype=np.float32)
    np.testing.assert_array_equal(run(k, arrays={"in": x})["out"],
                                  x.reshape(2, 256)[:, ::-1].ravel())
    assert [(s.op, s.width, s.requests) for s in analyze(k).sites] == \
        [("cp_async", 4, 16), ("load", 4, 16)]


def test_a_block_pipelines_quit_runs_as_built(tmp_path):
    """pipe.quit() of a block's pipeline is the code libcu++ compiles it to (an aggregated
    atomic on the state's count, mbarrier.inval): read as built, the kernel runs."""
    cu = tmp_path / "t.cu"
    cu.write_text("""#include <cooperative_groups.h>
#include <cuda/pipeline>
__global__ void k(float *out)
{
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
    auto block = cooperative_groups::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    pipe.quit();
    out[threadIdx.x] = 1.0f;
}
void h(float *o) { k<<<1, 64>>>(o); }
""")
    k = import_kernels(str(cu), Options(lengths={"out": "64"}))["k"]()
    np.testing.assert_array_equal(run(k, types={"out": np.float32})["out"], np.ones(64))


def test_one_stage_more_in_flight_than_buffers_copies_over_a_copy_in_flight():
    """AHEAD=4 tiles in flight through 3 buffers (NVIDIA's globalToShmemAsyncCopy does this:
    `aStage <= a + aStep * maxPipelineStages` issues 5 stages into 4 buffers): tile 3's copy
    goes to buffer 0 while tile 0's is still in flight, at the memcpy_async's line (67),
    for the first tile (the error names the build's loop counters)."""
    with pytest.raises(KernelRuntimeError, match=r"pipeline_copy.cu:67:13, .* writes 'ring' .*"
                                                 r"while a cp.async to it is still in flight.*"
                                                 r"iteration "):
        run(ring(AHEAD=4))


CG = str(HERE / "cuda" / "cg_copy.cu")


def cg_kernel(name, **defines):
    opts = Options(defines={k: str(v) for k, v in defines.items()},
                   lengths={"in": "4 * 8 * 5 * 40", "out": "4 * 256"})
    return import_kernels(CG, opts)[name]()


def test_a_blocks_cooperative_groups_copy():
    """cg::memcpy_async(block, dst, src, sizeof(float) * block.size()) as
    cooperative_groups/details/async.h writes it: float pointers promise 4 bytes, so each
    thread copies every block.size()-th 4-byte piece from its rank (one here: 256 pieces,
    256 threads; cp.async.ca, LDGSTS), then commits; cg::wait(block) waits for every group
    and syncs. 4 blocks x 8 warps x 3 batches copies; the sums as numpy's; no hazard."""
    x = np.random.default_rng(6).integers(-100, 100, 4 * 8 * 5 * 40).astype(np.float32)
    k = cg_kernel("block_batches")
    out = run(k, arrays={"in": x})["out"].reshape(4, 256)
    np.testing.assert_array_equal(
        out, x[:4 * 3 * 256].reshape(4, 3, 256)[:, :, (np.arange(256) * 7) % 256].sum(1))
    assert [(s.op, s.width, s.requests, s.wavefronts) for s in analyze(k).sites] == \
        [("cp_async", 4, 96, 96), ("load", 4, 96, 96)]
    assert check(k).clean


def test_a_warp_tiles_copy_repeats_its_last_piece_past_the_rest():
    """cg::memcpy_async(warp, dst, src, cuda::aligned_size_t<16>(160)) of a 32-thread tile:
    ten 16-byte pieces (cp.async.cg), fewer than the tile, so lane i copies piece min(i, 9)
    (the library's remainder step: lanes 9-31 copy the tenth piece again, the same bytes to
    the same place: two same-value warnings in `check`, no race). wait_prior<1>(warp)
    leaves the next row in flight. 4 blocks x 8 warps, 1 + 4 copies each; the sums as
    numpy's."""
    x = np.random.default_rng(7).integers(-100, 100, 4 * 8 * 5 * 40).astype(np.float32)
    k = cg_kernel("warp_rows")
    out = run(k, arrays={"in": x})["out"].reshape(4, 8, 32)
    rows, lane = x.reshape(4, 8, 5, 40), np.arange(32)
    np.testing.assert_array_equal(out, (rows[..., lane] + rows[..., 39 - lane % 8]).sum(2))
    assert [x[1:4] for x in by_line(analyze(k))] == \
        [("cp_async_bypass", 16, 32), ("cp_async_bypass", 16, 128), ("load", 4, 320)]
    report = check(k)
    assert report.clean and report.same_value   # (one a copy of the build's loops)
    assert {(x.first_loc.line, x.array) for x in report.same_value} == {(38, "row"),
                                                                          (42, "row")}
    assert report.same_value[0].threads == ((9, 0, 0), (10, 0, 0))


def test_grid_stride_batches_of_the_programming_guides_shape(tmp_path):
    """The CUDA C++ Programming Guide's async-copy example shape: `cg::this_grid()` for the
    stride between batches (its size(): every thread of the grid; thread_rank(): the
    block's rank times the block's size plus the thread's), `block.group_index().x`, an
    `extern __shared__` batch. 8 blocks x 4 warps x 4 batches copies; outputs as numpy's."""
    cu = tmp_path / "t.cu"
    cu.write_text("""#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;
__global__ void batches(int *out, const int *in, int batch_count)
{
    auto grid = cg::this_grid();
    auto block = cg::this_thread_block();
    extern __shared__ int shared[];
    for (int b = 0; b < batch_count; ++b) {
        size_t at = block.group_index().x * block.size() + grid.size() * b;
        cg::memcpy_async(block, shared, in + at, sizeof(int) * block.size());
        cg::wait(block);
        out[at + block.thread_rank()] = shared[(block.thread_rank() * 3) % block.size()] +
                                        grid.thread_rank();
        block.sync();
    }
}
void h(int *o, const int *i) { batches<<<8, 128, 128 * sizeof(int)>>>(o, i, 4); }
""")
    k = import_kernels(str(cu), Options(lengths={"out": "4096", "in": "4096"}))["batches"]()
    x = np.random.default_rng(8).integers(-1000, 1000, 4096).astype(np.int32)
    out = run(k, arrays={"in": x}, types={"out": np.int32})["out"].reshape(4, 8, 128)
    t = np.arange(128)
    want = x.reshape(4, 8, 128)[:, :, (t * 3) % 128] + (np.arange(8)[:, None] * 128 + t)
    np.testing.assert_array_equal(out, want)
    assert [(s.op, s.width, s.requests) for s in analyze(k).sites] == \
        [("cp_async", 4, 128), ("load", 4, 128)]


def test_reading_a_cooperative_copy_before_waiting_is_located():
    """-D NO_WAIT: the batch is read (line 24) while its copies may be in flight."""
    with pytest.raises(KernelRuntimeError, match=r"cg_copy.cu:24:16, .* reads 'batch' .*"
                                                 r"while a cp.async to it is still in flight"):
        run(cg_kernel("block_batches", NO_WAIT=1))


@pytest.mark.gpu
def test_the_pipelines_build_equals_ncu(tmp_path):
    """On the GPU: ncu's counters of nvcc's -O3 builds of pipeline_copy.cu and cg_copy.cu
    (their own mains) equal the counts of piped_sum, ring_sum (consumer_wait's switch of
    waits), shared_ring_sum (a block's pipeline: libcu++'s generic accesses to its state's
    count are read), block_batches and warp_rows (cooperative groups' memcpy_async), each
    read from that build."""
    import shutil
    import subprocess

    from gpu_backend.measure import compare_counts, measure_command
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    shared_ring = import_kernels(PIPED, Options(lengths={
        "in": "4 * tiles * 1024", "out": "4 * 256"}))["shared_ring_sum"]()
    for source, kernels in ((PIPED, (piped(), ring(), shared_ring)),
                            (CG, (cg_kernel("block_batches"), cg_kernel("warp_rows")))):
        exe = tmp_path / pathlib.Path(source).stem
        subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-lineinfo", "-o", str(exe), source],
                       check=True, capture_output=True)
        for k in kernels:
            agreement = compare_counts(analyze(k), measure_command([str(exe)], k.name))
            assert agreement.ok, (k.name, agreement.checks)

"""wgmma through matrix descriptors: the descriptor format, the canonical layouts (against
the GPU-checked example and the H100's public calibration cases), the interpreter's
products and faults, the layout-agreement check, and the gmma counters."""
import json
import pathlib

import numpy as np
import pytest

from kernels_ir import (
    GmmaLayout, KernelBuilder, KernelError, KernelRuntimeError, resolve_launch, run, threadIdx,
)
from kernels_ir.wgmma import accumulator_positions, decode
from smemsim import analyze
from smemsim.launch.bulk import gmma_wavefronts
from smemsim.launch.hazards import check

CASES = [c for c in json.loads((pathlib.Path(__file__).parent / "data" /
                                "sm90_hopper_patterns.json").read_text())["cases"]
         if c["group"] == "wgmma"]
# the calibration's swizzle parameter -> the mode (its descriptors use PTX's codes)
MODES = {0: None, 1: "SWIZZLE_32B", 2: "SWIZZLE_64B", 3: "SWIZZLE_128B"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_every_public_descriptor_decodes_to_its_case(case):
    p = case["params"]
    for side in ("A", "B"):
        values = [int(x) for x in p[f"desc{side}"].split(",")]
        if values == [0]:
            continue    # A from registers
        major = "MN" if p["t" + side.lower()] else "K"
        start, layout = decode(values[0], major)
        assert (layout.swizzle, layout.lbo, layout.sbo) == \
            (MODES[p[f"dswz{side}"]], p[f"dlbo{side}"], p[f"dsbo{side}"]) or \
            case["name"] in ("wg_KK_s128_descnone", "wg_KK_s0_lbo64wrong")   # planted
        assert layout.encode(start) == values[0]
        assert start == p[f"off{side}"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_every_public_case_has_its_measured_gmma_wavefronts(case):
    """bytes / 128 per warpgroup instruction, A counted only when it is in shared memory;
    never a conflict."""
    p = case["params"]
    operand = (0 if p["areg"] else 64 * 16 * 2) + p["n"] * 16 * 2
    instructions = p["nk"] * p["iters"]
    m = case["metrics"]
    assert gmma_wavefronts(4 * instructions, operand) == \
        m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma"]
    assert m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma", 0) == 0


def test_the_accumulator_fragment_covers_d_once():
    rows, cols = accumulator_positions(64)
    cells = rows * 64 + cols
    assert sorted(cells.ravel().tolist()) == list(range(64 * 64))
    assert (rows[0, :4].tolist(), cols[0, :4].tolist()) == ([0, 0, 8, 8], [0, 1, 0, 1])
    assert (rows[37, 4], cols[37, 4]) == (16 + 1, 8 + 2)   # warp 1, lane 5, register 4


def _example(variant):
    from examples.wgmma_tile import gemm, small_integers
    from kernels_ir import from_storage
    kernel = gemm(variant)
    arrays = small_integers(resolve_launch(kernel, {}))
    dtype = kernel.array("A").dtype
    a = from_storage(arrays["A"], dtype).astype(np.float32).reshape(256, 256)
    b = from_storage(arrays["B"], dtype).astype(np.float32).reshape(256, 256)
    want = a @ (b if variant.startswith("mn") else b.T)
    return kernel, arrays, want


@pytest.mark.parametrize("variant", ["sw128", "off1024", "interleave", "sw64", "sw32", "mn128",
                                     "mn64", "mn32", "mn_interleave", "bf16", "areg"])
def test_the_gpu_checked_layouts_give_the_product(variant):
    """On the H100 each of these equals numpy's product (docs/validation.md)."""
    kernel, arrays, want = _example(variant)
    assert np.array_equal(run(kernel, {}, arrays)["C"].reshape(256, 256), want)
    assert not check(kernel, {}).faults


def test_a_descriptor_that_forgets_the_swizzle_computes_the_gpus_wrong_product():
    """The H100 computed this same wrong C (docs/validation.md); check names the first
    element read from elsewhere and what to change."""
    kernel, arrays, want = _example("desc_none")
    got = run(kernel, {}, arrays)["C"].reshape(256, 256)
    assert (got != want).sum() == 64340
    faults = check(kernel, {}).faults
    assert [f.kind for f in faults] == ["layout"]
    assert "wgmma reads A(1, 0) from the bytes of A(0, 8)" in faults[0].message
    assert "says no swizzle where tensor map 'map_a' wrote SWIZZLE_128B" in faults[0].message


def test_a_base_offset_takes_that_much_off_the_swizzles_row_phase():
    """off1024_base1: both tiles at 1024 + 128 as TMA writes them, base offset 1 in A's
    descriptor. The H100's C equals the model in which the row phase XORed in is the
    absolute address's less the base offset, and 170 of its 65,536 elements are right
    (docs/validation/h100-2026-11-24-wgmma-base-offset.json); the interpreter's too."""
    kernel, arrays, want = _example("off1024_base1")
    got = run(kernel, {}, arrays)["C"].reshape(256, 256)
    assert (got == want).sum() == 170
    (fault,) = check(kernel, {}).faults
    assert "wgmma reads A(0, 0) from the bytes of A(0, 8)" in fault.message
    assert "base offset 1 takes that much off the swizzle's row phase" in fault.message


@pytest.mark.parametrize("variant, shift, base, right", [
    ("sw64", 128, 1, 176), ("sw64", 640, 5, 176), ("sw64", 256, 2, 164),
    ("sw32", 128, 1, 179), ("sw32", 256, 3, 179), ("sw32", 384, 2, 65536),
])
def test_base_offsets_with_64b_and_32b_swizzles_read_as_the_h200_did(variant, shift, base,
                                                                      right):
    """Tiles `shift` bytes past a 1024-byte boundary, base offset `base` in A's descriptor:
    the H200 computed a C with `right` elements of the true product
    (docs/validation/h200-2026-11-28-wgmma-base-offset.json), and equal, element for
    element, to the model the interpreter runs (the row phase less b, kept to the mode's 2
    or 1 bits: 64B's b = 5 reads as 1, 32B's b = 2 as 0, which is right)."""
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools"))
    import gpu_wgmma_base_offset as probe
    from examples.wgmma_tile import gemm, small_integers
    kernel = gemm(variant, shift=shift, base_offset=base)
    arrays = small_integers(resolve_launch(kernel, {}))
    a = arrays["A"].astype(np.float32).reshape(256, 256)
    b = arrays["B"].astype(np.float32).reshape(256, 256)
    got = run(kernel, {}, arrays)["C"].reshape(256, 256)
    assert (got == a @ b.T).sum() == right
    span = {"sw64": 64, "sw32": 32}[variant]
    assert np.array_equal(got, probe.model(a, b, span, shift, probe.RULES["minus"], base))
    faults = check(kernel, {}).faults
    if right == got.size:
        assert not faults
    else:
        (fault,) = faults
        assert f"base offset {base} takes that much off the swizzle's row phase" \
            in fault.message


@pytest.mark.parametrize("shift, base", [(0, 1), (128, 1), (384, 5)])
def test_without_a_swizzle_the_base_offset_is_not_read(shift, base):
    """The no-swizzle (core matrices) GEMM with base offset `base` in A's descriptor: the
    H200's C was the true product in every case
    (docs/validation/h200-2026-11-28-wgmma-base-offset-none.json); so is the interpreter's,
    and check finds nothing."""
    from examples.wgmma_tile import gemm, small_integers
    kernel = gemm("interleave", shift=shift, base_offset=base)
    arrays = small_integers(resolve_launch(kernel, {}))
    a = arrays["A"].astype(np.float32).reshape(256, 256)
    b = arrays["B"].astype(np.float32).reshape(256, 256)
    assert np.array_equal(run(kernel, {}, arrays)["C"].reshape(256, 256), a @ b.T)
    assert not check(kernel, {}).faults


def test_a_from_registers_reads_no_shared_a_and_counts_b_only():
    """wg_areg_K_s0's rule: only B's bytes / 128 per HGMMA (N = 64: 16 wavefronts)."""
    report = analyze(_example("areg")[0], {})
    assert report.classes["gmma"].wavefronts == 16 * 4 * 4 * 64 * 16 * 2 // 128
    assert report.classes["ldsm"].requests == 16 * 4 * 4 * 4   # the fragments' ldmatrix.x4


def test_the_example_counts():
    report = analyze(_example("sw128")[0], {})
    assert (report.classes["gmma"].requests, report.classes["gmma"].wavefronts) == \
        (16 * 4 * 4 * 4, 16 * 4 * 4 * (64 + 64) * 16 * 2 // 128)   # blocks kc kk warps
    assert report.classes["gmma"].excess == 0


def _plain(store_first=True, fence=True, threads=128, layout=None):
    """A and B written by plain stores (row-major 16-byte core matrices), one wgmma."""
    k = KernelBuilder("plain_wgmma")
    a = k.global_array("A", "f16", 64 * 16)
    b = k.global_array("B", "f16", 64 * 16)
    c = k.global_array("C", "f32", 64 * 64, intent="out")
    s_a = k.shared("sA", "f16", 64 * 16, align=128)
    s_b = k.shared("sB", "f16", 64 * 16, align=128)
    t = threadIdx.x
    if store_first:
        # element (r, k) at core matrix (r // 8, k // 8): 8 rows x 16 bytes each
        with k.range("i", t, 64 * 16, 128) as i:
            r, kk = i // 16, i % 16
            at = (r // 8) * 128 + (kk // 8) * 64 + (r % 8) * 8 + kk % 8
            s_a[at] = a[i]
            s_b[at] = b[i]
    if fence:
        k.fence_proxy_async()
    k.syncthreads()
    acc = k.local_array("acc", "f32", 32)
    lay = layout or GmmaLayout("K", None, lbo=128, sbo=256)
    k.wgmma_fence()
    if threads == 128:
        k.wgmma(acc, (s_a, 0, lay), (s_b, 0, lay), 64, scale_d=0)
    else:
        with k.if_(t < threads):
            k.wgmma(acc, (s_a, 0, lay), (s_b, 0, lay), 64, scale_d=0)
    k.wgmma_commit()
    k.wgmma_wait(0)
    rows, cols = accumulator_positions(64)
    for i in range(32):
        c[(16 * (t // 32) + t % 32 // 4 + 8 * (i // 2 % 2)) * 64 + 8 * (i // 4)
          + 2 * (t % 4) + i % 2] = acc[i]
    k.launch(1, 128)
    return k.build()


def test_operands_stored_by_threads_in_core_matrices():
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, 64 * 16).astype(np.float16)
    b = rng.integers(-3, 4, 64 * 16).astype(np.float16)
    got = run(_plain(), {}, {"A": a, "B": b})["C"].reshape(64, 64)
    want = a.astype(np.float32).reshape(64, 16) @ b.astype(np.float32).reshape(64, 16).T
    assert np.array_equal(got, want)


@pytest.mark.parametrize("kw, why", [
    (dict(fence=False), "stored without a fence.proxy.async"),
    (dict(store_first=False, fence=False), "no thread has written"),
    (dict(threads=64), "executed by 64 threads of a warpgroup"),
])
def test_wgmma_faults_are_located(kw, why):
    with pytest.raises(KernelRuntimeError, match=why) as err:
        run(_plain(**kw), {}, {})
    assert "test_wgmma.py" in str(err.value)


@pytest.mark.parametrize("layout, n, why", [
    (GmmaLayout("K", "SWIZZLE_64B", 16, 512, base_offset=8), 64,
     "base_offset must be 0..7, got 8"),
    (GmmaLayout("K", None, 24, 1024), 64, "lbo must be a multiple of 16"),
    (GmmaLayout("K", None, 128, 256), 60, "n is a multiple of 8"),
])
def test_descriptors_not_modelled_are_refused_at_their_line(layout, n, why):
    k = KernelBuilder("refused")
    s = k.shared("s", "f16", 64 * 64, align=1024)
    acc = k.local_array("acc", "f32", 32)
    with pytest.raises(KernelError, match=why) as err:
        k.wgmma(acc, (s, 0, layout), (s, 0, layout), n)
    assert "test_wgmma.py" in str(err.value)


def test_explain_and_report_on_tma_and_wgmma_kernels():
    """explain has no lanes to show for a TMA copy or a wgmma and says so (naming the sites
    that have them); the report page builds, its bank maps for the lane sites only."""
    import json
    from tests.test_cli import ROOT, cli
    tma = str(ROOT / "examples" / "tma_tile.py")
    code, out = cli("explain", tma, "--kernel", "unswizzled_reader", "0")
    assert code == 2 and "site 0 is a TMA or bulk copy" in out and "by lane are [1]" in out
    code, out = cli("explain", tma, "--kernel", "unswizzled_reader")   # the worst lane site
    assert code == 0 and "32 wavefronts, ideal 4" in out
    code, out = cli("report", str(ROOT / "examples" / "wgmma_tile.py"), "--kernel", "areg",
                    "--json")
    assert code == 0
    (item,) = json.loads(out)["results"]
    # the ldmatrix sites 2, 4, 6 and 8 are the explainable ones (no TMA or wgmma site); none
    # has excess, so the report explains the costliest, the first of the four
    assert [e["site"] for e in item["explanations"]] == [2]


@pytest.mark.slow
@pytest.mark.parametrize("variant, wrong", [("probe106", 0), ("probe110", 65_335)])
def test_the_calibrations_wgmma_probes_give_the_h200s_product(variant, wrong):
    """Issue #52: the calibration's cases 106 (K-major, 64B) and 110 (B MN-major, 32B, with
    LBO 256 and SBO 1024 in its descriptor) on bf16 tiles as TMA lays them out: the H200's C
    (docs/validation/h200-2026-11-29-wgmma-probes.json) is the true product for 106 and, for
    110, 65,335 of 65,536 elements off it, each equal to the interpreter's."""
    import json
    import pathlib
    import sys
    from kernels_ir import resolve_launch, run
    root = pathlib.Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tools"))
    from examples.wgmma_tile import small_integers
    from gpu_wgmma_swizzles import PROBES, _kernel, _values
    measured = json.loads((root / "docs" / "validation" /
                           "h200-2026-11-29-wgmma-probes.json").read_text())[variant]
    assert measured["gpu_equals_interpreter"] and measured["gpu_wrong_elements"] == wrong
    kernel, layout = _kernel(variant)
    arrays = small_integers(resolve_launch(kernel, {}))
    c = run(kernel, {}, arrays)["C"].reshape(256, 256)
    a, b = (_values(arrays[n]).reshape(256, 256) for n in ("A", "B"))
    assert PROBES[variant][0] == layout
    assert int((c != a @ (b if layout.startswith("mn") else b.T)).sum()) == wrong

"""Issue #57, step 5: the PTX counted as ptxas builds it. The SASS of the same PTX says
which neighbouring accesses of a line one wider instruction serves; the PTX is rewritten to
that wider access before it is lowered, and whatever else differs is said line by line."""
import os
import pathlib
import shutil

import pytest

from smemsim import analyze
from smemsim.frontends.ptx.as_built import as_built
from smemsim.frontends.ptx.lower import Launch, lower
from smemsim.frontends.ptx.parse import parse
from smemsim.frontends.ptx.sass import FunctionSass, SassInst, _chain, _shared, _split_operand

ROOT = pathlib.Path(__file__).resolve().parent.parent

# one thread block of 32 lanes; each lane reads the 8 floats a[8 * tid .. 8 * tid + 7] with
# eight ld.shared.f32 on one line (as nvcc leaves siboehm's kernel 7: it cannot prove the
# alignment, ptxas can)
EIGHT = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .b32 	%r<9>;
	.reg .f32 	%f<12>;
	.reg .b64 	%rd<3>;
	.shared .align 16 .b8 _ZZ1kE1a[1024];
	.loc	1 3 3
	mov.u32 	%r1, %tid.x;
	shl.b32 	%r2, %r1, 5;
	mov.u32 	%r3, _ZZ1kE1a;
	add.s32 	%r4, %r3, %r2;
	.loc	1 5 9
	ld.shared.f32 	%f1, [%r4];
	ld.shared.f32 	%f2, [%r4+4];
	add.f32 	%f9, %f1, %f2;
	ld.shared.f32 	%f3, [%r4+8];
	ld.shared.f32 	%f4, [%r4+12];
	ld.shared.f32 	%f5, [%r4+16];
	ld.shared.f32 	%f6, [%r4+20];
	ld.shared.f32 	%f7, [%r4+24];
	ld.shared.f32 	%f8, [%r4+28];
	add.f32 	%f10, %f9, %f8;
	.loc	1 7 3
	ret;
}
	.file	1 "/src/k.cu"
"""


def _lds128(offset: int, line: int = 5) -> SassInst:
    return SassInst("LDS.128", "load", 16, (("/src/k.cu", line),), "R4", offset, 0)


def _launch():
    return Launch(grid=(1,), block=(32,), names=())


def test_eight_loads_ptxas_serves_with_two_lds128_are_two_16_byte_accesses():
    m = parse(EIGHT)
    built = as_built(m, m.entries["k"], FunctionSass("k", (_lds128(0), _lds128(16)), 16))
    loads = [x for x in built.entry.body if getattr(x, "name", "") == "ld"]
    assert [(x.opcode, x.operands) for x in loads] == [
        (("ld", "shared", "v4", "f32"), ("{%f1,%f2,%f3,%f4}", "[%r4]")),
        (("ld", "shared", "v4", "f32"), ("{%f5,%f6,%f7,%f8}", "[%r4+16]"))]
    assert built.notes == ("k.cu:5: ptxas merged 8 ld.shared.f32 into 2 LDS.128 "
                           "(counted as built)",)
    m.entries["k"] = built.entry
    r = analyze(lower(m, "k", _launch()))
    # 32 lanes x 16 bytes, 32 bytes apart: 1 KiB over two 16-byte halves of each 32-byte
    # row: 8 wavefronts each (the unmerged loads would be 8 requests of 8 wavefronts)
    assert (r.load.requests, r.load.wavefronts) == (2, 16)


def test_a_line_the_sass_serves_differently_keeps_its_ptx_accesses_and_says_so():
    m = parse(EIGHT)
    # three LDS.128 where the PTX has 32 bytes a lane: no cover; counted as the PTX states
    sass = FunctionSass("k", (_lds128(0), _lds128(16), _lds128(32)), 16)
    built = as_built(m, m.entries["k"], sass)
    assert built.entry.body == m.entries["k"].body
    assert built.notes == ("k.cu:5: the SASS has 3 LDS.128 where the PTX has 8 "
                           "ld.shared.f32; counted as the PTX states (ptxas added accesses)",)


def test_a_run_is_not_moved_past_an_instruction_that_uses_a_later_load():
    # `add %f9, %f1, %f2` between the loads is no obstacle; an instruction between the
    # load of %f5 and that of %f6 that reads %f6 (its value before the load) is
    text = EIGHT.replace("[%r4+16];", "[%r4+16];\n\tadd.f32 \t%f11, %f6, %f6;")
    m = parse(text)
    built = as_built(m, m.entries["k"], FunctionSass("k", (_lds128(0), _lds128(16)), 16))
    assert built.entry.body == m.entries["k"].body
    assert "counted as the PTX states" in built.notes[0]


def test_as_many_accesses_as_the_ptx_are_left_alone():
    m = parse(EIGHT)
    sass = FunctionSass("k", tuple(SassInst("LDS", "load", 4, (("/src/k.cu", 5),), "R4", 4 * n,
                                            0) for n in range(8)), 16)
    built = as_built(m, m.entries["k"], sass)
    assert (built.entry.body, built.notes, built.lines, built.matched) == (
        m.entries["k"].body, (), 1, 1)


def test_nvdisasm_marks_make_a_chain_innermost_first():
    text = """
	//## File "/s/k.cu", line 5
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/s/h.h", line 1 inlined at "/s/h.h", line 2
	//## File "/s/h.h", line 2 inlined at "/s/k.cu", line 7
	//## File "/s/k.cu", line 7
        /*00d0*/                   LDS.128 R12, [R4+0x100] ;
        /*00e0*/              @!P0 STS.U8 [R0+UR5+-0x8], R9 ;
"""
    assert _shared(text) == [
        ("LDS.128", "load", 16, (("/s/h.h", 1), ("/s/h.h", 2), ("/s/k.cu", 7)), "R4", 256, 0xd0,
         False),
        ("STS.U8", "store", 1, (("/s/h.h", 1), ("/s/h.h", 2), ("/s/k.cu", 7)), "R0+UR5", -8,
         0xe0, False)]
    # a plain mark after an inlined one starts a new place
    assert _chain([("/s/h.h", 1, ("/s/k.cu", 7)), ("/s/k.cu", 9, None)]) == (("/s/k.cu", 9),)
    assert _split_operand("R79+0x10") == ("R79", 16)


def test_the_ptx_chain_of_inlined_calls_is_whole():
    text = EIGHT.replace("\t.loc\t1 5 9\n", "\t.loc\t1 5 9\n\t.loc\t1 2 9, function_name "
                         "$L__info_string0, inlined_at 1 5 9\n\t.loc\t1 1 9, function_name "
                         "$L__info_string1, inlined_at 1 2 9\n")
    load = next(x for x in parse(text).entries["k"].body if getattr(x, "name", "") == "ld")
    chain, loc = [], load.loc
    while loc is not None:
        chain.append(loc.line)
        loc = loc.inlined_at
    assert chain == [1, 2, 5]


@pytest.mark.toolkit
def test_siboehm_kernel_7_through_nvcc_is_counted_as_the_h100_measured(tmp_path):
    """SGEMM_CUDA's kernel 7 at 1024^3, 8 x 8 blocks of 256: nvcc's PTX has 16 ld.shared.f32
    a step of the inner loop, its SASS 8 LDS and 2 LDS.128; the H100 measured 5,242,880 load
    requests (docs/validation.md), which the PTX alone would put at 8,388,608."""
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc (the CUDA toolkit)")
    from smemsim.frontends.ptx.frontend import import_cu
    from smemsim.frontends.cuda import Options
    (tmp_path / "cublas_v2.h").write_text("")
    key = "sgemmResolveBankConflicts<128, 128, 8, 8, 8>"
    opts = Options(include_dirs=[str(tmp_path)], grid="8, 8", block="256",
                   params={"M": 1024, "N": 1024, "K": 1024, "alpha": 1.0, "beta": 0.0},
                   lengths={"A": "M * K", "B": "K * N", "C": "M * N"})
    os.environ.setdefault("SMEMSIM_CACHE", str(tmp_path / "cache"))
    kernel = import_cu(str(ROOT / "tests" / "corpus" / "sgemm_cuda" /
                           "7_kernel_resolve_bank_conflicts.cuh"), opts, key)[key]()
    r = analyze(kernel)
    assert (r.load.requests, r.load.wavefronts) == (5_242_880, 6_291_456)
    assert kernel.notes == ("7_kernel_resolve_bank_conflicts.cuh:74: ptxas merged 8 "
                            "ld.shared.f32 into 2 LDS.128 (counted as built)",)


INLINED = """\
__device__ __forceinline__ float pair(const float* s, int i) { return s[i] + s[i + 1]; }
__device__ __forceinline__ float quad(const float* s, int i) {
    return pair(s, i) * pair(s, i + 2);
}
__global__ void k(float* out) {
    __shared__ __align__(16) float t[256];
    t[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = quad(t, 8 * threadIdx.x);   // 32 bytes a lane: 2-way
}
"""


@pytest.mark.toolkit
def test_a_helpers_line_names_the_calls_that_inlined_it(tmp_path, monkeypatch):
    """Issue #57 step 3: `k.cu:1 (pair) via k.cu:3 via k.cu:9` in text, JSON and SARIF."""
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc (the CUDA toolkit)")
    import json
    import subprocess
    import sys
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    cu = tmp_path / "k.cu"
    cu.write_text(INLINED)
    base = [sys.executable, "-m", "smemsim", "analyze", str(cu), "--frontend", "ptx",
            "--launch-grid", "1", "--launch-block", "32", "--length", "out=256"]
    text = subprocess.run(base, capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "200"})
    assert "(k.cu:1:" in text.stdout and "(pair) via k.cu:3 via k.cu:9)" in text.stdout
    doc = json.loads(subprocess.run(base + ["--json"], capture_output=True, text=True,
                                    cwd=tmp_path).stdout)
    loads = [s for s in doc["results"][0]["sites"] if s["op"] == "load"]
    assert loads and all((s["line"], s["function"], s["calls"]) == (
        1, "pair", [{"file": str(cu), "line": 3}, {"file": str(cu), "line": 9}])
        for s in loads)
    sarif = tmp_path / "out.sarif"
    subprocess.run(base + ["--sarif", str(sarif)], capture_output=True, cwd=tmp_path)
    results = [r for r in json.loads(sarif.read_text())["runs"][0]["results"]
               if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 1]
    assert results
    for r in results:
        assert "(in pair, inlined at k.cu:3, inlined at k.cu:9)" in r["message"]["text"]
        assert [x["physicalLocation"]["region"]["startLine"]
                for x in r["relatedLocations"]] == [3, 9]


OVERWRITE = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	.reg .f32 	%f<4>;
	.shared .align 4 .b8 _ZZ1kE1s[256];
	.loc	1 3 3
	mov.u32 	%r1, %tid.x;
	shl.b32 	%r2, %r1, 2;
	mov.u32 	%r3, _ZZ1kE1s;
	add.s32 	%r4, %r3, %r2;
	cvt.rn.f32.u32 	%f1, %r1;
	.loc	1 4 3
	st.shared.f32 	[%r4], %f1;
	.loc	1 5 3
	setp.lt.u32 	%p1, %r1, 16;
	@%p1 bra 	$L__BB0_2;
	.loc	1 6 5
	add.f32 	%f2, %f1, 0f3F800000;
	st.shared.f32 	[%r4], %f2;
$L__BB0_2:
	.loc	1 8 3
	ret;
}
	.file	1 "/src/k.cu"
"""


def test_a_store_a_branch_overwrites_is_one_store_after_the_branch_where_the_sass_says():
    """Rodinia's srad: `s[t] = a; if (edge) s[t] = b;` is one STS in the SASS (on a line of
    ptxas's choosing): each value moves to one register, one store at the join."""
    m = parse(OVERWRITE)
    sts = SassInst("STS", "store", 4, (("/src/k.cu", 5),), "R4", 0, 0)
    built = as_built(m, m.entries["k"], FunctionSass("k", (sts,), 8))
    insts = [x for x in built.entry.body if hasattr(x, "opcode")]
    assert [(x.opcode, x.operands) for x in insts if x.name in ("st", "mov") and
            "smsink0" in "".join(x.operands)] == [
        (("mov", "b32"), ("%smsink0", "%f1")), (("mov", "b32"), ("%smsink0", "%f2")),
        (("st", "shared", "f32"), ("[%r4]", "%smsink0"))]
    assert built.notes == ("k.cu:4, k.cu:6: ptxas stores once after the branch (the second "
                           "store overwrites the first on its path; counted as built)",)
    m.entries["k"] = built.entry
    r = analyze(lower(m, "k", Launch(grid=(1,), block=(64,), names=())))
    assert r.store.requests == 2          # one a warp; the PTX as written: 4 (each warp has
    #                                       lanes >= 16, which store twice)
    # without the SASS's word, the PTX's two stores
    unchanged = as_built(m := parse(OVERWRITE), m.entries["k"],
                         FunctionSass("k", (sts, sts), 8))
    assert unchanged.entry.body == m.entries["k"].body


def test_accesses_of_several_lines_one_wider_instruction_serves_are_pooled():
    """Learn-CUDA's n-body: `.x`, `.y`, `.z` of neighbouring float3s on three lines, one
    LDS.128 on the first line for four of them. Here: the loads of `[%r4+16..28]` moved to
    line 6, both LDS.128 on line 5."""
    text = EIGHT.replace("\tld.shared.f32 \t%f5, [%r4+16];",
                         "\t.loc\t1 6 9\n\tld.shared.f32 \t%f5, [%r4+16];")
    m = parse(text)
    built = as_built(m, m.entries["k"], FunctionSass("k", (_lds128(0), _lds128(16)), 16))
    assert built.notes == ("k.cu:5, k.cu:6: ptxas merged 8 ld.shared.f32 into 2 LDS.128 "
                           "(counted as built)",)
    assert [x.opcode for x in built.entry.body if getattr(x, "name", "") == "ld"] == [
        ("ld", "shared", "v4", "f32")] * 2


def test_the_sass_cache_entry_reads_back_as_written_and_refuses_an_edited_one(tmp_path):
    from smemsim.cache import sealed, store
    from smemsim.frontends.ptx.sass import _load, _text
    odd = "/a b/k,1:2.cu"    # a space, a comma and a colon in a folder's name
    functions = {"k": FunctionSass("k", (
        SassInst("LDS.128", "load", 16, ((odd, 5), ("/s/k.cu", 9)), "R0+UR5", -8, 0x40),
        SassInst("STS", "store", 4, (), "", 0, 0x50, True)), 40),
        "_Z1jv": FunctionSass("_Z1jv", (), 8)}
    entry = tmp_path / "e.txt"
    store(entry, sealed("key", _text(functions).encode()))
    assert _load(entry, "key") == functions
    store(entry, sealed("key", _text(functions).replace(" 16 ", " x ").encode()))
    assert _load(entry, "key") is None


@pytest.mark.toolkit
def test_a_loop_ptxas_unrolls_and_merges_across_iterations_is_counted_as_built(tmp_path):
    """SGEMM_CUDA's kernel 4 (`sgemm1DBlocktiling<64, 64, 8, 8>`) at 1024^3: nvcc leaves the
    dotIdx loop as 4 iterations of 16 loads of As (`%r54` 8 bytes on each time); ptxas
    unrolls it and reads four iterations' floats with one LDS.128 (16 in all). The H100 and
    the H200 measured 12,582,912 load requests (docs/validation.md); the PTX as written
    would be 37,748,736."""
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc (the CUDA toolkit)")
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    (tmp_path / "cublas_v2.h").write_text("")
    key = "sgemm1DBlocktiling<64, 64, 8, 8>"
    opts = Options(include_dirs=[str(tmp_path)], grid="16, 16", block="512",
                   params={"M": 1024, "N": 1024, "K": 1024, "alpha": 1.0, "beta": 0.0},
                   lengths={"A": "M * K", "B": "K * N", "C": "M * N"})
    os.environ.setdefault("SMEMSIM_CACHE", str(tmp_path / "cache"))
    kernel = import_cu(str(ROOT / "tests" / "corpus" / "sgemm_cuda" /
                           "4_kernel_1D_blocktiling.cuh"), opts, key)[key]()
    r = analyze(kernel)
    assert r.load.requests == 12_582_912
    assert kernel.notes == (
        "4_kernel_1D_blocktiling.cuh:71: ptxas merged 64 ld.shared.f32 into 16 LDS.128 "
        "(counted as built)",
        "4_kernel_1D_blocktiling.cuh:71: ptxas unrolled this loop completely (unrolled here "
        "too: its iterations' accesses merged as built)")


@pytest.mark.toolkit
def test_the_unrolled_loop_computes_what_the_loop_does(tmp_path, monkeypatch):
    """Kernel 4's C at 64^3, from the PTX as written and from its unrolled and merged form,
    equal (every register a copy writes is its own; after the copies each holds the last
    copy's value)."""
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc (the CUDA toolkit)")
    import dataclasses

    import numpy as np
    from kernels_ir import run
    from smemsim.frontends.ptx.build import ptx_of
    from smemsim.frontends.ptx.frontend import readable
    from smemsim.frontends.ptx.sass import sass_of
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cublas_v2.h").write_text("")
    text = ptx_of(str(ROOT / "tests" / "corpus" / "sgemm_cuda" / "4_kernel_1D_blocktiling.cuh"),
                  include_dirs=[str(tmp_path)], instance="sgemm1DBlocktiling<64, 64, 8, 8>")
    module = parse(text)
    symbol = next(s for s, n in readable(list(module.entries)).items()
                  if n.startswith("sgemm1DBlocktiling<64"))
    launch = Launch(grid=(1, 1), block=(512,), names=("M", "N", "K", "alpha", "A", "B",
                                                      "beta", "C"),
                    lengths={"A": 64 * 64 * 4, "B": 64 * 64 * 4, "C": 64 * 64 * 4},
                    defaults={"M": 64, "N": 64, "K": 64, "alpha": 1.0, "beta": 0.0},
                    types={})
    rng = np.random.default_rng(4)
    arrays = {n: rng.integers(-3, 4, 64 * 64).astype(np.float32).view(np.uint8)
              for n in ("A", "B")}
    arrays["C"] = np.zeros(64 * 64 * 4, np.uint8)     # (beta * C: C a number)
    outs = []
    for unrolling in (False, True):
        built = as_built(module, module.entries[symbol], sass_of(text, "sm_90")[symbol],
                         unrolling=unrolling)
        m = dataclasses.replace(module, entries={**module.entries, symbol: built.entry})
        kernel = lower(m, symbol, launch, "k4")
        outs.append(np.frombuffer(run(kernel, {}, arrays=arrays)["C"].tobytes(), np.float32))
    a, b = (np.frombuffer(arrays[n].tobytes(), np.float32).reshape(64, 64) for n in "AB")
    assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[1], (a @ b).ravel())


def test_a_vectors_used_elements_in_naturally_aligned_pieces():
    """The loads ptxas makes of a vector load whose other elements are dead: runs of used
    elements, each cut where a piece would not be aligned to its own size."""
    from smemsim.frontends.ptx.as_built_rules import _pieces
    assert _pieces([0, 3], 4) == [[0], [3]]
    assert _pieces([0, 1, 2], 4) == [[0, 1], [2]]
    assert _pieces([1, 2], 4) == [[1], [2]]
    assert _pieces([2, 3], 4) == [[2, 3]]
    assert _pieces([0, 1, 2, 3], 4) == [[0, 1, 2, 3]]


def _built_as_ptxas_builds(tmp_path, monkeypatch, name: str, kernel: str, lengths: dict):
    """tests/data/NAME's kernel through the PTX path, with ptxas's SASS (skipped without
    nvcc, ptxas and nvdisasm)."""
    from smemsim.frontends.cuda import Options
    from smemsim.frontends.ptx.frontend import import_cu
    if shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"):
        pytest.skip("needs nvcc")
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    k = import_cu(str(ROOT / "tests" / "data" / name), Options(lengths=lengths))[kernel]()
    if any("SASS could not be read" in n for n in k.notes):
        pytest.skip("needs ptxas and nvdisasm")
    return k


def test_a_loop_ptxas_unrolls_again_reads_each_iteration_with_one_wide_load(tmp_path,
                                                                              monkeypatch):
    """`for (i = 0; i < end; i++) acc += s[i]` at a run-time `end`: nvcc unrolls it by four
    (a loop of four ld.shared.f32, then a loop for the rest), ptxas unrolls the four-float
    loop again (blocks of 4, 2, 1) and reads each of its iterations with one LDS.128, the rest
    with one LDS each. end = 27: 6 LDS.128 and 3 LDS a warp (8 warps, 4 blocks), where the
    PTX states 27 loads a warp."""
    k = _built_as_ptxas_builds(tmp_path, monkeypatch, "rowsum_unrolled.cu", "rowsum",
                               {"in": "1024", "out": "1024"})
    assert any("ptxas reads each iteration's 4 ld.shared.f32 with one LDS.128" in n
               for n in k.notes), k.notes
    r = analyze(k)
    assert r.load.requests == 4 * 8 * (6 + 3)


def test_a_load_ptxas_sinks_below_an_early_exit_is_counted_for_the_threads_that_stay(
        tmp_path, monkeypatch):
    """tests/data/epilogue_exit.cu at n = 150, 1 block of 256: nvcc loads v[1..3] before the
    guarded stores (v[0] inside its if), ptxas makes the first three guards predicates and
    the last an `@P EXIT` with v[3]'s LDS below it. By hand: v[0] is loaded by the 5 warps
    holding threads 0-149, v[1] and v[2] by all 8, v[3] by none (3 * 256 + t >= 150): 21
    warp loads, where the PTX as written states 29 (cub's radix sort's epilogue, whose H200
    counts are in docs/validation.md)."""
    k = _built_as_ptxas_builds(tmp_path, monkeypatch, "epilogue_exit.cu", "epilogue",
                               {"in": "1024", "out": "1024"})
    assert "epilogue_exit.cu:9: ptxas loads 1 of this line's values below a conditional " \
        "exit, only in the threads that stay (counted as built)" in k.notes, k.notes
    assert analyze(k).load.requests == 5 + 8 + 8 + 0
    # n = 1024: every thread stores every value, so every warp loads all four
    assert analyze(k, {"n": 1024}).load.requests == 4 * 8


def test_sass_instructions_after_a_conditional_exit_are_marked_up_to_a_label():
    text = """
	//## File "/s/k.cu", line 7
        /*0010*/                   LDS R1, [R4] ;
        /*0020*/                   EXIT ;
        /*0030*/                   LDS R2, [R4+0x4] ;
        /*0040*/               @P1 EXIT ;
        /*0050*/                   LDS R3, [R4+0x8] ;
.L_x_2:
        /*0060*/                   LDS R5, [R4+0xc] ;
        /*0070*/             @!P2 EXIT ;
        /*0080*/                   STS [R4+0x10], R5 ;
"""
    assert [(x[5], x[7]) for x in _shared(text)] == [
        (0, False), (4, False), (8, True), (12, False), (16, True)]


def test_a_load_stays_where_the_sass_shows_no_exit_above_it():
    from smemsim.frontends.ptx.as_built_rules import _sunk_loads
    m = parse(EPILOGUE)
    body = list(m.entries["k"].body)
    ld = next(n for n, x in enumerate(body) if getattr(x, "opcode", ())[:2] == ("ld", "shared"))
    place = (("/src/k.cu", 5),)
    built = {(place, "load"): [SassInst("LDS", "load", 4, place, "R4", 0, 0x10, after)]
             for after in [False]}
    from smemsim.frontends.ptx.as_built_match import _by_line
    ptx_lines, _ = _by_line(m, m.entries["k"], FunctionSass("k", (), 16))
    edits = {}
    assert _sunk_loads(body, ptx_lines, built, edits) == [] and edits == {}
    # the same SASS with the load after the exit: it moves below the branch to `ret`
    built = {(place, "load"): [SassInst("LDS", "load", 4, place, "R4", 0, 0x10, True)]}
    notes = _sunk_loads(body, ptx_lines, built, edits)
    branch = [n for n, x in enumerate(body) if getattr(x, "name", "") == "bra"][1]
    assert edits == {ld: [], branch: [body[branch], body[ld]]} and len(notes) == 1
    # a store to shared memory between them: not moved (ptxas orders them)
    text = EPILOGUE.replace("st.global.u32 \t[%rd1], %r2;", "st.shared.u32 \t[%r4+4], %r2;")
    assert text != EPILOGUE
    m = parse(text)
    body = list(m.entries["k"].body)
    ptx_lines, _ = _by_line(m, m.entries["k"], FunctionSass("k", (), 16))
    edits = {}
    assert _sunk_loads(body, ptx_lines, built, edits) == [] and edits == {}


EPILOGUE = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<3>;
	.shared .align 4 .b8 s[1024];
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u32 	%r1, [k_param_1];
	mov.u32 	%r2, %tid.x;
	shl.b32 	%r3, %r2, 2;
	mov.u32 	%r4, s;
	add.s32 	%r4, %r4, %r3;
	.loc	1 5 9
	ld.shared.u32 	%r5, [%r4];
	setp.ge.s32 	%p1, %r2, %r1;
	@%p1 bra 	$L__BB0_2;
	st.global.u32 	[%rd1], %r2;
$L__BB0_2:
	add.s32 	%r7, %r2, 256;
	setp.ge.s32 	%p2, %r7, %r1;
	@%p2 bra 	$L__BB0_4;
	.loc	1 6 9
	st.global.u32 	[%rd1+1024], %r5;
$L__BB0_4:
	ret;
}
	.file	1 "/src/k.cu"
"""


def test_a_serial_reduction_from_index_one_is_read_as_ptxas_blocks_it(tmp_path, monkeypatch):
    """`for (i = 1; i < n; i++) val = fmaxf(val, s[i])` (thread 0; n = blockIdx.x + 1, so the
    48 blocks run 0 to 11 iterations of nvcc's four-load loop): ptxas unrolls that loop in
    blocks of 4, 2 and 1 iterations and reads a block of j iterations with j LDS.128 from the
    element before each run, and one LDS of its last element. By hand, block b: s[0], then
    T = b // 4 iterations (when b >= 4) as T LDS.128 and one LDS a block (T // 4 blocks of 4,
    then one of 2 where 2 or 3 are left, then singles), then the b mod 4 left one LDS each;
    the H200 measured the same 480 (docs/validation.md)."""
    k = _built_as_ptxas_builds(tmp_path, monkeypatch, "serial_max.cu", "serial_max",
                               {"in": "3072", "out": "48"})
    assert any("ptxas unrolls this line's loop again in blocks of 4 iterations" in n
               for n in k.notes), k.notes
    expected = 0
    for b in range(48):
        t = b // 4 if b >= 4 else 0
        blocks = t // 4 + (0, 1, 1, 2)[t % 4]
        expected += 1 + t + blocks + (b - 4 * t)
    r = analyze(k)
    assert r.load.requests == expected == 480
    import numpy as np
    from kernels_ir import run
    data = np.random.default_rng(1).standard_normal(3072).astype(np.float32)
    out = run(k, {}, arrays={"in": data.view(np.uint8)})["out"].view(np.float32)
    want = [data[64 * b: 64 * b + b + 1].max() for b in range(48)]
    assert np.array_equal(out, np.array(want, np.float32))


def _kernel(shared: str, body: str) -> str:
    """A one-entry PTX module of `body`, its lines at k.cu:5 (after `.loc 1 5 9`)."""
    return f""".version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{{
	.reg .b32 	%r<9>;
	.reg .f32 	%f<12>;
	.reg .pred 	%p<3>;
{shared}
	.loc	1 3 3
	mov.u32 	%r1, %tid.x;
	mov.f32 	%f1, 0f3F800000;
	mov.f32 	%f2, 0f40000000;
	.loc	1 5 9
{body}
	.loc	1 7 3
	ret;
}}
	.file	1 "/src/k.cu"
"""


def _sass(opcode: str, kind: str, width: int, offset: int = 0, base: str = "R4",
          line: int = 5) -> SassInst:
    return SassInst(opcode, kind, width, (("/src/k.cu", line),), base, offset, 0)


def _accesses(built) -> list:
    return [(x.opcode, x.operands) for x in built.entry.body
            if getattr(x, "name", "") in ("ld", "st", "mov") and "shared" in x.opcode or
            getattr(x, "opcode", ("",))[0] == "mov" and x.operands[0] in ("%f5", "%f6")]


def test_two_neighbouring_shared_scalars_read_with_one_lds64_are_one_access():
    """`__shared__ float s_mean, s_variance;` read on one line: PTX names each variable's
    own address, ptxas reads both with one LDS.64 (FasterTransformer's addBias_layerNorm):
    their places in the window make them a run."""
    m = parse(_kernel("\t.shared .align 8 .b8 _ZZ1kE4mean[4];\n"
                      "\t.shared .align 4 .b8 _ZZ1kE3var[4];",
                      "\tld.shared.f32 \t%f3, [_ZZ1kE4mean];\n"
                      "\tld.shared.f32 \t%f4, [_ZZ1kE3var];"))
    built = as_built(m, m.entries["k"], FunctionSass("k", (_sass("LDS.64", "load", 8, 16,
                                                                  "UR4"),), 16))
    assert _accesses(built) == [(("ld", "shared", "v2", "f32"), ("{%f3,%f4}",
                                                                  "[_ZZ1kE4mean]"))]
    assert built.notes == ("k.cu:5: ptxas merged 2 ld.shared.f32 into 1 LDS.64 "
                           "(counted as built)",)


def test_an_address_register_computed_from_another_by_a_constant_counts_from_it():
    """DeepSpeed's reduce: `st.shared.u32 [%r4]` and, with `add.s32 %r5, %r4, 4`,
    `[%r5]`: ptxas's one STS.64."""
    m = parse(_kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];",
                      "\tmov.u32 \t%r3, _ZZ1kE1a;\n\tshl.b32 \t%r2, %r1, 3;\n"
                      "\tadd.s32 \t%r4, %r3, %r2;\n\tst.shared.f32 \t[%r4], %f1;\n"
                      "\tadd.s32 \t%r5, %r4, 4;\n\tst.shared.f32 \t[%r5], %f2;"))
    built = as_built(m, m.entries["k"], FunctionSass("k", (_sass("STS.64", "store", 8),), 16))
    assert _accesses(built) == [(("st", "shared", "v2", "f32"), ("[%r4]", "{%f1,%f2}"))]


def test_a_wide_load_that_also_reads_an_element_no_access_reads_sends_it_nowhere():
    """Three floats of a `__shared__` array at +20, +24, +28 read with one LDS.128 from
    +16 (cub's warp aggregates [1..31] as 8 LDS.128 of [0..31]): lane 0 of the vector goes
    to no register. Every lane reads the same 16 bytes: a 16-byte request is served in two
    halves of the warp, each at least one wavefront: 2 (docs/hardware-rules.md). At a register's
    address, whose alignment is not known here, the loads stay as the PTX has them."""
    shared = "\t.shared .align 16 .b8 _ZZ1kE1a[1024];"
    loads = ("\tld.shared.f32 \t%f3, [_ZZ1kE1a+20];\n\tld.shared.f32 \t%f4, [_ZZ1kE1a+24];\n"
             "\tld.shared.f32 \t%f5, [_ZZ1kE1a+28];")
    m = parse(_kernel(shared, loads))
    sass = FunctionSass("k", (_sass("LDS.128", "load", 16, 16, "UR4"),), 16)
    built = as_built(m, m.entries["k"], sass)
    assert _accesses(built) == [(("ld", "shared", "v4", "f32"), ("{_,%f3,%f4,%f5}",
                                                                  "[_ZZ1kE1a+16]"))]
    m.entries["k"] = built.entry
    r = analyze(lower(m, "k", _launch()))
    assert (r.load.requests, r.load.wavefronts) == (1, 2)
    m = parse(_kernel(shared, "\tmov.u32 \t%r3, _ZZ1kE1a;\n\tshl.b32 \t%r2, %r1, 4;\n"
                              "\tadd.s32 \t%r4, %r3, %r2;\n" +
                      loads.replace("_ZZ1kE1a+", "%r4+")))
    built = as_built(m, m.entries["k"], FunctionSass("k", (_sass("LDS.128", "load", 16),), 16))
    assert len([x for x in built.entry.body if getattr(x, "name", "") == "ld"]) == 3


def test_a_load_ptxas_does_not_make_again_is_the_earlier_loads_value():
    """Line 6 loads again what line 5 loaded, nothing stored between; its SASS has no load
    (cub's raking scan copies its segment twice): a move of line 5's register."""
    text = _kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];",
                   "\tmov.u32 \t%r3, _ZZ1kE1a;\n\tshl.b32 \t%r2, %r1, 2;\n"
                   "\tadd.s32 \t%r4, %r3, %r2;\n\tld.shared.f32 \t%f3, [%r4];\n"
                   "\t.loc\t1 6 9\n\tld.shared.f32 \t%f5, [%r4];")
    m = parse(text)
    built = as_built(m, m.entries["k"], FunctionSass("k", (_sass("LDS", "load", 4),), 16))
    assert [(x.opcode, x.operands) for x in built.entry.body
            if getattr(x, "name", "") in ("ld", "mov") and "%f5" in x.operands] == [
        (("mov", "b32"), ("%f5", "%f3"))]
    assert "k.cu:6: ptxas loads none of its 1 ld.shared again" in built.notes[0]
    # a store between: the second load stays (and is said)
    m = parse(text.replace("\t.loc\t1 6 9\n", "\tst.shared.f32 \t[%r4+4], %f1;\n\t.loc\t1 6 9\n"))
    built = as_built(m, m.entries["k"], FunctionSass("k", (_sass("LDS", "load", 4),), 16))
    assert any("k.cu:6: the SASS has nothing" in n for n in built.notes)


def test_loads_on_both_sides_of_a_branch_are_made_once_where_nothing_else_enters():
    """`Seg s = segs[i]` as two loads, a branch, two loads in the PTX; one LDS.128 in the
    SASS (the GTC talk's line_intersection). With a branch from elsewhere into the second
    block the loads stay apart."""
    body = ("\tmov.u32 \t%r3, _ZZ1kE1a;\n\tshl.b32 \t%r2, %r1, 4;\n"
            "\tadd.s32 \t%r4, %r3, %r2;\n\tld.shared.f32 \t%f3, [%r4];\n"
            "\tld.shared.f32 \t%f4, [%r4+4];\n\tsetp.gt.u32 \t%p1, %r1, 99;\n"
            "\t@%p1 bra \t$L__BB0_2;\n$L__BB0_1:\n\tld.shared.f32 \t%f5, [%r4+8];\n"
            "\tld.shared.f32 \t%f6, [%r4+12];\n$L__BB0_2:")
    sass = FunctionSass("k", (_sass("LDS.128", "load", 16),), 16)
    m = parse(_kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];", body))
    built = as_built(m, m.entries["k"], sass)
    assert _accesses(built) == [(("ld", "shared", "v4", "f32"), ("{%f3,%f4,%f5,%f6}",
                                                                  "[%r4]"))]
    entered = body.replace("\tmov.u32 \t%r3,", "\t@%p2 bra \t$L__BB0_1;\n\tmov.u32 \t%r3,")
    m = parse(_kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];", entered))
    built = as_built(m, m.entries["k"], sass)
    assert len([x for x in built.entry.body if getattr(x, "name", "") == "ld"]) == 4


def test_loads_a_wider_load_of_the_same_block_reads_are_not_made_again():
    """cub's warp-scan aggregates: `ld.shared.u32 [a+32]`, `ld.shared.v4.u32 [a+32]` and
    `ld.shared.u32 [a+40]` on one line, one LDS.128 at +32 in the SASS: the two narrow loads
    are the wide load's elements (the earlier one made from it where it comes later)."""
    loads = ("\tld.shared.f32 \t%f3, [_ZZ1kE1a+32];\n\tadd.f32 \t%f9, %f3, %f3;\n"
             "\tld.shared.v4.f32 \t{%f4, %f5, %f6, %f7}, [_ZZ1kE1a+32];\n"
             "\tld.shared.f32 \t%f8, [_ZZ1kE1a+40];")
    m = parse(_kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];", loads))
    sass = FunctionSass("k", (_sass("LDS.128", "load", 16, 32, "UR4"),), 16)
    built = as_built(m, m.entries["k"], sass)
    body = [(x.opcode, x.operands) for x in built.entry.body
            if getattr(x, "name", "") == "ld" or getattr(x, "opcode", ()) == ("mov", "b32")]
    assert body == [(("ld", "shared", "v4", "f32"), ("{%f4,%f5,%f6,%f7}", "[_ZZ1kE1a+32]")),
                    (("mov", "b32"), ("%f3", "%f4")),
                    (("mov", "b32"), ("%f8", "%f6"))]
    assert built.notes == ("k.cu:5: ptxas does not make 2 of its ld.shared: a wider load of "
                           "the same block reads their bytes (counted as built)",)
    m.entries["k"] = built.entry
    assert analyze(lower(m, "k", _launch())).load.requests == 1
    # a store between the narrow load and the wide one: nothing is served (and it is said)
    m = parse(_kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];", loads.replace(
        "\tadd.f32", "\tst.shared.f32 \t[_ZZ1kE1a], %f1;\n\tadd.f32")))
    built = as_built(m, m.entries["k"], sass)
    assert "counted as the PTX states" in built.notes[-1]


def test_loads_of_two_inlined_copies_across_a_guard_are_each_one_wide_load():
    """cub's partial-tile block reduce, inlined twice: three loads, a guarded branch, a
    fourth load (the PTX guards it, ptxas loads it with the others), in each copy; the
    SASS has one LDS.128 a copy."""
    copy = ("\tld.shared.f32 \t%f{0}, [_ZZ1kE1a];\n\tld.shared.f32 \t%f{1}, [_ZZ1kE1a+4];\n"
            "\tld.shared.f32 \t%f{2}, [_ZZ1kE1a+8];\n\tsetp.gt.u32 \t%p1, %r1, 99;\n"
            "\t@%p1 bra \t$L__BB0_{4};\n\tld.shared.f32 \t%f{3}, [_ZZ1kE1a+12];\n"
            "$L__BB0_{4}:\n")
    body = ("\tsetp.gt.u32 \t%p2, %r1, 15;\n\t@%p2 bra \t$L__BB0_1;\n" +
            copy.format(3, 4, 5, 6, 2) + "\tbra.uni \t$L__BB0_9;\n$L__BB0_1:\n" +
            copy.format(7, 8, 9, 10, 3) + "$L__BB0_9:")
    m = parse(_kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];", body))
    sass = FunctionSass("k", (_sass("LDS.128", "load", 16, 0, "UR4"),
                              _sass("LDS.128", "load", 16, 0, "UR4")), 16)
    built = as_built(m, m.entries["k"], sass)
    assert _accesses(built) == [
        (("ld", "shared", "v4", "f32"), ("{%f3,%f4,%f5,%f6}", "[_ZZ1kE1a]")),
        (("ld", "shared", "v4", "f32"), ("{%f7,%f8,%f9,%f10}", "[_ZZ1kE1a]"))]
    m.entries["k"] = built.entry
    # lanes 0-15 take one copy, 16-31 the other: one LDS.128 each
    assert analyze(lower(m, "k", _launch())).load.requests == 2


# a loop nvcc leaves as one block, `for (i = tid; i < 100; i += 32) s[i] = 1.0f` (lanes 0-3
# run 4 iterations, the others 3)
STRIDED = """
	mov.u32 	%r3, _ZZ1kE1a;
	shl.b32 	%r2, %r1, 2;
	add.s32 	%r4, %r3, %r2;
	mov.u32 	%r5, %r1;
$L__BB0_1:
	st.shared.f32 	[%r4], %f1;
	add.s32 	%r4, %r4, 128;
	add.s32 	%r5, %r5, 32;
	setp.lt.s32 	%p1, %r5, 100;
	@%p1 bra 	$L__BB0_1;"""


def test_a_loop_ptxas_runs_in_blocks_of_iterations_counts_each_block_a_warp_runs():
    """ptxas unrolls the loop again: blocks of 4 iterations while 4 are left, then a block
    of 2, then 1 (its SASS has the store 4 + 2 + 1 times: moderngpu's load-balancing
    search). Lanes 0-3 run one block of 4, lanes 4-31 a block of 2 and one of 1: the warp
    makes 4 + 2 + 1 = 7 stores, where the PTX's loop makes 4 (the H200 measured 72 stores
    for moderngpu's kernel, the PTX's loop 64)."""
    m = parse(_kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];", STRIDED))
    sass = FunctionSass("k", tuple(_sass("STS", "store", 4, 128 * n) for n in range(7)), 16)
    built = as_built(m, m.entries["k"], sass)
    assert built.notes == ("k.cu:5: ptxas runs this loop in blocks of 4 iterations, then "
                           "blocks of 2 and 1 where a lane's count leaves them (counted as "
                           "built)",)
    m.entries["k"] = built.entry
    r = analyze(lower(m, "k", _launch()))
    assert (r.store.requests, r.store.wavefronts) == (7, 7)
    # the same stores: lane i's address is a[i + 32 k] in each, 100 floats
    # (without the blocks: the PTX's 4)
    m = parse(_kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];", STRIDED))
    assert analyze(lower(m, "k", _launch())).store.requests == 4


def test_accesses_the_line_table_gives_another_inline_path_of_the_line_are_the_same():
    """moderngpu's `iterate<i>` recursion: the PTX's two chains of one line hold 1 and 2
    loads, the SASS's 2 and 1: the same instructions, said as such."""
    text = _kernel("\t.shared .align 16 .b8 _ZZ1kE1a[1024];",
                   "\t.loc\t1 2 9, function_name $L__info_string0, inlined_at 1 5 9\n"
                   "\tld.shared.f32 \t%f3, [_ZZ1kE1a];\n"
                   "\t.loc\t1 2 9, function_name $L__info_string0, inlined_at 1 6 9\n"
                   "\tld.shared.f32 \t%f4, [_ZZ1kE1a+64];\n"
                   "\tld.shared.f32 \t%f5, [_ZZ1kE1a+128];")
    m = parse(text)
    at = lambda line: (("/src/k.cu", 2), ("/src/k.cu", line))  # noqa: E731
    sass = FunctionSass("k", (SassInst("LDS", "load", 4, at(5), "UR4", 0, 0),
                              SassInst("LDS", "load", 4, at(5), "UR4", 64, 16),
                              SassInst("LDS", "load", 4, at(6), "UR4", 128, 32)), 16)
    built = as_built(m, m.entries["k"], sass)
    assert built.entry.body == m.entries["k"].body
    assert built.notes == ("k.cu:2 via k.cu:5: ptxas's line table gives this line's "
                           "ld.shared to other inline paths of it (the same instructions; "
                           "counted as built)",)
    assert built.matched == built.lines == 2

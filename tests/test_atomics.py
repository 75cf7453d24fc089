"""Shared atomics: semantics, the instruction each form compiles to, costs and hazards."""
import numpy as np
import pytest

from examples import histogram
from kernels_ir import (
    KernelBuilder, KernelError, cast, f32, i32, resolve_launch, run, threadIdx, u32, u64,
)
from smemsim import analyze
from smemsim.launch.hazards import check
from tests.conftest import require_nvrtc
from tests.test_analysis import assert_matches_reference

THREADS = 64
SLOTS = 8


def _probe(kind, dtype, value, compare=None, init=5, keep_old=True):
    """Each thread applies one atomic to s[t % SLOTS]; out_old[t] = the old value it got
    (unless not `keep_old`: then nothing reads it), out_final[j] = s[j] afterwards."""
    k = KernelBuilder(f"probe_{kind}")
    s = k.shared("s", dtype, SLOTS)
    old_out = k.global_array("out_old", dtype, THREADS, intent="out")
    final = k.global_array("out_final", dtype, SLOTS, intent="out")
    with k.if_(threadIdx.x < SLOTS):
        s[threadIdx.x] = init
    k.syncthreads()
    t = cast(threadIdx.x, i32)
    old = k.atomic(s, t % SLOTS, kind, value(t),
                   compare=None if compare is None else compare(t))
    if keep_old:
        old_out[threadIdx.x] = old
    k.syncthreads()
    with k.if_(threadIdx.x < SLOTS):
        final[threadIdx.x] = s[threadIdx.x]
    k.launch(1, THREADS)
    return k.build()


def _reference(kind, dtype, value, compare=None, init=5):
    """The same, one thread after another in thread order."""
    np_t = dtype.np
    mem = np.full(SLOTS, init, np_t)
    olds = np.zeros(THREADS, np_t)
    with np.errstate(over="ignore"):
        for t in range(THREADS):
            cur, v = mem[t % SLOTS], np_t.type(value(t))
            olds[t] = cur
            new = {"add": lambda: cur + v, "sub": lambda: cur - v, "min": lambda: min(cur, v),
                   "max": lambda: max(cur, v), "and": lambda: cur & v, "or": lambda: cur | v,
                   "xor": lambda: cur ^ v, "exch": lambda: v,
                   "inc": lambda: np_t.type(0) if cur >= v else cur + np_t.type(1),
                   "dec": lambda: v if cur == 0 or cur > v else cur - np_t.type(1),
                   "cas": lambda: v if cur == np_t.type(compare(t)) else cur}[kind]()
            mem[t % SLOTS] = new
    return olds, mem


CASES = [
    ("add", u32, lambda t: t * 3), ("add", i32, lambda t: t - 40), ("add", u64, lambda t: t),
    ("add", f32, lambda t: t * 0.5), ("sub", u32, lambda t: t), ("min", i32, lambda t: 20 - t),
    ("max", u32, lambda t: t * 7 % 13), ("and", u32, lambda t: t | 2), ("or", u64,
                                                                      lambda t: 1 << (t % 5)),
    ("xor", i32, lambda t: t), ("exch", f32, lambda t: t + 0.25), ("inc", u32, lambda t: 9),
    ("dec", u32, lambda t: 6), ("cas", u32, lambda t: t),
]


@pytest.mark.parametrize("kind, dtype, value", CASES, ids=[f"{k}-{t}" for k, t, _ in CASES])
def test_atomics_apply_in_thread_order(kind, dtype, value):
    # the same function builds the IR value (t an expression) and the reference (t an int)
    compare = (lambda t: 5 + t % 3) if kind == "cas" else None
    got = run(_probe(kind, dtype, value, compare))
    olds, final = _reference(kind, dtype, value, compare)
    assert np.array_equal(got["out_old"], olds), f"{kind} {dtype}: old values"
    assert np.array_equal(got["out_final"], final), f"{kind} {dtype}: memory after"


# the last: f32 sums past 2**24 whose rounding depends on the order of the adds (in reverse
# thread order five of the eight slots end 256 or 512 apart)
UNREAD = [c for c in CASES if c[0] in ("add", "sub", "min", "max", "and", "or", "xor")] + [
    ("add", f32, lambda t: t * t * 250001 + t)]


@pytest.mark.parametrize("kind, dtype, value", UNREAD, ids=[f"{k}-{t}" for k, t, _ in UNREAD])
def test_atomics_whose_result_is_unread_apply_in_thread_order_too(kind, dtype, value):
    """With the old value unread the interpreter applies the lanes in one ufunc.at (#28);
    memory afterwards is the thread-order result, to the rounding of f32 sums."""
    got = run(_probe(kind, dtype, value, keep_old=False))
    _, final = _reference(kind, dtype, value)
    assert np.array_equal(got["out_final"], final), f"{kind} {dtype}: memory after"


def _atomic_kernel(kind="add", dtype=u32, value=1, use_result=False):
    k = KernelBuilder("one_atomic")
    s = k.shared("s", dtype, 64)
    out = k.global_array("out", dtype, 64, intent="out")
    s[threadIdx.x] = 0
    k.syncthreads()
    old = k.atomic(s, threadIdx.x % 4, kind, value, compare=0 if kind == "cas" else None)
    if use_result:
        out[threadIdx.x] = old
    k.launch(1, 64)
    return k.build()


def test_the_form_follows_what_the_compiler_emits():
    ops = lambda kernel: [s.op for s in kernel.sites() if s.op not in ("load", "store")]
    assert ops(_atomic_kernel(value=1)) == ["atomic_aggregated"]        # ATOMS.POPC.INC
    assert ops(_atomic_kernel(value=1, use_result=True)) == ["atomic"]  # ATOMS.ADD
    assert ops(_atomic_kernel(value=2)) == ["atomic"]
    assert ops(_atomic_kernel("cas", value=1)) == ["atomic_cas"]
    assert ops(_atomic_kernel(dtype=f32, value=1.0)) == ["atomic_cas_loop"]
    assert ops(_atomic_kernel("max", u64, value=3)) == ["atomic_cas_loop"]
    # each warp: four addresses in four banks, 8 lanes each: 8 serialized, or 1 aggregated
    assert analyze(_atomic_kernel(value=2)).site(1).wavefronts == 2 * 8
    assert analyze(_atomic_kernel(value=1)).site(1).wavefronts == 2 * 1


def test_unmeasured_instructions_are_refused_with_the_site():
    with pytest.raises(KernelError, match=r"kernel 'one_atomic', line .*test_atomics.py:\d+.*"
                                          r"site 1: .*64-bit shared atomics other than the add"):
        analyze(_atomic_kernel("exch", u64, value=3))


def test_builder_errors_name_the_line():
    k = KernelBuilder("bad")
    s = k.shared("s", f32, 32)
    with pytest.raises(KernelError, match=r"atomicMin on 's' \(f32\): CUDA has it for"):
        k.atomic(s, threadIdx.x, "min", 1.0)
    with pytest.raises(KernelError, match="atomic kind must be one of"):
        k.atomic(s, threadIdx.x, "mul", 1.0)
    counts = k.shared("counts", u32, 32)
    with pytest.raises(KernelError, match="'cas' takes compare"):
        k.atomic(counts, threadIdx.x, "cas", 1)


@pytest.mark.slow
@pytest.mark.parametrize("key", ["uniform", "weighted"])
def test_histogram_matches_brute_force_and_numpy(key):
    kernel = histogram.KERNELS[key]()
    params = {"n": 8192}
    report = assert_matches_reference(kernel, params)
    assert report.mode == "full" and report.site(1).op == (
        "atomic" if key == "weighted" else "atomic_aggregated")
    arrays = histogram.uniform(resolve_launch(kernel, params))
    got = run(kernel, params, arrays)["hist"]
    data = arrays["data"]
    weights = (data % 4 + 1) if key == "weighted" else np.ones_like(data)
    assert np.array_equal(got, np.bincount(data, weights, 256).astype(np.uint32))


def test_atomics_do_not_race_but_a_plain_read_beside_them_does():
    def kernel(read_between: bool):
        k = KernelBuilder("racy" if read_between else "fine")
        s = k.shared("s", u32, 8)
        out = k.global_array("out", u32, 64, intent="out")
        with k.if_(threadIdx.x < 8):
            s[threadIdx.x] = 0
        k.syncthreads()
        k.atomic(s, threadIdx.x % 8, "add", 2)
        if read_between:
            out[threadIdx.x] = s[(threadIdx.x + 1) % 8]
        k.syncthreads()
        k.launch(1, 64)
        return k.build()
    assert check(kernel(False)).clean
    (race,) = check(kernel(True)).races
    assert race.kind == "read-write"


@pytest.mark.parametrize("kind, dtype, value, sass", [
    ("add", u32, 1, "ATOMS.POPC.INC.32"), ("add", u32, 2, "ATOMS.ADD"),
    ("cas", u32, 1, "ATOMS.CAS"), ("add", f32, 1.0, "LDS, ATOMS.CAST.SPIN"),
    ("add", u64, 3, "LDS.64, ATOMS.CAST.SPIN.64"), ("min", i32, 3, "ATOMS.MIN.S32"),
    ("exch", u32, 3, "ATOMS.EXCH"), ("inc", u32, 3, "ATOMS.INC"),
])
def test_each_form_compiles_as_the_analysis_assumes(kind, dtype, value, sass):
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    c = compile_kernel(_atomic_kernel(kind, dtype, value), "sm_90")
    atomic = next(s for s in c.sites if s.site == 1)
    assert atomic.ok, atomic.describe()
    assert ", ".join(a.opcode for a in atomic.found) == sass


@pytest.mark.gpu
@pytest.mark.parametrize("key", ["uniform", "weighted"])
def test_histogram_on_the_gpu_matches_the_interpreter(key):
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    kernel = histogram.KERNELS[key]()
    launch = resolve_launch(kernel)
    run_ = run_on_gpu(kernel, None, histogram.uniform(launch))
    assert run_.matches, run_.mismatches


@pytest.mark.gpu
@pytest.mark.parametrize("kind, dtype, value", [c for c in CASES if c[0] != "cas"],
                         ids=[f"{k}-{t}" for k, t, _ in CASES if k != "cas"])
def test_final_memory_of_every_atomic_matches_on_the_gpu(kind, dtype, value):
    """Memory after the atomics does not depend on the order lanes apply them (except for
    exch, inc and dec, whose probes use one value per slot... and CAS, left out)."""
    from tests.test_gpu_backend import _gpu_or_skip
    _gpu_or_skip()
    from gpu_backend.device import run_on_gpu
    kernel = _probe(kind, dtype, value)
    run_ = run_on_gpu(kernel, check=False)
    _, final = _reference(kind, dtype, value)
    got = run_.outputs["out_final"]
    if kind in ("exch", "inc", "dec"):
        return  # the winner depends on the order: only the run's success is checked
    if dtype.is_float:
        assert np.allclose(got, final, rtol=1e-6)
    else:
        assert np.array_equal(got, final)


def _uniform_address_kernel(kind, index):
    k = KernelBuilder("uniform")
    src = k.global_array("src", u32, 64)
    counters = k.shared("counters", u32, 32)
    with k.if_(threadIdx.x < 32):
        counters[threadIdx.x] = 0
    k.syncthreads()
    k.atomic(counters, index(threadIdx.x), kind, src[threadIdx.x])
    k.launch(1, 64)
    return k.build()


@pytest.mark.parametrize("kind", ["add", "min", "max", "and", "or", "xor"])
def test_an_atomic_at_a_warp_uniform_address_is_aggregated(kind):
    """Found by the ncu fuzz on an H100: `atomicMin(&c[(tid * 3) % 1], v)` costs 1 wavefront
    per warp, not 32: NVRTC reduces the warp's values with REDUX and one lane issues the
    ATOMS. The analysis sees the address does not depend on the thread (`% 1` folds to 0)."""
    k = _uniform_address_kernel(kind, lambda t: (t * 3) % 1)
    (atomic,) = [s for s in k.sites() if s.ATOMIC]
    assert atomic.op == "atomic_aggregated"
    assert analyze(k).site(atomic.site).wavefronts == 2  # two warps, one lane each
    per_lane = _uniform_address_kernel(kind, lambda t: t % 2)  # two addresses, per thread
    (atomic,) = [s for s in per_lane.sites() if s.ATOMIC]
    assert atomic.op == "atomic"


def test_the_sass_reader_knows_a_redux_aggregated_atomic():
    from gpu_backend.compile import parse_sass
    text = ("\t//## File \"k.cu\", line 9\n"
            "        /*0090*/                   REDUX.MIN.UR4 UR4, R2 ;\n"
            "        /*00a0*/               @P0 ATOMS.MIN RZ, [UR5], R5 ;\n"
            "\t//## File \"k.cu\", line 10\n"
            "        /*00b0*/                   ATOMS.MIN RZ, [R3], R5 ;\n")
    assert [(a.opcode, a.kind, a.line) for a in parse_sass(text)] == [
        ("ATOMS.MIN", "atomic_aggregated", 9), ("ATOMS.MIN", "atomic", 10)]


@pytest.mark.parametrize("kind", ["add", "min", "xor"])
def test_uniform_address_atomics_compile_with_redux(kind):
    require_nvrtc()
    from gpu_backend.compile import compile_kernel
    c = compile_kernel(_uniform_address_kernel(kind, lambda t: (t * 3) % 1), "sm_90")
    (atomic,) = [s for s in c.sites if s.op.startswith("atomic")]
    assert atomic.ok and [a.kind for a in atomic.found] == ["atomic_aggregated"], \
        atomic.describe()


def test_cas_loop_counts_are_labelled_as_bounds_or_estimates():
    """The ncu fuzz measured CAS-loop passes above the one-warp model for f32 adds (warps
    contending for a word fail more CASes: up to 3x) and below it for a min/max/and that
    need not change the word (no CAS): an add's counts are the fewest there can be, said
    as `at least` (in the site's figures, the class totals and JSON's `at_least`); a
    64-bit max's are an estimate."""
    import io
    from rich.console import Console
    from smemsim.cli.render import report_table

    def text(kernel):
        buf = io.StringIO()
        Console(file=buf, width=300).print(report_table(analyze(kernel)))
        return buf.getvalue()
    add = _atomic_kernel(dtype=f32, value=1.0)
    assert analyze(add).site(1).at_least
    out = text(add)
    assert "at least: site(s) 1 compile to a CAS loop, counted as each warp alone" in out
    # 2 warps, 8 lanes on each of 4 words: 8 passes each, an LDS and an ATOMS a pass
    assert "atomics (atom): at least 16 requests" in out and "estimate" not in out
    assert "loads: at least 16 requests" in out
    row = next(line.split() for line in out.splitlines() if "cas-loop" in line)
    assert row[0] == "1" and row[5:7] == ["≥2", "≥48"], row
    big = _atomic_kernel("max", u64, value=3)
    assert not analyze(big).site(1).at_least
    assert "estimate: site(s) 1 compile to a CAS loop" in text(big)
    assert "estimate" not in text(_atomic_kernel(value=2))

"""`smemsim sweep` and the process pool: every point equals its own analysis, whatever
runs it (inline, local processes, a Dask cluster), and the ranking and front are right."""
from __future__ import annotations

import csv
import json
import pathlib

import pytest

from examples.transpose import KERNELS as TRANSPOSE_KERNELS
from kernels_ir import KernelError
from smemsim import analyze
from smemsim.search.fix import padded, swizzled
from smemsim.search.pool import parallel_map
from smemsim.search.sweep import Layout, Point, PointResult, SweepResult, product, sweep
from tests.test_cli import cli, cli_streams

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE = str(ROOT / "examples" / "transpose.py")


def square(x):
    """A worker task (module-level: it is pickled by name)."""
    if x == 13:
        raise KernelError("thirteen")
    return x * x


def test_parallel_map_keeps_order_and_raises_the_first_error():
    items = list(range(12))
    assert parallel_map(square, items, jobs=2, trial=False) == [x * x for x in items]
    assert parallel_map(square, items, jobs=1) == [x * x for x in items]
    seen = []
    parallel_map(square, items, jobs=2, trial=False, progress=lambda d, n: seen.append((d, n)))
    assert seen[-1] == (12, 12)
    with pytest.raises(KernelError, match="thirteen"):
        parallel_map(square, range(20), jobs=2, trial=False)
    with pytest.raises(KernelError, match="at least 1"):
        parallel_map(square, items, jobs=0)


def test_product_nests_parameters_then_layouts_then_archs():
    pts = product({"n": [64, 128]}, ["sm_80", "sm_90"],
                  {"tile": [Layout("tile"), Layout("tile", pad=1)]}, base={"m": 3})
    assert len(pts) == 8
    assert pts[0] == Point((("m", 3), ("n", 64)), "sm_80", ())
    assert pts[3] == Point((("m", 3), ("n", 64)), "sm_90", (Layout("tile", pad=1),))
    assert pts[7].label == "m=3, n=128, sm_90, tile pad 1"


def test_every_point_equals_its_own_analysis_locally_and_on_two_processes(tmp_path):
    kernel = TRANSPOSE_KERNELS["naive"]()
    layouts = {"tile": [Layout("tile"), Layout("tile", pad=1), Layout("tile", pad=2),
                        Layout("tile", swizzle=(5, 0, 5))]}
    points = product({"n": [64, 128]}, ["sm_80", "sm_90"], layouts)
    one = sweep(kernel, points, jobs=1)
    two = sweep(kernel, points, jobs=2, trial=False)
    assert one.results == two.results and one.cached == 0
    tile = kernel.shared[0]
    variants = [kernel, padded(kernel, tile, 1), padded(kernel, tile, 2),
                swizzled(kernel, tile, 5, 0, 5)]
    for r in one.results:
        n = dict(r.point.params)["n"]
        which = layouts["tile"].index(r.point.layouts[0]) if r.point.layouts else 0
        expect = analyze(variants[which], {"n": n}, arch=r.point.arch)
        assert (r.wavefronts, r.ideal) == (expect.wavefronts, expect.ideal)
        assert r.smem_per_block == 4096 + 128 * (which in (1, 2)) * which
    best = one.ranked()[0]
    # fewest wavefronts, least shared memory, then more blocks per SM: sm_90's 228 KB
    assert best.point == Point((("n", 64),), "sm_90", (Layout("tile", swizzle=(5, 0, 5)),))
    # n = 64: 4 blocks x 32 warps, one load and one store each, 1 wavefront apiece
    assert (best.requests, best.wavefronts, best.excess) == (256, 256, 0)


def test_the_pareto_front_keeps_exactly_the_undominated_points():
    # (occupancy without registers: the warps per SM every other limit allows)
    def res(wf, smem, warps):
        return PointResult(Point((("w", wf), ("s", smem)), "sm_90"), wavefronts=wf, ideal=wf,
                           smem_per_block=smem, smem_blocks=warps // 8, warps_at_most=warps)
    a, b, c, d = res(100, 4096, 64), res(50, 8192, 32), res(120, 4096, 64), \
        res(50, 8192, 16)
    failed = PointResult(Point((), "sm_90"), error="refused")
    r = SweepResult("k", (a, b, c, d, failed), 0)
    assert r.pareto() == [b, a]               # c is beaten by a, d by b
    assert r.ranked() == [b, d, a, c]         # failed points are not ranked


def test_results_are_cached_and_a_changed_kernel_misses(tmp_path):
    kernel = TRANSPOSE_KERNELS["naive"]()
    points = product({"n": [32, 64, 96]}, ["sm_90"])
    first = sweep(kernel, points, cache=tmp_path, jobs=1)
    again = sweep(kernel, points + product({"n": [128]}, ["sm_90"]), cache=tmp_path, jobs=1)
    assert first.cached == 0 and again.cached == 3
    assert again.results[:3] == first.results
    other = sweep(TRANSPOSE_KERNELS["padded"](), points, cache=tmp_path, jobs=1)
    assert other.cached == 0


def test_points_the_kernel_refuses_are_listed_with_the_reason():
    kernel = TRANSPOSE_KERNELS["naive"]()
    r = sweep(kernel, product({"n": [0, 64]}, ["sm_90"]), jobs=1)
    assert r.results[0].error is not None and "grid" in r.results[0].error
    assert r.results[1].error is None and r.ranked() == [r.results[1]]


def test_sweep_command_table_csv_and_json(tmp_path, monkeypatch):
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    out_csv = tmp_path / "points.csv"
    code, out = cli("sweep", TRANSPOSE, "--kernel", "naive", "-p", "n=64,128", "--pad",
                    "tile=0:2", "--swizzle", "tile=5.0.5", "--arch", "sm_80,sm_90",
                    "--regs", "32", "--csv", str(out_csv), width=140)
    assert code == 0, out
    assert "transpose_pad0: 12 points, best first; * on the Pareto front" in out
    first = next(line for line in out.splitlines() if line.startswith("1*"))
    assert first.split()[1:5] == ["64", "sm_80", "tile", "Swizzle<5,0,5>"]
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 12 and rows[0]["n"] == "64" and rows[0]["layouts"] == "tile pad 0"
    assert {r["pareto"] for r in rows} == {"0", "1"}
    for _ in range(2):  # the second run reads both points from the cache
        code, out = cli("sweep", TRANSPOSE, "--kernel", "naive", "-p", "n=64,128", "--json")
    doc = json.loads(out)
    assert doc["exit_code"] == 0 and doc["results"][0]["cached"] == 2
    points = doc["results"][0]["points"]
    assert [p["params"]["n"] for p in points] == [64, 128]
    assert points[0]["rank"] == 1 and points[0]["pareto"] is True


@pytest.mark.parametrize("argv, message", [
    (["--pad", "tile=a:b"], "--pad tile=a:b: no values"),
    (["--pad", "tiles=0:2"], "no shared array 'tiles'; the arrays are tile"),
    (["--swizzle", "tile=5,0,5"], "each swizzle is B.M.S"),
    (["-p", "n"], "-p takes K=VALUES"),
    (["--jobs", "0"], "--jobs takes a whole number >= 1"),
])
def test_sweep_refuses_bad_options_in_one_line(argv, message):
    code, out, err = cli_streams("sweep", TRANSPOSE, "--kernel", "naive", *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_sweep_on_a_dask_cluster_equals_the_local_sweep(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("SMEMSIM_CACHE", "")
    argv = ["sweep", TRANSPOSE, "--kernel", "naive", "-p", "n=32:160:32", "--pad",
            "tile=0:2", "--json"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        code, remote = cli(*argv, "--scheduler", cluster.scheduler_address)
    assert code == 0, remote
    code, local = cli(*argv, "--jobs", "1")
    assert json.loads(remote)["results"] == json.loads(local)["results"]
    code, out, err = cli_streams(*argv[:-1], "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in err


def test_a_sweep_whose_every_point_fails_is_an_input_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SMEMSIM_CACHE", "")
    code, out, err = cli_streams("sweep", TRANSPOSE, "--kernel", "naive", "-p", "m=1,2")
    assert code == 2 and "no point of the sweep could be analyzed; the first: m=1, sm_90" in err
    assert "unknown parameter 'm'" in err


def test_the_cache_holds_data_and_never_runs_an_entry(tmp_path):
    """An entry someone else wrote (a CI cache restored from another branch) is read as
    numbers in an .npz, without pickles, and checked field by field: a pickle that would run
    code (bare, or as an object array inside the .npz), a truncated entry, a wrong type or
    an entry for another point is a miss, and the point is computed again."""
    import io
    import pickle

    import numpy as np
    kernel = TRANSPOSE_KERNELS["naive"]()
    points = product({"n": [64]}, ["sm_90"])
    first = sweep(kernel, points, cache=tmp_path, jobs=1)
    (entry,) = list(tmp_path.rglob("*.npz"))
    with np.load(entry) as data:
        good = {k: data[k] for k in data.files}
    assert good["wavefronts"] == first.results[0].wavefronts

    class Evil:
        def __reduce__(self):
            return (exec, ("import pathlib; pathlib.Path('PWNED').touch()",))

    def npz(**fields):
        buffer = io.BytesIO()
        np.savez(buffer, **fields)
        return buffer.getvalue()
    evil_array = np.empty((), dtype=object)
    evil_array[()] = Evil()
    for bad in (pickle.dumps(Evil()), entry.read_bytes()[:10],
                npz(**{**good, "wavefronts": evil_array}),
                npz(**{**good, "wavefronts": np.array("7")}),
                npz(**{**good, "point": np.array("another")})):
        entry.write_bytes(bad)
        again = sweep(kernel, points, cache=tmp_path, jobs=1)
        assert again.cached == 0 and again.results == first.results
    assert not (tmp_path / "PWNED").exists() and not pathlib.Path("PWNED").exists()


def test_an_interrupted_sweep_keeps_every_finished_point(tmp_path):
    """Ctrl-C after two of four points: both are in the cache already (each is stored as it
    finishes), the interruption says so, and the rerun computes only the other two."""
    from smemsim.search.sweep import SweepInterrupted
    kernel = TRANSPOSE_KERNELS["naive"]()
    points = product({"n": [32, 64, 96, 128]}, ["sm_90"])

    def interrupt(done, total):
        if done == 2:
            raise KeyboardInterrupt
    with pytest.raises(SweepInterrupted, match="2 of 4 points are kept in the cache"):
        sweep(kernel, points, cache=tmp_path, jobs=1, progress=interrupt)
    again = sweep(kernel, points, cache=tmp_path, jobs=1)
    assert again.cached == 2 and again.results == sweep(kernel, points, jobs=1).results


def test_blocks_per_sm_are_the_active_blocks_where_registers_are_known(tmp_path, monkeypatch):
    """With registers, `blk/SM` is the blocks resident under every limit: the transpose's
    1,024-thread block fits twice in an SM's 2,048 threads, however many 4 KiB tiles shared
    memory could hold; without them the column is what shared memory allows, and says so."""
    from smemsim.launch.occupancy import occupancy
    monkeypatch.setenv("SMEMSIM_CACHE", "")
    code, out = cli("sweep", TRANSPOSE, "--kernel", "naive", "-p", "n=64", "--regs", "32",
                    width=140)
    assert code == 0, out
    header = next(line for line in out.splitlines() if "wavefronts" in line)
    row = next(line for line in out.splitlines() if line.startswith("1*")).split()
    expected = occupancy("sm_90", 1024, 32, static_smem=4096, dynamic_smem=0)
    assert expected.active_blocks == 2 and expected.limits["shared_memory"] > 2
    columns = header.replace("smem B", "smem_B").split()
    assert columns[-3:] == ["blk/SM", "regs", "occ"] and row[-3:] == ["2", "32", "1.00"]
    code, out = cli("sweep", TRANSPOSE, "--kernel", "naive", "-p", "n=64", "--json")
    point = json.loads(out)["results"][0]["points"][0]
    assert point["active_blocks"] is None and point["smem_blocks"] == \
        expected.limits["shared_memory"]
    code, out = cli("sweep", TRANSPOSE, "--kernel", "naive", "-p", "n=64", width=140)
    assert "smem blk/SM" in out


TRANSPOSE_CU = str(pathlib.Path(__file__).resolve().parent.parent / "examples" / "transpose.cu")


def test_a_define_with_several_values_is_an_axis_of_builds(tmp_path, monkeypatch):
    """`sweep FILE.cu -D PAD=0:3`: nvcc builds the file at each PAD, each build's points are
    named by it. At n = 1024 (32 x 32 blocks of 32 warps, each warp one tile row stored and
    one column loaded), the column of 32 + PAD floats costs 32 wavefronts a warp at PAD 0,
    one at PAD 1 and two at PAD 2: 32,768 x (1 + 32), 32,768 x 2 and 32,768 x 3. A value
    nvcc cannot build is that build's points, not analyzed, with nvcc's reason; a list of
    names is an axis too."""
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    code, out = cli("sweep", TRANSPOSE_CU, "-p", "n=1024", "-D", "PAD=0:3", "--json")
    assert code == 0, out
    points = json.loads(out)["results"][0]["points"]
    assert {p["params"]["PAD"]: p["wavefronts"] for p in points} == {
        0: 1_081_344, 1: 65_536, 2: 98_304}
    assert {p["params"]["PAD"] for p in points if p["pareto"]} == {0, 1}
    code, out = cli("sweep", TRANSPOSE_CU, "-p", "n=1024", "-D", "PAD=1,x", width=160)
    assert code == 0, out
    assert "not analyzed: PAD=x, sm_90: nvcc could not build the file" in out
    assert 'identifier "x" is undefined' in out
    code, out, err = cli_streams("sweep", TRANSPOSE_CU, "-D", "PAD=0:x")
    assert code == 2 and "-D PAD=0:x: no values" in err


def test_a_define_axis_the_file_overrides_says_so_at_each_point(tmp_path):
    """`#define PAD 0` unguarded and `sweep -D PAD=0,1,2`: nvcc would build PAD 0 three
    times; the points the file overrides are not analyzed, each saying why in the words
    that mend it (a new user's sweep reported them behind 'cannot read the host side')."""
    from tests.test_cli import cli
    cu = tmp_path / "defx.cu"
    cu.write_text("#define PAD 0\n__global__ void t(float *o)\n{\n"
                  "    __shared__ float tile[32][32 + PAD];\n"
                  "    tile[threadIdx.y][threadIdx.x] = threadIdx.x;\n    __syncthreads();\n"
                  "    o[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];\n}\n"
                  "void go(float *o) { t<<<1, dim3(32, 32)>>>(o); }\n")
    code, out = cli("sweep", str(cu), "-D", "PAD=0,1", width=400)
    assert code == 0
    assert (f"not analyzed: PAD=1, sm_90: line {cu}:1:9: -D PAD=1 and this `#define PAD 0` "
            "disagree: nvcc would use the file's value; guard the #define with #ifndef PAD, "
            "or drop the -D") in out


def test_a_sweep_of_a_data_driven_kernel_says_its_inputs_are_one_invented_draw(tmp_path):
    """A new user swept a shared histogram over its bin count: every point counted the
    same seeded random input (values 0..255), which the table did not say. The note under
    the table (and in the JSON) now does: the site, the arrays, and that the draw does not
    follow the swept parameters."""
    import json

    from tests.test_cli import cli_streams
    f = tmp_path / "h.cu"
    f.write_text("__global__ void h(const unsigned char *in, int *bins, int n) {\n"
                 "  __shared__ int s[256];\n  s[threadIdx.x] = 0;\n  __syncthreads();\n"
                 "  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += 256 * gridDim.x)\n"
                 "    atomicAdd(&s[in[i]], 1);\n  __syncthreads();\n"
                 "  atomicAdd(&bins[threadIdx.x], s[threadIdx.x]);\n}\n"
                 "void go(const unsigned char *in, int *bins, int n) {\n"
                 "  h<<<4, 256>>>(in, bins, n);\n}\n")
    code, out, err = cli_streams("sweep", str(f), "-p", "n=1024,4096", "--length", "in=n",
                                 "--length", "bins=256")
    assert code == 0, err
    said = " ".join(out.split())
    assert "note: site 1: its address depends on values the kernel loads, and every point " \
           "counts them on smemsim's seeded random 'in', 'bins' (one draw, whatever the " \
           "swept parameters mean for the data)" in said, said
    code, out, err = cli_streams("sweep", str(f), "-p", "n=1024,4096", "--length", "in=n",
                                 "--length", "bins=256", "--json")
    assert "seeded random 'in'" in json.loads(out)["results"][0]["notes"][0]


def test_an_address_that_cannot_be_a_schedulers_is_refused_before_dask_is_asked(tmp_path):
    """`--scheduler é` (the verb fuzz's odd value) reached distributed's client, which hung
    while giving up; such a value is refused in one line without touching the network."""
    from smemsim.search.pool import parallel_map
    for bad in ("é", ",", "x=", "/dev/null"):
        with pytest.raises(KernelError, match="not a Dask scheduler's address"):
            parallel_map(abs, [1, 2], scheduler=bad)

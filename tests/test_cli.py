"""The smemsim command, in-process: text at a fixed width, JSON structure, exit codes."""
import io
import json
import pathlib

import pytest

from rich.console import Console

from smemsim.cli import run
from tests.conftest import require_nvrtc

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE = str(ROOT / "examples" / "transpose.py")
INT_MATMUL = str(ROOT / "examples" / "int_matmul_nt32.py")


def cli_streams(*argv, width=100):
    """Exit code, stdout and stderr of one command line."""
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), Console(file=out, width=width, color_system=None),
               Console(file=err, width=width, color_system=None))
    return code, out.getvalue(), err.getvalue()


def cli(*argv, width=100):
    """Exit code and everything printed (stdout, then stderr)."""
    code, out, err = cli_streams(*argv, width=width)
    return code, out + err


def test_analyze_prints_sites_totals_and_worst():
    code, out = cli("analyze", TRANSPOSE, "--kernel", "naive")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("transpose_pad0: grid (8, 8, 1), block (32, 32, 1)")
    row = next(line for line in lines if line.startswith("1 "))
    assert row.split() == ["1", "37", "tile", "load", "4B", "2,048", "65,536", "2,048",
                           "63,488", "32.00", "97%"]
    assert "loads: 2,048 requests, 65,536 wavefronts, ideal 2,048, excess 63,488" in out
    assert "worst: line 37 adds 63,488 wavefronts (100% of the excess); its costliest site is 1" in out


def test_analyze_every_kernel_of_a_file_and_params():
    code, out = cli("analyze", TRANSPOSE, "--param", "n=64")
    assert code == 0
    # naive, padded, swizzled, declared, tma_128b
    assert out.count("parameters: n=64") == 5


def test_json_has_the_schema_and_exact_numbers():
    code, out = cli("analyze", INT_MATMUL, "--kernel", "as_written", "--json", "--regs", "32")
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "smemsim/1"
    (res,) = doc["results"]
    assert res["kind"] == "analysis" and res["kernel"] == "int_matmul_nt32"
    a_load = next(s for s in res["sites"] if s["op"] == "load" and s["array"] == "a")
    assert a_load["wavefronts"] == 32 * a_load["requests"]
    assert a_load["histogram"] == [{"wavefronts": 32, "requests": a_load["requests"]}]
    assert a_load["worst"]["offsets"] == [128 * i for i in range(32)]
    assert set(res["load"]) == {"requests", "wavefronts", "ideal", "excess"}
    assert res["occupancy"]["active_blocks"] == 2 and res["occupancy"]["limiters"] == [
        "warps", "registers"]


def test_excess_gate_exit_codes():
    code, out = cli("analyze", TRANSPOSE, "--kernel", "naive", "--fail-on-excess", "0.5")
    assert code == 1 and "gate: transpose_pad0: excess 63,488 wavefronts = 15.500 x ideal" in out
    code, _ = cli("analyze", TRANSPOSE, "--kernel", "padded", "--fail-on-excess", "0")
    assert code == 0
    code, out = cli("analyze", TRANSPOSE, "--kernel", "naive", "--json",
                    "--fail-on-excess", "0.5")
    assert code == 1 and json.loads(out)["exit_code"] == 1


def test_occupancy_gate_and_curves():
    code, out = cli("occupancy", "--arch", "sm_80", "--threads", "256", "--regs", "128",
                    "--smem", "32768")
    assert code == 0
    assert "active blocks per SM: 2 (16 of 64 warps, occupancy 25.0%)" in out
    assert "limited by: registers" in out
    assert "256  25.0% " in out and "<- current" in out
    code, out = cli("occupancy", "--arch", "sm_80", "--threads", "256", "--regs", "128",
                    "--smem", "32768", "--fail-below", "0.5")
    assert code == 1 and "gate: occupancy 0.250 < 0.5" in out
    code, out = cli("occupancy", TRANSPOSE, "--kernel", "padded", "--regs", "32", "--json")
    res = json.loads(out)["results"][0]
    assert res["block_size"] == 1024 and res["static_smem"] == 4224
    assert [c["knob"] for c in res["curves"]] == ["block_size", "registers_per_thread",
                                                   "smem_per_block"]
    # a kernel's options with no kernel are an error, not ignored
    code, out = cli("occupancy", "--threads", "256", "--regs", "32", "--param", "n=64")
    assert code == 2 and "--param: only with a kernels FILE" in out


def test_explain_draws_banks_by_wavefronts():
    code, out = cli("explain", TRANSPOSE, "--kernel", "naive", width=120)
    assert code == 0
    assert "transpose_pad0 site 1, examples/transpose.py:37" in out
    assert "32 wavefronts, ideal 1, excess 31" in out
    assert "4-byte accesses: the whole warp is one group" in out
    # bank 0 serves lane w in wavefront w
    rows = [line.split() for line in out.splitlines() if line[:3].strip().isdigit()]
    assert rows[0][:2] == ["0", "0"] and rows[31][:2] == ["31", "31"]
    code, out = cli("explain", TRANSPOSE, "--kernel", "naive", "0", "--json")
    req = json.loads(out)["results"][0]
    assert req["kind"] == "request" and req["wavefronts"] == 1 and req["op"] == "store"


def test_errors_are_one_line_without_traceback():
    code, out = cli("analyze", TRANSPOSE, "--kernel", "nope")
    assert code == 2 and out.strip().startswith("error: no kernel 'nope'")
    assert "Traceback" not in out and len(out.strip().splitlines()) == 1
    code, out = cli("analyze", TRANSPOSE, "--param", "m=3", "--kernel", "naive")
    assert code == 2 and "unknown parameter 'm'" in out
    code, out = cli("analyze", TRANSPOSE, "--arch", "sm_50", "--kernel", "naive")
    assert code == 2 and "sm_50 has no bank rule set" in out
    code, out = cli("occupancy", "--threads", "2048", "--regs", "32")
    assert code == 2 and "a block of 2048 threads" in out
    code, out = cli("--debug", "analyze", TRANSPOSE, "--kernel", "nope")
    assert code == 2 and "Traceback" in out


def test_a_faulting_kernel_names_its_line_block_and_thread(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from kernels_ir import KernelBuilder, f32, threadIdx\n"
        "k = KernelBuilder('bad')\n"
        "s = k.shared('s', f32, 32)\n"
        "s[threadIdx.x + 1] = 1.0\n"
        "k.launch(1, 32)\n"
        "KERNELS = {'bad': k.build}\n")
    code, out = cli("analyze", str(bad), width=200)
    assert code == 2
    assert "bad.py:4" in out and "index 32 of 's'" in out and "thread (31, 0, 0)" in out


def test_registers_from_a_compile():
    require_nvrtc()
    code, out = cli("occupancy", TRANSPOSE, "--kernel", "padded", "--regs", "compile", "--json")
    res = json.loads(out)["results"][0]
    assert code == 0 and 8 <= res["registers_per_thread"] <= 64
    assert res["static_smem"] == 4224 and res["active_blocks"] == 2
    code, out = cli("occupancy", "--threads", "128", "--regs", "compile")
    assert code == 2 and "--regs compile needs a kernels FILE" in out


def test_codegen_prints_cuda():
    code, out = cli("codegen", TRANSPOSE, "--kernel", "padded", width=200)
    assert code == 0 and 'extern "C" __global__ void __launch_bounds__(1024) transpose_pad1(' in out
    assert "__shared__ __align__(16) float tile[32][33];" in out


def test_compile_reports_a_widened_site_and_reanalyzes():
    require_nvrtc()
    fixture = str(ROOT / "tests" / "kernels" / "widening.py")
    code, out = cli("compile", fixture, width=160)
    assert code == 0
    assert "CHANGED  site 1: the IR states one 4-byte load, the compiler emitted LDS.128" in out
    assert "1    14  tile   load 16B" in out
    code, out = cli("compile", fixture, "--json")
    res = json.loads(out)["results"][0]
    assert res["compiled_widths"] == {"1": 16, "2": 0, "3": 0, "4": 0}
    assert res["compiled_analysis"]["load"]["wavefronts"] == 1024


def test_gpu_verbs_say_what_is_missing_without_a_gpu():
    import pytest
    from gpu_backend.device import gpu_unavailable
    if gpu_unavailable() is None:
        pytest.skip("a GPU is present: this checks the message without one")
    for verb in ("run", "validate"):
        code, out = cli(verb, TRANSPOSE, "--kernel", "naive", width=300)
        assert code == 2 and out.startswith(f"error: {verb}: ")
        assert "Without a GPU, every other verb works (analyze, check, fix, report" in out


def test_fix_shows_before_after_and_the_change():
    code, out = cli("fix", TRANSPOSE, "--kernel", "naive", "--regs", "14", width=200)
    assert code == 0
    # 4,096 B + 1 KiB reserved per block: 228 KiB // 5 KiB = 45 blocks by shared memory
    assert ("transpose_pad0: 67,584 shared wavefronts, 63,488 over ideal (shared memory "
            "alone allows 45 blocks/SM; by every limit, 64 warps per SM)") in out
    assert "tile: Swizzle<5,0,5>: 67,584 -> 4,096 wavefronts, +0 B shared memory" in out
    assert 'declare: k.shared("tile", f32, (32, 32), layout=Swizzle(5, 0, 5))' in out
    pad1 = next(line for line in out.splitlines() if "pad 1 " in line)
    assert pad1.split()[-2:] == ["44", "64"]  # 4,224 B: 44 blocks by shared memory
    assert "CUDA:    tile[i ^ (((i >> 5) & 31) << 0)], i = threadIdx.y * 32 + threadIdx.x" in out
    code, out = cli("fix", INT_MATMUL, "--kernel", "as_written", "--json")
    res = json.loads(out)["results"][0]
    assert res["kind"] == "fix" and res["combined"]["excess"] == 0
    assert [c["label"] for c in res["best"]] == ["Swizzle<5,0,5>", "Swizzle<5,0,5>"]


def test_check_reports_hazards_with_locations_and_exits_1():
    rs = str(ROOT / "examples" / "reed_solomon.py")
    code, out = cli("check", rs, "--kernel", "square", "--param", "B_width=500", width=300)
    assert code == 1 and "divergent __syncthreads(): 64 of 256 threads" in out
    assert "examples/reed_solomon.py:" in out and "iteration bx=3" in out
    code, out = cli("check", TRANSPOSE, "--json")
    doc = json.loads(out)
    assert code == 0 and all(r["clean"] for r in doc["results"])


def test_every_verbs_json_validates_against_the_schema():
    import pytest
    from tests.json_schema import validate
    rs = str(ROOT / "examples" / "reed_solomon.py")
    runs = [("analyze", TRANSPOSE, "--regs", "14"), ("analyze", rs, "--kernel", "tables"),
            ("explain", TRANSPOSE, "--kernel", "naive"),
            ("occupancy", "--threads", "256", "--regs", "64"),
            ("fix", TRANSPOSE, "--kernel", "naive"), ("check", TRANSPOSE),
            ("codegen", TRANSPOSE, "--kernel", "padded"),
            ("layout", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)"),
            ("sweep", TRANSPOSE, "--kernel", "naive", "-p", "n=32,64", "--pad", "tile=0:2",
             "--regs", "32", "--no-cache")]
    for argv in runs:
        code, out = cli(*argv, "--json", width=400)
        assert code == 0, (argv, out)
        validate(json.loads(out))
    require_nvrtc()
    code, out = cli("compile", TRANSPOSE, "--kernel", "naive", "--json")
    validate(json.loads(out))
    # and the validator does reject a broken document
    with pytest.raises(AssertionError, match="missing 'wavefronts'"):
        doc = json.loads(cli("analyze", TRANSPOSE, "--kernel", "naive", "--json")[1])
        del doc["results"][0]["sites"][0]["wavefronts"]
        validate(doc)


def test_sweeps_show_where_totals_change_and_where_hazards_bite():
    code, out = cli("analyze", TRANSPOSE, "--kernel", "naive", "--sweep", "n=32:97:32")
    assert code == 0 and "transpose_pad0: sweep of n" in out
    rows = [line.split() for line in out.splitlines() if line.strip()[:2].isdigit()]
    assert [r[:3] for r in rows] == [["32", "32", "1,024"], ["64", "128", "4,096"],
                                     ["96", "288", "9,216"]]
    rs = str(ROOT / "examples" / "reed_solomon.py")
    code, out = cli("check", rs, "--kernel", "square", "--sweep", "B_width=254:259:2",
                    "--json")
    doc = json.loads(out)
    assert code == 1
    assert [(r["params"]["B_width"], r["clean"]) for r in doc["results"]] == [
        (254, False), (256, True), (258, False)]
    code, out, err = cli_streams("analyze", TRANSPOSE, "--sweep", "n=5")
    assert code == 2 and out == "" and "--sweep takes K=START:STOP[:STEP]" in err


def test_version_and_thresholds_that_cannot_lie():
    code, out = cli("--version")
    assert code == 0
    for argv in (("analyze", TRANSPOSE, "--fail-on-excess", "nan"),
                 ("analyze", TRANSPOSE, "--fail-on-excess", "-1"),
                 ("analyze", TRANSPOSE, "--min-occupancy", "inf"),
                 ("occupancy", "--threads", "256", "--regs", "32", "--fail-below", "1.5")):
        code, _ = cli(*argv)
        assert code == 2, argv


def test_gates_apply_at_every_sweep_point():
    code, out = cli("analyze", TRANSPOSE, "--kernel", "naive", "--sweep", "n=64:129:64",
                    "--fail-on-excess", "0.5")
    assert code == 1
    assert "gate: transpose_pad0 at n=64: excess 3,968 wavefronts = 15.500 x ideal > 0.5" in out
    assert "gate: transpose_pad0 at n=128: excess" in out
    code, out = cli("analyze", TRANSPOSE, "--kernel", "padded", "--sweep", "n=64:129:64",
                    "--fail-on-excess", "0", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["exit_code"] == 0 and len(doc["results"]) == 2


def test_data_files_and_installed_examples(tmp_path, monkeypatch):
    import numpy as np
    same = tmp_path / "same.npy"
    np.save(same, np.full(1 << 20, 7, np.uint8))
    monkeypatch.chdir(tmp_path)  # the example is found by name from any directory
    code, out = cli("analyze", "histogram", "--kernel", "uniform", "--data", f"data={same}",
                    "--json")
    (res,) = json.loads(out)["results"]
    assert code == 0 and res["inputs"]["data"] == str(same)
    assert res["sites"][1]["wavefronts"] == res["sites"][1]["requests"]  # one bin: no conflict
    code, out = cli("analyze", "histogram", "--data", "nope=x.npy")
    assert code == 2 and "has no global array 'nope' (it has data, hist)" in out
    code, out = cli("analyze", "no_such_example")
    assert code == 2 and "the installed examples are" in out


def test_compile_follows_two_stores_merged_into_one_sts64():
    """The merged instruction is re-costed at the first store's address (the second's is
    only 4-byte aligned: re-costing it there used to crash): 256 threads' 8-byte stores,
    8 warp requests of 256 contiguous bytes, 2 wavefronts each."""
    require_nvrtc()
    fixture = str(ROOT / "tests" / "kernels" / "adjacent_stores.py")
    code, out = cli("compile", fixture, width=200)
    assert code == 0, out
    assert "compiler: sites 0, 1 (line 11) merged into one STS.64, counted at site 0's " \
        "address" in out
    row = next(line for line in out.splitlines() if line.startswith("0 "))
    assert row.split()[3:7] == ["store", "8B", "8", "16"]
    code, out = cli("compile", fixture, "--json")
    doc = json.loads(out)["results"][0]
    assert doc["unexplained"] is None and doc["compiled_widths"] == {"0": 8, "1": 0}


def test_analyze_as_compiled_counts_what_nvrtc_emitted():
    require_nvrtc()
    fixture = str(ROOT / "tests" / "kernels" / "adjacent_stores.py")
    code, out = cli("analyze", fixture, width=200)
    # as written: two stride-2 4-byte stores, each 2-way conflicted
    assert "stores: 16 requests, 32 wavefronts, ideal 16, excess 16" in out
    code, out = cli("analyze", fixture, "--as-compiled", width=200)
    assert code == 0
    assert "stores: 8 requests, 16 wavefronts, ideal 16, excess 0" in out  # one STS.64
    assert "compiler: sites 0, 1 (line 11) merged into one STS.64, counted at site 0's " \
        "address" in out
    code, out = cli("analyze", fixture, "--regs", "compile", width=200)
    assert "note: the compiler changed 2 site(s)" in out
    code, out = cli("analyze", TRANSPOSE, "--kernel", "naive", "--as-compiled", "--json")
    doc = json.loads(out)["results"][0]
    assert doc["as_compiled"] == {
        "widths": {}, "notes": ["compiler: every site compiled as stated; the counts are "
                                "unchanged"], "uncounted": 0}
    # a sweep compiles once (parameters are arguments) and follows the hoisted load
    fixture = str(ROOT / "tests" / "kernels" / "compiler_changes.py")
    code, out = cli("analyze", fixture, "--kernel", "invariant", "--as-compiled", "--sweep",
                    "n=0:80:40", "--json")
    docs = json.loads(out)["results"]
    assert code == 0 and [d["load"]["requests"] for d in docs] == [0, 256]


def test_a_closed_pipe_ends_quietly():
    """`smemsim analyze ... | head -1`: the reader went away, which is not bad input. The
    command ends as a Unix tool ended by SIGPIPE reports it (141), with nothing on stderr
    (it was exit 2 and an error line)."""
    import os
    import subprocess
    import sys
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to stdout now fails with EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "smemsim", "analyze", "transpose",
                               "--kernel", "naive"], stdout=write_end, stderr=subprocess.PIPE,
                              cwd=ROOT)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, b"")


def test_ctrl_c_says_what_was_kept_and_exits_130(monkeypatch):
    """A Ctrl-C is no bug (it was a traceback): one line, and the shell's code for SIGINT."""
    from smemsim.cli.verbs import sweep as sweep_verb
    from smemsim.search.sweep import SweepInterrupted

    def interrupted(*args, **kwargs):
        raise SweepInterrupted(2, 4)
    monkeypatch.setattr(sweep_verb, "sweep", interrupted)
    code, out, err = cli_streams("sweep", "transpose", "--kernel", "naive", "-p",
                                 "n=32:160:32", "--no-cache", width=400)
    assert (code, out) == (130, "")
    assert err.strip() == ("interrupted: 2 of 4 points are kept in the cache; run the same "
                           "sweep again to compute only the others")


def test_a_data_file_that_cannot_be_the_array_is_one_line(tmp_path):
    """--data is checked against the array it fills, whether or not the analysis reads it
    (transpose's src: 65,536 f32 at n=256): never reshaped, converted or taken in part;
    a file numpy cannot read without pickles is input, not an internal error (exit 2)."""
    import numpy as np
    cases = {
        "text.npy": (b"hello\n", "not a .npy file"),
        "short.npy": (None, "100 elements; 'src' has 65,536 at these parameters"),
        "square.npy": (None, "a 2-D array (256, 256); 'src' is 1-D (65,536 elements)"),
        "double.npy": (None, "float64 elements; 'src' holds f32 (float32)"),
        "objects.npy": (None, "Object arrays cannot be loaded when allow_pickle=False"),
        "cut.npy": (None, "EOF"),
    }
    np.save(tmp_path / "short.npy", np.zeros(100, np.float32))
    np.save(tmp_path / "square.npy", np.zeros((256, 256), np.float32))
    np.save(tmp_path / "double.npy", np.zeros(65536))
    np.save(tmp_path / "objects.npy", np.array([{}], dtype=object), allow_pickle=True)
    (tmp_path / "cut.npy").write_bytes((tmp_path / "short.npy").read_bytes()[:100])
    (tmp_path / "text.npy").write_bytes(b"hello\n")
    for name, (_, message) in cases.items():
        code, out = cli("analyze", "transpose", "--kernel", "naive", "--data",
                        f"src={tmp_path / name}")
        assert code == 2 and message in out and "internal error" not in out, (name, out)


def test_stdout_on_a_full_disk_is_the_environment_not_a_bug():
    """`smemsim analyze ... > /dev/full`: one line on stderr, exit 2 (was 3, "a bug")."""
    import subprocess
    import sys
    if not pathlib.Path("/dev/full").exists():
        pytest.skip("this system has no /dev/full")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "smemsim", "analyze", "transpose",
                               "--kernel", "naive"], stdout=full, stderr=subprocess.PIPE,
                              cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == \
        "error: cannot write the output: No space left on device"


def test_an_unwritable_csv_is_the_environment(tmp_path):
    code, out = cli("sweep", "transpose", "--kernel", "naive", "-p", "n=32,64", "--csv",
                    str(tmp_path / "missing" / "x.csv"))
    assert code == 2 and f"{tmp_path / 'missing' / 'x.csv'}: No such file or directory" in out
    code, out = cli("sweep", "transpose", "--kernel", "naive", "-p", "n=32,64", "--csv",
                    str(tmp_path))
    assert code == 2 and f"{tmp_path}: Is a directory" in out


def test_nvcc_flags_only_where_a_cu_is_built_with_nvcc():
    """Every verb that reads a .cu takes --nvcc-flag (a new user's explain, check and sweep
    did not); a kernels file is no nvcc build: given there, it is an error."""
    code, out = cli("sweep", "transpose", "--kernel", "naive", "--nvcc-flag=-G")
    assert code == 2 and "--nvcc-flag: only for a CUDA file (.cu)" in out
    code, out = cli("explain", str(ROOT / "examples" / "transpose.cu"), "1",
                    "--nvcc-flag=-DPAD=1")
    assert code == 0 and "32 active lanes: 1 wavefront, ideal 1, excess 0" in out


@pytest.mark.parametrize("argv, message", [
    (["sweep", "transpose", "--kernel", "naive", "--arch", ","],
     "--arch ',': no architecture named"),
    (["import", "transpose", "--output", "x\x00y"], "argument 4 holds a NUL byte"),
])
def test_options_no_shell_would_send_are_input_errors(argv, message):
    """Found by running every verb's every option with odd values (empty, ',', a NUL byte,
    ...): these two were internal errors (exit 3)."""
    code, out = cli(*argv)
    assert code == 2 and message in out


def test_at_80_columns_no_figure_is_cut():
    """The site table leaves out whole columns (and says so) before it would cut a figure;
    the sweep folds layout labels; the explain command stands whole on its own line."""
    code, out = cli("analyze", str(ROOT / "examples" / "persistent_gemm.py"), width=80)
    assert code == 0 and "…" not in out
    assert "(left out at 80 columns: ideal; a wider terminal or --json shows every column)" \
        in out
    assert "\n  smemsim explain " in out and "7,864,320" in out
    code, out = cli("sweep", str(ROOT / "examples" / "matmul_float_tiled.py"), "--kernel",
                    "matmul_tiled32", "-p", "rowsA=1024,2048", "--arch", "sm_80,sm_90",
                    "--regs", "32", "--pad", "tileA=0,1", "--swizzle", "tileB=none,3.2.3",
                    width=80)
    assert code == 0 and "…" not in out and "4,325,376" in out
    code, out = cli("analyze", str(ROOT / "examples" / "persistent_gemm.py"), width=120)
    assert "left out" not in out and " ideal " in out


def test_options_and_help_agree_across_verbs(capsys):
    """-p is --param everywhere; every verb's --help has examples and the terms; the
    block-size curve has the sizes people choose (64 ... 1024 threads)."""
    from smemsim.cli import VERBS
    code, out = cli("analyze", "transpose", "--kernel", "naive", "-p", "n=64")
    assert code == 0 and "parameters: n=64" in out
    for verb in VERBS:
        code, _ = cli(verb, "--help", width=100)
        out = capsys.readouterr().out  # argparse prints help itself
        assert code == 0 and "examples:\n  smemsim " + verb in out, verb
        assert "excess = wavefronts - ideal" in out, verb
    code, out = cli("occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "32")
    rows = [line.split()[0] for line in out.split("occupancy vs block_size")[1].splitlines()
            if line.strip() and line.split()[0].isdigit()]
    assert {"64", "128", "256", "512", "1024"} <= set(rows)


RACY = """\
__global__ void racy(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = out[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
void host(float *d) { racy<<<1, 64>>>(d); }
"""


def test_sarif_for_code_scanning(tmp_path):
    """--sarif writes SARIF 2.1.0: analyze's sites over the gate (errors; without a gate,
    every site with excess, as warnings) and check's hazards, each at its source line."""
    out_file = tmp_path / "a.sarif"
    code, _ = cli("analyze", str(ROOT / "examples" / "transpose.cu"), "--fail-on-excess",
                  "0.5", "--sarif", str(out_file))
    doc = json.loads(out_file.read_text())
    assert code == 1 and doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    assert run["tool"]["driver"]["name"] == "smemsim"
    (res,) = run["results"]
    assert res["ruleId"] == "bank-conflict" and res["level"] == "error"
    assert res["locations"][0]["physicalLocation"]["region"] == {"startLine": 20,
                                                                 "startColumn": 22}
    assert "63,488 excess wavefronts over 2,048 requests" in res["message"]["text"]
    # a site over the ratio (31 x ideal) in a kernel under it (63,488 over 4,096: 15.5):
    # the gate passes, and the site is a warning, not an error the exit code contradicts
    code, _ = cli("analyze", str(ROOT / "examples" / "transpose.cu"), "--fail-on-excess",
                  "20", "--sarif", str(out_file))
    (res,) = json.loads(out_file.read_text())["runs"][0]["results"]
    assert code == 0 and res["level"] == "warning"
    cu = tmp_path / "racy.cu"
    cu.write_text(RACY)
    code, _ = cli("check", str(cu), "--length", "out=64", "--sarif", str(out_file))
    results = json.loads(out_file.read_text())["runs"][0]["results"]
    assert code == 1 and results and all(r["ruleId"] == "shared-race" for r in results)
    lines = {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results}
    assert lines <= {4, 5} and results[0]["locations"][0]["physicalLocation"][
        "artifactLocation"]["uri"].endswith("racy.cu")
    # the store at line 4 and the read at line 5, both places (a review shows both)
    places = {(r["locations"][0]["physicalLocation"]["region"]["startLine"],
               r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
               r["relatedLocations"][0]["message"]["text"]) for r in results}
    assert places == {(5, 4, "the other access")} or places == {(4, 5, "the other access")}


def test_a_long_sweep_says_how_long_before_it_goes_on(monkeypatch, capsys, tmp_path):
    """The first point is timed; a sweep expected to take long (30 s and more; here the
    threshold is lowered to 0) says so on stderr, with the points and the workers."""
    import smemsim.cli.verbs.sweep as sweep_verb
    monkeypatch.setattr(sweep_verb, "ESTIMATE_FROM_S", 0.0)
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path))
    code, _ = cli("sweep", "transpose", "--kernel", "naive", "-p", "n=32,64,96,128", "--jobs",
                  "1")
    err = capsys.readouterr().err
    assert code == 0
    assert "note: sweep: 4 points to compute; the first took " in err
    assert "on 1 worker(s) (Ctrl-C keeps every finished point in the cache)" in err


def test_import_never_replaces_a_file_it_did_not_write(tmp_path):
    """`import -o PATH` over an existing file that is not an import's output (a typo, a
    path a script computed: /etc/passwd once, in a fuzz run as root) is refused, and the
    file is intact; a previous import's output is replaced; --force replaces anything."""
    cu = str(ROOT / "examples" / "transpose.cu")
    precious = tmp_path / "notes.py"
    precious.write_text("keep me\n")
    code, out = cli("import", cu, "-o", str(precious))
    assert code == 2 and "exists and `smemsim import` did not write it" in out
    assert precious.read_text() == "keep me\n"
    mine = tmp_path / "k.py"
    assert cli("import", cu, "-o", str(mine))[0] == 0
    assert cli("import", cu, "-o", str(mine))[0] == 0
    assert cli("import", cu, "-o", str(precious), "--force")[0] == 0
    assert precious.read_text().startswith("# Kernels read from nvcc's build of transpose.cu")


BIG = """\
__global__ void big(float *out)
{
    __shared__ float s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.y * 65535ull + blockIdx.x] = s[31 - threadIdx.x];
}
void h(float *o) { big<<<dim3(65535, 65535), 32>>>(o); }
"""


def test_the_largest_legal_grid_is_analyzed(tmp_path):
    """A 65535 x 65535 grid (4,294,836,225 blocks) whose shared accesses do not depend on
    the block: block 0 stands for every block, with no per-block array (it was refused as
    "out of memory"). One warp a block: one store and one load request each."""
    cu = tmp_path / "big.cu"
    cu.write_text(BIG)
    code, out = cli("analyze", str(cu), "--length", "out=4294836225ULL", "--json")
    assert code == 0, out
    res = json.loads(out)["results"][0]
    assert res["grid"] == [65535, 65535, 1]
    assert res["load"]["requests"] == res["store"]["requests"] == 65535 * 65535
    assert res["load"]["wavefronts"] == 65535 * 65535


def test_the_largest_legal_grid_is_checked_at_its_ends(tmp_path):
    """`check` of the same grid: the shared run takes block 0 (its addresses read no block
    axis), the other run the grid's corner blocks (the store's index is affine in both
    block axes): no array of 4.3 G block ids. Where the other run cannot be taken at the
    ends, the check says so at once, instead of running out of memory."""
    cu = tmp_path / "big.cu"
    cu.write_text(BIG)
    code, out = cli("check", str(cu), "--length", "out=4294836225ULL", "--json")
    assert code == 0, out
    res = json.loads(out)["results"][0]
    assert res["clean"] and res["blocks_checked"] == res["blocks_total"] == 65535 * 65535
    assert res["method"] == "sliced"
    scattered = tmp_path / "scattered.cu"
    scattered.write_text(BIG.replace("out[blockIdx.y * 65535ull + blockIdx.x]",
                                      "out[(blockIdx.y * 65535ull + blockIdx.x) % 1000]"))
    code, out = cli("check", str(scattered), "--length", "out=1000")
    assert code == 2 and "4,294,836,225 blocks, too many to run one by one" in out
    assert "Traceback" not in out


def test_the_largest_grid_when_the_accesses_read_one_block_axis(tmp_path):
    """The same grid with a store whose stride depends on blockIdx.x (1, 2, 3 or 4 words):
    the blocks at y = 0 stand for every row of blocks (65,535 blocks traced, not 4.3 G).
    Per x & 3 = 0, 1, 2, 3 a request costs 1, 2, 1 and 4 wavefronts (strides 1, 2, 3, 4
    words); x runs 0..65534, so the first three strides occur 16,384 times a row and the
    last 16,383."""
    cu = tmp_path / "big.cu"
    cu.write_text(BIG.replace("s[threadIdx.x] = threadIdx.x;",
                              "s[threadIdx.x * ((blockIdx.x & 3) + 1)] = threadIdx.x;")
                  .replace("s[32]", "s[128]"))
    code, out = cli("analyze", str(cu), "--length", "out=4294836225ULL", "--json")
    assert code == 0, out
    res = json.loads(out)["results"][0]
    assert res["store"]["requests"] == 65535 * 65535
    assert res["store"]["wavefronts"] == 65535 * (16384 * (1 + 2 + 1) + 16383 * 4)


BLUR = """\
#define T 16
__global__ void blur(const float *in, float *out, int W, int H)
{
    __shared__ float s[T + 2][T + 2];
    int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
    if (x < W && y < H) s[threadIdx.y + 1][threadIdx.x + 1] = in[y * W + x];
    if (threadIdx.x == 0 && y < H) s[threadIdx.y + 1][0] = x > 0 ? in[y * W + x - 1] : 0.0f;
    __syncthreads();
    if (x < W && y < H)
        out[y * W + x] = s[threadIdx.y + 1][threadIdx.x] + s[threadIdx.y + 1][threadIdx.x + 1];
}
void h(const float *in, float *out, int W, int H)
{
    blur<<<dim3((W + T - 1) / T, (H + T - 1) / T), dim3(T, T)>>>(in, out, W, H);
}
"""


def test_the_largest_grid_when_guards_read_both_block_axes(tmp_path):
    """A 2-D image kernel guards by `x < W && y < H`: the slice reads both block axes, but
    each guard only one, so blocks are classed axis by axis (trace._separable_classes; it
    took 51 s and 24 GB at a 16,384^2 grid). At 65,535^2 blocks of 16 x 16: every warp of
    every block makes each access once. The tile's rows are 18 floats, so a warp's two rows
    share two banks: 2 wavefronts a request, but the halo store (lanes tx = 0: two words
    18 apart) 1."""
    cu = tmp_path / "blur.cu"
    cu.write_text(BLUR)
    n = 65535 * 16
    code, out = cli("analyze", str(cu), "-p", f"W={n}", "-p", f"H={n}", "--length",
                    f"in={n * n}", "--length", f"out={n * n}", "--json")
    assert code == 0, out
    res = json.loads(out)["results"][0]
    warps = 65535 * 65535 * 8
    assert res["grid"] == [65535, 65535, 1]
    assert [(s["line"], s["requests"], s["wavefronts"]) for s in res["sites"]] == [
        (6, warps, 2 * warps), (7, warps, warps),
        (10, warps, 2 * warps), (10, warps, 2 * warps)]


@pytest.mark.parametrize("size", [(16383, 4001), (4100, 9000), (2048, 2048)])
def test_guards_classed_axis_by_axis_count_as_block_by_block(monkeypatch, tmp_path, size):
    """The classes axis by axis give every site's counts and histogram as classing block
    by block does, with edge blocks where the guards hold for some threads only."""
    import smemsim.launch.trace as trace
    from smemsim import analyze
    from smemsim.frontends.cuda import Options
    from tests.built import import_kernels
    w, h = size
    path = tmp_path / "blur.cu"
    path.write_text(BLUR)
    k = import_kernels(str(path), Options(params={"W": w, "H": h},
                                          lengths={"in": str(w * h), "out": str(w * h)}))
    counts = []
    for threshold in (0, 1 << 62):
        monkeypatch.setattr(trace, "SEPARABLE_BLOCKS", threshold)
        r = analyze(k["blur"]())
        counts.append([(s.site, s.requests, s.wavefronts, s.ideal, s.histogram)
                       for s in r.sites])
    assert counts[0] == counts[1]


@pytest.mark.parametrize("synced", [True, False])
def test_check_classes_a_2d_grid_axis_by_axis(monkeypatch, tmp_path, synced):
    """`check`'s shared run takes one block per class of the grid made axis by axis
    (check_slices._class_representatives): the same verdict as one block per coordinate pair,
    clean with the barrier, the race without it (thread (1, 0) reads the element thread
    (0, 0) wrote: lines 6 and 9), at a size with edge blocks on both axes; and a grid of
    8.4 M blocks (1,048,560 x 2,048 pixels) checked without walking it (past 100 s)."""
    import smemsim.launch.check_slices as check_slices
    cu = tmp_path / "blur.cu"
    cu.write_text(BLUR if synced else BLUR.replace("    __syncthreads();\n", ""))
    verdicts = []
    for threshold in (0, 1 << 62):
        monkeypatch.setattr(check_slices, "CHECK_SEPARABLE_BLOCKS", threshold)
        code, out = cli("check", str(cu), "-p", "W=330", "-p", "H=290", "--length",
                        "in=95700", "--length", "out=95700", "--json")
        res = json.loads(out)["results"][0]
        verdicts.append((code, res["clean"], sorted((r["kind"], r["first_loc"]["line"],
                                                     r["second_loc"]["line"])
                                                    for r in res["races"])))
    assert verdicts[0] == verdicts[1]
    assert verdicts[0][1] is synced
    if synced:
        monkeypatch.undo()
        w, h = 65535 * 16, 2048
        code, out = cli("check", str(cu), "-p", f"W={w}", "-p", f"H={h}", "--length",
                        f"in={w * h}", "--length", f"out={w * h}", "--json")
        res = json.loads(out)["results"][0]
        assert code == 0 and res["clean"] and res["blocks_total"] == 65535 * 128


def test_kernels_files_in_packages_import_by_their_dotted_name(tmp_path):
    """A kernels file in a package imports its siblings relatively (as the examples do:
    `from . import gf256`), at any depth; a package named like a module already imported
    (`json/`) is loaded as a plain file instead of failing on the taken name."""
    pkg = tmp_path / "outer" / "inner"
    pkg.mkdir(parents=True)
    (tmp_path / "outer" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text("TILE = 32\n")
    source = pathlib.Path(TRANSPOSE).read_text()
    (pkg / "kernels.py").write_text("from . import helper\nassert helper.TILE == 32\n" + source)
    code, out = cli("analyze", str(pkg / "kernels.py"), "--kernel", "naive")
    assert code == 0, out
    taken = tmp_path / "json"
    taken.mkdir()
    (taken / "__init__.py").write_text("")
    (taken / "kernels.py").write_text(source)
    code, out = cli("analyze", str(taken / "kernels.py"), "--kernel", "naive")
    assert code == 0, out


def test_an_installed_cuda_example_is_found_by_its_name(tmp_path, monkeypatch):
    """`smemsim analyze transpose.cu` works from any folder, as `analyze transpose` does; a
    file of that name in the folder comes first, and other names are not looked up."""
    monkeypatch.chdir(tmp_path)
    code, out = cli("analyze", "transpose.cu", "--json")
    assert code == 0 and json.loads(out)["results"][0]["kernel"] == "transpose"
    code, out = cli("analyze", "missing.cu")
    assert code == 2 and "no such file: missing.cu" in out
    (tmp_path / "transpose.cu").write_text(BIG)  # the folder's own file of that name wins
    code, out = cli("analyze", "transpose.cu", "--length", "out=4294836225ULL", "--json")
    assert code == 0 and json.loads(out)["results"][0]["kernel"] == "big"


def test_output_to_a_pipe_is_not_wrapped_at_80_columns(tmp_path):
    """Piped (`| grep`, `> file`), a site's statement is on its own line whole: rich's 80
    columns for a non-terminal split it mid-expression."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run([sys.executable, "-m", "smemsim", "analyze", "transpose"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    site = next(line for line in done.stdout.splitlines() if line.startswith("  site 1 "))
    assert site.endswith("f32 tile_v = tile[threadIdx.x][threadIdx.y]"), done.stdout
    env["COLUMNS"] = "60"   # (the user's own width is still followed)
    done = subprocess.run([sys.executable, "-m", "smemsim", "analyze", "transpose"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert max(len(line) for line in done.stdout.splitlines()) <= 60

"""Bad input gets one clear error naming what and where; nothing is silently truncated,
wrapped or clamped (issue #16's cases, as they are fixed)."""
import json
import pathlib
import re

import numpy as np
import pytest

from kernels_ir import KernelBuilder, KernelError, f32, threadIdx, u8, u32
from smemsim import ArchError, RequestError, get_arch, warp_request, warp_requests
from tests.conftest import require_nvrtc


def _builder_store(kind):
    k = KernelBuilder("bad")
    small = k.shared("small", u8, 32)
    given = k.global_array("given", f32, 32)
    regs = k.local_array("regs", u8, 4)
    counts = k.shared("counts", u32, 32)
    {"u8": lambda: small.__setitem__(threadIdx.x, 300),
     "negative": lambda: small.__setitem__(threadIdx.x, -1),
     "input": lambda: given.__setitem__(threadIdx.x, 1.0),
     "register": lambda: regs.__setitem__(0, 256),
     "atomic": lambda: k.atomic(counts, threadIdx.x, "add", -5)}[kind]()


CASES = [
    # (call, error type, message pattern)
    (lambda: _builder_store("u8"), KernelError, r"storing into 'small': constant 300 does not "
                                                r"fit u8"),
    (lambda: _builder_store("negative"), KernelError, r"constant -1 does not fit u8"),
    (lambda: _builder_store("input"), KernelError, r"'given' is an input \(intent='in'"),
    (lambda: _builder_store("register"), KernelError, r"'regs': constant 256 does not fit u8"),
    (lambda: _builder_store("atomic"), KernelError, r"'counts': constant -5 does not fit u32"),
    (lambda: warp_requests(np.array([[0.5] * 32]), 4), RequestError,
     r"offsets must be integers .* got np.float64\(0.5\)"),
    (lambda: warp_requests(np.zeros((1, 32), int), 4.5), RequestError,
     r"widths must be integers"),
    (lambda: warp_request([0, 4.5], 4), RequestError, r"lane 1: offset 4.5 is not an integer"),
    (lambda: get_arch("sm_90aaa"), ArchError, r"unknown architecture 'sm_90aaa'"),
    (lambda: get_arch("sm_90f0"), ArchError, r"unknown architecture"),
]


@pytest.mark.parametrize("call, error, message", CASES, ids=[m[:30] for _, _, m in CASES])
def test_bad_input_is_refused_with_its_value(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_architecture_suffixes_are_one_letter():
    assert get_arch("sm_90a").name == "sm_90" and get_arch("sm_100f").name == "sm_100"


@pytest.mark.parametrize("op, width", [("load", 4), ("store", 16), ("load", 16), ("store", 8)])
def test_engines_agree_beyond_256_kib(op, width):
    """Windows are < 256 KiB on every architecture, but a caller may pass a larger one; the
    numpy path's keys used to run out of bits there (a crash, or a wrong count)."""
    rng = np.random.default_rng(width)
    window = 1 << 21
    rows = rng.integers(0, window // width, (64, 32)) * width
    rows[:, ::5] = -1
    rows[0] = 300000 // width * width + np.arange(32) * 16 * width  # far up, strided
    scalar = [warp_request([None if o < 0 else int(o) for o in r], width, op,
                           window=window).wavefronts for r in rows]
    for engine in ("numpy", "numba"):
        got = warp_requests(rows, width, op, engine=engine, window=window).wavefronts
        assert got.tolist() == scalar, engine


# ------------------------------------------------------------------ the command line
# Each case: a kernels file (the body of a builder function `make`, or a whole file when it
# starts with "FILE:"), the command line ({f} is the file), exit code and message pattern.
# The message must be one line on stderr, with no traceback; --json gives an error object.
_OK_BODY = """
    k = KernelBuilder("k")
    s = k.shared("s", f32, 256)
    s[threadIdx.x] = 1.0
    k.launch(1, 256)
"""

CLI_CASES = [
    ("FILE:import kernels_ir\nraise ValueError('boom')\n", "analyze {f}", 2,
     r"^error: k\.py:2: ValueError importing the kernels file: boom$"),
    ("FILE:def f(:\n", "analyze {f}", 2, r"^error: k\.py:1: the kernels file does not parse"),
    ("FILE:import kernels_ir\nimport no_such_module_here\n", "check {f}", 2,
     r"k\.py:2: ModuleNotFoundError importing the kernels file: No module named"),
    # (a Python file that says nothing of kernels is refused unread: never run)
    ("FILE:import no_such_module_here\n", "check {f}", 2,
     r"k\.py is no file smemsim reads: .*: not run"),
    ("\n    k = KernelBuilder('k', block=(256,))\n", "analyze {f}", 2,
     r"k\.py:4: TypeError building KERNELS\['k'\]: .*unexpected keyword argument 'block'"),
    ("    return 3\n", "analyze {f}", 2, r"KERNELS\['k'\] of k\.py gave int 3, not a Kernel"),
    ("FILE:KERNELS = [1]\n", "analyze {f}", 2, r"KERNELS must be a dict .* got list"),
    ("FILE:import kernels_ir\nx = 1\n", "analyze {f}", 2, r"k\.py defines no kernels"),
    (_OK_BODY + "    return k.build()\nARRAYS = {'k': lambda launch: 1 / 0}\n", "analyze {f}", 2,
     r"k\.py:\d+: ZeroDivisionError making ARRAYS\['k'\]: division by zero"),
    (None, "analyze /no/such/file.py", 2, r"no such file: /no/such/file.py \(the installed "
                                          r"examples are .*transpose"),
    (_OK_BODY.replace("k.launch(1, 256)", "k.launch(1, 2048)") + "    return k.build()\n",
     "analyze {f}", 2, r"kernel 'k', line k\.py:7: block\.x = 2048 is outside 1\.\.1024"),
    (_OK_BODY.replace("k.launch(1, 256)", "k.launch(1, k.param('T'))") + "    return k.build()\n",
     "analyze {f}", 2, r"line k\.py:7: parameter 'T' has no value: give one \(-p T=V"),
    (_OK_BODY + "    return k.build()\n", "analyze {f} --param T=3", 2,
     r"line k\.py:7: unknown parameter 'T' \(given\); the kernel's parameters are none"),
    (_OK_BODY + "    k.defaults(T=3)\n    return k.build()\n", "analyze {f}", 2,
     r"unknown parameter 'T' \(set by k\.defaults\)"),
    (_OK_BODY.replace("k.launch(1, 256)", "k.launch(k.param('n') // 2, 256)")
     + "    return k.build()\n", "analyze {f} --param n=1", 2,
     r"line k\.py:7: grid\.x = 0 is outside 1\.\.2147483647 \(with n=1\)"),
    (_OK_BODY.replace("k.launch(1, 256)", "k.launch(1, k.param('T'))") + "    return k.build()\n",
     "analyze {f} --param T=3.5", 2, r"parameter 'T' is i32, got 3\.5 \(given\)"),
    (_OK_BODY.replace("256)\n", "240 * 256)\n", 1) + "    return k.build()\n", "analyze {f}",
     2, r"line k\.py:5: shared array 's' brings static shared memory to 245760 bytes; CUDA "
        r"allows at most 49152"),
    (_OK_BODY.replace('"s"', '"int"') + "    return k.build()\n", "analyze {f}", 2,
     r"line k\.py:5: the name 'int' is reserved in the generated CUDA"),
    (_OK_BODY.replace('"k"', '"max"') + "    return k.build()\n", "analyze {f}", 2,
     r"k\.py:4: kernel name 'max' is reserved"),
    (_OK_BODY + "    return k.build()\n", "occupancy {f} --regs 32 --threads 128 --smem 10", 2,
     r"--threads, --smem: with a kernels FILE, the block size and shared memory come from"),
    (_OK_BODY + "    return k.build()\n", "fix {f} 7", 2,
     r"kernel 'k': no shared access site 7; the sites are 0"),
    (_OK_BODY + "    return k.build()\n", "explain {f} 7", 2, r"has no site 7; its sites are 0$"),
    (_OK_BODY + "    return k.build()\n", "analyze {f} --kernel nope", 2,
     r"no kernel 'nope'; this file has: k"),
    (_OK_BODY + "    return k.build()\n", "analyze {f} --arch sm_91", 2,
     r"unknown architecture 'sm_91'"),
    (_OK_BODY + "    return k.build()\n", "analyze {f} --fail-on-excess nan", 2,
     r"smemsim analyze: argument --fail-on-excess: a threshold must be a finite number >= 0, "
     r"not 'nan' \(see smemsim analyze --help\)"),
    (_OK_BODY + "    return k.build()\n", "analyze {f} --no-such-option", 2,
     r"unrecognized arguments: --no-such-option"),
    (None, "analyze", 2, r"the following arguments are required: file"),
    (None, "analyse k.py", 2, r"smemsim: argument VERB: invalid choice: 'analyse'"),
    (_OK_BODY.replace("s[threadIdx.x]", "s[threadIdx.x + 1]") + "    return k.build()\n",
     "analyze {f}", 2, r"kernel 'k', line k\.py:6, .*index 256 of 's'.*thread \(255, 0, 0\)"),
    (_OK_BODY + "    return k.build()\n", "check {f} --blocks 0,1", 2,
     r"kernel 'k': block 1 is outside the grid \(1, 1, 1\) \(linear ids 0\.\.0\)"),
    (_OK_BODY + "    return k.build()\n", "check {f} --blocks 2:1", 2,
     r"--blocks takes linear block ids and ranges, as 0,5,8:16, not '2:1'"),
    (_OK_BODY + "    return k.build()\n", "sweep {f} --pad s=0:2", 2,
     r"--pad s: padding needs a shared array of rank 2 or more .*'s' has rank 1"),
    (None, "analyze transpose --kernel naive --param n=64 --param n=128", 2,
     r"--param n is given twice \(64 and '128'\): give it once"),
    (None, "analyze transpose --kernel naive --param n=nan", 2,
     r"--param n: 'nan' is not a finite number"),
    (None, "sweep transpose --kernel naive -p n=64:128:64 --top -1 --no-cache", 2,
     r"--top takes a whole number >= 0 \(0: all\), not '-1'"),
    (None, "check transpose --kernel naive --regs -5", 2,
     r"--regs takes a whole number >= 1, not '-5'"),
    (None, "fix transpose --kernel naive --regs 300", 2,
     r"--regs 300: a thread has 1 to 255 registers on every architecture"),
    (None, "analyze transpose --kernel naive --arch sm_89a", 2,
     r"unknown architecture 'sm_89a': the 'a' suffix exists for sm_90 and later"),
    (None, "analyze transpose --kernel naive --arch sm_90f", 2,
     r"unknown architecture 'sm_90f': the 'f' suffix exists for sm_100 and later"),
]


def _kernel_file(tmp_path, text):
    if text is None:
        return None
    f = tmp_path / "k.py"
    if text.startswith("FILE:"):
        f.write_text(text[len("FILE:"):])
    else:
        f.write_text("from kernels_ir import KernelBuilder, f32, threadIdx\n\n"
                     f"def make():{text}\nKERNELS = {{'k': make}}\n")
    return f


@pytest.mark.parametrize("text, argv, code, message", CLI_CASES,
                         ids=[c[3][:40] for c in CLI_CASES])
def test_every_bad_input_is_one_line_with_its_exit_code(tmp_path, monkeypatch, text, argv,
                                                        code, message):
    from tests.json_schema import validate
    from tests.test_cli import cli_streams
    f = _kernel_file(tmp_path, text)
    monkeypatch.chdir(tmp_path)
    words = [w.format(f=f.name if f else "") for w in argv.split()]
    got, out, err = cli_streams(*words, width=400)
    assert got == code, err
    if code == 2 and "--fail-on-excess" in argv:  # argparse's own usage error
        assert "nan" in err
        return
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert re.search(message, err.strip()), err
    assert "Traceback" not in err
    got, out, err = cli_streams(*words, "--json", width=400)
    document = json.loads(out)
    validate(document)
    assert document["exit_code"] == code and document["results"] == []
    assert re.search(message, "error: " + document["error"]["message"])


def test_json_errors_say_where_and_which_lane(tmp_path, monkeypatch):
    from tests.test_cli import cli_streams
    monkeypatch.chdir(tmp_path)
    _kernel_file(tmp_path, _OK_BODY.replace("s[threadIdx.x]", "s[threadIdx.x + 1]")
                 + "    return k.build()\n")
    _, out, _ = cli_streams("analyze", "k.py", "--json")
    error = json.loads(out)["error"]
    assert error["kind"] == "input" and error["type"] == "KernelRuntimeError"
    assert (error["kernel"], pathlib.Path(error["file"]).name, error["line"]) == ("k", "k.py", 6)
    assert error["block"] == [0, 0, 0] and error["thread"] == [255, 0, 0]


def test_debug_shows_the_traceback_on_stderr(tmp_path, monkeypatch):
    from tests.test_cli import cli_streams
    monkeypatch.chdir(tmp_path)
    _kernel_file(tmp_path, "FILE:import kernels_ir\nraise ValueError('boom')\n")
    code, out, err = cli_streams("--debug", "analyze", "k.py")
    assert code == 2 and out == "" and "Traceback" in err and "ValueError: boom" in err


def test_a_bug_of_ours_is_exit_3_and_says_so(monkeypatch):
    """An exception no input explains is reported as smemsim's bug, never as bad input and
    never as a failed gate (exit 1)."""
    from tests.test_cli import cli_streams
    import smemsim.cli.verbs.analyze as verb

    def broken(*args, **kwargs):
        return {}["no such key"]
    monkeypatch.setattr(verb, "analyze", broken)
    code, out, err = cli_streams("analyze", "transpose", "--kernel", "naive")
    assert code == 3 and out == ""
    assert err.startswith("error: internal error (KeyError: 'no such key'); this is a bug")
    code, out, _ = cli_streams("analyze", "transpose", "--kernel", "naive", "--json")
    assert code == 3 and json.loads(out)["error"]["kind"] == "internal"


def test_an_nvrtc_error_is_one_line_naming_the_first_error(monkeypatch):
    require_nvrtc()
    from tests.test_cli import cli_streams
    import gpu_backend.compile as compile_module
    monkeypatch.setenv("SMEMSIM_CACHE", "")  # no kept build: NVRTC must see this source
    real = compile_module.nvrtc_cubin
    # NVRTC rejecting generated CUDA (here: made invalid on purpose) reaches the user as
    # one line with NVRTC's first error, not as its whole log
    monkeypatch.setattr(compile_module, "nvrtc_cubin",
                        lambda source, arch, name: real(source.replace("__syncthreads();",
                                                                       "syncthreadz();"),
                                                        arch, name))
    code, out, err = cli_streams("compile", "transpose", "--kernel", "naive", width=400)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert re.search(r"NVRTC could not compile 'transpose_pad0.cu' for sm_90: "
                     r"transpose_pad0.cu\(\d+\): error: identifier \"syncthreadz\" is undefined",
                     err), err

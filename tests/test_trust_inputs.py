"""Inputs that cost seconds and gigabytes, or a traceback, before they were refused (issue
#51): a chain of #defines, a cupy program's 50,001-term string, a malformed --sweep-result,
a 10 GB dynamic shared memory launch, and which Python files smemsim runs."""
from __future__ import annotations

import copy
import io
import json
import pathlib
import re
import time

import pytest
from rich.console import Console

from smemsim.cli import run

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE_CU = str(ROOT / "examples" / "transpose.cu")


def cli(*argv, width=400):
    """Exit code, stdout and stderr of one command line, in this process."""
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), Console(file=out, width=width, color_system=None),
               Console(file=err, width=width, color_system=None))
    return code, out.getvalue(), err.getvalue()


def one_error(err: str) -> str:
    """The one error line of stderr (notes aside), which no traceback precedes."""
    assert "Traceback" not in err, err
    lines = [line for line in err.strip().splitlines() if not line.startswith("note:")]
    assert len(lines) == 1, err
    return lines[0]


KERNEL = """__global__ void k(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x % 64] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * 2) % 64];
}
void host(float *out) { k<<<1, 64>>>(out); }
"""


# ------------------------------------------------------------------ 1. a #define chain

def test_a_chain_of_defines_is_linear_work(tmp_path):
    """3,000 chained defines (`#define A1 A0+1` ... `#define A2999 A2998+1`) used 10 times:
    a hide set per token made each use quadratic (2 s and 460 MB a use; 10 uses of it in a
    kernel took 64 s and 4.3 GB); the expansion is now linear, and every #if reads 3000."""
    n, uses = 3000, 10
    lines = ["#define A0 1"] + [f"#define A{i} A{i - 1}+1" for i in range(1, n)]
    for _ in range(uses):
        lines += [f"#if A{n - 1} != {n}", "#error the chain does not add up", "#endif"]
    f = tmp_path / "chain.cu"
    f.write_text("\n".join(lines) + "\n" + KERNEL)
    start = time.perf_counter()
    code, out, err = cli("analyze", str(f), "--json")
    took = time.perf_counter() - start
    assert code == 0, err
    assert json.loads(out)["results"][0]["kernel"] == "k"
    assert took < 10, f"{took:.1f} s"  # about 1 s; the quadratic expansion took over 15


def test_a_chain_deeper_than_the_limit_is_a_located_refusal(tmp_path):
    """A chain past MAX_EXPANSION_DEPTH is refused at the line that uses it, naming the
    macro where the limit was passed and where that is defined: never seconds of work."""
    from smemsim.frontends.cuda.preprocess import MAX_EXPANSION_DEPTH
    n = MAX_EXPANSION_DEPTH + 1
    f = tmp_path / "deep.cu"
    f.write_text("#define A0 1\n" + "".join(f"#define A{i} A{i - 1}\n" for i in range(1, n)) +
                 KERNEL.replace("1.0f;", f"A{n - 1};"))
    start = time.perf_counter()
    code, _, err = cli("analyze", str(f))
    assert time.perf_counter() - start < 10
    line = one_error(err)
    assert code == 2
    assert re.search(rf"deep\.cu:{n + 4}:\d+: macros expand inside one another more than "
                     rf"{MAX_EXPANSION_DEPTH:,} deep \(at A0, defined at \S*deep\.cu:1\)",
                     line), line


# ------------------------------------------------------------------ 2. exit 3 on bad input

CUDA_SOURCE = '''
extern "C" __global__ void k(float *o)
{
    __shared__ float s[32];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    o[threadIdx.x] = s[31 - threadIdx.x];
}
'''


def test_a_cupy_string_of_50001_terms_is_refused_at_its_line(tmp_path, monkeypatch):
    """Python's parser gives up on `src = "a" + "b" + ...` of 50,001 terms (RecursionError):
    one located error, exit 2, and the program is neither read nor run."""
    monkeypatch.chdir(tmp_path)
    terms = " + ".join(f'"x{i}"' for i in range(50_001))
    app = tmp_path / "app.py"
    app.write_text('import pathlib\npathlib.Path("RAN").touch()\nimport cupy as cp\n'
                   f'src = {terms}\nk = cp.RawKernel(src, "k")\nk((1,), (32,), (None,))\n')
    code, _, err = cli("analyze", str(app))
    line = one_error(err)
    assert code == 2, err
    assert re.search(r"app\.py:4: the Python file nests too deeply for Python's parser "
                     r"\(RecursionError\): smemsim neither reads nor runs it", line), line
    assert not (tmp_path / "RAN").exists()


def test_a_launch_size_of_1000_terms_is_a_question_not_a_recursion(tmp_path):
    """`N = 1 + 1 + ... + 1` (1,000 terms) parses, and reading it as a number recursed once
    per term (RecursionError: exit 3); past MAX_NUMBER_DEPTH it is a size computed at run
    time, a question at the launch."""
    app = tmp_path / "app.py"
    app.write_text(f'import cupy as cp\nsrc = r"""{CUDA_SOURCE}"""\n'
                   'k = cp.RawKernel(src, "k")\n'
                   f'N = {" + ".join(["1"] * 1000)}\nk((N,), (32,), (None,))\n')
    code, _, err = cli("analyze", str(app))
    assert code == 2, err
    # (the C++ reading: "computes its grid, block or shared memory at run time"; the PTX
    # path's: "its grid is (N,), which the program computes at run time")
    assert re.search(r"computes (its grid, block or shared memory )?at run time.*--launch-grid",
                     one_error(err)), err


def _sweep_document() -> dict:
    """What `smemsim sweep --json` writes (jsonout.sweep_json): one point drawn, one that
    failed."""
    drawn = {"params": {"n": 256}, "arch": "sm_90",
             "layouts": [{"array": "tile", "pad": 1, "swizzle": None},
                         {"array": "b", "pad": 0, "swizzle": [3, 4, 3]}],
             "requests": 4096, "wavefronts": 4096, "ideal": 4096, "excess": 0,
             "smem_per_block": 4224, "smem_blocks": 45, "registers": 32, "active_warps": 64,
             "occupancy": 1.0, "rank": 1, "pareto": True, "error": None}
    failed = dict(drawn, requests=0, wavefronts=0, ideal=0, excess=0, smem_blocks=None,
                  registers=None, active_warps=None, occupancy=None, rank=None,
                  pareto=False, error="block.x = 2048 is outside 1..1024")
    return {"schema": "smemsim/1", "exit_code": 0, "results": [
        {"kind": "sweep", "kernel": "transpose", "cached": 0, "points": [drawn, failed]}]}


def _set(path: str, value):
    """A change of the document at a dotted path (`results.0.points.0.excess`); the value
    _DROP removes the key."""
    def change(doc):
        *parents, last = path.split(".")
        node = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        key = int(last) if isinstance(node, list) else last
        if value is _DROP:
            del node[key]
        else:
            node[key] = value
        return doc
    return change


_DROP = object()
_P = "results.0.points.0"

# (name, the document's text or a change of the good one, what the error names)
SWEEP_CASES = [
    ("not JSON", "{", r"not a JSON file"),
    ("arrays 100,000 deep", "[" * 100_000 + "]" * 100_000, r"nested too deeply"),
    ("objects 100,000 deep", '{"a":' * 100_000 + "1" + "}" * 100_000, r"nested too deeply"),
    ("NaN", lambda text: text.replace('"occupancy": 1.0', '"occupancy": NaN'), r"NaN"),
    ("Infinity", lambda text: text.replace('"excess": 0', '"excess": -Infinity', 1),
     r"Infinity"),
    ("1e400", lambda text: text.replace('"occupancy": 1.0', '"occupancy": 1e400'), r"1e400"),
    ("a list", "[]", r"not the output of `smemsim sweep --json`"),
    ("no schema", _set("schema", _DROP), r"not the output of"),
    ("results nested", _set("results", [[{"kind": "sweep"}]]), r"not the output of"),
    ("kernel a number", _set("results.0.kernel", 5), r"results\[0\]\.kernel is 5"),
    ("no kernel", _set("results.0.kernel", _DROP), r"results\[0\]\.kernel is null"),
    ("cached negative", _set("results.0.cached", -1), r"results\[0\]\.cached is -1"),
    ("points an object", _set("results.0.points", {}), r"points is an object"),
    ("points nested", _set("results.0.points", [[[1]]]), r"points\[0\] is a list"),
    ("a point a string", _set(_P, "p"), r"points\[0\] is 'p'"),
    ("no error", _set(f"{_P}.error", _DROP), r"points\[0\] has no 'error'"),
    ("error a number", _set(f"{_P}.error", 3), r"points\[0\]\.error is 3"),
    ("no wavefronts", _set(f"{_P}.wavefronts", _DROP), r"has no 'wavefronts'"),
    ("wavefronts negative", _set(f"{_P}.wavefronts", -5), r"\.wavefronts is -5"),
    ("no excess", _set(f"{_P}.excess", _DROP), r"has no 'excess'"),
    ("excess a string", _set(f"{_P}.excess", "9"), r"\.excess is '9'"),
    ("excess a fraction", _set(f"{_P}.excess", 1.5), r"\.excess is 1\.5"),
    ("excess true", _set(f"{_P}.excess", True), r"\.excess is true"),
    ("excess nested lists", _set(f"{_P}.excess", [1, [2, [3]]]), r"\.excess is a list"),
    ("excess of 40 digits", _set(f"{_P}.excess", 10 ** 40 - 1),
     r"\.excess is an integer of 40 digits"),
    ("excess of 5,000 digits", lambda text: text.replace('"excess": 0', '"excess": ' +
                                                         "9" * 5000, 1), r"not a JSON file"),
    ("no occupancy", _set(f"{_P}.occupancy", _DROP), r"has no 'occupancy'"),
    ("occupancy 1.5", _set(f"{_P}.occupancy", 1.5), r"\.occupancy is 1\.5, not a number from "
                                                   r"0 to 1"),
    ("occupancy a string", _set(f"{_P}.occupancy", "1"), r"\.occupancy is '1'"),
    ("no params", _set(f"{_P}.params", _DROP), r"has no 'params'"),
    ("params a list", _set(f"{_P}.params", [1, 2]), r"\.params is a list"),
    ("a param a string", _set(f"{_P}.params", {"n": "x"}), r"\.params\.n is 'x'"),
    ("a param an object", _set(f"{_P}.params", {"n": {"m": 1}}), r"\.params\.n is an object"),
    ("a param of 31 digits", _set(f"{_P}.params", {"n": 10 ** 30}), r"\.params\.n is an "
                                                                   r"integer of 31 digits"),
    ("no pareto", _set(f"{_P}.pareto", _DROP), r"has no 'pareto'"),
    ("pareto 1", _set(f"{_P}.pareto", 1), r"\.pareto is 1, not true or false"),
    ("layouts an object", _set(f"{_P}.layouts", {}), r"\.layouts is an object"),
    ("a layout a string", _set(f"{_P}.layouts", ["x"]), r"\.layouts\[0\] is 'x'"),
    ("a layout without keys", _set(f"{_P}.layouts", [{}]), r"\.layouts\[0\] is an object, "
                                                           r"not an object of array"),
    ("a pad a string", _set(f"{_P}.layouts.0.pad", "1"), r"\.layouts\[0\]\.pad is '1'"),
    ("a swizzle of one", _set(f"{_P}.layouts.1.swizzle", [1]), r"\.swizzle is a list, not "
                                                               r"\[B, M, S\]"),
    ("a swizzle nested", _set(f"{_P}.layouts.1.swizzle", [[1], 2, 3]),
     r"\.swizzle\[0\] is a list"),
    ("rank 0", _set(f"{_P}.rank", 0), r"\.rank is 0"),
    ("registers a string", _set(f"{_P}.registers", "32"), r"\.registers is '32'"),
]


@pytest.mark.parametrize("name, bad, names", SWEEP_CASES, ids=[c[0] for c in SWEEP_CASES])
def test_a_malformed_sweep_result_is_exit_2_naming_the_field(tmp_path, name, bad, names):
    """Every field the report page reads of --sweep-result is checked, with its type and
    range: a malformed file was a traceback (exit 3: missing keys, 100,000 nested lists, a
    short swizzle) or made a page of nonsense (NaN, occupancy 1.5, a string excess)."""
    good = json.dumps(_sweep_document())
    if isinstance(bad, str):
        text = bad
    elif bad.__name__ == "change":
        text = json.dumps(bad(copy.deepcopy(json.loads(good))))
    else:
        text = bad(good)
    assert text != good
    f = tmp_path / "sweep.json"
    f.write_text(text)
    code, out, err = cli("report", TRANSPOSE_CU, "--no-check", "--no-fix", "--sweep-result",
                         str(f), "-o", str(tmp_path / "page.html"))
    line = one_error(err)
    assert code == 2 and out == "", err
    assert line.startswith(f"error: --sweep-result {f}: "), line
    assert re.search(names, line), line
    assert not (tmp_path / "page.html").exists()


def test_the_sweep_document_sweep_writes_passes_the_checks(tmp_path):
    from smemsim.cli.verbs.report import _sweep
    f = tmp_path / "sweep.json"
    f.write_text(json.dumps(_sweep_document()))
    assert _sweep(str(f)) == _sweep_document()["results"][0]


# ------------------------------------------------------------------ 3. shared memory

def test_a_10_gb_shared_memory_launch_exceeds_the_per_block_maximum(tmp_path):
    """`--launch-smem 10000000000` (or `<<<1, 32, 10000000000>>>`) is checked against the
    per-block maximum before a window is allocated for it (it was 'out of memory: the
    launch is too large to simulate here')."""
    from kernels_ir.launch import MAX_SMEM_PER_BLOCK
    from smemsim.engine.arch import ARCHS
    assert MAX_SMEM_PER_BLOCK == max(a.smem_per_block_optin for a in ARCHS.values())
    expected = (r"shared memory 10000004096 B per block \(static 4096 \+ dynamic "
                r"10000000000\) exceeds sm_90's 232448 B per block, the per-block maximum "
                r"of every architecture")
    for verb in ("analyze", "check"):
        code, _, err = cli(verb, TRANSPOSE_CU, "--launch-smem", "10000000000")
        line = one_error(err)
        assert code == 2 and re.search(r"transpose\.cu:\d+:\d+: " + expected, line), line
    f = tmp_path / "big.cu"
    f.write_text(KERNEL.replace("<<<1, 64>>>", "<<<1, 64, 10000000000>>>")
                 .replace("__shared__ float s[64];", "extern __shared__ float s[];"))
    code, _, err = cli("analyze", str(f))
    line = one_error(err)
    assert code == 2 and "shared memory 10000000000 B per block (static 0 + dynamic " \
                         "10000000000) exceeds sm_90's 232448 B per block" in line, line


# ------------------------------------------------------------------ 3b. slow bombs

def test_a_sum_nested_past_the_tree_limit_is_refused_before_it_is_walked(tmp_path):
    """`(1 + 1 + ... + threadIdx.x) % 32` of 100,000 terms nests 100,000 levels: refused
    right after the parse, at its line (the readers walked the tree ten times first: 10 s
    and the same refusal; 1,000,000 terms took 79 s)."""
    from smemsim.frontends.cuda.parse import MAX_TREE_DEPTH
    f = tmp_path / "terms.cu"
    f.write_text(KERNEL.replace("(threadIdx.x * 2) % 64",
                                "(" + "1 + " * 100_000 + "threadIdx.x) % 64"))
    code, _, err = cli("analyze", str(f))
    line = one_error(err)
    assert code == 2
    assert re.search(r"terms\.cu:6:\d+: the code here nests expressions or statements too "
                     rf"deeply to read \(more than {MAX_TREE_DEPTH:,} levels\)", line), line


def test_a_nest_within_the_tree_limit_is_still_read(tmp_path):
    """The limit is far above what kernels nest: 60 parentheses deep still analyzes."""
    f = tmp_path / "parens.cu"
    f.write_text(KERNEL.replace("(threadIdx.x * 2) % 64",
                                "(" * 60 + "threadIdx.x * 2" + ")" * 60 + " % 64"))
    code, _, err = cli("analyze", str(f))
    assert code == 0, err


LONG_LOOP = KERNEL.replace("    __syncthreads();\n", "    __syncthreads();\n    for (long long i = 0; "
                           "i < (1LL << 40); i++) s[i % 64] += 1.0f;\n")


def test_a_counted_loop_longer_than_the_interpreter_runs_is_refused_at_once(tmp_path):
    """A 2^40-trip loop whose iterations must be run (a load and store each, the address
    `i % 64` different each time) is refused at its line with its trip count: analyze
    failed to allocate 8 TiB, 10^8 trips took 105 s, `check` ran 78 s before stopping."""
    from kernels_ir.run_types import MAX_LOOP_ITERATIONS
    f = tmp_path / "long.cu"
    f.write_text(LONG_LOOP)
    code, _, err = cli("analyze", str(f))
    line = one_error(err)
    assert code == 2
    # (nvcc's build has no variable 'i': the loop is named by its line; it runs unrolled
    # by four)
    assert re.search(rf"long\.cu:6:\d+, .*the loop at line 6 runs (1,099,511,627,776|"
                     rf"274,877,906,944) iterations in one entry, more than the "
                     rf"{MAX_LOOP_ITERATIONS:,} the interpreter runs one by one", line), line


def test_check_of_that_loop_stops_after_the_loop_limit_with_its_race(tmp_path):
    """`check` runs the loop's first --loop-limit iterations (its closed form is known from
    then on), reports the race those iterations show, and the refusal."""
    f = tmp_path / "long.cu"
    f.write_text(LONG_LOOP)
    code, out, err = cli("check", str(f), "--loop-limit", "64")
    assert code == 1, err
    assert re.search(r"the loop at line 6 runs (1,099,511,627,776|274,877,906,944) "
                     r"iterations in one entry", out), out
    # (the variable by its name and byte: the build reads it through a view of its words)
    assert re.search(r"read-write race on s(_f32)?(\[\d+\])? \(byte \d+\)", out), out


def test_the_loop_limit_stops_at_its_maximum():
    """--loop-limit asks at most MAX_LOOP_LIMIT (32,768) of an endless loop: 4,194,304 (the
    old maximum) on a `while (j >= 0)` ran over 300 s."""
    from smemsim.launch.trace import MAX_LOOP_LIMIT
    assert MAX_LOOP_LIMIT == 32_768
    code, _, err = cli("analyze", TRANSPOSE_CU, "--loop-limit", "32769")
    assert code == 2 and "--loop-limit" in err and "32768" in err.replace(",", ""), err
    code, _, err = cli("analyze", TRANSPOSE_CU, "--loop-limit", "32768")
    assert code == 0, err


def test_ctrl_c_while_the_command_loads_is_one_line_and_130(monkeypatch, capsys):
    """Ctrl-C in the half second the command's modules load (before its handler exists)
    printed a KeyboardInterrupt traceback from whichever import it hit."""
    import sys
    from smemsim import console

    class Interrupting:
        def find_spec(self, name, path=None, target=None):
            if name == "smemsim.cli":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "smemsim.cli")
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    with pytest.raises(SystemExit) as exit_:
        console.main()
    assert exit_.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_importing_smemsim_loads_nothing_until_asked():
    """`import smemsim` (which the console script's module sits in) loads no numpy; the
    names it exports still resolve."""
    import subprocess
    import sys
    code = ("import sys, smemsim; heavy = 'numpy' in sys.modules; "
            "from smemsim import analyze, ARCHS; print(heavy, callable(analyze), 'sm_90' in ARCHS)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.stdout.split() == ["False", "True", "True"], done.stderr


# ------------------------------------------------------------------ 4. what runs

def _cupy_program(extra: str) -> str:
    return ('import pathlib\npathlib.Path("RAN").touch()\n' + extra +
            f'import cupy as cp\nsrc = r"""{CUDA_SOURCE}"""\nk = cp.RawKernel(src, "k")\n'
            "k((1,), (32,), (None,))\n")


@pytest.mark.parametrize("extra, kernels_file", [
    ("", False),
    ("if False:\n    import kernels_ir\n", False),
    ("def f():\n    from kernels_ir import KernelBuilder\n", False),
    ("try:\n    import kernels_ir\nexcept ImportError:\n    pass\n", False),
    ("# import kernels_ir\nNOTE = 'import kernels_ir'\n", False),
    ("if False:\n    KERNELS = {}\n", False),
    ("import kernels_ir\n", True),
    ("from kernels_ir.builder import KernelBuilder\n", True),
    ("import numpy, kernels_ir.expr as e\n", True),
    ("KERNELS = {}\n", True),
    ("KERNELS: dict = {}\n", True),
    ("from examples.transpose import KERNELS\n", True),
])
def test_a_python_file_is_run_only_if_it_is_a_kernels_file_by_its_top_level(
        tmp_path, extra, kernels_file):
    """The rule (docs/ci.md, "Which files smemsim runs"), from the syntax tree: a `.py` that
    compiles CUDA strings is read, never run, unless a statement of its module body itself
    imports kernels_ir or binds KERNELS; `import kernels_ir` under `if False:`, in a
    function, a `try`, a string or a comment made smemsim run a cupy program before."""
    from smemsim.frontends.loader import is_cuda
    app = tmp_path / "app.py"
    app.write_text(_cupy_program(extra))
    assert is_cuda(str(app)) is not kernels_file


def test_a_cupy_program_that_mentions_kernels_ir_is_read_not_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = tmp_path / "app.py"
    app.write_text(_cupy_program("if False:\n    import kernels_ir\n"))
    code, out, err = cli("analyze", str(app), "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["kernel"] == "k"
    assert not (tmp_path / "RAN").exists()  # read as CUDA: the program never ran


def test_the_rule_is_where_a_ci_author_reads_it():
    text = (ROOT / "docs" / "ci.md").read_text()
    section = text[text.index("## Which files smemsim runs"):]
    for words in ("A `.cu` or `.cuh` is only read", "compiles CUDA strings",
                  "imports `kernels_ir`", "binds `KERNELS`", "under `if False:`",
                  "smemsim imports it, which runs it"):
        assert words in " ".join(section.split()), words


def test_a_folder_or_fifo_given_as_the_file_is_named_for_what_it_is(tmp_path):
    """A folder or a FIFO named like a CUDA file exists: 'no such file' was wrong."""
    import os
    (tmp_path / "adir.cu").mkdir()
    os.mkfifo(tmp_path / "pipe.cu")
    for name, kind in (("adir.cu", "a folder"), ("pipe.cu", "a FIFO")):
        code, _, err = cli("analyze", str(tmp_path / name))
        assert code == 2 and one_error(err).endswith(
            f"{tmp_path / name} is {kind}, not a file smemsim reads"), err

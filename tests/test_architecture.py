"""The shape of the code: the import graph, and what a new statement kind meets in each layer.

The toy statements here follow docs/extending.md: they implement the statement protocol and
nothing else, so every layer that dispatches on the statement class must refuse them with a
located error, and every layer written against the protocol must handle them.
"""
import ast
import pathlib
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from kernels_ir import (
    Access, Expr, KernelBuilder, KernelError, Op, SourceLoc, Stmt, Var, f32, format_kernel,
    format_stmt, i32, map_statements, run, threadIdx, walk,
)
from kernels_ir.checks import check_kernel
from smemsim import analyze, warp_request
from smemsim.engine.banks import RequestError
from smemsim.launch.hazards import check
from smemsim.launch.races import control_flow_graph
from smemsim.launch.slicing import slice_kernel
from smemsim.launch.trace import substitute

ROOT = pathlib.Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------ the import graph

# lower number = lower layer; a module may import only its own layer and those below. The
# stages of smemsim are its packages: the IR; the tools, caches and display registry every
# stage uses; the bank engine; the whole-launch analyses and the frontends (which read
# kernels into the IR, and stand beside the analyses: neither needs the other's results
# but a frontend may ask an analysis's question, as fix's screen does); the searches and
# the hardware's counters; the GPU side; the command
LAYERS = {"kernels_ir": 0, "smemsim": 1, "smemsim.toolrun": 1, "smemsim.cache": 1,
          "smemsim.display": 1, "smemsim.engine": 2, "smemsim.launch": 3,
          "smemsim.frontends": 3, "smemsim.search": 4, "smemsim.hardware": 4,
          "gpu_backend": 5, "smemsim.cli": 6, "smemsim.__main__": 6, "smemsim.console": 6}


def _layer(module: str) -> int | None:
    for name in sorted(LAYERS, key=len, reverse=True):
        if module == name or module.startswith(name + "."):
            return LAYERS[name]
    return None


def _imports(path: pathlib.Path) -> list[tuple[str, int]]:
    """(imported module, line) for every import of a file, relative ones resolved."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if path.name == "__init__.py":
        package = package.rsplit(".", 1)[0] + ".__init__"
    out = []
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:-node.level]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            out.append((module, node.lineno))
            out += [(f"{module}.{a.name}", node.lineno) for a in node.names]
    return out


def _modules():
    for pkg in ("kernels_ir", "smemsim", "gpu_backend"):
        yield from sorted((ROOT / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_runs_up_the_layers(path):
    own = _layer(".".join(path.relative_to(ROOT).with_suffix("").parts))
    for module, line in _imports(path):
        target = _layer(module)
        assert target is None or target <= own, \
            f"{path.relative_to(ROOT)}:{line} imports {module} (layer {target} > {own})"


def test_notebook_drawings_are_registered_by_the_report_layer():
    """An analysis result's `_repr_html_` asks smemsim.display, which the report layer fills
    through the package's `smemsim.display` entry point: no analysis imports the command
    layer for a notebook's picture (the exception this test once allowed)."""
    from importlib.metadata import entry_points
    points = {p.name: p.value for p in entry_points(group="smemsim.display")}
    assert points == {"report": "smemsim.cli.notebook:register"}
    import tomllib
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert declared["entry-points"]["smemsim.display"] == points


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_command_knows_rich_and_json_and_only_gpu_backend_cuda(path):
    own = _layer(".".join(path.relative_to(ROOT).with_suffix("").parts))
    for module, line in _imports(path):
        top = module.split(".")[0]
        where = f"{path.relative_to(ROOT)}:{line} imports {module}"
        if top == "rich":
            assert own == LAYERS["smemsim.cli"], where
        if top == "json" and own < LAYERS["smemsim.search"]:
            raise AssertionError(where)  # analyses return dataclasses, not JSON
        if top == "cuda":
            assert own == LAYERS["gpu_backend"], where


def test_a_verb_loads_only_what_it_runs():
    """Start-up (#15): `analyze` of a kernels file imports neither the hazard check, the
    sweep, the CUDA importer, networkx, numba nor multiprocessing; `check` does load its
    hazard module. (What each costs: docs/performance.md.)"""
    import subprocess
    import sys
    code = ("import io, sys; from rich.console import Console; from smemsim.cli import run; "
            "assert run(sys.argv[1:], Console(file=io.StringIO())) == 0; "
            "print(' '.join(sorted(sys.modules)))")
    heavy = {"smemsim.launch.hazards", "smemsim.search.sweep", "smemsim.search.fix",
             "smemsim.frontends.cuda", "networkx", "numba", "multiprocessing", "concurrent.futures"}
    loaded = set(subprocess.run([sys.executable, "-c", code, "analyze", "transpose",
                                 "--kernel", "naive"], check=True, capture_output=True,
                                text=True, cwd=ROOT).stdout.split())
    assert "smemsim.launch.analysis" in loaded and not heavy & loaded, sorted(heavy & loaded)
    loaded = set(subprocess.run([sys.executable, "-c", code, "check", "transpose",
                                 "--kernel", "naive"], check=True, capture_output=True,
                                text=True, cwd=ROOT).stdout.split())
    assert "smemsim.launch.hazards" in loaded and "smemsim.frontends.cuda" not in loaded
    # fix of a kernels file: the patch machinery is there, the CUDA frontend is not
    loaded = set(subprocess.run([sys.executable, "-c", code, "fix", "transpose",
                                 "--kernel", "naive"], check=True, capture_output=True,
                                text=True, cwd=ROOT).stdout.split())
    assert "smemsim.cli.fixpatch" in loaded and "smemsim.frontends.cuda" not in loaded


# ------------------------------------------------------------------ a new statement kind

@dataclass(frozen=True, eq=False)
class Twice(Stmt):
    """A toy statement: `var = 2 * value` (declares var), known to no dispatch table."""
    var: Var
    value: Expr
    loc: SourceLoc
    EXPRS: ClassVar = ("value",)

    def declares(self) -> tuple:
        return (self.var,)


@dataclass(frozen=True, eq=False)
class Repeat(Stmt):
    """A toy statement with a body and control flow no layer knows."""
    body: tuple
    loc: SourceLoc
    BODIES: ClassVar = ("body",)


@dataclass(frozen=True, eq=False)
class Poke(Access):
    """A toy shared-memory access with an op no bank rule covers."""
    array: object
    index: tuple
    width: int
    loc: SourceLoc
    site: int
    EXPRS: ClassVar = ("index",)
    OP: ClassVar = "poke"
    WRITES: ClassVar = True


LOC = SourceLoc(__file__, 1)


def _kernel(extra):
    """A kernel whose shared address reads `t`, which a toy Twice statement declares;
    `extra(s)` makes one more toy statement to append."""
    k = KernelBuilder("toy")
    s = k.shared("s", f32, 64)
    var = Var("t", i32, "local")
    k._emit(Twice(var, threadIdx.x, LOC))   # a test shortcut for a builder method
    s[Expr(Op.VAR, i32, (), var) % 64] = 1.0
    if extra is not None:
        k._emit(extra(s))
    k.launch(1, 32)
    return k.build()


def test_protocol_layers_handle_a_new_statement():
    kernel = _kernel(None)
    toy = kernel.body[0]
    assert isinstance(toy, Twice) and list(walk(kernel.body))[0] is toy
    # scopes: the store reads `t`, which the toy declares; checks passed at build()
    check_kernel(kernel)
    # slicing follows the definition of `t` into the toy statement
    assert id(toy) in slice_kernel(kernel).statements
    # rewriting: identity when nothing changes, a new node when an expression does
    assert map_statements(kernel.body, lambda s: s)[0] is toy
    doubled = toy.rebuild(expr=lambda e: e * 2)
    assert isinstance(doubled, Twice) and doubled.var is toy.var
    assert substitute(kernel, {}).body[0] is toy  # the trace's rewriter walks it too


def test_dispatching_layers_refuse_a_new_statement_with_its_location():
    kernel = _kernel(None)
    expected = r"kernel 'toy', line .*test_architecture.py:1: {} does not support Twice"
    printer = r"line .*test_architecture.py:1: the printer does not support Twice"
    with pytest.raises(KernelError, match=printer):
        format_stmt(kernel.body[0])
    with pytest.raises(KernelError, match=printer):
        format_kernel(kernel)
    with pytest.raises(KernelError, match=expected.format("the interpreter")):
        run(kernel)
    with pytest.raises(KernelError, match=expected.format("the interpreter")):
        analyze(kernel)       # the toy is in the slice: the trace must execute it
    with pytest.raises(KernelError, match=expected.format("the interpreter")):
        check(kernel)
    from gpu_backend.codegen import generate
    with pytest.raises(KernelError, match=expected.format("the CUDA code generator")):
        generate(kernel)


def test_unknown_control_flow_is_refused_by_the_hazard_graph():
    kernel = _kernel(lambda s: Repeat((), LOC))
    with pytest.raises(KernelError, match="control-flow graph does not support Repeat"):
        control_flow_graph(kernel)


def test_an_unknown_access_kind_is_a_site_and_the_bank_engine_refuses_its_op():
    kernel = _kernel(lambda s: Poke(s, (threadIdx.x,), 1, LOC, 1))
    poke = kernel.sites()[-1]
    assert isinstance(poke, Poke) and poke.op == "poke" and poke.site == 1
    with pytest.raises(RequestError, match="poke"):
        warp_request(list(range(0, 128, 4)), 4, poke.op)


def test_a_non_statement_in_a_body_is_refused():
    k = KernelBuilder("bad")
    k._emit("x = 1")
    k.launch(1, 32)
    with pytest.raises(KernelError, match="is not an IR statement"):
        k.build()


# ------------------------------------------------------------------ parameters are a mapping

def test_params_are_a_mapping_and_seed_is_not_one():
    k = KernelBuilder("seeded")
    seed = k.param("seed")
    out = k.global_array("out", i32, 32, intent="out")
    out[threadIdx.x] = seed
    k.launch(1, 32)
    kernel = k.build()
    # a kernel parameter named like an option stays a parameter
    assert (run(kernel, {"seed": 32})["out"] == 32).all()
    with pytest.raises(KernelError, match="must be a mapping"):
        analyze(kernel, "sm_80")
    with pytest.raises(KernelError, match="parameter 'seed' has no value"):
        analyze(kernel, seed=32)  # `seed=` is the input data's seed, never a parameter
    assert analyze(kernel, {"seed": 7}, seed=3).params == {"seed": 7}


def test_cli_param_named_seed_reaches_the_kernel(tmp_path):
    import io
    from rich.console import Console
    from smemsim.cli import run as cli
    f = tmp_path / "k.py"
    f.write_text(
        "from kernels_ir import KernelBuilder, f32, threadIdx\n"
        "def make():\n"
        "    k = KernelBuilder('stride')\n"
        "    seed = k.param('seed')\n"
        "    s = k.shared('s', f32, 32 * 33)\n"
        "    s[threadIdx.x * seed] = 1.0\n"
        "    k.launch(1, 32)\n"
        "    k.defaults(seed=1)\n"
        "    return k.build()\n"
        "KERNELS = {'stride': make}\n")
    buf = io.StringIO()
    code = cli(["analyze", str(f), "--param", "seed=32", "--json"],
               Console(file=buf, width=200))
    import json
    (res,) = json.loads(buf.getvalue())["results"]
    assert code == 0 and res["params"] == {"seed": 32}
    assert res["sites"][0]["wavefronts"] == 32  # stride 32 words: one bank, 32 ways
    assert np.isclose(res["excess_ratio"], 31.0)


def test_the_wheel_lists_every_package_and_no_top_level_examples():
    """pyproject.toml lists the packages (the examples install as smemsim.examples, from
    examples/): every package of the source tree must be on the list, or the wheel would
    leave it out, and nothing may install as a top-level `examples`."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11's")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for pkg in ("kernels_ir", "smemsim", "gpu_backend")
             for p in (ROOT / pkg).rglob("__init__.py")}
    assert set(config["packages"]) == found | {"smemsim.examples"}
    assert config["package-dir"] == {"smemsim.examples": "examples"}

"""Issue #55: `--format gcc` of analyze and check, findings as compilers write diagnostics
(`FILE:LINE:COL: warning: ...`), which editors' problem matchers read: the same findings and
levels as --sarif."""
import io
import pathlib

from smemsim.cli import run
from smemsim.cli.mcp_server import _quiet

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE = str(ROOT / "examples" / "transpose.cu")


def lines(argv) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = run(argv, _quiet(out), _quiet(io.StringIO()))
    return code, out.getvalue().splitlines()


def test_analyze_writes_each_conflicted_site_as_a_warning_and_a_failed_gate_as_an_error(
        monkeypatch):
    monkeypatch.chdir(ROOT)   # (a place below the current folder is written relative to it)
    code, got = lines(["analyze", TRANSPOSE, "--format", "gcc"])
    assert code == 0
    # (the statement as the file writes it)
    assert got == ["examples/transpose.cu:20:22: warning: transpose: site 1, `dst[y * n + x] "
                   "= tile[threadIdx.x][threadIdx.y];`: 63,488 excess wavefronts over 2,048 "
                   "requests (32.00 wavefronts per request, excess 31.00 x ideal) "
                   "[smemsim:bank-conflict]"]
    code, got = lines(["analyze", TRANSPOSE, "--format", "gcc", "--fail-on-excess", "0.5"])
    assert code == 1
    assert [x for x in got if x.startswith("examples/transpose.cu:20:22: error: ")]
    # the padded tile has none
    assert lines(["analyze", TRANSPOSE, "--format", "gcc", "-D", "PAD=1"]) == (0, [])


def test_check_writes_a_race_as_an_error_at_its_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "race.cu").write_text(
        "__global__ void k(float *o)\n{\n    __shared__ float s[64];\n"
        "    s[threadIdx.x] = 1;\n    o[threadIdx.x] = s[63 - threadIdx.x];\n}\n"
        "void go(float *o) { k<<<1, 64>>>(o); }\n")
    code, got = lines(["check", "race.cu", "--format", "gcc"])
    assert code == 1
    (line,) = got
    assert line.startswith("race.cu:5:") and ": error: read-write race on s[" in line and \
        line.endswith("[smemsim:shared-race]")


def apply_sarif_fix(text: str, fix: dict) -> str:
    """A SARIF fix's replacements applied to `text` (as a SARIF viewer applies them)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1
    (change,) = fix["artifactChanges"]
    spans = []
    for r in change["replacements"]:
        d = r["deletedRegion"]
        begin = d["charOffset"] if "charOffset" in d else offset(d["startLine"], d["startColumn"])
        end = begin + d["charLength"] if "charOffset" in d else \
            offset(d["endLine"], d["endColumn"])
        spans.append((begin, end, r["insertedContent"]["text"]))
    for begin, end, new in sorted(spans, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


def test_fix_writes_sarif_whose_fix_applied_makes_the_kernel_conflict_free(tmp_path,
                                                                            monkeypatch):
    """`fix --sarif`: the conflicted site as a bank-conflict result carrying fix's checked
    patch as a SARIF fix; the fix applied to the file gives a kernel without excess."""
    import json
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.cu").write_text((ROOT / "examples" / "transpose.cu").read_text())
    code, _ = lines(["fix", "t.cu", "--sarif", "fix.sarif"])
    assert code == 0
    (result,) = json.loads((tmp_path / "fix.sarif").read_text())["runs"][0]["results"]
    assert result["ruleId"] == "bank-conflict" and \
        result["locations"][0]["physicalLocation"]["region"]["startLine"] == 20
    (fix,) = result["fixes"]
    assert fix["artifactChanges"][0]["artifactLocation"]["uri"] == "t.cu"
    (tmp_path / "fixed.cu").write_text(apply_sarif_fix((tmp_path / "t.cu").read_text(), fix))
    code, got = lines(["analyze", "fixed.cu", "--format", "gcc", "--fail-on-excess", "0"])
    assert (code, got) == (0, [])

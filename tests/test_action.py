"""Issue #55: smemsim's GitHub Action (action.yml): its gate script run in a scratch
repository as the Action runs it (analyze and check of every matching tracked file, one
merged SARIF log), and its problem matcher reading the diagnostics into annotations."""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
RACE = ("__global__ void k(float *o)\n{\n    __shared__ float s[64];\n    s[threadIdx.x] = 1;\n"
        "    o[threadIdx.x] = s[63 - threadIdx.x];\n}\nvoid go(float *o) { k<<<1, 64>>>(o); }\n")


def test_the_action_is_a_composite_that_runs_the_gate_script_and_uploads_one_log():
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    gate = next(s for s in steps if s.get("name") == "gates")
    assert 'bash "$GITHUB_ACTION_PATH/action/gate.sh"' in gate["run"]
    assert "action/problem-matcher.json" in gate["run"]
    # every input reaches the script
    used = " ".join(str(v) for v in gate["env"].values())
    assert all(f"inputs.{name}" in used for name in action["inputs"]
               if name not in ("upload-sarif", "python-version"))
    upload = next(s for s in steps if "upload-sarif" in s.get("uses", ""))
    assert upload["with"]["sarif_file"] == gate["env"]["SARIF_DIR"]


@pytest.mark.skipif(shutil.which("smemsim") is None or shutil.which("git") is None,
                    reason="the smemsim command (pip install -e .) and git are needed")
def test_the_gate_script_in_a_scratch_repository(tmp_path):
    repo = tmp_path / "scratch"
    (repo / "sub").mkdir(parents=True)
    (repo / "a.cu").write_text((ROOT / "examples" / "transpose.cu").read_text())
    (repo / "sub" / "race file.cu").write_text(RACE)
    (repo / "untracked.cu").write_text(RACE)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "a.cu", "sub"], cwd=repo, check=True)
    env = dict(os.environ, SARIF_DIR=str(tmp_path / "sarif"))
    done = subprocess.run(["bash", str(ROOT / "action" / "gate.sh")], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert [x for x in lines if x.startswith("a.cu:20:22: error: transpose: site 1")]
    assert [x for x in lines if x.startswith("sub/race file.cu:5:22: error: read-write race")]
    assert not [x for x in lines if "untracked" in x]
    assert sorted(os.listdir(tmp_path / "sarif")) == ["smemsim.sarif"]
    log = json.loads((tmp_path / "sarif" / "smemsim.sarif").read_text())
    (run,) = log["runs"]
    assert sorted(r["ruleId"] for r in run["results"]) == ["bank-conflict", "shared-race"]
    # the problem matcher reads each diagnostic line into an annotation
    (matcher,) = json.loads((ROOT / "action" / "problem-matcher.json").read_text())[
        "problemMatcher"]
    pattern = re.compile(matcher["pattern"][0]["regexp"])
    found = [pattern.match(x) for x in lines if "[smemsim:" in x]
    assert [(m.group(1), m.group(2), m.group(3), m.group(4), m.group(6)) for m in found] == [
        ("a.cu", "20", "22", "error", "bank-conflict"),
        ("sub/race file.cu", "5", "22", "error", "shared-race")]
    # the padded tile and a barrier: every gate passes
    (repo / "a.cu").write_text((repo / "a.cu").read_text().replace("#define PAD 0",
                                                                    "#define PAD 1"))
    (repo / "sub" / "race file.cu").write_text(RACE.replace(
        "    o[threadIdx.x]", "    __syncthreads();\n    o[threadIdx.x]"))
    done = subprocess.run(["bash", str(ROOT / "action" / "gate.sh")], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

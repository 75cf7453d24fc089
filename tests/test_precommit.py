"""Issue #55: the pre-commit hook (.pre-commit-hooks.yaml, smemsim-pre-commit) run by
pre-commit itself in a scratch repository: a commit of the transposed tile fails with the
conflicted line as a compiler diagnostic; the padded one passes."""
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

pytest.importorskip("pre_commit", reason="pre-commit is not installed (the test extra has it)")


def hook_config() -> str:
    """The manifest's hook as a local one: the same entry, files and settings, run from the
    smemsim this test runs (pre-commit would otherwise build it a virtual environment)."""
    import yaml
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    entry = shutil.which(hook["entry"]) or \
        f"{sys.executable} -m smemsim.cli.hook"   # (installed as a console script)
    local = dict(hook, language="system", entry=entry)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]})


def test_pre_commit_runs_the_hook_on_the_changed_cuda_files(tmp_path):
    repo = tmp_path / "scratch"
    repo.mkdir()
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True,  # noqa: E731
                                    capture_output=True, text=True)
    git("init", "-q")
    (repo / "transpose.cu").write_text((ROOT / "examples" / "transpose.cu").read_text())
    (repo / "notes.txt").write_text("not CUDA\n")
    (repo / ".pre-commit-config.yaml").write_text(hook_config())
    git("add", ".")
    run = lambda: subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"],  # noqa
                                 cwd=repo, capture_output=True, text=True)
    failed = run()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "transpose.cu:20:22: error: transpose: site 1" in failed.stdout
    assert "notes.txt" not in failed.stdout
    text = (repo / "transpose.cu").read_text().replace("#define PAD 0", "#define PAD 1")
    (repo / "transpose.cu").write_text(text)
    git("add", ".")
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr

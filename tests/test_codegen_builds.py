"""Issue #52: `smemsim codegen EXAMPLE > k.cu && nvcc -arch=sm_90a -c k.cu` builds, for every
example (one translation unit: each helper and type once, however many kernels)."""
import pathlib
import subprocess

import pytest

from tests.test_cli import cli_streams

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the kernels files (gf256.py is a helper the Reed-Solomon examples import)
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if "KERNELS" in p.read_text())




@pytest.mark.toolkit
@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_examples_codegen_builds_with_nvcc(example, nvcc, tmp_path):
    code, out, err = cli_streams("codegen", str(example))
    assert code == 0, err
    source = tmp_path / "k.cu"
    source.write_text(out)
    built = subprocess.run([nvcc, "-arch=sm_90a", "-c", str(source), "-o",
                            str(tmp_path / "k.o")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]

"""Shared test fixtures."""
import json
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the examples/ folder is importable as a package in tests
# the tests name the checkout's files as a user at its root does (`examples/transpose.cu`),
# wherever pytest was started (it resolves its own arguments from where it was started)
os.chdir(ROOT)

DATA = pathlib.Path(__file__).resolve().parent / "data"

# the corpora are other projects' files, read as data: their own tests are not ours to run
collect_ignore_glob = ["corpus/*", "corpus_ptx/*"]


@pytest.fixture(scope="session")
def calibration():
    """The 74 warp requests measured on an H100 (copied from shared/calibration)."""
    return json.loads((DATA / "sm90_patterns.json").read_text())


def require_nvrtc():
    """Skip (with the reason) unless cuda-python's NVRTC and nvdisasm/cuobjdump are here."""
    try:
        import cuda.core  # noqa: F401
        from gpu_backend.compile import find_tool
        find_tool("nvdisasm")
        find_tool("cuobjdump")
    except Exception as err:  # no cuda-python, or a tool missing
        pytest.skip(f"NVRTC compilation needs cuda-python and the nvdisasm/cuobjdump tools "
                    f"(pip install 'smemsim[gpu]'): {err}")


@pytest.fixture(scope="session")
def nvcc():
    """nvcc, for the tests that build with it (skipped, with the reason, without it)."""
    from kernels_ir import KernelError
    from smemsim.frontends.ptx.build import find_nvcc
    try:
        return find_nvcc()
    except KernelError as err:
        pytest.skip(str(err))

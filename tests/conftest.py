"""Shared test fixtures."""
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the examples/ folder is importable as a package in tests

DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def calibration():
    """The 74 warp requests measured on an H100 (copied from shared/calibration)."""
    return json.loads((DATA / "sm90_patterns.json").read_text())

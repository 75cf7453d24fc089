"""kernels_ir.pysource: every example kernel written back as a kernels file builds the
same kernel again (what `smemsim import -o` relies on)."""
from __future__ import annotations

import importlib.util
import re

import pytest

from kernels_ir import format_kernel
from kernels_ir.pysource import kernels_file, safe_comment
from smemsim.frontends.loader import load_kernels


def _examples():
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent / "examples"
    out = []
    for f in sorted(root.glob("*.py")):
        if f.stem in ("__init__", "gf256", "rs_encoder"):
            continue  # helpers, no KERNELS
        for key in load_kernels(str(f)):
            out.append((str(f), key))
    return out


@pytest.mark.parametrize("path, key", _examples())
def test_an_example_kernel_written_back_builds_the_same_kernel(tmp_path, path, key):
    kernel = load_kernels(path)[key]()
    written = tmp_path / "written.py"
    written.write_text(kernels_file({key: kernel}, str(tmp_path)))
    spec = importlib.util.spec_from_file_location("written_kernels", written)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    again = module.KERNELS[key]()
    # the same statements, sites, types, names, launch and defaults (lines: the new file's)
    strip = lambda k: re.sub(r", line \d+", "", format_kernel(k))  # noqa: E731
    assert strip(again) == strip(kernel)
    assert again.defaults == kernel.defaults


def test_text_in_comments_cannot_end_the_comment():
    assert safe_comment("a\nb\rc\u2028d") == "a\\nb\\rc\\u2028d"

"""tools/sweep_sources.py: every kernel of a source tree read as a user would (nvcc's build),
each ending ok, as a question, refused, or its file unread."""
from __future__ import annotations

import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA importer needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from tools.sweep_sources import sweep  # noqa: E402

KERNEL = """
__global__ void {name}(float *out{param}) {{
    __shared__ float s[32];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    {body}
    out[threadIdx.x] = s[31 - threadIdx.x];
}}
"""


def test_each_kernel_ends_ok_as_a_question_refused_or_unread(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "ok.cu").write_text(KERNEL.format(name="fine", param="", body="") +
                                         "int main() { float *o; cudaMalloc(&o, 128);"
                                         " fine<<<1, 32>>>(o); }\n")
    (tmp_path / "a" / "asks.cu").write_text(KERNEL.format(name="sized", param=", int n",
                                                          body="if (n < 0) return;"))
    (tmp_path / "a" / "jumps.cu").write_text(KERNEL.format(name="jumps", param="",
                                                           body="goto end; end:;") +
                                            "void h(float *o) { jumps<<<1, 32>>>(o); }\n")
    # a launch whose block the kernel's shared array cannot serve: refused at its access
    (tmp_path / "a" / "wide.cu").write_text(KERNEL.format(name="wide", param="", body="") +
                                           "void h(float *o) { wide<<<1, 64>>>(o); }\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "lost.cu").write_text('#include "nowhere.h"\n' +
                                            KERNEL.format(name="lost", param="", body=""))
    ends = {(r["file"], r["kernel"]): r["end"] for r in sweep(tmp_path, [])}
    # (the goto is nvcc's to read: a branch of the PTX)
    assert ends == {("a/asks.cu", "sized"): "question", ("a/jumps.cu", "jumps"): "ok",
                    ("a/ok.cu", "fine"): "ok", ("a/wide.cu", "wide"): "refused",
                    ("b/lost.cu", None): "unread"}

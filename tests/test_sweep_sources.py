"""tools/sweep_sources.py: every kernel of a source tree imported as a user would, each
ending ok, as a question, refused, or its file unread."""
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
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "lost.cu").write_text('#include "nowhere.h"\n' +
                                            KERNEL.format(name="lost", param="", body=""))
    ends = {(r["file"], r["kernel"]): r["end"] for r in sweep(tmp_path, [])}
    assert ends == {("a/asks.cu", "sized"): "question", ("a/jumps.cu", "jumps"): "refused",
                    ("a/ok.cu", "fine"): "ok", ("b/lost.cu", None): "unread"}

"""Issue #51: no name of the user's reaches a shell, no output replaces an input or a file
smemsim did not write, writes are whole, control characters are shown and not sent, hints
are whole and shell-quoted wherever the checkout stands."""
import io
import os
import pathlib
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest

from smemsim.cli import _Console, run
from smemsim.frontends.cuda.patch import diff_name
from tests.test_cli import cli, cli_streams
from tests.test_original_build import nvcc  # noqa: F401 (the fixture: nvcc or a skip)

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE_CU = ROOT / "examples" / "transpose.cu"
CONFLICTED = ["-p", "n=64"]


# ------------------------------------------------------------------ names and nvcc's shell

@pytest.mark.parametrize("verb", [["analyze", "--as-compiled"], ["analyze", "--regs", "compile"],
                                  ["fix"]])
def test_a_file_or_folder_named_with_backticks_runs_nothing(nvcc, tmp_path, verb, monkeypatch):
    """nvcc runs its steps through sh and does not escape backticks or $(...): the name of
    the file and of the folder above it reach nvcc only as private copies' fixed names."""
    folder = tmp_path / "a`touch MARK_DIR`$(touch MARK_SUB)"
    folder.mkdir()
    source = folder / "t`touch MARK_FILE`.cu"
    shutil.copy(TRANSPOSE_CU, source)
    (folder / "tile.h").write_text("#define TILE_FROM_HEADER 32\n")
    text = source.read_text().replace("#define TILE 32", '#include "tile.h"\n'
                                      "#define TILE TILE_FROM_HEADER")
    source.write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    code, out = cli(*verb, str(source))
    assert code == 0, out
    assert not list(tmp_path.rglob("MARK_*")) and not list(pathlib.Path.cwd().glob("MARK_*"))
    # the build was the user's own file, its quoted #include found beside it
    assert "as nvcc builds it" in out or "registers" in out or \
        "the PTX frontend counts nvcc's build of the file already" in out


def test_flags_that_nvccs_shell_would_read_are_refused(nvcc, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SMEMSIM_CACHE", "")
    # the -D macros reach nvcc as a header's #define lines, never its command line: built
    # (V is unused; --regs compile reads the same build's registers), nothing run; a flag
    # still goes on the command line, and is refused
    for flag in (["-D", "V=1$(touch MARK)"], ["-D", "V=`touch MARK`"]):
        code, out = cli("analyze", "--regs", "compile", str(TRANSPOSE_CU), *flag)
        assert code == 0, out
    code, out = cli("analyze", str(TRANSPOSE_CU), "--nvcc-flag=-DV=\\\"x")
    assert code == 2 and "nvcc's shell would interpret" in out, out
    assert not list(tmp_path.glob("MARK*"))


def test_a_staged_build_names_the_users_lines(nvcc, tmp_path, monkeypatch):
    """The PTX and SASS of a staged build (a private copy under a safe name) are read back
    at the user's file and lines."""
    from smemsim import analyze
    from tests.built import import_kernels
    monkeypatch.setenv("SMEMSIM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "t x.cu"
    shutil.copy(TRANSPOSE_CU, source)
    kernel = import_kernels(str(source))["transpose"]()
    assert {(os.path.basename(s.loc.file), s.loc.line) for s in analyze(kernel).sites} == \
        {("t x.cu", 16), ("t x.cu", 20)}


# ------------------------------------------------------------------ outputs

@pytest.mark.parametrize("option", [["--sarif"], ["--csv"], ["--patch"]])
def test_an_output_never_replaces_the_input(tmp_path, option):
    source = tmp_path / "t.cu"
    shutil.copy(TRANSPOSE_CU, source)
    before = source.read_bytes()
    verb = {"--sarif": "analyze", "--csv": "sweep", "--patch": "fix"}[option[0]]
    extra = ["-p", "n=32,64"] if verb == "sweep" else []
    code, out = cli(verb, str(source), *extra, *option, str(source), "--force")
    assert code == 2 and "source or data file" in out, out
    assert source.read_bytes() == before


def test_an_existing_file_smemsim_did_not_write_needs_force(tmp_path):
    out_file = tmp_path / "mine.sarif"
    out_file.write_text("my notes\n")
    code, out = cli("analyze", str(TRANSPOSE_CU), "--sarif", str(out_file))
    assert code == 2 and "did not write it" in out and out_file.read_text() == "my notes\n"
    code, out = cli("analyze", str(TRANSPOSE_CU), "--sarif", str(out_file), "--force")
    assert code == 0 and '"name": "smemsim"' in out_file.read_text()
    code, out = cli("analyze", str(TRANSPOSE_CU), "--sarif", str(out_file))  # ours now
    assert code == 0, out


def test_outputs_refuse_links_fifos_and_folders_at_once(tmp_path):
    target = tmp_path / "target.patch"
    target.write_text("keep\n")
    link = tmp_path / "link.patch"
    link.symlink_to(target)
    fifo = tmp_path / "pipe.sarif"
    os.mkfifo(fifo)
    started = time.monotonic()
    code, out = cli("fix", str(TRANSPOSE_CU), "--patch", str(link))
    assert code == 2 and "symbolic link" in out and target.read_text() == "keep\n"
    code, out = cli("analyze", str(TRANSPOSE_CU), "--sarif", str(fifo))
    assert code == 2 and "FIFO" in out
    code, out = cli("report", str(TRANSPOSE_CU), "-o", str(fifo), "--no-check")
    assert code == 2 and "FIFO" in out
    code, out = cli("sweep", str(TRANSPOSE_CU), "-p", "n=32,64", "--csv", str(tmp_path))
    assert code == 2 and "Is a directory" in out
    assert time.monotonic() - started < 60   # no write waited on the FIFO


def test_import_never_replaces_an_edited_kernels_file(tmp_path):
    out_file = tmp_path / "k.py"
    code, out = cli("import", str(TRANSPOSE_CU), "-o", str(out_file))
    assert code == 0, out
    code, out = cli("import", str(TRANSPOSE_CU), "-o", str(out_file))  # unedited: replaced
    assert code == 0, out
    out_file.write_text(out_file.read_text().replace("(edit freely)", "(edited)"))
    code, out = cli("import", str(TRANSPOSE_CU), "-o", str(out_file))
    assert code == 2 and "did not write it (or it was edited since)" in out
    assert "(edited)" in out_file.read_text()


def test_a_failed_write_leaves_the_old_file_whole(tmp_path, monkeypatch):
    from smemsim.cli import outputs
    target = tmp_path / "page.patch"
    target.write_text("old\n")

    def no_room(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", no_room)
    with pytest.raises(Exception, match="No space left"):
        outputs.write(str(target), "new text\n", "--patch")
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == \
        ["page.patch"]


def test_a_patch_header_quotes_a_newline_in_the_name():
    assert diff_name("a/x\ny.cu") == '"a/x\\ny.cu"' and diff_name("a/ok.cu") == "a/ok.cu"


# ------------------------------------------------------------------ what reaches the terminal

def test_control_characters_of_user_text_are_shown_not_sent(tmp_path):
    name = tmp_path / "x\x1b[2Jy.cu"
    shutil.copy(TRANSPOSE_CU, name)
    out, err = io.StringIO(), io.StringIO()
    code = run(["analyze", str(name)], _Console(file=out, width=100, color_system=None),
               _Console(file=err, width=100, color_system=None))
    assert code == 0 and "\x1b" not in out.getvalue() and "x\\x1b[2Jy.cu" in out.getvalue()


def test_a_file_after_double_dash_may_begin_with_a_dash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(TRANSPOSE_CU, tmp_path / "-t.cu")
    code, out = cli("analyze", "--", "-t.cu")
    assert code == 0 and "transpose: grid (8, 8, 1)" in out


def test_the_explain_hint_is_whole_and_shell_quoted_at_80_columns(tmp_path):
    """From a checkout deep in the file system, at a narrow terminal, the hint is one line
    a user can paste: its words are the command's."""
    deep = tmp_path.joinpath(*["a_rather_long_folder_name"] * 6, "k<1024> dir")
    deep.mkdir(parents=True)
    shutil.copy(TRANSPOSE_CU, deep / "t.cu")
    code, out, _ = cli_streams("analyze", str(deep / "t.cu"), width=80)
    hint = next(line for line in out.splitlines() if "smemsim explain" in line).strip()
    assert shlex.split(hint) == ["smemsim", "explain", str(deep / "t.cu"), "--kernel",
                                 "transpose", "1"]


def test_the_explain_hint_repeats_what_shaped_the_kernel(tmp_path):
    """The hint explains the launch that was analyzed: the parameters, macros and launch
    given are in it (without them `explain` read the file's own launch, another kernel)."""
    shutil.copy(TRANSPOSE_CU, tmp_path / "t.cu")
    code, out, _ = cli_streams("analyze", str(tmp_path / "t.cu"), "-p", "n=512", "-D",
                               "UNUSED=1", "--loop-limit", "64", width=80)
    hint = next(line for line in out.splitlines() if "smemsim explain" in line).strip()
    words = shlex.split(hint)
    assert words[:5] == ["smemsim", "explain", str(tmp_path / "t.cu"), "--kernel",
                         "transpose"]
    assert words[5:] == ["-p", "n=512", "-D", "UNUSED=1", "--loop-limit", "64", "1"], words
    code, out, _ = cli_streams(*words[1:], width=200)   # explain takes every word of it
    assert code == 0 and "transpose site 1" in out, out


def test_sigterm_removes_the_private_copies(nvcc, tmp_path):
    """SIGTERM during an nvcc build ends the command as Ctrl-C does: 143, and the private
    folder of copies is gone."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), SMEMSIM_CACHE="")
    proc = subprocess.Popen([sys.executable, "-m", "smemsim", "analyze", "--as-compiled",
                             str(TRANSPOSE_CU)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(tmp.glob("smemsim-*")):
        time.sleep(0.02)
    assert list(tmp.glob("smemsim-*")), "the build never staged its copy"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "terminated" in err
    assert not list(tmp.glob("smemsim-*"))

#!/usr/bin/env python3
"""Trust campaign (issue #51): bad inputs and attacks against the `smemsim` command.

A self-contained script (the standard library and the installed `smemsim` command, nothing
else) that builds several hundred cases in a private temporary folder, runs each as a
subprocess of `smemsim ...` and judges it automatically. The classes of case:

  paths     .cu files and folders named with backticks, $(...), ;, |, quotes, spaces,
            newlines, a leading '-', unicode, ESC sequences, 250 characters; symlink loops,
            missing files, folders, FIFOs and devices given as FILE; through every verb
  outputs   every writing option (-o, --patch, --sarif, --csv, --svg) pointed at an input,
            a header, a --host-file, a --data file, a link, a FIFO, a folder, /dev/full, an
            unrelated file (with and without --force), a missing folder; a full disk
            (simulated with RLIMIT_FSIZE: the old file must stay whole)
  signals   SIGINT/SIGTERM at several moments into sweep, report, analyze/fix --as-compiled
            (run one at a time, after the others): exit 130/143, no orphans, no temporary
            copies; an interrupted sweep says how many points it kept and a rerun reuses them
  caches    FIFOs, links, truncated/edited/pickled entries planted in the sweep, nvcc and
            NVRTC caches; --sweep-result files malformed in many ways
  bombs     chained and recursive macros, 10,000 nested parentheses, 100,000-term sums,
            huge arrays and launches, include loops, devices as includes, a 50,001-term
            Python sum
  py        cupy/pycuda-style .py files that try to run code (must be read, never run,
            unless their module body imports kernels_ir); modules planted beside the input
  launches  bad --launch-grid/--launch-block/--launch-smem/-p/... values, -D and
            --nvcc-flag with shell characters, unknown options, `--` handling

A case is MISHANDLED when: it exits 3; stderr holds a Python traceback; it hangs (timeout);
it grows past the memory limit; a marker file that an injection would create exists; a file
that existed before the run changed (an input replaced) unless the case allows it; a
temporary or partial file is left (in the case folder, $TMPDIR or the cache); a process of
its process group is still alive after it ended (an orphan); an exit 2 whose stderr is not
exactly one line starting with "error:" (lines starting with "note:"/"warning:" allowed);
raw control characters the case put in a name reach stdout/stderr; an expectation of the
case fails (a write that must be refused was not, a valid command failed, a hand-edited
cache entry changed the result, an interrupted sweep's points were not reused, a patch
printed by `fix` does not apply).

Usage:
  python3 tools/trust_campaign.py [--jobs 2] [--only CLASS[,CLASS]] [--out FILE.json]
                                  [--limit N] [--match TEXT] [--timeout S] [--list] [--clean]
  python3 tools/trust_campaign.py --redo /tmp/trust_campaign.json   (only what was mishandled)

The whole campaign takes about 40 minutes on 2 cores with --jobs 2 (the signal cases run
one at a time at the end). Other processes on the machine may make the timing-dependent
signal cases land at other moments; interrupt races are intermittent by nature.

Each case runs with cwd, HOME, TMPDIR and SMEMSIM_CACHE in its own folder under the
campaign folder (printed at the start and kept unless --clean, so that every reproducer
printed at the end can be run as is). Runs as root do not test permissions (chmod 000 does
not stop root); such cases are marked with a note.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import hashlib
import json
import os
import pickle
import re
import shlex
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MEM_LIMIT = 6 * 2 ** 30          # a case's process group above this is killed (a blow-up)
SLOW = 15.0                      # seconds: a case slower than this gets a note
GRACE = 2.0                      # seconds an ended case's children get before they are orphans
CLASSES = ("paths", "outputs", "signals", "caches", "bombs", "py", "launches")

# the kernel every case starts from (examples/transpose.cu; this copy if it is missing)
FALLBACK_KERNEL = r"""// The classic 32 x 32-tile shared-memory transpose.
#include <cuda_runtime.h>

#define TILE 32
#ifndef PAD
#define PAD 0
#endif

__global__ void transpose(const float *src, float *dst, int n)
{
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = src[y * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    dst[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

void transpose_on_gpu(const float *src, float *dst)
{
    const int n = 256;
    dim3 grid(n / TILE, n / TILE), block(TILE, TILE);
    transpose<<<grid, block>>>(src, dst, n);
}
"""

# the same kernel with its constants in two headers (one with a suffix no policy knows)
HEADER_KERNEL = FALLBACK_KERNEL.replace(
    "// The classic 32 x 32-tile shared-memory transpose.\n", "").replace(
    "#define TILE 32\n#ifndef PAD\n#define PAD 0\n#endif\n",
    '#include "tile.h"\n#include "pad.inc"\n')
HOST_CODE = ("// the host side of the program\n"
             "void run(const float *a, float *b)\n{\n"
             "    transpose<<<dim3(4, 4), dim3(32, 32)>>>(a, b, 128);\n}\n")

# a one-kernel CUDA body used by the bombs and the .py files: KSIZE, KINDEX, KLAUNCH replaced
SMALL_KERNEL = r"""__global__ void k(float *a)
{
    __shared__ float s[KSIZE];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[KINDEX];
}

void host(float *a)
{
    k<<<KLAUNCH>>>(a);
}
"""


def small_kernel(size="32", index="(threadIdx.x * 2) % 32", launch="1, 32", before=""):
    return before + SMALL_KERNEL.replace("KSIZE", size).replace("KINDEX", index).replace(
        "KLAUNCH", launch)


def base_kernel() -> str:
    f = REPO / "examples" / "transpose.cu"
    try:
        return f.read_text()
    except OSError:
        return FALLBACK_KERNEL


# ----------------------------------------------------------------------------- the cases

@dataclasses.dataclass
class Case:
    cid: str
    cls: str
    name: str
    dir: Path
    argv: list = dataclasses.field(default_factory=list)   # after `smemsim`
    timeout: float = 60.0
    expect: str = "any"          # any | refuse (exit 2, nothing written) | ok (exit 0 or 1)
    outputs: tuple = ()          # paths (relative to work) a run may create
    may_change: tuple = ()       # existing paths (relative to work) a run may replace
    control: str = ""            # control characters the case put in names or arguments
    sig: tuple | None = None     # (signal, seconds after the start, "pid" | "group")
    may_run: bool = False        # a kernels file: its marker is documented behaviour
    pre: Callable | None = None  # run in the worker before the case (builds caches, ...)
    post: Callable | None = None  # extra checks: (case, result) -> [reasons]
    serial: bool = False         # run alone, after the others (timing-sensitive)
    prefix: tuple = ()           # a command before smemsim (prlimit ...)
    env: dict = dataclasses.field(default_factory=dict)
    setup: str = ""              # how the case's files were made (for the reproducer)
    note: str = ""

    @property
    def work(self) -> Path:
        return self.dir / "work"

    @property
    def home(self) -> Path:
        return self.dir / "home"

    @property
    def tmp(self) -> Path:
        return self.dir / "tmp"

    @property
    def cache(self) -> Path:
        return self.dir / "cache"

    @property
    def token(self) -> str:
        """The marker file an injection of this case creates (in $HOME: `cd;touch TOKEN`)."""
        return f"MARK_{self.cid}"


class Campaign:
    def __init__(self, root: Path, smemsim: list[str]):
        self.root, self.smemsim = root, smemsim
        self.cases: list[Case] = []
        self.kernel = base_kernel()
        self.sweep_doc: dict | None = None
        self.made = 0

    def new(self, cls: str, name: str, **kw) -> Case:
        self.made += 1
        cid = f"c{self.made:04d}"
        d = self.root / "cases" / cid
        for sub in ("work", "home", "tmp", "cache"):
            (d / sub).mkdir(parents=True)
        c = Case(cid, cls, name, d, **kw)
        self.cases.append(c)
        return c

    def put(self, case: Case, rel: str, text: str | bytes | None = None) -> str:
        """Write a file into the case's work folder (the base kernel by default)."""
        p = case.work / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        data = self.kernel if text is None else text
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        return rel

    def headers(self, case: Case, folder: str = "") -> None:
        self.put(case, os.path.join(folder, "tile.h"), "#pragma once\n#define TILE 32\n")
        self.put(case, os.path.join(folder, "pad.inc"), "#define PAD 0\n")


def controls(*texts) -> str:
    """The control characters (but newline and tab, which output may hold) in texts."""
    return "".join(sorted({c for t in texts for c in t if (ord(c) < 32 or 0x7f <= ord(c) <= 0x9f)
                           and c not in "\n\t"}))


def with_file(verb_args: list[str], f: str) -> list[str]:
    """A command line with FILE last, after `--` when it begins with '-'."""
    return [*verb_args, *(["--"] if f.startswith("-") else []), f]


# what each verb needs besides FILE (report writes out.html)
VERB_FORMS = {
    "analyze": (["analyze"], ()),
    "check": (["check"], ()),
    "explain": (["explain"], ()),
    "occupancy": (["occupancy", "--regs", "32"], ()),
    "fix": (["fix"], ()),
    "report": (["report", "--no-check", "-o", "out.html"], ("out.html",)),
    "import": (["import"], ()),
    "sweep": (["sweep", "-p", "n=32,64"], ()),
    "codegen": (["codegen"], ()),
    "compile": (["compile"], ()),
}
# the forms that hand the file to nvcc (slower)
NVCC_FORMS = {
    "fix": (["fix"], ()),
    "report": (["report", "--no-check", "-o", "out.html"], ("out.html",)),
    "compile": (["compile"], ()),
    "as-compiled": (["analyze", "--as-compiled"], ()),
    "regs-compile": (["analyze", "--regs", "compile"], ()),
    "occupancy-compile": (["occupancy", "--regs", "compile"], ()),
}


def injections(tok: str) -> dict[str, str]:
    """Names that run `touch TOKEN` in $HOME if any shell reads them."""
    return {
        "backtick": f"a`cd;touch {tok}`b",
        "dollar": f"a$(cd;touch {tok})b",
        "semicolon": f"a;cd;touch {tok};b",
        "pipe": f"a|(cd;touch {tok})",
        "and": f"a&&cd&&touch {tok}",
        "newline": f"a\ncd;touch {tok}\nb",
        "dquote-backtick": f'a"`cd;touch {tok}`"b',
        "squote-dollar": f"a'$(cd;touch {tok})'b",
        "backslash-backtick": f"a\\`cd;touch {tok}\\`b",
    }


ODD_NAMES = {   # names that must reach no shell and no terminal raw
    "space": "my kernel", "leading-dash": "-x", "unicode": "tr\u00e4nspose_\u6838",
    "esc-clear": "k\x1b[2Jx", "c1-csi": "k\u009b2Jx", "newline": "k\nx",
    "long-250": "L" * 246, "invalid-utf8": os.fsdecode(b"k\xffx"),
}
ODD_NAMES_FEW = {   # the same, through fewer verbs
    "esc-title": "k\x1b]0;owned\x07x", "quotes": "k'\"x", "cr": "k\rx",
    "emoji": "k\U0001f525", "rtl-override": "k\u202egpj", "backspace": "k\bx", "tab": "k\tx",
    "glob": "k*?[x]", "percent": "k%s%n%x", "braces": "k{0}{}", "backslash": "k\\x",
    "dot-dot": "..k", "hidden": ".k", "nbsp": "k\u00a0x", "double-dash": "--help",
}


# ----------------------------------------------------------------------------- class: paths

def paths_cases(cp: Campaign) -> None:
    """Files and folders with hostile names, and paths that are no readable file."""
    # injection names as the file, through every verb that hands the file to nvcc and more
    for label in injections("T"):
        forms = {k: v for k, v in NVCC_FORMS.items() if k != "occupancy-compile"}
        for form, (args, outs) in {**forms, "import": VERB_FORMS["import"]}.items():
            c = cp.new("paths", f"inject-file:{label}:{form}", outputs=outs, timeout=90)
            name = injections(c.token)[label] + ".cu"
            cp.put(c, name)
            c.argv = with_file(args, name)
            c.control = controls(name)
            c.setup = f"{name!r} = a copy of examples/transpose.cu"
            if form == "fix":
                c.post = fix_patch_applies
    # injection names as the folder above the file
    for label in injections("T"):
        for form in ("fix", "compile", "as-compiled"):
            args, outs = NVCC_FORMS[form]
            c = cp.new("paths", f"inject-folder:{label}:{form}", outputs=outs, timeout=90)
            folder = injections(c.token)[label]
            rel = cp.put(c, os.path.join(folder, "k.cu"))
            c.argv = with_file(args, rel)
            c.control = controls(folder)
            c.setup = f"{folder!r}/k.cu = a copy of examples/transpose.cu"
    # injection names as an -I folder of the file's header
    for label in injections("T"):
        c = cp.new("paths", f"inject-include-dir:{label}:as-compiled", timeout=90)
        folder = injections(c.token)[label]
        cp.put(c, "k.cu", HEADER_KERNEL)
        cp.headers(c, folder)
        c.argv = ["analyze", "--as-compiled", "-I", folder, "k.cu"]
        c.control = controls(folder)
        c.setup = f"k.cu includes tile.h and pad.inc, which are in {folder!r}"
    # odd (not injecting) names through every verb
    for label, stem in ODD_NAMES.items():
        for verb, (args, outs) in VERB_FORMS.items():
            if verb == "compile" and label not in ("esc-clear", "newline", "long-250",
                                                   "invalid-utf8", "space"):
                continue
            c = cp.new("paths", f"odd-name:{label}:{verb}", outputs=outs)
            name = stem + ".cu"
            cp.put(c, name)
            c.argv = with_file(args, name)
            c.control = controls(name)
            c.setup = f"{name!r} = a copy of examples/transpose.cu"
            if verb == "fix":
                c.post = fix_patch_applies
            if label in ("space", "unicode", "long-250", "leading-dash"):
                c.expect = "ok"   # a plain file with an unusual name: it must work
    for label, stem in ODD_NAMES_FEW.items():
        for verb in ("analyze", "fix", "import"):
            args, outs = VERB_FORMS[verb]
            c = cp.new("paths", f"odd-name:{label}:{verb}", outputs=outs)
            name = stem + ".cu"
            cp.put(c, name)
            c.argv = with_file(args, name)
            c.control = controls(name)
            c.setup = f"{name!r} = a copy of examples/transpose.cu"
            if verb == "fix":
                c.post = fix_patch_applies
    # paths that are no readable CUDA file
    specials = {
        "missing": "nope.cu", "missing-folder": "nodir/nope.cu", "folder": "adir.cu",
        "cwd": ".", "fifo": "fifo.cu", "dev-zero": "/dev/zero", "dev-null": "/dev/null",
        "dev-urandom": "/dev/urandom", "symlink-loop": "loop.cu", "dangling-link": "dangle.cu",
        "link-to-fifo": "lfifo.cu", "link-to-dev-zero": "lzero.cu", "unreadable": "noread.cu",
        "empty": "empty.cu", "binary": "bin.cu", "nul-bytes": "nul.cu", "utf16": "u16.cu",
        "socket": "sock.cu", "proc-self-fd": "/proc/self/fd/0",
    }
    every_verb = ("missing", "folder", "fifo", "dev-zero", "dev-null", "symlink-loop",
                  "dangling-link", "link-to-fifo", "unreadable", "empty", "binary", "nul-bytes",
                  "socket")
    for label, path in specials.items():
        for verb, (args, outs) in VERB_FORMS.items():
            if label not in every_verb and verb not in ("analyze", "fix"):
                continue
            c = cp.new("paths", f"special:{label}:{verb}", outputs=outs)
            make_special(cp, c, label)
            c.argv = with_file(args, path)
            c.setup = f"{path}: {label}"
            if label == "unreadable" and os.geteuid() == 0:
                c.note = "run as root: chmod 000 does not stop the read (not tested)"


def make_special(cp: Campaign, c: Case, label: str) -> None:
    w = c.work
    if label == "folder":
        (w / "adir.cu").mkdir()
    elif label == "fifo":
        os.mkfifo(w / "fifo.cu")
    elif label == "symlink-loop":
        os.symlink("loop2.cu", w / "loop.cu")
        os.symlink("loop.cu", w / "loop2.cu")
    elif label == "dangling-link":
        os.symlink("nowhere.cu", w / "dangle.cu")
    elif label == "link-to-fifo":
        os.mkfifo(w / "fifo2")
        os.symlink("fifo2", w / "lfifo.cu")
    elif label == "link-to-dev-zero":
        os.symlink("/dev/zero", w / "lzero.cu")
    elif label == "unreadable":
        cp.put(c, "noread.cu")
        os.chmod(w / "noread.cu", 0)
    elif label == "empty":
        cp.put(c, "empty.cu", "")
    elif label == "binary":
        cp.put(c, "bin.cu", hashlib.sha512(b"x").digest() * 1024)
    elif label == "nul-bytes":
        cp.put(c, "nul.cu", cp.kernel.replace("__syncthreads();", "__sync\0threads();"))
    elif label == "utf16":
        cp.put(c, "u16.cu", cp.kernel.encode("utf-16"))
    elif label == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(w / "sock.cu"))
        s.close()


# ----------------------------------------------------------------------------- class: outputs

WRITERS = {   # name: (argv before the target, the option, the suffix the output has)
    "report-o": (["report", "--no-check", "k.cu", "-o"], ".html"),
    "import-o": (["import", "k.cu", "-o"], ".py"),
    "fix-patch": (["fix", "k.cu", "--patch"], ".patch"),
    "analyze-sarif": (["analyze", "k.cu", "--sarif"], ".sarif"),
    "check-sarif": (["check", "k.cu", "--sarif"], ".sarif"),
    "sweep-csv": (["sweep", "k.cu", "-p", "n=32,64", "--csv"], ".csv"),
    "report-svg": (["report", "--no-check", "--no-fix", "-o", "page.html", "k.cu", "--svg"],
                   ""),
}


def outputs_cases(cp: Campaign) -> None:
    """Every writing option pointed at what it must never replace, and at what it may."""
    for wname, (head, ext) in WRITERS.items():
        svg = ext == ""
        targets = [
            # (label, target, extra argv, expect, force)
            ("input", "k.cu", [], "refuse"),
            ("input+force", "k.cu", ["--force"], "refuse"),
            ("header.h", "tile.h", ["--force"], "refuse"),
            ("header.inc", "pad.inc", [], "refuse"),
            ("header.inc+force", "pad.inc", ["--force"], "refuse"),
            ("host-file", "host.txt", ["--host-file", "host.txt"], "refuse"),
            ("host-file+force", "host.txt", ["--host-file", "host.txt", "--force"], "refuse"),
            ("data", "d.dat", ["--data", "src=d.dat"], "refuse"),
            ("data+force", "d.dat", ["--data", "src=d.dat", "--force"], "refuse"),
            ("link-to-input", "lnk_in" + ext, [], "refuse"),
            ("link-to-unrelated", "lnk_mine" + ext, [], "refuse"),
            ("link-to-unrelated+force", "lnk_mine" + ext, ["--force"], "refuse"),
            ("dangling-link+force", "lnk_none" + ext, ["--force"], "refuse"),
            ("fifo", "fifo" + ext, [], "refuse"),
            ("fifo+force", "fifo" + ext, ["--force"], "refuse"),
            ("folder", "folder" + ext, [], "any" if svg else "refuse"),
            ("dev-full", "/dev/full", [], "refuse"),
            ("missing-folder", "nodir/out" + ext, [], "refuse"),
            ("unrelated", "mine" + ext, [], "refuse"),
            ("unrelated+force", "mine" + ext, ["--force"], "ok"),
            ("new", "new" + ext, [], "ok"),
            ("ours-again", "again" + ext, [], "ok"),
            ("payload-name", None, [], "any"),
            ("full-disk-existing", "again" + ext, [], "any"),
            ("full-disk-new", "new" + ext, [], "any"),
        ]
        if svg:
            targets = [t for t in targets if t[0] in (
                "input", "input+force", "header.inc+force", "host-file", "link-to-input",
                "fifo", "folder", "dev-full", "missing-folder", "unrelated",
                "unrelated+force", "new", "payload-name", "full-disk-new")]
        for label, target, extra, expect in targets:
            c = cp.new("outputs", f"{wname}:{label}", expect=expect, timeout=90)
            cp.put(c, "k.cu", HEADER_KERNEL)
            cp.headers(c)
            cp.put(c, "host.txt", HOST_CODE)
            cp.put(c, "d.dat", npy(struct.pack("<65536f", *([1.0] * 65536)), "<f4", (65536,)))
            cp.put(c, "mine" + ext if not svg else "mine", "the user's own file\n")
            cp.put(c, "mine2" + ext if not svg else "mine2", "another file of the user's\n")
            os.symlink("k.cu", c.work / ("lnk_in" + ext))
            os.symlink("mine2" + ext if not svg else "mine2", c.work / ("lnk_mine" + ext))
            os.symlink("nothere" + ext, c.work / ("lnk_none" + ext))
            os.mkfifo(c.work / ("fifo" + ext))
            (c.work / ("folder" + ext)).mkdir()
            if target is None:
                target = f"a`cd;touch {c.token}`b$(cd;touch {c.token})" + ext
            c.argv = [*head, target, *extra]
            page = ("page.html",) if svg else ()
            c.setup = ("k.cu includes tile.h and pad.inc; host.txt launches it; d.dat a .npy; "
                       "mine* unrelated files; lnk_in -> k.cu; lnk_mine -> mine2; lnk_none -> "
                       "nothing; fifo* a FIFO; folder* a folder")
            if label in ("unrelated+force", "new", "ours-again", "payload-name",
                         "full-disk-existing", "full-disk-new", "folder"):
                c.outputs = (target, *page)
                c.may_change = (target, *page)
            if svg and label == "missing-folder":   # an output folder's parents may be made
                c.expect, c.outputs, c.may_change = "any", ("nodir", *page), ()
            if svg and label == "unrelated+force":
                c.expect, c.outputs, c.may_change = "refuse", (), ()   # a file is no folder
            if label == "ours-again" or label == "full-disk-existing":
                c.pre = prerun_output
            if label.startswith("full-disk"):
                c.prefix = ("prlimit", "--fsize=4000", "--")
                c.post = full_disk_kept_old
                c.note = "a full disk simulated by RLIMIT_FSIZE (4,000 bytes)"
            if wname == "fix-patch" and expect == "ok":
                c.post = fix_patch_applies
            if wname == "report-svg" and label == "dev-full":
                c.expect = "any"   # a folder name; /dev/full is no folder: any clean refusal


def prerun_output(case: Case, cp: Campaign) -> None:
    """Write the case's output once (a file smemsim wrote), to be replaced by the case."""
    rc, out, err = run_plain(case, cp, case.argv, prefix=())
    case.pre_bytes = {p: (case.work / p).read_bytes() for p in case.outputs
                      if (case.work / p).is_file()}
    if rc != 0:
        raise RuntimeError(f"the first write failed (exit {rc}): {err[-300:]}")


def full_disk_kept_old(case: Case, res: dict) -> list[str]:
    """On a full disk a write fails as one error line, and the old file is whole."""
    reasons = []
    old = getattr(case, "pre_bytes", {})
    for p, data in old.items():
        now = case.work / p
        if res["rc"] != 0 and (not now.is_file() or now.read_bytes() != data):
            reasons.append(f"full disk: the old {p} was not kept whole")
    if res["rc"] != 0:   # a new target must not be left half-written
        for p in case.outputs:
            if p not in old and (case.work / p).is_file():
                reasons.append(f"full disk: a partial {p} was left")
    return reasons


# ----------------------------------------------------------------------------- class: signals

def signals_cases(cp: Campaign) -> None:
    """SIGINT (to the group, as Ctrl-C sends it) and SIGTERM (to the process, as CI's kill
    does, and to the group) at moments into long commands; run one at a time."""
    modes = {"SIGINT-group": (signal.SIGINT, "group"), "SIGTERM-pid": (signal.SIGTERM, "pid"),
             "SIGTERM-group": (signal.SIGTERM, "group")}
    plans = [
        ("sweep", ["sweep", "k.cu", "-p", "n=32:8192:32", "--pad", "tile=0,1,2", "--jobs", "2",
                   "--top", "3"], (), [0.5, 1.5, 3, 4.5, 7, 10], sweep_interrupt_kept),
        ("report", ["report", "k.cu", "--regs", "compile", "-o", "out.html", "--jobs", "2"],
         ("out.html",), [0.5, 1.5, 3, 4, 5.5], None),
        ("analyze-as-compiled", ["analyze", "k.cu", "--as-compiled"], (), [1.5, 3, 3.5],
         None),
        ("fix-as-compiled", ["fix", "k.cu", "--as-compiled", "--jobs", "2"], (),
         [3, 5, 8], None),
    ]
    for what, argv, outs, times, post in plans:
        for mode, (sig, target) in modes.items():
            for t in times:
                if what == "sweep" and mode == "SIGTERM-group" and t not in (1.5, 4.5, 10):
                    continue
                c = cp.new("signals", f"{what}:{mode}@{t}s", argv=list(argv), outputs=outs,
                           sig=(sig, t, target), serial=True, timeout=120, post=post)
                cp.put(c, "k.cu")
                c.setup = "k.cu = a copy of examples/transpose.cu"


def sweep_interrupt_kept(case: Case, res: dict) -> list[str]:
    """An interrupted sweep says how many points it kept, keeps them in the cache, and a
    rerun computes only the others."""
    if res["rc"] not in (130, 143, -2, -15):
        return []
    err = res["stderr"]
    m = re.search(r"([\d,]+) of ([\d,]+) points are kept", err) or \
        re.search(r"kept ([\d,]+) of ([\d,]+)", err)
    reasons = []
    kept = int(m.group(1).replace(",", "")) if m else None
    on_disk = sum(1 for _ in (case.cache / "sweep").rglob("*.npz")) if \
        (case.cache / "sweep").is_dir() else 0
    res["kept_said"], res["kept_on_disk"] = kept, on_disk
    if kept is not None and on_disk < kept:
        reasons.append(f"sweep interrupt: says {kept} points kept, {on_disk} in the cache")
    if kept is None and on_disk == 0:
        return reasons   # interrupted before any point: nothing to reuse
    before = code_fingerprint()
    rc, out, rerr = run_plain(case, None, [*case.argv, "--json"], timeout=180)
    res["rerun"] = {"rc": rc, "stderr": rerr[-600:]}
    if rc != 0:
        reasons.append(f"sweep interrupt: the rerun failed (exit {rc}): {rerr[-200:]}")
        return reasons
    try:
        cached = json.loads(out)["results"][0]["cached"]
    except (ValueError, KeyError, IndexError, TypeError):
        reasons.append("sweep interrupt: the rerun's JSON has no cached count")
        return reasons
    res["rerun"]["cached"] = cached
    want = kept if kept is not None else on_disk
    if cached < want:
        if code_fingerprint() != before or res.get("fingerprint") != before:
            res["notes"].append(f"rerun reused {cached} of {want} kept points, but smemsim's "
                                "source changed meanwhile (cache keys changed): inconclusive")
        else:
            reasons.append(f"sweep interrupt: {want} points kept, the rerun reused {cached}")
    return reasons


# ----------------------------------------------------------------------------- class: caches

SWEEP_CMD = ["sweep", "k.cu", "-p", "n=32,64,96", "--json", "--jobs", "2"]
COMPILE_CMD = ["compile", "k.cu", "--json"]
NVRTC_CMD = ["compile", "transpose", "--kernel", "naive", "--json"]


def caches_cases(cp: Campaign) -> None:
    """Planted and edited cache entries (sweep .npz, nvcc JSON, NVRTC JSON and cubin), a
    cache folder that is no folder, and malformed --sweep-result files."""
    npz_tampers = ["fifo", "folder", "link-dev-zero", "link-loop", "link-outside", "truncated",
                   "empty", "garbage", "edit-plausible", "edit-negative", "edit-huge",
                   "edit-float", "edit-string", "edit-bool", "pickle-object", "swap",
                   "missing-member", "extra-member", "zip-bomb", "not-zip-json"]
    for t in npz_tampers:
        c = cp.new("caches", f"sweep-entry:{t}", argv=list(SWEEP_CMD), expect="ok",
                   timeout=120)
        cp.put(c, "k.cu")
        c.pre = make_tamper("sweep", "*.npz", t, SWEEP_CMD)
        c.post = same_as_clean
        c.setup = f"a sweep's cache entry, then: {t}"
    json_tampers = ["fifo", "folder", "link-dev-zero", "truncated", "empty", "garbage",
                    "deep-nesting", "invalid-utf8", "top-list", "top-null",
                    "reg-negative", "reg-huge", "reg-string", "reg-float", "reg-bool",
                    "reg-plausible", "resources-list", "sass-empty", "sass-junk",
                    "sass-number", "huge-number-text"]
    for t in json_tampers:
        c = cp.new("caches", f"nvcc-entry:{t}", argv=list(COMPILE_CMD), expect="ok",
                   timeout=120)
        cp.put(c, "k.cu")
        c.pre = make_tamper("nvcc", "*.json", t, COMPILE_CMD)
        c.post = same_as_clean
        c.setup = f"compile k.cu's nvcc cache entry, then: {t}"
    for t in ("fifo", "deep-nesting", "reg-plausible", "sass-junk"):
        c = cp.new("caches", f"nvcc-entry-as-compiled:{t}",
                   argv=["analyze", "k.cu", "--as-compiled", "--json"], expect="ok",
                   timeout=120)
        cp.put(c, "k.cu")
        c.pre = make_tamper("nvcc", "*.json", t, c.argv)
        c.post = same_as_clean
        c.setup = f"analyze --as-compiled's nvcc cache entry, then: {t}"
    for t in ("fifo", "truncated", "garbage", "deep-nesting", "reg-plausible", "reg-negative",
              "cubin-junk", "top-list", "sass-number"):
        c = cp.new("caches", f"nvrtc-entry:{t}", argv=list(NVRTC_CMD), expect="ok",
                   timeout=120)
        c.pre = make_tamper("compiled", "*.json", t, NVRTC_CMD)
        c.post = same_as_clean
        c.setup = f"compile transpose --kernel naive's NVRTC cache entry, then: {t}"
    for t in ("fifo", "truncated", "garbage", "empty", "link-dev-zero"):
        c = cp.new("caches", f"cubin-entry:{t}", argv=list(NVRTC_CMD), expect="ok",
                   timeout=120)
        c.pre = make_tamper("cubin", "*.cubin", t, NVRTC_CMD)
        c.post = same_as_clean
        c.setup = f"compile transpose --kernel naive's cubin cache entry, then: {t}"
    # the cache folder itself planted with what is no folder
    for t in ("sweep-is-fifo", "sweep-is-file", "sweep-link-dev-full", "root-is-file",
              "root-is-fifo", "root-dev-null", "root-missing-deep", "root-empty",
              "root-payload-name", "nvcc-is-fifo", "nvcc-is-file"):
        for cmd in (["sweep", "k.cu", "-p", "n=32,64"], ["compile", "k.cu"]):
            c = cp.new("caches", f"cache-folder:{t}:{cmd[0]}", argv=list(cmd), expect="ok",
                       timeout=120)
            cp.put(c, "k.cu")
            plant_cache_folder(c, t)
            c.setup = f"$SMEMSIM_CACHE: {t}"
    # --sweep-result files malformed
    for label, maker in sweep_result_mutations(cp):
        c = cp.new("caches", f"sweep-result:{label}", timeout=60, outputs=("out.html",))
        cp.put(c, "k.cu")
        maker(c)
        c.argv = ["report", "k.cu", "--no-check", "--no-fix", "--sweep-result", "sw.json",
                  "-o", "out.html"]
        c.control = controls(label) if "esc" not in label else "\x1b"
        c.setup = f"sw.json = sweep --json's output, then: {label}"


def plant_cache_folder(c: Case, t: str) -> None:
    root = c.cache
    if t == "sweep-is-fifo":
        os.mkfifo(root / "sweep")
    elif t == "sweep-is-file":
        (root / "sweep").write_text("x")
    elif t == "sweep-link-dev-full":
        os.symlink("/dev/full", root / "sweep")
    elif t == "nvcc-is-fifo":
        os.mkfifo(root / "nvcc")
    elif t == "nvcc-is-file":
        (root / "nvcc").write_text("x")
    elif t == "root-is-file":
        (c.dir / "cachefile").write_text("x")
        c.env["SMEMSIM_CACHE"] = str(c.dir / "cachefile")
    elif t == "root-is-fifo":
        os.mkfifo(c.dir / "cachefifo")
        c.env["SMEMSIM_CACHE"] = str(c.dir / "cachefifo")
    elif t == "root-dev-null":
        c.env["SMEMSIM_CACHE"] = "/dev/null"
    elif t == "root-missing-deep":
        c.env["SMEMSIM_CACHE"] = str(c.dir / "cache" / "a" / "b" / "c")
    elif t == "root-empty":
        c.env["SMEMSIM_CACHE"] = ""
    elif t == "root-payload-name":
        d = c.dir / "cache" / f"a`cd;touch {c.token}`$(cd;touch {c.token})"
        d.mkdir()
        c.env["SMEMSIM_CACHE"] = str(d)


def make_tamper(kind: str, pattern: str, how: str, clean_argv: list[str]):
    """A pre hook: a clean run fills the case's cache and gives the reference output; then
    one entry of `kind` is tampered with `how`."""
    def pre(case: Case, cp: Campaign) -> None:
        rc, out, err = run_plain(case, cp, clean_argv, timeout=180)
        if rc != 0:
            raise RuntimeError(f"the clean run failed (exit {rc}): {err[-300:]}")
        case.reference = out
        entries = sorted((case.cache / kind).rglob(pattern))
        if not entries:
            raise RuntimeError(f"the clean run left no {kind} cache entry")
        case.tampered = entries[0]
        case.entries_before = {str(p) for p in (case.cache / kind).rglob("*")}
        tamper(case, entries, how)
    return pre


def tamper(case: Case, entries: list[Path], how: str) -> None:
    e = entries[0]
    data = e.read_bytes()

    def replace_with(new: bytes) -> None:
        e.write_bytes(new)
    if how == "fifo":
        e.unlink()
        os.mkfifo(e)
    elif how == "folder":
        e.unlink()
        e.mkdir()
    elif how == "link-dev-zero":
        e.unlink()
        os.symlink("/dev/zero", e)
    elif how == "link-loop":
        e.unlink()
        os.symlink(e.name, e)
    elif how == "link-outside":
        outside = case.dir / "outside.npz"
        outside.write_bytes(data)
        e.unlink()
        os.symlink(outside, e)
    elif how == "truncated":
        replace_with(data[:len(data) // 2])
    elif how == "empty":
        replace_with(b"")
    elif how == "garbage":
        replace_with(hashlib.sha512(b"junk").digest() * 64)
    elif how == "swap":
        replace_with(entries[1].read_bytes() if len(entries) > 1 else data)
    elif how.startswith("edit-") or how in ("pickle-object", "missing-member",
                                            "extra-member", "zip-bomb"):
        replace_with(edit_npz(data, how, case))
    elif how == "not-zip-json":
        replace_with(b'{"wavefronts": 1, "excess": 0}')
    elif how == "deep-nesting":
        replace_with(b"[" * 200000 + b"]" * 200000)
    elif how == "invalid-utf8":
        replace_with(b'{"sass": "\xff\xfe", "resources": {}}')
    elif how == "huge-number-text":
        replace_with(b'{"sass": {}, "resources": {"f": {"REG": ' + b"9" * 100000 + b"}}}")
    elif how == "cubin-junk":
        seal, doc = split_seal(data)
        doc["cubin"] = "AAAA" * 100
        replace_with(seal + json.dumps(doc).encode())
    else:   # JSON edits (a seal line before the JSON, if the entry has one, is kept)
        seal, doc = split_seal(data)
        res = doc.get("resources", {}) if isinstance(doc, dict) else {}
        regs = [v for v in (res.values() if isinstance(res, dict) else ())
                if isinstance(v, dict) and "REG" in v] or ([res] if "REG" in res else [])
        value = {"reg-negative": -5, "reg-huge": 10 ** 30, "reg-string": "14",
                 "reg-float": 1.5, "reg-bool": True, "reg-plausible": 200}.get(how)
        if value is not None:
            for r in regs:
                r["REG"] = value
        elif how == "top-list":
            doc = [doc]
        elif how == "top-null":
            doc = None
        elif how == "resources-list":
            doc["resources"] = []
        elif how == "sass-empty":
            doc["sass"] = {} if isinstance(doc.get("sass"), dict) else ""
        elif how == "sass-junk":
            s = doc.get("sass")
            doc["sass"] = {k: "junk\n" * 10 for k in s} if isinstance(s, dict) else "junk\n"
        elif how == "sass-number":
            doc["sass"] = 5
        replace_with(seal + json.dumps(doc).encode())


def split_seal(data: bytes):
    """A JSON cache entry as (the line before its JSON, if any, kept as is; the document)."""
    if data.lstrip()[:1] in (b"{", b"["):
        return b"", json.loads(data)
    seal, _, body = data.partition(b"\n")
    return seal + b"\n", json.loads(body)


def edit_npz(data: bytes, how: str, case: Case) -> bytes:
    """A sweep cache entry (.npz of .npy members) edited without numpy."""
    import io
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist()}
    name = "wavefronts.npy" if "wavefronts.npy" in members else sorted(members)[0]
    old = members[name]
    hlen = struct.unpack("<H", old[8:10])[0]
    value = struct.unpack("<q", old[10 + hlen:10 + hlen + 8])[0] if len(old) >= 18 + hlen \
        else 0
    if how == "edit-plausible":
        members[name] = npy(struct.pack("<q", max(value // 2, 1)), "<i8", ())
    elif how == "edit-negative":
        members[name] = npy(struct.pack("<q", -5), "<i8", ())
    elif how == "edit-huge":
        members[name] = npy(struct.pack("<q", 2 ** 62), "<i8", ())
    elif how == "edit-float":
        members[name] = npy(struct.pack("<d", float(value) + 0.5), "<f8", ())
    elif how == "edit-string":
        members[name] = npy("abc".encode("utf-32-le"), "<U3", ())
    elif how == "edit-bool":
        members[name] = npy(b"\x01", "|b1", ())
    elif how == "pickle-object":
        members[name] = npy(pickle.dumps(_Boom(f"cd;touch {case.token}"), protocol=2),
                            "|O", ())
    elif how == "missing-member":
        del members[name]
    elif how == "extra-member":
        members["extra.npy"] = npy(struct.pack("<q", 1), "<i8", ())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in members.items():
            if how == "zip-bomb" and n == name:
                continue
            z.writestr(n, b)
        if how == "zip-bomb":   # 1 GiB of zeros, a few MB compressed
            with z.open(name, "w", force_zip64=True) as f:
                f.write(npy(b"", "<i8", (2 ** 27,)))
                chunk = bytes(2 ** 22)
                for _ in range(256):
                    f.write(chunk)
    return out.getvalue()


class _Boom:
    """A pickle that runs a shell command when loaded (what allow_pickle must refuse)."""

    def __init__(self, cmd: str):
        self.cmd = cmd

    def __reduce__(self):
        return (os.system, (self.cmd,))


def same_as_clean(case: Case, res: dict) -> list[str]:
    """A tampered cache entry is a miss: the result is the clean run's (a hand-edited one
    trusted changes it). Fields that count the cache itself are left out."""
    ref = getattr(case, "reference", None)
    if ref is None or res["rc"] != 0:
        return []

    def norm(text):
        def drop(x):
            if isinstance(x, dict):
                return {k: drop(v) for k, v in x.items() if k not in ("cached",)}
            if isinstance(x, list):
                return [drop(v) for v in x]
            return x
        try:
            return drop(json.loads(text))
        except ValueError:
            return text
    reasons = []
    if norm(res["stdout"]) != norm(ref):
        reasons.append("tampered cache entry trusted: the result differs from the clean run's")
    kind_dir = Path(case.tampered).parent
    while kind_dir.parent != case.cache:
        kind_dir = kind_dir.parent
    after = {str(p) for p in kind_dir.rglob("*")} if kind_dir.is_dir() else set()
    new = [p for p in after - case.entries_before if Path(p).suffix in (".npz", ".json",
                                                                         ".cubin")]
    if new:
        res["vacuous"] = True   # run_campaign tries the case again
        res["notes"].append(f"{len(new)} cache entries written at new paths: the tampered "
                            "entry may not have been read (keys changed: source edited?)")
    return reasons


def sweep_result_mutations(cp: Campaign):
    """(label, maker) pairs: each maker writes sw.json (or plants something there)."""
    base = cp.sweep_doc

    def doc_writer(mutate):
        def make(c):
            d = json.loads(json.dumps(base))
            d = mutate(d)
            (c.work / "sw.json").write_text(d if isinstance(d, str) else json.dumps(d))
        return make

    def raw_writer(data: bytes):
        def make(c):
            (c.work / "sw.json").write_bytes(data)
        return make
    out = []

    def at_result(d):
        return d["results"][0]

    def set_result(key, value):
        def m(d):
            at_result(d)[key] = value
            return d
        return m

    def set_point(key, value, every=False):
        def m(d):
            for p in at_result(d)["points"][:None if every else 1]:
                p[key] = value
            return d
        return m
    values = {"string": "12", "negative": -1, "huge": 2 ** 70, "float": 1.5, "null": None,
              "bool": True, "list": [1, [2, [3]]], "object": {"a": {"b": None}}}
    fields = ["requests", "wavefronts", "ideal", "excess", "smem_per_block", "smem_blocks",
              "registers", "active_warps", "occupancy", "rank", "pareto", "error", "params",
              "arch", "layouts"]
    names = list(values)
    for i, f in enumerate(fields):   # two values per field, rotating
        for v in (names[(2 * i + k) % len(names)] for k in (0, 3)):
            out.append((f"point.{f}={v}", doc_writer(set_point(f, values[v]))))
    for f, v in (("kernel", 5), ("kernel", None), ("kernel", "k" * 100000),
                 ("kernel", "\x1b[2J\x1b]0;owned\x07"), ("points", {}), ("points", "x"),
                 ("points", None), ("points", [1]), ("points", [[]]), ("points", [{}]),
                 ("kind", "analysis"), ("cached", -1), ("cached", "x")):
        out.append((f"result.{f}={str(v)[:20]!r}", doc_writer(set_result(f, v))))
    for label, mutate in (
            ("schema=other", lambda d: {**d, "schema": "smemsim/0"}),
            ("results={}", lambda d: {**d, "results": {}}),
            ("results=[]", lambda d: {**d, "results": []}),
            ("results=[1]", lambda d: {**d, "results": [1]}),
            ("doc=[]", lambda d: []), ("doc=null", lambda d: None), ("doc=str", lambda d: "x"),
            ("params={n:NaN-string}", set_point("params", {"n": "NaN"}, True)),
            ("params-esc-name", set_point("params", {"\x1b[2J": 1})),
            ("params-deep", set_point("params", {"n": json.loads("[" * 500 + "]" * 500)})),
            ("layouts-junk", set_point("layouts", [{"array": 5, "pad": "x", "swizzle": [1]}])),
            ("points-100000", lambda d: {**d, "results": [{**at_result(d), "points": [
                at_result(d)["points"][0]] * 100000}]}),
    ):
        out.append((label, doc_writer(mutate)))
    text = json.dumps(base)
    for label, lit in (("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"),
                       ("1e999", "1e999"), ("digits-100000", "9" * 100000)):
        out.append((f"wavefronts={label}", raw_writer(
            re.sub(r'"wavefronts": \d+', f'"wavefronts": {lit}', text, count=1).encode())))
    for label, data in (("empty", b""), ("deep-nesting", b"[" * 200000 + b"]" * 200000),
                        ("deep-objects", b'{"a":' * 100000 + b"1" + b"}" * 100000),
                        ("bom", b"\xef\xbb\xbf" + text.encode()),
                        ("utf16", text.encode("utf-16")), ("truncated", text[:300].encode()),
                        ("binary", hashlib.sha512(b"b").digest() * 100),
                        ("invalid-utf8", text.replace('"sm_90"', '"\xff"').encode("latin-1")),
                        ("trailing-junk", text.encode() + b" junk"),
                        ("duplicate-keys", b'{"schema": "smemsim/1", "schema": 5}')):
        out.append((f"file:{label}", raw_writer(data)))

    def fifo(c):
        os.mkfifo(c.work / "sw.json")

    def folder(c):
        (c.work / "sw.json").mkdir()

    def devzero(c):
        os.symlink("/dev/zero", c.work / "sw.json")

    def loop(c):
        os.symlink("sw.json", c.work / "sw.json")

    def sparse(c):
        with open(c.work / "sw.json", "wb") as f:
            f.truncate(300 * 2 ** 20)

    def missing(c):
        pass
    for label, m in (("fifo", fifo), ("folder", folder), ("link-dev-zero", devzero),
                     ("link-loop", loop), ("sparse-300MiB", sparse), ("missing", missing)):
        out.append((f"file:{label}", m))
    return out


# ----------------------------------------------------------------------------- class: bombs

def bombs_cases(cp: Campaign) -> None:
    """Inputs built to cost time, memory or recursion before smemsim can refuse them."""
    chain = "".join(f"#define M{i} M{i - 1}\n" if i else "#define M0 32\n" for i in range(3001))
    add = "".join(f"#define A{i} (A{i - 1} + 1)\n" if i else "#define A0 0\n"
                  for i in range(3001))
    double = "".join(f"#define D{i} (D{i - 1} + D{i - 1})\n" if i else "#define D0 1\n"
                     for i in range(65))
    bombs = {
        "define-chain-3000": small_kernel("M3000", before=chain),
        "define-additive-3000": small_kernel("32", "(threadIdx.x + A3000) % 32", before=add),
        "define-doubling-64": small_kernel("32", "(threadIdx.x + D64) % 32", before=double),
        "define-mutual-recursion": small_kernel("A", before="#define A B\n#define B A\n"),
        "define-self-recursion": small_kernel("X", before="#define X (X + 1)\n"),
        "define-function-recursion": small_kernel(
            "F(32)", before="#define F(x) G(x)\n#define G(x) F(x)\n"),
        "parens-10000": small_kernel("32", "(" * 10000 + "threadIdx.x" + ")" * 10000),
        "parens-100000": small_kernel("32", "(" * 100000 + "threadIdx.x" + ")" * 100000),
        "terms-100000": small_kernel("32", "(" + "1 + " * 100000 + "threadIdx.x) % 32"),
        "terms-1000000": small_kernel("32", "(" + "1 + " * 1000000 + "threadIdx.x) % 32"),
        "unary-100000": small_kernel("32", "-" * 2 * 50000 + "threadIdx.x % 32"),
        "array-1<<30": small_kernel("1 << 30"),
        "array-1ULL<<62": small_kernel("1ULL << 62"),
        "array-1<<31": small_kernel("1 << 31"),
        "array-negative": small_kernel("-1"),
        "array-zero": small_kernel("0"),
        "array-2d-65536": small_kernel("65536][65536", "0][threadIdx.x"),
        "array-huge-literal": small_kernel("9" * 5000),
        "launch-grid-2^31": small_kernel(launch="2147483648u, 32"),
        "launch-grid-max": small_kernel(launch="2147483647, 32"),
        "launch-block-2048": small_kernel(launch="1, 2048"),
        "launch-block-0": small_kernel(launch="1, 0"),
        "launch-block-negative": small_kernel(launch="1, -32"),
        "launch-3d-huge": small_kernel(launch="dim3(65535, 65535, 65535), dim3(32, 32)"),
        "launch-smem-10GB": small_kernel(launch="1, 32, 10000000000"),
        "loop-2^40": small_kernel("32", "threadIdx.x", before="").replace(
            "__syncthreads();", "__syncthreads();\n    for (long long i = 0; i < (1LL << 40); i++)"
            " s[i % 32] += 1.0f;"),
        "loop-while-1": small_kernel().replace(
            "__syncthreads();", "__syncthreads();\n    int j = 0;\n    while (1) { s[j % 32] += "
            "1.0f; j++; }"),
        "long-identifier": small_kernel("32", "(threadIdx.x + " + "v" * 1000000 + ") % 32",
                                        before="#define " + "v" * 1000000 + " 1\n"),
        "long-line-10MB": small_kernel(before="// " + "x" * 10000000 + "\n"),
        "comments-64MB": small_kernel(before=("/* " + "y" * 1000 + " */\n") * 65000),
        "template-recursion": small_kernel(
            "R<5>::v", before="template <int N> struct R { enum { v = R<N - 1>::v + 1 }; };\n"),
        "pragma-unroll-huge": small_kernel().replace(
            "__syncthreads();", "__syncthreads();\n#pragma unroll 100000000\n    for (int i = 0;"
            " i < 100000000; i++) s[i % 32] += 1.0f;"),
    }
    verbs = {"analyze": ["analyze"], "check": ["check"], "import": ["import"]}
    three = ("define-chain-3000", "define-additive-3000", "define-doubling-64", "parens-10000",
             "terms-100000", "launch-grid-max", "loop-2^40", "define-mutual-recursion")
    for label, text in bombs.items():
        for verb, args in verbs.items():
            if verb != "analyze" and label not in three:
                continue
            c = cp.new("bombs", f"{label}:{verb}", timeout=60)
            cp.put(c, "bomb.cu", text)
            c.argv = [*args, "bomb.cu"]
            c.setup = f"bomb.cu: {label}"
    # include bombs
    inc = {
        "include-self": ("#include \"self.h\"\n", {"self.h": "#include \"self.h\"\n"}),
        "include-dev-zero": ("#include \"/dev/zero\"\n", {}),
        "include-dev-urandom": ("#include \"/dev/urandom\"\n", {}),
        "include-fifo": ("#include \"fifo.h\"\n", {"fifo.h": None}),
        "include-folder": ("#include \"adir\"\n", {"adir/": None}),
        "include-chain-2000": ("#include \"h0.h\"\n", {f"h{i}.h": f"#include \"h{i + 1}.h\"\n"
                                                       for i in range(2000)} | {"h2000.h": ""}),
        "include-etc-passwd": ("#include \"/etc/passwd\"\n", {}),
        "include-link-loop": ("#include \"l1.h\"\n", {"l1.h": "->l2.h", "l2.h": "->l1.h"}),
    }
    for label, (line, files) in inc.items():
        for verb in ("analyze", "import"):
            c = cp.new("bombs", f"{label}:{verb}", timeout=60)
            cp.put(c, "bomb.cu", small_kernel(before=line))
            for name, content in files.items():
                p = c.work / name
                if name.endswith("/"):
                    p.mkdir()
                elif content is None:
                    os.mkfifo(p)
                elif content.startswith("->"):
                    os.symlink(content[2:], p)
                else:
                    p.write_text(content)
            c.argv = [verb, "bomb.cu"]
            c.setup = f"bomb.cu: {label}"
    # launch options that ask for impossible launches
    for label, extra in (("launch-smem-10GB", ["--launch-smem", "10000000000"]),
                         ("launch-smem-1e30", ["--launch-smem", "1" + "0" * 30]),
                         ("launch-grid-2^31", ["--launch-grid", "2147483648"]),
                         ("launch-grid-max", ["--launch-grid", "2147483647"]),
                         ("launch-grid-max-3d", ["--launch-grid", "2147483647,65535,65535"]),
                         ("launch-block-2048", ["--launch-block", "2048"]),
                         ("launch-block-negative", ["--launch-block", "-32"]),
                         ("param-negative", ["-p", "n=-256"]),
                         ("param-huge", ["-p", "n=1099511627776"]),
                         ("loop-limit-max-while", ["--loop-limit", "32768"])):
        for verb in ("analyze", "check"):
            c = cp.new("bombs", f"option:{label}:{verb}", timeout=60)
            if label == "loop-limit-max-while":
                cp.put(c, "k.cu", small_kernel().replace(
                    "__syncthreads();", "__syncthreads();\n    int j = 0;\n    while (j >= 0) "
                    "{ s[j % 32] += 1.0f; j++; }"))
            else:
                cp.put(c, "k.cu")
            c.argv = [verb, "k.cu", *extra]
            c.setup = "k.cu: a small one-kernel file"
    # Python bombs (cupy files)
    for label, expr in (("py-sum-50001", " + ".join(["'x'"] * 50001)),
                        ("py-sum-500001", " + ".join(["'x'"] * 500001)),
                        ("py-parens-5000", "(" * 5000 + "'x'" + ")" * 5000),
                        ("py-list-depth-100000", "[" * 100000 + "]" * 100000)):
        for verb in ("analyze", "check"):
            c = cp.new("bombs", f"{label}:{verb}", timeout=60)
            cp.put(c, "bomb.py", "import cupy\n\nJUNK = " + expr + "\n" + cupy_file(
                "", small_kernel()))
            c.argv = [verb, "bomb.py"]
            c.setup = f"bomb.py: a cupy file with {label}"


# ----------------------------------------------------------------------------- class: py

def cupy_file(extra_top: str, cuda: str, call: str = "cupy.RawKernel(SRC, 'k')",
              head: str = "import cupy\n") -> str:
    return (f"{head}{extra_top}\nSRC = r'''\n{cuda}'''\n\nkernel = {call}\n")


def py_cases(cp: Campaign) -> None:
    """.py files: CUDA strings compiled by cupy/pycuda (read, never run) unless the module
    body imports kernels_ir (a kernels file, run: documented); modules planted beside."""
    def payload(c: Case) -> str:
        return (f"import os\nopen({str(c.home / c.token)!r}, 'w').close()\n"
                f"os.system('cd;touch {c.token}_sh')\n")
    variants = {   # label: (what the file holds besides the cupy kernel, whether it may run)
        "cupy-plain": ("{p}", False),
        "cupy-if-false-import": ("{p}if False:\n    import kernels_ir\n", False),
        "cupy-string-import": ("{p}DOC = 'import kernels_ir'\n", False),
        "cupy-comment-import": ("{p}# import kernels_ir\n", False),
        "cupy-def-import": ("{p}def f():\n    import kernels_ir\n", False),
        "cupy-class-import": ("{p}class C:\n    import kernels_ir\n", False),
        "cupy-try-import": ("{p}try:\n    import kernels_ir\nexcept ImportError:\n    pass\n",
                            False),
        "cupy-dunder-import": ("{p}__import__('kernels_ir')\n", False),
        "cupy-importlib": ("{p}import importlib\nimportlib.import_module('kernels_ir')\n",
                           False),
        "cupy-exec-string": ("exec('import kernels_ir')\n{p}", False),
        "cupy-main-guard": ("if __name__ == '__main__':\n    import kernels_ir\n{p}", False),
        "cupy-decorator": ("{p}", False),
        "cupy-toplevel-import": ("import kernels_ir\n{p}", True),
        "cupy-toplevel-from-import": ("from kernels_ir import KernelBuilder\n{p}", True),
        "cupy-KERNELS-binding": ("{p}KERNELS = {{}}\n", True),
        "plain-script": (None, True),
    }
    for label, (top, runs) in variants.items():
        for verb in ("analyze", "check") if label not in ("cupy-plain", "cupy-if-false-import",
                                                          "plain-script") else (
                "analyze", "check", "codegen", "report"):
            c = cp.new("py", f"{label}:{verb}", may_run=runs)
            p = payload(c)
            if top is None:
                text = p
            elif label == "cupy-decorator":
                text = cupy_file("", small_kernel()) + (
                    f"\n\ndef deco(f):\n    {p.splitlines()[1]}\n    return f\n\n"
                    "@deco\ndef g():\n    pass\n")
            else:
                text = cupy_file(top.format(p=p), small_kernel())
            cp.put(c, "k.py", text)
            c.argv = [verb, "k.py"] if verb != "report" else [
                "report", "--no-check", "-o", "out.html", "k.py"]
            c.outputs = ("out.html",)
            c.setup = f"k.py: {label} (writes {c.token} in $HOME if it runs)"
            if runs:
                c.note = "a kernels file: Python that smemsim runs (documented)"
    # other CUDA-string compilers, and cupy calls spelled so a name test misses them
    others = {
        "pycuda-SourceModule": ("from pycuda.compiler import SourceModule\n",
                                "SourceModule(SRC)"),
        "cuda-core-Program": ("from cuda.core.experimental import Program\n",
                              "Program(SRC, 'c++')"),
        "cupy-RawModule": ("import cupy\n", "cupy.RawModule(code=SRC)"),
        "cupy-alias-RK": ("from cupy import RawKernel as RK\n", "RK(SRC, 'k')"),
        "cupy-getattr": ("import cupy\n", "getattr(cupy, 'RawKernel')(SRC, 'k')"),
        "cupy-keyword-code": ("import cupy\n", "cupy.RawKernel(code=SRC, name='k')"),
    }
    for label, (head, call) in others.items():
        for verb in ("analyze", "check"):
            c = cp.new("py", f"{label}:{verb}")
            cp.put(c, "k.py", cupy_file(payload(c), small_kernel(), call=call, head=head))
            c.argv = [verb, "k.py"]
            c.setup = f"k.py: {label} (writes {c.token} in $HOME if it runs)"
            if label in ("cupy-alias-RK", "cupy-getattr"):
                c.note = ("a cupy file whose RawKernel call is spelled so that a name test "
                          "misses it: judged as a cupy file (must be read)")
    # files that Python would refuse before any line runs, with a payload
    for label, text in (("syntax-error", "{p}\ncupy.RawKernel(SRC, 'k'\n"),
                        ("nul-byte", "{p}\x00\nimport cupy\ncupy.RawKernel('', 'k')\n"),
                        ("bad-coding-cookie", "# -*- coding: no-such-codec -*-\n{p}"
                                              "import cupy\ncupy.RawKernel('', 'k')\n")):
        for verb in ("analyze", "check"):
            c = cp.new("py", f"{label}:{verb}")
            cp.put(c, "k.py", text.format(p=payload(c)))
            c.argv = [verb, "k.py"]
            c.setup = f"k.py: {label} with a payload"
    # a cupy file with an injection name
    for verb in ("analyze", "check"):
        c = cp.new("py", f"cupy-injection-name:{verb}")
        name = f"a`cd;touch {c.token}`$(cd;touch {c.token}).py"
        cp.put(c, name, cupy_file("", small_kernel()))
        c.argv = [verb, name]
        c.setup = f"{name!r}: a cupy file"
    # modules planted beside the input and in the working folder
    for mod in ("kernels_ir", "numpy", "rich", "smemsim", "sitecustomize", "cupy"):
        for verb, f in (("analyze", "k.cu"), ("import", "k.cu"), ("analyze", "k.py")):
            c = cp.new("py", f"planted-{mod}.py:{verb}:{f}")
            cp.put(c, "k.cu")
            cp.put(c, "k.py", cupy_file("", small_kernel()))
            cp.put(c, f"{mod}.py", payload(c))
            c.argv = [verb, f]
            c.setup = f"{mod}.py (a payload) beside {f}, in the working folder"


# ----------------------------------------------------------------------------- class: launches

def launches_cases(cp: Campaign) -> None:
    """Bad option values, shell text in -D/--nvcc-flag, unknown options, `--`."""
    T = "TOKEN"
    py_inj = "__import__('os').system('cd;touch TOKEN')"
    bad = {
        "--launch-grid": ["", "0", "-1", "1,2,3,4", "abc", "1<<31", "(1", "1/0",
                          "65536,65536,65536", "9" * 5000, "1.5", py_inj, "`cd;touch TOKEN`",
                          "$(cd;touch TOKEN)", "n*n*n*n*n*n*n*n"],
        "--launch-block": ["", "0", "1024,2", "33,33", "abc", "1/0", "9" * 5000, py_inj],
        "--launch-smem": ["-1", "1e99", "abc", "1/0", "232448", "232449", py_inj],
        "-p": ["n=-256", "n=0", "n=abc", "n=", "=5", "n=1/0", "n=" + "9" * 30, "nn=5", "n",
               "n=" + py_inj],
        "--host": ["x=1", "=", "a.size(0)=`cd;touch TOKEN`", "n=" + py_inj],
        "--length": ["src=-1", "src=abc", "nope=5", "src=1<<62", "src=" + py_inj],
        "--loop-limit": ["0", "-1", "abc", "32769", "4194305", "9" * 30],
        "--regs": ["0", "-1", "256", "abc", "1e9"],
        "--arch": ["sm_0", "sm_999", "abc", "`cd;touch TOKEN`", "../../etc", ""],
        "--jobs": ["0", "-1", "abc", "100000"],
        "--fail-on-excess": ["abc", "-1", "nan", "inf"],
        "--min-occupancy": ["2", "nan"],
        "--tensor-map": ["x", "src='T float[1][1] box[1][1] 999B'", "=" * 1000],
        "--texture": ["x", "t=-1,-1"],
        "--null": ["nope", ""],
        "--kernel": ["nope", "`cd;touch TOKEN`", "\x1b[2Jk"],
        "--data": ["src=nope.npy", "src=/dev/zero", "src", "nope=k.cu"],
        "--host-file": ["/dev/zero", "nope.txt", "."],
        "-I": ["/dev/zero", "nope"],
    }
    for opt, values in bad.items():
        for v in values:
            c = cp.new("launches", f"{opt}={v[:30]!r}")
            v = v.replace(T, c.token)
            cp.put(c, "k.cu")
            c.argv = ["analyze", "k.cu", opt, v]
            c.control = controls(v)
            c.setup = "k.cu = a copy of examples/transpose.cu"
    # -D values with shell text: refused where nvcc would see them, never run
    dvals = ["X=$(cd;touch TOKEN)", "X=`cd;touch TOKEN`", "X=1;cd;touch TOKEN", 'X="a"',
             "X=\\", "X=1\ncd;touch TOKEN", "X=a|(cd;touch TOKEN)"]
    forms = {"analyze": ["analyze"], "as-compiled": ["analyze", "--as-compiled"],
             "compile": ["compile"], "fix": ["fix"], "report-regs": ["report", "--regs",
                                                                    "compile", "-o", "o.html"]}
    for v in dvals:
        for form, args in forms.items():
            c = cp.new("launches", f"-D {v[:22]!r}:{form}", timeout=90,
                       outputs=("o.html",) if form == "report-regs" else ())
            v2 = v.replace(T, c.token)
            cp.put(c, "k.cu")
            c.argv = [*args, "k.cu", "-D", v2]
            c.setup = "k.cu = a copy of examples/transpose.cu"
    flags = [["$(cd;touch TOKEN)"], ["`cd;touch TOKEN`"], ["-Xcompiler=;cd;touch TOKEN"],
             ["-Xcompiler=`cd;touch TOKEN`"], ["-o", "k.cu"], ["-odir", "."], ["--dryrun"],
             ["-DX=$(cd;touch TOKEN)"]]
    for fl in flags:
        for form, args in (("compile", ["compile"]), ("as-compiled", ["analyze",
                                                                       "--as-compiled"])):
            c = cp.new("launches", f"--nvcc-flag {' '.join(fl)[:26]!r}:{form}", timeout=90)
            cp.put(c, "k.cu")
            fl2 = [f.replace(T, c.token) for f in fl]
            c.argv = [*args, "k.cu", *[x for f in fl2 for x in ("--nvcc-flag=" + f,)]]
            c.setup = "k.cu = a copy of examples/transpose.cu"
    # unknown options, missing values, verbs
    misc = [["analyze", "k.cu", "--bogus"], ["analyze", "k.cu", "-Z"], ["analyze", "k.cu",
                                                                         "--arch"],
            ["analyze", "k.cu", "--kernel"], ["analyze", "k.cu", "--json=1"], ["analyse",
                                                                               "k.cu"],
            [""], [], ["analyze"], ["analyze", "k.cu", "extra", "junk"],
            ["explain", "k.cu", "99"], ["explain", "k.cu", "-1"], ["explain", "k.cu", "abc"],
            ["fix", "k.cu", "99"], ["--version"], ["analyze", "--help"],
            ["analyze", "k.cu", "-p", "n=32", "-p", "n=64"], ["sweep", "k.cu", "-p", "n=1:0"],
            ["sweep", "k.cu", "-p", "n=0:99999999999:1"], ["sweep", "k.cu", "--pad", "tile=-1"],
            ["sweep", "k.cu", "--swizzle", "tile=9.9.9"], ["sweep", "k.cu", "--swizzle", "x"],
            ["sweep", "k.cu", "--scheduler", "tcp://127.0.0.1:1"], ["check", "k.cu",
                                                                    "--blocks", "9:1"],
            ["check", "k.cu", "--blocks", "0:99999999999"], ["layout", "junk"],
            ["run", "k.cu"], ["validate", "k.cu"],
            ["analyze", "k.cu", "-p", "n=" + "1" * 100000]]
    for argv in misc:
        c = cp.new("launches", "argv:" + " ".join(argv)[:40], argv=argv, timeout=60)
        cp.put(c, "k.cu")
        c.setup = "k.cu = a copy of examples/transpose.cu"
        if argv in (["--version"], ["analyze", "--help"]):
            c.expect = "ok"
    # `--`: what follows is the FILE, even when it begins with '-'
    for argv in (["analyze", "--", "-x.cu"], ["check", "--", "-x.cu"], ["fix", "--", "-x.cu"],
                 ["import", "--", "-x.cu"], ["codegen", "--", "-x.cu"],
                 ["report", "--no-check", "-o", "out.html", "--", "-x.cu"],
                 ["sweep", "-p", "n=32,64", "--", "-x.cu"], ["analyze", "--json", "--", "-x.cu"],
                 ["analyze", "--", "--help.cu"], ["explain", "--", "-x.cu", "1"]):
        c = cp.new("launches", "dashdash:" + " ".join(argv), argv=argv, expect="ok",
                   outputs=("out.html",))
        cp.put(c, "-x.cu")
        cp.put(c, "--help.cu")
        c.setup = "-x.cu and --help.cu = copies of examples/transpose.cu"
    for argv in (["analyze", "-x.cu"], ["analyze", "--", "-missing.cu"]):
        c = cp.new("launches", "dashdash:" + " ".join(argv), argv=argv)
        cp.put(c, "-x.cu")
        c.setup = "-x.cu = a copy of examples/transpose.cu"


# ----------------------------------------------------------------------------- running

def npy(data: bytes, descr: str, shape: tuple) -> bytes:
    """A .npy file's bytes, written without numpy."""
    header = "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (descr, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + data


def case_env(case: Case) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMEMSIM_")}
    env.update(HOME=str(case.home), TMPDIR=str(case.tmp), SMEMSIM_CACHE=str(case.cache),
               PYTHONDONTWRITEBYTECODE="1")
    env.update(case.env)
    return env


SMEMSIM: list[str] = []
RUNNING: set[int] = set()
RUNNING_LOCK = threading.Lock()


def proc_table() -> list[tuple[int, str, int, int]]:
    """(pid, state, process group, session) of every process."""
    rows = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        rest = data[data.rfind(b")") + 2:].split()
        rows.append((int(name), rest[0].decode(), int(rest[2]), int(rest[3])))
    return rows


def group_alive(pgid: int) -> list[int]:
    """Live (not zombie) processes of the case's process group or session."""
    me = os.getpid()
    return [pid for pid, state, pgrp, sid in proc_table()
            if (pgrp == pgid or sid == pgid) and state != "Z" and pid != me]


def group_rss(pgid: int) -> int:
    total = 0
    for pid in group_alive(pgid):
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            pass
    return total


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def launch(case: Case, argv: list[str], prefix=(), timeout=60.0, sig=None) -> dict:
    """Run `smemsim argv` as the case (its cwd and environment) in a new session; stdout
    and stderr to files (an orphan holding them cannot block us)."""
    n = getattr(case, "_runs", 0)
    case._runs = n + 1
    out_p, err_p = case.dir / f"stdout{n or ''}", case.dir / f"stderr{n or ''}"
    r = {"rc": None, "timed_out": False, "mem_killed": False, "peak_rss": 0,
         "signal_at": None, "orphans": []}
    with open(out_p, "wb") as out, open(err_p, "wb") as err:
        t0 = time.monotonic()
        p = subprocess.Popen([*prefix, *SMEMSIM, *argv], cwd=case.work, env=case_env(case),
                             stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                             start_new_session=True)
        with RUNNING_LOCK:
            RUNNING.add(p.pid)
        last_rss = 0.0
        try:
            while True:
                if p.poll() is not None:
                    break
                el = time.monotonic() - t0
                if sig and r["signal_at"] is None and el >= sig[1]:
                    try:
                        (os.killpg if sig[2] == "group" else os.kill)(p.pid, sig[0])
                    except ProcessLookupError:
                        pass
                    r["signal_at"] = round(el, 2)
                if el > timeout:
                    r["timed_out"] = True
                    kill_group(p.pid)
                    p.wait()
                    break
                if el - last_rss > 0.5:
                    last_rss = el
                    rss = group_rss(p.pid)
                    r["peak_rss"] = max(r["peak_rss"], rss)
                    if rss > MEM_LIMIT:
                        r["mem_killed"] = True
                        kill_group(p.pid)
                        p.wait()
                        break
                time.sleep(0.05)
            r["wall"] = round(time.monotonic() - t0, 2)
            r["rc"] = p.returncode
            # orphans: anything of its group still alive after a grace period
            deadline = time.monotonic() + GRACE
            alive = group_alive(p.pid)
            while alive and time.monotonic() < deadline:
                time.sleep(0.1)
                alive = group_alive(p.pid)
            if alive:
                r["orphans"] = [f"{pid}: {cmdline(pid)}" for pid in alive]
                kill_group(p.pid)
        finally:
            with RUNNING_LOCK:
                RUNNING.discard(p.pid)
    r["stdout_bytes"] = out_p.read_bytes()
    r["stderr_bytes"] = err_p.read_bytes()
    r["stdout"] = r["stdout_bytes"].decode("utf-8", "replace")
    r["stderr"] = r["stderr_bytes"].decode("utf-8", "replace")
    return r


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")[:200]
    except OSError:
        return "?"


def run_plain(case: Case, cp, argv: list[str], prefix=(), timeout=180.0):
    """A helper run (a clean first run, a rerun): (rc, stdout, stderr)."""
    r = launch(case, argv, prefix=prefix, timeout=timeout)
    return r["rc"], r["stdout"], r["stderr"]


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under a folder: a file's digest, a link's target, a FIFO, a folder."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            rel = os.path.relpath(p, folder)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                snap[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                try:
                    with open(p, "rb") as f:
                        for chunk in iter(lambda: f.read(1 << 20), b""):
                            h.update(chunk)
                except OSError:
                    h.update(b"unreadable")
                snap[rel] = ("file", h.hexdigest())
            elif stat.S_ISDIR(st.st_mode):
                snap[rel] = ("dir",)
            elif stat.S_ISFIFO(st.st_mode):
                snap[rel] = ("fifo",)
            else:
                snap[rel] = ("other", stat.S_IFMT(st.st_mode))
    return snap


PARTIAL = re.compile(r"(\.tmp$|\.smemsim-|\.part$|~$)")


def find_markers(case: Case) -> list[str]:
    hits = []
    for dirpath, dirnames, filenames in os.walk(case.dir):
        for n in dirnames + filenames:
            if n in (case.token, case.token + "_sh"):
                hits.append(os.path.join(dirpath, n))
    for top in ("/tmp", str(Path.cwd()), "/", str(REPO)):
        for n in (case.token, case.token + "_sh"):
            if os.path.lexists(os.path.join(top, n)):
                hits.append(os.path.join(top, n))
    return hits


def code_fingerprint() -> str:
    """smemsim's sources as they are now (other people edit them while this runs)."""
    h = hashlib.sha256()
    for pkg in ("smemsim", "kernels_ir", "gpu_backend"):
        for p in sorted((REPO / pkg).rglob("*.py")):
            try:
                st = p.stat()
            except OSError:
                continue
            h.update(f"{p}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def run_case(case: Case, cp: Campaign) -> dict:
    res = {"id": case.cid, "class": case.cls, "name": case.name, "notes": [],
           "reasons": [], "argv": case.argv, "expect": case.expect}
    if case.note:
        res["notes"].append(case.note)
    if case.pre:
        try:
            case.pre(case, cp)
        except Exception as err:  # noqa: BLE001 - a setup that failed is reported, not judged
            res["setup_error"] = f"{type(err).__name__}: {err}"
            res["mishandled"] = False
            res["rc"] = None
            return res
    res["fingerprint"] = code_fingerprint() if case.post is sweep_interrupt_kept else None
    before = snapshot(case.work)
    r = launch(case, case.argv, prefix=case.prefix, timeout=case.timeout, sig=case.sig)
    res.update({k: v for k, v in r.items() if not k.endswith("_bytes")})
    after = snapshot(case.work)
    reasons = res["reasons"]
    rc = r["rc"]
    err_text = r["stderr"]
    signalled = case.sig is not None
    # --- never
    if r["timed_out"]:
        reasons.append(f"hang: still running after {case.timeout:.0f} s (killed)")
    if r["mem_killed"]:
        reasons.append(f"blow-up: its processes grew past {MEM_LIMIT / 2 ** 30:.0f} GiB "
                       f"(killed after {r['wall']} s)")
    if rc == 3:
        reasons.append("exit 3 (a bug of smemsim) on bad input")
    if "Traceback (most recent call last)" in err_text or \
            "Traceback (most recent call last)" in r["stdout"]:
        tb = err_text.strip().splitlines()[-1] if err_text.strip() else ""
        during_start = signalled and "KeyboardInterrupt" in err_text and not re.search(
            r'smemsim/cli/__init__\.py", line \d+, in (run|main)', err_text)
        reasons.append(("traceback (Ctrl-C during Python's start-up, before smemsim's "
                        "handlers): " if during_start else "traceback: ") + tb[:150])
    hits = find_markers(case)
    if hits and not case.may_run:
        reasons.append("code run: marker created: " + ", ".join(hits))
    elif hits:
        res["notes"].append("ran the kernels file (documented): " + ", ".join(hits))
    if r["orphans"]:
        reasons.append("orphan process(es) alive after exit: " + "; ".join(r["orphans"]))
    # --- files: nothing that existed changes, nothing partial is left
    for rel, sig_before in before.items():
        now = after.get(rel)
        if now != sig_before and rel not in case.may_change:
            what = "removed" if now is None else "changed"
            reasons.append(f"input {what}: {rel!r}")
    new = [rel for rel in after if rel not in before]
    allowed = set(case.outputs)

    def under_output(rel):
        return any(rel == o or rel.startswith(o.rstrip("/") + "/") for o in allowed)
    for rel in new:
        if PARTIAL.search(os.path.basename(rel)):
            reasons.append(f"partial/temporary file left: {rel!r}")
        elif rc in (0, 1):
            if not under_output(rel):
                reasons.append(f"stray file created: {rel!r}")
        elif not (signalled and under_output(rel)):   # an interrupt may leave a whole output
            reasons.append(f"file left after a failed run (exit {rc}): {rel!r}")
    left_tmp = os.listdir(case.tmp) if case.tmp.is_dir() else []
    if case.prefix and case.prefix[0] == "prlimit" and left_tmp and all(
            n.startswith("tmpxft_") for n in left_tmp):
        # RLIMIT_FSIZE kills nvcc too (SIGXFSZ), which leaves its own tmpxft_ files: an
        # artifact of the simulated full disk, not smemsim's
        res["notes"].append("nvcc, killed by the simulated full disk, left its tmpxft_ files")
        left_tmp = []
    partial = [str(p.relative_to(case.cache)) for p in case.cache.rglob("*")
               if PARTIAL.search(p.name)] if case.cache.is_dir() else []
    if (left_tmp or partial) and (r["timed_out"] or r["mem_killed"]):
        # killed with SIGKILL by this campaign: what it left is ours to explain, not its
        res["notes"].append("left temporary files when killed: " + ", ".join(
            (left_tmp + partial)[:5]))
        left_tmp = partial = []
    if left_tmp and all(n.startswith("tmpxft_") for n in left_tmp):
        reasons.append("nvcc's temporary files (tmpxft_*) left in $TMPDIR: " +
                       ", ".join(map(repr, sorted(left_tmp)[:4])))
    elif left_tmp:
        reasons.append("temporary files left in $TMPDIR: " + ", ".join(map(repr, left_tmp[:5])))
    if partial:
        reasons.append("partial cache entries left: " + ", ".join(partial[:5]))
    # --- how it ended
    lines = [ln for ln in err_text.splitlines() if ln.strip()]
    if rc == 2:
        errs = [ln for ln in lines if ln.startswith("error:")]
        other = [ln for ln in lines if not ln.startswith(("error:", "note:", "warning:"))]
        if len(errs) != 1 or other:
            reasons.append(f"error not one line ({len(errs)} error line(s), {len(other)} other"
                           f" line(s)): " + " | ".join((other or errs or ["(none)"])[:3])[:200])
        elif len(errs[0].strip()) < len("error: ") + 3:
            reasons.append("empty error message")
    if signalled:
        if rc not in (0, 130, 143, -2, -15) and not r["timed_out"]:
            reasons.append(f"interrupt: unexpected exit {rc}")
    elif rc is not None and rc not in (0, 1, 2, 3) and not r["timed_out"] and \
            not r["mem_killed"]:
        reasons.append(f"unexpected exit {rc}")
    if case.expect == "refuse" and rc is not None and rc != 2 and not r["timed_out"]:
        reasons.append(f"not refused: exit {rc} (a write it must refuse)")
    if case.expect == "ok" and rc not in (0, 1) and not r["timed_out"]:
        reasons.append(f"failed where it should work: exit {rc}: " +
                       (lines[-1] if lines else "")[:200])
    # --- control characters of names reach the terminal raw
    for ch in case.control:
        if ch in r["stdout"] or ch in r["stderr"]:
            reasons.append(f"raw control character {ch!r} from a name reached the output")
    if case.post:
        try:
            reasons.extend(case.post(case, res))
        except Exception as err:  # noqa: BLE001
            res["notes"].append(f"post-check failed: {type(err).__name__}: {err}")
    if r.get("wall", 0) > SLOW and not r["timed_out"]:
        res["notes"].append(f"slow: {r['wall']} s")
    if rc == 2 and lines and "no such file" in err_text and case.name.startswith("special:") \
            and not any(x in case.name for x in ("missing", "dangling")):
        res["notes"].append("says 'no such file' for a path that exists: " + lines[-1][:150])
    res["mishandled"] = bool(reasons)
    return res


def fix_patch_applies(case: Case, res: dict) -> list[str]:
    """The diff `fix` printed (or wrote with --patch) applies to the user's file."""
    if res["rc"] != 0:
        return []
    text = None
    if "--patch" in case.argv:
        p = case.work / case.argv[case.argv.index("--patch") + 1]
        if p.is_file():
            text = p.read_text(errors="surrogateescape")
    else:
        lines = res["stdout"].splitlines(keepends=True)
        start = next((i for i, ln in enumerate(lines) if ln.startswith("--- ")), None)
        if start is not None:
            body = []
            for ln in lines[start:]:
                if ln.startswith(("--- ", "+++ ", "@@", " ", "+", "-", "\\", "diff ")) or \
                        ln.strip() == "":
                    body.append(ln)
                else:
                    break
            text = "".join(body)
    if not text:
        return []
    pf = case.dir / "fix.diff"
    pf.write_text(text, errors="surrogateescape")
    # git apply reads git's quoted names ("a/k\nx.cu"); GNU patch skips some plain names
    tool = ["git", "apply", "--check", "-p1", str(pf)] if shutil.which("git") else \
        ["patch", "-p1", "--dry-run", "-f", "-s", "-i", str(pf)]
    r = subprocess.run(tool, cwd=case.work, capture_output=True, text=True, timeout=60,
                       errors="replace", env={**os.environ, "GIT_CEILING_DIRECTORIES":
                                              str(case.dir)})
    if r.returncode != 0:
        return [f"fix's patch does not apply ({' '.join(tool[:2])}): "
                f"{(r.stdout + r.stderr).strip()[:200]}"]
    return []


# ----------------------------------------------------------------------------- reporting

def sh(arg: str) -> str:
    """A shell word for a reproducer ($'...' where it holds control or non-UTF-8 bytes)."""
    if arg and all(c.isprintable() for c in arg) and not any(0xdc80 <= ord(c) <= 0xdcff
                                                             for c in arg):
        return shlex.quote(arg)
    out = []
    for b in os.fsencode(arg):
        c = chr(b)
        out.append("\\'" if c == "'" else "\\\\" if c == "\\" else c if 32 <= b < 127
                   else f"\\x{b:02x}")
    return "$'" + "".join(out) + "'"


def reproducer(case: Case) -> str:
    env = case_env(case)
    parts = [f"cd {sh(str(case.work))} &&", f"HOME={sh(env['HOME'])}",
             f"TMPDIR={sh(env['TMPDIR'])}", f"SMEMSIM_CACHE={sh(env['SMEMSIM_CACHE'])}",
             *map(sh, case.prefix), "smemsim", *map(sh, case.argv)]
    return " ".join(parts)


def cause_of(reason: str) -> str:
    for key in ("code run", "hang", "nvcc's temporary files", "blow-up", "exit 3",
                "traceback (Ctrl-C", "traceback",
                "orphan", "input changed", "input removed", "partial", "file left after",
                "stray file", "temporary files left", "temporary folders", "error not one line",
                "empty error", "not refused", "failed where it should work",
                "raw control character", "tampered cache entry trusted", "sweep interrupt",
                "fix's patch", "full disk", "interrupt: unexpected", "unexpected exit"):
        if reason.startswith(key):
            return key
    return reason.split(":")[0]


def report(results: list[dict], cases: dict[str, Case], out: Path, root: Path,
           globals_: list[str]) -> None:
    by_cls: dict[str, list[dict]] = {}
    for r in results:
        by_cls.setdefault(r["class"], []).append(r)
    print("\n" + "=" * 78)
    print(f"{'class':<10} {'cases':>6} {'ok':>6} {'mishandled':>11} {'setup failed':>13}")
    tot = [0, 0, 0, 0]
    for cls in CLASSES:
        rs = by_cls.get(cls, [])
        if not rs:
            continue
        bad = sum(r["mishandled"] for r in rs)
        setup = sum(1 for r in rs if r.get("setup_error"))
        row = [len(rs), len(rs) - bad - setup, bad, setup]
        tot = [a + b for a, b in zip(tot, row)]
        print(f"{cls:<10} {row[0]:>6} {row[1]:>6} {row[2]:>11} {row[3]:>13}")
    print(f"{'total':<10} {tot[0]:>6} {tot[1]:>6} {tot[2]:>11} {tot[3]:>13}")
    bad = [r for r in results if r["mishandled"]]
    if bad:
        print("\nMISHANDLED, by cause:")
        causes: dict[str, list[dict]] = {}
        for r in bad:
            for c in sorted({cause_of(x) for x in r["reasons"]}):
                causes.setdefault(c, []).append(r)
        for c, rs in sorted(causes.items(), key=lambda kv: -len(kv[1])):
            print(f"\n## {c} ({len(rs)} case(s))")
            for r in rs:
                case = cases[r["id"]]
                print(f"- {r['id']} [{r['class']}] {r['name']!r}: exit {r['rc']}, "
                      f"{r.get('wall')} s")
                for x in r["reasons"]:
                    print(f"    reason: {x[:300]!r}" if any(ord(ch) < 32 for ch in x)
                          else f"    reason: {x[:300]}")
                print(f"    stderr: {r.get('stderr', '')[-300:]!r}")
                print(f"    setup:  {case.setup}")
                print(f"    repro:  {reproducer(case)}")
    setup_failed = [r for r in results if r.get("setup_error")]
    if setup_failed:
        print("\nSETUP FAILED (not judged):")
        for r in setup_failed:
            print(f"- {r['id']} {r['name']!r}: {r['setup_error'][:300]}")
    noted = [r for r in results if r["notes"]]
    if noted:
        print("\nNOTES (not counted as mishandled):")
        for r in noted:
            print(f"- {r['id']} {r['name']!r}: " + "; ".join(r["notes"])[:300])
    if globals_:
        print("\nGLOBAL FINDINGS:")
        for g in globals_:
            print(f"- {g}")
    doc = {"root": str(root), "smemsim": SMEMSIM, "results": [
        {**{k: v for k, v in r.items()}, "setup": cases[r["id"]].setup,
         "repro": reproducer(cases[r["id"]])} for r in results], "global": globals_}
    out.write_text(json.dumps(doc, indent=1, default=str))
    print(f"\nresults: {out}\ncase folders (reproducers run there): {root}")


# ----------------------------------------------------------------------------- main

def find_smemsim(given: str | None) -> list[str]:
    if given:
        return shlex.split(given)
    # the console script beside this interpreter (a pyenv shim would add a shell layer)
    beside = Path(sys.executable).parent / "smemsim"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("smemsim")
    return [found] if found else [sys.executable, "-m", "smemsim"]


def build_sweep_doc(cp: Campaign) -> dict:
    """A real `sweep --json` document (for --sweep-result mutations)."""
    c = Case("template", "template", "template", cp.root / "template")
    for sub in ("work", "home", "tmp", "cache"):
        (c.dir / sub).mkdir(parents=True, exist_ok=True)
    (c.work / "k.cu").write_text(cp.kernel)
    rc, out, err = run_plain(c, cp, ["sweep", "k.cu", "-p", "n=32,64,96", "--pad", "tile=0,1",
                                     "--json"])
    try:
        doc = json.loads(out)
        if doc["results"][0]["kind"] == "sweep":
            return doc
    except (ValueError, KeyError, IndexError, TypeError):
        pass
    print(f"warning: no sweep --json document (exit {rc}: {err[-200:]}); using a built one")
    point = {"params": {"n": 32}, "arch": "sm_90", "layouts": [], "requests": 64,
             "wavefronts": 1056, "ideal": 64, "excess": 992, "smem_per_block": 4096,
             "smem_blocks": 45, "registers": None, "active_warps": None, "occupancy": None,
             "rank": 1, "pareto": True, "error": None}
    return {"schema": "smemsim/1", "results": [{"kind": "sweep", "kernel": "transpose",
                                                "cached": 0, "points": [point]}],
            "exit_code": 0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="classes to run, comma-separated: " + ", ".join(CLASSES))
    ap.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    ap.add_argument("--out", default="/tmp/trust_campaign.json", help="JSON of all results")
    ap.add_argument("--limit", type=int, default=0, help="at most N cases per class (a trial)")
    ap.add_argument("--match", help="only cases whose name contains this text")
    ap.add_argument("--redo", action="append", default=[], metavar="RESULTS.json",
                    help="only the cases mishandled in an earlier run's --out file "
                         "(repeatable)")
    ap.add_argument("--timeout", type=float, default=None, help="override every case's limit")
    ap.add_argument("--smemsim", help="the command to test (default: the installed smemsim)")
    ap.add_argument("--list", action="store_true", help="list the cases, run none")
    ap.add_argument("--clean", action="store_true", help="remove the case folders at the end")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else set(CLASSES)
    unknown = only - set(CLASSES)
    if unknown:
        ap.error(f"unknown class(es): {', '.join(sorted(unknown))}")
    redo = None
    for path in args.redo:
        redo = redo or set()
        redo |= {(r["class"], r["name"]) for r in json.loads(Path(path).read_text())["results"]
                 if r.get("mishandled")}
    global SMEMSIM
    SMEMSIM = find_smemsim(args.smemsim)
    # a shell's background job starts with SIGINT ignored, and children inherit that: the
    # cases must get SIGINT's default action (Python's Ctrl-C) whatever started this script
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    root = Path(tempfile.mkdtemp(prefix="trust_campaign_", dir="/tmp"))
    print(f"campaign folder: {root}\nsmemsim: {' '.join(SMEMSIM)}\nrunning as uid "
          f"{os.geteuid()}{' (root: permission cases do not bite)' if os.geteuid() == 0 else ''}")
    cp = Campaign(root, SMEMSIM)
    if "caches" in only and not args.list:
        cp.sweep_doc = build_sweep_doc(cp)
    elif "caches" in only:
        cp.sweep_doc = {"schema": "smemsim/1", "results": [{"kind": "sweep", "points": [{}]}]}
    builders = {"paths": paths_cases, "outputs": outputs_cases, "signals": signals_cases,
                "caches": caches_cases, "bombs": bombs_cases, "py": py_cases,
                "launches": launches_cases}
    for cls in CLASSES:
        if cls in only:
            start = len(cp.cases)
            builders[cls](cp)
            made = cp.cases[start:]
            if args.match:
                made = [c for c in made if args.match in c.name]
            if redo is not None:
                made = [c for c in made if (c.cls, c.name) in redo]
            if args.limit:
                made = made[:args.limit]
            cp.cases[start:] = made
    if args.timeout:
        for c in cp.cases:
            c.timeout = args.timeout
    print(f"{len(cp.cases)} cases: " + ", ".join(
        f"{cls} {sum(c.cls == cls for c in cp.cases)}" for cls in CLASSES if cls in only))
    if args.list:
        for c in cp.cases:
            print(f"{c.cid} {c.cls:<9} {c.name!r}  smemsim {' '.join(map(sh, c.argv))}")
        shutil.rmtree(root, ignore_errors=True)
        return 0
    tmp_before = set(os.listdir("/tmp"))
    results: list[dict] = []
    done = [0]
    total = len(cp.cases)
    lock = threading.Lock()
    t_start = time.monotonic()

    def one(case: Case) -> dict:
        res = run_case(case, cp)
        for _ in range(2):   # smemsim's source changed under a cache case: once more
            if not res.get("vacuous"):
                break
            shutil.rmtree(case.cache, ignore_errors=True)
            case.cache.mkdir()
            res = run_case(case, cp)
            res["notes"].append("run again: the cache keys changed during the first try")
        with lock:
            done[0] += 1
            state = "SETUP FAILED" if res.get("setup_error") else \
                "MISHANDLED" if res["mishandled"] else "ok"
            print(f"[{done[0]:>4}/{total}] {time.monotonic() - t_start:7.0f}s {case.cid} "
                  f"{case.cls:<9} {case.name[:60]!r:<64} exit {res.get('rc')} "
                  f"{res.get('wall', '-')}s {state}", flush=True)
            if res["mishandled"]:
                for x in res["reasons"]:
                    print(f"        {x[:200]!r}", flush=True)
        return res
    parallel = [c for c in cp.cases if not c.serial]
    serial = [c for c in cp.cases if c.serial]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results.extend(pool.map(one, parallel))
        for c in serial:
            results.append(one(c))
    except KeyboardInterrupt:
        with RUNNING_LOCK:
            for pid in list(RUNNING):
                kill_group(pid)
        print("interrupted: reporting the cases that finished")
    # anything left where no case could be named
    globals_ = []
    stray = sorted(n for n in set(os.listdir("/tmp")) - tmp_before
                   if n.startswith(("smemsim", "tmpxft", "tmp")) and not n.startswith(
                       "trust_campaign_"))
    if stray:
        globals_.append("new entries in /tmp during the campaign (another process may have "
                        "made some): " + ", ".join(stray[:20]))
    for top in ("/tmp", str(REPO), "/", str(Path.cwd())):
        try:
            marks = [n for n in os.listdir(top) if re.fullmatch(r"MARK_c\d{4}(_sh)?", n)]
        except OSError:
            continue
        if marks:
            globals_.append(f"marker files in {top}: {', '.join(marks)}")
    cases = {c.cid: c for c in cp.cases}
    results.sort(key=lambda r: r["id"])
    report(results, cases, Path(args.out), root, globals_)
    if args.clean:
        for c in cp.cases:   # chmod 000 files and the like
            for p in c.work.rglob("*"):
                try:
                    if not p.is_symlink():
                        os.chmod(p, 0o700)
                except OSError:
                    pass
        shutil.rmtree(root, ignore_errors=True)
    return 1 if any(r["mishandled"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

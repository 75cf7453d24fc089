#!/usr/bin/env python3
"""Recompile every nvcc entry of corpus.json to PTX and print a table.

For each entry without a "dsl" field, runs (from this folder)
    nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 -O3 -I<entry's folder> <nvcc_flags...> FILE -o TMP/x.ptx
into a temporary folder, then counts the PTX lines that match
ld.shared / st.shared / atom.shared / red.shared / ldmatrix / stmatrix / cp.async.
Include paths in nvcc_flags are relative to this folder.

Exit status 1 if an entry recorded as ptx_ok: true no longer compiles.
Usage: check_ptx.py [-j N] [SUBSTRING ...]   (substrings filter entries by file name)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
PAT = re.compile(r"ld\.shared|st\.shared|atom\.shared|red\.shared|ldmatrix|stmatrix|cp\.async")


def compile_one(entry, tmp):
    rel = entry["file"]
    out = os.path.join(tmp, rel.replace("/", "__") + ".ptx")
    cmd = ["nvcc", "-ptx", "-lineinfo", "-arch=sm_90", "-std=c++17", "-O3",
           "-I" + os.path.dirname(rel)] + list(entry.get("nvcc_flags") or []) + [rel, "-o", out]
    t = time.time()
    r = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    dt = time.time() - t
    n = None
    if r.returncode == 0:
        with open(out) as f:
            n = sum(1 for line in f if PAT.search(line))
    return rel, r.returncode == 0, dt, n, r.stderr


def main(argv):
    jobs = 1
    if argv[:1] == ["-j"]:
        jobs, argv = int(argv[1]), argv[2:]
    with open(os.path.join(HERE, "corpus.json")) as f:
        manifest = json.load(f)
    entries = [e for e in manifest["entries"] if not e.get("dsl")]
    if argv:
        entries = [e for e in entries if any(s in e["file"] for s in argv)]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs) as pool:
        print(f"{'file':<100} {'ok':<5} {'seconds':>8} {'shared':>7} {'recorded':>8}")
        for e, (rel, ok, dt, n, err) in zip(entries, pool.map(lambda e: compile_one(e, tmp), entries)):
            print(f"{rel:<100} {str(ok):<5} {dt:8.1f} {str(n):>7} {str(e.get('shared_accesses_in_ptx')):>8}", flush=True)
            if e.get("ptx_ok") and not ok:
                bad += 1
                print(err[-2000:], file=sys.stderr)
    dsl = [e for e in manifest["entries"] if e.get("dsl")]
    print(f"{len(entries)} nvcc entries checked, {bad} regressions; {len(dsl)} DSL entries (not compiled with nvcc)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

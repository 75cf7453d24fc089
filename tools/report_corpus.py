"""Write `smemsim report` pages of every corpus kernel that imports and runs (tests/corpus),
open each in headless Chromium, and print one line each: the page's size and time, and
whether it opened with its script done and no console message (#26's bar).

    python3 tools/report_corpus.py OUTDIR [--no-check] [--only SUBSTRING]
"""
from __future__ import annotations

import io
import json
import pathlib
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPUS = ROOT / "tests" / "corpus"


def command(entry: dict, out: pathlib.Path) -> list[str]:
    """The report command line of one corpus entry (its options as a user writes them)."""
    argv = ["report", str(CORPUS / entry["file"]), "--kernel", entry["kernel"], "--regs", "64",
            "-o", str(out), "--force"]
    argv += [f"-D{k}={v}" for k, v in entry.get("defines", {}).items()]
    argv += [f"-I{CORPUS / d}" for d in entry.get("include", [])]
    # the corpus's own build: its headers from elsewhere and its flags (corpus.json)
    build = json.loads((CORPUS / "corpus.json").read_text())["build"]
    argv += [f"-I{CORPUS / d}" for d in build["include"]]
    argv += [f"--nvcc-flag={f}" for f in [*build["flags"], *entry.get("nvcc_flags", [])]]
    for key, flag in (("grid", "--launch-grid"), ("block", "--launch-block"),
                      ("smem", "--launch-smem")):
        if entry.get(key) is not None:
            argv += [flag, str(entry[key])]
    argv += [f"--length={k}={v}" for k, v in entry.get("lengths", {}).items()]
    argv += [f"-p{k}={v}" for k, v in entry.get("params", {}).items()]
    argv += [f"--host={k}={v}" for k, v in entry.get("hosts", {}).items()]
    argv += [f"--tensor-map={k}={v}" for k, v in entry.get("tensor_maps", {}).items()]
    argv += [f"--texture={k}={v}" for k, v in entry.get("textures", {}).items()]
    argv += [f"--null={name}" for name in entry.get("nulls", [])]
    argv += [f"--host-file={CORPUS / f}" for f in entry.get("host_files", [])]
    return argv


def opens(browser: str, page: pathlib.Path, profile: pathlib.Path) -> str | None:
    """None if the page opened with its script done and nothing on the console, else why."""
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                          "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True,
                         timeout=300)
    body = re.search(r"<body[^>]*>", run.stdout)
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line]
    if body is None or 'data-ready="1"' not in body.group(0) or "data-error" in body.group(0):
        return f"script did not finish: {body.group(0) if body else 'no body'}"
    return f"console: {console[0]}" if console else None


def main(argv: list[str]) -> int:
    from rich.console import Console

    from smemsim.cli import run
    out_dir = pathlib.Path(argv[0])
    out_dir.mkdir(parents=True, exist_ok=True)
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    browser = shutil.which("chromium") or shutil.which("google-chrome")
    entries = json.loads((CORPUS / "corpus.json").read_text())["entries"]
    opened = tried = 0
    for n, entry in enumerate(entries):
        if "refused" in entry or "fault" in entry or only not in entry["file"]:
            continue
        tried += 1
        page = out_dir / f"{n:03d}.html"
        args = command(entry, page) + (["--no-check"] if "--no-check" in argv else [])
        start = time.perf_counter()
        err = io.StringIO()
        code = run(args, Console(file=io.StringIO()), Console(file=err, width=200))
        took = time.perf_counter() - start
        name = f"{entry['file']}:{entry['kernel']}"
        if code != 0:
            print(f"FAIL {name}: exit {code}: {err.getvalue().strip().splitlines()[-1]}")
            continue
        why = opens(browser, page, out_dir / "profile") if browser else "no Chromium"
        opened += why is None
        print(f"{'OK  ' if why is None else 'FAIL'} {name}: {page.stat().st_size / 1e6:.2f} MB "
              f"in {took:.2f} s" + (f": {why}" if why else ""), flush=True)
    print(f"{opened} of {tried} pages open with no error")
    return 0 if opened == tried else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

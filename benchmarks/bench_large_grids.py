"""`analyze` of a 2-D image kernel over grids up to CUDA's largest (#28: every legal launch
in bounded memory).

The kernel (tests/test_cli.py's BLUR) guards its tile loads by `x < W && y < H`: its slice
reads both block axes, each guard one. Each point runs in a fresh process (wall time with
the imports, peak RSS of the child); `--before` also runs it with the axis-by-axis classes
turned off (smemsim.launch.trace.SEPARABLE_BLOCKS), where that finishes within LIMIT_S.
Target: 65,535 x 65,535 blocks in under 5 s and 1 GB.
"""
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LIMIT_S = 300
SIDES = [4096, 65536, 262144, 65535 * 16]   # pixels a side: grids of 256^2 .. 65,535^2

CHILD = r"""
import sys
sys.path.insert(0, {root!r})
if {before!r}:
    import smemsim.launch.trace as trace
    trace.SEPARABLE_BLOCKS = 1 << 62
import resource
from smemsim.cli import main
sys.argv = ["smemsim", "analyze", {path!r}, "-p", "W={n}", "-p", "H={n}", "--length",
            "in={nn}", "--length", "out={nn}"]
try:
    main()
except SystemExit as end:
    code = end.code
else:
    code = 0
print("PEAK", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


def point(path: str, n: int, before: bool) -> str:
    """Wall seconds and peak MB of one analyze in a child process."""
    code = CHILD.format(root=str(ROOT), before=before, path=path, n=n, nn=n * n)
    started = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return f"> {LIMIT_S} s"
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        said = (proc.stdout + proc.stderr).strip().splitlines()
        last = said[-1][:70] if said else f"exit {proc.returncode}: killed, out of memory?"
        return f"failed after {wall:.1f} s ({last})"
    peak = int(proc.stderr.split("PEAK")[-1]) / 1024
    return f"{wall:.2f} s, {peak:.0f} MB"


def main():
    sys.path.insert(0, str(ROOT / "tests"))
    from test_cli import BLUR
    before = "--before" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        path = str(pathlib.Path(tmp) / "blur.cu")
        pathlib.Path(path).write_text(BLUR)
        for n in SIDES:
            grid = -(-n // 16)
            row = f"{n:>8} px ({grid:,}^2 blocks): {point(path, n, False)}"
            if before and n <= 262144:
                row += f"; before: {point(path, n, True)}"
            print(row, flush=True)


if __name__ == "__main__":
    main()

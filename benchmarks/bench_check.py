"""`smemsim check` on every example kernel at its default size: wall time and peak memory,
each in a fresh process (one core), as a user or a CI job runs it.

Target (issue #15): under 60 s and 2 GB each. A check that exceeds LIMIT_S is stopped and
reported as such.
"""
import sys
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LIMIT_S = 600

from smemsim.frontends.loader import load_kernels  # noqa: E402

from child import measure  # noqa: E402


def run(file: str, key: str) -> tuple[float, float, str]:
    """(seconds, peak MB, the command's last line) of one check."""
    c = measure([sys.executable, "-m", "smemsim", "check", file, "--kernel", key], LIMIT_S)
    return c.wall, c.peak_mb, c.last


def main() -> None:
    files = sorted(p for p in (ROOT / "examples").glob("*.py") if p.name != "__init__.py")
    wanted = sys.argv[1:]
    print(f"{'kernel':<42} {'s':>7} {'MB':>7}  result")
    for path in files:
        try:
            keys = list(load_kernels(str(path)))
        except Exception:  # a module with no KERNELS (gf256, rs_encoder: libraries)
            continue
        for key in keys:
            label = f"{path.stem}:{key}"
            if wanted and not any(w in label for w in wanted):
                continue
            seconds, peak, last = run(str(path), key)
            print(f"{label:<42} {seconds:7.1f} {peak:7.0f}  {last[:70]}", flush=True)


if __name__ == "__main__":
    main()

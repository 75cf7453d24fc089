"""`smemsim-pre-commit FILE...`: the gates of a pre-commit hook (.pre-commit-hooks.yaml),
for every CUDA file a commit changes: `smemsim analyze --fail-on-excess RATIO` and
`smemsim check`, each finding a compiler diagnostic (`--format gcc`), exit 1 when a gate
fails (2 for a file smemsim cannot read, unless --skip-unreadable).

    smemsim-pre-commit [--fail-on-excess RATIO] [--no-check] [--skip-unreadable]
                       [-- ANALYZE AND CHECK OPTIONS] FILE...
"""
from __future__ import annotations

import argparse
import sys

from .common import EXIT_GATE, EXIT_INPUT, EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Gate each file; the worst exit code of all."""
    from . import run
    p = argparse.ArgumentParser(prog="smemsim-pre-commit", description=__doc__.split("\n")[0])
    p.add_argument("--fail-on-excess", default="0.25", metavar="RATIO",
                   help="analyze's gate (default 0.25: excess over a quarter of ideal)")
    p.add_argument("--no-check", action="store_true", help="skip the race and fault check")
    p.add_argument("--skip-unreadable", action="store_true",
                   help="a file smemsim cannot read (a header, a launch it cannot know) is "
                        "said and passes instead of failing the hook")
    p.add_argument("--option", action="append", default=[], metavar="OPTION",
                   help="one more word for analyze and check (repeatable: --option=-DTILE=32)")
    p.add_argument("files", nargs="*", help="the CUDA files (pre-commit passes them)")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    worst = EXIT_OK
    for f in args.files:
        verbs = [["analyze", "--fail-on-excess", args.fail_on_excess]] + \
            ([] if args.no_check else [["check"]])
        for verb in verbs:
            code = run([*verb, "--format", "gcc", *args.option, "--", f])
            if code == EXIT_INPUT and args.skip_unreadable:
                print(f"smemsim-pre-commit: {f}: not read (see above); passed by "
                      "--skip-unreadable", file=sys.stderr)
                continue
            worst = max(worst, code if code in (EXIT_GATE, EXIT_INPUT) else
                        EXIT_INPUT if code else EXIT_OK)
            if code == EXIT_INPUT:
                break   # (check cannot read what analyze could not)
    return worst


if __name__ == "__main__":
    sys.exit(main())

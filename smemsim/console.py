"""The `smemsim` console script: the command, quiet when interrupted while it loads."""
from __future__ import annotations

import sys

EXIT_INTERRUPTED = 128 + 2   # as smemsim.cli's: a process ended by SIGINT reports 130


def main() -> None:
    """Load the command line and run it. Its modules take about half a second to load; a
    Ctrl-C then ends the command as one later does (a line, exit 130), not with a traceback
    from whichever import it interrupted (the package itself imports nothing until asked)."""
    try:
        from smemsim.cli import main as command
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
    command()

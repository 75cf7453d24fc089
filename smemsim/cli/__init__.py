"""The smemsim command: the layer on top of the analyses and gpu_backend.

`run(argv, console)` does the work and returns the exit code (tests call it in-process);
`main()` is the console script. Each verb is a module of `verbs`; options shared by verbs
are declared once in `options`, JSON is built only in `jsonout`, terminal views only in
`render`. Exit codes: 0 fine, 1 a gate failed, 2 bad input. Errors are one line naming what
is wrong and where; `--debug` shows the traceback.
"""
from __future__ import annotations

import argparse
import sys
import traceback

from rich.console import Console

from kernels_ir import KernelError

from ..arch import ArchError
from ..banks import RequestError
from ..occupancy import OccupancyError
from .common import EXIT_INPUT, EXIT_OK
from .verbs import VERBS

_INPUT_ERRORS = (KernelError, ArchError, RequestError, OccupancyError, KeyError)


def create_parser() -> argparse.ArgumentParser:
    """The top-level parser (its sub-commands are the verb parsers, for --help)."""
    p = argparse.ArgumentParser(prog="smemsim", description=(
        "Shared-memory bank conflicts and occupancy of CUDA kernels described in kernels_ir."))
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    p.add_argument("--version", action="version", version=f"smemsim {_version()}")
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb, module in VERBS.items():
        sub.add_parser(verb, help=module.HELP, add_help=False)
    return p


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("smemsim")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def verb_parser(verb: str) -> argparse.ArgumentParser:
    """The parser of one verb."""
    module = VERBS[verb]
    p = argparse.ArgumentParser(prog=f"smemsim {verb}", description=module.HELP)
    module.add_arguments(p)
    return p


def run(argv: list[str], console: Console | None = None) -> int:
    """Run the command line; return the exit code."""
    console = console or Console()
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    try:
        if not argv or argv[0] not in VERBS:
            create_parser().parse_args(argv)  # prints usage, help or the version, then exits
            return EXIT_INPUT
        args = verb_parser(argv[0]).parse_intermixed_args(argv[1:])
    except SystemExit as exit_:
        return EXIT_OK if exit_.code == 0 else EXIT_INPUT
    try:
        return VERBS[argv[0]].execute(args, console)
    except _INPUT_ERRORS as err:
        if debug:
            console.print(traceback.format_exc(), markup=False, highlight=False)
        message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
        return EXIT_INPUT


def main() -> None:
    """The console script."""
    sys.exit(run(sys.argv[1:]))

"""The smemsim command: the layer on top of the analyses and gpu_backend.

`run(argv, console)` does the work and returns the exit code (tests call it in-process);
`main()` is the console script. Each verb is a module of `verbs`; options shared by verbs
are declared once in `options`, JSON is built only in `jsonout`, terminal views only in
`render`. Exit codes: 0 fine, 1 a gate failed, 2 bad input, 3 a bug in smemsim. Errors are
one line on stderr naming what is wrong and where (with `--json`, also a JSON error object on
stdout); `--debug` shows the traceback.
"""
from __future__ import annotations

import argparse
import errno
import os
import re
import sys
import traceback

from rich.console import Console

from kernels_ir import KernelError, KernelRuntimeError

from ..engine.arch import ArchError
from ..engine.banks import RequestError
from ..launch.occupancy import OccupancyError
from . import jsonout
from .common import EXIT_BUG, EXIT_INPUT, EXIT_OK, print_json, say
from .verbs import VERBS, verb as verb_module

EXIT_CLOSED_PIPE = 128 + 13  # 141: as a process ended by SIGPIPE reports it
EXIT_INTERRUPTED = 128 + 2   # 130: as a process ended by SIGINT (Ctrl-C) reports it
EXIT_TERMINATED = 128 + 15   # 143: as a process ended by SIGTERM reports it


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the process is, so that every `finally` and `with` runs (private
    copies removed, finished sweep points kept, workers ended), as for Ctrl-C."""


class UsageError(Exception):
    """A command line argparse cannot take: an unknown option, a bad value, a missing FILE."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors as exceptions, so they become one line (and JSON) like
    every other bad input instead of a usage block and a bare exit."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


_INPUT_ERRORS = (KernelError, ArchError, RequestError, OccupancyError, UsageError)


def create_parser() -> argparse.ArgumentParser:
    """The top-level parser (its sub-commands are the verb parsers, for --help)."""
    p = _Parser(prog="smemsim", description=(
        "Shared-memory bank conflicts and occupancy of CUDA kernels: a .cu as nvcc builds "
        "it, Triton, numba, cupy and pycuda kernels, or a kernels_ir Python file."))
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    p.add_argument("--version", action="version", version=f"smemsim {_version()}")
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb in VERBS:  # imports every verb: only for --help and mistakes
        sub.add_parser(verb, help=verb_module(verb).HELP, add_help=False)
    return p


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("smemsim")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


# what every verb's --help ends with: the words the reports use
_TERMS = """\
terms: a request is one warp's execution of a shared-memory instruction; a wavefront is one
pass of the shared-memory pipeline (a request without bank conflicts takes as few as its
bytes allow: its ideal); excess = wavefronts - ideal, what Nsight Compute calls bank
conflicts."""


def verb_parser(verb: str) -> argparse.ArgumentParser:
    """The parser of one verb (its --help ends with examples and the terms)."""
    module = verb_module(verb)
    examples = getattr(module, "EXAMPLES", "")
    p = _Parser(prog=f"smemsim {verb}", description=module.HELP,
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog=(f"examples:\n{examples}\n\n" if examples else "") + _TERMS)
    module.add_arguments(p)
    return p


def run(argv: list[str], console: Console | None = None,
        errors: Console | None = None) -> int:
    """Run the command line; return the exit code. Results go to `console` (stdout), error
    lines to `errors` (stderr)."""
    console = console or _Console(width=_unwrapped(sys.stdout))
    errors = errors or _Console(stderr=True, width=_unwrapped(sys.stderr))
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    try:
        if any("\x00" in a for a in argv):  # no shell passes one; a path cannot hold one
            raise UsageError(f"argument {next(i for i, a in enumerate(argv, 1) if chr(0) in a)}"
                             " holds a NUL byte")
        if not argv or argv[0] not in VERBS:
            create_parser().parse_args(argv)  # prints help or the version, then exits
            raise UsageError("smemsim: give a verb (see smemsim --help)")
        parser = verb_parser(argv[0])
        # after `--` every word is a FILE or site, even one that begins with '-' (argparse's
        # intermixed parsing loses the positionals that follow `--`)
        args = parser.parse_args(argv[1:]) if "--" in argv[1:] else \
            parser.parse_intermixed_args(argv[1:])
        if getattr(args, "file", None):
            args.file = _example_cuda(args.file)
        args.verb = argv[0]
        from .common import REFUSED
        REFUSED.clear()   # (an earlier command of this process refused none of this one's)
        if "smemsim.frontends.cuda.preprocess" in sys.modules:   # (nor read this one's inputs)
            sys.modules["smemsim.frontends.cuda.preprocess"].FILES_READ.clear()
        code = verb_module(argv[0]).execute(args, console)
        # a kernel of several that could not be built: its error, then the code of bad input
        failed = getattr(args, "failed_kernels", None) or ()
        went_on = " (the file's other kernels went on)" \
            if len(failed) < getattr(args, "kernels_chosen", 0) else ""
        for message in failed:
            say(errors, f"error: {message}{went_on}")
        return max(code, EXIT_INPUT) if getattr(args, "failed_kernels", None) else code
    except SystemExit as exit_:  # --help, --version
        return EXIT_OK if exit_.code == 0 else EXIT_INPUT
    except KeyboardInterrupt as interrupt:  # Ctrl-C or SIGTERM: what was kept, and the code
        name = "terminated" if isinstance(interrupt, Terminated) else "interrupted"
        say(errors, f"{name}{': ' + str(interrupt) if str(interrupt) else ''}")
        return EXIT_TERMINATED if isinstance(interrupt, Terminated) else EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader closed the pipe (`smemsim analyze ... | head -1`): not bad input; end
        # quietly, with the status a Unix tool ended by SIGPIPE has
        _silence_stdout()
        return EXIT_CLOSED_PIPE
    except Exception as err:  # noqa: BLE001 - every failure becomes one line and an exit code
        code, message = _classify(err)
        if isinstance(err, KernelRuntimeError) and argv and argv[0] != "check" and \
                "smemsim check" not in message:
            # (the counts are of a launch that runs: where it faults, check is the verb)
            message += ("; the launch faults, so nothing is counted: `smemsim check` locates "
                        "its faults (a block stops at its first: a race after it shows once "
                        "the fault is mended)")
        if debug:
            errors.print(traceback.format_exc(), markup=False, highlight=False, emoji=False)
        say(errors, f"error: {message}")
        if isinstance(err, OSError) and err.errno in _FULL:
            _silence_stdout()  # stdout on a full disk: Python's final flush would fail again
            return code
        if "--json" in argv:
            print_json(console, [], error=jsonout.error_json(err, message, code),
                       exit_code=code)
        return code


def _example_cuda(file: str) -> str:
    """An installed example's `.cu` by its bare name (`smemsim analyze transpose.cu` from any
    folder), as a kernels file is found by its name; any other FILE as given."""
    import pathlib

    from ..frontends.loader import examples_folder
    path = pathlib.Path(file)
    if path.suffix == ".cu" and path.name == file and not path.exists():
        example = examples_folder() / file
        if example.is_file():
            return str(example)
    return file


def _classify(err: Exception) -> tuple[int, str]:
    """Exit code and one-line message of a failure: bad input (2) or a bug of ours (3)."""
    from gpu_backend.compile import CompileError
    if isinstance(err, _INPUT_ERRORS):
        return EXIT_INPUT, str(err)
    if isinstance(err, CompileError):
        return EXIT_INPUT, err.summary
    if isinstance(err, OSError):  # the environment: a file, a folder, a disk, permissions
        where = f"{err.filename}: " if err.filename else "cannot write the output: " \
            if err.errno in _FULL else ""
        return EXIT_INPUT, f"{where}{err.strerror or err}"
    if isinstance(err, MemoryError):
        return EXIT_INPUT, ("out of memory: the launch is too large to simulate here "
                            "(try a smaller size with --param)")
    return EXIT_BUG, (f"internal error ({type(err).__name__}: {err}); this is a bug in "
                      "smemsim: please report it with the output of --debug")




# a write that failed for want of room (stdout on /dev/full, a full disk or quota)
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _unwrapped(stream) -> int | None:
    """The width to print at: the terminal's (None: rich asks it), or where the output goes to
    a pipe or a file and COLUMNS says nothing, wide enough that no line is cut or wrapped
    mid-expression (rich's 80 columns split a site's statement in two for `grep`)."""
    try:
        if stream.isatty() or os.environ.get("COLUMNS"):
            return None
    except (AttributeError, ValueError):
        return None
    return _PIPE_WIDTH


_PIPE_WIDTH = 4096


class _Console(Console):
    """rich's console, but a closed pipe is a BrokenPipeError for `run` to answer (rich
    itself exits 1, which would read as a failure of the command), and the control
    characters of what it prints are shown, not sent: a file name or a source line holding
    ESC[2J must not clear the user's terminal (rich's own styles are added after)."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError

    def _render_buffer(self, buffer) -> str:
        from rich.segment import Segment
        return super()._render_buffer(
            s if s.control or not _CONTROL.search(s.text) else
            Segment(_CONTROL.sub(_shown, s.text), s.style, s.control) for s in buffer)


# C0 controls but tab and newline, DEL, and C1 controls (\x9b is a terminal's CSI too)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _shown(m) -> str:
    """A control character as text: `\\x1b`."""
    return f"\\x{ord(m.group()):02x}"


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's final flush into the closed pipe does not
    print a second complaint at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


_MAIN_PID = 0


def _on_sigterm(signum, frame) -> None:
    if os.getpid() != _MAIN_PID:   # a worker forked before it set its own handlers
        os._exit(EXIT_TERMINATED)
    raise Terminated()


def _on_sigint(signum, frame) -> None:
    if os.getpid() != _MAIN_PID:   # (likewise: the command's process answers Ctrl-C)
        os._exit(EXIT_INTERRUPTED)
    raise KeyboardInterrupt


def main() -> None:
    """The console script (SIGTERM ends it as Ctrl-C does: cleaned up, work kept)."""
    import signal
    global _MAIN_PID
    _MAIN_PID = os.getpid()
    signal.signal(signal.SIGTERM, _on_sigterm)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)
    sys.exit(run(sys.argv[1:]))

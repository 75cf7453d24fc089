"""Every verb, every option, odd values: each command ends in a result or one line of input
error (exit 0, 1 or 2), never an internal error (exit 3) or a traceback (#25's table-driven
fuzz of the command line)."""
from __future__ import annotations

import io

import pytest
from rich.console import Console

from smemsim.cli import VERBS, run, verb_parser

ODD = ["", "-1", "0", "nan", "abc", ",", "=", "x=", "9" * 30, "é", "/dev/null"]
FILES = ["transpose", "examples/transpose.cu"]


def _options(verb: str) -> list[tuple[str, bool]]:
    """(option, takes a value) for every option of a verb but --help."""
    return [(a.option_strings[-1], a.nargs != 0) for a in verb_parser(verb)._actions
            if a.option_strings and a.option_strings[0] != "-h"]


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One build cache for every verb's fuzz: each verb builds the same files with the same
    flags (a cache of their own made each verb build examples/transpose.cu and fix's
    changes again)."""
    return tmp_path_factory.mktemp("fuzz_cache")


@pytest.mark.slow
@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_option_of_a_verb_with_odd_values(verb, tmp_path, monkeypatch, shared_cache):
    monkeypatch.setenv("SMEMSIM_CACHE", str(shared_cache))
    # relative paths among the values (import -o x=, sweep --csv abc) land in tmp_path, and
    # no value names a path outside it (an early run with ../../etc/passwd as a value, as
    # root, replaced that file)
    monkeypatch.chdir(tmp_path)
    from tests.test_cli import ROOT
    bad = []
    for file in FILES:
        path = file if "/" not in file else str(ROOT / file)
        for option, takes in _options(verb):
            for value in (ODD if takes else [None]):
                argv = [verb, path, option] + ([value] if value is not None else [])
                out, err = io.StringIO(), io.StringIO()
                code = run(argv, Console(file=out, width=100), Console(file=err, width=100))
                if code not in (0, 1, 2) or "Traceback" in err.getvalue():
                    bad.append((argv, code, err.getvalue()[:200]))
    assert bad == []

"""A reduced fuzz of the CUDA frontend (#24, #25): corpus files with lines deleted,
duplicated, swapped, or a character dropped or inserted. Every mutant ends in kernels or
in one located KernelError, within seconds: no other exception, no hang. (It found a
callee walk that took exponential time on a file whose missing `}` made every function
call every other.)"""
from __future__ import annotations

import json
import pathlib
import random
import signal

import pytest

pytest.importorskip("tree_sitter_cuda", reason="the CUDA frontend needs tree-sitter-cuda "
                                                "(a base dependency: pip install -e . installs it)")

from kernels_ir import KernelError  # noqa: E402
from smemsim.cuda import Options  # noqa: E402
from tests.built import import_kernels  # noqa: E402

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"
FILES = sorted({e["file"] for e in
                json.loads((CORPUS / "corpus.json").read_text())["entries"]})
MUTANTS = 400
SECONDS = 20  # per mutant, far above what any takes
KERNELS = 24  # built per mutant


def mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        op = rng.randrange(5)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 2 and lines[i]:
            j = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:j] + lines[i][j + 1:]
        elif op == 3:
            j = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:j] + rng.choice("(){}[];,<>*&#\"'0x") + lines[i][j:]
        else:
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


class _Hang(Exception):
    pass


def _alarm(*_):
    raise _Hang


@pytest.mark.parametrize("seed", [0, 1])
def test_mutated_corpus_files_end_in_kernels_or_one_located_error(tmp_path, seed):
    rng = random.Random(seed)
    previous = signal.signal(signal.SIGALRM, _alarm)
    failures = []
    try:
        for k in range(MUTANTS // 2):
            source = CORPUS / rng.choice(FILES)
            for header in source.parent.glob("*.h*"):  # its own includes, beside it
                (tmp_path / header.name).write_bytes(header.read_bytes())
            mutant = tmp_path / source.name
            mutant.write_text(mutate(source.read_text(), rng))
            signal.alarm(SECONDS)
            try:
                found = import_kernels(str(mutant), Options(grid="1", block="32"))
                # the first kernels of each: reduction_kernel.cu's explicit instantiations
                # give it 213 kernel keys, alike but for their template arguments
                for make in list(found.values())[:KERNELS]:
                    try:
                        make()
                    except KernelError as err:
                        assert err.loc is not None or "no such" in str(err) or \
                            "has no" in str(err), str(err)
            except KernelError:
                pass
            except _Hang:
                failures.append(f"mutant {k} of {source.name}: more than {SECONDS} s")
            except Exception as err:  # noqa: BLE001 - any other failure is the finding
                failures.append(f"mutant {k} of {source.name}: {type(err).__name__}: {err}")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert not failures, failures

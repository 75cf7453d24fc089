"""The tests' door to a `.cu`: its kernels as nvcc builds them
(smemsim.frontends.ptx.frontend), with the signature of smemsim.frontends.cuda's old
`import_kernels` the tests were written against."""
from __future__ import annotations

import json
import pathlib


CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"


def import_kernels(path, options=None, wanted=None, arch: str = "sm_90", flags=()) -> dict:
    """key -> a function that builds that kernel from nvcc's PTX of the file (a file of
    tests/corpus as the corpus builds it: its corpus.json's include folders and flags)."""
    from smemsim.frontends.ptx.frontend import import_cu
    path = pathlib.Path(path).resolve()
    if CORPUS in path.parents and not flags:
        import dataclasses

        from tools.corpus_status import corpus_build
        build = corpus_build()
        entries = json.loads((CORPUS / "corpus.json").read_text())["entries"]
        own = next((e.get("nvcc_flags", []) for e in entries if CORPUS / e["file"] == path), [])
        flags = [*build["flags"], *own]
        if options is None:
            from smemsim.frontends.cuda import Options
            options = Options()
        options = dataclasses.replace(options, include_dirs=[
            *options.include_dirs, *(str(CORPUS / d) for d in build["include"])])
    return import_cu(str(path), options, wanted if wanted is not None else
                     getattr(options, "kernel", None), arch, flags)


def run(kernel, params=None, arrays=None, types=None, **options) -> dict:
    """kernels_ir.run over a kernel read from PTX, whose global arrays are bytes (each typed
    by its views): inputs given as typed numpy arrays go in as their bytes, and each array
    comes back typed as it was given, else as `types` names it, else as the source declares
    its pointer (a `half*` as halves, which the kernel stores as their bits), else as its
    one view's type, else as bytes."""
    import numpy as np

    from kernels_ir import run as run_ir
    views: dict = {}
    for v in kernel.global_views:
        views.setdefault(v.base.name, set()).add(v.dtype.storage)
    given = {}
    sizes = {g.name: g.dtype.size for g in kernel.globals}
    for name, x in (arrays or {}).items():
        x = np.asarray(x)
        given[name] = np.ascontiguousarray(x).view(np.uint8) \
            if sizes.get(name) == 1 and x.dtype != np.uint8 else x
    out = run_ir(kernel, params, given, **options)
    declared = {g.name: g.declared.storage for g in kernel.globals
                if getattr(g, "declared", None) is not None}
    typed = {}
    for name, a in out.items():
        want = np.asarray(arrays[name]).dtype if arrays and name in arrays else \
            np.dtype((types or {})[name]) if name in (types or {}) else \
            declared[name] if name in declared else \
            next(iter(views[name])) if len(views.get(name, ())) == 1 else None
        if want is not None and a.dtype != want and a.nbytes % np.dtype(want).itemsize == 0:
            a = a.view(want)
        typed[name] = a
    return typed


def by_line(report) -> list:
    """A report's sites summed by (source line, op, width), in line order: (line, op, width,
    requests, wavefronts). nvcc unrolls and peels loops, so one source access is often
    several sites of the build; the counts a line costs are their sums."""
    sums: dict = {}
    for s in report.sites:
        key = (s.loc.line if s.loc else 0, s.op, s.width)
        requests, wavefronts = sums.get(key, (0, 0))
        sums[key] = (requests + s.requests, wavefronts + s.wavefronts)
    return [(*key, *sums[key]) for key in sorted(sums)]

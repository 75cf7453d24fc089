"""What several verbs do the same way: pick kernels, find inputs, show progress, print."""
from __future__ import annotations

import contextlib
import json
import pathlib

import numpy as np

from rich.console import Console

from kernels_ir import KernelError, resolve_launch

from ..frontends.loader import input_arrays, is_cuda, load_kernels, prescribes_inputs, select
from ..launch.occupancy import kernel_occupancy
from ..search.pool import parallel_map
from . import jsonout
from .options import cuda_options

EXIT_OK, EXIT_GATE, EXIT_INPUT, EXIT_BUG = 0, 1, 2, 3


def kernels(args) -> list:
    """(key, kernel) for every kernel the command line selects. Of several (a file's
    kernels, no --kernel), one that cannot be built is an error line on stderr and the
    others go on (`args.failed_kernels`: the command says each error and exits 2, as for
    any bad input)."""
    chosen = select(load_kernels(args.file, cuda_options(args), ptx_reading(args)),
                    args.kernel)
    out, failed = [], []
    for key, make in chosen.items():
        try:
            out.append((key, make()))
        except KernelError as err:
            if len(chosen) == 1:
                raise
            failed.append((key, err))
    if failed and not out:
        raise failed[0][1]
    args.failed_kernels = []   # (the command line's run() says each on stderr)
    args.kernels_chosen = len(chosen)   # (whether any went on: run()'s wording)
    # (a kernel the host code never launches, beside kernels it does: what the program runs
    # is counted; the others are said, not an error: a library file's main launches some)
    unlaunched = [(key, err) for key, err in failed if getattr(err, "unlaunched", False)]
    if unlaunched:
        import sys
        failed = [x for x in failed if x not in unlaunched]
        names = ", ".join(key for key, _ in unlaunched)
        print(f"note: not analyzed, as the file's host code launches "
              f"{'it' if len(unlaunched) == 1 else 'none of them'}: {names} (--kernel NAME "
              "with --launch-grid and --launch-block counts one)", file=sys.stderr)
    for key, err in failed:
        message = str(err)
        if err.kernel and message.startswith(f"kernel '{err.kernel}'"):
            message = f"kernel '{key}'" + message[len(f"kernel '{err.kernel}'"):]
        args.failed_kernels.append(message)
        REFUSED.append(jsonout.error_json(err, message, EXIT_INPUT) | {"kernel": key})
    for _, kernel in out:
        _note_assumed_lengths(args, kernel)
        _note_launch_inputs(args, kernel)
    return out


def _note_launch_inputs(args, kernel) -> None:
    """A -p value of a parameter whose host value chose the launch's grid or block (an
    if/else chain in the host code) changes the parameter, not that choice: say so."""
    import sys
    given = {item.partition("=")[0].strip(): item.partition("=")[2].strip()
             for item in getattr(args, "param", None) or ()}
    for name in kernel.launch_inputs:
        if name in given:
            print(f"note: {kernel.title}: the host code chose the launch's grid and block by "
                  f"its own value of {name}; -p {name}={given[name]} changes the kernel's "
                  f"parameter only (--host {name}={given[name]} reads the host code with "
                  "it, its choice of launch included)", file=sys.stderr)


def ptx_reading(args) -> dict | None:
    """How the command line's CUDA file is built to PTX (smemsim.frontends.loader.load_kernels's
    `ptx`: the architecture and nvcc flags), or None where it is no CUDA file."""
    if is_cuda(args.file):
        return {"arch": args.arch, "flags": tuple(getattr(args, "nvcc_flag", None) or ())}
    return None


def as_compiled_noop(args) -> list[str]:
    """--as-compiled of a .cu: nothing to add (the PTX frontend counts nvcc's build of the
    file already, ptxas's merges included), so turned off, with the note that says so."""
    if getattr(args, "as_compiled", False) and is_cuda(args.file):
        args.as_compiled = False
        return ["--as-compiled adds nothing here: a .cu is counted as nvcc builds it already "
                "(ptxas's merges read from the same build's SASS)"]
    return []


def own_params(given: dict, kernel, chosen: list) -> dict:
    """The -p values for one of the chosen kernels: all of them when it is the only one (a
    name it lacks is then the launch's error); of several (a file's kernels, no --kernel),
    those it declares, a name no chosen kernel declares being an error here."""
    if len(chosen) < 2:
        return given
    names = {p.name for _, k in chosen for p in k.params}
    unknown = sorted(set(given) - names)
    if unknown:
        raise KernelError(f"-p {', '.join(unknown)}: no kernel of the file has such a "
                          f"parameter (theirs: {', '.join(sorted(names)) or 'none'})")
    mine = {p.name for p in kernel.params}
    return {k: v for k, v in given.items() if k in mine}


def one_kernel(args):
    """The one kernel a verb that explains or sizes a single kernel works on."""
    chosen = select(load_kernels(args.file, cuda_options(args), ptx_reading(args)),
                    args.kernel)
    if len(chosen) > 1:
        raise KernelError(f"{args.file} has several kernels ({', '.join(chosen)}): pick one "
                          "with --kernel")
    key, make = next(iter(chosen.items()))
    kernel = make()
    _note_assumed_lengths(args, kernel)
    return key, kernel


def _note_assumed_lengths(args, kernel) -> None:
    """Where the source does not say how long a global array is (Kernel.assumed_lengths),
    say on stderr that its end is not checked (never silently), and how to give it."""
    import sys
    # (occupancy and layout read no global access: how long an array is changes nothing)
    note = unchecked_ends(kernel, args) if getattr(args, "verb", None) not in (
        "occupancy", "layout") else None
    if note:
        note = f"note: {kernel.name}: {note}"
        said = vars(args).setdefault("_notes_said", set())   # (a sweep makes it per point)
        if note not in said:
            said.add(note)
            print(note, file=sys.stderr)
    for g in kernel.globals:
        if getattr(g, "texture", None):
            print(f"note: {kernel.name}: {g.name} is {g.texture}", file=sys.stderr)


def unchecked_ends(kernel, args=None) -> str | None:
    """What no run checks of a kernel whose source does not say how long some global arrays
    are (Kernel.assumed_lengths, less those --length gives): their ends (an access before
    their start is still a fault); None where every length is known."""
    given = {item.partition("=")[0] for item in getattr(args, "length", None) or []}
    names = [g.name for g in kernel.globals if g.name in kernel.assumed_lengths and
             g.name not in given]
    if not names:
        return None
    them = "it" if len(names) == 1 else "them"
    return (f"the source does not say how long {', '.join(names)} "
            f"{'is' if len(names) == 1 else 'are'}: no access past "
            f"{'its end' if len(names) == 1 else 'their ends'} is looked for "
            f"(--length NAME=EXPR gives {them})")


def inputs(args, key: str, kernel, params: dict):
    """The launch's inputs: --data files over the kernels file's ARRAYS (None: every array
    seeded random)."""
    launch = resolve_launch(kernel, params)
    arrays = input_arrays(args.file, key, launch)
    given = _data_files(args, kernel)
    if not given:
        return arrays
    arrays_of = {g.name: g for g in kernel.globals}
    loaded = {}
    for name, path in given.items():
        data, n, g = _npy(name, path), launch.lengths[name], arrays_of[name]
        t = _values_type(g)
        n = n // t.size * g.dtype.size
        # checked here, whether or not the analysis ends up reading the data: a file that
        # cannot be this array's contents is a mistake, never reshaped or converted
        if data.ndim != 1:
            raise KernelError(f"--data {name}={path}: a {data.ndim}-D array {data.shape}; "
                              f"'{name}' is 1-D ({n:,} elements): save array.ravel()")
        if data.dtype != t.storage:
            raise KernelError(f"--data {name}={path}: {data.dtype} elements; '{name}' holds "
                              f"{t} ({t.storage}): save array.astype(numpy.{t.storage}) where "
                              "those are its values")
        if data.size != n:
            raise KernelError(f"--data {name}={path}: {data.size:,} elements; '{name}' has "
                              f"{n:,} at these parameters")
        loaded[name] = data.view(g.dtype.storage) if t is not g.dtype else data
    return {**(arrays or {}), **loaded}


def _npy(name: str, path) -> np.ndarray:
    """A --data file: a .npy numpy reads without pickles, else a one-line input error."""
    try:
        with open(path, "rb") as f:
            magic = f.read(6)
        if magic != b"\x93NUMPY":
            raise KernelError(f"--data {name}={path}: not a .npy file (numpy.save writes one; "
                              "this one does not start as a .npy file does)")
        data = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as err:
        raise KernelError(f"--data {name}={path}: not a .npy array numpy can read without "
                          f"pickles ({err})") from None
    return data


def input_sources(args, key: str, kernel) -> dict[str, str]:
    """Where each global input of a launch comes from, for the report."""
    given = _data_files(args, kernel)
    prescribed = prescribes_inputs(args.file, key)
    out = {}
    for g in kernel.globals:
        if g.intent == "out":
            continue
        out[g.name] = (given[g.name] if g.name in given else
                       f"ARRAYS['{key}'] of {args.file}" if prescribed else
                       "its initializer in the file" if g.initial is not None else
                       f"seeded random (seed 0, {_drawn(g)})")
    return out


def random_inputs_note(args, key: str, kernel, err) -> str:
    """For a fault at a site whose address depends on values the kernel loads, where some
    inputs are smemsim's seeded random values: the clause that says so (else "")."""
    site, loc = getattr(err, "site", None), getattr(err, "loc", None)
    from ..launch.slicing import reads_loaded_values, slice_kernel
    if site is not None:
        if site not in slice_kernel(kernel).data_dependent:
            return ""
    else:
        # (a global access's fault: the accesses of its line, where one's address depends
        # on loaded values)
        from kernels_ir.stmt import Atomic, Load, Store
        at = [s for s in kernel.statements() if isinstance(s, (Load, Store, Atomic)) and
              loc is not None and s.loc is not None and (s.loc.file, s.loc.line) ==
              (loc.file, loc.line)]
        if not any(reads_loaded_values(kernel, s) for s in at):
            return ""
    drawn = _random_inputs(args, key, kernel)
    if not drawn:
        return ""
    return (f"; this address depends on values the kernel loads, and "
            f"{', '.join(repr(n) for n in drawn)} hold{'s' if len(drawn) == 1 else ''} "
            f"smemsim's seeded random values, not the program's (the fault may be theirs): "
            f"give the program's data with --data {drawn[0]}=FILE.npy")


def _random_inputs(args, key: str, kernel) -> list[str]:
    """The global inputs of a launch that hold smemsim's seeded random values."""
    return [name for name, source in input_sources(args, key, kernel).items()
            if source.startswith("seeded random")]


def random_races_note(args, key: str, kernel, races) -> str:
    """Where a race's sites have addresses that depend on values the kernel loads, and some
    inputs are smemsim's seeded random values: the line that says so (else "")."""
    from ..launch.slicing import slice_kernel
    dependent = slice_kernel(kernel).data_dependent
    sites = sorted({n for r in races for n in (r.first, r.second) if n in dependent})
    drawn = _random_inputs(args, key, kernel) if sites else []
    if not drawn:
        return ""
    return (f"(site{'s' * (len(sites) > 1)} {', '.join(map(str, sites))}: "
            f"{'their addresses depend' if len(sites) > 1 else 'its address depends'} on "
            f"values the kernel loads, and {', '.join(repr(n) for n in drawn)} "
            f"hold{'s' if len(drawn) == 1 else ''} smemsim's seeded random values, not the "
            f"program's: a race there may be theirs; give the program's data with --data "
            f"{drawn[0]}=FILE.npy)")


def launch_faulted(args, key: str, kernel, err, chosen: list, consequence: str) -> None:
    """A launch's fault (said with random_inputs_note): raised where the kernel is the only
    one chosen; of several, kept in `args.failed_kernels` with `consequence` (the command
    line says each after the others' results, exit 2), as a kernel of several that cannot
    be built is."""
    one_of_several(args, with_note(err, random_inputs_note(args, key, kernel, err)), chosen,
                   f"{consequence}: `smemsim check` locates its faults")


def at_each_launch(args, chosen: list) -> list:
    """(key, kernel, launch) for each chosen kernel at the launch its reading counts, and,
    where the host code launches it with other configurations (Kernel.launches), at each of
    those, read again as --launch-at reads one (`launch` the launch's `file.cu:LINE:COL`;
    None for a kernel launched once or alike, or launched as the command line says). A
    launch that cannot be read is said after the others, as a kernel of several that cannot
    be built is (exit 2)."""
    import dataclasses
    out = []
    for key, kernel in chosen:
        if not kernel.launches or getattr(args, "launch_at", None):
            out.append((key, kernel, None))
            continue
        out.append((key, kernel, kernel.launches[0]))
        for at in kernel.launches[1:]:
            options = dataclasses.replace(cuda_options(args), launch_at=at)
            try:
                other = next(iter(select(load_kernels(args.file, options, ptx_reading(args)),
                                         key).values()))()
            except KernelError as err:
                args.failed_kernels = [*(getattr(args, "failed_kernels", None) or ()),
                                       f"{err}; the launch at {at} not checked"]
                continue
            out.append((key, other, at))
    return out


def one_of_several(args, err, chosen: list, consequence: str) -> None:
    """A kernel of several that cannot be launched as given (a value it needs, a fault):
    raised where it is the only one chosen; else kept in `args.failed_kernels` with
    `consequence` (said after the others' results, exit 2)."""
    if len(chosen) == 1:
        raise err from None
    args.failed_kernels = [*(getattr(args, "failed_kernels", None) or ()),
                           f"{err}; {consequence}"]


def with_note(err, note: str):
    """The error `err` with `note` added to its message (the same kind, lane and place)."""
    if not note:
        return err
    import copy
    out = copy.copy(err)
    out.message = err.message + note
    out.args = (out._render(),)
    return out


def _values_type(g):
    """The type of an array's values: its own, or, for an array held as bytes (a pointer
    read from PTX), the type the source declares the pointer with."""
    declared = getattr(g, "declared", None)
    return declared if declared is not None and g.dtype.size == 1 else g.dtype


def _drawn(g) -> str:
    """What kernels_ir.make_arrays draws for an array (in _values_type): floats uniform in
    [-1, 1), integers uniform in 0..255; said, as a hash's keys or an index array of such
    values are no input of the user's."""
    t = _values_type(g)
    return f"{t} uniform in [-1, 1)" if t.is_float else \
        f"{t} uniform in 0..{min(int(t.max), 255)}"


def _data_files(args, kernel) -> dict[str, str]:
    out = {}
    names = [g.name for g in kernel.globals]
    for item in getattr(args, "data", []):
        name, sep, path = item.partition("=")
        if not sep or not path:
            raise KernelError(f"--data takes ARRAY=FILE.npy, got {item!r}")
        if name not in names:
            raise KernelError(f"--data {item}: kernel '{kernel.name}' has no global array "
                              f"'{name}' (it has {', '.join(names)})")
        if not pathlib.Path(path).is_file():
            raise KernelError(f"--data {item}: no such file: {path}")
        out[name] = path
    return out


def progress(console: Console, args):
    """A transient progress bar, on terminals only."""
    from rich.progress import Progress
    return Progress(console=console, transient=True,
                    disable=getattr(args, "json", False) or not console.is_terminal)


def busy(console: Console, args, text: str):
    """A spinner while something runs, on terminals only (output to files stays clean)."""
    if getattr(args, "json", False) or not console.is_terminal:
        return contextlib.nullcontext()
    return console.status(text)


def swept(args, console: Console, kernel, params: dict, fn, task) -> list:
    """(value, fn(task(params at value))) at every value of the sweep, with a progress bar,
    on every core when the points are heavy enough (smemsim.search.pool: `fn` is a module-level
    function, `task` builds its picklable argument here)."""
    key, values = args.sweep
    tasks = [task({**params, key: v}) for v in values]
    with progress(console, args) as bar:
        job = bar.add_task(f"{kernel.name}: {key}", total=len(values))
        results = parallel_map(fn, tasks, jobs=args.jobs,
                               progress=lambda done, _: bar.update(job, completed=done))
    return list(zip(values, results))


def compile_or_explain(kernel, arch: str, verb: str):
    """Compile with NVRTC, or a one-line input error saying what is missing."""
    from gpu_backend.compile import ToolMissing, compile_kernel
    try:
        return compile_kernel(kernel, arch)
    except ToolMissing as err:
        raise KernelError(f"{verb}: {err}; analyze, explain and occupancy still work "
                          "without it") from None


def build_or_explain(args, key: str, kernel, verb: str):
    """What --as-compiled and --regs compile count: a kernel read from its own build (a .cu
    through nvcc's, a Triton or numba kernel through its compiler's) has that build's
    resources (kernels_ir.BuildResources, ptxas's report); otherwise, NVRTC's build of the
    generated CUDA (said on stderr where the file is CUDA whose build ptxas could not read:
    the kernel's notes say why)."""
    if kernel.built is not None:
        return kernel.built
    if is_cuda(args.file):
        import sys
        print(f"note: {verb}: the resources of {kernel.name}'s own build could not be read "
              "(its notes say why); counting NVRTC's build of the CUDA regenerated from the "
              "kernel instead", file=sys.stderr)
    return compile_or_explain(kernel, args.arch, verb)


def occupancy_of(kernel, arch: str, regs, params: dict, carveout=None, compiled=None,
                 source=None):
    """The calculator for a kernel; registers and static smem from a compile if asked (the
    one given, or a new one: `source`, (args, key), makes it the user's build of a .cu)."""
    if regs == "compile":
        if compiled is None:
            compiled = build_or_explain(*source, kernel, "--regs compile") \
                if source is not None else compile_or_explain(kernel, arch, "--regs compile")
        return kernel_occupancy(kernel, arch, compiled.registers, params, carveout,
                                static_smem=compiled.static_smem)
    return kernel_occupancy(kernel, arch, regs, params, carveout)


def launch_bound(kernel) -> int | None:
    """The most threads a block of the kernel's build may have (`__launch_bounds__`, PTX's
    .maxntid), where the build says."""
    return getattr(kernel.built, "max_threads", None) if kernel.built is not None else None


def require_gpu(verb: str) -> None:
    """A one-line error saying what is missing and what still works without it."""
    from gpu_backend.device import gpu_unavailable
    reason = gpu_unavailable()
    if reason:
        raise KernelError(f"{verb}: {reason.rstrip('.')}. Without a GPU, every other verb "
                          "works (analyze, check, fix, report, explain, sweep, occupancy, "
                          "layout, compile, import, codegen)")


# the kernels of this command's file that could not be built (kernels(); run() clears it
# before each command): the JSON document lists them, and its exit code is then that of
# bad input, as the command's is
REFUSED: list[dict] = []


def print_json(console: Console, items: list, exit_code: int = EXIT_OK, **extra) -> None:
    """The one JSON document a verb prints, with the exit code the command returns."""
    if REFUSED:
        exit_code = max(exit_code, EXIT_INPUT)
        extra.setdefault("refused", list(REFUSED))
    console.print_json(json.dumps(jsonout.document(items, exit_code=exit_code, **extra)))


def say(console: Console, text: str) -> None:
    """A plain line: no markup, no highlighting, no wrapping."""
    console.print(text, markup=False, highlight=False, emoji=False, soft_wrap=True)

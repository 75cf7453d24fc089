"""A `.cu` through its own build: nvcc's PTX of each kernel, lowered (smemsim.frontends.ptx.lower),
launched as the host code says.

The host side is read as today (smemsim.frontends.cuda, its signature and launch only: the
launch, the scalar arguments, the arrays' lengths, the template instances); the kernel's
body is not read as C++ at all but comes from the PTX, so what is counted is what nvcc
compiled. Parameters meet by position: the PTX entry's, and the C signature's names and
types.

Where smemsim cannot read the file's host side (C++ its reader does not take: a library's
headers, kernels instantiated inside templates), the kernels are the PTX's entries and the
launch is the command line's (`--launch-grid`, `--launch-block`, `--launch-smem`, `-p`,
`--length` with the parameters named `param_0`, `param_1`, ... in the entry's order); without
a launch there, the host reader's own question is the answer.
"""
from __future__ import annotations

from collections import Counter

import dataclasses
import functools
import os
import re

from kernels_ir import BuildResources, Kernel, KernelError
from kernels_ir.dtypes import i64
from kernels_ir.expr import Op, as_expr, cast

from .as_built import as_built
from .build import ptx_of
from .lower import _TOOLKIT, Launch, _grid_syncs, lower
from .speculated import mark_speculated_loads
from ...launch.unread_params import with_stand_ins
from .operands import eval_names
from .structure import COUNTED_ONLY
from .parse import Inst, PtxError, _split_top, parse
from .sass import SassUnavailable, ptxas_options, sass_of
from .symbols import demangle, instance_symbol, kernel_symbol


def import_cu(path: str, options=None, kernel: str | None = None, arch: str = "sm_90",
              flags=()) -> dict:
    """key -> a function that builds that kernel from nvcc's PTX (as
    smemsim.frontends.cuda.host_kernels returns the host side's)."""
    from ..cuda import host_kernels
    from ..loader import not_a_file
    flags = tuple(flags)
    if not os.path.isfile(path):   # (as the C++ reading says it: no nvcc for a folder)
        raise KernelError(not_a_file(path))
    try:
        hosts = host_kernels(path, options, kernel)
    except (KernelError, RecursionError) as err:
        return _ptx_only(path, options, kernel, arch, flags, err)
    out = {key: functools.partial(_kernel, path, options, key, make, arch, flags)
           for key, make in hosts.items()}
    if kernel is None:
        for key in _unlaunched_instances(path, options, arch, flags, list(hosts)):
            out[key] = functools.partial(_unlaunched, path, key)
    return out


def _unlaunched_instances(path: str, options, arch: str, flags, keys: list[str]) -> list[str]:
    """The template instances nvcc's build has of the file's launched templates beyond those
    the host code's launches read (an instance its host code names otherwise: a table of
    kernels, an explicit instantiation): never dropped without a word. Where the build's
    and the host reading's spellings of an instance may differ (`128u`, an enum), only the
    instances the build has more of than the launches read are said."""
    base = lambda key: key.split("<")[0].strip()  # noqa: E731
    templates = sorted({base(k) for k in keys if "<" in k})
    if not templates:
        return []   # (no template launched: nothing to compare, no build needed here)
    try:
        module = _parsed(_ptx(path, options, arch, flags))
    except (KernelError, OSError):
        return []   # (the kernels' own builds say why)
    spelled = lambda key: re.sub(r"\b(\d+)(?:u|l|ul|ll|ull)\b|\s+", r"\1",  # noqa: E731
                                 key.lower())
    launched = {spelled(k) for k in keys}
    names = list(readable(list(module.entries)).values())
    out = []
    for name in templates:
        built = [p for p in names
                 if "<" in p and base(p).split("::")[-1] == name.split("::")[-1]]
        mine = [k for k in keys if base(k) == name]
        if len(built) > len(mine):
            out += [p for p in built if spelled(p) not in launched]
    return out


def _unlaunched(path: str, key: str) -> Kernel:
    err = KernelError(f"nvcc's build of {path} has {key}, which no launch of its host code "
                      "that smemsim reads launches (a kernel pointer set at run time, a table "
                      f"of kernels, an explicit instantiation): --kernel '{key}' with "
                      "--launch-grid and --launch-block counts it", kernel=key)
    err.unlaunched = True
    raise err


def write_kernels_file(path: str, options=None, kernel: str | None = None,
                       folder: str | None = None, arch: str = "sm_90",
                       flags=()) -> tuple[str, list[str]]:
    """What `smemsim import` writes: (the kernels file's text, its kernel keys). Every kernel
    is read from its compiler's build first (an error is raised here, located): nvcc's of a
    `.cu`, or a Python program's (numba's, Triton's, its CUDA strings' through nvcc);
    `folder` is where the file will stand (its `# FILE:N` markers are relative to it)."""
    import dataclasses
    import pathlib

    from kernels_ir.pysource import kernels_file

    from ..loader import dsl_of, load_kernels
    if pathlib.Path(path).suffix == ".py":
        compiler = {"numba": "numba", "triton": "Triton"}.get(dsl_of(path), "nvcc")
        if kernel is not None:
            options = dataclasses.replace(options, kernel=kernel)
        chosen = load_kernels(path, options, {"arch": arch, "flags": tuple(flags)})
    else:
        compiler = "nvcc"
        chosen = import_cu(path, options, kernel, arch, flags)
    kernels = {key: make() for key, make in chosen.items()}
    folder = folder or str(pathlib.Path(path).resolve().parent)
    title = (f"Kernels read from {compiler}'s build of {pathlib.Path(path).name} by `smemsim "
             "import` (edit freely).")
    return kernels_file(kernels, folder, title), list(kernels)


def _kernel(path: str, options, key: str, make, arch: str, flags) -> Kernel:
    from ..cuda import instantiation, signature
    try:
        host = make()
    except (KernelError, RecursionError) as err:   # (without a launch: err is the answer)
        chosen = _ptx_only(path, options, key, arch, flags, err)
        return next(iter(chosen.values()))()
    instance = instantiation(path, options, key)
    # the file's own build first: where it instantiates the template (its host code
    # launches it, or names it), that build, shared by all its kernels, has the entry
    text = _ptx(path, options, arch, flags)
    module = _parsed(text)
    entry = instance_symbol(module.entries, instance)
    if entry is None and instance.cxx is not None:
        text = _ptx(path, options, arch, flags, instance.cxx)
        module = _parsed(text)
    if entry is None:
        entry = kernel_symbol(module.entries, instance, PtxError)
    names = [name for name, _ in signature(path, instance.name, options)]
    if len(names) != len(module.entries[entry].params):
        raise PtxError(f"{key}: the PTX entry has {len(module.entries[entry].params)} "
                       f"parameters, the C signature {len(names)}")
    lengths: dict = {}
    for g in host.globals:
        if g.base is None:
            lengths[g.name] = cast(as_expr(g.length), i64) * g.dtype.size
    # a by-value struct's pointer field, named by its byte offset (`op_0`): its length in
    # bytes, as the command line gives it (the host's reading names the struct's fields
    # its own way); a 1-D texture object's: its texels
    for name, given in (getattr(options, "lengths", None) or {}).items():
        if name not in lengths:
            lengths[name] = given
    types = {p.name: p.dtype for p in host.params}
    launch = Launch(grid=host.grid, block=host.block, dynamic_smem=host.dynamic_smem,
                    names=tuple(names), lengths=lengths, defaults=dict(host.defaults),
                    types=types, loc=host.launch_loc, declared=host.loc,
                    textures=dict(getattr(options, "textures", None) or {}),
                    tensor_maps=dict(getattr(options, "tensor_maps", None) or {}),
                    elements={g.name: g.dtype for g in host.globals if g.base is None},
                    # (the host's reading gives a pointer it passes null no elements)
                    nulls=tuple(g.name for g in host.globals if g.base is None and
                                _is_zero(g.length)),
                    fields={x.name: x.field for x in (*host.params, *host.globals)
                            if getattr(x, "field", None) is not None})
    kernel = _lower_as_built(module, text, entry, launch, host.name, arch, flags)
    if "<" in key:   # (a template's instance: reports call it as --kernel does)
        kernel = dataclasses.replace(kernel, instance=key)
    if host.launch_inputs:
        kernel = dataclasses.replace(kernel, launch_inputs=host.launch_inputs)
    if host.unread_arguments:
        kernel = dataclasses.replace(kernel, unread_arguments=host.unread_arguments)
    if host.launches:
        kernel = dataclasses.replace(kernel, launches=host.launches)
    given = getattr(options, "lengths", None) or {}
    assumed = tuple(g.name for g in host.globals if g.base is None and g.name not in given
                    and g.name in host.assumed_lengths)
    if assumed:
        kernel = dataclasses.replace(kernel, assumed_lengths=assumed)
    if host.shared_shapes:
        kernel = dataclasses.replace(kernel, shared_shapes=host.shared_shapes)
    unbuilt = _unbuilt_shared(module, entry, host.declared_shared)
    if unbuilt:
        kernel = dataclasses.replace(kernel, notes=kernel.notes + unbuilt,
                                     unbuilt_shared=unbuilt)
    # (what the host side says of the launch it read: another launch of the kernel, say)
    return dataclasses.replace(kernel, notes=host.notes + kernel.notes) if host.notes \
        else kernel


def _unbuilt_shared(module, symbol: str, declared) -> tuple[str, ...]:
    """A note for each `__shared__` variable the kernel declares that nvcc's build has no
    variable of: the compiler folded every store and load of it away (all threads storing
    1 to `flag[0]`, read back as the constant), so nothing of it is counted or checked."""
    from .symbols import local_name
    present = {local_name(v.name) for v in (*module.shared, *module.entries[symbol].shared)}
    return tuple(f"{where}: `{name}` is declared __shared__, but nvcc's build has no access "
                 "to it (the compiler folded its stores and loads away): nothing of it is "
                 "counted or checked" for name, where in declared if name not in present)


def _calls_runtime(entry) -> bool:
    """Whether the entry calls the device runtime the driver links in (printf's vprintf,
    malloc, free)."""
    return any(getattr(inst, "opcode", ("",))[0] == "call" and
               any(o in ("vprintf", "malloc", "free") for o in inst.operands)
               for inst in entry.body)


def _with_callees(module, entry, functions: dict):
    """The entry's SASS with, for each call its PTX writes out (inline_calls), the called
    function's shared instructions at that call: ptxas built the function apart, and its
    accesses run where it is called (placed as the PTX's copy is, the function's own lines
    inlined at the call's)."""
    f = functions[entry.name]
    extra = []
    for n, (callee, at) in enumerate(entry.inlined, 1):
        g = functions.get(f"${entry.name}${callee}", functions.get(callee))
        chain, loc = [], at
        while loc is not None:
            chain.append((module.files.get(loc.file, ""), loc.line))
            loc = loc.inlined_at
        extra += [dataclasses.replace(i, where=tuple(i.where) + tuple(chain),
                                      address=i.address + (n << 32))
                  for i in (g.shared if g is not None else ())]
    return dataclasses.replace(f, shared=f.shared + tuple(extra)) if extra else f


def _is_zero(length) -> bool:
    """Whether an array's length is the constant 0 (the host reading's null pointer)."""
    e = as_expr(length)
    return e.op is Op.CONST and e.arg == 0


def _lower_as_built(module, text: str, symbol: str, launch: Launch, name, arch: str,
                    flags, ptxas: tuple | None = None) -> Kernel:
    """The entry lowered with the merges ptxas makes of its shared accesses (smemsim.frontends.ptx.
    as_built), which its notes say, line by line; without ptxas and nvdisasm, the PTX's own
    accesses, with a note saying so. `ptxas`: (the ptxas, its options) of the compiler that
    made the PTX (Triton's), else the toolkit's with the user's nvcc flags'."""
    # (the PTX's own target: sm_90a where nvcc built the file for it, _ptx_of)
    target = re.search(r"^\s*\.target\s+(sm_\d+a)\b", text, re.M)
    arch = target.group(1) if target is not None and target.group(1)[:-1] == arch else arch
    try:
        functions = sass_of(text, arch, ptxas_options(flags)) if ptxas is None else \
            sass_of(text, arch, ptxas[1], ptxas=ptxas[0])
    except SassUnavailable as err:
        notes = [f"counted as the PTX states: the SASS could not be read ({err}); ptxas may "
                 "merge accesses the PTX keeps apart"]
    else:
        if symbol in functions:
            f = _with_callees(module, module.entries[symbol], functions)
            resources = BuildResources(arch, symbol, *f.resources,
                                       max_threads=module.entries[symbol].max_threads,
                                       runtime_calls=_calls_runtime(module.entries[symbol]))
            try:
                kernel = _lowered(module, as_built(module, module.entries[symbol], f),
                                  symbol, launch, name)
            except PtxError as err:
                if COUNTED_ONLY not in str(err):
                    raise
                # (a loop as_built rewrote as ptxas blocks it, which the lowering does not
                # count)
                kernel = _lowered(module, as_built(module, module.entries[symbol], f,
                                                   cascades=False), symbol, launch, name)
            return dataclasses.replace(kernel, built=resources)
        notes = [f"counted as the PTX states: ptxas's build has no function {symbol}"]
    return _named(module, symbol, launch, name, notes)


def built_sass(path: str, options, key: str, symbol: str, arch: str = "sm_90", flags=()):
    """The FunctionSass of entry `symbol` of the build of `path` the analysis of kernel
    `key` read (the file's own build, else the build that instantiates the template; both
    cached), or None where there is no such entry or no SASS (smemsim ncu places measured
    instructions by their address in it)."""
    from ..cuda import instantiation
    flags = tuple(flags)
    text = _ptx(path, options, arch, flags)
    if symbol not in _parsed(text).entries:
        instance = instantiation(path, options, key)
        if instance.cxx is None:
            return None
        text = _ptx(path, options, arch, flags, instance.cxx)
    target = re.search(r"^\s*\.target\s+(sm_\d+a)\b", text, re.M)
    arch = target.group(1) if target is not None and target.group(1)[:-1] == arch else arch
    try:
        return sass_of(text, arch, ptxas_options(flags)).get(symbol)
    except SassUnavailable:
        return None


def inexact_lines(kernel: Kernel) -> int:
    """How many of the kernel's notes say a line is counted as the PTX states, or a SASS
    access not counted (ptxas changed something the reading does not follow: smemsim.frontends.ptx.
    as_built's notes and _lower_as_built's end so)."""
    return sum(1 for note in kernel.notes
               if "counted as the PTX states" in note or note.endswith("(not counted)"))


def _lowered(module, built, symbol: str, launch: Launch, name) -> Kernel:
    """The entry as built (smemsim.frontends.ptx.as_built), lowered, with its notes and
    the sites of the lines it counts as the PTX states."""
    module = dataclasses.replace(module, entries={**module.entries, symbol: built.entry})
    kernel = _named(module, symbol, launch, name, list(built.notes))
    if not built.as_stated:
        return kernel
    return dataclasses.replace(kernel, as_stated_sites=_sites_at(kernel, built.as_stated))


def _sites_at(kernel: Kernel, keys) -> tuple[int, ...]:
    """The loads and stores of `kernel` at the (place chain, kind) keys of as_built: a
    site's place is its chain from the first frame outside the toolkit's headers (as the
    lowering locates it), the chain of its key from there on."""
    from kernels_ir.stmt import Load, Store
    wanted = set()
    for chain, kind in keys:
        mine = next((n for n, (f, _) in enumerate(chain)
                     if not _TOOLKIT.search(os.path.normpath(f))), 0)
        wanted.add((tuple(chain[mine:]), kind))
    out = []
    for s in kernel.sites():
        kind = "load" if isinstance(s, Load) else "store" if isinstance(s, Store) else None
        if kind is None or s.loc is None:
            continue
        place = ((s.loc.file, s.loc.line), *s.loc.calls)
        # (numba's wrapper frame, which the lowering drops from its kernel's lines)
        if any(k == kind and c[:len(place)] == place and len(c) - len(place) <= 1
               for c, k in wanted):
            out.append(s.site)
    return tuple(out)


def _named(module, symbol: str, launch: Launch, name, notes: list) -> Kernel:
    """The entry lowered, after the grid barriers are found and the inlined functions'
    names shortened; `notes` added to the kernel's."""
    # (made before the names below are shortened: it knows the barrier by its full name)
    module = dataclasses.replace(module, entries={
        **module.entries, symbol: _grid_syncs(module, module.entries[symbol])})
    if module.strings:   # the inlined functions' names, as a reader knows them
        pretty = readable(sorted(set(module.strings.values())))
        module = dataclasses.replace(module, strings={
            label: _member(pretty.get(mangled, mangled))
            for label, mangled in module.strings.items()})
    kernel = with_stand_ins(mark_speculated_loads(lower(module, symbol, launch, name)))
    return dataclasses.replace(kernel, notes=kernel.notes + tuple(notes) +
                               tuple(_calls_merged(module, symbol)))


def _calls_merged(module, symbol: str) -> list[str]:
    """Where two lines of the user's file call one toolkit function (cub's
    `BlockReduce(tmp).Sum(...)` at lines 23 and 25) and only one has shared accesses: both
    calls inline the same marks below the user's line, and nvcc's line table gave the
    accesses of both to one of them, whose counts then hold the other's. Said, never
    guessed at (the PTX cannot tell the two calls' accesses apart)."""
    files = module.files
    callers: dict = {}   # the toolkit frame a user line calls -> the lines that call it
    shared: dict = {}    # and those with a shared access through it
    memory: dict = {}    # and those with any memory access through it (a global atomic)
    accessing = set()    # the user lines with a shared access at all, in any frame
    for inst in module.entries[symbol].body:
        if not isinstance(inst, Inst) or inst.loc is None:
            continue
        frames, loc = [], inst.loc
        while loc is not None:
            frames.append(loc)
            loc = loc.inlined_at
        mine = [n for n, f in enumerate(frames)
                if not _TOOLKIT.search(os.path.normpath(files.get(f.file, "")))]
        if mine and ("shared" in inst.opcode or inst.name in ("ldmatrix", "stmatrix")):
            accessing.add((frames[mine[0]].file, frames[mine[0]].line))
        if not mine or mine[0] == 0:
            continue
        user, callee = frames[mine[0]], frames[mine[0] - 1]
        key = (callee.file, callee.line, callee.column, callee.function)
        callers.setdefault(key, set()).add((user.file, user.line))
        if "shared" in inst.opcode or inst.name in ("ldmatrix", "stmatrix"):
            shared.setdefault(key, set()).add((user.file, user.line))
        if inst.name in ("ld", "st", "atom", "red", "cp", "ldmatrix", "stmatrix", "wmma"):
            memory.setdefault(key, set()).add((user.file, user.line))
    out = []
    for key, lines in shared.items():
        # (only a line with no shared access of its own is said: one whose call reaches
        # memory elsewhere (a global atomicAdd beside a shared one), or whose own frame has
        # the line's shared access (llm.c's `block_acc[w] = cg::reduce(warp, v, ...)` beside
        # a `cg::reduce(warp, block_acc[lane], ...)` that reads through its reference), has)
        silent = sorted(callers[key] - memory.get(key, set()) - lines - accessing,
                        key=lambda x: x[1])
        if not silent:
            continue
        where = lambda fl: f"{os.path.basename(files.get(fl[0], '<ptx>'))}:{fl[1]}"  # noqa
        called = f"{os.path.basename(files.get(key[0], '<ptx>'))}:{key[1]}" + \
            (f" ({_untemplated(module.strings[key[3]])})" if key[3] in module.strings else "")
        has = ", ".join(where(x) for x in sorted(lines, key=lambda x: x[1]))
        out.append(f"{', '.join(map(where, silent))} calls {called} as {has} does; nvcc's line "
                   f"table puts the shared accesses of those calls at {has}, whose counts "
                   f"hold {'theirs' if len(silent) > 1 else 'its'} too")
    return out


def _untemplated(name: str) -> str:
    """A function's name without its template arguments: `BlockReduce::Sum`."""
    out, depth = [], 0
    for ch in name:
        depth += (ch == "<") - (ch == ">") if ch in "<>" else 0
        if depth == 0 and ch != ">":
            out.append(ch)
    return "".join(out)


def _member(name: str) -> str:
    """A function's name without its namespaces and ABI tags: `cub::detail::BlockReduce<
    float, 128>::Sum` -> `BlockReduce<float, 128>::Sum`, numba's `cudapy::__main__::
    array_sum[abi:v1][abi:cw51...]` -> `array_sum`."""
    name = re.sub(r"\[abi:[^\]]*\]", "", name)
    parts = [p for p in _split_top(name, "::", "<(", ">)") if p]
    if not parts:
        return name
    return "::".join(parts[-2:]) if len(parts) > 1 and parts[-2][:1].isupper() else parts[-1]


@functools.lru_cache(maxsize=4)
def _parsed(text: str):
    """parse(text), kept for the next kernel of the same build (a file of many kernels is
    read once; a Module is never changed, only replaced)."""
    return parse(text)


def _ptx(path: str, options, arch: str, flags, instance: str | None = None) -> str:
    return ptx_of(path, arch=arch, defines=getattr(options, "defines", None),
                  include_dirs=getattr(options, "include_dirs", ()), flags=flags,
                  instance=instance)


def _given_launch(options) -> bool:
    return bool(options is not None and options.grid and options.block)


def _ptx_only(path: str, options, wanted: str | None, arch: str, flags, why) -> dict:
    """The PTX's entries as kernels, launched as the command line says (the host side could
    not be read: `why`, which is the answer when no launch is given)."""
    launch = _given_launch(options)
    if re.search(r"(^|: )--(null|length|param|texture|tensor-map) [^:]*: ", str(why)) or \
            "disagree: nvcc would use the file's value" in str(why):
        raise why   # (a value the command line gave is wrong: a launch does not mend it)
    if "with --launch-smem" in str(why) and not getattr(options, "smem", None):
        raise why   # (the grid and block given, the launch's shared memory unreadable)
    if not launch and any(word in str(why) for word in (
            "--launch", "--param", "--length", "--host", "--tensor-map", "--texture",
            "--null")):
        # (the host side was read: it asks for what it computes at run time; where it found
        # no launch at all, unless nvcc cannot build the file, whose error is then the
        # answer: a body with a syntax error is nvcc's to read, a launch would not mend it)
        if "no launch of" in str(why):
            _ptx(path, options, arch, flags)
        raise why
    text = _ptx(path, options, arch, flags)
    module = parse(text)
    keys = {pretty: symbol for symbol, pretty in readable(list(module.entries)).items()}
    if not launch:
        _ask_for_launch(path, wanted, keys, module, why, options)
    if wanted is not None:
        bare = lambda text: "".join(text.split())   # noqa: E731 (spacing is not meaning)
        last = lambda text: text.split("<")[0].strip().split("::")[-1]   # noqa: E731
        same_base = [k for k in keys if last(k) == last(wanted)]
        chosen = {k: s for k, s in keys.items() if bare(wanted) in (bare(k), s)} or \
            ({same_base[0]: keys[same_base[0]]} if len(same_base) == 1 else {})
        if not chosen and same_base:
            raise PtxError(f"nvcc's build of {path} has {len(same_base)} instances of "
                           f"'{wanted}' ({', '.join(same_base)}): name one as listed with "
                           "--kernel")
        if not chosen:
            raise PtxError(f"nvcc's build of {path} has no kernel '{wanted}' (it has: "
                           f"{', '.join(keys) or 'none'}): name one as listed with --kernel")
        keys = chosen
    return {key: functools.partial(_entry_kernel, module, text, symbol, key, options, arch,
                                   flags, path)
            for key, symbol in keys.items()}


def _ask_for_launch(path: str, wanted: str | None, keys: dict, module, why,
                    options=None) -> None:
    """Where the host side cannot be read and no launch is given: the question, if nvcc's
    build has the kernel (its launch is what the host would have said), else `why`."""
    bare = "".join((wanted or "").split())
    last = (wanted or "").split("<")[0].strip().split("::")[-1]
    found = [k for k, s in keys.items() if bare in ("".join(k.split()), s) or
             k.split("<")[0].strip().split("::")[-1] == last] if wanted else list(keys)
    if not found:
        raise why
    name = found[0] if len(found) == 1 else (wanted or found[0])
    from .declarations import param_slots
    from .lower import Lowering
    entry = module.entries[keys[found[0]]]
    declared = _declared_names(path, found[0], options, len(entry.params))
    slots = param_slots(Lowering(module, entry, Launch(grid=(1,), block=(1,),
                                                       names=declared or ()), None, None))
    # (a struct's fields: `param_0_8`)
    names = ", ".join(n for _, n, _ in slots) or "none"
    raise KernelError(f"kernel '{name}': smemsim cannot read the host side of {path} "
                      f"({' '.join(str(why).split())}); nvcc's build has the kernel: "
                      "give its launch with --launch-grid and --launch-block, and its "
                      f"parameters ({names}) with -p and --length")


def _entry_kernel(module, text: str, symbol: str, key: str, options, arch: str,
                  flags, path: str | None = None) -> Kernel:
    entry = module.entries[symbol]
    names = _declared_names(path, key, options, len(entry.params)) or \
        tuple(f"param_{n}" for n in range(len(entry.params)))
    scalars = _param_exprs(entry, names)

    def dims(text: str, what: str) -> tuple:
        return tuple(eval_names(p, scalars, what) for p in text.split(",") if p.strip())
    launch = Launch(grid=dims(options.grid, "--launch-grid"),
                    block=dims(options.block, "--launch-block"),
                    dynamic_smem=eval_names(options.smem, scalars, "--launch-smem")
                    if options.smem else 0,
                    names=names, lengths=dict(getattr(options, "lengths", {}) or {}),
                    defaults=dict(getattr(options, "params", {}) or {}),
                    textures=dict(getattr(options, "textures", None) or {}),
                    tensor_maps=dict(getattr(options, "tensor_maps", None) or {}))
    # the IR's kernel is named as a C identifier: the last part of the C++ name
    name = re.sub(r"\W", "_", key.split("<")[0].split("::")[-1]) or "kernel"
    return _lower_as_built(module, text, symbol, launch, name, arch, flags)


def _param_exprs(entry, names=None) -> dict:
    """The entry's scalar parameters by the names the command line uses for them (`names`:
    the declaration's, else param_0, param_1, ...)."""
    from kernels_ir.expr import Expr, Op
    from .values import _TYPES
    names = names or tuple(f"param_{n}" for n in range(len(entry.params)))
    return {names[n]: Expr(Op.PARAM, _TYPES.get(p.ptype, i64), (), names[n])
            for n, p in enumerate(entry.params) if p.ptype in _TYPES}


def _declared_names(path: str | None, key: str, options, count: int) -> tuple | None:
    """The kernel's parameter names as its declaration gives them, where smemsim's reader
    of the file finds the declaration (its host side may be what it cannot read: a torch
    extension's) and the PTX entry has as many parameters; else None."""
    if path is None:
        return None
    from ..cuda import Options, signature
    base = key.split("<")[0].split("::")[-1].strip()
    names = None
    # (the file's own declaration: read with its -D and -I, else with its -D alone, where
    # the headers it includes are what the reader cannot take: torch's)
    for given in (options, Options(defines=dict(getattr(options, "defines", None) or {}))):
        try:
            names = tuple(n for n, _ in signature(path, base, given))
            break
        except Exception:   # noqa: BLE001 - any file the reader cannot read: positions then
            continue
    if names is None:
        return None
    return names if len(names) == count and len(set(names)) == count and \
        all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names) else None


def readable(symbols: list[str]) -> dict[str, str]:
    """Each kernel symbol as C++ names it, without its return type and parameters
    (`BlockReduceKernel<128, 4, (cub::BlockReduceAlgorithm)0>`), by the binutils demangler
    where it is installed (the symbols go to it as data, on its standard input), else the
    name demangle() reads; two instances that read the same keep their symbols."""
    import shutil

    from ...toolrun import run_tool
    names, whole = {}, {}
    tool = shutil.which("c++filt")
    if tool is not None and symbols:
        out = run_tool([tool], input="\n".join(symbols) + "\n").stdout.split("\n")
        for symbol, text in zip(symbols, out):
            if text and text != symbol:
                names[symbol] = _signature_name(text)
                whole[symbol] = text[5:] if text.startswith("void ") else text
    for symbol in symbols:
        if symbol not in names:
            parsed = demangle(symbol)
            names[symbol] = parsed[0] if parsed else symbol
    # (overloads that read the same, `Op::operator()` of two parameter lists: each with
    # its parameters; the symbol only where even those are one)
    counts = Counter(names.values())
    names = {s: n if counts[n] == 1 else whole.get(s, s) for s, n in names.items()}
    counts = Counter(names.values())
    return {s: (n if counts[n] == 1 else s) for s, n in names.items()}


def _signature_name(text: str) -> str:
    """`void k<1, 2>(int*, float)` -> `k<1, 2>` (`(anonymous namespace)::k(int)` ->
    `(anonymous namespace)::k`: that parenthesis is part of the name)."""
    if text.startswith("void "):
        text = text[5:]
    anonymous, mark = "(anonymous namespace)", "\0"
    text = text.replace(anonymous, mark)
    depth, n = 0, 0
    while n < len(text):
        c = text[n]
        if c == "(" and depth == 0 and text[:n].endswith("operator") and \
                text[n:n + 2] == "()":
            n += 2   # (the call operator's own parentheses: part of its name)
            continue
        if c in "<(":
            if c == "(" and depth == 0:
                return text[:n].replace(mark, anonymous)
            depth += 1
        elif c in ">)":
            depth -= 1
        n += 1
    return text.replace(mark, anonymous)

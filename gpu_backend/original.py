"""Build the user's own CUDA file with nvcc and read its SASS by file:line (`--as-compiled`
and `--regs compile` on a `.cu`).

The program counted is the one the user's build makes: their file, their -D/-I and nvcc
flags, compiled to a cubin with line information (host code is parsed, as in their build,
but not compiled). A template kernel the file does not instantiate itself is instantiated
by a second translation unit of one line, `void *p = (void *)&k<128, 8>;`, whose arguments
are the values the importer read (numbers and type names from its tables), never text from
the command line or the file. The user's file reaches nvcc by `-include PATH`, an argument,
so no name of theirs is ever written into source.

Every shared-memory instruction of the kernel's SASS keeps its file and line; an IR site
has the file and line it was read from, so the two meet at a source line. Where several
sites share a line (the copies of an unrolled loop, two accesses in one statement), the
line's instructions are shared out among them in program order (`attribute`), and what
gpu_backend.as_compiled then checks against the trace (a wide instruction covers
neighbouring copies only where their addresses are consecutive) decides what is counted.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from kernels_ir import Kernel, SourceLoc
from kernels_ir.stmt import Loop, walk
from smemsim.cache import cache_dir, open_sealed, sealed, store
from smemsim.ptx.symbols import demangle, kernel_symbol  # noqa: F401 (demangle: re-exported)
from smemsim.toolrun import refuse_shell_text, run_tool, staged, unstage

from .compile import (
    BULK_KINDS, EXPECTED_SASS, CompileError, SassAccess, SassLoop, SiteCheck, cubin_resources,
    find_tool, parse_loops, parse_sass, static_smem, unrolled_sites,
)

# options that would make nvcc build something other than the cubin we read
_REFUSED = ("-o", "--output-file", "-c", "--compile", "-E", "--preprocess", "-M", "-cubin",
            "-dryrun", "--dryrun", "-V", "--version", "-h", "--help", "--list-gpu-arch",
            "--list-gpu-code", "-arch-ls", "-code-ls",
            "--cubin", "-ptx", "--ptx", "-fatbin", "--fatbin", "-arch", "--gpu-architecture",
            "-gencode", "--generate-code", "-code", "--gpu-code", "-run", "--run", "-lib",
            "--lib", "-link", "--link")

_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)", re.M)


@dataclass(frozen=True)
class OriginalBuild:
    """One kernel of the user's own nvcc build: its resources and its shared-memory SASS,
    each instruction's `line` a key of `places` (a (file, line) of the source)."""

    path: str
    arch: str
    function: str                     # the kernel's symbol in the cubin
    command: tuple[str, ...]          # the nvcc command (the user's file as `-include`)
    registers: int
    stack: int
    cubin_smem: int
    local: int
    sass: str                         # the function's SASS
    accesses: tuple[SassAccess, ...]  # `line`: (real path, line) of the source
    loops: tuple[SassLoop, ...]       # likewise

    @property
    def static_smem(self) -> int:
        """Static shared memory as the driver reports it (see Compiled.static_smem)."""
        return static_smem(self.arch, self.cubin_smem)

    @staticmethod
    def key(loc) -> tuple[str, int] | None:
        """The line of an IR location as the SASS names lines (None: no location)."""
        return None if loc is None else (os.path.realpath(loc.file), loc.line)

    def loop_keys(self, kernel: Kernel) -> tuple:
        """Per Loop of the kernel in walk() order, its line as the SASS names lines."""
        return tuple(self.key(s.loc) for s in walk(kernel.body) if isinstance(s, Loop))

    @staticmethod
    def where(key: tuple[str, int]) -> str:
        """A line in words: `file.cu:42`."""
        return f"{os.path.basename(key[0])}:{key[1]}"


@dataclass(frozen=True)
class Attributed:
    """The original build's instructions shared out among the sites of a (written-out)
    kernel: what gpu_backend.as_compiled reads from a Compiled."""

    sites: tuple[SiteCheck, ...]
    unattributed: tuple[SassAccess, ...]
    loops: tuple[SassLoop, ...]
    loop_lines: tuple                 # per Loop of the kernel in walk() order: its line key
    groups: tuple                     # ((sites, lowest address first), opcode): one wide
    #                                   instruction each, the trace shows them consecutive
    unproven: frozenset               # sites a wide instruction may cover but no group was
    #                                   found for: counted as stated
    where: object                     # line key -> words

    def shared_opcodes(self) -> list[str]:
        """Every shared-memory opcode, sorted."""
        return sorted([a.opcode for s in self.sites for a in s.found] +
                      [a.opcode for a in self.unattributed])


def nvcc_version(nvcc: str) -> str:
    """The release line of `nvcc --version`."""
    out = run_tool([nvcc, "--version"]).stdout
    return next((line for line in out.splitlines() if "release" in line), out.strip())


def check_flags(flags) -> tuple[str, ...]:
    """The user's extra nvcc flags, refusing those that change what is built (one line)."""
    for f in flags:
        name = f.split("=", 1)[0]
        if name in _REFUSED or (name.startswith(("-arch", "-gencode", "-code")) and
                                name not in ("-arch", "-gencode", "-code")):
            raise CompileError(f"--nvcc-flag {f}: smemsim chooses this itself (the cubin, "
                               "--arch, the file); leave it out")
    return tuple(flags)


def build_original(path: str, instance, *, arch: str = "sm_90", defines=None,
                   include_dirs=(), flags=()) -> OriginalBuild:
    """nvcc's build of the kernel `instance` (smemsim.cuda.Instance) of the user's file, for
    `arch`, with their macros, include folders and flags; cached by every input. nvcc sees
    a private copy of the file and links to its folders (smemsim.toolrun), never a name of
    the user's."""
    nvcc = find_tool("nvcc")
    flags = check_flags(flags)
    macros = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in (defines or {}).items()]
    refuse_shell_text(macros, "-D")
    refuse_shell_text(flags, "--nvcc-flag")
    options = ["-cubin", f"-arch={arch}", "-lineinfo", "-w", *macros, *flags]
    source, includes = os.path.abspath(path), tuple(os.path.abspath(d) for d in include_dirs)
    # what the build is, in the user's names (the cache key, and OriginalBuild.command)
    command = [nvcc, *options, *(f"-I{d}" for d in includes), "-include", source]
    unit = "" if instance.cxx is None else \
        f"void *smemsim_instance = (void *)&{instance.cxx};\n"
    key = hashlib.sha256(json.dumps([
        command[1:], unit, nvcc_version(nvcc), CACHE_FORMAT,
        [(f, hashlib.sha256(_read(f)).hexdigest()) for f in instance.files],
    ]).encode()).hexdigest()
    folder = cache_dir("nvcc")
    cached = folder / f"{key}.json" if folder is not None else None
    stored = _load(cached, key)
    if stored is None:
        stored = _compile(nvcc, options, source, includes, unit)
        if cached is not None:
            store(cached, sealed(key, json.dumps(stored).encode()))
    sass, resources = stored["sass"], stored["resources"]
    function = _function(sass, instance)
    text = sass[function]

    def place(file: str, line: int) -> tuple[str, int]:
        return os.path.realpath(unstage(file, source, includes)), line
    res = resources.get(function, {})
    return OriginalBuild(path, arch, function, tuple(command), res.get("REG", 0),
                         res.get("STACK", 0), res.get("SHARED", 0), res.get("LOCAL", 0), text,
                         tuple(parse_sass(text, place)), parse_loops(text, place))


CACHE_FORMAT = 5  # bump when what is stored changes (2: resources per function fixed;
#                  3: SASS with -gi inline marks; 4: a block pipeline's state accesses;
#                  5: file names of a staged build, marked)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _load(path, key: str) -> dict | None:
    """A cached build, sealed under its key and checked field by field (a bad or edited
    entry is a miss)."""
    payload = open_sealed(path, key)
    if payload is None:
        return None
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):   # (nested deeper than json reads)
        return None
    ok = isinstance(data, dict) and isinstance(data.get("sass"), dict) and \
        isinstance(data.get("resources"), dict) and \
        all(isinstance(k, str) and isinstance(v, str) for k, v in data["sass"].items()) and \
        all(isinstance(v, dict) and all(type(n) is int and 0 <= n < 1 << 32
                                        for n in v.values())
            for v in data["resources"].values())
    return data if ok else None


def _compile(nvcc: str, options: list[str], source: str, includes: tuple[str, ...],
             unit: str) -> dict:
    """Run nvcc on a staged copy of `source`; {"sass": function -> SASS (its file names
    marked, smemsim.toolrun), "resources": function -> {REG: .., ...}}."""
    with staged(source, includes) as stage:
        instance, cubin = (os.path.join(stage.folder, n) for n in ("smemsim_instance.cu",
                                                                     "k.cubin"))
        with open(instance, "w") as f:
            f.write(unit)
        done = run_tool([nvcc, *options, *stage.include_flags(), "-include", stage.source,
                         "-o", cubin, instance], folder=stage.folder)
        if done.returncode:
            raise CompileError("nvcc could not build the file:\n" +
                               stage.user_named(done.stderr.strip()))
        # -gi: inlined functions' call sites too (parse_sass keeps the innermost user line)
        disasm = run_tool([find_tool("nvdisasm"), "-gi", "-c", cubin])
        if disasm.returncode or not os.path.exists(cubin):
            raise CompileError("nvcc made no cubin nvdisasm can read (a flag that stops the "
                               f"build?): {disasm.stderr.strip()[:300]}")
        sass = disasm.stdout
        functions = {name: stage.marked(text) for name, text in _split(sass).items()}
        resources = cubin_resources(cubin)
        return {"sass": functions, "resources": {name: resources.get(name, {})
                                                 for name in functions}}


def _split(sass: str) -> dict[str, str]:
    """nvdisasm's output, one text per function."""
    marks = list(_SECTION.finditer(sass))
    return {m.group(1): sass[m.start():marks[i + 1].start() if i + 1 < len(marks) else None]
            for i, m in enumerate(marks)}


def _function(sass: dict, instance) -> str:
    """The symbol of the instance's kernel among the build's functions."""
    return kernel_symbol(sass, instance, CompileError)


# ---------------------------------------------------------------- sharing out a line

def attribute(kernel: Kernel, build: OriginalBuild, tr) -> Attributed:
    """The build's instructions shared out among `kernel`'s sites by source line (`tr`,
    the kernel's trace, says which accesses a wide instruction can cover): where a line's
    instructions are exactly what its sites state (or a whole multiple of it: a loop still
    looping, unrolled partly), each site gets its own; else, per kind, each wide
    instruction goes to a group of sites whose accesses the trace shows at consecutive,
    aligned addresses (`groups`), each instruction of the stated width to one of the sites
    left, in program order. Sites left with none have none (a common subexpression),
    except where a wide instruction found no group (`unproven`: counted as stated).
    Instructions on a line with no site first join the line above that lacks them
    (_reattach: a statement over several lines)."""
    unrolled = unrolled_sites(kernel)
    by_line: dict = {}
    for s in kernel.sites():
        by_line.setdefault(build.key(s.loc), []).append(s)
    pending: dict = {}
    for a in build.accesses:
        pending.setdefault(a.line, []).append(a)
    # the lines of the calls each site was inlined at, as the SASS names lines (once: a key
    # is a realpath)
    calls = {st.site: {build.key(SourceLoc(*c)) for c in st.loc.calls}
             if st.loc is not None else set() for st in kernel.sites()}
    _split_by_calls(by_line, pending, calls)
    looped = {x.site for loop in walk(kernel.body) if isinstance(loop, Loop)
              for x in walk(loop.body) if getattr(x, "site", None) is not None}
    _reattach(by_line, pending, looped)
    _spill_down(by_line, pending)
    _spill_up(by_line, pending)
    _only_site(by_line, pending)
    found, groups, unproven = {}, [], set()
    signatures = _Signatures(tr)
    for line, sites in by_line.items():
        left = _share(sites, pending.pop(line, []) if line is not None else [], found,
                      groups, unproven, signatures)
        if line is not None and left:
            pending[line] = left
    _at_call_lines(kernel.sites(), calls, pending, found, groups, unproven, signatures)
    checks = tuple(SiteCheck(s.site, s.op, s.access_bytes, tuple(found.get(s.site, ())),
                             s.site in unrolled) for s in kernel.sites())
    left = tuple(sorted((a for rest in pending.values() for a in rest),
                        key=lambda a: a.address))
    return Attributed(checks, left, build.loops, build.loop_keys(kernel), tuple(groups),
                      frozenset(unproven), build.where)


def _split_by_calls(by_line: dict, pending: dict, calls: dict) -> None:
    """A line of an inlined function (a header's `load128`, called from many places) is
    split by the call that inlined it, where the SASS names the call (-gi) for exactly the
    instructions the sites inlined at that call state: those go to those sites only (a
    line of its own, keyed (file, line, call)); the rest stay with the sites left on the
    line. (nvcc may name one call for the instructions of two: two `store128` calls five
    lines apart, both marked with the first's line; those stay on the shared line.)"""
    for line in [k for k in by_line if k is not None]:
        for via in sorted({a.via for a in pending.get(line, ()) if a.via is not None}):
            mine = [s for s in by_line[line] if via in calls[s.site]]
            named = Counter((a.kind, a.width) for a in pending[line] if a.via == via)
            if not mine or named != Counter((k, s.access_bytes) for s in mine
                                            for k in EXPECTED_SASS[s.op]):
                continue
            part = (*line, via)
            by_line[part] = mine
            by_line[line] = [s for s in by_line[line] if s not in mine]
            _move(pending, line, part, [a for a in pending[line] if a.via == via])
        if not by_line[line]:
            del by_line[line]


def _at_call_lines(sites, calls: dict, pending: dict, found: dict, groups: list,
                   unproven: set, signatures) -> None:
    """Instructions left on a line with no inline mark, at most 8 lines below the call that
    inlined sites left with none, go to those sites: nvcc put the LDS.128 of llm.c's
    `load128` (common.h) on the lines that use the loaded values (layernorm_backward's
    kernel 10: `dbias_tmp = load128(...)` on 1160, its 14 unrolled copies on 1163, where
    `dbias_f[i] += dbias_tmp[i]`). Lines whose instructions could go to the same sites are
    pooled and shared out among them as one line's are (_share); `calls`: each site's call
    lines."""
    pools: dict = {}
    for line in sorted(k for k in pending if k is not None):
        takers = tuple(s for s in sites if not found.get(s.site) and s.site not in unproven
                       and any(c[0] == line[0] and line[1] - 8 <= c[1] <= line[1]
                               for c in calls[s.site])
                       and all(k in {a.kind for a in pending[line]}
                               for k in EXPECTED_SASS[s.op]))
        if takers:
            pools.setdefault(tuple(s.site for s in takers), (takers, []))[1].append(line)
    for takers, lines in pools.values():
        if any(found.get(s.site) for s in takers):
            continue  # an earlier pool served them
        pooled = [a for line in lines for a in pending.pop(line)]
        left = _share(list(takers), pooled, found, groups, unproven, signatures)
        for a in left:
            pending.setdefault(a.line, []).append(a)


def _share(sites, accesses, found: dict, groups: list, unproven: set, signatures) -> list:
    """Share one line's instructions among its sites (program order); returns the
    instructions left over."""
    rest = sorted(accesses, key=lambda a: a.address)
    expected = Counter((k, s.access_bytes) for s in sites for k in EXPECTED_SASS[s.op])
    times = _times(Counter((a.kind, a.width) for a in rest), expected)
    if times:
        for s in sites:
            mine = []
            for kind in EXPECTED_SASS[s.op]:
                for _ in range(times):
                    a = next(a for a in rest if a.kind == kind and a.width == s.access_bytes)
                    rest.remove(a)
                    mine.append(a)
            found[s.site] = mine
        return rest
    for s in sites:
        found[s.site] = []
    for kind in sorted({k for s in sites for k in EXPECTED_SASS[s.op]}):
        mine = [s for s in sites if EXPECTED_SASS[s.op] == (kind,)]
        ins = [a for a in rest if a.kind == kind]
        if not mine or not ins:
            continue
        free = list(mine)
        width = mine[0].access_bytes
        if all(s.access_bytes == width for s in mine):
            lost = False
            for a in [a for a in ins if a.width > width and a.width % width == 0]:
                group = signatures.group(free, a.width // width, width)
                if group is None:
                    lost = True
                    continue
                found[group[0].site] = [a]
                groups.append((tuple(x.site for x in group), a.opcode))
                rest.remove(a)
                free = [x for x in free if x not in group]
            for s in free:
                a = next((a for a in rest if a.kind == kind), None)
                if a is None:
                    if lost:
                        unproven.add(s.site)
                    continue
                rest.remove(a)
                found[s.site] = [a]
        else:  # mixed widths on one line: in program order, each the next instruction
            for s in free:
                a = next((a for a in rest if a.kind == kind), None)
                if a is not None:
                    rest.remove(a)
                    found[s.site] = [a]
    for s in sites:  # a CAS loop's two kinds: its own instructions, where there are
        kinds = EXPECTED_SASS[s.op]
        if len(kinds) > 1:
            for k in kinds:
                a = next((a for a in rest if a.kind == k), None)
                if a is not None:
                    rest.remove(a)
                    found[s.site].append(a)
    return rest


def _reattach(by_line: dict, pending: dict, looped: set) -> None:
    """Instructions on a line with no site: nvcc may put a statement's access on any of its
    lines (`regN[i] =` on one line, `Bs[...]` on the next, the LDS on the second); they
    join the nearest line above in the same file (at most 8 lines above) that has sites,
    where those sites lack at least as many bytes of that kind of instruction as they
    bring, or have none, are inside a loop (`looped`: sites) and they bring whole copies of
    what the sites state (an unrolled loop's). Outside loops, more than a line's sites
    state stays where it is: Rodinia's srad_cuda_2 loads `cs` and `ce` once each after an
    if/else-if chain, on the line that uses them, and the chain's last line is no home for
    both (as_compiled._joined takes them)."""
    for line in sorted(k for k in pending if k not in by_line):
        above = [k for k in by_line if k is not None and k[0] == line[0] and
                 line[1] - 8 <= k[1] < line[1]]
        if not above:
            continue
        nearest = max(above)
        for kind in sorted({a.kind for a in pending[line]}):
            stated = sum(s.access_bytes for s in by_line[nearest]
                         if EXPECTED_SASS[s.op] == (kind,))
            have = sum(a.width for a in pending.get(nearest, ()) if a.kind == kind)
            moving = sum(a.width for a in pending[line] if a.kind == kind)
            # only what the sites lack, never more; or, to sites that have none, whole
            # copies of what they state (a multi-line statement in a loop nvcc unrolled:
            # cudaTensorCoreGemm's `*((int4 *)p + lane) =` over two lines)
            inside = all(x.site in looped for x in by_line[nearest])
            if have + moving <= stated or (stated and not have and moving % stated == 0
                                           and inside):
                _move(pending, line, nearest, [a for a in pending[line] if a.kind == kind])


def _spill_down(by_line: dict, pending: dict) -> None:
    """A line with more instructions of a kind than it has sites of that kind gives the
    surplus (the later ones, by address) to the nearest lines below (at most 8, same file)
    whose sites of that kind have none, when the surplus is exactly what they lack: nvcc
    marked two consecutive statements' TMA copies with the first one's line. A line with no
    such neighbour keeps them, and so does one whose surplus is more (an unrolled loop's
    copies are its own: flash-attention-minimal's `S[..] = __expf(S[..] - row_m)` as 7 LDS
    and 7 STS, the next line's `row_l += S[..]` forwarded from the store, no instruction)."""
    for line in sorted(k for k in by_line if k is not None):
        for kind in sorted({a.kind for a in pending.get(line, ())}):
            stated = _of_kind(by_line[line], kind)
            have = sorted((a for a in pending[line] if a.kind == kind), key=lambda a: a.address)
            below = [k for k in sorted(by_line) if k is not None and k[0] == line[0] and
                     line[1] < k[1] <= line[1] + 8 and _of_kind(by_line[k], kind) and
                     not any(a.kind == kind for a in pending.get(k, ()))]
            if not stated or len(have) <= stated or not below or \
                    len(have) - stated != sum(_of_kind(by_line[k], kind) for k in below):
                continue
            surplus = have[stated:]
            for k in below:
                lacking = _of_kind(by_line[k], kind)
                _move(pending, line, k, surplus[:lacking])
                surplus = surplus[lacking:]
                if not surplus:
                    break


def _spill_up(by_line: dict, pending: dict) -> None:
    """A line with more instructions of a kind than it has sites of that kind gives the
    surplus to the lines above it (at most 16, same file) whose sites of that kind lack
    instructions, when the surplus is exactly what they lack: nvcc marked the LDGSTS of
    four consecutive `cuda::memcpy_async` calls (libcu++ code inlined at each) with the
    last call's line (SGEMM_CUDA's kernel 12: 18 of them). In address order, to those lines
    in line order."""
    for line in sorted(k for k in by_line if k is not None):
        for kind in sorted({a.kind for a in pending.get(line, ())}):
            stated = _of_kind(by_line[line], kind)
            have = sorted((a for a in pending[line] if a.kind == kind), key=lambda a: a.address)
            if not stated or len(have) <= stated:
                continue
            lacking = {}
            for k in sorted(by_line):
                if k is None or k[0] != line[0] or not line[1] - 16 <= k[1] < line[1]:
                    continue
                short = _of_kind(by_line[k], kind) - \
                    sum(a.kind == kind for a in pending.get(k, ()))
                if short > 0:
                    lacking[k] = short
            surplus = have[stated:]
            if not lacking or sum(lacking.values()) != len(surplus):
                continue
            for k, short in lacking.items():
                _move(pending, line, k, surplus[:short])
                surplus = surplus[short:]


def _only_site(by_line: dict, pending: dict) -> None:
    """An asynchronous instruction (HGMMA, UTMALDG, UTMASTG, UBLKCP) on a line with no site
    of its kind joins the one line that has sites of that kind, where only one line does:
    nvcc put one HGMMA of an unrolled, software-pipelined wgmma on the enclosing loop's line
    (fast.cu's kernel 3). With sites of that kind on two or more lines, the line decides, as
    before; the line's sites then share what they got (_share)."""
    for kind in BULK_KINDS:
        owners = [line for line, sites in by_line.items() if line is not None and
                  _of_kind(sites, kind)]
        if len(owners) != 1:
            continue
        for line in [k for k in pending if k != owners[0]]:
            _move(pending, line, owners[0], [a for a in pending[line] if a.kind == kind])


def _of_kind(sites, kind: str) -> int:
    """How many of a line's sites expect instructions of `kind`."""
    return sum(EXPECTED_SASS[s.op] == (kind,) for s in sites)


def _move(pending: dict, line, to, moving: list) -> None:
    """Instructions of one line given to another (the line dropped once it has none)."""
    if not moving:
        return
    gone = {id(a) for a in moving}
    pending.setdefault(to, []).extend(moving)
    pending[line] = [a for a in pending[line] if id(a) not in gone]
    if not pending[line]:
        del pending[line]


class _Signatures:
    """Each site's requests as a multiset of address patterns, to find the sites whose
    accesses are one site's moved by whole steps (the neighbours a wide instruction
    covers)."""

    def __init__(self, tr):
        self.tr = tr
        self.memo: dict = {}

    def of(self, site: int, shift: int = 0):
        key = (site, shift)
        if key not in self.memo:
            from .as_compiled import request_multiset
            st = self.tr.sites[site]
            moved = np.where(st.patterns >= 0, st.patterns + shift, -1)
            self.memo[key] = frozenset(request_multiset(moved, st.counts).items())
        return self.memo[key]

    def group(self, free: list, k: int, width: int):
        """k sites of `free`, the first at addresses aligned to k * width and site i's
        accesses the first's moved by i * width, in every request; None if none."""
        if self.tr is None or k < 2:
            return None
        index: dict = {}
        for s in free:
            if s.site in self.tr.sites:
                index.setdefault(self.of(s.site), []).append(s)
        for s in free:
            st = self.tr.sites.get(s.site)
            if st is None or not len(st.patterns):
                continue
            active = st.patterns >= 0
            if (st.patterns[active] % (k * width)).any():
                continue
            members = [s]
            for i in range(1, k):
                match = next((t for t in index.get(self.of(s.site, i * width), ())
                              if t not in members), None)
                if match is None:
                    break
                members.append(match)
            if len(members) == k:
                return members
        return None


def _times(have: Counter, expected: Counter) -> int:
    """m when `have` is exactly m times `expected` (m >= 1), else 0."""
    if not expected or set(have) != set(expected):
        return 0
    first = next(iter(expected))
    m, r = divmod(have[first], expected[first])
    return m if m and not r and all(have[k] == m * expected[k] for k in expected) else 0

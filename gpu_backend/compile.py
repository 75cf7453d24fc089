"""Compile generated CUDA with NVRTC (no GPU needed), read its resources and check its SASS.

The SASS check is why this exists: nvcc/NVRTC may merge or split shared accesses
(hardware-rules.md), and then the GPU runs a different kernel from the one analyzed. With
line information, nvdisasm attributes every LDS/STS to a line of the generated source; the
code generator knows which line each IR site is on. A site whose instructions are not one
access of the IR's width (several, for a loop the IR unrolls) is reported as changed.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from kernels_ir import Kernel
from kernels_ir.stmt import Loop, walk
from kernels_ir.stmt_async import Wgmma
from smemsim.cache import cache_dir, open_sealed, sealed, store
from smemsim.toolrun import ToolMissing, find_tool  # noqa: F401 (re-exported)

from .codegen import Generated, generate



class CompileError(RuntimeError):
    """NVRTC rejected the generated source (the log is in the message)."""

    @property
    def summary(self) -> str:
        """One line: what failed and NVRTC's first error."""
        head, _, log = str(self).partition("\n")
        first = next((line.strip() for line in log.splitlines() if "error" in line),
                     log.strip().splitlines()[0] if log.strip() else "no log")
        return (f"{head.rstrip(':')}: {first} (`smemsim codegen` prints the CUDA; --debug "
                "the whole log)")


@dataclass(frozen=True)
class SassAccess:
    """One shared-memory instruction of the SASS."""

    opcode: str        # "LDS.128", "STS.U8", "ATOMS.POPC.INC.32", "LDSM.16.M88.4", ...
    kind: str          # what it is, in the bank engine's terms (see sass_kind)
    width: int         # bytes per lane
    line: int          # line of the generated source (0 if unattributed)
    address: int = 0   # of the instruction in the kernel's code


@dataclass(frozen=True)
class SassLoop:
    """A loop of the SASS: a backward branch and its target."""

    start: int         # address of the target (the loop's first instruction)
    end: int           # address of the branch
    line: int          # the branch's source line (a `for` line of the generated source)


# The SASS each engine op compiles to on sm_90 (measured with NVRTC 13): kinds of sass_kind.
EXPECTED_SASS = {
    "load": ("load",), "store": ("store",), "ldmatrix": ("ldmatrix",),
    "stmatrix": ("stmatrix",), "cp_async": ("cp_async",), "cp_async_bypass": ("cp_async",),
    "atomic": ("atomic",), "atomic_cas": ("atomic_cas",),
    "atomic_aggregated": ("atomic_aggregated",),
    "atomic_cas_loop": ("load", "cas_spin"),  # LDS, then ATOMS.CAST.SPIN until it succeeds
    # TMA and bulk copies: their bytes are the copy's, not a lane's
    "tma_load": ("tma_load",), "tma_store": ("tma_store",), "bulk_load": ("bulk_load",),
    "bulk_store": ("bulk_store",), "wgmma": ("wgmma",),
}
BULK_KINDS = ("tma_load", "tma_store", "bulk_load", "bulk_store", "wgmma")


@dataclass(frozen=True)
class SiteCheck:
    """How the compiler emitted one IR site."""

    site: int
    op: str                          # the bank engine's op the analysis costs
    width: int                       # bytes the IR states
    found: tuple[SassAccess, ...]    # instructions attributed to the site's line
    unrolled: bool                   # inside a loop the IR asks to unroll

    @property
    def expected(self) -> tuple[str, ...]:
        """The instruction kinds the analysis assumes, once per execution of the site."""
        return EXPECTED_SASS[self.op]

    @property
    def ok(self) -> bool:
        """The expected instructions at the stated width (repeated, if unrolled)."""
        if not self.found or any(a.width != self.width and a.kind not in BULK_KINDS
                                 for a in self.found):
            return False
        kinds = sorted(a.kind for a in self.found)
        copies, extra = divmod(len(kinds), len(self.expected))
        return not extra and kinds == sorted(self.expected * copies) and \
            (copies == 1 or self.unrolled)

    def describe(self) -> str:
        """What the compiler did, in words."""
        got = ", ".join(a.opcode for a in self.found) or "no shared instruction"
        if self.ok:
            return f"site {self.site}: {got} as stated ({self.width} B)"
        if self.op in ("load", "store"):
            return (f"site {self.site}: the IR states one {self.width}-byte {self.op}, the "
                    f"compiler emitted {got}")
        return (f"site {self.site}: the IR states one {self.op} ({self.width} B, compiled as "
                f"{' + '.join(self.expected)}), the compiler emitted {got}")


@dataclass(frozen=True)
class Compiled:
    """A compiled kernel: its cubin, resources and SASS check."""

    kernel: str
    arch: str
    generated: Generated
    cubin: bytes
    registers: int
    stack: int
    cubin_smem: int      # cuobjdump's SHARED figure
    local: int
    sass: str
    sites: tuple[SiteCheck, ...]
    unattributed: tuple[SassAccess, ...]
    loops: tuple[SassLoop, ...] = ()

    def shared_opcodes(self) -> list[str]:
        """Every shared-memory opcode of the SASS, sorted (two compiles emit the same
        instructions when these are equal)."""
        return sorted([a.opcode for s in self.sites for a in s.found] +
                      [a.opcode for a in self.unattributed])

    @property
    def loop_lines(self) -> tuple[int, ...]:
        """Per Loop of the kernel in walk() order, its line of the generated source."""
        return tuple(self.generated.loop_lines)

    @staticmethod
    def where(line: int) -> str:
        """A line of the SASS's source in words."""
        return f"line {line} of the generated CUDA"

    @property
    def static_smem(self) -> int:
        """Static shared memory as the driver reports it (see static_smem)."""
        return static_smem(self.arch, self.cubin_smem)

    @property
    def widths_ok(self) -> bool:
        """Every site compiled as stated, and no shared access came from nowhere."""
        return all(s.ok for s in self.sites) and not self.unattributed


def static_smem(arch: str, cubin_smem: int) -> int:
    """Static shared memory as the driver reports it (cudaFuncAttributes.sharedSizeBytes)
    from a cubin's SHARED figure.

    sm_90 cubins count the driver's 1 KiB per-block reservation in their SHARED figure
    (measured on an H200: 5,120 for a 4,096-byte tile, where the driver says 4,096); the
    occupancy calculator adds that reservation itself, so it is taken out here. sm_80
    cubins do not include it. Architectures newer than sm_90 are not measured: their
    figure is returned as the cubin gives it.
    """
    if arch.rstrip("af") == "sm_90":
        return max(cubin_smem - 1024, 0)
    return cubin_smem


def nvrtc_cubin(source: str, arch: str, name: str) -> bytes:
    """Compile CUDA C++ to a cubin with NVRTC through cuda.core, with line information.

    Cubins are kept in a cache directory ($SMEMSIM_CACHE, else ~/.cache/smemsim; set it to
    an empty string to turn the cache off), keyed by the source, arch, name and NVRTC's
    version: a large unrolled kernel takes NVRTC seconds, and `--as-compiled` compiles twice.
    """
    try:
        from cuda.bindings import nvrtc
        from cuda.core import Program, ProgramOptions
    except ImportError as err:
        raise ToolMissing("cuda-python is not installed: `pip install 'smemsim[gpu]'` "
                          "(cuda-core, cuda-bindings, nvidia-cuda-nvrtc)") from err
    version = nvrtc.nvrtcVersion()[1:]
    key = hashlib.sha256(repr((source, arch, name, version, CACHE_FORMAT)).encode()).hexdigest()
    folder = cache_dir("cubin")
    cached = folder / f"{key}.cubin" if folder is not None else None
    kept = open_sealed(cached, key)
    if kept is not None:
        return kept
    opts = ProgramOptions(std="c++17", arch=arch, lineinfo=True, name=name)
    try:
        cubin = bytes(Program(source, code_type="c++", options=opts).compile("cubin").code)
    except Exception as err:  # NVRTC's errors come as several exception types
        raise CompileError(f"NVRTC could not compile '{name}' for {arch}:\n{err}") from err
    if cached is not None:
        store(cached, sealed(key, cubin))
    return cubin


CACHE_FORMAT = 1  # bump when the compile options change


_OPCODE = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?"
                     r"((?:LDSM|STSM|LDGSTS|ATOMS|LDS|STS|UTMALDG|UTMASTG|UBLKCP|HGMMA)(?:\.[\w]+)*)(?=[\s;])")
# `@!PT` (and `@!UPT`): predicated on never-true; ptxas pads LDGSTS with `@!PT LDS RZ, [RZ]`
_NEVER = ("@!PT", "@!UPT")
# generic loads and stores (`LD.E`, `ST.E.64`): shared memory where the toolkit's wmma
# functions emit them (bf16 and tf32 fragments on sm_90: the H100 counts them as shared
# requests); elsewhere they may be global, and are not read
_GENERIC = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?"
                      r"((?:LD|ST)(?:\.[\w]+)*)(?=[\s;])")
_WMMA_MARK = "\t//## wmma"
# and where libcu++'s block-scope cuda::pipeline keeps its shared state's count through a
# generic pointer (cuda::atomic: LD, ST and one elected lane's ATOM a warp)
_PIPELINE_MARK = "\t//## pipeline state"
_STATE_ACCESS = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?"
                           r"((?:LD|ST|ATOM)(?:\.[\w]+)*)(?=[\s;])")
_REDUX = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?REDUX(?:\.[\w]+)*\s")
_LINE = re.compile(r'//## File "(.*)", line (\d+)')
_ADDRESS = re.compile(r"^\s*/\*([0-9a-f]+)\*/")
_LABEL = re.compile(r"^\s*(\.L_\w+):")
_BRANCH = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?BRA(?:\.[\w]+)*\s+`\((\.L_\w+)\)")


def sass_kind(opcode: str) -> str:
    """What a shared-memory opcode is, in the bank engine's terms (CAS-loop spins apart)."""
    if opcode.startswith("ATOMS"):
        if opcode.startswith("ATOMS.CAST.SPIN"):
            return "cas_spin"
        if opcode.startswith("ATOMS.CAS"):
            return "atomic_cas"
        if opcode.startswith("ATOMS.POPC.INC"):
            return "atomic_aggregated"
        return "atomic"
    if opcode.startswith("UBLKCP"):   # UBLKCP.S.G: global to shared; UBLKCP.G.S: back
        return "bulk_load" if opcode.startswith("UBLKCP.S.G") else "bulk_store"
    return {"LDSM": "ldmatrix", "STSM": "stmatrix", "LDGSTS": "cp_async", "LDS": "load",
            "STS": "store", "LD": "load", "ST": "store", "UTMALDG": "tma_load",
            "UTMASTG": "tma_store", "HGMMA": "wgmma"}[opcode.split(".")[0]]


def _width(opcode: str) -> int:
    mods = opcode.split(".")[1:]
    if opcode.startswith(("LDSM", "STSM")):
        return 16  # each lane gives one 16-byte row
    for m in mods:
        if m in ("U8", "S8"):
            return 1
        if m in ("U16", "S16"):
            return 2
        if m == "64":
            return 8
        if m == "128":
            return 16
    return 4


_TOOLKIT_FILE = re.compile(r"/include/cccl/|/cuda(?:-[\d.]+)?/(?:targets/[^/]+/)?include/")
_MARK = re.compile(r'//## File "([^"]*)", line (\d+)')   # the first place of a -gi mark


def _innermost_user_lines(text: str) -> str:
    """`nvdisasm -gi` output with each chain of `//## File X, line N inlined at ...` marks
    (innermost first, then the outer ones, then the outermost plain mark) replaced by one
    plain mark: the innermost line in the user's files, not the toolkit's headers (a
    libcu++ wrapper's UTMALDG belongs to the line that called the wrapper; an instruction
    of the user's own inlined function to that function's line, as with -g)."""
    out, marks = [], []

    def flush():
        if any("inlined at" in m for m in marks):
            places = [_MARK.search(m) for m in marks]
            # (normalized: nvcc names its headers `.../cuda-13.0/bin/../targets/.../include/`)
            user = [p for p in places
                    if p and not _TOOLKIT_FILE.search(os.path.normpath(p.group(1)))]
            chosen = (user or places[-1:])[0]
            out.append(f'\t//## File "{chosen.group(1)}", line {chosen.group(2)}')
            if places[0] and places[0].group(1).endswith("/mma.hpp") and \
                    _TOOLKIT_FILE.search(os.path.normpath(places[0].group(1))):
                out.append(_WMMA_MARK)   # the toolkit's wmma functions, inlined
            if any(p and p.group(1).endswith("/cuda/pipeline") and
                   _TOOLKIT_FILE.search(os.path.normpath(p.group(1))) for p in places):
                out.append(_PIPELINE_MARK)   # libcu++'s pipeline, inlined
        else:
            out.extend(marks)
        marks.clear()
    for raw in text.splitlines():
        if _LINE.search(raw):
            marks.append(raw)
            continue
        flush()
        out.append(raw)
    flush()
    return "\n".join(out)


def parse_sass(text: str) -> list[SassAccess]:
    """Shared-memory instructions of `nvdisasm -g` output, with their source lines."""
    out, line, reduced, wmma, state = [], 0, set(), False, False
    for raw in _innermost_user_lines(text).splitlines():
        m = _LINE.search(raw)
        if m:
            line, wmma, state = int(m.group(2)), False, False
            continue
        if raw == _WMMA_MARK:
            wmma = True
            continue
        if raw == _PIPELINE_MARK:
            state = True
            continue
        if _REDUX.match(raw):
            reduced.add(line)
        m = _OPCODE.match(raw) or (_GENERIC.match(raw) if wmma else None) or \
            (_STATE_ACCESS.match(raw) if state else None)
        if m and (m.group(1) or "").strip() not in _NEVER:
            op = m.group(2)
            address = int(_ADDRESS.match(raw).group(1), 16)
            # the state's generic ATOM: one lane a warp adds the warp's count (aggregated)
            kind = "atomic_aggregated" if op.startswith("ATOM.") else sass_kind(op)
            out.append(SassAccess(op, kind, _width(op), line, address))
    # a REDUX on an atomic's line: the compiler reduced the warp's values first and one lane
    # issues the ATOMS (a warp-uniform address, result unused): aggregated per address
    return [replace(a, kind="atomic_aggregated")
            if a.kind == "atomic" and a.line in reduced else a for a in out]


def parse_loops(text: str) -> tuple[SassLoop, ...]:
    """The loops of `nvdisasm -g` output: every branch back to an earlier label (lines as
    for parse_sass)."""
    labels, branches, line, pending = {}, [], 0, []
    for raw in _innermost_user_lines(text).splitlines():
        m = _LINE.search(raw)
        if m:
            line = int(m.group(2))
            continue
        m = _LABEL.match(raw)
        if m:
            pending.append(m.group(1))
            continue
        m = _ADDRESS.match(raw)
        if not m:
            continue
        address = int(m.group(1), 16)
        for label in pending:
            labels[label] = address
        pending = []
        b = _BRANCH.match(raw)
        if b:
            branches.append((address, b.group(2), line))
    return tuple(SassLoop(labels[target], address, line) for address, target, line in branches
                 if target in labels and labels[target] <= address)


def parse_resources(text: str) -> dict[str, dict[str, int]]:
    """`cuobjdump --dump-resource-usage` output: function -> {"REG": .., "SHARED": .., ...}
    (each function's own line; a cubin of several kernels lists each in turn)."""
    out = {}
    for part in text.split("Function ")[1:]:
        name, _, rest = part.partition(":")
        line = rest.strip().splitlines()[0] if rest.strip() else ""
        out[name.strip()] = {k: int(v) for k, v in
                             re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line)}
    return out


def cubin_resources(cubin_path: str) -> dict[str, dict[str, int]]:
    """Every function's resources in a cubin (parse_resources of cuobjdump's report)."""
    return parse_resources(subprocess.run(
        [find_tool("cuobjdump"), "--dump-resource-usage", cubin_path], capture_output=True,
        text=True, check=True).stdout)


def _resources(cubin_path: str, kernel: str) -> dict[str, int]:
    return cubin_resources(cubin_path).get(kernel, {})


def unrolled_sites(kernel: Kernel) -> set[int]:
    """The sites inside a loop the IR asks to unroll (their instructions may repeat)."""
    out = set()
    for s in walk(kernel.body):
        if isinstance(s, Loop) and s.unroll:
            out |= {x.site for x in walk(s.body) if getattr(x, "site", None) is not None}
    return out


def compile_kernel(kernel: Kernel, arch: str = "sm_90") -> Compiled:
    """Generate, compile and check one kernel for an architecture."""
    from smemsim.engine.arch import require_instructions
    require_instructions(kernel, arch)
    gen = generate(kernel)
    if arch == "sm_90" and any(isinstance(s, Wgmma) for s in walk(kernel.body)):
        arch = "sm_90a"   # wgmma exists only in the architecture-specific target
    cubin, res, sass = _built(gen.source, arch, kernel.name)
    accesses = parse_sass(sass)
    unrolled = unrolled_sites(kernel)
    line_to_site = {line: site for site, line in gen.site_lines.items()}
    checks = []
    # ptxas scatters the line info of HGMMA (the asm statements are long and its operands'
    # setup moves): where the kernel holds as many HGMMA as wgmma sites, they are the
    # sites' in program order
    gmma = sorted((a for a in accesses if a.kind == "wgmma"), key=lambda a: a.address)
    gmma_sites = [stmt.site for stmt in kernel.sites() if stmt.GMMA]
    by_order = dict(zip(gmma_sites, gmma)) if len(gmma) == len(gmma_sites) else {}
    for stmt in kernel.sites():
        line = gen.site_lines[stmt.site]
        found = (by_order[stmt.site],) if stmt.site in by_order else tuple(
            a for a in accesses if a.line == line and (a.kind != "wgmma" or not by_order))
        checks.append(SiteCheck(stmt.site, stmt.op, stmt.access_bytes, found,
                                stmt.site in unrolled))
    placed = set(map(id, by_order.values()))
    unattributed = tuple(a for a in accesses
                         if id(a) not in placed and a.line not in line_to_site)
    return Compiled(kernel.name, arch, gen, cubin, res.get("REG", 0), res.get("STACK", 0),
                    res.get("SHARED", 0), res.get("LOCAL", 0), sass, tuple(checks),
                    unattributed, parse_loops(sass))


def _built(source: str, arch: str, name: str) -> tuple[bytes, dict, str]:
    """(cubin, resources, SASS) of generated CUDA: NVRTC, cuobjdump and nvdisasm, or what a
    run before kept ($SMEMSIM_CACHE/compiled, JSON checked field by field; keyed by the
    source, arch and the tools' files, so a warm run imports no cuda-python and starts no
    tool)."""
    folder = cache_dir("compiled")
    key = hashlib.sha256(json.dumps([source, arch, name, CACHE_FORMAT, _toolchain()])
                         .encode()).hexdigest()
    entry = folder / f"{key}.json" if folder is not None else None
    kept = _load_built(entry, key)
    if kept is not None:
        return kept
    cubin = nvrtc_cubin(source, arch, f"{name}.cu")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{name}.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        res = _resources(path, name)
        sass = subprocess.run([find_tool("nvdisasm"), "-g", "-c", path], capture_output=True,
                              text=True, check=True).stdout
    if entry is not None:
        store(entry, sealed(key, json.dumps({"cubin": base64.b64encode(cubin).decode(),
                                             "resources": res, "sass": sass}).encode()))
    return cubin, res, sass


def _toolchain() -> list:
    """What identifies the compile's tools without importing them: the NVRTC library, and
    nvdisasm's and cuobjdump's files (path, size, modification time)."""
    found = []
    for entry in sys.path:
        found += sorted(str(p) for p in Path(entry).glob("nvidia/*/lib/libnvrtc.so*"))
    out = []
    for path in found[:1] + [_tool_or_none("nvdisasm"), _tool_or_none("cuobjdump")]:
        try:
            st = os.stat(path) if path else None
        except OSError:
            st = None
        out.append([path, st.st_size if st else 0, st.st_mtime_ns if st else 0])
    return out


def _tool_or_none(name: str) -> str | None:
    try:
        return find_tool(name)
    except ToolMissing:
        return None


def _load_built(path, key: str) -> tuple[bytes, dict, str] | None:
    """A kept compile, sealed under its key, or None (missing, unreadable, edited or not
    what it should be: a miss)."""
    payload = open_sealed(path, key)
    if payload is None:
        return None
    try:
        data = json.loads(payload)
        cubin = base64.b64decode(data["cubin"], validate=True)
        res, sass = data["resources"], data["sass"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return None   # (RecursionError: an entry nested deeper than json reads)
    if not (isinstance(res, dict) and all(isinstance(k, str) and type(v) is int and
                                          0 <= v < 1 << 32 for k, v in res.items())
            and isinstance(sass, str)):
        return None
    return cubin, res, sass


def kernel_resources(kernel: Kernel, arch: str) -> tuple[int, int]:
    """(registers per thread, static shared memory as the driver reports it) of the kernel's
    NVRTC build: what occupancy needs from a compile (smemsim sweep's --regs compile)."""
    c = compile_kernel(kernel, arch)
    return c.registers, c.static_smem

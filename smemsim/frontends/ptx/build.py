"""The user's own build, to PTX: nvcc with their flags and line information, on a private
copy of their file (smemsim.toolrun), cached by content.

The cache is keyed by the file's bytes, the flags and nvcc's version; an entry also records
every header the build read (nvcc's `-MD` list) with its digest, and is used only while each
of them is unchanged, so an edited header is a new build (as ccache's direct mode does).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil

from kernels_ir import KernelError, SourceLoc

from ...cache import cache_dir, open_sealed, sealed, store
from ...toolrun import (STAGE_MARK, ToolMissing, find_tool, nvcc_first_error,
                       refuse_shell_text, run_tool, staged, unstage)

CACHE_FORMAT = 1


def find_nvcc() -> str:
    """nvcc: the toolkit's (PATH, CUDA_HOME, /usr/local/cuda) or the nvidia-cuda-nvcc wheel's
    that smemsim's install brings, else a clear error."""
    try:
        return find_tool("nvcc")
    except ToolMissing:
        raise KernelError("nvcc not found: the PTX frontend builds your file with nvcc (the "
                          "CUDA toolkit, or pip install nvidia-cuda-nvcc nvidia-cuda-cccl, "
                          "which smemsim's install brings)") from None


def host_compiler_missing(flags) -> str | None:
    """Why nvcc cannot preprocess a file here (it does so through a host C++ compiler: g++
    unless `-ccbin` names one), or None."""
    if any(f.split("=")[0] in ("-ccbin", "--compiler-bindir") for f in flags):
        return None
    if shutil.which("g++") is None or shutil.which("gcc") is None:
        return ("nvcc needs a host C++ compiler to preprocess your file and none is on PATH "
                "(gcc and g++): install one (apt install g++, or your system's compiler), or "
                "name it with --nvcc-flag=-ccbin=PATH")
    return None


def _host_compiler(flags) -> None:
    """Say so before nvcc fails with 'Failed to preprocess host compiler properties'."""
    why = host_compiler_missing(flags)
    if why is not None:
        raise KernelError(why)


class _ArchSpecific(KernelError):
    """nvcc refused code that only the architecture's `a` variant has (wgmma, setmaxnreg
    on sm_90: the user's build names sm_90a)."""


def ptx_of(path: str, *, arch: str = "sm_90", defines=None, include_dirs=(),
           flags=(), instance: str | None = None, text: str | None = None) -> str:
    """_ptx_of for `arch`, or for its `a` variant (sm_90a) where the file has code only that
    variant has: the target the user's build of such a file names."""
    try:
        return _ptx_of(path, arch=arch, defines=defines, include_dirs=include_dirs,
                       flags=flags, instance=instance, text=text)
    except _ArchSpecific:
        if arch.endswith("a"):
            raise
        return _ptx_of(path, arch=arch + "a", defines=defines, include_dirs=include_dirs,
                       flags=flags, instance=instance, text=text)


# nvcc options that would make it build something other than the PTX smemsim reads (the
# output, the phase, the target: smemsim chooses them)
_CHOSEN = ("-o", "--output-file", "-c", "--compile", "-E", "--preprocess", "-M", "-MD", "-MF",
           "-cubin", "--cubin", "-ptx", "--ptx", "-fatbin", "--fatbin", "-dryrun", "--dryrun",
           "-V", "--version", "-h", "--help", "--list-gpu-arch", "--list-gpu-code",
           "-arch-ls", "-code-ls", "-arch", "--gpu-architecture", "-gencode",
           "--generate-code", "-code", "--gpu-code", "-run", "--run", "-lib", "--lib",
           "-link", "--link")


def check_flags(flags) -> tuple[str, ...]:
    """The user's extra nvcc flags, refusing those that change what is built (one line)."""
    for f in flags:
        name = f.split("=", 1)[0]
        if name in _CHOSEN or name.startswith(("-arch", "-gencode", "-code")):
            raise KernelError(f"--nvcc-flag {f}: smemsim chooses this itself (the PTX, "
                              "--arch, the file); leave it out")
    return tuple(flags)


def _ptx_of(path: str, *, arch: str, defines=None, include_dirs=(), flags=(),
            instance: str | None = None, text: str | None = None) -> str:
    """The PTX nvcc makes of the user's `.cu` (device code only, `-lineinfo`), its `.file`
    names the user's own paths; `instance`: a template kernel to instantiate (`k<128, 8>`,
    made of values the importer read, never text of the command line or the file);
    `text`: CUDA to build instead of the file's bytes (a Python program's string, its
    `#line` directives numbering it as lines of `path`, which its `.file` then names)."""
    nvcc = find_nvcc()
    macros = _macros(defines or {})
    refuse_shell_text(check_flags(flags), "--nvcc-flag")
    options = ["-ptx", f"-arch={arch}", "-lineinfo", "-w", *flags]
    source = os.path.abspath(path)
    includes = tuple(os.path.abspath(d) for d in include_dirs)
    try:
        with open(source, "rb") as f:
            data = f.read()
    except OSError as err:
        raise KernelError(f"{path}: {err.strerror}") from None
    if text is not None:
        data = b"text\0" + text.encode()
    # which nvcc, as its files stand (a warm run asks nvcc nothing: `--version` costs a
    # process); the compiler proper (cicc, ptxas) sits beside it in the same install
    version = [(f, st.st_size, st.st_mtime_ns) for f in (nvcc, os.path.realpath(nvcc))
               for st in [os.stat(f)]]
    unit = "" if instance is None else f"void *smemsim_instance = (void *)&{instance};\n"
    key = hashlib.sha256(repr([options, macros, source, includes, version, CACHE_FORMAT,
                               unit, hashlib.sha256(data).hexdigest()]).encode()).hexdigest()
    folder = cache_dir("ptx")
    entry = folder / f"{key}.ptx" if folder is not None else None
    marked = _cached(entry, key)
    if marked is None:
        _host_compiler(flags)
        try:
            marked, deps = _build(nvcc, options, source, includes, unit, text, macros)
        except _ArchSpecific as err:
            # remembered too: the next run goes straight to the `a` variant instead of
            # paying nvcc's refusal again (a second of every warm run of a wgmma kernel)
            if entry is not None and not any("\n" in f for f in err.deps):
                store(entry, sealed(key, _entry(_ARCH_SPECIFIC + str(err), err.deps)))
            raise
        if entry is not None and not any("\n" in f for f in deps):
            store(entry, sealed(key, _entry(marked, deps)))
    if marked.startswith(_ARCH_SPECIFIC):
        raise _ArchSpecific(marked[len(_ARCH_SPECIFIC):])
    return _user_paths(marked, source, includes, path)


# a cache entry's text in place of PTX: nvcc refused the build for this arch, for code
# only its `a` variant has (nvcc's PTX never starts so)
_ARCH_SPECIFIC = "smemsim: arch-specific\n"


def _macros(defines: dict) -> str:
    """The user's -D macros as `#define` lines of a header nvcc includes first: their text
    never reaches nvcc's command line, which nvcc hands to a shell (a function-like macro's
    spaces, `CEIL_DIV(M, N)=...`, would split there)."""
    lines = []
    for name, value in defines.items():
        if not re.fullmatch(r"[A-Za-z_]\w*(\([\w\s,.]*\))?", name):
            raise KernelError(f"-D {name!r}: a macro name (NAME or NAME(ARGS)) expected")
        if value is not None and ("\n" in value or "\r" in value):
            raise KernelError(f"-D {name}: its value holds a line break")
        lines.append(f"#define {name} {1 if value is None else value}\n")
    return "".join(lines)


def _build(nvcc: str, options: list[str], source: str, includes, unit: str,
           text: str | None = None, macros: str = "") -> tuple[str, dict]:
    """nvcc on a staged copy: the user's file (or `text`, beside it in the staged `src`
    folder, which names the user's file) `-include`d into a unit of our own (the template
    instance, if any), after a header of the user's -D macros; (the PTX with staged names
    marked, header -> digest)."""
    with staged(source, includes) as stage:
        out, deps, main, header = (os.path.join(stage.folder, n) for n in (
            "k.ptx", "k.d", "smemsim_instance.cu", "smemsim_defines.h"))
        with open(main, "w") as f:
            f.write(unit)
        with open(header, "w") as f:
            f.write(macros)
        built = stage.source
        if text is not None:
            built = os.path.join(os.path.dirname(stage.source), "strings.cu")
            with open(built, "w") as f:
                f.write(text)
        done = run_tool([nvcc, *options, *stage.include_flags(), "-MD", "-MF", deps,
                         "-include", header, "-include", built, "-o", out, main],
                        folder=stage.folder)
        if done.returncode:   # (one line: the first error of nvcc's log)
            log = stage.user_named(done.stderr.strip().replace(built, source))
            kind = _ArchSpecific if re.search(r"not supported on \.target '?sm_\d+'?|"
                                              r"requires \.target sm_\d+a", log) else KernelError
            first = nvcc_first_error("nvcc could not build the file:\n" + log)
            missing = re.search(r"fatal error: ([\w./+-]+): No such file", first)
            hint = (f"; where only host code uses {missing.group(1)} (cuBLAS, MPI, OpenGL), "
                    f"an empty stand-in of it in a folder given with -I lets the kernels "
                    "build") if missing else ""
            if re.search(r"Unsupported gpu architecture 'sm_101", first):
                hint += "; CUDA 13 calls Thor's architecture sm_110: --arch sm_110"
            err = kind(first + " (build flags: -D, -I and --nvcc-flag, as your build has "
                       f"them{hint})")
            if kind is _ArchSpecific:   # (the headers it read, for its cache entry)
                err.deps = _headers(stage, deps, source, includes)
            at = re.search(r": (\S+?):(\d+): (?:fatal )?error", first)
            if at:   # (where, for --json's error.file and .line: the message says it already)
                err.loc = SourceLoc(at.group(1), int(at.group(2)))
            raise err
        with open(out) as f:
            ptx = stage.marked(f.read())
        files = _headers(stage, deps, source, includes)
    return ptx, files


def _headers(stage, deps: str, source: str, includes) -> dict:
    """The user's headers a staged build read (its `-MD` file), path -> digest; {} where
    nvcc wrote none."""
    try:
        with open(deps) as f:
            read = _dependencies(stage.marked(f.read()))
    except OSError:
        return {}
    files = {}
    for name in read:
        real = unstage(name, source, includes)
        if real != source and not name.startswith(STAGE_MARK + "/src/") and \
                not name.endswith(("smemsim_instance.cu", "smemsim_defines.h")):
            files[real] = _digest(real)
    return files


def _dependencies(make_rule: str) -> list[str]:
    """The files of a `-MD` rule (`target: a.cu b.h \\` ...)."""
    body = make_rule.partition(":")[2].replace("\\\n", " ")
    return [w.replace("\\ ", " ") for w in body.split() if w != "\\"]


_HEAD = "smemsim-ptx 1\n"


def _entry(ptx: str, deps: dict) -> bytes:
    """A cache entry: a header line, one line per header read (`digest path`), a blank
    line, the PTX (plain text, read back without evaluating anything)."""
    return (_HEAD + "".join(f"{d} {f}\n" for f, d in deps.items()) + "\n" + ptx).encode()


def _cached(entry, key: str) -> str | None:
    """The cached PTX, if its entry is the unchanged one of this key and every header it
    read is unchanged (anything else is a miss)."""
    data = open_sealed(entry, key)
    if data is None:
        return None
    text = data.decode("utf-8", "replace")
    head, sep, ptx = text.partition("\n\n")
    lines = head.split("\n")
    if not sep or lines[0] + "\n" != _HEAD:
        return None
    for line in lines[1:]:
        digest, _, name = line.partition(" ")
        if len(digest) != 64 or _digest(name) != digest:
            return None
    return ptx


def _digest(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return ""


def _user_paths(ptx: str, source: str, includes, given: str | None = None) -> str:
    """PTX whose `.file` lines name the staged copies, with the user's paths instead (the
    user's file as `given` on the command line, as every message names it)."""
    out = []
    for line in ptx.split("\n"):
        if line.lstrip().startswith(".file") and STAGE_MARK in line:
            head, _, rest = line.partition('"')
            name, _, tail = rest.partition('"')
            real = os.path.normpath(unstage(name, source, includes))
            if given is not None and real == source:
                real = given
            line = head + '"' + real.replace("\\", "\\\\").replace('"', '\\"') + '"' + tail
        out.append(line)
    return "\n".join(out)

"""Kernel symbols as a build names them: Itanium-mangled names read back to the kernel's
name and template arguments, to find the instance a user asked for among a build's
functions (its SASS sections, its PTX entries)."""
from __future__ import annotations

import re

from kernels_ir import KernelError


_BUILTIN = {"f": "f32", "d": "f64", "i": "i32", "j": "u32", "h": "u8", "a": "i8", "c": "i8",
            "s": "i16", "t": "u16", "l": "i64", "x": "i64", "m": "u64", "y": "u64",
            "b": "bool"}


def kernel_symbol(symbols, instance, error=KernelError) -> str:
    """The symbol of the instance's kernel (smemsim.frontends.cuda.Instance) among a build's
    functions (raises `error` when none, or more than one, is it)."""
    sass = symbols
    named = {sym: parsed for sym in sass if (parsed := demangle(sym)) is not None and
             parsed[0] == instance.name}
    if len(named) == 1:
        return next(iter(named))
    if instance.template_args is not None:
        for sym, (_, args) in named.items():
            if _same_arguments(args, instance):
                return sym
    if not named:
        raise error(f"nvcc's build has no kernel '{instance.name}' (it has: "
                           f"{', '.join(sass) or 'none'})")
    if instance.cxx is None:   # (overloads: a name the file defines twice)
        shown = "; ".join(f"{_signature(sym)} ({sym})" for sym in named)
        raise error(f"'{instance.name}' is overloaded: nvcc's build has {len(named)} kernels "
                    f"of that name ({shown}); smemsim tells a file's kernels apart by "
                    "name, so it cannot say which launch is which: give each its own name, "
                    "or analyze one with --kernel SYMBOL and its launch (--launch-grid, "
                    "--launch-block, -p param_N=VALUE)")
    raise error(f"nvcc's build has {len(named)} kernels named '{instance.name}' "
                f"({', '.join(named)}) and none is clearly {instance.cxx}")


def _signature(symbol: str) -> str:
    """`hist(int const*, int*, int)`: a symbol as the binutils demangler writes it (given
    as data on its standard input), else the symbol."""
    import shutil

    from ...toolrun import run_tool
    tool = shutil.which("c++filt")
    if tool is None:
        return symbol
    text = run_tool([tool], input=symbol + "\n").stdout.strip()
    return text[5:] if text.startswith("void ") else text or symbol


def instance_symbol(symbols, instance) -> str | None:
    """The symbol of a template kernel's instance (smemsim.frontends.cuda.Instance) where a
    build has it with exactly its arguments (a build the file itself instantiates it in),
    else None."""
    if instance.template_args is None:
        return None
    found = [sym for sym in symbols if (parsed := demangle(sym)) is not None and
             parsed[0] == instance.name and _same_arguments(parsed[1], instance)]
    return found[0] if len(found) == 1 else None


def _same_arguments(args, instance) -> bool:
    """Whether a symbol's demangled template arguments are the instance's (a number's
    type aside: `128` whether int or unsigned)."""
    from smemsim.frontends.cuda.symbols import TYPES
    want = [(t, v) if t != v else ("type", TYPES.get(v, v))
            for t, v in zip(instance.types, instance.values)]
    return args is not None and len(args) == len(want) and all(
        a == w or (a[0] != "type" and w[0] != "type" and a[1] == w[1])
        for a, w in zip(args, want))


def demangle(symbol: str):
    """(name, template arguments or None) of a kernel symbol: a plain name (extern "C"), or
    an Itanium-mangled function `_Z..` with its template arguments read where they are
    numbers (`("i32", 128)`) or types (`("type", "f32")`, a named type as its name;
    anything else as `("?", text)`); None when it is neither."""
    if not symbol.startswith("_Z"):
        return (symbol, None) if re.fullmatch(r"[A-Za-z_]\w*", symbol) else None
    i, name = 2, None
    if symbol.startswith("_ZN"):
        i = 3
        while i < len(symbol) and symbol[i].isdigit():
            name, i = _source_name(symbol, i)
            if i < len(symbol) and symbol[i] == "I":
                break
    else:
        if i < len(symbol) and symbol[i].isdigit():
            name, i = _source_name(symbol, i)
    if name is None:
        return None
    if i >= len(symbol) or symbol[i] != "I":
        return name, None
    args, i = [], i + 1
    while i < len(symbol) and symbol[i] != "E":
        if symbol[i] == "L":  # a literal: L <type> <number> E
            m = re.compile(r"L([a-z])(n?)(\d+)E").match(symbol, i)
            if m is None:
                return name, None
            value = int(m.group(3)) * (-1 if m.group(2) else 1)
            args.append((_BUILTIN.get(m.group(1), "?"), value))
            i = m.end()
        elif symbol[i] in _BUILTIN:
            args.append(("type", _BUILTIN[symbol[i]]))
            i += 1
        elif symbol[i].isdigit():
            ident, i = _source_name(symbol, i)
            from smemsim.frontends.cuda.symbols import TYPES
            args.append(("type", TYPES.get(ident, ident)))
        else:
            return name, None
    return name, tuple(args)


def _source_name(symbol: str, i: int) -> tuple[str, int]:
    m = re.compile(r"(\d+)").match(symbol, i)
    n = int(m.group(1))
    return symbol[m.end():m.end() + n], m.end() + n


def local_name(symbol: str) -> str:
    """The source's name of a variable nvcc named by its Itanium symbol: a function's
    static `__shared__ float tile[..]` is `_ZZ9transposePKfPfiE4tile`, tile; a namespace's
    `M3::s` is `_ZN2M31sE`, s; any other name as it is."""
    m = re.search(r"E(\d+)([A-Za-z_]\w*?)(?:_\d+)?$", symbol) if symbol.startswith("_ZZ") \
        else None
    if m and len(m.group(2)) == int(m.group(1)):
        return m.group(2)
    if symbol.startswith("_ZN"):   # a namespace's variable, `M3::s`: _ZN2M31sE, s
        rest, last = symbol[3:], None
        while (m := re.match(r"(\d+)", rest)) is not None:
            length = int(m.group(1))
            last, rest = rest[m.end():m.end() + length], rest[m.end() + length:]
        if rest == "E" and last:
            return last
    return symbol

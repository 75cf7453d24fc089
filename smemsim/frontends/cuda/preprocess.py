"""The C preprocessor, as nvcc runs it on device code: macros (object- and function-like,
`#`, `##`, `__VA_ARGS__`), conditionals, the user's own `#include "..."` files, and what
the CUDA compiler and headers predefine.

Every output token keeps the file, line and column it came from (a macro's expansion: the
place the macro was used), so that reports name the user's source. Nothing here evaluates
anything but integer `#if` expressions, with bounds on depth, shift counts and expansion
size: a file is data.
"""
from __future__ import annotations

import bisect
import pathlib
import re
from dataclasses import dataclass, field

from kernels_ir import SourceLoc

from .errors import CudaImportError
from .pp_expr import IfExpression, MAX_NESTING

MAX_INCLUDE_DEPTH = 64
MAX_TOKENS = 500_000        # tokens macros may produce in one file (a macro bomb is an error)
MAX_EXPANSION_DEPTH = 10_000  # macros expanding inside one another (a #define chain)

# What the toolkit's compiler and headers define that device code uses: values as nvcc
# 13.0 and its headers have them (`__CUDA_ARCH__` from the target: sm_90 is 900).
PREDEFINED = {
    "__CUDACC__": "1", "__NVCC__": "1", "__CUDACC_VER_MAJOR__": "13",
    "__CUDACC_VER_MINOR__": "0", "__cplusplus": "201703L", "__CUDA_ARCH__": "900",
    "FLT_MAX": "3.40282347e+38F", "FLT_MIN": "1.17549435e-38F", "FLT_EPSILON": "1.1920929e-07F",
    "DBL_MAX": "1.7976931348623157e+308", "INT_MAX": "2147483647",
    "INT_MIN": "(-2147483647 - 1)", "UINT_MAX": "0xffffffffU", "CHAR_BIT": "8",
    "SHRT_MAX": "32767", "USHRT_MAX": "65535", "LLONG_MAX": "9223372036854775807LL",
    "INFINITY": "__builtin_huge_valf()", "NAN": "__builtin_nanf(\"\")",
    "CUDART_INF_F": "__builtin_huge_valf()", "NULL": "0",
    # glibc's <math.h> (g++ defines _GNU_SOURCE, so nvcc's host pass sees them too)
    "M_E": "2.7182818284590452354", "M_LOG2E": "1.4426950408889634074",
    "M_LOG10E": "0.43429448190325182765", "M_LN2": "0.69314718055994530942",
    "M_LN10": "2.30258509299404568402", "M_PI": "3.14159265358979323846",
    "M_PI_2": "1.57079632679489661923", "M_PI_4": "0.78539816339744830962",
    "M_1_PI": "0.31830988618379067154", "M_2_PI": "0.63661977236758134308",
    "M_2_SQRTPI": "1.12837916709551257390", "M_SQRT2": "1.41421356237309504880",
    "M_SQRT1_2": "0.70710678118654752440",
}
# headers of the toolkit and the C/C++ library: their declarations are the importer's own
# knowledge (types, intrinsics, PREDEFINED), so an #include of one is satisfied as it is
SYSTEM_HEADERS = re.compile(
    r"(cuda|cuda_runtime|cuda_runtime_api|device_launch_parameters|cuda_fp16|cuda_bf16|"
    r"cuda_fp8|cuda_pipeline|cuda_pipeline_primitives|cuda_awbarrier_primitives|"
    r"cooperative_groups|cooperative_groups/\w+|mma|math_constants|device_functions|"
    r"sm_\d+_intrinsics|vector_types|builtin_types|crt/\w+|cuda/\w+|cub/.*|thrust/.*|"
    r"assert|stdio|stdlib|stdint|stddef|math|float|limits|string|time|"
    r"c?(assert|stdio|stdlib|stdint|stddef|math|float|limits|string|time)|iostream|vector|"
    r"algorithm|random|chrono|cstring|type_traits|utility|memory|numeric|functional|array|"
    r"sys/\w+|unistd|cublas_v2|cublas|curand|curand_kernel|helper_cuda|helper_functions|"
    r"helper_math|nvToolsExt|omp|mpi)(\.h|\.hpp|\.cuh)?")

# What some of those define that a program's own `#if` tests, as glibc's headers on Linux
# (where nvcc runs) define them: Parboil's parboil.h stops with #error unless
# `_POSIX_VERSION >= 200112L`, which <unistd.h> defines
HEADER_MACROS = {
    "unistd.h": {"_POSIX_VERSION": "200809L", "_POSIX2_VERSION": "200809L",
                 "_XOPEN_VERSION": "700"},
}

# Of those, the headers of the toolkit and its libraries (not helper_*.h, which define device
# functions kernels call, so are read where an -I folder has them).
TOOLKIT_HEADERS = re.compile(
    r"(cuda|cuda_\w+|device_\w+|driver_\w+|host_\w+|library_types|vector_types|builtin_types|"
    r"cooperative_groups|cooperative_groups/\w+|mma|math_constants|sm_\d+_\w+|crt/\w+|"
    r"cuda/.*|cub/.*|thrust/.*|cublas\w*|cublasLt|curand\w*|cufft\w*|cusparse\w*|"
    r"cusolver\w*|nvToolsExt|nvtx3/.*)(\.h|\.hpp|\.cuh)?")

_SPLICE = re.compile(r"\\\r?\n")
_NEWLINE = re.compile(r"\n")
_TOKEN = re.compile(r"""
    (?P<ws>[ \t\f\v\r]+)
  | (?P<nl>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<open_comment>/\*)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.']|)*)
  | (?P<str>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*")
  | (?P<chr>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])+')
  | (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<punct>%:%:|\.\.\.|<<=|>>=|->\*|<=>|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\*=|/=|%=
              |\+=|-=|&=|\^=|\|=|\#\#|::|\.\*|[-+*/%&|^~!=<>?:;,.()\[\]{}\#\\@`])
  | (?P<bad>["'])
""", re.S | re.X)
_PUNCTS = {"...", "<<=", ">>=", "->*", "<=>", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
           "!=", "&&", "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "::", ".*"}


# every file the preprocessor has read in this process (real paths): the command never
# writes an output over one of them (smemsim.cli.outputs)
FILES_READ: set[str] = set()


class Token:
    """One preprocessing token and where it stands in the user's files (a plain slotted
    class: expansion copies millions of them, and a dataclass's replace() is slow)."""

    __slots__ = ("kind", "text", "loc", "space", "painted")

    def __init__(self, kind: str, text: str, loc: SourceLoc, space: bool = False,
                 painted: bool = False):
        self.kind = kind      # id, num, str, chr, punct; "end" marks where a macro's
        self.text = text      # expansion ends (text: the macro's name) on the work stack
        self.loc = loc
        self.space = space    # white space before it
        self.painted = painted  # a macro's name read inside its own expansion: never expands

    def but(self, **changes) -> "Token":
        """A copy with some fields changed."""
        t = Token(self.kind, self.text, self.loc, self.space, self.painted)
        for k, v in changes.items():
            setattr(t, k, v)
        return t

    def __repr__(self) -> str:
        return f"Token({self.text!r} at {self.loc})"


@dataclass
class Macro:
    """A #define: its parameters (None for object-like), body and where it was defined."""

    name: str
    params: tuple[str, ...] | None
    body: tuple[Token, ...]
    loc: SourceLoc | None
    variadic: bool = False

    def __post_init__(self):
        self.pastes = any(t.text == "##" for t in self.body)  # its body has a ## in it


@dataclass
class Output:
    """The preprocessed text and, for each token start in it, the user's location."""

    text: str
    locs: dict[tuple[int, int], SourceLoc]            # (row, column) -> location
    rows: list[SourceLoc | None] = field(default_factory=list)  # row -> its first token's
    includes: list[str] = field(default_factory=list)  # the user's files read, in order
    macros: dict[str, Macro] = field(default_factory=dict)  # defined at the end

    def loc(self, row: int, column: int) -> SourceLoc | None:
        """The location of the token at (row, column) of the output, or of the row."""
        found = self.locs.get((row, column))
        if found is not None:
            return found
        return self.rows[row] if 0 <= row < len(self.rows) else None


def decode(data: bytes, path: str) -> str:
    """A source file's text: UTF-8, other bytes as U+FFFD (a UTF-16 file or NUL bytes are an
    error at their line)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CudaImportError("the file is UTF-16: save it as UTF-8 (nvcc reads UTF-8)",
                              loc=SourceLoc(path, 1))
    nul = data.find(b"\x00")
    if nul >= 0:
        raise CudaImportError("the file has a NUL byte: it is not a source file",
                              loc=SourceLoc(path, data.count(b"\n", 0, nul) + 1))
    # bytes that are not UTF-8 (Latin-1 comments of older sources, as Rodinia's myocyte and
    # leukocyte have) are read as U+FFFD: nvcc takes any bytes in comments and strings, and
    # one outside them is then an unexpected character at its line
    return data.decode("utf-8-sig", errors="replace")


def tokenize(text: str, path: str) -> list[list[Token]]:
    """The file's logical lines (backslash-newlines joined, comments blanked), as tokens."""
    # splice lines (a backslash before a newline joins them), keeping each character's
    # original (line, column): per spliced piece, where it starts in both texts; a position
    # is mapped back by bisecting those (a table per character cost seconds on a 4 MB file)
    pieces, starts, origins, at, length = [], [], [], 0, 0
    for m in _SPLICE.finditer(text):
        pieces.append(text[at:m.start()])
        starts.append(length)
        origins.append(at)
        length += m.start() - at
        at = m.end()
    pieces.append(text[at:])
    starts.append(length)
    origins.append(at)
    s = "".join(pieces)
    line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def where(pos: int) -> SourceLoc:
        k = bisect.bisect_right(starts, pos) - 1
        orig = origins[k] + pos - starts[k]
        row = bisect.bisect_right(line_starts, orig)
        return SourceLoc(path, row, orig - line_starts[row - 1] + 1)

    out: list[list[Token]] = [[]]
    space, expect, k, row = False, 0, 0, 1   # positions only grow: k and row only advance
    pieces, rows = len(starts), len(line_starts)
    for m in _TOKEN.finditer(s):
        pos = m.start()
        if pos != expect:  # a character C has no token for (non-ASCII outside strings)
            break
        expect = m.end()
        kind = m.lastgroup
        if kind == "ws" or kind == "comment":  # a block comment is one space
            space = True
            continue
        if kind == "nl":
            out.append([])
            space = False
            continue
        if kind == "open_comment":
            raise CudaImportError("a /* comment that never ends", loc=where(pos))
        if kind == "bad":
            raise CudaImportError(f"a {m.group()} literal that does not end on its line",
                                  loc=where(pos))
        while k + 1 < pieces and starts[k + 1] <= pos:
            k += 1
        orig = origins[k] + pos - starts[k]
        while row < rows and line_starts[row] <= orig:
            row += 1
        out[-1].append(Token(kind, m.group(), SourceLoc(path, row, orig - line_starts[row - 1]
                                                        + 1), space))
        space = False
    if expect != len(s):
        raise CudaImportError(f"`{s[expect]}` is not a character of C++ source here",
                              loc=where(expect))
    return out


def _is_directive(line: list[Token]) -> bool:
    return bool(line) and line[0].text == "#" and line[0].kind == "punct"


class Preprocessor:
    """Runs the preprocessor over a main file (see `preprocess`)."""

    def __init__(self, defines: dict[str, str], include_dirs: list[str], arch: int = 900):
        self.macros: dict[str, Macro] = {}
        self.include_dirs = [pathlib.Path(d) for d in include_dirs]
        self.once: set[pathlib.Path] = set()
        self.files: list[str] = []
        self.unfound: list[str] = []   # `#include <...>` of no known header, in no folder
        self.out_rows: list[list[Token]] = []
        for name, value in {**PREDEFINED, "__CUDA_ARCH__": str(arch)}.items():
            self.define_text(name, value, None)
        self.command_line = dict(defines)
        for name, value in defines.items():
            self.define_text(name, value, None, option=True)
        self.budget = MAX_TOKENS
        self.active: set[str] = set()  # macros whose expansion is being read (not expanded)

    # ---- definitions
    def define_text(self, name: str, value: str, loc, option: bool = False) -> None:
        """A definition given as text (`-D NAME=VALUE`, or a predefined one)."""
        where = SourceLoc("<command line>" if option else "<built-in>", 0)
        m = re.fullmatch(r"([A-Za-z_]\w*)(\(([^)]*)\))?", name.strip())
        if m is None:
            raise CudaImportError(f"-D {name}={value}: {name!r} is not a macro name")
        tokens = [t for line in tokenize(value, where.file) for t in line]
        params = None
        variadic = False
        if m.group(2):
            params = tuple(p.strip() for p in m.group(3).split(",") if p.strip())
            if params and params[-1] == "...":
                params, variadic = params[:-1] + ("__VA_ARGS__",), True
        self.macros[m.group(1)] = Macro(m.group(1), params,
                                        tuple(t.but(loc=where) for t in tokens), None,
                                        variadic)

    def define(self, line: list[Token]) -> None:
        if len(line) < 3 or line[2].kind != "id":
            raise CudaImportError("#define needs a macro name", loc=line[0].loc)
        name_tok = line[2]
        name = name_tok.text
        rest = line[3:]
        params = None
        variadic = False
        if rest and rest[0].text == "(" and not rest[0].space:
            params = []
            k = 1
            while True:
                if k >= len(rest):
                    raise CudaImportError(f"#define {name}(: the parameter list does not "
                                          "end", loc=name_tok.loc)
                t = rest[k]
                if t.text == ")":
                    k += 1
                    break
                if t.text == "...":
                    params.append("__VA_ARGS__")
                    variadic = True
                elif t.kind == "id":
                    params.append(t.text)
                elif t.text != ",":
                    raise CudaImportError(f"#define {name}: `{t.text}` in its parameter list",
                                          loc=t.loc)
                k += 1
            params = tuple(params)
            rest = rest[k:]
        body = tuple(rest)
        for i, t in enumerate(body):
            if t.text == "##" and (i == 0 or i == len(body) - 1):
                raise CudaImportError(f"#define {name}: ## at the edge of the body",
                                      loc=t.loc)
        if name in self.command_line:
            old = self.macros.get(name)
            if old is not None and old.loc is None and \
                    [t.text for t in old.body] != [t.text for t in body]:
                raise CudaImportError(
                    f"-D {name}={self.command_line[name]} and this `#define {name} "
                    f"{' '.join(t.text for t in body)}` disagree: nvcc would use the file's "
                    f"value; guard the #define with #ifndef {name}, or drop the -D",
                    loc=name_tok.loc)
        self.macros[name] = Macro(name, params, body, name_tok.loc, variadic)

    # ---- files
    def run_file(self, path: pathlib.Path, depth: int, at: SourceLoc | None) -> None:
        if depth > MAX_INCLUDE_DEPTH:
            raise CudaImportError(f"#include nested more than {MAX_INCLUDE_DEPTH} deep (a file "
                                  "that includes itself?)", loc=at)
        resolved = path.resolve()
        if resolved in self.once:
            return
        try:
            data = path.read_bytes()
        except OSError as err:
            raise CudaImportError(f"cannot read {path}: {err.strerror}", loc=at) from None
        self.files.append(str(path))
        FILES_READ.add(str(resolved))
        self.run_lines(tokenize(decode(data, str(path)), str(path)), path, depth)

    def run_text(self, text: str, path: pathlib.Path, line_offset: int) -> None:
        """Source held in a string of `path` (CUDA inside a Python file), its first line on
        line `line_offset + 1` of that file."""
        self.files.append(str(path))
        lines = tokenize(text, str(path))
        for line in lines:
            for t in line:
                t.loc = SourceLoc(t.loc.file, t.loc.line + line_offset, t.loc.column)
        self.run_lines(lines, path, 0)

    def run_lines(self, lines: list[list[Token]], path: pathlib.Path, depth: int) -> None:
        """Directives and text of one file's logical lines."""
        resolved = path.resolve()
        # conditionals: a stack of (this branch is taken, some branch was taken, else seen)
        stack: list[list[bool]] = []
        text: list[Token] = []

        def active() -> bool:
            return all(s[0] for s in stack)

        def flush() -> None:
            if text:
                self.emit(self.expand(text, 0))
                text.clear()
        for line in lines:
            if not _is_directive(line):
                if active():
                    text.extend(line)
                continue
            flush()
            word = line[1].text if len(line) > 1 else ""
            where = line[0].loc
            if word in ("if", "ifdef", "ifndef"):
                if not active():
                    stack.append([False, True, False])
                    continue
                if word == "if":
                    taken = self.condition(line[2:], where)
                else:
                    if len(line) < 3 or line[2].kind != "id":
                        raise CudaImportError(f"#{word} needs a macro name", loc=where)
                    taken = (line[2].text in self.macros) == (word == "ifdef")
                stack.append([taken, taken, False])
            elif word in ("elif", "else", "endif", "elifdef", "elifndef"):
                if not stack:
                    raise CudaImportError(f"#{word} without #if", loc=where)
                top = stack[-1]
                if word == "endif":
                    stack.pop()
                    continue
                if top[2]:
                    raise CudaImportError(f"#{word} after #else", loc=where)
                outer = all(s[0] for s in stack[:-1])
                if word == "else":
                    top[:] = [outer and not top[1], True, True]
                elif top[1] or not outer:
                    top[0] = False
                else:
                    if word == "elif":
                        taken = self.condition(line[2:], where)
                    else:
                        taken = len(line) > 2 and (line[2].text in self.macros) == \
                            (word == "elifdef")
                    top[:] = [taken, taken, False]
            elif not active():
                continue
            elif word == "define":
                self.define(line)
            elif word == "undef":
                if len(line) > 2:
                    self.macros.pop(line[2].text, None)
            elif word == "include":
                self.include(line, path, depth, where)
            elif word == "pragma":
                if len(line) > 2 and line[2].text == "once":
                    self.once.add(resolved)
                else:
                    self.pragma(line)
            elif word == "error":
                raise CudaImportError("#error " + " ".join(t.text for t in line[2:]),
                                      loc=where)
            elif word in ("warning", "line", "ident", ""):
                continue
            elif line[1].kind == "num":  # `# 12 "file"` line markers
                continue
            else:
                raise CudaImportError(f"#{word} is not a preprocessing directive", loc=where)
        flush()
        if stack:
            raise CudaImportError("#if without #endif", loc=SourceLoc(str(path), len(lines)))

    def include(self, line: list[Token], current: pathlib.Path, depth: int,
                where: SourceLoc) -> None:
        rest = line[2:]
        if rest and rest[0].kind == "id":
            rest = self.expand(rest, 0)
        if rest and rest[0].kind == "str":
            name, local = rest[0].text[1:-1], True
        elif rest and rest[0].text == "<":
            close = next((k for k, t in enumerate(rest) if t.text == ">"), None)
            if close is None:
                raise CudaImportError("#include <...> without its >", loc=where)
            name, local = "".join(t.text for t in rest[1:close]), False
        else:
            raise CudaImportError("#include needs \"file\" or <file>", loc=where)
        folders = ([current.parent] if local else []) + self.include_dirs
        if TOOLKIT_HEADERS.fullmatch(name) and (not local or not (current.parent /
                                                                 name).is_file()):
            # <cublas_v2.h> and the like ("cublas_v2.h" too, unless beside the file) are
            # known without reading them, even where an -I folder holds them (a
            # pip-installed cuBLAS): nvcc reads them from there, the import needs none of
            # their host declarations.
            return
        for folder in folders:
            candidate = folder / name
            if candidate.is_file():
                self.run_file(candidate, depth + 1, where)
                return
        if SYSTEM_HEADERS.fullmatch(name) or TOOLKIT_HEADERS.fullmatch(name) or not local:
            if not (SYSTEM_HEADERS.fullmatch(name) or TOOLKIT_HEADERS.fullmatch(name)) and \
                    name not in self.unfound:
                self.unfound.append(name)   # (said where a name it may define is missing)
            # the toolkit's or the C++ library's: known without reading it; cuda-samples'
            # helper_cuda.h also defines a macro kernels' launches use (`MAX(a, b)`, as it
            # writes it, where not defined before)
            if name.endswith("helper_cuda.h") and "MAX" not in self.macros:
                self.define_text("MAX(a, b)", "(a > b ? a : b)", where)
            for macro, value in HEADER_MACROS.get(name, {}).items():
                if macro not in self.macros:
                    self.define_text(macro, value, where)
            return
        raise CudaImportError(f"#include \"{name}\": no such file next to "
                              f"{current.name} or in the -I folders "
                              f"({', '.join(str(d) for d in self.include_dirs) or 'none given'})",
                              loc=where)

    def pragma(self, line: list[Token]) -> None:
        """`#pragma unroll [N]` goes through, its count with macros expanded; others go."""
        if len(line) > 2 and line[2].text == "unroll":
            tail = self.expand(line[3:], 0) if len(line) > 3 else []
            self.emit([line[0].but(space=False), line[1].but(space=False),
                       line[2].but(space=True), *tail], pragma=True)

    # ---- #if
    def condition(self, tokens: list[Token], where: SourceLoc) -> bool:
        # `defined X` / `defined(X)` before expansion
        out = []
        k = 0
        while k < len(tokens):
            t = tokens[k]
            if t.text == "defined":
                if k + 1 < len(tokens) and tokens[k + 1].text == "(":
                    if k + 3 >= len(tokens) or tokens[k + 3].text != ")":
                        raise CudaImportError("defined( needs a name and )", loc=t.loc)
                    name, k = tokens[k + 2].text, k + 4
                elif k + 1 < len(tokens):
                    name, k = tokens[k + 1].text, k + 2
                else:
                    raise CudaImportError("defined needs a name", loc=t.loc)
                out.append(Token("num", "1" if name in self.macros else "0", t.loc))
                continue
            if t.text == "__has_include" and k + 1 < len(tokens) and tokens[k + 1].text == "(":
                close = next((j for j in range(k, len(tokens)) if tokens[j].text == ")"), None)
                if close is None:
                    raise CudaImportError("__has_include( without )", loc=t.loc)
                inner = "".join(x.text for x in tokens[k + 2:close])
                name = inner.strip('"<>')
                found = SYSTEM_HEADERS.fullmatch(name) is not None or any(
                    (d / name).is_file() for d in self.include_dirs +
                    [pathlib.Path(where.file).parent])
                out.append(Token("num", "1" if found else "0", t.loc))
                k = close + 1
                continue
            out.append(t)
            k += 1
        expanded = self.expand(out, 0)
        if not expanded:
            raise CudaImportError("#if with no expression", loc=where)
        return IfExpression(expanded, where).value() != 0

    # ---- expansion
    def expand(self, tokens: list[Token], nesting: int) -> list[Token]:
        """Macro-expand a token list, as gcc's preprocessor (nvcc's) does: a macro is
        disabled while its expansion is read (an "end" token on the work stack marks where
        that ends), and its name read there is painted, never to expand. Each step costs
        the same however deep the expansion is: a chain of 3,000 #defines is linear work
        (a hide set per token, C's textbook algorithm, made it quadratic in time and
        memory: 10 uses of such a chain in a kernel took 40 to 60 s and 4.3 GB)."""
        if nesting > MAX_NESTING:
            raise CudaImportError(f"macro calls nested more than {MAX_NESTING} deep inside "
                                  "macro arguments", loc=tokens[0].loc if tokens else None)
        if nesting == 0:
            try:
                return self._expand(tokens, 0)
            finally:
                self.active.clear()  # an error part-way leaves nothing disabled
        return self._expand(tokens, nesting)

    def _expand(self, tokens: list[Token], nesting: int) -> list[Token]:
        active = self.active
        out: list[Token] = []
        work = list(reversed(tokens))  # a stack: the next token last
        while work:
            t = work.pop()
            if t.kind != "id" or t.painted:
                if t.kind == "end":  # the macro's expansion is read: it expands again
                    active.discard(t.text)
                else:
                    out.append(t)
                continue
            macro = self.macros.get(t.text)
            if macro is None:
                out.append(t)
                continue
            if t.text in active:
                out.append(t.but(painted=True))
                continue
            if macro.params is None:
                body = self.substitute(macro, [], t, nesting)
            else:
                # a function-like macro is called only when ( follows (past the ends of
                # expansions read to the last token)
                while work and work[-1].kind == "end":
                    active.discard(work.pop().text)
                if not work or work[-1].text != "(":
                    out.append(t)
                    continue
                args = self.arguments(work, t, macro)
                body = self.substitute(macro, args, t, nesting)
            self.budget -= len(body)
            if self.budget < 0:
                raise CudaImportError(f"macro expansion produced more than {MAX_TOKENS:,} "
                                      f"tokens (at {macro.name})", loc=t.loc)
            if len(active) >= MAX_EXPANSION_DEPTH:
                where = f", defined at {macro.loc.file}:{macro.loc.line}" if macro.loc else ""
                raise CudaImportError(f"macros expand inside one another more than "
                                      f"{MAX_EXPANSION_DEPTH:,} deep (at {macro.name}{where}): "
                                      "a #define chain this long is refused", loc=t.loc)
            active.add(macro.name)
            work.append(Token("end", macro.name, t.loc))
            work.extend(reversed(body))
        return out

    def arguments(self, work: list[Token], name: Token, macro: Macro):
        """Take `( a, b )` off the work stack: the argument token lists and the `)`."""
        work.pop()  # (
        args: list[list[Token]] = [[]]
        depth = 0
        while True:
            if not work:
                raise CudaImportError(f"the call of macro {macro.name} does not end (no `)`)",
                                      loc=name.loc)
            t = work.pop()
            if t.kind == "end":  # an expansion ends inside the arguments: it expands again
                self.active.discard(t.text)
                continue
            if t.kind == "id" and not t.painted and t.text in self.active:
                t = t.but(painted=True)  # read inside its own expansion
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                if depth == 0:
                    break
                depth -= 1
            elif t.text == "," and depth == 0 and not (
                    macro.variadic and len(args) >= len(macro.params)):
                args.append([])
                continue
            args[-1].append(t)
        params = macro.params
        if len(params) == 0 and args == [[]]:
            args = []
        if macro.variadic and len(args) == len(params) - 1:
            args.append([])
        if len(args) != len(params):
            raise CudaImportError(f"macro {macro.name} takes {len(params)} argument(s), "
                                  f"given {len(args)}", loc=name.loc)
        return args

    def substitute(self, macro: Macro, args: list[list[Token]], at: Token,
                   nesting: int) -> list[Token]:
        """The macro's body with its arguments in place, `#` and `##` applied; every token
        located where the macro was used."""
        body = macro.body
        if macro.params is None and not macro.pastes:  # object-like: the body, relocated
            out = [Token(t.kind, t.text, at.loc, t.space) for t in body]
            if out:
                out[0].space = at.space
            return out
        index = {p: i for i, p in enumerate(macro.params or ())}
        expanded: dict[int, list[Token]] = {}
        out: list[Token] = []
        k = 0
        while k < len(body):
            t = body[k]
            if t.text == "," and macro.variadic and k + 2 < len(body) and \
                    body[k + 1].text == "##" and body[k + 2].text == "__VA_ARGS__":
                # GNU's `, ## __VA_ARGS__` (gcc, clang and nvcc take it): the comma is
                # dropped where no variable arguments are given; else they follow it as
                # given, nothing pasted (rescanning expands them)
                rest = args[index["__VA_ARGS__"]]
                if rest:
                    out.append(Token(t.kind, t.text, at.loc, t.space))
                    piece = [x.but(loc=at.loc) for x in rest]
                    piece[0].space = True
                    out.extend(piece)
                k += 3
                continue
            if t.text == "#" and macro.params is not None and k + 1 < len(body) and \
                    body[k + 1].text in index:
                arg = args[index[body[k + 1].text]]
                out.append(Token("str", _stringify(arg), at.loc, t.space))
                k += 2
                continue
            pasted = (k + 1 < len(body) and body[k + 1].text == "##") or \
                (k > 0 and body[k - 1].text == "##")
            if t.text == "##":
                k += 1
                continue
            if t.kind == "id" and t.text in index:
                arg = args[index[t.text]]
                if pasted:
                    piece = list(arg)
                else:
                    i = index[t.text]
                    if i not in expanded:
                        expanded[i] = self.expand(arg, nesting + 1)
                    piece = expanded[i]
                piece = [x.but(loc=at.loc) for x in piece]
                if piece:
                    piece[0].space = t.space
            else:
                piece = [Token(t.kind, t.text, at.loc, t.space)]
            if k > 0 and body[k - 1].text == "##" and out and piece:
                left = out.pop()
                glued = _retokenize(left.text + piece[0].text, at)
                glued.space = left.space
                out.append(glued)
                out.extend(piece[1:])
            else:
                out.extend(piece)
            k += 1
        if out:
            out[0].space = at.space
        return out

    # ---- output
    def emit(self, tokens: list[Token], pragma: bool = False) -> None:
        """Tokens to the output: a new row where the user's line changes; `_Pragma("...")`
        becomes a `#pragma` row of its own."""
        k = 0
        while k < len(tokens):
            t = tokens[k]
            if t.text == "_Pragma" and k + 3 < len(tokens) and tokens[k + 1].text == "(" and \
                    tokens[k + 2].kind == "str" and tokens[k + 3].text == ")":
                inner = tokens[k + 2].text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
                words = [w for line in tokenize(inner, t.loc.file) for w in line]
                self.out_rows.append([])
                self.pragma([Token("punct", "#", t.loc), Token("id", "pragma", t.loc),
                             *[w.but(loc=t.loc) for w in words]])
                self.out_rows.append([])
                k += 4
                continue
            last = self.out_rows[-1][-1] if self.out_rows and self.out_rows[-1] else None
            if pragma and k == 0 or last is None or last.loc.file != t.loc.file or \
                    last.loc.line != t.loc.line:
                if not (self.out_rows and not self.out_rows[-1]):
                    self.out_rows.append([])
            self.out_rows[-1].append(t)
            k += 1
        if pragma:
            self.out_rows.append([])

    def output(self, parenthesize: frozenset = frozenset()) -> Output:
        """The text and its locations (columns in bytes, as the parser counts them). Names
        in `parenthesize` (by location) are written `(name)`: `a < b && c > d` then reads as
        comparisons, not as a template `a<...>` the grammar would guess."""
        text_rows, locs, rows = [], {}, []
        for r, row in enumerate(r for r in self.out_rows if r):
            parts, col, prev = [], 0, None
            for k, t in enumerate(row):
                if prev is not None and (t.space or _would_merge(prev, t)):
                    parts.append(" ")
                    col += 1
                wrap = t.kind == "id" and t.loc in parenthesize and k + 1 < len(row) and \
                    row[k + 1].text == "<"
                if wrap:
                    parts.append("(")
                    col += 1
                locs[(r, col)] = t.loc
                parts.append(t.text)
                col += len(t.text.encode())
                if wrap:
                    parts.append(")")
                    col += 1
                prev = t
            text_rows.append("".join(parts))
            rows.append(row[0].loc)
        return Output("\n".join(text_rows) + "\n", locs, rows, self.files, self.macros)


def _would_merge(a: Token, b: Token) -> bool:
    """Whether two adjacent tokens would read as one (then a space goes between)."""
    if a.kind in ("id", "num") and b.kind in ("id", "num"):
        return True
    if a.kind == "punct" and b.kind == "punct":
        return (a.text + b.text[:1]) in _PUNCTS or (a.text + b.text) in _PUNCTS or \
            (a.text == "/" and b.text[:1] in "/*")
    return a.kind == "num" and b.text[:1] in ".+-" or b.kind == "num" and a.text == "."


def _stringify(arg: list[Token]) -> str:
    text = ""
    for i, t in enumerate(arg):
        piece = t.text.replace("\\", "\\\\").replace('"', '\\"') \
            if t.kind in ("str", "chr") else t.text
        text += (" " if i and t.space else "") + piece
    return f'"{text}"'


def _retokenize(text: str, at: Token) -> Token:
    lines = tokenize(text, at.loc.file)
    tokens = [t for line in lines for t in line]
    if len(tokens) != 1:
        raise CudaImportError(f"## makes `{text}`, which is not one token", loc=at.loc)
    return tokens[0].but(loc=at.loc)


def preprocess(path: str, defines: dict[str, str] | None = None,
               include_dirs: list[str] | None = None, arch: int = 900) -> Output:
    """The preprocessed text of a CUDA file, with the location of every token."""
    pp = Preprocessor(defines or {}, list(include_dirs or []), arch)
    pp.run_file(pathlib.Path(path), 0, None)
    return pp.output()

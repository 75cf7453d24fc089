"""A layout change `fix` proposes, written into the user's own CUDA file.

A padding changes the `__shared__` declaration's last extent (`[TILE + PAD]` becomes
`[TILE + PAD + 1]`); the accesses stay as written. A swizzle declares the array flat and
sends every access through a small helper that permutes element offsets, CuTe's
Swizzle<B, M, S> (`tile[y][x]` becomes `tile[smemsim_swizzle_5_0_5((y) * (TILE) + (x))]`),
so a vector access (`&tile[..]` cast to `float4*`) keeps its 16 bytes together as the
analysis assumed. The file is read as text by tree-sitter, without preprocessing: only the
spans of the declaration and of the subscripts are rewritten, every other byte is kept.
Where the array is used otherwise (its address taken whole, a row passed on, a macro that
names it), nothing is written: a patch that misses an access would be wrong, so that is a
located error instead.
"""
from __future__ import annotations

import difflib
import pathlib
import re
from dataclasses import dataclass

from kernels_ir import KernelError

from .parse import function_name, parser, subscript_index, text, walk


@dataclass(frozen=True)
class LayoutChange:
    """One array's change: padding of its rows, a swizzle of its element offsets, or (a
    one-extent array's padding) one element skipped every 2^pad (`s[i + (i >> 5)]`)."""

    array: str
    kind: str                                # "pad", "swizzle" or "skew"
    pad: int = 0                             # elements a row ("pad"), the period's log2 ("skew")
    swizzle: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class LayoutPatch:
    """The user's file with the changes made, and what was rewritten."""

    file: str
    original: str
    patched: str
    edits: tuple[str, ...]                   # one line per rewritten span: "line N: a -> b"

    @property
    def diff(self) -> str:
        """A unified diff (`git apply`/`patch -p1` take it)."""
        path = pathlib.PurePath(self.file)
        # the path as given when it is below the current folder (`patch -p1` or `git apply`
        # from there), else the file's own name (from the file's folder)
        name = path.as_posix() if not path.is_absolute() and ".." not in path.parts \
            else path.name
        return unified_diff(self.original.splitlines(keepends=True),
                            self.patched.splitlines(keepends=True),
                            diff_name("a/" + name), diff_name("b/" + name))


def unified_diff(a: list[str], b: list[str], fromfile: str, tofile: str,
                 context: int = 3) -> str:
    """difflib.unified_diff's text, matched without its "popular line" heuristic: in a file
    of 200 lines or more, difflib takes a line that is more than 1% of them (`}`, a blank
    line, `__syncthreads();`) for junk and cannot anchor on it, so lines the patch leaves
    as they are showed as removed and added again around each change."""
    out: list[str] = []

    def span(start: int, stop: int) -> str:   # (difflib's: 1-based, `N` for one line)
        length = stop - start
        if length == 1:
            return f"{start + 1}"
        return f"{start if not length else start + 1},{length}"
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        out.append(f"@@ -{span(group[0][1], group[-1][2])} "
                   f"+{span(group[0][3], group[-1][4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += ["-" + line for line in a[i1:i2]]
            if tag in ("replace", "insert"):
                out += ["+" + line for line in b[j1:j2]]
    return "".join(out)


def diff_name(name: str) -> str:
    """A file name as a diff header writes it: C-quoted as git quotes it (control
    characters, a quote, a backslash, and each byte of a non-ASCII character in octal),
    where it holds any of those (a newline would end the header line; an ESC or a C1
    control would reach the terminal of whoever reads the patch)."""
    if all(0x20 <= ord(c) < 0x7F and c not in '"\\' for c in name):
        return name
    named = {"\n": "\\n", "\t": "\\t", '"': '\\"', "\\": "\\\\"}
    out = []
    for c in name:
        if c in named:
            out.append(named[c])
        elif 0x20 <= ord(c) < 0x7F:
            out.append(c)
        else:
            out += [f"\\{b:03o}" for b in c.encode("utf-8", "surrogateescape")]
    return '"' + "".join(out) + '"'


def helper_name(b: int, m: int, s: int) -> str:
    """The swizzle helper's name: one per (B, M, S)."""
    return f"smemsim_swizzle_{b}_{m}_{s}"


def skew_name(shift: int) -> str:
    """The skew helper's name: one per period."""
    return f"smemsim_skew_{shift}"


def _helper_text(key: tuple) -> str:
    """The device function a change's subscripts call: a swizzle's or a skew's."""
    if key[0] == "skew":
        shift = key[1]
        return (f"// one element skipped every {1 << shift} (a padding of a one-extent "
                f"array), written by smemsim fix\n"
                f"__device__ __forceinline__ unsigned {skew_name(shift)}(unsigned i)\n"
                f"{{\n    return i + (i >> {shift});\n}}\n\n")
    return helper(*key[1:])


def helper(b: int, m: int, s: int) -> str:
    """CuTe's Swizzle<B, M, S> on an element offset: the B bits at M + S XORed into the B
    bits at M (its own inverse)."""
    return (f"// Swizzle<{b},{m},{s}> of element offsets, written by smemsim fix\n"
            f"__device__ __forceinline__ unsigned {helper_name(b, m, s)}(unsigned i)\n"
            f"{{\n    return i ^ (((i >> {m + s}) & {(1 << b) - 1}u) << {m});\n}}\n\n")


def _error(file: str, node, message: str) -> KernelError:
    return KernelError(f"{file}:{node.start_point[0] + 1}: {message}")


def _declarations(root, name: str) -> list:
    """The array_declarator nodes that declare `name` in a `__shared__` declaration."""
    out = []
    for node in walk(root):
        if node.type != "declaration" or "__shared__" not in text(node).split("=")[0] and \
                not _misread_qualifiers(node):
            continue
        # (tree-sitter may run a declaration it misreads, `__align__(32) half t[16];`, on
        # into the statements after it: the declaration ends at its first `;`)
        end = node.start_byte + len(text(node).split(";")[0].encode())
        for d in walk(node):
            if d.type != "array_declarator" or d.start_byte > end:
                continue
            inner = d
            while inner.type == "array_declarator":
                inner = inner.child_by_field_name("declarator")
            if inner.type == "identifier" and text(inner) == name and \
                    d.parent.type != "array_declarator":
                out.append(d)
    return out


def _misread_qualifiers(node) -> bool:
    """Whether the declaration `node` follows the `__shared__ __align__(N)` tree-sitter
    could not read, which it leaves in an ERROR node just before (YHs's SGEMM's `__shared__
    __align__(16 * 1024) char smem[24 * 1024];`)."""
    before = node.prev_sibling
    return before is not None and before.type == "ERROR" and \
        "__shared__" in text(before).split() and before.end_byte <= node.start_byte and \
        ";" not in text(before)


def _is_extern(declarator) -> bool:
    """Whether the declaration is `extern` (dynamic shared memory: no first extent)."""
    node = declarator
    while node is not None and node.type != "declaration":
        node = node.parent
    return node is not None and any(c.type == "storage_class_specifier" and
                                    text(c) == "extern" for c in node.children)


def _extents(declarator) -> list:
    """The size nodes of `name[A][B]`, outermost first (None for `[]`)."""
    sizes = []
    d = declarator
    while d.type == "array_declarator":
        sizes.append(d.child_by_field_name("size"))
        d = d.child_by_field_name("declarator")
    return sizes[::-1]


def _scope(declarator, root):
    """Where the array's accesses can be: the function that declares it (the file for a
    file-scope array)."""
    node = declarator
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node if node is not None else root


def _accesses(file: str, root, scope, declarator, name: str, rank: int) -> list:
    """Every full subscript `name[i]...[k]` in `scope` (each a list of index nodes, outer
    node last); any other use of the name, or a macro of the file that names it, is a
    located error."""
    for node in walk(root):
        if node.type == "preproc_arg" and re.search(rf"\b{re.escape(name)}\b", text(node)):
            raise _error(file, node, f"a macro uses '{name}': the patch cannot rewrite the "
                                     "accesses inside it; change the macro by hand")
    out = []
    ident = declarator
    while ident.type == "array_declarator":
        ident = ident.child_by_field_name("declarator")
    for node in walk(scope):
        if node.type != "identifier" or text(node) != name or node == ident:
            continue
        chain, top = [], node
        while top.parent is not None and top.parent.type == "subscript_expression" and \
                top.parent.child_by_field_name("argument") == top and len(chain) < rank:
            top = top.parent
            chain.append(subscript_index(top))
        if len(chain) < rank:
            call = top.parent.parent if top.parent is not None and \
                top.parent.type == "argument_list" else None
            callee = call.child_by_field_name("function") if call is not None and \
                call.type == "call_expression" else None
            passed = f"{name} whole" if text(top) == name else \
                f"'{text(top)}', part of {name},"
            how = f"passes {passed} to {text(callee)}()" if callee is not None else \
                f"uses {name} as '{text(top)}', not as an element {name}" + "[i]" * rank
            raise _error(file, node, f"{how}: a swizzle rewrites each element's index, which "
                                     "the patch cannot do there; change it by hand")
        out.append((chain, top))
    return out


@dataclass(frozen=True)
class SharedDeclaration:
    """A `__shared__` array as the file declares it (text, as written)."""

    name: str
    type: str                                # the element type, `float`, `half`, `T`
    extents: tuple[str | None, ...]          # outermost first; None for `[]`
    line: int


def _parameter_extents(root, scope, name: str, rank: int) -> list:
    """The last extents of the parameters the array `name` (of `rank` dimensions, rank 2 or
    more) is passed to by name, in calls within `scope`, of functions the file defines (one
    definition a name): `T` of `float (*tile)[T]`, `float tile[][T]`, `float tile[R][T]`.
    Each once (a function called twice)."""
    if rank < 2:
        return []
    defined: dict = {}
    for f in walk(root):
        if f.type == "function_definition":
            defined.setdefault(function_name(f).split("::")[-1], []).append(f)
    out, seen = [], set()
    for call in walk(scope):
        if call.type != "call_expression":
            continue
        callee = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if callee is not None and callee.type == "template_function":
            callee = callee.child_by_field_name("name")   # (`read_col<T, TILE>(tile, ...)`)
        if callee is None or args is None or callee.type != "identifier":
            continue
        targets = defined.get(text(callee), [])
        if len(targets) != 1:
            continue
        params = _parameters(targets[0])
        for k, arg in enumerate(args.named_children):
            if arg.type != "identifier" or text(arg) != name or k >= len(params):
                continue
            d = params[k].child_by_field_name("declarator")
            if d is not None and d.type == "array_declarator" and \
                    d.child_by_field_name("size") is not None:
                size = d.child_by_field_name("size")
                if (size.start_byte, size.end_byte) not in seen:
                    seen.add((size.start_byte, size.end_byte))
                    out.append(size)
    return out


def _parameters(function) -> list:
    """The parameter declarations of a function_definition."""
    d = function.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    p = d.child_by_field_name("parameters") if d is not None else None
    return [c for c in (p.named_children if p is not None else ())
            if c.type == "parameter_declaration"]


def shared_declaration(file: str, kernel: str, name: str) -> SharedDeclaration:
    """The one `__shared__` declaration of `name` that a patch of `kernel` would edit (in the
    kernel's function, else at file scope); a KernelError where there is none or several."""
    _, decl = _the_declaration(file, *_functions(file, kernel), name)
    node = decl
    while node is not None and node.type != "declaration":
        node = node.parent
    # the element type: the words before the declarator, its qualifiers left out
    # (tree-sitter reads `__shared__ __align__(32) half t[..]`'s type as `__align__`)
    head = text(node)[:decl.start_byte - node.start_byte] if node is not None else ""
    head = re.sub(r"\b(__align__|alignas|__declspec)\s*\([^)]*\)", " ", head)
    kind = " ".join(w for w in head.split() if w not in (
        "__shared__", "extern", "static", "__device__", "volatile", "const", "*"))
    return SharedDeclaration(name, kind,
                             tuple(None if x is None else text(x) for x in _extents(decl)),
                             decl.start_point[0] + 1)


def _functions(file: str, kernel: str) -> tuple:
    """(the parsed tree, the function's name, its definitions) of kernel `kernel` in file."""
    tree = parser().parse(pathlib.Path(file).read_bytes())
    function = kernel.split("<")[0].strip().split("::")[-1]
    functions = [n for n in walk(tree.root_node) if n.type == "function_definition" and
                 function_name(n).split("::")[-1] == function]
    if not functions:
        raise KernelError(f"{file}: no function '{function}' to patch")
    return tree, function, functions


def _the_declaration(file: str, tree, function: str, functions: list, name: str) -> tuple:
    """(tree, the array_declarator) of the one `__shared__` declaration of `name`."""
    found = [d for f in functions for d in _declarations(f, name)] or \
        _declarations(tree.root_node, name)
    if len(found) != 1:
        raise KernelError(f"{file}: {'no' if not found else len(found)} __shared__ "
                          f"declaration(s) of '{name}' in {function}: the patch "
                          "needs exactly one")
    return tree, found[0]


def layout_patch(file: str, kernel: str, changes: list[LayoutChange]) -> LayoutPatch:
    """`file` with each change made to its `__shared__` array in kernel `kernel` (the
    function's name; template arguments are ignored)."""
    source = pathlib.Path(file).read_bytes()
    tree, function, functions = _functions(file, kernel)
    edits: list[tuple[int, int, str, int, str]] = []  # start, end, new, line, old
    helpers: dict[tuple, object] = {}   # ("swizzle", B, M, S) or ("skew", shift) -> owner
    for change in changes:
        _, decl = _the_declaration(file, tree, function, functions, change.array)
        sizes = _extents(decl)
        if change.kind == "pad":
            last = sizes[-1]
            if last is None:
                raise _error(file, decl, f"'{change.array}' has no last extent to pad")
            padded = f"{text(last)} + {change.pad}"
            edits.append((last.start_byte, last.end_byte, padded, last.start_point[0] + 1,
                          text(last)))
            # the helpers the array is passed to, by name, take rows of the padded length
            # too (`float (*tile)[32]`, `float tile[][32]`: a type the padded array must
            # match, else nvcc refuses the call)
            for size in _parameter_extents(tree.root_node, _scope(decl, tree.root_node),
                                           change.array, len(sizes)):
                # (the parameter's own extent padded: a helper names it its own way)
                edits.append((size.start_byte, size.end_byte, f"{text(size)} + {change.pad}",
                              size.start_point[0] + 1, text(size)))
            continue
        if any(s is None for s in sizes[1:]):
            raise _error(file, decl, f"'{change.array}': an inner extent is missing")
        rank = len(sizes)
        if change.kind == "skew":
            if rank != 1 or sizes[0] is None or _is_extern(decl):
                raise _error(file, decl, f"'{change.array}': a skew is written for an array "
                                         "of one extent the declaration states")
            n, shift = text(sizes[0]), change.pad
            edits.append((sizes[0].start_byte, sizes[0].end_byte,
                          f"({n}) + (({n}) >> {shift})", sizes[0].start_point[0] + 1, n))
            call = skew_name(shift)
            key = ("skew", shift)
        else:
            b, m, s = change.swizzle
            call = helper_name(b, m, s)
            key = ("swizzle", b, m, s)
        if rank > 1:
            inner = decl
            while inner.type == "array_declarator":
                inner = inner.child_by_field_name("declarator")
            flat = " * ".join(f"({text(x)})" for x in sizes if x is not None)
            if sizes[0] is None:
                if not _is_extern(decl):
                    raise _error(file, decl, f"'{change.array}': a multi-dimensional array "
                                             "without its first extent cannot be declared "
                                             "flat")
                flat = ""   # (`extern __shared__ half smem[][32]`: smem[], as long as ever)
            edits.append((decl.start_byte, decl.end_byte, f"{text(inner)}[{flat}]",
                          decl.start_point[0] + 1, text(decl)))
        for chain, top in _accesses(file, tree.root_node, _scope(decl, tree.root_node), decl,
                                      change.array, rank):
            offset = text(chain[0]) if rank == 1 else f"({text(chain[0])})"
            for k, (index, size) in enumerate(zip(chain[1:], sizes[1:])):
                # ((b) * (R) + (y)) * (C) + (x): each outer part whole before it is scaled
                outer = f"({offset})" if k else offset
                offset = f"{outer} * ({text(size)}) + ({text(index)})"
            new = f"{change.array}[{call}({offset})]"
            edits.append((top.start_byte, top.end_byte, new, top.start_point[0] + 1,
                          text(top)))
        owner = _scope(decl, tree.root_node)
        if owner.type == "function_definition" and owner.parent is not None and \
                owner.parent.type == "template_declaration":
            owner = owner.parent
        if owner.parent is not None and owner.parent.type == "linkage_specification":
            # (`extern "C" __global__ void k()`: before the `extern "C"`, which would else
            # give its linkage to the helper and take it from the kernel, whose name the
            # program fetches unmangled)
            owner = owner.parent
        helpers.setdefault(key, owner)
    for key, owner in helpers.items():
        start = owner.start_byte if owner.type != "translation_unit" else 0
        # (at the kernel's own indentation, which a CUDA string in Python often has: each
        # line of the helper indented as the kernel's, and the kernel's line kept whole)
        line_start = source.rfind(b"\n", 0, start) + 1
        indent = source[line_start:start].decode("utf-8", "replace")
        if indent.strip():
            indent = ""
        text_ = "\n".join(indent + x if x else x for x in _helper_text(key).split("\n"))
        edits.append((start, start, text_[len(indent):] + indent, owner.start_point[0] + 1,
                      ""))
    edits.sort(key=lambda e: (e[0], e[1]))
    for before, after in zip(edits, edits[1:]):
        if after[0] < before[1]:
            raise KernelError(f"{file}:{after[3]}: two changes overlap ('{before[4]}' and "
                              f"'{after[4]}'): the patch cannot make both")
    out = bytearray(source)
    for start, end, new, _, _ in reversed(edits):
        out[start:end] = new.encode()
    described = tuple(f"line {line}: {old} -> {new}" if old else
                      f"line {line}: inserted {new.splitlines()[1].strip()}"
                      for _, _, new, line, old in edits)
    return LayoutPatch(file, source.decode("utf-8", "replace"),
                       out.decode("utf-8", "replace"), described)

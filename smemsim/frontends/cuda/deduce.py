"""A template kernel's type arguments deduced from what its launch passes, as C++ deduces
them: `k<<<g, b>>>(d_x, n)` with `float *d_x;` launches `k<float>` of
`template <typename T> __global__ void k(const T *x, int n)`. The arguments' types are
read from their declarations (the host function's locals and parameters, the file's
globals), casts, literals, `&x` and pointer arithmetic; anything else deduces nothing."""
from __future__ import annotations

import re

from .parse import template_parameters, text, walk

# words of a type that do not change what a template parameter binds to
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct",
               "class", "typename", "constexpr", "static", "register", "extern", "inline"}
_POINTERS = ("pointer_declarator", "abstract_pointer_declarator", "array_declarator",
             "abstract_array_declarator")


def _plain(type_text: str) -> str:
    """A type's text without its qualifiers and with single spaces (`const  float` is
    `float`, `unsigned int` stays)."""
    return " ".join(w for w in type_text.split() if w not in _QUALIFIERS)


def declared(type_node, declarator) -> tuple[str, int, str | None]:
    """(the base type, levels of pointer or array, the declared name) of a declarator of a
    declaration or parameter (`float *a[4]` is (float, 2, a))."""
    depth, d = 0, declarator
    while d is not None and d.type in (*_POINTERS, "init_declarator", "reference_declarator",
                                       "abstract_reference_declarator", "function_declarator"):
        # (`thrust::device_vector<float> d(n);` parses as a function declarator)
        depth += d.type in _POINTERS
        inner = d.child_by_field_name("declarator")
        if inner is None and d.type in ("reference_declarator",
                                        "abstract_reference_declarator"):
            inner = next((c for c in d.named_children if c.type != "type_qualifier"), None)
        d = inner
    name = text(d) if d is not None and d.type == "identifier" else None
    return _plain(text(type_node)), depth, name


def local_declaration(name: str, call, host) -> tuple[str, int, object] | None:
    """(base type, depth, declarator) of the innermost declaration of `name` in the host
    function `host` that is in scope at `call`, or None."""
    from .host_values import in_scope
    found = None
    for d in walk(host):
        if d.type == "declaration" and in_scope(d, call):
            for init in d.named_children[1:]:
                base, depth, dname = declared(d.child_by_field_name("type"), init)
                if dname == name:
                    found = (base, depth, init)   # (walk order: the innermost is the last)
    return found


def _variable(unit, name: str, call, host) -> tuple[str, int] | None:
    """The declared (type, depth) of the variable `name` at the launch: the innermost
    declaration in scope before it in the host function, its parameter, or a global."""
    found = None
    if host is not None:
        for p in unit.params_of(host):
            t = p.child_by_field_name("type")
            if t is not None:
                base, depth, pname = declared(t, p.child_by_field_name("declarator"))
                if pname == name:
                    found = (base, depth)
        local = local_declaration(name, call, host)
        if local is not None:
            return local[:2]
        if found is not None:
            return found
    for d in unit.tree.root_node.named_children:
        if d.type == "declaration" and d.child_by_field_name("type") is not None:
            for init in d.named_children[1:]:
                base, depth, dname = declared(d.child_by_field_name("type"), init)
                if dname == name and base != "auto":
                    return base, depth
    return None


# containers whose `data()` is a pointer to their element type
_CONTAINER = re.compile(r"(?:\w+::)*(?:device_vector|host_vector|universal_vector|vector)"
                        r"<\s*([^,<>]+?)\s*(?:,[^<>]*)?>")


def element_type(type_text: str) -> str | None:
    """The element type of `thrust::device_vector<float>` (also host_vector and
    std::vector), None for any other type."""
    m = _CONTAINER.fullmatch(type_text)
    return _plain(m.group(1)) if m is not None else None


def _literal(node) -> tuple[str, int] | None:
    """A number literal's type: `1.0f` float, `1.0` double, `1` int, `1u` unsigned int."""
    t = text(node).lower().replace("'", "")
    hexadecimal = t.startswith("0x")
    digits = "0123456789abcdef" if hexadecimal else "0123456789"
    if not hexadecimal and any(c in t for c in ".e"):
        return ("float" if t.endswith("f") else "double"), 0
    suffix = t[2:].lstrip(digits) if hexadecimal else t.lstrip(digits)
    if "l" in suffix:
        return None       # long, long long: not deduced here
    return ("unsigned int" if "u" in suffix else "int"), 0


def type_of(unit, node, call, host) -> tuple[str, int] | None:
    """(base type, pointer depth) of a host expression passed to a kernel, or None where
    it is not read here."""
    kind = node.type
    if kind == "parenthesized_expression" and node.named_children:
        return type_of(unit, node.named_children[0], call, host)
    if kind == "identifier":
        found = _variable(unit, text(node), call, host)
        return found if found is not None and found[0] != "auto" else None
    if kind == "number_literal":
        return _literal(node)
    if kind in ("true", "false"):
        return "bool", 0
    if kind == "cast_expression":
        d = node.child_by_field_name("type")
        base, depth, _ = declared(d.child_by_field_name("type"),
                                  d.child_by_field_name("declarator"))
        return base, depth
    if kind == "call_expression":
        fn = node.child_by_field_name("function")
        given = node.child_by_field_name("arguments").named_children
        if text(fn).split("::")[-1] == "raw_pointer_cast" and len(given) == 1:
            return type_of(unit, given[0], call, host)     # thrust's: the pointer itself
        if fn.type == "field_expression" and text(fn.child_by_field_name("field")) == "data" \
                and not given:
            held = type_of(unit, fn.child_by_field_name("argument"), call, host)
            element = element_type(held[0]) if held is not None and held[1] == 0 else None
            return (element, 1) if element is not None else None    # `v.data()`
        name = fn.child_by_field_name("name") if fn.type == "template_function" else None
        if name is not None and text(name) in ("static_cast", "reinterpret_cast",
                                               "const_cast"):
            d = fn.child_by_field_name("arguments").named_children
            if len(d) == 1 and d[0].type == "type_descriptor":
                base, depth, _ = declared(d[0].child_by_field_name("type"),
                                          d[0].child_by_field_name("declarator"))
                return base, depth
        return None
    if kind == "pointer_expression":
        inner = type_of(unit, node.child_by_field_name("argument"), call, host)
        if inner is None:
            return None
        step = 1 if node.children[0].type == "&" else -1
        return (inner[0], inner[1] + step) if inner[1] + step >= 0 else None
    if kind == "subscript_expression":
        inner = type_of(unit, node.child_by_field_name("argument"), call, host)
        if inner is not None and inner[1] == 0 and element_type(inner[0]) is not None:
            return element_type(inner[0]), 0          # `v[0]` of a vector (`&v[0]`)
        return (inner[0], inner[1] - 1) if inner is not None and inner[1] > 0 else None
    if kind == "binary_expression" and \
            text(node.child_by_field_name("operator")) in ("+", "-"):
        left = type_of(unit, node.child_by_field_name("left"), call, host)
        right = type_of(unit, node.child_by_field_name("right"), call, host)
        # pointer arithmetic: `d_x + offset` is d_x's type (either side for `+`)
        for side in (left, right):
            if side is not None and side[1] > 0:
                return side
        return None
    return None


def deduced_types(unit, kernel, args, call, host) -> dict[str, str] | None:
    """{type parameter: type text} that the launch's arguments `args` (nodes, in the
    kernel's parameter order) deduce for the template kernel `kernel`; None where two
    parameters deduce different types for one name (nvcc refuses such a launch)."""
    names = {name for _, is_type, name in template_parameters(kernel.parent) if is_type}
    out: dict[str, str] = {}
    for param, arg in zip(unit.params_of(kernel), args):
        ptype = param.child_by_field_name("type")
        if ptype is None or _plain(text(ptype)) not in names:
            continue     # `int n`, `Params<T> p`: nothing to deduce from here
        base, depth, _ = declared(ptype, param.child_by_field_name("declarator"))
        got = type_of(unit, arg, call, host)
        if got is None or got[1] < depth:
            continue
        value = got[0] + "*" * (got[1] - depth)
        if out.setdefault(base, value) != value:
            return None
    return out

"""The syntax tree of preprocessed CUDA (tree-sitter's CUDA grammar), and the small helpers
every later stage reads it with."""
from __future__ import annotations

from kernels_ir import KernelError


def parser():
    """tree-sitter's CUDA parser (the `import` extra)."""
    try:
        import tree_sitter_cuda
        from tree_sitter import Language, Parser
    except ImportError:
        raise KernelError("reading CUDA needs tree-sitter and its CUDA grammar, which smemsim "
                          "depends on: pip install tree-sitter tree-sitter-cuda") from None
    return Parser(Language(tree_sitter_cuda.language()))


# levels of the syntax tree read at most (a kernel nests 20 to 40; the expression reader stops
# at kernels_ir's MAX_DEPTH anyway): a deeper tree is refused before anything walks it
MAX_TREE_DEPTH = 1000


def too_deep(tree):
    """The first node nested deeper than MAX_TREE_DEPTH, or None: one walk of a cursor, which
    stops there (a 1,000,000-term sum is refused in a millisecond instead of walked ten times)."""
    cursor, depth = tree.walk(), 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > MAX_TREE_DEPTH:
                return cursor.node
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None
            depth -= 1


def walk(node):
    """The node and every named node below it, depth first (no recursion: trees can be deep)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.named_children))


def text(node) -> str:
    return node.text.decode("utf-8", "replace")


def short(node) -> str:
    """A node's text on one line, cut to 60 characters, for messages."""
    t = " ".join(text(node).split())
    return t if len(t) <= 60 else t[:57] + "..."


def first_error(root):
    """The first ERROR or MISSING node below `root` (a missing `)` included), or None."""
    node = root
    while node.has_error:
        for child in node.children:
            if child.type == "ERROR" or child.is_missing:
                return child
            if child.has_error:
                node = child
                break
        else:
            return node if node.type == "ERROR" or node.is_missing else None
    return None


def function_name(function) -> str:
    """The name of a function_definition."""
    d = function_declarator(function)
    return "" if d is None else text(d.child_by_field_name("declarator"))


def function_declarator(function):
    """The function_declarator of a function_definition (a lambda's lambda_declarator), or
    None."""
    if function.type == "lambda_expression":
        return function.child_by_field_name("declarator")
    d = function.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        # `T& operator[](int i)`: the grammar gives a reference declarator no field name
        d = d.child_by_field_name("declarator") or (
            d.named_children[-1] if d.type == "reference_declarator" and d.named_children
            else None)
    return d


def template_param_name(param, is_type: bool) -> str:
    """The name a template parameter declares (`T` of `typename T`, `N` of `int N = 4`)."""
    node = param.child_by_field_name("name" if is_type else "declarator")
    if node is None and not param.named_children:
        return ""   # an unnamed parameter (`template <typename>`): nothing refers to it
    return text(node if node is not None else param.named_children[-1])


def template_parameters(template) -> list[tuple]:
    """[(parameter node, is a type, name)] of a template_declaration; none for anything
    else (the parent of a definition that is no template)."""
    if template is None or template.type != "template_declaration":
        return []
    out = []
    for p in template.child_by_field_name("parameters").named_children:
        is_type = "type_parameter" in p.type
        out.append((p, is_type, template_param_name(p, is_type)))
    return out


def template_default(param, is_type: bool):
    """A template parameter's default argument, or None."""
    if not param.type.startswith("optional"):
        return None
    return param.child_by_field_name("default_type" if is_type else "default_value")


def subscript_index(node):
    """The (first) index expression of a subscript_expression `a[i]`.

    Grammar versions differ: older ones name the field `index`, newer ones `indices`
    (a subscript_argument_list, C++23's `a[i, j]`)."""
    idx = node.child_by_field_name("indices") or node.child_by_field_name("index")
    if idx.type == "subscript_argument_list":
        # `a[]` (the grammar accepts it): the empty list itself, which no rule reads, so
        # the caller's error names it at its place
        return idx.named_children[0] if idx.named_children else idx
    return idx


def is_null_literal(node) -> bool:
    """Whether an expression (its casts and parentheses already stripped) is a null
    pointer constant: `nullptr`, `NULL` (the grammar's null) or a literal 0."""
    return node.type in ("null", "nullptr") or (node.type == "number_literal" and
                                                 text(node) in ("0", "0L", "0LL"))


def parse_expression(source: str):
    """The syntax tree of one C expression given as text (None if it is not one)."""
    tree = parser().parse(f"int __x = ({source});".encode())
    if first_error(tree.root_node) is not None:
        return None
    decl = tree.root_node.named_children[0]
    init = next((c for c in decl.named_children if c.type == "init_declarator"), None)
    if init is None:
        return None
    return init.child_by_field_name("value").named_children[0]


def split_top_level(source: str, angles: bool = True) -> list[str]:
    """`float, 4` -> ["float", "4"], commas inside parentheses (and <>, for template
    arguments: `angles`) kept."""
    out, depth, cur = [], 0, ""
    opening, closing = ("(<[", ")>]") if angles else ("([", ")]")
    for c in source:
        if c in opening:
            depth += 1
        elif c in closing:
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


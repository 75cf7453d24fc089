"""A kernel's launch, read from the host code that launches it (`k<<<grid, block, smem>>>`):
its dimensions as expressions of the kernel's parameters and the file's constants, or
what the command line gives (--launch-grid, --launch-block, --launch-smem); its scalar
arguments and its arrays' lengths (the host's cudaMalloc, std::vector and Python sizes).

Where the launches are and which template instance each binds: launch_sites.py; the host
code's values along the path to a launch: host_values.py.
"""
from __future__ import annotations

from kernels_ir import const

from .errors import CudaImportError
from .host_values import callers, Host, parameter_names
from .launch_sites import launch_args, launch_config, launches_for, launches_named, unit_of
from .parse import is_null_literal, parse_expression, split_top_level, text, walk
from .symbols import COMPONENTS, VECTORS, fold


def _through_pointer(unit, lowering) -> str:
    """Where a kernel the file launches by no name may be launched through a pointer: its
    name taken as a value (`fp[0] = k;`), and a launch of something not a kernel's name
    (`fp[i]<<<grid[d][i], block[d][i]>>>(...)`), which the host reading does not follow;
    "" where the file has neither."""
    kernels = {unit.name_of(k) for k in unit.kernels}
    pointers = [call for u in (unit, *unit.host_units)
                for name, calls in u.launches.items() if name not in kernels
                for call, _ in calls]
    if not pointers:
        return ""
    taken = None
    for u in (unit, *unit.host_units):
        for n in walk(u.tree.root_node):
            if n.type == "identifier" and text(n) == lowering.name and \
                    n.parent is not None and n.parent.type not in (
                        "function_declarator", "call_expression", "template_function"):
                taken = (u, n)
                break
        if taken is not None:
            break
    if taken is None:
        return ""
    u, n = taken
    statement = n
    while statement.parent is not None and not statement.type.endswith(("statement",
                                                                        "declaration")):
        statement = statement.parent
    call = pointers[0]
    short = lambda node: " ".join(text(node).split())[:80]  # noqa: E731
    return (f" (its address is taken at {u.loc(n)}, `{short(statement)}`, and the file "
            f"launches through a pointer at {unit_of(unit, call).loc(call)}, "
            f"`{short(call)}`, which smemsim does not follow)")


def launch_of(unit, lowering):
    """(grid, block, dynamic shared bytes) of the kernel being lowered."""
    o = unit.options
    from .unit import lowering_expr
    given = {}
    for what, option in (("grid", o.grid), ("block", o.block), ("smem", o.smem)):
        if option:
            parts = split_top_level(option, angles=False) if what != "smem" else [option]
            given[what] = tuple(lowering_expr(unit, p, lowering, f"--launch-{what}")
                                for p in parts)
    found = launches_for(unit, lowering)
    if "grid" in given and "block" in given:
        return given["grid"], given["block"], given["smem"][0] if "smem" in given else \
            _host_smem(unit, lowering, found)
    if not found and python_launch(unit, lowering) is not None:
        py = python_launch(unit, lowering)
        if py.grid is None or py.block is None or py.smem is None:
            raise CudaImportError(
                f"the launch of '{lowering.name}' at {py.loc} computes its grid, block or "
                "shared memory at run time: give --launch-grid and --launch-block (and "
                "--launch-smem)", kernel=lowering.name, loc=py.loc)
        dims = lambda t: tuple(const(v) for v in (*t, 1, 1)[:3])  # noqa: E731
        return (given.get("grid", dims(py.grid)), given.get("block", dims(py.block)),
                given["smem"][0] if "smem" in given else const(py.smem))
    if not found:
        where = "the file" if not unit.host_units else \
            "the file or its --host-file files"
        # (an instance the host code does not launch, of a template it launches otherwise:
        # named as asked, with what the file does launch)
        others = lowering.template_args and launches_named(unit, lowering.name)
        what = lowering.key if lowering.template_args else lowering.name
        err = CudaImportError(f"no launch of '{what}' in {where}"
                              + (f" (it launches '{lowering.name}' with other template "
                                 "arguments)" if others else _through_pointer(unit, lowering))
                              + ": give --launch-grid X[,Y,Z] and --launch-block X[,Y,Z] (or, "
                              "where another file of the program launches it, --host-file "
                              "FILE)", kernel=what, loc=lowering.loc(lowering.node))
        err.unlaunched = True   # (the file's other kernels may be launched: a note then)
        raise err
    call, host = found[0]
    cfg = launch_config(call)
    host_reader = Host(unit_of(unit, call), lowering, call, host)
    out = []
    asked: list = []   # (the host values the launch needs and the file cannot say)
    for k, node in enumerate(cfg[:3]):
        if ("grid", "block", "smem")[k] in given:
            out.append(None)   # given on the command line: the host's is not read
            continue
        for _ in range(MAX_ASKED):
            try:
                out.append(host_reader.dims(node) if k < 2 else (host_reader.value(node),))
                break
            except CudaImportError as err:
                what = getattr(err, "what", None)
                key = "".join((what or "").split())
                if what and not getattr(err, "macro", False) and \
                        key not in host_reader.given:
                    # every value the launch needs, asked at once: a stand-in for this one
                    # while the next is looked for
                    asked.append(err)
                    host_reader.given[key] = (what, "1")
                    continue
                if asked:
                    break
                hint = f"define it as your build does (-D {what}=VALUE), or give " \
                    if getattr(err, "macro", False) else \
                    f"give its value (--host '{what}=VALUE'), or " if what else "give "
                raise CudaImportError(
                    f"the launch of '{lowering.name}' uses {err.message}: {hint}"
                    "--launch-grid and --launch-block", kernel=lowering.name,
                    loc=host_reader.u.loc(call)) from None
    if asked:
        first = asked[0]
        values = " ".join(f"--host '{e.what}=VALUE'" for e in asked)
        more = "; also " + ", ".join(f"`{e.what}`" for e in asked[1:]) if len(asked) > 1 \
            else ""
        raise CudaImportError(
            f"the launch of '{lowering.name}' uses {first.message}{more}: give "
            f"{'its value' if len(asked) == 1 else 'their values'} ({values}), or "
            "--launch-grid and --launch-block", kernel=lowering.name,
            loc=host_reader.u.loc(call))
    lowering.launch_inputs = tuple(sorted(host_reader.deciding))
    grid = given.get("grid", out[0])
    block = given.get("block", out[1])
    smem = given["smem"][0] if "smem" in given else (out[2][0] if len(out) > 2 else const(0))
    return grid, block, smem


# host values one launch's reading asks for at once, at most
MAX_ASKED = 8


def _host_smem(unit, lowering, found):
    """The dynamic shared memory the host code's launch gives, where the command line gives
    the grid and block but not it: 0 where the launch gives none (or there is no launch);
    where the host code cannot say (its expression reads what it computes at run time,
    `2 * bs * sizeof(float)` with `bs` from a function), a question, never 0."""
    if not found:
        return const(0)
    call, host = found[0]
    cfg = launch_config(call)
    if len(cfg) < 3:
        return const(0)
    try:
        return Host(unit_of(unit, call), lowering, call, host).value(cfg[2])
    except CudaImportError as err:
        raise CudaImportError(
            f"the launch of '{lowering.name}' gives `{text(cfg[2])}` bytes of dynamic shared "
            f"memory, which uses {err.message}: give them with --launch-smem BYTES",
            kernel=lowering.name, loc=unit.loc(call)) from None


def other_launches(unit, lowering) -> tuple[str, list[str]]:
    """(where the launch launch_of reads is, where the kernel is launched with another
    configuration than that one: `file.cu:19:3` each, in the file of each launch, a
    --host-file's included), so that the analysis can say which it counts; ("", []) for a
    kernel launched once or alike everywhere."""
    from kernels_ir import format_expr
    found = launches_for(unit, lowering)
    if len(found) < 2:
        return "", []

    def shape(call, host):
        """The launch's grid and block as read, or None where the host side cannot read
        them (a value computed at run time: another configuration, as far as it knows)."""
        reader = Host(unit_of(unit, call), lowering, call, host)
        try:
            return [tuple(format_expr(e) for e in reader.dims(n))
                    for n in launch_config(call)[:2]]
        except CudaImportError:
            return None
    first = shape(*found[0])
    others = [str(unit_of(unit, call).loc(call)) for call, host in found[1:]
              if first is None or shape(call, host) != first]
    return (str(unit_of(unit, found[0][0]).loc(found[0][0])) if others else ""), others


def launch_arguments(unit, lowering) -> dict:
    """Scalar parameters the host code passes a compile-time value at the launch
    (`k<<<g, b>>>(x, 1024)`, or a constant of the file or host function): their defaults."""
    found = launches_for(unit, lowering)
    lowering.unread_arguments = ()
    if not found:
        py = python_launch(unit, lowering)
        if py is None:
            return {}
        out = {}
        for value, p in zip(py.args, unit.params_of(lowering.node)):
            d = p.child_by_field_name("declarator")
            if value is not None and d is not None and d.type == "identifier":
                out[text(d)] = value
        return out
    from .lower_struct_values import names_struct, struct_type
    call, host = found[0]
    reader = Host(unit_of(unit, call), lowering, call, host)
    reader.by_arg = {}  # an argument's own value, not the parameter it becomes
    reader.shared_args = {}
    args = launch_args(call, host)
    out = {}
    unread = []
    for a, p in zip(args, unit.params_of(lowering.node)):
        d = p.child_by_field_name("declarator")
        if d is None or d.type != "identifier":
            continue
        if a.type == "identifier" and names_struct(lowering, p.child_by_field_name("type")):
            # `convolution<<<g, b>>>(N, P)` of `Matrix N`: each scalar field the host sets
            # (`N.width = N.height = 2048; P = N;`), a parameter `N_width`
            stype = struct_type(lowering, p.child_by_field_name("type"), p)
            for fname, *_ in stype.fields:
                try:
                    value = reader.member(text(a), fname)
                    value = None if value is None else fold(value)
                except CudaImportError:
                    continue
                if value is not None:
                    out[f"{text(d)}_{fname}"] = value
            continue
        lanes = VECTORS.get(lowering.type_name(p.child_by_field_name("type"), p), (None, 1))[1]
        if lanes > 1:
            # `k<<<...>>>(..., make_uint3(16, 16, 4))`: a parameter per lane, name_x, ...
            made = lowering.uncast(a)
            parts = made.child_by_field_name("arguments").named_children \
                if made.type == "call_expression" and \
                text(made.child_by_field_name("function")).startswith("make_") else []
            for lane, part in zip(COMPONENTS, parts if len(parts) == lanes else []):
                try:
                    value = fold(reader.value(part))
                except CudaImportError:
                    continue
                if value is not None:
                    out[f"{text(d)}_{lane}"] = value
            continue
        try:
            value = fold(reader.value(a))
        except CudaImportError as err:
            # a host value the file cannot say: the user gives it (-p, or --host the
            # value it is made of, where the reader names one), as the question will say
            what = getattr(err, "what", None)
            if what and not getattr(err, "macro", False):
                unread.append((text(d), " ".join(text(a).split()), what))
            continue
        if value is not None:
            out[text(d)] = value
    lowering.unread_arguments = tuple(unread)
    return out


def null_pointer_params(unit, lowering) -> dict:
    """Pointer parameters the file's launch passes a null pointer (`NULL`, `nullptr`, 0,
    through casts), and those --null names: name -> the argument node (the parameter's, for
    --null). The kernel sees them null: `p != NULL` is false, and a read or write through
    one is a fault at its line."""
    out = {}
    pointers = {}
    for p in unit.params_of(lowering.node):
        d = p.child_by_field_name("declarator")
        if d is not None and d.type == "pointer_declarator":
            pointers[text(d.child_by_field_name("declarator"))] = p
    for name in unit.options.nulls:
        if name not in pointers:
            raise CudaImportError(f"--null {name}: '{lowering.name}' has no such pointer "
                                  f"parameter (it has {', '.join(sorted(pointers)) or 'none'})",
                                  kernel=lowering.name)
        out[name] = pointers[name]
    found = launches_for(unit, lowering)
    if not found:
        return out
    call, host = found[0]
    for a, p in zip(launch_args(call, host), unit.params_of(lowering.node)):
        d = p.child_by_field_name("declarator")
        if d is None or d.type != "pointer_declarator":
            continue
        value = a
        while value.type in ("parenthesized_expression", "cast_expression"):
            value = value.named_children[-1] if value.type == "parenthesized_expression" \
                else value.child_by_field_name("value")
        if is_null_literal(value):
            out[text(d.child_by_field_name("declarator"))] = a
    return out


def python_launch(unit, lowering):
    """The first launch of this kernel by the Python file that holds its CUDA (cupy's
    `k(grid, block, args)`, pycuda's `f(args, block=, grid=)`), or None."""
    if unit.path.suffix != ".py":
        return None
    if not hasattr(unit, "_python_launches"):
        from .embedded import python_launches
        unit._python_launches = python_launches(str(unit.path))
    found = unit._python_launches.get(lowering.name)
    return found[0] if found else None


def python_length(unit, lowering, array: str) -> int | None:
    """The elements of the array the Python launch passes for the pointer parameter
    `array`, where its allocation says (None: unknown, or no such launch)."""
    py = python_launch(unit, lowering)
    if py is None:
        return None
    for position, p in enumerate(unit.params_of(lowering.node)):
        d = p.child_by_field_name("declarator")
        if d is not None and d.type == "pointer_declarator" and \
                text(d.child_by_field_name("declarator")) == array:
            return py.lengths[position] if position < len(py.lengths) else None
    return None


ALLOCATORS = ("cudaMalloc", "cudaMallocManaged")


def allocated_length(unit, lowering, array: str, lanes: int, size: int,
                     field: tuple[str, str] | None = None):
    """The elements (of `size` bytes, `lanes` to an element of a vector type) of the array
    the file's launch passes for pointer parameter `array`, where the host allocates it
    with cudaMalloc or cudaMallocManaged: in the launching function (an expression of the
    kernel's parameters where it passes the same variables), or in a function that calls
    it, through the arguments (a constant then). None when the file does not say, or when
    the bytes are not a whole number of elements."""
    found = launches_for(unit, lowering)
    names = parameter_names(unit, lowering.node)
    # (`field`: a pointer field of a struct passed by value, ("N", "elements") of `Matrix
    # N`: the allocation of that field of the struct the launch passes, `cudaMalloc(
    # &N.elements, ...)`)
    owner = field[0] if field is not None else None
    if not found or (owner or array) not in names:
        return None
    call, host = found[0]
    args = launch_args(call, host)
    index = names.index(array if owner is None else owner)
    if index >= len(args) or host is None:
        return None
    reader = Host(unit_of(unit, call), lowering, call, host)
    arg = lowering.uncast(args[index])
    if owner is not None:
        if arg.type != "identifier":
            return None
        arg = parse_expression(f"{text(arg)}.{field[1]}")
    nbytes = _allocated_bytes(reader.u, reader, arg, host, 0)
    if nbytes is None:
        return None
    from .symbols import exact_quotient
    return exact_quotient(nbytes, size * lanes)


def _allocated_bytes(unit, reader, arg, host, depth: int):
    """The bytes allocated for the variable `arg` names in `host` (read by `reader`), or
    where `arg` is a parameter of `host`, in each function that calls it (all the same)."""
    vector = _vector_named(arg)
    if vector is not None:
        return _vector_bytes(reader, vector, host, 0)
    if arg.type not in ("identifier", "field_expression") or depth > 16:
        return None
    name, bare = text(arg), reader.low.uncast
    for node in walk(host):
        if node.type != "call_expression" or node.start_byte > reader.call.start_byte or \
                text(node.child_by_field_name("function")) not in ALLOCATORS:
            continue
        given = node.child_by_field_name("arguments").named_children
        target = bare(given[0]) if len(given) >= 2 else None
        if target is not None and target.type == "pointer_expression" and \
                text(target).startswith("&") and text(bare(target.named_children[0])) == name:
            try:
                return reader.value(given[1])
            except CudaImportError:
                return None
    if arg.type != "identifier":   # (a struct's field: allocated where the launch is)
        return None
    sizes = set()
    for outer, given in callers(unit, reader.low, host, name) or ():
        found = _allocated_bytes(unit, outer, bare(given), outer.host, depth + 1)
        sizes.add(None if found is None else fold(found))
    return const(sizes.pop()) if len(sizes) == 1 and None not in sizes else None


def _vector_named(arg) -> str | None:
    """The vector whose storage an argument passes: `thrust::raw_pointer_cast(v.data())`,
    `v.data()`, `&v[0]` name `v`; None for anything else."""
    while arg.type == "call_expression" and len(
            arg.child_by_field_name("arguments").named_children) == 1 and \
            text(arg.child_by_field_name("function")).split("::")[-1] == "raw_pointer_cast":
        arg = arg.child_by_field_name("arguments").named_children[0]
    if arg.type == "call_expression":
        fn = arg.child_by_field_name("function")
        if fn.type == "field_expression" and text(fn.child_by_field_name("field")) == "data" \
                and not arg.child_by_field_name("arguments").named_children and \
                fn.child_by_field_name("argument").type == "identifier":
            return text(fn.child_by_field_name("argument"))
    if arg.type == "pointer_expression" and arg.children[0].type == "&" and \
            arg.named_children[0].type == "subscript_expression" and \
            arg.named_children[0].child_by_field_name("argument").type == "identifier":
        return text(arg.named_children[0].child_by_field_name("argument"))
    return None


def _vector_bytes(reader, name: str, host, depth: int):
    """The bytes of a thrust (or std) vector `name` of the host function at the launch,
    where its declaration sizes it and nothing assigns it after: `device_vector<float>
    d(n)`, `d(n, value)`, or `d = h` of another such vector; else None."""
    from .deduce import element_type, local_declaration
    if depth > 8:
        return None
    local = local_declaration(name, reader.call, host)
    found = (element_type(local[0]), local[2]) if local is not None and local[1] == 0 and \
        element_type(local[0]) is not None else None
    if found is None or any(
            n.type == "assignment_expression" and text(n.child_by_field_name("left")) == name
            or n.type == "call_expression" and text(n.child_by_field_name("function")) in (
                f"{name}.resize", f"{name}.push_back", f"{name}.clear")
            for n in walk(host)):
        return None     # resized or assigned somewhere: not read here
    element, init = found
    if init.type == "function_declarator":          # `d(n)`
        given = init.child_by_field_name("parameters").named_children
        count = parse_expression(text(given[0])) if len(given) == 1 else None
    elif init.type == "init_declarator":
        value = init.child_by_field_name("value")
        if value.type == "identifier":                  # `d = h`: h's length
            return _vector_bytes(reader, text(value), host, depth + 1)
        count = value.named_children[0] if value.type == "argument_list" and \
            len(value.named_children) in (1, 2) else None
    else:
        count = None
    if count is None:
        return None
    try:
        return reader.value(count) * reader.low.expr(parse_expression(f"sizeof({element})"))
    except CudaImportError:
        return None



"""A kernel's launch, read from the host code that launches it (`k<<<grid, block, smem>>>`):
its dimensions as expressions of the kernel's parameters and the file's constants, or
what the command line gives (--launch-grid, --launch-block, --launch-smem)."""
from __future__ import annotations

import contextlib
import re

from kernels_ir import const

from .errors import CudaImportError
from .parse import (
    function_name, is_null_literal, parse_expression, short, split_top_level, text, walk,
)
from .symbols import COMPONENTS, FLOAT_MATH, MATH, VECTORS, fold


# the runtime's launch functions that name the kernel as their first argument: (function,
# grid, block, void* args[], shared bytes, stream), the form a cooperative launch takes
LAUNCH_FUNCTIONS = ("cudaLaunchCooperativeKernel", "cudaLaunchKernel")


def is_launch(call) -> bool:
    """Whether a call launches a kernel: `k<<<...>>>(...)` or cudaLaunchCooperativeKernel."""
    return any(c.type == "kernel_call_syntax" for c in call.children) or \
        call.type == "call_expression" and \
        text(call.child_by_field_name("function")) in LAUNCH_FUNCTIONS


def _bare(node):
    """An argument without its casts, parentheses and `&` (`(void *)&d_in` is `d_in`)."""
    while node.type in ("cast_expression", "parenthesized_expression") or \
            node.type == "pointer_expression" and node.children[0].type == "&":
        node = node.child_by_field_name("value") if node.type == "cast_expression" else \
            node.named_children[-1]
    return node


def launched_name(call) -> str | None:
    """The kernel a cudaLaunchCooperativeKernel((void *)k, ...) launches, else None."""
    if text(call.child_by_field_name("function")) not in LAUNCH_FUNCTIONS:
        return None
    args = call.child_by_field_name("arguments").named_children
    node = _bare(args[0]) if args else None
    return text(node) if node is not None and node.type == "identifier" else None


def launch_config(call) -> list:
    """The [grid, block(, shared bytes)] nodes of a launch: `k<<<g, b, s>>>(...)`'s, or
    cudaLaunchCooperativeKernel((void *)k, g, b, args, s, stream)'s."""
    syntax = next((c for c in call.children if c.type == "kernel_call_syntax"), None)
    if syntax is not None:
        return syntax.named_children
    args = call.child_by_field_name("arguments").named_children
    return args[1:3] + args[4:5]


def launch_args(call, host) -> list:
    """The nodes a launch passes the kernel's parameters: `k<<<...>>>(a, b)`'s, or what the
    `void *kernelArgs[] = {(void *)&a, ...}` given to cudaLaunchCooperativeKernel points
    at (each without its cast and `&`); [] where the file does not say."""
    given = call.child_by_field_name("arguments").named_children
    if any(c.type == "kernel_call_syntax" for c in call.children):
        return given
    if len(given) < 4 or given[3].type != "identifier" or host is None:
        return []
    name, found = text(given[3]), None
    for d in walk(host):
        if d.type == "init_declarator" and d.start_byte < call.start_byte and \
                d.child_by_field_name("value") is not None and \
                d.child_by_field_name("value").type == "initializer_list":
            target = d.child_by_field_name("declarator")
            while target.type in ("array_declarator", "pointer_declarator"):
                target = target.child_by_field_name("declarator")
            if text(target) == name:
                found = d.child_by_field_name("value")   # the latest before the launch
    return [_bare(item) for item in (found.named_children if found is not None else ())]


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
    if "grid" in given and "block" in given:
        return given["grid"], given["block"], given.get("smem", (const(0),))[0]
    found = launches_for(unit, lowering)
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
        raise CudaImportError(f"no launch of '{lowering.name}' in {where}: give "
                              "--launch-grid X[,Y,Z] and --launch-block X[,Y,Z] (or, where "
                              "another file of the program launches it, --host-file FILE)",
                              kernel=lowering.name, loc=lowering.loc(lowering.node))
    call, host = found[0]
    cfg = launch_config(call)
    host_reader = _Host(unit_of(unit, call), lowering, call, host)
    out = []
    for k, node in enumerate(cfg[:3]):
        if ("grid", "block", "smem")[k] in given:
            out.append(None)   # given on the command line: the host's is not read
            continue
        try:
            out.append(host_reader.dims(node) if k < 2 else (host_reader.value(node),))
        except CudaImportError as err:
            what = getattr(err, "what", None)
            hint = f"define it as your build does (-D {what}=VALUE), or give " \
                if getattr(err, "macro", False) else \
                f"give its value (--host '{what}=VALUE'), or " if what else "give "
            raise CudaImportError(
                f"the launch of '{lowering.name}' uses {err.message}: {hint}--launch-grid "
                "and --launch-block", kernel=lowering.name,
                loc=host_reader.u.loc(call)) from None
    lowering.launch_inputs = tuple(sorted(host_reader.deciding))
    grid = given.get("grid", out[0])
    block = given.get("block", out[1])
    smem = given["smem"][0] if "smem" in given else (out[2][0] if len(out) > 2 else const(0))
    return grid, block, smem


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
        reader = _Host(unit_of(unit, call), lowering, call, host)
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
    call, host = found[0]
    reader = _Host(unit_of(unit, call), lowering, call, host)
    reader.by_arg = {}  # an argument's own value, not the parameter it becomes
    args = launch_args(call, host)
    out = {}
    for a, p in zip(args, unit.params_of(lowering.node)):
        d = p.child_by_field_name("declarator")
        if d is None or d.type != "identifier":
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
        except CudaImportError:
            continue  # a host variable: the user gives it (--param), as before
        if value is not None:
            out[text(d)] = value
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


def allocated_length(unit, lowering, array: str, lanes: int, size: int):
    """The elements (of `size` bytes, `lanes` to an element of a vector type) of the array
    the file's launch passes for pointer parameter `array`, where the host allocates it
    with cudaMalloc or cudaMallocManaged: in the launching function (an expression of the
    kernel's parameters where it passes the same variables), or in a function that calls
    it, through the arguments (a constant then). None when the file does not say, or when
    the bytes are not a whole number of elements."""
    found = launches_for(unit, lowering)
    names = _parameter_names(unit, lowering.node)
    if not found or array not in names:
        return None
    call, host = found[0]
    args = launch_args(call, host)
    index = names.index(array)
    if index >= len(args) or host is None:
        return None
    reader = _Host(unit_of(unit, call), lowering, call, host)
    nbytes = _allocated_bytes(reader.u, reader, lowering.uncast(args[index]), host, 0)
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
    if arg.type != "identifier" or depth > 16:
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
    sizes = set()
    for outer, given in _callers(unit, reader.low, host, name) or ():
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


def _parameter_names(unit, function) -> list:
    """The names a function's parameters declare (through `*` and `&`; None where none)."""
    names = []
    for p in unit.params_of(function):
        d = p.child_by_field_name("declarator")
        while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
            d = d.child_by_field_name("declarator") or d.named_children[-1]
        names.append(text(d) if d is not None and d.type == "identifier" else None)
    return names


def _callers(unit, lowering, host, name: str) -> list | None:
    """Where the host function `host` is called directly, the argument it gets for its
    parameter `name`: [(a reader of the caller's values, the argument)], one per call;
    None where `name` is no parameter of it, or a call does not pass it from another
    function (a default argument, a call at file scope, recursion)."""
    if host is None or host.type != "function_definition":
        return None
    names = _parameter_names(unit, host)
    if name not in names:
        return None
    index, out = names.index(name), []
    for site in unit.calls_of(function_name(host)):
        args = site.child_by_field_name("arguments").named_children
        caller = site.parent
        while caller is not None and caller.type != "function_definition":
            caller = caller.parent
        if index >= len(args) or caller is None or caller == host:
            return None
        reader = _Host(unit, lowering, site, caller)
        reader.by_arg = {}      # the call's arguments are no launch's: values only
        out.append((reader, args[index]))
    return out


def host_instances(unit, host) -> list[dict]:
    """The template arguments a host function template is given in the file, one
    {parameter: argument text} per instance: its explicit instantiations (`template void
    reduce<int>(int size, ...);`, as cuda-samples' reduction instantiates its launcher) and
    the calls that name them (`reduce<float>(...)`). [{}] for a host function that is no
    template; [] for a template the file never instantiates."""
    from . import _host_template_args, _template_params
    if not _host_template_args(host):
        return [{}]
    cache = unit.__dict__.setdefault("_host_instances", {})  # (each launch asks again)
    if host.id in cache:
        return cache[host.id]
    params, name, out = _template_params(host.parent), function_name(host), []
    cache[host.id] = out
    for node in walk(unit.tree.root_node):
        if node.type == "template_instantiation":
            fn = node.child_by_field_name("declarator")
            fn = fn.child_by_field_name("declarator") if fn is not None and \
                fn.type == "function_declarator" else None
        elif node.type == "call_expression":
            fn = node.child_by_field_name("function")
        else:
            continue
        if fn is None or fn.type != "template_function" or \
                text(fn.child_by_field_name("name")) != name:
            continue
        args = [text(a) for a in fn.child_by_field_name("arguments").named_children]
        binding = dict(zip(params, args))
        if binding not in out:
            out.append(binding)
    return out


def with_binding(args: list[str], binding: dict) -> list[str]:
    """Template argument texts with a host template's parameters replaced by an instance's
    arguments (`T` of `reduce<T>` is `int` in `reduce<int>`)."""
    return [re.sub(r"\b[A-Za-z_]\w*\b", lambda m: binding.get(m.group(0), m.group(0)), a)
            for a in args]


def explicit_arguments(call) -> list[str]:
    """The template arguments a launch names (`k<128, float><<<...>>>`); [] for none."""
    fn = call.child_by_field_name("function")
    if fn.type != "template_function":
        return []
    return [text(a) for a in fn.child_by_field_name("arguments").named_children]


def template_arguments(unit, call, host, kernel) -> list[str] | None:
    """The template arguments a launch gives the template kernel `kernel`: those it names,
    then those its arguments' types deduce (`k<<<g, b>>>(d_x)` with `float *d_x` is
    `k<float>`), a default standing between two deduced ones; None where it gives none.
    (Asked for each launch by kernel_keys and by each lowering's readers of its launches:
    read once per launch and kernel.)"""
    cache = unit.__dict__.setdefault("_template_arguments", {})
    key = (call.start_byte, call.end_byte,
           (kernel.start_byte, function_name(kernel)) if kernel is not None else None)
    if key not in cache:
        cache[key] = _template_arguments(unit, call, host, kernel)
    return list(cache[key]) if cache[key] is not None else None


def _template_arguments(unit, call, host, kernel) -> list[str] | None:
    """template_arguments, read."""
    from .deduce import deduced_types
    from .parse import template_default, template_parameters
    args = explicit_arguments(call)
    params = template_parameters(kernel.parent) if kernel is not None else []
    if len(args) < len(params):
        found = deduced_types(unit, kernel, launch_args(call, host), call, host) or {}
        named, given = len(args), len(args)
        for param, is_type, name in params[given:]:
            default = template_default(param, is_type)
            default = None if default is None else " ".join(text(default).split())
            if name in found and found[name] != default:
                args.append(found[name])
                named = len(args)
            elif default is not None:
                args.append(default)     # (deduced as the default: the key needs neither)
            else:
                break
        del args[named:]       # trailing defaults are left to the template
    return args or None


def launched_instances(unit, call, host, kernel=None) -> list[tuple[dict, list[str]]]:
    """(the host template's binding, the template arguments the launch then gives its
    kernel, the host's constants in place: `k</*BM*/ BM, ...>` is `k<64, ...>`) for each
    instance of the host the file makes; [] for a launch that gives no template
    arguments (named, or deduced from its arguments for the template `kernel`).
    kernel_keys and instance_bindings both read launches so."""
    from . import _with_host_constants
    args = template_arguments(unit, call, host, kernel)
    if args is None:
        return []
    return [(b, _with_host_constants(host, with_binding(args, b)))
            for b in host_instances(unit, host)]


def instance_bindings(unit, lowering, call, host) -> list[dict]:
    """The host template instances under which this launch launches the instance being
    lowered ([{}] where the host is no template and the launch names it)."""
    if not lowering.template_args or \
            template_arguments(unit, call, host, lowering.node) is None:
        return [{}]
    # (asked for each launch by each reader of it: cuda-samples' reduction has 213)
    cache = lowering.__dict__.setdefault("_instance_bindings", {})
    where = (call.start_byte, call.end_byte)
    if where in cache:
        return cache[where]

    def spelled(t: str) -> str:   # `k<(32)>` (a macro's parentheses) is `k<32>`
        return "".join(t.split()).replace("(", "").replace(")", "")
    want = spelled(lowering.key)
    found = cache[where] = [b for b, concrete in launched_instances(unit, call, host,
                                                                   lowering.node)
                            if spelled(f"{lowering.name}<{', '.join(concrete)}>") == want]
    return found


def launches_named(unit, name: str) -> list:
    """The launches of the kernel `name`: the file's own first, then those of the
    program's other files (--host-file), in their order (a kernel launched in its own file
    is read from there; a template's instances are those any file launches: a header's
    launcher template that no one instantiates there, and main.cu's `k<int><<<...>>>`)."""
    return unit.launches.get(name, []) + [
        pair for other in unit.host_units for pair in other.launches.get(name, [])]


def unit_of(unit, node):
    """The file of the program whose syntax tree holds `node`: the kernel's own, or one
    of its --host-file files (whose host values, constants and functions a launch there
    reads)."""
    root = node
    while root.parent is not None:
        root = root.parent
    for other in unit.host_units:
        if other.tree.root_node == root:
            return other
    return unit


def launches_for(unit, lowering) -> list:
    """The launches of this kernel (of this template instantiation, if it is one)."""
    calls = launches_named(unit, lowering.name)
    if not lowering.template_args:
        return calls
    given = [(c, h) for c, h in calls
             if template_arguments(unit_of(unit, c), c, h, lowering.node) is not None]
    mine = [(c, h) for c, h in given if instance_bindings(unit_of(unit, c), lowering, c, h)]
    # launches that give no template arguments (none named, none deduced from their
    # arguments' types) may be this instance's; launches of other instances are not (their
    # grid and block are theirs: a question, not a guess)
    return mine or [pair for pair in calls if pair not in given]


def _ancestors(node) -> list:
    out = []
    while node.parent is not None:
        node = node.parent
        out.append(node)
    return out


def _reaches(assignment, call) -> bool:
    """Whether an assignment in the host function may run before the launch: it comes
    before it, or after it in a loop that repeats both; not where the two are in other
    branches of one `if`, or the assignment is in an earlier `case` that breaks
    (cuda-samples' reduction sets smemSize in the case of one kernel, launches another
    in the next)."""
    above = _ancestors(call)
    loops = [n for n in above if n.type in (
        "for_statement", "for_range_loop", "while_statement", "do_statement")]
    if any(lp.start_byte <= assignment.start_byte < lp.end_byte for lp in loops):
        return True
    if assignment.start_byte > call.start_byte:
        return False
    mine = [assignment, *_ancestors(assignment)]
    common = next(n for n in mine if n in above or n == call)
    child = mine[mine.index(common) - 1]    # the common ancestor's child holding it
    if common.type == "if_statement" and child != common.child_by_field_name("condition"):
        return False      # in the `then` of an if whose `else` holds the launch
    if child.type == "case_statement" and any(
            s.type in ("break_statement", "return_statement") and
            s.start_byte > assignment.start_byte for s in child.named_children):
        return False      # a case before the launch's, left by its break
    return True


# host calls that only read what their arguments after the first point at
_COPIES = ("cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync",
           "memcpy", "std::memcpy")


def _may_write(address) -> bool:
    """Whether the variable `&x` points at may be written through it: not where the address
    goes to a launch (`void *args[] = {&size}`, `k<<<...>>>(&x)`: its value is read) or is
    the source of a copy."""
    argument, node = address, address.parent
    while node is not None and node.type in ("cast_expression", "parenthesized_expression"):
        argument, node = node, node.parent
    if node is not None and node.type == "initializer_list":
        return False      # `void *kernelArgs[] = {(void *)&size, ...}`
    call = node.parent if node is not None and node.type == "argument_list" else None
    if call is not None and call.type == "call_expression":
        name = text(call.child_by_field_name("function"))
        # (`cudaMemcpy((void *)&x, d_x, ...)` writes x: the first argument, cast or not)
        if is_launch(call) or name in _COPIES and node.named_children and \
                node.named_children[0] != argument:
            return False
    return True


def _in_scope(declaration, call) -> bool:
    """Whether a declaration is visible at the launch: before it, in a block (or the case of
    a switch) that holds the launch."""
    if declaration.start_byte > call.start_byte:
        return False
    block = declaration.parent
    node = call
    while node is not None:
        if node == block:
            return True
        node = node.parent
    return False


def _switch_cases(call) -> dict:
    """{variable: the case's value} of each `switch (variable)` whose `case V:` holds the
    launch."""
    out: dict = {}
    node = call
    while node is not None:
        parent = node.parent
        if node.type == "case_statement" and node.child_by_field_name("value") is not None:
            switch = parent
            while switch is not None and switch.type != "switch_statement":
                switch = switch.parent
            if switch is not None:
                cond = switch.child_by_field_name("condition")
                inner = cond.named_children[0] if cond is not None and cond.named_children \
                    else None
                while inner is not None and inner.type == "parenthesized_expression":
                    inner = inner.named_children[0]
                if inner is not None and inner.type == "identifier":
                    out.setdefault(text(inner), node.child_by_field_name("value"))
        node = parent
    return out


class _Host:
    """Host expressions of a launch, in terms of the kernel's parameters: an argument
    passed at the launch stands for the parameter it becomes; `dim3` variables and
    constants of the host function are followed; any other host value is a question."""

    def __init__(self, unit, lowering, call, host):
        self.u, self.low, self.call, self.host = unit, lowering, call, host
        given = call.child_by_field_name("arguments")
        args = launch_args(call, host) if is_launch(call) else \
            given.named_children if given is not None else []
        params = unit.params_of(lowering.node)
        self.by_arg = {}
        for a, p in zip(args, params):
            pd = p.child_by_field_name("declarator")
            if pd is not None and pd.type == "identifier":
                self.by_arg[text(a)] = text(pd)
        self.dims3, self.locals = {}, {}
        # the kernel parameters whose host values an if/else chain of the launch tested
        # (`if (cols >= 4096) threads = 1024; ...` with `cols` passed to the kernel)
        self.deciding: set[str] = set()
        # --host values by their expression with its spaces dropped (as value() looks them up)
        self.given = {"".join(k.split()): (k, v) for k, v in unit.options.hosts.items()}
        self.env: list[dict] = []  # the arguments of the host helpers being read
        # the host template's arguments where the launch is in one (`sizeof(T)` of
        # `reduce<T>` is sizeof(int) in the instance launching k<int>)
        bindings = instance_bindings(unit, lowering, call, host) if is_launch(call) else []
        self.binding = bindings[0] if bindings else {}
        scope = host if host is not None else unit.tree.root_node
        assigned = {text(n.child_by_field_name("left")) for n in walk(scope)
                    if n.type == "assignment_expression" and _reaches(n, call)}
        # `++pitch`, `i--`: written too (a loop variable's value differs per launch)
        assigned |= {text(n.child_by_field_name("argument")) for n in walk(scope)
                     if n.type == "update_expression" and _reaches(n, call) and
                     n.child_by_field_name("argument") is not None}
        # a variable whose address is taken may be written through it (`int n = 0;` then
        # `fscanf(fp, "%d", &n);`, Parboil bfs): not a value set once
        assigned |= {text(n.named_children[0]) for n in walk(scope)
                     if n.type == "pointer_expression" and n.children[0].type == "&" and
                     n.named_children and n.named_children[0].type == "identifier" and
                     _reaches(n, call) and _may_write(n)}
        for d in walk(scope):
            if d.type == "enum_specifier" and _in_scope(
                    d.parent if d.parent.type == "declaration" else d, call):
                self.enumerators(d)
            if d.type != "declaration" or not _in_scope(d, call):
                continue   # a declaration of a block the launch is not in, or after it
            type_text = text(d.child_by_field_name("type"))
            for init in d.named_children[1:]:
                if type_text == "dim3" and init.type == "identifier":
                    # `dim3 grid;` then `grid.x = ...;`: its fields, 1 until assigned
                    self.dims3[text(init)] = {"x": None, "y": None, "z": None}
                elif type_text == "dim3" and init.type == "init_declarator":
                    value = init.child_by_field_name("value")
                    name = text(init.child_by_field_name("declarator"))
                    self.dims3[name] = value.named_children if value.type in (
                        "argument_list", "initializer_list") else value
                elif type_text == "dim3" and init.type == "function_declarator":
                    # `dim3 b(TILE, TILE);` parses as a declaration of a function b taking
                    # two TILEs: its "parameters" are the arguments
                    given = init.child_by_field_name("parameters").named_children
                    self.dims3[text(init.child_by_field_name("declarator"))] = \
                        [parse_expression(text(g)) for g in given]
                elif init.type == "init_declarator" and \
                        init.child_by_field_name("declarator").type == "identifier":
                    name = text(init.child_by_field_name("declarator"))
                    if name not in assigned:  # set once: its value is known
                        self.locals[name] = init.child_by_field_name("value")
        for n in walk(scope):
            if n.type != "assignment_expression" or n.start_byte > call.start_byte or \
                    n.child_by_field_name("operator").type != "=":
                continue
            left = n.child_by_field_name("left")
            if left.type == "identifier" and text(left) in self.dims3:
                # `blocks = dim3((n + t - 1) / t);` as a whole: the latest before the launch
                self.dims3[text(left)] = n.child_by_field_name("right")
            elif left.type == "field_expression":
                owner = text(left.child_by_field_name("argument"))
                field = text(left.child_by_field_name("field"))
                if isinstance(self.dims3.get(owner), dict) and field in "xyz":
                    self.dims3[owner][field] = n.child_by_field_name("right")   # the latest
        # (walk order: the innermost declaration in scope, the latest, is the one kept)
        for name, value in _switch_cases(call).items():
            # `switch (NT) { case 32: k<32><<<grid, block>>>(...) }`: NT is 32 there
            if name not in assigned and (name in self.locals or host is not None and
                                         name in _parameter_names(unit, host)):
                self.locals[name] = value   # a local, or a parameter of the host function

    def chosen(self, name: str, depth: int):
        """The value of a host variable set in the branches of if/else chains whose
        conditions are host constants (`if (seq_len == 256) block = 256; else if (seq_len
        == 512) block = 512; else block = 1024;` with `const int seq_len = 512`): the last
        assignment before the launch that runs on its path; None where a condition is not
        a constant, or the variable is written any other way (in a loop, through its
        address, by `+=`, `++`, in a switch)."""
        call = self.call
        scope = self.host if self.host is not None else self.u.tree.root_node
        writes = []
        for n in walk(scope):
            if n.type == "assignment_expression" and \
                    text(n.child_by_field_name("left")) == name:
                if n.child_by_field_name("operator").type != "=":
                    return None
                if _reaches(n, call):
                    writes.append((n, n.child_by_field_name("right")))
            elif n.type == "init_declarator" and \
                    text(n.child_by_field_name("declarator")) == name and \
                    n.parent is not None and _in_scope(n.parent, call):
                writes.append((n, n.child_by_field_name("value")))
            elif n.type in ("update_expression", "pointer_expression") and \
                    n.named_children and text(n.named_children[0]) == name:
                return None
        above = set(_ancestors(call))
        loops = ("for_statement", "for_range_loop", "while_statement", "do_statement")
        value = None
        for node, right in sorted(writes, key=lambda w: w[0].start_byte):
            if any(a.type in loops and a in above for a in _ancestors(node)):
                return None   # set in a loop around the launch: a value per iteration
            runs, child = True, node
            for parent in _ancestors(node):
                if parent in above:
                    break
                if parent.type in loops + ("switch_statement", "case_statement"):
                    return None
                if parent.type == "if_statement" and \
                        child != parent.child_by_field_name("condition"):
                    clause = parent.child_by_field_name("condition")
                    test = clause.named_children[-1] if clause is not None and \
                        clause.named_children else None
                    if test is None:
                        return None
                    # (the host's own values: a variable the launch also passes is still
                    # the host's here, not the kernel parameter it becomes)
                    saved, self.by_arg = self.by_arg, {}
                    self.deciding |= {saved[n] for n in re.findall(r"[A-Za-z_]\w*",
                                                                   text(test)) if n in saved}
                    try:
                        holds = fold(self.value(test, depth + 1))
                    except CudaImportError:
                        return None
                    finally:
                        self.by_arg = saved
                    if holds is None:
                        return None
                    taken = child == parent.child_by_field_name("consequence")
                    runs = runs and bool(holds) == taken
                child = parent
            if runs:
                value = right
        return None if value is None else self.value(value, depth + 1)

    def enumerators(self, enum) -> None:
        """`enum { SHMEM_SZ = ... };` in the host function: each name stands for its value
        (one not given is the one before plus 1)."""
        body = enum.child_by_field_name("body")
        previous = None
        for e in body.named_children if body is not None else ():
            if e.type != "enumerator":
                continue
            value = e.child_by_field_name("value")
            if value is None:
                value = parse_expression("0" if previous is None else f"({previous}) + 1")
            self.locals[text(e.child_by_field_name("name"))] = value
            previous = text(value)

    def inline(self, function, args, node, depth: int):
        """A host helper's value with the arguments in place: one `return expr;` (llm.c's
        ceil_div), or one `return` that ends the body, read in the helper's own terms (its
        locals set once before it: cuda_hgemm's initMmaBase computes `smem_max_size =
        std::max(...)` between device queries and checks, which do not change it)."""
        body = function.child_by_field_name("body").named_children
        body = [b for b in body if b.type != "comment"]
        returns = [n for n in walk(function) if n.type == "return_statement"]
        if not body or body[-1].type != "return_statement" or len(returns) != 1 or \
                not body[-1].named_children:
            raise CudaImportError(f"`{short(node)}`")
        params = self.u.params_of(function)
        values = {}
        for p, a in zip(params, args):
            d = p.child_by_field_name("declarator")
            if d is None or d.type != "identifier":
                raise CudaImportError(f"`{short(node)}`")
            values[text(d)] = self.value(a, depth + 1)
        reader = self
        if len(body) > 1:   # its locals, as a launch's are read
            reader = _Host(self.u, self.low, body[-1], function)
            reader.by_arg = {}
        reader.env.append(values)
        try:
            return reader.value(body[-1].named_children[0], depth + 1)
        finally:
            reader.env.pop()

    def passed(self, name: str, depth: int):
        """A parameter of the host function that holds the launch, where the file calls
        that function directly (llm.c's main -> dispatcher -> launcher): the argument at
        its calls, read in each caller's scope, when every call gives one constant; else
        None (a question)."""
        if depth > 16:
            return None
        values = set()
        for reader, given in _callers(self.u, self.low, self.host, name) or ():
            try:
                values.add(fold(reader.value(given, depth + 1)))
            except CudaImportError:
                return None
        return const(values.pop()) if len(values) == 1 and None not in values else None

    def dims(self, node) -> tuple:
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier" and text(node) in self.dims3:
            node = self.dims3[text(node)]
            if isinstance(node, dict):   # fields assigned one by one
                return tuple(const(1) if node[a] is None else self.value(node[a])
                             for a in "xyz")
        if not isinstance(node, list) and node.type == "call_expression" and \
                text(node.child_by_field_name("function")) == "dim3":
            node = node.child_by_field_name("arguments").named_children
        if not isinstance(node, list) and node.type == "initializer_list":
            node = node.named_children
        parts = node if isinstance(node, list) else [node]
        with self.reading():
            # dim3's members are unsigned ints: a float (`ceil((float)n / block.x)`)
            # converts as C++ converts it, toward zero
            return tuple(self.low.convert(v, "u32", p) if v.dtype.is_float else v
                         for v, p in ((self.value(p), p) for p in parts))

    def value(self, node, depth: int = 0):
        """A host expression's value, in terms of the kernel's parameters."""
        with self.reading():
            return self._value(node, depth)

    @contextlib.contextmanager
    def reading(self):
        """While a --host-file's expressions are read, the lowering reads its types and
        places there (its own file's are the kernel's)."""
        if self.low.u is self.u:
            yield
            return
        saved, self.low.u = self.low.u, self.u
        try:
            yield
        finally:
            self.low.u = saved

    def _value(self, node, depth: int = 0):
        if depth > 32:
            raise CudaImportError(f"`{short(node)}` (host values defined in terms of each "
                                  "other)")
        if self.given and not (node.type in ("identifier", "type_identifier") and (
                (self.env and text(node) in self.env[-1]) or text(node) in self.by_arg)):
            # a value the user gives for a host expression (--host 'x.size(0)=4096'); an
            # argument of the launch stays the kernel parameter it becomes
            found = self.given.get("".join(text(node).split()))
            if found is not None:
                from .unit import lowering_expr
                return lowering_expr(self.u, found[1], self.low, f"--host {found[0]}")
        if node.type in ("identifier", "type_identifier"):
            name = text(node)
            if self.env and name in self.env[-1]:
                return self.env[-1][name]
            if name in self.by_arg:
                return self.low.lookup(self.by_arg[name], node).value
            if name in self.u.constants:
                return self.u.constant(name, self.low).value
            if name in self.locals and self.locals[name] is not None:
                return self.value(self.locals[name], depth + 1)
            passed = self.passed(name, depth)
            if passed is not None:
                return passed
            chosen = self.chosen(name, depth)
            if chosen is not None:
                return chosen
            loop = _loop_of(name, self.call)
            if loop is not None:
                raise _HostQuestion(
                    f"'{name}', the variable of the loop at line {loop.start_point[0] + 1} "
                    "(the launch runs at each of its values: analyze one)", name)
            if _undeclared(self.u, name):
                unfound = getattr(getattr(self.u, "pp", None), "unfound", [])
                where = "" if not unfound else (
                    f" (it includes {', '.join(f'<{h}>' for h in unfound[:3])}, found in no "
                    "-I folder given: give that folder with -I if the header defines it)")
                question = _HostQuestion(f"'{name}', which the file neither declares nor "
                                         f"#defines{where}", name)
                question.macro = True
                raise question
            raise _HostQuestion(f"the host variable '{name}'", name)
        if node.type in ("number_literal", "sizeof_expression", "char_literal"):
            if self.binding and node.type == "sizeof_expression":
                node = parse_expression(with_binding([text(node)], self.binding)[0])
            return self.low.expr(node)
        if node.type == "qualified_identifier":
            # a class's constant (`Packed128<floatX>::size`), as the device code reads it
            try:
                value = fold(self.low.expr(node))
            except CudaImportError:
                value = None
            if value is not None:
                return const(value)
        if node.type == "parenthesized_expression":
            return self.value(node.named_children[0], depth + 1)
        if node.type == "field_expression" and \
                text(node.child_by_field_name("argument")) in self.dims3 and \
                text(node.child_by_field_name("field")) in ("x", "y", "z"):
            owner = node.child_by_field_name("argument")
            name = text(node.child_by_field_name("field"))
            if isinstance(self.dims3[text(owner)], dict):
                # `blockDim.x` of a host `dim3 blockDim;` whose fields the host assigned (a
                # field never assigned is dim3's default, 1)
                field = self.dims3[text(owner)][name]
                return const(1) if field is None else self.value(field, depth + 1)
            # `threads.x` of a `dim3 threads(BLOCK, BLOCK);`: the argument, 1 past them
            given = self.dims(owner)
            return given["xyz".index(name)] if "xyz".index(name) < len(given) else const(1)
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator").type
            a = self.value(node.child_by_field_name("left"), depth + 1)
            b = self.value(node.child_by_field_name("right"), depth + 1)
            return self.low.c_binary(op, a, b, node)
        if node.type == "conditional_expression":
            from kernels_ir import select
            return select(self.value(node.child_by_field_name("condition"), depth + 1),
                          self.value(node.child_by_field_name("consequence"), depth + 1),
                          self.value(node.child_by_field_name("alternative"), depth + 1))
        if node.type == "cast_expression":
            kind = node.child_by_field_name("type")
            bound = parse_expression(f"({with_binding([text(kind)], self.binding)[0]})0") \
                if self.binding else None
            if bound is not None and bound.type == "cast_expression":
                kind = bound.child_by_field_name("type")
            return self.low.convert(self.value(node.child_by_field_name("value"), depth + 1),
                                    self.low.dtype(kind, node), node)
        if node.type == "call_expression":
            fn = text(node.child_by_field_name("function"))
            args = node.child_by_field_name("arguments").named_children
            target = node.child_by_field_name("function")
            if target.type == "template_function" and len(args) == 1 and text(
                    target.child_by_field_name("name")) == "static_cast":
                # `static_cast<float>(d)`, as a C cast
                kind = target.child_by_field_name("arguments").named_children[0]
                return self.low.convert(self.value(args[0], depth + 1),
                                        self.low.dtype(kind, node), node)
            if fn in MATH and fn not in self.u.all_functions:
                # host math of host values (`1.0f / sqrtf(d)`), as the device's: the float
                # forms take their double argument as a float
                from kernels_ir import KernelError, call
                from kernels_ir.dtypes import BY_NAME
                vals = [self.value(a, depth + 1) for a in args]
                if fn in FLOAT_MATH:
                    vals = [self.low.convert(v, "f32", node) if v.dtype == BY_NAME["f64"]
                            else v for v in vals]
                try:
                    return call(MATH[fn], *vals)
                except KernelError:
                    raise _HostQuestion(f"`{short(node)}`", text(node)) from None
            called = self.u.all_functions.get(fn.split("<")[0].split("::")[-1].strip())
            # host values are scalars: the file's overloads of vectors (helper_math.h's
            # min(float2, float2)) are not the ones called (min of ints is CUDA's own)
            called = [f for f in called or () if not any(
                " ".join(text(p.child_by_field_name("type")).replace("const", "").split())
                in VECTORS for p in self.u.params_of(f) if p.child_by_field_name("type"))]
            if called and depth < 16:
                return self.inline(called[0], args, node, depth)
            if fn in ("min", "max", "std::min", "std::max") and len(args) == 2:
                from kernels_ir import smax, smin
                f = smin if fn.endswith("min") else smax
                return f(self.value(args[0], depth + 1), self.value(args[1], depth + 1))
        raise _HostQuestion(f"`{short(node)}`", text(node))


def _loop_of(name: str, call):
    """The for loop around the launch `call` whose initializer declares `name`, or None."""
    node = call.parent
    while node is not None:
        if node.type == "for_statement":
            init = node.child_by_field_name("initializer")
            if init is not None and any(
                    d.type == "init_declarator" and
                    text(d.child_by_field_name("declarator")) == name
                    for d in walk(init)):
                return node
        node = node.parent
    return None


def _undeclared(unit, name: str) -> bool:
    """Whether no declaration of the file names `name` (no variable, parameter, function,
    enumerator or type of that name: an undefined macro, which nvcc's -D would define)."""
    for n in walk(unit.tree.root_node):
        if n.type in ("identifier", "field_identifier", "type_identifier") and \
                text(n) == name and n.parent is not None and \
                any(n.parent.child_by_field_name(f) == n for f in ("declarator", "name")):
            return False
    return True


class _HostQuestion(CudaImportError):
    """A host value the launch needs and the file cannot say; `what` is the expression as
    written (spaces collapsed), which --host names."""

    macro = False   # (the name is declared nowhere: a macro the build's -D defines)

    def __init__(self, message: str, what: str):
        super().__init__(message)
        self.what = " ".join(what.split())

"""Where the host code launches a kernel (`k<<<grid, block, smem>>>`, cudaLaunchKernel,
cudaLaunchCooperativeKernel) and with which template instance: the launch statements of a file,
their configuration and arguments as written, and the template arguments each binds."""
from __future__ import annotations

import os
import re

from .parse import function_name, text, walk


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
    if not args and kernel is not None:   # (a pointer given an instance: its arguments)
        args = list(next(iter(_pointed(unit, call, kernel)), []))
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
    pointed = _pointed(unit, call, kernel) if not explicit_arguments(call) else []
    if len(pointed) > 1:   # (a pointer given several instances: a launch of each)
        return [(b, _with_host_constants(host, with_binding(args, b)))
                for args in pointed for b in host_instances(unit, host)]
    args = template_arguments(unit, call, host, kernel)
    if args is None:
        return []
    return [(b, _with_host_constants(host, with_binding(args, b)))
            for b in host_instances(unit, host)]


def _pointed(unit, call, kernel) -> list[list[str]]:
    """The template arguments of each instance of `kernel` a pointer the launch `call`
    launches through is given (`kernel = k<T, 2>; ... kernel<<<...>>>`)."""
    if kernel is None:
        return []
    return unit.pointer_instances.get((call.start_byte, call.end_byte,
                                       function_name(kernel)), [])


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
    """The launches of this kernel (of this template instantiation, if it is one), the one
    --launch-at names first."""
    calls = launches_named(unit, lowering.name)
    if lowering.template_args:
        given = [(c, h) for c, h in calls
                 if template_arguments(unit_of(unit, c), c, h, lowering.node) is not None]
        mine = [(c, h) for c, h in given
                if instance_bindings(unit_of(unit, c), lowering, c, h)]
        # launches that give no template arguments (none named, none deduced from their
        # arguments' types) may be this instance's; launches of other instances are not
        # (their grid and block are theirs: a question, not a guess)
        calls = mine or [pair for pair in calls if pair not in given]
    at = getattr(unit.options, "launch_at", None)
    return _chosen_first(unit, lowering, calls, at) if at else calls


def _chosen_first(unit, lowering, calls: list, at: str) -> list:
    """`calls` with the launch `at` (FILE:LINE[:COL], as SourceLoc prints one; FILE its
    name, or a path to it) first; a located error where none is there."""
    from .errors import CudaImportError
    parts = at.rsplit(":", 2)   # (from the right: a path may hold a colon)
    if len(parts) == 3 and not parts[2].isdigit() or len(parts) == 3 and \
            not parts[1].isdigit():
        parts = [":".join(parts[:2]), parts[2]]
    file, line, col = (parts + [""])[:3] if len(parts) > 1 else (at, "", "")
    if not line.isdigit() or col and not col.isdigit():
        raise CudaImportError(f"--launch-at {at}: give FILE:LINE or FILE:LINE:COL, as the "
                              "notes name a launch (`scan.cu:123:9`)", kernel=lowering.name)

    def here(call) -> bool:
        loc = unit_of(unit, call).loc(call)
        return loc.line == int(line) and (not col or loc.column == int(col)) and \
            os.path.basename(str(loc.file)) == os.path.basename(file)
    chosen = [pair for pair in calls if here(pair[0])]
    if not chosen:
        where = ", ".join(str(unit_of(unit, c).loc(c)) for c, _ in calls) or "none"
        raise CudaImportError(f"--launch-at {at}: no launch of '{lowering.name}' there (its "
                              f"launches: {where}; --launch-at chooses among the launches of "
                              "the kernel --kernel names)", kernel=lowering.name)
    return chosen + [pair for pair in calls if pair not in chosen]

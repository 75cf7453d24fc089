"""The host side of a `.cu`: each `__global__` kernel's signature and the launch the host
code makes of it (grid, block, dynamic shared memory, scalar arguments, array lengths,
template instances), as kernels_ir kernels with no body. The body is nvcc's build of the
file (smemsim.frontends.ptx), never read here.

The flow, one module a step: `preprocess` (macros, conditionals, the user's includes, every
token located), `parse` (tree-sitter's CUDA grammar), `unit` (the file's kernels, device
functions, constants, launches), `lower` (each kernel's signature and its template
arguments bound), `launch` (the launch the host code makes); `patch` writes fix's layout
change into the user's text. No generated code is executed: a file's text, its name
included, is only ever data.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from kernels_ir import Kernel, KernelError

from .errors import CudaImportError
from .launch_sites import launched_instances, launches_named, unit_of
from .parse import first_error, short, split_top_level, template_parameters, text, walk
from .unit import DEFAULT_LENGTH, Options, Unit, read_unit, struct_base

__all__ = ["CudaImportError", "DEFAULT_LENGTH", "Instance", "Options", "host_kernels",
           "instantiation", "kernel_keys", "signature"]


def host_kernels(path: str, options: Options | None = None,
                 wanted: str | None = None) -> dict[str, Callable[[], Kernel]]:
    """The file's kernels as the host code launches them: key -> a function that builds
    that kernel's signature and launch, with no body (raising a located CudaImportError if
    it cannot). A template kernel has a key per instantiation the host code launches
    (`k<128>`), or `wanted` names one (`--kernel 'k<float, 4>'`)."""
    unit = read_unit(path, options)
    keys = kernel_keys(unit, wanted or unit.options.kernel)
    _check_lengths(unit, [node for node, _ in keys.values()])
    return {key: (lambda node=node, args=args, key=key: _build(unit, node, args, key))
            for key, (node, args) in keys.items()}


def kernel_keys(unit: Unit, wanted: str | None = None) -> dict[str, tuple]:
    """key -> (kernel node, template arguments) for the kernels of a file."""
    if not unit.kernels:
        bad = first_error(unit.tree.root_node)
        if bad is not None:
            raise unit.error(bad, f"the file does not parse here (`{short(bad)}`), and no "
                                  "__global__ kernel was found")
        raise CudaImportError(f"{unit.path.name} has no __global__ kernel")
    out: dict[str, tuple] = {}
    for node in unit.kernels:
        name = unit.name_of(node)
        parent = node.parent
        if parent is None or parent.type != "template_declaration":
            out[name] = (node, {})
            continue
        params = _template_params(parent)
        launched = []
        for call, host in launches_named(unit, name):
            # `k<T><<<...>>>` inside a host template: one instance per instance of the host
            # the file makes (cuda-samples' reduction: `template void reduce<int>(...);`)
            for _, concrete in launched_instances(unit_of(unit, call), call, host, node):
                if (_host_template_args(host) | _generic_lambda_params(call)) & set(
                        re.findall(r"[A-Za-z_]\w*", " ".join(concrete))):
                    # a host template parameter left, or `k<c.value>` inside a generic
                    # lambda (llm.c's dispatch_launch): no concrete argument here
                    continue
                if concrete not in launched:
                    launched.append(concrete)
        instantiations = {}
        for args in launched:
            key = f"{name}<{', '.join(args)}>"
            instantiations[key] = (node, dict(zip(params, args)))
        if not instantiations:
            instantiations[name] = (node, {})  # defaults, or an error naming what is missing
        out.update(instantiations)
    if wanted is None:
        return out
    if wanted in out:
        return {wanted: out[wanted]}
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*<(.*)>\s*", wanted)
    if m is not None:
        node = next((k for k in unit.kernels if unit.name_of(k) == m.group(1)), None)
        if node is not None and node.parent is not None and \
                node.parent.type == "template_declaration":
            params = _template_params(node.parent)
            args = split_top_level(m.group(2))
            if len(args) > len(params):
                raise CudaImportError(f"--kernel {wanted}: '{m.group(1)}' takes "
                                      f"{len(params)} template argument(s)")
            return {wanted: (node, dict(zip(params, args)))}
    matches = {k: v for k, v in out.items() if unit.name_of(v[0]) == wanted}
    if matches:
        return matches
    raise CudaImportError(f"{unit.path.name} has no kernel '{wanted}'; it has "
                          f"{', '.join(out)}")


@dataclass(frozen=True)
class Instance:
    """What the user's own build must contain for one kernel key: the kernel's name and, for
    a template, its arguments as C++ (from the values read, never the text given); the
    files the preprocessor read (the main file and its includes)."""

    name: str
    template_args: tuple[str, ...] | None
    types: tuple[str, ...]          # per template argument: the IR type of a value, or the
    values: tuple                   # type itself for a type argument; the value or type name
    files: tuple[str, ...]
    scope: str = ""                 # the namespaces the kernel is declared in: `M2::`

    @property
    def cxx(self) -> str | None:
        """`k<128, 8>` (an instantiation nvcc can be asked for), None for a plain kernel."""
        if self.template_args is None:
            return None
        return f"{self.scope}{self.name}<{', '.join(self.template_args)}>"


def instantiation(path: str, options: Options | None, key: str) -> Instance:
    """The Instance of kernel `key` of a CUDA file (its template arguments bound as the
    import binds them)."""
    from .lower import KernelLowering
    unit = read_unit(path, options)
    keys = kernel_keys(unit, key)
    node, args = keys[key] if key in keys else next(iter(keys.values()))
    lowering = KernelLowering(unit, node, args, key)
    lowering.bind_template()
    targs = None
    if node.parent is not None and node.parent.type == "template_declaration":
        targs = tuple(_cxx_argument(kind, value, dtype)
                      for kind, value, dtype in lowering.instance)
    scope, parent = "", node.parent
    while parent is not None:
        if parent.type == "namespace_definition" and \
                parent.child_by_field_name("name") is not None:
            scope = f"{text(parent.child_by_field_name('name'))}::{scope}"
        parent = parent.parent
    return Instance(unit.name_of(node), targs, tuple(d for _, _, d in lowering.instance),
                    tuple(v for _, v, _ in lowering.instance), tuple(unit.pp.files), scope)


def _cxx_argument(kind: str, value, dtype: str) -> str:
    """A bound template argument as C++: a type name from the importer's tables, or a
    number (with the suffix a value beyond int needs)."""
    if kind == "type":
        return value
    if dtype == "bool":
        return "true" if value else "false"
    if isinstance(value, float):
        raise CudaImportError(f"template argument {value!r}: not an integer")
    if -2**31 <= value < 2**31:
        return str(value)
    return f"{value}LL" if value < 0 else f"{value}ULL"


def _check_lengths(unit: Unit, kernels: list) -> None:
    """--length names an array a chosen kernel has, --texture a texture: a typo is an
    error, not ignored (a 1-D texture's length may be either)."""
    from .lower_textures import TEXTURE_OBJECT
    arrays, textures, structs = set(), set(unit.texture_refs), set()
    for node in kernels:
        for p in unit.params_of(node):
            d = p.child_by_field_name("declarator")
            type_node = p.child_by_field_name("type")
            if d is not None and d.type == "pointer_declarator":
                arrays.add(text(d.child_by_field_name("declarator")))
            elif d is not None and d.type == "identifier" and type_node is not None and \
                    text(type_node).split("::")[-1] == TEXTURE_OBJECT:
                textures.add(text(d))
            elif d is not None and d.type == "identifier":
                arrays.update(f"{text(d)}_{name}"   # a struct parameter's pointer fields
                              for name in struct_pointer_fields(unit, p))
                structs.add(text(d))
    for option, given, known, what in (
            ("--length", unit.options.lengths, arrays | textures, "pointer parameter"),
            ("--texture", unit.options.textures, textures, "texture")):
        # (`op_8`: a struct's field by its byte offset, as the PTX frontend names them)
        unknown = sorted(n for n in set(given) - known
                         if not (option == "--length" and
                                 re.fullmatch(r"(\w+)_\d+", n) and n.rsplit("_", 1)[0]
                                 in structs))
        if unknown:
            raise CudaImportError(f"{option} {', '.join(unknown)}: no such {what} in "
                                  f"{unit.path.name}'s kernels (they have: "
                                  f"{', '.join(sorted(known)) or 'none'})")


def struct_pointer_fields(unit: Unit, param) -> list[str]:
    """The pointer fields a kernel parameter's struct type declares (any of its
    definitions: read from the syntax, nothing evaluated)."""
    type_node = param.child_by_field_name("type")
    if type_node is None:
        return []
    base = struct_base(type_node)
    base = struct_base(unit.struct_aliases[base]) if base in unit.struct_aliases else base
    names = []
    for definition in unit.structs.get(base, []):
        for f in definition.child_by_field_name("body").named_children:
            if f.type == "field_declaration":
                names += [text(d.child_by_field_name("declarator"))
                          for d in f.children_by_field_name("declarator")
                          if d.type == "pointer_declarator"]
    return names


def _with_host_constants(host, args: list[str]) -> list[str]:
    """Template arguments with the host function's constants in place (`constexpr int BM =
    64;` ... `k<BM><<<...>>>` launches `k<64>`): a name the host sets once, from a number or
    from other such constants."""
    if host is None:
        return args
    known: dict[str, str] = {}
    for d in walk(host):
        if d.type != "declaration" or not any(
                c.type == "type_qualifier" and text(c) in ("constexpr", "const")
                for c in d.children):
            continue
        for init in d.named_children:
            if init.type == "init_declarator" and \
                    init.child_by_field_name("declarator").type == "identifier":
                known[text(init.child_by_field_name("declarator"))] = \
                    text(init.child_by_field_name("value"))
    out = []
    for arg in args:
        for _ in range(8):  # constants defined by constants, a few deep
            new = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: f"({known[m.group(0)]})"
                         if m.group(0) in known else m.group(0), arg)
            if new == arg:
                break
            arg = new
        out.append(re.sub(r"^\(([^()]*)\)$", r"\1", arg))
    return out


def _host_template_args(host) -> set[str]:
    """The template parameter names of the host function a launch stands in."""
    if host is None or host.parent is None or host.parent.type != "template_declaration":
        return set()
    return set(_template_params(host.parent))


def _generic_lambda_params(node) -> set[str]:
    """The `auto` parameters of the lambdas around a node (a generic lambda is a template:
    `[&](auto int_const) { k<int_const.value><<<...>>>(...); }`)."""
    out = set()
    while node is not None:
        if node.type == "lambda_expression":
            d = node.child_by_field_name("declarator")
            params = d.child_by_field_name("parameters") if d is not None else None
            for p in (params.named_children if params is not None else []):
                t, name = p.child_by_field_name("type"), p.child_by_field_name("declarator")
                if t is not None and name is not None and text(t).strip() == "auto":
                    out.add(text(name))
        node = node.parent
    return out


def _in_body(bad, node) -> bool:
    """Whether the parse error `bad` lies in the body of the kernel's function `node` (a
    function_definition, or the template_declaration around one)."""
    function = node if node.type == "function_definition" else next(
        (c for c in node.named_children if c.type == "function_definition"), None)
    body = function.child_by_field_name("body") if function is not None else None
    return body is not None and body.start_byte <= bad.start_byte and \
        bad.end_byte <= body.end_byte


def _template_params(template) -> list[str]:
    return [name for _, _, name in template_parameters(template)]


def _build(unit: Unit, node, args: dict, key: str) -> Kernel:
    from .lower import KernelLowering
    bad = first_error(node)
    if bad is not None and not _in_body(bad, node):
        # (a body tree-sitter misreads, `#pragma unroll` between a `for` and a body without
        # braces, is nvcc's to read: the host side needs the signature)
        raise CudaImportError(f"the CUDA here does not parse (`{short(bad)}`)",
                              kernel=unit.name_of(node), loc=unit.loc(bad))
    try:
        return KernelLowering(unit, node, args, key).build()
    except RecursionError:
        raise CudaImportError("the kernel nests expressions or statements too deeply to read",
                              kernel=unit.name_of(node), loc=unit.loc(node)) from None
    except CudaImportError:
        raise
    except KernelError as err:
        # the builder's own checks, already located at the CUDA line being lowered
        raise CudaImportError(err.message, kernel=err.kernel or unit.name_of(node),
                              loc=err.loc) from None


def signature(path: str, kernel: str,
              options: Options | None = None) -> tuple[tuple[str, bool], ...]:
    """A kernel's parameters in the CUDA file's order: (name, is a pointer); `options`
    the file's -D and -I, where its includes need them."""
    unit = read_unit(path, options)
    node = next((k for k in unit.kernels if unit.name_of(k) == kernel), None)
    if node is None:
        raise KernelError(f"{unit.path.name} has no kernel '{kernel}'")
    out = []
    for p in unit.params_of(node):
        d = p.child_by_field_name("declarator")
        pointer = d.type == "pointer_declarator"
        out.append((text(d.child_by_field_name("declarator") if pointer else d), pointer))
    return tuple(out)

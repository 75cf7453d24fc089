"""The host code's values at a launch: a host expression (a size, a scalar argument) folded along
the path that reaches the launch, through assignments, branches on constants, switch cases and
the calling functions; what the host code cannot say is a question naming the host expression."""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

from kernels_ir import const
from kernels_ir.dtypes import BY_NAME

from .errors import CudaImportError
from .launch_sites import instance_bindings, is_launch, launch_args, with_binding
from .parse import function_name, parse_expression, short, text, walk
from .symbols import FLOAT_MATH, MATH, SIZES, VECTORS, fold


def parameter_names(unit, function) -> list:
    """The names a function's parameters declare (through `*` and `&`; None where none)."""
    names = []
    for p in unit.params_of(function):
        d = p.child_by_field_name("declarator")
        while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
            d = d.child_by_field_name("declarator") or d.named_children[-1]
        names.append(text(d) if d is not None and d.type == "identifier" else None)
    return names


def callers(unit, lowering, host, name: str) -> list | None:
    """Where the host function `host` is called directly, the argument it gets for its
    parameter `name`: [(a reader of the caller's values, the argument)], one per call;
    None where `name` is no parameter of it, or a call does not pass it from another
    function (a default argument, a call at file scope, recursion)."""
    if host is None or host.type != "function_definition":
        return None
    names = parameter_names(unit, host)
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
        reader = Host(unit, lowering, site, caller)
        reader.by_arg = {}      # the call's arguments are no launch's: values only
        reader.shared_args = {}
        out.append((reader, args[index]))
    return out


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


def in_scope(declaration, call) -> bool:
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


# an assignment operator -> the binary operator it applies ("=" none)
_COMPOUND = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=")
_UNSET = object()


@dataclass(frozen=True)
class _Assigned:
    """A dim3 field's assignment before the launch: its value (a node, which may read the
    field itself) and what the field held before it (a node, an _Assigned, or None: 1)."""

    value: object
    before: object


class Host:
    """Host expressions of a launch, in terms of the kernel's parameters: an argument
    passed at the launch stands for the parameter it becomes; `dim3` variables and
    constants of the host function are followed; any other host value is a question."""

    def __init__(self, unit, lowering, call, host):
        self.u, self.low, self.call, self.host = unit, lowering, call, host
        given = call.child_by_field_name("arguments")
        args = launch_args(call, host) if is_launch(call) else \
            given.named_children if given is not None else []
        params = unit.params_of(lowering.node)
        passed_as: dict[str, list[str]] = {}
        for a, p in zip(args, params):
            pd = p.child_by_field_name("declarator")
            if pd is not None and pd.type == "identifier":
                passed_as.setdefault(text(a), []).append(text(pd))
        # an argument passed as several parameters (`(A, B, C, n, n, n)` as M, N and K) is
        # the host's value where the host code states it: the grid `n / BN` is the host's
        # n, so that `-p K=512` sets K alone, not the grid with it; where it does not (a
        # host function's parameter), the first parameter it becomes, which -p gives
        self.by_arg = {a: ps[0] for a, ps in passed_as.items() if len(ps) == 1}
        self.shared_args = {a: ps[0] for a, ps in passed_as.items() if len(ps) > 1}
        self.dims3, self.locals = {}, {}
        # (owner, field) -> the field's earlier value, while an assignment to it is read
        self.before: dict = {}
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
            if d.type == "enum_specifier" and in_scope(
                    d.parent if d.parent.type == "declaration" else d, call):
                self.enumerators(d)
            if d.type != "declaration" or not in_scope(d, call):
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
            if n.type != "assignment_expression" or n.start_byte > call.start_byte:
                continue
            operator = n.child_by_field_name("operator").type
            left = n.child_by_field_name("left")
            if operator == "=" and left.type == "identifier" and text(left) in self.dims3:
                # `blocks = dim3((n + t - 1) / t);` as a whole: the latest before the launch
                self.dims3[text(left)] = n.child_by_field_name("right")
            elif left.type == "field_expression" and \
                    text(left.child_by_field_name("argument")) in self.dims3 and \
                    text(left.child_by_field_name("field")) in ("x", "y", "z") and \
                    operator in _COMPOUND:
                owner = text(left.child_by_field_name("argument"))
                field = text(left.child_by_field_name("field"))
                if not isinstance(self.dims3[owner], dict):
                    # `dim3 grid(a, b);` then `grid.x = grid.x / 2;`: its fields one by one
                    self.dims3[owner] = self._fields(self.dims3[owner])
                right = n.child_by_field_name("right")
                if operator != "=":   # (`grid.x /= 2` is `grid.x = grid.x / (2)`)
                    right = parse_expression(f"{text(left)} {operator[:-1]} ({text(right)})")
                # the latest before the launch, reading the field as it was before it
                self.dims3[owner][field] = _Assigned(right, self.dims3[owner][field])
        # (walk order: the innermost declaration in scope, the latest, is the one kept)
        for name, value in _switch_cases(call).items():
            # `switch (NT) { case 32: k<32><<<grid, block>>>(...) }`: NT is 32 there
            if name not in assigned and (name in self.locals or host is not None and
                                         name in parameter_names(unit, host)):
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
                    n.parent is not None and in_scope(n.parent, call):
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
                    shared, self.shared_args = self.shared_args, {}
                    self.deciding |= {({**shared, **saved})[n]
                                      for n in re.findall(r"[A-Za-z_]\w*", text(test))
                                      if n in saved or n in shared}
                    try:
                        holds = fold(self.value(test, depth + 1))
                    except CudaImportError:
                        return None
                    finally:
                        self.by_arg, self.shared_args = saved, shared
                    if holds is None:
                        return None
                    taken = child == parent.child_by_field_name("consequence")
                    runs = runs and bool(holds) == taken
                child = parent
            if runs:
                value = right
        return None if value is None else self.value(value, depth + 1)

    def member(self, var: str, field: str, depth: int = 0):
        """The value of `var.field` at the launch (a struct the kernel takes by value): the
        last `var.field = ...` before it, else that field of the struct `var` was copied
        from (`P = N;`, `Matrix P = N;`); None where neither says."""
        found = self.chosen(f"{var}.{field}", depth)
        if found is not None or depth > 8:
            return found
        scope = self.host if self.host is not None else self.u.tree.root_node
        sources = []
        for n in walk(scope):
            if n.type == "assignment_expression" and \
                    text(n.child_by_field_name("left")) == var and \
                    n.child_by_field_name("operator").type == "=" and _reaches(n, self.call):
                sources.append((n.start_byte, n.child_by_field_name("right")))
            elif n.type == "init_declarator" and \
                    text(n.child_by_field_name("declarator")) == var and \
                    n.parent is not None and in_scope(n.parent, self.call):
                sources.append((n.start_byte, n.child_by_field_name("value")))
        if not sources:
            return None
        right = max(sources, key=lambda x: x[0])[1]
        if right is None or right.type != "identifier":
            return None
        return self.member(text(right), field, depth + 1)

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
            reader = Host(self.u, self.low, body[-1], function)
            reader.by_arg = reader.shared_args = {}
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
        for reader, given in callers(self.u, self.low, self.host, name) or ():
            try:
                values.add(fold(reader.value(given, depth + 1)))
            except CudaImportError:
                return None
        return const(values.pop()) if len(values) == 1 and None not in values else None

    def _passed_dims(self, name: str, depth: int) -> tuple | None:
        """A dim3 parameter of the host function that holds the launch: its fields as every
        direct call of that function gives them (each read in its caller's scope), where
        those are the same numbers at every call; else None (a question)."""
        found = set()
        for reader, given in callers(self.u, self.low, self.host, name) or ():
            try:
                values = tuple(fold(v) for v in reader.dims(given, depth + 1))
            except CudaImportError:
                return None
            found.add((*values, 1, 1)[:3])
        if len(found) != 1 or None in next(iter(found)):
            return None
        return tuple(const(v) for v in found.pop())

    def _sizeof_variable(self, node) -> int | None:
        """`sizeof(*x)`, `sizeof(x[0])` or `sizeof(v)` of a host variable (`const size_t size
        = n * sizeof(*x);` before `cudaMalloc(&d_x, size)`): the bytes of what it points to,
        or of it, from its declaration in the launching function (a pointer's element of a
        basic or vector type; a scalar's type); None for anything else (a type: the device
        reading's sizeof)."""
        inner = node.named_children[0] if node.named_children else None
        while inner is not None and inner.type == "parenthesized_expression":
            inner = inner.named_children[0] if inner.named_children else None
        if inner is None:
            return None
        deref = 0
        if inner.type == "pointer_expression" and inner.children[0].type == "*":
            deref, inner = 1, inner.named_children[-1]
        elif inner.type == "subscript_expression":
            deref, inner = 1, inner.child_by_field_name("argument")
        if inner is None or inner.type != "identifier":
            return None
        name, scope = text(inner), self.host
        if scope is None:
            return None
        for d in walk(scope):
            if d.type not in ("declaration", "parameter_declaration") or \
                    d.start_byte > self.call.start_byte:
                continue
            for declarator in d.named_children[1:] if d.type == "declaration" else \
                    [d.child_by_field_name("declarator")]:
                if declarator is not None and declarator.type == "init_declarator":
                    declarator = declarator.child_by_field_name("declarator")
                stars = 0
                while declarator is not None and declarator.type == "pointer_declarator":
                    stars += 1
                    declarator = declarator.child_by_field_name("declarator")
                if declarator is None or declarator.type != "identifier" or \
                        text(declarator) != name:
                    continue
                if stars > deref:
                    return 8   # (a pointer)
                if stars < deref:
                    return None
                try:
                    dtype, lanes = self.low.vtype(d.child_by_field_name("type"), node)
                except CudaImportError:
                    return None
                return SIZES[dtype] * lanes
        return None

    def _argc(self, name: str) -> bool:
        """Whether `name` is the argument count `main` takes (its first parameter, of two or
        three), in the function that holds the launch."""
        host = self.host
        if host is None or host.type != "function_definition" or \
                function_name(host) != "main":
            return False
        names = parameter_names(self.u, host)
        return 2 <= len(names) <= 3 and names[0] == name

    def _field(self, owner: str, name: str, depth: int = 0):
        """Field `name` of the host's `dim3 owner` whose fields the host assigned (a field
        never assigned is dim3's default, 1; an assignment's value reads the field as it
        was before it: `grid.x = grid.x / 2`)."""
        key = (owner, name)
        field = self.before.get(key, self.dims3[owner][name])
        if not isinstance(field, _Assigned):
            return const(1) if field is None else self.value(field, depth + 1)
        saved = self.before.get(key, _UNSET)
        self.before[key] = field.before
        try:
            return self.value(field.value, depth + 1)
        finally:
            if saved is _UNSET:
                del self.before[key]
            else:
                self.before[key] = saved

    def _fields(self, entry) -> dict:
        """A dim3 as given whole (`dim3 g(a, b)`'s arguments, `dim3 g = dim3(a)`, `dim3 g
        = n`) as its fields x, y and z (None: 1)."""
        parts = entry
        if not isinstance(parts, list):
            node = parts
            while node.type == "parenthesized_expression":
                node = node.named_children[0]
            parts = node.child_by_field_name("arguments").named_children \
                if node.type == "call_expression" and \
                text(node.child_by_field_name("function")) == "dim3" else \
                node.named_children if node.type == "initializer_list" else [node]
        return {a: parts[i] if i < len(parts) else None for i, a in enumerate("xyz")}

    def dims(self, node, depth: int = 0) -> tuple:
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier" and text(node) not in self.dims3 and depth <= 16:
            # a dim3 the launching function takes as a parameter (`void run(..., dim3
            # grid) { k<<<grid, ...>>>(...); }`): as its callers give it, where each
            # gives the same numbers
            given = self._passed_dims(text(node), depth)
            if given is not None:
                return given
        if node.type == "comma_expression":
            # `<<<(n / T, n / T), ...>>>` is C's comma operator: its last operand alone, a
            # one-dimensional launch (dim3(n / T, n / T) is two): read as C reads it, and
            # said, as the source's likely mistake
            written, last = node, node
            while last.type == "comma_expression":
                last = last.child_by_field_name("right")
                while last.type == "parenthesized_expression":
                    last = last.named_children[0]
            self.low.launch_notes = [*getattr(self.low, "launch_notes", ()), (
                f"{self.u.loc(written)}: the launch's `({short(written)})` is C's comma "
                f"operator: its value is `{short(last)}` alone, a one-dimensional "
                f"size; `dim3({short(written)})` makes it {written.text.count(b',') + 1}-D "
                "(counted as C reads it)")]
            node = last
        if node.type == "identifier" and text(node) in self.dims3:
            owner, node = text(node), self.dims3[text(node)]
            if isinstance(node, dict):   # fields assigned one by one
                with self.reading():
                    return tuple(self._field(owner, a) for a in "xyz")
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
            if name in self.binding:   # a host template's value parameter (`BS` of
                # `launch_reduce<BS>`), as the instance launching this kernel binds it
                return self.value(parse_expression(self.binding[name]), depth + 1)
            try:
                passed = self.passed(name, depth)
                if passed is not None:
                    return passed
                chosen = self.chosen(name, depth)
                if chosen is not None:
                    return chosen
            except _HostQuestion:
                if name not in self.shared_args:
                    raise
            if name in self.shared_args:
                return self.low.lookup(self.shared_args[name], node).value
            if self._argc(name):
                # `if (argc > 1) n = atoi(argv[1]);` after `int n = 1 << 20;`: the program
                # as it runs without command-line arguments, said
                note = (f"{self.u.loc(node)}: the host code is read as the program runs "
                        "without command-line arguments (argc = 1); -p and --host give "
                        "other values")
                notes = getattr(self.low, "launch_notes", [])
                if note not in notes:
                    self.low.launch_notes = [*notes, note]
                return const(1)
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
        if node.type == "sizeof_expression":
            size = self._sizeof_variable(node)
            if size is not None:
                return const(size, BY_NAME["u64"])   # (size_t)
        if node.type in ("number_literal", "sizeof_expression", "char_literal", "true",
                         "false"):
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
        if node.type == "assignment_expression" and \
                node.child_by_field_name("operator").type == "=":
            # (`N.width = N.height = 2048`: an assignment's value is what it assigns)
            return self.value(node.child_by_field_name("right"), depth + 1)
        if node.type == "field_expression" and \
                text(node.child_by_field_name("argument")) in self.dims3 and \
                text(node.child_by_field_name("field")) in ("x", "y", "z"):
            owner = node.child_by_field_name("argument")
            name = text(node.child_by_field_name("field"))
            if isinstance(self.dims3[text(owner)], dict):
                return self._field(text(owner), name, depth)
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
        # (every declarator of a declaration: `int minGrid, bs2;` declares bs2 too)
        if n.type in ("identifier", "field_identifier", "type_identifier") and \
                text(n) == name and n.parent is not None and \
                any(n == x for f in ("declarator", "name")
                    for x in n.parent.children_by_field_name(f)):
            return False
    return True


class _HostQuestion(CudaImportError):
    """A host value the launch needs and the file cannot say; `what` is the expression as
    written (spaces collapsed), which --host names."""

    macro = False   # (the name is declared nowhere: a macro the build's -D defines)

    def __init__(self, message: str, what: str):
        super().__init__(message)
        self.what = " ".join(what.split())

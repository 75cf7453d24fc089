"""Static checks: reject malformed kernels with the kernel, statement and source line."""
from __future__ import annotations

from .errors import KernelError
from .expr import Op
from .printer import format_stmt
from .stmt import (
    Assign, DeclareLocal, If, Kernel, Let, Load, LocalStore, Loop, Store, stmt_exprs,
)

_LAUNCH_OPS_FORBIDDEN = {Op.SPECIAL, Op.VAR, Op.COMPONENT, Op.LOCAL_READ}


def check_kernel(kernel: Kernel) -> None:
    """Raise KernelError for the first malformed construct."""
    _check_launch_exprs(kernel)
    _check_block(kernel, kernel.body, vars_in_scope=set(), arrays_in_scope=set())


def _fail(kernel: Kernel, stmt, message: str) -> None:
    raise KernelError(message, kernel=kernel.name, stmt=format_stmt(stmt), loc=stmt.loc)


def _check_launch_exprs(kernel: Kernel) -> None:
    exprs = [("grid", e) for e in kernel.grid] + [("block", e) for e in kernel.block]
    exprs.append(("dynamic_smem", kernel.dynamic_smem))
    exprs += [(f"length of '{g.name}'", g.length) for g in kernel.globals]
    for what, e in exprs:
        for node in e.walk():
            if node.op in _LAUNCH_OPS_FORBIDDEN:
                raise KernelError(f"{what} may use only parameters and constants, not "
                                  f"thread indices or variables", kernel=kernel.name,
                                  loc=kernel.loc)
        if e.dtype.is_float:
            raise KernelError(f"{what} must be an integer expression, got {e.dtype}",
                              kernel=kernel.name, loc=kernel.loc)


def _check_exprs(kernel, stmt, exprs, vars_in_scope, arrays_in_scope) -> None:
    for e in exprs:
        parents = {}
        for node in e.walk():
            for child in node.src:
                parents[id(child)] = node
        for node in e.walk():
            if node.op is Op.VAR:
                var = node.arg
                if var not in vars_in_scope:
                    _fail(kernel, stmt, f"'{var.name}' is used outside the block that defines "
                                        "it (or before its definition)")
                parent = parents.get(id(node))
                if var.lanes > 1 and (parent is None or parent.op is not Op.COMPONENT):
                    _fail(kernel, stmt, f"'{var.name}' is a {var.lanes}-element vector; use its "
                                        f"elements {var.name}[0]..[{var.lanes - 1}]")
            elif node.op is Op.LOCAL_READ and node.arg not in arrays_in_scope:
                _fail(kernel, stmt, f"register array '{node.arg.name}' is used outside the "
                                    "block that declares it")


def _check_block(kernel: Kernel, stmts, vars_in_scope: set, arrays_in_scope: set) -> None:
    vars_in_scope = set(vars_in_scope)
    arrays_in_scope = set(arrays_in_scope)
    for s in stmts:
        if isinstance(s, Loop):
            _check_exprs(kernel, s, (s.start,), vars_in_scope, arrays_in_scope)
            inner = vars_in_scope | {s.var}
            _check_exprs(kernel, s, (s.step, s.cond), inner, arrays_in_scope)
            _check_block(kernel, s.body, inner, arrays_in_scope)
            continue
        _check_exprs(kernel, s, stmt_exprs(s), vars_in_scope, arrays_in_scope)
        if isinstance(s, If):
            _check_block(kernel, s.then, vars_in_scope, arrays_in_scope)
            _check_block(kernel, s.orelse, vars_in_scope, arrays_in_scope)
        elif isinstance(s, Let):
            vars_in_scope.add(s.var)
        elif isinstance(s, Load):
            vars_in_scope.add(s.dst)
        elif isinstance(s, Assign):
            if s.var not in vars_in_scope:
                _fail(kernel, s, f"'{s.var.name}' is assigned outside the block that defines it")
        elif isinstance(s, DeclareLocal):
            arrays_in_scope.add(s.array)
        elif isinstance(s, LocalStore):
            if s.array not in arrays_in_scope:
                _fail(kernel, s, f"register array '{s.array.name}' is written outside the block "
                                 "that declares it")
        elif isinstance(s, Store):
            if s.array not in kernel.globals and s.array not in kernel.shared:
                _fail(kernel, s, f"'{s.array.name}' does not belong to this kernel")

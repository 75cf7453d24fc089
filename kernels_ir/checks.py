"""Static checks: reject malformed kernels with the kernel, statement and source line."""
from __future__ import annotations

from .errors import KernelError
from .expr import Op
from .printer import format_stmt
from .arrays import LocalArray
from .kernel import Kernel
from .stmt import Access, Stmt

_LAUNCH_OPS_FORBIDDEN = {Op.SPECIAL, Op.VAR, Op.COMPONENT, Op.LOCAL_READ}


def check_kernel(kernel: Kernel) -> None:
    """Raise KernelError for the first malformed construct."""
    _check_launch_exprs(kernel)
    _check_block(kernel, kernel.body, set())


def _fail(kernel: Kernel, stmt, message: str) -> None:
    try:
        text = format_stmt(stmt)
    except KernelError:  # a statement class the printer does not know yet
        text = type(stmt).__name__
    raise KernelError(message, kernel=kernel.name, stmt=text, loc=stmt.loc)


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


def _check_exprs(kernel, stmt, exprs, in_scope) -> None:
    for e in exprs:
        parents = {}
        for node in e.walk():
            for child in node.src:
                parents[id(child)] = node
        for node in e.walk():
            if node.op is Op.VAR:
                var = node.arg
                if var not in in_scope:
                    _fail(kernel, stmt, f"'{var.name}' is used outside the block that defines "
                                        "it (or before its definition)")
                parent = parents.get(id(node))
                if var.lanes > 1 and (parent is None or parent.op is not Op.COMPONENT):
                    _fail(kernel, stmt, f"'{var.name}' is a {var.lanes}-element vector; use its "
                                        f"elements {var.name}[0]..[{var.lanes - 1}]")
            elif node.op is Op.LOCAL_READ and node.arg not in in_scope:
                _fail(kernel, stmt, f"register array '{node.arg.name}' is used outside the "
                                    "block that declares it")


def _check_block(kernel: Kernel, stmts, in_scope: set) -> None:
    """Scopes, through the statement protocol: what a statement reads and updates must be
    declared before it in an enclosing block; what it declares is in scope after it."""
    in_scope = set(in_scope)
    for s in stmts:
        if not isinstance(s, Stmt):
            raise KernelError(f"{s!r} is not an IR statement", kernel=kernel.name,
                              loc=getattr(s, "loc", None))
        inner = in_scope | set(s.scoped())
        _check_exprs(kernel, s, s.exprs(), inner)
        for target in s.updates():
            if target not in in_scope:
                _fail(kernel, s, f"register array '{target.name}' is written outside the block "
                                 "that declares it" if isinstance(target, LocalArray) else
                                 f"'{target.name}' is assigned outside the block that defines "
                                 "it")
        if isinstance(s, Access) and s.array not in kernel.globals \
                and s.array not in kernel.shared and (
                    getattr(s.array, "base", None) not in kernel.globals):
            _fail(kernel, s, f"'{s.array.name}' does not belong to this kernel")
        for body in s.bodies():
            _check_block(kernel, body, inner)
        in_scope |= set(s.declares())

"""What decides a kernel's shared-memory addresses: the slice the trace has to execute.

A shared access's offset depends on its index expressions and on the control flow around it
(guards, loop bounds). Following those back through assignments, and through the conditions
under which the assignments ran, gives the slice. From it:
- data-dependent sites: a loaded value (global or shared) reaches the slice, so addresses
  can only be known by running the kernel on data;
- the blockIdx axes the slice reads: blocks that differ only on other axes issue the same
  requests;
- loops that can be collapsed: neither their variable nor anything they assign feeds the
  slice, so every iteration issues the same requests (the interpreter still checks that the
  trip count is the same on every lane before it collapses one).
"""
from __future__ import annotations

from dataclasses import dataclass

from kernels_ir import Kernel
from kernels_ir.expr import Expr, Op
from kernels_ir.stmt import (
    Assign, DeclareLocal, If, Let, Load, LocalStore, Loop, Store, stmt_exprs, walk,
)


@dataclass(frozen=True)
class Slice:
    """The statements, axes and loops the trace needs, and which sites need data."""

    statements: frozenset[int]           # ids of statements to execute
    collapsible: frozenset[int]          # ids of loops whose iterations look alike
    block_axes: frozenset[str]           # blockIdx axes ("x", "y", "z") the slice reads
    data_dependent: frozenset[int]       # site numbers whose addresses depend on loaded data


def _refs(exprs) -> tuple[set, set, set]:
    """Variables, register arrays and blockIdx axes that expressions read."""
    vars_, arrays, axes = set(), set(), set()
    for e in exprs:
        for node in e.walk():
            if node.op is Op.VAR:
                vars_.add(node.arg)
            elif node.op is Op.LOCAL_READ:
                arrays.add(node.arg)
            elif node.op is Op.SPECIAL and node.arg[0] == "blockIdx":
                axes.add(node.arg[1])
    return vars_, arrays, axes


def _control_exprs(ctrl) -> tuple[Expr, ...]:
    return (ctrl.cond,) if isinstance(ctrl, If) else (ctrl.start, ctrl.step, ctrl.cond)


def slice_kernel(kernel: Kernel) -> Slice:
    """Compute the slice of a kernel's shared accesses."""
    # definitions of each variable / register array, with the control statements around them
    defs: dict = {}
    enclosing: dict[int, tuple] = {}
    parents: dict[int, tuple] = {}

    def visit(stmts, ctrl: tuple) -> None:
        for s in stmts:
            enclosing[id(s)] = ctrl
            if isinstance(s, (Let, Assign)):
                defs.setdefault(s.var, []).append(s)
            elif isinstance(s, Load):
                defs.setdefault(s.dst, []).append(s)
            elif isinstance(s, LocalStore):
                defs.setdefault(s.array, []).append(s)
            if isinstance(s, Loop):
                visit(s.body, ctrl + (s,))
            elif isinstance(s, If):
                visit(s.then, ctrl + (s,))
                visit(s.orelse, ctrl + (s,))
        for s in stmts:
            parents[id(s)] = ctrl

    visit(kernel.body, ())

    def closure(roots_exprs, roots_ctrl) -> tuple[set, set, bool]:
        """Everything reachable from some expressions and control statements."""
        needed, axes = set(), set()
        data = False
        work_exprs, work_ctrl = list(roots_exprs), list(roots_ctrl)
        seen_ctrl = set()
        while work_exprs or work_ctrl:
            while work_ctrl:
                c = work_ctrl.pop()
                if id(c) in seen_ctrl:
                    continue
                seen_ctrl.add(id(c))
                needed.add(id(c))
                work_exprs.extend(_control_exprs(c))
                work_ctrl.extend(enclosing[id(c)])
            if not work_exprs:
                break
            vs, arrays, ax = _refs([work_exprs.pop()])
            axes |= ax
            for target in vs | arrays:
                for d in defs.get(target, ()):
                    if id(d) in needed:
                        continue
                    needed.add(id(d))
                    if isinstance(d, Load):
                        data = True
                        needed.discard(id(d))
                        continue
                    work_exprs.extend(stmt_exprs(d))
                    work_ctrl.extend(enclosing[id(d)])
                    if isinstance(d, LocalStore):
                        decl = [s for s in kernel.statements()
                                if isinstance(s, DeclareLocal) and s.array is d.array]
                        needed.update(id(x) for x in decl)
                        for x in decl:
                            work_ctrl.extend(enclosing[id(x)])
        return needed, axes, data

    statements, axes = set(), set()
    data_sites = set()
    for site in kernel.sites():
        needed, ax, data = closure(site.index, enclosing[id(site)])
        needed.add(id(site))
        statements |= needed
        axes |= ax
        if data:
            data_sites.add(site.site)

    # A loop collapses when its variable feeds no needed expression other than its own
    # control, and nothing assigned inside it (loop-carried state) is needed.
    collapsible = set()
    for s in kernel.statements():
        if not isinstance(s, Loop) or id(s) not in statements:
            continue
        body_ids = {id(x) for x in walk(s.body)}
        carried = any(isinstance(x, (Assign, LocalStore)) and id(x) in statements
                      for x in walk(s.body))
        uses_var = False
        for x in walk(s.body):
            if id(x) not in statements:
                continue
            exprs = _control_exprs(x) if isinstance(x, (Loop, If)) else stmt_exprs(x)
            if isinstance(x, Store) and x.is_shared:
                exprs = x.index  # a store's value does not decide its address
            if s.var in _refs(exprs)[0]:
                uses_var = True
                break
        if not carried and not uses_var and body_ids:
            collapsible.add(id(s))
    return Slice(frozenset(statements), frozenset(collapsible), frozenset(axes),
                 frozenset(data_sites))

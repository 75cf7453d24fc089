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
  trip count is the same on every lane before it collapses one);
- of those, the loops whose trip count is all a blockIdx axis decides (causal attention's
  `for (j = 0; j <= blockIdx.x; j++)`, a persistent kernel's `tile += gridDim.x`): blocks
  that differ only there issue the same requests, each as many times as its own trips, so
  the trace runs one of them and weights it by the others' trip counts.
"""
from __future__ import annotations

from dataclasses import dataclass

from kernels_ir import Kernel
from kernels_ir.expr import Expr, Op
from kernels_ir.stmt import Access, Loop, Return, Stmt, walk


@dataclass(frozen=True)
class Slice:
    """The statements, axes and loops the trace needs, and which sites need data."""

    statements: frozenset[int]           # ids of statements to execute
    collapsible: frozenset[int]          # ids of loops whose iterations look alike
    block_axes: frozenset[str]           # blockIdx axes ("x", "y", "z") the slice reads
    data_dependent: frozenset[int]       # site numbers whose addresses depend on loaded data
    # collapsible loops (not nested in one another) whose control reads a blockIdx axis, and
    # the axes the slice reads other than through those controls
    trip_loops: frozenset[int] = frozenset()
    address_axes: frozenset[str] = frozenset()


def references(exprs) -> tuple[set, set]:
    """Variables and register arrays that expressions read, and the blockIdx axes."""
    targets, axes = set(), set()
    for e in exprs:
        for node in e.walk():
            if node.op in (Op.VAR, Op.LOCAL_READ):
                targets.add(node.arg)
            elif node.op is Op.SPECIAL and node.arg[0] == "blockIdx":
                axes.add(node.arg[1])
    return targets, axes


def needed_exprs(s: Stmt) -> tuple[Expr, ...]:
    """What a statement in the slice evaluates for the slice's sake: an access's address
    (a store's value decides nothing about where it goes), everything else's expressions."""
    return s.address_exprs() if isinstance(s, Access) else s.exprs()


def slice_kernel(kernel: Kernel) -> Slice:
    """Compute the slice of a kernel's shared accesses."""
    # the statements that give each variable / register array a value, and the statements
    # whose bodies enclose each statement
    defs: dict = {}
    enclosing: dict[int, tuple] = {}

    def visit(stmts, ctrl: tuple) -> None:
        for s in stmts:
            enclosing[id(s)] = ctrl
            for target in s.defines():
                defs.setdefault(target, []).append(s)
            for body in s.bodies():
                visit(body, ctrl + (s,))

    visit(kernel.body, ())

    def closure(roots_exprs, roots_ctrl, opaque=frozenset()) -> tuple[set, set, bool]:
        """Everything reachable from some expressions and control statements (the
        expressions of the control statements in `opaque` are not followed)."""
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
                if id(c) not in opaque:
                    work_exprs.extend(c.exprs())
                work_ctrl.extend(enclosing[id(c)])
            if not work_exprs:
                break
            targets, ax = references([work_exprs.pop()])
            axes |= ax
            for target in targets:
                for d in defs.get(target, ()):
                    if id(d) in needed:
                        continue
                    if d.FROM_MEMORY:
                        data = True  # a loaded value: only data can tell
                        continue
                    needed.add(id(d))
                    work_exprs.extend(needed_exprs(d))
                    work_ctrl.extend(enclosing[id(d)])
        return needed, axes, data

    # A `return` decides which threads reach every later site: it and what decides it are
    # in the slice whenever there is a site.
    returns = [s for s in kernel.statements() if isinstance(s, Return)]
    statements, axes = set(), set()
    data_sites = set()
    if returns and kernel.sites():
        needed, axes, data = closure((), [c for r in returns for c in enclosing[id(r)]])
        statements |= needed | {id(r) for r in returns}
        if data:
            data_sites |= {s.site for s in kernel.sites()}
    for site in kernel.sites():
        needed, ax, data = closure(site.address_exprs(), enclosing[id(site)])
        needed.add(id(site))
        statements |= needed
        axes |= ax
        if data:
            data_sites.add(site.site)

    # A loop collapses when its variable feeds no needed expression other than its own
    # control, and nothing in it changes state that outlives an iteration (loop-carried: a
    # variable declared inside the body starts afresh every iteration).
    collapsible = set()
    for s in kernel.statements():
        if not isinstance(s, Loop) or id(s) not in statements:
            continue
        inside = [x for x in walk(s.body) if id(x) in statements]
        fresh = {t for x in walk(s.body) for t in x.declares()}
        carried = any(set(x.updates()) - fresh or isinstance(x, Return) for x in inside)
        uses_var = any(s.var in references(needed_exprs(x))[0] for x in inside)
        if not carried and not uses_var and s.body:
            collapsible.add(id(s))

    # Collapsible loops whose trip count a blockIdx axis decides, outermost only; the axes
    # that reach the slice other than through their controls.
    candidates = [s for s in kernel.statements() if id(s) in collapsible
                  and closure(s.exprs(), ())[1]]
    candidate_ids = {id(s) for s in candidates}
    trip_loops = {i for i in candidate_ids
                  if not any(id(c) in candidate_ids for c in enclosing[i])}
    address_axes = set(axes)
    if trip_loops:
        address_axes = set()
        roots = [(site.address_exprs(), enclosing[id(site)]) for site in kernel.sites()]
        roots += [((), enclosing[id(r)]) for r in returns] if kernel.sites() else []
        for exprs, ctrl in roots:
            address_axes |= closure(exprs, ctrl, frozenset(trip_loops))[1]
    return Slice(frozenset(statements), frozenset(collapsible), frozenset(axes),
                 frozenset(data_sites), frozenset(trip_loops), frozenset(address_axes))

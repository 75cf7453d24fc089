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

from dataclasses import dataclass, field
from typing import Callable, Mapping

from kernels_ir import Kernel, Probe, SharedArray
from kernels_ir.expr import Expr, Op, Var
from kernels_ir.stmt import (Access, Assert, Assign, Atomic, DeclareLocal, If, Let, Load,
                             LocalStore, Loop, MmaSync, Return, Shuffle, Stmt, Store, Sync,
                             SyncWarp, walk, SyncReduce)
from kernels_ir.stmt_async import (CommitGroup, CopyAsync, WaitGroup, BULK_ORDER_OPS, BulkLoad,
                                   BulkStore, TmaLoad, TmaStore)

from .affine import affine_degree, inline_locals


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


class _Dependences:
    """Which statements give each variable its value and which enclose each statement, and
    what a set of expressions and control statements needs from them."""

    def __init__(self, kernel: Kernel):
        self.defs: dict = {}
        self.enclosing: dict[int, tuple] = {}
        self._refs: dict = {}

        self.by_id: dict[int, Stmt] = {}

        def visit(stmts, ctrl: tuple) -> None:
            for s in stmts:
                self.enclosing[id(s)] = ctrl
                self.by_id[id(s)] = s
                for target in s.defines():
                    self.defs.setdefault(target, []).append(s)
                for body in s.bodies():
                    visit(body, ctrl + (s,))

        visit(kernel.body, ())

    def closure(self, roots_exprs, roots_ctrl, opaque=frozenset(),
                loads: set | None = None) -> tuple[set, set, bool]:
        """(statement ids, blockIdx axes, whether a loaded value is needed): everything
        reachable from some expressions and control statements (the expressions of the
        control statements in `opaque` are not followed); `loads`, if given, gets the ids
        of the statements whose loaded values are needed."""
        needed, seen_ctrl, seen_targets = set(), set(), set()
        data = False
        work_targets, axes = references(roots_exprs)
        work_targets, work_ctrl = list(work_targets), list(roots_ctrl)
        refs = self.refs
        while work_targets or work_ctrl:
            while work_ctrl:
                c = work_ctrl.pop()
                if id(c) in seen_ctrl:
                    continue
                seen_ctrl.add(id(c))
                needed.add(id(c))
                if id(c) not in opaque:
                    targets, ax = refs(c, c.exprs)
                    work_targets.extend(targets)
                    axes |= ax
                work_ctrl.extend(self.enclosing[id(c)])
            while work_targets:
                target = work_targets.pop()
                if target in seen_targets:
                    continue
                seen_targets.add(target)
                for d in self.defs.get(target, ()):
                    if id(d) in needed:
                        continue
                    if d.FROM_MEMORY:
                        data = True  # a loaded value: only data can tell
                        if loads is not None:
                            loads.add(id(d))
                        continue
                    needed.add(id(d))
                    targets, ax = refs(d, lambda: needed_exprs(d))
                    work_targets.extend(targets)
                    axes |= ax
                    work_ctrl.extend(self.enclosing[id(d)])
        return needed, axes, data

    def closure_of(self, roots, opaque=frozenset(), loads: set | None = None
                   ) -> tuple[set, set, bool]:
        """closure() of several (expressions, control statements) roots at once: the union
        of theirs (one walk, where each root's own would walk the same definitions again)."""
        return self.closure([e for exprs, _ in roots for e in exprs],
                            [c for _, ctrl in roots for c in ctrl], opaque, loads)

    def loaded(self, among: set) -> tuple[set, set]:
        """(variables, control statement ids) whose closure() meets a loaded value, where
        `among` (statement ids) is a closure: no statement outside it can be reached from
        one inside. The reverse of closure's walk, from the definitions that load."""
        users_of_target: dict = {}    # target -> statements whose closure follows it
        users_of_ctrl: dict = {}      # control id -> statements it encloses (in `among`)
        for i in among:
            s = self.by_id[i]
            if s.FROM_MEMORY:
                continue
            followed = [(s, s.exprs)] if s.bodies() else []
            if s.defines():
                followed.append((s, lambda s=s: needed_exprs(s)))
            for owner, exprs in followed:
                for t in self.refs(owner, exprs)[0]:
                    users_of_target.setdefault(t, []).append(s)
            for c in self.enclosing[i]:
                users_of_ctrl.setdefault(id(c), []).append(s)
        targets, ctrls, done = set(), set(), set()
        # (closure() keeps no loading definition: every one of the kernel's is a start)
        work = [d for ds in self.defs.values() for d in ds if d.FROM_MEMORY]
        while work:
            s = work.pop()
            if id(s) in done:
                continue
            done.add(id(s))
            if s.bodies():
                ctrls.add(id(s))
                work.extend(users_of_ctrl.get(id(s), ()))
            for t in s.defines():
                if t not in targets:
                    targets.add(t)
                    work.extend(users_of_target.get(t, ()))
        return targets, ctrls

    def refs(self, s: Stmt, exprs: Callable) -> tuple[set, set]:
        """references() of a statement's expressions (`exprs()`: its control expressions, or
        what a definition needs), computed once per statement: every site's closure walks
        the same definitions."""
        key = (id(s), exprs.__name__ == "exprs")
        found = self._refs.get(key)
        if found is None:
            found = self._refs[key] = references(exprs())
        return found

    def trip_loops(self, kernel: Kernel, alike: set, axes: set, roots) -> tuple[set, set]:
        """(loops, axes): the outermost of the `alike` loops whose trip count a blockIdx
        axis decides, and the axes the (expressions, control) `roots` read other than
        through those loops' controls (`axes`, all they read, when there is no such loop)."""
        candidates = {id(s) for s in kernel.statements() if id(s) in alike
                      and self.closure(s.exprs(), ())[1]}
        loops = {i for i in candidates
                 if not any(id(c) in candidates for c in self.enclosing[i])}
        if not loops:
            return loops, set(axes)
        return loops, self.closure_of(roots, frozenset(loops))[1]


def expr_block_axes(kernel: Kernel, exprs) -> list[frozenset[str]]:
    """The blockIdx axes each expression reads, itself or through every definition of the
    variables it reads (all of them: never fewer than the value can depend on)."""
    deps = _Dependences(kernel)
    return [frozenset(deps.closure([e], ())[1]) for e in exprs]


def alike_loops(kernel: Kernel, statements: set) -> set[int]:
    """Loops (in `statements`) whose iterations look alike to a run of `statements`: the
    loop variable feeds nothing run inside, and no iteration reads state an earlier one
    left (a variable declared inside the body starts afresh every one; one declared
    outside and assigned inside is read only after this iteration assigned it: nvcc's
    registers, which the PTX reading declares at the kernel's top)."""
    out = set()
    for s, inside, updated in _loops_state(kernel, statements):
        if not updated or _assigned_before_read(s.body, statements, updated, set()) is not None:
            out.add(id(s))
    return out


def paired_loops(kernel: Kernel, statements: set) -> set[int]:
    """Loops (in `statements`) whose iterations look alike in pairs: as alike_loops's, but
    for variables each flipped by a constant once an iteration (`v = v ^ C` at the body's
    top, C the same every iteration: a double buffer's `A_lds_addr ^= 0x2000`, YHs's
    SGEMM), which take two values in turn."""
    out = set()
    for s, inside, updated in _loops_state(kernel, statements):
        flips: dict = {}
        for x in inside:
            for t in x.updates():
                if t in updated:
                    flips.setdefault(t, []).append(x)
        flipped = {t for t, xs in flips.items() if len(xs) == 1 and _flip(xs[0], s.body,
                                                                          updated)}
        if flipped and _assigned_before_read(s.body, statements, updated - flipped,
                                             set()) is not None:
            out.add(id(s))
    return out


def _loops_state(kernel: Kernel, statements: set):
    """(loop, its statements of `statements`, the variables they update that the body does
    not declare) for each loop of `statements` a run may take iterations of as standing for
    others: a body, no return inside, its variable feeding nothing run inside."""
    for s in kernel.statements():
        if not isinstance(s, Loop) or id(s) not in statements or not s.body:
            continue
        inside = [x for x in walk(s.body) if id(x) in statements]
        if any(isinstance(x, Return) for x in inside) or \
                any(s.var in references(needed_exprs(x))[0] for x in inside):
            continue
        fresh = {t for x in walk(s.body) for t in x.declares()}
        yield s, inside, {t for x in inside for t in x.updates()} - fresh


def _flip(x, body, updated: set) -> bool:
    """Whether `x` is `v = v ^ C` at the top of `body`, C reading nothing `updated`."""
    if not isinstance(x, Assign) or not any(y is x for y in body):
        return False
    value = x.value
    if value.op is not Op.XOR:
        return False
    mine = [n for n in value.src if n.op is Op.VAR and n.arg is x.var]
    other = [n for n in value.src if not (n.op is Op.VAR and n.arg is x.var)]
    return len(mine) == 1 and len(other) == 1 and \
        not references((other[0],))[0] & updated


def _assigned_before_read(body, statements, updated: set, assigned: set) -> set | None:
    """The variables of `updated` a run of `statements` surely assigns in `body` (with
    `assigned` those it has before), or None where it reads one of them first (a value
    an earlier iteration left). A register array is never whole: a read of one `updated`
    is always one of an earlier iteration's values."""
    for x in body:
        if id(x) not in statements:
            continue
        if references(x.exprs())[0] & (updated - assigned):
            return None
        if isinstance(x, If):
            then = _assigned_before_read(x.then, statements, updated, assigned)
            orelse = _assigned_before_read(x.orelse, statements, updated, assigned)
            if then is None or orelse is None:
                return None
            assigned = then & orelse
        elif isinstance(x, Loop):
            inner = _assigned_before_read(x.body, statements, updated, assigned)
            if inner is None:
                return None
            if x.do_while:   # (its body runs at least once; a for loop's may not)
                assigned = inner
        else:
            assigned = assigned | {t for t in x.defines() if isinstance(t, Var)}
    return assigned


def block_invariant_stores(kernel: Kernel, sites) -> bool:
    """Whether the bytes each of the store sites `sites` (site numbers) writes are the same
    in every block: its value, its address and what decides that it runs read no blockIdx,
    and load only from global arrays the kernel never writes, at addresses that read no
    blockIdx and no loaded value (llm.c's fused_residual_forward_kernel6: each sub-block of
    a block stores the same weights, `load128(weight + c)`, into one shared copy). Then
    whether two threads of a block store the same bytes is one answer for every block of a
    class the shared run cannot tell apart."""
    statements = list(kernel.statements())
    if any(isinstance(s, (TmaStore, BulkStore)) for s in statements):
        return False   # (global writes through a tensor map or a bulk copy: not followed)
    deps = _Dependences(kernel)
    by_site = {s.site: s for s in kernel.sites()}
    # (an array some statement writes, or may: its values may differ from block to block)
    written = {s.array.name for s in statements
               if isinstance(s, Access) and not isinstance(s, Load)}
    for number in sites:
        site = by_site.get(number)
        if site is None or not isinstance(site, Store):
            return False
        loads: set = set()
        _, axes, _ = deps.closure(site.exprs(), deps.enclosing[id(site)], loads=loads)
        if axes:
            return False
        for i in loads:
            load = deps.by_id[i]
            if not isinstance(load, Load) or isinstance(load.array, SharedArray) or \
                    load.array.name in written:
                return False
            _, axes, data = deps.closure(load.address_exprs(), deps.enclosing[i])
            if axes or data:
                return False
    return True


# what a thread reads that is the same in every thread of its block
_BLOCK_WIDE = ("blockIdx", "blockDim", "gridDim")


def _thread_varying(exprs) -> bool:
    """Whether an expression reads threadIdx (or another per-thread register)."""
    return any(node.op is Op.SPECIAL and node.arg[0] not in _BLOCK_WIDE
               for e in exprs for node in e.walk())


def thread_invariant_stores(kernel: Kernel, sites) -> bool:
    """Whether every thread of a block that runs each of the store sites `sites` (site
    numbers) stores the same bytes at the same addresses in the same order: its value, its
    address and what decides that it runs read no threadIdx, define nothing but plain
    assignments and loops, and load only from global arrays the kernel never writes, at
    addresses of that kind; and no thread returns on a condition that reads threadIdx before
    it. mlab's sum_shared has every thread copy its block's inputs, `for (size_t i = 0; i <
    512; i++) buf[i] = in[offset + i];`. Two threads' write-write race at one such site
    leaves what the last store of either writes: the same bytes, whichever comes last."""
    by_site = {s.site: s for s in kernel.sites()}
    if not all(isinstance(by_site.get(n), Store) and
               isinstance(by_site[n].array, SharedArray) for n in sites):
        return False
    deps = _Dependences(kernel)
    statements = list(kernel.statements())
    written = {s.array.name for s in statements
               if isinstance(s, Access) and not isinstance(s, Load)}
    plain = (Let, Assign, Loop, If, DeclareLocal, LocalStore)
    order = {id(x): n for n, x in enumerate(statements)}
    returns = [r for r in statements if isinstance(r, Return)]
    work = []
    for site in (by_site[n] for n in sites):
        # (a return after the site's last run, as nvcc places `if (tid != 0) return` before
        # a block's final store, changes none of its stores: only one before it or in its
        # loops)
        loops = {id(c) for c in deps.enclosing[id(site)] if isinstance(c, Loop)}
        work.append((site.exprs(), deps.enclosing[id(site)]))
        work += [((), deps.enclosing[id(r)]) for r in returns
                 if order[id(r)] < order[id(site)] or
                 loops & {id(c) for c in deps.enclosing[id(r)]}]
    seen: set = set()
    while work:
        exprs, ctrl = work.pop()
        loads: set = set()
        needed, _, _ = deps.closure(exprs, ctrl, loads=loads)
        made = [deps.by_id[i] for i in needed]
        if any(not isinstance(s, plain) for s in made) or _thread_varying(exprs) or \
                _thread_varying(e for s in made for e in s.exprs()):
            return False
        for i in loads - seen:
            seen.add(i)
            load = deps.by_id[i]
            if not isinstance(load, Load) or isinstance(load.array, SharedArray) or \
                    load.array.name in written:
                return False
            work.append((load.address_exprs(), deps.enclosing[i]))
    return True


def slice_kernel(kernel: Kernel) -> Slice:
    """Compute the slice of a kernel's shared accesses."""
    deps = _Dependences(kernel)
    enclosing = deps.enclosing

    # A `return` decides which threads reach every later site: it and what decides it are
    # in the slice whenever there is a site.
    returns = [s for s in kernel.statements() if isinstance(s, Return)]
    sites = kernel.sites()
    return_ctrl = [c for r in returns for c in enclosing[id(r)]] if sites else []
    roots = [(site.address_exprs(), enclosing[id(site)]) for site in sites]
    statements, axes, data = deps.closure_of(roots + [((), return_ctrl)])
    statements |= {id(site) for site in sites} | ({id(r) for r in returns} if sites else set())
    data_sites = set()
    if data:   # which sites: those whose own closure meets a loaded value
        targets, ctrls = deps.loaded(statements)
        if any(id(c) in ctrls for c in return_ctrl):
            data_sites = {site.site for site in sites}
        for site, (exprs, ctrl) in zip(sites, roots):
            if any(id(c) in ctrls for c in ctrl) or references(exprs)[0] & targets:
                data_sites.add(site.site)

    # A loop collapses when its iterations look alike: every one issues the same requests.
    collapsible = alike_loops(kernel, statements)

    # Collapsible loops whose trip count a blockIdx axis decides, and the axes that reach
    # the slice other than through their controls.
    roots += [((), enclosing[id(r)]) for r in returns] if sites else []
    trip_loops, address_axes = deps.trip_loops(kernel, collapsible, axes, roots)
    return Slice(frozenset(statements), frozenset(collapsible), frozenset(axes),
                 frozenset(data_sites), frozenset(trip_loops), frozenset(address_axes))


def reads_loaded_values(kernel: Kernel, statement) -> bool:
    """Whether the address of `statement` (an access, global or shared), or what decides
    whether it runs, depends on values the kernel loads from memory."""
    deps = _Dependences(kernel)
    exprs, ctrl = statement.address_exprs(), deps.enclosing[id(statement)]
    statements, _, data = deps.closure_of([(exprs, ctrl)])
    if not data:
        return False
    targets, ctrls = deps.loaded(statements | {id(statement)})
    return any(id(c) in ctrls for c in ctrl) or bool(references(exprs)[0] & targets)


# ---------------------------------------------------------------- the hazard check's runs

@dataclass(frozen=True)
class HazardSlices:
    """The two address-only runs `check` can make instead of running the whole kernel.

    The shared run executes what decides shared accesses, barriers and cp.async groups; its
    blocks differ only by the blockIdx axes it reads, so one block stands for all that agree
    on them, and two iterations stand for all of a loop whose iterations look alike (what one
    iteration can race with, the next one can too). The other run executes, for every block,
    what decides global accesses, loop bounds and shuffles, and evaluates at each statement
    only what can fault there (probes: divisors, shift counts, float-to-integer conversions,
    register-array indices), so that it finds every fault a full run finds.
    """

    shared: frozenset[int]        # statement ids of the shared run
    truncate: frozenset[int]      # loops of it whose iterations look alike
    block_axes: frozenset[str]    # blockIdx axes the shared run reads
    # loops of `truncate` whose trip count a blockIdx axis decides (outermost), and the axes
    # the shared run reads other than through their controls: blocks that agree on those
    # axes and on each such loop's trips (0, 1, or 2 and more) run alike
    trip_loops: frozenset[int]
    address_axes: frozenset[str]
    other: frozenset[int]         # statement ids of the other run
    probes: Mapping[int, tuple[Probe, ...]]  # of the other run, per statement
    counted: frozenset[int]       # loops of the other run with nothing of it inside
    unusable: str | None          # why the two runs cannot stand for the whole one, if so
    # loops of the other run whose body needs only global accesses at indices affine in the
    # loop variable (and locals declared in it): their first, second and last iterations
    # decide every bound and alignment of all (kernels_ir.PartialRun.endpoints)
    endpoints: frozenset[int] = frozenset()
    # the guards inside those loops: If id -> its comparisons (PartialRun.guards)
    guards: Mapping[int, tuple[Expr, ...]] = field(default_factory=dict)
    # shuffles and mma.sync of the other run whose results it does not read: run for the
    # lanes they need, their values not evaluated (kernels_ir.PartialRun.lanes_only)
    lanes_only: frozenset[int] = frozenset()
    # loads whose values decide something either run needs, or that shared memory or a
    # register array stores (blind_arrays)
    deciding_loads: frozenset[int] = frozenset()
    # loops of the other run whose iterations look alike to it (alike_loops): the same
    # addresses and probes every iteration, so its first two stand for all of them
    other_truncate: frozenset[int] = frozenset()
    # loops of `truncate` whose iterations look alike in pairs (paired_loops): 3 or 4 of
    # them stand for all (kernels_ir.PartialRun.truncate_pairs)
    truncate_pairs: frozenset[int] = frozenset()


def blind_arrays(kernel: Kernel, hs: HazardSlices) -> frozenset[str]:
    """The global arrays (by name) whose values decide nothing `check` reports: no address,
    control, fault or value stored to shared memory reads them. A full run may give them
    zeros (kernels_ir.run's `blank`). None at all where an array whose values do decide
    something is also written by the kernel (a value could come back through it)."""
    base = {v.name: v.base.name for v in kernel.global_views}
    name = lambda s: base.get(s.array.name, s.array.name)  # noqa: E731
    accesses = [s for s in kernel.statements() if isinstance(s, Access) and not s.is_shared
                and hasattr(s, "array")]
    deciding = {name(s) for s in accesses if id(s) in hs.deciding_loads}
    written = {name(s) for s in accesses if s.WRITES}
    # (a copy between global and shared memory carries values the closures do not follow)
    copies = any(isinstance(s, (CopyAsync, BulkLoad, BulkStore, TmaLoad, TmaStore)) or
                 isinstance(s, Access) and not s.is_shared and not hasattr(s, "array")
                 for s in kernel.statements())
    if deciding & written or copies:
        return frozenset()
    return frozenset(g.name for g in kernel.globals if g.name not in deciding)


def fault_probes(s: Stmt) -> tuple[Probe, ...]:
    """What can be undefined behaviour in a statement's expressions (and its conversion of
    a float value to an integer target), as probes that fault exactly when it does: an
    integer division or remainder (by zero: `1 / divisor`), a shift (by too much: `0 <<
    count`), a float-to-integer conversion (out of range), a register-array index."""
    out = []
    for e in s.exprs():
        for n in e.walk():
            if n.op in (Op.DIV, Op.MOD) and not n.dtype.is_float:
                one = Expr(Op.CONST, n.src[0].dtype, (), 1)
                out.append(Probe(Expr(n.op, n.dtype, (one, n.src[1]))))
            elif n.op in (Op.SHL, Op.SHR):
                zero = Expr(Op.CONST, n.src[0].dtype, (), 0)
                out.append(Probe(Expr(n.op, n.dtype, (zero, n.src[1]))))
            elif n.op is Op.CAST and n.src[0].dtype.is_float and not n.dtype.is_float:
                out.append(Probe(n))
            elif n.op is Op.LOCAL_READ:
                out.append(Probe(array=n.arg, index=n.src))
    if isinstance(s, LocalStore):
        out.append(Probe(array=s.array, index=s.index))
    # C converts a value to the type it is assigned or stored to
    values = (s.value,) if isinstance(s, (Let, Assign, LocalStore)) else \
        s.values if isinstance(s, Store) else \
        tuple(v for v in (s.value, s.compare) if v is not None) if isinstance(s, Atomic) \
        else ()
    target = s.var.dtype if isinstance(s, (Let, Assign)) else \
        s.array.dtype if isinstance(s, (LocalStore, Store, Atomic)) else None
    for v in values:
        if v.dtype.is_float and not target.is_float:
            out.append(Probe(Expr(Op.CAST, target, (v,))))
    return tuple(out)


def hazard_slices(kernel: Kernel,
                  settled: Callable[[Probe], bool] | None = None,
                  box_aligned: Callable[[Stmt], bool] | None = None) -> HazardSlices:
    """Split the hazard check's work into the shared run and the other run (HazardSlices);
    probes that `settled` shows cannot fault (smemsim.launch.ranges.probe_settled) are left out,
    and so are the coordinates of TMA copies whose boxes `box_aligned` shows start on 16
    global bytes (smemsim.launch.congruence): the other run would evaluate them for nothing."""
    deps = _Dependences(kernel)
    enclosing = deps.enclosing
    stmts = list(kernel.statements())
    returns = [s for s in stmts if isinstance(s, Return)]
    return_ctrl = [c for r in returns for c in enclosing[id(r)]]

    deciding: set = set()   # loads whose values something of either run needs

    def run_of(roots: list) -> tuple[set, set, bool]:
        """The closure of (expressions, statement) roots, each statement with its
        enclosing control, plus the returns and what decides them."""
        needed, axes, data = deps.closure_of(
            [((), return_ctrl)] + [(exprs, enclosing[id(s)]) for exprs, s, _ in roots],
            loads=deciding)
        needed |= {id(r) for r in returns} | {id(s) for _, s, executed in roots if executed}
        return needed, axes, data

    shared_roots, other_roots, probes = [], [], {}
    for s in stmts:
        if isinstance(s, Access) and s.is_shared:
            shared_roots.append((s.address_exprs(), s, True))
            if isinstance(s, (CopyAsync, BulkLoad, BulkStore)) or isinstance(
                    s, (TmaLoad, TmaStore)) and not (box_aligned and box_aligned(s)):
                # and its global end (a TMA box's coordinates: where it starts)
                other_roots.append((s.exprs(), s, True))
        elif isinstance(s, Access):
            other_roots.append((s.address_exprs(), s, True))
        elif isinstance(s, (Sync, SyncWarp, CommitGroup, WaitGroup, *BULK_ORDER_OPS)):
            shared_roots.append((s.exprs(), s, True))
            if isinstance(s, SyncReduce):   # (its value: a barrier both runs make)
                other_roots.append((s.exprs(), s, True))
        elif isinstance(s, Shuffle):
            # which lanes it reads (a lane that does not execute it is a fault to find);
            # its value only where something of the other run reads its result
            other_roots.append(([e for e in (s.lane, s.width, s.mask) if isinstance(e, Expr)],
                                s, True))
        elif isinstance(s, MmaSync):
            other_roots.append(((), s, True))   # (its warp must be whole; its values only
            #                                      where something reads its result)
        elif isinstance(s, (Loop, DeclareLocal, Assert)):
            other_roots.append((s.exprs(), s, True))   # (an assert: a fault to find)
        found = tuple(p for p in fault_probes(s) if settled is None or not settled(p))
        if found:
            probes[id(s)] = found
            other_roots.append(([e for p in found for e in p.roots()], s, False))
    shared, axes, shared_data = run_of(shared_roots)
    other, _, other_data = run_of(other_roots)
    # shuffles and mma.sync whose results nothing of the other run reads: run for their
    # lanes only (the interpreter does not evaluate a shuffle's value, which the run does
    # not compute; an mma's garbage products fault nowhere)
    valued, _, _ = run_of([r for r in other_roots if not isinstance(r[1], (Shuffle, MmaSync))])
    lanes_only = frozenset(id(x) for x in stmts if isinstance(x, (Shuffle, MmaSync)) and
                           id(x) in other and id(x) not in valued)
    unusable = "a loaded value decides addresses, control or a fault" \
        if shared_data or other_data else None
    # loops of the other run with nothing of it inside only need their trip counts
    counted = {id(s) for s in stmts if isinstance(s, Loop) and id(s) in other
               and not any(id(x) in other or id(x) in probes for x in walk(s.body))}
    truncate = alike_loops(kernel, shared)
    pairs = paired_loops(kernel, shared) - truncate
    roots = [(exprs, enclosing[id(s)]) for exprs, s, _ in shared_roots]
    roots += [((), enclosing[id(r)]) for r in returns]
    trip_loops, address_axes = deps.trip_loops(kernel, truncate, axes, roots)
    endpoints, guards = set(), {}
    for s in stmts:
        if isinstance(s, Loop) and id(s) in other and id(s) not in counted:
            found = _affine_body(s, other, probes)
            if found is not None:
                endpoints.add(id(s))
                guards.update(found)
    # and the values stored to shared memory and register arrays: a full run compares a
    # race's stored bytes, and a value loaded back from there may decide an address
    deps.closure_of([(s.exprs(), enclosing[id(s)]) for s in stmts
                     if isinstance(s, LocalStore) or isinstance(s, Access) and s.is_shared
                     and s.WRITES], loads=deciding)
    return HazardSlices(frozenset(shared), frozenset(truncate | pairs), frozenset(axes),
                        frozenset(trip_loops), frozenset(address_axes), frozenset(other),
                        probes, frozenset(counted), unusable, frozenset(endpoints), guards,
                        lanes_only, frozenset(deciding),
                        frozenset(alike_loops(kernel, other) - counted - endpoints),
                        frozenset(pairs))


def layout_run(kernel: Kernel, hs: HazardSlices) -> frozenset[int] | None:
    """The statements of a run that follows where TMA's bytes come from without their values
    (check's layout agreement): the shared run and what decides the TMA copies' coordinates;
    None where a loaded value decides those (only a run on values can follow them)."""
    deps = _Dependences(kernel)
    copies = [s for s in kernel.statements() if isinstance(s, TmaLoad) and id(s) in hs.shared]
    needed, _, data = deps.closure([e for s in copies for e in s.exprs()],
                                   [c for s in copies for c in deps.enclosing[id(s)]])
    return None if data else frozenset(hs.shared | needed)


def control_of(kernel: Kernel, run: frozenset[int]) -> tuple[frozenset[int], frozenset[str]]:
    """(statements, axes): what decides the control flow of the run of statements `run`
    (its ifs, loops and returns, and what their conditions read), and the blockIdx axes
    that run reads other than through that control. Blocks that agree on those axes and
    take the same decisions at every if and loop of the first run make the same shared
    accesses (a persistent kernel's blocks that take as many tiles, a scan's blocks past
    the first: kernels_ir.control_signatures)."""
    deps = _Dependences(kernel)
    stmts = [s for s in kernel.statements() if id(s) in run]
    controls = [s for s in stmts if s.bodies()]
    needed, _, _ = deps.closure([], controls)
    needed |= {id(s) for s in stmts if isinstance(s, Return)}
    roots = []
    for s in stmts:
        if isinstance(s, Access) and s.is_shared:
            roots.extend(s.address_exprs())
        elif isinstance(s, (Sync, SyncWarp, CommitGroup, WaitGroup, *BULK_ORDER_OPS)):
            roots.extend(s.exprs())
    # what reaches a shared address or barrier through data; a definition under an `if`
    # brings the `if` but not what its condition reads (the decisions stand for that)
    axes = deps.closure(roots, (), frozenset(id(s) for s in controls))[1]
    return frozenset(needed), frozenset(axes)


def _affine_body(loop: Loop, other, probes) -> dict | None:
    """The guards of the loop's body if it can run at its ends, else None: every statement
    of the body the other run executes must be a global Load or Store at an index affine
    in the loop variable (for each iteration of the loops inside), a Let it declares (a
    pure function of the variable and of values the loop does not change), an If whose
    condition is a guard (below) with nothing of the run in its else branch, or a loop
    whose bounds the variable does not decide (the same iterations at every iteration of
    this one: its accesses too are one progression each, iteration by iteration); with no
    probe and no assignment of the variable inside. Then the indices of any iteration lie
    between those of the first and the last, and their alignment repeats that of the
    first two.

    A guard is a conjunction (&&) of integer comparisons (<, <=, >, >=, ==) of expressions
    affine in the variable at one integer width: over a lane's iterations it holds on one
    interval, whose ends and second iteration the run takes as it does the loop's. Returns
    {If id: its comparisons, with the body's locals written out}."""
    if not loop.counted:
        return None
    lets: dict = {}
    guards: dict = {}
    var = loop.var
    needed = [x for x in walk(loop.body) if id(x) in other or id(x) in probes]
    # statements of loops inside: they repeat the same iterations at every iteration of
    # this loop (their bounds may not depend on its variable), so they may hold accesses,
    # but not guards
    nested = {id(y) for x in needed if isinstance(x, Loop) for y in walk(x.body)}
    for x in needed:
        if id(x) in probes:
            return None
        if isinstance(x, Let):
            lets[x.var] = x.value
        elif isinstance(x, If):
            if id(x) in nested or any(id(y) in other or id(y) in probes
                                      for y in walk(x.orelse)):
                return None
            compares = _guard(x.cond, var, lets)
            if compares is None:
                return None
            guards[id(x)] = compares
        elif isinstance(x, Loop):
            if any(affine_degree(e, var, lets) != 0 for e in x.exprs()):
                return None
        elif not (isinstance(x, (Load, Store)) and not x.is_shared):
            return None
    for x in walk(loop.body):
        if isinstance(x, Assign) and x.var == var:
            return None
    # (an index narrowed on the way, nvcc's `(unsigned)(r + (int)(k * N))`, is affine modulo
    # its width: the run checks that the iterations it takes are one progression, so one
    # that wrapped between them runs the loop whole)
    if not all(affine_degree(e, var, lets, modular=True) is not None
               for x in needed if isinstance(x, (Load, Store)) for e in x.index):
        return None
    return guards


def _guard(cond: Expr, var, lets: dict) -> tuple[Expr, ...] | None:
    """The comparisons of a guard (see _affine_body), the body's locals written out, or
    None if `cond` is not one."""
    if cond.op is Op.LAND:
        parts = [_guard(c, var, lets) for c in cond.src]
        return None if None in parts else parts[0] + parts[1]
    if cond.op not in (Op.LT, Op.LE, Op.GT, Op.GE, Op.EQ):
        return None
    sides = tuple(inline_locals(e, lets) for e in cond.src)
    for e in sides:
        if e.dtype.is_float or affine_degree(e, var, {}) is None:
            return None
        # affine modulo 2**bits needs one width: a k-dependent part may be widened only
        # at the top of a side (the value then stays in the narrow type's range)
        inner = e.src[0] if e.op is Op.CAST else e
        bits = {n.dtype.bits for n in inner.walk() if affine_degree(n, var, {}) == 1}
        if len(bits) > 1:
            return None
    return (Expr(cond.op, cond.dtype, sides, cond.arg),)

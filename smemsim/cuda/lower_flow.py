"""Control flow of a kernel: blocks, loops, ifs, and C's jumps (`break`, `continue`, an
inlined function's early `return`) as flags the IR's loops and guards test."""
from __future__ import annotations

from kernels_ir import (
    Expr,
    const,
    lnot,
    logical_and,
)

from .parse import short, text, walk
from .symbols import (
    Sym,
    callee_name,
    fold,
    jump_owner,
    may_exit,
    number,
    register_type,
    single_return,
    truth_value,
    updates_variable,
)

# the register types a counted loop's variable may have
INTEGERS = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")


class FlowMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def block(self, node) -> None:
        if node.type != "compound_statement":
            self.scopes.append({})
            try:
                self.statement(node)
            finally:
                self.scopes.pop()
            return
        self.scoped_statements(node.named_children)

    def scoped_statements(self, children) -> None:
        """Statements in a scope of their own (a block's, a switch case's)."""
        self.scopes.append({})
        try:
            self.statements(children)
        finally:
            self.scopes.pop()

    def statements(self, children) -> None:
        """Statements in order; after one that may `break`, `continue` or return from an
        inlined function, the rest run only where no lane took that exit (C's jumps as
        flags: the IR has none)."""
        for i, child in enumerate(children):
            if child.type == "preproc_call":
                continue  # `#pragma unroll` is read by the loop that follows
            self.statement(child, self.pragma(children[i - 1]) if i else "auto")
            flags = [e["flag"] for e in self.exits if may_exit(child, e)]
            rest = children[i + 1:]
            if flags and any(c.type not in ("comment", "preproc_call") for c in rest):
                with self.at(child):
                    guard = lnot(flags[0])
                    for f in flags[1:]:
                        guard = logical_and(guard, lnot(f))
                    # (statements inside locate themselves: the outer place is a default)
                    with self.kb.if_(guard):
                        self.statements(rest)
                return

    def pragma(self, node) -> bool | str | int:
        """The unrolling a `#pragma unroll [N]` before a loop asks for ("auto": none)."""
        words = text(node).split() if node.type == "preproc_call" else []
        if words[:2] != ["#pragma", "unroll"]:
            return "auto"
        if len(words) == 2:
            return True
        arg = " ".join(words[2:])
        n = fold(self.u.expr_text(arg, self, node))
        if not isinstance(n, int) or n < 1:
            raise self.error(node, f"`{' '.join(words)}`: the count must be a positive "
                                   "compile-time integer")
        return False if n == 1 else n

    def for_statement(self, node, unroll) -> None:
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        update = node.child_by_field_name("update")
        self.scopes.append({})
        outer = None
        try:
            if init is not None and init.type == "declaration" and (cond is None or (
                    update is not None and self.calls_function(update)) or
                    self.loads_memory(cond)):
                # `for (int b = s.next(); b >= 0; b = s.next())`: an update that runs a
                # function's statements is no loop step; `for (unsigned p = blockIdx.x;; p +=
                # gridDim.x)` ends by a break; `for (int j = row[i]; j < row[i + 1]; j++)`
                # reads memory in its condition (CSR rows, Rodinia bfs's edges): the C loop
                # as it runs, its variable a local, the update at the end of the body
                self.declaration(init)
                self.while_loop(node, cond, node.child_by_field_name("body"), unroll, False,
                                update)
                return
            if init is not None and init.type == "declaration":
                decls = [c for c in init.named_children if c.type == "init_declarator"]
                first, rest = decls[0] if decls else None, decls[1:]
                if first is None:
                    raise self.error(node, "a for loop's declaration needs a value")
                name = text(first.child_by_field_name("declarator"))
                dtype = register_type(self.dtype(init.child_by_field_name("type"), init))
                start = self.expr(first.child_by_field_name("value"))
                for extra in rest:  # for (int i = 0, j = n; ...): j is a local of the loop
                    self.init_declarator(extra, dtype, 1, False, init)
            elif self.counted_over_outer(node, init, cond, update):
                # `for (i = 0; i < n; i++)` over a local declared outside, which the body
                # neither assigns nor jumps out of: a counted loop (its trip count visible,
                # as nvcc sees it), the local set to its start first and, after each
                # iteration, to the value C's update gives it (so it holds the exit value)
                name = text(init.child_by_field_name("left"))
                outer = self.lookup(name, init)
                dtype = outer.dtype
                start = self.expr(init.child_by_field_name("right"))
                with self.at(init):
                    self.kb.assign(outer.value, number(start, dtype))
            else:
                # `for (i = 0; ...)` over a variable declared outside that the body assigns or
                # jumps out of, or no variable: the C loop as it runs, a while loop with the
                # update at the end of the body
                self.general_for(node, unroll)
                return
            if cond is None:
                raise self.error(node, "a for loop without a condition is not supported")
            if update is None:
                raise self.error(node, "a for loop needs an update (i++, i += s, i >>= 1, ...)")

            body = node.child_by_field_name("body")
            outer_exits = list(self.exits)
            stops, restart = self.loop_exits(node, body)

            def bound(ref):
                self.scopes.append({name: Sym("loop", ref, dtype)})
                try:
                    return self.guarded(self.expr(cond), stops)
                finally:
                    self.scopes.pop()
            extra_updates = []
            while update.type == "comma_expression":
                # `a += s, b += t`: the loop variable's part is the loop's update; the others
                # run at the end of each iteration, as C runs them
                parts = [update.child_by_field_name("left"), update.child_by_field_name("right")]
                mine = [q for q in parts if updates_variable(q, name)]
                if len(mine) != 1:
                    raise self.error(update, f"loop update `{short(update)}`: one part must "
                                             f"update {name}")
                extra_updates += [q for q in parts if q is not mine[0]]
                update = mine[0]
            step, upd = self.loop_step(update, name, dtype, node)
            try:
                with self.at(node), self.kb.loop(
                        name, start, bound, **({"step": step} if upd is None else
                                               {"update": upd}),
                        unroll=unroll, dtype=dtype) as ref:
                    self.scopes.append({name: Sym("loop", ref, dtype)})
                    try:
                        self.loop_body(node, body, restart, extra_updates)
                    finally:
                        self.scopes.pop()
                    if outer is not None:
                        with self.at(update):
                            self.kb.assign(outer.value, number(
                                ref + step if upd is None else upd(ref), dtype))
            finally:
                self.exits = outer_exits

        finally:
            self.scopes.pop()

    def calls_function(self, node) -> bool:
        """Whether an expression calls a member function or a __device__ function of more
        than one `return` (which run statements: locals, branches)."""
        for n in walk(node):
            if n.type != "call_expression":
                continue
            fn = n.child_by_field_name("function")
            if fn.type == "field_expression" and \
                    self.struct_object(fn.child_by_field_name("argument")) is not None:
                return True
            if any(single_return(f.child_by_field_name("body")) is None
                   for f in self.u.functions.get(callee_name(fn), [])):
                return True
        return False

    def counted_over_outer(self, node, init, cond, update) -> bool:
        """Whether `for (i = e; cond; update)` is a counted loop over a local integer `i`
        declared outside: the condition reads it, the update updates it, and the body
        neither assigns it, takes its address, nor leaves by break, continue, return or
        goto."""
        if init is None or init.type != "assignment_expression" or cond is None or \
                update is None or self.loads_memory(cond) or \
                text(init.child_by_field_name("operator")) != "=" or \
                init.child_by_field_name("left").type != "identifier":
            return False
        name = text(init.child_by_field_name("left"))
        if not any(n.type == "identifier" and text(n) == name for n in walk(cond)) or \
                not updates_variable(update, name):
            return False
        sym = self.declared(name)
        if sym is None or sym.kind != "local" or sym.dtype not in INTEGERS:
            return False
        for n in walk(node.child_by_field_name("body")):
            if n.type in ("break_statement", "continue_statement", "return_statement",
                          "goto_statement") or \
                    (n.type in ("assignment_expression", "update_expression") and
                     updates_variable(n, name)) or \
                    (n.type == "pointer_expression" and text(n).replace(" ", "") == "&" + name):
                return False
        return True

    def general_for(self, node, unroll) -> None:
        """`for (; cond; update)` with no loop variable: a while loop with the update last."""
        init = node.child_by_field_name("initializer")
        if init is not None:
            self.expression_statement(init)
        cond = node.child_by_field_name("condition")
        update = node.child_by_field_name("update")
        self.while_loop(node, cond, node.child_by_field_name("body"), unroll, False, update)

    def loop_step(self, update, name: str, dtype: str, node):
        """(step, None) or (None, update function) of a for loop's update."""
        if update.type == "update_expression" and text(update.child_by_field_name(
                "argument")) == name:
            return (const(1) if "++" in text(update) else const(-1)), None
        if update.type == "assignment_expression" and \
                text(update.child_by_field_name("left")) == name:
            op = update.child_by_field_name("operator").type
            right = update.child_by_field_name("right")
            if op in ("+=", "-="):
                step = self.expr_in_loop_scope(right, name, None)
                if step is not None:
                    return (step if op == "+=" else -step), None

            def upd(ref):
                self.scopes.append({name: Sym("loop", ref, dtype)})
                try:
                    value = self.expr(right)
                    return value if op == "=" else self.c_binary(op[:-1], ref, value, update)
                finally:
                    self.scopes.pop()
            return None, upd
        if update.type == "comma_expression":
            raise self.error(update, f"loop update `{short(update)}`: several updates (move "
                                     "the others into the body)")
        raise self.error(update, f"loop update `{short(update)}` is not supported")

    def expr_in_loop_scope(self, node, name: str, _):
        """A step that does not read the loop variable (else None: an update function)."""
        if any(n.type == "identifier" and text(n) == name for n in walk(node)):
            return None
        return self.expr(node)

    def while_statement(self, node, unroll) -> None:
        cond = node.child_by_field_name("condition")
        self.while_loop(node, cond, node.child_by_field_name("body"), unroll,
                        node.type == "do_statement", None)

    def while_loop(self, node, cond, body, unroll, do: bool, update) -> None:
        if cond is not None and cond.type in ("condition_clause", "parenthesized_expression"):
            cond = cond.named_children[0]
        if cond is not None and self.reads_memory(cond):
            self.loop_reading_memory(node, cond, body, unroll, do, update)
            return
        outer_exits = list(self.exits)
        stops, restart = self.loop_exits(node, body)
        try:
            with self.at(node), self.kb.loop(
                    f"_loop{self.loc(node).line}", 0,
                    lambda _: self.guarded(self.expr(cond) if cond is not None else const(1),
                                           stops), 1, do_while=do, unroll=unroll):
                self.loop_body(node, body, restart, [update] if update is not None else [])
        finally:
            self.exits = outer_exits

    def loop_reading_memory(self, node, cond, body, unroll, do: bool, update) -> None:
        """`while (s[i] != v)` / `do {...} while (s[i] != v)`: a loop condition that reads
        memory is a statement of its own (the IR's conditions are pure), evaluated where C
        evaluates it: before each iteration (after the body, for a do-while)."""
        with self.at(node):
            keep = self.kb.let("keep_going", 1 if do else truth_value(self.expr(cond)), "i32")
        outer_exits = list(self.exits)
        stops, restart = self.loop_exits(node, body)
        try:
            with self.at(node), self.kb.loop(f"_loop{self.loc(node).line}", 0,
                                             lambda _: self.guarded(keep != 0, stops), 1,
                                             unroll=unroll):
                self.loop_body(node, body, restart, [update] if update is not None else [])
                self.kb.assign(keep, truth_value(self.expr(cond)))
        finally:
            self.exits = outer_exits

    def loop_exits(self, loop, body):
        """The flags a loop needs: its own `break` (and a return of the inlined function
        around it) end it; its `continue` skips the rest of an iteration. The break and
        continue flags are declared before the loop and pushed as exits."""
        stops, restart = [], None
        jumps = [n for n in walk(body) if n.type in ("break_statement", "continue_statement")
                 and jump_owner(n) == loop]
        if any(n.type == "break_statement" for n in jumps):
            with self.at(loop):
                flag = self.kb.let("broke", 0, "i32")
            stops.append({"kind": "break", "flag": flag, "owner": loop})
        stops += [e for e in self.exits if e["kind"] == "return" and may_exit(body, e)]
        if any(n.type == "continue_statement" for n in jumps):
            with self.at(loop):
                flag = self.kb.let("continued", 0, "i32")
            restart = {"kind": "continue", "flag": flag, "owner": loop}
        self.exits += [e for e in stops if e["kind"] != "return"]
        if restart is not None:
            self.exits.append(restart)
        return stops, restart

    def guarded(self, cond: Expr, stops) -> Expr:
        """A loop's condition, false once a flag that ends the loop is set."""
        for e in stops:
            cond = logical_and(lnot(e["flag"]), cond)
        return cond

    def loop_body(self, node, body, restart, updates) -> None:
        """The body (a `continue` flag cleared first), then the updates C runs after it."""
        if restart is not None:
            with self.at(node):
                self.kb.assign(restart["flag"], 0)
        self.block(body)
        if restart is not None and updates:
            self.exits.remove(restart)  # the update runs after a continue too
        for extra in updates:
            self.expression_statement(extra)

    def if_statement(self, node) -> None:
        cond = node.child_by_field_name("condition")
        while cond.type in ("condition_clause", "parenthesized_expression"):
            cond = cond.named_children[0]
        if text(node).startswith("if constexpr") or "constexpr" in text(node)[:20]:
            v = fold(self.expr(cond))
            if v is None:
                raise self.error(node, "if constexpr of a value that is not constant")
            branch = node.child_by_field_name("consequence") if v else \
                node.child_by_field_name("alternative")
            if branch is not None:
                self.block(branch.named_children[0] if branch.type == "else_clause" else branch)
            return
        c = self.expr(cond)
        with self.at(node), self.kb.if_(c):
            self.block(node.child_by_field_name("consequence"))
        other = node.child_by_field_name("alternative")
        if other is not None:
            body = other.named_children[0] if other.type == "else_clause" else other
            with self.at(other), self.kb.else_():
                self.block(body)

    def switch_statement(self, node) -> None:
        """`switch (v) { case a: case b: ...; break; ... default: ...; }` as the if/else-if
        chain it means when every case ends in `break` (or `return`), or is the last one:
        the value read once, each group of labels a test, `default` the final else. A case
        that falls through into the next, or a `break` elsewhere in a case, is refused at
        its line (write the if/else it stands for)."""
        cond = node.child_by_field_name("condition")
        while cond.type in ("condition_clause", "parenthesized_expression"):
            cond = cond.named_children[0]
        arms, labels = [], []   # (label values or None for default, statements, case node)
        for case in node.child_by_field_name("body").named_children:
            if case.type == "comment":
                continue
            if case.type != "case_statement":
                raise self.error(case, "a statement before the first case of a switch")
            value = case.child_by_field_name("value")
            labels.append(None if value is None else value)
            body = [c for c in case.named_children
                    if c != value and c.type != "comment"]
            if body:
                arms.append((labels, body, case))
                labels = []
        if labels:
            arms.append((labels, [], node))   # trailing labels with nothing to run
        for i, (_, body, case) in enumerate(arms):
            last = body[-1] if body else None
            ends = last is not None and last.type in ("break_statement", "return_statement")
            if not ends and i < len(arms) - 1 and body:
                raise self.error(case, "this case falls through into the next; the importer "
                                       "reads cases that end in `break` (write the if/else "
                                       "it stands for)")
            for n in body:
                for j in walk(n):
                    if j.type == "break_statement" and jump_owner(j) == node and \
                            not (j == last and n == last):
                        raise self.error(j, "a `break` inside a case (not its last "
                                            "statement): write the if/else it stands for")
        with self.at(node):
            value = self.kb.let(f"switch{node.start_point[0] + 1}", self.expr(cond))
        tests = []
        for labels, body, case in arms:
            test = None
            for label in labels:
                if label is None:
                    continue
                constant = self.expr(label)
                if not isinstance(fold(constant), int):
                    raise self.error(label, f"case `{short(label)}` is not a compile-time "
                                            "integer")
                eq = self.c_binary("==", value, constant, label)
                test = eq if test is None else self.c_binary("||", test, eq, label)
            tests.append((test, None in labels, body, case))
        # the default's arm (wherever it stands) is the chain's final else
        chain = [a for a in tests if not a[1]] + [a for a in tests if a[1]]
        self._switch_chain(chain)

    def _switch_chain(self, chain) -> None:
        """if (test) {body} else <the rest of the chain>; a default arm is unconditional (its
        other labels, `case a: default:`, test nothing)."""
        if not chain:
            return
        test, is_default, body, case = chain[0]
        statements = body[:-1] if body and body[-1].type == "break_statement" else body
        if is_default:
            self.scoped_statements(statements)
            return
        with self.at(case), self.kb.if_(test):
            self.scoped_statements(statements)
        if len(chain) > 1:
            with self.at(case), self.kb.else_():
                self._switch_chain(chain[1:])

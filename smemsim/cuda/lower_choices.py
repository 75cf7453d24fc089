"""Pointers that select between two arrays: `p = c ? &A[i] : &B[j]` (cudaTensorCoreGemm's
`warp_ptr`: half the warps copy A, the others B, through one pointer).

The IR's pointers point into one array. Such a pointer is held as a pair of them and the
condition, sharing one offset (a thread only ever uses its own side); every statement that
reads it is lowered once per side, under the condition, with the name bound to that side's
pointer. On the GPU each such access is one instruction whose address is selected; here it
is two sites at the same line, each run by the threads of its side (the same instructions
and wavefronts where a warp's threads agree, as they do where warps split the work)."""
from __future__ import annotations

import contextlib

from kernels_ir import cast, const, select

from .parse import short, text, walk
from .symbols import Sym, array_name, fold, register_type, truth_value

# the statements lowered once per side; loops and branches are entered and their own
# statements looked at
LEAVES = ("expression_statement", "declaration", "return_statement")
# where an assignment depends on the path taken (a pointer assigned there swaps)
CONTROL = ("for_statement", "while_statement", "do_statement", "if_statement",
           "conditional_expression", "switch_statement")
SWAPS = ("swap", "std::swap", "cuda::std::swap", "thrust::swap")
SWAP_SELECTOR = "_in_"   # a swapped pointer's selector: `cur_in_a`


def _bare(node):
    while node is not None and node.type == "parenthesized_expression":
        node = node.named_children[0]
    return node


def pointer_name(declarator):
    """The name a pointer declarator declares (`*p`, `* const p`), else None."""
    if declarator is None or declarator.type != "pointer_declarator":
        return None
    while declarator is not None and declarator.type == "pointer_declarator":
        declarator = declarator.child_by_field_name("declarator")
    return text(declarator) if declarator is not None and declarator.type == "identifier" \
        else None


def _under_control(node, top) -> bool:
    node = node.parent
    while node is not None and node != top:
        if node.type in CONTROL:
            return True
        node = node.parent
    return False


# where a pointer declared without a value starts: any access through it before an
# assignment is out of bounds, a located fault (C leaves such a read undefined)
UNSET_OFFSET = -(1 << 30)


def _assignments(name: str, declaration) -> list:
    """The `name = value` assignments after a declaration, in its block (C's scope)."""
    block = declaration.parent
    return [n for n in walk(block) if n.type == "assignment_expression" and
            n.start_byte > declaration.start_byte and
            n.child_by_field_name("operator").type == "=" and
            _bare(n.child_by_field_name("left")).type == "identifier" and
            text(_bare(n.child_by_field_name("left"))) == name]


def _base_name(value):
    """The identifier a pointer expression starts from: `a` of `a + k`, `&a[i]`, `(T *)a`,
    `4 + a` (a number on the left); None for anything else."""
    while value is not None:
        value = _bare(value)
        if value.type == "identifier":
            return text(value)
        if value.type == "cast_expression":
            value = value.child_by_field_name("value")
        elif value.type == "pointer_expression" and value.children[0].type == "&":
            value = value.named_children[0]
        elif value.type == "subscript_expression":
            value = value.child_by_field_name("argument")
        elif value.type == "binary_expression" and \
                value.child_by_field_name("operator").type in ("+", "-"):
            left = _bare(value.child_by_field_name("left"))
            value = left if left.type != "number_literal" else \
                value.child_by_field_name("right")
        else:
            return None
    return None


class ChoicesMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def unset_pointer(self, name: str, dtype: str, lanes: int, node, null: bool) -> None:
        """`T *p;` (or `T *p = nullptr;`) before its assignments. Where straight-line code
        first assigns it, it points nowhere until then (a use before is an error at the
        use). Where a loop or branch first assigns it (`if (c) p = a; else p = a + k;`, Parboil
        tpacf's data_x), and every assignment points into one array (also through other
        such pointers: `data_x = random_x`), it is a pointer into that array whose offset
        each assignment sets, starting out of bounds (UNSET_OFFSET: a read before any
        assignment faults, located)."""
        found = _assignments(name, node)
        if not found or not _under_control(found[0], node.parent):
            # (later assignments into the same array may be in loops: repoint moves it)
            self.declare(name, Sym("null_pointer", None, dtype, lanes, 1,
                                   None if null else ("unset",)))
            return
        arr = self.branch_pointer_array(name, node, set())
        if arr is None:
            raise self.error(node, f"`{short(node)}`: a pointer declared "
                                   f"{'null' if null else 'without a value'} is pointed at "
                                   "arrays inside a loop or branch, into more than one array "
                                   "or through an expression the importer does not follow")
        if dtype != "auto" and dtype != arr.dtype and (arr.pun or arr.dtype) != dtype:
            raise self.error(node, f"`{short(node)}`: a {dtype} pointer into "
                                   f"'{array_name(arr)}' of {arr.dtype}")
        with self.at(node):
            offset = self.kb.let(f"{name}_offset", UNSET_OFFSET, "i32")
        self.declare(name, Sym("pointer", None, arr.dtype, lanes, 1, (arr, [], offset)))

    def branch_pointer_array(self, name: str, declaration, seen: set):
        """The one array every assignment of `name` after its declaration points into
        (following the assignments of other pointers declared without a value), or None."""
        seen.add(name)
        arrays = []
        for a in _assignments(name, declaration):
            base = _base_name(a.child_by_field_name("right"))
            if base is None:
                return None
            sym = self.declared(base)
            if sym is not None and sym.kind == "null_pointer" and base not in seen:
                continue   # straight-line: assigned before (checked where it is used)
            if sym is None and base not in seen:
                # another pointer declared without a value, later in the same block
                other = next((d for d in walk(declaration.parent) if d.type == "declaration"
                              and any(pointer_name(c) == base for c in d.named_children)),
                             None)
                found = self.branch_pointer_array(base, other, seen) if other else None
                if found is None:
                    return None
                arrays.append(found)
                continue
            if sym is not None and sym.kind == "pointer":
                arrays.append(sym.place[0])
            elif sym is not None and sym.kind in ("global", "shared") and sym.lanes == 1:
                arrays.append(sym)
            elif base in seen:
                continue
            else:
                return None
        if not arrays or any(a.value is not arrays[0].value or a.pun != arrays[0].pun
                             for a in arrays):
            return None
        return arrays[0]

    def choice_pointer(self, name: str, value, dtype: str, node, lanes: int) -> bool:
        """`T *p = c ? X : Y` with X and Y pointers, or `T *q = p + k` of such a `p`:
        declares `name` as a pointer that selects (a plain one where both sides turn out to
        point into the same array); False when `value` is neither."""
        bare = value
        while bare.type == "parenthesized_expression":
            bare = bare.named_children[0]
        if bare.type == "conditional_expression":
            with self.at(node):
                which = self.kb.let(f"{name}_which", truth_value(
                    self.expr(bare.child_by_field_name("condition"))), "i32")
            sides = [(bare.child_by_field_name(f), {})
                     for f in ("consequence", "alternative")]
        else:
            named = self.choices_in(value)
            if not named:
                return False
            if len({id(sym.value[0]) for sym, _ in named}) > 1:
                raise self.error(node, f"`{short(node)}`: a pointer computed from two "
                                       "pointers that each select between arrays")
            which = named[0][0].value[0]
            sides = [(value, {n: sym.value[1 + k] for sym, names in named for n in names})
                     for k in range(2)]
        with self.at(node):
            offset = self.kb.let(f"{name}_offset", 0, "i32")
        pointers, offsets = [], []

        def place(k: int) -> None:
            side = sides[k][0]
            arr, indices = self.pointer_target(side, dtype, node, lanes)
            lead = [fold(e) for e in indices[:-1]]
            if any(v is None for v in lead):
                raise self.error(side, f"`{short(side)}`: a row chosen at run time of "
                                       f"'{array_name(arr)}' by a pointer that selects "
                                       "between arrays (the importer follows a constant "
                                       "row, or a flat array)")
            self.kb.assign(offset, indices[-1])
            offsets.append(indices[-1])
            pointers.append(Sym("pointer", None, arr.dtype, lanes, 1,
                                (arr, [const(v) for v in lead], offset)))
        self.per_side(which, [bound for _, bound in sides], node, place)
        if name not in self.u.assigned:
            # never moved: the offset is one side's (what both are multiples of, for a
            # vector view over bytes: `(int4 *)(warp_ptr + k)`)
            self.definitions[offset.arg] = select(which, *offsets)
        a, b = pointers
        if a.place[0] is b.place[0] and [fold(e) for e in a.place[1]] == \
                [fold(e) for e in b.place[1]]:
            self.declare(name, a)    # one array: the offset is all that was chosen
        else:
            self.declare(name, Sym("choice", (which, a, b), a.dtype, lanes))
            self.choices_declared = True
        return True

    def swap_families(self) -> dict:
        """name -> (family, the initializers of its members) for the kernel's pointer
        locals that are assigned one another inside a loop or branch (ping-pong buffers:
        `tmp = cur; cur = nxt; nxt = tmp;`, `swap(cur, nxt)`)."""
        if "_swaps" in self.__dict__:
            return self._swaps
        body = self.node
        decls: dict = {}
        for n in walk(body):
            if n.type == "init_declarator" and n.parent.type == "declaration":
                name = pointer_name(n.child_by_field_name("declarator"))
                if name is not None:
                    # a name declared twice (two scopes) is left alone: which one is meant
                    # would take the scopes
                    decls[name] = None if name in decls else n.child_by_field_name("value")
        parent: dict = {}
        linked, moves = set(), set()

        def root(x):
            while parent.get(x, x) != x:
                x = parent[x]
            return x
        for n in walk(body):
            pair = None
            if n.type == "assignment_expression" and \
                    n.child_by_field_name("operator").type == "=":
                pair = (_bare(n.child_by_field_name("left")),
                        _bare(n.child_by_field_name("right")))
            elif n.type == "call_expression" and \
                    text(n.child_by_field_name("function")) in SWAPS:
                pair = tuple(_bare(a) for a in n.child_by_field_name("arguments").named_children)
            if pair is None or len(pair) != 2 or \
                    any(a.type != "identifier" or decls.get(text(a)) is None for a in pair):
                continue
            a, b = (text(x) for x in pair)
            linked |= {a, b}
            if _under_control(n, body):
                moves.add(a)
            parent[root(a)] = root(b)
        # the families (joined by any assignment) of which a member moves in a loop or branch
        moving = {root(a) for a in moves}
        families: dict = {}
        for name in linked:
            if root(name) in moving:
                families.setdefault(root(name), set()).add(name)
        self._swaps = {}
        for members in families.values():
            family = frozenset(members)
            for m in members:
                self._swaps[m] = (family, {k: decls[k] for k in members})
        return self._swaps

    def swap_pointer(self, name: str, value, dtype: str, node, lanes: int) -> bool:
        """`T *p = X` of a pointer assigned another inside a loop or branch (a ping-pong
        buffer): a pointer that selects between the two arrays its family starts at, by a
        variable it carries (1: the first) beside its offset; False for any other."""
        found = self.swap_families().get(name)
        if found is None:
            return False
        family, inits = found
        sides = self.__dict__.setdefault("_swap_sides", {})
        if family not in sides:
            arrays = []
            for member in sorted(family):
                init = _bare(inits[member])
                if init.type == "identifier" and text(init) in family:
                    continue
                arr, indices = self.pointer_target(init, dtype, node, lanes)
                if len(indices) != 1:
                    raise self.error(init, f"`{short(init)}`: a pointer swapped with another "
                                           "starts in a row of a tile (the importer follows "
                                           "flat arrays)")
                if not any(a.value is arr.value and a.pun == arr.pun for a in arrays):
                    arrays.append(arr)
            if len(arrays) != 2 or arrays[0].dtype != arrays[1].dtype:
                raise self.error(node, f"`{short(node)}`: pointers swapped between "
                                       f"{', '.join(array_name(a) for a in arrays)} (the "
                                       "importer follows two arrays of one element type)")
            sides[family] = arrays
        arrays = sides[family]
        which, offset = self.swap_target(value, family, arrays, dtype, node, lanes)
        with self.at(node):
            # named `p_in_A` (1: the first array, A): gpu_backend.as_compiled knows the
            # branches it selects by this name
            which = self.kb.let(f"{name}{SWAP_SELECTOR}{array_name(arrays[0])}", which, "i32")
            offset = self.kb.let(f"{name}_offset", offset, "i32")
        pointers = [Sym("pointer", None, a.dtype, lanes, 1, (a, [], offset)) for a in arrays]
        self.declare(name, Sym("choice", (which, *pointers), arrays[0].dtype, lanes))
        self.choices_declared = True
        return True

    def swap_target(self, value, family, arrays, dtype: str, node, lanes: int):
        """(which, offset) of a pointer of a swap family given `value`: another member's,
        or an element of one of the family's arrays."""
        bare = _bare(value)
        if bare.type == "identifier" and text(bare) in family:
            other = self.lookup(text(bare), bare)
            return other.value[0], other.value[1].place[2]
        arr, indices = self.pointer_target(value, dtype, node, lanes)
        for k, a in enumerate(arrays):
            if a.value is arr.value and a.pun == arr.pun and len(indices) == 1:
                return const(1 if k == 0 else 0), indices[0]
        raise self.error(value, f"`{short(value)}`: a pointer swapped between "
                                f"{' and '.join(array_name(a) for a in arrays)} pointed "
                                "elsewhere")

    def swap_statement(self, e) -> bool:
        """`p = q` (or `p = X`) and `swap(p, q)` of a swap family's members: their
        selectors and offsets assigned; False for any other statement."""
        families = self.swap_families()
        e = _bare(e)
        if e.type == "assignment_expression" and \
                e.child_by_field_name("operator").type == "=":
            left = _bare(e.child_by_field_name("left"))
            if left.type != "identifier" or text(left) not in families:
                return False
            sym = self.lookup(text(left), left)
            family = families[text(left)][0]
            which, offset = self.swap_target(e.child_by_field_name("right"), family,
                                             self._swap_sides[family], "auto", e, sym.lanes)
            with self.at(e):
                self.kb.assign(sym.value[0], which)
                self.kb.assign(sym.value[1].place[2], offset)
            return True
        if e.type == "call_expression" and text(e.child_by_field_name("function")) in SWAPS:
            args = [_bare(a) for a in e.child_by_field_name("arguments").named_children]
            if len(args) != 2 or any(a.type != "identifier" or text(a) not in families
                                     for a in args):
                return False
            x, y = (self.lookup(text(a), a) for a in args)
            with self.at(e):
                held = (self.kb.let("swapped_which", x.value[0], "i32"),
                        self.kb.let("swapped_offset", x.value[1].place[2], "i32"))
                self.kb.assign(x.value[0], y.value[0])
                self.kb.assign(x.value[1].place[2], y.value[1].place[2])
                self.kb.assign(y.value[0], held[0])
                self.kb.assign(y.value[1].place[2], held[1])
            return True
        return False

    def choices_in(self, node) -> list:
        """The pointers that select between arrays that `node` names: [(Sym, {names})]."""
        found = {}
        for n in walk(node):
            if n.type == "identifier":
                sym = self.declared(text(n))
                if sym is not None and sym.kind == "choice":
                    found.setdefault(id(sym), (sym, set()))[1].add(text(n))
        return list(found.values())

    def statement_per_choice(self, node, unroll) -> bool:
        """Lowers a statement that reads a pointer selecting between arrays once per side,
        under its condition; False for any other statement. A loop or branch whose head
        reads one is refused (its body's statements are split instead)."""
        if not self.__dict__.get("choices_declared"):
            return False
        if node.type not in LEAVES:
            heads = [c for f in ("initializer", "condition", "update", "value")
                     if (c := node.child_by_field_name(f)) is not None] \
                if node.type not in ("compound_statement",) else []
            for head in heads:
                if self.choices_in(head):
                    raise self.error(head, f"`{short(head)}`: a pointer that selects between "
                                           "arrays read in a loop's or branch's head")
            return False
        auto = node.type == "declaration" and \
            text(node.child_by_field_name("type")).strip() == "auto"
        if node.type == "declaration" and any(
                d.type == "init_declarator" and (
                    d.child_by_field_name("declarator").type == "pointer_declarator" or
                    auto and self.pointer_valued(d.child_by_field_name("value")))
                for d in node.named_children):
            return False     # a pointer computed from it selects too (choice_pointer)
        if node.type == "expression_statement" and node.named_children and \
                self.swap_statement(node.named_children[0]):
            return True
        named = self.choices_in(node)
        if not named:
            return False
        sym, names = named[0]
        if node.type == "declaration":
            self.declared_per_choice(node, sym, names)
            return True
        if node.type == "expression_statement" and len(named) == 1 and \
                self.assignment_per_choice(node.named_children[0], sym, names):
            return True
        self.per_choice(sym, names, node, lambda k: self.statement(node, unroll))
        return True

    def declared_per_choice(self, node, sym: Sym, names: set) -> None:
        """`T v = *p;` of a pointer that selects: `v` declared, then given its value once
        per side."""
        type_node = node.child_by_field_name("type")
        dtype, lanes = self.vtype(type_node, node)
        decls = [d for d in node.named_children if d.type == "init_declarator"]
        for d in decls:
            target, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
            if target.type != "identifier" or value.type == "initializer_list" or \
                    dtype in ("auto", "f16", "bf16"):
                raise self.error(node, f"`{short(node)}`: a variable of this kind given its "
                                       "value through a pointer that selects between arrays "
                                       "(a scalar or vector of a 32- or 64-bit type is read)")
            name = text(target)
            if lanes > 1:
                made = self.array_of(name, dtype, [], False, node, lanes)
                self.per_choice(sym, names, node, lambda k: self.store_vector(
                    made, [const(0)], lanes, value, node))
                continue
            dt = register_type(dtype)
            with self.at(target):
                ref = self.kb.let(name, 0.0 if dt in ("f32", "f64") else 0, dt)
            made = self.declare(name, Sym("local", ref, dt))
            self.per_choice(sym, names, node, lambda k: self.assign_local(
                made, "=", self.expr(value), node))

    @contextlib.contextmanager
    def bound(self, bindings: dict):
        """`bindings` (name -> Sym) in scope inside the block."""
        self.scopes.append(dict(bindings))
        try:
            yield
        finally:
            self.scopes.pop()

    def per_side(self, which, bindings: list, node, lower) -> None:
        """`lower(k)` for side k = 0 where `which` holds and side 1 where not, each with
        `bindings[k]` (name -> Sym) in scope."""
        for k in range(2):
            with self.at(node), (self.kb.if_(which) if k == 0 else self.kb.else_()), \
                    self.bound(bindings[k]):
                lower(k)

    def per_choice(self, sym: Sym, names: set, node, lower) -> None:
        """per_side over the two sides of a pointer that selects, known by `names`."""
        self.per_side(sym.value[0], [{n: sym.value[1 + k] for n in names} for k in range(2)],
                      node, lower)

    def assignment_per_choice(self, e, sym: Sym, names: set) -> bool:
        """`L = R` where one side reads through a pointer that selects and the other does
        not: the other side is one access (as on the GPU, where one instruction serves
        both sides' threads), the selecting side's access one per side, through a value
        held in registers. False for any other statement."""
        if e.type != "assignment_expression":
            return False
        op = e.child_by_field_name("operator").type
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        if self.choices_in(left):
            if self.choices_in(right) or self.vector_place_bound(left, sym, names) or \
                    right.type == "assignment_expression":
                return False
            value = self.expr(right)     # `p[i] = s[j];`: the load once
            with self.at(e):
                held = self.kb.let("chosen", value, value.dtype)
            self.per_choice(sym, names, e, lambda k: self.assign(left, op, held, e))
            return True
        place = self.vector_place(left)
        if place is not None:            # `*(int4 *)&s[i] = *p;`: one store of the vector
            if op != "=":
                return False
            arr, indices, lanes = place
            dtype = register_type(arr.pun or arr.dtype)
            with self.at(e):
                held = [self.kb.let("chosen", 0.0 if dtype in ("f32", "f64") else 0, dtype)
                        for _ in range(lanes)]

            def load(k: int) -> None:
                parts = self.vector_value(right, lanes)
                with self.at(e):
                    for h, part in zip(held, parts):
                        self.kb.assign(h, cast(part, h.dtype))
            self.per_choice(sym, names, e, load)
            self.store_vector(arr, indices, lanes, held, e)
            return True
        with self.bound({n: sym.value[1] for n in names}):   # `s[i] = p[j];`: one store
            dtype = self.trial_type(lambda: self.expr(right), e)
        with self.at(e):
            held = self.kb.let("chosen", 0.0 if dtype.is_float else 0, dtype)
        self.per_choice(sym, names, e, lambda k: self.assign_value(held, right, e))
        self.assign(left, op, held, e)
        return True

    def assign_value(self, ref, node, where) -> None:
        value = self.expr(node)
        with self.at(where):
            self.kb.assign(ref, value)

    def vector_place_bound(self, node, sym: Sym, names: set) -> bool:
        """Whether `node` is a whole vector in memory once `names` are bound to a side."""
        with self.bound({n: sym.value[1] for n in names}):
            return self.vector_place(node) is not None

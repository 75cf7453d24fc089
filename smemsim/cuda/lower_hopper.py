"""Hopper's data path as CUDA writes it: CUtensorMap parameters (what the host encoded,
from --tensor-map), `cuda::barrier` and libcu++'s TMA wrappers (cuda::device::experimental),
and wgmma's matrix descriptors built by the kernel's own helpers from a shared address.

A descriptor is read by value, not guessed: the helper's body is evaluated with the shared
address as a symbol (`Descriptor`), so `((addr & 0x3FFFF) >> 4) | (16 >> 4) << 16 | ...`
gives the start element and the constant fields the hardware decodes (kernels_ir.wgmma)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from kernels_ir import Expr, KernelError, const, located
from kernels_ir.tma import tensor_strides
from kernels_ir.wgmma import decode

from ..tensor_maps import missing, parse_spec, tensor_length

from .literals import literal_type
from .parse import parse_expression, pointer_cast_parts, short, subscript_index, text, walk
from .symbols import SIZES, TYPES, VECTORS, Sym, array_name, callee_name, fold

# libcu++'s free functions of cuda::device(::experimental) this file lowers, by last name
HOPPER_FUNCTIONS = ("init", "fence_proxy_async_shared_cta", "barrier_arrive_tx",
                    "barrier_expect_tx", "cp_async_bulk_commit_group",
                    "cp_async_bulk_wait_group_read", "cp_async_bulk_wait_group")
TMA_WRAPPER = re.compile(r"cp_async_bulk_tensor_([1-5])d_(global_to_shared|shared_to_global)")
U64 = (1 << 64) - 1


@dataclass(frozen=True)
class Descriptor:
    """A 64-bit value computed from a shared address: ((address + add) & 0x3FFFF) >> 4,
    shifted left by `shl`, OR-ed with the constant `bits`. `place` is the address's
    (array Sym, indices); `masked`/`shr` record how far the start-field form is built."""

    place: tuple
    add: object = 0       # bytes added to the address (raw, or 16 per start-field unit); an
    #                       Expr for a run-time number of 16-byte steps (`desc + 2 * k`)
    masked: bool = False  # & 0x3FFFF (or >> 4 then & 0x3FFF) applied
    shr: int = 0
    shl: int = 0
    bits: int = 0

    def start(self):
        """(place, bytes added, constant bits) when this is a descriptor's start field plus
        constant fields, else None."""
        if self.masked and self.shr == 4 and self.shl == 0 and not self.bits & 0x3FFF:
            return self.place, self.add, self.bits
        return None


class HopperMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    # ------------------------------------------------------------ tensor maps
    def tensor_map_param(self, p) -> bool:
        """`const CUtensorMap* map` / `const __grid_constant__ CUtensorMap map`: the map the
        host encoded, as --tensor-map describes it (the host's cuTensorMapEncodeTiled
        arguments are computed at run time, usually in another function)."""
        if "CUtensorMap" not in text(p.child_by_field_name("type")):
            return False
        d = p.child_by_field_name("declarator")
        while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
            d = d.child_by_field_name("declarator") or d.named_children[-1]
        if d is None or d.type != "identifier":
            raise self.error(p, f"kernel parameter `{short(p)}`: one CUtensorMap expected")
        name = text(d)
        spec = self.u.options.tensor_maps.get(name)
        if spec is None:
            raise self.error(p, missing(name))
        try:
            parsed = parse_spec(name, spec)
        except KernelError as err:
            raise self.error(p, err.message) from None
        tensor, ctype = parsed.tensor, parsed.ctype
        dtype = TYPES.get(ctype, self.u.typedefs.get(ctype, ctype))
        if dtype not in SIZES:
            raise self.error(p, f"--tensor-map {name}: element type '{ctype}' is not one the "
                                f"IR has (its types: {', '.join(sorted(set(TYPES.values())))})")
        from .unit import lowering_expr
        what = f"--tensor-map {name}"
        shape = [lowering_expr(self.u, d, self, what) for d in parsed.extents]
        strides = None
        if any(x is not None for x in parsed.strides):   # given strides; the rest row-major
            strides = tensor_strides(shape, [lowering_expr(self.u, x, self, what)
                                             if x is not None else None
                                             for x in parsed.strides[:-1]])
        extents = []
        for b in parsed.box:
            v = fold(lowering_expr(self.u, b, self, f"--tensor-map {name}"))
            if v is None:
                raise self.error(p, f"--tensor-map {name}: the box extent `{b}` must be a "
                                    "compile-time constant")
            extents.append(v)
        arr = None
        sym = self.declared(tensor)
        if sym is not None and sym.kind == "global":
            if sym.dtype != dtype:
                raise self.error(p, f"--tensor-map {name}: '{tensor}' holds {sym.dtype}, "
                                    f"the map {dtype}")
            arr = sym.value
        with self.at(p):
            if arr is None:   # the tensor is not a parameter: the host passed only the map
                arr = self.kb.global_array(tensor, dtype, tensor_length(shape, strides),
                                           intent="inout")
            tm = self.kb.tensor_map(name, arr, tuple(shape), tuple(extents), parsed.swizzle,
                                    strides=strides)
        self.declare(name, Sym("tensor_map", tm, dtype))
        return True

    def tensor_map_or_none(self, node) -> Sym | None:
        """The tensor map `map`, `&map`, `reinterpret_cast<uint64_t>(map)` names, or None."""
        node = self.uncast(node, ("&",))
        sym = self.declared(text(node)) if node.type == "identifier" else None
        return sym if sym is not None and sym.kind == "tensor_map" else None

    def tensor_map_arg(self, node):
        """The TensorMap a call passes (`map`, `&map`, through casts)."""
        sym = self.tensor_map_or_none(node)
        if sym is None:
            raise self.error(node, f"`{short(node)}`: a CUtensorMap kernel parameter expected")
        return sym.value

    # ------------------------------------------------------------ cuda::barrier
    def is_barrier_type(self, t: str) -> bool:
        """Whether a type name is cuda::barrier<...> (or a `using` name for it)."""
        return t in self.u.barrier_types or \
            re.fullmatch(r"(::)?(cuda::)?barrier\s*<.*>", t) is not None

    def hopper_declaration(self, node, type_node, shared: bool) -> bool:
        """`__shared__ barrier bar;` or `bar[n]` (mbarriers: u64 in shared memory, and this
        thread's phase parity per barrier, flipped at each of its arrivals) and
        `barrier::arrival_token t [= ...];` (the parity an arrival saw: what a wait needs)."""
        t = self.type_name(type_node, node)
        token = t.endswith("arrival_token")
        if not token and not self.is_barrier_type(t):
            return False
        for d in node.named_children:
            if d == type_node or d.type in ("type_qualifier", "storage_class_specifier",
                                            "attribute_specifier"):
                continue
            if token:
                if d.type == "init_declarator" and \
                        d.child_by_field_name("declarator").type == "identifier":
                    name = text(d.child_by_field_name("declarator"))
                    value = self.expr(d.child_by_field_name("value"))
                elif d.type == "identifier":
                    name, value = text(d), const(0)
                else:
                    raise self.error(node, f"`{short(node)}`: one token per name expected")
                with self.at(d):
                    self.declare(name, Sym("local", self.kb.let(name, value, "u32"), "u32"))
                continue
            if not shared:
                raise self.error(node, f"`{short(node)}`: a cuda::barrier the importer reads "
                                       "lives in shared memory (__shared__)")
            count = None
            if d.type == "array_declarator":
                count = self.constant_int(d.child_by_field_name("size"), "a barrier count")
                d = d.child_by_field_name("declarator")
            if d.type != "identifier":
                raise self.error(node, f"`{short(node)}`: a barrier or a one-dimensional array "
                                       "of them, without an initializer, expected")
            name = text(d)
            group = self.barrier_groups().get(name) if count is None else None
            if group is not None:   # one of barriers a pointer switches between
                self.declare(name, self.grouped_barrier(name, group, d))
                continue
            with self.at(d):
                arr = self.kb.shared(name, "u64", (count or 1,), align=8)
                if count is None:
                    phase = Sym("local", self.kb.let(f"{name}_phase", 0, "u32"), "u32")
                else:
                    phase = Sym("register", self.kb.local_array(f"{name}_phase", "u32",
                                                                (count,)), "u32")
            self.declare(name, Sym("mbarrier", arr, "u64", 1, 1 if count else 0, place=phase))
        return True

    def barrier_groups(self) -> dict[str, tuple[str, ...]]:
        """Barriers that one pointer holds in turn (`auto front = &a, back = &b;` then
        `front = back;`: siboehm's double buffering swaps two every iteration), by name: each
        name -> its group, in the order first named. Read from the kernel's text once:
        pointers initialized or assigned `&x`, and copied into each other."""
        if self.barrier_group_names is not None:
            return self.barrier_group_names
        targets: dict[str, list[str]] = {}   # pointer -> names whose address it holds
        links: list[tuple[str, str]] = []    # pointer copied into pointer
        for n in walk(self.node):
            if n.type == "init_declarator":
                left, right = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            elif n.type == "assignment_expression" and text(n.child_by_field_name(
                    "operator")) == "=":
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            else:
                continue
            if left is None or right is None or left.type != "identifier":
                continue
            if right.type == "pointer_expression" and right.children[0].type == "&" and \
                    right.named_children[0].type == "identifier":
                named = targets.setdefault(text(left), [])
                if text(right.named_children[0]) not in named:
                    named.append(text(right.named_children[0]))
            elif right.type == "identifier":
                links.append((text(left), text(right)))
        changed = True
        while changed:   # a copy holds what its source holds, both ways (`tmp` swaps)
            changed = False
            for a, b in links:
                if a in targets or b in targets:
                    merged = list(dict.fromkeys(targets.get(a, []) + targets.get(b, [])))
                    if merged != targets.get(a) or merged != targets.get(b):
                        targets[a] = targets[b] = merged
                        changed = True
        groups: dict[str, tuple[str, ...]] = {}
        for named in targets.values():
            if len(named) > 1:
                group = tuple(dict.fromkeys(
                    [x for m in named for x in groups.get(m, (m,))]))
                for m in group:
                    groups[m] = group
        self.barrier_group_names = groups
        return groups

    def grouped_barrier(self, name: str, group: tuple[str, ...], node) -> Sym:
        """Barrier `name` of a group a pointer switches between: an element of one array of
        the group's barriers (made at the first one declared), so that the pointer is an
        index into it (nvcc addresses the same barriers through the pointer)."""
        key = ("barrier_group",) + group
        whole = self.static_shared.get(key)
        if whole is None:
            joined = "_".join(group)
            with self.at(node):
                arr = self.kb.shared(joined, "u64", (len(group),), align=8)
                phase = Sym("register", self.kb.local_array(f"{joined}_phase", "u32",
                                                            (len(group),)), "u32")
            whole = self.static_shared[key] = Sym("mbarrier", arr, "u64", 1, 1, place=phase)
        return Sym("mbarrier", whole.value, "u64", 1, 0,
                   ("element", whole, const(group.index(name))))

    def barrier_or_none(self, node):
        """(barrier Sym, index) that `bar`, `&bar`, `*p`, `bar[i]` or `(bar)` names, or None."""
        found = self.names_barrier(node)
        if found is None:
            return None
        sym, index = found
        return sym, (index if isinstance(index, Expr) else self.index(index))

    def barrier_alias(self, name: str, found, node) -> Sym:
        """A name bound to the barrier `found` (Sym, index), its index as it is now: a
        reference parameter, or a pointer (a local holding the index where the pointer is
        assigned again, or copies one that is)."""
        bar, index = found
        if fold(index) is None or name in self.u.assigned:
            with self.at(node):
                index = self.kb.let(f"{name}_which", index, "i32")
        return Sym("mbarrier", bar.value, "u64", 1, 0, ("element", bar, index))

    def barrier_pointer(self, name: str, value, node):
        """The Sym of `auto p = &bar;` (or `= q`, another pointer to a barrier), or None when
        `value` names no barrier."""
        if value.type == "identifier":
            sym = self.declared(text(value))
            if sym is None or sym.kind != "mbarrier" or not isinstance(sym.place, tuple):
                return None
        elif not (value.type == "pointer_expression" and value.children[0].type == "&"):
            return None
        found = self.barrier_or_none(value)
        return None if found is None else self.barrier_alias(name, found, node)

    def repoint_barrier(self, sym: Sym, right, node) -> None:
        """`p = q;` / `p = &bar;` of a pointer that switches between barriers (one group)."""
        found = self.barrier_or_none(right)
        index = sym.place[2] if isinstance(sym.place, tuple) else None
        if found is None or index is None or not isinstance(index, Expr) or \
                fold(index) is not None or found[0].value is not sym.value:
            raise self.error(node, f"`{short(node)}`: a barrier is not assigned; a pointer to "
                                   "one is assigned the address of another of the barriers "
                                   "it switches between")
        with self.at(node):
            self.kb.assign(index, found[1])

    def names_barrier(self, node):
        """(barrier Sym, index: an Expr, or the subscript's node, not yet evaluated) that a
        node names, or None; nothing is lowered."""
        index = None
        while node.type in ("parenthesized_expression", "pointer_expression",
                            "subscript_expression"):
            if node.type == "subscript_expression":
                if index is not None:
                    return None
                index = subscript_index(node)
                node = node.child_by_field_name("argument")
            else:
                node = node.named_children[-1]
        sym = self.declared(text(node)) if node.type == "identifier" else None
        if sym is None or sym.kind != "mbarrier":
            return None
        if isinstance(sym.place, tuple):   # `T& b` bound to an element `full[q]`
            return (sym.place[1], sym.place[2]) if index is None else None
        if (index is None) != (not sym.rank):
            return None   # an array of barriers is used by element, a barrier whole
        return sym, (const(0) if index is None else index)

    def barrier_arg(self, node):
        """(barrier Sym, index) a call passes, or a located error."""
        found = self.barrier_or_none(node)
        if found is None:
            raise self.error(node, f"`{short(node)}`: a __shared__ cuda::barrier (or an "
                                   "element of an array of them) expected")
        return found

    def memcpy_async(self, node, args):
        """`cuda::memcpy_async(dst, src, size, barrier)` by one thread, global to shared, as
        CUDA 13's libcu++ (cuda/__memcpy_async/) builds it for sm_90: where `size` promises 16
        bytes of alignment (`cuda::aligned_size_t<16>(n)`, or the element type's), one
        cp.async.bulk of n bytes on the barrier, then mbarrier.expect_tx(n) (its phase waits
        for them, no arrival); 4 or 8: cp.async pieces of that many bytes, then
        cp.async.mbarrier.arrive (the phase waits for them too). Below sm_90 the bulk copy is
        not there: 16-byte cp.async pieces."""
        if len(args) != 4:
            raise self.error(node, f"`{short(node)}`: memcpy_async(dst, src, size, barrier) by "
                                   "one thread is read (the group form, whose threads share "
                                   "the copy, is not yet)")
        dst, src = self.pointer_place(args[0], node), self.pointer_place(args[1], node)
        (d, d_idx), (g, g_idx) = dst, src
        if g.kind != "global" or d.kind not in ("shared", "cell"):
            raise self.error(node, f"`{short(node)}`: memcpy_async from global to shared memory "
                                   "is read (libcu++ copies any other way with ordinary loads "
                                   "and stores)")
        nbytes, promised = self.copy_size(args[2], node)
        align = max(promised, SIZES[d.dtype], self.pointee_alignment(args[0]))
        bar, index = self.barrier_arg(args[3])
        if align >= 16 and self.u.options.arch >= 900:
            with self.at(node):
                self.kb.bulk_load(d.value, tuple(d_idx), g.value, tuple(g_idx), nbytes,
                                  bar.value, index)
                self.kb.mbarrier_expect_tx(bar.value, index, nbytes)
            return const(0)
        self.copy_pieces(node, dst, src, nbytes, align)
        with self.at(node):
            self.kb.cp_async_arrive(bar.value, index)
        return const(0)

    def pointee_alignment(self, node) -> int:
        """alignof the type a pointer argument of memcpy_async points to, where it is a
        vector (libcu++ copies with the larger of it and what the size promises:
        `reinterpret_cast<float4 *>(&As[y][x])` promises 16 bytes): a vector pointer local
        or a cast written in the call; 1 for anything else (the caller adds the element's)."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        sym = self.vector_pointer(node)
        if sym is not None:
            dtype, lanes = sym.dtype, sym.lanes
        else:
            parts = pointer_cast_parts(node)
            if parts is None:
                return 1
            t = parts[0]
            if not t.endswith("*") or t.rstrip("*").strip() not in VECTORS:
                return 1
            dtype, lanes = VECTORS[t.rstrip("*").strip()]
        # CUDA's vector types of 2 and 4 lanes are aligned to their size, of 3 to a lane's
        return SIZES[dtype] * (lanes if lanes in (2, 4) else 1)

    def copy_size(self, node, where) -> tuple[int, int]:
        """(bytes, alignment promised) of memcpy_async's size, a compile-time byte count:
        `cuda::aligned_size_t<A>(n)` (or `{n}`) promises A; a plain size (`sizeof(float)`)
        nothing beyond the type's (1); a local made of one (`const auto shape4 =
        cuda::aligned_size_t<16>(16)`) what it was made of."""
        count, promised = self.copy_size_parts(node, where)
        if not isinstance(count, int):
            count = self.constant_int(count, "a copy size")
        return count, max(promised, 1)

    def copy_size_parts(self, node, where) -> tuple:
        """(the byte count's node, or its value where a local holds it; the alignment
        promised, 0 for none) of a memcpy_async size (copy_size's forms)."""
        if node.type == "identifier" and (sym := self.declared(text(node))) is not None and \
                sym.kind == "size":
            return sym.value
        if node.type in ("call_expression", "compound_literal_expression"):
            call = node.type == "call_expression"
            head = node.child_by_field_name("function" if call else "type")
            m = re.fullmatch(r"(?:(?:::)?cuda\s*::\s*)?aligned_size_t\s*<(.+)>", text(head),
                             re.S)
            if m is not None:
                inner = node.child_by_field_name("arguments" if call else "value")
                if len(inner.named_children) != 1:
                    raise self.error(where, f"`{short(node)}`: aligned_size_t<A>(n) expected")
                promised = self.constant_int(self.parsed_expression(m.group(1), node),
                                             "an alignment")
                return inner.named_children[0], promised
        return node, 0

    def arrive(self, bar, expect_tx, node):
        """This thread arrives (raising the phase's expected bytes by expect_tx): its token is
        the parity it held, which then flips. Exact when each thread arrives once per phase,
        as a barrier initialized with the count of the threads that arrive requires."""
        sym, index = bar
        phase = sym.place
        with self.at(node):
            held = phase.value if phase.kind == "local" else \
                self.load_element(phase, [index], node)
            token = self.kb.let(f"{array_name(sym)}_token", held, "u32")
            self.kb.mbarrier_arrive(sym.value, index, expect_tx)
        if phase.kind == "local":
            with self.at(node):
                self.kb.assign(phase.value, phase.value ^ 1)
        else:
            self.store_element(phase, [index], "^=", const(1, token.dtype), node)
        return token

    def barrier_member(self, node, bar, member: str, args):
        """`bar.arrive()`, `bar.wait(token)`, `bar.arrive_and_wait()` (bar an element of an
        array of barriers too)."""
        sym, index = bar
        if member == "arrive":
            if args and fold(self.expr(args[0])) != 1:
                raise self.error(node, f"`{short(node)}`: an arrival counts once here "
                                       "(arrive(1))")
            return self.arrive(bar, None, node)
        if member == "wait" and len(args) == 1:
            token = args[0]
            if token.type == "call_expression" and \
                    callee_name(token.child_by_field_name("function")) == "move":
                token = token.child_by_field_name("arguments").named_children[0]
            parity = self.expr(token)
            with self.at(node):
                self.kb.mbarrier_wait(sym.value, index, parity)
            return const(0)
        if member == "arrive_and_wait" and not args:
            token = self.arrive(bar, None, node)
            with self.at(node):
                self.kb.mbarrier_wait(sym.value, index, token)
            return const(0)
        raise self.error(node, f"`{short(node)}`: cuda::barrier's {member} is not read by the "
                               "importer (arrive(), wait(token), arrive_and_wait() are)")

    def hopper_call(self, node, name: str, args):
        """libcu++'s TMA and barrier functions; None when `name` is not one."""
        last = callee_name(node.child_by_field_name("function"))
        if last == "memcpy_async" and args and self.barrier_or_none(args[-1]) is not None:
            return self.memcpy_async(node, args)
        wrapper = TMA_WRAPPER.fullmatch(last)
        if last not in HOPPER_FUNCTIONS and wrapper is None:
            return None
        if last == "init":
            if len(args) != 2:
                return None
            sym, index = self.barrier_arg(args[0])
            count = self.expr(args[1])
            with self.at(node):
                self.kb.mbarrier_init(sym.value, index, count)
            return const(0)
        if last == "fence_proxy_async_shared_cta":
            with self.at(node):
                self.kb.fence_proxy_async()
            return const(0)
        if last == "barrier_arrive_tx":
            if len(args) != 3 or self.constant_int(args[1], "an arrival count") != 1:
                raise self.error(node, f"`{short(node)}`: barrier_arrive_tx(bar, 1, bytes) "
                                       "expected (one arrival)")
            return self.arrive(self.barrier_arg(args[0]), self.expr(args[2]), node)
        if last == "barrier_expect_tx":
            raise self.error(node, f"`{short(node)}`: expected bytes without an arrival are not "
                                   "in the IR (use barrier_arrive_tx)")
        if last == "cp_async_bulk_commit_group":
            with self.at(node):
                self.kb.bulk_commit()
            return const(0)
        if last.startswith("cp_async_bulk_wait_group"):
            m = re.search(r"<\s*([^<>]+)\s*>\s*$", text(node.child_by_field_name("function")))
            if m is None:
                raise self.error(node, f"`{short(node)}`: the group count <N> expected")
            pending = self.constant_int(self.parsed_expression(m.group(1), node), "a group count")
            with self.at(node):
                self.kb.bulk_wait(pending, read=last.endswith("_read"))
            return const(0)
        rank = int(wrapper.group(1))
        if wrapper.group(2) == "global_to_shared":
            if len(args) != rank + 3:
                raise self.error(node, f"`{short(node)}`: (dst, map, {rank} coordinate(s), "
                                       "barrier) expected")
            arr, indices = self.pointer_place(args[0], node)
            tm = self.tensor_map_arg(args[1])
            coords = tuple(self.expr(a) for a in reversed(args[2:2 + rank]))
            bar, index = self.barrier_arg(args[-1])
            with self.at(node):
                self.kb.tma_load(tm, arr.value, tuple(indices), coords, bar.value, index)
            return const(0)
        if len(args) != rank + 2:
            raise self.error(node, f"`{short(node)}`: (map, {rank} coordinate(s), src) "
                                   "expected")
        tm = self.tensor_map_arg(args[0])
        coords = tuple(self.expr(a) for a in reversed(args[1:1 + rank]))
        arr, indices = self.pointer_place(args[-1], node)
        with self.at(node):
            self.kb.tma_store(tm, arr.value, tuple(indices), coords)
        return const(0)

    # ------------------------------------------------------------ barrier and copy PTX
    def barrier_ptx(self, e, ins: str, operand, number, labels: set, pieces) -> bool:
        """Raw PTX of mbarriers and bulk tensor copies (hand-written Hopper kernels):
        `mbarrier.init`, `mbarrier.arrive[.expect_tx]` (state `_`), the `try_wait.parity`
        loop (`LAB: try_wait P, [bar], parity; @P bra DONE; bra LAB; DONE:`),
        `cp.async.bulk.tensor.Nd` both ways, bulk commit/wait; False if `ins` is none."""
        mb = r"(?:\.(?:release|acquire|relaxed))?(?:\.(?:cta|cluster))?\.shared(?:::cta)?\.b64"
        branch = re.fullmatch(r"(?:@!?\w+\s+)?bra(?:\.uni)?\s+(\w+)", ins)
        if branch:
            if not any("mbarrier.try_wait" in p for p in pieces) or \
                    branch.group(1) not in labels:
                raise self.error(e, f"`{ins}`: a branch in inline PTX is read only as the "
                                    "loop of an mbarrier wait")
            return True
        if ins == "fence.mbarrier_init.release.cluster":
            return True   # the IR's init is visible to the async proxy (codegen fences it)
        m = re.fullmatch(r"mbarrier\.init(?:\.shared(?:::cta)?)?\.b64\s*\[([^\]]+)\]\s*,"
                         r"\s*(.+)", ins)
        if m:
            arr, index = self.ptx_barrier(e, ins, m.group(1), operand)
            count = self.ptx_value(e, m.group(2), operand, number)
            with located(self.asm_line(e)):   # where nvcc puts it
                self.kb.mbarrier_init(arr.value, index, count)
            return True
        m = re.fullmatch(r"mbarrier\.arrive(\.expect_tx)?" + mb + r"\s+(\S+)\s*,\s*"
                         r"\[([^\]]+)\](?:\s*,\s*(.+))?", ins)
        if m:
            if m.group(2) != "_":
                raise self.error(e, f"`{ins}`: the arrival's state is not read (write `_` and "
                                    "wait by phase parity)")
            arr, index = self.ptx_barrier(e, ins, m.group(3), operand)
            tx = None
            if m.group(1):
                if m.group(4) is None:
                    raise self.error(e, f"`{ins}`: the expected bytes are missing")
                tx = self.ptx_value(e, m.group(4), operand, number)
            elif m.group(4) is not None and (
                    self.constant_int(operand(m.group(4)), "an arrival count")
                    if operand(m.group(4)) is not None else number(m.group(4))) != 1:
                raise self.error(e, f"`{ins}`: an arrival counts once here (count 1)")
            with located(self.asm_line(e)):   # where nvcc puts it
                self.kb.mbarrier_arrive(arr.value, index, tx)
            return True
        m = re.fullmatch(r"mbarrier\.try_wait\.parity" + mb + r"\s+(\w+)\s*,\s*"
                         r"\[([^\]]+)\]\s*,\s*(.+)", ins)
        if m:
            pred = m.group(1)
            loops = any(re.fullmatch(rf"@{pred}\s+bra(?:\.uni)?\s+\w+", p.strip())
                        for p in pieces) and any(
                re.fullmatch(r"bra(?:\.uni)?\s+\w+", re.sub(r"^\w+\s*:\s*", "", p.strip()))
                for p in pieces)
            if not loops:
                raise self.error(e, f"`{ins}`: a try_wait is read as a wait when it loops "
                                    "until its predicate is set (@P bra DONE; bra LOOP)")
            arr, index = self.ptx_barrier(e, ins, m.group(2), operand)
            parity = self.ptx_value(e, m.group(3), operand, number)
            with located(self.asm_line(e)):   # where nvcc puts it
                self.kb.mbarrier_wait(arr.value, index, parity)
            return True
        m = re.fullmatch(r"cp\.async\.bulk\.tensor\.([1-5])d\.shared::(?:cluster|cta)\.global"
                         r"\.tile\.mbarrier::complete_tx::bytes\s*\[([^\]]+)\]\s*,\s*"
                         r"\[([^,\]]+),\s*\{([^}]*)\}\s*\]\s*,\s*\[([^\]]+)\]", ins)
        if m:
            dst = self.ptx_place(e, ins, m.group(2), operand)
            tm = self.ptx_tensor_map(e, ins, m.group(3), operand)
            coords = self.ptx_coords(e, ins, int(m.group(1)), m.group(4), operand, number, tm)
            arr, index = self.ptx_barrier(e, ins, m.group(5), operand)
            with located(self.asm_line(e)):   # where nvcc puts it
                self.kb.tma_load(tm, dst[0].value, tuple(dst[1]), coords, arr.value, index)
            return True
        m = re.fullmatch(r"cp\.async\.bulk\.tensor\.([1-5])d\.global\.shared::cta\.bulk_group"
                         r"\s*\[([^,\]]+),\s*\{([^}]*)\}\s*\]\s*,\s*\[([^\]]+)\]", ins)
        if m:
            tm = self.ptx_tensor_map(e, ins, m.group(2), operand)
            coords = self.ptx_coords(e, ins, int(m.group(1)), m.group(3), operand, number, tm)
            src = self.ptx_place(e, ins, m.group(4), operand)
            with located(self.asm_line(e)):   # where nvcc puts it
                self.kb.tma_store(tm, src[0].value, tuple(src[1]), coords)
            return True
        if ins == "cp.async.bulk.commit_group":
            with located(self.asm_line(e)):   # where nvcc puts it
                self.kb.bulk_commit()
            return True
        m = re.fullmatch(r"cp\.async\.bulk\.wait_group(\.read)?\s+(\S+)", ins)
        if m:
            pending = fold(self.ptx_value(e, m.group(2), operand, number))
            with located(self.asm_line(e)):   # where nvcc puts it
                self.kb.bulk_wait(pending, read=m.group(1) is not None)
            return True
        return False

    def ptx_place(self, e, ins: str, token: str, operand):
        """(array Sym, indices) of a shared-address operand."""
        node = operand(token)
        place = self.shared_address(node) if node is not None else None
        if place is None:
            raise self.error(e, f"`{ins[:70]}`: the shared address `{token}` must be an "
                                "operand holding __cvta_generic_to_shared(&array[index])")
        return place

    def ptx_barrier(self, e, ins: str, token: str, operand):
        """(barrier array Sym, index) of an mbarrier-address operand."""
        arr, indices = self.ptx_place(e, ins, token, operand)
        if arr.dtype not in ("u64", "i64") or len(indices) != 1:
            raise self.error(e, f"`{ins[:70]}`: an mbarrier is a 64-bit element of a "
                                f"one-dimensional shared array ('{array_name(arr)}' is not)")
        return arr, indices[0]

    def ptx_value(self, e, token: str, operand, number):
        """An operand's value (`%n`), or a literal number's."""
        node = operand(token)
        return self.expr(node) if node is not None else const(number(token))

    def ptx_tensor_map(self, e, ins: str, token: str, operand):
        """The TensorMap whose address an operand holds."""
        node = operand(token)
        sym = self.tensor_map_or_none(node) if node is not None else None
        if sym is None:
            raise self.error(e, f"`{ins[:70]}`: the tensor map `{token}` must be an operand "
                                "holding a CUtensorMap parameter's address")
        return sym.value

    def ptx_coords(self, e, ins: str, rank: int, text_: str, operand, number, tm):
        """A copy's coordinates, outermost first (PTX lists them innermost first)."""
        parts = [p.strip() for p in text_.split(",")]
        if len(parts) != rank or rank != tm.rank:
            raise self.error(e, f"`{ins[:70]}`: a {rank}-D copy of the {tm.rank}-D tensor map "
                                f"'{tm.name}' (the IR has 1-D and 2-D maps)")
        return tuple(self.ptx_value(e, p, operand, number) for p in reversed(parts))

    def parsed_expression(self, source: str, node):
        """A C expression in text (a template argument) as a syntax node."""
        parsed = parse_expression(source)
        if parsed is None:
            raise self.error(node, f"`{source}` is not a C expression")
        return parsed

    # ------------------------------------------------------------ descriptors
    def mentions_shared_address(self, node, depth: int = 0) -> bool:
        """Whether a value is computed from a shared address (directly, through a local
        holding one, or inside a __device__ helper it calls)."""
        for n in walk(node):
            if n.type == "identifier":
                if text(n) == "__cvta_generic_to_shared":
                    return True
                sym = self.declared(text(n))
                if sym is not None and sym.kind in ("smem_address", "descriptor"):
                    return True
            if n.type == "call_expression" and depth < 4:
                fname = callee_name(n.child_by_field_name("function"))
                for f in self.u.functions.get(fname, []):
                    if self.mentions_shared_address(f.child_by_field_name("body"), depth + 1):
                        return True
        return False

    def descriptor_local(self, name: str, value, node) -> bool:
        """`uint64_t desc = make_desc(&sA[i]);`: a matrix descriptor, held by value (a
        Descriptor); False when the value is not computed from a shared address."""
        if value is None or not self.mentions_shared_address(value):
            return False
        if self.shared_address(value) is not None:
            return False   # a plain shared address (`size_t a = __cvta_generic_to_shared(p)`)
        v = self.desc_value(value, {}, node, 0)
        if not isinstance(v, Descriptor) or v.start() is None:
            return False   # not a descriptor (the usual lowering says what it is)
        self.declare(name, Sym("descriptor", None, "u64", place=v))
        return True

    def desc_place(self, node, env: dict, where):
        """(shared array Sym, indices) a pointer in a descriptor's computation names."""
        node = self.uncast(node)
        if node.type == "identifier" and isinstance(env.get(text(node)), tuple):
            return env[text(node)]
        arr, indices = self.pointer_place(node, where)
        if arr.kind != "shared":
            raise self.error(where, f"`{short(node)}`: '{array_name(arr)}' is not a __shared__ "
                                    "array")
        return arr, list(indices)

    def desc_value(self, node, env: dict, where, depth: int):
        """An int, or a Descriptor, of an expression of a descriptor's computation."""
        if depth > 64:
            raise self.error(where, "a descriptor computed too deeply to read")
        t = node.type
        if t == "number_literal":
            return literal_type(text(node))[0] & U64
        if t == "parenthesized_expression":
            return self.desc_value(node.named_children[0], env, where, depth + 1)
        if t == "identifier" and text(node) in env:
            v = env[text(node)]
            if isinstance(v, tuple):
                raise self.error(node, f"`{text(node)}`: a pointer as a descriptor's value")
            return v
        if t == "identifier":
            sym = self.lookup(text(node), node)
            if sym.kind == "smem_address":
                return Descriptor(sym.place)
            if sym.kind == "descriptor":
                return sym.place
        if t == "cast_expression":
            v = self.desc_value(node.child_by_field_name("value"), env, where, depth + 1)
            return self.desc_cast(v, text(node.child_by_field_name("type")), node)
        if t == "call_expression":
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments").named_children
            name = callee_name(fn)
            if name in ("static_cast", "reinterpret_cast") and len(args) == 1:
                v = self.desc_value(args[0], env, where, depth + 1)
                return self.desc_cast(v, text(fn.child_by_field_name("arguments")), node)
            if name == "__cvta_generic_to_shared" and len(args) == 1:
                return Descriptor(self.desc_place(args[0], env, node))
            if name in self.u.functions:
                return self.desc_call(self.u.functions[name][0], args, env, node, depth + 1)
            if (name in TYPES or name in self.u.typedefs) and len(args) == 1:
                return self.desc_cast(self.desc_value(args[0], env, where, depth + 1), name,
                                      node)
        if t == "binary_expression":
            op = node.child_by_field_name("operator").type
            a = self.desc_value(node.child_by_field_name("left"), env, where, depth + 1)
            b = self.desc_value(node.child_by_field_name("right"), env, where, depth + 1)
            return self.desc_binary(op, a, b, node)
        # anything else is a number of the kernel's scope: a compile-time one (a template
        # argument, a constant) or a run-time integer (a loop's step along K)
        e = self.expr(node)
        v = fold(e)
        if isinstance(v, float) or (v is None and e.dtype.is_float):
            raise self.error(node, f"`{short(node)}` in a matrix descriptor's computation: "
                                   "an integer (or the shared address) expected")
        return e if v is None else v & U64

    def desc_cast(self, v, type_text: str, node):
        """A C cast of a descriptor's number (32-bit types keep the low half)."""
        bits = 32 if re.search(r"\b(uint32_t|int32_t|int|unsigned(?! long)|unsigned int)\b",
                               type_text) and "long" not in type_text else 64
        if isinstance(v, int):
            return v & ((1 << bits) - 1)
        return v   # a shared address fits in 32 bits; the start field in 14

    def desc_binary(self, op: str, a, b, node):
        """C's `a op b` in a descriptor's computation (numbers, run-time integers, or the
        shared address as it becomes the start field)."""
        if not isinstance(a, Descriptor) and not isinstance(b, Descriptor) and \
                not (isinstance(a, int) and isinstance(b, int)):
            # a run-time integer (an Expr) with another number: C's arithmetic
            return self.c_binary(op, a if not isinstance(a, int) else const(a),
                                 b if not isinstance(b, int) else const(b), node)
        if isinstance(a, int) and isinstance(b, int):
            ops = {"|": lambda: a | b, "&": lambda: a & b, "^": lambda: a ^ b,
                   "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                   "<<": lambda: a << b, ">>": lambda: a >> b,
                   "/": lambda: a // b if b else None}
            if op not in ops or ops[op]() is None:
                raise self.error(node, f"`{short(node)}`: operator {op} in a descriptor")
            return ops[op]() & U64
        if isinstance(b, Descriptor) and op in ("|", "+", "^") and not isinstance(a, Descriptor):
            a, b = b, a
        if isinstance(a, Descriptor) and not isinstance(b, (int, Descriptor)):
            # a run-time number of 16-byte steps of the start field (`desc + 2 * kk`)
            if op in ("+", "-") and a.masked and a.shr == 4 and a.shl == 0:
                steps = b if op == "+" else self.c_binary("-", const(0), b, node)
                added = self.c_binary("*", steps, const(16), node)
                return replace(a, add=added if isinstance(a.add, int) and a.add == 0 else
                               self.c_binary("+", a.add if not isinstance(a.add, int) else
                                             const(a.add), added, node))
            raise self.error(node, f"`{short(node)}`: a run-time number in a matrix "
                                   "descriptor is read as whole 16-byte steps added to the "
                                   "start field (desc + k)")
        if isinstance(a, Descriptor) and isinstance(b, int):
            d = a
            if op in ("+", "-"):
                step = b if op == "+" else -b
                if not d.masked and d.shr == d.shl == 0 and isinstance(d.add, int):
                    return replace(d, add=d.add + step)
                if d.masked and d.shr == 4 and d.shl == 0 and -(1 << 14) < step < 1 << 14:
                    # whole 16-byte steps of the start field (a larger addend would reach the
                    # other fields: refused below)
                    return replace(d, add=d.add + 16 * step if isinstance(d.add, int) else
                                   self.c_binary("+", d.add, const(16 * step), node))
            elif op == "&":
                if not d.masked and d.shl == 0 and (d.shr, b) in ((0, 0x3FFFF), (4, 0x3FFF)):
                    return replace(d, masked=True)
            elif op == ">>" and d.shl == 0:
                return replace(d, shr=d.shr + b)
            elif op == "<<":
                return replace(d, shl=d.shl + b)
            elif op in ("|", "^") and not (b & d.bits):
                return replace(d, bits=d.bits | b)
        raise self.error(node, f"`{short(node)}`: this use of a shared address in a matrix "
                               "descriptor is not read by the importer (the start field "
                               "((addr & 0x3FFFF) >> 4) OR-ed with constant fields is)")

    def desc_call(self, function, args, env: dict, node, depth: int):
        """A __device__ helper's value with its arguments bound (its statements evaluated)."""
        inner = {}
        for p, a in zip(self.u.params_of(function), args):
            d = p.child_by_field_name("declarator")
            if d is None:
                continue
            pointer = d.type == "pointer_declarator"
            while d.type in ("pointer_declarator", "reference_declarator"):
                d = d.child_by_field_name("declarator") or d.named_children[-1]
            inner[text(d)] = self.desc_place(a, env, node) if pointer else \
                self.desc_value(a, env, node, depth + 1)
        body = function.child_by_field_name("body")
        for s in body.named_children:
            if s.type == "comment":
                continue
            if s.type == "return_statement" and s.named_children:
                return self.desc_value(s.named_children[0], inner, node, depth + 1)
            if s.type == "declaration":
                for d in s.named_children:
                    if d.type == "init_declarator":
                        target = d.child_by_field_name("declarator")
                        inner[text(target)] = self.desc_cast(
                            self.desc_value(d.child_by_field_name("value"), inner, node,
                                            depth + 1), text(s.child_by_field_name("type")), s)
                continue
            if s.type == "expression_statement" and s.named_children and \
                    s.named_children[0].type == "assignment_expression":
                e = s.named_children[0]
                left = e.child_by_field_name("left")
                op = e.child_by_field_name("operator").type
                if left.type == "identifier" and text(left) in inner:
                    value = self.desc_value(e.child_by_field_name("right"), inner, node,
                                            depth + 1)
                    inner[text(left)] = value if op == "=" else \
                        self.desc_binary(op[:-1], inner[text(left)], value, e)
                    continue
            raise self.error(s, f"`{short(s)}` in '{self.u.name_of(function)}': a matrix "
                                "descriptor's helper is read when it is declarations, "
                                "assignments and one return")
        raise self.error(node, f"'{self.u.name_of(function)}' returns no descriptor")

    def descriptor_of(self, node, what: str):
        """(array Sym, indices, constant bits) of a wgmma descriptor operand."""
        v = self.desc_value(node, {}, node, 0)
        start = v.start() if isinstance(v, Descriptor) else None
        if start is None:
            raise self.error(node, f"wgmma's {what} descriptor `{short(node)}`: a value "
                                   "((shared address & 0x3FFFF) >> 4) | constant fields "
                                   "expected")
        (arr, indices), add, bits = start
        esize = SIZES[arr.dtype]
        if isinstance(add, int):
            if add % esize or (add and len(indices) != 1):
                raise self.error(node, f"wgmma's {what} descriptor moves its start by {add} "
                                       "bytes: whole elements of a one-dimensional array "
                                       "expected")
            if add:
                with self.at(node):
                    indices = [indices[0] + add // esize]
            return arr, indices, bits
        if len(indices) != 1:
            raise self.error(node, f"wgmma's {what} descriptor moves its start at run time: "
                                   "a one-dimensional array expected")
        # 16-byte steps: whole elements of any 16-bit (or smaller) type
        return arr, [self.c_binary("+", indices[0],
                                   self.c_binary("/", add, const(esize), node), node)], bits

    # ------------------------------------------------------------ wgmma PTX
    def wgmma_ptx(self, e, ins: str, m, operand, immediate, outputs: int, preds: dict):
        """`wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {d...}, descA, descB, scale-d,
        1, 1, tnspA, tnspB`: the builder's wgmma (A and B from shared memory)."""
        n, ta, tb = int(m.group(1)), m.group(2), m.group(3)
        if ta != tb:
            raise self.error(e, f"`{ins[:60]}...`: A and B of one type expected")
        regs = [r.strip() for r in m.group(4).split(",")]
        rest_text = m.group(5).strip()
        a_regs = None
        if rest_text.startswith("{"):
            # A from registers: `{a0, a1, a2, a3}, descB, scale-d, scale-a, scale-b, tnsp-b`
            inside, _, rest_text = rest_text[1:].partition("}")
            a_regs = [r.strip() for r in inside.split(",")]
            rest_text = rest_text.lstrip(" ,\n\t")
        rest = [r.strip() for r in rest_text.split(",")]
        if a_regs is not None:
            rest = ["A"] + rest[:4] + ["0"] + rest[4:]   # as the shared form: no tnsp-a
        if len(regs) != n // 2 or len(rest) != 7 or (a_regs is not None and len(a_regs) != 4):
            raise self.error(e, f"wgmma m64n{n}k16: {n // 2} accumulators and descA (or A's "
                                "four registers), descB, scale-d, scale-a, scale-b, tnsp-a "
                                "(none for A in registers), tnsp-b expected")
        acc, lead = None, None
        for k, r in enumerate(regs):
            node = operand(r)
            km = re.fullmatch(r"%(\d+)", r)
            if node is None or km is None or int(km.group(1)) >= outputs:
                raise self.error(e, f"wgmma accumulator `{r}`: an output operand (\"+f\") "
                                    "expected")
            sym, indices = self.indexed(node)
            if sym.kind != "register" or sym.dtype != "f32":
                raise self.error(node, f"`{short(node)}`: wgmma accumulates into a float "
                                       "register array")
            shape = sym.value.shape
            # the accumulators are the trailing dimensions holding n / 2 (the last such split:
            # a leading extent of 1, `float d[1][16][8]`, is a sub-array index)
            split = max((p for p in range(len(shape)) if math.prod(shape[p:]) == n // 2),
                        default=None)
            flat = 0
            for i, size in zip(indices[split or 0:], shape[split or 0:]):
                v = fold(i)
                flat = None if v is None or flat is None else flat * size + v
            here = [str(i) for i in indices[:split]] if split is not None else None
            if split is None or flat != k or (acc is not None and sym is not acc) or \
                    (lead is not None and here != [str(i) for i in lead]):
                raise self.error(node, f"`{short(node)}` as accumulator {k}: the accumulators "
                                       f"are one register array (or sub-array) of {n // 2} "
                                       "floats, element k the k-th")
            acc, lead = sym, indices[:split]
        scale_a, scale_b = immediate(rest[3]), immediate(rest[4])
        if (scale_a, scale_b) != (1, 1):
            raise self.error(e, "wgmma with negated A or B (imm-scale -1) is not in the IR")
        majors = []
        for t in rest[5:]:
            v = immediate(t)
            if v not in (0, 1):
                raise self.error(e, f"wgmma's transpose `{t}`: 0 or 1 expected")
            majors.append("MN" if v else "K")
        if rest[2] in preds:
            scale_d = preds[rest[2]]
        else:
            scale_d = immediate(rest[2])
        operands = []
        if a_regs is not None:
            operands.append(self.wgmma_a_registers(e, a_regs, operand))
        for what, t, major in (("A", rest[0], majors[0]), ("B", rest[1], majors[1])):
            if what == "A" and a_regs is not None:
                continue
            node = operand(t)
            if node is None:
                raise self.error(e, f"wgmma's {what} descriptor `{t}`: an operand expected")
            arr, indices, bits = self.descriptor_of(node, what)
            if arr.dtype != ta:
                raise self.error(node, f"wgmma .{ta} reads '{array_name(arr)}' of {arr.dtype}")
            _, layout = decode(bits, major)   # the fields as the hardware reads them
            operands.append((arr.value, tuple(indices), layout))
        with located(self.asm_line(e)):
            self.kb.wgmma(acc.value, operands[0], operands[1], n, scale_d, tuple(lead))

    def wgmma_a_registers(self, e, names: list, operand):
        """A's fragment for wgmma from registers: the operands must be elements 0..3, in
        order, of one register array of four 32-bit integers (`uint32_t a[4]`), each two
        16-bit elements of A (the lower in the low half)."""
        arr = None
        for k, r in enumerate(names):
            node = operand(r)
            if node is None:
                raise self.error(e, f"wgmma's A register `{r}`: an operand expected")
            sym, indices = self.indexed(node)
            flat = [fold(i) for i in indices]
            if sym.kind != "register" or sym.dtype not in ("u32", "i32") or \
                    math.prod(sym.value.shape) != 4 or flat != [k] or \
                    (arr is not None and sym is not arr):
                raise self.error(node, f"`{short(node)}` as A's register {k}: A's fragment is "
                                       "elements 0..3, in order, of one register array of "
                                       "four 32-bit integers (`uint32_t a[4]`)")
            arr = sym
        if arr.dtype != "u32":
            raise self.error(e, f"wgmma's A registers '{array_name(arr)}': declare them "
                                "uint32_t (the IR's fragments are u32)")
        return arr.value

    def asm_line(self, e):
        """Where nvcc's line information puts an asm statement's instructions: the line of
        its last operand that is not an immediate ("n"), as measured (wgmma, ldmatrix and
        stmatrix statements over several lines, nvcc 13.0); the statement's end if none."""
        operands = [op for lst in e.named_children if lst.type in (
            "gnu_asm_output_operand_list", "gnu_asm_input_operand_list")
            for op in lst.named_children]
        registers = [op for op in operands if not re.search(
            r'"[^"]*[ni][^"]*"', text(op).split("(")[0])]
        return self.u.loc_end(registers[-1]) if registers else self.u.loc_end(e)

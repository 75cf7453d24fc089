"""cp.async and ldmatrix/stmatrix as CUDA writes them: inline PTX, the `__pipeline_*`
intrinsics and a thread's own `cuda::pipeline`."""
from __future__ import annotations

import re

from kernels_ir import (
    Expr,
    SharedArray,
    blockDim,
    call,
    cast,
    const,
    select,
)
from kernels_ir.dtypes import BY_NAME, u32

from .lower_vectors import halves_of, words_of
from .parse import short, split_top_level, text, walk
from .symbols import (
    SIZES,
    Sym,
    array_name,
    callee_name,
    exact_quotient,
    plus,
)


class PtxMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def shared_address(self, node):
        """(array, indices) of `__cvta_generic_to_shared(&s[i]...)` (through casts and
        parentheses) or of a local holding one; else None."""
        if node is None:
            return None
        node = self.uncast(node)
        if node.type == "identifier":
            sym = self.lookup(text(node), node)
            return sym.place if sym.kind == "smem_address" else None
        if node.type == "binary_expression" and \
                text(node.child_by_field_name("operator")) in ("+", "-"):
            # `load_b_smem_ptr + i * 4`: an address moved by a byte offset, a whole number
            # of elements (nothing rounds an address)
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            minus = text(node.child_by_field_name("operator")) == "-"
            for base, offset in ((left, right), (right, left)) if not minus else \
                    ((left, right),):
                place = self.shared_address(base)
                if place is None:
                    continue
                arr, indices = place
                moved = exact_quotient(self.expr(offset), SIZES[arr.dtype])
                if moved is None:
                    raise self.error(node, f"`{short(node)}`: a shared address moved by a "
                                           f"byte offset that is not a multiple of "
                                           f"{SIZES[arr.dtype]} ('{array_name(arr)}' holds "
                                           f"{arr.dtype})")
                moved = -moved if minus else moved
                if arr.rank > 1:
                    # a flat byte offset may cross rows (LeetCUDA's multi-stage tiles:
                    # `smem_a_base_ptr + (k * stage + m * (BK + PAD) + kk) * sizeof(half)`):
                    # the array as one flat row of its elements, padding included
                    flat = arr.value.flat_index(tuple(indices))
                    return self.shared_view(arr, arr.dtype, node), [plus(flat, moved)]
                return arr, indices[:-1] + [plus(indices[-1], moved)]
            return None
        if node.type == "call_expression" and text(node.child_by_field_name("function")) in (
                "__cvta_generic_to_shared", "static_cast<unsigned>(__cvta_generic_to_shared"):
            args = node.child_by_field_name("arguments").named_children
            arr, indices = self.pointer_place(args[0], node)
            if arr.kind not in ("shared", "cell") or not isinstance(arr.value, SharedArray):
                # (a `__shared__` scalar is a cell: an array of one)
                raise self.error(node, f"`{short(node)}`: '{array_name(arr)}' is not a __shared__ "
                                       "array")
            return arr, indices
        return None

    def copy(self, node, dst, src, nbytes: int, bypass: bool) -> None:
        """One cp.async of `nbytes` from global `src` to shared `dst` ((array, indices))."""
        (d, d_idx), (g, g_idx) = dst, src
        if g.kind != "global":
            raise self.error(node, f"`{short(node)}`: cp.async copies from global memory")
        size = SIZES[d.dtype]
        if nbytes not in (4, 8, 16) or nbytes % size or SIZES[g.dtype] != size:
            raise self.error(node, f"`{short(node)}`: cp.async of {nbytes} bytes between "
                                   f"{g.dtype} and {d.dtype} elements (4, 8 or 16 bytes of "
                                   "one element size)")
        with self.at(node):
            self.kb.cp_async(d.value, tuple(d_idx), g.value, tuple(g_idx),
                             width=nbytes // size, bypass=bypass)

    def copy_pieces(self, node, dst, src, nbytes: int, align: int) -> None:
        """cp.async pieces of one thread's copy of `nbytes` (libcu++'s loop): 16-byte ones
        (cp.async.cg) where 16 bytes of alignment are promised, else of the alignment (4 or
        8: cp.async.ca)."""
        (d, d_idx), (g, g_idx) = dst, src
        if align < 4:
            raise self.error(node, f"`{short(node)}`: a copy aligned to {align} bytes: libcu++ "
                                   "copies it with ordinary loads and stores, which this "
                                   "reader does not state (cuda::aligned_size_t<4> or more)")
        piece = min(align, 16)
        if nbytes % piece:
            raise self.error(node, f"`{short(node)}`: {nbytes} bytes in {piece}-byte pieces "
                                   "(libcu++ would copy past the end)")
        size = SIZES[d.dtype]
        for k in range(nbytes // piece):
            step = k * piece // size
            self.copy(node, (d, d_idx[:-1] + [d_idx[-1] + step]),
                      (g, g_idx[:-1] + [g_idx[-1] + step]), piece, piece == 16)

    def pipeline_declaration(self, node, type_node) -> bool:
        """`cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();`: a
        thread's own pipeline, whose stages are cp.async groups (what libcu++ builds it of:
        LDGSTS, LDGDEPBAR, DEPBAR in the SASS). Its two stage counters, as libcu++ keeps
        them (`__head`: stages committed, `__tail`: stages waited for), are locals: they
        decide which group `consumer_wait()` waits for. A block's pipeline:
        `__shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, N> state;` and
        `auto pipe = cuda::make_pipeline(block, &state[, role or producer count]);`
        (block_pipeline)."""
        t = " ".join(text(type_node).split())
        if re.fullmatch(r"(?:::)?(?:cuda\s*::\s*)?pipeline_shared_state\s*<.*>", t):
            self.pipeline_state(node, type_node)
            return True
        decls = [d for d in node.named_children if d.type == "init_declarator"]
        made = decls[0].child_by_field_name("value") if len(decls) == 1 else None
        by_make = made is not None and made.type == "call_expression" and \
            callee_name(made.child_by_field_name("function")) == "make_pipeline"
        if by_make and made.child_by_field_name("arguments").named_children:
            self.block_pipeline(text(decls[0].child_by_field_name("declarator")), made)
            return True
        if not by_make and not re.fullmatch(r"(?:::)?(?:cuda\s*::\s*)?pipeline\s*<.*>", t):
            return False
        if not by_make and "thread_scope_thread" not in t:
            raise self.error(node, f"`{short(node)}`: a block's pipeline is made by "
                                   "cuda::make_pipeline(group, &shared_state, ...)")
        for d in decls:
            name = text(d.child_by_field_name("declarator"))
            with self.at(d):
                counters = (self.kb.let(f"{name}_head", 0, "i32"),
                            self.kb.let(f"{name}_tail", 0, "i32"))
            self.declare(name, Sym("pipeline", ("thread",) + counters))
        return True

    def pipeline_state(self, node, type_node) -> None:
        """`__shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, N> state;`:
        per stage a `produced` and a `consumed` barrier (mbarriers at 2s and 2s + 1 of one
        u64 array), and the count of the threads that produce."""
        m = re.fullmatch(r".*pipeline_shared_state\s*<(.*)>", " ".join(text(type_node).split()))
        args = split_top_level(m.group(1)) if m else []
        if "__shared__" not in text(node).split("pipeline_shared_state")[0] or \
                len(args) != 2 or "thread_scope_block" not in args[0]:
            raise self.error(node, f"`{short(node)}`: a __shared__ cuda::pipeline_shared_state"
                                   "<cuda::thread_scope_block, N> is read")
        stages = self.constant_int(self.parsed_expression(args[1], node), "a stage count")
        for d in node.named_children:
            if d.type != "identifier":
                continue
            name = text(d)
            with self.at(d):
                barriers = self.kb.shared(f"{name}_stages", "u64", (2 * stages,), align=8)
                producers = self.kb.shared(f"{name}_producers", "u32", (1,))
            self.declare(name, Sym("pipeline_state", (barriers, producers, stages)))

    def block_pipeline(self, name: str, call) -> None:
        """`cuda::make_pipeline(block, &state)` (every thread produces and consumes),
        `(block, &state, producer_count)` or `(block, &state, role)` (cuda::pipeline_role
        ::producer or ::consumer), as CUDA 13's libcu++ makes it: thread 0 initializes each
        stage's barriers with the producers' and the consumers' counts (by role: the
        producers are counted first, an atomic add each), and the block syncs. The
        thread's head and tail stage and the parities it waits for are locals."""
        args = call.child_by_field_name("arguments").named_children
        group = self.declared(text(args[0])) if args[0].type == "identifier" else None
        state = self.declared(text(args[1]).lstrip("&").strip()) if len(args) > 1 else None
        if group is None or group.kind != "group" or group.value is not None or \
                state is None or state.kind != "pipeline_state" or len(args) > 3:
            raise self.error(call, f"`{short(call)}`: cuda::make_pipeline(block, &state"
                                   "[, role or producer count]) of this_thread_block() and a "
                                   "__shared__ pipeline_shared_state")
        barriers, producers, stages = state.value
        size = blockDim.x * blockDim.y * blockDim.z
        rank = self.block_rank()
        by_role = len(args) == 3 and self.is_role(args[2])
        with self.at(call):
            if by_role:
                with self.kb.if_(rank == 0):
                    self.kb.store(producers, 0, const(0, u32))
                self.kb.syncthreads()
                with self.kb.if_(self.role(args[2]) == 0):
                    self.kb.atomic(producers, 0, "add", const(1, u32))
                self.kb.syncthreads()
            with self.kb.if_(rank == 0):
                if len(args) == 2:
                    made, used = size, size
                else:
                    made = self.kb.load(producers, 0) if by_role else self.expr(args[2])
                    used = size - made
                for k in range(stages):
                    self.kb.mbarrier_init(barriers, 2 * k, made)
                    self.kb.mbarrier_init(barriers, 2 * k + 1, used)
                if by_role:
                    self.kb.store(producers, 0, cast(size, u32))   # the pipeline's users
            self.kb.syncthreads()
            locals_ = tuple(self.kb.let(f"{name}_{what}", first, "i32") for what, first in (
                ("head", 0), ("tail", 0), ("free_parity", 1), ("full_parity", 0)))
        self.declare(name, Sym("pipeline", ("block", barriers, stages) + locals_))
        self.__dict__.setdefault("block_pipelines", []).append((producers, call))

    def pipelines_quit(self, body) -> None:
        """At the kernel's end each block pipeline's destructor quits: one lane of each warp
        subtracts the warp's threads from the state's count (libcu++'s quit(); its last
        warp then invalidates the barriers, which no counter here shows)."""
        # nvcc puts the destructor on the line of the body's last statement (into the
        # last compound statement or the last if without an else)
        last = body
        while last.type in ("compound_statement", "if_statement"):
            if last.type == "if_statement":
                if last.child_by_field_name("alternative") is not None:
                    break
                last = last.child_by_field_name("consequence")
                continue
            inner = [c for c in last.named_children if c.type != "comment"]
            if not inner:
                break
            last = inner[-1]
        for producers, _ in self.__dict__.get("block_pipelines", []):
            with self.at(last):
                self.kb.atomic(producers, 0, "add", const(0xFFFFFFFF, u32))

    def is_role(self, node) -> bool:
        """Whether an expression is made of cuda::pipeline_role values."""
        return "pipeline_role" in text(node) or (
            node.type == "identifier" and (sym := self.declared(text(node))) is not None and
            sym.kind == "role")

    def role(self, node) -> Expr:
        """A cuda::pipeline_role as a number: producer 0, consumer 1 (`cond ? consumer :
        producer`, or a local holding one)."""
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "identifier" and (sym := self.declared(text(node))) is not None and \
                sym.kind == "role":
            return sym.value
        m = re.fullmatch(r"(?:(?:::)?cuda\s*::\s*)?pipeline_role\s*::\s*(producer|consumer)",
                         text(node))
        if m is not None:
            return const(int(m.group(1) == "consumer"))
        if node.type == "conditional_expression":
            return select(self.expr(node.child_by_field_name("condition")),
                          self.role(node.child_by_field_name("consequence")),
                          self.role(node.child_by_field_name("alternative")))
        raise self.error(node, f"`{short(node)}`: a cuda::pipeline_role expected")

    def block_pipeline_member(self, node, member: str, pipe: tuple) -> None:
        """A block pipeline's members, as libcu++ writes them: producer_acquire waits for
        the head stage's `consumed` phase, producer_commit makes the head stage's
        `produced` barrier wait for the thread's copies (cp.async.mbarrier.arrive) and
        arrives on it, consumer_wait waits for the tail stage's `produced` phase,
        consumer_release arrives on its `consumed` barrier; head and tail go round the
        stages, flipping the parity they wait for at each round."""
        _, barriers, stages, head, tail, free_parity, full_parity = pipe
        with self.at(node):
            if member == "producer_acquire":
                self.kb.mbarrier_wait(barriers, 2 * head + 1, free_parity)
            elif member == "producer_commit":
                self.kb.cp_async_arrive(barriers, 2 * head)
                self.kb.mbarrier_arrive(barriers, 2 * head)
                self.next_stage(head, free_parity, stages)
            elif member == "consumer_wait":
                self.kb.mbarrier_wait(barriers, 2 * tail, full_parity)
            else:   # consumer_release
                self.kb.mbarrier_arrive(barriers, 2 * tail + 1)
                self.next_stage(tail, full_parity, stages)

    def next_stage(self, stage, parity, stages: int) -> None:
        """The next stage round the ring (the parity waited for flips at each round)."""
        stage += 1
        with self.kb.if_(stage == stages):
            stage.set(0)
            parity.set(parity ^ 1)

    def pipeline_or_none(self, node) -> Sym | None:
        """The thread pipeline `node` names, else None."""
        sym = self.declared(text(node)) if node.type == "identifier" else None
        return sym if sym is not None and sym.kind == "pipeline" else None

    def pipeline_member(self, node, member: str, args) -> Expr:
        """A thread's own pipeline's members, as libcu++ writes them: `producer_acquire()`
        and `consumer_release()` do nothing, `producer_commit()` is cp.async.commit_group
        (and counts a stage), `consumer_wait()` waits for the oldest stage not yet waited
        for: cp.async.wait_group of the stages committed after it (8 at most), unless none
        is pending."""
        pipe = self.pipeline_or_none(
            node.child_by_field_name("function").child_by_field_name("argument")).value
        if pipe[0] == "block":
            if args or member not in ("producer_acquire", "producer_commit", "consumer_wait",
                                      "consumer_release"):
                raise self.error(node, f"`{short(node)}`: a block pipeline's {member} is not "
                                       "read (producer_acquire, producer_commit, "
                                       "consumer_wait and consumer_release are)")
            self.block_pipeline_member(node, member, pipe)
            return const(0)
        _, head, tail = pipe
        if member in ("producer_acquire", "consumer_release") and not args:
            return const(0)
        if member == "producer_commit" and not args:
            with self.at(node):
                self.kb.cp_async_commit()
                head += 1
            return const(0)
        if member == "consumer_wait" and not args:
            with self.at(node):
                with self.kb.if_(head != tail):
                    self.wait_for_prior(head - tail - 1)
                    tail += 1
            return const(0)
        raise self.error(node, f"`{short(node)}`: cuda::pipeline's {member} is not read "
                               "(producer_acquire, producer_commit, consumer_wait, "
                               "consumer_release and cuda::pipeline_consumer_wait_prior<N> "
                               "are)")

    def wait_for_prior(self, prior: Expr, k: int = 0) -> None:
        """cp.async.wait_group `prior`, a count known only when the kernel runs, as
        libcu++'s switch writes it: 0..7 each their own, 8 for any more."""
        if k == 8:
            self.kb.cp_async_wait(8)
            return
        with self.kb.if_(prior == k):
            self.kb.cp_async_wait(k)
        with self.kb.else_():
            self.wait_for_prior(prior, k + 1)

    def pipeline_call(self, node, name: str, args) -> Expr | None:
        """`cuda::memcpy_async(dst, src, size, pipe)` (global to shared: cp.async pieces)
        and `cuda::pipeline_consumer_wait_prior<N>(pipe)` (cp.async.wait_group N, and the
        stages before the Nth newest count as waited for); None for any other call."""
        if not args or self.pipeline_or_none(args[-1]) is None:
            return None
        if name == "memcpy_async" and len(args) == 4:
            dst, src = self.pointer_place(args[0], node), self.pointer_place(args[1], node)
            if src[0].kind != "global" or dst[0].kind not in ("shared", "cell"):
                raise self.error(node, f"`{short(node)}`: memcpy_async from global to shared "
                                       "memory is read")
            nbytes, promised = self.copy_size(args[2], node)
            self.copy_pieces(node, dst, src, nbytes, max(promised, SIZES[dst[0].dtype],
                                                          self.pointee_alignment(args[0])))
            return const(0)
        if name == "pipeline_consumer_wait_prior" and len(args) == 1:
            fn = node.child_by_field_name("function")
            while fn.type == "qualified_identifier":
                fn = fn.child_by_field_name("name")
            targs = fn.child_by_field_name("arguments").named_children \
                if fn.type == "template_function" else []
            if len(targs) != 1:
                raise self.error(node, f"`{short(node)}`: pipeline_consumer_wait_prior<N>(pipe)"
                                       " expected")
            prior = self.constant_int(targs[0], "a stage count")
            pipe = self.pipeline_or_none(args[-1]).value
            if pipe[0] != "thread":
                raise self.error(node, f"`{short(node)}`: pipeline_consumer_wait_prior<N> "
                                       "takes a thread's own pipeline")
            _, head, tail = pipe
            with self.at(node):
                # libcu++ waits with min(N, 8) pending and counts the older stages waited for
                self.kb.cp_async_wait(min(prior, 8))
                tail.set(head - prior)
            return const(0)
        raise self.error(node, f"`{short(node)}`: this use of a cuda::pipeline is not read "
                               "(memcpy_async(dst, src, size, pipe), "
                               "pipeline_consumer_wait_prior<N>(pipe) are)")

    def pipeline(self, e, fn: str) -> None:
        """`__pipeline_memcpy_async(dst, src, bytes)` (4 or 8 bytes: cp.async.ca; 16:
        cp.async.cg, as cuda_pipeline_helpers.h emits), `__pipeline_commit()`,
        `__pipeline_wait_prior(n)`."""
        args = e.child_by_field_name("arguments").named_children
        if fn == "__pipeline_commit":
            with self.at(e):
                self.kb.cp_async_commit()
        elif fn == "__pipeline_wait_prior":
            n = self.constant_int(args[0], "a group count")
            with self.at(e):
                self.kb.cp_async_wait(n)
        else:
            if len(args) != 3:
                raise self.error(e, f"`{short(e)}`: only __pipeline_memcpy_async(dst, src, "
                                    "bytes) (no zero fill) is supported")
            nbytes = self.constant_int(args[2], "a copy size")
            self.copy(e, self.pointer_place(args[0], e), self.pointer_place(args[1], e),
                      nbytes, nbytes == 16)

    def inline_ptx(self, e) -> None:
        """`asm volatile("...")` of cp.async (ca/cg, commit_group, wait_group, wait_all),
        ldmatrix/stmatrix, fence.proxy.async and wgmma (fence, commit_group, wait_group,
        mma_async with descriptors): each instruction of the template as the builder's;
        anything else is an error."""
        template = "".join(
            text(n) for lit in e.named_children if lit.type in (
                "string_literal", "concatenated_string")
            for n in walk(lit) if n.type in ("string_content", "escape_sequence"))
        template = template.replace("\\n", " ").replace("\\t", " ")
        operands = [op for lst in e.named_children if lst.type in (
            "gnu_asm_output_operand_list", "gnu_asm_input_operand_list")
            for op in lst.named_children]
        outputs = sum(op.type == "gnu_asm_output_operand" for op in operands)
        values = [op.named_children[-1] for op in operands]

        def operand(t: str):
            m = re.fullmatch(r"%(\d+)", t.strip())
            if m is None:
                return None
            k = int(m.group(1))
            if k >= len(values):
                raise self.error(e, f"inline PTX names %{k}, which is not an operand")
            return values[k]

        def number(t: str) -> int:
            node = operand(t)
            if node is not None:
                return self.constant_int(node, "an inline-PTX number")
            if not re.fullmatch(r"\d+", t.strip()):
                raise self.error(e, f"`{t.strip()}` in inline PTX: a number expected")
            return int(t)

        def immediate(t: str) -> int:
            node = operand(t)
            while node is not None and node.type == "call_expression" and \
                    len(node.child_by_field_name("arguments").named_children) == 1:
                node = node.child_by_field_name("arguments").named_children[0]  # int32_t(N)
            return self.constant_int(node, "an immediate") if node is not None else number(t)

        preds: dict = {}   # `setp.ne.b32 p, %n, 0;` -> the operand's truth
        pieces = [i.strip() for i in template.split(";")]
        labels = set(re.findall(r"(?:^|[;{\s])([A-Za-z_]\w*)\s*:(?!:)", template))
        for ins in pieces:
            # a `{ ... }` scope around the instructions (not a register list), and labels
            ins = re.sub(r"^\{\s*(?=[.A-Za-z@])", "", ins).strip()
            ins = re.sub(r"^(?:[A-Za-z_]\w*\s*:(?!:)\s*)+", "", ins).strip()
            if ins in ("", "}"):
                continue
            if self.barrier_ptx(e, ins, operand, number, labels, pieces):
                continue
            if re.fullmatch(r"\.reg\s+\.pred\s+[\w, ]+", ins):
                continue
            if (m := re.fullmatch(r"setp\.ne\.[bsu]32\s+(\w+)\s*,\s*(%\d+)\s*,\s*0", ins)):
                node = operand(m.group(2))
                with self.at(e):
                    preds[m.group(1)] = self.expr(node) != 0
                continue
            if re.fullmatch(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32\s+\S+", ins):
                # a warpgroup gives registers to another within what the block was given
                # at launch: no shared memory, no value, no occupancy change (the launch's
                # registers are the build's count): nothing for the model to state
                continue
            if re.fullmatch(r"fence\.proxy\.async(?:\.shared::cta)?", ins):
                with self.at(e):
                    self.kb.fence_proxy_async()
                continue
            if ins == "wgmma.fence.sync.aligned":
                with self.at(e):
                    self.kb.wgmma_fence()
                continue
            if ins == "wgmma.commit_group.sync.aligned":
                with self.at(e):
                    self.kb.wgmma_commit()
                continue
            if (m := re.fullmatch(r"wgmma\.wait_group\.sync\.aligned\s+(\S+)", ins)):
                n = immediate(m.group(1))
                with self.at(e):
                    self.kb.wgmma_wait(n)
                continue
            if (m := re.fullmatch(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\."
                                  r"(bf16|f16)\.(bf16|f16)\s*\{([^}]*)\}\s*,\s*(.*)",
                                  ins, re.S)):
                self.wgmma_ptx(e, ins, m, operand, immediate, outputs, preds)
                continue
            if (m := re.fullmatch(r"bfind(\.shiftamt)?\.([us])(32|64)\s+(%\d+)\s*,\s*(%\d+)",
                                  ins)):
                self.bfind(e, m, operand)
                continue
            if ins == "cp.async.commit_group":
                with self.at(e):
                    self.kb.cp_async_commit()
            elif ins == "cp.async.wait_all":  # PTX: commit_group then wait_group 0
                with self.at(e):
                    self.kb.cp_async_commit()
                    self.kb.cp_async_wait(0)
            elif ins.startswith("cp.async.wait_group"):
                n = number(ins[len("cp.async.wait_group"):])
                with self.at(e):
                    self.kb.cp_async_wait(n)
            elif (m := re.fullmatch(r"cp\.async\.(ca|cg)\.shared(?:::cta)?\.global"
                                    r"(?:\.L2::\w+)?\s+\[([^\]]+)\]\s*,\s*\[([^\]]+)\]"
                                    r"\s*,\s*([^,]+?)(?:\s*,\s*([^,]+))?", ins)):
                nbytes = number(m.group(4))
                if m.group(5) is not None and number(m.group(5)) != nbytes:
                    raise self.error(e, f"`{ins}`: a source size below the copy size (zero "
                                        "fill) is not supported")
                dst, src = operand(m.group(2)), operand(m.group(3))
                if dst is None or src is None:
                    raise self.error(e, f"`{ins}`: addresses must be operands (%n)")
                place = self.shared_address(dst)
                if place is None:
                    raise self.error(e, f"`{ins}`: the shared address must be a "
                                        "__cvta_generic_to_shared(&array[index]) (or a "
                                        "local holding one)")
                self.copy(e, place, self.pointer_place(src, e), nbytes, m.group(1) == "cg")
            elif (m := matrix_instruction(ins)) is not None:
                self.matrix(e, ins, m, operand, outputs)
            elif (m := re.fullmatch(r"mma\.sync\.aligned\.(m16n8k16|m16n8k8)\.row\.col\."
                                    r"(f16|f32)\.(f16|bf16)\.(f16|bf16)\.(f16|f32)\s*"
                                    r"\{([^}]*)\}\s*,\s*\{([^}]*)\}\s*,\s*\{([^}]*)\}\s*,"
                                    r"\s*\{([^}]*)\}", ins, re.S)):
                self.mma_ptx(e, ins, m, operand, outputs)
            else:
                raise self.error(e, f"inline PTX `{ins[:80]}` is not supported by the importer "
                                    "(cp.async, commit_group, wait_group, wait_all, "
                                    "ldmatrix, stmatrix, mbarrier, cp.async.bulk.tensor, "
                                    "fence.proxy.async, wgmma and bfind are)")

    def bfind(self, e, m, operand) -> None:
        """`bfind.u32 %0, %1;` (cuda-samples' cdpBitonicSort): the position of the most
        significant 1 bit (of a negative signed value, of its most significant 0 bit),
        0xffffffff where there is none; with .shiftamt, the left shift that brings it to the
        top (31 - position). As the PTX ISA defines it."""
        shiftamt, signed, bits = m.group(1) is not None, m.group(2) == "s", int(m.group(3))
        target, source = operand(m.group(4)), operand(m.group(5))
        if target is None or source is None:
            raise self.error(e, f"`{m.group(0)}`: operands must be %n")
        width = BY_NAME[f"u{bits}"]
        with self.at(e):
            x = self.expr(source)
            if signed:
                x = cast(x, BY_NAME[f"i{bits}"])
                x = select(x < 0, ~x, x)
            x = cast(x, width)
            zeros = call("clz", x)          # leading zeros: `bits` for 0
            none = const(0xFFFFFFFF, u32)
            found = cast(zeros, u32) if shiftamt else cast(bits - 1 - zeros, u32)
            value = select(x == 0, none, found)
        self.assign(target, "=", value, e)

    def mma_ptx(self, e, ins: str, m, operand, outputs: int) -> None:
        """`mma.sync.aligned.m16n8k16.row.col.{d}.{a}.{b}.{c} {D}, {A}, {B}, {C}` (and
        m16n8k8) as the builder's mma_sync: A and B 32-bit words of two halves, C and D
        words of two f16 (`"r"`) or floats (`"f"`); D's registers are output operands,
        assigned its values (C may name the same ones: `"+r"`)."""
        shape, dtype, atype, btype, ctype = m.group(1, 2, 3, 4, 5)
        if atype != btype or dtype != ctype:
            raise self.error(e, f"`{ins[:90]}`: the IR's mma.sync takes A and B of one type "
                                "and D of C's")
        groups = []
        for text_ in m.group(6, 7, 8, 9):
            nodes = [operand(t) for t in text_.split(",")]
            if None in nodes:
                raise self.error(e, f"`{ins[:90]}`: its registers must be operands (%n)")
            groups.append(nodes)
        d, a, b, c = groups
        numbers = [int(re.fullmatch(r"\s*%(\d+)\s*", t).group(1))
                   for t in m.group(6).split(",")]
        if any(k >= outputs for k in numbers):
            raise self.error(e, f"`{ins[:90]}`: D's registers must be output operands "
                                "(\"=r\" or \"=f\")")
        with self.at(e):
            result = self.kb.mma_sync([self.expr(x) for x in a], [self.expr(x) for x in b],
                                      [self.expr(x) for x in c], shape=shape, atype=atype,
                                      ctype=ctype)
        for j, reg in enumerate(d):
            self.assign(reg, "=", result[j], e)

    def matrix(self, e, ins: str, m: tuple, operand, outputs: int) -> None:
        """`ldmatrix...x{n}[.trans].shared.b16 {%r...}, [%a]` as the builder's ldmatrix, each
        32-bit output register given its two 16-bit elements (low first); `stmatrix ... [%a],
        {%r...}` as its stmatrix, each register split the same way."""
        load, count, trans, rest = m
        parts = re.fullmatch(r"\{([^}]*)\}\s*,\s*\[([^\]]+)\]" if load else
                             r"\[([^\]]+)\]\s*,\s*\{([^}]*)\}", rest.strip())
        if parts is None:
            raise self.error(e, f"`{ins}`: operands as {{%r, ...}}, [%a] expected")
        regs_text, addr_text = parts.groups() if load else parts.groups()[::-1]
        numbers = [re.fullmatch(r"\s*%(\d+)\s*", r) for r in regs_text.split(",")]
        addr = operand(addr_text)
        if addr is None or None in numbers or len(numbers) != count:
            raise self.error(e, f"`{ins}`: {count} register operand(s) and an address "
                                "operand (%n) expected")
        numbers = [int(n.group(1)) for n in numbers]
        if load and any(k >= outputs for k in numbers):
            raise self.error(e, f"`{ins}`: its registers must be output operands (\"=r\")")
        regs = [operand(f"%{k}") for k in numbers]
        place = self.shared_address(addr)
        if place is None:
            raise self.error(e, f"`{ins}`: the shared address must be a "
                                "__cvta_generic_to_shared(&array[index]) (or a local "
                                "holding one)")
        arr, indices = place
        if arr.dtype in ("f16", "bf16") and arr.lanes == 1 and arr.kind == "shared":
            # a tile of halves (as tensor-core code declares it): ldmatrix moves their bits,
            # through a u16 view of the array
            view, flat = self.bits_view(arr, e)
            arr, indices = view, flat(indices)
        if SIZES[arr.dtype] != 2 or arr.lanes != 1:
            raise self.error(e, f"`{ins}`: '{array_name(arr)}' holds {arr.dtype}; "
                                f"ldmatrix/stmatrix "
                                "move 16-bit elements (declare it unsigned short)")
        if arr.dtype != "u16":
            raise self.error(e, f"`{ins}`: '{array_name(arr)}' is {arr.dtype}: declare the array "
                                "unsigned short (the IR's ldmatrix moves u16 bits)")
        if load:
            with self.at(e):
                frag = self.kb.ldmatrix(arr.value, tuple(indices), matrices=count, trans=trans)
            words = words_of([frag[k] for k in range(2 * count)])
            for reg, word in zip(regs, words):
                self.assign(reg, "=", word, e)
        else:
            values = halves_of([self.expr(reg) for reg in regs])
            with self.at(e):
                self.kb.stmatrix(arr.value, tuple(indices), values, matrices=count,
                                 trans=trans)


def matrix_instruction(ins: str) -> tuple | None:
    """(ldmatrix?, matrices, trans, operands) of `ldmatrix`/`stmatrix` with its qualifiers in
    any order ptxas accepts (`.sync.aligned.m8n8.x4.trans.shared.b16`, LeetCUDA's
    `.sync.aligned.x4.m8n8.shared.b16`); None for anything else."""
    m = re.fullmatch(r"(ldmatrix|stmatrix)((?:\.[\w:]+)+)\s+(.*)", ins, re.S)
    if m is None:
        return None
    quals = m.group(2).split(".")[1:]
    counts = [q for q in quals if re.fullmatch(r"x[124]", q)]
    known = {"sync", "aligned", "m8n8", "trans", "shared", "shared::cta", "b16"}
    if len(counts) != 1 or not {"sync", "aligned", "m8n8", "b16"} <= set(quals) or \
            any(q not in known and q not in counts for q in quals) or \
            len(quals) != len(set(quals)):
        return None
    return m.group(1) == "ldmatrix", int(counts[0][1]), "trans" in quals, m.group(3)

"""Cooperative groups: a thread block or a tile of it, whose methods become the IR's
barriers, indices and shuffles."""
from __future__ import annotations

import re

from kernels_ir import (
    Expr,
    blockDim,
    blockIdx,
    cast,
    const,
    smax,
    smin,
    threadIdx,
)
from kernels_ir.dtypes import u32

from .parse import parse_expression, short, text
from .symbols import (
    Sym,
    callee_name,
    register_type,
)


class GroupsMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def group_declaration(self, node, type_node) -> bool:
        """`cg::thread_block b = cg::this_thread_block();`, `auto w =
        cg::tiled_partition<32>(b);`, `thread_block_tile<32> w = ...`: a group, whose
        methods (sync, thread_rank, shfl_down, ...) become the IR's barriers, indices and
        shuffles."""
        t = text(type_node)
        decls = [d for d in node.named_children if d.type == "init_declarator"]
        if not re.search(r"thread_block|thread_group|coalesced_group|\bauto\b", t) or \
                len(decls) != 1:
            return False
        value = decls[0].child_by_field_name("value")
        size = self.group_value(value)
        if size is None:
            if "auto" in t:
                return False
            raise self.error(node, f"`{short(node)}`: a group made another way than "
                                   "this_thread_block() or tiled_partition<N>(block)")
        self.declare(text(decls[0].child_by_field_name("declarator")),
                     Sym("group", size if size > 0 else None))
        return True

    def group_value(self, node):
        """0 for the thread block, N for a tile of N threads, None for anything else."""
        if node is None or node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        name = callee_name(fn)
        if name == "this_thread_block":
            return 0
        if name == "tiled_partition":
            args = node.child_by_field_name("arguments").named_children
            if fn.type == "qualified_identifier":
                fn = fn.child_by_field_name("name")
            if fn.type == "template_function":
                targs = fn.child_by_field_name("arguments").named_children
                size_node = parse_expression(text(targs[0])) if targs else None
            else:
                size_node = args[1] if len(args) == 2 else None
            if size_node is None:
                return None
            size = self.constant_int(size_node, "a tile size")
            if size not in (1, 2, 4, 8, 16, 32):
                raise self.error(node, f"`{short(node)}`: tiles of {size} threads (the IR's "
                                       "warp operations take 1 to 32)")
            return size
        return None

    def group_dim3(self, node):
        """threadIdx / blockIdx / blockDim of `block.thread_index()`, `block.group_index()`,
        `block.group_dim()` (dim3 methods of a thread block), else None."""
        if node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        if fn.type != "field_expression" or fn.child_by_field_name("argument").type != \
                "identifier":
            return None
        group = self.lookup(text(fn.child_by_field_name("argument")), fn)
        if group.kind != "group" or group.value is not None:
            return None
        return {"thread_index": threadIdx, "group_index": blockIdx, "group_dim": blockDim,
                "dim_threads": blockDim}.get(text(fn.child_by_field_name("field")))

    def block_rank(self) -> Expr:
        """The thread's rank in its block (x fastest)."""
        return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)

    def group_call(self, node, group: Sym, method: str, args) -> Expr | None:
        """A method of a cooperative group."""
        tile = group.value
        with self.at(node):
            if method == "sync":
                if tile is None:
                    self.kb.syncthreads()
                else:
                    self.kb.syncwarp()
                return const(0)
            rank = self.block_rank()
            if method == "thread_rank":
                return cast(rank if tile is None else rank % tile, u32)
            if method in ("size", "num_threads"):
                return cast(blockDim.x * blockDim.y * blockDim.z, u32) if tile is None else \
                    const(tile, u32)
            if tile is not None and method in ("meta_group_rank",):
                return cast(rank // tile, u32)
            if tile is not None and method in ("meta_group_size",):
                return cast((blockDim.x * blockDim.y * blockDim.z + tile - 1) // tile, u32)
            if method in ("group_index",):
                raise self.error(node, "group_index() (a dim3) is not supported: use blockIdx")
            shuffles = {"shfl": "idx", "shfl_down": "down", "shfl_up": "up", "shfl_xor": "xor"}
            if tile is not None and method in shuffles and len(args) == 2:
                value, lane = self.expr(args[0]), self.expr(args[1])
                return self.kb.shfl(value, lane, shuffles[method], width=tile)
        raise self.error(node, f"`{short(node)}`: the group method {method} is not supported")

    def reduce(self, node, args) -> Expr:
        """`cg::reduce(tile, v, cg::plus<T>())` (also greater/less, bit_and/or/xor): every
        lane gets the result, as the butterfly of shuffles the library uses computes it."""
        group = self.lookup(text(args[0]), args[0]) if args[0].type == "identifier" else None
        if group is None or group.kind != "group" or group.value is None or len(args) != 3:
            raise self.error(node, f"`{short(node)}`: cg::reduce over a tile (tiled_partition"
                                   "<N>) with an operator")
        m = re.search(r"(\w+)\s*(<[^>]*>)?\s*(\(\s*\)|\{\s*\})?\s*$", text(args[2]))
        op = m.group(1) if m else text(args[2])
        combine = {"plus": lambda a, b: a + b, "greater": smax, "less": smin,
                   "bit_and": lambda a, b: a & b, "bit_or": lambda a, b: a | b,
                   "bit_xor": lambda a, b: a ^ b}.get(op)
        if combine is None:
            raise self.error(node, f"`{short(node)}`: cg::reduce with {op}")
        value = self.expr(args[1])
        with self.at(node):
            acc = self.kb.let("reduced", value, register_type(value.dtype.name))
            step = group.value // 2
            while step:
                other = self.kb.shfl(acc, step, "xor", width=group.value)
                self.kb.assign(acc, combine(acc, other))
                step //= 2
        return acc

"""Cooperative groups: a thread block or a tile of it, whose methods become the IR's
barriers, indices and shuffles."""
from __future__ import annotations

import re

from kernels_ir import (
    ACTIVE_MASK,
    Expr,
    blockDim,
    blockIdx,
    gridDim,
    cast,
    const,
    smax,
    smin,
    threadIdx,
)
from kernels_ir.dtypes import BY_NAME, i32, u32
from kernels_ir.stmt import FULL_MASK

from .parse import parse_expression, short, text
from .symbols import (
    SIZES,
    Sym,
    callee_name,
    fold,
    register_type,
)


# the value of a group Sym for `cg::this_grid()` (None: the thread block; N: a tile)
GRID = "grid"


class GroupsMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def group_declaration(self, node, type_node) -> bool:
        """`cg::thread_block b = cg::this_thread_block();`, `auto w =
        cg::tiled_partition<32>(b);`, `thread_block_tile<32> w = ...`: a group, whose
        methods (sync, thread_rank, shfl_down, ...) become the IR's barriers, indices and
        shuffles."""
        t = text(type_node)
        decls = [d for d in node.named_children if d.type == "init_declarator"]
        if not re.search(r"thread_block|thread_group|coalesced_group|grid_group|\bauto\b", t) or \
                len(decls) != 1:
            return False
        value = decls[0].child_by_field_name("value")
        if value is not None and value.type == "call_expression" and \
                callee_name(value.child_by_field_name("function")) == "this_grid":
            # the whole grid: its ranks and sizes (its sync needs a cooperative launch)
            self.declare(text(decls[0].child_by_field_name("declarator")),
                         Sym("group", GRID))
            return True
        size = self.group_value(value)
        if size is None:
            if "auto" in t:
                return False
            raise self.error(node, f"`{short(node)}`: a group made another way than "
                                   "this_thread_block(), tiled_partition<N>(block) or "
                                   "this_grid()")
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

    @staticmethod
    def tile_mask(rank: Expr, tile: int):
        """The lanes of the thread's tile, as cooperative groups names them to __syncwarp
        and the shuffles: all 32 for a warp, else the tile's own (a tile of 16: one half of
        the warp, so that the halves may diverge)."""
        if tile == 32:
            return FULL_MASK
        lane = cast(rank % 32, u32)
        return const((1 << tile) - 1, u32) << (lane // tile * tile)

    def group_call(self, node, group: Sym, method: str, args) -> Expr | None:
        """A method of a cooperative group."""
        tile = group.value
        if tile == GRID:
            return self.grid_call(node, method)
        with self.at(node):
            rank = self.block_rank()
            if method == "sync":
                if tile is None:
                    self.kb.syncthreads()
                else:
                    self.kb.syncwarp(self.tile_mask(rank, tile))
                return const(0)
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
                return self.kb.shfl(value, lane, shuffles[method], width=tile,
                                    mask=self.tile_mask(rank, tile))
            if tile is not None and method in ("ballot", "any", "all") and len(args) == 1:
                # over the tile's lanes: a tile narrower than the warp takes its lanes'
                # bits of the executing lanes' ballot, numbered from 0 (cooperative_groups')
                predicate = self.expr(args[0])
                if tile == 32:
                    return self.kb.vote(predicate, method)
                base = cast(rank % 32 // tile * tile, u32)
                lanes = const((1 << tile) - 1, u32)
                mine = (self.kb.vote(predicate, "ballot", mask=ACTIVE_MASK) >> base) & lanes
                return {"ballot": mine, "any": cast(mine != 0, i32),
                        "all": cast(mine == lanes, i32)}[method]
        raise self.error(node, f"`{short(node)}`: the group method {method} is not supported")

    def group_copy_call(self, node, name: str, args) -> Expr | None:
        """cooperative_groups' `memcpy_async(group, dst, src, size)`, `wait(group)` and
        `wait_prior<N>(group)`, as CUDA 13's cooperative_groups/details/async.h writes
        them; None when the first argument is not a group."""
        if not args or args[0].type != "identifier":
            return None
        group = self.declared(text(args[0]))
        if group is None or group.kind != "group" or \
                name not in ("memcpy_async", "wait", "wait_prior"):
            return None
        if group.value == GRID:
            raise self.error(node, f"`{short(node)}`: cooperative groups copy asynchronously "
                                   "by a thread block or a tile of one, not the grid")
        if name == "memcpy_async":
            if len(args) != 4:
                raise self.error(node, f"`{short(node)}`: memcpy_async(group, dst, src, bytes) "
                                       "is read (the form with element counts and layouts "
                                       "is not yet)")
            self.group_copy(node, group, args[1], args[2], args[3])
            return const(0)
        fn = node.child_by_field_name("function")
        while fn.type == "qualified_identifier":
            fn = fn.child_by_field_name("name")
        template_args = fn.child_by_field_name("arguments").named_children \
            if fn.type == "template_function" else []
        if len(args) != 1 or (name == "wait_prior") != bool(template_args):
            raise self.error(node, f"`{short(node)}`: cg::wait(group) or "
                                   "cg::wait_prior<N>(group) expected")
        pending = self.constant_int(template_args[0], "a stage count") if template_args else 0
        with self.at(node):
            self.kb.cp_async_wait(pending)     # __pipeline_wait_prior(N), then group.sync()
        return self.group_call(node, group, "sync", [])

    def group_copy(self, node, group: Sym, dst_node, src_node, size_node) -> None:
        """The group's threads copy `size` bytes from global to shared memory in pieces of
        the alignment the call promises (cuda::aligned_size_t<A>, else the pointed-to
        type's; 16 at most): piece k by the thread of rank k mod the group's size, each a
        cp.async (16 bytes: .cg), then one commit for the thread. A tile of N > 1 threads
        copies whole rounds of N pieces, then the rest with every thread past it copying
        the last piece again (what the library does)."""
        dst, src = self.pointer_place(dst_node, node), self.pointer_place(src_node, node)
        (d, d_idx), (g, g_idx) = dst, src
        if g.kind != "global" or d.kind not in ("shared", "cell"):
            raise self.error(node, f"`{short(node)}`: cg::memcpy_async from global to shared "
                                   "memory is read (any other way the library copies with "
                                   "ordinary loads and stores)")
        count, promised = self.copy_size_parts(size_node, node)   # any byte count
        count = const(count) if isinstance(count, int) else self.expr(count)
        align = min(promised or max(SIZES[d.dtype], self.pointee_alignment(dst_node)), 16)
        if align < 4 or align < SIZES[d.dtype]:
            raise self.error(node, f"`{short(node)}`: pieces of {align} bytes of {d.dtype} "
                                   "elements: the library picks the width from the addresses "
                                   "at run time (cuda::aligned_size_t<4> or more, of whole "
                                   "elements, is read)")
        known = fold(count)
        if known is not None and known % align:
            raise self.error(node, f"`{short(node)}`: {known} bytes in {align}-byte pieces: "
                                   f"the library would leave the last {known % align} bytes "
                                   "uncopied")
        pieces = (cast(count, BY_NAME["i32"]) if count.dtype.name != "i32" else count) // align
        step = align // SIZES[d.dtype]
        rank = self.block_rank()
        tile = group.value if group.value is not None and group.value > 1 else None

        def piece(k: Expr) -> None:
            self.copy(node, (d, d_idx[:-1] + [d_idx[-1] + k * step]),
                      (g, g_idx[:-1] + [g_idx[-1] + k * step]), align, align == 16)

        with self.at(node):
            if tile is None:
                stride = blockDim.x * blockDim.y * blockDim.z if group.value is None else 1
                first = rank if group.value is None else const(0)
                with self.kb.loop("piece", first, lambda k: k < pieces, stride) as k:
                    piece(k)
            else:
                lane = rank % tile
                whole = pieces & ~(tile - 1)
                if fold(whole) is not None:
                    for r in range(0, fold(whole), tile):   # nvcc unrolls a constant count
                        piece(lane + r)
                else:
                    with self.kb.loop("round", 0, lambda r: r < whole, tile) as r:
                        piece(lane + r)
                rest = pieces & (tile - 1)
                if fold(rest) is None:
                    with self.kb.if_(rest != 0):
                        piece(whole + smin(lane, rest - 1))
                elif fold(rest):
                    piece(whole + smin(lane, rest - 1))
            self.kb.cp_async_commit()

    def grid_call(self, node, method: str) -> Expr:
        """A method of `cg::this_grid()`: the thread's rank in the grid (its block's rank
        times the block's size, plus its rank in the block), the grid's threads and
        blocks."""
        block_threads = blockDim.x * blockDim.y * blockDim.z
        block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)
        with self.at(node):
            if method in ("size", "num_threads"):
                return cast(gridDim.x * gridDim.y * gridDim.z * block_threads, u32)
            if method == "thread_rank":
                return cast(block * block_threads + self.block_rank(), u32)
            if method == "num_blocks":
                return cast(gridDim.x * gridDim.y * gridDim.z, u32)
            if method == "block_rank":
                return cast(block, u32)
            if method == "sync":
                # every thread of the launch meets here: a cooperative launch
                # (cudaLaunchCooperativeKernel), which the kernel then needs
                self.kb.grid_sync()
                return const(0)
            if method == "is_valid":
                return const(1)   # launched cooperatively, as grid.sync() requires
        raise self.error(node, f"`{short(node)}`: the grid group's {method} is not read "
                               "(size, num_threads, thread_rank, num_blocks, block_rank, "
                               "sync and is_valid are)")

    def reduce(self, node, args) -> Expr:
        """`cg::reduce(tile, v, cg::plus<T>())` (also greater/less, bit_and/or/xor): every
        lane gets the result, as the butterfly of shuffles the library uses computes it."""
        group = self.lookup(text(args[0]), args[0]) if args[0].type == "identifier" else None
        if group is None or group.kind != "group" or not isinstance(group.value, int) or \
                len(args) != 3:
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

"""A Kernel written back as a kernels file: the builder calls that build it again.

`smemsim import -o` writes what the CUDA frontend built this way, so the file a user edits
is the IR that was analyzed, not a second translation. Every name in the output is a C
identifier the builder already checked; file names appear only in comments, with anything
that is not printable ASCII escaped, so no text of a user's file becomes code here.
"""
from __future__ import annotations

import keyword
import math
import os

from .dtypes import f32, i32
from .errors import CUDA_SOURCE_SUFFIXES, SourceLoc
from .expr import Expr, Op
from .layout import Swizzle
from .arrays import SharedArray
from .kernel import Kernel
from .stmt import (Assert, Assign, Atomic, DeclareLocal, If, Let, Load, LoadMatrix, LocalStore,
                   Loop, MmaSync, Return, Shuffle, Store, StoreMatrix, Sync, SyncWarp,
                   ACTIVE_MASK, unsupported, SyncReduce)
from .stmt_async import (CommitGroup, CopyAsync, WaitGroup, MbarrierArrive, MbarrierInit,
                         MbarrierWait, TmaLoad, tensor_maps, TmaStore, BulkLoad, BulkStore,
                         BulkCommit, BulkWait, FenceProxyAsync, Wgmma, WgmmaFence, WgmmaCommit,
                         WgmmaWait)

BUILDER = "kb"
# names the written file imports or uses: IR names equal to them get a trailing _
TAKEN = {BUILDER, "KernelBuilder", "threadIdx", "blockIdx", "blockDim", "gridDim", "select",
         "cast", "bitcast", "const", "smin", "smax", "call", "lnot", "logical_and", "logical_or",
         "source_lines", "Swizzle", "KERNELS", "f32", "f64", "i32", "u32", "u8", "i8", "i16",
         "u16", "u64", "i64", "f16", "bf16", "GmmaLayout", "GmmaDescriptor"}
IMPORTS = ("from kernels_ir import (\n"
           "    KernelBuilder, Swizzle, bf16, bitcast, blockDim, blockIdx, call, cast, const, "
           "f16, f32,\n"
           "    f64, gridDim, i8, i16, i32, i64, lnot, logical_and, logical_or, select, smax, "
           "smin,\n"
           "    source_lines, threadIdx, u8, u16, u32, u64,\n)")
def _mask(mask: int) -> str:
    """A lane mask as the builder takes it (0: ACTIVE_MASK, `__activemask()`)."""
    return "0" if mask == ACTIVE_MASK else f"0x{mask:08x}"


# Python's binding strength of the operators the IR's binary ops print as
_PY_PREC = {Op.MUL: 12, Op.DIV: 12, Op.MOD: 12, Op.ADD: 11, Op.SUB: 11, Op.SHL: 10,
            Op.SHR: 10, Op.AND: 9, Op.XOR: 8, Op.OR: 7, Op.LT: 6, Op.LE: 6, Op.GT: 6, Op.GE: 6,
            Op.EQ: 6, Op.NE: 6}
_PY_OP = {Op.MUL: "*", Op.MOD: "%", Op.ADD: "+", Op.SUB: "-", Op.SHL: "<<", Op.SHR: ">>",
          Op.AND: "&", Op.XOR: "^", Op.OR: "|", Op.LT: "<", Op.LE: "<=", Op.GT: ">",
          Op.GE: ">=", Op.EQ: "==", Op.NE: "!="}


def safe_comment(text: str) -> str:
    """Text that stays inside a `#` comment: control characters and non-ASCII escaped."""
    return "".join(c if " " <= c <= "~" else ascii(c)[1:-1] for c in text)


def py_name(name: str) -> str:
    """An IR name as a Python name of the written file."""
    return name + "_" if keyword.iskeyword(name) or name in TAKEN else name


class _Writer:
    def __init__(self, kernel: Kernel, folder: str | None):
        self.k, self.folder = kernel, folder
        self.lines: list[str] = []

    def mark(self, loc: SourceLoc | None) -> str:
        """`  # file.cu:N` for a node made from a line of a CUDA file or a header it includes
        (source_lines maps it back)."""
        if loc is None or not loc.file.endswith(CUDA_SOURCE_SUFFIXES) or self.folder is None:
            return ""
        rel = os.path.relpath(os.path.abspath(loc.file), self.folder)
        if not all(c.isalnum() or c in "._-/+" for c in rel):
            return f"  # {safe_comment(rel)} line {loc.line}"  # not a marker source_lines reads
        calls = [(os.path.relpath(os.path.abspath(f), self.folder), n) for f, n in loc.calls]
        if any(not f.endswith(CUDA_SOURCE_SUFFIXES) or
               not all(c.isalnum() or c in "._-/+" for c in f) for f, _ in calls):
            calls = []  # the place alone, as before calls were kept
        return f"  # {rel}:{loc.line}" + "".join(f" via {f}:{n}" for f, n in calls)

    def emit(self, depth: int, code: str, loc: SourceLoc | None) -> None:
        self.lines.append("    " * depth + code + self.mark(loc))

    # ---- expressions
    def expr(self, e: Expr, float_like=None) -> str:
        op = e.op
        if op is Op.CONST:
            return self.const(e, float_like)
        if op is Op.PARAM:
            return py_name(e.arg)
        if op is Op.SPECIAL:
            return f"{e.arg[0]}.{e.arg[1]}"
        if op is Op.VAR:
            return py_name(e.arg.name)
        if op is Op.COMPONENT:
            return f"{py_name(e.src[0].arg.name)}[{e.arg}]"
        if op is Op.LOCAL_READ:
            return f"{py_name(e.arg.name)}[{', '.join(self.expr(i) for i in e.src)}]"
        if op is Op.CALL:
            return f'call("{e.arg}", {", ".join(self.expr(a) for a in e.src)})'
        if op in (Op.MIN, Op.MAX):
            f = "smin" if op is Op.MIN else "smax"
            return f"{f}({self.expr(e.src[0])}, {self.expr(e.src[1])})"
        if op is Op.CAST:
            return f"cast({self.expr(e.src[0])}, {e.dtype.name})"
        if op is Op.BITCAST:
            return f"bitcast({self.expr(e.src[0])}, {e.dtype.name})"
        if op is Op.NEG:
            return f"-{self.operand(e.src[0], 13)}"
        if op is Op.INVERT:
            return f"~{self.operand(e.src[0], 13)}"
        if op is Op.LNOT:
            return f"lnot({self.expr(e.src[0])})"
        if op is Op.SELECT:
            c, a, b = e.src
            return f"select({self.expr(c)}, {self.expr(a, b)}, {self.expr(b, a)})"
        if op in (Op.LAND, Op.LOR):
            f = "logical_and" if op is Op.LAND else "logical_or"
            return f"{f}({self.expr(e.src[0])}, {self.expr(e.src[1])})"
        if op is Op.DIV:
            text = "/" if e.dtype.is_float else "//"
            prec = 12
        elif op in _PY_OP:
            text, prec = _PY_OP[op], _PY_PREC[op]
        else:
            raise unsupported("the kernels-file writer", e)
        a, b = e.src
        left = self.operand(a, prec, b, both_const=a.op is Op.CONST and b.op is Op.CONST)
        right = self.operand(b, prec + 1 if prec != 6 else 7, a)
        return f"{left} {text} {right}"

    def operand(self, e: Expr, prec: int, sibling: Expr | None = None,
                both_const: bool = False) -> str:
        if both_const:  # Python would fold two numbers: keep the IR's node
            return f"const({e.arg!r}, {e.dtype.name})"
        inner = self.expr(e, sibling)
        p = _PY_PREC.get(e.op, 11 if e.op is Op.DIV else 14)
        if e.op is Op.DIV:
            p = 12
        if e.op in (Op.NEG, Op.INVERT):
            p = 13
        if e.op is Op.CONST and inner.startswith("-"):
            p = 13
        # Python chains comparisons (`a < b != c` is not `(a < b) != c`): never nest them bare
        return f"({inner})" if p < prec or (p == 6 and prec in (6, 7)) else inner

    def const(self, e: Expr, like) -> str:
        v = e.arg
        if isinstance(v, float) and math.isinf(v):
            return f'const(float("{v}"), {e.dtype.name})'  # `float("-inf")`
        if e.dtype == i32:
            return repr(int(v))
        if e.dtype == f32 and not (like is not None and like.dtype.is_float and
                                   like.dtype != f32):
            return repr(float(v))
        return f"const({v!r}, {e.dtype.name})"

    def typed(self, e: Expr) -> str:
        """A value the builder converts to a known type (a store's, an atomic's, a let's):
        a constant as a plain number, which the builder gives that type."""
        if e.op is Op.CONST and not (isinstance(e.arg, float) and math.isinf(e.arg)):
            return repr(e.arg)
        return self.expr(e)

    def index(self, index) -> str:
        parts = [self.expr(i) for i in index]
        return parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"

    # ---- the kernel
    def kernel(self, function: str) -> list[str]:
        k = self.k
        self.lines.append(f"def {function}():")
        self.lines.append(f'    """`{k.name}`."""')
        self.emit(1, f'{BUILDER} = KernelBuilder("{k.name}")', k.loc)
        for p in k.params:
            self.emit(1, f'{py_name(p.name)} = {BUILDER}.param("{p.name}", "{p.dtype.name}")',
                      k.loc)
        for g in k.globals:
            initial = "" if g.initial is None else \
                f", initial=({', '.join(repr(v) for v in g.initial)},)"
            self.emit(1, f'{py_name(g.name)} = {BUILDER}.global_array("{g.name}", '
                         f'"{g.dtype.name}", {self.expr(g.length)}, intent="{g.intent}"'
                         f'{initial})', k.loc)
        for v in k.global_views:
            self.emit(1, f'{py_name(v.name)} = {BUILDER}.global_view({py_name(v.base.name)}, '
                         f'"{v.name}", "{v.dtype.name}")', k.loc)
        for a in k.shared:
            self.shared(a)
        for m in tensor_maps(k):
            shape = ", ".join(self.expr(x) for x in m.shape)
            box = ", ".join(str(x) for x in m.box)
            stride = "" if m.row_stride is None else \
                f", row_stride={self.expr(m.row_stride)}" if m.rank == 2 else \
                f", strides=({', '.join(self.expr(e) for e in m.strides)},)"
            swizzle = "None" if m.swizzle is None else f'"{m.swizzle}"'
            self.emit(1, f'{py_name(m.name)} = {BUILDER}.tensor_map("{m.name}", '
                         f'{py_name(m.array.name)}, ({shape},), ({box},), swizzle={swizzle}'
                         f'{stride})', None)
        self.block(k.body, 1)
        grid = ", ".join(self.expr(x) for x in k.grid)
        block = ", ".join(self.expr(x) for x in k.block)
        smem = self.expr(k.dynamic_smem)
        self.emit(1, f"{BUILDER}.launch(grid=({grid}), block=({block}), dynamic_smem={smem})",
                  k.launch_loc)
        if k.defaults:
            values = ", ".join(f'"{name}": {value!r}' for name, value in k.defaults.items()
                               if isinstance(value, (int, float)))
            self.emit(1, f"{BUILDER}.defaults(**{{{values}}})", k.launch_loc)
        self.lines.append(f"    return {BUILDER}.build()")
        return self.lines

    def shared(self, a: SharedArray) -> None:
        buf = a.buffer
        layout = ""
        if a.layout is not None:
            layout = f', layout="{a.layout.tma}"' if a.layout.tma else \
                f", layout=Swizzle({a.layout.b}, {a.layout.m}, {a.layout.s})"
        pad = f", pad={a.pad}" if a.pad else ""
        shape = "(" + ", ".join("None" if e is None else str(e) for e in a.shape) + ",)"
        first = buf.views[0]
        if first is not a:
            self.emit(1, f'{py_name(a.name)} = {BUILDER}.view({py_name(first.name)}, "{a.name}", '
                         f'"{a.dtype.name}", {shape}{pad}{layout})', None)
        elif buf.dynamic:
            extra = f", align={buf.align}" if buf.align != 16 else ""
            self.emit(1, f'{py_name(a.name)} = {BUILDER}.dynamic_shared("{a.name}", '
                         f'"{a.dtype.name}", {shape}{pad}{layout}{extra})', None)
        else:
            extra = f", align={buf.align}" if buf.align != 16 else ""
            if buf.volatile:
                extra += ", volatile=True"
            if a.layout is not None and a.layout.tma:
                extra = f", align={buf.align}" + (", volatile=True" if buf.volatile else "")
            self.emit(1, f'{py_name(a.name)} = {BUILDER}.shared("{a.name}", "{a.dtype.name}", '
                         f'{shape}{pad}{extra}{layout})', None)

    def block(self, body, depth: int) -> None:
        if not body:
            self.lines.append("    " * depth + "pass")
        for s in body:
            self.statement(s, depth)

    def statement(self, s, depth: int) -> None:
        e, loc = self.expr, s.loc
        if isinstance(s, Let):
            self.emit(depth, f'{py_name(s.var.name)} = {BUILDER}.let("{s.var.name}", '
                             f'{self.typed(s.value)}, "{s.var.dtype.name}")', loc)
        elif isinstance(s, Assign):
            self.emit(depth, f"{py_name(s.var.name)}.set({e(s.value)})", loc)
        elif isinstance(s, Load):
            self.emit(depth, f'{py_name(s.dst.name)} = {py_name(s.array.name)}.load('
                             f'{self.index_tuple(s.index)}, width={s.width}, '
                             f'name="{s.dst.name}")', loc)
        elif isinstance(s, Store):
            values = [self.typed(v) for v in s.values]
            if s.width == 1:
                self.emit(depth, f"{py_name(s.array.name)}[{', '.join(e(i) for i in s.index)}]"
                                 f" = {values[0]}", loc)
            else:
                self.emit(depth, f"{py_name(s.array.name)}.store({self.index_tuple(s.index)}, "
                                 f"[{', '.join(values)}], width={s.width})", loc)
        elif isinstance(s, Atomic):
            compare = f", compare={self.typed(s.compare)}" if s.compare is not None else ""
            call = (f'{BUILDER}.atomic({py_name(s.array.name)}, {self.index(s.index)}, '
                    f'"{s.kind}", {self.typed(s.value)}{compare}')
            if s.dst is not None:
                self.emit(depth, f'{py_name(s.dst.name)} = {call}, name="{s.dst.name}")', loc)
            else:
                self.emit(depth, call + ")", loc)
        elif isinstance(s, DeclareLocal):
            shape = "(" + ", ".join(str(n) for n in s.array.shape) + ",)"
            self.emit(depth, f'{py_name(s.array.name)} = {BUILDER}.local_array('
                             f'"{s.array.name}", "{s.array.dtype.name}", {shape})', loc)
        elif isinstance(s, LocalStore):
            self.emit(depth, f"{py_name(s.array.name)}[{', '.join(e(i) for i in s.index)}] = "
                             f"{e(s.value)}", loc)
        elif isinstance(s, Loop):
            v = py_name(s.var.name)
            advance = f"step={e(s.step)}" if s.update is None else \
                f"update=lambda {v}: {e(s.update)}"
            unroll = f'"{s.unroll}"' if isinstance(s.unroll, str) else repr(s.unroll)
            do = ", do_while=True" if s.do_while else ""
            self.emit(depth, f'with {BUILDER}.loop("{s.var.name}", {e(s.start)}, '
                             f'lambda {v}: {e(s.cond)}, {advance}{do}, unroll={unroll}, '
                             f'dtype="{s.var.dtype.name}") as {v}:', loc)
            self.block(s.body, depth + 1)
        elif isinstance(s, If):
            self.emit(depth, f"with {BUILDER}.if_({e(s.cond)}):", loc)
            self.block(s.then, depth + 1)
            if s.orelse:
                self.emit(depth, f"with {BUILDER}.else_():", loc)
                self.block(s.orelse, depth + 1)
        elif isinstance(s, SyncReduce):
            self.emit(depth, f'{py_name(s.dst.name)} = {BUILDER}.syncthreads_reduce('
                             f'{e(s.pred)}, "{s.op}", name="{s.dst.name}")', loc)
        elif isinstance(s, Sync):
            self.emit(depth, f"{BUILDER}.{'grid_sync' if s.grid else 'syncthreads'}()", loc)
        elif isinstance(s, SyncWarp):
            mask = _mask(s.mask) if isinstance(s.mask, int) else e(s.mask)
            self.emit(depth, f"{BUILDER}.syncwarp({mask})", loc)
        elif isinstance(s, Return):
            self.emit(depth, f"{BUILDER}.return_()", loc)
        elif isinstance(s, Assert):   # (the source's text, as a Python string literal)
            self.emit(depth, f"{BUILDER}.assert_({e(s.cond)}, {s.text!r})", loc)
        elif isinstance(s, Shuffle):
            width = s.width if isinstance(s.width, int) else e(s.width)
            mask = _mask(s.mask) if isinstance(s.mask, int) else e(s.mask)
            self.emit(depth, f'{py_name(s.dst.name)} = {BUILDER}.shfl({e(s.value)}, '
                             f'{e(s.lane)}, "{s.mode}", width={width}, mask={mask}, '
                             f'name="{s.dst.name}")', loc)
        elif isinstance(s, MmaSync):
            items = lambda xs: "[" + ", ".join(e(x) for x in xs) + "]"
            self.emit(depth, f'{py_name(s.dst.name)} = {BUILDER}.mma_sync({items(s.a)}, '
                             f'{items(s.b)}, {items(s.c)}, shape="{s.shape}", '
                             f'atype="{s.atype}", ctype="{s.ctype}", name="{s.dst.name}")', loc)
        elif isinstance(s, LoadMatrix):
            self.emit(depth, f'{py_name(s.dst.name)} = {BUILDER}.ldmatrix('
                             f'{py_name(s.array.name)}, {self.index(s.index)}, '
                             f'matrices={s.count}, trans={s.trans}, name="{s.dst.name}")', loc)
        elif isinstance(s, StoreMatrix):
            values = ", ".join(e(v) for v in s.values)
            self.emit(depth, f"{BUILDER}.stmatrix({py_name(s.array.name)}, "
                             f"{self.index(s.index)}, [{values}], matrices={s.count}, "
                             f"trans={s.trans})", loc)
        elif isinstance(s, CopyAsync):
            self.emit(depth, f"{BUILDER}.cp_async({py_name(s.array.name)}, "
                             f"{self.index(s.index)}, {py_name(s.src.name)}, "
                             f"{self.index(s.src_index)}, width={s.width}, "
                             f"bypass={s.bypass}"
                             + ("" if s.src_bytes is None else
                                f", src_bytes={self.expr(s.src_bytes)}") + ")", loc)
        elif isinstance(s, CommitGroup):
            self.emit(depth, f"{BUILDER}.cp_async_commit()", loc)
        elif isinstance(s, WaitGroup):
            self.emit(depth, f"{BUILDER}.cp_async_wait({s.pending})", loc)
        elif isinstance(s, TmaLoad):
            self.emit(depth, f"{BUILDER}.tma_load({py_name(s.tensor_map.name)}, "
                             f"{py_name(s.array.name)}, {self.index_tuple(s.index)}, "
                             f"{self.index_tuple(s.coords)}, {py_name(s.barrier.name)}, "
                             f"{self.index_tuple(s.barrier_index)})", loc)
        elif isinstance(s, TmaStore):
            self.emit(depth, f"{BUILDER}.tma_store({py_name(s.tensor_map.name)}, "
                             f"{py_name(s.array.name)}, {self.index_tuple(s.index)}, "
                             f"{self.index_tuple(s.coords)})", loc)
        elif isinstance(s, BulkLoad):
            self.emit(depth, f"{BUILDER}.bulk_load({py_name(s.array.name)}, "
                             f"{self.index_tuple(s.index)}, {py_name(s.src.name)}, "
                             f"{self.index_tuple(s.src_index)}, {s.nbytes}, "
                             f"{py_name(s.barrier.name)}, {self.index_tuple(s.barrier_index)})",
                      loc)
        elif isinstance(s, BulkStore):
            self.emit(depth, f"{BUILDER}.bulk_store({py_name(s.dst.name)}, "
                             f"{self.index_tuple(s.dst_index)}, {py_name(s.array.name)}, "
                             f"{self.index_tuple(s.index)}, {s.nbytes})", loc)
        elif isinstance(s, BulkCommit):
            self.emit(depth, f"{BUILDER}.bulk_commit()", loc)
        elif isinstance(s, BulkWait):
            self.emit(depth, f"{BUILDER}.bulk_wait({s.pending}, read={s.read})", loc)
        elif isinstance(s, FenceProxyAsync):
            self.emit(depth, f"{BUILDER}.fence_proxy_async()", loc)
        elif isinstance(s, Wgmma):
            # an operand read through a run-time descriptor: (view, GmmaDescriptor(value,
            # major)); else (array, index, layout)
            operand = lambda arr, index, layout, desc: (  # noqa: E731
                f"({py_name(arr.name)}, GmmaDescriptor({e(desc)}, \"{layout.major}\"))"
                if desc is not None else
                f"({py_name(arr.name)}, {self.index_tuple(index)}, {_gmma(layout)})")
            a = py_name(s.a_regs.name) if s.a_regs is not None else \
                operand(s.a_array, s.a_index, s.a_layout, s.a_desc)
            self.emit(depth, f"{BUILDER}.wgmma({py_name(s.acc.name)}, "
                             f"{a}, {operand(s.array, s.index, s.layout, s.desc)}, {s.n}, "
                             f"scale_d={e(s.scale_d)}"
                             + (f", acc_index={self.index_tuple(s.acc_index)}"
                                if s.acc_index else "") + ")", loc)
        elif isinstance(s, WgmmaFence):
            self.emit(depth, f"{BUILDER}.wgmma_fence()", loc)
        elif isinstance(s, WgmmaCommit):
            self.emit(depth, f"{BUILDER}.wgmma_commit()", loc)
        elif isinstance(s, WgmmaWait):
            self.emit(depth, f"{BUILDER}.wgmma_wait({s.pending})", loc)
        elif isinstance(s, MbarrierInit):
            self.emit(depth, f"{BUILDER}.mbarrier_init({py_name(s.array.name)}, "
                             f"{self.index_tuple(s.index)}, {e(s.count)})", loc)
        elif isinstance(s, MbarrierArrive) and s.kind == "expect_tx":
            self.emit(depth, f"{BUILDER}.mbarrier_expect_tx({py_name(s.array.name)}, "
                             f"{self.index_tuple(s.index)}, {e(s.expect_tx)})", loc)
        elif isinstance(s, MbarrierArrive) and s.kind == "cp_async":
            self.emit(depth, f"{BUILDER}.cp_async_arrive({py_name(s.array.name)}, "
                             f"{self.index_tuple(s.index)})", loc)
        elif isinstance(s, MbarrierArrive):
            tx = "" if s.expect_tx is None else f", expect_tx={e(s.expect_tx)}"
            call = (f"{BUILDER}.mbarrier_arrive({py_name(s.array.name)}, "
                    f"{self.index_tuple(s.index)}{tx}")
            if s.token is None:
                self.emit(depth, call + ")", loc)
            else:
                self.emit(depth, f'{py_name(s.token.name)} = {call}, token="{s.token.name}")',
                          loc)
        elif isinstance(s, MbarrierWait):
            self.emit(depth, f"{BUILDER}.mbarrier_wait({py_name(s.array.name)}, "
                             f"{self.index_tuple(s.index)}, {e(s.parity)})", loc)
        else:
            raise unsupported("the kernels-file writer", s)

    def index_tuple(self, index) -> str:
        return "(" + ", ".join(self.expr(i) for i in index) + ",)"


def _gmma(g) -> str:
    swizzle = "None" if g.swizzle is None else f'"{g.swizzle}"'
    return (f'GmmaLayout("{g.major}", {swizzle}, {g.lbo}, {g.sbo}, '
            f'base_offset={g.base_offset})')


def kernel_function(kernel: Kernel, function: str, folder: str | None = None) -> list[str]:
    """The lines of a function that builds `kernel` again (lines made from CUDA end in
    `# FILE.cu:N`, FILE relative to `folder`, where the written file will stand)."""
    return _Writer(kernel, folder).kernel(function)


def kernels_file(kernels: dict[str, Kernel], folder: str | None = None,
                 title: str = "Kernels written by smemsim") -> str:
    """A kernels file (KERNELS: key -> builder function) that builds these kernels again."""
    # wgmma's operand layouts are the one builder argument that is an object
    gmma = any(isinstance(s, Wgmma) for k in kernels.values() for s in k.statements())
    lines = [f"# {safe_comment(title)}",
             "# Each line ending in `# FILE.cu:N` reports CUDA line N in smemsim's output.",
             IMPORTS + ("\nfrom kernels_ir import GmmaDescriptor, GmmaLayout" if gmma
                        else ""), "",
             "source_lines(__file__)", ""]
    names = {}
    for key, kernel in kernels.items():
        function = py_name(kernel.name)
        while function in names.values():
            function += "_"
        names[key] = function
        lines += ["", *kernel_function(kernel, function, folder), ""]
    table = ", ".join(f"{key!r}: {names[key]}" for key in kernels)
    lines.append(f"KERNELS = {{{table}}}")
    return "\n".join(lines) + "\n"


__all__ = ["kernel_function", "kernels_file", "py_name", "safe_comment", "Swizzle"]

"""The readable text form of a kernel; expressions print as valid C."""
from __future__ import annotations

import math

from .dtypes import DType, f32, u32, u64
from .expr import BIT_FUNCTIONS, COMPARE_OPS, EXACT_DIV, HALF_BITS, ROUNDINGS, Expr, Op
from .arrays import SharedArray
from .kernel import Kernel
from .stmt import (Assert, Return, Access, Assign, Atomic, DeclareLocal, If, Let, Load,
                   LoadMatrix, LocalStore, Loop, Shuffle, Store, StoreMatrix, Sync, SyncWarp,
                   unsupported, mask_text, MmaSync, VOTE_MODES, SyncReduce, SYNC_REDUCTIONS)
from .stmt_async import (CommitGroup, CopyAsync, WaitGroup, MbarrierArrive, MbarrierInit,
                         MbarrierWait, TmaLoad, tensor_maps, TmaStore, BulkLoad, BulkStore,
                         BulkCommit, BulkWait, FenceProxyAsync, Wgmma, WgmmaFence, WgmmaCommit,
                         WgmmaWait)

# C precedence (higher binds tighter); leaves and calls bind tightest.
_PREC = {
    Op.MUL: 13, Op.DIV: 13, Op.MOD: 13, Op.ADD: 12, Op.SUB: 12, Op.SHL: 11, Op.SHR: 11,
    Op.LT: 10, Op.LE: 10, Op.GT: 10, Op.GE: 10, Op.EQ: 9, Op.NE: 9, Op.AND: 8, Op.XOR: 7,
    Op.OR: 6, Op.LAND: 5, Op.LOR: 4, Op.SELECT: 3,
}
_UNARY = {Op.NEG: "-", Op.INVERT: "~", Op.LNOT: "!"}
_LEAF = 20
COMPONENT_NAMES = "xyzw"


def format_const(value, dtype: DType) -> str:
    """A C literal of the given type (`1.5f`, `7u`, `3ull`)."""
    if dtype.is_float and math.isinf(value):
        # CUDA has no infinity literal: the bits, as math_constants.h's CUDART_INF_F spells it
        inf = "__int_as_float(0x7f800000)" if dtype == f32 else \
            "__longlong_as_double(0x7ff0000000000000ll)"
        return inf if value > 0 else f"(-{inf})"
    if dtype.is_float:
        text = repr(float(value))
        if "e" not in text and "." not in text:
            text += ".0"
        return text + ("f" if dtype == f32 else "")
    if dtype == u32:
        return f"{value}u"
    if dtype == u64:
        return f"{value}ull"
    if dtype.name == "i64":
        return f"{value}ll" if value != -2 ** 63 else "(-9223372036854775807ll - 1)"
    if dtype.size < 4:
        return f"({dtype.c_name}){value}"
    return str(value)


def _prec(e: Expr) -> int:
    if e.op in _PREC:
        return _PREC[e.op]
    if e.op in _UNARY or e.op is Op.CAST:
        return 15
    if e.op is Op.CONST and (e.dtype.size < 4 or (not e.dtype.is_float and e.arg < 0)):
        return 15
    return _LEAF


# CUDA's intrinsics that reinterpret bits: (from, to) -> name; between integers of one size
# a C conversion keeps the bits
_BITCASTS = {("i32", "f32"): "__int_as_float", ("u32", "f32"): "__uint_as_float",
             ("f32", "i32"): "__float_as_int", ("f32", "u32"): "__float_as_uint"}


def _bitcast_c(e: Expr) -> str:
    src, dst = e.src[0].dtype.name, e.dtype.name
    inner = format_expr(e.src[0])
    if (src, dst) in _BITCASTS:
        return f"{_BITCASTS[src, dst]}({inner})"
    if src == "u64":   # u64 -> f64
        return f"__longlong_as_double((long long)({inner}))"
    if dst == "u64":   # f64 -> u64
        return f"(unsigned long long)__double_as_longlong({inner})"
    return f"(({e.dtype.c_name})({inner}))"   # i32 <-> u32: the same bits


def format_expr(e: Expr) -> str:
    """C source for an expression, with only the parentheses C needs."""
    op = e.op
    if op is Op.CONST:
        return format_const(e.arg, e.dtype)
    if op is Op.PARAM:
        return e.arg
    if op is Op.SPECIAL:
        return f"{e.arg[0]}.{e.arg[1]}"
    if op is Op.VAR:
        return e.arg.name
    if op is Op.COMPONENT:
        var = e.src[0].arg
        return f"{var.name}[{e.arg}]" if var.indexed else f"{var.name}.{COMPONENT_NAMES[e.arg]}"
    if op is Op.LOCAL_READ:
        return e.arg.name + "".join(f"[{format_expr(i)}]" for i in e.src)
    if op is Op.CALL:
        # the roundings are functions of the generated CUDA's prelude (gpu_backend.codegen)
        if e.arg in BIT_FUNCTIONS:   # CUDA's intrinsics: __popc, __popcll, ...
            wide = "ll" if e.src[0].dtype.size == 8 else ""
            return f"__{e.arg}{wide}({format_expr(e.src[0])})"
        name = f"smemsim_{e.arg}" if e.arg in ROUNDINGS + HALF_BITS + (EXACT_DIV,) else \
            e.arg + ("f" if e.dtype == f32 else "")
        return f"{name}({', '.join(format_expr(a) for a in e.src)})"
    if op in (Op.MIN, Op.MAX):
        return f"{op.value}({format_expr(e.src[0])}, {format_expr(e.src[1])})"
    if op is Op.CAST:
        return f"({e.dtype.c_name}){_wrap(e.src[0], 15, right=True)}"
    if op is Op.BITCAST:
        return _bitcast_c(e)
    if op in _UNARY:
        return _UNARY[op] + _wrap(e.src[0], 15, right=True)
    if op is Op.SELECT:
        c, a, b = e.src
        return f"{_wrap(c, 4)} ? {_wrap(a, 4)} : {_wrap(b, 3, right=True)}"
    prec = _PREC[op]
    left = _wrap(e.src[0], prec)
    right = _wrap(e.src[1], prec, right=True)
    return f"{left} {op.value} {right}"


def _wrap(e: Expr, parent: int, right: bool = False) -> str:
    text = format_expr(e)
    p = _prec(e)
    # Comparisons, shifts and bitwise ops inside each other, and && inside ||, read
    # ambiguously even when C parses them as intended: parenthesize them too, as
    # compilers' -Wparentheses asks.
    mixed = (parent in (6, 7, 8) and (e.op in COMPARE_OPS or p in (6, 7, 8, 11))
             and p != parent) or (parent == 4 and p == 5)
    if p < parent or (right and p == parent) or mixed:
        return f"({text})"
    return text


def format_index(array, index) -> str:
    """`name[i][j]` for an access."""
    return array.name + "".join(f"[{format_expr(i)}]" for i in index)


def _load(s: Load) -> str:
    vec = f"x{s.width}" if s.width > 1 else ""
    return f"{s.dst.dtype}{vec} {s.dst.name} = {format_index(s.array, s.index)}"


def _store(s: Store) -> str:
    vals = ", ".join(format_expr(v) for v in s.values)
    vals = f"{{{vals}}}" if s.width > 1 else vals
    return f"{format_index(s.array, s.index)} = {vals}"


def _declare_local(s: DeclareLocal) -> str:
    dims = "".join(f"[{n}]" for n in s.array.shape)
    return f"{s.array.dtype} {s.array.name}{dims} = {{0}}"


def _loop(s: Loop) -> str:
    v = s.var.name
    kind = "do" if s.do_while else "for"
    unroll = {True: " unroll", False: "", "auto": " unroll(auto)"}.get(s.unroll,
                                                                       f" unroll({s.unroll})")
    return (f"{kind}{unroll} ({s.var.dtype} {v} = {format_expr(s.start)}; "
            f"{format_expr(s.cond)}; {loop_advance(s)})")


def loop_advance(s: Loop) -> str:
    """`v += step`, or `v = update`."""
    v = s.var.name
    return f"{v} = {format_expr(s.update)}" if s.update is not None else \
        f"{v} += {format_expr(s.step)}"


def _atomic(s: Atomic) -> str:
    args = ", ".join(format_expr(e) for e in ((s.compare,) if s.compare is not None else ())
                     + (s.value,))
    call = f"atomic_{s.kind}(&{format_index(s.array, s.index)}, {args})"
    return f"{s.dst.dtype} {s.dst.name} = {call}" if s.dst is not None else call


def _matrix_suffix(s) -> str:
    return f".x{s.matrices}" + (".trans" if s.trans else "")


def _load_matrix(s: LoadMatrix) -> str:
    return (f"{s.dst.dtype}x{s.dst.lanes} {s.dst.name} = ldmatrix{_matrix_suffix(s)}"
            f"(&{format_index(s.array, s.index)})")


def _store_matrix(s: StoreMatrix) -> str:
    vals = ", ".join(format_expr(v) for v in s.values)
    return f"stmatrix{_matrix_suffix(s)}(&{format_index(s.array, s.index)}, {{{vals}}})"


def _gmma_operand(array, index, layout, desc) -> str:
    if desc is not None:   # a descriptor computed at run time: its bits are the layout
        return f"{array.name} desc({format_expr(desc)}) [{layout.major}-major]"
    return f"&{format_index(array, index)} {_gmma_text(layout)}"


def _gmma_text(g) -> str:
    return (f"[{g.major}-major, {g.swizzle or 'no swizzle'}, LBO {g.lbo}, SBO {g.sbo}"
            + (f", base offset {g.base_offset}" if g.base_offset else "") + "]")


# One line per statement class (a loop or if prints its header); a missing class raises.
_FORMAT = {
    Let: lambda s: f"{s.var.dtype} {s.var.name} = {format_expr(s.value)}",
    Assign: lambda s: f"{s.var.name} = {format_expr(s.value)}",
    Load: _load,
    Store: _store,
    DeclareLocal: _declare_local,
    LocalStore: lambda s: f"{format_index(s.array, s.index)} = {format_expr(s.value)}",
    Loop: _loop,
    If: lambda s: f"if ({format_expr(s.cond)})",
    Sync: lambda s: "grid.sync()" if s.grid else "__syncthreads()",
    SyncReduce: lambda s: (f"{s.dst.dtype} {s.dst.name} = {SYNC_REDUCTIONS[s.op]}("
                           f"{format_expr(s.pred)})"),
    Atomic: _atomic,
    LoadMatrix: _load_matrix,
    StoreMatrix: _store_matrix,
    Shuffle: lambda s: (f"{s.dst.dtype} {s.dst.name} = {s.mode}("
                        f"{mask_text(s.mask) if isinstance(s.mask, int) else format_expr(s.mask)}"
                        f", {format_expr(s.value)})") if s.mode in VOTE_MODES else (
                        f"{s.dst.dtype} {s.dst.name} = shfl_{s.mode}("
                        f"{mask_text(s.mask) if isinstance(s.mask, int) else format_expr(s.mask)}"
                        f", {format_expr(s.value)}, {format_expr(s.lane)}, "
                        f"{s.width if isinstance(s.width, int) else format_expr(s.width)})"),
    SyncWarp: lambda s: f"__syncwarp("
                        f"{mask_text(s.mask) if isinstance(s.mask, int) else format_expr(s.mask)})",
    MmaSync: lambda s: (f"{s.dst.dtype}x{len(s.c)} {s.dst.name} = mma.{s.shape}.{s.ctype}."
                        f"{s.atype}({{{', '.join(format_expr(x) for x in s.a)}}}, "
                        f"{{{', '.join(format_expr(x) for x in s.b)}}}, "
                        f"{{{', '.join(format_expr(x) for x in s.c)}}})"),
    CopyAsync: lambda s: (f"cp.async.{'cg' if s.bypass else 'ca'}(&{format_index(s.array, s.index)}"
                          f", &{format_index(s.src, s.src_index)}, {s.access_bytes} B"
                          + ("" if s.src_bytes is None else
                             f", reading {format_expr(s.src_bytes)} B") + ")"),
    CommitGroup: lambda s: "cp.async.commit_group()",
    WaitGroup: lambda s: f"cp.async.wait_group({s.pending})",
    Return: lambda s: "return",
    Assert: lambda s: s.text if s.traps else f"assert({format_expr(s.cond)})",
    TmaLoad: lambda s: (f"tma_load(&{format_index(s.array, s.index)}, {s.tensor_map.name}, "
                        f"{{{', '.join(format_expr(c) for c in s.coords)}}}, "
                        f"&{format_index(s.barrier, s.barrier_index)}, {s.access_bytes} B)"),
    MbarrierInit: lambda s: (f"mbarrier.init(&{format_index(s.array, s.index)}, "
                             f"{format_expr(s.count)})"),
    MbarrierArrive: lambda s: (("" if s.token is None else f"{s.token.name} = ")
                               + {"arrive": "mbarrier.arrive", "expect_tx":
                                  "mbarrier.expect_tx", "cp_async": "cp.async.mbarrier.arrive"}
                               [s.kind] + f"(&{format_index(s.array, s.index)}"
                               + ("" if s.expect_tx is None
                                  else f", expect_tx {format_expr(s.expect_tx)} B") + ")"),
    MbarrierWait: lambda s: (f"mbarrier.wait(&{format_index(s.array, s.index)}, parity "
                             f"{format_expr(s.parity)})"),
    TmaStore: lambda s: (f"tma_store({s.tensor_map.name}, "
                         f"{{{', '.join(format_expr(c) for c in s.coords)}}}, "
                         f"&{format_index(s.array, s.index)}, {s.access_bytes} B)"),
    BulkLoad: lambda s: (f"bulk_load(&{format_index(s.array, s.index)}, "
                         f"&{format_index(s.src, s.src_index)}, {s.nbytes} B, "
                         f"&{format_index(s.barrier, s.barrier_index)})"),
    BulkStore: lambda s: (f"bulk_store(&{format_index(s.dst, s.dst_index)}, "
                          f"&{format_index(s.array, s.index)}, {s.nbytes} B)"),
    BulkCommit: lambda s: "cp.async.bulk.commit_group()",
    BulkWait: lambda s: f"cp.async.bulk.wait_group{'.read' if s.read else ''}({s.pending})",
    FenceProxyAsync: lambda s: "fence.proxy.async.shared::cta()",
    Wgmma: lambda s: (f"wgmma.m64n{s.n}k16({s.acc.name}"
                      + "".join(f"[{format_expr(e)}]" for e in s.acc_index)
                      + f", scale_d {format_expr(s.scale_d)}, "
                      + (f"A registers {s.a_regs.name}, " if s.a_regs is not None else
                         f"A {_gmma_operand(s.a_array, s.a_index, s.a_layout, s.a_desc)}, ")
                      + f"B {_gmma_operand(s.array, s.index, s.layout, s.desc)})"),
    WgmmaFence: lambda s: "wgmma.fence()",
    WgmmaCommit: lambda s: "wgmma.commit_group()",
    WgmmaWait: lambda s: f"wgmma.wait_group({s.pending})",
}
# what separates the bodies of a statement with several (an if's `else`)
_BODY_SEPARATOR = {If: "} else {"}


def format_stmt(s) -> str:
    """One line for a statement (a loop or if prints its header only)."""
    rule = _FORMAT.get(type(s))
    if rule is None:
        raise unsupported("the printer", s)
    return rule(s)


def _site_tag(s) -> str:
    if isinstance(s, Access) and s.site is not None:
        kind = {"load": "ld", "store": "st"}.get(s.op, s.op)
        return f"  // site {s.site} ({kind}, {s.access_bytes} B), line {s.loc.line}"
    return ""


def _format_block(stmts, depth: int, out: list[str]) -> None:
    pad = "    " * depth
    for s in stmts:
        bodies = s.bodies()
        out.append(pad + format_stmt(s) + (" {" if bodies else "") + _site_tag(s))
        for i, body in enumerate(bodies):
            if i and not body:
                continue  # an empty else branch is not printed
            if i:
                if type(s) not in _BODY_SEPARATOR:
                    raise unsupported("the printer", s)
                out.append(pad + _BODY_SEPARATOR[type(s)])
            _format_block(body, depth + 1, out)
        if bodies:
            out.append(pad + "}")


def _format_shared(a: SharedArray) -> str:
    dims = "".join(f"[{'' if n is None else n}]" for n in a.shape)
    pad = f" pad {a.pad}" if a.pad else ""
    pad += f" layout {a.layout.label}" if a.layout else ""
    where = ("dynamic" + (f", align {a.buffer.align}" if a.buffer.align != 16 else "")) \
        if a.buffer.dynamic else f"align {a.buffer.align}"
    if a.buffer.volatile:
        where += ", volatile"
    alias = "" if a.buffer.views[0] is a else f" (view of {a.buffer.views[0].name})"
    return f"    shared {a.dtype} {a.name}{dims}{pad}, {where}{alias}"


def format_kernel(k: Kernel) -> str:
    """The whole kernel as indented text."""
    sig = [f"{p.dtype} {p.name}" for p in k.params]
    sig += [f"{g.intent} {g.dtype}* {g.name}[{format_expr(g.length)}]" for g in k.globals]
    dim3 = lambda d: "(" + ", ".join(format_expr(x) for x in d) + ")"
    out = [f"kernel {k.name}({', '.join(sig)})",
           f"    launch grid={dim3(k.grid)} block={dim3(k.block)} "
           f"dynamic_smem={format_expr(k.dynamic_smem)}"]
    out += [_format_shared(a) for a in k.shared]
    out += [f"    tensor map {m.describe()}" for m in tensor_maps(k)]
    out.append("{")
    _format_block(k.body, 1, out)
    out.append("}")
    return "\n".join(out)

"""IR -> readable CUDA C++: the kernel a user would ship, line for line with the builder code.

Accesses keep the IR's widths exactly: a vector access becomes one access of the CUDA vector
type of that width (float4, uint2, ...), a scalar stays scalar, and loops the IR does not
mark for unrolling get `#pragma unroll 1`, because nvcc/NVRTC otherwise unroll small loops
and merge neighbouring scalar shared accesses into LDS.64/LDS.128 (hardware-rules.md), which
would make the GPU run a different kernel from the one analyzed; a loop marked "auto" (an
imported CUDA loop with no pragma) gets none, as in its source (`--as-compiled` follows it). The code generator records
the CUDA line of every shared access site, so the SASS check can attribute instructions.
"""
from __future__ import annotations

import math

from dataclasses import dataclass

from kernels_ir import Kernel
from kernels_ir.dtypes import DType, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64
from kernels_ir.expr import EXACT_DIV, HALF_BITS, ROUNDINGS, Expr, Op, cast
from kernels_ir.printer import format_expr
from kernels_ir.arrays import GlobalArray, SharedArray
from kernels_ir.stmt import (Assert, Return, ATOMIC_OPS, SHUFFLE_MODES, VOTE_MODES, Assign,
                             Atomic, DeclareLocal, If, Let, Load, LoadMatrix, LocalStore, Loop,
                             Shuffle, Store, ACTIVE_MASK, StoreMatrix, Sync, SyncWarp,
                             unsupported, MmaSync, SyncReduce, SYNC_REDUCTIONS)
from kernels_ir.stmt_async import (CommitGroup, CopyAsync, WaitGroup, MbarrierArrive,
                                   MbarrierInit, MbarrierWait, TmaLoad, tensor_maps, TmaStore,
                                   BulkLoad, BulkStore, BulkCommit, BulkWait, FenceProxyAsync,
                                   Wgmma, WgmmaFence, WgmmaCommit, WgmmaWait)
from kernels_ir.wgmma import SWIZZLE_CODES

# CUDA's built-in vector types by element type and width (widths over 16 bytes do not exist)
VECTOR_TYPES = {
    (f32, 2): "float2", (f32, 4): "float4", (f64, 2): "double2",
    (i32, 2): "int2", (i32, 4): "int4", (u32, 2): "uint2", (u32, 4): "uint4",
    (i16, 2): "short2", (i16, 4): "short4", (u16, 2): "ushort2", (u16, 4): "ushort4",
    (i8, 2): "char2", (i8, 4): "char4", (u8, 2): "uchar2", (u8, 4): "uchar4",
    (u64, 2): "ulonglong2", (i64, 2): "longlong2",
}
# f16 / bf16 arrays hold bits (unsigned short); loads widen them to float and stores round
# to nearest even with cvt, so the generated CUDA needs no cuda_fp16.h / cuda_bf16.h
# a wgmma matrix descriptor from a shared pointer and what the IR's GmmaLayout says
GMMA_PRELUDE = """\
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
// wgmma exists on sm_90a only: the code nvcc also builds for other targets (compute_90's
// PTX, which -arch=sm_90a embeds too) traps where a wgmma would run
#define SMEMSIM_SM90A(...) __trap()
#else
#define SMEMSIM_SM90A(...) __VA_ARGS__
#endif
__device__ __forceinline__ unsigned long long smemsim_gmma_desc(const void* p, unsigned lbo,
                                                                unsigned sbo, unsigned base,
                                                                unsigned mode)
{
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    return (unsigned long long)((a & 0x3FFFF) >> 4) | (unsigned long long)(lbo >> 4) << 16
        | (unsigned long long)(sbo >> 4) << 32 | (unsigned long long)base << 49
        | (unsigned long long)mode << 62;
}"""

# CUtensorMap's layout (cuda.h: 128 bytes, 64-byte aligned), without including the driver
# API header (NVRTC has no cuda.h)
TENSOR_MAP_PRELUDE = """\
struct __align__(64) smemsim_tensor_map { unsigned long long opaque[16]; };"""

HALF_PRELUDE = """\
__device__ __forceinline__ float smemsim_f16_to_f32(unsigned short h)
{ float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short smemsim_f32_to_f16(float f)
{ unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float smemsim_bf16_to_f32(unsigned short h)
{ float f; asm("mov.b32 %0, {%2, %1};" : "=f"(f) : "h"(h), "h"((unsigned short)0)); return f; }
__device__ __forceinline__ unsigned short smemsim_f32_to_bf16(float f)
{ unsigned short h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float smemsim_round_f16(float f)
{ return smemsim_f16_to_f32(smemsim_f32_to_f16(f)); }
__device__ __forceinline__ float smemsim_round_bf16(float f)
{ return smemsim_bf16_to_f32(smemsim_f32_to_bf16(f)); }
// a double: to float rounded to odd first, so that the rounding to 16 bits is the double's
__device__ __forceinline__ float smemsim_float_odd(double d)
{ float f = __double2float_rz(d); return (double)f == d || d != d ? f :
  __int_as_float(__float_as_int(f) | 1); }
__device__ __forceinline__ float smemsim_round_f16(double d)
{ return smemsim_round_f16(smemsim_float_odd(d)); }
__device__ __forceinline__ float smemsim_round_bf16(double d)
{ return smemsim_round_bf16(smemsim_float_odd(d)); }
__device__ __forceinline__ unsigned int smemsim_f16_bits(float f)
{ return smemsim_f32_to_f16(f); }
__device__ __forceinline__ float smemsim_f16_from_bits(unsigned int b)
{ return smemsim_f16_to_f32((unsigned short)b); }
"""
# a view's first element from a byte offset known only at run time: a misaligned view
# traps here, as the original program faults on its access (never a rounded index)
EXACT_DIV_PRELUDE = """\
template <typename T> __device__ __forceinline__ T smemsim_exact_div(T a, T n)
{ if (a % n != 0) __trap(); return a / n; }
"""
HALF_RAW = {2: "unsigned int", 4: "uint2", 8: "uint4"}  # the bits of 2, 4 or 8 halves
DYNAMIC_NAME = "smem_dynamic_"
INDENT = "    "


@dataclass(frozen=True)
class Generated:
    """CUDA source for one kernel and where each shared access site landed in it."""

    kernel: str
    source: str
    site_lines: dict          # site number -> 1-based line in `source`
    arguments: tuple[str, ...]  # the kernel's parameters, in signature order
    loop_lines: tuple[int, ...] = ()  # the `for` / `do {` line of each Loop, in walk() order


def _vector_type(dtype: DType, width: int) -> str:
    return VECTOR_TYPES[(dtype, width)]


def cuda_expr(e: Expr) -> str:
    """C for an expression (the IR printer's C, after `_for_cuda`)."""
    kept = _PRINTED.get(id(e))
    if kept is not None and kept[0] is e:
        return kept[1]
    text = format_expr(_for_cuda(e))
    if len(_PRINTED) >= 1 << 16:
        _PRINTED.clear()
    _PRINTED[id(e)] = (e, text)   # (held here, so its id is not reused)
    return text


# id(expression) -> (the expression, its C): an unrolled kernel's copies share expression
# nodes (matmul_128x128's: 7,905 printed, 3,859 nodes), and a node never changes
_PRINTED: dict[int, tuple[Expr, str]] = {}


def _for_cuda(e: Expr) -> Expr:
    """min/max get both operands cast to the result type, so that CUDA's overloads never
    see mixed signedness or width; everything else prints as it is."""
    if not e.src:
        return e
    src = tuple(_for_cuda(s) for s in e.src)
    if e.op in (Op.MIN, Op.MAX):
        src = tuple(cast(s, e.dtype) for s in src)
    if all(a is b for a, b in zip(src, e.src)):
        return e
    return Expr(e.op, e.dtype, src, e.arg)


def _index(array, index) -> str:
    layout = getattr(array, "layout", None)
    if layout is not None:
        # a swizzled array is declared flat; the swizzle is applied to the padded flat offset
        return f"{array.name}[{cuda_expr(layout.expr(array.flat_index(index)))}]"
    return array.name + "".join(f"[{cuda_expr(i)}]" for i in index)


def _dims(view: SharedArray) -> list[int]:
    """The extents a declaration spells: padded rows, or one flat extent when swizzled."""
    dims = list(view.shape)
    if view.layout is not None:
        return [view.static_bytes // view.dtype.size]
    dims[-1] += view.pad
    return dims


def _declarator(view: SharedArray) -> str:
    """`T (*name)[d1][d2]` for a view over raw bytes (1-D views are plain pointers)."""
    inner = list(view.shape[1:])
    if inner and view.layout is None:
        inner[-1] += view.pad
        dims = "".join(f"[{d}]" for d in inner)
        return f"{view.dtype.c_name} (*{view.name}){dims}", f"{view.dtype.c_name} (*){dims}"
    return f"{view.dtype.c_name}* {view.name}", f"{view.dtype.c_name}*"


# cooperative groups' this_grid().sync(), written out: NVRTC is given no include path, and
# the launch is cooperative (every block resident), so a counter and a generation in global
# memory make the barrier; the last block to arrive resets the counter and starts the next
# generation. Each block's writes are fenced before it arrives and after it leaves.
GRID_SYNC_PRELUDE = """\
__device__ unsigned int smemsim_grid_arrived;
__device__ volatile unsigned int smemsim_grid_generation;
__device__ __forceinline__ void smemsim_grid_sync()
{
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        const unsigned int generation = smemsim_grid_generation;
        const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
        __threadfence();
        if (atomicAdd(&smemsim_grid_arrived, 1u) == blocks - 1) {
            smemsim_grid_arrived = 0;
            __threadfence();
            smemsim_grid_generation = generation + 1;
        } else {
            while (smemsim_grid_generation == generation) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}"""


# every prelude a generated kernel may begin with: a file of several kernels has each once
PRELUDES = (HALF_PRELUDE, EXACT_DIV_PRELUDE, GRID_SYNC_PRELUDE, TENSOR_MAP_PRELUDE,
            GMMA_PRELUDE)


def generate(kernel: Kernel) -> Generated:
    """The CUDA C++ source of a kernel."""
    lines: list[str] = [f"// Generated by smemsim's gpu_backend from the kernels_ir kernel "
                        f"'{kernel.name}'.", ""]
    # each expression node once (an unrolled kernel's copies share them)
    exprs = {id(e): e for st in kernel.statements() for e in st.exprs()}
    calls = {n.arg for e in exprs.values() for n in e.walk() if n.op is Op.CALL}
    if any(a.dtype.storage_only for a in [*kernel.globals, *kernel.shared]) or \
            calls & set(ROUNDINGS + HALF_BITS):
        lines += HALF_PRELUDE.splitlines() + [""]
    if EXACT_DIV in calls:
        lines += EXACT_DIV_PRELUDE.splitlines() + [""]
    if kernel.cooperative:
        lines += GRID_SYNC_PRELUDE.splitlines() + [""]
    args = sorted([*kernel.params, *kernel.globals], key=lambda a: a.uid)
    maps = tensor_maps(kernel)
    if maps:
        lines += TENSOR_MAP_PRELUDE.splitlines() + [""]
    accumulators = {id(s.acc): s.acc for s in kernel.statements() if isinstance(s, Wgmma)}
    if accumulators:
        lines += GMMA_PRELUDE.splitlines() + [""]
    sig = []
    views = kernel.global_views
    viewed = {id(v.base) for v in views}   # read through another type too: no __restrict__
    for a in args:
        if isinstance(a, GlobalArray):
            const = "const " if a.intent == "in" else ""
            restrict = "" if id(a) in viewed else " __restrict__"
            sig.append(f"{const}{a.dtype.c_name}*{restrict} {a.name}")
        else:
            sig.append(f"{a.dtype.c_name} {a.name}")
    # a tensor map is passed by value as a __grid_constant__ parameter (its address is
    # then a generic address the TMA unit reads it from), after the scalars and arrays
    sig += [f"const __grid_constant__ smemsim_tensor_map {m.name}" for m in maps]
    # a block of more than 256 threads may otherwise get more registers per thread than
    # 65,536 / threads, and fail to launch (fast.cu's kernel 7, 384 threads: 254 registers,
    # CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); its own source says __launch_bounds__ as well
    threads = math.prod(e.arg for e in kernel.block) \
        if all(e.op is Op.CONST for e in kernel.block) else 0
    bounds = f"__launch_bounds__({threads}) " if threads > 256 else ""
    lines.append(f'extern "C" __global__ void {bounds}{kernel.name}(' + ", ".join(sig) + ")")
    lines.append("{")
    for v in views:   # a global array's bytes as another element type
        const = "const " if v.base.intent == "in" else ""
        lines.append(f"{INDENT}{const}{v.dtype.c_name}* {v.name} = reinterpret_cast<{const}"
                     f"{v.dtype.c_name}*>({v.base.name});")
    for buf in kernel.buffers:
        primary = buf.views[0]
        if buf.dynamic:
            lines.append(f"{INDENT}extern __shared__ __align__({buf.align}) unsigned char "
                         f"{DYNAMIC_NAME}[];")
            views = buf.views
            base = DYNAMIC_NAME
        else:
            dims = _dims(primary)
            volatile = "volatile " if buf.volatile else ""
            lines.append(f"{INDENT}{volatile}__shared__ __align__({buf.align}) "
                         f"{primary.dtype.c_name} {primary.name}" +
                         "".join(f"[{d}]" for d in dims) + ";")
            views = buf.views[1:]
            base = primary.name
        for v in views:
            decl, cast_type = _declarator(v)
            if buf.volatile:
                decl, cast_type = "volatile " + decl, "volatile " + cast_type
            lines.append(f"{INDENT}{decl} = reinterpret_cast<{cast_type}>({base});")
    w = _Writer(kernel.name, lines, accumulators.values(),
                {id(buf): kernel.buffer_base(buf) for buf in kernel.buffers})
    w.block(kernel.body, 1)
    lines.append("}")
    return Generated(kernel.name, "\n".join(lines) + "\n", w.site_lines,
                     tuple(a.name for a in args) + tuple(m.name for m in maps),
                     tuple(w.loop_lines))


class _Writer:
    """The source being written: its lines, where each site landed, whose kernel it is."""

    def __init__(self, kernel: str, lines: list[str], accumulators=(), bases=None):
        self.kernel, self.lines, self.site_lines = kernel, lines, {}
        # each shared buffer's byte address in the IR's window (a run-time wgmma descriptor
        # holds such addresses: moved to where the compiler placed the buffer)
        self.bases = bases or {}
        self.loop_lines: list[int] = []
        # wgmma accumulator arrays: pinned after each wait so the compiler cannot read them
        # before the asynchronous result lands
        self.accumulators = tuple(accumulators)

    def add(self, depth: int, text: str) -> None:
        """One line at an indentation depth."""
        self.lines.append(INDENT * depth + text)

    def site(self, s, depth: int, text: str) -> None:
        """The line of a shared access site, remembered for the SASS check."""
        self.add(depth, text)
        if getattr(s, "site", None) is not None:
            self.site_lines[s.site] = len(self.lines)

    def block(self, stmts, depth: int) -> None:
        """A statement list, one rule per statement class."""
        for s in stmts:
            rule = _GENERATE.get(type(s))
            if rule is None:
                raise unsupported("the CUDA code generator", s, self.kernel)
            rule(self, s, depth)


def _let(w: _Writer, s: Let, depth: int) -> None:
    w.add(depth, f"{s.var.dtype.c_name} {s.var.name} = {cuda_expr(s.value)};")


def _assign(w: _Writer, s: Assign, depth: int) -> None:
    w.add(depth, f"{s.var.name} = {cuda_expr(s.value)};")


def _half_load(w: _Writer, s: Load, depth: int, where: str) -> None:
    widen = f"smemsim_{s.array.dtype.name}_to_f32"
    if s.width == 1:
        # the bits on the site's own line, so that the SASS attributes the load to it
        w.site(s, depth, f"const unsigned short {s.dst.name}_bits = {where};")
        w.add(depth, f"const float {s.dst.name} = {widen}({s.dst.name}_bits);")
        return
    _packed_load(w, s, depth, where, "unsigned short", "float", widen)


def _half_store(w: _Writer, s: Store, depth: int, where: str) -> None:
    narrow = f"smemsim_f32_to_{s.array.dtype.name}"
    if s.width == 1:
        w.site(s, depth, f"{where} = {narrow}({cuda_expr(s.values[0])});")
        return
    _packed_store(w, s, depth, where, "unsigned short", narrow)


def _packed_load(w: _Writer, s: Load, depth: int, where: str, element: str, held: str,
                 convert: str) -> None:
    """2, 4 or 8 16-bit elements in one access of their bits (CUDA has no vector of halves,
    nor a ushort8: HALF_RAW), then each element as a register holds it (`convert`)."""
    raw, bits = HALF_RAW[s.width], f"{s.dst.name}_bits"
    w.site(s, depth, f"const {raw} {bits} = *reinterpret_cast<const {raw}*>(&{where});")
    w.add(depth, f"{held} {s.dst.name}[{s.width}];")
    for i in range(s.width):
        w.add(depth, f"{s.dst.name}[{i}] = {convert}("
                     f"reinterpret_cast<const {element}*>(&{bits})[{i}]);")


def _packed_store(w: _Writer, s: Store, depth: int, where: str, element: str,
                  convert: str) -> None:
    """The inverse of _packed_load: each value converted into the bits, one access."""
    raw, bits = HALF_RAW[s.width], f"{s.array.name}_bits{len(w.lines)}"
    w.add(depth, f"{raw} {bits};")
    for i, v in enumerate(s.values):
        w.add(depth, f"reinterpret_cast<{element}*>(&{bits})[{i}] = "
                     f"{convert}({cuda_expr(v)});")
    w.site(s, depth, f"*reinterpret_cast<{raw}*>(&{where}) = {bits};")


def _load(w: _Writer, s: Load, depth: int) -> None:
    where = _index(s.array, s.index)
    if s.array.dtype.storage_only:
        _half_load(w, s, depth, where)
        return
    if s.width == 8:   # eight 16-bit integers
        c = s.array.dtype.c_name
        _packed_load(w, s, depth, where, c, c, "")
        return
    if s.width == 1:
        text = f"const {s.dst.dtype.c_name} {s.dst.name} = {where};"
    else:
        vt = _vector_type(s.array.dtype, s.width)
        text = f"const {vt} {s.dst.name} = *reinterpret_cast<const {vt}*>(&{where});"
    w.site(s, depth, text)


def _store(w: _Writer, s: Store, depth: int) -> None:
    where = _index(s.array, s.index)
    if s.array.dtype.storage_only:
        _half_store(w, s, depth, where)
        return
    if s.width == 8:   # eight 16-bit integers
        c = s.array.dtype.c_name
        _packed_store(w, s, depth, where, c, f"({c})")
        return
    if s.width == 1:
        text = f"{where} = {cuda_expr(s.values[0])};"
    else:
        vt = _vector_type(s.array.dtype, s.width)
        vals = ", ".join(cuda_expr(v) for v in s.values)
        text = f"*reinterpret_cast<{vt}*>(&{where}) = make_{vt}({vals});"
    w.site(s, depth, text)


def _atomic(w: _Writer, s: Atomic, depth: int) -> None:
    fn = ATOMIC_OPS[s.kind][0]
    args = [cuda_expr(e) for e in ((s.compare,) if s.compare is not None else ())
            + (s.value,)]
    # atomics take plain pointers: a volatile array's address is cast to one
    volatile = isinstance(s.array, SharedArray) and s.array.buffer.volatile
    plain = f"({s.array.dtype.c_name}*)" if volatile else ""
    call = f"{fn}({plain}&{_index(s.array, s.index)}, {', '.join(args)})"
    text = f"{call};" if s.dst is None else \
        f"const {s.dst.dtype.c_name} {s.dst.name} = {call};"
    w.site(s, depth, text)


def _shared_address(s) -> str:
    """The 32-bit shared-window address PTX's .shared instructions take."""
    return (f"static_cast<unsigned>(__cvta_generic_to_shared((const void*)"
            f"&{_index(s.array, s.index)}))")


def _matrix_opcode(s, op: str) -> str:
    return f"{op}.sync.aligned.m8n8.x{s.count}{'.trans' if s.trans else ''}.shared.b16"


def _load_matrix(w: _Writer, s: LoadMatrix, depth: int) -> None:
    # ldmatrix fills 32-bit registers with two 16-bit elements each, the lower element in
    # the lower half; the fragment is read through an element pointer to them.
    m, name, t = s.count, s.dst.name, s.array.dtype.c_name
    regs = ", ".join(f"%{i}" for i in range(m))
    outs = ", ".join(f'"=r"({name}_r[{i}])' for i in range(m))
    w.add(depth, f"unsigned {name}_r[{m}];")
    w.site(s, depth, f'asm volatile("{_matrix_opcode(s, "ldmatrix")} {{{regs}}}, [%{m}];" '
                     f': {outs} : "r"({_shared_address(s)}));')
    w.add(depth, f"const {t}* {name} = reinterpret_cast<const {t}*>({name}_r);")


def _mma_sync(w: _Writer, s: MmaSync, depth: int) -> None:
    # the PTX instruction itself: A and B as 32-bit words, C and D as words of two halves
    # ("r") or floats ("f")
    name, n = s.dst.name, len(s.c)
    kind, ctype = ("f", "float") if s.ctype == "f32" else \
        ("r", "int") if s.ctype == "s32" else ("d", "double") if s.ctype == "f64" else \
        ("r", "unsigned")
    akind = "d" if s.atype == "f64" else "r"   # A's and B's registers
    operands = [s.a, s.b, s.c]
    first, groups = n, []
    for group in operands:
        groups.append("{" + ", ".join(f"%{first + i}" for i in range(len(group))) + "}")
        first += len(group)
    outs = ", ".join(f'"={kind}"({name}[{i}])' for i in range(n))
    ins = ", ".join([f'"{akind}"({cuda_expr(x)})' for x in (*s.a, *s.b)] +
                    [f'"{kind}"({cuda_expr(x)})' for x in s.c])
    dregs = "{" + ", ".join(f"%{i}" for i in range(n)) + "}"
    opcode = f"mma.sync.aligned.{s.shape}.row.col.{s.ctype}.{s.atype}.{s.atype}.{s.ctype}"
    w.add(depth, f"{ctype} {name}[{n}];")
    w.add(depth, f'asm volatile("{opcode} {dregs}, {", ".join(groups)};" : {outs} : {ins});')


def _store_matrix(w: _Writer, s: StoreMatrix, depth: int) -> None:
    m, name, t = s.count, f"stmatrix{s.site}_r", s.array.dtype.c_name
    w.add(depth, "{")
    w.add(depth + 1, f"unsigned {name}[{m}];")
    w.add(depth + 1, f"{t}* {name}_e = reinterpret_cast<{t}*>({name});")
    for i, v in enumerate(s.values):
        w.add(depth + 1, f"{name}_e[{i}] = {cuda_expr(v)};")
    regs = ", ".join(f"%{i + 1}" for i in range(m))
    ins = ", ".join(f'"r"({name}[{i}])' for i in range(m))
    w.site(s, depth + 1, f'asm volatile("{_matrix_opcode(s, "stmatrix")} [%0], {{{regs}}};" '
                         f':: "r"({_shared_address(s)}), {ins} : "memory");')
    w.add(depth, "}")


def _copy_async(w: _Writer, s: CopyAsync, depth: int) -> None:
    kind = "cg" if s.bypass else "ca"
    if s.src_bytes is None:
        w.site(s, depth, f'asm volatile("cp.async.{kind}.shared.global [%0], [%1], '
                         f'{s.access_bytes};" :: "r"({_shared_address(s)}), '
                         f'"l"(&{_index(s.src, s.src_index)}) : "memory");')
        return
    # the source size: the bytes read, the rest zeroed (a lane reading none passes its
    # address unread)
    w.site(s, depth, f'asm volatile("cp.async.{kind}.shared.global [%0], [%1], '
                     f'{s.access_bytes}, %2;" :: "r"({_shared_address(s)}), '
                     f'"l"(&{_index(s.src, s.src_index)}), "r"((unsigned)({cuda_expr(s.src_bytes)})) '
                     ': "memory");')


def _commit_group(w: _Writer, s: CommitGroup, depth: int) -> None:
    w.add(depth, 'asm volatile("cp.async.commit_group;" ::: "memory");')


def _wait_group(w: _Writer, s: WaitGroup, depth: int) -> None:
    w.add(depth, f'asm volatile("cp.async.wait_group {s.pending};" ::: "memory");')


def _barrier_address(s, array, index) -> str:
    return (f"static_cast<unsigned>(__cvta_generic_to_shared((const void*)"
            f"&{_index(array, index)}))")


def _tma_load(w: _Writer, s: TmaLoad, depth: int) -> None:
    m = s.tensor_map
    # PTX takes the coordinates innermost first; the IR states them outermost first
    coords = ", ".join(f"%{i + 2}" for i in range(m.rank))
    ins = ", ".join(f'"r"((int)({cuda_expr(c)}))' for c in reversed(s.coords))
    bar = m.rank + 2
    w.site(s, depth, f'asm volatile("cp.async.bulk.tensor.{m.rank}d.shared::cluster.global.'
                     f'mbarrier::complete_tx::bytes [%0], [%1, {{{coords}}}], [%{bar}];" :: '
                     f'"r"({_shared_address(s)}), "l"(reinterpret_cast<unsigned long long>('
                     f'&{m.name})), {ins}, "r"({_barrier_address(s, s.barrier, s.barrier_index)})'
                     ' : "memory");')


def _tma_store(w: _Writer, s: TmaStore, depth: int) -> None:
    m = s.tensor_map
    coords = ", ".join(f"%{i + 1}" for i in range(m.rank))
    ins = ", ".join(f'"r"((int)({cuda_expr(c)}))' for c in reversed(s.coords))
    w.site(s, depth, f'asm volatile("cp.async.bulk.tensor.{m.rank}d.global.shared::cta.'
                     f'bulk_group [%0, {{{coords}}}], [%{m.rank + 1}];" :: '
                     f'"l"(reinterpret_cast<unsigned long long>(&{m.name})), {ins}, '
                     f'"r"({_shared_address(s)}) : "memory");')


def _bulk_load(w: _Writer, s: BulkLoad, depth: int) -> None:
    w.site(s, depth, 'asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::'
                     'complete_tx::bytes [%0], [%1], %2, [%3];" :: '
                     f'"r"({_shared_address(s)}), "l"(&{_index(s.src, s.src_index)}), '
                     f'"r"({s.nbytes}u), "r"({_barrier_address(s, s.barrier, s.barrier_index)})'
                     ' : "memory");')


def _bulk_store(w: _Writer, s: BulkStore, depth: int) -> None:
    w.site(s, depth, 'asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], '
                     f'%2;" :: "l"(&{_index(s.dst, s.dst_index)}), "r"({_shared_address(s)}), '
                     f'"r"({s.nbytes}u) : "memory");')


_GMMA_TYPES = {"f16": "f16", "bf16": "bf16"}


def _gmma_descriptor(w: "_Writer", array, index, layout, desc=None) -> str:
    if desc is not None:
        # the IR computed the start from its own window addresses: add how far this build
        # placed the buffer from there, in the start field's 16-byte units
        base = w.bases[id(array.buffer)]
        return (f"(({cuda_expr(desc)}) + (unsigned long long)(((long long)static_cast<unsigned>"
                f"(__cvta_generic_to_shared((const void*){array.name})) - {base}LL) >> 4))")
    return (f"smemsim_gmma_desc(&{_index(array, index)}, {layout.lbo}u, {layout.sbo}u, "
            f"{layout.base_offset}u, {SWIZZLE_CODES[layout.swizzle]}u)")


def _acc_element(s: Wgmma, i: int) -> str:
    """Accumulator i of a wgmma as C: its sub-array's element by the array's own shape."""
    parts, rest = [], i
    for extent in reversed(s.acc.shape[len(s.acc_index):]):
        parts.insert(0, rest % extent)
        rest //= extent
    lead = "".join(f"[{cuda_expr(e)}]" for e in s.acc_index)
    return f"{s.acc.name}{lead}" + "".join(f"[{p}]" for p in parts)


def _wgmma(w: _Writer, s: Wgmma, depth: int) -> None:
    half = s.n // 2
    regs = ", ".join(f"%{i}" for i in range(half))
    kind = _GMMA_TYPES[s.array.dtype.name]
    trans_b = int(s.layout.major == "MN")
    outs = ", ".join(f'"+f"({_acc_element(s, i)})' for i in range(half))
    w.add(depth, "{")
    if s.a_regs is None:
        w.add(depth + 1, f"const unsigned long long smemsim_da = "
                         f"{_gmma_descriptor(w, s.a_array, s.a_index, s.a_layout, s.a_desc)};")
        a_text, a_ins, after = f"%{half}", '"l"(smemsim_da)', 1
        trans = f"{int(s.a_layout.major == 'MN')}, {trans_b}"
    else:   # A's fragment: four 32-bit registers, two 16-bit elements each
        a_text = "{" + ", ".join(f"%{half + i}" for i in range(4)) + "}"
        a_ins = ", ".join(f'"r"({s.a_regs.name}[{i}])' for i in range(4))
        after, trans = 4, str(trans_b)
    w.add(depth + 1, f"const unsigned long long smemsim_db = "
                     f"{_gmma_descriptor(w, s.array, s.index, s.layout, s.desc)};")
    w.site(s, depth + 1, f'SMEMSIM_SM90A(asm volatile("{{ .reg .pred p; setp.ne.b32 p, '
                         f'%{half + after + 1}, 0; '
                         f'wgmma.mma_async.sync.aligned.m64n{s.n}k16.f32.{kind}.{kind} '
                         f'{{{regs}}}, {a_text}, %{half + after}, p, 1, 1, {trans}; }}" '
                         f': {outs} : {a_ins}, "l"(smemsim_db), '
                         f'"r"((int)({cuda_expr(s.scale_d)})) : "memory"));')
    w.add(depth, "}")


def _wgmma_wait(w: _Writer, s: WgmmaWait, depth: int) -> None:
    w.add(depth, f'SMEMSIM_SM90A(asm volatile("wgmma.wait_group.sync.aligned {s.pending};" '
                 '::: "memory"));')
    for acc in w.accumulators:   # every element, through a flat view of the array
        w.add(depth, f"for (int smemsim_i = 0; smemsim_i < {math.prod(acc.shape)}; "
                     f"++smemsim_i) asm volatile(\"\" : \"+f\"(((float*){acc.name})"
                     '[smemsim_i]) :: "memory");')


def _mbarrier_init(w: _Writer, s: MbarrierInit, depth: int) -> None:
    w.add(depth, f'asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: '
                 f'"r"({_barrier_address(s, s.array, s.index)}), '
                 f'"r"((unsigned)({cuda_expr(s.count)})) : "memory");')
    # the initialization must be visible to the async proxy (TMA) before a copy signals it
    w.add(depth, 'asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");')
    w.add(depth, 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");')


def _mbarrier_arrive(w: _Writer, s: MbarrierArrive, depth: int) -> None:
    bar = _barrier_address(s, s.array, s.index)
    if s.token is not None:
        # the IR's token is the number of the phase arrived on, which a wait reads as its
        # parity (token & 1); PTX's own state is opaque, so the generated code takes the
        # current phase's parity before arriving (test_wait.parity 0 succeeds once phase 0,
        # the current phase's predecessor then, has completed): the phase cannot complete
        # before this thread's arrival, which it counts. Only that bit is kept.
        w.add(depth, f"unsigned long long {s.token.name};")
        w.add(depth, 'asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 '
                     'p, [%1], 0; selp.u64 %0, 1, 0, p; }" : '
                     f'"=l"({s.token.name}) : "r"({bar}) : "memory");')
    if s.kind == "cp_async":
        w.add(depth, f'asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: '
                     f'"r"({bar}) : "memory");')
    elif s.kind == "expect_tx":
        w.add(depth, f'asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" '
                     f':: "r"({bar}), "r"((unsigned)({cuda_expr(s.expect_tx)})) : "memory");')
    elif s.expect_tx is None:
        w.add(depth, f'asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"({bar}) '
                     ': "memory");')
    else:
        w.add(depth, f'asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" '
                     f':: "r"({bar}), "r"((unsigned)({cuda_expr(s.expect_tx)})) : "memory");')


def _mbarrier_wait(w: _Writer, s: MbarrierWait, depth: int) -> None:
    w.add(depth, "{")
    w.add(depth + 1, "unsigned smemsim_done = 0;")
    w.add(depth + 1, "while (!smemsim_done) {")
    w.add(depth + 2, 'asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 '
                     'p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(smemsim_done) : '
                     f'"r"({_barrier_address(s, s.array, s.index)}), '
                     f'"r"((unsigned)({cuda_expr(s.parity)})) : "memory");')
    w.add(depth + 1, "}")
    w.add(depth, "}")


def _shuffle(w: _Writer, s: Shuffle, depth: int) -> None:
    mask = _mask(s.mask) if isinstance(s.mask, int) else cuda_expr(s.mask)
    if s.mode in VOTE_MODES:
        w.add(depth, f"const {s.dst.dtype.c_name} {s.dst.name} = {VOTE_MODES[s.mode]}("
                     f"{mask}, {cuda_expr(s.value)});")
        return
    fn = SHUFFLE_MODES[s.mode]
    width = s.width if isinstance(s.width, int) else cuda_expr(s.width)
    w.add(depth, f"const {s.dst.dtype.c_name} {s.dst.name} = {fn}({mask}, "
                 f"{cuda_expr(s.value)}, {cuda_expr(s.lane)}, {width});")


def _syncwarp(w: _Writer, s: SyncWarp, depth: int) -> None:
    mask = _mask(s.mask) if isinstance(s.mask, int) else cuda_expr(s.mask)
    w.add(depth, f"__syncwarp({mask});")


def _mask(mask: int) -> str:
    """A lane mask in CUDA (ACTIVE_MASK: `__activemask()`)."""
    return "__activemask()" if mask == ACTIVE_MASK else f"0x{mask:08x}u"


def _declare_local(w: _Writer, s: DeclareLocal, depth: int) -> None:
    dims = "".join(f"[{d}]" for d in s.array.shape)
    w.add(depth, f"{s.array.dtype.c_name} {s.array.name}{dims} = {{}};")


def _local_store(w: _Writer, s: LocalStore, depth: int) -> None:
    w.add(depth, f"{_index(s.array, s.index)} = {cuda_expr(s.value)};")


def _loop(w: _Writer, s: Loop, depth: int) -> None:
    v, t = s.var.name, s.var.dtype.c_name
    if s.do_while:
        w.add(depth, "{")
        w.add(depth, f"{INDENT}{t} {v} = {cuda_expr(s.start)};")
        w.add(depth, f"{INDENT}do {{")
        w.loop_lines.append(len(w.lines))
        w.block(s.body, depth + 2)
        w.add(depth, f"{INDENT * 2}{v} += {cuda_expr(s.step)};")
        w.add(depth, f"{INDENT}}} while ({cuda_expr(s.cond)});")
        w.add(depth, "}")
        return
    pragma = _PRAGMAS.get(s.unroll, f"#pragma unroll {s.unroll}")
    if pragma:
        w.add(depth, pragma)
    w.add(depth, f"for ({t} {v} = {cuda_expr(s.start)}; {cuda_expr(s.cond)}; "
                 f"{_advance(s)}) {{")
    w.loop_lines.append(len(w.lines))
    w.block(s.body, depth + 1)
    w.add(depth, "}")


# a loop's `unroll` as its pragma ("auto": none, nvcc decides; a count N: #pragma unroll N)
_PRAGMAS = {True: "#pragma unroll", False: "#pragma unroll 1", "auto": ""}


def _advance(s: Loop) -> str:
    v = s.var.name
    return f"{v} = {cuda_expr(s.update)}" if s.update is not None else \
        f"{v} += {cuda_expr(s.step)}"


def _if(w: _Writer, s: If, depth: int) -> None:
    w.add(depth, f"if ({cuda_expr(s.cond)}) {{")
    w.block(s.then, depth + 1)
    if s.orelse:
        w.add(depth, "} else {")
        w.block(s.orelse, depth + 1)
    w.add(depth, "}")


def _sync(w: _Writer, s: Sync, depth: int) -> None:
    w.add(depth, "smemsim_grid_sync();" if s.grid else "__syncthreads();")


def _sync_reduce(w: _Writer, s: SyncReduce, depth: int) -> None:
    w.add(depth, f"const int {s.dst.name} = {SYNC_REDUCTIONS[s.op]}({cuda_expr(s.pred)});")


# The CUDA of each statement class; a class missing here is an error, never skipped.
_GENERATE = {Let: _let, Assign: _assign, Load: _load, Store: _store,
             DeclareLocal: _declare_local, LocalStore: _local_store, Loop: _loop, If: _if,
             Sync: _sync, SyncReduce: _sync_reduce, Atomic: _atomic, LoadMatrix: _load_matrix,
             StoreMatrix: _store_matrix, Shuffle: _shuffle, SyncWarp: _syncwarp,
             MmaSync: _mma_sync,
             CopyAsync: _copy_async, CommitGroup: _commit_group, WaitGroup: _wait_group,
             TmaLoad: _tma_load, MbarrierInit: _mbarrier_init, MbarrierArrive: _mbarrier_arrive,
             MbarrierWait: _mbarrier_wait, TmaStore: _tma_store, BulkLoad: _bulk_load,
             BulkStore: _bulk_store,
             BulkCommit: lambda w, s, d: w.add(d, 'asm volatile("cp.async.bulk.commit_group;" '
                                                  '::: "memory");'),
             BulkWait: lambda w, s, d: w.add(d, 'asm volatile("cp.async.bulk.wait_group'
                                                f'{".read" if s.read else ""} {s.pending};" '
                                                '::: "memory");'),
             FenceProxyAsync: lambda w, s, d: w.add(d, 'asm volatile("fence.proxy.async.'
                                                       'shared::cta;" ::: "memory");'),
             Wgmma: _wgmma, WgmmaWait: _wgmma_wait,
             WgmmaFence: lambda w, s, d: w.add(d, 'SMEMSIM_SM90A(asm volatile('
                                                  '"wgmma.fence.sync.aligned;" ::: "memory"));'),
             WgmmaCommit: lambda w, s, d: w.add(d, 'SMEMSIM_SM90A(asm volatile('
                                                   '"wgmma.commit_group.sync.aligned;" '
                                                   '::: "memory"));'),
             Return: lambda w, s, depth: w.add(depth, "return;"),
             # (the trap stops the kernel as assert does; the condition's text is not
             # written into the source)
             Assert: lambda w, s, depth: w.add(depth,
                                               f"if (!({cuda_expr(s.cond)})) __trap();")}

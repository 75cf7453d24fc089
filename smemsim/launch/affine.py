"""What is affine in what: an expression with a body's locals written out, and its degree
in a variable (a loop's counter, or the block's indices): the reading that lets `check`
run two iterations of a loop for all of them and a few blocks at the grid's ends for every
block (slicing, block_ends), and the PTX path write a guard out (speculated)."""
from __future__ import annotations

from kernels_ir.expr import Expr, Op


def inline_locals(e: Expr, lets: dict, seen: frozenset = frozenset()) -> Expr:
    """`e` with the loop body's locals replaced by their values (each local written out once
    and shared: locals reading locals make a DAG, which written out as a tree may be
    exponentially larger; `seen`: locals left as they are)."""
    memo: dict = {}   # var name or id(node) -> written out (where no local was left unresolved)

    def out(e: Expr, open_: frozenset) -> tuple[Expr, bool]:
        # -> (written out, whether a local was left as it is because it reads itself)
        if e.op is Op.VAR and e.arg in lets:
            if e.arg in open_:
                return e, True
            if e.arg in memo:
                return memo[e.arg], False
            value, cut = out(lets[e.arg], open_ | {e.arg})
            if not cut:
                memo[e.arg] = value
            return value, cut
        if not e.src:
            return e, False
        if id(e) in memo:
            return memo[id(e)], False
        pairs = [out(x, open_) for x in e.src]
        src = tuple(x for x, _ in pairs)
        cut = any(c for _, c in pairs)
        value = e if all(a is b for a, b in zip(src, e.src)) else Expr(e.op, e.dtype, src, e.arg)
        if not cut:
            memo[id(e)] = value
        return value, cut

    return out(e, seen)[0]


def written_out_size(e: Expr, lets: dict, memo: dict, seen: frozenset = frozenset()) -> int:
    """The number of nodes of `e` written out as a tree (inline_locals; `memo`: the sizes of
    locals, kept across calls over one body's `lets`), to refuse writing out what is too big
    to walk."""
    if e.op is Op.VAR and e.arg in lets and e.arg not in seen:
        if e.arg not in memo:
            memo[e.arg] = written_out_size(lets[e.arg], lets, memo, seen | {e.arg})
        return memo[e.arg]
    return 1 + sum(written_out_size(x, lets, memo, seen) for x in e.src)


def affine_degree(e: Expr, var, lets: dict, seen: frozenset = frozenset(),
                  is_var=None, modular: bool = False, memo: dict | None = None) -> int | None:
    """0 where `e` does not depend on `var` (or on the leaves `is_var` accepts, instead),
    1 where it is affine in it (integer sums, products by what does not depend on it, shifts
    left by such, widening casts; `modular`: narrowing ones too, affine modulo their width,
    for a caller that checks the progression it sees), None otherwise (`lets`: the body's
    locals, by their values). `memo`: the degrees found so far, for a caller that asks of
    many parts of one expression with the same `var`, `lets`, `is_var` and `modular`."""
    if memo is None:
        return _degree(e, var, lets, seen, is_var, modular, None)
    key = (id(e), seen)
    found = memo.get(key, memo)
    if found is memo:
        found = memo[key] = _degree(e, var, lets, seen, is_var, modular, memo)
    return found


def _degree(e: Expr, var, lets: dict, seen: frozenset, is_var, modular: bool,
            memo: dict | None) -> int | None:
    if is_var is not None and is_var(e):
        return 1
    if e.op is Op.VAR:
        if e.arg == var:
            return 1
        if e.arg in lets and e.arg not in seen:
            return affine_degree(lets[e.arg], var, lets, seen | {e.arg}, is_var, modular,
                                 memo)
        return 0
    if not e.src:
        return 0
    parts = [affine_degree(x, var, lets, seen, is_var, modular, memo) for x in e.src]
    if None in parts:
        return None
    if max(parts) == 0:
        return 0
    if e.dtype.is_float:
        return None
    if e.op in (Op.ADD, Op.SUB):
        return 1
    if e.op is Op.MUL and min(parts) == 0:
        return 1
    if e.op is Op.SHL and parts[1] == 0:
        return 1
    if e.op is Op.NEG:
        return 1
    if e.op is Op.CAST and not e.src[0].dtype.is_float and \
            (e.dtype.size >= e.src[0].dtype.size or modular):
        return 1
    if e.op is Op.OR and sorted(parts) == [0, 1]:
        # (nvcc's `a | b` for `a + b` where b's bits are ones a has zero: `(blockIdx.x <<
        # 7) | (threadIdx.x & 96)`: the sum, affine where a is)
        a, b = (e.src[0], e.src[1]) if parts[0] == 1 else (e.src[1], e.src[0])
        may = _bits(b, lets, seen)[1]
        if may is not None and not may & ~_bits(a, lets, seen)[0]:
            return 1
    return None


def _bits(e: Expr, lets: dict, seen: frozenset = frozenset()) -> tuple[int, int | None]:
    """(the bits `e` is known to have zero, the bits it may have set or None where it may
    be negative or unbounded), of an integer expression, within its width: enough to see
    that an OR adds (a shifted block index, a thread's masked bits)."""
    width = (1 << e.dtype.bits) - 1 if not e.dtype.is_float else 0
    if e.dtype.is_float:
        return 0, None
    op = e.op
    if op is Op.VAR:
        if e.arg in lets and e.arg not in seen:
            return _bits(lets[e.arg], lets, seen | {e.arg})
        return 0, None
    if op is Op.CONST:
        c = int(e.arg)
        return (~c & width, c) if c >= 0 else (0, None)
    if op is Op.SPECIAL:
        # (a thread index is below 1024 in every launch; a block's may take any value)
        return (~1023 & width, 1023) if e.arg[0] == "threadIdx" else (0, None)
    src = [_bits(x, lets, seen) for x in e.src if isinstance(x, Expr)]
    if op is Op.CAST and not e.src[0].dtype.is_float:
        zero, may = src[0]
        if may is None:   # (a value that may be negative is sign-extended: low bits only)
            return zero & ((1 << e.src[0].dtype.bits) - 1) & width, None
        return (zero | ~((1 << e.src[0].dtype.bits) - 1)) & width, may
    if op is Op.AND:
        (z0, m0), (z1, m1) = src
        may = m0 & m1 if m0 is not None and m1 is not None else m0 if m1 is None else m1
        return (z0 | z1) & width, may
    if op is Op.OR:
        (z0, m0), (z1, m1) = src
        return z0 & z1, (m0 | m1) if m0 is not None and m1 is not None else None
    if op in (Op.SHL, Op.SHR) and e.src[1].op is Op.CONST and 0 <= e.src[1].arg < e.dtype.bits:
        k = int(e.src[1].arg)
        zero, may = src[0]
        if op is Op.SHL:
            return ((zero << k) | ((1 << k) - 1)) & width, \
                (may << k) & width if may is not None and (may << k) <= width >> 1 else None
        if may is None:
            return 0, None
        return (~(may >> k)) & width, may >> k
    if op is Op.MUL and e.src[1].op is Op.CONST and e.src[1].arg > 0:
        # (trailing zeros: the constant's, and the ones the factor has)
        k = (int(e.src[1].arg) & -int(e.src[1].arg)).bit_length() - 1
        zero = src[0][0]
        k += (~zero & (zero + 1)).bit_length() - 1
        return ((1 << k) - 1) & width, None
    if op is Op.ADD:
        for (za, ma), (zb, mb) in ((src[0], src[1]), (src[1], src[0])):
            t = (~zb & (zb + 1)).bit_length() - 1   # the low bits b has zero
            if ma is not None and ma < (1 << t):
                # (a below 2^t plus b a multiple of it: their OR, `(threadIdx.x & 31) +
                # (blockIdx.x << 7)`, whose bits 5 and 6 stay zero)
                return za & zb & width, (ma | mb) if mb is not None else None
    if op in (Op.ADD, Op.SUB):
        # (the low bits both have zero stay zero)
        (z0, _), (z1, _) = src
        common = z0 & z1
        low = (~common & (common + 1)) - 1 if common & 1 else 0
        return low & width, None
    return 0, None

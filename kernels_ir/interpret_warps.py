"""How the interpreter runs a warp's collective statements: shuffles, votes, matches,
ldmatrix/stmatrix, mma.sync and wgmma, each over whole warps."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import interpret_async
from .dtypes import BY_NAME, from_storage, to_storage
from .run_types import LayoutMismatch, WarpBarrierReached
from .semantics import LaneFault, convert
from .stmt import ACTIVE_MASK, VOTE_MODES, LoadMatrix, MmaSync, Shuffle, StoreMatrix, SyncWarp
from .stmt_async import Wgmma
from .wgmma import a_fragment_positions, accumulator_positions, decode
from .tma import swizzle_bytes

if TYPE_CHECKING:
    from .interpreter import Machine


def gmma_operands(machine: Machine, s: Wgmma, idx: np.ndarray):
    """Per executing warpgroup: the flat shared indices of A's (64 x 16) and B's (n x 16)
    first bytes, read through the descriptors, after the checks a GPU would need to
    read the intended bytes; the warpgroups' first threads; each operand's start (flat)
    and the layout each warpgroup's descriptor says."""
    tpb = machine.tpb
    key = idx // tpb * (tpb // 128 + 1) + idx % tpb // 128
    heads, first_lane, counts = np.unique(key, return_index=True, return_counts=True)
    partial = counts != 128
    if partial.any():
        lane = int(first_lane[np.flatnonzero(partial)[0]])
        raise LaneFault(f"wgmma is executed by {int(counts[partial][0])} threads of a "
                        "warpgroup: all 128 threads of 4 consecutive warps must execute it "
                        "(.sync.aligned)", np.array([lane]))
    out = []
    for array, index, layout, desc, rows in (
            (s.a_array, s.a_index, s.a_layout, s.a_desc, 64),
            (s.array, s.index, s.layout, s.desc, s.n)):
        if array is None:      # A from registers
            out.append((None, None, None))
            continue
        size = array.dtype.size
        if desc is None:
            offset = machine._element_offsets(array, index, 1, idx)
            start = machine.kernel.buffer_base(array.buffer) + offset * size
            what = f"starts of '{array.name}' (byte"
        else:   # the descriptor's bits, as the hardware reads them
            value, start = machine._descriptors(desc, idx)
            what = f"descriptors for '{array.name}' (start byte"
        lead = start[first_lane]
        uneven = start != np.repeat(lead, counts)
        if desc is not None:
            uneven |= value != np.repeat(value[first_lane], counts)
        if uneven.any():
            lane = int(np.flatnonzero(uneven)[0])
            raise LaneFault(f"the threads of a warpgroup give wgmma different {what} "
                            f"{int(start[lane])}, not {int(np.repeat(lead, counts)[lane])}"
                            "): the descriptor is the warpgroup's", np.array([lane]))
        bad = lead % 16 != 0
        if bad.any():
            lane = int(first_lane[np.flatnonzero(bad)[0]])
            raise LaneFault(f"a wgmma descriptor's start address must be 16-byte aligned, "
                            f"'{array.name}' starts at byte {int(start[lane])}",
                            np.array([lane]))
        if desc is None:
            kinds, which = [layout], np.zeros(lead.size, np.int64)
        else:   # the fields besides the start: usually one layout for every warpgroup
            rest, which = np.unique(value[first_lane] & ~np.uint64(0x3FFF),
                                    return_inverse=True)
            kinds = [decode(int(v), layout.major)[1] for v in rest]
        layouts = [kinds[i] for i in which]
        addr = np.empty((lead.size, rows, 16), np.int64)
        for i, one in enumerate(kinds):
            groups = np.flatnonzero(which == i)
            addr[groups] = one.addresses(lead[groups], rows, size)
        outside = (addr < 0) | (addr + size > machine.window)
        if outside.any():
            g = int(np.flatnonzero(outside.any(axis=(1, 2)))[0])
            one = layouts[g]
            raise LaneFault(f"wgmma reads '{array.name}' through its descriptor "
                            f"({one.major}-major, {one.swizzle or 'no swizzle'}, LBO "
                            f"{one.lbo}, SBO {one.sbo}) at byte "
                            f"{int(addr[g][outside[g]][0])}, outside the block's "
                            f"{machine.window}-byte shared window", np.array([first_lane[g]]))
        block = machine.block_lin[idx[first_lane]]
        flat = block[:, None, None] * machine.window + addr
        nbytes = (flat[..., None] + np.arange(size)).reshape(flat.shape[0], -1)
        interpret_async.check_async_source(machine, "wgmma", array, nbytes, first_lane)
        out.append((flat, block * machine.window + lead, layouts))
    (a_flat, a_start, a_layouts), (b_flat, b_start, b_layouts) = out
    return a_flat, b_flat, idx[first_lane], a_start, b_start, a_layouts, b_layouts


def wgmma(machine: Machine, s: Wgmma, idx: np.ndarray) -> None:
    offset = machine._offsets(s, idx)
    if machine._addresses_only(s, idx, offset):
        return
    a_flat, b_flat, heads, a_start, b_start, a_layouts, b_layouts = \
        gmma_operands(machine, s, idx)
    dtype = s.array.dtype
    halves = machine.shared.view(dtype.storage)
    if s.a_regs is not None:    # A from the warpgroup's registers, by its fragment
        words = machine.local_arrays[s.a_regs].reshape(machine.total, -1).astype(np.uint32)
        bits = np.stack([words & 0xFFFF, words >> 16], axis=-1).reshape(machine.total, 8)
        frag = from_storage(bits.astype(np.uint16).view(dtype.storage), dtype)
        rows_a, cols_a = a_fragment_positions()
        a = np.zeros((heads.size, 64, 16), np.float32)
        a[:, rows_a, cols_a] = frag[heads[:, None] + np.arange(128)]
    else:
        a = from_storage(halves[a_flat // 2], dtype).astype(np.float32)  # (G, 64, 16)
    b = from_storage(halves[b_flat // 2], dtype).astype(np.float32)     # (G, n, 16)
    product = np.matmul(a, b.transpose(0, 2, 1))                          # (G, 64, n)
    if machine.origin is not None and machine.observer is not None:
        check_operands(machine, s, a_flat, b_flat, heads, a_start, b_start, a_layouts,
                                b_layouts)
    rows, cols = accumulator_positions(s.n)
    threads = heads[:, None] + np.arange(128)                             # (G, 128)
    acc = machine.local_arrays[s.acc].reshape(machine.total, -1)
    keep = machine.eval(s.scale_d, heads) != 0
    columns = np.arange(s.n // 2)[None, None, :]
    if s.acc_index:   # a sub-array `d[m]`: its leading indices, the same in a warpgroup
        base = np.zeros(threads.size, np.int64)
        for e, extent in zip(s.acc_index, s.acc.shape):
            i = machine.eval(e, threads.ravel()).astype(np.int64)
            if ((i < 0) | (i >= extent)).any():
                lane = int(np.flatnonzero((i < 0) | (i >= extent))[0])
                raise LaneFault(f"wgmma's accumulators: index {i[lane]} of '{s.acc.name}' "
                                f"is outside 0..{extent - 1}",
                                np.flatnonzero(idx == threads.ravel()[lane])[:1])
            base = base * extent + i
        base = base.reshape(threads.shape) * (s.n // 2)
        if (base != base[:, :1]).any():
            g = int(np.flatnonzero((base != base[:, :1]).any(axis=1))[0])
            raise LaneFault(f"wgmma's accumulators '{s.acc.name}' differ within a "
                            "warpgroup (each thread names another sub-array)",
                            np.flatnonzero(idx == threads[g, 0])[:1])
        columns = base[:, :, None] + columns
    old = acc[threads[:, :, None], columns]                               # (G, 128, n/2)
    new = product[:, rows, cols]
    acc[threads[:, :, None], columns] = \
        np.where(keep[:, None, None], old + new, new).astype(np.float32)


def check_operands(machine: Machine, s: Wgmma, a_flat, b_flat, heads, a_start, b_start, a_layouts,
                   b_layouts) -> None:
    """Both operands that shared memory holds against what TMA wrote there."""
    for name, flat, start, layouts, array in (
            ("A", a_flat, a_start, a_layouts, s.a_array),
            ("B", b_flat, b_start, b_layouts, s.array)):
        if array is not None:
            _check_agreement(machine, s, name, flat, start, layouts, array, heads)


def _check_agreement(machine: Machine, s: Wgmma, name: str, flat: np.ndarray, start: np.ndarray,
                     layouts, array, heads: np.ndarray) -> None:
    """Where TMA wrote an operand, element (mn, k) must hold the global element at the
    operand's first element's plus (mn, k) in the tensor's rows and columns (K-major:
    rows are mn; MN-major: rows are k), the first being the element TMA laid at the
    descriptor's start; else report the first that does not."""
    origin = machine.origin[flat]                                  # (G, rows, 16)
    maps = origin >> 40
    for g in range(origin.shape[0]):
        if not maps[g].all() or (maps[g] != maps[g, 0, 0]).any():
            continue    # not (only) one TMA map's elements: nothing to compare with
        m = machine.origin_maps[int(maps[g, 0, 0]) - 1]
        layout = layouts[g]
        stride = int(machine.eval(m.row_stride, heads[:1])[0]) if m.row_stride is not None \
            else 1 << 30
        window_start = int(start[g]) - int(start[g]) % machine.window
        first = machine.origin[window_start + int(swizzle_bytes(
            np.array([int(start[g]) % machine.window]), m.swizzle)[0])]
        if first >> 40 != maps[g, 0, 0]:
            continue
        got = (origin[g] & ((1 << 40) - 1)) - 1
        anchor = int(first & ((1 << 40) - 1)) - 1
        mn = np.arange(origin.shape[1])[:, None]
        k = np.arange(16)[None, :]
        want = anchor + (mn * stride + k if layout.major == "K" else k * stride + mn)
        wrong = got != want
        if not wrong.any():
            continue
        i, j = (int(x) for x in np.argwhere(wrong)[0])
        row, col = divmod(int(got[i, j] - anchor), stride)
        seen = (row, col) if layout.major == "K" else (col, row)
        fix = (f"the descriptor says {layout.swizzle or 'no swizzle'} where tensor map "
               f"'{m.name}' wrote {m.swizzle or 'no swizzle'}: make them agree"
               if layout.swizzle != m.swizzle else
               f"the descriptor's base offset {layout.base_offset} takes that much off "
               "the swizzle's row phase, where TMA swizzled the absolute address: make "
               "it 0" if layout.base_offset else
               f"the descriptor's LBO {layout.lbo} / SBO {layout.sbo} (or its start) do "
               f"not match how '{m.name}''s boxes lie in '{array.name}'")
        machine.observer(LayoutMismatch(s, f"wgmma reads {name}({i}, {j}) from the bytes of "
                                        f"{name}({seen[0]}, {seen[1]}) ('{array.name}', "
                                        f"{layout.major}-major): {fix}",
                                        int(heads[g])))
        return


def _warp_lanes(machine: Machine, s, idx: np.ndarray, mask: int | np.ndarray):
    """(dense warp of each lane, its lane number, the warps, lane presence table), after
    CUDA's rules: every executing lane is in `mask` (an int, or each lane's value of a
    run-time mask), every existing lane of `mask` executes it (with the same mask)."""
    thread = idx % machine.tpb
    key = (idx // machine.tpb) * machine.launch.warps_per_block + thread // 32
    lane = thread % 32
    if isinstance(mask, int) and mask == ACTIVE_MASK:  # exactly the lanes executing it
        warps, dense = np.unique(key, return_inverse=True)
        present = np.zeros((warps.size, 32), bool)
        present[dense, lane] = True
        return dense, lane, warps, present
    outside = ((mask >> lane) & 1) == 0
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        value = mask if isinstance(mask, int) else int(mask[first])
        raise LaneFault(f"lane {int(lane[first])} executes a warp operation whose "
                        f"mask 0x{value:08x} does not name it (undefined in CUDA)",
                        np.flatnonzero(outside))
    warps, dense = np.unique(key, return_inverse=True)
    present = np.zeros((warps.size, 32), bool)
    present[dense, lane] = True
    # lanes that exist in each warp (the last warp of a block may be partial)
    exists = (warps % machine.launch.warps_per_block)[:, None] * 32 + np.arange(32) \
        < machine.tpb
    if machine.returns:  # lanes that returned are not waited for
        lanes = (warps // machine.launch.warps_per_block)[:, None] * machine.tpb + \
            (warps % machine.launch.warps_per_block)[:, None] * 32 + np.arange(32)
        exists &= ~machine.exited[np.minimum(lanes, machine.total - 1)]
    if not isinstance(mask, int):
        # each lane's own mask (a tile of 16 of cooperative groups names its half of
        # the warp): every existing lane it names executes the operation with the same
        # mask (two tiles of one warp may each run theirs)
        table = np.full(present.shape, -1, np.int64)
        table[dense, lane] = mask
        for b in range(32):
            named = ((mask >> b) & 1).astype(bool) & exists[dense, b]
            other = table[dense, b]
            missing = np.flatnonzero(named & (other < 0))
            if missing.size:
                at = int(missing[0])
                raise LaneFault(f"lane {b} is named in the mask 0x{int(mask[at]):08x} but "
                                "does not execute this warp operation (undefined in "
                                "CUDA)", missing)
            differs = np.flatnonzero(named & (other >= 0) & (other != mask))
            if differs.size:
                at = int(differs[0])
                raise LaneFault(f"lanes of one warp execute a warp operation with "
                                f"different masks (0x{int(mask[at]):08x} and 0x"
                                f"{int(other[at]):08x}; undefined in CUDA)",
                                differs)
        return dense, lane, warps, present
    named = exists & ((mask >> np.arange(32)) & 1).astype(bool)
    missing = named & ~present
    if missing.any():
        w, missing_lane = (int(x) for x in np.argwhere(missing)[0])
        raise LaneFault(f"lane {missing_lane} is named in the mask 0x{mask:08x} but does "
                        "not execute this warp operation (undefined in CUDA)",
                        # (the lanes of every warp one is missing from: the first is w's)
                        np.flatnonzero(missing.any(axis=1)[dense]))
    return dense, lane, warps, present


def shuffle(machine: Machine, s: Shuffle, idx: np.ndarray) -> None:
    mask = s.mask if isinstance(s.mask, int) else \
        machine.eval(s.mask, idx).astype(np.uint32).astype(np.int64)
    dense, lane, _, present = _warp_lanes(machine, s, idx, mask)
    blind = machine.partial is not None and id(s) in machine.partial.lanes_only
    if s.mode in VOTE_MODES and not blind:
        _vote(machine, s, idx, dense, lane, present, mask)
        return
    value = np.zeros(idx.size, s.dst.dtype.np) if blind else \
        convert(machine.eval(s.value, idx), s.dst.dtype)
    if s.mode in VOTE_MODES:
        if s.dst not in machine.vars:
            machine.vars[s.dst] = np.zeros(machine.total, s.dst.dtype.np)
        machine.vars[s.dst][idx] = value
        return
    arg = machine.eval(s.lane, idx).astype(np.int64)
    width = s.width
    if not isinstance(width, int):  # a run-time width: each lane's own
        width = machine.eval(width, idx).astype(np.int64)
        bad = np.flatnonzero((width < 1) | (width > 32) | ((width & (width - 1)) != 0))
        if bad.size:
            raise LaneFault(f"a shuffle width must be a power of two up to 32, this "
                            f"lane's is {int(width[bad[0]])} (undefined in CUDA)",
                            bad)
    segment = lane & ~(width - 1)
    if s.mode == "idx":
        src = segment + (arg & (width - 1))
    elif s.mode == "up":
        src = np.where(lane - segment - arg >= 0, lane - arg, lane)
    elif s.mode == "down":
        src = np.where(lane - segment + arg < width, lane + arg, lane)
    else:  # xor: a later segment (or beyond the warp) gives the lane its own value
        src = lane ^ arg
        src = np.where((src >= segment + width) | (src < 0) | (src > 31), lane, src)
    absent = ~present[dense, src]
    if absent.any():
        raise LaneFault(f"a shuffle reads lane {int(src[absent][0])}, which does not "
                        "execute it (undefined in CUDA)", np.flatnonzero(absent))
    table = np.zeros(present.shape, value.dtype)
    table[dense, lane] = value
    if s.dst not in machine.vars:
        machine.vars[s.dst] = np.zeros(machine.total, s.dst.dtype.np)
    machine.vars[s.dst][idx] = table[dense, src]


def _vote(machine: Machine, s: Shuffle, idx: np.ndarray, dense, lane, present, mask) -> None:
    """A warp vote: the predicates of the lanes executing it that the lane's mask names
    (every one of them executes it, _warp_lanes made sure), as a ballot's bits, or
    whether any or all are nonzero. Two tiles of 16 of one warp vote together, each
    lane seeing its own tile's bits (the hardware's vote.sync with two member masks)."""
    if s.mode == "match_any":
        _match_any(machine, s, idx, dense, lane, present, mask)
        return
    yes = machine.eval(s.value, idx) != 0
    bits = np.zeros(present.shape[0], np.uint64)
    np.bitwise_or.at(bits, dense[yes], np.left_shift(np.uint64(1), lane[yes].astype(
        np.uint64)))
    executing = (present * (np.uint64(1) << np.arange(32, dtype=np.uint64))).sum(
        axis=1, dtype=np.uint64)
    mine, voters = bits[dense], executing[dense]
    if not (isinstance(mask, int) and mask == ACTIVE_MASK):
        named = np.asarray(mask, np.int64).astype(np.uint64) & np.uint64(0xFFFFFFFF)
        mine, voters = mine & named, voters & named
    if s.mode == "ballot":
        value = mine.astype(np.uint32)
    elif s.mode == "any":
        value = (mine != 0).astype(np.int32)
    else:   # all: every voting lane's bit
        value = (mine == voters).astype(np.int32)
    if s.dst not in machine.vars:
        machine.vars[s.dst] = np.zeros(machine.total, s.dst.dtype.np)
    machine.vars[s.dst][idx] = value


def _match_any(machine: Machine, s: Shuffle, idx: np.ndarray, dense, lane, present, mask) -> None:
    """`__match_any_sync`: each lane's mask of the executing lanes (of `mask`) of its warp
    whose value equals its own."""
    value = machine.eval(s.value, idx).astype(np.uint64)
    table = np.zeros(present.shape, np.uint64)
    table[dense, lane] = value
    same = (table[dense] == value[:, None]) & present[dense]
    bits = (same * (np.uint64(1) << np.arange(32, dtype=np.uint64))).sum(
        axis=1, dtype=np.uint64)
    if not (isinstance(mask, int) and mask == ACTIVE_MASK):
        bits &= np.asarray(mask, np.int64).astype(np.uint64) & np.uint64(0xFFFFFFFF)
    if s.dst not in machine.vars:
        machine.vars[s.dst] = np.zeros(machine.total, s.dst.dtype.np)
    machine.vars[s.dst][idx] = bits.astype(np.uint32)


def mma_sync(machine: Machine, s: MmaSync, idx: np.ndarray) -> None:
    """D = A x B + C per warp, the fragments laid out over the lanes as the PTX ISA
    gives them for mma.m16n8k16 / m16n8k8 (lane l: group g = l // 4, thread t = l % 4):
    A word r holds row g + 8 (r % 2), columns 2t + 8 (r // 2) and the next; B word r
    rows 2t + 8r and the next of column g; C and D row g (+ 8 for the second half) and
    columns 2t, 2t + 1 (tf32 and 8-bit integers: see MmaSync). Products are exact in
    double, the sum rounded once to f32 (or to f16 for an f16 accumulator; wrapped to
    32 bits for s32)."""
    keys, dense, lane = _whole_warps(machine, "mma.sync", idx)
    if machine.partial is not None and id(s) in machine.partial.lanes_only:
        # (a run that reads none of its products: its warps checked whole, its
        # operands, which that run does not compute, not read)
        if s.dst not in machine.vars:
            machine.vars[s.dst] = np.zeros((machine.total, len(s.c)), s.dst.dtype.np)
        return
    if s.atype == "f64":
        _mma_f64(machine, s, idx, dense, lane, keys.size)
        return
    k = 16 if s.shape == "m16n8k16" else 8
    g, t, n = lane // 4, lane % 4, keys.size

    def halves(word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        bits = [(word & 0xFFFF).astype(np.uint16), (word >> 16).astype(np.uint16)]
        if s.atype == "f16":
            return tuple(b.view(np.float16).astype(np.float64) for b in bits)
        return tuple((b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
                     for b in bits)
    a = np.zeros((n, 16, k))
    b = np.zeros((n, k, 8))
    if s.atype == "tf32":
        # one element a word: A word r at row g + 8 (r % 2), column t + 4 (r // 2); B
        # word r at row t + 4r of column g; the hardware reads a float's top 19 bits
        def tf32(e) -> np.ndarray:
            bits = machine.eval(e, idx).astype(np.uint32) & np.uint32(0xFFFFE000)
            return bits.view(np.float32).astype(np.float64)
        for r, e in enumerate(s.a):
            a[dense, g + 8 * (r % 2), t + 4 * (r // 2)] = tf32(e)
        for r, e in enumerate(s.b):
            b[dense, t + 4 * r, g] = tf32(e)
    if s.atype in ("s8", "u8"):
        # four bytes a word, the lowest first: A word r at row g + 8r, columns 4t to
        # 4t + 3; B's word at rows 4t to 4t + 3 of column g
        def quads(e) -> list[np.ndarray]:
            word = machine.eval(e, idx).astype(np.uint32)
            parts = [((word >> np.uint32(8 * i)) & np.uint32(0xFF)).astype(np.uint8)
                     for i in range(4)]
            return [p.view(np.int8) if s.atype == "s8" else p for p in parts]
        for r, e in enumerate(s.a):
            for i, byte in enumerate(quads(e)):
                a[dense, g + 8 * r, 4 * t + i] = byte
        for r, e in enumerate(s.b):
            for i, byte in enumerate(quads(e)):
                b[dense, 4 * t + i, g] = byte
    for r, e in enumerate(s.a if s.atype in ("f16", "bf16") else ()):
        lo, hi = halves(machine.eval(e, idx).astype(np.uint32))
        row, col = g + 8 * (r % 2), 2 * t + 8 * (r // 2)
        a[dense, row, col], a[dense, row, col + 1] = lo, hi
    for r, e in enumerate(s.b if s.atype in ("f16", "bf16") else ()):
        lo, hi = halves(machine.eval(e, idx).astype(np.uint32))
        b[dense, 2 * t + 8 * r, g], b[dense, 2 * t + 8 * r + 1, g] = lo, hi
    c = np.zeros((n, 16, 8))
    if s.ctype in ("f32", "s32"):
        for j, e in enumerate(s.c):
            c[dense, g + 8 * (j // 2), 2 * t + j % 2] = machine.eval(e, idx)
    else:
        for j, e in enumerate(s.c):
            word = machine.eval(e, idx).astype(np.uint32)
            lo, hi = [(x & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
                      for x in (word, word >> 16)]
            c[dense, g + 8 * j, 2 * t], c[dense, g + 8 * j, 2 * t + 1] = lo, hi
    d = a @ b + c
    if s.dst not in machine.vars:
        machine.vars[s.dst] = np.zeros((machine.total, len(s.c)), s.dst.dtype.np)
    if s.ctype in ("f32", "s32"):
        out = np.stack([d[dense, g + 8 * (j // 2), 2 * t + j % 2] for j in range(4)], 1)
        if s.ctype == "s32":   # exact in double; the sum wraps to 32 bits
            out = (out.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
        machine.vars[s.dst][idx] = out.astype(np.float32) if s.ctype == "f32" else out
        return
    words = []
    for j in range(2):
        pair = [to_storage(d[dense, g + 8 * j, 2 * t + x].astype(np.float32),
                           F16).view(np.uint16).astype(np.uint32) for x in (0, 1)]
        words.append(pair[0] | (pair[1] << 16))
    machine.vars[s.dst][idx] = np.stack(words, 1)


def _mma_f64(machine: Machine, s: MmaSync, idx: np.ndarray, dense, lane, n: int) -> None:
    """mma.m8n8k4 of f64 (MmaSync): lane l holds A(l // 4, l % 4), B(l % 4, l // 4) and
    D's row l // 4, columns 2 (l % 4) and the next; the sums are numpy's in double."""
    g, t = lane // 4, lane % 4
    a, b, c = np.zeros((n, 8, 4)), np.zeros((n, 4, 8)), np.zeros((n, 8, 8))
    a[dense, g, t] = machine.eval(s.a[0], idx)
    b[dense, t, g] = machine.eval(s.b[0], idx)
    for j, e in enumerate(s.c):
        c[dense, g, 2 * t + j] = machine.eval(e, idx)
    d = a @ b + c
    if s.dst not in machine.vars:
        machine.vars[s.dst] = np.zeros((machine.total, 2), np.float64)
    machine.vars[s.dst][idx] = np.stack([d[dense, g, 2 * t + j] for j in range(2)], 1)


def syncwarp(machine: Machine, s: SyncWarp, idx: np.ndarray) -> None:
    mask = s.mask if isinstance(s.mask, int) else \
        machine.eval(s.mask, idx).astype(np.uint32).astype(np.int64)
    _, _, warps, _ = _warp_lanes(machine, s, idx, mask)
    if machine.observer is not None:
        machine.observer(WarpBarrierReached(s, warps))


def _whole_warps(machine: Machine, what: str, idx: np.ndarray):
    """(the warps' keys, each lane's dense warp number, each lane's lane) of a
    warp-collective instruction, after checking that all 32 lanes of every warp execute
    it (.sync.aligned)."""
    thread = idx % machine.tpb
    warp_key = (idx // machine.tpb) * machine.launch.warps_per_block + thread // 32
    keys, dense, sizes = np.unique(warp_key, return_inverse=True, return_counts=True)
    short = np.flatnonzero(sizes != 32)
    if short.size:
        at = int(np.flatnonzero(dense == short[0])[0])
        raise LaneFault(f"{what} is warp-collective (.sync.aligned): all 32 lanes of a "
                        f"warp must execute it, {int(sizes[short[0]])} did",
                        np.array([at]))
    return keys, dense, thread % 32


def _matrix_rows(machine: Machine, s, idx: np.ndarray):
    """(row starts per warp, matrix and row; each lane's dense warp and lane number),
    after checking that every lane of each warp executes the instruction."""
    keys, dense, lane = _whole_warps(machine, s.op, idx)
    used = lane < s.address_lanes()
    try:
        offset = machine._offsets(s, idx[used])
    except LaneFault as fault:  # positions within the used lanes -> within idx
        raise LaneFault(fault.message, np.flatnonzero(used)[fault.lanes]) from None
    memory, first = machine._shared_elements(s, idx[used], offset)
    rows = np.zeros((keys.size, s.count, 8), np.int64)
    rows[dense[used], lane[used] // 8, lane[used] % 8] = first
    return memory, first, rows, dense, lane


def _matrix_elements(machine: Machine, s, rows, dense, lane) -> np.ndarray:
    """(lanes, 2 x matrices) element indices each lane's fragment holds."""
    out = np.empty((lane.size, 2 * s.count), np.int64)
    pair = 2 * (lane % 4)
    for j in range(s.count):
        for k in range(2):
            if s.trans:   # column lane // 4 of rows 2c and 2c + 1
                out[:, 2 * j + k] = rows[dense, j, pair + k] + lane // 4
            else:         # elements 2c and 2c + 1 of row lane // 4
                out[:, 2 * j + k] = rows[dense, j, lane // 4] + pair + k
    return out


def load_matrix(machine: Machine, s: LoadMatrix, idx: np.ndarray) -> None:
    memory, first, rows, dense, lane = _matrix_rows(machine, s, idx)
    addresses_only = machine.partial is not None and machine.partial.statements is not None
    if not addresses_only or machine.partial.track:
        machine._check_written(s, first, 8, idx)
    if machine.intent is not None:
        size = s.array.dtype.size      # the used lanes' element offsets in the array
        offset = first % (machine.window // size) - machine.kernel.buffer_base(s.array.buffer) \
            // size
        used = np.flatnonzero(idx % machine.tpb % 32 < s.address_lanes())
        interpret_async.check_reader(machine, s, offset, machine._bytes(s, first, 8), idx,
                                     lanes=used)
    if addresses_only:
        return
    if s.dst not in machine.vars:
        machine.vars[s.dst] = np.zeros((machine.total, 2 * s.count), s.dst.dtype.np)
    machine.vars[s.dst][idx] = memory[_matrix_elements(machine, s, rows, dense, lane)]


def store_matrix(machine: Machine, s: StoreMatrix, idx: np.ndarray) -> None:
    memory, first, rows, dense, lane = _matrix_rows(machine, s, idx)
    if machine.partial is not None and machine.partial.statements is not None:
        if machine.partial.track:
            machine.written[machine._bytes(s, first, 8)] = True
        return
    values = np.stack([convert(machine.eval(v, idx), s.array.dtype) for v in s.values], 1)
    memory[_matrix_elements(machine, s, rows, dense, lane)] = values
    machine.written[machine._bytes(s, first, 8)] = True


F16 = BY_NAME["f16"]

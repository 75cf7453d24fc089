"""`check`'s address-only runs (slicing.HazardSlices) against the full run that computes every
value: the same races, faults and verdicts, on every example kernel and on kernels built to
hide a hazard where a shortcut could miss it (a later iteration, one block of many, a value
computation)."""
import pytest

from kernels_ir import KernelBuilder, blockIdx, cast, f32, i32, logical_and, threadIdx
from smemsim.launch.hazards import check
from smemsim.frontends.loader import load_kernels

# small launches of every example (the full run computes every value of every block)
EXAMPLES = {
    "causal_attention": {"seq": 256, "heads": 2},
    "cp_async_gemm": {"M": 64, "N": 64, "K": 128},
    "histogram": {"n": 4096},
    "int_matmul_nt32": {"Nmat": 100},
    "ldmatrix_tile": {"tiles": 4},
    "matmul_128x128": {"M": 128, "N": 256, "K": 64},
    "matmul_double16": {"MATRIX_DIM": 48},
    "matmul_float_tiled": {"rowsA": 64, "colsB": 70, "commonDim": 40},
    "matmul_naive": {"m": 32, "n": 32, "r": 48},
    "persistent_gemm": {"M": 128, "N": 128, "K": 64},
    "reed_solomon": None,
    "softmax": {"rows": 4, "cols": 512},
    "transpose": {"n": 64},
}
# kernels whose addresses, control or faults a loaded value decides: only the full run can
# check them (the rest must be checked by the sliced runs, unless they fault: the ilp2 kernel
# of matmul_float_tiled does at these sizes, 40 is not a multiple of its tile)
# (softmax's warp shuffles of loaded values decide nothing the other run needs: sliced)
FULL = {"histogram:uniform", "histogram:text", "histogram:weighted", "reed_solomon:tables"}


def verdict(h):
    """What a check found, without how."""
    return ([(r.first, r.second, r.kind, r.array) for r in h.races],
            [(r.first, r.second) for r in h.same_value],
            [(f.kind, f.message, f.blocks) for f in h.faults], h.limits, h.clean)


def example_cases():
    for name, params in EXAMPLES.items():
        for key, make in load_kernels(f"examples/{name}.py").items():
            yield pytest.param(name, key, make, params, id=f"{name}:{key}")


@pytest.mark.parametrize("name,key,make,params", example_cases())
def test_the_sliced_check_finds_what_the_full_run_finds_on_every_example(name, key, make,
                                                                          params):
    kernel = make() if callable(make) else make
    full = check(kernel, params, sliced=False)
    fast = check(kernel, params)
    assert full.method == "full"
    assert verdict(fast) == verdict(full)
    # a write-write race (benign or not) needs the full run; a fault does not (the shared
    # run counts its by class, test_a_fault_of_the_shared_run_is_its_class_..., the other
    # run block by block, test_faults_in_values_and_global_memory_...)
    needs_full = any(r.kind in ("write-write", "same-value write-write")
                     for r in full.races + full.same_value)
    assert fast.method == ("full" if f"{name}:{key}" in FULL or needs_full else "sliced")


def cross_iteration(barrier_at_end: bool, trips_from_block: bool = False):
    """Each iteration writes s[t], waits, reads s[(t + 1) % 64]: without a barrier at the end of the
    body, iteration k's read races with iteration k + 1's write (only from 2 trips on)."""
    k = KernelBuilder("cross_iteration")
    n = k.param("n")
    out = k.global_array("out", f32, 64 * 8, intent="out")
    s = k.shared("s", f32, 64)
    acc = k.let("acc", 0.0, f32)
    stop = blockIdx.x if trips_from_block else n
    with k.range("i", 0, stop):
        s[threadIdx.x] = 1.0
        k.syncthreads()
        acc += s[(threadIdx.x + 1) % 64]
        if barrier_at_end:
            k.syncthreads()
    out[blockIdx.x * 64 + threadIdx.x] = acc
    k.launch(8, 64)
    k.defaults(n=16)
    return k.build()


def test_two_iterations_stand_for_all_and_still_show_a_race_between_iterations():
    racy = check(cross_iteration(False))
    assert racy.method == "sliced"
    (race,) = racy.races
    assert (race.first, race.second, race.kind) == (0, 1, "read-write")
    assert verdict(racy) == verdict(check(cross_iteration(False), sliced=False))
    fixed = check(cross_iteration(True))
    assert fixed.method == "sliced" and fixed.clean
    # one trip has nothing to race with: 16 iterations or 2 do, 1 does not
    assert check(cross_iteration(False), {"n": 1}).clean
    assert not check(cross_iteration(False), {"n": 2}).clean


def test_blocks_grouped_by_their_trips_keep_the_ones_that_race():
    # block x runs x iterations: blocks 0 and 1 are clean, blocks 2..7 race
    h = check(cross_iteration(False, trips_from_block=True))
    assert h.method == "sliced"
    (race,) = h.races
    assert race.block == (2, 0, 0)
    assert check(cross_iteration(False, trips_from_block=True), blocks=[0, 1]).clean
    assert verdict(h) == verdict(check(cross_iteration(False, trips_from_block=True),
                                       sliced=False))


def persistent_tiles(race: bool = True, address_reads_block: bool = False):
    """A persistent kernel: block b takes tiles b, b + 10, b + 20 of 25, so blocks 0-4 take
    three tiles and blocks 5-9 two. With `race`, a block's third tile reads its neighbour's
    slot before the barrier (a race only blocks 0-4 have)."""
    k = KernelBuilder("persistent_tiles")
    n = k.param("tiles")
    out = k.global_array("out", f32, 25 * 32, intent="out")
    s = k.shared("s", f32, 64)
    count = k.let("count", 0, i32)        # tiles this block has taken
    tile = k.let("tile", blockIdx.x, i32)
    slot = (threadIdx.x + blockIdx.x % 2 * 32) if address_reads_block else threadIdx.x
    with k.loop("it", 0, lambda it: tile < n):
        s[slot] = cast(tile, f32)
        early = k.let("early", 0.0, f32)
        if race:
            with k.if_(count == 2):
                early.set(s[(threadIdx.x + 1) % 32])
        k.syncthreads()
        out[tile * 32 + threadIdx.x] = s[(threadIdx.x + 1) % 32] + early
        k.syncthreads()
        tile += 10
        count += 1
    k.launch(10, 32)
    k.defaults(tiles=25)
    return k.build()


def test_blocks_that_take_as_many_tiles_are_one_class_and_the_race_is_found():
    from smemsim.launch.check_slices import _control_representatives
    from smemsim.launch.ranges import BlockRanges, probe_settled
    from smemsim.launch.slicing import hazard_slices
    import numpy as np
    from kernels_ir import resolve_launch
    kernel = persistent_tiles()
    launch = resolve_launch(kernel, {})
    ranges = BlockRanges(kernel, launch, None)
    hs = hazard_slices(kernel, lambda p: probe_settled(ranges, p))
    assert hs.block_axes == {"x"}     # the shared run reads blockIdx.x: through its loop
    reps, sizes = _control_representatives(kernel, launch, np.arange(10), hs, 1024, 1000)
    assert reps.tolist() == [0, 5] and sizes.tolist() == [5, 5]   # three tiles, two tiles
    h = check(kernel)
    assert h.method == "sliced"
    (race,) = h.races
    assert race.block == (0, 0, 0) and race.kind == "read-write"
    assert verdict(h) == verdict(check(kernel, sliced=False))
    assert check(persistent_tiles(race=False)).clean
    # a shared address that reads blockIdx.x itself: no classing by decisions
    moved = persistent_tiles(address_reads_block=True)
    hs = hazard_slices(moved, lambda p: probe_settled(ranges, p))
    assert _control_representatives(moved, launch, np.arange(10), hs, 1024, 1000) is None
    assert verdict(check(moved)) == verdict(check(moved, sliced=False))


def one_block_differs():
    """Block 5 reads its neighbour's slot before the barrier: a race in one block of 8."""
    k = KernelBuilder("one_block_differs")
    out = k.global_array("out", f32, 8 * 32, intent="out")
    s = k.shared("s", f32, 32)
    s[threadIdx.x] = 1.0
    shift = k.let("shift", (blockIdx.x == 5) * 1, i32)
    v = k.let("v", s[(threadIdx.x + shift) % 32], f32)
    k.syncthreads()
    out[blockIdx.x * 32 + threadIdx.x] = v
    k.launch(8, 32)
    return k.build()


def test_a_race_in_one_block_of_many_is_found():
    h = check(one_block_differs())
    assert h.method == "sliced"
    (race,) = h.races
    assert race.block == (5, 0, 0) and race.kind == "read-write"


def value_fault(kind: str):
    """A fault in a value no address needs, in block 6 only."""
    k = KernelBuilder(f"value_fault_{kind}")
    out = k.global_array("out", i32, 8 * 32, intent="out")
    s = k.shared("s", i32, 32)
    regs = k.local_array("regs", i32, 4)
    k.write_local(regs, threadIdx.x % 4, 7)
    s[threadIdx.x] = threadIdx.x
    k.syncthreads()
    if kind == "division":
        value = s[threadIdx.x] // (blockIdx.x - 6)
    elif kind == "register":
        value = k.read_local(regs, blockIdx.x - 3) + s[threadIdx.x]
    else:  # a global index past the end in the last block
        value = s[threadIdx.x]
    out[blockIdx.x * 32 + threadIdx.x + (kind == "global") * (blockIdx.x == 7) * 32] = value
    k.launch(8, 32)
    return k.build()


@pytest.mark.parametrize("kind,message", [
    ("division", "integer division by zero"),
    ("register", "register array 'regs' is outside 0..3"),
    ("global", "out of bounds"),
])
def test_faults_in_values_and_global_memory_are_found_and_located(kind, message):
    h = check(value_fault(kind))
    (fault,) = h.faults
    assert message in fault.message
    assert verdict(h) == verdict(check(value_fault(kind), sliced=False))
    # a fault of the other run: found block by block as the full run finds it, by the
    # address-only run (which computes every value a bound or a probe reads)
    assert h.method == "sliced"


def test_a_shared_fault_after_a_global_one_on_its_line_is_reported_too():
    """Staging one past both arrays (`sm[t] = g[t]` for t <= 32, both of 32 floats), as a
    k-means kernel's `i <= K * D` does: thread 32 of each of the 64 blocks reads g[32],
    then stores sm[32]. The full run stops each block at the global read; the shared store
    on that line is reported too, with the blocks the shared run finds it in (all 64)."""
    k = KernelBuilder("staging_past_the_end")
    g = k.global_array("g", f32, 32)
    out = k.global_array("out", f32, 64 * 32, intent="out")
    sm = k.shared("sm", f32, 32)
    with k.if_(threadIdx.x <= 32):
        sm[threadIdx.x] = g[threadIdx.x]
    k.syncthreads()
    with k.if_(threadIdx.x < 32):
        out[blockIdx.x * 32 + threadIdx.x] = sm[threadIdx.x]
    k.launch(64, 64)
    h = check(k.build())
    assert sorted((f.kind, f.blocks, "'g'" in f.message, "'sm'" in f.message)
                  for f in h.faults) == [("out_of_bounds", 64, False, True),
                                         ("out_of_bounds", 64, True, False)]
    shared = next(f for f in h.faults if "'sm'" in f.message)
    assert "on the line of the fault above, after it" in shared.message


def test_probes_that_intervals_settle_are_not_run():
    from smemsim.launch.ranges import BlockRanges, probe_settled
    from smemsim.launch.slicing import fault_probes, hazard_slices
    from kernels_ir import resolve_launch
    import numpy as np
    kernel = value_fault("register")
    launch = resolve_launch(kernel, None)
    ranges = BlockRanges(kernel, launch, np.arange(8))
    probes = [p for s in kernel.statements() for p in fault_probes(s)]
    # regs[threadIdx.x % 4] (within 0..3) and the divisor 4 are settled; regs[blockIdx.x - 3]
    # (-3..4) is not
    assert sorted(probe_settled(ranges, p) for p in probes) == [False, True, True]
    hs = hazard_slices(kernel, lambda p: probe_settled(ranges, p))
    assert sum(len(v) for v in hs.probes.values()) == 1


def strided_reads(length: int, stride: int, trips: int, index=None):
    """One warp sums a[i * stride + threadIdx.x] over `trips` iterations, unguarded (llm.c's
    naive matmul has this loop): the other run checks its bounds at each lane's first,
    second and last iteration only (slicing.HazardSlices.endpoints)."""
    k = KernelBuilder("strided_reads")
    a = k.global_array("a", f32, length)
    out = k.global_array("out", f32, 32, intent="out")
    acc = k.let("acc", 0.0, f32)
    with k.range("i", 0, trips) as i:
        acc += a[(index(i) if index else i * stride) + threadIdx.x]
    out[threadIdx.x] = acc
    k.launch(1, 32)
    return k.build()


def test_an_affine_loop_is_checked_at_its_ends_and_its_faults_still_found():
    from smemsim.launch.slicing import hazard_slices
    from kernels_ir import Loop
    clean = strided_reads(64 * 100 + 32, 64, 101)  # the last iteration reads up to 6431
    (loop,) = [s for s in clean.statements() if isinstance(s, Loop)]
    assert hazard_slices(clean).endpoints == {id(loop)}
    h = check(clean)
    assert h.method == "sliced" and h.clean
    # one element short: only the last iteration's lane 31 reads past the end
    short = strided_reads(64 * 100 + 31, 64, 101)
    fast, full = check(short), check(short, sliced=False)
    assert verdict(fast) == verdict(full) and not fast.clean
    assert "index 6431" in fast.faults[0].message and "i=100" in fast.faults[0].message


def test_an_index_that_wraps_between_the_ends_is_not_taken_for_a_progression():
    """i * 2^20 in 32-bit ints over 4,097 trips: the first two and the last iteration read
    from 0, 2^20 and 0 again (2^32 wrapped), all inside an array of 2^21 + 32 elements, but
    iteration 3 reads from 3 x 2^20, past the end: the ends are not one progression, so the
    loop runs whole and the fault is found, as the full run finds it."""
    k = strided_reads(2 ** 21 + 32, 2 ** 20, 4097)
    fast, full = check(k), check(k, sliced=False)
    assert not fast.clean and verdict(fast) == verdict(full)
    assert "index 3145728" in fast.faults[0].message and "i=3" in fast.faults[0].message


def guarded_reads(length: int, trips: int, guard, stride: int = 32):
    """One warp sums a[i * stride + threadIdx.x] where guard(i, index) holds (the tiled
    GEMMs' `if (t * TILE + tx < K)` inside their loop): the other run checks the reads at
    the first, second and last iteration of the interval the guard holds on
    (slicing.HazardSlices.guards)."""
    k = KernelBuilder("guarded_reads")
    a = k.global_array("a", f32, length)
    out = k.global_array("out", f32, 32, intent="out")
    acc = k.let("acc", 0.0, f32)
    with k.range("i", 0, trips) as i:
        index = k.let("index", i * stride + cast(threadIdx.x, i32), i32)
        with k.if_(guard(i, index)):
            acc += a[index]
    out[threadIdx.x] = acc
    k.launch(1, 32)
    return k.build()


def _iterations_read(monkeypatch, read, var) -> list:
    """The iterations of loop variable `var` at which each execution of `read` runs, per
    execution, as the interpreter makes them."""
    from kernels_ir.interpreter import Machine
    runs, offsets = [], Machine._offsets
    monkeypatch.setattr(Machine, "_offsets", lambda m, s, idx: (
        runs.append(m.iterations[var][idx].tolist()) if s is read else None,
        offsets(m, s, idx))[1])
    return runs


def test_a_guarded_loop_is_checked_at_the_ends_of_its_guards_interval(monkeypatch):
    from smemsim.launch.slicing import hazard_slices
    from kernels_ir import If, Load, Loop
    # a tiled GEMM's guard: 1,000 elements, 40 trips of 32; lanes stop at their last index
    clean = guarded_reads(1000, 40, lambda i, index: index < 1000)
    (loop,) = [s for s in clean.statements() if isinstance(s, Loop)]
    (guard,) = [s for s in clean.statements() if isinstance(s, If)]
    (read,) = [s for s in clean.statements() if isinstance(s, Load)]
    hs = hazard_slices(clean)
    assert hs.endpoints == {id(loop)} and set(hs.guards) == {id(guard)}
    # the read runs at the loop's iterations 0, 1, 39 (lanes whose guard holds there) and
    # at its interval's 0, 1 and last (30 or 31): 5 times, not at all 32 where it holds
    runs = _iterations_read(monkeypatch, read, loop.var)
    h = check(clean)
    assert h.method == "sliced" and h.clean
    assert [set(r) for r in runs] == [{0}, {1}, {0}, {1}, {30, 31}]
    # `<=`: lane 8 of iteration 31 reads a[1000]; lanes 9-31 never get that far
    off_by_one = guarded_reads(1000, 40, lambda i, index: index <= 1000)
    fast, full = check(off_by_one), check(off_by_one, sliced=False)
    assert not fast.clean and verdict(fast) == verdict(full)
    assert "index 1000" in fast.faults[0].message and "i=31" in fast.faults[0].message


def test_a_two_sided_guard_is_checked_at_the_last_iteration_it_holds():
    """5 <= i < 20 over 64 trips: only iteration 19 reads past an array of 19 * 32 + 31
    elements (lane 31); the interval's last iteration is run, so the fault is found."""
    two_sided = lambda i, index: logical_and(i >= 5, i < 20)
    clean = guarded_reads(19 * 32 + 32, 64, two_sided)
    assert check(clean).method == "sliced" and check(clean).clean
    short = guarded_reads(19 * 32 + 31, 64, two_sided)
    fast, full = check(short), check(short, sliced=False)
    assert not fast.clean and verdict(fast) == verdict(full)
    assert "index 639" in fast.faults[0].message and "i=19" in fast.faults[0].message


def test_a_guard_that_wraps_between_the_ends_runs_the_loop_whole():
    """i * 2^30 >= 0 in 32-bit ints over 5 trips holds at i = 0, 1 and 4 (2^31 wraps to a
    negative at i = 2, 3): not one interval, so the loop runs whole; the read of lane 31 at
    i = 4 past an array of 4 * 32 + 31 elements is found as the full run finds it."""
    wraps = lambda i, index: i * (1 << 30) >= 0
    k = guarded_reads(4 * 32 + 31, 5, wraps)
    fast, full = check(k), check(k, sliced=False)
    assert not fast.clean and verdict(fast) == verdict(full)
    assert "index 159" in fast.faults[0].message and "i=4" in fast.faults[0].message


def tiled_reads(length: int, trips: int, inner_stop=None):
    """One warp reads a[j * 64 + e] for e = threadIdx.x, threadIdx.x + 32 inside a loop
    over j (causal attention's tile loads: `for j .. for (e = tid; e < N; e += THREADS)`):
    the inner loop repeats the same iterations at every j, so the outer loop runs at its
    ends and each inner iteration's reads are one progression over j."""
    k = KernelBuilder("tiled_reads")
    a = k.global_array("a", f32, length)
    out = k.global_array("out", f32, 32, intent="out")
    acc = k.let("acc", 0.0, f32)
    with k.range("j", 0, trips) as j:
        stop = 64 if inner_stop is None else inner_stop(j)
        with k.range("e", cast(threadIdx.x, i32), stop, 32) as e:
            acc += a[j * 64 + e]
    out[threadIdx.x] = acc
    k.launch(1, 32)
    return k.build()


def test_a_loop_around_a_tile_loop_is_checked_at_its_ends(monkeypatch):
    from smemsim.launch.slicing import hazard_slices
    from kernels_ir import Load, Loop
    clean = tiled_reads(50 * 64, 50)
    outer, inner = [s for s in clean.statements() if isinstance(s, Loop)]
    (read,) = [s for s in clean.statements() if isinstance(s, Load)]
    assert id(outer) in hazard_slices(clean).endpoints
    runs = _iterations_read(monkeypatch, read, outer.var)
    h = check(clean)
    assert h.method == "sliced" and h.clean
    # j = 0, 1 and 49, each with the inner loop's two iterations: 6 reads, not 100
    assert [set(r) for r in runs] == [{0}, {0}, {1}, {1}, {49}, {49}]
    # one element short: lane 31's second inner iteration at j = 49 reads a[3199]
    monkeypatch.undo()
    short = tiled_reads(50 * 64 - 1, 50)
    fast, full = check(short), check(short, sliced=False)
    assert not fast.clean and verdict(fast) == verdict(full)
    assert "index 3199" in fast.faults[0].message and "j=49" in fast.faults[0].message
    # an inner loop whose bounds follow j runs other iterations at each j: whole
    growing = tiled_reads(50 * 64, 50, inner_stop=lambda j: j + 1)
    g_outer, g_inner = [s for s in growing.statements() if isinstance(s, Loop)]
    assert hazard_slices(growing).endpoints == {id(g_inner)}
    assert check(growing).clean


def elementwise(n: int, guard=lambda i, n: i < n, index=None, blocks=None):
    """y[i] = 2 x[i] for i = blockIdx.x * 256 + threadIdx.x under a guard (the everyday
    elementwise kernel): its other run reads blockIdx.x only through an affine index and a
    box guard, so a few blocks at the grid's ends stand for all (smemsim.launch.block_ends)."""
    k = KernelBuilder("elementwise")
    x = k.global_array("x", f32, n)
    y = k.global_array("y", f32, n, intent="out")
    i = k.let("i", cast(blockIdx.x, i32) * 256 + cast(threadIdx.x, i32), i32)
    with k.if_(guard(i, n)):
        at = i if index is None else index(i)
        y[at] = x[at] * 2.0
    k.launch(blocks or -(-n // 256), 256)
    return k.build()


def _ends_runs(monkeypatch) -> list:
    """The blocks each run of the ends takes (recorded as check makes them)."""
    import smemsim.launch.block_ends as block_ends
    runs, real = [], block_ends.run
    monkeypatch.setattr(block_ends, "run", lambda *a, **kw: (
        runs.append(kw["partial"].blocks.tolist()), real(*a, **kw))[1])
    return runs


def test_a_grid_is_checked_at_its_ends(monkeypatch):
    runs = _ends_runs(monkeypatch)
    clean = elementwise(100_000)    # 391 blocks; i < n ends at block 390 (threads 0-159)
    h = check(clean)
    assert h.method == "sliced" and h.clean
    # blocks 0 and 1, the last of the grid, and 389: the last where threads 160-255 pass
    assert runs == [[0, 1, 389, 390]]
    # `<=`: thread 160 of block 390 reads x[100000]; the ends find it as the walk does
    off_by_one = elementwise(100_000, guard=lambda i, n: i <= n)
    fast, full = check(off_by_one), check(off_by_one, sliced=False)
    assert not fast.clean and verdict(fast) == verdict(full)
    assert "index 100000" in fast.faults[0].message and "block (390, 0, 0)" in \
        fast.faults[0].message


def test_an_early_return_guards_what_follows_it(monkeypatch):
    """`if (i >= n) return;` (llm.c's guard): the accesses after it hold where i < n."""
    def early_exit(n: int, bound: int):
        k = KernelBuilder("early_exit")
        x = k.global_array("x", f32, n)
        y = k.global_array("y", f32, n, intent="out")
        i = k.let("i", cast(blockIdx.x, i32) * 256 + cast(threadIdx.x, i32), i32)
        with k.if_(i >= bound):
            k.return_()
        y[i] = x[i] * 2.0
        k.launch(-(-n // 256), 256)
        return k.build()
    runs = _ends_runs(monkeypatch)
    h = check(early_exit(100_000, 100_000))
    assert h.method == "sliced" and h.clean and runs == [[0, 1, 389, 390]]
    late = early_exit(100_000, 100_001)   # returns one element too late
    fast, full = check(late), check(late, sliced=False)
    assert not fast.clean and verdict(fast) == verdict(full)
    assert "index 100000" in fast.faults[0].message


def test_a_union_of_boxes_is_checked_at_the_corners_of_each(monkeypatch):
    """numba's docs' fast_matmul returns `if x >= n and y >= n` (`and` for `or`): what
    follows runs where x < n or y < n, a union of two boxes, and the ends take the corners
    of each. Its reads past the n x n matrix are found as the walk finds them."""
    def union(rows: int):
        k = KernelBuilder("either_box")
        x = k.global_array("x", f32, rows * 1008)
        y = k.global_array("y", f32, rows * 1008, intent="out")
        col = k.let("col", cast(blockIdx.x, i32) * 16 + cast(threadIdx.x, i32), i32)
        row = k.let("row", cast(blockIdx.y, i32) * 16 + cast(threadIdx.y, i32), i32)
        with k.if_(logical_and(col >= 1000, row >= 1000)):
            k.return_()
        y[row * 1008 + col] = x[row * 1008 + col] * 2.0
        k.launch((63, 63), (16, 16))
        return k.build()
    runs = _ends_runs(monkeypatch)
    h = check(union(1008))   # every (row, col) the threads reach is inside x
    assert h.method == "sliced" and h.clean and len(runs) == 1
    # x < 1000 holds in blocks 0-62 along x for threads 0-7, 0-61 for threads 8-15, and in
    # every row; y < 1000 likewise along y: each box's first, second and last blocks
    # (block (61, 61) is no box's corner)
    corners = {(x, y) for x in (0, 1, 61, 62) for y in (0, 1, 62)}
    assert {(b % 63, b // 63) for b in runs[0]} == corners | {(y, x) for x, y in corners}
    # one row short: rows 1000-1007 of columns below 1000 read past x's end
    short = union(1007)
    fast, full = check(short), check(short, sliced=False)
    assert not fast.clean and verdict(fast) == verdict(full)
    assert "index 1015056" in fast.faults[0].message   # row 1007, column 0


def test_a_two_dimensional_grid_is_checked_at_the_corners_of_its_boxes(monkeypatch):
    """The tiled GEMM at 200 x 300 x 100 (7 x 10 blocks): its loads' and its store's guards
    read blockIdx.y (rows) and blockIdx.x (columns), one axis each: boxes."""
    from examples import matmul_float_tiled
    runs = _ends_runs(monkeypatch)
    k = matmul_float_tiled.tiled()
    params = {"rowsA": 200, "colsB": 300, "commonDim": 100}
    h = check(k, params)
    assert h.method == "sliced" and h.clean and len(runs) == 1
    gx = 10
    assert {(b % gx, b // gx) for b in runs[0]} == {(x, y) for x in (0, 1, 8, 9)
                                                   for y in (0, 1, 5, 6)}


def test_grids_the_ends_cannot_stand_for_are_walked_whole(monkeypatch):
    from smemsim.launch.block_ends import block_ends
    from smemsim.launch.slicing import hazard_slices
    # an index quadratic in blockIdx.x: not one progression
    square = elementwise(64 * 256, index=lambda i: (i * i) % (64 * 256))
    hs = hazard_slices(square)
    assert block_ends(square, hs.other, hs.probes) is None
    assert check(square).clean
    # 2^23 elements a block in 32-bit ints over 513 blocks: blocks 0, 1 and 512 (2^32 wraps
    # to 0) read inside x, block 2 past its end: the ends are not one progression, so the
    # grid is walked and the fault found as the full run finds it
    runs = _ends_runs(monkeypatch)
    wraps = elementwise((1 << 23) + 256, guard=lambda i, n: i >= 0, blocks=513,
                        index=lambda i: cast(blockIdx.x, i32) * (1 << 23)
                        + cast(threadIdx.x, i32))
    hs = hazard_slices(wraps)
    assert block_ends(wraps, hs.other, hs.probes) is not None
    fast, full = check(wraps), check(wraps, sliced=False)
    assert runs == [[0, 1, 512]] and not fast.clean and verdict(fast) == verdict(full)
    assert "index 16777216" in fast.faults[0].message and "block (2, 0, 0)" in \
        fast.faults[0].message


def test_a_grid_of_16_million_blocks_is_checked_without_an_array_of_them():
    """A shared tree reduction over 2^32 elements (16,777,216 blocks of 256): past
    hazards.LARGE_GRID blocks the ranges take the grid as one interval, the shared run
    block 0, the other run the grid's ends (it was 533 s and 1.5 GB walking every block)."""
    k = KernelBuilder("reduce")
    n = k.param("n", "u64")
    x = k.global_array("x", f32, n)
    out = k.global_array("out", f32, n // 256, intent="out")
    s = k.shared("s", f32, 256)
    s[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x]
    k.syncthreads()
    with k.loop("stride", 128, lambda v: v > 0, update=lambda v: v >> 1) as stride:
        with k.if_(threadIdx.x < stride):
            s[threadIdx.x] = s[threadIdx.x] + s[threadIdx.x + stride]
        k.syncthreads()
    with k.if_(threadIdx.x == 0):
        out[blockIdx.x] = s[0]
    k.launch(grid=n // 256, block=256)
    h = check(k.build(), {"n": 1 << 32})
    assert h.clean and h.method == "sliced" and h.blocks_checked == 1 << 24


def test_guard_intervals_equal_counting_every_iteration():
    """interpret_loops.affine_interval against the iterations counted one by one, for every comparison,
    slopes of both signs and zero, and trip counts from 0 to 7."""
    import numpy as np
    from kernels_ir.expr import Op
    from kernels_ir.interpret_loops import affine_interval
    values = np.arange(-9, 10)
    d0, slope, last = (a.ravel() for a in np.meshgrid(values, np.arange(-4, 5),
                                                       np.arange(-1, 7)))
    test = {Op.LT: np.less, Op.LE: np.less_equal, Op.GT: np.greater,
            Op.GE: np.greater_equal, Op.EQ: np.equal}
    for op, holds in test.items():
        first, end = affine_interval(op, d0, slope, last)
        for j in range(d0.size):
            ks = [k for k in range(last[j] + 1) if holds(d0[j] + k * slope[j], 0)]
            want = (ks[0], ks[-1]) if ks else None
            got = (first[j], end[j]) if first[j] <= end[j] else None
            assert got == want, (op, d0[j], slope[j], last[j])
            assert not ks or ks == list(range(ks[0], ks[-1] + 1))


def test_a_loop_whose_index_is_not_affine_runs_whole():
    from smemsim.launch.slicing import hazard_slices
    k = strided_reads(64 * 64 + 32, 0, 64, index=lambda i: (i * i) % 64)
    assert hazard_slices(k).endpoints == frozenset()
    assert check(k).clean


@pytest.mark.parametrize("file,key,mistakes", [
    ("examples/wgmma_tile.py", "sw128", 0), ("examples/wgmma_tile.py", "desc_none", 1),
    ("examples/wgmma_tile.py", "off1024_base1", 1),
    ("examples/tma_tile.py", "swizzled", 0), ("examples/tma_tile.py", "unswizzled_reader", 1)])
def test_the_layout_run_without_values_reports_what_the_run_on_values_does(
        monkeypatch, file, key, mistakes):
    from kernels_ir import resolve_launch
    from smemsim.launch import faults
    from smemsim.launch.slicing import hazard_slices, layout_run
    kernel = load_kernels(file)[key]()
    assert layout_run(kernel, hazard_slices(kernel)) is not None   # no values needed
    launch = resolve_launch(kernel, {})
    quick = [f.message for f in faults.layout_agreement(kernel, launch)]
    monkeypatch.setattr(faults, "layout_run", lambda k, hs: None)  # the run on values
    assert [f.message for f in faults.layout_agreement(kernel, launch)] == quick
    assert len(quick) == mistakes


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None,
                    reason="no nvcc here: the kernel is read from nvcc's build")
def test_a_kernel_read_from_ptx_is_checked_at_the_grids_ends(tmp_path):
    """A reduction read from nvcc's PTX (a new user's reduce_v1, 131,072 blocks: 12.5 s and
    1.8 GB, every block run): its global index is `(long)(unsigned long)(unsigned)(bx * bd +
    tx)`, widenings of one 32-bit value, and its shared accesses carry the PTX path's
    alignment assertions, which no block index decides. Both stand at the grid's ends now:
    the other run is a few blocks, not every block."""
    from kernels_ir import resolve_launch
    from smemsim.launch.block_ends import block_ends
    from smemsim.frontends.cuda import Options
    from smemsim.launch.slicing import hazard_slices
    cu = tmp_path / "reduce.cu"
    cu.write_text("""#define THREADS 256
__global__ void reduce1(float *in, float *out)
{
    __shared__ float s[THREADS];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = in[i];
    __syncthreads();
    for (unsigned int k = 1; k < blockDim.x; k *= 2) {
        int index = 2 * k * tid;
        if (index < blockDim.x)
            s[index] += s[index + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
int main()
{
    float *in, *out;
    cudaMalloc(&in, 131072 * THREADS * sizeof(float));
    cudaMalloc(&out, 131072 * sizeof(float));
    reduce1<<<131072, THREADS>>>(in, out);
    return 0;
}
""")
    kernel = next(iter(load_kernels(str(cu), Options(), {"arch": "sm_90", "flags": ()})
                       .values()))()
    assert resolve_launch(kernel).num_blocks == 131072
    hs = hazard_slices(kernel, lambda p: True, lambda s: True)
    ends = block_ends(kernel, hs.other, hs.probes)
    assert ends is not None and ends.axes == ("x",)
    report = check(kernel)
    assert report.clean and report.blocks_checked == 131072


NAIVE_GEMM = """__global__ void gemm(int M, int N, int K, const float *A, const float *B, float *C)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < M && y < N) {
        float tmp = 0.0f;
        for (int i = 0; i < K; ++i)
            tmp += A[x * K + i] * B[i * N + y];
        C[x * N + y] = tmp;
    }
}
int main()
{
    const int n = 256;
    float *A, *B, *C;
    cudaMalloc(&A, n * n * sizeof(float));
    cudaMalloc(&B, n * n * sizeof(float));
    cudaMalloc(&C, LENGTH_C * sizeof(float));
    gemm<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(n, n, n, A, B, C);
    return 0;
}
"""


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None,
                    reason="no nvcc here: the kernel is read from nvcc's build")
def test_registers_the_ptx_advances_in_a_loop_stand_for_the_block_at_the_grids_ends(
        tmp_path):
    """siboehm's naive SGEMM shape read from nvcc's PTX: the global addresses live in
    registers nvcc sets from blockIdx before the K loop and advances by a constant in it,
    and each load's element index is its asserted-aligned byte address / 4. Those registers
    are leaves like blockIdx for the grid's-ends method (the corpus's naive SGEMM: 55 s of
    every-block runs -> 1.4 s), which still finds a fault where the last blocks write past
    C's end (C one element short)."""
    from smemsim.launch.block_ends import block_ends
    from smemsim.frontends.cuda import Options
    from smemsim.launch.slicing import hazard_slices
    reading = {"arch": "sm_90", "flags": ()}
    cu = tmp_path / "gemm.cu"
    cu.write_text(NAIVE_GEMM.replace("LENGTH_C", "n * n"))
    kernel = next(iter(load_kernels(str(cu), Options(), reading).values()))()
    hs = hazard_slices(kernel, lambda p: True, lambda s: True)
    assert block_ends(kernel, hs.other, hs.probes) is not None
    report = check(kernel)
    assert report.clean and report.blocks_checked == 64
    cu.write_text(NAIVE_GEMM.replace("LENGTH_C", "(n * n - 1)"))
    short = next(iter(load_kernels(str(cu), Options(), reading).values()))()
    faults = check(short).faults
    assert len(faults) == 1 and "out of bounds: index 65535 of 'C' in f32 elements (valid " \
        "0..65534) " \
        "[block (7, 7, 0); thread (31, 31, 0)]" in faults[0].message


def test_a_local_given_a_value_not_affine_in_the_block_walks_every_block():
    """A local set to blockIdx.x * blockIdx.x and advanced in a loop: not affine in the
    block, so the grid's ends cannot stand for the rest (the middle block 7 of 12 writes
    past `out`'s end, which the ends, blocks 0, 1 and 11, do not)."""
    from smemsim.launch.block_ends import block_ends
    from smemsim.launch.slicing import hazard_slices
    k = KernelBuilder("squares")
    out = k.global_array("out", f32, 49 * 32 + 16, intent="out")   # block 7 runs past it
    at = k.let("at", 0, i32)
    at.set(cast(blockIdx.x * blockIdx.x, i32) * 32 * (cast(blockIdx.x, i32) == 7) +
           cast(threadIdx.x, i32))
    with k.loop("it", 0, lambda it: it < 2):
        out[at] = 1.0
        at += 1
    k.launch(12, 32)
    kernel = k.build()
    hs = hazard_slices(kernel, lambda p: True, lambda s: True)
    assert block_ends(kernel, hs.other, hs.probes) is None
    faults = check(kernel).faults
    assert len(faults) == 1 and "[block (7, 0, 0)" in faults[0].message



def warp_sums(half_warp_reads_the_other: bool = False):
    """Each warp sums its loaded values with shuffles (`__shfl_down_sync`) and lane 0 stores
    the sum in shared memory: the shuffles' values are loaded data, which decide nothing the
    other run needs. `half_warp_reads_the_other`: lanes 0-15 shuffle down by 16 alone,
    reading lanes that do not execute the shuffle (a fault)."""
    k = KernelBuilder("warp_sums")
    a = k.global_array("a", f32, 64 * 8)
    out = k.global_array("out", f32, 8, intent="out")
    s = k.shared("s", f32, 2)
    v = k.let("v", a[blockIdx.x * 64 + threadIdx.x], f32)
    if half_warp_reads_the_other:
        with k.if_(threadIdx.x % 32 < 16):
            v.set(v + k.shfl(v, 16, mode="down", mask=0xFFFF))
    else:
        for d in (16, 8, 4, 2, 1):
            v.set(v + k.shfl(v, d, mode="down"))
    with k.if_(threadIdx.x % 32 == 0):
        s[threadIdx.x // 32] = v
    k.syncthreads()
    with k.if_(threadIdx.x == 0):
        out[blockIdx.x] = s[0] + s[1]
    k.launch(8, 64)
    return k.build()


def test_shuffles_of_loaded_values_leave_the_check_sliced_and_their_lanes_checked():
    """A warp reduction of loaded values is checked by the address-only runs (the shuffles'
    values are not evaluated), the lanes they read still checked: a shuffle reading lanes
    that do not execute it is found as the full run finds it."""
    fast = check(warp_sums())
    assert fast.method == "sliced" and fast.clean, fast
    assert verdict(fast) == verdict(check(warp_sums(), sliced=False))
    fast = check(warp_sums(half_warp_reads_the_other=True))
    full = check(warp_sums(half_warp_reads_the_other=True), sliced=False)
    assert verdict(fast) == verdict(full)
    assert "a shuffle reads lane 16, which does not execute it" in full.faults[0].message


ROW_POINTERS = """__global__ void rows(float *out, const float *inp, const float *weight, int BT, int C,
                     int OC)
{
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        const float *wrow = weight + oc * C;
        const float *inp_bt = inp + bt * C;
        float val = 0.0f;
        for (int i = 0; i < C; i++)
            val += inp_bt[i] * wrow[i];
        out[bt * OC + oc] = val;
    }
}
int main()
{
    const int BT = 4096, C = 64, OC = 3072;
    float *out, *inp, *weight;
    cudaMalloc(&out, LENGTH_OUT * sizeof(float));
    cudaMalloc(&inp, BT * C * sizeof(float));
    cudaMalloc(&weight, OC * C * sizeof(float));
    rows<<<dim3(BT / 8, OC / 8), dim3(8, 8)>>>(out, inp, weight, BT, C, OC);
    return 0;
}
"""


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None,
                    reason="no nvcc here: the kernel is read from nvcc's build")
def test_signed_row_pointers_stand_at_the_grids_ends_and_the_runs_are_said(tmp_path):
    """llm.c's naive matmul_forward_kernel1 shape: signed `int` indices, row pointers
    `weight + oc * C`, a K loop. nvcc's PTX keeps `(long)((unsigned long)(k + (long)(oc *
    C)) << 2)` in registers, a loop's offset added to a widened index and shifted as
    unsigned: affine in the block, so 9 blocks stand for 196,608 (was every block: 300 s at
    llm.c's C = 768). The report says what ran, and the last blocks' write past `out`'s end
    (one element short) is still found."""
    from smemsim.frontends.cuda import Options
    reading = {"arch": "sm_90", "flags": ()}
    cu = tmp_path / "rows.cu"
    cu.write_text(ROW_POINTERS.replace("LENGTH_OUT", "BT * OC"))
    kernel = next(iter(load_kernels(str(cu), Options(), reading).values()))()
    report = check(kernel)
    assert report.clean and report.method == "sliced"
    assert report.blocks_checked == 512 * 384
    assert report.runs == (("shared accesses, one block of each class", 1),
                           ("global accesses and bounds, at the grid's ends", 9))
    # (parenthesized: `BT * OC - 1 * sizeof(float)` bytes are no whole number of floats,
    # a length the host reading cannot say, whose end is then not looked for); at a
    # smaller size (a fault found at the ends walks every block to count those it stops:
    # 196,608 of them took most of a minute, and the size is not what is tested here)
    cu.write_text(ROW_POINTERS.replace("LENGTH_OUT", "(BT * OC - 1)"))
    kernel = next(iter(load_kernels(str(cu), Options(), reading).values()))()
    report = check(kernel, {"BT": 256, "OC": 192})
    fault = report.faults[0]
    assert (fault.kind, fault.loc.line) == ("out_of_bounds", 12)   # out[bt * OC + oc] = val
    assert (fault.blocks, report.blocks_checked) == (1, 32 * 24)


def gather(through_shared: bool):
    """llm.c's crossentropy shape: a loaded target picks one element of a wide row. With
    `through_shared`, the row's element is first staged in shared memory, then read back as
    the index of a second gather."""
    k = KernelBuilder("gather" + "_shared" * through_shared)
    targets = k.global_array("targets", i32, 64, intent="in")
    probs = k.global_array("probs", i32, 64 * 1000, intent="in")
    out = k.global_array("out", i32, 64, intent="out")
    i = k.let("i", blockIdx.x * 32 + threadIdx.x)
    picked = k.let("picked", probs[i * 1000 + targets[i]])
    if through_shared:
        s = k.shared("s", i32, 32)
        s[threadIdx.x] = picked
        k.syncthreads()
        out[i] = targets[s[threadIdx.x] % 64]
    else:
        out[i] = picked
    k.launch(2, 32)
    return k.build()


def test_arrays_whose_values_decide_nothing_are_blank_in_the_full_run():
    """`targets` decides an address, so the check's full run needs its values; `probs` and
    `out` decide nothing it reports, and are zeros taken as touched (llm.c's
    crossentropy_forward_kernel1 at B=8, T=1024, V=50,257: 4.8 GB -> 71 MB, 12.3 -> 0.7 s).
    Staged through shared memory and read back as an index, `probs` decides too."""
    from smemsim.launch.slicing import blind_arrays, hazard_slices
    for staged, blank in ((False, {"probs", "out"}), (True, {"out"})):
        kernel = gather(staged)
        assert blind_arrays(kernel, hazard_slices(kernel)) == frozenset(blank)
        report = check(kernel)
        assert report.method == "full" and report.clean


def test_blank_arrays_leave_the_others_values_as_they_were():
    """make_arrays with some arrays blank: those are zeros, every other array holds the
    values it holds without them (the generator is moved past a blank array's draws)."""
    import numpy as np
    from kernels_ir import make_arrays, resolve_launch
    k = KernelBuilder("three")
    a = k.global_array("a", f32, 5000, intent="in")
    b = k.global_array("b", i32, 3000, intent="in")
    c = k.global_array("c", f32, 700, intent="inout")
    c[threadIdx.x] = a[threadIdx.x] + cast(b[threadIdx.x], f32)
    k.launch(1, 32)
    launch = resolve_launch(k.build())
    full = make_arrays(launch, 3)
    for blank in ({"a"}, {"b"}, {"a", "b"}):
        made = make_arrays(launch, 3, frozenset(blank))
        for name in "abc":
            expected = np.zeros_like(full[name]) if name in blank else full[name]
            assert np.array_equal(made[name], expected), (blank, name)


def partial_last_block():
    """learn_cuda's n_body in small: threads past n write no tile element, and every thread
    of the block reads the whole tile: the last block (n = 200 of 4 x 64) reads elements
    its idle threads never wrote, a fault of every block of its class (here: only it)."""
    k = KernelBuilder("partial_last_block")
    n = k.param("n")
    out = k.global_array("out", f32, 256, intent="out")
    s = k.shared("s", f32, 64)
    i = k.let("i", blockIdx.x * 64 + threadIdx.x, i32)
    acc = k.let("acc", 0.0, f32)
    with k.if_(i < n):
        s[threadIdx.x] = 1.0
    k.syncthreads()
    with k.range("j", 0, 64) as j:
        acc += s[j]
    out[blockIdx.x * 64 + threadIdx.x] = acc
    k.launch(4, 64)
    k.defaults(n=200)
    return k.build()


def test_a_fault_of_the_shared_run_is_its_class_and_needs_no_full_run():
    """A fault the address-only shared run meets is one every block of its class meets
    (the run computes every value of its addresses, control and bounds): reported as the
    full run reports it, without the full run (n_body: 189 s -> 6 s)."""
    fast, full = check(partial_last_block()), check(partial_last_block(), sliced=False)
    assert fast.method == "sliced" and full.method == "full"
    (fault,) = fast.faults
    assert fault.kind == "uninitialized_read" and fault.blocks == 1
    assert "block (3, 0, 0)" in fault.message
    assert verdict(fast) == verdict(full)
    # n = 100: blocks 2 and 3 write nothing, block 1 a part: three classes fault
    fast = check(partial_last_block(), {"n": 100})
    assert fast.method == "sliced" and [f.blocks for f in fast.faults] == [3]
    assert verdict(fast) == verdict(check(partial_last_block(), {"n": 100}, sliced=False))


WMMA_GEMM = """#include <mma.h>
using namespace nvcuda;
__global__ void wmma_gemm(const half *A, const half *B, float *C, int M, int N, int K)
{
    __shared__ __align__(32) half As[64][16];
    __shared__ __align__(32) half Bs[16][64];
    int tid = threadIdx.x, warp = tid >> 5;
    int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
    int bm = blockIdx.x * 64, bn = blockIdx.y * 64;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        int ar = tid >> 1, ac = (tid & 1) * 8;
        *(uint4 *)&As[ar][ac] = *(const uint4 *)&A[(size_t)(bm + ar) * K + k0 + ac];
        int br = tid >> 3, bc = (tid & 7) * 8;
        *(uint4 *)&Bs[br][bc] = *(const uint4 *)&B[(size_t)(k0 + br) * N + bn + bc];
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, &As[wm][0], 16);
        wmma::load_matrix_sync(fb, &Bs[0][wn], 64);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(&C[(size_t)(bm + wm) * N + bn + wn], acc, N, wmma::mem_row_major);
}
int main()
{
    half *A, *B; float *C;
    wmma_gemm<<<dim3(ROWS / 64, COLS / 64), 128>>>(A, B, C, 64, COLS, 64);   // (M unused)
    return 0;
}
"""


def test_a_gemm_whose_rows_are_widened_before_the_stride_stands_at_the_grids_ends(nvcc):
    """The seventh review's WMMA GEMM: its index `(size_t)(bm + row) * K + ...` widens a
    32-bit block-dependent part before the 64-bit product, and nvcc ORs thread bits into a
    shifted block index (`(blockIdx.x << 6) | (tid & 48)`). Both are affine where the 32-bit
    part does not wrap at the grid's corners (checked there) and the OR's bits do not meet
    (the block's shifted bits against the thread's mask): 9 blocks stand for the grid (95 s
    at 4096^3 walking every block), and they find what the full run finds. At a grid whose
    32-bit row index wraps (`bm` past 2^31: 2^32 rows), the ends are not taken."""
    import tempfile
    folder = tempfile.mkdtemp()
    for rows, ends in ((1024, True), (1 << 32, False)):
        cu = f"{folder}/wmma{rows}.cu"
        with open(cu, "w") as f:
            f.write(WMMA_GEMM.replace("ROWS", str(rows)).replace("COLS", "1024" if ends
                                                                   else "64"))
        kernel = next(iter(load_kernels(cu).values()))()
        if not ends:   # (the ends' verdict alone: the whole grid is not run here)
            from smemsim.launch.block_ends import _no_wrap, block_ends
            from smemsim.launch.slicing import hazard_slices
            from smemsim.launch.block_coordinates import Grid
            from kernels_ir import resolve_launch
            hs = hazard_slices(kernel, lambda p: True, lambda s: True)
            found = block_ends(kernel, hs.other, hs.probes, hs.lanes_only)
            assert found is not None and found.unwrapped
            launch = resolve_launch(kernel)
            assert not _no_wrap(found, launch, Grid.of(found.coords, found.axes, launch))
            continue
        sliced, full = check(kernel), check(kernel, sliced=False)
        assert ("global accesses and bounds, at the grid's ends", 9) in sliced.runs
        assert sliced.clean and full.clean and sliced.blocks_checked == 256


def test_an_or_of_disjoint_bits_is_a_sum_and_one_of_meeting_bits_is_not():
    """nvcc writes `a + b` as `a | b` where b's bits are zeros of a: affine where a is;
    where they may meet, not."""
    from kernels_ir import u32
    from smemsim.launch.affine import affine_degree
    block = lambda n: n.op.name == "SPECIAL" and n.arg[0] == "blockIdx"  # noqa: E731
    tx, bx = threadIdx.x, blockIdx.x
    assert affine_degree(((tx << 1) & 6) | (bx << 7) | (tx & 96), None, {},
                         is_var=block) == 1
    assert affine_degree((bx << 7) | (tx & 255), None, {}, is_var=block) is None
    assert affine_degree((bx * 256) | (tx & 255), None, {}, is_var=block) == 1
    assert affine_degree(bx | cast(tx, u32), None, {}, is_var=block) is None
    # (a sum whose bits cannot carry into the OR's: YHs's SGEMM column `(threadIdx.x & 31) +
    # (blockIdx.x << 7) | 32`, the 32 of `+ i * 32`; bit 5 may be a sum's where b steps by 32)
    assert affine_degree(((tx & 31) + (bx << 7)) | 32, None, {}, is_var=block) == 1
    assert affine_degree(((tx & 63) + (bx << 5)) | 32, None, {}, is_var=block) is None


def same_value_race(by_block: bool):
    """Two warps of each block store into one shared copy of a table: the same value (a
    global table at indices of the thread alone), or, `by_block`, a value of the block's own
    row, which the full run must compare block by block. 256 blocks of 64 threads."""
    k = KernelBuilder(f"same_value_{'by_block' if by_block else 'table'}")
    table = k.global_array("table", f32, 256 * 32, intent="in")
    out = k.global_array("out", f32, 256 * 64, intent="out")
    s = k.shared("s", f32, 32)
    row = blockIdx.x * 32 if by_block else 0
    s[threadIdx.x % 32] = table[row + threadIdx.x % 32]
    k.syncthreads()
    out[blockIdx.x * 64 + threadIdx.x] = s[31 - threadIdx.x % 32]
    k.launch(256, 64)
    return k.build()


def test_a_same_value_race_of_block_invariant_values_is_told_by_one_block_of_each_class():
    """llm.c's fused_residual_forward_kernel6 stores its weights from every sub-block into
    one shared copy: a same-value race, which needed the full run of every block (45 s). Where
    the stored values are every block's alike (a global table the kernel never writes, read
    at indices of the thread alone), one block of each class with values says it: the same
    warning as the full run; where they depend on the block, the full run still decides."""
    h = check(same_value_race(False))
    full = check(same_value_race(False), sliced=False)
    assert verdict(h) == verdict(full) and not h.races and len(h.same_value) == 1
    assert h.method == "sliced" and ("stored values, one block of each class", 1) in h.runs
    h = check(same_value_race(True))
    assert verdict(h) == verdict(check(same_value_race(True), sliced=False))
    assert h.method != "sliced" and len(h.same_value) == 1


def tiles(length: int, grid: int = 23):
    """A 1-D grid of 16x16 tiles walked as a 2-D one (fast.cu's GEMMs): the tile row is
    blockIdx.x / N and its column blockIdx.x % N, N a parameter (5 tiles a row); 23 blocks
    make 4 whole rows and a last row of 3 tiles."""
    k = KernelBuilder("tiles")
    n = k.param("N", i32)
    out = k.global_array("out", f32, length, intent="out")
    bx = cast(blockIdx.x, i32)
    row = k.let("row", bx // n * 16 + cast(threadIdx.x, i32) // 16, i32)
    col = k.let("col", bx % n * 16 + cast(threadIdx.x, i32) % 16, i32)
    out[row * (n * 16) + col] = 1.0
    k.launch(grid, 256)
    k.defaults(N=5)
    return k.build()


def test_a_grid_divided_into_tiles_is_checked_at_the_corners_of_quotient_and_remainder(
        monkeypatch):
    """Neither blockIdx.x / N nor blockIdx.x % N is affine in blockIdx.x, but each is a
    coordinate of its own (smemsim.launch.block_coordinates): the ends run takes the first,
    second and last of each in the 4 x 5 box of whole rows (9 blocks) and in the partial
    last row (blocks 20, 21, 22), 12 blocks standing for 23. The last tile writes
    out[79 * 80 + 47] = out[6367]: one element short, the ends find it as the walk does."""
    from smemsim.launch.block_ends import block_ends
    from smemsim.launch.slicing import hazard_slices
    runs = _ends_runs(monkeypatch)
    clean = tiles(6368)
    hs = hazard_slices(clean, lambda p: True, lambda s: True)
    ends = block_ends(clean, hs.other, hs.probes)
    assert ends is not None and ends.axes == ("x/", "x%")
    report = check(clean)
    assert report.clean and report.blocks_checked == 23
    # (q, r) = (0|1|3, 0|1|4) -> 5q + r, and the last row's (4, 0|1|2)
    assert runs == [[0, 1, 4, 5, 6, 9, 15, 16, 19, 20, 21, 22]]
    short = tiles(6367)
    fast, full = check(short), check(short, sliced=False)
    assert verdict(fast) == verdict(full) and len(fast.faults) == 1
    assert "index 6367 of 'out'" in fast.faults[0].message and \
        "[block (22, 0, 0); thread (255, 0, 0)]" in fast.faults[0].message


TILED_STORE = """__global__ void tiled(int M, int N, float *C)
{
    int num_block_n = blockIdx.x % (N / 16);
    int num_block_m = blockIdx.x / (N / 16);
    int row = num_block_m * 16 + threadIdx.x / 16, col = num_block_n * 16 + threadIdx.x % 16;
    C[row * N + col] = 1.0f;
}
int main()
{
    const int M = 256, N = 512;
    float *C;
    cudaMalloc(&C, LENGTH_C * sizeof(float));
    tiled<<<(M / 16) * (N / 16), 256>>>(M, N, C);
    return 0;
}
"""


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None,
                    reason="no nvcc here: the kernel is read from nvcc's build")
def test_nvccs_remainder_of_a_divided_block_index_stands_at_the_grids_ends(
        tmp_path, monkeypatch):
    """fast.cu's tile indices as nvcc builds them: `div.u32` by N / 16 for the row, and the
    remainder as `blockIdx.x - q * (N / 16)` (no `rem`): affine in blockIdx.x and the
    quotient, so in (quotient, remainder). 512 blocks are checked with 9 (fast.cu's
    kernels 2 to 5 at 8192^3: every block, 16-24 s, before); C one element short is the
    fault of the last block's last thread."""
    from smemsim.frontends.cuda import Options
    reading = {"arch": "sm_90", "flags": ()}
    runs = _ends_runs(monkeypatch)
    cu = tmp_path / "tiled.cu"
    cu.write_text(TILED_STORE.replace("LENGTH_C", "M * N"))
    kernel = next(iter(load_kernels(str(cu), Options(), reading).values()))()
    report = check(kernel)
    assert report.clean and report.blocks_checked == 512
    assert [len(r) for r in runs] == [9]
    cu.write_text(TILED_STORE.replace("LENGTH_C", "(M * N - 1)"))
    short = next(iter(load_kernels(str(cu), Options(), reading).values()))()
    faults = check(short).faults
    assert len(faults) == 1 and "index 131071 of 'C'" in faults[0].message and \
        "[block (511, 0, 0); thread (255, 0, 0)]" in faults[0].message


def saturating(length: int):
    """Rows of 8 elements, 32 a block, written while `left = m < row ? 0 : m - row` is
    positive (YHs's SGEMM's `m_guard`, which nvcc writes `max(m, row) - row`): a guard not
    affine in the block. m = 300 rows over 10 blocks: block 9 writes rows 288 to 299."""
    from kernels_ir import select
    k = KernelBuilder("saturating")
    m = k.param("m", i32)
    out = k.global_array("out", f32, length, intent="out")
    row = k.let("row", cast(blockIdx.x, i32) * 32 + cast(threadIdx.x, i32) // 8, i32)
    left = k.let("left", select(m < row, 0, m - row), i32)
    with k.if_(left > 0):
        out[row * 8 + cast(threadIdx.x, i32) % 8] = 1.0
    k.launch(10, 256)
    k.defaults(m=300)
    return k.build()


def test_a_guard_not_affine_in_the_block_is_evaluated_along_its_axis(monkeypatch):
    """`left > 0` is no affine comparison, but it reads one block axis: evaluated at each
    of the 10 blocks, each thread's blocks where it holds are one interval (thread t's
    rows hold up to block 9 where 288 + t / 8 < 300, else to block 8), so the ends of
    those intervals stand for the grid. One element short, the last row's last element
    is the fault the walk of every block finds."""
    runs = _ends_runs(monkeypatch)
    clean = check(saturating(2400))
    assert clean.clean and clean.blocks_checked == 10
    assert runs == [[0, 1, 8, 9]]
    short = saturating(2399)
    fast, full = check(short), check(short, sliced=False)
    assert verdict(fast) == verdict(full) and len(fast.faults) == 1
    assert "index 2399 of 'out'" in fast.faults[0].message and \
        "[block (9, 0, 0); thread (95, 0, 0)]" in fast.faults[0].message


def double_buffered(trips: int):
    """Each iteration stores into one half of `s` and flips `buf` (a double buffer's `^=`):
    the iterations look alike in pairs. After the loop, s[2 * buf + t] is in bounds only
    where `buf` is 0: where the trip count is odd (buf 32), every thread reads past `s`."""
    k = KernelBuilder(f"double_buffered_{trips}")
    s = k.shared("s", f32, 64)
    out = k.global_array("out", f32, 32, intent="out")
    buf = k.let("buf", 0, i32)
    with k.range("it", 0, trips):
        s[buf + cast(threadIdx.x, i32)] = 1.0
        k.syncthreads()
        buf.set(buf ^ 32)
    out[threadIdx.x] = s[buf * 2 + cast(threadIdx.x, i32)]
    k.launch(1, 32)
    return k.build()


def test_iterations_alike_in_pairs_run_as_the_trip_counts_parity():
    """A loop whose state flips every iteration (YHs's SGEMM's double buffers: 512 K
    iterations, its check 286 s -> 8 s) runs 3 or 4 iterations in check's shared run, as
    many as its trip count modulo 2, so what follows sees the full run's `buf`: 7 trips
    leave it at 32 (a fault, as the full run finds), 8 at 0 (clean)."""
    from smemsim.launch.slicing import hazard_slices
    odd, even = double_buffered(7), double_buffered(8)
    assert hazard_slices(odd).truncate_pairs
    fast, full = check(odd), check(odd, sliced=False)
    assert len(fast.faults) == 1 and verdict(fast) == verdict(full)
    assert check(even).clean and check(even, sliced=False).clean


BULK_COPY = """#include <cuda/barrier>
__global__ void k(const float *g, float *out) {
  __shared__ alignas(16) float s[256];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(&s[threadIdx.x * 4], &g[(blockIdx.x * 64 + threadIdx.x) * 4],
                     cuda::aligned_size_t<16>(16), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x * 4 + 4) % 256];
}
void go(const float *g, float *out) { k<<<1024, 64>>>(g, out); }
"""


def test_a_bulk_copys_global_side_stands_at_the_grids_ends(tmp_path):
    """cuda::memcpy_async of aligned_size_t<16> with a block barrier is nvcc's
    cp.async.bulk (siboehm's runSgemmDoubleBuffering2 copies its tiles so): its global
    source, affine in the block, is checked at the grid's ends as cp.async's is (the whole
    grid was walked: 64 blocks, 2.7 s); one float4 short, the last block's last thread reads
    past g's end, found there."""
    from tests.test_cli import cli_streams
    f = tmp_path / "b.cu"
    f.write_text(BULK_COPY)
    code, out, err = cli_streams("check", str(f), "--length", "g=262144", "--length",
                                 "out=65536")
    assert code == 0, err
    assert "at the grid's ends: 3 blocks, standing for 1,024" in " ".join(out.split())
    code, out, err = cli_streams("check", str(f), "--length", "g=262140", "--length",
                                 "out=65536")
    said = " ".join(out.split())
    assert code == 1 and "[block (1023, 0, 0); thread (63, 0, 0)]" in said, said

"""The slice: which statements decide shared addresses, which loops collapse, which sites
need data, and which blockIdx axes matter (smemsim.launch.slicing), on small kernels."""
from kernels_ir import KernelBuilder, blockIdx, f32, i32, threadIdx
from smemsim.launch.slicing import slice_kernel


def _ids(kernel, *picks):
    """ids of top-level statements by position."""
    return {id(kernel.body[i]) for i in picks}


def test_values_stay_out_addresses_and_their_definitions_stay_in():
    k = KernelBuilder("values")
    src = k.global_array("src", f32, 64)
    s = k.shared("s", f32, 64)
    v = src[threadIdx.x]                                # 0: global load, only a value
    col = k.let("col", threadIdx.x * 2 % 64)            # 1: decides the address
    s[col] = v * 2.0                                    # 2: the site
    k.launch(1, 32)
    kernel = k.build()
    sl = slice_kernel(kernel)
    assert sl.statements == _ids(kernel, 1, 2)
    assert sl.data_dependent == frozenset() and sl.block_axes == frozenset()


def test_a_loaded_index_makes_the_site_data_dependent():
    k = KernelBuilder("lookup")
    table = k.global_array("table", i32, 32)
    s = k.shared("s", f32, 64)
    s[threadIdx.x] = 0.0                                # site 0
    k.syncthreads()
    t = table[threadIdx.x]
    s[t % 64] = 1.0                                     # site 1: address from data
    k.launch(1, 32)
    assert slice_kernel(k.build()).data_dependent == frozenset({1})


def test_loops_collapse_only_when_iterations_look_alike():
    k = KernelBuilder("loops")
    s = k.shared("s", f32, (32, 32))
    acc = k.let("acc", 0.0)
    with k.range("i", 0, 8):                            # 1: same address every iteration
        acc += s[threadIdx.x, threadIdx.y]
    with k.range("j", 0, 8) as j:                       # 2: the address moves with j
        acc += s[j, threadIdx.x]
    row = k.let("row", 0)
    with k.range("m", 0, 8):                            # 4: carries `row` across iterations
        acc += s[row, threadIdx.x]
        row.set(row + 1)
    k.launch(1, (32, 32))
    kernel = k.build()
    sl = slice_kernel(kernel)
    assert id(kernel.body[1]) in sl.collapsible
    assert id(kernel.body[2]) not in sl.collapsible
    assert id(kernel.body[4]) not in sl.collapsible and id(kernel.body[4]) in sl.statements


def test_block_axes_are_those_the_addresses_and_guards_read():
    k = KernelBuilder("axes")
    n = k.param("n")
    s = k.shared("s", f32, 64)
    with k.if_(blockIdx.z * 32 + threadIdx.x < n):      # a guard on z
        s[(threadIdx.x + blockIdx.x) % 64] = 1.0        # an address on x
    out = k.global_array("out", f32, 64, intent="out")
    out[blockIdx.y] = 1.0                               # y decides nothing shared
    k.launch((2, 2, 2), 32)
    k.defaults(n=40)
    assert slice_kernel(k.build()).block_axes == frozenset({"x", "z"})

"""CuTe's layout algebra (kernels_ir/cute_algebra.py) against the worked examples of
CUTLASS's media/docs/cpp/cute/02_layout_algebra.md (each result as that page gives it), and
against CuTe's post-conditions, element by element."""
import itertools

import numpy as np
import pytest

from kernels_ir.cute import CuteError, parse
from kernels_ir.cute_algebra import (
    Tiler, complement, composition, evaluate, logical_divide, values,
)


def _is(layout, shape, stride):
    return (layout.shape, layout.stride) == (shape, stride)


@pytest.mark.parametrize("text, shape, stride", [
    # Coalesce
    ("coalesce((2,(1,6)):(1,(6,2)))", (12,), (1,)),
    # Composition: the page's worked examples
    ("composition((6,2):(8,2), (4,3):(3,1))", ((2, 2), 3), ((24, 2), 8)),
    ("composition(20:2, (5,4):(4,1))", (5, 4), (8, 2)),
    ("composition((10,2):(16,4), (5,4):(1,5))", (5, (2, 2)), (16, (80, 4))),
    # by mode: a tiler, and a shape as a tiler of stride-1 layouts
    ("composition((12,(4,8)):(59,(13,1)), <3:4, 8:2>)", (3, (2, 4)), (236, (26, 1))),
    ("composition((12,(4,8)):(59,(13,1)), (3,8))", (3, (4, 2)), (59, (13, 1))),
    # Complement
    ("complement(4:1, 24)", (6,), (4,)),
    ("complement(6:4, 24)", (4,), (1,)),
    ("complement((4,6):(1,4), 24)", (1,), (0,)),
    ("complement(4:2, 24)", (2, 3), (1, 8)),
    ("complement((2,4):(1,6), 24)", (3,), (2,)),
    ("complement((2,2):(1,6), 24)", (3, 2), (2, 12)),
    # Division: 1-D, and the first mode of each mode of the 2-D example
    ("logical_divide((4,2,3):(2,1,8), 4:2)", ((2, 2), (2, 3)), ((4, 1), (2, 8))),
    ("composition((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)", (3, (2, 4)),
     (177, (13, 2))),
    # Product: 1-D
    ("logical_product((2,2):(4,1), 6:1)", ((2, 2), (2, 3)), ((4, 1), (2, 8))),
])
def test_the_pages_examples(text, shape, stride):
    assert _is(evaluate(text), shape, stride)


def test_the_2d_divide_keeps_each_modes_tile_then_its_rest():
    """The page's 2-D logical_divide: shape ((3,3),(8,4)), each mode's tile first."""
    from kernels_ir.cute_algebra import _size
    a = parse("(9,(4,8)):(59,(13,1))")
    d = logical_divide(a, Tiler((parse("3:3"), parse("(2,4):(1,8)"))))
    (tile_m, rest_m), (tile_n, rest_n) = d.shape
    assert (_size(tile_m), _size(rest_m), _size(tile_n), _size(rest_n)) == (3, 3, 8, 4)
    # the tiles' first modes are the composition with the tiler (the page's figure)
    assert (d.shape[0][0], d.stride[0][0]) == (3, 177)
    assert (d.shape[1][0], d.stride[1][0]) == ((2, 4), (13, 2))


LAYOUTS = ["(6,2):(8,2)", "(4,2,3):(2,1,8)", "(10,2):(16,4)", "((2,2),(3,4)):((1,12),(2,24))",
           "(8,8):(8,1)", "32:1", "(2,4,2):(16,1,4)"]
SELECTORS = ["4:3", "(4,3):(3,1)", "3:1", "(2,2):(1,2)", "6:2", "(3,2):(1,6)", "2:4"]


@pytest.mark.parametrize("a_text, b_text", itertools.product(LAYOUTS, SELECTORS))
def test_composition_is_the_function_composition(a_text, b_text):
    """CuTe's post-condition: R(i) = A(B(i)) for every i < size(B), where CuTe defines the
    composition (its divisibility conditions hold); else it says so."""
    a, b = parse(a_text), parse(b_text)
    try:
        r = composition(a, b)
    except CuteError as err:
        assert "divisibility" in str(err)
        return
    got, want_b = values(r), values(b)
    a_values = values(a)
    if want_b.max() >= a_values.size:
        return      # B reaches past A's domain: CuTe extends A's last mode; not compared
    assert np.array_equal(got, a_values[want_b])


@pytest.mark.parametrize("a_text, n", [("4:1", 24), ("6:4", 24), ("4:2", 24),
                                       ("(2,4):(1,6)", 24), ("(2,2):(1,6)", 24),
                                       ("(4,2):(2,16)", 64), ("(8,8):(8,1)", 128)])
def test_complement_is_ordered_disjoint_and_fills_the_cotarget(a_text, n):
    a = parse(a_text)
    r = complement(a, n)
    rv, av = values(r), values(a)
    assert (np.diff(rv) > 0).all()                           # ordered
    assert not set(rv[1:].tolist()) & set(av.tolist())      # disjoint (but 0)
    both = (av[:, None] + rv[None, :]).ravel()
    assert both.max() + 1 >= n and np.unique(both).size == both.size


def test_a_swizzle_stays_outside_and_errors_name_the_problem():
    r = evaluate("Sw<3,4,3> o smem_ptr[16b](unset) o composition((64,64):(64,1), (8,64))")
    assert r.swizzle == (3, 4, 3) and r.element_bits == 16 and _is(r, (8, 64), (64, 1))
    r = evaluate("composition(Sw<3,3,3> o (64,64):(64,1), <8, 64>)")
    assert r.swizzle == (3, 3, 3) and _is(r, (8, 64), (64, 1))
    with pytest.raises(CuteError, match="neither 4 nor 3 divides the other"):
        evaluate("composition((4,6):(2,16), 3:3)")
    with pytest.raises(CuteError, match="unknown function 'divide'"):
        evaluate("divide(4:1, 2:1)")
    with pytest.raises(CuteError, match="complement takes 2 argument"):
        evaluate("complement(4:1)")
    with pytest.raises(CuteError, match="complement of a swizzled layout"):
        evaluate("complement(Sw<1,4,3> o 64:1, 128)")


def test_the_command_and_a_kernels_file_take_an_expression():
    from kernels_ir import KernelBuilder
    from tests.test_cli import cli
    code, out = cli("layout", "composition(Sw<3,3,3> o (64,64):(64,1), <16, 64>)", width=200)
    assert code == 0
    assert "composition(Sw<3,3,3> o (64,64):(64,1), <16, 64>) = Sw<3,3,3> o " \
           "(16,64):(64,1)" in out
    assert "a tile of 16 x 64 elements of 2 B" in out
    code, out = cli("layout", "logical_divide((64,64):(64,1), 3:1)")
    assert code == 2 and "neither 64 nor 3 divides the other" in out and "Traceback" not in out
    k = KernelBuilder("decl")
    whole = k.shared("a", "f16", (16, 64), layout="Sw<3,3,3> o (16,64):(64,1)")
    part = k.shared("b", "f16", (16, 64),
                    layout="composition(Sw<3,3,3> o (64,64):(64,1), (16,64))")
    assert part.layout == whole.layout


@pytest.mark.parametrize("text, shape, stride, swizzle, bits", [
    # CUTLASS's GMMA atoms (cute/atom/mma_traits_sm90_gmma.hpp): 8 rows of 16, 32, 64, 128
    # bytes, K- or MN-major
    ("GMMA::Layout_K_SW128_Atom<half_t>", (8, 64), (64, 1), (3, 4, 3), 16),
    ("cute::GMMA::Layout_MN_SW64_Atom<float>{}", (16, 8), (1, 16), (2, 4, 3), 32),
    ("Layout_K_SW32_Atom<cutlass::bfloat16_t>", (8, 16), (16, 1), (1, 4, 3), 16),
    ("GMMA::Layout_K_INTER_Atom<int8_t>", (8, 16), (16, 1), None, None),
    # tiled to a 64 x 64 tile: the K-major 128B atom is the whole row, so the tile is
    # row-major under the swizzle (TMA's SWIZZLE_128B); 64B atoms sit two per row, 4,096
    # elements apart; the MN-major one is the column-major transpose
    ("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, (64,64))", (64, 64), (64, 1),
     (3, 4, 3), 16),
    ("tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>, (128,64))", (128, (32, 2)),
     (32, (1, 4096)), (2, 4, 3), 16),
    ("tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (64,64))", (64, 64), (1, 64),
     (3, 4, 3), 16),
    # the page's blocked product: a 2 x 5 row-major block in a 3 x 4 column-major
    # arrangement, mode 0 coalesced
    ("blocked_product((2,5):(5,1), (3,4):(1,3))", (6, (5, 4)), (5, (1, 30)), None, None),
])
def test_gmma_atoms_by_name_and_tiled(text, shape, stride, swizzle, bits):
    r = evaluate(text)
    assert (r.shape, r.stride, r.swizzle, r.element_bits) == (shape, stride, swizzle, bits)


def test_a_tiled_128b_atom_is_the_layout_tma_writes():
    """Every element's byte address of tile_to_shape(Layout_K_SW128_Atom<half_t>, (64,64))
    equals TMA's SWIZZLE_128B layout of a 64 x 64 tile of 2-byte elements."""
    from kernels_ir.tma import swizzle_bytes
    r = evaluate("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (64,64))")
    rows, cols = np.indices((64, 64)).reshape(2, -1)
    want = swizzle_bytes((rows * 64 + cols) * 2, "SWIZZLE_128B")
    assert np.array_equal(r.byte_addresses(2, rows, cols), want)
    with pytest.raises(CuteError, match="unknown element type 'my_type'"):
        evaluate("GMMA::Layout_K_SW128_Atom<my_type>")
    with pytest.raises(CuteError, match="60 is not a multiple of the block's 64"):
        evaluate("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (64,60))")

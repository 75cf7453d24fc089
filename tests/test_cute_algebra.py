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

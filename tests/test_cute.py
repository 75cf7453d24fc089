"""CuTe layouts in CuTe's notation (kernels_ir.cute) and `smemsim layout`: the atoms CUTLASS
prints are the layouts TMA writes, and their reads cost what the H100 measured."""
import numpy as np
import pytest

from kernels_ir.cute import CuteError, parse
from kernels_ir.tma import swizzle_bytes
from smemsim.launch.layout_reads import layout_reads


def test_nested_modes_split_colexicographically():
    layout = parse("((8,8),(8,8)):((8,512),(1,64))")
    assert layout.extents == (64, 64)
    assert layout.offsets(np.array([9]), np.array([9]))[0] == 8 + 512 + 1 + 64
    assert layout.text() == "((8,8),(8,8)):((8,512),(1,64))"


@pytest.mark.parametrize("b, cols, mode", [(3, 64, "SWIZZLE_128B"), (2, 32, "SWIZZLE_64B"),
                                           (1, 16, "SWIZZLE_32B")])
def test_cutlass_k_major_atoms_are_the_layouts_tma_writes(b, cols, mode):
    """Layout_K_SW{128,64,32}_Atom<half_t> as cute::print writes them, against TMA's rule
    (box row r, byte j at swz(r * pitch + j), measured on the H100)."""
    atom = parse(f"Sw<{b},4,3> o smem_ptr[16b](unset) o (_8,_{cols}):(_{cols},_1)")
    r, c = np.meshgrid(np.arange(8), np.arange(cols), indexing="ij")
    tma = swizzle_bytes(r * cols * 2 + c * 2, mode)
    assert (atom.byte_addresses(2, r, c) == tma).all()
    # the element form CuTe uses without a pointer: Swizzle<B, M - log2(2 bytes), S>
    assert (parse(f"Sw<{b},3,3> o ({8},{cols}):({cols},1)").byte_addresses(2, r, c) == tma).all()


@pytest.mark.parametrize("b, cols, raw", [(3, 64, 32), (2, 32, 16), (1, 16, 8)])
def test_the_reads_cost_what_the_h100_measured(b, cols, raw):
    """../docs/hopper-rules.md section 3: rows of 128 / 64 / 32 bytes, read as rows,
    8 rows x chunks, ldmatrix.x4 and a 2-byte column: 4 wavefronts with the swizzle, 32 / 16 /
    8 without it."""
    swizzled = layout_reads(parse(f"Sw<{b},4,3> o smem_ptr[16b](unset) o (64,{cols}):({cols},1)"),
                            2)
    plain = layout_reads(parse(f"(64,{cols}):({cols},1)"), 2)
    wanted = ("row vectors", "ldmatrix.x4", "column")
    assert [x.wavefronts for x in swizzled.reads if x.name in wanted] == [4, 4, 4]
    assert [x.wavefronts for x in plain.reads if x.name in wanted] == [raw, raw, raw]


def test_a_layout_that_splits_vectors_says_so():
    reads = {x.name: x for x in layout_reads(parse("(64,64):(1,64)"), 2).reads}
    assert reads["row vectors"].wavefronts is None
    assert "does not keep those 16 bytes together" in reads["row vectors"].why_not
    assert reads["column"].wavefronts == 1      # a column-major tile's column is contiguous


@pytest.mark.parametrize("text, why", [
    ("(8,64):(64)", "are not alike"),
    ("Sw<3,4,2> o (8,64):(64,1)", "S >= B"),
    ("(8,64", "no shape:stride"),
    ("(8,64):(64,1", r"without its '\)'"),
    ("smem_ptr[12b] o (8,64):(64,1)", "8, 16, 32 or 64 bits"),
    ("(8,0):(64,1)", "positive"),
])
def test_bad_layouts_say_what_is_wrong(text, why):
    with pytest.raises(CuteError, match=why):
        parse(text)


def test_the_command(tmp_path):
    from tests.test_cli import cli
    code, out = cli("layout", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", width=200)
    assert code == 0 and "a tile of 64 x 64 elements of 2 B" in out
    assert "ldmatrix.x4" in out and "0, 144, 288, 432" in out
    code, out = cli("layout", "(64,64):(64")
    assert code == 2 and "layout:" in out and "Traceback" not in out


def test_a_kernels_file_declares_a_tile_with_its_cute_layout():
    """A row-major CuTe layout with a swizzle declares the same array as the TMA mode (the
    swizzle of bytes, aligned to its period)."""
    from kernels_ir import KernelBuilder, KernelError
    k = KernelBuilder("decl")
    cute = k.shared("a", "f16", (64, 64),
                    layout="Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)")
    tma = k.shared("b", "f16", (64, 64), layout="SWIZZLE_128B")
    assert cute.layout == tma.layout and cute.buffer.align == tma.buffer.align == 1024
    assert k.shared("c", "f16", (8, 64), layout="Sw<3,3,3> o (8,64):(64,1)").layout == \
        tma.layout
    for text, why in (("(64,64):(1,64)", "only a row-major shape:stride"),
                      ("(8,64):(64,1)", r"not the array's \(64, 64\)"),
                      ("Sw<3,4,3> o smem_ptr[32b](unset) o (64,64):(64,1)", "32-bit elements")):
        with pytest.raises(KernelError, match=why):
            k.shared(f"d{len(text)}", "f16", (64, 64), layout=text)


def test_a_padded_tiles_misaligned_vectors_are_said_and_its_column_read_costed():
    """`(32,32):(33,1)` of floats, the classic padded tile: row l starts 132 bytes after row
    l - 1, so no 16-byte read of a row's start is aligned (a new user's `smemsim layout`
    exited 2 on it); the column read it is padded for costs 1 wavefront (lane l at word
    33 l: bank l)."""
    r = layout_reads(parse("(32,32):(33,1)"), 4)
    by_name = {x.name: x for x in r.reads}
    assert by_name["row vectors"].wavefronts is None
    assert "start at byte 132, not a multiple of 16" in by_name["row vectors"].why_not
    assert (by_name["column"].wavefronts, by_name["column"].ideal) == (1, 1)

"""The CUDA frontend's preprocessor (smemsim.frontends.cuda.preprocess): macros, conditionals, the
user's includes, numeric literals, and the bounds that keep a hostile file from costing
more than an error."""
from __future__ import annotations

import pytest

from smemsim.frontends.cuda import CudaImportError
from smemsim.frontends.cuda.literals import integer_literal, literal_type
from smemsim.frontends.cuda.pp_expr import MAX_NESTING
from smemsim.frontends.cuda.preprocess import MAX_TOKENS, preprocess


def pp(tmp_path, text, name="a.cu", **kw):
    f = tmp_path / name
    f.write_text(text)
    return preprocess(str(f), **kw)


def rows(out):
    return [r.strip() for r in out.text.splitlines() if r.strip()]


def test_object_and_function_like_macros_stringify_and_paste(tmp_path):
    out = pp(tmp_path, "#define FLOAT4(x) (reinterpret_cast<float4*>(&(x))[0])\n"
                       "#define OFF(n) ((n) >> LOG)\n#define LOG 5\n"
                       "#define CAT(a, b) a ## b\n#define STR(x) #x\n"
                       "#define SUM(...) f(__VA_ARGS__)\n"
                       "FLOAT4(s[i]) = OFF(k + 1); int CAT(my, idx) = 1; STR(a \"b\"); "
                       "SUM(1, 2, 3);\n")
    assert rows(out) == ['(reinterpret_cast<float4*>(&(s[i]))[0]) = ((k + 1) >> 5); '
                         'int myidx = 1; "a \\"b\\""; f(1, 2, 3);']


def test_gnu_comma_before_va_args_goes_with_empty_arguments(tmp_path):
    """`, ##__VA_ARGS__` (gcc, clang and nvcc take it; cuda_hgemm's HLOG): the comma is
    dropped where no variable arguments are given, else they follow it, unpasted and then
    expanded (it was an error: `## makes ,major`); as `cpp -P` writes it."""
    out = pp(tmp_path, '#define LOG(fmt, ...) printf("[x] " fmt "\\n", ##__VA_ARGS__)\n'
                       "#define TWICE(a, ...) f(a, ## __VA_ARGS__)\n#define N 4\n"
                       'LOG("a"); LOG("b %d %d", 1, N); TWICE(1); TWICE(2, N, 3);\n')
    assert rows(out) == ['printf("[x] " "a" "\\n"); printf("[x] " "b %d %d" "\\n", 1, 4); '
                         'f(1); f(2, 4, 3);']


def test_a_macro_is_not_expanded_inside_itself(tmp_path):
    out = pp(tmp_path, "#define x (x + 1)\n#define f(a) a * f(a)\nx; f(2);\n")
    assert rows(out) == ["(x + 1); 2 * f(2);"]


def test_hex_and_suffixed_literals_keep_their_value():
    """The old importer read `0x1F` as 0x1 and `0xFFFFFFFFU` as 0x (it stripped F's)."""
    assert literal_type("0x1F") == (31, "i32")
    assert literal_type("0xFFFFFFFFU") == (0xFFFFFFFF, "u32")
    assert literal_type("0x80000000") == (0x80000000, "u32")  # hex: unsigned int, as in C++
    assert literal_type("1'000'000") == (1_000_000, "i32")
    assert literal_type("0b1010") == (10, "i32") and literal_type("017") == (15, "i32")
    assert literal_type("16u") == (16, "u32") and literal_type("1ULL") == (1, "u64")
    assert literal_type("1.5f") == (1.5, "f32") and literal_type("2.0") == (2.0, "f64")
    assert literal_type("0x1p-2f") == (0.25, "f32")
    # C++'s long (64 bits on Linux) and long long: the IR's i64
    assert literal_type("3000000000") == (3_000_000_000, "i64")
    assert literal_type("1LL") == (1, "i64") and literal_type("64L") == (64, "i64")
    assert literal_type("0x100000000") == (2 ** 32, "i64")
    with pytest.raises(ValueError, match="does not fit a long long"):
        literal_type("9223372036854775808")
    assert integer_literal("0xFFFFFFFFFFFFFFFF") == (2 ** 64 - 1, True)


def test_conditionals_defined_elif_and_the_arch(tmp_path):
    text = ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\nA\n#elif 1\nB\n#else\nC\n"
            "#endif\n#ifdef NOPE\nD\n#elif (1 << 4) == 0x10 && !defined NOPE\nE\n#endif\n"
            "#ifndef X\n#define X 3\n#endif\n#if X * 2 == 6 ? 1 : 0\nF\n#endif\n")
    assert rows(pp(tmp_path, text)) == ["A", "E", "F"]
    assert rows(pp(tmp_path, text, arch=750)) == ["B", "E", "F"]
    assert rows(pp(tmp_path, text, defines={"NOPE": "1", "X": "4"}, arch=750)) == ["B", "D"]


def test_includes_of_the_users_headers_and_system_headers(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "tile.h").write_text("#pragma once\n#define TILE 32\n")
    (tmp_path / "near.cuh").write_text("#ifndef NEAR\n#define NEAR 1\nint near;\n#endif\n")
    out = pp(tmp_path, '#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n'
                       '#include "tile.h"\n#include "tile.h"\n#include "near.cuh"\n'
                       '#include "near.cuh"\nTILE NEAR\n', include_dirs=[str(tmp_path / "inc")])
    assert rows(out) == ["int near;", "32 1"]
    with pytest.raises(CudaImportError, match=r"a\.cu:1:1: #include \"missing\.h\": no such "
                                              r"file next to a\.cu"):
        pp(tmp_path, '#include "missing.h"\n')


def test_the_toolkits_headers_are_not_read_where_an_include_folder_holds_them(tmp_path):
    """`-I` naming a pip-installed cuBLAS (llm.c's common.h includes <cublas_v2.h>): nvcc
    reads it from there, the import does not (its `#include "driver_types.h"` is the
    toolkit's); a user's "..." header is still read, and a "..." name of the toolkit's that
    is nowhere to be found is known as nvcc would find it."""
    lib = tmp_path / "cublas"
    lib.mkdir()
    (lib / "cublas_v2.h").write_text('#include "driver_types.h"\nint from_cublas;\n')
    (lib / "helpers.h").write_text('#include "cuda_runtime_api.h"\nint helper;\n')
    out = pp(tmp_path, '#include <cublas_v2.h>\n#include "helpers.h"\nint x;\n',
             include_dirs=[str(lib)])
    assert rows(out) == ["int helper;", "int x;"]


def test_every_token_keeps_the_place_it_came_from(tmp_path):
    """A macro's expansion is located where the macro is used; a continued line keeps
    its physical lines; an included file's tokens name that file."""
    (tmp_path / "h.cuh").write_text("int from_header;\n")
    out = pp(tmp_path, '#include "h.cuh"\n#define TWICE(x) ((x) + (x))\n'
                       'int a = \\\n    TWICE(b);\n')
    # rows of the output follow the user's lines: `int a =` (line 3), then the expansion
    assert rows(out) == ["int from_header;", "int a =", "((b) + (b));"]
    assert str(out.loc(1, 0)).endswith("a.cu:3:1")
    assert str(out.loc(2, 0)).endswith("a.cu:4:5")  # TWICE's expansion: where it is used
    assert str(out.loc(0, 0)).endswith("h.cuh:1:1")


def test_tokens_after_spliced_lines_and_comments_keep_their_line_and_column():
    """Positions are mapped back through every backslash-newline (LF and CRLF) and block
    comment, without a table per character (a 4 MB file's table took seconds)."""
    from smemsim.frontends.cuda.preprocess import tokenize
    text = "int a = \\\n  b + /* two\nlines */ c;\r\n#define X \\\r\n  y\n  z @\n"
    lines = tokenize(text, "f.cu")
    where = [(t.text, t.loc.line, t.loc.column) for line in lines for t in line]
    assert where[:6] == [("int", 1, 1), ("a", 1, 5), ("=", 1, 7), ("b", 2, 3), ("+", 2, 5),
                         ("c", 3, 10)]
    assert ("y", 5, 3) in where and ("z", 6, 3) in where
    with pytest.raises(CudaImportError) as err:
        tokenize("int a = \\\n  b ` \u00e9;\n", "f.cu")
    assert "`\u00e9` is not a character" in str(err.value) and "f.cu:2:7" in str(err.value)


def test_pragma_unroll_goes_through_with_its_count_expanded(tmp_path):
    out = pp(tmp_path, "#define N 4\n#pragma unroll N\nfor (;;) {}\n_Pragma(\"unroll\") x;\n"
                       "#pragma once\n#pragma nv_diag_suppress 177\n")
    assert rows(out) == ["#pragma unroll 4", "for (;;) {}", "#pragma unroll", "x;"]


@pytest.mark.parametrize("text, message", [
    ("#if 1 << (1 << 40)\n#endif\n", r"a\.cu:1:\d+: #if: shift by 1099511627776 \(0 to 63"),
    ("#if 1 / 0\n#endif\n", r"#if: division by zero"),
    ("#if " + "(" * 3000 + "1" + ")" * 3000 + "\n#endif\n",
     rf"parentheses nested more than {MAX_NESTING} deep"),
    ("#define A B B\n#define B C C\n#define C D D\n#define D E E\n#define E F F\n"
     "#define F G G\n#define G H H\n#define H I I\n#define I J J\n#define J K K\n"
     "#define K L L\n#define L M M\n#define M N N\n#define N O O\n#define O P P\n"
     "#define P Q Q\n#define Q R R\n#define R S S\n#define S T T\n#define T U U\n"
     "#define U V V\n#define V W W\n#define W X X\n A\n",
     rf"macro expansion produced more than {MAX_TOKENS:,} tokens"),
    ("#if 1\nint x;\n", r"a\.cu:3: #if without #endif"),
    ("#endif\n", r"a\.cu:1:1: #endif without #if"),
    ("#error the tile must be 32\n", r"a\.cu:1:1: #error the tile must be 32"),
    ("#define F(a, b) a\nF(1);\n", r"a\.cu:2:1: macro F takes 2 argument\(s\), given 1"),
    ("int x; /* never closed\n", r"a\.cu:1:8: a /\* comment that never ends"),
    ("#include \"a.cu\"\n", r"#include nested more than 64 deep"),
])
def test_hostile_or_broken_input_is_one_located_error(tmp_path, text, message):
    with pytest.raises(CudaImportError, match=message):
        pp(tmp_path, text)


def test_deep_but_legal_inputs_are_read(tmp_path):
    """3,000 chained defines and a define of 100,001 terms expand without recursion."""
    chain = "".join(f"#define D{i} D{i + 1}\n" for i in range(3000)) + "#define D3000 7\nD0\n"
    assert rows(pp(tmp_path, chain)) == ["7"]
    long = "#define SUM " + " + ".join(["1"] * 100_001) + "\nSUM\n"
    assert rows(pp(tmp_path, long))[0].count("1") == 100_001


def test_encodings_that_are_not_source_say_so_at_the_line(tmp_path):
    f = tmp_path / "u16.cu"
    f.write_bytes("int x;\n".encode("utf-16"))
    with pytest.raises(CudaImportError, match=r"u16\.cu:1: the file is UTF-16"):
        preprocess(str(f))
    f.write_bytes(b"int x;\nint\x00 y;\n")
    with pytest.raises(CudaImportError, match=r"u16\.cu:2: the file has a NUL byte"):
        preprocess(str(f))


def test_a_define_on_the_command_line_that_the_file_contradicts_is_an_error(tmp_path):
    """nvcc would use the file's value (a redefinition warning); silently analyzing the
    other one would be wrong either way."""
    with pytest.raises(CudaImportError, match=r"a\.cu:1:9: -D TILE=32 and this `#define TILE "
                                              r"16` disagree"):
        pp(tmp_path, "#define TILE 16\n", defines={"TILE": "32"})
    assert rows(pp(tmp_path, "#ifndef TILE\n#define TILE 16\n#endif\nTILE\n",
                   defines={"TILE": "32"})) == ["32"]


def test_bytes_that_are_not_utf8_are_read_in_comments_and_refused_in_code(tmp_path):
    """Latin-1 comments (Rodinia's myocyte and leukocyte: `\\xa9`, `\\xfc`) are read as nvcc
    reads them; such a byte in code is nvcc's error at its line (its message, which echoes
    the byte, is read, not a decoding error)."""
    f = tmp_path / "a.cu"
    f.write_bytes(b"// Copyright \xa9 2009 M\xfcller\n#define N 4\nint x = N;\n")
    out = preprocess(str(f), {}, [])
    assert "int x = 4;" in " ".join(rows(out))
    g = tmp_path / "b.cu"
    g.write_bytes(b"__global__ void k(float *o) {\n    float x\xa9 = 1.0f;\n}\n"
                  b"void h(float *o) { k<<<1, 32>>>(o); }\n")
    from kernels_ir import KernelError
    from smemsim.frontends.cuda import Options
    from tests.built import import_kernels
    with pytest.raises(KernelError, match=r"b.cu:2: error: unrecognized token"):
        import_kernels(str(g), Options())["k"]()

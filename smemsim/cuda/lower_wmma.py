"""nvcuda::wmma: fragments as register arrays, their operations as what nvcc compiles them
to on sm_80 and newer.

An m16n16k16 fragment of halves (or bf16) is four 32-bit registers per lane, a float
accumulator eight; `mma_sync` is two `mma.sync.m16n8k16` (the n = 0-7 and n = 8-15
halves); `load_matrix_sync` of an operand of halves from shared memory is one
`ldmatrix.x4` (`.trans` for a row-major B or a column-major A), of bf16 four 4-byte loads
(transposed in registers for those two); an accumulator moves as 8-byte rows of
two floats (LDS.64/STS.64), 4-byte columns (a float column-major) or 4-byte pairs of
halves (column-major through a register transpose, MOVM). Measured in SASS (nvcc 13,
sm_90) and on an H100 (docs/validation.md). Fragment registers are laid out as those
instructions leave them: lane 4g + t holds rows g and g + 8, columns 2t, 2t + 1 (+ 8), so
`x[i]` is the element CUDA's own code sees there.
"""
from __future__ import annotations

import dataclasses

from kernels_ir import Expr, bitcast, blockDim, call, cast, const, select, threadIdx
from kernels_ir.dtypes import BY_NAME, i32, u32

from .lower_vectors import halves_of, words_of
from .parse import parse_expression, short, subscript_index, text
from .symbols import TYPES, Sym, callee_name, exact_quotient

WMMA_FUNCTIONS = {"fill_fragment", "load_matrix_sync", "store_matrix_sync", "mma_sync"}
ELEMENTS = {"half": "f16", "__half": "f16", "__nv_bfloat16": "bf16", "nv_bfloat16": "bf16",
            "float": "f32", "tf32": "tf32",   # `wmma::precision::tf32`: floats, m16n16k8
            "signedchar": "i8", "unsignedchar": "u8", "int": "i32",   # (spaces dropped)
            "double": "f64"}


@dataclasses.dataclass
class Fragment:
    """A declared `wmma::fragment` (or an array of them): its use, element type, operand
    layout and the register array holding every lane's words (the last dimension)."""

    use: str          # matrix_a, matrix_b or accumulator
    element: str      # f16 or bf16 (operands, half accumulators) or f32 (accumulators)
    layout: str | None  # row_major or col_major (operands); None for accumulators
    array: object     # the builder's LocalArray: dims of the fragment array + (words,)
    rank: int         # dimensions of the fragment array (0 for one fragment)
    k: int = 16       # the shape's k: 16, or 8 for tf32 (m16n16k8)

    @property
    def words(self) -> int:
        if self.element == "f64":   # m8n8k4: one double of A or B a lane, two of C
            return 2 if self.use == "accumulator" else 1
        return 8 if self.element in ("f32", "i32") else 2 if self.element in ("i8", "u8") \
            else 4

    @property
    def floats(self) -> bool:
        """Whether each word is one element (a float, int or double accumulator's, a tf32
        or double operand's); else a word packs two 16-bit or four 8-bit elements."""
        return self.element in ("f32", "tf32", "i32", "f64")

    @property
    def word_type(self) -> str:
        """The IR type of its words."""
        return self.element if self.element in ("i32", "f64") else \
            "f32" if self.floats else "u32"


class WmmaMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def wmma_declaration(self, node, type_node) -> bool:
        """`wmma::fragment<use, 16, 16, 16, T[, layout]> a;` (also `a[2]`, `acc[2][4]`): a
        register array of each lane's words."""
        spec = self.fragment_type(type_node, node)
        if spec is None:
            return False
        use, element, layout, k = spec
        for d in node.named_children:
            if d == type_node or d.type in ("type_qualifier", "storage_class_specifier",
                                            "attribute_specifier"):
                continue
            dims = []
            while d.type == "array_declarator":
                dims.insert(0, self.constant_int(d.child_by_field_name("size"),
                                                 "a fragment array's size"))
                d = d.child_by_field_name("declarator")
            if d.type != "identifier":
                raise self.error(node, f"`{short(node)}`: a fragment is declared by name "
                                       "(an initializer is not supported)")
            frag = Fragment(use, element, layout, None, len(dims), k)
            with self.at(d):
                frag.array = self.kb.local_array(text(d), frag.word_type,
                                                 tuple(dims) + (frag.words,))
            self.declare(text(d), Sym("fragment", frag, element))
        return True

    def fragment_type(self, type_node, node) -> tuple | None:
        """(use, element, layout, k) of a `wmma::fragment<...>` type; None for another
        type."""
        t = type_node
        while t.type == "qualified_identifier":
            t = t.child_by_field_name("name")
        if t.type != "template_type" or text(t.child_by_field_name("name")) != "fragment":
            return None
        args = [text(a) for a in t.child_by_field_name("arguments").named_children]
        last = lambda s: s.replace(" ", "").split("::")[-1]
        if not args or last(args[0]) not in ("matrix_a", "matrix_b", "accumulator"):
            return None   # a template of the file's own named `fragment`
        if len(args) not in (5, 6):
            raise self.error(node, f"`{short(node)}`: fragment<use, m, n, k, T[, layout]> "
                                   "expected")
        use = last(args[0])
        shape = tuple(self.constant_int(parse_expression(a), "a fragment shape")
                      for a in args[1:4])
        named = self.types.get(args[4], args[4])   # a template's type parameter: its IR type
        integer = TYPES.get(" ".join(named.split()))   # `int8_t`, `unsigned char`
        element = named if named in ("f16", "bf16", "f32", "i8", "u8", "i32", "f64") else \
            ELEMENTS.get(last(named)) or (integer if integer in ("i8", "u8", "i32") else None)
        supported = {(16, 16, 16): element not in ("tf32", "f64"),
                     (16, 16, 8): element == "tf32" or (element == "f32" and
                                                        use == "accumulator"),
                     (8, 8, 4): element == "f64"}.get(shape, False)
        if element is None or not supported:
            raise self.error(node, f"`{short(node)}`: wmma m{shape[0]}n{shape[1]}k{shape[2]} "
                                   f"of {args[4]} is not supported (the importer reads "
                                   "m16n16k16 of half or __nv_bfloat16, into float or half, "
                                   "of signed or unsigned char into int, m16n16k8 of "
                                   "precision::tf32 into float and m8n8k4 of double)")
        layout = last(args[5]) if len(args) == 6 else None
        if use == "accumulator":
            if layout is not None or element not in ("f16", "f32", "i32", "f64"):
                raise self.error(node, f"`{short(node)}`: an accumulator is float, half, "
                                       "int or double, with no layout")
        elif layout not in ("row_major", "col_major") or element in ("f32", "i32"):
            raise self.error(node, f"`{short(node)}`: a {use} fragment of half, "
                                   "__nv_bfloat16, tf32, (un)signed char or double, row_major or "
                                   "col_major, expected")
        return use, element, layout, shape[2]

    def wmma_call(self, node, name: str, args) -> Expr:
        """`wmma::fill_fragment`, `load_matrix_sync`, `store_matrix_sync`, `mma_sync`."""
        if name == "fill_fragment" and len(args) == 2:
            frag, lead = self.fragment_arg(args[0])
            value = self.expr(args[1])
            if frag.element in ("i8", "u8"):
                raise self.error(node, f"`{short(node)}`: fill_fragment of an 8-bit operand")
            if not frag.floats:
                value = self.convert(value, frag.element, node)   # rounded to its type once
            with self.at(node):
                if frag.floats:   # (a tf32 operand's elements are the floats given)
                    words = [cast(value, BY_NAME[frag.word_type])] * frag.words
                else:
                    bits = cast(call("f16_bits", value), u32) if frag.element == "f16" else \
                        bitcast(cast(value, BY_NAME["f32"]), u32) >> 16   # bf16: the high half
                    words = [bits | (bits << 16)] * 4
                self.set_words(frag, lead, words)
            return const(0)
        if name == "mma_sync" and len(args) == 4:
            return self.wmma_mma(node, args)
        if name == "load_matrix_sync" and len(args) in (3, 4):
            frag, lead = self.fragment_arg(args[0])
            if (frag.use == "accumulator") != (len(args) == 4):
                raise self.error(node, f"`{short(node)}`: an accumulator is loaded with a "
                                       "layout (wmma::mem_row_major/mem_col_major), an "
                                       "operand without one")
            column = self.memory_layout(args[3], node) if len(args) == 4 else False
            self.fragment_memory(node, frag, lead, args[1], self.expr(args[2]), column, True)
            return const(0)
        if name == "store_matrix_sync" and len(args) == 4:
            frag, lead = self.fragment_arg(args[1])
            if frag.use != "accumulator":
                raise self.error(node, f"`{short(node)}`: only an accumulator is stored")
            self.fragment_memory(node, frag, lead, args[0], self.expr(args[2]),
                                 self.memory_layout(args[3], node), False)
            return const(0)
        raise self.error(node, f"`{short(node)}`: wmma::{name} with these arguments is not "
                               "supported")

    # ---------------------------------------------------------------- operands
    def fragment_arg(self, node) -> tuple[Fragment, list]:
        """The fragment an argument names (`a`, `a[i]`, `acc[i][j]`) and its indices."""
        indices = []
        while node.type == "subscript_expression":
            indices.insert(0, self.index(subscript_index(node)))
            node = node.child_by_field_name("argument")
        sym = self.lookup(text(node), node) if node.type == "identifier" else None
        if sym is None or sym.kind != "fragment":
            raise self.error(node, f"`{short(node)}` is not a wmma::fragment")
        if len(indices) != sym.value.rank:
            raise self.error(node, f"`{short(node)}`: one fragment of the array expected "
                                   f"({sym.value.rank} indices)")
        return sym.value, indices

    def fragment_of(self, node) -> tuple[Fragment, list] | None:
        """`fragment_arg` where `node` names a fragment (`c`, `c[i][j]`), else None."""
        root = node
        while root.type == "subscript_expression":
            root = root.child_by_field_name("argument")
        if root.type != "identifier":
            return None
        sym = self.declared(text(root))
        if sym is None or sym.kind != "fragment":
            return None
        return self.fragment_arg(node)

    def fragment_count(self, node) -> Expr | None:
        """`c.num_elements` of an accumulator (8 a lane; a double one 2) or a tf32
        operand (4)."""
        found = self.fragment_of(node.child_by_field_name("argument"))
        if found is None:
            return None
        self.accumulator_only(found[0], node)
        frag = found[0]
        return const(8 if frag.element == "f16" else frag.words)

    def fragment_element(self, node) -> tuple | None:
        """(fragment, its indices, the element's index) of `c.x[t]` (`c[i][j].x[t]`), or
        None where `node` is not an element of a fragment."""
        if node.type != "subscript_expression":
            return None
        field = node.child_by_field_name("argument")
        if field.type != "field_expression" or \
                text(field.child_by_field_name("field")) != "x":
            return None
        found = self.fragment_of(field.child_by_field_name("argument"))
        if found is None:
            return None
        self.accumulator_only(found[0], node)
        return found[0], found[1], cast(self.index(subscript_index(node)), i32)

    def accumulator_only(self, frag: Fragment, node) -> None:
        """An accumulator's elements are read and written; of the operands only a tf32
        one's, whose elements are all alike to the code that touches them (`a.x[t] =
        wmma::__float_to_tf32(a.x[t])` for every t: which element a word holds does not
        matter)."""
        if frag.use != "accumulator" and frag.element != "tf32":
            raise self.error(node, f"`{short(node)}`: the elements of a {frag.use} fragment "
                                   "are laid out as each architecture loads them: the "
                                   "importer reads an accumulator's (x[i], num_elements)")

    def fragment_read(self, frag: Fragment, lead: list, i: Expr, node) -> Expr:
        """Element i of a lane's accumulator: float i, or the half in word i / 2 (as its
        float value, as registers hold halves)."""
        with self.at(node):
            if frag.floats:
                return frag.array[tuple(lead) + (i,)]
            word = frag.array[tuple(lead) + (i >> 1,)]
            bits = (word >> cast((i & 1) * 16, u32)) & 0xFFFF
            return call("f16_from_bits", bits)

    def fragment_write(self, frag: Fragment, lead: list, i: Expr, op: str, value: Expr,
                       node) -> None:
        """`c.x[t] op= value`: the element converted to the fragment's type (a half rounded
        once), the other half of its word kept. A half's `op=` is cuda_fp16.hpp's: the
        value converted to half first, the operation rounded to half."""
        if op != "=" and frag.floats:
            value = self.c_binary(op[:-1], self.fragment_read(frag, lead, i, node), value,
                                  node)
        elif op != "=":
            if op[:-1] not in ("+", "-", "*", "/"):
                raise self.error(node, f"`{short(node)}`: {op} of a half element")
            value = self.half_result(op[:-1], [self.fragment_read(frag, lead, i, node),
                                               self.convert(value, "f16", node)], "f16", node)
        if frag.floats:
            with self.at(node):
                frag.array[tuple(lead) + (i,)] = cast(value, BY_NAME[frag.word_type])
            return
        half = self.convert(value, "f16", node)
        with self.at(node):
            at = tuple(lead) + (i >> 1,)
            shift = cast((i & 1) * 16, u32)
            bits = cast(call("f16_bits", half), u32) << shift
            frag.array[at] = (frag.array[at] & ~(cast(0xFFFF, u32) << shift)) | bits

    def fragment_words(self, frag: Fragment, lead: list) -> list:
        return [frag.array[tuple(lead) + (const(j),)] for j in range(frag.words)]

    def set_words(self, frag: Fragment, lead: list, words: list) -> None:
        for j, w in enumerate(words):
            frag.array[tuple(lead) + (const(j),)] = w

    def memory_layout(self, node, where) -> bool:
        """True for `wmma::mem_col_major`, False for `mem_row_major`."""
        last = text(node).replace(" ", "").split("::")[-1]
        if last not in ("mem_row_major", "mem_col_major"):
            raise self.error(where, f"`{short(where)}`: the layout must be "
                                    "wmma::mem_row_major or wmma::mem_col_major")
        return last == "mem_col_major"

    @staticmethod
    def lane_parts() -> tuple[Expr, Expr, Expr]:
        """(lane, g, t): the lane in its warp, its row group (lane / 4) and column pair."""
        linear = cast(threadIdx.x, u32) + cast(blockDim.x, u32) * (
            cast(threadIdx.y, u32) + cast(blockDim.y, u32) * cast(threadIdx.z, u32))
        lane = cast(linear % 32, i32)
        return lane, lane >> 2, lane & 3

    # ---------------------------------------------------------------- mma
    def wmma_mma(self, node, args) -> Expr:
        """`mma_sync(d, a, b, c)`: two m16n8k16 mma.sync, columns 0-7 and 8-15 of D (both
        read C before D is written: d and c may be one fragment)."""
        (d, dl), (a, al), (b, bl), (c, cl) = (self.fragment_arg(x) for x in args)
        if (a.use, b.use, c.use, d.use) != ("matrix_a", "matrix_b", "accumulator",
                                            "accumulator") or a.element != b.element or \
                c.element != d.element:
            raise self.error(node, f"`{short(node)}`: mma_sync(d, a, b, c) takes an A and a B "
                                   "fragment of one type and two accumulators of one type")
        if c.element == "f16" and a.element in ("bf16", "tf32"):
            raise self.error(node, f"`{short(node)}`: {a.element} operands accumulate in "
                                   "float")
        if (c.element == "i32") != (a.element in ("i8", "u8")):
            raise self.error(node, f"`{short(node)}`: 8-bit integer operands accumulate in "
                                   "int, and only they")
        if len({a.k, b.k, c.k, d.k}) != 1:
            raise self.error(node, f"`{short(node)}`: fragments of one shape expected")
        aw, bw, cw = (self.fragment_words(f, lead) for f, lead in ((a, al), (b, bl), (c, cl)))
        if a.element == "f64":   # m8n8k4: one mma.sync for the whole tile
            with self.at(node):
                product = self.kb.mma_sync(aw, bw, cw, shape="m8n8k4", atype="f64",
                                           ctype="f64")
                self.set_words(d, dl, [product[0], product[1]])
            return const(0)
        if a.element == "tf32":   # (tf32 words are held as the floats: their bits go in)
            aw, bw = ([bitcast(w, u32) for w in ws] for ws in (aw, bw))
        half, per = len(cw) // 2, len(bw) // 2   # B's words and C's of each n half
        atype = {"i8": "s8"}.get(a.element, a.element)   # (PTX's names)
        results = []
        with self.at(node):
            for p in (0, 1):
                product = self.kb.mma_sync(aw, bw[per * p:per * (p + 1)],
                                           cw[half * p:half * (p + 1)],
                                           shape=f"m16n8k{a.k}", atype=atype,
                                           ctype="s32" if c.element == "i32" else c.element)
                results += [product[k] for k in range(half)]
            self.set_words(d, dl, results)
        return const(0)

    # ---------------------------------------------------------------- memory
    def fragment_memory(self, node, frag: Fragment, lead: list, pointer, ldm: Expr,
                        column: bool, load: bool) -> None:
        """A fragment loaded from or stored to the matrix at `pointer` (leading dimension
        `ldm` elements), by the instructions nvcc emits for it."""
        arr, indices = self.pointer_place(pointer, node)
        half = frag.element in ("f16", "bf16")
        elements = {"f16": ("f16", "bf16", "u16", "i16"), "bf16": ("f16", "bf16", "u16", "i16"),
                    "i8": ("i8", "u8"), "u8": ("i8", "u8"), "i32": ("i32", "u32"),
                    "f64": ("f64",)}.get(frag.element, ("f32",))
        if arr.dtype not in elements:
            raise self.error(node, f"`{short(node)}`: a fragment of {frag.element} moves "
                                   f"{' or '.join(elements)} elements; '{arr.value.name}' "
                                   f"holds {arr.dtype}")
        with self.at(node):
            ldm = cast(ldm, i32)
            # halves move as their bits, bytes as theirs
            want = "u16" if half else "u8" if frag.element in ("i8", "u8") else \
                frag.word_type
            if arr.kind == "shared":
                # a tile of several dimensions: its elements in a row (a flat view)
                target = arr if arr.dtype == want and arr.rank == 1 else \
                    self.shared_view(arr, want, node)
                base = cast(arr.value.flat_index(tuple(indices)), i32)
            elif arr.kind == "global":
                target = self.shared_view(arr, "u16", node) if half and arr.dtype != "u16" \
                    else arr
                base = cast(indices[-1], i32)
            else:
                raise self.error(node, f"`{short(node)}`: a fragment moves from or to shared "
                                       "or global memory")
            memory = target.value
            lane, g, t = self.lane_parts()
            lane = self.kb.let("wmma_lane", lane)   # one name in the addresses reported
            g, t = lane >> 2, lane & 3
            if frag.element == "f64":
                self.double_fragment(frag, lead, memory, base, ldm, g, t, column, load)
            elif frag.use != "accumulator":
                if frag.element in ("i8", "u8"):
                    self.operand_bytes(frag, lead, arr, memory, base, ldm, lane, node)
                elif frag.element == "tf32":
                    self.operand_tf32(frag, lead, memory, base, ldm, g, t)
                elif arr.kind == "shared" and frag.element == "bf16":
                    self.operand_words(frag, lead, memory, base, ldm, g, t)
                elif arr.kind == "shared":
                    self.operand_ldmatrix(frag, lead, memory, base, ldm, lane)
                else:
                    self.operand_elements(frag, lead, memory, base, ldm, g, t)
            elif half:
                self.half_accumulator(frag, lead, memory, base, ldm, g, t, column, load)
            else:
                self.float_accumulator(frag, lead, memory, base, ldm, g, t, column, load)

    def operand_ldmatrix(self, frag, lead, memory, base, ldm, lane) -> None:
        """An operand from a shared tile: ldmatrix.x4, lane 8j + i giving row i of 8x8
        matrix j (j = 0..3: rows 0-7 / 8-15 of A, k 0-7 / 8-15 of B, then the other k or
        n half); `.trans` where the matrix's rows run along the fragment's columns."""
        i, j = lane & 7, lane >> 3
        if frag.layout == "row_major":
            # matrices 0-3 are row (A) or k (B) 0-7 and 8-15 of columns 0-7, then of 8-15:
            # in memory, row l % 16, eight elements on per l / 16
            offset = (lane & 15) * ldm + (lane >> 4) * 8
        else:   # the same matrices, stored as their transposes
            offset = (i + (j >> 1) * 8) * ldm + (j & 1) * 8
        trans = (frag.use == "matrix_a") != (frag.layout == "row_major")
        loaded = self.kb.ldmatrix(memory, (base + offset,), matrices=4, trans=trans)
        self.set_words(frag, lead, words_of([loaded[k] for k in range(8)]))

    def operand_words(self, frag, lead, memory, base, ldm, g, t) -> None:
        """A bf16 operand from a shared tile: four 4-byte loads, not ldmatrix (nvcc 13 on
        sm_90 emits generic LD.E, which the H100 counts as shared loads): word j is an 8x8
        quarter read by rows, lane 4g + t its row g, columns 2t and 2t + 1; in the order
        of the fragment's words (rows 8-15 of A, or k 8-15 of B, second). Where the
        quarter's rows run along the fragment's columns (a column-major A, a row-major B)
        each word is then transposed in registers (MOVM.16.MT88)."""
        trans = (frag.use == "matrix_a") != (frag.layout == "row_major")
        words = []
        for jw in range(4):
            # the quarter's rows of the tile (8 * first on) and columns (8 * second on):
            # a row-major tile holds A's rows or B's k along its rows
            first, second = (jw & 1, jw >> 1) if frag.layout == "row_major" \
                else (jw >> 1, jw & 1)
            at = (base + (g + 8 * first) * ldm + 8 * second + t * 2,)
            v = self.kb.load(memory, at, width=2)
            (word,) = words_of([v[0], v[1]])
            words.append(self.transposed(word, g, t) if trans else word)
        self.set_words(frag, lead, words)

    def operand_bytes(self, frag, lead, arr, memory, base, ldm, lane, node) -> None:
        """An 8-bit integer operand (m16n16k16, the two m16n8k16 fragments): A's word r is
        row g + 8r, bytes 4t to 4t + 3 of k; B's word p is n = g + 8p, k = 4t to 4t + 3.
        nvcc 13 (sm_90) loads a row-major A or column-major B from a shared tile with one
        ldmatrix.x2 (LDSM.16.M88.2: its rows are those 16 bytes), and the other layouts,
        whose four bytes are a column apart, with four 1-byte loads a word (LDS.U8, packed
        by PRMT); from global memory byte by byte."""
        g, t = lane >> 2, lane & 3
        natural = (frag.use == "matrix_a") == (frag.layout == "row_major")
        if natural and arr.kind == "shared":
            # lane 8j + i gives row i of 8x8 matrix j (of 16-bit pairs): rows 0-7 then 8-15
            # (A's m, B's n), each 16 bytes of k
            pairs = exact_quotient(base + (lane & 15) * ldm, 2, self.definitions)
            if pairs is None:
                raise self.error(node, f"`{short(node)}`: ldmatrix reads an 8-bit tile as "
                                       "16-bit pairs: its start and ldm must be even, which "
                                       "the importer cannot see here (an offset that is a "
                                       "product with an even constant shows it)")
            view = self.shared_view(arr, "u16", node)
            loaded = self.kb.ldmatrix(view.value, (pairs,), matrices=2, trans=False)
            self.set_words(frag, lead, words_of([loaded[k] for k in range(4)]))
            return
        words = []
        for r in range(2):
            # (m or n, k) of each byte: row g + 8r, k 4t + i
            at = [((g + 8 * r) * ldm + 4 * t + i) if natural else
                  ((4 * t + i) * ldm + g + 8 * r) for i in range(4)]
            parts = [cast(self.kb.load(memory, (base + a,)), u32) & 0xFF for a in at]
            words.append(self.kb.let("wmma_bytes", parts[0] | (parts[1] << 8) |
                                     (parts[2] << 16) | (parts[3] << 24), "u32"))
        self.set_words(frag, lead, words)

    def double_fragment(self, frag, lead, memory, base, ldm, g, t, column, load) -> None:
        """m8n8k4 of doubles (nvcc 13 on sm_90: generic LD.E.64 / ST.E.128, DMMA.8x8x4): an
        operand is one 8-byte load, A(g, t) or B(t, g); an accumulator's two doubles (row g,
        columns 2t and 2t + 1) one 16-byte access, or two 8-byte ones column-major."""
        if frag.use != "accumulator":
            row, col = (g, t) if frag.use == "matrix_a" else (t, g)
            at = row * ldm + col if frag.layout == "row_major" else col * ldm + row
            self.set_words(frag, lead, [self.kb.load(memory, (base + at,))])
            return
        words = self.fragment_words(frag, lead)
        if not column:
            at = (base + g * ldm + 2 * t,)
            if load:
                v = self.kb.load(memory, at, width=2)
                self.set_words(frag, lead, [v[0], v[1]])
            else:
                self.kb.store(memory, at, words, width=2)
            return
        out = []
        for j in range(2):
            at = (base + (2 * t + j) * ldm + g,)
            if load:
                out.append(self.kb.load(memory, at))
            else:
                self.kb.store(memory, at, words[j])
        if load:
            self.set_words(frag, lead, out)

    def operand_tf32(self, frag, lead, memory, base, ldm, g, t) -> None:
        """A tf32 operand (m16n16k8): four floats a lane, each one 4-byte load (nvcc 13's
        generic LD.E on sm_90, counted by the H100 as shared where the tile is): word r of
        A is row g + 8 (r % 2), column t + 4 (r // 2); of B, k = t + 4 (r % 2) of column
        n = g + 8 (r // 2) (the two m16n8k8 B fragments, n 0-7 then 8-15). Their values
        are the floats as stored (`__float_to_tf32` rounds them where the code says)."""
        words = []
        for r in range(4):
            if frag.use == "matrix_a":
                row, col = g + 8 * (r % 2), t + 4 * (r // 2)
            else:
                row, col = t + 4 * (r % 2), g + 8 * (r // 2)
            offset = row * ldm + col if frag.layout == "row_major" else col * ldm + row
            words.append(self.kb.load(memory, (base + offset,)))
        self.set_words(frag, lead, words)

    def tf32_rounded(self, value: Expr, node) -> Expr:
        """`wmma::__float_to_tf32(x)` (cvt.rna.tf32.f32): x rounded to 10 mantissa bits, to
        nearest with ties away from zero (half an ulp of tf32 added to the magnitude, the
        13 low bits cleared); infinities and NaNs as they are."""
        with self.at(node):
            bits = bitcast(cast(value, BY_NAME["f32"]), u32)
            finite = (bits & 0x7F800000) != 0x7F800000
            return bitcast(select(finite, (bits + 0x1000) & 0xFFFFE000, bits), BY_NAME["f32"])

    def operand_elements(self, frag, lead, memory, base, ldm, g, t) -> None:
        """An operand from global memory: each lane's words, element by element (the
        register layout mma.sync reads: word j holds row 8(j & 1) + g, columns 8(j >> 1)
        + 2t and + 1 of A; of B, k = 8(j & 1) + 2t (+ 1), n = 8(j >> 1) + g)."""
        halves = []
        for jw in range(4):
            for h in (0, 1):
                if frag.use == "matrix_a":
                    row, col = g + 8 * (jw & 1), t * 2 + 8 * (jw >> 1) + h
                else:
                    row, col = t * 2 + 8 * (jw & 1) + h, g + 8 * (jw >> 1)
                offset = row * ldm + col if frag.layout == "row_major" else col * ldm + row
                halves.append(self.kb.load(memory, (base + offset,)))
        self.set_words(frag, lead, words_of(halves))

    @staticmethod
    def accumulator_place(e: int, g, t) -> tuple:
        """(row, column) of element e of a lane's accumulator: 4p + 2q + h is row g + 8q,
        column 8p + 2t + h."""
        p, q, h = e >> 2, (e >> 1) & 1, e & 1
        return g + 8 * q, t * 2 + 8 * p + h

    def float_accumulator(self, frag, lead, memory, base, ldm, g, t, column, load) -> None:
        """Row-major: four 8-byte rows of two floats (LDS.64/STS.64, words 0-1, 2-3, ...);
        column-major: eight floats one by one, in element order."""
        words = self.fragment_words(frag, lead)
        out = list(words)
        if not column:
            for w in range(4):
                row, col = self.accumulator_place(2 * w, g, t)
                at = (base + row * ldm + col,)
                if load:
                    v = self.kb.load(memory, at, width=2)
                    out[2 * w], out[2 * w + 1] = v[0], v[1]
                else:
                    self.kb.store(memory, at, [words[2 * w], words[2 * w + 1]], width=2)
        else:
            for e in range(8):
                row, col = self.accumulator_place(e, g, t)
                at = (base + col * ldm + row,)
                if load:
                    out[e] = self.kb.load(memory, at)
                else:
                    self.kb.store(memory, at, words[e])
        if load:
            self.set_words(frag, lead, out)

    def half_accumulator(self, frag, lead, memory, base, ldm, g, t, column, load) -> None:
        """Four 4-byte pairs of halves (word w = 2p + q: row g + 8q, columns 8p + 2t, + 1).
        Column-major, nvcc transposes each 8x8 quarter in registers (MOVM.16.MT88) so that a
        lane's pair is two rows of one column: column 8p + g, rows 8q + 2t, + 1; here
        shuffles move the halves as MOVM does."""
        words = self.fragment_words(frag, lead)
        out = []
        for w in range(4):
            p, q = w >> 1, w & 1
            if column:
                at = (base + (g + 8 * p) * ldm + 8 * q + t * 2,)
            else:
                at = (base + (g + 8 * q) * ldm + 8 * p + t * 2,)
            if load:
                v = self.kb.load(memory, at, width=2)
                (word,) = words_of([v[0], v[1]])
                out.append(self.transposed(word, g, t) if column else word)
            else:
                word = self.transposed(words[w], g, t) if column else words[w]
                self.kb.store(memory, at, halves_of([word]), width=2)
        if load:
            self.set_words(frag, lead, out)

    def transposed(self, word: Expr, g, t) -> Expr:
        """MOVM.16.MT88 of one 8x8 quarter: lane 4g + t gets elements (2t, g) and
        (2t + 1, g), held by lanes 8t + g/2 and 8t + 4 + g/2 as their half g % 2."""
        shift = cast((g & 1) * 16, u32)
        low = self.kb.shfl(word, t * 8 + (g >> 1))
        high = self.kb.shfl(word, t * 8 + 4 + (g >> 1))
        return self.kb.let("wmma_movm", ((cast(low, u32) >> shift) & 0xFFFF) | (
            ((cast(high, u32) >> shift) & 0xFFFF) << 16), "u32")


def is_wmma_call(fn, unit) -> str | None:
    """The wmma function a call names (not one of the file's own functions), else None."""
    name = callee_name(fn)
    return name if name in WMMA_FUNCTIONS and name not in unit.functions else None

"""The `#if` expression language of the preprocessor (smemsim.frontends.cuda.preprocess): C's
integer arithmetic in 64 bits, as a directive's tokens give it after macro expansion."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kernels_ir import SourceLoc

from .errors import CudaImportError

if TYPE_CHECKING:   # (the preprocessor's tokens; it imports this module)
    from .preprocess import Token

MAX_NESTING = 100           # parentheses in #if, macro calls inside macro arguments


class IfExpression:
    """An #if expression's value: C's integer arithmetic in 64 bits (unsigned where an
    operand is), identifiers left after expansion are 0."""

    # binding strength of each binary operator (C's, || weakest)
    PREC = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7,
            "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}

    def __init__(self, tokens: list[Token], where: SourceLoc):
        self.tokens, self.k, self.where, self.depth = tokens, 0, where, 0

    def fail(self, message: str):
        t = self.tokens[min(self.k, len(self.tokens) - 1)]
        return CudaImportError(f"#if: {message}", loc=t.loc)

    def value(self) -> int:
        v, _ = self.ternary()
        if self.k != len(self.tokens):
            raise self.fail(f"`{self.tokens[self.k].text}` after the expression")
        return v

    def peek(self) -> str:
        return self.tokens[self.k].text if self.k < len(self.tokens) else ""

    def ternary(self):
        c = self.binary(1)
        if self.peek() == "?":
            self.k += 1
            a = self.ternary()
            if self.peek() != ":":
                raise self.fail("`?` without `:`")
            self.k += 1
            b = self.ternary()
            unsigned = a[1] or b[1]
            return (a if c[0] else b)[0], unsigned
        return c

    def binary(self, least: int):
        """Precedence climbing: one call per nesting level, not one per operator level."""
        left = self.unary()
        while self.PREC.get(self.peek(), 0) >= least:
            op = self.tokens[self.k].text
            self.k += 1
            right = self.binary(self.PREC[op] + 1)
            if op in ("&&", "||"):
                left = (int(bool(left[0]) and bool(right[0])) if op == "&&" else
                        int(bool(left[0]) or bool(right[0])), False)
            else:
                left = self.apply(op, left, right)
        return left

    def apply(self, op: str, a, b):
        unsigned = a[1] or b[1]
        x, y = (_u64(a[0]), _u64(b[0])) if unsigned else (a[0], b[0])
        if op in ("/", "%"):
            if y == 0:
                raise self.fail("division by zero")
            q = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
            r = (q if op == "/" else x - q * y), unsigned
        elif op in ("<<", ">>"):
            if not 0 <= b[0] < 64:
                raise self.fail(f"shift by {b[0]} (0 to 63 allowed)")
            r = ((x << b[0]) if op == "<<" else (x >> b[0])), a[1]
        elif op in ("==", "!=", "<", ">", "<=", ">="):
            r = int({"==": x == y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y,
                     ">=": x >= y}[op]), False
        else:
            r = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y,
                 "^": x ^ y}[op], unsigned
        return (_u64(r[0]) if r[1] else _s64(r[0])), r[1]

    def unary(self):
        t = self.peek()
        if t in ("-", "+", "~", "!"):
            self.k += 1
            v, u = self.unary()
            v = {"-": -v, "+": v, "~": ~v, "!": int(not v)}[t]
            return (_u64(v) if u and t != "!" else _s64(v)), u and t != "!"
        if t == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise self.fail(f"parentheses nested more than {MAX_NESTING} deep")
            self.k += 1
            v = self.ternary()
            if self.peek() != ")":
                raise self.fail("`(` without `)`")
            self.k += 1
            self.depth -= 1
            return v
        if self.k >= len(self.tokens):
            raise self.fail("the expression ends early")
        tok = self.tokens[self.k]
        self.k += 1
        if tok.kind == "num":
            from .literals import integer_literal
            try:
                value, unsigned = integer_literal(tok.text)
            except ValueError as err:
                raise CudaImportError(f"#if: {err}", loc=tok.loc) from None
            return value, unsigned
        if tok.kind == "chr":
            from .literals import char_value
            try:
                return char_value(tok.text[tok.text.index("'") + 1:-1]), False
            except ValueError as err:
                raise CudaImportError(f"#if: {err}", loc=tok.loc) from None
        if tok.kind == "id":
            return (1 if tok.text == "true" else 0), False
        raise self.fail(f"`{tok.text}` in an #if expression")


def _u64(v: int) -> int:
    return v & (2 ** 64 - 1)


def _s64(v: int) -> int:
    v &= 2 ** 64 - 1
    return v - 2 ** 64 if v >= 2 ** 63 else v

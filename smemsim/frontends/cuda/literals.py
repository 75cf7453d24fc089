"""C++ numeric literals: their values and types, as nvcc reads them (hex, octal, binary,
digit separators, every suffix)."""
from __future__ import annotations

import re

_INT = re.compile(r"(0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)([uUlLzZ]*)")
_FLOAT = re.compile(r"((?:[0-9][0-9']*)?\.?[0-9']*(?:[eE][+-]?[0-9]+)?|"
                    r"0[xX][0-9a-fA-F']*\.?[0-9a-fA-F']*[pP][+-]?[0-9]+)([fFlL]?)")


def integer_literal(text: str) -> tuple[int, bool]:
    """(value, is unsigned) of an integer literal; ValueError for anything else."""
    m = _INT.fullmatch(text)
    if m is None:
        raise ValueError(f"`{text}` is not an integer literal")
    digits, suffix = m.group(1).replace("'", ""), m.group(2).lower()
    if suffix not in ("", "u", "l", "ll", "ul", "lu", "ull", "llu", "z", "uz", "zu"):
        raise ValueError(f"`{text}`: the suffix {m.group(2)} is not C++'s")
    if digits[:2].lower() == "0x":
        value = int(digits[2:], 16)
    elif digits[:2].lower() == "0b":
        value = int(digits[2:], 2)
    elif len(digits) > 1 and digits[0] == "0":
        value = int(digits, 8)
    else:
        value = int(digits)
    decimal = not (len(digits) > 1 and digits[0] == "0")
    unsigned = "u" in suffix or (not decimal and value >= 2 ** 63) or \
        (not decimal and not suffix and 2 ** 31 <= value < 2 ** 32)
    if value >= 2 ** 64:
        raise ValueError(f"`{text}` does not fit 64 bits")
    return value, unsigned


def literal_type(text: str) -> tuple[int | float, str]:
    """(value, IR type name) of a numeric literal as C++ types it (long is 64 bits, as on
    Linux): an int is `i32`, a long or long long `i64` (`1LL`, 3000000000), an unsigned int
    `u32`, a 64-bit unsigned `u64`, a float `f32`, a double `f64`."""
    try:
        value, unsigned = integer_literal(text)
    except ValueError:
        m = _FLOAT.fullmatch(text)
        if m is None or not re.search(r"[.eEpP]", text) or text in (".",):
            raise ValueError(f"`{text}` is not a number C++ reads") from None
        body, suffix = m.group(1).replace("'", ""), m.group(2)
        if suffix in ("l", "L"):
            raise ValueError(f"`{text}` is a long double, which CUDA device code does not have")
        value = float.fromhex(body) if body[:2].lower() == "0x" else float(body)
        return value, "f32" if suffix in ("f", "F") else "f64"
    suffix = re.sub(r"^[0-9a-fA-FxXbB']*", "", text).lower()
    long = "l" in suffix
    if unsigned:
        if value < 2 ** 32 and not long:
            return value, "u32"
        return value, "u64"
    if value < 2 ** 31 and not long:
        return value, "i32"
    if value >= 2 ** 63:
        raise ValueError(f"`{text}` does not fit a long long (write it with a U suffix)")
    return value, "i64"   # `1LL`, `64L`, 3000000000 (C++'s long or long long)


def char_value(body: str) -> int:
    """The value of a character literal's body (`a`, `\\n`, `\\x41`): one character, or a
    ValueError naming what it holds instead."""
    try:
        chars = body.encode().decode("unicode_escape") if body.startswith("\\") else body
    except UnicodeDecodeError:
        chars = ""
    if len(chars) != 1:
        raise ValueError(f"the character literal '{body[:20]}' holds {len(chars)} characters, "
                         "not one")
    return ord(chars)

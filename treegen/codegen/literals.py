"""C literal formatting, done in Python so templates never format numbers.

Plain functions of a value (and, for :func:`value_literal`, of the IR's encoding): the
view builders call them, nothing here knows a view or a template.

Float literals are chosen so that a compiler reading them either directly (correct
rounding to float) or through double (round to double, then to float) gets exactly
the intended float32: the shortest round-tripping digits are checked both ways and
lengthened if needed.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from treegen.codegen.ctype import FLOAT, TYPES
from treegen.codegen.ir import Encoding


def _f32_interval_ok(text: str, f: np.float32) -> bool:
    """True when ``text`` lies strictly inside the rounding interval of ``f`` and
    also rounds to ``f`` through double."""
    v = Fraction(text)
    mid = Fraction(float(f))
    # Next to +-FLT_MAX the neighbour is +-inf: that overflow is the intended result.
    with np.errstate(over="ignore"):
        down, up = (float(np.nextafter(f, np.float32(s * np.inf))) for s in (-1, 1))
    # Beyond +-FLT_MAX the next "float" is one ulp further (the overflow boundary).
    lo = Fraction(down) if math.isfinite(down) else 2 * mid - Fraction(up)
    hi = Fraction(up) if math.isfinite(up) else 2 * mid - Fraction(down)
    inside = (lo + mid) / 2 < v < (mid + hi) / 2
    with np.errstate(over="ignore"):
        via_double = np.float32(float(text)) == f
    return inside and bool(via_double)


def _c_decimal(text: str) -> str:
    text = text.lower().replace("e+", "e")
    if "." not in text and "e" not in text and "inf" not in text:
        text += ".0"
    return text


def c_float(x: float) -> str:
    """A float32 constant, e.g. ``75.0f``; ``x`` must be a finite float32 value."""
    f = np.float32(x)
    assert math.isfinite(x) and float(f) == x, x
    if x == 0:
        return "-0.0f" if math.copysign(1.0, x) < 0 else "0.0f"  # a sum's sign of zero
    candidates = [
        np.format_float_positional(f, unique=True, trim="0")
        if 1e-4 <= abs(x) < 1e9
        else np.format_float_scientific(f, unique=True, trim="0")
    ]
    candidates += [f"{x:.{p}e}" for p in range(8, 17)]
    for text in candidates:
        if _f32_interval_ok(text, f):
            return _c_decimal(text) + "f"
    raise AssertionError(f"no exact literal for {x!r}")


def c_double(x: float) -> str:
    """A double constant that reads back as exactly ``x`` (shortest repr)."""
    assert math.isfinite(x)
    text = repr(float(x))
    assert float(text) == x
    return _c_decimal(text)


def c_int(v: int, ctype: str) -> str:
    """An integer constant for comparing with a value of ``ctype`` (an input or
    column type such as ``int16``/``uint32``, see treegen.codegen.ctype.TYPES)."""
    t = TYPES[ctype]
    assert t.is_int, ctype
    if not t.signed:
        return f"{v}u" if t.bits == 32 or v > 32767 else str(v)
    if v == -(1 << 31):
        return "(-2147483647 - 1)"
    return f"({v})" if v < 0 else str(v)


def c_hex32(v: int) -> str:
    return f"0x{v:08X}u"


def value_literal(enc: Encoding, value: int | float) -> str:
    """A value of the C domain of ``enc`` (a threshold, a nominal code) as the literal it
    is compared with: an order key in hex, an integer of the input type, or a float or
    double constant."""
    if enc.uses_keys:
        return c_hex32(int(value))
    if enc.is_int:
        return c_int(int(value), enc.input_type)
    return c_float(float(value)) if enc.ctype is FLOAT else c_double(float(value))


def compared_literal(enc: Encoding, value: int | float) -> str:
    """:func:`value_literal` for a comparison's right-hand side: a float or double
    constant whose decimal is not exactly its value is cast to its type.  Where float
    arithmetic has excess precision (x87, FLT_EVAL_METHOD 2) ISO C evaluates the
    constant ``0.73285f`` as the long double nearest 0.73285, so ``x <= 0.73285f``
    would not compare with the threshold's float; a cast drops the excess precision.
    (An ensemble's ifs tests cast theirs too; its sums need double arithmetic in
    double, so its C stops with #error where FLT_EVAL_METHOD is not 0.)"""
    if enc.uses_keys or enc.is_int:
        return value_literal(enc, value)
    return compared_float(float(value)) if enc.ctype is FLOAT else compared_double(float(value))


def cast_unless_exact(text: str, value: float, ctype: str) -> str:
    """The float or double constant ``text`` of ``value`` as a comparison's operand:
    cast to ``ctype`` where its decimal is not exactly ``value``, so that excess
    precision (FLT_EVAL_METHOD 2 on x87; 1 under gcc's ISO modes on s390) cannot
    evaluate it as the wider type's value nearest the decimal (:func:`compared_literal`)."""
    if Fraction(text.rstrip("f")) == Fraction(value):
        return text
    return f"({ctype}){text}"


def compared_float(value: float) -> str:
    """The float constant of ``value`` as a comparison's operand (cast where inexact)."""
    return cast_unless_exact(c_float(value), value, "float")


def compared_double(value: float) -> str:
    """The double constant of ``value`` as a comparison's operand (cast where inexact)."""
    return cast_unless_exact(c_double(value), value, "double")


def c_u64(v: int) -> str:
    """A uint64_t constant from its 32-bit halves, ``((uint64_t)0x3FF00000u << 32)``:
    C89 has no integer constant wider than unsigned long, 32 bits on the chips."""
    assert 0 <= v < 1 << 64
    hi, lo = v >> 32, v & 0xFFFFFFFF
    if hi == 0:
        return f"0x{lo:08X}u"
    high = f"((uint64_t)0x{hi:08X}u << 32)"
    return high if lo == 0 else f"({high} | 0x{lo:08X}u)"


def c_hex(v: int) -> str:
    """An unsigned constant in hex, as short as it goes: ``0x8000u``."""
    assert v >= 0
    return f"0x{v:X}u"


def c_rows(literals: list[str], width: int = 76) -> tuple[str, ...]:
    """Comma-separated literals wrapped to ``width`` columns (a table's initializer)."""
    rows: list[str] = []
    line = ""
    for i, lit in enumerate(literals):
        item = lit + ("," if i < len(literals) - 1 else "")
        if line and len(line) + 1 + len(item) > width:
            rows.append(line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    if line:
        rows.append(line)
    return tuple(rows)


# The longest string literal (in bytes) that C89 promises to translate; C99 promises 4095.
# A longer string goes into a char array (c_chars), which has no such limit.
C89_STRING_MAX = 509


def _escaped(b: int, backslashed: str) -> str:
    """One byte of a C string or char literal: a backslash before ``backslashed``, the
    character itself for the rest of printable ASCII, else a three-digit octal escape (so
    a following digit cannot extend it)."""
    ch = chr(b)
    if ch in backslashed:
        return "\\" + ch
    return ch if 32 <= b < 127 else f"\\{b:03o}"


def c_string(text: str) -> str:
    """A C string literal with everything outside printable ASCII escaped (octal,
    three digits so a following digit cannot extend it) and no trigraphs."""
    return '"' + "".join(_escaped(b, '"\\?') for b in text.encode("utf-8")) + '"'


def c_chars(text: str, per_row: int = 12) -> tuple[str, ...]:
    """``text``'s UTF-8 bytes and a terminating 0 as rows of char constants: the
    initializer of a char array, for a string longer than C89_STRING_MAX (escaped as in
    :func:`c_string`; lone '?' cannot make a trigraph)."""
    items = ["'" + _escaped(b, "'\\") + "'" for b in text.encode("utf-8")] + ["0"]
    rows = [items[i : i + per_row] for i in range(0, len(items), per_row)]
    return tuple(", ".join(r) + ("," if k < len(rows) - 1 else "") for k, r in enumerate(rows))

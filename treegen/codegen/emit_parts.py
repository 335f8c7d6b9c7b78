"""The C text pieces the tree emitters share: literals, columns, comments.

treegen.codegen.emit (the ifs and table styles) and treegen.codegen.emit_lean
(``--missing none``) build their view models from these; the ruleset emitter
(treegen.codegen.rules) takes its thresholds' literals from here too.  Each
formats in Python what a template substitutes, so no C text is composed in a
template from data.
"""

from __future__ import annotations

import numpy as np

from treegen.codegen.ctype import FLOAT, UINT32, CType, smallest_int
from treegen.codegen.ir import IR, Leaf, Switch
from treegen.codegen.literals import c_double, c_float, c_hex32, c_int
from treegen.codegen.names import comment_text
from treegen.codegen.views import Column, ValueKind

HEADER = "predict.h"
SOURCE = "predict.c"


def c_rows(literals: list[str], width: int = 76) -> tuple[str, ...]:
    """Comma-separated literals wrapped to ``width`` columns."""
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


def threshold_literal(ir: IR, value: float) -> str:
    """A threshold as a C literal of the type the comparison is made in."""
    enc = ir.encoding
    if enc.uses_keys:
        return c_hex32(int(value))
    if enc.is_int:
        return c_int(int(value), enc.input_type)
    return c_float(float(value)) if enc.ctype is FLOAT else c_double(float(value))


NEG_INF_BITS = 0xFF800000  # -inf's bit pattern; above it are the negative NaNs


def key_bits_test(key: int) -> tuple[str, int]:
    """The lean ifs style's form of the key test ``key(x) <= key``, as a compare of
    x's bit pattern u (uint32) with the threshold's bits b, so the C needs no key
    function (a call on the AVR at -Os): ``("pos", b)`` for a threshold t >= +0,
    tested as ``u <= b || (u >= 0x80000000 && u <= NEG_INF_BITS)`` (x <= t, or x
    negative and not NaN); ``("neg", b)`` for t < +0, tested as ``u >= b && u <=
    NEG_INF_BITS`` (x negative, at least as far below 0 as t, and not NaN).  NaN of
    either sign fails both, as the none rule wants (its key is above every
    threshold); -0.0 keys just below +0.0, as in treegen.codegen.oracle.float_keys."""
    # Thresholds are keys of non-NaN floats: key(-inf) = 0x007FFFFF .. key(+inf).
    assert 0x007FFFFF <= key <= 0xFF800000, hex(key)
    if key >= 0x80000000:
        return "pos", key & 0x7FFFFFFF
    return "neg", ~key & 0xFFFFFFFF


def value_kind(ir: IR) -> ValueKind:
    """How the C compares a feature value: as a key, a signed or unsigned integer, or a float."""
    enc = ir.encoding
    if enc.uses_keys:
        return "key"
    if enc.is_int:
        return "signed" if enc.ctype.signed else "unsigned"
    return "float" if enc.ctype is FLOAT else "double"


def describe(ir: IR, i: int, branch: int) -> str:
    """The comment beside node ``i``'s ``branch``: its class, value set or cut."""
    node = ir.nodes[i]
    if isinstance(node, Leaf):
        out = ir.outcomes[node.outcome]
        return comment_text(ir.classes[out.cls])
    f = ir.features[node.feature]
    if isinstance(node, Switch):
        vals = [f.values[c] for c, b in enumerate(node.branch_of) if b == branch]
        return comment_text(
            f"{f.name} in {{{', '.join(vals)}}}" if len(vals) != 1 else f"{f.name} = {vals[0]}"
        )
    return comment_text(f"{f.name} <= {short(node.cut)}")


def short(t: float) -> str:
    """A threshold as people read it: shortest digits of its float32 when it is one."""
    with np.errstate(over="ignore"):  # beyond FLT_MAX: inf, which is not t, so repr(t)
        f32 = np.float32(t)
    return str(f32) if float(f32) == t else repr(t)


def column(U: str, ctype: CType, rows: tuple[str, ...]) -> Column:
    # pgm_read_* returns the bits of a signed type as unsigned: the template casts back.
    return Column(
        ctype.c_name,
        f"{U}_{ctype.reader}" if ctype.reader else "",
        ctype.is_int and ctype.signed,
        rows,
    )


def int_column(U: str, values: list[int], ctype: CType | None = None) -> Column:
    """A column of integers in ``ctype``, by default the narrowest type holding them."""
    ctype = ctype or smallest_int(min(values), max(values))
    return column(U, ctype, c_rows([c_int(v, ctype.name) for v in values]))


def threshold_column(ir: IR, U: str, thresholds: list[int | float]) -> Column:
    enc = ir.encoding
    if enc.uses_keys:
        return column(U, UINT32, c_rows([c_hex32(int(v)) for v in thresholds]))
    if enc.is_int:
        return int_column(U, [int(v) for v in thresholds])
    literal = c_float if enc.ctype is FLOAT else c_double
    return column(U, enc.ctype, c_rows([literal(float(v)) for v in thresholds]))

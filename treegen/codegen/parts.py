"""The view pieces every tree emitter (and the ruleset's) builds the same way.

The prelude (what predict.c says to the compiler first), the key function with its NaN
rule, the constant columns (a type, a reader, rows of literals), the outcome tables.
Each is a plain function of the IR returning a view of :mod:`~.views`; the literals
come from :mod:`~.literals`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from treegen.codegen.ctype import FLOAT, UINT32, CType, smallest_int, smallest_uint
from treegen.codegen.ir import IR, Encoding
from treegen.codegen.literals import c_double, c_float, c_hex32, c_int, c_rows
from treegen.codegen.views import Column, KeyFunction, Prelude

DEFAULT_STEM = "predict"
HEADER = DEFAULT_STEM + ".h"
SOURCE = DEFAULT_STEM + ".c"
"""The default file names: ``predict.c`` and ``predict.h``."""


def file_names(stem: str) -> tuple[str, str]:
    """(source, header) of an export whose files are named ``stem``."""
    return f"{stem}.c", f"{stem}.h"


def source_and_header(files: Mapping[str, str]) -> tuple[str, str]:
    """The names of the C source and the header among an export's ``files``."""
    source = next(n for n in files if n.endswith(".c"))
    header = next(n for n in files if n.endswith(".h"))
    return source, header


ValueKind = Literal["float", "double", "key", "signed", "unsigned"]
"""How predict.c compares a value: as float or double (NaN missing), as the float's
order key (``--float-compare int``), or as a signed / unsigned integer."""


def value_kind(enc: Encoding) -> ValueKind:
    """How the C compares a feature value of ``enc``."""
    if enc.uses_keys:
        return "key"
    if enc.is_int:
        return "signed" if enc.ctype.signed else "unsigned"
    return "float" if enc.ctype is FLOAT else "double"


def value_ctype(enc: Encoding) -> str:
    """The C type a compared value has (uint32_t for keys)."""
    return (UINT32 if enc.uses_keys else enc.ctype).c_name


def prelude(ir: IR, *, nan_guard: bool, flash: bool, uses_rdf: bool = False) -> Prelude:
    """predict.c's prelude: ``nan_guard`` when a NaN means missing (refuse
    -ffast-math), ``flash`` when it has constant tables (read through PREFIX_RDn)."""
    enc = ir.encoding
    return Prelude(
        header_name=file_names(ir.stem)[1],
        nan_guard=nan_guard and not enc.is_int and not enc.uses_keys,
        double_guard=enc.input_type == "double",
        flash=flash,
        uses_rdf=uses_rdf,
    )


NanRule = Literal["missing", "right"]
"""What a key function does with NaN: key it to 0, the missing marker (C4.5's rule, and
a ruleset's), or above every threshold, so it goes right (``--missing none``)."""

_KEY_DOC: dict[NanRule, tuple[str, ...]] = {
    "missing": (
        "Order-preserving key of a float's bit pattern: for non-NaN a and b, a <= b",
        "   exactly when key(a) <= key(b) (-0.0 keys just below +0.0, and no threshold is",
        "   -0.0).  NaN keys to 0, the missing marker.  No float instruction is used.",
    ),
    "right": (
        "Order-preserving key of a float's bit pattern: for non-NaN a and b, a <= b",
        "   exactly when key(a) <= key(b) (-0.0 keys just below +0.0, and no threshold is",
        "   -0.0).  NaN keys above every threshold, so it goes right.  No float instruction",
        "   is used.",
    ),
}


def key_function(rule: NanRule) -> KeyFunction:
    """PREFIX_key with the NaN rule ``rule`` (treegen.codegen.keys.float_key is the
    ``missing`` rule in Python)."""
    return KeyFunction(_KEY_DOC[rule], "0xFFFFFFFFu" if rule == "right" else "0u")


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


def threshold_column(enc: Encoding, U: str, thresholds: list[int | float]) -> Column:
    """A column of thresholds in the type the comparison is made in."""
    if enc.uses_keys:
        return column(U, UINT32, c_rows([c_hex32(int(v)) for v in thresholds]))
    if enc.is_int:
        return int_column(U, [int(v) for v in thresholds])
    literal = c_float if enc.ctype is FLOAT else c_double
    return column(U, enc.ctype, c_rows([literal(float(v)) for v in thresholds]))


def class_column(ir: IR) -> Column:
    """The class of each outcome (PREFIX_class)."""
    ctype = smallest_uint(max(ir.n_classes - 1, 0))
    return int_column(ir.prefix.upper(), [o.cls for o in ir.outcomes], ctype)


def proba_rows(ir: IR) -> tuple[str, ...]:
    """The rows of PREFIX_proba: each outcome's Q15 distribution."""
    return c_rows(["{" + ", ".join(f"{p}u" for p in o.proba) + "}" for o in ir.outcomes])

"""What the templates see: typed, frozen view models built by treegen.codegen.emit.

Every string in a view is a C literal (number, string, table row of literals), an
identifier (macro, type or function name) or comment text, already formatted.  C
expressions are written by the templates themselves, so a template's local variables
(``x``, ``out``, ``n`` ...) are named in the template only.

A template's context is the fields of several views side by side
(:func:`context`): :class:`Header` for predict.h; for predict.c also
:class:`Source` and :class:`Tables`, plus :class:`Ifs` or :class:`Table` for the style.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from treegen.codegen.ir import CompareOp

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

ValueKind = Literal["float", "double", "key", "signed", "unsigned"]
"""How predict.c compares a value: as float or double (NaN missing), as the float's
order key (``--float-compare int``), or as a signed / unsigned integer."""


@dataclass(frozen=True, slots=True)
class Code:
    """One code of a nominal feature: ``#define macro code /* comment */``."""

    macro: str
    code: int
    comment: str


@dataclass(frozen=True, slots=True)
class FeatureView:
    macro: str
    index: int
    comment: str
    codes: tuple[Code, ...]  # empty unless nominal


@dataclass(frozen=True, slots=True)
class ClassView:
    macro: str
    index: int
    comment: str
    string: str  # the name as a C string literal, or the name of the char array below
    chars: tuple[str, ...]  # rows of that array's initializer (none for a literal)


@dataclass(frozen=True, slots=True)
class Column:
    """A constant table column: ``static const ctype name[] PREFIX_ROM = {rows}``."""

    ctype: str
    reader: str  # macro reading one element (PREFIX_RDn); "" reads it with a plain load
    cast: bool  # the reader returns the bits of a signed type as unsigned: cast back
    rows: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Header:
    """predict.h (predict.c repeats its provenance and includes it)."""

    P: str  # the prefix of every symbol
    U: str  # the prefix of every macro
    guard: str
    provenance: tuple[str, ...]
    input_ctype: str
    input_doc: str
    missing_literal: str  # "" for float types (NaN is missing)
    n_features: int
    n_classes: int
    one: int  # fixed-point 1.0 (PREFIX_PROBA_ONE)
    features: tuple[FeatureView, ...]
    classes: tuple[ClassView, ...]
    lean: bool = False  # exported with --missing none
    proba: bool = True  # predict_proba is declared


@dataclass(frozen=True, slots=True)
class Source:
    """What both styles of predict.c share (_base.c.j2)."""

    header_name: str
    value_kind: ValueKind
    value_ctype: str  # the type a compared value has (uint32_t for keys)
    stack_size: int
    n_outcomes: int
    outcome_ctype: str
    class_column: Column
    proba_rows: tuple[str, ...]
    one_literal: str  # fixed-point 1.0, the initial path weight
    q15_shift: int
    has_tests: bool
    has_switch: bool
    uses_rdf: bool  # a column is read with PREFIX_RDF
    map_none: int  # branch of a code that has none, in a nominal map


@dataclass(frozen=True, slots=True)
class Tables:
    """The branch shares and nominal maps, laid out by the style."""

    share_rows: tuple[str, ...]
    n_shares: int
    paired_shares: bool  # one word per binary test (treegen.codegen.layout.paired_shares)
    pair_carry: str  # the word's carry bit, and the mask of share_0 below it (literals)
    pair_mask: str
    has_map: bool
    map_rows: tuple[str, ...]
    n_map: int


@dataclass(frozen=True, slots=True)
class IfLine:
    """A comparison opening an ``if``; ``op`` as in treegen.codegen.ir.CompareOp."""

    kind: Literal["if"]
    pad: str
    op: CompareOp
    feature: int
    keyed: bool  # the template compares the key of x[feature], not x[feature]
    at: int  # offset of the shares in PREFIX_share
    comment: str
    threshold: str  # "" when every known value goes one way
    # Lean ifs with --float-compare int: the test compares the float's bit pattern
    # with ``threshold`` (the threshold's bits, see treegen.codegen.emit_parts.key_bits_test),
    # "pos" for a threshold >= +0, "neg" below; "" compares the key.
    bits: str = ""


@dataclass(frozen=True, slots=True)
class SwitchLine:
    kind: Literal["switch"]
    pad: str
    feature: int
    keyed: bool
    n_values: int
    map_at: int | None  # offset of the map in PREFIX_map; None: code c is branch c
    forks: int
    at: int


@dataclass(frozen=True, slots=True)
class BranchLine:
    """``case`` of a switch, or the comment on the last branch that follows it."""

    kind: Literal["case", "after"]
    pad: str
    branch: int
    comment: str


@dataclass(frozen=True, slots=True)
class ReturnLine:
    kind: Literal["return"]
    pad: str
    outcome: int
    comment: str


@dataclass(frozen=True, slots=True)
class CallLine:
    kind: Literal["call"]
    pad: str
    callee: str


@dataclass(frozen=True, slots=True)
class TableLine:
    """The lean table's inline top hands the walk to the table at ``row``."""

    kind: Literal["table"]
    pad: str
    row: int
    comment: str


@dataclass(frozen=True, slots=True)
class CloseLine:
    kind: Literal["else", "end"]
    pad: str


WalkLine = IfLine | SwitchLine | BranchLine | ReturnLine | CallLine | TableLine | CloseLine


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    lines: tuple[WalkLine, ...]
    trivial: bool  # the tree is one leaf
    uses_k: bool  # declares the key variable k
    comment: str


@dataclass(frozen=True, slots=True)
class Ifs:
    functions: tuple[Function, ...]


@dataclass(frozen=True, slots=True)
class Columns:
    """The table style's columns; a tree whose tests are all binary has ``code``
    (feature << 2 | op) instead of ``op`` and ``feature``, and no ``first``."""

    op: Column
    feature: Column
    threshold: Column
    first: Column
    ref: Column
    code: Column


@dataclass(frozen=True, slots=True)
class Ops:
    """The table opcodes (treegen.codegen.layout.OP_*)."""

    le: int
    lt: int
    left: int
    right: int
    switch: int


@dataclass(frozen=True, slots=True)
class Table:
    col: Columns
    ops: Ops
    n_tests: int
    n_rows: int
    n_slots: int
    root: int
    ref_ctype: str
    binary: bool  # every test is binary: the code column, slots 2t and 2t + 1


def context(*views: DataclassInstance) -> dict[str, object]:
    """The fields of ``views`` as one template context; no name may repeat."""
    out: dict[str, object] = {}
    for view in views:
        for f in dataclasses.fields(view):
            assert f.name not in out, f.name
            out[f.name] = getattr(view, f.name)
    return out


@dataclass(frozen=True, slots=True)
class Lean:
    """predict.c under ``--missing none`` (predict_lean.c.j2), both styles."""

    header_name: str
    style: str  # "ifs" or "table"
    value_kind: ValueKind
    value_ctype: str
    has_tests: bool  # the tree is more than one leaf
    n_outcomes: int
    leaf_ctype: str  # what a walk returns: the class, or the outcome with proba
    class_column: Column
    proba_rows: tuple[str, ...]
    uses_rdf: bool
    functions: tuple[Function, ...]  # ifs; table: the inline top (empty: none)
    uses_bits: bool  # some function compares a float's bits (ifs lines with keys)
    n_top: int  # table: tests in the inline top (0: none)
    top_whole: bool  # table: the inline top holds every test (the table is for INLINE_TOP 0)
    n_rows: int  # table: tests (0: the tree is one leaf)
    code: Column
    thr: Column
    kid: Column
    row_ctype: str
    shift: int
    mask: int
    root_leaf: int

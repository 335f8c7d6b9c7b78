"""What the templates see: the typed, frozen view pieces every emitter shares.

A view builder (:mod:`~.view_ifs`, :mod:`~.view_table`, :mod:`~.view_lean`, and the
ruleset's :mod:`treegen.rules.ccode`) walks its IR once and hands its template one
finished view; the pieces here are the ones several of them use.  Every string in a
view is a C literal (number, string, table row of literals), an identifier or comment
text, already formatted (:mod:`~.literals`, :mod:`~.names`, :mod:`~.comments`).  Where
C can be written in several forms (how a value is tested, how a missing value is
recognised, what a key function returns for NaN), the view holds the choice as a typed
field and the template writes each form's fixed C text, substituting the literals; the
templates' own local variables (``x``, ``s``, ``n`` ...) are named in the templates only.

A template's context is the fields of its views side by side (:func:`context`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

MissingKind = Literal["nan", "key", "sentinel"]
"""How the C recognises a missing value ``v``: ``nan`` (float or double: ``v != v``),
``key`` (the order key of ``--float-compare int``: ``v == 0u``), ``sentinel`` (an
integer input: ``v == PREFIX_MISSING``)."""

Cmp = Literal["<=", "<", ">", ">=", ""]
"""A comparison operator as C spells it ("" where a form has none)."""

TestForm = Literal[
    "split_nan",
    "split_key",
    "split_sentinel",
    "known_or_split",
    "missing_and_split",
    "cmp",
    "bits_pos",
    "bits_neg",
    "known",
    "known_and_cmp",
    "in",
    "member",
]
"""The C form of one test (``templates/_macros.j2: condition``), ``v`` being the operand
(``x[feature]``, or its key when ``keyed``).  Under C4.5's missing-value rule, where a
missing value makes ``PREFIX_miss`` choose the branch:

* ``split_nan``: ``v cmp t || (!(v ncmp t) && miss)`` (NaN fails both comparisons);
* ``split_key``: ``(k = key(x)) == 0u ? miss : k cmp t``;
* ``split_sentinel``: ``v == MISSING ? miss : v cmp t``;
* ``known_or_split`` / ``missing_and_split``: a test every known value passes / fails.

Under ``--missing none``: ``cmp`` (``v cmp t``), for float bit patterns ``bits_pos`` /
``bits_neg`` (:func:`treegen.codegen.conditions.key_bits_test`), and ``member`` (a
nominal test whose branches' codes interleave: ``PREFIX_in(x, k, at)``, the value's code
in the set at ``at``).
A ruleset's conditions: ``cmp`` (float), ``known_and_cmp`` (a missing value fails),
``known`` (every known value passes), ``in`` (one of ``values``)."""


@dataclass(frozen=True, slots=True)
class Test:
    """One test in the C domain, in its :data:`TestForm`."""

    form: TestForm
    feature: int
    keyed: bool = False  # the operand is PREFIX_key(x[feature]), not x[feature]
    missing: MissingKind = "nan"  # how known_*/missing_* forms recognise a missing value
    cmp: Cmp = ""  # x cmp threshold holds on the first branch
    ncmp: Cmp = ""  # split_nan: the comparison that sends a known value to the second
    threshold: str = ""  # the literal ("" for forms without one)
    at: int = 0  # split forms: offset of the shares in PREFIX_share; member: of the set
    values: tuple[str, ...] = ()  # in: the literals
    n_codes: int = 0  # member: the feature's codes 0..n_codes-1


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
    comment: str  # beside the index: kind, unit or codes
    codes: tuple[Code, ...]  # empty unless nominal
    name: str  # the feature's name (comment text)


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
    other_code: str = "counts as missing"  # what a nominal value that is no code does
    safety: tuple[str, ...] = ()  # comment lines: reentrancy, allocation, work, stack
    lean_note: tuple[str, ...] = ()  # another kind's --missing none paragraph (lean's)


@dataclass(frozen=True, slots=True)
class Prelude:
    """What predict.c says to the compiler before its code (``_macros.j2: prelude``)."""

    header_name: str  # the header predict.c includes
    nan_guard: bool  # missing values are NaN: refuse -ffast-math
    double_guard: bool  # double inputs: refuse an AVR toolchain whose double is 32 bits
    flash: bool  # constant tables: PREFIX_ROM and the PREFIX_RDn readers (pgm_read_* on AVR)
    uses_rdf: bool  # a float column is read with PREFIX_RDF
    avr_error: str = ""  # a table too large for AVR: the #error's message (a C string)


@dataclass(frozen=True, slots=True)
class KeyFunction:
    """PREFIX_key, the order key of a float's bits (treegen.codegen.keys), with its NaN
    rule: ``nan_key`` is what NaN keys to, ``doc`` the comment lines that say so."""

    doc: tuple[str, ...]
    nan_key: str


@dataclass(frozen=True, slots=True)
class IfLine:
    """A test opening an ``if``."""

    kind: Literal["if"]
    pad: str
    test: Test
    comment: str


@dataclass(frozen=True, slots=True)
class SwitchLine:
    """A nominal test: the branch of the value's code (through a map, unless code c is
    branch c), or a missing-value choice."""

    kind: Literal["switch"]
    pad: str
    feature: int
    keyed: bool  # the code is decoded from the key of x[feature]
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
    kind: Literal["else", "end", "default"]
    pad: str


WalkLine = IfLine | SwitchLine | BranchLine | ReturnLine | CallLine | TableLine | CloseLine


@dataclass(frozen=True, slots=True)
class Function:
    """One walk function of the nested-if form (a subtree, or the whole tree)."""

    name: str
    lines: tuple[WalkLine, ...]
    trivial: bool  # the tree is one leaf
    uses_k: bool  # declares the variable a split_key or bits test assigns
    comment: str


def context(*views: DataclassInstance) -> dict[str, object]:
    """The fields of ``views`` as one template context; no name may repeat."""
    out: dict[str, object] = {}
    for view in views:
        for f in dataclasses.fields(view):
            assert f.name not in out, f.name
            out[f.name] = getattr(view, f.name)
    return out

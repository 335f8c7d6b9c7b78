"""The table style's view (``predict_table.c.j2`` on ``_base.c.j2``): the tree as static
columns walked by one loop (treegen.codegen.layout.flatten).

:func:`table_view` flattens the IR once and turns the node table into columns of
literals, the opcodes and the forms the walk takes for the input encoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from treegen.codegen import layout, parts, view_c45
from treegen.codegen.conditions import missing_kind
from treegen.codegen.ctype import smallest_uint
from treegen.codegen.ir import IR
from treegen.codegen.views import Column, MissingKind


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
    """The table opcodes (treegen.codegen.layout.OP_*), as the walk reads them."""

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
    keyed: bool  # the walk compares PREFIX_key(x[f]), not x[f]
    missing: MissingKind  # nan: one compare decides a known value; else test missing first
    code_of_key: bool  # float inputs: PREFIX_code decodes a nominal code from PREFIX_key(v)
    share_at: Literal["n", "first"]  # the walk's variable indexing a test's shares


class TableView(NamedTuple):
    """Everything predict_table.c.j2 reads besides the header."""

    source: view_c45.Source
    tables: view_c45.Tables
    walk: Table


def table_view(ir: IR) -> TableView:
    """predict.c of ``ir`` (C4.5's missing-value rule) in the table style."""
    return table_view_of(ir, layout.flatten(ir), view_c45.source(ir, uses_rdf=_uses_rdf(ir)))


def _uses_rdf(ir: IR) -> bool:
    return parts.value_kind(ir.encoding) == "float"


def table_view_of(ir: IR, t: layout.NodeTable, source: view_c45.Source) -> TableView:
    """The table view of the node table ``t`` with the shared part ``source``: ``ir``'s
    own (:func:`table_view`), or several trees' tables in one
    (``source.shared_walk``, treegen.committee.ctable); ``ir`` gives the prefix, the
    encoding and the outcomes."""
    U = ir.prefix.upper()
    enc = ir.encoding
    kind = parts.value_kind(enc)

    def pad(values: tuple[int, ...]) -> list[int]:
        return list(values) or [0]  # a one-leaf tree still declares (unused) one-row columns

    # A tree of binary tests only packs feature and op into one code (op - OP_LE in
    # the low two bits) and finds test t's slots at 2t: two columns fewer.
    code = (
        [f << 2 | (op - layout.OP_LE) for f, op in zip(t.feature, t.op, strict=True)]
        if t.binary
        else []
    )
    col = Columns(
        op=parts.int_column(U, pad(t.op)),
        feature=parts.int_column(U, pad(t.feature)),
        threshold=parts.threshold_column(enc, U, list(t.threshold) or [0]),
        first=parts.int_column(U, pad(t.first)),
        ref=parts.int_column(U, list(t.ref) or [t.root]),
        code=parts.int_column(U, code or [0]),
    )
    base = layout.OP_LE if t.binary else 0
    ops = Ops(
        le=layout.OP_LE - base,
        lt=layout.OP_LT - base,
        left=layout.OP_LEFT - base,
        right=layout.OP_RIGHT - base,
        switch=layout.OP_SWITCH - base,
    )
    paired = layout.paired_shares(t)
    table = Table(
        col=col,
        ops=ops,
        n_tests=t.n_tests,
        n_rows=max(t.n_tests, 1),
        n_slots=max(len(t.ref), 1),
        root=t.root,
        ref_ctype=smallest_uint(t.n_tests + len(ir.outcomes)).c_name,
        binary=t.binary,
        keyed=enc.uses_keys,
        missing=missing_kind(enc),
        code_of_key=kind == "float",
        share_at="n" if paired is not None else "first",
    )
    return TableView(
        source,
        view_c45.tables(
            paired if paired is not None else t.share, paired is not None, t.maps, source.has_switch
        ),
        table,
    )

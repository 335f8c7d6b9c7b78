"""What both styles of predict.c under C4.5's missing-value rule share (``_base.c.j2``).

The missing-value replay (PREFIX_miss, the state, PREFIX_run), the outcome tables, the
nominal decoding and the branch shares and maps; :mod:`~.view_ifs` and
:mod:`~.view_table` add their walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from treegen.codegen import layout, parts
from treegen.codegen.ctype import smallest_uint
from treegen.codegen.ir import IR, Leaf, Switch
from treegen.codegen.literals import c_hex, c_rows
from treegen.codegen.views import Column, KeyFunction, Prelude
from treegen.model.fixedpoint import SUM_TO_PROBA, W_ONE, W_SHIFT

# PREFIX_mul (_base.c.j2) multiplies Q31 numbers with 16-bit halves: it is written for 31.
assert W_SHIFT == 31

CodeDecoder = Literal["double", "key", "signed", "unsigned"]
"""How PREFIX_code reads a nominal code: from a double, from the order key of a float
(float inputs decode it from the key too, with no float instruction), or from a signed
or unsigned integer."""

_DECODER: dict[parts.ValueKind, CodeDecoder] = {
    "double": "double",
    "float": "key",
    "key": "key",
    "signed": "signed",
    "unsigned": "unsigned",
}


@dataclass(frozen=True, slots=True)
class Source:
    """What both styles of predict.c share (_base.c.j2)."""

    prelude: Prelude
    key: KeyFunction | None  # PREFIX_key, when a test or a nominal decoding needs it
    code_decoder: CodeDecoder | None  # PREFIX_code's form; None: no nominal test
    value_ctype: str  # the type a compared value has (uint32_t for keys)
    stack_size: int
    n_outcomes: int
    outcome_ctype: str
    class_column: Column
    proba_rows: tuple[str, ...]
    w_one_literal: str  # Q31 1.0, the initial path weight
    sum_shift: int  # a Q31 sum >> sum_shift is a Q15 probability (and Q15 << it is Q31)
    has_tests: bool
    has_switch: bool
    map_none: int  # branch of a code that has none, in a nominal map
    # The table walk starts at a root passed in (PREFIX_walk0 and PREFIX_run take it) and
    # the file ends without PREFIX_predict: several trees in one table (a committee's C).
    shared_walk: bool = False
    # PREFIX_run returns the class, read from PREFIX_class when no value is missing; a
    # bagged committee adds the trees' distributions only: no class table, a void run.
    run_class: bool = True


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


def source(ir: IR, *, uses_rdf: bool) -> Source:
    """The shared part of ``ir``'s predict.c; ``uses_rdf``: the style reads float
    thresholds from a table."""
    has_tests = not isinstance(ir.nodes[0], Leaf)
    has_switch = any(isinstance(n, Switch) for n in ir.nodes)
    return source_of(ir, uses_rdf=uses_rdf, has_tests=has_tests, has_switch=has_switch)


def source_of(ir: IR, *, uses_rdf: bool, has_tests: bool, has_switch: bool) -> Source:
    """:func:`source`, told whether there are tests and nominal tests (several trees in
    one table: ``ir`` then gives only the encoding, the outcomes and the stack)."""
    enc = ir.encoding
    kind = parts.value_kind(enc)
    # The key compares thresholds (keys) and decodes nominal floats (float inputs).
    needs_key = (kind == "key" and has_tests) or (kind == "float" and has_switch)
    return Source(
        prelude=parts.prelude(ir, nan_guard=True, flash=True, uses_rdf=uses_rdf),
        key=parts.key_function("missing") if needs_key else None,
        code_decoder=_DECODER[kind] if has_switch else None,
        value_ctype=parts.value_ctype(enc),
        stack_size=ir.stack_size,
        n_outcomes=len(ir.outcomes),
        outcome_ctype=smallest_uint(max(len(ir.outcomes) - 1, 0)).c_name,
        class_column=parts.class_column(ir),
        proba_rows=parts.proba_rows(ir),
        w_one_literal=c_hex(W_ONE),
        sum_shift=SUM_TO_PROBA,
        has_tests=has_tests,
        has_switch=has_switch,
        map_none=layout.MAP_NONE,
    )


def tables(shares: tuple[int, ...], paired: bool, maps: tuple[int, ...], has_map: bool) -> Tables:
    """The share and map tables: ``shares`` (one word per test when ``paired``),
    ``maps`` the nominal maps (declared when ``has_map``)."""
    return Tables(
        share_rows=c_rows([f"{s}u" for s in shares]) or ("0u",),
        n_shares=max(len(shares), 1),
        paired_shares=paired,
        pair_carry=c_hex(layout.PAIR_CARRY),
        pair_mask=c_hex(layout.PAIR_CARRY - 1),
        has_map=has_map,
        map_rows=c_rows([f"{v}u" for v in maps]),
        n_map=max(len(maps), 1),
    )

"""The ``--missing none`` views (treegen.codegen.lean's lean IR): lean ifs
(``predict_lean_ifs.c.j2``) and the lean table (``predict_lean_table.c.j2``), both on
``_lean.c.j2``.

The lean C has no missing-value branch: the ifs style is one function per subtree of
the walk, the table style the compact table of :func:`~treegen.codegen.lean.compact_table`
with its inline top (the hot tests as ifs before the table loop).  Each builder walks
its layout of the IR once; the tests' forms come from treegen.codegen.conditions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from treegen.codegen import layout, lean, parts
from treegen.codegen.comments import function_comment, lean_test_comment, node_comment
from treegen.codegen.conditions import ASSIGNS_K, lean_test
from treegen.codegen.ctype import TYPES, UINT32, smallest_uint
from treegen.codegen.ir import IR, Compare, Leaf, Member
from treegen.codegen.keys import float_keys
from treegen.codegen.literals import c_hex32, c_rows
from treegen.codegen.views import (
    CallLine,
    CloseLine,
    Column,
    Function,
    IfLine,
    KeyFunction,
    Prelude,
    ReturnLine,
    TableLine,
    WalkLine,
)
from treegen.errors import EmitError

UINT8, UINT16 = TYPES["uint8"], TYPES["uint16"]


@dataclass(frozen=True, slots=True)
class MemberFunction:
    """PREFIX_in, the member tests' code lookup (_lean.j2: member_function), and its
    tables: the sets of codes, and for float keys the keys of codes 0..K-2."""

    keyed: bool  # x is compared as its order key (with PREFIX_key)
    value_ctype: str  # the type a code is compared in (x <= (value_ctype)c)
    set_rows: tuple[str, ...]
    n_set: int
    code_keys: Column  # keyed: the keys of the codes 0.. (c <= k - 2 of any test)
    n_code_keys: int


@dataclass(frozen=True, slots=True)
class LeanSource:
    """What both lean styles share (_lean.c.j2)."""

    prelude: Prelude
    n_outcomes: int
    leaf_ctype: str  # what a walk returns: the class, or the outcome with proba
    class_column: Column
    proba_rows: tuple[str, ...]
    member: MemberFunction | None  # PREFIX_in, when a nominal test is a member test
    member_key: KeyFunction | None  # PREFIX_key before PREFIX_in (float keys)


@dataclass(frozen=True, slots=True)
class LeanIfs:
    functions: tuple[Function, ...]
    uses_bits: bool  # some test compares a float's bits (PREFIX_bits)


@dataclass(frozen=True, slots=True)
class LeanTable:
    key: KeyFunction | None  # PREFIX_key, for float keys (unless the member tests have it)
    keyed: bool  # the walk compares PREFIX_key(x[f]) with the threshold
    n_members: int  # member rows: code n_features + m is member test m
    member_feature: Column
    member_k: Column
    member_at: Column
    value_ctype: str
    functions: tuple[Function, ...]  # the inline top (empty: none)
    uses_bits: bool  # some test of the inline top compares a float's bits
    n_top: int  # tests in the inline top (0: none)
    top_whole: bool  # the inline top holds every test (the table is for INLINE_TOP 0)
    n_rows: int  # tests (0: the tree is one leaf)
    code: Column
    thr: Column
    kid: Column
    row_ctype: str
    shift: int
    mask: int
    root_leaf: int
    leaf_noun: str  # what a leaf value is, in the table's comment


class LeanIfsView(NamedTuple):
    source: LeanSource
    walk: LeanIfs


class LeanTableView(NamedTuple):
    source: LeanSource
    walk: LeanTable


def _functions(
    ir: IR, lay: layout.IfsLayout, name: str, rows: dict[int, int], sets: dict[int, int]
) -> tuple[Function, ...]:
    """The lean ifs functions of ``lay`` (the whole tree, or the table's inline top)."""
    names = [f"{ir.prefix}_{name}{k}" for k in range(len(lay.functions))]
    functions: list[Function] = []
    for k, (root, lines) in enumerate(lay.functions):
        out: list[WalkLine] = []
        for line in lines:
            node = ir.nodes[line.node]
            pad = "    " * line.indent
            if line.kind == "if":
                assert isinstance(node, Compare | Member)
                test = lean_test(ir, line.node, sets)
                out.append(IfLine("if", pad, test, lean_test_comment(ir, node)))
            elif line.kind == "return":
                assert isinstance(node, Leaf)
                out.append(
                    ReturnLine(
                        "return", pad, lean.leaf_value(ir, node), node_comment(ir, line.node, 0)
                    )
                )
            elif line.kind == "call":
                out.append(CallLine("call", pad, names[line.callee]))
            elif line.kind == "table":
                assert isinstance(node, Compare | Member)
                out.append(TableLine("table", pad, rows[line.node], f"model node {node.source}"))
            else:
                assert line.kind in ("else", "end"), line.kind
                out.append(CloseLine(line.kind, pad))
        first = "the whole tree" if name == "walk" else "the inline top of the tree"
        functions.append(
            Function(
                name=names[k],
                lines=tuple(out),
                trivial=isinstance(ir.nodes[root], Leaf),
                # The bit pattern of the value under test, in lean ifs with keys.
                uses_k=any(isinstance(d, IfLine) and d.test.form in ASSIGNS_K for d in out),
                comment=function_comment(ir, k, root, first),
            )
        )
    return tuple(functions)


def _member(ir: IR, sets: tuple[int, ...]) -> MemberFunction | None:
    members = [n for n in ir.nodes if isinstance(n, Member)]
    if not members:
        return None
    enc = ir.encoding
    assert len(sets) <= 65535, "a member test's set offset is a uint16_t"
    # The keys of the codes a member test compares with: 0 .. k - 2.
    top = max(n.n_codes for n in members) - 1
    keys = [int(k) for k in float_keys(np.arange(max(top, 1), dtype=np.float32))]
    return MemberFunction(
        keyed=enc.uses_keys,
        value_ctype=parts.value_ctype(enc),
        set_rows=c_rows([f"{b}u" for b in sets]),
        n_set=len(sets),
        code_keys=parts.column(ir.prefix.upper(), UINT32, c_rows([c_hex32(k) for k in keys])),
        n_code_keys=len(keys),
    )


def _source(ir: IR, sets: tuple[int, ...], *, uses_rdf: bool) -> LeanSource:
    member = _member(ir, sets)
    return LeanSource(
        prelude=parts.prelude(ir, nan_guard=False, flash=True, uses_rdf=uses_rdf),
        n_outcomes=len(ir.outcomes),
        leaf_ctype=smallest_uint(max(lean.n_values(ir) - 1, 0)).c_name,
        class_column=parts.class_column(ir),
        proba_rows=parts.proba_rows(ir),
        member=member,
        member_key=parts.key_function("right") if member and member.keyed else None,
    )


def lean_ifs_view(ir: IR) -> LeanIfsView:
    """predict.c of the lean ``ir`` in the ifs style."""
    at, sets = lean.code_sets(ir)
    functions = _functions(ir, layout.ifs_layout(ir), "walk", {}, at)
    return LeanIfsView(
        _source(ir, sets, uses_rdf=False),
        LeanIfs(functions, uses_bits=any(f.uses_k for f in functions)),
    )


def lean_table_view(ir: IR) -> LeanTableView:
    """predict.c of the lean ``ir`` in the table style, with its inline top."""
    enc = ir.encoding
    U = ir.prefix.upper()
    try:
        t = lean.compact_table(ir)
    except ValueError as exc:
        node = ir.nodes[int(str(exc))]
        raise EmitError(
            f"model node {node.source}: a test x < -FLT_MAX does not fit the "
            f"compact table; export with --style ifs"
        ) from None
    budget = ir.inline_top if ir.inline_top is not None else lean.default_inline_top(len(t.code))
    hot = lean.hot_tests(ir, budget)
    at, sets = lean.code_sets(ir)
    functions = (
        _functions(ir, layout.ifs_layout(ir, inline=hot), "top", lean.table_rows(ir), at)
        if hot
        else ()
    )
    n_rows = len(t.code)
    has_tests = not isinstance(ir.nodes[0], Leaf)
    source = _source(ir, sets, uses_rdf=parts.value_kind(enc) == "float")
    members = [n for n in (ir.nodes[i] for i in t.members) if isinstance(n, Member)]
    return LeanTableView(
        source,
        LeanTable(
            key=(
                parts.key_function("right")
                if enc.uses_keys and has_tests and source.member_key is None
                else None
            ),
            keyed=enc.uses_keys,
            n_members=len(members),
            member_feature=parts.int_column(U, [n.feature for n in members] or [0]),
            member_k=parts.int_column(U, [n.n_codes for n in members] or [0], UINT8),
            member_at=parts.int_column(U, [at[i] for i in t.members] or [0], UINT16),
            value_ctype=parts.value_ctype(enc),
            functions=functions,
            uses_bits=any(f.uses_k for f in functions),
            n_top=len(hot),
            top_whole=0 < len(hot) == n_rows,
            n_rows=n_rows,
            code=parts.int_column(U, list(t.code) or [0]),
            thr=parts.threshold_column(enc, U, list(t.threshold) or [0]),
            kid=parts.int_column(U, list(t.kid) or [0]),
            row_ctype=smallest_uint(max(n_rows, 1)).c_name,
            shift=t.shift,
            mask=(1 << t.shift) - 1,
            root_leaf=t.root_leaf,
            leaf_noun="outcome" if ir.proba else "class",
        ),
    )

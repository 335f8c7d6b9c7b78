"""An EnsembleIR -> predict.c / predict.h: one node table for all trees, float64 sums.

predict.h is a tree's (the frame's header view: types, feature and class macros);
predict.c (templates/predict_ensemble.c.j2) holds every tree's nodes in one table in
pre-order, tree after tree, walked by one loop from each tree's root; each node is a
flag byte (leaf, the missing value's side, the comparison, categorical), a feature, a
threshold in the C input type and the right child (the left child is the next node) or,
at a leaf, its value row.  The leaves' value rows and the initial scores are float64
constants, each distinct row stored once; the prediction adds the reached rows in tree
order in ``double``, divides and decides as the estimator does (treegen.ensemble.core).
Every literal and identifier is formatted here (treegen.codegen.literals, emit_parts);
the template loops and substitutes.
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.codegen.ctype import UINT32, smallest_uint
from treegen.codegen.emit import header_view, make_env
from treegen.codegen.emit_parts import HEADER, SOURCE, c_rows, int_column, threshold_column
from treegen.codegen.emit_parts import value_kind as value_kind_of
from treegen.codegen.f64 import f64_initializer, f64_source
from treegen.codegen.literals import c_double
from treegen.codegen.options import ExportOptions
from treegen.codegen.views import Column, ValueKind, context
from treegen.ensemble.lower import CatSplit, EnsembleIR, LeafRow, Split
from treegen.errors import EmitError

# The flag byte of a node.
FLAG_LEAF = 1
FLAG_NAN_LEFT = 2
FLAG_CAT = 4
OP_SHIFT = 3  # bits 3..4: the comparison
_OPS = {"le": 0, "lt": 1, "left": 2, "right": 3}


@dataclass(frozen=True, slots=True)
class Flags:
    """The flag bits and comparison codes, as the template tests them."""

    leaf: int
    nan_left: int
    cat: int
    op_shift: int
    le: int
    lt: int
    left: int
    right: int


@dataclass(frozen=True, slots=True)
class EnsembleSource:
    """predict.c of an ensemble (predict_ensemble.c.j2)."""

    header_name: str
    value_kind: ValueKind
    value_ctype: str
    n_nodes: int
    n_trees: int
    n_outputs: int
    n_values: int
    vector: bool  # every leaf adds a whole row
    flag: Column
    feature: Column
    thr: Column
    next: Column
    root: Column
    output: Column
    catoff: Column
    has_cat: bool
    cat_rows: tuple[str, ...]
    n_cat_bytes: int
    cat_tables: tuple[tuple[int, int, int], ...]  # (feature, offset, count) of raw-value tables
    raw_rows: tuple[str, ...]
    raw_soft_rows: tuple[str, ...]
    n_raw: int
    ncode: Column  # per feature: how many codes it has (categorical features)
    value_width: int
    value_rows: tuple[str, ...]
    init_rows: tuple[str, ...]
    divisor: str  # "" for none
    # Where double has fewer than 53 bits (AVR): the same constants as binary64 bit
    # patterns, and the routines that add, divide and compare them (treegen.codegen.f64).
    soft_value_rows: tuple[str, ...]
    soft_init_rows: tuple[str, ...]
    soft_divisor: str
    soft_source: str
    decision: str
    node_ctype: str
    flags: Flags


def _bitset(codes: tuple[int, ...], n: int) -> list[int]:
    out = [0] * ((n + 7) // 8 or 1)
    for c in codes:
        out[c // 8] |= 1 << (c % 8)
    return out


def _soft_ops(ir: EnsembleIR, raw: bool) -> list[str]:
    """The binary64 routines the soft path needs: the sums, and what the decision uses."""
    ops = ["add"]
    if ir.divisor is not None:
        ops.append("div")
    ops.append({"argmax": "lt", "ge0": "le", "gt0": "lt", "diff": "lt"}[ir.decision])
    if ir.decision == "diff":
        ops.append("neg")
    if raw:
        ops += ["eq", "from_f32"]
    return ops


def source_view(ir: EnsembleIR) -> EnsembleSource:
    frame = ir.frame
    U = ir.prefix.upper()
    flags: list[int] = []
    feature: list[int] = []
    thr: list[int | float] = []
    nxt: list[int] = []
    catoff: list[int] = []
    cat_bytes: list[int] = []
    roots: list[int] = []
    for tree in ir.trees:
        base = len(flags)
        roots.append(base)
        for node in tree.nodes:
            if isinstance(node, LeafRow):
                flags.append(FLAG_LEAF)
                feature.append(0)
                thr.append(0)
                nxt.append(node.row)
                catoff.append(0)
            elif isinstance(node, Split):
                flags.append((FLAG_NAN_LEFT if node.nan_left else 0) | _OPS[node.op] << OP_SHIFT)
                feature.append(node.feature)
                thr.append(node.threshold if node.op in ("le", "lt") else 0)
                nxt.append(base + node.right)
                catoff.append(0)
            else:
                assert isinstance(node, CatSplit)
                flags.append(FLAG_CAT | (FLAG_NAN_LEFT if node.nan_left else 0))
                feature.append(node.feature)
                thr.append(0)
                nxt.append(base + node.right)
                catoff.append(len(cat_bytes))
                cat_bytes += _bitset(node.left_codes, node.n_codes)
    if len(flags) > 0xFFFFFFFF:
        raise EmitError(f"the ensemble has {len(flags)} nodes; at most 2^32 - 1 are exported")
    raw: list[float] = []
    tables = []
    for f, cats in enumerate(ir.categories):
        if cats:
            tables.append((f, len(raw), len(cats)))
            raw += cats
    ncode = [
        len(ir.categories[f]) if ir.categories and ir.categories[f] else len(feat.values)
        for f, feat in enumerate(ir.features)
    ]
    node_type = smallest_uint(max(len(flags), max(nxt, default=0), 1))
    kind = value_kind_of(frame)
    return EnsembleSource(
        header_name=HEADER,
        value_kind=kind,
        value_ctype=(UINT32 if frame.encoding.uses_keys else frame.encoding.ctype).c_name,
        n_nodes=len(flags),
        n_trees=len(ir.trees),
        n_outputs=ir.n_outputs,
        n_values=len(ir.values),
        vector=ir.vector,
        flag=int_column(U, flags),
        feature=int_column(U, feature),
        thr=threshold_column(frame, U, thr),
        next=int_column(U, nxt, node_type),
        root=int_column(U, roots, node_type),
        output=int_column(U, [max(t.output, 0) for t in ir.trees]),
        catoff=int_column(U, catoff or [0]),
        has_cat=bool(cat_bytes),
        cat_rows=c_rows([f"{b}u" for b in cat_bytes]),
        n_cat_bytes=max(len(cat_bytes), 1),
        cat_tables=tuple(tables),
        raw_rows=c_rows([c_double(v) for v in raw]),
        raw_soft_rows=c_rows([f64_initializer(v) for v in raw]),
        n_raw=max(len(raw), 1),
        ncode=int_column(U, ncode or [0]),
        value_width=ir.n_outputs if ir.vector else 1,
        value_rows=c_rows(["{" + ", ".join(c_double(v) for v in row) + "}" for row in ir.values]),
        init_rows=c_rows([c_double(v) for v in ir.init]),
        divisor="" if ir.divisor is None else c_double(ir.divisor),
        soft_value_rows=c_rows(
            ["{" + ", ".join(f64_initializer(v) for v in row) + "}" for row in ir.values]
        ),
        soft_init_rows=c_rows([f64_initializer(v) for v in ir.init]),
        soft_divisor="" if ir.divisor is None else f64_initializer(ir.divisor),
        soft_source=f64_source(ir.prefix, _soft_ops(ir, bool(raw))),
        decision=ir.decision,
        node_ctype=node_type.c_name,
        flags=Flags(FLAG_LEAF, FLAG_NAN_LEFT, FLAG_CAT, OP_SHIFT, *_OPS.values()),
    )


def emit_ensemble(ir: EnsembleIR, opts: ExportOptions | None = None) -> dict[str, str]:
    """Render predict.c and predict.h for ``ir``."""
    env = make_env()
    header = header_view(ir.frame)
    return {
        HEADER: env.get_template("predict.h.j2").render(context(header)),
        SOURCE: env.get_template("predict_ensemble.c.j2").render(context(header, source_view(ir))),
    }

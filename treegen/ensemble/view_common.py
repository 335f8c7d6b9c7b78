"""What both styles of an ensemble's predict.c share (treegen.ensemble.emit): the
``Common`` view (the payload rows, initial scores, divisor, categorical tables and the
binary64 routines the sums need), with the rules they follow (when the sums may use
add_pos and div_pos; a key walk's stride).  Every literal is formatted here; the views
of what predict.c exports besides the class are treegen.ensemble.view_api's."""

from __future__ import annotations

import math
from dataclasses import dataclass

from treegen.codegen.conditions import missing_kind
from treegen.codegen.ctype import TYPES, UINT32, smallest_uint
from treegen.codegen.f64 import f64_initializer, f64_source
from treegen.codegen.literals import (
    c_double,
    c_float,
    c_rows,
    compared_double,
    compared_float,
)
from treegen.codegen.parts import ValueKind, file_names, int_column
from treegen.codegen.parts import value_kind as value_kind_of
from treegen.codegen.views import Column, MissingKind
from treegen.ensemble.core import ZERO_BAND
from treegen.ensemble.ir import CatSplit, EnsembleIR, Split
from treegen.ensemble.layout import Payloads

FLOAT_EXACT_INT = 1 << 24  # a float column holds the integers below this exactly


@dataclass(frozen=True, slots=True)
class Common:
    """What both styles' predict.c have: the sums, the value tables, the decision."""

    header_name: str
    value_kind: ValueKind
    missing: MissingKind  # how a missing value looks (the m.is_missing macro)
    value_ctype: str
    n_trees: int
    n_outputs: int
    vector: bool  # every leaf adds a whole row
    output: Column | None  # the output each tree adds to; None: tree t adds to t % n_outputs
    payload_ctype: str
    # Count rows (treegen.ensemble.layout.Payloads), or float64 value rows.
    fractions: bool
    n_pure: int
    n_narrow: int
    n_wide: int
    narrow_rows: tuple[str, ...]
    wide_rows: tuple[str, ...]
    n_values: int
    value_rows: tuple[str, ...]
    soft_value_rows: tuple[str, ...]
    init_rows: tuple[str, ...]
    soft_init_rows: tuple[str, ...]
    # A forest's (count rows and a divisor) sums start at +0: no table for that.
    init_zero: bool
    divisor: str  # "" for none
    soft_divisor: str
    bound: str  # decision "bound": the least sum that is class 1
    soft_bound: str
    # Where double has fewer than 53 bits: the routines the model needs.
    soft_source: str
    decision: str
    # Categorical tests: the bitsets, each feature's code count and raw-value tables.
    has_cat: bool
    cat_rows: tuple[str, ...]
    n_cat_bytes: int
    cat_tables: tuple[tuple[int, int, int], ...]  # (feature, offset, count)
    raw_rows: tuple[str, ...]
    raw_soft_rows: tuple[str, ...]
    n_raw: int
    ncode: Column
    # XGBoost, LightGBM: float32 sums, the decision's cut, the categorical rule, zero band.
    sum32: bool = False
    f32_value_rows: tuple[str, ...] = ()
    f32_init_rows: tuple[str, ...] = ()
    cut: str = ""
    soft_cut: str = ""
    cat_rule: str = "sklearn"
    zero: str = ""  # the zero band's edge in the input type ("" for integer inputs)
    avr_error: str = ""  # a table too large for AVR: the #error's message (a C string)
    bare_tests: bool = False  # --missing none: numeric tests have no missing-value check
    # The key walk (treegen.ensemble.lower): keys computed once, k[f] and (key_plus: some
    # test sends a missing value left) k[f + key_stride] = k[f] + 1.
    key_walk: bool = False
    key_stride: int = 1
    key_plus: bool = False
    # The ifs of one tree: on hosts each test compares its float input (host_floats).
    host_floats: bool = False
    # The binary64 routines the sums use: add and div, or add_pos and div_pos where
    # every operand is +0 or positive normal (_positive; argmax then compares the bits).
    add_op: str = "add"
    div_op: str = "div"
    # The table style's leaves are in its node stream (treegen.ensemble.node_stream): no
    # count row table and no payload adder.
    streamed: bool = False
    # Bit-packed count rows (treegen.ensemble.count_pack): the stream's bytes, each
    # group's end payload and width; n_cnt 0: byte rows (narrow, wide).
    n_cnt: int = 0
    cnt_rows: tuple[str, ...] = ()
    cnt_end: Column | None = None
    cnt_w: Column | None = None
    n_groups: int = 0
    bit_ctype: str = "unsigned"  # holds a bit offset into the stream
    # One tree, no doubles: the leaf's payload is the class (EnsembleIR.decided), so
    # predict returns it, with no sums, value tables or binary64 routines.
    decided: bool = False


TINY = 2.0**-1021  # above the least normal double: a quotient this large stays normal
HUGE = 2.0**1023  # a sum below this stays finite


def _positive(ir: EnsembleIR) -> bool:
    """Whether the sums only ever add and divide +0 or positive normal numbers and stay
    normal (or +0): the start values and leaf values are, the largest possible sum is
    finite, the divisor positive and a sum divided by it normal.  Then add_pos and
    div_pos (treegen.codegen.f64.POS_OPS) give the same bits as add and div, and the
    sums, never negative, order as their bit patterns (argmax needs no float compare).
    A forest's count rows add n / N with 1 <= n <= N: the same fractions as its values."""
    if ir.float32_sums or ir.anomaly is not None or ir.decision not in ("argmax", "value"):
        return False
    values = [v for row in ir.values for v in row] + list(ir.init)

    def ok(v: float) -> bool:
        return (v == 0.0 and math.copysign(1.0, v) > 0) or TINY / 2 <= v < HUGE

    if not values or not all(ok(v) for v in values):
        return False
    top = max(ir.init) + len(ir.trees) * max(values)
    smallest = min((v for v in values if v > 0), default=1.0)
    d = ir.divisor
    if d is not None and not (TINY <= d < HUGE and smallest / d >= TINY and top / d < HUGE):
        return False
    return top < HUGE


def _soft_ops(ir: EnsembleIR, pay: Payloads, raw: bool, streamed: bool) -> list[str]:
    """The binary64 routines the soft path needs: the sums, and what the decision uses.
    Counts divided in the C: the count rows', or a node stream's leaves (``streamed``),
    whose adder divides every leaf's counts, one-class leaves' too, so a forest whose
    leaves are all one class (fully grown trees) needs the division as well."""
    pos = _positive(ir)
    ops = ["add_pos" if pos else "add"]
    divides_counts = pay.fractions and (bool(pay.counts) or streamed)
    if ir.divisor is not None or divides_counts:
        ops.append("div_pos" if pos else "div")
    if divides_counts:
        ops.append("from_u32")
    if pos and ir.decision == "argmax":
        pass  # the bits compared (u64_lt, which add_pos calls)
    elif ir.decision != "value":
        ops.append(
            {"argmax": "lt", "ge0": "le", "gt0": "lt", "gt": "lt", "diff": "lt", "bound": "le"}[
                ir.decision
            ]
        )
    if ir.decision == "diff":
        ops.append("neg")
    if raw:
        ops += ["eq", "from_f32"]
    if ir.anomaly is not None and not ir.anomaly.unit:
        ops.append("div")  # sum / denominator
    if ir.doubles:
        ops.append("to_f32")  # the exported doubles where double has 32 bits
        if ir.decision == "diff":
            ops.append("neg")
    return ops


def bitsets(ir: EnsembleIR) -> tuple[list[int], dict[tuple[int, int], int]]:
    """Every categorical test's left codes as a bitset, equal ones stored once: the
    bytes, and each test's (tree, node) offset into them."""
    data: list[int] = []
    seen: dict[tuple[int, ...], int] = {}
    where: dict[tuple[int, int], int] = {}
    for t, tree in enumerate(ir.trees):
        for i, node in enumerate(tree.nodes):
            if isinstance(node, CatSplit):
                bits = [0] * ((node.n_codes + 7) // 8 or 1)
                for c in node.left_codes:
                    bits[c // 8] |= 1 << (c % 8)
                key = tuple(bits)
                if key not in seen:
                    seen[key] = len(data)
                    data += bits
                where[(t, i)] = seen[key]
    return data, where


def common_view(
    ir: EnsembleIR, pay: Payloads, cat_bytes: list[int], streamed: bool = False
) -> Common:
    """What both styles' predict.c share; ``streamed``: the table style's leaves are in
    its node stream (treegen.ensemble.node_stream)."""
    U = ir.prefix.upper()
    raw: list[float] = []
    tables = []
    for f, cats in enumerate(ir.categories):
        # Only a categorical test reads a table (PREFIX_code): none without one.
        if cats and cat_bytes:
            tables.append((f, len(raw), len(cats)))
            raw += cats
    ncode = list(ir.n_codes) or [
        len(ir.categories[f]) if ir.categories and ir.categories[f] else len(feat.values)
        for f, feat in enumerate(ir.features)
    ]
    outputs = [max(t.output, 0) for t in ir.trees]
    modular = all(o == t % ir.n_outputs for t, o in enumerate(outputs))
    packed = pay.packed
    narrow = pay.counts[: pay.n_narrow] if packed is None else ()
    wide = pay.counts[pay.n_narrow :] if packed is None else ()
    scalar = not ir.vector

    def row(values: tuple[float, ...]) -> str:
        if scalar:
            return c_double(values[0])
        return "{" + ", ".join(c_double(v) for v in values) + "}"

    def f32_row(values: tuple[float, ...]) -> str:
        if scalar:
            return c_float(values[0])
        return "{" + ", ".join(c_float(v) for v in values) + "}"

    def soft_row(values: tuple[float, ...]) -> str:
        if scalar:
            return f64_initializer(values[0])
        return "{" + ", ".join(f64_initializer(v) for v in values) + "}"

    return Common(
        header_name=file_names(ir.frame.stem)[1],
        value_kind=value_kind_of(ir.frame.encoding),
        missing=missing_kind(ir.frame.encoding),
        value_ctype=(UINT32 if ir.encoding.uses_keys else ir.encoding.ctype).c_name,
        n_trees=len(ir.trees),
        n_outputs=ir.n_outputs,
        vector=ir.vector,
        output=None if modular or ir.vector else int_column(U, outputs),
        payload_ctype=smallest_uint(max(pay.count - 1, 1)).c_name,
        fractions=pay.fractions,
        n_pure=pay.n_pure,
        n_narrow=len(narrow),
        n_wide=len(wide),
        narrow_rows=c_rows(["{" + ", ".join(f"{c}u" for c in r) + "}" for r in narrow]),
        wide_rows=c_rows(["{" + ", ".join(f"{c}u" for c in r) + "}" for r in wide]),
        n_cnt=len(packed.stream) if packed else 0,
        cnt_rows=c_rows([f"{b}u" for b in packed.stream]) if packed else (),
        cnt_end=int_column(U, list(packed.ends), smallest_uint(max(packed.ends)))
        if packed
        else None,
        cnt_w=int_column(U, list(packed.widths), TYPES["uint8"]) if packed else None,
        n_groups=len(packed.ends) if packed else 0,
        bit_ctype="unsigned" if packed is None or packed.bits <= 0xFFFF else UINT32.c_name,
        n_values=max(len(pay.doubles), 1),
        value_rows=c_rows([row(r) for r in pay.doubles]),
        soft_value_rows=c_rows([soft_row(r) for r in pay.doubles]),
        init_rows=c_rows([c_double(v) for v in ir.init]),
        soft_init_rows=c_rows([f64_initializer(v) for v in ir.init]),
        init_zero=init_zero(ir, pay),
        divisor="" if ir.divisor is None else c_double(ir.divisor),
        soft_divisor="" if ir.divisor is None else f64_initializer(ir.divisor),
        bound="" if ir.bound is None else c_double(ir.bound),
        soft_bound="" if ir.bound is None else f64_initializer(ir.bound),
        # The stream's adder is add_pos's one caller.
        soft_source=""
        if ir.decided
        else f64_source(ir.prefix, _soft_ops(ir, pay, bool(raw), streamed), add_once=streamed),
        decision=ir.decision,
        has_cat=bool(cat_bytes),
        cat_rows=c_rows([f"{b}u" for b in cat_bytes]),
        n_cat_bytes=max(len(cat_bytes), 1),
        cat_tables=tuple(tables),
        raw_rows=c_rows([c_double(v) for v in raw]),
        raw_soft_rows=c_rows([f64_initializer(v) for v in raw]),
        n_raw=max(len(raw), 1),
        ncode=int_column(U, ncode or [0]),
        sum32=ir.float32_sums,
        f32_value_rows=c_rows([f32_row(r) for r in pay.doubles]) if ir.float32_sums else (),
        f32_init_rows=c_rows([c_float(v) for v in ir.init]) if ir.float32_sums else (),
        cut=(c_float(ir.cut) if ir.float32_sums else c_double(ir.cut))
        if ir.decision == "gt"
        else "",
        soft_cut=f64_initializer(ir.cut) if ir.decision == "gt" else "",
        cat_rule=ir.categorical_rule,
        zero=_zero_literal(ir),
        bare_tests=ir.lean,
        key_walk=ir.key_walk and bool(splits(ir)),
        key_stride=key_stride(ir),
        key_plus=ir.key_walk and any(ir.key_threshold(s) != s.threshold for s in splits(ir)),
        add_op="add_pos" if _positive(ir) else "add",
        div_op="div_pos" if _positive(ir) else "div",
        streamed=streamed,
        decided=bool(ir.decided),
    )


def init_zero(ir: EnsembleIR, pay: Payloads) -> bool:
    """Whether the sums start at +0 without a table: a forest's (count rows, divided by
    the number of trees, so the binary64 table reader stays in use)."""
    return (
        pay.fractions
        and ir.divisor is not None
        and not ir.float32_sums
        and all(v == 0.0 and math.copysign(1.0, v) > 0 for v in ir.init)
    )


def splits(ir: EnsembleIR) -> list[Split]:
    """The numeric tests, tree after tree, in pre-order (the table's row order)."""
    return [n for tree in ir.trees for n in tree.nodes if isinstance(n, Split)]


def key_stride(ir: EnsembleIR) -> int:
    """Where a key walk's keys plus 1 start: the power of two above the last feature,
    so a table word's feature and missing-side bits together index the keys."""
    return 1 << max(ir.n_features - 1, 0).bit_length()


def _zero_literal(ir: EnsembleIR) -> str:
    """The zero band's edge as a constant of the input type (keys compare the float
    itself): "" where the input is an integer (the band is 0 alone) or no test has it."""
    if not ir.has_zero or ir.encoding.is_int:
        return ""
    # Cast where inexact, as the thresholds are (literals.compared_float).
    if ir.encoding.input_type == "double":
        return compared_double(ZERO_BAND)
    return compared_float(ZERO_BAND)

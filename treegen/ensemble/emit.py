"""An EnsembleIR -> predict.c / predict.h, in the table style (smallest) or ifs (fastest).

predict.h is a tree's (the frame's header view: types, feature and class macros).
predict.c sums, for every tree in estimator order, what the leaf a row reaches adds,
in IEEE binary64, then divides and decides as the estimator does
(treegen.ensemble.core); where ``double`` has fewer than 53 bits (AVR) the same
operations run in the generated binary64 routines (treegen.codegen.f64).  How a row
reaches its leaf is the style:

* ``table`` (templates/predict_ensemble_table.c.j2): every tree's splits in one compact
  table walked by one loop, leaves as payloads (count rows where a forest's values
  are class fractions), laid out by treegen.ensemble.layout;
* ``ifs`` (templates/predict_ensemble_ifs.c.j2): a function of nested ifs per tree,
  returning the leaf's row of float64 values.

With ``sum="float32"`` (XGBoost) the sums are C ``float`` additions instead, the values,
init and cut float constants: binary32 on every target (avr-libc's addition is correctly
rounded, measured in docs/softfloat.md), so no routine of its own.  A decision ``gt``
compares the sum with the cut; LightGBM's zero-band tests (``Split.zero``) are marked in
a bitset of rows (table) or tested in line (ifs).

Every literal and identifier is formatted here; the templates loop and substitute.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from treegen.codegen.comments import short
from treegen.codegen.conditions import missing_kind
from treegen.codegen.costs import ensemble_safety_lines
from treegen.codegen.ctype import TYPES, UINT32, CType, smallest_uint
from treegen.codegen.emit import make_env
from treegen.codegen.f64 import f64_initializer, f64_source
from treegen.codegen.header import header_view
from treegen.codegen.layout import MAX_NEST
from treegen.codegen.literals import c_double, c_float, c_hex32, c_rows, value_literal
from treegen.codegen.names import comment_text
from treegen.codegen.options import ExportOptions
from treegen.codegen.parts import ValueKind, file_names, int_column, threshold_column
from treegen.codegen.parts import value_kind as value_kind_of
from treegen.codegen.views import Column, Header, MissingKind, context
from treegen.ensemble import branchfree, pow2
from treegen.ensemble.core import ZERO_BAND
from treegen.ensemble.layout import OP_CODES, NodeTable, Payloads, Word, node_table, payloads
from treegen.ensemble.lower import CatSplit, EnsembleIR, ETree, LeafRow, Split, bare
from treegen.errors import EmitError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

FLOAT_EXACT_INT = 1 << 24  # a float column holds the integers below this exactly
INLINE_TESTS = 4096
"""The most tests an ifs predict.c lets the compiler inline its tree functions for:
measured (gcc 12 -O2), inlining made a 10-tree forest (921 tests) 54 -> 34 ns and a
400-tree boosted model (2,720) 2.5 -> 1.6 us at 2x its 0.2-1.2 s compile time, and a
500-tree one (about 30,000) no faster at 2x its 5.6 s."""


@dataclass(frozen=True, slots=True)
class Doubles:
    """The doubles predict.c exports besides the class (EnsembleIR.doubles)."""

    name: str  # predict_proba or decision_function
    arg: str
    macro: str  # PREFIX_<macro> is their count
    n: int
    difference: bool  # AdaBoost's two classes: one column, -sum0 + sum1
    doc: str
    anomaly: bool = False  # an IsolationForest's scores (templates/_pow2.j2)


@dataclass(frozen=True, slots=True)
class DoublesView:
    doubles: Doubles | None


@dataclass(frozen=True, slots=True)
class _Outputs:
    """predict.h's count of a regressor's outputs (the header view has classes only)."""

    n_outputs: int


@dataclass(frozen=True, slots=True)
class Pow2Consts:
    """glibc's pow constants for x = 2 (treegen.ensemble.pow2), as C hex literals."""

    hi: str
    lo: str
    inv: str
    nhi: str
    nlo: str
    c2: str
    c3: str
    c4: str
    c5: str
    shift: str
    neg_offset: str  # -offset_: decision_function = score_samples + this
    den: str  # the denominator, a double constant
    soft_den: str


@dataclass(frozen=True, slots=True)
class Pow2View:
    """An IsolationForest's scores in C (templates/_pow2.j2); empty table: none."""

    pow2_table: tuple[str, ...]
    pow2_c: Pow2Consts | None


def _pow2_view(ir: EnsembleIR) -> Pow2View:
    if ir.anomaly is None:
        return Pow2View((), None)
    t = pow2.table()
    rows = [f"{{0x{v >> 32:08X}u, 0x{v & 0xFFFFFFFF:08X}u}}" for v in t]

    def h(bits: int) -> str:
        return f"0x{bits:016X}"

    c = Pow2Consts(
        h(pow2.LOG2_HI), h(pow2.LOG2_LO), h(pow2.INV_LN2_N), h(pow2.NEG_LN2_HI_N),
        h(pow2.NEG_LN2_LO_N), h(pow2.C2), h(pow2.C3), h(pow2.C4), h(pow2.C5), h(pow2.SHIFT),
        h(pow2.as_bits(-ir.anomaly.offset)), c_double(ir.anomaly.denominator),
        f64_initializer(ir.anomaly.denominator),
    )  # fmt: skip
    return Pow2View(c_rows(rows), c)


@dataclass(frozen=True, slots=True)
class RegressView:
    """Whether predict.c/.h have a regressor's API (templates/_regress.j2): predict
    writes the outputs, predict_bits their binary64 bits."""

    regress: bool


def _doubles(ir: EnsembleIR) -> Doubles | None:
    api = ir.proba_api
    if api is None or api.values:
        return None
    where = (
        "bit for bit where double is binary64; where it has 32 bits (avr-gcc), the "
        "nearest binary32 of that value"
    )
    if ir.anomaly is not None:
        doc = (
            "The IsolationForest's score_samples (scores[0]) and decision_function "
            "(scores[1]), with glibc's pow: what scikit-learn returns where numpy's power "
            f"is the C library's (docs/regression.md), {where}."
        )
        return Doubles(api.name, "scores", "N_SCORES", 2, False, doc, anomaly=True)
    if ir.doubles == "proba":
        doc = f"The estimator's predict_proba, proba[{ir.prefix.upper()}_N_PROBA], {where}."
        return Doubles(api.name, "proba", "N_PROBA", api.n, False, doc)
    doc = (
        f"The estimator's decision_function (the raw scores its class is decided on), "
        f"scores[{ir.prefix.upper()}_N_SCORES], {where}."
    )
    return Doubles(api.name, "scores", "N_SCORES", api.n, ir.decision == "diff", doc)


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
    bare_tests: bool = False  # --missing none: numeric tests have no missing-value check
    # The key walk (treegen.ensemble.lower): keys computed once, k[f] and (key_plus: some
    # test sends a missing value left) k[f + key_stride] = k[f] + 1.
    key_walk: bool = False
    key_stride: int = 1
    key_plus: bool = False
    # The ifs of one tree: each test keys its own input instead (lazy_keys).
    lazy_keys: bool = False
    # The binary64 routines the sums use: add and div, or add_pos and div_pos where
    # every operand is +0 or positive normal (_positive; argmax then compares the bits).
    add_op: str = "add"
    div_op: str = "div"


@dataclass(frozen=True, slots=True)
class OpCodes:
    le: int
    lt: int
    left: int
    right: int


@dataclass(frozen=True, slots=True)
class TableView:
    """The compact node table (treegen.ensemble.layout.NodeTable) as C columns."""

    n_rows: int
    n_payloads: int
    n_pairs: int
    word: Column
    feature: Column | None  # None: the feature is in the word
    thr: Column
    pairs: Column
    roots: Column
    edge_ctype: str
    feature_mask: int
    kid_ctype: str  # kid as the walk holds it: at least unsigned, so no compare is vacuous
    fields: Word
    ops: OpCodes
    zero_rows: tuple[str, ...] = ()  # the rows of zero-band tests, a bit each
    n_zero_bytes: int = 0
    pair_hi: Column | None = None  # 9-bit pair entries: their top bits (pairs holds the low 8)
    n_pair_hi: int = 0


@dataclass(frozen=True, slots=True)
class EnsLine:
    """A line of an ifs function: ``if`` (the test is ``test``: le, lt, known, miss or
    cat), ``else``, ``end``, ``return`` (a payload), ``select`` (a subtree's select
    expression, treegen.ensemble.branchfree) or ``call`` (a subtree's function)."""

    kind: str
    pad: str
    test: str = ""
    feature: int = 0
    threshold: str = ""
    nan_left: bool = False
    offset: int = 0  # a categorical test's bitset
    payload: int = 0
    callee: str = ""
    comment: str = ""
    zero: bool = False  # a value in the zero band goes the missing way too
    bare: bool = False  # --missing none: the comparison alone
    select: tuple[str, ...] = ()  # ``select``: a return statement's lines (branchfree)
    lhs: str = ""  # a key test's left side (_key_lhs)


@dataclass(frozen=True, slots=True)
class EnsFunction:
    name: str
    lines: tuple[EnsLine, ...]
    uses_k: bool  # compares keys: declares k


@dataclass(frozen=True, slots=True)
class IfsView:
    functions: tuple[EnsFunction, ...]
    tree_functions: tuple[str, ...]  # tree t's function
    tree_outputs: tuple[int, ...]  # the output tree t adds to (0 for whole rows)
    uses_key: bool  # some test reads a key (--float-compare int)
    noinline: bool  # the tree functions stay functions (INLINE_TESTS)
    n_tests: int
    uses_select: bool  # some function returns a select expression (PREFIX_SEL)


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


def _soft_ops(ir: EnsembleIR, pay: Payloads, raw: bool) -> list[str]:
    """The binary64 routines the soft path needs: the sums, and what the decision uses."""
    pos = _positive(ir)
    ops = ["add_pos" if pos else "add"]
    if ir.divisor is not None or (pay.fractions and pay.counts):
        ops.append("div_pos" if pos else "div")
    if pay.fractions and pay.counts:
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
    if ir.anomaly is not None:
        ops.append("div")  # sum / denominator
    if ir.doubles:
        ops.append("to_f32")  # the exported doubles where double has 32 bits
        if ir.decision == "diff":
            ops.append("neg")
    return ops


def _bitsets(ir: EnsembleIR) -> tuple[list[int], dict[tuple[int, int], int]]:
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


def _common(ir: EnsembleIR, pay: Payloads, cat_bytes: list[int]) -> Common:
    U = ir.prefix.upper()
    raw: list[float] = []
    tables = []
    for f, cats in enumerate(ir.categories):
        if cats:
            tables.append((f, len(raw), len(cats)))
            raw += cats
    ncode = list(ir.n_codes) or [
        len(ir.categories[f]) if ir.categories and ir.categories[f] else len(feat.values)
        for f, feat in enumerate(ir.features)
    ]
    outputs = [max(t.output, 0) for t in ir.trees]
    modular = all(o == t % ir.n_outputs for t, o in enumerate(outputs))
    narrow = pay.counts[: pay.n_narrow]
    wide = pay.counts[pay.n_narrow :]
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
        n_values=max(len(pay.doubles), 1),
        value_rows=c_rows([row(r) for r in pay.doubles]),
        soft_value_rows=c_rows([soft_row(r) for r in pay.doubles]),
        init_rows=c_rows([c_double(v) for v in ir.init]),
        soft_init_rows=c_rows([f64_initializer(v) for v in ir.init]),
        divisor="" if ir.divisor is None else c_double(ir.divisor),
        soft_divisor="" if ir.divisor is None else f64_initializer(ir.divisor),
        bound="" if ir.bound is None else c_double(ir.bound),
        soft_bound="" if ir.bound is None else f64_initializer(ir.bound),
        soft_source=f64_source(ir.prefix, _soft_ops(ir, pay, bool(raw))),
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
        key_walk=ir.key_walk and bool(_splits(ir)),
        key_stride=key_stride(ir),
        key_plus=ir.key_walk and any(ir.key_threshold(s) != s.threshold for s in _splits(ir)),
        add_op="add_pos" if _positive(ir) else "add",
        div_op="div_pos" if _positive(ir) else "div",
    )


def _splits(ir: EnsembleIR) -> list[Split]:
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
    return c_double(ZERO_BAND) if ir.encoding.input_type == "double" else c_float(ZERO_BAND)


def _uint_column(U: str, values: list[int] | tuple[int, ...], ctype: CType | None = None) -> Column:
    return int_column(U, list(values) or [0], ctype or smallest_uint(max(values, default=0)))


def _pair_columns(table: NodeTable) -> tuple[list[int], list[int]]:
    """The pair table's entries (two a pair), and no more; or, where some entry needs 9
    bits (256 to 511 payloads), their low bytes and a bitmap of their top bits (entry q's
    is bit q % 8 of byte q / 8): 1.1 bytes an entry instead of 2 (an ExtraTrees forest of
    272 payloads: its 408 entries 816 -> 459 B)."""
    flat = [p for pair in table.pairs for p in pair]
    if not 0xFF < max(flat, default=0) <= 0x1FF:
        return flat, []
    hi = [
        sum(((flat[q + b] >> 8) & 1) << b for b in range(8) if q + b < len(flat))
        for q in range(0, len(flat), 8)
    ]
    return [p & 0xFF for p in flat], hi


def table_view(ir: EnsembleIR, table: NodeTable) -> TableView:
    U = ir.prefix.upper()
    w = table.word
    thresholds = list(table.threshold)
    if not ir.encoding.is_int and not ir.encoding.uses_keys:
        big = [
            t
            for t, c in zip(thresholds, table.categorical, strict=True)
            if c and t >= FLOAT_EXACT_INT
        ]
        if big:
            raise EmitError(
                f"the ensemble's categorical tests need {big[-1]} bitset bytes; at most "
                f"{FLOAT_EXACT_INT} are exported"
            )
    if ir.key_walk:  # no categorical test: every row is a Split
        thresholds = [ir.key_threshold(s) for s in _splits(ir)]
    words = table.words()
    zero_bits = [
        isinstance(node, Split) and node.zero
        for tree in ir.trees
        for node in tree.nodes
        if not isinstance(node, LeafRow)
    ]
    zero_bytes = [
        sum(1 << b for b in range(8) if i + b < len(zero_bits) and zero_bits[i + b])
        for i in range(0, len(zero_bits), 8)
    ]
    flat, hi = _pair_columns(table)
    return TableView(
        n_rows=table.n_rows,
        n_payloads=table.n_payloads,
        n_pairs=len(table.pairs),
        word=_uint_column(U, words, smallest_uint(max((1 << w.bits) - 1, 1))),
        feature=None if w.in_word else _uint_column(U, table.feature),
        thr=threshold_column(ir.frame.encoding, U, thresholds or [0]),
        pairs=_uint_column(U, flat),
        pair_hi=_uint_column(U, hi, TYPES["uint8"]) if hi else None,
        n_pair_hi=len(hi),
        roots=_uint_column(U, table.roots, smallest_uint(table.n_rows + table.n_payloads)),
        edge_ctype=smallest_uint(table.n_rows + table.n_payloads).c_name,
        feature_mask=(1 << w.feature_bits) - 1,
        kid_ctype="unsigned" if w.bits <= 16 else UINT32.c_name,
        fields=w,
        ops=OpCodes(**OP_CODES),
        zero_rows=c_rows([f"{b}u" for b in zero_bytes]) if any(zero_bits) else (),
        n_zero_bytes=len(zero_bytes) if any(zero_bits) else 0,
    )


def _ifs_tests(ir: EnsembleIR, node: Split | CatSplit, offset: int) -> tuple[str, str, int]:
    """(test, threshold literal, bitset offset) of a split that tests something."""
    if isinstance(node, CatSplit):
        return "cat", "", offset
    if ir.key_walk:
        assert isinstance(node, Split) and node.op == "le"
        return "key", c_hex32(ir.key_threshold(node)), 0
    if node.op in ("le", "lt"):
        return node.op, value_literal(ir.frame.encoding, float(node.threshold)), 0
    # Every known value goes one way: the test is whether the value is known.
    return ("known" if node.op == "left" else "miss"), "", 0


def _key_index(ir: EnsembleIR, node: Split) -> int:
    """The key a key walk's test of ``node`` reads: k[f], or k[f] + 1 (at f + stride)
    where a missing value goes left (the threshold's + 1 too)."""
    return node.feature + key_stride(ir) * (ir.key_threshold(node) - int(node.threshold))


def lazy_keys(ir: EnsembleIR) -> bool:
    """Whether the ifs of a key walk may key each test's input where the test reads it
    (PREFIX_LAZYKEYS, on x86 and AArch64 hosts) rather than every input once before the
    first test: for one tree, whose walk reads few inputs and whose first test then waits
    for one key, not all of them.  Measured (bench/regress_bench.py's depth-8 regression
    tree on 8 features, gcc 12 -O2, CPU time): 9.0 -> 6.1 ns over the test rows in order,
    21.0 -> 17.1 shuffled; the 10-tree ExtraTrees regressor, whose walks read every input
    many times, 37.9 -> 55 ns.  Elsewhere the keys come first, as for a forest: keyed at
    each test, the tree took 8,522 -> 9,712 B on the ATmega328P."""
    return ir.key_walk and len(ir.trees) == 1


def _key_lhs(ir: EnsembleIR, node: Split) -> str:
    """What a key walk's test of ``node`` compares with its threshold: k[i]
    (_key_index), or where keys may be lazy PREFIX_K(f, i) (k[i], or the key of x[f]
    itself) or PREFIX_K1(f, i) (plus 1, where a missing value goes left)."""
    i = _key_index(ir, node)
    if not lazy_keys(ir):
        return f"k[{i}]"
    one = "1" if ir.key_threshold(node) != int(node.threshold) else ""
    return f"{ir.prefix.upper()}_K{one}({node.feature}, {i})"


def _select(ir: EnsembleIR, pay: Payloads, tree: ETree, i: int, cast: str) -> tuple[str, ...]:
    """The return statement of the subtree at ``i`` as a select (treegen.ensemble.branchfree)."""
    return tuple(
        branchfree.select_lines(
            tree.nodes,
            i,
            f"return ({cast})",
            f"{ir.prefix.upper()}_SEL",
            lambda n: f"{_key_lhs(ir, n)} <= {c_hex32(ir.key_threshold(n))}",
            lambda n: _comment(ir, n),
            lambda leaf: pay.of_row[leaf.row],
        )
    )


def ifs_view(ir: EnsembleIR, pay: Payloads, cat_at: dict[tuple[int, int], int]) -> IfsView:
    """A function per tree (more where a subtree starts MAX_NEST tests down); in a key
    walk, the last tests above the leaves as select expressions (treegen.ensemble.branchfree)."""
    P = ir.prefix
    cast = smallest_uint(max(pay.count - 1, 1)).c_name
    functions: list[EnsFunction] = []
    tree_functions: list[str] = []
    for t, tree in enumerate(ir.trees):
        height = branchfree.heights(tree.nodes, ir.key_walk)
        todo = [(0, f"{P}_tree{t}")]
        tree_functions.append(todo[0][1])
        while todo:
            root, name = todo.pop()
            lines: list[EnsLine] = []
            uses_k = False
            # Work items: (node, indent, nest) or a ready line.
            stack: list[tuple[int, int, int] | EnsLine] = [(root, 1, 0)]
            while stack:
                item = stack.pop()
                if isinstance(item, EnsLine):
                    lines.append(item)
                    continue
                i, indent, nest = item
                pad = "    " * indent
                node = tree.nodes[i]
                if isinstance(node, LeafRow):
                    lines.append(EnsLine("return", pad, payload=pay.of_row[node.row]))
                    continue
                left, right = i + 1, node.right
                zero = isinstance(node, Split) and node.zero
                plain = bare(node, ir.lean)
                if isinstance(node, Split) and node.op in ("left", "right") and not zero:
                    # A test a missing value alone decides; none when it goes the same way
                    # (always under --missing none: lower.none_left).
                    if node.nan_left == (node.op == "left"):
                        stack.append((left if node.nan_left else right, indent, nest))
                        continue
                if height[i] <= branchfree.HEIGHT:
                    lines.append(EnsLine("select", pad, select=_select(ir, pay, tree, i, cast)))
                    continue
                if nest >= MAX_NEST:
                    callee = f"{P}_tree{t}_{i}"
                    todo.append((i, callee))
                    lines.append(EnsLine("call", pad, callee=callee))
                    continue
                test, thr, off = _ifs_tests(ir, node, cat_at.get((t, i), 0))
                feature = node.feature
                lhs = ""
                if test == "key" and isinstance(node, Split):
                    feature = _key_index(ir, node)
                    lhs = _key_lhs(ir, node)
                uses_k = uses_k or (
                    ir.encoding.uses_keys
                    and not ir.key_walk
                    and test in ("le", "lt")
                    and not zero
                    and not plain
                )
                comment = _comment(ir, node)
                stack += [
                    EnsLine("end", pad),
                    (right, indent + 1, nest + 1),
                    EnsLine("else", pad),
                    (left, indent + 1, nest + 1),
                ]
                lines.append(
                    EnsLine(
                        "if",
                        pad,
                        test,
                        feature,
                        thr,
                        node.nan_left,
                        off,
                        comment=comment,
                        zero=zero,
                        bare=plain,
                        lhs=lhs,
                    )  # fmt: skip
                )
            functions.append(EnsFunction(name, tuple(lines), uses_k))
    outputs = tuple(max(t.output, 0) for t in ir.trees)
    uses_key = ir.encoding.uses_keys and (
        any(line.kind == "if" for fn in functions for line in fn.lines)
    )
    sel = f"{P.upper()}_SEL("
    n_tests = sum(
        1 if line.kind == "if" else sum(text.count(sel) for text in line.select)
        for fn in functions
        for line in fn.lines
    )
    selects = any(line.kind == "select" for fn in functions for line in fn.lines)
    return IfsView(
        tuple(functions),
        tuple(tree_functions),
        outputs,
        uses_key or selects,
        n_tests > INLINE_TESTS,
        n_tests,
        selects,
    )


def _comment(ir: EnsembleIR, node: Split | CatSplit) -> str:
    name = ir.features[node.feature].name
    if isinstance(node, CatSplit):
        text = f"{name} in {{{', '.join(str(c) for c in node.left_codes)}}}"
    else:
        text = f"{name} <= {short(node.cut)}"
    missing_left = node.nan_left and not bare(node, ir.lean)  # a bare test has no way
    return comment_text(text + (", missing left" if missing_left else ""))


def lean_note(ir: EnsembleIR) -> tuple[str, ...]:
    """predict.h's paragraph on the none rule (treegen.ensemble.lower) of a lean ensemble."""
    cat = any(isinstance(n, CatSplit) for t in ir.trees for n in t.nodes)
    kept = " and ".join(
        part
        for part, has in (("a categorical test", cat), ("a LightGBM zero-band test", ir.has_zero))
        if has
    )
    text = (
        "Exported with --missing none: no value may be missing.  One that is anyway takes "
        "a fixed path: a numeric test x <= t goes left when true and right when false, so "
        "NaN goes right and an integer sentinel is compared like any value; a test that "
        "every value of the input type passes one way sends it that way."
    )
    if kept:
        missing = f"{ir.prefix.upper()}_MISSING" if ir.encoding.is_int else "NaN"
        text += f"  {kept[0].upper()}{kept[1:]} still sends {missing} the way the model learnt."
    lines = textwrap.wrap(text, 84, subsequent_indent="   ", break_on_hyphens=False)
    return tuple(comment_text(line) for line in lines)


def _header(ir: EnsembleIR) -> Header:
    """predict.h's view: the frame's (a tree's), with the lean paragraph under
    --missing none (PREFIX_MISSING stays where a categorical or zero-band test reads it)."""
    if not ir.lean:
        return header_view(ir.frame, _safety(ir))
    header = header_view(replace(ir.frame, missing="none"), _safety(ir))
    keeps = ir.has_zero or any(isinstance(n, CatSplit) for t in ir.trees for n in t.nodes)
    missing = header_view(ir.frame).missing_literal if keeps else ""
    return replace(header, lean_note=lean_note(ir), missing_literal=missing)


def _longest_path(tree: ETree) -> int:
    """The most tests a walk of ``tree`` makes (pre-order: a test's left child follows it)."""
    depth = [0] * len(tree.nodes)
    longest = 0
    for i, node in enumerate(tree.nodes):
        if isinstance(node, LeafRow):
            longest = max(longest, depth[i])
        else:
            depth[i + 1] = depth[node.right] = depth[i] + 1
    return longest


def _safety(ir: EnsembleIR) -> tuple[str, ...]:
    tests = sum(_longest_path(t) for t in ir.trees)
    return ensemble_safety_lines(ir.prefix, len(ir.trees), tests, ir.n_outputs)


def emit_ensemble(ir: EnsembleIR, opts: ExportOptions | None = None) -> dict[str, str]:
    """Render predict.c and predict.h for ``ir`` in ``opts.style`` (table by default)."""
    style = (opts.style if opts is not None else None) or "table"
    env = make_env()
    header = _header(ir)
    doubles = DoublesView(_doubles(ir))
    regress = RegressView(ir.doubles == "values")
    cat_bytes, cat_at = _bitsets(ir)
    views: tuple[DataclassInstance, ...]
    if style == "table":
        pay = payloads(ir, fractions=True)
        table = node_table(ir, pay, cat_at)
        views = (header, _common(ir, pay, cat_bytes), table_view(ir, table))
        template = "predict_ensemble_table.c.j2"
    else:
        pay = payloads(ir, fractions=False)
        # Each call names its tree's output: no output table.
        common = replace(_common(ir, pay, cat_bytes), output=None, lazy_keys=lazy_keys(ir))
        views = (header, common, ifs_view(ir, pay, cat_at))
        template = "predict_ensemble_ifs.c.j2"
    source, header_file = file_names(ir.frame.stem)
    return {
        header_file: env.get_template("predict.h.j2").render(
            context(header, doubles, regress, _Outputs(ir.n_outputs))
        ),
        source: env.get_template(template).render(
            context(*views, doubles, regress, _pow2_view(ir))
        ),
    }


_SIZES = {"uint8_t": 1, "int8_t": 1, "uint16_t": 2, "int16_t": 2, "uint32_t": 4, "int32_t": 4}
_SIZES.update({"float": 4, "double": 8})


def table_bytes(ir: EnsembleIR) -> int:
    """The bytes of the table style's constant tables for ``ir`` (what ``info``
    reports; the code adds one to two kilobytes, the binary64 routines included)."""
    cat_bytes, cat_at = _bitsets(ir)
    pay = payloads(ir, fractions=True)
    table = node_table(ir, pay, cat_at)
    view = table_view(ir, table)
    row = _SIZES[view.word.ctype] + _SIZES[view.thr.ctype]
    row += _SIZES[view.feature.ctype] if view.feature else 0
    n = table.n_rows * row + 2 * len(table.pairs) * _SIZES[view.pairs.ctype] + view.n_pair_hi
    n += len(ir.trees) * _SIZES[view.roots.ctype]
    n += sum(len(r) * (1 if i < pay.n_narrow else 2) for i, r in enumerate(pay.counts))
    width = 4 if ir.float32_sums else 8  # a value, an initial score
    n += sum(len(r) for r in pay.doubles) * width if ir.vector else len(pay.doubles) * width
    n += width * ir.n_outputs + 8 * (ir.divisor is not None)
    n += 8 * (ir.decision == "gt" and not ir.float32_sums)  # the soft path's cut
    n += view.n_zero_bytes
    common = _common(ir, pay, cat_bytes)
    if common.output is not None:
        n += len(ir.trees) * _SIZES[common.output.ctype]
    if cat_bytes:
        n += len(cat_bytes) + ir.n_features * _SIZES[common.ncode.ctype]
    n += 8 * sum(len(c) for c in ir.categories)
    return n

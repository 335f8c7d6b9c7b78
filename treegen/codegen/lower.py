"""Model + export options -> IR: every comparison encoded for the C input type.

Each lowering rule is one function here, proved by property tests
(tests/codegen/test_codegen_lower.py):

The model's own test on a value v is ``v <= t`` (j48) or ``float32(v) <= t`` (c45:
Release 8 rounds values to float first); :func:`treegen.model.bounds.model_bound`
writes either as ``v < B`` or ``v <= B`` for a boundary B, and the rules below turn that
into one comparison on the C input type:

* :func:`float32_floor` -- float input: ``x <= t`` for float32 x holds exactly when
  ``x <= float32_floor(t)``, the largest float32 not above t (for c45 models B lies
  between t and the next float32, so the float literal is t itself).
* double input: ``x <= B`` (or ``x <= B``'s double predecessor when B is excluded);
  for a j48 model that is ``x <= t`` exactly.
* :func:`float_key` -- ``--float-compare int``: an order-preserving unsigned key of a
  float32 bit pattern; NaN maps to 0 (missing), every other value to a key >= 0x7fffff.
* integer input with scale K (:func:`treegen.model.bounds.read_bound` and
  ``bound_int``): x stands for the decimal x/K, which the model reads as the double
  nearest x/K, so the cut is the largest x whose double(x/K) passes the model's test
  (for a j48 threshold that is a training value n/K, x = n itself, although the
  double t may lie below n/K); then folded when no known value of the type can fall
  on one side.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from treegen.codegen.ctype import TYPES
from treegen.codegen.fold import fold_identical
from treegen.codegen.ir import (
    IR,
    MAX_SWITCH_VALUES,
    Compare,
    CompareOp,
    Encoding,
    Feature,
    Fold,
    IRNode,
    Leaf,
    Outcome,
    Switch,
    validate,
)
from treegen.codegen.keys import float_key
from treegen.codegen.lean import lean_ir
from treegen.codegen.names import check_prefix, unique_idents
from treegen.codegen.options import ExportOptions
from treegen.codegen.parts import DEFAULT_STEM
from treegen.data.words import counted
from treegen.errors import EncodingError
from treegen.model import bounds, fixedpoint, j48rule
from treegen.model.bounds import float32_floor
from treegen.model.core import ContinuousTest, Model, NominalTest
from treegen.model.core import Leaf as LeafNode

FLT_MAX = bounds.FLT_MAX


def known_range(enc: Encoding) -> tuple[int, int]:
    """Smallest and largest value of the integer type that is not the missing sentinel."""
    lo, hi = enc.int_range
    return (lo + 1 if enc.missing == lo else lo, hi - 1 if enc.missing == hi else hi)


def default_missing(input_type: str) -> int:
    """The missing value when --missing-value is not given: the end of the type away
    from 0 (the maximum of an unsigned type, the minimum of a signed one), which no
    nominal code 0..k-1 can be unless the codes fill the type."""
    lo, hi = TYPES[input_type].range
    return hi if lo == 0 else lo


def make_encoding(model: Model, opts: ExportOptions) -> Encoding:
    """The input encoding ``opts`` asks for, checked against ``model``'s attributes (the
    options themselves were checked when they were made)."""
    attrs = model.schema.attributes
    ctype = TYPES[opts.input_type]
    is_int = ctype.is_int
    scales = [opts.scale or Fraction(1)] * len(attrs)
    for name, k in opts.feature_scales:
        idx = [i for i, a in enumerate(attrs) if a.name == name]
        if not idx:
            raise EncodingError(f"unknown attribute {name!r}", option="--scale")
        if not attrs[idx[0]].is_continuous:
            raise EncodingError(f"attribute {name!r} is not continuous", option="--scale")
        scales[idx[0]] = k
    assert all(k > 0 for k in scales), "ExportOptions checked every scale (check_scale)"
    missing = None
    if is_int:
        lo, hi = ctype.range
        missing = (
            default_missing(opts.input_type) if opts.missing_value is None else opts.missing_value
        )
        if not lo <= missing <= hi:
            raise EncodingError(
                f"missing value {missing} does not fit {opts.input_type}", option="--missing-value"
            )
        for a in attrs:
            if a.is_nominal and len(a.values) - 1 > hi:
                raise EncodingError(
                    f"nominal attribute {a.name!r} has more values than {opts.input_type} holds",
                    option="--input-type",
                )
            if a.is_nominal and 0 <= missing < len(a.values):
                if opts.missing_value is None:
                    raise EncodingError(
                        f"the default missing value {missing} of "
                        f"{opts.input_type} is a code of nominal attribute "
                        f"{a.name!r} ({len(a.values)} values); choose another "
                        f"with --missing-value",
                        option="--input-type",
                    )
                raise EncodingError(
                    f"missing value {missing} is a code of nominal attribute {a.name!r}",
                    option="--missing-value",
                )
    return Encoding(
        opts.input_type,
        "int" if opts.float_compare == "int" else "float",
        missing,
        tuple(scales) if is_int else (),
    )


@dataclass(frozen=True, slots=True)
class Cut:
    """``x[attribute] <= threshold`` outside a model (an ensemble's split, a rule's
    condition): what :func:`lower_continuous` reads of a continuous test."""

    attribute: int
    threshold: float


def int_cut(node: Cut | ContinuousTest, enc: Encoding, narrow32: bool) -> int:
    """The cut of a finite continuous test on integer input: the largest x (standing
    for x / scale) that passes the model's test, whatever the type's range."""
    return bounds.bound_int(bounds.read_bound(node.threshold, narrow32), enc.scales[node.attribute])


def lower_continuous(
    node: Cut | ContinuousTest, i: int, enc: Encoding, narrow32: bool
) -> tuple[CompareOp, int | float]:
    """The comparison a continuous test becomes: (op, threshold in the C domain).
    ``narrow32``: the model compares float32(v) (c45), not v itself (j48).

    One rule at every ``--scale`` (1 included): a test that every known value of the
    input type passes the same way (a cut at or above the largest known value, or
    below the smallest, the missing sentinel not counted) folds to a constant branch,
    ``left`` or ``right``; :func:`fold_of` says which folds the export reports."""
    t = node.threshold
    if math.isnan(t):
        raise EncodingError(f"model node {i}: threshold is NaN")
    if enc.is_int:
        if not math.isfinite(t):
            return ("left" if t > 0 else "right"), 0
        cut = int_cut(node, enc, narrow32)
        klo, khi = known_range(enc)
        if cut >= khi:
            return "left", 0
        if cut < klo:
            return "right", 0
        return "le", cut
    if narrow32 and t == -math.inf and enc.input_type == "double":
        # float32(v) <= -inf holds for a double below float32's range too (float32 -inf):
        # the same test as float32(v) <= -DBL_MAX, which has a bound in the double domain.
        t = -float(np.finfo(np.float64).max)
    bound = bounds.model_bound(t, narrow32) if math.isfinite(t) else None
    if enc.input_type == "double":
        if bound is None:
            return ("left", 0) if t > 0 else ("lt", -float(np.finfo(np.float64).max))
        b, incl = bounds.bound_float(bound)
        return "le", b if incl else float(np.nextafter(b, -np.inf))
    f = t if bound is None else float32_floor(bounds.bound_float(bound)[0])
    if bound is not None and not bound[1] and f == float(bound[0]):
        f = float(np.nextafter(np.float32(f), np.float32(-np.inf)))
    if enc.uses_keys:
        return "le", float_key(0.0 if f == 0 else f)
    if f == math.inf:
        return "left", 0
    if f == -math.inf:
        return "lt", -FLT_MAX
    return "le", 0.0 if f == 0 else f  # -0.0 and +0.0 compare alike; print one form


def fold_of(
    node: Cut | ContinuousTest,
    i: int,
    enc: Encoding,
    narrow32: bool,
    op: CompareOp,
    shown: float | None = None,
) -> Fold | None:
    """The report of a folded test (op ``left``/``right``) whose model threshold is
    finite: a cut beyond the type's values.  An infinite threshold is the model's own
    "every value" test, not a fold of the export.  ``node`` is what the C compares
    with (a j48 tree's test: :func:`model_cut`, J48's cut), so the note's ``x <= N`` is
    the C's; ``shown`` is the model threshold the note names (default: ``node``'s)."""
    if op not in ("left", "right") or not math.isfinite(node.threshold):
        return None
    cut: int | float = int_cut(node, enc, narrow32) if enc.is_int else math.inf
    return Fold(i, node.attribute, node.threshold if shown is None else shown, cut, op)


def fold_note(ir: IR) -> str:
    """The export's note on its folded tests (:attr:`IR.folds`), or "" for none."""
    return folds_note([(f"model node {f.source}", f) for f in ir.folds], ir.encoding, ir.features)


def folds_note(
    folds: Sequence[tuple[str, Fold]], enc: Encoding, features: Sequence[Feature]
) -> str:
    """The note on ``folds``, each named by where it is (a model node; a tree's node), or
    "" for none: the one wording of every kind's fold note."""
    if not folds:
        return ""
    listed = [
        f"{where} ({features[f.feature].name} <= {f.threshold!r}"
        + (f", x <= {f.cut} at scale {enc.scales[f.feature]}" if enc.is_int else "")
        + f": {f.side})"
        for where, f in folds[:MAX_LISTED]
    ]
    more = len(folds) - len(listed)
    n = len(folds)
    return (
        f"{counted(n, 'threshold')} outside {enc.input_type}'s "
        f"{'known values' if enc.is_int else 'range'} fold{'' if n != 1 else 's'} to a "
        f"constant branch (every value goes one way): {', '.join(listed)}"
        + (f" and {more} more" if more else "")
    )


MAX_LISTED = 20
"""The folded tests :func:`fold_note` names; it counts the rest."""


def model_cut(model: Model, node: ContinuousTest) -> Cut:
    """What a known value is compared with at ``node``: its threshold, or for a j48 model
    J48's cut (:func:`treegen.model.j48rule.test_cut`)."""
    return Cut(node.attribute, j48rule.test_cut(model, node.threshold))


def lower_test(model: Model, i: int, enc: Encoding, parents: dict[int, int]) -> Compare | Switch:
    """Test ``i`` of ``model`` for ``enc`` (``parents``: ``j48rule.empty_parents``)."""
    node = model.nodes[i]
    assert not isinstance(node, LeafNode)
    shares = fixedpoint.branch_shares(node.items, j48rule.branch_items(model, i, parents))
    if isinstance(node, ContinuousTest):
        if len(node.children) != 2:
            raise EncodingError(f"model node {i}: continuous test without two branches")
        op, thr = lower_continuous(model_cut(model, node), i, enc, model.compares_float32)
        return Compare(
            node.attribute,
            op,
            thr,
            (shares[0], shares[1]),
            (node.children[0], node.children[1]),
            i,
            node.threshold,
        )
    attr = model.schema.attributes[node.attribute]
    k = len(attr.values)
    if k > MAX_SWITCH_VALUES:
        raise EncodingError(
            f"model node {i} tests nominal attribute {attr.name!r}, which has "
            f"{k} values: the generated C holds a value's branch in a byte, "
            f"so a tested attribute can have at most {MAX_SWITCH_VALUES} values "
            "(merge rare values, or give the attribute as numeric codes)"
        )
    if isinstance(node, NominalTest):
        if len(node.children) != k:
            raise EncodingError(f"model node {i}: {len(node.children)} branches for {k} values")
    branch_of = node.value_branches(k)
    return Switch(node.attribute, branch_of, shares, node.children, i)


def lower(
    model: Model,
    opts: ExportOptions,
    provenance: tuple[tuple[str, str], ...] = (),
    *,
    fold_equal: bool = True,
) -> IR:
    """Lower ``model`` for the C input encoding in ``opts`` (prefix None: ``model``), with
    the header comment's ``provenance`` lines; raise EncodingError.  Under ``--missing
    none`` the tests whose branches are equal subtrees fold away unless ``fold_equal`` is
    False (treegen.codegen.fold; verify probes the thresholds of the tree before)."""
    opts.check_distributions()
    enc = make_encoding(model, opts)
    prefix = check_prefix(opts.prefix or "model")
    attrs = model.schema.attributes
    names = [a.name for a in attrs]
    idents = unique_idents(names)
    features = tuple(
        Feature(
            a.name, idents[i], a.kind, a.values, unique_idents(a.values) if a.is_nominal else ()
        )
        for i, a in enumerate(attrs)
    )
    outcome_index: dict[Outcome, int] = {}
    nodes: list[IRNode] = []
    folds: list[Fold] = []
    n_classes = len(model.schema.classes)
    parents = j48rule.empty_parents(model)
    for i, node in enumerate(model.nodes):
        if isinstance(node, LeafNode):
            o = Outcome(
                fixedpoint.answer_class(model, i, parents),
                fixedpoint.leaf_proba(j48rule.answering_node(model, i, parents), n_classes),
            )
            nodes.append(Leaf(outcome_index.setdefault(o, len(outcome_index)), i))
            continue
        test = lower_test(model, i, enc, parents)
        nodes.append(test)
        if isinstance(test, Compare) and test.op in ("left", "right"):
            assert isinstance(node, ContinuousTest)
            # The cut the C's test uses (J48's for a j48 tree), the model's threshold shown.
            cut = model_cut(model, node)
            fold = fold_of(cut, i, enc, model.compares_float32, test.op, node.threshold)
            folds += [fold] if fold is not None else []
    ir = IR(
        prefix,
        enc,
        features,
        model.schema.classes,
        unique_idents(model.schema.classes),
        tuple(nodes),
        tuple(outcome_index),
        max(1, model.depth()),
        provenance,
        inline_top=opts.inline_top,
        folds=tuple(folds),
        depth=model.depth(),
        stem=opts.name or DEFAULT_STEM,
    )
    validate(ir)
    if opts.missing == "none":
        lean = lean_ir(ir, opts.wants_proba)
        return fold_identical(lean) if fold_equal else lean
    return ir

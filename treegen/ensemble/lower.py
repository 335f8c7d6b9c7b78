"""An Ensemble + export options -> :class:`~.ir.EnsembleIR`: each test encoded for the C input type.

A numeric split is the tree's own test (treegen.codegen.lower.lower_continuous, proved by
its property tests): ``float32(x) <= t`` for scikit-learn's trees (``compare="float32"``,
the c45 flavour's reading) or ``x <= t`` (``"float64"``, the j48 flavour's), as one
comparison on the C input type (``le``/``lt`` a threshold, or ``left``/``right`` when
every known value of the type goes one way, or on integer inputs every known value the
tests above it let through: treegen.ensemble.implied; the C has no test where every
value, missing ones too, goes one way: treegen.ensemble.splice).  A missing value (NaN, the integer
sentinel, key 0) goes the node's way (``nan_left``) before any comparison.  A categorical
split keeps its left codes; a feature read as a number looks its value up in the
category table (float and double inputs only).  The leaves' value rows, the initial
scores and the divisor stay float64 numbers (float32 ones for ``sum="float32"``: XGBoost):
the C adds them as the estimator does.  A LightGBM test of missing type Zero keeps its
flag (``zero``): the C sends a value within ZERO_BAND of 0 the missing way.  A
categorical test's code count is the ensemble's (Ensemble.code_counts), and the rule
that makes a code of a value (``categorical_rule``) goes to the C as it is.

**The key walk.**  With float input, no categorical or zero-band test (both read the
float itself) and at most KEY_WALK_FEATURES features, every numeric test compares
order keys (treegen.codegen.keys, the ``--float-compare int`` rule) whatever
``--float-compare`` says: the same answers, with no float instruction or soft-float
call.  The C keys each input once per prediction, NaN of either sign above every
threshold, so a test ``k <= t`` sends it right; a test whose missing values go left
compares ``k + 1 <= t + 1`` instead, where NaN's key wraps to 0
(treegen.ensemble.ir: :meth:`EnsembleIR.key_threshold`): one unsigned compare per test either way.

``--missing none`` (``lean``): the caller promises no value is missing, so a numeric
test is the comparison alone, with no missing-value check.  A value that is missing
anyway takes the *none rule*, recorded as that test's ``nan_left`` (:func:`none_left`):
NaN fails ``x <= t`` and goes right (with ``--float-compare int`` the key of NaN is
above every threshold), an integer sentinel is compared like any value, and a test the
input type's range decides sends every value its one way.  A categorical test and a
LightGBM zero-band test keep their missing-value way: both read values that are not
missing (an unknown code, a value in the band) as missing, so they cannot drop it.
:func:`none_rule` is the Ensemble with those ways, the Python side verify holds the
lean C to on every row.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Literal

from treegen.codegen.ir import CompareOp, Encoding, Fold
from treegen.codegen.lower import Cut, fold_of, lower, lower_continuous
from treegen.codegen.options import ExportOptions
from treegen.ensemble import classify, implied, isolation, pow2
from treegen.ensemble.core import LEAF, Ensemble, Tree
from treegen.ensemble.ir import (
    CatSplit,
    ENode,
    EnsembleIR,
    ETree,
    LeafRow,
    Split,
    has_top,
    key_walk_fits,
)
from treegen.errors import EncodingError
from treegen.model.core import Leaf, Model


def _frame(ens: Ensemble) -> Model:
    """A one-leaf tree on the ensemble's schema: the encoding checks are a tree's."""
    n = len(ens.schema.classes)
    return Model(ens.schema, (Leaf(0, 0.0, 0.0, (0.0,) * n),))


def none_left(enc: Encoding, op: CompareOp, threshold: int | float) -> bool:
    """Where a bare test (:func:`bare`) sends a value that is missing anyway: the
    sentinel compared like any value, NaN right (it fails every comparison, and the
    lean C keys it above every threshold), a test the type's range decides its way."""
    if op in ("left", "right"):
        return op == "left"
    if enc.is_int:
        assert enc.missing is not None
        return enc.missing <= threshold if op == "le" else enc.missing < threshold
    return False


def _doubles(ens: Ensemble, opts: ExportOptions) -> Literal["", "proba", "scores", "values"]:
    """Which doubles the C exports: predict_proba where it is the sums themselves (a
    forest's, a single tree's), decision_function where the estimator has one, a
    regressor's prediction always."""
    if ens.regressor:
        if opts.proba or opts.scores:
            raise EncodingError(
                "a regressor's C returns its predicted values (predict, predict_bits): "
                "it has no class probabilities or scores",
                option="--proba" if opts.proba else "--scores",
            )
        return "values"
    if ens.anomaly is not None and opts.proba:
        raise EncodingError(
            "an IsolationForest has no class probabilities: --scores exports its "
            "score_samples and decision_function (docs/regression.md)",
            option="--proba",
        )
    if ens.anomaly is not None and opts.scores:
        why = pow2.domain_error(*isolation.sum_range(ens), ens.anomaly.denominator)
        if why is not None:
            raise EncodingError(
                f"the IsolationForest's scores are not exported: {why} (glibc's pow is "
                "reproduced on its fast path only)",
                option="--scores",
            )
        return "scores"
    if opts.proba:
        if ens.method != "forest":
            raise EncodingError(
                "a boosted model's predict_proba is exp of its raw scores, which C without "
                "libm does not compute bit for bit: --scores exports the raw scores "
                "(decision_function) exactly",
                option="--proba",
            )
        return "proba"
    if opts.scores:
        if ens.method == "forest":
            raise EncodingError(
                "a forest has no decision_function: --proba exports its predict_proba exactly",
                option="--scores",
            )
        return "scores"
    return ""


def lower_ensemble(
    ens: Ensemble, opts: ExportOptions, provenance: tuple[tuple[str, str], ...] = ()
) -> EnsembleIR:
    """Lower ``ens`` for the C input encoding in ``opts`` (prefix None: ``ensemble``)."""
    doubles = _doubles(ens, opts)
    if ens.anomaly is not None and not math.isfinite(ens.anomaly.boundary):
        raise EncodingError(
            "the IsolationForest calls every row an outlier (its offset_ is above every "
            "score): there is nothing to compute",
            option="estimator",
        )
    lean = opts.missing == "none"
    categorical = any(any(t.categorical) for t in ens.trees)
    zero = any(t.zero(i) for t in ens.trees for i in range(t.n_nodes))
    if key_walk_fits(opts.input_type, categorical, zero, len(ens.schema.attributes)):
        # Keys are exact and cheaper than float compares everywhere (module docstring).
        opts = replace(opts, float_compare="int")
    # The frame keeps --missing c45's encoding: its sentinel is still the missing value
    # of the categorical and zero-band tests, and of verify's rows.
    frame_opts = replace(
        opts,
        proba=None,
        scores=False,
        missing="c45",
        inline_top=None,
        prefix=opts.prefix or "ensemble",
    )
    frame = replace(lower(_frame(ens), frame_opts, provenance), proba=False)
    enc = frame.encoding
    attrs = ens.schema.attributes
    narrow = ens.compares_float32
    if categorical and enc.uses_keys:
        raise EncodingError(
            "an ensemble with categorical tests reads them as numbers: --float-compare int "
            "is for numeric tests only",
            option="--float-compare",
        )
    if ens.categories and any(ens.categories) and enc.is_int:
        raise EncodingError(
            "a categorical feature read as a number needs --input-type float or double",
            option="--input-type",
        )
    counts = ens.code_counts()
    trees = []
    folds: list[tuple[int, Fold]] = []
    for t_index, tree in enumerate(ens.trees):
        nodes: list[ENode] = []
        for i in range(tree.n_nodes):
            f = tree.feature[i]
            if f == LEAF:
                nodes.append(LeafRow(tree.value[i]))
                continue
            if tree.categorical[i]:
                # A nominal feature's input is its code, which no scale touches (a global
                # --scale is for the continuous features); a number's category must be 1.
                if enc.is_int and attrs[f].is_continuous and enc.scales[f] != 1:
                    raise EncodingError(
                        f"feature {attrs[f].name!r} is categorical: its integer input must be "
                        f"the code itself, not scaled by {enc.scales[f]}",
                        option="--scale",
                    )
                nodes.append(
                    CatSplit(f, tree.left_codes[i], counts[f], tree.nan_left[i], tree.right[i])
                )
                continue
            node = Cut(f, tree.threshold[i])
            try:
                op, thr = lower_continuous(node, i, enc, narrow)
            except EncodingError as exc:
                msg = str(exc.args[0]).split(": ", 1)[-1]
                raise EncodingError(f"tree {t_index} node {i}: {msg}", option=exc.option) from None
            fold = fold_of(node, i, enc, narrow, op)
            if fold is not None:
                folds.append((t_index, fold))
            nan_left = tree.nan_left[i]
            if lean and not tree.zero(i):
                nan_left = none_left(enc, op, thr)
            nodes.append(
                Split(f, op, thr, nan_left, tree.right[i], tree.threshold[i], tree.zero(i))
            )
        if enc.is_int:  # float inputs: nothing to decide (treegen.ensemble.implied)
            _decide_by_path(nodes, tree, enc, lean)
        trees.append(ETree(tuple(nodes), tree.output, tree.weight))
    ir = EnsembleIR(
        frame,
        tuple(trees),
        ens.values,
        ens.init,
        ens.divisor,
        ens.decision,
        ens.categories,
        None if ens.anomaly is None else ens.anomaly.boundary,
        doubles,
        ens.sum,
        ens.cut,
        ens.categorical_rule,
        counts,
        tuple(folds),
        ens.anomaly if doubles == "scores" else None,
        lean,
        decided_classes(ens, doubles),
        opts.inline_top,
    )
    if opts.inline_top is not None and not has_top(ir):
        raise EncodingError(
            "an inline top is for one tree's table without --proba or --scores: an "
            "ensemble of more trees, and exported doubles, sum in a table walk of their own",
            option="--inline-top",
        )
    return ir


def _decide_by_path(nodes: list[ENode], tree: Tree, enc: Encoding, lean: bool) -> None:
    """Make each numeric test of ``nodes`` (``tree`` lowered) that its path decides
    ``left``/``right`` (treegen.ensemble.implied); under ``lean`` a missing value goes
    that way too (none_left), so the C has no test there at all."""
    tests = [(n.op, n.threshold) if isinstance(n, Split) and not n.zero else None for n in nodes]
    nan_left = [not isinstance(n, LeafRow) and n.nan_left for n in nodes]
    for i, (way, cut) in implied.path_decided(tree, tests, nan_left, enc, lean).items():
        node = nodes[i]
        assert isinstance(node, Split)
        miss = none_left(enc, way, cut) if lean else node.nan_left
        nodes[i] = replace(node, op=way, threshold=cut, nan_left=miss, implied=True)


def decided_classes(ens: Ensemble, doubles: str) -> tuple[int, ...]:
    """The class of each value row where the C decides it at export time, else ().  A
    one-tree classifier's sums depend on its leaf alone, so the oracle's own arithmetic
    (treegen.ensemble.classify.row_classes: init row plus the leaf's row, the division,
    the estimator's decision and tie rule) gives the class the C would compute; that
    needs no doubles exported, and no categorical value table (read as binary64)."""
    if len(ens.trees) != 1 or doubles or ens.regressor or ens.anomaly is not None:
        return ()
    if ens.categories and any(ens.categories):
        return ()
    return classify.row_classes(ens)


def none_rule(ens: Ensemble, ir: EnsembleIR) -> Ensemble:
    """``ens`` with each test's missing-value way as ``ir``'s C has it: the lean C's
    none rule (module docstring), node for node; ``ens`` itself without --missing none."""
    if not ir.lean:
        return ens
    trees = tuple(
        replace(
            tree,
            nan_left=tuple(
                old if isinstance(n, LeafRow) else n.nan_left
                for old, n in zip(tree.nan_left, etree.nodes, strict=True)
            ),
        )
        for tree, etree in zip(ens.trees, ir.trees, strict=True)
    )
    return replace(ens, trees=trees)

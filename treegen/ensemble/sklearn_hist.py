"""A fitted HistGradientBoostingClassifier read into an Ensemble (its own tree format).

Its trees are ``TreePredictor`` node records (``_predictors``), compared in float64
(``x <= num_threshold``), NaN sent by ``missing_go_to_left``, and categorical splits
tested on bitsets of category codes.  With categorical features, scikit-learn first
runs its ``_preprocessor``: a ColumnTransformer that puts the categorical columns first
(their order kept) and encodes each with an OrdinalEncoder (sorted categories; an
unknown value, and so any negative, non-integer or too large one, becomes NaN), so the
predictors' feature indices are of those reordered columns.  Here they are mapped back
to the user's columns, and a categorical column keeps its categories: numbers stay the
input (the C looks the value up in the sorted categories), text categories make a
nominal attribute whose input is the code.  A code in the split's left bitset goes
left, another known code right, an unknown code or NaN the missing way, as
``_predict_one_from_raw_data`` decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from treegen.data.arrays import label_kind, label_names
from treegen.data.dataset import Attribute, Schema
from treegen.ensemble.core import Ensemble, Tree
from treegen.ensemble.preorder import Columns, intern, walk
from treegen.ensemble.sktree import inconsistent
from treegen.errors import UsageError, a_name

_BITSET_WORDS = 8  # scikit-learn's categorical bitsets: 8 x 32 bits, codes below 256


def _columns(est: Any) -> tuple[list[int], list[tuple[object, ...] | None]]:
    """For every column the predictors index, the user's column it comes from; and for
    every user column its categories (None: numeric)."""
    n = int(est.n_features_in_)
    pre = getattr(est, "_preprocessor", None)
    if pre is None:
        return list(range(n)), [None] * n
    mask = np.asarray(est.is_categorical_, dtype=bool)
    if mask.shape != (n,):
        raise inconsistent("is_categorical_ does not match the features")
    cat = np.flatnonzero(mask).tolist()
    order = cat + np.flatnonzero(~mask).tolist()
    encoder = pre.named_transformers_["encoder"]
    categories: list[tuple[object, ...] | None] = [None] * n
    for j, cats in zip(cat, encoder.categories_, strict=True):
        values = list(np.asarray(cats, dtype=object))
        if values and isinstance(values[-1], float) and np.isnan(values[-1]):
            values = values[:-1]  # the encoder's NaN category: missing, as the bin mapper has it
        categories[j] = tuple(values)
    return order, categories


def _bitset(words: Any) -> tuple[int, ...]:
    bits = np.asarray(words, dtype=np.uint32)
    return tuple(c for c in range(32 * _BITSET_WORDS) if (int(bits[c // 32]) >> (c % 32)) & 1)


def _tree(
    predictor: Any,
    order: list[int],
    n_known: list[int],
    values: dict[int, int],
    rows: list[tuple[float, ...]],
    output: int,
    where: str,
) -> Tree:
    """One predictor (``_predictors[i][k]``, named so as ``where`` in an error, with the
    node) as a Tree in pre-order."""
    nodes = predictor.nodes
    n = len(nodes)
    raw_bitsets = np.asarray(predictor.raw_left_cat_bitsets)

    def children(i: int) -> tuple[int, int] | None:
        if nodes["is_leaf"][i]:
            return None
        pair = int(nodes["left"][i]), int(nodes["right"][i])
        if not all(0 <= c < n for c in pair):
            raise inconsistent(f"{where}: node {i}'s children are out of range")
        return pair

    pre = walk(0, children, lambda i: inconsistent(f"{where}: node {i} is reached twice"))
    cols = Columns(pre)
    for old in pre:
        node = nodes[old]
        if node["is_leaf"]:
            v = float(node["value"])
            if not np.isfinite(v):
                raise inconsistent(f"{where}: node {old}'s leaf value is not finite")
            cols.leaf(intern(values, rows, int(np.float64(v).view(np.int64)), v))
            continue
        idx = int(node["feature_idx"])
        if not 0 <= idx < len(order):
            raise inconsistent(f"{where}: node {old} tests feature {idx} of {len(order)}")
        feature = order[idx]
        is_cat = bool(node["is_categorical"])
        left_codes: tuple[int, ...] | None = None
        if is_cat:
            b = int(node["bitset_idx"])
            if not 0 <= b < len(raw_bitsets) or n_known[feature] < 0:
                raise inconsistent(
                    f"{where}: node {old} is a categorical split without its bitset or categories"
                )
            left_codes = tuple(c for c in _bitset(raw_bitsets[b]) if c < n_known[feature])
        thr = float(node["num_threshold"])
        if np.isnan(thr) and not is_cat:
            raise inconsistent(f"{where}: node {old}'s threshold is NaN")
        cols.split(feature, int(node["left"]), int(node["right"]),
                   bool(node["missing_go_to_left"]), thr, left_codes)  # fmt: skip
    return cols.tree(output)


def hist_from_sklearn(
    est: Any, names: Sequence[str], target: str, outputs: tuple[str, ...] | None = None
) -> Ensemble:
    """A fitted HistGradientBoostingClassifier as an Ensemble (module docstring), its
    columns named ``names`` (one per feature, checked) and its class column ``target``;
    with ``outputs`` (their names) a HistGradientBoostingRegressor, whose raw scores are
    its prediction (treegen.ensemble.regress)."""
    n = int(est.n_features_in_)
    order, categories = _columns(est)
    attrs = []
    raw_tables: list[tuple[float, ...]] = []
    n_known = [-1] * n
    for j, name in enumerate(names):
        cats = categories[j]
        if cats is None:
            attrs.append(Attribute(name, "continuous"))
            raw_tables.append(())
            continue
        n_known[j] = len(cats)
        if all(isinstance(c, int | float | np.integer | np.floating) for c in cats):
            attrs.append(Attribute(name, "continuous"))  # the input is the raw value
            raw_tables.append(tuple(float(c) for c in cats))  # type: ignore[arg-type]
        else:
            attrs.append(Attribute(name, "nominal", tuple(str(c) for c in cats)))
            raw_tables.append(())  # the input is the code
    classes_ = np.asarray(est.classes_ if outputs is None else outputs)
    classes = label_names(classes_.tolist(), "estimator")
    if len(set(classes)) != len(classes):
        raise UsageError("class labels must differ as text", option="estimator")
    if outputs is None and len(classes) < 2:
        # Its one raw score is a binary decision's (class 1 where it is above 0), which
        # one class cannot take; GradientBoostingClassifier refuses to fit on one.
        raise UsageError(
            f"{a_name(type(est).__name__)} fitted on one class ({classes[0]}) is not exported: "
            "its decision is between two classes",
            option="estimator",
        )
    schema = Schema(tuple(attrs), classes, target)
    baseline = np.zeros(1, dtype=np.float64) + np.asarray(est._baseline_prediction)[0]
    k = len(baseline)
    if not np.isfinite(baseline).all():
        # Targets near the largest double overflow their mean: every prediction is then
        # inf or NaN, which the model file and the C's constants do not hold.
        raise UsageError(
            f"the {type(est).__name__}'s baseline prediction is "
            f"{float(baseline[~np.isfinite(baseline)][0])!r}, not a finite number (its "
            "targets overflow): not exported",
            option="estimator",
        )
    values: dict[int, int] = {}
    rows: list[tuple[float, ...]] = []
    trees = []
    for i, iteration in enumerate(est._predictors):
        if len(iteration) != k:
            raise inconsistent(f"_predictors[{i}] has {len(iteration)} trees for {k} outputs")
        for out, predictor in enumerate(iteration):
            where = f"_predictors[{i}][{out}]"
            trees.append(_tree(predictor, order, n_known, values, rows, out, where))
    if not trees:
        raise inconsistent("it has no trees")
    options: dict[str, object] = {"source": f"sklearn {type(est).__name__}"}
    if outputs is None and label_kind(classes_) != "str":
        options["labels"] = label_kind(classes_)
    return Ensemble(
        schema=schema,
        method="hist",
        trees=tuple(trees),
        values=tuple(rows),
        init=tuple(float(v) for v in baseline),
        divisor=None,
        decision="value" if outputs is not None else "gt0" if k == 1 else "argmax",
        compare="float64",
        categories=tuple(raw_tables) if any(raw_tables) else (),
        options=options,
    )

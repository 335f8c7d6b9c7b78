"""Fitted scikit-learn ensembles read into an :class:`~treegen.ensemble.core.Ensemble`.

scikit-learn is not imported: the estimator is read through its attributes (the trees'
``tree_`` arrays, HistGradientBoosting's predictors), which scikit-learn 1.x keeps stable
(tests/ensemble/test_sklearn_parity.py holds every import against ``estimator.predict``
on the installed version).  Each estimator's arithmetic is in docs/ensembles.md; here
its constants are taken exactly as scikit-learn uses them: the leaves' float64 values
(a forest tree's class fractions, ``learning_rate * value`` for a boosting stage, which
scikit-learn computes per row as the same IEEE product), the initial raw scores, the
divisor (``len(estimators_)``, ``estimator_weights_.sum()`` computed by numpy here as
there).  Each member's ``tree_`` is read, renumbered into pre-order and checked by
:mod:`treegen.ensemble.sktree`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from treegen.data.arrays import label_kind, label_names
from treegen.data.dataset import Attribute, Schema
from treegen.ensemble.core import Decision, Ensemble, Method, Tree
from treegen.ensemble.sklearn_hist import hist_from_sklearn
from treegen.ensemble.sktree import (
    LeafValues,
    feature_names_of,
    inconsistent,
    read_tree,
    source_options,
)
from treegen.errors import UsageError, a_name

SUPPORTED = (
    "DecisionTreeClassifier",
    "ExtraTreeClassifier",
    "RandomForestClassifier",
    "ExtraTreesClassifier",
    "GradientBoostingClassifier",
    "HistGradientBoostingClassifier",
    "AdaBoostClassifier",
)
"""The estimators :func:`ensemble_from_sklearn` reads (docs/ensembles.md): a single tree
is read as an ensemble of one, so NaN goes where ``estimator.predict`` sends it."""


def _schema(estimator: Any, feature_names: Sequence[str] | None, target: str) -> Schema:
    names = feature_names_of(estimator, feature_names, target)
    classes = label_names(np.asarray(estimator.classes_).tolist(), "estimator")
    if len(set(classes)) != len(classes):
        raise UsageError("class labels must differ as text", option="estimator")
    return Schema(tuple(Attribute(a, "continuous") for a in names), classes, target)


def _members(est: Any) -> list[Any]:
    """The trees of a forest, or a single tree as a forest of one."""
    return [est] if type(est).__name__ in _SINGLE else list(est.estimators_)


_SINGLE = ("DecisionTreeClassifier", "ExtraTreeClassifier")


def _forest(
    est: Any, schema: Schema
) -> tuple[list[Tree], LeafValues, tuple[float, ...], float | None]:
    k = len(schema.classes)
    values = LeafValues()
    trees = []
    # Only a single tree's inline top reads the nodes' weights: a forest's file stays small.
    single = type(est).__name__ in _SINGLE
    for i, member in enumerate(_members(est)):
        value = np.asarray(member.tree_.value, dtype=np.float64)
        if value.ndim != 3 or value.shape[1] != 1 or value.shape[2] != k:
            if not single and value.ndim == 3 and value.shape[1] == 1:
                # warm_start keeps the trees of an earlier fit: fitted again on other labels,
                # the old trees vote for another number of classes, and scikit-learn's own
                # predict fails on the forest (operands could not be broadcast together).
                raise UsageError(
                    f"tree {i} of the {type(est).__name__} was fitted on {value.shape[2]} "
                    f"classes and the forest has {k}: its trees come from fits on other labels "
                    "(warm_start), and scikit-learn's own predict fails on it; fit it again "
                    "without warm_start",
                    option="estimator",
                )
            raise inconsistent(
                f"{'tree_' if single else f'estimators_[{i}].tree_'}.value: not {k} class "
                "fractions per node"
            )
        trees.append(
            read_tree(
                member.tree_,
                len(schema.attributes),
                lambda i, v=value: v[i, 0, :k],
                values,
                weighted=single,
                where="tree_" if single else f"estimators_[{i}].tree_",
            )
        )
    # A single tree's predict_proba is its leaf value itself: no division.
    divisor = None if single else float(len(est.estimators_))
    return trees, values, (0.0,) * k, divisor


_CONSTANT_INITS = tuple(
    f"DummyClassifier(strategy={s!r})" for s in ("prior", "most_frequent", "uniform", "constant")
)
"""GradientBoostingClassifier inits whose predict_proba does not depend on X ('stratified'
draws a class per row)."""


def _boosting(est: Any, schema: Schema) -> tuple[list[Tree], LeafValues, tuple[float, ...]]:
    stages = np.asarray(est.estimators_, dtype=object)
    k = stages.shape[1]
    rate = float(est.learning_rate)
    if not np.isfinite(rate):  # else every leaf's value times it was "not finite"
        raise inconsistent(f"learning_rate {rate!r} is not a finite number")
    init_ = est.init_
    if isinstance(init_, str):
        if init_ != "zero":
            raise inconsistent(f"init_ {init_!r}")
        init = (0.0,) * k
    else:
        what = type(init_).__name__
        if what == "DummyClassifier":
            what += f"(strategy={getattr(init_, 'strategy', '')!r})"
        if what not in _CONSTANT_INITS:
            raise UsageError(
                f"a GradientBoostingClassifier whose init is a {what} cannot be exported: "
                "its raw score depends on X (or is drawn at random); use the default init "
                "(the class prior), a DummyClassifier of a constant strategy or init='zero'",
                option="estimator",
            )
        # The init's raw score, as scikit-learn computes it (the link of predict_proba,
        # which for these strategies is the same row whatever X is).
        zero = np.zeros((1, len(schema.attributes)), dtype=np.float32)
        init = tuple(float(v) for v in np.asarray(est._raw_predict_init(zero))[0])
    values = LeafValues()
    trees = []
    for s, stage in enumerate(stages):
        for out, member in enumerate(stage):
            value = np.asarray(member.tree_.value, dtype=np.float64)
            # scikit-learn adds scale * value[node] per row: the same product, once.
            trees.append(
                read_tree(
                    member.tree_,
                    len(schema.attributes),
                    lambda i, v=value: [np.float64(rate) * v[i, 0, 0]],
                    values,
                    out,
                    where=f"estimators_[{s}, {out}].tree_",
                )
            )
    return trees, values, init


def _adaboost(est: Any, schema: Schema) -> tuple[list[Tree], LeafValues, float]:
    k = len(schema.classes)
    algorithm = getattr(est, "algorithm", "SAMME")
    if algorithm not in ("SAMME", "deprecated"):
        raise UsageError(
            f"AdaBoost's {algorithm} algorithm is not exported (only SAMME)", option="estimator"
        )
    weights = np.asarray(est.estimator_weights_, dtype=np.float64)
    bad_weights = np.flatnonzero(~np.isfinite(weights))
    if bad_weights.size:  # else every leaf's vote was "not finite"
        raise inconsistent(f"estimator_weights_[{int(bad_weights[0])}] is not finite")
    values = LeafValues()
    trees = []
    for t, (member, w) in enumerate(zip(est.estimators_, weights, strict=False)):
        where = f"estimators_[{t}].tree_"
        if type(member).__name__ not in ("DecisionTreeClassifier", "ExtraTreeClassifier"):
            raise UsageError(
                f"AdaBoost of {type(member).__name__} is not exported (only of trees)",
                option="estimator",
            )
        value = np.asarray(member.tree_.value, dtype=np.float64)
        if k == 1:
            # One class: decision_function returns zeros before any vote (+0.0 / w is +0.0).
            trees.append(
                read_tree(
                    member.tree_, len(schema.attributes), lambda i: [0.0], values, where=where
                )
            )
            continue
        other = np.float64(-1 / (k - 1)) * w  # decision_function's -1 / (n_classes - 1) * w
        # The tree's class is the first largest value; its vote: w there, other elsewhere.
        trees.append(
            read_tree(
                member.tree_,
                len(schema.attributes),
                lambda i, v=value, w=w, o=other: np.where(
                    np.arange(k) == int(np.argmax(v[i, 0, :k])), w, o
                ),
                values,
                where=where,
            )
        )
    return trees, values, float(weights.sum())


def ensemble_from_sklearn(
    estimator: Any, feature_names: Sequence[str] | None = None, target: str = "class"
) -> Ensemble:
    """A fitted scikit-learn ensemble (one of :data:`SUPPORTED`) as an Ensemble."""
    name = type(estimator).__name__
    if name not in SUPPORTED:
        raise UsageError(
            f"cannot import {a_name(name)}: treegen reads a fitted {', '.join(SUPPORTED)}",
            option="estimator",
        )
    if not hasattr(estimator, "n_features_in_") or not hasattr(estimator, "classes_"):
        raise UsageError(f"the {name} is not fitted", option="estimator")
    n_out = int(getattr(estimator, "n_outputs_", 1))
    if n_out != 1:
        raise UsageError(
            f"{a_name(name)} of {n_out} outputs is not exported: a classifier is read with one "
            "class column (fit one estimator per output)",
            option="estimator",
        )
    if name == "HistGradientBoostingClassifier":
        return hist_from_sklearn(
            estimator, feature_names_of(estimator, feature_names, target), target
        )
    schema = _schema(estimator, feature_names, target)
    k = len(schema.classes)
    method: Method
    decision: Decision = "argmax"
    divisor: float | None = None
    if name in ("RandomForestClassifier", "ExtraTreesClassifier", *_SINGLE):
        trees, values, init, divisor = _forest(estimator, schema)
        method = "forest"
    elif name == "GradientBoostingClassifier":
        trees, values, init = _boosting(estimator, schema)
        method = "boosting"
        decision = "ge0" if len(init) == 1 else "argmax"
    else:
        trees, values, divisor = _adaboost(estimator, schema)
        init = (0.0,) * k
        method = "adaboost"
        decision = "diff" if k == 2 else "argmax"
    if not trees:
        raise inconsistent("it has no trees")
    options = source_options(estimator)
    if (
        method == "boosting"
        and len(init) == 1
        and getattr(estimator, "loss", None) == "exponential"
    ):
        # The exponential loss's predict_proba is expit(2 * raw) (AdaBoost's link): the
        # class (raw >= 0) is the same, the probabilities are not expit(raw)'s.
        options["sigmoid"] = 2.0
    kind = label_kind(np.asarray(estimator.classes_))
    if kind != "str":
        options["labels"] = kind
    return Ensemble(
        schema=schema,
        method=method,
        trees=tuple(trees),
        values=tuple(values.rows),
        init=init,
        divisor=divisor,
        decision=decision,
        compare="float32",
        options=options,
    )

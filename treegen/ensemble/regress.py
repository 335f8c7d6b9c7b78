"""Fitted scikit-learn regressors read into an :class:`~treegen.ensemble.core.Ensemble`.

A regressor is the ensemble computation of treegen.ensemble.core with the decision
``value``: the float64 outputs are the prediction.  Each estimator's ``predict``, as
scikit-learn 1.x computes it (docs/regression.md), and the constants taken here:

* ``DecisionTreeRegressor``/``ExtraTreeRegressor``: the reached leaf's ``value`` itself,
  no arithmetic.  Here the sum starts at ``-0.0``, the one float64 whose sum with any
  value is that value (``+0.0 + -0.0`` would be ``+0.0``), so the C adds and returns
  the leaf value unchanged.
* ``RandomForestRegressor``/``ExtraTreesRegressor``: ``y = zeros; y += tree.predict(X)``
  for every tree in ``estimators_`` order (``n_jobs=None``: one thread, that order),
  then ``y /= len(estimators_)``: a start at ``+0.0``, one addition per tree, one
  division.
* ``GradientBoostingRegressor``: ``raw = init`` (the init estimator's constant
  prediction through the loss's identity link, computed here by scikit-learn itself on
  a row of zeros: a ``DummyRegressor`` does not read X), then per stage
  ``raw += learning_rate * leaf value`` (the product rounded, then the sum).
* ``HistGradientBoostingRegressor``: ``raw = zeros + baseline``, then per iteration
  ``raw += leaf value`` (its leaves hold the learning rate already), then the loss's
  inverse link, which must be the identity (squared, absolute, quantile loss; the
  ``exp`` of the Poisson and gamma losses is refused).

Multi-output trees and forests (``n_outputs_ > 1``) add a whole row per leaf, one
addition per output in the same order.  Regression targets have no classes: the
schema's ``classes`` name the outputs (``target``, or ``target[k]`` for several).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from treegen.data.dataset import Attribute, Schema
from treegen.ensemble import sktree
from treegen.ensemble.core import Ensemble, Method, Tree
from treegen.ensemble.isolation import isolation_from_sklearn
from treegen.ensemble.sklearn import SUPPORTED, ensemble_from_sklearn
from treegen.ensemble.sklearn_hist import hist_from_sklearn
from treegen.ensemble.sktree import LeafValues, feature_names_of, inconsistent, read_tree
from treegen.errors import UsageError, a_name

REGRESSORS = (
    "DecisionTreeRegressor",
    "ExtraTreeRegressor",
    "RandomForestRegressor",
    "ExtraTreesRegressor",
    "GradientBoostingRegressor",
    "HistGradientBoostingRegressor",
)
"""The regressors :func:`regressor_from_sklearn` reads."""

ALL_SUPPORTED = (*SUPPORTED, *REGRESSORS, "IsolationForest")
"""Every estimator treegen imports: the classifiers, the regressors, IsolationForest
(treegen.ensemble.isolation)."""

_SINGLE = ("DecisionTreeRegressor", "ExtraTreeRegressor")
_FORESTS = ("RandomForestRegressor", "ExtraTreesRegressor")


def output_names(target: str, n_outputs: int) -> tuple[str, ...]:
    """What a regressor's schema calls its outputs (in place of classes)."""
    return (target,) if n_outputs == 1 else tuple(f"{target}[{k}]" for k in range(n_outputs))


def _schema(est: Any, feature_names: Sequence[str] | None, target: str, n_out: int) -> Schema:
    names = feature_names_of(est, feature_names, target)
    return Schema(
        tuple(Attribute(a, "continuous") for a in names), output_names(target, n_out), target
    )


def _members(est: Any) -> list[Any]:
    return [est] if type(est).__name__ in _SINGLE else list(est.estimators_)


def _forest(est: Any, n_features: int, n_out: int) -> tuple[list[Tree], LeafValues]:
    """Every tree's leaves as rows of ``n_out`` float64 values (``tree_.value[node, :, 0]``)."""
    values = LeafValues()
    trees = []
    members = _members(est)
    for t, member in enumerate(members):
        where = "tree_" if members == [est] else f"estimators_[{t}].tree_"
        value = np.asarray(member.tree_.value, dtype=np.float64)
        if value.ndim != 3 or value.shape[1] != n_out or value.shape[2] != 1:
            raise inconsistent(f"{where}.value: not {n_out} outputs per node")
        trees.append(
            read_tree(member.tree_, n_features, lambda i, v=value: v[i, :, 0], values, where=where)
        )
    return trees, values


def _boosting(est: Any, n_features: int) -> tuple[list[Tree], LeafValues, tuple[float, ...]]:
    stages = np.asarray(est.estimators_, dtype=object)
    if stages.ndim != 2 or stages.shape[1] != 1:
        raise inconsistent("a regressor's stages have one tree each")
    rate = np.float64(est.learning_rate)
    if not np.isfinite(rate):  # else every leaf's value times it was "not finite"
        raise inconsistent(f"learning_rate {float(rate)!r} is not a finite number")
    init_ = est.init_
    if isinstance(init_, str):
        if init_ != "zero":
            raise inconsistent(f"init_ {init_!r}")
        init: tuple[float, ...] = (0.0,)
    else:
        if type(init_).__name__ != "DummyRegressor":
            raise UsageError(
                "a GradientBoostingRegressor whose init estimator depends on X cannot be "
                "exported: use the default init (a DummyRegressor) or init='zero'",
                option="estimator",
            )
        # The constant raw score, as scikit-learn computes it (a DummyRegressor does not
        # read X; the regression losses' link is the identity).
        zero = np.zeros((1, n_features), dtype=np.float32)
        raw = np.asarray(est._raw_predict_init(zero), dtype=np.float64)
        if raw.shape != (1, 1):
            raise inconsistent(f"the initial raw prediction has shape {raw.shape}")
        init = (float(raw[0, 0]),)
    values = LeafValues()
    trees = []
    for s, (member,) in enumerate(stages):
        where = f"estimators_[{s}, 0].tree_"
        value = np.asarray(member.tree_.value, dtype=np.float64)
        if value.ndim != 3 or value.shape[1:] != (1, 1):
            raise inconsistent(f"{where}.value: more than one value per node")
        # predict_stages adds scale * value[node] per row: the same product, once.
        trees.append(
            read_tree(
                member.tree_,
                n_features,
                lambda i, v=value: [rate * v[i, 0, 0]],
                values,
                0,
                where=where,
            )
        )
    return trees, values, init


def regressor_from_sklearn(
    estimator: Any, feature_names: Sequence[str] | None = None, target: str = "class"
) -> Ensemble:
    """A fitted scikit-learn regressor (one of :data:`REGRESSORS`) as an Ensemble whose
    outputs are ``estimator.predict`` (module docstring)."""
    name = type(estimator).__name__
    if name not in REGRESSORS:
        raise UsageError(
            f"cannot import {a_name(name)} as a regressor: treegen reads a fitted "
            f"{', '.join(REGRESSORS)}",
            option="estimator",
        )
    if not hasattr(estimator, "n_features_in_"):
        raise UsageError(f"the {name} is not fitted", option="estimator")
    n_out = int(getattr(estimator, "n_outputs_", 1))
    if name == "HistGradientBoostingRegressor":
        link = type(getattr(getattr(estimator, "_loss", None), "link", None)).__name__
        if link != "IdentityLink":
            raise UsageError(
                f"a HistGradientBoostingRegressor with loss {estimator.loss!r} predicts "
                "exp of its raw score, which C without libm does not compute bit for bit: "
                "only the identity-link losses (squared_error, absolute_error, quantile) "
                "are exported",
                option="estimator",
            )
        names = feature_names_of(estimator, feature_names, target)
        return hist_from_sklearn(estimator, names, target, outputs=output_names(target, 1))
    n = int(estimator.n_features_in_)
    method: Method
    divisor: float | None = None
    if name in _SINGLE + _FORESTS:
        trees, values = _forest(estimator, n, n_out)
        method = "forest"
        if name in _SINGLE:
            init = (-0.0,) * n_out  # the leaf value itself: -0.0 + v is v, bit for bit
        else:
            init = (0.0,) * n_out
            divisor = float(len(estimator.estimators_))
    else:
        if n_out != 1:
            raise inconsistent("a GradientBoostingRegressor has one output")
        trees, values, init = _boosting(estimator, n)
        method = "boosting"
    if not trees:
        raise inconsistent("it has no trees")
    return Ensemble(
        schema=_schema(estimator, feature_names, target, n_out),
        method=method,
        trees=tuple(trees),
        values=tuple(values.rows),
        init=init,
        divisor=divisor,
        decision="value",
        compare="float32",
        options=sktree.source_options(estimator),
    )


def from_estimator(
    estimator: Any, feature_names: Sequence[str] | None = None, target: str = "class"
) -> Ensemble:
    """Any estimator of :data:`ALL_SUPPORTED`: a classifier, a regressor or an
    IsolationForest."""
    name = type(estimator).__name__
    if name in REGRESSORS:
        return regressor_from_sklearn(estimator, feature_names, target)
    if name == "IsolationForest":
        return isolation_from_sklearn(estimator, feature_names, target)
    if name not in SUPPORTED:
        raise UsageError(
            f"cannot import {a_name(name)}: treegen reads a fitted {', '.join(ALL_SUPPORTED)}",
            option="estimator",
        )
    return ensemble_from_sklearn(estimator, feature_names, target)

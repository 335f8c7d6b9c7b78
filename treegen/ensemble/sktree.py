"""One fitted scikit-learn tree read and checked into a :class:`~treegen.ensemble.core.Tree`.

Every scikit-learn importer (the classifiers' ensembles, the regressors,
IsolationForest) reads its trees here: a ``Tree`` (``estimator.tree_``) renumbered into
pre-order, each array checked first (a pickle is any bytes, and scikit-learn does not
check them on unpickling), each error naming the tree's place in the estimator and the
node; the leaves' value rows stored once each (:class:`LeafValues`); the columns'
names (:func:`feature_names_of`); the first options of a tree or forest's ensemble
(:func:`source_options`: its source, and the values its predict refuses); and the
error every scikit-learn importer raises for attributes that are not as scikit-learn
makes them (:func:`inconsistent`), the histogram trees' importer included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.data.arrays import check_import_names
from treegen.ensemble.core import INF_REFUSED_OPTION, LEAF, NAN_REFUSED_OPTION, Tree
from treegen.errors import UsageError

_TREE_LEAF = -1  # scikit-learn's children_left of a leaf


def source_options(estimator: Any) -> dict[str, object]:
    """An imported tree's, forest's, GradientBoosting's or AdaBoost's first ensemble
    options: its ``source``; :data:`INF_REFUSED_OPTION`, as each of their ``predict``
    reads X as finite float32; and :data:`NAN_REFUSED_OPTION` where it is a single tree
    whose ``predict`` raises on NaN: scikit-learn 1.9's ExtraTree classifier and
    regressor take NaN only with their default ``splitter="random"`` (their
    ``allow_nan`` tag, which ``_support_missing_values`` reads); a DecisionTree takes it
    with either splitter, and a forest as its first tree does (an extra tree's splitter
    there is "random")."""
    name = type(estimator).__name__
    options: dict[str, object] = {"source": f"sklearn {name}", INF_REFUSED_OPTION: "refused"}
    if name in ("ExtraTreeClassifier", "ExtraTreeRegressor") and (
        getattr(estimator, "splitter", "random") != "random"
    ):
        options[NAN_REFUSED_OPTION] = "refused"
    return options


def inconsistent(msg: str) -> UsageError:
    """An error naming what in a fitted estimator's attributes is not as scikit-learn makes it."""
    return UsageError(f"the estimator is inconsistent: {msg}", option="estimator")


class LeafValues:
    """The ensemble's leaf value rows, each distinct row stored once."""

    def __init__(self) -> None:
        self.rows: list[tuple[float, ...]] = []
        self.index: dict[tuple[int, ...], int] = {}

    def add(self, row: Sequence[float]) -> int:
        # Keyed by the bits: -0.0 and 0.0 (and NaN payloads) stay apart.
        floats = tuple(float(v) for v in row)
        key = tuple(np.asarray(floats, dtype=np.float64).view(np.int64).tolist())
        if key not in self.index:
            self.index[key] = len(self.rows)
            self.rows.append(floats)
        return self.index[key]


def _preorder(
    left: npt.NDArray[np.intp],
    right: npt.NDArray[np.intp],
    n_features: int,
    feature: npt.NDArray[np.intp],
    where: str = "tree_",
) -> list[int]:
    """The nodes of one tree in pre-order (left subtree first), checking that every child
    is in range and no node is reached twice (no cycle, no shared child); an error names
    the tree as ``where`` (:func:`read_tree`)."""
    n = len(left)
    seen = np.zeros(n, dtype=bool)
    order: list[int] = []
    stack = [0]
    while stack:
        i = stack.pop()
        if not 0 <= i < n:
            raise inconsistent(f"{where}: a child {i} of {n} nodes")
        if seen[i]:
            raise inconsistent(f"{where}: node {i} is reached twice (a cycle, or a shared child)")
        seen[i] = True
        order.append(i)
        if left[i] == _TREE_LEAF:
            continue
        if not 0 <= feature[i] < n_features:
            raise inconsistent(f"{where}.feature[{i}] is {feature[i]}, of {n_features} features")
        stack.append(int(right[i]))
        stack.append(int(left[i]))
    return order


def read_tree(
    sk_tree: Any,
    n_features: int,
    leaf_row: Any,
    values: LeafValues,
    output: int = -1,
    weighted: bool = False,
    where: str = "tree_",
) -> Tree:
    """A scikit-learn ``Tree`` (``estimator.tree_``) in pre-order; ``leaf_row(node)`` is a
    leaf's value row (float64 numbers).  ``weighted``: keep each node's training weight
    (``weighted_n_node_samples``), which a single tree's inline top is chosen by.
    ``where`` is the tree's place in the estimator (``estimators_[3, 0].tree_``), which
    an error names with the node, as the XGBoost and LightGBM readers name theirs."""
    left = np.asarray(sk_tree.children_left, dtype=np.intp)
    right = np.asarray(sk_tree.children_right, dtype=np.intp)
    feature = np.asarray(sk_tree.feature, dtype=np.intp)
    threshold = np.asarray(sk_tree.threshold, dtype=np.float64)
    n = len(left)
    if n == 0 or any(len(a) != n for a in (right, feature, threshold)):
        raise inconsistent(f"{where}: its node arrays differ in length")
    nan_left_arr = getattr(sk_tree, "missing_go_to_left", None)
    nan_left = (
        np.zeros(n, dtype=bool) if nan_left_arr is None else np.asarray(nan_left_arr, dtype=bool)
    )
    order = _preorder(left, right, n_features, feature, where)
    new = {old: k for k, old in enumerate(order)}
    f: list[int] = []
    t: list[float] = []
    lft: list[int] = []
    rgt: list[int] = []
    nl: list[bool] = []
    val: list[int] = []
    for old in order:
        if left[old] == _TREE_LEAF:
            f.append(LEAF)
            t.append(0.0)
            lft.append(LEAF)
            rgt.append(LEAF)
            nl.append(False)
            row = leaf_row(old)
            if not all(np.isfinite(row)):
                raise inconsistent(f"{where}.value[{old}] (a leaf's value) is not finite")
            val.append(values.add(row))
            continue
        if np.isnan(threshold[old]):
            raise inconsistent(f"{where}.threshold[{old}] is NaN")
        f.append(int(feature[old]))
        t.append(float(threshold[old]))
        lft.append(new[int(left[old])])
        rgt.append(new[int(right[old])])
        nl.append(bool(nan_left[old]))
        val.append(-1)
    weight: tuple[float, ...] = ()
    if weighted:
        w = np.asarray(sk_tree.weighted_n_node_samples, dtype=np.float64)
        if len(w) != n or not np.all(np.isfinite(w) & (w >= 0)):
            raise inconsistent(
                f"{where}.weighted_n_node_samples: not one finite, non-negative number per node"
            )
        weight = tuple(float(w[old]) for old in order)
    return Tree(
        tuple(f),
        tuple(t),
        tuple(lft),
        tuple(rgt),
        tuple(nl),
        (False,) * len(f),
        ((),) * len(f),
        tuple(val),
        output,
        weight=weight,
    )


def feature_names_of(estimator: Any, feature_names: Sequence[str] | None, target: str) -> list[str]:
    """The columns' names: ``feature_names``, else the estimator's ``feature_names_in_``,
    else x0, x1, ...; distinct, and none of them the class column ``target``."""
    n = int(estimator.n_features_in_)
    check_import_names(feature_names, target)
    given = getattr(estimator, "feature_names_in_", None)
    names = [
        str(x)
        for x in (
            feature_names
            if feature_names is not None
            else (given if given is not None else [f"x{j}" for j in range(n)])
        )
    ]
    if len(names) != n or len(set(names)) != n:
        raise UsageError(f"feature_names must be {n} distinct names", option="feature_names")
    if not target.strip() or target in names:
        raise UsageError(
            f"'{target}' cannot name the class column: "
            + ("it is a feature's name" if target.strip() else "it is empty"),
            option="target",
        )
    return names

"""A fitted scikit-learn decision tree as a treegen :class:`~treegen.api.Model`.

scikit-learn is never imported here: the estimator is read through its public
attributes (``tree_``, ``classes_``, ``n_features_in_``, ``feature_names_in_``), so
this module costs nothing at run time and works with whichever scikit-learn made
the object.

Known values are mapped exactly.  scikit-learn casts X to float32 and tests
``float32(x) <= t`` with ``t`` a double (midway between two float32 training
values, so usually not a float32 itself).  A treegen ``c45`` model tests
``float32(x) <= t'`` with ``t'`` a float32; for every float32 ``v``,
``v <= t`` exactly when ``v <= t'`` with ``t'`` the largest float32 not above ``t``
(:func:`treegen.model.fixedpoint.float32_floor`).  Both sides round x to float32
the same way (to nearest, ties to even), so the imported model, its C and the
estimator take the same branch on every finite input.

Leaves: ``items`` is the node's training weight (``weighted_n_node_samples``) and
``dist`` its per-class weights.  scikit-learn's ``predict`` is the first class with
the largest ``value`` at the leaf; class weights that are whole numbers (no
``sample_weight``, or integer ones) are stored as the exact integers, so treegen's
first largest ``dist / items`` is the same class.

Missing values (NaN) are *not* routed as scikit-learn routes them
(``missing_go_to_left``, scikit-learn >= 1.3, sends NaN down one child): the model
keeps treegen's one missing-value rule, C4.5's (a NaN visits both children with
weights in proportion to their training weights), so ``treegen predict``,
``Model.predict`` and the exported C agree with each other on NaN but may differ from
``estimator.predict`` (which sends NaN down the learnt side, or for a tree trained
without NaN down the child with more samples).  C4.5's rule cannot express a
one-sided route: a zero share needs a child with no training weight, and that child
could then not share out a second missing value itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from treegen.api import Model
from treegen.data.arrays import label_kind
from treegen.data.dataset import Attribute, Schema
from treegen.errors import UsageError
from treegen.model import core
from treegen.model.core import Node
from treegen.model.fixedpoint import FLT_MAX, float32_floor
from treegen.model.version import VERSION

# scikit-learn marks a leaf with children_left == TREE_LEAF (-1).
_TREE_LEAF = -1
_SUPPORTED = ("DecisionTreeClassifier", "ExtraTreeClassifier")


def _whole(x: float) -> float:
    """x rounded to the nearest integer when it is one up to the rounding of
    ``fraction * weight`` (scikit-learn >= 1.4 stores class fractions), else x."""
    r = float(round(x))
    return r if abs(x - r) <= 1e-9 * max(1.0, abs(x)) else x


def _check_arrays(
    left: np.ndarray,
    right: np.ndarray,
    feature: np.ndarray,
    threshold: np.ndarray,
    weight: np.ndarray,
    value: np.ndarray,
    n_features: int,
    n_classes: int,
) -> None:
    """The estimator's tree arrays make one tree (every child index in range, no node
    reached twice, so no cycle), its tests name features it has, and its weights are
    finite and not negative: a pickle is any bytes, and scikit-learn does not check them
    on unpickling."""

    def bad(msg: str) -> UsageError:
        return UsageError(f"the estimator's tree is inconsistent: {msg}", option="estimator")

    n = len(left)
    if n == 0 or any(len(a) != n for a in (right, feature, threshold, weight, value)):
        raise bad("its node arrays differ in length")
    if value.shape[1] != n_classes:
        raise bad(f"{value.shape[1]} class weights per node for {n_classes} classes_")
    if not (np.all(np.isfinite(weight)) and np.all(weight >= 0)):
        raise bad("a node weight is negative or not finite")
    if not (np.all(np.isfinite(value)) and np.all(value >= 0)):
        raise bad("a class weight is negative or not finite")
    seen = np.zeros(n, dtype=bool)
    stack = [0]
    while stack:
        i = stack.pop()
        if seen[i]:
            raise bad(f"node {i} is reached twice (a cycle, or a shared child)")
        seen[i] = True
        if left[i] == _TREE_LEAF:
            continue
        if not 0 <= feature[i] < n_features:
            raise bad(f"node {i} tests feature {feature[i]} of {n_features}")
        for child in (left[i], right[i]):
            if not 0 <= child < n:
                raise bad(f"node {i} has child {child} of {n} nodes")
            stack.append(int(child))
    if np.any((value.sum(axis=1) <= 0) & (weight > 0)):
        raise bad("a node with weight has no class weight")


def from_sklearn(
    estimator: Any, feature_names: Sequence[str] | None = None, target: str = "class"
) -> Model:
    """The fitted ``DecisionTreeClassifier`` / ``ExtraTreeClassifier`` ``estimator``
    as a treegen model (module docstring: what is exact).  ``feature_names`` names
    the columns (default: the estimator's ``feature_names_in_``, else x0, x1...);
    ``target`` names the class column (the one ``eval`` reads labels from)."""
    name = type(estimator).__name__
    if name not in _SUPPORTED:
        raise UsageError(
            f"cannot import a {name}: only a fitted {' or '.join(_SUPPORTED)} (single-output)",
            option="estimator",
        )
    tree = getattr(estimator, "tree_", None)
    if tree is None:
        raise UsageError(f"the {name} is not fitted", option="estimator")
    if int(getattr(estimator, "n_outputs_", 1)) != 1:
        raise UsageError("multi-output trees cannot be imported", option="estimator")
    n_features = int(estimator.n_features_in_)
    if feature_names is None:
        given = getattr(estimator, "feature_names_in_", None)
        feature_names = (
            [str(f) for f in given] if given is not None else [f"x{i}" for i in range(n_features)]
        )
    names = [str(f) for f in feature_names]
    if len(names) != n_features or len(set(names)) != n_features:
        raise UsageError(
            f"feature_names must be {n_features} distinct names", option="feature_names"
        )
    if not target.strip() or target in names:
        raise UsageError(
            f"'{target}' cannot name the class column: "
            + ("it is a feature's name" if target.strip() else "it is empty"),
            option="target",
        )
    classes = np.asarray(estimator.classes_)
    labels = [str(c) for c in classes]
    if len(set(labels)) != len(labels):
        raise UsageError("class labels must differ as text", option="estimator")
    schema = Schema(tuple(Attribute(n, "continuous") for n in names), tuple(labels), target)

    left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
    feature, threshold = np.asarray(tree.feature), np.asarray(tree.threshold)
    weight = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)
    value = np.asarray(tree.value, dtype=np.float64)[:, 0, :]
    _check_arrays(left, right, feature, threshold, weight, value, n_features, len(labels))
    nodes: list[Node] = []
    # Pre-order walk without recursion: sklearn numbers nodes depth-first already, but
    # the mapping does not rely on it.
    stack = [(0, -1, -1)]
    children: dict[int, list[int]] = {}
    while stack:
        sk, parent, branch = stack.pop()
        me = len(nodes)
        w = float(weight[sk])
        v = np.asarray(value[sk], dtype=np.float64)
        # value is per-class weight (scikit-learn < 1.4) or its fraction (>= 1.4).
        total = float(v.sum())
        counts = v * (w / total) if total > 0 and not math.isclose(total, w) else v
        dist = tuple(_whole(float(c)) for c in counts)
        cls = int(np.argmax(v))
        if left[sk] == _TREE_LEAF:
            nodes.append(Node("leaf", cls, w, w - max(dist), dist))
        else:
            t = float(threshold[sk])
            if math.isnan(t) or t == -math.inf:
                raise UsageError(f"node {sk} has threshold {t}", option="estimator")
            # A tree trained with NaN may split "every value" from NaN with threshold
            # +inf; scikit-learn refuses infinite inputs, so every value it accepts
            # passes float32(x) <= FLT_MAX just as it passes x <= inf.
            t = min(t, FLT_MAX)
            nodes.append(
                Node(
                    "continuous",
                    cls,
                    w,
                    w - max(dist),
                    dist,
                    attribute=int(feature[sk]),
                    threshold=float32_floor(t),
                )
            )
            children[me] = [-1, -1]
            stack.append((int(right[sk]), me, 1))
            stack.append((int(left[sk]), me, 0))
        if parent >= 0:
            children[parent][branch] = me
    final = [
        n
        if n.is_leaf
        else Node(
            n.kind,
            n.cls,
            n.items,
            n.errors,
            n.dist,
            attribute=n.attribute,
            threshold=n.threshold,
            children=tuple(children[i]),
        )
        for i, n in enumerate(nodes)
    ]
    options: dict[str, object] = {"flavor": "c45", "prune": False, "source": f"sklearn {name}"}
    kind = label_kind(classes)
    if kind != "str":
        options["labels"] = kind
    return Model.of(core.Model(schema, tuple(final), options, VERSION, ""))

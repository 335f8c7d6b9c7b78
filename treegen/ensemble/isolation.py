"""A fitted scikit-learn ``IsolationForest`` read into an Ensemble, and its scores.

scikit-learn 1.9 computes, per row (``_compute_score_samples``):

1. ``depths = 0``; for every tree in ``estimators_`` order, the leaf the row reaches
   adds ``(node_depth[leaf] + average_path_length[leaf]) - 1.0`` (float64, in that
   order).  That term depends only on the leaf: here it is each leaf's value, computed
   at export from the fitted arrays with the same two operations, so the sum is the
   ensemble's float64 sum of leaf values (a tree that saw a subset of the features
   reads them through ``estimators_features_``);
2. ``score_samples = -(2 ** -(depths / denominator))`` with ``denominator = n_trees *
   c(max_samples)``, a constant; the power is numpy's (``np.power`` on the array: the C
   library's ``pow`` or, on a machine with AVX-512, numpy's own SIMD kernel, which
   differ in about 5% of values);
3. ``decision_function = score_samples - offset_``; ``predict`` is -1 where it is < 0.

The score falls as ``depths`` rises, so ``predict`` is ``depths >= boundary`` for one
float64 ``boundary``: the least sum whose decision_function is >= 0, found at export by
bisection on the bits of non-negative doubles, with the power computed as scikit-learn
computes it on this machine (numpy on an array), and checked to be monotone around it.
The C compares its exact sum with that constant: no libm, no power.  With
``--scores`` it also returns the scores, with glibc's power (treegen.ensemble.pow2):
:func:`glibc_scores` is that arithmetic in Python, the reference verify holds the C to.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Attribute, Schema
from treegen.ensemble import classify, pow2
from treegen.ensemble.core import LEAF, Anomaly, Ensemble
from treegen.ensemble.sktree import LeafValues, feature_names_of, inconsistent, read_tree
from treegen.errors import UsageError

_LANES = 64  # evaluate the power on arrays this long: numpy's vector kernel, as sklearn's


def scores_of(sums: npt.NDArray[np.float64], denominator: float) -> npt.NDArray[np.float64]:
    """``score_samples`` from the path-length sums, as scikit-learn computes it."""
    d = np.asarray(sums, dtype=np.float64)
    if denominator == 0:
        q = np.ones_like(d)
    else:
        q = np.divide(d, np.float64(denominator))
    out: npt.NDArray[np.float64] = -(2 ** (-q))
    return out


def _decision(sum_: float, denominator: float, offset: float) -> bool:
    """Whether a row with path-length sum ``sum_`` is an inlier (decision >= 0)."""
    s = scores_of(np.full(_LANES, sum_), denominator)
    d = s - np.float64(offset)
    return bool(d[0] >= 0)


def _as_bits(x: float) -> int:
    return int(np.float64(x).view(np.uint64))


def _from_bits(b: int) -> float:
    return float(np.uint64(b).view(np.float64))


def boundary(denominator: float, offset: float) -> float:
    """The least non-negative float64 sum that ``predict`` calls an inlier (+inf when
    none is); module docstring."""
    lo, hi = 0, _as_bits(math.inf)  # non-negative doubles are ordered as their bits
    if _decision(0.0, denominator, offset):
        return 0.0
    if not _decision(math.inf, denominator, offset):
        return math.inf
    while hi - lo > 1:  # invariant: lo is an outlier, hi an inlier
        mid = (lo + hi) // 2
        if _decision(_from_bits(mid), denominator, offset):
            hi = mid
        else:
            lo = mid
    # Monotone around it: the 256 sums below are outliers, the 256 above inliers.
    below = [_from_bits(b) for b in range(max(hi - 256, 0), hi)]
    above = [_from_bits(b) for b in range(hi, hi + 256)]
    dec = scores_of(np.asarray(below + above), denominator) - np.float64(offset) >= 0
    if dec[: len(below)].any() or not dec[len(below) :].all():
        raise UsageError(
            "the IsolationForest's score is not monotone near its offset on this machine: "
            "predict has no single boundary",
            option="estimator",
        )
    return _from_bits(hi)


def isolation_from_sklearn(
    est: Any, feature_names: Sequence[str] | None = None, target: str = "class"
) -> Ensemble:
    """A fitted IsolationForest as an Ensemble (module docstring): class 1 of (-1, 1)
    is an inlier."""
    if not hasattr(est, "offset_"):
        raise UsageError("the IsolationForest is not fitted", option="estimator")
    names = feature_names_of(est, feature_names, target)
    n = len(names)
    subsample = int(est._max_features) != n
    values = LeafValues()
    trees = []
    members = list(est.estimators_)
    depth_of = list(est._decision_path_lengths)
    apl_of = list(est._average_path_length_per_tree)
    features_of = list(est.estimators_features_)
    if not members or not len(members) == len(depth_of) == len(apl_of) == len(features_of):
        raise inconsistent("its trees and path-length arrays differ in number")
    for t, (member, depth, apl, feats) in enumerate(
        zip(members, depth_of, apl_of, features_of, strict=True)
    ):
        cols = [int(f) for f in feats] if subsample else list(range(n))
        if any(not 0 <= c < n for c in cols):
            raise inconsistent("a tree reads a feature out of range")
        # The term a leaf adds, as scikit-learn computes it per row.
        term = (np.asarray(depth)[:, None] + np.asarray(apl, dtype=np.float64)[:, None]) - 1.0
        tree = read_tree(
            member.tree_, len(cols), lambda i, v=term: v[i], values, where=f"estimators_[{t}].tree_"
        )
        trees.append(
            replace(tree, feature=tuple(f if f == LEAF else cols[f] for f in tree.feature))
        )
    denominator = float(np.float64(len(members)) * _average_path_length(int(est._max_samples)))
    offset = float(est.offset_)
    anomaly = Anomaly(denominator, offset, boundary(denominator, offset))
    return Ensemble(
        schema=Schema(tuple(Attribute(a, "continuous") for a in names), ("-1", "1"), target),
        method="forest",
        trees=tuple(trees),
        values=tuple(values.rows),
        init=(0.0,),
        divisor=None,
        decision="bound",
        compare="float32",
        options={"source": "sklearn IsolationForest", "labels": "int"},
        anomaly=anomaly,
    )


def _average_path_length(n: int) -> float:
    """scikit-learn's ``_average_path_length`` of one count (its numpy operations)."""
    if n <= 1:
        return 0.0
    if n == 2:
        return 1.0
    a = np.asarray([float(n)])
    out = 2.0 * (np.log(a - 1.0) + np.euler_gamma) - 2.0 * (a - 1.0) / a
    return float(out[0])


def sum_range(ens: Ensemble) -> tuple[float, float]:
    """The least positive path-length sum the forest can make and a bound on the
    largest: every leaf term is >= 0, so a nonzero sum is at least the least positive
    term, and at most the float64 sum of each tree's largest (rounding is monotone).
    NaN when a term is negative (no such bound)."""
    terms = [v for (v,) in ens.values]
    if not terms or min(terms) < 0:
        return math.nan, math.nan
    high = 0.0
    for tree in ens.trees:
        high += max(ens.values[tree.value[i]][0] for i in range(tree.n_nodes) if tree.is_leaf(i))
    return min((v for v in terms if v > 0), default=0.0), high


def glibc_scores(ens: Ensemble, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``score_samples`` and ``decision_function`` (n x 2) with glibc's ``pow`` (what
    ``math.pow`` gives on a glibc machine, and the exported C everywhere:
    treegen.ensemble.pow2), where :func:`score_samples` uses numpy's power."""
    if ens.anomaly is None:
        raise UsageError("not an IsolationForest", option="model")
    sums = classify.raw_scores(ens, X)[:, 0]
    out = np.empty((len(sums), 2), dtype=np.float64)
    memo: dict[float, float] = {}
    for i, s in enumerate(sums.tolist()):
        if s not in memo:
            memo[s] = pow2.score(s, ens.anomaly.denominator)
        out[i, 0] = memo[s]
    out[:, 1] = out[:, 0] - np.float64(ens.anomaly.offset)
    return out


def score_samples(ens: Ensemble, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """An imported IsolationForest's ``score_samples`` (numpy's power, as scikit-learn's)."""
    if ens.anomaly is None:
        raise UsageError("not an IsolationForest", option="model")
    return scores_of(classify.raw_scores(ens, X)[:, 0], ens.anomaly.denominator)


def decision_function(ens: Ensemble, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``score_samples - offset_``, as scikit-learn computes it."""
    if ens.anomaly is None:
        raise UsageError("not an IsolationForest", option="model")
    out: npt.NDArray[np.float64] = score_samples(ens, X) - np.float64(ens.anomaly.offset)
    return out

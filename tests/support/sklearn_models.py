"""Fitted scikit-learn estimators for the ensemble tests, and the rows they are checked on."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from treegen.ensemble.core import Ensemble
from treegen.ensemble.sklearn import ensemble_from_sklearn


def threshold_rows(
    X: npt.NDArray[np.float64], thresholds: dict[int, set[float]]
) -> npt.NDArray[np.float64]:
    """Rows of ``X`` with one feature moved to each threshold's neighbours: the float32
    values either side of it (two ulps) and the double itself."""
    base = X[: min(len(X), 5)]
    rows = []
    for f, ts in thresholds.items():
        for t in sorted(ts):
            t32 = np.float32(t) if np.isfinite(t) else np.float32(np.finfo(np.float32).max)
            near = [float(t32)]
            for s in (-1, 1):
                v = t32
                for _ in range(2):
                    v = np.nextafter(v, np.float32(s * np.inf))
                    near.append(float(v))
            if np.isfinite(t):
                near.append(float(t))
            for v in near:
                for b in base:
                    r = b.copy()
                    r[f] = v
                    rows.append(r)
    return np.asarray(rows, dtype=np.float64).reshape(-1, X.shape[1])


def sklearn_thresholds(est: Any) -> dict[int, set[float]]:
    """Every numeric threshold of every tree of ``est``, by feature."""
    out: dict[int, set[float]] = {}
    members: list[Any]
    name = type(est).__name__
    if name.startswith("HistGradientBoosting"):
        for it in est._predictors:
            for p in it:
                for node in p.nodes:
                    if not node["is_leaf"] and not node["is_categorical"]:
                        out.setdefault(int(node["feature_idx"]), set()).add(
                            float(node["num_threshold"])
                        )
        return out
    if name.startswith(("DecisionTree", "ExtraTree")) and not hasattr(est, "estimators_"):
        members = [est]
    else:
        members = list(np.asarray(est.estimators_, dtype=object).ravel())
    for m in members:
        t = m.tree_
        for i in np.flatnonzero(t.children_left >= 0):
            out.setdefault(int(t.feature[i]), set()).add(float(t.threshold[i]))
    return out


def with_nan(X: npt.NDArray[np.float64], rate: float, seed: int) -> npt.NDArray[np.float64]:
    rng = np.random.default_rng(seed)
    out = X.copy()
    out[rng.random(X.shape) < rate] = np.nan
    return out


def _data(seed: int = 0, n: int = 600) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [rng.normal(size=n), rng.integers(0, 6, n).astype(float), rng.uniform(-5, 5, n)]
    )
    y = ((X[:, 0] > 0) ^ np.isin(X[:, 1], [1, 4])).astype(int) + (X[:, 2] > 2)
    return X, y


def fit_setup(name: str) -> Ensemble:
    """One of :data:`NAMES`: a small fitted estimator on :func:`_data`, imported."""
    X, y = _data()
    Xn = with_nan(X, 0.1, 7)
    from sklearn.ensemble import (
        AdaBoostClassifier,
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.tree import DecisionTreeClassifier

    est: Any = {
        "tree": lambda: DecisionTreeClassifier(max_depth=6, random_state=0).fit(Xn, y),
        "forest": lambda: RandomForestClassifier(6, max_depth=6, random_state=0).fit(Xn, y),
        # Leaves of 300 and more cases: counts above 255 (16-bit count rows).
        "wide_forest": lambda: RandomForestClassifier(4, min_samples_leaf=120, random_state=0).fit(
            np.vstack([Xn] * 3), np.concatenate([y] * 3)
        ),
        # Trees that are one leaf each: no split at all.
        "leaf_forest": lambda: RandomForestClassifier(
            3, min_samples_split=100_000, random_state=0
        ).fit(Xn, y),
        "extra": lambda: ExtraTreesClassifier(6, max_depth=6, random_state=0).fit(Xn, y),
        # Fully grown trees (the default depth): every leaf one class, no count row.
        "pure_forest": lambda: RandomForestClassifier(4, random_state=0).fit(X, y),
        "boosting": lambda: GradientBoostingClassifier(
            n_estimators=6, max_depth=3, random_state=0
        ).fit(X, y),
        "binary_boosting": lambda: GradientBoostingClassifier(
            n_estimators=6, max_depth=3, random_state=0
        ).fit(X, y > 0),
        "hist": lambda: HistGradientBoostingClassifier(
            max_iter=6, categorical_features=[1], random_state=0
        ).fit(Xn, y),
        "binary_hist": lambda: HistGradientBoostingClassifier(max_iter=6, random_state=0).fit(
            Xn, y > 0
        ),
        "adaboost": lambda: AdaBoostClassifier(n_estimators=6, random_state=0).fit(X, y),
        "binary_adaboost": lambda: AdaBoostClassifier(n_estimators=6, random_state=0).fit(X, y > 0),
    }[name]()
    return ensemble_from_sklearn(est)


NAMES = [
    "tree",
    "forest",
    "wide_forest",
    "leaf_forest",
    "pure_forest",
    "extra",
    "boosting",
    "binary_boosting",
    "hist",
    "binary_hist",
    "adaboost",
    "binary_adaboost",
]

"""Fitted scikit-learn estimators for the ensemble tests, and the rows they are checked on."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


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
    if name == "HistGradientBoostingClassifier":
        for it in est._predictors:
            for p in it:
                for node in p.nodes:
                    if not node["is_leaf"] and not node["is_categorical"]:
                        out.setdefault(int(node["feature_idx"]), set()).add(
                            float(node["num_threshold"])
                        )
        return out
    if name in ("DecisionTreeClassifier", "ExtraTreeClassifier"):
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

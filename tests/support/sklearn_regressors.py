"""Fitted scikit-learn regressors for the regression tests, and their data."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from support.sklearn_models import _data, with_nan

# The regressors whose predict takes NaN (GradientBoosting refuses it).
TAKES_NAN = {
    "tree",
    "extra_tree",
    "forest",
    "extra",
    "hist",
    "hist_cat",
    "multi_tree",
    "multi_forest",
}

REGRESSOR_NAMES = [
    "tree",
    "extra_tree",
    "forest",
    "extra",
    "boosting",
    "boosting_huber",
    "boosting_zero",
    "hist",
    "hist_cat",
    "multi_tree",
    "multi_forest",
]


def regression_data(name: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The rows a setup is fitted on (with NaN where the estimator takes it) and targets."""
    X, _ = _data()
    rng = np.random.default_rng(3)
    y = 3.0 * X[:, 0] + np.isin(X[:, 1], [1, 4]) * 2.5 - 0.7 * X[:, 2] + rng.normal(size=len(X))
    if name.startswith("multi"):
        y = np.column_stack([y, np.sin(X[:, 2]) - 0.1 * y])
    return (with_nan(X, 0.1, 7) if name in TAKES_NAN else X), y


@cache
def fit_regressor(name: str) -> Any:
    """One of :data:`REGRESSOR_NAMES`, small, fitted on :func:`regression_data`."""
    from sklearn.ensemble import (
        ExtraTreesRegressor,
        GradientBoostingRegressor,
        HistGradientBoostingRegressor,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeRegressor, ExtraTreeRegressor

    est: Any = {
        "tree": lambda: DecisionTreeRegressor(max_depth=7, random_state=0),
        "extra_tree": lambda: ExtraTreeRegressor(max_depth=7, random_state=0),
        "forest": lambda: RandomForestRegressor(6, max_depth=6, random_state=0),
        "extra": lambda: ExtraTreesRegressor(6, max_depth=6, random_state=0),
        "boosting": lambda: GradientBoostingRegressor(
            n_estimators=12, max_depth=3, learning_rate=0.15, random_state=0
        ),
        "boosting_huber": lambda: GradientBoostingRegressor(
            n_estimators=8, max_depth=2, loss="huber", random_state=0
        ),
        "boosting_zero": lambda: GradientBoostingRegressor(
            n_estimators=8, max_depth=2, init="zero", learning_rate=0.3, random_state=0
        ),
        "hist": lambda: HistGradientBoostingRegressor(max_iter=10, random_state=0),
        "hist_cat": lambda: HistGradientBoostingRegressor(
            max_iter=10, categorical_features=[1], random_state=0
        ),
        "multi_tree": lambda: DecisionTreeRegressor(max_depth=5, random_state=0),
        "multi_forest": lambda: RandomForestRegressor(4, max_depth=5, random_state=0),
    }[name]()
    X, y = regression_data(name)
    return est.fit(X, y)

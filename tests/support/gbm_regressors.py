"""Fitted XGBoost and LightGBM regressors for the tests, on gbm_models' rows.

Every identity-link objective treegen reads, small and deterministic (one thread, fixed
seeds); the rows have NaN, a column of category-like codes and one of many exact zeros
(LightGBM's zero band), so that every missing-value rule is reached.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from support.gbm_models import gbm_data

XGB_REGRESSORS = (
    "reg:squarederror",
    "reg:absoluteerror",
    "reg:pseudohubererror",
    "reg:quantileerror",
    "reg:squaredlogerror",
)
LGB_REGRESSORS = (
    "regression",
    "regression_l1",
    "huber",
    "fair",
    "quantile",
    "mape",
    "regression_rf",
)


def regression_target() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """gbm_data's rows and a noisy numeric target of them."""
    X, label = gbm_data()
    noise = np.random.default_rng(1).normal(size=len(label))
    y = 3.0 * np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 3]) + label + 0.3 * noise
    return X, y


@cache
def fit_xgb_regressor(objective: str) -> Any:
    """An XGBRegressor of ``objective`` (one of :data:`XGB_REGRESSORS`)."""
    import xgboost as xgb

    X, y = regression_target()
    extra: dict[str, Any] = {"quantile_alpha": 0.3} if objective == "reg:quantileerror" else {}
    if objective == "reg:squaredlogerror":
        y = np.abs(y)  # its labels must be above -1
    return xgb.XGBRegressor(
        objective=objective, n_estimators=15, max_depth=4, n_jobs=1, random_state=0,
        tree_method="hist", **extra,
    ).fit(X, y)  # fmt: skip


@cache
def fit_lgb_regressor(objective: str) -> Any:
    """An LGBMRegressor of ``objective`` (one of :data:`LGB_REGRESSORS`; regression_rf is
    random forest mode, whose raw scores are averaged)."""
    import lightgbm as lgb

    X, y = regression_target()
    extra: dict[str, Any] = {}
    if objective == "regression_rf":
        objective = "regression"
        extra = {"boosting_type": "rf", "bagging_freq": 1, "bagging_fraction": 0.8}
    return lgb.LGBMRegressor(
        objective=objective, n_estimators=15, num_leaves=15, n_jobs=1, random_state=0,
        verbose=-1, min_child_samples=5, **extra,
    ).fit(X, y)  # fmt: skip

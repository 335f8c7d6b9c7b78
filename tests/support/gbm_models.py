"""Fitted XGBoost and LightGBM classifiers for the tests, and the rows they are checked on.

Every setup is small (a few dozen trees) and deterministic (one thread, fixed seeds);
its data have NaN, a categorical column (codes 0..5) and a column with many exact
zeros, so that the missing-value rules, the categorical splits and LightGBM's zero
band are all reached.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def gbm_data(seed: int = 0, n: int = 1500) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Rows (x0, x1 normal; x2 a category code 0..5; x3 mostly 0, +-1, 2) with 8% NaN,
    and a three-class label."""
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [
            rng.normal(size=n),
            rng.normal(size=n),
            rng.integers(0, 6, n).astype(float),
            rng.choice([0.0, 0.0, 1.0, -1.0, 2.0], n),
        ]
    )
    X[rng.random(X.shape) < 0.08] = np.nan
    x0, x3 = np.nan_to_num(X[:, 0]), np.nan_to_num(X[:, 3])
    y = ((x0 > 0.3) ^ np.isin(X[:, 2], [1, 3])).astype(np.int64) + (x3 > 0) * (X[:, 1] > -0.5)
    return X, y


XGB_SETUPS = ("xgb_binary", "xgb_multi", "xgb_cat", "xgb_softmax", "xgb_logitraw", "xgb_forest")
LGB_SETUPS = (
    "lgb_binary",
    "lgb_multi",
    "lgb_cat",
    "lgb_zero",
    "lgb_nonan",
    "lgb_rf",
    "lgb_sigmoid",
)


def fit_xgboost(name: str, n_estimators: int = 12, max_depth: int = 4) -> Any:
    """One of :data:`XGB_SETUPS`, fitted (an XGBClassifier)."""
    import xgboost as xgb

    X, y = gbm_data()
    common: dict[str, Any] = {
        "n_estimators": n_estimators,
        "max_depth": max_depth,
        "n_jobs": 1,
        "random_state": 0,
        "tree_method": "hist",
    }
    if name == "xgb_binary":
        return xgb.XGBClassifier(**common).fit(X, y > 0)
    if name == "xgb_multi":
        return xgb.XGBClassifier(**common).fit(X, y)
    if name == "xgb_cat":
        return xgb.XGBClassifier(
            **common,
            enable_categorical=True,
            max_cat_to_onehot=1,
            feature_types=["q", "q", "c", "q"],
        ).fit(X, y > 0)
    if name == "xgb_softmax":
        return xgb.XGBClassifier(**common, objective="multi:softmax").fit(X, y)
    if name == "xgb_logitraw":
        return xgb.XGBClassifier(**common, objective="binary:logitraw").fit(X, y > 0)
    if name == "xgb_forest":
        return xgb.XGBClassifier(
            **dict(common, n_estimators=3), num_parallel_tree=4, subsample=0.8
        ).fit(X, y)
    raise KeyError(name)


def fit_lightgbm(name: str, n_estimators: int = 12, num_leaves: int = 15) -> Any:
    """One of :data:`LGB_SETUPS`, fitted (an LGBMClassifier)."""
    import lightgbm as lgb

    X, y = gbm_data()
    common: dict[str, Any] = {
        "n_estimators": n_estimators,
        "num_leaves": num_leaves,
        "min_child_samples": 5,
        "n_jobs": 1,
        "random_state": 0,
        "verbose": -1,
    }
    cat: dict[str, Any] = {"categorical_feature": [2]}
    if name == "lgb_binary":
        return lgb.LGBMClassifier(**common).fit(X, y > 0)
    if name == "lgb_multi":
        return lgb.LGBMClassifier(**common).fit(X, y)
    if name == "lgb_cat":
        return lgb.LGBMClassifier(**common, min_data_per_group=5, cat_smooth=1).fit(X, y, **cat)
    if name == "lgb_zero":
        return lgb.LGBMClassifier(**common, zero_as_missing=True).fit(X, y)
    if name == "lgb_nonan":
        return lgb.LGBMClassifier(**common, use_missing=False).fit(X, y > 0, **cat)
    if name == "lgb_rf":
        return lgb.LGBMClassifier(
            **common, boosting_type="rf", bagging_freq=1, bagging_fraction=0.7
        ).fit(X, y)
    if name == "lgb_sigmoid":
        return lgb.LGBMClassifier(**common, sigmoid=0.7).fit(X, y > 0, **cat)
    raise KeyError(name)


def probe_rows(X: FloatArray, thresholds: dict[int, set[float]], seed: int = 1) -> FloatArray:
    """Rows to hold a model to: ``X``; ``X``'s first rows with one feature moved to every
    threshold's float32 neighbours (two either side) and, for a double threshold, the
    double and its double neighbours; codes and non-codes of every column; NaN rows;
    and LightGBM's zero band (+-1e-36, +-1e-35, +-2e-35, -0.0)."""
    rng = np.random.default_rng(seed)
    base = X[:4]
    rows = [X]
    for f, ts in sorted(thresholds.items()):
        near: list[float] = []
        for t in sorted(ts):
            t32 = np.float32(t)
            v = t32
            near.append(float(t32))
            for s in (-1, 1):
                v = t32
                for _ in range(2):
                    v = np.nextafter(v, np.float32(s * np.inf))
                    near.append(float(v))
            near += [t, float(np.nextafter(t, -np.inf)), float(np.nextafter(t, np.inf))]
        block = np.repeat(base, len(near), axis=0)
        block[:, f] = np.tile(near, len(base))
        rows.append(block)
    special = [-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 0.99, 1.0, 1.5, 2.7, 5.0, 5.99, 6.0, 7.0, 1e9,
               1e-36, -1e-36, 1e-35, -1e-35, 2e-35, -2e-35, np.nan]  # fmt: skip
    for f in range(X.shape[1]):
        block = np.repeat(base, len(special), axis=0)
        block[:, f] = np.tile(special, len(base))
        rows.append(block)
    nan = X[:200].copy()
    nan[rng.random(nan.shape) < 0.5] = np.nan
    rows += [nan, np.full((1, X.shape[1]), np.nan)]
    return np.vstack(rows)


def xgb_thresholds(booster: Any) -> dict[int, set[float]]:
    """Every numeric split condition of an XGBoost Booster, by feature."""
    frame = booster.trees_to_dataframe()
    out: dict[int, set[float]] = {}
    names = booster.feature_names or [f"f{j}" for j in range(booster.num_features())]
    for feat, split in zip(frame["Feature"], frame["Split"], strict=True):
        if feat != "Leaf" and isinstance(split, float) and np.isfinite(split):
            out.setdefault(names.index(feat), set()).add(float(split))
    return out


def lgb_thresholds(booster: Any) -> dict[int, set[float]]:
    """Every numeric threshold of a LightGBM Booster, by feature."""
    out: dict[int, set[float]] = {}
    for tree in booster.dump_model()["tree_info"]:
        stack = [tree["tree_structure"]]
        while stack:
            node = stack.pop()
            if "split_feature" in node:
                if node["decision_type"] == "<=":
                    out.setdefault(int(node["split_feature"]), set()).add(float(node["threshold"]))
                stack += [node["left_child"], node["right_child"]]
    return out


_IMPORTED: dict[str, Any] = {}


def import_setup(name: str) -> Any:
    """The Ensemble of setup ``name`` (of :data:`XGB_SETUPS` or :data:`LGB_SETUPS`),
    imported once per test process."""
    if name not in _IMPORTED:
        from treegen.estimator.gbm_import import from_lightgbm, from_xgboost

        model = (
            from_xgboost(fit_xgboost(name))
            if name.startswith("xgb")
            else from_lightgbm(fit_lightgbm(name))
        )
        _IMPORTED[name] = model.value
    return _IMPORTED[name]

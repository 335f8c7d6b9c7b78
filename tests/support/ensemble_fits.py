"""Ensembles imported from the libraries' own small random fits, a share of the
export fuzz's cases (tests/ensemble/test_ensemble_fuzz.py): scikit-learn's forests,
boosting, HistGradientBoosting, AdaBoost, regressors and IsolationForest, XGBoost's and
LightGBM's classifiers, each on seeded data with small integers, repeats, constant
columns, huge and tiny magnitudes, -0.0 and NaN where the estimator fits with it."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from treegen.ensemble.core import Ensemble

FITTED = ("rf", "et", "gb", "hgb", "ada", "rfr", "gbr", "hgbr", "iso", "xgb", "lgb")


def _data(rng: np.random.Generator, n: int, m: int, nan: bool) -> Any:
    """Columns of small integers, repeated floats, huge and tiny magnitudes, -0.0."""
    cols = []
    for _ in range(m):
        r = int(rng.integers(0, 5))
        if r == 0:
            cols.append(rng.integers(-3, 4, n).astype(np.float64))
        elif r == 1:
            cols.append(rng.choice([-0.0, 0.0, 1e-40, 3e38, -3e38, 0.1], n))
        elif r == 2:
            cols.append(np.round(rng.normal(0, 5, n), 1))
        elif r == 3:
            cols.append(np.full(n, 1.5))
        else:
            cols.append(rng.normal(0, 10.0 ** float(rng.integers(-6, 7)), n))
    X = np.stack(cols, axis=1)
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X


def fitted_ensemble(seed: int, index: int, name: str | None = None) -> Ensemble | None:
    """An ensemble imported from a small random fit (None: the library refused the
    configuration, or is not installed)."""
    rng = np.random.default_rng([seed, index, 7])
    name = name or str(rng.choice(FITTED))
    n = int(rng.integers(5, 400))
    m = int(rng.integers(1, 8))
    k = int(rng.choice([2, 2, 3, 6]))
    nan = name in ("rf", "et", "hgb", "rfr", "hgbr", "xgb", "lgb") and rng.random() < 0.5
    X = _data(rng, n, m, nan)
    y = rng.integers(0, k, n)
    yr = rng.normal(0, 10.0 ** float(rng.integers(-3, 4)), n)
    depth = None if rng.random() < 0.3 else int(rng.integers(1, 12))
    trees = int(rng.choice([1, 3, 10, 40]))
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            # the library's own warnings on hostile data (overflow in its sums) are
            # not the export's: the fit is only a means to a model
            warnings.simplefilter("ignore")
            est = _fit(name, rng, X, yr if name.endswith("r") else y, depth, trees, k)
    except ImportError:
        return None
    except ValueError:
        return None  # the library refuses the configuration
    from treegen.estimator import from_lightgbm, from_sklearn, from_xgboost

    importer = {"xgb": from_xgboost, "lgb": from_lightgbm}.get(name, from_sklearn)
    return importer(est).value  # type: ignore[no-any-return]


def _fit(
    name: str, rng: np.random.Generator, X: Any, y: Any, depth: int | None, trees: int, k: int
) -> Any:
    """The estimator ``name`` of :data:`FITTED`, fitted on ``X``, ``y``."""
    if name == "xgb":
        import xgboost

        return xgboost.XGBClassifier(
            n_estimators=trees, max_depth=depth or 6,
            objective="binary:logistic" if k == 2 else "multi:softprob",
            learning_rate=float(rng.choice([0.3, 1.0, 0.01])),
        ).fit(X, y)  # fmt: skip
    if name == "lgb":
        import lightgbm

        return lightgbm.LGBMClassifier(
            n_estimators=trees, num_leaves=int(rng.integers(2, 32)), min_child_samples=1,
            verbose=-1, zero_as_missing=bool(rng.random() < 0.3),
        ).fit(X, y)  # fmt: skip
    import sklearn.ensemble as sk

    common = {"random_state": int(rng.integers(0, 1000))}
    boost = {"max_depth": depth or 3, **common}
    hist = {"max_depth": depth, **common}
    makers: dict[str, Any] = {
        "rf": lambda: sk.RandomForestClassifier(trees, max_depth=depth, **common),
        "et": lambda: sk.ExtraTreesClassifier(trees, max_depth=depth, **common),
        "gb": lambda: sk.GradientBoostingClassifier(n_estimators=trees, **boost),
        "hgb": lambda: sk.HistGradientBoostingClassifier(max_iter=trees, **hist),
        "ada": lambda: sk.AdaBoostClassifier(n_estimators=trees, **common),
        "rfr": lambda: sk.RandomForestRegressor(trees, max_depth=depth, **common),
        "gbr": lambda: sk.GradientBoostingRegressor(n_estimators=trees, **common),
        "hgbr": lambda: sk.HistGradientBoostingRegressor(max_iter=trees, **common),
        "iso": lambda: sk.IsolationForest(n_estimators=trees, **common),
    }  # fmt: skip
    return makers[name]().fit(X, None if name == "iso" else y)

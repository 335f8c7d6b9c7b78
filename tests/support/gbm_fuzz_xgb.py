"""A random XGBoost model for the configuration fuzz (support.gbm_fuzz): objective,
tree method, depth, leaves, bins, base score, parallel trees, rounds and early stopping,
categorical columns (numeric codes or pandas categoricals, one-hot and partition
splits), regularisation, sampling, sample weights; given as the estimator, its Booster,
its JSON or UBJSON bytes, or a saved file."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from support.gbm_fuzz import (
    Case,
    FloatArray,
    Refused,
    answers,
    extra_rows,
    random_data,
    random_target,
    regression_target,
    summary,
    weights,
)
from support.gbm_models import xgb_thresholds

CLASSIFY = ("binary:logistic", "binary:logitraw", "binary:hinge", "multi:softmax", "multi:softprob")
REGRESS = ("reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror",
           "reg:quantileerror", "reg:squaredlogerror")  # fmt: skip
REFUSED = ("count:poisson", "reg:gamma", "reg:tweedie", "reg:logistic", "rank:pairwise",
           "multi-quantile", "dart", "gblinear", "missing=0", "multi-target")  # fmt: skip
REGRESS_REFUSED = ("count:poisson", "reg:gamma", "reg:tweedie", "multi-quantile", "multi-target")


def _params(rng: np.random.Generator, categorical: bool) -> dict[str, Any]:
    methods = ["approx", "hist"] if categorical else ["exact", "approx", "hist"]
    p: dict[str, Any] = {
        "n_estimators": int(rng.integers(1, 81)),
        "tree_method": str(rng.choice(methods)),
        "max_depth": int(rng.integers(0, 11)),
        "learning_rate": float(rng.choice([0.05, 0.3, 1.0])),
        "n_jobs": 1,
        "random_state": int(rng.integers(1000)),
    }
    if p["tree_method"] != "exact" and rng.random() < 0.4:
        p["grow_policy"] = "lossguide"
        p["max_leaves"] = int(rng.integers(0, 64))
    if p["tree_method"] != "exact" and rng.random() < 0.4:
        p["max_bin"] = int(rng.choice([2, 3, 16, 1024]))
    draws: dict[str, Any] = {
        "min_child_weight": [0.0, 1.0, 5.0],
        "gamma": [0.0, 0.5, 10.0],
        "reg_lambda": [0.0, 1.0, 10.0],
        "reg_alpha": [0.0, 0.5],
        "colsample_bytree": [0.5, 1.0],
        "colsample_bylevel": [0.5, 1.0],
        "colsample_bynode": [0.5, 1.0],
        "subsample": [0.5, 1.0],
        "max_delta_step": [0.0, 0.7],
    }
    for key, options in draws.items():
        if rng.random() < 0.3:
            p[key] = float(rng.choice(options))
    if rng.random() < 0.15:
        p["num_parallel_tree"] = int(rng.integers(2, 5))
        p["subsample"] = 0.7
    if rng.random() < 0.1:
        p["max_cat_threshold"] = int(rng.choice([1, 2, 8]))
    if rng.random() < 0.1:
        p["min_split_loss"] = 0.0
        p["max_leaves"] = int(rng.integers(2, 8))
    if categorical:
        p["enable_categorical"] = True
        p["max_cat_to_onehot"] = int(rng.choice([1, 4, 64]))
    return p


def _frame(rows: FloatArray, cats: list[int], names: list[list[Any]]) -> Any:
    import pandas as pd

    cols: dict[str, Any] = {}
    for j in range(rows.shape[1]):
        if j in cats:
            k = cats.index(j)
            code = np.where(np.isnan(rows[:, j]), -1, rows[:, j]).astype(np.int64)
            cols[f"c{j}"] = pd.Categorical.from_codes(code, categories=names[k])
        else:
            cols[f"c{j}"] = rows[:, j]
    return pd.DataFrame(cols)


@contextmanager
def _unused_parameters() -> Iterator[None]:
    """XGBoost's warning that a drawn parameter is unused (a tree parameter of gblinear):
    no finding.  Its log callback warns from C, where the test run's warnings-as-errors
    would make it an unraisable exception that fails whichever test collects it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"(?s).*Parameters: \{.*\} are not used", UserWarning)
        yield


def xgb_case(seed: int, index: int) -> Case:
    """A fitted XGBoost model of case ``(seed, index)`` and what its import must equal."""
    import xgboost as xgb

    rng = np.random.default_rng([seed, index])
    r = rng.random()
    objective = str(rng.choice(CLASSIFY if r < 0.55 else REGRESS if r < 0.9 else REFUSED))
    X, cats, counts, _ = random_data(rng, 3)
    use_cat = bool(cats) and rng.random() < 0.8
    pandas = use_cat and rng.random() < 0.4
    p = _params(rng, use_cat)
    names: list[list[Any]] = []
    if pandas:
        for k in counts:
            names.append([f"v{i}" for i in range(k)] if rng.random() < 0.5 else
                         sorted(int(v) for v in rng.choice(1000, k, replace=False)))  # fmt: skip
    elif use_cat:
        p["feature_types"] = ["c" if j in cats else "q" for j in range(X.shape[1])]
    refused = objective if objective in REFUSED else None
    regressor = objective in REGRESS + REGRESS_REFUSED
    if objective == "reg:quantileerror":
        p["quantile_alpha"] = float(rng.choice([0.1, 0.5, 0.9]))
    elif objective == "multi-quantile":
        p["objective"], p["quantile_alpha"] = "reg:quantileerror", [0.2, 0.8]
    elif objective in ("dart", "gblinear"):
        p["booster"] = objective
    elif objective == "missing=0":
        p["missing"] = 0.0
    if "objective" not in p and objective in CLASSIFY + REGRESS + REFUSED[:5]:
        p["objective"] = objective
    if objective.startswith("binary") or objective in ("reg:logistic", "missing=0"):
        k = 2
    elif objective.startswith("multi:"):
        k = int(rng.integers(3, 8))  # XGBClassifier refuses a multi: objective for 2
    else:
        k = 0
    y: Any = random_target(rng, X, k) if k else regression_target(rng, X)
    if objective == "multi-target":
        y = np.column_stack([y, regression_target(rng, X)])
        p["multi_strategy"] = str(rng.choice(["one_output_per_tree", "multi_output_tree"]))
        if p["multi_strategy"] == "multi_output_tree":
            p["tree_method"] = "hist"
    if objective in ("reg:squaredlogerror", "count:poisson", "reg:gamma", "reg:tweedie"):
        y = np.abs(y) + (objective == "reg:gamma")
    if objective == "reg:logistic":
        y = y.astype(np.float64)
    if objective == "binary:logistic" and rng.random() < 0.3:
        p["base_score"] = float(rng.choice([0.01, 0.3, 0.5, 0.9]))
        p["scale_pos_weight"] = float(rng.choice([0.5, 3.0]))
    elif k and rng.random() < 0.3:
        p["base_score"] = float(rng.choice([0.2, 0.5, 0.7, -1.5]))
    elif regressor and rng.random() < 0.3:
        p["base_score"] = float(rng.normal() * 10)
    w = weights(rng, len(X))
    fit: dict[str, Any] = {"sample_weight": w, "verbose": False}
    Xf: Any = _frame(X, cats, names) if pandas else X
    early = rng.random() < 0.25 and len(X) >= 20
    if early:
        p["early_stopping_rounds"] = int(rng.integers(1, 6))
        fit["eval_set"] = [(Xf, y)]
    rf = k and rng.random() < 0.15
    try:
        with _unused_parameters():
            if objective == "rank:pairwise":
                qid = np.sort(rng.integers(0, 5, len(X)))
                est: Any = xgb.XGBRanker(**p).fit(Xf, random_target(rng, X, 3), qid=qid)
            elif rf:
                p.pop("early_stopping_rounds", None)
                fit.pop("eval_set", None)
                p["n_estimators"] = int(rng.integers(1, 20))
                p["subsample"] = 0.7
                est = xgb.XGBRFClassifier(**p).fit(Xf, y, **fit)
            elif k:
                est = xgb.XGBClassifier(**p).fit(Xf, y, **fit)
            else:
                est = xgb.XGBRegressor(**p).fit(Xf, y, **fit)
    except (xgb.core.XGBoostError, ValueError, TypeError) as e:
        raise Refused(f"xgboost refused: {str(e).splitlines()[0][:200]}") from e
    booster = est.get_booster()
    rounds = booster.num_boosted_rounds()
    iterations = int(rng.integers(1, rounds + 1)) if rounds > 1 and rng.random() < 0.2 else None
    last = iterations if iterations is not None else (
        est.best_iteration + 1 if early and hasattr(est, "best_iteration") else rounds)  # fmt: skip
    thresholds = xgb_thresholds(booster) if refused is None else {}
    rows = extra_rows(rng, X, thresholds, cats, counts)
    if pandas:
        for j, kk in zip(cats, counts, strict=True):
            col = rows[:, j]
            ok = (col >= 0) & (col < kk) & (col == np.floor(col))
            rows[:, j] = np.where(ok, col, np.nan)
    rng_src = rng.random()
    if refused == "missing=0" or rng_src < 0.4:
        source: Any = est
    elif rng_src < 0.6:
        source = booster
    elif rng_src < 0.8:
        source = bytes(booster.save_raw("json"))
    else:
        source = bytes(booster.save_raw("ubj"))
    inp = (lambda r: _frame(r, cats, names)) if pandas else (lambda r: r)
    label, margin, proba = answers(
        est, {"iteration_range": (0, last)}, {"output_margin": True}, inp
    )
    params = {
        "objective": objective,
        **p,
        "pandas": pandas,
        "rf": bool(rf),
        **summary(X, cats, w, early, source, iterations),
    }
    return Case(
        f"xgb:{seed}:{index}", params, source, rows, label, margin,
        proba if k and refused is None else None,
        iterations, refused, regressor, cats if use_cat else [], booster.save_model,
    )  # fmt: skip

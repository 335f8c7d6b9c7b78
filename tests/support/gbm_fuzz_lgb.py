"""A random LightGBM model for the configuration fuzz (support.gbm_fuzz): objective,
boosting type, leaves, depth, leaf sizes, categorical columns (few and many categories,
one-hot and sorted splits), the missing-value options, bins, sampling, sample weights,
init scores, labels of every kind; given as the estimator, its Booster or its text."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from support import gbm_fuzz as fz
from support.gbm_fuzz import Case, FloatArray, Refused

CLASSIFY = ("binary", "multiclass")
REGRESS = ("regression", "regression_l1", "huber", "fair", "quantile", "mape")
REFUSED = ("multiclassova", "cross_entropy", "poisson", "gamma", "tweedie", "linear_tree",
           "reg_sqrt")  # fmt: skip


def _params(rng: np.random.Generator) -> dict[str, Any]:
    p: dict[str, Any] = {
        "n_estimators": int(rng.integers(1, 81)),
        "num_leaves": int(rng.integers(2, 65)),
        "max_depth": int(rng.choice([-1, -1, 1, 3, 6])),
        "min_child_samples": int(rng.choice([1, 5, 20])),
        "min_child_weight": float(rng.choice([0.0, 1e-3, 1.0])),
        "learning_rate": float(rng.choice([0.05, 0.1, 1.0])),
        "boosting_type": str(rng.choice(["gbdt", "gbdt", "rf", "dart", "goss"])),
        "n_jobs": 1,
        "random_state": int(rng.integers(1000)),
        "verbose": -1,
    }
    if p["boosting_type"] == "rf" or rng.random() < 0.2:
        p["bagging_freq"], p["bagging_fraction"] = 1, float(rng.choice([0.5, 0.9]))
    if p["boosting_type"] == "goss":
        p.pop("bagging_freq", None)
        p.pop("bagging_fraction", None)
    if rng.random() < 0.3:
        p["feature_fraction"] = float(rng.choice([0.5, 0.8]))
    if rng.random() < 0.3:
        p["max_bin"] = int(rng.choice([2, 3, 15, 1023]))
    for key, options in {"extra_trees": [True], "path_smooth": [0.0, 5.0], "reg_alpha": [0.0, 1.0],
                         "reg_lambda": [0.0, 10.0], "min_split_gain": [0.0, 0.5],
                         "max_delta_step": [0.0, 0.5], "boost_from_average": [False],
                         "drop_rate": [0.5], "min_sum_hessian_in_leaf": [0.0, 10.0],
                         "max_cat_threshold": [1, 4], "linear_lambda": [1.0]}.items():  # fmt: skip
        if rng.random() < 0.1:
            p[key] = options[int(rng.integers(len(options)))]
    r = rng.random()
    if r < 0.15:
        p["zero_as_missing"] = True
    elif r < 0.3:
        p["use_missing"] = False
    if rng.random() < 0.3:
        p["max_cat_to_onehot"] = int(rng.choice([1, 4, 64]))
        p["cat_smooth"] = float(rng.choice([0.0, 1.0, 10.0]))
        p["min_data_per_group"] = int(rng.choice([1, 100]))
        p["cat_l2"] = float(rng.choice([0.0, 10.0]))
    return p


def _thresholds(text: str) -> dict[int, set[float]]:
    """Every numeric threshold of a LightGBM model text, by feature (from the text:
    ``dump_model``'s JSON has a bare ``inf`` where a threshold is infinite)."""
    out: dict[int, set[float]] = {}
    feature: list[int] = []
    thr: list[float] = []
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key == "split_feature":
            feature = [int(v) for v in value.split()]
        elif key == "threshold":
            thr = [float(v) for v in value.split()]
        elif key == "decision_type":
            for f, t, d in zip(feature, thr, (int(v) for v in value.split()), strict=True):
                if not d & 1 and np.isfinite(t):
                    out.setdefault(f, set()).add(t)
    return out


def _labels(rng: np.random.Generator, y: np.ndarray, k: int) -> np.ndarray:
    """The class indices as ints, negative ints, strings or bools."""
    kind = int(rng.integers(0, 4))
    if kind == 1:
        return y * 3 - 7
    if kind == 2:
        return np.asarray([f"c{v}" for v in y])
    if kind == 3 and k == 2:
        return y.astype(bool)
    return y


def lgb_case(seed: int, index: int) -> Case:
    """A fitted LightGBM model of case ``(seed, index)`` and what its import must equal."""
    import lightgbm as lgb

    rng = np.random.default_rng([seed, index])
    r = rng.random()
    objective = str(rng.choice(CLASSIFY if r < 0.5 else REGRESS if r < 0.88 else REFUSED))
    X, cats, counts, _ = fz.random_data(rng, 3)
    p = _params(rng)
    refused = objective if objective in REFUSED else None
    fit: dict[str, Any] = {}
    if cats and rng.random() < 0.8:
        fit["categorical_feature"] = cats
        if rng.random() < 0.3:  # negative and fractional codes in training too
            j = cats[0]
            X[rng.random(len(X)) < 0.2, j] = float(rng.choice([-1.0, -3.0, 2.5, 0.7]))
    else:
        cats, counts = [], []
    if objective == "linear_tree":
        p["linear_tree"], p["objective"] = True, "regression"
    elif objective == "reg_sqrt":
        p["reg_sqrt"], p["objective"] = True, "regression"
    else:
        p["objective"] = objective
    if objective in ("binary", "cross_entropy"):
        k = 2
        if objective == "binary" and rng.random() < 0.2:
            p["sigmoid"] = float(rng.choice([0.5, 2.0]))
    elif objective in ("multiclass", "multiclassova"):
        k = int(rng.integers(3, 8))
    else:
        k = 0
    classifier = objective in CLASSIFY + ("multiclassova",)
    regressor = not classifier
    if classifier:
        idx = fz.random_target(rng, X, k)
        y: Any = _labels(rng, idx, k)
    elif objective == "cross_entropy":
        y = fz.random_target(rng, X, 2).astype(np.float64)
    else:
        y = fz.regression_target(rng, X)
        if objective in ("poisson", "gamma", "tweedie"):
            y = np.abs(y) + 0.5
    w = fz.weights(rng, len(X))
    fit["sample_weight"] = w
    if rng.random() < 0.15 and objective in ("binary",) + REGRESS:
        fit["init_score"] = rng.normal(size=len(X))
    early = rng.random() < 0.2 and len(X) >= 20 and p["boosting_type"] != "dart"
    if early:
        fit["eval_set"] = [(X.copy(), np.copy(y))]  # not the training set itself
        fit["callbacks"] = [lgb.early_stopping(int(rng.integers(1, 6)), verbose=False)]
    try:
        with warnings.catch_warnings():
            # LightGBM 4.7 deprecates eval_set for eval_X and eval_y, which fail on labels
            # that are strings: eval_set it is
            warnings.filterwarnings("ignore", "The argument 'eval_set' is deprecated")
            est: Any = (lgb.LGBMClassifier if classifier else lgb.LGBMRegressor)(**p).fit(
                X, y, **fit
            )
    except (lgb.basic.LightGBMError, ValueError, TypeError) as e:
        raise Refused(f"lightgbm refused: {str(e).splitlines()[0][:200]}") from e
    booster = est.booster_
    # best_iteration_ can pass the rounds the model holds (LightGBM stops adding trees
    # that no split is left for, and predict then uses them all): an ``iterations`` past
    # the file's rounds is refused, as a request for rounds the model does not have
    rounds = booster.current_iteration()
    if est.best_iteration_:
        rounds = min(rounds, est.best_iteration_)
    iterations = int(rng.integers(1, rounds + 1)) if rounds > 1 and rng.random() < 0.2 else None
    text = booster.model_to_string()
    if refused == "linear_tree" and "is_linear=1" not in text:
        refused = None  # every tree a constant (one leaf, no linear model): read as such
    thresholds = _thresholds(text) if refused is None else {}
    rows = fz.extra_rows(rng, X, thresholds, cats, counts)
    rng_src = rng.random()
    if rng_src < 0.5:
        source: Any = est
    elif rng_src < 0.75:
        source = booster
    else:
        source = booster.model_to_string()
    it = {"num_iteration": iterations}
    label, margin, proba = fz.answers(est, it, {"raw_score": True}, lambda r: r)
    if classifier and not isinstance(source, lgb.LGBMClassifier):
        # A Booster or text gives no classes_: the labels are the class indices (classes_
        # is sorted, numpy's unique, so a label's index is its class index).
        def label(r: FloatArray) -> np.ndarray:
            return np.searchsorted(est.classes_, est.predict(r, **it))

    params = {
        **p,
        "objective": objective,
        "init_score": "init_score" in fit,
        "labels": str(np.asarray(y).dtype),
        **fz.summary(X, cats, w, early, source, iterations),
    }
    return Case(
        f"lgb:{seed}:{index}", params, source, rows, label, margin,
        proba if classifier and refused is None else None,
        iterations, refused, regressor, cats,
        lambda path: booster.save_model(path, num_iteration=None),
    )  # fmt: skip

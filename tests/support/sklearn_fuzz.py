"""Seeded random scikit-learn estimators and data: the configuration fuzz of
tests/ensemble/test_sklearn_fuzz.py.

A case is ``(seed, index)``: every random choice comes from
``numpy.random.default_rng([seed, index])``, so a failure is reproduced by its id
alone (``python tests/support/sklearn_fuzz_check.py SEED INDEX`` prints the estimator
and checks it).
:func:`make_case` draws a dataset (1-2,000 rows, 1-15 columns of hostile values, 1-7
classes labelled by ints, negative ints, text or bools, sample weights with zeros) and
an estimator of one of :data:`KINDS` with its constructor parameters drawn over their
documented ranges, and fits it; a configuration scikit-learn refuses to fit is
:class:`Refused` (not a finding).  support/sklearn_fuzz_check.py holds the imported
model and its C to the estimator bit for bit.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from support.sklearn_models import sklearn_thresholds, threshold_rows

FloatArray = npt.NDArray[np.float64]

CLASSIFIERS = ("tree_c", "extra_tree_c", "forest_c", "extra_c", "gb_c", "hist_c", "ada_c")
REGRESSORS = ("tree_r", "extra_tree_r", "forest_r", "extra_r", "gb_r", "hist_r")
KINDS = (*CLASSIFIERS, *REGRESSORS, "iforest")
"""Every estimator the fuzz builds (docs/ensembles.md, docs/regression.md)."""

# The kinds whose predict refuses NaN (and so are fitted without it).
_NO_NAN = ("gb_c", "ada_c", "gb_r")


class Refused(Exception):
    """scikit-learn refused to fit the drawn configuration: not a finding."""


@dataclass
class Case:
    """One fitted estimator, the data it was fitted on and the rows it is checked on."""

    seed: int
    index: int
    kind: str
    estimator: Any
    X: FloatArray
    y: Any
    rows: Any  # FloatArray, or a pandas DataFrame for a from_dtype histogram model
    params: dict[str, Any] = field(default_factory=dict)
    frame: bool = False  # rows (and the fit) are a DataFrame
    takes_nan: bool = True
    refused: str | None = None  # treegen's one-line refusal, where it refuses

    @property
    def name(self) -> str:
        return f"{self.seed}:{self.index}:{self.kind}"


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _column(rng: np.random.Generator, n: int) -> FloatArray:
    """One column of hostile float32-range values (scikit-learn's trees cast to float32:
    beyond its range a value is refused)."""
    kind = int(rng.integers(0, 10))
    if kind == 0:  # small integers: many repeats
        return rng.integers(-3, 4, n).astype(np.float64)
    if kind == 1:  # constant
        return np.full(n, float(rng.choice([0.0, -0.0, 1.5, 1e-30, -7.0])))
    if kind == 2:  # huge and tiny magnitudes of both signs
        return rng.choice([-1e37, -1e20, -1.0, 0.0, 1e-20, 1.0, 1e20, 3e38], n)
    if kind == 3:  # zeros of both signs and subnormals (float32's; float64's become 0)
        return rng.choice([0.0, -0.0, 1.4e-45, -1.4e-45, 1e-40, -3e-39, 5e-324, 1e-30], n)
    if kind == 4:  # values one ulp apart in float32 and in float64
        vals = []
        for b in rng.choice([1.0, 0.1, 100.0, -3.3, 1e-30, 16777216.0], 3):
            f = np.float32(b)
            vals += [
                float(b),
                float(np.nextafter(b, np.inf)),
                float(np.nextafter(b, -np.inf)),
                float(f),
                float(np.nextafter(f, np.float32(np.inf))),
                float(np.nextafter(f, np.float32(-np.inf))),
            ]
        return rng.choice(np.asarray(vals), n)
    if kind == 5:  # two decimals, many repeats
        return np.round(rng.normal(0, 5, n), 1)
    if kind == 6:  # large integers near the integer types' limits
        return rng.choice(
            [-129.0, -128.0, 127.0, 128.0, 255.0, 256.0, 32767.0, 32768.0, 65535.0, -32769.0], n
        )
    if kind == 7:  # full-precision doubles
        return rng.uniform(-1000, 1000, n)
    if kind == 8:  # few distinct float values
        return rng.choice(rng.normal(0, 3, int(rng.integers(2, 6))), n)
    return rng.standard_normal(n) * float(10.0 ** rng.integers(-5, 6))


def _rows_count(rng: np.random.Generator) -> int:
    u = rng.random()
    if u < 0.1:
        return int(rng.integers(1, 6))
    if u < 0.6:
        return int(rng.integers(6, 120))
    if u < 0.9:
        return int(rng.integers(120, 600))
    return int(rng.integers(600, 2001))


def _data(rng: np.random.Generator) -> FloatArray:
    n = _rows_count(rng)
    u = rng.random()
    # Mostly 1-15 columns; a few beyond 32 (the C then compares floats, not keys).
    d = int(rng.integers(1, 16)) if u < 0.75 else int(rng.integers(1, 4)) if u < 0.95 else 34
    return np.stack([_column(rng, n) for _ in range(d)], axis=1)


def _score(rng: np.random.Generator, X: FloatArray) -> FloatArray:
    """A target that depends on a few columns' ranks, plus noise."""
    n, d = X.shape
    score = np.zeros(n)
    for j in rng.choice(d, size=min(d, 3), replace=False):
        score += np.argsort(np.argsort(np.nan_to_num(X[:, j]), kind="stable"), kind="stable")
    return score + rng.normal(0, max(n, 1) * rng.uniform(0, 0.5), n)


def _labels(rng: np.random.Generator, X: FloatArray, kind: str) -> Any:
    n = X.shape[0]
    u = rng.random()
    k = int(rng.integers(2, 8)) if u < 0.85 else int(rng.integers(8, 41)) if u < 0.95 else 1
    if kind in ("gb_c", "hist_c"):
        k = max(k, 2)
    s = _score(rng, X)
    order = np.argsort(np.argsort(s, kind="stable"), kind="stable")
    codes = (order * k // max(n, 1)).astype(np.int64)
    style = int(rng.integers(0, 5))
    if style == 0:
        return codes
    if style == 1:  # negative, not contiguous
        return codes * 7 - 9
    if style == 2:  # text whose order is not the numbers'
        return np.asarray([str(10 - c) for c in codes], dtype=object)
    if style == 3 and k <= 2:
        return codes.astype(bool)
    return np.asarray([f"c {c}" for c in codes], dtype=object)


def _target(rng: np.random.Generator, X: FloatArray, positive: bool) -> FloatArray:
    s = _score(rng, X)
    style = int(rng.integers(0, 7))
    if style == 0:
        y = s
    elif style == 5:  # float64 subnormals and -0.0
        y = np.where(s > np.median(s), s * 1e-320, -0.0)
    elif style == 6:  # near the top of float64: sums may overflow
        y = s / max(float(np.abs(s).max()), 1.0) * 1e307
    elif style == 1:
        y = np.round(s / max(X.shape[0], 1) * 10)
    elif style == 2:
        y = s * 1e-7 + 1e5
    elif style == 3:
        y = np.full(X.shape[0], float(rng.choice([0.0, 2.5, -1e10])))
    else:
        y = np.sin(s) * 1e3 + rng.normal(0, 1, X.shape[0])
    if positive:
        y = np.abs(y) + float(rng.choice([0.0, 0.5]))
    return y


def _weights(rng: np.random.Generator, n: int) -> FloatArray | None:
    u = rng.random()
    if u < 0.5:
        return None
    if u < 0.7:
        w = rng.uniform(0, 3, n)
        w[rng.random(n) < 0.2] = 0.0
        return w
    if u < 0.9:
        return rng.integers(0, 4, n).astype(np.float64)
    return rng.choice([1e-3, 1.0, 1e3], n)


def _with_nan(rng: np.random.Generator, X: FloatArray, rate: float) -> FloatArray:
    out = X.copy()
    out[rng.random(X.shape) < rate] = np.nan
    if rng.random() < 0.2:
        out[:, int(rng.integers(X.shape[1]))] = np.nan  # a column with no value at all
    return out


# ---------------------------------------------------------------------------
# Estimators
# ---------------------------------------------------------------------------


def pick(rng: np.random.Generator, *options: Any) -> Any:
    return options[int(rng.integers(len(options)))]


def _rate(rng: np.random.Generator) -> float:
    return float(pick(rng, 0.1, 1 / 3, 0.05, 1.0, 0.7, 0.3, float(rng.uniform(0.01, 1.5))))


def _max_features(rng: np.random.Generator, d: int) -> Any:
    return pick(
        rng, None, int(rng.integers(1, d + 1)), float(rng.uniform(0.1, 1.0)), "sqrt", "log2"
    )


def _tree_params(rng: np.random.Generator, d: int, criteria: tuple[str, ...]) -> dict[str, Any]:
    p: dict[str, Any] = {"criterion": str(rng.choice(criteria))}
    if rng.random() < 0.6:
        p["max_depth"] = int(rng.integers(1, 13))
    if rng.random() < 0.3:
        p["min_samples_split"] = pick(rng, int(rng.integers(2, 12)), float(rng.uniform(0.01, 0.5)))
    if rng.random() < 0.3:
        p["min_samples_leaf"] = pick(rng, int(rng.integers(1, 8)), float(rng.uniform(0.01, 0.3)))
    if rng.random() < 0.15:
        p["min_weight_fraction_leaf"] = float(rng.uniform(0, 0.3))
    if rng.random() < 0.4:
        p["max_features"] = _max_features(rng, d)
    if rng.random() < 0.3:
        p["max_leaf_nodes"] = int(rng.integers(2, 40))
    if rng.random() < 0.15:
        p["min_impurity_decrease"] = float(pick(rng, 0.01, 0.1, 1e-6))
    if rng.random() < 0.15:
        p["ccp_alpha"] = float(pick(rng, 0.001, 0.01, 0.05))
    p["random_state"] = int(rng.integers(0, 1000))
    return p


def _monotonic(rng: np.random.Generator, d: int) -> list[int]:
    return [int(v) for v in rng.integers(-1, 2, d)]


def _class_weight(rng: np.random.Generator, y: Any, forest: bool) -> Any:
    classes = np.unique(y)
    u = rng.random()
    if u < 0.6:
        return None
    if u < 0.75:
        return "balanced"
    if u < 0.85 and forest:
        return "balanced_subsample"
    return {c.item() if hasattr(c, "item") else c: float(rng.uniform(0.1, 5)) for c in classes}


_TREES = {
    "tree_c": "DecisionTreeClassifier",
    "extra_tree_c": "ExtraTreeClassifier",
    "forest_c": "RandomForestClassifier",
    "extra_c": "ExtraTreesClassifier",
    "tree_r": "DecisionTreeRegressor",
    "extra_tree_r": "ExtraTreeRegressor",
    "forest_r": "RandomForestRegressor",
    "extra_r": "ExtraTreesRegressor",
}


def _trees(rng: np.random.Generator, kind: str, d: int, y: Any) -> tuple[Any, dict[str, Any]]:
    """A single tree or a forest, classifier or regressor (multi-output where y is)."""
    from sklearn import ensemble, tree

    if kind.endswith("_c"):
        p = _tree_params(rng, d, ("gini", "entropy", "log_loss"))
        p["class_weight"] = _class_weight(rng, y, kind in ("forest_c", "extra_c"))
        monotonic = len(np.unique(y)) == 2  # scikit-learn's constraints: binary only
    else:
        p = _tree_params(rng, d, ("squared_error", "friedman_mse", "absolute_error", "poisson"))
        monotonic = np.ndim(y) == 1 and p["criterion"] != "poisson"
    if monotonic and rng.random() < 0.2:
        p["monotonic_cst"] = _monotonic(rng, d)
    single = kind.startswith(("tree", "extra_tree"))
    if single:
        if rng.random() < 0.3:
            p["splitter"] = pick(rng, "best", "random")
    else:
        p["n_estimators"] = _n_trees(rng)
        p["bootstrap"] = bool(rng.random() < (0.7 if kind.startswith("forest") else 0.3))
        if p["bootstrap"] and rng.random() < 0.3:
            p["max_samples"] = pick(rng, float(rng.uniform(0.1, 1.0)), int(rng.integers(1, 20)))
    return getattr(tree if single else ensemble, _TREES[kind])(**p), p


def _estimator(
    rng: np.random.Generator, kind: str, X: FloatArray, y: Any
) -> tuple[Any, dict[str, Any]]:
    from sklearn import ensemble, tree
    from sklearn.dummy import DummyClassifier, DummyRegressor

    d = X.shape[1]
    p: dict[str, Any]
    binary = kind in CLASSIFIERS and len(np.unique(y)) == 2
    if kind in _TREES:
        return _trees(rng, kind, d, y)
    if kind in ("gb_c", "gb_r"):
        p = _tree_params(rng, d, ("friedman_mse", "squared_error"))
        p.pop("class_weight", None)
        p["n_estimators"] = _n_trees(rng)
        p["learning_rate"] = _rate(rng)
        if "max_depth" not in p and rng.random() < 0.5:
            p["max_depth"] = int(rng.integers(1, 7))
        if rng.random() < 0.3:
            p["subsample"] = float(rng.uniform(0.3, 1.0))
        if rng.random() < 0.15:
            p["n_iter_no_change"] = int(rng.integers(1, 5))
            p["validation_fraction"] = float(rng.uniform(0.1, 0.4))
        if kind == "gb_c":
            if binary and rng.random() < 0.3:
                p["loss"] = "exponential"
            u = rng.random()
            if u < 0.15:
                p["init"] = "zero"
            elif u < 0.35:
                strategy = str(rng.choice(["prior", "most_frequent", "uniform", "constant"]))
                extra = {"constant": _first(y)} if strategy == "constant" else {}
                p["init"] = DummyClassifier(strategy=strategy, **extra)
            return ensemble.GradientBoostingClassifier(**p), p
        p["loss"] = str(rng.choice(["squared_error", "absolute_error", "huber", "quantile"]))
        if p["loss"] in ("huber", "quantile"):
            p["alpha"] = float(pick(rng, 0.9, 0.5, 0.1, float(rng.uniform(0.01, 0.99))))
        u = rng.random()
        if u < 0.15:
            p["init"] = "zero"
        elif u < 0.35:
            strategy = str(rng.choice(["mean", "median", "quantile", "constant"]))
            extra: dict[str, Any] = {}
            if strategy == "quantile":
                extra["quantile"] = float(rng.uniform(0, 1))
            if strategy == "constant":
                extra["constant"] = float(rng.normal())
            p["init"] = DummyRegressor(strategy=strategy, **extra)
        return ensemble.GradientBoostingRegressor(**p), p
    if kind in ("hist_c", "hist_r"):
        p = {
            "max_iter": _n_trees(rng),
            "learning_rate": _rate(rng),
            "random_state": int(rng.integers(0, 1000)),
        }
        if rng.random() < 0.4:
            p["max_leaf_nodes"] = pick(rng, None, int(rng.integers(2, 32)))
        if rng.random() < 0.3:
            p["max_depth"] = int(rng.integers(1, 8))
        if rng.random() < 0.4:
            p["min_samples_leaf"] = int(rng.integers(1, 25))
        if rng.random() < 0.3:
            p["l2_regularization"] = float(pick(rng, 0.1, 1.0, 10.0))
        if rng.random() < 0.3:
            p["max_bins"] = int(pick(rng, 2, 3, 7, 255, int(rng.integers(2, 256))))
        if rng.random() < 0.2:
            p["max_features"] = float(rng.uniform(0.2, 1.0))
        p["early_stopping"] = pick(rng, "auto", True, False)
        if p["early_stopping"] is not False and rng.random() < 0.5:
            p["n_iter_no_change"] = int(rng.integers(1, 5))
            p["validation_fraction"] = pick(rng, 0.2, None, 0.3)
        if rng.random() < 0.15:
            p["monotonic_cst"] = _monotonic(rng, d)
        if rng.random() < 0.15 and d >= 2:
            cols = list(range(d))
            rng.shuffle(cols)
            cut = int(rng.integers(1, d))
            p["interaction_cst"] = [cols[:cut], cols[cut:]]
        if kind == "hist_c":
            p["class_weight"] = _class_weight(rng, y, False)
            return ensemble.HistGradientBoostingClassifier(**p), p
        p["loss"] = str(
            rng.choice(
                ["squared_error", "absolute_error", "quantile", "squared_error", "poisson", "gamma"]
            )
        )
        if p["loss"] == "quantile":
            p["quantile"] = float(pick(rng, 0.5, 0.9, float(rng.uniform(0.01, 0.99))))
        return ensemble.HistGradientBoostingRegressor(**p), p
    if kind == "ada_c":
        depth = int(rng.integers(1, 7))
        base_cls = tree.DecisionTreeClassifier if rng.random() < 0.7 else tree.ExtraTreeClassifier
        base = base_cls(max_depth=depth, random_state=int(rng.integers(0, 1000)))
        p = {
            "estimator": base,
            "n_estimators": _n_trees(rng),
            "learning_rate": _rate(rng),
            "random_state": int(rng.integers(0, 1000)),
        }
        return ensemble.AdaBoostClassifier(**p), {
            **p,
            "estimator": f"{base_cls.__name__}(max_depth={depth})",
        }
    assert kind == "iforest", kind
    p = {
        "n_estimators": _n_trees(rng),
        "max_samples": pick(rng, "auto", int(rng.integers(1, 300)), float(rng.uniform(0.05, 1.0))),
        "contamination": pick(rng, "auto", float(rng.uniform(0.01, 0.5))),
        "max_features": pick(rng, 1.0, int(rng.integers(1, d + 1)), float(rng.uniform(0.1, 1.0))),
        "bootstrap": bool(rng.random() < 0.3),
        "random_state": int(rng.integers(0, 1000)),
    }
    return ensemble.IsolationForest(**p), p


def _first(y: Any) -> Any:
    v = np.asarray(y)[0]
    return v.item() if hasattr(v, "item") else v


def _n_trees(rng: np.random.Generator) -> int:
    return int(pick(rng, 1, 2, int(rng.integers(1, 11)), int(rng.integers(1, 61))))


# ---------------------------------------------------------------------------
# Categorical histogram models
# ---------------------------------------------------------------------------


def _categorical(
    rng: np.random.Generator, X: FloatArray, est: Any, p: dict[str, Any]
) -> tuple[Any, Any, bool]:
    """Give a histogram model categorical columns: by mask, indices, names or the
    frame's dtypes; returns (X or a DataFrame, the estimator, whether it is a frame)."""
    d = X.shape[1]
    if rng.random() < 0.5 or p.get("monotonic_cst") is not None or p.get("interaction_cst"):
        return X, est, False
    cats = sorted(int(j) for j in rng.choice(d, size=int(rng.integers(1, d + 1)), replace=False))
    n = X.shape[0]
    X = X.copy()
    for j in cats:  # category codes: small non-negative integers (NaN kept where it is)
        k = int(rng.integers(1, 12))
        vals = rng.integers(0, k, n).astype(np.float64)
        X[:, j] = np.where(np.isnan(X[:, j]), np.nan, vals)
    how = int(rng.integers(0, 4))
    if how == 0:
        mask = np.zeros(d, dtype=bool)
        mask[cats] = True
        est.set_params(categorical_features=mask)
        p["categorical_features"] = mask.tolist()
        return X, est, False
    if how == 1:
        est.set_params(categorical_features=cats)
        p["categorical_features"] = cats
        return X, est, False
    import pandas as pd

    names = [f"f{j}" for j in range(d)]
    frame = pd.DataFrame(X, columns=names)
    if how == 2:
        est.set_params(categorical_features=[names[j] for j in cats])
        p["categorical_features"] = [names[j] for j in cats]
        return frame, est, True
    text = bool(rng.random() < 0.5)
    for j in cats:
        col = frame[names[j]]
        if text:
            frame[names[j]] = pd.Categorical([None if np.isnan(v) else f"c{int(v)}" for v in col])
        else:
            frame[names[j]] = col.astype("category")
    est.set_params(categorical_features="from_dtype")
    p["categorical_features"] = f"from_dtype ({'text' if text else 'numeric'})"
    return frame, est, True


# ---------------------------------------------------------------------------
# The case
# ---------------------------------------------------------------------------


def make_case(seed: int, index: int, kind: str | None = None) -> Case:
    """Draw and fit case ``(seed, index)``; :class:`Refused` where scikit-learn refuses."""
    rng = np.random.default_rng([seed, index])
    kind = kind or str(rng.choice(KINDS))
    X = _data(rng)
    takes_nan = kind not in _NO_NAN
    if kind in ("extra_tree_c", "extra_tree_r"):
        takes_nan = True  # its splitter is random: scikit-learn takes NaN
    Xfit = (
        _with_nan(rng, X, float(rng.uniform(0.02, 0.3))) if takes_nan and rng.random() < 0.4 else X
    )
    if kind in CLASSIFIERS:
        y: Any = _labels(rng, X, kind)
    elif kind == "iforest":
        y = None
    else:
        multi = kind in ("tree_r", "extra_tree_r", "forest_r", "extra_r") and rng.random() < 0.2
        positive = rng.random() < 0.5
        y = _target(rng, X, positive)
        if multi:
            y = np.column_stack([y, _target(rng, X, positive)])
    est, params = _estimator(rng, kind, Xfit, y)
    if kind in ("extra_tree_c", "extra_tree_r") and params.get("splitter") == "best":
        takes_nan = False  # scikit-learn takes NaN in an extra tree only when it splits at random
    frame = False
    fit_X: Any = Xfit
    if kind in ("hist_c", "hist_r"):
        fit_X, est, frame = _categorical(rng, Xfit, est, params)
        if not frame:
            Xfit = fit_X
    w = _weights(rng, X.shape[0])
    kw = {} if w is None else {"sample_weight": w}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(fit_X, y, **kw) if y is not None else est.fit(fit_X, **kw)
    except (ValueError, ZeroDivisionError, IndexError, TypeError) as exc:
        raise Refused(f"{type(exc).__name__}: {exc}") from None
    params = {**params, "rows": X.shape[0], "features": X.shape[1], "weights": w is not None}
    rows = _check_rows(rng, est, fit_X if frame else Xfit, frame, takes_nan)
    if kind != "iforest" and not frame:  # IsolationForest alone takes +-inf
        with np.errstate(over="ignore"):
            rows = rows[~np.isinf(rows.astype(np.float32)).any(axis=1)]
    return Case(seed, index, kind, est, Xfit, y, rows, params, frame, takes_nan)


def _check_rows(rng: np.random.Generator, est: Any, X: Any, frame: bool, takes_nan: bool) -> Any:
    """The data rows, every threshold's float32 neighbours, random rows, special
    values, NaN rows where the estimator takes NaN."""
    if frame:
        return _frame_rows(rng, X, takes_nan)
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    parts = [X]
    base = np.nan_to_num(X, nan=0.0)
    parts.append(threshold_rows(base, sklearn_thresholds(est)))
    col_values = [np.unique(X[:, j][~np.isnan(X[:, j])]) for j in range(d)]
    m = 200
    rand = np.empty((m, d))
    for j in range(d):
        vals = col_values[j] if len(col_values[j]) else np.zeros(1)
        rand[:, j] = rng.choice(vals, m)
        swap = rng.random(m) < 0.3
        rand[swap, j] = rng.choice(
            [0.0, -0.0, 1.4e-45, -1.4e-45, 1e-38, 3.4e38, -3.4e38, 0.5, -1.0, 1e10], int(swap.sum())
        )
    parts.append(rand)
    if takes_nan:
        nanr = rand.copy()
        nanr[rng.random(nanr.shape) < 0.3] = np.nan
        parts.append(nanr)
        parts.append(np.full((1, d), np.nan))
    return np.vstack(parts)


def _frame_rows(rng: np.random.Generator, frame: Any, takes_nan: bool) -> Any:
    import pandas as pd

    rows = [frame]
    m = 150
    rand = {}
    for name in frame.columns:
        col = frame[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            cats = list(col.cat.categories)
            pick = [cats[int(i)] for i in rng.integers(0, len(cats), m)] if cats else [None] * m
            if takes_nan:
                pick = [None if rng.random() < 0.2 else v for v in pick]
            rand[name] = pd.Categorical(pick, categories=col.cat.categories)
        else:
            vals = col.dropna().to_numpy(dtype=np.float64)
            v = rng.choice(vals, m) if len(vals) else np.zeros(m)
            extra = rng.random(m) < 0.2
            v[extra] = rng.choice([-1.0, 0.5, 300.0, -0.0, 1e30], int(extra.sum()))
            if takes_nan:
                v[rng.random(m) < 0.2] = np.nan
            rand[name] = v
    rows.append(pd.DataFrame(rand))
    return pd.concat(rows, ignore_index=True)

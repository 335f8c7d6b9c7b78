"""The ensemble benchmark's models (bench/ensemble_bench.py) and the rows they are checked on.

**Sensor data** (:func:`sensor_data`, seed 0): 6,000 windows of a wrist-worn motion
and temperature sensor, 8 float32 features -- the mean acceleration on x, y and z (g),
the standard deviation of the acceleration magnitude (g), its spectral energy, the
standard deviation of the gyroscope rate (deg/s), the mean skin temperature (deg C) and
its slope (deg C/min) -- and 4 classes (0 resting, 1 walking, 2 running, 3 cycling),
1,500 rows each.  Every class has its own mean and spread per feature, every row a
random wearer offset (a tilt of the sensor, a skin temperature), so the classes
overlap.  **Sensor data with gaps** (:func:`sensor_data_gaps`, seed 1): the same
generator plus a 9th column, where the sensor is worn (0 wrist, 1 hip, 2 ankle,
3 pocket, 4 bag: a category that scales the motion features), and 5% of the 8 numeric
cells missing (NaN, a dropped reading).  Each set is split 75/25, stratified,
``random_state=0``.

The models (every one ``random_state=0``):

* ``forest``: RandomForestClassifier(10 trees, max_depth 8) on the sensor data;
* ``digits``: RandomForestClassifier(100 trees, unlimited depth) on scikit-learn's
  digits (1,797 8x8 images, 64 integer features 0-16, 10 classes);
* ``extra``: ExtraTreesClassifier(10 trees, max_depth 8) on the sensor data;
  ``extra_digits``: ExtraTreesClassifier(100 trees, unlimited depth) on digits;
* ``gboost``: GradientBoostingClassifier(100 stages, max_depth 3) on the sensor data
  (4 classes: 400 trees); ``gboost_bin`` the same on two classes (resting or walking
  against running or cycling: 100 trees);
* ``hist``: HistGradientBoostingClassifier(50 iterations, 15 leaves) on the sensor data
  with gaps, column 8 categorical (4 classes: 200 trees); ``hist_bin`` the same on two
  classes (50 trees); ``hist_full`` with scikit-learn's defaults (100 iterations,
  31 leaves: 400 trees);
* ``adaboost``: AdaBoostClassifier(SAMME, 50 DecisionTreeClassifier(max_depth 3)) on
  the sensor data.

**Rows** (:func:`check_rows`): the test split, then every split threshold's float32
neighbours (the largest float32 ``lo`` at or below the threshold, the float32 above it,
and one more on each side), each put into a copy of a test row that reaches that split
in its tree (scikit-learn's ``decision_path``; for HistGradientBoosting, whose trees
have none, the test rows in turn), then rows with one feature NaN (the estimators
whose ``predict`` accepts NaN) and, for a categorical column, every category, an
unknown one and a negative, a fractional and a too large one.  Every value is a
float32, as the C's float input receives it; the truth is ``estimator.predict`` on them.
**int16 rows** (:func:`int16_rows`, the forests): the forms whose C takes int16_t get
integers: these rows converted toward zero, every threshold's integer neighbours and
the type's extremes; their truth is ``estimator.predict`` on those integers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

N_SENSOR = 6000
CLASSES = ("resting", "walking", "running", "cycling")
# Per class: mean and spread of the 8 features (acc x, y, z, acc std, energy, gyro std,
# temperature, temperature slope).
_MEANS = np.array(
    [
        [0.05, -0.10, 0.98, 0.02, 0.01, 4.0, 32.5, 0.00],
        [0.20, -0.35, 0.90, 0.30, 0.90, 45.0, 33.0, 0.05],
        [0.30, -0.45, 0.80, 0.75, 3.20, 110.0, 33.8, 0.15],
        [0.10, -0.60, 0.75, 0.25, 0.70, 30.0, 33.6, 0.12],
    ]
)
_SPREADS = np.array(
    [
        [0.10, 0.10, 0.05, 0.02, 0.02, 3.0, 1.0, 0.05],
        [0.15, 0.15, 0.10, 0.12, 0.50, 20.0, 1.0, 0.08],
        [0.20, 0.20, 0.15, 0.25, 1.40, 40.0, 1.2, 0.12],
        [0.15, 0.20, 0.15, 0.12, 0.45, 15.0, 1.2, 0.10],
    ]
)
MOUNT_GAIN = (1.0, 0.7, 1.5, 0.6, 0.4)  # wrist, hip, ankle, pocket, bag


def _sensor(seed: int, gaps: bool) -> tuple[Array, npt.NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    per = N_SENSOR // len(CLASSES)
    y = np.repeat(np.arange(len(CLASSES)), per)
    X = _MEANS[y] + _SPREADS[y] * rng.standard_normal((y.size, _MEANS.shape[1]))
    X[:, :3] += rng.normal(0.0, 0.08, (y.size, 3))  # the sensor's tilt on this wearer
    X[:, 6] += rng.normal(0.0, 0.8, y.size)  # this wearer's skin temperature
    X[:, 3:6] = np.abs(X[:, 3:6])
    if gaps:
        mount = rng.integers(0, len(MOUNT_GAIN), y.size)
        X[:, 3:6] *= np.asarray(MOUNT_GAIN)[mount, None]
        X[rng.random(X.shape) < 0.05] = np.nan
        X = np.column_stack([X, mount.astype(np.float64)])
    return X.astype(np.float32).astype(np.float64), y


def sensor_data() -> tuple[Array, npt.NDArray[np.int64]]:
    return _sensor(0, gaps=False)


def sensor_data_gaps() -> tuple[Array, npt.NDArray[np.int64]]:
    return _sensor(1, gaps=True)


@dataclass
class Fitted:
    name: str
    title: str
    est: Any
    X_test: Array
    categorical: tuple[int, ...] = ()


def _split(X: Array, y: Any) -> tuple[Array, Array, Any, Any]:
    from sklearn.model_selection import train_test_split

    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    return Xtr, Xte, ytr, yte


def _fit(name: str) -> Fitted:
    from sklearn.datasets import load_digits
    from sklearn.ensemble import (
        AdaBoostClassifier,
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.tree import DecisionTreeClassifier

    if name in ("digits", "extra_digits"):
        Xd, yd = load_digits(return_X_y=True)
        Xtr, Xte, ytr, _ = _split(Xd.astype(np.float64), yd)
        forest = RandomForestClassifier if name == "digits" else ExtraTreesClassifier
        est: Any = forest(100, random_state=0).fit(Xtr, ytr)
        title = f"{forest.__name__.removesuffix('Classifier')} 100 unlimited trees, digits"
        return Fitted(name, title, est, Xte)
    binary = name.endswith("_bin")  # running or cycling (classes 2, 3) against the rest
    if name in ("hist", "hist_bin", "hist_full"):
        X, y = sensor_data_gaps()
        Xtr, Xte, ytr, _ = _split(X, (y >= 2).astype(np.int64) if binary else y)
        small = {"max_iter": 50, "max_leaf_nodes": 15} if name != "hist_full" else {}
        est = HistGradientBoostingClassifier(categorical_features=[8], random_state=0, **small)
        est.fit(Xtr, ytr)
        k = "1 (binary)" if binary else "4"
        title = f"{50 if small else 100} x {k}, {15 if small else 31} leaves"
        return Fitted(name, f"HistGradientBoosting {title}, NaN + categorical", est, Xte, (8,))
    X, y = sensor_data()
    Xtr, Xte, ytr, _ = _split(X, (y >= 2).astype(np.int64) if binary else y)
    make: dict[str, tuple[str, Callable[[], Any]]] = {
        "forest": (
            "RandomForest 10 trees, depth 8",
            lambda: RandomForestClassifier(10, max_depth=8, random_state=0),
        ),
        "extra": (
            "ExtraTrees 10 trees, depth 8",
            lambda: ExtraTreesClassifier(10, max_depth=8, random_state=0),
        ),
        "gboost": (
            "GradientBoosting 100 stages x 4, depth 3",
            lambda: GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0),
        ),
        "gboost_bin": (
            "GradientBoosting 100 stages x 1 (binary), depth 3",
            lambda: GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0),
        ),
        "adaboost": (
            "AdaBoost SAMME, 50 trees of depth 3",
            lambda: AdaBoostClassifier(
                DecisionTreeClassifier(max_depth=3), n_estimators=50, random_state=0
            ),
        ),
    }
    title, new = make[name]
    return Fitted(name, title, new().fit(Xtr, ytr), Xte)


MODELS = (
    "forest",
    "extra",
    "gboost",
    "gboost_bin",
    "hist",
    "hist_bin",
    "adaboost",
    "digits",
    "extra_digits",
    "hist_full",
)


def fit(name: str) -> Fitted:
    """One of :data:`MODELS`, fitted (deterministic: the same estimator every run)."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r} (choose from {', '.join(MODELS)})")
    return _fit(name)


def _neighbours(t: float) -> list[float]:
    """The float32 values around ``x <= t``: lo (the largest float32 <= t), the one
    above, and one more on each side (an infinite ``t``, which a split of NaN from all
    numbers has, gives the largest float32 and its neighbour below)."""
    top = np.float32(np.finfo(np.float32).max)
    t32 = np.float32(t) if np.isfinite(t) else top
    with np.errstate(over="ignore"):
        lo = t32 if float(t32) <= t else np.nextafter(t32, np.float32(-np.inf))
        hi = np.nextafter(lo, np.float32(np.inf))
        out = [np.nextafter(lo, np.float32(-np.inf)), lo, hi, np.nextafter(hi, np.float32(np.inf))]
    return [float(v) for v in out if np.isfinite(v)]


def _tree_splits(est: Any, X: Array) -> list[tuple[int, float, int]]:
    """(feature, threshold, index of a test row reaching the split) for every split of
    every scikit-learn tree in ``est``."""
    members = list(np.asarray(est.estimators_, dtype=object).ravel())
    out: list[tuple[int, float, int]] = []
    X32 = X.astype(np.float32)
    for m in members:
        t = m.tree_
        reach = m.decision_path(X32).tocsc()
        for node in np.flatnonzero(t.children_left >= 0):
            rows = reach.indices[reach.indptr[node] : reach.indptr[node + 1]]
            out.append(
                (int(t.feature[node]), float(t.threshold[node]), int(rows[0]) if rows.size else 0)
            )
    return out


def _hist_splits(est: Any, n_test: int) -> list[tuple[int, float, int]]:
    """The same for HistGradientBoosting: its predictors index the preprocessed columns
    (the categorical ones first, in order, then the rest), mapped back here."""
    n = int(est.n_features_in_)
    order = list(range(n))
    cat = getattr(est, "is_categorical_", None)
    if getattr(est, "_preprocessor", None) is not None and cat is not None:
        mask = np.asarray(cat, dtype=bool)
        order = np.flatnonzero(mask).tolist() + np.flatnonzero(~mask).tolist()
    out: list[tuple[int, float, int]] = []
    for it in est._predictors:
        for p in it:
            for node in p.nodes:
                if not node["is_leaf"] and not node["is_categorical"]:
                    k = len(out)
                    out.append(
                        (order[int(node["feature_idx"])], float(node["num_threshold"]), k % n_test)
                    )
    return out


def check_rows(f: Fitted) -> tuple[Array, npt.NDArray[np.int64]]:
    """The rows (float32 values as float64) and ``estimator.predict``'s class index on each."""
    X = f.X_test.astype(np.float32).astype(np.float64)
    if type(f.est).__name__ == "HistGradientBoostingClassifier":
        splits = _hist_splits(f.est, X.shape[0])
    else:
        splits = _tree_splits(f.est, X)
    parts = [X]
    seen: set[tuple[int, float, int]] = set()
    moved = []
    for feature, t, r in splits:
        for v in _neighbours(t):
            key = (feature, v, r)
            if key not in seen:
                seen.add(key)
                row = X[r].copy()
                row[feature] = v
                moved.append(row)
    if moved:
        parts.append(np.asarray(moved))
    special = []
    for r in range(min(5, X.shape[0])):
        for j in range(X.shape[1]):
            row = X[r].copy()
            row[j] = np.nan
            special.append(row)
        for j in f.categorical:
            cats = np.unique(X[:, j][~np.isnan(X[:, j])])
            for v in [*cats.tolist(), -1.0, 0.5, float(cats.max()) + 1, 1000.0]:
                row = X[r].copy()
                row[j] = v
                special.append(row)
    rows = np.vstack(parts)
    if special:
        try:  # GradientBoosting and AdaBoost refuse NaN
            f.est.predict(np.asarray(special))
            rows = np.vstack([rows, np.asarray(special)])
        except ValueError:
            specials = [s for s in special if not np.isnan(s).any()]
            if specials:
                rows = np.vstack([rows, np.asarray(specials)])
    want = np.searchsorted(f.est.classes_, f.est.predict(rows)).astype(np.int64)
    return rows, want


# The int16 rows: what the forms whose C takes int16_t features (emlearn's default and
# loadable forms, treegen's --input-type int16) are handed.
INT16_LO, INT16_HI = -32767, 32767  # -32768 is treegen's default missing value for int16


@dataclass
class Int16Rows:
    """The int16 rows (integers, as float64) and ``estimator.predict``'s class index on
    each as a float; the first ``n_converted`` are the conversions of ``X[converted]``."""

    rows: Array
    want: npt.NDArray[np.int64]
    converted: npt.NDArray[np.bool_]  # which float check rows have a conversion
    n_test: int  # the conversions of the test rows come first

    @property
    def n_converted(self) -> int:
        return int(self.converted.sum())


def int16_rows(f: Fitted, X: Array) -> Int16Rows:
    """The int16 rows of a forest checked on the float rows ``X`` (check_rows'):
    every float row converted as C's ``(int16_t)x`` converts a value in range (toward
    zero; a row with a NaN or a value out of range has no conversion, as C defines
    none), then every threshold's integer neighbours (the largest integer at or below
    it, the one above, one more each side) in a converted test row reaching the split,
    then the types' extremes but the missing value (-32767, 32767) in every column of
    the first test rows.  The truth is ``estimator.predict`` on these integers as
    floats: the model given the int16 inputs, not the float data they came from."""
    ok = np.asarray(~np.isnan(X).any(axis=1) & (np.abs(np.nan_to_num(X)) < 32768).all(axis=1))
    conv = np.trunc(np.where(ok[:, None], X, 0.0))[ok]
    n_test = int(ok[: f.X_test.shape[0]].sum())
    test = conv[:n_test]
    moved: list[Array] = []
    seen: set[tuple[int, float, int]] = set()
    for feature, t, r in _tree_splits(f.est, test):
        lo = float(np.floor(t)) if np.isfinite(t) else float(INT16_HI)
        for v in (lo - 1, lo, lo + 1, lo + 2):
            v = min(max(v, INT16_LO), INT16_HI)
            if (feature, v, r) not in seen:
                seen.add((feature, v, r))
                row = test[r].copy()
                row[feature] = v
                moved.append(row)
    for r in range(min(5, n_test)):
        for j in range(X.shape[1]):
            for v in (INT16_LO, INT16_HI):
                row = test[r].copy()
                row[j] = v
                moved.append(row)
    rows = np.vstack([conv, *([np.asarray(moved)] if moved else [])])
    want = np.searchsorted(f.est.classes_, f.est.predict(rows)).astype(np.int64)
    return Int16Rows(rows, want, ok, n_test)

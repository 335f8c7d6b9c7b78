"""``make firmware``'s ensembles: scikit-learn's, XGBoost's and LightGBM's, on hypo.

All are fitted on the reference set hypo (its nominal attributes as their codes, its
continuous ones with their missing values as NaN): a ``RandomForestClassifier`` of 10
trees of depth at most 8 and a ``HistGradientBoostingClassifier`` of 10 iterations of
depth at most 4 on the class codes, imported from the estimators
(treegen.ensemble.sklearn); an ``XGBClassifier`` (binary: negative or not; 10 rounds of
depth 4) and an ``LGBMClassifier`` (the classes hypo's rows have, by name; 10 rounds of
15 leaves), XGBoost's with "referral source" as a categorical feature, LightGBM's with
every nominal attribute, imported from the model files they write
(treegen.estimator.gbm_import); and a ``RandomForestRegressor`` of 5 trees of depth at
most 6 fitted on the class codes as numbers (treegen.ensemble.regress: its float64
values compared bit for bit).  Each is small enough for the ATmega328P's 32 KB in
every style, with fixed seeds.  Each runs in the table and ifs styles, in float, keys
(``--float-compare int``, where no test is categorical) and int16 with a ``--scale``
per feature (:func:`ensemble_options`).  scikit-learn (and xgboost, lightgbm for
theirs) is needed (test dependencies); without it :func:`fit` says so.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from treegen.codegen.ctype import TYPES
from treegen.codegen.options import ExportOptions, Style
from treegen.data.dataset import Dataset, Schema
from treegen.ensemble.core import LEAF, Ensemble
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.regress import regressor_from_sklearn
from treegen.ensemble.sklearn import ensemble_from_sklearn
from treegen.errors import ToolError, TreegenError
from treegen.verify.oracle import missing_mask

ENSEMBLES = ("forest", "boosted", "xgboost", "lightgbm", "regressor")
CATEGORICAL = "referral source"  # hypo's nominal attribute of six values
STYLES: tuple[Style, ...] = ("table", "ifs")
SCALES = (1000, 100, 10, 1)


def fit(name: str, ds: Dataset) -> Ensemble:
    """Ensemble ``name`` (one of :data:`ENSEMBLES`) fitted on ``ds``."""
    if name in ("xgboost", "lightgbm"):
        return _fit_gbm(name, ds)
    try:
        from sklearn.ensemble import (
            HistGradientBoostingClassifier,
            RandomForestClassifier,
            RandomForestRegressor,
        )
    except ImportError:
        raise ToolError(
            "the firmware check's ensembles need scikit-learn (pip install scikit-learn)"
        ) from None
    known = ds.y >= 0
    X, y = ds.X[known].copy(), ds.y[known]
    # A column with no value at all (hypo's TBG) cannot be binned: 0 there, never tested.
    X[:, np.isnan(X).all(axis=0)] = 0.0
    names = [a.name for a in ds.schema.attributes]
    if name == "regressor":
        reg = RandomForestRegressor(5, max_depth=6, random_state=0).fit(X, y.astype(float))
        return regressor_from_sklearn(reg, names, ds.schema.target)
    est = (
        RandomForestClassifier(10, max_depth=8, random_state=0)
        if name == "forest"
        else HistGradientBoostingClassifier(max_iter=10, max_depth=4, random_state=0)
    )
    est.fit(X, y)
    return ensemble_from_sklearn(est, names, ds.schema.target)


def _fit_gbm(name: str, ds: Dataset) -> Ensemble:
    """XGBoost's or LightGBM's classifier on ``ds``, read back from its model file."""
    import tempfile
    from pathlib import Path

    from treegen.ensemble.lightgbm import lightgbm_from_text
    from treegen.ensemble.xgboost import xgboost_from_bytes

    known = ds.y >= 0
    X, y = ds.X[known], ds.y[known]
    names = [a.name for a in ds.schema.attributes]
    cat = names.index(CATEGORICAL)
    nominal = [j for j, a in enumerate(ds.schema.attributes) if a.values]
    try:
        with tempfile.TemporaryDirectory(prefix="treegen-fw-") as tmp:
            if name == "xgboost":
                import xgboost as xgb

                est = xgb.XGBClassifier(
                    n_estimators=10, max_depth=4, n_jobs=1, random_state=0, tree_method="hist",
                    enable_categorical=True, max_cat_to_onehot=1,
                    feature_types=["c" if j == cat else "q" for j in range(len(names))],
                ).fit(X, (y == ds.schema.classes.index("negative")).astype(np.int64))  # fmt: skip
                path = Path(tmp) / "model.json"
                est.get_booster().save_model(str(path))
                return xgboost_from_bytes(
                    path.read_bytes(), str(path), None, names, ds.schema.target
                )
            import lightgbm as lgb

            est = lgb.LGBMClassifier(
                n_estimators=10, num_leaves=15, n_jobs=1, random_state=0, verbose=-1,
                min_child_samples=5, min_data_per_group=5, cat_smooth=1.0,
            ).fit(X, np.asarray(ds.schema.classes)[y], categorical_feature=nominal)  # fmt: skip
            path = Path(tmp) / "model.txt"
            est.booster_.save_model(str(path))
            ens = lightgbm_from_text(path.read_text(), str(path), None, names, ds.schema.target)
            # The file names the classes 0 .. k-1: the classifier's labels in their order.
            labels = tuple(str(c) for c in est.classes_)
            schema = Schema(ens.schema.attributes, labels, ens.schema.target)
            return replace(ens, schema=schema)
    except ImportError:
        raise ToolError(
            f"the firmware check's {name} model needs {name} (pip install {name})"
        ) from None


def _scales(ens: Ensemble, ds: Dataset) -> tuple[tuple[str, Fraction], ...] | str:
    """A --scale NAME=K per tested feature: the largest K in :data:`SCALES` keeping its
    thresholds (and, where possible, its data) inside int16."""
    lo, hi = TYPES["int16"].range
    limit = min(-lo - 1, hi - 1)  # the type's minimum is the missing value
    thresholds: dict[int, list[float]] = {}
    for t in ens.trees:
        for f, thr, cat in zip(t.feature, t.threshold, t.categorical, strict=True):
            if f != LEAF and not cat and math.isfinite(thr):
                thresholds.setdefault(f, []).append(abs(thr))
    out: list[tuple[str, Fraction]] = []
    for j, values in sorted(thresholds.items()):
        col = ds.X[:, j]
        data = float(np.max(np.abs(col[~np.isnan(col)]), initial=0.0))
        top = max(values)
        fits = [k for k in SCALES if top * k <= limit]
        if not fits:
            return f"feature {j}: threshold {top:g} does not fit int16 even unscaled"
        with_data = [k for k in fits if data * k <= limit]
        out.append(
            (ens.schema.attributes[j].name, Fraction(with_data[0] if with_data else fits[0]))
        )
    return tuple(out)


def ensemble_options(
    name: str, ens: Ensemble, ds: Dataset, style: str, mode: str
) -> ExportOptions | str:
    """The export options of one run, or why the mode cannot encode the ensemble."""
    base: Style = "ifs" if style == "ifs" else "table"
    if mode == "float":
        opts = ExportOptions(prefix=name, style=base)
    elif mode == "keys":
        opts = ExportOptions(prefix=name, style=base, float_compare="int")
    else:
        scales = _scales(ens, ds)
        if isinstance(scales, str):
            return scales
        opts = ExportOptions(prefix=name, style=base, input_type="int16", feature_scales=scales)
    try:
        lower_ensemble(ens, opts)
    except TreegenError as err:
        return str(err)
    return opts


def known_rows(
    ens: Ensemble, opts: ExportOptions, X: npt.NDArray[np.generic]
) -> npt.NDArray[np.bool_]:
    """The rows on which no feature the ensemble tests is missing."""
    enc = lower_ensemble(ens, opts).encoding
    tested = {f for t in ens.trees for f in t.feature if f != LEAF}
    known = np.ones(X.shape[0], dtype=bool)
    for j in tested:
        known &= ~missing_mask(X[:, j], enc)
    return known

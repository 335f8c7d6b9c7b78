"""``make firmware``'s ensembles: a scikit-learn forest, a boosted model and a regressor on hypo.

All are fitted on the reference set hypo (its nominal attributes as their codes, its
continuous ones with their missing values as NaN, the class codes as labels): a
``RandomForestClassifier`` of 10 trees of depth at most 8, a
``HistGradientBoostingClassifier`` of 10 iterations of depth at most 4 (one tree per
class each: small enough for the ATmega328P's 32 KB in every style), and a
``RandomForestRegressor`` of 5 trees of depth at most 6 fitted on the class codes as
numbers (its float64 values compared bit for bit), with fixed seeds, then imported
(treegen.ensemble.sklearn, treegen.ensemble.regress).  Each runs in the table and ifs styles,
in float, keys (``--float-compare int``) and int16 with a ``--scale`` per feature
(:func:`ensemble_options`).  scikit-learn is needed (a test dependency); without it
:func:`fit` says so.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from treegen.codegen.ctype import TYPES
from treegen.codegen.options import ExportOptions, Style
from treegen.data.dataset import Dataset
from treegen.ensemble.core import LEAF, Ensemble
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.regress import regressor_from_sklearn
from treegen.ensemble.sklearn import ensemble_from_sklearn
from treegen.errors import ToolError, TreegenError
from treegen.verify.oracle import missing_mask

ENSEMBLES = ("forest", "boosted", "regressor")
STYLES: tuple[Style, ...] = ("table", "ifs")
SCALES = (1000, 100, 10, 1)


def fit(name: str, ds: Dataset) -> Ensemble:
    """Ensemble ``name`` (one of :data:`ENSEMBLES`) fitted on ``ds``."""
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
        return ExportOptions(prefix=name, style=base)
    if mode == "keys":
        return ExportOptions(prefix=name, style=base, float_compare="int")
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

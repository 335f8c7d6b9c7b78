"""Seeded random XGBoost and LightGBM models: data and constructor parameters drawn over
their documented ranges, for the configuration fuzz (tests/ensemble/test_gbm_fuzz.py).

A case is ``(library, seed, index)``; every draw comes from
``numpy.random.default_rng([seed, index])``, so a failure is reproduced by its id
alone.  :func:`xgb_case` and :func:`lgb_case` fit one model and return a :class:`Case`:
what to give the importer, the library's own answers as callables, and the rows to hold
the import to.  A configuration the library refuses to fit raises :class:`Refused`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from support.gbm_models import probe_rows

FloatArray = npt.NDArray[np.float64]


class Refused(Exception):
    """The library refused the drawn configuration (not a finding)."""


@dataclass
class Case:
    """One fitted model and what the import must equal.

    ``source`` is given to ``from_xgboost``/``from_lightgbm`` (with ``iterations``);
    ``label(rows)`` is the library's predict (labels, or a regressor's values),
    ``proba(rows)`` its predict_proba (None: none), ``margin(rows)`` its raw margins
    (n x outputs).  ``refused`` names a configuration the import must refuse."""

    name: str
    params: dict[str, Any]
    source: Any
    rows: FloatArray
    label: Callable[[FloatArray], np.ndarray]
    margin: Callable[[FloatArray], np.ndarray]
    proba: Callable[[FloatArray], np.ndarray] | None = None
    iterations: int | None = None
    refused: str | None = None
    regressor: bool = False
    categorical: list[int] = field(default_factory=list)
    save: Callable[[str], None] | None = None


Answer = Callable[[FloatArray], np.ndarray]


def answers(
    est: Any, kw: dict[str, Any], margin_kw: dict[str, Any], inp: Callable[[FloatArray], Any]
) -> tuple[Answer, Answer, Answer]:
    """The library's predict, margins (n x outputs) and predict_proba of rows, each
    called with ``kw`` (the rounds to use), the margins with ``margin_kw`` too; ``inp``
    turns the rows into the library's input."""

    def label(r: FloatArray) -> np.ndarray:
        return np.asarray(est.predict(inp(r), **kw))

    def margin(r: FloatArray) -> np.ndarray:
        return np.asarray(est.predict(inp(r), **margin_kw, **kw)).reshape(len(r), -1)

    def proba(r: FloatArray) -> np.ndarray:
        return np.asarray(est.predict_proba(inp(r), **kw))

    return label, margin, proba


def summary(X: FloatArray, cats: list[int], w: Any, early: bool, source: Any,
            iterations: int | None) -> dict[str, Any]:  # fmt: skip
    """What a failure report says of the case beside the constructor's parameters."""
    return {"n": len(X), "d": X.shape[1], "cats": cats, "weights": w is not None,
            "early": early, "source": type(source).__name__, "iterations": iterations}  # fmt: skip


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _column(rng: np.random.Generator, n: int) -> FloatArray:
    """A numeric column of one drawn kind: integers, repeats, a constant, huge and tiny
    magnitudes, signed zeros, float32 ulp clusters, full-precision normals."""
    kind = int(rng.integers(0, 8))
    if kind == 0:
        return rng.integers(-5, 6, n).astype(np.float64)
    if kind == 1:
        return np.full(n, float(rng.choice([0.0, -0.0, 1.5, -7.0, 1e-30])))
    if kind == 2:
        return rng.choice([-1e30, -1e10, -1.0, 0.0, 1e-20, 1.0, 1e10, 1e30], n)
    if kind == 3:
        return rng.choice([0.0, -0.0, 1e-40, -1e-38, 1e-36, -1e-36, 3e-35, 1e-300], n)
    if kind == 4:
        base = np.float32(rng.normal() * 10)
        near = [base]
        for s in (-1, 1):
            v = base
            for _ in range(3):
                v = np.nextafter(v, np.float32(s * np.inf))
                near.append(v)
        vals = [float(v) for v in near] + [float(np.nextafter(float(base), np.inf))]
        return rng.choice(np.asarray(vals), n)
    if kind == 5:
        return np.round(rng.normal(0, 30, n), 1)
    if kind == 6:
        return rng.uniform(-1000, 1000, n)
    return rng.standard_normal(n) * float(10.0 ** rng.integers(-6, 7))


def random_data(
    rng: np.random.Generator, n_cat_max: int
) -> tuple[FloatArray, list[int], list[int], float]:
    """Rows (1-2000, mostly a few hundred), 1-15 features, up to ``n_cat_max``
    categorical columns (codes 0..k-1, k 2-40), NaN at a drawn rate; the categorical
    columns, their code counts and the NaN rate."""
    n = int(rng.choice([rng.integers(1, 30), rng.integers(30, 400), rng.integers(400, 2001)],
                       p=[0.15, 0.65, 0.2]))  # fmt: skip
    d = int(rng.integers(1, 16))
    cols, cats, counts = [], [], []
    for j in range(d):
        if len(cats) < n_cat_max and rng.random() < 0.3:
            k = int(rng.choice([2, 3, 5, 12, 40, 100]))
            col = rng.integers(0, k, n).astype(np.float64)
            if rng.random() < 0.3:  # a few codes of many, most never seen
                col = rng.choice(np.asarray([0.0, 1.0, k - 1.0, k // 2]), n)
            cols.append(col)
            cats.append(j)
            counts.append(k)
        else:
            cols.append(_column(rng, n))
    X = np.stack(cols, axis=1)
    rate = float(rng.choice([0.0, 0.0, 0.05, 0.3]))
    X[rng.random(X.shape) < rate] = np.nan
    return X, cats, counts, rate


def random_target(rng: np.random.Generator, X: FloatArray, k: int) -> npt.NDArray[np.int64]:
    """Class indices 0..k-1 (k=0: none) from the ranks of a few columns plus noise."""
    n, d = X.shape
    score = np.zeros(n)
    for j in rng.choice(d, size=min(d, 3), replace=False):
        col = np.nan_to_num(X[:, j], nan=0.0)
        score += np.argsort(np.argsort(col, kind="stable"), kind="stable") * rng.choice([-1, 1])
    score -= score.min()
    y = (score * k // (score.max() + 1)).astype(np.int64)
    noise = rng.random(n) < rng.uniform(0, 0.3)
    y[noise] = rng.integers(0, k, int(noise.sum()))
    return y


def regression_target(rng: np.random.Generator, X: FloatArray) -> FloatArray:
    n, d = X.shape
    j = int(rng.integers(0, d))
    col = np.clip(np.nan_to_num(X[:, j]), -1e6, 1e6)
    return col * rng.normal() + rng.normal(size=n) * float(rng.choice([0.01, 1.0, 100.0]))


def weights(rng: np.random.Generator, n: int) -> FloatArray | None:
    """Sample weights (a third of the cases), with zeros."""
    if rng.random() < 0.67:
        return None
    w = rng.choice([0.0, 0.5, 1.0, 3.0], n)
    if not w.any():
        w[0] = 1.0
    return w


def extra_rows(rng: np.random.Generator, X: FloatArray, thresholds: dict[int, set[float]],
               cats: list[int], counts: list[int]) -> FloatArray:  # fmt: skip
    """probe_rows (thresholds' float32 neighbours, specials, NaN rows) plus random rows
    and every categorical column's codes, unseen codes and negative values."""
    rows = [probe_rows(X, thresholds, seed=int(rng.integers(1 << 30)))]
    rand = X[rng.integers(0, len(X), 200)].copy()
    mask = rng.random(rand.shape) < 0.5
    rand[mask] = rng.standard_normal(int(mask.sum())) * 10.0 ** rng.integers(-3, 4, int(mask.sum()))
    rows.append(rand)
    # infinities, values past float32's range or below its smallest subnormal
    edge = [np.inf, -np.inf, 1e39, -1e39, 3.4028235677973366e38, 3.4028234663852886e38,
            1e-46, -1e-46, 7e-46, 5e-324, -0.0, 2.0**-149, 1.5 * 2.0**-149]  # fmt: skip
    for j in range(X.shape[1]):
        block = np.repeat(X[:2], len(edge), axis=0)
        block[:, j] = np.tile(edge, min(2, len(X)))
        rows.append(block)
    for j, k in zip(cats, counts, strict=True):
        vals = [*range(k + 3), -1.0, -0.5, -2.0, 0.5, k - 0.5, 1e6, np.nan]
        block = np.repeat(X[:3], len(vals), axis=0)
        block[:, j] = np.tile(vals, min(3, len(X)))
        rows.append(block)
    return np.vstack(rows)

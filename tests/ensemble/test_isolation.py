"""IsolationForest: the imported forest's score_samples and decision_function equal
scikit-learn's bit for bit (numpy's power, as scikit-learn computes it on this machine),
and predict's -1/1, in numpy and in the C (which compares its exact path-length sum
with the boundary derived at export), on both sides of the boundary and on it."""

from __future__ import annotations

import shutil
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble import classify, isolation
from treegen.ensemble.regress import from_estimator
from treegen.errors import TreegenError
from treegen.kinds.check import verify
from treegen.kinds.export import render

from support.floatbits import same_bits
from support.sklearn_models import sklearn_thresholds, threshold_rows

sklearn = pytest.importorskip("sklearn")

SETUPS: dict[str, dict[str, Any]] = {
    "auto": {},
    # 301 rows, 10%: np.percentile lands on one training score, whose row has a
    # decision_function of exactly 0 (an inlier): a row on the boundary.
    "contamination": {"contamination": 0.1},
    "features": {"max_features": 0.5, "n_estimators": 20},
    "nan": {"contamination": 0.1, "nan": True},
}


def _data(nan: bool) -> npt.NDArray[np.float64]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(301, 4))
    if nan:
        X[rng.random(X.shape) < 0.05] = np.nan
    return X


@cache
def _fit(name: str) -> Any:
    from sklearn.ensemble import IsolationForest

    kw = dict(SETUPS[name])
    X = _data(bool(kw.pop("nan", False)))
    n = kw.pop("n_estimators", 30)
    return IsolationForest(n_estimators=n, random_state=0, **kw).fit(X)


def _rows(name: str) -> npt.NDArray[np.float64]:
    est = _fit(name)
    X = _data(name == "nan")
    finite = {f: {t for t in ts if np.isfinite(t)} for f, ts in sklearn_thresholds(est).items()}
    rng = np.random.default_rng(1)
    return np.vstack([X, threshold_rows(np.nan_to_num(X), finite), rng.uniform(-8, 8, (3000, 4))])


@pytest.mark.parametrize("name", list(SETUPS))
def test_scores_and_predict_equal_sklearn(name: str) -> None:
    est = _fit(name)
    ens = from_estimator(est)
    X = _rows(name)
    assert same_bits(isolation.score_samples(ens, X), est.score_samples(X))
    assert same_bits(isolation.decision_function(ens, X), est.decision_function(X))
    want = est.predict(X)
    got = np.asarray(ens.schema.classes)[classify.predict(ens, X)].astype(int)
    assert np.array_equal(got, want)
    assert (want == -1).sum() > 10 and (want == 1).sum() > 10


@pytest.mark.parametrize("name", ["contamination", "nan"])
def test_a_row_on_the_boundary_and_its_neighbours(name: str) -> None:
    """The training row whose decision_function is exactly 0 is an inlier; the rows whose
    sums are nearest the boundary on either side are predicted as scikit-learn does."""
    est = _fit(name)
    ens = from_estimator(est)
    assert ens.anomaly is not None
    X = _rows(name)
    dec = est.decision_function(X)
    on = np.flatnonzero(dec == 0)
    assert len(on) >= 1 and (est.predict(X[on]) == 1).all()
    sums = classify.raw_scores(ens, X)[:, 0]
    b = ens.anomaly.boundary
    assert (sums[on] >= b).all()
    below = np.flatnonzero(sums < b)
    nearest = [below[np.argmax(sums[below])], np.flatnonzero(sums >= b)[np.argmin(sums[sums >= b])]]
    assert est.predict(X[nearest]).tolist() == [-1, 1]
    # The boundary's own neighbours, through scikit-learn's formula.
    lo, at = np.nextafter(b, -np.inf), b
    d = isolation.scores_of(np.array([lo, at] * 32), ens.anomaly.denominator) - ens.anomaly.offset
    assert (d[0] < 0) and (d[1] >= 0)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("name", list(SETUPS))
def test_c_predict(name: str, style: str) -> None:
    ens = from_estimator(_fit(name))
    report = verify(ens, ExportOptions(prefix="i", style=style), n_random=300)
    assert report.ok and report.rows > 300, report.text()


def test_proba_is_not_exported() -> None:
    ens = from_estimator(_fit("auto"))
    with pytest.raises(TreegenError, match="no class probabilities"):
        render(ens, ExportOptions(prefix="i", proba=True))


def test_model_file_keeps_the_constants(tmp_path: Any) -> None:
    from treegen.kinds import load
    from treegen.kinds.ensemble import ENSEMBLE

    ens = from_estimator(_fit("contamination"))
    path = tmp_path / "i.trees"
    path.write_text(ENSEMBLE.to_json(ens))
    _, back = load(path)
    assert back.anomaly == ens.anomaly
    X = _rows("contamination")
    assert same_bits(isolation.score_samples(back, X), _fit("contamination").score_samples(X))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_c_predict_through_the_binary64_routines(tmp_path: Any) -> None:
    """The sums and the comparison in the generated routines (what AVR and the M0+ run),
    on the host: the same -1/1 as scikit-learn."""
    from treegen.verify.build import build

    est = _fit("contamination")
    ens = from_estimator(est)
    r = render(ens, ExportOptions(prefix="i", style="ifs"))
    X = _rows("contamination").astype(np.float32)
    cls, _ = build(r.lowered, r.files, tmp_path, cc="gcc -std=c89 -DI_SOFT64=1").run(X)
    assert np.array_equal(np.where(cls == 1, 1, -1), est.predict(X.astype(np.float64)))


def test_api_predict_and_a_tampered_file(tmp_path: Any) -> None:
    import json

    import treegen
    from treegen.kinds import load
    from treegen.kinds.ensemble import ENSEMBLE

    est = _fit("auto")
    X = _rows("auto")
    model = treegen.from_sklearn(est)
    assert np.array_equal(model.predict(X), est.predict(X))
    data = json.loads(ENSEMBLE.to_json(model.value))
    del data["anomaly"]
    path = tmp_path / "i.trees"
    path.write_text(json.dumps(data))
    with pytest.raises(TreegenError, match="anomaly"):
        load(path)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
@pytest.mark.parametrize("soft", [False, True])
def test_scores_of_a_forest_of_one_sample_in_c(soft: bool, tmp_path: Any) -> None:
    """max_samples_ 1 makes the denominator 0, where scikit-learn's quotient is 1 for
    every row: score_samples -0.5 whatever the row.  --scores was refused ("its
    denominator 0.0 is not a positive number"); its C now writes those scores, through
    the binary64 routines too, warning-free under the strict flags and c89."""
    from treegen.verify.build import STRICT_FLAGS, build

    X = _data(False)[:3]
    est = sklearn.ensemble.IsolationForest(
        n_estimators=2, max_samples=1, contamination=0.3, random_state=0
    ).fit(X)
    ens = from_estimator(est)
    assert ens.anomaly is not None and ens.anomaly.denominator == 0
    rows = np.vstack([X, _data(False)[3:40]]).astype(np.float32).astype(np.float64)
    want = np.column_stack([est.score_samples(rows), est.decision_function(rows)])
    assert np.array_equal(isolation.glibc_scores(ens, rows), want)
    r = render(ens, ExportOptions(prefix="i", style="ifs", scores=True))
    flags = [f for f in STRICT_FLAGS if f != "-std=c99"]
    cc = " ".join(["gcc", "-std=c89", *flags, "-Werror", *(["-DI_SOFT64=1"] if soft else [])])
    cls, out = build(r.lowered, r.files, tmp_path, cc=cc).run(rows.astype(np.float32))
    assert same_bits(out, want)
    assert np.array_equal(np.where(cls == 1, 1, -1), est.predict(rows))

"""An imported estimator's numpy arithmetic equals ``estimator.predict`` bit for bit.

For every supported estimator, on test rows, on rows moved to every threshold's float32
neighbours, and (where the estimator takes NaN) on rows with missing values: the class
equals ``estimator.predict``'s, and the scores equal ``predict_proba`` (a forest) or
``decision_function`` (boosting, AdaBoost) in every bit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import treegen
from treegen.ensemble import classify
from treegen.ensemble.sklearn import ensemble_from_sklearn
from treegen.errors import DatasetError

from support.cli import run_cli
from support.floatbits import same_bits
from support.sklearn_models import sklearn_thresholds, threshold_rows, with_nan

sklearn = pytest.importorskip("sklearn")
from sklearn import datasets  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    AdaBoostClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier  # noqa: E402

ESTIMATORS = {
    "tree": lambda: DecisionTreeClassifier(random_state=0),
    "extra_tree": lambda: ExtraTreeClassifier(random_state=0),
    "forest": lambda: RandomForestClassifier(n_estimators=10, max_depth=8, random_state=0),
    "extra_trees": lambda: ExtraTreesClassifier(n_estimators=10, random_state=0),
    "boosting": lambda: GradientBoostingClassifier(n_estimators=15, max_depth=3, random_state=0),
    "boosting_zero": lambda: GradientBoostingClassifier(
        n_estimators=8, max_depth=2, init="zero", learning_rate=0.3, random_state=0
    ),
    "hist": lambda: HistGradientBoostingClassifier(max_iter=15, random_state=0),
    "adaboost": lambda: AdaBoostClassifier(n_estimators=15, random_state=0),
}
# The estimators whose predict takes NaN (GradientBoosting and AdaBoost refuse it).
TAKES_NAN = {"tree", "extra_tree", "forest", "extra_trees", "hist"}
DATA = {
    "iris": lambda: datasets.load_iris(return_X_y=True),
    "cancer": lambda: datasets.load_breast_cancer(return_X_y=True),
    "binary_iris": lambda: (
        datasets.load_iris(return_X_y=True)[0],
        (datasets.load_iris(return_X_y=True)[1] == 1).astype(int) * 3 + 4,
    ),
}


def _scores(est: Any, X: np.ndarray) -> np.ndarray:
    if (
        hasattr(est, "estimators_")
        and type(est).__name__
        in (
            "RandomForestClassifier",
            "ExtraTreesClassifier",
        )
        or type(est).__name__ in ("DecisionTreeClassifier", "ExtraTreeClassifier")
    ):
        return np.asarray(est.predict_proba(X))
    d = np.asarray(est.decision_function(X))
    return d.reshape(len(X), -1)


def _check(est: Any, X: np.ndarray) -> None:
    ens = ensemble_from_sklearn(est)
    got = np.asarray(est.classes_)[classify.predict(ens, X)]
    assert np.array_equal(got, est.predict(X))
    mine = classify.decision_values(ens, X)
    theirs = _scores(est, X)
    assert mine.shape == theirs.shape
    assert same_bits(mine, theirs.astype(np.float64))


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_predict_and_scores_equal_sklearn(name: str, data: str) -> None:
    X, y = DATA[data]()
    est = ESTIMATORS[name]().fit(X, y)
    rows = np.vstack([X, threshold_rows(X, sklearn_thresholds(est))])
    _check(est, rows.astype(np.float32).astype(np.float64) if name != "hist" else rows)
    if name != "hist":
        # The rows as float64: scikit-learn's trees round them to float32 themselves.
        _check(est, rows)


@pytest.mark.parametrize("name", sorted(TAKES_NAN))
def test_nan_goes_where_sklearn_sends_it(name: str) -> None:
    """NaN in training and prediction: each node's learnt side (missing_go_to_left),
    and a node that saw no NaN sends it to its larger child, as the estimator does."""
    X, y = datasets.load_breast_cancer(return_X_y=True)
    Xn = with_nan(X, 0.15, 1)
    est = ESTIMATORS[name]().fit(Xn, y)
    rows = np.vstack([Xn, with_nan(X, 0.5, 2), np.full((1, X.shape[1]), np.nan)])
    _check(est, rows)


@pytest.mark.parametrize("name", sorted(set(ESTIMATORS) - TAKES_NAN))
def test_nan_refused_where_sklearn_refuses_it_and_answered_in_the_c(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GradientBoosting and AdaBoost raise on NaN in predict: so do the imported model's
    predictions (predict, predict_proba, the command line), a one-line error naming the
    row and feature, while its C, which cannot raise, sends NaN down each node's
    missing-value side (missing_go_to_left, as the fitted trees' own ``tree_.predict``
    does) and verify holds it to that (its rows hold NaN)."""
    X, y = DATA["iris"]()
    est = ESTIMATORS[name]().fit(X, y)
    with pytest.raises(ValueError):
        est.predict(with_nan(X[:3], 1.0, 0))
    model = treegen.from_sklearn(est)
    Xn = X[:5].copy()
    Xn[3, 2] = np.nan
    for call in (model.predict, model.predict_proba):
        with pytest.raises(DatasetError) as info:
            call(Xn)
        assert str(info.value).startswith("X: row 3 (from 0), feature 'x2'")
        assert type(est).__name__ in str(info.value) and "\n" not in str(info.value)
    assert np.array_equal(model.predict(X), est.predict(X))  # no NaN: answered
    path = tmp_path / "m.trees"
    model.save(path)
    data = tmp_path / "rows.csv"
    data.write_text("x0,x1,x2,x3\n5.1,3.5,?,0.2\n")
    code, out, err = run_cli(capsys, "predict", str(path), str(data))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    # The command line names the cell by DATA's line and column, as a reader would.
    assert err.startswith(f"treegen: error: {data}:2:9: feature 'x2'")
    data.write_text("x0,x1,x2,x3,class\n5.1,3.5,1.4,0.2,0\n\n5.1,3.5,?,0.2,0\n")
    code, out, err = run_cli(capsys, "eval", str(path), str(data))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith(f"treegen: error: {data}:4:9: feature 'x2'")
    # A weight column taken out before the model's columns, and an ARFF file's
    # comment lines and blanks: the same cell's place.
    data.write_text("w,x0,x1,x2,x3\n1,5.1,3.5,1.4,0.2\n2,5.1,3.5,,0.2\n")
    code, out, err = run_cli(capsys, "predict", str(path), str(data), "--weights", "w")
    assert code == 2 and err.startswith(f"treegen: error: {data}:3:11: feature 'x2'")
    arff = tmp_path / "rows.arff"
    head = "".join(f"@attribute x{i} numeric\n" for i in range(4))
    arff.write_text(f"@relation r\n{head}@data\n5.1,3.5,1.4,0.2\n% note\n5.1, 3.5 ,?,0.2\n")
    code, out, err = run_cli(capsys, "predict", str(path), str(arff))
    assert code == 2 and err.startswith(f"treegen: error: {arff}:9:11: feature 'x2'")
    cases = tmp_path / "rows.data"
    cases.write_text("5.1,3.5,1.4,0.2,0\n5.1,3.5,?,0.2,0\n")
    code, out, err = run_cli(capsys, "predict", str(path), str(cases))
    assert code == 2 and err.startswith(f"treegen: error: {cases}:2:9: feature 'x2'")
    report = model.verify(n_random=50)
    assert report.ok and report.passed > 50 and "missing" in report.text


def test_nan_refused_by_an_imported_gradient_boosting_regressor() -> None:
    """A regressor's values refuse NaN as its classifier's classes do."""
    from sklearn.ensemble import GradientBoostingRegressor

    X, y = DATA["iris"]()
    est = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y * 1.5)
    model = treegen.from_sklearn(est)
    Xn = X[:4].copy()
    Xn[2, 0] = np.nan
    with pytest.raises(DatasetError, match="row 2 .*'x0'.*GradientBoostingRegressor"):
        model.predict(Xn)
    assert np.array_equal(model.predict(X[:4]), est.predict(X[:4]))


@pytest.mark.slow
def test_hist_categorical_features_and_unknown_categories() -> None:
    """HistGradientBoosting's categorical columns: encoded by its preprocessor (moved
    first, sorted categories); an unknown, negative, fractional or too large category
    goes the missing way."""
    rng = np.random.default_rng(0)
    n = 3000
    X = np.column_stack(
        [rng.normal(size=n), rng.integers(0, 9, n) * 3.0, rng.normal(size=n), rng.integers(2, 6, n)]
    )
    y = ((X[:, 0] > 0) ^ np.isin(X[:, 1], [3, 9, 15])).astype(int) + (X[:, 3] == 4)
    X = with_nan(X, 0.08, 3)
    est = HistGradientBoostingClassifier(
        max_iter=25, categorical_features=[1, 3], random_state=0
    ).fit(X, y)
    probe = X[:50].copy()
    extra = []
    for v in (-3.0, 1.5, 4.0, 27.0, 1e9, np.nan, 0.0, 24.0):
        r = probe[:5].copy()
        r[:, 1] = v
        r[:, 3] = v if v != 24.0 else 5.0
        extra.append(r)
    _check(est, np.vstack([X, probe, *extra]))
    ens = ensemble_from_sklearn(est)
    assert ens.categories[1] == tuple(float(c) for c in range(0, 27, 3))


def test_hist_string_categories_are_nominal_codes() -> None:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    n = 1500
    cats = np.array(["red", "green", "blue", "cyan"])
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "colour": pd.Categorical(cats[rng.integers(0, 4, n)]),
        }
    )
    y = ((frame.x > 0) & (frame.colour != "red")).astype(int)
    est = HistGradientBoostingClassifier(max_iter=10, random_state=0).fit(frame, y)
    ens = ensemble_from_sklearn(est)
    colour = ens.schema.attributes[1]
    assert colour.kind == "nominal" and colour.values == ("blue", "cyan", "green", "red")
    codes = np.asarray([colour.values.index(c) for c in frame.colour.astype(str)], dtype=float)
    X = np.column_stack([frame.x.to_numpy(), codes])
    assert np.array_equal(classify.predict(ens, X), est.predict(frame))


@pytest.mark.parametrize("name", ["tree", "forest", "adaboost"])
def test_a_single_class_fit(name: str) -> None:
    """y with one class: scikit-learn fits a tree, a forest and AdaBoost on it
    (AdaBoost's decision_function is zeros, one column; its first tree is perfect and
    boosting stops), and predicts that class everywhere.  (Histogram boosting on one
    class is refused at import: tests/estimator/test_sklearn_import.py.)"""
    from treegen.codegen.options import ExportOptions
    from treegen.kinds.check import verify

    X, _ = datasets.load_iris(return_X_y=True)
    est = ESTIMATORS[name]().fit(X, np.full(len(X), 7))
    rows = np.vstack([X, threshold_rows(X, sklearn_thresholds(est))])
    _check(est, rows.astype(np.float32).astype(np.float64))
    opts = ExportOptions(prefix="e", scores=name == "adaboost")
    report = verify(ensemble_from_sklearn(est), opts, n_random=50)
    assert report.ok, report.text()


@pytest.mark.parametrize("strategy", ["prior", "most_frequent", "uniform", "constant"])
@pytest.mark.parametrize("data", ["iris", "binary_iris"])
def test_boosting_with_a_constant_dummy_init(strategy: str, data: str) -> None:
    """GradientBoosting's init may be any DummyClassifier whose predict_proba does not
    depend on X: its raw score is a constant, taken from the estimator itself."""
    from sklearn.dummy import DummyClassifier

    X, y = DATA[data]()
    # GradientBoosting fits its init to the encoded classes 0, 1, ...
    init = DummyClassifier(strategy=strategy, constant=1)  # type: ignore[arg-type]
    est = GradientBoostingClassifier(n_estimators=5, max_depth=2, init=init, random_state=0)
    est.fit(X, y)
    rows = np.vstack([X, threshold_rows(X, sklearn_thresholds(est))])
    _check(est, rows.astype(np.float32).astype(np.float64))


def test_boosting_with_an_init_that_reads_x_or_draws_is_refused() -> None:
    from sklearn.dummy import DummyClassifier

    from treegen.errors import UsageError

    X, y = DATA["iris"]()
    for init, what in (
        (DummyClassifier(strategy="stratified"), "DummyClassifier(strategy='stratified')"),
        (DecisionTreeClassifier(max_depth=1), "DecisionTreeClassifier"),
    ):
        est = GradientBoostingClassifier(n_estimators=2, init=init, random_state=0).fit(X, y)
        with pytest.raises(UsageError, match=r"init is a .*") as exc:
            ensemble_from_sklearn(est)
        assert what in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_binary_boosting_probabilities_follow_the_loss(loss: str) -> None:
    """A binary GradientBoostingClassifier's predict_proba is its loss's link of the raw
    score: ``expit(raw)`` for log_loss, ``expit(2 * raw)`` for the exponential loss
    (AdaBoost's), and Model.predict_proba gives the estimator's numbers."""
    X, y = DATA["cancer"]()
    est = GradientBoostingClassifier(n_estimators=10, max_depth=2, loss=loss, random_state=0)
    est.fit(X, y)
    rows = np.vstack([X, threshold_rows(X, sklearn_thresholds(est))])
    rows = rows.astype(np.float32).astype(np.float64)
    model = treegen.from_sklearn(est)
    assert np.array_equal(model.predict(rows), est.predict(rows))
    assert np.array_equal(model.predict_proba(rows), est.predict_proba(rows))

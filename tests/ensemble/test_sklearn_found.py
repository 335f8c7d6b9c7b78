"""Defects the scikit-learn configuration fuzz (test_sklearn_fuzz.py) found, each as
its smallest case, from the user's entry point."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import treegen
from treegen.errors import DatasetError, UsageError

from support.cli import run_cli
from support.floatbits import same_bits

sklearn = pytest.importorskip("sklearn")
from sklearn.ensemble import (  # noqa: E402
    AdaBoostClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from sklearn.tree import ExtraTreeClassifier, ExtraTreeRegressor  # noqa: E402

X = np.asarray([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0], [5.0, 0.0]])
NAN_ROW = np.asarray([[np.nan, 1.0]])


@pytest.mark.parametrize("cls", [ExtraTreeClassifier, ExtraTreeRegressor])
def test_an_extra_tree_with_the_best_splitter_refuses_nan_as_scikit_learn_does(
    cls: Any, tmp_path: Path
) -> None:
    # scikit-learn 1.9's ExtraTree* take NaN only with splitter="random" (its default):
    # with splitter="best" predict raises, and the imported model answered the row.
    est = cls(splitter="best", random_state=0).fit(X, [0, 0, 1, 1, 0, 1])
    with pytest.raises(ValueError, match="NaN"):
        est.predict(NAN_ROW)
    model = treegen.from_sklearn(est)
    for m in (model, treegen.load(model.save(tmp_path / "m.trees").path)):
        with pytest.raises(DatasetError) as info:
            m.predict(NAN_ROW)
        assert str(info.value).startswith("X: row 0 (from 0), feature 'x0'")
        assert cls.__name__ in str(info.value) and "\n" not in str(info.value)
        assert np.array_equal(m.predict(X), est.predict(X))  # no NaN: answered


@pytest.mark.parametrize("cls", [ExtraTreeClassifier, ExtraTreeRegressor])
def test_an_extra_tree_with_the_random_splitter_answers_nan_as_scikit_learn_does(
    cls: Any,
) -> None:
    Xn = X.copy()
    Xn[1, 0] = np.nan
    est = cls(random_state=0).fit(Xn, [0, 0, 1, 1, 0, 1])
    rows = np.vstack([X, NAN_ROW, [[np.nan, np.nan]]])
    assert np.array_equal(treegen.from_sklearn(est).predict(rows), est.predict(rows))


def test_a_one_class_adaboost_has_probability_one_as_scikit_learn_says() -> None:
    # Fitted on one label, AdaBoostClassifier.predict_proba is a column of ones; the
    # imported model's divided its zero scores by K - 1 = 0: NaN.
    est = AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, ["a"] * len(X))
    model = treegen.from_sklearn(est)
    want = est.predict_proba(X)
    got = model.predict_proba(X)
    assert want.shape == got.shape == (len(X), 1)
    assert same_bits(got, want)
    assert np.array_equal(model.predict(X), est.predict(X))


def test_a_one_class_adaboost_answers_nan_where_scikit_learn_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fitted on one label, AdaBoostClassifier.predict_proba is a column of ones without
    # reading X, NaN rows too; its predict raises on NaN (decision_function checks X
    # first).  The imported model refused NaN in both.
    est = AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, ["a"] * len(X))
    rows = np.vstack([NAN_ROW, X, [[np.nan, np.nan]]])
    with pytest.raises(ValueError, match="NaN"):
        est.predict(rows)
    want = est.predict_proba(rows)
    path = tmp_path / "est.pkl"
    path.write_bytes(pickle.dumps(est))
    code, out, err = run_cli(capsys, "import-sklearn", str(path), "-o", str(tmp_path / "m.trees"))
    assert code == 0, err
    for model in (treegen.from_sklearn(est), treegen.load(tmp_path / "m.trees")):
        got = model.predict_proba(rows)
        assert want.shape == got.shape == (len(rows), 1)
        assert same_bits(got, want)
        with pytest.raises(DatasetError, match=r"row 0 \(from 0\), feature 'x0'"):
            model.predict(rows)
        assert np.array_equal(model.predict(X), est.predict(X))
        # The C answers the only class on every row, these too (it cannot raise).
        report = model.verify(rows, n_random=20)
        assert report.ok and report.passed > len(rows), report.text


def test_a_histogram_regressor_whose_baseline_overflows_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Targets near the largest double: the mean overflows, the baseline is inf and
    # every prediction inf. from_sklearn took it and export_c (and verify) failed on
    # an assert with a traceback; import-sklearn refused its model file in one line.
    with np.errstate(over="ignore"):  # scikit-learn's own sum overflows
        est = HistGradientBoostingRegressor(max_iter=3).fit(X, np.full(len(X), 1e308))
        assert np.isinf(est.predict(X)).all()
    with pytest.raises(UsageError) as info:
        treegen.from_sklearn(est)
    assert "baseline" in str(info.value) and "inf" in str(info.value)
    assert "\n" not in str(info.value)
    path = tmp_path / "est.pkl"
    path.write_bytes(pickle.dumps(est))
    code, out, err = run_cli(capsys, "import-sklearn", str(path), "-o", str(tmp_path / "m.trees"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "baseline" in err, err
    assert not (tmp_path / "m.trees").exists()


@pytest.mark.parametrize("k", [3, 8, 12])
def test_boosted_probabilities_of_eight_classes_and_more_are_scikit_learns(
    k: int,
) -> None:
    # scikit-learn's softmax sums each row of its raw scores, which histogram boosting
    # holds in Fortran order: numpy adds them one after another. The model's C-ordered
    # row was summed pairwise from 8 classes on, and a last bit differed in a third of
    # the rows. AdaBoost's decision_function is Fortran-ordered too (its np.where of a
    # transposed array); GradientBoostingClassifier's raw scores are C-ordered.
    rng = np.random.default_rng(0)
    Xk = rng.normal(size=(400, 3))
    y = np.arange(400) % k
    for est in (
        HistGradientBoostingClassifier(max_iter=3, random_state=0).fit(Xk, y),
        GradientBoostingClassifier(n_estimators=3, random_state=0).fit(Xk, y),
        AdaBoostClassifier(n_estimators=5, random_state=0).fit(Xk, y),
    ):
        got, want = treegen.from_sklearn(est).predict_proba(Xk), est.predict_proba(Xk)
        assert got.shape == want.shape == (len(Xk), k)
        assert same_bits(got, want), type(est).__name__


@pytest.mark.parametrize("value", [np.inf, -np.inf, 1e39, -3.5e38])
def test_a_value_float32_cannot_hold_is_refused_where_scikit_learn_refuses_it(
    value: float, tmp_path: Path
) -> None:
    # scikit-learn's forests and boosted models read X as finite float32 and raise on
    # such a value; the imported model answered it.  HistGradientBoosting and
    # IsolationForest take it, and so does the model.
    from sklearn.ensemble import IsolationForest, RandomForestClassifier

    y = [0, 0, 1, 1, 0, 1]
    row = np.asarray([[1.0, value]])
    for est in (
        RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y),
        GradientBoostingClassifier(n_estimators=3).fit(X, y),
    ):
        with pytest.raises(ValueError, match="infinity"), np.errstate(over="ignore"):
            est.predict(row)  # (its cast to float32 overflows first)
        model = treegen.from_sklearn(est)
        for m in (model, treegen.load(model.save(tmp_path / "m.trees").path)):
            with pytest.raises(DatasetError) as info:
                m.predict(np.vstack([X, row]))
            text = str(info.value)
            assert "row 6 (from 0), feature 'x1'" in text and "not finite in float32" in text
            assert type(est).__name__ in text and "\n" not in text
            assert np.array_equal(m.predict(X), est.predict(X))
    for est in (
        HistGradientBoostingClassifier(max_iter=3).fit(X, y),
        IsolationForest(n_estimators=3, random_state=0).fit(X),
    ):
        rows = np.vstack([X, row])
        with np.errstate(over="ignore"):  # IsolationForest's cast to float32 overflows
            assert np.array_equal(treegen.from_sklearn(est).predict(rows), est.predict(rows))

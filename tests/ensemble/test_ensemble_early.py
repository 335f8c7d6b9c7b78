"""A forest's class decided before its last tree (treegen.ensemble.early, PREFIX_EARLY):
the C returns estimator.predict's class on rows that stop early and rows that do not,
and does not stop where a leader's sum is exactly T/2 and the trees left make a tie."""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble.early import checks, early_view, one_class_rows, slack
from treegen.kinds.check import verify
from treegen.kinds.export import render
from treegen.verify.build import build

from support.sklearn_models import fit_setup

sklearn = pytest.importorskip("sklearn")

from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier  # noqa: E402

from treegen.ensemble.sklearn import ensemble_from_sklearn  # noqa: E402

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _source(files: dict[str, str]) -> str:
    return next(text for name, text in files.items() if name.endswith(".c"))


def test_the_checks_and_the_slack() -> None:
    assert checks(10) == (7,)
    assert checks(3) == ()  # ceil(2.1) = 3: no tree left to save
    assert checks(4) == (3,)
    assert checks(100) == tuple(range(55, 100, 5))
    assert all(2 * k > 40 and k < 40 for k in checks(40))
    # 16 T^2 u = 1,600 * 2^-53 rounds up to 2^-42.
    assert slack(10, Fraction(0)) == 2.0**-42
    assert slack(100, Fraction(0)) == 2.0**-35
    assert Fraction(slack(10, Fraction(0))) >= Fraction(16 * 100, 2**53)


def _sensor(n: int, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).astype(np.float32)
    # Mostly clear classes with a noisy band, so that some rows stop and some do not.
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.6, size=n) > 0).astype(np.int64)
    y += (X[:, 2] > 1.0).astype(np.int64)
    return X, y


def _stops(est: Any, X: Any, bound: float, ks: tuple[int, ...]) -> Any:
    """Which rows the C stops early on: its float64 sums in tree order, checked."""
    acc = np.zeros((X.shape[0], est.n_classes_))
    stop = np.zeros(X.shape[0], dtype=bool)
    for k, tree in enumerate(est.estimators_, 1):
        acc += tree.predict_proba(X)
        if k in ks:
            stop |= (acc > bound).any(axis=1)
    return stop


@needs_gcc
@pytest.mark.parametrize("forest", [RandomForestClassifier, ExtraTreesClassifier])
def test_the_c_equals_predict_on_rows_that_stop_and_rows_that_do_not(
    forest: Any, tmp_path: Path
) -> None:
    X, y = _sensor(3000, 1)
    est = forest(10, max_depth=6, random_state=0).fit(X[:2000], y[:2000])
    ens = ensemble_from_sklearn(est)
    opts = ExportOptions(prefix="e", style="ifs")
    r = render(ens, opts)
    view = early_view(r.lowered)
    assert view.early_checks == (7,) and view.early_default == 1
    assert "E_EARLY" in _source(r.files)
    rows = X[2000:]
    stop = _stops(est, rows.astype(np.float64), float(view.early_bound), view.early_checks)
    assert 0 < stop.sum() < rows.shape[0], stop.sum()  # both kinds of rows
    c_cls, _ = build(r.kind.api(r.lowered), r.files, tmp_path).run(rows)
    assert np.array_equal(c_cls, est.predict(rows))
    report = verify(ens, opts, n_random=300)
    assert report.ok, report.text()


@needs_gcc
def test_integer_inputs_of_a_small_forest_check_only_when_asked(tmp_path: Path) -> None:
    X, y = _sensor(2000, 2)
    X = np.round(X * 4).astype(np.float32)
    est = RandomForestClassifier(10, max_depth=6, random_state=0).fit(X[:1500], y[:1500])
    ens = ensemble_from_sklearn(est)
    opts = ExportOptions(prefix="e", style="ifs", input_type="int16")
    r = render(ens, opts)
    assert early_view(r.lowered).early_default == 0
    rows = X[1500:]
    for cc in ("gcc", "gcc -DE_EARLY=1"):
        built = build(r.kind.api(r.lowered), r.files, tmp_path / cc.replace(" ", "_"), cc=cc)
        c_cls, _ = built.run(rows)
        assert np.array_equal(c_cls, est.predict(rows)), cc


def _stumps(left: list[tuple[float, float]]) -> Any:
    """A forest of len(left) stumps on x <= 0.5 whose left leaves hold ``left``'s rows."""
    X = np.array([[0.0], [1.0]])
    est = RandomForestClassifier(
        len(left), max_depth=1, bootstrap=False, max_features=None, random_state=0
    ).fit(X, np.array([0, 1]))
    for tree, row in zip(est.estimators_, left, strict=True):
        t = tree.tree_
        assert t.node_count == 3 and t.children_left[0] == 1
        t.value[1] = [list(row)]
    return est


@needs_gcc
@pytest.mark.parametrize("check", ["majority", "margin"])
@pytest.mark.parametrize("style", ["ifs", "table"])
def test_a_leader_at_exactly_half_does_not_stop_and_the_tie_goes_first(
    style: str, check: str, tmp_path: Path
) -> None:
    # After 7 of 10 trees class 1 has 5.0 = T/2 exactly (class 0 has 2.0); the last
    # three trees give class 0 3.0: the sums tie at 5.0 and the first class wins.
    # Stopping at 7 would say class 1.  (The margin check: class 1 leads by 3, the
    # trees left, and the tie would go to class 0: no stop either.)
    tie = _stumps([(0.0, 1.0)] * 5 + [(1.0, 0.0)] * 5)
    # After 7 trees class 1 has 6.0, above the bound: the C stops there, on class 1.
    ahead = _stumps([(0.0, 1.0)] * 6 + [(1.0, 0.0)] * 4)
    rows = np.array([[0.0], [0.25], [1.0], [np.nan]], dtype=np.float32)
    for est, want in ((tie, 0), (ahead, 1)):
        if check == "majority":  # a leaf of two classes (rows 1.0 reach it): no margin
            est.estimators_[0].tree_.value[2] = [[0.5, 0.5]]
        assert est.predict(rows[:1])[0] == want
        ens = ensemble_from_sklearn(est)
        opts = ExportOptions(prefix="e", style=style)  # type: ignore[arg-type]
        r = render(ens, opts)
        if style == "ifs":
            view = early_view(r.lowered)
            assert view.early_checks == (7,)
            assert view.early_margin == (check == "margin")
            if check == "majority":
                assert 5.0 < float(view.early_bound) < 6.0
        c_cls, _ = build(r.kind.api(r.lowered), r.files, tmp_path / f"{want}").run(rows)
        assert np.array_equal(c_cls, est.predict(rows))
        assert c_cls[0] == want


def test_one_class_rows_are_a_one_and_positive_zeros() -> None:
    assert one_class_rows(((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)))
    assert not one_class_rows(((1.0, -0.0),))  # -0.0 would make a sum -0
    assert not one_class_rows(((0.5, 0.5),)) and not one_class_rows(((1.0, 1.0),))
    assert not one_class_rows(())


@needs_gcc
@pytest.mark.parametrize("input_type", ["float", "int16"])
def test_a_fully_grown_forest_checks_the_margin_and_equals_predict(
    input_type: str, tmp_path: Path
) -> None:
    """Every leaf one class's: the margin check, exact; the C stops on some rows (the
    leader ahead by more than the trees left, short of a majority on some of them) and
    gives predict's class on every row, stopped or not."""
    X, _ = _sensor(2500, 3)
    X = np.round(X * 4).astype(np.float32)
    # Classes that the rows decide (equal rows, equal classes: every leaf pure), four.
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64) + 2 * (X[:, 2] + X[:, 3] > 1)
    est = RandomForestClassifier(20, max_features=1, random_state=0).fit(X[:1500], y[:1500])
    ens = ensemble_from_sklearn(est)
    opts = ExportOptions(prefix="e", style="ifs", input_type=input_type)  # type: ignore[arg-type]
    r = render(ens, opts)
    view = early_view(r.lowered)
    assert view.early_margin and view.early_checks == tuple(range(11, 20))
    assert "e_lead(acc, 9.0)" in _source(r.files) and "e_value[" not in _source(r.files)
    rows = X[1500:]
    votes = np.zeros((rows.shape[0], est.n_classes_))
    margin_stops = majority_stops = 0
    for k, tree in enumerate(est.estimators_, 1):
        votes += tree.predict_proba(rows.astype(np.float64))
        if k == 15:  # a check with r = 5 trees left
            top = np.sort(votes, axis=1)
            margin_stops = int(np.count_nonzero(top[:, -1] - top[:, -2] > 5))
            majority_stops = int(np.count_nonzero(top[:, -1] > 10))
    assert majority_stops < margin_stops < rows.shape[0]  # sooner, and not on every row
    for cc in ("gcc", "gcc -DE_EARLY=0"):
        built = build(r.kind.api(r.lowered), r.files, tmp_path / cc.replace(" ", "_"), cc=cc)
        c_cls, _ = built.run(rows)
        assert np.array_equal(c_cls, est.predict(rows)), cc


def test_no_early_exit_where_it_is_not_proven_or_not_wanted() -> None:
    forest = fit_setup("forest")  # 6 trees: a check after 5
    assert "E_EARLY" in _source(render(forest, ExportOptions(prefix="e", style="ifs")).files)
    unchecked = [
        render(forest, ExportOptions(prefix="e", style="ifs", proba=True)),
        render(forest, ExportOptions(prefix="e", style="table")),
        render(fit_setup("boosting"), ExportOptions(prefix="e", style="ifs")),
        render(fit_setup("adaboost"), ExportOptions(prefix="e", style="ifs")),
        render(fit_setup("tree"), ExportOptions(prefix="e", style="ifs")),
        render(fit_setup("leaf_forest"), ExportOptions(prefix="e", style="ifs")),  # 3 trees
    ]
    for r in unchecked:
        assert "E_EARLY" not in _source(r.files)


def test_a_value_outside_zero_one_has_no_early_exit() -> None:
    est = _stumps([(0.0, 1.0)] * 9 + [(1.0, 0.0)])
    est.estimators_[0].tree_.value[2] = [[1.5, -0.5]]
    r = render(ensemble_from_sklearn(est), ExportOptions(prefix="e", style="ifs"))
    assert early_view(r.lowered).early_checks == ()

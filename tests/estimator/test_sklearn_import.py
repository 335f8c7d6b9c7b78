"""treegen.from_sklearn and ``treegen import-sklearn``: a fitted scikit-learn tree (an
ensemble of one) or ensemble as a treegen model whose C predicts exactly what
``estimator.predict`` does, on test rows, on rows one float32 ulp either side of every
threshold and on NaN."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.codegen.options import ExportOptions
from treegen.errors import TreegenError, UsageError
from treegen.kinds.export import render
from treegen.verify.build import build, have_compiler

from support.cli import run_cli
from support.sklearn_models import sklearn_thresholds, threshold_rows

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import load_breast_cancer, load_digits, load_iris  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier  # noqa: E402

needs_gcc = pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")


def _fit(loader, cls=DecisionTreeClassifier):  # type: ignore[no-untyped-def]
    X, y = loader(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    return cls(random_state=0).fit(Xtr, ytr), Xtr, Xte


def _c_labels(model: treegen.Model, X: np.ndarray, input_type: str, workdir: Path) -> np.ndarray:
    r = render(model.value, ExportOptions(input_type=input_type))  # type: ignore[arg-type]
    cls, _ = build(r.kind.api(r.lowered), r.files, workdir).run(X)
    return model.classes_[cls]


@needs_gcc
@pytest.mark.parametrize(
    "loader,kind",
    [
        (load_iris, ExtraTreeClassifier),
        (load_breast_cancer, DecisionTreeClassifier),
        (load_digits, DecisionTreeClassifier),
    ],
)
def test_c_equals_sklearn_float(loader, kind, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    est, Xtr, Xte = _fit(loader, kind)
    model = treegen.from_sklearn(est)
    X = np.vstack([Xte, threshold_rows(Xtr, sklearn_thresholds(est))]).astype(np.float32)
    assert np.array_equal(model.predict(X.astype(np.float64)), est.predict(X))
    assert np.array_equal(_c_labels(model, X, "float", tmp_path), est.predict(X))


@needs_gcc
def test_c_equals_sklearn_int16_digits(tmp_path: Path) -> None:
    # Digits are integers 0..16: an int16 input with scale 1 is exact.
    est, Xtr, Xte = _fit(load_digits)
    model = treegen.from_sklearn(est)
    X = np.vstack([Xte, np.clip(np.round(Xtr[:50]) + 1, 0, 16)]).astype(np.int16)
    assert np.array_equal(_c_labels(model, X, "int16", tmp_path), est.predict(X))


def test_threshold_between_two_float32_is_exact() -> None:
    # One feature, two points: sklearn's threshold is the double midway between 0.1f
    # and 0.2f, which is no float32; the model must split float32 values exactly there.
    a, b = float(np.float32(0.1)), float(np.float32(0.2))
    est = DecisionTreeClassifier().fit([[a], [b]], [0, 1])
    model = treegen.from_sklearn(est)
    grid = np.float32(a) + np.arange(-3, 3000, dtype=np.float32) * np.float32(1e-7)
    X = grid.reshape(-1, 1).astype(np.float32)
    assert np.array_equal(model.predict(X.astype(np.float64)), est.predict(X))


def test_labels_and_names() -> None:
    est, _, Xte = _fit(load_iris)
    model = treegen.from_sklearn(est, feature_names=["a", "b", "c", "d"])
    assert model.feature_names == ("a", "b", "c", "d") and model.kind.name == "ensemble"
    assert list(model.classes_) == list(est.classes_) and model.classes_.dtype.kind == "i"
    y = np.array(["setosa", "versicolor", "virginica"])[load_iris(return_X_y=True)[1]]
    est2 = DecisionTreeClassifier(random_state=0).fit(load_iris(return_X_y=True)[0], y)
    m2 = treegen.from_sklearn(est2)
    assert list(m2.predict(Xte)) == list(est2.predict(Xte))


def test_byte_classes_are_named_by_their_text() -> None:
    """A tree, a forest and a histogram boosting model whose classes_ are bytes: classes
    named by their text ("setosa", not "b'setosa'"), predict returning the bytes.  (This
    scikit-learn refuses to fit on bytes labels; older ones fitted on them, and
    classes_ is the estimator's attribute to set.)"""
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, codes = load_iris(return_X_y=True)
    y = np.array(["setosa", "versicolor", "virginica"])[codes]
    for cls in (DecisionTreeClassifier, RandomForestClassifier, HistGradientBoostingClassifier):
        est = cls(random_state=0, **({"max_iter": 3} if "Hist" in cls.__name__ else {}))
        est.fit(X, y)
        est.classes_ = est.classes_.astype("S")
        model = treegen.from_sklearn(est)
        assert model.schema.classes == ("setosa", "versicolor", "virginica"), cls
        assert model.predict(X).tolist() == est.predict(X).tolist(), cls
        assert est.predict(X)[0] == b"setosa", cls


def test_rejects_what_it_cannot_map() -> None:
    from sklearn.linear_model import LinearRegression

    with pytest.raises(
        UsageError, match="LinearRegression.*RandomForestClassifier.*DecisionTreeRegressor"
    ):
        treegen.from_sklearn(LinearRegression().fit([[0.0], [1.0]], [0.0, 1.0]))
    with pytest.raises(UsageError, match="not fitted"):
        treegen.from_sklearn(DecisionTreeClassifier())
    est = DecisionTreeClassifier().fit([[0.0, 1.0], [1.0, 0.0]], [0, 1])
    with pytest.raises(UsageError, match="2 distinct names"):
        treegen.from_sklearn(est, feature_names=["a"])
    with pytest.raises(UsageError, match="cannot name the class column"):
        treegen.from_sklearn(est, feature_names=["a", "b"], target="a")
    two = DecisionTreeClassifier().fit([[0.0], [1.0]], [[0, 1], [1, 0]])
    with pytest.raises(UsageError, match=r"a DecisionTreeClassifier of 2 outputs is not"):
        treegen.from_sklearn(two)


def test_a_refused_estimator_is_named_with_its_article() -> None:
    """A class name that begins with a vowel takes "an" ("a OneVsRestClassifier" before)."""
    from sklearn.multiclass import OneVsRestClassifier

    X, y = load_iris(return_X_y=True)
    wrapper = OneVsRestClassifier(DecisionTreeClassifier(max_depth=2)).fit(X, y)
    with pytest.raises(UsageError, match="cannot import an OneVsRestClassifier: "):
        treegen.from_sklearn(wrapper)


def test_an_xgboost_or_lightgbm_estimator_is_refused_naming_its_importer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An XGBClassifier or LGBMClassifier is scikit-learn's API but not its estimator:
    from_sklearn and import-sklearn of its pickle listed scikit-learn's classes only (and
    said "a XGBClassifier"); they now name the library's importer."""
    xgb = pytest.importorskip("xgboost")
    lgb = pytest.importorskip("lightgbm")
    X, y = load_iris(return_X_y=True)
    cases = [
        (
            xgb.XGBClassifier(n_estimators=2, max_depth=2, n_jobs=1).fit(X, y),
            "cannot import an XGBClassifier: it is XGBoost's: treegen.from_xgboost(estimator), "
            "or its save_model('m.json') and 'treegen import-xgboost m.json'",
        ),
        (
            lgb.LGBMClassifier(n_estimators=2, num_leaves=4, verbose=-1).fit(X, y),
            "cannot import an LGBMClassifier: it is LightGBM's: "
            "treegen.from_lightgbm(estimator), or its Booster's save_model('m.txt') and "
            "'treegen import-lightgbm m.txt'",
        ),
    ]
    for est, message in cases:
        with pytest.raises(UsageError) as info:
            treegen.from_sklearn(est)
        assert info.value.message == message
        pkl = tmp_path / "m.pkl"
        pkl.write_bytes(pickle.dumps(est))
        out = tmp_path / "m.trees"
        got = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out))
        assert got == (2, "", f"treegen: error: {pkl}: {message}\n") and not out.exists()


def test_a_wrapper_is_refused_with_what_to_import_instead() -> None:
    """A Pipeline, a search or a calibration wraps a tree treegen reads: the refusal says
    which attribute holds it and what the C would leave out (it listed the supported
    classes only)."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(random_state=0)
    cases = [
        (make_pipeline(StandardScaler(), tree), r"Pipeline: .*pipeline\[-1\].*StandardScaler"),
        (GridSearchCV(tree, {"max_depth": [2, 3]}, cv=2), r"GridSearchCV: .*best_estimator_"),
        (CalibratedClassifierCV(tree, cv=2), r"CalibratedClassifierCV: .*calibrat"),
        (treegen.C45Classifier(), r"C45Classifier: .*to_model\(\)"),
    ]
    for wrapper, match in cases:
        with pytest.raises(UsageError, match="cannot import a " + match):
            treegen.from_sklearn(wrapper.fit(X, y))
    best = GridSearchCV(tree, {"max_depth": [2, 3]}, cv=2).fit(X, y).best_estimator_
    assert (treegen.from_sklearn(best).predict(X) == best.predict(X)).all()


@needs_gcc
def test_nan_goes_where_the_tree_learnt(tmp_path: Path) -> None:
    """A tree trained with NaN: the model and its C send NaN down each node's learnt side
    (missing_go_to_left), so both equal estimator.predict on rows with NaN too."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = treegen.from_sklearn(est)
    rows = np.vstack([X, np.full((1, 3), np.nan)])
    assert np.array_equal(model.predict(rows), est.predict(rows))
    c = _c_labels(model, rows.astype(np.float32), "float", tmp_path)
    assert np.array_equal(c, est.predict(rows))


@pytest.mark.parametrize("dumper", ["pickle", "joblib"])
def test_cli_import_sklearn(
    dumper: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    est = RandomForestClassifier(n_estimators=5, random_state=0).fit(*load_iris(return_X_y=True))
    Xte = load_iris(return_X_y=True)[0][::3]
    pkl = tmp_path / "forest.pkl"
    if dumper == "joblib":
        joblib = pytest.importorskip("joblib")
        joblib.dump(est, pkl)
    else:
        pkl.write_bytes(pickle.dumps(est))
    out = tmp_path / "forest.trees"
    code, _, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out))
    assert code == 0, err
    model = treegen.load(out)
    assert np.array_equal(model.predict(Xte), est.predict(Xte))
    assert model == treegen.from_sklearn(est)


def test_one_class_histogram_boosting_and_a_class_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A HistGradientBoostingClassifier fitted on one class made a model its own file
    refused ("decision gt0 needs exactly 2 classes": from_sklearn gave it, save wrote it,
    load failed); the estimator's class instead of a fitted one was "a ABCMeta".  Both
    are one-line refusals naming what to do, on the command line nothing written."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    X = np.random.default_rng(0).normal(size=(100, 2))
    one = HistGradientBoostingClassifier(max_iter=2).fit(X, np.full(100, "only"))
    with pytest.raises(UsageError, match=r"fitted on one class \(only\) is not exported"):
        treegen.from_sklearn(one)
    with pytest.raises(UsageError, match="cannot import a DecisionTreeClassifier class: "):
        treegen.from_sklearn(DecisionTreeClassifier)
    single = DecisionTreeClassifier().fit(X, np.zeros(100, dtype=int))  # one class: a leaf
    assert treegen.from_sklearn(single).predict(X[:3]).tolist() == [0, 0, 0]
    for est in (one, DecisionTreeClassifier):
        pkl = tmp_path / "e.pkl"
        pkl.write_bytes(pickle.dumps(est))
        out = tmp_path / "m.trees"
        code, stdout, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out))
        assert code == 2 and stdout == "" and err.count("\n") == 1, err
        assert err.startswith(f"treegen: error: {pkl}: ") and not out.exists()


def test_a_pickle_of_another_scikit_learn_version_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scikit-learn warns (InconsistentVersionWarning, several lines) and promises
    nothing of an estimator pickled by another version: import-sklearn refused nothing
    and wrote the model.  Now one line naming the file and both versions, exit 2,
    nothing written."""
    import io

    est = DecisionTreeClassifier(max_depth=2, random_state=0).fit(*load_iris(return_X_y=True))

    class OldVersion(pickle.Pickler):
        def reducer_override(self, obj: object) -> object:
            if obj is not est:
                return NotImplemented
            parts = list(est.__reduce_ex__(4))
            parts[2] = {**parts[2], "_sklearn_version": "0.24.2"}
            return tuple(parts)

    buf = io.BytesIO()
    OldVersion(buf, protocol=4).dump(est)
    pkl = tmp_path / "old.pkl"
    pkl.write_bytes(buf.getvalue())
    out = tmp_path / "m.trees"
    code, stdout, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out))
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {pkl}: a DecisionTreeClassifier saved by ")
    assert f"scikit-learn 0.24.2, read by {sklearn.__version__}" in err
    assert not out.exists()
    pkl.write_bytes(pickle.dumps(est))  # this version's pickle: imported
    code, _, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out))
    # No warning: the one line on stderr is the note of what was written.
    assert code == 0 and err == f"treegen: wrote {out}: DecisionTreeClassifier, 1 tree, 5 nodes\n"
    assert out.exists()


def test_cli_import_sklearn_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.pkl"
    bad.write_bytes(pickle.dumps({"not": "a tree"}))
    code, _, err = run_cli(capsys, "import-sklearn", str(bad), "-o", str(tmp_path / "m.trees"))
    assert code == 2 and err.startswith("treegen: error:") and "dict" in err
    assert "RandomForestClassifier" in err  # the supported list
    code, _, err = run_cli(
        capsys, "import-sklearn", str(tmp_path / "none.pkl"), "-o", str(tmp_path / "m.trees")
    )
    assert code == 2 and "none.pkl" in err


def _tampered(change):  # type: ignore[no-untyped-def]
    """A fitted iris tree whose pickled node arrays ``change`` edits (scikit-learn checks
    none of it on unpickling)."""
    est = DecisionTreeClassifier(random_state=0).fit(*load_iris(return_X_y=True))
    state = dict(est.tree_.__getstate__())
    state["nodes"], state["values"] = state["nodes"].copy(), state["values"].copy()
    change(state)
    est.tree_.__setstate__(state)
    return est


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s["nodes"]["left_child"].__setitem__(0, 0), "tree_: node 0 is reached twice"),
        (
            lambda s: s["nodes"]["right_child"].__setitem__(0, s["nodes"]["left_child"][0]),
            "is reached twice",
        ),
        (lambda s: s["nodes"]["left_child"].__setitem__(0, 10**6), "tree_: a child 1000000 of"),
        (
            lambda s: s["nodes"]["feature"].__setitem__(0, 99),
            "tree_.feature[0] is 99, of 4 features",
        ),
        (
            lambda s: s["nodes"]["feature"].__setitem__(0, -5),
            "tree_.feature[0] is -5, of 4 features",
        ),
        (
            lambda s: s["values"].__setitem__(slice(None), np.nan),
            "tree_.value[1] (a leaf's value) is not finite",
        ),
        (lambda s: s["nodes"]["threshold"].__setitem__(0, np.nan), "tree_.threshold[0] is NaN"),
        # The node weights a single tree's inline top is chosen by.
        (
            lambda s: s["nodes"]["weighted_n_node_samples"].__setitem__(2, -1.0),
            "tree_.weighted_n_node_samples: not one finite, non-negative number per node",
        ),
        (
            lambda s: s["nodes"]["weighted_n_node_samples"].__setitem__(0, np.inf),
            "tree_.weighted_n_node_samples: not one finite, non-negative number per node",
        ),
    ],
)
def test_cli_import_sklearn_checks_the_trees_arrays(
    change, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    """A tampered pickle: one line, exit 2, no model written."""
    pkl = tmp_path / "t.pkl"
    pkl.write_bytes(pickle.dumps(_tampered(change)))
    code, out, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(tmp_path / "m.trees"))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {pkl}: the estimator is inconsistent: ")
    assert message in err
    assert not (tmp_path / "m.trees").exists()


@pytest.mark.slow
def test_cli_import_sklearn_reads_skops_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skops file of every supported kind of estimator imports (its trusted types
    only) and predicts what the estimator predicts; a file holding another type, a
    damaged archive, are one-line errors."""
    sio = pytest.importorskip("skops.io")
    from sklearn.ensemble import HistGradientBoostingClassifier

    from support.sklearn_models import _data, with_nan

    X, y = _data()
    Xn = with_nan(X, 0.1, 7)
    for est in (
        RandomForestClassifier(4, max_depth=4, random_state=0).fit(Xn, y),
        HistGradientBoostingClassifier(max_iter=4, categorical_features=[1]).fit(Xn, y),
    ):
        path = tmp_path / "m.skops"
        sio.dump(est, path)
        out = tmp_path / "m.trees"
        code, _, err = run_cli(capsys, "import-sklearn", str(path), "-o", str(out))
        assert code == 0, err
        model = treegen.load(out)
        assert np.array_equal(model.predict(Xn), est.predict(Xn))
    # A type outside the trusted list: named, nothing written.
    import operator

    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    pipe = make_pipeline(FunctionTransformer(operator.neg), RandomForestClassifier(2)).fit(X, y)
    sio.dump(pipe, tmp_path / "p.skops")
    code, _, err = run_cli(
        capsys, "import-sklearn", str(tmp_path / "p.skops"), "-o", str(tmp_path / "p.trees")
    )
    assert code == 2 and "does not trust" in err and "_operator.neg" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "p.trees").exists()
    # A damaged archive.
    raw = (tmp_path / "m.skops").read_bytes()
    (tmp_path / "bad.skops").write_bytes(raw[: len(raw) // 2])
    code, _, err = run_cli(
        capsys, "import-sklearn", str(tmp_path / "bad.skops"), "-o", str(tmp_path / "b.trees")
    )
    assert code == 2 and "bad.skops" in err and len(err.strip().splitlines()) == 1


def test_show_and_info_print_names_that_do_not_print_on_one_line() -> None:
    """Feature and class names holding a newline (a DataFrame's columns, string labels)
    print as ``<U+000A>`` in an imported model's show and info, as a tree's do."""
    from treegen.kinds import kind_of

    X = np.random.default_rng(0).normal(size=(60, 2))
    est = DecisionTreeClassifier(max_depth=1).fit(X, np.where(X[:, 0] > 0, "p\nq", "r"))
    model = treegen.from_sklearn(est, feature_names=["a\nb", "c"])
    kind = kind_of(model.value)
    summary = kind.show["c45"](model.value)
    assert "classes (2): p<U+000A>q, r\n" in summary
    info = kind.info(model.value, "float")
    assert "  a<U+000A>b     1  (continuous)\n" in info
    assert "  c              0  (continuous)\n" in info


def test_a_warm_start_forest_refitted_on_other_classes_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """warm_start keeps a forest's earlier trees: refitted on labels of another class
    count, those trees vote for 3 classes in a forest of 2, and scikit-learn's own
    predict fails on it.  It was refused as 'the estimator is inconsistent: a tree's
    values are not 2 class fractions per node', which names neither the tree nor the
    cause; now the tree, both counts and warm_start, in one line (exit 2)."""
    from sklearn.ensemble import ExtraTreesClassifier

    X = np.random.default_rng(0).normal(size=(100, 3))
    y2 = (X[:, 0] > 0).astype(int)
    forest = ExtraTreesClassifier(n_estimators=2, warm_start=True, random_state=0)
    forest.fit(X, y2 + (X[:, 1] > 0)).set_params(n_estimators=3).fit(X, y2)
    with pytest.raises(ValueError):
        forest.predict(X[:2])  # scikit-learn's own predict fails on it
    with pytest.raises(UsageError, match=r"tree 0 of the ExtraTreesClassifier was fitted on 3 "):
        treegen.from_sklearn(forest)
    pkl = tmp_path / "e.pkl"
    pkl.write_bytes(pickle.dumps(forest))
    out = tmp_path / "m.trees"
    code, stdout, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out))
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert "classes and the forest has 2" in err and "warm_start" in err and not out.exists()


def _boosted_and_forest():  # type: ignore[no-untyped-def]
    from sklearn.ensemble import (
        AdaBoostClassifier,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )

    X = np.random.default_rng(0).normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    return (
        X,
        y,
        {
            "gb": GradientBoostingClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y),
            "gbr": GradientBoostingRegressor(n_estimators=3, max_depth=2, random_state=0).fit(
                X, X[:, 0]
            ),
            "rf": RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y),
            # (labels no stump fits: AdaBoost stops after a perfect first tree)
            "ada": AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, X[:, 0] + X[:, 1] > 0),
            "hist": HistGradientBoostingClassifier(max_iter=3, random_state=0).fit(X, y),
        },
    )


def _nan_at(est, where: str) -> None:  # type: ignore[no-untyped-def]
    """Set NaN at ``where``: "value" (the first leaf's value) or "threshold" (the root's)
    of the estimator's second tree, or the learning rate or an AdaBoost weight."""
    name = type(est).__name__
    if where == "learning_rate":
        est.learning_rate = float("nan")
    elif where == "estimator_weights_":
        est.estimator_weights_[2] = np.nan
    elif name.startswith("Hist"):
        nodes = est._predictors[1][0].nodes
        leaf = int(np.flatnonzero(nodes["is_leaf"])[0])
        if where == "value":
            nodes["value"][leaf] = np.nan
        else:
            nodes["num_threshold"][0] = np.nan
    else:
        member = est.estimators_[1, 0] if est.estimators_.__class__ is np.ndarray else None
        tree = (member if member is not None else est.estimators_[1]).tree_
        state = dict(tree.__getstate__())
        state["nodes"], state["values"] = state["nodes"].copy(), state["values"].copy()
        if where == "value":
            leaf = int(np.flatnonzero(state["nodes"]["left_child"] == -1)[0])
            state["values"][leaf] = np.nan
        else:
            state["nodes"]["threshold"][0] = np.nan
        tree.__setstate__(state)


@pytest.mark.parametrize(
    ("kind", "where", "named"),
    [
        ("gb", "threshold", "estimators_[1, 0].tree_.threshold[0] is NaN"),
        ("gb", "value", "estimators_[1, 0].tree_.value[1] (a leaf's value) is not finite"),
        ("gb", "learning_rate", "learning_rate nan is not a finite number"),
        ("gbr", "threshold", "estimators_[1, 0].tree_.threshold[0] is NaN"),
        ("gbr", "learning_rate", "learning_rate nan is not a finite number"),
        ("rf", "threshold", "estimators_[1].tree_.threshold[0] is NaN"),
        ("ada", "threshold", "estimators_[1].tree_.threshold[0] is NaN"),
        ("ada", "estimator_weights_", "estimator_weights_[2] is not finite"),
        ("hist", "threshold", "_predictors[1][0]: node 0's threshold is NaN"),
        ("hist", "value", "_predictors[1][0]: node 1's leaf value is not finite"),
    ],
)
def test_nan_in_an_ensemble_is_named_where_it_is(
    kind: str, where: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A GradientBoosting file with NaN in its second tree was refused as "node 0's
    threshold is NaN" (which of its trees?), a NaN learning rate as "a leaf value of node
    1 is not finite": now the file and the place in the estimator, as the XGBoost and
    LightGBM readers name a path or a line."""
    _, _, models = _boosted_and_forest()
    est = models[kind]
    _nan_at(est, where)
    pkl = tmp_path / f"{kind}.pkl"
    pkl.write_bytes(pickle.dumps(est))
    code, out, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(tmp_path / "m.trees"))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err == f"treegen: error: {pkl}: the estimator is inconsistent: {named}\n"
    assert not (tmp_path / "m.trees").exists()
    with pytest.raises(UsageError, match=re.escape(named)):
        treegen.from_sklearn(est)


def test_an_estimator_altered_after_fitting_is_a_treegen_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A forest whose member lost its tree_ (an edited pickle) is a TreegenError (and a
    ValueError) naming what failed, the original error kept as its cause; the CLI prints
    the same message as the file's, exit 2, and writes nothing."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    est = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, X[:, 0] > 0)
    del est.estimators_[1].__dict__["tree_"]
    want = r"not a fitted estimator treegen can read \(AttributeError: .*'tree_'"
    with pytest.raises(TreegenError, match="^" + want) as err:
        treegen.from_sklearn(est)
    assert isinstance(err.value, ValueError)
    assert isinstance(err.value.__cause__, AttributeError)
    pkl, out = tmp_path / "edited.pkl", tmp_path / "m.trees"
    pkl.write_bytes(pickle.dumps(est))
    code, _, stderr = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out))
    assert code == 2 and not out.exists()
    assert re.fullmatch(rf"treegen: error: {re.escape(str(pkl))}: {want}\)\n", stderr)


def test_an_imported_forest_warns_once_about_unnamed_columns() -> None:
    """A forest fitted on named columns, given an array: scikit-learn's warning, once a
    call (Model.predict read X twice for a classifier of the ensemble kind, and said
    it twice)."""
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(0).normal(size=(50, 2))
    est = RandomForestClassifier(n_estimators=2, random_state=0)
    est.fit(pd.DataFrame(X, columns=["a", "b"]), X[:, 0] > 0)
    model = treegen.from_sklearn(est)
    with pytest.warns(UserWarning, match="valid feature names") as said:
        assert np.array_equal(model.predict(X), est.predict(pd.DataFrame(X, columns=["a", "b"])))
    assert len(said) == 1

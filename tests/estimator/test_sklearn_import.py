"""treegen.from_sklearn and ``treegen import-sklearn``: a fitted scikit-learn tree as a
treegen model whose C predicts exactly what ``estimator.predict`` does, on test rows
and on rows one float32 ulp either side of every threshold."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.errors import UsageError
from treegen.verify.build import build, have_compiler

from support.cli import run_cli

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import load_breast_cancer, load_digits, load_iris  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier  # noqa: E402

needs_gcc = pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")


def _fit(loader, cls=DecisionTreeClassifier):  # type: ignore[no-untyped-def]
    X, y = loader(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    return cls(random_state=0).fit(Xtr, ytr), Xtr, Xte


def _threshold_rows(est, Xtr: np.ndarray, integer: bool) -> np.ndarray:  # type: ignore[no-untyped-def]
    """For every test node, a training row that reaches it with the node's feature set
    to float32 neighbours of the threshold (or, for integer data, the integers either
    side)."""
    tree = est.tree_
    path = est.decision_path(Xtr).tocsc()
    rows = []
    for node in np.flatnonzero(tree.children_left >= 0):
        reach = path.indices[path.indptr[node] : path.indptr[node + 1]]
        base = Xtr[reach[0]].astype(np.float32)
        t = float(tree.threshold[node])
        if integer:
            values = [np.floor(t) - 1, np.floor(t), np.ceil(t), np.ceil(t) + 1]
        else:
            t32 = np.float32(t)
            if float(t32) > t:
                t32 = np.nextafter(t32, np.float32(-np.inf))
            down = np.nextafter(t32, np.float32(-np.inf))
            up = np.nextafter(t32, np.float32(np.inf))
            values = [down, t32, up, np.nextafter(up, np.float32(np.inf))]
        for v in values:
            r = base.copy()
            r[tree.feature[node]] = v
            rows.append(r)
    return np.asarray(rows, dtype=np.float32)


def _c_labels(
    model: treegen.Model, X: np.ndarray, style: str, input_type: str, workdir: Path
) -> np.ndarray:
    ir = lower(model, ExportOptions(style=style, input_type=input_type))
    built = build(ir, emit(ir, style), workdir)
    cls, _ = built.run(X)
    return model.classes_[cls]


@needs_gcc
@pytest.mark.parametrize("style", ["ifs", "table"])
@pytest.mark.parametrize(
    "loader,kind",
    [
        (load_iris, ExtraTreeClassifier),
        (load_breast_cancer, DecisionTreeClassifier),
        (load_digits, DecisionTreeClassifier),
    ],
)
def test_c_equals_sklearn_float(loader, kind, style: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    est, Xtr, Xte = _fit(loader, kind)
    model = treegen.from_sklearn(est)
    X = np.vstack([Xte.astype(np.float32), _threshold_rows(est, Xtr, integer=False)])
    want = est.predict(X)
    assert np.array_equal(_c_labels(model, X, style, "float", tmp_path), want)
    assert np.array_equal(model.predict(X.astype(np.float64)), want)


@needs_gcc
@pytest.mark.parametrize("style", ["ifs", "table"])
def test_c_equals_sklearn_int16_digits(style: str, tmp_path: Path) -> None:
    est, Xtr, Xte = _fit(load_digits)
    model = treegen.from_sklearn(est)
    X = np.vstack([Xte, _threshold_rows(est, Xtr, integer=True)])
    assert np.array_equal(X, np.round(X))
    want = est.predict(X)
    assert np.array_equal(_c_labels(model, X.astype(np.int16), style, "int16", tmp_path), want)


def test_threshold_is_the_largest_float32_below() -> None:
    # One feature, two points: sklearn's threshold is the double midway between 0.1f
    # and 0.2f, which is no float32; the model must split float32 values exactly there.
    a, b = float(np.float32(0.1)), float(np.float32(0.2))
    est = DecisionTreeClassifier().fit([[a], [b]], [0, 1])
    t = float(est.tree_.threshold[0])
    model = treegen.from_sklearn(est)
    t32 = model.nodes[0].threshold
    assert float(np.float32(t32)) == t32 and t32 <= t < float(
        np.nextafter(np.float32(t32), np.float32(np.inf))
    )
    grid = np.float32(a) + np.arange(-3, 3000, dtype=np.float32) * np.float32(1e-7)
    grid = np.concatenate([grid, [np.float32(t32), np.nextafter(np.float32(t32), np.float32(1))]])
    X = grid.reshape(-1, 1).astype(np.float32)
    assert np.array_equal(model.predict(X.astype(np.float64)), est.predict(X))


def test_labels_names_and_counts() -> None:
    est, _, Xte = _fit(load_iris)
    model = treegen.from_sklearn(est, feature_names=["a", "b", "c", "d"])
    assert model.feature_names == ("a", "b", "c", "d")
    assert list(model.classes_) == list(est.classes_)
    root = model.nodes[0]
    assert root.items == est.tree_.weighted_n_node_samples[0]
    assert sum(root.dist) == root.items and all(d == int(d) for d in root.dist)
    y = np.array(["setosa", "versicolor", "virginica"])[load_iris(return_X_y=True)[1]]
    est2 = DecisionTreeClassifier(random_state=0).fit(load_iris(return_X_y=True)[0], y)
    m2 = treegen.from_sklearn(est2)
    assert list(m2.predict(Xte)) == list(est2.predict(Xte))


def test_rejects_what_it_cannot_map() -> None:
    from sklearn.tree import DecisionTreeRegressor

    with pytest.raises(UsageError, match="DecisionTreeRegressor"):
        treegen.from_sklearn(DecisionTreeRegressor().fit([[0.0], [1.0]], [0.0, 1.0]))
    with pytest.raises(UsageError, match="not fitted"):
        treegen.from_sklearn(DecisionTreeClassifier())
    est = DecisionTreeClassifier().fit([[0.0, 1.0], [1.0, 0.0]], [0, 1])
    with pytest.raises(UsageError, match="2 distinct names"):
        treegen.from_sklearn(est, feature_names=["a"])


@needs_gcc
def test_nan_trained_tree_one_answer(tmp_path: Path) -> None:
    # NaN follows C4.5's rule (not the learnt direction): the model and its C agree.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = treegen.from_sklearn(est)
    assert any(n.threshold == np.finfo(np.float32).max for n in model.nodes if not n.is_leaf)
    known = ~np.isnan(X).any(axis=1)
    assert np.array_equal(model.predict(X[known]), est.predict(X[known]))
    assert np.array_equal(
        _c_labels(model, X.astype(np.float32), "ifs", "float", tmp_path), model.predict(X)
    )


@pytest.mark.parametrize("dumper", ["pickle", "joblib"])
def test_cli_import_sklearn(
    dumper: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    est, _, Xte = _fit(load_iris)
    pkl = tmp_path / "tree.pkl"
    if dumper == "joblib":
        joblib = pytest.importorskip("joblib")
        joblib.dump(est, pkl)
    else:
        pkl.write_bytes(pickle.dumps(est))
    out = tmp_path / "model.tree"
    code, _, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out))
    assert code == 0, err
    model = treegen.load(out)
    assert np.array_equal(model.predict(Xte), est.predict(Xte))
    assert model == treegen.from_sklearn(est)


def test_cli_import_sklearn_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.pkl"
    bad.write_bytes(pickle.dumps({"not": "a tree"}))
    code, _, err = run_cli(capsys, "import-sklearn", str(bad), "-o", str(tmp_path / "m.tree"))
    assert code == 2 and err.startswith("treegen: error:") and "dict" in err
    code, _, err = run_cli(
        capsys, "import-sklearn", str(tmp_path / "none.pkl"), "-o", str(tmp_path / "m.tree")
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
        (lambda s: s["nodes"]["left_child"].__setitem__(0, 0), "node 0 is reached twice"),
        (
            lambda s: s["nodes"]["right_child"].__setitem__(0, s["nodes"]["left_child"][0]),
            "is reached twice",
        ),
        (lambda s: s["nodes"]["left_child"].__setitem__(0, 10**6), "has child 1000000 of"),
        (lambda s: s["nodes"]["feature"].__setitem__(0, 99), "node 0 tests feature 99 of 4"),
        (lambda s: s["nodes"]["feature"].__setitem__(0, -5), "node 0 tests feature -5 of 4"),
        (lambda s: s["values"].__setitem__(slice(None), np.nan), "negative or not finite"),
        (lambda s: s["values"].__setitem__(slice(None), -1.0), "negative or not finite"),
        (lambda s: s["values"].__setitem__(slice(None), 0.0), "has no class weight"),
    ],
)
def test_cli_import_sklearn_checks_the_trees_arrays(
    change, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    """A tampered pickle (a cycle hung the import, a dangling child or NaN weight was a
    traceback, a bad feature index wrote a model treegen then refused): one line, exit 2,
    no model written."""
    pkl = tmp_path / "t.pkl"
    pkl.write_bytes(pickle.dumps(_tampered(change)))
    code, out, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(tmp_path / "m.tree"))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {pkl}: the estimator's tree is inconsistent: ")
    assert message in err
    assert not (tmp_path / "m.tree").exists()

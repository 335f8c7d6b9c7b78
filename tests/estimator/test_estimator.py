"""treegen.C45Classifier: scikit-learn's conventions, without scikit-learn as a dependency."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.errors import EstimatorError
from treegen.model.file import model_to_json
from treegen.model.show import format_tree

sklearn = pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")

from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"


def _arrays(seed: int = 0, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[:, 2] = rng.integers(0, 3, n)
    y = np.where(X[:, 0] + X[:, 2] > 1.0, "hi", "lo")
    X[::13, 1] = np.nan
    return X, y


def _golf_frame() -> tuple[pd.DataFrame, np.ndarray]:
    rows = [
        line.rstrip(".\n").split(", ")
        for line in GOLF.with_suffix(".data").read_text().splitlines()
        if line.strip()
    ]
    frame = pd.DataFrame(
        {
            "outlook": pd.Categorical(
                [r[0] for r in rows], categories=["sunny", "overcast", "rain"]
            ),
            "temperature": [float(r[1]) for r in rows],
            "humidity": [float(r[2]) for r in rows],
            "windy": pd.Categorical([r[3] for r in rows], categories=["true", "false"]),
        }
    )
    return frame, np.array([r[4] for r in rows])


# BaseEstimator is deliberately not a base class (scikit-learn is no dependency);
# check_estimator warns about that and then runs every check.
@pytest.mark.filterwarnings("ignore:Estimator C45Classifier does not inherit:UserWarning")
@pytest.mark.parametrize("params", [{}, {"flavor": "j48"}, {"subsets": True}])
def test_check_estimator_passes(params: dict[str, object]) -> None:
    results = check_estimator(treegen.C45Classifier(**params), on_skip=None, on_fail=None)
    failed = [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert failed == []
    assert sum(r["status"] == "passed" for r in results) >= 50


@pytest.mark.slow
def test_importing_treegen_does_not_import_sklearn() -> None:
    code = (
        "import sys, treegen; treegen.C45Classifier(); "
        "print(any(m.split('.')[0] in ('sklearn', 'pandas') for m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert out.strip() == "False"


def test_fit_is_api_train_on_the_same_arrays() -> None:
    X, y = _arrays()
    est = treegen.C45Classifier(cf=0.1, min_cases=3, nominal=[2]).fit(X, y)
    model = treegen.train((X, y), nominal=[2], cf=0.1, min_cases=3)
    assert model_to_json(est.to_model()) == model_to_json(model)
    assert est.predict(X).tolist() == model.predict(X).tolist()
    assert np.array_equal(est.predict_proba(X), model.predict_proba(X))
    assert est.classes_.tolist() == ["hi", "lo"] and est.n_features_in_ == 3
    assert not hasattr(est, "feature_names_in_")
    assert est.score(X, y) == np.mean(est.predict(X) == y)


def test_byte_labels_are_predicted_as_bytes_and_named_by_their_text() -> None:
    """As scikit-learn: classes_ and predict are y's own bytes; the tree (and its C)
    names the classes by their text, not their repr ("b'hi'")."""
    X, y = _arrays()
    raw = np.asarray([v.encode() for v in y])
    est = treegen.C45Classifier(nominal=[2]).fit(X, raw)
    assert est.classes_.tolist() == [b"hi", b"lo"]
    assert est.to_model().schema.classes == ("hi", "lo")
    pred = est.predict(X)
    assert pred.dtype == raw.dtype and pred.tolist() == [v.encode() for v in treegen.C45Classifier(
        nominal=[2]).fit(X, y).predict(X)]  # fmt: skip


def test_adaboost_grows_trees_on_its_normalised_weights() -> None:
    """scikit-learn's AdaBoostClassifier passes sample_weight summing to 1: the estimator
    takes such weights as proportions, scaled to the number of rows (as Weka's
    AdaBoostM1 keeps J48's), so its first tree is the unweighted one, not a leaf."""
    from sklearn.ensemble import AdaBoostClassifier

    from treegen.data.readers import read_dataset

    names = str(GOLF.parents[1] / "monk3" / "monk3.names")
    monk = treegen.train(names)
    ds = read_dataset(names)
    X, y = ds.X, np.asarray(ds.schema.classes)[ds.y]
    nominal = list(range(X.shape[1]))
    alone = treegen.C45Classifier(nominal=nominal).fit(X, y)
    assert len(alone.to_model().value.nodes) == len(monk.value.nodes) > 1
    ada = AdaBoostClassifier(treegen.C45Classifier(nominal=nominal), n_estimators=5)
    ada.fit(X, y)
    sizes = [len(e.to_model().value.nodes) for e in ada.estimators_]
    assert len(sizes) == 5 and min(sizes) > 1, sizes
    assert np.array_equal(ada.estimators_[0].predict(X), alone.predict(X))
    assert ada.score(X, y) > alone.score(X, y)
    # Weights summing to 1 are the same proportions as any weights scaled to n rows;
    # any other sum keeps its counts (treegen.train's weights too: a total of 1 is a leaf).
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    fit = treegen.C45Classifier(nominal=nominal).fit
    scaled = w * (len(y) / w.sum())
    assert model_to_json(fit(X, y, w / w.sum()).to_model()) == model_to_json(
        fit(X, y, scaled).to_model()
    )
    assert model_to_json(fit(X, y, 2 * w).to_model()) != model_to_json(fit(X, y, w).to_model())
    leaf = treegen.train((X, y), nominal=nominal, weights=w / w.sum())
    assert len(leaf.value.nodes) == 1


def test_a_dataframe_of_golf_is_the_names_file_tree() -> None:
    frame, y = _golf_frame()
    est = treegen.C45Classifier().fit(frame, y)
    assert est.feature_names_in_.tolist() == ["outlook", "temperature", "humidity", "windy"]
    assert est.categories_ == {0: ("sunny", "overcast", "rain"), 3: ("true", "false")}
    reference = treegen.train(f"{GOLF}.names")
    assert format_tree(est.to_model(), header=False) == format_tree(reference, header=False)
    assert est.predict(frame).tolist() == reference.predict(f"{GOLF}.data").tolist()


def test_nominal_by_name_and_by_index_agree() -> None:
    frame, y = _golf_frame()
    plain = frame.astype({"outlook": str, "windy": str})
    by_name = treegen.C45Classifier(nominal=["outlook", "windy"]).fit(plain, y)
    by_index = treegen.C45Classifier(nominal=[0, 3]).fit(plain.to_numpy(dtype=object), y)
    # Without pandas' category order the values are sorted.
    assert by_name.categories_[0] == ("overcast", "rain", "sunny")
    # The same tree; only the feature names differ (x0.. without a DataFrame).
    assert by_name.to_model().nodes == by_index.to_model().nodes
    assert by_index.to_model().feature_names == ("x0", "x1", "x2", "x3")
    assert (
        by_name.predict(plain).tolist() == by_index.predict(plain.to_numpy(dtype=object)).tolist()
    )


def test_a_text_column_not_named_nominal_is_named_in_the_error() -> None:
    """fit takes a DataFrame's text columns as numbers unless ``nominal`` names them (or
    they are categorical): the error names the column as the DataFrame does, and says
    how to make it nominal; predict names it too."""
    frame, y = _golf_frame()
    plain = frame.astype({"outlook": str, "windy": str})
    with pytest.raises(EstimatorError) as info:
        treegen.C45Classifier(nominal=["windy"]).fit(plain, y)
    assert str(info.value).startswith("X: column 'outlook' must hold numbers")
    assert str(info.value).endswith("; a column of labels is nominal: nominal=['outlook']")
    with pytest.raises(EstimatorError, match=r"^X: column 2 must hold .*nominal=\[2\]$"):
        treegen.C45Classifier(nominal=[0, 3]).fit(plain.assign(humidity="high").to_numpy(), y)
    est = treegen.C45Classifier(nominal=["outlook", "windy"]).fit(plain, y)
    with pytest.raises(EstimatorError) as info:
        est.predict(plain.assign(humidity="high"))
    assert str(info.value).startswith("X: column 'humidity' must hold numbers")
    assert "nominal=" not in str(info.value)  # the fitted model's columns are what they are


def test_nan_is_missing_and_an_unseen_value_is_missing() -> None:
    frame, y = _golf_frame()
    est = treegen.C45Classifier().fit(frame, y)
    unknown = frame.iloc[:1].copy()
    unknown["outlook"] = pd.Categorical([None], categories=["sunny", "overcast", "rain"])
    unseen = frame.iloc[:1].astype({"outlook": object}).copy()
    unseen["outlook"] = ["fog"]
    assert np.array_equal(est.predict_proba(unknown), est.predict_proba(unseen))
    x = est._x(unknown)
    assert np.isnan(x[0, 0])
    with pytest.warns(UserWarning, match="valid feature names"):
        tree_proba = treegen.train(f"{GOLF}.names").predict_proba(x)
    assert np.array_equal(est.predict_proba(unknown), tree_proba[:, ::-1])


def test_pipeline_gridsearch_and_cross_val_score() -> None:
    X, y = _arrays(seed=3, n=240)
    pipe = Pipeline(
        [
            ("scale", FunctionTransformer(lambda a: a * 2.0)),
            ("tree", treegen.C45Classifier(nominal=[2])),
        ]
    )
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.8)
    grid = GridSearchCV(
        treegen.C45Classifier(), {"cf": [0.05, 0.25], "min_cases": [2, 10]}, cv=3
    ).fit(X, y)
    assert set(grid.best_params_) == {"cf", "min_cases"}
    assert grid.best_estimator_.get_params()["cf"] == grid.best_params_["cf"]
    assert grid.score(X, y) == grid.best_estimator_.score(X, y)


def test_export_c_is_the_models_export(tmp_path: Path) -> None:
    X, y = _arrays()
    est = treegen.C45Classifier(nominal=[2]).fit(X, y)
    written = est.export_c(tmp_path, style="table")
    assert [p.name for p in written] == ["predict.c", "predict.h"]
    # The provenance comment names the output folder: write both into the same one.
    ours = {p.name: p.read_text() for p in written}
    est.to_model().export_c(tmp_path, style="table")
    assert ours == {p.name: p.read_text() for p in written}


def test_errors_are_treegen_errors_and_value_errors() -> None:
    X, y = _arrays()
    with pytest.raises(treegen.TreegenError, match="^min_cases: ") as info:
        treegen.C45Classifier(min_cases=0).fit(X, y)
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="not fitted"):
        treegen.C45Classifier().predict(X)
    with pytest.raises(ValueError, match="no feature named 'z'"):
        treegen.C45Classifier(nominal=["z"]).fit(X, y)
    with pytest.raises(ValueError, match="Invalid parameter 'depth'"):
        treegen.C45Classifier().set_params(depth=3)


@pytest.mark.parametrize("ref", [-1, -3, 3, np.int64(-1), 2.0, True])
def test_nominal_indices_are_columns_0_to_n_minus_1(ref: object) -> None:
    """A negative index is refused, as scikit-learn refuses one in categorical_features
    (it was taken as Python counts from the end); so are one past the last column and
    an index that is no integer; with the same words as treegen.train's."""
    X, y = _arrays()
    with pytest.raises(EstimatorError, match=r"^nominal: column .* \(0\.\.2\)") as info:
        treegen.C45Classifier(nominal=[ref]).fit(X, y)  # type: ignore[list-item]
    with pytest.raises(treegen.TreegenError) as api:
        treegen.train((X, y), nominal=[ref])  # type: ignore[list-item]
    assert str(api.value) == str(info.value)
    assert repr(treegen.C45Classifier(cf=0.1, nominal=[2])) == "C45Classifier(cf=0.1, nominal=[2])"


def test_the_estimators_warnings_name_the_line_that_called() -> None:
    """scikit-learn's warnings (X's column names, a column-vector y) point at the
    user's line; a fixed stacklevel named treegen's own estimator module."""
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]] * 3)
    y = np.array([0, 0, 1, 1] * 3)
    named = treegen.C45Classifier().fit(pd.DataFrame(X, columns=["a", "b"]), y)
    plain = treegen.C45Classifier().fit(X, y)
    for call, said in (
        (lambda: named.predict(X), "X does not have valid feature names"),
        (lambda: plain.predict(pd.DataFrame(X, columns=["a", "b"])), "X has feature names"),
        (lambda: treegen.C45Classifier().fit(X, y.reshape(-1, 1)), "A column-vector y"),
    ):
        with pytest.warns(Warning) as caught:
            call()
        assert [str(w.message)[: len(said)] for w in caught] == [said]
        assert caught[0].filename == __file__

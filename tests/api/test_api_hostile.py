"""Arguments of the wrong type or of values past their range, found by the API's
argument fuzz (test_api_fuzz.py): each was, before its fix, a bare ValueError,
TypeError or a numpy warning from deep inside, blamed on another argument, or
silently taken; each is now a TreegenError whose message starts with the argument.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import treegen
from treegen.errors import DatasetError, EstimatorError, TrainError, TreegenError, UsageError

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"


def _arrays() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, np.where(X[:, 0] > 0, 1, 0)


def _starts(
    error: type[TreegenError], argument: str, call: Callable[..., object], *args: Any, **kw: Any
) -> str:
    """The message of ``error`` that ``call(*args, **kw)`` raises, which must start with
    ``argument``."""
    with pytest.raises(error) as info:
        call(*args, **kw)
    message = str(info.value)
    assert message.startswith(f"{argument}: ") or message.startswith(f"{argument} "), message
    return message


def _fit(X: object, y: object, **params: Any) -> object:
    return treegen.C45Classifier(**params).fit(X, y)


def test_an_array_where_a_word_is_chosen_names_the_option() -> None:
    """``engine``, ``flavor``, ``criterion``, ``prune``, ``style``, ``input_type``,
    ``float_compare`` and ``missing`` given an array or a Series were compared with each
    word: "The truth value of an array ... is ambiguous", naming none."""
    pd = pytest.importorskip("pandas")
    X, y = _arrays()
    rows = np.ones((3, 3))
    for keyword in ("engine", "flavor", "criterion", "prune"):
        for value in (rows, pd.Series(["c45", "j48"]), np.zeros((0, 3))):
            _starts(TrainError, keyword, treegen.train, X, y, **{keyword: value})
    _starts(TrainError, "flavor", treegen.train, f"{GOLF}.names", flavor=rows)
    model = treegen.train(X, y)
    for keyword in ("style", "input_type", "float_compare", "missing"):
        for value in (rows, pd.Series(["float"])):
            _starts(TreegenError, keyword, model.export_options, **{keyword: value})
    _starts(EstimatorError, "prune", _fit, X, y, prune=rows)


def test_columns_that_are_no_list_name_the_keyword() -> None:
    """``nominal=True`` or ``-0.0`` was "'bool' object is not iterable", ``categories``
    as a list "unhashable type", an array of ``ignore`` for a file numpy's ambiguous
    truth, and the estimator's ``nominal=-1`` "'int' object is not iterable"."""
    X, y = _arrays()
    for value in (True, -0.0, 3, None):
        _starts(UsageError, "nominal", treegen.train, X, y, nominal=value)
        _starts(UsageError, "nominal", treegen.train_rules, X, y, nominal=value)
    _starts(UsageError, "ignore", treegen.train, f"{GOLF}.names", ignore=5)
    for value in ([[]], 1.5, np.ones(3)):
        _starts(UsageError, "categories", treegen.train, X, y, categories=value)
    with pytest.raises(DatasetError, match="ignore: names '") as info:
        treegen.train(f"{GOLF}.names", ignore=np.ones((2, 2)))
    assert "--" not in info.value.message  # the keyword, never the command line's flag
    with pytest.raises(DatasetError) as info:
        treegen.train(f"{GOLF}.names", nominal=["nope"])
    assert info.value.message.startswith("nominal: names 'nope', which is not a column")
    assert "(its columns, spelt for nominal: " in info.value.message
    for value in (-1, np.ones((3, 3)), 2.5):
        _starts(EstimatorError, "nominal", _fit, X, y, nominal=value)


def test_names_of_the_wrong_type_are_refused() -> None:
    """A file's ``target`` or ``weight_column`` as an array was numpy's ambiguous truth;
    ``feature_names`` or ``class_names`` that are no list "not iterable"; and
    ``class_names="ab"`` trained the classes 'a' and 'b' from its letters."""
    X, y = _arrays()
    names = f"{GOLF}.names"
    _starts(UsageError, "target", treegen.train, names, target=np.ones(3))
    _starts(UsageError, "weight_column", treegen.train, names, weight_column=np.ones(3))
    _starts(DatasetError, "feature_names", treegen.train, X, y, feature_names=Path("."))
    for value in (np.int8(-1), 2**63, "ab"):
        _starts(DatasetError, "class_names", treegen.train, X, y, class_names=value)


def test_a_path_holding_a_nul_names_the_argument() -> None:
    """open() raised "embedded null byte", a ValueError naming no argument."""
    model = treegen.train(*_arrays())
    _starts(UsageError, "path", treegen.load, "a\0b")
    _starts(UsageError, "X", model.predict, "a\0b.csv")
    _starts(UsageError, "path", model.save, "a\0b")
    _starts(UsageError, "data", treegen.train, "a\0b.csv")


def test_a_bag_seed_of_another_type_without_bag_is_refused() -> None:
    """``bag_seed != 1`` of a DataFrame or an array was a ValueError from its truth."""
    pd = pytest.importorskip("pandas")
    X, y = _arrays()
    for value in (pd.DataFrame({"a": [1]}), np.ones(2), "1"):
        _starts(TrainError, "bag_seed", treegen.train, X, y, bag_seed=value)
    assert treegen.train(X, y, bag_seed=np.int64(1)) == treegen.train(X, y)


def test_complex_weights_are_refused_without_numpy_s_warning() -> None:
    """Complex weights were cast to their real parts with a ComplexWarning (an error
    under the suite's filter, and silently dropped parts elsewhere)."""
    X, y = _arrays()
    complex_weights = np.ones(40, dtype=complex)
    message = _starts(TrainError, "weights", treegen.train, X, y, weights=complex_weights)
    assert "complex" in message
    weights = np.ones(40) + 1j
    _starts(
        EstimatorError, "sample_weight", treegen.C45Classifier().fit, X, y, sample_weight=weights
    )


def test_weights_summing_past_a_double_are_refused_without_an_overflow_warning() -> None:
    """Weights of 1e308 overflowed their sum with numpy's RuntimeWarning before the
    limit on the total refused them."""
    X, y = _arrays()
    with pytest.raises(TrainError, match="^weights: case weights add up to inf, more than 2"):
        treegen.train(X, y, weights=np.full(40, 1e308))
    fit = treegen.C45Classifier().fit
    with pytest.raises(EstimatorError, match="^sample_weight: case weights add up to inf"):
        fit(X, y, sample_weight=np.full(40, 1e308))


def test_ragged_labels_name_y() -> None:
    """Labels of different lengths were numpy's "inhomogeneous shape" ValueError."""
    X, y = _arrays()
    ragged = [(1, 2), (3,)] * 20
    _starts(DatasetError, "y", treegen.train, X, ragged)
    _starts(DatasetError, "y", treegen.train_rules, X, ragged)
    _starts(EstimatorError, "y", _fit, X, ragged)


def test_ragged_rows_and_shapes_say_what_is_wrong_naming_the_argument() -> None:
    """Rows of different lengths were numpy's "setting an array element with a sequence.
    The requested array has an inhomogeneous shape ..." inside "must hold numbers"; an
    (X, y) pair given to verify or predict the same; a 1-d X or a short y to train
    "X must be a 2-d array" and "y must have shape" without naming the argument."""
    X, y = _arrays()
    model = treegen.train(X, y)
    message = _starts(UsageError, "data", model.verify, data=(X, y))
    assert message == "data: is a pair (X, y): give the rows X alone (no labels are read here)"
    assert _starts(UsageError, "X", model.predict, (X, y)).startswith("X: is a pair (X, y)")
    message = _starts(UsageError, "X", model.predict, [[1.0, 2.0, 3.0], [4.0, 5.0]])
    assert message == "X: its rows have different lengths (2, 3 values)"
    for fn in (treegen.train, treegen.train_rules):
        message = _starts(DatasetError, "X", fn, [[1.0, 2.0], [3.0], [4.0, 5.0, 6.0]], [0, 1, 0])
        assert message.endswith("its rows have different lengths (1, 2, 3 values)")
        message = _starts(DatasetError, "X", fn, X[:, 0], y)
        assert message.endswith("X: must be a 2-d array (rows by columns), got shape (40,)")
        message = _starts(DatasetError, "y", fn, X, y[:5])
        assert message.endswith("y: must be one label per row of X: shape (40,), got (5,)")


def test_from_sklearn_blames_its_names_not_the_estimator() -> None:
    """``target=3`` was "not a fitted estimator treegen can read (AttributeError: 'int'
    object has no attribute 'strip')", ``feature_names=1.5`` so too; and
    ``feature_names="abc"`` named the columns a, b and c."""
    tree = pytest.importorskip("sklearn.tree")
    X, y = _arrays()
    est = tree.DecisionTreeClassifier(max_depth=2).fit(X, y)
    _starts(UsageError, "target", treegen.from_sklearn, est, target=3)
    for value in (1.5, "abc", np.float64(2)):
        _starts(UsageError, "feature_names", treegen.from_sklearn, est, feature_names=value)
    assert treegen.from_sklearn(est, feature_names=("a", "b", "c")).feature_names == ("a", "b", "c")


def test_a_series_of_one_row_is_predicted_as_an_array_of_it() -> None:
    """A pandas Series as X (one row, as a 1-d array is) was "must hold numbers ...:
    'Float64DType' object is not iterable": its ``dtypes`` was read as a DataFrame's
    list of them.  ``sample_weight`` as a Series too, which scikit-learn's checks pass."""
    pd = pytest.importorskip("pandas")
    X, y = _arrays()
    model = treegen.train(X, y)
    for row in X[:5]:
        assert np.array_equal(model.predict(pd.Series(row)), model.predict(row))
    weights = pd.Series(np.arange(40.0) % 3)
    clf = treegen.C45Classifier().fit(X, y, sample_weight=weights)
    assert clf.model_ == treegen.train(X, y, weights=weights.to_numpy())


def test_the_gbm_importers_name_their_arguments(tmp_path: Path) -> None:
    """``iterations`` as a list or an array was compared with the rounds (a bare
    TypeError or numpy's ambiguous truth), ``feature_names=2`` "'int' object is not
    iterable", and a path holding a NUL open()'s ValueError."""
    xgboost = pytest.importorskip("xgboost")
    lightgbm = pytest.importorskip("lightgbm")
    X, y = _arrays()
    xgb_file = tmp_path / "m.json"
    xgboost.XGBClassifier(n_estimators=2, max_depth=2).fit(X, y).save_model(xgb_file)
    lgb_file = tmp_path / "m.txt"
    lgb = lightgbm.LGBMClassifier(n_estimators=2, min_child_samples=2, verbose=-1).fit(X, y)
    lgb.booster_.save_model(lgb_file)
    for load, path in ((treegen.from_xgboost, xgb_file), (treegen.from_lightgbm, lgb_file)):
        for value in ([1], np.ones(2), True, 1.0):
            _starts(UsageError, "iterations", load, path, iterations=value)
        for value in (2, False, "abc"):
            _starts(UsageError, "feature_names", load, path, feature_names=value)
        _starts(UsageError, "target", load, path, target=3)
        _starts(UsageError, "model", load, f"{path}\0")
        assert load(path, iterations=np.int64(1)).feature_names == ("x0", "x1", "x2")


def test_a_nominal_code_past_the_limit_is_refused_not_declared() -> None:
    """A nominal column's code 2**64 declared every value up to it: the names were
    made one by one, and train_rules ran on past a minute (and memory with it).  Codes
    up to the limit are declared as before; categories= may name more."""
    from treegen.data.arrays import MAX_UNNAMED_VALUES

    X, y = _arrays()
    X[:, 2] = 0
    for code in (2**64, MAX_UNNAMED_VALUES):
        X[0, 2] = code
        with pytest.raises(DatasetError, match=f"^X: nominal feature 'x2' holds code {code}"):
            treegen.train_rules(X, y, nominal=[2])
    X[0, 2] = MAX_UNNAMED_VALUES - 1
    model = treegen.train(X, y, nominal=[2])
    assert len(model.schema.attributes[2].values) == MAX_UNNAMED_VALUES


def test_a_data_frame_s_nominal_columns_follow_the_arrays_rule() -> None:
    """A DataFrame's ``nominal`` took a column past the last as an IndexError and a
    float as its int() (1.7: column 1, silently), where arrays refuse both."""
    pd = pytest.importorskip("pandas")
    X, y = _arrays()
    frame = pd.DataFrame(X[:, :2], columns=["a", "b"])
    for ref, why in ((2, "column 2 is out of range"), (1.7, "column 1.7 is no column index")):
        message = _starts(UsageError, "nominal", treegen.train, frame, y, nominal=[ref])
        assert why in message
    _starts(UsageError, "nominal", treegen.train_rules, frame, y, nominal=["c"])
    kinds = [a.kind for a in treegen.train(frame, y, nominal=[np.int64(1)]).schema.attributes]
    assert kinds == ["continuous", "nominal"]


@pytest.mark.parametrize("weights", [np.full(40, np.nan), np.full(40, -1.0), np.zeros(40)])
def test_weights_of_bad_values_name_the_argument_not_memory(weights: np.ndarray) -> None:
    """NaN, negative or all-zero weights given as an argument were blamed on
    "<memory>", the arrays' Dataset's source: they name ``weights`` (the estimator's
    ``sample_weight``), as a file's own weights name the file."""
    X, y = _arrays()
    _starts(TrainError, "weights", treegen.train, X, y, weights=weights)
    fit = treegen.C45Classifier().fit
    _starts(EstimatorError, "sample_weight", fit, X, y, sample_weight=weights)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64])
def test_numpy_integer_seeds_train_as_the_same_python_ints(dtype: type[np.integer]) -> None:
    """A numpy seed kept its width in Java's generator: np.int8(-1) with reduced-error
    pruning raised OverflowError (case api:17333 of seed 7102), np.int64 warned of an
    overflow at every draw of bagging's samples."""
    X, y = _arrays()
    seed = 1 if dtype is np.uint8 else -1
    pairs = [
        ({"prune": "reduced-error", "seed": dtype(seed)}, {"prune": "reduced-error", "seed": seed}),
        ({"bag": 2, "bag_seed": dtype(seed)}, {"bag": 2, "bag_seed": seed}),
    ]
    for numpy_seed, python_seed in pairs:
        got = treegen.train(X, y, **numpy_seed).predict_proba(X)
        assert np.array_equal(got, treegen.train(X, y, **python_seed).predict_proba(X))

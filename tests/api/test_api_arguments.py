"""Unusual arguments to the Python API are TreegenErrors naming the argument.

Each case was, before its fix, a bare TypeError or ValueError from deep inside (numpy's
``np.unique``, ``dataclasses.replace``, ``float()``) or was silently accepted; the
message a user sees must name what to change.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.errors import DatasetError, TrainError, TreegenError, UsageError

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"


def _arrays() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, np.where(X[:, 0] > 0, 1, 0)


@pytest.mark.parametrize(
    "labels",
    [
        np.array([1, "a"] * 30, dtype=object),  # np.unique: '<' between str and int
        np.array([1, None] * 30, dtype=object),
        np.array(["a", float("nan")] * 30, dtype=object),
    ],
    ids=["mixed", "None", "nan-in-object"],
)
def test_labels_of_mixed_types_or_missing_name_y(labels: np.ndarray) -> None:
    X, _ = _arrays()
    with pytest.raises(DatasetError, match="^y "):
        treegen.train(X, labels)
    with pytest.raises(treegen.TreegenError, match="y"):
        treegen.C45Classifier().fit(X, labels)


def test_pandas_missing_labels_name_y() -> None:
    pd = pytest.importorskip("pandas")
    X, y = _arrays()
    labels = pd.Series(np.where(y, "a", None), dtype="string")  # pd.NA: `if NA` raised
    with pytest.raises(DatasetError, match="^y has a missing label"):
        treegen.train(X, labels)


def test_training_options_of_the_wrong_type_name_the_option() -> None:
    X, y = _arrays()
    with pytest.raises(TrainError, match="^cf: must be a number"):
        treegen.train(X, y, cf="x")  # type: ignore[typeddict-item]
    with pytest.raises(TrainError, match="^min_gain_ratio: must be a number"):
        treegen.train(X, y, min_gain_ratio=None)  # type: ignore[typeddict-item]
    with pytest.raises(TrainError, match="^options: must be a TrainOptions"):
        treegen.train(X, y, options={"cf": 0.1})  # type: ignore[arg-type]
    with pytest.raises(TrainError, match="^engine: unknown engine 'fast'"):
        treegen.train(X, y, engine="fast")  # type: ignore[arg-type]
    with pytest.raises(TrainError, match="^cf: is error-based pruning's confidence; prune="):
        treegen.train(X, y, prune=False, cf=0.1)  # as --no-prune --cf
    # the estimator, whose cf is always set (a grid may pair it with prune=False), passes
    # none to an unpruned tree, as none of folds and seed to a tree pruned by error
    unpruned = treegen.C45Classifier(prune=False, cf=0.1).fit(X, y).model_
    assert (
        unpruned.value.options.training == treegen.train(X, y, prune=False).value.options.training
    )


def test_switches_that_are_not_bools_are_refused_not_read_as_truth_values() -> None:
    """subsets="no" trained with --subsets (bool("no")), prune=[] unpruned; the
    estimator's parameters go through the same check."""
    X, y = _arrays()
    with pytest.raises(TrainError, match=r"^subsets: must be True or False, got 'no'$"):
        treegen.train(X, y, subsets="no")  # type: ignore[typeddict-item]
    with pytest.raises(TrainError, match=r"^prune: must be True or False, got \[\]$"):
        treegen.train(X, y, prune=[])  # type: ignore[typeddict-item]
    with pytest.raises(treegen.TreegenError, match="^subsets: must be True or False"):
        treegen.C45Classifier(subsets=1).fit(X, y)  # type: ignore[arg-type]
    assert treegen.train(X, y, subsets=np.bool_(True)).value.options.training.subsets


def test_a_value_beyond_float32_is_refused_for_c45_as_in_a_file(tmp_path: Path) -> None:
    """Release 8 stores values as float32, so a data file's 1e40 is refused for a c45
    model; arrays were refused later, by the trainer, in other words (and a bag named a
    row of its resample).  Now the reader's rule and words, at the array's row."""
    X, y = _arrays()
    X[2, 1] = 1e40
    tail = (
        "is out of range for float32 (attribute 'x1'; a c45 tree, or a model that "
        "compares float32, reads continuous values as float32, largest 3.4028235e+38)"
    )
    for keywords in ({}, {"bag": 2}, {"boost": 2}):
        with pytest.raises(DatasetError) as info:
            treegen.train(X, y, **keywords)  # type: ignore[arg-type]
        assert str(info.value) == f"X: row 3: 1e+40 {tail}"
    with pytest.raises(ValueError) as est:
        treegen.C45Classifier().fit(X, y)
    assert str(est.value) == f"X: row 3: 1e+40 {tail}"
    data = tmp_path / "big.csv"
    data.write_text("x0,x1,class\n1,2,a\n1,1e40,b\n")
    with pytest.raises(DatasetError, match=f"'1e40' {re.escape(tail[:-1])}"):  # + a hint
        treegen.train(data)
    assert treegen.train(X, y, flavor="j48").size >= 1  # a double holds it


def test_subsets_has_no_j48_counterpart() -> None:
    """Release 8's -s under J48's arithmetic is a hybrid no reference defines: refused
    by the API and the estimator as by the CLI: one rule, each naming the option its way."""
    X, y = _arrays()
    with pytest.raises(
        TrainError, match="^subsets: is Release 8's -s .*J48.*use it with flavor='c45'$"
    ):
        treegen.train(X, y, flavor="j48", subsets=True)
    with pytest.raises(TrainError, match="^subsets: is Release 8's -s"):
        treegen.train(f"{GOLF}.names", flavor="j48", subsets=True, bag=2)
    with pytest.raises(ValueError, match="^subsets: is Release 8's -s"):
        treegen.C45Classifier(flavor="j48", subsets=True).fit(X, y)
    # each alone trains
    assert treegen.train(X, y, subsets=True).size >= 1
    assert treegen.train(X, y, flavor="j48").size >= 1


@pytest.mark.parametrize("keyword", ["nominal", "ignore"])
def test_a_string_for_a_column_list_is_refused(keyword: str) -> None:
    """``nominal="mode"`` iterated as the columns 'm', 'o', 'd', 'e'."""
    X, y = _arrays()
    with pytest.raises(UsageError, match=f"^{keyword}: .*a list"):
        treegen.train(X, y, **{keyword: "x0"})  # type: ignore[misc]
    with pytest.raises(UsageError, match=f"^{keyword}: .*a list"):
        treegen.train(f"{GOLF}.names", **{keyword: "outlook"})  # type: ignore[misc]


def test_a_string_nominal_is_refused_by_the_estimator() -> None:
    X, y = _arrays()
    with pytest.raises(treegen.TreegenError, match="^nominal: .*a list"):
        treegen.C45Classifier(nominal="x0").fit(X, y)  # type: ignore[arg-type]


def test_train_rules_names_an_unknown_keyword() -> None:
    X, y = _arrays()
    with pytest.raises(TrainError, match="train_rules\\(\\) got an unknown keyword 'min_case'"):
        treegen.train_rules(X, y, min_case=2)  # type: ignore[call-arg]
    # train's option, not train_rules': was "_dataset() got multiple values for 'flavor'"
    with pytest.raises(TrainError, match="unknown keyword 'flavor'.*min_cases"):
        treegen.train_rules(X, y, flavor="j48")  # type: ignore[call-arg]
    with pytest.raises(TrainError, match="^cf: must be a number"):
        treegen.train_rules(X, y, cf="x")  # type: ignore[arg-type]


def test_an_unknown_keyword_lists_exactly_the_keywords_taken() -> None:
    """The list is every keyword the function takes, and only those: train_rules takes no
    weight_column (refused whatever its value, as "unweighted cases"), train takes its
    named keywords (boost, weights, ...) as well as its **keywords."""
    X, y = _arrays()
    data = "categories, class_names, feature_names, ignore, nominal, target"
    rules = f"{data}, cf, criterion, min_cases, subsets"
    trains = (
        f"{data}, weight_column, bag, bag_seed, boost, cf, criterion, engine, flavor, folds, "
        "max_depth, min_cases, min_gain_ratio, options, prune, seed, subsets, validation, "
        "weights"
    )
    for fn, takes in ((treegen.train_rules, rules), (treegen.train, trains)):
        with pytest.raises(TrainError) as info:
            fn(X, y, bogus=1)  # type: ignore[call-arg]
        expected = ", ".join(sorted(takes.split(", ")))
        assert str(info.value) == (
            f"{fn.__name__}() got an unknown keyword 'bogus' (it takes {expected})"
        )
    for value in (None, "w"):
        with pytest.raises(UsageError, match="^weight_column: a ruleset is made from unweighted"):
            treegen.train_rules(X, y, weight_column=value)  # type: ignore[call-arg]


def test_export_and_verify_name_an_unknown_keyword(tmp_path: Path) -> None:
    model = treegen.train(f"{GOLF}.names")
    with pytest.raises(UsageError, match="unknown export option 'styel'.*style"):
        model.export_c(tmp_path, styel="table")
    with pytest.raises(UsageError, match="unknown export option 'n_randm'"):
        model.verify(n_randm=3)
    with pytest.raises(UsageError, match="^options: must be an ExportOptions"):
        model.export_c(tmp_path, {"style": "table"})  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("keywords", "match"),
    [
        ({"proba": "yes"}, "^proba: must be True, False or None, not 'yes'"),
        ({"scores": 1}, "^scores: must be True or False, not 1"),
        ({"inline_top": 2.0, "missing": "none"}, "^inline_top: must be an integer, not 2.0"),
        ({"inline_top": -1}, "^inline_top: -1 is negative"),
        ({"missing_value": True, "input_type": "int16"}, "^missing_value: must be an integer"),
        ({"scale": "1e999", "input_type": "int16"}, "^scale: K 1e999 is beyond a double"),
        ({"scale": {"humidity": 10**309}, "input_type": "int16"}, "^scale: humidity's K 1000"),
        # The not-a-number message said "scale: scale: True ..."
        ({"scale": True, "input_type": "int16"}, "^scale: K True is not a number$"),
        (
            {"scale": {"humidity": "x"}, "input_type": "int16"},
            "^scale: humidity's K 'x' is not a number$",
        ),
        # One feature's K not positive was "scale: scale -1 must be positive", no name.
        (
            {"feature_scales": {"humidity": -1}, "input_type": "int16"},
            "^scale: humidity's K -1 must be positive$",
        ),
        ({"scale": 0, "input_type": "int16"}, "^scale: K 0 must be positive$"),
    ],
)
def test_export_options_check_their_types(
    tmp_path: Path, keywords: dict[str, object], match: str
) -> None:
    model = treegen.train(f"{GOLF}.names")
    with pytest.raises(UsageError, match=match):
        model.export_c(tmp_path, **keywords)  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("keywords", "match"),
    [
        ({"n_random": "10"}, "^n_random: must be an integer"),
        ({"n_random": -1}, "^n_random: must be at least 0, got -1"),
        ({"seed": "x"}, "^seed: must be an integer"),
        ({"seed": -1}, "^seed: must be at least 0, got -1"),
        # verify --random's limit: more would run for hours
        ({"n_random": 10_000_001}, "^n_random: 10000001 is more than 10000000 rows$"),
    ],
)
def test_verify_checks_its_counts(
    keywords: dict[str, object], match: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = treegen.train(f"{GOLF}.names")
    from treegen.kinds import check

    monkeypatch.setattr(check, "verify", lambda *a, **k: pytest.fail("verify ran"))
    with pytest.raises(UsageError, match=match):
        model.verify(**keywords)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "rows",
    [np.array([["a", "b", "c", "d"]]), np.zeros((1, 4), dtype=complex)],
    ids=["strings", "complex"],
)
def test_rows_that_are_not_numbers_name_x(rows: np.ndarray) -> None:
    model = treegen.train(f"{GOLF}.names")
    with pytest.warns(UserWarning, match="feature names"):  # positional, as documented
        with pytest.raises(UsageError, match="^X: must hold numbers"):
            model.predict(rows)


def test_a_text_column_where_the_model_wants_numbers_names_it() -> None:
    model = treegen.train(f"{GOLF}.names")
    rows = {"outlook": ["sunny"], "temperature": ["hot"], "humidity": [70.0], "windy": ["true"]}
    with pytest.raises(UsageError, match="^X: column 'temperature' must hold numbers"):
        model.predict(rows)
    X, y = _arrays()
    with pytest.raises(treegen.TreegenError, match="^X: .*numbers"):
        treegen.C45Classifier().fit(X, y).predict(np.array([["a", "b", "c"]]))


def test_score_checks_the_length_of_y() -> None:
    X, y = _arrays()
    clf = treegen.C45Classifier().fit(X, y)
    with pytest.raises(treegen.TreegenError, match="^y: .*inconsistent numbers of samples"):
        clf.score(X, y[:5])  # a numpy broadcasting ValueError before


@pytest.mark.parametrize(
    ("keywords", "match"),
    [
        ({"folds": 5}, "^folds: needs prune='reduced-error'"),
        ({"seed": 7}, "^seed: needs prune='reduced-error'"),
        ({"prune": "reduced-error", "cf": 0.1}, "^cf: is error-based pruning's confidence"),
        ({"bag_seed": 5}, "^bag_seed: needs bag"),
    ],
)
def test_an_option_the_training_would_ignore_is_refused(
    keywords: dict[str, object], match: str
) -> None:
    """As `treegen train --folds 5` (without --prune reduced-error) is refused: silently
    ignored, the option looked as if it had shaped the tree (the model recorded folds=3)."""
    with pytest.raises(TrainError, match=match):
        treegen.train(f"{GOLF}.names", **keywords)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("keywords", "match"),
    [
        ({"prune": "hard"}, "^prune: unknown pruning 'hard': use True, False or 'reduced-error'$"),
        ({"boost": 2, "bag": 2}, "^boost: boost and bag exclude each other: choose one$"),
        (
            {"prune": "reduced-error", "validation": f"{GOLF}.data", "boost": 2},
            "^validation: trains one tree, not a committee$",
        ),
    ],
)
def test_options_that_cannot_be_used_are_refused(keywords: dict[str, object], match: str) -> None:
    with pytest.raises(TrainError, match=match):
        treegen.train(f"{GOLF}.names", **keywords)  # type: ignore[arg-type]


def test_validation_and_labels_are_for_data_read_from_a_file(tmp_path: Path) -> None:
    X, y = _arrays()
    with pytest.raises(TrainError, match="^validation: validation is a file, for training data"):
        treegen.train(X, y, prune="reduced-error", validation=f"{GOLF}.data")
    with pytest.raises(TrainError, match="^a data file's labels are its target column: give its"):
        treegen.train(f"{GOLF}.names", y)
    arff = tmp_path / "w.arff"
    arff.write_text("@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x,{2}\n")
    with pytest.raises(TrainError) as err:
        treegen.train(str(arff), weights=[1.0])
    assert str(err.value) == (
        f"{arff}: the file gives instance weights ({{w}} after its rows): weights would "
        "replace them"
    )


def test_validation_prunes_as_the_command_line_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train(prune='reduced-error', validation=FILE)`` prunes on FILE's rows: the model
    ``treegen train --prune reduced-error --validation FILE`` writes, byte for byte, and
    not the one pruned on a held-out fold."""
    from support.cli import run_cli

    crx = GOLF.parents[1] / "crx" / "crx"
    cli = tmp_path / "cli.tree"
    argv = ["--prune", "reduced-error", "--validation", f"{crx}.test", "-o", str(cli)]
    assert run_cli(capsys, "-q", "train", f"{crx}.names", *argv)[0] == 0
    api = treegen.train(f"{crx}.names", prune="reduced-error", validation=f"{crx}.test")
    api.save(tmp_path / "api.tree")
    treegen.train(f"{crx}.names", prune="reduced-error").save(tmp_path / "fold.tree")
    assert (tmp_path / "api.tree").read_bytes() == cli.read_bytes()
    assert (tmp_path / "fold.tree").read_bytes() != cli.read_bytes()


_Y8 = np.array([0, 1, 0, 1, 0, 1, 0, 1])


def _frame(**columns: list[object]) -> object:
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7, 8], **columns})


def test_a_dataframe_s_columns_are_checked_as_scikit_learn_checks_them() -> None:
    pd = pytest.importorskip("pandas")
    mixed = pd.DataFrame({"a": [1.0, 2] * 4, 3: list("xy") * 4})
    with pytest.raises(TreegenError, match="^X: Feature names are only supported if all input"):
        treegen.train(mixed, _Y8)
    infinite = pd.DataFrame({"a": [1.0, np.inf] * 4})
    with pytest.raises(TreegenError, match=r"^X: Input X contains infinity or a value too large"):
        treegen.train(infinite, _Y8)
    alike = _frame(m=[1, "1", 2, "x"] * 2)  # 1 and '1' would be one value in a model file
    with pytest.raises(TreegenError, match="^nominal: two values of a nominal column print the"):
        treegen.train(alike, _Y8)


def test_nominal_names_or_numbers_a_column() -> None:
    frame = _frame(c=[1, 2, 1, 2, 1, 2, 1, 2])
    by_name = treegen.train(frame, _Y8, nominal=["c"], min_cases=1)
    assert by_name.schema.attributes[1].kind == "nominal"
    assert by_name == treegen.train(frame, _Y8, nominal=[1], min_cases=1)
    with pytest.raises(UsageError, match="^nominal: no feature named 'nosuch'$"):
        treegen.train(frame, _Y8, nominal=["nosuch"])
    with pytest.raises(UsageError, match="^nominal: no feature named 'c'$"):  # arrays: x0, x1
        treegen.train(np.asarray(frame), _Y8, nominal=["c"])


def test_the_estimator_passes_only_the_options_its_pruning_uses() -> None:
    X, y = _arrays()
    reduced = treegen.C45Classifier(prune="reduced-error", folds=4, seed=2, cf=0.1).fit(X, y)
    training = reduced.model_.value.options.training
    assert (training.pruning, training.folds, training.seed) == ("reduced-error", 4, 2)
    assert treegen.C45Classifier(cf=0.1, folds=4).fit(X, y).model_.value.options.training.cf == 0.1


@pytest.mark.parametrize(
    ("keywords", "match"),
    [
        ({"feature_names": ["a", "b", "c", "d"]}, "^feature_names: is for arrays"),
        ({"class_names": ["a", "b"]}, "^class_names: is for arrays"),
        ({"categories": {0: ["x", "y", "z"]}}, "^categories: is for arrays"),
    ],
)
def test_an_array_keyword_for_a_file_is_refused(keywords: dict[str, object], match: str) -> None:
    """A file names its columns and classes itself: the keyword was silently dropped."""
    with pytest.raises(UsageError, match=match):
        treegen.train(f"{GOLF}.names", **keywords)  # type: ignore[arg-type]


def test_a_file_keyword_for_arrays_is_refused() -> None:
    X, y = _arrays()
    # ignore=["x0"] was silently dropped: the tree still tested x0
    with pytest.raises(UsageError, match="^ignore: is for a data file"):
        treegen.train(X, y, ignore=["x0"])


def test_categories_of_a_column_that_is_not_nominal_are_refused() -> None:
    X, y = _arrays()
    with pytest.raises(UsageError, match="^categories: column 0 is not nominal"):
        treegen.train(X, y, categories={0: ["a", "b"]})


@pytest.mark.parametrize(
    ("keywords", "name"),
    [({"target": "x0"}, "x0"), ({"feature_names": ["a", "b", "class"]}, "class")],
)
def test_a_class_column_named_as_a_feature_is_refused(
    keywords: dict[str, object], name: str
) -> None:
    """As from_sklearn refuses it: `treegen eval` read the feature's column as the class
    ("undeclared class '0.126'")."""
    X, y = _arrays()
    with pytest.raises(UsageError, match=f"^target: '{name}' cannot name the class column"):
        treegen.train(X, y, **keywords)  # type: ignore[arg-type]


def test_the_estimator_names_its_class_column_apart_from_the_features() -> None:
    pd = pytest.importorskip("pandas")
    X, y = _arrays()
    frame = pd.DataFrame(X, columns=["class", "class_2", "b"])
    clf = treegen.C45Classifier().fit(frame, y)
    assert clf.model_.schema.target == "class_3"
    assert treegen.C45Classifier().fit(X, y).model_.schema.target == "class"


def test_paths_and_names_of_the_wrong_type_name_the_argument(tmp_path: Path) -> None:
    """A path that is no str or os.PathLike, a prefix or file name that is no str, a
    compiler that is no str: each was a TypeError (or AttributeError) from os.fspath,
    re or shlex that named no argument."""
    X, y = _arrays()
    model = treegen.train(X, y)
    cases = [
        (lambda: treegen.load(42), "path"),  # type: ignore[arg-type]
        (lambda: treegen.load(None), "path"),  # type: ignore[arg-type]
        (lambda: model.save(42), "path"),  # type: ignore[arg-type]
        (lambda: model.export_c(None), "out_dir"),  # type: ignore[arg-type]
        (lambda: model.export_c(tmp_path, prefix=3), "prefix"),
        (lambda: model.export_c(tmp_path, name=3), "name"),
        (lambda: model.verify(cc=42), "cc"),  # type: ignore[arg-type]
        (
            lambda: treegen.train(f"{GOLF}.names", validation=42, prune="reduced-error"),  # type: ignore[arg-type]
            "validation",
        ),
    ]
    for call, argument in cases:
        with pytest.raises(UsageError) as info:
            call()
        assert str(info.value).startswith(f"{argument}: must be a ")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "keywords,message",
    [
        ({"feature_names": [1, 2, 3]}, "feature_names must be 3 distinct non-empty strs"),
        ({"feature_names": ["", "b", "c"]}, "feature_names must be 3 distinct non-empty strs"),
        ({"feature_names": "abc"}, "feature_names must be 3 distinct non-empty strs"),
        ({"target": 3}, "target: must be a str, got 3"),
        ({"class_names": ["", "b"]}, "class_names must be distinct and non-empty"),
        ({"class_names": ["a", "a"]}, "class_names must be distinct and non-empty"),
        ({"nominal": [2], "categories": {2: ["", "u"]}}, "distinct non-empty value names"),
    ],
)
def test_names_a_model_file_could_not_hold_are_refused_at_training(
    tmp_path: Path, keywords: dict[str, object], message: str
) -> None:
    """Each was trained, and saved as a file that load refused ('attributes[0].name:
    must be a non-empty string', 'duplicate class'): a model file holds names as
    distinct non-empty strings, so arrays' names are checked as the file checks them."""
    X, y = _arrays()
    X[:, 2] = np.abs(np.round(X[:, 2])) % 2
    with pytest.raises(treegen.TreegenError) as info:
        treegen.train(X, y, **keywords)  # type: ignore[arg-type]
    assert message in str(info.value)
    with pytest.raises(DatasetError, match=r"^y has an empty label"):
        treegen.train(X, np.where(y, "a", ""))
    named = treegen.train(X, y, feature_names=["a", "b", "c"], nominal=[2])
    assert treegen.load(named.save(tmp_path / "m.tree").path).feature_names == ("a", "b", "c")


@pytest.mark.parametrize(
    "X,why",
    [([["a", "b"], ["c", "d"]], "could not convert string to float: 'a'"), ("complex", "complex")],
)
def test_arrays_of_no_numbers_name_x(X: object, why: str) -> None:
    """Text in an array was numpy's ValueError naming nothing; complex values were taken
    without their imaginary parts.  Both are refused naming X, as predict's rows are."""
    if X == "complex":
        X = _arrays()[0][:2] + 1j
    with pytest.raises(DatasetError) as info:
        treegen.train(X, [0, 1])  # type: ignore[arg-type]
    assert str(info.value).startswith(f"X: must hold numbers (NaN for missing): {why}; ")


def test_a_sparse_matrix_is_refused_naming_the_argument_everywhere() -> None:
    """A scipy sparse X was numpy's "setting an array element with a sequence" inside
    the number check (train, predict, verify); the estimator already refused it.  Every
    reader now says it is sparse, as the estimator does."""
    sparse = pytest.importorskip("scipy.sparse")
    X, y = _arrays()
    want = "sparse input is not supported: pass a dense array"
    for make in (sparse.csr_matrix, sparse.csc_array):
        with pytest.raises(DatasetError, match=f"^X: {want}"):
            treegen.train(make(X), y)
    model = treegen.train(X, y)
    for method in (model.predict, model.predict_proba):
        with pytest.raises(UsageError, match=f"^X: {want}"):
            method(sparse.csr_matrix(X))
    with pytest.raises(UsageError, match=f"^data: {want}"):
        model.verify(sparse.csr_matrix(X))
    with pytest.raises(TreegenError, match=f"^X: {want}"):
        treegen.C45Classifier().fit(sparse.csr_matrix(X), y)


def test_export_takes_numpy_integers_and_names_bad_feature_scales(tmp_path: Path) -> None:
    """missing_value=np.int64(5) was "must be an integer, not np.int64(5)", though the
    training options and bag= take numpy's integers; feature_scales="x0=2" was a bare
    ValueError from unpacking the text."""
    X, y = _arrays()
    model = treegen.train(X, y)
    opts = model.export_options(input_type="int16", missing_value=np.int64(5))
    assert opts.missing_value == 5 and type(opts.missing_value) is int
    opts = model.export_options(style="table", missing="none", inline_top=np.int32(2))
    assert opts.inline_top == 2 and type(opts.inline_top) is int
    assert model.export_options(input_type="int16", feature_scales=[("x0", 2)]).feature_scales
    with pytest.raises(UsageError, match=r"^feature_scales: must be \{name: K\}"):
        model.export_c(tmp_path, input_type="int16", feature_scales="x0=2")
    with pytest.raises(UsageError, match="^missing_value: must be an integer"):
        model.export_c(tmp_path, input_type="int16", missing_value=np.float64(5))
    assert list(tmp_path.iterdir()) == []


def test_a_file_of_the_wrong_kind_is_named_as_the_cli_names_it(tmp_path: Path) -> None:
    """A model where data belongs, or data where a model does, is named as what it is
    (the CLI's message, with the function in place of the command), not blamed on the
    reader that tried it ("text after a closing quote", "not JSON")."""
    tree = treegen.train(f"{GOLF}.names").save(tmp_path / "golf.tree")
    rules = treegen.train_rules(f"{GOLF}.names").save(tmp_path / "golf.rules")
    data = "data (C4.5 .names/.data, ARFF or CSV)"
    cases = [
        (
            lambda: treegen.train(tree.path),
            f"{tree.path} is a treegen model file; treegen.train reads {data}",
        ),
        (
            lambda: treegen.train_rules(rules.path),
            f"{rules.path} is a treegen ruleset file; treegen.train_rules reads {data}",
        ),
        (
            lambda: tree.predict(tree.path),
            f"{tree.path} is a treegen model file; Model.predict reads {data}",
        ),
        (
            lambda: rules.predict(tree.path),
            f"{tree.path} is a treegen model file; Model.predict reads {data}",
        ),
        (
            lambda: tree.predict_proba(rules.path),
            f"{rules.path} is a treegen ruleset file; Model.predict_proba reads {data}",
        ),
        (
            lambda: tree.verify(tree.path),
            f"{tree.path} is a treegen model file; Model.verify reads {data}",
        ),
        (
            lambda: treegen.train(f"{GOLF}.names", prune="reduced-error", validation=tree.path),
            f"validation: {tree.path} is a treegen model file; treegen.train reads {data}",
        ),
        (
            lambda: treegen.load(f"{GOLF}.names"),
            f"{GOLF}.names is a C4.5 names file; treegen.load reads a model file (.tree, .rules, "
            ".committee or .trees)",
        ),
        (
            lambda: treegen.load(f"{GOLF}.data"),
            f"{GOLF}.data is a C4.5 data file; treegen.load reads a model file (.tree, .rules, "
            ".committee or .trees)",
        ),
    ]
    for call, message in cases:
        with pytest.raises(UsageError) as info:
            call()
        assert str(info.value) == message


# (the API's keywords, the command line's flags, the message both start with once the
# option is named): each rule lives once and is told the caller's names.
_BOTH_WAYS = [
    (
        {"flavor": "j48", "subsets": True},
        ["--flavor", "j48", "--subsets"],
        ("subsets: ", "--subsets: "),
        ("use it with flavor='c45'", "use it with --flavor c45"),
    ),
    (
        {"flavor": "j48", "criterion": "gain"},
        ["--flavor", "j48", "--criterion", "gain"],
        ("criterion: ", "--criterion: "),
        ("use it with flavor='c45'", "use it with --flavor c45"),
    ),
    (
        {"prune": "reduced-error", "folds": 50},
        ["--prune", "reduced-error", "--folds", "50"],
        ("folds: ", "--folds: "),
        ("fewer than 50 folds", "fewer than 50 folds"),
    ),
    (
        {"prune": "reduced-error", "boost": 2},
        ["--prune", "reduced-error", "--boost", "2"],
        ("prune: ", "--prune: "),
        ("(not prune='reduced-error')", "(not --prune reduced-error)"),
    ),
]


@pytest.mark.parametrize(("keywords", "argv", "starts", "says"), _BOTH_WAYS)
def test_errors_name_the_keyword_in_python_and_the_flag_on_the_command_line(
    keywords: dict[str, object],
    argv: list[str],
    starts: tuple[str, str],
    says: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``treegen.train(folds=50)`` was told about ``--folds``, a flag it never typed:
    the API's errors name its keywords, the command line's its flags."""
    from support.cli import run_cli

    with pytest.raises(TrainError) as err:
        treegen.train(f"{GOLF}.names", **keywords)  # type: ignore[arg-type]
    message = str(err.value)
    assert message.startswith(starts[0]) and says[0] in message and "--" not in message
    code, _, stderr = run_cli(
        capsys, "train", f"{GOLF}.names", *argv, "-o", str(tmp_path / "m.tree")
    )
    assert code == 2 and stderr.startswith(f"treegen: error: {starts[1]}")
    assert says[1] in stderr and stderr.count("\n") == 1
    assert not (tmp_path / "m.tree").exists()


def test_cv_names_its_own_reduced_error_folds_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """``treegen cv``'s reduced-error folds are ``--prune-folds`` (its ``--folds`` are the
    cross-validation's): the trainer's error names that flag."""
    from support.cli import run_cli

    code, _, err = run_cli(
        capsys, "cv", f"{GOLF}.names", "--folds", "2", "--prune", "reduced-error",
        "--prune-folds", "50",
    )  # fmt: skip
    assert code == 2 and err.startswith("treegen: error: --prune-folds: ")
    assert "fewer than 50 folds" in err


def test_the_estimator_names_its_parameters() -> None:
    """C45Classifier's parameters are the API's keywords: its errors name them."""
    X, y = _arrays()
    with pytest.raises(ValueError, match="^criterion: is Release 8's -g .*flavor='c45'$"):
        treegen.C45Classifier(flavor="j48", criterion="gain").fit(X, y)
    with pytest.raises(ValueError, match="^cf: must be between 0 and 1"):
        treegen.C45Classifier(cf=1.5).fit(X, y)


def test_verify_names_its_data_argument_not_x() -> None:
    """Model.verify's rows are ``data``: an error in them named ``X``, predict's
    argument, which verify has none of."""
    X, y = _arrays()
    model = treegen.train(X, y)
    n = X.shape[1]
    cases = [
        lambda: model.verify(np.zeros((1, n + 1))),
        lambda: model.verify([["a"] * n]),
        lambda: model.verify({"nothing": [1.0]}),
    ]
    for call in cases:
        with pytest.raises(UsageError) as info:
            call()
        assert info.value.option == "data" and str(info.value).startswith("data: ")
    with pytest.raises(UsageError) as info:  # predict's argument is X
        model.predict(np.zeros((1, n + 1)))
    assert info.value.option == "X"


@pytest.mark.parametrize("unit", ["datetime64[us]", "timedelta64[s]"])
def test_a_datetime_column_is_no_number(unit: str) -> None:
    """A datetime64 or timedelta64 column was read as its raw ticks, which depend on
    its unit: a model trained on microseconds predicted every row of the same times in
    nanoseconds as the last class.  Such a column is an error naming it, in train,
    predict and the estimator's fit."""
    pd = pytest.importorskip("pandas")
    X, y = _arrays()
    times = (np.arange(len(y)) * 1_000_000).astype(unit)
    frame = pd.DataFrame({"a": X[:, 0], "t": times})
    with pytest.raises(TreegenError, match="^X: column 't' .*(datetime64|timedelta64)"):
        treegen.train(frame, y)
    with pytest.raises(TreegenError, match="'t'.*(datetime64|timedelta64)"):
        treegen.C45Classifier().fit(frame, y)
    model = treegen.train(pd.DataFrame({"a": X[:, 0], "t": X[:, 1]}), y)
    with pytest.raises(UsageError, match="^X: column 't' .*(datetime64|timedelta64)"):
        model.predict(frame)

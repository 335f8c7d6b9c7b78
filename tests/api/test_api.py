"""The public Python API gives what the CLI gives: same model file, same C, labels of y."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.cli.main import main
from treegen.data.readers import read_dataset
from treegen.model.file import model_to_json
from treegen.rules.core import RuleSet
from treegen.rules.file import ruleset_to_json
from treegen.rules.generate import generate
from treegen.trainer import TrainOptions
from treegen.trainer import train as train_dataset

from support import codegen_models as cm

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"


def _arrays(seed: int = 0, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[:, 2] = rng.integers(0, 3, n)
    y = np.where(X[:, 0] + X[:, 2] > 1.0, 7, 3)
    X[::13, 1] = np.nan
    return X, y


def test_train_from_a_path_is_the_cli_model(tmp_path: Path) -> None:
    assert main(["-q", "train", f"{GOLF}.names", "-o", str(tmp_path / "cli.tree")]) == 0
    model = treegen.train(f"{GOLF}.names")
    assert model_to_json(model) == (tmp_path / "cli.tree").read_text()
    assert list(model.classes_) == ["Play", "Don't Play"]
    assert model.predict(f"{GOLF}.data").tolist()[:3] == ["Don't Play", "Don't Play", "Play"]


def test_an_integer_past_a_doubles_range_in_x_is_refused() -> None:
    # numpy's OverflowError (a Python int as float64) reached the caller, from train and
    # from predict, where a value that is no number is a TreegenError naming X.
    with pytest.raises(treegen.TreegenError, match="^X: must hold numbers .* double's range"):
        treegen.train([[10**400, 1], [2, 3], [1, 1]], [0, 1, 0])
    model = treegen.train([[0, 1], [2, 3], [1, 1]], [0, 1, 0])
    with pytest.raises(treegen.TreegenError, match="^X: must hold numbers .* double's range"):
        model.predict([[10**400, 0]])
    with pytest.raises(treegen.TreegenError, match="^X: column 0 must hold numbers .* range"):
        treegen.C45Classifier().fit([[0, 1], [2, 3], [1, 1]], [0, 1, 0]).predict([[10**400, 0]])
    # and so are weights of that size, and codes with class_names that are no numbers (a
    # ValueError from numpy)
    X = [[0, 1], [2, 3], [1, 1]]
    with pytest.raises(treegen.TreegenError, match="^weights: must be numbers, one per row"):
        treegen.train(X, [0, 1, 0], weights=[10**400, 1, 1])
    with pytest.raises(treegen.TreegenError, match="^sample_weight: must be numbers, one per"):
        treegen.C45Classifier().fit(X, [0, 1, 0], sample_weight=[10**400, 1, 1])
    for y in ([0, 10**400, 1], [0, "a", 1]):
        with pytest.raises(treegen.TreegenError, match="with class_names, y must hold codes"):
            treegen.train(X, y, class_names=["p", "q"])


def test_options_reach_the_trainer() -> None:
    default = treegen.train(f"{GOLF}.names")
    raw = treegen.train(f"{GOLF}.names", prune=False, flavor="j48", min_cases=1)
    assert raw.options.training.prune is False and raw.options.training.flavor == "j48"
    assert raw.options.training.min_cases == 1 and default.options.training.prune is True
    with pytest.raises(treegen.TreegenError, match="^min_cases: "):
        treegen.train(f"{GOLF}.names", min_cases=0)
    # A C int at most, as Release 8 and J48 read it: past a double's range the trainer's
    # float of it overflowed with a traceback.
    assert treegen.train(f"{GOLF}.names", min_cases=2**31 - 1).options.training.min_cases
    for huge in (2**31, 10**400):
        with pytest.raises(treegen.TreegenError, match="^min_cases: must be between 1 and "):
            treegen.train(f"{GOLF}.names", min_cases=huge)
    # The real-valued options likewise (cf and min_gain_ratio were taken as floats).
    for key in ("cf", "min_gain_ratio"):
        with pytest.raises(treegen.TreegenError, match=f"^{key}: must be a number a double"):
            treegen.train(f"{GOLF}.names", **{key: 10**400})


def test_export_c_writes_the_cli_bytes(tmp_path: Path) -> None:
    model = treegen.train(f"{GOLF}.names").save(tmp_path / "golf.tree")
    written = model.export_c(tmp_path / "api", style="table", input_type="double")
    assert [p.name for p in written] == ["predict.c", "predict.h"]
    assert (
        main(
            [
                "-q",
                "export",
                str(tmp_path / "golf.tree"),
                "--style",
                "table",
                "--input-type",
                "double",
                "-o",
                str(tmp_path / "api"),
            ]
        )
        == 0
    )
    # The CLI's provenance names the output folder; give both the same one.
    cli = {p.name: p.read_text() for p in written}
    model.export_c(tmp_path / "api", style="table", input_type="double")
    assert cli == {p.name: p.read_text() for p in written}
    assert "golf_predict" in cli["predict.h"]


def test_scales_by_name_write_the_cli_bytes(tmp_path: Path) -> None:
    """``scale={name: K}`` was kept in the record beside the feature_scales it became, so
    export_c's own replace() of the options took it twice: "humidity=K given more than
    once", whatever the name."""
    model = treegen.train(f"{GOLF}.names").save(tmp_path / "golf.tree")
    argv = ["-q", "export", str(tmp_path / "golf.tree"), "--input-type", "int16"]
    assert main([*argv, "--scale", "humidity=2", "-o", str(tmp_path / "out")]) == 0
    cli = {p.name: p.read_text() for p in (tmp_path / "out").iterdir()}
    for scales in ({"scale": {"humidity": 2}}, {"feature_scales": {"humidity": 2}}):
        opts = model.export_options(input_type="int16", **scales)
        assert opts.scale is None and opts.feature_scales == (("humidity", 2),)
        written = model.export_c(tmp_path / "out", input_type="int16", **scales)
        assert {p.name: p.read_text() for p in written} == cli


@pytest.mark.slow
def test_export_c_and_verify_take_the_inline_top(tmp_path: Path) -> None:
    model = treegen.Model.of(cm.synthetic(3, 400)).save(tmp_path / "syn.tree")  # 100+ tests
    lean = {"style": "table", "missing": "none"}
    for n, words in ((None, []), (0, ["--inline-top", "0"]), (3, ["--inline-top", "3"])):
        out = tmp_path / f"api{n}"
        api = model.export_c(out, **lean, inline_top=n)
        text = {p.name: p.read_text() for p in api}
        argv = ["-q", "export", str(tmp_path / "syn.tree"), "--style", "table"]
        assert main([*argv, "--missing", "none", *words, "-o", str(out)]) == 0
        assert text == {p.name: p.read_text() for p in api}
        assert ("SYN_INLINE_TOP" in text["predict.c"]) == (n != 0)
        report = model.verify(**lean, inline_top=n, n_random=50)
        assert report.ok and report.passed > 50, report.text


def test_arrays_predict_the_labels_of_y(tmp_path: Path) -> None:
    X, y = _arrays()
    model = treegen.train((X, y), nominal=[2], feature_names=["a", "b", "c"])
    assert model.classes_.tolist() == [3, 7]
    assert model.feature_names == ("a", "b", "c")
    assert model.schema.attributes[2].kind == "nominal"
    named = {"c": X[:, 2], "a": X[:, 0], "b": X[:, 1]}  # by name, in any order
    pred = model.predict(named)
    assert pred.dtype.kind == "i" and set(pred.tolist()) <= {3, 7}
    assert np.mean(pred == y) > 0.9
    with pytest.warns(UserWarning, match="valid feature names.*a, b, c") as said:
        assert np.array_equal(model.predict(X), pred)  # positional, as scikit-learn warns
    assert len(said) == 1  # once a call (X was once read twice, and warned twice)
    proba = model.predict_proba(named)
    assert proba.shape == (len(y), 2)
    assert np.array_equal(model.classes_[np.argmax(proba, axis=1)], pred)
    loaded = treegen.load(model.save(tmp_path / "m.tree").path or "")
    assert np.array_equal(loaded.predict(named), pred) and loaded.predict(named).dtype.kind == "i"


def test_a_warning_about_x_names_the_line_that_called() -> None:
    """The warnings about X's column names point at the line that called predict; they
    named treegen's own api/model.py (a decorator or a wrapper more between them and the
    user's code shifted the fixed stacklevel)."""
    pd = pytest.importorskip("pandas")
    X, y = _arrays()
    named = treegen.train((X, y), feature_names=["a", "b", "c"])
    plain = treegen.train((X, y))
    frame = pd.DataFrame(X, columns=["p", "q", "r"])
    for call, said in (
        (lambda: named.predict(X), "X does not have valid feature names"),
        (lambda: named.predict_proba(X), "X does not have valid feature names"),
        (lambda: plain.predict(frame), "X has feature names, but the model was fitted without"),
    ):
        with pytest.warns(UserWarning) as caught:
            call()
        assert [str(w.message)[: len(said)] for w in caught] == [said]
        assert caught[0].filename == __file__


def test_a_model_pickles_copies_and_rewraps(tmp_path: Path) -> None:
    """Model passes the kind's fields through to its value, but not the names pickle and
    copy look up on an object being rebuilt (its value not set yet: they recursed);
    Model.of of a Model is that model, under the path given, else its own."""
    import copy
    import pickle

    X, y = _arrays()
    model = treegen.train((X, y)).save(tmp_path / "m.tree")
    for again in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert again == model and again.path == model.path
        assert np.array_equal(again.predict(X), model.predict(X))
    with pytest.raises(AttributeError, match="__no_such__"):
        model.__no_such__  # noqa: B018
    assert treegen.Model.of(model).value is model.value
    assert treegen.Model.of(model).path == str(tmp_path / "m.tree")
    assert treegen.Model.of(model, tmp_path / "n.tree").path == str(tmp_path / "n.tree")


def test_one_row_as_a_vector_and_a_ruleset_s_probabilities() -> None:
    """A 1-d X is one row (its labels and probabilities those of the 1-row matrix);
    a ruleset, which gives classes only, refuses predict_proba naming its kind."""
    X, y = _arrays()
    model = treegen.train((X, y))
    for row in (0, 5, 13):  # 13: a row with a missing value
        assert np.array_equal(model.predict(X[row]), model.predict(X[row : row + 1]))
        assert np.array_equal(model.predict_proba(X[row]), model.predict_proba(X[row : row + 1]))
    with pytest.raises(treegen.TreegenError, match=r"^X: must have shape \(n, 3\), got \(2,\)$"):
        model.predict(X[0, :2])
    rules = treegen.train_rules((X, y))
    with pytest.raises(treegen.TreegenError) as err:
        rules.predict_proba(X)
    assert str(err.value) == "a ruleset gives classes, not class probabilities"


def test_named_rows_by_value_or_code_and_without_an_ignored_column(tmp_path: Path) -> None:
    """Rows by name: a nominal cell is a value's name or its code (anything else is
    missing, as in a file), and a column the model ignores may be left out, as a data
    file may leave it out (a mapping or DataFrame without it was refused)."""
    pd = pytest.importorskip("pandas")
    model = treegen.train(f"{GOLF}.arff", ignore=["windy"])
    rows = {
        "outlook": ["sunny", 2, "fog", None, "overcast"],
        "temperature": [80.0, 70.0, 64.0, 72.0, 85.0],
        "humidity": [90.0, 96.0, 65.0, 95.0, 85.0],
    }
    codes = np.array([0, 2, np.nan, np.nan, 1])
    matrix = np.column_stack([codes, rows["temperature"], rows["humidity"], np.full(5, np.nan)])
    with pytest.warns(UserWarning, match="valid feature names"):  # positional
        want = model.predict_proba(matrix)
    csv = tmp_path / "rows.csv"
    csv.write_text(
        "outlook,temperature,humidity\nsunny,80,90\nrain,70,96\nfog,64,65\n?,72,95\n"
        "overcast,85,85\n"
    )
    assert np.array_equal(model.predict_proba(csv), want)
    for named in (rows, {**rows, "windy": ["true"] * 5}, pd.DataFrame(rows)):
        assert np.array_equal(model.predict_proba(named), want)
    with pytest.raises(treegen.TreegenError, match="^X: the columns of a mapping must be 1-d"):
        model.predict({**rows, "humidity": [90.0]})


def test_string_float_and_named_labels() -> None:
    X, y = _arrays(1)
    s = treegen.train((X, np.where(y == 7, "hi", "lo")), nominal=["x2"])
    assert s.classes_.tolist() == ["hi", "lo"]
    assert set(s.predict(X).tolist()) <= {"hi", "lo"}
    f = treegen.train((X, y / 2.0))
    assert f.classes_.tolist() == [1.5, 3.5]
    named = treegen.train((X, (y == 7).astype(int)), class_names=["low", "high"])
    assert named.classes_.tolist() == ["low", "high"]


def test_python_int_labels_past_int64_come_back_as_ints(tmp_path: Path) -> None:
    """numpy holds such labels as objects, which were recorded as text: predict answered
    '1180591620717411303424', a str, for the label 2**70."""
    X, y = _arrays(1)
    big = [2**70 if v == 7 else v for v in y.tolist()]
    model = treegen.train(X, big)
    assert model.classes_.tolist() == [3, 2**70]
    assert all(type(v) is int for v in model.classes_)
    pred = model.predict(X)
    assert {type(v) for v in pred} == {int} and set(pred.tolist()) <= {3, 2**70}
    loaded = treegen.load(model.save(tmp_path / "m.tree").path or "")
    assert loaded.predict(X).tolist() == pred.tolist()


@pytest.mark.parametrize("dtype", ["S", object])
def test_byte_labels_name_their_classes_by_their_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dtype: object
) -> None:
    """Bytes labels (numpy's S dtype, or bytes objects) are classes named by their UTF-8
    text in the tree and the C, and predict returns them as bytes, after a reload too."""
    X, y = _arrays(1)
    labels = np.asarray([b"hi" if v == 7 else "l\u00f6".encode() for v in y], dtype=dtype)
    model = treegen.train((X, labels), nominal=[2])
    assert model.schema.classes == ("hi", "l\u00f6")
    assert model.classes_.tolist() == [b"hi", "l\u00f6".encode()]
    pred = model.predict(X)
    assert set(pred.tolist()) == {b"hi", "l\u00f6".encode()}
    assert np.mean(pred == labels) > 0.9
    path = model.save(tmp_path / "m.tree").path or ""
    loaded = treegen.load(path)
    assert loaded.predict(X).tolist() == pred.tolist()
    assert main(["show", path]) == 0
    shown = capsys.readouterr().out
    assert ": hi (" in shown and "b'" not in shown
    loaded.export_c(tmp_path / "c")
    header = (tmp_path / "c" / "predict.h").read_text()
    assert "/* hi */" in header and "b'" not in header
    with pytest.raises(treegen.TreegenError, match=r"^y: the label b'\\xff' is no UTF-8 text"):
        treegen.train((X, np.where(y == 7, b"hi", b"\xff")))


def test_verify_reports_parity(tmp_path: Path) -> None:
    X, y = _arrays(2)
    model = treegen.train((X, y), nominal=[2])
    report = model.verify(X, n_random=200)
    assert report.ok and report.failed == 0 and report.passed >= len(y) + 200
    assert report.text.rstrip().endswith(f"{report.passed} passed, 0 failed")
    keys = model.verify(style="table", float_compare="int", n_random=50)
    assert keys.ok and keys.passed > 50


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: treegen.train((np.zeros(3), np.zeros(3))), "2-d"),
        (lambda: treegen.train((np.zeros((3, 2)), np.zeros(4))), "shape"),
        (lambda: treegen.train((np.full((3, 1), 0.5), [0, 1, 0]), nominal=[0]), "codes"),
        (lambda: treegen.train((np.zeros((3, 1)), [0, 1, 0]), nominal=["nope"]), "no feature"),
        (lambda: treegen.train((np.zeros((2, 1)), [0.0, np.nan])), "NaN"),
        (lambda: treegen.train((np.zeros((2, 1)), [0, 5]), class_names=["a", "b"]), "codes"),
    ],
)
def test_bad_arrays_are_treegen_errors(call: object, match: str) -> None:
    with pytest.raises(treegen.TreegenError, match=match):
        call()  # type: ignore[operator]


def test_predict_checks_the_width() -> None:
    model = treegen.train(_arrays())
    with pytest.raises(treegen.TreegenError, match="shape"):
        model.predict(np.zeros((2, 5)))


def test_predict_from_a_file_checks_values_as_the_cli_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A c45 model holds values as float32 (as Release 8 does): a value beyond its range
    is the same one-line error from ``Model.predict`` as from ``treegen predict``."""
    model = treegen.Model.of(cm.stump()).save(tmp_path / "stump.tree")
    data = tmp_path / "golf.data"
    (tmp_path / "golf.names").write_text(Path(f"{GOLF}.names").read_text())
    data.write_text("sunny,70,75,true,Play\nsunny,70,1e39,true,Play\n")
    assert main(["-q", "predict", str(tmp_path / "stump.tree"), str(data)]) == 2
    err = capsys.readouterr().err.strip()
    assert "golf.data:2:" in err
    with pytest.raises(treegen.TreegenError) as exc:
        model.predict(str(data))
    assert str(exc.value) in err


SOYBEAN = GOLF.parents[1] / "soybean-r8" / "soybean-r8"
CRX = GOLF.parents[1] / "crx" / "crx"


@pytest.mark.parametrize(
    ("stem", "flags", "kw"),
    [
        (GOLF, [], {}),
        (SOYBEAN, ["--subsets", "-m", "3"], {"subsets": True, "min_cases": 3}),
        (CRX, ["--criterion", "gain", "-c", "0.1"], {"criterion": "gain", "cf": 0.1}),
    ],
)
def test_train_rules_is_the_cli_ruleset(
    tmp_path: Path, stem: Path, flags: list[str], kw: dict[str, object]
) -> None:
    """``treegen.train_rules`` makes the ruleset ``treegen rules -o`` saves, byte for byte,
    with the same training options."""
    out = tmp_path / "cli.rules"
    assert main(["-q", "rules", f"{stem}.data", *flags, "-o", str(out)]) == 0
    rules = treegen.train_rules(f"{stem}.data", **kw)  # type: ignore[arg-type]
    assert isinstance(rules.value, RuleSet) and rules.path is None
    assert ruleset_to_json(rules) == out.read_text()
    assert np.array_equal(rules.predict(f"{stem}.data"), treegen.load(out).predict(f"{stem}.data"))


@pytest.mark.slow
def test_subsets_reach_the_rules(tmp_path: Path) -> None:
    """With --subsets the rules come from the subset tree: soybean-r8's hold ``in``
    conditions (the default tree's none), and they verify."""
    plain = treegen.train_rules(f"{SOYBEAN}.data")
    grouped = treegen.train_rules(f"{SOYBEAN}.data", subsets=True)
    ops = lambda rs: {c.op for r in rs.rules for c in r.conditions}  # noqa: E731
    assert "in" not in ops(plain) and "in" in ops(grouped)
    assert grouped.verify(f"{SOYBEAN}.data", n_random=100).ok


def test_train_rules_from_arrays_predicts_the_labels_of_y(tmp_path: Path) -> None:
    X, y = _arrays(3)
    rules = treegen.train_rules((X, y), nominal=[2])
    assert rules.classes_.tolist() == [3, 7]
    pred = rules.predict(X)
    assert pred.dtype.kind == "i" and np.mean(pred == y) > 0.9
    loaded = treegen.load(rules.save(tmp_path / "r.rules").path or "")
    assert np.array_equal(loaded.predict(X), pred) and loaded.predict(X).dtype.kind == "i"
    named = treegen.train_rules((X, (y == 7).astype(int)), class_names=["low", "high"])
    assert named.classes_.tolist() == ["low", "high"]


def test_rules_need_a_c45_tree() -> None:
    """c4.5rules keeps the tree's float32 thresholds: a j48 tree is refused.  No option
    is named: no rules command or function takes a flavour."""
    ds = read_dataset(f"{GOLF}.names")
    with pytest.raises(treegen.TreegenError, match="from a c45 tree, not a j48 one$") as info:
        generate(ds, train_dataset(ds, TrainOptions(flavor="j48", prune=False)))
    assert info.value.option is None


def test_train_takes_x_and_y_as_scikit_learn_does() -> None:
    """``train(X, y)`` and ``train((X, y))`` are the same model; a TrainOptions record
    and the same options as keywords too."""
    X, y = _arrays()
    assert treegen.train(X, y) == treegen.train((X, y))
    record = TrainOptions(min_cases=5, cf=0.1)
    by_record = treegen.train(X, y, options=record)
    assert by_record == treegen.train(X, y, min_cases=5, cf=0.1)
    assert (
        by_record.value.options.training.min_cases == 5
        and by_record.value.options.training.cf == 0.1
    )
    # Keywords change the record they are given, field by field.
    assert treegen.train(X, y, options=record, cf=0.25).value.options.training.min_cases == 5


def test_train_names_an_unknown_keyword() -> None:
    X, y = _arrays()
    with pytest.raises(treegen.TreegenError, match="unknown keyword 'min_case'.*min_cases"):
        treegen.train(X, y, min_case=3)  # type: ignore[call-arg]
    with pytest.raises(treegen.TreegenError, match="a path, \\(X, y\\), or X with y"):
        treegen.train(X)


def test_dataframe_columns_are_matched_by_name() -> None:
    """A model trained on a DataFrame, or a file with a header, takes a DataFrame's
    columns by name: reordered, the same answers (positional reading gave 64% agreement
    to a new user); a missing or unknown column is an error naming it."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    n = 400
    frame = pd.DataFrame(
        {
            "speed": rng.normal(size=n),
            "load": rng.normal(size=n),
            "mode": rng.choice(["idle", "run", "fault"], n),
        }
    )
    y = np.where((frame.speed > 0) & (frame["mode"] != "idle"), "hot", "ok")
    model = treegen.train(frame, y)
    assert model.feature_names == ("speed", "load", "mode")
    assert model.schema.attributes[2].values == ("fault", "idle", "run")  # text: nominal
    straight = model.predict(frame)
    assert np.mean(straight == y) > 0.95
    shuffled = frame[["mode", "load", "speed"]]
    assert np.array_equal(model.predict(shuffled), straight)
    assert np.array_equal(treegen.train((frame, y)).predict(shuffled), straight)
    with pytest.raises(treegen.TreegenError, match="^X: lacks the model's feature.*'load'"):
        model.predict(frame[["speed", "mode"]])  # X named once, as the error's location
    with pytest.raises(treegen.TreegenError, match="not trained on: 'extra'"):
        model.predict(frame.assign(extra=1.0))


def test_file_trained_model_reads_dataframes_by_name() -> None:
    pd = pytest.importorskip("pandas")
    model = treegen.train(f"{GOLF}.names")
    rows = pd.DataFrame(
        {"windy": ["true", "false"], "humidity": [70.0, 96.0], "outlook": ["sunny", "rain"]}
    )
    rows["temperature"] = [75.0, 70.0]
    codes = np.array([[0.0, 75.0, 70.0, 0.0], [2.0, 70.0, 96.0, 1.0]])
    with pytest.warns(UserWarning, match="valid feature names"):
        by_position = model.predict(codes)
    assert np.array_equal(model.predict(rows), by_position)


@pytest.mark.parametrize("call", ["train", "train_rules"])
def test_data_with_no_attributes_is_a_train_error(call: str) -> None:
    # a file of only the class is refused by the readers; arrays reached the grower,
    # which indexed an empty X (an IndexError deep in growth)
    with pytest.raises(treegen.TreegenError, match="no attributes"):
        getattr(treegen, call)(np.zeros((5, 0)), np.array([0, 1, 0, 1, 1]))


def test_a_wrong_shape_names_x_once() -> None:
    model = treegen.train(np.arange(40.0).reshape(10, 4), np.arange(10) % 2)
    with pytest.raises(treegen.TreegenError, match=r"^X: must have shape \(n, 4\), got \(2, 7\)$"):
        model.predict(np.zeros((2, 7)))


def test_repr_is_short_kind_classes_and_size_never_the_nodes(tmp_path: Path) -> None:
    """repr(Model) names the kind, the file, the features, the first classes and the size
    (a forest's repr was megabytes: every node); every kind gives its size."""
    from sklearn.ensemble import RandomForestClassifier

    golf = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"
    tree = treegen.train(f"{golf}.names")
    text = repr(tree)
    assert text.startswith("<treegen.Model tree: 4 features, classes 'Play', \"Don't Play\"; ")
    assert text.endswith(f"; {tree.size} nodes, {tree.n_leaves} leaves, depth {tree.depth()}>")
    path = tmp_path / "golf.tree"
    tree.save(path)
    assert repr(treegen.load(path)).startswith(f"<treegen.Model tree {str(path)!r}: ")
    rules = treegen.train_rules(f"{golf}.names")
    assert repr(rules).endswith(
        f"; {len(rules.rules)} rules, {sum(len(r.conditions) for r in rules.rules)} conditions>"
    )
    bagged = treegen.train(f"{golf}.names", bag=3)
    assert repr(bagged).endswith(f"; 3 trees, {bagged.size} nodes, {bagged.n_leaves} leaves>")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    forest = treegen.from_sklearn(
        RandomForestClassifier(n_estimators=30, random_state=0).fit(X, np.arange(400) % 9)
    )
    text = repr(forest)
    assert text == (
        "<treegen.Model ensemble: 6 features, classes '0', '1', '2', '3', '4', ... (9); "
        f"RandomForestClassifier, 30 trees, {forest.n_nodes} nodes>"
    )
    assert len(text) < 200 < len(repr(forest.value))


def test_infinities_and_values_beyond_float32_are_compared_as_the_c_does() -> None:
    """±inf, ±1e40 and ±DBL_MAX in an array (which a data file refuses for c45): a c45
    tree's Model.predict takes 1e40 as float32 takes it (+inf), and every kind that
    takes floats answers as its exported C with double inputs, row for row."""
    X, y = _arrays(4)
    big = [np.inf, -np.inf, 1e40, -1e40, 3.4028236e38, np.finfo(np.float64).max]
    rows = np.array([np.r_[v, w, 1.0] for v in big for w in (0.0, v)])
    c45 = treegen.train((X, y), nominal=[2])
    with np.errstate(over="ignore"):
        as_float32 = rows.astype(np.float32).astype(np.float64)  # 1e40 -> inf
    assert np.isinf(as_float32[:, 0]).all()
    assert (c45.predict(rows) == c45.predict(as_float32)).all()
    models = [
        c45,
        treegen.train((X, y), nominal=[2], flavor="j48"),
        treegen.train_rules((X, y), nominal=[2]),
        treegen.train((X, y), nominal=[2], bag=3),
    ]
    for model in models:
        report = model.verify(rows, input_type="double", n_random=0)
        assert report.ok and report.passed >= len(rows), report.text

"""Defects the hostile-input fuzz tests found (test_model_fuzz, test_reader_fuzz,
test_option_fuzz), each as its smallest case: one line, exit 2, nothing written."""

from __future__ import annotations

import io
import json
import re
import warnings
from pathlib import Path

import pytest

from support.cli import run_cli


def test_xgboost_json_nested_past_the_decoder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python 3.11's json decoder gives up with a RecursionError, which reached the user
    # as a traceback.
    path = tmp_path / "m.json"
    path.write_text('{"learner": ' + "[" * 5000 + "]" * 5000 + "}")
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-xgboost", str(path), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}:1:") and "nested" in err, err
    assert "treegen model" not in err  # it is an XGBoost file, said as such
    assert not out.exists()


GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf.names"


@pytest.fixture
def golf_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """golf trained into tmp_path/golf.tree, as the command line trains it."""
    model = tmp_path / "golf.tree"
    assert run_cli(capsys, "train", str(GOLF), "-q", "-o", str(model))[0] == 0
    return model


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\ud83d\\ud83d", "x\\udc00y"])
def test_a_lone_surrogate_escape_in_a_model_file_is_refused_at_its_line(
    escape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], golf_model: Path
) -> None:
    # Valid JSON, but half of a UTF-16 pair is no character: the model loaded, then
    # export's provenance hash (and show on a UTF-8 terminal) failed to encode it, with
    # a traceback.
    model = golf_model
    text = model.read_text().replace('"name": "humidity"', f'"name": "{escape}"')
    model.write_text(text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if escape in s)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "export", str(model), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {model}:{line}:") and "surrogate" in err, err
    assert not out.exists()


def test_a_surrogate_pair_escape_is_a_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], golf_model: Path
) -> None:
    model = golf_model
    model.write_text(model.read_text().replace('"humidity"', '"hum\\ud83d\\ude00\\\\ud800"'))
    code, out, err = run_cli(capsys, "show", str(model))
    assert code == 0 and "hum\U0001f600\\ud800" in out, err


def test_a_lone_surrogate_in_an_xgboost_json_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.json"
    path.write_text('{"learner": {"feature_names": ["a\\ud800"]}, "version": [2, 1, 0]}')
    code, _, err = run_cli(capsys, "import-xgboost", str(path), "-o", str(tmp_path / "m.trees"))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}:1:") and "surrogate" in err, err


@pytest.mark.slow  # importing scikit-learn takes seconds
@pytest.mark.parametrize("damage", ["no tree_", "tree_ of a string", "member of a string"])
def test_an_estimator_file_damaged_inside_is_one_line(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A skops or pickle file is rebuilt into objects as the file says: a forest member
    # without its tree_ (or with anything else in its place) raised AttributeError or
    # TypeError where treegen reads scikit-learn's fitted attributes, with a traceback.
    import pickle

    pytest.importorskip("sklearn")
    from sklearn.ensemble import RandomForestClassifier

    forest = RandomForestClassifier(2, max_depth=2, random_state=0).fit(
        [[0.0], [1.0], [2.0], [3.0]], [0, 1, 0, 1]
    )
    member = forest.estimators_[1]
    if damage == "no tree_":
        del member.tree_
    elif damage == "tree_ of a string":
        member.tree_ = "tree"
    else:
        forest.estimators_[1] = "tree"
    path = tmp_path / "m.pkl"
    path.write_bytes(pickle.dumps(forest))
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-sklearn", str(path), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}: ") and "fitted" in err, err
    assert not out.exists()


XGB_CAT = Path(__file__).resolve().parents[1] / "data" / "fuzz" / "xgb_cat.json"


@pytest.mark.parametrize("key", ["categories_nodes", "categories"])
@pytest.mark.parametrize("value", [5, None, "1"])
def test_an_xgboost_category_list_that_is_no_list_names_the_field(
    key: str, value: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its length was taken before it was checked: TypeError, a traceback.
    doc = json.loads(XGB_CAT.read_text())
    doc["learner"]["gradient_booster"]["model"]["trees"][0][key] = value
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-xgboost", str(path), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}: ") and f"trees[0].{key}: must be" in err, err
    assert not out.exists()


LGB_CAT = Path(__file__).resolve().parents[1] / "data" / "fuzz" / "lgb_cat.txt"


def test_a_lightgbm_file_cut_in_its_category_names_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The last line names a DataFrame's categories; cut short, it was ignored and the
    # model imported with codes for names, a model other than the file's.
    text = LGB_CAT.read_text()
    whole = text.replace(
        "pandas_categorical:null", 'pandas_categorical:[["a","b","c","d","e","f"]]'
    )
    cut = whole[: whole.rindex('"d"')]
    path = tmp_path / "m.txt"
    for body, names in ((whole, True), (cut, False)):
        path.write_text(body)
        out = tmp_path / "m.trees"
        code, _, err = run_cli(capsys, "import-lightgbm", str(path), "-o", str(out))
        if names:
            assert code == 0 and '"values": ["a", "b", "c", "d", "e", "f"]' in out.read_text()
            out.unlink()
            continue
        line = body.count("\n") + 1
        assert code == 2 and err.count("\n") == 1, err
        assert err.startswith(f"treegen: error: {path}:{line}: ") and "truncated" in err, err
        assert not out.exists()


@pytest.mark.slow  # importing scikit-learn takes seconds
@pytest.mark.parametrize("damage", ["feature names", "class name"])
def test_an_estimators_own_bad_names_are_the_files_fault(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Names the estimator holds (no --feature-names given) were blamed on the option
    # --feature-names; a class name holding a lone surrogate failed to encode when the
    # model file was written, with a traceback.
    import pickle

    import numpy as np

    pytest.importorskip("sklearn")
    from sklearn.tree import DecisionTreeClassifier

    tree = DecisionTreeClassifier().fit([[0.0], [1.0]], ["a", "b"])
    if damage == "feature names":
        tree.feature_names_in_ = np.array(["x", "x"], dtype=object)
    else:
        tree.classes_ = np.array(["a", "b\ud800"], dtype=object)
    path = tmp_path / "m.pkl"
    path.write_bytes(pickle.dumps(tree))
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-sklearn", str(path), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}: ") and "--feature-names" not in err, err
    assert not out.exists()


@pytest.mark.parametrize("bitset", ["inf", "-inf", "1e300", "0.5"])
def test_a_lightgbm_categorical_split_with_no_bitset_names_the_line(
    bitset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A categorical split's threshold is its bitset's index; an infinite one raised
    # OverflowError in int(), a traceback.
    text = LGB_CAT.read_text()
    old = "threshold=0.29305234353926596 0 1\n"
    assert old in text
    path = tmp_path / "m.txt"
    path.write_text(text.replace(old, f"threshold=0.29305234353926596 {bitset} 1\n"))
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-lightgbm", str(path), "-o", str(out))
    line = text[: text.index(old)].count("\n") + 1
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}:{line}: ") and "no bitset" in err, err
    assert not out.exists()


@pytest.mark.parametrize("best", [[1], {"a": 1}, 1.5, True])
def test_an_xgboost_best_iteration_that_is_no_integer_names_the_field(
    best: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # int() of a list or an object raised TypeError, a traceback; of 1.5 it took 1.
    doc = json.loads(XGB_CAT.read_text())
    doc["learner"]["attributes"] = {"best_iteration": best}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-xgboost", str(path), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}: learner.attributes.best_iteration: "), err
    assert not out.exists()


@pytest.mark.parametrize("command", ["import-sklearn", "import-xgboost", "import-lightgbm"])
def test_an_importers_folder_or_missing_file_is_worded_as_every_reader_words_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # The importers said the OS's "Is a directory" / "No such file or directory", where
    # show, train and the data commands say what the path is.
    out = tmp_path / "m.trees"
    for path, said in (
        (tmp_path, "is a folder, not a model file"),
        (tmp_path / "no.bin", "no such file"),
    ):
        code, stdout, err = run_cli(capsys, command, str(path), "-o", str(out))
        assert (code, stdout, err) == (2, "", f"treegen: error: {path}: {said}\n")
        assert not out.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["show", ""],
        ["eval", "MODEL", "DATA", "--unpruned", ""],
        ["train", "", "-o", "OUT"],
        ["verify", "MODEL", ""],
    ],
)
def test_an_empty_file_name_is_named_in_the_error(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], golf_model: Path
) -> None:
    # An empty argument for a file ('' from a script's unset variable) gave "treegen:
    # error: no such model file", naming nothing: the location's empty name was dropped.
    model = golf_model
    where = {"MODEL": str(model), "DATA": str(GOLF), "OUT": str(tmp_path / "o.tree")}
    code, _, err = run_cli(capsys, *[where.get(a, a) for a in argv])
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("treegen: error: '': no such "), err
    assert not (tmp_path / "o.tree").exists()


def test_export_on_a_chip_refused_before_any_file_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], golf_model: Path
) -> None:
    # export wrote predict.c and predict.h, then --on m3 refused double input (option
    # fuzz case 9951): an error left files behind.  Now refused before writing (or, on
    # a machine without qemu, for the missing tools, also before writing).
    model = golf_model
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "export", str(model), "-o", str(out), "--input-type", "double", "--on", "m3"
    )
    assert code == 2 and err.count("\n") == 1, err
    assert "not double" in err or "not found" in err, err
    assert not out.exists()


@pytest.mark.parametrize("flavor", ["c45", "j48"])
@pytest.mark.parametrize("command", ["eval", "predict", "show"])
def test_a_root_count_edited_far_beyond_its_class_weights_is_refused(
    flavor: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The root's items edited to 1.4e301 (model fuzz case c45:3742): the check of each
    # node's class weights against its items took its tolerance from that very count, so
    # every node passed, and a c45 tree's classification cast it to float32 with a
    # traceback (overflow).  Now the tolerance comes from the smaller of the root's two
    # counts, and a c45 tree's weights must lie within float32's range.
    model = tmp_path / "golf.tree"
    argv = ["train", str(GOLF), "-q", "-o", str(model), "--flavor", flavor]
    assert run_cli(capsys, *argv)[0] == 0
    text = model.read_text()
    root = next(s for s in text.splitlines() if s.lstrip().startswith('{"id": 0,'))
    edited = root.replace('"items": 14.0', '"items": 1.4e+301')
    assert edited != root
    model.write_text(text.replace(root, edited))
    line = text.splitlines().index(root) + 1
    data = GOLF.with_suffix(".data")
    code, out, err = run_cli(
        capsys, command, str(model), *([] if command == "show" else [str(data)])
    )
    assert code == 2 and err.count("\n") == 1 and not out, err
    why = "beyond float32's range" if flavor == "c45" else "not to the node's items"
    assert err.startswith(f"treegen: error: {model}:{line}:") and why in err, err


HUGE = "1" + "0" * 400  # a whole number past a double's range: valid JSON


@pytest.mark.parametrize("field", ["items", "errors", "threshold"])
def test_a_whole_number_past_a_doubles_range_in_a_model_file_is_one_line(
    field: str, capsys: pytest.CaptureFixture[str], golf_model: Path
) -> None:
    # JSON reads it as a Python int, which the checks took as a float (OverflowError:
    # a traceback); a 308-digit one is a double, refused by the field's own check.
    text = golf_model.read_text()
    first = re.search(rf'"{field}": ([0-9.e+-]+)', text)
    assert first is not None
    golf_model.write_text(text[: first.start(1)] + HUGE + text[first.end(1) :])
    line = text.count("\n", 0, first.start(1)) + 1
    code, out, err = run_cli(capsys, "show", str(golf_model))
    assert code == 2 and err.count("\n") == 1 and not out, err
    assert err.startswith(f"treegen: error: {golf_model}:{line}:") and "double's range" in err


def test_a_whole_number_past_a_doubles_range_in_an_xgboost_json_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # split_conditions took it as a float with a traceback (OverflowError).
    text = XGB_CAT.read_text()
    first = re.search(r'"split_conditions":\[([^,\]]+)', text)
    assert first is not None
    path = tmp_path / "m.json"
    path.write_text(text[: first.start(1)] + HUGE + text[first.end(1) :])
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-xgboost", str(path), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}:1:") and "double's range" in err, err
    assert not out.exists()


@pytest.mark.parametrize("command", ["train", "rules", "cv"])
def test_a_minimum_of_cases_past_a_c_int_is_refused(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # -m 10**400 passed argparse (an integer of at least 1) and overflowed where the
    # trainer took it as a float: a traceback.  Release 8 and J48 read it as a C int.
    out = tmp_path / "o"
    args = ["--folds", "3"] if command == "cv" else ["-o", str(out)]
    code, _, err = run_cli(capsys, command, str(GOLF), *args, "-m", HUGE)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("treegen: error: --min-cases: must be between 1 and 2147483647"), err
    assert not out.exists()


@pytest.mark.parametrize("value", [3, None, "0,1,2,3"])
def test_an_xgboost_iteration_indptr_that_is_no_list_names_the_field(
    value: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its length was taken before it was checked: TypeError, a traceback (model fuzz
    # case xgb-json:125 of seed 3672).
    doc = json.loads(XGB_CAT.read_text())
    doc["learner"]["gradient_booster"]["model"]["iteration_indptr"] = value
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-xgboost", str(path), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    want = f"treegen: error: {path}: learner.gradient_booster.model.iteration_indptr: must be"
    assert err.startswith(want), err
    assert not out.exists()


def test_a_library_warning_is_one_line_and_quiet_silences_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A skops file whose .npy members have a newline in their headers' padding: numpy
    # reads them (as headers written by Python 2) with a UserWarning, which Python printed as two
    # lines naming numpy's source line; under the suite's warnings-as-errors it was a
    # traceback (model fuzz case skops:2192 of seed 3672).
    import zipfile

    pytest.importorskip("skops")
    from sklearn.tree import DecisionTreeClassifier
    from skops.io import dump

    est = DecisionTreeClassifier(max_depth=2, random_state=0)
    est.fit([[0.0], [1.0], [2.0], [3.0]], [0, 1, 0, 1])
    good = tmp_path / "good.skops"
    dump(est, good)
    bad = tmp_path / "bad.skops"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith(".npy"):
                # the header's newline moved into its padding: the spaces after it
                # read as an indented line, so numpy parses it as Python 2's
                end = data.index(b"\n", 10)
                data = data[: end - 8] + b"\n" + data[end - 7 : end] + b" " + data[end + 1 :]
            dst.writestr(name, data)
    with pytest.warns(UserWarning, match="Python 2"):  # numpy's notice, as the CLI meets it
        import numpy as np

        with zipfile.ZipFile(bad) as z:
            npy = next(n for n in z.namelist() if n.endswith(".npy"))
            np.load(io.BytesIO(z.read(npy)))
    outs = []
    for quiet in ([], ["-q"]):
        out = tmp_path / f"m{len(quiet)}.trees"
        with warnings.catch_warnings():
            warnings.simplefilter("default")  # as a user runs it, not warnings-as-errors
            code, _, err = run_cli(capsys, *quiet, "import-sklearn", str(bad), "-o", str(out))
        assert code == 0, err
        lines = [s for s in err.splitlines() if not s.startswith("treegen: wrote ")]
        if quiet:
            assert err == "", err
        else:
            assert lines and all(s.startswith("treegen: warning: UserWarning: ") for s in lines)
            assert "Python 2" in lines[0] and "np.load" not in err, err
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]

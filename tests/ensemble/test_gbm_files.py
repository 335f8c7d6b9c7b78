"""XGBoost and LightGBM model files: read in every form, refused in one line when wrong.

JSON and UBJSON give the same ensemble; a truncated or tampered file, another
objective or booster, is a one-line error with its location (JSON: line and column,
or the field's path; UBJSON: the byte; text: the line), exit status 2 and no output;
the ensemble file keeps the new fields (float32 sums, the cut, the categorical rule,
zero bands) bit for bit and refuses them tampered.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from treegen.ensemble import classify
from treegen.ensemble.file import ensemble_to_json
from treegen.ensemble.lightgbm import lightgbm_from_text
from treegen.ensemble.xgboost import xgboost_from_bytes
from treegen.errors import ModelFileError
from treegen.kinds import loads

from support.cli import run_cli
from support.gbm_models import fit_lightgbm, fit_xgboost

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")


@pytest.fixture(scope="module")
def xgb_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("xgb") / "m.json"
    fit_xgboost("xgb_cat").get_booster().save_model(str(path))
    return path


@pytest.fixture(scope="module")
def lgb_text(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lgb") / "m.txt"
    fit_lightgbm("lgb_zero").booster_.save_model(str(path))
    return path


def test_ubjson_equals_json(xgb_json: Path, tmp_path: Path) -> None:
    booster = xgb.Booster(model_file=str(xgb_json))
    ubj = tmp_path / "m.ubj"
    booster.save_model(str(ubj))
    assert xgboost_from_bytes(ubj.read_bytes()) == xgboost_from_bytes(xgb_json.read_bytes())


def test_ensemble_file_round_trip(xgb_json: Path, lgb_text: Path) -> None:
    for ens in (
        xgboost_from_bytes(xgb_json.read_bytes()),
        lightgbm_from_text(lgb_text.read_text()),
    ):
        text = ensemble_to_json(ens)
        back = loads(text, "m.trees")[1]
        assert back == ens
        assert ensemble_to_json(back) == text


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda d: d.update(sum="float16"), "sum"),
        (lambda d: d.update(cut="0x1.8p-24", decision="argmax"), "cut"),
        (lambda d: d.update(categorical_rule="weka"), "categorical_rule"),
        (lambda d: d["values"].__setitem__(0, [(0.1).hex()]), "values"),
        (lambda d: d["trees"][0].update(zero_missing=[1]), "zero_missing"),
    ],
)
def test_tampered_ensemble_fields_are_refused(xgb_json: Path, edit, field: str) -> None:  # type: ignore[no-untyped-def]
    d = json.loads(ensemble_to_json(xgboost_from_bytes(xgb_json.read_bytes())))
    edit(d)
    with pytest.raises(ModelFileError, match=field):
        loads(json.dumps(d), "m.trees")


def _xgb_doc(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text())


def _tree0(d: dict) -> dict:  # type: ignore[type-arg]
    return d["learner"]["gradient_booster"]["model"]["trees"][0]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["learner"]["objective"].update(name="rank:pairwise"),
         "objective 'rank:pairwise'"),
        (lambda d: d["learner"]["gradient_booster"].update(name="dart"), "booster 'dart'"),
        (lambda d: _tree0(d)["left_children"].__setitem__(0, 99), "left_children"),
        (lambda d: _tree0(d)["split_indices"].__setitem__(0, 40), "split_indices"),
        (lambda d: _tree0(d).pop("split_conditions"), r"trees\[0\].split_conditions: is missing"),
        (lambda d: d["learner"]["learner_model_param"].update(base_score="[nan]"), "base_score"),
        (lambda d: d["learner"]["gradient_booster"]["model"].update(tree_info=[0]), "tree_info"),
    ],
)  # fmt: skip
def test_bad_xgboost_files_name_the_field(
    xgb_json: Path, tmp_path: Path, edit, message: str
) -> None:  # type: ignore[no-untyped-def]
    d = _xgb_doc(xgb_json)
    edit(d)
    with pytest.raises(ModelFileError, match=message):
        xgboost_from_bytes(json.dumps(d).encode(), "m.json")


def _lines_edit(text: str, key: str, value: str) -> str:
    return "\n".join(value if ln.startswith(key) and value else ln for ln in text.split("\n"))


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("objective=", "objective=lambdarank", "objective 'lambdarank'"),
        ("objective=", "objective=multiclassova num_class:3 sigmoid:1", "multiclassova"),
        ("version=", "version=v2", "version 'v2'"),
        ("decision_type=", "decision_type=" + "12 " * 14, "decision type 12"),
        ("left_child=", "left_child=" + "5 " * 14, "reached twice"),
        ("split_feature=", "split_feature=" + "9 " * 14, "feature 9 of 4"),
        ("threshold=", "threshold=" + "nan " * 14, "none NaN"),
        ("is_linear=", "is_linear=1", "linear trees"),
    ],
)
def test_bad_lightgbm_files_name_the_line(
    lgb_text: Path, key: str, value: str, message: str
) -> None:
    text = lgb_text.read_text()
    bad = text.replace(next(ln for ln in text.split("\n") if ln.startswith(key)), value, 1)
    with pytest.raises(ModelFileError, match=message) as info:
        lightgbm_from_text(bad, "m.txt")
    line = next(i for i, ln in enumerate(bad.split("\n")) if ln.startswith(key)) + 1
    assert info.value.line is not None and abs(info.value.line - line) <= 20


def test_cli_imports_and_refuses_in_one_line(
    xgb_json: Path, lgb_text: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.trees"
    code, _, err = run_cli(
        capsys, "import-xgboost", str(xgb_json), "-o", str(out), "--classes", "no,yes"
    )
    assert code == 0, err
    assert loads(out.read_text(), str(out))[1].schema.classes == ("no", "yes")
    code, _, err = run_cli(
        capsys,
        "import-lightgbm",
        str(lgb_text),
        "-o",
        str(tmp_path / "l.trees"),
        "--iterations",
        "3",
    )
    assert code == 0, err
    assert len(loads((tmp_path / "l.trees").read_text(), "l")[1].trees) == 9
    cases = [
        (["import-xgboost", str(xgb_json), "--iterations", "999"], "--iterations"),
        (["import-xgboost", str(xgb_json), "--classes", "a,b,c"], "--classes"),
        # The other library's file is named, with its importer (tests/cli).
        (["import-xgboost", str(lgb_text)], "is a LightGBM text model; import-xgboost reads"),
        (["import-lightgbm", str(xgb_json)], "is an XGBoost model; import-lightgbm reads"),
    ]
    other = tmp_path / "other.json"
    other.write_text('{"booster": 1}\n')
    cases += [
        (["import-xgboost", str(other)], "learner"),
        (
            ["import-lightgbm", str(other)],
            "not a LightGBM text model (whose first line is 'tree'; this file's is '{",
        ),
    ]
    text = tmp_path / "other.txt"
    text.write_text("tree\nsize=3\n")
    cases.append((["import-xgboost", str(text)], "not an XGBoost model"))
    for stem in ("m.json", "m.txt"):
        src = xgb_json if stem.endswith("json") else lgb_text
        cut = tmp_path / f"cut_{stem}"
        cut.write_bytes(src.read_bytes()[: len(src.read_bytes()) // 2])
        cmd = "import-xgboost" if stem.endswith("json") else "import-lightgbm"
        cases.append(([cmd, str(cut)], "truncated file"))
    for args, message in cases:
        bad = tmp_path / "bad.trees"
        code, _, err = run_cli(capsys, *args, "-o", str(bad))
        assert code == 2, (args, err)
        assert message in err and err.count("\n") == 1, err
        assert "Traceback" not in err and not bad.exists()


def test_ubjson_truncated_and_unknown_markers(xgb_json: Path, tmp_path: Path) -> None:
    ubj = tmp_path / "m.ubj"
    xgb.Booster(model_file=str(xgb_json)).save_model(str(ubj))
    data = ubj.read_bytes()
    for bad, message in ((data[:-7], "truncated file"), (data[:40] + b"?" + data[41:], "byte")):
        with pytest.raises(ModelFileError, match=message):
            xgboost_from_bytes(bad, "m.ubj")
    assert np.isfinite(xgboost_from_bytes(data).cut)


def test_ubjson_scalar_floats() -> None:
    """A float outside a typed array (markers d and D) is its value; cut short, a
    one-line error naming the byte."""
    from treegen.ensemble.ubjson import loads_ubjson

    doc = (
        b"{U\x01a"
        + b"d"
        + struct.pack(">f", 1.5)
        + b"U\x01b"
        + b"D"
        + struct.pack(">d", -0.1)
        + b"}"
    )
    assert loads_ubjson(doc, "m.ubj") == {"a": 1.5, "b": -0.1}
    with pytest.raises(ModelFileError, match="byte 5: truncated file"):
        loads_ubjson(doc[:7], "m.ubj")


@pytest.fixture(scope="module")
def xgb_frame_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An XGBoost model fitted on a DataFrame: the file keeps its text categories."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    n = 300
    frame = pd.DataFrame(
        {"a": rng.normal(size=n), "c": pd.Categorical(rng.choice(["red", "green", "blue"], n))}
    )
    y = ((frame.a > 0) ^ (frame.c == "red")).astype(int)
    est = xgb.XGBClassifier(n_estimators=2, max_depth=2, enable_categorical=True, n_jobs=1)
    path = tmp_path_factory.mktemp("xgbf") / "m.json"
    est.fit(frame, y).save_model(str(path))
    return path


def _enc(d: dict, j: int) -> dict:  # type: ignore[type-arg]
    return d["learner"]["gradient_booster"]["model"]["cats"]["enc"][j]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: _enc(d, 1).update(values=-1), r"enc\[1\].values: must be a list of integers"),
        (lambda d: _enc(d, 1)["values"].__setitem__(0, "NaN"), r"enc\[1\].values: must be a list"),
        (lambda d: _enc(d, 0).update(values=2**40), r"enc\[0\].values: must be a list"),
        (lambda d: _enc(d, 1)["offsets"].__setitem__(1, 99), r"enc\[1\].offsets: must rise"),
        (lambda d: _enc(d, 1)["values"].__setitem__(0, 4096), r"enc\[1\].values: the names' bytes"),
        (lambda d: _enc(d, 1)["values"].__setitem__(0, 255), r"enc\[1\]: .* not ASCII"),
        (lambda d: _enc(d, 1).update(offsets=[], values=[3, 3, 4]), "categories must be distinct"),
    ],
)  # fmt: skip
def test_tampered_category_names_name_the_field(xgb_frame_json: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    d = _xgb_doc(xgb_frame_json)
    assert [len(_enc(d, j)["values"]) > 0 for j in (0, 1)] == [False, True]
    xgboost_from_bytes(json.dumps(d).encode(), "m.json")  # the file as written reads
    edit(d)
    with pytest.raises(ModelFileError, match=message) as info:
        xgboost_from_bytes(json.dumps(d).encode(), "m.json")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "names", [["x", "\u00e9\u00e9"], ["c", "\u00e9a", "\u00e9b"], ["\u65e5\u672c", "a"]]
)
def test_non_ascii_category_names_are_refused(names: list[str]) -> None:
    """XGBoost writes a non-ASCII category name's UTF-8 bytes with offsets counting its
    characters: 'éé' comes out as 'é' (valid text, the wrong name), others as broken
    UTF-8.  Such names are refused in one line, never read as other names."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame({"a": rng.normal(size=n), "c": pd.Categorical(rng.choice(names, n))})
    y = ((frame.a > 0) ^ (frame.c == names[1])).astype(int)
    est = xgb.XGBClassifier(n_estimators=2, max_depth=2, enable_categorical=True, n_jobs=1)
    data = bytes(est.fit(frame, y).get_booster().save_raw("json"))
    with pytest.raises(
        ModelFileError, match=r"cats.enc\[1\]: category names that are not ASCII"
    ) as info:
        xgboost_from_bytes(data, "m.json")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "make", [lambda: xgb.XGBClassifier(), lambda: xgb.XGBRegressor(), lambda: lgb.LGBMClassifier()]
)
def test_an_unfitted_wrapper_is_named(make) -> None:  # type: ignore[no-untyped-def]
    """An unfitted XGBClassifier raised XGBoost's own NotFittedError through treegen, and
    an unfitted LGBMClassifier was 'cannot read a LGBMClassifier: give ... an
    LGBMClassifier': both are a usage error saying it is not fitted."""
    from treegen.errors import UsageError
    from treegen.estimator.gbm_import import from_lightgbm, from_xgboost

    est = make()
    load = from_xgboost if type(est).__name__.startswith("XGB") else from_lightgbm
    with pytest.raises(UsageError, match=f"^model: the {type(est).__name__} is not fitted$"):
        load(est)


def test_a_one_class_lgbm_classifier_is_named() -> None:
    """LightGBM fits a one-class target as a binary model; its import said 'classes_ has
    1 labels for 2 classes', which did not say what was wrong."""
    from treegen.errors import UsageError
    from treegen.estimator.gbm_import import from_lightgbm

    X = np.arange(40, dtype=np.float32).reshape(20, 2)
    est = lgb.LGBMClassifier(n_estimators=2, verbose=-1).fit(X, np.full(20, 7))
    with pytest.raises(UsageError, match=r"^model: the classifier was fitted on one class \('7'\)"):
        from_lightgbm(est)


def test_cli_refuses_dart_gblinear_and_linear_trees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Models users train that treegen does not read: XGBoost's DART (whose own
    Booster.predict and XGBClassifier.predict differ) and gblinear, LightGBM's linear
    trees: exit 2, one line naming what is read, no output."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    common = {"n_estimators": 3, "n_jobs": 1, "random_state": 0}
    xgb.XGBClassifier(**common, booster="dart", rate_drop=0.2).fit(X, y).save_model(
        str(tmp_path / "dart.json")
    )
    xgb.XGBClassifier(**common, booster="gblinear").fit(X, y).save_model(
        str(tmp_path / "linear.json")
    )
    lgb.LGBMClassifier(**common, linear_tree=True, verbose=-1).fit(X, y).booster_.save_model(
        str(tmp_path / "linear.txt")
    )
    cases = [
        ("import-xgboost", "dart.json", "booster 'dart' is not read (XGBoost's own predictions"),
        ("import-xgboost", "linear.json", "booster 'gblinear' is not read (a linear model"),
        ("import-lightgbm", "linear.txt", "linear trees (linear_tree=True"),
    ]
    for cmd, name, message in cases:
        out = tmp_path / "out.trees"
        code, _, err = run_cli(capsys, cmd, str(tmp_path / name), "-o", str(out))
        assert code == 2 and message in err and err.count("\n") == 1, err
        assert ("treegen reads 'gbtree'" in err) == cmd.endswith("xgboost"), err
        assert "only trees whose leaves are constants" in err or cmd.endswith("xgboost"), err
        assert not out.exists()


def test_from_xgboost_and_from_lightgbm_take_the_text(xgb_json: Path, lgb_text: Path) -> None:
    """docs/python.md: a model file, its bytes or its text.  XGBoost's JSON text (one
    line, as ``json.dumps`` or ``save_raw().decode()`` give it) was opened as a path:
    'File name too long', the whole document printed as the file's name."""
    from treegen.estimator.gbm_import import from_lightgbm, from_xgboost

    text = xgb_json.read_text()
    one_line = json.dumps(json.loads(text))
    expected = ensemble_to_json(from_xgboost(xgb_json).value)
    for given in (text, one_line, one_line.encode()):
        assert ensemble_to_json(from_xgboost(given).value) == expected
    lgb_expected = ensemble_to_json(from_lightgbm(lgb_text).value)
    assert ensemble_to_json(from_lightgbm(lgb_text.read_text()).value) == lgb_expected


def test_a_lightgbm_custom_objective_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model trained with a Python function as its objective has no objective= line;
    the import said 'objective= is missing', as of a damaged file."""
    X = np.random.default_rng(0).normal(size=(60, 2))

    def squared(y: np.ndarray, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return raw - y, np.ones_like(raw)

    est = lgb.LGBMRegressor(n_estimators=2, objective=squared, verbose=-1, n_jobs=1)
    path = tmp_path / "custom.txt"
    est.fit(X, X[:, 0]).booster_.save_model(str(path))
    out = tmp_path / "custom.trees"
    code, stdout, stderr = run_cli(capsys, "import-lightgbm", str(path), "-o", str(out))
    assert code == 2 and stdout == "" and not out.exists()
    assert stderr.startswith(f"treegen: error: {path}:") and stderr.count("\n") == 1
    assert "custom objective" in stderr and "treegen reads binary, multiclass" in stderr


@pytest.mark.parametrize("magic", [b"", b"binf"])
def test_an_old_binary_xgboost_model_is_named(
    magic: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """XGBoost's binary format (before JSON; a .model or .bst file, optionally 'binf'
    first): its 136-byte LearnerModelParam, then the objective's and the booster's names
    as a uint64 length and the bytes.  import-xgboost called it 'not an XGBoost model'."""

    def name(s: bytes) -> bytes:
        return struct.pack("<Q", len(s)) + s

    param = struct.pack("<fIiiiIIIi", 0.5, 4, 0, 0, 0, 1, 5, 1, 1) + bytes(100)
    assert len(param) == 136
    path = tmp_path / "old.model"
    path.write_bytes(magic + param + name(b"binary:logistic") + name(b"gbtree") + bytes(64))
    out = tmp_path / "old.trees"
    code, stdout, stderr = run_cli(capsys, "import-xgboost", str(path), "-o", str(out))
    assert code == 2 and stdout == "" and not out.exists() and stderr.count("\n") == 1
    assert stderr.startswith(f"treegen: error: {path}: ")
    assert "XGBoost's old binary format" in stderr and "save_model('m.json')" in stderr


def test_the_libraries_dumps_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A dump (XGBoost's dump_model, text or JSON; LightGBM's dump_model JSON) is no model
    file: no base score, objective or defaults in XGBoost's, another layout in
    LightGBM's.  The imports said 'not an XGBoost model' and, of LightGBM's JSON given
    to import-xgboost, 'learner: is missing'; now they name the dump and save_model."""
    X = np.random.default_rng(0).normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    booster = xgb.XGBClassifier(n_estimators=2, n_jobs=1).fit(X, y).get_booster()
    booster.dump_model(str(tmp_path / "x_dump.txt"))
    booster.dump_model(str(tmp_path / "x_dump.json"), dump_format="json")
    lgb_est = lgb.LGBMClassifier(n_estimators=2, verbose=-1, n_jobs=1).fit(X, y)
    (tmp_path / "l_dump.json").write_text(json.dumps(lgb_est.booster_.dump_model()))
    for command, name, says in (
        ("import-xgboost", "x_dump.txt", "XGBoost's dump (dump_model)"),
        ("import-xgboost", "x_dump.json", "XGBoost's dump (dump_model)"),
        ("import-xgboost", "l_dump.json", "LightGBM's JSON dump (dump_model)"),
        ("import-lightgbm", "l_dump.json", "LightGBM's JSON dump (dump_model)"),
    ):
        out = tmp_path / "m.trees"
        code, stdout, stderr = run_cli(capsys, command, str(tmp_path / name), "-o", str(out))
        assert code == 2 and stdout == "" and not out.exists() and stderr.count("\n") == 1
        assert says in stderr and "save_model" in stderr, (name, stderr)


@pytest.mark.parametrize("leaf", ["-nan", "inf", "-inf"])
def test_a_lightgbm_leaf_that_is_not_finite_is_named(
    leaf: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LightGBM writes a leaf fitted without hessian (min_child_weight=0, a learning rate
    of 1, bagging that leaves a leaf empty) as -nan or inf, and predicts NaN or infinity
    for the rows reaching it: refused in one line that says so, exit 2, no output."""
    head = (
        "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"
        "max_feature_idx=0\nobjective=regression\nfeature_names=x\nfeature_infos=[-3:3]\n"
        "tree_sizes=1\n\n"
    )
    tree = (
        "Tree=0\nnum_leaves=2\nnum_cat=0\nsplit_feature=0\nsplit_gain=1\nthreshold=0.5\n"
        f"decision_type=2\nleft_child=-1\nright_child=-2\nleaf_value=0.25 {leaf}\n"
        "leaf_weight=1 0\nleaf_count=1 0\ninternal_value=0\ninternal_weight=1\n"
        "internal_count=1\nis_linear=0\nshrinkage=1\n\n\nend of trees\n\n"
        "feature_importances:\n\nparameters:\nend of parameters\n\npandas_categorical:null\n"
    )
    (tmp_path / "m.txt").write_text(head + tree)
    out = tmp_path / "out.trees"
    code, _, err = run_cli(capsys, "import-lightgbm", str(tmp_path / "m.txt"), "-o", str(out))
    value = "nan" if "nan" in leaf else leaf
    assert code == 2 and err.count("\n") == 1 and not out.exists(), err
    assert f"m.txt:21: leaf 1 of tree 0 is {value}" in err, err
    assert "predicts" in err and "min_child_weight" in err, err
    # In a round past --iterations the leaf is never reached: the rounds before it are read.
    first = tree.replace(f"leaf_value=0.25 {leaf}", "leaf_value=0.25 -0.5")
    second = tree.split("\n\n\nend of trees")[0].replace("Tree=0", "Tree=1")
    both = head.replace("tree_sizes=1", "tree_sizes=1 1") + first.replace(
        "\n\n\nend of trees", f"\n\n\n{second}\n\n\nend of trees"
    )
    model = lightgbm_from_text(both, iterations=1)
    assert np.array_equal(classify.values(model, np.asarray([[0.0], [1.0]]))[:, 0], [0.25, -0.5])
    with pytest.raises(ModelFileError, match="leaf 1 of tree 1 is"):
        lightgbm_from_text(both)


def test_xgboost_split_at_infinity_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """XGBoost's exact method splits two values near FLT_MAX at their float32 midpoint,
    which overflows: the file holds x < inf (JSON's ``Infinity``), every finite x left.
    It was refused as "not a finite number"; it is read, and equals XGBoost's predict."""
    import treegen

    rng = np.random.default_rng(1)
    X = rng.uniform(3.2e38, 3.4e38, size=(200, 2)).astype(np.float32)
    y = (X[:, 0] > 3.3e38).astype(int)
    est = xgb.XGBClassifier(n_estimators=3, max_depth=3, tree_method="exact").fit(X, y)
    path = tmp_path / "m.json"
    est.get_booster().save_model(str(path))
    assert "Infinity" in path.read_text()
    code, _, err = run_cli(
        capsys, "import-xgboost", str(path), "-q", "-o", str(tmp_path / "m.trees")
    )
    assert code == 0, err
    model = treegen.load(str(tmp_path / "m.trees"))
    top = np.float32(3.4028235e38)
    extra = [[np.inf, np.inf], [top, top], [-np.inf, 0.0], [np.nan, np.nan]]
    rows = np.concatenate([X, np.asarray(extra, dtype=np.float32)])
    assert np.array_equal(model.predict(rows), est.predict(rows))
    assert np.array_equal(model.predict_proba(rows), est.predict_proba(rows))
    report = model.verify(rows, n_random=50)
    assert report.ok, report.text


def test_xgboost_leaf_at_infinity_is_refused(tmp_path: Path) -> None:
    """Only a numeric split may be at +inf: a leaf's value is a number."""
    doc = json.loads(fit_xgboost("xgb_binary").get_booster().save_raw("json"))
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][0]
    leaf = tree["left_children"].index(-1)
    tree["split_conditions"][leaf] = float("inf")
    with pytest.raises(
        ModelFileError, match=rf"split_conditions\[{leaf}\]: is not a finite number"
    ):
        xgboost_from_bytes(json.dumps(doc).encode(), "m.json")

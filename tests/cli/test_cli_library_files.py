"""A library's own model file given where a treegen model, data or another importer's
file belongs is named as what it is, with the command that converts it.

A new user's first try is ``treegen show model.json`` (XGBoost's file) or ``treegen
verify forest.trees model.txt``; they said 'format: not a treegen model file', 'not
JSON: Expecting value', 'column ... is missing (columns: tree)', and import-sklearn of a
LightGBM file or a truncated skops file 'cannot unpickle (IndexError: pop from empty
list ...)'.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.data.filekind import file_kind

from support.cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"
GOLF = DATA / "reference" / "golf" / "golf"


def _xy() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    return X, (X[:, 0] > 0).astype(int)


def _library_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Each library's file: its path and the import command that reads it."""
    xgb = pytest.importorskip("xgboost")
    lgb = pytest.importorskip("lightgbm")
    sio = pytest.importorskip("skops.io")
    from sklearn.tree import DecisionTreeClassifier

    X, y = _xy()
    out: dict[str, tuple[Path, str]] = {}
    booster = xgb.XGBClassifier(n_estimators=2, max_depth=2, n_jobs=1).fit(X, y)
    for ext in ("json", "ubj"):
        path = tmp_path / f"model.{ext}"
        booster.save_model(path)
        out[f"xgboost {ext}"] = (path, "import-xgboost")
    path = tmp_path / "model.txt"
    lgb.LGBMClassifier(n_estimators=2, num_leaves=4, verbose=-1).fit(X, y).booster_.save_model(path)
    out["lightgbm"] = (path, "import-lightgbm")
    path = tmp_path / "tree.skops"
    sio.dump(DecisionTreeClassifier(max_depth=2).fit(X, y), path)
    out["skops"] = (path, "import-sklearn")
    return out


NAMES = {
    "import-xgboost": "an XGBoost model",
    "import-lightgbm": "a LightGBM text model",
    "import-sklearn": "a skops file",
}


def test_library_files_are_recognised(tmp_path: Path) -> None:
    for path, command in _library_files(tmp_path).values():
        kind = file_kind(str(path))
        assert kind is not None and kind.name == NAMES[command], path


def test_a_library_file_given_as_a_model_or_data_names_its_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "golf.tree"
    assert run_cli(capsys, "-q", "train", f"{GOLF}.names", "-o", str(tree))[0] == 0
    for path, command in _library_files(tmp_path).values():
        convert = f"'treegen {command} {path} -o MODEL' converts it"
        got = run_cli(capsys, "show", str(path))
        want = (
            f"{path} is {NAMES[command]}; show reads a model file "
            "(.tree, .rules, .committee or .trees)"
        )
        assert got == (2, "", f"treegen: error: {want} ({convert})\n")
        got = run_cli(capsys, "verify", str(tree), str(path))
        assert got[:2] == (2, "") and f"{path} is {NAMES[command]}; verify reads data" in got[2]
        assert got[2].endswith(f"({convert})\n")
        got = run_cli(capsys, "train", str(path))
        assert got[:2] == (2, "") and f"{path} is {NAMES[command]}; train reads data" in got[2]


def test_an_importer_given_another_library_file_names_the_right_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.trees"
    files = _library_files(tmp_path)
    for path, command in files.values():
        for other in ("import-sklearn", "import-xgboost", "import-lightgbm"):
            if other == command:
                continue
            code, stdout, err = run_cli(capsys, other, str(path), "-o", str(out))
            assert (code, stdout) == (2, ""), (other, path)
            assert err.startswith(f"treegen: error: {path} is {NAMES[command]}; {other} reads")
            assert err.endswith(f"('treegen {command} {path} -o MODEL' converts it)\n")
            assert "unpickle" not in err
    assert not out.exists()


def test_import_sklearn_names_every_format_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its help says skops, pickle or joblib; the error named pickle and joblib only."""
    got = run_cli(capsys, "import-sklearn", f"{GOLF}.names", "-o", str(tmp_path / "m.trees"))
    assert got == (
        2,
        "",
        f"treegen: error: {GOLF}.names is a C4.5 names file; import-sklearn reads a "
        "scikit-learn estimator saved with skops, pickle or joblib\n",
    )


def test_a_truncated_skops_file_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skops file is a zip archive; cut short it was unpickled, which said 'cannot
    unpickle (UnpicklingError: persistent IDs in protocol 0 must be ASCII strings ...)'."""
    path, _ = _library_files(tmp_path)["skops"]
    cut = tmp_path / "cut.skops"
    cut.write_bytes(path.read_bytes()[:300])
    got = run_cli(capsys, "import-sklearn", str(cut), "-o", str(tmp_path / "m.trees"))
    assert got == (
        2,
        "",
        f"treegen: error: {cut}: a zip archive (a skops file?) that is damaged or cut short\n",
    )


def test_an_import_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """train, rules and synth say 'treegen: wrote FILE: ...'; the imports said nothing,
    though they take -q ('no progress or diagnostics on stderr')."""
    files = _library_files(tmp_path)
    what = {
        "xgboost json": "XGBoost binary:logistic, 2 trees",
        "xgboost ubj": "XGBoost binary:logistic, 2 trees",
        "lightgbm": "LightGBM binary, 2 trees",
        "skops": "DecisionTreeClassifier, 1 tree",
    }
    for key, (path, command) in files.items():
        out = tmp_path / f"{key.replace(' ', '_')}.trees"
        code, stdout, err = run_cli(capsys, command, str(path), "-o", str(out))
        assert (code, stdout) == (0, "") and out.exists()
        assert err.startswith(f"treegen: wrote {out}: {what[key]}, ") and err.count("\n") == 1
        assert run_cli(capsys, "-q", command, str(path), "-o", str(out)) == (0, "", "")

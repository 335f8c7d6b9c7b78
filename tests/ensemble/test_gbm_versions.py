"""Model files written by other versions of XGBoost and LightGBM than the tests' own.

``tests/data/gbm_versions`` holds small model files, each written by the library
version its README names, beside ``NAME.expected.json``: probe rows (NaN as null) and
what that version's ``predict`` and raw margin (``output_margin=True`` /
``raw_score=True``) gave on them.  The import must equal both, class for class and
bit for bit, and its C must agree with it; or, where treegen does not compute what
that version predicts, refuse it in one line.  Neither library is needed here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.ensemble import classify

from support.cli import run_cli
from support.floatbits import rows_differ, same_bits

VERSIONS = Path(__file__).resolve().parent.parent / "data" / "gbm_versions"
_CAT = ": learner.gradient_booster.model.trees[0].split_type[0]: a categorical split, in a file"
REFUSED = {
    "xgb121_bs.json": ": version: written by XGBoost 1.2.1, which adds the base margin",
    "xgb142_cat.json": f"{_CAT} XGBoost 1.4.2 wrote: XGBoost 1.4 reads it on the CPU as",
    "xgb152_cat.json": f"{_CAT} XGBoost 1.5.2 wrote: XGBoost 1.5 takes a code between -1 and 0",
    "xgb162_cat.json": f"{_CAT} XGBoost 1.6.2 wrote: XGBoost 1.6 sends a negative code",
    "xgb172_cat.json": f"{_CAT} XGBoost 1.7.2 wrote: XGBoost 1.7 before 1.7.3 sends a negative",
    # a whole file of LightGBM 2.1's format (no 'end of trees'), not a truncated one
    "lgb212_cat.txt": ":2: model version 'v2' is not read",
}
"""Files refused, and the start of what the error says after the file's name (the
line, for LightGBM's text)."""
FILES = sorted(p for p in VERSIONS.iterdir() if p.suffix in (".json", ".ubj", ".txt")
               and not p.name.endswith(".expected.json") and p.name not in REFUSED)  # fmt: skip


def _expected(path: Path) -> tuple[np.ndarray, dict[str, list[float]]]:
    doc = json.loads(path.with_name(path.name.split(".")[0] + ".expected.json").read_text())
    rows = np.array([[np.nan if v is None else v for v in r] for r in doc["rows"]])
    return rows, doc


def _load(path: Path) -> treegen.Model:
    if path.suffix == ".txt":
        return treegen.from_lightgbm(str(path))
    return treegen.from_xgboost(str(path))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_equals_the_version_that_wrote_it(path: Path) -> None:
    rows, doc = _expected(path)
    model = _load(path)
    assert np.array_equal(classify.predict(model.value, rows), np.array(doc["predict"]))
    margin = np.array(doc["margin"]).reshape(len(rows), -1)
    assert same_bits(classify.raw_scores(model.value, rows), margin)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_cli_import_and_verify(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = "import-lightgbm" if path.suffix == ".txt" else "import-xgboost"
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, command, str(path), "-q", "-o", str(out))
    assert code == 0, err
    rows, doc = _expected(path)
    model = treegen.load(str(out))
    assert np.array_equal(model.predict(rows).astype(int), np.array(doc["predict"]))
    report = model.verify(rows, n_random=50)
    assert report.ok, report.text


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_in_one_line(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = VERSIONS / name
    out = tmp_path / "m.trees"
    command = "import-lightgbm" if path.suffix == ".txt" else "import-xgboost"
    code, stdout, err = run_cli(capsys, command, str(path), "-o", str(out))
    assert (code, stdout, out.exists()) == (2, "", False)
    assert re.fullmatch(rf"treegen: error: {re.escape(str(path) + REFUSED[name])}[^\n]*\n", err)


def test_old_base_margin_order_differs() -> None:
    """Why XGBoost 1.2's file is refused: read as a later version's (its version field
    removed), its margins differ from those 1.2.1 gave."""
    path = VERSIONS / "xgb121_bs.json"
    doc = json.loads(path.read_text())
    del doc["version"]
    model = treegen.from_xgboost(json.dumps(doc).encode())
    rows, expected = _expected(path)
    margin = np.array(expected["margin"]).reshape(len(rows), -1)
    assert not same_bits(classify.raw_scores(model.value, rows), margin)


@pytest.mark.parametrize(
    ("name", "codes"),
    [
        # 1.4 on the CPU: every categorical split's codes right (x < NaN)
        ("xgb142_cat.json", [-1.0, -0.5, 0.0, 1.0, 5.0, 7.0, 40.0]),
        # 1.5: -0.5 as category 0
        ("xgb152_cat.json", [-0.5]),
        # 1.6: a negative code, or one past the node's 32 bits, the missing way
        ("xgb162_cat.json", [-1.0, -0.5, 40.0]),
        # 1.7.0 to 1.7.2 as 1.6 (1.7.3's file of the same model is read: FILES)
        ("xgb172_cat.json", [-1.0, -0.5, 40.0]),
    ],
)
def test_old_categorical_rule_differs(name: str, codes: list[float]) -> None:
    """Why XGBoost 1.4 to 1.7.2's categorical splits are refused: read as 1.7.6's (the
    version field 1.7.6), the rows whose margins differ from the writer's are those with
    the codes its predictor sends otherwise."""
    path = VERSIONS / name
    doc = json.loads(path.read_text())
    doc["version"] = [1, 7, 6]
    model = treegen.from_xgboost(json.dumps(doc).encode())
    rows, expected = _expected(path)
    margin = np.array(expected["margin"]).reshape(len(rows), -1)
    differ = rows_differ(classify.raw_scores(model.value, rows), margin)
    assert sorted(set(rows[differ, 1].tolist())) == codes

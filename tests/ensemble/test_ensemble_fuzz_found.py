"""The defects the ensemble export fuzz found (tests/ensemble/test_ensemble_fuzz.py),
each reduced to the smallest ensemble that showed it, through the user's entry point
(a saved file, ``treegen.load`` and ``verify``)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import treegen
from treegen.ensemble import classify

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _h(v: float) -> str:
    return float(v).hex()


def _tree(feature: list[int], threshold: list[float], left: list[int], right: list[int],
          nan_left: list[int], value: list[int]) -> dict[str, Any]:  # fmt: skip
    n = len(feature)
    return {
        "output": -1, "feature": feature, "threshold": [_h(t) for t in threshold],
        "left": left, "right": right, "nan_left": nan_left, "categorical": [0] * n,
        "left_codes": [[]] * n, "value": value,
    }  # fmt: skip


def _forest(trees: list[dict[str, Any]], n_values: int, tmp: Path) -> Path:
    doc = {
        "format": "treegen-ensemble", "version": 1, "treegen_version": "",
        "data_fingerprint": "", "options": {}, "target": "class", "classes": ["a", "b"],
        "attributes": [{"name": "x", "kind": "continuous"}], "method": "forest",
        "decision": "argmax", "compare": "float32", "init": [_h(0), _h(0)],
        "divisor": _h(len(trees)), "categories": [],
        "values": [[_h(1 - v), _h(v)] for v in (i / max(1, n_values - 1) for i in range(n_values))],
        "trees": trees,
    }  # fmt: skip
    path = tmp / "f.trees"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("input_type", ["uint8", "int8"])
def test_table_of_range_decided_tests_only(input_type: str, tmp_path: Path) -> None:
    # Every test is decided by the integer type's range, one way for one test and the
    # other way for the other, while a missing value goes elsewhere: the table's words
    # hold the two ops and no threshold column is written.  Its walk read the missing
    # column anyway ("thr undeclared"): the C did not compile.
    tree = _tree([0, 0, -1, -1, -1], [1e20, -1e20, 0, 0, 0], [1, 2, -1, -1, -1],
                 [4, 3, -1, -1, -1], [0, 1, 0, 0, 0], [-1, -1, 0, 1, 2])  # fmt: skip
    model = treegen.load(str(_forest([tree, tree], 3, tmp_path)))
    report = model.verify(style="table", input_type=input_type, n_random=50)
    assert report.ok, report.text


@pytest.mark.parametrize("style", ["ifs", "table"])
@pytest.mark.parametrize("missing", ["c45", "none"])
def test_a_minus_infinity_threshold_on_double_inputs(
    style: str, missing: str, tmp_path: Path
) -> None:
    # scikit-learn's trees compare float32(x) <= t: for t = -inf a double below
    # -FLT_MAX (-DBL_MAX, say) is -inf as a float32 and goes left.  The C compared the
    # double itself with -inf (x < -DBL_MAX) and sent it right.
    tree = _tree([0, -1, -1], [-math.inf, 0, 0], [1, -1, -1], [2, -1, -1], [0, 0, 0], [-1, 0, 1])
    model = treegen.load(str(_forest([tree, tree], 2, tmp_path)))
    low = -3.5e38  # below -FLT_MAX by more than half its ulp: float32 -inf
    rows = np.array([[low], [-3.4e38], [-math.inf]])
    assert classify.predict(model.value, rows).tolist() == [0, 1, 0]
    report = model.verify(style=style, input_type="double", missing=missing, n_random=50)
    assert report.ok, report.text


def _stump_codes(nan_left: int) -> dict[str, Any]:
    return {
        "output": -1, "feature": [0, -1, -1], "threshold": [_h(0)] * 3, "left": [1, -1, -1],
        "right": [2, -1, -1], "nan_left": [nan_left, 0, 0], "categorical": [1, 0, 0],
        "left_codes": [[0, 2], [], []], "value": [-1, 0, 1],
    }  # fmt: skip


@pytest.mark.parametrize("categorical_rule", ["lightgbm", "xgboost", "sklearn"])
def test_table_of_categorical_tests_only_with_missing_none(
    categorical_rule: str, tmp_path: Path
) -> None:
    # Every test categorical, under --missing none: the walk has no numeric comparison
    # and declares no value, but its numeric branch (never taken) compared that value
    # ("v undeclared"): the C did not compile.
    path = _forest([_stump_codes(1), _stump_codes(0)], 2, tmp_path)
    doc = json.loads(path.read_text())
    doc["categorical_rule"] = categorical_rule
    path.write_text(json.dumps(doc))
    report = treegen.load(str(path)).verify(style="table", missing="none", n_random=50)
    assert report.ok, report.text


@pytest.mark.parametrize("style", ["ifs", "table"])
def test_xgboost_codes_of_double_inputs_are_of_their_float(style: str, tmp_path: Path) -> None:
    # XGBoost reads x as a float, then takes int(x) for 0 <= x: -1e-46 is float32 -0.0,
    # code 0, and 2.9999999999 is float32 3.0, code 3.  With --input-type double the C
    # tested and truncated the double: no code, and code 2.  (Found by the XGBoost fuzz.)
    stump = _stump_codes(1)
    stump["left_codes"] = [[0, 3], [], []]
    path = _forest([stump, stump], 2, tmp_path)
    doc = json.loads(path.read_text())
    doc["categorical_rule"] = "xgboost"
    path.write_text(json.dumps(doc))
    model = treegen.load(str(path))
    below = np.nextafter(np.float32(5), np.float32(0))  # the last float below 5
    edges = [-1e-46, 2.9999999999, 3.0000000001, -2e-45, 4.99999999, float(below), 5.0, 1e300]
    rows = np.array([[v] for v in edges])
    assert classify.predict(model.value, rows).tolist() == [0, 0, 0, 1, 1, 1, 1, 1]
    pd = pytest.importorskip("pandas")
    report = model.verify(pd.DataFrame({"x": rows[:, 0]}), style=style, input_type="double")
    assert report.ok, report.text


def test_a_regressors_huge_leaf_value_in_the_table(tmp_path: Path) -> None:
    # A multi-output regression tree's leaf row (1e308, 0.5): the table style's search for
    # count rows multiplied 1e308 by the rows' common denominator, and round(inf) raised
    # OverflowError out of export (found by the scikit-learn fuzz).
    sklearn_tree = pytest.importorskip("sklearn.tree")
    X = np.asarray([[0.0], [1.0]])
    est = sklearn_tree.DecisionTreeRegressor().fit(X, [[1e308, 0.5], [1.0, 2.0]])
    model = treegen.from_sklearn(est)
    report = model.verify(style="table", n_random=50)
    assert report.ok, report.text
    assert np.array_equal(model.predict(X), est.predict(X))

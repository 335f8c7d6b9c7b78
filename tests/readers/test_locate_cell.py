"""A value that a model refuses after the data was read is named at its cell.

A gradient-boosting model refuses NaN (scikit-learn's predict raises): the refusal counts
rows and attributes of the Dataset from 0, and the command names the cell's FILE:LINE:COL
in the file as written, read again by the Python reader (``locate_cell``): in a CSV
file, an ARFF file whose columns are in another order than the model's, and C4.5 cases.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from support.cli import run_cli

REFUSED = (
    "feature 'x1': a missing value (NaN), which GradientBoostingClassifier's predict "
    "refuses (scikit-learn raises); the exported C answers it (each node's missing-value side)"
)


@pytest.fixture
def boosted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    ensemble = pytest.importorskip("sklearn.ensemble")
    X = np.random.default_rng(0).normal(size=(60, 2))
    est = ensemble.GradientBoostingClassifier(n_estimators=3, max_depth=2, random_state=0)
    pkl, model = tmp_path / "gb.pkl", tmp_path / "gb.trees"
    pkl.write_bytes(pickle.dumps(est.fit(X, (X[:, 0] > 0).astype(int))))
    assert run_cli(capsys, "-q", "import-sklearn", str(pkl), "-o", str(model))[0] == 0
    return model


@pytest.mark.parametrize(
    ("name", "text", "line", "col"),
    [
        ("d.csv", "x0,x1\n0.5,1\n-1,?\n", 3, 4),
        (
            "d.arff",
            "@relation r\n@attribute x1 numeric\n@attribute x0 numeric\n@data\n1,0.5\n?,-1\n",
            6,
            1,
        ),
        ("d.data", "0.5,1,1\n-1, ?,0\n", 2, 5),
    ],
)
def test_a_refused_missing_value_is_named_at_its_cell(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    boosted: Path,
    name: str,
    text: str,
    line: int,
    col: int,
) -> None:
    data = tmp_path / name
    data.write_text(text)
    if name.endswith(".data"):
        (tmp_path / "d.names").write_text("0, 1.\nx0: continuous.\nx1: continuous.\n")
    for command in ("predict", "eval"):
        code, out, err = run_cli(capsys, command, str(boosted), str(data))
        assert (code, out) == (2, "")
        assert err == f"treegen: error: {data}:{line}:{col}: {REFUSED}\n"

"""A regressor through the command line: import-sklearn, show, predict (each value as
repr, which reads back as the same float64), verify; --proba and eval refuse it."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import treegen

from support.cli import run_cli
from support.floatbits import same_bits
from support.sklearn_regressors import fit_regressor, regression_data

sklearn = pytest.importorskip("sklearn")


def _imported(tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    pkl = tmp_path / "r.pkl"
    pkl.write_bytes(pickle.dumps(fit_regressor(name)))
    model = tmp_path / "r.trees"
    X, y = regression_data(name)
    csv = tmp_path / "rows.csv"
    head = ",".join(f"x{j}" for j in range(X.shape[1]))
    body = "".join(
        ",".join("?" if np.isnan(v) else repr(float(v)) for v in row) + "\n" for row in X[:40]
    )
    csv.write_text(f"{head}\n{body}")
    return pkl, model, csv


@pytest.mark.parametrize("name", ["forest", "hist", "multi_tree"])
def test_predict_prints_values_that_read_back_as_the_same_bits(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pkl, model, csv = _imported(tmp_path, name)
    code, _, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(model), "--target", "y")
    assert code == 0, err
    code, out, _ = run_cli(capsys, "show", str(model))
    assert code == 0 and "outputs (" in out and "regressor" in out
    code, out, err = run_cli(capsys, "predict", str(model), str(csv))
    assert code == 0, err
    got = np.array([[float(v) for v in line.split("\t")] for line in out.splitlines()])
    X, _ = regression_data(name)
    want = np.asarray(fit_regressor(name).predict(X[:40]), dtype=np.float64).reshape(40, -1)
    assert same_bits(got, want)
    # The Python API returns the same array.
    api = treegen.load(str(model)).predict(X[:40])
    assert same_bits(np.asarray(api).reshape(40, -1), want)


def test_proba_and_eval_refuse_a_regressor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pkl, model, csv = _imported(tmp_path, "boosting")
    assert run_cli(capsys, "import-sklearn", str(pkl), "-o", str(model))[0] == 0
    code, _, err = run_cli(capsys, "predict", "--proba", str(model), str(csv))
    assert code == 2 and "regressor" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "export", str(model), "-o", str(tmp_path / "c"), "--proba")
    assert code == 2 and "no class probabilities" in err


def test_verify_says_it_compares_bits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pkl, model, csv = _imported(tmp_path, "hist_cat")
    assert run_cli(capsys, "import-sklearn", str(pkl), "-o", str(model))[0] == 0
    code, out, err = run_cli(capsys, "verify", str(model), str(csv))
    assert code == 0, out + err
    assert "float64 values compared bit for bit: identical" in out


def test_plot_and_show_format_say_an_ensemble(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pkl, model, _ = _imported(tmp_path, "forest")
    assert run_cli(capsys, "import-sklearn", str(pkl), "-o", str(model))[0] == 0
    code, _, err = run_cli(capsys, "plot", str(model), "-o", str(tmp_path / "f.svg"))
    assert (code, err) == (
        2,
        f"treegen: error: {model}: an ensemble has no tree to draw ('treegen show' prints it)\n",
    )
    code, _, err = run_cli(capsys, "show", str(model), "--format", "dot")
    assert (code, err) == (2, "treegen: error: --format: an ensemble prints as c45 only\n")
    assert not (tmp_path / "f.svg").exists()

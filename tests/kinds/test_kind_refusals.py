"""An option one kind takes and another does not is refused by the kind, on the command
line, as one line naming the option (exit 2, nothing written): ``--unpruned`` of a
committee or an ensemble, or of a tree trained on other columns; ``--scores`` of a tree.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from support.cli import run_cli

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run_cli(capsys, *argv)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("treegen: error: ")
    return err.removeprefix("treegen: error: ").rstrip("\n")


@pytest.fixture
def golf_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    tree = tmp_path / "golf.tree"
    assert run_cli(capsys, "-q", "train", f"{GOLF}.names", "-o", str(tree))[0] == 0
    return tree


def test_unpruned_of_a_committee(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], golf_tree: Path
) -> None:
    committee = tmp_path / "golf.committee"
    argv = ("-q", "train", f"{GOLF}.names", "--bag", "2", "-o", str(committee))
    assert run_cli(capsys, *argv)[0] == 0
    said = _error(capsys, "eval", str(committee), f"{GOLF}.data", "--unpruned", str(golf_tree))
    assert said == "--unpruned: applies to trees, not to a committee"


def test_unpruned_of_an_ensemble(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], golf_tree: Path
) -> None:
    tree = pytest.importorskip("sklearn.tree")
    X = np.random.default_rng(0).normal(size=(40, 2))
    est = tree.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, X[:, 0] > 0)
    pkl, model = tmp_path / "dt.pkl", tmp_path / "dt.trees"
    pkl.write_bytes(pickle.dumps(est))
    assert run_cli(capsys, "-q", "import-sklearn", str(pkl), "-o", str(model))[0] == 0
    data = tmp_path / "dt.csv"
    data.write_text("x0,x1,class\n0.5,1,True\n-1,2,False\n")
    said = _error(capsys, "eval", str(model), str(data), "--unpruned", str(golf_tree))
    assert said == "--unpruned: applies to trees, not to an ensemble"


def test_unpruned_tree_of_other_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], golf_tree: Path
) -> None:
    data, other = tmp_path / "o.csv", tmp_path / "o.tree"
    data.write_text("a,b,k\n1,x,p\n2,y,q\n3,x,p\n4,y,q\n")
    assert run_cli(capsys, "-q", "train", str(data), "--no-prune", "-o", str(other))[0] == 0
    said = _error(capsys, "eval", str(golf_tree), f"{GOLF}.data", "--unpruned", str(other))
    assert said == f"--unpruned: {other} was trained on other attributes or classes than MODEL"


def test_scores_of_a_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], golf_tree: Path
) -> None:
    out = tmp_path / "c"
    said = _error(capsys, "export", str(golf_tree), "-o", str(out), "--scores")
    assert said == (
        "--scores: applies to ensembles (their decision_function); a tree's probabilities: --proba"
    )
    assert not out.exists()

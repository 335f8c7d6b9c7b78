"""Training options and arguments a user gets wrong, through the Python API and the
command line: each is one line naming the keyword, flag or data as the user gave it,
and nothing is written.  (TrainOptions.validate and the trainer's checks of its data
are their homes; these are the checks no other test reached.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.errors import TrainError
from treegen.trainer import TrainOptions, train

from support.cli import run_cli

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"


def _arrays() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    return X, np.where(X[:, 0] > 0, "a", "b")


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"criterion": "entropy"}, "criterion: unknown criterion 'entropy'"),
        ({"flavor": "weka"}, "flavor: unknown flavor 'weka'"),
        ({"min_cases": 2.0}, "min_cases: must be an integer"),
        ({"max_depth": "3"}, "max_depth: must be an integer"),
        ({"min_gain_ratio": 1.5}, "min_gain_ratio: must be between 0 and 1, got 1.5"),
        ({"subsets": "no"}, "subsets: must be True or False, got 'no'"),
        # J48's -Q seeds a java.util.Random: a Java long, at either end.
        ({"prune": "reduced-error", "seed": -(2**63) - 1}, "seed: must fit a Java long, got "),
        ({"prune": "reduced-error", "seed": 2**63}, "seed: must fit a Java long, got "),
    ],
)
def test_api_names_the_keyword(keywords: dict[str, object], message: str) -> None:
    X, y = _arrays()
    with pytest.raises(TrainError) as err:
        treegen.train((X, y), **keywords)  # type: ignore[arg-type]
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("seed", [-(2**63), 2**63 - 1])
def test_a_java_long_seed_trains(seed: int) -> None:
    """The ends of a Java long are seeds J48 -R takes; they train and are recorded."""
    X, y = _arrays()
    model = treegen.train((X, y), prune="reduced-error", seed=seed)
    assert model.options.train is not None and model.options.train.seed == seed


def test_unknown_pruning_names_the_option() -> None:
    """``pruning`` is TrainOptions' own field, named as the API's ``prune`` that maps onto it."""
    with pytest.raises(TrainError) as err:
        train(treegen.data.readers.read_dataset(f"{GOLF}.names"), TrainOptions(pruning="pep"))
    assert (err.value.option, err.value.message) == ("prune", "unknown pruning 'pep'")


@pytest.mark.parametrize("seed", [str(2**63), str(-(2**63) - 1)])
def test_cli_seed_beyond_a_java_long(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, seed: str
) -> None:
    out = tmp_path / "golf.tree"
    argv = ["train", f"{GOLF}.names", "--prune", "reduced-error", "--seed", seed, "-o", str(out)]
    code, stdout, err = run_cli(capsys, *argv)
    assert (code, stdout) == (2, "")
    assert err == f"treegen: error: --seed: must fit a Java long, got {seed}\n"
    assert not out.exists()


def test_arrays_of_no_column_are_refused() -> None:
    """The readers refuse a file of no attribute at its header; arrays reach the trainer."""
    _, y = _arrays()
    with pytest.raises(TrainError) as err:
        treegen.train((np.zeros((y.size, 0)), y))
    assert str(err.value) == "<memory>: no attributes: a tree needs at least one to test"

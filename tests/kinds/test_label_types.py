"""A model file's ``options.labels`` (the type its labels come back as) must fit its
class names, for every kind: an edited ``"int"`` over classes named by text made
``predict`` raise a bare ValueError from ``int()``, ``"bool"`` turned every name but
``"True"`` into False, and an ensemble file took any value at all as text.  Each is now
one line naming the field; the labels real training writes still load and come back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.errors import DatasetError, ModelFileError

from support.cli import run_cli

X = np.random.default_rng(5).normal(size=(80, 3))
HIGH = X[:, 0] + X[:, 1] > 0


def _forest(y: np.ndarray) -> treegen.Model:
    ensemble = pytest.importorskip("sklearn.ensemble")
    est = ensemble.RandomForestClassifier(n_estimators=2, max_depth=2, random_state=0)
    return treegen.from_sklearn(est.fit(X, y))


MAKERS: dict[str, Callable[[np.ndarray], treegen.Model]] = {
    "tree": lambda y: treegen.train(X, y),
    "ruleset": lambda y: treegen.train_rules(X, y),
    "committee": lambda y: treegen.train(X, y, bag=2),
    "ensemble": _forest,
}


@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize(
    "labels,why",
    [
        ("int", "int: the class 'high' is no int label"),
        ("bool", "bool: the class 'high' is no bool label"),
        ("float", "float: the class 'high' is no float label"),
        ("text", "must be one of str, int, float, bool, bytes"),
    ],
)
def test_labels_that_do_not_fit_the_classes_are_refused(
    kind: str, labels: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = MAKERS[kind](np.where(HIGH, "high", "low"))
    path = tmp_path / f"m.{kind}"
    text = model.save(path).path and path.read_text()
    assert text and '"labels"' not in text  # text labels: the field is left out
    # the first "options" is the file's own (a committee's members come after it)
    path.write_text(text.replace('"options": {', f'"options": {{"labels": "{labels}", ', 1))
    with pytest.raises(ModelFileError, match=f"^{path}:[0-9]+: options.labels: {why}$"):
        treegen.load(path)
    code, out, err = run_cli(capsys, "show", str(path))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"treegen: error: {path}:") and why in err


@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize(
    "y",
    [
        np.where(HIGH, 7, -3),
        np.where(HIGH, 0.1, 2.0).astype(np.float32),
        np.where(HIGH, -0.0, 1e16),
        HIGH,
        np.array([2**70 if h else 5 for h in HIGH], dtype=object),
    ],
    ids=["int", "float32", "float", "bool", "big-int"],
)
def test_the_labels_training_writes_load_and_come_back(
    kind: str, y: np.ndarray, tmp_path: Path
) -> None:
    if kind == "ensemble" and (y.dtype == object or np.any(y != np.round(y))):
        pytest.skip("scikit-learn's classifiers take neither labels past int64 nor fractions")
    model = MAKERS[kind](y)
    loaded = treegen.load(model.save(tmp_path / f"m.{kind}").path or "")
    want = np.unique(y).tolist()
    assert loaded.classes_.tolist() == want
    assert [type(v) for v in loaded.classes_.tolist()] == [type(v) for v in want]
    assert loaded.predict(X).tolist() == model.predict(X).tolist()


def test_a_label_python_cannot_write_as_text_is_refused() -> None:
    """An int label of more digits than Python converts to text was a ValueError."""
    y = [10**5000 if h else 1 for h in HIGH]
    with pytest.raises(DatasetError, match="^y: a label is an integer of more than 4,300 digits"):
        treegen.train(X, y)

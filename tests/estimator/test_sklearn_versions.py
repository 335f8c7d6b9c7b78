"""Estimator files saved by another scikit-learn version: refused in one line naming it.

scikit-learn 1.9 cannot even load a GradientBoosting or HistGradientBoosting estimator
that 1.3 to 1.8 pickled or skops-saved (their loss objects' module, ``_loss``, or 1.3's
``sklearn.ensemble._gb_losses``, is gone): the error named a module, or called the loss
a type treegen does not trust.  It names the version that saved the file, read from
the file without loading it.  The files here are this version's estimators with the
old version's marks written in, as those versions' files have them.
"""

from __future__ import annotations

import io
import json
import pickle
import sys
import types
import zipfile
from pathlib import Path

import numpy as np
import pytest

from support.cli import run_cli

sklearn = pytest.importorskip("sklearn")
from sklearn.ensemble import GradientBoostingClassifier  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402


def _xy() -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(0).random((60, 2))
    return X, (X[:, 0] > 0.5).astype(int)


def _refusal(capsys: pytest.CaptureFixture[str], path: Path, tmp_path: Path) -> str:
    out = tmp_path / "m.trees"
    code, stdout, err = run_cli(capsys, "import-sklearn", str(path), "-o", str(out))
    assert (code, stdout, err.count("\n"), out.exists()) == (2, "", 1, False), err
    assert err.startswith(f"treegen: error: {path}: ")
    return err


def test_a_pickle_this_version_cannot_load_names_the_saving_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As 1.8's GradientBoostingClassifier pickle: its loss object's class is in a
    module ``_loss`` that 1.9 does not have.  The error said "cannot unpickle
    (ModuleNotFoundError: No module named '_loss'...)" and no version."""
    gone = types.ModuleType("_loss")

    class CyHalfBinomialLoss:
        pass

    CyHalfBinomialLoss.__module__ = "_loss"
    CyHalfBinomialLoss.__qualname__ = "CyHalfBinomialLoss"
    gone.CyHalfBinomialLoss = CyHalfBinomialLoss  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "_loss", gone)
    est = DecisionTreeClassifier(max_depth=2).fit(*_xy())

    class Old(pickle.Pickler):
        # the state as 1.8 wrote it (__getstate__ writes this version's number)
        def reducer_override(self, obj: object) -> object:
            if obj is not est:
                return NotImplemented
            parts = list(est.__reduce_ex__(4))
            parts[2] = {**parts[2], "_sklearn_version": "1.8.0", "_loss": CyHalfBinomialLoss()}
            return tuple(parts)

    buf = io.BytesIO()
    Old(buf, protocol=4).dump(est)
    path = tmp_path / "old.pkl"
    path.write_bytes(buf.getvalue())
    monkeypatch.delitem(sys.modules, "_loss")
    err = _refusal(capsys, path, tmp_path)
    assert f"an estimator saved by scikit-learn 1.8.0, which {sklearn.__version__} " in err
    assert "cannot load (ModuleNotFoundError: No module named '_loss'): import it where " in err


def _skops_as_saved_by(path: Path, version: str, renames: dict[str, str]) -> None:
    """Rewrite skops file ``path`` as ``version`` wrote it: its ``_sklearn_version`` and
    the modules ``renames`` maps."""
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    schema = json.loads(members["schema.json"])
    schema["content"]["content"]["_sklearn_version"]["content"] = json.dumps(version)
    text = json.dumps(schema)
    for old, new in renames.items():
        text = text.replace(f'"__module__": "{old}"', f'"__module__": "{new}"')
    members["schema.json"] = text.encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)


def test_a_skops_file_of_another_version_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """1.8's skops file of a GradientBoostingClassifier holds ``_loss.CyHalfBinomialLoss``:
    refused as a type treegen does not trust, as if trusting it would load it.  Now the
    version, and the type 1.9 does not have; a file whose types are all here is refused
    as scikit-learn warns of another version (its predictions not promised)."""
    sio = pytest.importorskip("skops.io")
    path = tmp_path / "gb.skops"
    sio.dump(GradientBoostingClassifier(n_estimators=2).fit(*_xy()), path)
    _skops_as_saved_by(path, "1.8.0", {"sklearn._loss._loss": "_loss"})
    err = _refusal(capsys, path, tmp_path)
    assert (
        f"a GradientBoostingClassifier saved by scikit-learn 1.8.0, which {sklearn.__version__}"
        " cannot load (it holds _loss.CyHalfBinomialLoss): import it where scikit-learn 1.8.0"
    ) in err
    path = tmp_path / "dt.skops"
    sio.dump(DecisionTreeClassifier(max_depth=2).fit(*_xy()), path)
    _skops_as_saved_by(path, "1.7.2", {})
    err = _refusal(capsys, path, tmp_path)
    assert (
        f"a DecisionTreeClassifier saved by scikit-learn 1.7.2, read by {sklearn.__version__}: "
        in err
    )

"""The public functions work whatever numpy error state the calling program set.

emlearn's import calls ``numpy.seterr(all="raise")`` for the whole process; treegen's
float32 rounding (an XGBoost leaf value below float32's range becomes a subnormal or
zero, as XGBoost reads it) must not become a FloatingPointError, and the caller's state
must be as it was afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import treegen

from support.gbm_models import fit_xgboost

xgb = pytest.importorskip("xgboost")


def _tiny_leaf_model(tmp_path: Path) -> Path:
    path = tmp_path / "m.json"
    fit_xgboost("xgb_cat").get_booster().save_model(str(path))
    doc = json.loads(path.read_text())
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][0]
    tree["split_conditions"][-1] = tree["base_weights"][-1] = 1e-50  # a leaf: below float32
    path.write_text(json.dumps(doc))
    return path


def test_public_functions_under_a_raising_numpy_state(tmp_path: Path, data_dir: Path) -> None:
    path = _tiny_leaf_model(tmp_path)
    expected = treegen.from_xgboost(path)
    X = np.random.default_rng(0).normal(size=(50, len(expected.feature_names)))
    old = np.seterr(all="raise")
    try:
        model = treegen.from_xgboost(path)
        assert model == expected
        assert np.array_equal(model.predict(X), expected.predict(X))
        assert model.verify(n_random=200).ok
        tree = treegen.train(str(data_dir / "reference" / "golf" / "golf.names"))
        assert tree.verify().ok
        assert set(np.seterr().values()) == {"raise"}  # the caller's state, untouched
    finally:
        np.seterr(**old)

"""An ensemble's thresholds beyond the integer input type fold to a constant branch, and
the export says so (the tree's rule and wording: treegen.codegen.lower.folds_note)."""

from __future__ import annotations

import shutil
from fractions import Fraction

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble.sklearn import ensemble_from_sklearn
from treegen.kinds.check import verify
from treegen.kinds.export import render

sklearn_ensemble = pytest.importorskip("sklearn.ensemble")


def _forest() -> object:
    """Splits on x0 around 50 and around 500: the second lies beyond int8 at scale 1."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1000, size=(400, 2))
    y = ((X[:, 0] > 50) & (X[:, 0] < 500)).astype(int)
    return sklearn_ensemble.RandomForestClassifier(3, max_depth=3, random_state=0).fit(X, y)


def test_a_threshold_beyond_int8_is_folded_and_noted() -> None:
    ens = ensemble_from_sklearn(_forest(), ["x0", "x1"])
    opts = ExportOptions(prefix="f", input_type="int8", feature_scales=(("x0", Fraction(1)),))
    r = render(ens, opts)
    assert len(r.notes) == 1
    note = r.notes[0]
    assert "outside int8's known values" in note and "at scale 1" in note
    assert "tree " in note and "x0 <= " in note
    # In range at float: nothing folds, nothing is said.
    assert render(ens, ExportOptions(prefix="f")).notes == ()


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_the_folded_ensemble_verifies() -> None:
    ens = ensemble_from_sklearn(_forest(), ["x0", "x1"])
    opts = ExportOptions(prefix="f", input_type="int8", feature_scales=(("x0", Fraction(1)),))
    report = verify(ens, opts, n_random=300)
    assert report.ok, report.text()
    assert any("fold" in line for line in report.lines)

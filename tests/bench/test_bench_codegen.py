"""The side-by-side codegen benchmark's machinery (bench/codegen_bench.py): its mode
table follows the CLI, and its harness counts a mismatch when the C disagrees."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.verify.build import have_compiler

pytest.importorskip("sklearn")
from bench import codegen_bench as cb  # noqa: E402


def test_modes_follow_the_export_options() -> None:
    offered = cb.export_options_offered()
    assert {"--style", "--input-type"} <= offered
    for mode, (opts, needs) in cb.TREEGEN_MODES.items():
        assert all(o in needs for o in opts if o.startswith("--")), mode


@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
@pytest.mark.slow
def test_treegen_iris_no_mismatch_and_a_wrong_class_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cb, "MIN_CALLS", 1000)  # the timing loop is not under test
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    want = np.searchsorted(est.classes_, est.predict(X))
    (v,) = [
        v
        for v in cb.treegen_variants("iris", est, "float", {"--style"}, tmp_path)
        if v.style.startswith("ifs")
    ]
    cb.measure(v, X, want, tmp_path)
    assert v.results["mismatches"] == "0" and float(v.results["host ns"]) > 0
    assert float(v.results["shuffled ns"]) > 0
    wrong = want.copy()
    wrong[:7] = (wrong[:7] + 1) % 3
    v.results.clear()
    (tmp_path / "again").mkdir()
    cb.measure(v, X, wrong, tmp_path / "again")
    assert v.results["mismatches"] == "7"

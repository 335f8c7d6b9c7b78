"""On integer inputs the tests a tree's path already decides cost no comparison
(treegen.ensemble.implied, treegen.ensemble.splice), and the C stays exact.

A forest on features in [0, 4) has many thresholds and only the integer cuts 0..3 on
int16: most nested tests on a feature repeat a cut above them.  Its C makes fewer
comparisons than the model has tests, and gives ``estimator.predict``'s class on every
row of a grid of every cut's integer neighbours (with the missing sentinel under
``--missing c45``), in both styles; verify passes under both missing rules.  A test is
decided only where its own path decides it: the same cut on the other side stays.
"""

from __future__ import annotations

import itertools
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treegen.codegen.lower import known_range
from treegen.codegen.options import ExportOptions
from treegen.ensemble.core import LEAF, Tree
from treegen.ensemble.implied import path_decided
from treegen.ensemble.ir import LeafRow, Split
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.sklearn import ensemble_from_sklearn
from treegen.ensemble.splice import spliced
from treegen.kinds.check import verify
from treegen.kinds.export import render
from treegen.verify.build import build

sklearn_ensemble = pytest.importorskip("sklearn.ensemble")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

N_FEATURES = 3


def _forest() -> Any:
    """Thresholds all over [0, 4), some rows missing a value (so nan_left varies)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 4, size=(600, N_FEATURES))
    y = (np.floor(X[:, 0] * 2.5) + np.floor(X[:, 1] * 1.5) + (X[:, 2] > 1.7)) % 3
    X[rng.random(X.shape) < 0.05] = np.nan
    return sklearn_ensemble.RandomForestClassifier(8, max_depth=6, random_state=0).fit(X, y)


def _splits(ir: Any) -> list[Split]:
    return [n for t in ir.trees for n in t.nodes if isinstance(n, Split)]


def _grid(sentinel: int | None) -> np.ndarray:
    """Every cut's integer neighbours (-1 .. 4), the type's known ends, the sentinel."""
    lo, hi = known_range(lower_ensemble(_ens(), ExportOptions(input_type="int16")).encoding)
    values = [*range(-1, 5), lo, hi] + ([] if sentinel is None else [sentinel])
    return np.array(list(itertools.product(values, repeat=N_FEATURES)), dtype=np.int16)


def _ens() -> Any:
    return ensemble_from_sklearn(_forest())


@pytest.mark.parametrize("missing", ["c45", "none"])
def test_the_path_decides_many_tests(missing: str) -> None:
    ir = lower_ensemble(_ens(), ExportOptions(input_type="int16", missing=missing))
    implied = [s for s in _splits(ir) if s.implied]
    assert len(implied) > len(_splits(ir)) // 5
    # Each keeps its cut (verify probes it), inside the type: not a fold of its range.
    assert all(0 <= s.threshold <= 3 and s.op in ("left", "right") for s in implied)
    assert not ir.folds
    # Float inputs: nothing is decided.
    assert not any(s.implied for s in _splits(lower_ensemble(_ens(), ExportOptions())))


@needs_gcc
@pytest.mark.parametrize("style", ["ifs", "table"])
@pytest.mark.parametrize("missing", ["c45", "none"])
def test_fewer_comparisons_and_predict_on_every_grid_row(
    missing: str, style: str, tmp_path: Path
) -> None:
    est = _forest()
    ens = ensemble_from_sklearn(est)
    r = render(
        ens,
        ExportOptions(prefix="g", name="predict", input_type="int16", missing=missing, style=style),
    )
    ir = r.lowered
    c_tests = [n for t in spliced(ir).trees for n in t.nodes if not isinstance(n, LeafRow)]
    assert len(c_tests) < len(_splits(ir)) - len([s for s in _splits(ir) if s.implied]) // 2
    if style == "ifs":  # one comparison of a value with a cut per remaining le test
        compares = re.findall(r"x\[\d\] <= -?\d+", r.files["predict.c"])
        assert len(compares) == sum(1 for n in c_tests if isinstance(n, Split) and n.op == "le")
    built = build(ir, r.files, tmp_path)
    sentinel = ir.encoding.missing
    X = _grid(sentinel if missing == "c45" else None)
    cls, _ = built.run(X)
    values = X.astype(np.float64)
    values[X == sentinel] = np.nan
    want = est.predict(values)
    assert np.array_equal(est.classes_[cls], want)
    if missing == "c45":
        assert np.isnan(values).any()


@needs_gcc
@pytest.mark.parametrize("style", ["ifs", "table"])
@pytest.mark.parametrize("missing", ["c45", "none"])
def test_verify_passes(missing: str, style: str) -> None:
    opts = ExportOptions(
        prefix="g", name="predict", input_type="int16", missing=missing, style=style
    )
    report = verify(_ens(), opts, n_random=500)
    assert report.ok, report.text()


def _two_level() -> Tree:
    """x0 <= 2.5 at the root; both children test x0 <= 5.5 (then x1 <= 0.5)."""
    # nodes: 0 root, 1 left test, 2 leaf, 3 leaf, 4 right test, 5 x1 test, 6, 7 leaves, 8
    feature = (0, 0, LEAF, LEAF, 0, 1, LEAF, LEAF, LEAF)
    threshold = (2.5, 5.5, 0.0, 0.0, 5.5, 0.5, 0.0, 0.0, 0.0)
    left = (1, 2, LEAF, LEAF, 5, 6, LEAF, LEAF, LEAF)
    right = (4, 3, LEAF, LEAF, 8, 7, LEAF, LEAF, LEAF)
    value = (-1, -1, 0, 1, -1, -1, 0, 1, 0)
    n = len(feature)
    return Tree(feature, threshold, left, right, (False,) * n, (False,) * n, ((),) * n, value)


@pytest.mark.parametrize("lean", [False, True])
def test_a_test_is_decided_on_its_own_path_only(lean: bool) -> None:
    """x0 <= 5 under x0 <= 2 goes left on the left; on the right (x0 in 3 ..) it stays
    a test, and so does x1's below it."""
    tree = _two_level()
    enc = lower_ensemble(_ens(), ExportOptions(input_type="int16")).encoding
    tests: list[Any] = [
        None if f == LEAF else ("le", int(np.floor(t)))
        for f, t in zip(tree.feature, tree.threshold, strict=True)
    ]
    nan_left = [True] * tree.n_nodes
    assert path_decided(tree, tests, nan_left, enc, lean) == {1: ("left", 5)}
    # A cut below the root's on the right: decided right there.
    tests[4] = ("le", 1)
    assert path_decided(tree, tests, nan_left, enc, lean) == {1: ("left", 5), 4: ("right", 1)}


@needs_gcc
@pytest.mark.parametrize("missing", ["c45", "none"])
def test_the_hand_built_tree_verifies(missing: str) -> None:
    tree = _two_level()
    ens = _ens()
    ens = replace(ens, trees=(tree,), values=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), divisor=1.0)
    opts = ExportOptions(prefix="g", input_type="int16", missing=missing)
    ir = lower_ensemble(ens, opts)
    assert [n.implied for n in ir.trees[0].nodes if isinstance(n, Split)] == [
        False,
        True,
        False,
        False,
    ]
    report = verify(ens, opts, n_random=200)
    assert report.ok, report.text()

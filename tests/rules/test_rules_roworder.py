"""The generalisation's case order (treegen/rules/roworder.py): a permutation grouping
each node's cases, and the same rules and rule cases as the file's order."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from tests.rules.test_rules_native import _mixed
from treegen.model.constants import KIND_SUBSET
from treegen.model.core import Leaf
from treegen.rules import paths, pathtests
from treegen.rules.core import Rule, covers
from treegen.rules.grown import shape_of
from treegen.rules.native import crules
from treegen.rules.roworder import leaf_order
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound

needs_native = pytest.mark.skipif(crules is None, reason="C accelerator not built")


@pytest.mark.parametrize("subsets", [False, True])
def test_leaf_order_groups_each_leafs_cases(subsets: bool) -> None:
    """A permutation of the rows in which the rows satisfying every test of a leaf's
    path (its cases with no unknown value on the way) are one run, in file order."""
    ds = _mixed(1, 800)
    tree = train(ds, TrainOptions(prune=False, subsets=subsets))
    order = leaf_order(ds.X.astype(np.float32), shape_of(tree.nodes))
    assert np.array_equal(np.sort(order), np.arange(ds.n_rows))
    place = np.empty(ds.n_rows, dtype=np.intp)
    place[order] = np.arange(ds.n_rows)
    runs = 0
    for leaf, path in pathtests.leaf_tests(tree):
        if not isinstance(tree.nodes[leaf], Leaf) or not path:
            continue
        rows = np.flatnonzero(covers(_rule(path), ds.X))
        if rows.size == 0:
            continue
        at = place[rows]
        assert np.array_equal(at, np.arange(at[0], at[0] + rows.size))  # one run, file order
        runs += 1
    assert runs > 20


def _rule(path: tuple[pathtests.PathTest, ...]) -> Rule:
    return Rule(1, tuple(t.cond for t in path), 0, 0.0)


def _in_file_order(X: npt.NDArray[np.floating], tree: object) -> None:
    return None


@needs_native
@pytest.mark.parametrize("seed", range(3))
def test_candidates_equal_in_file_order(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The candidate rules and each one's cases are the same with the bitsets in the
    leaves' order and in the file's."""
    ds = _mixed(seed, 900)
    tree = train(ds, TrainOptions(prune=False))
    bound = ErrorBound(0.25, "c45")
    rows: list[npt.NDArray[np.int32]] = []
    got = paths.candidates(ds, tree, bound, rows=rows)
    monkeypatch.setattr(paths, "leaf_order", _in_file_order)
    rows_file: list[npt.NDArray[np.int32]] = []
    want = paths.candidates(ds, tree, bound, rows=rows_file)
    assert got == want
    assert len(rows) == len(rows_file) == len(got) > 10
    for a, b in zip(rows, rows_file, strict=True):
        assert a.dtype == b.dtype == np.int32
        assert np.array_equal(a, b)


@needs_native
@pytest.mark.parametrize(("seed", "subsets"), [(0, False), (1, True), (2, True), (3, False)])
def test_leaf_order_in_c_as_in_numpy(
    seed: int, subsets: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The C walk down the tree (roworder's leaf_step) gives the numpy walk's order, on
    float32 and float64 tables with unknown values, and with subset tests."""
    ds = _mixed(seed, 1200)
    assert np.isnan(ds.X).any()
    tree = train(ds, TrainOptions(prune=False, subsets=subsets))
    shape = shape_of(tree.nodes)
    assert (np.asarray(shape.kind) == KIND_SUBSET).any() == subsets
    got = [leaf_order(ds.X, shape), leaf_order(ds.X.astype(np.float32), shape)]
    monkeypatch.setattr("treegen.rules.roworder.crules", None)
    want = [leaf_order(ds.X, shape), leaf_order(ds.X.astype(np.float32), shape)]
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype == np.int32 and np.array_equal(a, b)


@needs_native
def test_leaf_step_refuses_a_node_out_of_range() -> None:
    assert crules is not None
    one = np.zeros(1, dtype=np.intp)
    with pytest.raises(ValueError, match="out of range"):
        crules.leaf_step(
            np.zeros(1), one, np.ones(1, dtype=np.intp), np.zeros(1, dtype=np.intp), 1,
            np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.float32),
            np.zeros(2, dtype=np.intp), one, one, one, one,
        )  # fmt: skip

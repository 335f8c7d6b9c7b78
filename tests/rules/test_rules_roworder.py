"""The generalisation's case order (treegen/rules/roworder.py): a permutation grouping
each node's cases, and the same rules and rule cases as the file's order."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from tests.rules.test_rules_native import _mixed
from treegen.model.core import Leaf
from treegen.rules import paths
from treegen.rules.constants import FAIL_LEVELS
from treegen.rules.core import Rule, covers
from treegen.rules.native import crules
from treegen.rules.roworder import leaf_order
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound, to_f32

needs_native = pytest.mark.skipif(crules is None, reason="C accelerator not built")


@pytest.mark.parametrize("subsets", [False, True])
def test_leaf_order_groups_each_leafs_cases(subsets: bool) -> None:
    """A permutation of the rows in which the rows satisfying every test of a leaf's
    path (its cases with no unknown value on the way) are one run, in file order."""
    ds = _mixed(1, 800)
    tree = train(ds, TrainOptions(prune=False, subsets=subsets))
    order = leaf_order(ds.X.astype(np.float32), tree)
    assert np.array_equal(np.sort(order), np.arange(ds.n_rows))
    place = np.empty(ds.n_rows, dtype=np.intp)
    place[order] = np.arange(ds.n_rows)
    runs = 0
    for leaf, path in paths.leaf_tests(tree):
        if not isinstance(tree.nodes[leaf], Leaf) or not path:
            continue
        rows = np.flatnonzero(covers(_rule(path), ds.X))
        if rows.size == 0:
            continue
        at = place[rows]
        assert np.array_equal(at, np.arange(at[0], at[0] + rows.size))  # one run, file order
        runs += 1
    assert runs > 20


def _rule(path: tuple[paths.PathTest, ...]) -> Rule:
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
@pytest.mark.parametrize("seed", range(6))
def test_word_summaries_change_no_count(seed: int) -> None:
    """prune_path and and_rows read only the words level_sums' summaries name: the
    same rule and cases as reading every word, over several 64-word blocks, with the
    cases failing few conditions bunched as the leaves' order bunches them."""
    assert crules is not None
    rng = np.random.default_rng([71, seed])
    n = int(rng.choice([4097, 8192, 12345]))
    k = int(rng.integers(2, 10))
    missed = rng.random((k, n)) < rng.uniform(0.3, 0.6, size=(k, 1))
    near = slice(int(rng.integers(0, n // 2)), None, int(rng.integers(50, 400)))
    missed[:, near] = rng.random(missed[:, near].shape) < 0.05  # a few runs of good cases
    wrong = rng.random(n) < rng.uniform(0.0, 0.5)
    bound = ErrorBound(0.25, "c45")
    default_error = to_f32(rng.uniform(0.3, 0.9))
    words = (n + 63) // 64
    packed = np.zeros((k, words), dtype=np.uint64)
    levels = np.zeros((k + 1, FAIL_LEVELS, words), dtype=np.uint64)
    sums = np.zeros((FAIL_LEVELS, (words + 63) // 64), dtype=np.uint64)

    def pack(flags: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint64]:
        raw = np.zeros(words * 8, dtype=np.uint8)
        raw[: (n + 7) // 8] = np.packbits(flags, bitorder="little")
        return raw.view("<u8").astype(np.uint64)

    for d in range(k):
        packed[d] = pack(~missed[d])
        crules.fold_levels(levels[d], packed[d], levels[d + 1], n)
    crules.level_sums(levels[k], n, sums)
    wrong_p = pack(wrong)
    results = []
    for with_sums in (True, False):
        alive = np.zeros(k, dtype=np.uint8)
        extra = (sums,) if with_sums else ()
        args = (packed, wrong_p, k, n, bound.log_cf, bound.coeff, default_error, alive)
        pess = crules.prune_path(*args, levels[k], *extra)
        which = np.flatnonzero(alive)
        out = np.empty(n, dtype=np.int32)
        count = crules.and_rows(packed, which, n, out, levels[k], k - which.size, *extra)
        results.append((pess, alive.tolist(), out[:count].tolist()))
    assert results[0] == results[1]
    fails = missed.sum(axis=0).astype(np.int32)
    expected = paths._prune(missed, wrong, bound, default_error, fails)
    pess, alive_list, rows = results[0]
    if expected is None:
        assert pess is None
    else:
        assert (np.flatnonzero(alive_list).tolist(), pess) == expected
        assert rows == np.flatnonzero(~missed[expected[0]].any(axis=0)).tolist()

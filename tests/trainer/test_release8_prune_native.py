"""Release 8's case-order pruning in C (native/r8walk.c, r8prune.c, release8/native.py) equals the
Python walk (release8/prune.py ``_estimate``), bit for bit; so do growth's class sums
over the classes present (``r8_class_pairs``, release8/grow.py ``node_classes``).

The same grown tree and case array are pruned twice, with and without the
accelerator: the pruned trees are compared node for node (every field, floats by
their exact ``repr``), and the case arrays (the order the walk leaves, which later
stages read, and the weights after the Factor round trips) position for position.
On random sets with missing values (the unknown cases' weights), --subsets tests,
several CF values, a set with one class per row (sparse class sums), and the deep-tree
fallback to Python.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.dist import SparseDist
from treegen.trainer import native
from treegen.trainer.options import GrowOptions
from treegen.trainer.release8 import grow as r8_grow
from treegen.trainer.release8 import native as r8_native
from treegen.trainer.release8 import prune as r8_prune
from treegen.trainer.release8.cases import Cases
from treegen.trainer.tables import build_context
from treegen.trainer.tree import TNode, flatten

from support.pruner import python_pruner

needs_native = pytest.mark.skipif(not r8_native.available(), reason="C accelerator not built")


def _grown(ds: Dataset, subsets: bool) -> tuple[TNode, Cases]:
    ctx = build_context(ds, 2, False)
    return r8_grow.grow(ctx, GrowOptions("gainratio", subsets=subsets))


def _pruned(root: TNode, cases: Cases, cf: float, use_native: bool) -> tuple[str, Cases]:
    root, order, weight = copy.deepcopy(root), cases.order.copy(), cases.weight.copy()
    mine = Cases(cases.ctx)
    mine.order, mine.weight = order, weight
    with python_pruner(not use_native):
        r8_prune.prune(mine, root, cf)
    return repr(flatten(root)), mine


def _assert_same(ds: Dataset, cf: float, subsets: bool = False) -> str:
    root, cases = _grown(ds, subsets)
    a, ca = _pruned(root, cases, cf, True)
    b, cb = _pruned(root, cases, cf, False)
    assert a == b
    assert np.array_equal(ca.order, cb.order)
    assert np.array_equal(ca.weight.view(np.uint32), cb.weight.view(np.uint32))
    return a


@needs_native
@pytest.mark.parametrize("seed", range(8))
def test_same_pruned_tree_and_case_array(seed: int) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1500))
    for cf in (0.25, 0.05, 0.6):
        _assert_same(ds, cf)


@needs_native
def test_same_with_unknown_values_everywhere() -> None:
    """Missing values on every attribute: Factors below 1 and their round trips."""
    ds = synthetic.generate(synthetic.summary_spec(3000, seed=4))
    assert np.isnan(ds.X).any()
    _assert_same(ds, 0.25)


@needs_native
@pytest.mark.parametrize("seed", [2, 5])
def test_same_with_subsets(seed: int) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1500))
    root, _ = _grown(ds, True)
    assert any(n.kind == "subset" for n in flatten(root))
    _assert_same(ds, 0.25, subsets=True)


@needs_native
def test_same_with_one_class_per_row() -> None:
    """Hundreds of classes (sparse dists, the first of the largest class)."""
    rng = np.random.default_rng(3)
    n, k = 600, 300
    X = np.column_stack(
        [rng.normal(size=n).round(2), rng.integers(0, 20, n), rng.integers(0, 4, n)]
    ).astype(np.float64)
    X[rng.random(n) < 0.05, 0] = np.nan
    schema = Schema(
        (
            Attribute("a", "continuous"),
            Attribute("b", "continuous"),
            Attribute("c", "nominal", ("p", "q", "r", "s")),
        ),
        tuple(f"k{i}" for i in range(k)),
    )
    ds = Dataset(schema, X, (np.arange(n) % k).astype(np.int32))
    root, _ = _grown(ds, False)
    assert len(flatten(root)) > 100
    _assert_same(ds, 0.25)


@needs_native
def test_native_walk_is_taken_and_deep_trees_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    ds = synthetic.generate(synthetic.summary_spec(800, seed=1))
    root, cases = _grown(ds, False)
    calls: list[bool] = []
    real = r8_native.prune_native

    def spy(*args: object) -> bool:
        calls.append(real(*args))  # type: ignore[arg-type]
        return calls[-1]

    monkeypatch.setattr(r8_prune, "prune_native", spy)
    want, _ = _pruned(root, cases, 0.25, False)
    calls.clear()  # the Python run asked too, and was refused
    got, _ = _pruned(root, cases, 0.25, True)
    assert calls == [True] and got == want
    monkeypatch.setattr(r8_native, "MAX_DEPTH", 2)
    calls.clear()
    got, _ = _pruned(root, cases, 0.25, True)
    assert calls == [False] and got == want


def _node_classes_dense(cases: Cases, fp: int, lp: int) -> tuple[object, ...]:
    saved = native.cscan
    try:
        native.cscan = None
        return r8_grow.node_classes(cases, fp, lp)
    finally:
        native.cscan = saved


@needs_native
@pytest.mark.parametrize("n_classes", [3, 64, 300])
def test_node_classes_from_the_classes_present(n_classes: int) -> None:
    """Growth's class sums over the classes present (r8_class_pairs) give the dense sums'
    class (the first of the largest, ties included), its weight and the same held
    dist, sparse or dense as make_dist decides, on segments of whole and fractional
    weights in a shuffled case array."""
    rng = np.random.default_rng(n_classes)
    n = 400
    schema = Schema((Attribute("a", "continuous"),), tuple(f"k{i}" for i in range(n_classes)))
    y = rng.integers(0, n_classes // 3 + 1, n).astype(np.int32)  # ties; dense and sparse
    ds = Dataset(schema, rng.normal(size=(n, 1)), y)
    cases = Cases(build_context(ds, 2, False))
    cases.order = rng.permutation(n).astype(np.intp)
    kinds = set()
    for trial in range(60):
        if trial % 2:
            cases.weight = np.where(rng.random(n) < 0.3, rng.random(n), 1.0).astype(np.float32)
        fp = int(rng.integers(0, n))
        lp = int(rng.integers(fp, min(n, fp + rng.choice([3, 30, 400]))))
        best, fbest, held, freq = r8_grow.node_classes(cases, fp, lp)
        d_best, d_fbest, d_held, d_freq = _node_classes_dense(cases, fp, lp)
        assert best == d_best and np.float32(fbest).tobytes() == np.float32(d_fbest).tobytes()
        assert type(held) is type(d_held)
        assert held == d_held if isinstance(held, SparseDist) else np.array_equal(held, d_held)
        kinds.add(type(held).__name__)
        if freq is not None:
            assert np.array_equal(freq, d_freq)
    if n_classes >= 64:
        assert kinds == {"SparseDist", "ndarray"}  # both of make_dist's forms met


@needs_native
def test_class_pairs_refuses_bad_input() -> None:
    lib = native.cscan
    assert lib is not None
    y = np.array([0, 1, 7, 1], dtype=np.intp)  # 7: beyond 4 classes
    order = np.arange(4, dtype=np.intp)
    w = np.ones(4, dtype=np.float32)
    acc, seen = np.zeros(4, dtype=np.float32), np.zeros(4, dtype=np.uint8)
    cls = np.zeros(4, dtype=np.intp)
    with pytest.raises(IndexError):
        lib.r8_class_pairs(y, order, w, 0, 2, acc, seen, cls)
    assert not acc.any() and not seen.any()  # refused before any sum
    with pytest.raises(IndexError):
        lib.r8_class_pairs(y, order, w, 0, 5, acc, seen, cls)
    # Classes 0 and 1 of 4 present: more than a quarter, no SparseDist.
    assert lib.r8_class_pairs(y, order, w, 0, 1, acc, seen, cls) is None
    assert not acc.any() and not seen.any()
    y[:] = 1
    assert lib.r8_class_pairs(y, order, w, 1, 3, acc, seen, cls) == (1, 3.0, (1,), (3.0,))
    assert not acc.any() and not seen.any()

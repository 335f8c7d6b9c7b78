"""The batched level-wise grower equals the node-by-node reference, bit for bit.

In row order (``case_order="rows"``, what training above
``RELEASE8_ORDER_MAX_ROWS`` rows uses): ``train(..., engine="dfs")`` grows depth
first, one node at a time (the readable reference); the default
``engine="level"`` scores and splits all nodes of a level together.  On random
datasets with missing values (the fractional-weight paths), both flavours, with and
without pruning, and with --subsets / --criterion gain, the two must give identical
models: every node's kind, test, threshold, class, items, errors and distribution.
Without unknown values Release 8's case order gives those same models
(:func:`test_release8_order_equals_row_order_without_unknown_values`).
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.model.core import Node
from treegen.trainer import TrainOptions, train

SEEDS = range(12)


def _level(ds: Dataset, opts: TrainOptions) -> tuple[Node, ...]:
    return train(ds, opts, engine="level", case_order="rows").nodes


def _dfs(ds: Dataset, opts: TrainOptions) -> tuple[Node, ...]:
    return train(ds, opts, engine="dfs", case_order="rows").nodes


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_release8_order_equals_row_order_without_unknown_values(seed: int) -> None:
    """Every weight is 1 when no value is unknown, so float sums do not depend on the
    order: Release 8's case order and the row-order engines grow and prune the same
    trees, every option."""
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1200))
    X = np.where(np.isnan(ds.X), 0.0, ds.X)
    X[:, [a.kind == "ignore" for a in ds.attributes]] = np.nan
    known = Dataset(ds.schema, X, ds.y, ds.source)
    for kw in ({}, {"subsets": True}, {"criterion": "gain"}, {"min_cases": 5, "cf": 0.1}):
        for prune in (False, True):
            opts = TrainOptions(prune=prune, **kw)  # type: ignore[arg-type]
            r8 = train(known, opts, case_order="release8").nodes
            assert r8 == _level(known, opts) == _dfs(known, opts), (kw, prune)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_engines_agree(seed: int, flavor: str) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1500))
    for prune in (False, True):
        opts = TrainOptions(prune=prune, flavor=flavor)  # type: ignore[arg-type]
        assert _level(ds, opts) == _dfs(ds, opts)


@pytest.mark.parametrize("opts", [TrainOptions(subsets=True), TrainOptions(criterion="gain")])
def test_engines_agree_with_other_options(opts: TrainOptions) -> None:
    for seed in (1, 2, 3):
        ds = synthetic.generate(synthetic.random_spec(seed, max_rows=800))
        assert _level(ds, opts) == _dfs(ds, opts)


@pytest.mark.slow
def test_engines_agree_on_benchmark_shaped_data() -> None:
    ds = synthetic.generate(synthetic.summary_spec(4000, seed=5))
    opts = TrainOptions()
    assert _level(ds, opts) == _dfs(ds, opts)


@pytest.mark.slow
def test_engines_agree_on_many_grouping_searches() -> None:
    """--subsets on benchmark-shaped data: ten nominal attributes of 3-8 values at
    every node, so each level runs hundreds of value-grouping searches together
    (levelwise/grouping.py) where the reference runs them one by one."""
    ds = synthetic.generate(synthetic.summary_spec(3000, seed=5))
    opts = TrainOptions(subsets=True)
    level = _level(ds, opts)
    assert len(level) > 300
    assert level == _dfs(ds, opts)


@pytest.mark.parametrize("seed", [0, 4, 7])
@pytest.mark.parametrize("j48", [False, True])
def test_pruning_reuses_growth_weights_exactly(seed: int, j48: bool) -> None:
    """The first pruning pass takes node weights from growth instead of summing again."""
    from treegen.trainer.fit import grow
    from treegen.trainer.options import GrowOptions
    from treegen.trainer.pruning.prune import prune
    from treegen.trainer.tables import build_context
    from treegen.trainer.tree import flatten

    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=2000))
    models = []
    for reuse in (True, False):
        ctx = build_context(ds, 2, j48)
        root = grow(ctx, GrowOptions("gainratio"))
        prune(ctx, root, 0.25, reuse_growth=reuse)
        models.append(flatten(root))
    assert models[0] == models[1]


@pytest.mark.parametrize("j48", [False, True])
def test_leaf_rule_is_one_rule_for_nodes_and_arrays(j48: bool) -> None:
    """``stays_leaf``: a pure node or fewer than 2 * min_cases cases; J48 within J48_TOL.

    Both engines call it, the reference on one node's floats and the
    level-wise one on arrays: both forms give the same answers, at the edges.
    """
    import numpy as np

    from treegen.model.constants import J48_TOL
    from treegen.trainer.select import stays_leaf
    from treegen.trainer.tables import build_context

    ds = synthetic.generate(synthetic.random_spec(1, max_rows=100))
    ctx = build_context(ds, 3, j48)  # 2 * min_cases = 6
    near = J48_TOL / 2
    # (cases, weight of the largest class, leaf?)
    cases = [
        (6.0, 5.0, False),
        (5.5, 5.0, True),  # fewer than 2 * min_cases
        (7.0, 7.0, True),  # one class
        (6.0 - near, 5.0, not j48),  # J48: 2 * min_cases within its tolerance
        (7.0, 7.0 - near, j48),  # J48: one class within its tolerance
        (6.0 - 4 * J48_TOL, 5.0, True),
    ]
    dt = ctx.dtype
    want = [leaf for _, _, leaf in cases]
    got_scalar = [stays_leaf(ctx, float(dt(n)), float(dt(b))) for n, b, _ in cases]
    n_arr = np.asarray([n for n, _, _ in cases], dtype=dt)
    b_arr = np.asarray([b for _, b, _ in cases], dtype=dt)
    got_array = stays_leaf(ctx, n_arr, b_arr)
    assert got_scalar == want
    assert got_array.tolist() == want


def test_subset_table_maps_codes_to_branches() -> None:
    """Code 0 (unknown) and values in no group go nowhere (-1); value v has code v + 1."""
    from treegen.trainer.route import subset_table

    assert subset_table(4, ((0, 2), (1,))).tolist() == [-1, 0, 1, 0, -1]
    assert subset_table(2, ()).tolist() == [-1, -1, -1]

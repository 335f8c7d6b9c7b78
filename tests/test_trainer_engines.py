"""The batched level-wise grower equals the node-by-node reference, bit for bit.

``train(..., engine="dfs")`` grows depth first, one node at a time (the
readable reference); the default ``engine="level"`` scores and splits all
nodes of a level together.  On random datasets with missing values (the
fractional-weight paths), both flavours, with and without pruning, and with
--subsets / --criterion gain, the two must give identical models: every
node's kind, test, threshold, class, items, errors and distribution.
"""

from __future__ import annotations

import pytest

from treegen.data import synthetic
from treegen.trainer import TrainOptions, train

SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_engines_agree(seed: int, flavor: str) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1500))
    for prune in (False, True):
        opts = TrainOptions(prune=prune, flavor=flavor)  # type: ignore[arg-type]
        assert train(ds, opts, engine="level").nodes == train(ds, opts, engine="dfs").nodes


@pytest.mark.parametrize("opts", [TrainOptions(subsets=True), TrainOptions(criterion="gain")])
def test_engines_agree_with_other_options(opts: TrainOptions) -> None:
    for seed in (1, 2, 3):
        ds = synthetic.generate(synthetic.random_spec(seed, max_rows=800))
        assert train(ds, opts, engine="level").nodes == train(ds, opts, engine="dfs").nodes


def test_engines_agree_on_benchmark_shaped_data() -> None:
    ds = synthetic.generate(synthetic.summary_spec(4000, seed=5))
    opts = TrainOptions()
    assert train(ds, opts, engine="level").nodes == train(ds, opts, engine="dfs").nodes


@pytest.mark.parametrize("seed", [0, 4, 7])
@pytest.mark.parametrize("j48", [False, True])
def test_pruning_reuses_growth_weights_exactly(seed: int, j48: bool) -> None:
    """The first pruning pass takes node weights from growth instead of summing again."""
    from treegen.trainer.context import build_context
    from treegen.trainer.fit import grow
    from treegen.trainer.options import GrowOptions
    from treegen.trainer.pruning.prune import prune
    from treegen.trainer.tree import flatten

    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=2000))
    models = []
    for reuse in (True, False):
        ctx = build_context(ds, 2, j48)
        root = grow(ctx, GrowOptions("gainratio"))
        prune(ctx, root, 0.25, reuse_growth=reuse)
        models.append(flatten(root))
    assert models[0] == models[1]

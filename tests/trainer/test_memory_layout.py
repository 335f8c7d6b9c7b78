"""The narrow training layout gives the same trees (issue 36's memory).

At the bench's sizes these paths only run on a million rows: the c45 thresholds
placed through the presorted rows (``Context.cuts_below``, above
``DISTINCT_MAX_ROWS``), the continuous scan in windows of candidate cuts
(``score.WINDOW``) and the pruner spending the context's data.  Here they are
forced on small sets and held to the default path's trees, node for node.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import TrainOptions, context, native, train
from treegen.trainer.context import build_context
from treegen.trainer.levelwise import score

needs_native = pytest.mark.skipif(native.cscan is None, reason="C accelerator not built")


def _tied(seed: int, n: int = 3000) -> Dataset:
    """Continuous values with many ties (0.0 and -0.0 among them), a nominal attribute,
    unknown values: thresholds fall on runs of equal values."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-20, 20, n).astype(np.float64) / 4
    a[rng.random(n) < 0.1] = -0.0
    b = rng.normal(size=n).round(2)
    c = rng.integers(0, 4, n).astype(np.float64)
    X = np.stack([a, b, c], axis=1)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((a > 0.5) ^ (b < -0.3) ^ (c == 2) ^ (rng.random(n) < 0.1)).astype(np.int32)
    schema = Schema(
        (
            Attribute("a", "continuous"),
            Attribute("b", "continuous"),
            Attribute("c", "nominal", ("p", "q", "r", "s")),
        ),
        ("no", "yes"),
    )
    return Dataset(schema, X, y)


def _sets() -> list[Dataset]:
    return [_tied(0), _tied(1)] + [
        synthetic.generate(synthetic.random_spec(seed, max_rows=2500)) for seed in range(4)
    ]


@pytest.mark.parametrize("index", range(6))
def test_thresholds_through_the_presorted_rows(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    ds = _sets()[index]
    for opts in (TrainOptions(), TrainOptions(prune=False), TrainOptions(subsets=True)):
        for order in ("rows", "release8"):
            want = train(ds, opts, case_order=order).nodes  # type: ignore[arg-type]
            with monkeypatch.context() as m:
                m.setattr(context, "DISTINCT_MAX_ROWS", 0)
                got = train(ds, opts, case_order=order).nodes  # type: ignore[arg-type]
            assert got == want


def test_cuts_below_equals_the_distinct_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every float32 bar between and around the values: the same value as the
    distinct values' binary search, 0.0 or -0.0 as met first."""
    ds = _tied(3, n=5000)
    # Zero's run: 0.0 first (row 0), -0.0 last: the first met is the one.
    ds.X[0, :2], ds.X[-1, :2] = 0.0, -0.0
    ds.X[1, :2], ds.X[-2, :2] = -0.0, 0.0
    monkeypatch.setattr(context, "SAMPLE", 8)
    ref = build_context(ds, 2, False)
    assert ref.distinct
    monkeypatch.setattr(context, "DISTINCT_MAX_ROWS", 0)
    ctx = build_context(ds, 2, False)
    assert not ctx.distinct and ctx.samples
    for a in ctx.cont_pos:
        d = ref.distinct[a]
        mids = (d[:-1].astype(np.float64) + d[1:]) / 2
        bars = np.concatenate([d, mids.astype(np.float32), d[1:] - np.float32(1e-3)])
        bars = bars[bars >= d[0]]
        got = ctx.cuts_below(a, bars)
        want = ref.cuts_below(a, bars)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert not np.signbit(ctx.cuts_below(0, np.asarray([0.0])))[0]


@needs_native
@pytest.mark.parametrize("index", range(6))
def test_scan_in_windows(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Segments scanned in windows of 1, 7 and 64 candidate cuts: the same trees."""
    ds = _sets()[index]
    for opts in (TrainOptions(), TrainOptions(criterion="gain")):
        want = train(ds, opts, case_order="rows").nodes
        for window in (1, 7, 64):
            with monkeypatch.context() as m:
                m.setattr(score, "WINDOW", window)
                assert train(ds, opts, case_order="rows").nodes == want


@needs_native
def test_pruning_spends_the_context_data() -> None:
    """After the C pruner, the context no longer holds the values, codes or classes
    (the walk let them go), and a tree it declines keeps them."""
    from treegen.trainer.fit import _grow_options
    from treegen.trainer.levelwise.grow import grow_levels
    from treegen.trainer.pruning.native import prune_flat

    ds = _tied(5)
    opts = TrainOptions()
    ctx = build_context(ds, 2, False)
    tree = grow_levels(ctx, _grow_options(opts, "level"))
    kept = prune_flat(ctx, 0.25, tree.arrays())
    assert kept is not None and ctx.cvals.size and ctx.y.size
    spent = prune_flat(ctx, 0.25, tree.arrays(), spend=True)
    assert spent is not None and ctx.cvals.size == 0 and ctx.y.size == 0 == ctx.ncodes.size
    for field in ("kind", "src", "cls", "items", "errors", "dist", "updated"):
        assert np.array_equal(getattr(spent, field), getattr(kept, field))

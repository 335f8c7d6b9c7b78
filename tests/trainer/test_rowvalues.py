"""Growth holds the context's values row by row below the root (levelwise/rowvalues.py).

The layout changes and back give the same table bit for bit (NaN, -0.0 and the pad
row's inf included), only one layout is held at a time, and trees grown so are the
trees grown from the columns alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import TrainOptions, native, train
from treegen.trainer.context import Context
from treegen.trainer.levelwise import grow, rowvalues
from treegen.trainer.tables import build_context

needs_native = pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")


def _data(seed: int, n: int) -> Dataset:
    """Three continuous and one nominal attribute, unknown values and signed zeros."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)) * 5, 1)
    X[:, 3] = rng.integers(0, 3, size=n)
    y = (np.digitize(X[:, 0] + X[:, 1] / 2 + 3 * X[:, 3], [-2.0, 4.0]) + (rng.random(n) < 0.2)) % 3
    X[rng.random(X.shape) < 0.1] = np.nan
    X[rng.random(n) < 0.05, 1] = -0.0
    attrs = tuple(Attribute(f"c{j}", "continuous", ()) for j in range(3)) + (
        Attribute("n", "nominal", ("a", "b", "c")),
    )
    return Dataset(Schema(attrs, ("x", "y", "z"), "class"), X, y.astype(np.int32), "test")


@needs_native
@pytest.mark.parametrize("block", [7, 1 << 16])
def test_layout_round_trip_is_exact(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    monkeypatch.setattr(rowvalues, "ROW_BLOCK", block)
    ctx = build_context(_data(1, 300), 2, False, presort=False)
    ctx.c_scan = True
    before = ctx.cvals.copy()
    rowvalues.values_by_row(ctx)
    assert ctx.cvals_rows is not None and ctx.cvals.size == 0  # one layout at a time
    assert np.array_equal(ctx.cvals_rows.view(np.uint32), before.T.view(np.uint32))
    table, width = rowvalues.value_table(ctx)
    assert table is ctx.cvals_rows and width == 3
    rowvalues.values_by_column(ctx)
    assert ctx.cvals_rows is None and ctx.rows_map is None
    assert np.array_equal(ctx.cvals.view(np.uint32), before.view(np.uint32))
    assert rowvalues.value_table(ctx)[1] == 0


def test_j48_and_the_numpy_path_keep_the_columns() -> None:
    ctx = build_context(_data(2, 200), 2, True, presort=False)
    ctx.c_scan = True
    rowvalues.values_by_row(ctx)  # j48: its thresholds scan a column
    assert ctx.cvals_rows is None and ctx.cvals.size
    ctx = build_context(_data(2, 200), 2, False, presort=False)
    ctx.c_scan = False
    rowvalues.values_by_row(ctx)
    assert ctx.cvals_rows is None and ctx.cvals.size


@needs_native
@pytest.mark.parametrize("seed", [3, 4])
def test_trees_equal_with_the_values_by_row_or_by_column(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    ds = _data(seed, 3000)
    held: list[bool] = []
    real = rowvalues.values_by_row

    def spy(ctx: Context) -> None:
        real(ctx)
        held.append(ctx.cvals_rows is not None)

    monkeypatch.setattr(grow, "values_by_row", spy)
    opts = TrainOptions(prune=False)
    by_row = train(ds, opts, case_order="rows")
    assert held == [True] and by_row.size > 20
    monkeypatch.setattr(grow, "values_by_row", lambda ctx: None)
    assert train(ds, opts, case_order="rows").nodes == by_row.nodes

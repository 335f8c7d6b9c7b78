"""The training errors counted from the trainer's own tables (trainer/errcount.py) are
the errors ``treegen eval`` counts on the data (Release 8's classifier for a c45 tree,
:func:`treegen.model.classify.predict` for a j48 one): for both flavours, pruned or
not, with unknown values, ignored attributes, values that are not float32-exact (the
c45 flavour's tables hold float32), with and without the C accelerator.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from treegen.analysis.evaluate import evaluate
from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model import classify
from treegen.model.classify_r8 import predict_r8
from treegen.trainer import TrainOptions, errcount, train
from treegen.trainer.errcount import misclassified
from treegen.trainer.fit import grow_prepared
from treegen.trainer.prepare import prepare
from treegen.trainer.tables import rows_of

OPTIONS = [
    TrainOptions(),
    TrainOptions(flavor="j48"),
    TrainOptions(prune=False),
    TrainOptions(subsets=True, min_cases=3),
    TrainOptions(flavor="j48", prune=False, min_cases=4),
    TrainOptions(criterion="gain", cf=0.1),
]


def _copy(ds: Dataset) -> Dataset:
    return dataclasses.replace(ds, X=ds.X.copy(), y=ds.y.copy())


def _check(ds: Dataset, opts: TrainOptions) -> int:
    """Train on a copy of ``ds`` spending its matrix, count from the tables, and compare
    with predict on ``ds`` itself; the model is :func:`train`'s."""
    p = prepare(_copy(ds), opts, spend=True)
    model = grow_prepared(p, keep_data=True)
    assert model == train(ds, opts)
    wrong = misclassified(model, p.ctx)
    by = predict_r8 if opts.flavor == "c45" else classify.predict
    np.testing.assert_array_equal(wrong, by(model, ds.X) != ds.y)
    assert int(np.count_nonzero(wrong)) == evaluate(model, ds).errors  # eval's count
    return int(np.count_nonzero(wrong))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("opts", OPTIONS, ids=range(len(OPTIONS)))
def test_counted_errors_are_predicts(seed: int, opts: TrainOptions) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1500))
    _check(ds, opts)


def test_small_blocks_and_many_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    # Blocks that do not divide the rows; the level-wise engine and the C pruner.
    monkeypatch.setattr(errcount, "BLOCK_ROWS", 1000)
    ds = synthetic.generate(synthetic.summary_spec(12_345, seed=2))
    assert np.isnan(ds.X).any()
    assert _check(ds, TrainOptions()) > 0


@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_values_not_float32_exact_and_an_ignored_attribute(flavor: str) -> None:
    rng = np.random.default_rng(5)
    n = 600
    x0 = rng.normal(size=n)  # float64 values: the c45 tables round them to float32
    x1 = rng.integers(0, 3, size=n).astype(np.float64)
    x1[rng.random(n) < 0.1] = np.nan
    x2 = rng.normal(size=n)  # ignored: never tested, NaN in the rebuilt rows
    x0[rng.random(n) < 0.05] = np.nan
    y = ((x0 > 0.1) ^ (x1 == 2) ^ (rng.random(n) < 0.2)).astype(np.intp)
    schema = Schema(
        (
            Attribute("a", "continuous"),
            Attribute("b", "nominal", ("p", "q", "r")),
            Attribute("c", "ignore"),
        ),
        ("no", "yes"),
    )
    ds = Dataset(schema, np.column_stack([x0, x1, x2]), y)
    assert _check(ds, TrainOptions(flavor=flavor, prune=False)) > 0
    p = prepare(_copy(ds), TrainOptions(flavor=flavor), spend=True)
    rebuilt = rows_of(p.ctx, 0, n, 3)
    assert np.isnan(rebuilt[:, 2]).all()
    np.testing.assert_array_equal(rebuilt[:, 1], x1)  # codes back to value indices, NaN
    want = x0.astype(np.float32).astype(np.float64) if flavor == "c45" else x0
    np.testing.assert_array_equal(rebuilt[:, 0], want)


def test_without_the_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    # A j48 tree's errors are predict's, which the accelerator classifies.
    ds = synthetic.generate(synthetic.random_spec(3, max_rows=1200))
    monkeypatch.setattr(classify.native, "cclassify", None)
    _check(ds, TrainOptions(flavor="j48"))


def test_spent_tables_are_refused() -> None:
    ds = synthetic.generate(synthetic.random_spec(1, max_rows=800))
    p = prepare(_copy(ds), TrainOptions(), spend=True)
    model = grow_prepared(p)  # the pruner spends the tables
    with pytest.raises(AssertionError, match="spent"):
        misclassified(model, p.ctx)

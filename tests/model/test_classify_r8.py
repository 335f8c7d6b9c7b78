"""Release 8's classifier in its own float arithmetic (treegen/model/classify_r8.py), what
``treegen eval`` counts a c45 model's errors with.

On rows without a missing value it gives ``predict``'s class (the reached leaf's first
largest share); with missing values its sums are Release 8's float ones, added leaf by
leaf in depth-first branch order.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.model import native
from treegen.model.classify import native_classifier, predict
from treegen.model.classify_r8 import class_sums, predict_r8, predict_r8_numpy
from treegen.model.core import ContinuousTest, Leaf, Model, NominalTest
from treegen.trainer import TrainOptions, train

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
F32 = np.float32


@pytest.mark.parametrize("name", ["crx", "monk1", "monk2", "vote-r8"])
def test_rows_without_missing_values_get_predicts_class(name: str) -> None:
    ds = read_dataset(str(REF / name / f"{name}.data"))
    model = train(ds, TrainOptions())
    test = read_dataset(str(REF / name / f"{name}.test"), schema=model.schema, float32=True)
    used = [a.kind != "ignore" for a in model.schema.attributes]
    known = ~np.isnan(test.X[:, used]).any(axis=1)
    assert known.sum() > 10
    assert np.array_equal(predict_r8(model, test.X[known]), predict(model, test.X[known]))


def _hand_model(p: Leaf, q: Leaf) -> Model:
    """x <= 1: a leaf of 3 cases (1, 2); x > 1: a test on y whose leaves are ``p`` and
    ``q``."""
    schema = Schema(
        (Attribute("x", "continuous"), Attribute("y", "nominal", ("p", "q"))), ("a", "b")
    )
    nodes = (
        ContinuousTest(1, 6.1, 0.0, (3.1, 3.0), attribute=0, threshold=1.0, children=(1, 2)),
        Leaf(1, 3.0, 1.0, (1.0, 2.0)),
        NominalTest(0, 3.1, 0.0, (2.1, 0.9), attribute=1, children=(3, 4)),
        p,
        q,
    )
    return Model(schema, nodes)


def test_sums_are_release8s_floats_in_branch_order() -> None:
    """x <= 1: leaf of 3 cases (1, 2); x > 1: a test on y whose leaves hold (2, 0) and
    (0.1, 0.9): a row with x unknown adds 3/3.1 of the first leaf's shares, then 0.1/3.1
    of the second subtree's, each product and quotient rounded to float."""
    model = _hand_model(Leaf(0, 2.0, 0.0, (2.0, 0.0)), Leaf(1, 1.1, 0.2, (0.1, 0.9)))
    got = class_sums(model, np.asarray([[math.nan, math.nan]]))[0]
    w1 = (F32(1) * F32(3.0)) / F32(6.1)
    w2 = (F32(1) * F32(3.1)) / F32(6.1)
    w3 = (w2 * F32(2.0)) / F32(3.1)
    w4 = (w2 * F32(1.1)) / F32(3.1)
    want = np.zeros(2, dtype=F32)
    want[0] += (w1 * F32(1.0)) / F32(3.0)
    want[1] += (w1 * F32(2.0)) / F32(3.0)
    want[0] += (w3 * F32(2.0)) / F32(2.0)
    want[0] += (w4 * F32(0.1)) / F32(1.1)
    want[1] += (w4 * F32(0.9)) / F32(1.1)
    assert np.array_equal(got, want)
    assert predict_r8(model, np.asarray([[math.nan, math.nan]])).tolist() == [int(np.argmax(want))]


# ------------------------------------------------- the accelerator's Release 8 sums

needs_native = pytest.mark.skipif(native.cclassify is None, reason="accelerator not built")


def _native_r8(model: Model, X: np.ndarray) -> np.ndarray:
    run = native_classifier(model, release8=True)
    assert run is not None
    got = run(np.asarray(X, dtype=np.float64))
    assert got is not None, "the accelerator declined the model"
    return got


@needs_native
@pytest.mark.parametrize("subsets", [False, True])
@pytest.mark.parametrize("prune", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_the_accelerator_sums_as_numpy(subsets: bool, prune: bool, seed: int) -> None:
    """Every row's class from C equals class_sums' first largest, on trained c45 trees
    with unknown values (5% of the cells, in training too) and with cells the readers
    never produce (codes out of range or not whole, infinities, values beyond float32's
    range); the numpy code is the reference."""
    gen = synthetic.generate(synthetic.random_spec(seed, min_rows=300, max_rows=3000))
    rng = np.random.default_rng(seed)
    X = gen.X.copy()
    X[rng.random(X.shape) < 0.05] = math.nan
    ds = Dataset(gen.schema, X, gen.y)
    model = train(ds, TrainOptions(subsets=subsets, prune=prune, min_cases=2))
    odd = X.copy()
    for j, a in enumerate(ds.attributes):
        hit = rng.random(X.shape[0]) < 0.03
        k = len(a.values)
        specials = [math.inf, -math.inf, 3.5e38, -0.0] if a.is_continuous else [-1.0, k, 0.5]
        odd[hit, j] = rng.choice(np.asarray(specials, dtype=np.float64), size=int(hit.sum()))
    for rows in (X, odd):
        want = np.argmax(class_sums(model, rows), axis=1)
        assert np.array_equal(_native_r8(model, rows), want)
        assert np.array_equal(predict_r8(model, rows), want)
        assert np.array_equal(predict_r8_numpy(model, rows), want)


@needs_native
def test_the_accelerator_adds_release8s_floats_in_branch_order() -> None:
    """The hand-built tree with an empty leaf at y = p: C's sums order the two classes
    as the floats do, for the row with both values unknown and for every known
    combination; the empty leaf gives its own class."""
    model = _hand_model(Leaf(1, 0.0, 0.0, (0.0, 0.0)), Leaf(1, 3.1, 0.2, (0.1, 3.0)))
    X = np.asarray([[x, y] for x in (math.nan, 0.5, 1.0, 2.0) for y in (math.nan, 0.0, 1.0, 5.0)])
    want = np.argmax(class_sums(model, X), axis=1)
    assert np.array_equal(_native_r8(model, X), want)
    assert np.array_equal(predict_r8_numpy(model, X), want)
    assert _native_r8(model, np.asarray([[2.0, 0.0]])).tolist() == [1]  # the empty leaf's


@needs_native
def test_the_accelerator_takes_a_leafs_class_from_float_shares() -> None:
    """A row that meets no unknown value gets its leaf's class under Release 8's float
    shares, which C works out from the leaf's weights: at y = p the leaf's two weights
    differ in double (its class is b) and round to the same float, so the floats tie
    and the first class, a, wins; at y = q the leaf's own class (a) is not its largest
    share (b)."""
    tie = Leaf(1, 2.00000005, 0.0, (1.0, 1.00000005))
    model = _hand_model(tie, Leaf(0, 3.1, 0.2, (0.1, 3.0)))
    assert F32(tie.dist[0]) == F32(tie.dist[1]) and tie.dist[0] < tie.dist[1]
    X = np.asarray([[2.0, 0.0], [2.0, 1.0], [0.5, 0.0]])
    want = np.argmax(class_sums(model, X), axis=1)
    assert want.tolist() == [0, 1, 1]
    assert np.array_equal(_native_r8(model, X), want)
